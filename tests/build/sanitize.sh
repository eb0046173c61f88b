#!/bin/sh
# The unit suites and the fuzz replays once more, in a build of a clean
# copy of the sources (make distdir) configured with --enable-werror and
# compiled under AddressSanitizer and UndefinedBehaviorSanitizer, which
# stop at the first error: a memory error, a leak or undefined behaviour
# that the plain build's suites pass over fails here.  Each result of the
# inner make check is one result here, its name kept.  TAP.
#
# It runs last in the host's lane of make check (tests/Makemodule.am),
# beside the VM suites, which keep the other CPU busy longer: it costs the
# run no time of its own.  SANITIZE_JOBS sets the inner build's -j
# (default: the CPUs).
build=$(cd "${top_builddir:-.}" && pwd)
make=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libdl-sanitize.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
jobs=${SANITIZE_JOBS:-$(nproc)}

# The inner make is a make of its own: nothing of the outer one's
# (its jobserver, its test environment) leaks into it.
inner() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u LIBTOOL -u top_builddir -u top_srcdir \
		-u LIBDEADLINE_VERSION_INFO -u LIBDL_HARDENING -u LIBDL_FORTIFY "$@"
}
step() { # WHAT COMMAND...: a step that must succeed before any result
	what=$1
	shift
	if ! "$@" >"$tmp/step.log" 2>&1; then
		echo "1..1"
		echo "not ok 1 - the sanitizer build: $what failed"
		tail -n 40 "$tmp/step.log" | sed 's/^/# /'
		exit 0
	fi
}

step "make distdir" inner "$make" -s -C "$build" distdir distdir="$tmp/src"
mkdir "$tmp/build"
cd "$tmp/build" || exit 99
step "configure" inner ../src/configure -q --enable-werror \
	CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	LDFLAGS="-fsanitize=address,undefined"
step "make" inner "$make" -j"$jobs"
tests=$(inner "$make" -s print-unit-tests)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	inner "$make" check TESTS="$tests" >"$tmp/check.log" 2>&1
rc=$?
# automake's lines, one a result, as TAP ('#' would start a directive).
awk '
	/^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP): / {
		kind = $1; sub(/:$/, "", kind)
		name = $0; sub(/^[A-Z]+: /, "", name); gsub(/#/, "", name)
		n++
		if (kind == "PASS") print "ok " n " - " name
		else if (kind == "SKIP") print "ok " n " - " name " # SKIP"
		else if (kind == "XFAIL") print "not ok " n " - " name " # TODO expected to fail"
		else print "not ok " n " - " name " (" kind ")"
	}' "$tmp/check.log" >"$tmp/tap"
if ! [ -s "$tmp/tap" ]; then
	echo "1..1"
	echo "not ok 1 - the sanitizer build: make check gave no result (status $rc)"
	tail -n 40 "$tmp/check.log" | sed 's/^/# /'
	exit 0
fi
cat "$tmp/tap"
if grep -q '^not ok' "$tmp/tap" || [ "$rc" != 0 ]; then
	# What failed said, from the inner suites' logs.
	find . -name '*.trs' | while read -r trs; do
		grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$trs" || continue
		echo "# ---- ${trs%.trs}.log"
		tail -n 60 "${trs%.trs}.log" | sed 's/^/# /'
	done
	[ "$rc" != 0 ] && ! grep -q '^not ok' "$tmp/tap" &&
		echo "not ok $(($(wc -l <"$tmp/tap") + 1)) - the sanitizer build: make check ended with status $rc" | tee -a "$tmp/tap"
fi
echo "1..$(wc -l <"$tmp/tap")"
exit 0
