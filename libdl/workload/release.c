/*
 * release.c: when is a periodic job released?  The bookkeeping behind
 * dl_periodic_next(), as a pure function of observed times.
 *
 * Sleep mode: the release is the grid point first_release + i x period,
 * whatever the kernel does.  A job that ends at or after the next
 * release is late, and what follows is rt-app's timer event
 * (src/rt-app.c, rtapp_timer: t_next += period; when now >= t_next it
 * does not sleep, and in relative mode sets t_next = now):
 *  - skip (neither flag): the next job is the one of the latest release
 *    that has passed (it starts at once, late); the releases in between
 *    are skipped;
 *  - DL_PERIODIC_ABSOLUTE: the next job is the next release's, at once;
 *    the grid stays, so the jobs of every release that passed run back
 *    to back until one ends before the release after it;
 *  - DL_PERIODIC_RELATIVE: the grid restarts at the late job's end: the
 *    next job is released there, at once, and those after it a period
 *    apart.  The move is reported as a shift (dl_job.reanchor).
 *
 * Yield mode follows the kernel's own period grid, the CBS of
 * kernel/sched/deadline.c:
 *  - sched_yield() zeroes what is left of the runtime and throttles the
 *    task; the replenishment timer fires at the start of the next period
 *    (dl_next_period(): deadline - D + T), and that is the release.
 *  - When that instant has passed already (the job ended after the next
 *    period began), the task is replenished at once: deadline += T.  If
 *    that deadline is in the past too, replenish_dl_entity() re-anchors
 *    the task: deadline = now + D, so its periods start at the yield
 *    from then on.  That moves the grid later; it is reported as an
 *    event (the shift) and later jobs are measured from the new grid,
 *    not counted late for ever.
 *  - A job that overran its runtime was throttled and finished on the
 *    budget of a later period: its yield gives that period up, and the
 *    next release is the grid point after the yield.  The periods it ate
 *    are skipped.
 *  - A job that slept inside (blocked) went through the CBS wake-up
 *    rule, which may re-anchor at any time: the next wake-up, when off
 *    the grid, re-synchronises it.
 *  - A replenishment timer that fires after the period's deadline (a
 *    stalled machine) also re-anchors, at the timer.  User space sees
 *    only a late wake-up, which may as well be a task kept off the CPU:
 *    a timer wake-up later than its deadline followed by one that is
 *    late again (by any amount) is taken as the grid having moved to
 *    the second; one late wake-up alone moves nothing.  Interference
 *    twice in a row is then mistaken for a move: sleep mode does not
 *    depend on any of this.
 * With no reservation (DL_PERIODIC_NO_RESERVATION) the loop sleeps to
 * where the timer would fire, and nothing throttles, wakes early or
 * re-anchors on a wake-up: only the first and third rules apply.
 * The grid is first anchored at the first release; a wake-up that comes
 * before its grid point shows the anchor was late (wake-up latency), and
 * moves the grid earlier: the kernel never releases early.
 */
#include "workload/periodic.h"

#define TOL_MAX 200000ULL /* ns: how early a timer wake-up may look */

static uint64_t grid(const struct dl_book *b, uint64_t i)
{
	return b->phase + i * b->period;
}

/* The number of the latest period that started at or before t. */
static uint64_t grid_floor(const struct dl_book *b, uint64_t t)
{
	return t < b->phase ? 0 : (t - b->phase) / b->period;
}

void dl_book_init(struct dl_book *b, int mode, const struct dl_params *p,
		  uint64_t first_release, uint64_t start)
{
	*b = (struct dl_book){
		.mode = mode & ~(DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE),
		.late = mode & (DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE),
		.unreserved = mode & DL_PERIODIC_NO_RESERVATION,
		.runtime = p->runtime,
		.deadline = p->deadline ? p->deadline : p->period,
		.period = p->period ? p->period : p->deadline,
		.phase = first_release,
		.release = first_release,
		.start = start,
	};
}

void dl_book_end(const struct dl_book *b, uint64_t end, struct dl_job *job)
{
	uint64_t deadline = b->release + b->deadline;

	*job = (struct dl_job){
		.index = b->index,
		.release = b->release,
		.deadline = deadline,
		.start = b->start,
		.end = end,
		.response = end > b->release ? end - b->release : 0,
		.tardiness = end > deadline ? end - deadline : 0,
		.skipped = b->skipped,
		.reanchor = b->shift,
		.met = end <= deadline,
	};
}

uint64_t dl_book_sleep_next(struct dl_book *b, uint64_t end)
{
	uint64_t n = b->index + 1, j = n;

	b->shift = 0;
	if (end >= grid(b, n) && b->late == DL_PERIODIC_RELATIVE) {
		b->shift = end - grid(b, n);
		b->phase += b->shift;
	} else if (end >= grid(b, n) && !b->late && grid_floor(b, end) > n) {
		j = grid_floor(b, end);
	}
	b->skipped = j - n;
	b->index = j;
	b->release = grid(b, j);
	return b->release;
}

/* The kernel released us at rel (a grid point) and we ran at wake: a
 * wake-up before it means the grid was anchored late. */
static uint64_t on_grid(struct dl_book *b, uint64_t rel, uint64_t wake)
{
	if (wake < rel) {
		b->phase -= rel - wake;
		return wake;
	}
	return rel;
}

void dl_book_yield_next(struct dl_book *b, uint64_t end, uint64_t wake, bool overran, bool blocked)
{
	uint64_t n = b->index + 1, tol = b->period / 16, j, a, rel;
	bool timer = true;

	if (tol > TOL_MAX)
		tol = TOL_MAX;
	b->shift = 0;
	b->skipped = 0;
	a = grid_floor(b, end) + 1;
	if (end < grid(b, n) && b->unreserved) {
		/* Slept to the grid point: a late wake-up is latency, not a
		 * move of a grid that no kernel timer keeps. */
		j = n;
		rel = grid(b, n);
		timer = false;
	} else if (end < grid(b, n)) {
		/* The timer releases period n. */
		j = n;
		rel = grid(b, n);
		if (blocked && (wake > rel + tol || wake + tol < rel)) {
			timer = false;
			/* The kernel re-anchored while the job slept: its
			 * grid now runs through this wake-up. */
			if (wake > rel)
				b->shift = wake - rel;
			b->phase = wake - n * b->period;
			rel = wake;
		} else {
			rel = on_grid(b, rel, wake);
		}
	} else if (!b->unreserved && wake + tol >= grid(b, a)) {
		/* Asleep until the grid point after the yield: a timer
		 * release; the job had eaten the periods before it. */
		j = a;
		b->skipped = a - n;
		rel = on_grid(b, grid(b, a), wake);
	} else {
		/* Replenished at once.  The deadline is that of period n, or
		 * of the period whose budget an overrunning job was on (with
		 * no reservation nothing throttles: overran is false). */
		timer = false;
		j = overran ? a - 1 : n;
		b->skipped = j - n;
		rel = grid(b, j);
		if (end >= rel + b->deadline) {
			/* Still in the past: the CBS re-anchors at the yield. */
			b->shift = end - rel;
			b->phase += b->shift;
			rel = end;
		}
	}
	if (timer && b->late_wake && wake > rel + tol) {
		/* The last timer release came after its deadline, so the
		 * kernel re-anchored there, and this one is late again: it
		 * is on the kernel's new grid. */
		b->shift += wake - rel;
		b->phase += wake - rel;
		rel = wake;
		b->late_wake = false;
	} else {
		b->late_wake = timer && wake > rel + b->deadline;
	}
	b->index = j;
	b->release = rel;
}

void dl_book_started(struct dl_book *b, uint64_t start)
{
	b->start = start;
}

uint64_t dl_book_yield_wait(const struct dl_book *b)
{
	return grid(b, b->index + 1);
}
