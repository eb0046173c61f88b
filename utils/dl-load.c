/*
 * dl-load: run a task set (libdl-taskset(5)) under SCHED_DEADLINE and
 * say, per task, how many deadlines it met.
 *
 * The work is the library's (dl_load_run(3)); this tool reads the file,
 * prints the table, the JSON or the CSV.  Misses are results, not
 * errors: the exit status says whether the load ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json-writer.h"
#include "tool.h"

struct dl_loadctl {
	uint64_t duration;
	uint64_t jobs;
	int mode;
	int timer;    /* --timer: DL_PERIODIC_RELATIVE, DL_PERIODIC_ABSOLUTE, 0 (skip); -1: each task's own */
	bool json;
	bool ignore_place;
	bool no_publish;
	bool no_mlock;
	bool processes;
	bool plan;    /* --plan: the set runs in the layout libdl's plan makes */
	bool no_move; /* with --plan: leave the root cpuset's tasks (v1) */
	bool print;   /* --print-taskset: print the set in the line form, run nothing */
	const char *csv;
	const char *file;
};

static noreturn void usage(void)
{
	printf("Usage:\n"
	       " %1$s [options] TASKSET\n"
	       "\n"
	       "Run the periodic deadline tasks of TASKSET (a file, or - for stdin, in a\n"
	       "format of libdl-taskset(5): libdl's own or rt-app's JSON) from one common\n"
	       "start, each job burning the task's work of CPU time (then spinning for its\n"
	       "spin of wall-clock time), and print per task:\n"
	       "jobs, deadline misses, miss ratio, response p50/p99/max, worst tardiness,\n"
	       "skipped periods, overruns, the kernel's re-anchorings and the page faults\n"
	       "its jobs took (minor and major).  Each task's memory is locked and touched\n"
	       "before its first release.\n"
	       "\n"
	       "Options:\n"
	       " -t, --duration TIME     run that long (default: the file's, else 5s)\n"
	       " -n, --jobs N            run N jobs of each task instead\n"
	       " -m, --mode MODE         sleep: releases on an absolute grid (default);\n"
	       "                         yield: sched_yield() ends a job, the kernel's\n"
	       "                         replenishment releases the next\n"
	       "     --timer MODE        after a job that ends past the next release, in\n"
	       "                         sleep mode (rt-app's timer modes), for every task:\n"
	       "                         relative: the releases restart at its end;\n"
	       "                         absolute: the grid stays, the passed releases'\n"
	       "                         jobs run at once; skip: the latest passed\n"
	       "                         release's job runs, the others are skipped\n"
	       "                         (default: an rt-app file's timer mode, relative\n"
	       "                         unless it says absolute; skip for libdl's forms)\n"
	       "     --json              the results as JSON, times in integer ns\n"
	       "     --csv FILE          every job into FILE, one line each\n"
	       "     --ignore-place      run every task here, ignoring place=\n"
	       "     --no-publish        publish no counters for dl-stat (jobs, misses)\n"
	       "     --no-mlock          lock no memory (it is still touched before the start)\n"
	       "     --processes         each task in a process of its own (default: the\n"
	       "                         tasks without place= or a command are threads of one)\n"
	       "     --plan              run the set in the layout of libdl's plan for it\n"
	       "                         (dl-part plan), made first and destroyed after\n"
	       "     --no-move           with --plan: leave the root cpuset's tasks (v1)\n"
	       "     --print-taskset     print TASKSET as dl-load reads it, one task a line\n"
	       "                         in libdl's line form (count= for copies); run nothing\n"
	       " -h, --help              display this help\n"
	       " -V, --version           display the version\n"
	       "\n"
	       "TIME is a number with a unit: 750ns, 500us, 1.5ms, 200ms, 1s.\n"
	       "A response is from the job's release to its end; a miss is a job that\n"
	       "ended after its deadline.  place= runs a task in a dl-part(1) layout.\n"
	       "\n"
	       "Exit status: 0 when the load ran (whatever it missed); 1 when a task\n"
	       "could not run (the kernel's refusal is explained); 2 for bad usage or\n"
	       "a task set that cannot be read.\n"
	       "\n"
	       "See dl-load(1).\n", program_name);
	exit(EXIT_SUCCESS);
}

enum { OPT_JSON = 0x100, OPT_CSV, OPT_IGNORE_PLACE, OPT_PLAN, OPT_NO_MOVE, OPT_PRINT, OPT_NO_PUBLISH, OPT_NO_MLOCK,
       OPT_PROCESSES, OPT_TIMER };

static void parse_args(struct dl_loadctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "timer", required_argument, NULL, OPT_TIMER },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "ignore-place", no_argument, NULL, OPT_IGNORE_PLACE },
		{ "no-publish", no_argument, NULL, OPT_NO_PUBLISH },
		{ "no-mlock", no_argument, NULL, OPT_NO_MLOCK },
		{ "processes", no_argument, NULL, OPT_PROCESSES },
		{ "plan", no_argument, NULL, OPT_PLAN },
		{ "no-move", no_argument, NULL, OPT_NO_MOVE },
		{ "print-taskset", no_argument, NULL, OPT_PRINT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, ":t:n:m:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			ctl->duration = opt_time("--duration", optarg);
			if (!ctl->duration)
				usage_error("--duration 0: give a time, e.g. 5s");
			break;
		case 'n':
			ctl->jobs = opt_uint("--jobs", optarg, UINT32_MAX);
			if (!ctl->jobs)
				usage_error("--jobs 0: give 1 or more");
			break;
		case 'm':
			if (strcmp(optarg, "sleep") == 0)
				ctl->mode = DL_PERIODIC_SLEEP;
			else if (strcmp(optarg, "yield") == 0)
				ctl->mode = DL_PERIODIC_YIELD;
			else
				usage_error("unknown --mode \"%s\": use sleep or yield", optarg);
			break;
		case OPT_TIMER:
			if (strcmp(optarg, "relative") == 0)
				ctl->timer = DL_PERIODIC_RELATIVE;
			else if (strcmp(optarg, "absolute") == 0)
				ctl->timer = DL_PERIODIC_ABSOLUTE;
			else if (strcmp(optarg, "skip") == 0)
				ctl->timer = 0;
			else
				usage_error("unknown --timer \"%s\": use relative, absolute or skip", optarg);
			break;
		case OPT_JSON:
			ctl->json = true;
			break;
		case OPT_CSV:
			ctl->csv = optarg;
			break;
		case OPT_IGNORE_PLACE:
			ctl->ignore_place = true;
			break;
		case OPT_NO_PUBLISH:
			ctl->no_publish = true;
			break;
		case OPT_NO_MLOCK:
			ctl->no_mlock = true;
			break;
		case OPT_PROCESSES:
			ctl->processes = true;
			break;
		case OPT_PLAN:
			ctl->plan = true;
			break;
		case OPT_NO_MOVE:
			ctl->no_move = true;
			break;
		case OPT_PRINT:
			ctl->print = true;
			break;
		case 'h':
			usage();
		case 'V':
			print_version();
		default:
			bad_option(c, argv);
		}
	}
	if (ctl->plan && ctl->ignore_place)
		usage_error("give --plan or --ignore-place, not both");
	if (ctl->no_move && !ctl->plan)
		usage_error("--no-move goes with --plan");
	if (ctl->duration && ctl->jobs)
		usage_error("give --duration or --jobs, not both");
	if (ctl->timer >= 0 && ctl->mode == DL_PERIODIC_YIELD)
		usage_error("--timer goes with --mode sleep: in yield mode the kernel's replenishments release the jobs");
	if (ctl->print && (ctl->duration || ctl->jobs || ctl->json || ctl->csv || ctl->plan || ctl->ignore_place ||
			   ctl->timer >= 0))
		usage_error("--print-taskset runs nothing: give it the TASKSET alone");
	if (optind == argc)
		usage_error("no TASKSET: give a task-set file (see libdl-taskset(5))");
	if (optind + 1 < argc)
		usage_error("one TASKSET only (\"%s\" is extra)", argv[optind + 1]);
	ctl->file = argv[optind];
}

static const char *timer_name(int timer)
{
	return timer == DL_PERIODIC_RELATIVE ? "relative" : timer == DL_PERIODIC_ABSOLUTE ? "absolute" : "skip";
}

/* Milliseconds with three decimals: the table's one unit. */
static const char *ms(uint64_t ns, char buf[32])
{
	snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, ns / 1000000, ns / 1000 % 1000);
	return buf;
}

/* A command's name as the file gave it, harmless to a terminal. */
static const char *printable(const char *s, char buf[64])
{
	size_t i;

	for (i = 0; s[i] && i < 63; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

static const char *exit_text(int status, char buf[32])
{
	if (WIFEXITED(status))
		snprintf(buf, 32, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, 32, "signal %d", WTERMSIG(status));
	else
		snprintf(buf, 32, "status %d", status);
	return buf;
}

static void print_table(const struct dl_load *l)
{
	char a[32], b[32], c[32], d[32], e[64];

	printf("%-16s %7s %7s %7s %9s %9s %9s %9s %7s %8s %8s %7s %7s\n", "TASK", "JOBS", "MISSED", "RATIO",
	       "P50(ms)", "P99(ms)", "MAX(ms)", "TARDY(ms)", "SKIPPED", "OVERRUNS", "SHIFTS", "MINFLT", "MAJFLT");
	for (size_t i = 0; i < dl_load_count(l); i++) {
		const struct dl_load_task *t = dl_load_task(l, i);
		const struct dl_periodic_stats *s = t->stats;

		if (t->spec->argv) {
			printf("%-16s %7s  command %s, %s\n", t->spec->name, "-",
			       printable(t->spec->argv[0], e), exit_text(t->status, a));
			continue;
		}
		printf("%-16s %7" PRIu64 " %7" PRIu64 " %7.4f %9s %9s %9s %9s %7" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %7" PRIu64 " %7" PRIu64 "\n",
		       t->spec->name, s->jobs, s->misses, s->jobs ? (double)s->misses / (double)s->jobs : 0.0,
		       ms(s->response_p50, a), ms(s->response_p99, b), ms(s->response_max, c),
		       ms(s->tardiness_max, d), s->skipped, s->overruns, s->reanchors, s->minflt, s->majflt);
		if (t->err)
			printf("%-16s   stopped early: %s\n", "", t->errmsg);
	}
}

static void print_json(const struct dl_loadctl *ctl, const struct dl_load *l)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "mode", ctl->mode == DL_PERIODIC_SLEEP ? "sleep" : "yield");
	json_uint(&j, "start", dl_load_start(l));
	if (ctl->duration)
		json_uint(&j, "duration", ctl->duration);
	else if (ctl->jobs)
		json_uint(&j, "jobs_per_task", ctl->jobs);
	json_arr_begin(&j, "tasks");
	for (size_t i = 0; i < dl_load_count(l); i++) {
		const struct dl_load_task *t = dl_load_task(l, i);
		const struct dl_periodic_stats *s = t->stats;

		json_obj_begin(&j, NULL);
		json_str(&j, "name", t->spec->name);
		json_int(&j, "pid", t->pid);
		json_uint(&j, "runtime", t->spec->params.runtime);
		json_uint(&j, "deadline", t->spec->params.deadline);
		json_uint(&j, "period", t->spec->params.period);
		json_uint(&j, "work", t->spec->work);
		json_uint(&j, "spin", t->spec->spin);
		json_uint(&j, "offset", t->spec->offset);
		json_str(&j, "timer", timer_name(t->spec->timer));
		if (t->spec->jobs)
			json_uint(&j, "jobs_limit", t->spec->jobs);
		else
			json_null(&j, "jobs_limit");
		json_uint(&j, "phases", t->spec->nphases);
		if (t->spec->place && !ctl->ignore_place)
			json_str(&j, "place", t->spec->place);
		else
			json_null(&j, "place");
		if (t->spec->argv) {
			json_str(&j, "command", t->spec->argv[0]);
			if (WIFEXITED(t->status))
				json_int(&j, "exit_status", WEXITSTATUS(t->status));
			else
				json_int(&j, "signal", WIFSIGNALED(t->status) ? WTERMSIG(t->status) : 0);
			json_obj_end(&j);
			continue;
		}
		json_uint(&j, "jobs", s->jobs);
		json_uint(&j, "misses", s->misses);
		json_uint(&j, "miss_ratio_ppm", s->jobs ? s->misses * 1000000 / s->jobs : 0);
		json_uint(&j, "response_min", s->response_min);
		json_uint(&j, "response_p50", s->response_p50);
		json_uint(&j, "response_p90", s->response_p90);
		json_uint(&j, "response_p99", s->response_p99);
		json_uint(&j, "response_max", s->response_max);
		json_uint(&j, "tardiness_max", s->tardiness_max);
		json_uint(&j, "skipped", s->skipped);
		json_uint(&j, "overruns", s->overruns);
		json_uint(&j, "reanchors", s->reanchors);
		json_uint(&j, "reanchor_ns", s->reanchor_ns);
		json_uint(&j, "minor_faults", s->minflt);
		json_uint(&j, "major_faults", s->majflt);
		json_uint(&j, "faulted_jobs", s->faulted);
		if (t->err)
			json_str(&j, "error", t->errmsg);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

static int write_csv(const char *path, const struct dl_load *l)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		warnx_("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "task,pid,index,release,deadline,start,end,response,met,tardiness,skipped,reanchor,cpu,overruns,minflt,majflt,phase,work,spin\n");
	for (size_t i = 0; i < dl_load_count(l); i++) {
		const struct dl_load_task *t = dl_load_task(l, i);

		for (size_t k = 0; k < t->njobs; k++) {
			const struct dl_job *jb = &t->jobs[k];
			uint64_t work, spin;
			/* The k-th job ran its phase's work and spin. */
			size_t phase = dl_taskspec_job(t->spec, k, &work, &spin);

			fprintf(f, "%s,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				   ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32
				   ",%zu,%" PRIu64 ",%" PRIu64 "\n",
				t->spec->name, (int)t->pid, jb->index, jb->release, jb->deadline, jb->start,
				jb->end, jb->response, jb->met, jb->tardiness, jb->skipped, jb->reanchor,
				jb->cpu, jb->overruns, jb->minflt, jb->majflt, phase, work, spin);
		}
	}
	if (fclose(f) != 0) {
		warnx_("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A word of the line form, quoted when it needs to be (libdl-taskset(5)). */
static void print_word(const char *w)
{
	if (*w && strpbrk(w, " \t#'\"\\") == NULL) {
		fputs(w, stdout);
		return;
	}
	if (!strchr(w, '\'')) {
		printf("'%s'", w);
		return;
	}
	putchar('"');
	for (; *w; w++) {
		if (*w == '"' || *w == '\\')
			putchar('\\');
		putchar(*w);
	}
	putchar('"');
}

/* Tasks i.. that are the copies of one count= task: the names
 * NAME.1..NAME.N of one line, with the same reservation. */
static size_t copies(const struct dl_taskset *ts, size_t i, size_t *base_len)
{
	const struct dl_taskspec *t = dl_taskset_task(ts, i), *u;
	const char *dot = strrchr(t->name, '.');
	size_t n = 1;

	*base_len = strlen(t->name);
	if (!dot || strcmp(dot, ".1") != 0 || t->line == 0)
		return 1;
	*base_len = (size_t)(dot - t->name);
	while ((u = dl_taskset_task(ts, i + n)) && u->line == t->line &&
	       strncmp(u->name, t->name, *base_len) == 0 && u->name[*base_len] == '.' &&
	       (size_t)atol(u->name + *base_len + 1) == n + 1 &&
	       memcmp(&u->params, &t->params, sizeof(t->params)) == 0 && u->work == t->work &&
	       u->spin == t->spin)
		n++;
	if (n == 1)
		*base_len = strlen(t->name);
	return n;
}

/* What an rt-app file says that the line form has no words for: its
 * timer mode, its job count, its phases; as a comment under the task. */
static void print_rtapp_keys(const struct dl_taskspec *t)
{
	char w[32], sp[32];

	if (!t->timer && !t->jobs && !t->nphases)
		return;
	printf("#   timer %s", timer_name(t->timer));
	if (t->jobs)
		printf(", %" PRIu64 " job%s", t->jobs, t->jobs == 1 ? "" : "s");
	for (size_t k = 0; k < t->nphases; k++) {
		const struct dl_taskphase *ph = &t->phases[k];

		printf("%s%" PRIu64 " x (", k ? ", " : "; phases ", ph->jobs);
		if (ph->work || !ph->spin)
			printf("work=%s%s", dl_time_format(ph->work, w, sizeof(w)), ph->spin ? " " : "");
		if (ph->spin)
			printf("spin=%s", dl_time_format(ph->spin, sp, sizeof(sp)));
		putchar(')');
	}
	putchar('\n');
}

/* --print-taskset: the set as it will run, in the line form. */
static void print_taskset(const struct dl_taskset *ts)
{
	char a[32], b[32], c[32], w[32], f[64];

	if (dl_taskset_duration(ts))
		printf("# the file asks for a run of %s (dl-load's default duration)\n",
		       dl_time_format(dl_taskset_duration(ts), a, sizeof(a)));
	printf("# NAME RUNTIME DEADLINE PERIOD KEYS\n");
	for (size_t i = 0, n, len; i < dl_taskset_count(ts); i += n) {
		const struct dl_taskspec *t = dl_taskset_task(ts, i);

		n = copies(ts, i, &len);
		printf("%.*s %s %s %s", (int)len, t->name,
		       dl_time_format(t->params.runtime, a, sizeof(a)),
		       dl_time_format(t->params.deadline, b, sizeof(b)),
		       dl_time_format(t->params.period, c, sizeof(c)));
		/* A spin alone reads back as no work. */
		if (t->work || !t->spin)
			printf(" work=%s", dl_time_format(t->work, w, sizeof(w)));
		if (t->spin)
			printf(" spin=%s", dl_time_format(t->spin, w, sizeof(w)));
		if (n > 1)
			printf(" count=%zu", n);
		if (t->offset)
			printf(" offset=%s", dl_time_format(t->offset, a, sizeof(a)));
		if (t->params.flags)
			printf(" flags=%s", tool_flags_text(t->params.flags, f, sizeof(f)));
		if (t->place)
			printf(" place=%s", t->place);
		if (t->argv) {
			fputs(" --", stdout);
			for (size_t k = 0; t->argv[k]; k++) {
				putchar(' ');
				print_word(t->argv[k]);
			}
		}
		putchar('\n');
		print_rtapp_keys(t);
	}
}

/*
 * --plan: libdl's plan for the set on this machine (dl_plan_taskset(3)),
 * its layout made, and every task placed where the plan puts it.  Returns
 * whether a layout was made (to destroy after the run).
 */
static bool apply_plan(const struct dl_loadctl *ctl, struct dl_taskset *ts)
{
	struct dl_layout_result res;
	struct dl_plan *plan = NULL;
	struct dl_layout *l = NULL;
	size_t n = dl_taskset_count(ts);

	if (dl_plan_taskset(ts, NULL, &plan) < 0)
		die(EXIT_FAILURE, "cannot plan: %s", dl_errmsg());
	if (!plan->feasible)
		die(EXIT_FAILURE, "no plan for this task set on this machine: %s (see dl-part plan)", plan->why);
	if (!ctl->json)
		printf("plan: %s, %zu partition%s\n", dl_plan_method_name(plan->method), plan->nparts,
		       plan->nparts == 1 ? "" : "s");
	if (plan->nparts == 0) {
		for (size_t i = 0; i < n; i++)
			if (dl_taskset_set_place(ts, i, NULL) < 0)
				die(EXIT_FAILURE, "%s", dl_errmsg());
		dl_plan_free(plan);
		return false;
	}
	if (dl_plan_layout(plan, &l) < 0)
		die(EXIT_FAILURE, "%s", dl_errmsg());
	dl_layout_set_flags(l, ctl->no_move ? DL_LAYOUT_NO_MOVE : 0);
	if (dl_layout_create(l, &res) < 0)
		die(EXIT_FAILURE, "cannot create the plan's layout: %s", dl_errmsg());
	dl_layout_free(l);
	for (size_t i = 0; i < n; i++)
		if (dl_taskset_set_place(ts, i, DL_CLUSTER) < 0)
			die(EXIT_FAILURE, "%s", dl_errmsg());
	for (size_t j = 0; j < plan->nparts; j++) {
		for (size_t k = 0; k < plan->parts[j]->ntasks; k++)
			dl_taskset_set_place(ts, plan->parts[j]->tasks[k], plan->parts[j]->name);
		if (!ctl->json) {
			char cpus[DL_CPUS_STRLEN];

			printf("  partition %s (CPUs %s):", plan->parts[j]->name,
			       dl_cpus_format(&plan->parts[j]->cpus, cpus, sizeof(cpus)));
			for (size_t k = 0; k < plan->parts[j]->ntasks; k++)
				printf(" %s", dl_taskset_task(ts, plan->parts[j]->tasks[k])->name);
			putchar('\n');
		}
	}
	dl_plan_free(plan);
	return true;
}

int main(int argc, char **argv)
{
	struct dl_loadctl ctl = { .mode = DL_PERIODIC_SLEEP, .timer = -1 };
	struct dl_taskset *ts;
	struct dl_load *l;
	unsigned int flags = 0;
	int rc = EXIT_SUCCESS;
	bool made = false;

	util_init(argv[0]);
	/* dl-load runs whatever a task set names, with reservations no
	 * policy limits: it is not for a file capability (dl-run is). */
	if (getuid() != 0 && getauxval(AT_SECURE))
		die(EXIT_FAILURE, "dl-load is not meant to hold a file capability or to be setuid: run it as root, or give users dl-run, which applies dl-run.conf(5)");
	parse_args(&ctl, argc, argv);
	if (dl_taskset_read(ctl.file, &ts) < 0)
		die(EXIT_USAGE, "%s", dl_errmsg());
	if (ctl.print) {
		print_taskset(ts);
		dl_taskset_free(ts);
		return EXIT_SUCCESS;
	}
	/* The run's length: the option's, else the file's (rt-app's
	 * duration), else until every task has run its own jobs (rt-app's
	 * loops), else 5 s. */
	if (!ctl.duration && !ctl.jobs)
		ctl.duration = dl_taskset_duration(ts) ? dl_taskset_duration(ts) :
			       dl_taskset_ends(ts) ? 0 : 5000000000ULL;
	for (size_t i = 0; ctl.timer >= 0 && i < dl_taskset_count(ts); i++)
		if (dl_taskset_set_timer(ts, i, ctl.timer) < 0)
			die(EXIT_FAILURE, "%s", dl_errmsg());
	if (ctl.csv)
		flags |= DL_LOAD_KEEP_JOBS;
	if (ctl.ignore_place)
		flags |= DL_LOAD_IGNORE_PLACE;
	if (ctl.no_publish)
		flags |= DL_LOAD_NO_PUBLISH;
	if (ctl.no_mlock)
		flags |= DL_LOAD_NO_MLOCK;
	if (ctl.processes)
		flags |= DL_LOAD_PROCESSES;
	made = ctl.plan && apply_plan(&ctl, ts);
	if (dl_load_run(ts, ctl.mode, ctl.duration, ctl.jobs, flags, &l) < 0) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		if (made && dl_layout_destroy(NULL, NULL) < 0)
			warnx_("cannot destroy the plan's layout: %s; run dl-part destroy", dl_errmsg());
		die(EXIT_FAILURE, "%s", why);
	}
	if (made && dl_layout_destroy(NULL, NULL) < 0) {
		warnx_("cannot destroy the plan's layout: %s; run dl-part destroy", dl_errmsg());
		rc = EXIT_FAILURE;
	}
	if (ctl.json)
		print_json(&ctl, l);
	else
		print_table(l);
	if (ctl.csv && write_csv(ctl.csv, l) < 0)
		rc = EXIT_FAILURE;
	for (size_t i = 0; i < dl_load_count(l); i++)
		if (dl_load_task(l, i)->err)
			rc = EXIT_FAILURE;
	dl_load_free(l);
	dl_taskset_free(ts);
	return rc;
}
