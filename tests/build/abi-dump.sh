#!/bin/sh
# abi-dump.sh LIBRARY HEADER OUT: the ABI of a shared library as
# abidw(1) sees it, in the one form the baseline and the check both use
# (no build paths, public types only: those of the installed HEADER, and
# not an opaque struct's definition in an internal header beside it,
# which changes freely, libdl/ABI), so that two dumps compare.
set -eu
exec abidw --no-corpus-path --no-comp-dir-path --short-locs --no-show-locs \
	--header-file "$2" --drop-private-types --type-id-style hash \
	--out-file "$3" "$1"
