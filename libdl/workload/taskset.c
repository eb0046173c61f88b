/*
 * taskset.c: task sets (libdl-taskset(5)): the object, its rules, and the
 * line form; the JSON form is in taskset-json.c.
 *
 * One rule set for every way in: a task is checked once, in
 * dl_taskset_add_raw(), whether it came from a line, a JSON object or
 * dl_taskset_add(), and every message starts with the file and line the
 * task (or field) came from and names the field.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload/taskset.h"

struct task {
	struct dl_taskspec spec; /* what callers see; the strings below */
	int period_line;         /* where its period was given, for messages */
	char *name;
	char *place;
	char **argv;
	struct dl_taskphase *phases;
};

struct dl_taskset {
	struct task **tasks; /* pointers: a spec stays put while the set grows */
	size_t n, cap;
	uint64_t duration;   /* ns the file asks the run to last (rt-app's); 0: none */
	char *origin;        /* the file it came from, for messages; NULL: none */
};

const char *const dl_rawfield_name[DL_RF_N] = {
	[DL_RF_NAME] = "name", [DL_RF_RUNTIME] = "runtime", [DL_RF_DEADLINE] = "deadline",
	[DL_RF_PERIOD] = "period", [DL_RF_WORK] = "work", [DL_RF_COUNT] = "count",
	[DL_RF_OFFSET] = "offset", [DL_RF_FLAGS] = "flags", [DL_RF_PLACE] = "place",
	[DL_RF_COMMAND] = "command", [DL_RF_SPIN] = "spin",
};

static const struct {
	const char *name;
	uint64_t flag;
} flag_names[] = {
	{ "reset-on-fork", DL_FLAG_RESET_ON_FORK },
	{ "reclaim", DL_FLAG_RECLAIM },
	{ "overrun-signal", DL_FLAG_DL_OVERRUN },
	{ "overrun", DL_FLAG_DL_OVERRUN },
};

DL_EXPORT struct dl_taskset *dl_taskset_new(void)
{
	struct dl_taskset *ts = calloc(1, sizeof(*ts));

	if (!ts) {
		dl_fail(-ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return ts;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static void free_task(struct task *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->place);
	free_argv(t->argv);
	free(t->phases);
	free(t);
}

DL_EXPORT void dl_taskset_free(struct dl_taskset *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n; i++)
		free_task(ts->tasks[i]);
	free(ts->tasks);
	free(ts->origin);
	free(ts);
}

DL_EXPORT size_t dl_taskset_count(const struct dl_taskset *ts)
{
	return ts ? ts->n : 0;
}

DL_EXPORT const struct dl_taskspec *dl_taskset_task(const struct dl_taskset *ts, size_t i)
{
	if (!ts || i >= ts->n) {
		errno = ts ? ERANGE : EINVAL;
		dl_fail(-errno, ts ? "task %zu: the set has %zu" : "no task set given", i, ts ? ts->n : 0);
		return NULL;
	}
	return &ts->tasks[i]->spec;
}

/* A message that starts "FILE:LINE: FIELD: " (or "FIELD: " for a task
 * added through the API, which has no line). */
static int rfail(const struct dl_rawtask *raw, enum dl_rawfield f, const char *fmt, ...) DL_PRINTF(3, 4);
static int rfail(const struct dl_rawtask *raw, enum dl_rawfield f, const char *fmt, ...)
{
	char what[768], where[300] = "";
	int line = raw->at[f] ? raw->at[f] : raw->line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(where, sizeof(where), "%s:%d: ", raw->origin, line);
	return dl_fail(-EINVAL, "%s%s: %s", where, dl_rawfield_name[f], what);
}

/* NAME: a letter or '_', then letters, digits, '_', '-' or '.'. */
static bool valid_task_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > DL_TASKSET_NAME_MAX)
		return false;
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* A place: DL_CLUSTER or a partition name as dl_layout_add_partition()
 * takes it. */
static bool valid_place(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > DL_LAYOUT_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int dl_taskset_flags(const char *text, uint64_t *flags)
{
	const char *p = text;

	*flags = 0;
	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < ARRAY_SIZE(flag_names); i++)
			if (strlen(flag_names[i].name) == n && strncmp(p, flag_names[i].name, n) == 0)
				break;
		if (i == ARRAY_SIZE(flag_names))
			return dl_fail(-EINVAL, "unknown flag \"%.*s\": use reset-on-fork, reclaim or overrun-signal (overrun), separated by commas",
				       (int)(n > 64 ? 64 : n), p);
		*flags |= flag_names[i].flag;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* Which field dl_params_normalize() refused, for the message's line. */
enum dl_rawfield dl_taskset_bad_field(const struct dl_params *in)
{
	uint64_t deadline = in->deadline ? in->deadline : in->period;
	uint64_t period = in->period ? in->period : in->deadline;

	if (in->flags & ~(uint64_t)DL_FLAGS_ALL)
		return DL_RF_FLAGS;
	if (in->runtime < 1024 || in->runtime > deadline || (in->runtime >> 63))
		return DL_RF_RUNTIME;
	if (deadline > period)
		return DL_RF_DEADLINE;
	return DL_RF_PERIOD;
}

static struct task *new_task(const char *name, const struct dl_rawtask *raw,
			     const struct dl_params *p, uint64_t work)
{
	struct task *t = calloc(1, sizeof(*t));
	size_t argc = 0;

	if (!t)
		return NULL;
	t->name = strdup(name);
	if (!t->name)
		goto fail;
	if (raw->place && !(t->place = strdup(raw->place)))
		goto fail;
	if (raw->argv) {
		while (raw->argv[argc])
			argc++;
		t->argv = calloc(argc + 1, sizeof(char *));
		if (!t->argv)
			goto fail;
		for (size_t i = 0; i < argc; i++)
			if (!(t->argv[i] = strdup(raw->argv[i])))
				goto fail;
	}
	if (raw->nphases) {
		t->phases = calloc(raw->nphases, sizeof(*t->phases));
		if (!t->phases)
			goto fail;
		memcpy(t->phases, raw->phases, raw->nphases * sizeof(*t->phases));
	}
	t->spec.name = t->name;
	t->spec.params = *p;
	t->spec.timer = raw->timer;
	t->spec.jobs = raw->jobs;
	t->spec.nphases = raw->nphases;
	t->spec.phases = t->phases;
	t->spec.work = work;
	t->spec.spin = raw->at[DL_RF_SPIN] ? raw->spin : 0;
	t->spec.offset = raw->offset;
	t->spec.place = t->place;
	t->spec.argv = t->argv;
	t->spec.line = raw->line;
	return t;
fail:
	free_task(t);
	return NULL;
}

static bool has_name(const struct dl_taskset *ts, const char *name, int *line)
{
	for (size_t i = 0; i < ts->n; i++) {
		if (strcmp(ts->tasks[i]->name, name) == 0) {
			*line = ts->tasks[i]->spec.line;
			return true;
		}
	}
	return false;
}

int dl_taskset_add_raw(struct dl_taskset *ts, const struct dl_rawtask *raw)
{
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN], c[DL_TIME_STRLEN], name[DL_TASKSET_NAME_MAX + 16];
	uint64_t count = raw->at[DL_RF_COUNT] ? raw->count : 1, work;
	struct dl_params p;
	size_t first = ts->n;
	int line;

	if (!raw->name || !valid_task_name(raw->name))
		return rfail(raw, DL_RF_NAME, "\"%.*s\" is not a task name: use up to %d letters, digits, '_', '-' and '.', starting with a letter or '_'",
			     DL_TASKSET_NAME_MAX + 8, raw->name ? raw->name : "", DL_TASKSET_NAME_MAX);
	if (!raw->params.runtime && !raw->at[DL_RF_RUNTIME])
		return rfail(raw, DL_RF_RUNTIME, "task \"%s\" has no runtime: give one, e.g. 2ms", raw->name);
	/* The period limits are a machine's sysctls: they are checked
	 * where the set meets one (dl_taskset_check_periods()). */
	if (dl_params_normalize_rules(&raw->params, &p) < 0)
		return rfail(raw, dl_taskset_bad_field(&raw->params), "task \"%s\": %s", raw->name, dl_errmsg());
	/* A job's work defaults to 90% of the runtime unless the task
	 * says what its jobs do (work, spin or both). */
	work = raw->at[DL_RF_WORK] ? raw->work :
	       raw->at[DL_RF_SPIN] ? 0 : p.runtime / 10 * 9 + p.runtime % 10 * 9 / 10;
	if (work > p.period && !raw->late_ok)
		return rfail(raw, DL_RF_WORK, "%s is longer than task \"%s\"'s period %s: a job cannot need more CPU than its period holds; give work <= period",
			     dl_time_format(work, a, sizeof(a)), raw->name, dl_time_format(p.period, b, sizeof(b)));
	if (raw->at[DL_RF_SPIN] && !raw->late_ok && raw->spin > p.period - work)
		return rfail(raw, DL_RF_SPIN, "%s%s%s is longer than task \"%s\"'s period %s: a job's work and spin together must fit in its period",
			     dl_time_format(raw->spin, a, sizeof(a)), work ? " after a work of " : "",
			     work ? dl_time_format(work, c, sizeof(c)) : "", raw->name, dl_time_format(p.period, b, sizeof(b)));
	if (count < 1 || count > DL_TASKSET_MAX_COUNT)
		return rfail(raw, DL_RF_COUNT, "%" PRIu64 " copies: give 1 to %d", count, DL_TASKSET_MAX_COUNT);
	if (raw->place && !valid_place(raw->place))
		return rfail(raw, DL_RF_PLACE, "\"%.40s\" is not a place: give \"%s\" or a partition's name (up to %d letters, digits, '-' and '_')",
			     raw->place, DL_CLUSTER, DL_LAYOUT_NAME_MAX);
	if (raw->argv && (!raw->argv[0] || !raw->argv[0][0]))
		return rfail(raw, DL_RF_COMMAND, "task \"%s\" has an empty command: name the program to run, or leave the command out",
			     raw->name);
	if (ts->n + count > DL_TASKSET_MAX_TASKS)
		return rfail(raw, raw->at[DL_RF_COUNT] ? DL_RF_COUNT : DL_RF_NAME,
			     "task \"%s\" makes more than %d tasks: a task set holds at most %d",
			     raw->name, DL_TASKSET_MAX_TASKS, DL_TASKSET_MAX_TASKS);
	if (ts->cap < ts->n + count) {
		size_t cap = ts->cap ? ts->cap : 8;
		struct task **tasks;

		while (cap < ts->n + count)
			cap *= 2;
		tasks = realloc(ts->tasks, cap * sizeof(*tasks));
		if (!tasks)
			return dl_fail(-ENOMEM, "out of memory");
		ts->tasks = tasks;
		ts->cap = cap;
	}
	for (uint64_t i = 1; i <= count; i++) {
		if (raw->at[DL_RF_COUNT])
			snprintf(name, sizeof(name), "%s.%" PRIu64, raw->name, i);
		else
			snprintf(name, sizeof(name), "%s", raw->name);
		if (has_name(ts, name, &line)) {
			while (ts->n > first)
				free_task(ts->tasks[--ts->n]);
			if (line)
				return rfail(raw, DL_RF_NAME, "a second task named \"%s\" (the first is on line %d): give each task its own name",
					     name, line);
			return rfail(raw, DL_RF_NAME, "a second task named \"%s\": give each task its own name", name);
		}
		ts->tasks[ts->n] = new_task(name, raw, &p, work);
		if (!ts->tasks[ts->n]) {
			while (ts->n > first)
				free_task(ts->tasks[--ts->n]);
			return dl_fail(-ENOMEM, "out of memory");
		}
		ts->tasks[ts->n]->period_line = raw->at[DL_RF_PERIOD] ? raw->at[DL_RF_PERIOD]
					      : raw->at[DL_RF_DEADLINE] ? raw->at[DL_RF_DEADLINE] : raw->line;
		ts->n++;
	}
	return 0;
}

int dl_taskset_check_periods(const struct dl_taskset *ts, uint64_t min, uint64_t max, const char *whose)
{
	char where[300];

	for (size_t i = 0; ts && i < ts->n; i++) {
		const struct task *t = ts->tasks[i];

		if (dl_params_check_period(&t->spec.params, min ? min : DL_PERIOD_MIN_US_DEFAULT * 1000,
					   max ? max : DL_PERIOD_MAX_US_DEFAULT * 1000, whose) == 0)
			continue;
		where[0] = '\0';
		if (t->period_line && ts->origin)
			snprintf(where, sizeof(where), "%s:%d: ", ts->origin, t->period_line);
		else if (t->period_line)
			snprintf(where, sizeof(where), "line %d: ", t->period_line);
		return dl_fail_ctx(-EINVAL, "%speriod: task \"%s\"", where, t->name);
	}
	return 0;
}

DL_EXPORT int dl_taskset_add(struct dl_taskset *ts, const char *name, const struct dl_params *p)
{
	struct dl_rawtask raw = { .origin = "", .name = name };

	if (!ts || !p)
		return dl_fail(-EINVAL, "dl_taskset_add needs a task set and parameters");
	/* Named here: the field-by-field messages below know the file's
	 * fields, and reserved is none of them. */
	if (dl_reserved_check(p->reserved, sizeof(p->reserved), "struct dl_params") < 0)
		return dl_fail_ctx(-EINVAL, "task \"%s\": reserved", name ? name : "");
	raw.params = *p;
	return dl_taskset_add_raw(ts, &raw);
}

/* ---------------------------------------------------------------- the line form */

#define MAX_WORDS 256

/* Split one line into words: blanks separate them, '...' and "..."
 * quote (in "...", \" and \\ stand for " and \), and a word that starts
 * with an unquoted '#' starts a comment to the end of the line.  The
 * words are NUL-terminated copies in buf (as long as the line, plus
 * one). */
static int split_words(const char *s, size_t len, char *buf, char **words, size_t *nwords,
		       const char *origin, int line)
{
	const char *end = s + len;
	char *o = buf;
	size_t n = 0;

	for (;;) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s >= end || *s == '#')
			break;
		if (n == MAX_WORDS)
			return dl_fail(-EINVAL, "%s:%d: more than %d words on one line", origin, line, MAX_WORDS);
		words[n++] = o;
		while (s < end && *s != ' ' && *s != '\t' && *s != '\r') {
			char q = *s;

			if (q != '\'' && q != '"') {
				*o++ = *s++;
				continue;
			}
			for (s++; s < end && *s != q; s++) {
				if (q == '"' && *s == '\\' && s + 1 < end && (s[1] == '"' || s[1] == '\\'))
					s++;
				*o++ = *s;
			}
			if (s >= end)
				return dl_fail(-EINVAL, "%s:%d: a %s quote is not closed: close it on the same line",
					       origin, line, q == '"' ? "double" : "single");
			s++;
		}
		*o++ = '\0';
	}
	*nwords = n;
	return 0;
}

static int line_time(struct dl_rawtask *raw, enum dl_rawfield f, const char *text, bool dash, uint64_t *ns)
{
	if (dash && strcmp(text, "-") == 0) {
		*ns = 0;
		return 0;
	}
	if (dl_time_parse(text, ns) < 0)
		return rfail(raw, f, "%s", dl_errmsg());
	return 0;
}

static int line_key(struct dl_rawtask *raw, const char *word)
{
	static const enum dl_rawfield keys[] = { DL_RF_WORK, DL_RF_SPIN, DL_RF_COUNT, DL_RF_OFFSET, DL_RF_FLAGS, DL_RF_PLACE };
	const char *eq = strchr(word, '='), *v;
	enum dl_rawfield f = DL_RF_N;
	char *end;

	for (size_t i = 0; eq && i < ARRAY_SIZE(keys); i++)
		if (strlen(dl_rawfield_name[keys[i]]) == (size_t)(eq - word) &&
		    strncmp(word, dl_rawfield_name[keys[i]], (size_t)(eq - word)) == 0)
			f = keys[i];
	if (f == DL_RF_N)
		return dl_fail(-EINVAL, "%s:%d: \"%.40s\": expected KEY=VALUE with a key of work, spin, count, offset, flags or place, or -- before a command",
			       raw->origin, raw->line, word);
	if (raw->at[f])
		return rfail(raw, f, "given twice: keep one");
	raw->at[f] = raw->line;
	v = eq + 1;
	switch (f) {
	case DL_RF_WORK:
		return line_time(raw, f, v, false, &raw->work);
	case DL_RF_SPIN:
		return line_time(raw, f, v, false, &raw->spin);
	case DL_RF_OFFSET:
		return line_time(raw, f, v, false, &raw->offset);
	case DL_RF_COUNT:
		errno = 0;
		raw->count = strtoull(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || errno)
			return rfail(raw, f, "\"%.40s\" is not a number of copies: give 1 to %d", v, DL_TASKSET_MAX_COUNT);
		return 0;
	case DL_RF_FLAGS:
		if (dl_taskset_flags(v, &raw->params.flags) < 0)
			return rfail(raw, f, "%s", dl_errmsg());
		return 0;
	default:
		raw->place = v;
		return 0;
	}
}

static int parse_line(struct dl_taskset *ts, const char *s, size_t len, const char *origin, int line)
{
	char *buf = malloc(len + 1), *words[MAX_WORDS + 1];
	struct dl_rawtask raw = { .origin = origin, .line = line };
	size_t n = 0, i;
	int err;

	if (!buf)
		return dl_fail(-ENOMEM, "out of memory");
	err = split_words(s, len, buf, words, &n, origin, line);
	if (err || n == 0)
		goto out;
	if (n < 4) {
		err = dl_fail(-EINVAL, "%s:%d: %zu field%s: a task is NAME RUNTIME DEADLINE PERIOD [KEY=VALUE...] [-- COMMAND ARG...]",
			      origin, line, n, n == 1 ? "" : "s");
		goto out;
	}
	raw.at[DL_RF_NAME] = raw.at[DL_RF_RUNTIME] = raw.at[DL_RF_DEADLINE] = raw.at[DL_RF_PERIOD] = line;
	raw.name = words[0];
	if ((err = line_time(&raw, DL_RF_RUNTIME, words[1], false, &raw.params.runtime)) ||
	    (err = line_time(&raw, DL_RF_DEADLINE, words[2], true, &raw.params.deadline)) ||
	    (err = line_time(&raw, DL_RF_PERIOD, words[3], true, &raw.params.period)))
		goto out;
	if (!raw.params.deadline && !raw.params.period) {
		err = rfail(&raw, DL_RF_DEADLINE, "task \"%s\": give the deadline or the period (\"-\" stands for the other one, not for both)",
			    raw.name);
		goto out;
	}
	for (i = 4; i < n && strcmp(words[i], "--") != 0; i++)
		if ((err = line_key(&raw, words[i])))
			goto out;
	if (i < n) {
		if (i + 1 == n) {
			err = rfail(&raw, DL_RF_COMMAND, "nothing after --: name a command, or remove the --");
			goto out;
		}
		words[n] = NULL;
		raw.argv = &words[i + 1];
		raw.at[DL_RF_COMMAND] = line;
	}
	err = dl_taskset_add_raw(ts, &raw);
out:
	free(buf);
	return err;
}

static int from_lines(struct dl_taskset *ts, const char *text, size_t len, const char *origin)
{
	const char *s = text, *end = text + len;
	int line = 0, err;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		line++;
		if ((err = parse_line(ts, s, n, origin, line)))
			return err;
		s += n + 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- reading */

/* The messages quote the file: make its control bytes harmless to a
 * terminal. */
static int printable_errmsg(int err)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "%s", dl_errmsg());
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return dl_fail(err, "%s", msg);
}

DL_EXPORT int dl_taskset_parse(const char *text, size_t len, const char *origin, struct dl_taskset **out)
{
	struct dl_taskset *ts;
	const char *nul, *s;
	int err, line = 1;

	if (!out)
		return dl_fail(-EINVAL, "dl_taskset_parse needs somewhere to put the task set");
	*out = NULL;
	if (!origin)
		origin = "(text)";
	if (!text && len)
		return dl_fail(-EINVAL, "dl_taskset_parse: no text");
	if (len > DL_TASKSET_MAX_BYTES)
		return dl_fail(-EFBIG, "%s: %zu bytes: a task set is at most %d bytes; split it",
			       origin, len, DL_TASKSET_MAX_BYTES);
	nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		for (s = text; s < nul; s++)
			line += *s == '\n';
		return dl_fail(-EINVAL, "%s:%d: a NUL byte: a task set is text", origin, line);
	}
	ts = dl_taskset_new();
	if (!ts)
		return -ENOMEM;
	for (s = text; s < text + len && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'); s++)
		;
	if (s < text + len && (*s == '{' || *s == '/') && dl_taskset_is_rtapp(text, len))
		err = dl_taskset_from_rtapp(ts, text, len, origin);
	else if (s < text + len && (*s == '{' || *s == '['))
		err = dl_taskset_from_json(ts, text, len, origin);
	else
		err = from_lines(ts, text, len, origin);
	if (!err && ts->n == 0)
		err = dl_fail(-EINVAL, "%s: no task: add a line NAME RUNTIME DEADLINE PERIOD, e.g. \"heavy 8ms 9ms 9ms\"", origin);
	if (!err && strcmp(origin, "(text)") && !(ts->origin = strdup(origin)))
		err = dl_fail(-ENOMEM, "out of memory");
	if (err) {
		dl_taskset_free(ts);
		return printable_errmsg(err);
	}
	*out = ts;
	return 0;
}

DL_EXPORT int dl_taskset_read(const char *path, struct dl_taskset **out)
{
	bool is_stdin = path && strcmp(path, "-") == 0;
	const char *origin = is_stdin ? "(stdin)" : path;
	size_t len = 0, cap = 64 * 1024;
	char *buf = NULL;
	int fd, err;

	if (!out)
		return dl_fail(-EINVAL, "dl_taskset_read needs somewhere to put the task set");
	*out = NULL;
	if (!path || !*path)
		return dl_fail(-EINVAL, "no task-set file given");
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return dl_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;

		if (len == cap || !buf) {
			char *nbuf;

			if (buf)
				cap *= 2;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				err = dl_fail(-ENOMEM, "out of memory");
				goto out;
			}
			buf = nbuf;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = dl_fail(-errno, "cannot read %s: %s", origin, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > DL_TASKSET_MAX_BYTES) {
			err = dl_fail(-EFBIG, "%s is larger than %d bytes, the most a task set may be; split it",
				      origin, DL_TASKSET_MAX_BYTES);
			goto out;
		}
	}
	err = dl_taskset_parse(buf, len, origin, out);
out:
	if (!is_stdin)
		close(fd);
	free(buf);
	return err;
}

void dl_taskset_set_duration(struct dl_taskset *ts, uint64_t ns)
{
	ts->duration = ns;
}

DL_EXPORT int dl_taskset_set_timer(struct dl_taskset *ts, size_t i, int timer)
{
	if (!ts || i >= ts->n)
		return dl_fail(-EINVAL, "no task %zu in the task set", i);
	if (timer != 0 && timer != DL_PERIODIC_RELATIVE && timer != DL_PERIODIC_ABSOLUTE)
		return dl_fail(-EINVAL, "timer mode %d: give 0 (skip), DL_PERIODIC_RELATIVE or DL_PERIODIC_ABSOLUTE", timer);
	ts->tasks[i]->spec.timer = timer;
	return 0;
}

DL_EXPORT size_t dl_taskspec_job(const struct dl_taskspec *t, uint64_t k, uint64_t *work, uint64_t *spin)
{
	uint64_t cycle = 0;
	size_t i;

	if (!t || !t->nphases || !t->phases) {
		if (work)
			*work = t ? t->work : 0;
		if (spin)
			*spin = t ? t->spin : 0;
		return 0;
	}
	for (i = 0; i < t->nphases; i++)
		cycle += t->phases[i].jobs;
	if (cycle)
		k %= cycle;
	for (i = 0; i + 1 < t->nphases && k >= t->phases[i].jobs; i++)
		k -= t->phases[i].jobs;
	if (work)
		*work = t->phases[i].work;
	if (spin)
		*spin = t->phases[i].spin;
	return i;
}

DL_EXPORT bool dl_taskset_ends(const struct dl_taskset *ts)
{
	size_t measured = 0;

	for (size_t i = 0; ts && i < ts->n; i++) {
		const struct dl_taskspec *t = &ts->tasks[i]->spec;

		if (!t->argv && !t->jobs)
			return false;
		measured += !t->argv;
	}
	return measured > 0;
}

DL_EXPORT uint64_t dl_taskset_duration(const struct dl_taskset *ts)
{
	return ts ? ts->duration : 0;
}

DL_EXPORT int dl_taskset_set_place(struct dl_taskset *ts, size_t i, const char *place)
{
	char *copy = NULL;

	if (!ts || i >= ts->n)
		return dl_fail(-EINVAL, "no task %zu in the task set", i);
	if (place && !valid_place(place))
		return dl_fail(-EINVAL, "\"%.40s\" is not a place: give \"%s\" or a partition's name", place, DL_CLUSTER);
	if (place && !(copy = strdup(place)))
		return dl_fail(-ENOMEM, "out of memory");
	free(ts->tasks[i]->place);
	ts->tasks[i]->place = copy;
	ts->tasks[i]->spec.place = copy;
	return 0;
}
