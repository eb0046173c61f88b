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
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "testlib.h"

#define POLICY "/run/libdl-test-dl-run.conf"
#define CPUSET "/sys/fs/cgroup/cpuset"

static char dir[] = "/tmp/libdl-sec-XXXXXX";
static char out[16384], err[16384];
static char dlrun[256], dlrun_pol[256];
static uid_t nobody;
static gid_t nogroup;

static void copy(const char *from, const char *to)
{
	ck_assert_int_eq(tl_run((char *[]){ "/bin/cp", (char *)from, (char *)to, NULL }, NULL, 0, err, sizeof(err)), 0);
}

static int setcap(const char *file)
{
	return tl_run((char *[]){ "/usr/sbin/setcap", "cap_sys_nice+ep", (char *)file, NULL }, NULL, 0, err, sizeof(err));
}

/* setcap copies of the installed dl-run and of the test build that reads
 * its policy from POLICY, where nobody can reach them. */
static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(dlrun, sizeof(dlrun), "%s/dl-run", dir);
	snprintf(dlrun_pol, sizeof(dlrun_pol), "%s/dl-run-policy", dir);
	copy(tl_tool("dl-run"), dlrun);
	copy(tl_test_tool("dl-run"), dlrun_pol);
	ck_assert_int_eq(setcap(dlrun), 0);
	ck_assert_int_eq(setcap(dlrun_pol), 0);
	unlink(POLICY);
}

static void teardown(void)
{
	unlink(POLICY);
	tl_run((char *[]){ "/bin/rm", "-rf", dir, NULL }, NULL, 0, NULL, 0);
}

static int as_nobody(char *const argv[])
{
	return tl_run_as(argv, nobody, nogroup, out, sizeof(out), err, sizeof(err));
}

/* A sleep of the suite's own, as root or as nobody. */
static pid_t sleeper(bool as_nobody_user)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (as_nobody_user && (setgroups(0, NULL) < 0 || setgid(nogroup) < 0 || setuid(nobody) < 0))
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
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "belongs to root") && strstr(err, "not to the caller (nobody"), "%s", err);
	ck_assert_int_eq(policy_of(victim), 0); /* still SCHED_OTHER */
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "1s", "--pid", pid, "--all-threads", NULL });
	ck_assert_int_eq(rc, 1);
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
	ck_assert_int_eq(rc, 1);
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
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "above the 0.2500 allowed for one by the built-in policy"), "%s", err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "100us", "-p", "500us", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 1);
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
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "refused by " POLICY ", line 2 (deny all)"), "%s", err);

	write_policy("allow user nobody max-task=0.05 max-user=5% min-period=5ms\ndeny all\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "above the 0.0500 allowed for one by " POLICY ", line 1"), "%s", err);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "100us", "-p", "2ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 1 && strstr(err, "shorter than the 5ms"), "%s", err);
	/* Per user: one 0.04 reservation held, a second one is refused. */
	held = sleeper(true);
	snprintf(pid, sizeof(pid), "%d", (int)held);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--pid", pid, NULL });
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_int_eq(policy_of(held), DL_SCHED_DEADLINE);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "400us", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "your deadline threads hold 0.0400 of a CPU"), "%s", err);
	/* --check says the policy's verdict too. */
	rc = as_nobody((char *[]){ dlrun_pol, "--check", "-r", "400us", "-p", "10ms", NULL });
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "policy: refused"), "%s", out);
	tl_kill(held);

	/* A group rule; nobody is not in group root. */
	write_policy("allow group root\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 1 && strstr(err, "no rule of " POLICY " allows your user"), "%s", err);

	/* A file others may write is not trusted; bad lines are named. */
	write_policy("allow all\n", 0666);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 1 && strstr(err, "cannot be trusted") && strstr(err, "chmod 644"), "%s", err);
	write_policy("allow all\nallow all max-task=2\n", 0644);
	rc = as_nobody((char *[]){ dlrun_pol, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL });
	ck_assert_msg(rc == 1 && strstr(err, POLICY ", line 2: max-task=2"), "%s", err);
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

		if (setgroups(0, NULL) < 0 || setgid(nogroup) < 0 || setuid(nobody) < 0)
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
		if (setgroups(0, NULL) < 0 || setgid(nogroup) < 0 || setuid(nobody) < 0)
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
	ck_assert_int_eq(rc, 1);
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

	snprintf(evil, sizeof(evil), "%s/\033[2J\033]0;x\007", dir);
	copy("/bin/sleep", evil);
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

/* nobody's process: its main thread, then A, then B (ids rising). */
static pid_t rollback_target(int report)
{
	pid_t pid;

	ck_assert_int_eq(pipe(end_a), 0);
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		if (setgroups(0, NULL) < 0 || setgid(nogroup) < 0 || setuid(nobody) < 0)
			_exit(120);
		pthread_create(&t, NULL, thread_a, NULL);
		while (!__atomic_load_n(&a_tid, __ATOMIC_SEQ_CST))
			usleep(1000);
		pthread_create(&t, NULL, thread_b, NULL);
		usleep(50000);
		(void)!write(report, &a_tid, sizeof(a_tid));
		for (;;)
			pause();
	}
	ck_assert_int_gt(pid, 0);
	close(end_a[0]);
	return pid;
}

/* The library's caller: nobody, holding CAP_SYS_NICE alone. */
static void as_setcap_nobody(void)
{
	cap_value_t nice_cap = CAP_SYS_NICE;
	cap_t caps;

	if (prctl(PR_SET_KEEPCAPS, 1) < 0 || setgroups(0, NULL) < 0 || setgid(nogroup) < 0 || setuid(nobody) < 0)
		_exit(120);
	caps = cap_init();
	if (!caps || cap_set_flag(caps, CAP_PERMITTED, 1, &nice_cap, CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, 1, &nice_cap, CAP_SET) < 0 || cap_set_proc(caps) < 0)
		_exit(121);
	cap_free(caps);
}

START_TEST(test_rollback_spares_a_reused_id)
{
	bool reused = false;

	for (int tries = 0; tries < 10 && !reused; tries++) {
		struct dl_params p = { .runtime = 1000000, .period = 100000000 };
		int report[2], ready[2], rc;
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
		ck_assert_int_eq(pipe(ready), 0);
		other = fork();
		if (other == 0) {
			struct sched_param sp = { 0 };

			if (sched_setscheduler(0, SCHED_BATCH, &sp) < 0 || setgroups(0, NULL) < 0 ||
			    setgid(OTHER_UID) < 0 || setuid(OTHER_UID) < 0)
				_exit(120);
			(void)!write(ready[1], "r", 1);
			for (;;)
				pause();
		}
		ck_assert_int_eq(read(ready[0], &c, 1), 1);
		close(ready[0]);
		close(ready[1]);
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
	if (access("/run/libdl/layout", F_OK) == 0)
		tl_skip_all("a dl-part layout is in place on this machine: the test will not touch it");
	nobody = pw->pw_uid;
	nogroup = pw->pw_gid;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pid_attack_refused);
	tcase_add_test(tc, test_own_process_allowed);
	tcase_add_test(tc, test_setuid_refused);
	tcase_add_test(tc, test_default_policy);
	tcase_add_test(tc, test_policy_file);
	tcase_add_test(tc, test_escaped_names);
	tcase_add_test(tc, test_rollback_spares_a_reused_id);
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
	if (access("/run/libdl/layout", F_OK) == 0)
		dl_layout_destroy(NULL, NULL);
	unlink(POLICY);
	return ret;
}
