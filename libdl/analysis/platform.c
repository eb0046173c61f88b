/*
 * platform.c: what the analysis assumes of the machine (the CPUs, the
 * kernel's admission cap, the fair server), the kernel's admission of a
 * root domain, and the tasks as the analysis reads them.
 *
 * The admission is the kernel's __dl_overflow() arithmetic: each task's
 * bandwidth is to_ratio(period, runtime) = (runtime << 20) / period,
 * rounded down, the fair servers' likewise, and their sum must not pass
 * cpu_bw x CPUs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "bw/bw.h"

/* The fair server's defaults (kernel/sched/deadline.c, 6.12+). */
#define FAIR_RUNTIME_NS 50000000ULL
#define FAIR_PERIOD_NS 1000000000ULL

int dl_an_tasks(const struct dl_params *p, size_t n, const struct dl_params *server,
		int nserver, struct dl_an_task **out, size_t *count)
{
	struct dl_params norm;
	struct dl_an_task *ts;
	size_t total = n;

	if (n && !p)
		return dl_fail(-EINVAL, "no tasks given: the array is NULL but its count is %zu", n);
	if (server && server->runtime && nserver > 0)
		total += (size_t)nserver;
	ts = calloc(total ? total : 1, sizeof(*ts));
	if (!ts)
		return dl_fail(-ENOMEM, "out of memory for %zu tasks", total);
	for (size_t i = 0; i < total; i++) {
		const struct dl_params *src = i < n ? &p[i] : server;
		char what[48];

		/* The rules that matter to the analysis; the period limits
		 * are the kernel's business (the task set reader checks them). */
		if (i < n)
			snprintf(what, sizeof(what), "task %zu", i);
		else
			snprintf(what, sizeof(what), "the fair server");
		norm = *src;
		if (norm.deadline == 0)
			norm.deadline = norm.period;
		if (norm.period == 0)
			norm.period = norm.deadline;
		if (norm.runtime == 0 || norm.deadline == 0 || norm.runtime > norm.deadline ||
		    norm.deadline > norm.period || ((norm.runtime | norm.period) >> 63)) {
			free(ts);
			return dl_fail(-EINVAL, "%s: runtime %" PRIu64 "ns, deadline %" PRIu64 "ns, period %" PRIu64 "ns: the analysis needs 0 < runtime <= deadline <= period < 2^63 ns",
				       what, src->runtime, src->deadline, src->period);
		}
		ts[i].c = norm.runtime;
		ts[i].d = norm.deadline;
		ts[i].t = norm.period;
	}
	*out = ts;
	*count = total;
	return 0;
}

uint64_t dl_an_bw(const struct dl_an_task *t)
{
	return dl_to_ratio(t->t, t->c);
}

/* The root domain ncpus CPUs of the platform would make, holding the
 * tasks: the figures dl_rd_fill() reads from a real one, so that the
 * kernel's arithmetic (bw.c) judges both. */
void dl_an_rd(const struct dl_platform *pf, const struct dl_an_task *ts, size_t n, int ncpus,
	      struct dl_rd *rd)
{
	memset(rd, 0, sizeof(*rd));
	rd->ncpus = ncpus;
	rd->unlimited = pf->unlimited;
	rd->cpu_bw = pf->cpu_bw;
	rd->capacity = pf->cpu_bw * (uint64_t)ncpus;
	rd->cap_min = DL_CAPACITY_SCALE;
	rd->cap_max = DL_CAPACITY_SCALE;
	rd->cap_sum = DL_CAPACITY_SCALE * (uint64_t)ncpus;
	if (pf->server.runtime)
		rd->fair_bw = dl_params_bw(&pf->server) * (uint64_t)ncpus;
	for (size_t i = 0; i < n; i++)
		rd->tasks_bw += dl_an_bw(&ts[i]);
	rd->ntasks = n;
	rd->total_bw = dl_rd_expected(rd);
}

int64_t dl_an_admission(const struct dl_platform *pf, const struct dl_an_task *ts,
			size_t n, int ncpus)
{
	struct dl_rd rd;

	dl_an_rd(pf, ts, n, ncpus, &rd);
	return dl_bw_free(&rd);
}

/* The fair server's bandwidth as the kernel gives it by default. */
static void default_server(struct dl_params *server)
{
	*server = (struct dl_params){ .runtime = FAIR_RUNTIME_NS, .deadline = FAIR_PERIOD_NS, .period = FAIR_PERIOD_NS };
}

DL_EXPORT int dl_platform_init(struct dl_platform *pf, int ncpus)
{
	if (!pf)
		return dl_fail(-EINVAL, "dl_platform_init needs a struct dl_platform to fill in");
	memset(pf, 0, sizeof(*pf));
	if (ncpus < 1 || ncpus > DL_CPUS_MAX)
		return dl_fail(-EINVAL, "%d CPUs: give 1 to %d", ncpus, DL_CPUS_MAX);
	pf->ncpus = ncpus;
	for (int c = 0; c < ncpus; c++)
		dl_cpus_set(&pf->cpus, c);
	/* sched_rt_runtime_us 950000 of sched_rt_period_us 1000000, as
	 * sched_rt_handler() turns them into a cap: to_ratio(). */
	pf->cpu_bw = (int64_t)dl_to_ratio(DL_DEFAULT_RT_PERIOD_US, DL_DEFAULT_RT_RUNTIME_US);
	default_server(&pf->server);
	pf->period_min = DL_PERIOD_MIN_US_DEFAULT * 1000;
	pf->period_max = DL_PERIOD_MAX_US_DEFAULT * 1000;
	return 0;
}

DL_EXPORT int dl_platform_get(struct dl_platform *pf, int ncpus)
{
	dl_cpus_t online;
	uint64_t fair = 0, cap;
	int err, have;

	if (!pf)
		return dl_fail(-EINVAL, "dl_platform_get needs a struct dl_platform to fill in");
	memset(pf, 0, sizeof(*pf));
	if (ncpus < 0 || ncpus > DL_CPUS_MAX)
		return dl_fail(-EINVAL, "%d CPUs: give 1 to %d, or 0 for the online CPUs", ncpus, DL_CPUS_MAX);
	err = dl_cpus_online(&online);
	if (err < 0)
		return err;
	have = dl_cpus_count(&online);
	if (ncpus == 0 || ncpus == have) {
		pf->cpus = online;
		pf->ncpus = have;
	} else if (ncpus < have) {
		/* The first ncpus online CPUs. */
		for (int c = 0, k = 0; c < DL_CPUS_MAX && k < ncpus; c++)
			if (dl_cpus_isset(&online, c)) {
				dl_cpus_set(&pf->cpus, c);
				k++;
			}
		pf->ncpus = ncpus;
	} else {
		/* Planning for a bigger machine: CPUs 0..ncpus-1. */
		for (int c = 0; c < ncpus; c++)
			dl_cpus_set(&pf->cpus, c);
		pf->ncpus = ncpus;
	}
	/* The kernel's own figure from debugfs first: on Linux 6.18 even a
	 * read of the sched_rt sysctls rebuilds the root domains (see
	 * dl_rt_bw()), which is best avoided. */
	{
		uint64_t kbw;
		int64_t total;

		if (dl_kernel_bw(dl_cpus_first(&online), &kbw, &total) == 0) {
			pf->unlimited = (int64_t)kbw == -1;
			cap = pf->unlimited ? DL_BW_UNIT : kbw;
		} else {
			dl_rt_bw(&cap, &pf->unlimited);
		}
		pf->cpu_bw = (int64_t)cap;
	}
	dl_period_limits(&pf->period_min, &pf->period_max);
	dl_fair_server_bw(dl_cpus_first(&online), &fair);
	if (fair) {
		/* Its bandwidth as the kernel reports it, on the default period. */
		pf->server.period = FAIR_PERIOD_NS;
		pf->server.deadline = FAIR_PERIOD_NS;
		pf->server.runtime = (uint64_t)(((dl_u128)fair * FAIR_PERIOD_NS + DL_BW_UNIT - 1) >> DL_BW_SHIFT);
		if (fair == dl_to_ratio(FAIR_PERIOD_NS, FAIR_RUNTIME_NS))
			default_server(&pf->server);
	}
	return 0;
}
