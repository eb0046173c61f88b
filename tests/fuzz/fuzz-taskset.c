/* libFuzzer target: the task-set reader (libdl-taskset(5)), all forms.
 *
 * It asserts what the reader promises of a set it accepts, and no more:
 * the kernel's rules (runtime >= 1024 ns, runtime <= deadline <= period,
 * times below 2^63, known flags), parameters normalized, work <= period,
 * valid and unique names, a valid place, a non-empty command, 1 to
 * DL_TASKSET_MAX_TASKS tasks.  The period limits are this machine's
 * sysctls, checked where a set meets a machine (dl_taskset_check_periods),
 * not by the reader: a valid file may hold a period of 108s. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "workload/taskset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > DL_TASKSET_NAME_MAX + 5) /* NAME plus ".1024" */
		return false;
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", s[i]))
			return false;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_task(const struct dl_taskspec *t)
{
	struct dl_params p;

	if (!t || !t->name || !valid_name(t->name))
		abort();
	/* The rules hold, and the parameters are already normalized. */
	if (dl_params_normalize_rules(&t->params, &p) != 0 || memcmp(&p, &t->params, sizeof(p)) != 0)
		abort();
	if (t->work > t->params.period)
		abort();
	if (t->place && (!t->place[0] || strlen(t->place) > DL_LAYOUT_NAME_MAX))
		abort();
	if (t->argv && (!t->argv[0] || !t->argv[0][0]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_taskset *ts = NULL;
	const char **names;
	size_t n;

	if (dl_taskset_parse((const char *)data, size, "fuzz", &ts) != 0) {
		if (ts)
			abort();
		return 0;
	}
	n = dl_taskset_count(ts);
	if (!ts || n < 1 || n > DL_TASKSET_MAX_TASKS)
		abort();
	names = calloc(n, sizeof(*names));
	if (!names)
		abort();
	for (size_t i = 0; i < n; i++) {
		check_task(dl_taskset_task(ts, i));
		names[i] = dl_taskset_task(ts, i)->name;
	}
	/* Unique names: sorted, no two neighbours equal. */
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 1; i < n; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			abort();
	free(names);
	dl_taskset_free(ts);
	return 0;
}
