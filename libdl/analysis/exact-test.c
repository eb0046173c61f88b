/*
 * exact-test.c: dl_exact_test(), exact.c's search behind the API: the
 * tasks checked, the verdict in a sentence, the witness replayed in
 * sim.c's simulator before it is shown, and written as a task file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sys/sys.h"

DL_EXPORT void dl_exact_free(struct dl_exact_result *res)
{
	if (!res)
		return;
	free(res->arrivals);
	free(res->ties);
	free(res);
}

/* The witness replayed: its miss is the one reported, or none is shown. */
static int confirm(const struct dl_an_task *ts, size_t n, int m, struct dl_exact_result *r)
{
	struct dl_an_arrival *arr = calloc(r->narrivals ? r->narrivals : 1, sizeof(*arr));
	struct dl_an_tie *ties = calloc(r->nties ? r->nties : 1, sizeof(*ties));
	ssize_t who = -1;
	uint64_t when = 0;
	int got = -ENOMEM;

	if (arr && ties) {
		for (size_t k = 0; k < r->narrivals; k++)
			arr[k] = (struct dl_an_arrival){ .task = r->arrivals[k].task,
							 .at = r->arrivals[k].release };
		for (size_t k = 0; k < r->nties; k++)
			ties[k] = (struct dl_an_tie){ .from = r->ties[k].from,
						      .to = r->ties[k].to,
						      .ahead = r->ties[k].ahead };
		got = dl_gedf_replay(ts, n, m, arr, r->narrivals, ties, r->nties, &who, &when);
	}
	free(arr);
	free(ties);
	if (got < 0)
		return got;
	if (got == 0)
		return 0;
	r->task = who;
	r->miss_at = when;
	return 1;
}

static const char *task_name(const struct dl_exact_result *r, size_t i, char *buf, size_t len)
{
	if (i < r->ntasks)
		snprintf(buf, len, "task %zu", i);
	else
		snprintf(buf, len, "fair server %zu", i - r->ntasks);
	return buf;
}

DL_EXPORT int dl_exact_test(const struct dl_params *tasks, size_t n, int ncpus,
			    const struct dl_params *server, const struct dl_exact_opts *opts,
			    struct dl_exact_result **res)
{
	struct dl_exact_result *r;
	struct dl_an_task *ts;
	size_t total;
	char u[DL_TIME_STRLEN], at[DL_TIME_STRLEN], who[40];
	const char *ties;
	int err;

	if (!res)
		return dl_fail(-EINVAL, "dl_exact_test: no result pointer given");
	*res = NULL;
	if (ncpus < 1 || ncpus > DL_CPUS_MAX)
		return dl_fail(-EINVAL, "%d CPUs: the analysis needs 1 to %d", ncpus, DL_CPUS_MAX);
	if (opts && (opts->flags & ~(unsigned)DL_EXACT_TIES_INDEX))
		return dl_fail(-EINVAL,
			       "dl_exact_test: unknown flags 0x%x: the only one is DL_EXACT_TIES_INDEX",
			       opts->flags & ~(unsigned)DL_EXACT_TIES_INDEX);
	err = dl_an_tasks(tasks, n, server, ncpus, &ts, &total);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(ts);
		return dl_fail(-ENOMEM, "out of memory");
	}
	r->ncpus = ncpus;
	r->flags = opts ? opts->flags : 0;
	r->ntasks = n;
	r->ntotal = total;
	r->task = -1;
	ties = r->flags & DL_EXACT_TIES_INDEX ? "with equal deadlines in task order"
					      : "whatever the order among equal deadlines";
	if (dl_an_util_cmp(ts, total, (uint64_t)ncpus) == 1) {
		r->verdict = DL_INFEASIBLE;
		snprintf(r->why, sizeof(r->why),
			 "infeasible: the tasks%s need more than the %d CPUs there are",
			 total > n ? " and fair servers" : "", ncpus);
		goto done;
	}
	if (total <= (size_t)ncpus) {
		r->verdict = DL_SCHEDULABLE;
		snprintf(r->why, sizeof(r->why),
			 "schedulable on %d CPUs under global EDF: a CPU for every task", ncpus);
		goto done;
	}
	err = dl_an_exact(ts, total, ncpus, opts, r);
	if (err) {
		uint64_t states = r->states;

		dl_exact_free(r);
		free(ts);
		return dl_fail(err,
			       "the exact test: out of memory (%" PRIu64
			       " states kept): give it a smaller budget of states",
			       states);
	}
	dl_time_format(r->unit, u, sizeof(u));
	if (r->verdict == DL_SCHEDULABLE) {
		snprintf(r->why, sizeof(r->why),
			 "schedulable on %d CPUs under global EDF, %s: every sporadic arrival sequence on a grid of %s searched (%" PRIu64
			 " states)",
			 ncpus, ties, u, r->states);
	} else if (r->verdict == DL_UNSCHEDULABLE) {
		err = confirm(ts, total, ncpus, r);
		if (err <= 0) {
			/* The search and the simulator disagree: show no witness. */
			r->verdict = DL_NOT_GUARANTEED;
			r->task = -1;
			r->narrivals = r->nties = 0;
			snprintf(r->why, sizeof(r->why),
				 "unknown: the exact test's witness did not replay as a miss in the simulator (%s); please report it",
				 err < 0 ? "the replay failed" : "no miss");
		} else {
			snprintf(r->why, sizeof(r->why),
				 "not schedulable on %d CPUs under global EDF: with the %zu releases of the witness%s, %s misses its deadline at %s",
				 ncpus, r->narrivals,
				 r->nties
					 ? " and its order among equal deadlines"
					 : (r->flags & DL_EXACT_TIES_INDEX ? ", equal deadlines in task order"
									   : ""),
				 task_name(r, (size_t)r->task, who, sizeof(who)),
				 dl_time_format(r->miss_at, at, sizeof(at)));
		}
	} else if (r->budget_spent) {
		char el[DL_TIME_STRLEN];

		snprintf(r->why, sizeof(r->why),
			 "unknown within the budget: the exact test stopped at its %s limit after %" PRIu64
			 " states (%" PRIu64 " expanded) in %s, on a grid of %s",
			 r->budget_spent == DL_EXACT_OUT_OF_TIME ? "time" : "states", r->states, r->expanded,
			 dl_time_format(r->elapsed_ns, el, sizeof(el)), u);
	}
done:
	free(ts);
	*res = r;
	return 0;
}

/* A name the task file takes (libdl-taskset(5)): 1 to 32 letters, digits,
 * _ - and ., starting with a letter or _, with room for a job's suffix. */
static bool good_name(const char *s)
{
	size_t k;

	if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (k = 0; s[k]; k++)
		if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
		      (s[k] >= '0' && s[k] <= '9') || s[k] == '_' || s[k] == '-' || s[k] == '.'))
			return false;
	return k <= 24;
}

DL_EXPORT int dl_exact_witness(const struct dl_exact_result *r, const struct dl_params *tasks,
			       const char *const *names, char **text)
{
	char *buf = NULL, a[DL_TIME_STRLEN], b[DL_TIME_STRLEN], c[DL_TIME_STRLEN], d[DL_TIME_STRLEN],
	     e[DL_TIME_STRLEN];
	size_t len = 0;
	FILE *f;

	if (!text)
		return dl_fail(-EINVAL, "dl_exact_witness: no text pointer given");
	*text = NULL;
	if (!r || r->verdict != DL_UNSCHEDULABLE)
		return dl_fail(-ENODATA,
			       "dl_exact_witness: the result holds no witness (only a DL_UNSCHEDULABLE verdict has one)");
	if (r->ntasks && !tasks)
		return dl_fail(-EINVAL,
			       "dl_exact_witness: no tasks given: the witness needs their parameters");
	f = open_memstream(&buf, &len);
	if (!f)
		return dl_fail(-ENOMEM, "out of memory");
	if (r->task >= (ssize_t)r->ntasks)
		snprintf(b, sizeof(b), "a fair server");
	else if (good_name(names ? names[r->task] : NULL))
		snprintf(b, sizeof(b), "%s", names[r->task]);
	else
		snprintf(b, sizeof(b), "task%zd", r->task);
	fprintf(f, "# global EDF on %d CPUs: %s misses its deadline at %s\n", r->ncpus, b,
		dl_time_format(r->miss_at, a, sizeof(a)));
	fprintf(f,
		"# one line per job, released at its offset; its period keeps it from repeating before then\n");
	for (size_t k = 0; k < r->nties; k++) {
		fprintf(f, "# from %s to %s, among equal deadlines first:",
			dl_time_format(r->ties[k].from, a, sizeof(a)),
			dl_time_format(r->ties[k].to, b, sizeof(b)));
		for (size_t i = 0; i < 64; i++)
			if (r->ties[k].ahead >> i & 1)
				fprintf(f, " %zu", i);
		fputc('\n', f);
	}
	for (size_t k = 0, job = 0; k < r->narrivals; k++, job++) {
		size_t i = r->arrivals[k].task;
		struct dl_params p = { 0 };
		uint64_t period, rel = r->arrivals[k].release;
		char name[48];

		if (i < r->ntasks) {
			p = tasks[i];
			if (good_name(names ? names[i] : NULL))
				snprintf(name, sizeof(name), "%s.j%zu", names[i], job);
			else
				snprintf(name, sizeof(name), "task%zu.j%zu", i, job);
		} else {
			snprintf(name, sizeof(name), "server%zu.j%zu", i - r->ntasks, job);
			fprintf(f, "# %s: a fair server's job released at %s\n", name,
				dl_time_format(rel, a, sizeof(a)));
			continue;
		}
		if (!p.deadline)
			p.deadline = p.period;
		if (!p.period)
			p.period = p.deadline;
		period = r->miss_at - rel > p.period ? r->miss_at - rel : p.period;
		fprintf(f, "%s %s %s %s work=%s offset=%s\n", name, dl_time_format(p.runtime, a, sizeof(a)),
			dl_time_format(p.deadline, b, sizeof(b)), dl_time_format(period, c, sizeof(c)),
			dl_time_format(p.runtime, d, sizeof(d)), dl_time_format(rel, e, sizeof(e)));
	}
	if (fclose(f) != 0) {
		free(buf);
		return dl_fail(-ENOMEM, "out of memory");
	}
	*text = buf;
	return (int)len;
}
