/*
 * Parameter validation: each of the kernel's rules, with the numbers in
 * the message; the defaults; the bandwidth arithmetic.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "testlib.h"

#define MS 1000000ULL
#define US 1000ULL

static const struct {
	struct dl_params p;
	const char *says[3]; /* every one must be in the message */
} bad[] = {
	{ { .runtime = 0, .period = 10 * MS }, { "no runtime", "1024ns" } },
	{ { .runtime = 1 * MS }, { "no deadline or period" } },
	{ { .runtime = 1023, .period = 10 * MS }, { "runtime 1023ns", "minimum of 1024ns" } },
	{ { .runtime = 3 * MS, .deadline = 2 * MS, .period = 10 * MS },
	  { "runtime 3ms", "deadline 2ms", "runtime <= deadline <= period" } },
	{ { .runtime = 1 * MS, .deadline = 20 * MS, .period = 10 * MS },
	  { "deadline 20ms", "period 10ms", "runtime <= deadline <= period" } },
	{ { .runtime = 2 * US, .period = 50 * US },
	  { "period 50us", "minimum of 100us", "sched_deadline_period_min_us" } },
	{ { .runtime = 1 * MS, .period = 5000 * MS },
	  { "period 5s", "maximum of 4.194304s", "sched_deadline_period_max_us" } },
	{ { .runtime = 1 * MS, .period = 1ULL << 63 }, { "2^63" } },
	{ { .runtime = 1 * MS, .period = 10 * MS, .flags = 0x80 }, { "unknown flags 0x80" } },
	{ { .runtime = 1 * MS, .period = 10 * MS, .flags = DL_FLAG_UTIL_CLAMP_MIN, .util_min = 1025 },
	  { "util-min 1025", "1024" } },
	{ { .runtime = 1 * MS, .period = 10 * MS, .flags = DL_FLAG_UTIL_CLAMP_MAX, .util_max = 2000 },
	  { "util-max 2000" } },
	{ { .runtime = 1 * MS, .period = 10 * MS,
	    .flags = DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX, .util_min = 600, .util_max = 500 },
	  { "util-min 600", "util-max 500" } },
};

START_TEST(test_bad)
{
	struct dl_params out = { .runtime = 42 };
	int err = dl_params_normalize(&bad[_i].p, &out);

	ck_assert_int_eq(err, -EINVAL);
	ck_assert_uint_eq(out.runtime, 0); /* cleared on failure */
	for (int k = 0; k < 3 && bad[_i].says[k]; k++)
		ck_assert_msg(strstr(dl_errmsg(), bad[_i].says[k]),
			      "case %d: \"%s\" lacks \"%s\"", _i, dl_errmsg(), bad[_i].says[k]);
}
END_TEST

START_TEST(test_defaults)
{
	struct dl_params in = { .runtime = 1 * MS, .period = 10 * MS }, out;

	ck_assert_int_eq(dl_params_normalize(&in, &out), 0);
	ck_assert_uint_eq(out.deadline, 10 * MS); /* deadline defaults to period */
	in = (struct dl_params){ .runtime = 1 * MS, .deadline = 8 * MS };
	ck_assert_int_eq(dl_params_normalize(&in, &out), 0);
	ck_assert_uint_eq(out.period, 8 * MS); /* period defaults to deadline */
	/* In place works too. */
	ck_assert_int_eq(dl_params_normalize(&in, &in), 0);
	ck_assert_uint_eq(in.period, 8 * MS);
}
END_TEST

START_TEST(test_edges_accepted)
{
	uint64_t min, max;
	struct dl_params p, out;

	ck_assert_int_eq(dl_period_limits(&min, &max), 0);
	/* runtime == deadline == period == the smallest period allowed */
	p = (struct dl_params){ .runtime = 1024, .deadline = min, .period = min };
	ck_assert_msg(dl_params_normalize(&p, &out) == 0, "%s", dl_errmsg());
	p = (struct dl_params){ .runtime = max, .period = max };
	ck_assert_msg(dl_params_normalize(&p, &out) == 0, "%s", dl_errmsg());
	p = (struct dl_params){ .runtime = 1 * MS, .period = 10 * MS,
				.flags = DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX,
				.util_min = 0, .util_max = 1024 };
	ck_assert_msg(dl_params_normalize(&p, &out) == 0, "%s", dl_errmsg());
}
END_TEST

/* Reserved space (libdl/ABI) must be zero in what the caller passes, so
 * that a later release can give it a meaning. */
START_TEST(test_reserved_must_be_zero)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS }, out;

	ck_assert_int_eq(dl_params_normalize(&p, &out), 0);
	ck_assert_uint_eq(out.reserved[0] | out.reserved[1], 0);
	p.reserved[1] = 1;
	ck_assert_int_eq(dl_params_normalize(&p, &out), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "struct dl_params") && strstr(dl_errmsg(), "reserved") &&
		      strstr(dl_errmsg(), "memset"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_set(0, &p), -EINVAL); /* refused before any syscall */
}
END_TEST

/* The limits are the kernel's sysctls, not constants. */
START_TEST(test_limits_from_proc)
{
	uint64_t min, max, min_us, max_us;

	ck_assert_int_eq(dl_period_limits(&min, &max), 0);
	if (dl_read_u64("/proc/sys/kernel/sched_deadline_period_min_us", &min_us) == 0)
		ck_assert_uint_eq(min, min_us * 1000);
	if (dl_read_u64("/proc/sys/kernel/sched_deadline_period_max_us", &max_us) == 0)
		ck_assert_uint_eq(max, max_us * 1000);
}
END_TEST

/* to_ratio(period, runtime) of kernel/sched/core.c: (runtime << 20) / period. */
START_TEST(test_bw)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };

	ck_assert_uint_eq(dl_params_bw(&p), 104857);
	p = (struct dl_params){ .runtime = 50 * MS, .period = 1000 * MS };
	ck_assert_uint_eq(dl_params_bw(&p), 52428); /* one fair server */
	p = (struct dl_params){ .runtime = 9 * MS, .deadline = 10 * MS };
	ck_assert_uint_eq(dl_params_bw(&p), 943718); /* period from the deadline */
	p = (struct dl_params){ .runtime = 4194304000ULL, .period = 4194304000ULL };
	ck_assert_uint_eq(dl_params_bw(&p), DL_BW_UNIT);
}
END_TEST

START_TEST(test_bw_format)
{
	char buf[DL_BW_STRLEN];

	ck_assert_str_eq(dl_bw_format(104857, buf, sizeof(buf)), "0.1000");
	ck_assert_str_eq(dl_bw_format(996147, buf, sizeof(buf)), "0.9500");
	ck_assert_str_eq(dl_bw_format(-222824, buf, sizeof(buf)), "-0.2125");
	ck_assert_str_eq(dl_bw_format(2 * DL_BW_UNIT, buf, sizeof(buf)), "2.0000");
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("validate");

	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_edges_accepted);
	tcase_add_test(tc, test_limits_from_proc);
	tcase_add_test(tc, test_reserved_must_be_zero);
	suite_add_tcase(s, tc);
	tc = tcase_create("bandwidth");
	tcase_add_test(tc, test_bw);
	tcase_add_test(tc, test_bw_format);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
