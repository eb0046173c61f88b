#!/bin/bash
# bench/trace-wake.sh: the wake-up latency of a periodic SCHED_DEADLINE
# thread, measured by the kernel's own tracepoints, whatever the program
# running it reports (experiment 2 of make bench, bench/README).
#
#   trace-wake.sh COMM JOBS.CSV -- COMMAND [ARG...]
#   trace-wake.sh --summary JOBS.CSV
#
# The first form runs COMMAND (its exit status is returned) while a tracefs
# instance of this script's own records, for the threads named COMM (or,
# with COMM "*", for every SCHED_DEADLINE thread, whatever its name):
#   timer:hrtimer_start         the timer a thread arms before it blocks:
#                               hrtimer_wakeup (clock_nanosleep) or the
#                               deadline timer dl_task_timer (throttled by
#                               sched_yield() until the next period)
#   timer:hrtimer_expire_entry  that timer firing (its callback begins)
#   sched:sched_switch          the thread put on and taken off a CPU
#   trace markers               the program's own, written to the
#                               instance's trace_marker once a job's code
#                               begins: COMMAND finds its path in
#                               $TRACE_MARKER, and runs in a private mount
#                               namespace where the instance is also bound
#                               over debugfs' tracing/ (so cyclicdeadline,
#                               which writes one to <debugfs>/tracing/
#                               trace_marker per job, writes it here and
#                               leaves the machine's own buffer alone)
# and writes one line per job of every SCHED_DEADLINE thread (prio -1 in
# sched_switch) to JOBS.CSV:
#   tid,timer,release_ns,fired_ns,run_ns,oncpu_ns,fired_cpu,run_cpu,job_ns,
#   cpu_ns,slices,comm
# release: the timer's programmed expiry, the instant the kernel was asked
# to make the thread runnable (the grid point a sleep loop slept to; for
# the deadline timer, the replenishment, the start of the next period);
# fired: when the timer's callback ran; run: the first sched_switch to the
# thread after that; oncpu: from there to the next switch away from it
# (the job's time on the CPU, the loop's own code included); the CPUs the
# timer fired on and the thread ran on; job: the first marker the thread
# wrote after run (empty without one); cpu: the job's whole time on a
# CPU, by the same switch events, from run to the switch away at which
# the thread blocks (its sleep: a state other than R), every slice
# summed, and slices their number (1: the job ran unpreempted, in one
# piece; a thread throttled by its runtime is in R too, and its job goes
# on after the replenishment); comm: the thread's name.  Times are
# CLOCK_MONOTONIC ns (trace clock mono, the clock both timers run on).
#
# Wake-up latency, as this script defines it for a SCHED_DEADLINE thread:
# from the release of the timer that makes it runnable to the thread on a
# CPU (run - release).  Its second half, run - fired, is the scheduler's
# share; fired - release is the timer interrupt's.  job - release adds
# the return to user space and the loop's own code until the job's code
# runs: the activation latency the job sees.  Both loops (sleep and
# yield) and any peer program are measured by the same rule, so the
# figures compare like with like, unlike the programs' own reports.
#
# The text of tracefs gives microseconds only: the buffer is read twice,
# as text (the fields) and with the raw option (nanosecond timestamps),
# and the two are joined line by line, each pair checked (same pid, CPU
# and microsecond: the text rounds to the nearest one).
#
# The second form prints: jobs, median and p99 of run - release, median and
# p99 of run - fired, median of oncpu, all in microseconds, the share of
# jobs whose timer fired on another CPU than the one the thread ran on,
# the number of jobs with a marker, and median and p99 of job - release.
#
# Needs root and tracefs.  The instance is removed on every exit.
set -u
export LC_ALL=C

summary() {
	awk -F, 'NR > 1 {
		n++; a[n] = ($5 - $3) / 1e3; b[n] = ($5 - $4) / 1e3
		if ($6 != "") c[++m] = $6 / 1e3
		if ($7 != $8) x++
		if ($9 != "") d[++k] = ($9 - $3) / 1e3
	}
	function sort(v, k,   i, j, t) {
		for (i = 2; i <= k; i++) {
			t = v[i]
			for (j = i - 1; j > 0 && v[j] > t; j--)
				v[j + 1] = v[j]
			v[j + 1] = t
		}
	}
	function pct(v, k, p,   r) { # nearest rank
		if (k == 0) return "nan"
		r = int((k * p + 99) / 100)
		return v[r ? r : 1]
	}
	END {
		sort(a, n); sort(b, n); sort(c, m); sort(d, k)
		printf "%d %.1f %.1f %.1f %.1f %.1f %.2f %d %.1f %.1f\n", n, pct(a, n, 50), pct(a, n, 99),
			pct(b, n, 50), pct(b, n, 99), pct(c, m, 50), n ? x / n : 0,
			k, pct(d, k, 50), pct(d, k, 99)
	}' "$1"
}

if [ "${1:-}" = --summary ]; then
	[ -r "${2:-}" ] || { echo "trace-wake: no jobs file" >&2; exit 2; }
	summary "$2"
	exit 0
fi
if [ $# -lt 4 ] || [ "$3" != -- ]; then
	echo "usage: trace-wake.sh COMM JOBS.CSV -- COMMAND [ARG...] | --summary JOBS.CSV" >&2
	exit 2
fi
comm=$1 jobs=$2
shift 3

tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && { tracefs=$d; break; }
done
[ -n "$tracefs" ] || { echo "trace-wake: no tracefs (mount -t tracefs nodev /sys/kernel/tracing)" >&2; exit 1; }
inst=$tracefs/instances/libdl-wake.$$
tmp=$(mktemp -d /tmp/libdl-trace-wake.XXXXXX) || exit 1
cleanup() {
	[ -d "$inst" ] && { echo 0 >"$inst/events/enable"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The timer functions by address: hrtimer_expire_entry fires in interrupt
# context, in whatever task, so it is filtered by what it runs.
sym() { awk -v s="$1" '$3 == s {print $1; exit}' /proc/kallsyms; }
a_dl=$(sym dl_task_timer) a_wake=$(sym hrtimer_wakeup)
mkdir "$inst" || { echo "trace-wake: cannot make $inst" >&2; exit 1; }
ev=$inst/events
if ! { echo mono >"$inst/trace_clock" &&
	echo 4096 >"$inst/buffer_size_kb" &&
	if [ "$comm" = "*" ]; then
		echo "prev_prio == -1 || next_prio == -1" >"$ev/sched/sched_switch/filter"
	else
		echo "comm == \"$comm\"" >"$ev/timer/hrtimer_start/filter" &&
			echo "next_comm == \"$comm\" || prev_comm == \"$comm\"" >"$ev/sched/sched_switch/filter"
	fi &&
	echo 1 >"$ev/timer/hrtimer_start/enable" &&
	echo 1 >"$ev/timer/hrtimer_expire_entry/enable" &&
	echo 1 >"$ev/sched/sched_switch/enable"; }; then
	echo "trace-wake: cannot set up $inst" >&2
	exit 1
fi
# Without the addresses (no kallsyms) every expiry is kept: more to read.
[ -n "$a_dl" ] && [ -n "$a_wake" ] &&
	echo "function == 0x$a_dl || function == 0x$a_wake" >"$ev/timer/hrtimer_expire_entry/filter" &&
	if [ "$comm" = "*" ]; then
		# Any thread's timers: only the two kinds, by what they run.
		echo "function == 0x$a_dl || function == 0x$a_wake" >"$ev/timer/hrtimer_start/filter"
	fi

# The private mount namespace: the instance over debugfs' tracing/ for
# programs that find their trace_marker there.  Without unshare(1), or
# when the bind fails, the command runs as it is (its markers, if any,
# go to the machine's buffer and the job column stays empty).
# (The bind hides $inst's own path inside: there it is $dbg/tracing.)
dbg=$(awk '$3 == "debugfs" {print $2; exit}' /proc/mounts)
if [ -n "$dbg" ] && [ -d "$dbg/tracing" ] && command -v unshare >/dev/null &&
	unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2/tracing" || exit 126
		export TRACE_MARKER="$2/tracing/trace_marker"; shift 2; exec "$@"' sh "$inst" "$dbg" "$@"
else
	TRACE_MARKER=$inst/trace_marker "$@"
fi
rc=$?

echo 0 >"$ev/enable"
read -r held written < <(sed -n 's/.*entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$inst/trace")
[ "${held:-0}" = "${written:-0}" ] || echo "trace-wake: the buffer lost $((written - held)) of $written events" >&2
grep -v '^#' "$inst/trace" >"$tmp/text"
echo raw >"$inst/trace_options"
grep -v '^#' "$inst/trace" >"$tmp/raw"

# Raw lines: "pid cpu ts_ns type: N"; text lines: "comm-pid [cpu] flags
# s.us: event: fields".  Joined with a tab.
paste "$tmp/raw" "$tmp/text" | awk -F'\t' -v out="$jobs" '
	function field(name,   i) {
		for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
		return ""
	}
	# A job is printed once the thread blocks (or at its next job, or the end).
	function close_job(p) {
		print line_of[p] oncpu[p] "," cpus[p] "," job[p] "," used[p] "," slices[p] "," name[p] >out
		delete acc[p]; delete job[p]; delete oncpu[p]
	}
	BEGIN { print "tid,timer,release_ns,fired_ns,run_ns,oncpu_ns,fired_cpu,run_cpu,job_ns,cpu_ns,slices,comm" >out }
	{
		split($1, r, " "); pid = r[1]; cpu = r[2]; ts = r[3]
		line = $2
		if (!match(line, /-[0-9]+ +\[[0-9]+\]/)) { bad++; next }
		tpid = substr(line, RSTART + 1); sub(/ .*/, "", tpid)
		tcpu = substr(line, RSTART); sub(/^[^[]*\[/, "", tcpu); sub(/\].*/, "", tcpu)
		match(line, /[0-9]+\.[0-9]+: /); us = substr(line, RSTART, RLENGTH - 2); sub(/\./, "", us)
		if (tpid + 0 != pid + 0 || tcpu + 0 != cpu + 0 || (us - ts / 1000 > 1 || ts / 1000 - us > 1)) { bad++; next }
		n = split(line, f, " ")
		for (i = 1; i <= n; i++) if (f[i] ~ /^(hrtimer_start|hrtimer_expire_entry|sched_switch|tracing_mark_write):$/) break
		ev = f[i]; sub(/:$/, "", ev)
		$0 = ""; for (j = i + 1; j <= n; j++) $(j - i) = f[j]
		if (ev == "tracing_mark_write") {
			if (pid in acc && !(pid in job)) job[pid] = ts
		} else if (ev == "hrtimer_start") {
			fn = field("function")
			if (fn != "dl_task_timer" && fn != "hrtimer_wakeup") next
			t = field("hrtimer"); armed[t] = pid; expires[t] = field("expires"); kind[t] = fn
		} else if (ev == "hrtimer_expire_entry") {
			t = field("hrtimer")
			if (!(t in armed)) next
			p = armed[t]; delete armed[t]
			if (!(p in fired)) { fired[p] = ts; release[p] = expires[t]; timer[p] = kind[t]; fcpu[p] = cpu + 0 }
		} else {
			if (field("prev_prio") + 0 == -1 && (p = field("prev_pid")) in on) {
				used[p] += ts - on[p]; slices[p]++; delete on[p]
				if (!(p in oncpu)) oncpu[p] = ts - start[p]
				if (field("prev_state") !~ /^R/) close_job(p)
			}
			if (field("next_prio") + 0 == -1 && (p = field("next_pid")) in fired) {
				if (p in acc) close_job(p)
				line_of[p] = p "," timer[p] "," release[p] "," fired[p] "," ts ","
				acc[p] = 1; on[p] = ts; start[p] = ts; used[p] = 0; slices[p] = 0
				cpus[p] = fcpu[p] "," cpu + 0; name[p] = field("next_comm")
				delete fired[p]
			} else if (field("next_prio") + 0 == -1 && (p = field("next_pid")) in acc)
				on[p] = ts
		}
	}
	END {
		for (p in acc) close_job(p)
		if (bad) printf "trace-wake: %d trace lines did not pair up (skipped)\n", bad >"/dev/stderr"
	}'
exit $rc
