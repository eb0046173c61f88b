/*
 * dl-spin: a helper process for the kernel suites.
 *
 *   dl-spin THREADS     start THREADS-1 more threads, print "ready PID TID...";
 *                       every thread wakes every 10 ms until killed
 *   dl-spin --pause N   the same, but the threads sleep in pause() and
 *                       never wake
 *   dl-spin --yield N   with a reservation (from dl-run): N periods of
 *                       sched_yield(), then print "done"
 *   dl-spin --burn-after FIFO US [--leave]
 *                       sleep until a line comes through FIFO, then run
 *                       US microseconds of its own CPU time and exit, still
 *                       under its reservation: most of its runtime used, its
 *                       0-lag time lies far after the exit (the VM's
 *                       hotplug reproducer, tests/vm/guest/hotplug-exit.sh);
 *                       with --leave, it leaves SCHED_DEADLINE for
 *                       SCHED_OTHER just before it exits, as dl_clear(0) and
 *                       dl-load's tasks do
 *   dl-spin --miss FIFO N
 *                       a periodic loop (dl_periodic_start(3), sleep mode,
 *                       DL_PERIODIC_PUBLISH) under runtime 10ms, deadline
 *                       10ms, period 20ms, as root: prints "ready TID",
 *                       waits for a line through FIFO, then runs N jobs
 *                       of 15ms of its own CPU time each, longer than the
 *                       deadline, so that each one ends late whatever
 *                       else runs: exactly N jobs and N misses, which it
 *                       prints ("missed M of J") and keeps published
 *                       until it is killed
 *   dl-spin --budget N  a periodic loop (sleep mode) under runtime 10ms,
 *                       deadline 30ms, period 50ms, as root: after a
 *                       first job that does nothing (the kernel's first
 *                       period began at sched_setattr, before the loop's
 *                       first release, and the set-up used its runtime),
 *                       in each of N jobs it reads dl_periodic_budget(3),
 *                       spins 2ms of its own CPU time, reads it again,
 *                       and prints "job I release R t T left L deadline D
 *                       t T left L deadline D" (CLOCK_MONOTONIC ns; T just
 *                       before each reading), then "done"; "unsupported"
 *                       and no job where the kernel does not give it
 *   dl-spin --notify    a Type=notify service (tests/vm/guest/systemd-service.sh):
 *                       tells systemd READY=1, with STATUS= its policy as
 *                       sched_getscheduler(2) gives it, through
 *                       $NOTIFY_SOCKET from its own pid, then sleeps until
 *                       killed; exits 1 when it cannot
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "libdeadline.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started;
static pid_t tids[256];
static int never_wake;

static void idle(void)
{
	for (;;) {
		if (never_wake)
			pause();
		else
			usleep(10000);
	}
}

static void *thread(void *arg)
{
	pthread_mutex_lock(&lock);
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	started++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	idle();
	return NULL;
}

static long long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int burn_after(const char *fifo, long long us, int leave)
{
	char c;
	FILE *f = fopen(fifo, "r");
	long long end;

	if (!f || fread(&c, 1, 1, f) != 1) {
		perror(fifo);
		return 1;
	}
	fclose(f);
	end = cpu_us() + us;
	while (cpu_us() < end)
		;
	if (leave) {
		/* struct sched_attr, version 1: SCHED_OTHER, nice 0. */
		struct {
			uint32_t size, policy;
			uint64_t flags;
			int32_t nice;
			uint32_t priority;
			uint64_t runtime, deadline, period;
		} attr = { .size = sizeof(attr) };

		if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
			perror("sched_setattr");
			return 1;
		}
	}
	return 0;
}

static int miss(const char *fifo, int jobs)
{
	struct dl_params p = { .runtime = 10000000, .deadline = 10000000, .period = 20000000 };
	const struct dl_periodic_stats *st;
	const struct dl_job *job;
	struct dl_periodic *pt;
	long long end;
	char c;
	FILE *f;

	if (dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP | DL_PERIODIC_PUBLISH, 0) < 0) {
		fprintf(stderr, "dl-spin: %s\n", dl_errmsg());
		return 1;
	}
	printf("ready %d\n", (int)syscall(SYS_gettid));
	fflush(stdout);
	f = fopen(fifo, "r");
	if (!f || fread(&c, 1, 1, f) != 1) {
		perror(fifo);
		return 1;
	}
	fclose(f);
	for (int i = 0; i < jobs; i++) {
		end = cpu_us() + 15000;
		while (cpu_us() < end)
			;
		dl_periodic_next(pt, &job);
	}
	st = dl_periodic_stats(pt);
	printf("missed %llu of %llu\n", (unsigned long long)st->misses, (unsigned long long)st->jobs);
	fflush(stdout);
	never_wake = 1;
	idle();
	return 0;
}

static int budget(int jobs)
{
	struct dl_params p = { .runtime = 10000000, .deadline = 30000000, .period = 50000000 };
	struct dl_budget b[2];
	const struct dl_job *job;
	struct dl_periodic *pt;
	struct timespec ts;
	long long t[2], end;
	int err;

	if (dl_periodic_start(&pt, &p, DL_PERIODIC_SLEEP, 0) < 0) {
		fprintf(stderr, "dl-spin: %s\n", dl_errmsg());
		return 1;
	}
	if (dl_get_budget(0, &b[0]) == -ENOTSUP) {
		puts("unsupported");
		dl_periodic_free(pt);
		return 0;
	}
	dl_periodic_next(pt, &job);
	for (int i = 1; i <= jobs; i++) {
		for (int k = 0; k < 2; k++) {
			if (k) {
				end = cpu_us() + 2000;
				while (cpu_us() < end)
					;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			t[k] = ts.tv_sec * 1000000000LL + ts.tv_nsec;
			err = dl_periodic_budget(pt, &b[k]);
			if (err < 0) {
				fprintf(stderr, "dl-spin: %s\n", dl_errmsg());
				return 1;
			}
		}
		dl_periodic_next(pt, &job);
		printf("job %d release %llu", i, (unsigned long long)job->release);
		for (int k = 0; k < 2; k++)
			printf(" t %lld left %lld deadline %llu", t[k], (long long)b[k].runtime,
			       (unsigned long long)b[k].deadline);
		putchar('\n');
	}
	puts("done");
	dl_periodic_free(pt);
	return 0;
}

/*
 * sd_notify(3)'s protocol without libsystemd, which the VMs' build
 * may not link: one datagram to the socket $NOTIFY_SOCKET names (a
 * path, or '@' for the abstract namespace).  systemd takes it from the
 * service's main pid only (NotifyAccess=main): this process, which
 * dl-run became by exec.
 */
static int notify(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[128];
	socklen_t len;
	int fd, pol = sched_getscheduler(0);

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "dl-spin: no usable NOTIFY_SOCKET (%s)\n", path ? path : "unset");
		return 1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=policy %d%s", pol & ~SCHED_RESET_ON_FORK,
		 pol & SCHED_RESET_ON_FORK ? " reset-on-fork" : "");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, len) < 0) {
		perror("dl-spin: notify");
		return 1;
	}
	close(fd);
	never_wake = 1;
	idle();
	return 0;
}

int main(int argc, char **argv)
{
	int n;

	if (argc == 2 && strcmp(argv[1], "--notify") == 0)
		return notify();

	if (argc == 4 && strcmp(argv[1], "--miss") == 0)
		return miss(argv[2], atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "--budget") == 0)
		return budget(atoi(argv[2]));

	if ((argc == 4 || (argc == 5 && strcmp(argv[4], "--leave") == 0)) &&
	    strcmp(argv[1], "--burn-after") == 0)
		return burn_after(argv[2], atoll(argv[3]), argc == 5);

	if (argc == 3 && strcmp(argv[1], "--yield") == 0) {
		for (int i = atoi(argv[2]); i > 0; i--)
			sched_yield();
		puts("done");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--pause") == 0) {
		never_wake = 1;
		argv++;
		argc--;
	}
	n = argc > 1 ? atoi(argv[1]) : 1;
	if (n < 1 || n > 256)
		return 2;
	tids[0] = (pid_t)syscall(SYS_gettid);
	started = 1;
	for (long i = 1; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	pthread_mutex_lock(&lock);
	while (started < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("ready");
	for (int i = 0; i < n; i++)
		printf(" %d", (int)tids[i]);
	printf("\n");
	fflush(stdout);
	idle();
}
