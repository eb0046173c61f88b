/*
 * Load: 1,000 small reservations started with dl-run until the kernel
 * refuses; every refusal explained, dl-stat listing exactly the admitted
 * ones, and the kernel's accounting right afterwards.  File descriptors
 * counted around many library calls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define N 1000
#define MS 1000000ULL

static pid_t pids[N];
static bool admitted[N];

static int count_fds(void)
{
	return (int)dl_count_dir("/proc/self/fd");
}

static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

START_TEST(test_thousand_reservations)
{
	char errfile[] = "/tmp/libdl-load-XXXXXX", *text, *json;
	int fd = mkstemp(errfile), nadm = 0, nref = 0, listed = 0;
	size_t cap = 4 << 20;

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < N; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			/* 2 ms a second each: the machine's 1.8 free takes 900. */
			dup2(fd, 2);
			execl(tl_tool("dl-run"), "dl-run", "-r", "2ms", "-p", "1s", "--", "/bin/sleep", "600", (char *)NULL);
			_exit(127);
		}
	}
	/* Each either becomes SCHED_DEADLINE or exits, refused. How soon is
	 * not this test's claim (bench/ times the launches): the thousand
	 * start at once, and a busy machine may take a minute for them all. */
	uint64_t until = dl_now_ns() + 150000 * MS;

	for (int i = 0; i < N; i++) {
		int status;

		while (dl_now_ns() < until) {
			if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
				ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 125, "dl-run %d: status %d", i, status);
				pids[i] = 0;
				nref++;
				break;
			}
			if (dl_get(pids[i], &(struct dl_params){ 0 }) == DL_SCHED_DEADLINE) {
				admitted[i] = true;
				nadm++;
				break;
			}
			dl_sleep_ns(2 * MS);
		}
		ck_assert_msg(admitted[i] || !pids[i], "dl-run %d neither ran nor was refused in 150 s", i);
	}
	close(fd);
	tl_note("%d admitted, %d refused", nadm, nref);
	ck_assert_int_eq(nadm + nref, N);
	/* With 2 ms a second, an admitted dl-run may be throttled before its
	 * exec of sleep is done: wait for every one to be sleep. */
	for (int i = 0; i < N; i++) {
		char comm[32] = "", path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
		for (int t = 0; admitted[i] && t < 500; t++) {
			if (dl_read_file(path, comm, sizeof(comm)) == 0 && strcmp(comm, "sleep") == 0)
				break;
			dl_sleep_ns(10 * MS);
		}
		ck_assert_msg(!admitted[i] || strcmp(comm, "sleep") == 0, "admitted dl-run %d never became sleep", i);
	}
	ck_assert_int_gt(nadm, 100);
	ck_assert_int_gt(nref, 0);
	/* Every refusal explained, with the root domain's figures. */
	text = calloc(1, 1 << 20);
	{
		int f = open(errfile, O_RDONLY);
		ssize_t got = read(f, text, (1 << 20) - 1);

		close(f);
		ck_assert_int_gt(got, 0);
	}
	ck_assert_int_eq(count_lines(text, "dl-run: cannot set SCHED_DEADLINE"), nref);
	ck_assert_int_eq(count_lines(text, "admission refused"), nref);
	unlink(errfile);
	/* dl-stat lists exactly the admitted ones. */
	json = calloc(1, cap);
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--tasks", "--json", NULL },
				json, cap, NULL, 0), 0);
	for (int i = 0; i < N; i++) {
		char key[64];

		if (!admitted[i])
			continue;
		snprintf(key, sizeof(key), "\"pid\":%d,\"tid\":%d,", (int)pids[i], (int)pids[i]);
		ck_assert_msg(strstr(json, key), "dl-stat does not list admitted pid %d", (int)pids[i]);
		listed++;
	}
	ck_assert_int_eq(listed, nadm);
	ck_assert_int_eq(count_lines(json, "\"comm\":\"sleep\""), nadm);
	for (int i = 0; i < N; i++)
		if (admitted[i])
			kill(pids[i], SIGKILL);
	for (int i = 0; i < N; i++)
		if (admitted[i])
			waitpid(pids[i], NULL, 0);
	tl_settle();
	{
		struct dl_drift *d = NULL;
		size_t n = 0;

		/* The launches can trip the kernel's own drift (docs/kernel-notes.md):
		 * found here, and repaired, it is the kernel's bug. */
		if (dl_drift_check(2000, &d, &n) > 0) {
			tl_note("the kernel's total_bw drifted under the load (a kernel bug, docs/kernel-notes.md): repairing");
			ck_assert_int_eq(dl_rd_rebuild(), 0);
			free(d);
			ck_assert_int_eq(dl_drift_check(2000, NULL, &n), 0);
		}
	}
	free(text);
	free(json);
}
END_TEST

/* dl-load and dl-stat --watch while threads churn: no crash, no error. */
START_TEST(test_load_and_watch_under_churn)
{
	char ts[4096], *out = calloc(1, 1 << 20), *err = calloc(1, 65536);
	const char *src = getenv("top_srcdir");
	pid_t c = tl_churn(false);
	int rc;

	ck_assert_int_gt(c, 0);
	snprintf(ts, sizeof(ts), "%s/tests/cli/data/tiny.ts", src && *src ? src : ".");
	rc = tl_run((char *[]){ (char *)tl_tool("dl-load"), "--duration", "2s", "--json", ts, NULL },
		    out, 1 << 20, err, 65536);
	ck_assert_msg(rc == 0, "dl-load under churn: exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "\"jobs\":"), "%s", out);
	rc = tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--watch", "10ms", "-n", "100", NULL },
		    out, 1 << 20, err, 65536);
	ck_assert_msg(rc == 0, "dl-stat --watch under churn: exit %d: %s", rc, err);
	tl_kill(c);
	free(out);
	free(err);
}
END_TEST

/* The library keeps no descriptor open across its calls. */
START_TEST(test_no_fd_leaks)
{
	int before = count_fds();

	for (int i = 0; i < 200; i++) {
		struct dl_task *t = NULL;
		struct dl_rd *rds = NULL;
		struct dl_policy *pol = NULL;
		struct dl_layout *l = NULL;
		struct dl_params p = { .runtime = MS, .period = 10 * MS };
		char why[1024];
		size_t nt, nrd;

		ck_assert_int_ge(dl_snapshot(0, &t, &nt, &rds, &nrd), 0);
		free(t);
		free(rds);
		ck_assert_int_ge(dl_predict(0, false, &p, why, sizeof(why)), 0);
		ck_assert_int_ge(dl_drift_check(0, NULL, &nt), 0);
		dl_layout_load(&l); /* no layout: ENOENT */
		dl_layout_free(l);
		ck_assert_int_eq(dl_policy_read("/nonexistent/dl-run.conf", &pol), 0);
		ck_assert_int_eq(dl_policy_check(pol, 0, false, &p, why, sizeof(why)), 1);
		dl_policy_free(pol);
		ck_assert_int_eq(dl_set_owned(0, &p), 0);
		ck_assert_int_eq(dl_clear(0), 0);
		dl_explain(-EBUSY, 0, &p, why, sizeof(why));
	}
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("load");

	tl_skip_if_layout();
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_thousand_reservations);
	tcase_add_test(tc, test_no_fd_leaks);
	tcase_add_test(tc, test_load_and_watch_under_churn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	for (int i = 0; i < N; i++)
		if (admitted[i])
			kill(pids[i], SIGKILL);
	return ret;
}
