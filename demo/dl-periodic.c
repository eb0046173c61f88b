/*
 * dl-periodic: a periodic deadline job that measures itself.
 *
 * Each job burns --work of CPU time, then waits for its next period
 * (dl_periodic_next(), sched_yield() underneath).  At the end it prints
 * the reservation as the kernel reports it and the jobs' response times
 * (from the period's start) and deadline misses.  Started by dl-run it
 * adopts dl-run's reservation; with -r/-d/-p it sets its own.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct ctl {
	struct dl_params params;
	bool own_params;
	uint64_t work;
	uint64_t jobs;
	const char *name;
	bool quiet;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void burn(uint64_t ns)
{
	uint64_t until = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < until)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* dl.runtime and friends, as /proc/self/sched shows them. */
static void print_proc_sched(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/sched", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "policy", 6) == 0 || strncmp(line, "dl.", 3) == 0)
			printf("  /proc/self/sched: %s", line);
	fclose(f);
}

static noreturn void usage(void)
{
	printf("Usage: %s [-r TIME -p TIME [-d TIME]] [--work TIME] [--jobs N] [--name NAME] [--quiet]\n"
	       "Run N periodic jobs of --work CPU time each and report response times.\n",
	       program_name);
	exit(EXIT_SUCCESS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runtime", required_argument, NULL, 'r' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "period", required_argument, NULL, 'p' },
		{ "work", required_argument, NULL, 'w' },
		{ "jobs", required_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl ctl = { .work = 1000000, .jobs = 200, .name = "job" };
	struct dl_periodic pt;
	struct dl_params got;
	uint64_t *resp, misses = 0, skipped = 0, sum = 0;
	char a[32], b[32], c[32], d[32], e[32];
	int opt;

	util_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "+:r:d:p:w:n:N:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			ctl.params.runtime = opt_time("--runtime", optarg);
			ctl.own_params = true;
			break;
		case 'd':
			ctl.params.deadline = opt_time("--deadline", optarg);
			break;
		case 'p':
			ctl.params.period = opt_time("--period", optarg);
			break;
		case 'w':
			ctl.work = opt_time("--work", optarg);
			break;
		case 'n':
			ctl.jobs = opt_uint("--jobs", optarg, 10000000);
			break;
		case 'N':
			ctl.name = optarg;
			break;
		case 'q':
			ctl.quiet = true;
			break;
		case 'h':
			usage();
		default:
			bad_option(opt, argv);
		}
	}
	if (ctl.jobs == 0)
		usage_error("--jobs: at least one job");
	resp = calloc(ctl.jobs, sizeof(*resp));
	if (!resp)
		die(EXIT_FAILURE, "out of memory");
	if (dl_periodic_start(&pt, ctl.own_params ? &ctl.params : NULL) < 0)
		die(EXIT_FAILURE, "cannot start the periodic job: %s", dl_errmsg());

	for (uint64_t i = 0; i < ctl.jobs; i++) {
		struct dl_job job;

		burn(ctl.work);
		if (dl_periodic_next(&pt, &job) < 0)
			die(EXIT_FAILURE, "%s", dl_errmsg());
		resp[i] = job.end - job.release;
		sum += resp[i];
		misses += job.end > job.deadline;
		misses += job.skipped;
		skipped += job.skipped;
	}

	if (!ctl.quiet && dl_get(0, &got) == DL_SCHED_DEADLINE)
		printf("%s: reservation (sched_getattr): runtime %s, deadline %s, period %s\n",
		       ctl.name, fmt_time(got.runtime, a), fmt_time(got.deadline, b),
		       fmt_time(got.period, c));
	if (!ctl.quiet)
		print_proc_sched();
	qsort(resp, ctl.jobs, sizeof(*resp), cmp_u64);
	printf("%s: %" PRIu64 " jobs of %s work: response min %s avg %s p99 %s max %s; "
	       "%" PRIu64 " deadline misses (%" PRIu64 " periods skipped)\n",
	       ctl.name, ctl.jobs, fmt_time(ctl.work, a), fmt_time(resp[0], b),
	       fmt_time(sum / ctl.jobs, c),
	       fmt_time(resp[(size_t)floor((double)(ctl.jobs - 1) * 0.99)], d),
	       fmt_time(resp[ctl.jobs - 1], e), misses, skipped);
	free(resp);
	return 0;
}
