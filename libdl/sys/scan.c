/*
 * scan.c: every SCHED_DEADLINE thread (their root domains are
 * bw/rootdomains.c's).
 *
 * One readdir of /proc, one of each /proc/PID/task, and one
 * sched_getattr(2) per thread: cheaper than reading a /proc file per
 * thread, as ps(1) does.  Only deadline threads then have their stat,
 * comm, cpuset and schedstat read.  Threads that exit during the scan
 * are skipped: they are not errors.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"

static int add(struct dl_task **v, size_t *n, size_t *cap, const struct dl_task *t)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct dl_task *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *t;
	return 0;
}

/* Name, cpuset and CPU time of a deadline thread; false if it exited. */
static bool details(struct dl_task *t)
{
	char path[96], buf[512];
	unsigned long long exec = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)t->pid, (int)t->tid);
	if (dl_read_file(path, t->comm, sizeof(t->comm)) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/cpuset", (int)t->pid, (int)t->tid);
	if (dl_read_file(path, t->cpuset, sizeof(t->cpuset)) < 0)
		t->cpuset[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)t->pid, (int)t->tid);
	t->when_ns = dl_now_ns();
	if (dl_read_file(path, buf, sizeof(buf)) == 0 && sscanf(buf, "%llu", &exec) == 1)
		t->exec_ns = exec;
	return true;
}

int dl_scan(pid_t only, bool want_details, struct dl_task **out, size_t *count)
{
	struct dl_task *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *proc;
	int err = 0;

	*out = NULL;
	*count = 0;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (de = readdir(proc))) {
		pid_t *tids = NULL;
		size_t ntids = 0;
		pid_t pid = dl_parse_pid(de->d_name);

		if (pid <= 0 || (only && pid != only) || dl_threads_list(pid, &tids, &ntids) < 0)
			continue; /* exited */
		for (size_t i = 0; i < ntids; i++) {
			struct dl_sched_attr attr;
			struct dl_task t;
			pid_t tid = tids[i];

			if (dl_sys_getattr(tid, &attr) < 0 || attr.sched_policy != DL_SCHED_DEADLINE)
				continue;
			memset(&t, 0, sizeof(t));
			t.pid = pid;
			t.tid = tid;
			dl_params_from_attr(&t.params, &attr);
			t.bw = dl_params_bw(&t.params);
			t.rd = -1;
			t.cpu = dl_task_cpu(tid);
			if (t.cpu < 0 || (want_details && !details(&t)))
				continue; /* exited */
			err = add(&v, &n, &cap, &t);
			if (err)
				break;
		}
		free(tids);
	}
	closedir(proc);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*count = n;
	return 0;
}

/* CPU time a thread used per period between two readings of it. */
DL_EXPORT uint64_t dl_task_used_per_period(const struct dl_task *before, const struct dl_task *now)
{
	uint64_t dt, dexec;

	if (!before || !now || now->when_ns <= before->when_ns || now->exec_ns < before->exec_ns)
		return 0;
	dt = now->when_ns - before->when_ns;
	dexec = now->exec_ns - before->exec_ns;
	return (uint64_t)(((unsigned __int128)dexec * now->params.period) / dt);
}
