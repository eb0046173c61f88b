/*
 * explain.c: why the kernel refused a reservation, in words a user can
 * act on.
 *
 * The kernel answers sched_setattr(2) with a bare errno; each has several
 * causes (kernel/sched/syscalls.c, __sched_setscheduler()):
 *   EPERM   no CAP_SYS_NICE; or the task's affinity does not cover its
 *           root domain; or that root domain has no deadline bandwidth.
 *   EBUSY   admission refused: the root domain's bandwidth is used up
 *           (sched_dl_overflow()).
 *   EINVAL  parameters (checked before the call by dl_params_check()).
 * The explanation is built from the system as it is at the moment of the
 * failure: capabilities, affinity, root domains and their bandwidth.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw.h"

static void explain_eperm(pid_t tid, char *buf, size_t len)
{
	char aff[256], span[256];
	dl_cpus_t affinity;
	struct dl_rd rd;
	int cpu;

	if (dl_have_cap_sys_nice() == 0) {
		snprintf(buf, len, "permission denied: SCHED_DEADLINE needs the CAP_SYS_NICE capability; run as root, or give the program the capability (setcap cap_sys_nice+ep)");
		return;
	}
	cpu = dl_task_cpu(tid);
	if (cpu >= 0 && dl_rd_of_cpu(cpu, &rd) == 0) {
		if (dl_task_affinity(tid, &affinity) == 0) {
			struct dl_rd there;
			int first = dl_cpus_first(&affinity);

			/* Outside its CPUs, which would cover the root domain it
			 * is bound for: it has not moved there yet. */
			if (!dl_cpus_isset(&affinity, cpu) && first >= 0 &&
			    dl_rd_of_cpu(first, &there) == 0 && dl_cpus_subset(&there.cpus, &affinity)) {
				snprintf(buf, len, "permission denied: thread %d is asleep on CPU %d, outside the CPUs it may now use (%s): the kernel admits it into the root domain of the CPU it is on, and a sleeping thread moves only when it wakes; set the reservation once it has run (or start it where it belongs: dl-run --partition NAME -- COMMAND)",
					 (int)tid, cpu, dl_cpus_format(&affinity, aff, sizeof(aff)));
				return;
			}
			if (!dl_cpus_subset(&rd.cpus, &affinity)) {
				snprintf(buf, len, "permission denied: the task's CPU affinity (CPUs %s) does not cover its root domain (CPUs %s); a deadline task must be allowed on every CPU of its root domain: instead of taskset, put it in a cpuset partition of the CPUs it should use (dl-part create --partition %s, then dl-run --partition)",
					 dl_cpus_format(&affinity, aff, sizeof(aff)),
					 dl_cpus_format(&rd.cpus, span, sizeof(span)),
					 dl_cpus_format(&affinity, aff, sizeof(aff)));
				return;
			}
		}
		if (!rd.unlimited && rd.cpu_bw == 0) {
			snprintf(buf, len, "permission denied: the root domain of CPUs %s has no deadline bandwidth (kernel.sched_rt_runtime_us is 0)",
				 dl_cpus_format(&rd.cpus, span, sizeof(span)));
			return;
		}
	}
	snprintf(buf, len, "permission denied by the kernel although CAP_SYS_NICE is held (a security module, or a user namespace without the capability on the host, may forbid it)");
}

static void explain_ebusy(pid_t tid, const struct dl_params *p, char *buf, size_t len)
{
	char need_s[32], used_s[32], rdt[768];
	struct dl_params cur;
	struct dl_rd rd;
	uint64_t need = p ? dl_params_bw(p) : 0, oldbw = 0;
	int64_t expected;
	int cpu = dl_task_cpu(tid);
	int n;

	if (cpu < 0 || dl_rd_of_cpu(cpu, &rd) < 0) {
		snprintf(buf, len, "admission refused: the root domain's deadline bandwidth is used up");
		return;
	}
	/* A change of a running reservation frees the old one first. */
	if (dl_get(tid, &cur) == DL_SCHED_DEADLINE)
		oldbw = dl_params_bw(&cur);
	rd.free_bw += (int64_t)oldbw;
	n = snprintf(buf, len, "admission refused: the reservation needs %s of a CPU but the %s",
		     dl_bw_format((int64_t)need, need_s, sizeof(need_s)),
		     dl_rd_text(&rd, rdt, sizeof(rdt)));
	if (n < 0 || (size_t)n >= len)
		return;
	/* The kernel's count below what the live tasks hold is drift
	 * (libdeadline(3), BUGS); above it may be tasks that exited and
	 * keep their bandwidth until their 0-lag time. */
	expected = (int64_t)(rd.fair_bw + rd.tasks_bw);
	if (rd.from_kernel && rd.total_bw < expected) {
		snprintf(buf + n, len - (size_t)n,
			 "; the kernel counts %s less than its live tasks hold: its accounting has drifted, run dl-part repair",
			 dl_bw_format(expected - rd.total_bw, used_s, sizeof(used_s)));
		return;
	}
	snprintf(buf + n, len - (size_t)n,
		 "; ask for less (a shorter runtime or a longer period), stop another deadline task, or give this one a partition of its own (dl-part)");
}

DL_EXPORT int dl_explain(int err, pid_t tid, const struct dl_params *p, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	if (!buf || len == 0)
		return dl_fail(-EINVAL, "no buffer for the explanation");
	if (tid == 0)
		tid = gettid();
	switch (err) {
	case -EPERM:
		explain_eperm(tid, buf, len);
		break;
	case -EBUSY:
		explain_ebusy(tid, p, buf, len);
		break;
	case -ESRCH:
		snprintf(buf, len, "no thread %d", (int)tid);
		break;
	case -EOPNOTSUPP:
		snprintf(buf, len, "this kernel has no utilization clamping (it needs CONFIG_UCLAMP_TASK): drop --util-min and --util-max");
		break;
	case -ENOSYS:
		snprintf(buf, len, "this kernel has no sched_setattr (Linux 3.14 or later is needed)");
		break;
	case -EINVAL:
		if (p && dl_params_check(p) < 0) {
			snprintf(buf, len, "%s", dl_errmsg());
			break;
		}
		if (p) {
			snprintf(buf, len, "the kernel refused runtime %s, deadline %s, period %s, flags 0x%" PRIx64 " as invalid, though they pass its documented rules",
				 dl_time_format(p->runtime, a, sizeof(a)),
				 dl_time_format(p->deadline, b, sizeof(b)),
				 dl_time_format(p->period, c, sizeof(c)), p->flags);
			break;
		}
		/* fall through */
	default:
		snprintf(buf, len, "%s", strerror(-err));
		break;
	}
	return 0;
}

int dl_explain_set_failure(int err, pid_t tid, const struct dl_params *p)
{
	char why[1024];

	dl_explain(err, tid, p, why, sizeof(why));
	return dl_fail(err, "%s", why);
}
