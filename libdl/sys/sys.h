/*
 * sys.h: the bottom layer of libdeadline (libdl/README): errors, small
 * file readers, the raw sched_setattr(2) calls, parameters and times,
 * threads and their owners, the live deadline threads of /proc.  Files
 * of this layer include no other internal header.  Never installed,
 * never exported; tests link the internal convenience library and may
 * call these.
 */
#ifndef LIBDL_SYS_H
#define LIBDL_SYS_H

#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "libdeadline.h"

#define DL_EXPORT __attribute__((visibility("default")))
/*
 * An ELF note that names a library loaded at run time (dlopen), so that
 * packaging tools see the dependency that DT_NEEDED does not show: the
 * ".note.dlopen" note of https://systemd.io/ELF_DLOPEN_METADATA/, owner
 * "FDO", type 0x407c0c0a, a JSON array of the features, their priority
 * and the sonames loaded for them.  One per translation unit and id.
 */
#define DL_ELF_NOTE_DLOPEN(id, json)                                                  \
	__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct {  \
		uint32_t n_namesz, n_descsz, n_type;                                  \
		char name[sizeof("FDO")];                                             \
		_Alignas(4) char desc[sizeof(json)];                                  \
	} dl_note_dlopen_##id = { sizeof("FDO"), sizeof(json), 0x407c0c0a, "FDO", json }
#define DL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* error.c: record why a call failed; returns err (a negative errno). */
int dl_fail(int err, const char *fmt, ...) DL_PRINTF(2, 3);
int dl_failv(int err, const char *fmt, va_list ap);
/* Prefix the current message with "context: ". */
int dl_fail_ctx(int err, const char *fmt, ...) DL_PRINTF(2, 3);

/* error.c: the reserved space of a struct the caller passed in is all
 * zeros (libdl/ABI); else fails with EINVAL naming what. */
int dl_reserved_check(const void *reserved, size_t len, const char *what);

/* file.c: small files read and written whole.  Return 0 or a negative
 * errno; never set dl_errmsg (callers know what the file meant), but
 * dl_file_replace, which is public (libdeadline.h). */
/* snprintf that says -ENAMETOOLONG instead of truncating. */
int dl_pathf(char *buf, size_t len, const char *fmt, ...) DL_PRINTF(3, 4);
int dl_read_file(const char *path, char *buf, size_t len);
/* A formatter's text into the caller's buffer, or NULL with errno ERANGE
 * (buf left "") when it does not fit (units.c). */
char *dl_fmt_out(const char *text, char *buf, size_t len, const char *what, const char *constant);
/* A number as the kernel writes it (a sysctl, a cgroup or debugfs file). */
int dl_parse_s64(const char *text, int64_t *val);
int dl_read_u64(const char *path, uint64_t *val);
int dl_read_s64(const char *path, int64_t *val);
int dl_write_file(const char *path, const char *text);
/* Is path base, or below it ('/' after base)?  Cgroup paths as
 * /proc/PID/cgroup and the layout write them, with or without the leading
 * '/'.  A root ("" or "/") holds nothing: it is no one's. */
bool dl_path_within(const char *path, const char *base);

/* state-dir.c: the library's state folder (/run/libdl, or the test
 * hooks' state_dir), root's alone: a file's path in it; a file or folder
 * found there judged (a link, another owner, or a mode in `others`
 * refused with a message); the folder made when missing and judged. */
#define DL_STATE_DIR "/run/libdl"
struct stat;
const char *dl_state_dir(void);
int dl_state_path(char *buf, size_t len, const char *file);
int dl_state_trusted_mode(const struct stat *st, const char *path, mode_t type, mode_t others);
int dl_state_trusted(const struct stat *st, const char *path, mode_t type); /* others may not write */
int dl_state_dir_make(void);
/* A lock file of the folder held (F_OFD_SETLK, the holder's pid written):
 * the fd to close, or -EBUSY after wait_ms with busy and the holder. */
int dl_state_lock(const char *file, unsigned int wait_ms, const char *busy);

/* cpus.c: CPU set arithmetic, in place on a; the lowest CPU of a set, -1
 * when it is empty; a file holding a CPU (or node) list, parsed. */
void dl_cpus_and(dl_cpus_t *a, const dl_cpus_t *b);
void dl_cpus_or(dl_cpus_t *a, const dl_cpus_t *b);
void dl_cpus_andnot(dl_cpus_t *a, const dl_cpus_t *b);
int dl_cpus_first(const dl_cpus_t *s);
int dl_read_cpus(const char *path, dl_cpus_t *set);

/* proc.c: what /proc says of threads. */
/* Field n of /proc/TID/stat, counted as in proc(5) (3 and above). */
int dl_task_stat_field(pid_t tid, int n, unsigned long long *val);
/* The same, of the thread whose /proc directory dirfd is. */
int dl_stat_field_at(int dirfd, int n, unsigned long long *val);
/* The one pid parser: digits only, 1..INT_MAX, else -1. */
pid_t dl_parse_pid(const char *s);
/* The first n numbers of line `name` of a status file (openat(dirfd, file)). */
int dl_status_ids(int dirfd, const char *file, const char *name, unsigned long long *v, int n);
pid_t dl_task_tgid(pid_t tid); /* its process; tid itself when unknown */
size_t dl_count_dir(const char *path); /* entries named by a pid */
/* A kernel thread that no cpuset may take (PF_NO_SETAFFINITY). */
bool dl_task_pinned(pid_t tid);

/* clock.c */
uint64_t dl_now_ns(void); /* CLOCK_MONOTONIC */
void dl_sleep_ns(uint64_t ns);
uint64_t dl_thread_cpu_ns(void); /* CLOCK_THREAD_CPUTIME_ID */
void dl_sleep_until(uint64_t t); /* a CLOCK_MONOTONIC instant */

/* libload.c: an optional library, loaded at run time and never unloaded:
 * names[i] resolved into syms[i].  Its handle, or NULL with why in err. */
void *dl_lib_load(const char *soname, const char *const *names, void **syms, size_t n,
		  char *err, size_t errlen);

/* attr.c: the raw syscalls, with the kernel's struct sched_attr under a
 * private name (glibc 2.41 declares its own). */
struct dl_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};
#define DL_ATTR_SIZE_VER0 48
#define DL_ATTR_SIZE_VER1 56
int dl_sys_setattr(pid_t tid, struct dl_sched_attr *attr);
int dl_sys_getattr(pid_t tid, struct dl_sched_attr *attr);
/* sched_getattr(2)'s flag for the runtime left and the absolute deadline
 * (Linux 7.1); dl_sys_dl_dynamic(): whether the kernel takes it, 1 or 0,
 * found once per process (or a negative errno, not kept). */
#define DL_GETATTR_FLAG_DL_DYNAMIC 0x01
int dl_sys_dl_dynamic(void);
/* From SCHED_DEADLINE to attr's policy without leaking bandwidth. */
int dl_sys_leave(pid_t tid, struct dl_sched_attr *attr);
void dl_attr_from_params(struct dl_sched_attr *a, const struct dl_params *p);
void dl_params_from_attr(struct dl_params *p, const struct dl_sched_attr *a);

/* owner.c: the kernel's owner rule for callers holding CAP_SYS_NICE.
 * dl_thread_open: a descriptor of /proc/[PID/task/]TID (-EMFILE when
 * no more files may be opened, else -ESRCH); dl_thread_start: the
 * thread's start time read through it (-ESRCH once it has exited);
 * dl_owner_check: 0 when the caller may change the thread, else -EPERM
 * saying whose it is. */
int dl_thread_open(pid_t pid, pid_t tid);
int dl_thread_start(int dirfd, unsigned long long *start);
int dl_owner_check(int dirfd, pid_t tid);
/* The same rule, quietly (no message): the thread is alive and the
 * caller's. */
bool dl_owner_is_caller(int dirfd);

/* params.c: parameters as the kernel checks them (units.c writes and
 * reads them as text). */
/* The kernel's defaults: the period limits (sched_deadline_period_*_us,
 * kernel/sched/deadline.c) and the real-time cap, sched_rt_runtime_us of
 * sched_rt_period_us (kernel/sched/rt.c). */
#define DL_PERIOD_MIN_US_DEFAULT 100ULL
#define DL_PERIOD_MAX_US_DEFAULT (1ULL << 22)
#define DL_DEFAULT_RT_RUNTIME_US 950000ULL
#define DL_DEFAULT_RT_PERIOD_US 1000000ULL
/* Every rule of the kernel's, the period limits of this host included. */
int dl_params_check(const struct dl_params *p);
/* The same without the period limits, which are a machine's (sysctls). */
int dl_params_check_rules(const struct dl_params *p);
/* dl_params_normalize() without the period limits. */
int dl_params_normalize_rules(const struct dl_params *in, struct dl_params *out);
/* The period of normalized p against a machine's limits; whose names
 * them in the message ("the kernel's", "the platform's"). */
int dl_params_check_period(const struct dl_params *p, uint64_t min, uint64_t max, const char *whose);
uint64_t dl_to_ratio(uint64_t period, uint64_t runtime);

/* thread.c: capabilities, and where a thread runs. */
int dl_task_cpu(pid_t tid);
int dl_task_affinity(pid_t tid, dl_cpus_t *set);
/* The threads of process pid (the one walk of /proc/PID/task). */
int dl_threads_list(pid_t pid, pid_t **tids, size_t *n);

/* scan.c: the live deadline threads; with details, their names,
 * cpusets and CPU time too.  Unsorted, no root domains. */
int dl_scan(pid_t only, bool details, struct dl_task **out, size_t *count);

/* signals.c: SIGINT, SIGTERM, SIGHUP and SIGQUIT held back in the
 * calling thread while the machine is changed (holds nest; the
 * outermost release delivers what came meanwhile), and the first of them
 * that came during the hold (0: none). */
void dl_sig_hold(sigset_t *old);
void dl_sig_release(const sigset_t *old);
int dl_sig_interrupted(void);
const char *dl_sig_name(int sig);

/* Test machinery.  NULL in the library: only the test builds of the
 * tools (tests/lib/hooks.c, never installed) fill it in, to make a step
 * of a layout change fail or the process die after it, and to point the
 * state at a folder of their own. */
struct dl_test_hooks {
	/* Before step n: 0 to go on, or a negative errno (via dl_fail) to fail it. */
	int (*step_begin)(int step, const char *what);
	/* After step n is done (may kill the process). */
	void (*step_done)(int step, const char *what);
	/* Before every system write (a cgroup made, written, removed, a task
	 * moved, the state saved): 0 to go on, or a negative errno (via
	 * dl_fail) to make that write fail. */
	int (*fault)(const char *site);
	bool no_precheck;      /* let the kernel find cpuset conflicts itself */
	const char *state_dir; /* instead of /run/libdl */
	const char *libsystemd; /* the soname cg-systemd.c loads instead of libsystemd.so.0 */
	const char *libcgroup;  /* the soname cgroup.c loads instead of libcgroup's */
	/* Before a failed change of threads is rolled back (bw/set.c): the
	 * tests end and reuse a thread's id there. */
	void (*before_restore)(void);
	/* At a named point of a change of threads (bw/set.c): "held", once
	 * a thread is held and its owner judged; "set", right before the
	 * sched_setattr(2) that changes it.  A test stops the process there
	 * (SIGSTOP) to race it. */
	void (*at)(const char *point);
	const char *tasks_dir; /* instead of /run/libdl-tasks (workload/publish.h) */
	const char *user_run_dir; /* instead of /run/user (workload/publish.h) */
	/* Counts the steps of the loops whose cost the tests bound (a
	 * lookup's probes, a table's rehash): work counted, not timed. */
	unsigned long long *work;
};
extern const struct dl_test_hooks *dl_test_hooks;

static inline void dl_test_point(const char *point)
{
	if (dl_test_hooks && dl_test_hooks->at)
		dl_test_hooks->at(point);
}

static inline void dl_count_work(unsigned long long n)
{
	if (dl_test_hooks && dl_test_hooks->work)
		*dl_test_hooks->work += n;
}

static inline int dl_fault(const char *site)
{
	return dl_test_hooks && dl_test_hooks->fault ? dl_test_hooks->fault(site) : 0;
}

#endif
