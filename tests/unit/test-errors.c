/*
 * Every failing call says why itself: dl_errmsg() after a failure never
 * shows an earlier call's message (libdeadline(3)).  Each case first
 * fails a different call on purpose, then checks that the call under
 * test replaced the message with one of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define POISON "invalid time \"poison\""

static void poison(void)
{
	uint64_t ns;

	ck_assert_int_lt(dl_time_parse("poison", &ns), 0);
	ck_assert_msg(strstr(dl_errmsg(), POISON), "%s", dl_errmsg());
}

/* The call failed with a message of its own that names `word`. */
#define FAILS_WITH(call, word)                                                        \
	do {                                                                          \
		poison();                                                             \
		ck_assert_int_lt((call), 0);                                          \
		ck_assert_msg(!strstr(dl_errmsg(), POISON), "%s left the old message", #call); \
		ck_assert_msg(strstr(dl_errmsg(), word), "%s: \"%s\" lacks \"%s\"", #call, dl_errmsg(), word); \
	} while (0)

START_TEST(test_own_messages)
{
	struct dl_params bad = { .runtime = 3000000, .deadline = 2000000, .period = 10000000 };
	struct dl_params ok = { .runtime = 1000000, .period = 10000000 };
	struct dl_policy *pol = NULL;
	struct dl_layout *l = dl_layout_new();
	struct dl_rd rd;
	dl_cpus_t set;
	char buf[64];

	FAILS_WITH(dl_cpus_parse("0-", &set), "invalid CPU list");
	FAILS_WITH(dl_params_normalize(&bad, &bad), "runtime");
	FAILS_WITH(dl_params_normalize(NULL, &bad), "no parameters");
	FAILS_WITH(dl_set(-1, &ok), "invalid thread id");
	FAILS_WITH(dl_set_owned(-1, &ok), "invalid thread id");
	FAILS_WITH(dl_get(0x7ffffff0, &ok), "no thread");
	FAILS_WITH(dl_clear(0x7ffffff0), "no thread");
	FAILS_WITH(dl_set_process(-1, &ok, 0, NULL, NULL), "invalid process id");
	FAILS_WITH(dl_set_process(getpid(), &ok, 0x80, NULL, NULL), "unknown flags");
	FAILS_WITH(dl_part_set_process(DL_CLUSTER, -1, &ok, 0, NULL, NULL), "invalid process id");
	FAILS_WITH(dl_explain(-EBUSY, 0, &ok, NULL, 0), "no buffer");
	FAILS_WITH(dl_rd_of_cpu(0, NULL), "needs a struct dl_rd");
	FAILS_WITH(dl_periodic_next(NULL, NULL), "dl_periodic_start");
	FAILS_WITH(dl_rd_of_cpu(DL_CPUS_MAX - 1, &rd), "CPU");
	FAILS_WITH(dl_layout_add_partition(l, "../x", &set), "invalid partition name");
	FAILS_WITH(dl_layout_set_mems(l, "x"), "invalid memory node list");
	FAILS_WITH(dl_layout_set_flags(l, 0x100), "unknown layout flags");
	FAILS_WITH(dl_policy_parse("permit all\n", 11, "p.conf", &pol), "p.conf, line 1");
	FAILS_WITH(dl_policy_parse("allow all", 9, "p.conf", NULL), "no place");
	FAILS_WITH(dl_policy_check(NULL, 0, false, &ok, buf, sizeof(buf)), "needs a policy and parameters");
	{
		char path[] = "/tmp/libdl-policy-XXXXXX";
		int fd = mkstemp(path);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fchmod(fd, 0666), 0);
		close(fd);
		FAILS_WITH(dl_policy_read(path, &pol), "cannot be trusted");
		unlink(path);
	}
	dl_layout_free(l);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("messages");

	tcase_add_test(tc, test_own_messages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
