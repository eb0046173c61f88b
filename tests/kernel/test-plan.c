/*
 * The plan against the real kernel: a plan called feasible on this
 * machine is admitted where it puts each task, and a reservation the
 * analysis says the kernel refuses is refused (the 2^-20 rounding and
 * the fair server included).  Only the suite's own cpusets and
 * processes are touched: every layout is made with DL_LAYOUT_NO_MOVE,
 * and the root cpuset's sched_load_balance is restored after each test.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "testlib.h"

#define MS 1000000ULL
#define CPUSET "/sys/fs/cgroup/cpuset"

static char root_lb[16];

static void restore_machine(void)
{
	tl_layout_restore(root_lb);
}

static void setup(void)
{
	restore_machine();
	tl_settle();
}

static void create(const struct dl_plan *plan)
{
	struct dl_layout_result res;
	struct dl_layout *l = NULL;

	ck_assert_msg(dl_plan_layout(plan, &l) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_layout_set_flags(l, DL_LAYOUT_NO_MOVE), 0);
	ck_assert_msg(dl_layout_create(l, &res) == 0, "%s", dl_errmsg());
	dl_layout_free(l);
}

static const char *place_of(const struct dl_plan *plan, size_t task)
{
	for (size_t j = 0; j < plan->nparts; j++)
		for (size_t i = 0; i < plan->parts[j]->ntasks; i++)
			if (plan->parts[j]->tasks[i] == task)
				return plan->parts[j]->name;
	return DL_CLUSTER;
}

/* The article's set on this machine: the heavy task alone on a CPU, the
 * light ones in the cluster; each admitted there, by the kernel. */
START_TEST(test_feasible_plan_admitted)
{
	struct dl_params p[] = {
		{ .runtime = 8 * MS, .period = 9 * MS },
		{ .runtime = 25 * MS / 10, .period = 8 * MS },
		{ .runtime = 25 * MS / 10, .period = 8 * MS },
	};
	struct dl_platform host, *pf = &host;
	struct dl_plan *plan = NULL;
	pid_t pid[3] = { 0 };

	ck_assert_int_eq(dl_platform_get(pf, 0), 0);
	ck_assert_int_eq(dl_plan_compute(p, 3, pf, &plan), 0);
	ck_assert_msg(plan->feasible, "%s", plan->why);
	ck_assert_uint_ge(plan->nparts, 1);
	create(plan);
	for (size_t i = 0; i < 3; i++) {
		const char *where = place_of(plan, i);
		char why[1024];
		struct dl_params got;

		pid[i] = tl_dl_hog_in(where, p[i].runtime, p[i].period, why, sizeof(why));
		ck_assert_msg(pid[i] > 0, "task %zu refused in %s: %s", i, where, why);
		/* What the kernel reports, not what the library says. */
		ck_assert_int_eq(dl_get(pid[i], &got), DL_SCHED_DEADLINE);
		ck_assert_uint_eq(got.runtime, p[i].runtime);
	}
	for (size_t i = 0; i < 3; i++)
		tl_kill(pid[i]);
	tl_settle();
	dl_plan_free(plan);
}
END_TEST

/* The analysis' admission against the kernel's, at the boundary: in a
 * one-CPU partition a reservation of 450ms/1s, then the largest runtime
 * per 1s the analysis admits beside it (the fair server and the
 * kernel's 2^-20 rounding counted) is admitted, and one nanosecond more
 * that the analysis refuses is refused. */
START_TEST(test_predicted_refusal_refused)
{
	struct dl_an_task ts[2] = { { 450 * MS, 1000 * MS, 1000 * MS }, { 0, 1000 * MS, 1000 * MS } };
	struct dl_platform host, *pf = &host, one;
	uint64_t lo = 1024, hi = 1000 * MS;
	dl_cpus_t cpu0;
	char why[1024];
	pid_t a, b;

	ck_assert_int_eq(dl_platform_get(pf, 0), 0);
	if (pf->unlimited)
		tl_skip_all("sched_rt_runtime_us is -1: the kernel admits everything");
	/* A layout with a one-CPU partition. */
	one = *pf;
	{
		struct dl_layout *l = dl_layout_new();
		struct dl_layout_result res;
		dl_cpus_t c0, c1;

		dl_cpus_zero(&c0);
		dl_cpus_set(&c0, dl_cpus_first(&pf->cpus));
		c1 = pf->cpus;
		dl_cpus_clr(&c1, dl_cpus_first(&pf->cpus));
		ck_assert_int_eq(dl_layout_add_partition(l, "planpart", &c0), 0);
		ck_assert_int_eq(dl_layout_set_cluster(l, &c1), 0);
		ck_assert_int_eq(dl_layout_set_flags(l, DL_LAYOUT_NO_MOVE), 0);
		ck_assert_msg(dl_layout_create(l, &res) == 0, "%s", dl_errmsg());
		dl_layout_free(l);
	}
	/* The smallest runtime the analysis refuses beside 450ms/1s, on the
	 * partition's CPU. */
	dl_cpus_zero(&cpu0);
	dl_cpus_set(&cpu0, dl_cpus_first(&pf->cpus));
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		ts[1].c = mid;
		if (dl_an_admission(&one, ts, 2, &cpu0) >= 0)
			lo = mid;
		else
			hi = mid;
	}
	tl_note("one CPU: beside 450ms/1s the analysis admits %llu ns per 1s and refuses %llu",
		(unsigned long long)lo, (unsigned long long)hi);
	a = tl_dl_hog_in("planpart", 450 * MS, 1000 * MS, why, sizeof(why));
	ck_assert_msg(a > 0, "%s", why);
	b = tl_dl_hog_in("planpart", hi, 1000 * MS, why, sizeof(why));
	ck_assert_msg(b < 0, "the kernel admitted %llu ns per 1s, predicted refused", (unsigned long long)hi);
	ck_assert_msg(strstr(why, "refused") || strstr(why, "busy") || strstr(why, "Busy"), "%s", why);
	b = tl_dl_hog_in("planpart", lo, 1000 * MS, why, sizeof(why));
	ck_assert_msg(b > 0, "the kernel refused %llu ns per 1s, predicted admitted: %s", (unsigned long long)lo, why);
	tl_kill(a);
	tl_kill(b);
	tl_settle();
}
END_TEST

/* dl-part apply: the plan's layout, each task with a COMMAND started
 * under its reservation in its place; the kernel's view of each. */
START_TEST(test_apply_starts_commands)
{
	char path[] = "/tmp/libdl-test-plan-XXXXXX", out[8192], err[8192];
	const char *set = "heavy 8ms 9ms 9ms -- sleep 60\n"
			  "light 2.5ms 8ms 8ms count=2 -- sleep 60\n";
	int fd = mkstemp(path), n = 0;
	pid_t pids[3];
	char *line;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, set, strlen(set)), (ssize_t)strlen(set));
	close(fd);
	ck_assert_msg(tl_run_tool("dl-part", (char *[]){ "apply", "--no-move", path, NULL },
				  out, sizeof(out), err, sizeof(err)) == 0, "%s%s", out, err);
	unlink(path);
	for (line = strstr(out, "started "); line && n < 3; line = strstr(line + 1, "started ")) {
		char name[64], place[64];
		int pid;

		if (sscanf(line, "started %63s (pid %d) in %63[^:]:", name, &pid, place) == 3) {
			struct dl_params got;
			char cpuset[256] = "", file[64];

			pids[n++] = pid;
			ck_assert(tl_wait_policy(pid, DL_SCHED_DEADLINE, 2000));
			ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
			snprintf(file, sizeof(file), "/proc/%d/cpuset", pid);
			dl_read_file(file, cpuset, sizeof(cpuset));
			ck_assert_msg(strstr(cpuset, place), "%s runs in %s, not in %s", name, cpuset, place);
			if (!strcmp(name, "heavy"))
				ck_assert_str_ne(place, DL_CLUSTER);
		}
	}
	ck_assert_msg(n == 3, "%s", out);
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		/* Not our children (dl-part's): wait until they are gone. */
		for (int k = 0; k < 200 && kill(pids[i], 0) == 0; k++)
			usleep(10000);
	}
	tl_settle();
}
END_TEST

/* dl-load --plan: the set runs in the plan's layout, which is gone after
 * the run (the cpuset tree as before). */
START_TEST(test_dl_load_plan)
{
	char path[] = "/tmp/libdl-test-plan-XXXXXX", out[16384], err[8192], before[16384], after[16384];
	const char *set = "heavy 8ms 9ms 9ms work=7.6ms\n"
			  "light 2.5ms 8ms 8ms work=2.4ms count=2\n";
	int fd = mkstemp(path), rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, set, strlen(set)), (ssize_t)strlen(set));
	close(fd);
	tl_cpuset_snapshot(before, sizeof(before));
	rc = tl_run_tool("dl-load", (char *[]){ "--plan", "--no-move", "--jobs", "50", path, NULL },
			 out, sizeof(out), err, sizeof(err));
	unlink(path);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "plan: EDF(k)") && strstr(out, "partition cpu") && strstr(out, " heavy\n"), "%s", out);
	ck_assert_msg(strstr(out, "light.1") && strstr(out, "light.2"), "%s", out);
	tl_cpuset_snapshot(after, sizeof(after));
	ck_assert_msg(strcmp(before, after) == 0, "the plan's layout was left:\n%s", after);
	tl_settle();
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("plan-kernel");
	TCase *tc = tcase_create("plan");
	dl_cpus_t online;

	if (dl_cpuset_version() != 1)
		tl_skip_all("the host suites need cgroup v1 cpusets (cgroup v2 is tested in the VM suites)");
	dl_cpus_online(&online);
	if (dl_cpus_count(&online) < 2)
		tl_skip_all("a plan with a partition and a cluster needs 2 CPUs (this machine has %d)",
			    dl_cpus_count(&online));
	tl_skip_if_layout();
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, NULL, restore_machine);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_feasible_plan_admitted);
	tcase_add_test(tc, test_predicted_refusal_refused);
	tcase_add_test(tc, test_apply_starts_commands);
	tcase_add_test(tc, test_dl_load_plan);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	restore_machine();
	return ret;
}
