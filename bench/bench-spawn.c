/*
 * bench-spawn: time commands one after the other, each from its spawn to
 * its exit, without a shell.
 *
 *   bench-spawn CMD ARGS... [-- CMD ARGS...]...
 *
 * Prints one figure per command, in milliseconds, on one line separated
 * by commas; exits 1 when a command could not start or failed (its
 * status on stderr), after running the rest.  Each command is started
 * with posix_spawn (glibc: clone(CLONE_VM | CLONE_VFORK), as hyperfine
 * -N does) from this small process, so that what a shell adds (bash's
 * own fork: 3 to 4 ms a command on the project's VM) is counted for no
 * tool; the clock (CLOCK_MONOTONIC) starts right before the spawn and
 * stops when waitpid() returns.  Standard output and error go to
 * /dev/null and to this program's standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	int rc = 0, first = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-spawn CMD ARGS... [-- CMD ARGS...]...\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int i = 1; i < argc;) {
		int j = i, status = 0, err;
		double t0, t1;
		pid_t pid;

		while (j < argc && strcmp(argv[j], "--") != 0)
			j++;
		argv[j < argc ? j : argc] = NULL;
		t0 = now_ms();
		err = posix_spawnp(&pid, argv[i], &fa, NULL, argv + i, environ);
		if (err) {
			fprintf(stderr, "bench-spawn: cannot start %s: %s\n", argv[i], strerror(err));
			rc = 1;
		} else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "bench-spawn: %s failed (status 0x%x)\n", argv[i], (unsigned)status);
			rc = 1;
		}
		t1 = now_ms();
		printf("%s%.3f", first ? "" : ",", t1 - t0);
		first = 0;
		i = j + 1;
	}
	printf("\n");
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}
