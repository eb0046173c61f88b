/*
 * util.c: messages and option parsing shared by the libdl tools.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

const char *program_name = "dl";

void util_init(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	program_name = slash ? slash + 1 : argv0 ? argv0 : "dl";
	/* libtool's uninstalled wrappers run "lt-NAME". */
	if (strncmp(program_name, "lt-", 3) == 0)
		program_name += 3;
}

/* One message, one write: messages of processes that share a stderr
 * (a script's, a log's) never interleave. */
static void vmsg(const char *fmt, va_list ap)
{
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "%s: ", program_name);

	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
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
	exit(EXIT_USAGE);
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
	unsigned long v;

	errno = 0;
	if (!arg || *arg < '0' || *arg > '9')
		usage_error("%s: \"%s\" is not a number", opt, arg ? arg : "");
	v = strtoul(arg, &end, 10);
	if (errno || *end)
		usage_error("%s: \"%s\" is not a number", opt, arg);
	if (v > max)
		usage_error("%s: %lu is above the maximum of %" PRIu32, opt, v, max);
	return (uint32_t)v;
}

int opt_pid(const char *opt, const char *arg)
{
	uint32_t v = opt_uint(opt, arg, 0x7fffffff);

	if (v == 0)
		usage_error("%s: 0 is not a process id", opt);
	return (int)v;
}

const char *fmt_time(uint64_t ns, char buf[32])
{
	return dl_time_format(ns, buf, 32);
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

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
