#!/bin/sh
# abi-dump.sh LIBRARY HEADERS_DIR OUT: the ABI of a shared library as
# abidw(1) sees it, in the one form the baseline and the check both use
# (no build paths, public types only), so that two dumps compare.
set -eu
exec abidw --no-corpus-path --no-comp-dir-path --short-locs --no-show-locs \
	--headers-dir "$2" --drop-private-types --type-id-style hash \
	--out-file "$3" "$1"
