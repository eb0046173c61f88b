#!/bin/sh
# run-vm.sh: boot Debian's 6.1 kernel in qemu with a busybox initramfs and
# run one test script in it, for what must not be done to the host (cgroup
# v2 cpusets, moving every task, whole-system root-domain changes).
#
# Usage:
#   run-vm.sh [OPTION]... SCRIPT [ARG]...
#
#   --v2              boot with cgroup_no_v1=all and mount cgroup2 at
#                     /sys/fs/cgroup (cpuset is then a v2 controller);
#                     default: a tmpfs at /sys/fs/cgroup with the v1 cpuset
#                     hierarchy at /sys/fs/cgroup/cpuset, as on the hosts
#   --systemd         boot Debian 12's systemd as PID 1 on cgroup v2 instead
#                     of busybox (the root file system fetch-systemd-rootfs.sh
#                     caches); see "systemd" below
#   --enable UNIT     with --systemd: start UNIT at boot (a wants link from
#                     multi-user.target; UNIT's file comes with --file, or
#                     is one of the image's) (repeatable)
#   --timeout SECONDS kill the VM after this long (default 300)
#   --bin FILE        copy FILE to the guest's /bin/ with every shared
#                     library `ldd` lists for it, at the same absolute paths
#                     (repeatable; see "Binaries" below)
#   --lib SONAME      copy the library the host's loader opens for SONAME
#                     (ldconfig -p), with the libraries it needs: one a
#                     --bin loads with dlopen, which ldd does not list
#                     (repeatable)
#   --file SRC:DEST   copy SRC (a file or a folder) to the guest's absolute
#                     path DEST; a DEST ending in / gets SRC's name
#                     (repeatable)
#   --kernel NAME     boot another of the cache's kernels: debian13 (Debian
#                     13's 6.12 LTS) or debian13-rt (its PREEMPT_RT build),
#                     sid or sid-rt (Debian sid's 7.x, generic and
#                     PREEMPT_RT), as tests/vm/fetch-debian.sh fetches
#                     them; default Debian 12's 6.1 (LIBDL_VM_KERNEL
#                     overrides them all)
#   --rootfs NAME     with --systemd: boot debian13 (Debian 13's systemd,
#                     fetch-debian.sh trixie) or sid (Debian sid's,
#                     fetch-debian.sh sid) instead of Debian 12's;
#                     debian13-podman or sid-podman (the same with the
#                     release's podman and crun, fetch-debian.sh trixie
#                     podman, sid podman); or the image
#                     /PATH.cpio.gz (one made from any of them, e.g. with
#                     packages installed in it)
#   --sysroot DIR     the --bin programs and --lib libraries come from the
#                     root file system DIR (built there, for that system's
#                     libraries): ldd and ldconfig run in DIR (chroot, so
#                     root), and libraries are copied from DIR
#   --smp N           CPUs (default 2)
#   --arch arm64      boot Debian 13's arm64 kernel (fetch-debian.sh
#                     trixie arm64) with its busybox on qemu-system-aarch64's
#                     virt machine (TCG, -cpu max), console ttyAMA0; the
#                     programs come from a --sysroot's cross build (their
#                     libraries found with readelf in its aarch64 folders:
#                     ldd cannot run them); no --systemd
#   --capacity LIST   with --arch arm64: the CPUs' capacity-dmips-mhz, one
#                     per CPU, comma-separated (e.g. 1024,1024,446,446:
#                     two big CPUs and two little ones, which the kernel
#                     reads as cpu_capacity 1024 and 446), put into the
#                     device tree qemu makes for the machine (dumpdtb,
#                     fdtput of device-tree-compiler); sets --smp
#   --mem MB          memory (default 512)
#   --append TEXT     more kernel command-line arguments
#   --                end of options
#
# SCRIPT is copied to the guest's /test.sh; the guest's /init runs
# `sh /test.sh ARG...` (busybox ash, as root, in /, stdin /dev/null) once
# proc, sysfs, devtmpfs, tmpfs on /tmp and /run, debugfs on /sys/kernel/debug
# and the cgroups above are mounted, then prints the marker line
# `LIBDL-VM-EXIT <status>` and powers off.
#
# The guest's console (kernel messages and the script's output) streams to
# stdout, \r removed; run-vm.sh's own messages go to stderr.
#
# Exit status: the guest script's own (so 0 pass, 77 skip, anything else a
# failure, as automake reads it); 77 when qemu-system-x86_64 or an image
# is missing (after one try of tests/vm/fetch.sh, which a fetch under way
# is waited for), saying why (on CI, CI=true, a missing image is 99); 99 when
# the marker never appeared (timeout, guest crash, qemu error) or on bad
# usage.  A busybox boot that panicked, or had not begun SCRIPT after
# 120 s (a hung boot), before SCRIPT began, is booted once more.
#
# Binaries: an ELF file is copied as it is.  A libtool wrapper script (a
# script saying "Generated by ... libtool" next to a .libs/ folder) is
# replaced by the real program libtool runs for it (.libs/NAME or
# .libs/lt-NAME), still named NAME in /bin/, and its libraries are those
# `libtool --mode=execute ldd FILE` lists, uninstalled ones included.  The
# libtool used is $LIBTOOL (a command, may hold words, e.g. the Makefile's
# "$(LIBTOOL)"), else the `libtool` script of the nearest build folder above
# FILE (the one with config.status), else `libtool` on PATH.  A library that
# ldd found outside /lib/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu
# (an uninstalled libdeadline in libdl/.libs, say) has its folder put on
# LD_LIBRARY_PATH in the guest, as the wrapper does on the host.  Passing
# .libs/NAME yourself with LD_LIBRARY_PATH set works the same way.
#
# systemd: the cached root file system is the initramfs, with a second
# cpio of this run's files appended (the kernel unpacks both; merged /usr:
# --bin programs go to /usr/bin, libraries to /usr/lib/..., so /bin/NAME
# works).  systemd's generators are masked there (they make nothing in a
# VM and would run again at every daemon-reload), and
# getty-static.service.  SCRIPT runs as /test.sh from libdl-vm-test.service, a oneshot
# service ordered after multi-user.target, by /bin/sh (dash) with its
# stdout and stderr on the guest's second serial port, /dev/ttyS1, whose
# output alone goes to stdout; the marker line follows, then `systemctl
# poweroff -ff`.  The console (boot messages) is shown only when the marker
# never appears.  Default memory 1536 MB.  A SCRIPT that exits leaving
# /var/lib/libdl-vm-soft-reboot gets, instead, a `systemctl soft-reboot`
# (systemd 254 and later): every unit stops, the root file system (the
# unpacked initramfs) stays, and the next boot's transaction runs
# SCRIPT again with the same arguments; the file is removed first, so
# SCRIPT decides again.
#
# Note: Debian's busybox shell runs its own applets before it searches PATH,
# so a --bin whose name is also an applet (setpriv, taskset, nproc...) must
# be called by its path, /bin/NAME, from the script.
#
# Environment:
#   LIBDL_VM_CACHE  the images' cache (default: ~/.cache/libdl, cache-dir.sh;
#                   filled by fetch.sh)
#   CI              "true": a missing image is an error, not a skip
#   LIBDL_VM_KERNEL the kernel to boot (default: the cache's vmlinux, the
#                   uncompressed one, else its vmlinuz)
#   LIBDL_VM_ACCEL  qemu accelerator (default tcg; kvm hangs on the hosts)
#   LIBDL_VM_QEMU   qemu binary (default qemu-system-x86_64, for --arch
#                   arm64 qemu-system-aarch64)
#   LIBDL_VM_KEEP   set to 1 to keep the temporary folder (initramfs, log)
#   TMPDIR          where the temporary folder goes (default /tmp)
#
# Several run-vm.sh may run at once: each works in its own temporary folder
# and removes it on exit.
set -u

me=run-vm.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache-dir.sh"
accel=${LIBDL_VM_ACCEL:-tcg}
marker=LIBDL-VM-EXIT

say() { echo "$me: $*" >&2; }
hard() { say "$*"; exit 99; }
skip() { say "SKIP: $*"; exit 77; }

usage() {
	sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p;}' "$0"
	exit 0
}

# Quote one word for the generated /init.
shq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

v2=no
sysd=no
kname=""
rootfs=""
sysroot=""
timeout=300
smp=2
mem=""
arch=x86_64
capacity=""
enables=""
append=""
bins=""   # newline-separated
libs=""   # newline-separated
files=""  # newline-separated
nl='
'

need_arg() { [ $# -ge 2 ] || hard "$1 needs an argument (--help for usage)"; }

while [ $# -gt 0 ]; do
	case $1 in
	--v2) v2=yes ;;
	--systemd) sysd=yes ;;
	--enable) need_arg "$@"; enables="$enables $2"; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift ;;
	--bin) need_arg "$@"; bins="$bins$2$nl"; shift ;;
	--lib) need_arg "$@"; libs="$libs$2$nl"; shift ;;
	--file) need_arg "$@"; files="$files$2$nl"; shift ;;
	--kernel) need_arg "$@"; kname=$2; shift ;;
	--rootfs) need_arg "$@"; rootfs=$2; shift ;;
	--sysroot) need_arg "$@"; sysroot=$2; shift ;;
	--smp) need_arg "$@"; smp=$2; shift ;;
	--mem) need_arg "$@"; mem=$2; shift ;;
	--append) need_arg "$@"; append="$append $2"; shift ;;
	--arch) need_arg "$@"; arch=$2; shift ;;
	--capacity) need_arg "$@"; capacity=$2; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) hard "unknown option $1 (--help for usage)" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || hard "no SCRIPT given (--help for usage)"
if [ -z "$mem" ]; then
	mem=512
	[ "$sysd" = yes ] && mem=1536
fi
[ -z "$enables" ] || [ "$sysd" = yes ] || hard "--enable needs --systemd"
script=$1
shift
if ! [ -f "$script" ] || ! [ -r "$script" ]; then
	hard "cannot read the script $script"
fi
# The machine: qemu, its console, the C library's folder (Debian's multiarch).
case $arch in
x86_64)
	qemu=${LIBDL_VM_QEMU:-qemu-system-x86_64} qemu_pkg=qemu-system-x86
	console=ttyS0 multiarch=x86_64-linux-gnu ldflavour=x86-64 machine=""
	[ -z "$capacity" ] || hard "--capacity needs --arch arm64"
	;;
arm64)
	qemu=${LIBDL_VM_QEMU:-qemu-system-aarch64} qemu_pkg=qemu-system-arm
	console=ttyAMA0 multiarch=aarch64-linux-gnu ldflavour=AArch64
	machine="-machine virt -cpu max,pauth-impdef=on"
	[ "$sysd" = no ] || hard "--arch arm64 boots busybox only: no --systemd"
	[ -n "$kname" ] || kname=debian13-arm64
	[ "$kname" = debian13-arm64 ] || hard "--arch arm64 boots the debian13-arm64 kernel, not $kname"
	if [ -n "$capacity" ]; then
		case $capacity in
		*[!0-9,]* | ,* | *, | *,,*) hard "--capacity $capacity: give numbers separated by commas, one per CPU" ;;
		esac
		smp=$(echo "$capacity" | tr ',' '\n' | wc -l)
	fi
	;;
*) hard "unknown --arch $arch: give arm64 (or nothing, for x86_64)" ;;
esac
[ "$kname" != debian13-arm64 ] || [ "$arch" = arm64 ] || hard "--kernel debian13-arm64 needs --arch arm64"

for n in "$timeout" "$smp" "$mem"; do
	case $n in
	'' | *[!0-9]*) hard "not a number: $n" ;;
	esac
done

command -v "$qemu" >/dev/null 2>&1 ||
	skip "$qemu not found (install the $qemu_pkg package)"
[ -z "$capacity" ] || command -v fdtput >/dev/null 2>&1 ||
	skip "fdtput not found (install the device-tree-compiler package)"
command -v cpio >/dev/null 2>&1 || skip "cpio not found (install the cpio package)"
command -v gzip >/dev/null 2>&1 || skip "gzip not found"

# fetch.sh IMAGE: at once when the cache holds it; else it waits for its
# fetch under way (make check starts them) or fetches it.  The suite
# skips when it cannot be fetched, but on CI (CI=true), where it fails.
need() {
	why=$(LIBDL_VM_CACHE=$cache "$here/fetch.sh" "$1")
	case $? in
	0) ;;
	77) skip "$why" ;;
	*) hard "${why:-tests/vm/fetch.sh $1 failed}" ;;
	esac
}
[ "$arch" = arm64 ] || need kernel

case $rootfs in
'') image=$cache/systemd-rootfs.cpio.gz ;;
debian13) image=$cache/trixie/systemd.cpio.gz ;;
debian13-podman) image=$cache/trixie/podman.cpio.gz ;;
sid) image=$cache/sid/systemd.cpio.gz ;;
sid-podman) image=$cache/sid/podman.cpio.gz ;;
/*.cpio.gz) image=$rootfs ;;
*) hard "unknown --rootfs $rootfs: give debian13, debian13-podman, sid, sid-podman or an image's absolute path" ;;
esac
[ -z "$rootfs" ] || [ "$sysd" = yes ] || hard "--rootfs needs --systemd"
if [ "$sysd" = yes ] && [ -n "$rootfs" ] && [ "${rootfs#/}" != "$rootfs" ]; then
	[ -s "$image" ] || hard "no image $image"
elif [ "$sysd" = yes ] && [ "${rootfs%-podman}" = sid ]; then
	need sid-systemd
elif [ "$sysd" = yes ] && [ -n "$rootfs" ]; then
	need debian13-systemd
elif [ "$sysd" = yes ]; then
	need systemd
fi

# The uncompressed kernel boots in half the time under TCG (fetch-kernel.sh).
case $kname in
'')
	kernel=$cache/vmlinuz
	[ -r "$cache/vmlinux" ] && kernel=$cache/vmlinux
	;;
debian13) kernel=$cache/trixie/generic/vmlinuz; need debian13-kernels ;;
debian13-rt) kernel=$cache/trixie/rt/vmlinuz; need debian13-kernels ;;
sid) kernel=$cache/sid/generic/vmlinuz; need sid-kernels ;;
sid-rt) kernel=$cache/sid/rt/vmlinuz; need sid-kernels ;;
debian13-arm64) kernel=$cache/trixie/arm64/vmlinuz; need debian13-arm64 ;;
*) hard "unknown --kernel $kname: give debian13, debian13-rt, sid, sid-rt or debian13-arm64" ;;
esac
kernel=${LIBDL_VM_KERNEL:-$kernel}
# Debian 13's 6.12 patches its own code when a static key flips (the
# first cpuset made flips one: a suite's, or dl-part.service's at a
# systemd boot): under multi-threaded TCG a second vCPU can run a stale
# copy holding the int3 of the patch and the kernel oopses ("Oops: int3"
# in __alloc_pages, seen in kill-v2 and in the Debian 13 package boot).
# One host thread for every vCPU keeps the guest's CPUs in step, busybox
# or systemd alike; it is no slower (systemd.vm: 3.8 min, 5.5 on
# multi-threaded TCG).  Debian sid's 7.x patches its code the same way,
# and boots the same way.
case $kname in
debian13-arm64) ;;
debian13* | sid*) [ "$accel" = tcg ] && accel=tcg,thread=single ;;
esac
[ -r "$kernel" ] || skip "cannot read the kernel $kernel"
[ "$arch" = x86_64 ] || [ -z "$bins$libs" ] || [ -n "$sysroot" ] ||
	hard "--arch $arch: --bin and --lib come from a --sysroot's cross build"
if [ -n "$sysroot" ]; then
	[ -d "$sysroot" ] || hard "--sysroot $sysroot: no such folder"
	[ "$(id -u)" = 0 ] || skip "--sysroot needs root (ldd runs in the root file system, chroot)"
	sysroot=$(cd "$sysroot" && pwd)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/libdl-vm.XXXXXX") || hard "cannot create a temporary folder"
qpid=""
wpid=""
rpid=""
# shellcheck disable=SC2317  # called by the trap
# Run qemu with the given arguments, its output into OUT, and wait for
# it; a watchdog kills it after $timeout seconds (and leaves
# $tmp/timedout).  With $watch set (a file the console goes to), it
# kills it sooner, after $start_limit seconds, when the suite has not
# begun by then (no $marker-START line in $watch: a boot that hung), and
# leaves $tmp/bootstuck instead.  Sets qrc (qemu's status) and elapsed
# (seconds).
boot() {
	out=$1
	shift
	start=$(date +%s)
	rm -f "$tmp/bootstuck"
	"$qemu" "$@" </dev/null >"$out" 2>&1 &
	qpid=$!
	(
		spid=""
		trap 'kill $spid 2>/dev/null; exit 0' TERM
		left=$timeout
		if [ -n "${watch:-}" ] && [ "$start_limit" -lt "$timeout" ]; then
			sleep "$start_limit" &
			spid=$!
			wait $spid
			left=$((timeout - start_limit))
			grep -q "^$marker-START" "$watch" 2>/dev/null || left=0
		fi
		if [ "$left" = 0 ]; then
			: >"$tmp/bootstuck"
		else
			sleep "$left" &
			spid=$!
			wait $spid
			: >"$tmp/timedout"
		fi
		kill "$qpid"
		sleep 5 &
		spid=$!
		wait $spid
		kill -KILL "$qpid"
	) >/dev/null 2>&1 &
	wpid=$!
	wait "$qpid"
	qrc=$?
	qpid=""
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	wpid=""
	elapsed=$(($(date +%s) - start))
}

cleanup() {
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	if [ "${LIBDL_VM_KEEP:-0}" = 1 ]; then
		say "kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 99' HUP INT TERM

root=$tmp/root
if [ "$sysd" = yes ]; then
	# Only real folders of the image: an entry named like one of its
	# symlinks (bin, lib, sbin) would replace the symlink.
	bindir=$root/usr/bin
	mkdir -p "$bindir" "$root/etc/systemd/system/multi-user.target.wants" \
		"$root/etc/systemd/system-generators" || hard "cannot fill $root"
	# systemd's generators (fstab, getty, sysv, gpt-auto...) make nothing
	# in this VM, and run again at every daemon-reload: under TCG they
	# took 4 of its 6 s on Debian 13.  Masked, as /dev/null links of
	# their names in /etc, the image's own list.
	for g in $(gzip -dc "$image" | cpio -t --quiet 2>/dev/null |
		sed -n 's|^\./||; s|^usr/lib/systemd/system-generators/\([^/]*\)$|\1|p'); do
		ln -sf /dev/null "$root/etc/systemd/system-generators/$g"
	done
	# Gettys on tty2-6 when no logind runs: no terminal here.
	ln -sf /dev/null "$root/etc/systemd/system/getty-static.service"
else
	bindir=$root/bin
	mkdir -p "$root/bin" "$root/usr" "$root/etc" "$root/root" \
		"$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run" ||
		hard "cannot fill $root"
	ln -s bin "$root/sbin"
	ln -s ../bin "$root/usr/bin"
	ln -s ../bin "$root/usr/sbin"
	bb=$cache/busybox
	[ "$arch" = arm64 ] && bb=$cache/trixie/arm64/busybox
	cp "$bb" "$root/bin/busybox" || hard "cannot copy busybox"
	# Hard links to the copy (symlinks from --install -s would name the
	# host's path); an arm64 busybox installs its links itself, in /init.
	if [ "$arch" = x86_64 ]; then
		"$root/bin/busybox" --install "$root/bin" || hard "busybox --install failed"
	else
		ln -s busybox "$root/bin/sh"
	fi
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	ln -s /proc/mounts "$root/etc/mtab"
fi
cp "$script" "$root/test.sh" || hard "cannot copy $script"

ldpath=""

# The guest's path of a host file: the systemd image has a merged /usr.
gpath() {
	if [ "$sysd" = yes ]; then
		case $1 in
		/lib/* | /lib64/* | /bin/* | /sbin/*) printf '/usr%s\n' "$1"; return ;;
		esac
	fi
	printf '%s\n' "$1"
}

# Copy one file (of the --sysroot, if given) to the same absolute path in
# the guest, following symlinks.
put() {
	g=$(gpath "$1")
	[ -e "$root$g" ] && return 0
	if ! mkdir -p "$root${g%/*}" || ! cp -L "$sysroot$1" "$root$g"; then
		hard "cannot copy $sysroot$1 into the guest"
	fi
}

# What an ELF file of another architecture (in the --sysroot) loads, in
# ldd's form: its interpreter, and every library it and they name
# (NEEDED, readelf), found in the sysroot's multiarch folders.
elf_ldd() {
	seen=" "
	todo=$1
	interp=$(readelf -lW "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[ -z "$interp" ] || printf '\t%s (0x0)\n' "$interp"
	while [ -n "$todo" ]; do
		# shellcheck disable=SC2086
		set -- $todo
		f=$1
		shift
		todo=$*
		for so in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]$/\1/p'); do
			case $seen in *" $so "*) continue ;; esac
			seen="$seen$so "
			p=""
			for d in /usr/lib/$multiarch /lib/$multiarch; do
				[ -e "$sysroot$d/$so" ] && p=$d/$so && break
			done
			if [ -z "$p" ]; then
				printf '\t%s => not found\n' "$so"
				continue
			fi
			printf '\t%s => %s (0x0)\n' "$so" "$p"
			todo="$todo $sysroot$p"
		done
	done
}

# ldd of a file (a --sysroot's, run there).
ldd_of() {
	if [ "$arch" != x86_64 ]; then
		elf_ldd "$1"
	elif [ -n "$sysroot" ]; then
		chroot "$sysroot" ldd "${1#"$sysroot"}"
	else
		ldd "$1"
	fi
}

# The libtool of the build folder above $1, as a command line.
find_libtool() {
	if [ -n "${LIBTOOL:-}" ]; then
		printf '%s\n' "$LIBTOOL"
		return 0
	fi
	d=$(cd "$(dirname "$1")" && pwd)
	while :; do
		if [ -f "$d/libtool" ] && [ -f "$d/config.status" ]; then
			printf '%s\n' "$d/libtool"
			return 0
		fi
		[ "$d" = / ] && break
		d=$(dirname "$d")
	done
	command -v libtool 2>/dev/null
}

is_ltwrapper() {
	[ -d "$(dirname "$1")/.libs" ] &&
		sed -n '1,5p' "$1" 2>/dev/null | grep -q '^# Generated by .*libtool'
}

add_bin() {
	f=$1
	[ -f "$f" ] || hard "--bin $f: no such file"
	name=${f##*/}
	real=$f
	runner=""
	if is_ltwrapper "$f"; then
		lt=$(find_libtool "$f") || hard "--bin $f is a libtool wrapper but no libtool script was found; set LIBTOOL"
		# shellcheck disable=SC2086
		real=$($lt --mode=execute echo "$f")
		[ -f "$real" ] || hard "--bin $f: $lt --mode=execute echo did not name its program"
		runner="$lt --mode=execute"
	fi
	rm -f "$bindir/$name"
	cp -L "$real" "$bindir/$name" || hard "cannot copy $real into the guest"
	chmod +x "$bindir/$name"
	if [ -n "$sysroot" ]; then
		case $f in
		"$sysroot"/*) ;;
		*) hard "--bin $f is not in the --sysroot $sysroot" ;;
		esac
		is_ltwrapper "$f" && hard "--bin $f: a libtool wrapper cannot be run in the --sysroot"
		runner=ldd_of
	else
		runner="$runner ldd"
	fi
	# shellcheck disable=SC2086
	if ! out=$($runner "$f" 2>&1); then
		case $out in
		*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
		*) hard "ldd $f failed: $out" ;;
		esac
	fi
	copy_libs "$f" "$out"
}

# copy_libs WHAT LDD-OUTPUT: every library ldd listed, into the guest.
copy_libs() {
	out=$2
	missing=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p')
	[ -z "$missing" ] || hard "$1: ldd finds no $(printf '%s\n' "$missing" | paste -s -d ' ' -)"
	for lib in $(printf '%s\n' "$out" | sed -n \
		-e 's/^[[:space:]]*[^[:space:]]* => \(\/[^[:space:]]*\) (0x.*/\1/p' \
		-e 's/^[[:space:]]*\(\/[^[:space:]]*\) (0x.*/\1/p'); do
		dir=${lib%/*}
		case $dir in
		/lib/"$multiarch" | /usr/lib/"$multiarch" | /lib64 | /lib) put "$lib" ;;
		*)
			if [ "$sysd" = yes ]; then
				# Services started by systemd get no LD_LIBRARY_PATH.
				mkdir -p "$root/usr/lib/$multiarch" &&
					cp -L "$sysroot$lib" "$root/usr/lib/$multiarch/" ||
					hard "cannot copy $lib into the guest"
				continue
			fi
			put "$lib"
			case :$ldpath: in
			*:"$dir":*) ;;
			*) ldpath=${ldpath:+$ldpath:}$dir ;;
			esac
			;;
		esac
	done
}

# add_lib SONAME: the library of that name (the host's, or the
# --sysroot's), and what it needs.
add_lib() {
	if [ "$arch" != x86_64 ]; then
		path=$(for d in /usr/lib/$multiarch /lib/$multiarch; do
			[ -e "$sysroot$d/$1" ] && echo "$d/$1"
		done | head -n 1)
	else
		if [ -n "$sysroot" ]; then
			path=$(chroot "$sysroot" ldconfig -p 2>/dev/null)
		else
			path=$(ldconfig -p 2>/dev/null)
		fi
		path=$(printf '%s\n' "$path" | sed -n "s/^[[:space:]]*$1 (libc6,$ldflavour[^)]*) => \(.*\)$/\1/p" | head -n 1)
	fi
	[ -n "$path" ] && [ -f "$sysroot$path" ] || hard "--lib $1: the loader knows no such library (ldconfig -p${sysroot:+ in $sysroot})"
	put "$path"
	out=$(ldd_of "$sysroot$path" 2>&1) || hard "ldd $path failed: $out"
	copy_libs "--lib $1" "$out"
}

add_file() {
	src=${1%%:*}
	dest=${1#*:}
	if [ "$src" = "$1" ] || [ -z "$src" ]; then
		hard "--file $1: not SRC:DEST"
	fi
	case $dest in
	/*) ;;
	*) hard "--file $1: DEST must be an absolute path" ;;
	esac
	case $dest in
	*/) dest=$dest${src##*/} ;;
	esac
	[ -e "$src" ] || hard "--file $1: no such file $src"
	if ! mkdir -p "$root${dest%/*}" || ! rm -rf "$root$dest" ||
		! cp -R -L "$src" "$root$dest"; then
		hard "cannot copy $src to $dest in the guest"
	fi
}

IFS_save=$IFS
IFS=$nl
for f in $bins; do
	IFS=$IFS_save
	add_bin "$f"
done
for f in $libs; do
	IFS=$IFS_save
	add_lib "$f"
done
for f in $files; do
	IFS=$IFS_save
	add_file "$f"
done
IFS=$IFS_save

args=""
for a in "$@"; do
	args="$args $(shq "$a")"
done

if [ "$sysd" = yes ]; then
	cat >"$root/etc/systemd/system/libdl-vm-test.service" <<EOF
# Generated by run-vm.sh: the suite, once the system is up.
[Unit]
Description=libdl VM suite
After=multi-user.target

[Service]
Type=oneshot
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
WorkingDirectory=/
StandardInput=null
ExecStart=/bin/sh -c 'sh /test.sh$args >/dev/ttyS1 2>&1; s=\$\$?; if [ -e /var/lib/libdl-vm-soft-reboot ]; then rm -f /var/lib/libdl-vm-soft-reboot; systemctl soft-reboot; exit 0; fi; echo >/dev/ttyS1; echo "$marker \$\$s" >/dev/ttyS1; systemctl poweroff -ff'
EOF
	ln -s ../libdl-vm-test.service "$root/etc/systemd/system/multi-user.target.wants/" ||
		hard "cannot enable the test service"
	for unit in $enables; do
		target=/etc/systemd/system/$unit
		[ -e "$root$target" ] || target=/lib/systemd/system/$unit
		ln -sf "$target" "$root/etc/systemd/system/multi-user.target.wants/$unit" ||
			hard "cannot enable $unit"
	done
	(cd "$root" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$tmp/overlay.gz" ||
		hard "cannot pack this run's files"
	cat "$image" "$tmp/overlay.gz" >"$tmp/initrd.gz" || hard "cannot build the initramfs"
	rm -f "$tmp/overlay.gz"
	# As below: a boot that panicked before the suite began, once more.
	for try in 1 2; do
		boot "$tmp/qemu.log" -accel "$accel" -smp "$smp" -m "$mem" \
			-kernel "$kernel" -initrd "$tmp/initrd.gz" \
			-append "console=ttyS0 rdinit=/sbin/init panic=-1 quiet$append" \
			-nodefaults -no-user-config -display none -no-reboot \
			-serial "file:$tmp/console.raw" -serial "file:$tmp/out"
		[ -s "$tmp/out" ] || ! grep -q "Kernel panic" "$tmp/console.raw" ||
			[ -e "$tmp/timedout" ] || [ $try = 2 ] && break
		say "the kernel panicked while it booted, before the suite began: booting again"
	done
	tr -d '\r' <"$tmp/out" >"$tmp/out.txt" 2>/dev/null
	status=$(sed -n "s/^$marker \([0-9][0-9]*\)\$/\1/p" "$tmp/out.txt" | tail -n 1)
	sed "/^$marker /d" "$tmp/out.txt"
	if [ -z "$status" ]; then
		echo "== the guest's console, last 150 lines"
		tr -d '\r' <"$tmp/console.raw" 2>/dev/null | tail -n 150
		cat "$tmp/qemu.log"
		[ -e "$tmp/timedout" ] && hard "timed out after $timeout s: no $marker line from the guest"
		hard "the guest ended without a $marker line (qemu exit status $qrc, after $elapsed s)"
	fi
	say "guest script exit status $status, after $elapsed s"
	exit "$status"
fi

if [ "$v2" = yes ]; then
	cgroup_mount='mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail cgroup2'
	append=" cgroup_no_v1=all$append"
else
	cgroup_mount='mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup || fail "tmpfs on /sys/fs/cgroup"
mkdir -p /sys/fs/cgroup/cpuset
mount -t cgroup -o cpuset cpuset /sys/fs/cgroup/cpuset || fail "v1 cpuset"'
fi

cat >"$root/init" <<EOF
#!/bin/sh
# Generated by run-vm.sh.
export PATH=/bin HOME=/root
[ -e /bin/mount ] || /bin/busybox --install /bin 2>/dev/null
fail() { echo "init: cannot mount \$1"; }
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc || fail proc
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm || fail /dev/shm
mount -t sysfs sysfs /sys || fail sysfs
# Files the initramfs put under /tmp or /run move onto the tmpfs.
mkdir /.initramfs
for d in /tmp /run; do
	mv \$d /.initramfs\$d && mkdir \$d &&
		mount -t tmpfs tmpfs \$d && cp -a /.initramfs\$d/. \$d/ || fail \$d
done
rm -rf /.initramfs
mount -t debugfs debugfs /sys/kernel/debug || fail debugfs
$cgroup_mount
${ldpath:+export LD_LIBRARY_PATH=$(shq "$ldpath")}
cd /
echo "$marker-START"
sh /test.sh$args </dev/null
status=\$?
echo
echo "$marker \$status"
poweroff -f
EOF
chmod 755 "$root/init"

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$tmp/initrd.gz" ||
	hard "cannot build the initramfs"

# The device tree of the arm64 machine, with the CPUs' capacities: the
# one qemu makes for these -machine, -cpu, -smp and -m (dumpdtb), each
# /cpus/cpu@N given capacity-dmips-mhz, which the kernel reads at boot
# (drivers/base/arch_topology.c, through the cpu-map qemu writes).
dtb=""
if [ -n "$capacity" ]; then
	# shellcheck disable=SC2086
	"$qemu" $machine -machine dumpdtb="$tmp/virt.dtb" -smp "$smp" -m "$mem" \
		-nodefaults -no-user-config -display none >"$tmp/dumpdtb.log" 2>&1 ||
		hard "$qemu could not write its device tree: $(tail -n 1 "$tmp/dumpdtb.log")"
	c=0
	for cap in $(echo "$capacity" | tr ',' ' '); do
		fdtput -t u "$tmp/virt.dtb" "/cpus/cpu@$c" capacity-dmips-mhz "$cap" ||
			hard "fdtput could not give /cpus/cpu@$c a capacity"
		c=$((c + 1))
	done
	dtb="-dtb $tmp/virt.dtb"
fi

mkfifo "$tmp/console" || hard "cannot create a fifo in $tmp"
# Debian 13's 6.12 under TCG oopses now and then while it boots (an int3
# left by its own code patching, in the idle loop), before any test ran:
# such a boot is booted once more, never one that reached the script.
# So is a boot that has not begun the suite after $start_limit seconds
# (a busybox boot takes seconds, a minute on a loaded machine): an oops
# outside the idle loop does not panic, it hangs the boot, which the
# timeout alone would wait out (a VM suite of the landing CI on
# 2026-12-05 ended at its timeout with no result).  The console goes
# through sed -u, unbuffered, so the watchdog sees the marker at once.
start_limit=120
watch=$tmp/console.log
for try in 1 2; do
	sed -u 's/\r//g' <"$tmp/console" | tee "$tmp/console.log" &
	rpid=$!
	# shellcheck disable=SC2086
	boot "$tmp/console" $machine $dtb -accel "$accel" -smp "$smp" -m "$mem" \
		-kernel "$kernel" -initrd "$tmp/initrd.gz" \
		-append "console=$console quiet panic=-1$append" \
		-nodefaults -no-user-config -display none -serial stdio -no-reboot
	wait "$rpid"
	grep -q "^$marker-START" "$tmp/console.log" || [ -e "$tmp/timedout" ] || [ $try = 2 ] && break
	if [ -e "$tmp/bootstuck" ]; then
		say "the suite had not begun after $start_limit s (a boot that hung): booting again"
	elif grep -q "Kernel panic" "$tmp/console.log"; then
		say "the kernel panicked while it booted, before the suite began: booting again"
	else
		break
	fi
done

status=$(sed -n "s/^$marker \([0-9][0-9]*\)\$/\1/p" "$tmp/console.log" | tail -n 1)
if [ -z "$status" ]; then
	if [ -e "$tmp/timedout" ]; then
		hard "timed out after $timeout s: no $marker line from the guest"
	fi
	if [ -e "$tmp/bootstuck" ]; then
		hard "the suite had not begun after $start_limit s, in two boots: no $marker-START line from the guest"
	fi
	hard "the guest ended without a $marker line (qemu exit status $qrc, after $elapsed s)"
fi
say "guest script exit status $status, after $elapsed s"
exit "$status"
