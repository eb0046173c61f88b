#!/bin/sh
# bench/kcount.sh: experiment 10 of make bench, the cost of dl-stat
# --kernel (its BPF program runs at every context switch of the machine;
# before the counter kept its records in task storage a second one ran at every wake-up).  Alternating round
# by round, the counter off and on (a dl-stat --kernel --watch running
# beside): a deadline task's wake-up latency (dl-load's loop, 2 ms every
# 10 ms with 1 ms of work, released on an absolute grid; a job's start
# less its release, dl-load --csv), and a load made of context switches
# (bench-pingpong: two ordinary processes on one CPU handing a byte back
# and forth, ns per round trip).  A result; the issue's target is the
# counter within the wake-up row's noise.
#
#   bench/kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]
#   (10 rounds of 5 s unless said; run.sh runs it as experiment 10, and
#   alone with BENCH_ONLY=kcount make bench)
#
# Writes OUTDIR/kcount.csv, kcount.md and kcount.row.  Root, under the
# kernel-test lock (the caller's).  Moves nothing, makes no cpuset; the
# counter is ended with the round (nothing of it stays attached).
set -u
export LC_ALL=C

build=$(cd "${1:?usage: kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}" && pwd)
out=${2:?usage: kcount.sh BUILDDIR OUTDIR [ROUNDS [SECONDS]]}
rounds=${3:-10}
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

# The kernel's own account of the programs' cost: with
# kernel.bpf_stats_enabled set (and put back as found after each part,
# and at the end, an error or a signal included), each program's
# run_time_ns and run_cnt as bpftool lists them: ns per run.  Set during
# the deadline task's part of the rounds with the counter, and during a
# second run of the round trips after the first: the statistics cost two
# clock reads a run, which a machine running dl-stat --kernel does not
# pay (bpf_stats_enabled is 0 unless an administrator sets it), so the
# round trip judged is the first, with them as found; the second's is
# in the CSV (pingpong_stats_ns), the figure this experiment judged
# until the counter kept its records in task storage.
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo)
restore_stats() { [ -n "$stats_was" ] && echo "$stats_was" >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null; }
trap 'restore_stats; cleanup' EXIT
prog_stats() { # PROGRAM -> "run_time_ns run_cnt" so far, or "0 0"
	command -v bpftool >/dev/null 2>&1 || { echo "0 0"; return; }
	bpftool prog show 2>/dev/null | awk -v n="$1" '$0 ~ " name " n " " {
		for (i = 1; i < NF; i++) {if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1)}}
		END {print t + 0, c + 0}'
}
per_run() { # "T0 C0" "T1 C1" -> ns per run between the two, or nan
	awk -v a="$1" -v b="$2" 'BEGIN {split(a, x, " "); split(b, y, " ")
		if (y[2] > x[2]) printf "%.0f", (y[1] - x[1]) / (y[2] - x[2]); else print "nan"}'
}

echo "wake 2ms 10ms 10ms work=1ms" >"$work/wake.tasks"
echo "round,counter,jobs,misses,wake_p50_us,wake_p99_us,wake_max_us,pingpong_ns,switch_prog_ns,wakeup_prog_ns,switch_prog_pp_ns,wakeup_prog_pp_ns,pingpong_stats_ns" >"$out/kcount.csv"
for r in $(seq 1 "$rounds"); do
	for mode in off on; do
		[ "$mode" = on ] && [ -n "$refused" ] && continue
		sw=nan wk=nan swp=nan wkp=nan pps=nan
		if [ "$mode" = on ]; then
			echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null
			"$dlstat" --kernel --watch 1 -t --output "$work/counter.txt" 2>"$work/counter.err" &
			bg=$!
			for _ in $(seq 50); do [ -s "$work/counter.txt" ] && break; sleep 0.1; done
		fi
		"$dlload" -t "${secs}s" --csv "$work/jobs.csv" "$work/wake.tasks" >"$work/load.out" 2>&1 ||
			echo "   dl-load (counter $mode) failed: $(tail -1 "$work/load.out")"
		if [ -n "$bg" ]; then
			s0=$(prog_stats libdl_kc_switch) w0=$(prog_stats libdl_kc_wakeup)
			restore_stats
		fi
		pp=$(taskset -c 0 "$pingpong" "$pp_rounds" 2>/dev/null || echo nan)
		if [ -n "$bg" ]; then
			echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null
			s1=$(prog_stats libdl_kc_switch) w1=$(prog_stats libdl_kc_wakeup)
			pps=$(taskset -c 0 "$pingpong" "$pp_rounds" 2>/dev/null || echo nan)
			s2=$(prog_stats libdl_kc_switch) w2=$(prog_stats libdl_kc_wakeup)
			restore_stats
			sw=$(per_run "0 0" "$s0") wk=$(per_run "0 0" "$w0")
			swp=$(per_run "$s1" "$s2") wkp=$(per_run "$w1" "$w2")
			kill "$bg" 2>/dev/null
			wait "$bg" 2>/dev/null
			bg=
		fi
		p=$(wake_round "$work/jobs.csv" "$mode")
		read -r jobs miss <"$work/count"
		echo "$r,$mode,$jobs,$miss,$p,$pp,$sw,$wk,$swp,$wkp,$pps" >>"$out/kcount.csv"
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
# The second round trips of the counter's rounds, the kernel's statistics on.
ppstats=$(awk -F, 'NR > 1 && $2 == "on" && $13 != "nan" && $13 != "" {print $13}' "$out/kcount.csv" | median)
# The wake-up row's noise: how far the rounds without the counter stray
# from their median (half their range, percent; run.sh's band).  The
# counter's figure is judged against it: its ratio to the figure without
# it, off by no more than the band.
band() { awk -F, -v m="$1" -v c="$2" 'NR > 1 && $2 == m && $c != "nan" {print $c}' "$out/kcount.csv" | spread; }
judge() { # ON OFF BAND -> met / not met (band ±B%)
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {
		if (a == "nan" || b == "nan" || b == 0) {print "not measured"; exit}
		if (n !~ /^[0-9.]+$/) {print "no band (one round)"; exit}
		d = 100 * (a / b - 1)
		printf "%s (%+.1f%%, band ±%s%%)", (d <= n + 0 ? "met" : "not met"), d, n}'
}
b50=$(band off 5)
b99=$(band off 6)
bpp=$(band off 8)
# The programs' ns per run, the median of the rounds with the counter.
prog_med() { awk -F, -v c="$1" 'NR > 1 && $2 == "on" && $c != "nan" {print $c}' "$out/kcount.csv" | median; }
swns=$(prog_med 9)
wkns=$(prog_med 10)
swpp=$(prog_med 11)
wkpp=$(prog_med 12)
v50=$(judge "$on50" "$off50" "$b50")
v99=$(judge "$on99" "$off99" "$b99")
vpp=$(judge "$ppon" "$ppoff" "$bpp")
if [ -n "$refused" ]; then
	oncell="not measured: $refused"
	echo "   the counter cannot run here: $refused"
else
	oncell="$on50 / $on99 (max $onmax; $(csv_misses "$out/kcount.csv" on) missed of $onn); round trip $ppon ns; the programs by the kernel's bpf_stats, ns a context switch / a wake-up: $(num "$swns" %.0f) / $(num "$wkns" %.0f) beside the deadline task, $(num "$swpp" %.0f) / $(num "$wkpp" %.0f) in the round trips (with the statistics on: $(num "$ppstats" %.1f) ns a round trip)"
fi
echo "| 10 | dl-stat --kernel's cost: wake-up latency p50 / p99 (us), and a round trip of two processes on one CPU (ns), counter on against off | $oncell | counter off: $off50 / $off99 (max $offmax; $(csv_misses "$out/kcount.csv" off) missed of $offn); round trip $ppoff ns | $(ratio "$on50" "$off50") / $(ratio "$on99" "$off99"); $(ratio "$ppon" "$ppoff") | within the wake-up row's noise: p50 $v50; p99 $v99 (round trip, a result: $vpp) |" >"$out/kcount.row"
{
	cat <<EOF2
## 10. dl-stat --kernel: what counting every deadline thread costs

Alternating, $rounds rounds: with no counter, and with \`dl-stat --kernel
--watch 1\` running (its BPF program on every context switch; until
task storage a second one on every wake-up).  In each: one deadline task, 2 ms every 10 ms with 1 ms of
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
	echo "The target: the counter's wake-up figures off those without it by no"
	echo "more than the noise of the rounds without it (half their range about"
	echo "their median).  p50: $v50.  p99: $v99.  The round trip, a"
	echo "result: $vpp."
	echo
	echo "The programs' own time, by the kernel (kernel.bpf_stats_enabled during"
	echo "the deadline task's part of the rounds with the counter, and during a"
	echo "second run of their round trips, then put back), ns a run of"
	echo "libdl_kc_switch (a context switch) / libdl_kc_wakeup (a wake-up; nan:"
	echo "no such program, since task storage):"
	echo "$(num "$swns" %.0f) / $(num "$wkns" %.0f) beside the deadline task (few switches, the programs"
	echo "cold), $(num "$swpp" %.0f) / $(num "$wkpp" %.0f) in the round trips (one switch after another),"
	echo "medians of the rounds' run_time_ns / run_cnt.  The round trip with the"
	echo "statistics on (their two clock reads a run included; the figure judged"
	echo "until task storage): $(num "$ppstats" %.1f) ns, $(ratio "$ppstats" "$ppoff") of the one without the counter."
	echo
	echo "Each round: [kcount.csv](kcount.csv)."
} >"$out/kcount.md"
cat "$out/kcount.row"
