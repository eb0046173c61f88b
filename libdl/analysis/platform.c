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
#include <pthread.h>
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

uint32_t dl_an_cap(const struct dl_platform *pf, int cpu)
{
	return pf->capacity ? pf->capacity[cpu] : DL_CAPACITY_SCALE;
}

void dl_an_caps(const struct dl_platform *pf, const dl_cpus_t *cpus, uint32_t *min, uint32_t *max,
		uint64_t *sum)
{
	uint32_t lo = DL_CAPACITY_SCALE, hi = 0;
	uint64_t all = 0;

	for (int c = 0; c < DL_CPUS_MAX; c++) {
		uint32_t cap;

		if (!dl_cpus_isset(cpus, c))
			continue;
		cap = dl_an_cap(pf, c);
		lo = cap < lo ? cap : lo;
		hi = cap > hi ? cap : hi;
		all += cap;
	}
	if (min)
		*min = lo;
	if (max)
		*max = hi ? hi : DL_CAPACITY_SCALE;
	if (sum)
		*sum = all;
}

/*
 * A task's runtime as the time it takes on a CPU of capacity cap: the
 * kernel charges a reservation delta_exec x cap / 1024 of its runtime
 * for delta_exec on the CPU (update_curr_dl_se(): cap_scale() by
 * arch_scale_cpu_capacity()), so a runtime given for the biggest CPU
 * lasts runtime x 1024 / cap there, rounded up.  Past its deadline the
 * task does not fit that CPU: false, its runtime then deadline + 1.
 */
bool dl_an_scale(struct dl_an_task *t, uint32_t cap)
{
	dl_u128 c;

	if (cap >= DL_CAPACITY_SCALE)
		return t->c <= t->d;
	c = ((dl_u128)t->c * DL_CAPACITY_SCALE + cap - 1) / cap;
	if (c > t->d) {
		t->c = t->d + 1;
		return false;
	}
	t->c = (uint64_t)c;
	return true;
}

/* The root domain the platform's CPUs cpus would make, holding the
 * tasks: the figures dl_rd_fill() reads from a real one, so that the
 * kernel's arithmetic (bw.c) judges both. */
void dl_an_rd(const struct dl_platform *pf, const struct dl_an_task *ts, size_t n, const dl_cpus_t *cpus,
	      struct dl_rd *rd)
{
	int ncpus = dl_cpus_count(cpus);

	memset(rd, 0, sizeof(*rd));
	rd->ncpus = ncpus;
	rd->cpus = *cpus;
	rd->unlimited = pf->unlimited;
	rd->cpu_bw = pf->cpu_bw;
	dl_an_caps(pf, cpus, &rd->cap_min, &rd->cap_max, &rd->cap_sum);
	/* cap_scale(bw, dl_bw_capacity()), as dl_rd_fill() has it. */
	rd->capacity = (int64_t)(((dl_u128)(uint64_t)pf->cpu_bw * rd->cap_sum) >> 10);
	if (pf->server.runtime)
		rd->fair_bw = dl_params_bw(&pf->server) * (uint64_t)ncpus;
	for (size_t i = 0; i < n; i++)
		rd->tasks_bw += dl_an_bw(&ts[i]);
	rd->ntasks = n;
	rd->total_bw = dl_rd_expected(rd);
}

int64_t dl_an_admission(const struct dl_platform *pf, const struct dl_an_task *ts,
			size_t n, const dl_cpus_t *cpus)
{
	struct dl_rd rd;

	dl_an_rd(pf, ts, n, cpus, &rd);
	return dl_bw_free(&rd);
}

int dl_an_platform_check(const struct dl_platform *pf, const char *who)
{
	if (!pf)
		return dl_fail(-EINVAL, "%s: no platform given", who);
	if (dl_reserved_check(pf->reserved, sizeof(pf->reserved), "struct dl_platform") < 0)
		return -EINVAL;
	if (pf->ncpus < 1 || pf->ncpus > DL_CPUS_MAX || dl_cpus_count(&pf->cpus) != pf->ncpus)
		return dl_fail(-EINVAL, "the platform has %d CPUs but its CPU set holds %d: they must agree, 1 to %d",
			       pf->ncpus, dl_cpus_count(&pf->cpus), DL_CPUS_MAX);
	for (int c = 0; pf->capacity && c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&pf->cpus, c) && (pf->capacity[c] < 1 || pf->capacity[c] > DL_CAPACITY_SCALE))
			return dl_fail(-EINVAL, "CPU %d of the platform has capacity %" PRIu32 ": give 1 to %d (%d: a CPU of the biggest kind)",
				       c, pf->capacity[c], DL_CAPACITY_SCALE, DL_CAPACITY_SCALE);
	return 0;
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

/* This host's CPU capacities, read once (the kernel fixes them at boot):
 * dl_platform_get() points a platform at them, for the process's life. */
static uint32_t host_cap[DL_CPUS_MAX];
static bool host_asym;
static pthread_once_t host_cap_once = PTHREAD_ONCE_INIT;

static void host_cap_read(void)
{
	dl_cpus_t on;

	/* The CPUs online at the first call: a platform of this host is
	 * made of those, and the others count as the biggest. */
	if (dl_cpus_online(&on) < 0)
		dl_cpus_zero(&on);
	for (int c = 0; c < DL_CPUS_MAX; c++) {
		host_cap[c] = dl_cpus_isset(&on, c) ? dl_cpu_capacity(c) : DL_CAPACITY_SCALE;
		host_asym |= host_cap[c] != DL_CAPACITY_SCALE;
	}
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
		/* Planning for a bigger machine: CPUs 0..ncpus-1, alike. */
		for (int c = 0; c < ncpus; c++)
			dl_cpus_set(&pf->cpus, c);
		pf->ncpus = ncpus;
	}
	if (ncpus <= have) {
		pthread_once(&host_cap_once, host_cap_read);
		if (host_asym)
			pf->capacity = host_cap;
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

/*
 * Global EDF on the platform's CPUs (dl_global_test()).  On CPUs of
 * different capacity every runtime, the fair servers' too, is counted as
 * the time it takes on the smallest (cluster_test() of plan.c says why):
 * a verdict of CPUs that fast, sufficient only, which names the speed.
 */
int dl_an_global_on(const struct dl_params *tasks, size_t n, const struct dl_platform *pf,
		    struct dl_global_result **res)
{
	const struct dl_params *server = pf->server.runtime ? &pf->server : NULL;
	struct dl_params *p, sv;
	ssize_t unfit = -1;
	uint32_t lo, hi;
	char u[DL_BW_STRLEN], on[128];
	struct dl_global_result *r;
	int err;

	dl_an_caps(pf, &pf->cpus, &lo, &hi, NULL);
	if (lo == DL_CAPACITY_SCALE)
		return dl_global_test(tasks, n, pf->ncpus, server, res);
	p = malloc((n ? n : 1) * sizeof(*p));
	if (!p)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct dl_an_task t = { .c = tasks[i].runtime, .t = tasks[i].period,
					.d = tasks[i].deadline ? tasks[i].deadline : tasks[i].period };

		p[i] = tasks[i];
		/* dl_global_test() checks the rest; a runtime past the
		 * deadline at this speed goes in as the deadline, judged here. */
		if (t.c && t.d && t.c <= t.d && !dl_an_scale(&t, lo)) {
			if (unfit < 0)
				unfit = (ssize_t)i;
			t.c = t.d;
		}
		p[i].runtime = t.c;
	}
	if (server) {
		struct dl_an_task t = { .c = server->runtime, .d = server->deadline ? server->deadline : server->period };

		sv = *server;
		if (t.c <= t.d && !dl_an_scale(&t, lo)) {
			/* The fair server too big for the smallest CPU. */
			t.c = t.d;
			if (unfit < 0)
				unfit = (ssize_t)n;
		}
		sv.runtime = t.c;
		server = &sv;
	}
	err = dl_global_test(p, n, pf->ncpus, server, res);
	free(p);
	if (err)
		return err;
	r = *res;
	dl_bw_format((int64_t)r->util, u, sizeof(u));
	if (lo == hi)
		snprintf(on, sizeof(on), "%d CPUs of capacity %" PRIu32 " under global EDF", pf->ncpus, lo);
	else
		snprintf(on, sizeof(on), "%d CPUs of capacity %" PRIu32 " to %" PRIu32 " under global EDF, each counted at %" PRIu32,
			 pf->ncpus, lo, hi, lo);
	r->miss_at = 0;
	if (unfit >= 0) {
		r->verdict = DL_NOT_GUARANTEED;
		r->accepted_by = -1;
		for (int t = DL_TEST_NM; t <= DL_TEST_RTA; t++)
			r->result[t] = 0;
		r->limiting = unfit < (ssize_t)n ? unfit : -1;
		snprintf(r->why, sizeof(r->why),
			 "not guaranteed on %s: %s needs a CPU of capacity %" PRIu32 ", and the kernel may run it on one of %" PRIu32,
			 on, unfit < (ssize_t)n ? "the limiting task" : "the fair server",
			 dl_cap_need(unfit < (ssize_t)n ? &tasks[unfit] : &pf->server), lo);
	} else if (r->verdict == DL_SCHEDULABLE) {
		snprintf(r->why, sizeof(r->why), "schedulable on %s: %s accepts (utilization %s at that speed)",
			 on, dl_test_name(r->accepted_by), u);
	} else {
		/* Too much, or refused, at the smallest speed: the bigger
		 * CPUs may still do it, which no test here proves. */
		r->verdict = DL_NOT_GUARANTEED;
		snprintf(r->why, sizeof(r->why), "not guaranteed on %s: no sufficient test accepts (utilization %s at that speed)",
			 on, u);
	}
	return 0;
}
