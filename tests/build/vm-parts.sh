#!/bin/bash
# How a boot of several VM suites is reported (tests/vm/parts.awk, which
# vm-test runs on the console of a boot with "# vm-part:" lines), on
# consoles written here: each part's results named after it and numbered
# in one stream; a part that skipped whole one skipped result; a part
# that failed with no failed result, was killed at its timeout, printed
# fewer results than it planned, or left the cgroup tree changed, a
# failed result saying so; the part under way when the VM died, and each
# part it never reached, a failed result each; a kernel crash right
# after a "# kernel-bug:" line the expected failure (TODO).  TAP.
src=${top_srcdir:-.}
awkf=$src/tests/vm/parts.awk
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
# expect DESCRIPTION LINE: the report (without comments) holds LINE.
expect() {
	if grep -qxF -- "$2" "$tmp/tap"; then ok "$1"; else not_ok "$1"; grep -v '^#' "$tmp/tap" | sed 's/^/# /'; fi
}
report() { awk -v specs="$1" -v rc="$2" -v why="$3" -v last="$4" -f "$awkf" "$tmp/out" >"$tmp/tap"; }

cat >"$tmp/out" <<'CONSOLE'
LIBDL-PART-START a
ok 1 - first
not ok 2 - second
1..2
LIBDL-PART-END a 1
LIBDL-PART-LEFT a: /sys/fs/cgroup/x: cpuset.cpus=0
LIBDL-PART-START b
1..0 # SKIP nothing to do
LIBDL-PART-END b 0
LIBDL-PART-START c
ok 1 - one
a console line
LIBDL-PART-END c timeout
LIBDL-PART-START d
ok 1 - fine
1..3
LIBDL-PART-END d 0
LIBDL-PART-START e
ok 1 - e starts
1..1
LIBDL-PART-END e 2
LIBDL-PART-START f
ok 1 - f starts
[   12.0] Oops: general protection fault
CONSOLE
report " a:10 b:20 c:30 d:40 e:50 f:60 g:70" 99 "no marker line" "Oops: general protection fault"
expect "a part's results keep their words, named after it" "ok 1 - a: first"
expect "and its failures" "not ok 2 - a: second"
expect "a part that left a cgroup behind fails, saying what" "not ok 3 - a: left the cgroup tree and the layout's state as it found them (it left: /sys/fs/cgroup/x: cpuset.cpus=0)"
expect "a part that skipped whole is one skipped result" "ok 4 - b # SKIP nothing to do"
expect "a part killed at its timeout fails, saying so" "not ok 6 - c: killed after 30 s, its timeout (its last line: a console line)"
expect "a part that printed fewer results than it planned fails" "not ok 8 - d: planned 3 results, printed 1"
expect "a part that ended badly with no failed result fails" "not ok 10 - e: ended with status 2 and no failed result (its last line: ok 1 - e starts)"
expect "the part under way when the VM died fails, with the reason" "not ok 12 - f: the VM ended during this part, status 99 (no marker line); the last line from the guest: Oops: general protection fault"
expect "a part the VM never reached fails" "not ok 13 - g: not run: the VM ended in f"
expect "one plan for the whole boot" "1..13"

cat >"$tmp/out" <<'CONSOLE'
LIBDL-PART-START p
ok 1 - before
# kernel-bug: inactive_task_timer: CPU 1 taken offline
[   9.1] Oops: divide error: 0000 [#1] PREEMPT SMP
[   9.1] RIP: 0010:inactive_task_timer+0x42/0x300
CONSOLE
report " p:10" 99 "" ""
expect "a crash right after a kernel-bug line is the expected failure" "not ok 2 - p: CPU 1 taken offline: the kernel crashed (Oops: divide error: 0000 [#1] in inactive_task_timer) # TODO a kernel bug, expected on this kernel (docs/kernel-notes.md)"
# The same crash in another function is the part's failure.
sed -i 's/inactive_task_timer+0x42/other_function+0x42/' "$tmp/out"
report " p:10" 99 "" ""
expect "a crash elsewhere is not the expected one" "not ok 2 - p: the VM ended during this part, status 99; the last line from the guest: "

: >"$tmp/out"
report " x:10 y:10" 99 "timed out" "booting"
expect "a boot that never reached its first part fails each part" "not ok 2 - y: not run: the VM ended before its first part, status 99 (timed out); the last line from the guest: booting"
echo "1..$n"
