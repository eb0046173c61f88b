#!/bin/sh
# suite.sh RELEASE: the project's Debian packages for RELEASE (debian12,
# debian13) built and linted (build-deb.sh: on this Debian 12 host, or in
# Debian 13's build root), then installed, used and purged where they
# were never installed (guest.sh says what is checked):
#   debian12: in an overlay of this host's root file system (a chroot:
#             the install, the group, the capability, the policy, a
#             program built against libdeadline-dev, the purge);
#   debian13: the same in an overlay of the build root, then in
#             Debian 13 booted with its own systemd (run-vm.sh --systemd
#             --rootfs debian13 --kernel debian13: the image as fetched,
#             without the project), where the unit, the layout at the next
#             boot and the purge's stop are checked too.
# Debian 12's systemd differs from 13's in nothing the packages use
# (deb-systemd-helper, ExecCondition, the unit's ordering), and the
# systemd VM suites boot it with the layouts already: one boot, Debian
# 13's, keeps make check short.  TAP; the packages stay in
# tests/deb/RELEASE/ of the build tree.
#
# The build skips the unit suites (DEB_BUILD_OPTIONS=nocheck): make check
# runs them already, here and in Debian 13.
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
debian13) in="--in debian13" ;;
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
(cd "$build" && sh "$src/build-deb.sh" $in --nocheck --out "$out") >"$log" 2>&1
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
	;;
*)
	tap "not ok" "the packages build for $release"
	sed 's/^/# /' "$log"
	echo "1..$n"
	exit 0
	;;
esac

# The overlays are made in a mount namespace of the suite's own, and
# thrown away with it; a network namespace of its own too, so that the
# install is offline (every dependency is in the root already).
# shellcheck disable=SC2016
in_overlay() { # ROOT: guest.sh chroot in an overlay of ROOT
	ov=$(mktemp -d "${TMPDIR:-/tmp}/libdl-deb.XXXXXX") || return 1
	mkdir "$ov/upper" "$ov/work" "$ov/root"
	unshare --mount --net --propagation private sh -c '
		set -e
		r=$1 ov=$2 debs=$3 here=$4 guest=$5
		m=$ov/root
		mount -t overlay overlay -o "lowerdir=$r,upperdir=$ov/upper,workdir=$ov/work" "$m"
		mount -t proc proc "$m/proc"
		mount --rbind /sys "$m/sys"
		mount --rbind /dev "$m/dev"
		mount -t tmpfs -o mode=755 tmpfs "$m/run"
		mount -t tmpfs -o mode=1777 tmpfs "$m/tmp"
		mkdir -p "$m/root/debs" "$m/guest"
		cp "$debs"/*.deb "$m/root/debs/"
		cp "$guest/lib.sh" "$m/guest/"
		cp "$here/guest.sh" "$m/root/guest.sh"
		exec chroot "$m" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 LIBDL_DEB_CHROOT=1 /bin/sh /root/guest.sh chroot
	' sh "$1" "$ov" "$out" "$here" "$src/tests/vm/guest"
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

case $release in
debian12) root=/ ;;
debian13) root=${LIBDL_VM_CACHE:-$src/tests/vm/cache}/trixie/build ;;
esac
start=$(date +%s)
in_overlay "$root" >"$log" 2>&1
rc=$?
relay "$log" "$rc" "the chroot in an overlay of $root"
chrooted=$(($(date +%s) - start))

if [ "$release" = debian13 ]; then
	start=$(date +%s)
	"$src/tests/vm/run-vm.sh" --systemd --rootfs debian13 --kernel debian13 --timeout 900 \
		--file "$out:/root/debs" --file "$root/root/vm-debs:/root/vm-debs" \
		--file "$src/tests/vm/guest:/" "$here/guest.sh" vm >"$log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		tap ok "the packages in Debian 13 booted # SKIP $(sed -n 's/^run-vm.sh: SKIP: //p' "$log" | head -n 1)"
	else
		relay "$log" "$rc" "the VM suite"
	fi
	echo "# $release: the VM ran in $(($(date +%s) - start)) s"
fi
echo "# $release: packages built and linted in ${built} s, the chroot ran in ${chrooted} s"
echo "1..$n"
exit 0
