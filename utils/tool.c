/*
 * tool.c: messages and option parsing shared by the libdl tools.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool.h"

const char *program_name = "dl";
int tool_usage_status = EXIT_USAGE;

void util_init(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	program_name = slash ? slash + 1 : argv0 ? argv0 : "dl";
	/* libtool's uninstalled wrappers run "lt-NAME". */
	if (strncmp(program_name, "lt-", 3) == 0)
		program_name += 3;
}

/*
 * The library's messages speak its API (a function, a dl_params field);
 * the tools say what a user of the tools does instead.  Phrase by
 * phrase, so that each message reads as one sentence either way.
 */
static const struct {
	const char *api, *tool;
} hints[] = {
	{ "another layout change (dl_layout_create(3), dl_layout_destroy(3) or dl_rd_rebuild(3)) is running",
	  "another dl-part create, destroy or repair is running" },
	{ "call dl_rd_rebuild(3)", "run dl-part repair" },
	{ "(dl_rd_rebuild(3))", "(dl-part repair)" },
	{ "call dl_layout_destroy(3)", "run dl-part destroy" },
	{ "(DL_LAYOUT_LEAVE_BUSY, dl_layout_destroy(3))", "(dl-part destroy --force)" },
	{ "with dl_layout_destroy(3)", "with dl-part destroy" },
	{ "create one with dl_layout_create(3)", "create one with dl-part create" },
	{ "a partition of its own (dl_layout_create(3))", "a partition of its own (dl-part)" },
	{ "give at least one (dl_layout_add_partition(3))", "give at least one (e.g. --partition 0)" },
	{ "(libdeadline keeps its layout state there)", "(dl-part keeps its state there)" },
	{ "(see dl_rd_list(3))", "(see dl-part status)" },
	{ "or set a reservation first (dl_set(3))", "or start it with dl-run" },
	{ "drop util_min and util_max", "drop --util-min and --util-max" },
	{ "start it where it belongs: dl_part_set(3) before the thread sleeps",
	  "start it where it belongs: dl-run --partition NAME -- COMMAND" },
	{ "instead of narrowing its affinity", "instead of taskset" },
	{ "a partition of the CPUs it should use (a layout with a partition of CPUs ",
	  "a cpuset partition of the CPUs it should use (dl-part create --partition " },
	{ ": dl_layout_create(3), then dl_part_set(3))", ", then dl-run --partition)" },
};

const char *tool_text(const char *msg, char *buf, size_t len)
{
	size_t n = 0;

	if (len == 0)
		return "";
	while (*msg && n + 1 < len) {
		size_t i;

		for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
			if (strncmp(msg, hints[i].api, strlen(hints[i].api)) == 0)
				break;
		if (i < sizeof(hints) / sizeof(hints[0])) {
			n += (size_t)snprintf(buf + n, len - n, "%s", hints[i].tool);
			if (n >= len)
				n = len - 1;
			msg += strlen(hints[i].api);
		} else {
			buf[n++] = *msg++;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* Every byte a terminal could take for a command (a control character,
 * DEL, and the bytes above, which 8-bit terminals read as C1 controls)
 * as \xNN, in place.  Messages name things users chose (cgroups, files,
 * threads): the library escapes those it knows of, and this is the last
 * line for the rest.  Backslashes stay, so escaped text is unchanged. */
static void escape_controls(char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char out[4096];
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < sizeof(out); p++) {
		if (*p >= 0x20 && *p < 0x7f) {
			out[o++] = (char)*p;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[*p >> 4];
		out[o++] = hex[*p & 15];
	}
	out[o] = '\0';
	snprintf(s, len, "%s", out);
}

/* One message, one write: messages of processes that share a stderr
 * (a script's, a log's) never interleave. */
static void vmsg(const char *fmt, va_list ap)
{
	char msg[4096], buf[4096];
	int n = snprintf(buf, sizeof(buf), "%s: ", program_name);

	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	tool_text(msg, buf + n, sizeof(buf) - (size_t)n - 1);
	escape_controls(buf + n, sizeof(buf) - (size_t)n - 1);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(code);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	exit(tool_usage_status);
}

void print_version(void)
{
	printf("%s from %s %s\n", program_name, PACKAGE_NAME, PACKAGE_VERSION);
	exit(EXIT_SUCCESS);
}

void bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		usage_error("option '%s' needs a value", arg);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", arg);
}

uint64_t opt_time(const char *opt, const char *arg)
{
	uint64_t ns;

	if (dl_time_parse(arg, &ns) < 0)
		usage_error("%s: %s", opt, dl_errmsg());
	return ns;
}

uint32_t opt_uint(const char *opt, const char *arg, uint32_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!arg || *arg < '0' || *arg > '9')
		usage_error("%s: \"%s\" is not a number", opt, arg ? arg : "");
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		usage_error("%s: \"%s\" is not a number", opt, arg);
	if (v > max)
		usage_error("%s: %llu is above the maximum of %" PRIu32, opt, v, max);
	return (uint32_t)v;
}

int opt_pid(const char *opt, const char *arg)
{
	uint32_t v = opt_uint(opt, arg, 0x7fffffff);

	if (v == 0)
		usage_error("%s: 0 is not a process id", opt);
	return (int)v;
}

const char *fmt_time(uint64_t ns, char buf[DL_TIME_STRLEN])
{
	return dl_time_format(ns, buf, DL_TIME_STRLEN);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* dl-run's flag options by name, "reset-on-fork,reclaim", or "none". */
const char *tool_flags_text(uint64_t flags, char *buf, size_t len)
{
	static const struct {
		uint64_t flag;
		const char *name;
	} names[] = {
		{ DL_FLAG_RESET_ON_FORK, "reset-on-fork" },
		{ DL_FLAG_RECLAIM, "reclaim" },
		{ DL_FLAG_DL_OVERRUN, "overrun-signal" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].flag)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "," : "", names[i].name);
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

const char *params_text(const struct dl_params *p, char *buf, size_t len)
{
	char r[32], d[32], t[32], u[32], f[64];

	snprintf(buf, len, "runtime %s, deadline %s, period %s (%s of a CPU), flags %s",
		 fmt_time(p->runtime, r), fmt_time(p->deadline, d), fmt_time(p->period, t),
		 dl_bw_format((int64_t)dl_params_bw(p), u, sizeof(u)),
		 tool_flags_text(p->flags, f, sizeof(f)));
	return buf;
}
