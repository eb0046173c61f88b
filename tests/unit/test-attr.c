/*
 * struct sched_attr: the private copy has the kernel's layout, checked
 * against the kernel's own UAPI header.
 */
#include <errno.h>
#include <limits.h>
#include <linux/sched/types.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* The kernel's own answer to the flag, asked directly: true when it
 * takes SCHED_GETATTR_FLAG_DL_DYNAMIC (ESRCH for a pid no thread has),
 * false when it refuses the flag (EINVAL). */
static bool kernel_takes_dl_dynamic(void)
{
	struct sched_attr a;
	long r;

	memset(&a, 0, sizeof(a));
	r = syscall(SYS_sched_getattr, INT_MAX, &a, sizeof(a), 0x01u);
	ck_assert_int_eq(r, -1);
	ck_assert_msg(errno == ESRCH || errno == EINVAL, "sched_getattr(INT_MAX, flag 1): %s", strerror(errno));
	return errno == ESRCH;
}

static int probes;

static void count_probe(const char *point)
{
	if (strcmp(point, "dl-dynamic-probe") == 0)
		probes++;
}

/* As any user, on a thread that is not SCHED_DEADLINE: where the kernel
 * refuses the flag, ENOTSUP, found by one probe for every call after;
 * where it takes it, the thread's EINVAL, and still one probe. */
START_TEST(test_budget_found_once)
{
	static const struct dl_test_hooks h = { .at = count_probe };
	bool takes = kernel_takes_dl_dynamic();
	struct dl_budget b;

	dl_test_hooks = &h;
	for (int i = 0; i < 3; i++) {
		memset(&b, 0xff, sizeof(b));
		ck_assert_int_eq(dl_get_budget(0, &b), takes ? -EINVAL : -ENOTSUP);
		ck_assert_int_eq(b.runtime, 0);
		ck_assert_uint_eq(b.deadline, 0);
		ck_assert_ptr_nonnull(strstr(dl_errmsg(), takes ? "not SCHED_DEADLINE" : "Linux 7.1"));
	}
	ck_assert_int_eq(dl_sys_dl_dynamic(), takes);
	ck_assert_int_eq(probes, 1);
	tl_note("this kernel %s SCHED_GETATTR_FLAG_DL_DYNAMIC", takes ? "takes" : "refuses");
	/* A thread that does not exist: the kernel's ESRCH where it looks. */
	ck_assert_int_eq(dl_get_budget(INT_MAX, &b), takes ? -ESRCH : -ENOTSUP);
	dl_test_hooks = NULL;
}
END_TEST

START_TEST(test_budget_bad_arguments)
{
	struct dl_budget b;
	struct dl_periodic *pt;
	struct dl_params p = { .runtime = 1000000, .period = 10000000 };

	ck_assert_int_eq(dl_get_budget(0, NULL), -EINVAL);
	memset(&b, 0xff, sizeof(b));
	ck_assert_int_eq(dl_get_budget(-1, &b), -EINVAL);
	ck_assert_uint_eq(b.deadline, 0);
	ck_assert_int_eq(dl_periodic_budget(NULL, &b), -EINVAL);
	/* A loop with no reservation: its thread has no budget to read. */
	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION, 0), 0);
	ck_assert_int_eq(dl_periodic_budget(pt, &b), kernel_takes_dl_dynamic() ? -EINVAL : -ENOTSUP);
	dl_periodic_free(pt);
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
	tc = tcase_create("budget");
	tcase_add_test(tc, test_budget_found_once);
	tcase_add_test(tc, test_budget_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
