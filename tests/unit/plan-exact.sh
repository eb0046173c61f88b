#!/bin/bash
# dl-part plan's exact test (dl_exact_test(3)) as a user meets it, for
# a planned machine (--cpus: nothing read from this one, no root): Dhall's
# set is not schedulable and its witness, cut from the output, is a task
# file dl-load reads that makes the same miss; a set no sufficient test
# accepts is schedulable; the JSON says the same; the budget and the tie
# rule are options; a set a sufficient test accepts runs no search.  TAP.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
part=$build/utils/dl-part
load=$build/utils/dl-load
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
# has DESCRIPTION TEXT NEEDLE
has() {
	if grep -qF -- "$3" <<<"$2"; then ok "$1"; else not_ok "$1: no \"$3\""; sed 's/^/# /' <<<"$2"; fi
}

cat >"$tmp/dhall.ts" <<'T'
light1 2ms 10ms 10ms
light2 2ms 10ms 10ms
heavy 10ms 11ms 11ms
T
# Every sufficient test refuses it; every arrival sequence meets its deadlines.
cat >"$tmp/only-exact.ts" <<'T'
a 1ms 3ms 4ms
b 2ms 2ms 6ms
c 1ms 4ms 4ms
d 3ms 6ms 6ms
T
cat >"$tmp/light.ts" <<'T'
a 1ms 10ms 10ms
b 1ms 10ms 10ms
c 1ms 10ms 10ms
T

out=$("$part" plan --cpus 2 --fair-server off "$tmp/dhall.ts")
has "Dhall's set: not schedulable" "$out" "exact test: not schedulable"
has "the miss named" "$out" "heavy misses its deadline at 11ms"
awk '/witness, a task file/ { w = 1; next } w && /^    / { print substr($0, 5); next } { w = 0 }' <<<"$out" >"$tmp/witness.ts"
has "the witness's heavy job" "$(cat "$tmp/witness.ts")" "heavy.j2 10ms 11ms 11ms work=10ms offset=0ns"
# The witness read back: the same three jobs; planned again, it misses
# as the witness says.
printed=$("$load" --print-taskset "$tmp/witness.ts" 2>&1)
if [ "$(grep -c '^[a-z]' <<<"$printed")" = 3 ]; then ok "dl-load reads the witness: 3 jobs"; else not_ok "dl-load reads the witness"; sed 's/^/# /' <<<"$printed"; fi
again=$("$part" plan --cpus 2 --fair-server off "$tmp/witness.ts")
has "the witness, planned, misses too" "$again" "heavy.j2 misses its deadline at 11ms"

out=$("$part" plan --cpus 2 --fair-server off "$tmp/only-exact.ts")
has "no sufficient test accepts" "$out" "GFB refuses BAK refuses BCL refuses RTA refuses"
has "the exact test proves it" "$out" "exact test: schedulable"
has "whatever the order among equal deadlines" "$out" "whatever the order among equal deadlines"
out=$("$part" plan --cpus 2 --fair-server off --ties index "$tmp/only-exact.ts")
has "--ties index says which order it assumed" "$out" "with equal deadlines in task order"

json=$("$part" plan --cpus 2 --fair-server off --json "$tmp/dhall.ts")
got=$(python3 -c '
import json, sys
e = json.load(sys.stdin)["exact"]
print(e["verdict"], e["misses"], e["miss_at_ns"], [(a["task"], a["release_ns"]) for a in e["arrivals"]],
      e["any_tie_order"], e["taskfile"].count("\n"))' <<<"$json")
has "--json: the verdict, the miss, the arrivals" "$got" "not schedulable heavy 11000000 [('light1', 0), ('light2', 0), ('heavy', 0)] True 5"
json=$("$part" plan --cpus 2 --fair-server off --json "$tmp/light.ts")
has "--json: not run when a sufficient test accepts" "$json" '"exact":null'
out=$("$part" plan --cpus 2 --fair-server off --exact-time 0 "$tmp/dhall.ts")
if grep -q "exact test" <<<"$out"; then not_ok "--exact-time 0 runs no exact test"; else ok "--exact-time 0 runs no exact test"; fi
out=$("$part" plan --cpus 2 --fair-server off --exact-states 3 "$tmp/dhall.ts")
has "--exact-states: unknown within the budget" "$out" "unknown within the budget: the exact test stopped at its states limit after 3 states"
# The kernel's default fair server, 50ms every 1s, makes a grid too
# fine for the search: it says so.
out=$("$part" plan --cpus 2 "$tmp/only-exact.ts")
has "the fair server's period on a 1ms grid: unknown, and why" "$out" "unknown: a period of 1000 units of 1ms"
has "and how to plan without it" "$out" "the fair servers count as tasks: --fair-server off plans without them"

echo "1..$n"
exit $failed
