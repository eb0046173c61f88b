/*
 * dl-spin: a helper process for the kernel suites.
 *
 *   dl-spin THREADS     start THREADS-1 more threads, print "ready PID TID...";
 *                       every thread wakes every 10 ms until killed
 *   dl-spin --pause N   the same, but the threads sleep in pause() and
 *                       never wake
 *   dl-spin --yield N   with a reservation (from dl-run): N periods of
 *                       sched_yield(), then print "done"
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	int n;

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
