/*
 * CPU lists in the kernel's format.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"

static const struct {
	const char *in, *out;
	int count;
} good[] = {
	{ "0", "0", 1 },
	{ "1-7", "1-7", 7 },
	{ "0,2-3", "0,2-3", 3 },
	{ "3,2,1", "1-3", 3 },
	{ "0-1,1-2", "0-2", 3 },
	{ "", "", 0 },
	{ " 5 ", "5", 1 },
	{ "0,63,64,1023", "0,63-64,1023", 4 },
};

static const struct {
	const char *in;
	int err;
	const char *says;
} bad[] = {
	{ "a", -EINVAL, "expected a CPU number" },
	{ "1-", -EINVAL, "has no end" },
	{ "3-1", -EINVAL, "runs backwards" },
	{ "1;2", -EINVAL, "unexpected \";2\"" },
	{ "-1", -EINVAL, "expected a CPU number" },
	{ "1024", -ERANGE, "beyond the 1024 CPUs" },
	{ "0,,1", -EINVAL, "expected a CPU number" },
};

START_TEST(test_good)
{
	dl_cpus_t s;
	char buf[DL_CPUS_STRLEN];

	ck_assert_msg(dl_cpus_parse(good[_i].in, &s) == 0, "%s: %s", good[_i].in, dl_errmsg());
	ck_assert_int_eq(dl_cpus_count(&s), good[_i].count);
	ck_assert_str_eq(dl_cpus_format(&s, buf, sizeof(buf)), good[_i].out);
}
END_TEST

START_TEST(test_bad)
{
	dl_cpus_t s;

	ck_assert_int_eq(dl_cpus_parse(bad[_i].in, &s), bad[_i].err);
	ck_assert_msg(strstr(dl_errmsg(), bad[_i].says), "%s: \"%s\" lacks \"%s\"",
		      bad[_i].in, dl_errmsg(), bad[_i].says);
	ck_assert_msg(strstr(dl_errmsg(), bad[_i].in), "message does not quote the list");
}
END_TEST

START_TEST(test_set_ops)
{
	dl_cpus_t a, b;

	dl_cpus_parse("0-3", &a);
	dl_cpus_parse("2", &b);
	ck_assert(dl_cpus_subset(&b, &a));
	ck_assert(!dl_cpus_subset(&a, &b));
	ck_assert(dl_cpus_intersects(&a, &b));
	dl_cpus_parse("4-5", &b);
	ck_assert(!dl_cpus_intersects(&a, &b));
	ck_assert(!dl_cpus_equal(&a, &b));
	dl_cpus_parse("0,1,2,3", &b);
	ck_assert(dl_cpus_equal(&a, &b));
}
END_TEST

/* The machine's own online list parses and is not empty. */
START_TEST(test_online)
{
	dl_cpus_t s;

	ck_assert_msg(dl_cpus_online(&s) == 0, "%s", dl_errmsg());
	ck_assert_int_gt(dl_cpus_count(&s), 0);
	ck_assert(dl_cpus_isset(&s, 0));
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("cpus");
	TCase *tc = tcase_create("list");

	tcase_add_loop_test(tc, test_good, 0, ARRAY_SIZE(good));
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_set_ops);
	tcase_add_test(tc, test_online);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
