#!/bin/sh
# guest.sh vm|image|booted|chroot: the project's Debian packages in a Debian system
# where they were never installed, as a user installs and uses them
# (tests/deb/suite.sh runs it, as root).
#
# vm: Debian 13 booted with its own systemd (run-vm.sh --systemd --rootfs
# debian13, the image as fetched, without the project), at two boots:
#   boot 1: apt-get install ./*.deb of libdeadline0 and libdeadline-tools
#           (offline; libcap2-bin and libbpf1, which the image lacks,
#           from /root/vm-debs first, as part of the system); the group,
#           the capability, the policy as users see them; dl-stat
#           --kernel counting a thread's misses; a layout written to
#           /etc/libdl/dl-part.conf and a unit that requires it, enabled;
#           then a soft reboot (every unit stops, the next boot's
#           transaction starts them again in order).
#   boot 2: the layout was made at boot before that unit started; apt-get
#           purge stops it and removes it; a file system without
#           capabilities; then the system is as boot 1 found it: the same files, no
#           libdl cgroup, unit or state, the same deadline accounting.
# image, then booted: Debian 12's systemd image (252: no soft reboot).
#   image:  in a chroot of a copy of the image: apt-get install ./*.deb
#           offline, a layout in dl-part.conf and a unit that requires it,
#           and a unit that takes the deadline accounting at boot before
#           dl-part.service; suite.sh packs the copy as an initramfs.
#   booted: that image booted: the layout made at boot before that unit;
#           dl-run's capability, which no initramfs carries (cpio keeps
#           no extended attributes), set again by the package's postinst;
#           the users; dl-stat --kernel's count; apt-get purge
#           stopping both and leaving no libdl cgroup, unit or state and
#           total_bw as at boot.
# chroot: the three packages in an overlay of a Debian root file system
# (suite.sh mounts it; the overlay is thrown away): the install, the
# group, the capability and the policy as users see them, dl-stat
# linked with the release's libbpf1, a program built
# against libdeadline-dev, an administrator's dpkg-statoverride, and the
# purge leaving the files as found.  No systemd runs there: the units and
# the layout are the VM's part.
# It changes the system as no test may change a host: only in the VM or
# the overlay.
mode=${1:-}
case $mode in
vm)
	if [ "$(hostname)" != libdl-vm ] || ! [ -e /etc/systemd/system/libdl-vm-test.service ]; then
		echo "guest.sh: this is not the VM run-vm.sh boots; refusing to run" >&2
		exit 99
	fi
	;;
chroot)
	if [ "${LIBDL_DEB_CHROOT:-}" != 1 ] || [ "$(stat -f -c %T /)" != overlayfs ] ||
		! [ -d /run/overlay/upper ] || ! [ -d /run/overlay/lower ]; then
		echo "guest.sh: / is not the overlay suite.sh mounts; refusing to run" >&2
		exit 99
	fi
	;;
image)
	if [ "${LIBDL_DEB_CHROOT:-}" != 1 ] || [ "$(cat /etc/hostname 2>/dev/null)" != libdl-vm ]; then
		echo "guest.sh: / is not the copy of the VM image suite.sh unpacks; refusing to run" >&2
		exit 99
	fi
	;;
booted)
	if [ "$(hostname)" != libdl-vm ] || ! [ -e /etc/systemd/system/libdl-vm-test.service ]; then
		echo "guest.sh: this is not the VM run-vm.sh boots; refusing to run" >&2
		exit 99
	fi
	;;
*)
	echo "guest.sh: give vm, chroot, image or booted" >&2
	exit 99
	;;
esac
. /guest/lib.sh

state=/var/lib/libdl-deb-test # on the disk: the boot count, the system as found
debs=/root/debs
if [ "$mode" = chroot ]; then
	packages="libdeadline-tools libdeadline-dev libdeadline0"
else
	# No compiler in the VM's image: the -dev package is the chroot's.
	packages="libdeadline-tools libdeadline0"
fi
# The NRI plugin's package, where the release has one (suite.sh).
ls "$debs"/libdeadline-nri_*.deb >/dev/null 2>&1 && packages="$packages libdeadline-nri"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$state"
boot=$(($(cat "$state/boot" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boot"

# listing ROOT: every path under ROOT (as / names it) but the ones a
# running system changes by itself (logs, caches, apt's lists, systemd's
# and dpkg's state) and the test's own; /etc's backups of passwd and
# group files (passwd- ...) and their lock are written by any account
# change (the test's users too).
listing() {
	r=${1%/}
	find "${r:-/}" -xdev \( -path "$r/proc" -o -path "$r/sys" -o -path "$r/dev" -o -path "$r/run" \
		-o -path "$r/tmp" -o -path "$r/var/log" -o -path "$r/var/cache" -o -path "$r/var/lib/apt" \
		-o -path "$r/var/lib/systemd" -o -path "$r/var/lib/dpkg" -o -path "$r/var/tmp" -o -path "$r$state" \
		-o -path "$r/root" -o -path "$r/etc/.pwd.lock" -o -path "$r/etc/*-" -o -path "$r/guest" \
		-o -path "$r/work" -o -path "$r/var/lib/libdl-vm-soft-reboot" \) -prune -o -print |
		sed "s|^$r||" | sort
}
# The system's paths, as listing names them.  In the chroot, only what
# the chroot itself added or removed: its overlay's lower layer is live
# (Debian 12's is this host's root, where make check's other lane and
# whatever else runs there write files), so a listing of / would see
# them.  suite.sh shows the overlay's upper layer at /run/overlay/upper
# and the lower at /run/overlay/lower, read-only: a path in the upper
# layer that the lower lacks was added, a whiteout (a character device
# 0:0) is a path of the lower layer removed.  A file of the lower layer
# rewritten (copied up) is not a change of the list, as in the VM.
files() {
	if [ "$mode" != chroot ]; then
		listing /
		return
	fi
	listing /run/overlay/upper | while IFS= read -r p; do
		[ -n "$p" ] || continue
		if [ -c "/run/overlay/upper$p" ] && [ "$(stat -c %t:%T "/run/overlay/upper$p")" = 0:0 ]; then
			echo "removed $p"
		elif ! [ -e "/run/overlay/lower$p" ] && ! [ -L "/run/overlay/lower$p" ]; then
			echo "added $p"
		fi
	done
}
# The kernel's deadline accounting: total_bw of every CPU (the program
# is also the Debian 12 image's unit's, which takes it at boot).
bw_awk='/^dl_rq\[/ { cpu = $1 } cpu && /total_bw/ { print cpu, $3 }'
all_bw() {
	awk "$bw_awk" /sys/kernel/debug/sched/debug
}
# A layout's cgroups (not the VM's test service, libdl-vm-test.service).
libdl_cgroups() {
	find /sys/fs/cgroup -name 'libdl*' ! -name 'libdl-vm-test.service' 2>/dev/null
}
# as USER COMMAND...: COMMAND as USER with USER's groups, executed by a
# shell of USER's with no capability (setpriv itself executes its
# command while it still holds root's).
as() {
	u=$1
	shift
	setpriv --reuid "$u" --regid "$u" --init-groups -- sh -c 'exec "$@"' sh "$@"
}
# apt-get install ./*.deb of $packages, offline, checked; with the .debs
# of /root/deps, dependencies the system lacks that apt would take from
# the archive (suite.sh), marked automatic as apt marks a dependency.
install_debs() {
	deps=$(ls /root/deps/*.deb 2>/dev/null)
	# shellcheck disable=SC2046,SC2086
	(cd "$debs" && apt-get install -y -q $(for p in $packages; do echo "./${p}_*.deb"; done) $deps) \
		>/tmp/install.log 2>&1
	rc=$?
	[ "$rc" != 0 ] || [ -z "$deps" ] ||
		apt-mark auto $(for d in $deps; do dpkg-deb -f "$d" Package; done) >>/tmp/install.log 2>&1
	check "apt-get install ./*.deb of $(echo $packages | wc -w) packages, offline" eq "$rc" 0
	[ "$rc" = 0 ] || show_log /tmp/install.log
}
purge_debs() {
	# shellcheck disable=SC2086
	apt-get purge -y -q $packages >/tmp/purge.log 2>&1
}
# The tools' package alone, with dpkg (the rounds that check its
# maintainer scripts: apt-get costs half a minute more under TCG).
install_tools() {
	dpkg -i "$debs"/libdeadline-tools_*.deb >/tmp/install.log 2>&1
}
purge_tools() {
	dpkg -P libdeadline-tools >/tmp/purge.log 2>&1
}
show_log() {
	sed 's/^/#   /' "$1" | tail -n 30
}

# The -dev package, as a program's author uses it.
dev_prog() {
	phase "libdeadline-dev"
	cat >/home/alice/prog.c <<'EOF'
#include <libdeadline.h>
#include <stdio.h>

int main(void)
{
	struct dl_params p = { 0 }, got;
	char buf[32];

	if (dl_time_parse("2ms", &p.runtime) < 0 || dl_time_parse("10ms", &p.period) < 0)
		return fprintf(stderr, "%s\n", dl_errmsg()), 1;
	if (dl_set(0, &p) < 0 || dl_get(0, &got) < 0)
		return fprintf(stderr, "%s\n", dl_errmsg()), 1;
	printf("runtime %s", dl_time_format(got.runtime, buf, sizeof(buf)));
	printf(" period %s\n", dl_time_format(got.period, buf, sizeof(buf)));
	return 0;
}
EOF
	chown alice:alice /home/alice/prog.c
	# shellcheck disable=SC2016
	run as alice sh -c 'cd /home/alice && cc prog.c $(pkg-config --cflags --libs libdeadline) -o prog'
	check "cc prog.c \$(pkg-config --cflags --libs libdeadline) links, as alice" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	lib=$(ldd /home/alice/prog | awk '$1 == "libdeadline.so.0" { print $3 }')
	check "the program loads libdeadline.so.0 of libdeadline0" eq "$(dpkg -S "$(readlink -f "$lib")" 2>&1 | cut -d: -f1)" libdeadline0
	run /home/alice/prog
	check "and runs: its reservation is the kernel's" eq "$out" "runtime 2ms period 10ms"
	[ "$rc" = 0 ] || note "$err"
}

# A layout a program makes through libdeadline0 once the tools are
# removed: purging them leaves its state, which destroy needs.
lib_layout() {
	phase "a layout of the library's"
	cat >/root/layout.c <<'EOF'
#include <libdeadline.h>
#include <stdio.h>
#include <string.h>

/* layout: a partition of CPU 0 moving no task; layout destroy: it gone. */
int main(int argc, char **argv)
{
	struct dl_layout *l = dl_layout_new();
	dl_cpus_t cpu0;

	if (argc > 1 && strcmp(argv[1], "destroy") == 0)
		return dl_layout_destroy(NULL, NULL) < 0 ? fprintf(stderr, "%s\n", dl_errmsg()), 1 : 0;
	if (!l || dl_cpus_parse("0", &cpu0) < 0 || dl_layout_add_partition(l, "rt", &cpu0) < 0 ||
	    dl_layout_set_flags(l, DL_LAYOUT_NO_MOVE) < 0 || dl_layout_create(l, NULL) < 0)
		return fprintf(stderr, "%s\n", dl_errmsg()), 1;
	dl_layout_free(l);
	return 0;
}
EOF
	# shellcheck disable=SC2016
	run sh -c 'cc /root/layout.c $(pkg-config --cflags --libs libdeadline) -o /root/layout'
	check "a program that makes a layout builds" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	# (The NRI plugin's package depends on the tools': it goes first,
	# purged, and the purge below, which apt could no longer find it
	# for, leaves it out.)
	dpkg -P libdeadline-nri >/tmp/remove.log 2>&1
	packages=$(echo $packages | sed 's/ *libdeadline-nri//')
	dpkg -r libdeadline-tools >>/tmp/remove.log 2>&1
	check "libdeadline-tools removed, libdeadline0 kept" eq "$(dpkg-query -W -f '${db:Status-Status} ' libdeadline-tools libdeadline0)" "config-files installed "
	run /root/layout
	check "the program makes its layout" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	# A copy, so that destroy still finds the state if the purge took it
	# (the cpusets are the host's own).
	cp /run/libdl/layout /root/layout.state
	purge_tools
	check "libdeadline-tools purged" eq "$?" 0
	check "the purge says the layout's state stays" has "$(cat /tmp/purge.log)" "a layout is in place"
	check "its state stays" test -s /run/libdl/layout
	if ! [ -e /run/libdl/layout ]; then
		mkdir -p -m 0700 /run/libdl
		cp /root/layout.state /run/libdl/layout
	fi
	run /root/layout destroy
	check "and destroy, reading it, undoes the layout" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	check "no layout state left" test ! -e /run/libdl/layout
	rm -f /root/layout /root/layout.c /root/layout.state /tmp/remove.log
	install_tools
	check "libdeadline-tools installed again" eq "$?" 0
}

# dl-stat --kernel as the package ships it: dl-stat loads the release's
# libbpf1; booted (the kernel and its deadline threads are the VM's
# alone), it counts: guest/kcount.sh, the VM suites' part, on the
# package's /usr/bin/dl-stat and dl-run (/bin is /usr/bin) and the
# dl-jobs suite.sh copies in: a thread's late jobs counted as exactly
# its misses, and none of its BPF programs left once it stops.
kcount_round() {
	phase "dl-stat --kernel"
	lib=$(ldd /usr/bin/dl-stat | awk '$1 == "libbpf.so.1" { print $3 }')
	check "dl-stat loads libbpf.so.1 of libbpf1" eq "$(dpkg -S "$(readlink -f "$lib")" 2>&1 | cut -d: -f1)" libbpf1
	[ "$mode" = chroot ] && return
	run /usr/bin/dl-stat --kernel --watch 0.01 -n 1
	check "dl-stat --kernel runs: the package is built with BPF" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	check "kcount.sh finds no other dl-stat (/opt/host) than the package's" test ! -e /opt/host/dl-stat
	check "and the dl-jobs suite.sh copies in" test -x /bin/dl-jobs
	sh -c '. /guest/lib.sh && . /guest/kcount.sh'
	check "guest/kcount.sh ended with status 0" eq "$?" 0
}

# The policy as users meet it: alice in realtime, bob outside.
users_round() {
	phase "users"
	useradd -m -G realtime alice
	useradd -m bob
	run as alice dl-run -r 1ms -p 10ms -- true
	check "alice, in realtime: dl-run -r 1ms -p 10ms -- true is admitted" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	run as alice dl-run -r 1ms -p 10ms -- cat /proc/self/status /proc/self/sched
	check "her command runs under SCHED_DEADLINE" eq "$(echo "$out" | awk '$1 == "policy" { print $3 }')" 6
	for c in CapInh CapPrm CapEff CapAmb; do
		check "with no capability: $c 0" eq "$(echo "$out" | awk -v c="$c:" '$1 == c { print $2 }')" 0000000000000000
	done
	# Executed in turn by setpriv, sh and sleep: $! is bob's process.
	setpriv --reuid bob --regid bob --init-groups -- sh -c 'exec sleep 300' &
	bobs=$!
	sleep 0.5
	check "bob's process runs as bob" eq "$(stat -c %U /proc/$bobs)" bob
	run as alice dl-run -r 1ms -p 10ms --pid "$bobs"
	check "bob's process is refused to alice: dl-run's status 125" eq "$rc" 125
	check "naming its owner and the rule" has "$err" "belongs to bob"
	check "and stays SCHED_OTHER" eq "$(policy "$bobs")" 0
	kill "$bobs"
	line=$(grep -n '^allow group realtime' /etc/libdl/dl-run.conf | cut -d: -f1)
	run as alice dl-run -r 3ms -p 10ms -- true
	check "0.3 of a CPU, over the shipped policy, is refused: dl-run's status 125" eq "$rc" 125
	check "naming the rule" has "$err" "above the 0.2500 allowed for one by /etc/libdl/dl-run.conf, line $line (allow group realtime)"
	run as bob /usr/bin/dl-run -r 1ms -p 10ms -- true
	check "bob, outside realtime, cannot execute dl-run" eq "$rc" 126
	check "permission denied" has "$err" "Permission denied"
}

# The periodic loops' counters folder, the package's tmpfs of its own
# (run-libdl\x2dtasks.mount): enabled, and mounted when systemd runs.
tasks_mount_checks() {
	check "run-libdl\\x2dtasks.mount is enabled" eq "$(systemctl is-enabled 'run-libdl\x2dtasks.mount' 2>&1)" enabled
	[ "$mode" = chroot ] || [ "$mode" = image ] ||
		check "/run/libdl-tasks is a tmpfs of its own, mode 1777" eq "$(findmnt -no FSTYPE /run/libdl-tasks) $(stat -c %a /run/libdl-tasks)" "tmpfs 1777"
}

# A layout for the next boot, and a unit that needs it.
write_layout() {
	echo 'partition rt=0' >>/etc/libdl/dl-part.conf
	cat >/etc/systemd/system/needs-rt.service <<'EOF'
[Unit]
Description=a deadline task that needs partition rt
Requires=dl-part.service
After=dl-part.service

[Service]
Slice=libdl-rt.slice
ExecStartPre=/bin/sh -c 'cat /sys/fs/cgroup/libdl.slice/libdl-rt.slice/cpuset.cpus.partition >/run/needs-rt.seen 2>&1'
ExecStart=/usr/bin/dl-run -r 100ms -p 1s -- /bin/sleep infinity

[Install]
WantedBy=multi-user.target
EOF
	systemctl enable needs-rt.service >/dev/null 2>&1
	check "needs-rt.service, which requires dl-part.service, is enabled" eq "$(systemctl is-enabled needs-rt.service)" enabled
}

# The layout the next boot made, before the unit that needs it.
layout_checks() {
	check "dl-part.service made the layout at boot" eq "$(prop dl-part.service ActiveState) $(prop dl-part.service Result)" "active success"
	[ "$(prop dl-part.service Result)" = success ] ||
		journalctl -b -u dl-part.service -u needs-rt.service --no-pager | tail -n 20 | sed 's/^/#   /'
	layout_before needs-rt.service /run/needs-rt.seen
	task=$(prop needs-rt.service MainPID)
	check "needs-rt.service runs its deadline task in the partition" eq "$(policy "$task") $(cut -d: -f3 /proc/$task/cgroup)" "6 /libdl.slice/libdl-rt.slice/needs-rt.service"
}

t0=$(cut -d. -f1 /proc/uptime)
phase() { note "$* ($(($(cut -d. -f1 /proc/uptime) - t0)) s into the suite, $(cut -d. -f1 /proc/uptime) s since boot)"; }
if [ "$mode" = image ]; then
	note "a fresh $(. /etc/os-release && echo "$PRETTY_NAME") image, in a chroot"
	check "the image has none of the packages" eq "$(dpkg-query -W $packages 2>/dev/null)" ""
	install_debs
	check "the installation printed no complaint of libdeadline-tools" eq "$(grep '^libdeadline-tools:' /tmp/install.log)" ""
	check "dl-part.service is enabled" eq "$(systemctl is-enabled dl-part.service 2>&1)" enabled
	tasks_mount_checks
	write_layout
	# The deadline accounting before the layout: taken at boot, before
	# dl-part.service, for the purge to be compared with.
	cat >/etc/systemd/system/libdl-bw-before.service <<'EOF'
[Unit]
Description=the deadline accounting before dl-part.service
DefaultDependencies=no
After=sys-kernel-debug.mount
Before=dl-part.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'awk -f /etc/libdl-bw.awk /sys/kernel/debug/sched/debug >/run/libdl-bw.before'

[Install]
WantedBy=sysinit.target
EOF
	echo "$bw_awk" >/etc/libdl-bw.awk
	systemctl enable libdl-bw-before.service >/dev/null 2>&1
	check "a unit that takes the deadline accounting before dl-part.service is enabled" eq "$(systemctl is-enabled libdl-bw-before.service)" enabled
	done_testing
	exit 0
fi

if [ "$mode" = booted ]; then
	note "booted: $(. /etc/os-release && echo "$PRETTY_NAME") with the packages installed in its image, kernel $(uname -r), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
	layout_checks
	tasks_mount_checks
	# An initramfs holds no extended attributes (cpio has none): dpkg's
	# configure step sets the capability again, as at install.
	check "dl-run came through the initramfs without its capability" eq "$(getcap /usr/bin/dl-run)" ""
	ver=$(dpkg-query -W -f '${Version}' libdeadline-tools)
	/var/lib/dpkg/info/libdeadline-tools.postinst configure "$ver" >/tmp/postinst.log 2>&1
	check "the package's postinst configure sets it again" has "$(getcap /usr/bin/dl-run)" "cap_sys_nice=ep"
	[ -n "$(getcap /usr/bin/dl-run)" ] || show_log /tmp/postinst.log
	check "dl-run is root:realtime, mode 750" eq "$(stat -c '%U:%G %a' /usr/bin/dl-run)" "root:realtime 750"
	users_round
	kcount_round
elif [ "$boot" = 1 ]; then
	note "boot 1: a fresh $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
	if [ "$mode" = vm ]; then
		# What the image lacks, as part of the system found: setcap
		# (libcap2-bin), and libbpf1 with its libelf, which dl-stat
		# links (apt would take them from the archive).
		dpkg -i /root/vm-debs/*.deb >/tmp/vm-debs.log 2>&1 ||
			{ note "dpkg -i of /root/vm-debs failed"; show_log /tmp/vm-debs.log; }
		all_bw >"$state/before.bw"
	fi
	if [ "$mode" = chroot ]; then
		# man-db's trigger rebuilds a whole system's index at every
		# install and purge: half a minute each here, for nothing the
		# checks need (the overlay is thrown away).
		rm -f /var/lib/man-db/auto-update
	fi
	files >"$state/before.files"
	getent group realtime >"$state/before.group" || true
	check "the system has none of the packages" eq "$(dpkg-query -W $packages 2>/dev/null)" ""
	check "nor a group realtime" eq "$(cat "$state/before.group")" ""

	phase "installing"
	install_debs
	for p in $packages; do
		check "$p is installed" eq "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>&1)" installed
	done
	check "the installation printed no complaint of libdeadline-tools" eq "$(grep '^libdeadline-tools:' /tmp/install.log)" ""

	# The capability as the package sets it up.
	check "a system group realtime" test "$(getent group realtime | cut -d: -f3)" -lt 1000
	check "dl-run is root:realtime, mode 750" eq "$(stat -c '%U:%G %a' /usr/bin/dl-run)" "root:realtime 750"
	check "dl-run carries cap_sys_nice=ep" has "$(getcap /usr/bin/dl-run)" "cap_sys_nice=ep"
	for t in dl-part dl-stat dl-load; do
		check "$t is root:root 755, no capability" eq "$(stat -c '%U:%G %a' /usr/bin/$t) $(getcap /usr/bin/$t)" "root:root 755 "
	done
	conffiles=$(dpkg-query -W -f '${Conffiles}' libdeadline-tools)
	check "/etc/libdl/dl-run.conf is a conffile" has "$conffiles" /etc/libdl/dl-run.conf
	check "/etc/libdl/dl-part.conf is a conffile" has "$conffiles" /etc/libdl/dl-part.conf
	check "dl-part.service is enabled" eq "$(systemctl is-enabled dl-part.service 2>&1)" enabled
	if [ -z "${packages##*libdeadline-nri*}" ]; then
		# Installed disabled: the operator enables it with NRI in the
		# runtime (libdl-containers(7)).
		check "libdl-nri.service is installed disabled" eq "$(systemctl is-enabled libdl-nri.service 2>&1)" disabled
		[ "$mode" = chroot ] ||
			check "and was not started" eq "$(prop libdl-nri.service ActiveState)" inactive
		check "libdl-nri -version names the package's version" eq "$(/usr/libexec/libdl/libdl-nri -version 2>&1)" \
			"libdl-nri (libdl) $(dpkg-query -W -f '${Version}' libdeadline-nri | sed 's/-[^-]*$//')"
	fi
	tasks_mount_checks
	if [ "$mode" = vm ]; then
		check "started at install, it made nothing from the commented dl-part.conf" eq "$(libdl_cgroups)" ""
		check "and did not fail (its ExecCondition skipped it)" eq "$(prop dl-part.service ActiveState) $(prop dl-part.service Result)" "inactive exec-condition"
	fi

	users_round
	kcount_round

	if [ "$mode" = chroot ]; then
		dev_prog
		lib_layout
	fi

	if [ "$mode" = vm ]; then
		write_layout
		phase "soft reboot"
		done_testing
		: >/var/lib/libdl-vm-soft-reboot
		exit 0
	fi
fi

if [ "$mode" = vm ]; then
	phase "boot 2: after a soft reboot"
	layout_checks
fi

phase "purging"
purge_debs
rc=$?
check "apt-get purge of the packages" eq "$rc" 0
[ "$rc" = 0 ] || show_log /tmp/purge.log
if [ "$mode" != chroot ]; then
	check "it stopped needs-rt.service first (it requires the layout)" eq "$(prop needs-rt.service ActiveState)" inactive
	check "its deadline task is gone" test ! -e "/proc/$task"
	check "the layout is gone: no libdl cgroup" eq "$(libdl_cgroups)" ""
	check "no dl-part.service unit" eq "$(prop dl-part.service LoadState)" not-found
	check "no libdl unit left in /run/systemd/system" eq "$(ls /run/systemd/system 2>/dev/null | grep libdl)" ""
fi
check "no state: /run/libdl is gone" test ! -e /run/libdl
check "no counters folder: /run/libdl-tasks is unmounted and gone" test ! -e /run/libdl-tasks
check "no /etc/libdl: the conffiles went with the purge" test ! -e /etc/libdl
for p in $packages; do
	check "$p is purged" eq "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" ""
done

# dpkg's and the maintainer scripts' part, the same in the VM: the
# chroot's alone (each dpkg run costs half a minute under TCG).
if [ "$mode" = chroot ]; then
	phase "statoverride"
	# An administrator's dpkg-statoverride: their owner and mode, no capability.
	dpkg-statoverride --add root root 0700 /usr/bin/dl-run
	install_tools
	check "installed again, with a statoverride of dl-run (root:root 0700)" eq "$?" 0
	check "dl-run is as the override says" eq "$(stat -c '%U:%G %a' /usr/bin/dl-run)" "root:root 700"
	check "with no capability" eq "$(getcap /usr/bin/dl-run)" ""
	check "and the installation says why" has "$(cat /tmp/install.log)" "has a dpkg-statoverride"
	purge_tools
	check "purged" eq "$?" 0
	dpkg-statoverride --remove /usr/bin/dl-run
fi

if [ "$mode" = vm ]; then
	phase "ramfs"
	# A file system that cannot hold file capabilities: /usr/bin on a ramfs
	# (no extended attributes), a copy of it, for this install only.
	# (A mount cannot be moved out of systemd's shared /: the copy is made
	# first, and copied onto the ramfs by its own cp.)
	rm -rf /var/tmp/usrbin
	cp -a /usr/bin /var/tmp/usrbin && mount -t ramfs -o mode=755 ramfs /usr/bin &&
		/var/tmp/usrbin/cp -a /var/tmp/usrbin/. /usr/bin/
	rm -rf /var/tmp/usrbin
	check "/usr/bin on a ramfs" eq "$(findmnt -n -o FSTYPE /usr/bin)" ramfs
	install_tools
	check "installed again there" eq "$?" 0
	check "dl-run stays root's alone: root:root 755" eq "$(stat -c '%U:%G %a' /usr/bin/dl-run)" "root:root 755"
	check "with no capability" eq "$(getcap /usr/bin/dl-run)" ""
	check "and the installation says why" has "$(cat /tmp/install.log)" "the file system cannot hold file capabilities, so dl-run stays root's alone"
	run as alice dl-run -r 1ms -p 10ms -- true
	check "alice's reservation is refused then: dl-run's status 125" eq "$rc" 125
	purge_tools
	check "purged" eq "$?" 0
	# Lazily: a process started from the copy may still run (it is named).
	for exe in /proc/[0-9]*/exe; do
		case $(readlink "$exe") in
		/usr/bin/*) [ "$(stat -L -f -c %T "$exe" 2>/dev/null)" = ramfs ] && note "still running from the ramfs: $(tr '\0' ' ' <"${exe%/exe}/cmdline")" ;;
		esac
	done
	umount -l /usr/bin
	check "/usr/bin back on the disk" test "$(findmnt -n -o FSTYPE /usr/bin)" != ramfs
fi

if [ "$mode" = booted ]; then
	# The files are the chroot's to compare (run-vm.sh adds its own here).
	check "the kernel's deadline accounting is as before the layout was made" eq "$(all_bw)" "$(cat /run/libdl-bw.before 2>&1)"
	done_testing
	exit 0
fi

phase "comparing"
# What the test made itself, then the system as boot 1 found it.
if [ "$mode" = vm ]; then
	systemctl disable needs-rt.service >/dev/null 2>&1
	rm -f /etc/systemd/system/needs-rt.service
	systemctl daemon-reload
fi
userdel -r alice 2>/dev/null
userdel -r bob 2>/dev/null
files >/tmp/after.files
check "every file the packages installed is gone, and nothing else changed" eq "$(diff "$state/before.files" /tmp/after.files | grep '^[<>]')" ""
check "the group realtime stays, as Debian leaves system groups" test -n "$(getent group realtime)"
# (In the chroot, the host's accounting is not the test's alone.)
[ "$mode" = chroot ] ||
	check "the kernel's deadline accounting is as it was" eq "$(all_bw)" "$(cat "$state/before.bw")"
done_testing
