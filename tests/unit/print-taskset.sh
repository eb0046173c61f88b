#!/bin/bash
# dl-load --print-taskset: one task set written in libdl's line form, in
# its JSON form and as an rt-app file prints the same lines, and those
# lines read back print themselves again; rt-app's own example of a
# deadline task prints what it says.  No root: nothing runs.  TAP.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
load=$build/utils/dl-load
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
# same DESCRIPTION A B: the two texts are equal.
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diff <(echo "$2") <(echo "$3") | sed 's/^/# /'; fi
}

cat >"$tmp/set.tasks" <<'T'
ctl   3ms  10ms 10ms  spin=2ms
io    1.2ms 5ms 5ms   work=800us count=2 offset=250us flags=reclaim
T
cat >"$tmp/set.json" <<'T'
{"tasks": [
  {"name": "ctl", "runtime": "3ms", "period": "10ms", "spin": 2000000},
  {"name": "io", "runtime": 1200000, "deadline": "5ms", "work": "800us", "count": 2,
   "offset": "250us", "flags": ["reclaim"]}
]}
T
cat >"$tmp/set.rtapp" <<'T'
{
	"tasks" : {
		/* the same two tasks, rt-app's way (microseconds) */
		"ctl" : { "policy" : "SCHED_DEADLINE", "dl-runtime" : 3000, "dl-period" : 10000,
			  "runtime" : 2000, "timer" : { "ref" : "unique", "period" : 10000 } },
		"io" : { "policy" : "SCHED_DEADLINE", "instance" : 2, "delay" : 250,
			 "dl-runtime" : 1200, "dl-period" : 5000, "dl-reclaim" : true,
			 "run" : 800, "timer" : { "ref" : "unique", "period" : 5000 }, },
	},
}
T
want='# NAME RUNTIME DEADLINE PERIOD KEYS
ctl 3ms 10ms 10ms spin=2ms
io 1.2ms 5ms 5ms work=800us count=2 offset=250us flags=reclaim'
lines=$("$load" --print-taskset "$tmp/set.tasks" 2>&1)
same "the line form prints as the set says" "$lines" "$want"
same "the JSON form prints the same" "$("$load" --print-taskset "$tmp/set.json" 2>&1)" "$want"
# The rt-app file's tasks have a timer mode (relative: rt-app's
# default), which the line form has no words for: a comment under each.
same "the rt-app file prints the same, and its timer mode" "$("$load" --print-taskset "$tmp/set.rtapp" 2>&1)" \
	"$(printf '%s\n' "$want" | sed '/^ctl\|^io/a #   timer relative')"
echo "$lines" >"$tmp/again.tasks"
same "what it prints reads back as itself" "$("$load" --print-taskset "$tmp/again.tasks" 2>&1)" "$want"
same "from standard input too" "$("$load" --print-taskset - <"$tmp/set.json" 2>&1)" "$want"

# A job with both: CPU work (rt-app's run) and a spin of wall-clock time
# (rt-app's runtime), in the order they run.
cat >"$tmp/mix.rtapp" <<'T'
{"tasks": {"mix": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000,
	"run": 500, "runtime": 1000, "timer": {"ref": "unique", "period": 10000}}}}
T
want='# NAME RUNTIME DEADLINE PERIOD KEYS
mix 2ms 10ms 10ms work=500us spin=1ms'
printed=$("$load" --print-taskset "$tmp/mix.rtapp" 2>&1)
same "rt-app's run is work, its runtime spin" "$printed" "$want
#   timer relative"
echo "$printed" >"$tmp/mix.tasks"
same "work and spin read back as themselves" "$("$load" --print-taskset "$tmp/mix.tasks" 2>&1)" "$want"

# A command with blanks and quotes, and a name with a dot: quoted so
# that the line form reads it back.
cat >"$tmp/cmd.tasks" <<'T'
log.a 1ms - 20ms -- sh -c 'echo "a b" # x' "it's"
T
printed=$("$load" --print-taskset "$tmp/cmd.tasks" 2>&1)
echo "$printed" >"$tmp/cmd2.tasks"
same "a command prints so that it reads back the same" "$("$load" --print-taskset "$tmp/cmd2.tasks" 2>&1)" "$printed"
case $printed in
*"log.a 1ms 20ms 20ms work=900us -- sh -c 'echo \"a b\" # x' \"it's\""*) ok "the command's words quoted as the line form wants" ;;
*) not_ok "the command's words quoted as the line form wants"; echo "# $printed" ;;
esac

# rt-app's own example of a deadline task (tests/unit/data/rt-app), with
# its run of 2 s from "global".
same "rt-app's deadline.json" "$("$load" --print-taskset "$src/tests/unit/data/rt-app/deadline/deadline.json" 2>&1)" \
	"# the file asks for a run of 2s (dl-load's default duration)
# NAME RUNTIME DEADLINE PERIOD KEYS
thread0 12ms 100ms 100ms work=10ms
#   timer relative"

# A ramp: two loops of three phases under one timer, absolute; what the
# line form cannot say is said under the task, and the rest reads back.
cat >"$tmp/ramp.rtapp" <<'T'
{"tasks": {"ramp": {"policy": "SCHED_DEADLINE", "dl-runtime": 4000, "dl-deadline": 10000, "dl-period": 10000,
	"loop": 2, "phases": {
	"p1": {"loop": 3, "run": 1000, "timer": {"ref": "unique", "period": 10000, "mode": "absolute"}},
	"p2": {"loop": 2, "run": 2000, "runtime": 500, "timer": {"ref": "unique", "period": 10000, "mode": "absolute"}},
	"p3": {"timer": {"ref": "unique", "period": 10000, "mode": "absolute"}}}}}}
T
printed=$("$load" --print-taskset "$tmp/ramp.rtapp" 2>&1)
same "a ramp of phases: its timer mode, its 12 jobs, each phase" "$printed" "# NAME RUNTIME DEADLINE PERIOD KEYS
ramp 4ms 10ms 10ms work=1ms
#   timer absolute, 12 jobs; phases 3 x (work=1ms), 2 x (work=2ms spin=500us), 1 x (work=0ns)"
echo "$printed" >"$tmp/ramp.tasks"
same "its task line reads back as itself" "$("$load" --print-taskset "$tmp/ramp.tasks" 2>&1)" "# NAME RUNTIME DEADLINE PERIOD KEYS
ramp 4ms 10ms 10ms work=1ms"

out=$("$load" --print-taskset "$src/tests/unit/data/rt-app/examples/custom-slice.json" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [[ $out == *"tasks.thread0.policy: SCHED_OTHER"* ]]; then
	ok "a file that is not periodic deadline tasks: exit 2, the key's path and why"
else
	not_ok "a file that is not periodic deadline tasks: exit 2, the key's path and why"
	echo "# exit $rc: $out"
fi
out=$("$load" --print-taskset --jobs 5 "$tmp/set.tasks" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [[ $out == *"runs nothing"* ]]; then ok "--print-taskset with a run's option: bad usage"; else not_ok "--print-taskset with a run's option: bad usage"; echo "# exit $rc: $out"; fi

echo "1..$n"
exit 0
