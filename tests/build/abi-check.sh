#!/bin/sh
# abi-check.sh BASELINE BASELINE_VERSION_INFO LIBRARY HEADER VERSION_INFO
#
# Compares LIBRARY (whose installed header is HEADER) with the committed BASELINE
# (libdl/ABI says why and how).  Exit 0: the same ABI.  Exit 1: it
# changed; what changed is printed, and what to do.  Exit 2: cannot run.
set -u
[ $# -eq 5 ] || { echo "usage: $0 BASELINE BASELINE_VERSION_INFO LIBRARY HEADER VERSION_INFO" >&2; exit 2; }
base=$1 base_vi=$2 lib=$3 header=$4 vi=$5
here=$(dirname "$0")
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
[ -r "$base" ] || { echo "no ABI baseline $base: make abi-baseline writes one" >&2; exit 2; }
[ -r "$lib" ] || { echo "no library $lib: build it first" >&2; exit 2; }
sh "$here/abi-dump.sh" "$lib" "$header" "$tmp/now.abi" || { echo "abidw failed on $lib" >&2; exit 2; }
abidiff "$base" "$tmp/now.abi" > "$tmp/diff"
rc=$?
if [ $((rc & 3)) -ne 0 ]; then
	cat "$tmp/diff"
	echo "abidiff could not compare $base with $lib (exit $rc)" >&2
	exit 2
fi
if [ "$rc" -eq 0 ]; then
	if [ "$vi" != "$base_vi" ]; then
		echo "the ABI is the baseline's, but -version-info is $vi and the baseline was made at $base_vi: run make abi-baseline and commit it, so the two agree"
		exit 1
	fi
	echo "the ABI of $(basename "$lib") is the baseline's (-version-info $vi)"
	exit 0
fi
cat "$tmp/diff"
if [ $((rc & 8)) -ne 0 ]; then
	kind="an incompatible change: programs built against the baseline break"
	todo="if it is meant, bump -version-info in libdl/Makemodule.am (CURRENT+1, REVISION 0, AGE 0: a new soname)"
else
	kind="a change of the ABI (a type or a symbol added or changed)"
	todo="if it is meant, put new symbols in a new node of libdl/libdeadline.sym, bump -version-info in libdl/Makemodule.am (CURRENT+1, REVISION 0, AGE+1; AGE 0 if any existing type changed size or layout)"
fi
echo "ABI check: $(basename "$lib") differs from $base: $kind (abidiff above)."
echo "If it is not meant, undo it (reserved space in libdl/ABI says how structs grow); $todo, then make abi-baseline and commit the new baseline with the change."
exit 1
