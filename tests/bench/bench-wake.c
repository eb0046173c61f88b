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
 * With TRACE_MARKER set (bench/trace-wake.sh sets it: a tracefs
 * instance's trace_marker), each job begins by writing "job" there, the
 * first thing the job's own code does, as cyclicdeadline's jobs write
 * theirs: the trace then shows when control reached the job.
 *
 *   bench-wake MODE PERIOD_US SECONDS [JOBS.CSV]
 */
#include <fcntl.h>
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

int main(int argc, char **argv)
{
	struct dl_periodic *pt;
	const struct dl_job *job;
	struct dl_params p = { 0 };
	uint64_t period, n, max, *lat, sum = 0;
	FILE *csv = NULL;
	const char *marker = getenv("TRACE_MARKER");
	int mode, mark = -1;

	if (argc < 4 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "yield"))) {
		fprintf(stderr, "usage: bench-wake sleep|yield PERIOD_US SECONDS [JOBS.CSV]\n");
		return 2;
	}
	mode = strcmp(argv[1], "sleep") ? DL_PERIODIC_YIELD : DL_PERIODIC_SLEEP;
	period = strtoull(argv[2], NULL, 10) * 1000;
	max = strtoull(argv[3], NULL, 10) * 1000000000ULL / period;
	if (!period || !max || !(lat = calloc(max, sizeof(*lat))))
		return 2;
	if (argc > 4 && !(csv = fopen(argv[4], "w"))) {
		perror(argv[4]);
		return 2;
	}
	if (marker && *marker && (mark = open(marker, O_WRONLY | O_CLOEXEC)) < 0) {
		perror(marker);
		return 2;
	}
	p.runtime = period * 60 / 100;
	p.deadline = period;
	p.period = period;
	if (dl_periodic_start(&pt, &p, mode, 0) < 0) {
		fprintf(stderr, "bench-wake: %s\n", dl_errmsg());
		return 1;
	}
	for (n = 0; n < max;) {
		if (dl_periodic_next(pt, &job) < 0) {
			fprintf(stderr, "bench-wake: %s\n", dl_errmsg());
			return 1;
		}
		if (mark >= 0 && write(mark, "job\n", 4) < 0)
			mark = -1;
		/* Job 0 began with the start call itself: not a wake-up. */
		if (job->index == 0)
			continue;
		lat[n++] = job->start - job->release;
		if (csv)
			fprintf(csv, "%llu,%llu\n", (unsigned long long)job->release,
				(unsigned long long)job->start);
	}
	dl_periodic_free(pt);
	if (csv)
		fclose(csv);
	for (uint64_t i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp);
	printf("%s %llu %.1f %.1f %.1f %.1f %.1f\n", argv[1], (unsigned long long)n,
	       lat[0] / 1e3, lat[n / 2] / 1e3, lat[(n * 99 + 99) / 100 - 1] / 1e3,
	       lat[n - 1] / 1e3, (double)sum / n / 1e3);
	free(lat);
	return 0;
}
