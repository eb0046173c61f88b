/*
 * The syscall layer against the running kernel: what dl_set() asks is
 * what sched_getattr(2) and /proc/PID/sched report.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL
#define US 1000ULL


/* Each test runs in its own forked process (check's CK_FORK), so the
 * calling thread's policy dies with it. */

START_TEST(test_set_get_self)
{
	struct dl_params p = { .runtime = 2 * MS, .deadline = 5 * MS, .period = 10 * MS }, got;
	struct dl_sched_attr a;
	uint64_t v;

	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_get(0, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 2 * MS);
	ck_assert_uint_eq(got.deadline, 5 * MS);
	ck_assert_uint_eq(got.period, 10 * MS);
	/* The raw syscall agrees, and so does /proc. */
	ck_assert_int_eq(dl_sys_getattr(0, &a), 0);
	ck_assert_uint_eq(a.sched_policy, 6);
	ck_assert_uint_eq(a.sched_runtime, 2 * MS);
	ck_assert_int_eq(tl_proc_sched(getpid(), "policy", &v), 0);
	ck_assert_uint_eq(v, 6);
	/* /proc shows the runtime left in this period. */
	ck_assert_int_eq(tl_proc_sched(getpid(), "dl.runtime", &v), 0);
	ck_assert_uint_le(v, 2 * MS);
}
END_TEST

START_TEST(test_defaults_reach_the_kernel)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 8 * MS }, got;

	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_get(0, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.deadline, 8 * MS); /* deadline = period */
	p = (struct dl_params){ .runtime = 1 * MS, .deadline = 6 * MS };
	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_get(0, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.period, 6 * MS); /* period = deadline */
}
END_TEST

static const uint64_t flag_cases[] = {
	DL_FLAG_RESET_ON_FORK,
	DL_FLAG_RECLAIM,
	DL_FLAG_DL_OVERRUN,
	DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN,
};

START_TEST(test_flags)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS, .flags = flag_cases[_i] }, got;
	struct dl_sched_attr a;

	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_get(0, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.flags, flag_cases[_i]);
	ck_assert_int_eq(dl_sys_getattr(0, &a), 0);
	ck_assert_uint_eq(a.sched_flags & 0x7, flag_cases[_i]);
}
END_TEST

/* Utilization clamps: the values when the kernel has them
 * (CONFIG_UCLAMP_TASK), else the explained EOPNOTSUPP. */
START_TEST(test_util_clamp)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS,
			       .flags = DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX,
			       .util_min = 100, .util_max = 900 }, got;
	bool have = access("/proc/sys/kernel/sched_util_clamp_min", F_OK) == 0;
	int err = dl_set(0, &p);

	if (have) {
		ck_assert_msg(err == 0, "%s", dl_errmsg());
		ck_assert_int_eq(dl_get(0, &got), DL_SCHED_DEADLINE);
		ck_assert_uint_eq(got.util_min, 100);
		ck_assert_uint_eq(got.util_max, 900);
	} else {
		ck_assert_int_eq(err, -EOPNOTSUPP);
		ck_assert_msg(strstr(dl_errmsg(), "CONFIG_UCLAMP_TASK"), "%s", dl_errmsg());
		/* Nothing was changed. */
		ck_assert_int_eq(dl_get(0, &got), SCHED_OTHER);
	}
}
END_TEST

/* The kernel's minimum is what the library says it is. */
START_TEST(test_runtime_minimum)
{
	struct dl_sched_attr a;
	struct dl_params p = { .runtime = 1024, .period = 1 * MS };

	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	/* Bypass the library's check: the kernel refuses 1023 itself. */
	dl_attr_from_params(&a, &(struct dl_params){ .runtime = 1023, .deadline = 1 * MS, .period = 1 * MS });
	ck_assert_int_eq(dl_sys_setattr(0, &a), -EINVAL);
	p.runtime = 1023;
	ck_assert_int_eq(dl_set(0, &p), -EINVAL);
	ck_assert(strstr(dl_errmsg(), "1023ns"));
}
END_TEST

/* The kernel answers a size it does not know with E2BIG and its own
 * size: what the 48-byte fallback relies on. */
START_TEST(test_e2big_reports_size)
{
	struct {
		struct dl_sched_attr a;
		uint64_t extra;
	} big;

	memset(&big, 0, sizeof(big));
	dl_attr_from_params(&big.a, &(struct dl_params){ .runtime = 1 * MS, .deadline = 10 * MS, .period = 10 * MS });
	big.a.size = sizeof(big);
	big.extra = 1; /* non-zero tail the kernel cannot ignore */
	ck_assert_int_eq(syscall(SYS_sched_setattr, 0, &big, 0), -1);
	ck_assert_int_eq(errno, E2BIG);
	ck_assert_uint_ge(big.a.size, DL_ATTR_SIZE_VER0);
	ck_assert_uint_lt(big.a.size, sizeof(big));
}
END_TEST

START_TEST(test_clear)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS }, got;

	/* Nice 5 whatever the suite was started with (make check under
	 * nice -n 19 too): set, not added to. */
	ck_assert_int_eq(setpriority(PRIO_PROCESS, 0, 5), 0);
	ck_assert_msg(dl_set(0, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_clear(0), 0);
	ck_assert_int_eq(dl_get(0, &got), SCHED_OTHER);
	errno = 0;
	ck_assert_int_eq(getpriority(PRIO_PROCESS, 0), 5); /* the nice value survived */
	ck_assert_int_eq(errno, 0);
}
END_TEST

/* A sleeping deadline thread sent back to SCHED_OTHER gives its
 * bandwidth back (the kernel alone would keep it: dl_sys_leave()). */
START_TEST(test_clear_sleeping_thread_frees_bandwidth)
{
	struct dl_params p = { .runtime = 5 * MS, .period = 50 * MS };
	pid_t tids[1], pid;
	struct dl_rd before, during, after;

	tl_settle();
	pid = tl_spawn_spin(1, false, NULL, tids);
	ck_assert_int_eq(dl_rd_of_cpu(0, &before), 0);
	ck_assert_msg(dl_set(pid, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_rd_of_cpu(0, &during), 0);
	ck_assert_int_eq(during.total_bw, before.total_bw + (int64_t)dl_params_bw(&p));
	ck_assert_int_eq(dl_clear(pid), 0);
	dl_sleep_ns(200 * MS); /* past any 0-lag time */
	ck_assert_int_eq(dl_rd_of_cpu(0, &after), 0);
	ck_assert_int_eq(after.total_bw, before.total_bw);
	tl_kill(pid);
}
END_TEST

START_TEST(test_esrch)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	pid_t dead = fork();

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	ck_assert_int_eq(dl_set(dead, &p), -ESRCH);
	ck_assert_msg(strstr(dl_errmsg(), "no thread"), "%s", dl_errmsg());
}
END_TEST

/* Another thread of this process, by TID. */
static void *sleeper(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

START_TEST(test_other_thread)
{
	struct dl_params p = { .runtime = 3 * MS, .period = 30 * MS }, got;
	volatile pid_t tid = 0;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, sleeper, (void *)&tid), 0);
	while (!tid)
		sched_yield();
	ck_assert_msg(dl_set(tid, &p) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_get(tid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 3 * MS);
	ck_assert_int_eq(dl_get(0, &got), SCHED_OTHER); /* the caller is not touched */
}
END_TEST

START_TEST(test_process_all_threads)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 100 * MS }, got;
	struct dl_thread_status *st;
	pid_t tids[4], pid = tl_spawn_spin(4, false, NULL, tids);
	size_t n;
	int ret = dl_set_process(pid, &p, 0, &st, &n);

	ck_assert_msg(ret == 4, "ret %d: %s", ret, dl_errmsg());
	ck_assert_uint_eq(n, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(st[i].err, 0);
		ck_assert_int_eq(dl_get(tids[i], &got), DL_SCHED_DEADLINE);
		ck_assert_uint_eq(got.period, 100 * MS);
	}
	free(st);
	tl_kill(pid);
}
END_TEST

/* A thread whose affinity does not cover its root domain is refused
 * (EPERM); every failure is reported and the others are restored. */
START_TEST(test_process_reports_and_rolls_back)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 100 * MS }, got;
	struct dl_thread_status *st;
	pid_t tids[3], pid;
	cpu_set_t one;
	dl_cpus_t online;
	size_t n;
	int ret, failed = 0;

	dl_cpus_online(&online);
	if (dl_cpus_count(&online) < 2)
		return; /* one CPU: every affinity covers it */
	pid = tl_spawn_spin(3, false, NULL, tids);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(tids[1], sizeof(one), &one), 0);
	ret = dl_set_process(pid, &p, 0, &st, &n);
	ck_assert_int_eq(ret, -EPERM);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		if (st[i].tid == tids[1]) {
			ck_assert_int_eq(st[i].err, -EPERM);
			failed++;
		} else {
			ck_assert_int_eq(st[i].err, 0);
		}
	}
	ck_assert_int_eq(failed, 1);
	ck_assert_msg(strstr(dl_errmsg(), "1 of 3 threads"), "%s", dl_errmsg());
	ck_assert_msg(strstr(dl_errmsg(), "affinity"), "%s", dl_errmsg());
	ck_assert_msg(strstr(dl_errmsg(), "restored"), "%s", dl_errmsg());
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(dl_get(tids[i], &got), SCHED_OTHER);
	free(st);

	/* With DL_PROC_PARTIAL the others keep their reservation. */
	ret = dl_set_process(pid, &p, DL_PROC_PARTIAL, NULL, NULL);
	ck_assert_int_eq(ret, -EPERM);
	ck_assert_int_eq(dl_get(tids[0], &got), DL_SCHED_DEADLINE);
	ck_assert_int_eq(dl_get(tids[2], &got), DL_SCHED_DEADLINE);
	ck_assert_int_eq(dl_get(tids[1], &got), SCHED_OTHER);
	tl_kill(pid);
}
END_TEST

/* Yield mode: dl_periodic_next() wakes once per period, on the kernel's
 * grid: the wake-up (the replenishment) follows the release closely. */
START_TEST(test_periodic)
{
	struct dl_params p = { .runtime = 2 * MS, .period = 20 * MS };
	struct dl_periodic *pt;
	const struct dl_job *job;
	const struct dl_periodic_stats *st;
	uint64_t first = 0, last = 0;

	ck_assert_msg(dl_periodic_start(&pt, &p, DL_PERIODIC_YIELD, 0) == 0, "%s", dl_errmsg());
	for (int i = 0; i < 25; i++) {
		ck_assert_int_eq(dl_periodic_next(pt, &job), 0);
		ck_assert_uint_eq(job->index, (uint64_t)i + job->skipped);
		ck_assert_uint_eq(job->deadline, job->release + 20 * MS);
		ck_assert_uint_ge(job->start, job->release);
		ck_assert_uint_ge(job->end, job->start);
		ck_assert_uint_eq(job->response, job->end - job->release);
		ck_assert_uint_lt(job->start - job->release, 20 * MS);
		if (i == 0)
			first = job->release;
		last = job->release;
	}
	/* 24 periods between the first job and the last, give or take the
	 * grid's moves to the kernel's earlier wake-ups and what a loaded
	 * machine made it skip or shift. */
	ck_assert_uint_ge(last - first, 24 * 20 * MS - 2 * MS);
	ck_assert_uint_le(last - first, 24 * 20 * MS + 200 * MS);
	st = dl_periodic_stats(pt);
	ck_assert_uint_eq(st->jobs, 25);
	ck_assert_uint_le(st->response_min, st->response_p50);
	ck_assert_uint_le(st->response_p50, st->response_p99);
	ck_assert_uint_le(st->response_p99, st->response_max);
	dl_periodic_free(pt);
}
END_TEST

START_TEST(test_periodic_adopts_reservation)
{
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	struct dl_periodic *pt;
	const struct dl_job *job;

	ck_assert_int_eq(dl_periodic_start(&pt, NULL, DL_PERIODIC_SLEEP, 0), -EINVAL);
	ck_assert(strstr(dl_errmsg(), "not under SCHED_DEADLINE"));
	ck_assert_int_eq(dl_set(0, &p), 0);
	ck_assert_msg(dl_periodic_start(&pt, NULL, DL_PERIODIC_SLEEP, 0) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_periodic_next(pt, &job), 0);
	ck_assert_uint_eq(job->deadline - job->release, 10 * MS); /* the adopted deadline */
	ck_assert_int_eq(dl_periodic_next(pt, &job), 0);
	ck_assert_uint_eq(job->index, 1 + job->skipped);
	dl_periodic_free(pt);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("setattr");
	TCase *tc = tcase_create("thread");

	tcase_add_test(tc, test_set_get_self);
	tcase_add_test(tc, test_defaults_reach_the_kernel);
	tcase_add_loop_test(tc, test_flags, 0, ARRAY_SIZE(flag_cases));
	tcase_add_test(tc, test_util_clamp);
	tcase_add_test(tc, test_runtime_minimum);
	tcase_add_test(tc, test_e2big_reports_size);
	tcase_add_test(tc, test_clear);
	tcase_add_test(tc, test_clear_sleeping_thread_frees_bandwidth);
	tcase_add_test(tc, test_esrch);
	tcase_add_test(tc, test_other_thread);
	suite_add_tcase(s, tc);
	tc = tcase_create("process");
	tcase_add_test(tc, test_process_all_threads);
	tcase_add_test(tc, test_process_reports_and_rolls_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("periodic");
	tcase_add_test(tc, test_periodic);
	tcase_add_test(tc, test_periodic_adopts_reservation);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
