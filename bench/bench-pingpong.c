/*
 * bench-pingpong: a load made of context switches, for experiment 10
 * (bench/kcount.sh): two processes hand one byte back and forth through
 * two pipes ROUNDS times; each round trip is two switches when both run
 * on one CPU (taskset -c N).  Prints the nanoseconds per round trip.
 *
 *   bench-pingpong ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long rounds = argc == 2 ? atol(argv[1]) : 0;
	int ping[2], pong[2];
	long long t0, t1;
	char c = 0;
	pid_t child;

	if (rounds <= 0) {
		fprintf(stderr, "usage: bench-pingpong ROUNDS\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		for (long i = 0; i < rounds; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_ns();
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	t1 = now_ns();
	waitpid(child, NULL, 0);
	printf("%.1f\n", (double)(t1 - t0) / (double)rounds);
	return 0;
}
