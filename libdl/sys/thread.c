/*
 * thread.c: what the calling process may do and where a thread runs:
 * CAP_SYS_NICE, dropping capabilities, a thread's CPU and affinity,
 * the threads of a process.
 * Bottom layer (sys.h): plain queries of the kernel, no policy.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "sys/sys.h"

DL_EXPORT int dl_have_cap_sys_nice(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return dl_fail(-errno, "cannot read the capabilities: %s", strerror(errno));
	if (cap_get_flag(caps, CAP_SYS_NICE, CAP_EFFECTIVE, &v) < 0)
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

/*
 * A program given file capabilities (setcap cap_sys_nice+ep) must not
 * hand them on to a command it runs: every set cleared, the ambient and
 * inheritable ones too (the one path the kernel leaves open is CAP_SYS_NICE
 * in the inheritable set meeting a command's file-inheritable set).
 * Root keeps its own: its command would get them back at exec.
 */
DL_EXPORT int dl_caps_drop(void)
{
	cap_t none;
	int err = 0;

	if (getuid() == 0 && geteuid() == 0)
		return 0;
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() < 0)
		return dl_fail(-errno, "cannot clear the ambient capabilities: %s", strerror(errno));
	none = cap_init();
	if (!none)
		return dl_fail(-errno, "cannot clear the capabilities: %s", strerror(errno));
	if (cap_set_proc(none) < 0)
		err = dl_fail(-errno, "cannot clear the capabilities: %s", strerror(errno));
	cap_free(none);
	return err;
}

/* The CPU a thread last ran on: field 39 of /proc/TID/stat. */
int dl_task_cpu(pid_t tid)
{
	unsigned long long cpu;
	int err = dl_task_stat_field(tid ? tid : gettid(), 39, &cpu);

	return err ? err : (int)cpu;
}

/* The CPUs a thread may run on, as a dl_cpus_t. */
int dl_task_affinity(pid_t tid, dl_cpus_t *set)
{
	cpu_set_t mask;

	if (sched_getaffinity(tid, sizeof(mask), &mask) < 0)
		return -errno;
	dl_cpus_zero(set);
	for (int c = 0; c < DL_CPUS_MAX && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			dl_cpus_set(set, c);
	return 0;
}

/* The one walk of /proc/PID/task: the threads of process pid, a
 * malloc'd array (callers free it); -ESRCH when there is no such process,
 * -ENOMEM.  Like the file readers, it leaves dl_errmsg to the caller. */
int dl_threads_list(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	pid_t *v = NULL;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		pid_t t = dl_parse_pid(de->d_name);

		if (t <= 0)
			continue;
		if (*n == cap) {
			pid_t *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = t;
	}
	closedir(d);
	*out = v;
	return 0;
}
