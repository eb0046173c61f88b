/*
 * Error explanations that need no privilege: each names the problem and
 * the fix.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "tool.h"

#define MS 1000000ULL

static void expect(int err, const struct dl_params *p, const char *a, const char *b)
{
	char buf[1024];

	ck_assert_int_eq(dl_explain(err, 0, p, buf, sizeof(buf)), 0);
	ck_assert_msg(strstr(buf, a), "\"%s\" lacks \"%s\"", buf, a);
	if (b)
		ck_assert_msg(strstr(buf, b), "\"%s\" lacks \"%s\"", buf, b);
}

START_TEST(test_einval_names_the_rule)
{
	struct dl_params p = { .runtime = 5 * MS, .deadline = 4 * MS, .period = 10 * MS };

	expect(-EINVAL, &p, "runtime 5ms is longer than the deadline 4ms", "runtime <= deadline <= period");
}
END_TEST

START_TEST(test_einval_unexplained)
{
	struct dl_params p = { .runtime = 1 * MS, .deadline = 10 * MS, .period = 10 * MS };

	/* Valid by every rule and still refused: say so with the numbers. */
	expect(-EINVAL, &p, "runtime 1ms, deadline 10ms, period 10ms", "refused");
}
END_TEST

/* The library names the fields to drop; the tools, their options. */
START_TEST(test_eopnotsupp)
{
	char buf[1024], shown[1024];

	expect(-EOPNOTSUPP, NULL, "CONFIG_UCLAMP_TASK", "util_min");
	ck_assert_int_eq(dl_explain(-EOPNOTSUPP, 0, NULL, buf, sizeof(buf)), 0);
	tool_text(buf, shown, sizeof(shown));
	ck_assert_msg(strstr(shown, "CONFIG_UCLAMP_TASK") && strstr(shown, "--util-min"), "%s", shown);
	ck_assert_msg(!strstr(buf, "--util-min"), "the library speaks of an option: %s", buf);
}
END_TEST

START_TEST(test_esrch)
{
	char buf[256];

	ck_assert_int_eq(dl_explain(-ESRCH, 999999, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "no thread 999999");
}
END_TEST

START_TEST(test_enosys)
{
	expect(-ENOSYS, NULL, "sched_setattr", "3.14");
}
END_TEST

START_TEST(test_errmsg_persists)
{
	uint64_t ns;

	dl_time_parse("x", &ns);
	ck_assert(strstr(dl_errmsg(), "\"x\""));
	ck_assert_int_eq(dl_time_parse("1ms", &ns), 0);
	/* A success leaves the last failure's message, like errno. */
	ck_assert(strstr(dl_errmsg(), "\"x\""));
}
END_TEST

START_TEST(test_bad_buffer)
{
	ck_assert_int_eq(dl_explain(-EPERM, 0, NULL, NULL, 0), -EINVAL);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("explain");
	TCase *tc = tcase_create("messages");

	tcase_add_test(tc, test_einval_names_the_rule);
	tcase_add_test(tc, test_einval_unexplained);
	tcase_add_test(tc, test_eopnotsupp);
	tcase_add_test(tc, test_esrch);
	tcase_add_test(tc, test_enosys);
	tcase_add_test(tc, test_errmsg_persists);
	tcase_add_test(tc, test_bad_buffer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
