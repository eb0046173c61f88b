/*
 * admit.c: the kernel's admission rule, written once: would the kernel
 * admit a deadline request of a thread, now?  Nothing is changed.
 *
 * The checks of __sched_setscheduler() (kernel/sched/syscalls.c) and
 * sched_dl_overflow() (kernel/sched/deadline.c), in their order, on the
 * figures of the root domain of the CPU the thread is on:
 *   1. CAP_SYS_NICE (EPERM);
 *   2. with bandwidth control on (dl_bandwidth_enabled(): not
 *      sched_rt_runtime_us = -1), the affinity must cover the root domain
 *      and the root domain must have bandwidth (EPERM);
 *   3. a request of the bandwidth already held passes; else
 *      __dl_overflow(): total_bw - old + new <= capacity (EBUSY).
 * The parameters' own rules (EINVAL) are dl_params_check()'s, before.
 * dl_predict() and dl_explain() (explain.c) render what this finds.
 */
#include <errno.h>
#include <string.h>

#include "bw/bw.h"

int dl_admit(pid_t tid, uint64_t need, uint64_t old, struct dl_admission *a)
{
	int err;

	memset(a, 0, sizeof(*a));
	a->cpu = -1;
	a->need = need;
	a->old = old;
	if (dl_have_cap_sys_nice() == 0) {
		a->step = DL_ADMIT_NO_CAP;
		return 0;
	}
	a->cpu = dl_task_cpu(tid);
	if (a->cpu < 0)
		return dl_fail(-ESRCH, "no thread %d", (int)tid);
	err = dl_rd_of_cpu(a->cpu, &a->rd);
	if (err)
		return err;
	a->have_affinity = dl_task_affinity(tid, &a->affinity) == 0;
	dl_admit_decide(a);
	return 0;
}

void dl_admit_decide(struct dl_admission *a)
{
	if (a->rd.unlimited)
		a->step = DL_ADMIT_OK;
	else if (a->have_affinity && !dl_cpus_subset(&a->rd.cpus, &a->affinity))
		a->step = DL_ADMIT_AFFINITY;
	else if (a->rd.cpu_bw == 0)
		a->step = DL_ADMIT_NO_BW;
	else if (a->old && a->need == a->old)
		a->step = DL_ADMIT_OK;
	else
		a->step = dl_bw_overflow(&a->rd, a->old, a->need) ? DL_ADMIT_OVERFLOW : DL_ADMIT_OK;
}
