#!/bin/sh
# run.sh RELEASE build|check|arm64: the project built and tested inside a
# Debian release's root file system, on this kernel: its compiler, its
# glibc and its libcgroup, as a user of that release builds it.  RELEASE:
# debian13 (Debian 13: gcc 14, glibc 2.41, libcgroup 3.1) or sid (Debian's
# development release: gcc 16, glibc 2.43, libcgroup 3.2 as measured).
# Two suites per release, so that its VM suites, which boot the build,
# need not wait for the tests:
#   build (RELEASE-build.sh): a clean copy of the sources (make
#         distdir), configure --enable-werror, make, and the check
#         programs; the build stays in the cache for the VM suites that
#         boot the release (tests/vm/RELEASE/, "# vm-build: RELEASE"),
#         one per build tree of the host.
#   arm64 (debian13-arm64-build.sh; Debian 13 only): the same clean copy
#         built for arm64 by the release's cross compiler, as Debian's
#         cross builds do it (configure --host=aarch64-linux-gnu, the
#         arm64 libraries of the build root's multiarch;
#         --disable-shared: programs, not libtool wrappers, which ldd
#         cannot follow for run-vm.sh --arch arm64), with the check
#         programs (the VM runs dl-jobs), BPF included (CO-RE: the same
#         program, built with -D__TARGET_ARCH_arm64); no Python binding
#         (it would need arm64's Python to build); no NRI plugin (Go,
#         cross-built for arm64 in tests/deb/debian13-arm64.sh's
#         libdeadline-nri, checked there as an AArch64 program; the arm64
#         VM runs no container runtime, and an 18 MB plugin in its
#         initramfs is a slower boot); for tests/vm/arm64
#   check (RELEASE.sh): in that build, make check of the unit suites and
#         build checks and of the kernel suites, which run there as here
#         (real syscalls, real cpusets, as root; the kernel suites' lock
#         in /run is the host's; test-cli's rows once, not again under
#         valgrind: LIBDL_TEST_VALGRIND=no).  One TAP line per suite.
#
# In the build root tests/vm/fetch-debian.sh made (a chroot, in a mount
# namespace of its own, so that nothing stays mounted whatever happens).
# Needs root (chroot, mounts); skips, saying why, without it or without
# the build root (tests/vm/fetch.sh RELEASE-build).  TAP.
set -u
release=${1:-}
mode=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
build=${top_builddir:-.}
. "$here/../vm/cache-dir.sh"
case $release in
debian13) name="Debian 13" dir=trixie ;;
sid) name="Debian sid" dir=sid ;;
*)
	echo "1..0 # SKIP unknown release \"$release\": give debian13 or sid"
	exit 0
	;;
esac
root=$cache/$dir/build
# One build folder per build tree of the host: several checkouts may
# share the cache (and run at once); vm-test finds it by the same key.
key=$(cd "$build" && pwd | cksum | cut -d' ' -f1)
work=/root/libdl-$key
if [ "$mode" = arm64 ]; then
	[ "$release" = debian13 ] || { echo "1..0 # SKIP the arm64 build is Debian 13's"; exit 0; }
	work=/root/libdl-$key-arm64
fi
dest=$work/src

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP building in $name's root file system needs root (chroot)"
	exit 0
fi
# The build root: at once when it is there, else after its fetch (make
# check starts it; on CI, a fetch that fails is a failure, not a skip).
why=$(LIBDL_VM_CACHE=$cache "$here/../vm/fetch.sh" "$release-build")
case $? in
0) ;;
77) echo "1..0 # SKIP $why"; exit 0 ;;
*) printf '1..1\nnot ok 1 - %s\n' "${why:-tests/vm/fetch.sh $release-build failed}"; exit 0 ;;
esac
command -v unshare >/dev/null 2>&1 || { echo "1..0 # SKIP no unshare (util-linux)"; exit 0; }

echo "# $name: $(tr '\n' ' ' <"$cache/$dir/build.stamp")"
case $mode in
build | arm64)
	rm -rf "${root:?}$work"
	# The cache outlives build trees (tests/vm/cache-dir.sh): the build
	# folders of trees that are gone (each names its tree in host-build)
	# go, so that it holds one build per live tree, not one per clone.
	for old in "$root"/root/libdl-*; do
		[ "$old" != "$root$work" ] || continue
		[ -d "$old" ] || continue
		tree=$(cat "$old/host-build" 2>/dev/null)
		[ -n "$tree" ] && [ -f "$tree/config.status" ] && continue
		rm -rf "$old"
	done
	mkdir -p "$root$work"
	(cd "$build" && pwd) >"$root$work/host-build"
	if ! "${MAKE:-make}" -s -C "$build" distdir distdir="$root$dest" >"$root$work/distdir.log" 2>&1; then
		echo "1..1"
		echo "not ok 1 - make distdir of the sources into the build root"
		sed 's/^/# /' "$root$work/distdir.log"
		exit 0
	fi
	# shellcheck disable=SC2016
	run='cd "$1" && ./configure --enable-werror >configure.log 2>&1 &&
		make -j$(nproc) >make.log 2>&1 && make -j$(nproc) check TESTS= >make-check.log 2>&1'
	# shellcheck disable=SC2016
	[ "$mode" = build ] || run='cd "$1" && ./configure --host=aarch64-linux-gnu --enable-werror --disable-shared --disable-python --disable-nri --enable-bpf >configure.log 2>&1 &&
		make -j$(nproc) >make.log 2>&1 && make -j$(nproc) check TESTS= >make-check.log 2>&1'
	;;
check)
	if ! [ -x "$root$dest/utils/dl-part" ]; then
		echo "1..1"
		echo "not ok 1 - a $name build in $root$dest (tests/distro/$release-build.sh makes it)"
		exit 0
	fi
	# shellcheck disable=SC2016
	# check-unit's suites and the kernel suites, but three that are no
	# release's: the Prometheus programs are in the host cache, not in
	# the release (the exposition is checked by promtool on the host, its
	# figures here, in test-prometheus); the Kubernetes examples are the
	# same text for every release, checked on the host (with its
	# python3-yaml); and kernel-count.sh, whose jq the build roots lack
	# (their builds have BPF since clang, libbpf-dev and bpftool are
	# there for the packages: tests/deb/debian13.sh boots Debian 13's
	# package and counts with its dl-stat; the VM parts run the host's
	# build on 6.12 and 7.2: tests/vm/kcount-v2.vm).
	run='cd "$1" && { make check TESTS="$(make -s print-unit-tests) $(make -s print-build-tests | sed s,tests/build/k8s-examples.sh,,)" >check-unit.log 2>&1;
		make check TESTS="$(make -s print-kernel-tests | sed -e s,tests/kernel/prometheus.sh,, -e s,tests/kernel/kernel-count.sh,,)" >check-kernel.log 2>&1; true; }'
	;;
*)
	echo "1..0 # SKIP give build, check or arm64"
	exit 0
	;;
esac

# The suites in the chroot; their logs stay in its build tree.
# shellcheck disable=SC2016
unshare --mount --propagation private sh -c '
	set -e
	r=$1
	mount -t proc proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --rbind /dev "$r/dev"
	mount --bind /run "$r/run"
	# A clean environment: nothing of the outer make check (MAKEFLAGS
	# and its TESTS, top_builddir...) reaches the build inside.
	chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 LIBDL_TEST_VALGRIND=no /bin/sh -c "$3" sh "$2"
' sh "$root" "$dest" "$run" >"$root$work/run-$mode.log" 2>&1
rc=$?

n=0
tap() { # ok|not ok, description
	n=$((n + 1))
	echo "$1 $n - $2"
}
src=$root$dest
if [ "$mode" != check ]; then
	how="configure --enable-werror and make in $name"
	[ "$mode" = build ] || how="configure --host=aarch64-linux-gnu --enable-werror and make in $name"
	if [ "$rc" != 0 ] || ! [ -x "$src/utils/dl-part" ]; then
		tap "not ok" "$how"
		for f in run-$mode.log src/configure.log src/make.log src/make-check.log; do
			[ -s "$root$work/$f" ] && tail -n 30 "$root$work/$f" | sed "s|^|# $f: |"
		done
	else
		tap ok "$how ($(sed -n 's/^#define LIBCGROUP_SONAME "\(.*\)"$/\1/p' "$src/config.h"))"
	fi
	if [ "$mode" = arm64 ] && [ -x "$src/utils/dl-part" ]; then
		# What was built is arm64's, BPF counter included.
		arch=$(readelf -h "$src/utils/dl-stat" 2>/dev/null | sed -n 's/^ *Machine: *//p')
		if [ "$arch" = AArch64 ]; then
			tap ok "dl-stat is an arm64 program (readelf: $arch)"
		else
			tap "not ok" "dl-stat is an arm64 program (readelf: ${arch:-no ELF})"
		fi
		if grep -q '^#define HAVE_BPF 1' "$src/config.h" && grep -q 'kcount_bpf' "$src/utils/kcount.skel.h" 2>/dev/null; then
			tap ok "dl-stat --kernel built for arm64 (its BPF program in dl-stat, the skeleton kcount.skel.h)"
		else
			tap "not ok" "dl-stat --kernel built for arm64 (HAVE_BPF and the skeleton)"
		fi
	fi
	echo "1..$n"
	exit 0
fi
[ "$rc" = 0 ] || tap "not ok" "make check in $name ran (status $rc)"
for trs in $(cd "$src" && find tests -name '*.trs' | sort); do
	t=${trs%.trs}
	pass=$(grep -c '^:test-result: PASS' "$src/$trs")
	skip=$(grep -c '^:test-result: SKIP' "$src/$trs")
	bad=$(grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$src/$trs")
	if [ "$bad" = 0 ] && [ "$pass" -gt 0 ]; then
		if [ "$skip" -gt 0 ]; then
			tap ok "$t in $name: $pass passed, $skip skipped"
		else
			tap ok "$t in $name: $pass passed"
		fi
	elif [ "$bad" = 0 ]; then
		tap ok "$t in $name # SKIP $(grep -m1 SKIP "$src/$t.log" | cut -c1-200)"
	else
		tap "not ok" "$t in $name: $bad failed of $((pass + bad))"
		grep -E '^(not ok|# )' "$src/$t.log" | head -n 40 | sed 's/^/# /'
	fi
done
for log in check-unit.log check-kernel.log; do
	grep -q '^# TOTAL:' "$src/$log" 2>/dev/null || tap "not ok" "make ${log%.log} ran to its summary in $name"
done
echo "1..$n"
exit 0
