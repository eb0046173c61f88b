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

/*
 * A thread is held from its check to its rollback by a descriptor of its
 * /proc directory: its id may go to another thread once it exits, the
 * descriptor stops answering instead.  A rollback so restores only the
 * threads that are still alive and, for DL_PROC_OWNED, still the
 * caller's.
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
	if ((flags & DL_PROC_OWNED) && !dl_owner_is_caller(h->fd)) {
		h->err = -EPERM;
		h->foreign = true;
	}
	return 0;
}

void dl_held_set(struct dl_held *h, const struct dl_params *p, unsigned int flags)
{
	struct dl_sched_attr attr;

	if (h->gone || h->err)
		return;
	h->err = dl_sys_getattr(h->tid, &h->old);
	if (!h->err) {
		dl_attr_from_params(&attr, p);
		h->err = dl_sys_setattr(h->tid, &attr);
	}
	if (!h->err && (flags & DL_PROC_OWNED) && dl_owner_after(h->fd, h->tid, p) < 0)
		h->err = -ESRCH; /* not ours to keep or restore */
	if (h->err == -ESRCH) {
		h->gone = true;
		h->err = 0;
	}
	h->set = !h->err && !h->gone;
}

void dl_held_restore(struct dl_held *h, size_t n, unsigned int flags)
{
	if (dl_test_hooks && dl_test_hooks->before_restore)
		dl_test_hooks->before_restore();
	for (size_t i = n; i-- > 0;) {
		struct dl_params old;

		if (!h[i].set)
			continue;
		h[i].set = false;
		/* Exited: its reservation went with it, and its id may be
		 * another thread's now.  No longer the caller's (it changed its
		 * uid): not the caller's to change back. */
		if (!dl_thread_alive(h[i].fd) || ((flags & DL_PROC_OWNED) && !dl_owner_is_caller(h[i].fd)))
			continue;
		if (h[i].old.sched_policy != DL_SCHED_DEADLINE) {
			dl_sys_leave(h[i].tid, &h[i].old);
			continue;
		}
		dl_sys_setattr(h[i].tid, &h[i].old);
		/* Exited between the check and the call: a thread that took its
		 * id and is not the caller's loses what was meant for ours. */
		dl_params_from_attr(&old, &h[i].old);
		if (flags & DL_PROC_OWNED)
			dl_owner_after(h[i].fd, h[i].tid, &old);
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
