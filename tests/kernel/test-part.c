/*
 * dl-part on the host's cgroup v1 cpusets.  Only the suite's own cpusets
 * and processes are touched (every create here is --no-move: moving the
 * machine's tasks is the VM suites' job), and the root cpuset's
 * sched_load_balance is restored after every test case, passed or not.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "cgroup/cg.h"

#define MS 1000000ULL
#define CPUSET "/sys/fs/cgroup/cpuset"

static char out[16384], err[16384];
static char root_lb[16];
static char before[16384];

/* The deep test's chain: DEEP/d/d/..., DEEP_LEVELS cpusets below DEEP. */
#define DEEP CPUSET "/libdl-test-deep"
#define DEEP_LEVELS 1200

static void deep_path(char *buf, size_t len, int levels)
{
	size_t n = (size_t)snprintf(buf, len, "%s", DEEP);

	for (int i = 0; i < levels && n + 2 < len; i++, n += 2)
		memcpy(buf + n, "/d", 3);
}

/* The chain, deepest first (whatever a failed test left of it). */
static void remove_deep(void)
{
	char path[4096];
	int levels = 0;

	deep_path(path, sizeof(path), 0);
	if (access(path, F_OK) != 0)
		return;
	for (;; levels++) {
		deep_path(path, sizeof(path), levels + 1);
		if (levels == DEEP_LEVELS + 8 || access(path, F_OK) != 0)
			break;
	}
	for (; levels >= 0; levels--) {
		deep_path(path, sizeof(path), levels);
		if (rmdir(path) < 0)
			tl_note("cleanup: rmdir %s: %s", path, strerror(errno));
	}
}

static void snapshot(char *buf, size_t len)
{
	tl_cpuset_snapshot(buf, len);
}

static int dl_part(char *const args[])
{
	return tl_run_tool("dl-part", args, out, sizeof(out), err, sizeof(err));
}
#define DL_PART(...) dl_part((char *[]){ __VA_ARGS__, NULL })

/* The test build of dl-part (tests/lib/hooks.c: LIBDL_TEST_* apply). */
static int dl_part_test(char *const args[])
{
	char *argv[32] = { (char *)tl_test_tool("dl-part") };
	int i = 1;

	for (; *args && i < 31; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	return tl_run(argv, out, sizeof(out), err, sizeof(err));
}
#define DL_PART_TEST(...) dl_part_test((char *[]){ __VA_ARGS__, NULL })

static int find_probes(const char *dir, char *buf, size_t len, bool remove);

/* Destroy whatever layout a test left and put the root's balancing back.
 * Runs before every test (a failed test leaves what it made), after the
 * test case in the suite's own process, and at the end of main(). */
static void restore_machine(void)
{
	char probes[4096] = "";

	remove_deep();
	find_probes(CPUSET, probes, sizeof(probes), true);
	tl_layout_restore(root_lb);
	rmdir(CPUSET "/libdl-test-conflict");
	rmdir(CPUSET "/libdl-test-\033[2J\033]0;x\007");
}

static void setup(void)
{
	/* A test that failed left what it made: its successor cleans up. */
	restore_machine();
	tl_settle();
	snapshot(before, sizeof(before));
}

static void assert_unchanged(const char *what)
{
	char now[16384];

	snapshot(now, sizeof(now));
	ck_assert_msg(strcmp(now, before) == 0, "%s changed the system:\nbefore:\n%s\nafter:\n%s",
		      what, before, now);
}

static int64_t kernel_total(int cpu)
{
	uint64_t bw;
	int64_t total = 0;

	ck_assert_int_eq(dl_kernel_bw(cpu, &bw, &total), 0);
	return total;
}

START_TEST(test_partition_is_its_own_root_domain)
{
	char why[1024];
	pid_t a, b;
	int64_t cpu1;

	/* Control: the whole machine admits 0.5 and 0.41 together. */
	a = tl_dl_hog_in(NULL, 5 * MS, 10 * MS, why, sizeof(why));
	ck_assert_msg(a > 0, "%s", why);
	b = tl_dl_hog_in(NULL, 41 * MS / 10, 10 * MS, why, sizeof(why));
	ck_assert_msg(b > 0, "the machine refused 0.5 + 0.41: %s", why);
	tl_kill(a);
	tl_kill(b);
	tl_settle();

	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	ck_assert_msg(strstr(out, "root domain CPUs 0:"), "%s", out);
	cpu1 = kernel_total(1);
	a = tl_dl_hog_in("partition0", 5 * MS, 10 * MS, why, sizeof(why));
	ck_assert_msg(a > 0, "%s", why);
	/* The kernel counts it in CPU 0's root domain only. */
	ck_assert_int_eq(kernel_total(0), 52428 + 524288);
	ck_assert_int_eq(kernel_total(1), cpu1);
	b = tl_dl_hog_in("partition0", 41 * MS / 10, 10 * MS, why, sizeof(why));
	ck_assert_msg(b < 0, "the partition admitted 0.5 + 0.41");
	ck_assert_msg(strstr(why, "admission refused") && strstr(why, "root domain CPUs 0 "), "%s", why);
	/* The cluster still has room for it. */
	b = tl_dl_hog_in(DL_CLUSTER, 41 * MS / 10, 10 * MS, why, sizeof(why));
	ck_assert_msg(b > 0, "%s", why);
	tl_kill(a);
	tl_kill(b);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("create then destroy");
}
END_TEST

/*
 * Create, destroy and their report skip the scan of /proc when one read
 * of sched/debug lists no deadline thread (dl_rd_idle, rd.c): that
 * listing must show one asleep, and one spinning, or a scan that the
 * accounting checks need would be skipped.
 */
START_TEST(test_census_sees_deadline_threads)
{
	struct dl_rd *rds = (struct dl_rd *)1;
	char why[1024];
	int64_t *kbw;
	size_t n;
	int ndl = -1;
	pid_t pid;

	kbw = dl_kernel_bw_census(&ndl);
	ck_assert_ptr_nonnull(kbw);
	free(kbw);
	ck_assert_msg(ndl >= 0, "sched/debug's task listing was not understood");
	for (int spin = 0; spin < 2; spin++) {
		if (spin) {
			pid = tl_dl_hog_in(NULL, 1 * MS, 10 * MS, why, sizeof(why));
			ck_assert_msg(pid > 0, "%s", why);
		} else {
			pid = tl_dl_run_sleep((char *[]){ "-r", "1ms", "-p", "10ms", NULL });
		}
		kbw = dl_kernel_bw_census(&ndl);
		free(kbw);
		ck_assert_msg(ndl >= 1, "sched/debug lists no deadline thread while %s runs", spin ? "a hog" : "a sleeper");
		ck_assert_int_eq(dl_rd_idle(&rds, &n), 1);
		ck_assert_ptr_null(rds);
		tl_kill(pid);
		tl_settle();
	}
}
END_TEST

START_TEST(test_dl_run_partition_and_cluster)
{
	char path[64], cs[256];
	struct dl_params got;
	pid_t pid;

	ck_assert_msg(DL_PART("create", "--partition", "rt=0", "--no-move") == 0, "%s", err);
	pid = tl_dl_run_sleep((char *[]){ "--partition", "rt", "-r", "2ms", "-p", "10ms", NULL });
	snprintf(path, sizeof(path), "/proc/%d/cpuset", (int)pid);
	ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
	ck_assert_str_eq(cs, "/libdl/rt");
	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 2 * MS);
	/* dl-part list shows it there. */
	ck_assert_int_eq(DL_PART("list"), 0);
	ck_assert_msg(strstr(out, "1 threads (1 deadline)"), "%s", out);
	ck_assert_int_eq(DL_PART("list", "--json"), 0);
	ck_assert_msg(strstr(out, "\"name\":\"rt\",\"cgroup\":\"libdl/rt\",\"partition\":true,\"cpus\":\"0\""), "%s", out);
	tl_kill(pid);

	pid = tl_dl_run_sleep((char *[]){ "--cluster", "-r", "1ms", "-p", "10ms", NULL });
	snprintf(path, sizeof(path), "/proc/%d/cpuset", (int)pid);
	ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
	ck_assert_str_eq(cs, "/libdl/cluster");
	tl_kill(pid);

	/* A running multi-threaded process, every thread moved, then set. */
	{
		char pidstr[16];
		pid_t t[3];

		pid = tl_spawn_spin(3, false, NULL, t);
		snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
		ck_assert_msg(tl_run((char *[]){ (char *)tl_tool("dl-run"), "--partition", "rt", "-r", "1ms", "-p", "10ms",
						 "--pid", pidstr, "--all-threads", NULL }, out, sizeof(out), err, sizeof(err)) == 0,
			      "%s", err);
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/cpuset", (int)pid, (int)t[i]);
			ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
			ck_assert_str_eq(cs, "/libdl/rt");
			ck_assert_int_eq(dl_get(t[i], &got), DL_SCHED_DEADLINE);
		}
		tl_kill(pid);
	}

	/* Threads asleep on the other CPU that never wake cannot be admitted
	 * into the partition's root domain yet: said so. */
	{
		char pidstr[16];
		pid_t t[2];

		pid = tl_spawn_spin(2, true, "1", t);
		snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
		ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-run"), "--partition", "rt", "-r", "1ms", "-p", "10ms",
						    "--pid", pidstr, "--all-threads", NULL }, out, sizeof(out), err, sizeof(err)), 125);
		ck_assert_msg(strstr(err, "is asleep on CPU 1, outside the CPUs it may now use (0)"), "%s", err);
		tl_kill(pid);
	}

	/* Refused there: the command is not left in the partition. */
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-run"), "--partition", "rt", "-r", "9.5ms",
					    "-p", "10ms", "--", "/bin/true", NULL }, out, sizeof(out), err, sizeof(err)), 125);
	ck_assert_msg(strstr(err, "in partition /libdl/rt: admission refused"), "%s", err);
	ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-run"), "--partition", "nope", "-r", "1ms",
					    "-p", "10ms", "--", "/bin/true", NULL }, out, sizeof(out), err, sizeof(err)), 125);
	ck_assert_msg(strstr(err, "no partition \"nope\" in the layout (partitions: rt; or the cluster)"), "%s", err);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("create, dl-run inside, destroy");
}
END_TEST

/* dl-run --check --partition and --cluster: the verdict of the member's
 * root domain, then the kernel's own, for reservations of falling sizes
 * until the member refuses each; and the affinity step of a partition
 * that is no longer a root domain of its own. */
static int check_in(const char *member, const char *r, const char *p, bool json)
{
	char *argv[12] = { (char *)tl_tool("dl-run"), "--check" };
	int i = 2;

	if (strcmp(member, DL_CLUSTER) == 0) {
		argv[i++] = "--cluster";
	} else {
		argv[i++] = "--partition";
		argv[i++] = (char *)member;
	}
	if (json)
		argv[i++] = "--json";
	argv[i++] = "-r";
	argv[i++] = (char *)r;
	argv[i++] = "-p";
	argv[i++] = (char *)p;
	argv[i] = NULL;
	return tl_run(argv, out, sizeof(out), err, sizeof(err));
}

START_TEST(test_check_in_partition_and_cluster)
{
	static const char *const members[] = { "rt", DL_CLUSTER };
	static const struct {
		const char *r, *p;
		uint64_t runtime, period;
	} sizes[] = {
		{ "30ms", "100ms", 30 * MS, 100 * MS },
		{ "5ms", "50ms", 5 * MS, 50 * MS },
		{ "2ms", "100ms", 2 * MS, 100 * MS },
		{ "200us", "20ms", MS / 5, 20 * MS },
	};
	pid_t held[128];
	int nheld = 0, asked = 0, admitted = 0;
	char why[1024], want[64];
	FILE *f;

	ck_assert_msg(DL_PART("create", "--partition", "rt=0", "--no-move") == 0, "%s", err);
	for (size_t m = 0; m < ARRAY_SIZE(members); m++) {
		for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
			for (int n = 0; n < 40 && nheld < (int)ARRAY_SIZE(held); n++) {
				int rc = check_in(members[m], sizes[k].r, sizes[k].p, false);
				bool says = rc == 0;
				pid_t pid;

				ck_assert_msg(rc == 0 || rc == 1, "dl-run --check in %s: %d: %s", members[m], rc, err);
				ck_assert_msg(strstr(out, m ? "the cluster (/libdl/cluster): " : "partition rt (/libdl/rt): "),
					      "%s", out);
				ck_assert_int_eq(check_in(members[m], sizes[k].r, sizes[k].p, true), rc);
				snprintf(want, sizeof(want), "\"member\":\"%s\"", members[m]);
				ck_assert_msg(strstr(out, want), "%s", out);
				ck_assert_msg(strstr(out, says ? "\"kernel_admits\":true" : "\"kernel_admits\":false"), "%s", out);
				pid = tl_dl_hog_in(members[m], sizes[k].runtime, sizes[k].period, why, sizeof(why));
				asked++;
				ck_assert_msg((pid > 0) == says, "%s -r %s -p %s: --check said %s, the kernel %s (%s)",
					      members[m], sizes[k].r, sizes[k].p, says ? "admitted" : "refused",
					      pid > 0 ? "admitted it" : "refused it", why);
				if (pid <= 0)
					break;
				held[nheld++] = pid;
				admitted++;
			}
		}
	}
	tl_note("%d requests in partition rt and the cluster, %d admitted: --check agreed with the kernel on each",
		asked, admitted);
	ck_assert_int_gt(admitted, 4);
	ck_assert_int_gt(asked - admitted, 4);
	for (int i = 0; i < nheld; i++)
		tl_kill(held[i]);
	tl_settle();

	/* The root's balancing back on: CPU 0 is no longer a root domain of
	 * its own, and the kernel refuses a task there (EPERM: its affinity,
	 * CPU 0, does not cover CPUs 0-1). */
	f = fopen(CPUSET "/cpuset.sched_load_balance", "we");
	ck_assert_ptr_nonnull(f);
	fputs("1", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(check_in("rt", "1ms", "10ms", false), 1);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "is not a root domain of its own now"), "%s", out);
	ck_assert_int_eq(check_in("rt", "1ms", "10ms", true), 1);
	ck_assert_msg(strstr(out, "\"verdict\":\"affinity\""), "%s", out);
	ck_assert_int_lt(tl_dl_hog_in("rt", MS, 10 * MS, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "permission denied"), "%s", why);
	f = fopen(CPUSET "/cpuset.sched_load_balance", "we");
	ck_assert_ptr_nonnull(f);
	fputs("0", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("dl-run --check in a layout");
}
END_TEST

static const struct {
	const char *args[8];
	int rc;
	const char *says;
} bad[] = {
	{ { "create", "--partition", "5", "--no-move" }, 1, "CPU 5 does not exist (this machine has CPUs 0-1)" },
	{ { "create", "--partition", "0", "--partition", "0-1", "--no-move" }, 1, "overlap at CPUs 0" },
	{ { "create", "--partition", "0-1", "--no-move" }, 1, "no CPU left for the cluster" },
	{ { "create", "--partition", "0", "--cluster", "0", "--no-move" }, 1, "the cluster (CPUs 0) overlaps the partitions" },
	{ { "create", "--partition", "0-", "--no-move" }, 2, "range \"0-\" has no end" },
	{ { "create", "--partition", "a/b=0", "--no-move" }, 2, "invalid partition name \"a/b\"" },
	{ { "create", "--partition", "x=0", "--partition", "x=1", "--no-move" }, 2, "two partitions are named \"x\"" },
	{ { "create", "--partition", "cluster=0", "--no-move" }, 2, "is the cluster's name" },
	{ { "create", "--partition", "0", "--mems", "5", "--no-move" }, 1, "memory nodes 5 are not all online" },
	{ { "create", "--no-move" }, 2, "needs at least one --partition" },
	{ { "create", "--partition", "0", "--bogus" }, 2, "unknown option '--bogus'" },
	{ { "explode" }, 2, "unknown command 'explode'" },
	{ { "destroy" }, 1, "no layout" },
	{ { "list", "--partition", "0" }, 2, "list takes no option" },
};

/* Each bad input: its message, and nothing changed. */
START_TEST(test_bad_input)
{
	char *args[10];
	int n = 0, rc;

	for (; n < 8 && bad[_i].args[n]; n++)
		args[n] = (char *)bad[_i].args[n];
	args[n] = NULL;
	rc = dl_part(args);
	ck_assert_msg(rc == bad[_i].rc, "case %d: exit %d, want %d: %s", _i, rc, bad[_i].rc, err);
	ck_assert_msg(strstr(err, bad[_i].says), "case %d: \"%s\" lacks \"%s\"", _i, err, bad[_i].says);
	assert_unchanged("a bad input");
}
END_TEST

START_TEST(test_conflicting_cpuset_named)
{
	ck_assert_int_eq(mkdir(CPUSET "/libdl-test-conflict", 0755), 0);
	ck_assert_int_eq(dl_write_file(CPUSET "/libdl-test-conflict/cpuset.cpus", "0"), 0);
	snapshot(before, sizeof(before));
	ck_assert_int_eq(DL_PART("create", "--partition", "0", "--no-move"), 1);
	ck_assert_msg(strstr(err, "cpuset /libdl-test-conflict has CPUs 0"), "%s", err);
	ck_assert_msg(strstr(err, "remove /libdl-test-conflict or narrow its cpuset.cpus"), "%s", err);
	assert_unchanged("a conflicting cpuset");
	ck_assert_int_eq(rmdir(CPUSET "/libdl-test-conflict"), 0);
}
END_TEST

/* A cpuset named with terminal escapes (a user can name a delegated one
 * so): the refusal prints the name escaped, in the library's message and
 * in dl-part's. */
START_TEST(test_conflicting_cpuset_escaped)
{
	const char *evil = CPUSET "/libdl-test-\033[2J\033]0;x\007";
	const char *shown = "cpuset /libdl-test-\\x1b[2J\\x1b]0;x\\x07 has CPUs 0";
	struct dl_layout *lay = dl_layout_new();
	char file[300];
	dl_cpus_t cpu0;

	ck_assert_int_eq(mkdir(evil, 0755), 0);
	snprintf(file, sizeof(file), "%s/cpuset.cpus", evil);
	ck_assert_int_eq(dl_write_file(file, "0"), 0);
	snapshot(before, sizeof(before));
	ck_assert_int_eq(DL_PART("create", "--partition", "0", "--no-move"), 1);
	ck_assert_msg(strstr(err, shown), "%s", err);
	ck_assert_msg(!strchr(err, '\033') && !strchr(err, '\007'), "a raw escape in: %s", err);
	dl_cpus_zero(&cpu0);
	dl_cpus_set(&cpu0, 0);
	ck_assert_int_eq(dl_layout_add_partition(lay, "partition0", &cpu0), 0);
	ck_assert_int_eq(dl_layout_set_flags(lay, DL_LAYOUT_NO_MOVE), 0);
	ck_assert_int_eq(dl_layout_create(lay, NULL), -EBUSY);
	dl_layout_free(lay);
	ck_assert_msg(strstr(dl_errmsg(), shown) && !strchr(dl_errmsg(), '\033'), "%s", dl_errmsg());
	assert_unchanged("a conflicting cpuset with escapes in its name");
	ck_assert_int_eq(rmdir(evil), 0);
}
END_TEST

static int descend(const char *name, int depth, void *arg)
{
	int *deepest = arg;

	(void)name;
	if (depth > *deepest)
		*deepest = depth;
	return DL_CS_DESCEND;
}

/*
 * A chain of 1,200 cpusets, as a user with a delegated subtree can make:
 * the walk of the cpuset tree, which recursed with 8 KB of stack a level,
 * stops at DL_CS_MAX_DEPTH and says where, and dl-part status and create
 * report it instead of crashing.  Each level is made with balancing off
 * before it has CPUs, so that making it rebuilds no sched domain.
 */
START_TEST(test_deep_cpuset_tree)
{
	char path[4096], file[4200], cpus[64], mems[64];
	int deepest = -1, rc;

	ck_assert_int_eq(dl_read_file(CPUSET "/cpuset.cpus", cpus, sizeof(cpus)), 0);
	ck_assert_int_eq(dl_read_file(CPUSET "/cpuset.mems", mems, sizeof(mems)), 0);
	for (int level = 0; level <= DEEP_LEVELS; level++) {
		deep_path(path, sizeof(path), level);
		ck_assert_msg(mkdir(path, 0755) == 0, "mkdir level %d: %s", level, strerror(errno));
		snprintf(file, sizeof(file), "%s/cpuset.sched_load_balance", path);
		ck_assert_int_eq(dl_write_file(file, "0"), 0);
		snprintf(file, sizeof(file), "%s/cpuset.cpus", path);
		ck_assert_int_eq(dl_write_file(file, cpus), 0);
		snprintf(file, sizeof(file), "%s/cpuset.mems", path);
		ck_assert_int_eq(dl_write_file(file, mems), 0);
	}

	/* The walker itself: every level down to its limit, then -ELOOP. */
	ck_assert_int_eq(dl_cs_walk("libdl-test-deep", descend, &deepest), -ELOOP);
	ck_assert_int_eq(deepest, DL_CS_MAX_DEPTH - 1);
	ck_assert_msg(strstr(dl_errmsg(), "deeper than 256 levels at /libdl-test-deep/d/d/d/") &&
		      strstr(dl_errmsg(), "remove or flatten that subtree"), "%s", dl_errmsg());

	/* With the root's balancing off, the root domains come from the walk:
	 * dl-part status reports the tree it does not follow. */
	ck_assert_int_eq(dl_write_file(CPUSET "/cpuset.sched_load_balance", "0"), 0);
	rc = DL_PART("status");
	dl_write_file(CPUSET "/cpuset.sched_load_balance", root_lb);
	ck_assert_msg(rc == 1, "dl-part status: exit %d (a signal above 128): %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "deeper than 256 levels at /libdl-test-deep/d/d/d/"), "%s", err);
	/* create refuses too, and makes nothing. */
	rc = DL_PART("create", "--partition", "0", "--no-move");
	ck_assert_msg(rc == 1, "dl-part create: exit %d: %s%s", rc, out, err);
	ck_assert_msg(access("/run/libdl/layout", F_OK) != 0 && access(CPUSET "/libdl", F_OK) != 0,
		      "create left a layout behind");
	remove_deep();
	ck_assert_int_ne(access(DEEP, F_OK), 0);
}
END_TEST

START_TEST(test_existing_layout_refused)
{
	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	snapshot(before, sizeof(before));
	ck_assert_int_eq(DL_PART("create", "--partition", "1", "--no-move"), 1);
	ck_assert_msg(strstr(err, "a layout exists already (partition0=0 cluster=1"), "%s", err);
	assert_unchanged("a second create");
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
}
END_TEST

/*
 * A layout's fair server where this kernel will not let it be set: a
 * kernel without one (before 6.12), or one in lockdown, whose debugfs
 * refuses the servers' files even to root (this host: docs/kernel-notes.md,
 * "The deadline servers' settings").  The refusal comes from the kernel
 * after the partitions stand, and create rolls everything back.  Where
 * the servers can be set, tests/vm/debian13/server-v2.vm proves the rest.
 */
START_TEST(test_server_refused_by_this_kernel)
{
	struct dl_server s;

	ck_assert_int_eq(dl_server_get(1, DL_SERVER_FAIR, &s), 0);
	if (s.present && s.known) {
		tl_note("this kernel lets the fair servers be read and set: tests/vm/debian13/server-v2.vm covers it");
		return;
	}
	ck_assert_int_eq(DL_PART("create", "--partition", "rt=1", "--no-move", "--fair-server", "rt=off"), 1);
	if (!s.present)
		ck_assert_msg(strstr(err, "has no fair server (it came with Linux 6.12)"), "%s", err);
	else
		ck_assert_msg(strstr(err, "lockdown") && strstr(err, "nothing was left changed"), "%s", err);
	assert_unchanged("a create whose server the kernel refused");
	ck_assert_int_ne(access("/run/libdl/layout", F_OK), 0);
	/* The ext server, where sched/ext_server is not: named so. */
	ck_assert_int_eq(dl_server_get(1, DL_SERVER_EXT, &s), 0);
	if (!s.present) {
		ck_assert_int_eq(DL_PART("create", "--partition", "rt=1", "--no-move", "--ext-server", "rt=off"), 1);
		ck_assert_msg(strstr(err, "has no ext server"), "%s", err);
		assert_unchanged("a create asking for an ext server the kernel has not");
	}
}
END_TEST

/* libcgroup is loaded by the first task moved: on a host without it,
 * moving into a partition says what to install, and moves nothing. */
START_TEST(test_move_without_libcgroup)
{
	char *argv[] = { (char *)tl_test_tool("dl-run"), "--partition", "rt", "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL };
	char snap[16384], now[16384];
	int rc;

	/* A create without libcgroup: refused, saying what to install, and
	 * nothing made. */
	tl_cpuset_snapshot(snap, sizeof(snap));
	setenv("LIBDL_TEST_LIBCGROUP", "libdl-no-such-libcgroup.so.2", 1);
	rc = DL_PART_TEST("create", "--partition", "rt=0", "--no-move");
	unsetenv("LIBDL_TEST_LIBCGROUP");
	ck_assert_msg(rc == 1, "dl-part made cpusets without libcgroup: %s", out);
	ck_assert_msg(strstr(err, "changing cgroups needs libcgroup, but") && strstr(err, "could not be loaded") &&
		      strstr(err, "install the Debian package " LIBCGROUP_PACKAGE), "%s", err);
	assert_unchanged("a create without libcgroup");

	ck_assert_msg(DL_PART("create", "--partition", "rt=0", "--no-move") == 0, "%s", err);
	tl_cpuset_snapshot(snap, sizeof(snap));
	setenv("LIBDL_TEST_LIBCGROUP", "libdl-no-such-libcgroup.so.2", 1);
	rc = tl_run(argv, out, sizeof(out), err, sizeof(err));
	unsetenv("LIBDL_TEST_LIBCGROUP");
	ck_assert_msg(rc == 125, "dl-run moved without libcgroup: exit %d: %s", rc, out);
	ck_assert_msg(strstr(err, "changing cgroups needs libcgroup, but") && strstr(err, "could not be loaded") &&
		      strstr(err, "libdl-no-such-libcgroup.so.2") &&
		      strstr(err, "install the Debian package " LIBCGROUP_PACKAGE), "%s", err);
	tl_cpuset_snapshot(now, sizeof(now));
	ck_assert_msg(strcmp(now, snap) == 0, "the refused move changed the cpusets:\n%s\n%s", snap, now);
	/* The same move with libcgroup there works. */
	ck_assert_msg(tl_run(argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
}
END_TEST

/* Someone removed the layout's cgroups by hand: destroy says so, and
 * undoes the rest (the parent, the root's balancing). */
START_TEST(test_destroy_after_cgroups_removed)
{
	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	ck_assert_int_eq(rmdir(CPUSET "/libdl/partition0"), 0);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	ck_assert_msg(strstr(out, "the layout was already gone: none of its partitions' cgroups exists any more"),
		      "%s", out);
	assert_unchanged("a destroy after the partitions' cgroups were removed");
	/* With one of the cgroups still there, it is not gone. */
	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	ck_assert_int_eq(rmdir(CPUSET "/libdl/cluster"), 0);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	ck_assert_msg(!strstr(out, "already gone"), "%s", out);
	assert_unchanged("a destroy after the cluster's cgroup was removed");
}
END_TEST

START_TEST(test_unprivileged)
{
	/* A copy nobody can run: the build tree may be private. */
	char *argv[] = { "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
			 (char *)tl_tool_for_anyone("dl-part"), "create", "--partition", "0", NULL };

	ck_assert_int_eq(tl_run(argv, out, sizeof(out), err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "changing cpusets needs root"), "%s", err);
	assert_unchanged("an unprivileged create");
}
END_TEST

/* Everything a layout makes is root's, whoever the real user of the
 * root process that makes it: libcgroup would give it to the real uid
 * (NO_UID_GID), which for a set-uid caller is the user's. */
static int owned_by_other(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	if (st->st_uid != 0 || st->st_gid != 0) {
		fprintf(stderr, "%s: uid %u gid %u\n", path, (unsigned)st->st_uid, (unsigned)st->st_gid);
		return 1;
	}
	return 0;
}

START_TEST(test_made_as_root_whatever_the_real_user)
{
	char *argv[] = { "/usr/bin/setpriv", "--ruid=nobody", "--rgid=nogroup", "--keep-groups", (char *)tl_tool("dl-part"),
			 "create", "--partition", "0", "--no-move", NULL };

	ck_assert_msg(tl_run(argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(nftw(CPUSET "/libdl", owned_by_other, 16, FTW_PHYS) == 0,
		      "a file of the layout is not root's (see above)");
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("a layout made with another real user");
}
END_TEST

/* The test build of dl-part create with a test hook set to `step`. */
static int create_with(const char *hook, int step)
{
	char env[16];
	int rc;

	snprintf(env, sizeof(env), "%d", step);
	setenv(hook, env, 1);
	rc = tl_run((char *[]){ (char *)tl_test_tool("dl-part"), "create", "--partition", "0", "--no-move", NULL },
		    out, sizeof(out), err, sizeof(err));
	unsetenv(hook);
	return rc;
}

/* A test build of a tool with test hook `hook` set to `value`. */
static int with_hook(const char *tool, const char *hook, const char *value, char *const args[])
{
	char *argv[32];
	int i = 0, rc;

	argv[i++] = (char *)tl_test_tool(tool);
	for (; *args && i < 31; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	setenv(hook, value, 1);
	rc = tl_run(argv, out, sizeof(out), err, sizeof(err));
	unsetenv(hook);
	return rc;
}

/* A test build of a tool with its Nth system write failing. */
static int with_fault(const char *tool, int n, char *const args[])
{
	char env[16];

	snprintf(env, sizeof(env), "%d", n);
	return with_hook(tool, "LIBDL_TEST_FAIL_WRITE", env, args);
}
#define FAULT(tool, n, ...) with_fault(tool, n, (char *[]){ __VA_ARGS__, NULL })

/* How many system writes the last FAULT run made (the hooks say). */
static int writes_made(void)
{
	const char *p = strstr(err, "libdl-test: ");

	return p ? atoi(p + strlen("libdl-test: ")) : -1;
}

/* The injected failure, or what a caller made of its EIO. */
static bool injected(void)
{
	return strstr(err, "failure injected") || strstr(err, "Input/output error");
}

/* Deadline tasks admitted on the whole machine that the new root domains
 * could not hold: create refuses, naming them, and changes nothing. */
START_TEST(test_admitted_bandwidth_must_fit)
{
	pid_t hogs[3];
	char tid[3][16];

	for (int i = 0; i < 3; i++) {
		hogs[i] = tl_dl_hog(6 * MS, 10 * MS); /* 1.8 of the machine's 1.9 */
		ck_assert_msg(hogs[i] > 0, "hog %d refused", i);
		snprintf(tid[i], sizeof(tid[i]), "thread %d", (int)hogs[i]);
	}
	ck_assert_int_eq(DL_PART("create", "--partition", "0", "--no-move"), 1);
	ck_assert_msg(strstr(err, "would hold") && strstr(err, "above its capacity") &&
		      strstr(err, "the kernel would count them there without a test"), "%s", err);
	/* Two of the three 0.6 hogs share a CPU: they are named. */
	ck_assert_msg((strstr(err, tid[0]) != NULL) + (strstr(err, tid[1]) != NULL) + (strstr(err, tid[2]) != NULL) >= 2,
		      "%s", err);
	assert_unchanged("a create refused for the admitted bandwidth");
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(dl_get(hogs[i], &(struct dl_params){ 0 }), DL_SCHED_DEADLINE);
		tl_kill(hogs[i]);
	}
	tl_settle();
}
END_TEST

/* Every system write of create can fail: all rolled back. */
START_TEST(test_every_write_of_create_fails)
{
	int n;

	int total;

	ck_assert_int_eq(FAULT("dl-part", 100000, "create", "--partition", "0", "--no-move"), 0);
	total = writes_made();
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	ck_assert_int_gt(total, 5);
	tl_note("create makes %d system writes", total);
	for (n = 1; n <= total; n++) {
		int rc = FAULT("dl-part", n, "create", "--partition", "0", "--no-move");

		ck_assert_msg(rc == 1, "write %d: exit %d: %s", n, rc, err);
		ck_assert_msg(injected() && strstr(err, "nothing was left changed"), "write %d: %s", n, err);
		assert_unchanged("a create whose write failed");
	}
}
END_TEST

/* Every system write of destroy can fail: a second destroy finishes. */
START_TEST(test_every_write_of_destroy_fails)
{
	int n;

	int total;

	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	ck_assert_int_eq(FAULT("dl-part", 100000, "destroy"), 0);
	total = writes_made();
	ck_assert_int_gt(total, 3);
	tl_note("destroy makes %d system writes", total);
	for (n = 1; n <= total; n++) {
		int rc;

		ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
		rc = FAULT("dl-part", n, "destroy");
		/* A failed write of the state's "destroying" mark is no reason
		 * to stop: destroy may finish anyway. */
		if (rc != 0) {
			ck_assert_msg(rc == 1 && injected(), "write %d: exit %d: %s", n, rc, err);
			ck_assert_msg(DL_PART("destroy") == 0, "write %d: the second destroy: %s", n, err);
		}
		assert_unchanged("a destroy whose write failed, then destroy");
	}
}
END_TEST

/* A layout of partition0 and a spinning process of the test's own
 * outside it: its pid as text, and the path of its /proc/PID/cpuset. */
static pid_t layout_and_spin(char pid[16], char path[64])
{
	pid_t tid, spin;

	ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	spin = tl_spawn_spin(1, false, NULL, &tid);
	snprintf(pid, 16, "%d", (int)spin);
	snprintf(path, 64, "/proc/%d/cpuset", (int)spin);
	return spin;
}

/* Every system write of a placement can fail: the task stays where it
 * was, as it was. */
START_TEST(test_every_write_of_attach_fails)
{
	char pid[16], path[64], cs[256];
	pid_t spin;
	int n;

	spin = layout_and_spin(pid, path);
	for (n = 1; n < 60; n++) {
		int rc = FAULT("dl-run", n, "--partition", "partition0", "-r", "1ms", "-p", "100ms", "--pid", pid);

		if (rc == 0)
			break;
		ck_assert_msg(rc == 125 && injected(), "write %d: exit %d: %s", n, rc, err);
		ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
		ck_assert_msg(strcmp(cs, "/") == 0, "write %d: the task stayed in %s", n, cs);
		ck_assert_int_eq(dl_get(spin, &(struct dl_params){ 0 }), 0);
	}
	ck_assert_int_gt(n, 1);
	tl_kill(spin);
	tl_settle();
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("placements whose writes failed");
}
END_TEST

/* Every system write of repair can fail: nothing is left behind. */
START_TEST(test_every_write_of_repair_fails)
{
	int n;

	int total;

	ck_assert_int_eq(FAULT("dl-part", 100000, "repair"), 0);
	total = writes_made();
	ck_assert_int_gt(total, 1);
	for (n = 1; n <= total; n++) {
		int rc = FAULT("dl-part", n, "repair");

		/* The probe's removal is tried again: that write may fail
		 * and the repair still be done. */
		if (rc != 0)
			ck_assert_msg(rc == 1 && injected(), "write %d: exit %d: %s%s", n, rc, out, err);
		assert_unchanged("a repair whose write failed");
	}
}
END_TEST

/*
 * A signal that ends a command, delivered before each system write in
 * turn (the test build's LIBDL_TEST_SIGNAL_AT_WRITE), SIGINT, SIGTERM and
 * SIGHUP in rotation: whatever it interrupts leaves nothing the state
 * does not record.
 */
static const int end_signals[] = { SIGINT, SIGTERM, SIGHUP };

static int with_signal(const char *tool, int n, int sig, char *const args[])
{
	char env[32];

	snprintf(env, sizeof(env), "%d %d", n, sig);
	return with_hook(tool, "LIBDL_TEST_SIGNAL_AT_WRITE", env, args);
}
#define SIGNAL(tool, n, sig, ...) with_signal(tool, n, sig, (char *[]){ __VA_ARGS__, NULL })

/* Repair probes (libdl-rebuild-PID) anywhere in the cpuset tree, named
 * into buf; with remove, removed (a test that failed cleans up). */
static int find_probes(const char *dir, char *buf, size_t len, bool remove)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char path[4096];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		n += find_probes(path, buf, len, remove);
		if (strncmp(d->d_name, "libdl-rebuild-", strlen("libdl-rebuild-")) != 0)
			continue;
		n++;
		if (strlen(buf) + strlen(path) + 2 < len)
			strcat(strcat(buf, " "), path);
		if (remove) {
			char lb[4200];

			snprintf(lb, sizeof(lb), "%s/cpuset.sched_load_balance", path);
			dl_write_file(lb, "0");
			rmdir(path);
		}
	}
	closedir(dp);
	return n;
}

static void assert_no_probe(const char *what, int n)
{
	char found[4096] = "";

	if (find_probes(CPUSET, found, sizeof(found), false)) {
		char again[4096] = "";

		find_probes(CPUSET, again, sizeof(again), true);
		ck_abort_msg("%s, signal before write %d: a repair probe is left:%s", what, n, found);
	}
}

/* Create is rolled back, destroy finishes, before the signal ends them:
 * no layout either way. */
static void signal_every_write(bool destroying)
{
	char *create[] = { "create", "--partition", "0", "--no-move", NULL }, *destroy[] = { "destroy", NULL };
	char *const *args = destroying ? destroy : create;
	const char *what = destroying ? "an interrupted destroy" : "an interrupted create";
	int total;

	if (destroying)
		ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	ck_assert_int_eq(with_fault("dl-part", 100000, args), 0);
	total = writes_made();
	if (!destroying)
		ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	ck_assert_int_gt(total, 3);
	for (int n = 1; n <= total; n++) {
		int sig = end_signals[n % ARRAY_SIZE(end_signals)], rc;

		if (destroying)
			ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
		rc = with_signal("dl-part", n, sig, args);
		ck_assert_msg(rc == 128 + sig, "write %d, signal %d: exit %d: %s", n, sig, rc, err);
		ck_assert_int_eq(DL_PART("list"), 0);
		ck_assert_msg(strstr(out, "no layout"), "write %d: %s left a layout: %s", n, what, out);
		assert_no_probe(what, n);
		assert_unchanged(what);
	}
}

START_TEST(test_signal_at_every_write_of_create)
{
	signal_every_write(false);
}
END_TEST

START_TEST(test_signal_at_every_write_of_destroy)
{
	signal_every_write(true);
}
END_TEST

/* The repair, alone and as the accounting check inside a layout. */
START_TEST(test_signal_at_every_write_of_repair)
{
	for (int in_layout = 0; in_layout < 2; in_layout++) {
		int total;

		if (in_layout)
			ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
		ck_assert_int_eq(FAULT("dl-part", 100000, "repair"), 0);
		total = writes_made();
		ck_assert_int_gt(total, 1);
		for (int n = 1; n <= total; n++) {
			int sig = end_signals[n % ARRAY_SIZE(end_signals)];
			int rc = SIGNAL("dl-part", n, sig, "repair");

			ck_assert_msg(rc == 128 + sig, "write %d, signal %d: exit %d: %s%s", n, sig, rc, out, err);
			assert_no_probe(in_layout ? "a repair in a layout" : "a repair", n);
			if (in_layout) {
				DL_PART("status"); /* exit 1 for drift too */
				ck_assert_msg(strstr(out, "partition0") && !strstr(out, "INVALID"), "write %d: %s", n,
					      out);
			}
		}
		if (in_layout)
			ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
		assert_unchanged("interrupted repairs");
	}
}
END_TEST

/* A repair killed (SIGKILL, which nothing holds back) before each write:
 * status reports the probe it leaves (exit 1, and what to run), and the
 * next repair, create or destroy, in turn, removes it when it starts. */
START_TEST(test_killed_repair_swept)
{
	static char *const next[] = { "repair", "create", "destroy" };
	int total, left = 0;

	ck_assert_int_eq(FAULT("dl-part", 100000, "repair"), 0);
	total = writes_made();
	for (int n = 1; n <= total; n++) {
		int rc = SIGNAL("dl-part", n, SIGKILL, "repair");
		char *cmd = next[n % ARRAY_SIZE(next)], found[4096] = "";

		ck_assert_msg(rc == 128 + SIGKILL, "write %d: exit %d: %s", n, rc, err);
		rc = DL_PART("status");
		if (find_probes(CPUSET, found, sizeof(found), false)) {
			left++;
			ck_assert_msg(rc == 1 && strstr(out, "LEFT BEHIND: cgroup /") && strstr(out, "libdl-rebuild-") &&
					      strstr(out, "run dl-part repair"),
				      "write %d: status exits %d with the probe%s left: %s", n, rc, found, out);
			ck_assert_int_eq(DL_PART("status", "--json"), 1);
			ck_assert_msg(strstr(out, "\"leftovers\":[\"cgroup /"), "write %d: %s", n, out);
		} else {
			ck_assert_msg(!strstr(out, "LEFT BEHIND"), "write %d: %s", n, out);
		}
		if (strcmp(cmd, "create") == 0)
			ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
		else
			DL_PART(cmd); /* destroy: no layout, exit 1 */
		assert_no_probe(cmd, n);
		DL_PART("status");
		ck_assert_msg(!strstr(out, "LEFT BEHIND"), "write %d: after %s: %s", n, cmd, out);
		if (strcmp(cmd, "create") == 0)
			ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
		assert_unchanged("a killed repair, then the next command");
	}
	ck_assert_msg(left > 0, "no kill of the %d writes of repair left a probe", total);
}
END_TEST

/* A placement interrupted at each write: the task is in the partition,
 * recorded, or where it was; destroy puts it back. */
START_TEST(test_signal_at_every_write_of_attach)
{
	char pid[16], path[64], cs[256];
	pid_t spin;
	int n;

	spin = layout_and_spin(pid, path);
	for (n = 1; n < 60; n++) {
		int sig = end_signals[n % ARRAY_SIZE(end_signals)];
		int rc = SIGNAL("dl-run", n, sig, "--partition", "partition0", "-r", "1ms", "-p", "100ms", "--pid", pid);

		if (rc == 0)
			break;
		ck_assert_msg(rc == 128 + sig, "write %d: exit %d: %s", n, rc, err);
		ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
		ck_assert_msg(strcmp(cs, "/") == 0 || strcmp(cs, "/libdl/partition0") == 0, "write %d: the task is in %s",
			      n, cs);
		if (strcmp(cs, "/") != 0) {
			ck_assert_int_eq(DL_PART("status"), 0);
			ck_assert_msg(strstr(out, "partition0") && strstr(out, " 1 threads"), "write %d: %s", n, out);
		}
		ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
		ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
		ck_assert_msg(strcmp(cs, "/") == 0, "write %d: destroy left the task in %s", n, cs);
		ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
	}
	ck_assert_int_gt(n, 1);
	tl_kill(spin);
	tl_settle();
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("interrupted placements");
}
END_TEST

/* A failure at any step rolls back everything done before it. */
START_TEST(test_rollback_from_every_step)
{
	int step;

	for (step = 1; step < 20; step++) {
		int rc = create_with("LIBDL_TEST_FAIL_AT_STEP", step);

		if (rc == 0)
			break; /* past the last step */
		ck_assert_int_eq(rc, 1);
		ck_assert_msg(strstr(err, "failure injected") && strstr(err, "nothing was left changed"),
			      "step %d: %s", step, err);
		assert_unchanged("a create failing half-way");
	}
	ck_assert_int_gt(step, 4); /* state, parent, cluster, partition, root */
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("the last create and its destroy");
}
END_TEST

/* Killed after any step, a create is undone by a fresh destroy. */
START_TEST(test_destroy_after_kill_at_every_step)
{
	int step;

	for (step = 1; step < 20; step++) {
		int rc = create_with("LIBDL_TEST_KILL_AFTER_STEP", step);

		if (rc == 0)
			break;
		ck_assert_msg(rc == 128 + SIGKILL, "step %d: exit %d: %s", step, rc, err);
		ck_assert_msg(DL_PART("destroy") == 0, "step %d: destroy: %s", step, err);
		assert_unchanged("a killed create, then destroy");
	}
	ck_assert_int_gt(step, 4);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("the last create and its destroy");
}
END_TEST

/* Two creates at once: one wins, the other is told; nothing half-made. */
START_TEST(test_concurrent_creates)
{
	char *a[] = { (char *)tl_tool("dl-part"), "create", "--partition", "0", "--no-move", NULL };
	char *b[] = { (char *)tl_tool("dl-part"), "create", "--partition", "one=1", "--cluster", "0", "--no-move", NULL };
	int ra, rb, ok;
	pid_t pa, pb;

	for (int round = 0; round < 5; round++) {
		char *log = "/tmp/libdl-test-concurrent.err";

		pa = fork();
		if (pa == 0) {
			if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
				_exit(126);
			execv(a[0], a);
			_exit(127);
		}
		pb = fork();
		if (pb == 0) {
			if (!freopen("/tmp/libdl-test-concurrent2.err", "w", stderr) ||
			    !freopen("/dev/null", "w", stdout))
				_exit(126);
			execv(b[0], b);
			_exit(127);
		}
		ra = tl_wait(pa);
		rb = tl_wait(pb);
		ok = (ra == 0) + (rb == 0);
		ck_assert_msg(ok == 1, "round %d: %d creates succeeded (exits %d, %d)", round, ok, ra, rb);
		{
			char e[4096] = "";

			dl_read_file(ra ? log : "/tmp/libdl-test-concurrent2.err", e, sizeof(e));
			ck_assert_msg(strstr(e, "another dl-part create, destroy or repair is running") ||
				      strstr(e, "a layout exists already"), "round %d: the loser said: %s", round, e);
		}
		ck_assert_int_eq(DL_PART("list"), 0);
		ck_assert_msg(strstr(out, ra == 0 ? "partition0" : "one"), "%s", out);
		ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
		assert_unchanged("two creates and a destroy");
	}
	unlink("/tmp/libdl-test-concurrent.err");
	unlink("/tmp/libdl-test-concurrent2.err");
}
END_TEST

/* The kernel bug's recipe, done by the library: a deadline task exits in
 * the cluster or in the partition and the layout is destroyed at once.
 * The accounting must come out right and a new reservation be admitted. */
START_TEST(test_destroy_right_after_a_deadline_exit)
{
	for (int round = 0; round < 4; round++) {
		char *where[] = { "--cluster", NULL, NULL };
		struct dl_rd rd0;
		struct dl_drift *d;
		size_t n;
		int rc;
		pid_t p;

		ck_assert_int_eq(dl_rd_of_cpu(0, &rd0), 0);
		ck_assert_msg(DL_PART("create", "--partition", "0", "--no-move") == 0, "%s", err);
		if (round % 2) {
			where[0] = "--partition";
			where[1] = "partition0";
		}
		rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), where[0], where[1] ? where[1] : "-v", "-r", "2.5ms",
					"-p", "8ms", "--", "/bin/sleep", "0.2", NULL }, out, sizeof(out), err, sizeof(err));
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
		ck_assert_int_eq(dl_drift_check(2000, &d, &n), 0);
		free(d);
		p = tl_dl_hog_in(NULL, 1 * MS, 10 * MS, err, sizeof(err));
		ck_assert_msg(p > 0, "round %d: a 0.1 reservation was refused after destroy: %s", round, err);
		tl_kill(p);
		tl_settle();
		{
			struct dl_rd rd1;

			ck_assert_int_eq(dl_rd_of_cpu(0, &rd1), 0);
			ck_assert_int_eq(rd1.total_bw, rd0.total_bw);
		}
	}
	assert_unchanged("create, a deadline exit, destroy");
}
END_TEST

/* The origin lines of the layout's state file. */
static int origin_lines(void)
{
	char *text = malloc(1 << 20), *at;
	int n = 0;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(dl_read_file("/run/libdl/layout", text, 1 << 20), 0);
	for (at = text; (at = strstr(at, "origin ")); at++)
		if (at == text || at[-1] == '\n')
			n++;
	free(text);
	return n;
}

/* Launches into a layout that stays leave no trace in its state: each
 * save keeps the origins of live tasks only. */
START_TEST(test_state_holds_live_tasks_only)
{
	ck_assert_msg(DL_PART("create", "--partition", "rt=0", "--no-move") == 0, "%s", err);
	for (int i = 0; i < 40; i++) {
		char *argv[] = { (char *)tl_tool("dl-run"), i % 2 ? "--cluster" : "--partition", i % 2 ? "-v" : "rt",
				 "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL };

		ck_assert_msg(tl_run(argv, out, sizeof(out), err, sizeof(err)) == 0, "%s", err);
	}
	/* The last launch's own line stays until the next save. */
	ck_assert_int_le(origin_lines(), 1);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	assert_unchanged("40 launches into a layout");
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("part");
	TCase *tc = tcase_create("layout");

	tl_require_layout_host();
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tcase_add_unchecked_fixture(tc, NULL, restore_machine);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_partition_is_its_own_root_domain);
	tcase_add_test(tc, test_dl_run_partition_and_cluster);
	tcase_add_test(tc, test_check_in_partition_and_cluster);
	tcase_add_test(tc, test_census_sees_deadline_threads);
	tcase_add_loop_test(tc, test_bad_input, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_conflicting_cpuset_named);
	tcase_add_test(tc, test_conflicting_cpuset_escaped);
	tcase_add_test(tc, test_deep_cpuset_tree);
	tcase_add_test(tc, test_existing_layout_refused);
	tcase_add_test(tc, test_server_refused_by_this_kernel);
	tcase_add_test(tc, test_destroy_after_cgroups_removed);
	tcase_add_test(tc, test_move_without_libcgroup);
	tcase_add_test(tc, test_unprivileged);
	tcase_add_test(tc, test_made_as_root_whatever_the_real_user);
	tcase_add_test(tc, test_rollback_from_every_step);
	tcase_add_test(tc, test_destroy_after_kill_at_every_step);
	tcase_add_test(tc, test_admitted_bandwidth_must_fit);
	tcase_add_test(tc, test_every_write_of_create_fails);
	tcase_add_test(tc, test_every_write_of_destroy_fails);
	tcase_add_test(tc, test_every_write_of_attach_fails);
	tcase_add_test(tc, test_every_write_of_repair_fails);
	tcase_add_test(tc, test_signal_at_every_write_of_create);
	tcase_add_test(tc, test_signal_at_every_write_of_destroy);
	tcase_add_test(tc, test_signal_at_every_write_of_repair);
	tcase_add_test(tc, test_killed_repair_swept);
	tcase_add_test(tc, test_signal_at_every_write_of_attach);
	tcase_add_test(tc, test_concurrent_creates);
	tcase_add_test(tc, test_destroy_right_after_a_deadline_exit);
	tcase_add_test(tc, test_state_holds_live_tasks_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	restore_machine();
	return ret;
}
