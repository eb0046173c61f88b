/*
 * Schedulability analysis: known answers from the literature and by
 * hand, and the exact test against a brute-force demand check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "brute.h"
#include "testlib.h"

#define MS 1000000ULL

#define T(c, d, t) { .runtime = (c), .deadline = (d), .period = (t) }

static const struct dl_params fair = { .runtime = 50 * MS, .deadline = 1000 * MS, .period = 1000 * MS };

static struct dl_edf_result *edf(const struct dl_params *p, size_t n, const struct dl_params *sv)
{
	struct dl_edf_result *r = NULL;

	ck_assert_int_eq(dl_edf_test(p, n, sv, &r), 0);
	return r;
}

static struct dl_global_result *global(const struct dl_params *p, size_t n, int m)
{
	struct dl_global_result *r = NULL;

	ck_assert_int_eq(dl_global_test(p, n, m, NULL, &r), 0);
	return r;
}

/* Documentation/scheduler/sched-deadline.rst, 3.2: (50ms, 50ms, 100ms)
 * and (10ms, 100ms, 100ms) have density 1.1 yet EDF meets every
 * deadline: the density test refuses, the exact test accepts, with the
 * fair server as well. */
START_TEST(test_kernel_doc_example)
{
	struct dl_params p[] = {
		{ .runtime = 50 * MS, .deadline = 50 * MS, .period = 100 * MS },
		{ .runtime = 10 * MS, .deadline = 100 * MS, .period = 100 * MS },
	};
	struct dl_an_task ts[] = { { 50 * MS, 50 * MS, 100 * MS }, { 10 * MS, 100 * MS, 100 * MS } };
	struct dl_edf_result *r;
	ssize_t lim;

	ck_assert_int_eq(dl_gfb(ts, 2, 1, NULL, &lim), 0); /* density 1.1 > 1 */
	r = edf(p, 2, NULL);
	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	/* Task 1 finishes at 50ms, task 2 at 60ms: 50ms of task 1 is all
	 * the room there is, so runtimes cannot grow at all. */
	ck_assert_uint_eq(r->scaling, DL_BW_UNIT);
	free(r);
	r = edf(p, 2, &fair);
	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	free(r);
}
END_TEST

/* By hand: (1, 2, 4) and (2, 3, 6) ms: h(2ms) = 1ms, h(3ms) = 3ms = t,
 * h(6ms) = 4ms.  At the boundary it passes; one more nanosecond of the
 * second task's runtime and the demand at 3ms is 3ms + 1ns. */
START_TEST(test_exact_boundary)
{
	struct dl_params p[] = {
		{ .runtime = 1 * MS, .deadline = 2 * MS, .period = 4 * MS },
		{ .runtime = 2 * MS, .deadline = 3 * MS, .period = 6 * MS },
	};
	struct dl_edf_result *r = edf(p, 2, NULL);

	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	free(r);
	p[1].runtime++;
	r = edf(p, 2, NULL);
	ck_assert_int_eq(r->verdict, DL_INFEASIBLE);
	ck_assert_uint_eq(r->fail_t, 3 * MS);
	ck_assert_uint_eq(r->fail_demand, 3 * MS + 1);
	ck_assert_int_eq(r->limiting, 1);
	ck_assert_uint_lt(r->scaling, DL_BW_UNIT);
	free(r);
}
END_TEST

/* Implicit deadlines at U = 1 exactly pass (Liu and Layland); one
 * nanosecond more and the demand at 12ms is 12ms + 3ns. */
START_TEST(test_utilization_one)
{
	struct dl_params p[] = {
		{ .runtime = 2 * MS, .period = 4 * MS },
		{ .runtime = 3 * MS, .period = 6 * MS },
	};
	struct dl_edf_result *r = edf(p, 2, NULL);

	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	ck_assert_uint_eq(r->util, DL_BW_UNIT);
	free(r);
	p[0].runtime++;
	r = edf(p, 2, NULL);
	ck_assert_int_eq(r->verdict, DL_INFEASIBLE);
	ck_assert_uint_eq(r->fail_t, 12 * MS);
	ck_assert_uint_eq(r->fail_demand, 12 * MS + 3);
	free(r);
}
END_TEST

/* GFB at equality: three tasks of density 0.5 on 2 CPUs, 1.5 <= 2 - 0.5:
 * accepted ("<=", not "<"), margin 0; one nanosecond more, refused. */
START_TEST(test_gfb_equality)
{
	struct dl_params p[] = {
		{ .runtime = 5 * MS, .period = 10 * MS },
		{ .runtime = 5 * MS, .period = 10 * MS },
		{ .runtime = 5 * MS, .period = 10 * MS },
	};
	struct dl_global_result *r = global(p, 3, 2);

	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	ck_assert_int_eq(r->result[DL_TEST_GFB], 1);
	ck_assert_int_eq(r->accepted_by, DL_TEST_GFB);
	ck_assert_int_eq(r->margin, 0);
	free(r);
	p[0].runtime++;
	r = global(p, 3, 2);
	ck_assert_int_eq(r->result[DL_TEST_GFB], 0);
	free(r);
}
END_TEST

/* Sets exactly on GFB's bound, sum C/D = m - (m - 1) max C/D, whose
 * densities (thirds) no binary fraction holds: accepted, as the paper
 * says, and refused one nanosecond above it. */
START_TEST(test_gfb_thirds)
{
	static const struct {
		int m;
		size_t n;
		struct dl_params p[3];
	} sets[] = {
		{ 1, 2, { T(1 * MS, 3 * MS, 3 * MS), T(2 * MS, 3 * MS, 3 * MS) } },
		{ 2, 3, { T(2 * MS, 3 * MS, 3 * MS), T(1 * MS, 3 * MS, 3 * MS), T(1 * MS, 3 * MS, 3 * MS) } },
	};

	for (size_t k = 0; k < ARRAY_SIZE(sets); k++) {
		struct dl_params p[3];
		struct dl_an_task ts[3];
		struct dl_global_result *r;
		int64_t margin;
		ssize_t lim;

		memcpy(p, sets[k].p, sizeof(p));
		for (size_t i = 0; i < sets[k].n; i++)
			ts[i] = (struct dl_an_task){ p[i].runtime / MS, p[i].deadline / MS, p[i].period / MS };
		ck_assert_msg(dl_gfb(ts, sets[k].n, sets[k].m, NULL, &lim), "set %zu in ns", k);
		r = global(p, sets[k].n, sets[k].m);
		ck_assert_msg(r->result[DL_TEST_GFB] == 1, "set %zu: %s", k, r->why);
		ck_assert_int_eq(r->margin, 0);
		ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
		free(r);
		/* GFB refuses (on one CPU it does not even run: U > 1). */
		p[sets[k].n - 1].runtime++;
		r = global(p, sets[k].n, sets[k].m);
		ck_assert_msg(r->result[DL_TEST_GFB] != 1, "set %zu plus 1ns", k);
		free(r);
		for (size_t i = 0; i < sets[k].n; i++)
			ts[i] = (struct dl_an_task){ p[i].runtime, p[i].deadline, p[i].period };
		ck_assert_int_eq(dl_gfb(ts, sets[k].n, sets[k].m, &margin, &lim), 0);
		ck_assert_int_lt(margin, 0);
	}
}
END_TEST

/* Dhall's effect (sched-deadline.rst 3.3): M tasks (e, P-1, P-1) and one
 * (P, P, P) on M CPUs: utilization barely above 1, and the big task
 * misses at P when all are released together.  Not infeasible: the big
 * task alone on a CPU meets every deadline. */
START_TEST(test_dhall)
{
	struct dl_params p[] = {
		{ .runtime = 1 * MS, .period = 9 * MS },
		{ .runtime = 1 * MS, .period = 9 * MS },
		{ .runtime = 10 * MS, .period = 10 * MS },
	};
	struct dl_global_result *r = global(p, 3, 2);

	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(r->limiting, 2);
	ck_assert_uint_eq(r->miss_at, 10 * MS);
	ck_assert_int_eq(r->accepted_by, -1);
	ck_assert_ptr_nonnull(strstr(r->why, "task 2 misses its deadline at 10ms"));
	ck_assert_ptr_null(strstr(r->why, "infeasible"));
	free(r);
}
END_TEST

/* A miss of the simulation is its schedule's: on 2 CPUs, (4, 4, 4) misses
 * at 8 when equal deadlines go to the lower index, as the simulation
 * breaks ties, and every deadline is met with the tasks in reverse (the
 * other tie-break).  Neither is called infeasible; the sentence says
 * which schedule missed. */
START_TEST(test_gedf_tie)
{
	struct dl_params p[] = { T(2, 5, 8), T(1, 8, 8), T(4, 4, 4), T(1, 2, 2) };
	struct dl_params rev[] = { T(1, 2, 2), T(4, 4, 4), T(1, 8, 8), T(2, 5, 8) };
	struct dl_global_result *r = global(p, 4, 2);

	ck_assert_int_eq(r->accepted_by, -1);
	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(r->limiting, 2);
	ck_assert_uint_eq(r->miss_at, 8);
	ck_assert_ptr_nonnull(strstr(r->why, "equal deadlines in task order, task 2 misses its deadline at 8ns"));
	free(r);
	r = global(rev, 4, 2);
	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_uint_eq(r->miss_at, 0);
	ck_assert_ptr_null(strstr(r->why, "misses"));
	free(r);
}
END_TEST

/* More than M CPUs' worth: infeasible without any simulation. */
START_TEST(test_overutilized)
{
	struct dl_params p[] = {
		{ .runtime = 9 * MS, .period = 10 * MS },
		{ .runtime = 9 * MS, .period = 10 * MS },
		{ .runtime = 3 * MS, .period = 10 * MS },
	};
	struct dl_global_result *r = global(p, 3, 2);

	ck_assert_int_eq(r->verdict, DL_INFEASIBLE);
	ck_assert_ptr_nonnull(strstr(r->why, "more than the 2"));
	free(r);
}
END_TEST

/* n <= m: each task its own CPU. */
START_TEST(test_n_le_m)
{
	struct dl_params p[] = {
		{ .runtime = 10 * MS, .period = 10 * MS },
		{ .runtime = 10 * MS, .period = 10 * MS },
	};
	struct dl_global_result *r = global(p, 2, 2);

	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	ck_assert_int_eq(r->accepted_by, DL_TEST_NM);
	free(r);
}
END_TEST

/* Sets (in ns) where exactly one of the sufficient tests accepts, found
 * by a random search and checked against the simulation. */
struct only {
	int test, m;
	size_t n;
	struct dl_params p[5];
};

static const struct only onlies[] = {
	{ DL_TEST_GFB, 2, 3, { T(2, 4, 6), T(4, 9, 25), T(3, 6, 7) } },
	{ DL_TEST_GFB, 2, 4, { T(6, 19, 31), T(4, 9, 9), T(2, 6, 9), T(4, 11, 16) } },
	{ DL_TEST_BAK, 2, 4, { T(3, 9, 23), T(3, 13, 13), T(5, 11, 17), T(6, 12, 30) } },
	{ DL_TEST_BAK, 2, 4, { T(5, 13, 36), T(5, 18, 23), T(8, 15, 23), T(6, 22, 25) } },
	{ DL_TEST_RTA, 3, 4, { T(1, 25, 31), T(2, 2, 5), T(2, 2, 2), T(1, 2, 3) } },
	{ DL_TEST_RTA, 3, 4, { T(9, 27, 30), T(1, 1, 8), T(5, 5, 20), T(1, 2, 6) } },
};

START_TEST(test_only_one_accepts)
{
	for (size_t k = 0; k < ARRAY_SIZE(onlies); k++) {
		const struct only *o = &onlies[k];
		struct dl_global_result *r = global(o->p, o->n, o->m);

		for (int t = DL_TEST_GFB; t <= DL_TEST_RTA; t++)
			ck_assert_msg(r->result[t] == (t == o->test), "case %zu: %s says %d",
				      k, dl_test_name(t), r->result[t]);
		ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
		free(r);
	}
}
END_TEST

/* The RTA's bounds: 2 CPUs, three tasks (1, 3, 3) ns: a third task waits
 * at most floor((1 + 1) / 2) = 1, so each responds within 2. */
START_TEST(test_rta_bounds)
{
	struct dl_params p[] = { T(2048, 6144, 6144), T(2048, 6144, 6144), T(2048, 6144, 6144) };
	struct dl_global_result *r = global(p, 3, 2);

	ck_assert_int_eq(r->result[DL_TEST_RTA], 1);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_uint_ge(r->response[i], 2048);
		ck_assert_uint_le(r->response[i], 4096);
	}
	free(r);
}
END_TEST

START_TEST(test_bad_input)
{
	struct dl_params p[] = { { .runtime = 5 * MS, .deadline = 4 * MS, .period = 10 * MS } };
	struct dl_edf_result *e;
	struct dl_global_result *g;

	ck_assert_int_eq(dl_edf_test(p, 1, NULL, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(dl_errmsg(), "task 0"));
	ck_assert_int_eq(dl_global_test(p, 1, 2, NULL, &g), -EINVAL);
	p[0].runtime = 1 * MS;
	ck_assert_int_eq(dl_global_test(p, 1, 0, NULL, &g), -EINVAL);
	ck_assert_int_eq(dl_edf_test(p, 1, NULL, NULL), -EINVAL);
}
END_TEST

/* ---- against brute force, independent of the library's code (tests/lib/brute.c) ---- */

static void random_set(struct dl_an_task *ts, size_t n, unsigned *seed)
{
	for (size_t i = 0; i < n; i++) {
		ts[i].t = 2 + (uint64_t)(rand_r(seed) % 24);
		ts[i].d = 1 + (uint64_t)(rand_r(seed) % ts[i].t);
		ts[i].c = 1 + (uint64_t)(rand_r(seed) % (ts[i].d < 6 ? ts[i].d : ts[i].d / 2 + 1));
	}
}

/* QPA and brute force agree on thousands of random small sets, and a
 * failing t that QPA reports is a deadline with demand above it. */
START_TEST(test_qpa_vs_brute_force)
{
	unsigned seed = 12345;
	int yes = 0, no = 0;

	for (int k = 0; k < 5000; k++) {
		struct dl_an_task ts[6];
		size_t n = 1 + (size_t)(rand_r(&seed) % 6);
		struct dl_qpa_out o;
		bool b;

		random_set(ts, n, &seed);
		dl_qpa(ts, n, &o);
		b = tl_brute_edf(ts, n);
		ck_assert_msg((o.verdict == DL_SCHEDULABLE) == b, "set %d: QPA %d, brute force %d", k, o.verdict, b);
		if (!b) {
			ck_assert_uint_gt(o.fail_demand, o.fail_t);
			ck_assert_uint_eq(dl_an_demand(ts, n, o.fail_t), o.fail_demand);
			ck_assert_int_ge(o.limiting, 0);
			ck_assert_uint_eq((o.fail_t - ts[o.limiting].d) % ts[o.limiting].t, 0);
			no++;
		} else {
			yes++;
		}
	}
	/* Both answers were exercised. */
	ck_assert_int_gt(yes, 500);
	ck_assert_int_gt(no, 500);
}
END_TEST

/* Whatever a sufficient test accepts never misses in the simulation; a
 * miss the library's simulation reports is one the step-by-step
 * simulation finds too. */
START_TEST(test_global_tests_vs_simulation)
{
	unsigned seed = 777;
	int accepted = 0, proven = 0;

	for (int k = 0; k < 3000; k++) {
		struct dl_an_task ts[8];
		int m = 2 + (int)(rand_r(&seed) % 3);
		size_t n = (size_t)m + 1 + (size_t)(rand_r(&seed) % 4);
		ssize_t lim, who;
		uint64_t when;
		int any;

		random_set(ts, n, &seed);
		if (dl_an_util_cmp(ts, n, (uint64_t)m) == 1)
			continue;
		any = dl_gfb(ts, n, m, NULL, &lim) | dl_bak(ts, n, m, &lim) |
		      dl_bcl(ts, n, m, &lim) | dl_rta(ts, n, m, NULL, &lim);
		if (any) {
			accepted++;
			ck_assert_msg(!tl_brute_gedf_misses(ts, n, m), "set %d accepted but misses", k);
		} else if (dl_gedf_sim(ts, n, m, &who, &when)) {
			proven++;
			ck_assert(tl_brute_gedf_misses(ts, n, m));
		}
	}
	ck_assert_int_gt(accepted, 100);
	ck_assert_int_gt(proven, 20);
}
END_TEST

/* ---- GFB and Baker's test against the papers' formulas in exact rationals ---- */

typedef __int128 i128;

static i128 mul(i128 a, i128 b)
{
	i128 x;

	ck_assert_msg(!__builtin_mul_overflow(a, b, &x), "the reference's numbers pass 127 bits");
	return x;
}

static i128 lcm(i128 a, i128 b)
{
	i128 x = a, y = b;

	while (y) {
		i128 r = x % y;

		x = y;
		y = r;
	}
	return mul(a / x, b);
}

static int sign(i128 lhs, i128 rhs)
{
	return lhs < rhs ? -1 : lhs > rhs;
}

/* GFB (Goossens, Funk, Baruah 2003): sum C/D <= m - (m - 1) max C/D.
 * Its left side plus (m - 1) max C/D, over *l, the deadlines' common
 * multiple. */
static i128 gfb_sum(const struct dl_an_task *ts, size_t n, int m, i128 *l)
{
	i128 sum = 0, max = 0;

	*l = 1;
	for (size_t i = 0; i < n; i++)
		*l = lcm(*l, ts[i].d);
	for (size_t i = 0; i < n; i++) {
		i128 x = mul(ts[i].c, *l / ts[i].d);

		sum += x;
		max = x > max ? x : max;
	}
	return sum + mul(m - 1, max);
}

/* GFB's verdict: -1 below the bound, 0 on it, 1 above (refused). */
static int ref_gfb(const struct dl_an_task *ts, size_t n, int m)
{
	i128 l, sum = gfb_sum(ts, n, m, &l);

	return sign(sum, mul(m, l));
}

/* Baker 2005, for task k with lambda = C_k/D_k:
 * sum_i min(1, beta_i) <= m (1 - lambda) + lambda, where
 * beta_i = U_i (1 + (T_i - D_i)/D_k) + max(0, C_i - lambda T_i)/D_k,
 * all over bak_den(k) = D_k lcm(D_k, every T_i). */
static i128 bak_den(const struct dl_an_task *ts, size_t n, size_t k)
{
	i128 l = ts[k].d;

	for (size_t i = 0; i < n; i++)
		l = lcm(l, ts[i].t);
	return mul(l, ts[k].d);
}

/* beta_i times l. */
static i128 bak_beta(const struct dl_an_task *ts, size_t i, size_t k, i128 l)
{
	/* U_i (1 + (T_i - D_i)/D_k) = C_i (D_k + T_i - D_i) / (T_i D_k) */
	i128 beta = mul(mul(ts[i].c, (i128)ts[k].d + ts[i].t - ts[i].d), l / mul(ts[i].t, ts[k].d));
	/* (C_i - lambda T_i)/D_k = (C_i D_k - C_k T_i) / D_k^2 */
	i128 over = mul(ts[i].c, ts[k].d) - mul(ts[k].c, ts[i].t);

	return over > 0 ? beta + mul(over, l / mul(ts[k].d, ts[k].d)) : beta;
}

/* (m - 1) lambda times l: the bound is m - (m - 1) lambda. */
static i128 bak_lambdas(const struct dl_an_task *ts, size_t k, int m, i128 l)
{
	return mul(mul(m - 1, ts[k].c), l / ts[k].d);
}

/* The test for every k: the worst k's sign, as ref_gfb's. */
static int ref_bak(const struct dl_an_task *ts, size_t n, int m)
{
	int res = -1;

	for (size_t k = 0; k < n; k++) {
		i128 l = bak_den(ts, n, k), sum = bak_lambdas(ts, k, m, l);

		for (size_t i = 0; i < n; i++) {
			i128 beta = bak_beta(ts, i, k, l);

			sum += beta < l ? beta : l;
		}
		if (sign(sum, mul(m, l)) > res)
			res = sign(sum, mul(m, l));
	}
	return res;
}

/* The library's GFB and BAK say what the references say: accepted when
 * the sum is at most the bound. */
static void check_gfb_bak(const struct dl_an_task *ts, size_t n, int m, const char *what, int k)
{
	ssize_t lim;

	ck_assert_msg(dl_gfb(ts, n, m, NULL, &lim) == (ref_gfb(ts, n, m) <= 0), "%s %d: GFB", what, k);
	ck_assert_msg(dl_bak(ts, n, m, &lim) == (ref_bak(ts, n, m) <= 0), "%s %d: BAK", what, k);
}

/* The set with every time times f. */
static void scaled(struct dl_an_task *to, const struct dl_an_task *ts, size_t n, uint64_t f)
{
	for (size_t i = 0; i < n; i++)
		to[i] = (struct dl_an_task){ ts[i].c * f, ts[i].d * f, ts[i].t * f };
}

/* Every runtime times p, every deadline and period times q: each ratio
 * C/D and C/T times p/q.  False when a runtime would pass its deadline
 * or a period 2^62. */
static bool stretched(struct dl_an_task *to, const struct dl_an_task *ts, size_t n, i128 p, i128 q)
{
	for (size_t i = 0; i < n; i++) {
		i128 c = mul(ts[i].c, p), d = mul(ts[i].d, q), t = mul(ts[i].t, q);

		if (c > d || t > (i128)1 << 62)
			return false;
		to[i] = (struct dl_an_task){ (uint64_t)c, (uint64_t)d, (uint64_t)t };
	}
	return true;
}

/* One nanosecond more runtime for the first task that can take it and
 * then lies above the bound (by cmp); false when none does. */
static bool one_above(struct dl_an_task *ts, size_t n, int m, int (*cmp)(const struct dl_an_task *, size_t, int))
{
	for (size_t i = 0; i < n; i++) {
		if (ts[i].c == ts[i].d)
			continue;
		ts[i].c++;
		if (cmp(ts, n, m) > 0)
			return true;
		ts[i].c--;
	}
	return false;
}

/*
 * Random sets in nanoseconds, the same sets in milliseconds, and sets
 * put exactly on each bound (every runtime stretched by the bound over
 * the sum) and one nanosecond above it: the library's verdict is the
 * reference's on every one.  The bound is a linear sum of the runtimes
 * for GFB, and for Baker's test while no beta_i reaches 1 (the stretched
 * sets where one does are not on the bound and are checked as they are).
 */
START_TEST(test_gfb_bak_vs_exact)
{
	unsigned seed = 2003;
	int on[2] = { 0, 0 }, above[2] = { 0, 0 }, accepted[2] = { 0, 0 }, sets = 400;

	for (int k = 0; k < sets; k++) {
		struct dl_an_task ts[6], big[6], on_b[6];
		int m = 1 + (int)(rand_r(&seed) % 4);
		size_t n = 1 + (size_t)(rand_r(&seed) % 6);
		i128 lg, sg, lb = 1, sb = 0;

		for (size_t i = 0; i < n; i++) {
			ts[i].t = 2 + (uint64_t)(rand_r(&seed) % 11);
			ts[i].d = 1 + (uint64_t)(rand_r(&seed) % ts[i].t);
			ts[i].c = 1 + (uint64_t)(rand_r(&seed) % ts[i].d);
		}
		check_gfb_bak(ts, n, m, "random set", k);
		scaled(big, ts, n, MS);
		check_gfb_bak(big, n, m, "random set in ms", k);
		accepted[0] += ref_gfb(ts, n, m) <= 0;
		accepted[1] += ref_bak(ts, n, m) <= 0;

		/* GFB: the runtimes times m / S, S its sum, put it on m.  No
		 * runtime passes its deadline: S >= m max C/D. */
		sg = gfb_sum(ts, n, m, &lg);
		ck_assert(stretched(on_b, ts, n, mul(m, lg), sg));
		ck_assert_int_eq(ref_gfb(on_b, n, m), 0);
		check_gfb_bak(on_b, n, m, "set on GFB's bound", k);
		on[0]++;
		if (one_above(on_b, n, m, ref_gfb)) {
			check_gfb_bak(on_b, n, m, "set 1ns above GFB's bound", k);
			above[0]++;
		}

		/* Baker: the largest sum over k without the min(1, .),
		 * stretched onto m in the same way: on the bound unless a
		 * beta_i of that k then passes 1. */
		for (size_t j = 0; j < n; j++) {
			i128 l = bak_den(ts, n, j), sum = bak_lambdas(ts, j, m, l);

			for (size_t i = 0; i < n; i++)
				sum += bak_beta(ts, i, j, l);
			if (j == 0 || mul(sum, lb) > mul(sb, l)) {
				sb = sum;
				lb = l;
			}
		}
		if (!stretched(on_b, ts, n, mul(m, lb), sb))
			continue;
		check_gfb_bak(on_b, n, m, "set stretched onto Baker's bound", k);
		if (ref_bak(on_b, n, m) != 0)
			continue;
		on[1]++;
		if (one_above(on_b, n, m, ref_bak)) {
			check_gfb_bak(on_b, n, m, "set 1ns above Baker's bound", k);
			above[1]++;
		}
	}
	tl_note("%d random sets (each in ns and in ms): GFB accepts %d, BAK %d; on the bound: GFB %d, BAK %d; "
		"1ns above: GFB %d, BAK %d", sets, accepted[0], accepted[1], on[0], on[1], above[0], above[1]);
	ck_assert_int_gt(accepted[0], 50);
	ck_assert_int_lt(accepted[0], sets - 50);
	ck_assert_int_gt(accepted[1], 50);
	ck_assert_int_gt(on[1], 300);
	ck_assert_int_gt(above[0], 300);
	ck_assert_int_gt(above[1], 250);
}
END_TEST

/*
 * No set accepts by BCL alone: the response-time analysis (Bertogna and
 * Cirinei 2007) starts from BCL's interference bound over a window of
 * the deadline and only tightens it with the slack it finds, so whatever
 * BCL accepts it accepts too.  The "only BCL" case of the issue cannot
 * exist; this checks the domination instead, on random sets.
 */
START_TEST(test_bcl_within_rta)
{
	unsigned seed = 4242;
	int bcl = 0;

	for (int k = 0; k < 20000; k++) {
		struct dl_an_task ts[8];
		int m = 2 + (int)(rand_r(&seed) % 3);
		size_t n = (size_t)m + 1 + (size_t)(rand_r(&seed) % 4);
		ssize_t lim;

		random_set(ts, n, &seed);
		if (dl_an_util_cmp(ts, n, (uint64_t)m) == 1 || !dl_bcl(ts, n, m, &lim))
			continue;
		bcl++;
		ck_assert_msg(dl_rta(ts, n, m, NULL, &lim), "set %d: BCL accepts, the RTA does not", k);
	}
	ck_assert_int_gt(bcl, 50);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("known answers");
	TCase *rnd = tcase_create("random");

	tcase_add_test(tc, test_kernel_doc_example);
	tcase_add_test(tc, test_exact_boundary);
	tcase_add_test(tc, test_utilization_one);
	tcase_add_test(tc, test_gfb_equality);
	tcase_add_test(tc, test_gfb_thirds);
	tcase_add_test(tc, test_dhall);
	tcase_add_test(tc, test_gedf_tie);
	tcase_add_test(tc, test_overutilized);
	tcase_add_test(tc, test_n_le_m);
	tcase_add_test(tc, test_only_one_accepts);
	tcase_add_test(tc, test_bcl_within_rta);
	tcase_add_test(tc, test_rta_bounds);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	tcase_set_timeout(rnd, 120);
	tcase_add_test(rnd, test_qpa_vs_brute_force);
	tcase_add_test(rnd, test_global_tests_vs_simulation);
	tcase_add_test(rnd, test_gfb_bak_vs_exact);
	suite_add_tcase(s, rnd);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
