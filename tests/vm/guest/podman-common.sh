# podman-common.sh: what the containers suites share (guest/podman.sh,
# Debian 13's; guest/podman-sid.sh, sid's): podman's storage and the
# helpers, the image made offline with podman import from a root file
# system of busybox-static and the build's dl-run with the libraries it
# loads (nothing is pulled), crun told not to pivot_root, the hook's
# files as the package installs them.
#
# Sourced after lib.sh and systemd-part.sh (CS), in a boot of a podman
# image (run-vm.sh --rootfs debian13-podman or sid-podman).

PM="podman --storage-driver vfs"
RT=$CS/libdl.slice/libdl-rt.slice
exec_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
# Each podman command costs seconds under TCG: one inspect per container.
pid_id() { $PM inspect -f '{{.State.Pid}} {{.Id}}' "$1" 2>/dev/null; }

note "$(podman --version), $(crun --version | head -n 1)"
# The image: busybox-static's applets, and dl-run with what it loads.
img=/tmp/img
mkdir -p "$img/bin" "$img/usr/bin" "$img/tmp" "$img/proc" "$img/sys" "$img/dev"
cp /usr/bin/busybox "$img/bin/busybox"
for a in sh sleep cat true; do ln -s busybox "$img/bin/$a"; done
cp /usr/bin/dl-run "$img/usr/bin/dl-run"
for lib in $(ldd /usr/bin/dl-run | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
	case $lib in
	*/ld-linux*) mkdir -p "$img/lib64" && cp -L "$lib" "$img/lib64/" ;;
	*) mkdir -p "$img/lib/x86_64-linux-gnu" && cp -L "$lib" "$img/lib/x86_64-linux-gnu/" ;;
	esac
done
t0=$(date +%s)
run sh -c "tar -C $img -cf - . | $PM import - localhost/libdl-rt"
check "podman import makes the image from a root file system, offline ($(($(date +%s) - t0)) s)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"

# The guest's root is the initramfs (rootfs), where pivot_root(2) is
# refused: crun moves into the container's root another way.
mkdir -p /etc/containers
printf '[engine]\nno_pivot_root = true\n' >/etc/containers/containers.conf

# The hook as the package installs it (vm-test: the program in /usr/bin,
# its files in podman's default folder).
HOOKS=/usr/share/containers/oci/hooks.d
check "the hook's files are where podman reads them" eq "$(ls "$HOOKS")" "50-libdl-deadline-createruntime.json
50-libdl-deadline-precreate.json"
ASK="--annotation deadline.libdl.io/period=1s --annotation deadline.libdl.io/flags=reset-on-fork --annotation deadline.libdl.io/partition=rt"
params() { chrt -p "$1" | sed -n 's/.*parameters: //p'; }
# podman and crun report a hook's failure as "exit status 1" and drop its
# stderr: the hook's message is in the journal (libdl-oci-hook(8)).
hooklog() { journalctl -q -o cat -t libdl-oci-hook 2>/dev/null; }

# conf_set TEXT: the node's policy file, where the hook's build reads it
# (its sysconfdir, named in the program: $conf), holds TEXT; conf_restore
# puts it back as it was.  (grep -o prints each match of the line -m1
# stops at: the path is in the program more than once.)
conf_set() {
	conf=$(grep -ao '/[a-z/]*/libdl/dl-run.conf' /usr/bin/libdl-oci-hook | head -n 1)
	saved=
	[ -e "$conf" ] && saved=/tmp/dl-run.conf.saved && cp -p "$conf" "$saved"
	mkdir -p "${conf%/*}"
	printf '%s\n' "$1" >"$conf"
	chmod 644 "$conf"
}
conf_restore() { if [ -n "$saved" ]; then mv "$saved" "$conf"; else rm -f "$conf"; fi; }

# A rule for podman's containers (dl-run.conf(5), CONTAINERS) holds for
# root's engine too: with "allow engine podman max-task=0.001" a
# container asking 5ms every 1s (0.005) is refused at start, the rule
# named in the journal, nothing admitted; the file then as it was.  The
# hook reads the policy where its build put it (its sysconfdir).
engine_rule() {
	conf_set 'allow engine podman max-task=0.001'
	domains=$(dl-stat --domains)
	run $PM run -d --name e --network none $ASK --annotation deadline.libdl.io/runtime=5ms localhost/libdl-rt sleep 300
	check "a rule for podman's containers (allow engine podman max-task=0.001, $conf): e, asking 0.005, does not start" eq "$([ "$rc" != 0 ] && echo refused)" refused
	check "the journal names the rule and the figures" has "$(hooklog)" "a container of no Kubernetes pod (podman's): refused: the reservation is 0.0050 of a CPU, above the 0.0010 allowed for one by $conf, line 1 (allow engine podman)"
	check "nothing admitted: the root domains as before" eq "$(dl-stat --domains)" "$domains"
	$PM rm -f -t 0 e >/dev/null 2>&1
	conf_restore
}
