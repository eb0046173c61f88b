/*
 * The record a periodic loop publishes its counters in (workload/
 * publish.h), as its reader dl_counts_list() takes it: untrusted input.
 * Corrupt, truncated, stale, foreign-owned and mislinked records are
 * refused, a record mutated at random never crashes the reader nor
 * comes back breaking its own counts, and a reader racing its writer
 * never sees a torn copy.  A loop run with LIBDL_PUBLISH_GROUP gives its
 * folder and record to that group, and only then, whatever the umask; a
 * group that is none, or not the user's, is refused by name.  Records
 * live under a folder of the test's own (the test hooks' tasks_dir); no
 * reservation is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "workload/publish.h"

#define NOBODY 65534

/* The users' base (/run/libdl-tasks), the state folder (/run/libdl),
 * and this user's folder: root's in the state folder, another's in the
 * base. */
static char base[64], state[64], udir[96];
static struct dl_test_hooks hooks;

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/libdl-pub.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(state, sizeof(state), "/tmp/libdl-state.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(state));
	if (geteuid() == 0)
		snprintf(udir, sizeof(udir), "%s/%s", state, DL_PUB_ROOT_SUB);
	else
		snprintf(udir, sizeof(udir), "%s/%u", base, (unsigned)geteuid());
	ck_assert_int_eq(mkdir(udir, 0700), 0);
	hooks.tasks_dir = base;
	hooks.state_dir = state;
	dl_test_hooks = &hooks;
}

static void teardown(void)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", base, state);
	ck_assert_int_eq(system(cmd), 0);
}

/* A record of the calling thread, valid as its loop would write it:
 * jobs jobs, one in three missed, each of response resp. */
static void good_record(struct dl_pubrec *r, uint64_t jobs, uint64_t resp)
{
	unsigned long long start;

	memset(r, 0, sizeof(*r));
	memcpy(r->magic, DL_PUB_MAGIC, sizeof(r->magic));
	r->version = DL_PUB_VERSION;
	r->size = DL_PUB_SIZE;
	r->pid = getpid();
	r->tid = gettid();
	r->uid = geteuid();
	r->nbuckets = DL_COUNTS_BUCKETS;
	ck_assert_int_eq(dl_task_stat_field(gettid(), 22, &start), 0);
	r->start_time = start;
	strcpy(r->comm, "ctl");
	r->runtime = 1000000;
	r->deadline = r->period = 10000000;
	r->jobs = jobs;
	r->misses = jobs / 3;
	r->response_max = resp;
	r->response_sum = jobs * resp;
	r->buckets[dl_pub_bucket(resp)] = jobs;
}

static void write_at(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static const char *me(void)
{
	static char name[16];

	snprintf(name, sizeof(name), "%d", (int)gettid());
	return name;
}

static int read_me(struct dl_task_counts *c)
{
	int dirfd = open(udir, O_RDONLY | O_DIRECTORY);
	int err;

	ck_assert_int_ge(dirfd, 0);
	err = dl_pub_read(dirfd, me(), geteuid(), c);
	close(dirfd);
	return err;
}

static size_t listed(void)
{
	struct dl_task_counts *c;
	size_t n;

	ck_assert_int_ge(dl_counts_list(&c, &n), 0);
	free(c);
	return n;
}

START_TEST(test_bucket_bounds)
{
	ck_assert_uint_eq(dl_pub_bucket(0), 0);
	ck_assert_uint_eq(dl_pub_bucket(1024), 0);
	ck_assert_uint_eq(dl_pub_bucket(1025), 1);
	ck_assert_uint_eq(dl_pub_bucket(2048), 1);
	ck_assert_uint_eq(dl_pub_bucket(2049), 2);
	for (unsigned i = 0; i < DL_COUNTS_BUCKETS - 1; i++) {
		ck_assert_uint_eq(dl_pub_bucket(DL_COUNTS_LE_NS(i)), i);
		ck_assert_uint_eq(dl_pub_bucket(DL_COUNTS_LE_NS(i) + 1), i + 1);
	}
	ck_assert_uint_eq(dl_pub_bucket(UINT64_MAX), DL_COUNTS_BUCKETS - 1);
}
END_TEST

/* A loop run for real (no reservation) publishes exactly its jobs and
 * misses, and its record goes with dl_periodic_free(). */
START_TEST(test_loop_publishes)
{
	struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
	struct dl_periodic *pt;
	const struct dl_periodic_stats *st;
	struct dl_task_counts c, *all;
	const struct dl_job *job;
	char path[192];
	size_t n;

	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0), 0);
	snprintf(path, sizeof(path), "%s/%s", udir, me());
	ck_assert_int_eq(access(path, F_OK), 0);
	for (int i = 0; i < 20; i++) {
		if (i % 5 == 4)
			dl_sleep_ns(1500000); /* past its deadline */
		ck_assert_int_eq(dl_periodic_next(pt, &job), 0);
	}
	st = dl_periodic_stats(pt);
	ck_assert_int_eq(read_me(&c), 0);
	ck_assert_uint_eq(c.jobs, 20);
	ck_assert_uint_eq(c.misses, st->misses);
	ck_assert_uint_ge(c.misses, 4);
	ck_assert_uint_eq(c.response_max, st->response_max);
	ck_assert_int_eq(c.tid, gettid());
	ck_assert_uint_eq(c.params.period, 1000000);
	ck_assert_int_eq(dl_counts_list(&all, &n), 1);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(all[0].misses, c.misses);
	free(all);
	dl_periodic_free(pt);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_uint_eq(listed(), 0);
}
END_TEST

START_TEST(test_good_record_read)
{
	struct dl_pubrec r;
	struct dl_task_counts c;

	good_record(&r, 30, 5000);
	write_at(udir, me(), &r, sizeof(r));
	ck_assert_int_eq(read_me(&c), 0);
	ck_assert_uint_eq(c.jobs, 30);
	ck_assert_uint_eq(c.misses, 10);
	ck_assert_str_eq(c.comm, "ctl");
	ck_assert_uint_eq(c.buckets[dl_pub_bucket(5000)], 30);
	ck_assert_uint_eq(listed(), 1);
}
END_TEST

/* Each field broken in turn: refused, never listed. */
START_TEST(test_corrupt)
{
	struct dl_pubrec r;
	struct dl_task_counts c;

	for (int k = 0; k < 13; k++) {
		good_record(&r, 30, 5000);
		switch (k) {
		case 0: r.magic[0] = 'X'; break;
		case 1: r.version = 2; break;
		case 2: r.size = 4096; break;
		case 3: r.nbuckets = 64; break;
		case 4: r.misses = 31; break;
		case 5: r.buckets[0] = 1; break;                  /* buckets sum past jobs */
		case 6: r.buckets[dl_pub_bucket(5000)] = UINT64_MAX; break;
		case 7: memset(r.comm, 'a', sizeof(r.comm)); break; /* not terminated */
		case 8: r.uid = geteuid() + 1; break;
		case 9: r.tid = gettid() + 1; break;               /* not the file's name */
		case 10: r.response_max = r.response_sum + 1; break;
		case 11: r.pid = -1; break;
		case 12: /* three buckets of 2^63, each within jobs, their sum 2^63 modulo 2^64 */
			r.jobs = UINT64_C(1) << 63;
			r.buckets[dl_pub_bucket(5000)] = 0;
			for (int b = 0; b < 3; b++)
				r.buckets[b] = r.jobs;
			break;
		}
		write_at(udir, me(), &r, sizeof(r));
		ck_assert_msg(read_me(&c) == -EINVAL, "mutation %d accepted", k);
		ck_assert_uint_eq(c.jobs, 0);
		ck_assert_uint_eq(listed(), 0);
	}
	/* A writer that never leaves the count even: given up on. */
	good_record(&r, 30, 5000);
	r.seq = 7;
	write_at(udir, me(), &r, sizeof(r));
	ck_assert_int_eq(read_me(&c), -EBUSY);
}
END_TEST

START_TEST(test_truncated_and_oversized)
{
	struct dl_pubrec r;
	struct dl_task_counts c;
	char big[DL_PUB_SIZE * 2];

	good_record(&r, 3, 5000);
	write_at(udir, me(), &r, 0);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	write_at(udir, me(), &r, DL_PUB_SIZE - 1);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	write_at(udir, me(), big, sizeof(big));
	ck_assert_int_eq(read_me(&c), -EINVAL);
	ck_assert_uint_eq(listed(), 0);
}
END_TEST

/* Not a regular file of its own: a link, a hard link, a FIFO, a
 * folder.  None is followed, opened for long, or read. */
START_TEST(test_not_a_plain_file)
{
	struct dl_pubrec r;
	struct dl_task_counts c;
	char path[192], other[192];

	good_record(&r, 3, 5000);
	snprintf(path, sizeof(path), "%s/%s", udir, me());
	snprintf(other, sizeof(other), "%s/elsewhere", base);
	write_at(base, "elsewhere", &r, sizeof(r));
	ck_assert_int_eq(symlink(other, path), 0);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	unlink(path);
	ck_assert_int_eq(link(other, path), 0);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(read_me(&c), -EINVAL); /* and returns: O_NONBLOCK */
	unlink(path);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	ck_assert_uint_eq(listed(), 0);
}
END_TEST

/* Its thread gone, or another thread that took its id: stale; the next
 * publisher of the same user removes it. */
START_TEST(test_stale)
{
	struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
	struct dl_periodic *pt;
	struct dl_pubrec r;
	struct dl_task_counts c;
	char name[16], path[192];
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	good_record(&r, 3, 5000);
	r.pid = r.tid = child;
	snprintf(name, sizeof(name), "%d", (int)child);
	write_at(udir, name, &r, sizeof(r));
	good_record(&r, 3, 5000);
	r.start_time++;
	write_at(udir, me(), &r, sizeof(r));
	ck_assert_int_eq(read_me(&c), -ESRCH);
	ck_assert_uint_eq(listed(), 0);
	/* A loop of this user starts: the dead thread's record goes. */
	ck_assert_int_eq(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0), 0);
	snprintf(path, sizeof(path), "%s/%s", udir, name);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_uint_eq(listed(), 1);
	dl_periodic_free(pt);
}
END_TEST

/* Records in a folder that is not their user's, files that are not the
 * folder's user's, and a record naming a thread of another user. */
START_TEST(test_foreign_owned)
{
	struct dl_pubrec r;
	struct dl_task_counts c;
	char other[96], path[192];
	int dirfd;

	/* A folder named by another uid, made by this user. */
	snprintf(other, sizeof(other), "%s/%u", base, (unsigned)geteuid() + 1000);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	good_record(&r, 3, 5000);
	r.uid = geteuid() + 1000;
	write_at(other, me(), &r, sizeof(r));
	ck_assert_uint_eq(listed(), 0);
	/* The user's folder, open to others' writes. */
	good_record(&r, 3, 5000);
	write_at(udir, me(), &r, sizeof(r));
	ck_assert_uint_eq(listed(), 1);
	ck_assert_int_eq(chmod(udir, 0777), 0);
	ck_assert_uint_eq(listed(), 0);
	ck_assert_int_eq(chmod(udir, 0700), 0);
	if (geteuid() != 0)
		return; /* the rest gives files away: root's */
	/* A file of nobody's in root's folder. */
	snprintf(path, sizeof(path), "%s/%s", udir, me());
	ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
	ck_assert_int_eq(read_me(&c), -EINVAL);
	/* nobody's folder and file, naming this (root's) thread. */
	snprintf(other, sizeof(other), "%s/%u", base, NOBODY);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	ck_assert_int_eq(chown(other, NOBODY, NOBODY), 0);
	good_record(&r, 3, 5000);
	r.uid = NOBODY;
	write_at(other, me(), &r, sizeof(r));
	snprintf(path, sizeof(path), "%s/%s", other, me());
	ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
	dirfd = open(other, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(dl_pub_read(dirfd, me(), NOBODY, &c), -EPERM);
	close(dirfd);
	ck_assert_uint_eq(listed(), 0);
}
END_TEST

/* A loop started with LIBDL_PUBLISH_GROUP=group: 0 or its error; its
 * record's and folder's group and mode when it started. */
static int start_with_group(const char *group, struct stat *dir, struct stat *rec)
{
	struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
	struct dl_periodic *pt;
	char path[192];
	int err;

	if (group)
		ck_assert_int_eq(setenv("LIBDL_PUBLISH_GROUP", group, 1), 0);
	else
		ck_assert_int_eq(unsetenv("LIBDL_PUBLISH_GROUP"), 0);
	err = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0);
	unsetenv("LIBDL_PUBLISH_GROUP");
	snprintf(path, sizeof(path), "%s/%s", udir, me());
	if (err) {
		ck_assert_msg(access(path, F_OK) < 0, "a refused loop left %s", path);
		return err;
	}
	ck_assert_int_eq(stat(udir, dir), 0);
	ck_assert_int_eq(stat(path, rec), 0);
	ck_assert_int_eq(dl_periodic_next(pt, NULL), 0);
	dl_periodic_free(pt);
	ck_assert_uint_eq(listed(), 0);
	return 0;
}

START_TEST(test_group)
{
	gid_t g = getegid(), other = 4243, groups[256];
	struct group *gr = getgrgid(g);
	struct stat dir, rec;
	mode_t old = umask(077);
	char num[16];
	int n;

	/* By number: the folder the group's, 0750; the record 0640 (the
	 * umask would have made it 0600). */
	snprintf(num, sizeof(num), "%u", (unsigned)g);
	ck_assert_msg(start_with_group(num, &dir, &rec) == 0, "%s", dl_errmsg());
	ck_assert_uint_eq(dir.st_gid, g);
	ck_assert_uint_eq(dir.st_mode & 07777, 0750);
	ck_assert_uint_eq(rec.st_gid, g);
	ck_assert_uint_eq(rec.st_mode & 07777, 0640);
	if (geteuid() == 0) {
		struct stat st;

		/* Root's folder is in the state folder: the group may pass. */
		ck_assert_int_eq(stat(state, &st), 0);
		ck_assert_uint_eq(st.st_mode & 07777, 0711);
	}
	/* By name, the same. */
	if (gr) {
		ck_assert_msg(start_with_group(gr->gr_name, &dir, &rec) == 0, "%s", dl_errmsg());
		ck_assert_uint_eq(rec.st_gid, g);
		ck_assert_uint_eq(rec.st_mode & 07777, 0640);
	}
	/* Without it: the record the user's alone, in the same folder. */
	ck_assert_msg(start_with_group(NULL, &dir, &rec) == 0, "%s", dl_errmsg());
	ck_assert_uint_eq(rec.st_mode & 07777, 0600);
	ck_assert_uint_eq(dir.st_mode & 07777, 0750);
	/* Empty: none. */
	ck_assert_msg(start_with_group("", &dir, &rec) == 0, "%s", dl_errmsg());
	ck_assert_uint_eq(rec.st_mode & 07777, 0600);
	/* Not a group: refused, said, printed escaped. */
	ck_assert_int_eq(start_with_group("no-such-group-of-libdl", &dir, &rec), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "LIBDL_PUBLISH_GROUP=no-such-group-of-libdl: no such group"), "%s", dl_errmsg());
	ck_assert_int_eq(start_with_group("99999999999999999999", &dir, &rec), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "is not a group"), "%s", dl_errmsg());
	ck_assert_int_eq(start_with_group("\033[2Jx", &dir, &rec), -EINVAL);
	ck_assert_msg(!strchr(dl_errmsg(), '\033') && strstr(dl_errmsg(), "\\x1b[2Jx"), "%s", dl_errmsg());
	/* A group the user is not in (only root may give files away). */
	if (geteuid() != 0) {
		n = getgroups(256, groups);
		ck_assert_int_ge(n, 0);
		for (int i = 0; i < n; i++)
			if (groups[i] == other || g == other) {
				other++;
				i = -1;
			}
		snprintf(num, sizeof(num), "%u", (unsigned)other);
		ck_assert_int_eq(start_with_group(num, &dir, &rec), -EPERM);
		ck_assert_msg(strstr(dl_errmsg(), "not in that group"), "%s", dl_errmsg());
	}
	umask(old);
}
END_TEST

/* Bytes changed at random: the reader returns, and what it accepts
 * keeps its own counts. */
START_TEST(test_random_mutations)
{
	struct dl_pubrec r;
	struct dl_task_counts c;
	unsigned seed = 33;

	for (int k = 0; k < 2000; k++) {
		good_record(&r, 30, 5000);
		for (int m = 0; m < 1 + k % 4; m++)
			((unsigned char *)&r)[rand_r(&seed) % sizeof(r)] = (unsigned char)rand_r(&seed);
		write_at(udir, me(), &r, sizeof(r));
		if (read_me(&c) == 0) {
			uint64_t sum = 0;

			for (int b = 0; b < DL_COUNTS_BUCKETS; b++)
				ck_assert(!__builtin_add_overflow(sum, c.buckets[b], &sum));
			ck_assert_uint_eq(sum, c.jobs);
			ck_assert_uint_le(c.misses, c.jobs);
			ck_assert_int_eq(c.tid, gettid());
		}
	}
}
END_TEST

/* A writer that never stops, a reader that reads all along: every copy
 * accepted is one the writer left between two jobs. */
struct race {
	struct dl_pub pub;
	pid_t tid;
	int ready, stop;
	uint64_t written;
};

static void *writer(void *arg)
{
	struct race *w = arg;
	struct dl_params p = { .runtime = 1000, .deadline = 10000, .period = 10000 };

	ck_assert_int_eq(dl_pub_open(&w->pub, &p), 0);
	w->tid = gettid();
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		/* every job missed, one overrun each, 3000 ns each */
		dl_pub_job(&w->pub, 3000, true, 1);
		w->written++;
	}
	dl_pub_close(&w->pub);
	return NULL;
}

START_TEST(test_racing_writer)
{
	struct race w = { 0 };
	struct dl_task_counts c;
	pthread_t th;
	struct timespec until, now;
	char name[16];
	int dirfd, ok = 0, busy = 0;

	ck_assert_int_eq(pthread_create(&th, NULL, writer, &w), 0);
	while (!__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	snprintf(name, sizeof(name), "%d", (int)w.tid);
	dirfd = open(udir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dirfd, 0);
	/* 20000 reads, or as many as 2 s of the clock allow: each read opens
	 * the record and the thread's /proc files, and on a loaded machine
	 * (a CI run beside other builds) 20000 of them outlasted the case's
	 * 30 s.  What is checked is every copy accepted, not how many. */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 2;
	for (int i = 0; i < 20000; i++) {
		int err;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ok > 0 && (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec)))
			break;
		err = dl_pub_read(dirfd, name, geteuid(), &c);

		if (err == -EBUSY) {
			busy++;
			continue;
		}
		ck_assert_int_eq(err, 0);
		ck_assert_uint_eq(c.misses, c.jobs);
		ck_assert_uint_eq(c.overruns, c.jobs);
		ck_assert_uint_eq(c.response_sum, 3000 * c.jobs);
		ck_assert_uint_eq(c.buckets[dl_pub_bucket(3000)], c.jobs);
		ck_assert_uint_eq(c.response_max, c.jobs ? 3000 : 0);
		ok++;
	}
	close(dirfd);
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	tl_note("%d copies read, %d given up on, %llu jobs written", ok, busy, (unsigned long long)w.written);
	ck_assert_int_gt(ok, 0);
	ck_assert_uint_gt(w.written, 0);
}
END_TEST

/* Names as the kernel writes them, and nothing else: "TID" is read,
 * "0TID" and "00TID" are not (one thread, one record), nor a folder
 * "0UID" beside "UID" (one folder per uid). */
START_TEST(test_canonical_names)
{
	struct dl_pubrec r;
	char name[32], other[96];

	good_record(&r, 3, 5000);
	write_at(udir, me(), &r, sizeof(r));
	snprintf(name, sizeof(name), "0%s", me());
	write_at(udir, name, &r, sizeof(r));
	snprintf(name, sizeof(name), "00%s", me());
	write_at(udir, name, &r, sizeof(r));
	ck_assert_uint_eq(listed(), 1);
	snprintf(other, sizeof(other), "%s/0%u", base, (unsigned)geteuid());
	ck_assert_int_eq(mkdir(other, 0700), 0);
	write_at(other, me(), &r, sizeof(r));
	ck_assert_uint_eq(listed(), 1);
	ck_assert_int_eq(dl_parse_pid("0"), -1);
	ck_assert_int_eq(dl_parse_pid("012"), -1);
	ck_assert_int_eq(dl_parse_pid("120"), 120);
}
END_TEST

/* The users' runtime folders (/run/user/UID/libdl-tasks) are read too,
 * and a thread named in both of its user's folders is listed once. */
START_TEST(test_one_per_thread)
{
	struct dl_task_counts *c;
	struct dl_pubrec r;
	char runs[64], mine[128], tasks[160];
	size_t n;

	snprintf(runs, sizeof(runs), "/tmp/libdl-run.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(runs));
	snprintf(mine, sizeof(mine), "%s/%u", runs, (unsigned)geteuid());
	snprintf(tasks, sizeof(tasks), "%s/%s", mine, DL_PUB_USER_DIR);
	ck_assert_int_eq(mkdir(mine, 0700), 0);
	ck_assert_int_eq(mkdir(tasks, 0700), 0);
	hooks.user_run_dir = runs;
	good_record(&r, 6, 5000);
	write_at(tasks, me(), &r, sizeof(r));
	ck_assert_uint_eq(listed(), 1);
	good_record(&r, 3, 5000);
	write_at(udir, me(), &r, sizeof(r));
	ck_assert_int_eq(dl_counts_list(&c, &n), 1);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(c[0].jobs, 3); /* root's or /run/libdl-tasks's, read before the runtime folders */
	free(c);
	hooks.user_run_dir = NULL;
	snprintf(tasks, sizeof(tasks), "rm -rf '%s'", runs);
	ck_assert_int_eq(system(tasks), 0);
}
END_TEST

/* A folder full of entries costs a bounded look: DL_PUB_SCAN_MAX of
 * them, whatever it holds; and another user's such folder (root: nobody's)
 * hides none of this user's records. */
START_TEST(test_scan_bounded)
{
	unsigned long long work = 0;
	struct dl_pubrec r;
	char dir[96], name[32];
	int dirfd;

	snprintf(dir, sizeof(dir), "%s/%u", base, geteuid() == 0 ? NOBODY : (unsigned)geteuid());
	if (geteuid() == 0) {
		ck_assert_int_eq(mkdir(dir, 0700), 0);
		ck_assert_int_eq(chown(dir, NOBODY, NOBODY), 0);
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dirfd, 0);
	for (int i = 1; i <= DL_PUB_SCAN_MAX + 1000; i++) {
		snprintf(name, sizeof(name), "%d", 4000000 + i);
		int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	close(dirfd);
	good_record(&r, 3, 5000);
	write_at(udir, me(), &r, sizeof(r));
	hooks.work = &work;
	ck_assert_uint_eq(listed(), 1);
	hooks.work = NULL;
	/* This user's own record, then at most the bound in the full one. */
	ck_assert_uint_le(work, DL_PUB_SCAN_MAX + 8);
	ck_assert_uint_ge(work, DL_PUB_SCAN_MAX);
}
END_TEST

/* A loop of nobody's, started in a child; 0 or its error, its message
 * in msg. */
static int publish_as_nobody(char *msg, size_t len)
{
	struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
	int fds[2], status;
	pid_t child;
	ssize_t got;

	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct dl_periodic *pt;
		int err;

		close(fds[0]);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		err = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0);
		if (err) {
			dprintf(fds[1], "%s", dl_errmsg());
			_exit(-err);
		}
		dprintf(fds[1], "ok");
		close(fds[1]);
		pause(); /* the parent looks, then kills */
		_exit(0);
	}
	close(fds[1]);
	got = read(fds[0], msg, len - 1);
	msg[got > 0 ? got : 0] = 0;
	close(fds[0]);
	if (!strcmp(msg, "ok")) {
		/* The record while its thread lives: the child's pid. */
		snprintf(msg, len, "%d", (int)child);
		return 0;
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_ne(WEXITSTATUS(status), 100);
	return -WEXITSTATUS(status);
}

static void end_child(const char *pid)
{
	pid_t child = atoi(pid);
	int status;

	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
}

/* Who may write where.  Root publishes in the state folder, and never
 * makes the users' base.  Another user never writes in a base that all
 * may write to on its parent's file system (it could fill /run): it goes
 * to its runtime folder, or is refused naming the fix.  On a file system
 * of its own (the package's mount; here a tmpfs in a mount namespace of
 * the test's), every user writes there. */
START_TEST(test_where_users_write)
{
	char runs[64], mine[128], rec[224], msg[512], made[96];
	pid_t child;
	int status;

	if (geteuid() != 0)
		return; /* the others are users made by root: root's test */
	/* Root, base missing: root's record in the state folder, the base
	 * still missing. */
	snprintf(made, sizeof(made), "%s/made", base);
	hooks.tasks_dir = made;
	{
		struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
		struct dl_periodic *pt;

		ck_assert_msg(dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0) == 0,
			      "%s", dl_errmsg());
		snprintf(rec, sizeof(rec), "%s/%s", udir, me());
		ck_assert_msg(access(rec, F_OK) == 0, "no %s", rec);
		ck_assert_msg(access(made, F_OK) < 0, "root's loop made the users' base %s", made);
		ck_assert_uint_eq(listed(), 1);
		dl_periodic_free(pt);
	}
	hooks.tasks_dir = base;
	/* A sticky folder all may write to, on /tmp's file system. */
	ck_assert_int_eq(chmod(base, 01777), 0);
	ck_assert_int_eq(publish_as_nobody(msg, sizeof(msg)), -ENOENT);
	ck_assert_msg(strstr(msg, "not a file system of its own") && strstr(msg, "x2dtasks.mount") &&
		      strstr(msg, "enable-linger"), "%s", msg);
	snprintf(mine, sizeof(mine), "%s/%u", base, NOBODY);
	ck_assert_int_eq(access(mine, F_OK), -1);
	/* With a runtime folder: the record goes there. */
	snprintf(runs, sizeof(runs), "/tmp/libdl-run.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(runs));
	ck_assert_int_eq(chmod(runs, 0755), 0);
	snprintf(mine, sizeof(mine), "%s/%u", runs, NOBODY);
	ck_assert_int_eq(mkdir(mine, 0700), 0);
	ck_assert_int_eq(chown(mine, NOBODY, NOBODY), 0);
	hooks.user_run_dir = runs;
	ck_assert_msg(publish_as_nobody(msg, sizeof(msg)) == 0, "%s", msg);
	snprintf(rec, sizeof(rec), "%s/%s/%s", mine, DL_PUB_USER_DIR, msg);
	ck_assert_msg(access(rec, F_OK) == 0, "no %s", rec);
	ck_assert_uint_eq(listed(), 1);
	end_child(msg);
	hooks.user_run_dir = NULL;
	snprintf(rec, sizeof(rec), "rm -rf '%s'", runs);
	ck_assert_int_eq(system(rec), 0);
	/* A file system of its own: a child in a mount namespace of its own
	 * mounts a tmpfs on the base and publishes there as nobody. */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		if (tl_private_mounts() ||
		    mount("libdl-test", base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=1m,nr_inodes=64"))
			_exit(2);
		if (publish_as_nobody(msg, sizeof(msg)))
			_exit(3);
		snprintf(rec, sizeof(rec), "%s/%u/%s", base, NOBODY, msg);
		status = access(rec, F_OK) == 0 && listed() == 1 ? 0 : 4;
		end_child(msg);
		_exit(status);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the mounted base: status %d", status);
	snprintf(mine, sizeof(mine), "%s/%u", base, NOBODY);
	ck_assert_int_eq(access(mine, F_OK), -1); /* it was the tmpfs's */
}
END_TEST

#define OTHER 4242 /* a uid no one on the machine has */

static char runs[64];

/* In a mount namespace of its own, the base a tmpfs as the package
 * mounts it (mode 1777), where anyone may make a folder named by
 * another's uid first: here OTHER's named by nobody's uid, nobody's
 * named by root's.  Root's loop still publishes (in the state folder);
 * nobody's is refused naming OTHER's folder and the fix while it has no
 * runtime folder, and publishes there once it has one. */
static void squatted(void)
{
	struct dl_params p = { .runtime = 100000, .deadline = 1000000, .period = 1000000 };
	struct dl_periodic *pt;
	char mine[128], rec[224], msg[512], path[96];
	int rc;

	TL_STEP(tl_private_mounts() == 0, "a mount namespace of the test's own");
	TL_STEP(mount("libdl-test", base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=1m,nr_inodes=64") == 0,
		"mount a tmpfs on %s", base);
	snprintf(path, sizeof(path), "%s/0", base);
	TL_STEP(mkdir(path, 0755) == 0 && chown(path, NOBODY, NOBODY) == 0, "nobody's %s", path);
	snprintf(path, sizeof(path), "%s/%u", base, NOBODY);
	TL_STEP(mkdir(path, 0755) == 0 && chown(path, OTHER, OTHER) == 0, "uid %u's %s", OTHER, path);
	rc = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH, 0);
	TL_STEP(rc == 0, "root's loop, with nobody's %s/0: %s", base, dl_errmsg());
	snprintf(rec, sizeof(rec), "%s/%s", udir, me());
	TL_STEP(access(rec, F_OK) == 0, "root's record %s", rec);
	TL_STEP(listed() == 1, "root's record listed");
	dl_periodic_free(pt);
	rc = publish_as_nobody(msg, sizeof(msg));
	TL_STEP(rc == -ENOENT, "nobody's loop with no runtime folder gave %d, not -ENOENT: %s", rc, msg);
	snprintf(rec, sizeof(rec), "%s was made by uid %u, not by uid %u", path, OTHER, NOBODY);
	TL_STEP(strstr(msg, rec) && strstr(msg, "remove it (rm -r ") && strstr(msg, "enable-linger"),
		"nobody's refusal does not say '%s', nor the fixes: %s", rec, msg);
	snprintf(mine, sizeof(mine), "%s/%u", runs, NOBODY);
	TL_STEP(mkdir(mine, 0700) == 0 && chown(mine, NOBODY, NOBODY) == 0, "nobody's runtime folder %s", mine);
	hooks.user_run_dir = runs;
	rc = publish_as_nobody(msg, sizeof(msg));
	TL_STEP(rc == 0, "nobody's loop with a runtime folder: %s", msg);
	snprintf(rec, sizeof(rec), "%s/%s/%s", mine, DL_PUB_USER_DIR, msg);
	TL_STEP(access(rec, F_OK) == 0, "nobody's record %s", rec);
	TL_STEP(listed() == 1, "nobody's record listed");
	end_child(msg);
}

START_TEST(test_squatted)
{
	char cmd[96];

	if (geteuid() != 0)
		return; /* the others are users made by root: root's test */
	snprintf(runs, sizeof(runs), "/tmp/libdl-run.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(runs));
	ck_assert_int_eq(chmod(runs, 0755), 0);
	tl_in_child(squatted, "folders named by others' uids in the package's mount");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", runs);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("publish");
	TCase *tc = tcase_create("record");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bucket_bounds);
	tcase_add_test(tc, test_loop_publishes);
	tcase_add_test(tc, test_good_record_read);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_truncated_and_oversized);
	tcase_add_test(tc, test_not_a_plain_file);
	tcase_add_test(tc, test_stale);
	tcase_add_test(tc, test_foreign_owned);
	tcase_add_test(tc, test_group);
	tcase_add_test(tc, test_random_mutations);
	tcase_add_test(tc, test_racing_writer);
	tcase_add_test(tc, test_canonical_names);
	tcase_add_test(tc, test_one_per_thread);
	tcase_add_test(tc, test_scan_bounded);
	tcase_add_test(tc, test_where_users_write);
	tcase_add_test(tc, test_squatted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
