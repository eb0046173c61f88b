#!/bin/sh
# What a start of libdeadline's programs loads: libsystemd is loaded only
# by a call that talks to systemd (libdl/layout/backend-systemd.c), and
# libcgroup only by the first task moved (libdl/cgroup/libcgroup.c), never at
# start, so the library and the tools do not need them, and a launch
# (dl-run) or a status read on a host without systemd never maps them.
# TAP.
build=${top_builddir:-.}
n=0
fail=0
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
	n=$((n + 1))
	desc=$1
	shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fail=1; fi
}
# no_needed LIB FILE: no LIB among what the loader maps for FILE.
no_needed() {
	[ -e "$2" ] || { echo "# $2 is missing"; return 1; }
	out=$(ldd "$2" 2>&1) || { echo "# ldd $2: $out"; return 1; }
	if printf '%s\n' "$out" | grep -q "$1"; then
		printf '%s\n' "$out" | sed 's/^/# /'
		return 1
	fi
}
# no_load LIB COMMAND...: the loader opens no LIB while COMMAND runs
# (LD_DEBUG=libs lists every library searched for, dlopen's too).
no_load() {
	what=$1
	shift
	out=$(LD_DEBUG=libs "$@" 2>&1 >/dev/null)
	if printf '%s\n' "$out" | grep -q "$what"; then
		printf '%s\n' "$out" | grep "$what" | sed 's/^/# /'
		return 1
	fi
}
echo "1..14"
lib=$(ls "$build"/libdl/.libs/libdeadline.so.*.*.* 2>/dev/null | head -n 1)
for l in libsystemd libcgroup; do
	check "libdeadline.so does not need $l" no_needed $l "$lib"
	for t in dl-run dl-part dl-stat dl-load; do
		check "$t does not need $l" no_needed $l "$build/tools/$t"
	done
	check "dl-run --version loads no $l" no_load $l "$build/tools/dl-run" --version
done
check "dl-run --check loads no libsystemd" no_load libsystemd "$build/tools/dl-run" --check -r 1ms -p 10ms
check "dl-run --check loads no libcgroup" no_load libcgroup "$build/tools/dl-run" --check -r 1ms -p 10ms
exit 0
