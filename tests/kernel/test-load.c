/*
 * dl_load_run() and dl-load on the real kernel, in a layout of the
 * suite's own (dl-part --no-move: partition0 on CPU 0, the cluster on
 * CPU 1; the machine's tasks are not moved):
 *  - two light tasks alone in the one-CPU cluster miss almost nothing,
 *    in both modes, and the kernel puts them (and a command task) where
 *    place= says;
 *  - a task whose work exceeds its runtime is throttled by the kernel:
 *    every job waits for a replenishment, its SIGXCPU overruns and its
 *    misses are counted, by the thread that overran when the tasks are
 *    threads of one process;
 *  - work is CPU time and spin wall-clock time (rt-app's run and
 *    runtime): on one CPU, a task preempted by an earlier deadline
 *    burns its whole work in each job, while a spin of the same length
 *    takes less CPU by the time it was preempted;
 *  - a refused task stops the whole load, with the kernel's reason, at
 *    once when it is a thread beside a task's own process;
 *  - the tasks without a place run as threads of one process, as the
 *    kernel lists them while they run (each task its own process with
 *    DL_LOAD_PROCESSES, and a placed task always);
 *  - rt-app's own examples of deadline tasks run as written;
 *  - memory: dl-load's jobs after the first take no page fault (their
 *    memory locked and touched first), a loop of the public API that
 *    touches a fresh page each job counts one in each, and none once
 *    dl_prefault() locked the memory; a user whose RLIMIT_MEMLOCK is
 *    too low is told so and how to raise it, and --no-mlock runs; one
 *    whose RLIMIT_NPROC leaves no room for the tasks' threads is told
 *    that at once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define US 1000ULL
#define MS 1000000ULL
#define CPUSET "/sys/fs/cgroup/cpuset"

static char root_lb[16];
static char probe_file[64];

static struct dl_taskset *tasks(const char *text)
{
	struct dl_taskset *ts = NULL;

	ck_assert_msg(dl_taskset_parse(text, strlen(text), "test", &ts) == 0, "%s", dl_errmsg());
	return ts;
}

static const struct dl_load_task *task_named(const struct dl_load *l, const char *name)
{
	for (size_t i = 0; i < dl_load_count(l); i++)
		if (strcmp(dl_load_task(l, i)->spec->name, name) == 0)
			return dl_load_task(l, i);
	ck_abort_msg("no task %s", name);
	return NULL;
}

static void layout_up(void)
{
	tl_layout_cpu0();
}

static void layout_down(void)
{
	tl_layout_restore(root_lb);
	unlink(probe_file);
}

/* One run of the two light tasks (and a command probe) in the cluster.
 * Returns true when both missed almost nothing; what does not depend on
 * the machine's noise is asserted here. */
static bool lights_once(int mode, const char *name, int attempt)
{
	char text[512], got[512] = "", *pol;
	struct dl_taskset *ts;
	struct dl_load *l;
	bool quiet = true;
	int err;

	snprintf(probe_file, sizeof(probe_file), "/tmp/libdl-test-load.%d", (int)getpid());
	unlink(probe_file);
	snprintf(text, sizeof(text),
		 "light 2.5ms 8ms 8ms work=2.4ms count=2 place=cluster\n"
		 "probe 1ms 100ms 100ms place=cluster flags=reset-on-fork -- sh -c 'cat /proc/self/cpuset > %s; grep ^policy /proc/$$/sched >> %s; exec sleep 10'\n",
		 probe_file, probe_file);
	ts = tasks(text);
	err = dl_load_run(ts, mode, 2000 * MS, 0, 0, &l);
	ck_assert_msg(err == 0, "%s", dl_errmsg());
	for (int i = 1; i <= 2; i++) {
		char n[16];
		const struct dl_load_task *t;
		const struct dl_periodic_stats *s;

		snprintf(n, sizeof(n), "light.%d", i);
		t = task_named(l, n);
		s = t->stats;
		tl_note("%s mode, try %d, %s in the one-CPU cluster: %llu jobs, %llu missed, %llu skipped, %llu shifts; response p50 %.3f p99 %.3f max %.3f ms",
			name, attempt, n, (unsigned long long)s->jobs, (unsigned long long)s->misses,
			(unsigned long long)s->skipped, (unsigned long long)s->reanchors,
			s->response_p50 / 1e6, s->response_p99 / 1e6, s->response_max / 1e6);
		ck_assert_int_eq(t->err, 0);
		/* 2 s of 8 ms periods: 250 at most, fewer when a stall of the
		 * machine ate the last ones. */
		ck_assert_uint_le(s->jobs + s->skipped, 252);
		/* A job burns 2.4 ms of CPU: no response is shorter; and with
		 * only the other light task on the CPU, most jobs end within
		 * two jobs' work (the old release grid measured no response
		 * under 7.5 ms here).  A host busy for the whole run keeps
		 * the CPU from them long enough to pass that (a p50 of
		 * 8.7 ms, with the VM suites' TCG guests and the arm64 cross
		 * builds beside it): such a run is tried again, as one that
		 * a stall hit, so the run that passes had it. */
		ck_assert_uint_ge(s->response_min, 2400 * US);
		if (s->response_p50 > 5800 * US)
			quiet = false;
		/* 0.6 of one CPU under EDF: only the machine's noise misses.
		 * This VM's, when its host is busy, is jobs kept 8-10 ms off
		 * their CPU (2 to 8% missed) and stalls of 100 ms; quiet, 0
		 * to 2 of 250.  The old release grid counted 30 to 78% here.
		 * A run that a stall hit (a response of two periods, lost
		 * periods) is tried again. */
		if (s->jobs + s->skipped < 245 || s->misses * 10 > s->jobs ||
		    s->response_max > 16 * MS)
			quiet = false;
	}
	/* The command ran under its reservation in the cluster, as the
	 * kernel reports it, and was stopped at the end. */
	dl_read_file(probe_file, got, sizeof(got));
	ck_assert_msg(strstr(got, "/libdl/cluster\n"), "the command's cpuset: %s", got);
	pol = strstr(got, "policy");
	ck_assert_msg(pol && strchr(pol, ':') && atoi(strchr(pol, ':') + 1) == DL_SCHED_DEADLINE,
		      "the command's policy: %s", got);
	ck_assert(WIFSIGNALED(task_named(l, "probe")->status));
	dl_load_free(l);
	dl_taskset_free(ts);
	return quiet;
}

/* This machine is a virtual one whose host stops it now and then for
 * 100 ms or more, and keeps a CPU from it for 8-10 ms, when the host is
 * busy: a run that this hit is tried again, four times at most, and the
 * notes say so. */
static void run_lights(int mode, const char *name)
{
	for (int attempt = 1; attempt <= 5; attempt++) {
		if (lights_once(mode, name, attempt))
			return;
		if (attempt < 5)
			sleep(3);
	}
	ck_abort_msg("%s mode: the light tasks missed more than 10%% of their deadlines, or a stall hit them, or half their jobs took over 5.8 ms, in 5 runs of 2 s: see the notes",
		     name);
}

START_TEST(test_lights_sleep)
{
	run_lights(DL_PERIODIC_SLEEP, "sleep");
}
END_TEST

START_TEST(test_lights_yield)
{
	run_lights(DL_PERIODIC_YIELD, "yield");
}
END_TEST

/* 3 ms of work on a 2 ms runtime every 10 ms: the kernel throttles each
 * job when its runtime runs out and lets it go on only at the next
 * replenishment, so no job ends before its next period and every one
 * misses; DL_OVERRUN's SIGXCPU says so. */
static bool overrun_once(int mode, const char *name, int attempt)
{
	struct dl_taskset *ts = tasks("over 2ms 10ms 10ms work=3ms flags=overrun-signal place=partition0\n");
	const struct dl_periodic_stats *s;
	const struct dl_load_task *t;
	struct dl_load *l;
	uint64_t sum = 0;
	bool ok;

	ck_assert_msg(dl_load_run(ts, mode, 1000 * MS, 0, DL_LOAD_KEEP_JOBS, &l) == 0, "%s", dl_errmsg());
	t = task_named(l, "over");
	s = t->stats;
	tl_note("%s mode, try %d, 3 ms of work on 2 ms / 10 ms: %llu jobs, %llu missed, %llu skipped, %llu overruns; response min %.3f max %.3f ms",
		name, attempt, (unsigned long long)s->jobs, (unsigned long long)s->misses, (unsigned long long)s->skipped,
		(unsigned long long)s->overruns, s->response_min / 1e6, s->response_max / 1e6);
	ck_assert_int_eq(t->err, 0);
	ck_assert_msg(WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0, "status %d", t->status);
	/* A stall of the machine (a job of two periods and more) charges
	 * the running task and shifts the releases against the kernel's
	 * replenishments: a job may then start on a budget left from the
	 * one before and end within its period (seen once, beside make
	 * check's VM lane: 65 of 66 missed, response min 7.7 ms, max 44.6
	 * ms).  Such a run shows nothing about throttling: try again. */
	if (s->response_max > 25 * MS) {
		tl_note("%s mode, try %d: a stall (a job of %.3f ms): not counted", name, attempt, s->response_max / 1e6);
		dl_load_free(l);
		dl_taskset_free(ts);
		return false;
	}
	/* Otherwise every job missed, burned its 3 ms, and its overruns
	 * add up. */
	ck_assert_uint_eq(s->misses, s->jobs);
	ck_assert_uint_eq(t->njobs, s->jobs);
	for (size_t i = 0; i < t->njobs; i++) {
		ck_assert(!t->jobs[i].met);
		ck_assert_uint_ge(t->jobs[i].cpu, 3 * MS);
		sum += t->jobs[i].overruns;
	}
	ck_assert_uint_eq(sum, s->overruns);
	/* 100 periods, 3 ms of work for 2 ms of budget: at most 2/3 of them
	 * run a job, the others are skipped; throttled, a job of 3 ms of
	 * CPU on an idle CPU takes more than a period; the kernel flags an
	 * overrun and sends SIGXCPU from a tick that finds the task
	 * running, so overruns between two such ticks make one signal: at
	 * least one, at most one per job's throttling. */
	ok = s->jobs >= 25 && s->jobs <= 70 && s->skipped >= 25 && s->response_min > 10 * MS &&
	     s->overruns >= 1 && s->overruns <= s->jobs + 1;
	/* A run without a single SIGXCPU is tried again too: seen here now
	 * and then (one run of about eight, in either mode, quiet or not)
	 * while the others got one per job. */
	if (!ok && s->overruns)
		ck_abort_msg("%s mode: %llu jobs, %llu skipped, response min %llu ns, %llu overruns: not what a throttled task does",
			     name, (unsigned long long)s->jobs, (unsigned long long)s->skipped,
			     (unsigned long long)s->response_min, (unsigned long long)s->overruns);
	dl_load_free(l);
	dl_taskset_free(ts);
	return ok;
}

static void run_overrun(int mode, const char *name)
{
	for (int attempt = 1; attempt <= 5; attempt++) {
		if (overrun_once(mode, name, attempt))
			return;
		if (attempt < 5)
			sleep(2);
	}
	ck_abort_msg("%s mode: 5 runs, each hit by a stall of the machine or without a single SIGXCPU: see the notes", name);
}

START_TEST(test_overrun_sleep)
{
	run_overrun(DL_PERIODIC_SLEEP, "sleep");
}
END_TEST

START_TEST(test_overrun_yield)
{
	run_overrun(DL_PERIODIC_YIELD, "yield");
}
END_TEST

/* Two threads of one process, each with DL_OVERRUN: the one that burns
 * 3 ms on a 2 ms runtime receives the SIGXCPU signals and counts them;
 * the one that stays within its runtime counts none, though the signal
 * goes to their process (the kernel delivers it to the thread that
 * overran).  As above, a run without a single signal is tried again. */
START_TEST(test_overrun_threads)
{
	int calm_overran = 0;

	for (int attempt = 1; attempt <= 5; attempt++) {
		struct dl_taskset *ts = tasks("over 2ms 10ms 10ms work=3ms flags=overrun-signal\n"
					      "calm 2ms 10ms 10ms work=0.2ms flags=overrun-signal\n");
		const struct dl_load_task *over, *calm;
		struct dl_load *l;
		uint64_t n, c;

		ck_assert_msg(dl_load_run(ts, DL_PERIODIC_SLEEP, 1000 * MS, 0, 0, &l) == 0, "%s", dl_errmsg());
		over = task_named(l, "over");
		calm = task_named(l, "calm");
		tl_note("try %d: over (thread %d) %llu jobs, %llu overruns; calm (thread %d) %llu jobs, %llu overruns", attempt,
			(int)over->pid, (unsigned long long)over->stats->jobs, (unsigned long long)over->stats->overruns,
			(int)calm->pid, (unsigned long long)calm->stats->jobs, (unsigned long long)calm->stats->overruns);
		ck_assert_int_eq(over->err, 0);
		ck_assert_int_eq(calm->err, 0);
		ck_assert_int_ne(over->pid, calm->pid);
		ck_assert_uint_ge(calm->stats->jobs, 90);
		n = over->stats->overruns;
		c = calm->stats->overruns;
		ck_assert_uint_le(n, over->stats->jobs + 1);
		dl_load_free(l);
		dl_taskset_free(ts);
		tl_settle();
		/* The calm thread's 0.2 ms of work is far from its 2 ms, yet on
		 * a busy host it was seen to overrun once in 100 jobs (CI,
		 * 2026-12-08: the Debian 13 chroot's run beside a VM): a run
		 * where both overran shows nothing about which thread the
		 * signal reaches, so it is tried again. */
		if (c) {
			calm_overran++;
			tl_note("try %d: the calm thread overran too (a busy host); again", attempt);
		} else if (n) {
			return;
		}
		if (attempt < 5)
			sleep(2);
	}
	ck_abort_msg("5 runs without a SIGXCPU for the overrunning thread alone (the calm one overran in %d): see the notes",
		     calm_overran);
}
END_TEST

/* The median of one task's jobs' CPU time (the kernel's CPU clock of
 * its thread, dl_job.cpu), and how many jobs took at least 'atleast'. */
static uint64_t median_cpu(const struct dl_load_task *t, uint64_t atleast, size_t *n_atleast)
{
	uint64_t *v = calloc(t->njobs, sizeof(*v)), m;

	ck_assert_ptr_nonnull(v);
	*n_atleast = 0;
	for (size_t i = 0; i < t->njobs; i++) {
		v[i] = t->jobs[i].cpu;
		*n_atleast += v[i] >= atleast;
		/* Insertion sort: a hundred jobs. */
		for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
			uint64_t x = v[k];

			v[k] = v[k - 1];
			v[k - 1] = x;
		}
	}
	m = v[t->njobs / 2];
	free(v);
	return m;
}

/* One CPU (the cluster), EDF: "hi" (2.5 ms every 5 ms) has the earlier
 * deadline at each of its releases and preempts "lo" (4 ms every 20
 * ms), released with it.  lo as work burns 4 ms of CPU in every job
 * whatever the preemptions (2.5 ms, hi's 2.5 ms, 1.5 ms); lo as spin
 * ends 4 ms of wall-clock time after it began, having run 2.5 ms of
 * them (rt-app's runtime event).
 * CPU times, not wall times, are compared: a stall of the machine only
 * shortens the spin's CPU further. */
START_TEST(test_work_and_spin)
{
	static const char *const lo[] = { "work=4ms", "spin=4ms" };
	uint64_t med[2];
	size_t full[2], n[2];

	for (int k = 0; k < 2; k++) {
		char text[256];
		struct dl_taskset *ts;
		const struct dl_load_task *t;
		struct dl_load *l;

		snprintf(text, sizeof(text), "hi 2.7ms 5ms 5ms work=2.5ms place=cluster\nlo 5ms 20ms 20ms %s place=cluster\n", lo[k]);
		ts = tasks(text);
		ck_assert_msg(dl_load_run(ts, DL_PERIODIC_SLEEP, 1000 * MS, 0, DL_LOAD_KEEP_JOBS, &l) == 0, "%s", dl_errmsg());
		t = task_named(l, "lo");
		ck_assert_int_eq(t->err, 0);
		ck_assert_uint_ge(t->njobs, 20);
		ck_assert_uint_eq(t->spec->work, k ? 0 : 4 * MS);
		ck_assert_uint_eq(t->spec->spin, k ? 4 * MS : 0);
		for (size_t i = 0; i < t->njobs; i++)
			ck_assert_uint_ge(t->jobs[i].end - t->jobs[i].start, 4 * MS);
		med[k] = median_cpu(t, 4 * MS, &full[k]);
		n[k] = t->njobs;
		tl_note("lo with %s under hi on one CPU: %zu jobs, CPU per job median %.3f ms, %zu of them >= 4 ms, %llu missed",
			lo[k], t->njobs, med[k] / 1e6, full[k], (unsigned long long)t->stats->misses);
		dl_load_free(l);
		dl_taskset_free(ts);
	}
	/* Work: every job burned its 4 ms of CPU. */
	ck_assert_uint_eq(full[0], n[0]);
	/* Spin: the jobs were preempted by one of hi's and ran about 2.5
	 * ms of CPU. */
	ck_assert_msg(med[1] < 3500 * US, "spin=4ms under hi: median CPU per job %.3f ms, not below 3.5 ms", med[1] / 1e6);
}
END_TEST

/* The partition admits 0.90: a third task of 0.4 is refused, nothing of
 * the load runs, and the bandwidth is all given back. */
START_TEST(test_refused)
{
	struct dl_taskset *ts = tasks("a 4ms 10ms 10ms place=partition0 count=3\n");
	struct dl_load *l = NULL;
	struct dl_rd rd;
	int err;

	err = dl_load_run(ts, DL_PERIODIC_SLEEP, 1000 * MS, 0, 0, &l);
	ck_assert_int_eq(err, -EBUSY);
	ck_assert_ptr_null(l);
	ck_assert_msg(strstr(dl_errmsg(), "task a.") && strstr(dl_errmsg(), "admission refused"), "%s", dl_errmsg());
	tl_settle();
	ck_assert_int_eq(dl_rd_of_cpu(0, &rd), 0);
	ck_assert_uint_eq(rd.ntasks, 0);
	dl_taskset_free(ts);
	/* No layout member of that name. */
	ts = tasks("b 1ms 10ms 10ms place=nowhere\n");
	ck_assert_int_eq(dl_load_run(ts, DL_PERIODIC_SLEEP, 100 * MS, 0, 0, &l), -ENOENT);
	ck_assert_msg(strstr(dl_errmsg(), "task b: "), "%s", dl_errmsg());
	dl_taskset_free(ts);
}
END_TEST

/* A task with a process of its own (placed, or a command) beside the
 * threads of the others, one of which the kernel refuses (0.99 of a
 * CPU, where each root domain is one CPU's 0.95): that refusal ends the
 * threads' process while the other thread's set-up is still under way
 * (it touches the room for 300,000 kept jobs first; nothing locked,
 * which would touch every task's room at once), its byte never
 * written, and the other process waits to start.  The load fails at
 * once with the kernel's reason, not after the set-up's 10 s. */
START_TEST(test_mixed_refused)
{
	static const char *const text[] = {
		"p 1ms 10ms 10ms place=cluster\nbig 9.9ms 10ms 10ms\nok 10us 100us 100us\n",
		"c 1ms 100ms 100ms -- sleep 10\nbig 9.9ms 10ms 10ms\nok 10us 100us 100us\n",
	};
	struct dl_taskset *ts = tasks(text[_i]);
	struct dl_load *l = NULL;
	uint64_t t0 = dl_now_ns();
	int err;

	err = dl_load_run(ts, DL_PERIODIC_SLEEP, 30000 * MS, 0, DL_LOAD_KEEP_JOBS | DL_LOAD_NO_MLOCK, &l);
	ck_assert_msg(err == -EBUSY, "%d: %s", err, dl_errmsg());
	ck_assert_ptr_null(l);
	ck_assert_msg(strstr(dl_errmsg(), "task big: ") && strstr(dl_errmsg(), "admission refused"), "%s", dl_errmsg());
	tl_note("%s: refused after %.3f s", _i ? "beside a command" : "beside a placed task", (dl_now_ns() - t0) / 1e9);
	ck_assert_msg(dl_now_ns() - t0 < 3000 * MS, "dl_load_run took %.1f s to fail", (dl_now_ns() - t0) / 1e9);
	dl_taskset_free(ts);
	tl_settle();
}
END_TEST

/* A load run in a thread of the test, so that the test can look at its
 * tasks while they run. */
struct bg_load {
	struct dl_taskset *ts;
	unsigned int flags;
	struct dl_load *l;
	int err;
	char msg[1024];
};

static void *bg_load_run(void *arg)
{
	struct bg_load *b = arg;

	b->err = dl_load_run(b->ts, DL_PERIODIC_SLEEP, 0, 100, b->flags, &b->l);
	if (b->err)
		snprintf(b->msg, sizeof(b->msg), "%s", dl_errmsg());
	return NULL;
}

/* The parent of process pid, from /proc. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (dl_read_file(path, buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nPPid:")))
		return -1;
	return (pid_t)atoi(p + 6);
}

/* Two tasks, 100 jobs each: without a place they are two threads of one
 * process of the load's (neither its main thread), as the kernel lists
 * its deadline threads while they run; with DL_LOAD_PROCESSES each is a
 * process's main thread; a task with a place is such a process, beside
 * the other's thread.  The pid each task reports is the thread the
 * kernel listed. */
START_TEST(test_threads)
{
	static const struct {
		const char *text;
		unsigned int flags;
		bool thread[2]; /* tm, tn: a thread (else a process's main thread) */
	} v[] = {
		{ "tm 1ms 10ms 10ms work=0.2ms\ntn 0.5ms 5ms 5ms work=0.1ms\n", 0, { true, true } },
		{ "tm 1ms 10ms 10ms work=0.2ms\ntn 0.5ms 5ms 5ms work=0.1ms\n", DL_LOAD_PROCESSES, { false, false } },
		{ "tm 1ms 10ms 10ms work=0.2ms place=partition0\ntn 0.5ms 5ms 5ms work=0.1ms\n", 0, { false, true } },
	};
	static const char *const names[2] = { "tm", "tn" };
	struct bg_load b = { .ts = tasks(v[_i].text), .flags = v[_i].flags };
	struct dl_task seen[2];
	bool got[2] = { false, false };
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, bg_load_run, &b), 0);
	for (int k = 0; k < 300 && !(got[0] && got[1]); k++) {
		struct dl_task *t;
		size_t cnt;

		ck_assert_int_ge(dl_tasks_list(0, &t, &cnt), 0);
		for (size_t j = 0; j < cnt; j++)
			for (int m = 0; m < 2; m++)
				if (!got[m] && strcmp(t[j].comm, names[m]) == 0 && parent_of(t[j].pid) == getpid()) {
					seen[m] = t[j];
					got[m] = true;
				}
		free(t);
		usleep(5000);
	}
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_msg(b.err == 0, "%s", b.msg);
	ck_assert_msg(got[0] && got[1], "the kernel did not list both tasks while they ran");
	tl_note("%s: tm is thread %d of process %d, tn thread %d of process %d", v[_i].text, (int)seen[0].tid,
		(int)seen[0].pid, (int)seen[1].tid, (int)seen[1].pid);
	for (int m = 0; m < 2; m++) {
		const struct dl_load_task *t = task_named(b.l, names[m]);

		ck_assert_int_eq(t->err, 0);
		ck_assert_uint_eq(t->stats->jobs, 100);
		ck_assert_int_eq(t->pid, seen[m].tid);
		ck_assert_msg(WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0, "status 0x%x", t->status);
		if (v[_i].thread[m])
			ck_assert_int_ne(seen[m].tid, seen[m].pid);
		else
			ck_assert_int_eq(seen[m].tid, seen[m].pid);
	}
	if (v[_i].thread[0] && v[_i].thread[1])
		ck_assert_int_eq(seen[0].pid, seen[1].pid);
	else
		ck_assert_int_ne(seen[0].pid, seen[1].pid);
	dl_load_free(b.l);
	dl_taskset_free(b.ts);
	tl_settle();
}
END_TEST

/* The tool: the table, and a task set it cannot read (exit 2, the file
 * and line named). */
START_TEST(test_tool)
{
	static char out[8192], err[8192];
	char path[64];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/tmp/libdl-test-load.%d.tasks", (int)getpid());
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "# two tasks\nt1 1ms 10ms 10ms place=cluster\nt2 1ms 5ms 10ms work=0.5ms place=partition0\n");
	fclose(f);
	rc = tl_run_tool("dl-load", (char *[]){ "--jobs", "20", "--json", path, NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "\"name\":\"t1\"") && strstr(out, "\"place\":\"cluster\""), "%s", out);
	ck_assert_msg(strstr(out, "\"jobs\":20,") && strstr(out, "\"work\":500000,"), "%s", out);
	/* Each task's memory locked and touched first: no job after the
	 * first faulted. */
	ck_assert_msg(strstr(out, "\"major_faults\":0,") && strstr(out, "\"faulted_jobs\":0}"), "%s", out);
	rc = tl_run_tool("dl-load", (char *[]){ "-n", "5", path, NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0 && strstr(out, "TASK") && strstr(out, "\nt2 "), "rc %d: %s%s", rc, out, err);
	f = fopen(path, "we");
	fprintf(f, "t1 1ms 10ms 10ms\nt1 1ms 10ms 10ms\n");
	fclose(f);
	rc = tl_run_tool("dl-load", (char *[]){ "-n", "5", path, NULL }, out, sizeof(out), err, sizeof(err));
	unlink(path);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, ":2: name: a second task named \"t1\""), "%s", err);
}
END_TEST

/*
 * rt-app's own examples of periodic deadline tasks (tests/unit/data/rt-app)
 * run under dl-load unchanged, on the whole machine (no layout): each
 * that fits runs every one of its tasks, the two of eleven threads of a
 * third of a CPU are refused by the kernel with its reason, and a file's
 * global duration is dl-load's default.
 */
static const struct {
	const char *file;
	int tasks; /* 0: refused by the kernel */
} rtapp[] = {
	{ "deadline.json", 1 },
	{ "deadline_no_reclaim-1.json", 1 },
	{ "deadline_reclaim-1.json", 1 },
	{ "deadline_no_reclaim-3.json", 1 },
	{ "deadline_reclaim-3.json", 1 },
	{ "deadline_reclaim-4.json", 5 },
	{ "deadline_no_reclaim-2.json", 0 },
	{ "deadline_reclaim-2.json", 0 },
};

START_TEST(test_rtapp_examples)
{
	static char out[32768], err[8192];
	char path[4096];
	const char *p;
	int rc, n = 0;

	snprintf(path, sizeof(path), "%s/tests/unit/data/rt-app/deadline/%s", tl_srcdir(), rtapp[_i].file);
	rc = tl_run_tool("dl-load", (char *[]){ "--jobs", "6", "--json", path, NULL }, out, sizeof(out), err, sizeof(err));
	if (!rtapp[_i].tasks) {
		ck_assert_msg(rc == 1, "%s: rc %d: %s", rtapp[_i].file, rc, out);
		ck_assert_msg(strstr(err, "admission refused"), "%s: %s", rtapp[_i].file, err);
		tl_settle();
		return;
	}
	ck_assert_msg(rc == 0, "%s: rc %d: %s", rtapp[_i].file, rc, err);
	for (p = out; (p = strstr(p, "\"jobs\":6,")); p++)
		n++;
	ck_assert_msg(n == rtapp[_i].tasks, "%s: %d tasks ran 6 jobs, not %d: %s", rtapp[_i].file, n, rtapp[_i].tasks, out);
	tl_settle();
}
END_TEST

START_TEST(test_rtapp_duration)
{
	static char out[32768], err[8192];
	char path[4096];
	const char *p;
	int rc;

	snprintf(path, sizeof(path), "%s/tests/unit/data/rt-app/deadline/deadline.json", tl_srcdir());
	rc = tl_run_tool("dl-load", (char *[]){ "--json", path, NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_msg(strstr(out, "\"duration\":2000000000,"), "%s", out);
	/* 100 ms periods for 2 s. */
	p = strstr(out, "\"jobs\":");
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(atoi(p + 7) >= 19 && atoi(p + 7) <= 21, "%s", out);
	tl_settle();
}
END_TEST

/*
 * rt-app itself and dl-load on the same file: the jobs of one deadline
 * thread of three phases (4 ms, then 50 ms, then 4 ms again, of
 * wall-clock spin: rt-app's runtime event) on a 20 ms timer, 2 loops of
 * 3 + 1 + 4 jobs, its reservation the whole period (20 ms of 20 ms) so
 * that nothing throttles it and each job ends when its spin does.  The
 * 50 ms job ends 10 ms into the third period after its release, past
 * two releases: in relative mode the releases restart at its end, in
 * absolute mode the two passed releases' jobs run at once, back to back,
 * and then the grid goes on; dl-load's former skip-ahead would give the
 * job after it the second passed release and start the next 10 ms early.
 * Both tools run the file as it is, rt-app from Debian (1.0, which needs
 * dl-deadline written out and reads a thread's loop only beside phases,
 * so the file has both), dl-load from this tree.
 *
 * Per job, in order: the start, from each tool's own first release (rt-
 * app's: the wake-up of job 1 less its wake-up latency, less a period;
 * dl-load's: job 0's release), agrees within
 *	(1 + b) x (L_rtapp + L_dlload + O_rtapp + O_dlload)
 * where L is the largest wake-up latency either tool measured in its run
 * (rt-app's wu_lat; dl-load's start - release of a job released while
 * it slept; and job 0's start from its release, which in rt-app follows
 * its set-up rather than a wait), O the largest overshoot of a job's spin (rt-app's run
 * column less its c_duration; dl-load's end - start less the spin), and
 * b the jobs before it that started back to back after a late one (each
 * such start carries the one before's latency and overshoot forward:
 * relative mode restarts the grid there).  The job's c_duration (the
 * run and runtime rt-app gave it) is dl-load's work + spin for it; the
 * job counts are equal.  The bound is checked to be tighter than the
 * modes' difference: dl-load made to run the other mode, or the skip,
 * on the same file fails the same comparison.
 */
#define CMP_PERIOD_US 20000
#define CMP_JOBS 16

struct cmp_job {
	int64_t start;     /* us from the tool's first release */
	uint64_t c_duration, lat, overshoot;
	bool slept;        /* released while it waited */
};

static char cmp_dir[64];

static void cmp_write(const char *path, const char *mode)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "{\n"
		 "\t/* test-load: rt-app's timer modes, compared */\n"
		 "\t\"tasks\": {\n"
		 "\t\t\"t\": {\n"
		 "\t\t\t\"policy\": \"SCHED_DEADLINE\",\n"
		 "\t\t\t\"dl-runtime\": %d, \"dl-deadline\": %d, \"dl-period\": %d,\n"
		 "\t\t\t\"loop\": 2,\n"
		 "\t\t\t\"phases\": {\n"
		 "\t\t\t\t\"short\": {\"loop\": 3, \"runtime\": 4000, \"timer\": {\"ref\": \"unique\", \"period\": %d, \"mode\": \"%s\"}},\n"
		 "\t\t\t\t\"late\": {\"loop\": 1, \"runtime\": 50000, \"timer\": {\"ref\": \"unique\", \"period\": %d, \"mode\": \"%s\"}},\n"
		 "\t\t\t\t\"after\": {\"loop\": 4, \"runtime\": 4000, \"timer\": {\"ref\": \"unique\", \"period\": %d, \"mode\": \"%s\"}}\n"
		 "\t\t\t}\n"
		 "\t\t}\n"
		 "\t},\n"
		 "\t\"global\": {\"duration\": -1, \"calibration\": 100, \"lock_pages\": false,\n"
		 "\t\t\"logdir\": \"%s\", \"log_basename\": \"rt\"}\n"
		 "}\n",
		 CMP_PERIOD_US, CMP_PERIOD_US, CMP_PERIOD_US, CMP_PERIOD_US, mode, CMP_PERIOD_US, mode, CMP_PERIOD_US,
		 mode, cmp_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* rt-app's log of thread t: idx perf run period start end rel_st slack
 * c_duration c_period wu_lat, times in us. */
static size_t cmp_rtapp(const char *file, struct cmp_job *jobs, size_t max)
{
	char path[128], line[512], out[8192], err[8192];
	unsigned long long r1 = 0, prev_wu = 0;
	long long prev_slack = 0;
	size_t n = 0;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/rt-t-0.log", cmp_dir);
	unlink(path);
	rc = tl_run((char *[]){ "/usr/bin/rt-app", (char *)file, NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "rt-app %s: rc %d: %s%s", file, rc, out, err);
	f = fopen(path, "re");
	ck_assert_msg(f, "rt-app wrote no %s: %s", path, out);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long run, start, end, cdur, wu;
		long long slack;
		int idx;

		if (line[0] == '#')
			continue;
		ck_assert_msg(sscanf(line, "%d %*u %llu %*u %llu %llu %*u %lld %llu %*u %llu", &idx, &run, &start, &end,
				     &slack, &cdur, &wu) == 7, "rt-app's log: %s", line);
		ck_assert_msg(n < max, "rt-app ran more than %zu jobs", max);
		/* Job 0 sleeps to release 1: when it woke (its line's end),
		 * less its wake-up latency, is release 1. */
		if (n == 0) {
			ck_assert_msg(slack > 0, "rt-app's job 0 was late (slack %lld us)", slack);
			r1 = end - wu;
		}
		/* A job was released while it slept when the job before
		 * ended early (a positive slack); that line's wu_lat is its
		 * wake-up latency. */
		jobs[n] = (struct cmp_job){ .start = (int64_t)start, .c_duration = cdur,
					    .overshoot = run > cdur ? run - cdur : 0,
					    .slept = n > 0 && prev_slack > 0, .lat = n > 0 && prev_slack > 0 ? prev_wu : 0 };
		prev_slack = slack;
		prev_wu = wu;
		n++;
	}
	fclose(f);
	for (size_t k = 0; k < n; k++)
		jobs[k].start -= (int64_t)(r1 - CMP_PERIOD_US);
	/* Job 0 starts without a wait, after rt-app's set-up (its barrier,
	 * sched_setattr): from its release, a latency like the others. */
	if (n && jobs[0].start > 0)
		jobs[0].lat = (uint64_t)jobs[0].start;
	return n;
}

/* dl-load's CSV of the same file, with extra options. */
static size_t cmp_dlload(const char *file, const char *timer, struct cmp_job *jobs, size_t max)
{
	char csv[128], line[1024], out[8192], err[8192];
	uint64_t r0 = 0, prev_end = 0;
	size_t n = 0;
	FILE *f;
	int rc;

	snprintf(csv, sizeof(csv), "%s/dl.csv", cmp_dir);
	if (timer)
		rc = tl_run_tool("dl-load", (char *[]){ "--csv", csv, "--timer", (char *)timer, (char *)file, NULL }, out,
				 sizeof(out), err, sizeof(err));
	else
		rc = tl_run_tool("dl-load", (char *[]){ "--csv", csv, (char *)file, NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "dl-load %s: rc %d: %s%s", file, rc, out, err);
	f = fopen(csv, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f)); /* the header */
	while (fgets(line, sizeof(line), f)) {
		/* task,pid,index,release,deadline,start,end,...,phase,work,spin */
		uint64_t v[19];
		char *p = strchr(line, ',');

		for (int i = 1; i < 19; i++) {
			ck_assert_msg(p, "dl-load's CSV: %s", line);
			v[i] = strtoull(p + 1, &p, 10);
		}
		ck_assert_msg(n < max, "dl-load ran more than %zu jobs", max);
		if (n == 0)
			r0 = v[3];
		jobs[n] = (struct cmp_job){ .start = ((int64_t)v[5] - (int64_t)r0) / 1000, .c_duration = (v[17] + v[18]) / 1000 };
		jobs[n].slept = n > 0 && v[3] > prev_end;
		jobs[n].lat = (n == 0 || jobs[n].slept) && v[5] > v[3] ? (v[5] - v[3]) / 1000 : 0;
		jobs[n].overshoot = v[6] - v[5] > v[17] + v[18] ? (v[6] - v[5] - v[17] - v[18]) / 1000 : 0;
		prev_end = v[6];
		n++;
	}
	fclose(f);
	return n;
}

static uint64_t cmp_max(const struct cmp_job *j, size_t n, bool lat)
{
	uint64_t m = 0;

	for (size_t k = 0; k < n; k++)
		if ((lat ? j[k].lat : j[k].overshoot) > m)
			m = lat ? j[k].lat : j[k].overshoot;
	return m;
}

/* Whether dl-load's jobs are rt-app's: counts, c_duration, and every
 * start within its bound; why not into why. */
static bool cmp_agree(const struct cmp_job *rt, size_t nrt, const struct cmp_job *dl, size_t ndl, char *why,
		      size_t len, uint64_t *unit_out)
{
	uint64_t unit = cmp_max(rt, nrt, true) + cmp_max(dl, ndl, true) + cmp_max(rt, nrt, false) +
			cmp_max(dl, ndl, false);
	uint64_t b = 0;

	*unit_out = unit;
	if (nrt != ndl) {
		snprintf(why, len, "rt-app ran %zu jobs, dl-load %zu", nrt, ndl);
		return false;
	}
	for (size_t k = 0; k < nrt; k++) {
		int64_t d = rt[k].start - dl[k].start;
		uint64_t tol = (1 + b) * unit;

		if (rt[k].c_duration != dl[k].c_duration) {
			snprintf(why, len, "job %zu: rt-app's c_duration %" PRIu64 " us, dl-load's work and spin %" PRIu64 " us",
				 k, rt[k].c_duration, dl[k].c_duration);
			return false;
		}
		if ((uint64_t)(d < 0 ? -d : d) > tol) {
			snprintf(why, len, "job %zu: rt-app started it at %" PRId64 " us, dl-load at %" PRId64 " us: %" PRId64
				 " us apart, more than (1 + %" PRIu64 ") x %" PRIu64 " us",
				 k, rt[k].start, dl[k].start, d, b, unit);
			return false;
		}
		/* The next job starts back to back after a late one. */
		if (k + 1 < nrt && !rt[k + 1].slept)
			b++;
	}
	return true;
}

START_TEST(test_rtapp_timer_modes)
{
	static const char *const modes[] = { "relative", "absolute" };
	const char *mode = modes[_i], *other = modes[!_i];
	struct cmp_job rt[CMP_JOBS + 4], dl[CMP_JOBS + 4];
	char file[128], why[512], why2[512];
	size_t nrt, ndl;
	uint64_t unit, unit2;

	if (access("/usr/bin/rt-app", X_OK) != 0) {
		tl_note("no /usr/bin/rt-app: dl-load's timer modes are not compared with rt-app's; run ./bootstrap.sh as root");
		return;
	}
	snprintf(cmp_dir, sizeof(cmp_dir), "/tmp/libdl-rtapp-cmp.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cmp_dir));
	snprintf(file, sizeof(file), "%s/timer.json", cmp_dir);
	cmp_write(file, mode);
	nrt = cmp_rtapp(file, rt, ARRAY_SIZE(rt));
	tl_settle();
	ck_assert_uint_eq(nrt, CMP_JOBS);
	/* The file's own mode: the jobs agree. */
	ndl = cmp_dlload(file, NULL, dl, ARRAY_SIZE(dl));
	tl_settle();
	ck_assert_msg(cmp_agree(rt, nrt, dl, ndl, why, sizeof(why), &unit), "%s mode: %s", mode, why);
	tl_note("%s mode: %zu jobs agree, the bound's unit %" PRIu64 " us", mode, ndl, unit);
	/* The other mode and the skip-ahead fail the same comparison. */
	ndl = cmp_dlload(file, other, dl, ARRAY_SIZE(dl));
	tl_settle();
	ck_assert_msg(!cmp_agree(rt, nrt, dl, ndl, why2, sizeof(why2), &unit2),
		      "dl-load --timer %s passed for rt-app's %s mode: the bound (unit %" PRIu64 " us) cannot tell the modes apart",
		      other, mode, unit2);
	ndl = cmp_dlload(file, "skip", dl, ARRAY_SIZE(dl));
	tl_settle();
	ck_assert_msg(!cmp_agree(rt, nrt, dl, ndl, why2, sizeof(why2), &unit2),
		      "dl-load --timer skip passed for rt-app's %s mode: the bound (unit %" PRIu64 " us) cannot tell them apart",
		      mode, unit2);
	tl_note("%s mode, dl-load's skip: %s", mode, why2);
	for (const char *const *f = (const char *const[]){ "timer.json", "dl.csv", "rt-t-0.log", NULL }; *f; f++) {
		snprintf(file, sizeof(file), "%s/%s", cmp_dir, *f);
		unlink(file);
	}
	rmdir(cmp_dir);
}
END_TEST

/* ------------------------------------------------------------- memory */

/*
 * Two tasks, 100 jobs each, every job kept (the 120-byte records of the
 * shared area, a fresh page every 34 jobs unless touched beforehand):
 * after the first job, none takes a page fault, minor or major, as
 * getrusage(2) counts them in the task's thread.
 */
START_TEST(test_load_jobs_fault_nothing)
{
	struct dl_taskset *ts = tasks("m 1ms 10ms 10ms work=0.2ms\nn 0.5ms 5ms 5ms work=0.1ms\n");
	struct dl_load *l;

	ck_assert_msg(dl_load_run(ts, DL_PERIODIC_SLEEP, 0, 100, DL_LOAD_KEEP_JOBS, &l) == 0, "%s", dl_errmsg());
	for (size_t i = 0; i < dl_load_count(l); i++) {
		const struct dl_load_task *t = dl_load_task(l, i);
		uint64_t minflt = 0, majflt = 0, faulted = 0;

		ck_assert_int_eq(t->err, 0);
		ck_assert_uint_eq(t->njobs, 100);
		for (size_t k = 0; k < t->njobs; k++) {
			minflt += t->jobs[k].minflt;
			majflt += t->jobs[k].majflt;
			if (k > 0 && (t->jobs[k].minflt || t->jobs[k].majflt)) {
				faulted++;
				tl_note("task %s, job %zu: %u minor, %u major faults", t->spec->name, k,
					t->jobs[k].minflt, t->jobs[k].majflt);
			}
		}
		tl_note("task %s: %llu minor, %llu major faults in 100 jobs (the first: %u minor)", t->spec->name,
			(unsigned long long)minflt, (unsigned long long)majflt, t->jobs[0].minflt);
		ck_assert_uint_eq(faulted, 0);
		ck_assert_uint_eq(t->stats->faulted, 0);
		ck_assert_uint_eq(t->stats->minflt, minflt);
		ck_assert_uint_eq(t->stats->majflt, 0);
	}
	dl_load_free(l);
	dl_taskset_free(ts);
	tl_settle();
}
END_TEST

#define FRESH_JOBS 20

/* A child of the test's own: a 0.5 ms / 5 ms loop whose every job
 * writes one page of a mapping made after dl_prefault() (or with no
 * dl_prefault()), and whose jobs also take 256 KiB of heap and give it
 * back; each job's minor faults written to fd.  Exits 0 when it ran. */
static noreturn void fresh_pages_child(int fd, bool prefault)
{
	struct dl_params p = { .runtime = 500 * US, .period = 5 * MS };
	uint32_t faults[FRESH_JOBS];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct dl_periodic *pt;
	const struct dl_job *job;
	unsigned char *area;

	if (prefault && dl_prefault(64 * 1024, 1024 * 1024, 0) < 0) {
		dprintf(fd, "%s", dl_errmsg());
		_exit(2);
	}
	area = mmap(NULL, FRESH_JOBS * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP, 0) < 0)
		_exit(3);
	for (int k = 0; k < FRESH_JOBS; k++) {
		unsigned char *heap = malloc(256 * 1024);

		if (!heap)
			_exit(4);
		memset(heap, k, 256 * 1024);
		free(heap);
		((volatile unsigned char *)area)[(size_t)k * page] = 1;
		if (dl_periodic_next(pt, &job) < 0)
			_exit(5);
		faults[k] = job->minflt + job->majflt;
	}
	dl_periodic_free(pt);
	dl_clear(0);
	if (write(fd, faults, sizeof(faults)) != sizeof(faults))
		_exit(6);
	_exit(0);
}

static void fresh_pages(bool prefault, uint32_t faults[FRESH_JOBS])
{
	char msg[1024] = "";
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		fresh_pages_child(fds[1], prefault);
	}
	close(fds[1]);
	n = read(fds[0], faults, FRESH_JOBS * sizeof(*faults));
	if (n > 0 && n != (ssize_t)(FRESH_JOBS * sizeof(*faults)))
		memcpy(msg, faults, (size_t)n < sizeof(msg) - 1 ? (size_t)n : sizeof(msg) - 1);
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the loop failed (status 0x%x): %s", status, msg);
	tl_settle();
}

/* Every job of the loop touches a page it never touched: each takes a
 * minor fault.  After dl_prefault() the mapping was brought in when it
 * was made (MCL_FUTURE) and the heap the jobs borrow is there already:
 * none does. */
START_TEST(test_prefault_api)
{
	uint32_t faults[FRESH_JOBS];

	fresh_pages(false, faults);
	for (int k = 1; k < FRESH_JOBS; k++)
		ck_assert_msg(faults[k] >= 1, "job %d touched a fresh page and counted %u faults", k, faults[k]);
	fresh_pages(true, faults);
	for (int k = 1; k < FRESH_JOBS; k++)
		ck_assert_msg(faults[k] == 0, "job %d, after dl_prefault(): %u faults", k, faults[k]);
}
END_TEST

/* A task file of the test's own in /tmp, which nobody may read. */
static void file_for_anyone(char *path, size_t size, const char *tag, const char *text)
{
	FILE *f;

	snprintf(path, size, "/tmp/libdl-test-load.%d.%s", (int)getpid(), tag);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0644), 0);
}

/* The command line's start that runs the rest as nobody holding
 * CAP_SYS_NICE alone (ambient, as a service given it), under prlimit's
 * LIMIT. */
#define AS_NOBODY(limit) "/usr/bin/prlimit", (limit), "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", \
			 "--clear-groups", "--inh-caps=-all,+sys_nice", "--ambient-caps=-all,+sys_nice", "--"

/* nobody, holding CAP_SYS_NICE (ambient, as a service given it) but not
 * CAP_IPC_LOCK, under RLIMIT_MEMLOCK 64 KiB: dl-load runs nothing and
 * names the limit and the ways out; with --no-mlock it runs. */
START_TEST(test_memlock_refused)
{
	static char out[8192], err[8192];
	const char *dlload = tl_tool_for_anyone("dl-load");
	char path[64];
	int rc;

	file_for_anyone(path, sizeof(path), "memlock", "t 0.5ms 10ms 10ms work=0.1ms\n");
	rc = tl_run((char *[]){ AS_NOBODY("--memlock=65536:65536"), (char *)dlload, "--jobs", "5", path, NULL }, out,
		    sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "cannot lock the process's memory") && strstr(err, "RLIMIT_MEMLOCK is 64 KiB") &&
			      strstr(err, "ulimit -l") && strstr(err, "LimitMEMLOCK=") && strstr(err, "CAP_IPC_LOCK") &&
			      strstr(err, "--no-mlock"),
		      "%s", err);
	tl_settle();
	rc = tl_run((char *[]){ AS_NOBODY("--memlock=65536:65536"), (char *)dlload, "--jobs", "5", "--no-mlock", path, NULL },
		    out, sizeof(out), err, sizeof(err));
	unlink(path);
	ck_assert_msg(rc == 0 && strstr(out, "\nt "), "rc %d: %s%s", rc, out, err);
	tl_settle();
}
END_TEST

/* The threads whose real user is uid, from /proc: what RLIMIT_NPROC
 * counts against that user. */
static int threads_of_user(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char path[64], buf[4096], *u, *t;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		if (dl_read_file(path, buf, sizeof(buf)) < 0 || !(u = strstr(buf, "\nUid:")) ||
		    !(t = strstr(buf, "\nThreads:")))
			continue;
		if ((uid_t)strtoul(u + 5, NULL, 10) == uid)
			n += atoi(t + 9);
	}
	closedir(d);
	return n;
}

/* nobody, holding CAP_SYS_NICE, with room under RLIMIT_NPROC for two
 * more threads than it has: dl-load's process and the one of its tasks'
 * threads, so the first thread cannot start.  dl-load says so at once
 * (not after the set-up's 10 s), names the limit, and leaves nothing
 * running. */
START_TEST(test_threads_refused)
{
	static char out[8192], err[8192];
	const char *dlload = tl_tool_for_anyone("dl-load");
	struct passwd *pw = getpwnam("nobody");
	char path[64], nproc[64];
	uint64_t t0;
	int rc;

	file_for_anyone(path, sizeof(path), "nproc", "t 0.5ms 10ms 10ms work=0.1ms count=2\n");
	ck_assert_ptr_nonnull(pw);
	snprintf(nproc, sizeof(nproc), "--nproc=%d", threads_of_user(pw->pw_uid) + 2);
	t0 = dl_now_ns();
	rc = tl_run((char *[]){ AS_NOBODY(nproc), (char *)dlload, "--jobs", "5", "--no-mlock", path, NULL }, out,
		    sizeof(out), err, sizeof(err));
	unlink(path);
	ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "task t.1: cannot start its thread: ") && strstr(err, "RLIMIT_NPROC"), "%s", err);
	ck_assert_msg(dl_now_ns() - t0 < 5000 * MS, "dl-load took %.1f s to say so", (dl_now_ns() - t0) / 1e9);
	tl_settle();
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("load");

	tl_require_layout_host();
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, layout_up, layout_down);
	tcase_add_test(tc, test_lights_sleep);
	tcase_add_test(tc, test_lights_yield);
	tcase_add_test(tc, test_overrun_sleep);
	tcase_add_test(tc, test_overrun_yield);
	tcase_add_test(tc, test_overrun_threads);
	tcase_add_test(tc, test_work_and_spin);
	tcase_add_test(tc, test_refused);
	tcase_add_loop_test(tc, test_mixed_refused, 0, 2);
	tcase_add_loop_test(tc, test_threads, 0, 3);
	tcase_add_test(tc, test_tool);
	suite_add_tcase(s, tc);
	/* rt-app's files, as written: on the whole machine, no layout. */
	tc = tcase_create("rt-app");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_rtapp_examples, 0, ARRAY_SIZE(rtapp));
	tcase_add_test(tc, test_rtapp_duration);
	tcase_add_loop_test(tc, test_rtapp_timer_modes, 0, 2);
	suite_add_tcase(s, tc);
	/* Page faults, on the whole machine. */
	tc = tcase_create("memory");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_load_jobs_fault_nothing);
	tcase_add_test(tc, test_prefault_api);
	if (access("/usr/bin/setpriv", X_OK) == 0 && access("/usr/bin/prlimit", X_OK) == 0) {
		tcase_add_test(tc, test_memlock_refused);
		tcase_add_test(tc, test_threads_refused);
	} else
		tl_note("setpriv or prlimit (util-linux) is missing: RLIMIT_MEMLOCK's message is not tested; run ./bootstrap.sh as root");
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	layout_down();
	return ret;
}
