/*
 * bench-plan: how fast dl_plan_compute() is, and how often each method
 * accepts, on generated task sets.
 *
 *   bench-plan speed TASKS CPUS [SETS]     time the planner per set
 *   bench-plan accept TASKS CPUS [SETS]    acceptance ratio table
 *   bench-plan exact MAXTASKS MAXPERIOD [SETS]  the exact test's speed
 *   bench-plan pessimism MAXTASKS MAXPERIOD [SETS]  what the sufficient
 *                                          tests accept of what it accepts
 *
 * Sets: UUniFast-Discard utilizations (Bini and Buttazzo 2005; a set with
 * a task above 1 is drawn again), periods log-uniform in [1ms, 1s],
 * deadlines uniform in [C, T], runtime C = U x T (at least 1024 ns).
 * The platform is the kernel's default: a 0.95 cap per CPU and a 50 ms /
 * 1 s fair server on every CPU, whatever this machine has.
 *
 * speed measures, with CLOCK_MONOTONIC, from the call of
 * dl_plan_compute() to its return (the global verdict on every CPU
 * included), for each set; it prints the median and the largest per
 * utilization.  accept prints, per utilization per CPU, the fraction of
 * sets the kernel admits on all CPUs, each global test accepts, any
 * global test accepts, and the plan makes feasible; gnuplot can plot it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libdeadline.h"

#define MS 1000000.0

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: reproducible, the same on every machine. */
static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* UUniFast-Discard: n utilizations summing to total, each at most 1. */
static void uunifast_discard(double *u, size_t n, double total)
{
	for (;;) {
		double sum = total, next;
		bool ok = true;

		for (size_t i = 0; i + 1 < n; i++) {
			next = sum * pow(uniform(), 1.0 / (double)(n - i - 1));
			u[i] = sum - next;
			sum = next;
		}
		u[n - 1] = sum;
		for (size_t i = 0; i < n; i++)
			ok = ok && u[i] <= 1.0;
		if (ok)
			return;
	}
}

static void generate(struct dl_params *p, size_t n, double total)
{
	double *u = malloc(n * sizeof(*u));

	if (!u)
		exit(1);
	uunifast_discard(u, n, total);
	for (size_t i = 0; i < n; i++) {
		double t = exp(log(1 * MS) + uniform() * (log(1000 * MS) - log(1 * MS)));
		uint64_t c = (uint64_t)(u[i] * t);

		p[i].period = (uint64_t)t;
		p[i].runtime = c < 1024 ? 1024 : c;
		if (p[i].runtime > p[i].period)
			p[i].runtime = p[i].period;
		p[i].deadline = p[i].runtime + (uint64_t)(uniform() * (double)(p[i].period - p[i].runtime));
		p[i].flags = 0;
	}
	free(u);
}

static struct dl_platform *platform(int m)
{
	struct dl_platform *pf = malloc(sizeof(*pf));

	/* The kernel's defaults: the same plans on any machine. */
	if (!pf || dl_platform_init(pf, m) < 0) {
		fprintf(stderr, "bench-plan: %s\n", dl_errmsg());
		exit(1);
	}
	return pf;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int speed(size_t n, int m, int sets)
{
	static const double loads[] = { 0.3, 0.5, 0.7, 0.85, 0.95 };
	struct dl_params *p = malloc(n * sizeof(*p));
	uint64_t *t = malloc((size_t)sets * sizeof(*t));
	uint64_t *cpu = malloc((size_t)sets * sizeof(*cpu));
	struct dl_platform *pf = platform(m);

	if (!p || !t || !cpu)
		return 1;
	printf("# planner time per set, %zu tasks on %d CPUs, %d sets per utilization\n", n, m, sets);
	printf("# wall: CLOCK_MONOTONIC, cpu: this thread's CPU time, both from the call to the return\n");
	printf("# util/cpu  median_ms  max_ms  cpu_median_ms  cpu_max_ms  feasible\n");
	for (size_t l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
		int feasible = 0;

		for (int s = 0; s < sets; s++) {
			struct dl_plan *plan;
			uint64_t t0, c0;

			generate(p, n, loads[l] * m);
			c0 = cpu_ns();
			t0 = now_ns();
			if (dl_plan_compute(p, n, pf, &plan) < 0) {
				fprintf(stderr, "bench-plan: %s\n", dl_errmsg());
				return 1;
			}
			t[s] = now_ns() - t0;
			cpu[s] = cpu_ns() - c0;
			feasible += plan->feasible;
			dl_plan_free(plan);
		}
		qsort(t, (size_t)sets, sizeof(*t), cmp_u64);
		qsort(cpu, (size_t)sets, sizeof(*cpu), cmp_u64);
		printf("%10.2f %10.2f %7.2f %14.2f %11.2f %5d/%d\n", loads[l], (double)t[sets / 2] / 1e6,
		       (double)t[sets - 1] / 1e6, (double)cpu[sets / 2] / 1e6, (double)cpu[sets - 1] / 1e6,
		       feasible, sets);
		fflush(stdout);
	}
	free(p);
	free(t);
	free(cpu);
	free(pf);
	return 0;
}

/*
 * Fully partitioned alone, as an independent check of the planner's
 * column: first fit by decreasing density, each CPU accepting a task
 * when the kernel's per-CPU cap (with the fair server) and the exact
 * one-CPU test (QPA) both still hold with it.
 */
static int by_density(const void *a, const void *b)
{
	const struct dl_params *x = a, *y = b;
	unsigned __int128 l = (unsigned __int128)x->runtime * y->deadline;
	unsigned __int128 r = (unsigned __int128)y->runtime * x->deadline;

	return l > r ? -1 : l < r;
}

static bool partitioned(const struct dl_params *p, size_t n, const struct dl_platform *pf)
{
	struct dl_params *s = malloc(n * sizeof(*s)), *cpu = malloc(n * sizeof(*cpu));
	int *where = calloc(n ? n : 1, sizeof(*where));
	int64_t *bw = calloc((size_t)pf->ncpus, sizeof(*bw));
	bool ok = s && cpu && where && bw;

	if (ok)
		memcpy(s, p, n * sizeof(*s));
	if (ok)
		qsort(s, n, sizeof(*s), by_density);
	/* where[j]: the CPU task j went to; cpu[]: a CPU's tasks with the
	 * candidate, rebuilt for each try. */
	for (size_t i = 0; ok && i < n; i++) {
		bool placed = false;

		for (int c = 0; c < pf->ncpus && !placed; c++) {
			size_t k = 0;
			struct dl_edf_result *r = NULL;
			int64_t with = bw[c] + dl_params_bw(&s[i]) + dl_params_bw(&pf->server);

			if (with > pf->cpu_bw)
				continue;
			for (size_t j = 0; j < i; j++)
				if (where[j] == c)
					cpu[k++] = s[j];
			cpu[k++] = s[i];
			if (dl_edf_test(cpu, k, &pf->server, &r) >= 0 && r->verdict == DL_SCHEDULABLE) {
				where[i] = c;
				bw[c] += dl_params_bw(&s[i]);
				placed = true;
			}
			free(r);
		}
		ok = placed;
	}
	free(s);
	free(cpu);
	free(where);
	free(bw);
	return ok;
}

static int accept(size_t n, int m, int sets)
{
	struct dl_params *p = malloc(n * sizeof(*p));
	struct dl_platform *pf = platform(m);

	if (!p)
		return 1;
	printf("# acceptance ratio, %zu tasks on %d CPUs, %d sets per point\n", n, m, sets);
	printf("# util/cpu kernel n<=m GFB BAK BCL RTA global partitioned plan\n");
	for (int step = 1; step <= 19; step++) {
		double load = step * 0.05;
		int kern = 0, test[5] = { 0 }, any = 0, plans = 0, part = 0;

		for (int s = 0; s < sets; s++) {
			struct dl_plan *plan;
			uint64_t sum = 0;

			generate(p, n, load * m);
			for (size_t i = 0; i < n; i++)
				sum += dl_params_bw(&p[i]);
			sum += dl_params_bw(&pf->server) * (uint64_t)m;
			kern += sum <= pf->cpu_bw * (uint64_t)m;
			if (dl_plan_compute(p, n, pf, &plan) < 0) {
				fprintf(stderr, "bench-plan: %s\n", dl_errmsg());
				return 1;
			}
			for (int k = 0; k < 5; k++)
				test[k] += plan->global->result[k] == 1;
			any += plan->global->accepted_by >= 0;
			plans += plan->feasible;
			part += partitioned(p, n, pf);
			dl_plan_free(plan);
		}
		printf("%.2f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", load,
		       (double)kern / sets, (double)test[0] / sets, (double)test[1] / sets,
		       (double)test[2] / sets, (double)test[3] / sets, (double)test[4] / sets,
		       (double)any / sets, (double)part / sets, (double)plans / sets);
		fflush(stdout);
	}
	free(p);
	free(pf);
	return 0;
}

/*
 * The exact test's sets: n tasks on m CPUs with integer periods of 2 to
 * maxp units (1 ms), UUniFast-Discard utilizations, C = U T rounded (at
 * least 1 unit), D uniform in [C, T]; no fair server (its 1 s period is
 * off the grid).
 */
static void generate_units(struct dl_params *p, size_t n, double total, int maxp)
{
	double u[64];

	uunifast_discard(u, n, total);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = 2 + (uint64_t)(uniform() * (maxp - 1)), c = (uint64_t)(u[i] * (double)t + 0.5),
			 d;

		t = t > (uint64_t)maxp ? (uint64_t)maxp : t;
		c = c < 1 ? 1 : c > t ? t : c;
		d = c + (uint64_t)(uniform() * (double)(t - c + 1));
		d = d > t ? t : d;
		p[i] = (struct dl_params){ .runtime = c * 1000000,
					   .deadline = d * 1000000,
					   .period = t * 1000000 };
	}
}

/* Up to maxn tasks (m + 1 at least) on 2 to 4 CPUs, total utilization
 * uniform in (0.3 m, m]: per CPU count, how many the exact test decides
 * within a 10 s budget, the median and the worst time per set, the most
 * states a set needed. */
static int exact_speed(size_t maxn, int maxp, int sets)
{
	/* 10 s, and room for 8 Mi states (a few hundred MiB at most). */
	struct dl_exact_opts o = { .max_ns = 10000000000ULL, .max_states = 8u << 20 };
	uint64_t *t = malloc((size_t)sets * sizeof(*t));
	struct dl_params p[64];

	if (!t || maxn > 64)
		return 1;
	printf("# the exact test (dl_exact_test, ties in any order), up to %zu tasks, periods of 2 to %d units of 1ms,\n"
	       "# %d sets per CPU count, a budget of 10 s and 8388608 states; wall time from call to return\n",
	       maxn, maxp, sets);
	printf("# cpus decided sets median_ms max_ms schedulable not_schedulable infeasible max_states\n");
	for (int m = 2; m <= 4; m++) {
		int decided = 0, yes = 0, no = 0, over = 0;
		uint64_t states_max = 0;

		if ((size_t)m + 1 > maxn)
			continue;
		for (int s = 0; s < sets; s++) {
			size_t n = (size_t)m + 1 + (size_t)(uniform() * (double)(maxn - (size_t)m));
			struct dl_exact_result *r;
			uint64_t t0;

			n = n > maxn ? maxn : n;
			generate_units(p, n, m * (0.3 + 0.7 * uniform()), maxp);
			t0 = now_ns();
			if (dl_exact_test(p, n, m, NULL, &o, &r) < 0) {
				fprintf(stderr, "bench-plan: %s\n", dl_errmsg());
				return 1;
			}
			t[s] = now_ns() - t0;
			decided += r->verdict != DL_NOT_GUARANTEED;
			yes += r->verdict == DL_SCHEDULABLE;
			no += r->verdict == DL_UNSCHEDULABLE;
			over += r->verdict == DL_INFEASIBLE;
			states_max = r->states > states_max ? r->states : states_max;
			dl_exact_free(r);
		}
		qsort(t, (size_t)sets, sizeof(*t), cmp_u64);
		printf("%d %d %d %.3f %.3f %d %d %d %llu\n", m, decided, sets, (double)t[sets / 2] / 1e6,
		       (double)t[sets - 1] / 1e6, yes, no, over, (unsigned long long)states_max);
		fflush(stdout);
	}
	free(t);
	return 0;
}

/* Per band of utilization per CPU (the set's own, C/T summed, after the
 * rounding to whole units): of the sets the exact test proves
 * schedulable, the share each sufficient test (and any) accepts; and the
 * contradictions, which must be none: a sufficient test accepting, or
 * the synchronous simulation missing, where the exact test says
 * otherwise.  sets in all, their target utilization uniform. */
static int pessimism(size_t maxn, int maxp, int sets)
{
	struct dl_params p[64];
	int contradictions = 0, exact[10] = { 0 }, acc[10][5] = { { 0 } }, no[10] = { 0 },
	    undecided[10] = { 0 };
	int over = 0;

	if (maxn > 64 || maxn < 3)
		return 1;
	for (int s = 0; s < sets; s++) {
		int m = 2 + (int)(uniform() * 3), band;
		size_t n;
		double u = 0;
		struct dl_exact_result *r;
		struct dl_global_result *g;

		m = m > 4 ? 4 : m;
		if ((size_t)m + 1 > maxn)
			m = (int)maxn - 1;
		n = (size_t)m + 1 + (size_t)(uniform() * (double)(maxn - (size_t)m));
		n = n > maxn ? maxn : n;
		generate_units(p, n, m * (0.02 + 0.98 * uniform()), maxp);
		for (size_t i = 0; i < n; i++)
			u += (double)p[i].runtime / (double)p[i].period;
		if (dl_exact_test(p, n, m, NULL, NULL, &r) < 0 || dl_global_test(p, n, m, NULL, &g) < 0) {
			fprintf(stderr, "bench-plan: %s\n", dl_errmsg());
			return 1;
		}
		if (g->accepted_by >= 0 && r->verdict != DL_SCHEDULABLE && r->verdict != DL_NOT_GUARANTEED)
			contradictions++;
		if (g->miss_at && r->verdict == DL_SCHEDULABLE)
			contradictions++;
		band = (int)(u / m * 10);
		if (r->verdict == DL_INFEASIBLE || band > 9) {
			over++;
		} else {
			undecided[band] += r->verdict == DL_NOT_GUARANTEED;
			no[band] += r->verdict == DL_UNSCHEDULABLE;
			if (r->verdict == DL_SCHEDULABLE) {
				exact[band]++;
				for (int k = DL_TEST_GFB; k <= DL_TEST_RTA; k++)
					acc[band][k - 1] += g->result[k] == 1;
				acc[band][4] += g->accepted_by >= 0;
			}
		}
		dl_exact_free(r);
		free(g);
	}
	printf("# of the sets the exact test proves schedulable under global EDF, the share each sufficient\n"
	       "# test accepts; %d sets, m + 1 to %zu tasks on 2 to 4 CPUs, periods of 2 to %d units,\n"
	       "# banded by their utilization per CPU (%d above 1 left out)\n",
	       sets, maxn, maxp, over);
	printf("# util/cpu exact_schedulable GFB BAK BCL RTA any not_schedulable undecided\n");
	for (int band = 0; band < 10; band++) {
		printf("%.2f %d", (band + 0.5) / 10.0, exact[band]);
		for (int k = 0; k < 5; k++)
			printf(" %.3f", exact[band] ? (double)acc[band][k] / exact[band] : 0.0);
		printf(" %d %d\n", no[band], undecided[band]);
	}
	printf("# contradictions %d\n", contradictions);
	return contradictions ? 3 : 0;
}

int main(int argc, char **argv)
{
	size_t n;
	int m, sets;

	if (argc < 4 || (strcmp(argv[1], "speed") && strcmp(argv[1], "accept") && strcmp(argv[1], "exact") &&
			 strcmp(argv[1], "pessimism"))) {
		fprintf(stderr, "usage: bench-plan speed|accept TASKS CPUS [SETS]\n"
				"       bench-plan exact|pessimism MAXTASKS MAXPERIOD [SETS]\n");
		return 2;
	}
	n = (size_t)strtoul(argv[2], NULL, 10);
	m = atoi(argv[3]);
	sets = argc > 4 ? atoi(argv[4]) : 10;
	if (n < 1 || m < 1 || sets < 1) {
		fprintf(stderr, "bench-plan: TASKS, CPUS and SETS must be at least 1\n");
		return 2;
	}
	if (!strcmp(argv[1], "exact"))
		return exact_speed(n, m, sets);
	if (!strcmp(argv[1], "pessimism"))
		return pessimism(n, m, sets);
	return strcmp(argv[1], "speed") ? accept(n, m, sets) : speed(n, m, sets);
}
