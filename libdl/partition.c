/*
 * partition.c: make and unmake a layout of partitions and a cluster.
 *
 * cgroup v1 (Documentation/admin-guide/cgroup-v1/cpusets.rst, 1.7): the
 * layout's cpusets sit in a parent "libdl", exclusive (an exclusive
 * cpuset's parent must be) and not balancing itself; each
 * partition and the cluster is cpu_exclusive and load-balanced; the
 * root's sched_load_balance goes to 0, and the kernel then makes each of
 * them a root domain.  The root cpuset's movable tasks go to the cluster.
 *
 * cgroup v2 (Documentation/admin-guide/cgroup-v2.rst, "Cpuset"): each
 * partition is a child of the root cgroup with cpuset.cpus.partition
 * "root" (or "isolated"), read back because an invalid partition is a
 * successful write.  The cluster is the rest: a member cgroup when it is
 * every CPU no partition has (the root cgroup's own root domain), else a
 * root partition too.  No task is moved: tasks elsewhere lose the
 * partitions' CPUs by the kernel's rules.
 *
 * Destroy undoes exactly that from the state file, in any process, after
 * a create killed at any step: tasks back to the root, the root's
 * settings as they were, the cgroups removed.  Before each change that
 * rebuilds the root domains it waits until no exited deadline task still
 * holds bandwidth, and after it checks the kernel's count and repairs it
 * (libdeadline(3), BUGS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout.h"
#include "cg-systemd.h"

#define QUIET_TIMEOUT_MS 5000

/*
 * Steps are numbered; the test builds of the tools (dl_test_hooks) stop a
 * create after step N or make step N fail, to prove that destroy and the
 * rollback restore everything from any point.
 */
static int step_begin(struct dl_layout_result *res, const char *what)
{
	if (dl_test_hooks && dl_test_hooks->step_begin)
		return dl_test_hooks->step_begin(res->steps + 1, what);
	return 0;
}

int dl_step(struct dl_layout_result *res, const char *what)
{
	res->steps++;
	if (dl_test_hooks && dl_test_hooks->step_done)
		dl_test_hooks->step_done(res->steps, what);
	return 0;
}

#define STEP(res, what, action)                  \
	do {                                     \
		int e_ = step_begin(res, what);  \
		if (!e_)                         \
			e_ = (action);           \
		if (e_)                          \
			return e_;               \
		dl_step(res, what);              \
	} while (0)

static void all_cpus(const struct dl_layout *l, dl_cpus_t *out)
{
	*out = l->cluster;
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_or(out, &l->parts[i].cpus);
}

/* Create a cpuset with its CPUs and nodes (in that order: the kernel
 * wants both before cpu_exclusive) and more values after. */
static int make_cs(const char *name, const dl_cpus_t *cpus, const dl_cpus_t *mems,
		   const struct dl_kv *more, size_t nmore)
{
	char c[4096], m[1024];
	struct dl_kv kv[8];
	size_t n = 0;
	int err;

	kv[n++] = (struct dl_kv){ "cpuset.cpus", dl_cpus_format(cpus, c, sizeof(c)) };
	kv[n++] = (struct dl_kv){ "cpuset.mems", dl_cpus_format(mems, m, sizeof(m)) };
	for (size_t i = 0; i < nmore && n < ARRAY_SIZE(kv); i++)
		kv[n++] = more[i];
	err = dl_cs_create(name, kv, n);
	if (err == -EEXIST)
		return dl_fail(err, "cpuset /%s exists already: remove it, or call dl_layout_destroy(3)", name);
	if (err)
		return dl_fail(err, "cannot create cpuset /%s with CPUs %s: %s", name, c,
			       err == -EINVAL ? "the kernel refused its values (an exclusive cpuset elsewhere may hold these CPUs)"
					      : strerror(-err));
	return 0;
}

/* ---------------------------------------------------------------- checks */

struct cs_walk {
	const struct dl_layout *l;
	dl_cpus_t all;
};

/* v1: cpusets that would break the layout.  Exclusive top-level cpusets
 * may not overlap ours; a load-balanced cpuset (the top-most of its
 * branch) overlapping a partition, or straddling the cluster's edge,
 * would be merged into the same root domain. */
static int v1_conflict(const char *child, int depth, void *arg)
{
	const struct cs_walk *w = arg;
	char c[256], o[256];
	dl_cpus_t cpus;
	bool excl;
	int err = DL_CS_NEXT;

	if (strcmp(child, DL_LAYOUT_PARENT) == 0 ||
	    dl_cs_cpus(child, "cpuset.cpus", &cpus) < 0 || dl_cpus_count(&cpus) == 0)
		return DL_CS_NEXT;
	excl = dl_cs_flag(child, "cpuset.cpu_exclusive");
	dl_cpus_format(&cpus, c, sizeof(c));
	/* The layout's parent is exclusive (its children must be): no
	 * top-level sibling may share its CPUs, exclusive or not. */
	if (depth == 0 && dl_cpus_intersects(&cpus, &w->all))
		return dl_fail(-EBUSY, "cpuset /%s has CPUs %s%s, which the layout needs (CPUs %s): a cgroup v1 exclusive cpuset shares no CPU with its siblings; remove /%s or narrow its cpuset.cpus",
			       child, c, excl ? " and is cpu_exclusive" : "",
			       dl_cpus_format(&w->all, o, sizeof(o)), child);
	if (!dl_cs_flag(child, "cpuset.sched_load_balance"))
		return DL_CS_DESCEND;
	for (size_t i = 0; i < w->l->nparts; i++) {
		if (dl_cpus_intersects(&cpus, &w->l->parts[i].cpus))
			err = dl_fail(-EBUSY, "cpuset /%s is load-balanced with CPUs %s: with the root's balancing off the kernel would put them and partition %s's in one root domain; remove it or set its cpuset.sched_load_balance to 0",
				      child, c, w->l->parts[i].name);
	}
	if (!err && dl_cpus_intersects(&cpus, &w->l->cluster) &&
	    !dl_cpus_subset(&cpus, &w->l->cluster))
		err = dl_fail(-EBUSY, "cpuset /%s is load-balanced with CPUs %s, partly outside the cluster (CPUs %s): the kernel would widen the cluster's root domain; remove it or set its cpuset.sched_load_balance to 0",
			      child, c, dl_cpus_format(&w->l->cluster, o, sizeof(o)));
	return err; /* the kernel looks no deeper */
}

/* v2: a top-level cgroup whose cpuset.cpus take a partition's CPUs makes
 * the partition invalid ("not exclusive"): name it first. */
static int v2_conflict(const char *child, int depth, void *arg)
{
	const struct cs_walk *w = arg;
	char c[256];
	dl_cpus_t cpus;

	(void)depth;
	if (strncmp(child, DL_LAYOUT_PARENT "-", strlen(DL_LAYOUT_PARENT) + 1) == 0 ||
	    dl_cs_cpus(child, "cpuset.cpus", &cpus) < 0 || dl_cpus_count(&cpus) == 0)
		return DL_CS_NEXT;
	for (size_t i = 0; i < w->l->nparts; i++)
		if (dl_cpus_intersects(&cpus, &w->l->parts[i].cpus))
			return dl_fail(-EBUSY, "cgroup /%s has cpuset.cpus %s, which partition %s needs: the kernel would make the partition invalid; empty its cpuset.cpus or give it other CPUs",
				       child, dl_cpus_format(&cpus, c, sizeof(c)), w->l->parts[i].name);
	return DL_CS_NEXT; /* top level only */
}

/* On v1 the layout's cpusets sit in one parent; on v2 a partition's
 * parent must be a partition root, so they are children of the root
 * cgroup. */
static int cgroup_v1(const char *member, char *buf, size_t len)
{
	return member ? dl_pathf(buf, len, DL_LAYOUT_PARENT "/%s", member)
		      : dl_pathf(buf, len, "%s", DL_LAYOUT_PARENT);
}

static int cgroup_v2(const char *member, char *buf, size_t len)
{
	return member ? dl_pathf(buf, len, DL_LAYOUT_PARENT "-%s", member) : dl_pathf(buf, len, "%s", "");
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

/* Each partition, and the cluster, is now a root domain of its own. */
static int verify_domains(const struct dl_layout *l)
{
	dl_cpus_t *spans;
	size_t n;
	char a[256], b[256];
	int err = dl_rd_spans(&spans, &n);

	if (err)
		return dl_fail(err, "cannot read the root domains back: %s", strerror(-err));
	for (int i = -1; i < (int)l->nparts && !err; i++) {
		const dl_cpus_t *want = i < 0 ? &l->cluster : &l->parts[i].cpus;
		bool found = false;

		for (size_t k = 0; k < n && !found; k++) {
			if (dl_cpus_equal(&spans[k], want))
				found = true;
			else if (dl_cpus_intersects(&spans[k], want))
				err = dl_fail(-EPROTO, "the kernel did not make %s (CPUs %s) a root domain of its own: its CPUs are in the root domain of CPUs %s",
					      i < 0 ? "the cluster" : l->parts[i].name,
					      dl_cpus_format(want, a, sizeof(a)),
					      dl_cpus_format(&spans[k], b, sizeof(b)));
		}
		if (!found && !err)
			err = dl_fail(-EPROTO, "the kernel made no root domain of CPUs %s", dl_cpus_format(want, a, sizeof(a)));
	}
	free(spans);
	return err;
}

/* Every member's tasks back where they came from (the root, for those
 * create moved), once no exit is in flight. */
static int move_back(const struct dl_layout *l, bool threads, struct dl_layout_result *res)
{
	char name[4200];
	int err = 0, e;

	dl_wait_quiet(QUIET_TIMEOUT_MS);
	for (int i = -1; i < (int)l->nparts; i++) {
		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (dl_cs_exists(name) && (e = dl_cs_move_home(l, name, threads, res)) && !err)
			err = e;
	}
	return err;
}

/* Remove a member's cpuset, moving back what forked into it meanwhile. */
static int remove_member(const struct dl_layout *l, const char *name, bool threads,
			 struct dl_layout_result *res)
{
	int e = 0;

	for (int tries = 0; tries < 5; tries++) {
		e = dl_cs_remove(name);
		if (e != -EBUSY)
			break;
		dl_cs_move_home(l, name, threads, res);
	}
	return e;
}

/* After a rebuild: the kernel's count against the live tasks, repaired.
 * With no deadline thread anywhere and every count its fair servers
 * (one read of sched/debug, rd.c) there is nothing to repair; else the
 * full check, which scans /proc and waits out a count still settling. */
static void check_accounting(struct dl_layout_result *res)
{
	struct dl_rd *rds = NULL;
	size_t n = 0;

	if (dl_rd_idle(&rds, &n) == 0) {
		free(rds);
		return;
	}
	if (dl_drift_check(DL_DRIFT_SETTLE_MS, NULL, &n) > 0 && dl_rd_rebuild_locked() == 0)
		res->repaired = true;
}

/* ---------------------------------------------------------------- v1 */

static int create_v1(struct dl_layout *l, struct dl_layout_result *res)
{
	static const struct dl_kv excl[] = { { "cpuset.cpu_exclusive", "1" } };
	/* v1: an exclusive cpuset's parent must be exclusive too. */
	static const struct dl_kv parent[] = { { "cpuset.cpu_exclusive", "1" },
					       { "cpuset.sched_load_balance", "0" } };
	char name[4200];
	dl_cpus_t all;

	all_cpus(l, &all);
	STEP(res, "parent cpuset", make_cs(DL_LAYOUT_PARENT, &all, &l->mems, parent, 2));
	dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
	STEP(res, "cluster cpuset", make_cs(name, &l->cluster, &l->mems, excl, 1));
	for (size_t i = 0; i < l->nparts; i++) {
		dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name));
		STEP(res, "partition cpuset", make_cs(name, &l->parts[i].cpus, &l->mems, excl, 1));
	}
	if (!(l->flags & DL_LAYOUT_NO_MOVE)) {
		dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
		STEP(res, "move the root's tasks", dl_cs_move_all("", name, true, res));
	}
	dl_wait_quiet(QUIET_TIMEOUT_MS);
	STEP(res, "root sched_load_balance 0", dl_cs_write("", "cpuset.sched_load_balance", "0"));
	return 0;
}

static int destroy_v1(const struct dl_layout *l, struct dl_layout_result *res)
{
	char name[4200], buf[16];
	int err, e;

	err = move_back(l, true, res);
	if (err)
		return err;
	/* The merge: the root balances again (as it did before). */
	if (l->root_lb >= 0 && dl_cs_read("", "cpuset.sched_load_balance", buf, sizeof(buf)) == 0 &&
	    atoi(buf) != l->root_lb) {
		snprintf(buf, sizeof(buf), "%d", l->root_lb);
		err = dl_cs_write("", "cpuset.sched_load_balance", buf);
		if (err)
			return dl_fail(err, "cannot restore the root cpuset's sched_load_balance to %d: %s",
				       l->root_lb, strerror(-err));
	}
	for (int i = -1; i < (int)l->nparts; i++) {
		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (!dl_cs_exists(name))
			continue;
		/* Balancing off first: removing a balanced cpuset rebuilds the
		 * domains later, asynchronously, at a moment nobody chose. */
		dl_cs_write(name, "cpuset.sched_load_balance", "0");
		e = remove_member(l, name, true, res);
		if (e && !err)
			err = dl_fail(e, "cannot remove cpuset /%s: %s", name, strerror(-e));
	}
	if (!err && dl_cs_exists(DL_LAYOUT_PARENT) && (e = dl_cs_remove(DL_LAYOUT_PARENT)))
		err = dl_fail(e, "cannot remove cpuset /%s: %s (is there a cpuset in it that is not the layout's?)",
			      DL_LAYOUT_PARENT, strerror(-e));
	return err;
}

/* ---------------------------------------------------------------- v2 */

static int enable_subtree(struct dl_layout *l)
{
	int err;

	if (dl_cs_root_subtree_has("cpuset") == 1)
		return 0;
	err = dl_cs_root_subtree("+cpuset");
	if (err)
		return dl_fail(err, "cannot enable cpuset in the root cgroup's cgroup.subtree_control: %s",
			       strerror(-err));
	l->enabled_subtree = true;
	return dl_layout_save(l);
}

static int create_v2(struct dl_layout *l, struct dl_layout_result *res)
{
	const char *type = l->flags & DL_LAYOUT_ISOLATED ? "isolated" : "root";
	dl_cpus_t online, rest;
	char name[4200];

	STEP(res, "enable cpuset", enable_subtree(l));
	for (size_t i = 0; i < l->nparts; i++) {
		dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name));
		STEP(res, "partition cgroup", make_cs(name, &l->parts[i].cpus, &l->mems, NULL, 0));
		STEP(res, "partition root", dl_cs_make_partition(name, type));
	}
	/* The cluster: the root cgroup's own root domain when it is all the
	 * rest (the root keeps those CPUs anyway), else a partition. */
	dl_cpus_online(&online);
	rest = online;
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_andnot(&rest, &l->parts[i].cpus);
	l->cluster_partition = !dl_cpus_equal(&rest, &l->cluster);
	STEP(res, "state", dl_layout_save(l));
	dl_layout_cgroup(l, DL_CLUSTER, name, sizeof(name));
	STEP(res, "cluster cgroup", make_cs(name, &l->cluster, &l->mems, NULL, 0));
	if (l->cluster_partition)
		STEP(res, "cluster partition", dl_cs_make_partition(name, "root"));
	return 0;
}

static int destroy_v2(const struct dl_layout *l, struct dl_layout_result *res)
{
	char name[4200];
	int err, e;

	err = move_back(l, false, res);
	if (err)
		return err;
	for (int i = -1; i < (int)l->nparts; i++) {
		char state[256];

		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (!dl_cs_exists(name))
			continue;
		/* Member first, so the removal itself changes no domain; never
		 * empty a valid partition's cpus (the kernel loses the CPUs
		 * from the root cgroup then). */
		if (dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state)) == 0 &&
		    strcmp(state, "member") != 0 && (e = dl_cs_write(name, "cpuset.cpus.partition", "member"))) {
			err = dl_fail(e, "cannot turn /%s back into a member: %s", name, strerror(-e));
			continue;
		}
		e = remove_member(l, name, false, res);
		if (e && !err)
			err = dl_fail(e, "cannot remove cgroup /%s: %s", name, strerror(-e));
	}
	if (!err && l->enabled_subtree && dl_cs_root_subtree_has("cpuset") == 1) {
		/* Refused (EBUSY) while other cgroups use cpuset: theirs now. */
		e = dl_cs_root_subtree("-cpuset");
		if (e && e != -EBUSY)
			err = dl_fail(e, "cannot disable cpuset in the root cgroup's cgroup.subtree_control, which create enabled: %s",
				      strerror(-e));
	}
	return err;
}

/* ---------------------------------------------------------------- backends */

static void state_v1(const char *cg, bool partition, char *buf, size_t len)
{
	(void)partition;
	snprintf(buf, len, "%s", dl_cs_flag(cg, "cpuset.cpu_exclusive") ? "exclusive" : "not exclusive");
}

static void state_v2(const char *cg, bool partition, char *buf, size_t len)
{
	(void)partition;
	if (dl_cs_read(cg, "cpuset.cpus.partition", buf, len) < 0)
		snprintf(buf, len, "unknown");
}

static void state_systemd(const char *cg, bool partition, char *buf, size_t len)
{
	if (partition)
		state_v2(cg, partition, buf, len);
	else /* the cluster is the root cgroup: every other unit */
		snprintf(buf, len, "the rest of the machine");
}

static int count_cs(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline)
{
	(void)partition;
	return dl_cs_count_threads(cg, threads, deadline);
}

/* A partition's slice with its scopes and services; the cluster, the
 * root cgroup's own threads only. */
static int count_systemd(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline)
{
	return partition ? dl_sd_count(cg, threads, deadline) : dl_cs_count_threads(cg, threads, deadline);
}

static const struct dl_cg_backend backend_v1 = {
	.name = "cgroup v1",
	.cgroup = cgroup_v1,
	.leftovers = leftovers_v1,
	.conflict = v1_conflict,
	.create = create_v1,
	.destroy = destroy_v1,
	.state = state_v1,
	.count = count_cs,
	.moves_process = false,
	.moves_root_tasks = true,
};

static const struct dl_cg_backend backend_v2 = {
	.name = "cgroup v2",
	.cgroup = cgroup_v2,
	.leftovers = leftovers_v2,
	.conflict = v2_conflict,
	.create = create_v2,
	.destroy = destroy_v2,
	.state = state_v2,
	.count = count_cs,
	.moves_process = true,
};

static const struct dl_cg_backend backend_systemd = {
	.name = "systemd",
	.cgroup = dl_sd_cgroup,
	.leftovers = dl_sd_check,
	.conflict = v2_conflict,
	.create = dl_sd_create,
	.destroy = dl_sd_destroy,
	.state = state_systemd,
	.count = count_systemd,
	.moves_process = true,
};

const struct dl_cg_backend *dl_layout_backend(const struct dl_layout *l)
{
	if (l->systemd)
		return &backend_systemd;
	return l->version == 2 ? &backend_v2 : &backend_v1;
}

/* ---------------------------------------------------------------- API */

static int destroy_any(struct dl_layout *l, struct dl_layout_result *res)
{
	char name[4200];
	int err;

	/* A layout whose cgroups someone else removed: the caller says so. */
	for (size_t i = 0; i < l->nparts; i++)
		if (dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name)) == 0 && !dl_cs_exists(name))
			res->absent++;
	/* The state file stays as create wrote it until the end: a destroy
	 * stopped half-way is finished by the next from the same file,
	 * every step of it undoing only what is still there. */
	err = dl_layout_backend(l)->destroy(l, res);
	if (err)
		return err;
	check_accounting(res);
	return dl_layout_forget();
}

static int preflight(void)
{
	if (geteuid() != 0)
		return dl_fail(-EPERM, "changing cpusets needs root");
	if (dl_cpuset_version() < 0)
		return dl_fail(-ENODEV, "no cpuset controller is mounted (cgroup v1 cpuset or cgroup v2 with cpuset)");
	/* The accounting checks after a change need the kernel's figures. */
	dl_debugfs_mount();
	return 0;
}

DL_EXPORT int dl_layout_create(struct dl_layout *l, struct dl_layout_result *res)
{
	struct dl_layout_result local;
	struct dl_layout *existing;
	struct cs_walk w;
	char text[1024], buf[16];
	int err, lock;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!l)
		return dl_fail(-EINVAL, "no layout");
	if ((err = preflight()))
		return err;
	lock = dl_layout_lock(0);
	if (lock < 0)
		return lock;
	if (dl_layout_load(&existing) == 0) {
		err = dl_fail(-EEXIST, "a layout exists already (%s, made by pid %d): remove it first with dl_layout_destroy(3)",
			      dl_layout_text(existing, text, sizeof(text)), (int)existing->creator);
		dl_layout_free(existing);
		goto out;
	}
	l->version = dl_cpuset_version();
	l->systemd = l->version == 2 && dl_sd_host();
	if ((err = dl_layout_validate(l)) || (err = dl_layout_backend(l)->leftovers(l)))
		goto out;
	w.l = l;
	all_cpus(l, &w.all);
	/* The tests may let the kernel find a conflict itself, to prove its
	 * own verdict is read back and rolled back. */
	if (!(dl_test_hooks && dl_test_hooks->no_precheck))
		err = dl_cs_walk("", dl_layout_backend(l)->conflict, &w);
	if (!err)
		err = dl_layout_check_bw(l);
	if (err)
		goto out;

	l->creator = getpid();
	l->created = time(NULL);
	l->root_lb = -1;
	if (l->version == 1 && dl_cs_read("", "cpuset.sched_load_balance", buf, sizeof(buf)) == 0)
		l->root_lb = atoi(buf);
	/* The state first: whatever happens next, destroy finds it.  It is
	 * whole now (only v2's cluster and the cpuset it enables add to it,
	 * saving again): no second write marks the end. */
	err = step_begin(res, "state");
	if (!err)
		err = dl_layout_save(l);
	if (err) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		dl_layout_forget();
		dl_fail(err, "%s (nothing was left changed)", why);
		goto out;
	}
	dl_step(res, "state");
	err = dl_layout_backend(l)->create(l, res);
	if (!err)
		err = verify_domains(l);
	if (err) {
		/* Roll back whatever was done, keeping the first error's words. */
		char why[1024];
		struct dl_layout_result undo = { 0 };

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		if (destroy_any(l, &undo) < 0) {
			char again[1024];

			snprintf(again, sizeof(again), "%s", dl_errmsg());
			dl_fail(err, "%s; and the rollback failed: %s (call dl_layout_destroy(3))", why, again);
		} else
			dl_fail(err, "%s (nothing was left changed)", why);
		goto out;
	}
	check_accounting(res);
out:
	close(lock);
	return err;
}

/* The layout in place is the one the caller means: same partitions,
 * same CPUs, same cluster. */
static bool same_layout(const struct dl_layout *a, const struct dl_layout *b)
{
	if (a->nparts != b->nparts || !dl_cpus_equal(&a->cluster, &b->cluster))
		return false;
	for (size_t i = 0; i < a->nparts; i++)
		if (strcmp(a->parts[i].name, b->parts[i].name) != 0 ||
		    !dl_cpus_equal(&a->parts[i].cpus, &b->parts[i].cpus))
			return false;
	return true;
}

/* What create changed is undone from the state file, read under the
 * lock, whatever process made it; the caller's layout (from
 * dl_layout_create or dl_layout_load) only names what it means to
 * destroy, and NULL means whatever is in place. */
DL_EXPORT int dl_layout_destroy(const struct dl_layout *want, struct dl_layout_result *res)
{
	struct dl_layout_result local;
	struct dl_layout *l;
	int err, lock;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if ((err = preflight()))
		return err;
	lock = dl_layout_lock(0);
	if (lock < 0)
		return lock;
	err = dl_layout_load(&l);
	if (!err && want && !same_layout(want, l))
		err = dl_fail(-ESTALE, "the layout in place is not the one given: another process replaced it; load it (dl_layout_load(3)) to destroy it");
	else if (!err)
		err = destroy_any(l, res);
	if (l)
		dl_layout_free(l);
	close(lock);
	return err;
}
