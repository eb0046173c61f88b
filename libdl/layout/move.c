/*
 * move.c: every task of a cpuset moved to another, or each back where it
 * came from (a layout's origins), through libcgroup.
 *
 * Kernel threads with PF_NO_SETAFFINITY refuse to move (EINVAL): they
 * are skipped and counted.  Tasks that exit meanwhile (ESRCH) are
 * counted as gone.  Tasks forked during the move appear in a later pass;
 * a pass that moves nothing ends it.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "layout/layout.h"
#include "cgroup/cg-lib.h"

#define MAX_PASSES 10

/* Each task that cannot move is counted once, whichever pass saw it. */
struct skips {
	pid_t *v;
	size_t n, cap;
};

static void skip(struct skips *s, pid_t tid, struct dl_layout_result *res)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == tid)
			return;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		pid_t *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv)
			return;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = tid;
	if (res)
		res->skipped++;
}

/*
 * The cgroup of a task moved back by destroy: where it came from when
 * that was recorded, or, when that cgroup was removed meanwhile, the
 * nearest of its ancestors that exists (a user who removes their own
 * empty cgroup stays under the limits of the one above it); the root
 * when nothing was recorded.
 */
static const char *origin_of(const struct dl_layout *l, pid_t tid, char *buf, size_t len)
{
	unsigned long long start;
	const char *cg;
	char *slash;

	if (!l || dl_task_stat_field(tid, 22, &start) < 0)
		return "";
	cg = dl_layout_origin(l, tid, start);
	if (!cg || snprintf(buf, len, "%s", cg) >= (int)len)
		return "";
	while (*buf && !dl_cs_exists(buf)) {
		slash = strrchr(buf, '/');
		*(slash ? slash : buf) = '\0';
	}
	return buf;
}

/*
 * Move every task of `from` to `to`, or with to == NULL each to its
 * origin in layout l.  Each pass lists the cpuset again: tasks forked
 * during a pass are moved by the next.
 */
static int move_tasks(const char *from, const char *to, const struct dl_layout *l, bool threads,
		      struct dl_layout_result *res)
{
	struct skips skipped = { 0 };
	struct cgroup *dest = NULL;
	char dest_name[4096] = "";
	int err = 0;

	for (int pass = 0; pass < MAX_PASSES; pass++) {
		size_t n, moved = 0;
		pid_t *tids;

		err = dl_cs_tasks(from, threads, &tids, &n);
		if (err)
			break;
		for (size_t i = 0; i < n && !err; i++) {
			char home[4096];
			const char *where = to ? to : origin_of(l, tids[i], home, sizeof(home));
			int e;

			if (dl_task_pinned(tids[i])) {
				skip(&skipped, tids[i], res);
				continue;
			}
			if (!dest || strcmp(dest_name, where) != 0) {
				/* libcgroup is set up for the first task that
				 * moves: an empty cpuset costs one read. */
				if ((err = dl_cg_init()))
					break;
				if (dest)
					dl_cg.cgroup_free(&dest);
				snprintf(dest_name, sizeof(dest_name), "%s", where);
				dest = dl_cs_lcg(where, NULL);
				if (!dest) {
					err = -ENOMEM;
					break;
				}
			}
			e = dl_fault("move a task");
			if (!e)
				e = dl_cg_errno(dl_cg.cgroup_attach_task_pid(dest, tids[i]));
			if (e == 0) {
				moved++;
				if (res)
					res->moved++;
			} else if (e == -ESRCH) {
				if (res)
					res->gone++;
			} else if (e == -EINVAL) {
				/* A kernel thread that refuses without the flag
				 * (kthreadd). */
				skip(&skipped, tids[i], res);
			} else {
				char f[1100], t[1100];

				/* where is a task's origin, a cgroup its owner
				 * may have named: escaped. */
				err = dl_fail(e, "cannot move task %d from cpuset /%s to /%s: %s", (int)tids[i],
					      dl_str_escape(from, f, sizeof(f)), dl_str_escape(where, t, sizeof(t)),
					      dl_cg_why(e));
			}
		}
		free(tids);
		if (err || moved == 0)
			break;
	}
	if (dest)
		dl_cg.cgroup_free(&dest);
	free(skipped.v);
	return err;
}

int dl_cs_move_all(const char *from, const char *to, bool threads, struct dl_layout_result *res)
{
	return move_tasks(from, to ? to : "", NULL, threads, res);
}

int dl_cs_move_home(const struct dl_layout *l, const char *from, bool threads, struct dl_layout_result *res)
{
	return move_tasks(from, NULL, l, threads, res);
}
