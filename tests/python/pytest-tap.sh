#!/bin/bash
# The Python binding's pytest suites (tests/python/test_SUITE.py), run by
# Debian's python3-pytest against the package as built (python/build:
# the same files make install puts in place) and printed as TAP, one
# result per test.  Usage: pytest-tap.sh unit|kernel.
#
# The kernel suite runs as root only, holding the kernel suites' lock
# (/run/lock/libdl-kernel-tests.lock, as tests/lib/testlib.c takes it),
# since it shares the machine's deadline bandwidth with them.
set -u
suite=$1
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
python=${PYTHON:-/usr/bin/python3}
skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

[ -e "$build/python/build/libdeadline/_core.so" ] ||
	skip "the Python binding is not built: install python3-dev and configure again (--enable-python)"
"$python" -c 'import pytest' 2> /dev/null ||
	skip "pytest is missing for $python: install the Debian package python3-pytest (./bootstrap.sh as root does)"
if [ "$suite" = kernel ] && [ "$(id -u)" != 0 ]; then
	skip "the kernel suite needs root (SCHED_DEADLINE, cpusets): run make check as root"
fi
# A build with AddressSanitizer (CI's second build): python3 is not
# built with it, so its runtime has to be loaded first, and leaks are not
# judged: python3, and every tool this script runs under the preload,
# keeps memory to its exit (last, so that a caller's detect_leaks=1, as
# CI gives, does not override it).
asan=$(ldd "$build/python/build/libdeadline/_core.so" "$build/libdl/.libs/libdeadline.so" 2> /dev/null |
	awk '/lib(asan|ubsan)\.so/ { print $3 }' | sort -u | tr '\n' ':')
if [ -n "$asan" ]; then
	export LD_PRELOAD=${asan%:} ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi

export PYTHONPATH=$build/python/build PYTHONDONTWRITEBYTECODE=1 LIBDL_BUILD=$build LIBDL_SRC=$src PYTHON=$python
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
run=("$python" -m pytest -p no:cacheprovider -q -rs --tb=short --junitxml="$tmp/junit.xml"
	--rootdir="$src/tests/python" "$src/tests/python/test_$suite.py")
if [ "$suite" = kernel ]; then
	lock=/run/lock/libdl-kernel-tests.lock
	[ -w "$(dirname "$lock")" ] || lock=/tmp/libdl-kernel-tests.lock
	run=(flock "$lock" "${run[@]}")
fi
(cd "$tmp" && "${run[@]}") > "$tmp/out" 2>&1
rc=$?
"$python" - "$tmp/junit.xml" "$rc" <<'PY'
import sys
import xml.etree.ElementTree as ET

path, rc = sys.argv[1], int(sys.argv[2])
try:
    cases = list(ET.parse(path).getroot().iter("testcase"))
except (OSError, ET.ParseError) as e:
    print("1..1\nnot ok 1 - pytest ran (exit status %d, no report: %s)" % (rc, e))
    sys.exit(0)
print("1..%d" % max(len(cases), 1))
if not cases:
    print("not ok 1 - pytest found no test (exit status %d)" % rc)
for n, case in enumerate(cases, 1):
    name = case.get("name")
    bad = case.find("failure") if case.find("failure") is not None else case.find("error")
    skipped = case.find("skipped")
    if bad is not None:
        print("not ok %d - %s" % (n, name))
        for line in (bad.get("message", "") + "\n" + (bad.text or "")).splitlines():
            print("# " + line)
    elif skipped is not None:
        print("ok %d - %s # SKIP %s" % (n, name, skipped.get("message", "").replace("\n", " ")))
    else:
        print("ok %d - %s" % (n, name))
PY
sed 's/^/# /' "$tmp/out"
exit 0
