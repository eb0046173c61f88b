#!/bin/sh
# build-deb.sh: the Debian packages (libdeadline0, libdeadline-dev,
# libdeadline-tools, libdeadline-nri where the release has NRI's Go stub,
# python3-libdeadline) from a clean copy of the sources, built with
# dpkg-buildpackage -us -uc -b and checked with lintian of the same
# release, which must report no error and no warning.  `make deb` runs it.
#
# Usage: build-deb.sh [--in debian13] [--arch ARCH] [--out DIR] [--nocheck]
#
#   --in debian13   build in Debian 13's build root instead of on this
#                   host (a chroot; needs root): fetched into the cache
#                   (LIBDL_VM_CACHE, default ~/.cache/libdl) the first
#                   time, 292 MB to download (tests/vm/fetch.sh
#                   debian13-build)
#   --arch ARCH     cross-build for the Debian architecture ARCH (e.g.
#                   arm64) as Debian does, dpkg-buildpackage -a ARCH with
#                   the build profiles cross and nocheck; in Debian 13's
#                   build root only (--in debian13: this host's dpkg keeps
#                   its architectures), where ARCH is added as a foreign
#                   architecture and crossbuild-essential-ARCH and the
#                   build dependencies for ARCH are installed the first
#                   time (84 MB to download for arm64).  The suites are
#                   not run: ARCH's programs cannot run here
#   --out DIR       where the packages go (default deb/RELEASE, RELEASE
#                   being the building system's, e.g. debian12, with
#                   -ARCH when cross-built: debian13-arm64)
#   --nocheck       DEB_BUILD_OPTIONS=nocheck: skip the unit suites and
#                   build checks that the build otherwise runs
#
# Run from a configured build tree (it makes the clean copy with make
# distdir); $MAKE is the make to use.  The packages' build dependencies
# must be installed (dpkg-buildpackage names what is missing; bootstrap.sh
# installs them on Debian).
#
# Prints the packages made, then lintian's findings; exits 0 when the
# packages were built and lintian found no error and no warning, 1 when
# the build failed (the log's end on stderr), 2 when lintian found an error
# or a warning (its findings on stderr), 77 when what it needs is missing.
set -u

me=build-deb.sh
srcdir=$(cd "$(dirname "$0")" && pwd)
make=${MAKE:-make}
in=""
out=""
nocheck=""
arch=""

die() {
	echo "$me: $*" >&2
	exit 1
}
missing() {
	echo "$me: $*" >&2
	exit 77
}

while [ $# -gt 0 ]; do
	case $1 in
	--in)
		[ $# -ge 2 ] || die "--in needs an argument"
		in=$2
		shift
		;;
	--arch)
		[ $# -ge 2 ] || die "--arch needs an argument"
		arch=$2
		shift
		;;
	--out)
		[ $# -ge 2 ] || die "--out needs an argument"
		out=$2
		shift
		;;
	--nocheck) nocheck=nocheck ;;
	-h | --help)
		sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p;}' "$0"
		exit 0
		;;
	*) die "unknown argument $1 (--help for usage)" ;;
	esac
	shift
done

[ -f Makefile ] || die "no Makefile here: run it from a configured build tree (./configure first)"

root=""
case $in in
'') ;;
debian13)
	. "$srcdir/tests/vm/cache-dir.sh"
	root=$cache/trixie/build
	[ "$(id -u)" = 0 ] || missing "building in Debian 13's build root needs root (chroot)"
	# Fetched the first time (or waited for, when make check fetches it).
	why=$(LIBDL_VM_CACHE=$cache "$srcdir/tests/vm/fetch.sh" debian13-build)
	case $? in
	0) ;;
	77) missing "$why" ;;
	*) die "${why:-tests/vm/fetch.sh debian13-build failed}" ;;
	esac
	command -v unshare >/dev/null 2>&1 || missing "unshare not found (util-linux)"
	;;
*) die "unknown --in $in: give debian13" ;;
esac
# A cross build: the foreign architecture is added in the build root, never
# on this host.  nocheck, as cross builders (sbuild) set it with the
# profiles cross and nocheck.
if [ -n "$arch" ]; then
	[ -n "$root" ] || die "--arch needs --in debian13 (the foreign architecture is added in its build root, not on this host)"
	case $arch in
	*[!a-z0-9]* | '') die "--arch $arch: give a Debian architecture, e.g. arm64" ;;
	esac
	nocheck=nocheck
fi
if [ -z "$root" ]; then
	for tool in dpkg-buildpackage dh lintian fakeroot; do
		command -v $tool >/dev/null 2>&1 ||
			missing "$tool not found: install dpkg-dev, debhelper, lintian and fakeroot (bootstrap.sh does)"
	done
fi

# The release of the system that builds, e.g. debian12.
release=$(. "$root/etc/os-release" && echo "$ID$VERSION_ID")
# libdeadline-nri needs NRI's Go stub, which Debian 12 does not have: a
# release whose archive lacks it builds with the profile that leaves the
# plugin's package out.  Where the archive has it, a missing stub is a
# missing build dependency, as dpkg-buildpackage says.
profiles=""
if [ ! -r "$root/usr/share/gocode/src/github.com/containerd/nri/pkg/stub/stub.go" ] &&
	{ [ -n "$root" ] || ! apt-cache show golang-github-containerd-nri-dev >/dev/null 2>&1; }; then
	profiles=pkg.libdeadline.nonri
	echo "$me: $release has no NRI stub (golang-github-containerd-nri-dev): libdeadline-nri is left out (build profile $profiles)"
fi
[ -z "$arch" ] || profiles="${profiles:+$profiles }cross nocheck"
[ -n "$out" ] || out=deb/$release${arch:+-$arch}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# The clean copy: what make dist would pack, debian/ included.
if [ -n "$root" ]; then
	# A folder per build tree: checkouts sharing the cache build at once.
	work=$root/root/deb-$(pwd | cksum | cut -d' ' -f1)
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/libdl-deb.XXXXXX") || die "cannot create a temporary folder"
fi
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
src=$work/libdeadline-$version
log=$work/build.log
"$make" -s distdir distdir="$src" >"$log" 2>&1 || { cat "$log" >&2; die "make distdir failed"; }

# Build and lint, on this host or in the chroot (in a mount namespace of
# its own, so that nothing stays mounted whatever happens).
# shellcheck disable=SC2016
script='
	set -e
	cd "$1"
	cross=""
	if [ -n "${4:-}" ]; then
		# The cross compiler and the build dependencies for $4, installed
		# the first time (apt-get build-dep: for $4 but where
		# debian/control says :native).
		if ! command -v "$(dpkg-architecture -a "$4" -q DEB_HOST_GNU_TYPE 2>/dev/null)-gcc" >/dev/null ||
			! dpkg-checkbuilddeps -a "$4" -P "$(echo $3 | tr " " ,)" >/dev/null 2>&1; then
			dpkg --add-architecture "$4"
			apt-get update -q || exit 12
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends \
				"crossbuild-essential-$4" || exit 12
			DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q -o Dpkg::Use-Pty=0 --no-install-recommends \
				-a "$4" -P "$(echo $3 | tr " " ,)" . || exit 12
			rm -f /var/cache/apt/archives/*.deb
		fi
		cross=-a$4
	fi
	DEB_BUILD_OPTIONS="$2 parallel=$(nproc)" DEB_BUILD_PROFILES="$3" dpkg-buildpackage $cross -us -uc -b || exit 10
	cd ..
	echo "== $(lintian --version)"
	lintian --fail-on error,warning --info --display-info *.changes || exit 11
'
if [ -n "$root" ]; then
	unshare --mount --propagation private sh -c '
		set -e
		r=$1
		shift
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		# This host /run: the build checks, as root, hold the lock of
		# the kernel suites (/run/lock) for their reservation.
		mount --bind /run "$r/run"
		# apt (the first cross build installs its compiler) resolves the
		# mirror as this host does.
		[ ! -f "$r/etc/resolv.conf" ] || [ -L "$r/etc/resolv.conf" ] || mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 /bin/sh -c "$@"
	' sh "$root" "$script" sh "${src#"$root"}" "$nocheck" "$profiles" "$arch" >"$log" 2>&1
else
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL sh -c "$script" sh "$src" "$nocheck" "$profiles" >"$log" 2>&1
fi
rc=$?
if [ "$rc" = 12 ]; then
	grep -E '^(E|W):' "$log" >&2
	die "installing the cross compiler and the build dependencies for $arch in Debian 13's build root failed"
elif [ "$rc" = 11 ]; then
	sed -n '/^== Lintian /,$p' "$log" | grep -v '^N:' >&2
	echo "$me: lintian found errors or warnings in the packages for $release" >&2
	exit 2
elif [ "$rc" != 0 ]; then
	tail -n 60 "$log" >&2
	die "the packages' build failed (Debian: $release)"
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/ || die "cannot copy the packages to $out"
cp "$log" "$out/build.log"
echo "$me: built for $release${arch:+ ($arch)} in $out: $(cd "$out" && ls -- *.deb | tr '\n' ' ')"
sed -n '/^== Lintian /,$p' "$log" | sed '1d'
echo "$me: $(sed -n 's/^== //p' "$log" | tail -n 1) found no error and no warning"
exit 0
