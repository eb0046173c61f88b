#!/bin/bash
# bench/rtapp-peer.sh: experiment 7 of make bench (bench/README): one
# rt-app workload file run by rt-app and by dl-load, alternating.
#
#   rtapp-peer.sh BUILDDIR OUTDIR [ROUNDS [SECONDS [TRACED_ROUNDS]]]
#
# The file (OUTDIR/rtapp-peer.json, written here) describes three
# periodic deadline threads in rt-app's format; dl-load reads the very
# same file (libdl-taskset(5), "rt-app files").  rt-app is Debian 13's
# (1.0), run from the Debian 13 root file system that
# tests/vm/fetch-debian.sh trixie builds (LIBDL_VM_CACHE/trixie/build, where it
# is installed for this), chrooted in a mount namespace of its own, on
# this host's kernel; dl-load is BUILDDIR's.  Both release every thread
# at one common instant and then on an absolute grid (the file's timers
# are "absolute"), both run the whole machine, both spin through each
# job's "runtime" event until that much wall-clock time has passed,
# preempted or not (rt-app reads CLOCK_MONOTONIC around its loop;
# dl-load reads the event as spin=, libdl-taskset(5)).
#
# Per job, from each tool's own records (rt-app's log files, dl-load
# --csv), by one rule: a miss is a job that ended after its deadline
# (rt-app: a negative slack; the deadline is the period), the response
# runs from the job's release to its end (rt-app: the period less the
# slack), the wake-up latency from the release to the thread running
# again after its sleep (rt-app's wu_lat; dl-load's start - release),
# for jobs that slept.  CPU per job: the tool's whole CPU time (user and
# system, every process and thread, as bash's times reports its waited
# children) over its jobs.
#
# The kernel's view of the same CPU: more rounds of each tool, run
# under bench/trace-wake.sh (every SCHED_DEADLINE thread's sched_switch
# and timers).  Per job, its time on a CPU from the switch-in after its
# release to the switch away at which it sleeps again, every slice
# summed.  In a job that ran in one slice (no preemption, no move) that
# time is the spin plus what the tool itself does for a job (waking,
# its clock reads, its records, going back to sleep; rt-app's spin also
# overshoots, as it reads the clock every 32 us of its calibrated loop):
# that job's time less the file's runtime for its thread is the tool's
# own cost, which no preemption of the spin moves.  These rounds are kept
# out of the others' figures (the trace costs both tools a little).
#
# Writes OUTDIR/rtapp.csv (a line per round and tool),
# OUTDIR/rtapp-short.csv (the same rounds again, 1 s each),
# OUTDIR/rtapp-trace.csv (the traced rounds, TRACED_ROUNDS of each tool,
# default 3: a line per round and tool) and OUTDIR/rtapp-jobs.csv (pooled
# distributions), and prints one summary line per tool: TOOL jobs misses
# per1000 resp_p50_us resp_p99_us wake_p50_us wake_p99_us cpu_per_job_us;
# then one per tool for the traced rounds' jobs pooled: trace TOOL jobs
# cpu_per_job_us one_slice_jobs own_p50_us own_p25_us own_p75_us; and,
# with perf, one per tool for a round counted by perf stat: tlb TOOL
# jobs tlb_flushes_on_switch switches (OUTDIR/rtapp-tlb.csv).  Needs root; the caller holds
# the kernel-test lock (bench/run.sh does).  Exit 1 when dl-load could
# not run; rt-app missing is said, and its half skipped.
set -u
export LC_ALL=C

build=$(cd "$1" && pwd)
out=$2
rounds=${3:-4}
secs=${4:-6}
trace_rounds=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/vm/cache-dir.sh"
root=$cache/trixie/build
dlload=$build/utils/dl-load
work=$(mktemp -d /tmp/libdl-rtapp.XXXXXX) || exit 1
trap 'rm -rf "$work"; [ -n "${logs:-}" ] && rm -rf "$root$logs"' EXIT

[ -x "$dlload" ] || { echo "rtapp-peer: $dlload is not built" >&2; exit 1; }
have_rtapp=1
if ! [ -x "$root/usr/bin/rt-app" ]; then
	have_rtapp=0
	echo "rtapp-peer: no rt-app in $root (tests/vm/fetch.sh debian13-build or ./bootstrap.sh --bench installs it, as root): its half is not measured" >&2
fi

# The workload: a control loop and two I/O threads, 0.78 of the
# machine's 2 CPUs.  rt-app 1.0 needs dl-deadline written out (it does
# not default it to the period, as its later versions and dl-load do).
logs=/tmp/libdl-rtapp-logs
mkdir -p "$out"
cat >"$out/rtapp-peer.json" <<EOF
{
	/* make bench, experiment 7: the same file for rt-app and dl-load */
	"tasks" : {
		"ctl" : {
			"policy" : "SCHED_DEADLINE",
			"dl-runtime" : 3000, "dl-deadline" : 10000, "dl-period" : 10000,
			"runtime" : 2000,
			"timer" : { "ref" : "unique", "period" : 10000, "mode" : "absolute" }
		},
		"io" : {
			"policy" : "SCHED_DEADLINE", "instance" : 2,
			"dl-runtime" : 1200, "dl-deadline" : 5000, "dl-period" : 5000,
			"runtime" : 800,
			"timer" : { "ref" : "unique", "period" : 5000, "mode" : "absolute" }
		}
	},
	"global" : {
		"duration" : $secs,
		"calibration" : 100,
		"lock_pages" : false,
		"log_size" : 4,
		"logdir" : "$logs",
		"log_basename" : "rt"
	}
}
EOF

# COMMAND... with its output in OUTFILE; prints the CPU time (ms, user
# and system) it took, from bash's times: what this shell's waited
# children used, before and after (times is a builtin: no fork).
cpu_of() { # OUTFILE COMMAND...
	local o=$1
	shift
	times >"$work/t0"
	"$@" >"$o" 2>&1
	times >"$work/t1"
	awk 'function s(t,   x) { split(t, x, /[ms]/); return x[1] * 60 + x[2] }
		FNR == 2 {c[FILENAME] = s($1) + s($2)}
		END {printf "%.3f", (c[ARGV[2]] - c[ARGV[1]]) * 1000}' "$work/t0" "$work/t1"
}

run_rtapp() { # ROUND [TRACER...]
	local r=$1
	shift
	rm -rf "$root$logs" && mkdir -p "$root$logs"
	cp "$json" "$root/tmp/rtapp-peer.json"
	# shellcheck disable=SC2016
	cpu=$(cpu_of "$work/rtapp.out" "$@" unshare --mount --propagation private sh -c '
		r=$1
		mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" &&
		chroot "$r" /usr/bin/rt-app /tmp/rtapp-peer.json' sh "$root")
	# One line a job: slack, c_period, wu_lat (us), from every thread's log.
	cat "$root$logs"/rt-*.log 2>/dev/null | awk '!/^#/ && NF >= 11 {print $8, $10, $11}' >"$work/rtapp.jobs"
	awk -v r="$r" -v cpu="$cpu" '{n++; if ($1 < 0) m++; print "resp", $2 - $1; if ($1 > 0) print "wake", $3}
		END {printf "%s,rt-app,%d,%d,%s\n", r, n, m, cpu > "/dev/stderr"}' "$work/rtapp.jobs" 2>>"$rounds_file" >>"$work/rt-app.dist$dist_tag"
}

run_dlload() { # ROUND [TRACER...]
	local r=$1
	shift
	cpu=$(cpu_of "$work/dl.out" "$@" "$dlload" --csv "$work/dl.csv" "$json")
	# task,pid,index,release,deadline,start,end,response,met,...
	awk -F, -v r="$r" -v cpu="$cpu" 'NR > 1 {n++; if ($9 == 0) m++; print "resp", $8 / 1000
		if (!($1 in last) || last[$1] < $4) print "wake", ($6 - $4) / 1000; last[$1] = $7}
		END {printf "%s,dl-load,%d,%d,%s\n", r, n, m, cpu > "/dev/stderr"}' "$work/dl.csv" 2>>"$rounds_file" >>"$work/dl-load.dist$dist_tag"
}

: >"$work/rounds"
: >"$work/rt-app.dist"
: >"$work/dl-load.dist"
all_rounds() { # first round's number
	local r
	for r in $(seq "$1" $(($1 + rounds - 1))); do
		if [ $((r % 2)) = 1 ]; then
			[ "$have_rtapp" = 1 ] && run_rtapp "$r"
			run_dlload "$r" || exit 1
		else
			run_dlload "$r" || exit 1
			[ "$have_rtapp" = 1 ] && run_rtapp "$r"
		fi
	done
}
json=$out/rtapp-peer.json rounds_file=$work/rounds dist_tag=
all_rounds 1
# The same rounds again, 1 s each: a tool's CPU is a part paid once a run
# (starting, allocating, writing its records) and a part paid per job;
# two durations split them, by tool: the slope between the medians of the
# short and the long rounds is the CPU of one more job.
sed 's/"duration" : [0-9]*/"duration" : 1/' "$out/rtapp-peer.json" >"$work/short.json"
json=$work/short.json rounds_file=$work/short-rounds dist_tag=.short
: >"$work/short-rounds"
all_rounds $((rounds + 1))

pct() { # KIND P FILE: nearest-rank percentile
	awk -v k="$1" '$1 == k {print $2}' "$3" | sort -g | awk -v p="$2" '{v[NR] = $1} END {if (!NR) print "nan"; else {r = int((NR * p + 99) / 100); print v[r ? r : 1]}}'
}

# The traced rounds, alternating as the others do, their figures kept
# apart: a line per round and tool in rtapp-trace.csv, and every round's
# jobs pooled for the summary lines.
trace_wake=$here/trace-wake.sh
json=$out/rtapp-peer.json rounds_file=$work/traced-rounds dist_tag=.traced
: >"$work/traced-rounds"
echo "round,tool,jobs,cpu_per_job_us,one_slice_jobs,own_p50_us,own_p25_us,own_p75_us,trace_note" >"$out/rtapp-trace.csv"
# The file's spin (runtime event) of each thread, by its name's start.
spins=$(awk '/^\t\t"[a-z]+" : \{/ {gsub(/[\t": {]/, ""); t = $0} /"runtime" : [0-9]/ && t != "" {v = $0; gsub(/[^0-9]/, "", v); print t "=" v; t = ""}' "$out/rtapp-peer.json" | paste -s -d ' ' -)
# Jobs of the workload's threads (the file's names, with or without an
# instance's suffix), as pct's lines: "cpu US" for each and, for a job
# run in one slice, "own US" = its cpu less the thread's spin.
own_of() { # JOBS.CSV
	awk -F, -v spins="$spins" '
		BEGIN {n = split(spins, s, " "); for (i = 1; i <= n; i++) {split(s[i], kv, "="); spin[kv[1]] = kv[2] * 1000}}
		NR > 1 && $11 > 0 {
			name = $12; sub(/[-_.]?[0-9]+$/, "", name)
			if (!(name in spin)) next
			printf "cpu %.3f\n", $10 / 1e3
			if ($11 == 1) printf "own %.3f\n", ($10 - spin[name]) / 1e3
		}' "$1"
}
# FILE of own_of's lines -> jobs cpu_per_job_us one_slice_jobs own_p50 own_p25 own_p75
own_summary() {
	awk '$1 == "cpu" {j++; c += $2} $1 == "own" {k++} END {printf "%d %.1f %d ", j, j ? c / j : 0, k}' "$1"
	echo "$(pct own 50 "$1") $(pct own 25 "$1") $(pct own 75 "$1")"
}
traced() { # ROUND TOOL: the traced round's line
	local r=$1 tool=$2 jobs=$work/trace-$1-$2.csv said
	# The tool's output, trace-wake.sh's messages among it.
	if [ "$tool" = rt-app ]; then
		run_rtapp "T$r" "$trace_wake" "*" "$jobs" --
		said=$work/rtapp.out
	else
		run_dlload "T$r" "$trace_wake" "*" "$jobs" --
		said=$work/dl.out
	fi
	if ! [ -s "$jobs" ]; then
		echo "$r,$tool,0,nan,0,nan,nan,nan,no trace: $(grep -m1 '^trace-wake:' "$said" | tr ',' ';')"
		return
	fi
	own_of "$jobs" >"$work/own-round"
	cat "$work/own-round" >>"$work/own-$tool"
	echo "$r,$tool,$(own_summary "$work/own-round" | tr ' ' ','),$(grep -h '^trace-wake:' "$said" | tr ',\n' '; ')"
}
: >"$work/own-rt-app"
: >"$work/own-dl-load"
for r in $(seq 1 "$trace_rounds"); do
	if [ $((r % 2)) = 1 ]; then
		[ "$have_rtapp" = 1 ] && traced "$r" rt-app
		traced "$r" dl-load
	else
		traced "$r" dl-load
		[ "$have_rtapp" = 1 ] && traced "$r" rt-app
	fi
done >>"$out/rtapp-trace.csv"

# One more round of each, counted by perf stat over the whole machine:
# the TLB flushes the kernel makes at a task switch (tlb:tlb_flush with
# reason 0, TLB_FLUSH_ON_TASK_SWITCH), the cost of switching between two
# address spaces on a CPU without PCID, and the switches themselves.
# Two tasks of one process switch without one (rt-app's threads,
# dl-load's since it runs its tasks so).  Lines "tlb TOOL jobs flushes
# switches"; rtapp-tlb.csv.
if command -v perf >/dev/null 2>&1 && perf list tlb:tlb_flush 2>/dev/null | grep -q 'tlb:tlb_flush'; then
	json=$out/rtapp-peer.json rounds_file=$work/tlb-rounds dist_tag=.tlb
	: >"$work/tlb-rounds"
	echo "tool,jobs,tlb_flushes_on_switch,switches" >"$out/rtapp-tlb.csv"
	for tool in rt-app dl-load; do
		[ "$tool" = rt-app ] && [ "$have_rtapp" = 0 ] && continue
		counted=(perf stat -a "-x," -o "$work/perf-$tool" -e tlb:tlb_flush --filter "reason == 0" -e sched:sched_switch --)
		if [ "$tool" = rt-app ]; then run_rtapp P "${counted[@]}"; else run_dlload P "${counted[@]}"; fi
		jobs=$(awk -F, -v t="$tool" '$2 == t {print $3}' "$work/tlb-rounds")
		awk -F, -v t="$tool" -v j="$jobs" '$3 ~ /^tlb:tlb_flush/ {f = $1} $3 ~ /^sched:sched_switch/ {s = $1}
			END {printf "%s,%d,%d,%d\n", t, j, f, s}' "$work/perf-$tool" >>"$out/rtapp-tlb.csv"
	done
fi

echo "round,tool,jobs,misses,cpu_ms" >"$out/rtapp.csv"
cat "$work/rounds" >>"$out/rtapp.csv"
echo "tool,jobs,misses,per1000,resp_p50_us,resp_p99_us,wake_p50_us,wake_p99_us,cpu_per_job_us" >"$out/rtapp-jobs.csv"
for tool in rt-app dl-load; do
	[ "$tool" = rt-app ] && [ "$have_rtapp" = 0 ] && continue
	read -r jobs misses cpu < <(awk -F, -v t="$tool" '$2 == t {j += $3; m += $4; c += $5} END {print j + 0, m + 0, c + 0}' "$work/rounds")
	line="$tool,$jobs,$misses,$(awk -v j="$jobs" -v m="$misses" 'BEGIN {printf "%.2f", j ? 1000 * m / j : 0}'),$(pct resp 50 "$work/$tool.dist"),$(pct resp 99 "$work/$tool.dist"),$(pct wake 50 "$work/$tool.dist"),$(pct wake 99 "$work/$tool.dist"),$(awk -v j="$jobs" -v c="$cpu" 'BEGIN {printf "%.1f", j ? 1000 * c / j : 0}')"
	echo "$line" >>"$out/rtapp-jobs.csv"
	echo "$line" | tr ',' ' '
done
# The traced rounds' jobs pooled, a line per tool: trace TOOL jobs
# cpu_per_job_us one_slice_jobs own_p50_us own_p25_us own_p75_us.
for tool in rt-app dl-load; do
	[ -s "$work/own-$tool" ] && echo "trace $tool $(own_summary "$work/own-$tool")"
done

[ -s "$out/rtapp-tlb.csv" ] && awk -F, 'NR > 1 {print "tlb", $1, $2, $3, $4}' "$out/rtapp-tlb.csv"

# The short rounds, beside rtapp.csv's long ones: bench/run.sh splits
# each tool's CPU between the two (rtapp-split.csv).
echo "round,tool,jobs,misses,cpu_ms" >"$out/rtapp-short.csv"
cat "$work/short-rounds" >>"$out/rtapp-short.csv"
