/*
 * hooks.c: the test machinery of the layout steps, linked only into the
 * test builds of the tools (tests/bin/), never into the installed
 * library or tools.
 *
 *   LIBDL_TEST_FAIL_AT_STEP=N     step N of a create fails with EIO
 *   LIBDL_TEST_KILL_AFTER_STEP=N  the process is killed (SIGKILL) after step N
 *   LIBDL_TEST_FAIL_WRITE=N       the Nth system write (a cgroup made,
 *                                 written or removed, a task moved, the
 *                                 state saved) fails with EIO
 *   LIBDL_TEST_SIGNAL_AT_WRITE="N SIG"   signal SIG is sent to the process
 *                                 (kill(2)) just before its Nth system write
 *   LIBDL_TEST_SIGNAL_AFTER_STEP="N SIG" the same after step N of a create
 *                                 (SIGSTOP: a create stopped half-way, for
 *                                 systemd to stop its service)
 *   LIBDL_TEST_NO_PRECHECK=1      no check for conflicting cpusets first:
 *                                 the kernel's own verdict is read back
 *   LIBDL_TEST_LIBSYSTEMD=SONAME  load SONAME instead of libsystemd.so.0
 *                                 (one that does not exist: a systemd host
 *                                 without libsystemd0)
 *   LIBDL_TEST_LIBCGROUP=SONAME   load SONAME instead of libcgroup (one that
 *                                 does not exist: a host without libcgroup2)
 *   LIBDL_TEST_STOP_AT=POINT      the process stops itself (SIGSTOP) the
 *                                 first time a change of threads reaches
 *                                 POINT ("held", "set": bw/set.c)
 *   LIBDL_TEST_TASKS_DIR=DIR      publish and read the loops' counters
 *                                 under DIR instead of /run/libdl-tasks
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"

static int fail_at, kill_after, fail_write, writes;
static int sig_write, sig_write_sig, sig_step, sig_step_sig;

static int env_int(const char *name)
{
	const char *v = secure_getenv(name);

	return v ? atoi(v) : 0;
}

/* "N SIG": where, and which signal. */
static void env_signal(const char *name, int *at, int *sig)
{
	const char *v = secure_getenv(name);

	if (!v || sscanf(v, "%d %d", at, sig) != 2)
		*at = *sig = 0;
}

/* A signal from outside, as kill(1) would send it, with its default
 * action: one the test was started with ignored (a background job's
 * SIGINT) would test nothing. */
static void send(int sig)
{
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
}

static int step_begin(int step, const char *what)
{
	if (step == fail_at)
		return dl_fail(-EIO, "step %d (%s): failure injected by LIBDL_TEST_FAIL_AT_STEP", step, what);
	return 0;
}

static void step_done(int step, const char *what)
{
	(void)what;
	if (step == kill_after)
		raise(SIGKILL);
	if (step == sig_step)
		send(sig_step_sig);
}

static int fault(const char *site)
{
	if (++writes == sig_write)
		send(sig_write_sig);
	if (writes == fail_write)
		return dl_fail(-EIO, "%s: failure injected at system write %d by LIBDL_TEST_FAIL_WRITE", site, writes);
	return 0;
}

static const char *stop_at;

static void at(const char *point)
{
	if (stop_at && !strcmp(point, stop_at)) {
		stop_at = NULL;
		raise(SIGSTOP);
	}
}

static struct dl_test_hooks hooks = {
	.step_begin = step_begin,
	.step_done = step_done,
	.fault = fault,
	.at = at,
};

/* With LIBDL_TEST_FAIL_WRITE set, say how many writes there were, so a
 * test knows how far to count. */
static void report_writes(void)
{
	fprintf(stderr, "libdl-test: %d system writes\n", writes);
}

__attribute__((constructor)) static void install_hooks(void)
{
	fail_at = env_int("LIBDL_TEST_FAIL_AT_STEP");
	kill_after = env_int("LIBDL_TEST_KILL_AFTER_STEP");
	fail_write = env_int("LIBDL_TEST_FAIL_WRITE");
	env_signal("LIBDL_TEST_SIGNAL_AT_WRITE", &sig_write, &sig_write_sig);
	env_signal("LIBDL_TEST_SIGNAL_AFTER_STEP", &sig_step, &sig_step_sig);
	if (fail_write)
		atexit(report_writes);
	hooks.no_precheck = env_int("LIBDL_TEST_NO_PRECHECK") != 0;
	hooks.libsystemd = secure_getenv("LIBDL_TEST_LIBSYSTEMD");
	hooks.libcgroup = secure_getenv("LIBDL_TEST_LIBCGROUP");
	stop_at = secure_getenv("LIBDL_TEST_STOP_AT");
	hooks.tasks_dir = secure_getenv("LIBDL_TEST_TASKS_DIR");
	dl_test_hooks = &hooks;
}
