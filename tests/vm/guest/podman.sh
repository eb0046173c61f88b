# podman.sh: deadline containers in a libdl partition, on Debian 13 as its
# users run them: its systemd as PID 1 (cgroup v2), its podman 5.4, crun
# 1.21 and conmon, its 6.12 kernel (fair servers: a CPU admits 0.95, 0.05
# of it held).  The image is made here, offline, with podman import from a
# root file system of busybox-static and the build's dl-run with the
# libraries it loads; nothing is pulled.
#
# A container with --cgroup-parent=libdl-rt.slice in a one-CPU partition
# runs 0.85 of that CPU under SCHED_DEADLINE (dl-run in the image, with
# CAP_SYS_NICE), and dl-stat shows its thread with its cgroup.  Requests
# through the OCI process.scheduler (a precreate hook turns an annotation
# into it, as dl-run(1) shows): the kernel refuses 0.15 more at crun's
# sched_setattr, and admits 0.04, exactly as dl-run --check --oci says of
# the same config.json.  A container outside the partitions cannot use
# the partition's CPU.  dl-part destroy refuses while the container runs
# and names it, --force stops nothing and leaves the partition, and once
# the containers are gone destroy gives systemd's tree back.  Then the
# cgroupfs path, as without systemd: a layout made in the cgroup files
# (/libdl-rt) and podman's cgroupfs manager with --cgroup-parent=/libdl-rt,
# the same admission, refusal, naming and removal.
#
# Sourced after lib.sh and systemd-part.sh (subtree, tree), on a machine
# with no layout, in a boot of the podman image (run-vm.sh --rootfs
# debian13-podman); ends without done_testing.

PM="podman --storage-driver vfs --hooks-dir /etc/containers/oci/hooks.d"
RT=$CS/libdl.slice/libdl-rt.slice
exec_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
# Each podman command costs seconds under TCG: one inspect per container.
pid_id() { $PM inspect -f '{{.State.Pid}} {{.Id}}' "$1" 2>/dev/null; }
bundle_of() { echo "/var/lib/containers/storage/vfs-containers/$1/userdata"; }

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

# dl-run(1)'s recipe: a precreate hook turns the annotation
# org.libdl.deadline="RUNTIME DEADLINE PERIOD" (ns) into process.scheduler.
mkdir -p /usr/local/libexec /etc/containers/oci/hooks.d
cat >/usr/local/libexec/libdl-oci-deadline <<'EOF'
#!/bin/sh
exec jq -c '(.annotations["org.libdl.deadline"] | split(" ") | map(tonumber)) as [$r, $d, $p]
	| .process.scheduler = { policy: "SCHED_DEADLINE", runtime: $r, deadline: $d, period: $p,
				 flags: ["SCHED_FLAG_RESET_ON_FORK"] }'
EOF
chmod 755 /usr/local/libexec/libdl-oci-deadline
cat >/etc/containers/oci/hooks.d/50-libdl-deadline.json <<'EOF'
{ "version": "1.0.0",
  "hook": { "path": "/usr/local/libexec/libdl-oci-deadline" },
  "when": { "annotations": { "^org\\.libdl\\.deadline$": ".+" } },
  "stages": [ "precreate" ] }
EOF

# D, outside the partitions, started first: what podman makes of its own
# the first time (machine.slice, its controllers) is not the layout's,
# the tree to give back is after it.
run $PM run -d --name d --network none localhost/libdl-rt sleep 3600
set -- $(pid_id d)
pd=$1
check "a container outside the partitions runs, in machine.slice" has "$(cat /proc/"$pd"/cgroup 2>/dev/null)" "machine.slice/libpod-"
before=$(tree)
run dl-part create --partition rt=1
check "dl-part create --partition rt=1: the slice libdl-rt.slice, a partition" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "libdl-rt.slice is a root partition of CPU 1" eq "$(cat "$RT/cpuset.cpus.partition") $(cat "$RT/cpuset.cpus.effective")" "root 1"

# A: 0.85 of CPU 1 from inside, dl-run with CAP_SYS_NICE.
t0=$(date +%s)
run $PM run -d --name a --network none --cap-add SYS_NICE --cgroup-parent=libdl-rt.slice localhost/libdl-rt \
	dl-run -r 850ms -p 1s -- sh -c 'while :; do :; done'
check "podman run --cgroup-parent=libdl-rt.slice: container a runs ($(($(date +%s) - t0)) s)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
set -- $(pid_id a)
pa=$1 ida=$(echo "$2" | cut -c1-12) longa=$2
for _ in $(seq 50); do [ "$(policy "$pa")" = 6 ] && break; sleep 0.2; done
check "its process is SCHED_DEADLINE" eq "$(policy "$pa")" 6
check "in the partition's slice, its own scope" has "$(cat /proc/"$pa"/cgroup)" "/libdl.slice/libdl-rt.slice/libpod-"
e0=$(exec_ns "$pa")
s0=$(date +%s%N)
sleep 4
e1=$(exec_ns "$pa")
s1=$(date +%s%N)
share=$(awk -v e="$((e1 - e0))" -v t="$((s1 - s0))" 'BEGIN { printf "%.3f", e / t }')
# At most its 0.85 (the kernel throttles it); under TCG on a busy host
# the replenishment timer fires late, so a little less than 0.85 is what
# the guest measures (0.77 at a host load of 10).
check "it runs 0.85 of CPU 1 (measured $share over 4 s)" awk -v s="$share" 'BEGIN { exit !(s >= 0.75 && s <= 0.88) }'
run dl-stat --tasks
check "dl-stat shows its deadline thread, 850ms every 1s, with its cgroup" has "$out" "libpod-$ida"
has "$out" "850ms" >/dev/null || not_ok "dl-stat shows 850ms for it"
run dl-stat --prometheus --tasks
check "dl-stat --prometheus labels it with that cgroup" has "$out" "libdl_task_runtime_seconds{command=\"sh\",cgroup=\"/libdl.slice/libdl-rt.slice/libpod-$longa"
note "$(dl-stat --domains | head -n 3)"

# B: the OCI process.scheduler, crun's sched_setattr is the kernel's word.
# 0.15 more does not fit: 0.85 of CPU 1's 0.95 is held, and its fair
# server's 0.05 too unless a rebuild that kept the root domain dropped it
# from the kernel's count (6.12, as the admission suite's last rebuild
# does: docs/kernel-notes.md, "The fair server"), so at most 0.10 is free.
idb=$($PM create --name b --network none --cgroup-parent=libdl-rt.slice \
	--annotation org.libdl.deadline="150000000 1000000000 1000000000" localhost/libdl-rt sleep 300 2>/dev/null)
run $PM start b
kernel_b=$rc
note "podman start b: $err"
check "the kernel refuses b's 0.15 at crun's sched_setattr (EBUSY)" has "$err" "sched_setattr"
has "$err" "Device or resource busy" >/dev/null || not_ok "the refusal is EBUSY"
run dl-run --check --oci "$(bundle_of "$idb")"
note "dl-run --check --oci: $out"
check "dl-run --check --oci on b's config.json: not admissible, exit 1, as the kernel" eq "$rc $([ "$kernel_b" != 0 ] && echo refused)" "1 refused"
has "$out" "in partition rt" >/dev/null || not_ok "the check names partition rt"
# 0.04 fits: the kernel admits it.  crun 1.21 then resets the affinity of
# the deadline task with an empty mask, which the kernel refuses (EBUSY,
# dl_task_check_affinity); crun 1.25 passes a full one.  Either way the
# kernel's admission was that sched_setattr.
idc=$($PM create --name c --network none --cgroup-parent=libdl-rt.slice \
	--annotation org.libdl.deadline="40000000 1000000000 1000000000" localhost/libdl-rt sleep 300 2>/dev/null)
run $PM start c
note "podman start c: rc $rc ${err:-ok}"
if [ "$rc" = 0 ]; then
	ok "the kernel admits c's 0.04 (crun runs it)"
else
	check "the kernel admits c's 0.04 at crun's sched_setattr (crun 1.21 fails only after it, resetting the affinity)" has "$err" "failed to reset affinity"
fi
run dl-run --check --oci "$(bundle_of "$idc")"
note "dl-run --check --oci: $out"
check "dl-run --check --oci on c's config.json: admissible, exit 0" eq "$rc" 0
run dl-run --check --json --oci "$(bundle_of "$idc")"
check "--json names the partition" has "$out" '"partition":"rt"'

# D: outside the partitions, CPU 1 is not its to use.
check "its CPUs leave out the partition's CPU 1" eq "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$pd"/status)" 0
run taskset -pc 1 "$pd"
check "it cannot be moved onto CPU 1 (taskset refused)" eq "$([ "$rc" != 0 ] && echo refused)" refused

# Destroy with a running container: refused and named; --force stops nothing.
mid=$(tree)
run dl-part destroy
check "dl-part destroy with container a in rt: refused" eq "$rc" 1
check "the refusal names it" has "$err" "podman container $ida"
check "and leaves the tree as it was" eq "$(tree)" "$mid"
run dl-part destroy --force
check "dl-part destroy --force: exit 0" eq "$rc" 0
check "it says what it leaves" has "$out" "left in place: partition rt"
check "a still runs under SCHED_DEADLINE in a partition still valid" eq "$(policy "$pa") $(cat "$RT/cpuset.cpus.partition")" "6 root"

run $PM rm -f -t 0 a b c
check "podman rm -f the containers in the partition" eq "$rc" 0
run dl-part destroy
check "dl-part destroy once they are gone" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
# D still runs, as when the tree was read before the layout: systemd
# enables the controllers its scope needs at the root while it runs.
check "systemd's tree is as it was before the layout" eq "$(tree)" "$before"
$PM rm -f -t 0 d >/dev/null 2>&1

# The cgroupfs path, as on a host without systemd: the layout made in the
# cgroup files directly (LIBDL_NO_SYSTEMD: partitions /libdl-NAME) and
# podman's cgroupfs manager with the partition's cgroup as the parent.
F="$PM --cgroup-manager cgroupfs"
run env LIBDL_NO_SYSTEMD=1 dl-part create --partition rt=1
check "cgroupfs: dl-part create --partition rt=1 makes /libdl-rt a partition" eq "$rc $(cat "$CS/libdl-rt/cpuset.cpus.partition" 2>/dev/null)" "0 root"
[ "$rc" = 0 ] || note "$err"
run $F run -d --name e --network none --cap-add SYS_NICE --cgroup-parent=/libdl-rt localhost/libdl-rt \
	dl-run -r 850ms -p 1s -- sh -c 'while :; do :; done'
check "cgroupfs: podman run --cgroup-parent=/libdl-rt" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
set -- $(pid_id e)
pe=$1 ide=$(echo "$2" | cut -c1-12)
for _ in $(seq 50); do [ "$(policy "$pe")" = 6 ] && break; sleep 0.2; done
check "cgroupfs: its process is SCHED_DEADLINE, below /libdl-rt" eq "$(policy "$pe") $(grep -c '::/libdl-rt/' /proc/"$pe"/cgroup)" "6 1"
idf=$($F create --name f --network none --cgroup-parent=/libdl-rt \
	--annotation org.libdl.deadline="150000000 1000000000 1000000000" localhost/libdl-rt sleep 300 2>/dev/null)
run $F start f
kernel_f=$rc
check "cgroupfs: the kernel refuses 0.15 more at crun's sched_setattr" has "$err" "sched_setattr"
run dl-run --check --oci "$(bundle_of "$idf")"
note "dl-run --check --oci: $out"
check "cgroupfs: dl-run --check --oci reads /libdl-rt/... as partition rt and says refused too" eq "$rc $([ "$kernel_f" != 0 ] && echo refused)" "1 refused"
has "$out" "in partition rt" >/dev/null || not_ok "cgroupfs: the check names partition rt"
run dl-part destroy
check "cgroupfs: destroy refuses and names container e" has "$rc $err" "1 "
has "$err" "podman container $ide" >/dev/null || not_ok "cgroupfs: the refusal names podman container $ide"
run $F rm -f -t 0 e f
run dl-part destroy
check "cgroupfs: destroy once the containers are gone, /libdl-rt removed" eq "$rc $(ls -d "$CS"/libdl* 2>/dev/null)" "0 "
