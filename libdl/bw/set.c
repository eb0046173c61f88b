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
			struct saved *ns = realloc(*sv, ncap * sizeof(**sv));

			if (!ns) {
				free(tids);
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
	free(tids);
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
	}
	if (count)
		*count = live;
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
