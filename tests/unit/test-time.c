/*
 * Time parsing and formatting: a table of good and bad inputs.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"

static const struct {
	const char *text;
	uint64_t ns;
} good[] = {
	{ "200ms", 200000000ULL },
	{ "1s", 1000000000ULL },
	{ "1.5ms", 1500000ULL },
	{ "500us", 500000ULL },
	{ "500\xc2\xb5s", 500000ULL },
	{ "750ns", 750ULL },
	{ "750", 750ULL },      /* bare integers are ns, as in chrt */
	{ "0", 0ULL },
	{ "0.5ms", 500000ULL },
	{ "2.5s", 2500000000ULL },
	{ "1.000000001s", 1000000001ULL },
	{ "1.0ns", 1ULL },
	{ "1.50000ms", 1500000ULL },
	{ "+3ms", 3000000ULL },
	{ "9223372036854775807", 9223372036854775807ULL },
	{ "9223372036s", 9223372036000000000ULL },
};

static const struct {
	const char *text;
	int err;
	const char *says; /* part of the message */
} bad[] = {
	{ "", -EINVAL, "missing time" },
	{ "ms", -EINVAL, "expected a number" },
	{ "-5ms", -EINVAL, "negative" },
	{ "abc", -EINVAL, "expected a number" },
	{ "10xs", -EINVAL, "unknown unit \"xs\"" },
	{ "10 ms", -EINVAL, "unknown unit \" ms\"" },
	{ "10msx", -EINVAL, "unknown unit \"msx\"" },
	{ "1.5", -EINVAL, "a fraction needs a unit" },
	{ "1.", -EINVAL, "no digits after the point" },
	{ ".5ms", -EINVAL, "digit before the point" },
	{ "1.5ns", -EINVAL, "finer than a nanosecond" },
	{ "1.0000000001s", -EINVAL, "finer than a nanosecond" },
	{ "9223372036854775808", -ERANGE, "too large" },
	{ "99999999999999999999999", -ERANGE, "too large" },
	{ "9223372037s", -ERANGE, "too large" },
	{ "10MS", -EINVAL, "unknown unit" },
};

START_TEST(test_parse_good)
{
	uint64_t ns = 42;
	int err = dl_time_parse(good[_i].text, &ns);

	ck_assert_msg(err == 0, "\"%s\": %s", good[_i].text, dl_errmsg());
	ck_assert_uint_eq(ns, good[_i].ns);
}
END_TEST

START_TEST(test_parse_bad)
{
	uint64_t ns = 42;
	int err = dl_time_parse(bad[_i].text, &ns);

	ck_assert_msg(err == bad[_i].err, "\"%s\": got %d, want %d", bad[_i].text, err, bad[_i].err);
	ck_assert_uint_eq(ns, 0); /* cleared on failure */
	ck_assert_msg(strstr(dl_errmsg(), bad[_i].says), "\"%s\": message \"%s\" lacks \"%s\"",
		      bad[_i].text, dl_errmsg(), bad[_i].says);
	/* The message quotes the offending text. */
	if (*bad[_i].text)
		ck_assert_msg(strstr(dl_errmsg(), bad[_i].text), "message \"%s\" does not quote \"%s\"",
			      dl_errmsg(), bad[_i].text);
}
END_TEST

START_TEST(test_parse_null)
{
	uint64_t ns;

	ck_assert_int_eq(dl_time_parse(NULL, &ns), -EINVAL);
}
END_TEST

static const struct {
	uint64_t ns;
	const char *text;
} fmt[] = {
	{ 0, "0ns" },
	{ 999, "999ns" },
	{ 1000, "1us" },
	{ 1024, "1.024us" },
	{ 1500000, "1.5ms" },
	{ 200000000, "200ms" },
	{ 1000000000, "1s" },
	{ 1000000001, "1.000000001s" },
	{ 2500000000ULL, "2.5s" },
	{ 60000000000ULL, "60s" },
	{ 1234567, "1.234567ms" },
};

START_TEST(test_format)
{
	char buf[DL_TIME_STRLEN];

	ck_assert_str_eq(dl_time_format(fmt[_i].ns, buf, sizeof(buf)), fmt[_i].text);
}
END_TEST

/* Whatever is formatted parses back to the same value. */
START_TEST(test_round_trip)
{
	static const uint64_t v[] = { 1, 7, 1023, 1024, 999999, 1000001, 123456789,
				      4194304000000ULL, 9223372036854775807ULL };
	char buf[DL_TIME_STRLEN];
	uint64_t back;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		dl_time_format(v[i], buf, sizeof(buf));
		ck_assert_msg(dl_time_parse(buf, &back) == 0, "%s: %s", buf, dl_errmsg());
		ck_assert_uint_eq(back, v[i]);
	}
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("time");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_parse_good, 0, ARRAY_SIZE(good));
	tcase_add_loop_test(tc, test_parse_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_parse_null);
	suite_add_tcase(s, tc);
	tc = tcase_create("format");
	tcase_add_loop_test(tc, test_format, 0, ARRAY_SIZE(fmt));
	tcase_add_test(tc, test_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
