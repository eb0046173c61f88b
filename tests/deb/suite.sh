#!/bin/sh
# suite.sh RELEASE: the project's Debian packages for RELEASE (debian12,
# debian13) built and linted (build-deb.sh: on this Debian 12 host, or in
# Debian 13's build root), then installed, used and purged where they
# were never installed (guest.sh says what is checked):
#   debian12: in an overlay of this host's root file system (a chroot:
#             the install, the group, the capability, the policy, a
#             program built against libdeadline-dev, the purge); and in
#             a copy of Debian 12's systemd image (the one the systemd VM
#             suites boot, without the project), installed there offline
#             in a chroot with a layout in dl-part.conf, packed again and
#             booted with its own systemd (252 has no soft reboot: this
#             first boot is the install's next), where the layout at
#             boot, the users and the purge's stop are checked;
#   debian13: the same chroot in an overlay of the build root, then
#             Debian 13 booted with its own systemd (run-vm.sh --systemd
#             --rootfs debian13 --kernel debian13: the image as fetched,
#             without the project), installed there, with the layout at
#             the next boot (a soft reboot) and the purge's stop.
# TAP; the packages stay in tests/deb/RELEASE/ of the build tree.
#
# The packages are built as the README has a user build them (make deb:
# build-deb.sh), checks on for Debian 12: dh_auto_test runs make
# check-unit with Debian's own configure (its multiarch libdir, dpkg's
# build flags), which make check's other builds do not use; once is
# enough.  Debian 13's are built with --nocheck (DEB_BUILD_OPTIONS=nocheck):
# the same suites (check-unit's unit suites, build checks and fuzz
# replays) run in Debian 13's build root, with the same compiler and
# libraries, in tests/distro/debian13.sh (run.sh check), and Debian's
# multiarch libdir is used by the chroot's programs built with
# pkg-config against the installed libdeadline-dev (guest.sh: dev_prog,
# lib_layout); with them the build there took 308 s, without 140
# (2026-12-08, a quiet host).  The chroots see none of this host's
# /usr/local (an empty tmpfs over it), where a make install from source
# puts a libdeadline.so.0 the loader would find first.
set -u
release=$1
here=$(cd "$(dirname "$0")" && pwd)
src=${top_srcdir:-$here/../..}
build=${top_builddir:-.}
out=$(cd "$build" && pwd)/tests/deb/$release

case $release in
debian12)
	in=""
	host=$(. /etc/os-release && echo "$ID$VERSION_ID")
	if [ "$host" != debian12 ]; then
		echo "1..0 # SKIP Debian 12's packages are built on a Debian 12 host; this one is $host"
		exit 0
	fi
	;;
debian13) in="--in debian13 --nocheck" ;; # check-unit: tests/distro/debian13.sh
*)
	echo "1..0 # SKIP unknown release $release"
	exit 0
	;;
esac

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP the packages are installed in chroots and overlays: run as root"
	exit 0
fi

n=0
tap() { # ok|not ok, description
	n=$((n + 1))
	echo "$1 $n - $2"
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

start=$(date +%s)
# shellcheck disable=SC2086
(cd "$build" && sh "$src/build-deb.sh" $in --out "$out") >"$log" 2>&1
rc=$?
built=$(($(date +%s) - start))
case $rc in
77)
	echo "1..0 # SKIP $(sed -n 's/^build-deb.sh: //p' "$log" | tail -n 1)"
	exit 0
	;;
0 | 2)
	tap ok "the packages build for $release: $(cd "$out" && ls -- *.deb | grep -v dbgsym | tr '\n' ' ')(${built} s)"
	lint=$(sed -n 's/^build-deb.sh: \(Lintian [^ ]*\).*/\1/p' "$log")
	if [ "$rc" = 0 ]; then
		tap ok "$lint reports no error and no warning"
	else
		tap "not ok" "lintian of $release reports no error and no warning"
	fi
	sed 's/^/# /' "$log"
	# dl-stat --kernel in the package (debian/rules requires it on
	# amd64): dl-stat linked with libbpf, the BPF object embedded (the
	# names of the programs utils/kcount.bpf.c defines), libbpf1 among
	# the package's dependencies.
	x=$(mktemp -d)
	dpkg-deb -x "$out"/libdeadline-tools_*.deb "$x" 2>/dev/null
	needed=$(objdump -p "$x/usr/bin/dl-stat" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }' | paste -s -d ' ')
	want=$(sed -n 's/^int \(BPF_PROG(\)\{0,1\}\(libdl_kc_[a-z_0-9]*\)[,(].*/\2/p' "$src/utils/kcount.bpf.c" | sort | paste -s -d ' ')
	progs=$(for p in $want; do grep -q -a -F "$p" "$x/usr/bin/dl-stat" 2>/dev/null && echo "$p"; done | paste -s -d ' ')
	rm -rf "$x"
	tdeps=$(dpkg-deb -f "$out"/libdeadline-tools_*.deb Depends)
	if [ "$(dpkg --print-architecture)" = amd64 ]; then
		case $needed in
		*libbpf.so.1*) tap ok "the package's dl-stat links libbpf.so.1 (dl-stat --kernel)" ;;
		*) tap "not ok" "the package's dl-stat links libbpf.so.1 (dl-stat --kernel): it needs only $needed" ;;
		esac
		tap "$([ -n "$want" ] && [ "$progs" = "$want" ] && echo ok || echo "not ok")" \
			"and embeds the BPF object: the programs of utils/kcount.bpf.c, ${want:-none found there} (in dl-stat: ${progs:-none})"
		case $tdeps in
		*libbpf1*) tap ok "libdeadline-tools depends on libbpf1 (\${shlibs:Depends}): $(echo "$tdeps" | grep -o 'libbpf1[^,]*')" ;;
		*) tap "not ok" "libdeadline-tools depends on libbpf1: its Depends are $tdeps" ;;
		esac
	fi
	# libdeadline-nri where the release packages NRI's Go stub (Debian
	# 13), left out where it does not (Debian 12, the build profile
	# pkg.libdeadline.nonri): the plugin, its unit and page, and the Go
	# sources compiled into it named as dh-golang names them.
	if [ "$release" = debian12 ]; then
		tap "$(ls "$out"/libdeadline-nri_*.deb >/dev/null 2>&1 && echo "not ok" || echo ok)" \
			"no libdeadline-nri for $release, which has no NRI stub: $(sed -n 's/^build-deb.sh: .*(build profile \(.*\))$/build profile \1/p' "$log")"
	else
		x=$(mktemp -d)
		dpkg-deb -x "$out"/libdeadline-nri_*.deb "$x" 2>/dev/null
		nfiles=$(cd "$x" && find . -type f | sed 's|^\./|/|' | grep -v '^/usr/share/doc/' | sort | paste -s -d ' ')
		rm -rf "$x"
		sbu=$(dpkg-deb -f "$out"/libdeadline-nri_*.deb Static-Built-Using 2>/dev/null)
		tap "$([ "$nfiles" = "/usr/lib/systemd/system/libdl-nri.service /usr/libexec/libdl/libdl-nri /usr/share/man/man8/libdl-nri.8.gz" ] && echo ok || echo "not ok")" \
			"libdeadline-nri holds the plugin, its unit and its page (${nfiles:-no package})"
		case $sbu in
		*golang-github-containerd-nri*golang-1.*|*golang-1.*golang-github-containerd-nri*) ok=ok ;;
		*) ok="not ok" ;;
		esac
		tap "$ok" "its Static-Built-Using names the NRI stub and Go's standard library: $(echo "$sbu" | tr ',' '\n' | grep -c .) source packages"
	fi
	;;
*)
	tap "not ok" "the packages build for $release"
	sed 's/^/# /' "$log"
	echo "1..$n"
	exit 0
	;;
esac

# The chroots are made in a mount namespace of the suite's own, and
# thrown away with it; a network namespace of its own too, so that the
# install is offline (every dependency is in the root already).
# shellcheck disable=SC2016
in_chroot() { # ROOT MODE [overlay]: guest.sh MODE chrooted in ROOT, or in an overlay of it
	ov=$(mktemp -d "${TMPDIR:-/tmp}/libdl-deb.XXXXXX") || return 1
	mkdir "$ov/upper" "$ov/work" "$ov/root"
	unshare --mount --net --propagation private sh -c '
		set -e
		r=$1 ov=$2 debs=$3 here=$4 guest=$5 mode=$6 overlay=$7
		if [ "$overlay" = overlay ]; then
			m=$ov/root
			mount -t overlay overlay -o "lowerdir=$r,upperdir=$ov/upper,workdir=$ov/work" "$m"
		else
			m=$r
		fi
		mount -t proc proc "$m/proc"
		mount --rbind /sys "$m/sys"
		mount --rbind /dev "$m/dev"
		mount -t tmpfs -o mode=755 tmpfs "$m/run"
		# Not the local installs of the root (this live host for
		# Debian 12): its folders, empty.
		dirs=$(cd "$m/usr/local" && find . -mindepth 1 -maxdepth 1 -type d)
		mount -t tmpfs -o mode=755 tmpfs "$m/usr/local"
		for d in $dirs; do mkdir "$m/usr/local/$d"; done
		if [ "$overlay" = overlay ]; then
			# The layers, read-only, for guest.sh to tell what the
			# chroot changed from what changed in a live lower layer.
			mkdir -p "$m/run/overlay/upper" "$m/run/overlay/lower"
			mount --bind -o ro "$ov/upper" "$m/run/overlay/upper"
			mount --bind -o ro "$r" "$m/run/overlay/lower"
		fi
		mount -t tmpfs -o mode=1777 tmpfs "$m/tmp"
		mkdir -p "$m/root/debs" "$m/guest"
		cp "$debs"/*.deb "$m/root/debs/"
		cp "$guest/lib.sh" "$m/guest/"
		cp "$here/guest.sh" "$m/root/guest.sh"
		exec chroot "$m" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 LIBDL_DEB_CHROOT=1 /bin/sh /root/guest.sh "$mode"
	' sh "$1" "$ov" "$out" "$here" "$src/tests/vm/guest" "$2" "${3:-}"
	rc=$?
	rm -rf "$ov"
	return $rc
}

# guest.sh's results, numbered on from the build's, the rest as comments.
relay() { # LOG STATUS WHAT
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			res=${line%%" - "*}
			res=${res% [0-9]*}
			tap "$res" "${line#*" - "}"
			;;
		1..*) ;;
		*) echo "# $line" ;;
		esac
	done <"$1"
	if [ "$2" != 0 ] && ! grep -q '^not ok' "$1"; then
		tap "not ok" "$3 ended with status $2"
	fi
}

# The periodic loop that knows its own misses, which guest/kcount.sh
# runs under dl-run to check dl-stat --kernel's count (it needs only the
# C library): this host's build, in the guest's /usr/bin (/bin/dl-jobs
# on a merged /usr, where kcount.sh looks).
jobs=$build/tests/kernel/dl-jobs
[ -x "$jobs" ] || (cd "$build" && ${MAKE:-make} -s tests/kernel/dl-jobs) >/dev/null 2>&1

# boot WHAT MODE RUN-VM-OPTION...: guest.sh MODE in WHAT booted with
# its own systemd, its results relayed.
boot() {
	what=$1 mode=$2
	shift 2
	[ -x "$jobs" ] && set -- "$@" --file "$jobs:/usr/bin/dl-jobs"
	"$src/tests/vm/run-vm.sh" --systemd "$@" --file "$src/tests/vm/guest:/" "$here/guest.sh" "$mode" >"$log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		tap ok "the packages in $what booted # SKIP $(sed -n 's/^run-vm.sh: SKIP: //p' "$log" | head -n 1)"
	else
		relay "$log" "$rc" "the boot of $what with the packages"
	fi
}

. "$src/tests/vm/cache-dir.sh"
case $release in
debian12) root=/ ;;
debian13) root=$cache/trixie/build ;;
esac

# The chroot beside the boot (it ran after it, 11 to 20 s more): it needs
# no CPU of the guest's, and the boot needs nothing of the host's kernel.
# The users' reservations there are the host kernel's, so the round
# waits for the kernel suites' lock, that no suite counting every
# deadline thread of the machine sees them (make check may run this
# beside them; by then the host's kernel suites are mostly done).  Its
# results are relayed after the boot's, in the order they always had.
clog=$(mktemp)
trap 'rm -f "$log" "$clog" "$clog.rc" "$clog.time"' EXIT
(
	cstart=$(date +%s)
	exec 9>>/run/lock/libdl-kernel-tests.lock && flock 9
	in_chroot "$root" chroot overlay >"$clog" 2>&1
	echo $? >"$clog.rc"
	echo $(($(date +%s) - cstart)) >"$clog.time"
) &
chroot_pid=$!

# Debian 12's systemd (252) has no soft reboot: its next boot is the
# first boot of its image with the packages installed in it (offline, in
# a chroot of an unpacked copy), dl-part.conf describing a layout and a
# unit requiring it enabled; the image packed again boots once.
if [ "$release" = debian12 ]; then
	start=$(date +%s)
	why=$(LIBDL_VM_CACHE=$cache "$src/tests/vm/fetch.sh" systemd)
	fetched=$?
	img=$(mktemp -d "${TMPDIR:-/tmp}/libdl-deb-image.XXXXXX")
	mkdir "$img/root"
	if [ "$fetched" = 77 ]; then
		tap ok "the install in a copy of Debian 12's systemd image # SKIP $why"
	elif [ "$fetched" != 0 ]; then
		tap "not ok" "${why:-tests/vm/fetch.sh systemd failed}"
	elif gzip -dc "$cache/systemd-rootfs.cpio.gz" | (cd "$img/root" && cpio -idm --quiet --no-absolute-filenames); then
		# What the packages need that the image lacks: libbpf1 (which
		# dl-stat --kernel links, in a build with BPF) and its libelf1.
		# apt would take them from the archive; offline, their .debs
		# from this Debian 12 host's apt, kept in the cache, go in with
		# ours (guest.sh marks them automatic, as apt marks a
		# dependency).
		if dpkg-deb -f "$out"/libdeadline-tools_*.deb Depends | grep -q libbpf1; then
			deps=$cache/debian12-deps
			mkdir -p "$deps" "$img/root/root/deps"
			for p in libbpf1 libelf1; do
				ls "$deps/${p}"_*.deb >/dev/null 2>&1 || (cd "$deps" && apt-get download -q "$p") >>"$log.deps" 2>&1 ||
					tap "not ok" "apt-get download $p, a dependency the image lacks: $(tail -n 1 "$log.deps")"
			done
			cp "$deps"/*.deb "$img/root/root/deps/" 2>/dev/null
			rm -f "$log.deps"
		fi
		in_chroot "$img/root" image >"$log" 2>&1
		rc=$?
		relay "$log" "$rc" "the install in a copy of Debian 12's systemd image"
		rm -rf "$img/root/root/debs" "$img/root/root/deps" "$img/root/root/guest.sh" "$img/root/guest"
		(cd "$img/root" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$img/image.cpio.gz"
		rm -rf "$img/root"
		echo "# $release: the image made in $(($(date +%s) - start)) s"
		# Three CPUs: the layout made at boot takes CPU 0, and
		# guest/kcount.sh's two threads, 0.5 of a CPU each, need a root
		# domain of two CPUs beside it (0.95 of each: one CPU holds
		# one of them).
		boot "Debian 12" booted --rootfs "$img/image.cpio.gz" --timeout 600 --smp 3
	else
		tap "not ok" "unpack Debian 12's systemd image $cache/systemd-rootfs.cpio.gz"
	fi
	rm -rf "$img"
	echo "# $release: the image and its boot took $(($(date +%s) - start)) s"
fi

if [ "$release" = debian13 ]; then
	start=$(date +%s)
	# (run-vm.sh boots Debian 13's kernel on single-threaded TCG.)
	boot "Debian 13" vm --rootfs debian13 --kernel debian13 --timeout 900 \
		--file "$out:/root/debs" --file "$root/root/vm-debs:/root/vm-debs"
	echo "# $release: the VM ran in $(($(date +%s) - start)) s"
fi
start=$(date +%s)
wait "$chroot_pid"
relay "$clog" "$(cat "$clog.rc" 2>/dev/null || echo 99)" "the chroot in an overlay of $root"
echo "# $release: packages built and linted in ${built} s, the chroot ran in $(cat "$clog.time" 2>/dev/null) s beside the boot, then waited for $(($(date +%s) - start)) s"
echo "1..$n"
exit 0
