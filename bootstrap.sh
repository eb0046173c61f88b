#!/bin/bash
# bootstrap.sh: get a fresh Debian/Ubuntu checkout to a built tree.
#
#  1. Installs the missing build and test dependencies with apt-get when run
#     as root; otherwise prints the apt-get command to run and stops.
#  2. Fetches (never installs) the Debian kernel and busybox the VM suites
#     boot in qemu, into tests/vm/cache/ (see tests/vm/fetch-kernel.sh),
#     and builds there once the Debian 12 root file system with systemd
#     that the systemd VM suites boot (tests/vm/fetch-systemd-rootfs.sh),
#     and, as root, Debian 13's kernels, build root (with the tools to
#     build and lint Debian packages) and systemd image (fetch-trixie.sh).
#  3. Runs autoreconf and configure when needed, then make.
#
# It never installs a kernel package.  Extra arguments go to configure,
# but for --bench, which also installs what make bench needs: gnuplot for
# the plots and the peers libdl is measured against (rt-tests'
# cyclicdeadline, cpuset's cset, hyperfine; util-linux gives chrt).
set -eu

cd "$(dirname "$0")"

bench=0
if [ "${1:-}" = "--bench" ]; then
	bench=1
	shift
fi

# Package -> a file that proves it is installed.  Build: autotools, the
# three libraries.  Tests: qemu and cpio for the VM suites, setpriv and
# setcap for the privilege tests, debugfs access via mount (util-linux),
# mmdebstrap for the systemd VM image, abigail-tools for the ABI check
# (libdl/ABI), groff-base for the man page check, iproute2 and curl for the
# metrics test (a network namespace, an HTTP read).  libsystemd-dev (sd-bus) and
# bash-completion (its pkg-config file) are optional for configure.
# Packages (make deb, tests/deb): dpkg-dev, debhelper, lintian, fakeroot,
# systemd's pkg-config file (its unit folder), dh-python.  The Python
# binding: python3-dev (optional for configure), python3-pytest its tests.
PKGS="
gcc:/usr/bin/gcc
make:/usr/bin/make
autoconf:/usr/bin/autoconf
automake:/usr/bin/automake
libtool:/usr/share/aclocal/libtool.m4
pkg-config:/usr/bin/pkg-config
libcgroup-dev:/usr/include/libcgroup.h
libcap-dev:/usr/include/sys/capability.h
check:/usr/include/check.h
libcap2-bin:/usr/sbin/setcap
util-linux:/usr/bin/setpriv
qemu-system-x86:/usr/bin/qemu-system-x86_64
cpio:/usr/bin/cpio
xz-utils:/usr/bin/xz
valgrind:/usr/bin/valgrind
binutils:/usr/bin/strings
mmdebstrap:/usr/bin/mmdebstrap
abigail-tools:/usr/bin/abidiff
libsystemd-dev:/usr/include/systemd/sd-bus.h
bash-completion:/usr/share/pkgconfig/bash-completion.pc
groff-base:/usr/bin/groff
dpkg-dev:/usr/bin/dpkg-buildpackage
debhelper:/usr/bin/dh
lintian:/usr/bin/lintian
fakeroot:/usr/bin/fakeroot
systemd:/usr/share/pkgconfig/systemd.pc
iproute2:/usr/sbin/ip
curl:/usr/bin/curl
python3-dev:/usr/bin/python3-config
python3-pytest:/usr/lib/python3/dist-packages/pytest/__init__.py
dh-python:/usr/bin/dh_python3
"
# make bench: the plots and the peers (see bench/run.sh).
[ "$bench" = 1 ] && PKGS="$PKGS gnuplot-nox:/usr/bin/gnuplot
rt-tests:/usr/bin/cyclicdeadline
cpuset:/usr/bin/cset
hyperfine:/usr/bin/hyperfine
strace:/usr/bin/strace"

missing=""
for entry in $PKGS; do
	pkg=${entry%%:*}
	file=${entry#*:}
	[ -e "$file" ] || missing="$missing $pkg"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "bootstrap: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q || echo "bootstrap: apt-get update failed; trying the cached lists" >&2
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $missing
	else
		echo "bootstrap: missing packages:$missing" >&2
		echo "bootstrap: run as root:  apt-get install$missing" >&2
		exit 1
	fi
fi

# The VM suites' kernel and busybox: downloaded, unpacked, never installed.
if ! tests/vm/fetch-kernel.sh; then
	echo "bootstrap: could not fetch the VM kernel; the VM suites will skip and say why" >&2
fi
# Debian 12's systemd image, promtool and node_exporter for the metrics
# tests (unpacked, not installed: installed, each package starts and
# enables a daemon), and Debian 13 (its 6.12 kernels, a build root with
# libcgroup 3, its systemd with podman's layer) for the suites that build,
# test and boot the project there.  They are fetched side by side, and
# beside the build below: each waits mostly on downloads, and each has its
# own apt configuration and work folder.
tests/vm/fetch-systemd-rootfs.sh &
rootfs=$!
tests/vm/fetch-prometheus.sh &
prom=$!
trixie=""
if [ "$(id -u)" = 0 ]; then
	tests/vm/fetch-trixie.sh kernels build systemd podman &
	trixie=$!
fi

status=0
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi || status=$?
fi
if [ "$status" = 0 ] && { [ ! -f Makefile ] || [ configure -nt config.status ]; }; then
	./configure "$@" || status=$?
fi
[ "$status" = 0 ] && { make -j"$(nproc 2>/dev/null || echo 2)" || status=$?; }

if [ -n "$trixie" ] && ! wait "$trixie"; then
	echo "bootstrap: could not fetch Debian 13; the Debian 13 suites will skip and say why" >&2
fi
if ! wait "$rootfs"; then
	echo "bootstrap: could not build the systemd VM image; the systemd VM suites will skip and say why" >&2
fi
if ! wait "$prom"; then
	echo "bootstrap: could not fetch promtool and node_exporter; the metrics tests will skip and say why" >&2
fi
exit "$status"
