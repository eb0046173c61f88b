#!/bin/sh
# The Debian 13 packages cross-built for arm64 as a user builds them
# (make deb DEB_IN=debian13 DEB_ARCH=arm64: build-deb.sh --in debian13
# --arch arm64, dpkg-buildpackage -a arm64 with the profiles cross and
# nocheck in Debian 13's build root) and linted by its lintian; then what
# they hold is arm64's: each package's Architecture, every ELF file in
# them an AArch64 one (readelf), dl-stat with its BPF program (the
# skeleton's kcount_bpf), the Python module named for arm64's Python.
# Their programs are not run here (they cannot be); the same sources,
# built by the same cross compiler, run in tests/vm/arm64.  TAP; the
# packages stay in tests/deb/debian13-arm64/ of the build tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${top_srcdir:-$here/../..}
build=${top_builddir:-.}
out=$(cd "$build" && pwd)/tests/deb/debian13-arm64

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP the packages are built in Debian 13's build root (a chroot): run as root"
	exit 0
fi
command -v readelf >/dev/null 2>&1 || { echo "1..0 # SKIP no readelf (binutils)"; exit 0; }

n=0
tap() { # ok|not ok, description
	n=$((n + 1))
	echo "$1 $n - $2"
}
log=$(mktemp)
x=$(mktemp -d)
trap 'rm -rf "$log" "$x"' EXIT

(cd "$build" && sh "$src/build-deb.sh" --in debian13 --arch arm64 --out "$out") >"$log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	echo "1..0 # SKIP $(sed -n 's/^build-deb.sh: //p' "$log" | tail -n 1)"
	exit 0
fi
if [ "$rc" != 0 ]; then
	tap "not ok" "make deb DEB_IN=debian13 DEB_ARCH=arm64 (build-deb.sh exit $rc)"
	tail -n 40 "$log" | sed 's/^/# /'
	echo "1..$n"
	exit 0
fi
tap ok "make deb DEB_IN=debian13 DEB_ARCH=arm64: $(sed -n 's/^build-deb.sh: built for \(.*\)$/\1/p' "$log" | sed "s| in $out||")"
tap ok "lintian: $(sed -n 's/^build-deb.sh: \(Lintian .* found no error and no warning\)$/\1/p' "$log")"

bad=""
for deb in "$out"/*.deb; do
	a=$(dpkg-deb -f "$deb" Architecture)
	case $a in arm64 | all) ;; *) bad="$bad ${deb##*/}:$a" ;; esac
	dpkg-deb -x "$deb" "$x" || bad="$bad ${deb##*/}:unpack"
done
if [ -z "$bad" ]; then tap ok "every package is arm64's (or all)"; else tap "not ok" "every package is arm64's:$bad"; fi

elves=0
other=""
for f in $(find "$x" -type f); do
	m=$(readelf -h "$f" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	[ -n "$m" ] || continue
	elves=$((elves + 1))
	[ "$m" = AArch64 ] || other="$other ${f#"$x"}:$m"
done
if [ "$elves" -gt 0 ] && [ -z "$other" ]; then
	tap ok "their $elves programs and libraries are AArch64 ELF files"
else
	tap "not ok" "their programs and libraries are AArch64 ELF files ($elves found;${other:- none})"
fi
stat=$(find "$x" -path '*/bin/dl-stat' -type f | head -n 1)
if [ -n "$stat" ] && grep -a -q kcount_bpf "$stat"; then
	tap ok "dl-stat carries its BPF program (dl-stat --kernel)"
else
	tap "not ok" "dl-stat carries its BPF program (dl-stat --kernel): ${stat:-no dl-stat}"
fi
mod=$(find "$x" -name '_core.cpython-*.so' | sed 's|.*/||')
case $mod in
*-aarch64-linux-gnu.so) tap ok "the Python module is named for arm64's Python: $mod" ;;
*) tap "not ok" "the Python module is named for arm64's Python: ${mod:-none}" ;;
esac
echo "1..$n"
