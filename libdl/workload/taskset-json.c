/*
 * taskset-json.c: the JSON form of a task set (libdl-taskset(5)).
 *
 *	{"tasks": [TASK, ...]}   or   [TASK, ...]
 *	TASK: {"name": "heavy", "runtime": 8000000 or "8ms", "deadline": ...,
 *	       "period": ..., "work": ..., "offset": ..., "count": 2,
 *	       "flags": ["reclaim"], "place": "cluster",
 *	       "command": ["prog", "arg"]}
 *
 * Times are integer nanoseconds (as dl-stat --json writes them) or
 * strings in dl_time_parse()'s units.  Unknown keys are refused: a typo
 * must not silently become a default.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workload/taskset.h"

/* "FILE:LINE: KEY: what": the line of value v, the key of member m. */
static int jerr_in(const char *origin, const struct dl_jval *m, const struct dl_jval *v,
		   const char *fmt, ...) DL_PRINTF(4, 5);
static int jerr_in(const char *origin, const struct dl_jval *m, const struct dl_jval *v,
		   const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return dl_fail(-EINVAL, "%s:%d: %s%s%s", origin, v->line, m->key ? m->key : "",
		       m->key ? ": " : "", what);
}
#define jerr(origin, v, ...) jerr_in(origin, v, v, __VA_ARGS__)

/* A non-negative integer written as digits only. */
static int json_u64(const char *origin, const struct dl_jval *v, uint64_t *out, const char *hint)
{
	const char *t = v->text;
	char *end;

	if (v->type != DL_JNUM || strspn(t, "0123456789") != strlen(t))
		return jerr(origin, v, "%s%s: %s", v->type == DL_JNUM ? "" : "expected a number, not ",
			    v->type == DL_JNUM ? t : dl_json_type_name(v->type), hint);
	errno = 0;
	*out = strtoull(t, &end, 10);
	if (errno || *out > (uint64_t)INT64_MAX)
		return jerr(origin, v, "%s is too large: %s", t, hint);
	return 0;
}

static int json_time(const char *origin, const struct dl_jval *v, uint64_t *ns)
{
	if (v->type == DL_JSTR) {
		if (dl_time_parse(v->text, ns) < 0)
			return jerr(origin, v, "%s", dl_errmsg());
		return 0;
	}
	return json_u64(origin, v, ns, "give integer nanoseconds or a string with a unit, e.g. \"2.5ms\"");
}

static int json_strings(const char *origin, const struct dl_jval *v, char ***out)
{
	char **argv;

	if (v->type != DL_JARR || v->n == 0)
		return jerr(origin, v, "expected a non-empty array of strings, e.g. [\"prog\", \"arg\"]");
	argv = calloc(v->n + 1, sizeof(*argv));
	if (!argv)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i].type != DL_JSTR) {
			free(argv);
			return jerr_in(origin, v, &v->items[i], "element %zu of \"%s\" is %s: every element is a string",
				    i, v->key, dl_json_type_name(v->items[i].type));
		}
		argv[i] = v->items[i].text;
	}
	*out = argv;
	return 0;
}

static int json_member(const char *origin, const struct dl_jval *m, struct dl_rawtask *raw)
{
	enum dl_rawfield f;
	char **flags;
	int err;

	for (f = 0; f < DL_RF_N; f++)
		if (strcmp(m->key, dl_rawfield_name[f]) == 0)
			break;
	if (f == DL_RF_N)
		return jerr(origin, m, "unknown key: a task's keys are name, runtime, deadline, period, work, spin, count, offset, flags, place and command");
	raw->at[f] = m->line;
	switch (f) {
	case DL_RF_NAME:
	case DL_RF_PLACE:
		if (m->type != DL_JSTR)
			return jerr(origin, m, "expected a string, not %s", dl_json_type_name(m->type));
		*(f == DL_RF_NAME ? &raw->name : &raw->place) = m->text;
		return 0;
	case DL_RF_RUNTIME:
		return json_time(origin, m, &raw->params.runtime);
	case DL_RF_DEADLINE:
		return json_time(origin, m, &raw->params.deadline);
	case DL_RF_PERIOD:
		return json_time(origin, m, &raw->params.period);
	case DL_RF_WORK:
		return json_time(origin, m, &raw->work);
	case DL_RF_SPIN:
		return json_time(origin, m, &raw->spin);
	case DL_RF_OFFSET:
		return json_time(origin, m, &raw->offset);
	case DL_RF_COUNT:
		return json_u64(origin, m, &raw->count, "give a number of copies, 1 or more");
	case DL_RF_FLAGS:
		if (m->type == DL_JARR && m->n == 0)
			return 0;
		if ((err = json_strings(origin, m, &flags)))
			return err;
		for (size_t i = 0; flags[i]; i++) {
			uint64_t fl;

			if (strchr(flags[i], ',') || dl_taskset_flags(flags[i], &fl) < 0) {
				err = jerr_in(origin, m, &m->items[i], "unknown flag \"%.40s\": use \"reset-on-fork\", \"reclaim\" or \"overrun-signal\" (\"overrun\"), one per element",
					      flags[i]);
				free(flags);
				return err;
			}
			raw->params.flags |= fl;
		}
		free(flags);
		return 0;
	default:
		free(raw->argv);
		raw->argv = NULL;
		return json_strings(origin, m, &raw->argv);
	}
}

static int json_task(struct dl_taskset *ts, const struct dl_jval *t, const char *origin)
{
	struct dl_rawtask raw = { .origin = origin, .line = t->line };
	int err = 0;

	if (t->type != DL_JOBJ)
		return jerr(origin, t, "a task is an object {\"name\": ..., \"runtime\": ..., \"period\": ...}, not %s",
			    dl_json_type_name(t->type));
	for (size_t i = 0; !err && i < t->n; i++)
		err = json_member(origin, &t->items[i], &raw);
	if (!err && !raw.at[DL_RF_NAME])
		err = dl_fail(-EINVAL, "%s:%d: name: the task has no \"name\"", origin, t->line);
	if (!err && !raw.at[DL_RF_RUNTIME])
		err = dl_fail(-EINVAL, "%s:%d: runtime: task \"%s\" has no \"runtime\"", origin, t->line, raw.name);
	if (!err && !raw.at[DL_RF_DEADLINE] && !raw.at[DL_RF_PERIOD])
		err = dl_fail(-EINVAL, "%s:%d: period: task \"%s\" has neither \"deadline\" nor \"period\": give at least one (each defaults to the other)",
			      origin, t->line, raw.name);
	if (!err)
		err = dl_taskset_add_raw(ts, &raw);
	free(raw.argv);
	return err;
}

int dl_taskset_from_json(struct dl_taskset *ts, const char *text, size_t len, const char *origin)
{
	const struct dl_jval *tasks;
	struct dl_jval *top;
	int err;

	if ((err = dl_json_parse(text, len, origin, &top)))
		return err;
	tasks = top;
	if (top->type == DL_JOBJ) {
		if (top->n != 1 || strcmp(top->items[0].key, "tasks") != 0) {
			err = dl_fail(-EINVAL, "%s:%d: the top object has one key, \"tasks\", an array of tasks",
				      origin, top->n ? top->items[top->n > 1 && !strcmp(top->items[0].key, "tasks")].line : top->line);
			goto out;
		}
		tasks = &top->items[0];
		if (tasks->type != DL_JARR) {
			err = jerr(origin, tasks, "expected an array of tasks, not %s", dl_json_type_name(tasks->type));
			goto out;
		}
	}
	for (size_t i = 0; !err && i < tasks->n; i++)
		err = json_task(ts, &tasks->items[i], origin);
out:
	dl_json_free(top);
	return err;
}
