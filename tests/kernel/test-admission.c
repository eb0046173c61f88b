/*
 * Admission: fill the machine with deadline tasks and check that the
 * kernel refuses the next one, that dl-run explains it with the kernel's
 * own figures, and that the free bandwidth the library reports predicts
 * the kernel's answer just under and just over it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL
#define MAX_HOGS 256

static pid_t hogs[MAX_HOGS];
static int nhogs;
static char out[16384], err[16384];

static void kill_hogs(void)
{
	for (int i = 0; i < nhogs; i++)
		tl_kill(hogs[i]);
	nhogs = 0;
	tl_settle();
}

/* 0.1 each until the kernel refuses one. */
static int fill_machine(void)
{
	while (nhogs < MAX_HOGS) {
		pid_t p = tl_dl_hog(1 * MS, 10 * MS);

		if (p < 0)
			break;
		hogs[nhogs++] = p;
	}
	return nhogs;
}

static void setup(void)
{
	tl_settle();
}

static void teardown(void)
{
	kill_hogs();
}

/* The library's free figure says how many 0.1 tasks fit; the kernel agrees. */
START_TEST(test_fill_matches_prediction)
{
	struct dl_rd rd;
	struct dl_params p = { .runtime = 1 * MS, .period = 10 * MS };
	int64_t fits;

	ck_assert_msg(dl_rd_of_cpu(0, &rd) == 0, "%s", dl_errmsg());
	ck_assert(rd.from_kernel);
	fits = rd.free_bw / (int64_t)dl_params_bw(&p);
	ck_assert_int_eq(fill_machine(), fits);
	ck_assert_int_eq(dl_rd_of_cpu(0, &rd), 0);
	ck_assert_uint_eq(rd.ntasks, (uint64_t)fits);
	ck_assert_int_lt(rd.free_bw, (int64_t)dl_params_bw(&p));
	ck_assert_int_ge(rd.free_bw, 0);
}
END_TEST

/* EBUSY, explained with the root domain's figures: dl-run's own failure,
 * 125, never a status its command could have returned. */
START_TEST(test_dl_run_ebusy_explained)
{
	char want[256];
	int rc, n = fill_machine();

	ck_assert_int_gt(n, 0);
	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "admission refused: the reservation needs 0.1000 of a CPU"), "%s", err);
	ck_assert_msg(strstr(err, "root domain CPUs"), "%s", err);
	ck_assert_msg(strstr(err, "fair servers"), "%s", err);
	snprintf(want, sizeof(want), "%d deadline threads", n);
	ck_assert_msg(strstr(err, want), "\"%s\" lacks \"%s\"", err, want);
	ck_assert_msg(strstr(err, "ask for less"), "%s", err);
	/* --check predicts the same refusal, and answers no: 1. */
	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "--check", "-r", "1ms", "-p", "10ms", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "refused: it needs 0.1000"), "%s", out);
	/* And as JSON: the same verdict, the rule that decided it. */
	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "--check", "--json", "-r", "1ms", "-p", "10ms", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(out, "\"admissible\":false,\"kernel_admits\":false,\"verdict\":\"overflow\""), "%s", out);
	ck_assert_msg(strstr(out, "\"need_bw\":104857,"), "%s", out);
}
END_TEST

/* --check --json against the kernel's own figures: the root domain it
 * names is the one dl_rd_of_cpu() reads for that CPU, and what it
 * predicts is what the kernel then does. */
START_TEST(test_check_json)
{
	char want[256], cpus[DL_CPUS_STRLEN];
	struct dl_rd rd;
	int rc, cpu;
	const char *p;

	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "--check", "--json", "-r", "1ms", "-p", "10ms", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "%s%s", out, err);
	ck_assert_msg(out[0] == '{' && strchr(out, '\n') == out + strlen(out) - 1, "one object, one line: %s", out);
	ck_assert_msg(strstr(out, "{\"admissible\":true,\"kernel_admits\":true,\"verdict\":\"admitted\","), "%s", out);
	ck_assert_msg(strstr(out, "\"request\":{\"runtime_ns\":1000000,\"deadline_ns\":10000000,\"period_ns\":10000000,"), "%s", out);
	/* The capacity a CPU needs: (1ms << 20) / 10ms >> 10, the kernel's
	 * dl_task_fits_capacity() of a task with that runtime and deadline. */
	ck_assert_msg(strstr(out, "\"need_bw\":104857,\"old_bw\":0,\"cpu_capacity_need\":102}"), "%s", out);
	ck_assert_msg(strstr(out, "\"policy\":null"), "root has no policy: %s", out);
	p = strstr(out, "\"cpu\":");
	ck_assert_msg(p && sscanf(p, "\"cpu\":%d", &cpu) == 1, "%s", out);
	ck_assert_int_eq(dl_rd_of_cpu(cpu, &rd), 0);
	ck_assert(rd.from_kernel);
	snprintf(want, sizeof(want), "\"root_domain\":{\"cpus\":\"%s\",\"ncpus\":%d,\"cpu_bw\":%llu,\"capacity\":%llu,"
		 "\"cpu_capacity_min\":%u,\"cpu_capacity_max\":%u,\"cpu_capacity_sum\":%llu,",
		 dl_cpus_format(&rd.cpus, cpus, sizeof(cpus)), rd.ncpus, (unsigned long long)rd.cpu_bw,
		 (unsigned long long)rd.capacity, rd.cap_min, rd.cap_max, (unsigned long long)rd.cap_sum);
	ck_assert_msg(strstr(out, want), "\"%s\" lacks \"%s\"", out, want);
	snprintf(want, sizeof(want), "\"total_bw\":%lld,\"free_bw\":%lld,",
		 (long long)rd.total_bw, (long long)rd.free_bw);
	ck_assert_msg(strstr(out, want), "\"%s\" lacks \"%s\"", out, want);
}
END_TEST

/* Just under the free bandwidth: predicted and admitted; just over:
 * predicted and refused.  Period 100 ms: runtime steps of 0.00001. */
START_TEST(test_prediction_edges)
{
	struct dl_rd rd;
	struct dl_params under, over;
	char why[1024];
	uint64_t period = 100 * MS, runtime;
	pid_t probe;

	/* Full, then 0.9 back: less than one CPU free on any machine. */
	ck_assert_int_ge(fill_machine(), 9);
	for (int i = 0; i < 9; i++)
		tl_kill(hogs[--nhogs]);
	tl_settle();
	ck_assert_int_eq(dl_rd_of_cpu(0, &rd), 0);
	ck_assert_int_gt(rd.free_bw, 0);
	/* The largest runtime whose bandwidth still fits, and the next. */
	runtime = (uint64_t)(((unsigned __int128)rd.free_bw * period) >> DL_BW_SHIFT);
	while (dl_params_bw(&(struct dl_params){ .runtime = runtime + 1, .period = period }) <= rd.free_bw)
		runtime++;
	while (dl_params_bw(&(struct dl_params){ .runtime = runtime, .period = period }) > rd.free_bw)
		runtime--;
	under = (struct dl_params){ .runtime = runtime - 1000, .period = period };
	over = (struct dl_params){ .runtime = runtime + 20000, .period = period };
	ck_assert_uint_le(over.runtime, period);

	ck_assert_int_eq(dl_predict(0, false, &under, why, sizeof(why)), 1);
	ck_assert_int_eq(dl_predict(0, false, &over, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "refused: it needs"), "%s", why);

	probe = tl_dl_hog(over.runtime, period);
	ck_assert_msg(probe < 0, "the kernel admitted what was predicted to be refused");
	probe = tl_dl_hog(under.runtime, period);
	ck_assert_msg(probe > 0, "the kernel refused what was predicted to be admitted");
	hogs[nhogs++] = probe;
}
END_TEST

/* A change of an existing reservation frees the old one first. */
START_TEST(test_change_counts_old_bandwidth)
{
	struct dl_params small = { .runtime = 1 * MS, .period = 10 * MS };
	struct dl_params bigger = { .runtime = 15 * MS, .period = 100 * MS };
	char why[1024];

	ck_assert_int_eq(dl_set(0, &small), 0);
	fill_machine();
	/* Full, but growing from 0.1 to 0.15 needs only 0.05 more. */
	ck_assert_int_eq(dl_predict(0, false, &bigger, why, sizeof(why)), dl_set(0, &bigger) == 0 ? 1 : 0);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("admission");
	TCase *tc = tcase_create("full");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fill_matches_prediction);
	tcase_add_test(tc, test_dl_run_ebusy_explained);
	tcase_add_test(tc, test_check_json);
	tcase_add_test(tc, test_prediction_edges);
	tcase_add_test(tc, test_change_counts_old_bandwidth);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
