/*
 * struct sched_attr: the private copy has the kernel's layout, checked
 * against the kernel's own UAPI header.
 */
#include <linux/sched/types.h>
#include <stddef.h>

#include "testlib.h"

#define SAME_FIELD(f) \
	ck_assert_uint_eq(offsetof(struct dl_sched_attr, f), offsetof(struct sched_attr, f))

START_TEST(test_layout)
{
	ck_assert_uint_eq(sizeof(struct dl_sched_attr), 56);
	ck_assert_uint_eq(sizeof(struct dl_sched_attr), sizeof(struct sched_attr));
	ck_assert_uint_eq(offsetof(struct dl_sched_attr, sched_util_min), 48);
	SAME_FIELD(size);
	SAME_FIELD(sched_policy);
	SAME_FIELD(sched_flags);
	SAME_FIELD(sched_nice);
	SAME_FIELD(sched_priority);
	SAME_FIELD(sched_runtime);
	SAME_FIELD(sched_deadline);
	SAME_FIELD(sched_period);
	SAME_FIELD(sched_util_min);
	SAME_FIELD(sched_util_max);
	ck_assert_uint_eq(SCHED_ATTR_SIZE_VER0, DL_ATTR_SIZE_VER0);
	ck_assert_uint_eq(SCHED_ATTR_SIZE_VER1, DL_ATTR_SIZE_VER1);
}
END_TEST

START_TEST(test_flags_are_the_kernels)
{
	ck_assert_uint_eq(DL_FLAG_RESET_ON_FORK, 0x01);
	ck_assert_uint_eq(DL_FLAG_RECLAIM, 0x02);
	ck_assert_uint_eq(DL_FLAG_DL_OVERRUN, 0x04);
	ck_assert_uint_eq(DL_FLAG_UTIL_CLAMP_MIN, 0x20);
	ck_assert_uint_eq(DL_FLAG_UTIL_CLAMP_MAX, 0x40);
}
END_TEST

START_TEST(test_from_params)
{
	struct dl_params p = { .runtime = 1, .deadline = 2, .period = 3,
			       .flags = DL_FLAG_RECLAIM | DL_FLAG_UTIL_CLAMP_MAX,
			       .util_min = 4, .util_max = 5 };
	struct dl_sched_attr a;

	dl_attr_from_params(&a, &p);
	ck_assert_uint_eq(a.sched_policy, 6);
	ck_assert_uint_eq(a.sched_flags, DL_FLAG_RECLAIM | DL_FLAG_UTIL_CLAMP_MAX);
	ck_assert_uint_eq(a.sched_runtime, 1);
	ck_assert_uint_eq(a.sched_deadline, 2);
	ck_assert_uint_eq(a.sched_period, 3);
	ck_assert_uint_eq(a.sched_util_min, 4);
	ck_assert_uint_eq(a.sched_util_max, 5);
	ck_assert_int_eq(a.sched_nice, 0);
	ck_assert_uint_eq(a.sched_priority, 0);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_flags_are_the_kernels);
	tcase_add_test(tc, test_from_params);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
