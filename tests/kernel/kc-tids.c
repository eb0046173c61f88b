/*
 * kc-tids: deadline threads that end in the two ways a thread id outlives
 * the thread that had it, and the id given again, for dl-stat --kernel's
 * suite (tests/kernel/kernel-count.sh): a counter that keeps its records
 * by thread id would give the dead thread's counts to the new one.
 *
 *   kc-tids exit    a child process, SCHED_DEADLINE (runtime 1ms,
 *                   deadline and period 10ms), runs 3 jobs (a 2ms sleep
 *                   each), then exits with 1 GiB of memory of its own to
 *                   free: from Linux 6.15 the kernel frees it after the
 *                   sched_process_exit tracepoint (exit_mm()), tens of
 *                   milliseconds of CPU time, so the exiting thread is
 *                   throttled there.  Reaped, it prints "dead TID".
 *   kc-tids exec    a thread that is not its process's leader,
 *                   SCHED_DEADLINE (the same), runs 3 jobs and execs this
 *                   program again: the exec makes it the leader, its id
 *                   the process's; its old id is free.  The new program
 *                   leaves SCHED_DEADLINE (a deadline task cannot fork)
 *                   and prints "dead TID" (the old id).
 *
 * Then each waits for a line on stdin and starts a process with that very
 * id (clone3() with set_tid: root), which takes SCHED_DEADLINE (the same
 * reservation) and sleeps in pause(), having run no job: it prints
 * "reused TID".  At the end of stdin it kills that process and exits.
 * Root; exit 1 with a message on a failure.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libdeadline.h"

#define MEM (1UL << 30)

static noreturn void fail(const char *what)
{
	fprintf(stderr, "kc-tids: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The calling thread's policy: SCHED_DEADLINE runtime 1ms, deadline and
 * period 10ms (dl true), or SCHED_OTHER. */
static void set_policy(int dl)
{
	struct dl_params p = { .runtime = 1000000, .deadline = 10000000, .period = 10000000 };

	if ((dl ? dl_set(0, &p) : dl_clear(0)) < 0) {
		fprintf(stderr, "kc-tids: %s\n", dl_errmsg());
		exit(1);
	}
}

/* Three jobs: each sleep blocks (a job's end) and wakes (the next). */
static void three_jobs(void)
{
	struct timespec ts = { 0, 2000000 };

	for (int i = 0; i < 3; i++)
		nanosleep(&ts, NULL);
}

static void exiting_child(void)
{
	char *m = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		fail("mmap");
	/* Small pages, each of them to free at the exit. */
	madvise(m, MEM, MADV_NOHUGEPAGE);
	memset(m, 1, MEM);
	set_policy(1);
	three_jobs();
	_exit(0);
}

static void *exec_thread(void *arg)
{
	char tid[32], *argv[] = { (char *)arg, "--execd", tid, NULL };

	snprintf(tid, sizeof(tid), "%d", (int)gettid());
	set_policy(1);
	three_jobs();
	execv("/proc/self/exe", argv);
	fail("execv");
}

/* clone3()'s arguments up to set_tid (CLONE_ARGS_SIZE_VER1, Linux 5.5),
 * spelled here: the C libraries differ in which header has them. */
struct kc_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size;
};

/* A process with id tid, under the reservation, asleep; its id. */
static pid_t reuse(pid_t tid)
{
	struct kc_clone_args ca = { .exit_signal = SIGCHLD, .set_tid = (uintptr_t)&tid, .set_tid_size = 1 };
	pid_t p = -1;

	/* The id is free once the thread was reaped; a moment more where
	 * the kernel still releases it (EEXIST). */
	for (int i = 0; i < 100; i++) {
		p = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		if (p >= 0 || errno != EEXIST)
			break;
		usleep(10000);
	}
	if (p < 0)
		fail("clone3 with set_tid");
	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		set_policy(1);
		for (;;)
			pause();
	}
	return p;
}

static int then_reuse(pid_t dead)
{
	char line[16];
	pid_t r;

	printf("dead %d\n", (int)dead);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	r = reuse(dead);
	printf("reused %d\n", (int)r);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	kill(r, SIGKILL);
	waitpid(r, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--execd") == 0) {
		/* The thread that exec'd, now its process's leader. */
		set_policy(0);
		return then_reuse((pid_t)atoi(argv[2]));
	}
	if (argc == 2 && strcmp(argv[1], "exit") == 0) {
		pid_t c = fork();
		int st;

		if (c < 0)
			fail("fork");
		if (c == 0)
			exiting_child();
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "kc-tids: the exiting child failed\n");
			return 1;
		}
		return then_reuse(c);
	}
	if (argc == 2 && strcmp(argv[1], "exec") == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, exec_thread, argv[0]) != 0)
			fail("pthread_create");
		pthread_join(t, NULL); /* ended by the exec */
		return 1;
	}
	fprintf(stderr, "usage: kc-tids exit|exec\n");
	return 2;
}
