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
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "sys/sys.h"

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

static int raw_getattr(pid_t tid, struct dl_sched_attr *attr, unsigned int size, unsigned int flags)
{
#if HAVE_SCHED_SETATTR
	if (sched_getattr(tid, (struct sched_attr *)attr, size, flags) < 0)
		return -errno;
#else
	if (syscall(SYS_sched_getattr, tid, attr, size, flags) < 0)
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

static int getattr_flags(pid_t tid, struct dl_sched_attr *attr, unsigned int flags)
{
	int err;

	memset(attr, 0, sizeof(*attr));
	err = raw_getattr(tid, attr, DL_ATTR_SIZE_VER1, flags);
	if (err == -E2BIG || err == -EFBIG) {
		memset(attr, 0, sizeof(*attr));
		err = raw_getattr(tid, attr, DL_ATTR_SIZE_VER0, flags);
	}
	return err;
}

int dl_sys_getattr(pid_t tid, struct dl_sched_attr *attr)
{
	return getattr_flags(tid, attr, 0);
}

/*
 * Whether sched_getattr(2) takes SCHED_GETATTR_FLAG_DL_DYNAMIC
 * (docs/kernel-notes.md, "The budget left: SCHED_GETATTR_FLAG_DL_DYNAMIC"):
 * 1 yes, 0 no, found once per process.  A kernel without it refuses
 * any flag with EINVAL before it looks the thread up; one with it looks
 * the thread up first, so a pid no thread can have (above PID_MAX_LIMIT)
 * answers ESRCH there and EINVAL only where the flag is unknown.  The
 * EINVAL of a thread that is not SCHED_DEADLINE is never taken for the
 * kernel's.  An answer that is neither (a seccomp filter's) is not kept:
 * a negative errno, asked again next time.
 */
int dl_sys_dl_dynamic(void)
{
	static int known; /* 0: not asked yet; 1: yes; -1: no */
	struct dl_sched_attr attr;
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	int err;

	if (k)
		return k > 0;
	dl_test_point("dl-dynamic-probe");
	err = getattr_flags(INT_MAX, &attr, DL_GETATTR_FLAG_DL_DYNAMIC);
	if (err == -ESRCH)
		k = 1;
	else if (err == -EINVAL)
		k = -1;
	else
		return err ? err : -EIO;
	__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	return k > 0;
}

DL_EXPORT int dl_get_budget(pid_t tid, struct dl_budget *b)
{
	struct dl_sched_attr attr;
	int err;

	if (!b)
		return dl_fail(-EINVAL, "dl_get_budget: no struct dl_budget to fill in");
	memset(b, 0, sizeof(*b));
	if (tid < 0)
		return dl_fail(-EINVAL, "dl_get_budget: thread id %d is negative (0 is the calling thread)", (int)tid);
	err = dl_sys_dl_dynamic();
	if (err == 0)
		return dl_fail(-ENOTSUP, "this kernel does not report the runtime left and the absolute deadline "
			       "(sched_getattr's SCHED_GETATTR_FLAG_DL_DYNAMIC came with Linux 7.1)");
	if (err < 0)
		return dl_fail(err, "sched_getattr(SCHED_GETATTR_FLAG_DL_DYNAMIC): %s", strerror(-err));
	err = getattr_flags(tid, &attr, DL_GETATTR_FLAG_DL_DYNAMIC);
	if (err == -ESRCH)
		return dl_fail(err, "no thread %d", (int)tid);
	/* The kernel takes the flag: its EINVAL is for the thread's policy. */
	if (err == -EINVAL)
		return dl_fail(err, "thread %d is not SCHED_DEADLINE: it has no budget (dl_set(3) gives it one)",
			       (int)tid);
	if (err)
		return dl_fail(err, "sched_getattr(%d, SCHED_GETATTR_FLAG_DL_DYNAMIC): %s", (int)tid, strerror(-err));
	/* The kernel's runtime is signed: below zero once the job overran
	 * and was throttled, until the replenishment. */
	b->runtime = (int64_t)attr.sched_runtime;
	b->deadline = attr.sched_deadline;
	return 0;
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

DL_EXPORT int dl_get(pid_t tid, struct dl_params *p)
{
	struct dl_sched_attr attr;
	struct dl_params local;
	int err;

	/* p may be NULL: the policy alone. */
	if (!p)
		p = &local;
	memset(p, 0, sizeof(*p));
	err = dl_sys_getattr(tid, &attr);
	if (err == -ESRCH)
		return dl_fail(err, "no thread %d", (int)tid);
	if (err)
		return dl_fail(err, "sched_getattr(%d): %s", (int)tid, strerror(-err));
	if (attr.sched_policy == DL_SCHED_DEADLINE)
		dl_params_from_attr(p, &attr);
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
