/*
 * thread.c: what the calling process may do and where a thread runs:
 * CAP_SYS_NICE, dropping capabilities, a thread's CPU and affinity,
 * the threads of a process.
 * Bottom layer (sys.h): plain queries of the kernel, no policy.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/sys.h"

/*
 * The calling thread's capability sets, by the kernel's own capget(2) and
 * capset(2) (version 3: two 32-bit words a set).  Not libcap's: a program
 * linked with it pays for the library's loading and for its constructor,
 * which probes the bounding set, at every start, a launch by dl-run
 * included, for what is two system calls here.
 */
static int caps_call(long nr, struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	return syscall(nr, &head, data) < 0 ? -errno : 0;
}

DL_EXPORT int dl_have_cap_sys_nice(void)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int err = caps_call(SYS_capget, data);

	if (err)
		return dl_fail(err, "cannot read the capabilities: %s", strerror(-err));
	return (data[CAP_TO_INDEX(CAP_SYS_NICE)].effective & CAP_TO_MASK(CAP_SYS_NICE)) != 0;
}

/*
 * A program given file capabilities (setcap cap_sys_nice+ep) must not
 * hand them on to a command it runs: every set cleared, the ambient and
 * inheritable ones too (the one path the kernel leaves open is CAP_SYS_NICE
 * in the inheritable set meeting a command's file-inheritable set).
 * Root keeps its own: its command would get them back at exec.  Kernels
 * before 4.3 have no ambient set and refuse its prctl with EINVAL.
 */
DL_EXPORT int dl_caps_drop(void)
{
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
	uid_t r, e, s;
	int err;

	if (getresuid(&r, &e, &s) == 0 && r == 0 && e == 0)
		return 0;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return dl_fail(-errno, "cannot clear the ambient capabilities: %s", strerror(errno));
	memset(none, 0, sizeof(none));
	err = caps_call(SYS_capset, none);
	if (err)
		return dl_fail(err, "cannot clear the capabilities: %s", strerror(-err));
	return 0;
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
