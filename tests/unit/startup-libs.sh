#!/bin/sh
# What a start of libdeadline's programs loads (issue 13): libsystemd is
# loaded only by a call that talks to systemd (libdl/cg-systemd.c), never
# at start, so the library and the tools do not need it, and a launch
# (dl-run) or a status read on a host without systemd never maps it.
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
# no_needed FILE: no libsystemd among what the loader maps for FILE.
no_needed() {
	[ -e "$1" ] || { echo "# $1 is missing"; return 1; }
	out=$(ldd "$1" 2>&1) || { echo "# ldd $1: $out"; return 1; }
	if printf '%s\n' "$out" | grep -q libsystemd; then
		printf '%s\n' "$out" | sed 's/^/# /'
		return 1
	fi
}
# no_load COMMAND...: the loader opens no libsystemd while COMMAND runs
# (LD_DEBUG=libs lists every library searched for, dlopen's too).
no_load() {
	out=$(LD_DEBUG=libs "$@" 2>&1 >/dev/null)
	if printf '%s\n' "$out" | grep -q 'libsystemd'; then
		printf '%s\n' "$out" | grep libsystemd | sed 's/^/# /'
		return 1
	fi
}
echo "1..7"
lib=$(ls "$build"/libdl/.libs/libdeadline.so.*.*.* 2>/dev/null | head -n 1)
check "libdeadline.so does not need libsystemd" no_needed "$lib"
for t in dl-run dl-part dl-stat dl-load; do
	check "$t does not need libsystemd" no_needed "$build/utils/$t"
done
check "dl-run --version loads no libsystemd" no_load "$build/utils/dl-run" --version
check "dl-run --check loads no libsystemd" no_load "$build/utils/dl-run" --check -r 1ms -p 10ms
exit 0
