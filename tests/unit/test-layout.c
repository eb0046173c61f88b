/*
 * Layouts before anything is touched: names, checks against this
 * machine's CPUs, and the state file's round trip (in a folder of the
 * test's own, through the test hooks' state_dir).
 */
#include <errno.h>
#include <libcgroup.h>
#include <stdlib.h>
#include <string.h>
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
	tcase_add_test(tc, test_lock_excludes);
	tcase_add_test(tc, test_cpuset_mount_as_libcgroup);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
