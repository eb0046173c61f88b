/*
 * dl-part status against a layout one of whose root domains the kernel
 * counts below zero, the layout itself intact: a partition of CPU 0, the
 * cluster on CPU 1 (cgroup v1).  The count is corrupted on purpose by
 * docs/kernel-notes.md, "Exit before a rebuild": a deadline task exits in
 * the cluster and the suite at once reads sched_rt_runtime_us, which on
 * 6.18 rebuilds the root domains and keeps the layout's ("Reading the
 * kernel's figures").  A count below the expected one is drift at once
 * ("A high count after exits is not drift"): status must say so for the
 * cluster's root domain alone, and repair must mend it.  The kernel's
 * total_bw of each CPU is left as the suite found it.  When the kernel
 * does not fall for it in 10 tries there is nothing to report: SKIP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define CPUSET "/sys/fs/cgroup/cpuset"

static char out[16384], err[16384];
static char root_lb[16] = "1";
static int64_t found[2]; /* each CPU's total_bw before the suite's change */

static int dl_part(char *const args[])
{
	char *argv[8] = { (char *)tl_tool("dl-part") };

	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	return tl_run(argv, out, sizeof(out), err, sizeof(err));
}

/* In status's table of root domains (RD, CPUS, ...): 1 when the row of
 * CPUs cpus is followed by its DRIFTED line, 0 when not, -1 when there
 * is no such row. */
static int row_drifted(const char *text, const char *cpus)
{
	for (const char *p = strstr(text, "\nRD "); p && (p = strchr(p + 1, '\n'));) {
		char rd[16], c[64];

		if (sscanf(p + 1, "%15s %63s", rd, c) == 2 && rd[strspn(rd, "0123456789")] == '\0' &&
		    strcmp(c, cpus) == 0) {
			const char *next = strchr(p + 1, '\n');

			return next && strncmp(next + 1, "    DRIFTED", 11) == 0;
		}
	}
	return -1;
}

static int64_t total_of(int cpu)
{
	uint64_t bw;
	int64_t total = 0;

	ck_assert_int_eq(dl_kernel_bw(cpu, &bw, &total), 0);
	return total;
}

/* The rebuild, at once: a read of the sysctl (on 6.18, a rebuild that
 * keeps the layout's root domains); what the library never does after
 * an exit. */
static void read_sysctl(void)
{
	char sysctl[32];

	dl_read_file("/proc/sys/kernel/sched_rt_runtime_us", sysctl, sizeof(sysctl));
}

/* One try: true when the kernel counts the cluster's root domain, CPU 1,
 * below zero, and the partition's, CPU 0, not. */
static bool corrupt_once(void)
{
	uint64_t bw;
	int64_t t0 = 0, t1 = 0;
	bool hit;

	if (tl_exit_then_rebuild(read_sysctl) < 0)
		return false;
	/* Read from the kernel, not judged by the library under test. */
	hit = dl_kernel_bw(1, &bw, &t1) == 0 && dl_kernel_bw(0, &bw, &t0) == 0 && t1 < 0 && t0 >= 0;
	if (hit)
		return true;
	/* Not this time: undo and try again. */
	tl_layout_restore(root_lb);
	tl_settle();
	return false;
}

START_TEST(test_status_sees_layout_drift)
{
	int64_t fair0 = total_of(0);
	char *p, *q;
	int rc;

	/* What the kernel says, read here: CPU 1's count below zero, CPU 0's
	 * its fair server alone (no deadline task anywhere of the suite's). */
	ck_assert_msg(total_of(1) < 0, "CPU 1's total_bw is %lld", (long long)total_of(1));

	rc = dl_part((char *[]){ "status", NULL });
	ck_assert_msg(rc == 1, "status exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "cluster") && strstr(out, "exclusive"), "the layout is not intact: %s", out);
	ck_assert_msg(row_drifted(out, "1") == 1, "the cluster's root domain not shown drifted: %s", out);
	ck_assert_msg(row_drifted(out, "0") == 0, "the partition's root domain shown drifted: %s", out);
	ck_assert_msg(!strstr(out, "figures match"), "%s", out);

	rc = dl_part((char *[]){ "status", "--json", NULL });
	ck_assert_msg(rc == 1, "status --json exit %d: %s%s", rc, out, err);
	p = strstr(out, "\"root_domains\":");
	ck_assert_msg(p, "%s", out);
	p = strstr(p, "\"cpus\":\"1\"");
	ck_assert_msg(p, "%s", out);
	/* That root domain's own entry: up to the next one's figures. */
	q = strstr(p, "\"figures\"");
	p = strstr(p, "\"drifted\":true,\"kernel_total_bw\":-");
	ck_assert_msg(p && (!q || p < q), "the cluster's root domain not drifted in JSON: %s", out);

	rc = dl_part((char *[]){ "repair", NULL });
	ck_assert_msg(rc == 0, "repair exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "found: root domain CPUs 1: the kernel counts -"), "%s", out);
	ck_assert_msg(strstr(out, "now: the kernel's figures match its live tasks"), "%s", out);
	/* The kernel's own count: each root domain its fair server again. */
	ck_assert_int_eq(total_of(1), fair0);
	ck_assert_int_eq(total_of(0), fair0);
	ck_assert_int_eq(dl_part((char *[]){ "status", NULL }), 0);
	ck_assert_msg(dl_part((char *[]){ "destroy", NULL }) == 0, "%s", err);
	/* Left as found. */
	ck_assert_int_eq(total_of(0), found[0]);
	ck_assert_int_eq(total_of(1), found[1]);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("layout-drift");
	TCase *tc = tcase_create("cluster below zero");
	uint64_t bw;
	int tries;

	if (dl_cpuset_version() != 1)
		tl_skip_all("the recipe needs cgroup v1 cpusets");
	if (access("/sys/fs/cgroup/cpuset/cpuset.cpus", F_OK) != 0 || sysconf(_SC_NPROCESSORS_ONLN) != 2)
		tl_skip_all("the recipe's layout needs exactly 2 online CPUs");
	tl_skip_if_layout();
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tl_settle();
	if (dl_kernel_bw(0, &bw, &found[0]) < 0 || dl_kernel_bw(1, &bw, &found[1]) < 0)
		tl_skip_all("cannot read the kernel's figures in sched/debug");
	for (tries = 1; tries <= 10 && !corrupt_once(); tries++)
		;
	if (tries > 10)
		tl_skip_all("the kernel's accounting did not go wrong in 10 tries of the recipe: nothing to report");
	tl_note("corrupted on try %d", tries);
	tcase_add_test(tc, test_status_sees_layout_drift);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	/* tl_main's last drift check repaired what a failed test left; the
	 * layout goes, and with it the root domains are made again. */
	tl_layout_restore(root_lb);
	return ret;
}
