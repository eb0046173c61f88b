#!/bin/sh
# bench/kcount.sh: experiment 10 of make bench, the cost of dl-stat
# --kernel (its BPF programs run at every context switch and wake-up of
# the machine).  Alternating round by round, the counter off and on (a
# dl-stat --kernel --watch running beside): a deadline task's wake-up
# latency (dl-load's loop, 2 ms every 10 ms with 1 ms of work, released
# on an absolute grid; a job's start less its release, dl-load --csv), and
# a load made of context switches (bench-pingpong: two ordinary processes
# on one CPU handing a byte back and forth, ns per round trip).  A
# result; the issue's target is the counter within the wake-up row's
# noise.
#
#   bench/kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]
#   (3 rounds of 5 s unless said; run.sh runs it as experiment 10, and
#   alone with BENCH_ONLY=kcount make bench)
#
# Writes OUTDIR/kcount.csv, kcount.md and kcount.row.  Root, under the
# kernel-test lock (the caller's).  Moves nothing, makes no cpuset; the
# counter is ended with the round (nothing of it stays attached).
set -u
export LC_ALL=C

build=$(cd "${1:?usage: kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}" && pwd)
out=${2:?usage: kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}
rounds=${3:-3}
secs=${4:-5}
me=kcount
. "$(dirname "$0")/lib.sh"
pingpong=$build/bench/bench-pingpong
pp_rounds=200000

[ "$(id -u)" = 0 ] || die "needs root"
for t in "$dlload" "$dlstat" "$pingpong"; do
	[ -x "$t" ] || die "$t is not built: make bench builds it"
done
mkdir -p "$out" || die "cannot make $out"
refused=""
if ! why=$("$dlstat" --kernel --watch 0.01 -n 1 -t 2>&1 >/dev/null); then
	refused=${why#*: --kernel: }
fi

echo "wake 2ms 10ms 10ms work=1ms" >"$work/wake.tasks"
echo "round,counter,jobs,misses,wake_p50_us,wake_p99_us,wake_max_us,pingpong_ns" >"$out/kcount.csv"
for r in $(seq 1 "$rounds"); do
	for mode in off on; do
		[ "$mode" = on ] && [ -n "$refused" ] && continue
		if [ "$mode" = on ]; then
			"$dlstat" --kernel --watch 1 -t --output "$work/counter.txt" 2>"$work/counter.err" &
			bg=$!
			for _ in $(seq 50); do [ -s "$work/counter.txt" ] && break; sleep 0.1; done
		fi
		"$dlload" -t "${secs}s" --csv "$work/jobs.csv" "$work/wake.tasks" >"$work/load.out" 2>&1 ||
			echo "   dl-load (counter $mode) failed: $(tail -1 "$work/load.out")"
		pp=$(taskset -c 0 "$pingpong" "$pp_rounds" 2>/dev/null || echo nan)
		if [ -n "$bg" ]; then
			kill "$bg" 2>/dev/null
			wait "$bg" 2>/dev/null
			bg=
		fi
		p=$(wake_round "$work/jobs.csv" "$mode")
		read -r jobs miss <"$work/count"
		echo "$r,$mode,$jobs,$miss,$p,$pp" >>"$out/kcount.csv"
		echo "$pp" >>"$work/pp-$mode"
	done
done

# Pooled over the rounds: wake-up p50 / p99 / max, and the median round trip.
ppmed() { [ -s "$work/pp-$1" ] && sort -g "$work/pp-$1" | awk '{v[NR]=$1} END {printf "%.1f", v[int((NR+1)/2)]}' || echo nan; }
wake_pooled off >"$work/pooled-off"
wake_pooled on >"$work/pooled-on"
read -r off50 off99 offmax offn <"$work/pooled-off"
read -r on50 on99 onmax onn <"$work/pooled-on"
ppoff=$(ppmed off)
ppon=$(ppmed on)
if [ -n "$refused" ]; then
	oncell="not measured: $refused"
	echo "   the counter cannot run here: $refused"
else
	oncell="$on50 / $on99 (max $onmax; $(csv_misses "$out/kcount.csv" on) missed of $onn); round trip $ppon ns"
fi
echo "| 10 | dl-stat --kernel's cost: wake-up latency p50 / p99 (us), and a round trip of two processes on one CPU (ns), counter on against off | $oncell | counter off: $off50 / $off99 (max $offmax; $(csv_misses "$out/kcount.csv" off) missed of $offn); round trip $ppoff ns | $(ratio "$on50" "$off50") / $(ratio "$on99" "$off99"); $(ratio "$ppon" "$ppoff") | within the wake-up row's noise |" >"$out/kcount.row"
{
	cat <<EOF2
## 10. dl-stat --kernel: what counting every deadline thread costs

Alternating, $rounds rounds: with no counter, and with \`dl-stat --kernel
--watch 1\` running (its BPF programs on every context switch and
wake-up).  In each: one deadline task, 2 ms every 10 ms with 1 ms of
work, for ${secs} s (dl-load; wake-up latency: a job's start less its
release, dl-load's own records), then bench-pingpong: two ordinary
processes on CPU 0 handing a byte back and forth $pp_rounds times
through pipes (two context switches a round trip; the median round
of the rounds).

| counter | jobs | missed | wake-up p50 (us) | p99 (us) | max (us) | round trip (ns) |
|---|---|---|---|---|---|---|
| off | $offn | $(csv_misses "$out/kcount.csv" off) | $off50 | $off99 | $offmax | $ppoff |
EOF2
	if [ -n "$refused" ]; then
		echo "| on | not measured: $refused | | | | | |"
	else
		echo "| on | $onn | $(csv_misses "$out/kcount.csv" on) | $on50 | $on99 | $onmax | $ppon |"
	fi
	echo
	echo "Each round: [kcount.csv](kcount.csv)."
} >"$out/kcount.md"
cat "$out/kcount.row"
