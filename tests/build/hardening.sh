#!/bin/sh
# The hardening configure adds (configure.ac), read back from what make
# built, since dl-run may carry CAP_SYS_NICE and run as root: every tool
# and the library are linked with full RELRO and immediate binding
# (GNU_RELRO, BIND_NOW or FLAGS_1 NOW), call the stack protector's
# __stack_chk_fail and, when configure added _FORTIFY_SOURCE, the
# checked *_chk functions.  Each check first fails on a toy program
# built without the flags, so that it cannot pass by reading nothing.
# TAP.
build=${top_builddir:-.}
cc=${CC:-cc}
n=0
fail=0
check() { # description, command...
	n=$((n + 1))
	desc=$1
	shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fail=1; fi
}
skip() { # description, reason
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
# relro FILE: a GNU_RELRO segment, and immediate binding, so that the
# whole GOT is read-only once the loader is done.
relro() {
	[ -e "$1" ] || { echo "# $1 is missing"; return 1; }
	readelf -lW "$1" | grep -q GNU_RELRO || { echo "# $1: no GNU_RELRO segment"; return 1; }
	readelf -dW "$1" | grep -Eq '\(BIND_NOW\)|\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' ||
		{ echo "# $1: no BIND_NOW (lazy binding: the GOT stays writable)"; return 1; }
}
# imports FILE PATTERN WHAT: FILE's dynamic symbols include PATTERN.
imports() {
	[ -e "$1" ] || { echo "# $1 is missing"; return 1; }
	readelf --dyn-syms -W "$1" | awk '{ print $8 }' | grep -Eq "$2" || { echo "# $1: no $3"; return 1; }
}
canary() { imports "$1" '^__stack_chk_fail(@|$)' "__stack_chk_fail (no stack protector)"; }
fortified() { imports "$1" '^__[a-z_]+_chk(@|$)' "*_chk function (not built with _FORTIFY_SOURCE)"; }

command -v readelf >/dev/null || { echo "1..0 # SKIP readelf (binutils) is missing"; exit 0; }
if [ "${LIBDL_HARDENING:-yes}" = no ]; then
	echo "1..0 # SKIP configured with --disable-hardening"
	exit 0
fi
tools="dl-run dl-part dl-stat dl-load"
echo "1..$((1 + 3 * 5))"

# The toy: a string copy into a stack array, without any of the flags.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <stdio.h>\n#include <string.h>\nint main(int argc, char **argv){char b[64];strcpy(b, argv[0]);snprintf(b, sizeof(b), "%%s%%d", argv[0], argc);return puts(b);}\n' > "$tmp/toy.c"
if ! $cc -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0 -fno-stack-protector -Wl,-z,norelro -Wl,-z,lazy \
	"$tmp/toy.c" -o "$tmp/toy" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	check "a toy without hardening builds, for the checks to fail on" false
elif relro "$tmp/toy" >/dev/null || canary "$tmp/toy" >/dev/null || fortified "$tmp/toy" >/dev/null; then
	check "the checks find no hardening in a toy built without it" false
else
	check "the checks find no hardening in a toy built without it" true
fi

lib=$(ls "$build"/libdl/.libs/libdeadline.so.*.*.* 2>/dev/null | head -n 1)
check "libdeadline.so: full RELRO, immediate binding" relro "$lib"
for t in $tools; do
	check "$t: full RELRO, immediate binding" relro "$build/utils/$t"
done
check "libdeadline.so calls __stack_chk_fail" canary "$lib"
for t in $tools; do
	check "$t calls __stack_chk_fail" canary "$build/utils/$t"
done
if [ "${LIBDL_FORTIFY:-none}" = none ]; then
	why="configure added no _FORTIFY_SOURCE (no optimisation, AddressSanitizer, or defined by CPPFLAGS already)"
	skip "libdeadline.so calls *_chk functions" "$why"
	for t in $tools; do
		skip "$t calls *_chk functions" "$why"
	done
else
	check "libdeadline.so calls *_chk functions (_FORTIFY_SOURCE=$LIBDL_FORTIFY)" fortified "$lib"
	for t in $tools; do
		check "$t calls *_chk functions (_FORTIFY_SOURCE=$LIBDL_FORTIFY)" fortified "$build/utils/$t"
	done
fi
exit 0
