/*
 * dl-stat's Prometheus form against its JSON form: one dl_snapshot(3) of
 * deadline threads started here (one multi-threaded, one in a partition
 * of a layout made here), rendered both ways by the renderers dl-stat
 * uses (utils/stat-out.c), read back and compared figure by figure, with
 * the --watch figures of a second snapshot.  And --output: the file
 * replaced whole with mode 0644, a symbolic link in its place replaced
 * rather than followed, a bad folder refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stat-out.h"
#include "testlib.h"
#include "workload/taskset.h"

#define MS 1000000ULL

static char out[65536], err[16384];

/* One sample of the exposition: its name, its labels as "k=v" joined by
 * "\n", and its value as written. */
struct sample {
	char name[128];
	char labels[2048];
	char value[64];
};

static struct sample *samples;
static size_t nsamples;

/* A label value read back: \\ \" \n undone. */
static const char *parse_labels(const char *p, char *dst, size_t len)
{
	size_t n = 0;

	dst[0] = '\0';
	while (*p && *p != '}') {
		const char *eq = strchr(p, '=');

		ck_assert_msg(eq && eq[1] == '"', "bad label at %s", p);
		if (n)
			dst[n++] = '\n';
		memcpy(dst + n, p, (size_t)(eq - p));
		n += (size_t)(eq - p);
		dst[n++] = '=';
		for (p = eq + 2; *p != '"'; p++) {
			ck_assert_msg(*p, "unterminated label value");
			if (*p == '\\') {
				p++;
				dst[n++] = *p == 'n' ? '\n' : *p;
			} else {
				dst[n++] = *p;
			}
			ck_assert(n < len - 2);
		}
		dst[n] = '\0';
		p++;
		if (*p == ',')
			p++;
	}
	ck_assert_msg(*p == '}', "no } in a sample");
	return p + 1;
}

static void parse_exposition(const char *text)
{
	char help_seen[8192] = "";

	free(samples);
	samples = NULL;
	nsamples = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		char buf[4096];
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		ck_assert(len < sizeof(buf));
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : line + len;
		if (strncmp(buf, "# HELP ", 7) == 0) {
			char key[160];

			/* One HELP per family: a frame is one exposition. */
			snprintf(key, sizeof(key), " %.*s ", (int)strcspn(buf + 7, " "), buf + 7);
			ck_assert_msg(!strstr(help_seen, key), "a second HELP for%s", key);
			ck_assert(strlen(help_seen) + strlen(key) < sizeof(help_seen));
			strcat(help_seen, key);
			continue;
		}
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		samples = realloc(samples, (nsamples + 1) * sizeof(*samples));
		ck_assert(samples);
		struct sample *s = &samples[nsamples++];
		size_t nl_ = strcspn(buf, "{ ");
		const char *p = buf + nl_;

		ck_assert(nl_ < sizeof(s->name));
		memcpy(s->name, buf, nl_);
		s->name[nl_] = '\0';
		s->labels[0] = '\0';
		if (*p == '{')
			p = parse_labels(p + 1, s->labels, sizeof(s->labels));
		ck_assert_msg(*p == ' ', "no value in [%s]", buf);
		snprintf(s->value, sizeof(s->value), "%s", p + 1);
	}
}

/* The value of the one sample of name whose labels hold every "k=v" of
 * want ("\n"-joined); fails when there is not exactly one. */
static const char *value_of(const char *name, const char *want)
{
	const char *found = NULL;

	for (size_t i = 0; i < nsamples; i++) {
		bool all = true;
		char w[1024];

		if (strcmp(samples[i].name, name))
			continue;
		snprintf(w, sizeof(w), "%s", want);
		for (char *save, *tok = strtok_r(w, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
			char with[2100];
			size_t tl = strlen(tok);
			const char *l = samples[i].labels;

			snprintf(with, sizeof(with), "\n%s\n", l);
			char needle[1100];

			snprintf(needle, sizeof(needle), "\n%.*s\n", (int)tl, tok);
			if (!strstr(with, needle))
				all = false;
		}
		if (!all)
			continue;
		ck_assert_msg(!found, "two samples of %s with {%s}", name, want);
		found = samples[i].value;
	}
	ck_assert_msg(found, "no sample of %s with {%s}", name, want);
	return found;
}

/* Seconds written exactly as "S.NNNNNNNNN", back to nanoseconds. */
static uint64_t seconds_ns(const char *v)
{
	unsigned long long s, ns;
	char frac[16];

	ck_assert_msg(sscanf(v, "%llu.%15s", &s, frac) == 2 && strlen(frac) == 9, "seconds %s", v);
	ns = strtoull(frac, NULL, 10);
	return (uint64_t)(s * 1000000000ULL + ns);
}

/* A ratio back to DL_BW units: exact, or the test fails. */
static int64_t ratio_bw(const char *v)
{
	double d = strtod(v, NULL) * (double)DL_BW_UNIT;
	int64_t bw = (int64_t)d;

	ck_assert_msg((double)bw == d, "ratio %s is not a whole number of DL_BW units", v);
	return bw;
}

static const struct dl_jval *member(const struct dl_jval *obj, const char *key)
{
	const struct dl_jval *v = dl_json_get(obj, key);

	ck_assert_msg(v, "no member %s", key);
	return v;
}

static long long num(const struct dl_jval *obj, const char *key)
{
	const struct dl_jval *v = member(obj, key);

	ck_assert_msg(v->type == DL_JNUM, "%s is not a number", key);
	return strtoll(v->text, NULL, 10);
}

static const char *str(const struct dl_jval *obj, const char *key)
{
	const struct dl_jval *v = member(obj, key);

	ck_assert_msg(v->type == DL_JSTR, "%s is not a string", key);
	return v->text;
}

static char *render(void (*fn)(FILE *, const struct stat_frame *, const struct stat_view *),
		    const struct stat_frame *f, const struct stat_view *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	ck_assert(o);
	fn(o, f, v);
	ck_assert_int_eq(fclose(o), 0);
	return text;
}

/* The layout a test made, gone (the suite skips where one was in place). */
static void setup(void)
{
	tl_layout_restore(NULL);
	tl_settle();
}

static void teardown(void)
{
	tl_layout_restore(NULL);
}

START_TEST(test_same_figures_both_ways)
{
	struct dl_params spin = { .runtime = 1 * MS, .period = 20 * MS };
	struct dl_task *t0, *t;
	struct dl_rd *rd0, *rds;
	struct dl_part_info *parts;
	struct dl_layout *l;
	size_t nt0, nt, nrd0, nrd, nparts;
	pid_t a, b, c, tids[3];
	char want[512], buf[256];
	struct dl_jval *json;

	a = tl_dl_run_sleep((char *[]){ "-r", "2ms", "-d", "5ms", "-p", "10ms", "-R", NULL });
	b = tl_spawn_spin(3, false, NULL, tids);
	ck_assert_int_eq(dl_set_process(b, &spin, 0, NULL, NULL), 3);
	ck_assert_msg(tl_run((char *[]){ (char *)tl_tool("dl-part"), "create", "--partition", "p=0", "--no-move", NULL },
			     out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	c = tl_dl_run_sleep((char *[]){ "--partition", "p", "-r", "3ms", "-p", "30ms", NULL });

	/* Two snapshots, as --watch takes them: the second is the frame. */
	ck_assert_int_ge(dl_snapshot(0, &t0, &nt0, &rd0, &nrd0), 0);
	usleep(200000);
	ck_assert_int_ge(dl_snapshot(0, &t, &nt, &rds, &nrd), 0);
	ck_assert_int_ge(dl_layout_report(&parts, &nparts), 0);
	ck_assert_int_eq(dl_layout_load(&l), 0);

	int drift[16] = { 0 };
	uint64_t used[64] = { 0 }, overruns[64] = { 0 };
	bool seen[64] = { 0 };

	ck_assert(nrd <= 16 && nt <= 64);
	for (size_t i = 0; i < nrd; i++)
		drift[i] = dl_rd_drift(&rds[i], 0);
	for (size_t i = 0; i < nt; i++)
		for (size_t k = 0; k < nt0; k++)
			if (t0[k].tid == t[i].tid) {
				seen[i] = true;
				used[i] = dl_task_used_per_period(&t0[k], &t[i]);
				overruns[i] = 3 + task_overran(&t[i], used[i]);
			}

	struct stat_frame f = {
		.now = 1, .tasks = t, .ntasks = nt, .rds = rds, .nrds = nrd, .drift = drift, .watch = true,
		.seen = seen, .used = used, .overruns = overruns, .layout = true,
		.layout_version = dl_layout_version(l), .parts = parts, .nparts = nparts,
	};
	struct stat_view v = { .pid_labels = true };
	char *jtext = render(stat_json, &f, &v), *ptext = render(stat_prometheus, &f, &v);

	ck_assert_msg(dl_json_parse(jtext, strlen(jtext), "json", &json) == 0, "%s", dl_errmsg());
	parse_exposition(ptext);

	/* Root domains: every figure of the JSON, one sample each. */
	const struct dl_jval *jrd = member(json, "root_domains");

	ck_assert_int_eq(jrd->n, nrd);
	ck_assert_int_ge(nrd, 2);
	ck_assert_str_eq(value_of("libdl_kernel_figures", ""), member(json, "kernel_figures")->type == DL_JTRUE ? "1" : "0");
	for (size_t i = 0; i < jrd->n; i++) {
		const struct dl_jval *r = &jrd->items[i];

		snprintf(want, sizeof(want), "root_domain=%s", str(r, "cpus"));
		ck_assert_int_eq(atoll(value_of("libdl_root_domain_cpus", want)), num(r, "ncpus"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_cpu_limit_ratio", want)), num(r, "cpu_bw"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_capacity_ratio", want)), num(r, "capacity"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_fair_server_ratio", want)), num(r, "fair_bw"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_tasks_ratio", want)), num(r, "tasks_bw"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_admitted_ratio", want)), num(r, "total_bw"));
		if (member(r, "unlimited")->type == DL_JTRUE)
			ck_assert_str_eq(value_of("libdl_root_domain_free_ratio", want), "+Inf");
		else
			ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_free_ratio", want)), num(r, "free_bw"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_expected_ratio", want)), num(r, "expected_bw"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_root_domain_drift_ratio", want)), num(r, "drift_bw"));
		ck_assert_int_eq(atoll(value_of("libdl_root_domain_deadline_threads", want)), num(r, "deadline_threads"));
		ck_assert_int_eq(atoll(value_of("libdl_root_domain_drifted", want)), !strcmp(str(r, "drift"), "drifted"));
		ck_assert_int_eq(atoll(value_of("libdl_root_domain_unlimited", want)),
				 member(r, "unlimited")->type == DL_JTRUE);
	}

	/* Tasks: ours among them, each by pid and tid. */
	const struct dl_jval *jt = member(json, "tasks");
	size_t runtime_samples = 0;

	for (size_t i = 0; i < nsamples; i++)
		runtime_samples += !strcmp(samples[i].name, "libdl_task_runtime_seconds");
	ck_assert_int_eq(runtime_samples, jt->n);
	ck_assert_int_eq(atoll(value_of("libdl_deadline_threads", "")), (long long)jt->n);
	for (size_t i = 0; i < jt->n; i++) {
		const struct dl_jval *x = &jt->items[i];

		snprintf(want, sizeof(want), "pid=%lld\ntid=%lld\ncommand=%s\ncgroup=%s\nroot_domain=%s", num(x, "pid"),
			 num(x, "tid"), str(x, "comm"), str(x, "cpuset"), str(x, "root_domain_cpus"));
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_runtime_seconds", want)), num(x, "runtime_ns"));
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_deadline_seconds", want)), num(x, "deadline_ns"));
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_period_seconds", want)), num(x, "period_ns"));
		ck_assert_int_eq(ratio_bw(value_of("libdl_task_bandwidth_ratio", want)), num(x, "bw"));
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_cpu_seconds_total", want)), num(x, "exec_ns"));
		if (member(x, "used_per_period_ns")->type == DL_JNULL)
			continue;
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_used_per_period_seconds", want)), num(x, "used_per_period_ns"));
		ck_assert_int_eq(atoll(value_of("libdl_task_overrun", want)), member(x, "out_of_budget")->type == DL_JTRUE);
		ck_assert_int_eq(atoll(value_of("libdl_task_out_of_budget_refreshes_total", want)), num(x, "overruns"));
	}
	/* The three threads of one process: one series each, by rank. */
	for (int i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "tid=%d\ncommand=dl-spin\nthread=%d", (int)tids[i], i);
		ck_assert_int_eq(seconds_ns(value_of("libdl_task_period_seconds", want)), 20 * MS);
	}
	snprintf(want, sizeof(want), "pid=%d\ncgroup=/libdl/p\nroot_domain=0", (int)c);
	ck_assert_int_eq(seconds_ns(value_of("libdl_task_runtime_seconds", want)), 3 * MS);
	snprintf(want, sizeof(want), "pid=%d\nflags=reset-on-fork", (int)a);
	ck_assert_str_eq(value_of("libdl_task_flags_info", want), "1");

	/* The layout: its members and their state. */
	const struct dl_jval *lay = member(member(json, "layout"), "members");

	ck_assert_int_eq(lay->n, nparts);
	ck_assert_str_eq(value_of("libdl_layout_partitions", ""), "1");
	for (size_t i = 0; i < lay->n; i++) {
		const struct dl_jval *m = &lay->items[i];

		snprintf(want, sizeof(want), "member=%s\ncgroup=%s\ncpus=%s\nstate=%s\nroot_domain=%s", str(m, "name"),
			 str(m, "cgroup"), str(m, "cpus"), str(m, "state"), str(m, "root_domain_cpus"));
		ck_assert_str_eq(value_of("libdl_layout_member_info", want), "1");
		snprintf(want, sizeof(want), "member=%s", str(m, "name"));
		ck_assert_int_eq(atoll(value_of("libdl_layout_member_valid", want)), member(m, "valid")->type == DL_JTRUE);
		ck_assert_int_eq(atoll(value_of("libdl_layout_member_threads", want)), num(m, "threads"));
		ck_assert_int_eq(atoll(value_of("libdl_layout_member_deadline_threads", want)), num(m, "deadline_threads"));
		ck_assert_int_eq(atoll(value_of("libdl_layout_member_cpus", want)), dl_cpus_count(&parts[i].cpus));
	}
	snprintf(want, sizeof(want), "member=p\nkind=partition\ncgroup=libdl/p\ncpus=0\nstate=exclusive");
	ck_assert_str_eq(value_of("libdl_layout_member_info", want), "1");
	ck_assert_str_eq(value_of("libdl_layout_member_valid", "member=p"), "1");

	/* Without pid labels every series is still one of its own. */
	v.pid_labels = false;
	free(ptext);
	ptext = render(stat_prometheus, &f, &v);
	parse_exposition(ptext);
	for (size_t i = 0; i < nsamples; i++)
		for (size_t k = i + 1; k < nsamples; k++)
			ck_assert_msg(strcmp(samples[i].name, samples[k].name) || strcmp(samples[i].labels, samples[k].labels),
				      "two samples of %s {%s}", samples[i].name, samples[i].labels);
	ck_assert_msg(!strstr(ptext, "pid=") && !strstr(ptext, "tid="), "pid labels not asked for: %s", ptext);
	(void)buf;

	dl_json_free(json);
	free(jtext);
	free(ptext);
	free(t0);
	free(t);
	free(rd0);
	free(rds);
	free(parts);
	dl_layout_free(l);
	tl_kill(a);
	tl_kill(b);
	tl_kill(c);
}
END_TEST

static int dl_stat(char *const args[])
{
	return tl_run_tool("dl-stat", args, out, sizeof(out), err, sizeof(err));
}
#define DL_STAT(...) dl_stat((char *[]){ __VA_ARGS__, NULL })

START_TEST(test_output_file)
{
	char dir[] = "/tmp/libdl-prom-XXXXXX", file[128], victim[128], text[65536];
	struct stat st;
	mode_t old = umask(077);
	int fd;

	ck_assert(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/libdl.prom", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	/* A link in its place is replaced, never written through. */
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "mine\n", 5), 5);
	close(fd);
	ck_assert_int_eq(symlink(victim, file), 0);
	ck_assert_msg(DL_STAT("--prometheus", "--output", file) == 0, "%s", err);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(lstat(file, &st), 0);
	ck_assert_msg(S_ISREG(st.st_mode), "the link was followed");
	ck_assert_int_eq(st.st_mode & 07777, 0644); /* whatever the umask */
	fd = open(victim, O_RDONLY);
	ck_assert_int_eq(read(fd, text, sizeof(text)), 5);
	close(fd);
	fd = open(file, O_RDONLY);
	ssize_t n = read(fd, text, sizeof(text) - 1);

	close(fd);
	ck_assert_int_gt(n, 0);
	text[n] = '\0';
	ck_assert_msg(strstr(text, "# TYPE libdl_root_domain_free_ratio gauge\n"), "%s", text);
	/* --watch: each refresh replaces it; no temporary file stays. */
	ck_assert_msg(DL_STAT("--prometheus", "--output", file, "--watch", "0.1", "-n", "3") == 0, "%s", err);
	DIR *d = opendir(dir);
	int entries = 0;

	for (struct dirent *de; (de = readdir(d));)
		entries += de->d_name[0] != '.';
	closedir(d);
	ck_assert_int_eq(entries, 2);
	/* A folder that does not exist: said, exit 1. */
	snprintf(file, sizeof(file), "%s/no/such/libdl.prom", dir);
	ck_assert_int_eq(DL_STAT("--prometheus", "--output", file), 1);
	ck_assert_msg(strstr(err, "libdl.prom") && strstr(err, "No such file"), "%s", err);
	unlink(victim);
	snprintf(file, sizeof(file), "%s/libdl.prom", dir);
	unlink(file);
	rmdir(dir);
	umask(old);
}
END_TEST

START_TEST(test_bad_usage)
{
	ck_assert_int_eq(DL_STAT("--json", "--prometheus"), 2);
	ck_assert_msg(strstr(err, "not both"), "%s", err);
	ck_assert_int_eq(DL_STAT("--pid-labels"), 2);
	ck_assert_msg(strstr(err, "--prometheus"), "%s", err);
	ck_assert_int_eq(DL_STAT("--output", ""), 2);
	ck_assert_int_eq(DL_STAT("--output"), 2);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("prometheus");
	TCase *tc = tcase_create("prometheus");

	tl_skip_if_layout();
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_same_figures_both_ways);
	tcase_add_test(tc, test_output_file);
	tcase_add_test(tc, test_bad_usage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
