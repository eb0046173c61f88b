/*
 * dl-stat's Prometheus exposition (utils/stat-out.c) of root domains the
 * library fills (dl_rd_fill) from kernel figures given here: one with
 * sched_rt_runtime_us = -1, where the kernel admits any reservation and
 * the free bandwidth is +Inf (never a huge finite number of CPUs), and
 * one with the default limit, whose free figure is finite and exact.
 * Where the cached promtool is (LIBDL_VM_CACHE/prometheus, as
 * tests/kernel/prometheus.sh uses it), it accepts both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw/bw.h"
#include "stat-out.h"
#include "testlib.h"

/* The value of the sample "name{labels}", as written. */
static const char *sample(const char *text, const char *series, char *buf, size_t len)
{
	const char *p = text;
	size_t n = strlen(series);

	for (; (p = strstr(p, series)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == ' ') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + n + 1, "\n"), p + n + 1);
			return buf;
		}
	ck_abort_msg("no sample %s in:\n%s", series, text);
	return NULL;
}

static char *exposition(bool unlimited, struct dl_rd *rd)
{
	int64_t kbw[2] = { unlimited ? -1 : 996147, unlimited ? -1 : 996147 };
	int64_t ktotal[2] = { 3 * DL_BW_UNIT / 10, 3 * DL_BW_UNIT / 10 };
	int drift[1] = { DL_DRIFT_NONE };
	dl_cpus_t span;
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	ck_assert_int_eq(dl_cpus_parse("0-1", &span), 0);
	dl_rd_fill(rd, &span, NULL, 0, kbw, ktotal);
	ck_assert(rd->from_kernel);
	ck_assert_int_eq(rd->unlimited, unlimited);

	struct stat_frame f = { .now = 1, .rds = rd, .nrds = 1, .drift = drift };
	struct stat_view v = { .domains_only = true };

	ck_assert(o);
	stat_prometheus(o, &f, &v);
	ck_assert_int_eq(fclose(o), 0);
	return text;
}

/* promtool check metrics on text, where the cache has it. */
static void promtool(const char *text)
{
	const char *cache = getenv("LIBDL_VM_CACHE");
	char tool[4096], path[] = "/tmp/test-stat-out.XXXXXX", cmd[8300];
	int fd;

	if (!cache || !*cache) {
		tl_note("no LIBDL_VM_CACHE (make check sets it): the exposition is not validated by promtool");
		return;
	}
	snprintf(tool, sizeof(tool), "%s/prometheus/promtool", cache);
	if (access(tool, X_OK) != 0) {
		tl_note("no promtool at %s: the exposition is not validated by it", tool);
		return;
	}
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' check metrics < %s >/dev/null 2>&1", tool, path);
	int st = system(cmd);

	unlink(path);
	ck_assert_msg(st == 0, "promtool check metrics refused:\n%s", text);
}

START_TEST(test_unlimited_free_is_inf)
{
	struct dl_rd rd;
	char *text = exposition(true, &rd), v[64];

	ck_assert_int_eq(dl_bw_free(&rd), INT64_MAX);
	ck_assert_str_eq(sample(text, "libdl_root_domain_free_ratio{root_domain=\"0-1\"}", v, sizeof(v)), "+Inf");
	ck_assert_str_eq(sample(text, "libdl_root_domain_unlimited{root_domain=\"0-1\"}", v, sizeof(v)), "1");
	ck_assert_str_eq(sample(text, "libdl_root_domain_admitted_ratio{root_domain=\"0-1\"}", v, sizeof(v)),
			 "0.29999923706054688");
	promtool(text);
	free(text);
}
END_TEST

START_TEST(test_limited_free_is_exact)
{
	struct dl_rd rd;
	char *text = exposition(false, &rd), v[64], want[64];

	snprintf(want, sizeof(want), "%.17g", (double)(rd.capacity - rd.total_bw) / DL_BW_UNIT);
	ck_assert_str_eq(sample(text, "libdl_root_domain_free_ratio{root_domain=\"0-1\"}", v, sizeof(v)), want);
	ck_assert_str_eq(sample(text, "libdl_root_domain_unlimited{root_domain=\"0-1\"}", v, sizeof(v)), "0");
	promtool(text);
	free(text);
}
END_TEST

/* Each CPU's deadline servers, in the exposition and in JSON: CPU 0's
 * fair server off (read), CPU 1's at the kernel's default but not read,
 * and an ext server on CPU 1 that the kernel does not count. */
START_TEST(test_cpu_servers)
{
	int64_t kbw[2] = { 996147, 996147 }, ktotal[2] = { 52428, 52428 };
	int drift[1] = { DL_DRIFT_NONE };
	struct cpu_servers cs[2] = {
		{ .cpu = 0, .srv = { [DL_SERVER_FAIR] = { .runtime = 0, .period = 1000000000, .present = true, .known = true } },
		  .counted = { [DL_SERVER_FAIR] = true } },
		{ .cpu = 1,
		  .srv = { [DL_SERVER_FAIR] = { .runtime = 50000000, .period = 1000000000, .present = true },
			   [DL_SERVER_EXT] = { .runtime = 50000000, .period = 1000000000, .present = true, .known = true } },
		  .counted = { [DL_SERVER_FAIR] = true } },
	};
	struct dl_rd rd;
	dl_cpus_t span;
	char *text = NULL, v[64];
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	ck_assert_int_eq(dl_cpus_parse("0-1", &span), 0);
	dl_rd_fill(&rd, &span, NULL, 0, kbw, ktotal);
	struct stat_frame f = { .now = 1, .rds = &rd, .nrds = 1, .drift = drift, .cpus = cs, .ncpus = 2 };
	struct stat_view view = { .domains_only = true };

	ck_assert(o);
	stat_prometheus(o, &f, &view);
	ck_assert_int_eq(fclose(o), 0);
	ck_assert_str_eq(sample(text, "libdl_cpu_server_runtime_seconds{cpu=\"0\",server=\"fair\"}", v, sizeof(v)),
			 "0.000000000");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_period_seconds{cpu=\"0\",server=\"fair\"}", v, sizeof(v)),
			 "1.000000000");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_bandwidth_ratio{cpu=\"0\",server=\"fair\"}", v, sizeof(v)), "0");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_runtime_seconds{cpu=\"1\",server=\"fair\"}", v, sizeof(v)),
			 "0.050000000");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_bandwidth_ratio{cpu=\"1\",server=\"fair\"}", v, sizeof(v)),
			 "0.049999237060546875");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_counted{cpu=\"1\",server=\"fair\"}", v, sizeof(v)), "1");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_read{cpu=\"1\",server=\"fair\"}", v, sizeof(v)), "0");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_counted{cpu=\"1\",server=\"ext\"}", v, sizeof(v)), "0");
	ck_assert_str_eq(sample(text, "libdl_cpu_server_read{cpu=\"1\",server=\"ext\"}", v, sizeof(v)), "1");
	ck_assert_str_eq(sample(text, "libdl_cpu_root_domain_info{cpu=\"1\",root_domain=\"0-1\"}", v, sizeof(v)), "1");
	ck_assert_msg(!strstr(text, "{cpu=\"0\",server=\"ext\"}"), "CPU 0 has no ext server:\n%s", text);
	promtool(text);
	free(text);

	o = open_memstream(&text, &len);
	ck_assert(o);
	stat_json(o, &f, &view);
	ck_assert_int_eq(fclose(o), 0);
	ck_assert_msg(strstr(text, "\"cpus\":[{\"cpu\":0,\"root_domain\":0,\"servers\":[{\"server\":\"fair\",\"cpu\":0,\"runtime_ns\":0,\"period_ns\":1000000000,\"bw\":0,\"counted\":true,\"read\":true}]}"),
		      "%s", text);
	ck_assert_msg(strstr(text, "{\"server\":\"ext\",\"cpu\":1,\"runtime_ns\":50000000,\"period_ns\":1000000000,\"bw\":52428,\"counted\":false,\"read\":true}"),
		      "%s", text);
	free(text);
}
END_TEST

/* The kernel's budget figures (dl_get_budget(3)) of a task that has
 * them, signed (a throttled job's runtime is below 0); none at all, not
 * a null or a 0, for a task whose kernel does not give them. */
START_TEST(test_budget_json)
{
	struct dl_task t[2] = {
		{ .pid = 10, .tid = 10, .comm = "has", .params = { .runtime = 1000000, .deadline = 5000000, .period = 10000000 } },
		{ .pid = 11, .tid = 11, .comm = "hasnot", .params = { .runtime = 1000000, .deadline = 5000000, .period = 10000000 } },
	};
	struct dl_budget b = { .runtime = -25000, .deadline = 123456789012 };
	const struct dl_budget *budget[2] = { &b, NULL };
	struct stat_frame f = { .now = 1, .tasks = t, .ntasks = 2, .budget = budget };
	struct stat_view view = { .tasks_only = true };
	char *text = NULL, *second;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	ck_assert(o);
	stat_json(o, &f, &view);
	ck_assert_int_eq(fclose(o), 0);
	second = strstr(text, "\"comm\":\"hasnot\"");
	ck_assert_ptr_nonnull(second);
	ck_assert_msg(strstr(text, "\"remaining_runtime_ns\":-25000,\"abs_deadline_ns\":123456789012"), "%s", text);
	ck_assert_msg(strstr(text, "remaining_runtime_ns") < second, "%s", text);
	ck_assert_msg(!strstr(second, "remaining_runtime_ns") && !strstr(second, "abs_deadline_ns"), "%s", text);
	free(text);
}
END_TEST

/* dl-stat --kernel where the kernel's sched_dl_throttle_tp counted the
 * throttles (Linux 7.1 and later): the source named in JSON and
 * Prometheus, and the inferred count beside the tracepoint's; where the
 * switch-out inferred them, the source says so and no second series. */
static char *kernel_out_failed(const char *source, bool json, uint64_t failed)
{
	struct dl_task t = { .pid = 10, .tid = 10, .comm = "loop", .params = { .runtime = 10000000, .deadline = 20000000, .period = 40000000 } };
	struct dl_task_counts kc = { .tid = 10, .jobs = 20, .misses = 4, .overruns = 5 };
	uint64_t inferred = 4;
	struct stat_frame f = { .now = 1, .tasks = &t, .ntasks = 1, .kernel_asked = true, .kcounts = &kc,
				.kthrottle_source = source, .kthrottles_inferred = &inferred, .krec_failed = failed };
	struct stat_view view = { .tasks_only = true, .pid_labels = true };
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	ck_assert(o);
	if (json)
		stat_json(o, &f, &view);
	else
		stat_prometheus(o, &f, &view);
	ck_assert_int_eq(fclose(o), 0);
	return text;
}

static char *kernel_out(const char *source, bool json)
{
	return kernel_out_failed(source, json, 0);
}

START_TEST(test_kernel_throttle_source)
{
	char *text = kernel_out("sched_dl_throttle_tp", true);
	char buf[64];

	ck_assert_msg(strstr(text, "\"kernel_throttle_source\":\"sched_dl_throttle_tp\""), "%s", text);
	ck_assert_msg(strstr(text, "\"throttles\":5,\"throttles_inferred\":4"), "%s", text);
	free(text);
	text = kernel_out("sched_dl_throttle_tp", false);
	ck_assert_str_eq(sample(text, "libdl_kernel_throttle_source{tracepoint=\"sched_dl_throttle_tp\"}", buf, sizeof(buf)), "1");
	ck_assert_msg(strstr(text, "libdl_task_overruns_total{") && strstr(text, ",source=\"kernel\"} 5\n"), "%s", text);
	ck_assert_msg(strstr(text, "\nlibdl_task_throttles_inferred_total{") &&
			      strstr(text, "tid=\"10\",source=\"kernel\"} 4\n"),
		      "%s", text);
	promtool(text);
	free(text);
	text = kernel_out("sched_switch", false);
	ck_assert_str_eq(sample(text, "libdl_kernel_throttle_source{tracepoint=\"sched_switch\"}", buf, sizeof(buf)), "1");
	ck_assert_msg(!strstr(text, "libdl_task_throttles_inferred_total"), "%s", text);
	free(text);
}
END_TEST

/* dl-stat --kernel when the kernel could not make some thread's record
 * (kcount_failed): said, as a count and a note, never silent; 0 when
 * every record was made, and no note. */
START_TEST(test_kernel_records_failed)
{
	char *text = kernel_out_failed("sched_switch", true, 3);
	char buf[64];

	ck_assert_msg(strstr(text, "\"kernel_records_failed\":3"), "%s", text);
	ck_assert_msg(strstr(text, "\"notes\":[\"--kernel: 3 times the kernel could not make a thread's record"), "%s", text);
	free(text);
	text = kernel_out_failed("sched_switch", true, 0);
	ck_assert_msg(strstr(text, "\"kernel_records_failed\":0") && strstr(text, "\"notes\":[]"), "%s", text);
	free(text);
	text = kernel_out_failed("sched_switch", false, 3);
	ck_assert_str_eq(sample(text, "libdl_kernel_records_failed_total", buf, sizeof(buf)), "3");
	promtool(text);
	free(text);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("stat-out");
	TCase *tc = tcase_create("prometheus");

	tcase_add_test(tc, test_unlimited_free_is_inf);
	tcase_add_test(tc, test_limited_free_is_exact);
	tcase_add_test(tc, test_cpu_servers);
	tcase_add_test(tc, test_kernel_throttle_source);
	tcase_add_test(tc, test_kernel_records_failed);
	suite_add_tcase(s, tc);
	tc = tcase_create("json");
	tcase_add_test(tc, test_budget_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
