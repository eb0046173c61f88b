/*
 * dl-jobs: a periodic job loop that knows its own misses, for the kernel
 * counter's suite (tests/kernel/kernel-count.sh).  Not libdeadline's loop
 * unless asked: it is started under a reservation by chrt(1), as a
 * program written without libdl would be.
 *
 *   dl-jobs [--publish] [--first MS] JOBS EVERY WORK_US OVER_US PERIOD_US DEADLINE_US
 *
 * JOBS jobs, released every PERIOD_US on an absolute CLOCK_MONOTONIC grid
 * from one period after the start, or MS milliseconds after it (slept
 * to: each job begins with a wake-up and ends with a sleep); each runs
 * WORK_US of its own CPU time, every EVERY-th one (the EVERY-th, 2 x
 * EVERY-th...; 0: none) OVER_US instead.  It prints "start FIRST" first
 * (FIRST: the first release, CLOCK_MONOTONIC ns), "done JOBS" after the
 * last job, then sleeps until killed.  Under a
 * runtime shorter than OVER_US the kernel throttles those jobs and they
 * end after their deadline; the others never do.  With --publish the
 * loop is dl_periodic's (sleep mode, no reservation of its own: chrt's
 * stays; DEADLINE_US its deadline), which publishes its counters
 * (dl_counts_list(3)) and prints "missed M of J" before "done".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libdeadline.h"

static long long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void burn(long long us)
{
	long long end = cpu_us() + us;

	while (cpu_us() < end)
		;
}

static long long work_of(long long i, long long every, long long work, long long over)
{
	return every && (i + 1) % every == 0 ? over : work;
}

int main(int argc, char **argv)
{
	int publish = 0, opt = 1;
	long long a[6], first_ms = -1;
	struct timespec next;
	uint64_t first;

	for (; opt < argc && strncmp(argv[opt], "--", 2) == 0; opt++) {
		if (strcmp(argv[opt], "--publish") == 0)
			publish = 1;
		else if (strcmp(argv[opt], "--first") == 0 && opt + 1 < argc)
			first_ms = atoll(argv[++opt]);
		else
			break;
	}
	if (argc != opt + 6) {
		fprintf(stderr, "usage: dl-jobs [--publish] [--first MS] JOBS EVERY WORK_US OVER_US PERIOD_US DEADLINE_US\n");
		return 2;
	}
	for (int i = 0; i < 6; i++)
		a[i] = atoll(argv[opt + i]);
	if (first_ms < 0)
		first_ms = a[4] / 1000;
	/* No page fault in a job, nor between the last job and the pause: a
	 * fault that waits for memory is a block, which the kernel's counter
	 * would see end a job (every page now and to come in memory; stdout's
	 * buffer and its file's first page made before the first job). */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	clock_gettime(CLOCK_MONOTONIC, &next);
	first = (uint64_t)next.tv_sec * 1000000000 + (uint64_t)next.tv_nsec + (uint64_t)first_ms * 1000000;
	printf("start %llu\n", (unsigned long long)first);
	fflush(stdout);
	if (publish) {
		struct dl_params p = { .runtime = (uint64_t)a[2] * 1000, .deadline = (uint64_t)a[5] * 1000,
				       .period = (uint64_t)a[4] * 1000 };
		const struct dl_periodic_stats *st;
		const struct dl_job *job;
		struct dl_periodic *pt;

		/* The first job too begins with a wake-up. */
		if (dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH,
				      first) < 0) {
			fprintf(stderr, "dl-jobs: %s\n", dl_errmsg());
			return 1;
		}
		for (long long i = 0; i < a[0]; i++) {
			burn(work_of(i, a[1], a[2], a[3]));
			dl_periodic_next(pt, &job);
		}
		st = dl_periodic_stats(pt);
		printf("missed %llu of %llu\n", (unsigned long long)st->misses, (unsigned long long)st->jobs);
	} else {
		/* One period before the first release: each job adds one. */
		first -= (uint64_t)a[4] * 1000;
		next.tv_sec = (time_t)(first / 1000000000);
		next.tv_nsec = (long)(first % 1000000000);
		for (long long i = 0; i < a[0]; i++) {
			long long ns = next.tv_nsec + a[4] * 1000;

			next.tv_sec += ns / 1000000000;
			next.tv_nsec = ns % 1000000000;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0)
				;
			burn(work_of(i, a[1], a[2], a[3]));
		}
	}
	printf("done %lld\n", a[0]);
	fflush(stdout);
	for (;;)
		pause();
}
