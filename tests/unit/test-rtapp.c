/*
 * rt-app's JSON workload files read as task sets (libdl-taskset(5), "rt-app
 * files"): rt-app's own examples (tests/unit/data/rt-app/README), those
 * that describe periodic deadline tasks read as what they say and every
 * other refused with its path and the reason; rt-app's defaults and older
 * names; and every key that is not a periodic deadline task refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "workload/taskset.h"

#define MS 1000000ULL
#define US 1000ULL

static struct dl_taskset *read_example(const char *name, int *err)
{
	char path[4096];
	struct dl_taskset *ts = NULL;

	snprintf(path, sizeof(path), "%s/tests/unit/data/rt-app/%s", tl_srcdir(), name);
	*err = dl_taskset_read(path, &ts);
	return ts;
}

/* The examples that describe periodic deadline tasks, with what each
 * says (its dl-runtime and dl-period, its run, its instances): one task
 * per file but deadline_reclaim-4's two. */
static const struct {
	const char *file;
	uint64_t runtime_us, period_us, run_us, instances;
	bool reclaim;
	uint64_t duration_s;
	/* a second task */
	uint64_t runtime2_us, run2_us;
} good[] = {
	{ "deadline/deadline.json", 12000, 100000, 10000, 1, false, 2, 0, 0 },
	{ "deadline/deadline_no_reclaim-1.json", 12000, 100000, 15000, 1, false, 2, 0, 0 },
	{ "deadline/deadline_reclaim-1.json", 12000, 100000, 15000, 1, true, 2, 0, 0 },
	{ "deadline/deadline_no_reclaim-2.json", 10000, 30000, 30000, 11, false, 0, 0, 0 },
	{ "deadline/deadline_no_reclaim-3.json", 10000, 30000, 30000, 1, false, 0, 0, 0 },
	{ "deadline/deadline_reclaim-2.json", 10000, 30000, 30000, 11, true, 0, 0, 0 },
	{ "deadline/deadline_reclaim-3.json", 10000, 30000, 30000, 1, true, 0, 0, 0 },
	{ "deadline/deadline_reclaim-4.json", 10000, 30000, 30000, 4, true, 0, 3000, 30000 },
};

START_TEST(test_examples_good)
{
	int err;
	struct dl_taskset *ts = read_example(good[_i].file, &err);
	uint64_t n = good[_i].instances;

	ck_assert_msg(err == 0, "%s refused: %s", good[_i].file, dl_errmsg());
	ck_assert_uint_eq(dl_taskset_count(ts), n + (good[_i].runtime2_us ? 1 : 0));
	for (size_t i = 0; i < dl_taskset_count(ts); i++) {
		const struct dl_taskspec *t = dl_taskset_task(ts, i);
		bool second = i == n;
		char name[32];

		if (second)
			snprintf(name, sizeof(name), "thread1");
		else if (n > 1)
			snprintf(name, sizeof(name), "thread0.%zu", i + 1);
		else
			snprintf(name, sizeof(name), "thread0");
		ck_assert_str_eq(t->name, name);
		ck_assert_uint_eq(t->params.runtime, (second ? good[_i].runtime2_us : good[_i].runtime_us) * US);
		/* rt-app's default: the deadline is the period. */
		ck_assert_uint_eq(t->params.period, good[_i].period_us * US);
		ck_assert_uint_eq(t->params.deadline, good[_i].period_us * US);
		ck_assert_uint_eq(t->work, (second ? good[_i].run2_us : good[_i].run_us) * US);
		ck_assert_uint_eq(t->params.flags, good[_i].reclaim ? DL_FLAG_RECLAIM : 0);
		ck_assert_uint_eq(t->offset, 0);
		ck_assert_ptr_null(t->place);
		ck_assert_ptr_null(t->argv);
	}
	ck_assert_uint_eq(dl_taskset_duration(ts), good[_i].duration_s * 1000 * MS);
	dl_taskset_free(ts);
}
END_TEST

/* Every other example of rt-app: refused, saying where and why. */
static const struct {
	const char *file;
	const char *says[3];
} refused[] = {
	{ "deadline/deadline_reclaim-5.json", { ":25: tasks.thread2.timer.period:", "30ms differs from the reservation's period 10ms" } },
	{ "examples/custom-slice.json", { ":12: tasks.thread0.policy:", "SCHED_OTHER", "SCHED_DEADLINE tasks only" } },
	{ "examples/template.json", { ":18: tasks.thread0.sleep:", "a sleep inside a job" } },
	{ "examples/browser-long.json", { ":11: JSON:", "\"run\" appears twice", "workgen" } },
	{ "examples/browser-short.json", { ":11: JSON:", "\"run\" appears twice" } },
	{ "examples/mp3-long.json", { ":24: JSON:", "\"run\" appears twice" } },
	{ "examples/mp3-short.json", { ":24: JSON:", "\"run\" appears twice" } },
	{ "examples/spreading-tasks.json", { ":38: JSON:", "\"heavy1\" appears twice" } },
	{ "examples/video-long.json", { ":6: JSON:", "expected ':'", "workgen" } },
	{ "examples/video-short.json", { ":6: JSON:", "expected ':'" } },
	{ "examples/cpufreq/calibration.json", { ":19: global.default_policy:", "SCHED_FIFO" } },
	{ "examples/cpufreq/dvfs.json", { ":6: tasks.thread.cpus:", "CPU affinity" } },
	{ "examples/tutorial/example1.json", { ":10: tasks.thread0.sleep:", "a sleep inside a job" } },
	{ "examples/tutorial/example2.json", { ":17: global.default_policy:", "SCHED_OTHER" } },
	{ "examples/tutorial/example3.json", { ":7: tasks.thread0:", "SCHED_OTHER (rt-app's default policy)" } },
	{ "examples/tutorial/example4.json", { ":10: tasks.thread0.resume:", "wait for each other" } },
	{ "examples/tutorial/example5.json", { ":23: JSON:", "\"run\" appears twice" } },
	{ "examples/tutorial/example6.json", { ":11: tasks.thread0.mem:", "memory or I/O work" } },
	{ "examples/tutorial/example7.json", { ":34: tasks.task0.sleep1:", "a sleep inside a job" } },
	{ "examples/tutorial/example8.json", { ":10: tasks.thread0.cpus:", "CPU affinity" } },
	{ "examples/tutorial/example9.json", { ":16: tasks.thread1.phases.phase1.sleep:", "a sleep inside a job" } },
	{ "examples/tutorial/example10.json", { ":11: tasks.thread0.sleep:", "a sleep inside a job" } },
	{ "examples/tutorial/example11.json", { ":16: tasks.thread0.phases.phase0.sleep:", "a sleep inside a job" } },
};

START_TEST(test_examples_refused)
{
	int err;
	struct dl_taskset *ts = read_example(refused[_i].file, &err);

	ck_assert_msg(err == -EINVAL, "%s: %d, not refused", refused[_i].file, err);
	ck_assert_ptr_null(ts);
	for (int k = 0; k < 3 && refused[_i].says[k]; k++)
		ck_assert_msg(strstr(dl_errmsg(), refused[_i].says[k]), "%s: \"%s\" lacks \"%s\"",
			      refused[_i].file, dl_errmsg(), refused[_i].says[k]);
}
END_TEST

static struct dl_taskset *parse(const char *text, int *err)
{
	struct dl_taskset *ts = NULL;

	*err = dl_taskset_parse(text, strlen(text), "w.json", &ts);
	return ts;
}

/* rt-app's defaults and older names, its comments and trailing commas, a
 * task in one phase, and the keys that carry over. */
START_TEST(test_defaults)
{
	static const char text[] =
		"// a workload\n"
		"{ /* comment with \"quotes\" and , */\n"
		"  \"global\": {\"default_policy\": \"SCHED_DEADLINE\", \"calibration\": 90, \"logdir\": \"/tmp\",\n"
		"             \"duration\": -1, },\n"
		"  \"resources\": {},\n"
		"  \"tasks\": {\n"
		"    \"a\": {\"dl-runtime\": 2000, \"run\": 1500, \"timer\": {\"ref\": \"unique\", \"period\": 2000}},\n"
		"    \"b\": {\"runtime\": 3000, \"period\": 20000, \"deadline\": 10000, \"delay\": 500,\n"
		"           \"timer\": {\"ref\": \"tb\", \"period\": 20000, \"mode\": \"absolute\"}, \"priority\": 0},\n"
		"    \"c\": {\"policy\": \"SCHED_DEADLINE\", \"instance\": 3, \"loop\": -1, \"taskgroup\": \"\",\n"
		"           \"phases\": {\"only\": {\"loop\": 10, \"run0\": 1000, \"runtime1\": 500,\n"
		"                                 \"timer0\": {\"ref\": \"uniqueC\", \"period\": 50000},\n"
		"                                 \"dl-runtime\": 2000, \"dl-period\": 50000, \"dl-deadline\": 40000,}}},\n"
		"  },\n"
		"}\n";
	int err;
	struct dl_taskset *ts = parse(text, &err);
	const struct dl_taskspec *t;

	ck_assert_msg(err == 0, "refused: %s", dl_errmsg());
	ck_assert_uint_eq(dl_taskset_count(ts), 5);
	ck_assert_uint_eq(dl_taskset_duration(ts), 0);
	/* a: period from runtime, deadline from period. */
	t = dl_taskset_task(ts, 0);
	ck_assert_str_eq(t->name, "a");
	ck_assert_uint_eq(t->params.runtime, 2 * MS);
	ck_assert_uint_eq(t->params.period, 2 * MS);
	ck_assert_uint_eq(t->params.deadline, 2 * MS);
	ck_assert_uint_eq(t->work, 1500 * US);
	ck_assert_uint_eq(t->spin, 0);
	ck_assert_int_eq(t->line, 7);
	/* b: the older names; "runtime" is also its job's runtime event, as
	 * in rt-app: a spin of wall-clock time, and no work besides. */
	t = dl_taskset_task(ts, 1);
	ck_assert_uint_eq(t->params.runtime, 3 * MS);
	ck_assert_uint_eq(t->params.deadline, 10 * MS);
	ck_assert_uint_eq(t->params.period, 20 * MS);
	ck_assert_uint_eq(t->work, 0);
	ck_assert_uint_eq(t->spin, 3 * MS);
	ck_assert_uint_eq(t->offset, 500 * US);
	/* c: three instances of one phase, its run events the work, its
	 * runtime events the spin. */
	for (int i = 0; i < 3; i++) {
		char name[16];

		t = dl_taskset_task(ts, 2 + (size_t)i);
		snprintf(name, sizeof(name), "c.%d", i + 1);
		ck_assert_str_eq(t->name, name);
		ck_assert_uint_eq(t->params.runtime, 2 * MS);
		ck_assert_uint_eq(t->params.deadline, 40 * MS);
		ck_assert_uint_eq(t->params.period, 50 * MS);
		ck_assert_uint_eq(t->work, 1000 * US);
		ck_assert_uint_eq(t->spin, 500 * US);
	}
	dl_taskset_free(ts);

	/* A positive duration is the run's; a file starting with a comment. */
	ts = parse("/* x */ {\"global\": {\"duration\": 7},\n \"tasks\": {\"d\": {\"policy\": \"SCHED_DEADLINE\",\n"
		   " \"dl-runtime\": 1000, \"dl-period\": 10000, \"run\": 900,\n"
		   " \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}", &err);
	ck_assert_msg(err == 0, "refused: %s", dl_errmsg());
	ck_assert_uint_eq(dl_taskset_duration(ts), 7000 * MS);
	dl_taskset_free(ts);
}
END_TEST

/* rt-app's loop, phases and timer modes: a job count per task, phases
 * in turn under one reservation and one timer, relative unless the
 * timer says absolute. */
START_TEST(test_loop_phases_modes)
{
	static const char text[] =
		"{\"global\": {\"default_policy\": \"SCHED_DEADLINE\", \"duration\": -1},\n"
		" \"tasks\": {\n"
		"  \"one\": {\"dl-runtime\": 1000, \"dl-period\": 10000, \"loop\": 7, \"run\": 500,\n"
		"          \"timer\": {\"ref\": \"unique\", \"period\": 10000}},\n"
		"  \"ramp\": {\"dl-runtime\": 10000, \"dl-deadline\": 10000, \"dl-period\": 10000, \"loop\": 2,\n"
		"           \"phases\": {\n"
		"     \"up\": {\"loop\": 3, \"runtime\": 2000, \"timer\": {\"ref\": \"unique\", \"period\": 10000, \"mode\": \"absolute\"}},\n"
		"     \"late\": {\"run\": 1000, \"runtime\": 25000, \"timer\": {\"ref\": \"unique\", \"period\": 10000, \"mode\": \"absolute\"}},\n"
		"     \"idle\": {\"loop\": 2, \"timer\": {\"ref\": \"unique\", \"period\": 10000, \"mode\": \"absolute\"}}}},\n"
		"  \"ever\": {\"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n"
		"     \"a\": {\"loop\": 4, \"run\": 100, \"timer\": {\"ref\": \"t\", \"period\": 10000}},\n"
		"     \"b\": {\"run\": 200, \"timer\": {\"ref\": \"t\", \"period\": 10000}}}}}}\n";
	static const struct {
		size_t phase;
		uint64_t work, spin;
	} ramp[] = { { 0, 0, 2 * MS }, { 0, 0, 2 * MS }, { 0, 0, 2 * MS }, { 1, 1 * MS, 25 * MS }, { 2, 0, 0 },
		     { 2, 0, 0 }, { 0, 0, 2 * MS } };
	int err;
	struct dl_taskset *ts = parse(text, &err);
	const struct dl_taskspec *t;
	uint64_t work, spin;

	ck_assert_msg(err == 0, "refused: %s", dl_errmsg());
	ck_assert_uint_eq(dl_taskset_count(ts), 3);
	/* one: the thread's loop without phases is its job count (rt-app's
	 * tutorial); relative, rt-app's default. */
	t = dl_taskset_task(ts, 0);
	ck_assert_uint_eq(t->jobs, 7);
	ck_assert_int_eq(t->timer, DL_PERIODIC_RELATIVE);
	ck_assert_uint_eq(t->nphases, 0);
	ck_assert_uint_eq(dl_taskspec_job(t, 5, &work, &spin), 0);
	ck_assert_uint_eq(work, 500 * US);
	/* ramp: 2 loops of 3 + 1 + 2 jobs, a job (25 ms) longer than the
	 * period, a phase that only waits. */
	t = dl_taskset_task(ts, 1);
	ck_assert_uint_eq(t->jobs, 12);
	ck_assert_int_eq(t->timer, DL_PERIODIC_ABSOLUTE);
	ck_assert_uint_eq(t->nphases, 3);
	ck_assert_uint_eq(t->work, 0);
	ck_assert_uint_eq(t->spin, 2 * MS);
	ck_assert_uint_eq(t->phases[1].jobs, 1);
	ck_assert_uint_eq(t->phases[2].jobs, 2);
	for (uint64_t k = 0; k < ARRAY_SIZE(ramp); k++) {
		ck_assert_uint_eq(dl_taskspec_job(t, k, &work, &spin), ramp[k].phase);
		ck_assert_uint_eq(work, ramp[k].work);
		ck_assert_uint_eq(spin, ramp[k].spin);
	}
	/* ever: no thread loop with phases is for ever. */
	t = dl_taskset_task(ts, 2);
	ck_assert_uint_eq(t->jobs, 0);
	ck_assert_uint_eq(t->nphases, 2);
	ck_assert_uint_eq(dl_taskspec_job(t, 4, &work, NULL), 1);
	ck_assert_uint_eq(work, 200 * US);
	ck_assert_uint_eq(dl_taskspec_job(t, 5, &work, NULL), 0);
	ck_assert_uint_eq(work, 100 * US);
	/* The mode can be set afterwards (dl-load --timer). */
	ck_assert_int_eq(dl_taskset_set_timer(ts, 2, DL_PERIODIC_ABSOLUTE), 0);
	ck_assert_int_eq(dl_taskset_task(ts, 2)->timer, DL_PERIODIC_ABSOLUTE);
	ck_assert_int_eq(dl_taskset_set_timer(ts, 2, 5), -EINVAL);
	ck_assert_int_eq(dl_taskset_set_timer(ts, 3, 0), -EINVAL);
	dl_taskset_free(ts);
}
END_TEST

/* A task to break: a good one with one key replaced or added (%s). */
#define TASK(extra) "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000,\n" \
		    " \"dl-period\": 10000, \"run\": 900, \"timer\": {\"ref\": \"unique\", \"period\": 10000}" extra "}}}"

/* A task of two phases, p1 and p2, with these timers. */
#define PHASES(t1, t2) "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n" \
		       " \"p1\": {\"run\": 1, \"timer\": {" t1 "}},\n" \
		       " \"p2\": {\"run\": 1, \"timer\": {" t2 "}}}}}}"

static const struct {
	const char *text;
	const char *says[3];
} bad[] = {
	{ TASK(",\n\"policy\": \"SCHED_FIFO\""), { "w.json:", "JSON: \"policy\" appears twice" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_FIFO\", \"priority\": 10, \"run\": 1}}}",
	  { "w.json:1: tasks.t.policy:", "SCHED_FIFO", "SCHED_DEADLINE tasks only" } },
	{ "{\"tasks\": {\"t\": {\"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10}}}}",
	  { "w.json:1: tasks.t:", "SCHED_OTHER (rt-app's default policy)" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_EDF\", \"run\": 1}}}", { "tasks.t.policy:", "not a policy rt-app knows" } },
	{ "{\"global\": {\"default_policy\": \"SCHED_RR\"},\n\"tasks\": {\"t\": {\"run\": 1}}}",
	  { "w.json:1: global.default_policy:", "SCHED_RR" } },
	{ TASK(", \"priority\": 5"), { "tasks.t.priority:", "no priority" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"run\": 1,\n\"timer\": {\"ref\": \"unique\", \"period\": 10}}}}",
	  { "w.json:1: tasks.t:", "no \"dl-runtime\"" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"run\": 900}}}",
	  { "tasks.t:", "no timer", "\"period\": 10000" } },
	{ TASK(", \"timer1\": {\"ref\": \"unique\", \"period\": 10000}"), { "tasks.t.timer1:", "a second timer" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000,\n"
	  " \"run\": 900, \"timer\": {\"ref\": \"unique\", \"period\": 20000}}}}",
	  { "w.json:2: tasks.t.timer.period:", "20ms differs from the reservation's period 10ms (line 1)" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"instance\": 2,\n"
	  " \"run\": 900, \"timer\": {\"ref\": \"shared\", \"period\": 10000}}}}",
	  { "w.json:2: tasks.t.timer.ref:", "shared by several threads", "\"unique\"" } },
	{ TASK(", \"u\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"run\": 9, \"timer\": {\"ref\": \"t\", \"period\": 10000}}"),
	  { "tasks.t.u:", "not a key rt-app knows in a task" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"run\": 900,\n"
	  " \"timer\": {\"ref\": \"x\", \"period\": 10000}},\n \"u\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000,"
	  " \"dl-period\": 10000, \"run\": 900, \"timer\": {\"ref\": \"x\", \"period\": 10000}}}}",
	  { "w.json:2: tasks.t.timer.ref:", "shared by several threads" } },
	{ TASK(", \"timer2\": 5"), { "tasks.t.timer2:", "a second timer" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 900, \"timer\": 10000}}}",
	  { "tasks.t.timer:", "expected an object" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 900, \"timer\": {\"ref\": \"unique\"}}}}",
	  { "tasks.t.timer:", "no \"period\"" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 900, \"timer\": {\"period\": 1000}}}}",
	  { "tasks.t.timer:", "no \"ref\"" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 900,\n"
	  " \"timer\": {\"ref\": \"unique\", \"period\": 1000, \"mode\": \"sloppy\"}}}}",
	  { "w.json:2: tasks.t.timer.mode:", "\"relative\" or \"absolute\"" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 900,\n"
	  " \"timer\": {\"ref\": \"unique\", \"period\": 1000, \"jitter\": 1}}}}",
	  { "tasks.t.timer.jitter:", "not a key of a timer" } },
	{ TASK(", \"sleep\": 100"), { "tasks.t.sleep:", "a sleep inside a job" } },
	{ TASK(", \"lock\": \"m\""), { "tasks.t.lock:", "wait for each other" } },
	{ TASK(", \"unlock\": \"m\""), { "tasks.t.unlock:", "wait for each other" } },
	{ TASK(", \"wait\": {\"ref\": \"c\", \"mutex\": \"m\"}"), { "tasks.t.wait:", "wait for each other" } },
	{ TASK(", \"signal\": \"c\""), { "tasks.t.signal:", "wait for each other" } },
	{ TASK(", \"broad\": \"c\""), { "tasks.t.broad:", "wait for each other" } },
	{ TASK(", \"sync\": {\"ref\": \"c\", \"mutex\": \"m\"}"), { "tasks.t.sync:", "wait for each other" } },
	{ TASK(", \"barrier\": \"b\""), { "tasks.t.barrier:", "wait for each other" } },
	{ TASK(", \"suspend\": \"\""), { "tasks.t.suspend:", "wait for each other" } },
	{ TASK(", \"resume\": \"u\""), { "tasks.t.resume:", "wait for each other" } },
	{ TASK(", \"sem_post\": \"s\""), { "tasks.t.sem_post:", "wait for each other" } },
	{ TASK(", \"sem_wait\": \"s\""), { "tasks.t.sem_wait:", "wait for each other" } },
	{ TASK(", \"yield\": \"\""), { "tasks.t.yield:", "--mode yield" } },
	{ TASK(", \"fork\": \"u\""), { "tasks.t.fork:", "another one starts" } },
	{ TASK(", \"mem\": 1000"), { "tasks.t.mem:", "memory or I/O" } },
	{ TASK(", \"memrun\": {\"type\": \"read\", \"size\": 10, \"count\": 10}"), { "tasks.t.memrun:", "memory or I/O" } },
	{ TASK(", \"iorun\": 1000"), { "tasks.t.iorun:", "memory or I/O" } },
	{ TASK(", \"cpus\": [0]"), { "tasks.t.cpus:", "CPU affinity", "partition" } },
	{ TASK(", \"nodes_membind\": [0]"), { "tasks.t.nodes_membind:", "NUMA" } },
	{ TASK(", \"util_min\": 100"), { "tasks.t.util_min:", "utilization clamp" } },
	{ TASK(", \"util_max\": 100"), { "tasks.t.util_max:", "utilization clamp" } },
	{ TASK(", \"taskgroup\": \"/tg\""), { "tasks.t.taskgroup:", "taskgroup" } },
	{ TASK(", \"loop\": 0"), { "tasks.t.loop:", "0: give the thread's loops, 1 or more, or -1" } },
	{ TASK(", \"loop\": -2"), { "tasks.t.loop:", "-2: give the thread's loops" } },
	{ TASK(", \"instance\": 0"), { "tasks.t.instance:", "0 threads" } },
	{ TASK(", \"instance\": 1025"), { "tasks.t.instance:", "1025 threads" } },
	{ TASK(", \"delay\": -5"), { "tasks.t.delay:", "cannot be negative" } },
	{ TASK(", \"dl-reclaim\": 1"), { "tasks.t.dl-reclaim:", "true or false" } },
	{ TASK(", \"run1\": \"5\""), { "tasks.t.run1:", "expected an integer, not a string" } },
	{ TASK(", \"runtime1\": 1.5"), { "tasks.t.runtime1:", "expected an integer, not 1.5" } },
	{ TASK(", \"run1\": 99999999999"), { "tasks.t.run1:", "32-bit integer" } },
	{ TASK(", \"speed\": 2"), { "tasks.t.speed:", "not a key rt-app knows in a task" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000,\n"
	  " \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}", { "tasks.t:", "no work" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 3000, \"dl-deadline\": 2000,\n"
	  " \"dl-period\": 10000, \"run\": 900, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}",
	  { "w.json:1: tasks.t.dl-runtime:", "runtime 3ms is longer than the deadline 2ms" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-deadline\": 20000,\n"
	  " \"dl-period\": 10000, \"run\": 900, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}",
	  { "w.json:1: tasks.t.dl-deadline:", "longer than the period" } },
	{ PHASES("\"ref\": \"unique\", \"period\": 10000", "\"ref\": \"other\", \"period\": 10000"),
	  { "w.json:3: tasks.t.phases.p2.timer.ref:", "timer \"other\" is not the first phase's \"unique\" (line 2)", "one timer" } },
	{ PHASES("\"ref\": \"unique\", \"period\": 10000", "\"ref\": \"unique\", \"period\": 10000, \"mode\": \"absolute\""),
	  { "w.json:3: tasks.t.phases.p2.timer:", "mode differs from the first phase's (line 2)" } },
	{ PHASES("\"ref\": \"unique\", \"period\": 10000", "\"ref\": \"unique\", \"period\": 20000"),
	  { "w.json:3: tasks.t.phases.p2.timer.period:", "20ms differs from the reservation's period 10ms" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n"
	  " \"p1\": {\"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}},\n"
	  " \"p2\": {\"dl-runtime\": 2000, \"dl-period\": 10000, \"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}}}",
	  { "w.json:3: tasks.t.phases.p2:", "a reservation other than the first phase's", "one reservation" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n"
	  " \"p1\": {\"loop\": 0, \"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}}}",
	  { "w.json:2: tasks.t.phases.p1.loop:", "0: give the phase's jobs in a row, 1 or more" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n"
	  " \"p1\": {\"timer\": {\"ref\": \"unique\", \"period\": 10000}},\n"
	  " \"p2\": {\"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}}}",
	  { "w.json:2: tasks.t:", "no work" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {}}}}",
	  { "w.json:1: tasks.t.phases:", "no phases" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"phases\": {\n"
	  " \"p1\": {\"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}},\n"
	  " \"p2\": {\"run\": 1}}}}}",
	  { "w.json:3: tasks.t.phases.p2:", "no timer" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"loop\": 2000000000,\n"
	  " \"phases\": {\"p1\": {\"loop\": 3, \"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}}}",
	  { "w.json:1: tasks.t:", "2000000000 loops of 3 jobs" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"run\": 5,\n"
	  " \"phases\": {\"p\": {\"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 1000}}}}}}",
	  { "tasks.t:", "events beside \"phases\"" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000,\n"
	  " \"phases\": {\"p\": {\"instance\": 2, \"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 1000}}}}}}",
	  { "w.json:2: tasks.t.phases.p.instance:", "not a key rt-app knows in a phase" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000,\n"
	  " \"phases\": {\"p\": {\"run\": 1, \"sleep\": 5, \"timer\": {\"ref\": \"unique\", \"period\": 1000}}}}}}",
	  { "w.json:2: tasks.t.phases.p.sleep:", "a sleep inside a job" } },
	{ "{\"tasks\": {\"t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000,\n"
	  " \"phases\": {\"p\": {\"dl-runtime\": 2000, \"run\": 1, \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}}}",
	  { "w.json:2: tasks.t.phases.p.timer.period:", "10ms differs from the reservation's period 2ms" } },
	{ "{\"tasks\": {}, \"global\": {\"duration\": 0}}", { "global.duration:", "0: give the run's seconds" } },
	{ "{\"tasks\": {}, \"global\": {\"lang\": \"C\"}}", { "global.lang:", "not a key rt-app knows in \"global\"" } },
	{ "{\"tasks\": {}, \"global\": []}", { "global:", "expected an object" } },
	{ "{\"tasks\": {}, \"resources\": {\"m\": {\"type\": \"mutex\"}}}", { "resources:", "independent and periodic" } },
	{ "{\"tasks\": {}, \"global\": {}, \"extra\": 1}", { "extra:", "not a key of an rt-app file" } },
	{ "{\"global\": {}}", { "tasks:", "no \"tasks\"" } },
	{ "{\"global\": {}, \"tasks\": [1]}", { "tasks:", "object of tasks by name" } },
	{ "{\"tasks\": {}}", { "w.json: no task" } },
	{ "{\"tasks\": {\"t\": 5}}", { "tasks.t:", "expected an object" } },
	{ "{\"tasks\": {\"t\": {\"run\": 1 /* not closed\n}}", { "w.json:", "JSON:", "workgen" } },
	{ TASK(", \"x y\": 1"), { "tasks.t.x y:", "not a key rt-app knows" } },
	{ "{\"tasks\": {\"9t\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 10000, \"run\": 900,\n"
	  " \"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}", { "w.json:1: name:", "\"9t\"" } },
};

START_TEST(test_bad)
{
	int err;
	struct dl_taskset *ts = parse(bad[_i].text, &err);

	ck_assert_msg(err == -EINVAL, "case %d accepted (%d): %s", _i, err, bad[_i].text);
	ck_assert_ptr_null(ts);
	for (int k = 0; k < 3 && bad[_i].says[k]; k++)
		ck_assert_msg(strstr(dl_errmsg(), bad[_i].says[k]), "case %d: \"%s\" lacks \"%s\"", _i, dl_errmsg(),
			      bad[_i].says[k]);
}
END_TEST

/* libdl's own JSON form stays strict, and is never taken for rt-app's. */
START_TEST(test_libdl_json_unchanged)
{
	int err;
	struct dl_taskset *ts = parse("{\"tasks\": [{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"}]}", &err);

	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(dl_taskset_duration(ts), 0);
	dl_taskset_free(ts);
	ts = parse("{\"tasks\": [/* c */ {\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"}]}", &err);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "JSON: expected a value"), "%s", dl_errmsg());
	ck_assert_ptr_null(strstr(dl_errmsg(), "workgen"));
	ts = parse("{\"tasks\": [{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"},]}", &err);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "comma before ']'"), "%s", dl_errmsg());
}
END_TEST

/*
 * A file of many tasks, each with its own timer: about 1 MiB, 1,023
 * threads of 75 run events each.  Whether a timer is shared is found
 * once for the whole file (its timers' names sorted), not by walking
 * every other thread for each one: the work counted (the JSON reader's
 * key comparisons, the values visited and the names compared) stays
 * within 2 V log2(V) for the file's V values, where a walk per thread
 * costs V for each of them.  The count, not a time, is the assertion
 * (speed figures are make bench's).
 */
static char *many_threads(size_t n, bool share, size_t *len, size_t *values)
{
	char *text = malloc(n * 1200 + 64), *p = text;

	*values = 2; /* the top object and "tasks" */
	p += sprintf(p, "{\"tasks\": {\n");
	for (size_t i = 0; i < n; i++) {
		p += sprintf(p, "%s\"t%zu\": {\"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 1000, \"dl-period\": 100000",
			     i ? ",\n" : "", i);
		for (int k = 0; k < 75; k++)
			p += sprintf(p, ", \"run%d\": 1", k);
		p += sprintf(p, ", \"timer\": {\"ref\": \"tick%zu\", \"period\": 100000}}",
			     share && i == n - 1 ? (size_t)0 : i);
		*values += 1 + 3 + 75 + 1 + 2;
	}
	p += sprintf(p, "}}\n");
	*len = (size_t)(p - text);
	return text;
}

START_TEST(test_many_timers)
{
	const size_t n = 1023;
	struct dl_taskset *ts;
	uint64_t steps, bound = 0;
	size_t len, values;
	char *text = many_threads(n, false, &len, &values);

	for (size_t k = values; k > 1; k /= 2)
		bound += 2 * values; /* 2 V log2(V) */
	ck_assert_uint_ge(len, 1000000);
	ck_assert_uint_le(len, 1024 * 1024);
	ts = dl_taskset_new();
	ck_assert_msg(dl_taskset_from_rtapp_counted(ts, text, len, "many.json", &steps) == 0, "%s", dl_errmsg());
	ck_assert_uint_eq(dl_taskset_count(ts), n);
	ck_assert_uint_eq(dl_taskset_task(ts, n - 1)->params.period, 100 * MS);
	ck_assert_uint_eq(dl_taskset_task(ts, n - 1)->work, 75 * US);
	ck_assert_msg(steps <= bound, "%llu steps for %zu values (at most %llu)", (unsigned long long)steps,
		      values, (unsigned long long)bound);
	dl_taskset_free(ts);
	free(text);

	/* The last thread names the first one's timer: refused at the first
	 * of the two, as cheaply. */
	text = many_threads(n, true, &len, &values);
	ts = dl_taskset_new();
	ck_assert_int_eq(dl_taskset_from_rtapp_counted(ts, text, len, "many.json", &steps), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "many.json:2: tasks.t0.timer.ref: timer \"tick0\" is shared"), "%s",
		      dl_errmsg());
	ck_assert_uint_le(steps, bound);
	dl_taskset_free(ts);
	free(text);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("rtapp");
	TCase *tc = tcase_create("examples");

	tcase_add_loop_test(tc, test_examples_good, 0, ARRAY_SIZE(good));
	tcase_add_loop_test(tc, test_examples_refused, 0, ARRAY_SIZE(refused));
	suite_add_tcase(s, tc);
	tc = tcase_create("rules");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_loop_phases_modes);
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_libdl_json_unchanged);
	suite_add_tcase(s, tc);
	tc = tcase_create("cost");
	tcase_add_test(tc, test_many_timers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
