/*
 * create.c: make and unmake a layout of partitions and a cluster
 * (dl_layout_create(3), dl_layout_destroy(3)), through its backend.
 *
 * Destroy undoes exactly that from the state file, in any process, after
 * a create killed at any step: tasks back to the root, the root's
 * settings as they were, the cgroups removed.  Before each change that
 * rebuilds the root domains it waits until no exited deadline task still
 * holds bandwidth, and after it checks the kernel's count and repairs it
 * (libdeadline(3), BUGS).
 *
 * Both hold SIGINT, SIGTERM, SIGHUP and SIGQUIT back from the lock to the
 * end (sys/signals.c says why that, not a record of each step): a create
 * they interrupt is rolled back at its next step, a destroy finishes,
 * and then the signal takes its effect.  Each starts by removing what a
 * repair killed with SIGKILL left behind (dl_rd_sweep_probes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout/systemd.h"

/* Each partition, and the cluster, is now a root domain of its own. */
static int verify_domains(const struct dl_layout *l)
{
	dl_cpus_t *spans;
	size_t n;
	char a[DL_CPUS_STRLEN], b[DL_CPUS_STRLEN];
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

/*
 * Partitions that hold what destroy would have to stop or could not move
 * (occupants.c: a container, a unit): refused, each named; or, leave,
 * marked to be left as they are, so that nothing is stopped.
 */
static int occupied(struct dl_layout *l, bool leave, struct dl_layout_result *res)
{
	char what[2048], msg[4096] = "";
	size_t used = 0;
	int busy = 0;

	for (size_t i = 0; i < l->nparts; i++) {
		int n = dl_layout_occupants(l, l->parts[i].name, what, sizeof(what));

		if (n <= 0)
			continue;
		if (leave && !l->leave && !(l->leave = calloc(l->nparts, sizeof(*l->leave))))
			return dl_fail(-ENOMEM, "out of memory");
		if (leave)
			l->leave[i] = true;
		busy++;
		if (used < sizeof(msg))
			used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%spartition %s holds %s",
						 used ? "; " : "", l->parts[i].name, what);
	}
	if (busy && !leave)
		return dl_fail(-EBUSY, "%s: destroying %s would stop %s or tear %s out of the cgroup its owner keeps; stop %s first (podman stop, systemctl stop) and destroy again, or leave the partitions that hold tasks in place and destroy the rest (DL_LAYOUT_LEAVE_BUSY, dl_layout_destroy(3))",
			       msg, busy == 1 ? "it" : "them", busy == 1 ? "what runs there" : "what runs there",
			       busy == 1 ? "it" : "them", busy == 1 ? "it" : "them");
	res->left = (uint64_t)busy;
	return 0;
}

/* Keep in the state only the partitions left, for the next destroy. */
static int keep_left(struct dl_layout *l)
{
	size_t k = 0;

	/* Their CPUs' servers stay as the layout set them, to be put back
	 * by the destroy that removes them. */
	k = 0;
	for (size_t i = 0; i < l->nserver_orig; i++) {
		bool left = false;

		for (size_t p = 0; p < l->nparts && !left; p++)
			left = dl_layout_left(l, (int)p) && dl_cpus_isset(&l->parts[p].cpus, l->server_orig[i].cpu);
		if (left)
			l->server_orig[k++] = l->server_orig[i];
	}
	l->nserver_orig = k;
	k = 0;
	for (size_t i = 0; i < l->nservers; i++)
		for (size_t p = 0; p < l->nparts; p++)
			if (dl_layout_left(l, (int)p) && strcmp(l->parts[p].name, l->servers[i].member) == 0) {
				l->servers[k++] = l->servers[i];
				break;
			}
	l->nservers = k;
	k = 0;
	for (size_t i = 0; i < l->nparts; i++)
		if (dl_layout_left(l, (int)i))
			l->parts[k++] = l->parts[i];
	l->nparts = k;
	free(l->leave);
	l->leave = NULL;
	return dl_layout_save(l);
}

/* check: refuse (or, with leave, keep) partitions that hold tasks; a
 * create rolled back has none of its own to ask about. */
static int destroy_any(struct dl_layout *l, struct dl_layout_result *res, bool check, bool leave)
{
	char name[4200];
	int err;

	if (check && (err = occupied(l, leave, res)))
		return err;

	/* A layout whose cgroups someone else removed: the caller says so. */
	for (size_t i = 0; i < l->nparts; i++)
		if (dl_layout_cgroup(l, l->parts[i].name, name, sizeof(name)) == 0 && !dl_cs_exists(name))
			res->absent++;
	/* The state file stays as create wrote it until the end: a destroy
	 * stopped half-way is finished by the next from the same file,
	 * every step of it undoing only what is still there.  The servers
	 * go back first, while the layout still stands: one the kernel
	 * cannot take back (its root domain's deadline tasks hold the
	 * bandwidth) stops destroy with nothing else undone. */
	err = dl_layout_servers_restore(l);
	if (err)
		return err;
	err = dl_layout_backend(l)->destroy(l, res);
	if (err)
		return err;
	check_accounting(res);
	return res->left ? keep_left(l) : dl_layout_forget();
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
	struct dl_cs_conflict w;
	char text[1024], buf[16];
	sigset_t sigs;
	int err, lock, sig;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!l)
		return dl_fail(-EINVAL, "no layout");
	if ((err = preflight()))
		return err;
	dl_sig_hold(&sigs);
	lock = dl_layout_lock(0);
	if (lock < 0) {
		dl_sig_release(&sigs);
		return lock;
	}
	dl_rd_sweep_probes();
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
	dl_layout_all_cpus(l, &w.all);
	/* The tests may let the kernel find a conflict itself, to prove its
	 * own verdict is read back and rolled back. */
	if (!(dl_test_hooks && dl_test_hooks->no_precheck))
		err = dl_cs_walk("", dl_layout_backend(l)->conflict, &w);
	if (!err)
		err = dl_layout_check_bw(l);
	if (err)
		goto out;

	l->flags &= ~(unsigned int)DL_LAYOUT_LEAVE_BUSY; /* destroy's, not the layout's */
	l->creator = getpid();
	l->created = time(NULL);
	l->root_lb = -1;
	if (l->version == 1 && dl_cs_read("", "cpuset.sched_load_balance", buf, sizeof(buf)) == 0)
		l->root_lb = atoi(buf);
	/* The state first: whatever happens next, destroy finds it.  It is
	 * whole now (only v2's cluster and the cpuset it enables add to it,
	 * saving again): no second write marks the end. */
	err = dl_step_begin(res, "state");
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
	/* The root domains change next: not while an exited deadline task
	 * still holds bandwidth (docs/kernel-notes.md, "Exit before a
	 * rebuild"; v1 waits again before its rebuild, after the moves). */
	dl_wait_quiet(DL_QUIET_TIMEOUT_MS);
	err = dl_layout_backend(l)->create(l, res);
	if (!err)
		err = verify_domains(l);
	/* The servers once the members' root domains stand: each is
	 * admitted in its own. */
	if (!err && l->nservers) {
		err = dl_step_begin(res, "servers");
		if (!err)
			err = dl_layout_servers_apply(l);
		if (!err)
			dl_step(res, "servers");
	}
	if (!err) {
		check_accounting(res);
		/* Interrupted after the last step: undone all the same, so an
		 * interrupted create (a service stopped while it starts)
		 * leaves nothing. */
		if ((sig = dl_sig_interrupted()))
			err = dl_fail(-EINTR, "interrupted by %s after the last step", dl_sig_name(sig));
	}
	if (err) {
		/* Roll back whatever was done, keeping the first error's words. */
		char why[1024];
		struct dl_layout_result undo = { 0 };

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		if (destroy_any(l, &undo, false, false) < 0) {
			char again[1024];

			snprintf(again, sizeof(again), "%s", dl_errmsg());
			dl_fail(err, "%s; and the rollback failed: %s (call dl_layout_destroy(3))", why, again);
		} else
			dl_fail(err, "%s (nothing was left changed)", why);
		goto out;
	}
out:
	close(lock);
	dl_sig_release(&sigs);
	return err;
}

/* The layout in place (b) is the one the caller means (a): same
 * partitions, same CPUs, and the same cluster when a names one (a layout
 * read from dl-part.conf(5) without a cluster line means whatever rest
 * create made its cluster). */
static bool same_layout(const struct dl_layout *a, const struct dl_layout *b)
{
	if (a->nparts != b->nparts || (a->cluster_set && !dl_cpus_equal(&a->cluster, &b->cluster)))
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
	sigset_t sigs;
	int err, lock;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if ((err = preflight()))
		return err;
	dl_sig_hold(&sigs);
	lock = dl_layout_lock(0);
	if (lock < 0) {
		dl_sig_release(&sigs);
		return lock;
	}
	dl_rd_sweep_probes();
	err = dl_layout_load(&l);
	if (!err && want && !same_layout(want, l))
		err = dl_fail(-ESTALE, "the layout in place is not the one given: another process replaced it; load it (dl_layout_load(3)) to destroy it");
	else if (!err)
		err = destroy_any(l, res, true, want && (want->flags & DL_LAYOUT_LEAVE_BUSY));
	if (l)
		dl_layout_free(l);
	close(lock);
	dl_sig_release(&sigs);
	return err;
}
