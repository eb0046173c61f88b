/*
 * cpus.c: CPU sets: their arithmetic, the kernel's list format
 * (Documentation/admin-guide/cgroup-v1/cpusets.rst) parsed and written,
 * and the lists the kernel keeps in files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"

int dl_read_cpus(const char *path, dl_cpus_t *set)
{
	char buf[4096];
	int err = dl_read_file(path, buf, sizeof(buf));

	return err ? err : dl_cpus_parse(buf, set);
}

DL_EXPORT int dl_cpus_count(const dl_cpus_t *s)
{
	int n = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

DL_EXPORT bool dl_cpus_equal(const dl_cpus_t *a, const dl_cpus_t *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

DL_EXPORT bool dl_cpus_subset(const dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

DL_EXPORT bool dl_cpus_intersects(const dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

void dl_cpus_and(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] &= b->bits[i];
}

void dl_cpus_or(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] |= b->bits[i];
}

void dl_cpus_andnot(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] &= ~b->bits[i];
}

int dl_cpus_first(const dl_cpus_t *s)
{
	for (unsigned i = 0; i < ARRAY_SIZE(s->bits); i++)
		if (s->bits[i])
			return (int)(i * 64) + __builtin_ctzll(s->bits[i]);
	return -1;
}

static int parse_cpu(const char **p, long *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoll(*p, &end, 10);
	if (errno)
		return -ERANGE;
	*p = end;
	*out = v;
	return 0;
}

/* The kernel's list format (Documentation/admin-guide/cgroup-v1/cpusets.rst):
 * comma-separated CPUs and ranges, "0-3,8"; an empty string is the empty set. */
static int parse_list(const char *text, dl_cpus_t *set)
{
	const char *p = text;

	dl_cpus_zero(set);
	if (!text)
		return dl_fail(-EINVAL, "no CPU list given");
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0')
		return 0;
	for (;;) {
		long a, b;
		const char *item = p;

		if (parse_cpu(&p, &a) < 0)
			return dl_fail(-EINVAL, "invalid CPU list \"%s\": expected a CPU number at \"%s\" (use the kernel's format, e.g. 0,2-3)",
				       text, item);
		b = a;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &b) < 0)
				return dl_fail(-EINVAL, "invalid CPU list \"%s\": range \"%.*s\" has no end",
					       text, (int)(p - item), item);
			if (b < a)
				return dl_fail(-EINVAL, "invalid CPU list \"%s\": range %ld-%ld runs backwards",
					       text, a, b);
		}
		if (b >= DL_CPUS_MAX)
			return dl_fail(-ERANGE, "invalid CPU list \"%s\": CPU %ld is beyond the %d CPUs libdeadline handles",
				       text, b, DL_CPUS_MAX);
		for (long c = a; c <= b; c++)
			dl_cpus_set(set, (int)c);
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return dl_fail(-EINVAL, "invalid CPU list \"%s\": unexpected \"%s\" (use the kernel's format, e.g. 0,2-3)",
				       text, p);
		p++;
	}
}

DL_EXPORT int dl_cpus_parse(const char *text, dl_cpus_t *out)
{
	dl_cpus_t local, *set = out ? out : &local;
	int err = parse_list(text, set);

	/* out may be NULL: the list is checked only.  On failure it is empty. */
	if (err)
		dl_cpus_zero(set);
	return err;
}

DL_EXPORT char *dl_cpus_format(const dl_cpus_t *set, char *buf, size_t len)
{
	char text[DL_CPUS_STRLEN];
	size_t used = 0;
	int cpu = 0;

	if (!set) {
		errno = EINVAL;
		dl_fail(-EINVAL, "dl_cpus_format: no CPU set given");
		return NULL;
	}
	text[0] = '\0';
	while (cpu < DL_CPUS_MAX) {
		int start, n;

		if (!dl_cpus_isset(set, cpu)) {
			cpu++;
			continue;
		}
		start = cpu;
		while (cpu + 1 < DL_CPUS_MAX && dl_cpus_isset(set, cpu + 1))
			cpu++;
		/* DL_CPUS_STRLEN holds the longest list: this never cuts. */
		n = start == cpu ? snprintf(text + used, sizeof(text) - used, "%s%d", used ? "," : "", start)
				 : snprintf(text + used, sizeof(text) - used, "%s%d-%d", used ? "," : "", start, cpu);
		used += n > 0 ? (size_t)n : 0;
		cpu++;
	}
	return dl_fmt_out(text, buf, len, "dl_cpus_format", "DL_CPUS_STRLEN");
}

DL_EXPORT int dl_cpus_online(dl_cpus_t *set)
{
	char buf[4096];
	int err;

	if (!set)
		return dl_fail(-EINVAL, "dl_cpus_online needs a set to fill in");
	dl_cpus_zero(set);
	err = dl_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (err)
		return dl_fail(err, "cannot read /sys/devices/system/cpu/online: %s", strerror(-err));
	return dl_cpus_parse(buf, set);
}
