/*
 * The release bookkeeping of dl_periodic_next() (release.c), fed
 * synthetic timelines: what the kernel's CBS does in each case, and
 * what the API must then call release, late, skipped and re-anchored.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"
#include "workload/periodic.h"

#define US 1000ULL
#define MS 1000000ULL
#define T0 (1000 * MS) /* an arbitrary first release */

static struct dl_book book;
static struct dl_job job;

static void init(int mode, uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct dl_params p = { .runtime = runtime, .deadline = deadline, .period = period };

	dl_book_init(&book, mode, &p, T0, T0 + 10 * US);
}

/* Yield mode: the job began at its wake-up, ended (yielded) at end, and
 * the thread ran again at wake. */
static void yield_job(uint64_t end, uint64_t wake, bool overran)
{
	dl_book_end(&book, end, &job);
	dl_book_yield_next(&book, end, wake, overran, false);
	dl_book_started(&book, wake);
}

START_TEST(test_sleep_on_time)
{
	init(DL_PERIODIC_SLEEP, 2 * MS, 5 * MS, 10 * MS);
	for (uint64_t i = 0; i < 5; i++) {
		uint64_t end = T0 + i * 10 * MS + 3 * MS, next;

		dl_book_end(&book, end, &job);
		ck_assert_uint_eq(job.index, i);
		ck_assert_uint_eq(job.release, T0 + i * 10 * MS);
		ck_assert_uint_eq(job.deadline, job.release + 5 * MS);
		ck_assert_uint_eq(job.response, 3 * MS);
		ck_assert(job.met);
		ck_assert_uint_eq(job.tardiness, 0);
		next = dl_book_sleep_next(&book, end);
		ck_assert_uint_eq(next, T0 + (i + 1) * 10 * MS);
		dl_book_started(&book, next + 20 * US);
	}
	ck_assert_uint_eq(job.start, T0 + 40 * MS + 20 * US);
}
END_TEST

/* A late job: the next starts at once on its own release, which has
 * passed; one that runs past two releases skips the one in between. */
START_TEST(test_sleep_late_and_skipped)
{
	uint64_t next;

	init(DL_PERIODIC_SLEEP, 2 * MS, 5 * MS, 10 * MS);
	dl_book_end(&book, T0 + 12 * MS, &job);
	ck_assert(!job.met);
	ck_assert_uint_eq(job.tardiness, 7 * MS);
	ck_assert_uint_eq(job.response, 12 * MS);
	next = dl_book_sleep_next(&book, T0 + 12 * MS);
	ck_assert_uint_eq(next, T0 + 10 * MS); /* passed: no sleep */
	dl_book_started(&book, T0 + 12 * MS);
	dl_book_end(&book, T0 + 14 * MS, &job);
	ck_assert_uint_eq(job.index, 1);
	ck_assert_uint_eq(job.skipped, 0);
	ck_assert_uint_eq(job.response, 4 * MS);
	ck_assert(job.met); /* 14 <= 10 + 5 */

	/* Job 1 runs to 33 ms: releases 2 and 3 have passed; 2 is skipped. */
	next = dl_book_sleep_next(&book, T0 + 33 * MS);
	ck_assert_uint_eq(next, T0 + 30 * MS);
	dl_book_started(&book, T0 + 33 * MS);
	dl_book_end(&book, T0 + 35 * MS, &job);
	ck_assert_uint_eq(job.index, 3);
	ck_assert_uint_eq(job.skipped, 1);
	ck_assert_uint_eq(job.release, T0 + 30 * MS);
	ck_assert(job.met);
	/* The grid never moves in sleep mode. */
	ck_assert_uint_eq(dl_book_sleep_next(&book, T0 + 35 * MS), T0 + 40 * MS);
}
END_TEST

START_TEST(test_yield_on_grid)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 8 * MS, 10 * MS);
	for (uint64_t i = 0; i < 5; i++) {
		/* Woken 30 us after each replenishment. */
		yield_job(T0 + i * 10 * MS + 2 * MS, T0 + (i + 1) * 10 * MS + 30 * US, false);
		ck_assert_uint_eq(job.index, i);
		ck_assert_uint_eq(job.release, T0 + i * 10 * MS);
		ck_assert(job.met);
		ck_assert_uint_eq(job.reanchor, 0);
	}
	dl_book_end(&book, T0 + 52 * MS, &job);
	ck_assert_uint_eq(job.start, T0 + 50 * MS + 30 * US);
}
END_TEST

/* The first release was anchored at a wake-up that came late: a later
 * wake-up before the grid point moves the grid earlier. */
START_TEST(test_yield_grid_moves_earlier)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 10 * MS, 10 * MS);
	yield_job(T0 + 2 * MS, T0 + 10 * MS - 50 * US, false);
	dl_book_end(&book, T0 + 12 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 10 * MS - 50 * US);
	yield_job(T0 + 12 * MS, T0 + 20 * MS, false);
	ck_assert_uint_eq(job.release, T0 + 10 * MS - 50 * US);
	dl_book_end(&book, T0 + 22 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 20 * MS - 50 * US); /* the new grid */
	ck_assert_uint_eq(job.reanchor, 0);
}
END_TEST

/* The case that made `make demo` report 391 misses of 500 that were not
 * misses: a job ends after the next job's deadline, the kernel's CBS
 * re-anchors the task at the yield (deadline = now + D), and every later
 * period starts that much later.  The API reports the shift once, and
 * the later jobs, on time on the kernel's new grid, are met. */
START_TEST(test_yield_cbs_reanchor)
{
	init(DL_PERIODIC_YIELD, 2500 * US, 8 * MS, 8 * MS);
	/* Job 0: delayed, ends at 17 ms, after job 1's deadline (16 ms). */
	yield_job(T0 + 17 * MS, T0 + 17 * MS + 20 * US, false);
	ck_assert(!job.met);
	ck_assert_uint_eq(job.tardiness, 9 * MS);
	dl_book_end(&book, T0 + 19 * MS, &job);
	ck_assert_uint_eq(job.index, 1);
	ck_assert_uint_eq(job.release, T0 + 17 * MS); /* the kernel's new period */
	ck_assert_uint_eq(job.reanchor, 9 * MS);      /* 17 - 8: the phase it cost */
	ck_assert(job.met);
	/* From now on the replenishments come at 17 + 8i ms. */
	for (uint64_t i = 2; i < 10; i++) {
		uint64_t rel = T0 + 17 * MS + (i - 1) * 8 * MS;

		yield_job(rel - 8 * MS + 2400 * US, rel + 25 * US, false);
		ck_assert(job.met);
		dl_book_end(&book, rel + 2500 * US, &job);
		ck_assert_uint_eq(job.index, i);
		ck_assert_uint_eq(job.release, rel);
		ck_assert_uint_eq(job.reanchor, 0);
		ck_assert_uint_eq(job.response, 2500 * US);
		ck_assert(job.met);
	}
}
END_TEST

/* A job that ends after the next release but before its deadline: the
 * kernel replenishes at once with period n's deadline; the next job was
 * released on the grid and starts late, without re-anchoring. */
START_TEST(test_yield_immediate_replenish)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 10 * MS, 10 * MS);
	yield_job(T0 + 13 * MS, T0 + 13 * MS + 10 * US, false);
	ck_assert(!job.met);
	dl_book_end(&book, T0 + 15 * MS, &job);
	ck_assert_uint_eq(job.index, 1);
	ck_assert_uint_eq(job.release, T0 + 10 * MS);
	ck_assert_uint_eq(job.start, T0 + 13 * MS + 10 * US);
	ck_assert_uint_eq(job.response, 5 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	ck_assert(job.met);
	/* With a constrained deadline (D < T) the same lateness re-anchors. */
	init(DL_PERIODIC_YIELD, 2 * MS, 2 * MS, 10 * MS);
	yield_job(T0 + 13 * MS, T0 + 13 * MS + 10 * US, false);
	dl_book_end(&book, T0 + 14 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 13 * MS);
	ck_assert_uint_eq(job.reanchor, 3 * MS);
	ck_assert(job.met);
}
END_TEST

/* A job that overran its runtime was throttled and finished on period
 * 1's budget; its yield gave period 1 up: the next job is period 2's,
 * on time, and period 1 is skipped. */
START_TEST(test_yield_overrun_skips)
{
	init(DL_PERIODIC_YIELD, 2500 * US, 8 * MS, 8 * MS);
	yield_job(T0 + 8 * MS + 100 * US, T0 + 16 * MS + 20 * US, true);
	ck_assert(!job.met);
	dl_book_end(&book, T0 + 18 * MS, &job);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.skipped, 1);
	ck_assert_uint_eq(job.release, T0 + 16 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	ck_assert(job.met);
	/* The same timeline measured as "no overrun" tells the same story:
	 * the wake-up at the next grid point shows a timer release. */
	init(DL_PERIODIC_YIELD, 2500 * US, 8 * MS, 8 * MS);
	yield_job(T0 + 8 * MS + 100 * US, T0 + 16 * MS + 20 * US, false);
	dl_book_end(&book, T0 + 18 * MS, &job);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.release, T0 + 16 * MS);
}
END_TEST

/* An overrunning job on period 2's budget that ends past period 2's
 * deadline: replenished at once, and re-anchored at the yield. */
START_TEST(test_yield_overrun_reanchor)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 5 * MS, 10 * MS);
	yield_job(T0 + 26 * MS, T0 + 26 * MS + 10 * US, true);
	dl_book_end(&book, T0 + 27 * MS, &job);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.skipped, 1);
	ck_assert_uint_eq(job.release, T0 + 26 * MS);
	ck_assert_uint_eq(job.reanchor, 6 * MS);
	/* The next period starts 10 ms after the new anchor. */
	yield_job(T0 + 27 * MS, T0 + 36 * MS + 10 * US, false);
	dl_book_end(&book, T0 + 37 * MS, &job);
	ck_assert_uint_eq(job.index, 3);
	ck_assert_uint_eq(job.release, T0 + 36 * MS);
	ck_assert(job.met);
}
END_TEST

/* A job that slept inside went through the CBS wake-up rule; the wake-up
 * off the grid re-synchronises it. */
START_TEST(test_yield_blocked_resync)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 10 * MS, 10 * MS);
	dl_book_end(&book, T0 + 6 * MS, &job);
	dl_book_yield_next(&book, T0 + 6 * MS, T0 + 14 * MS, false, true);
	dl_book_started(&book, T0 + 14 * MS);
	dl_book_end(&book, T0 + 16 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 14 * MS);
	ck_assert_uint_eq(job.reanchor, 4 * MS);
	yield_job(T0 + 16 * MS, T0 + 24 * MS + 5 * US, false);
	dl_book_end(&book, T0 + 26 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 24 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	/* Not blocked, the same late wake-up is a late start on the grid. */
	init(DL_PERIODIC_YIELD, 2 * MS, 10 * MS, 10 * MS);
	yield_job(T0 + 6 * MS, T0 + 14 * MS, false);
	dl_book_end(&book, T0 + 16 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 10 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
}
END_TEST

/* A replenishment timer that fires after the deadline (the machine
 * stalled): the kernel re-anchors at the timer.  The first late wake-up
 * is a late job on the old grid (it may be interference); the second,
 * as late, shows the grid moved: the job after it is measured from it. */
START_TEST(test_yield_late_timer_reanchor)
{
	init(DL_PERIODIC_YIELD, 2 * MS, 5 * MS, 20 * MS);
	/* Job 0 ends at 2 ms; the timer for 20 ms fires at 27 ms. */
	yield_job(T0 + 2 * MS, T0 + 27 * MS, false);
	dl_book_end(&book, T0 + 29 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 20 * MS);
	ck_assert(!job.met);
	ck_assert_uint_eq(job.reanchor, 0);
	/* The kernel's grid is now 27 + 20i. */
	yield_job(T0 + 29 * MS, T0 + 47 * MS + 10 * US, false);
	dl_book_end(&book, T0 + 49 * MS, &job);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.release, T0 + 47 * MS + 10 * US);
	ck_assert_uint_eq(job.reanchor, 7 * MS + 10 * US);
	ck_assert(job.met);
	yield_job(T0 + 49 * MS, T0 + 67 * MS + 20 * US, false);
	dl_book_end(&book, T0 + 69 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 67 * MS + 10 * US);
	ck_assert_uint_eq(job.reanchor, 0);
	ck_assert(job.met);
	/* One late wake-up alone (interference) moves nothing. */
	init(DL_PERIODIC_YIELD, 2 * MS, 5 * MS, 20 * MS);
	yield_job(T0 + 2 * MS, T0 + 27 * MS, false);
	yield_job(T0 + 29 * MS, T0 + 40 * MS + 10 * US, false);
	dl_book_end(&book, T0 + 42 * MS, &job);
	ck_assert_uint_eq(job.release, T0 + 40 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	/* A stall ends 13.4 ms after release 1 (deadline 8 ms): the kernel
	 * re-anchors there; the job ends at 15.8 ms, after the old grid's
	 * next release, and the timer wakes it at 21.4 ms, the new grid,
	 * 5.4 ms after the old one's: less than the deadline, but late
	 * again after a late release, so the grid follows. */
	init(DL_PERIODIC_YIELD, 2500 * US, 8 * MS, 8 * MS);
	yield_job(T0 + 2400 * US, T0 + 21400 * US, false);
	dl_book_end(&book, T0 + 23800 * US, &job);
	ck_assert_uint_eq(job.release, T0 + 8 * MS);
	ck_assert(!job.met);
	yield_job(T0 + 23800 * US, T0 + 29400 * US, false);
	dl_book_end(&book, T0 + 31800 * US, &job);
	ck_assert_uint_eq(job.index, 3);
	ck_assert_uint_eq(job.skipped, 1);
	ck_assert_uint_eq(job.release, T0 + 29400 * US);
	ck_assert_uint_eq(job.reanchor, 5400 * US);
	ck_assert(job.met);
	yield_job(T0 + 31800 * US, T0 + 37400 * US + 20 * US, false);
	dl_book_end(&book, T0 + 39800 * US, &job);
	ck_assert_uint_eq(job.release, T0 + 37400 * US);
	ck_assert_uint_eq(job.reanchor, 0);
	ck_assert_uint_eq(job.response, 2400 * US);
	/* Late by less than the deadline, every time (a task that always
	 * runs second): the same grid, every job late by as much. */
	init(DL_PERIODIC_YIELD, 2 * MS, 8 * MS, 8 * MS);
	for (uint64_t i = 1; i < 6; i++) {
		yield_job(T0 + (i - 1) * 8 * MS + 4900 * US, T0 + i * 8 * MS + 2400 * US, false);
		dl_book_end(&book, T0 + i * 8 * MS + 4800 * US, &job);
		ck_assert_uint_eq(job.release, T0 + i * 8 * MS);
		ck_assert_uint_eq(job.response, 4800 * US);
	}
}
END_TEST

START_TEST(test_percentile)
{
	uint64_t v[100];

	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)i + 1;
	ck_assert_uint_eq(dl_percentile(v, 100, 50), 50);
	ck_assert_uint_eq(dl_percentile(v, 100, 99), 99);
	ck_assert_uint_eq(dl_percentile(v, 100, 100), 100);
	ck_assert_uint_eq(dl_percentile(v, 3, 50), 2);
	ck_assert_uint_eq(dl_percentile(v, 3, 99), 3);
	ck_assert_uint_eq(dl_percentile(v, 1, 1), 1);
	ck_assert_uint_eq(dl_percentile(v, 0, 50), 0);
}
END_TEST

/* The API's own checks, which need no kernel. */
START_TEST(test_api_refusals)
{
	struct dl_periodic *pt = NULL;
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };

	ck_assert_int_eq(dl_periodic_start(&pt, &p, 7, 0), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "unknown periodic mode 7"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_periodic_start(NULL, &p, DL_PERIODIC_SLEEP, 0), -EINVAL);
	p.runtime = 20 * MS;
	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP, 0), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "runtime 20ms is longer than the deadline 10ms"), "%s", dl_errmsg());
	ck_assert_ptr_null(pt);
	ck_assert_int_eq(dl_periodic_next(NULL, NULL), -EINVAL);
	ck_assert_ptr_null(dl_periodic_stats(NULL));
	dl_periodic_free(NULL);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("periodic");
	TCase *tc = tcase_create("sleep");

	tcase_add_test(tc, test_sleep_on_time);
	tcase_add_test(tc, test_sleep_late_and_skipped);
	suite_add_tcase(s, tc);
	tc = tcase_create("yield");
	tcase_add_test(tc, test_yield_on_grid);
	tcase_add_test(tc, test_yield_grid_moves_earlier);
	tcase_add_test(tc, test_yield_cbs_reanchor);
	tcase_add_test(tc, test_yield_immediate_replenish);
	tcase_add_test(tc, test_yield_overrun_skips);
	tcase_add_test(tc, test_yield_overrun_reanchor);
	tcase_add_test(tc, test_yield_blocked_resync);
	tcase_add_test(tc, test_yield_late_timer_reanchor);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_test(tc, test_percentile);
	tcase_add_test(tc, test_api_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
