/*
 * The parsers of what the kernel writes, fed the files saved from each
 * kernel libdl runs on (tests/unit/data/README): sched/debug from 6.1,
 * 6.12, 6.12 PREEMPT_RT and 6.18, idle, with deadline tasks and with a
 * partition, and 6.18's with a layout whose count drifted below zero; the sysctls that set a CPU's deadline capacity and the
 * period limits.  What each file must give is computed from what ran when
 * it was saved (the reservations, the fair servers), never copied from
 * the file.  No root, no kernel: these run anywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw/bw.h"
#include "testlib.h"

#define MS 1000000ULL
#define NCPUS 4 /* more than the files' 2 CPUs: the rest must read "nothing" */

/* The bandwidth of reservations, as the kernel's to_ratio() gives it. */
static int64_t bw(uint64_t runtime_ms, uint64_t period_ms)
{
	return (int64_t)dl_to_ratio(period_ms * MS, runtime_ms * MS);
}

/* The fair server of 6.12+: 50 ms every 1 s on each CPU. */
static int64_t fair(void)
{
	return bw(50, 1000);
}

/* What ran when each file was saved (tests/unit/data/README). */
static int64_t tasks_set(void)
{
	/* 5 ms / 50 ms, 2 ms / 100 ms (deadline 20 ms), 10 ms / 100 ms, and
	 * three threads of 1 ms / 100 ms: all in the one root domain. */
	return bw(5, 50) + bw(2, 100) + bw(10, 100) + 3 * bw(1, 100);
}

static const struct {
	const char *file;
	int64_t total[2]; /* each CPU's root domain's total_bw */
	int deadline;     /* threads listed at deadline priority */
} cases[] = {
	/* 6.1: no fair server. */
	{ "6.1-idle.txt", { 0, 0 }, 0 },
	{ "6.1-tasks.txt", { -1, -1 }, 6 },
	/* v1: the root cpuset not balancing, cpusets of CPU 0 and of CPU 1,
	 * 10 ms / 100 ms in the first and 20 ms / 100 ms in the second. */
	{ "6.1-v1-partition.txt", { -2, -3 }, 2 },
	/* 6.12.117 after boot: the fair servers are not yet counted (they
	 * are from the first root-domain rebuild on; docs/kernel-notes.md,
	 * "The fair server"). */
	{ "6.12-tasks.txt", { -1, -1 }, 6 },
	{ "6.12-rt-tasks.txt", { -1, -1 }, 6 },
	/* v2: a root partition of CPU 0 with 10 ms / 100 ms, CPU 1 with
	 * 20 ms / 100 ms; the rebuild counted each CPU's fair server. */
	{ "6.12-rt-partition.txt", { -4, -5 }, 2 },
	/* The same on the generic kernel, whose CPU-1 count came out one
	 * exited thread's 1 ms / 100 ms short: the accounting drift this
	 * file is kept for (docs/kernel-notes.md, "Accounting drift"). */
	{ "6.12-partition.txt", { -4, -6 }, 2 },
	/* 6.18: the fair servers from boot; one 5 ms / 50 ms task. */
	{ "6.18-idle.txt", { -7, -7 }, 0 },
	{ "6.18-tasks.txt", { -8, -8 }, 1 },
	/* 6.18, cgroup v1, a layout: a partition of CPU 0 and the cluster on
	 * CPU 1, no deadline task left, each CPU's root domain one fair
	 * server, and one of them drifted below zero (docs/kernel-notes.md,
	 * "Accounting drift").  In the cluster's, a 2.5 ms / 8 ms task
	 * exited just before a rebuild ("Exit before a rebuild"); in the
	 * partition's, back-to-back dl-run launches lost one 1 ms / 10 ms
	 * launch ("Back-to-back launches"). */
	{ "6.18-v1-cluster-drift.txt", { -10, -11 }, 0 },
	{ "6.18-v1-partition-drift.txt", { -12, -10 }, 0 },
};

/* The codes of cases[].total, computed here from what ran. */
static int64_t expected(int64_t code)
{
	switch (code) {
	case -1: return tasks_set();
	case -2: return bw(10, 100);
	case -3: return bw(20, 100);
	case -4: return fair() + bw(10, 100);
	case -5: return fair() + bw(20, 100);
	case -6: return fair() + bw(20, 100) - bw(1, 100);
	case -7: return 2 * fair();
	case -8: return 2 * fair() + bw(5, 50);
	case -9: return bw(5, 50);
	case -10: return fair();
	case -11: return fair() - (int64_t)dl_to_ratio(8 * MS, 2500 * 1000);
	case -12: return fair() - bw(1, 10);
	default: return code;
	}
}

static FILE *data(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/data/%s/%s", tl_srcdir(), dir, name);
	f = fopen(path, "re");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	return f;
}

START_TEST(test_sched_debug)
{
	int64_t kbw[NCPUS], ktotal[NCPUS];
	int nd = -5;
	FILE *f = data("sched-debug", cases[_i].file);

	ck_assert_int_eq(dl_sched_debug_parse(f, kbw, ktotal, NCPUS, &nd), 0);
	fclose(f);
	for (int c = 0; c < 2; c++) {
		/* sched_rt_runtime_us / sched_rt_period_us = 0.95 on every one */
		ck_assert_int_eq(kbw[c], (int64_t)dl_to_ratio(1000000, 950000));
		ck_assert_msg(ktotal[c] == expected(cases[_i].total[c]), "%s: CPU %d total_bw %lld, not %lld",
			      cases[_i].file, c, (long long)ktotal[c], (long long)expected(cases[_i].total[c]));
	}
	for (int c = 2; c < NCPUS; c++)
		ck_assert(kbw[c] == -2 && ktotal[c] == -2);
	ck_assert_msg(nd == cases[_i].deadline, "%s: %d deadline threads listed, not %d", cases[_i].file, nd,
		      cases[_i].deadline);
	/* The same figures with fewer CPUs asked for: the rest ignored. */
	f = data("sched-debug", cases[_i].file);
	ck_assert_int_eq(dl_sched_debug_parse(f, kbw, ktotal, 1, NULL), 0);
	fclose(f);
	ck_assert_int_eq(ktotal[0], expected(cases[_i].total[0]));
}
END_TEST

/*
 * The fair servers' count read from each file as its kernel keeps it
 * (docs/kernel-notes.md, "The fair server"): the root domain of each
 * CPU, its fair servers (none on 6.1) and the tasks that ran, with the
 * file's total_bw.  On 6.12 (droppable) a rebuild that kept the root
 * domain left them out (the -tasks files); one that made it counts them
 * (the -partition files); 6.18 always counts them.
 */
static const struct {
	const char *file;
	bool droppable;
	int ncpus[2];            /* each CPU's root domain's CPUs */
	int64_t tasks[2];        /* codes of expected(): the live tasks there */
	bool counted[2];         /* the fair servers in total_bw */
	int verdict[2], settled[2]; /* dl_bw_verdict before and after the settle time */
} fair_cases[] = {
	{ "6.1-tasks.txt", false, { 2, 2 }, { -1, -1 }, { false, false },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	{ "6.12-tasks.txt", true, { 2, 2 }, { -1, -1 }, { false, false },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	{ "6.12-rt-tasks.txt", true, { 2, 2 }, { -1, -1 }, { false, false },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	{ "6.12-rt-partition.txt", true, { 1, 1 }, { -2, -3 }, { true, true },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	/* CPU 1 lost an exited thread's 0.01: below its fair server's 0.05,
	 * so it reads as the fair server left out and a count 0.04 above
	 * the task: settling at first, drift once that lasts. */
	{ "6.12-partition.txt", true, { 1, 1 }, { -2, -3 }, { true, false },
	  { DL_DRIFT_NONE, DL_DRIFT_SETTLING }, { DL_DRIFT_NONE, DL_DRIFT_YES } },
	{ "6.18-idle.txt", false, { 2, 2 }, { 0, 0 }, { true, true },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	{ "6.18-tasks.txt", false, { 2, 2 }, { -9, -9 }, { true, true },
	  { DL_DRIFT_NONE, DL_DRIFT_NONE }, { DL_DRIFT_NONE, DL_DRIFT_NONE } },
	/* A count below zero in one root domain of a layout: drift at once,
	 * never settling, and the other root domain right. */
	{ "6.18-v1-cluster-drift.txt", false, { 1, 1 }, { 0, 0 }, { true, true },
	  { DL_DRIFT_NONE, DL_DRIFT_YES }, { DL_DRIFT_NONE, DL_DRIFT_YES } },
	{ "6.18-v1-partition-drift.txt", false, { 1, 1 }, { 0, 0 }, { true, true },
	  { DL_DRIFT_YES, DL_DRIFT_NONE }, { DL_DRIFT_YES, DL_DRIFT_NONE } },
};

START_TEST(test_fair_counted)
{
	int64_t kbw[NCPUS], ktotal[NCPUS];
	FILE *f = data("sched-debug", fair_cases[_i].file);
	bool has_fair = strncmp(fair_cases[_i].file, "6.1-", 4) != 0;

	ck_assert_int_eq(dl_sched_debug_parse(f, kbw, ktotal, NCPUS, NULL), 0);
	fclose(f);
	for (int c = 0; c < 2; c++) {
		struct dl_rd rd = { .ncpus = fair_cases[_i].ncpus[c], .from_kernel = true };
		int64_t fair_all = has_fair ? fair_cases[_i].ncpus[c] * fair() : 0;

		rd.fair_bw = fair_all;
		rd.tasks_bw = expected(fair_cases[_i].tasks[c]);
		rd.total_bw = ktotal[c];
		dl_rd_fair_counted(&rd, fair_cases[_i].droppable);
		ck_assert_msg(rd.fair_bw + rd.uncounted_fair_bw == fair_all, "%s CPU %d", fair_cases[_i].file, c);
		ck_assert_msg(rd.fair_bw == (fair_cases[_i].counted[c] ? fair_all : 0),
			      "%s CPU %d: fair servers %lld counted of %lld", fair_cases[_i].file, c,
			      (long long)rd.fair_bw, (long long)fair_all);
		ck_assert_msg(dl_bw_verdict(&rd, false) == fair_cases[_i].verdict[c], "%s CPU %d: verdict %d",
			      fair_cases[_i].file, c, dl_bw_verdict(&rd, false));
		ck_assert_msg(dl_bw_verdict(&rd, true) == fair_cases[_i].settled[c], "%s CPU %d: settled verdict %d",
			      fair_cases[_i].file, c, dl_bw_verdict(&rd, true));
		/* A count below zero is drift whichever rule keeps the fair
		 * servers: no split of them can explain it. */
		if (ktotal[c] < 0) {
			struct dl_rd other = rd;

			dl_rd_fair_counted(&other, !fair_cases[_i].droppable);
			ck_assert_msg(dl_bw_verdict(&other, false) == DL_DRIFT_YES, "%s CPU %d: below zero, not drift",
				      fair_cases[_i].file, c);
		}
		/* Read again, the same: the split is of what the kernel says. */
		dl_rd_fair_counted(&rd, fair_cases[_i].droppable);
		ck_assert(rd.fair_bw == (fair_cases[_i].counted[c] ? fair_all : 0));
	}
}
END_TEST

/* Where the kernel always counts them, a count below the fair servers is
 * drift at once, however it came (a lost task of exactly their share
 * included); where a rebuild may drop them, the count is believed. */
START_TEST(test_fair_droppable_rule)
{
	struct dl_rd rd = { .ncpus = 2, .from_kernel = true, .fair_bw = 2 * (uint64_t)fair(), .total_bw = 0 };

	ck_assert(dl_fair_droppable_release(6, 12));
	ck_assert(dl_fair_droppable_release(6, 13));
	ck_assert(!dl_fair_droppable_release(6, 1));
	ck_assert(!dl_fair_droppable_release(6, 14));
	ck_assert(!dl_fair_droppable_release(6, 18));
	ck_assert(!dl_fair_droppable_release(7, 12));
	dl_rd_fair_counted(&rd, false);
	ck_assert_int_eq(dl_bw_verdict(&rd, false), DL_DRIFT_YES);
	ck_assert_uint_eq(rd.uncounted_fair_bw, 0);
	dl_rd_fair_counted(&rd, true);
	ck_assert_int_eq(dl_bw_verdict(&rd, false), DL_DRIFT_NONE);
	ck_assert_uint_eq(rd.uncounted_fair_bw, 2 * (uint64_t)fair());
	/* Below even the tasks: drift either way. */
	rd.tasks_bw = (uint64_t)bw(10, 100);
	rd.total_bw = bw(5, 100);
	dl_rd_fair_counted(&rd, true);
	ck_assert_int_eq(dl_bw_verdict(&rd, false), DL_DRIFT_YES);
	ck_assert_int_eq(dl_rd_expected(&rd), bw(10, 100));
	/* Above the tasks and the fair servers: counted, settling. */
	rd.total_bw = bw(10, 100) + 2 * fair() + bw(1, 100);
	dl_rd_fair_counted(&rd, true);
	ck_assert_uint_eq(rd.fair_bw, 2 * (uint64_t)fair());
	ck_assert_int_eq(dl_bw_verdict(&rd, false), DL_DRIFT_SETTLING);
}
END_TEST

/* A file cut before its first dl_rq block says so; one cut in the task
 * list gives the figures it holds but no count it cannot vouch for. */
START_TEST(test_sched_debug_cut)
{
	char *text = NULL, line[8192];
	size_t len = 0;
	int64_t kbw[NCPUS], ktotal[NCPUS];
	int nd;
	FILE *f = data("sched-debug", "6.18-tasks.txt"), *m = open_memstream(&text, &len);

	while (fgets(line, sizeof(line), f) && strncmp(line, "dl_rq[0]:", 9) != 0)
		fputs(line, m);
	fclose(m);
	fclose(f);
	m = fmemopen(text, len, "r");
	ck_assert_int_eq(dl_sched_debug_parse(m, kbw, ktotal, NCPUS, &nd), -ENOENT);
	fclose(m);
	ck_assert_int_eq(nd, -1);
	free(text);

	/* Empty: nothing at all. */
	m = fmemopen((char[]){ "\n" }, 1, "r");
	ck_assert_int_eq(dl_sched_debug_parse(m, kbw, ktotal, NCPUS, &nd), -ENOENT);
	fclose(m);
}
END_TEST

static const char *const sysctl_kernels[] = { "6.1.txt", "6.12.txt", "6.12-rt.txt", "6.18.txt" };

/* "/proc/sys/kernel/NAME: VALUE" lines, as saved: VALUE of NAME. */
static int64_t sysctl(const char *file, const char *name)
{
	char line[256], want[128];
	int64_t v = -99;
	FILE *f = data("sysctl", file);

	snprintf(want, sizeof(want), "/proc/sys/kernel/%s: ", name);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, want, strlen(want)) == 0)
			ck_assert_int_eq(dl_parse_s64(line + strlen(want), &v), 0);
	fclose(f);
	ck_assert_msg(v != -99, "%s: no %s", file, name);
	return v;
}

START_TEST(test_sysctls)
{
	const char *k = sysctl_kernels[_i];
	uint64_t cap;
	bool unlimited;

	dl_rt_ratio(sysctl(k, "sched_rt_runtime_us"), sysctl(k, "sched_rt_period_us"), &cap, &unlimited);
	ck_assert(!unlimited);
	/* The capacity sched/debug reports as dl_bw->bw on the same kernel. */
	ck_assert_uint_eq(cap, 996147);
	ck_assert_int_eq(sysctl(k, "sched_deadline_period_min_us"), 100);
	ck_assert_int_eq(sysctl(k, "sched_deadline_period_max_us"), 1 << 22);
}
END_TEST

/* -1: no admission test; the kernel then reports a bw of -1. */
START_TEST(test_rt_unlimited)
{
	uint64_t cap;
	bool unlimited;

	dl_rt_ratio(-1, 1000000, &cap, &unlimited);
	ck_assert(unlimited);
	ck_assert_uint_eq(cap, DL_BW_UNIT);
	dl_rt_ratio(1000000, 1000000, &cap, &unlimited);
	ck_assert(!unlimited);
	ck_assert_uint_eq(cap, DL_BW_UNIT);
}
END_TEST

START_TEST(test_parse_s64)
{
	int64_t v;

	ck_assert_int_eq(dl_parse_s64("950000\n", &v), 0);
	ck_assert_int_eq(v, 950000);
	ck_assert_int_eq(dl_parse_s64("-1", &v), 0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(dl_parse_s64("", &v), -EINVAL);
	ck_assert_int_eq(dl_parse_s64("12ab", &v), -EINVAL);
	ck_assert_int_eq(dl_parse_s64("99999999999999999999", &v), -EINVAL);
}
END_TEST

/* Cgroup paths: one is another's or below it, a root is no one's. */
START_TEST(test_path_within)
{
	ck_assert(dl_path_within("/libdl/rt", "/libdl/rt"));
	ck_assert(dl_path_within("/libdl/rt/x", "/libdl/rt"));
	ck_assert(dl_path_within("libdl/rt/x", "libdl/rt"));
	ck_assert(!dl_path_within("/libdl/rt2", "/libdl/rt"));
	ck_assert(!dl_path_within("/libdl", "/libdl/rt"));
	ck_assert(!dl_path_within("/libdl/rt", "/"));
	ck_assert(!dl_path_within("/libdl/rt", ""));
	ck_assert(!dl_path_within("", ""));
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("kernel-files");
	TCase *tc = tcase_create("sched-debug");

	tcase_add_loop_test(tc, test_sched_debug, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, test_sched_debug_cut);
	tcase_add_loop_test(tc, test_fair_counted, 0, ARRAY_SIZE(fair_cases));
	tcase_add_test(tc, test_fair_droppable_rule);
	suite_add_tcase(s, tc);
	tc = tcase_create("sysctl");
	tcase_add_loop_test(tc, test_sysctls, 0, ARRAY_SIZE(sysctl_kernels));
	tcase_add_test(tc, test_rt_unlimited);
	tcase_add_test(tc, test_parse_s64);
	tcase_add_test(tc, test_path_within);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
