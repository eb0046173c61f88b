/*
 * testlib.h: what the check suites share.
 *
 * Every suite speaks TAP (one line per test case) through dl_test_main().
 * Kernel suites run as root, one at a time (a lock), and check the
 * kernel's deadline accounting before and after: drift found is repaired
 * and reported as a TAP comment, not left for a later suite to trip on.
 */
#ifndef LIBDL_TESTLIB_H
#define LIBDL_TESTLIB_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "layout/layout.h"

enum tl_kind {
	TL_UNIT,   /* pure logic: runs anywhere */
	TL_KERNEL, /* real syscalls and cpusets: root, one suite at a time */
};

int tl_main(Suite *(*make)(void), enum tl_kind kind);
noreturn void tl_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The build tree's programs. */
const char *tl_builddir(void);
const char *tl_srcdir(void);     /* the source tree: $top_srcdir, else . */
const char *tl_tool(const char *name);   /* utils/NAME */
const char *tl_helper(const char *path); /* e.g. "tests/kernel/dl-spin" */
/* tests/bin/NAME: the tool built with the test hooks (tests/lib/hooks.c). */
const char *tl_test_tool(const char *name);
/* A folder any user can read and run from (0755, under /tmp), for what an
 * unprivileged step runs or reads: the build tree may sit in a folder only
 * root reads, as CI's clone does.  One per process, made at the first call
 * and removed when that process exits; NULL when it cannot be made. */
const char *tl_anyone_dir(void);
/* The file FROM copied into tl_anyone_dir() as NAME, mode 0755: its path,
 * or NULL when it cannot be copied (no test assertion: make() may call it). */
const char *tl_copy_for_anyone(const char *from, const char *name);
/* utils/NAME so copied; in a test, which fails when it cannot be. */
const char *tl_tool_for_anyone(const char *name);

/* Run argv to completion; its stdout and stderr into the buffers (either
 * may be NULL).  Returns the exit status, or 128 + signal. */
int tl_run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen);
/* Same, with an environment and a uid/gid to switch to first (-1: keep). */
int tl_run_as(char *const argv[], uid_t uid, gid_t gid, char *out, size_t outlen,
	      char *err, size_t errlen);
/* tl_run_as() (uid and gid -1: as the caller) with input as its stdin. */
int tl_run_input(char *const argv[], uid_t uid, gid_t gid, const char *input, char *out, size_t outlen,
		 char *err, size_t errlen);
/* Run the build tree's utils/TOOL with args (NULL-terminated). */
int tl_run_tool(const char *tool, char *const args[], char *out, size_t outlen,
		char *err, size_t errlen);
/* `dl-run OPTS -- sleep 30` in the background, once it is SCHED_DEADLINE. */
pid_t tl_dl_run_sleep(char *const opts[]);
/* tests/kernel/dl-spin with `threads` threads, their TIDs into tids;
 * asleep for good when `pause`; under taskset -c `cpu` unless NULL. */
pid_t tl_spawn_spin(int threads, bool pause, const char *cpu, pid_t *tids);
/* Start argv in the background; *out_fd (if given) reads its stdout. */
pid_t tl_spawn(char *const argv[], int *out_fd);
/* Read one line from fd (up to len-1 chars), waiting up to ms. */
int tl_read_line(int fd, char *buf, size_t len, int ms);
int tl_wait(pid_t pid);
void tl_kill(pid_t pid);

/* Poll until tid's policy is `policy` (or ms pass). */
bool tl_wait_policy(pid_t tid, int policy, int ms);
/* A field of /proc/PID/sched, e.g. "dl.runtime". */
int tl_proc_sched(pid_t pid, const char *field, uint64_t *val);
/* Effective capabilities of pid, from /proc/PID/status. */
int tl_cap_eff(pid_t pid, uint64_t *caps);
/* This process (root) becomes uid and gid, in groups alone, holding
 * CAP_SYS_NICE alone, effective: a program run with dl-run's file
 * capability.  False when a step failed. */
bool tl_become_with_nice(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups);
/* This process in a mount namespace of its own whose mounts reach no
 * other namespace: 0, or -errno.  In a chroot, whose / is no mount
 * point, only when no mount it sees is shared (the chroot was entered
 * from a private namespace, as build-deb.sh and the distro suites do). */
int tl_private_mounts(void);
/* fn in a child process, which checks each of its steps with TL_STEP:
 * true when every step passed, else false with the words of the one that
 * did not in msg (the step, and errno when it set one).  TL_STEP clears
 * errno first: a step that tests errno makes its call inside ok.
 * tl_in_child fails the test, saying what and those words; a macro, so
 * that the result is named after the suite's file. */
bool tl_child_ok(void (*fn)(void), char *msg, size_t len);
#define tl_in_child(fn, what)                                                   \
	do {                                                                    \
		char tl_said_[1024];                                            \
		ck_assert_msg(tl_child_ok(fn, tl_said_, sizeof(tl_said_)), "%s: %s", \
			      what, tl_said_);                                  \
	} while (0)
noreturn void tl_step_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define TL_STEP(ok, ...)                             \
	do {                                         \
		errno = 0;                           \
		if (!(ok))                           \
			tl_step_failed(__VA_ARGS__); \
	} while (0)

/* Background deadline hogs: each a child process of runtime/period;
 * -1 if refused.  _in: in layout member `where` (NULL: where it is),
 * with the library's answer ("ok" or why not) into why. */
pid_t tl_dl_hog(uint64_t runtime, uint64_t period);
pid_t tl_dl_hog_in(const char *where, uint64_t runtime, uint64_t period, char *why, size_t len);
/* What a tool could change, as text to compare: the cpuset tree with
 * each cpuset's settings and the layout's state file; the root domains'
 * total_bw and every deadline thread with its reservation. */
void tl_cpuset_snapshot(char *buf, size_t len);
void tl_dl_snapshot(char *buf, size_t len);
/* A child that makes and ends threads, 8 at a time, until killed; with
 * `deadline`, each thread takes a 0.1 ms / 50 ms reservation and sleeps
 * 1 ms first. */
pid_t tl_churn(bool deadline);
/* Host layouts (cgroup v1): partition0 on CPU 0 with the cluster the
 * rest, moving no task; and back to no layout, with the root cpuset's
 * sched_load_balance as root_lb (read before the suite; NULL: the layout
 * alone, noting a failed destroy). */
void tl_layout_cpu0(void);
void tl_layout_restore(const char *root_lb);
/* docs/kernel-notes.md, "Exit before a rebuild", for the suites that
 * corrupt the count on purpose (and repair it): a layout of a partition
 * of CPU 0 and the cluster the rest, moving no task; a 2.5 ms / 8 ms
 * task of the suite's own that exits in the cluster; then rebuild(), at
 * once.  -errno when the layout could not be made (with a note). */
int tl_exit_then_rebuild(void (*rebuild)(void));
/* Skip the whole suite where a dl-part layout is in place (the host's
 * own: the suites make and destroy theirs and never touch another). */
void tl_skip_if_layout(void);
/* Skip the whole suite unless this is a host the layout suites are
 * written for: cgroup v1 cpusets, 2 CPUs online, no layout in place. */
void tl_require_layout_host(void);
/* Settle: wait until no exited deadline task holds bandwidth. */
void tl_settle(void);

#endif
