/*
 * The release bookkeeping of dl_periodic_next() (release.c), fed
 * synthetic timelines: what the kernel's CBS does in each case, and
 * what the API must then call release, late, skipped and re-anchored.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
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

/* rt-app's two timer modes after the same late jobs: job 0 ends at
 * 25 ms (past releases 1 and 2), then each job takes 2 ms. */
static uint64_t late_job(uint64_t end)
{
	uint64_t next;

	dl_book_end(&book, end, &job);
	next = dl_book_sleep_next(&book, end);
	dl_book_started(&book, next > end ? next : end);
	return next;
}

START_TEST(test_sleep_absolute)
{
	init(DL_PERIODIC_SLEEP | DL_PERIODIC_ABSOLUTE, 2 * MS, 10 * MS, 10 * MS);
	/* The grid stays: releases 1 and 2 have passed, and both are jobs,
	 * run at once one after the other. */
	ck_assert_uint_eq(late_job(T0 + 25 * MS), T0 + 10 * MS);
	ck_assert_uint_eq(late_job(T0 + 27 * MS), T0 + 20 * MS);
	ck_assert_uint_eq(job.index, 1);
	ck_assert_uint_eq(job.skipped, 0);
	ck_assert_uint_eq(job.start, T0 + 25 * MS);
	ck_assert(!job.met); /* 27 > 10 + 10 */
	/* Job 2 ends at 29, before release 3: caught up, it sleeps. */
	ck_assert_uint_eq(late_job(T0 + 29 * MS), T0 + 30 * MS);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.release, T0 + 20 * MS);
	ck_assert_uint_eq(job.start, T0 + 27 * MS);
	ck_assert(job.met);
	ck_assert_uint_eq(late_job(T0 + 32 * MS), T0 + 40 * MS);
	ck_assert_uint_eq(job.index, 3);
	ck_assert_uint_eq(job.start, T0 + 30 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
}
END_TEST

START_TEST(test_sleep_relative)
{
	init(DL_PERIODIC_SLEEP | DL_PERIODIC_RELATIVE, 2 * MS, 10 * MS, 10 * MS);
	/* The grid restarts at the late job's end, 25 ms. */
	ck_assert_uint_eq(late_job(T0 + 25 * MS), T0 + 25 * MS);
	ck_assert_uint_eq(late_job(T0 + 27 * MS), T0 + 35 * MS);
	ck_assert_uint_eq(job.index, 1);
	ck_assert_uint_eq(job.release, T0 + 25 * MS);
	ck_assert_uint_eq(job.deadline, T0 + 35 * MS);
	ck_assert_uint_eq(job.start, T0 + 25 * MS);
	ck_assert_uint_eq(job.skipped, 0);
	ck_assert_uint_eq(job.reanchor, 15 * MS); /* from release 1, 10 ms */
	ck_assert(job.met);
	ck_assert_uint_eq(late_job(T0 + 37 * MS), T0 + 45 * MS);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.release, T0 + 35 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	/* A job that ends exactly on the next release is late too (rt-app
	 * sleeps only while now < t_next): the grid restarts there. */
	ck_assert_uint_eq(late_job(T0 + 55 * MS), T0 + 55 * MS);
	ck_assert_uint_eq(late_job(T0 + 56 * MS), T0 + 65 * MS);
	ck_assert_uint_eq(job.release, T0 + 55 * MS);
}
END_TEST

/* The same late job in skip mode, for the difference: release 1 is
 * skipped, the next job is release 2's. */
START_TEST(test_sleep_skip_differs)
{
	init(DL_PERIODIC_SLEEP, 2 * MS, 10 * MS, 10 * MS);
	ck_assert_uint_eq(late_job(T0 + 25 * MS), T0 + 20 * MS);
	ck_assert_uint_eq(late_job(T0 + 27 * MS), T0 + 30 * MS);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.skipped, 1);
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

/* No reservation: the loop slept to the grid point itself, so a late
 * wake-up is latency (the grid stays), and a late end is replenished at
 * once on the same grid, re-anchored only past the deadline, as the CBS
 * would do. */
START_TEST(test_yield_unreserved)
{
	struct dl_params p = { .runtime = 2 * MS, .deadline = 8 * MS, .period = 10 * MS };

	dl_book_init(&book, DL_PERIODIC_YIELD | DL_PERIODIC_NO_RESERVATION, &p, T0, T0);
	ck_assert_int_eq(book.mode, DL_PERIODIC_YIELD);
	ck_assert_uint_eq(dl_book_yield_wait(&book), T0 + 10 * MS);
	/* Woke 3 ms late, twice: no move (with a reservation the second
	 * would be taken as the kernel's re-anchoring). */
	yield_job(T0 + 1 * MS, T0 + 13 * MS, false);
	yield_job(T0 + 14 * MS, T0 + 23 * MS, false);
	dl_book_end(&book, T0 + 24 * MS, &job);
	ck_assert_uint_eq(job.index, 2);
	ck_assert_uint_eq(job.release, T0 + 20 * MS);
	ck_assert_uint_eq(job.reanchor, 0);
	/* Ends 1 ms after the next grid point, even within a timer's
	 * tolerance of the one after: released at once on period 3. */
	ck_assert_uint_eq(dl_book_yield_wait(&book), T0 + 30 * MS);
	yield_job(T0 + 31 * MS, T0 + 31 * MS, true);
	dl_book_end(&book, T0 + 32 * MS, &job);
	ck_assert_uint_eq(job.index, 3);
	ck_assert_uint_eq(job.release, T0 + 30 * MS);
	ck_assert_uint_eq(job.skipped, 0);
	/* Ends past period 4's deadline (48 ms): re-anchored at the end. */
	yield_job(T0 + 49 * MS, T0 + 49 * MS, false);
	dl_book_end(&book, T0 + 50 * MS, &job);
	ck_assert_uint_eq(job.index, 4);
	ck_assert_uint_eq(job.release, T0 + 49 * MS);
	ck_assert_uint_eq(job.reanchor, 9 * MS);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact nearest-rank percentile of n sorted values, the reference. */
static uint64_t exact(const uint64_t *sorted, size_t n, unsigned p)
{
	size_t rank = (n * p + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/* The buckets tile every uint64_t value: each holds its own values and
 * is less than 1/128 of them wide. */
START_TEST(test_hist_buckets)
{
	ck_assert_uint_eq(dl_hist_index(0), 0);
	ck_assert_uint_eq(dl_hist_index(255), 255);
	ck_assert_uint_eq(dl_hist_index(256), 256);
	ck_assert_uint_eq(dl_hist_index(257), 256);
	ck_assert_uint_eq(dl_hist_index(UINT64_MAX), DL_HIST_BUCKETS - 1);
	ck_assert_uint_eq(dl_hist_upper(DL_HIST_BUCKETS - 1), UINT64_MAX);
	for (size_t i = 1; i < DL_HIST_BUCKETS; i++) {
		uint64_t lo = dl_hist_upper(i - 1) + 1, hi = dl_hist_upper(i);

		ck_assert_uint_eq(dl_hist_index(lo), i);
		ck_assert_uint_eq(dl_hist_index(hi), i);
		ck_assert_uint_ge(hi, lo);
		/* The width, hi - lo + 1, is under lo / 128 above 255. */
		if (lo > 255)
			ck_assert_uint_lt((hi - lo) * 128, lo);
	}
}
END_TEST

/* Against the exact percentiles of a sort: never below, less than 1/128
 * above, exact below 256 ns; min and max exact. */
START_TEST(test_hist_percentiles)
{
	static struct dl_hist h;
	static uint64_t v[20000];
	static const unsigned ps[] = { 1, 50, 90, 99, 100 };
	uint64_t seed = 12345;
	size_t n = 0;

	dl_hist_clear(&h);
	ck_assert_uint_eq(dl_hist_percentile(&h, 50), 0);
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		/* Spread over 13 decades: 1 ns to about 10 s. */
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[n] = (seed >> 20) >> (seed >> 58);
		dl_hist_add(&h, v[n++]);
		if (n == 1 || n == 7 || n == 100 || n == 20000) {
			uint64_t sorted[20000];

			memcpy(sorted, v, n * sizeof(*v));
			qsort(sorted, n, sizeof(*sorted), cmp_u64);
			ck_assert_uint_eq(h.min, sorted[0]);
			ck_assert_uint_eq(h.max, sorted[n - 1]);
			for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
				uint64_t want = exact(sorted, n, ps[i]), got = dl_hist_percentile(&h, ps[i]);

				ck_assert_uint_ge(got, want);
				if (want < 256)
					ck_assert_uint_eq(got, want);
				else
					ck_assert_uint_lt((got - want) * 128, want);
			}
		}
	}
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
	/* After a failure *pt is NULL, whatever it held. */
	pt = (struct dl_periodic *)&p;
	ck_assert_int_eq(dl_periodic_start(&pt, NULL, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION, 0), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "DL_PERIODIC_NO_RESERVATION needs the parameters"), "%s", dl_errmsg());
	ck_assert_ptr_null(pt);
	ck_assert_int_eq(dl_periodic_start(&pt, &p, 0x200 | DL_PERIODIC_SLEEP, 0), -EINVAL);
	ck_assert_ptr_null(pt);
	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_YIELD | DL_PERIODIC_RELATIVE, 0), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "DL_PERIODIC_RELATIVE goes with DL_PERIODIC_SLEEP"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE, 0),
			 -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "together"), "%s", dl_errmsg());
	ck_assert_ptr_null(pt);
	ck_assert_int_eq(dl_periodic_next(NULL, NULL), -EINVAL);
	{
		const struct dl_job *done = (const struct dl_job *)&p;

		ck_assert_int_eq(dl_periodic_next(NULL, &done), -EINVAL);
		ck_assert_ptr_null(done);
	}
	errno = 0;
	ck_assert_ptr_null(dl_periodic_stats(NULL));
	ck_assert_int_eq(errno, EINVAL);
	dl_periodic_free(NULL);
}
END_TEST

/* The loop itself, unprivileged: DL_PERIODIC_NO_RESERVATION runs the
 * same releases and measurements with no sched_setattr.  Whatever the
 * machine's load, every job is on the grid (sleep mode), or on a grid
 * moved only by the re-anchorings it reports (yield mode); the counts
 * agree with the jobs seen; the heap does not grow while it runs. */
static void run_unreserved(int mode)
{
	struct dl_params p = { .runtime = 200 * US, .period = 1 * MS };
	struct dl_periodic *pt = (struct dl_periodic *)&pt;
	const struct dl_periodic_stats *st, *st2;
	const struct dl_job *done = (const struct dl_job *)&done;
	uint64_t first = dl_now_ns() + 2 * MS, phase = first, last = 0, misses = 0, skipped = 0;
	size_t heap = 0;

	ck_assert_int_eq(dl_periodic_start(&pt, &p, mode | DL_PERIODIC_NO_RESERVATION, first), 0);
	ck_assert_uint_ge(dl_now_ns(), first);
	for (int i = 1; i <= 300; i++) {
		ck_assert_int_eq(dl_periodic_next(pt, &done), 0);
		ck_assert_ptr_nonnull(done);
		if (i > 1)
			ck_assert_uint_gt(done->index, last);
		last = done->index;
		phase += done->reanchor;
		if (mode == DL_PERIODIC_SLEEP)
			ck_assert_uint_eq(done->reanchor, 0);
		ck_assert_uint_eq(done->release, phase + done->index * p.period);
		ck_assert_uint_eq(done->deadline, done->release + p.period);
		ck_assert_uint_eq(done->response, done->end - done->release);
		ck_assert_int_eq(done->met, done->end <= done->deadline);
		ck_assert_uint_eq(done->overruns, 0);
		misses += !done->met;
		skipped += done->skipped;
		if (i == 30)
			heap = mallinfo2().uordblks;
	}
	ck_assert_uint_eq(mallinfo2().uordblks, heap);
	st = dl_periodic_stats(pt);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->jobs, 300);
	ck_assert_uint_eq(st->misses, misses);
	ck_assert_uint_eq(st->skipped, skipped);
	ck_assert_uint_le(st->response_min, st->response_p50);
	ck_assert_uint_le(st->response_p50, st->response_p90);
	ck_assert_uint_le(st->response_p90, st->response_p99);
	ck_assert_uint_le(st->response_p99, st->response_max);
	/* A snapshot: the next job does not change it until asked again,
	 * and the pointer stays the same. */
	ck_assert_int_eq(dl_periodic_next(pt, NULL), 0);
	ck_assert_uint_eq(st->jobs, 300);
	st2 = dl_periodic_stats(pt);
	ck_assert_ptr_eq(st2, st);
	ck_assert_uint_eq(st->jobs, 301);
	dl_periodic_free(pt);
}

START_TEST(test_unreserved_sleep)
{
	run_unreserved(DL_PERIODIC_SLEEP);
}
END_TEST

START_TEST(test_unreserved_yield)
{
	run_unreserved(DL_PERIODIC_YIELD);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("periodic");
	TCase *tc = tcase_create("sleep");

	tcase_add_test(tc, test_sleep_on_time);
	tcase_add_test(tc, test_sleep_late_and_skipped);
	tcase_add_test(tc, test_sleep_absolute);
	tcase_add_test(tc, test_sleep_relative);
	tcase_add_test(tc, test_sleep_skip_differs);
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
	tcase_add_test(tc, test_yield_unreserved);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_test(tc, test_hist_buckets);
	tcase_add_test(tc, test_hist_percentiles);
	tcase_add_test(tc, test_api_refusals);
	suite_add_tcase(s, tc);
	tc = tcase_create("unreserved");
	tcase_add_test(tc, test_unreserved_sleep);
	tcase_add_test(tc, test_unreserved_yield);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
