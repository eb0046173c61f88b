/*
 * attr.c: sched_setattr(2)/sched_getattr(2) for deadline reservations.
 *
 * The kernel's struct sched_attr is mirrored under a private name: glibc
 * 2.41 declares its own in <sched.h>, older glibc none, and <sched.h> with
 * <linux/sched/types.h> does not compile on glibc 2.36.  The struct is 56
 * bytes (with the utilization clamps); a kernel that knows only the
 * 48-byte version answers E2BIG and writes its own size back, and the call
 * is retried with that size.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "internal.h"

_Static_assert(sizeof(struct dl_sched_attr) == DL_ATTR_SIZE_VER1,
	       "struct dl_sched_attr must match the kernel's SCHED_ATTR_SIZE_VER1");
_Static_assert(offsetof(struct dl_sched_attr, sched_util_min) == DL_ATTR_SIZE_VER0,
	       "the clamp fields start after SCHED_ATTR_SIZE_VER0");

static int raw_setattr(pid_t tid, struct dl_sched_attr *attr)
{
#if HAVE_SCHED_SETATTR
	/* glibc's struct has the kernel's layout, checked above for ours. */
	if (sched_setattr(tid, (struct sched_attr *)attr, 0) < 0)
		return -errno;
#else
	if (syscall(SYS_sched_setattr, tid, attr, 0) < 0)
		return -errno;
#endif
	return 0;
}

static int raw_getattr(pid_t tid, struct dl_sched_attr *attr, unsigned int size)
{
#if HAVE_SCHED_SETATTR
	if (sched_getattr(tid, (struct sched_attr *)attr, size, 0) < 0)
		return -errno;
#else
	if (syscall(SYS_sched_getattr, tid, attr, size, 0) < 0)
		return -errno;
#endif
	return 0;
}

int dl_sys_setattr(pid_t tid, struct dl_sched_attr *attr)
{
	int err;

	attr->size = DL_ATTR_SIZE_VER1;
	err = raw_setattr(tid, attr);
	if (err == -E2BIG && attr->size == DL_ATTR_SIZE_VER0) {
		/* A kernel without clamps: fine unless clamps were asked for. */
		if (attr->sched_flags & (DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX))
			return -EOPNOTSUPP;
		err = raw_setattr(tid, attr);
	}
	return err;
}

int dl_sys_getattr(pid_t tid, struct dl_sched_attr *attr)
{
	int err;

	memset(attr, 0, sizeof(*attr));
	err = raw_getattr(tid, attr, DL_ATTR_SIZE_VER1);
	if (err == -E2BIG || err == -EFBIG) {
		memset(attr, 0, sizeof(*attr));
		err = raw_getattr(tid, attr, DL_ATTR_SIZE_VER0);
	}
	return err;
}

/*
 * Leave SCHED_DEADLINE for the policy in `attr`.
 *
 * A kernel bug (seen on 6.18): a thread that is asleep when it leaves
 * SCHED_DEADLINE never gives its bandwidth back to the root domain's
 * total_bw (it is released only through the 0-lag timer, which a
 * sleeping thread never arms).  A change of reservation is accounted at
 * once, so the thread first shrinks to the smallest one, whose bandwidth
 * rounds to 0, then leaves.
 *
 * Not the calling thread: it is running, so the leak does not apply, and
 * with 1024 ns for the longest period it could be throttled for seconds
 * before its second call.
 */
int dl_sys_leave(pid_t tid, struct dl_sched_attr *attr)
{
	struct dl_sched_attr cur, tiny;
	uint64_t max;
	int err;

	if (tid != 0 && tid != gettid() && dl_sys_getattr(tid, &cur) == 0 &&
	    cur.sched_policy == DL_SCHED_DEADLINE) {
		dl_period_limits(NULL, &max);
		memset(&tiny, 0, sizeof(tiny));
		tiny.sched_policy = DL_SCHED_DEADLINE;
		tiny.sched_runtime = 1024;
		tiny.sched_deadline = tiny.sched_period = max;
		err = dl_sys_setattr(tid, &tiny);
		if (err && err != -EPERM)
			return err;
	}
	return dl_sys_setattr(tid, attr);
}

void dl_attr_from_params(struct dl_sched_attr *a, const struct dl_params *p)
{
	memset(a, 0, sizeof(*a));
	a->sched_policy = DL_SCHED_DEADLINE;
	a->sched_flags = p->flags;
	a->sched_runtime = p->runtime;
	a->sched_deadline = p->deadline;
	a->sched_period = p->period;
	a->sched_util_min = p->util_min;
	a->sched_util_max = p->util_max;
}

void dl_params_from_attr(struct dl_params *p, const struct dl_sched_attr *a)
{
	memset(p, 0, sizeof(*p));
	p->runtime = a->sched_runtime;
	p->deadline = a->sched_deadline;
	p->period = a->sched_period;
	/* Only the flags a reservation carries, not the kernel's KEEP_*
	 * request modifiers. */
	p->flags = a->sched_flags & (DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN);
	p->util_min = a->sched_util_min;
	p->util_max = a->sched_util_max;
}

DL_EXPORT int dl_set(pid_t tid, const struct dl_params *p)
{
	struct dl_sched_attr attr;
	struct dl_params norm;
	int err;

	if (tid < 0)
		return dl_fail(-EINVAL, "invalid thread id %d", (int)tid);
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	dl_attr_from_params(&attr, &norm);
	err = dl_sys_setattr(tid, &attr);
	if (err)
		return dl_explain_set_failure(err, tid, &norm);
	return 0;
}

DL_EXPORT int dl_set_owned(pid_t tid, const struct dl_params *p)
{
	int fd, err;

	if (tid == 0 || tid == gettid())
		return dl_set(0, p); /* the caller's own thread */
	if (tid < 0)
		return dl_fail(-EINVAL, "invalid thread id %d", (int)tid);
	fd = dl_thread_open(0, tid);
	if (fd < 0)
		return fd;
	err = dl_owner_check(fd, tid);
	if (!err)
		err = dl_set(tid, p);
	if (!err)
		err = dl_owner_after(fd, tid, p);
	close(fd);
	return err;
}

DL_EXPORT int dl_get(pid_t tid, struct dl_params *p)
{
	struct dl_sched_attr attr;
	int err;

	err = dl_sys_getattr(tid, &attr);
	if (err == -ESRCH)
		return dl_fail(err, "no thread %d", (int)tid);
	if (err)
		return dl_fail(err, "sched_getattr(%d): %s", (int)tid, strerror(-err));
	if (attr.sched_policy == DL_SCHED_DEADLINE)
		dl_params_from_attr(p, &attr);
	else
		memset(p, 0, sizeof(*p));
	return (int)attr.sched_policy;
}

DL_EXPORT int dl_clear(pid_t tid)
{
	struct dl_sched_attr attr;
	int err, nice;

	err = dl_sys_getattr(tid, &attr);
	if (err == -ESRCH)
		return dl_fail(err, "no thread %d", (int)tid);
	if (err)
		return dl_fail(err, "sched_getattr(%d): %s", (int)tid, strerror(-err));
	/* Back to SCHED_OTHER, keeping the thread's nice value: for a
	 * deadline task sched_getattr() reports nice 0, getpriority() the
	 * static priority it kept. */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	attr.sched_nice = errno ? 0 : nice;
	attr.sched_policy = SCHED_OTHER;
	attr.sched_flags = 0;
	attr.sched_priority = 0;
	attr.sched_runtime = attr.sched_deadline = attr.sched_period = 0;
	err = dl_sys_leave(tid, &attr);
	if (err == -EPERM && !dl_have_cap_sys_nice())
		return dl_fail(err, "cannot change thread %d's policy: no CAP_SYS_NICE (run as root)", (int)tid);
	if (err)
		return dl_fail(err, "cannot change thread %d's policy: %s", (int)tid, strerror(-err));
	return 0;
}

/* What a thread had before dl_set_process() changed it. */
struct saved {
	pid_t tid;
	int err;
	bool foreign; /* refused: not the caller's (DL_PROC_OWNED) */
	bool set;  /* we changed it: restore it on rollback */
	bool gone; /* exited during the walk: not reported */
	struct dl_sched_attr old;
};

static bool seen(const struct saved *s, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].tid == tid)
			return true;
	return false;
}

static void set_one(pid_t pid, struct saved *s, const struct dl_params *p, unsigned int flags)
{
	struct dl_sched_attr attr;
	int fd = -1;

	if (flags & DL_PROC_OWNED) {
		fd = dl_thread_open(pid, s->tid);
		if (fd < 0) {
			s->gone = true;
			return;
		}
		if (dl_owner_check(fd, s->tid) < 0) {
			s->err = -EPERM;
			s->foreign = true;
			close(fd);
			return;
		}
	}
	s->err = dl_sys_getattr(s->tid, &s->old);
	if (!s->err) {
		dl_attr_from_params(&attr, p);
		s->err = dl_sys_setattr(s->tid, &attr);
	}
	if (fd >= 0) {
		if (!s->err && dl_owner_after(fd, s->tid, p) < 0)
			s->err = -ESRCH; /* not ours to keep or restore */
		close(fd);
	}
	if (s->err == -ESRCH) {
		s->gone = true;
		s->err = 0;
	}
	s->set = !s->err && !s->gone;
}

/* One pass over /proc/PID/task; returns how many new threads it found. */
static int set_pass(pid_t pid, const struct dl_params *p, unsigned int flags,
		    struct saved **sv, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(dir))) {
		pid_t tid = dl_parse_pid(de->d_name);

		if (tid <= 0 || seen(*sv, *n, tid))
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct saved *ns = realloc(*sv, ncap * sizeof(**sv));

			if (!ns) {
				closedir(dir);
				return -ENOMEM;
			}
			*sv = ns;
			*cap = ncap;
		}
		memset(&(*sv)[*n], 0, sizeof(**sv));
		(*sv)[*n].tid = tid;
		set_one(pid, &(*sv)[(*n)++], p, flags);
		found++;
	}
	closedir(dir);
	return found;
}

static void restore(struct saved *sv, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		if (!sv[i].set)
			continue;
		if (sv[i].old.sched_policy == DL_SCHED_DEADLINE)
			dl_sys_setattr(sv[i].tid, &sv[i].old);
		else
			dl_sys_leave(sv[i].tid, &sv[i].old);
	}
}

DL_EXPORT int dl_set_process(pid_t pid, const struct dl_params *p, unsigned int flags,
			     struct dl_thread_status **status, size_t *count)
{
	struct dl_thread_status *st = NULL;
	struct saved *sv = NULL, *first = NULL;
	struct dl_params norm;
	size_t n = 0, cap = 0, live = 0, nfailed = 0, k = 0;
	int err, found;

	if (status)
		*status = NULL;
	if (count)
		*count = 0;
	if (pid <= 0)
		return dl_fail(-EINVAL, "invalid process id %d", (int)pid);
	if (flags & ~(unsigned int)(DL_PROC_PARTIAL | DL_PROC_OWNED))
		return dl_fail(-EINVAL, "unknown flags 0x%x", flags);
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;

	/* Threads started during the walk appear in a later pass; a pass
	 * that finds none new ends it. */
	do {
		found = set_pass(pid, &norm, flags, &sv, &n, &cap);
	} while (found > 0);
	if (found < 0 && !(found == -ESRCH && n > 0)) {
		restore(sv, n);
		free(sv);
		if (found == -ESRCH)
			return dl_fail(found, "no process %d", (int)pid);
		return dl_fail(found, "cannot list the threads of process %d: %s",
			       (int)pid, strerror(-found));
	}

	for (size_t i = 0; i < n; i++) {
		if (sv[i].gone)
			continue;
		live++;
		if (sv[i].err && nfailed++ == 0)
			first = &sv[i];
	}
	if (live == 0) {
		free(sv);
		return dl_fail(-ESRCH, "process %d exited", (int)pid);
	}
	if (status) {
		st = calloc(live, sizeof(*st));
		if (!st) {
			restore(sv, n);
			free(sv);
			return dl_fail(-ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < n; i++) {
			if (sv[i].gone)
				continue;
			st[k].tid = sv[i].tid;
			st[k++].err = sv[i].err;
		}
		*status = st;
		if (count)
			*count = live;
	}
	if (nfailed) {
		/* Explain the first failure; every one is in the status list. */
		if (first->foreign) {
			int fd = dl_thread_open(pid, first->tid);

			err = fd >= 0 ? dl_owner_check(fd, first->tid) : -EPERM;
			if (fd >= 0)
				close(fd);
			if (!err)
				err = dl_fail(-EPERM, "thread %d is not the caller's", (int)first->tid);
		} else
			err = dl_explain_set_failure(first->err, first->tid, &norm);
		if (!(flags & DL_PROC_PARTIAL))
			restore(sv, n);
		dl_fail_ctx(err, "%zu of %zu threads of process %d failed (thread %d: the first)%s",
			    nfailed, live, (int)pid, (int)first->tid,
			    flags & DL_PROC_PARTIAL ? "" : "; the others were restored");
		free(sv);
		return err;
	}
	free(sv);
	return (int)live;
}
