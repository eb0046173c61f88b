/*
 * periodic.c: the periodic-task pattern of the deadline scheduler.
 *
 * sched_yield() in a SCHED_DEADLINE task gives up the rest of the current
 * runtime; the task sleeps until its next replenishment, the start of its
 * next period (Documentation/scheduler/sched-deadline.rst, 4.4).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "internal.h"

DL_EXPORT int dl_yield(void)
{
	if (sched_yield() < 0)
		return dl_fail(-errno, "sched_yield: %s", strerror(errno));
	return 0;
}

DL_EXPORT int dl_periodic_start(struct dl_periodic *pt, const struct dl_params *p)
{
	struct dl_params norm;
	int err;

	if (p) {
		err = dl_params_normalize(p, &norm);
		if (!err)
			err = dl_set(0, &norm);
	} else {
		/* Adopt the reservation the thread already has (dl-run's). */
		err = dl_get(0, &norm);
		if (err >= 0 && err != DL_SCHED_DEADLINE)
			err = dl_fail(-EINVAL, "the thread is not under SCHED_DEADLINE: give parameters, or start it with dl-run");
		else if (err > 0)
			err = 0;
	}
	if (err)
		return err;
	memset(pt, 0, sizeof(*pt));
	pt->period = norm.period;
	pt->deadline = norm.deadline;
	/* Begin on a period boundary: the first replenishment after this. */
	err = dl_yield();
	if (err)
		return err;
	pt->release = pt->start = dl_now_ns();
	return 0;
}

DL_EXPORT int dl_periodic_next(struct dl_periodic *pt, struct dl_job *done)
{
	uint64_t end = dl_now_ns(), now, release;
	int err;

	/* A zero period would never reach the next release. */
	if (!pt || pt->period == 0)
		return dl_fail(-EINVAL, "the periodic task has no period: start it with dl_periodic_start()");

	if (done) {
		done->index = pt->index;
		done->release = pt->release;
		done->deadline = pt->release + pt->deadline;
		done->start = pt->start;
		done->end = end;
		done->skipped = pt->skipped;
	}
	err = dl_yield();
	if (err)
		return err;
	now = dl_now_ns();
	release = pt->release + pt->period;
	pt->skipped = 0;
	/* Woken a whole period (or more) after the next release: the job of
	 * that period never ran on time. */
	while (now >= release + pt->period) {
		release += pt->period;
		pt->skipped++;
	}
	/* Woken before the grid's release: the grid was late (the first
	 * wake-up had latency the replenishments do not).  Move it. */
	if (now < release)
		release = now;
	pt->index++;
	pt->release = release;
	pt->start = now;
	return 0;
}
