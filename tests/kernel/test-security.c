/*
 * A setcap dl-run that is safe to hand to users, and a layout no local
 * user can block (dl-run(1) SECURITY, dl-run.conf(5)).
 *
 * The victims are the suite's own processes: a root-owned sleep that
 * nobody must not change, and nobody's own sleep.  What the kernel
 * reports (sched_getattr) decides, not what dl-run says.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "testlib.h"

#define POLICY "/run/libdl-test-dl-run.conf"
#define CPUSET "/sys/fs/cgroup/cpuset"

static const char *dir;
static char out[16384], err[16384];
static char dlrun[4200], dlrun_pol[4200], dlrun_plain[4200];
static uid_t nobody;
static gid_t nogroup;

static void copy(const char *from, const char *name, char *to, size_t len)
{
	const char *path = tl_copy_for_anyone(from, name);

	ck_assert_msg(path, "cannot copy %s into %s", from, dir);
	snprintf(to, len, "%s", path);
}

static int setcap(const char *file)
{
	return tl_run((char *[]){ "/usr/sbin/setcap", "cap_sys_nice+ep", (char *)file, NULL }, NULL, 0, err, sizeof(err));
}

/* setcap copies of the installed dl-run and of the test build that reads
 * its policy from POLICY, where nobody can reach them (the build tree may
 * sit in a folder only root reads), and a plain copy of the test build,
 * which a caller's ambient capability runs with its test hooks read (a
 * file capability makes secure_getenv refuse them). */
static void setup(void)
{
	dir = tl_anyone_dir();
	ck_assert_ptr_nonnull(dir);
	copy(tl_tool("dl-run"), "dl-run", dlrun, sizeof(dlrun));
	copy(tl_test_tool("dl-run"), "dl-run-policy", dlrun_pol, sizeof(dlrun_pol));
	copy(tl_test_tool("dl-run"), "dl-run-plain", dlrun_plain, sizeof(dlrun_plain));
	ck_assert_int_eq(setcap(dlrun), 0);
	ck_assert_int_eq(setcap(dlrun_pol), 0);
	unlink(POLICY);
}

static void teardown(void)
{
	unlink(POLICY);
}

static int as_nobody(char *const argv[])
{
	return tl_run_as(argv, nobody, nogroup, out, sizeof(out), err, sizeof(err));
}

/* In a child: become uid (nobody with its group; another uid with the
 * same number as group), with no supplementary group; false if not. */
static bool become(uid_t uid)
{
	return setgroups(0, NULL) == 0 && setgid(uid == nobody ? nogroup : (gid_t)uid) == 0 && setuid(uid) == 0;
}

/* A sleep of the suite's own, as root or as nobody. */
static pid_t sleeper(bool as_nobody_user)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (as_nobody_user && !become(nobody))
			_exit(120);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	usleep(100000);
	return pid;
}

/* ------------------------------------------------------------ helpers */

/* A uid with no account, for "another user" (the policy's allow all). */
#define OTHER_UID 65533

struct bind {
	const char *from, *to;
};

/*
 * Start argv as uid (gid, and the supplementary groups given), stdout and
 * stderr into the file outfile; with binds, in a mount namespace of its
 * own, each file mounted over its place there (the host's stay as they
 * are).
 */
static pid_t start_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups, const struct bind *binds,
		      int nbinds, char *const argv[], const char *outfile)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(120);
		if (nbinds && (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0))
			_exit(121);
		for (int i = 0; i < nbinds; i++)
			if (mount(binds[i].from, binds[i].to, NULL, MS_BIND, NULL) < 0)
				_exit(122);
		if (setgroups((size_t)ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(123);
		execv(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

/* Its exit status (128 + a signal), its output into err. */
static int finish(pid_t pid, const char *outfile)
{
	int rc = tl_wait(pid);

	err[0] = '\0';
	dl_read_file(outfile, err, sizeof(err));
	return rc;
}

static int run_as(uid_t uid, const gid_t *groups, int ngroups, const struct bind *binds, int nbinds,
		  char *const argv[])
{
	char file[300];

	snprintf(file, sizeof(file), "%s/out", dir);
	return finish(start_as(uid, uid == nobody ? nogroup : (gid_t)uid, groups, ngroups, binds, nbinds, argv, file),
		      file);
}

/* The bandwidth of the deadline threads of process pid, and how many, as
 * the kernel reports them (sched_getattr). */
static uint64_t process_bw(pid_t pid, int *n)
{
	pid_t *tids = NULL;
	size_t count = 0;
	uint64_t sum = 0;

	*n = 0;
	if (dl_threads_list(pid, &tids, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++) {
		struct dl_params p;

		if (dl_get(tids[i], &p) == DL_SCHED_DEADLINE) {
			sum += dl_params_bw(&p);
			(*n)++;
		}
	}
	free(tids);
	return sum;
}

static int policy_of(pid_t tid)
{
	struct dl_params p;

	return dl_get(tid, &p);
}

static void write_policy(const char *text, mode_t mode)
{
	int fd = open(POLICY, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

START_TEST(test_pid_attack_refused)
{
	pid_t victim = sleeper(false);
	char pid[16];
	int rc;

	snprintf(pid, sizeof(pid), "%d", (int)victim);
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "1s", "--pid", pid, NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "belongs to root") && strstr(err, "not to the caller (nobody"), "%s", err);
	ck_assert_int_eq(policy_of(victim), 0); /* still SCHED_OTHER */
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "1s", "--pid", pid, "--all-threads", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "belongs to root"), "%s", err);
	ck_assert_int_eq(policy_of(victim), 0);
	tl_kill(victim);
}
END_TEST

START_TEST(test_own_process_allowed)
{
	pid_t mine = sleeper(true);
	char pid[16];
	int rc;

	snprintf(pid, sizeof(pid), "%d", (int)mine);
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "100ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_int_eq(policy_of(mine), DL_SCHED_DEADLINE);
	tl_kill(mine);
}
END_TEST

/* Installed setuid root by mistake: refused before anything runs. */
START_TEST(test_setuid_refused)
{
	char marker[300];
	int rc;

	ck_assert_int_eq(chown(dlrun, 0, 0), 0);
	ck_assert_int_eq(chmod(dlrun, 04755), 0);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "100ms", "--", "/usr/bin/touch", marker, NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "setuid or setgid") && strstr(err, "setcap cap_sys_nice+ep"), "%s", err);
	ck_assert_int_ne(access(marker, F_OK), 0);
}
END_TEST

/* Without a policy file: the built-in default (0.25 per reservation). */
START_TEST(test_default_policy)
{
	int rc = as_nobody((char *[]){ dlrun_pol, "-r", "2ms", "-p", "10ms", "--", "/bin/true", NULL });

	ck_assert_msg(rc == 0, "the README's 0.2 example: rc %d: %s", rc, err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "3ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "above the 0.2500 allowed for one by the built-in policy"), "%s", err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "100us", "-p", "500us", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "shorter than the 1ms allowed"), "%s", err);
	/* Root is not limited. */
	rc = tl_run((char *[]){ dlrun_pol, "-r", "5ms", "-p", "10ms", "--", "/bin/true", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "root: %s", err);
}
END_TEST

START_TEST(test_policy_file)
{
	pid_t held;
	char pid[16];
	int rc;

	write_policy("# test\ndeny all\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "refused by " POLICY ", line 2 (deny all)"), "%s", err);

	write_policy("allow user nobody max-task=0.05 max-user=5% min-period=5ms\ndeny all\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "above the 0.0500 allowed for one by " POLICY ", line 1"), "%s", err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "100us", "-p", "2ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "shorter than the 5ms"), "%s", err);
	/* Per user: one 0.04 reservation held, a second one is refused. */
	held = sleeper(true);
	snprintf(pid, sizeof(pid), "%d", (int)held);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_int_eq(policy_of(held), DL_SCHED_DEADLINE);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "your deadline threads hold 0.0400 of a CPU"), "%s", err);
	/* --check says the policy's verdict too. */
	rc = as_nobody((char *[]){ dlrun_pol, "--check", "-r", "400us", "-p", "10ms", NULL });
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "policy: refused"), "%s", out);
	tl_kill(held);

	/* A group rule; nobody is not in group root. */
	write_policy("allow group root\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "no rule of " POLICY " allows your user"), "%s", err);

	/* A file others may write is not trusted; bad lines are named. */
	write_policy("allow all\n", 0666);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "cannot be trusted") && strstr(err, "chmod 644"), "%s", err);
	write_policy("allow all\nallow all max-task=2\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, POLICY ", line 2: max-task=2"), "%s", err);
}
END_TEST

/* The lock and the state: nobody can neither hold nor forge them. */
START_TEST(test_lock_and_state)
{
	int pfd[2], rc, status;
	char c;
	pid_t child;

	/* The old world-readable lock of an earlier version, held by nobody
	 * with a read lock: create must replace it, not wait for it. */
	mkdir("/run/libdl", 0755);
	chmod("/run/libdl", 0755);
	unlink("/run/libdl/lock");
	ck_assert_int_ge(open("/run/libdl/lock", O_CREAT | O_WRONLY | O_CLOEXEC, 0644), 0);
	chmod("/run/libdl/lock", 0644);
	ck_assert_int_eq(pipe(pfd), 0);
	child = fork();
	if (child == 0) {
		struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
		int fd;

		if (!become(nobody))
			_exit(120);
		fd = open("/run/libdl/lock", O_RDONLY);
		c = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
		(void)!write(pfd[1], &c, 1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	ck_assert_msg(c == 'y', "control: nobody could not lock the old 0644 lock file");
	rc = tl_run((char *[]){ (char *)tl_tool("dl-part"), "create", "--partition", "0", "--no-move", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "create with nobody holding the old lock: %s", err);
	{
		struct stat st;

		ck_assert_int_eq(stat("/run/libdl/lock", &st), 0);
		ck_assert_uint_eq(st.st_mode & 0777, 0600);
		ck_assert_int_eq(stat("/run/libdl/layout", &st), 0);
		ck_assert_uint_eq(st.st_mode & 0777, 0600);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	/* Now nobody can open neither to lock nor to forge. */
	child = fork();
	if (child == 0) {
		if (!become(nobody))
			_exit(120);
		if (open("/run/libdl/lock", O_RDONLY) >= 0 || errno != EACCES)
			_exit(1);
		if (open("/run/libdl/layout", O_RDONLY) >= 0 || errno != EACCES)
			_exit(2);
		if (open("/run/libdl/forged", O_CREAT | O_WRONLY, 0644) >= 0)
			_exit(3);
		_exit(0);
	}
	waitpid(child, &status, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "nobody reached the lock or state: %d", status);
	rc = tl_run((char *[]){ (char *)tl_tool("dl-part"), "destroy", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
}
END_TEST

/* --partition --all-threads that fails puts the threads back. */
START_TEST(test_partition_all_threads_rollback)
{
	pid_t tids[4], spin;
	char pid[16], path[64], cs[256];
	int rc;

	rc = tl_run((char *[]){ (char *)tl_tool("dl-part"), "create", "--partition", "0", "--no-move", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	spin = tl_spawn_spin(4, true, NULL, tids);
	snprintf(pid, sizeof(pid), "%d", (int)spin);
	/* 4 x 0.3 does not fit a one-CPU partition (0.90 free). */
	rc = tl_run((char *[]){ (char *)tl_tool("dl-run"), "--partition", "partition0", "-r", "3ms", "-p", "10ms",
				"--pid", pid, "--all-threads", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "the threads were put back in their cpusets"), "%s", err);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/cpuset", (int)spin, (int)tids[i]);
		ck_assert_int_eq(dl_read_file(path, cs, sizeof(cs)), 0);
		ck_assert_msg(strcmp(cs, "/") == 0, "thread %d stayed in %s", (int)tids[i], cs);
		ck_assert_int_eq(policy_of(tids[i]), 0);
	}
	tl_kill(spin);
	tl_settle();
	rc = tl_run((char *[]){ (char *)tl_tool("dl-part"), "destroy", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
}
END_TEST

/* A thread named with terminal escapes prints escaped. */
START_TEST(test_escaped_names)
{
	char evil[300], *argv[8];
	pid_t pid;
	int rc;

	copy("/bin/sleep", "\033[2J\033]0;x\007", evil, sizeof(evil));
	argv[0] = (char *)tl_tool("dl-run");
	argv[1] = "-r";
	argv[2] = "1ms";
	argv[3] = "-p";
	argv[4] = "100ms";
	argv[5] = evil;
	argv[6] = "30";
	argv[7] = NULL;
	pid = tl_spawn(argv, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert(tl_wait_policy(pid, DL_SCHED_DEADLINE, 3000));
	rc = tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--tasks", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(out, "\\x1b[2J\\x1b]0;x\\x07"), "%s", out);
	ck_assert_msg(!strchr(out, '\033') && !strchr(out, '\007'), "a raw escape in dl-stat's output");
	rc = tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--tasks", "--json", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(!strchr(out, '\033') && strstr(out, "\\u001b[2J"), "%s", out);
	tl_kill(pid);
}
END_TEST

/*
 * The reclaim flag lets a reservation run up to the kernel's cap for its
 * CPU (docs/kernel-notes.md, "SCHED_FLAG_RECLAIM lets a task run far past
 * its reservation"): refused without a rule that allows it, and charged
 * at that cap when allowed.
 */
START_TEST(test_reclaim_needs_a_rule)
{
	pid_t held;
	char pid[16];
	int rc;

	/* The built-in policy allows no reclaiming. */
	rc = as_nobody((char *[]){ dlrun_pol, "--reclaim", "-r", "1ms", "-p", "100ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "the reclaim flag") && strstr(err, "allow-flags=reclaim"),
		      "rc %d: %s", rc, err);
	rc = as_nobody((char *[]){ dlrun_pol, "--check", "--reclaim", "-r", "1ms", "-p", "100ms", NULL });
	ck_assert_msg(rc == 1 && strstr(out, "policy: refused: the reclaim flag"), "rc %d: %s%s", rc, out, err);
	/* A rule that allows it, but not a reservation that can take a CPU. */
	write_policy("allow user nobody allow-flags=reclaim max-task=0.5 max-user=1\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "--reclaim", "-r", "1ms", "-p", "100ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "with the reclaim flag the reservation can take") &&
		      strstr(err, "above the 0.5000 allowed for one"), "rc %d: %s", rc, err);
	/* One that allows it whole: set, and the kernel has the flag. */
	write_policy("allow user nobody allow-flags=reclaim max-task=1 max-user=1\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-v", "--reclaim", "-r", "1ms", "-p", "100ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 0 && strstr(err, "flags reclaim"), "rc %d: %s", rc, err);
	/* Held, a reclaiming 0.01 counts at the cap (0.95 by default):
	 * 0.04 more fits in 1, 0.06 more not. */
	held = sleeper(true);
	snprintf(pid, sizeof(pid), "%d", (int)held);
	rc = as_nobody((char *[]){ dlrun_pol, "--reclaim", "-r", "1ms", "-p", "100ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	rc = as_nobody((char *[]){ dlrun_pol, "--check", "-r", "4ms", "-p", "100ms", NULL });
	ck_assert_msg(rc == 0, "0.04 beside a reclaiming 0.01: rc %d: %s%s", rc, out, err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "6ms", "-p", "100ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "your deadline threads hold 0.9") && strstr(err, "allowed in all"),
		      "a reclaiming 0.01 was not charged at the cap: rc %d: %s", rc, err);
	tl_kill(held);
	/* Root is not limited. */
	rc = tl_run((char *[]){ dlrun_pol, "--reclaim", "-r", "1ms", "-p", "100ms", "--", "/bin/true", NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "root: %s", err);
}
END_TEST

/*
 * The utilization clamps need a rule too: refused by the built-in policy
 * before the kernel is asked; with allow-flags=util-clamp, passed to the
 * kernel (which sets them, or says it has no clamping).
 */
START_TEST(test_util_clamp_needs_a_rule)
{
	bool have = access("/proc/sys/kernel/sched_util_clamp_min", F_OK) == 0;
	int rc;

	rc = as_nobody((char *[]){ dlrun_pol, "--util-max", "512", "-r", "1ms", "-p", "100ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "does not allow the utilization clamps") &&
		      strstr(err, "allow-flags=util-clamp"), "rc %d: %s", rc, err);
	write_policy("allow user nobody allow-flags=util-clamp\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "--util-min", "100", "--util-max", "512", "-r", "1ms", "-p", "100ms", "--",
				   "/bin/true", NULL });
	if (have)
		ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	else
		ck_assert_msg(rc == 125 && !strstr(err, "refused") && strstr(err, "CONFIG_UCLAMP_TASK"), "rc %d: %s", rc, err);
}
END_TEST

/*
 * The policy charges the threads the owner rule lets the user change: a
 * process whose effective uid is the user's (its real uid root's) is
 * theirs to set, so its reservation counts toward max-user.
 */
START_TEST(test_charged_by_the_owner_rule)
{
	char pid[16];
	pid_t x = fork();
	int rc;

	if (x == 0) {
		if (setresgid(nogroup, nogroup, nogroup) < 0 || setresuid(0, nobody, 0) < 0)
			_exit(120);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(x, 0);
	usleep(100000);
	write_policy("allow user nobody max-task=0.04 max-user=0.05\n", 0644);
	snprintf(pid, sizeof(pid), "%d", (int)x);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0, "nobody's own (effective uid) process: rc %d: %s", rc, err);
	ck_assert_int_eq(policy_of(x), DL_SCHED_DEADLINE);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "your deadline threads hold 0.0400 of a CPU"),
		      "the first 0.04 was not charged: rc %d: %s", rc, err);
	tl_kill(x);
}
END_TEST

/* A 6 KB line of /etc/group, and the policy's file, in dir. */
static void group_files(bool members, char *group, size_t len)
{
	char line[8192], *text = NULL;
	size_t used;
	int fd;

	snprintf(group, len, "%s/group", dir);
	ck_assert_int_eq(tl_run((char *[]){ "/bin/cp", "/etc/group", group, NULL }, NULL, 0, NULL, 0), 0);
	used = (size_t)snprintf(line, sizeof(line), "bigdeny:x:4242:%s", members ? "nobody" : "");
	for (int i = 0; used < 6200; i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%smember%04d", used > 16 ? "," : "", i);
	snprintf(line + used, sizeof(line) - used, "\n");
	fd = open(group, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
	ck_assert_int_eq(chmod(group, 0644), 0);
	free(text);
}

/*
 * Group rules fail closed.  A deny line for a group whose entry is larger
 * than a fixed lookup buffer, of a user in more than 256 groups, or one
 * that cannot be looked up (the group file unreadable, the name service
 * missing), each followed by "allow all": the user is refused every time.
 * The files are replaced only in the child's own mount namespace.
 */
START_TEST(test_group_lookups_fail_closed)
{
	char group[300], nss[300], secret[300];
	char *argv[] = { dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL };
	gid_t gids[300];
	int rc, fd;
	pid_t probe = fork();

	/* The group files are bound over /etc in a mount namespace made
	 * private from /: where / is no mount point (the Debian 13 build
	 * chroot of tests/distro), that cannot be done without the host's
	 * mounts seeing the binds, and the case is left to the host's run. */
	if (probe == 0)
		_exit(unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 &&
		      errno == EINVAL);
	if (tl_wait(probe) == 1) {
		fprintf(stderr, "# / is not a mount point (a chroot): the group files cannot be bound privately here\n");
		return;
	}
	write_policy("deny group bigdeny\nallow all\n", 0644);

	/* The 6 KB entry, nobody in it as a supplementary group. */
	group_files(false, group, sizeof(group));
	gids[0] = 4242;
	rc = run_as(nobody, gids, 1, (struct bind[]){ { group, "/etc/group" } }, 1, argv);
	ck_assert_msg(rc == 125 && strstr(err, "refused by " POLICY ", line 1 (deny group bigdeny)"),
		      "6 KB group, supplementary: rc %d: %s", rc, err);
	/* The same, nobody a member in the database only. */
	group_files(true, group, sizeof(group));
	rc = run_as(nobody, NULL, 0, (struct bind[]){ { group, "/etc/group" } }, 1, argv);
	ck_assert_msg(rc == 125 && strstr(err, "(deny group bigdeny)"), "6 KB group, member: rc %d: %s", rc, err);
	/* Control: not a member, the same entry: allowed by line 2. */
	group_files(false, group, sizeof(group));
	rc = run_as(nobody, NULL, 0, (struct bind[]){ { group, "/etc/group" } }, 1, argv);
	ck_assert_msg(rc == 0, "not in bigdeny: rc %d: %s", rc, err);

	/* 300 supplementary groups, the denied one last. */
	for (int i = 0; i < 299; i++)
		gids[i] = (gid_t)(30000 + i);
	gids[299] = 4242;
	rc = run_as(nobody, gids, 300, (struct bind[]){ { group, "/etc/group" } }, 1, argv);
	ck_assert_msg(rc == 125 && strstr(err, "(deny group bigdeny)"), "300 groups: rc %d: %s", rc, err);

	/* The group file unreadable: the deny line cannot be resolved. */
	snprintf(secret, sizeof(secret), "%s/group.secret", dir);
	ck_assert_int_eq(tl_run((char *[]){ "/bin/cp", group, secret, NULL }, NULL, 0, NULL, 0), 0);
	ck_assert_int_eq(chmod(secret, 0600), 0);
	rc = run_as(nobody, NULL, 0, (struct bind[]){ { secret, "/etc/group" } }, 1, argv);
	ck_assert_msg(rc == 125 && strstr(err, "line 1 denies group bigdeny, which cannot be looked up") &&
		      strstr(err, "fails closed"), "unreadable group file: rc %d: %s", rc, err);

	/* The name service missing. */
	snprintf(nss, sizeof(nss), "%s/nsswitch.conf", dir);
	fd = open(nss, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "passwd: files\ngroup: libdl-no-such-service\n", 43), 43);
	close(fd);
	rc = run_as(nobody, NULL, 0,
		    (struct bind[]){ { group, "/etc/group" }, { nss, "/etc/nsswitch.conf" } }, 2, argv);
	ck_assert_msg(rc == 125 && strstr(err, "which cannot be looked up"), "missing name service: rc %d: %s", rc, err);

	/* An allow line for a group nobody knows just does not match. */
	write_policy("allow group libdl-no-such-group\nallow all max-task=0.2\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "3ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 125 && strstr(err, "line 2 (allow all)"), "rc %d: %s", rc, err);
}
END_TEST

/*
 * --all-threads sets the threads it checked, and no other.  The target's
 * second thread waits until the first is a deadline thread (dl-run has
 * checked, and is setting), then starts 20 threads (reset-on-fork lets a
 * deadline thread): in one try after stopping that dl-run with SIGSTOP,
 * as its user may, and letting it go on; in the next while dl-run runs,
 * one every 200 us, so that they land wherever dl-run's timing puts
 * them.  The policy allows the two threads there were; the process must
 * never hold more, as the kernel reports it, sampled while dl-run works.
 */
static pid_t spawner_main;
static int spawner_pipe[2];
static bool spawner_stops;

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *spawner(void *arg)
{
	uint64_t until = dl_now_ns() + 10000000000ULL;
	pthread_attr_t a;
	pid_t dlrun_pid;

	(void)arg;
	if (read(spawner_pipe[0], &dlrun_pid, sizeof(dlrun_pid)) != sizeof(dlrun_pid))
		return NULL;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 65536);
	while (policy_of(spawner_main) != DL_SCHED_DEADLINE && dl_now_ns() < until)
		;
	if (spawner_stops)
		kill(dlrun_pid, SIGSTOP);
	for (int i = 0; i < 20; i++) {
		pthread_t t;

		pthread_create(&t, &a, idle_thread, NULL);
		if (!spawner_stops)
			usleep(200);
	}
	if (spawner_stops) {
		usleep(20000);
		kill(dlrun_pid, SIGCONT);
	}
	for (;;)
		pause();
	return NULL;
}

/* A process of nobody's that makes the pipe p first, then runs body,
 * which does not return. */
static pid_t nobody_process(int p[2], void (*body)(void))
{
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		if (!become(nobody))
			_exit(120);
		body();
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

static void spawning_main(void)
{
	pthread_t t;

	spawner_main = getpid();
	pthread_create(&t, NULL, spawner, NULL);
	for (;;)
		pause();
}

/* Ready when it is nobody's, with its two threads: dl-run must find
 * those, however slow the machine was to start them. */
static pid_t spawning_process(void)
{
	pid_t pid = nobody_process(spawner_pipe, spawning_main);
	uint64_t until = dl_now_ns() + 10000000000ULL;
	char path[64];

	close(spawner_pipe[0]);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (;;) {
		unsigned long long ids[2] = { 0, 0 };
		pid_t *tids = NULL;
		size_t n = 0;

		if (dl_status_ids(AT_FDCWD, path, "Uid", ids, 2) == 0 && ids[0] == nobody && ids[1] == nobody &&
		    dl_threads_list(pid, &tids, &n) == 0 && n == 2) {
			free(tids);
			return pid;
		}
		free(tids);
		ck_assert_msg(dl_now_ns() < until, "the spawning process %d was not ready in 10 s", (int)pid);
		usleep(1000);
	}
}

START_TEST(test_only_checked_threads_are_set)
{
	const uint64_t limit = DL_BW_UNIT * 5 / 1000; /* 0.005 */
	char file[300], pid[16];

	snprintf(file, sizeof(file), "%s/out", dir);
	write_policy("allow user nobody max-task=0.01 max-user=0.005\n", 0644);
	for (int round = 0; round < 12; round++) {
		pid_t target, run;
		uint64_t most = 0;
		int n, most_n = 0;

		spawner_stops = round % 2 == 0;
		target = spawning_process();

		snprintf(pid, sizeof(pid), "%d", (int)target);
		run = start_as(nobody, nogroup, NULL, 0, NULL, 0,
			       (char *[]){ dlrun_pol, "-R", "-r", "1ms", "-p", "1s", "--pid", pid, "--all-threads", NULL },
			       file);
		ck_assert_int_eq(write(spawner_pipe[1], &run, sizeof(run)), (ssize_t)sizeof(run));
		close(spawner_pipe[1]);
		for (;;) {
			bool done = waitpid(run, NULL, WNOHANG) == run;
			uint64_t bw = process_bw(target, &n);

			if (bw > most) {
				most = bw;
				most_n = n;
			}
			if (done)
				break;
		}
		err[0] = '\0';
		dl_read_file(file, err, sizeof(err));
		process_bw(target, &n);
		tl_kill(target);
		tl_settle();
		ck_assert_msg(most <= limit, "round %d (%s): %d deadline threads, %.4f of a CPU, past max-user=0.005: %s",
			      round, spawner_stops ? "dl-run stopped" : "not stopped", most_n, (double)most / DL_BW_UNIT, err);
		ck_assert_msg(n == 2, "round %d: %d threads set, not the 2 checked: %s", round, n, err);
	}
}
END_TEST

/*
 * dl-runs of one user started at once, each on its own sleeper: the
 * policy admits two of 0.01 in 0.02, and never more, whatever the
 * timing.
 */
START_TEST(test_concurrent_dl_runs_stay_within_the_policy)
{
	enum { N = 8 };

	write_policy("allow user nobody max-task=0.01 max-user=0.02\n", 0644);
	for (int round = 0; round < 5; round++) {
		pid_t targets[N], runs[N];
		int go[2], admitted = 0;

		for (int i = 0; i < N; i++)
			targets[i] = sleeper(true);
		ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
		for (int i = 0; i < N; i++) {
			char pid[16], file[300];

			snprintf(pid, sizeof(pid), "%d", (int)targets[i]);
			snprintf(file, sizeof(file), "%s/out%d", dir, i);
			runs[i] = fork();
			if (runs[i] == 0) {
				char c;
				int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

				close(go[1]);
				if (fd < 0 || dup2(fd, 2) < 0 || !become(nobody))
					_exit(120);
				/* Every one released at once. */
				(void)!read(go[0], &c, 1);
				execl(dlrun_pol, dlrun_pol, "-r", "1ms", "-p", "100ms", "--pid", pid, (char *)NULL);
				_exit(127);
			}
		}
		close(go[0]);
		close(go[1]);
		for (int i = 0; i < N; i++)
			tl_wait(runs[i]);
		for (int i = 0; i < N; i++) {
			admitted += policy_of(targets[i]) == DL_SCHED_DEADLINE;
			tl_kill(targets[i]);
		}
		tl_settle();
		ck_assert_msg(admitted >= 1 && admitted <= 2, "round %d: %d of %d admitted, 0.01 each, max-user=0.02",
			      round, admitted, N);
	}
}
END_TEST

/* A process of uid, prepared (its own name, its policy), idle once it
 * is. */
static pid_t idle_as(uid_t uid, int (*prepare)(void))
{
	int ready[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	if (pid == 0) {
		if (!become(uid) || (prepare && prepare() < 0))
			_exit(120);
		(void)!write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

/* Named as a thread that holds the turn. */
static int turn_holder_name(void)
{
	return prctl(PR_SET_NAME, "libdl:setting");
}

static pid_t fake_turn_holder(uid_t uid)
{
	return idle_as(uid, turn_holder_name);
}

/*
 * The turn is per user: a thread of nobody's that holds it (here a fake
 * one, as a dl-run stopped with SIGSTOP would) makes nobody's dl-run
 * wait, never another user's, and past 10 s nobody's gives up, naming
 * the holder.  One of another user holds nobody back not at all.
 */
START_TEST(test_turn_is_per_user)
{
	char file[300], pid[16], other[16], comm[32], path[64];
	pid_t holder, mine, theirs, run;
	int rc;

	snprintf(file, sizeof(file), "%s/out", dir);
	write_policy("allow all max-task=0.01 max-user=0.02\n", 0644);
	mine = sleeper(true);
	snprintf(pid, sizeof(pid), "%d", (int)mine);
	theirs = fork();
	if (theirs == 0) {
		if (!become(OTHER_UID))
			_exit(120);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	snprintf(other, sizeof(other), "%d", (int)theirs);

	/* Another user's holder: no delay for nobody. */
	holder = fake_turn_holder(OTHER_UID);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "100ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0 && policy_of(mine) == DL_SCHED_DEADLINE, "rc %d: %s", rc, err);
	tl_kill(holder);
	dl_clear(mine);

	/* nobody's holder: nobody's dl-run waits, asking for its turn. */
	holder = fake_turn_holder(nobody);
	run = start_as(nobody, nogroup, NULL, 0, NULL, 0,
		       (char *[]){ dlrun_pol, "-r", "1ms", "-p", "100ms", "--pid", pid, NULL }, file);
	usleep(1000000);
	ck_assert_msg(waitpid(run, NULL, WNOHANG) == 0, "nobody's dl-run did not wait for its turn");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)run);
	ck_assert_int_eq(dl_read_file(path, comm, sizeof(comm)), 0);
	ck_assert_str_eq(comm, "libdl:waiting");
	ck_assert_int_eq(policy_of(mine), 0);
	/* ... while the other user's goes through. */
	rc = run_as(OTHER_UID, NULL, 0, NULL, 0, (char *[]){ dlrun_pol, "-r", "1ms", "-p", "100ms", "--pid", other, NULL });
	ck_assert_msg(rc == 0 && policy_of(theirs) == DL_SCHED_DEADLINE, "the other user waited: rc %d: %s", rc, err);
	/* The holder gone, nobody's has its turn. */
	tl_kill(holder);
	rc = finish(run, file);
	ck_assert_msg(rc == 0 && policy_of(mine) == DL_SCHED_DEADLINE, "rc %d: %s", rc, err);
	dl_clear(mine);

	/* A holder that never lets go: nobody's gives up after 10 s. */
	holder = fake_turn_holder(nobody);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "100ms", "--pid", pid, NULL });
	snprintf(path, sizeof(path), "(thread %d, named libdl:setting", (int)holder);
	ck_assert_msg(rc == 125 && strstr(err, path) && strstr(err, "in 10 s"), "rc %d: %s", rc, err);
	ck_assert_int_eq(policy_of(mine), 0);
	tl_kill(holder);
	tl_kill(mine);
	tl_kill(theirs);
}
END_TEST

/*
 * A failed --all-threads is rolled back thread by thread.  A thread that
 * was set and then exited may have its id given to another user's thread
 * before the rollback: that thread must be left alone.  The library runs
 * here as a setcap dl-run does (nobody, CAP_SYS_NICE), and a test hook
 * pauses it before the rollback while thread A of the target ends and a
 * process of another user is made to take A's id (ns_last_pid).
 */
static int hook_req[2], hook_ack[2];

static void pause_before_restore(void)
{
	char c = 'r';

	(void)!write(hook_req[1], &c, 1);
	(void)!read(hook_ack[0], &c, 1);
}

static const struct dl_test_hooks pause_hooks = { .before_restore = pause_before_restore };

static int end_a[2];
static pid_t a_tid;

static void *thread_a(void *arg)
{
	char c;

	(void)arg;
	a_tid = gettid();
	(void)!read(end_a[0], &c, 1);
	return NULL;
}

static void *thread_b(void *arg)
{
	cpu_set_t one;

	(void)arg;
	/* An affinity narrower than the root domain: the kernel refuses
	 * SCHED_DEADLINE here (EPERM), which fails the whole call. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (;;)
		pause();
	return NULL;
}

static int report_fd;

static void rollback_main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, thread_a, NULL);
	while (!__atomic_load_n(&a_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	pthread_create(&t, NULL, thread_b, NULL);
	usleep(50000);
	(void)!write(report_fd, &a_tid, sizeof(a_tid));
	for (;;)
		pause();
}

/* nobody's process: its main thread, then A, then B (ids rising); A's id
 * written to report. */
static pid_t rollback_target(int report)
{
	pid_t pid;

	report_fd = report;
	pid = nobody_process(end_a, rollback_main);
	close(end_a[0]);
	return pid;
}

static int batch_policy(void)
{
	struct sched_param sp = { 0 };

	return sched_setscheduler(0, SCHED_BATCH, &sp);
}

/* The library's caller: nobody, holding CAP_SYS_NICE alone. */
static void as_setcap_nobody(void)
{
	if (!tl_become_with_nice(nobody, nogroup, NULL, 0))
		_exit(120);
}

START_TEST(test_rollback_spares_a_reused_id)
{
	bool reused = false;

	for (int tries = 0; tries < 10 && !reused; tries++) {
		struct dl_params p = { .runtime = 1000000, .period = 100000000 };
		int report[2], rc;
		pid_t target, caller, other, a;
		char c, buf[32];

		ck_assert_int_eq(pipe(report), 0);
		target = rollback_target(report[1]);
		ck_assert_int_eq(read(report[0], &a, sizeof(a)), (ssize_t)sizeof(a));
		close(report[0]);
		close(report[1]);
		ck_assert_int_eq(pipe(hook_req), 0);
		ck_assert_int_eq(pipe(hook_ack), 0);
		caller = fork();
		if (caller == 0) {
			struct dl_thread_status *st = NULL;
			size_t n = 0;

			as_setcap_nobody();
			dl_test_hooks = &pause_hooks;
			_exit(dl_set_process(target, &p, DL_PROC_OWNED, &st, &n) < 0 ? 0 : 1);
		}
		/* Paused before the rollback: A has its reservation. */
		ck_assert_int_eq(read(hook_req[0], &c, 1), 1);
		ck_assert_int_eq(policy_of(a), DL_SCHED_DEADLINE);
		ck_assert_int_eq(write(end_a[1], "x", 1), 1);
		snprintf(buf, sizeof(buf), "/proc/%d/task/%d", (int)target, (int)a);
		for (int i = 0; i < 1000 && access(buf, F_OK) == 0; i++)
			usleep(1000);
		snprintf(buf, sizeof(buf), "%d", (int)a - 1);
		ck_assert_int_eq(dl_write_file("/proc/sys/kernel/ns_last_pid", buf), 0);
		other = idle_as(OTHER_UID, batch_policy);
		reused = other == a;
		ck_assert_int_eq(write(hook_ack[1], "a", 1), 1);
		rc = tl_wait(caller);
		ck_assert_msg(rc == 0, "the failed call did not fail (%d)", rc);
		if (reused) {
			ck_assert_msg(sched_getscheduler(other) == SCHED_BATCH,
				      "the rollback changed another user's process that took thread %d's id: now policy %d",
				      (int)a, sched_getscheduler(other));
			/* The main thread was put back. */
			ck_assert_int_eq(policy_of(target), 0);
		}
		tl_kill(other);
		tl_kill(target);
		close(end_a[1]);
		for (int i = 0; i < 2; i++) {
			close(hook_req[i]);
			close(hook_ack[i]);
		}
		tl_settle();
	}
	if (!reused)
		tl_note("the id of the ended thread went elsewhere in 10 tries: the rollback case was not reached");
	ck_assert_msg(reused, "no try reached the case (another process took the id each time)");
}
END_TEST

/*
 * dl-run --pid of the caller's own thread, stopped (SIGSTOP) once the
 * thread is checked, while the thread ends and its id goes to another
 * user's process: when dl-run goes on, that process must be exactly as
 * it was (dl-run(1) SECURITY).  The race runs in a pid namespace of the
 * suite's own, where ns_last_pid hands the id over at once; the
 * processes are the suite's: nobody's target, OTHER_UID's victim under
 * SCHED_FIFO (set by root), and the test build of dl-run as nobody
 * holding CAP_SYS_NICE (ambient: as the setcap copy has it, but with its
 * test hooks, which a file capability's secure mode would not read).
 */
static int race_msg;

static void race_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void race_say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	(void)!write(race_msg, buf, n > 0 && (size_t)n < sizeof(buf) ? (size_t)n : strlen(buf));
}

static bool attr_equal(const struct dl_sched_attr *a, const struct dl_sched_attr *b)
{
	return a->sched_policy == b->sched_policy && a->sched_priority == b->sched_priority &&
	       a->sched_nice == b->sched_nice && a->sched_flags == b->sched_flags &&
	       a->sched_runtime == b->sched_runtime && a->sched_deadline == b->sched_deadline &&
	       a->sched_period == b->sched_period;
}

/* nobody with CAP_SYS_NICE raised as an ambient capability, kept across
 * the exec of a file that has none. */
static void as_ambient_nice_nobody(void)
{
	cap_value_t nice_cap = CAP_SYS_NICE;
	cap_t caps;

	as_setcap_nobody();
	caps = cap_get_proc();
	if (!caps || cap_set_flag(caps, CAP_INHERITABLE, 1, &nice_cap, CAP_SET) < 0 || cap_set_proc(caps) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0) < 0)
		_exit(122);
	cap_free(caps);
}

/* A process of uid that waits to be killed (no check assertion: this
 * runs in the namespace's own processes). */
static pid_t pauser(uid_t uid)
{
	int p[2];
	char c;
	pid_t pid;

	/* Returned once the process is uid's: a dl-run started at once must
	 * not find it still root's. */
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (!become(uid))
			_exit(120);
		if (write(p[1], "u", 1) != 1)
			_exit(121);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* pid 1 of the namespace: the race, played once; 0 when the victim was
 * left alone, else why not (on race_msg). */
static int race_in_namespace(const char *point)
{
	struct dl_sched_attr before, after, mine;
	struct sched_param fifo = { .sched_priority = 1 };
	char tid[16], last[16];
	pid_t target, run, victim;
	int status;

	/* /proc made private, not /: in a chroot (tests/distro) / is no mount
	 * point, and its propagation cannot be changed. */
	if (mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || mount("proc", "/proc", "proc", 0, NULL) < 0) {
		race_say("cannot mount /proc for the namespace: %s", strerror(errno));
		return 10;
	}
	target = pauser(nobody);
	if (dl_sys_getattr(target, &mine) < 0) {
		race_say("cannot read the target");
		return 10;
	}
	snprintf(tid, sizeof(tid), "%d", (int)target);
	run = fork();
	if (run == 0) {
		dup2(race_msg, 1);
		dup2(race_msg, 2);
		as_ambient_nice_nobody();
		setenv("LIBDL_TEST_STOP_AT", point, 1);
		execl(dlrun_plain, "dl-run", "-r", "1ms", "-p", "100ms", "--pid", tid, (char *)NULL);
		_exit(127);
	}
	if (waitpid(run, &status, WUNTRACED) != run || !WIFSTOPPED(status)) {
		race_say("dl-run did not stop at \"%s\" (status 0x%x)", point, status);
		kill(target, SIGKILL);
		return 11;
	}
	/* Stopped: its thread ends, and the id goes to another user's. */
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	snprintf(last, sizeof(last), "%d", (int)target - 1);
	if (dl_write_file("/proc/sys/kernel/ns_last_pid", last) < 0) {
		race_say("cannot write ns_last_pid: %s", dl_errmsg());
		kill(run, SIGKILL);
		return 12;
	}
	victim = pauser(OTHER_UID);
	if (victim != target || sched_setscheduler(victim, SCHED_FIFO, &fifo) < 0 ||
	    dl_sys_getattr(victim, &before) < 0) {
		race_say("the id %d went to %d (or it could not be made SCHED_FIFO)", (int)target, (int)victim);
		kill(run, SIGKILL);
		kill(victim, SIGKILL);
		return 13;
	}
	kill(run, SIGCONT);
	waitpid(run, &status, 0);
	if (dl_sys_getattr(victim, &after) < 0) {
		race_say("cannot read the victim back");
		return 14;
	}
	kill(victim, SIGKILL);
	if (!strcmp(point, "set")) {
		/* Stopped after the last question: the victim was changed, and
		 * is set back at once to what was read before the call, the
		 * ended thread's attributes (dl-run(1) SECURITY). */
		if (!attr_equal(&after, &mine)) {
			race_say("\nthe process that took thread %s's id was left with policy %u priority %u runtime %llu, not the attributes read before the call (policy %u priority %u)",
				 tid, after.sched_policy, after.sched_priority, (unsigned long long)after.sched_runtime,
				 mine.sched_policy, mine.sched_priority);
			return 17;
		}
	} else if (!attr_equal(&before, &after)) {
		race_say("\nanother user's process that took thread %s's id was changed: policy %u priority %u -> policy %u priority %u (runtime %llu); dl-run exited %d",
			 tid, before.sched_policy, before.sched_priority, after.sched_policy, after.sched_priority,
			 (unsigned long long)after.sched_runtime, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 15;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 125) {
		race_say("\ndl-run exited 0x%x, not 125", status);
		return 16;
	}
	return 0;
}

/* The race in a pid and mount namespace of its own; its messages in msg. */
static int race(const char *point, char *msg, size_t len)
{
	int p[2], status;
	ssize_t got;
	size_t used = 0;
	pid_t outer;

	ck_assert_int_eq(pipe(p), 0);
	outer = fork();
	if (outer == 0) {
		pid_t init;

		close(p[0]);
		race_msg = p[1];
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
			_exit(9);
		init = fork();
		if (init == 0)
			_exit(race_in_namespace(point));
		if (init < 0 || waitpid(init, &status, 0) != init)
			_exit(9);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 8);
	}
	ck_assert_int_gt(outer, 0);
	close(p[1]);
	while (used + 1 < len && (got = read(p[0], msg + used, len - used - 1)) > 0)
		used += (size_t)got;
	msg[used] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(outer, &status, 0), outer);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/* "held": stopped after the owner check, the process now at the id is
 * left exactly as it was.  "set", the moment left (dl-run(1) SECURITY):
 * stopped between the last question and the call, it is changed, then
 * found and set back at once, never left SCHED_DEADLINE. */
static const char *const race_points[] = { "held", "set" };

START_TEST(test_reused_id)
{
	char msg[4096];
	int rc = race(race_points[_i], msg, sizeof(msg));

	ck_assert_msg(rc == 0, "race at \"%s\": %d: %s", race_points[_i], rc, msg);
	ck_assert_msg(strstr(msg, "exited"), "dl-run did not say the thread exited: %s", msg);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("security");
	TCase *tc = tcase_create("setcap");
	TCase *tl = tcase_create("layout");
	struct passwd *pw = getpwnam("nobody");

	if (!pw)
		tl_skip_all("no user 'nobody' to run unprivileged tests as");
	if (access("/usr/sbin/setcap", X_OK))
		tl_skip_all("setcap (libcap2-bin) is missing: run ./bootstrap.sh as root");
	if (dl_cpuset_version() != 1)
		tl_skip_all("the layout cases need the host's cgroup v1 cpusets");
	tl_skip_if_layout();
	nobody = pw->pw_uid;
	nogroup = pw->pw_gid;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pid_attack_refused);
	tcase_add_test(tc, test_own_process_allowed);
	tcase_add_test(tc, test_setuid_refused);
	tcase_add_test(tc, test_default_policy);
	tcase_add_test(tc, test_policy_file);
	tcase_add_test(tc, test_escaped_names);
	tcase_add_test(tc, test_reclaim_needs_a_rule);
	tcase_add_test(tc, test_util_clamp_needs_a_rule);
	tcase_add_test(tc, test_charged_by_the_owner_rule);
	tcase_add_test(tc, test_group_lookups_fail_closed);
	tcase_add_test(tc, test_only_checked_threads_are_set);
	tcase_add_test(tc, test_concurrent_dl_runs_stay_within_the_policy);
	tcase_add_test(tc, test_turn_is_per_user);
	tcase_add_test(tc, test_rollback_spares_a_reused_id);
	tcase_add_loop_test(tc, test_reused_id, 0, ARRAY_SIZE(race_points));
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tl, setup, teardown);
	tcase_add_test(tl, test_lock_and_state);
	tcase_add_test(tl, test_partition_all_threads_rollback);
	suite_add_tcase(s, tl);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	/* Whatever a failed case left. */
	tl_layout_restore(NULL);
	unlink(POLICY);
	return ret;
}
