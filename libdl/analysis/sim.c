/*
 * sim.c: global EDF on m CPUs simulated event by event, in nanoseconds:
 * the synchronous periodic arrival sequence (dl_gedf_sim()), or a given
 * sporadic one (dl_gedf_replay(), what the exact test's witnesses are
 * checked with before they are shown).
 *
 * With D <= T a task has one job at a time: a job still running at its
 * deadline is a miss, found before the task's next release.  Among equal
 * deadlines the lower index runs first, unless a tie rule given for that
 * interval puts some tasks ahead.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/analysis.h"

#define SIM_EVENTS_MAX 2000000

struct sim {
	const struct dl_an_task *ts;
	size_t n;
	int m;
	/* Replayed: the arrivals, by time; next[i] the index of task i's next. */
	const struct dl_an_arrival *arr;
	size_t narr;
	const struct dl_an_tie *ties;
	size_t nties;
	uint64_t horizon;
};

/* Task i's first release after one at prev (UINT64_MAX: the first). */
static uint64_t next_release(const struct sim *s, size_t i, size_t *cursor, uint64_t prev)
{
	if (!s->arr)
		return prev == UINT64_MAX ? 0 : prev + s->ts[i].t;
	while (*cursor < s->narr && s->arr[*cursor].task != i)
		(*cursor)++;
	if (*cursor >= s->narr)
		return UINT64_MAX;
	return s->arr[(*cursor)++].at;
}

/* The tasks put ahead among equal deadlines at now, and when that ends. */
static uint64_t tie_mask(const struct sim *s, uint64_t now, uint64_t *change)
{
	uint64_t mask = 0;

	for (size_t k = 0; k < s->nties; k++) {
		const struct dl_an_tie *t = &s->ties[k];

		if (t->from <= now && now < t->to) {
			mask = t->ahead;
			if (t->to < *change)
				*change = t->to;
		} else if (t->from > now && t->from < *change) {
			*change = t->from;
		}
	}
	return mask;
}

static bool before(const uint64_t *dl, uint64_t ahead, size_t a, size_t b)
{
	bool pa = ahead >> a & 1, pb = ahead >> b & 1;

	if (dl[a] != dl[b])
		return dl[a] < dl[b];
	if (pa != pb)
		return pa;
	return a < b;
}

static int run(const struct sim *s, ssize_t *who, uint64_t *when)
{
	size_t n = s->n, one = n ? n : 1;
	uint64_t *rem = calloc(one, sizeof(*rem)), *dl = calloc(one, sizeof(*dl));
	uint64_t *rel = calloc(one, sizeof(*rel));
	size_t *cur = calloc(one, sizeof(*cur)), *on = calloc((size_t)s->m + 1, sizeof(*on));
	uint64_t now = 0;
	int found = -ENOMEM;

	if (!rem || !dl || !rel || !cur || !on)
		goto out;
	found = 0;
	for (size_t i = 0; i < n; i++)
		rel[i] = next_release(s, i, &cur[i], UINT64_MAX);
	for (long ev = 0; ev < SIM_EVENTS_MAX && now <= s->horizon; ev++) {
		uint64_t next = UINT64_MAX, ahead;
		size_t nrun = 0;

		for (size_t i = 0; i < n; i++) {
			if (rem[i] && dl[i] <= now) {
				*who = (ssize_t)i;
				*when = dl[i];
				found = 1;
				goto out;
			}
			if (rel[i] <= now) {
				rem[i] = s->ts[i].c;
				dl[i] = rel[i] + s->ts[i].d;
				rel[i] = next_release(s, i, &cur[i], rel[i]);
			}
		}
		ahead = tie_mask(s, now, &next);
		/* The m earliest deadlines run. */
		for (int c = 0; c < s->m; c++) {
			size_t best = n;

			for (size_t i = 0; i < n; i++) {
				bool taken = false;

				if (!rem[i])
					continue;
				for (size_t j = 0; j < nrun && !taken; j++)
					taken = on[j] == i;
				if (!taken && (best == n || before(dl, ahead, i, best)))
					best = i;
			}
			if (best == n)
				break;
			on[nrun++] = best;
		}
		for (size_t i = 0; i < n; i++) {
			if (rel[i] < next)
				next = rel[i];
			if (rem[i] && dl[i] < next)
				next = dl[i];
		}
		for (size_t j = 0; j < nrun; j++)
			if (now + rem[on[j]] < next)
				next = now + rem[on[j]];
		if (next == UINT64_MAX)
			break;
		for (size_t j = 0; j < nrun; j++)
			rem[on[j]] -= next - now;
		now = next;
	}
out:
	free(rem);
	free(dl);
	free(rel);
	free(cur);
	free(on);
	return found;
}

int dl_gedf_sim(const struct dl_an_task *ts, size_t n, int m, ssize_t *who, uint64_t *when)
{
	struct sim s = { .ts = ts, .n = n, .m = m, .horizon = 1 };
	uint64_t dmax = 0;

	/* The hyperperiod plus the longest deadline, capped at 2^50 ns. */
	for (size_t i = 0; i < n; i++) {
		uint64_t g = (uint64_t)dl_an_gcd(s.horizon, ts[i].t);

		if (s.horizon / g > (1ULL << 50) / ts[i].t) {
			s.horizon = 1ULL << 50;
			break;
		}
		s.horizon = s.horizon / g * ts[i].t;
		dmax = ts[i].d > dmax ? ts[i].d : dmax;
	}
	s.horizon += dmax;
	return run(&s, who, when) > 0;
}

int dl_gedf_replay(const struct dl_an_task *ts, size_t n, int m, const struct dl_an_arrival *arr, size_t narr,
		   const struct dl_an_tie *ties, size_t nties, ssize_t *who, uint64_t *when)
{
	struct sim s = { .ts = ts, .n = n, .m = m, .arr = arr, .narr = narr, .ties = ties, .nties = nties };
	uint64_t dmax = 0;

	if (n > 64)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		dmax = ts[i].d > dmax ? ts[i].d : dmax;
	/* A sporadic sequence: by time, each task's releases a period apart
	 * at least. */
	for (size_t k = 0; k < narr; k++) {
		if (arr[k].task >= n || (k && arr[k].at < arr[k - 1].at))
			return -EINVAL;
		for (size_t j = k; j-- > 0;)
			if (arr[j].task == arr[k].task) {
				if (arr[k].at - arr[j].at < ts[arr[k].task].t)
					return -EINVAL;
				break;
			}
	}
	s.horizon = (narr ? arr[narr - 1].at : 0) + dmax;
	return run(&s, who, when);
}
