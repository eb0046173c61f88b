/*
 * drift.c: find the kernel's deadline accounting drift, and wait for
 * exited tasks' bandwidth to settle (rebuild.c repairs it).
 *
 * Two kernel bugs leave a root domain's dl_bw->total_bw wrong (seen on
 * 6.1 and 6.18; libdeadline(3), BUGS): a root-domain rebuild within about
 * a millisecond of a deadline task's exit subtracts the exited task from
 * the new root domain, and short-lived deadline processes launched back
 * to back sometimes lose one task's bandwidth each.  A count too low
 * wraps the kernel's unsigned sum: every later request fails with EBUSY.
 *
 * The right figure is the fair servers plus the live deadline tasks.  A
 * count above it is normal for a while: an exited task keeps its
 * bandwidth until its 0-lag time, at most one period later.
 *
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw/bw.h"

#define SETTLE_POLL_NS 50000000ULL

/* Whether the kernel's figures read before a listing's scan of the tasks
 * (kbefore: bw then total_bw per CPU, and the root domains' spans) are
 * the ones the listing read after it. */
static bool unchanged(const int64_t *kbefore, const dl_cpus_t *spans, size_t nspans,
		      const struct dl_rd *r, size_t n)
{
	if (nspans != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int c = dl_cpus_first(&r[i].cpus);

		if (!dl_cpus_equal(&spans[i], &r[i].cpus) || c < 0 ||
		    (r[i].from_kernel && kbefore[DL_CPUS_MAX + c] != r[i].total_bw))
			return false;
	}
	return true;
}

/*
 * A listing that no admission or exit raced: the kernel's figures are
 * the same just before the scan of the tasks and just after it (the
 * listing reads them after).  Every change to the set of deadline tasks
 * changes total_bw at once (admission, setattr, a move between root
 * domains, a 0-lag release), but for an exit, whose bandwidth stays
 * until its 0-lag time: that shows as a count above the live tasks,
 * which the callers treat as settling, never as drift.  One scan of
 * /proc instead of the two an earlier version compared.
 */
static int consistent_list(struct dl_rd **out, size_t *count)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		dl_cpus_t *spans = NULL;
		size_t nspans = 0, n;
		int64_t *kbefore = dl_kernel_bw_read();
		struct dl_rd *r;
		bool same;
		int err;

		if (kbefore && dl_rd_spans(&spans, &nspans) < 0)
			nspans = 0;
		err = dl_rd_list(&r, &n);
		if (err < 0) {
			free(kbefore);
			free(spans);
			return err;
		}
		/* Without the kernel's figures there is nothing to race. */
		same = !kbefore || unchanged(kbefore, spans, nspans, r, n);
		free(kbefore);
		free(spans);
		if (same || attempt == 4) {
			*out = r;
			*count = n;
			return 0;
		}
		free(r);
	}
	return -EAGAIN;
}

/*
 * True when the kernel's own figures alone show every root domain's
 * count at most its fair servers: then no exited task can hold
 * bandwidth (it would be counted in total_bw), whatever the live tasks
 * are, and the scan of every thread in /proc that tells the live tasks'
 * share (most of a dl-part create or destroy's time on a busy host) is
 * not needed.  One read of sched/debug and a walk of the cpusets.
 */
static bool nothing_reserved(void)
{
	dl_cpus_t *spans = NULL;
	int64_t *kbw = dl_kernel_bw_read();
	size_t n = 0;
	bool quiet = kbw != NULL && dl_rd_spans(&spans, &n) == 0 && n > 0;

	for (size_t i = 0; quiet && i < n; i++) {
		struct dl_rd rd;

		dl_rd_fill(&rd, &spans[i], NULL, 0, kbw, kbw + DL_CPUS_MAX);
		quiet = rd.from_kernel && rd.total_bw <= (int64_t)rd.fair_bw;
	}
	free(spans);
	free(kbw);
	return quiet;
}

/*
 * Wait until no exited deadline task still holds bandwidth: every root
 * domain's count at most its live tasks' (an exit's bandwidth goes at the
 * task's 0-lag time).  A rebuild before that is what corrupts the count.
 * Returns 0, or -ETIMEDOUT; without the kernel's figures it only pauses.
 */
int dl_wait_quiet(unsigned int timeout_ms)
{
	uint64_t until = dl_now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	if (nothing_reserved())
		return 0;
	for (;;) {
		struct dl_rd *rds = NULL;
		size_t n = 0;
		bool busy = false;

		if (consistent_list(&rds, &n) < 0 || (n && !rds[0].from_kernel)) {
			free(rds);
			dl_sleep_ns(SETTLE_POLL_NS);
			return 0;
		}
		for (size_t i = 0; i < n; i++)
			busy |= dl_bw_verdict(&rds[i], false) == DL_DRIFT_SETTLING;
		free(rds);
		if (!busy)
			return 0;
		if (dl_now_ns() >= until)
			return -ETIMEDOUT;
		dl_sleep_ns(SETTLE_POLL_NS / 5);
	}
}

DL_EXPORT int dl_drift_check(unsigned int settle_ms, struct dl_drift **drifts, size_t *count)
{
	uint64_t until = dl_now_ns() + (uint64_t)settle_ms * 1000000ULL;
	struct dl_drift *v = NULL;
	size_t n = 0;

	if (drifts)
		*drifts = NULL;
	if (count)
		*count = 0;
	for (;;) {
		struct dl_rd *rds;
		size_t nrd;
		bool settling = false, late = dl_now_ns() >= until;
		int err = consistent_list(&rds, &nrd);

		if (err < 0)
			return err;
		if (nrd && !rds[0].from_kernel) {
			free(rds);
			return dl_fail(-EACCES, "cannot read the kernel's deadline figures in %s/sched/debug: run as root with debugfs mounted",
				       "/sys/kernel/debug");
		}
		free(v);
		v = calloc(nrd ? nrd : 1, sizeof(*v));
		if (!v) {
			free(rds);
			return dl_fail(-ENOMEM, "out of memory");
		}
		n = 0;
		for (size_t i = 0; i < nrd; i++) {
			int verdict = dl_bw_verdict(&rds[i], late);

			settling |= verdict == DL_DRIFT_SETTLING;
			if (verdict != DL_DRIFT_YES)
				continue;
			v[n].cpus = rds[i].cpus;
			v[n].kernel_bw = rds[i].total_bw;
			v[n].expected_bw = dl_rd_expected(&rds[i]);
			n++;
		}
		free(rds);
		if (!settling)
			break;
		dl_sleep_ns(SETTLE_POLL_NS);
	}
	if (drifts)
		*drifts = v;
	else
		free(v);
	if (count)
		*count = n;
	return (int)n;
}
