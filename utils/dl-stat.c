/*
 * dl-stat: every deadline task, every root domain, the bandwidth left.
 *
 *   dl-stat [-p PID] [--tasks | --domains | --cpus] [--json | --prometheus [--pid-labels]]
 *           [--output FILE] [--watch [INTERVAL]] [-n COUNT] [--kernel]
 *
 * What it prints comes from dl_snapshot(3); dl-stat only lays it out
 * (the machines' formats: stat-out.c); --kernel adds the jobs, misses and
 * throttles the kernel's scheduler shows a BPF program (kcount.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kcount.h"
#include "rd-table.h"
#include "stat-out.h"
#include "tool.h"

#define NS_PER_SEC 1000000000ULL
/* The metrics file is read by node_exporter, which runs as its own user. */
#define OUTPUT_MODE 0644

struct ctl {
	pid_t pid;
	bool json;
	bool prometheus;
	bool pid_labels;
	const char *output; /* --output FILE: each refresh replaces it */
	bool tasks_only;
	bool domains_only;
	bool cpus_only;
	bool watch;
	uint64_t interval; /* ns */
	uint64_t count;    /* 0: until interrupted */
	bool tty;
	bool kernel;         /* --kernel */
	struct kcount *kc;   /* counting, or NULL */
	char kernel_why[256]; /* why not, when asked and not counting */
};

/* The previous frame: for CPU time per period, and how long a root
 * domain has counted more than its tasks. */
struct history {
	struct dl_task *tasks;
	size_t ntasks;
	struct dl_rd *rds;
	size_t nrds;
	uint64_t *high_since; /* per rd: when the count went high, 0 if not */
	uint64_t *overruns;   /* per task: refreshes that found it out of budget */
	struct dl_task_counts *counts; /* the loops' published counters */
	size_t ncounts;
};

static noreturn void usage(void)
{
	printf("Usage: %s [options]\n"
	       "\n"
	       "Show every SCHED_DEADLINE thread, every root domain, and the deadline\n"
	       "bandwidth each root domain has left for the next task.\n"
	       "\n"
	       "Options:\n"
	       " -p, --pid PID           only the threads of process PID\n"
	       " -t, --tasks             only the tasks\n"
	       " -d, --domains           only the root domains\n"
	       " -c, --cpus              only the CPUs: each one's root domain and deadline\n"
	       "                         servers (runtime/period, counted by the kernel)\n"
	       " -j, --json              JSON (one object per refresh; see dl-stat(1))\n"
	       " -P, --prometheus        the Prometheus text exposition format\n"
	       "     --pid-labels        with --prometheus: pid and tid labels on the tasks\n"
	       " -o, --output FILE       write each refresh to FILE, replaced whole (for\n"
	       "                         node_exporter's textfile collector), not stdout\n"
	       " -w, --watch [INTERVAL]  refresh every INTERVAL (default 1s; a bare number\n"
	       "                         is seconds, or give a unit: 500ms), with the CPU\n"
	       "                         time each task used per period\n"
	       " -n, --count COUNT       with --watch: stop after COUNT refreshes\n"
	       " -k, --kernel            with --watch: count every deadline thread's jobs,\n"
	       "                         deadline misses and throttles from the kernel\n"
	       "                         (BPF, as root) while dl-stat runs\n"
	       " -h, --help              display this help\n"
	       " -V, --version           display the version\n"
	       "\n"
	       "Bandwidths are fractions of one CPU.  The kernel's own figures (debugfs\n"
	       "sched/debug) are used when they can be read, else they are computed and\n"
	       "marked so.  See dl-stat(1).\n", program_name);
	exit(EXIT_SUCCESS);
}

/* A bare number is seconds here, as for top(1) and watch(1): "2", "0.5";
 * or a time with its unit: "500ms". */
static bool bare_seconds(const char *arg)
{
	return arg && *arg && strspn(arg, "0123456789.") == strlen(arg);
}

static uint64_t parse_interval(const char *arg)
{
	char secs[64];
	uint64_t ns;

	if (bare_seconds(arg) && strlen(arg) < sizeof(secs) - 1) {
		snprintf(secs, sizeof(secs), "%ss", arg);
		ns = opt_time("--watch", secs);
	} else {
		ns = opt_time("--watch", arg);
	}
	if (ns < 10000000ULL)
		usage_error("--watch %s: at least 10ms between refreshes", arg);
	return ns;
}

static bool looks_like_interval(const char *arg)
{
	uint64_t ns;

	return bare_seconds(arg) || (arg && *arg >= '0' && *arg <= '9' && dl_time_parse(arg, &ns) == 0);
}

static void parse_args(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tasks", no_argument, NULL, 't' },
		{ "domains", no_argument, NULL, 'd' },
		{ "cpus", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "pid-labels", no_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_count = false;
	int o;

	c->interval = NS_PER_SEC;
	while ((o = getopt_long(argc, argv, "+:p:tdcjPo:w::n:khV", longopts, NULL)) != -1) {
		switch (o) {
		case 'p':
			c->pid = opt_pid("--pid", optarg);
			break;
		case 't':
			c->tasks_only = true;
			break;
		case 'd':
			c->domains_only = true;
			break;
		case 'c':
			c->cpus_only = true;
			break;
		case 'j':
			c->json = true;
			break;
		case 'P':
			c->prometheus = true;
			break;
		case 'L':
			c->pid_labels = true;
			break;
		case 'o':
			if (!*optarg)
				usage_error("--output: an empty file name");
			c->output = optarg;
			break;
		case 'w':
			c->watch = true;
			/* "--watch 2": the optional value as the next word. */
			if (!optarg && optind < argc && looks_like_interval(argv[optind]))
				optarg = argv[optind++];
			if (optarg)
				c->interval = parse_interval(optarg);
			break;
		case 'n':
			c->count = opt_uint("--count", optarg, 0xffffffffU);
			if (c->count == 0)
				usage_error("--count: at least 1");
			have_count = true;
			break;
		case 'k':
			c->kernel = true;
			break;
		case 'h':
			usage();
		case 'V':
			print_version();
		default:
			bad_option(o, argv);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (c->tasks_only + c->domains_only + c->cpus_only > 1)
		usage_error("give one of --tasks, --domains and --cpus");
	if (have_count && !c->watch)
		usage_error("--count needs --watch");
	if (c->kernel && !c->watch)
		usage_error("--kernel needs --watch: it counts the jobs that run from the moment dl-stat starts");
	if (c->json && c->prometheus)
		usage_error("give --json or --prometheus, not both");
	if (c->pid_labels && !c->prometheus)
		usage_error("--pid-labels goes with --prometheus");
	c->tty = !c->output && isatty(STDOUT_FILENO);
}

static const char *flags_text(uint64_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", f & DL_FLAG_RESET_ON_FORK ? "R" : "",
		 f & DL_FLAG_RECLAIM ? "G" : "", f & DL_FLAG_DL_OVERRUN ? "O" : "",
		 f & (DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN) ? "" : "-");
	return buf;
}

/* A measured time in at most 8 columns, four significant digits:
 * "1.037ms", "928.2us" (the parameters stay exact, fmt_time()). */
static const char *fmt_measured(uint64_t ns, char buf[32])
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = { { 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "us" }, { 1, "ns" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = (double)ns / (double)units[i].ns;

		if (ns >= units[i].ns || units[i].ns == 1) {
			snprintf(buf, 32, units[i].ns == 1 ? "%.0f%s" : v < 10 ? "%.3f%s" : v < 100 ? "%.2f%s" : "%.1f%s",
				 v, units[i].unit);
			return buf;
		}
	}
	return buf;
}

/* A signed measured time: "-1.037ms" for a deadline passed. */
static const char *fmt_signed(int64_t ns, char buf[32])
{
	char m[32];

	fmt_measured(ns < 0 ? -(uint64_t)ns : (uint64_t)ns, m);
	snprintf(buf, 32, "%s%s", ns < 0 ? "-" : "", m);
	return buf;
}

static bool any_budget(const struct stat_frame *f)
{
	for (size_t i = 0; f->budget && i < f->ntasks; i++)
		if (f->budget[i])
			return true;
	return false;
}

/* The task of thread tid in the refresh before, by index; -1 if none. */
static ssize_t find_task(const struct history *h, pid_t tid)
{
	for (size_t i = 0; h && i < h->ntasks; i++)
		if (h->tasks[i].tid == tid)
			return (ssize_t)i;
	return -1;
}

static bool any_counts(const struct stat_frame *f)
{
	for (size_t i = 0; f->counts && i < f->ntasks; i++)
		if (f->counts[i])
			return true;
	return false;
}

/* JOBS MISSED OVR of task i, or dashes; a * after MISSED when its misses
 * rose (--watch).  Whether they rose.  The kernel's (--kernel) are
 * printed by print_kcounts. */
static bool print_counts(FILE *o, const struct stat_frame *f, size_t i)
{
	const struct dl_task_counts *n = f->counts[i];
	bool rose = f->watch && f->misses_rose && f->misses_rose[i];

	if (!n) {
		fprintf(o, " %8s %7s %4s", "-", "-", "-");
		return false;
	}
	fprintf(o, " %8" PRIu64 " %6" PRIu64 "%c %4" PRIu64, n->jobs, n->misses, rose ? '*' : ' ', n->overruns);
	return rose;
}

static void print_kcounts(FILE *o, const struct stat_frame *f, size_t i)
{
	const struct dl_task_counts *n = &f->kcounts[i];

	fprintf(o, " %8" PRIu64 " %7" PRIu64 " %5" PRIu64, n->jobs, n->misses, n->overruns);
}

/* Each CPU: its root domain, then each deadline server: its setting,
 * bandwidth, whether the kernel counts it now, and whether it was read. */
static void print_cpus(FILE *o, const struct stat_frame *f)
{
	char r[DL_TIME_STRLEN], p[DL_TIME_STRLEN], bwt[DL_BW_STRLEN], cpus[DL_CPUS_STRLEN];
	bool any = false;

	fprintf(o, "%-4s %-3s %-10s %-6s %10s %10s %7s %-7s %s\n", "CPU", "RD", "RD CPUS", "SERVER", "RUNTIME", "PERIOD",
		"BW", "COUNTED", "SOURCE");
	for (size_t i = 0; i < f->ncpus; i++) {
		const struct cpu_servers *cs = &f->cpus[i];
		bool shown = false;

		dl_cpus_format(&f->rds[cs->rd].cpus, cpus, sizeof(cpus));
		for (int k = 0; k < SERVER_KINDS; k++) {
			const struct dl_server *s = &cs->srv[k];

			if (!s->present)
				continue;
			shown = any = true;
			fprintf(o, "%-4d %-3zu %-10s %-6s %10s %10s %7s %-7s %s\n", cs->cpu, cs->rd, cpus, server_kind_name(k),
				s->runtime ? fmt_time(s->runtime, r) : "off", s->runtime ? fmt_time(s->period, p) : "-",
				dl_bw_format(server_bw(s), bwt, sizeof(bwt)), cs->counted[k] ? "yes" : "no",
				s->known ? "read" : "not read: the kernel's default");
		}
		if (!shown)
			fprintf(o, "%-4d %-3zu %-10s %-6s\n", cs->cpu, cs->rd, cpus, "none");
	}
	if (!any)
		fprintf(o, "(no deadline server: the kernel has none before Linux 6.12)\n");
	for (size_t i = 0; i < f->nrds; i++)
		if (f->rds[i].uncounted_fair_bw) {
			fprintf(o, "note: COUNTED no: Linux 6.12 and 6.13 drop the fair servers from a root domain's count when a rebuild keeps it; the next rebuild that makes it counts them again\n");
			break;
		}
}

static void print_text(FILE *o, const struct ctl *c, const struct stat_frame *f)
{
	const struct dl_task *t = f->tasks;
	char a[32], b[32], d[32], e[32], note[200];
	bool out_of_budget = false, rising = false;

	if (c->cpus_only) {
		print_cpus(o, f);
		return;
	}
	if (!c->tasks_only)
		show_rd_table(o, f->rds, f->nrds, f->drift,
			      "kernel accounting drift, repair it with dl-part repair (see libdeadline(3), BUGS)");
	if (c->domains_only)
		return;
	if (!c->tasks_only)
		fputc('\n', o);
	/* What a narrow terminal cuts off last: the cpuset, after the
	 * figures; with --watch the CPU time used per period and the share
	 * of the runtime it is (%RUN) come before the flags, so that the
	 * figures fill exactly 80 columns. */
	fprintf(o, "%-7s %-7s %-15s %8s %8s %8s %6s", "PID", "TID", "COMMAND", "RUNTIME", "DEADLINE",
		"PERIOD", "UTIL");
	if (c->watch)
		fprintf(o, " %8s %-5s", "USED/PER", "%RUN");
	if (c->watch && any_budget(f))
		fprintf(o, " %8s %8s", "LEFT", "DL IN");
	if (any_counts(f))
		fprintf(o, " %8s %7s %4s", "JOBS", "MISSED", "OVR");
	if (f->kcounts)
		fprintf(o, " %8s %7s %5s", "K-JOBS", "K-MISS", "K-THR");
	fprintf(o, " %-5s %-3s %s\n", "FLAGS", "RD", "CPUSET");
	for (size_t i = 0; i < f->ntasks; i++) {
		/* Names are anyone's: escaped, so that none rewrites a screen. */
		char comm[80], cs[1100];

		dl_str_escape(t[i].comm, comm, sizeof(comm));
		dl_str_escape(t[i].cpuset, cs, sizeof(cs));
		fprintf(o, "%-7d %-7d %-15s %8s %8s %8s %6.4f", (int)t[i].pid, (int)t[i].tid, comm,
			fmt_time(t[i].params.runtime, a), fmt_time(t[i].params.deadline, b),
			fmt_time(t[i].params.period, d), (double)t[i].bw / DL_BW_UNIT);
		if (c->watch) {
			if (f->seen[i]) {
				uint64_t used = f->used[i];
				uint64_t permille = t[i].params.runtime ? used * 1000 / t[i].params.runtime : 0;
				bool full = task_overran(&t[i], used);

				fprintf(o, " %8s %4" PRIu64 "%c", fmt_measured(used, a), permille / 10, full ? '!' : ' ');
				out_of_budget |= full;
			} else {
				fprintf(o, " %8s %4s ", "-", "-");
			}
		}
		if (c->watch && any_budget(f)) {
			const struct dl_budget *bud = f->budget[i];

			if (bud)
				fprintf(o, " %8s %8s", fmt_signed(bud->runtime, a),
					fmt_signed((int64_t)(bud->deadline - f->now), b));
			else
				fprintf(o, " %8s %8s", "-", "-");
		}
		if (any_counts(f))
			rising |= print_counts(o, f, i);
		if (f->kcounts)
			print_kcounts(o, f, i);
		fprintf(o, " %-5s %-3d %s\n", flags_text(t[i].params.flags, e, sizeof(e)), t[i].rd,
			cs[0] ? cs : "?");
	}
	if (f->ntasks == 0)
		fprintf(o, "(no SCHED_DEADLINE thread%s)\n", c->pid ? " in that process" : "");
	if (out_of_budget)
		fprintf(o, "note: ! in %%RUN: it runs out of budget, it used %d%% or more of its runtime in the last period\n",
			BUDGET_FULL_PERMILLE / 10);
	if (rising)
		fputs("note: * in MISSED: it missed deadlines since the refresh before\n", o);
	if (c->watch && any_budget(f))
		fputs("note: LEFT and DL IN are the kernel's: the runtime its job has left, and its deadline from now ('-': passed)\n",
		      o);
	if (any_counts(f))
		fputs("note: JOBS, MISSED and OVR are counted by the loops that publish them (dl-stat(1)); '-': the task publishes none\n", o);
	if (f->kcounts)
		fprintf(o, "note: K-JOBS, K-MISS and K-THR are counted by the kernel's scheduler since dl-stat began (--kernel): jobs, deadline misses, throttles (K-THR: %s; dl-stat(1))\n",
			stat_throttle_tp(f) ? f->kthrottle_source : "inferred at the switch-out");
	else if (f->kernel_asked)
		fprintf(o, "note: --kernel: no job is counted from the kernel: %s\n", f->kernel_why);
	if (stat_krec_note(f, note, sizeof(note)))
		fprintf(o, "note: %s\n", note);
	if (f->nunreserved)
		fprintf(o, "\nwarning: %zu container%s ask%s for a reservation and run%s without one, created while libdl-nri was not running (libdl-nri(8)); delete the pod to have it created again:\n",
			f->nunreserved, f->nunreserved == 1 ? "" : "s", f->nunreserved == 1 ? "s" : "",
			f->nunreserved == 1 ? "s" : "");
	for (size_t i = 0; i < f->nunreserved; i++) {
		const struct dl_container_unreserved *u = &f->unreserved[i];

		/* The library keeps only [A-Za-z0-9._-] of a name. */
		fprintf(o, "  process %d: container %s of pod %s in namespace %s\n", (int)u->pid, u->name, u->pod, u->ns);
	}
}

/* The terminal's width, read again every frame as top does (it may have
 * been resized); 0 when stdout is not a terminal. */
static unsigned int term_width(const struct ctl *c)
{
	struct winsize ws;

	if (!c->tty)
		return 0;
	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/*
 * A frame on a terminal of width columns, as top shows one: the tables'
 * rows are cut at the edge, never wrapped, so that a long cpuset or an
 * extra column cannot break the table; a note (a line that explains, at
 * two levels of indent or after "note:") is wrapped at words instead, so
 * that what it says is all there.  The text is ASCII (names are escaped).
 */
static void put_fitted(const char *text, unsigned int width)
{
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		bool note = strncmp(line, "    ", 4) == 0 || strncmp(line, "note:", 5) == 0;

		if (!note || len <= width) {
			fwrite(line, 1, len < width ? len : width, stdout);
			putchar('\n');
		} else {
			const char *p = line, *end = line + len;
			unsigned int indent = 0, room = width;

			while (p < end) {
				const char *cut = p + room < end ? p + room : end;

				if (cut < end) {
					const char *sp = cut;

					while (sp > p && *sp != ' ')
						sp--;
					if (sp > p)
						cut = sp;
				}
				printf("%*s%.*s\n", (int)indent, "", (int)(cut - p), p);
				p = cut;
				while (p < end && *p == ' ')
					p++;
				indent = 6;
				room = width > indent + 20 ? width - indent : 20;
			}
		}
		line = nl ? nl + 1 : line + len;
	}
}

static void keep(struct history *h, struct dl_task *t, size_t nt, struct dl_rd *rds, size_t nrd,
		 uint64_t *overruns, uint64_t now)
{
	uint64_t *since = calloc(nrd ? nrd : 1, sizeof(*since));

	for (size_t i = 0; since && i < nrd; i++) {
		if (dl_rd_drift(&rds[i], 0) != DL_DRIFT_SETTLING)
			continue;
		since[i] = now;
		/* The same root domain, high before too: keep its start. */
		for (size_t k = 0; k < h->nrds; k++)
			if (dl_cpus_equal(&h->rds[k].cpus, &rds[i].cpus) && h->high_since[k])
				since[i] = h->high_since[k];
	}
	free(h->tasks);
	free(h->rds);
	free(h->high_since);
	free(h->overruns);
	h->tasks = t;
	h->ntasks = nt;
	h->rds = rds;
	h->nrds = nrd;
	h->high_since = since;
	h->overruns = overruns;
}

/* One-shot: a high count gets its chance to settle before it is called
 * drift. */
static void settle_drift(const struct dl_rd *rds, size_t nrd, int *drift)
{
	for (size_t i = 0; i < nrd; i++) {
		if (drift[i] == DL_DRIFT_SETTLING) {
			struct dl_drift *d = NULL;
			size_t nd = 0;

			dl_drift_check(DL_DRIFT_SETTLE_MS, &d, &nd);
			for (size_t k = 0; k < nrd; k++) {
				drift[k] = DL_DRIFT_NONE;
				for (size_t m = 0; m < nd; m++)
					if (dl_cpus_equal(&d[m].cpus, &rds[k].cpus))
						drift[k] = DL_DRIFT_YES;
			}
			free(d);
			return;
		}
	}
}

/* The frame in the chosen format, into o. */
static void render(FILE *o, const struct ctl *c, const struct stat_frame *f)
{
	const struct stat_view v = { .tasks_only = c->tasks_only, .domains_only = c->domains_only || c->cpus_only,
				     .pid_labels = c->pid_labels };

	if (c->json)
		stat_json(o, f, &v);
	else if (c->prometheus)
		stat_prometheus(o, f, &v);
	else
		print_text(o, c, f);
}

/* --output: the whole refresh, then the file replaced by it at once. */
static int write_output(const struct ctl *c, const struct stat_frame *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);
	int err;

	if (!o)
		die(EXIT_FAILURE, "out of memory");
	render(o, c, f);
	if (fclose(o) != 0)
		die(EXIT_FAILURE, "out of memory");
	err = dl_file_replace(c->output, text, len, OUTPUT_MODE, false);
	free(text);
	if (err < 0)
		warnx_("%s", dl_errmsg());
	return err;
}

static int frame(const struct ctl *c, struct history *h, bool first)
{
	struct stat_frame f = { .watch = c->watch };
	struct dl_part_info *parts = NULL;
	struct dl_container_unreserved *unres = NULL;
	struct dl_layout *l = NULL;
	struct dl_task *t;
	struct dl_rd *rds;
	size_t nt, nrd, nparts = 0, nunres = 0;
	int *drift; /* dl_rd_drift(3) verdicts */
	uint64_t *used, *overruns;
	bool *seen, *rose;
	struct dl_task_counts *counts = NULL;
	struct cpu_servers *cpus = NULL;
	const struct dl_task_counts **mine;
	struct dl_budget *budgets;
	const struct dl_budget **budget;
	struct dl_task_counts *kcounts = NULL;
	uint64_t *kinferred = NULL;
	char kread_why[256] = "";
	size_t ncounts = 0;
	int ret = 0;

	if (dl_snapshot(c->pid, &t, &nt, &rds, &nrd) < 0) {
		warnx_("%s", dl_errmsg());
		return -1;
	}
	f.now = now_ns();
	drift = calloc(nrd ? nrd : 1, sizeof(*drift));
	used = calloc(nt ? nt : 1, sizeof(*used));
	overruns = calloc(nt ? nt : 1, sizeof(*overruns));
	seen = calloc(nt ? nt : 1, sizeof(*seen));
	rose = calloc(nt ? nt : 1, sizeof(*rose));
	mine = calloc(nt ? nt : 1, sizeof(*mine));
	budgets = calloc(nt ? nt : 1, sizeof(*budgets));
	budget = calloc(nt ? nt : 1, sizeof(*budget));
	if (c->kc) {
		kcounts = calloc(nt ? nt : 1, sizeof(*kcounts));
		kinferred = calloc(nt ? nt : 1, sizeof(*kinferred));
	}
	if (!drift || !used || !overruns || !seen || !rose || !mine || !budgets || !budget ||
	    (c->kc && (!kcounts || !kinferred)))
		die(EXIT_FAILURE, "out of memory");
	/* Each thread's budget left, where the kernel says (Linux 7.1):
	 * ENOTSUP for the first is the answer for all; a thread that left
	 * SCHED_DEADLINE or exited since the snapshot shows none. */
	for (size_t i = 0; (c->json || c->watch) && !c->domains_only && !c->cpus_only && i < nt; i++) {
		int err = dl_get_budget(t[i].tid, &budgets[i]);

		if (err == -ENOTSUP)
			break;
		if (err == 0)
			budget[i] = &budgets[i];
	}
	/* The kernel's counts, read once for the frame; a read that fails
	 * shows none, and says why, as a counter that cannot start does. */
	if (c->kc && kcount_read(c->kc, kread_why, sizeof(kread_why)) < 0) {
		free(kcounts);
		free(kinferred);
		kcounts = NULL;
		kinferred = NULL;
		ret = -1;
	}
	for (size_t i = 0; kcounts && i < nt; i++)
		kcount_get(c->kc, t[i].tid, &kcounts[i], &kinferred[i]);
	/* The counters the loops publish, each beside its thread; none
	 * readable is no error (dl-stat(1), FILES). */
	if (dl_counts_list(&counts, &ncounts) < 0)
		ncounts = 0;
	for (size_t i = 0; i < nt; i++) {
		for (size_t k = 0; k < ncounts; k++)
			if (counts[k].tid == t[i].tid)
				mine[i] = &counts[k];
		for (size_t k = 0; mine[i] && !first && k < h->ncounts; k++)
			if (h->counts[k].tid == t[i].tid && mine[i]->misses > h->counts[k].misses)
				rose[i] = true;
	}
	for (size_t i = 0; i < nrd; i++) {
		uint64_t since = 0;

		for (size_t k = 0; k < h->nrds; k++)
			if (dl_cpus_equal(&h->rds[k].cpus, &rds[i].cpus))
				since = h->high_since[k];
		drift[i] = dl_rd_drift(&rds[i], since ? f.now - since : 0);
	}
	if (!c->watch)
		settle_drift(rds, nrd, drift);
	/* Each task against itself a refresh ago. */
	for (size_t i = 0; i < nt; i++) {
		ssize_t k = first ? -1 : find_task(h, t[i].tid);

		if (k < 0)
			continue;
		seen[i] = true;
		used[i] = dl_task_used_per_period(&h->tasks[k], &t[i]);
		overruns[i] = h->overruns[k] + task_overran(&t[i], used[i]);
	}
	/* The layout, for the machines' formats (dl-part status shows it
	 * to people); none, or one this user cannot read: left out. */
	if ((c->json || c->prometheus) && !c->tasks_only && dl_layout_report(&parts, &nparts) >= 0 &&
	    dl_layout_load(&l) == 0) {
		f.layout = true;
		f.layout_version = dl_layout_version(l);
		f.parts = parts;
		f.nparts = nparts;
	}
	/* The containers that ask for a reservation and run without one
	 * (libdl-nri's records): not shown to a user who may not read
	 * them, nor for one process (-p). */
	if (!c->domains_only && !c->cpus_only && !c->pid && dl_container_unreserved_list(&unres, &nunres) == 0) {
		f.unreserved_known = true;
		f.unreserved = unres;
		f.nunreserved = nunres;
	}
	/* Each CPU's servers, but for the tasks alone. */
	if (!c->tasks_only) {
		ssize_t n = cpu_servers_read(rds, nrd, &cpus);

		if (n < 0)
			die(EXIT_FAILURE, "out of memory");
		f.cpus = cpus;
		f.ncpus = (size_t)n;
	}
	f.tasks = t;
	f.ntasks = nt;
	f.rds = rds;
	f.nrds = nrd;
	f.drift = drift;
	f.seen = seen;
	f.used = used;
	f.overruns = overruns;
	f.counts = mine;
	f.misses_rose = rose;
	f.budget = budget;
	f.kernel_asked = c->kernel;
	f.kernel_why = !c->kc ? c->kernel_why : !kcounts ? kread_why : NULL;
	f.kcounts = kcounts;
	f.kthrottles_inferred = kinferred;
	f.kthrottle_source = kcounts ? kcount_throttle_source(c->kc) : NULL;
	f.krec_failed = kcounts ? kcount_failed(c->kc) : 0;
	if (ret < 0)
		warnx_("--kernel: %s", kread_why);
	if (c->output) {
		ret = write_output(c, &f) < 0 ? -1 : ret;
	} else {
		if (c->watch && !c->json && !c->prometheus) {
			if (c->tty)
				fputs("\033[H\033[2J", stdout);
			else if (!first)
				putchar('\n');
			printf("dl-stat: %zu deadline thread%s, %zu root domain%s, every %s\n\n", nt, nt == 1 ? "" : "s", nrd,
			       nrd == 1 ? "" : "s", fmt_time(c->interval, (char[32]){ 0 }));
		}
		if (!c->tty || c->json || c->prometheus) {
			render(stdout, c, &f);
		} else {
			char *text = NULL;
			size_t len = 0;
			FILE *o = open_memstream(&text, &len);

			if (!o)
				die(EXIT_FAILURE, "out of memory");
			render(o, c, &f);
			if (fclose(o) != 0)
				die(EXIT_FAILURE, "out of memory");
			put_fitted(text, term_width(c));
			free(text);
		}
		fflush(stdout);
	}
	dl_layout_free(l);
	free(parts);
	free(unres);
	free(cpus);
	free(drift);
	free(used);
	free(seen);
	free(rose);
	free(mine);
	free(budgets);
	free(budget);
	free(kcounts);
	free(kinferred);
	free(h->counts);
	h->counts = counts;
	h->ncounts = ncounts;
	keep(h, t, nt, rds, nrd, overruns, f.now);
	return ret;
}

int main(int argc, char **argv)
{
	struct ctl c = { 0 };
	struct history h = { 0 };
	uint64_t done = 0;
	int bad = 0;

	util_init(argv[0]);
	parse_args(&c, argc, argv);
	dl_debugfs_mount(); /* dl-stat(1): the kernel's figures when root */
	/* Attached before the first refresh, detached by the kernel when
	 * dl-stat ends, however it ends: nothing is pinned (kcount.h). */
	if (c.kernel && kcount_start(&c.kc, c.kernel_why, sizeof(c.kernel_why)) < 0) {
		warnx_("--kernel: no job is counted from the kernel: %s; the published counters are shown", c.kernel_why);
		bad = 1;
	}
	for (;;) {
		if (frame(&c, &h, done == 0) < 0)
			bad = 1;
		done++;
		if (!c.watch || (c.count && done >= c.count))
			break;
		sleep_ns(c.interval);
	}
	free(h.tasks);
	free(h.rds);
	free(h.high_since);
	free(h.overruns);
	free(h.counts);
	kcount_stop(c.kc);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
