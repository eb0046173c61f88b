/*
 * Deadline misses and overruns as a loop publishes them and dl-stat
 * reports them, against the kernel.
 *
 * One process, two loop threads under SCHED_DEADLINE (sleep mode,
 * DL_PERIODIC_PUBLISH, SCHED_FLAG_DL_OVERRUN):
 *  - "overrun": runtime 10ms, deadline 20ms, period 50ms; every 5th job
 *    burns 16ms of CPU.  The kernel throttles it at 10ms and replenishes
 *    it at the next period, 50ms after its release, so that job ends past
 *    its deadline; the job after it, released then, has 4ms left of the
 *    new runtime for 200us of work and meets its own.  The 6ms it runs
 *    after the replenishment span a tick (HZ 100 and up), at which the
 *    kernel sends the overrun's SIGXCPU (docs/kernel-notes.md, "The
 *    overrun signal goes to the thread that overran").  JOBS jobs:
 *    exactly JOBS/5 misses and JOBS/5 overruns.
 *  - "steady": the same process, 200us per job, never late: 0 and 0,
 *    however many SIGXCPU its sibling got (the signal goes to the thread
 *    that overran: docs/kernel-notes.md).
 * dl-stat's table, --json and --prometheus must each say exactly that,
 * and the records go when the loops end.
 *
 * Then nobody attacks those (root's) records: a record in nobody's
 * folder naming root's thread with forged counts, a link to root's
 * record, a hard link, a FIFO, and a folder named by another user's
 * uid.  dl-stat (root) must still show the true counts and nothing of
 * nobody's, never hang, and nobody must read nothing of root's.  The
 * attacks need /run/libdl-tasks as the package mounts it (a tmpfs of its
 * own, mode 1777): the nobody and group cases make it afresh, on a /run
 * of their own (make_base), and each step of an attack that fails says
 * which and why.  Anyone may make a folder there named by another's uid:
 * nobody's folder named 0 keeps no loop of root's from publishing (root's
 * go to the state folder), and nobody's named OTHER keeps none of OTHER's
 * (in OTHER's runtime folder instead, and where there is none, a refusal
 * naming nobody's folder and the fix).
 *
 * And a loop of another user's (OTHER, holding CAP_SYS_NICE alone) run
 * with LIBDL_PUBLISH_GROUP=GROUP: its folder and record given to GROUP
 * (0750, 0640), dl-stat run by nobody in GROUP showing its counts, run
 * by nobody outside it showing none, and a user outside GROUP who asks
 * for it refused, by name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "workload/publish.h"

#define US 1000ULL
#define MS 1000000ULL
#define JOBS 26
#define EVERY 5

/* What a loop says of itself when its jobs are done. */
struct report {
	pid_t tid;
	bool overruns; /* the overrunning one */
	uint64_t misses, signals;
};

struct loop {
	const char *name;
	uint64_t runtime;
	bool overruns;
	int tid_fd, go_fd;
};

static void burn(uint64_t ns)
{
	struct timespec ts;
	uint64_t t0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec - t0 < ns);
}

static void *run_loop(void *arg)
{
	struct loop *lp = arg;
	struct dl_params p = { .runtime = lp->runtime, .deadline = 20 * MS, .period = 50 * MS,
			       .flags = DL_FLAG_DL_OVERRUN };
	struct dl_periodic *pt;
	const struct dl_job *job;
	struct report rep = { .tid = gettid(), .overruns = lp->overruns };
	char c;

	prctl(PR_SET_NAME, lp->name);
	if (dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0) < 0) {
		fprintf(stderr, "%s: %s\n", lp->name, dl_errmsg());
		rep.tid = -1;
		if (write(lp->tid_fd, &rep, sizeof(rep)) < 0)
			_exit(1);
		return NULL;
	}
	for (int i = 1; i <= JOBS; i++) {
		burn(lp->overruns && i % EVERY == 0 ? 16 * MS : 200 * US);
		dl_periodic_next(pt, &job);
	}
	rep.misses = dl_periodic_stats(pt)->misses;
	rep.signals = dl_periodic_stats(pt)->overruns;
	/* Done: stay, published, until the test has looked. */
	if (write(lp->tid_fd, &rep, sizeof(rep)) < 0 || read(lp->go_fd, &c, 1) < 0)
		_exit(1);
	dl_periodic_free(pt);
	dl_clear(0);
	return NULL;
}

static pid_t child;
static pid_t tids[2];
static int go[2];

static void stop_loops(void);

/* A process of n loops (at most 2), each a thread; as(), when given,
 * runs in it first.  Returns when every loop is done and still
 * published, with their reports; stop_loops() ends them. */
static void spawn_loops(struct loop *l, int n, void (*as)(void), struct report *rep)
{
	int tid_pipe[2];

	ck_assert_int_eq(pipe(tid_pipe), 0);
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pthread_t th[2];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		if (as)
			as();
		for (int i = 0; i < n; i++) {
			l[i].tid_fd = tid_pipe[1];
			l[i].go_fd = go[0];
			if (pthread_create(&th[i], NULL, run_loop, &l[i]))
				_exit(1);
		}
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	close(tid_pipe[1]);
	close(go[0]);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(read(tid_pipe[0], &rep[i], sizeof(rep[i])), (ssize_t)sizeof(rep[i]));
		tids[i] = rep[i].tid;
		ck_assert_msg(tids[i] > 0, "a loop could not start (its reason on stderr)");
	}
	close(tid_pipe[0]);
}

/* The process of two loops, both done and still published. */
static bool start_once(void)
{
	struct loop l[2] = { { "overrun", 10 * MS, true, -1, -1 }, { "steady", 2 * MS, false, -1, -1 } };
	struct report rep[2];

	spawn_loops(l, 2, NULL, rep);
	for (int i = 0; i < 2; i++) {
		uint64_t want = rep[i].overruns ? JOBS / EVERY : 0;

		if (rep[i].misses != want || rep[i].signals != want) {
			tl_note("thread %d counted %llu misses and %llu overruns, not %llu: the machine was busy, again",
				(int)tids[i], (unsigned long long)rep[i].misses, (unsigned long long)rep[i].signals,
				(unsigned long long)want);
			return false;
		}
	}
	return true;
}

/* The loops miss and overrun as designed unless other work on the
 * machine delays a short job past its deadline: then they run again
 * (at most 3 times), so that the counts dl-stat must report are known. */
static void start_loops(void)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		if (start_once())
			return;
		stop_loops();
	}
	ck_abort_msg("3 runs in a row were disturbed: the machine is too busy for exact counts");
}

static void stop_loops(void)
{
	if (child <= 0)
		return;
	close(go[1]);
	ck_assert_int_eq(tl_wait(child), 0);
	child = 0;
}

static void stop_loops_fixture(void)
{
	if (child > 0) {
		tl_kill(child);
		child = 0;
	}
}

static char comm_of(pid_t tid)
{
	char path[64];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)child, (int)tid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	c = fgetc(f);
	fclose(f);
	return (char)c; /* 'o'verrun or 's'teady */
}

static void want_for(pid_t tid, uint64_t *misses, uint64_t *overruns)
{
	bool bad = comm_of(tid) == 'o';

	*misses = bad ? JOBS / EVERY : 0;
	*overruns = bad ? JOBS / EVERY : 0;
}

/* The number after "key" (and a colon or space) in text from p on. */
static uint64_t num_after(const char *p, const char *key)
{
	const char *q = strstr(p, key);

	ck_assert_msg(q, "no %s in %s", key, p);
	q += strlen(key);
	while (*q == ':' || *q == ' ' || *q == '"')
		q++;
	return strtoull(q, NULL, 10);
}

static char out[1 << 20], err[4096];

static void path_of(char *buf, size_t len, unsigned uid, pid_t tid)
{
	snprintf(buf, len, DL_PUB_DIR "/%u/%d", uid, (int)tid);
}

/* Where root's loops publish (dl_periodic_start(3)): the state folder,
 * root's alone. */
static void root_path_of(char *buf, size_t len, pid_t tid)
{
	snprintf(buf, len, DL_STATE_DIR "/" DL_PUB_ROOT_SUB "/%d", (int)tid);
}


START_TEST(test_table)
{
	start_loops();
	ck_assert_int_eq(tl_run_tool("dl-stat", (char *[]){ "--tasks", NULL }, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_msg(strstr(out, "JOBS") && strstr(out, "MISSED") && strstr(out, "OVR"), "%s", out);
	for (int i = 0; i < 2; i++) {
		char key[32], *line;
		unsigned long long jobs, missed, ovr;
		uint64_t wm, wo;

		snprintf(key, sizeof(key), "\n%-7d %-7d ", (int)child, (int)tids[i]);
		line = strstr(out, key);
		ck_assert_msg(line, "no line for thread %d in\n%s", (int)tids[i], out);
		/* PID TID COMMAND RUNTIME DEADLINE PERIOD UTIL JOBS MISSED OVR */
		ck_assert_int_eq(sscanf(line, "%*d %*d %*s %*s %*s %*s %*s %llu %llu %llu", &jobs, &missed, &ovr), 3);
		want_for(tids[i], &wm, &wo);
		ck_assert_uint_eq(jobs, JOBS);
		ck_assert_uint_eq(missed, wm);
		ck_assert_uint_eq(ovr, wo);
	}
	stop_loops();
}
END_TEST

/* dl-stat --tasks --json, as root, into out. */
static void stat_json(void)
{
	ck_assert_int_eq(tl_run_tool("dl-stat", (char *[]){ "--tasks", "--json", NULL }, out, sizeof(out), err, sizeof(err)), 0);
}

/* The counters object of thread tid in out (stat_json). */
static const char *counters_of(pid_t tid)
{
	char key[32];
	const char *obj, *c;

	snprintf(key, sizeof(key), "\"tid\":%d,", (int)tid);
	obj = strstr(out, key);
	ck_assert_msg(obj, "no %s in %s", key, out);
	c = strstr(obj, "\"counters\":{");
	ck_assert_msg(c, "no counters for %d in %s", (int)tid, obj);
	return c;
}

/* dl-stat --json gives both loops their true counts. */
static void json_counts_true(void)
{
	stat_json();
	for (int i = 0; i < 2; i++) {
		const char *c = counters_of(tids[i]);
		uint64_t wm, wo;

		want_for(tids[i], &wm, &wo);
		ck_assert_uint_eq(num_after(c, "\"jobs\""), JOBS);
		ck_assert_uint_eq(num_after(c, "\"deadline_misses\""), wm);
		ck_assert_uint_eq(num_after(c, "\"overruns\""), wo);
	}
}

START_TEST(test_json)
{
	start_loops();
	json_counts_true();
	stop_loops();
}
END_TEST

START_TEST(test_prometheus)
{
	start_loops();
	ck_assert_int_eq(tl_run_tool("dl-stat", (char *[]){ "--tasks", "--prometheus", "--pid-labels", NULL }, out,
				     sizeof(out), err, sizeof(err)),
			 0);
	for (int i = 0; i < 2; i++) {
		static const char *const fam[] = { "libdl_task_jobs_total{", "libdl_task_deadline_misses_total{",
						   "libdl_task_overruns_total{", "libdl_task_response_seconds_count{" };
		uint64_t wm, wo, want[4];
		char tidl[32];

		want_for(tids[i], &wm, &wo);
		want[0] = JOBS, want[1] = wm, want[2] = wo, want[3] = JOBS;
		snprintf(tidl, sizeof(tidl), "tid=\"%d\"", (int)tids[i]);
		for (int k = 0; k < 4; k++) {
			const char *p = out;
			bool found = false;

			while ((p = strstr(p, fam[k]))) {
				const char *eol = strchr(p, '\n'), *t = strstr(p, tidl);

				if (t && t < eol) {
					ck_assert_msg(strtoull(strchr(p, '}') + 1, NULL, 10) == want[k], "%.*s: want %llu",
						      (int)(eol - p), p, (unsigned long long)want[k]);
					found = true;
				}
				p = eol;
			}
			ck_assert_msg(found, "no %s sample for %s in\n%s", fam[k], tidl, out);
		}
	}
	stop_loops();
}
END_TEST

/* The loops end: their records go with them. */
START_TEST(test_removed_at_end)
{
	struct dl_task_counts *c;
	size_t n;

	start_loops();
	ck_assert_int_ge(dl_counts_list(&c, &n), 0);
	for (int i = 0; i < 2; i++) {
		bool seen = false;

		for (size_t k = 0; k < n; k++)
			seen |= c[k].tid == tids[i];
		ck_assert_msg(seen, "thread %d publishes nothing", (int)tids[i]);
	}
	free(c);
	for (int i = 0; i < 2; i++) {
		char path[64];

		root_path_of(path, sizeof(path), tids[i]);
		ck_assert_msg(access(path, F_OK) == 0, "no record %s while its loop runs", path);
	}
	stop_loops();
	for (int i = 0; i < 2; i++) {
		char path[64];

		root_path_of(path, sizeof(path), tids[i]);
		ck_assert_msg(access(path, F_OK) < 0, "%s is left", path);
	}
}
END_TEST

/* ---------------------------------------------------------- nobody */

#define NOBODY 65534
#define OTHER 4242 /* a uid no one on the machine has */
#define GROUP 4243 /* a group no one on the machine is in: the readers' */

static void (*nobody_fn)(void);

static void nobody_then(void)
{
	TL_STEP(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0, "becoming uid %u", NOBODY);
	nobody_fn();
}

/* fn in a child as nobody, each step checked (TL_STEP). */
static void as_nobody(void (*fn)(void), const char *what)
{
	char said[256];

	nobody_fn = fn;
	snprintf(said, sizeof(said), "%s (as nobody)", what);
	tl_in_child(nobody_then, said);
}

/* As nobody: the attacks. */
static void attack(void)
{
	struct dl_pubrec r;
	unsigned long long start = 0;
	char path[128], stat_path[96], target[128], buf[512], *p;
	FILE *f;
	int fd;

	/* Nobody's own folder, and one named by another user's uid. */
	TL_STEP(mkdir(DL_PUB_DIR "/65534", 0700) == 0, "mkdir " DL_PUB_DIR "/65534");
	TL_STEP(mkdir(DL_PUB_DIR "/4242", 0700) == 0, "mkdir " DL_PUB_DIR "/4242");
	/* A well-formed record naming root's "overrun" thread, as nobody's
	 * and as OTHER's, with forged counts. */
	snprintf(stat_path, sizeof(stat_path), "/proc/%d/task/%d/stat", (int)child, (int)tids[0]);
	TL_STEP((f = fopen(stat_path, "r")) != NULL, "open %s", stat_path);
	TL_STEP(fgets(buf, sizeof(buf), f) != NULL, "read %s", stat_path);
	fclose(f);
	/* field 22, after the ")" that ends the name */
	p = strrchr(buf, ')');
	for (int i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	TL_STEP(p != NULL, "no field 22 in %s: %s", stat_path, buf);
	start = strtoull(p + 1, NULL, 10);
	for (int k = 0; k < 2; k++) {
		unsigned uid = k ? OTHER : NOBODY;

		memset(&r, 0, sizeof(r));
		memcpy(r.magic, DL_PUB_MAGIC, sizeof(r.magic));
		r.version = DL_PUB_VERSION;
		r.size = DL_PUB_SIZE;
		r.pid = child;
		r.tid = tids[0];
		r.uid = uid;
		r.nbuckets = DL_COUNTS_BUCKETS;
		r.start_time = start;
		strcpy(r.comm, "overrun");
		r.jobs = r.misses = r.buckets[0] = 999;
		path_of(path, sizeof(path), uid, tids[0]);
		TL_STEP((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0, "create the forged record %s", path);
		TL_STEP(write(fd, &r, sizeof(r)) == (ssize_t)sizeof(r), "write the forged record %s", path);
		close(fd);
	}
	/* A link to root's record of the other thread. */
	root_path_of(target, sizeof(target), tids[1]);
	path_of(path, sizeof(path), NOBODY, tids[1]);
	TL_STEP(symlink(target, path) == 0, "symlink %s -> %s", path, target);
	/* A hard link to a root-owned file everyone may read, named by
	 * this test's own (root's) thread: refused by the kernel's
	 * protected_hardlinks, or impossible across file systems (/etc is
	 * not the tmpfs), or made and then refused by the reader. */
	path_of(path, sizeof(path), NOBODY, getppid());
	TL_STEP(link("/etc/passwd", path) == 0 || errno == EPERM || errno == EXDEV, "link %s -> /etc/passwd", path);
	/* A FIFO named by init's thread. */
	path_of(path, sizeof(path), NOBODY, 1);
	TL_STEP(mkfifo(path, 0600) == 0, "mkfifo %s", path);
	/* Root's records cannot be read. */
	root_path_of(path, sizeof(path), tids[0]);
	TL_STEP(access(path, F_OK) == 0 || errno == EACCES, "root's record %s is not there", path);
	TL_STEP((fd = open(path, O_RDONLY)) < 0 && errno == EACCES,
		"root's record %s opened by nobody (fd %d), not refused with EACCES", path, fd);
}

/* As nobody: dl_counts_list gives nothing of root's. */
static void list_as_nobody(void)
{
	struct dl_task_counts *c;
	size_t n;

	TL_STEP(dl_counts_list(&c, &n) >= 0, "dl_counts_list: %s", dl_errmsg());
	for (size_t i = 0; i < n; i++)
		TL_STEP(c[i].uid == NOBODY, "dl_counts_list gives nobody thread %d of uid %u", (int)c[i].tid,
		     (unsigned)c[i].uid);
	free(c);
}

/* ------------------------------------------------ the package's mount */

static bool run_mounted, base_mounted;

/* /run/libdl-tasks as the package mounts it (run-libdl\x2dtasks.mount:
 * a tmpfs of its own, mode 1777), where users other than root publish,
 * made afresh: on a /run of this test's own (a tmpfs), in a mount
 * namespace of the test's process, which its loops and dl-stat inherit.
 * The host's /run, and its /run/libdl-tasks, are never written. */
static void make_base(void)
{
	ck_assert_int_eq(tl_private_mounts(), 0);
	ck_assert_msg(mount("libdl-test-run", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") == 0,
		      "a tmpfs on /run: %s", strerror(errno));
	run_mounted = true;
	ck_assert_msg(mkdir(DL_PUB_DIR, 0755) == 0, "mkdir %s: %s", DL_PUB_DIR, strerror(errno));
	ck_assert_msg(mount("libdl-tasks", DL_PUB_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			    "mode=1777,size=16m,nr_inodes=4096") == 0,
		      "the package's tmpfs on %s: %s", DL_PUB_DIR, strerror(errno));
	base_mounted = true;
}

/* Only for a test run in the suite's own process (CK_FORK=no): a forked
 * test's namespace goes with it. */
static void remove_base(void)
{
	if (base_mounted)
		umount2(DL_PUB_DIR, MNT_DETACH);
	if (run_mounted)
		umount2("/run", MNT_DETACH);
	base_mounted = run_mounted = false;
}

START_TEST(test_nobody_cannot_spoof)
{
	struct dl_task_counts *c;
	size_t n;
	const char *obj;

	make_base();
	start_loops();
	as_nobody(attack, "the attack");
	ck_assert_int_ge(dl_counts_list(&c, &n), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(c[i].uid == 0, "a record of uid %u is believed (tid %d)", (unsigned)c[i].uid, (int)c[i].tid);
		ck_assert_uint_ne(c[i].jobs, 999);
	}
	free(c);
	stat_json();
	obj = counters_of(tids[0]);
	{
		uint64_t wm, wo;

		want_for(tids[0], &wm, &wo);
		ck_assert_uint_eq(num_after(obj, "\"jobs\""), JOBS);
		ck_assert_uint_eq(num_after(obj, "\"deadline_misses\""), wm);
	}
	as_nobody(list_as_nobody, "nobody's listing");
	stop_loops();
}
END_TEST

/* As nobody: a folder named by root's uid, and another by OTHER's,
 * first, in the mount anyone may write to. */
static void squat(void)
{
	TL_STEP(mkdir(DL_PUB_DIR "/0", 0755) == 0, "mkdir " DL_PUB_DIR "/0");
	TL_STEP(mkdir(DL_PUB_DIR "/4242", 0755) == 0, "mkdir " DL_PUB_DIR "/4242");
}

/* Nobody's folder named 0 stops no loop of root's: its records are in
 * the state folder, dl-stat shows their true counts. */
START_TEST(test_root_preempted)
{
	char path[128];

	make_base();
	as_nobody(squat, "making folders named by others' uids");
	start_loops();
	for (int i = 0; i < 2; i++) {
		root_path_of(path, sizeof(path), tids[i]);
		ck_assert_msg(access(path, F_OK) == 0, "no record %s", path);
	}
	json_counts_true();
	stop_loops();
}
END_TEST

/* This process becomes OTHER, holding CAP_SYS_NICE alone, naming no
 * group. */
static void become_other_alone(void)
{
	if (unsetenv("LIBDL_PUBLISH_GROUP") || !tl_become_with_nice(OTHER, OTHER, NULL, 0))
		_exit(120);
}

#define OTHER_RUN "/run/user/4242"

/* As OTHER, with nobody's folder named OTHER in the mount and no runtime
 * folder: refused, naming that folder, its maker and the fix; with a
 * group, which the runtime folder could not serve, the same. */
static void refused_squatted(void)
{
	struct dl_params p = { .runtime = 2 * MS, .deadline = 20 * MS, .period = 50 * MS };
	struct dl_periodic *pt;
	gid_t groups[1] = { GROUP };
	int rc;

	TL_STEP(tl_become_with_nice(OTHER, OTHER, groups, 1), "becoming uid %u with CAP_SYS_NICE", OTHER);
	rc = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0);
	TL_STEP(rc == -ENOENT, "dl_periodic_start gave %d, not -ENOENT: %s", rc, dl_errmsg());
	TL_STEP(strstr(dl_errmsg(), DL_PUB_DIR "/4242 was made by uid 65534, not by uid 4242") &&
		     strstr(dl_errmsg(), "remove it (rm -r " DL_PUB_DIR "/4242;") &&
		     strstr(dl_errmsg(), OTHER_RUN " does not exist") && strstr(dl_errmsg(), "enable-linger"),
	     "the refusal does not name the folder, its maker and the fixes: %s", dl_errmsg());
	TL_STEP(sched_getscheduler(0) == SCHED_OTHER, "the refused loop's thread has policy %d", sched_getscheduler(0));
	TL_STEP(setenv("LIBDL_PUBLISH_GROUP", "4243", 1) == 0, "setenv LIBDL_PUBLISH_GROUP");
	rc = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0);
	TL_STEP(rc == -EPERM, "with a group, dl_periodic_start gave %d, not -EPERM: %s", rc, dl_errmsg());
	TL_STEP(strstr(dl_errmsg(), "LIBDL_PUBLISH_GROUP asks for a group") &&
		     strstr(dl_errmsg(), DL_PUB_DIR "/4242 was made by uid 65534") &&
		     strstr(dl_errmsg(), "remove it (rm -r " DL_PUB_DIR "/4242;"),
	     "with a group, the refusal does not name the folder, its maker and the fix: %s", dl_errmsg());
}

/* Nobody's folder named OTHER stops no loop of OTHER's that has a
 * runtime folder (as logind makes it): its record goes there, and
 * dl-stat shows its true counts. */
START_TEST(test_user_preempted)
{
	struct report rep;
	struct stat st;
	char path[128];
	const char *obj;

	make_base();
	as_nobody(squat, "making folders named by others' uids");
	tl_in_child(refused_squatted, "uid 4242 with nobody's folder in its place and no runtime folder");
	ck_assert_int_eq(mkdir("/run/user", 0755), 0);
	ck_assert_int_eq(mkdir(OTHER_RUN, 0700), 0);
	ck_assert_int_eq(chown(OTHER_RUN, OTHER, OTHER), 0);
	spawn_loops(&(struct loop){ "squatted", 2 * MS, false, -1, -1 }, 1, become_other_alone, &rep);
	snprintf(path, sizeof(path), OTHER_RUN "/" DL_PUB_USER_DIR "/%d", (int)rep.tid);
	ck_assert_msg(stat(path, &st) == 0 && st.st_uid == OTHER, "no record of uid %u's at %s", OTHER, path);
	ck_assert_int_eq(stat(DL_PUB_DIR "/4242", &st), 0);
	ck_assert_msg(st.st_uid == NOBODY, "nobody's folder is uid %u's", (unsigned)st.st_uid);
	stat_json();
	obj = counters_of(rep.tid);
	ck_assert_uint_eq(num_after(obj, "\"jobs\""), JOBS);
	ck_assert_uint_eq(num_after(obj, "\"deadline_misses\""), rep.misses);
	stop_loops();
}
END_TEST

/* ----------------------------------------------------------- group */

static char group_dir[64] = DL_PUB_DIR "/4242";

/* This process becomes OTHER, in GROUP when in_group, holding
 * CAP_SYS_NICE alone; its loops publish for GROUP. */
static void become_other(bool in_group)
{
	gid_t groups[1] = { GROUP };

	if (setenv("LIBDL_PUBLISH_GROUP", "4243", 1) || !tl_become_with_nice(OTHER, OTHER, groups, in_group))
		_exit(120);
}

static void become_member(void)
{
	become_other(true);
}

/* dl-stat --tasks --json as nobody with primary group gid: the
 * counters object of the loop's thread, or NULL when it has none. */
static const char *counters_as_nobody(gid_t gid, pid_t tid)
{
	char *argv[] = { (char *)tl_tool_for_anyone("dl-stat"), "--tasks", "--json", NULL };
	char key[32];
	const char *obj, *next;

	ck_assert_msg(tl_run_as(argv, NOBODY, gid, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	snprintf(key, sizeof(key), "\"tid\":%d,", (int)tid);
	obj = strstr(out, key);
	ck_assert_msg(obj, "dl-stat as nobody (group %u) does not list thread %d: %s", (unsigned)gid, (int)tid, out);
	next = strstr(obj + 1, "\"tid\":");
	obj = strstr(obj, "\"counters\":{");
	return obj && (!next || obj < next) ? obj : NULL;
}

static void open_as_nobody_outside(void)
{
	char path[128];
	int fd;

	path_of(path, sizeof(path), OTHER, tids[0]);
	TL_STEP((fd = open(path, O_RDONLY)) < 0 && errno == EACCES, "%s opened (fd %d), not refused with EACCES", path, fd);
	TL_STEP((fd = open(group_dir, O_RDONLY | O_DIRECTORY)) < 0 && errno == EACCES,
		"%s opened (fd %d), not refused with EACCES", group_dir, fd);
}

START_TEST(test_group_reads)
{
	struct report rep;
	struct stat st;
	char path[128];
	const char *c;

	make_base();
	spawn_loops(&(struct loop){ "grouped", 2 * MS, false, -1, -1 }, 1, become_member, &rep);
	ck_assert_int_eq(stat(group_dir, &st), 0);
	ck_assert_msg(st.st_uid == OTHER && st.st_gid == GROUP && (st.st_mode & 07777) == 0750,
		      "%s: owner %u, group %u, mode %04o", group_dir, (unsigned)st.st_uid, (unsigned)st.st_gid,
		      (unsigned)(st.st_mode & 07777));
	path_of(path, sizeof(path), OTHER, rep.tid);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg(st.st_uid == OTHER && st.st_gid == GROUP && (st.st_mode & 07777) == 0640,
		      "%s: owner %u, group %u, mode %04o", path, (unsigned)st.st_uid, (unsigned)st.st_gid,
		      (unsigned)(st.st_mode & 07777));
	/* A member, not root, reads them. */
	c = counters_as_nobody(GROUP, rep.tid);
	ck_assert_msg(c, "dl-stat as a member of group %u shows no counters for %d: %s", GROUP, (int)rep.tid, out);
	ck_assert_uint_eq(num_after(c, "\"jobs\""), JOBS);
	ck_assert_uint_eq(num_after(c, "\"deadline_misses\""), rep.misses);
	/* Anyone else does not. */
	ck_assert_msg(!counters_as_nobody(NOBODY, rep.tid), "nobody outside group %u reads %d's counters: %s", GROUP,
		      (int)rep.tid, out);
	as_nobody(open_as_nobody_outside, "opening group 4243's record and folder");
	stop_loops();
	ck_assert_msg(access(path, F_OK) < 0, "%s is left", path);
}
END_TEST

static void root_for_group(void)
{
	if (setenv("LIBDL_PUBLISH_GROUP", "4243", 1))
		_exit(120);
}

/* A loop of root's for GROUP: its record in the state folder, which the
 * group may pass through, read by a member, not by anyone else. */
START_TEST(test_group_reads_root)
{
	struct report rep;
	const char *c;

	make_base();
	spawn_loops(&(struct loop){ "rootgrp", 2 * MS, false, -1, -1 }, 1, root_for_group, &rep);
	c = counters_as_nobody(GROUP, rep.tid);
	ck_assert_msg(c, "dl-stat as a member of group %u shows no counters for root's %d: %s", GROUP, (int)rep.tid, out);
	ck_assert_uint_eq(num_after(c, "\"jobs\""), JOBS);
	ck_assert_msg(!counters_as_nobody(NOBODY, rep.tid), "nobody outside group %u reads root's %d: %s", GROUP,
		      (int)rep.tid, out);
	stop_loops();
}
END_TEST

/* OTHER outside GROUP asks for it: refused, naming the variable, and
 * no reservation made. */
static void refused_outside(void)
{
	struct dl_params p = { .runtime = 2 * MS, .deadline = 20 * MS, .period = 50 * MS };
	struct dl_periodic *pt;
	char path[128];

	gid_t groups[1] = { GROUP };
	int rc;

	TL_STEP(setenv("LIBDL_PUBLISH_GROUP", "4243", 1) == 0, "setenv LIBDL_PUBLISH_GROUP");
	TL_STEP(tl_become_with_nice(OTHER, OTHER, groups, 0), "becoming uid %u with CAP_SYS_NICE", OTHER);
	rc = dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0);
	TL_STEP(rc == -EPERM, "dl_periodic_start gave %d, not -EPERM: %s", rc, dl_errmsg());
	TL_STEP(strstr(dl_errmsg(), "not in that group") && strstr(dl_errmsg(), "LIBDL_PUBLISH_GROUP"),
	     "the refusal does not name the group's rule: %s", dl_errmsg());
	path_of(path, sizeof(path), OTHER, gettid());
	TL_STEP(access(path, F_OK) < 0, "the refused loop left %s", path);
	/* Refused, the thread keeps its policy (dl_periodic_start(3)). */
	TL_STEP(sched_getscheduler(0) == SCHED_OTHER, "the refused loop's thread has policy %d", sched_getscheduler(0));
}

START_TEST(test_group_refused_outside)
{
	make_base();
	tl_in_child(refused_outside, "uid 4242 outside group 4243");
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("misses");
	TCase *tc = tcase_create("counted");

	tcase_add_checked_fixture(tc, NULL, stop_loops_fixture);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_prometheus);
	tcase_add_test(tc, test_removed_at_end);
	suite_add_tcase(s, tc);
	tc = tcase_create("nobody");
	tcase_add_checked_fixture(tc, NULL, stop_loops_fixture);
	tcase_add_checked_fixture(tc, NULL, remove_base);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_nobody_cannot_spoof);
	tcase_add_test(tc, test_root_preempted);
	tcase_add_test(tc, test_user_preempted);
	suite_add_tcase(s, tc);
	tc = tcase_create("group");
	tcase_add_checked_fixture(tc, NULL, stop_loops_fixture);
	tcase_add_checked_fixture(tc, NULL, remove_base);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_group_reads);
	tcase_add_test(tc, test_group_refused_outside);
	tcase_add_test(tc, test_group_reads_root);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
