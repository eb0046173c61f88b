/*
 * backend-v2.c: a layout on cgroup v2
 * (Documentation/admin-guide/cgroup-v2.rst, "Cpuset"): each partition is
 * a child of the root cgroup with cpuset.cpus.partition "root" (or
 * "isolated"), read back because an invalid partition is a successful
 * write.  The cluster is the rest: a member cgroup when it is every CPU
 * no partition has (the root cgroup's own root domain), else a root
 * partition too.  No task is moved: tasks elsewhere lose the partitions'
 * CPUs by the kernel's rules.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "layout/layout.h"

/* v2: a top-level cgroup whose cpuset.cpus take a partition's CPUs makes
 * the partition invalid ("not exclusive"): name it first. */
int dl_v2_conflict(const char *child, int depth, void *arg)
{
	const struct dl_cs_conflict *w = arg;
	char c[DL_CPUS_STRLEN], name[1100];
	dl_cpus_t cpus;

	(void)depth;
	if (strncmp(child, DL_LAYOUT_PARENT "-", strlen(DL_LAYOUT_PARENT) + 1) == 0 ||
	    dl_cs_cpus(child, "cpuset.cpus", &cpus) < 0 || dl_cpus_count(&cpus) == 0)
		return DL_CS_NEXT;
	for (size_t i = 0; i < w->l->nparts; i++)
		if (dl_cpus_intersects(&cpus, &w->l->parts[i].cpus))
			return dl_fail(-EBUSY, "cgroup /%s has cpuset.cpus %s, which partition %s needs: the kernel would make the partition invalid; empty its cpuset.cpus or give it other CPUs",
				       dl_str_escape(child, name, sizeof(name)), dl_cpus_format(&cpus, c, sizeof(c)),
				       w->l->parts[i].name);
	return DL_CS_NEXT; /* top level only */
}

static int cgroup_v2(const char *member, char *buf, size_t len)
{
	return member ? dl_pathf(buf, len, DL_LAYOUT_PARENT "-%s", member) : dl_pathf(buf, len, "%s", "");
}

static int leftovers_v2(const struct dl_layout *l)
{
	char name[4200];

	for (int i = -1; i < (int)l->nparts; i++) {
		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (dl_cs_exists(name))
			return dl_fail(-EEXIST, "cgroup /%s exists already: remove it first", name);
	}
	return 0;
}

/* The state says so before the write: killed right after it (SIGKILL,
 * which cannot be held back), destroy still knows to disable it. */
static int enable_subtree(struct dl_layout *l)
{
	int err;

	if (dl_cs_root_subtree_has("cpuset") == 1)
		return 0;
	l->enabled_subtree = true;
	if ((err = dl_layout_save(l)))
		return err;
	err = dl_cs_root_subtree("+cpuset");
	if (err)
		return dl_fail(err, "cannot enable cpuset in the root cgroup's cgroup.subtree_control: %s",
			       dl_cg_why(err));
	return 0;
}

static int create_v2(struct dl_layout *l, struct dl_layout_result *res)
{
	const char *type = l->flags & DL_LAYOUT_ISOLATED ? "isolated" : "root";
	dl_cpus_t online, rest;
	char name[4200];

	DL_STEP(res, "enable cpuset", enable_subtree(l));
	for (size_t i = 0; i < l->nparts; i++) {
		dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name));
		DL_STEP(res, "partition cgroup", dl_layout_make_cs(name, &l->parts[i].cpus, &l->mems, NULL, 0));
		DL_STEP(res, "partition root", dl_cs_make_partition(name, type));
	}
	/* The cluster: the root cgroup's own root domain when it is all the
	 * rest (the root keeps those CPUs anyway), else a partition. */
	dl_cpus_online(&online);
	rest = online;
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_andnot(&rest, &l->parts[i].cpus);
	l->cluster_partition = !dl_cpus_equal(&rest, &l->cluster);
	DL_STEP(res, "state", dl_layout_save(l));
	dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
	DL_STEP(res, "cluster cgroup", dl_layout_make_cs(name, &l->cluster, &l->mems, NULL, 0));
	if (l->cluster_partition)
		DL_STEP(res, "cluster partition", dl_cs_make_partition(name, "root"));
	return 0;
}

static int destroy_v2(const struct dl_layout *l, struct dl_layout_result *res)
{
	char name[4200];
	int err, e;

	err = dl_layout_move_back(l, false, res);
	if (err)
		return err;
	for (int i = -1; i < (int)l->nparts; i++) {
		char state[256];

		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (!dl_cs_exists(name) || dl_layout_left(l, i))
			continue;
		/* Member first, so the removal itself changes no domain; never
		 * empty a valid partition's cpus (the kernel loses the CPUs
		 * from the root cgroup then). */
		if (dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state)) == 0 &&
		    strcmp(state, "member") != 0 && (e = dl_cs_write(name, "cpuset.cpus.partition", "member"))) {
			err = dl_fail(e, "cannot turn /%s back into a member: %s", name, dl_cg_why(e));
			continue;
		}
		e = dl_layout_remove_member(l, name, false, res);
		if (e && !err)
			err = dl_fail(e, "cannot remove cgroup /%s: %s", name, dl_cg_why(e));
	}
	if (!err && l->enabled_subtree && dl_cs_root_subtree_has("cpuset") == 1) {
		/* Refused (EBUSY) while other cgroups use cpuset: theirs now. */
		e = dl_cs_root_subtree("-cpuset");
		if (e && e != -EBUSY)
			err = dl_fail(e, "cannot disable cpuset in the root cgroup's cgroup.subtree_control, which create enabled: %s",
				      dl_cg_why(e));
	}
	return err;
}

void dl_v2_state(const char *cg, bool partition, char *buf, size_t len)
{
	(void)partition;
	if (dl_cs_read(cg, "cpuset.cpus.partition", buf, len) < 0)
		snprintf(buf, len, "unknown");
}

const struct dl_cg_backend dl_backend_v2 = {
	.name = "cgroup v2",
	.cgroup = cgroup_v2,
	.leftovers = leftovers_v2,
	.conflict = dl_v2_conflict,
	.create = create_v2,
	.destroy = destroy_v2,
	.state = dl_v2_state,
	.count = dl_layout_count_cs,
	.moves_process = true,
};
