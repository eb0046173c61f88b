# dl-stat --kernel in a VM (utils/kcount.c; the host's suite is
# tests/kernel/kernel-count.sh): two threads started by dl-run, not by
# libdeadline (tests/kernel/dl-jobs), runtime 200ms, deadline 250ms,
# period 400ms, a job released every 800ms that runs 2ms of CPU; one of
# them every 5th job 300ms instead, 1.5 times its runtime and more than
# its deadline: throttled, it ends only after the replenishment, 400ms
# or more after its wake-up; were it not (a stall of the guest that let
# the runtime overshoot), 300ms of CPU would still end after its
# deadline.  Either way a miss.  The margins are for a TCG guest on a
# loaded host, whose vCPU may stall for tens of milliseconds or more (a
# stall in a job is time the guest's kernel charges it): an on-time job
# would need a stall of 198ms to run out of runtime, 248ms to end late.
# 10 jobs make exactly 2 misses, the other thread's 10 none (10 jobs
# or more: see below).  Then
# dl-stat ends (SIGTERM) and the kernel frees its programs:
# /proc/kallsyms, the kernel's list of every loaded BPF program
# (bpf_jit_kallsyms), names none of them, as it named its two (the
# switch and the task iterator that reads the records; three on 7.1+)
# while it ran.
#
# Throttles: where the kernel has the sched_dl_* tracepoints (Linux 7.1
# and later) dl-stat counts them from sched_dl_throttle_tp with a third
# program, and says so (libdl_kernel_throttle_source); before, from the
# switch-out (sched_switch) alone.  Known exactly: as many as the late
# thread had when its first job began (its start-up, slow under TCG,
# may run out of runtime) and one in each of its 2 late jobs (300ms of
# CPU for a runtime of 200ms; the rest, 100ms, after the replenishment),
# by both counts where there are two.
#
# Needs a dl-stat built with BPF and a kernel with BTF: SKIP, with the
# reason, where the build has no BPF; a kernel that refuses it fails.
# Sourced after lib.sh (its boot ends with done_testing): as a boot's
# only suite, a whole SKIP; after other checks, a check skipped.
# The boot's own build's dl-stat, or, where the boot put one there
# ("# vm-host-bin: utils/dl-stat", vm-test), this host's in /opt/host:
# built with BPF on Debian 12 and run unchanged on another kernel (CO-RE).
# The command, as the positional parameters (env execs it: one pid).
if [ -x /opt/host/dl-stat ]; then
	set -- env LD_LIBRARY_PATH=/opt/host /opt/host/dl-stat
	note "this host's dl-stat (/opt/host), on $(uname -r)"
else
	set -- /bin/dl-stat
	note "the boot's dl-stat, on $(uname -r)"
fi
why=$("$@" --kernel --watch 0.01 -n 1 -t 2>&1 >/dev/null)
case $why in
*"built without BPF"*)
	if [ "${n:-0}" = 0 ]; then
		echo "1..0 # SKIP ${why#*: --kernel: }"
		exit 0
	fi
	ok "dl-stat --kernel # SKIP ${why#*: --kernel: }"
	return 0
	;;
esac
# The tracepoints: Linux 7.1 and later, as their version says.
kv=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
case $kv in
[0-6]" "* | "7 0") thr_src=sched_switch progs=2 ;;
*) thr_src=sched_dl_throttle_tp progs=3 ;;
esac

ksyms() { grep -c '_libdl_kc_' /proc/kallsyms; }
jk=/proc/sys/net/core/bpf_jit_kallsyms
jk_was=$(cat "$jk" 2>/dev/null)
[ "$jk_was" = 0 ] && echo 1 >"$jk"
check "no program of dl-stat --kernel loaded before it starts" eq "$(ksyms)" 0

"$@" --kernel --watch 0.5 -t --prometheus --pid-labels --output /tmp/kc.prom 2>/tmp/kc.err &
counter=$!
i=0
while [ "$i" -lt 300 ] && ! [ -s /tmp/kc.prom ] && kill -0 "$counter" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
counting() {
	grep -qx 'libdl_kernel_counting 1' /tmp/kc.prom && return 0
	sed 's/^/# /' /tmp/kc.err
	return 1
}
check "dl-stat --kernel counts here: libdl_kernel_counting 1" counting
check "its $progs programs are in /proc/kallsyms while it runs (a third for sched_dl_throttle_tp from 7.1)" eq "$(ksyms)" "$progs"
check "the throttles counted from $thr_src on $(uname -r): libdl_kernel_throttle_source{tracepoint=\"$thr_src\"} 1" \
	grep -qx "libdl_kernel_throttle_source{tracepoint=\"$thr_src\"} 1" /tmp/kc.prom

/bin/dl-run -r 200ms -d 250ms -p 400ms -- /bin/dl-jobs 10 5 2000 300000 800000 250000 >/tmp/late.out &
late=$!
/bin/dl-run -r 200ms -d 250ms -p 400ms -- /bin/dl-jobs 10 0 2000 0 800000 250000 >/tmp/never.out &
never=$!
# The late thread's throttles before its first job (released a period,
# 800ms, after its "start"; the first late one 4s after): a refresh
# written after its start, before that job.
i=0
while [ "$i" -lt 300 ] && ! grep -qs 'start' /tmp/late.out; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.7
cp /tmp/kc.prom /tmp/kc.start
i=0
while [ "$i" -lt 300 ] && ! { grep -qs 'done' /tmp/late.out && grep -qs 'done' /tmp/never.out; }; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1.5 # a refresh after the last job
cp /tmp/kc.prom /tmp/kc.now
pm() { # pm METRIC TID [FILE]: the kernel's sample of thread TID
	grep "^$1{.*tid=\"$2\",source=\"kernel\"" "${3:-/tmp/kc.now}" | awk '{ print $NF }'
}
# Jobs: 10 or more.  Each wake-up from a sleep is one, and any block
# ends one (dl-stat(1)): a wait in the kernel, for a lock (a sleeping
# lock on PREEMPT_RT: seen on 6.12-rt, a job more in each thread) or a
# page, adds a job, never a miss.  The misses are exact.
late_j=$(pm libdl_task_jobs_total "$late")
late_m=$(pm libdl_task_deadline_misses_total "$late")
late_thr=$(pm libdl_task_overruns_total "$late")
thr_start=$(pm libdl_task_overruns_total "$late" /tmp/kc.start)
# The inferred count beside the tracepoint's, where that counts.
if [ "$thr_src" = sched_switch ]; then
	late_inf=$late_thr
else
	late_inf=$(pm libdl_task_throttles_inferred_total "$late")
fi
never_j=$(pm libdl_task_jobs_total "$never")
never_m=$(pm libdl_task_deadline_misses_total "$never")
never_thr=$(pm libdl_task_overruns_total "$never")
note "jobs, misses, throttles: ${late_j:-?} ${late_m:-?} ${late_thr:-?} of the late thread (${thr_start:-?} at its start, ${late_inf:-?} inferred), ${never_j:-?} ${never_m:-?} ${never_thr:-?} of the other"
late_ok() {
	[ "${late_j:-0}" -ge 10 ] && [ "$late_m" = 2 ] && return 0
	grep 'source="kernel"' /tmp/kc.now | sed 's/^/# /'
	return 1
}
check "the thread that overruns every 5th job: exactly 2 misses (of ${late_j:-no} jobs, 10 or more)" late_ok
thr_ok() {
	[ -n "$thr_start" ] && [ "$late_thr" = $((thr_start + 2)) ] && [ "$late_inf" = "$late_thr" ] && return 0
	grep 'source="kernel"' /tmp/kc.start /tmp/kc.now | grep -e overruns -e throttles | sed 's/^/# /'
	return 1
}
check "its throttles from $thr_src: one in each late job, ${late_thr:-no} = ${thr_start:-?} at its start + 2, as many inferred at the switch-out (${late_inf:-no})" thr_ok
never_ok() { [ "${never_j:-0}" -ge 10 ] && [ "$never_m" = 0 ]; }
check "the thread that never overruns: 0 misses (of ${never_j:-no} jobs, 10 or more)" never_ok
kill "$late" "$never" 2>/dev/null

kill -TERM "$counter"
wait "$counter"
i=0
while [ "$i" -lt 50 ] && [ "$(ksyms)" != 0 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "after SIGTERM: none of its programs left in /proc/kallsyms" eq "$(ksyms)" 0
[ "$jk_was" = 0 ] && echo 0 >"$jk"
wait 2>/dev/null
