/*
 * taskset-rtapp.c: rt-app's JSON workload files (rt-app's
 * doc/tutorial.txt) read as a task set, when they describe periodic
 * deadline tasks.
 *
 *	{"tasks": {"NAME": {"policy": "SCHED_DEADLINE", "dl-runtime": 12000,
 *	                    "dl-period": 100000, "instance": 2, "delay": 0,
 *	                    "run": 10000, "timer": {"ref": "unique",
 *	                                            "period": 100000}}},
 *	 "global": {"duration": 2, "default_policy": "SCHED_DEADLINE"}}
 *
 * A task is one reservation (dl-runtime, dl-period, dl-deadline in
 * microseconds, with rt-app's defaults: period from runtime, deadline
 * from period) and one job per period: its run events are the job's
 * work (CPU time: rt-app's run is a calibrated loop, which preemption
 * does not shorten), its runtime events the job's spin (rt-app's runtime
 * spins until that much wall-clock time has passed, preempted or not),
 * its one timer the period it is released on, which must be the
 * reservation's.  Every key that says something else (phases that
 * change the task, locks and other waits, sleeps, other policies, CPU
 * affinity...) is refused with its path in the file and why, never
 * ignored; only rt-app's own logging and calibration settings in
 * "global" are accepted without effect (dl-load measures its own way).
 *
 * rt-app reads its files with json-c, which takes C comments and
 * trailing commas, and its examples have both: they are blanked out
 * (lines kept) before the strict reader of json.c sees the text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workload/taskset.h"

/* rt-app's event names (rt-app_parse_config.c, events[]): a key that
 * begins with one is that event, in this order ("runtime" before "run"). */
static const char *const events[] = {
	"lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer",
	"suspend", "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post",
	"sem_wait",
};

/* Why each event that is not run, runtime or timer is refused. */
static const char *event_refusal(const char *event)
{
	static const struct {
		const char *event, *why;
	} why[] = {
		{ "sleep", "a sleep inside a job: dl-load runs a job's work in one piece from its release; give the job its run and its timer" },
		{ "yield", "sched_yield() ends a deadline job before its work is done: dl-load does that for every task with --mode yield" },
		{ "fork", "a task that another one starts: dl-load starts every task at the common start" },
		{ "mem", "memory or I/O work: a dl-load job's work is CPU time" },
		{ "memrun", "memory or I/O work: a dl-load job's work is CPU time" },
		{ "iorun", "memory or I/O work: a dl-load job's work is CPU time" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(why); i++)
		if (strcmp(why[i].event, event) == 0)
			return why[i].why;
	return "tasks that wait for each other (locks, conditions, barriers, suspend and resume, semaphores): the tasks of a task set are independent and periodic";
}

/* rt-app's settings of its own run in "global" that describe no task:
 * how it calibrates its loops, logs and traces. */
static const char *const tool_keys[] = {
	"calibration", "logdir", "log_basename", "log_size", "ftrace", "gnuplot",
	"lock_pages", "pi_enabled", "io_device", "mem_buffer_size", "cumulative_slack",
};

static const char *const policies[] = {
	"SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_RR", "SCHED_FIFO", "SCHED_DEADLINE",
};

/* A timer's name and a thread that names it (rt_file.uses). */
struct timer_use {
	const char *ref;
	size_t thread; /* its index in "tasks" */
};

struct rt_file {
	const char *origin;
	const char *default_policy; /* global.default_policy, or NULL */
	const struct dl_jval *default_at;
	const struct dl_jval *tasks;
	uint64_t *steps; /* the work done, for tests: never NULL */
	struct timer_use *uses; /* every thread's timers, sorted (sort_timers) */
	size_t nuses;
};

/* "FILE:LINE: PATH: what". */
static int rerr(const struct rt_file *f, const struct dl_jval *at, const char *path, const char *fmt, ...)
	DL_PRINTF(4, 5);
static int rerr(const struct rt_file *f, const struct dl_jval *at, const char *path, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return dl_fail(-EINVAL, "%s:%d: %s: %s", f->origin, at->line, path, what);
}

/* An integer as rt-app takes it (json-c's int): digits, maybe a '-'. */
static int rt_int(const struct rt_file *f, const struct dl_jval *v, const char *path, int64_t *out)
{
	const char *t = v->text;
	char *end;

	if (v->type != DL_JNUM || strspn(t + (t[0] == '-'), "0123456789") != strlen(t + (t[0] == '-')))
		return rerr(f, v, path, "expected an integer, not %s", v->type == DL_JNUM ? t : dl_json_type_name(v->type));
	errno = 0;
	*out = strtoll(t, &end, 10);
	if (errno || *out > INT32_MAX || *out < INT32_MIN)
		return rerr(f, v, path, "%s is out of rt-app's range (a 32-bit integer)", t);
	return 0;
}

/* Microseconds, 0 or more, into nanoseconds. */
static int rt_us(const struct rt_file *f, const struct dl_jval *v, const char *path, uint64_t *ns)
{
	int64_t us = 0;
	int err = rt_int(f, v, path, &us);

	if (err)
		return err;
	if (us < 0)
		return rerr(f, v, path, "%lld: a time in microseconds cannot be negative", (long long)us);
	*ns = (uint64_t)us * 1000;
	return 0;
}

static int rt_str(const struct rt_file *f, const struct dl_jval *v, const char *path)
{
	return v->type == DL_JSTR ? 0 : rerr(f, v, path, "expected a string, not %s", dl_json_type_name(v->type));
}

static const char *event_of(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (strncmp(key, events[i], strlen(events[i])) == 0)
			return events[i];
	return NULL;
}

/* The scheduling keys of one object (a thread, or its one phase). */
struct rt_sched {
	const struct dl_jval *policy, *priority, *runtime, *period, *deadline, *reclaim;
	/* rt-app's older names, read in a thread object only. */
	const struct dl_jval *old_runtime, *old_period, *old_deadline;
};

/* What one thread (or phase) object says. */
struct rt_obj {
	struct rt_sched s;
	const struct dl_jval *instance, *delay, *loop, *phases, *timer, *first_work;
	const struct dl_jval *first_run, *first_runtime;
	uint64_t work, spin;
	int nwork;
};

static int rt_key(const struct rt_file *f, const struct dl_jval *m, const char *path, bool thread,
		  struct rt_obj *o)
{
	static const struct {
		const char *key, *why;
	} refused[] = {
		{ "cpus", "a CPU affinity: a deadline task must be allowed on every CPU of its root domain; put it in a partition instead (place= in libdl's task sets, or dl-load --plan)" },
		{ "nodes_membind", "a NUMA memory binding: dl-load binds no memory" },
		{ "util_min", "a utilization clamp: libdl's task sets have none (dl-run --util-min and --util-max set them)" },
		{ "util_max", "a utilization clamp: libdl's task sets have none (dl-run --util-min and --util-max set them)" },
	};
	const struct dl_jval **slot = NULL;
	const char *ev;

	if (strcmp(m->key, "policy") == 0)
		slot = &o->s.policy;
	else if (strcmp(m->key, "priority") == 0)
		slot = &o->s.priority;
	else if (strcmp(m->key, "dl-runtime") == 0)
		slot = &o->s.runtime;
	else if (strcmp(m->key, "dl-period") == 0)
		slot = &o->s.period;
	else if (strcmp(m->key, "dl-deadline") == 0)
		slot = &o->s.deadline;
	else if (strcmp(m->key, "dl-reclaim") == 0)
		slot = &o->s.reclaim;
	else if (thread && strcmp(m->key, "period") == 0)
		slot = &o->s.old_period;
	else if (thread && strcmp(m->key, "deadline") == 0)
		slot = &o->s.old_deadline;
	else if (thread && strcmp(m->key, "instance") == 0)
		slot = &o->instance;
	else if (thread && strcmp(m->key, "delay") == 0)
		slot = &o->delay;
	else if (thread && strcmp(m->key, "phases") == 0)
		slot = &o->phases;
	else if (strcmp(m->key, "loop") == 0)
		slot = &o->loop;
	if (slot) {
		*slot = m;
		return 0;
	}
	if (strcmp(m->key, "taskgroup") == 0) {
		if (m->type == DL_JSTR && !m->text[0])
			return 0; /* rt-app: "" is no taskgroup */
		return rerr(f, m, path, "a taskgroup (a CPU controller's group): rt-app gives them to SCHED_OTHER, SCHED_BATCH and SCHED_IDLE tasks only");
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (strcmp(m->key, refused[i].key) == 0)
			return rerr(f, m, path, "%s", refused[i].why);
	ev = event_of(m->key);
	if (!ev)
		return rerr(f, m, path, "not a key rt-app knows in a %s: see rt-app's doc/tutorial.txt", thread ? "task" : "phase");
	if (strcmp(ev, "run") == 0 || strcmp(ev, "runtime") == 0) {
		uint64_t ns = 0;
		int err = rt_us(f, m, path, &ns);

		if (err)
			return err;
		/* Older files give the reservation's runtime as "runtime" in
		 * the thread: rt-app reads that key as both. */
		if (thread && strcmp(m->key, "runtime") == 0)
			o->s.old_runtime = m;
		if (strcmp(ev, "runtime") == 0) {
			o->spin += ns;
			if (!o->first_runtime)
				o->first_runtime = m;
		} else {
			o->work += ns;
			if (!o->first_run)
				o->first_run = m;
		}
		o->nwork++;
		if (!o->first_work)
			o->first_work = m;
		return 0;
	}
	if (strcmp(ev, "timer") == 0) {
		if (o->timer)
			return rerr(f, m, path, "a second timer (the first is on line %d): a periodic task has one period",
				    o->timer->line);
		o->timer = m;
		return 0;
	}
	return rerr(f, m, path, "%s", event_refusal(ev));
}

static int rt_keys(const struct rt_file *f, const struct dl_jval *obj, const char *path, bool thread,
		   struct rt_obj *o)
{
	char sub[512];
	int err;

	if (obj->type != DL_JOBJ)
		return rerr(f, obj, path, "expected an object, not %s", dl_json_type_name(obj->type));
	for (size_t i = 0; i < obj->n; i++) {
		snprintf(sub, sizeof(sub), "%s.%s", path, obj->items[i].key);
		if ((err = rt_key(f, &obj->items[i], sub, thread, o)))
			return err;
	}
	return 0;
}

/* One of the reservation's times, and the line it came from. */
static int rt_param(const struct rt_file *f, const struct dl_jval *v, const char *path, uint64_t *ns, int *line)
{
	char at[600];

	snprintf(at, sizeof(at), "%s.%s", path, v->key);
	*line = v->line;
	return rt_us(f, v, at, ns);
}

/* The task's reservation, with rt-app's defaults (parse_sched_data()):
 * period = runtime, deadline = period; the older names where the new
 * ones are absent. */
static int rt_params(const struct rt_file *f, const struct dl_jval *task, const char *path,
		     const struct rt_sched *s, struct dl_rawtask *raw, const struct dl_jval **period_at)
{
	const struct dl_jval *rt = s->runtime ? s->runtime : s->old_runtime;
	const struct dl_jval *pd = s->period ? s->period : s->old_period;
	const struct dl_jval *dd = s->deadline ? s->deadline : s->old_deadline;
	const struct dl_jval *pol = s->policy;
	const char *policy = pol ? pol->text : f->default_policy ? f->default_policy : "SCHED_OTHER";
	char at[600];
	int64_t prio;
	int err;

	if (pol && (err = rt_str(f, pol, (snprintf(at, sizeof(at), "%s.policy", path), at))))
		return err;
	if (strcmp(policy, "SCHED_DEADLINE") != 0) {
		for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
			if (strcmp(policies[i], policy) == 0)
				return rerr(f, pol ? pol : f->default_at ? f->default_at : task,
					    pol ? at : f->default_at ? "global.default_policy" : path,
					    "%s%s: a task set holds SCHED_DEADLINE tasks only; give the task \"policy\": \"SCHED_DEADLINE\"",
					    policy, pol || f->default_at ? "" : " (rt-app's default policy)");
		return rerr(f, pol ? pol : f->default_at, pol ? at : "global.default_policy",
			    "\"%.40s\" is not a policy rt-app knows (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_RR, SCHED_FIFO, SCHED_DEADLINE)",
			    policy);
	}
	if (s->priority) {
		snprintf(at, sizeof(at), "%s.priority", path);
		if ((err = rt_int(f, s->priority, at, &prio)))
			return err;
		if (prio != 0)
			return rerr(f, s->priority, at, "%lld: a deadline task has no priority (rt-app's is 0)", (long long)prio);
	}
	if (!rt)
		return rerr(f, task, path, "no \"dl-runtime\": a deadline task needs its runtime (microseconds)");
	if ((err = rt_param(f, rt, path, &raw->params.runtime, &raw->at[DL_RF_RUNTIME])))
		return err;
	raw->params.period = raw->params.runtime;
	*period_at = rt;
	if (pd && (err = rt_param(f, pd, path, &raw->params.period, &raw->at[DL_RF_PERIOD])))
		return err;
	if (pd)
		*period_at = pd;
	raw->params.deadline = raw->params.period;
	if (dd && (err = rt_param(f, dd, path, &raw->params.deadline, &raw->at[DL_RF_DEADLINE])))
		return err;
	if (s->reclaim) {
		if (s->reclaim->type != DL_JTRUE && s->reclaim->type != DL_JFALSE)
			return rerr(f, s->reclaim, (snprintf(at, sizeof(at), "%s.dl-reclaim", path), at),
				    "expected true or false, not %s", dl_json_type_name(s->reclaim->type));
		if (s->reclaim->type == DL_JTRUE)
			raw->params.flags |= DL_FLAG_RECLAIM;
		raw->at[DL_RF_FLAGS] = s->reclaim->line;
	}
	return 0;
}

static int use_cmp(const void *a, const void *b, void *arg)
{
	const struct timer_use *x = a, *y = b;
	int c = strcmp(x->ref, y->ref);

	(*(uint64_t *)arg)++;
	if (c)
		return c;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Every timer that v (a thread, or anything in it) names, as thread's:
 * an object whose key is a timer event, by its "ref" string. */
static int collect_timers(struct rt_file *f, const struct dl_jval *v, size_t thread, size_t *cap)
{
	(*f->steps)++;
	if (v->type != DL_JOBJ)
		return 0;
	if (v->key && event_of(v->key) && strcmp(event_of(v->key), "timer") == 0) {
		for (size_t i = 0; i < v->n; i++) {
			if (strcmp(v->items[i].key, "ref") != 0 || v->items[i].type != DL_JSTR)
				continue;
			if (f->nuses == *cap) {
				size_t ncap = *cap ? *cap * 2 : 64;
				struct timer_use *u = realloc(f->uses, ncap * sizeof(*u));

				if (!u)
					return dl_fail(-ENOMEM, "out of memory");
				f->uses = u;
				*cap = ncap;
			}
			f->uses[f->nuses++] = (struct timer_use){ v->items[i].text, thread };
		}
		return 0;
	}
	for (size_t i = 0; i < v->n; i++) {
		int err = collect_timers(f, &v->items[i], thread, cap);

		if (err)
			return err;
	}
	return 0;
}

/* The timers of every thread, sorted by name then thread, once for the
 * file: O(V + T log T) for its V values and T timers, where asking each
 * thread's timer of every other thread is O(V) per thread. */
static int sort_timers(struct rt_file *f)
{
	size_t cap = 0;
	int err;

	for (size_t i = 0; i < f->tasks->n; i++)
		if ((err = collect_timers(f, &f->tasks->items[i], i, &cap)))
			return err;
	if (f->nuses > 1)
		qsort_r(f->uses, f->nuses, sizeof(*f->uses), use_cmp, f->steps);
	return 0;
}

/* The first of f->uses not below {ref, thread}: a binary search. */
static size_t lower_bound(const struct rt_file *f, const char *ref, size_t thread)
{
	struct timer_use key = { ref, thread };
	size_t lo = 0, hi = f->nuses;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (use_cmp(&f->uses[mid], &key, f->steps) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A timer rt-app shares between the threads that name it, unless its
 * name begins with "unique": one thread's own timer only.  Shared when
 * self has several instances or another thread names it too: the
 * sorted names put the threads naming ref together, ordered, and one
 * other than self is either the first of them or the one after self. */
static int shared_timer(const struct rt_file *f, const struct dl_jval *ref, const char *path, int64_t instances,
			const struct dl_jval *self)
{
	size_t me = (size_t)(self - f->tasks->items), i = lower_bound(f, ref->text, 0);
	bool other = false;

	if (strncmp(ref->text, "unique", 6) == 0)
		return 0;
	if (i < f->nuses && strcmp(f->uses[i].ref, ref->text) == 0) {
		if (f->uses[i].thread != me) {
			other = true;
		} else {
			/* Past self's own entries (a thread may name it twice). */
			i = lower_bound(f, ref->text, me + 1);
			other = i < f->nuses && strcmp(f->uses[i].ref, ref->text) == 0;
		}
	}
	if (instances + other < 2)
		return 0;
	return rerr(f, ref, path, "timer \"%.40s\" is shared by several threads, which rt-app wakes from one timer; dl-load gives each task its own release: name it \"unique\"",
		    ref->text);
}

/* The job's period: its one timer, {"ref": ..., "period": us, "mode": ...}. */
static int rt_timer(const struct rt_file *f, const struct dl_jval *timer, const char *path, int64_t instances,
		    const struct dl_jval *self, uint64_t *period, const struct dl_jval **ref_out, int *mode)
{
	const struct dl_jval *ref = NULL, *pd = NULL;
	char at[600];
	int err;

	snprintf(at, sizeof(at), "%s.%s", path, timer->key);
	if (timer->type != DL_JOBJ)
		return rerr(f, timer, at, "expected an object {\"ref\": \"unique\", \"period\": MICROSECONDS}, not %s",
			    dl_json_type_name(timer->type));
	*mode = DL_PERIODIC_RELATIVE;
	for (size_t i = 0; i < timer->n; i++) {
		const struct dl_jval *m = &timer->items[i];

		snprintf(at, sizeof(at), "%s.%s.%s", path, timer->key, m->key);
		if (strcmp(m->key, "ref") == 0) {
			if ((err = rt_str(f, m, at)))
				return err;
			ref = m;
		} else if (strcmp(m->key, "period") == 0) {
			pd = m;
		} else if (strcmp(m->key, "mode") == 0) {
			/* What follows a job that ends after the next release
			 * (release.c); rt-app's default is relative. */
			if ((err = rt_str(f, m, at)))
				return err;
			if (strcmp(m->text, "relative") != 0 && strcmp(m->text, "absolute") != 0)
				return rerr(f, m, at, "\"%.40s\": a timer's mode is \"relative\" or \"absolute\"", m->text);
			if (strcmp(m->text, "absolute") == 0)
				*mode = DL_PERIODIC_ABSOLUTE;
		} else {
			return rerr(f, m, at, "not a key of a timer (ref, period, mode)");
		}
	}
	*ref_out = ref;
	snprintf(at, sizeof(at), "%s.%s", path, timer->key);
	if (!pd)
		return rerr(f, timer, at, "the timer has no \"period\" (microseconds)");
	if (!ref)
		return rerr(f, timer, at, "the timer has no \"ref\": name it \"unique\"");
	snprintf(at, sizeof(at), "%s.%s.ref", path, timer->key);
	if ((err = shared_timer(f, ref, at, instances, self)))
		return err;
	snprintf(at, sizeof(at), "%s.%s.period", path, timer->key);
	if ((err = rt_us(f, pd, at, period)))
		return err;
	if (*period == 0)
		return rerr(f, pd, at, "0: a periodic task's timer needs a period");
	return 0;
}

/* What the phases of a task (or the task itself, its one phase) have
 * given so far: the timer they share, its mode and where its period
 * came from. */
struct rt_job {
	const struct dl_jval *ref, *timer, *period_at, *params_at;
	int mode;
	uint64_t total; /* work and spin over the phases */
};

/* One phase (or a task without phases): its reservation (the same for
 * every phase), its one timer (the same for every phase: one grid), its
 * work and spin into ph. */
static int rt_phase(const struct rt_file *f, const struct dl_jval *task, const char *path, const struct rt_obj *th,
		    const struct rt_obj *o, int64_t instances, struct dl_rawtask *raw, struct rt_job *job,
		    struct dl_taskphase *ph)
{
	struct dl_rawtask own = *raw;
	struct rt_sched s = o->s;
	const struct dl_jval *period_at = NULL, *ref = NULL;
	const char *where = path;
	char at[600], a[32], b[32];
	uint64_t period = 0;
	int mode = 0, err;

	/* A phase's own parameters replace the thread's for it (and take
	 * rt-app's defaults within the phase). */
	if (o != th && (s.policy || s.priority || s.runtime || s.period || s.deadline || s.reclaim)) {
		if (!s.policy)
			s.policy = th->s.policy;
	} else {
		s = th->s;
		where = (snprintf(at, sizeof(at), "tasks.%s", task->key), at);
	}
	memset(&own.params, 0, sizeof(own.params));
	if ((err = rt_params(f, task, where, &s, &own, &period_at)))
		return err;
	if (!job->period_at) {
		raw->params = own.params;
		raw->at[DL_RF_RUNTIME] = own.at[DL_RF_RUNTIME];
		raw->at[DL_RF_DEADLINE] = own.at[DL_RF_DEADLINE];
		raw->at[DL_RF_PERIOD] = own.at[DL_RF_PERIOD];
		raw->at[DL_RF_FLAGS] = own.at[DL_RF_FLAGS];
		job->period_at = period_at;
		job->params_at = o == th ? task : o->s.policy ? o->s.policy : period_at;
	} else if (memcmp(&own.params, &raw->params, sizeof(own.params)) != 0) {
		return rerr(f, period_at, path, "a reservation other than the first phase's (line %d): a dl-load task keeps one reservation throughout; give every phase the same",
			    job->params_at->line);
	}
	if (!o->timer)
		return rerr(f, o == th ? task : o->first_work ? o->first_work : task, path,
			    "no timer: a periodic task is released by one, e.g. \"timer\": {\"ref\": \"unique\", \"period\": %llu}",
			    (unsigned long long)(raw->params.period / 1000));
	if ((err = rt_timer(f, o->timer, path, instances, task, &period, &ref, &mode)))
		return err;
	snprintf(at, sizeof(at), "%s.%s.period", path, o->timer->key);
	if (period != raw->params.period)
		return rerr(f, o->timer, at,
			    "%s differs from the reservation's period %s (line %d): dl-load releases a job every period of its reservation; make them equal",
			    dl_time_format(period, a, sizeof(a)), dl_time_format(raw->params.period, b, sizeof(b)),
			    job->period_at->line);
	if (!job->ref) {
		job->ref = ref;
		job->timer = o->timer;
		job->mode = mode;
	} else if (strcmp(ref->text, job->ref->text) != 0) {
		return rerr(f, ref, (snprintf(at, sizeof(at), "%s.%s.ref", path, o->timer->key), at),
			    "timer \"%.40s\" is not the first phase's \"%.40s\" (line %d): a dl-load task has one timer, one grid of releases; name the same timer in every phase",
			    ref->text, job->ref->text, job->ref->line);
	} else if (mode != job->mode) {
		return rerr(f, o->timer, (snprintf(at, sizeof(at), "%s.%s", path, o->timer->key), at),
			    "the timer's mode differs from the first phase's (line %d): rt-app keeps one mode per timer, absolute if any phase says so; give every phase the same",
			    job->timer->line);
	}
	ph->work = o->work;
	ph->spin = o->spin;
	job->total += o->work + o->spin;
	return 0;
}

/* A loop count, 1 or more, or -1 (forever) where forever is allowed;
 * 0 when absent or forever. */
static int rt_loop(const struct rt_file *f, const struct dl_jval *loop, const char *path, bool forever,
		   uint64_t *n)
{
	char at[600];
	int64_t v;
	int err;

	*n = forever ? 0 : 1;
	if (!loop)
		return 0;
	snprintf(at, sizeof(at), "%s.loop", path);
	if ((err = rt_int(f, loop, at, &v)))
		return err;
	if (v == -1 && forever)
		return 0;
	if (v < 1)
		return rerr(f, loop, at, forever ? "%lld: give the thread's loops, 1 or more, or -1 (rt-app's forever)" :
					   "%lld: give the phase's jobs in a row, 1 or more",
			    (long long)v);
	*n = (uint64_t)v;
	return 0;
}

static int rt_task(struct dl_taskset *ts, const struct rt_file *f, const struct dl_jval *task)
{
	struct dl_rawtask raw = { .origin = f->origin, .line = task->line, .name = task->key, .late_ok = true };
	struct rt_obj th = { 0 };
	struct rt_job job = { 0 };
	struct dl_taskphase one = { 0 }, *phases = NULL;
	const struct dl_jval *first_run = NULL, *first_runtime = NULL;
	char path[300], at[600];
	int64_t instances = 1;
	uint64_t loops = 0, cycle = 0;
	size_t nphases = 1;
	int err;

	snprintf(path, sizeof(path), "tasks.%s", task->key);
	if ((err = rt_keys(f, task, path, true, &th)))
		return err;
	if (th.instance) {
		snprintf(at, sizeof(at), "%s.instance", path);
		if ((err = rt_int(f, th.instance, at, &instances)))
			return err;
		if (instances < 1 || instances > DL_TASKSET_MAX_COUNT)
			return rerr(f, th.instance, at, "%lld threads: give 1 to %d (rt-app makes no thread of 0)",
				    (long long)instances, DL_TASKSET_MAX_COUNT);
		if (instances > 1) {
			raw.count = (uint64_t)instances;
			raw.at[DL_RF_COUNT] = th.instance->line;
		}
	}
	if (th.delay) {
		snprintf(at, sizeof(at), "%s.delay", path);
		if ((err = rt_us(f, th.delay, at, &raw.offset)))
			return err;
		raw.at[DL_RF_OFFSET] = th.delay->line;
	}
	/* The thread's loop: how often it runs its phases (the task's one
	 * job without phases, as rt-app's tutorial says; rt-app 1.0 read it
	 * there as the one phase's and ran for ever), -1 for ever. */
	if ((err = rt_loop(f, th.loop, path, true, &loops)))
		return err;
	if (th.phases) {
		/* "runtime" beside phases is the older name of dl-runtime. */
		if (th.nwork == 1 && th.s.old_runtime && !th.s.runtime)
			th.nwork = 0;
		if (th.nwork || th.timer)
			return rerr(f, th.nwork ? th.first_work : th.timer, path,
				    "events beside \"phases\": rt-app runs the phases; put the events in the phase");
		if (th.phases->type != DL_JOBJ || th.phases->n == 0)
			return rerr(f, th.phases, (snprintf(at, sizeof(at), "%s.phases", path), at),
				    th.phases->type != DL_JOBJ ? "expected an object of phases" : "no phases: give one or more");
		nphases = th.phases->n;
		phases = calloc(nphases, sizeof(*phases));
		if (!phases)
			return dl_fail(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nphases; i++) {
		struct rt_obj ph = { 0 };
		struct dl_taskphase *out = phases ? &phases[i] : &one;
		const struct rt_obj *o = &th;
		char pp[600];

		snprintf(pp, sizeof(pp), "%s", path);
		if (phases) {
			snprintf(pp, sizeof(pp), "%s.phases.%s", path, th.phases->items[i].key);
			if ((err = rt_keys(f, &th.phases->items[i], pp, false, &ph)) ||
			    (err = rt_loop(f, ph.loop, pp, false, &out->jobs)))
				goto out;
			o = &ph;
		} else {
			out->jobs = 1;
		}
		if ((err = rt_phase(f, task, pp, &th, o, instances, &raw, &job, out)))
			goto out;
		if (!first_run)
			first_run = o->first_run;
		if (!first_runtime)
			first_runtime = o->first_runtime;
		if (out->jobs > UINT32_MAX - cycle) {
			err = rerr(f, ph.loop, pp, "the phases make more than %u jobs in a row: give fewer", UINT32_MAX);
			goto out;
		}
		cycle += out->jobs;
	}
	if (!job.total) {
		err = rerr(f, job.timer, path, "no work: give the job a \"run\" (or \"runtime\") of some microseconds");
		goto out;
	}
	if (loops && loops > UINT32_MAX / cycle) {
		err = rerr(f, th.loop, path, "%llu loops of %llu jobs: more than %u jobs; give fewer", (unsigned long long)loops,
			   (unsigned long long)cycle, UINT32_MAX);
		goto out;
	}
	raw.jobs = loops * cycle;
	raw.timer = job.mode;
	/* The first phase's work and spin are the task's (what --print-taskset
	 * shows); the lines are where the first run and runtime were. */
	raw.work = phases ? phases[0].work : one.work;
	raw.spin = phases ? phases[0].spin : one.spin;
	raw.at[DL_RF_WORK] = first_run ? first_run->line : 0;
	raw.at[DL_RF_SPIN] = first_runtime ? first_runtime->line : 0;
	if (!raw.at[DL_RF_WORK] && !raw.at[DL_RF_SPIN])
		raw.at[DL_RF_WORK] = job.timer->line; /* a first phase that only waits */
	if (nphases > 1) {
		raw.phases = phases;
		raw.nphases = nphases;
	}
	/* The kernel's rules, said with rt-app's names; the period limits
	 * are checked where the set meets a machine, as for the other
	 * formats. */
	{
		struct dl_params norm;

		if (dl_params_normalize_rules(&raw.params, &norm) < 0) {
			enum dl_rawfield bad = dl_taskset_bad_field(&raw.params);
			const char *name = bad == DL_RF_RUNTIME ? "dl-runtime" : bad == DL_RF_DEADLINE ? "dl-deadline" : "dl-period";
			char why[512];

			snprintf(why, sizeof(why), "%s", dl_errmsg());
			snprintf(at, sizeof(at), "%s.%s", path, name);
			err = dl_fail(-EINVAL, "%s:%d: %s: %s", f->origin, raw.at[bad] ? raw.at[bad] : task->line, at, why);
			goto out;
		}
	}
	err = dl_taskset_add_raw(ts, &raw);
out:
	free(phases);
	return err;
}

static int rt_global(struct rt_file *f, const struct dl_jval *g, struct dl_taskset *ts)
{
	char at[300];
	int64_t v;
	int err;

	if (g->type != DL_JOBJ)
		return rerr(f, g, "global", "expected an object, not %s", dl_json_type_name(g->type));
	for (size_t i = 0; i < g->n; i++) {
		const struct dl_jval *m = &g->items[i];
		bool tool = false;

		snprintf(at, sizeof(at), "global.%s", m->key);
		for (size_t k = 0; k < ARRAY_SIZE(tool_keys); k++)
			tool |= strcmp(m->key, tool_keys[k]) == 0;
		if (tool)
			continue;
		if (strcmp(m->key, "default_policy") == 0) {
			if ((err = rt_str(f, m, at)))
				return err;
			f->default_policy = m->text;
			f->default_at = m;
		} else if (strcmp(m->key, "duration") == 0) {
			if ((err = rt_int(f, m, at, &v)))
				return err;
			if (v != -1 && v < 1)
				return rerr(f, m, at, "%lld: give the run's seconds, or -1 (until the tasks end)", (long long)v);
			if (v > 0)
				dl_taskset_set_duration(ts, (uint64_t)v * 1000000000ULL);
		} else {
			return rerr(f, m, at, "not a key rt-app knows in \"global\": see rt-app's doc/tutorial.txt");
		}
	}
	return 0;
}

int dl_taskset_from_rtapp_counted(struct dl_taskset *ts, const char *text, size_t len, const char *origin,
				  uint64_t *steps)
{
	uint64_t ignored;
	struct rt_file f = { .origin = origin, .steps = steps ? steps : &ignored };
	const struct dl_jval *global = NULL;
	struct dl_jval *top;
	char *clean;
	int err;

	clean = dl_rtapp_clean(text, len);
	if (!clean)
		return dl_fail(-ENOMEM, "out of memory");
	err = dl_json_parse_counted(clean, len, origin, &top, f.steps);
	free(clean);
	if (err) {
		char why[1024];

		/* Files written for rt-app's workgen, which renames repeated
		 * events and fills in omitted values before rt-app reads them. */
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		return dl_fail(err, "%s (an rt-app file: if it was written for rt-app's workgen, give dl-load the JSON workgen makes of it)",
			       why);
	}
	if (top->type != DL_JOBJ) {
		err = rerr(&f, top, "(top)", "an rt-app file is one object with \"tasks\" (and \"global\")");
		goto out;
	}
	for (size_t i = 0; i < top->n && !err; i++) {
		const struct dl_jval *m = &top->items[i];

		if (strcmp(m->key, "tasks") == 0)
			f.tasks = m;
		else if (strcmp(m->key, "global") == 0)
			global = m;
		else if (strcmp(m->key, "resources") == 0) {
			/* Kept by rt-app for older files; it makes its
			 * resources from the events that use them. */
			if (!(m->type == DL_JOBJ && m->n == 0) && !(m->type == DL_JNUM && strcmp(m->text, "0") == 0))
				err = rerr(&f, m, "resources", "resources (mutexes, conditions, timers shared between tasks): the tasks of a task set are independent and periodic");
		} else {
			err = rerr(&f, m, m->key, "not a key of an rt-app file (tasks, global, resources)");
		}
	}
	if (!err && !f.tasks)
		err = rerr(&f, top, "tasks", "the file has no \"tasks\"");
	if (!err && f.tasks->type != DL_JOBJ)
		err = rerr(&f, f.tasks, "tasks", "expected an object of tasks by name, not %s", dl_json_type_name(f.tasks->type));
	if (!err && global)
		err = rt_global(&f, global, ts);
	if (!err)
		err = sort_timers(&f);
	for (size_t i = 0; !err && i < f.tasks->n; i++)
		err = rt_task(ts, &f, &f.tasks->items[i]);
out:
	free(f.uses);
	dl_json_free(top);
	return err;
}

int dl_taskset_from_rtapp(struct dl_taskset *ts, const char *text, size_t len, const char *origin)
{
	return dl_taskset_from_rtapp_counted(ts, text, len, origin, NULL);
}

/*
 * rt-app's text as strict JSON, of the same length and lines: C comments
 * blanked, and commas that end an object or an array.  Strings are kept
 * as they are.
 */
char *dl_rtapp_clean(const char *text, size_t len)
{
	char *o = malloc(len + 1);
	size_t comma = (size_t)-1; /* a comma that may end a list */

	if (!o)
		return NULL;
	memcpy(o, text, len);
	o[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		char c = o[i];

		if (c == '"') {
			for (i++; i < len && o[i] != '"'; i++)
				if (o[i] == '\\')
					i++;
			comma = (size_t)-1;
		} else if (c == '/' && i + 1 < len && o[i + 1] == '*') {
			size_t j;

			for (j = i; j + 1 < len && !(o[j] == '*' && o[j + 1] == '/'); j++)
				if (o[j] != '\n')
					o[j] = ' ';
			if (j + 1 < len)
				o[j] = o[j + 1] = ' ';
			else if (j < len && o[j] != '\n')
				o[j] = ' '; /* not closed: json.c will say the text ends */
			i = j + 1;
		} else if (c == '/' && i + 1 < len && o[i + 1] == '/') {
			for (; i < len && o[i] != '\n'; i++)
				o[i] = ' ';
		} else if (c == ',') {
			comma = i;
		} else if ((c == '}' || c == ']') && comma != (size_t)-1) {
			o[comma] = ' ';
			comma = (size_t)-1;
		} else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			comma = (size_t)-1;
		}
	}
	return o;
}

/* Whether a JSON-looking text is rt-app's rather than libdl's JSON form:
 * its top object has "global" or "resources", or "tasks" is an object
 * (libdl's is an array).  Comments do not decide: in libdl's strict form
 * they are errors that json.c names. */
bool dl_taskset_is_rtapp(const char *text, size_t len)
{
	char *clean = dl_rtapp_clean(text, len);
	bool rtapp = false;
	int depth = 0;

	if (!clean)
		return false;
	for (size_t i = 0; i < len && !rtapp; i++) {
		size_t start, n, j;
		char c = clean[i];

		if (c == '{' || c == '[') {
			depth++;
			continue;
		}
		if (c == '}' || c == ']') {
			depth--;
			continue;
		}
		if (c != '"')
			continue;
		for (start = ++i; i < len && clean[i] != '"'; i++)
			if (clean[i] == '\\')
				i++;
		if (depth != 1 || i >= len)
			continue;
		n = i - start;
		for (j = i + 1; j < len && strchr(" \t\r\n", clean[j]); j++)
			;
		if (j >= len || clean[j] != ':')
			continue;
		for (j++; j < len && strchr(" \t\r\n", clean[j]); j++)
			;
		if ((n == 6 && memcmp(clean + start, "global", 6) == 0) ||
		    (n == 9 && memcmp(clean + start, "resources", 9) == 0) ||
		    (n == 5 && memcmp(clean + start, "tasks", 5) == 0 && j < len && clean[j] == '{'))
			rtapp = true;
	}
	free(clean);
	return rtapp;
}
