#!/bin/sh
# fetch.sh: the images the test suites boot, build in or run, fetched
# (never installed) into the cache once, each by the script that knows
# it, under a lock of its own: a suite that needs an image whose fetch is
# under way waits for that fetch instead of starting a second.
#
# Usage: tests/vm/fetch.sh [--start | --list] IMAGE...
#
#   IMAGE   kernel            Debian 12's 6.1 kernel and busybox (fetch-kernel.sh)
#           systemd           Debian 12 with systemd (fetch-systemd-rootfs.sh)
#           prometheus        promtool, prometheus, prometheus-node-exporter (fetch-prometheus.sh)
#           debian13-kernels  Debian 13's 6.12 kernels (fetch-debian.sh trixie kernels)
#           debian13-build    Debian 13's build root (fetch-debian.sh trixie build)
#           debian13-arm64    Debian 13's arm64 kernel and busybox (fetch-debian.sh
#                             trixie arm64)
#           debian13-systemd  Debian 13 with systemd, and with podman
#                             (fetch-debian.sh trixie systemd podman)
#           sid-kernels       Debian sid's 7.x kernels (fetch-debian.sh sid kernels)
#           sid-build         Debian sid's build root (fetch-debian.sh sid build)
#           sid-systemd       Debian sid with systemd, and with podman
#                             (fetch-debian.sh sid systemd podman)
#           sid-scx           scx_simple, the kernel's example BPF scheduler, built
#                             with Debian sid's packages (fetch-debian.sh sid scx)
#           all               every one of them
#
#   (no option)  fetch the missing images side by side; return when the
#                cache holds them all (at once when it does already)
#   --start      print a line per missing image (what it is for, how
#                large it is), start their fetch in the background and
#                return: make check starts with this, and each suite's
#                own fetch.sh IMAGE then waits for its image only
#   --list       the line per image, missing or not; fetches nothing
#
# Environment:
#   LIBDL_VM_CACHE   cache folder (default: ~/.cache/libdl, cache-dir.sh)
#   CI               "true" on CI, where no suite may skip for want of an
#                    image: a failed fetch is then an error (exit 1)
#
# The background fetches of --start write to CACHE/.fetch-IMAGE.log.  A
# fetch that fails there is tried once more by the first suite that
# needs the image, so that its log says why.
#
# Exit status: 0 when the cache holds every image asked for; else, with
# the scripts' messages on stderr, one line per missing image on stdout
# ("no IMAGE in CACHE: why", for the suite's skip), and 77 (the suite
# skips), or 1 when CI=true; 2 on bad usage or an unusable cache.
set -u

me=fetch.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache-dir.sh"
ALL="kernel systemd prometheus debian13-kernels debian13-build debian13-arm64 debian13-systemd sid-kernels sid-build sid-systemd sid-scx"

die() {
	echo "$me: $*" >&2
	exit 2
}

# The catalogue: the script and its arguments; what the image is and
# what it is for; its size, MB downloaded and MB in the cache, as
# measured on a Debian 12 host with deb.debian.org: about 1.6 GB to
# download and 2.8 GB in the cache for them all, 4 to 5 minutes side by
# side on a quiet 2-CPU machine for all but Debian sid's (Debian 13's
# build root the longest), three times that when other work keeps both
# CPUs busy; Debian sid's three, 312 MB, 5.5 minutes side by side at
# nice 19 on a busy machine (its build root the longest).  A podman
# layer made again (a package added to it) costs its release 2 min 45 s
# at nice 19 on a busy machine, the two side by side, most of it the
# mmdebstrap of the systemd tree it is made in.  A build root made again
# (a cache from before clang, libbpf-dev and bpftool, which add 58 MB to
# download and 280 MB to each root): 2 min 15 s each, Debian 13's and
# sid's side by side at nice 19 beside a package build (2026-12-06).
script() {
	case $1 in
	kernel) echo fetch-kernel.sh ;;
	systemd) echo fetch-systemd-rootfs.sh ;;
	prometheus) echo fetch-prometheus.sh ;;
	debian13-kernels) echo fetch-debian.sh trixie kernels ;;
	debian13-build) echo fetch-debian.sh trixie build ;;
	debian13-arm64) echo fetch-debian.sh trixie arm64 ;;
	debian13-systemd) echo fetch-debian.sh trixie systemd podman ;;
	sid-kernels) echo fetch-debian.sh sid kernels ;;
	sid-build) echo fetch-debian.sh sid build ;;
	sid-systemd) echo fetch-debian.sh sid systemd podman ;;
	sid-scx) echo fetch-debian.sh sid scx ;;
	esac
}
about() {
	case $1 in
	kernel) echo "Debian 12's 6.1 kernel and busybox, which every VM suite boots (tests/vm, tests/deb): 71 MB to download, 75 MB in the cache" ;;
	systemd) echo "Debian 12 with systemd, for tests/vm/systemd-*.vm and tests/deb/debian12.sh: 82 MB to download, 57 MB in the cache" ;;
	prometheus) echo "promtool, the prometheus server and prometheus-node-exporter, for tests/kernel/prometheus.sh and tests/vm/systemd.vm: 23 MB to download, 107 MB in the cache" ;;
	debian13-kernels) echo "Debian 13's 6.12 kernels, generic and PREEMPT_RT, for tests/vm/debian13 and tests/deb/debian13.sh: 227 MB to download, 24 MB in the cache" ;;
	debian13-build) echo "Debian 13's build root (gcc 14, libcgroup 3, clang 19 and libbpf 1.5 for dl-stat --kernel, debhelper, lintian; the cross compiler for arm64 and the arm64 libraries, 84 MB more), for tests/distro/debian13*.sh, tests/vm/debian13, tests/deb/debian13.sh and make deb DEB_IN=debian13: 292 MB to download, 1030 MB in the cache" ;;
	debian13-arm64) echo "Debian 13's arm64 kernel (6.12) and busybox, for tests/vm/arm64 (qemu-system-aarch64, CPUs of two capacities): 94 MB to download, 39 MB in the cache" ;;
	debian13-systemd) echo "Debian 13 with systemd, and with podman, for tests/vm/debian13 and tests/deb/debian13.sh: 150 MB to download, 165 MB in the cache" ;;
	sid-kernels) echo "Debian sid's 7.2 kernels, generic and PREEMPT_RT, for tests/vm/sid: 29 MB to download, 30 MB in the cache" ;;
	sid-build) echo "Debian sid's build root (gcc 16, glibc 2.43, libcgroup 3.2, clang 21 and libbpf 1.7 for dl-stat --kernel), for tests/distro/sid*.sh and tests/vm/sid: 291 MB to download, 1105 MB in the cache" ;;
	sid-systemd) echo "Debian sid with systemd 262, and with podman 5.8 and crun 1.28, for tests/vm/sid: 51 MB to download and podman's packages, 176 MB in the cache" ;;
	sid-scx) echo "scx_simple built in a Debian sid root (clang 21, libbpf 1.7, bpftool, linux-source 7.2, thrown away), for tests/vm/sid/scx.vm: 378 MB to download, 3 MB in the cache" ;;
	esac
}

# run IMAGE [--check]: the image's script (its output on stderr);
# --check, its first argument, fetches nothing and says whether the
# cache holds the image.
run() {
	check=${2:-}
	# shellcheck disable=SC2046
	set -- $(script "$1")
	s=$1
	shift
	# shellcheck disable=SC2086
	LIBDL_VM_CACHE=$cache "$here/$s" $check "$@" >&2
}
have() { run "$1" --check 2>/dev/null; }

list=""
mode=fetch
case ${1:-} in
--start) mode=start; shift ;;
--list) mode=list; shift ;;
-h | --help)
	sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p;}' "$0"
	exit 0
	;;
esac
[ $# -ge 1 ] || die "no IMAGE given (--help for usage)"
for i in "$@"; do
	case $i in
	all) list="$list $ALL" ;;
	*)
		case " $ALL " in
		*" $i "*) list="$list $i" ;;
		*) die "unknown image \"$i\": give $ALL or all" ;;
		esac
		;;
	esac
done

if [ "$mode" = list ]; then
	for i in $list; do
		state=missing
		have "$i" && state="in $cache"
		echo "$i ($state): $(about "$i")"
	done
	exit 0
fi

mkdir -p "$cache" 2>/dev/null || die "cannot create the cache folder $cache"
command -v flock >/dev/null 2>&1 || die "flock not found: install util-linux"

# The lock of an image, on file descriptor 8.  The scripts run with it
# closed: nothing they leave running (a gpg-agent) may hold it.
lock() { exec 8>>"$cache/.fetch-$1.lock"; }

if [ "$mode" = start ]; then
	for i in $list; do
		have "$i" && continue
		lock "$i"
		if flock -n 8; then
			echo "fetching $i: $(about "$i")"
			# The subshell holds the lock until its fetch ends.
			(run "$i" 8>&- >"$cache/.fetch-$i.log" 2>&1 </dev/null) >/dev/null 2>&1 &
		else
			echo "fetching $i (a fetch already under way): $(about "$i")"
		fi
		exec 8>&-
	done
	exit 0
fi

# Each image in a subshell of its own, side by side: each waits mostly
# on downloads, and each script has its own work folder.
pids=""
for i in $list; do
	(
		have "$i" && exit 0
		lock "$i"
		if ! flock -n 8; then
			echo "$me: waiting for the fetch of $i under way (its log: $cache/.fetch-$i.log)" >&2
			flock 8
		fi
		have "$i" && exit 0
		echo "$me: fetching $i: $(about "$i")" >&2
		run "$i" 8>&- 2>"$cache/.fetch-$i.err"
		rc=$?
		cat "$cache/.fetch-$i.err" >&2
		# The why, on stdout: the script's last line.
		[ "$rc" = 0 ] || echo "no $i in $cache: $(tail -n 1 "$cache/.fetch-$i.err")"
		rm -f "$cache/.fetch-$i.err"
		exit "$rc"
	) &
	pids="$pids $!"
done
status=0
for pid in $pids; do
	wait "$pid" || status=1
done
[ "$status" = 0 ] && exit 0
[ "${CI:-}" = true ] && exit 1
exit 77
