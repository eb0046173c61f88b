/*
 * fit.c: will the deadline bandwidth already admitted fit the root
 * domains a layout is about to make?
 *
 * When the root domains are rebuilt the kernel counts every live
 * deadline task in the root domain of the CPU it is on
 * (dl_rebuild_rd_accounting(), dl_add_task_root_domain()), without an
 * admission test: a partition or cluster too small for what runs there
 * is made anyway, and its tasks then miss their deadlines.  So create
 * checks first.  A task create moves (cgroup v1, from the root cpuset
 * into the cluster) is counted in the cluster; every other task in the
 * member that holds its CPU now.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

/* Which member (partition index, or -1 the cluster) task t ends in;
 * -2 when none of the layout's CPUs. */
static int member_of(const struct dl_layout *l, const struct dl_task *t)
{
	bool moved = dl_layout_backend(l)->moves_root_tasks && !(l->flags & DL_LAYOUT_NO_MOVE) &&
		     (strcmp(t->cpuset, "/") == 0 || strcmp(t->cpuset, "/\n") == 0);

	if (moved)
		return -1;
	for (size_t i = 0; i < l->nparts; i++)
		if (dl_cpus_isset(&l->parts[i].cpus, t->cpu))
			return (int)i;
	return dl_cpus_isset(&l->cluster, t->cpu) ? -1 : -2;
}

int dl_layout_check_bw(const struct dl_layout *l)
{
	struct dl_task *tasks = NULL;
	struct dl_rd *rds = NULL;
	int64_t *kbw;
	size_t nt = 0, nrd = 0;
	/* No deadline thread anywhere: only the fair servers to fit, seen
	 * without the scan of /proc (rd.c); else every thread. */
	int err = dl_rd_idle(&rds, &nrd);

	if (err > 0)
		err = dl_snapshot(0, &tasks, &nt, &rds, &nrd);
	if (err < 0)
		return dl_fail_ctx(err, "cannot list the deadline tasks the layout would hold");
	/* Each CPU's admission cap as the snapshot read it (the kernel's, or
	 * the sysctl's), in dl_kernel_bw_read()'s shape for dl_rd_fill(). */
	kbw = malloc(2 * DL_CPUS_MAX * sizeof(*kbw));
	if (!kbw) {
		free(tasks);
		free(rds);
		return dl_fail(-ENOMEM, "out of memory");
	}
	for (int cpu = 0; cpu < DL_CPUS_MAX; cpu++) {
		kbw[cpu] = -2;
		kbw[DL_CPUS_MAX + cpu] = 0;
		for (size_t k = 0; k < nrd; k++)
			if (dl_cpus_isset(&rds[k].cpus, cpu))
				kbw[cpu] = rds[k].unlimited ? -1 : (int64_t)rds[k].cpu_bw;
	}
	err = 0; /* a count */
	for (int m = -1; m < (int)l->nparts && !err; m++) {
		const dl_cpus_t *cpus = m < 0 ? &l->cluster : &l->parts[m].cpus;
		char list[512] = "", a[DL_BW_STRLEN], b[DL_BW_STRLEN], c[DL_BW_STRLEN], cs[DL_CPUS_STRLEN], name[64];
		struct dl_rd rd;
		size_t used = 0;

		/* The root domain the member will be, as the rebuild counts it
		 * (dl_rebuild_rd_accounting()): its fair servers, then every
		 * task that ends in it. */
		dl_rd_fill(&rd, cpus, NULL, 0, kbw, kbw + DL_CPUS_MAX);
		for (size_t i = 0; i < nt; i++) {
			if (member_of(l, &tasks[i]) != m)
				continue;
			rd.tasks_bw += tasks[i].bw;
			rd.ntasks++;
			if (used < sizeof(list) - 64) {
				char comm[64];

				used += (size_t)snprintf(list + used, sizeof(list) - used, "%sthread %d (%s) %s",
							 used ? ", " : "", (int)tasks[i].tid,
							 dl_str_escape(tasks[i].comm, comm, sizeof(comm)),
							 dl_bw_format((int64_t)tasks[i].bw, a, sizeof(a)));
			}
		}
		rd.total_bw = dl_rd_expected(&rd);
		if (dl_bw_free(&rd) >= 0)
			continue;
		if (m < 0)
			snprintf(name, sizeof(name), "the cluster");
		else
			snprintf(name, sizeof(name), "partition %s", l->parts[m].name);
		err = dl_fail(-EBUSY, "%s (CPUs %s) would hold %" PRIu64 " deadline thread%s of %s in all (%s), with fair servers of %s, above its capacity %s: the kernel would count them there without a test and they would miss their deadlines; give it more CPUs, or stop or move those threads first",
			      name, dl_cpus_format(cpus, cs, sizeof(cs)), rd.ntasks, rd.ntasks == 1 ? "" : "s",
			      dl_bw_format((int64_t)rd.tasks_bw, a, sizeof(a)), list,
			      dl_bw_format((int64_t)rd.fair_bw, b, sizeof(b)),
			      dl_bw_format((int64_t)rd.capacity, c, sizeof(c)));
	}
	free(kbw);
	free(tasks);
	free(rds);
	return err;
}
