/*
 * Layouts before anything is touched: names, checks against this
 * machine's CPUs, and the state file's round trip (in a folder of the
 * test's own, through the test hooks' state_dir).
 */
#include <errno.h>
#include <libcgroup.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "testlib.h"
#include "layout/layout.h"

static dl_cpus_t cpus(const char *list)
{
	dl_cpus_t s;

	ck_assert_int_eq(dl_cpus_parse(list, &s), 0);
	return s;
}

START_TEST(test_names)
{
	struct dl_layout *l = dl_layout_new();
	dl_cpus_t c = cpus("0");

	ck_assert_int_eq(dl_layout_add_partition(l, NULL, &c), 0);
	ck_assert_int_eq(dl_layout_add_partition(l, "", &c), 0);
	ck_assert_str_eq(dl_layout_member(l, 0, NULL), "partition0");
	ck_assert_str_eq(dl_layout_member(l, 1, NULL), "partition1");
	ck_assert_str_eq(dl_layout_member(l, -1, NULL), DL_CLUSTER);
	ck_assert_ptr_null(dl_layout_member(l, 2, NULL));
	ck_assert_int_eq(dl_layout_add_partition(l, "a/b", &c), -EINVAL);
	ck_assert(strstr(dl_errmsg(), "invalid partition name \"a/b\""));
	ck_assert_int_eq(dl_layout_add_partition(l, "..", &c), -EINVAL);
	ck_assert_int_eq(dl_layout_add_partition(l, "cluster", &c), -EINVAL);
	ck_assert_int_eq(dl_layout_add_partition(l, "partition0", &c), -EEXIST);
	ck_assert_int_eq(dl_layout_add_partition(l, "abcdefghijklmnopqrstuvwxyz0123456", &c), -EINVAL);
	ck_assert_int_eq(dl_layout_add_partition(l, "ok_name-1", &c), 0);
	ck_assert_int_eq(dl_layout_count(l), 3);
	ck_assert_int_eq(dl_layout_set_flags(l, 0x80), -EINVAL);
	ck_assert_int_eq(dl_layout_set_mems(l, "x"), -EINVAL);
	dl_layout_free(l);
}
END_TEST

static int validate(const char *const *parts, const char *cluster)
{
	struct dl_layout *l = dl_layout_new();
	int err = 0;

	for (; *parts && !err; parts++) {
		dl_cpus_t c = cpus(*parts);

		err = dl_layout_add_partition(l, NULL, &c);
	}
	if (!err && cluster) {
		dl_cpus_t c = cpus(cluster);

		dl_layout_set_cluster(l, &c);
	}
	if (!err)
		err = dl_layout_validate(l);
	dl_layout_free(l);
	return err;
}

START_TEST(test_checks)
{
	dl_cpus_t online;
	char last[16], beyond[16], all[DL_CPUS_STRLEN];
	int n;

	dl_cpus_online(&online);
	n = dl_cpus_count(&online);
	snprintf(last, sizeof(last), "%d", n - 1);
	snprintf(beyond, sizeof(beyond), "%d", 1000);
	dl_cpus_format(&online, all, sizeof(all));

	ck_assert_int_eq(validate((const char *[]){ NULL }, NULL), -EINVAL);
	ck_assert(strstr(dl_errmsg(), "no partition"));
	ck_assert_int_eq(validate((const char *[]){ beyond, NULL }, NULL), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "CPU 1000 does not exist"), "%s", dl_errmsg());
	ck_assert_int_eq(validate((const char *[]){ all, NULL }, NULL), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "no CPU left for the cluster"), "%s", dl_errmsg());
	if (n >= 2) {
		ck_assert_int_eq(validate((const char *[]){ "0", "0", NULL }, NULL), -EINVAL);
		ck_assert_msg(strstr(dl_errmsg(), "overlap at CPUs 0"), "%s", dl_errmsg());
		ck_assert_int_eq(validate((const char *[]){ "0", NULL }, "0"), -EINVAL);
		ck_assert_msg(strstr(dl_errmsg(), "overlaps the partitions"), "%s", dl_errmsg());
		ck_assert_int_eq(validate((const char *[]){ "0", NULL }, NULL), 0);
		ck_assert_int_eq(validate((const char *[]){ "0", NULL }, last), 0);
	}
}
END_TEST

START_TEST(test_defaults_filled)
{
	struct dl_layout *l = dl_layout_new();
	dl_cpus_t c = cpus("0"), online, want;

	dl_cpus_online(&online);
	if (dl_cpus_count(&online) < 2) {
		dl_layout_free(l);
		return;
	}
	dl_layout_add_partition(l, NULL, &c);
	ck_assert_int_eq(dl_layout_validate(l), 0);
	want = online;
	dl_cpus_clr(&want, 0);
	ck_assert(dl_cpus_equal(&l->cluster, &want));
	ck_assert_int_gt(dl_cpus_count(&l->mems), 0);
	dl_layout_free(l);
}
END_TEST

static struct dl_test_hooks hooks;

static void use_state_dir(const char *dir)
{
	hooks.state_dir = dir;
	dl_test_hooks = &hooks;
}

START_TEST(test_state_round_trip)
{
	char dir[] = "/tmp/libdl-state-XXXXXX";
	struct dl_layout *l = dl_layout_new(), *back;
	dl_cpus_t a = cpus("0"), b = cpus("2-3"), cl = cpus("1,4-7"), got;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	use_state_dir(dir);
	ck_assert_int_eq(dl_layout_load(&back), -ENOENT);
	ck_assert(strstr(dl_errmsg(), "no layout"));
	dl_layout_add_partition(l, "rt", &a);
	dl_layout_add_partition(l, "video", &b);
	dl_layout_set_cluster(l, &cl);
	dl_layout_set_mems(l, "0");
	dl_layout_set_flags(l, DL_LAYOUT_NO_MOVE);
	l->version = 1;
	l->root_lb = 1;
	l->creator = 4242;
	ck_assert_int_eq(dl_layout_save(l), 0);
	ck_assert_int_eq(dl_layout_load(&back), 0);
	ck_assert_int_eq(dl_layout_version(back), 1);
	ck_assert_int_eq(dl_layout_count(back), 2);
	ck_assert_str_eq(dl_layout_member(back, 1, &got), "video");
	ck_assert(dl_cpus_equal(&got, &b));
	dl_layout_member(back, -1, &got);
	ck_assert(dl_cpus_equal(&got, &cl));
	ck_assert_uint_eq(dl_layout_flags(back), DL_LAYOUT_NO_MOVE);
	ck_assert_int_eq(back->root_lb, 1);
	ck_assert_int_eq(back->creator, 4242);
	dl_layout_free(back);
	{
		/* A state file of an earlier libdl, with its "phase" line (a
		 * layout made before an upgrade), is still understood. */
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/layout", dir);
		f = fopen(path, "a");
		ck_assert_ptr_nonnull(f);
		fputs("phase complete\n", f);
		fclose(f);
		ck_assert_int_eq(dl_layout_load(&back), 0);
		ck_assert_int_eq(dl_layout_count(back), 2);
		dl_layout_free(back);
	}
	{
		/* The longest lists read back whole: every other CPU of
		 * DL_CPUS_MAX, the partition's and the cluster's, and as
		 * many memory nodes. */
		char list[DL_CPUS_STRLEN];
		dl_cpus_t e, o;

		dl_cpus_zero(&e);
		dl_cpus_zero(&o);
		for (int c = 0; c < DL_CPUS_MAX; c++)
			dl_cpus_set(c % 2 ? &o : &e, c);
		dl_layout_free(l);
		l = dl_layout_new();
		dl_layout_add_partition(l, "rt", &o);
		dl_layout_set_cluster(l, &e);
		ck_assert_int_eq(dl_layout_set_mems(l, dl_cpus_format(&e, list, sizeof(list))), 0);
		l->version = 1;
		ck_assert_int_eq(dl_layout_save(l), 0);
		ck_assert_msg(dl_layout_load(&back) == 0, "%s", dl_errmsg());
		dl_layout_member(back, 0, &got);
		ck_assert(dl_cpus_equal(&got, &o));
		dl_layout_member(back, -1, &got);
		ck_assert(dl_cpus_equal(&got, &e));
		ck_assert(dl_cpus_equal(&back->mems, &e));
		dl_layout_free(back);
	}
	ck_assert_int_eq(dl_layout_forget(), 0);
	ck_assert_int_eq(dl_layout_load(&back), -ENOENT);
	{
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/layout", dir);
		f = fopen(path, "w");

		fputs("cgroup 7\n", f);
		fclose(f);
		ck_assert_int_eq(dl_layout_load(&back), -EINVAL);
		ck_assert_msg(strstr(dl_errmsg(), "is damaged"), "%s", dl_errmsg());
		unlink(path);
		snprintf(path, sizeof(path), "%s/lock", dir);
		unlink(path);
	}
	rmdir(dir);
	dl_layout_free(l);
}
END_TEST

/* A layout's servers: asked for per member, replaced by a second call,
 * refused with a bad runtime or period, and in the state with each CPU's
 * as found, both read back exactly. */
START_TEST(test_servers_state)
{
	char dir[] = "/tmp/libdl-state-XXXXXX";
	struct dl_layout *l = dl_layout_new(), *back;
	dl_cpus_t a = cpus("0"), cl = cpus("1");
	struct dl_server s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	use_state_dir(dir);
	dl_layout_add_partition(l, "rt", &a);
	dl_layout_set_cluster(l, &cl);
	ck_assert_int_eq(dl_layout_server(l, "rt", DL_SERVER_FAIR, &s), 0);
	ck_assert_int_eq(dl_layout_set_server(l, "rt", DL_SERVER_FAIR, 1000000, 10000000), 0);
	ck_assert_int_eq(dl_layout_set_server(l, "rt", DL_SERVER_FAIR, 0, 0), 0);
	ck_assert_int_eq(dl_layout_set_server(l, DL_CLUSTER, DL_SERVER_EXT, 20000000, 25000000), 0);
	ck_assert_int_eq(dl_layout_set_server(l, "rt", DL_SERVER_FAIR, 30000000, 25000000), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "runtime <= period"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_layout_set_server(l, "rt", DL_SERVER_FAIR, 10, 50000), -EINVAL);
	ck_assert_int_eq(dl_layout_set_server(l, "rt", 7, 0, 0), -EINVAL);
	ck_assert_int_eq(dl_layout_server(l, "rt", DL_SERVER_FAIR, &s), 1);
	ck_assert_uint_eq(s.runtime, 0);
	ck_assert_int_eq(l->nservers, 2);
	l->server_orig = calloc(2, sizeof(*l->server_orig));
	l->server_orig[0] = (struct dl_server_orig){ .cpu = 0, .kind = DL_SERVER_FAIR, .runtime = 50000000,
						     .period = 1000000000 };
	l->server_orig[1] = (struct dl_server_orig){ .cpu = 1, .kind = DL_SERVER_EXT, .runtime = 7,
						     .period = 123456789 };
	l->nserver_orig = 2;
	l->version = 1;
	ck_assert_int_eq(dl_layout_save(l), 0);
	ck_assert_msg(dl_layout_load(&back) == 0, "%s", dl_errmsg());
	ck_assert_int_eq(dl_layout_server(back, "rt", DL_SERVER_FAIR, &s), 1);
	ck_assert_uint_eq(s.runtime, 0);
	ck_assert_uint_eq(s.period, 0);
	ck_assert_int_eq(dl_layout_server(back, DL_CLUSTER, DL_SERVER_EXT, &s), 1);
	ck_assert_uint_eq(s.runtime, 20000000);
	ck_assert_uint_eq(s.period, 25000000);
	ck_assert_int_eq(dl_layout_server(back, DL_CLUSTER, DL_SERVER_FAIR, &s), 0);
	ck_assert_uint_eq(back->nserver_orig, 2);
	ck_assert_int_eq(back->server_orig[1].cpu, 1);
	ck_assert_int_eq(back->server_orig[1].kind, DL_SERVER_EXT);
	ck_assert_uint_eq(back->server_orig[1].runtime, 7);
	ck_assert_uint_eq(back->server_orig[1].period, 123456789);
	ck_assert_uint_eq(back->server_orig[0].runtime, 50000000);
	dl_layout_free(back);
	ck_assert_int_eq(dl_layout_forget(), 0);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/lock", dir);
		unlink(path);
	}
	rmdir(dir);
	dl_layout_free(l);
}
END_TEST

/* A layout of every other CPU of 512, the partition's and the cluster's
 * (a 256-CPU partition beside a 256-CPU cluster), saved as a create
 * would: what dl_predict_member(3) reads. */
static void save_interleaved(const char *dir, bool cluster_even, char *even, size_t len)
{
	struct dl_layout *l = dl_layout_new();
	dl_cpus_t e, o;

	dl_cpus_zero(&e);
	dl_cpus_zero(&o);
	for (int c = 0; c < 512; c++)
		dl_cpus_set(c % 2 ? &o : &e, c);
	ck_assert_ptr_nonnull(dl_cpus_format(&e, even, len));
	ck_assert_int_eq(dl_layout_add_partition(l, "wide", cluster_even ? &o : &e), 0);
	dl_layout_set_cluster(l, cluster_even ? &e : &o);
	dl_layout_set_mems(l, "0");
	l->version = 1;
	use_state_dir(dir);
	ck_assert_msg(dl_layout_save(l) == 0, "%s", dl_errmsg());
	dl_layout_free(l);
}

/* Where a container would start, said whole however long its CPU list:
 * the cluster's ("outside the partitions, in the cluster ...") and a
 * partition's, of 256 CPUs each (968 characters), in a reason of any
 * size the caller gives, cut to it and never past it.  Each starts at
 * CPU 0, the one CPU every machine has, whose root domain judges it. */
START_TEST(test_predict_member_long_cpus)
{
	const struct dl_params p = { .runtime = 1000000, .period = 10000000 };
	char dir[] = "/tmp/libdl-predict-XXXXXX", even[DL_CPUS_STRLEN], want[DL_CPUS_STRLEN + 128];
	char why[8192], small[64], path[256];
	struct dl_verdict v;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (dl_cs_exists(DL_LAYOUT_PARENT "/" DL_CLUSTER)) {
		/* A layout of this host's own: its cgroups, not the state's
		 * list, are what the kernel gives a container. */
		tl_note("cpuset /%s/%s exists: a layout stands on this host, not judged", DL_LAYOUT_PARENT,
			DL_CLUSTER);
		rmdir(dir);
		return;
	}
	save_interleaved(dir, true, even, sizeof(even));
	ck_assert_int_eq(strlen(even), 968);
	ck_assert_int_ge(dl_predict_member(NULL, &p, &v, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "outside the partitions, in the cluster (cgroup /%s/%s, CPUs %s): ",
		 DL_LAYOUT_PARENT, DL_CLUSTER, even);
	ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "%s", why);
	/* The verdict after it, in the rest of why. */
	ck_assert_msg(strlen(why) > strlen(want) + 20, "%s", why);
	ck_assert_int_eq(v.cpu, 0);
	ck_assert_int_ge(dl_predict_member(NULL, &p, NULL, NULL, 0), 0);
	memset(small, 'x', sizeof(small));
	ck_assert_int_ge(dl_predict_member(NULL, &p, &v, small, 40), 0);
	ck_assert_int_eq(strlen(small), 39);
	ck_assert(strncmp(small, want, 39) == 0);
	ck_assert_int_eq(small[40], 'x');

	save_interleaved(dir, false, even, sizeof(even));
	ck_assert_int_ge(dl_predict_member("wide", &p, &v, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "in partition wide (cgroup /%s/wide, CPUs %s): ", DL_LAYOUT_PARENT, even);
	ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "%s", why);
	ck_assert_int_eq(v.cpu, 0);

	ck_assert_int_eq(dl_layout_forget(), 0);
	snprintf(path, sizeof(path), "%s/lock", dir);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The order of a server's two writes: the pair in between is always one
 * the kernel takes (runtime <= period), and of two such the one with the
 * smaller bandwidth. */
START_TEST(test_server_write_order)
{
	static const uint64_t v[] = { 0, 100000, 1000000, 20000000, 25000000, 50000000, 1000000000, 4194304000ULL };
	const size_t n = sizeof(v) / sizeof(v[0]);

	/* 50 ms / 1 s to 20 ms / 25 ms: the period first would make 50/25. */
	ck_assert(dl_server_runtime_first(50000000, 1000000000, 20000000, 25000000));
	/* back: the runtime first would make 50/25. */
	ck_assert(!dl_server_runtime_first(20000000, 25000000, 50000000, 1000000000));
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++)
			for (size_t c = 0; c < n; c++)
				for (size_t d = 0; d < n; d++) {
					uint64_t ort = v[a], oper = v[b], rt = v[c], per = v[d];

					if (ort > oper || rt > per || oper < 100000 || per < 100000)
						continue;
					if (dl_server_runtime_first(ort, oper, rt, per)) {
						ck_assert(rt <= oper);
						ck_assert(dl_to_ratio(oper, rt) <=
							  (dl_to_ratio(oper, ort) > dl_to_ratio(per, rt) ?
								   dl_to_ratio(oper, ort) : dl_to_ratio(per, rt)));
					} else {
						ck_assert(ort <= per);
						ck_assert(dl_to_ratio(per, ort) <=
							  (dl_to_ratio(oper, ort) > dl_to_ratio(per, rt) ?
								   dl_to_ratio(oper, ort) : dl_to_ratio(per, rt)));
					}
				}
}
END_TEST

/* A state file of `n` origin lines of tasks long gone (pids that may be
 * live now, but with start times no task has), then two of live tasks. */
static char *origins_text(size_t n, pid_t live[2], unsigned long long start[2], size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	size_t made = 0;

	ck_assert_ptr_nonnull(f);
	fputs("cgroup 1\ncluster 1\npartition rt 0\n", f);
	for (int pid = 1; made < n; pid++) {
		if (pid == live[0] || pid == live[1])
			continue;
		fprintf(f, "origin %d %llu user.slice/svc-%d.service\n", pid, (1ULL << 62) + (unsigned)pid,
			pid % 97);
		made++;
	}
	for (int i = 0; i < 2; i++)
		fprintf(f, "origin %d %llu live/%d\n", (int)live[i], start[i], i);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/* However many origins a state holds (an old libdl's, or a busy host's),
 * loading it and finding a task's origin cost work in proportion to the
 * lines, and the next save keeps only the tasks still alive. */
START_TEST(test_state_origins_bounded)
{
	char dir[] = "/tmp/libdl-origins-XXXXXX", path[256], *text, *saved;
	unsigned long long start[2], work = 0;
	struct dl_layout *l, *back;
	pid_t live[2] = { getpid(), fork() };
	size_t len;

	ck_assert_int_ge(live[1], 0);
	if (live[1] == 0) {
		/* Gone with the test, whatever it asserts. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(dl_task_stat_field(live[i], 22, &start[i]), 0);
	hooks.work = &work;
	dl_test_hooks = &hooks;
	for (size_t n = 1000; n <= 100000; n *= 10) {
		text = origins_text(n, live, start, &len);
		work = 0;
		ck_assert_msg(dl_layout_parse(text, len, "state", &l) == 0, "%s", dl_errmsg());
		free(text);
		ck_assert_uint_eq(l->norigins, n + 2);
		ck_assert_msg(work <= 4 * n, "loading %zu origins took %llu steps", n, work);
		tl_note("%zu origins loaded in %llu steps", n, work);
		work = 0;
		for (int pid = 1; pid <= (int)n; pid++)
			dl_layout_origin(l, pid, (1ULL << 62) + (unsigned)pid);
		ck_assert_msg(work <= 4 * n, "looking up %zu origins took %llu steps", n, work);
		ck_assert_str_eq(dl_layout_origin(l, live[1], start[1]), "live/1");
		ck_assert_ptr_null(dl_layout_origin(l, live[1], start[1] + 1));
		if (n < 100000) {
			dl_layout_free(l);
			continue;
		}
		/* The next save keeps the two live tasks alone. */
		ck_assert_ptr_nonnull(mkdtemp(dir));
		use_state_dir(dir);
		ck_assert_msg(dl_layout_save(l) == 0, "%s", dl_errmsg());
		dl_layout_free(l);
		snprintf(path, sizeof(path), "%s/layout", dir);
		saved = malloc(1 << 20);
		ck_assert_int_eq(dl_read_file(path, saved, 1 << 20), 0);
		ck_assert_msg(strlen(saved) < 1024, "the saved state is %zu bytes:\n%.2000s", strlen(saved), saved);
		free(saved);
		ck_assert_int_eq(dl_layout_load(&back), 0);
		ck_assert_uint_eq(back->norigins, 2);
		ck_assert_str_eq(dl_layout_origin(back, live[0], start[0]), "live/0");
		ck_assert_str_eq(dl_layout_origin(back, live[1], start[1]), "live/1");
		dl_layout_free(back);
	}
	kill(live[1], SIGKILL);
	ck_assert_int_ne(tl_wait(live[1]), 0);
	hooks.work = NULL;
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_lock_excludes)
{
	char dir[] = "/tmp/libdl-lock-XXXXXX";
	int fd;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	use_state_dir(dir);
	fd = dl_layout_lock(0);
	ck_assert_int_ge(fd, 0);
	pid = fork();
	if (pid == 0) {
		int e = dl_layout_lock(0);
		char holder[32];

		/* The holder named by its pid, read back from the lock. */
		snprintf(holder, sizeof(holder), "is running (pid %d)", (int)getppid());
		_exit(e == -EBUSY && strstr(dl_errmsg(), "another layout change (dl_layout_create(3), dl_layout_destroy(3) or dl_rd_rebuild(3)) is running") &&
		      strstr(dl_errmsg(), holder) ? 0 : 1);
	}
	ck_assert_int_eq(tl_wait(pid), 0);
	close(fd);
	fd = dl_layout_lock(0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/lock", dir);
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

/* Where the cpuset hierarchy is mounted, found without libcgroup, is
 * where libcgroup's own mount table puts it (or, with none mounted,
 * neither finds one). */
START_TEST(test_cpuset_mount_as_libcgroup)
{
	char ours[4096], *theirs = NULL;
	int err = dl_cpuset_mount(ours, sizeof(ours));
	int ret = cgroup_init();

	if (ret == 0)
		ret = cgroup_get_subsys_mount_point("cpuset", &theirs);
	if (ret) {
		ck_assert_msg(err == -ENODEV, "libcgroup finds no cpuset (%d), libdl finds %s", ret, err ? "an error" : ours);
		return;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_str_eq(ours, theirs);
	tl_note("cpuset is mounted at %s (cgroup v%d)", ours, dl_cpuset_version());
	free(theirs);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("spec");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_checks);
	tcase_add_test(tc, test_defaults_filled);
	tcase_add_test(tc, test_state_round_trip);
	tcase_add_test(tc, test_servers_state);
	tcase_add_test(tc, test_predict_member_long_cpus);
	tcase_add_test(tc, test_server_write_order);
	tcase_add_test(tc, test_state_origins_bounded);
	tcase_add_test(tc, test_lock_excludes);
	tcase_add_test(tc, test_cpuset_mount_as_libcgroup);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
