/*
 * dl-run against the running kernel: the command runs under exactly the
 * reservation asked for, as the same process; bad input is refused with
 * the rule that broke; the exit status is the command's, dl-run's own
 * failures 125 and a command that cannot run 126 or 127, as env(1)'s.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL

static char out[16384], err[16384];

static int dl_run(char *const args[])
{
	return tl_run_tool("dl-run", args, out, sizeof(out), err, sizeof(err));
}

#define DL_RUN(...) dl_run((char *[]){ __VA_ARGS__, NULL })


static void assert_comm(pid_t pid, const char *comm)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	/* exec replaced dl-run: the same PID now runs the command. */
	for (int i = 0; i < 200; i++) {
		if (dl_read_file(path, buf, sizeof(buf)) == 0 && strcmp(buf, comm) == 0)
			return;
		dl_sleep_ns(5 * MS);
	}
	ck_abort_msg("pid %d runs \"%s\", not \"%s\"", (int)pid, buf, comm);
}

START_TEST(test_exact_parameters)
{
	struct dl_params got;
	uint64_t v;
	pid_t pid = tl_dl_run_sleep((char *[]){ "-r", "2.5ms", "-d", "8ms", "-p", "20ms", NULL });

	assert_comm(pid, "sleep");
	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 2500000);
	ck_assert_uint_eq(got.deadline, 8 * MS);
	ck_assert_uint_eq(got.period, 20 * MS);
	ck_assert_uint_eq(got.flags, 0);
	ck_assert_int_eq(tl_proc_sched(pid, "policy", &v), 0);
	ck_assert_uint_eq(v, 6);
	/* /proc shows the runtime left in the current period: signed, below
	 * zero after an overrun (exec's page faults on a busy machine). */
	ck_assert_int_eq(tl_proc_sched(pid, "dl.runtime", &v), 0);
	ck_assert_int_le((int64_t)v, 2500000);
	tl_kill(pid);
}
END_TEST

START_TEST(test_bare_ns_and_defaults)
{
	struct dl_params got;
	pid_t pid = tl_dl_run_sleep((char *[]){ "--runtime", "1000000", "--period", "10000000", NULL });

	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 1 * MS);
	ck_assert_uint_eq(got.deadline, 10 * MS);
	ck_assert_uint_eq(got.period, 10 * MS);
	tl_kill(pid);
}
END_TEST

START_TEST(test_flags)
{
	struct dl_params got;
	pid_t pid = tl_dl_run_sleep((char *[]){ "-r", "1ms", "-p", "10ms", "-R", "--reclaim",
					  "--overrun-signal", NULL });

	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.flags, DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN);
	tl_kill(pid);
}
END_TEST

START_TEST(test_util_clamp)
{
	bool have = access("/proc/sys/kernel/sched_util_clamp_min", F_OK) == 0;
	int rc = DL_RUN("-r", "1ms", "-p", "10ms", "--util-min", "128", "--util-max", "512",
			"--", "/bin/true");

	if (have) {
		ck_assert_int_eq(rc, 0);
	} else {
		ck_assert_int_eq(rc, 125);
		ck_assert_msg(strstr(err, "CONFIG_UCLAMP_TASK"), "%s", err);
	}
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--util-min", "2000", "/bin/true"), 125);
	ck_assert_msg(strstr(err, "--util-min: 2000 is above the maximum of 1024"), "%s", err);
}
END_TEST

START_TEST(test_verbose_reports_the_kernel)
{
	ck_assert_int_eq(DL_RUN("-v", "-r", "3ms", "-p", "30ms", "--", "/bin/true"), 0);
	ck_assert_msg(strstr(err, "SCHED_DEADLINE runtime 3ms, deadline 30ms, period 30ms (0.1000 of a CPU)"),
		      "%s", err);
	ck_assert_str_eq(out, ""); /* stdout is the command's */
}
END_TEST

START_TEST(test_exit_status)
{
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/bin/sh", "-c", "exit 7"), 7);
	/* The command's 1 and 2 are its own: dl-run's failures are never 1 or 2. */
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/bin/sh", "-c", "exit 1"), 1);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/bin/sh", "-c", "exit 2"), 2);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/bin/false"), 1);
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--bogus", "--", "/bin/true"), 125);
	ck_assert_msg(strstr(err, "unknown option '--bogus'"), "%s", err);
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/nonexistent/cmd"), 127);
	ck_assert_msg(strstr(err, "command not found"), "%s", err);
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--", "/etc/passwd"), 126);
	ck_assert_msg(strstr(err, "cannot run /etc/passwd"), "%s", err);
}
END_TEST

static const struct {
	const char *args[8];
	const char *says;
} bad[] = {
	{ { "-r", "1ms", "-p", "50us", "/bin/true" }, "runtime 1ms is longer than the deadline 50us" },
	{ { "-r", "20us", "-p", "50us", "/bin/true" }, "period 50us is below the kernel's minimum of 100us" },
	{ { "-r", "1ms", "-p", "5s", "/bin/true" }, "period 5s is above the kernel's maximum" },
	{ { "-r", "1000", "-p", "10ms", "/bin/true" }, "runtime 1000ns is below the kernel's minimum of 1024ns" },
	{ { "-r", "3ms", "-d", "2ms", "-p", "10ms", "/bin/true" }, "runtime 3ms is longer than the deadline 2ms" },
	{ { "-r", "1ms", "-d", "20ms", "-p", "10ms", "/bin/true" }, "deadline 20ms is longer than the period 10ms" },
	{ { "-r", "2mss", "-p", "10ms", "/bin/true" }, "--runtime: invalid time \"2mss\": unknown unit \"mss\"" },
	{ { "-r", "-1ms", "-p", "10ms", "/bin/true" }, "--runtime: invalid time \"-1ms\": times cannot be negative" },
	{ { "-r", "1ms", "-p", "99999999999999999999", "/bin/true" }, "--period: invalid time" },
	{ { "-p", "10ms", "/bin/true" }, "no runtime" },
	{ { "-r", "1ms", "/bin/true" }, "no deadline or period" },
	{ { "-r", "1ms", "-p", "10ms" }, "no COMMAND" },
	{ { "-r", "1ms", "-p", "10ms", "--all-threads", "/bin/true" }, "--all-threads needs --pid" },
	{ { "-r", "1ms", "-p", "10ms", "--pid", "0" }, "0 is not a process id" },
	{ { "-r", "1ms", "-p", "10ms", "--pid", "1", "/bin/true" }, "not both" },
	{ { "--bogus" }, "unknown option '--bogus'" },
	{ { "-r" }, "option '-r' needs a value" },
	{ { "-x" }, "unknown option '-x'" },
};

/* Refused before any syscall, with the rule and the numbers; exit 125. */
START_TEST(test_bad_usage)
{
	char *args[10];
	int n = 0;

	for (; n < 8 && bad[_i].args[n]; n++)
		args[n] = (char *)bad[_i].args[n];
	args[n] = NULL;
	ck_assert_int_eq(dl_run(args), 125);
	ck_assert_msg(strstr(err, bad[_i].says), "case %d: \"%s\" lacks \"%s\"", _i, err, bad[_i].says);
	ck_assert_msg(strncmp(err, "dl-run: ", 8) == 0, "%s", err);
}
END_TEST

/* A deadline task cannot fork: the shell says "Cannot fork"; with -R the
 * children start as SCHED_OTHER and it works. */
START_TEST(test_fork_needs_reset_on_fork)
{
	int rc = DL_RUN("-r", "1ms", "-p", "10ms", "--", "/bin/sh", "-c", "/bin/true && echo forked");

	ck_assert_int_ne(rc, 0);
	ck_assert_msg(strstr(err, "Cannot fork") || strstr(err, "fork"), "%s", err);
	ck_assert_ptr_null(strstr(out, "forked"));
	rc = DL_RUN("-R", "-r", "1ms", "-p", "10ms", "--", "/bin/sh", "-c", "/bin/true && echo forked");
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "forked\n");
}
END_TEST

START_TEST(test_help_mentions_fork)
{
	ck_assert_int_eq(DL_RUN("--help"), 0);
	ck_assert(strstr(out, "EAGAIN"));
	ck_assert(strstr(out, "--reset-on-fork"));
	ck_assert(strstr(out, "sh ./job.sh"));
	ck_assert_int_eq(DL_RUN("--version"), 0);
	ck_assert(strstr(out, PACKAGE_VERSION));
}
END_TEST

START_TEST(test_pid_one_thread)
{
	char pidstr[16];
	struct dl_params got;
	pid_t tids[3];
	pid_t pid = tl_spawn_spin(3, false, NULL, tids);

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	ck_assert_int_eq(DL_RUN("-r", "2ms", "-p", "40ms", "--pid", pidstr), 0);
	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, 2 * MS);
	ck_assert_uint_eq(got.period, 40 * MS);
	/* Without --all-threads only PID's own thread changes, as in chrt. */
	ck_assert_int_eq(dl_get(tids[1], &got), SCHED_OTHER);
	ck_assert_int_eq(dl_get(tids[2], &got), SCHED_OTHER);
	tl_kill(pid);
}
END_TEST

START_TEST(test_pid_all_threads)
{
	char pidstr[16];
	struct dl_params got;
	pid_t tids[4];
	pid_t pid = tl_spawn_spin(4, false, NULL, tids);

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	ck_assert_int_eq(DL_RUN("-v", "-r", "1ms", "-d", "5ms", "-p", "50ms", "--pid", pidstr, "--all-threads"), 0);
	for (int i = 0; i < 4; i++) {
		char want[128];

		ck_assert_int_eq(dl_get(tids[i], &got), DL_SCHED_DEADLINE);
		ck_assert_uint_eq(got.runtime, 1 * MS);
		ck_assert_uint_eq(got.deadline, 5 * MS);
		ck_assert_uint_eq(got.period, 50 * MS);
		snprintf(want, sizeof(want), "thread %d: SCHED_DEADLINE runtime 1ms", (int)tids[i]);
		ck_assert_msg(strstr(err, want), "%s", err);
	}
	tl_kill(pid);
}
END_TEST

START_TEST(test_pid_gone)
{
	pid_t dead = fork();
	char pidstr[16];

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)dead);
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--pid", pidstr), 125);
	ck_assert_msg(strstr(err, "no thread"), "%s", err);
	ck_assert_int_eq(DL_RUN("-r", "1ms", "-p", "10ms", "--pid", pidstr, "-a"), 125);
	ck_assert_msg(strstr(err, "no process"), "%s", err);
}
END_TEST

/* taskset-style affinity narrower than the root domain: EPERM, explained;
 * a refusal, dl-run's 125, which a command of its own never returned. */
START_TEST(test_affinity_eperm)
{
	dl_cpus_t online;
	int rc;

	dl_cpus_online(&online);
	if (dl_cpus_count(&online) < 2)
		return;
	rc = tl_run((char *[]){ "/usr/bin/taskset", "-c", "0", (char *)tl_tool("dl-run"), "-r", "1ms", "-p", "10ms",
				"--", "/bin/true", NULL }, out, sizeof(out), err, sizeof(err));
	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "CPU affinity (CPUs 0) does not cover its root domain"), "%s", err);
	ck_assert_msg(strstr(err, "cpuset partition"), "%s", err);
}
END_TEST

START_TEST(test_check_changes_nothing)
{
	struct dl_rd before, after;

	tl_settle();
	ck_assert_int_eq(dl_rd_of_cpu(0, &before), 0);
	ck_assert_int_eq(DL_RUN("--check", "-r", "2ms", "-p", "10ms"), 0);
	ck_assert_msg(strstr(out, "admissible: runtime 2ms, deadline 10ms, period 10ms"), "%s", out);
	ck_assert_msg(strstr(out, "free"), "%s", out);
	ck_assert_int_eq(dl_rd_of_cpu(0, &after), 0);
	ck_assert_int_eq(before.total_bw, after.total_bw);
	ck_assert_int_eq(DL_RUN("--check", "-r", "1ms", "-p", "50us"), 125); /* still validated */
}
END_TEST

/*
 * A query mounts nothing (dl-run(1) --check, dl_rd_list(3)): in a mount
 * namespace of its own where debugfs is not mounted (the host's mounts
 * are left alone), --check judges from what it can read, says the
 * figures are computed, and debugfs is still not mounted after it.
 */
START_TEST(test_check_mounts_nothing)
{
	char script[1024];
	int rc;

	/* Only /sys made private, not /: in a chroot / is no mount point, and
	 * its propagation cannot be changed (tests/distro). */
	snprintf(script, sizeof(script),
		 "mount --make-rprivate /sys || exit 91; "
		 "umount -l /sys/kernel/debug 2>/dev/null; "
		 "grep -q ' - debugfs ' /proc/self/mountinfo && { echo 'debugfs still mounted'; exit 90; }; "
		 "'%s' --check -r 2ms -p 10ms; rc=$?; "
		 "if grep -q ' - debugfs ' /proc/self/mountinfo; then echo 'debugfs: mounted'; else echo 'debugfs: not mounted'; fi; "
		 "exit $rc",
		 tl_tool("dl-run"));
	rc = tl_run((char *[]){ "/usr/bin/unshare", "--mount", "--propagation", "unchanged", "/bin/sh", "-c", script,
				NULL },
		    out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "debugfs: not mounted"), "dl-run --check mounted debugfs: %s", out);
	ck_assert_msg(strstr(out, "admissible: runtime 2ms"), "%s", out);
	ck_assert_msg(strstr(out, "(computed)"), "the figures are not said to be computed: %s", out);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("dl-run");
	TCase *tc = tcase_create("command");

	tcase_add_test(tc, test_exact_parameters);
	tcase_add_test(tc, test_bare_ns_and_defaults);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_util_clamp);
	tcase_add_test(tc, test_verbose_reports_the_kernel);
	tcase_add_test(tc, test_exit_status);
	tcase_add_loop_test(tc, test_bad_usage, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_fork_needs_reset_on_fork);
	tcase_add_test(tc, test_help_mentions_fork);
	tcase_add_test(tc, test_affinity_eperm);
	tcase_add_test(tc, test_check_changes_nothing);
	tcase_add_test(tc, test_check_mounts_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("pid");
	tcase_add_test(tc, test_pid_one_thread);
	tcase_add_test(tc, test_pid_all_threads);
	tcase_add_test(tc, test_pid_gone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
