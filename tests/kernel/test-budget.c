/*
 * The budget a deadline job has left (dl_get_budget(3)) against the
 * running kernel.  Where the kernel gives it (SCHED_GETATTR_FLAG_DL_DYNAMIC,
 * Linux 7.1): a loop that spins has at most its runtime left, less after
 * 2ms of its CPU time, and a deadline in the future, one relative
 * deadline after its wake-up; dl-stat shows the fields.  Where it does
 * not: the kernel itself refuses the flag on a deadline thread, the
 * library says ENOTSUP, and dl-stat's JSON and --watch have no field
 * and no column for it.  Which one this kernel is comes from the kernel,
 * asked here directly, never from the code under test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000LL

static char out[65536], err[16384];

static int dl_stat(char *const args[])
{
	return tl_run_tool("dl-stat", args, out, sizeof(out), err, sizeof(err));
}
#define DL_STAT(...) dl_stat((char *[]){ __VA_ARGS__, NULL })

/* The kernel's own answer for the deadline thread tid: true when it
 * takes the flag, false when it refuses it with EINVAL. */
static bool kernel_gives_budget(pid_t tid, struct dl_sched_attr *a)
{
	long r;

	memset(a, 0, sizeof(*a));
	r = syscall(SYS_sched_getattr, tid, a, DL_ATTR_SIZE_VER1, 0x01u);
	ck_assert_msg(r == 0 || errno == EINVAL, "sched_getattr(%d, flag 1): %s", (int)tid, strerror(errno));
	return r == 0;
}

/* A sleeping deadline thread of its own: the library and dl-stat agree
 * with the kernel on whether there is a budget to show. */
START_TEST(test_dl_stat_shows_or_omits)
{
	struct dl_sched_attr a;
	struct dl_budget b;
	char pid[16];
	pid_t t = tl_dl_run_sleep((char *[]){ "-r", "2ms", "-d", "5ms", "-p", "10ms", NULL });
	bool gives = kernel_gives_budget(t, &a);

	tl_note("this kernel %s the budget of a deadline thread", gives ? "gives" : "refuses (EINVAL)");
	ck_assert_int_eq(dl_get_budget(t, &b), gives ? 0 : -ENOTSUP);
	if (gives) {
		/* The kernel's own figures, and the library's the same runtime
		 * (the thread sleeps: nothing is charged in between). */
		ck_assert_int_le((int64_t)a.sched_runtime, 2 * MS);
		ck_assert_int_eq(b.runtime, (int64_t)a.sched_runtime);
		ck_assert_uint_eq(a.sched_period, 10 * MS);
	}
	snprintf(pid, sizeof(pid), "%d", (int)t);
	ck_assert_int_eq(DL_STAT("--json", "--tasks", "-p", pid), 0);
	ck_assert_msg(strstr(out, "\"runtime_ns\":2000000"), "%s", out);
	ck_assert_msg(!strstr(out, "remaining_runtime_ns") == !gives, "%s", out);
	ck_assert_msg(!strstr(out, "abs_deadline_ns") == !gives, "%s", out);
	ck_assert_int_eq(DL_STAT("--watch", "0.1", "-n", "2", "--tasks", "-p", pid), 0);
	ck_assert_msg(strstr(out, "USED/PER"), "%s", out);
	ck_assert_msg(!strstr(out, " LEFT ") == !gives, "%s", out);
	ck_assert_msg(!strstr(out, "DL IN") == !gives, "%s", out);
	tl_kill(t);
}
END_TEST

/* A periodic loop reads its own budget (dl_periodic_budget(3)) around
 * 2ms of spinning, in each job (dl-spin --budget). */
START_TEST(test_spinning_loop)
{
	char line[512];
	int fd, n = 0, usual = 0;
	long long rel, t0, r0, d0, t1, r1, d1;
	pid_t p = tl_spawn((char *[]){ (char *)tl_helper("tests/kernel/dl-spin"), "--budget", "6", NULL }, &fd);
	struct dl_sched_attr a;
	bool gives;

	ck_assert_int_gt(p, 0);
	ck_assert_int_gt(tl_read_line(fd, line, sizeof(line), 10000), 0);
	/* The kernel's answer, asked for a deadline thread of its own. */
	{
		pid_t t = tl_dl_run_sleep((char *[]){ "-r", "1ms", "-p", "10ms", NULL });

		gives = kernel_gives_budget(t, &a);
		tl_kill(t);
	}
	if (!gives) {
		ck_assert_str_eq(line, "unsupported");
		ck_assert_int_eq(tl_wait(p), 0);
		return;
	}
	do {
		int job;

		ck_assert_msg(sscanf(line, "job %d release %lld t %lld left %lld deadline %lld t %lld left %lld deadline %lld",
				     &job, &rel, &t0, &r0, &d0, &t1, &r1, &d1) == 8, "%s", line);
		/* Never more than the runtime left. */
		ck_assert_msg(r0 <= 10 * MS && r1 <= 10 * MS, "%s", line);
		/* Unless a stall was charged to the loop (docs/kernel-notes.md,
		 * "A stalled virtual machine": it runs out, owes the rest, and
		 * its deadline moves periods later): one deadline in the job
		 * (apart by the drift of the run-queue clock and
		 * CLOCK_MONOTONIC: some us under TCG), ahead, at most one
		 * relative deadline away, one relative deadline after the
		 * wake-up at its release or later (the CBS wake-up rule), and
		 * less left after 2ms of spinning, by about that much. */
		if (llabs(d1 - d0) < 100000 && d0 > t0 && d0 <= t0 + 30 * MS + 100000 && d0 >= rel + 29 * MS &&
		    r1 < r0 && r0 - r1 >= 1 * MS && r0 - r1 <= 10 * MS)
			usual++;
		else
			tl_note("not as usual (a stall?): %s", line);
		ck_assert_int_eq(job, n + 1);
		n++;
	} while (tl_read_line(fd, line, sizeof(line), 10000) > 0 && strcmp(line, "done") != 0);
	ck_assert_str_eq(line, "done");
	ck_assert_int_eq(n, 6);
	ck_assert_int_ge(usual, 4);
	ck_assert_int_eq(tl_wait(p), 0);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("budget");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_dl_stat_shows_or_omits);
	tcase_add_test(tc, test_spinning_loop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
