#!/bin/sh
# What a start of libdeadline's programs loads: libsystemd is loaded only
# by a call that talks to systemd (libdl/layout/backend-systemd.c), and
# libcgroup only by the first cgroup change (libdl/cgroup/libcgroup.c),
# never at start, so the library and the tools do not need them, and a
# launch (dl-run) or a status read on a host without systemd never maps
# them.  What they load is still declared: the library's and the tools'
# .note.dlopen (https://systemd.io/ELF_DLOPEN_METADATA/) name the sonames
# configure found, and libdeadline.pc requires libcgroup.  TAP.
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
echo "1..35"
lib=$(ls "$build"/libdl/.libs/libdeadline.so.*.*.* 2>/dev/null | head -n 1)
for l in libsystemd libcgroup libcap; do
	check "libdeadline.so does not need $l" no_needed $l "$lib"
	for t in dl-run dl-part dl-stat dl-load; do
		check "$t does not need $l" no_needed $l "$build/utils/$t"
	done
	check "dl-run --version loads no $l" no_load $l "$build/utils/dl-run" --version
done
check "dl-run --check loads no libsystemd" no_load libsystemd "$build/utils/dl-run" --check -r 1ms -p 10ms
check "dl-run --check loads no libcgroup" no_load libcgroup "$build/utils/dl-run" --check -r 1ms -p 10ms
# A launch maps what chrt(1) maps, libc, and loads nothing more on the way
# to its exec (the reservation is set or refused: either way, no library).
for l in libcgroup libsystemd libcap; do
	check "a launch (dl-run -r 1ms -p 10ms -- true) loads no $l" no_load $l "$build/utils/dl-run" -r 1ms -p 10ms -- true
done
only_libc() {
	out=$(ldd "$1" 2>&1) || { echo "# ldd $1: $out"; return 1; }
	other=$(printf '%s\n' "$out" | grep -v 'linux-vdso\|libc\.so\.\|ld-linux')
	[ -z "$other" ] || { printf '%s\n' "$other" | sed 's/^/# /'; return 1; }
}
check "dl-run needs no library but libc" only_libc "$build/utils/dl-run"
# The dlopen notes: a JSON string per library, its soname the one built for.
cgso=$(sed -n 's/^#define LIBCGROUP_SONAME "\(.*\)"$/\1/p' "$build/config.h")
# The section's bytes, dumped into a file of this test's own.  objcopy
# replaces its output file (a new file renamed over it), so a device
# named as its output is unlinked: /dev/stdout, where /proc is not
# mounted, would become a regular file.  Its output object goes there
# too: without one, objcopy rewrites the file it reads.
notedir=$(mktemp -d) || exit 1
trap 'rm -rf "$notedir"' EXIT
notes() {
	rm -f "$notedir/note" "$notedir/copy"
	if ! objcopy --dump-section .note.dlopen="$notedir/note" "$1" "$notedir/copy" 2>"$notedir/err"; then
		sed "s|^|# objcopy: |" "$notedir/err"
		return 1
	fi
	[ -s "$notedir/note" ] || { echo "# $1's .note.dlopen is empty"; return 1; }
	tr -c '[:print:]' '\n' < "$notedir/note"
}
has_note() { # FILE SONAME FEATURE
	text=$(notes "$1") || { printf '%s\n' "$text"; return 1; }
	text=$(printf '%s\n' "$text" | grep '^\[')
	printf '%s\n' "$text" | grep "\"feature\":\"$3\"" | grep -q "\"soname\":\[\"$2\"\]" ||
		{ printf '%s\n' "$text" | sed "s|^|# $1's .note.dlopen: |"; return 1; }
}
check "libdeadline.so declares $cgso in its .note.dlopen" has_note "$lib" "$cgso" cgroup
check "dl-part declares $cgso in its .note.dlopen" has_note "$build/utils/dl-part" "$cgso" cgroup
check "dl-run declares $cgso in its .note.dlopen" has_note "$build/utils/dl-run" "$cgso" cgroup
capso=$(sed -n 's/^#define LIBCAP_SONAME "\(.*\)"$/\1/p' "$build/config.h")
check "libdeadline.so declares $capso in its .note.dlopen" has_note "$lib" "$capso" capabilities
check "dl-run declares $capso in its .note.dlopen" has_note "$build/utils/dl-run" "$capso" capabilities
if grep -q '^#define HAVE_LIBSYSTEMD 1' "$build/config.h"; then
	check "libdeadline.so declares libsystemd.so.0 in its .note.dlopen" has_note "$lib" libsystemd.so.0 systemd
	check "dl-part declares libsystemd.so.0 in its .note.dlopen" has_note "$build/utils/dl-part" libsystemd.so.0 systemd
else
	check "built without libsystemd: no note of it" sh -c "! objdump -s -j .note.dlopen '$lib' | grep -q systemd"
	check "built without libsystemd: dl-part has no note of it" sh -c "! objdump -s -j .note.dlopen '$build/utils/dl-part' | grep -q systemd"
fi
check "the note is of the type the spec gives (0x407c0c0a, owner FDO)" sh -c "readelf -n '$lib' | grep -A1 '^Displaying notes found in: .note.dlopen' >/dev/null && readelf -n '$lib' | grep -q 'FDO.*0x407c0c0a\|FDO.*FDO_DLOPEN'"
check "libdeadline.pc requires libcgroup (privately)" grep -q '^Requires.private:.* libcgroup' "$build/libdl/libdeadline.pc"
# Loaded at run time (Python's binding, a plugin): no static TLS, which a
# dlopen finds only as the little surplus the loader keeps.
check "libdeadline.so needs no static TLS block (no STATIC_TLS flag)" sh -c "! readelf -d '$lib' | grep -q STATIC_TLS"
dlopen_it() {
	tmp=$(mktemp -d) || return 1
	printf '#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) { (void)c; if (!dlopen(v[1], RTLD_NOW)) { printf("# %%s\\n", dlerror()); return 1; } return 0; }\n' > "$tmp/d.c"
	${CC:-cc} -o "$tmp/d" "$tmp/d.c" -ldl && "$tmp/d" "$1"
	rc=$?
	rm -rf "$tmp"
	return $rc
}
check "a program loads libdeadline.so with dlopen" dlopen_it "$lib"
exit 0
