/*
 * exact.c: global EDF on m CPUs, exactly, by searching every sporadic
 * arrival sequence (Baker and Cirinei 2007; Bonifaci and
 * Marchetti-Spaccamela 2012), with the idle-task simulation of
 * Geeraerts, Goossens and Lindström 2013 as antichains.
 *
 * Time is discrete: the unit is the greatest common divisor of every
 * runtime, deadline and period, and releases fall on that grid.  A state
 * holds, per task, the work its job has left (rct) and the time until
 * its next release may come (nat); with D <= T a task has one job at a
 * time, whose deadline is nat - (T - D) away.  Each tick:
 *
 *   1. the adversary releases any subset of the eligible tasks (no work
 *      left, nat 0): rct = C, nat = T;
 *   2. the m jobs with the earliest deadlines run one unit each; among
 *      equal deadlines at the m-th place, any choice (the adversary's:
 *      the verdict holds for every tie-break), or with
 *      DL_EXACT_TIES_INDEX the lower indices;
 *   3. every nat drops by one (not below 0);
 *   4. a job with more work left than time to its deadline misses (it
 *      gets at most a unit a tick): the state fails.
 *
 * The set is schedulable iff no failing state is reachable from the one
 * where every task is idle with nat 0.  The search is breadth first,
 * each state stored once with the step that made it, so that a failing
 * state gives the shortest arrival sequence to it: the witness, which
 * sim.c's replay must confirm before it is shown.
 *
 * Pruning, exact: a state S' simulates S when every task is the same in
 * both, except tasks idle (no work left) in both whose nat in S' is at
 * most their nat in S: S' can release such a task whenever S can, and
 * an idle task does not change the schedule, so whatever S reaches S'
 * reaches too.  States with the same work and the same active tasks'
 * nat form a group; a new state simulated by a stored one of its group
 * is dropped, and stored ones it simulates are dropped (skipped if not
 * yet expanded: the new one is expanded later).
 *
 * Memory and time are bounded by the options: past either, the verdict
 * is DL_NOT_GUARANTEED, "unknown within the budget", with the counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sys/sys.h"

#define EXACT_TASKS_MAX	     32
#define EXACT_UNITS_MAX	     255 /* a period's units: one byte per figure */
#define EXACT_STATES_DEFAULT (2u << 20)
#define EXACT_NS_DEFAULT     (5ULL * 1000 * 1000 * 1000)
#define NONE		     UINT32_MAX

struct search {
	size_t n;
	int m;
	bool any_tie;
	uint8_t c[EXACT_TASKS_MAX], d[EXACT_TASKS_MAX], t[EXACT_TASKS_MAX];
	/* The stored states, in the order found: the queue. */
	size_t stride; /* 2 n bytes: rct, nat per task */
	uint8_t *st;
	uint32_t *parent, *rel, *tie, *link; /* the step that made it; its group's next */
	uint8_t *dead;
	uint32_t count, cap, max;
	/* Groups: open addressing, a representative state and a list. */
	uint32_t *grep, *ghead;
	uint32_t gsize, gused;
	bool nomem;
	/* The time budget, checked every 4096 successors made: one state
	 * of many idle tasks has 2^n release choices. */
	uint64_t start, max_ns, made;
};

static uint64_t key_hash(const struct search *s, const uint8_t *v)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < s->n; i++) {
		h = (h ^ v[2 * i]) * 1099511628211ULL;
		h = (h ^ (v[2 * i] ? v[2 * i + 1] : 0xff)) * 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static bool key_eq(const struct search *s, const uint8_t *a, const uint8_t *b)
{
	for (size_t i = 0; i < s->n; i++)
		if (a[2 * i] != b[2 * i] || (a[2 * i] && a[2 * i + 1] != b[2 * i + 1]))
			return false;
	return true;
}

/* a's idle tasks may be released no later than b's: a simulates b. */
static bool simulates(const struct search *s, const uint8_t *a, const uint8_t *b)
{
	for (size_t i = 0; i < s->n; i++)
		if (!a[2 * i] && a[2 * i + 1] > b[2 * i + 1])
			return false;
	return true;
}

static bool grow_states(struct search *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 4096;
	void *p;

	if (cap > s->max)
		cap = s->max;
#define GROW(f, size)                                    \
	do {                                             \
		p = realloc(s->f, (size_t)cap * (size)); \
		if (!p)                                  \
			return false;                    \
		s->f = p;                                \
	} while (0)
	GROW(st, s->stride);
	GROW(parent, sizeof(uint32_t));
	GROW(rel, sizeof(uint32_t));
	GROW(tie, sizeof(uint32_t));
	GROW(link, sizeof(uint32_t));
	GROW(dead, 1);
#undef GROW
	s->cap = cap;
	return true;
}

static bool grow_groups(struct search *s)
{
	uint32_t size = s->gsize ? s->gsize * 2 : 8192;
	uint32_t *rep = malloc((size_t)size * sizeof(*rep)), *head = malloc((size_t)size * sizeof(*head));

	if (!rep || !head) {
		free(rep);
		free(head);
		return false;
	}
	memset(rep, 0xff, (size_t)size * sizeof(*rep));
	for (uint32_t k = 0; k < s->gsize; k++) {
		uint64_t h;

		if (s->grep[k] == NONE)
			continue;
		h = key_hash(s, s->st + (size_t)s->grep[k] * s->stride);
		while (rep[h & (size - 1)] != NONE)
			h++;
		rep[h & (size - 1)] = s->grep[k];
		head[h & (size - 1)] = s->ghead[k];
	}
	free(s->grep);
	free(s->ghead);
	s->grep = rep;
	s->ghead = head;
	s->gsize = size;
	return true;
}

/* Store v, made from state from by releasing rel with tie choice tie,
 * unless a stored state simulates it.  0 stored or dropped, -1 the budget
 * is spent (or memory), */
static int store(struct search *s, const uint8_t *v, uint32_t from, uint32_t rel, uint32_t tie)
{
	uint64_t h;
	uint32_t slot, *pp, idx;

	if ((s->gused + 1) * 2 > s->gsize && !grow_groups(s)) {
		s->nomem = true;
		return -1;
	}
	for (h = key_hash(s, v);; h++) {
		slot = (uint32_t)(h & (s->gsize - 1));
		if (s->grep[slot] == NONE || key_eq(s, s->st + (size_t)s->grep[slot] * s->stride, v))
			break;
	}
	if (s->grep[slot] != NONE) {
		for (uint32_t k = s->ghead[slot]; k != NONE; k = s->link[k])
			if (simulates(s, s->st + (size_t)k * s->stride, v))
				return 0;
	}
	if (s->count == s->max)
		return -1;
	if (s->count == s->cap && !grow_states(s)) {
		s->nomem = true;
		return -1;
	}
	idx = s->count++;
	memcpy(s->st + (size_t)idx * s->stride, v, s->stride);
	s->parent[idx] = from;
	s->rel[idx] = rel;
	s->tie[idx] = tie;
	s->dead[idx] = 0;
	s->link[idx] = NONE;
	if (s->grep[slot] == NONE) {
		s->grep[slot] = idx;
		s->ghead[slot] = idx;
		s->gused++;
		return 0;
	}
	/* Drop the states the new one simulates. */
	for (pp = &s->ghead[slot]; *pp != NONE;) {
		if (simulates(s, v, s->st + (size_t)*pp * s->stride)) {
			s->dead[*pp] = 1;
			*pp = s->link[*pp];
		} else {
			pp = &s->link[*pp];
		}
	}
	s->link[idx] = s->ghead[slot];
	s->ghead[slot] = idx;
	return 0;
}

/* Where the search stopped on a failing step: the state it left, the
 * step, and the task that must miss. */
struct fail {
	uint32_t from, rel, tie;
	size_t task;
};

/* The tick after state idx, released rel: every successor stored (0),
 * one failing (1, *f), or the budget of states (-1) or time (-2) spent. */
static int expand(struct search *s, uint32_t idx, uint32_t rel, struct fail *f)
{
	uint8_t v[2 * EXACT_TASKS_MAX];
	int ttd[EXACT_TASKS_MAX], rc[EXACT_TASKS_MAX];
	size_t order[EXACT_TASKS_MAX], na = 0, must = 0, q = 0, need;
	size_t tied[EXACT_TASKS_MAX];
	uint32_t base = 0, combo, last;
	uint8_t nv[2 * EXACT_TASKS_MAX];

	/* A copy: storing a successor may move the states. */
	memcpy(v, s->st + (size_t)idx * s->stride, s->stride);
	for (size_t i = 0; i < s->n; i++) {
		bool r = rel >> i & 1;

		rc[i] = r ? s->c[i] : v[2 * i];
		ttd[i] = r ? s->d[i] : v[2 * i + 1] - (s->t[i] - s->d[i]);
		if (!rc[i])
			continue;
		/* By deadline, then index: insertion keeps equal ones in order. */
		size_t k = na++;
		while (k > 0 && ttd[order[k - 1]] > ttd[i]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	if (na <= (size_t)s->m) {
		for (size_t k = 0; k < na; k++)
			base |= 1u << order[k];
		need = 0;
	} else {
		int dm = ttd[order[s->m - 1]];

		for (size_t k = 0; k < na; k++) {
			if (ttd[order[k]] < dm) {
				base |= 1u << order[k];
				must++;
			} else if (ttd[order[k]] == dm) {
				tied[q++] = order[k];
			}
		}
		need = (size_t)s->m - must;
	}
	/* The choices of need among the q tied, lowest first (the default):
	 * Gosper's hack over q bits. */
	combo = need ? (1u << need) - 1 : 0;
	last = need ? combo << (q - need) : 0;
	for (;;) {
		uint32_t ran = base, chosen = 0;

		for (size_t j = 0; j < q; j++)
			if (combo >> j & 1)
				chosen |= 1u << tied[j];
		ran |= chosen;
		for (size_t i = 0; i < s->n; i++) {
			int nat = rel >> i & 1 ? s->t[i] : v[2 * i + 1];
			int w = rc[i] - (int)(ran >> i & 1);

			nat = nat ? nat - 1 : 0;
			nv[2 * i] = (uint8_t)w;
			nv[2 * i + 1] = (uint8_t)nat;
			if (w > 0 && w > nat - (s->t[i] - s->d[i])) {
				f->from = idx;
				f->rel = rel;
				f->tie = combo == (need ? (1u << need) - 1 : 0) ? 0 : chosen;
				f->task = i;
				return 1;
			}
		}
		if (store(s, nv, idx, rel, combo == (need ? (1u << need) - 1 : 0) ? 0 : chosen) < 0)
			return -1;
		if ((++s->made & 4095) == 0 && dl_now_ns() - s->start > s->max_ns)
			return -2;
		if (!s->any_tie || combo == last)
			break;
		uint32_t lo = combo & -combo, r = combo + lo;
		combo = (((r ^ combo) >> 2) / lo) | r;
	}
	return 0;
}

static void free_search(struct search *s)
{
	free(s->st);
	free(s->parent);
	free(s->rel);
	free(s->tie);
	free(s->link);
	free(s->dead);
	free(s->grep);
	free(s->ghead);
}

/* The witness of a failing step: its arrivals and tie choices, replayed. */
static int witness(struct search *s, const struct fail *f, uint64_t unit, const struct dl_an_task *ts,
		   struct dl_exact_result *r)
{
	size_t depth = 0, na = 0, nt = 0;
	uint32_t k;

	for (k = f->from; k != 0; k = s->parent[k])
		depth++;
	/* Step at tick t: stored with the state it made (depth t + 1), the
	 * last one in f. */
	uint32_t *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	k = f->from;
	for (size_t t = depth; t-- > 0; k = s->parent[k])
		path[t] = k;
	for (size_t t = 0; t <= depth; t++) {
		uint32_t rel = t < depth ? s->rel[path[t]] : f->rel;
		uint32_t tie = t < depth ? s->tie[path[t]] : f->tie;

		na += (size_t)__builtin_popcount(rel);
		nt += tie != 0;
	}
	r->arrivals = calloc(na ? na : 1, sizeof(*r->arrivals));
	r->ties = calloc(nt ? nt : 1, sizeof(*r->ties));
	if (!r->arrivals || !r->ties) {
		free(path);
		return -ENOMEM;
	}
	for (size_t t = 0; t <= depth; t++) {
		uint32_t rel = t < depth ? s->rel[path[t]] : f->rel;
		uint32_t tie = t < depth ? s->tie[path[t]] : f->tie;

		for (size_t i = 0; i < s->n; i++)
			if (rel >> i & 1)
				r->arrivals[r->narrivals++] =
					(struct dl_arrival){ .task = i, .release = t * unit };
		if (tie)
			r->ties[r->nties++] =
				(struct dl_tie){ .from = t * unit, .to = (t + 1) * unit, .ahead = tie };
	}
	free(path);
	r->states = s->count;
	(void)ts;
	return 0;
}

int dl_an_exact(const struct dl_an_task *ts, size_t n, int m, const struct dl_exact_opts *o,
		struct dl_exact_result *r)
{
	struct search s = { .n = n, .m = m, .any_tie = !(o && (o->flags & DL_EXACT_TIES_INDEX)) };
	uint64_t unit = 0, start = dl_now_ns(), max_ns = o && o->max_ns ? o->max_ns : EXACT_NS_DEFAULT;
	uint64_t max_states = o && o->max_states ? o->max_states : EXACT_STATES_DEFAULT;
	uint64_t tmax = 0;
	uint8_t v[2 * EXACT_TASKS_MAX] = { 0 };
	struct fail f;
	int ret = 0, got = 0;

	r->verdict = DL_NOT_GUARANTEED;
	r->task = -1;
	for (size_t i = 0; i < n; i++) {
		unit = (uint64_t)dl_an_gcd(dl_an_gcd(dl_an_gcd(unit, ts[i].c), ts[i].d), ts[i].t);
		tmax = ts[i].t > tmax ? ts[i].t : tmax;
	}
	r->unit = unit;
	if (n > EXACT_TASKS_MAX) {
		snprintf(r->why, sizeof(r->why), "unknown: %zu tasks, more than the %d the exact test takes",
			 n, EXACT_TASKS_MAX);
		return 0;
	}
	if (n && tmax / unit > EXACT_UNITS_MAX) {
		char u[DL_TIME_STRLEN];

		snprintf(r->why, sizeof(r->why),
			 "unknown: a period of %" PRIu64
			 " units of %s, more than the %d the exact test takes (the unit is the greatest common divisor of every runtime, deadline and period)",
			 tmax / unit, dl_time_format(unit, u, sizeof(u)), EXACT_UNITS_MAX);
		return 0;
	}
	s.max = max_states > NONE - 1 ? NONE - 1 : (uint32_t)max_states;
	s.start = start;
	s.max_ns = max_ns;
	s.stride = 2 * n;
	for (size_t i = 0; i < n; i++) {
		s.c[i] = (uint8_t)(ts[i].c / unit);
		s.d[i] = (uint8_t)(ts[i].d / unit);
		s.t[i] = (uint8_t)(ts[i].t / unit);
	}
	if (store(&s, v, NONE, 0, 0) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t h = 0; h < s.count && !got; h++) {
		uint32_t e = 0;

		if (s.dead[h])
			continue;
		r->expanded++;
		if ((r->expanded & 1023) == 1 && dl_now_ns() - start > max_ns) {
			got = -2;
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (!s.st[(size_t)h * s.stride + 2 * i] && !s.st[(size_t)h * s.stride + 2 * i + 1])
				e |= 1u << i;
		/* Every subset of the eligible tasks released, all of them first. */
		for (uint32_t rel = e;; rel = (rel - 1) & e) {
			got = expand(&s, h, rel, &f);
			if (got || rel == 0)
				break;
		}
	}
	r->states = s.count;
	r->elapsed_ns = dl_now_ns() - start;
	if (s.nomem) {
		ret = -ENOMEM;
		goto out;
	}
	if (got == 0) {
		r->verdict = DL_SCHEDULABLE;
	} else if (got == 1) {
		ret = witness(&s, &f, unit, ts, r);
		if (ret == 0)
			r->verdict = DL_UNSCHEDULABLE;
		r->task = (ssize_t)f.task;
	} else {
		r->verdict = DL_NOT_GUARANTEED;
		r->budget_spent = got == -2 ? DL_EXACT_OUT_OF_TIME : DL_EXACT_OUT_OF_STATES;
	}
out:
	free_search(&s);
	return ret;
}
