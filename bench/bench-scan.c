/*
 * bench-scan: dl-stat's scan of many threads against ps(1)'s.
 *
 * Starts THREADS threads (default 10000) in a child process, then runs
 * `dl-stat --tasks` and `ps -eLo pid,tid,cls,comm` ROUNDS times each,
 * alternating, and reports the median wall time and the peak RSS of each
 * and their ratio.  Target: dl-stat no slower than ps (ratio <= 1.00);
 * exit 1 when it misses it.
 *
 *   bench-scan DL-STAT [THREADS [ROUNDS]]
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started;

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	started++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall time of one run, its peak RSS in KiB through *rss. */
static double run(char *const argv[], long *rss)
{
	struct rusage ru;
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench-scan: %s failed\n", argv[0]);
		exit(2);
	}
	*rss = ru.ru_maxrss;
	return now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 10000;
	int rounds = argc > 3 ? atoi(argv[3]) : 15;
	char *dlstat[] = { argv[1], "--tasks", NULL };
	char *ps[] = { "ps", "-eLo", "pid,tid,cls,comm", NULL };
	double *td, *tp, ratio;
	long rd = 0, rp = 0, r;
	pthread_attr_t attr;
	int ready[2];
	pid_t holder;
	char c;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-scan DL-STAT [THREADS [ROUNDS]]\n");
		return 2;
	}
	td = calloc((size_t)rounds, sizeof(*td));
	tp = calloc((size_t)rounds, sizeof(*tp));
	/* The threads live in a child: the measured programs are forked from
	 * this small process, whose memory a fork would count as theirs. */
	if (pipe(ready) < 0)
		return 2;
	holder = fork();
	if (holder == 0) {
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (int i = 1; i < threads; i++) {
			pthread_t t;
			int e = pthread_create(&t, &attr, idle_thread, NULL);

			if (e) {
				fprintf(stderr, "bench-scan: thread %d: %s\n", i, strerror(e));
				_exit(2);
			}
		}
		pthread_mutex_lock(&lock);
		while (started < threads - 1)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "bench-scan: the threads did not start\n");
		return 2;
	}

	run(dlstat, &r); /* warm the caches for both */
	run(ps, &r);
	for (int i = 0; i < rounds; i++) {
		td[i] = run(dlstat, &r);
		rd = r > rd ? r : rd;
		tp[i] = run(ps, &r);
		rp = r > rp ? r : rp;
	}
	qsort(td, (size_t)rounds, sizeof(*td), cmp);
	qsort(tp, (size_t)rounds, sizeof(*tp), cmp);
	ratio = td[rounds / 2] / tp[rounds / 2];
	printf("scan of %d threads, median of %d runs:\n", threads, rounds);
	/* The fastest and slowest runs: the spread the report judges by. */
	printf("  dl-stat --tasks              %8.2f ms   peak RSS %6ld KiB   range %.2f-%.2f ms\n",
	       td[rounds / 2] * 1e3, rd, td[0] * 1e3, td[rounds - 1] * 1e3);
	printf("  ps -eLo pid,tid,cls,comm     %8.2f ms   peak RSS %6ld KiB   range %.2f-%.2f ms\n",
	       tp[rounds / 2] * 1e3, rp, tp[0] * 1e3, tp[rounds - 1] * 1e3);
	printf("  ratio dl-stat/ps             %8.2f     (target: <= 1.00) %s\n", ratio, ratio <= 1.0 ? "met" : "MISSED");
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return ratio <= 1.0 ? 0 : 1;
}
