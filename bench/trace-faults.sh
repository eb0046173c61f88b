#!/bin/bash
# bench/trace-faults.sh: what a command's threads cost the kernel while it
# runs, by the kernel's tracepoints, in counts that do not depend on the
# machine's load (the evidence of bench/README, experiment 7).
#
#   trace-faults.sh OUT -- COMMAND [ARG...]
#
# Runs COMMAND (its exit status is returned) while a tracefs instance of
# this script's own records
#   exceptions:page_fault_user   a page fault taken in user space
#   sched:sched_switch           a thread put on and taken off a CPU
#   sched:sched_wakeup           a thread woken
#   sched:sched_migrate_task     a thread moved to another CPU
# for every thread of the machine, and writes OUT, one line per thread of
# COMMAND's process tree (the processes it forked and their threads):
#   pid comm dl faults rt_faults wakeups switches migrations rt_wakeups cpu_us
# dl: 1 when the thread ran under SCHED_DEADLINE (prio -1 in a
# sched_switch); faults: its page faults; rt_faults: those taken between
# its first and its last switch-in under SCHED_DEADLINE (the periodic
# phase, set-up and exit left out); wakeups: how often it was woken;
# switches: how often it left a CPU; migrations: how often it was moved;
# rt_wakeups: its wake-ups while the tree's deadline threads ran (from the
# first switch-in under SCHED_DEADLINE of any of them to the last);
# cpu_us: the time it was on a CPU under SCHED_DEADLINE, each such
# switch-in to the switch-out that follows (the kernel's timestamps,
# CLOCK_MONOTONIC), in microseconds: its jobs and their waits, its set-up
# before its reservation and its exit after it left out.
# A summary line per kind of thread follows (deadline threads, others).
#
# Needs root and tracefs.  The instance is removed on every exit.
set -u
export LC_ALL=C

[ $# -ge 3 ] && [ "$2" = -- ] || { echo "usage: trace-faults.sh OUT -- COMMAND [ARG...]" >&2; exit 2; }
out=$1
shift 2
tr=/sys/kernel/tracing
[ -e $tr/instances ] || tr=/sys/kernel/debug/tracing
[ -e $tr/instances ] || { echo "trace-faults: no tracefs (mount -t tracefs none /sys/kernel/tracing)" >&2; exit 1; }
inst=$tr/instances/libdl-faults-$$
work=$(mktemp -d /tmp/libdl-faults.XXXXXX) || exit 1
trap 'echo 0 >"$inst/tracing_on" 2>/dev/null; rmdir "$inst" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$inst" || exit 1
echo mono >"$inst/trace_clock"
echo 16384 >"$inst/buffer_size_kb"
for e in exceptions/page_fault_user sched/sched_switch sched/sched_wakeup sched/sched_migrate_task \
	sched/sched_process_fork; do
	echo 1 >"$inst/events/$e/enable" || { echo "trace-faults: no event $e" >&2; exit 1; }
done
echo 1 >"$inst/tracing_on"
# The command is this subshell's: its pid is the root of the tree.
bash -c 'echo $$ >"$1"; shift; exec "$@"' sh "$work/root" "$@"
rc=$?
echo 0 >"$inst/tracing_on"
cat "$inst/trace" >"$work/trace"
# TRACE_FAULTS_RAW=FILE keeps the instance's trace, for a closer look.
[ -n "${TRACE_FAULTS_RAW:-}" ] && cp "$work/trace" "$TRACE_FAULTS_RAW"
grep -q "LOST" "$work/trace" && echo "trace-faults: events were lost (a larger buffer_size_kb)" >&2
awk -v root="$(cat "$work/root")" '
function field(name,   i) { for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2); return "" }
BEGIN { mine[root] = 1 }
/^#/ { next }
{
	# COMM-PID [CPU] FLAGS TIME: EVENT: FIELDS (the current thread first)
	cur = ""
	for (i = 2; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { cur = $(i - 1); sub(/^.*-/, "", cur); break }
	for (e = i + 1; e <= NF; e++) if ($e ~ /^[a-z_]+:$/) break
	ev = $e
	ts = $(e - 1); sub(/:$/, "", ts)
	if (ev == "sched_process_fork:") { if (mine[field("pid")]) mine[field("child_pid")] = 1; comm[field("child_pid")] = field("child_comm"); next }
	if (ev == "page_fault_user:") { f[cur]++; at[cur] = at[cur] " " NR; next }
	if (ev == "sched_wakeup:") { w[field("pid")]++; wat[field("pid")] = wat[field("pid")] " " NR; next }
	if (ev == "sched_migrate_task:") { m[field("pid")]++; next }
	if (ev == "sched_switch:") {
		p = field("prev_pid"); s[p]++; comm[p] = field("prev_comm")
		if (p in since) { cpu[p] += ts - since[p]; delete since[p] }
		n = field("next_pid"); if (field("next_prio") == -1) since[n] = ts
		if (field("next_prio") == -1) { dl[n] = 1; if (!(n in first)) first[n] = NR; last[n] = NR }
	}
}
END {
	# The periodic phase of the whole tree: from its first switch-in
	# under SCHED_DEADLINE to its last.
	for (p in mine) if (mine[p] && (p in first)) {
		if (lo == "" || first[p] < lo) lo = first[p]
		if (last[p] > hi) hi = last[p]
	}
	for (p in mine) {
		if (!mine[p] || !(p in comm)) continue
		k = 0
		if (p in first) { c = split(at[p], v, " "); for (j = 1; j <= c; j++) if (v[j] > first[p] && v[j] < last[p]) k++ }
		rw = 0
		c = split(wat[p], v, " "); for (j = 1; j <= c; j++) if (lo != "" && v[j] > lo && v[j] < hi) rw++
		printf "%s %s %d %d %d %d %d %d %d %.0f\n", p, comm[p], dl[p] ? 1 : 0, f[p], k, w[p], s[p], m[p], rw, cpu[p] * 1e6
	}
}' "$work/trace" | sort -n >"$out"
awk '{ k = $3 ? "deadline" : "other"; n[k]++; for (i = 4; i <= 10; i++) t[k, i] += $i }
END { for (k in n) printf "# %s threads: %d, faults %d, rt_faults %d, wakeups %d, switches %d, migrations %d, rt_wakeups %d, cpu_us %d\n",
	k, n[k], t[k, 4], t[k, 5], t[k, 6], t[k, 7], t[k, 8], t[k, 9], t[k, 10] }' "$out" >>"$out"
exit $rc
