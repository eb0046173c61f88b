/*
 * rd.c: the root domains, as the cpusets make them, and the snapshot of
 * every deadline thread with its root domain.
 *
 * The kernel does not list its root domains; they follow from the cpuset
 * configuration the way generate_sched_domains() (kernel/cgroup/cpuset.c)
 * builds them, reproduced here for both cgroup versions.  CPUs left out of
 * every sched domain (isolcpus, isolated partitions, CPUs of no
 * load-balanced cpuset) share the kernel's def_root_domain.  Each root
 * domain's bandwidth is bw.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bw/bw.h"

struct spans {
	dl_cpus_t *v;
	size_t n, cap;
};

static int spans_add(struct spans *s, const dl_cpus_t *set)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		dl_cpus_t *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = *set;
	return 0;
}

/* v1: the cpuset balances unless its sched_load_balance reads 0. */
static bool load_balanced(const char *name)
{
	char path[4096];
	uint64_t lb = 1;

	if (dl_cs_path(name, "cpuset.sched_load_balance", path, sizeof(path)) == 0)
		dl_read_u64(path, &lb);
	return lb != 0;
}

/* The CPUs the scheduler may put in sched domains: online, not isolcpus. */
static void housekeeping(const dl_cpus_t *online, dl_cpus_t *hk)
{
	dl_cpus_t iso;

	*hk = *online;
	if (dl_read_cpus("/sys/devices/system/cpu/isolated", &iso) == 0)
		dl_cpus_andnot(hk, &iso);
}

struct span_walk {
	const dl_cpus_t *hk;
	struct spans *s;
};

/*
 * cgroup v1: with the root's sched_load_balance on, one domain.  Else the
 * top-most load-balanced cpusets with CPUs each make a domain (their
 * subtrees are inside), and domains that overlap are merged.
 */
static int v1_visit(const char *name, int depth, void *arg)
{
	struct span_walk *w = arg;
	dl_cpus_t eff;

	(void)depth;
	if (dl_cs_effective(name, &eff) < 0 || dl_cpus_count(&eff) == 0)
		return DL_CS_NEXT;
	if (load_balanced(name) && dl_cpus_intersects(&eff, w->hk)) {
		dl_cpus_and(&eff, w->hk);
		return spans_add(w->s, &eff);
	}
	return DL_CS_DESCEND;
}

static void merge_overlapping(struct spans *s)
{
	bool merged;

	do {
		merged = false;
		for (size_t i = 0; i < s->n && !merged; i++) {
			for (size_t j = i + 1; j < s->n; j++) {
				if (dl_cpus_intersects(&s->v[i], &s->v[j])) {
					dl_cpus_or(&s->v[i], &s->v[j]);
					s->v[j] = s->v[--s->n];
					merged = true;
					break;
				}
			}
		}
	} while (merged);
}

/*
 * cgroup v2: the top cgroup's effective CPUs (those no partition took)
 * make one domain, each valid "root" partition its own; "isolated"
 * partitions are in no domain.
 */
static int v2_visit(const char *name, int depth, void *arg)
{
	struct span_walk *w = arg;
	char state[256];
	dl_cpus_t eff;
	int err;

	(void)depth;
	if (dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state)) < 0)
		return DL_CS_NEXT; /* no cpuset here, nor below */
	if (strcmp(state, "root") == 0 && dl_cs_effective(name, &eff) == 0) {
		dl_cpus_and(&eff, w->hk);
		if (dl_cpus_count(&eff) && (err = spans_add(w->s, &eff)))
			return err;
	}
	return DL_CS_DESCEND;
}

static int spans_v1(struct span_walk *w)
{
	int err;

	if (load_balanced(""))
		return spans_add(w->s, w->hk);
	err = dl_cs_walk("", v1_visit, w);
	merge_overlapping(w->s);
	return err;
}

static int spans_v2(struct span_walk *w)
{
	dl_cpus_t top;
	int err = 0;

	if (dl_cs_effective("", &top) == 0) {
		dl_cpus_and(&top, w->hk);
		if (dl_cpus_count(&top))
			err = spans_add(w->s, &top);
	} else {
		err = spans_add(w->s, w->hk);
	}
	return err ? err : dl_cs_walk("", v2_visit, w);
}

/* No cpuset controller: one domain of the housekeeping CPUs. */
static int spans_none(struct span_walk *w)
{
	return spans_add(w->s, w->hk);
}

int dl_rd_spans(dl_cpus_t **out, size_t *count)
{
	/* How the kernel builds the domains, per cpuset version (0: none). */
	static int (*const spans_of[])(struct span_walk *) = { spans_none, spans_v1, spans_v2 };
	const struct dl_cg_files *files = dl_cg_files();
	struct spans s = { 0 };
	struct span_walk w = { .s = &s };
	dl_cpus_t hk, online, covered, rest;
	int err;

	*out = NULL;
	*count = 0;
	err = dl_cpus_online(&online);
	if (err)
		return err;
	housekeeping(&online, &hk);
	w.hk = &hk;
	err = spans_of[files ? files->version : 0](&w);
	if (err) {
		free(s.v);
		return err;
	}
	/* The CPUs in no domain: the def_root_domain. */
	dl_cpus_zero(&covered);
	for (size_t i = 0; i < s.n; i++)
		dl_cpus_or(&covered, &s.v[i]);
	rest = online;
	dl_cpus_andnot(&rest, &covered);
	if (dl_cpus_count(&rest) && (err = spans_add(&s, &rest))) {
		free(s.v);
		return err;
	}
	*out = s.v;
	*count = s.n;
	return 0;
}

/*
 * The root domains when no deadline thread runs anywhere, from one read
 * of sched/debug instead of the scan of every thread in /proc (a
 * millisecond or more a scan: most of a dl-part create or destroy).  That read lists every thread of the machine with its prio
 * under the CPU it is on; none at deadline priority, and every root
 * domain's total_bw exactly its fair servers, is what the scan would
 * conclude too: no task bandwidth to add, no drift.  A thread whose
 * bandwidth the kernel counts shows in total_bw whatever the listing
 * says, so it cannot hide.  The one case where the two could differ: a
 * deadline thread whose bandwidth the kernel had already lost (drift
 * from before) moving between CPUs during the read, so that neither
 * CPU lists it; dl_drift_check(3) and dl_rd_list(3) keep the scan.
 */
int dl_rd_idle(struct dl_rd **out, size_t *count)
{
	dl_cpus_t *spans = NULL;
	struct dl_rd *r;
	size_t n = 0;
	int ndl, err;
	int64_t *kbw = dl_kernel_bw_census(&ndl);
	bool idle;

	*out = NULL;
	*count = 0;
	if (!kbw || ndl != 0) {
		free(kbw);
		return 1;
	}
	err = dl_rd_spans(&spans, &n);
	r = err ? NULL : calloc(n ? n : 1, sizeof(*r));
	if (!r) {
		free(kbw);
		free(spans);
		return err ? err : -ENOMEM;
	}
	idle = n > 0;
	for (size_t k = 0; k < n; k++) {
		dl_rd_fill(&r[k], &spans[k], NULL, 0, kbw, kbw + DL_CPUS_MAX);
		idle = idle && r[k].from_kernel && r[k].total_bw == (int64_t)r[k].fair_bw;
	}
	free(spans);
	free(kbw);
	if (!idle) {
		free(r);
		return 1;
	}
	*out = r;
	*count = n;
	return 0;
}

/* By root domain, then the largest bandwidth first, then TID. */
static int by_rd_then_bw(const void *a, const void *b)
{
	const struct dl_task *x = a, *y = b;

	if (x->rd != y->rd)
		return x->rd < y->rd ? -1 : 1;
	if (x->bw != y->bw)
		return x->bw > y->bw ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

DL_EXPORT int dl_snapshot(pid_t pid, struct dl_task **tasks, size_t *ntasks,
			  struct dl_rd **rds, size_t *nrds)
{
	struct dl_task *all = NULL;
	struct dl_rd *r = NULL;
	dl_cpus_t *spans = NULL;
	size_t nall = 0, nspans = 0, keep = 0;
	int64_t *kbw;
	int err;

	if (tasks)
		*tasks = NULL;
	if (ntasks)
		*ntasks = 0;
	if (rds)
		*rds = NULL;
	if (nrds)
		*nrds = 0;
	err = dl_rd_spans(&spans, &nspans);
	/* A cpuset tree too deep to follow: the walk said where. */
	if (err == -ELOOP || err == -ENAMETOOLONG)
		return dl_fail_ctx(err, "cannot work out the root domains");
	if (err)
		return dl_fail(err, "cannot work out the root domains: %s", strerror(-err));
	/* Every root domain's bandwidth needs every task, whatever the filter. */
	err = dl_scan(0, tasks != NULL, &all, &nall);
	if (err) {
		free(spans);
		return dl_fail(err, "cannot list the deadline threads: %s", strerror(-err));
	}
	for (size_t i = 0; i < nall; i++)
		for (size_t k = 0; k < nspans; k++)
			if (dl_cpus_isset(&spans[k], all[i].cpu)) {
				all[i].rd = (int)k;
				all[i].rd_cpus = spans[k];
			}
	if (rds) {
		r = calloc(nspans ? nspans : 1, sizeof(*r));
		if (!r) {
			free(spans);
			free(all);
			return dl_fail(-ENOMEM, "out of memory");
		}
		kbw = dl_kernel_bw_read();
		for (size_t k = 0; k < nspans; k++)
			dl_rd_fill(&r[k], &spans[k], all, nall, kbw, kbw ? kbw + DL_CPUS_MAX : NULL);
		free(kbw);
		*rds = r;
	}
	if (nrds)
		*nrds = nspans;
	free(spans);
	for (size_t i = 0; i < nall; i++)
		if (!pid || all[i].pid == pid)
			all[keep++] = all[i];
	if (ntasks)
		*ntasks = keep;
	if (!tasks) {
		free(all);
		return (int)keep;
	}
	/* No deadline task at all leaves all NULL: qsort's pointer must not be. */
	if (keep > 1)
		qsort(all, keep, sizeof(*all), by_rd_then_bw);
	*tasks = all;
	return (int)keep;
}

DL_EXPORT int dl_tasks_list(pid_t pid, struct dl_task **tasks, size_t *count)
{
	return dl_snapshot(pid, tasks, count, NULL, NULL);
}

char *dl_rd_text(const struct dl_rd *rd, char *buf, size_t len)
{
	char cpus[DL_CPUS_STRLEN], freebw[DL_BW_STRLEN], cap[DL_BW_STRLEN], per[DL_BW_STRLEN], total[DL_BW_STRLEN], fair[DL_BW_STRLEN], tasks[DL_BW_STRLEN], left[160] = "", count[96];

	/* 6.12's fair servers left out by a rebuild come back with the next
	 * one that makes the root domain: say so beside the free figure. */
	if (rd->uncounted_fair_bw) {
		char u[DL_BW_STRLEN];

		snprintf(left, sizeof(left), " (not counting fair servers of %s, which the next rebuild of the root domains adds back)",
			 dl_bw_format(rd->uncounted_fair_bw, u, sizeof(u)));
	}
	/* CPUs of different capacity (big.LITTLE) count at their capacity. */
	if (rd->cap_min && (rd->cap_min != DL_CAPACITY_SCALE || rd->cap_max != DL_CAPACITY_SCALE))
		snprintf(count, sizeof(count), "%d CPUs of capacity %u to %u, %" PRIu64 "/1024 of a CPU in all,",
			 rd->ncpus, rd->cap_min, rd->cap_max, rd->cap_sum);
	else
		snprintf(count, sizeof(count), "%d", rd->ncpus);
	snprintf(buf, len,
		 "root domain CPUs %s has about %s free (capacity %s = %s x %s; admitted %s%s: fair servers %s%s, %" PRIu64 " deadline thread%s %s)",
		 dl_cpus_format(&rd->cpus, cpus, sizeof(cpus)),
		 dl_bw_format(rd->free_bw, freebw, sizeof(freebw)),
		 dl_bw_format((int64_t)rd->capacity, cap, sizeof(cap)), count,
		 dl_bw_format((int64_t)rd->cpu_bw, per, sizeof(per)),
		 dl_bw_format(rd->total_bw, total, sizeof(total)),
		 rd->from_kernel ? "" : " (computed)",
		 dl_bw_format((int64_t)rd->fair_bw, fair, sizeof(fair)), left,
		 rd->ntasks, rd->ntasks == 1 ? "" : "s",
		 dl_bw_format((int64_t)rd->tasks_bw, tasks, sizeof(tasks)));
	return buf;
}

DL_EXPORT int dl_rd_list(struct dl_rd **out, size_t *count)
{
	struct dl_rd *rds = NULL;
	size_t n = 0;
	int err;

	/* Either output may be NULL (the count alone, or the array alone). */
	if (out)
		*out = NULL;
	if (count)
		*count = 0;
	err = dl_snapshot(0, NULL, NULL, &rds, &n);
	if (err < 0)
		return err;
	if (out)
		*out = rds;
	else
		free(rds);
	if (count)
		*count = n;
	return (int)n;
}

DL_EXPORT int dl_rd_of_cpu(int cpu, struct dl_rd *rd)
{
	struct dl_rd *rds;
	size_t n;
	int err;

	if (!rd)
		return dl_fail(-EINVAL, "dl_rd_of_cpu needs a struct dl_rd to fill in");
	memset(rd, 0, sizeof(*rd));
	err = dl_rd_list(&rds, &n);
	if (err < 0)
		return err;
	err = -ENOENT;
	for (size_t i = 0; i < n; i++) {
		if (dl_cpus_isset(&rds[i].cpus, cpu)) {
			*rd = rds[i];
			err = 0;
			break;
		}
	}
	free(rds);
	if (err)
		return dl_fail(err, "CPU %d is in no root domain (is it online?)", cpu);
	return 0;
}
