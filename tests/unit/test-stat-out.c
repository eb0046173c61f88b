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

	if (cache && *cache)
		snprintf(tool, sizeof(tool), "%s/prometheus/promtool", cache);
	else
		snprintf(tool, sizeof(tool), "%s/tests/vm/cache/prometheus/promtool", tl_srcdir());
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

static Suite *make(void)
{
	Suite *s = suite_create("stat-out");
	TCase *tc = tcase_create("prometheus");

	tcase_add_test(tc, test_unlimited_free_is_inf);
	tcase_add_test(tc, test_limited_free_is_exact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
