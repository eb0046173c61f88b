/*
 * backend-v1.c: a layout on cgroup v1
 * (Documentation/admin-guide/cgroup-v1/cpusets.rst, 1.7): the layout's
 * cpusets sit in a parent "libdl", exclusive (an exclusive cpuset's
 * parent must be) and not balancing itself; each partition and the
 * cluster is cpu_exclusive and load-balanced; the root's
 * sched_load_balance goes to 0, and the kernel then makes each of them a
 * root domain.  The root cpuset's movable tasks go to the cluster.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

/* v1: cpusets that would break the layout.  Exclusive top-level cpusets
 * may not overlap ours; a load-balanced cpuset (the top-most of its
 * branch) overlapping a partition, or straddling the cluster's edge,
 * would be merged into the same root domain. */
static int v1_conflict(const char *child, int depth, void *arg)
{
	const struct dl_cs_conflict *w = arg;
	char c[DL_CPUS_STRLEN], o[DL_CPUS_STRLEN], name[1100];
	dl_cpus_t cpus;
	bool excl;
	int err = DL_CS_NEXT;

	if (strcmp(child, DL_LAYOUT_PARENT) == 0 ||
	    dl_cs_cpus(child, "cpuset.cpus", &cpus) < 0 || dl_cpus_count(&cpus) == 0)
		return DL_CS_NEXT;
	excl = dl_cs_flag(child, "cpuset.cpu_exclusive");
	dl_cpus_format(&cpus, c, sizeof(c));
	/* A name anyone with a delegated cpuset chose: escaped. */
	dl_str_escape(child, name, sizeof(name));
	/* The layout's parent is exclusive (its children must be): no
	 * top-level sibling may share its CPUs, exclusive or not. */
	if (depth == 0 && dl_cpus_intersects(&cpus, &w->all))
		return dl_fail(-EBUSY, "cpuset /%s has CPUs %s%s, which the layout needs (CPUs %s): a cgroup v1 exclusive cpuset shares no CPU with its siblings; remove /%s or narrow its cpuset.cpus",
			       name, c, excl ? " and is cpu_exclusive" : "",
			       dl_cpus_format(&w->all, o, sizeof(o)), name);
	if (!dl_cs_flag(child, "cpuset.sched_load_balance"))
		return DL_CS_DESCEND;
	for (size_t i = 0; i < w->l->nparts; i++) {
		if (dl_cpus_intersects(&cpus, &w->l->parts[i].cpus))
			err = dl_fail(-EBUSY, "cpuset /%s is load-balanced with CPUs %s: with the root's balancing off the kernel would put them and partition %s's in one root domain; remove it or set its cpuset.sched_load_balance to 0",
				      name, c, w->l->parts[i].name);
	}
	if (!err && dl_cpus_intersects(&cpus, &w->l->cluster) &&
	    !dl_cpus_subset(&cpus, &w->l->cluster))
		err = dl_fail(-EBUSY, "cpuset /%s is load-balanced with CPUs %s, partly outside the cluster (CPUs %s): the kernel would widen the cluster's root domain; remove it or set its cpuset.sched_load_balance to 0",
			      name, c, dl_cpus_format(&w->l->cluster, o, sizeof(o)));
	return err; /* the kernel looks no deeper */
}

/* On v1 the layout's cpusets sit in one parent; on v2 a partition's
 * parent must be a partition root, so they are children of the root
 * cgroup. */
static int cgroup_v1(const char *member, char *buf, size_t len)
{
	return member ? dl_pathf(buf, len, DL_LAYOUT_PARENT "/%s", member)
		      : dl_pathf(buf, len, "%s", DL_LAYOUT_PARENT);
}

/* Leftovers of an earlier layout under our names. */
static int leftovers_v1(const struct dl_layout *l)
{
	(void)l;
	return dl_cs_exists(DL_LAYOUT_PARENT)
		       ? dl_fail(-EEXIST, "cpuset /%s exists but no layout is recorded: remove what is in it (or call dl_layout_destroy(3) after a crash), then create again",
				 DL_LAYOUT_PARENT)
		       : 0;
}

static int create_v1(struct dl_layout *l, struct dl_layout_result *res)
{
	static const struct dl_kv excl[] = { { "cpuset.cpu_exclusive", "1" } };
	/* v1: an exclusive cpuset's parent must be exclusive too. */
	static const struct dl_kv parent[] = { { "cpuset.cpu_exclusive", "1" },
					       { "cpuset.sched_load_balance", "0" } };
	char name[4200];
	dl_cpus_t all;

	dl_layout_all_cpus(l, &all);
	DL_STEP(res, "parent cpuset", dl_layout_make_cs(DL_LAYOUT_PARENT, &all, &l->mems, parent, 2));
	dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
	DL_STEP(res, "cluster cpuset", dl_layout_make_cs(name, &l->cluster, &l->mems, excl, 1));
	for (size_t i = 0; i < l->nparts; i++) {
		dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name));
		DL_STEP(res, "partition cpuset", dl_layout_make_cs(name, &l->parts[i].cpus, &l->mems, excl, 1));
	}
	if (!(l->flags & DL_LAYOUT_NO_MOVE)) {
		dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
		DL_STEP(res, "move the root's tasks", dl_cs_move_all("", name, true, res));
	}
	dl_wait_quiet(DL_QUIET_TIMEOUT_MS);
	DL_STEP(res, "root sched_load_balance 0", dl_cs_write("", "cpuset.sched_load_balance", "0"));
	return 0;
}

static int destroy_v1(const struct dl_layout *l, struct dl_layout_result *res)
{
	char name[4200], buf[16];
	int err, e;

	err = dl_layout_move_back(l, true, res);
	if (err)
		return err;
	/* The merge: the root balances again (as it did before), unless a
	 * partition is left, which needs it unbalanced to stay a domain. */
	if (!res->left && l->root_lb >= 0 && dl_cs_read("", "cpuset.sched_load_balance", buf, sizeof(buf)) == 0 &&
	    atoi(buf) != l->root_lb) {
		snprintf(buf, sizeof(buf), "%d", l->root_lb);
		err = dl_cs_write("", "cpuset.sched_load_balance", buf);
		if (err)
			return dl_fail(err, "cannot restore the root cpuset's sched_load_balance to %d: %s",
				       l->root_lb, dl_cg_why(err));
	}
	for (int i = -1; i < (int)l->nparts; i++) {
		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (!dl_cs_exists(name) || dl_layout_left(l, i))
			continue;
		/* Balancing off first: removing a balanced cpuset rebuilds the
		 * domains later, asynchronously, at a moment nobody chose. */
		dl_cs_write(name, "cpuset.sched_load_balance", "0");
		e = dl_layout_remove_member(l, name, true, res);
		if (e && !err)
			err = dl_fail(e, "cannot remove cpuset /%s: %s", name, dl_cg_why(e));
	}
	if (!err && !res->left && dl_cs_exists(DL_LAYOUT_PARENT) && (e = dl_cs_remove(DL_LAYOUT_PARENT)))
		err = dl_fail(e, "cannot remove cpuset /%s: %s (is there a cpuset in it that is not the layout's?)",
			      DL_LAYOUT_PARENT, dl_cg_why(e));
	return err;
}

static void state_v1(const char *cg, bool partition, char *buf, size_t len)
{
	(void)partition;
	snprintf(buf, len, "%s", dl_cs_flag(cg, "cpuset.cpu_exclusive") ? "exclusive" : "not exclusive");
}

const struct dl_cg_backend dl_backend_v1 = {
	.name = "cgroup v1",
	.cgroup = cgroup_v1,
	.leftovers = leftovers_v1,
	.conflict = v1_conflict,
	.create = create_v1,
	.destroy = destroy_v1,
	.state = state_v1,
	.count = dl_layout_count_cs,
	.moves_process = false,
	.moves_root_tasks = true,
};
