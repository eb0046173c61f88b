#!/bin/sh
# The ABI check (libdl/ABI, tests/build/abi-check.sh): first that it catches
# what it must, on a toy library built twice; then libdeadline.so against
# the committed baseline.  TAP.
build=${top_builddir:-.}
src=${top_srcdir:-.}
cc=${CC:-cc}
n=0
fail=0
if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
	echo "1..0 # SKIP abidiff and abidw are missing: install abigail-tools (./bootstrap.sh as root does)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
check() { # description, expected exit, command...
	n=$((n + 1))
	desc=$1 want=$2
	shift 2
	"$@" > "$tmp/out" 2>&1
	got=$?
	if [ "$got" = "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc: exit $got, wanted $want"
		sed 's/^/# /' "$tmp/out"
		fail=1
	fi
}
says() { # description, text: in the last check's output
	n=$((n + 1))
	if grep -q -- "$2" "$tmp/out"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out"; fail=1; fi
}
# toy NAME 'HEADER' 'SOURCE' ['INNER']: a shared library with debug
# information, whose installed header is toy.h and whose internal header
# inner/inner.h (beside it, as libdl's layers are) holds INNER.
toy() {
	mkdir -p "$tmp/$1/inner"
	printf '%s\n' "$2" > "$tmp/$1/toy.h"
	printf '%s\n' "${4:-}" > "$tmp/$1/inner/inner.h"
	printf '#include "toy.h"\n#include "inner/inner.h"\n%s\n' "$3" > "$tmp/$1/toy.c"
	$cc -g -O0 -shared -fPIC -I"$tmp/$1" -o "$tmp/$1/libtoy.so" "$tmp/$1/toy.c" || exit 1
}
abicheck() { sh "$src/tests/build/abi-check.sh" "$@"; }

echo "1..10"
toy v1 'struct s { int a; }; int f(const struct s *p); int g(void);' \
	'int f(const struct s *p) { return p->a; } int g(void) { return 0; }'
toy grown 'struct s { int a; int b; }; int f(const struct s *p); int g(void);' \
	'int f(const struct s *p) { return p->a + p->b; } int g(void) { return 0; }'
toy removed 'struct s { int a; }; int f(const struct s *p);' \
	'int f(const struct s *p) { return p->a; }'
toy opaque 'struct s { int a; }; int f(const struct s *p); int g(void); struct o; int h(const struct o *p);' \
	'int f(const struct s *p) { return p->a; } int g(void) { return 0; } int h(const struct o *p) { return p->x; }' \
	'struct o { int x; };'
toy opaque2 'struct s { int a; }; int f(const struct s *p); int g(void); struct o; int h(const struct o *p);' \
	'int f(const struct s *p) { return p->a; } int g(void) { return 0; } int h(const struct o *p) { return p->x + p->y[1]; }' \
	'struct o { int y[4]; int x; };'
sh "$src/tests/build/abi-dump.sh" "$tmp/v1/libtoy.so" "$tmp/v1/toy.h" "$tmp/v1.abi" || exit 1
sh "$src/tests/build/abi-dump.sh" "$tmp/opaque/libtoy.so" "$tmp/opaque/toy.h" "$tmp/opaque.abi" || exit 1

check "the same library passes" 0 abicheck "$tmp/v1.abi" 1:0:0 "$tmp/v1/libtoy.so" "$tmp/v1/toy.h" 1:0:0
check "a struct that grew fails" 1 abicheck "$tmp/v1.abi" 1:0:0 "$tmp/grown/libtoy.so" "$tmp/grown/toy.h" 1:0:0
says "and the message shows the change" "type size changed"
check "a removed function fails" 1 abicheck "$tmp/v1.abi" 1:0:0 "$tmp/removed/libtoy.so" "$tmp/removed/toy.h" 1:0:0
says "as an incompatible change, with what to do" "new soname"
check "a -version-info the baseline was not made at fails" 1 abicheck "$tmp/v1.abi" 1:0:0 "$tmp/v1/libtoy.so" "$tmp/v1/toy.h" 2:0:0
says "and says to remake the baseline" "make abi-baseline"
check "an opaque struct changed in an internal header passes" 0 abicheck "$tmp/opaque.abi" 1:0:0 "$tmp/opaque2/libtoy.so" "$tmp/opaque2/toy.h" 1:0:0

lib=$build/libdl/.libs/libdeadline.so
# abidiff compares dumps of one format only: libabigail 3 (Debian sid's
# abigail-tools 3.0) writes format 3 and refuses the committed baseline,
# written in format 2 by libabigail 2 (Debian 12's and 13's).  There the
# comparison is left to the hosts whose abidw writes the baseline's format.
fmt() { sed -n "1s/^<abi-corpus version='\([0-9]*\)\..*/\1/p" "$1"; }
if [ "$(fmt "$src/libdl/libdeadline.abi")" != "$(fmt "$tmp/v1.abi")" ]; then
	why="the baseline is libabigail format $(fmt "$src/libdl/libdeadline.abi"), this abidw ($(abidw --version | sed 's/^abidw:* *//')) writes format $(fmt "$tmp/v1.abi"), which its abidiff cannot compare; abi.sh compares them where abidw writes format $(fmt "$src/libdl/libdeadline.abi")"
	echo "ok 9 - libdeadline.so has the committed baseline's ABI # SKIP $why"
	echo "ok 10 - at this -version-info # SKIP $why"
	exit 0
fi
check "libdeadline.so has the committed baseline's ABI" 0 \
	abicheck "$src/libdl/libdeadline.abi" "$(cat "$src/libdl/libdeadline.abi-version")" \
	"$lib" "$src/libdl/libdeadline.h" "${LIBDEADLINE_VERSION_INFO:?}"
says "at this -version-info" "baseline's (-version-info ${LIBDEADLINE_VERSION_INFO})"
exit 0
