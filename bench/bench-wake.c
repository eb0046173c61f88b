/*
 * bench-wake: the activation latency of libdl's periodic loop.
 *
 * One SCHED_DEADLINE thread (runtime 60% of PERIOD, deadline = period:
 * the parameters rt-tests' cyclicdeadline gives its thread) runs
 * dl_periodic_start(3)/dl_periodic_next(3) in MODE (sleep or yield) for
 * SECONDS, each job doing no work, as cyclicdeadline's jobs do.  The
 * latency of a job is from its release (the library's: the absolute grid
 * in sleep mode, the kernel's replenishment in yield mode) to the moment
 * the loop returned to the caller (dl_job.start), both CLOCK_MONOTONIC.
 *
 * Prints one line: mode jobs min median p99 max avg (microseconds), and
 * with a third argument writes every job's release and start (ns) there,
 * for a check against the kernel's tracepoints.
 *
 * The loop runs in a thread of its own while the main thread wakes every
 * 10 ms until it ends, as cyclicdeadline's main thread does
 * (usleep(10000) in a loop, strace shows): the process has the same shape
 * as the peer's, so the comparison is of the loops.  It matters on the
 * project's VM: a bare sched_yield() loop alone in its process woke
 * 97/111/124 us after its replenishment (median, three rounds), the same
 * loop with a sibling waking every 10 ms 84/89/98 us, cyclicdeadline
 * 90/114/94 us (bench/trace-wake.sh, 2026-12-04).
 *
 * With TRACE_MARKER set (bench/trace-wake.sh sets it: a tracefs
 * instance's trace_marker), each job begins by writing "job" there, the
 * first thing the job's own code does, as cyclicdeadline's jobs write
 * theirs: the trace then shows when control reached the job.
 *
 * MODE sleep-publish or yield-publish: the same loop with
 * DL_PERIODIC_PUBLISH, its counters written into its record at every
 * job, for the cost of publishing side by side with the loop without.
 *
 *   bench-wake MODE PERIOD_US SECONDS [JOBS.CSV]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libdeadline.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct run {
	int mode, mark;
	uint64_t period, max, n, *lat;
	FILE *csv;
	int status;
	bool done;
};

static void *loop(void *arg)
{
	struct run *r = arg;
	struct dl_periodic *pt;
	const struct dl_job *job;
	struct dl_params p = { 0 };

	p.runtime = r->period * 60 / 100;
	p.deadline = r->period;
	p.period = r->period;
	r->status = 1;
	if (dl_periodic_start(&pt, &p, r->mode, 0) < 0) {
		fprintf(stderr, "bench-wake: %s\n", dl_errmsg());
		goto out;
	}
	for (r->n = 0; r->n < r->max;) {
		if (dl_periodic_next(pt, &job) < 0) {
			fprintf(stderr, "bench-wake: %s\n", dl_errmsg());
			dl_periodic_free(pt);
			goto out;
		}
		if (r->mark >= 0 && write(r->mark, "job\n", 4) < 0)
			r->mark = -1;
		/* Job 0 began with the start call itself: not a wake-up. */
		if (job->index == 0)
			continue;
		r->lat[r->n++] = job->start - job->release;
		if (r->csv)
			fprintf(r->csv, "%llu,%llu\n", (unsigned long long)job->release,
				(unsigned long long)job->start);
	}
	dl_periodic_free(pt);
	r->status = 0;
out:
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	struct run r = { .mark = -1 };
	const char *marker = getenv("TRACE_MARKER");
	uint64_t sum = 0, n, *lat;
	pthread_t th;
	int err;

	if (argc < 4 || (strncmp(argv[1], "sleep", 5) && strncmp(argv[1], "yield", 5)) ||
	    (argv[1][5] && strcmp(argv[1] + 5, "-publish"))) {
		fprintf(stderr, "usage: bench-wake sleep|yield|sleep-publish|yield-publish PERIOD_US SECONDS [JOBS.CSV]\n");
		return 2;
	}
	r.mode = strncmp(argv[1], "sleep", 5) ? DL_PERIODIC_YIELD : DL_PERIODIC_SLEEP;
	if (argv[1][5])
		r.mode |= DL_PERIODIC_PUBLISH;
	r.period = strtoull(argv[2], NULL, 10) * 1000;
	r.max = r.period ? strtoull(argv[3], NULL, 10) * 1000000000ULL / r.period : 0;
	if (!r.period || !r.max || !(r.lat = calloc(r.max, sizeof(*r.lat))))
		return 2;
	if (argc > 4 && !(r.csv = fopen(argv[4], "w"))) {
		perror(argv[4]);
		return 2;
	}
	if (marker && *marker && (r.mark = open(marker, O_WRONLY | O_CLOEXEC)) < 0) {
		perror(marker);
		return 2;
	}
	err = pthread_create(&th, NULL, loop, &r);
	if (err) {
		fprintf(stderr, "bench-wake: cannot start the loop's thread: %s\n", strerror(err));
		return 1;
	}
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
		usleep(10000);
	pthread_join(th, NULL);
	if (r.csv)
		fclose(r.csv);
	if (r.status)
		return r.status;
	n = r.n;
	lat = r.lat;
	for (uint64_t i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp);
	printf("%s %llu %.1f %.1f %.1f %.1f %.1f\n", argv[1], (unsigned long long)n,
	       lat[0] / 1e3, lat[n / 2] / 1e3, lat[(n * 99 + 99) / 100 - 1] / 1e3,
	       lat[n - 1] / 1e3, (double)sum / n / 1e3);
	free(lat);
	return 0;
}
