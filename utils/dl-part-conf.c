/*
 * dl-part-conf.c: dl-part's layout file, dl-part.conf(5).
 *
 * One directive a line, '#' starts a comment:
 *   partition [NAME=]CPUS     (repeatable)
 *   cluster CPUS
 *   mems NODES
 *   isolated yes|no
 *   move yes|no
 *   fair-server NAME=off|RUNTIME/PERIOD   (repeatable)
 *   ext-server NAME=off|RUNTIME/PERIOD    (repeatable)
 *   server-off yes|no
 * the same words as dl-part create's options, so a file and a command
 * line describe a layout the same way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dl-part-conf.h"

#define SPACE " \t\r\n"

static int yesno(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

static int partition(struct dl_layout *l, const char *arg, char *why, size_t len)
{
	char name[DL_LAYOUT_NAME_MAX + 1] = "";
	const char *eq = strchr(arg, '=');
	dl_cpus_t cpus;

	if (eq) {
		if (eq == arg || (size_t)(eq - arg) > DL_LAYOUT_NAME_MAX) {
			snprintf(why, len, "the name before '=' must be 1 to %d characters", DL_LAYOUT_NAME_MAX);
			return -1;
		}
		memcpy(name, arg, (size_t)(eq - arg));
	}
	if (dl_cpus_parse(eq ? eq + 1 : arg, &cpus) < 0 || dl_cpus_count(&cpus) == 0) {
		snprintf(why, len, "\"%s\" is not a CPU list (use the kernel's format, e.g. rt=2 or 2-3)", arg);
		return -1;
	}
	if (dl_layout_add_partition(l, name, &cpus) < 0) {
		snprintf(why, len, "%s", dl_errmsg());
		return -1;
	}
	return 0;
}

int conf_server_value(const char *v, uint64_t *runtime, uint64_t *period, char *why, size_t len)
{
	char rt[64];
	const char *slash = strchr(v, '/');

	if (!strcmp(v, "off")) {
		*runtime = *period = 0;
		return 0;
	}
	if (!slash || (size_t)(slash - v) >= sizeof(rt) || slash == v) {
		snprintf(why, len, "\"%s\" is not a server setting: give off, or RUNTIME/PERIOD (e.g. 20ms/25ms)", v);
		return -1;
	}
	memcpy(rt, v, (size_t)(slash - v));
	rt[slash - v] = '\0';
	if (dl_time_parse(rt, runtime) < 0 || dl_time_parse(slash + 1, period) < 0) {
		snprintf(why, len, "\"%s\": %s", v, dl_errmsg());
		return -1;
	}
	if (*period == 0) {
		snprintf(why, len, "\"%s\": a period of 0; give off, or RUNTIME/PERIOD (e.g. 20ms/25ms)", v);
		return -1;
	}
	return 0;
}

int conf_server(struct dl_layout *l, int kind, const char *arg, char *why, size_t len)
{
	char name[DL_LAYOUT_NAME_MAX + 1];
	const char *eq = strchr(arg, '=');
	uint64_t runtime, period;

	if (!eq || eq == arg || (size_t)(eq - arg) > DL_LAYOUT_NAME_MAX) {
		snprintf(why, len, "\"%s\": give NAME=off or NAME=RUNTIME/PERIOD, NAME a partition's or \"%s\" "
			 "(e.g. rt=off)", arg, DL_CLUSTER);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (conf_server_value(eq + 1, &runtime, &period, why, len) < 0)
		return -1;
	if (dl_layout_set_server(l, name, kind, runtime, period) < 0) {
		snprintf(why, len, "%s", dl_errmsg());
		return -1;
	}
	return 0;
}

/*
 * One line of f into line (DL_PART_CONF_LINE_MAX + 1 bytes), without its
 * newline: 1, or 0 at the end of the file.  A line is read whole or
 * refused, so that no piece of it is ever taken for a line of its own
 * (a comment's tail for a directive): -E2BIG when it is longer than
 * DL_PART_CONF_LINE_MAX, -EINVAL when it holds a NUL byte, which would
 * hide the rest of it.
 */
static int read_line(FILE *f, char *line)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return -EINVAL;
		if (n == DL_PART_CONF_LINE_MAX)
			return -E2BIG;
		line[n++] = (char)c;
	}
	line[n] = '\0';
	return c == EOF && n == 0 ? 0 : 1;
}

int conf_load(const char *file, struct dl_layout *l, unsigned int *flags, int *nparts,
	      char *msg, size_t len)
{
	char line[DL_PART_CONF_LINE_MAX + 1], why[512];
	int lineno = 0, bad = 0, got;
	FILE *f = fopen(file, "re");

	if (!f) {
		snprintf(msg, len, "cannot read %s: %s", file, strerror(errno));
		return -1;
	}
	while (!bad && (got = read_line(f, line)) != 0) {
		char *key, *val, *more, *save = NULL;
		dl_cpus_t cpus;
		bool b;

		lineno++;
		if (got == -E2BIG) {
			snprintf(msg, len, "%s:%d: the line is longer than %d characters, the most a line of dl-part.conf may hold: split it (a long comment into several lines, each starting with #)",
				 file, lineno, DL_PART_CONF_LINE_MAX);
			bad = 1;
			break;
		}
		if (got == -EINVAL) {
			snprintf(msg, len, "%s:%d: a NUL byte: dl-part.conf is text; remove it", file, lineno);
			bad = 1;
			break;
		}
		line[strcspn(line, "#")] = '\0';
		key = strtok_r(line, SPACE, &save);
		if (!key)
			continue;
		val = strtok_r(NULL, SPACE, &save);
		more = strtok_r(NULL, SPACE, &save);
		why[0] = '\0';
		if (!val || more) {
			snprintf(why, sizeof(why), "\"%s\" takes one value", key);
		} else if (!strcmp(key, "partition")) {
			if (partition(l, val, why, sizeof(why)) == 0)
				(*nparts)++;
		} else if (!strcmp(key, "cluster")) {
			if (dl_cpus_parse(val, &cpus) < 0 || dl_layout_set_cluster(l, &cpus) < 0)
				snprintf(why, sizeof(why), "\"%s\" is not a CPU list", val);
		} else if (!strcmp(key, "mems")) {
			if (dl_layout_set_mems(l, val) < 0)
				snprintf(why, sizeof(why), "%s", dl_errmsg());
		} else if (!strcmp(key, "fair-server") || !strcmp(key, "ext-server")) {
			conf_server(l, key[0] == 'f' ? DL_SERVER_FAIR : DL_SERVER_EXT, val, why, sizeof(why));
		} else if (!strcmp(key, "server-off")) {
			if (yesno(val, &b) < 0)
				snprintf(why, sizeof(why), "%s takes yes or no, not \"%s\"", key, val);
			else if (b)
				*flags |= DL_LAYOUT_SERVER_OFF;
			else
				*flags &= ~(unsigned int)DL_LAYOUT_SERVER_OFF;
		} else if (!strcmp(key, "isolated") || !strcmp(key, "move")) {
			unsigned int bit = key[0] == 'i' ? DL_LAYOUT_ISOLATED : DL_LAYOUT_NO_MOVE;

			if (yesno(val, &b) < 0)
				snprintf(why, sizeof(why), "%s takes yes or no, not \"%s\"", key, val);
			else if (b == (bit == DL_LAYOUT_ISOLATED))
				*flags |= bit;
			else
				*flags &= ~bit;
		} else {
			snprintf(why, sizeof(why), "unknown directive \"%s\" (partition, cluster, mems, isolated, move, fair-server, ext-server, server-off)", key);
		}
		if (why[0]) {
			snprintf(msg, len, "%s:%d: %s", file, lineno, why);
			bad = 1;
		}
	}
	fclose(f);
	if (!bad && *nparts == 0) {
		snprintf(msg, len, "%s: no partition: add a line such as \"partition rt=1\"", file);
		bad = 1;
	}
	return bad ? -1 : 0;
}
