/*
 * A 1 kHz control loop on the periodic API, as an application writes it
 * against the installed header alone (built through pkg-config by make
 * installcheck): 20,000 jobs, nothing allocated once the loop runs.
 *
 *   control-loop --no-reservation   as any user: DL_PERIODIC_NO_RESERVATION
 *   control-loop --reserved         as root: under a real reservation,
 *                                   checked with dl_get(), left with dl_clear()
 *
 * The heap's bytes in use (mallinfo2) at job 1,000 and at job 20,000
 * must be equal; the statistics must agree with the jobs seen.  Exit 0,
 * or 1 with the reason.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <libdeadline.h>

#define JOBS 20000
#define PERIOD_NS 1000000ULL /* 1 kHz */

static volatile uint64_t sink;

/* The control law: a little arithmetic, as a PID step would be. */
static void control_step(uint64_t i)
{
	uint64_t x = i;

	for (int k = 0; k < 200; k++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

int main(int argc, char **argv)
{
	struct dl_params p = { .runtime = 300000, .deadline = PERIOD_NS, .period = PERIOD_NS };
	int reserved = argc > 1 && strcmp(argv[1], "--reserved") == 0;
	int mode = DL_PERIODIC_SLEEP | (reserved ? 0 : DL_PERIODIC_NO_RESERVATION);
	const struct dl_periodic_stats *st;
	const struct dl_job *job;
	struct dl_periodic *pt;
	struct dl_params now;
	uint64_t last = 0, misses = 0, skipped = 0;
	size_t heap_1000 = 0, heap_20000;
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN], c[DL_TIME_STRLEN];
	int err;

	if (argc != 2 || (!reserved && strcmp(argv[1], "--no-reservation"))) {
		fprintf(stderr, "usage: control-loop --no-reservation | --reserved\n");
		return 2;
	}
	err = dl_periodic_start(&pt, &p, mode, 0);
	if (err < 0) {
		fprintf(stderr, "control-loop: %s\n", dl_errmsg());
		return 1;
	}
	/* Under a reservation, the kernel says so; without, it does not. */
	err = dl_get(0, &now);
	if (reserved ? err != DL_SCHED_DEADLINE || now.runtime != p.runtime || now.period != p.period
		     : err == DL_SCHED_DEADLINE) {
		fprintf(stderr, "control-loop: the thread's policy is %d, not what %s asks\n", err, argv[1]);
		return 1;
	}
	for (uint64_t i = 1; i <= JOBS; i++) {
		control_step(i);
		err = dl_periodic_next(pt, &job);
		if (err < 0) {
			fprintf(stderr, "control-loop: job %" PRIu64 ": %s\n", i, dl_errmsg());
			return 1;
		}
		if (i > 1 && job->index <= last) {
			fprintf(stderr, "control-loop: job %" PRIu64 " has index %" PRIu64 " after %" PRIu64 "\n", i,
				job->index, last);
			return 1;
		}
		last = job->index;
		misses += !job->met;
		skipped += job->skipped;
		if (i == 1000)
			heap_1000 = mallinfo2().uordblks;
	}
	heap_20000 = mallinfo2().uordblks;
	st = dl_periodic_stats(pt);
	if (reserved && dl_clear(0) < 0) {
		fprintf(stderr, "control-loop: %s\n", dl_errmsg());
		return 1;
	}
	printf("%s: %" PRIu64 " jobs, %" PRIu64 " missed, %" PRIu64 " skipped; response p50 %s p99 %s max %s; heap %zu bytes at job 1000, %zu at job 20000\n",
	       argv[1], st->jobs, st->misses, st->skipped, dl_time_format(st->response_p50, a, sizeof(a)),
	       dl_time_format(st->response_p99, b, sizeof(b)), dl_time_format(st->response_max, c, sizeof(c)),
	       heap_1000, heap_20000);
	if (heap_1000 != heap_20000) {
		fprintf(stderr, "control-loop: the heap in use went from %zu to %zu bytes in the loop\n", heap_1000, heap_20000);
		return 1;
	}
	if (st->jobs != JOBS || st->misses != misses || st->skipped != skipped || st->response_min > st->response_p50 ||
	    st->response_p50 > st->response_p99 || st->response_p99 > st->response_max) {
		fprintf(stderr, "control-loop: the statistics disagree with the jobs seen\n");
		return 1;
	}
	dl_periodic_free(pt);
	return 0;
}
