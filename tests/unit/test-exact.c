/*
 * The exact global-EDF test (dl_exact_test): against an independent
 * brute-force enumerator of every sporadic arrival sequence
 * (tests/lib/brute.c, no code shared), against the sufficient tests and
 * the synchronous simulation, every witness replayed unit by unit, sets
 * with known answers, the budget, and bad input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "brute.h"
#include "testlib.h"

#define MS 1000000ULL

#define T(c, d, t)                                                      \
	{                                                               \
		.runtime = (c)*MS, .deadline = (d)*MS, .period = (t)*MS \
	}

static struct dl_exact_result *exact(const struct dl_params *p, size_t n, int m, unsigned flags)
{
	struct dl_exact_opts o = { .flags = flags };
	struct dl_exact_result *r = NULL;

	ck_assert_int_eq(dl_exact_test(p, n, m, NULL, &o, &r), 0);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void to_params(const struct dl_an_task *ts, size_t n, struct dl_params *p)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (struct dl_params){ .runtime = ts[i].c * MS,
					   .deadline = ts[i].d * MS,
					   .period = ts[i].t * MS };
}

/* The witness replayed by the brute-force simulator, in units: it misses
 * where the result says; the releases are a sporadic sequence. */
static void check_witness(const struct dl_an_task *ts, size_t n, int m, const struct dl_exact_result *r)
{
	size_t task[256], who = n;
	uint64_t at[256], ahead[256] = { 0 }, last = 0, horizon = 0;
	int64_t when;

	ck_assert_int_eq(r->verdict, DL_UNSCHEDULABLE);
	ck_assert_uint_eq(r->unit % MS, 0);
	ck_assert_uint_le(r->narrivals, 256);
	for (size_t k = 0; k < r->narrivals; k++) {
		task[k] = r->arrivals[k].task;
		at[k] = r->arrivals[k].release / r->unit;
		ck_assert_uint_eq(r->arrivals[k].release % r->unit, 0);
		ck_assert_uint_lt(task[k], n);
		ck_assert(k == 0 || at[k] >= at[k - 1]);
		for (size_t j = 0; j < k; j++)
			if (task[j] == task[k])
				ck_assert_uint_ge(at[k] - at[j], ts[task[k]].t * MS / r->unit);
		last = at[k];
	}
	for (size_t k = 0; k < r->nties; k++) {
		ck_assert_uint_eq(r->ties[k].to - r->ties[k].from, r->unit);
		ck_assert_uint_lt(r->ties[k].from / r->unit, 256);
		ahead[r->ties[k].from / r->unit] = r->ties[k].ahead;
	}
	for (size_t i = 0; i < n; i++)
		horizon = ts[i].d * MS / r->unit > horizon ? ts[i].d * MS / r->unit : horizon;
	struct dl_an_task u[8];

	for (size_t i = 0; i < n; i++)
		u[i] = (struct dl_an_task){ ts[i].c * MS / r->unit, ts[i].d * MS / r->unit,
					    ts[i].t * MS / r->unit };
	when = tl_brute_replay(u, n, m, task, at, r->narrivals, ahead, 256, last + horizon, &who);
	ck_assert_int_ge(when, 0);
	ck_assert_uint_eq((uint64_t)when * r->unit, r->miss_at);
	ck_assert_int_eq((ssize_t)who, r->task);
}

/* Dhall and Liu 1978: two light tasks and one heavy, density sum 1.31 on
 * two CPUs; the light ones' earlier deadlines run first, the heavy one
 * misses at 11. */
START_TEST(test_dhall)
{
	const struct dl_params p[] = { T(2, 10, 10), T(2, 10, 10), T(10, 11, 11) };
	const struct dl_an_task ts[] = { { 2, 10, 10 }, { 2, 10, 10 }, { 10, 11, 11 } };
	struct dl_exact_result *r = exact(p, 3, 2, 0);
	char *text = NULL;
	struct dl_taskset *set = NULL;

	ck_assert_int_eq(r->verdict, DL_UNSCHEDULABLE);
	ck_assert_int_eq(r->task, 2);
	ck_assert_uint_eq(r->miss_at, 11 * MS);
	ck_assert_uint_eq(r->unit, MS);
	check_witness(ts, 3, 2, r);
	ck_assert_msg(strstr(r->why, "task 2 misses its deadline at 11ms"), "%s", r->why);
	/* The witness as a task file that dl-load reads: a job per line at
	 * its offset, none repeating before the miss. */
	ck_assert_int_gt(dl_exact_witness(r, p, (const char *const[]){ "light", "light2", "heavy" }, &text),
			 0);
	ck_assert_int_eq(dl_taskset_parse(text, strlen(text), "witness", &set), 0);
	ck_assert_uint_eq(dl_taskset_count(set), 3);
	for (size_t k = 0; k < 3; k++) {
		const struct dl_taskspec *t = dl_taskset_task(set, k);

		ck_assert_uint_eq(t->offset, r->arrivals[k].release);
		ck_assert_uint_eq(t->params.runtime, p[r->arrivals[k].task].runtime);
		ck_assert_uint_eq(t->params.deadline, p[r->arrivals[k].task].deadline);
		ck_assert_uint_ge(t->offset + t->params.period, r->miss_at);
		ck_assert_uint_eq(t->work, t->params.runtime);
	}
	ck_assert_msg(strstr(dl_taskset_task(set, 2)->name, "heavy"), "%s", dl_taskset_task(set, 2)->name);
	dl_taskset_free(set);
	free(text);
	dl_exact_free(r);
}
END_TEST

/* The order among equal deadlines decides: on 2 CPUs, (2, 2, 4) and
 * (1, 2, 6) tie behind (1, 1, 3) at 0; the lower index first meets every
 * deadline, the other order makes task 0 miss at 2.  By default the
 * verdict holds for every order, and the witness says which it took. */
START_TEST(test_ties)
{
	const struct dl_params p[] = { T(2, 2, 4), T(1, 2, 6), T(1, 1, 3) };
	const struct dl_an_task ts[] = { { 2, 2, 4 }, { 1, 2, 6 }, { 1, 1, 3 } };
	struct dl_exact_result *any = exact(p, 3, 2, 0), *idx = exact(p, 3, 2, DL_EXACT_TIES_INDEX);
	char *text = NULL;

	ck_assert_int_eq(tl_brute_gedf_exact(ts, 3, 2, true), 1);
	ck_assert_int_eq(tl_brute_gedf_exact(ts, 3, 2, false), 0);
	ck_assert_int_eq(idx->verdict, DL_SCHEDULABLE);
	ck_assert_msg(strstr(idx->why, "with equal deadlines in task order"), "%s", idx->why);
	ck_assert_int_eq(any->verdict, DL_UNSCHEDULABLE);
	ck_assert_int_eq(any->task, 0);
	ck_assert_uint_eq(any->miss_at, 2 * MS);
	ck_assert_uint_eq(any->nties, 1);
	ck_assert_uint_eq(any->ties[0].from, 0);
	ck_assert_uint_eq(any->ties[0].to, MS);
	ck_assert_uint_eq(any->ties[0].ahead, 1u << 1);
	ck_assert_msg(strstr(any->why, "and its order among equal deadlines"), "%s", any->why);
	check_witness(ts, 3, 2, any);
	ck_assert_int_gt(dl_exact_witness(any, p, NULL, &text), 0);
	ck_assert_msg(strstr(text, "# from 0ns to 1ms, among equal deadlines first: 1\n"), "%s", text);
	free(text);
	dl_exact_free(any);
	dl_exact_free(idx);
}
END_TEST

/* dl_global_test(3)'s example: on 2 CPUs (1, 2, 2), (4, 4, 4), (1, 8, 8)
 * and (2, 5, 8), all released at 0, meet every deadline in this order;
 * (4, 4, 4) released at 0 and the others 2 later make its second job
 * miss at 8, in task order too. */
START_TEST(test_later_release)
{
	const struct dl_params p[] = { T(1, 2, 2), T(4, 4, 4), T(1, 8, 8), T(2, 5, 8) };
	const struct dl_an_task ts[] = { { 1, 2, 2 }, { 4, 4, 4 }, { 1, 8, 8 }, { 2, 5, 8 } };
	struct dl_exact_result *r = exact(p, 4, 2, DL_EXACT_TIES_INDEX);
	ssize_t who;
	uint64_t when;

	ck_assert(!dl_gedf_sim(ts, 4, 2, &who, &when));
	ck_assert_int_eq(tl_brute_gedf_exact(ts, 4, 2, false), 1);
	ck_assert_int_eq(r->verdict, DL_UNSCHEDULABLE);
	ck_assert_uint_eq(r->nties, 0);
	check_witness(ts, 4, 2, r);
	ck_assert_int_eq(r->task, 1);
	ck_assert_uint_eq(r->miss_at, 8 * MS);
	ck_assert_uint_eq(r->arrivals[0].task, 1);
	ck_assert_uint_eq(r->arrivals[1].release, 2 * MS);
	dl_exact_free(r);
}
END_TEST

/* Sets every sufficient test (GFB, BAK, BCL, RTA) refuses and whose
 * synchronous simulation meets every deadline, schedulable whatever the
 * arrivals (found by the brute force below), and sets that meet the
 * density-based necessary conditions (U <= m, C <= D) and whose
 * synchronous release meets every deadline, yet a later release misses. */
static const struct {
	int m;
	size_t n;
	struct dl_an_task ts[6];
	bool schedulable;
} known[] = {
	{ 2, 4, { { 1, 3, 4 }, { 2, 2, 6 }, { 1, 4, 4 }, { 3, 6, 6 } }, true },
	{ 2, 3, { { 2, 4, 5 }, { 2, 2, 2 }, { 1, 1, 4 } }, true },
	{ 3, 5, { { 1, 2, 2 }, { 1, 1, 2 }, { 1, 2, 6 }, { 1, 1, 7 }, { 1, 1, 2 } }, true },
	{ 2, 5, { { 2, 4, 4 }, { 1, 5, 5 }, { 3, 3, 5 }, { 1, 1, 4 }, { 1, 6, 6 } }, false },
	{ 3, 4, { { 2, 2, 4 }, { 1, 1, 2 }, { 1, 2, 6 }, { 3, 4, 6 } }, false },
	{ 3, 6, { { 1, 2, 4 }, { 3, 8, 8 }, { 2, 2, 8 }, { 2, 4, 6 }, { 1, 1, 3 }, { 1, 2, 2 } }, false },
};

START_TEST(test_known_sets)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		const struct dl_an_task *ts = known[k].ts;
		size_t n = known[k].n;
		int m = known[k].m;
		struct dl_params p[6];
		struct dl_exact_result *r;
		ssize_t lim, who;
		uint64_t when;

		ck_assert_int_le(dl_an_util_cmp(ts, n, (uint64_t)m), 0);
		ck_assert(!dl_gedf_sim(ts, n, m, &who, &when));
		if (known[k].schedulable)
			ck_assert(!dl_gfb(ts, n, m, NULL, &lim) && !dl_bak(ts, n, m, &lim) &&
				  !dl_bcl(ts, n, m, &lim) && !dl_rta(ts, n, m, NULL, &lim));
		ck_assert_int_eq(tl_brute_gedf_exact(ts, n, m, true), !known[k].schedulable);
		to_params(ts, n, p);
		r = exact(p, n, m, 0);
		ck_assert_int_eq(r->verdict, (known[k].schedulable ? DL_SCHEDULABLE : DL_UNSCHEDULABLE));
		if (!known[k].schedulable)
			check_witness(ts, n, m, r);
		dl_exact_free(r);
	}
}
END_TEST

static void random_tiny(struct dl_an_task *ts, size_t n, unsigned *seed)
{
	for (size_t i = 0; i < n; i++) {
		ts[i].t = 1 + (uint64_t)(rand_r(seed) % 6);
		ts[i].d = 1 + (uint64_t)(rand_r(seed) % ts[i].t);
		ts[i].c = 1 + (uint64_t)(rand_r(seed) % ts[i].d);
	}
}

/* Every verdict, in both tie rules, equals the brute force's, and every
 * witness replays: the antichain pruning loses nothing. */
START_TEST(test_vs_brute_force)
{
	unsigned seed = 20261207;
	int yes = 0, no = 0, differ = 0;

	for (int k = 0; k < 3000; k++) {
		int m = 2 + (int)(rand_r(&seed) % 2);
		size_t n = (size_t)m + 1 + (size_t)(rand_r(&seed) % 3);
		struct dl_an_task ts[6];
		struct dl_params p[6];
		int verdict[2];

		random_tiny(ts, n, &seed);
		if (dl_an_util_cmp(ts, n, (uint64_t)m) == 1)
			continue;
		to_params(ts, n, p);
		for (int idx = 0; idx < 2; idx++) {
			struct dl_exact_result *r = exact(p, n, m, idx ? DL_EXACT_TIES_INDEX : 0);
			int miss = tl_brute_gedf_exact(ts, n, m, !idx);

			ck_assert_int_ge(miss, 0);
			ck_assert_msg(r->verdict == (miss ? DL_UNSCHEDULABLE : DL_SCHEDULABLE),
				      "set %d (ties %s): exact %d, brute force %s", k, idx ? "index" : "any",
				      r->verdict, miss ? "misses" : "meets all");
			if (miss)
				check_witness(ts, n, m, r);
			if (idx)
				ck_assert_int_eq(r->nties, 0);
			verdict[idx] = r->verdict;
			dl_exact_free(r);
		}
		/* Any order includes the index order. */
		ck_assert(verdict[0] == DL_UNSCHEDULABLE || verdict[1] == DL_SCHEDULABLE);
		differ += verdict[0] != verdict[1];
		yes += verdict[0] == DL_SCHEDULABLE;
		no += verdict[0] == DL_UNSCHEDULABLE;
	}
	ck_assert_int_gt(yes, 200);
	ck_assert_int_gt(no, 200);
	ck_assert_int_gt(differ, 0);
}
END_TEST

/* Larger sets (up to 8 tasks, periods up to 12 units): an accepting
 * sufficient test is never contradicted, nor a miss of the synchronous
 * simulation, and a set the test calls schedulable in task order meets
 * every deadline there. */
START_TEST(test_vs_sufficient_and_simulation)
{
	unsigned seed = 42;
	int accepted = 0, missed = 0, only_exact = 0;

	for (int k = 0; k < 400; k++) {
		int m = 2 + (int)(rand_r(&seed) % 3);
		size_t n = (size_t)m + 1 + (size_t)(rand_r(&seed) % (size_t)(8 - m));
		struct dl_an_task ts[8];
		struct dl_params p[8];
		ssize_t lim, who;
		uint64_t when;

		for (size_t i = 0; i < n; i++) {
			ts[i].t = 2 + (uint64_t)(rand_r(&seed) % 11);
			ts[i].d = 1 + (uint64_t)(rand_r(&seed) % ts[i].t);
			ts[i].c = 1 + (uint64_t)(rand_r(&seed) % (ts[i].d < 4 ? ts[i].d : ts[i].d / 2));
		}
		if (dl_an_util_cmp(ts, n, (uint64_t)m) == 1)
			continue;
		to_params(ts, n, p);
		struct dl_exact_result *any = exact(p, n, m, 0), *idx = exact(p, n, m, DL_EXACT_TIES_INDEX);
		bool suff = dl_gfb(ts, n, m, NULL, &lim) || dl_bak(ts, n, m, &lim) ||
			    dl_bcl(ts, n, m, &lim) || dl_rta(ts, n, m, NULL, &lim);
		bool sim = dl_gedf_sim(ts, n, m, &who, &when);

		ck_assert_int_ne(any->verdict, DL_NOT_GUARANTEED);
		ck_assert_int_ne(idx->verdict, DL_NOT_GUARANTEED);
		if (suff) {
			accepted++;
			ck_assert_msg(any->verdict == DL_SCHEDULABLE,
				      "set %d: a sufficient test accepts, exact: %s", k, any->why);
		} else if (any->verdict == DL_SCHEDULABLE) {
			only_exact++;
		}
		if (sim) {
			missed++;
			ck_assert_int_eq(idx->verdict, DL_UNSCHEDULABLE);
			ck_assert_int_eq(any->verdict, DL_UNSCHEDULABLE);
		}
		if (idx->verdict == DL_SCHEDULABLE)
			ck_assert(!sim);
		if (any->verdict == DL_UNSCHEDULABLE)
			ck_assert_int_ge(any->task, 0);
		dl_exact_free(any);
		dl_exact_free(idx);
	}
	ck_assert_int_gt(accepted, 20);
	ck_assert_int_gt(missed, 20);
	ck_assert_int_gt(only_exact, 5);
}
END_TEST

/* Past its budget the test says so, with the size of the search. */
START_TEST(test_budget)
{
	const struct dl_params p[] = { T(3, 8, 9), T(9, 12, 12), T(1, 2, 2), T(3, 5, 11),
				       T(1, 4, 4), T(2, 9, 11),	 T(1, 7, 12) };
	struct dl_exact_opts o = { .max_states = 50 };
	struct dl_exact_result *r = NULL;

	ck_assert_int_eq(dl_exact_test(p, 7, 4, NULL, &o, &r), 0);
	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(r->budget_spent, DL_EXACT_OUT_OF_STATES);
	ck_assert_uint_eq(r->states, 50);
	ck_assert_msg(strstr(r->why, "unknown within the budget"), "%s", r->why);
	ck_assert_msg(strstr(r->why, "states limit after 50 states"), "%s", r->why);
	dl_exact_free(r);
	o = (struct dl_exact_opts){ .max_ns = 1 };
	ck_assert_int_eq(dl_exact_test(p, 7, 4, NULL, &o, &r), 0);
	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(r->budget_spent, DL_EXACT_OUT_OF_TIME);
	ck_assert_msg(strstr(r->why, "time limit"), "%s", r->why);
	dl_exact_free(r);
	/* Twenty idle tasks make 2^20 successors of the first state alone:
	 * the time is checked while they are made, not only between states. */
	{
		struct dl_params many[20];

		for (size_t i = 0; i < 20; i++)
			many[i] = (struct dl_params)T(1, 20, 20);
		o = (struct dl_exact_opts){ .max_ns = 20 * MS, .max_states = 4u << 20 };
		ck_assert_int_eq(dl_exact_test(many, 20, 2, NULL, &o, &r), 0);
		ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
		ck_assert_int_eq(r->budget_spent, DL_EXACT_OUT_OF_TIME);
		ck_assert_uint_eq(r->expanded, 1);
		ck_assert_uint_lt(r->states, 1u << 20);
		dl_exact_free(r);
	}
	/* The same set decided with the default budget. */
	ck_assert_int_eq(dl_exact_test(p, 7, 4, NULL, NULL, &r), 0);
	ck_assert_int_ne(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_int_eq(r->budget_spent, 0);
	dl_exact_free(r);
}
END_TEST

/* A grid too fine to search, the fair server as tasks, n <= m, and more
 * than the CPUs can carry. */
START_TEST(test_shapes)
{
	const struct dl_params fine[] = {
		T(1, 2, 2),
		T(1, 2, 2),
		{ .runtime = MS, .deadline = 300 * MS + 1, .period = 300 * MS + 1 }
	};
	const struct dl_params over[] = { T(2, 2, 2), T(2, 2, 2), T(1, 2, 2) };
	const struct dl_params srv = T(1, 4, 4);
	const struct dl_params light[] = { T(2, 4, 4), T(2, 4, 4), T(3, 8, 8) };
	const struct dl_an_task with_srv[] = { { 2, 4, 4 },
					       { 2, 4, 4 },
					       { 3, 8, 8 },
					       { 1, 4, 4 },
					       { 1, 4, 4 } };
	struct dl_exact_result *r = NULL;

	r = exact(fine, 3, 2, 0);
	ck_assert_int_eq(r->verdict, DL_NOT_GUARANTEED);
	ck_assert_msg(strstr(r->why, "units of 1ns"), "%s", r->why);
	dl_exact_free(r);
	r = exact(fine, 2, 2, 0);
	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	dl_exact_free(r);
	r = exact(over, 3, 2, 0);
	ck_assert_int_eq(r->verdict, DL_INFEASIBLE);
	dl_exact_free(r);
	/* Two fair servers (one per CPU) are two more tasks, as the brute
	 * force sees them. */
	ck_assert_int_eq(dl_exact_test(light, 3, 2, &srv, NULL, &r), 0);
	ck_assert_uint_eq(r->ntotal, 5);
	ck_assert_uint_eq(r->ntasks, 3);
	ck_assert_int_eq(r->verdict,
			 (tl_brute_gedf_exact(with_srv, 5, 2, true) ? DL_UNSCHEDULABLE : DL_SCHEDULABLE));
	if (r->verdict == DL_UNSCHEDULABLE)
		check_witness(with_srv, 5, 2, r);
	dl_exact_free(r);
}
END_TEST

START_TEST(test_bad_input)
{
	const struct dl_params p[] = { T(1, 2, 2), T(1, 2, 2), T(1, 2, 2) };
	const struct dl_params bad[] = { T(3, 2, 2) };
	struct dl_exact_opts o = { .flags = 0x10 };
	struct dl_exact_result *r = (void *)1;
	char *text = (void *)1;

	ck_assert_int_eq(dl_exact_test(p, 3, 2, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_exact_test(p, 3, 0, NULL, NULL, &r), -EINVAL);
	ck_assert_ptr_null(r);
	ck_assert_msg(strstr(dl_errmsg(), "0 CPUs"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_exact_test(p, 3, 2, NULL, &o, &r), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "DL_EXACT_TIES_INDEX"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_exact_test(bad, 1, 2, NULL, NULL, &r), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "runtime <= deadline"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_exact_test(p, 3, 2, NULL, NULL, &r), 0);
	ck_assert_int_eq(r->verdict, DL_SCHEDULABLE);
	ck_assert_int_eq(dl_exact_witness(r, p, NULL, &text), -ENODATA);
	ck_assert_ptr_null(text);
	ck_assert_msg(strstr(dl_errmsg(), "no witness"), "%s", dl_errmsg());
	dl_exact_free(r);
	dl_exact_free(NULL);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("exact");
	TCase *tc = tcase_create("known answers");
	TCase *rnd = tcase_create("random");

	tcase_add_test(tc, test_dhall);
	tcase_add_test(tc, test_known_sets);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_later_release);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_shapes);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	tcase_set_timeout(rnd, 300);
	tcase_add_test(rnd, test_vs_brute_force);
	tcase_add_test(rnd, test_vs_sufficient_and_simulation);
	suite_add_tcase(s, rnd);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
