/*
 * json-writer.c: see json-writer.h.
 */
#include <inttypes.h>

#include "json-writer.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			/* Control bytes, and bytes of names that need not be
			 * UTF-8: never raw in the output. */
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		put_str(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth < 31)
		j->depth++;
	j->first[j->depth] = true;
}

void json_obj_begin(struct json *j, const char *key) { open_(j, key, '{'); }
void json_arr_begin(struct json *j, const char *key) { open_(j, key, '['); }

void json_obj_end(struct json *j)
{
	if (j->depth > 0)
		j->depth--;
	fputc('}', j->f);
}

void json_arr_end(struct json *j)
{
	if (j->depth > 0)
		j->depth--;
	fputc(']', j->f);
}

void json_str(struct json *j, const char *key, const char *val)
{
	sep(j, key);
	if (val)
		put_str(j->f, val);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, const char *key, int64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRId64, val);
}

void json_uint(struct json *j, const char *key, uint64_t val)
{
	sep(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

void json_rd_fields(struct json *j, const struct dl_rd *rd)
{
	char cpus[DL_CPUS_STRLEN];

	json_str(j, "cpus", dl_cpus_format(&rd->cpus, cpus, sizeof(cpus)));
	json_int(j, "ncpus", rd->ncpus);
	json_int(j, "cpu_bw", rd->cpu_bw);
	json_int(j, "capacity", rd->capacity);
	json_uint(j, "cpu_capacity_min", rd->cap_min);
	json_uint(j, "cpu_capacity_max", rd->cap_max);
	json_uint(j, "cpu_capacity_sum", rd->cap_sum);
	json_int(j, "fair_bw", rd->fair_bw);
	json_int(j, "uncounted_fair_bw", rd->uncounted_fair_bw);
	json_int(j, "tasks_bw", rd->tasks_bw);
	json_uint(j, "deadline_threads", rd->ntasks);
	json_int(j, "total_bw", rd->total_bw);
	json_int(j, "free_bw", rd->free_bw);
	json_bool(j, "from_kernel", rd->from_kernel);
	json_bool(j, "unlimited", rd->unlimited);
}
