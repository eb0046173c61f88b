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
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define US 1000ULL
#define MS 1000000ULL
#define JOBS 26
#define EVERY 5

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
	pid_t tid = gettid();
	char c;

	prctl(PR_SET_NAME, lp->name);
	if (dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0) < 0) {
		fprintf(stderr, "%s: %s\n", lp->name, dl_errmsg());
		tid = -1;
		if (write(lp->tid_fd, &tid, sizeof(tid)) < 0)
			_exit(1);
		return NULL;
	}
	for (int i = 1; i <= JOBS; i++) {
		burn(lp->overruns && i % EVERY == 0 ? 16 * MS : 200 * US);
		dl_periodic_next(pt, &job);
	}
	/* Done: stay, published, until the test has looked. */
	if (write(lp->tid_fd, &tid, sizeof(tid)) < 0 || read(lp->go_fd, &c, 1) < 0)
		_exit(1);
	dl_periodic_free(pt);
	dl_clear(0);
	return NULL;
}

static pid_t child;
static pid_t tids[2];
static int go[2];

/* The process of two loops, both done and still published. */
static void start_loops(void)
{
	int tid_pipe[2];

	ck_assert_int_eq(pipe(tid_pipe), 0);
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct loop l[2] = {
			{ "overrun", 10 * MS, true, tid_pipe[1], go[0] },
			{ "steady", 2 * MS, false, tid_pipe[1], go[0] },
		};
		pthread_t th[2];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		for (int i = 0; i < 2; i++)
			if (pthread_create(&th[i], NULL, run_loop, &l[i]))
				_exit(1);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	close(tid_pipe[1]);
	close(go[0]);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(read(tid_pipe[0], &tids[i], sizeof(pid_t)), (ssize_t)sizeof(pid_t));
	close(tid_pipe[0]);
	ck_assert_msg(tids[0] > 0 && tids[1] > 0, "a loop could not start (its reason on stderr)");
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

START_TEST(test_json)
{
	start_loops();
	ck_assert_int_eq(tl_run_tool("dl-stat", (char *[]){ "--tasks", "--json", NULL }, out, sizeof(out), err, sizeof(err)), 0);
	for (int i = 0; i < 2; i++) {
		char key[32];
		const char *obj, *c;
		uint64_t wm, wo;

		snprintf(key, sizeof(key), "\"tid\":%d,", (int)tids[i]);
		obj = strstr(out, key);
		ck_assert_msg(obj, "no %s in %s", key, out);
		c = strstr(obj, "\"counters\":{");
		ck_assert_msg(c, "no counters for %d in %s", (int)tids[i], obj);
		want_for(tids[i], &wm, &wo);
		ck_assert_uint_eq(num_after(c, "\"jobs\""), JOBS);
		ck_assert_uint_eq(num_after(c, "\"deadline_misses\""), wm);
		ck_assert_uint_eq(num_after(c, "\"overruns\""), wo);
	}
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
	stop_loops();
	for (int i = 0; i < 2; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/run/libdl-tasks/0/%d", (int)tids[i]);
		ck_assert_msg(access(path, F_OK) < 0, "%s is left", path);
	}
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
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
