/*
 * thread.c: what the calling process may do and where a thread runs:
 * CAP_SYS_NICE, dropping capabilities, a thread's CPU and affinity,
 * the threads of a process.
 * Bottom layer (sys.h): plain queries of the kernel, no policy.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "sys/sys.h"

/*
 * libcap does the capability work, loaded by the first call that needs it
 * (as libcgroup is, cgroup/libcgroup.c) rather than linked: a program
 * linked with it pays for its loading and its constructor (which probes
 * the bounding set with six prctl calls) at every start, and a launch by
 * root, the common one, never reads nor drops a capability.  Measured on
 * dl-run up to its exec: 77,000 instructions and 15 system calls of
 * 293,000 and 75 (bench/README, experiment 3).
 */
DL_ELF_NOTE_DLOPEN(libcap, "[{\"feature\":\"capabilities\",\"description\":\"CAP_SYS_NICE read, "
			   "and a setcap'ed tool's capabilities dropped before it runs a command\","
			   "\"priority\":\"required\",\"soname\":[\"" LIBCAP_SONAME "\"]}]");

static const char *const cap_names[] = {
	"cap_get_proc", "cap_get_flag", "cap_free", "cap_init", "cap_set_proc", "cap_get_ambient", "cap_reset_ambient",
};
enum { CAP_GET_PROC, CAP_GET_FLAG, CAP_FREE, CAP_INIT, CAP_SET_PROC, CAP_GET_AMBIENT, CAP_RESET_AMBIENT, CAP_NSYMS };
static void *cap_syms[CAP_NSYMS];
static void *cap_handle;
static char cap_error[256];
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;

static void cap_open(void)
{
	cap_handle = dl_lib_load(LIBCAP_SONAME, cap_names, cap_syms, CAP_NSYMS, cap_error, sizeof(cap_error));
}

static int cap_lib(void)
{
	pthread_once(&cap_once, cap_open);
	if (!cap_handle)
		return dl_fail(-ENOSYS, "cannot load %s for the capabilities: %s: install the Debian package libcap2",
			       LIBCAP_SONAME, cap_error);
	return 0;
}

#define CAPF(i, type) ((type)cap_syms[i])

DL_EXPORT int dl_have_cap_sys_nice(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps;
	int err = cap_lib();

	if (err)
		return err;
	caps = CAPF(CAP_GET_PROC, cap_t (*)(void))();
	if (!caps)
		return dl_fail(-errno, "cannot read the capabilities: %s", strerror(errno));
	if (CAPF(CAP_GET_FLAG, int (*)(cap_t, cap_value_t, cap_flag_t, cap_flag_value_t *))(caps, CAP_SYS_NICE,
											       CAP_EFFECTIVE, &v) < 0)
		v = CAP_CLEAR;
	CAPF(CAP_FREE, int (*)(void *))(caps);
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
	uid_t r, e, s;
	int err;

	if (getresuid(&r, &e, &s) == 0 && r == 0 && e == 0)
		return 0;
	err = cap_lib();
	if (err)
		return err;
	if (CAPF(CAP_GET_AMBIENT, int (*)(cap_value_t))(CAP_CHOWN) >= 0 &&
	    CAPF(CAP_RESET_AMBIENT, int (*)(void))() < 0)
		return dl_fail(-errno, "cannot clear the ambient capabilities: %s", strerror(errno));
	none = CAPF(CAP_INIT, cap_t (*)(void))();
	if (!none)
		return dl_fail(-errno, "cannot clear the capabilities: %s", strerror(errno));
	if (CAPF(CAP_SET_PROC, int (*)(cap_t))(none) < 0)
		err = dl_fail(-errno, "cannot clear the capabilities: %s", strerror(errno));
	CAPF(CAP_FREE, int (*)(void *))(none);
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
