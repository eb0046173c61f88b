#!/bin/sh
# suite.sh RELEASE: the project's Debian packages for RELEASE (debian12,
# debian13) built and linted (build-deb.sh: on a Debian 12 host, or in
# Debian 13's packaging root), then installed and used in a fresh system
# of that release booted with its own kernel and systemd (run-vm.sh
# --rootfs RELEASE-fresh, twice: guest.sh says what is checked).  TAP; the
# packages stay in tests/deb/RELEASE/ of the build tree.
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

start=$(date +%s)
"$src/tests/vm/run-vm.sh" --systemd --rootfs "$release-fresh" --timeout 900 \
	--file "$out:/root/debs" --file "$src/tests/vm/guest:/" "$here/guest.sh" >"$log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	tap ok "the packages in a fresh $release # SKIP $(sed -n 's/^run-vm.sh: SKIP: //p' "$log" | head -n 1)"
	echo "1..$n"
	exit 0
fi
# The guest's results, numbered on from the build's, the rest as comments.
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
done <"$log"
if [ "$rc" != 0 ] && ! grep -q '^not ok' "$log"; then
	tap "not ok" "the VM suite ended with status $rc"
fi
echo "# $release: packages built and linted in ${built} s, installed and used in $(($(date +%s) - start)) s"
echo "1..$n"
exit 0
