/*
 * counts.c: the records the periodic loops publish, read (publish.h).
 *
 * dl-stat runs as root and reads files any user writes: each step
 * trusts nothing it did not check.  Directories and files are opened
 * with O_NOFOLLOW below a descriptor, never by a path a user could swap;
 * a directory UID must be uid's and writable by nobody else, a record a
 * regular file of the record's size with one link, owned by uid; the
 * copy passes every check of its format and counts; and the thread it
 * names must be alive, the one that wrote it (its start time), and
 * uid's.  Anything else is left out, never followed, never believed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/publish.h"

/* Copies of a record a writer keeps changing before one is stable. */
#define READ_TRIES 64

int dl_pub_valid(const struct dl_pubrec *r, uid_t uid, pid_t tid)
{
	uint64_t sum = 0;

	if (memcmp(r->magic, DL_PUB_MAGIC, sizeof(r->magic)) || r->version != DL_PUB_VERSION ||
	    r->size != DL_PUB_SIZE || r->nbuckets != DL_COUNTS_BUCKETS)
		return -EINVAL;
	if (r->uid != uid || r->tid != tid || r->pid <= 0 || r->tid <= 0)
		return -EINVAL;
	if (memchr(r->comm, 0, sizeof(r->comm)) == NULL || (r->seq & 1))
		return -EINVAL;
	if (r->misses > r->jobs || r->response_max > r->response_sum)
		return -EINVAL;
	/* Summed with overflow checked: buckets of 3 x 2^63 would wrap to a
	 * sum of 2^63 and pass for that many jobs. */
	for (unsigned i = 0; i < DL_COUNTS_BUCKETS; i++)
		if (__builtin_add_overflow(sum, r->buckets[i], &sum))
			return -EINVAL;
	if (sum != r->jobs)
		return -EINVAL;
	return 0;
}

int dl_pub_live(const struct dl_pubrec *r, uid_t uid)
{
	unsigned long long start, ids[2];
	int fd = dl_thread_open(r->pid, r->tid), err = 0;

	if (fd < 0)
		return -ESRCH;
	if (dl_stat_field_at(fd, 22, &start) || start != r->start_time)
		err = -ESRCH;
	else if (dl_status_ids(fd, "status", "Uid", ids, 2))
		err = -ESRCH;
	else if (ids[0] != uid && ids[1] != uid)
		err = -EPERM;
	close(fd);
	return err;
}

/* A stable copy: the count read, the record, the count again. */
static int copy_stable(int fd, struct dl_pubrec *r)
{
	uint32_t seq;

	for (int i = 0; i < READ_TRIES; i++) {
		if (pread(fd, &seq, sizeof(seq), offsetof(struct dl_pubrec, seq)) != sizeof(seq))
			return -EINVAL;
		if (seq & 1)
			continue;
		if (pread(fd, r, sizeof(*r), 0) != sizeof(*r))
			return -EINVAL;
		if (r->seq != seq)
			continue;
		if (pread(fd, &seq, sizeof(seq), offsetof(struct dl_pubrec, seq)) != sizeof(seq))
			return -EINVAL;
		if (seq == r->seq)
			return 0;
	}
	return -EBUSY;
}

int dl_pub_read(int dirfd, const char *name, uid_t uid, struct dl_task_counts *out)
{
	struct dl_pubrec r;
	struct stat st;
	pid_t tid = dl_parse_pid(name);
	int fd, err;

	memset(out, 0, sizeof(*out));
	if (tid <= 0)
		return -EINVAL;
	/* O_NONBLOCK: a FIFO put there must not hang the reader. */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid || st.st_nlink != 1 ||
	    st.st_size != DL_PUB_SIZE) {
		close(fd);
		return -EINVAL;
	}
	err = copy_stable(fd, &r);
	close(fd);
	if (err)
		return err;
	if ((err = dl_pub_valid(&r, uid, tid)) || (err = dl_pub_live(&r, uid)))
		return err;
	out->pid = r.pid;
	out->tid = r.tid;
	out->uid = r.uid;
	memcpy(out->comm, r.comm, sizeof(r.comm));
	out->params.runtime = r.runtime;
	out->params.deadline = r.deadline;
	out->params.period = r.period;
	out->params.flags = r.flags;
	out->jobs = r.jobs;
	out->misses = r.misses;
	out->overruns = r.overruns;
	out->response_max = r.response_max;
	out->response_sum = r.response_sum;
	memcpy(out->buckets, r.buckets, sizeof(out->buckets));
	return 0;
}

struct list {
	struct dl_task_counts *v;
	size_t n, cap;
};

/* Every record of directory dirfd, uid's, that passes: into l.  At
 * most DL_PUB_RECORDS_MAX of them, from the first DL_PUB_SCAN_MAX
 * entries: what a folder holds costs its own user's listing alone. */
static int read_user_dir(int dirfd, uid_t uid, struct list *l)
{
	struct stat st;
	struct dirent *d;
	size_t kept = 0, seen = 0;
	DIR *dir;
	int fd;

	/* The user's alone: theirs, and writable by nobody else. */
	if (fstat(dirfd, &st) < 0 || st.st_uid != uid || (st.st_mode & 022))
		return 0;
	fd = dup(dirfd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (kept < DL_PUB_RECORDS_MAX && seen < DL_PUB_SCAN_MAX && (d = readdir(dir))) {
		struct dl_task_counts c;

		seen++;
		dl_count_work(1);
		if (dl_parse_pid(d->d_name) <= 0 || dl_pub_read(dirfd, d->d_name, uid, &c))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct dl_task_counts *v = realloc(l->v, cap * sizeof(*v));

			if (!v) {
				closedir(dir);
				return dl_fail(-ENOMEM, "out of memory for the published counters");
			}
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = c;
		kept++;
	}
	closedir(dir);
	return 0;
}

/* The folder path opened (mode: O_RDONLY to list it, O_PATH to pass
 * through it), when it is root's (or, in the tests' folder, the
 * caller's), and sticky when others may write to it, so that no one
 * renames another's directory away: its descriptor, or -1. */
static int open_base(const char *path, int mode)
{
	struct stat st;
	int fd = open(path, mode | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
			((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Root's records, in the state folder (publish.h), which a group's
 * member may only pass through (mode 0711). */
static int read_root(struct list *l)
{
	int statefd = open_base(dl_state_dir(), O_PATH), fd, err = 0;

	if (statefd < 0)
		return 0;
	fd = openat(statefd, DL_PUB_ROOT_SUB, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(statefd);
	if (fd >= 0) {
		err = read_user_dir(fd, 0, l);
		close(fd);
	}
	return err;
}

/* dir/NAME for each NAME a uid: that uid's records, dir/NAME/sub when sub. */
static int read_base(const char *path, const char *sub, struct list *l)
{
	struct stat st;
	struct dirent *d;
	int basefd = open_base(path, O_RDONLY), err = 0;
	DIR *dir;

	if (basefd < 0)
		return 0;
	dir = fdopendir(basefd);
	if (!dir) {
		close(basefd);
		return 0;
	}
	while (!err && (d = readdir(dir))) {
		/* Canonical names only: one folder per uid. */
		pid_t uid = strcmp(d->d_name, "0") ? dl_parse_pid(d->d_name) : 0;
		int fd, subfd;

		if (uid < 0)
			continue;
		fd = openat(basefd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (sub) {
			/* /run/user/UID: logind's, the user's */
			if (fstat(fd, &st) < 0 || st.st_uid != (uid_t)uid || (st.st_mode & 022)) {
				close(fd);
				continue;
			}
			subfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			if (subfd < 0)
				continue;
			fd = subfd;
		}
		err = read_user_dir(fd, (uid_t)uid, l);
		close(fd);
	}
	closedir(dir);
	return err;
}

/* Ordered by thread, then by when it was read (arg: the records). */
static int by_thread(const void *a, const void *b, void *arg)
{
	const struct dl_task_counts *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	pid_t x = v[i].tid, y = v[j].tid;

	return x != y ? (x > y) - (x < y) : (i > j) - (i < j);
}

/* One record per thread: a user's folders (/run/libdl-tasks/UID and
 * /run/user/UID/libdl-tasks; root's, /run/libdl/tasks and a
 * /run/libdl-tasks/0 that root made), or the folders of a thread's real
 * and effective uid, may each name it; the first read is kept.  Sorted
 * by thread. */
static int one_per_thread(struct list *l)
{
	size_t *order, n = 0;
	struct dl_task_counts *v;

	if (l->n < 2)
		return 0;
	order = calloc(l->n, sizeof(*order));
	v = calloc(l->n, sizeof(*v));
	if (!order || !v) {
		free(order);
		free(v);
		return dl_fail(-ENOMEM, "out of memory for the published counters");
	}
	for (size_t i = 0; i < l->n; i++)
		order[i] = i;
	qsort_r(order, l->n, sizeof(*order), by_thread, l->v);
	for (size_t i = 0; i < l->n; i++)
		if (!n || v[n - 1].tid != l->v[order[i]].tid)
			v[n++] = l->v[order[i]];
	free(order);
	free(l->v);
	l->v = v;
	l->n = n;
	l->cap = l->n;
	return 0;
}

DL_EXPORT int dl_counts_list(struct dl_task_counts **counts, size_t *count)
{
	struct list l = { 0 };
	/* A test that moves the users' base reads no folder it did not
	 * move too. */
	bool moved = dl_test_hooks && dl_test_hooks->tasks_dir;
	bool root = !moved || dl_test_hooks->state_dir, users = !moved || dl_test_hooks->user_run_dir;
	int err = 0;

	if (counts)
		*counts = NULL;
	if (count)
		*count = 0;
	if (!counts || !count)
		return dl_fail(-EINVAL, "dl_counts_list needs somewhere to put the counters and their count");
	if (root)
		err = read_root(&l);
	if (!err)
		err = read_base(dl_pub_base(), NULL, &l);
	if (!err && users)
		err = read_base(dl_pub_user_base(), DL_PUB_USER_DIR, &l);
	if (!err)
		err = one_per_thread(&l);
	if (err) {
		free(l.v);
		return err;
	}
	*counts = l.v;
	*count = l.n;
	return (int)(l.n < (size_t)INT32_MAX ? l.n : INT32_MAX);
}
