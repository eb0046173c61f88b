#!/bin/bash
# bench/server.sh: experiment 9 of make bench, the fair server.  A
# deadline task's wake-up latency in a one-CPU partition whose CPU keeps
# its fair server (as the kernel has it) and in the same partition with
# the server off (dl-part create --fair-server NAME=off), alternating
# round by round, with a CPU-bound ordinary task on that CPU all along
# (what the server is there for).  The task: dl-load's loop, 2 ms every
# 10 ms with 1 ms of work, released on an absolute grid; its wake-up
# latency is the start of a job less its release (dl-load --csv).  Each
# layout is checked against the kernel before its round: the partition's
# total_bw in sched/debug (no deadline task there yet) is its fair server
# when on and 0 when off.  A result, without a target: what the server
# costs or buys on this machine.
#
#   bench/server.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]
#   (3 rounds of 5 s unless said; run.sh runs it as experiment 9, and
#   alone with BENCH_ONLY=server make bench)
#
# Writes OUTDIR/server.csv, server.md and server.row (the section and the
# summary row run.sh puts in its report).  Root, under the kernel-test
# lock (the caller's: make bench holds it; alone: flock
# /run/lock/libdl-kernel-tests.lock bench/server.sh . /tmp/server).  It
# moves only its own processes (dl-part create --no-move), makes and
# removes only its own layout, whose destroy gives the fair server back,
# and leaves total_bw as it found it (a drift is reported, then repaired
# with dl-part repair).  POSIX sh, so that the VM suites' busybox runs it
# too (tests/vm/guest/server.sh: both halves where the kernel lets the
# server be set).
set -u
export LC_ALL=C

build=$(cd "${1:?usage: server.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}" && pwd)
out=${2:?usage: server.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}
rounds=${3:-3}
secs=${4:-5}
me=server
. "$(dirname "$0")/lib.sh"

bench_ready "$out" "make all" "$dlpart" "$dlload"
ncpu=$(nproc --all)
[ "$ncpu" -ge 2 ] || die "needs 2 CPUs: a partition and the cluster"

cpu=$((ncpu - 1))
# CPU N's root domain's total_bw, from sched/debug.
total_bw() { awk -v c="dl_rq[$1]:" '$1 == c {f = 1; next} f && /total_bw/ {print $3; exit}' "$debug"; }
# The machine's total_bw over every CPU, before and after: left as found.
sum_bw() { awk '/\.dl_bw->total_bw/ {s += $3} END {print s + 0}' "$debug"; }
before=$(sum_bw)

echo "wake 2ms 10ms 10ms work=1ms place=srv" >"$work/wake.tasks"
echo "round,server,jobs,misses,wake_p50_us,wake_p99_us,wake_max_us,partition_total_bw" >"$out/server.csv"
off_refused=""
for r in $(seq 1 "$rounds"); do
	for mode in on off; do
		[ "$mode" = off ] && [ -n "$off_refused" ] && continue
		set -- create --partition "srv=$cpu" --no-move
		[ "$mode" = off ] && set -- "$@" --fair-server srv=off
		ours=1
		if ! "$dlpart" "$@" >"$work/create.out" 2>&1; then
			ours=0
			if [ "$mode" = off ]; then
				off_refused=$(grep -v '^layout\|^  ' "$work/create.out" | head -1)
				echo "   the fair server cannot be set off here: $off_refused"
				continue
			fi
			die "dl-part create failed: $(head -1 "$work/create.out")"
		fi
		tb=$(total_bw "$cpu")
		# What the server must then be: the kernel's count says.
		if [ "$mode" = off ] && [ "$tb" != 0 ]; then
			echo "   round $r: the partition counts $tb with its fair server off, not 0"
		fi
		# The hog on the partition's CPU.  On cgroup v2 the root cgroup
		# no longer has that CPU (a partition takes it), so the hog goes
		# into the partition itself; on v1 it stays where it is.
		hogcg=""
		if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
			hogcg=$("$dlpart" list --json | sed -n 's/.*"name":"srv","cgroup":"\([^"]*\)".*/\1/p')
			hogcg=/sys/fs/cgroup/$hogcg/cgroup.procs
		fi
		if [ -n "$hogcg" ]; then
			# shellcheck disable=SC2016 # the hog's own $$
			HOGCG=$hogcg /bin/sh -c 'echo $$ >"$HOGCG" && exec /bin/sh -c "while :; do :; done"' &
		else
			taskset -c "$cpu" /bin/sh -c 'while :; do :; done' &
		fi
		bg=$!
		"$dlload" -t "${secs}s" --csv "$work/jobs.csv" "$work/wake.tasks" >"$work/load.out" 2>&1 ||
			echo "   dl-load ($mode) failed: $(tail -1 "$work/load.out")"
		kill "$bg" 2>/dev/null
		wait "$bg" 2>/dev/null
		bg=
		"$dlpart" destroy >/dev/null 2>&1 || echo "   dl-part destroy failed"
		ours=0
		p=$(wake_round "$work/jobs.csv" "$mode")
		read -r jobs miss <"$work/count"
		echo "$r,$mode,$jobs,$miss,$p,$tb" >>"$out/server.csv"
	done
done
after=$(sum_bw)
drift=""
if [ "$after" != "$before" ]; then
	drift="the machine's total_bw went from $before to $after: repaired with dl-part repair"
	"$dlpart" repair >/dev/null 2>&1
	echo "   $drift"
fi

# Pooled over the rounds: p50 / p99 / max of each mode.
wake_pooled on >"$work/pooled-on"
wake_pooled off >"$work/pooled-off"
read -r on50 on99 onmax onn <"$work/pooled-on"
read -r off50 off99 offmax offn <"$work/pooled-off"
if [ -n "$off_refused" ]; then
	offcell="not measured: $off_refused"
else
	offcell="$off50 / $off99 (max $offmax; $(csv_misses "$out/server.csv" off) missed of $offn)"
fi
echo "| 9 | wake-up latency in a one-CPU partition beside a busy ordinary task, p50 / p99 (us), fair server off against on | $offcell | server on: $on50 / $on99 (max $onmax; $(csv_misses "$out/server.csv" on) missed of $onn) | $(ratio "$off50" "$on50") / $(ratio "$off99" "$on99") | a result |" >"$out/server.row"
{
	cat <<EOF
## 9. The fair server: a partition with it and without

One deadline task, 2 ms every 10 ms with 1 ms of work (dl-load), in a
one-CPU partition of CPU $cpu (dl-part create --partition srv=$cpu
--no-move), beside an ordinary task that keeps CPU $cpu busy; the same
partition made with \`--fair-server srv=off\`, alternating, $rounds rounds
of ${secs} s.  Wake-up latency: a job's start less its release, dl-load's
own records.  Before each round the partition's total_bw in sched/debug
(no deadline task in it yet) is its fair server: 52428 with the default
50 ms every 1 s, 0 with it off.

| server | jobs | missed | wake-up p50 (us) | p99 (us) | max (us) |
|---|---|---|---|---|---|
| on | $onn | $(csv_misses "$out/server.csv" on) | $on50 | $on99 | $onmax |
EOF
	if [ -n "$off_refused" ]; then
		echo "| off | not measured: $off_refused | | | | |"
	else
		echo "| off | $offn | $(csv_misses "$out/server.csv" off) | $off50 | $off99 | $offmax |"
	fi
	echo
	echo "Each round: [server.csv](server.csv).${drift:+ $drift.}"
} >"$out/server.md"
cat "$out/server.row"
