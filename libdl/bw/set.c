/*
 * set.c: setting a reservation (dl_set, dl_set_owned, dl_set_process),
 * and when the kernel refuses it, saying why (explain.c): the raw calls
 * are attr.c's, below.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw/bw.h"

DL_EXPORT int dl_set(pid_t tid, const struct dl_params *p)
{
	struct dl_sched_attr attr;
	struct dl_params norm;
	int err;

	if (tid < 0)
		return dl_fail(-EINVAL, "invalid thread id %d", (int)tid);
	/* The period limits are the kernel's own check: read (two files of
	 * /proc/sys) only to explain its EINVAL, not before every call. */
	err = dl_params_normalize_rules(p, &norm);
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
	struct dl_params norm;
	struct dl_held h;
	int err;

	if (tid == 0 || tid == gettid())
		return dl_set(0, p); /* the caller's own thread */
	if (tid < 0)
		return dl_fail(-EINVAL, "invalid thread id %d", (int)tid);
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	err = dl_held_open(0, tid, DL_PROC_OWNED, &h);
	if (err)
		return err;
	if (h.foreign) {
		err = dl_owner_check(h.fd, tid);
		if (!err)
			err = dl_fail(-EPERM, "thread %d is not the caller's", (int)tid);
	} else {
		dl_held_set(&h, &norm, DL_PROC_OWNED);
		err = dl_held_result(&h, &norm);
	}
	close(h.fd);
	return err;
}

/*
 * A thread is held from its check to its rollback by a descriptor of its
 * /proc directory and its start time: its id may go to another thread
 * once it exits, the descriptor stops answering instead.
 *
 * sched_setattr(2) names a thread by its number alone, so no change is
 * one step with the check.  Each change (held_apply) asks the descriptor
 * right before it, reads the thread's attributes, asks again (what was
 * read is the held thread's), changes it, and asks once more.  A thread
 * found gone before the change is not changed.  One found gone after it
 * may have given its id to another thread in the moment between the last
 * question and the call: a thread there that now has exactly the
 * reservation sent is never left with it (undo_reused; dl-run(1) SECURITY
 * says what this guarantees; docs/kernel-notes.md, "A thread id names
 * whichever thread has it now").  The rollback changes the same way.
 */
int dl_held_open(pid_t pid, pid_t tid, unsigned int flags, struct dl_held *h)
{
	memset(h, 0, sizeof(*h));
	h->tid = tid;
	h->fd = dl_thread_open(pid, tid);
	if (h->fd < 0) {
		h->gone = true;
		return h->fd;
	}
	if (dl_thread_start(h->fd, &h->start) < 0) {
		close(h->fd);
		h->fd = -1;
		h->gone = true;
		return dl_fail(-ESRCH, "no thread %d", (int)tid);
	}
	if ((flags & DL_PROC_OWNED) && !dl_owner_is_caller(h->fd)) {
		h->err = -EPERM;
		h->foreign = true;
	}
	dl_test_point("held");
	return 0;
}

/* Still the thread that was checked: alive, started when it was, and
 * (DL_PROC_OWNED) still the caller's. */
static bool held_same(const struct dl_held *h, unsigned int flags)
{
	unsigned long long start;

	return dl_thread_start(h->fd, &start) == 0 && start == h->start &&
	       (!(flags & DL_PROC_OWNED) || dl_owner_is_caller(h->fd));
}

static bool attr_is(const struct dl_sched_attr *a, const struct dl_sched_attr *want)
{
	if (a->sched_policy != want->sched_policy)
		return false;
	if (want->sched_policy == DL_SCHED_DEADLINE)
		return a->sched_runtime == want->sched_runtime && a->sched_deadline == want->sched_deadline &&
		       a->sched_period == want->sched_period;
	return a->sched_priority == want->sched_priority && a->sched_nice == want->sched_nice;
}

/*
 * After a call on h that found it gone: if its id already named another
 * thread, that one got sent.  It is never left a reservation meant for
 * another: back to what was read before the call when that was none,
 * else to SCHED_OTHER (dl_clear keeps its nice value).  What a call that
 * sets no reservation gave it cannot be told from its own: left.
 */
static void undo_reused(const struct dl_held *h, const struct dl_sched_attr *sent, struct dl_sched_attr *before)
{
	struct dl_sched_attr now;

	if (sent->sched_policy != DL_SCHED_DEADLINE || dl_sys_getattr(h->tid, &now) < 0 || !attr_is(&now, sent))
		return;
	if (before->sched_policy != DL_SCHED_DEADLINE)
		dl_sys_leave(h->tid, before);
	else
		dl_clear(h->tid);
}

/* One call on the held thread, asked for right before and after it. */
static int held_call(const struct dl_held *h, struct dl_sched_attr *attr, struct dl_sched_attr *before,
		     unsigned int flags)
{
	int err;

	if (!held_same(h, flags))
		return -ESRCH;
	dl_test_point("set");
	err = dl_sys_setattr(h->tid, attr);
	if (err || held_same(h, flags))
		return err;
	undo_reused(h, attr, before);
	return -ESRCH;
}

/* want on the held thread, what it had read into *before: 0; -ESRCH when
 * it is gone (or no longer the caller's); or the kernel's error. */
static int held_apply(const struct dl_held *h, struct dl_sched_attr *want, struct dl_sched_attr *before,
		      unsigned int flags)
{
	struct dl_sched_attr tiny;
	uint64_t max;
	int err;

	if (!held_same(h, flags))
		return -ESRCH;
	err = dl_sys_getattr(h->tid, before);
	if (err)
		return err;
	if (before->sched_policy == DL_SCHED_DEADLINE && want->sched_policy != DL_SCHED_DEADLINE) {
		/* Out of SCHED_DEADLINE through a tiny reservation first
		 * (dl_sys_leave: the bandwidth is given back at once). */
		dl_period_limits(NULL, &max);
		memset(&tiny, 0, sizeof(tiny));
		tiny.sched_policy = DL_SCHED_DEADLINE;
		tiny.sched_runtime = 1024;
		tiny.sched_deadline = tiny.sched_period = max;
		err = held_call(h, &tiny, before, flags);
		if (err && err != -EPERM)
			return err;
	}
	return held_call(h, want, before, flags);
}

void dl_held_set(struct dl_held *h, const struct dl_params *p, unsigned int flags)
{
	struct dl_sched_attr attr;

	if (h->gone || h->err)
		return;
	dl_attr_from_params(&attr, p);
	h->err = held_apply(h, &attr, &h->old, flags);
	if (h->err == -ESRCH) {
		h->gone = true;
		h->err = 0;
	}
	h->set = !h->err && !h->gone;
}

int dl_held_result(const struct dl_held *h, const struct dl_params *p)
{
	if (h->gone)
		return dl_fail(-ESRCH, "thread %d exited (or changed its owner) during its change: nothing is left changed (its id may be another thread's now, which was left or set back as it was read)",
			       (int)h->tid);
	return h->err ? dl_explain_set_failure(h->err, h->tid, p) : 0;
}

void dl_held_restore(struct dl_held *h, size_t n, unsigned int flags)
{
	if (dl_test_hooks && dl_test_hooks->before_restore)
		dl_test_hooks->before_restore();
	for (size_t i = n; i-- > 0;) {
		struct dl_sched_attr cur;

		if (!h[i].set)
			continue;
		h[i].set = false;
		/* Exited: its reservation went with it, and its id may be
		 * another thread's now.  No longer the caller's (it changed its
		 * uid): not the caller's to change back.  held_apply asks. */
		held_apply(&h[i], &h[i].old, &cur, flags);
	}
}

void dl_held_close(struct dl_held *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].fd >= 0)
			close(h[i].fd);
	free(h);
}

static bool seen(const struct dl_held *s, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].tid == tid)
			return true;
	return false;
}

/* One pass over /proc/PID/task; returns how many new threads it found. */
static int set_pass(pid_t pid, const struct dl_params *p, unsigned int flags,
		    struct dl_held **sv, size_t *n, size_t *cap)
{
	pid_t *tids;
	size_t count;
	int found = 0, err = dl_threads_list(pid, &tids, &count);

	if (err)
		return err;
	for (size_t i = 0; i < count; i++) {
		pid_t tid = tids[i];

		if (seen(*sv, *n, tid))
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct dl_held *ns = realloc(*sv, ncap * sizeof(**sv));

			if (!ns) {
				free(tids);
				return -ENOMEM;
			}
			*sv = ns;
			*cap = ncap;
		}
		err = dl_held_open(pid, tid, flags, &(*sv)[(*n)++]);
		if (err == -EMFILE) {
			free(tids);
			return err;
		}
		dl_held_set(&(*sv)[*n - 1], p, flags);
		found++;
	}
	free(tids);
	return found;
}

int dl_held_finish(pid_t pid, struct dl_held *sv, size_t n, const struct dl_params *p, unsigned int flags,
		   struct dl_thread_status **status, size_t *count)
{
	struct dl_thread_status *st = NULL;
	struct dl_held *first = NULL;
	size_t live = 0, nfailed = 0, k = 0;
	int err;

	for (size_t i = 0; i < n; i++) {
		if (sv[i].gone)
			continue;
		live++;
		if (sv[i].err && nfailed++ == 0)
			first = &sv[i];
	}
	if (live == 0)
		return dl_fail(-ESRCH, "process %d exited", (int)pid);
	if (status) {
		st = calloc(live, sizeof(*st));
		if (!st) {
			dl_held_restore(sv, n, flags);
			return dl_fail(-ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < n; i++) {
			if (sv[i].gone)
				continue;
			st[k].tid = sv[i].tid;
			st[k++].err = sv[i].err;
		}
		*status = st;
	}
	if (count)
		*count = live;
	if (!nfailed)
		return (int)live;
	/* Explain the first failure; every one is in the status list. */
	if (first->foreign) {
		err = dl_owner_check(first->fd, first->tid);
		if (!err)
			err = dl_fail(-EPERM, "thread %d is not the caller's", (int)first->tid);
	} else {
		err = dl_explain_set_failure(first->err, first->tid, p);
	}
	if (!(flags & DL_PROC_PARTIAL))
		dl_held_restore(sv, n, flags);
	return dl_fail_ctx(err, "%zu of %zu threads of process %d failed (thread %d: the first)%s",
			   nfailed, live, (int)pid, (int)first->tid,
			   flags & DL_PROC_PARTIAL ? "" : "; the others were restored");
}

DL_EXPORT int dl_set_process(pid_t pid, const struct dl_params *p, unsigned int flags,
			     struct dl_thread_status **status, size_t *count)
{
	struct dl_held *sv = NULL;
	struct dl_params norm;
	size_t n = 0, cap = 0;
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
		dl_held_restore(sv, n, flags);
		dl_held_close(sv, n);
		if (found == -ESRCH)
			return dl_fail(found, "no process %d", (int)pid);
		if (found == -EMFILE)
			return dl_fail(found, "cannot hold the threads of process %d: this process may open no more files (each thread is held by a descriptor of its /proc directory until its change is final; raise ulimit -n)",
				       (int)pid);
		return dl_fail(found, "cannot list the threads of process %d: %s", (int)pid, strerror(-found));
	}
	err = dl_held_finish(pid, sv, n, &norm, flags, status, count);
	dl_held_close(sv, n);
	return err;
}
