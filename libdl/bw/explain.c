/*
 * explain.c: why the kernel refused a reservation (dl_explain), or
 * would (dl_predict), in words a user can act on: both render the one
 * admission rule of admit.c.
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

#include "bw/bw.h"

/* The EPERM steps of the rule, in words. */
static void eperm_text(pid_t tid, const struct dl_admission *a, char *buf, size_t len)
{
	char aff[DL_CPUS_STRLEN], span[DL_CPUS_STRLEN];
	struct dl_rd there;
	int first = dl_cpus_first(&a->affinity);

	switch (a->step) {
	case DL_ADMIT_NO_CAP:
		snprintf(buf, len, "permission denied: SCHED_DEADLINE needs the CAP_SYS_NICE capability; run as root, or give the program the capability (setcap cap_sys_nice+ep)");
		return;
	case DL_ADMIT_AFFINITY:
		/* Outside its CPUs, which would cover the root domain it is
		 * bound for: it has not moved there yet. */
		if (!dl_cpus_isset(&a->affinity, a->cpu) && first >= 0 &&
		    dl_rd_of_cpu(first, &there) == 0 && dl_cpus_subset(&there.cpus, &a->affinity)) {
			snprintf(buf, len, "permission denied: thread %d is asleep on CPU %d, outside the CPUs it may now use (%s): the kernel admits it into the root domain of the CPU it is on, and a sleeping thread moves only when it wakes; set the reservation once it has run (or start it where it belongs: dl_part_set(3) before the thread sleeps)",
				 (int)tid, a->cpu, dl_cpus_format(&a->affinity, aff, sizeof(aff)));
			return;
		}
		snprintf(buf, len, "permission denied: the task's CPU affinity (CPUs %s) does not cover its root domain (CPUs %s); a deadline task must be allowed on every CPU of its root domain: instead of narrowing its affinity, put it in a partition of the CPUs it should use (a layout with a partition of CPUs %s: dl_layout_create(3), then dl_part_set(3))",
			 dl_cpus_format(&a->affinity, aff, sizeof(aff)),
			 dl_cpus_format(&a->rd.cpus, span, sizeof(span)),
			 dl_cpus_format(&a->affinity, aff, sizeof(aff)));
		return;
	case DL_ADMIT_NO_BW:
		snprintf(buf, len, "permission denied: the root domain of CPUs %s has no deadline bandwidth (kernel.sched_rt_runtime_us is 0)",
			 dl_cpus_format(&a->rd.cpus, span, sizeof(span)));
		return;
	default:
		snprintf(buf, len, "permission denied by the kernel although CAP_SYS_NICE is held (a security module, or a user namespace without the capability on the host, may forbid it)");
	}
}

static void explain_eperm(pid_t tid, char *buf, size_t len)
{
	struct dl_admission a;

	if (dl_admit(tid, 0, 0, &a) < 0)
		a.step = DL_ADMIT_OK; /* nothing known: the last cause */
	eperm_text(tid, &a, buf, len);
}

static void explain_ebusy(pid_t tid, const struct dl_params *p, char *buf, size_t len)
{
	char need_s[DL_BW_STRLEN], used_s[DL_BW_STRLEN], rdt[768];
	struct dl_params cur;
	struct dl_admission a;
	uint64_t need = p ? dl_params_bw(p) : 0, oldbw = 0;
	int n;

	/* A change of a running reservation frees the old one first. */
	if (dl_get(tid, &cur) == DL_SCHED_DEADLINE)
		oldbw = dl_params_bw(&cur);
	if (dl_admit(tid, need, oldbw, &a) < 0 || a.step == DL_ADMIT_NO_CAP) {
		snprintf(buf, len, "admission refused: the root domain's deadline bandwidth is used up");
		return;
	}
	a.rd.free_bw += (int64_t)oldbw;
	n = snprintf(buf, len, "admission refused: the reservation needs %s of a CPU but the %s",
		     dl_bw_format((int64_t)need, need_s, sizeof(need_s)),
		     dl_rd_text(&a.rd, rdt, sizeof(rdt)));
	if (n < 0 || (size_t)n >= len)
		return;
	/* The kernel's count below what the live tasks hold is drift
	 * (libdeadline(3), BUGS); above it may be tasks that exited and
	 * keep their bandwidth until their 0-lag time. */
	if (dl_bw_verdict(&a.rd, false) == DL_DRIFT_YES) {
		snprintf(buf + n, len - (size_t)n,
			 "; the kernel counts %s less than its live tasks hold: its accounting has drifted, call dl_rd_rebuild(3)",
			 dl_bw_format(dl_rd_expected(&a.rd) - a.rd.total_bw, used_s, sizeof(used_s)));
		return;
	}
	snprintf(buf + n, len - (size_t)n,
		 "; ask for less (a shorter runtime or a longer period), stop another deadline task, or give this one a partition of its own (dl_layout_create(3))");
}

DL_EXPORT int dl_explain(int err, pid_t tid, const struct dl_params *p, char *buf, size_t len)
{
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN], c[DL_TIME_STRLEN];

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
		snprintf(buf, len, "this kernel has no utilization clamping (it needs CONFIG_UCLAMP_TASK): drop util_min and util_max");
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

/* The threads the request covers, and the bandwidth they hold now. */
int dl_threads_bw(pid_t pid, bool all, uint64_t *n, uint64_t *old)
{
	pid_t *tids;
	size_t count;
	int err;

	*n = 0;
	*old = 0;
	if (!all) {
		struct dl_params cur;
		int pol = dl_get(pid, &cur);

		if (pol < 0)
			return pol;
		*n = 1;
		if (pol == DL_SCHED_DEADLINE)
			*old = dl_params_bw(&cur);
		return 0;
	}
	err = dl_threads_list(pid, &tids, &count);
	if (err == -ESRCH)
		return dl_fail(err, "no process %d", (int)pid);
	if (err)
		return dl_fail(err, "out of memory");
	for (size_t i = 0; i < count; i++) {
		struct dl_params cur;
		int pol = dl_get(tids[i], &cur);

		if (pol < 0)
			continue; /* exited */
		(*n)++;
		if (pol == DL_SCHED_DEADLINE)
			*old += dl_params_bw(&cur);
	}
	free(tids);
	return 0;
}

int dl_verdict_begin(struct dl_verdict *v, const struct dl_params *p, struct dl_params *norm, char *why,
		     size_t len)
{
	memset(v, 0, sizeof(*v));
	v->cpu = -1;
	if (dl_params_normalize(p, norm) < 0) {
		snprintf(why, len, "%s", dl_errmsg());
		v->step = DL_VERDICT_INVALID;
		return 0;
	}
	return 1;
}

DL_EXPORT int dl_predict_verdict(pid_t pid, bool all_threads, const struct dl_params *p,
				 struct dl_verdict *v, char *why, size_t len)
{
	struct dl_verdict local;
	struct dl_admission a;
	struct dl_params norm;
	uint64_t n, old;
	int err;

	if (!why || len == 0) {
		char scratch[1024];

		/* No reason wanted: the verdict alone. */
		return dl_predict_verdict(pid, all_threads, p, v, scratch, sizeof(scratch));
	}
	err = dl_verdict_begin(v ? v : (v = &local), p, &norm, why, len);
	if (err <= 0)
		return err;
	if (pid == 0)
		pid = gettid();
	err = dl_threads_bw(pid, all_threads, &n, &old);
	if (err)
		return err;
	err = dl_admit(pid, n * dl_params_bw(&norm), old, &a);
	if (err)
		return err;
	a.cap_need = dl_cap_need(&norm);
	return dl_verdict_render(pid, n, &a, v, why, len);
}

/*
 * An admitted request on CPUs of different capacity: the admission sums
 * the capacities, but a CPU runs the task in time only if its capacity
 * fits the task's runtime/deadline (dl_task_fits_capacity()).  The
 * kernel looks at that when the task wakes, and moves it only to a CPU
 * that fits and is free of deadline work: on Debian 13's 6.12 a task
 * that fit only the big CPU of a root domain of one big and one little
 * CPU woke on the little one every time (tests/vm/arm64).  Said after
 * the verdict, with the partition that would fit it.
 */
static void fit_text(const struct dl_admission *a, char *buf, size_t len)
{
	char fit_s[DL_CPUS_STRLEN], dens[DL_BW_STRLEN];
	dl_cpus_t fit;

	if (!a->cap_need || a->cap_need <= a->rd.cap_min)
		return;
	dl_bw_format((int64_t)a->cap_need << (DL_BW_SHIFT - 10), dens, sizeof(dens));
	if (a->cap_need > a->rd.cap_max) {
		snprintf(buf, len, "; but it fits no CPU there: its runtime/deadline is %s of a full CPU, so it needs a CPU of capacity %u and the biggest there has %u: the kernel admits it and it misses its deadlines; give it a longer deadline or a shorter runtime, or a partition of bigger CPUs",
			 dens, a->cap_need, a->rd.cap_max);
		return;
	}
	dl_cpus_fitting(&a->rd.cpus, a->cap_need, &fit);
	dl_cpus_format(&fit, fit_s, sizeof(fit_s));
	snprintf(buf, len, "; but it fits only CPUs %s there (capacity %u or more; its runtime/deadline is %s of a full CPU): the kernel moves it to one of those only when one is free of deadline work as it wakes, and on a smaller CPU (capacity %u) it may finish late; for a CPU that fits it always, give it a partition of CPUs %s",
		 fit_s, a->cap_need, dens, a->rd.cap_min, fit_s);
}

int dl_verdict_render(pid_t pid, uint64_t n, const struct dl_admission *ap, struct dl_verdict *v,
		      char *why, size_t len)
{
	char need_s[DL_BW_STRLEN], old_s[64], rdt[768], corrupt[256] = "";
	struct dl_admission a = *ap;
	int said;
	uint64_t old = a.old;

	v->cpu = a.cpu;
	v->threads = (uint32_t)n;
	v->need = a.need;
	v->old = old;
	v->rd = a.rd;
	v->cap_need = a.cap_need;
	v->drift = dl_bw_verdict(&a.rd, false);
	switch (a.step) {
	case DL_ADMIT_NO_CAP:
		v->step = DL_VERDICT_NO_CAP;
		break;
	case DL_ADMIT_AFFINITY:
		v->step = DL_VERDICT_AFFINITY;
		break;
	case DL_ADMIT_NO_BW:
		v->step = DL_VERDICT_NO_BW;
		break;
	case DL_ADMIT_OVERFLOW:
		v->step = DL_VERDICT_OVERFLOW;
		break;
	default:
		v->step = DL_VERDICT_ADMITTED;
		v->admitted = 1;
	}
	if (a.step == DL_ADMIT_NO_CAP || a.step == DL_ADMIT_AFFINITY || a.step == DL_ADMIT_NO_BW) {
		eperm_text(pid, &a, why, len);
		return 0;
	}
	if (a.rd.unlimited) {
		snprintf(why, len, "admitted: kernel.sched_rt_runtime_us is -1, the kernel tests no bandwidth");
		return 1;
	}
	dl_bw_format((int64_t)a.need, need_s, sizeof(need_s));
	dl_rd_text(&a.rd, rdt, sizeof(rdt));
	old_s[0] = '\0';
	if (old) {
		char held[DL_BW_STRLEN];

		snprintf(old_s, sizeof(old_s), ", %s of it held already",
			 dl_bw_format((int64_t)old, held, sizeof(held)));
	}
	if (v->drift == DL_DRIFT_YES) {
		char tb[DL_BW_STRLEN], eb[DL_BW_STRLEN];

		snprintf(corrupt, sizeof(corrupt),
			 "; the kernel's count is corrupt (total_bw %s, below the %s its fair servers and live tasks hold): rebuild the root domains to repair it (dl_rd_rebuild(3))",
			 dl_bw_format(a.rd.total_bw, tb, sizeof(tb)), dl_bw_format(dl_rd_expected(&a.rd), eb, sizeof(eb)));
	}
	if (a.step == DL_ADMIT_OVERFLOW) {
		snprintf(why, len, "refused: it needs %s of a CPU%s%s, but the %s%s",
			 need_s, n > 1 ? " (all threads)" : "", old_s, rdt, corrupt);
		return 0;
	}
	if (corrupt[0]) {
		snprintf(why, len, "admitted, wrongly: it needs %s of a CPU%s%s; the %s%s",
			 need_s, n > 1 ? " (all threads)" : "", old_s, rdt, corrupt);
		return 1;
	}
	said = snprintf(why, len, "admitted: it needs %s of a CPU%s%s; the %s",
			need_s, n > 1 ? " (all threads)" : "", old_s, rdt);
	if (said >= 0 && (size_t)said < len)
		fit_text(&a, why + said, len - (size_t)said);
	return 1;
}

DL_EXPORT int dl_predict(pid_t pid, bool all_threads, const struct dl_params *p,
			 char *why, size_t len)
{
	return dl_predict_verdict(pid, all_threads, p, NULL, why, len);
}

int dl_explain_set_failure(int err, pid_t tid, const struct dl_params *p)
{
	char why[1024];

	dl_explain(err, tid, p, why, sizeof(why));
	return dl_fail(err, "%s", why);
}
