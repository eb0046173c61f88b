/*
 * place.c: tasks into a layout's partitions and cluster, and the layout
 * as it is now.
 *
 * The order matters to the kernel: a deadline task must be allowed on
 * every CPU of its root domain, so a thread joins the partition's cpuset
 * first and asks for its reservation there, in that root domain.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"
#include "layout/systemd.h"

/* The cgroup of member `name` of the layout in place. */
int dl_layout_member_cgroup(const char *name, char *buf, size_t len, struct dl_layout **out)
{
	struct dl_layout *l;
	char list[1024], shown[4 * DL_LAYOUT_NAME_MAX + 8];
	size_t used = 0;
	int err;

	if (!name || !*name)
		return dl_fail(-EINVAL, "no partition name");
	err = dl_layout_load(&l);
	if (err)
		return err;
	if (strcmp(name, DL_CLUSTER) == 0)
		goto found;
	for (size_t i = 0; i < l->nparts; i++)
		if (strcmp(l->parts[i].name, name) == 0)
			goto found;
	list[0] = '\0';
	for (size_t i = 0; i < l->nparts && used < sizeof(list); i++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", l->parts[i].name);
		used += n > 0 ? (size_t)n : 0;
	}
	dl_layout_free(l);
	/* The name is the caller's: a container's annotation, an argument. */
	return dl_fail(-ENOENT, "no partition \"%s\" in the layout (partitions: %s; or the cluster)",
		       dl_str_escape(name, shown, sizeof(shown)), list);
found:
	err = dl_layout_cgroup(l, name, buf, len);
	if (out && !err)
		*out = l;
	else
		dl_layout_free(l);
	return err;
}

static int explain_attach(int err, pid_t tid, const char *cg)
{
	switch (err) {
	case -EBUSY:
		return dl_fail(err, "cannot move deadline thread %d into /%s: its bandwidth does not fit in that root domain (see dl_rd_list(3))",
			       (int)tid, cg);
	case -ESRCH:
		return dl_fail(err, "no thread %d", (int)tid);
	case -EINVAL:
		return dl_fail(err, "thread %d cannot move into /%s: it is a kernel thread bound to its CPUs",
			       (int)tid, cg);
	case -ENOSPC:
		return dl_fail(err, "cpuset /%s has no CPUs or memory nodes", cg);
	case -EPERM:
	case -EACCES:
		return dl_fail(err, "moving tasks between cpusets needs root");
	case -ELIBACC:
		return err; /* libcgroup missing: dl_cg_init() said which, and what to install */
	default:
		return dl_fail(err, "cannot move thread %d into /%s: %s", (int)tid, cg, dl_cg_why(err));
	}
}

/*
 * A sleeping thread moved into a cpuset stays on its old CPU until it
 * wakes, and the kernel admits a reservation into the root domain of the
 * CPU a thread is on: give moved threads a moment to get there.
 */
#define MIGRATE_WAIT_NS 200000000ULL

static void wait_migrated(const char *cg, pid_t tid, bool process)
{
	uint64_t until = dl_now_ns() + MIGRATE_WAIT_NS;
	dl_cpus_t cpus;

	if (dl_cs_effective(cg, &cpus) < 0)
		return;
	for (;;) {
		bool all = true;

		if (process) {
			pid_t *tids = NULL;
			size_t n = 0;
			int c;

			if (dl_threads_list(tid, &tids, &n) < 0)
				return;
			for (size_t i = 0; i < n; i++)
				if ((c = dl_task_cpu(tids[i])) >= 0 && !dl_cpus_isset(&cpus, c))
					all = false;
			free(tids);
		} else {
			int c = dl_task_cpu(tid);

			all = c < 0 || dl_cpus_isset(&cpus, c);
		}
		if (all || dl_now_ns() >= until)
			return;
		dl_sleep_ns(2000000);
	}
}

/*
 * The cgroup a thread is in now, below the cpuset hierarchy's root
 * ("libdl/x").  v1: /proc/TID/cpuset.  v2: the unified line of
 * /proc/TID/cgroup ("0::/a/b"), since /proc/TID/cpuset names the nearest
 * cgroup with the cpuset controller, which may be an ancestor of the
 * task's own.
 */
int dl_task_cgroup(pid_t tid, char *buf, size_t len)
{
	char path[64], cs[8192], *at = cs;
	int err;

	if (dl_cpuset_version() == 2) {
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
		err = dl_read_file(path, cs, sizeof(cs));
		if (err)
			return err;
		while (at && strncmp(at, "0::", 3) != 0)
			if ((at = strchr(at, '\n')))
				at++;
		if (!at)
			return -ENOENT;
		at += 3;
		at[strcspn(at, "\n")] = '\0';
	} else {
		snprintf(path, sizeof(path), "/proc/%d/cpuset", (int)tid);
		err = dl_read_file(path, cs, sizeof(cs));
		if (err)
			return err;
	}
	return dl_pathf(buf, len, "%s", at[0] == '/' ? at + 1 : at);
}

static bool is_member(const struct dl_layout *l, const char *cgroup)
{
	char name[4200];

	for (int i = -1; i < (int)l->nparts; i++)
		if (dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name)) == 0 &&
		    strcmp(name, cgroup) == 0)
			return true;
	return false;
}

/* Remember where task `id` (a v1 thread, or a v2 process) came from,
 * unless it is in the layout already. */
static void note_origin(struct dl_layout *l, pid_t id)
{
	struct dl_origin o = { .pid = id };
	char cg[4096];

	if (dl_task_cgroup(id, cg, sizeof(cg)) < 0 || is_member(l, cg) ||
	    dl_task_stat_field(id, 22, &o.start) < 0)
		return;
	dl_layout_add_origin(l, &o, cg);
}

/* The threads of process pid, saying why not. */
static int list_threads(pid_t pid, pid_t **out, size_t *n)
{
	int err = dl_threads_list(pid, out, n);

	if (err == -ESRCH)
		return dl_fail(err, "no process %d", (int)pid);
	if (err)
		return dl_fail(err, "out of memory");
	return 0;
}

/*
 * Record the origins of what is about to move, in the state file, under
 * the layout lock (held by the caller): destroy puts each task back in
 * the cgroup it came from, not in the root.
 */
static int save_origins(struct dl_layout *l, pid_t tid, bool process)
{
	pid_t *tids;
	size_t n;
	int err;

	if (!process || dl_layout_backend(l)->moves_process) {
		/* v2 moves whole processes: the process is the unit. */
		note_origin(l, dl_layout_backend(l)->moves_process ? dl_task_tgid(tid) : tid);
		return dl_layout_save(l);
	}
	err = list_threads(tid, &tids, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		note_origin(l, tids[i]);
	free(tids);
	return dl_layout_save(l);
}

static int attach_locked(struct dl_layout *l, const char *cg, pid_t tid, unsigned int flags)
{
	pid_t *tids;
	size_t n;
	int err;

	err = save_origins(l, tid, flags & DL_ATTACH_PROCESS);
	if (err)
		return err;
	/* v2 moves whole processes anyway; v1 moves threads, one by one. */
	if (!(flags & DL_ATTACH_PROCESS) || dl_layout_backend(l)->moves_process) {
		err = dl_cs_attach(cg, tid);
		if (err)
			return explain_attach(err, tid, cg);
		wait_migrated(cg, tid, flags & DL_ATTACH_PROCESS || dl_layout_backend(l)->moves_process);
		return 0;
	}
	err = list_threads(tid, &tids, &n);
	for (size_t i = 0; !err && i < n; i++) {
		err = dl_cs_attach(cg, tids[i]);
		if (err == -ESRCH)
			err = 0; /* exited meanwhile */
		else if (err)
			err = explain_attach(err, tids[i], cg);
	}
	free(tids);
	if (!err)
		wait_migrated(cg, tid, true);
	return err;
}

/* How long a placement waits for a create or destroy to finish. */
#define LOCK_WAIT_MS 10000

DL_EXPORT int dl_part_attach(const char *name, pid_t tid, unsigned int flags)
{
	char cg[4200];
	struct dl_layout *l = NULL;
	sigset_t sigs;
	int err, lock;

	if (flags & ~(unsigned int)DL_ATTACH_PROCESS)
		return dl_fail(-EINVAL, "unknown flags 0x%x", flags);
	if (geteuid() != 0)
		return dl_fail(-EPERM, "moving tasks between cpusets needs root");
	if (tid == 0)
		tid = (flags & DL_ATTACH_PROCESS) ? getpid() : gettid();
	lock = dl_layout_lock(LOCK_WAIT_MS);
	if (lock < 0)
		return lock;
	/* The origins saved and the task moved, whatever signal comes
	 * meanwhile (sys/signals.c). */
	dl_sig_hold(&sigs);
	err = dl_layout_member_cgroup(name, cg, sizeof(cg), &l);
	if (!err && l->systemd) {
		/* Under systemd: a scope of the partition's slice, never a
		 * move behind systemd's back (the scope ends with the process,
		 * so there is no origin to record). */
		err = dl_sd_attach(name, tid);
		if (!err)
			wait_migrated(cg, tid, true);
	} else if (!err) {
		err = attach_locked(l, cg, tid, flags);
	}
	if (l)
		dl_layout_free(l);
	close(lock);
	dl_sig_release(&sigs);
	return err;
}

/* Where every thread of a process is, to put them back. */
struct where {
	pid_t tid;
	char cgroup[4096];
};

static int threads_where(pid_t pid, struct where **out, size_t *n)
{
	pid_t *tids;
	struct where *w;
	size_t k = 0;
	int err = list_threads(pid, &tids, n);

	*out = NULL;
	if (err)
		return err;
	w = calloc(*n ? *n : 1, sizeof(*w));
	if (!w) {
		free(tids);
		return dl_fail(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < *n; i++)
		if (dl_task_cgroup(tids[i], w[k].cgroup, sizeof(w[k].cgroup)) == 0)
			w[k++].tid = tids[i];
	free(tids);
	*out = w;
	*n = k;
	return 0;
}

static void put_back(const struct where *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dl_cs_attach(w[i].cgroup, w[i].tid);
}

DL_EXPORT int dl_part_set(const char *name, pid_t tid, const struct dl_params *p)
{
	char before[4096], cg[4200], why[1024];
	struct dl_params norm;
	int err;

	if (geteuid() != 0)
		return dl_fail(-EPERM, "moving tasks between cpusets needs root");
	if (tid == 0)
		tid = gettid();
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	err = dl_layout_member_cgroup(name, cg, sizeof(cg), NULL);
	if (err)
		return err;
	if (dl_task_cgroup(tid, before, sizeof(before)) < 0)
		before[0] = '\0';
	err = dl_part_attach(name, tid, 0);
	if (err)
		return err;
	err = dl_set(tid, &norm);
	if (err) {
		/* Back where it was: nothing changed. */
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		dl_cs_attach(before, tid);
		return dl_fail(err, "in %s /%s: %s", strcmp(name, DL_CLUSTER) ? "partition" : "the cluster",
			       cg, why);
	}
	return 0;
}

DL_EXPORT int dl_part_set_process(const char *name, pid_t pid, const struct dl_params *p,
				  unsigned int flags, struct dl_thread_status **status, size_t *count)
{
	char cg[4200], why[1024];
	struct where *before;
	size_t n;
	int err;

	if (status)
		*status = NULL;
	if (count)
		*count = 0;
	if (pid <= 0)
		return dl_fail(-EINVAL, "invalid process id %d", (int)pid);
	if (geteuid() != 0)
		return dl_fail(-EPERM, "moving tasks between cpusets needs root");
	err = dl_layout_member_cgroup(name, cg, sizeof(cg), NULL);
	if (err)
		return err;
	err = threads_where(pid, &before, &n);
	if (err)
		return err;
	/* Every thread into the cpuset first, then the reservations. */
	err = dl_part_attach(name, pid, DL_ATTACH_PROCESS);
	if (err >= 0) {
		err = dl_set_process(pid, p, flags, status, count);
		if (err >= 0 || (flags & DL_PROC_PARTIAL)) {
			free(before);
			return err;
		}
	}
	/* Nothing half-done: every thread back in the cpuset it was in. */
	snprintf(why, sizeof(why), "%s", dl_errmsg());
	put_back(before, n);
	free(before);
	return dl_fail(err, "in %s /%s: %s; the threads were put back in their cpusets",
		       strcmp(name, DL_CLUSTER) ? "partition" : "the cluster", cg, why);
}

DL_EXPORT int dl_layout_report(struct dl_part_info **out, size_t *count)
{
	const struct dl_cg_backend *b;
	struct dl_part_info *v;
	struct dl_layout *l;
	struct dl_rd *rds = NULL;
	size_t n = 0, nrd = 0;
	int err;

	if (out)
		*out = NULL;
	if (count)
		*count = 0;
	err = dl_layout_load(&l);
	if (err)
		return err;
	v = calloc(l->nparts + 1, sizeof(*v));
	if (!v) {
		dl_layout_free(l);
		return dl_fail(-ENOMEM, "out of memory");
	}
	b = dl_layout_backend(l);
	/* One look at the root domains for every member: from sched/debug
	 * alone when no deadline thread runs (rd.c), else with the scan. */
	if (dl_rd_idle(&rds, &nrd) != 0 && dl_rd_list(&rds, &nrd) < 0)
		nrd = 0;
	/* The partitions, then the cluster (member -1, as everywhere). */
	for (int pos = 0; pos <= (int)l->nparts; pos++) {
		struct dl_part_info *pi = &v[n];
		int i = pos < (int)l->nparts ? pos : -1;
		const char *member = dl_layout_member(l, i, NULL);
		int first;

		snprintf(pi->name, sizeof(pi->name), "%s", member);
		pi->partition = i >= 0;
		if (dl_layout_cgroup(l, member, pi->cgroup, sizeof(pi->cgroup)) < 0)
			continue;
		if (!dl_cs_exists(pi->cgroup)) {
			/* Removed, or a half-made layout: say so. */
			snprintf(pi->state, sizeof(pi->state), "gone");
			n++;
			continue;
		}
		dl_cs_effective(pi->cgroup, &pi->cpus);
		b->state(pi->cgroup, pi->partition, pi->state, sizeof(pi->state));
		b->count(pi->cgroup, pi->partition, &pi->nthreads, &pi->ndeadline);
		pi->servers_changed = (uint64_t)dl_layout_servers_differ(l, member, NULL, 0);
		first = dl_cpus_first(&pi->cpus);
		for (size_t k = 0; first >= 0 && k < nrd; k++)
			if (dl_cpus_isset(&rds[k].cpus, first))
				pi->rd = rds[k];
		n++;
	}
	free(rds);
	dl_layout_free(l);
	if (out)
		*out = v;
	else
		free(v);
	if (count)
		*count = n;
	return (int)n;
}
