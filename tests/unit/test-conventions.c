/*
 * The API's conventions, each checked where an application meets it
 * (libdeadline(3), Conventions): optional outputs may be NULL, outputs
 * are cleared on failure, formatters never cut, the three shapes of
 * return value, every free takes NULL, every bandwidth is int64_t.
 * Nothing here changes the system: the queries only read it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define MS 1000000ULL

/* dl_rd_list(&rds, NULL) dereferenced the count: either output may be
 * NULL, and the count is the return value all the same. */
START_TEST(test_null_outputs)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS }, got;
	struct dl_rd *rds = NULL;
	struct dl_task *tasks = NULL;
	size_t n = 99;
	int count, r;

	count = dl_rd_list(&rds, NULL);
	ck_assert_int_ge(count, 1);
	ck_assert_ptr_nonnull(rds);
	free(rds);
	ck_assert_int_eq(dl_rd_list(NULL, &n), count);
	ck_assert_uint_eq(n, (size_t)count);
	ck_assert_int_eq(dl_rd_list(NULL, NULL), count);

	count = dl_tasks_list(0, NULL, &n);
	ck_assert_int_ge(count, 0);
	ck_assert_uint_eq(n, (size_t)count);
	ck_assert_int_ge(dl_tasks_list(0, &tasks, NULL), 0);
	free(tasks);
	ck_assert_int_ge(dl_snapshot(0, NULL, NULL, NULL, NULL), 0);
	ck_assert_int_ge(dl_snapshot(0, NULL, NULL, &rds, NULL), 0);
	ck_assert_ptr_nonnull(rds);
	free(rds);
	/* As root it reads the kernel's figures, else it says it cannot:
	 * either way without the outputs. */
	r = dl_drift_check(0, NULL, NULL);
	ck_assert_msg(r >= 0 || r == -EACCES, "%d %s", r, dl_errmsg());
	r = dl_layout_report(NULL, NULL);
	ck_assert_msg(r >= 0 || r == -ENOENT || r == -EPERM || r == -EACCES, "%d %s", r, dl_errmsg());

	/* The checks alone. */
	ck_assert_int_ge(dl_get(0, NULL), 0);
	ck_assert_int_eq(dl_params_normalize(&p, NULL), 0);
	ck_assert_int_eq(dl_time_parse("1.5ms", NULL), 0);
	ck_assert_int_eq(dl_time_parse("1.5", NULL), -EINVAL);
	ck_assert_int_eq(dl_cpus_parse("0-3,8", NULL), 0);
	ck_assert_int_eq(dl_period_limits(NULL, NULL), 0);
	r = dl_predict(0, false, &p, NULL, 0);
	ck_assert_msg(r == 0 || r == 1, "%d %s", r, dl_errmsg());
	r = dl_predict_verdict(0, false, &p, NULL, NULL, 0);
	ck_assert_msg(r == 0 || r == 1, "%d %s", r, dl_errmsg());
	/* normalize into itself */
	got = p;
	ck_assert_int_eq(dl_params_normalize(&got, &got), 0);
	ck_assert_uint_eq(got.deadline, 10 * MS);
}
END_TEST

/* Required outputs that are NULL are EINVAL, never a crash. */
START_TEST(test_required_outputs)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	struct dl_platform pf;

	ck_assert_int_eq(dl_rd_of_cpu(0, NULL), -EINVAL);
	ck_assert_int_eq(dl_get_budget(0, NULL), -EINVAL);
	ck_assert_int_eq(dl_periodic_budget(NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_cpus_online(NULL), -EINVAL);
	ck_assert_int_eq(dl_taskset_parse("a 1ms 10ms 10ms", 15, NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_taskset_read("-", NULL), -EINVAL);
	ck_assert_int_eq(dl_edf_test(&p, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_global_test(&p, 1, 2, NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_platform_init(&pf, 2), 0);
	ck_assert_int_eq(dl_plan_compute(&p, 1, &pf, NULL), -EINVAL);
	ck_assert_int_eq(dl_plan_layout(NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_platform_get(NULL, 0), -EINVAL);
	ck_assert_int_eq(dl_platform_init(NULL, 2), -EINVAL);
	ck_assert_int_eq(dl_periodic_start(NULL, &p, DL_PERIODIC_SLEEP, 0), -EINVAL);
	ck_assert_int_eq(dl_policy_parse("allow all", 9, NULL, NULL), -EINVAL);
	ck_assert_int_eq(dl_layout_load(NULL), -EINVAL);
	ck_assert_int_eq(dl_explain(-EBUSY, 0, &p, NULL, 0), -EINVAL);
}
END_TEST

/* What an output holds after a failure: NULL, 0, zeros, an empty set,
 * whatever it held before. */
START_TEST(test_outputs_after_failure)
{
	struct dl_params bad = { .runtime = 20 * MS, .period = 10 * MS }, out;
	struct dl_taskset *ts = (struct dl_taskset *)&out;
	struct dl_edf_result *e = (struct dl_edf_result *)&out;
	struct dl_global_result *g = (struct dl_global_result *)&out;
	struct dl_plan *plan = (struct dl_plan *)&out;
	struct dl_periodic *pt = (struct dl_periodic *)&out;
	struct dl_platform pf;
	struct dl_rd rd;
	dl_cpus_t set, empty;
	uint64_t ns = 42;

	ck_assert_int_eq(dl_time_parse("soon", &ns), -EINVAL);
	ck_assert_uint_eq(ns, 0);
	memset(&out, 0xff, sizeof(out));
	ck_assert_int_eq(dl_params_normalize(&bad, &out), -EINVAL);
	for (size_t i = 0; i < sizeof(out); i++)
		ck_assert_int_eq(((unsigned char *)&out)[i], 0);
	dl_cpus_zero(&empty);
	dl_cpus_set(&set, 3);
	ck_assert_int_eq(dl_cpus_parse("0-3,x", &set), -EINVAL);
	ck_assert(dl_cpus_equal(&set, &empty));
	memset(&rd, 0xff, sizeof(rd));
	ck_assert_int_eq(dl_rd_of_cpu(DL_CPUS_MAX + 5, &rd), -ENOENT);
	ck_assert_int_eq(rd.ncpus, 0);
	ck_assert_int_eq(dl_taskset_parse("a 1ms", 5, "t", &ts), -EINVAL);
	ck_assert_ptr_null(ts);
	ck_assert_int_eq(dl_edf_test(&bad, 1, NULL, &e), -EINVAL);
	ck_assert_ptr_null(e);
	ck_assert_int_eq(dl_global_test(&bad, 1, 2, NULL, &g), -EINVAL);
	ck_assert_ptr_null(g);
	ck_assert_int_eq(dl_platform_init(&pf, 2), 0);
	ck_assert_int_eq(dl_plan_compute(&bad, 1, &pf, &plan), -EINVAL);
	ck_assert_ptr_null(plan);
	ck_assert_int_eq(dl_periodic_start(&pt, &bad, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION, 0), -EINVAL);
	ck_assert_ptr_null(pt);
	memset(&pf, 0xff, sizeof(pf));
	ck_assert_int_eq(dl_platform_init(&pf, 0), -EINVAL);
	ck_assert_int_eq(pf.ncpus, 0);
}
END_TEST

/* The longest CPU list of DL_CPUS_MAX CPUs, worked out from scratch:
 * the longest text for the CPUs from c on, c - 1 being unset. */
static size_t longest_list(void)
{
	static size_t f[DL_CPUS_MAX + 2];
	char a[16];

	for (int c = DL_CPUS_MAX - 1; c >= 0; c--) {
		size_t best = f[c + 1];

		for (int e = c; e < DL_CPUS_MAX; e++) {
			size_t len = (size_t)(e == c ? snprintf(a, sizeof(a), "%d,", c)
						  : snprintf(a, sizeof(a), "%d-%d,", c, e));
			size_t rest = e + 2 <= DL_CPUS_MAX ? f[e + 2] : 0;

			if (len + rest > best)
				best = len + rest;
		}
		f[c] = best;
	}
	return f[0] - 1; /* no comma after the last */
}

/* The formatters never cut: a buffer of the constant's size holds any
 * value, a smaller one than the value needs gets NULL and ERANGE and is
 * left empty. */
START_TEST(test_formatters)
{
	char buf[DL_CPUS_STRLEN], small[4];
	dl_cpus_t set;
	size_t longest = longest_list();

	ck_assert_uint_lt(longest, DL_CPUS_STRLEN);
	/* The list the search found is that long: pairs, one CPU apart. */
	dl_cpus_zero(&set);
	for (int c = 0; c + 1 < DL_CPUS_MAX; c += 3) {
		dl_cpus_set(&set, c);
		dl_cpus_set(&set, c + 1);
	}
	ck_assert_ptr_eq(dl_cpus_format(&set, buf, DL_CPUS_STRLEN), buf);
	ck_assert_uint_le(strlen(buf), longest);
	ck_assert_uint_gt(strlen(buf), 2600);
	for (int c = 0; c < DL_CPUS_MAX; c++)
		dl_cpus_set(&set, c);
	/* Exactly enough, then one byte short. */
	ck_assert_str_eq(dl_cpus_format(&set, buf, 7), "0-1023");
	errno = 0;
	ck_assert_ptr_null(dl_cpus_format(&set, buf, 6));
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(buf, "");
	ck_assert_msg(strstr(dl_errmsg(), "DL_CPUS_STRLEN"), "%s", dl_errmsg());
	dl_cpus_zero(&set);
	ck_assert_str_eq(dl_cpus_format(&set, buf, 1), "");

	ck_assert_ptr_nonnull(dl_time_format(UINT64_MAX, buf, DL_TIME_STRLEN));
	ck_assert_str_eq(buf, "18446744073.709551615s");
	errno = 0;
	ck_assert_ptr_null(dl_time_format(1500000, small, sizeof(small)));
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(small, "");
	ck_assert_str_eq(dl_time_format(5, small, sizeof(small)), "5ns");

	ck_assert_ptr_nonnull(dl_bw_format(INT64_MIN, buf, DL_BW_STRLEN));
	ck_assert_str_eq(buf, "-8796093022208.0000");
	ck_assert_ptr_nonnull(dl_bw_format(INT64_MAX, buf, DL_BW_STRLEN));
	ck_assert_str_eq(buf, "unlimited");
	errno = 0;
	ck_assert_ptr_null(dl_bw_format(DL_BW_UNIT, small, sizeof(small)));
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(small, "");
	errno = 0;
	ck_assert_ptr_null(dl_bw_format(DL_BW_UNIT, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The shapes: a pointer or NULL with errno; a predicate 1, 0 or -errno;
 * the rest values that cannot fail. */
START_TEST(test_return_shapes)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS }, bad = { .runtime = 20 * MS, .period = 10 * MS };
	struct dl_taskset *ts = dl_taskset_new();
	struct dl_layout *l = dl_layout_new();
	struct dl_verdict v;
	dl_cpus_t cpus;
	char why[256];

	ck_assert_ptr_nonnull(ts);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(dl_taskset_add(ts, "a", &p), 0);
	ck_assert_ptr_nonnull(dl_taskset_task(ts, 0));
	errno = 0;
	ck_assert_ptr_null(dl_taskset_task(ts, 1));
	ck_assert_int_eq(errno, ERANGE);
	errno = 0;
	ck_assert_ptr_null(dl_taskset_task(NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(dl_layout_member(l, 0, &cpus));
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(dl_layout_member(l, -1, NULL), DL_CLUSTER);
	errno = 0;
	ck_assert_ptr_null(dl_load_task(NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(dl_periodic_stats(NULL));
	ck_assert_int_eq(errno, EINVAL);

	/* A predicate: parameters the kernel refuses are a "no", with the
	 * rule as the reason, not an error. */
	ck_assert_int_eq(dl_predict_verdict(0, false, &bad, &v, why, sizeof(why)), 0);
	ck_assert_int_eq(v.step, DL_VERDICT_INVALID);
	ck_assert_msg(strstr(why, "longer than the deadline"), "%s", why);
	ck_assert_int_lt(dl_predict(-5, false, &p, why, sizeof(why)), 0);

	ck_assert_int_eq(dl_layout_count(NULL), 0);
	ck_assert_uint_eq(dl_taskset_count(NULL), 0);
	ck_assert_uint_eq(dl_load_count(NULL), 0);
	ck_assert_str_eq(dl_test_name(99), "none");
	ck_assert_str_eq(dl_plan_method_name(-1), "none");
	ck_assert_ptr_nonnull(dl_errmsg());
	dl_layout_free(l);
	dl_taskset_free(ts);
}
END_TEST

/* Every dl_*_free() takes NULL, as free(3) does. */
START_TEST(test_free_null)
{
	dl_taskset_free(NULL);
	dl_load_free(NULL);
	dl_layout_free(NULL);
	dl_policy_free(NULL);
	dl_periodic_free(NULL);
	dl_plan_free(NULL);
}
END_TEST

#define IS_INT64(x) _Generic((x), int64_t: 1, default: 0)

/* A bandwidth is an int64_t wherever the API has one. */
START_TEST(test_bandwidth_types)
{
	struct dl_rd rd = { 0 };
	struct dl_task t = { 0 };
	struct dl_verdict v = { 0 };
	struct dl_platform pf = { 0 };
	struct dl_edf_result e = { 0 };
	struct dl_global_result g = { 0 };
	struct dl_plan_part pp = { 0 };
	struct dl_plan plan = { 0 };
	struct dl_drift d = { 0 };
	struct dl_params p = { .runtime = 1, .period = 2 };

	ck_assert(IS_INT64(rd.cpu_bw) && IS_INT64(rd.capacity) && IS_INT64(rd.fair_bw) && IS_INT64(rd.tasks_bw) &&
		  IS_INT64(rd.total_bw) && IS_INT64(rd.free_bw));
	ck_assert(IS_INT64(t.bw));
	ck_assert(IS_INT64(v.need) && IS_INT64(v.old));
	ck_assert(IS_INT64(pf.cpu_bw));
	ck_assert(IS_INT64(e.util) && IS_INT64(e.scaling));
	ck_assert(IS_INT64(g.util) && IS_INT64(g.scaling) && IS_INT64(g.margin));
	ck_assert(IS_INT64(pp.load) && IS_INT64(pp.free_bw) && IS_INT64(pp.scaling));
	ck_assert(IS_INT64(plan.margin));
	ck_assert(IS_INT64(d.kernel_bw) && IS_INT64(d.expected_bw));
	ck_assert(IS_INT64(dl_params_bw(&p)) && IS_INT64(dl_rd_expected(&rd)));
	ck_assert_int_eq(dl_params_bw(&p), (int64_t)DL_BW_UNIT / 2);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("conventions");
	TCase *tc = tcase_create("outputs");

	tcase_add_test(tc, test_null_outputs);
	tcase_add_test(tc, test_required_outputs);
	tcase_add_test(tc, test_outputs_after_failure);
	suite_add_tcase(s, tc);
	tc = tcase_create("returns");
	tcase_add_test(tc, test_formatters);
	tcase_add_test(tc, test_return_shapes);
	tcase_add_test(tc, test_free_null);
	tcase_add_test(tc, test_bandwidth_types);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
