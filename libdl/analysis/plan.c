/*
 * plan.c: a layout of one-CPU partitions and a cluster that the kernel
 * admits and the analysis accepts.
 *
 * Candidates, each checked the same way (every partition: the kernel's
 * admission on one CPU and the exact EDF test with the fair server; the
 * cluster: the kernel's admission on its CPUs and the global tests, or
 * the exact test when it has one CPU):
 *   - EDF(k) (Goossens, Funk, Baruah): the k densest tasks that fit alone
 *     on a CPU get a CPU each, the rest run globally on the other CPUs;
 *     when that fails, the remaining tasks, densest first, are packed
 *     worst-fit into the spare room of those k CPUs, the rest globally;
 *   - fully partitioned by first-, best- and worst-fit decreasing density,
 *     the last CPU's tasks becoming the cluster (on every CPU left).
 * The plan kept has the fewest partitions, then the largest margin (the
 * smallest admission room left in any of its root domains).  A cluster
 * needs at least one CPU, as dl_layout_create() does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "bw/bw.h"
#include "sys/sys.h"

/* Pairs the quadratic global tests may look at in one plan, over all
 * candidates; past it only n <= m and GFB judge a cluster. */
#define QUAD_BUDGET 4000000L
#define RTA_TASKS_MAX 300
/* Past this many partitions, each one's scaling factor is the cheap
 * lower bound of the linear demand bound, not the search with QPA. */
#define EXACT_SCALING_PARTS 16
/* Past this many tasks, fully partitioned means first fit only. */
#define FIT_ALL_MAX 2000

struct bin {
	struct dl_an_task *ts; /* the fair server first when there is one; */
	size_t n, cap;         /*  runtimes as times on this CPU (dl_an_scale) */
	int64_t room;          /* the kernel's admission room left */
	int cpu;               /* the CPU it stands for */
	uint32_t speed;        /* that CPU's capacity */
};

struct ctx {
	const struct dl_platform *pf;
	const struct dl_an_task *ts;
	size_t n;
	int m;
	struct dl_an_task sv;
	bool has_sv;
	size_t *order;        /* densest first */
	int *cpus;            /* the platform's CPUs, biggest capacity first */
	uint32_t cap_min;     /* the platform's smallest capacity */
	uint64_t *bw;         /* to_ratio() per task */
	struct dl_an_task *scratch;
	long budget;
	int *where;           /* candidate: partition number, or -1 the cluster */
	struct bin *bins;
	/* the best so far */
	bool have;
	int *best;
	int best_cpu[DL_CPUS_MAX]; /* partition j's CPU */
	int method, k, nparts, test;
	int64_t margin;
	/* why there is no plan */
	ssize_t unplaced;
	char why[512];
};

/* Bin b stands for CPU cpu, empty: that CPU with its fair server and
 * no task yet; then bin_add() takes each task's share off the room, as
 * the kernel would. */
static void bin_reset(struct ctx *c, struct bin *b, int cpu)
{
	dl_cpus_t one;

	dl_cpus_zero(&one);
	dl_cpus_set(&one, cpu);
	b->n = 0;
	b->cpu = cpu;
	b->speed = dl_an_cap(c->pf, cpu);
	b->room = dl_an_admission(c->pf, NULL, 0, &one);
	if (c->has_sv) {
		b->ts[b->n] = c->sv;
		dl_an_scale(&b->ts[b->n++], b->speed);
	}
}

static bool bin_grow(struct bin *b)
{
	struct dl_an_task *t;

	if (b->n + 1 < b->cap)
		return true;
	t = realloc(b->ts, (b->cap * 2 + 4) * sizeof(*t));
	if (!t)
		return false;
	b->ts = t;
	b->cap = b->cap * 2 + 4;
	return true;
}

/* Would task i fit on this CPU: admission, then the exact test. */
static bool bin_fits(struct ctx *c, struct bin *b, size_t i)
{
	struct dl_qpa_out o;

	if (!c->pf->unlimited && b->room < (int64_t)c->bw[i])
		return false;
	if (!bin_grow(b))
		return false;
	b->ts[b->n] = c->ts[i];
	if (!dl_an_scale(&b->ts[b->n], b->speed))
		return false;
	dl_qpa(b->ts, b->n + 1, &o);
	return o.verdict == DL_SCHEDULABLE;
}

static void bin_add(struct ctx *c, struct bin *b, size_t i)
{
	b->ts[b->n] = c->ts[i];
	dl_an_scale(&b->ts[b->n++], b->speed);
	if (!c->pf->unlimited)
		b->room -= (int64_t)c->bw[i];
}

/* The CPUs the first nparts bins leave to the cluster. */
static void cluster_cpus(const struct ctx *c, int nparts, dl_cpus_t *left)
{
	*left = c->pf->cpus;
	for (int j = 0; j < nparts; j++)
		dl_cpus_clr(left, c->bins[j].cpu);
}

/* The cluster (where[] == -1) on the CPUs left: the test that accepts,
 * -1 for no task, -2 when refused; *room: the admission room left.  On
 * CPUs of different capacity every runtime is counted as the time it
 * takes on the smallest: the kernel's global EDF keeps every CPU busy
 * while a task waits, but it does not run the earliest deadlines on the
 * biggest CPUs (docs/kernel-notes.md), so the tests, which bound the
 * work the waiting task sees, may count on no more than the smallest
 * CPU's speed from each. */
static int cluster_test(struct ctx *c, const dl_cpus_t *cpus, int64_t *room, ssize_t *limit)
{
	int ncpus = dl_cpus_count(cpus);
	size_t nc = 0, total;
	struct dl_qpa_out o;
	int64_t margin;
	uint32_t speed;

	*limit = -1;
	for (size_t i = 0; i < c->n; i++)
		if (c->where[i] < 0)
			c->scratch[nc++] = c->ts[i];
	*room = dl_an_admission(c->pf, c->scratch, nc, cpus);
	if (nc == 0)
		return -1;
	if (*room < 0)
		return -2;
	dl_an_caps(c->pf, cpus, &speed, NULL, NULL);
	for (size_t i = 0, j = 0; i < c->n; i++)
		if (c->where[i] < 0 && !dl_an_scale(&c->scratch[j++], speed)) {
			*limit = (ssize_t)i;
			return -2;
		}
	total = nc;
	for (int s = 0; c->has_sv && s < ncpus; s++) {
		c->scratch[total] = c->sv;
		if (!dl_an_scale(&c->scratch[total++], speed))
			return -2; /* the fair server itself is too big for the smallest CPU */
	}
	if (ncpus == 1) {
		dl_qpa(c->scratch, total, &o);
		*limit = o.limiting;
		return o.verdict == DL_SCHEDULABLE ? DL_TEST_QPA : -2;
	}
	if (dl_an_util_cmp(c->scratch, total, (uint64_t)ncpus) == 1)
		return -2;
	if (total <= (size_t)ncpus)
		return DL_TEST_NM;
	if (dl_gfb(c->scratch, total, ncpus, &margin, limit))
		return DL_TEST_GFB;
	if ((long)(total * total) > c->budget)
		return -2;
	c->budget -= (long)(total * total);
	if (dl_bak(c->scratch, total, ncpus, limit))
		return DL_TEST_BAK;
	if (dl_bcl(c->scratch, total, ncpus, limit))
		return DL_TEST_BCL;
	if (total <= RTA_TASKS_MAX && dl_rta(c->scratch, total, ncpus, NULL, limit))
		return DL_TEST_RTA;
	return -2;
}

/* Check the candidate in where[] with nparts partitions (bins) and keep
 * it when it is the best so far. */
static bool consider(struct ctx *c, int method, int k, int nparts, ssize_t *limit)
{
	int64_t room, margin;
	dl_cpus_t left;
	int test;

	cluster_cpus(c, nparts, &left);
	test = cluster_test(c, &left, &room, limit);

	if (test == -2)
		return false;
	margin = room;
	for (int j = 0; j < nparts; j++)
		if (c->bins[j].room < margin)
			margin = c->bins[j].room;
	if (c->have && (nparts > c->nparts || (nparts == c->nparts && margin <= c->margin)))
		return true;
	c->have = true;
	memcpy(c->best, c->where, c->n * sizeof(*c->where));
	for (int j = 0; j < nparts; j++)
		c->best_cpu[j] = c->bins[j].cpu;
	c->method = method;
	c->k = k;
	c->nparts = nparts;
	c->test = test;
	c->margin = margin;
	return true;
}

static int cmp_room_desc(struct ctx *c, int a, int b)
{
	return c->bins[a].room > c->bins[b].room;
}

/* The k densest isolatable tasks alone on the k biggest CPUs, the
 * densest on the biggest, the rest in the cluster; false when one of
 * them does not fit its CPU. */
static bool isolate(struct ctx *c, const size_t *iso, int k)
{
	for (size_t i = 0; i < c->n; i++)
		c->where[i] = -1;
	for (int j = 0; j < k; j++) {
		bin_reset(c, &c->bins[j], c->cpus[j]);
		if (!bin_fits(c, &c->bins[j], iso[j]))
			return false;
		bin_add(c, &c->bins[j], iso[j]);
		c->where[iso[j]] = j;
	}
	return true;
}

/* EDF(k) with the cluster's tasks, densest first, packed worst-fit into
 * the spare room of the k CPUs (a max-heap of rooms). */
static void try_packed(struct ctx *c, const size_t *iso, int k, int *heap)
{
	ssize_t lim;
	int nh = 0;

	if (!isolate(c, iso, k))
		return;
	for (int j = 0; j < k; j++) {
		int x = nh++;

		heap[x] = j;
		while (x && cmp_room_desc(c, heap[x], heap[(x - 1) / 2])) {
			int t = heap[x];

			heap[x] = heap[(x - 1) / 2];
			heap[(x - 1) / 2] = t;
			x = (x - 1) / 2;
		}
	}
	for (size_t jj = 0; jj < c->n; jj++) {
		size_t i = c->order[jj];
		struct bin *b = &c->bins[heap[0]];
		int x = 0;

		if (c->where[i] >= 0 || !bin_fits(c, b, i))
			continue;
		bin_add(c, b, i);
		c->where[i] = heap[0];
		for (;;) { /* sift the emptier root down */
			int l = 2 * x + 1, r = l + 1, big = x, t;

			if (l < nh && cmp_room_desc(c, heap[l], heap[big]))
				big = l;
			if (r < nh && cmp_room_desc(c, heap[r], heap[big]))
				big = r;
			if (big == x)
				break;
			t = heap[x];
			heap[x] = heap[big];
			heap[big] = t;
			x = big;
		}
	}
	consider(c, DL_PLAN_EDFK_PACKED, k, k, &lim);
}

/* EDF(k): every k from 0 until one passes (k*), then, with packing, the
 * powers of two below k* and k* - 1 (every k would cost n packings of n
 * tasks; these find most of what packing can save). */
static void try_edfk(struct ctx *c)
{
	int kmax = c->m - 1, kstar = -1;
	size_t *iso = malloc(((size_t)c->m + 1) * sizeof(*iso));
	int *heap = malloc(((size_t)c->m + 1) * sizeof(*heap));
	size_t niso = 0;

	if (!iso || !heap)
		goto out;
	for (size_t j = 0; j < c->n && niso < (size_t)kmax; j++) {
		size_t i = c->order[j];

		bin_reset(c, &c->bins[0], c->cpus[0]);
		if (bin_fits(c, &c->bins[0], i))
			iso[niso++] = i;
	}
	if ((size_t)kmax > niso)
		kmax = (int)niso;
	for (int k = 0; k <= kmax; k++) {
		ssize_t lim;

		if (!isolate(c, iso, k))
			break;
		if (consider(c, k ? DL_PLAN_EDFK : DL_PLAN_GLOBAL, k, k, &lim)) {
			kstar = k;
			break;
		}
	}
	for (int k = 1; k <= kmax && (kstar < 0 || k < kstar); k *= 2)
		try_packed(c, iso, k, heap);
	if (kstar > 1 && (kstar - 1) & (kstar - 2))
		try_packed(c, iso, kstar - 1, heap);
	else if (kstar < 0 && kmax > 0 && (kmax & (kmax - 1)))
		try_packed(c, iso, kmax, heap);
out:
	free(iso);
	free(heap);
}

/* Fully partitioned: first-, best- or worst-fit decreasing density. */
static void try_packing(struct ctx *c, int method)
{
	int used = 0, last = -1;
	ssize_t lim;

	for (int j = 0; j < c->m; j++)
		bin_reset(c, &c->bins[j], c->cpus[j]);
	for (size_t jj = 0; jj < c->n; jj++) {
		size_t i = c->order[jj];
		int pick = -1;

		if (method == DL_PLAN_FFD) {
			for (int j = 0; j < c->m && pick < 0; j++)
				if (bin_fits(c, &c->bins[j], i))
					pick = j;
		} else {
			/* Bins by room, best: least left after it; worst: most. */
			bool *seen = calloc((size_t)c->m, sizeof(*seen));

			for (int tries = 0; seen && tries < c->m && pick < 0; tries++) {
				int cand = -1;

				for (int j = 0; j < c->m; j++) {
					if (seen[j] || (!c->pf->unlimited && c->bins[j].room < (int64_t)c->bw[i]))
						continue;
					if (cand < 0 ||
					    (method == DL_PLAN_BFD ? c->bins[j].room < c->bins[cand].room
								   : c->bins[j].room > c->bins[cand].room))
						cand = j;
				}
				if (cand < 0)
					break;
				seen[cand] = true;
				if (bin_fits(c, &c->bins[cand], i))
					pick = cand;
			}
			free(seen);
		}
		if (pick < 0) {
			if (c->unplaced < 0)
				c->unplaced = (ssize_t)i;
			return;
		}
		bin_add(c, &c->bins[pick], i);
		c->where[i] = pick;
		if (pick >= used)
			used = pick + 1;
	}
	/* Bins used: renumber the non-empty ones 0..b-1. */
	{
		int map[DL_CPUS_MAX], b = 0;

		for (int j = 0; j < used; j++) {
			bool any = false;

			for (size_t i = 0; i < c->n && !any; i++)
				any = c->where[i] == j;
			map[j] = any ? b++ : -1;
			if (any && map[j] != j) {
				struct bin t = c->bins[map[j]];

				c->bins[map[j]] = c->bins[j];
				c->bins[j] = t;
			}
		}
		for (size_t i = 0; i < c->n; i++)
			c->where[i] = map[c->where[i]];
		last = b - 1;
		used = b;
	}
	if (used == 0)
		return;
	/* The last bin's tasks as the cluster, on every CPU left... */
	for (size_t i = 0; i < c->n; i++)
		if (c->where[i] == last)
			c->where[i] = -1;
	consider(c, method, 0, used - 1, &lim);
	/* ...or every bin a partition, an empty cluster beside them. */
	if (used < c->m) {
		for (size_t i = 0; i < c->n; i++)
			if (c->where[i] == -1)
				c->where[i] = last;
		consider(c, method, 0, used, &lim);
	}
}

static struct dl_plan_part *make_part(struct ctx *c, int id, const dl_cpus_t *cpus, int test)
{
	struct dl_plan_part *p = calloc(1, sizeof(*p));
	size_t nt = 0, total;
	struct dl_rd rd;
	char cl[DL_CPUS_STRLEN];

	if (!p)
		return NULL;
	p->cpus = *cpus;
	p->ncpus = dl_cpus_count(cpus);
	if (id < 0)
		snprintf(p->name, sizeof(p->name), "%s", DL_CLUSTER);
	else
		snprintf(p->name, sizeof(p->name), "cpu%s", dl_cpus_format(cpus, cl, sizeof(cl)));
	p->tasks = calloc(c->n ? c->n : 1, sizeof(*p->tasks));
	if (!p->tasks) {
		free(p);
		return NULL;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->best[i] == id) {
			p->tasks[p->ntasks++] = i;
			c->scratch[nt++] = c->ts[i];
		}
	dl_an_rd(c->pf, c->scratch, nt, cpus, &rd);
	p->free_bw = dl_bw_free(&rd);
	p->load = (uint64_t)dl_rd_expected(&rd);
	p->test = test;
	p->cap_min = rd.cap_min;
	p->cap_max = rd.cap_max;
	/* The scaling factor of the runtimes as times on its CPUs, as the
	 * tests took them (cluster_test()). */
	for (size_t i = 0; i < nt; i++)
		dl_an_scale(&c->scratch[i], rd.cap_min);
	total = nt;
	for (int s = 0; c->has_sv && s < p->ncpus; s++) {
		c->scratch[total] = c->sv;
		dl_an_scale(&c->scratch[total++], rd.cap_min);
	}
	if (nt == 0)
		p->scaling = 0;
	else if (test == DL_TEST_QPA && c->nparts > EXACT_SCALING_PARTS)
		p->scaling = dl_an_edf_scaling_bound(c->scratch, total, total - nt);
	else if (test == DL_TEST_QPA)
		p->scaling = dl_an_edf_scaling(c->scratch, total, total - nt, NULL);
	else
		p->scaling = dl_an_global_scaling(c->scratch, total, total - nt, p->ncpus, 1u << test);
	return p;
}

static void explain_none(struct ctx *c, char *why, size_t len)
{
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN], d[DL_TIME_STRLEN], room[DL_BW_STRLEN];
	ssize_t u = c->unplaced;
	struct dl_qpa_out o;

	if (u < 0) {
		snprintf(why, len, "no split of the tasks passes the kernel's admission and the tests");
		return;
	}
	dl_bw_format((int64_t)c->bw[u], a, sizeof(a));
	dl_time_format(c->ts[u].d, d, sizeof(d));
	bin_reset(c, &c->bins[0], c->cpus[0]);
	dl_bw_format(c->bins[0].room, room, sizeof(room));
	c->bins[0].ts[c->bins[0].n] = c->ts[u];
	if (!dl_an_scale(&c->bins[0].ts[c->bins[0].n], c->bins[0].speed)) {
		snprintf(why, len,
			 "it needs a CPU of capacity %" PRIu32 " to run %s by its deadline, and the biggest CPU has %" PRIu32,
			 dl_cap_need(&(struct dl_params){ .runtime = c->ts[u].c, .deadline = c->ts[u].d }),
			 dl_time_format(c->ts[u].c, a, sizeof(a)), c->bins[0].speed);
		return;
	}
	if (!c->pf->unlimited && c->bins[0].room < (int64_t)c->bw[u]) {
		snprintf(why, len,
			 "it needs %s of a CPU, but the kernel admits at most %s on one CPU (%s per CPU%s), and no test guarantees it in a cluster",
			 a, room, dl_bw_format((int64_t)c->pf->cpu_bw, b, sizeof(b)),
			 c->has_sv ? " minus the fair server" : "");
		return;
	}
	c->bins[0].ts[c->bins[0].n] = c->ts[u];
	dl_an_scale(&c->bins[0].ts[c->bins[0].n], c->bins[0].speed);
	dl_qpa(c->bins[0].ts, c->bins[0].n + 1, &o);
	if (o.verdict != DL_SCHEDULABLE) {
		snprintf(why, len,
			 "even alone on one CPU%s its demand %s exceeds the %s before a deadline, and no test guarantees it in a cluster",
			 c->has_sv ? " with the fair server" : "",
			 dl_time_format(o.fail_demand, a, sizeof(a)), dl_time_format(o.fail_t, b, sizeof(b)));
		return;
	}
	snprintf(why, len,
		 "it needs %s of a CPU by a deadline of %s, and after the denser tasks no CPU has room for it (the admission or a deadline on that CPU), and no cluster holding the rest is guaranteed by a test",
		 a, d);
}

/*
 * A fair server the platform's kernel would take: a period within the
 * limits of its debugfs files (kernel/sched/debug.c: 100us to 2^22us,
 * the defaults of the deadline period limits; a platform that gives its
 * own limits, its) and a bandwidth within the admission cap
 * (dl_server_apply_params() refuses more with EBUSY).
 */
static int server_check(const struct dl_platform *pf, const struct dl_an_task *sv)
{
	char a[DL_BW_STRLEN], b[DL_BW_STRLEN], t[DL_TIME_STRLEN], lo[DL_TIME_STRLEN], hi[DL_TIME_STRLEN];
	uint64_t min = pf->period_min ? pf->period_min : DL_PERIOD_MIN_US_DEFAULT * 1000;
	uint64_t max = pf->period_max ? pf->period_max : DL_PERIOD_MAX_US_DEFAULT * 1000;

	if (sv->t < min || sv->t > max)
		return dl_fail(-EINVAL, "period %s: the kernel takes a fair server's period from %s to %s",
			       dl_time_format(sv->t, t, sizeof(t)), dl_time_format(min, lo, sizeof(lo)),
			       dl_time_format(max, hi, sizeof(hi)));
	if (!pf->unlimited && (int64_t)dl_an_bw(sv) > pf->cpu_bw)
		return dl_fail(-EINVAL, "%s of a CPU is more than the admission cap of %s per CPU: the kernel refuses it (EBUSY); give it a shorter runtime or set it off",
			       dl_bw_format((int64_t)dl_an_bw(sv), a, sizeof(a)),
			       dl_bw_format(pf->cpu_bw, b, sizeof(b)));
	return 0;
}

static int cmp_density(const void *a, const void *b, void *arg)
{
	const struct dl_an_task *ts = arg;
	const struct dl_an_task *x = &ts[*(const size_t *)a], *y = &ts[*(const size_t *)b];
	dl_u128 l = (dl_u128)x->c * y->d, r = (dl_u128)y->c * x->d;

	if (l != r)
		return l > r ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void ctx_free(struct ctx *c)
{
	for (int j = 0; c->bins && j < c->m; j++)
		free(c->bins[j].ts);
	free(c->bins);
	free(c->order);
	free(c->cpus);
	free(c->bw);
	free(c->scratch);
	free(c->where);
	free(c->best);
	free((void *)c->ts);
}

DL_EXPORT int dl_plan_compute(const struct dl_params *tasks, size_t n, const struct dl_platform *pf,
			      struct dl_plan **out)
{
	struct ctx c = { .pf = pf, .unplaced = -1, .budget = QUAD_BUDGET };
	struct dl_an_task *ts;
	struct dl_plan *plan;
	dl_cpus_t left;
	size_t total;
	int err, cpu;

	if (out)
		*out = NULL;
	if (!out)
		return dl_fail(-EINVAL, "dl_plan_compute: no result pointer given");
	err = dl_an_platform_check(pf, "dl_plan_compute");
	if (err)
		return err;
	err = dl_an_tasks(tasks, n, NULL, 0, &ts, &total);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		/* The periods the platform's kernel accepts (0: its defaults). */
		struct dl_params per = { .period = ts[i].t };

		err = dl_params_check_period(&per, pf->period_min ? pf->period_min : DL_PERIOD_MIN_US_DEFAULT * 1000,
					     pf->period_max ? pf->period_max : DL_PERIOD_MAX_US_DEFAULT * 1000,
					     "the platform's");
		if (err) {
			free(ts);
			return dl_fail_ctx(err, "task %zu", i);
		}
	}
	if (pf->server.runtime) {
		struct dl_an_task *sv;
		size_t one;

		err = dl_an_tasks(&pf->server, 1, NULL, 0, &sv, &one);
		if (!err && (err = server_check(pf, &sv[0])))
			free(sv);
		if (err) {
			free(ts);
			return dl_fail_ctx(err, "the platform's fair server");
		}
		c.sv = sv[0];
		c.has_sv = true;
		free(sv);
	}
	c.ts = ts;
	c.n = n;
	c.m = pf->ncpus;
	c.order = malloc((n ? n : 1) * sizeof(*c.order));
	c.cpus = malloc((size_t)c.m * sizeof(*c.cpus));
	c.bw = malloc((n ? n : 1) * sizeof(*c.bw));
	c.scratch = malloc((n + (size_t)c.m + 2) * sizeof(*c.scratch));
	c.where = malloc((n ? n : 1) * sizeof(*c.where));
	c.best = malloc((n ? n : 1) * sizeof(*c.best));
	c.bins = calloc((size_t)c.m, sizeof(*c.bins));
	plan = calloc(1, sizeof(*plan));
	if (!c.order || !c.cpus || !c.bw || !c.scratch || !c.where || !c.best || !c.bins || !plan)
		goto nomem;
	plan->cap_need = calloc(n ? n : 1, sizeof(*plan->cap_need));
	if (!plan->cap_need)
		goto nomem;
	plan->ntasks = n;
	for (size_t i = 0; i < n; i++)
		plan->cap_need[i] = dl_cap_need(&tasks[i]);
	dl_an_caps(pf, &pf->cpus, &plan->cap_min, &plan->cap_max, NULL);
	c.cap_min = plan->cap_min;
	/* The CPUs biggest first, by number among equals: the densest tasks
	 * get the biggest CPUs, and the cluster the smallest. */
	{
		int k = 0;

		for (int x = 0; x < DL_CPUS_MAX; x++)
			if (dl_cpus_isset(&pf->cpus, x))
				c.cpus[k++] = x;
		for (int a = 1; a < k; a++)
			for (int b = a; b > 0 && dl_an_cap(pf, c.cpus[b]) > dl_an_cap(pf, c.cpus[b - 1]); b--) {
				int t = c.cpus[b];

				c.cpus[b] = c.cpus[b - 1];
				c.cpus[b - 1] = t;
			}
	}
	for (int j = 0; j < c.m; j++) {
		c.bins[j].cap = 8;
		c.bins[j].ts = malloc(c.bins[j].cap * sizeof(*c.bins[j].ts));
		if (!c.bins[j].ts)
			goto nomem;
	}
	for (size_t i = 0; i < n; i++) {
		c.order[i] = i;
		c.bw[i] = dl_an_bw(&ts[i]);
	}
	qsort_r(c.order, n, sizeof(*c.order), cmp_density, ts);

	err = dl_an_global_on(tasks, n, pf, &plan->global);
	if (err)
		goto fail;
	try_edfk(&c);
	/* Fully partitioned needs one CPU per cap's worth of bandwidth, all
	 * but one of them partitions: skip it when EDF(k) did with fewer. */
	{
		uint64_t sum = 0, per = c.bins[0].room;
		int64_t need;

		bin_reset(&c, &c.bins[0], c.cpus[0]);
		per = pf->unlimited ? DL_BW_UNIT : (uint64_t)c.bins[0].room;
		for (size_t i = 0; i < n; i++)
			sum += c.bw[i];
		need = per ? (int64_t)((sum + per - 1) / per) - 1 : 0;
		if (!c.have || c.nparts > need) {
			try_packing(&c, DL_PLAN_FFD);
			/* Best and worst fit scan every CPU for every task:
			 * on big sets first fit alone (the planner's time). */
			if (n <= FIT_ALL_MAX) {
				try_packing(&c, DL_PLAN_BFD);
				try_packing(&c, DL_PLAN_WFD);
			}
		}
	}

	plan->unplaced = -1;
	if (!c.have) {
		plan->unplaced = c.unplaced >= 0 ? c.unplaced : plan->global->limiting;
		if (c.unplaced < 0)
			c.unplaced = plan->unplaced;
		explain_none(&c, plan->why, sizeof(plan->why));
		ctx_free(&c);
		*out = plan;
		return 0;
	}
	plan->feasible = true;
	plan->method = c.method;
	plan->k = c.k;
	plan->margin = c.margin;
	plan->nparts = (size_t)c.nparts;
	plan->parts = calloc(plan->nparts ? plan->nparts : 1, sizeof(*plan->parts));
	if (!plan->parts)
		goto nomem;
	left = pf->cpus;
	for (int j = 0; j < c.nparts; j++) {
		dl_cpus_t one;

		cpu = c.best_cpu[j];
		dl_cpus_zero(&one);
		dl_cpus_set(&one, cpu);
		dl_cpus_clr(&left, cpu);
		plan->parts[j] = make_part(&c, j, &one, DL_TEST_QPA);
		if (!plan->parts[j])
			goto nomem;
	}
	plan->cluster = make_part(&c, -1, &left, c.test);
	if (!plan->cluster)
		goto nomem;
	ctx_free(&c);
	*out = plan;
	return 0;
nomem:
	err = dl_fail(-ENOMEM, "out of memory planning %zu tasks on %d CPUs", n, c.m);
fail:
	ctx_free(&c);
	dl_plan_free(plan);
	return err;
}

DL_EXPORT void dl_plan_free(struct dl_plan *plan)
{
	if (!plan)
		return;
	for (size_t j = 0; j < plan->nparts; j++)
		if (plan->parts[j]) {
			free(plan->parts[j]->tasks);
			free(plan->parts[j]);
		}
	free(plan->parts);
	if (plan->cluster)
		free(plan->cluster->tasks);
	free(plan->cluster);
	free(plan->global);
	free(plan->cap_need);
	free(plan);
}

DL_EXPORT const char *dl_plan_method_name(int method)
{
	static const char *const names[] = {
		"global", "EDF(k)", "EDF(k) packed", "first-fit decreasing",
		"best-fit decreasing", "worst-fit decreasing",
	};

	return method >= 0 && method < (int)ARRAY_SIZE(names) ? names[method] : "none";
}
