/*
 * Partition plans: the article's example, and every plan on thousands of
 * random sets re-checked by brute force, independently of the library's
 * tests: each task placed exactly once, each root domain within the
 * kernel's admission (recomputed here), each one-CPU root domain's
 * demand within every interval, t by t, and no deadline missed in a
 * step-by-step simulation of a cluster's global EDF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brute.h"
#include "testlib.h"

#define MS 1000000ULL

static struct dl_platform *platform(int m)
{
	struct dl_platform *pf = malloc(sizeof(*pf));

	/* The kernel's defaults, whatever this machine says. */
	ck_assert_ptr_nonnull(pf);
	ck_assert_int_eq(dl_platform_init(pf, m), 0);
	ck_assert_int_eq(pf->ncpus, m);
	ck_assert_int_eq(pf->cpu_bw, 996147); /* 0.95 */
	ck_assert(!pf->unlimited);
	ck_assert_uint_eq(pf->server.runtime, 50 * MS);
	ck_assert_uint_eq(pf->server.period, 1000 * MS);
	return pf;
}

/* The article: one task near 0.9 of a CPU and many light ones on 8
 * CPUs.  Globally no test guarantees it (the heavy task's density
 * dominates GFB's bound); the plan puts the heavy task alone. */
START_TEST(test_article)
{
	struct dl_platform *pf = platform(8);
	struct dl_params p[21];
	struct dl_plan *plan = NULL;

	p[0] = (struct dl_params){ .runtime = 8 * MS, .deadline = 9 * MS, .period = 9 * MS };
	for (int i = 1; i < 21; i++)
		p[i] = (struct dl_params){ .runtime = 1 * MS, .deadline = 8 * MS, .period = 8 * MS };
	ck_assert_int_eq(dl_plan_compute(p, 21, pf, &plan), 0);
	ck_assert(plan->feasible);
	ck_assert_int_ne(plan->global->verdict, DL_SCHEDULABLE);
	ck_assert_uint_eq(plan->nparts, 1);
	ck_assert_uint_eq(plan->parts[0]->ntasks, 1);
	ck_assert_uint_eq(plan->parts[0]->tasks[0], 0);
	ck_assert_int_eq(plan->parts[0]->ncpus, 1);
	ck_assert_uint_eq(plan->cluster->ntasks, 20);
	ck_assert_int_eq(plan->cluster->ncpus, 7);
	ck_assert_int_ge(plan->cluster->test, DL_TEST_NM);
	ck_assert_int_ge(plan->margin, 0);
	dl_plan_free(plan);
	free(pf);
}
END_TEST

/* A platform the caller filled in must leave its reserved space zero. */
START_TEST(test_platform_reserved)
{
	struct dl_platform *pf = platform(2);
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	struct dl_plan *plan = NULL;

	for (size_t i = 0; i < sizeof(pf->reserved) / sizeof(pf->reserved[0]); i++)
		ck_assert_uint_eq(pf->reserved[i], 0); /* the library's are zeroed */
	pf->reserved[0] = 7;
	ck_assert_int_eq(dl_plan_compute(&p, 1, pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "struct dl_platform"), "%s", dl_errmsg());
	ck_assert_ptr_null(plan);
	free(pf);
}
END_TEST

/* Light tasks only: every task in the cluster, no partition. */
START_TEST(test_global_enough)
{
	struct dl_platform *pf = platform(4);
	struct dl_params p[6];
	struct dl_plan *plan = NULL;

	for (int i = 0; i < 6; i++)
		p[i] = (struct dl_params){ .runtime = 1 * MS, .period = 10 * MS };
	ck_assert_int_eq(dl_plan_compute(p, 6, pf, &plan), 0);
	ck_assert(plan->feasible);
	ck_assert_int_eq(plan->method, DL_PLAN_GLOBAL);
	ck_assert_uint_eq(plan->nparts, 0);
	ck_assert_uint_eq(plan->cluster->ntasks, 6);
	dl_plan_free(plan);
	free(pf);
}
END_TEST

/* 0.93 of a CPU fits no one-CPU partition (0.95 - 0.05 of fair server
 * leaves 0.90), and three of them on 2 CPUs are more than the machine:
 * no plan, and the answer names a task and says why. */
START_TEST(test_no_plan)
{
	struct dl_platform *pf = platform(2);
	struct dl_params p[3];
	struct dl_plan *plan = NULL;

	for (int i = 0; i < 3; i++)
		p[i] = (struct dl_params){ .runtime = 93 * MS / 10, .period = 10 * MS };
	ck_assert_int_eq(dl_plan_compute(p, 3, pf, &plan), 0);
	ck_assert(!plan->feasible);
	ck_assert_int_ge(plan->unplaced, 0);
	ck_assert_ptr_nonnull(strstr(plan->why, "needs 0.9300 of a CPU"));
	ck_assert_ptr_nonnull(strstr(plan->why, "0.9000"));
	ck_assert_int_eq(plan->global->verdict, DL_INFEASIBLE);
	dl_plan_free(plan);
	free(pf);
}
END_TEST

/* The fair server as a planning input.  Two tasks of 0.93 on 2 CPUs:
 * with the default server each CPU admits 0.90 and neither fits; with
 * the server off each CPU admits the whole 0.95, and the two run
 * globally (n <= m: no server task counts as a third).  A server of 20ms/25ms (0.8) leaves 0.15: a 0.2 task no
 * longer fits where it did.  A server the kernel would not take is
 * refused, naming the rule. */
START_TEST(test_server_input)
{
	struct dl_platform *pf = platform(2);
	struct dl_params p[2], light = { .runtime = 2 * MS, .period = 10 * MS };
	struct dl_plan *plan = NULL;

	for (int i = 0; i < 2; i++)
		p[i] = (struct dl_params){ .runtime = 93 * MS / 10, .period = 10 * MS };
	ck_assert_int_eq(dl_plan_compute(p, 2, pf, &plan), 0);
	ck_assert(!plan->feasible);
	dl_plan_free(plan);

	pf->server = (struct dl_params){ 0 };
	ck_assert_int_eq(dl_plan_compute(p, 2, pf, &plan), 0);
	ck_assert_msg(plan->feasible, "%s", plan->why);
	/* n <= m with no server task: both in the cluster, the load the
	 * tasks' alone and what is left 2 x (0.95 - 0.93). */
	ck_assert_uint_eq(plan->nparts, 0);
	ck_assert_uint_eq(plan->cluster->ntasks, 2);
	ck_assert_int_eq(plan->cluster->ncpus, 2);
	ck_assert_int_eq(plan->cluster->test, DL_TEST_NM);
	ck_assert_int_eq(plan->cluster->load, 2 * (int64_t)dl_params_bw(&p[0]));
	ck_assert_int_eq(plan->cluster->free_bw, 2 * (996147 - (int64_t)dl_params_bw(&p[0])));
	dl_plan_free(plan);

	/* One CPU: the cluster is the one root domain. */
	free(pf);
	pf = platform(1);
	pf->server = (struct dl_params){ .runtime = 20 * MS, .deadline = 25 * MS, .period = 25 * MS };
	ck_assert_int_eq(dl_plan_compute(&light, 1, pf, &plan), 0);
	ck_assert(!plan->feasible);
	ck_assert_msg(strstr(plan->why, "0.1500 on one CPU (0.9500 per CPU minus the fair server)"), "%s", plan->why);
	dl_plan_free(plan);
	pf->server.runtime = 10 * MS; /* 0.4: 0.55 left */
	ck_assert_int_eq(dl_plan_compute(&light, 1, pf, &plan), 0);
	ck_assert_msg(plan->feasible, "%s", plan->why);
	/* to_ratio(25ms, 10ms) = 419430, to_ratio(10ms, 2ms) = 209715. */
	ck_assert_int_eq(plan->cluster->load, 419430 + 209715);
	dl_plan_free(plan);

	pf->server = (struct dl_params){ .runtime = 1 * MS, .deadline = 5000 * MS, .period = 5000 * MS };
	ck_assert_int_eq(dl_plan_compute(&light, 1, pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "fair server") && strstr(dl_errmsg(), "4.194304s"), "%s", dl_errmsg());
	ck_assert_ptr_null(plan);
	pf->server = (struct dl_params){ .runtime = 1000 * MS, .deadline = 1000 * MS, .period = 1000 * MS };
	ck_assert_int_eq(dl_plan_compute(&light, 1, pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "more than the admission cap of 0.9500"), "%s", dl_errmsg());
	free(pf);
}
END_TEST

/* ---- plans checked by brute force (tests/lib/brute.c) ---- */

static uint64_t bw(const struct dl_an_task *t)
{
	return (uint64_t)(((unsigned __int128)t->c << 20) / t->t);
}

/*
 * A root domain of the plan: its tasks plus one small server per CPU,
 * within the kernel's admission (cap_scale(cap, the sum of its CPUs'
 * capacities)) and meeting every deadline.  On CPUs of capacity c < 1024
 * (caps; NULL: all 1024) a runtime's work takes runtime x 1024 / c: checked
 * exactly, with time stretched instead of runtimes rounded (x c for
 * periods and deadlines, x 1024 for runtimes), a root domain of several
 * CPUs at its smallest CPU's speed.
 */
static void check_domain(const struct dl_plan_part *part, const struct dl_an_task *all,
			 const struct dl_an_task *sv, uint64_t cap, const uint32_t *caps, int *seen)
{
	struct dl_an_task ts[32];
	uint64_t load = 0, capsum = 0;
	uint32_t lo = 1024;
	size_t n = 0;

	ck_assert_int_ge(part->ncpus, 1);
	ck_assert_int_eq(dl_cpus_count(&part->cpus), part->ncpus);
	for (int c = 0; c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&part->cpus, c)) {
			capsum += caps ? caps[c] : 1024;
			lo = caps && caps[c] < lo ? caps[c] : lo;
		}
	ck_assert_uint_eq(part->cap_min, lo);
	for (size_t j = 0; j < part->ntasks; j++) {
		ck_assert_int_eq(seen[part->tasks[j]], 0);
		seen[part->tasks[j]] = 1;
		ts[n++] = all[part->tasks[j]];
	}
	for (size_t j = 0; j < n; j++)
		load += bw(&ts[j]);
	load += bw(sv) * (uint64_t)part->ncpus;
	ck_assert_uint_le(load, (cap * capsum) >> 10);
	if (n == 0)
		return;
	for (int s = 0; s < part->ncpus; s++)
		ts[n++] = *sv;
	for (size_t j = 0; lo < 1024 && j < n; j++) {
		ts[j].c *= 1024;
		ts[j].d *= lo;
		ts[j].t *= lo;
	}
	if (part->ncpus == 1)
		ck_assert(tl_brute_edf(ts, n));
	else
		ck_assert(!tl_brute_gedf_misses(ts, n, part->ncpus));
}

/* A random set of n tasks in small integer times (short hyperperiods),
 * on a platform of m CPUs whose server is 1 in 24 and cap 0.95, in
 * abstract time units: a kernel without period limits. */
static struct dl_platform *random_set(unsigned *seed, int m, size_t n, const uint64_t *periods, size_t np,
				      struct dl_an_task *ts, struct dl_params *p)
{
	struct dl_platform *pf = platform(m);

	pf->server = (struct dl_params){ .runtime = 1, .deadline = 24, .period = 24 };
	pf->period_min = 1;
	pf->period_max = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		ts[i].t = periods[rand_r(seed) % np];
		ts[i].d = 1 + (uint64_t)(rand_r(seed) % ts[i].t);
		ts[i].c = 1 + (uint64_t)(rand_r(seed) % ts[i].d);
		p[i] = (struct dl_params){ .runtime = ts[i].c, .deadline = ts[i].d, .period = ts[i].t };
	}
	return pf;
}

START_TEST(test_random_plans_rechecked)
{
	unsigned seed = 4242;
	int feasible = 0, partitioned = 0, none = 0;

	for (int k = 0; k < 2000; k++) {
		int m = 2 + (int)(rand_r(&seed) % 3);
		size_t n = 1 + (size_t)(rand_r(&seed) % 8);
		struct dl_params p[8];
		struct dl_an_task ts[8], sv = { 1, 24, 24 };
		/* 2 to 12, but 5, 7, 9, 10 and 11 count as 12. */
		static const uint64_t periods[] = { 2, 3, 4, 12, 6, 12, 8, 12, 12, 12, 12 };
		struct dl_platform *pf = random_set(&seed, m, n, periods, 11, ts, p);
		struct dl_plan *plan = NULL;
		int seen[8] = { 0 };

		ck_assert_int_eq(dl_plan_compute(p, n, pf, &plan), 0);
		if (plan->feasible) {
			uint64_t sum = bw(&sv) * (uint64_t)m;

			feasible++;
			/* Fewest partitions first: a set the global tests and the
			 * kernel's admission accept on every CPU needs none. */
			for (size_t i = 0; i < n; i++)
				sum += bw(&ts[i]);
			if (plan->global->verdict == DL_SCHEDULABLE && sum <= pf->cpu_bw * (uint64_t)m)
				ck_assert_uint_eq(plan->nparts, 0);
			partitioned += plan->nparts > 0;
			for (size_t j = 0; j < plan->nparts; j++) {
				ck_assert_int_eq(plan->parts[j]->ncpus, 1);
				check_domain(plan->parts[j], ts, &sv, (uint64_t)pf->cpu_bw, NULL, seen);
			}
			check_domain(plan->cluster, ts, &sv, (uint64_t)pf->cpu_bw, NULL, seen);
			ck_assert_int_eq(plan->cluster->ncpus + (int)plan->nparts, m);
			for (size_t i = 0; i < n; i++)
				ck_assert_int_eq(seen[i], 1);
		} else {
			none++;
			ck_assert_int_ge(plan->unplaced, 0);
			ck_assert_uint_lt((size_t)plan->unplaced, n);
			ck_assert(plan->why[0]);
		}
		dl_plan_free(plan);
		free(pf);
	}
	ck_assert_int_gt(feasible, 200);
	ck_assert_int_gt(partitioned, 50);
	ck_assert_int_gt(none, 50);
}
END_TEST

/* CPUs of different capacity, rechecked as above. */
START_TEST(test_capacity_plans_rechecked)
{
	/* Speeds whose stretched hyperperiods stay small: 1, 1/2, 3/4. */
	static const uint32_t kinds[] = { 1024, 512, 768 };
	unsigned seed = 2424;
	int feasible = 0, on_big = 0, none = 0;

	for (int k = 0; k < 600; k++) {
		int m = 2 + (int)(rand_r(&seed) % 3);
		size_t n = 1 + (size_t)(rand_r(&seed) % 6);
		struct dl_params p[8];
		struct dl_an_task ts[8], sv = { 1, 24, 24 };
		static const uint64_t periods[] = { 2, 3, 4, 6, 8, 12 };
		struct dl_platform *pf = random_set(&seed, m, n, periods, 6, ts, p);
		uint32_t caps[DL_CPUS_MAX];
		struct dl_plan *plan = NULL;
		int seen[8] = { 0 };

		for (int c = 0; c < DL_CPUS_MAX; c++)
			caps[c] = c < m ? kinds[rand_r(&seed) % 3] : 1024;
		pf->capacity = caps;
		ck_assert_int_eq(dl_plan_compute(p, n, pf, &plan), 0);
		ck_assert_uint_eq(plan->ntasks, n);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(plan->cap_need[i], (uint32_t)((((ts[i].c << 20) / ts[i].d)) >> 10));
		if (plan->feasible) {
			feasible++;
			for (size_t j = 0; j < plan->nparts; j++) {
				int cpu = -1;

				ck_assert_int_eq(plan->parts[j]->ncpus, 1);
				for (int c = 0; c < m; c++)
					if (dl_cpus_isset(&plan->parts[j]->cpus, c))
						cpu = c;
				ck_assert_int_ge(cpu, 0);
				check_domain(plan->parts[j], ts, &sv, (uint64_t)pf->cpu_bw, caps, seen);
				on_big += caps[cpu] == 1024 && plan->parts[j]->ntasks;
			}
			check_domain(plan->cluster, ts, &sv, (uint64_t)pf->cpu_bw, caps, seen);
			ck_assert_int_eq(plan->cluster->ncpus + (int)plan->nparts, m);
			for (size_t i = 0; i < n; i++)
				ck_assert_int_eq(seen[i], 1);
		} else {
			none++;
			ck_assert(plan->why[0]);
		}
		dl_plan_free(plan);
		free(pf);
	}
	ck_assert_int_gt(feasible, 100);
	ck_assert_int_gt(on_big, 20);
	ck_assert_int_gt(none, 20);
}
END_TEST

/* An RK3399-like board: the little CPUs first (0-1, 446), the big ones
 * after (2-3, 1024).  A task of runtime/deadline 0.6 needs capacity 614:
 * the plan gives it a big CPU, with the light tasks on the little ones. */
START_TEST(test_capacity_big_task)
{
	struct dl_platform *pf = platform(4);
	uint32_t caps[4] = { 446, 446, 1024, 1024 };
	struct dl_params p[4] = {
		{ .runtime = 6 * MS, .deadline = 10 * MS, .period = 10 * MS },
		{ .runtime = 1 * MS, .deadline = 10 * MS, .period = 10 * MS },
		{ .runtime = 1 * MS, .deadline = 10 * MS, .period = 10 * MS },
		{ .runtime = 1 * MS, .deadline = 10 * MS, .period = 10 * MS },
	};
	struct dl_global_result *g = NULL;
	struct dl_plan *plan = NULL;

	pf->capacity = caps;
	ck_assert_int_eq(dl_plan_compute(p, 4, pf, &plan), 0);
	ck_assert_msg(plan->feasible, "%s", plan->why);
	ck_assert_uint_eq(plan->cap_min, 446);
	ck_assert_uint_eq(plan->cap_max, 1024);
	ck_assert_uint_eq(plan->cap_need[0], 614);
	ck_assert_uint_eq(plan->cap_need[1], 102);
	ck_assert_uint_eq(plan->nparts, 1);
	ck_assert_int_eq(plan->parts[0]->ntasks, 1);
	ck_assert_uint_eq(plan->parts[0]->tasks[0], 0);
	ck_assert(dl_cpus_isset(&plan->parts[0]->cpus, 2));
	ck_assert_uint_eq(plan->parts[0]->cap_min, 1024);
	ck_assert_uint_eq(plan->cluster->cap_min, 446);
	ck_assert_uint_eq(plan->cluster->cap_max, 1024);
	/* Every task on every CPU: the kernel may run the wide one on a
	 * little CPU, which it does not fit. */
	ck_assert_int_eq(plan->global->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(plan->global->limiting, 0);
	ck_assert_msg(strstr(plan->global->why, "the limiting task needs a CPU of capacity 614"), "%s", plan->global->why);
	/* The cluster's free figure: cap_scale(0.95, 446 + 446 + 1024)
	 * less three fair servers (0.05 each) and three tasks (0.1 each). */
	ck_assert_int_eq(plan->cluster->free_bw,
			 (int64_t)((996147ULL * (446 + 446 + 1024)) >> 10) - 3 * 52428 - 3 * 104857);
	dl_plan_free(plan);

	/* On four alike CPUs the same set needs no partition. */
	pf->capacity = NULL;
	ck_assert_int_eq(dl_plan_compute(p, 4, pf, &plan), 0);
	ck_assert_uint_eq(plan->nparts, 0);
	ck_assert_uint_eq(plan->cap_min, 1024);
	dl_plan_free(plan);

	/* Only little CPUs: no CPU fits it. */
	caps[2] = caps[3] = 446;
	pf->capacity = caps;
	ck_assert_int_eq(dl_plan_compute(p, 4, pf, &plan), 0);
	ck_assert(!plan->feasible);
	ck_assert_int_eq(plan->unplaced, 0);
	ck_assert_msg(strstr(plan->why, "needs a CPU of capacity 614") && strstr(plan->why, "the biggest CPU has 446"),
		      "%s", plan->why);
	dl_plan_free(plan);

	/* A capacity out of range is bad input. */
	caps[1] = 0;
	ck_assert_int_eq(dl_plan_compute(p, 4, pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "CPU 1 of the platform has capacity 0: give 1 to 1024"), "%s", dl_errmsg());
	caps[1] = 446;
	/* The global test on these CPUs names the speed it counted. */
	p[0].runtime = 4 * MS; /* needs 409: fits 446 */
	ck_assert_int_eq(dl_an_global_on(p, 4, pf, &g), 0);
	ck_assert_msg(strstr(g->why, "on 4 CPUs of capacity 446 under global EDF: "), "%s", g->why);
	free(g);
	/* A fair server of 0.8 (20ms every 25ms) needs capacity 819. */
	pf->server = (struct dl_params){ .runtime = 20 * MS, .deadline = 25 * MS, .period = 25 * MS };
	ck_assert_int_eq(dl_an_global_on(&p[1], 1, pf, &g), 0);
	ck_assert_int_eq(g->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(g->limiting, -1);
	ck_assert_msg(strstr(g->why, "the fair server needs a CPU of capacity 819"), "%s", g->why);
	free(g);
	ck_assert_int_eq(dl_plan_compute(&p[1], 1, pf, &plan), 0);
	ck_assert(!plan->feasible);
	dl_plan_free(plan);
	free(pf);
}
END_TEST

START_TEST(test_bad_platform)
{
	struct dl_platform *pf = platform(2);
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	struct dl_plan *plan;

	pf->ncpus = 3; /* disagrees with its CPU set */
	ck_assert_int_eq(dl_plan_compute(&p, 1, pf, &plan), -EINVAL);
	ck_assert_ptr_nonnull(strstr(dl_errmsg(), "must agree"));
	ck_assert_int_eq(dl_platform_get(pf, -1), -EINVAL);
	ck_assert_int_eq(dl_platform_init(pf, 0), -EINVAL);
	ck_assert_int_eq(dl_platform_get(NULL, 0), -EINVAL);
	free(pf);
}
END_TEST

/* dl-part plan: exit 0 with a plan, 1 without, 2 for bad input; the
 * JSON fields scripts rely on. */
static int plan_tool(const char *text, char *const *opts, char *out, size_t len)
{
	char path[] = "/tmp/libdl-test-plan-XXXXXX", err[4096];
	char *args[8] = { "plan" };
	int fd = mkstemp(path), n = 1, ret;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	for (; opts && *opts && n < 6; opts++)
		args[n++] = *opts;
	args[n++] = path;
	args[n] = NULL;
	ret = tl_run_tool("dl-part", args, out, len, err, sizeof(err));
	unlink(path);
	if (ret == 2)
		snprintf(out, len, "%s", err);
	return ret;
}

START_TEST(test_tool)
{
	char out[16384];

	ck_assert_int_eq(plan_tool("heavy 8ms 9ms 9ms\nlight 2.5ms 8ms 8ms count=2\n",
				   (char *[]){ "--json", "--cpus", "2", NULL }, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"feasible\":true"));
	ck_assert_ptr_nonnull(strstr(out, "\"cpus\":2"));
	/* Global EDF misses heavy's deadline, yet the plan meets them all:
	 * not guaranteed, not infeasible. */
	ck_assert_ptr_nonnull(strstr(out, "\"global\":{\"verdict\":\"not guaranteed\""));
	ck_assert_ptr_nonnull(strstr(out, "heavy misses its deadline at 9ms"));
	ck_assert_ptr_nonnull(strstr(out, "\"partitions\":[{\"name\":\"cpu0\",\"cpus\":\"0\",\"ncpus\":1,\"tasks\":[\"heavy\"]"));
	ck_assert_ptr_nonnull(strstr(out, "\"cluster\":{\"name\":\"cluster\",\"cpus\":\"1\",\"ncpus\":1,\"tasks\":[\"light.1\",\"light.2\"],\"test\":\"QPA\""));
	ck_assert_int_eq(plan_tool("a 9.3ms 10ms 10ms count=3\n", (char *[]){ "--cpus", "2", NULL },
				   out, sizeof(out)), 1);
	ck_assert_ptr_nonnull(strstr(out, "no plan: a."));
	ck_assert_ptr_nonnull(strstr(out, " cannot be placed: "));
	ck_assert_int_eq(plan_tool("a 11ms 10ms 10ms\n", NULL, out, sizeof(out)), 2);
	ck_assert_ptr_nonnull(strstr(out, "longer than the deadline"));
	ck_assert_int_eq(plan_tool("a 1ms 10ms 10ms\n", (char *[]){ "--cpus", "0", NULL }, out, sizeof(out)), 2);
}
END_TEST

/* dl-part plan --fair-server: the gain of a server off (two 0.93 tasks
 * that do not fit with 50ms/1s fit without it) and the cost of a large
 * one, in words and in JSON. */
/* dl-part plan --capacity: the little CPUs first, the big after. */
START_TEST(test_tool_capacity)
{
	const char *set = "wide 6ms 10ms 10ms\nctl 2ms 10ms 10ms\nlog 1ms 20ms 20ms\n";
	char out[16384];

	ck_assert_int_eq(plan_tool(set, (char *[]){ "--capacity", "446x2,1024x2", NULL }, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "CPU capacities: 2-3 of 1024, 0-1 of 446"), "%s", out);
	ck_assert_msg(strstr(out, "  wide needs a CPU of capacity 614 or more: CPUs 2-3\n"), "%s", out);
	ck_assert_msg(strstr(out, "  cpu2       CPUs 2      partition"), "%s", out);
	ck_assert_msg(strstr(out, "    capacity 446 to 1024: the tests count every CPU at 446\n"), "%s", out);
	ck_assert_int_eq(plan_tool(set, (char *[]){ "--json", "--capacity", "446,446,1024,1024", NULL }, out,
				   sizeof(out)), 0);
	ck_assert_msg(strstr(out, "\"cpus\":4,"), "%s", out);
	ck_assert_msg(strstr(out, "\"cpu_capacity\":[446,446,1024,1024]"), "%s", out);
	ck_assert_msg(strstr(out, "\"cpu_capacity_need\":{\"wide\":614,\"ctl\":204,\"log\":51}"), "%s", out);
	ck_assert_msg(strstr(out, "\"partitions\":[{\"name\":\"cpu2\",\"cpus\":\"2\",\"ncpus\":1,\"tasks\":[\"wide\"]"), "%s", out);
	ck_assert_msg(strstr(out, "\"cpu_capacity_min\":446,\"cpu_capacity_max\":1024}"), "%s", out);
	/* Only little CPUs: no plan, and why. */
	ck_assert_int_eq(plan_tool(set, (char *[]){ "--capacity", "446x4", NULL }, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "no plan: wide cannot be placed: it needs a CPU of capacity 614 to run 6ms by its deadline, and the biggest CPU has 446"),
		      "%s", out);
	/* Bad input: a capacity out of range, a count that disagrees. */
	ck_assert_int_eq(plan_tool(set, (char *[]){ "--capacity", "1025", NULL }, out, sizeof(out)), 2);
	ck_assert_msg(strstr(out, "each CPU's capacity is 1 to 1024"), "%s", out);
	ck_assert_int_eq(plan_tool(set, (char *[]){ "--capacity", "446x0", NULL }, out, sizeof(out)), 2);
	ck_assert_int_eq(plan_tool(set, (char *[]){ "--cpus", "3", "--capacity", "446x4", NULL }, out, sizeof(out)), 2);
	ck_assert_msg(strstr(out, "--cpus 3 but --capacity gives 4 CPUs"), "%s", out);
}
END_TEST

START_TEST(test_tool_server)
{
	char out[16384];

	ck_assert_int_eq(plan_tool("a 9.3ms 10ms 10ms count=2\n", (char *[]){ "--cpus", "2", NULL }, out,
				   sizeof(out)), 1);
	ck_assert_int_eq(plan_tool("a 9.3ms 10ms 10ms count=2\n",
				   (char *[]){ "--cpus", "2", "--fair-server", "off", NULL }, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "fair server off for the plan, against the kernel's default 50ms every 1s: each CPU admits 0.9500 of deadline tasks instead of 0.9000 (+0.0500 per CPU, +0.1000 on 2 CPUs)"),
		      "%s", out);
	ck_assert_msg(strstr(out, "  with 50ms every 1s: no plan (a."), "%s", out);
	ck_assert_msg(strstr(out, "cannot be placed); with off: a plan of 0 partitions, margin 0.0400"), "%s", out);
	ck_assert_msg(strstr(out, "  every task fits now\n"), "%s", out);
	ck_assert_int_eq(plan_tool("a 9.3ms 10ms 10ms count=2\n",
				   (char *[]){ "--cpus", "2", "--fair-server", "0/1s", "--json", NULL }, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "\"fair_server_bw\":0,\"fair_server\":{\"runtime_ns\":0,\"period_ns\":0,\"bw\":0},\"fair_server_change\":{\"baseline_fair_server\":{\"runtime_ns\":50000000,\"period_ns\":1000000000,\"bw\":52428},\"per_cpu_gain_bw\":52428,\"gain_bw\":104856,\"baseline_feasible\":false,\"baseline_partitions\":0,\"baseline_margin_bw\":null,\"baseline_unplaced\":\"a."),
		      "%s", out);
	/* ChromiumOS's 20ms/25ms: 0.15 per CPU left, the heavy task no longer fits. */
	ck_assert_int_eq(plan_tool("heavy 8ms 9ms 9ms\nlight 2.5ms 8ms 8ms count=2\n",
				   (char *[]){ "--cpus", "2", "--fair-server", "20ms/25ms", NULL }, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "each CPU admits 0.1500 of deadline tasks instead of 0.9000 (-0.7500 per CPU, -1.5000 on 2 CPUs)"),
		      "%s", out);
	ck_assert_msg(strstr(out, "  with 50ms every 1s: a plan of 1 partition, margin "), "%s", out);
	ck_assert_msg(strstr(out, "  the tasks no longer all fit\n"), "%s", out);
	ck_assert_int_eq(plan_tool("a 1ms 10ms 10ms\n", (char *[]){ "--fair-server", "1s/1s", NULL }, out,
				   sizeof(out)), 2);
	ck_assert_msg(strstr(out, "more than the admission cap"), "%s", out);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plans");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_article);
	tcase_add_test(tc, test_global_enough);
	tcase_add_test(tc, test_platform_reserved);
	tcase_add_test(tc, test_no_plan);
	tcase_add_test(tc, test_server_input);
	tcase_add_test(tc, test_random_plans_rechecked);
	tcase_add_test(tc, test_bad_platform);
	tcase_add_test(tc, test_capacity_plans_rechecked);
	tcase_add_test(tc, test_capacity_big_task);
	tcase_add_test(tc, test_tool);
	tcase_add_test(tc, test_tool_server);
	tcase_add_test(tc, test_tool_capacity);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
