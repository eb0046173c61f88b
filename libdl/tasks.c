/*
 * tasks.c: find the live deadline threads.
 *
 * One readdir of /proc, one of each /proc/PID/task, and one
 * sched_getattr(2) per thread (cheaper than opening a file per thread);
 * only the deadline threads then get their /proc/TID/stat read, for the
 * CPU they run on.  Threads that exit during the scan are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pid_t dirent_pid(const struct dirent *de)
{
	const char *p = de->d_name;
	long v = 0;

	if (*p < '1' || *p > '9')
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		v = v * 10 + (*p - '0');
		if (v > 0x7fffffff)
			return 0;
	}
	return (pid_t)v;
}

static int add(struct dl_tinfo **v, size_t *n, size_t *cap, const struct dl_tinfo *t)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct dl_tinfo *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *t;
	return 0;
}

int dl_scan_threads(struct dl_tinfo **out, size_t *count)
{
	struct dl_tinfo *v = NULL;
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
		char path[64];
		struct dirent *te;
		DIR *task;
		pid_t pid = dirent_pid(de);

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		task = opendir(path);
		if (!task)
			continue; /* exited */
		while ((te = readdir(task))) {
			struct dl_sched_attr attr;
			struct dl_tinfo t;
			pid_t tid = dirent_pid(te);

			if (!tid || dl_sys_getattr(tid, &attr) < 0 ||
			    attr.sched_policy != DL_SCHED_DEADLINE)
				continue;
			memset(&t, 0, sizeof(t));
			t.pid = pid;
			t.tid = tid;
			t.params.runtime = attr.sched_runtime;
			t.params.deadline = attr.sched_deadline;
			t.params.period = attr.sched_period;
			t.params.flags = attr.sched_flags & (DL_FLAG_RESET_ON_FORK |
							     DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN);
			t.params.util_min = attr.sched_util_min;
			t.params.util_max = attr.sched_util_max;
			t.cpu = dl_task_cpu(tid);
			if (t.cpu < 0)
				continue; /* exited */
			err = add(&v, &n, &cap, &t);
			if (err)
				break;
		}
		closedir(task);
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
