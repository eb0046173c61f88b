#!/bin/bash
# bootstrap.sh: get a fresh Debian/Ubuntu checkout to a built tree.
#
#  1. Installs the missing build and test dependencies with apt-get when run
#     as root; otherwise prints the apt-get command to run and stops.
#  2. Runs autoreconf and configure when needed, then make.
#
# It fetches none of the test suites' images (kernels, root file systems,
# about 1.5 GB to download): make check fetches those it needs, and make fetch, or
# bootstrap.sh --tests beside the build, all of them ahead of time
# (tests/vm/fetch.sh).  It never installs a kernel package.  Extra
# arguments go to configure, but for these, first:
#   --bench   also install what make bench needs: gnuplot for the plots
#             and the peers libdl is measured against (rt-tests'
#             cyclicdeadline, cpuset's cset, hyperfine; util-linux gives
#             chrt), and fetch Debian 13's build root, where its rt-app
#             runs (tests/vm/fetch.sh debian13-build)
#   --tests   also fetch every test image into the cache (~/.cache/libdl,
#             or LIBDL_VM_CACHE), beside the build
set -eu

cd "$(dirname "$0")"

bench=0
tests=0
while [ $# -gt 0 ]; do
	case $1 in
	--bench) bench=1 ;;
	--tests) tests=1 ;;
	*) break ;;
	esac
	shift
done
# The cache configure is given, for the fetch too.
for arg in "$@"; do
	case $arg in
	LIBDL_VM_CACHE=*) export LIBDL_VM_CACHE="${arg#LIBDL_VM_CACHE=}" ;;
	esac
done

# Package -> a file that proves it is installed.  Build: autotools, the
# three libraries.  Tests: qemu and cpio for the VM suites (the arm64
# one: qemu-system-arm, and device-tree-compiler's fdtput to give its
# CPUs their capacities), setpriv and
# setcap for the privilege tests, debugfs access via mount (util-linux),
# mmdebstrap for the systemd VM image, abigail-tools for the ABI check
# (libdl/ABI), groff-base for the man page check, iproute2, curl and jq for
# the metrics test (a network namespace, an HTTP read, the Prometheus
# server's answers); python3-yaml and jq for the Kubernetes examples'
# check.  libsystemd-dev (sd-bus) and
# bash-completion (its pkg-config file) are optional for configure.
# Packages (make deb, tests/deb): dpkg-dev, debhelper, lintian, fakeroot,
# systemd's pkg-config file (its unit folder), dh-python.  The Python
# binding: python3-dev (optional for configure), python3-pytest its tests.
# dl-stat --kernel (optional for configure): clang compiles its BPF
# program, bpftool embeds it, libbpf-dev (with libelf-dev and zlib1g-dev,
# which libbpf's static pieces name) loads it; rt-app's per-job log is
# checked against its counts (tests/kernel/kernel-count.sh).
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
qemu-system-arm:/usr/bin/qemu-system-aarch64
device-tree-compiler:/usr/bin/fdtput
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
jq:/usr/bin/jq
python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py
python3-dev:/usr/bin/python3-config
python3-pytest:/usr/lib/python3/dist-packages/pytest/__init__.py
dh-python:/usr/bin/dh_python3
clang:/usr/bin/clang
bpftool:/usr/sbin/bpftool
libbpf-dev:/usr/include/bpf/libbpf.h
libelf-dev:/usr/include/libelf.h
zlib1g-dev:/usr/include/zlib.h
rt-app:/usr/bin/rt-app
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

# The test images, side by side with one another and with the build:
# each waits mostly on downloads.
images=""
[ "$bench" = 1 ] && images=debian13-build
[ "$tests" = 1 ] && images=all
fetch=""
if [ -n "$images" ]; then
	tests/vm/fetch.sh $images >&2 &
	fetch=$!
fi

status=0
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi || status=$?
fi
if [ "$status" = 0 ] && { [ ! -f Makefile ] || [ configure -nt config.status ]; }; then
	./configure "$@" || status=$?
fi
[ "$status" = 0 ] && { make -j"$(nproc 2>/dev/null || echo 2)" || status=$?; }

if [ -n "$fetch" ] && ! wait "$fetch"; then
	echo "bootstrap: not every image could be fetched (above); make check fetches what is missing again, or skips what needs it, saying why" >&2
fi
exit "$status"
