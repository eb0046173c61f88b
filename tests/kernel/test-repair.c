/*
 * dl-part status and repair against a root domain corrupted on purpose,
 * by the recipe of docs/kernel-notes.md, "Exit before a rebuild": a
 * deadline task exits in the cluster and the root's sched_load_balance
 * goes back to 1 the moment it returns, without
 * the library's pause.  The kernel then counts total_bw below its live
 * tasks (negative) and refuses every reservation.  When the kernel does
 * not fall for it in 10 tries there is nothing to repair: SKIP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL
#define CPUSET "/sys/fs/cgroup/cpuset"

static char out[16384], err[16384];
static char root_lb[16] = "1";

static int dl_part(const char *cmd)
{
	return tl_run((char *[]){ (char *)tl_tool("dl-part"), (char *)cmd, NULL }, out, sizeof(out), err, sizeof(err));
}

static void cleanup(void)
{
	tl_layout_restore(root_lb);
}

/* The merge, at once: what dl_layout_destroy() would never do. */
static void merge(void)
{
	dl_write_file(CPUSET "/cpuset.sched_load_balance", "1");
}

/* One try of the recipe; true when the count went below the live tasks'. */
static bool corrupt_once(void)
{
	struct dl_drift *d = NULL;
	size_t n = 0;

	if (tl_exit_then_rebuild(merge) < 0)
		return false;
	dl_drift_check(0, &d, &n);
	for (size_t i = 0; i < n; i++)
		if (d[i].kernel_bw < d[i].expected_bw) {
			free(d);
			return true;
		}
	free(d);
	/* Not this time: undo and try again. */
	cleanup();
	dl_rd_rebuild();
	tl_settle();
	return false;
}

START_TEST(test_status_and_repair)
{
	pid_t p;
	int rc;

	/* Corrupted: status says so and exits 1; reservations fail. */
	rc = dl_part("status");
	ck_assert_msg(rc == 1, "status exit %d: %s", rc, out);
	ck_assert_msg(strstr(out, "DRIFTED") && strstr(out, "run dl-part repair"), "%s", out);
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-part"), "status", "--json", NULL },
				out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_msg(strstr(out, "\"drifted\":true"), "%s", out);
	/* --check predicts the refusal the kernel then gives, and why. */
	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "--check", "-r", "1ms", "-p", "10ms", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 1, "--check exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "refused") &&
		      strstr(out, "the kernel's count is corrupt") && strstr(out, "dl-part repair"), "%s", out);
	p = tl_dl_hog(1 * MS, 10 * MS);
	ck_assert_msg(p < 0, "a reservation was admitted on the corrupted root domain");
	/* dl-stat shows it drifted, with the difference and the repair. */
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--domains", NULL },
				out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_msg(strstr(out, "DRIFTED: the kernel counts -") && strstr(out, "repair it with dl-part repair"), "%s", out);
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--json", "--domains", NULL },
				out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_msg(strstr(out, "\"drift\":\"drifted\",\"drift_bw\":-"), "%s", out);

	rc = dl_part("repair");
	ck_assert_msg(rc == 0, "repair exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "found: root domain CPUs"), "%s", out);
	ck_assert_msg(strstr(out, "now: the kernel's figures match its live tasks"), "%s", out);
	ck_assert_int_eq(dl_part("status"), 0);
	p = tl_dl_hog(1 * MS, 10 * MS);
	ck_assert_msg(p > 0, "a reservation is still refused after the repair");
	tl_kill(p);
	ck_assert_msg(dl_part("destroy") == 0, "%s", err);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("repair");
	TCase *tc = tcase_create("corrupted");
	int tries;

	if (dl_cpuset_version() != 1)
		tl_skip_all("the recipe needs cgroup v1 cpusets (v2 is tried in the VM suites)");
	tl_skip_if_layout();
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tl_settle();
	for (tries = 1; tries <= 10 && !corrupt_once(); tries++)
		;
	if (tries > 10)
		tl_skip_all("the kernel's accounting did not go wrong in 10 tries of the recipe: nothing to repair");
	tl_note("corrupted on try %d", tries);
	tcase_add_test(tc, test_status_and_repair);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	cleanup();
	return ret;
}
