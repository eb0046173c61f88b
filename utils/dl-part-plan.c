/*
 * dl-part-plan.c: `dl-part plan` and `dl-part apply`: from a task set to
 * verdicts, a partition plan, and that plan made real.
 *
 * The analysis and the plan are the library's (dl_plan_compute(3)); this
 * file prints them and, for apply, creates the layout and starts each
 * task that has a COMMAND under its reservation in its place.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "dl-part-conf.h"
#include "dl-part-plan.h"
#include "json-writer.h"
#include "tool.h"

struct plan_opts {
	int cpus;
	int ncaps;               /* --capacity: the CPUs' capacities */
	uint32_t caps[DL_CPUS_MAX];
	bool json;
	unsigned int flags; /* DL_LAYOUT_* for apply */
	const char *path;
	bool server_set;         /* --fair-server: plan with this server */
	struct dl_params server; /* on every CPU; runtime 0: off */
	bool exact_off;		 /* --exact-time 0 */
	struct dl_exact_opts exact; /* --exact-time, --exact-states, --ties */
};

/* What --fair-server changes: the platform as found (this machine, or
 * the kernel's defaults of --cpus) and its plan, beside the plan with
 * the server given. */
struct server_change {
	struct dl_platform base;
	struct dl_plan *plan; /* NULL without --fair-server */
};

static const char *task_name(const struct dl_taskset *set, ssize_t i)
{
	return i >= 0 && (size_t)i < dl_taskset_count(set) ? dl_taskset_task(set, (size_t)i)->name : "-";
}

static const char *bw(int64_t v, char buf[DL_BW_STRLEN])
{
	return dl_bw_format(v, buf, DL_BW_STRLEN);
}

/* The library's sentence, with the task's name for the simulation's
 * miss. */
static const char *global_why(const struct dl_taskset *set, const struct dl_global_result *g,
			      char *buf, size_t len)
{
	char at[DL_TIME_STRLEN];

	if (g->miss_at && g->limiting >= 0)
		snprintf(buf, len, "not guaranteed on %d CPUs under global EDF: no sufficient test accepts, and with all tasks released together and equal deadlines in task order, %s misses its deadline at %s",
			 g->ncpus, task_name(set, g->limiting), dl_time_format(g->miss_at, at, sizeof(at)));
	else
		snprintf(buf, len, "%s", g->why);
	return buf;
}

static void print_global(const struct dl_taskset *set, const struct dl_global_result *g)
{
	static const char *const verdicts[] = { "infeasible", "not guaranteed", "schedulable" };
	char a[32], b[32], why[512];

	printf("global EDF on %d CPUs: %s\n", g->ncpus, verdicts[g->verdict + 1]);
	printf("  %s\n", global_why(set, g, why, sizeof(why)));
	printf("  tests:");
	for (int t = DL_TEST_NM; t <= DL_TEST_RTA; t++)
		printf(" %s %s", dl_test_name(t),
		       g->result[t] == 1 ? "accepts" : g->result[t] == 0 ? "refuses" : "not run");
	printf("\n");
	if (g->limiting >= 0)
		printf("  limiting task: %s\n", task_name(set, g->limiting));
	printf("  GFB margin %s; critical scaling factor %s (the tests accept every runtime times this, at most)\n",
	       bw(g->margin, a), bw((int64_t)g->scaling, b));
	if (g->accepted_by == DL_TEST_RTA)
		for (size_t i = 0; i < g->ntasks; i++) {
			char r[DL_TIME_STRLEN];

			printf("  %s responds within %s\n", task_name(set, (ssize_t)i),
			       dl_time_format(g->response[i], r, sizeof(r)));
		}
}

static void print_part(const struct dl_taskset *set, const struct dl_plan *plan, const struct dl_plan_part *p)
{
	char cpus[DL_CPUS_STRLEN], a[DL_BW_STRLEN], b[DL_BW_STRLEN], c[DL_BW_STRLEN], d[DL_BW_STRLEN];

	printf("  %-10s CPUs %-6s %s: load %s (%s per CPU), free %s; test %s, scaling %s\n    tasks:",
	       p->name, dl_cpus_format(&p->cpus, cpus, sizeof(cpus)),
	       strcmp(p->name, DL_CLUSTER) ? "partition" : "cluster",
	       bw(p->load, a), bw(p->load / (p->ncpus ? p->ncpus : 1), b),
	       bw(p->free_bw, c), p->test >= 0 ? dl_test_name(p->test) : "none (no task)",
	       bw(p->scaling, d));
	for (size_t i = 0; i < p->ntasks; i++)
		printf(" %s", task_name(set, (ssize_t)p->tasks[i]));
	printf(p->ntasks ? "\n" : " none\n");
	if (p->cap_min != p->cap_max)
		printf("    capacity %" PRIu32 " to %" PRIu32 ": the tests count every CPU at %" PRIu32 "\n", p->cap_min,
		       p->cap_max, p->cap_min);
	else if (plan->cap_min != plan->cap_max || p->cap_min != DL_CAPACITY_SCALE)
		printf("    capacity %" PRIu32 "\n", p->cap_min);
}

/* A fair server in words: "off", or "50ms every 1s". */
static const char *server_text(const struct dl_params *sv, char *buf, size_t len)
{
	char r[DL_TIME_STRLEN], p[DL_TIME_STRLEN];

	if (!sv->runtime)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%s every %s", fmt_time(sv->runtime, r), fmt_time(sv->period, p));
	return buf;
}

/* What each CPU admits of deadline tasks: the cap less its server. */
static int64_t per_cpu_room(const struct dl_platform *pf)
{
	return pf->cpu_bw - (pf->server.runtime ? (int64_t)dl_params_bw(&pf->server) : 0);
}

/* The platform's CPUs by capacity, "0-2 of 1024, 3-5 of 446", or NULL
 * when they are alike. */
static const char *caps_text(const struct dl_platform *pf, const struct dl_plan *plan, char *buf, size_t len)
{
	size_t at = 0;

	if (plan->cap_min == plan->cap_max)
		return NULL;
	buf[0] = 0;
	/* Each capacity once, biggest first. */
	for (uint32_t cap = plan->cap_max + 1;;) {
		uint32_t next = 0;
		dl_cpus_t these;
		char list[DL_CPUS_STRLEN];

		for (int c = 0; c < DL_CPUS_MAX; c++)
			if (dl_cpus_isset(&pf->cpus, c) && pf->capacity[c] < cap && pf->capacity[c] > next)
				next = pf->capacity[c];
		if (!next)
			break;
		dl_cpus_zero(&these);
		for (int c = 0; c < DL_CPUS_MAX; c++)
			if (dl_cpus_isset(&pf->cpus, c) && pf->capacity[c] == next)
				dl_cpus_set(&these, c);
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s of %" PRIu32, at ? ", " : "",
					       dl_cpus_format(&these, list, sizeof(list)), next);
		cap = next;
	}
	return buf;
}

/* The CPUs of the platform a task needing capacity need fits. */
static const char *fitting(const struct dl_platform *pf, uint32_t need, char buf[DL_CPUS_STRLEN])
{
	dl_cpus_t fit;

	dl_cpus_zero(&fit);
	for (int c = 0; c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&pf->cpus, c) && pf->capacity[c] >= need)
			dl_cpus_set(&fit, c);
	return dl_cpus_count(&fit) ? dl_cpus_format(&fit, buf, DL_CPUS_STRLEN) : "none";
}

/* A plan in a few words, for the side by side of --fair-server. */
static const char *plan_words(const struct dl_taskset *set, const struct dl_plan *plan, char *buf, size_t len)
{
	char m[DL_BW_STRLEN];

	if (!plan->feasible && plan->unplaced >= 0)
		snprintf(buf, len, "no plan (%s cannot be placed)", task_name(set, plan->unplaced));
	else if (!plan->feasible)
		snprintf(buf, len, "no plan");
	else
		snprintf(buf, len, "a plan of %zu partition%s, margin %s", plan->nparts, plan->nparts == 1 ? "" : "s",
			 bw(plan->margin, m));
	return buf;
}

/* --fair-server: what it gains or costs against the platform as found. */
static void print_change(const struct dl_taskset *set, const struct dl_platform *pf, bool defaults,
			 const struct dl_plan *plan, const struct server_change *ch)
{
	char a[DL_BW_STRLEN], b[DL_BW_STRLEN], c[DL_BW_STRLEN], d[DL_BW_STRLEN], s1[64], s2[64], w1[256], w2[256];
	int64_t gain = per_cpu_room(pf) - per_cpu_room(&ch->base);

	printf("fair server %s for the plan, against %s %s: ", server_text(&pf->server, s1, sizeof(s1)),
	       defaults ? "the kernel's default" : "this machine's", server_text(&ch->base.server, s2, sizeof(s2)));
	if (pf->unlimited)
		printf("no admission test on this platform (sched_rt_runtime_us -1), the bandwidth counts only in the tests\n");
	else
		printf("each CPU admits %s of deadline tasks instead of %s (%s%s per CPU, %s%s on %d CPUs)\n",
		       bw(per_cpu_room(pf), a), bw(per_cpu_room(&ch->base), b), gain > 0 ? "+" : "", bw(gain, c),
		       gain > 0 ? "+" : "", bw(gain * pf->ncpus, d), pf->ncpus);
	printf("  with %s: %s; with %s: %s\n", s2, plan_words(set, ch->plan, w1, sizeof(w1)), s1,
	       plan_words(set, plan, w2, sizeof(w2)));
	if (plan->feasible && !ch->plan->feasible)
		printf("  every task fits now\n");
	else if (!plan->feasible && ch->plan->feasible)
		printf("  the tasks no longer all fit\n");
}

/* The exact test (dl_exact_test(3)), run when no sufficient test
 * accepts: NULL when not run. */
static struct dl_exact_result *run_exact(const struct plan_opts *o, const struct dl_taskset *set,
					 const struct dl_platform *pf, const struct dl_plan *plan)
{
	size_t n = dl_taskset_count(set);
	struct dl_params *p;
	struct dl_exact_result *r = NULL;

	/* The exact search models CPUs alike, at the biggest's speed. */
	if (o->exact_off || !plan->global || plan->global->verdict != DL_NOT_GUARANTEED ||
	    plan->cap_min != DL_CAPACITY_SCALE)
		return NULL;
	p = calloc(n ? n : 1, sizeof(*p));
	if (!p)
		die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < n; i++)
		p[i] = dl_taskset_task(set, i)->params;
	if (dl_exact_test(p, n, pf->ncpus, &pf->server, &o->exact, &r) < 0)
		warnx_("the exact test: %s", dl_errmsg());
	free(p);
	return r;
}

static const char *exact_task(const struct dl_taskset *set, const struct dl_exact_result *r, size_t i)
{
	return i < r->ntasks ? task_name(set, (ssize_t)i) : "fair-server";
}

/* The library's sentence, with the names of the tasks. */
static const char *exact_why(const struct dl_taskset *set, const struct dl_exact_result *r, char *buf,
			     size_t len)
{
	char at[DL_TIME_STRLEN];

	if (r->verdict == DL_UNSCHEDULABLE)
		snprintf(buf, len,
			 "not schedulable on %d CPUs under global EDF: with the %zu releases of the witness%s, %s misses its deadline at %s",
			 r->ncpus, r->narrivals, r->nties ? " and its order among equal deadlines" : "",
			 exact_task(set, r, (size_t)r->task), dl_time_format(r->miss_at, at, sizeof(at)));
	else
		snprintf(buf, len, "%s", r->why);
	return buf;
}

/* The witness as a task file, its lines with the set's names. */
static char *exact_taskfile(const struct dl_taskset *set, const struct dl_exact_result *r)
{
	size_t n = dl_taskset_count(set);
	const char **names = calloc(n ? n : 1, sizeof(*names));
	struct dl_params *p = calloc(n ? n : 1, sizeof(*p));
	char *text = NULL;

	if (!names || !p)
		die(EXIT_FAILURE, "out of memory");
	for (size_t i = 0; i < n; i++) {
		names[i] = dl_taskset_task(set, i)->name;
		p[i] = dl_taskset_task(set, i)->params;
	}
	if (dl_exact_witness(r, p, names, &text) < 0)
		text = NULL;
	free(names);
	free(p);
	return text;
}

static const char *const exact_verdicts[] = { "not schedulable", "infeasible", "unknown", "schedulable" };

static void print_exact(const struct dl_taskset *set, const struct dl_platform *pf,
			const struct dl_exact_result *r)
{
	char why[512], el[DL_TIME_STRLEN], *text;

	if (!r)
		return;
	printf("exact test: %s\n  %s\n", exact_verdicts[r->verdict + 2], exact_why(set, r, why, sizeof(why)));
	/* Not searched (no budget spent, no state kept): the grid, which
	 * the fair server's long period makes fine. */
	if (r->verdict == DL_NOT_GUARANTEED && !r->budget_spent && !r->states && pf->server.runtime)
		printf("  the fair servers count as tasks: --fair-server off plans without them\n");
	if (r->unit)
		printf("  %" PRIu64 " states searched in %s\n", r->states,
		       dl_time_format(r->elapsed_ns, el, sizeof(el)));
	if (r->verdict != DL_UNSCHEDULABLE)
		return;
	text = exact_taskfile(set, r);
	if (!text)
		return;
	printf("  witness, a task file (libdl-taskset(5)) dl-load runs:\n");
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		printf("    %s\n", line);
	free(text);
}

static void print_text(const struct dl_taskset *set, const struct dl_platform *pf, bool defaults,
		       const struct dl_plan *plan, const struct server_change *ch,
		       const struct dl_exact_result *ex)
{
	char a[DL_BW_STRLEN], b[DL_BW_STRLEN], c[DL_BW_STRLEN], caps[512], fit[DL_CPUS_STRLEN];

	printf("%zu tasks on %d CPUs (admission cap %s per CPU; fair server %s): %s\n",
	       dl_taskset_count(set), pf->ncpus,
	       pf->unlimited ? "none" : bw(pf->cpu_bw, a),
	       pf->server.runtime ? bw(dl_params_bw(&pf->server), b) : "none",
	       defaults ? "the kernel's defaults for a machine of that many CPUs, not this machine's settings"
			: "this machine's online CPUs and settings");
	if (caps_text(pf, plan, caps, sizeof(caps))) {
		printf("CPU capacities: %s (the kernel charges runtime at a CPU's capacity: a runtime lasts runtime x 1024 / capacity there)\n",
		       caps);
		/* The tasks that need more than the smallest CPUs have. */
		for (size_t i = 0; i < plan->ntasks; i++)
			if (plan->cap_need[i] > plan->cap_min)
				printf("  %s needs a CPU of capacity %" PRIu32 " or more: CPUs %s\n",
				       task_name(set, (ssize_t)i), plan->cap_need[i], fitting(pf, plan->cap_need[i], fit));
	}
	if (ch->plan)
		print_change(set, pf, defaults, plan, ch);
	print_global(set, plan->global);
	print_exact(set, pf, ex);
	if (!plan->feasible) {
		if (plan->unplaced >= 0)
			printf("no plan: %s cannot be placed: %s\n", task_name(set, plan->unplaced), plan->why);
		else
			printf("no plan: %s\n", plan->why);
		return;
	}
	printf("plan: %s", dl_plan_method_name(plan->method));
	if (plan->method == DL_PLAN_EDFK || plan->method == DL_PLAN_EDFK_PACKED)
		printf(", k=%d", plan->k);
	printf(", %zu partition%s, margin %s\n", plan->nparts, plan->nparts == 1 ? "" : "s",
	       bw(plan->margin, c));
	for (size_t j = 0; j < plan->nparts; j++)
		print_part(set, plan, plan->parts[j]);
	print_part(set, plan, plan->cluster);
}

static void json_part(struct json *j, const char *key, const struct dl_taskset *set,
		      const struct dl_plan_part *p)
{
	char cpus[DL_CPUS_STRLEN];

	json_obj_begin(j, key);
	json_str(j, "name", p->name);
	json_str(j, "cpus", dl_cpus_format(&p->cpus, cpus, sizeof(cpus)));
	json_int(j, "ncpus", p->ncpus);
	json_arr_begin(j, "tasks");
	for (size_t i = 0; i < p->ntasks; i++)
		json_str(j, NULL, task_name(set, (ssize_t)p->tasks[i]));
	json_arr_end(j);
	if (p->test >= 0)
		json_str(j, "test", dl_test_name(p->test));
	else
		json_null(j, "test");
	json_int(j, "load_bw", p->load);
	json_int(j, "load_per_cpu_bw", p->load / (p->ncpus ? p->ncpus : 1));
	json_int(j, "free_bw", p->free_bw);
	json_int(j, "scaling_bw", p->scaling);
	json_uint(j, "cpu_capacity_min", p->cap_min);
	json_uint(j, "cpu_capacity_max", p->cap_max);
	json_obj_end(j);
}

/* The server as JSON: runtime_ns and period_ns (0 and 0: off) and bw. */
static void json_server(struct json *j, const char *key, const struct dl_params *sv)
{
	json_obj_begin(j, key);
	json_uint(j, "runtime_ns", sv->runtime);
	json_uint(j, "period_ns", sv->runtime ? sv->period : 0);
	json_int(j, "bw", sv->runtime ? (int64_t)dl_params_bw(sv) : 0);
	json_obj_end(j);
}

static void json_change(struct json *j, const struct dl_taskset *set, const struct dl_platform *pf,
			const struct server_change *ch)
{
	const struct dl_plan *b = ch->plan;
	int64_t gain = per_cpu_room(pf) - per_cpu_room(&ch->base);

	if (!b) {
		json_null(j, "fair_server_change");
		return;
	}
	json_obj_begin(j, "fair_server_change");
	json_server(j, "baseline_fair_server", &ch->base.server);
	json_int(j, "per_cpu_gain_bw", pf->unlimited ? 0 : gain);
	json_int(j, "gain_bw", pf->unlimited ? 0 : gain * pf->ncpus);
	json_bool(j, "baseline_feasible", b->feasible);
	json_int(j, "baseline_partitions", b->feasible ? (int64_t)b->nparts : 0);
	if (b->feasible)
		json_int(j, "baseline_margin_bw", b->margin);
	else
		json_null(j, "baseline_margin_bw");
	if (!b->feasible && b->unplaced >= 0)
		json_str(j, "baseline_unplaced", task_name(set, b->unplaced));
	else
		json_null(j, "baseline_unplaced");
	json_obj_end(j);
}

static void json_exact(struct json *j, const struct dl_taskset *set, const struct dl_exact_result *r)
{
	char why[512], *text;

	if (!r) {
		json_null(j, "exact");
		return;
	}
	json_obj_begin(j, "exact");
	json_str(j, "verdict", exact_verdicts[r->verdict + 2]);
	json_str(j, "why", exact_why(set, r, why, sizeof(why)));
	json_bool(j, "any_tie_order", !(r->flags & DL_EXACT_TIES_INDEX));
	json_uint(j, "unit_ns", r->unit);
	json_uint(j, "states", r->states);
	json_uint(j, "elapsed_ns", r->elapsed_ns);
	if (r->budget_spent)
		json_str(j, "budget_spent", r->budget_spent == DL_EXACT_OUT_OF_TIME ? "time" : "states");
	else
		json_null(j, "budget_spent");
	if (r->verdict != DL_UNSCHEDULABLE) {
		json_null(j, "misses");
		json_obj_end(j);
		return;
	}
	json_str(j, "misses", exact_task(set, r, (size_t)r->task));
	json_uint(j, "miss_at_ns", r->miss_at);
	json_arr_begin(j, "arrivals");
	for (size_t k = 0; k < r->narrivals; k++) {
		json_obj_begin(j, NULL);
		json_str(j, "task", exact_task(set, r, r->arrivals[k].task));
		json_uint(j, "release_ns", r->arrivals[k].release);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "ties");
	for (size_t k = 0; k < r->nties; k++) {
		json_obj_begin(j, NULL);
		json_uint(j, "from_ns", r->ties[k].from);
		json_uint(j, "to_ns", r->ties[k].to);
		json_arr_begin(j, "ahead");
		for (size_t i = 0; i < r->ntotal && i < 64; i++)
			if (r->ties[k].ahead >> i & 1)
				json_str(j, NULL, exact_task(set, r, i));
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	text = exact_taskfile(set, r);
	if (text)
		json_str(j, "taskfile", text);
	else
		json_null(j, "taskfile");
	free(text);
	json_obj_end(j);
}

static void print_json(const struct dl_taskset *set, const struct dl_platform *pf, bool defaults,
		       const struct dl_plan *plan, const struct server_change *ch,
		       const struct dl_exact_result *ex)
{
	static const char *const verdicts[] = { "infeasible", "not guaranteed", "schedulable" };
	const struct dl_global_result *g = plan->global;
	char cpus[DL_CPUS_STRLEN], why[512];
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_bool(&j, "feasible", plan->feasible);
	json_int(&j, "cpus", pf->ncpus);
	json_str(&j, "platform", defaults ? "defaults" : "host");
	json_str(&j, "cpu_list", dl_cpus_format(&pf->cpus, cpus, sizeof(cpus)));
	json_int(&j, "cpu_bw", pf->unlimited ? 0 : pf->cpu_bw);
	json_int(&j, "fair_server_bw", pf->server.runtime ? dl_params_bw(&pf->server) : 0);
	json_server(&j, "fair_server", &pf->server);
	json_change(&j, set, pf, ch);
	/* Each CPU's capacity, in the order of cpu_list; each task's need. */
	json_arr_begin(&j, "cpu_capacity");
	for (int c = 0; c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&pf->cpus, c))
			json_uint(&j, NULL, pf->capacity ? pf->capacity[c] : DL_CAPACITY_SCALE);
	json_arr_end(&j);
	json_obj_begin(&j, "cpu_capacity_need");
	for (size_t i = 0; i < plan->ntasks; i++)
		json_uint(&j, task_name(set, (ssize_t)i), plan->cap_need[i]);
	json_obj_end(&j);
	json_obj_begin(&j, "global");
	json_str(&j, "verdict", verdicts[g->verdict + 1]);
	json_str(&j, "why", global_why(set, g, why, sizeof(why)));
	json_obj_begin(&j, "tests");
	for (int t = DL_TEST_NM; t <= DL_TEST_RTA; t++) {
		if (g->result[t] < 0)
			json_null(&j, dl_test_name(t));
		else
			json_bool(&j, dl_test_name(t), g->result[t] == 1);
	}
	json_obj_end(&j);
	if (g->accepted_by >= 0)
		json_str(&j, "accepted_by", dl_test_name(g->accepted_by));
	else
		json_null(&j, "accepted_by");
	if (g->limiting >= 0)
		json_str(&j, "limiting", task_name(set, g->limiting));
	else
		json_null(&j, "limiting");
	json_int(&j, "util_bw", g->util);
	json_int(&j, "gfb_margin_bw", g->margin);
	json_int(&j, "scaling_bw", g->scaling);
	if (g->accepted_by == DL_TEST_RTA) {
		json_obj_begin(&j, "response_ns");
		for (size_t i = 0; i < g->ntasks; i++)
			json_uint(&j, task_name(set, (ssize_t)i), g->response[i]);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_exact(&j, set, ex);
	if (plan->feasible) {
		json_str(&j, "method", dl_plan_method_name(plan->method));
		json_int(&j, "k", plan->k);
		json_int(&j, "margin_bw", plan->margin);
		json_arr_begin(&j, "partitions");
		for (size_t p = 0; p < plan->nparts; p++)
			json_part(&j, NULL, set, plan->parts[p]);
		json_arr_end(&j);
		json_part(&j, "cluster", set, plan->cluster);
		json_null(&j, "unplaced");
	} else {
		json_arr_begin(&j, "partitions");
		json_arr_end(&j);
		json_null(&j, "cluster");
		if (plan->unplaced >= 0)
			json_str(&j, "unplaced", task_name(set, plan->unplaced));
		else
			json_null(&j, "unplaced");
		json_str(&j, "why", plan->why);
	}
	json_obj_end(&j);
	json_end(&j);
}

/* --fair-server off|RUNTIME/PERIOD, read as dl-part.conf(5) reads it. */
static void plan_server(const char *arg, struct dl_params *sv)
{
	char why[256];

	memset(sv, 0, sizeof(*sv));
	if (conf_server_value(arg, &sv->runtime, &sv->period, why, sizeof(why)) < 0)
		usage_error("--fair-server %s", why);
	if (sv->runtime > sv->period)
		usage_error("--fair-server %s: the runtime is longer than the period: a server needs runtime <= period",
			    arg);
	if (!sv->runtime)
		memset(sv, 0, sizeof(*sv));
	sv->deadline = sv->period;
}

/* --capacity 1024x2,446x4 (or 1024,1024,446,...): CPU 0's first. */
static void parse_caps(struct plan_opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy)
		die(EXIT_FAILURE, "out of memory");
	o->ncaps = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *x = strchr(tok, 'x');
		uint32_t cap, times = 1;

		if (x) {
			*x = 0;
			times = opt_uint("--capacity's count after x", x + 1, DL_CPUS_MAX);
		}
		cap = opt_uint("--capacity", tok, UINT32_MAX - 1);
		if (cap == 0 || cap > DL_CAPACITY_SCALE || times == 0)
			usage_error("--capacity %s: each CPU's capacity is 1 to %d (the biggest CPUs' %d), as CAP or CAPxCOUNT, comma-separated",
				    arg, DL_CAPACITY_SCALE, DL_CAPACITY_SCALE);
		if (o->ncaps + (int)times > DL_CPUS_MAX)
			usage_error("--capacity %s: more than %d CPUs", arg, DL_CPUS_MAX);
		while (times--)
			o->caps[o->ncaps++] = cap;
	}
	free(copy);
	if (!o->ncaps)
		usage_error("--capacity '%s': give each CPU's capacity, e.g. 1024x2,446x4", arg);
}

static void parse(struct plan_opts *o, const char *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "capacity", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-move", no_argument, NULL, 'n' },
		{ "isolated", no_argument, NULL, 'i' },
		{ "fair-server", required_argument, NULL, 'f' },
		{ "exact-time", required_argument, NULL, 'T' },
		{ "exact-states", required_argument, NULL, 'S' },
		{ "ties", required_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool plan = strcmp(cmd, "plan") == 0;
	int c;

	optind = 2;
	while ((c = getopt_long(argc, argv, "+:c:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!plan)
				usage_error("apply takes no --cpus: it plans for this machine's online CPUs");
			o->cpus = (int)opt_uint("--cpus", optarg, DL_CPUS_MAX);
			if (o->cpus == 0)
				usage_error("--cpus 0: give at least 1 CPU");
			break;
		case 'C':
			if (!plan)
				usage_error("apply takes no --capacity: it plans for this machine's CPUs as the kernel reports them");
			parse_caps(o, optarg);
			break;
		case 'j':
			if (!plan)
				usage_error("apply takes no --json");
			o->json = true;
			break;
		case 'f':
			if (!plan)
				usage_error("apply takes no --fair-server: it plans with this machine's fair servers as they are");
			plan_server(optarg, &o->server);
			o->server_set = true;
			break;
		case 'T':
		case 'S':
		case 'y':
			if (!plan)
				usage_error("apply takes no --%s: it runs no exact test",
					    c == 'T'   ? "exact-time"
					    : c == 'S' ? "exact-states"
						       : "ties");
			if (c == 'T') {
				o->exact.max_ns = opt_time("--exact-time", optarg);
				o->exact_off = o->exact.max_ns == 0;
			} else if (c == 'S') {
				o->exact.max_states = opt_uint("--exact-states", optarg, UINT32_MAX - 1);
				if (!o->exact.max_states)
					usage_error(
						"--exact-states 0: give at least 1 state (--exact-time 0 turns the test off)");
			} else if (!strcmp(optarg, "index")) {
				o->exact.flags |= DL_EXACT_TIES_INDEX;
			} else if (!strcmp(optarg, "any")) {
				o->exact.flags &= ~(unsigned)DL_EXACT_TIES_INDEX;
			} else {
				usage_error("--ties %s: say any (every order among equal deadlines) or index (the lower task first)",
					    optarg);
			}
			break;
		case 'n':
		case 'i':
			if (plan)
				usage_error("plan takes no --%s (it changes nothing)", c == 'n' ? "no-move" : "isolated");
			o->flags |= c == 'n' ? DL_LAYOUT_NO_MOVE : DL_LAYOUT_ISOLATED;
			break;
		case 'h':
			printf("Usage: %s plan [--cpus N] [--capacity CAP[xN],...] [--fair-server off|RUNTIME/PERIOD]\n"
			       "              [--exact-time TIME]\n"
			       "              [--exact-states N] [--ties any|index] [--json] TASKSET\n"
			       "       %s apply [--no-move] [--isolated] TASKSET\n",
			       program_name, program_name);
			exit(EXIT_SUCCESS);
		default:
			bad_option(c, argv);
		}
	}
	if (o->ncaps && o->cpus && o->cpus != o->ncaps)
		usage_error("--cpus %d but --capacity gives %d CPUs: give one of them, or the same count", o->cpus, o->ncaps);
	if (o->ncaps)
		o->cpus = o->ncaps;
	if (optind >= argc)
		usage_error("%s needs a task set file (\"-\" for stdin); see libdl-taskset(5)", cmd);
	o->path = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' after the task set", argv[optind]);
}

/* --cpus N plans for another machine of N CPUs: the kernel's defaults,
 * nothing read from this one; without it, this machine as it is. */
static int load(const struct plan_opts *o, struct dl_taskset **set, struct dl_platform *pf,
		struct dl_plan **plan, struct server_change *ch)
{
	int err;

	if (dl_taskset_read(o->path, set) < 0) {
		warnx_("%s", dl_errmsg());
		return EXIT_USAGE;
	}
	if ((o->cpus ? dl_platform_init(pf, o->cpus) : dl_platform_get(pf, 0)) < 0) {
		warnx_("%s", dl_errmsg());
		return o->cpus ? EXIT_USAGE : EXIT_FAILURE;
	}
	/* --capacity: CPUs 0..N-1 of those capacities. */
	if (o->ncaps)
		pf->capacity = o->caps;
	/* --fair-server: the plan with it, and with the platform's own
	 * beside it (what it gains or costs). */
	if (o->server_set) {
		ch->base = *pf;
		pf->server = o->server;
		if (dl_plan_taskset(*set, &ch->base, &ch->plan) < 0) {
			warnx_("%s", dl_errmsg());
			return EXIT_FAILURE;
		}
	}
	for (size_t i = 0; i < dl_taskset_count(*set); i++)
		if (dl_taskset_task(*set, i)->place) {
			warnx_("note: the plan chooses every task's place; place= of %s (line %d) is ignored",
			       dl_taskset_task(*set, i)->name, dl_taskset_task(*set, i)->line);
			break;
		}
	err = dl_plan_taskset(*set, pf, plan);
	if (err < 0) {
		warnx_("%s", dl_errmsg());
		/* A server the platform's kernel would not take: bad usage. */
		return o->server_set && err == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
	}
	return 0;
}

/* Fork, join the place, take the reservation, exec; the child's failure
 * comes back on a close-on-exec pipe. */
static pid_t start_task(const struct dl_taskspec *t, const char *place, char *why, size_t len)
{
	char msg[1024] = "";
	int p[2];
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, len, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		if ((place ? dl_part_set(place, 0, &t->params) : dl_set(0, &t->params)) < 0)
			snprintf(msg, sizeof(msg), "%s", dl_errmsg());
		else {
			execvp(t->argv[0], t->argv);
			snprintf(msg, sizeof(msg), "cannot run %s: %s", t->argv[0], strerror(errno));
		}
		if (write(p[1], msg, strlen(msg)) < 0)
			_exit(EXIT_CANNOT_EXEC);
		_exit(EXIT_CANNOT_EXEC);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	if (n > 0) {
		msg[n] = '\0';
		snprintf(why, len, "%s", msg);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static const char *place_of(const struct dl_plan *plan, size_t task)
{
	for (size_t j = 0; j < plan->nparts; j++)
		for (size_t i = 0; i < plan->parts[j]->ntasks; i++)
			if (plan->parts[j]->tasks[i] == task)
				return plan->parts[j]->name;
	return DL_CLUSTER;
}

static int apply(const struct plan_opts *o, const struct dl_taskset *set, const struct dl_plan *plan)
{
	size_t n = dl_taskset_count(set), started = 0;
	struct dl_layout_result res = { 0 };
	struct dl_layout *l = NULL;
	pid_t *pids = calloc(n ? n : 1, sizeof(*pids));
	int ret = EXIT_FAILURE;

	if (!pids)
		die(EXIT_FAILURE, "out of memory");
	if (plan->nparts == 0) {
		printf("no layout needed: every task runs globally on every CPU\n");
	} else {
		if (dl_plan_layout(plan, &l) < 0) {
			warnx_("%s", dl_errmsg());
			goto out;
		}
		dl_layout_set_flags(l, o->flags);
		if (dl_layout_create(l, &res) < 0) {
			warnx_("cannot create the plan's layout: %s", dl_errmsg());
			goto out;
		}
		printf("layout created: %zu partition%s and the cluster; %" PRIu64 " tasks moved to the cluster\n",
		       plan->nparts, plan->nparts == 1 ? "" : "s", res.moved);
	}
	for (size_t i = 0; i < n; i++) {
		const struct dl_taskspec *t = dl_taskset_task(set, i);
		const char *place = l ? place_of(plan, i) : NULL;
		char why[1024];

		if (!t->argv)
			continue;
		pids[i] = start_task(t, place, why, sizeof(why));
		if (pids[i] < 0) {
			warnx_("task %s: %s", t->name, why);
			/* Undo: stop what was started, then the layout. */
			for (size_t k = 0; k < i; k++)
				if (pids[k] > 0) {
					kill(pids[k], SIGKILL);
					waitpid(pids[k], NULL, 0);
				}
			if (!l)
				warnx_("stopped the tasks started");
			else if (dl_layout_destroy(l, &res) < 0)
				warnx_("cannot destroy the layout: %s; run dl-part destroy", dl_errmsg());
			else
				warnx_("stopped the tasks started and destroyed the layout");
			goto out;
		}
		started++;
		printf("started %s (pid %d) in %s: %s\n", t->name, (int)pids[i],
		       place ? place : "the root domain", t->argv[0]);
	}
	printf("%zu task%s started; dl-part destroy undoes the layout\n", started, started == 1 ? "" : "s");
	ret = EXIT_SUCCESS;
out:
	dl_layout_free(l);
	free(pids);
	return ret;
}

int dl_part_plan_main(const char *cmd, int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct dl_taskset *set = NULL;
	struct dl_platform pf;
	struct dl_plan *plan = NULL;
	struct server_change ch = { .plan = NULL };
	struct dl_exact_result *ex = NULL;
	int ret;

	parse(&o, cmd, argc, argv);
	ret = load(&o, &set, &pf, &plan, &ch);
	if (ret)
		goto out;
	if (!strcmp(cmd, "plan")) {
		ex = run_exact(&o, set, &pf, plan);
		if (o.json)
			print_json(set, &pf, o.cpus != 0, plan, &ch, ex);
		else
			print_text(set, &pf, o.cpus != 0, plan, &ch, ex);
		ret = plan->feasible ? EXIT_SUCCESS : EXIT_FAILURE;
	} else if (!plan->feasible) {
		warnx_("no plan: %s%s%s", plan->unplaced >= 0 ? task_name(set, plan->unplaced) : "",
		       plan->unplaced >= 0 ? " cannot be placed: " : "", plan->why);
		ret = EXIT_FAILURE;
	} else {
		ret = apply(&o, set, plan);
	}
out:
	dl_exact_free(ex);
	dl_plan_free(ch.plan);
	dl_plan_free(plan);
	dl_taskset_free(set);
	return ret;
}
