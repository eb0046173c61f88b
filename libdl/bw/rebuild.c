/*
 * rebuild.c: the repair of the kernel's deadline accounting drift
 * (drift.c finds it).
 *
 * Any root-domain rebuild makes the kernel recount total_bw from the live
 * tasks (dl_rebuild_rd_accounting() on 6.18, rebuild_root_domains() on
 * 6.1), so the repair is one rebuild that leaves the domains as they
 * were: on v1 a probe cpuset made exclusive and removed, on v2 a root
 * partition toggled.
 *
 * A rebuild is a few writes that only make sense whole: the probe made
 * keeps a CPU exclusively (v1) or as a partition (v2), the partition
 * toggled is a member until it is a root again.  So the signals that end
 * a command are held back until the domains are as they were
 * (sys/signals.c), and a probe left by a SIGKILL, which cannot be held,
 * names the pid that made it: the next rebuild, create or destroy
 * removes it once that pid is gone (dl_rd_sweep_probes), and
 * dl_rd_leftovers(3) (dl-part status) reports it meanwhile.  On v2,
 * cpuset enabled in the root's subtree_control for the probe alone is
 * recorded, with the pid, in the state folder before it is written
 * (SUBTREE_RECORD): the same sweep disables it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bw/bw.h"

#define PROBE_PREFIX "libdl-rebuild-"
/* In the state folder: "PID", while a v2 rebuild has cpuset enabled in
 * the root's subtree_control that it will disable again. */
#define SUBTREE_RECORD "rebuild-subtree"

/* The exclusive children of a cpuset: their CPUs, and the first. */
struct excl_walk {
	dl_cpus_t cpus;
	char *first;
	size_t len;
};

static int excl_visit(const char *child, int depth, void *arg)
{
	struct excl_walk *w = arg;
	dl_cpus_t c;

	(void)depth;
	if (!dl_cs_flag(child, "cpuset.cpu_exclusive") ||
	    dl_cs_cpus(child, "cpuset.cpus", &c) < 0 || dl_cpus_count(&c) == 0)
		return DL_CS_NEXT;
	dl_cpus_or(&w->cpus, &c);
	if (!w->first[0] && strlen(child) < w->len)
		memcpy(w->first, child, strlen(child) + 1);
	return DL_CS_NEXT;
}

/* A CPU of cpuset `name` that none of its exclusive children holds, or
 * -1 and (in `excl_child`) one such child to look inside. */
static int free_cpu_in(const char *name, char *excl_child, size_t len)
{
	struct excl_walk w = { .first = excl_child, .len = len };
	dl_cpus_t cpus;

	excl_child[0] = '\0';
	if (dl_cs_cpus(name, "cpuset.cpus", &cpus) < 0 || !dl_cs_exists(name))
		return -1;
	dl_cs_walk(name, excl_visit, &w);
	dl_cpus_andnot(&cpus, &w.cpus);
	return dl_cpus_first(&cpus);
}

struct name_walk {
	char *out;
	size_t len;
	bool found;
	int cpu; /* holder_visit's */
};

/* The top-most load-balanced cpuset with CPUs below `name`: a sched
 * domain of its own when the root does not balance. */
static int balanced_visit(const char *child, int depth, void *arg)
{
	struct name_walk *w = arg;
	char buf[4096];

	(void)depth;
	if (dl_cs_read(child, "cpuset.cpus", buf, sizeof(buf)) < 0 || !buf[0])
		return DL_CS_NEXT;
	if (!dl_cs_flag(child, "cpuset.sched_load_balance"))
		return DL_CS_DESCEND;
	if (strlen(child) >= w->len)
		return DL_CS_NEXT;
	memcpy(w->out, child, strlen(child) + 1);
	w->found = true;
	return DL_CS_STOP;
}

static bool find_balanced(const char *name, char *out, size_t len)
{
	struct name_walk w = { .out = out, .len = len };

	dl_cs_walk(name, balanced_visit, &w);
	return w.found;
}

/* The probe goes, whatever happened: a second try after a failure. */
static int remove_probe(const char *name, bool *said)
{
	int err = 0;

	for (int tries = 0; tries < 3; tries++) {
		err = dl_cs_remove(name);
		if (err == 0 || err == -ENOENT)
			return 0;
		dl_sleep_ns(10000000);
	}
	*said = true;
	return dl_fail(err, "cannot rebuild the root domains: its probe cpuset /%s is left behind (%s): remove it with rmdir",
		       name, dl_cg_why(err));
}

/*
 * cgroup v1: a probe cpuset inside a load-balanced one.  Writing its CPUs
 * rebuilds (update_cpumasks_hier()), and so does turning its balancing
 * off; the kernel never looks below a load-balanced cpuset, so the
 * domains come out as they were.  With balancing off, removing the probe
 * triggers no further, asynchronous rebuild.
 */
static int rebuild_v1(bool *said)
{
	char parent[4096] = "", next[4096], name[4200], cpustr[16], buf[16];
	int cpu = -1, err, e;

	if (dl_cs_read("", "cpuset.sched_load_balance", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "0") == 0 && !find_balanced("", parent, sizeof(parent)))
		parent[0] = '\0'; /* no domain at all: the probe makes one, briefly */
	for (int depth = 0; depth < 32 && cpu < 0; depth++) {
		cpu = free_cpu_in(parent, next, sizeof(next));
		if (cpu < 0) {
			if (!next[0])
				return -ENOSPC;
			memcpy(parent, next, sizeof(parent));
		}
	}
	if (cpu < 0)
		return -ELOOP;
	snprintf(cpustr, sizeof(cpustr), "%d", cpu);
	err = dl_pathf(name, sizeof(name), "%s%s" PROBE_PREFIX "%d", parent,
		       *parent ? "/" : "", (int)getpid());
	if (err)
		return err;
	{
		struct dl_kv kv[] = { { "cpuset.cpus", cpustr } };

		err = dl_cs_create(name, kv, ARRAY_SIZE(kv));
	}
	if (err)
		return err;
	err = dl_cs_write(name, "cpuset.sched_load_balance", "0");
	e = remove_probe(name, said);
	return err ? err : e;
}

/* A root partition of the root cgroup, a layout's first. */
static int root_partition_visit(const char *child, int depth, void *arg)
{
	struct name_walk *w = arg;
	char state[256];

	(void)depth;
	if (dl_cs_read(child, "cpuset.cpus.partition", state, sizeof(state)) < 0 ||
	    strcmp(state, "root") != 0)
		return DL_CS_NEXT;
	if (!w->found || strncmp(child, DL_LAYOUT_PARENT "-", strlen(DL_LAYOUT_PARENT) + 1) == 0) {
		snprintf(w->out, w->len, "%s", child);
		w->found = true;
	}
	return DL_CS_NEXT;
}

/* Every root domain has one CPU: toggle a partition of the root cgroup
 * (a layout's first) to a member and back, which the kernel takes as two
 * rebuilds. */
static int toggle_partition(void)
{
	char state[256], name[300] = "";
	struct name_walk w = { .out = name, .len = sizeof(name) };
	int err;

	dl_cs_walk("", root_partition_visit, &w);
	if (!w.found)
		return -ENOSPC;
	err = dl_cs_write(name, "cpuset.cpus.partition", "member");
	if (err)
		return err;
	err = dl_cs_write(name, "cpuset.cpus.partition", "root");
	if (!err && (dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state)) < 0 ||
		     strcmp(state, "root") != 0))
		err = -EPROTO;
	return err;
}

/* The record is written before +cpuset: a SIGKILL after the write
 * leaves it, naming a pid that is gone. */
static int subtree_record(void)
{
	char path[4096], text[32];
	int err;

	if ((err = dl_state_dir_make()) || (err = dl_state_path(path, sizeof(path), SUBTREE_RECORD)) ||
	    (err = dl_fault("the rebuild's record")))
		return err;
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	return dl_file_replace(path, text, strlen(text), 0600, false);
}

static void subtree_record_drop(void)
{
	char path[4096];

	if (dl_state_path(path, sizeof(path), SUBTREE_RECORD) == 0)
		unlink(path);
}

/* The pid of the record, when it is there, root's and written by root
 * alone; else 0. */
static pid_t subtree_record_pid(void)
{
	char path[4096], text[32];
	struct stat st;
	ssize_t got;
	long pid;
	char *end;
	int fd;

	if (dl_state_path(path, sizeof(path), SUBTREE_RECORD))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022)
		      ? read(fd, text, sizeof(text) - 1)
		      : -1;
	close(fd);
	if (got <= 0)
		return 0;
	text[got] = '\0';
	pid = strtol(text, &end, 10);
	return (*end == '\n' || !*end) && pid > 0 && pid <= INT32_MAX ? (pid_t)pid : 0;
}

/* A pid that names no process: its probe, or its record, is left over. */
static bool gone(long pid)
{
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* cgroup v2: only partition changes rebuild.  A temporary root partition
 * of one CPU inside a partition root that has two or more, then back to
 * a member, then removed: the domains come out as they were. */
static int rebuild_v2(bool *said)
{
	char name[4200], cpustr[16];
	dl_cpus_t eff;
	int err, last = -1;
	bool added;

	if (dl_cs_effective("", &eff) < 0)
		return -EIO;
	for (int c = 0; c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&eff, c))
			last = c;
	if (dl_cpus_count(&eff) < 2)
		return toggle_partition();
	/* cpuset enabled for the probe only, and disabled again after;
	 * recorded first, for a sweep to disable after a SIGKILL. */
	added = dl_cs_root_subtree_has("cpuset") == 0;
	if (added && ((err = subtree_record()) || (err = dl_cs_root_subtree("+cpuset")))) {
		subtree_record_drop();
		return err;
	}
	snprintf(cpustr, sizeof(cpustr), "%d", last);
	snprintf(name, sizeof(name), PROBE_PREFIX "%d", (int)getpid());
	{
		struct dl_kv kv[] = { { "cpuset.cpus", cpustr } };

		err = dl_cs_create(name, kv, ARRAY_SIZE(kv));
	}
	if (!err) {
		int e;

		err = dl_cs_write(name, "cpuset.cpus.partition", "root");
		if (!err)
			err = dl_cs_write(name, "cpuset.cpus.partition", "member");
		e = remove_probe(name, said);
		if (!err)
			err = e;
	}
	if (added) {
		/* Refused (EBUSY) once another cgroup enabled it below: theirs. */
		dl_cs_root_subtree("-cpuset");
		subtree_record_drop();
	}
	return err;
}

/* The probes found, by name, whose pid is gone: the first max named,
 * all counted. */
struct probe_walk {
	char (*names)[4096];
	long *pids;
	size_t n, max, count;
};

static int probe_visit(const char *child, int depth, void *arg)
{
	struct probe_walk *w = arg;
	const char *base = strrchr(child, '/');
	char *end;
	long long pid;

	(void)depth;
	base = base ? base + 1 : child;
	if (strncmp(base, PROBE_PREFIX, strlen(PROBE_PREFIX)) != 0)
		return DL_CS_DESCEND;
	pid = strtoll(base + strlen(PROBE_PREFIX), &end, 10);
	/* Only a probe whose maker is gone: every probe is made under the
	 * layout lock, which the caller holds, but a pid is all the name
	 * keeps, and a reused one keeps its probe until it ends too. */
	if (*end || pid <= 0 || pid > INT32_MAX || !gone(pid))
		return DL_CS_NEXT;
	w->count++;
	if (w->n < w->max && strlen(child) < sizeof(w->names[0])) {
		if (w->pids)
			w->pids[w->n] = pid;
		memcpy(w->names[w->n++], child, strlen(child) + 1);
	}
	return DL_CS_NEXT; /* a probe has no children */
}

int dl_rd_sweep_probes(void)
{
	char names[8][4096], state[256];
	struct probe_walk w = { .names = names, .max = ARRAY_SIZE(names) };
	int version = dl_cpuset_version(), removed = 0;
	bool said = false;
	pid_t pid;

	if (version < 0 || geteuid() != 0)
		return 0;
	dl_cs_walk("", probe_visit, &w);
	for (size_t i = 0; i < w.n; i++) {
		/* Undone as the probe's own removal would: balancing off (v1),
		 * a member again (v2), so the removal changes no domain. */
		if (version == 1)
			dl_cs_write(names[i], "cpuset.sched_load_balance", "0");
		else if (dl_cs_read(names[i], "cpuset.cpus.partition", state, sizeof(state)) == 0 &&
			 strcmp(state, "member") != 0)
			dl_cs_write(names[i], "cpuset.cpus.partition", "member");
		if (remove_probe(names[i], &said) == 0)
			removed++;
	}
	/* After the probes: cpuset is disabled below the root only once no
	 * probe of ours uses it. */
	pid = subtree_record_pid();
	if (version == 2 && pid > 0 && gone(pid)) {
		if (dl_cs_root_subtree_has("cpuset") == 1 && dl_cs_root_subtree("-cpuset") == 0)
			removed++;
		subtree_record_drop();
	}
	return removed;
}

/* One more line of dl_rd_leftovers' text, when it fits whole. */
DL_PRINTF(4, 5) static void add_line(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	char line[4400];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || *used + (*used != 0) + (size_t)n >= len)
		return;
	if (*used)
		buf[(*used)++] = '\n';
	memcpy(buf + *used, line, (size_t)n + 1);
	*used += (size_t)n;
}

DL_EXPORT int dl_rd_leftovers(char *buf, size_t len)
{
	char names[8][4096], name[4200];
	long pids[8];
	struct probe_walk w = { .names = names, .pids = pids, .max = ARRAY_SIZE(names) };
	int version = dl_cpuset_version();
	size_t used = 0;
	pid_t pid;

	if (!buf && len)
		return dl_fail(-EINVAL, "no buffer for the leftovers");
	if (len)
		buf[0] = '\0';
	if (version < 0)
		return dl_fail(version, "cannot look for leftovers: no cpuset controller is mounted");
	dl_cs_walk("", probe_visit, &w);
	for (size_t i = 0; i < w.n; i++)
		add_line(buf, len, &used, "cgroup /%s: the probe of a root-domain rebuild (dl-part repair, or the check after a create or destroy) whose process, pid %ld, was killed",
			 dl_str_escape(names[i], name, sizeof(name)), pids[i]);
	/* The record is root's: another user sees the probes only. */
	pid = version == 2 ? subtree_record_pid() : 0;
	if (pid > 0 && gone(pid) && dl_cs_root_subtree_has("cpuset") == 1) {
		w.count++;
		add_line(buf, len, &used, "cpuset in the root cgroup's cgroup.subtree_control: enabled for a root-domain rebuild whose process, pid %d, was killed",
			 (int)pid);
	}
	return (int)w.count;
}

/* The innermost root partition whose CPUs (cpuset.cpus.effective) hold
 * the CPU w->cpu. */
static int holder_visit(const char *child, int depth, void *arg)
{
	struct name_walk *w = arg;
	char state[256];
	dl_cpus_t eff;

	(void)depth;
	if (dl_cs_read(child, "cpuset.cpus.partition", state, sizeof(state)) == 0 && strcmp(state, "root") == 0 &&
	    dl_cs_effective(child, &eff) == 0 && dl_cpus_isset(&eff, w->cpu)) {
		snprintf(w->out, w->len, "%s", child);
		w->found = true;
	}
	return DL_CS_DESCEND;
}

/*
 * A rebuild that makes CPU cpu's root domain again, so that the kernel
 * counts its fair servers (docs/kernel-notes.md, "The fair server"): on
 * cgroup v2 the root partition that holds the CPU set isolated and back
 * to root.  Isolated, its CPUs leave every sched domain for the default
 * root domain, and root again makes them a root domain of their own;
 * a member and back would not do for a partition whose parent partition
 * has the same CPUs (a layout's partition in libdl.slice): the domain
 * stays the same CPUs throughout, which the kernel keeps.  The root
 * cgroup's own domain changes its CPUs in any rebuild, as does every
 * domain of v1 that its probe touches.  The caller holds the layout
 * lock.
 */
int dl_rd_remake_locked(int cpu)
{
	char name[4096] = "", state[256];
	struct name_walk w = { .out = name, .len = sizeof(name), .cpu = cpu };
	sigset_t sigs;
	int err, e;

	if (dl_cpuset_version() != 2)
		return dl_rd_rebuild_locked();
	dl_cs_walk("", holder_visit, &w);
	if (!w.found)
		return dl_rd_rebuild_locked();
	dl_wait_quiet(5000);
	dl_sig_hold(&sigs);
	err = dl_cs_write(name, "cpuset.cpus.partition", "isolated");
	e = dl_cs_write(name, "cpuset.cpus.partition", "root");
	if (!err)
		err = e;
	if (!err && (dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state)) < 0 || strcmp(state, "root") != 0))
		err = -EPROTO;
	dl_sig_release(&sigs);
	if (err)
		return dl_fail(err, "cannot make the root domain of CPU %d again (the partition %s set isolated and "
			       "back to root): %s", cpu, name, dl_cg_why(err));
	return 0;
}

int dl_rd_rebuild_locked(void)
{
	int version = dl_cpuset_version();
	bool said = false;
	sigset_t sigs;
	int err;

	if (version < 0)
		return dl_fail(version, "cannot rebuild the root domains: no cpuset controller is mounted");
	if (geteuid() != 0)
		return dl_fail(-EPERM, "cannot rebuild the root domains: it takes root (a cpuset is made and removed)");
	dl_debugfs_mount();
	/* Every way below is a rebuild: not while an exited deadline task
	 * still holds bandwidth (docs/kernel-notes.md, "Exit before a
	 * rebuild"). */
	dl_wait_quiet(5000);
	dl_sig_hold(&sigs);
	dl_rd_sweep_probes();
	err = version == 1 ? rebuild_v1(&said) : rebuild_v2(&said);
	dl_sig_release(&sigs);
	if (err && said)
		return err; /* said already, with what is left */
	if (err == -EPERM || err == -EACCES)
		return dl_fail(err, "cannot rebuild the root domains: permission denied on the cpuset hierarchy (run as root)");
	if (err == -ENOSPC)
		return dl_fail(err, "cannot rebuild the root domains without changing them: every root domain has a single CPU (remove and recreate a partition)");
	if (err)
		return dl_fail(err, "cannot rebuild the root domains: %s", dl_cg_why(err));
	return 0;
}
