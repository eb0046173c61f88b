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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "workload/publish.h"

#define NOBODY 65534

static char base[64], udir[96];
static struct dl_test_hooks hooks;

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/libdl-pub.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(udir, sizeof(udir), "%s/%u", base, (unsigned)geteuid());
	ck_assert_int_eq(mkdir(udir, 0700), 0);
	hooks.tasks_dir = base;
	dl_test_hooks = &hooks;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
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
	char name[16];
	int dirfd, ok = 0, busy = 0;

	ck_assert_int_eq(pthread_create(&th, NULL, writer, &w), 0);
	while (!__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	snprintf(name, sizeof(name), "%d", (int)w.tid);
	dirfd = open(udir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dirfd, 0);
	for (int i = 0; i < 20000; i++) {
		int err = dl_pub_read(dirfd, name, geteuid(), &c);

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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
