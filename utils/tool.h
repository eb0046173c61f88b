/*
 * tool.h: what every libdl tool shares: messages, --version, option
 * values.  Exit codes follow chrt(1): 0 success, 1 failure, 2 bad usage.
 * dl-run, whose status is its command's once it runs, follows env(1)
 * instead: 125 for a failure of its own (bad usage included), 126/127
 * when the command cannot be run / is not found.
 */
#ifndef LIBDL_TOOLS_TOOL_H
#define LIBDL_TOOLS_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "libdeadline.h"

#define EXIT_USAGE 2
#define EXIT_CANCELED 125 /* coreutils' name, env(1)'s and timeout(1)'s status */
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

extern const char *program_name;
/* The status usage_error() and the option helpers exit with:
 * EXIT_USAGE, or dl-run's EXIT_CANCELED, set before the options are read. */
extern int tool_usage_status;

void util_init(const char *argv0);
/* A library message as a tool user acts on it: its API hints (a
 * function to call, a field to drop) become the tools' (a dl-part
 * command, an option).  Every message below goes through it. */
const char *tool_text(const char *msg, char *buf, size_t len);
/* "prog: message" on stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message", then exit(code). */
noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "prog: message\nTry 'prog --help'." and exit tool_usage_status. */
noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void print_version(void);
/* getopt_long() with "+:..." returned '?' or ':': say which option and
 * exit tool_usage_status. */
noreturn void bad_option(int c, char **argv);

/* Option values: exit tool_usage_status with the library's explanation
 * when malformed. */
uint64_t opt_time(const char *opt, const char *arg);
uint32_t opt_uint(const char *opt, const char *arg, uint32_t max);
int opt_pid(const char *opt, const char *arg);

/* CLOCK_MONOTONIC, and sleeping through signals. */
uint64_t now_ns(void);
void sleep_ns(uint64_t ns);

/* "200ms" and friends, into the caller's buffer. */
const char *fmt_time(uint64_t ns, char buf[DL_TIME_STRLEN]);

/* DL_FLAG_RESET_ON_FORK and friends by dl-run's option names, joined by
 * commas ("reset-on-fork,reclaim"), or "none". */
const char *tool_flags_text(uint64_t flags, char *buf, size_t len);

/* A reservation in words: "runtime 2ms, deadline 5ms, period 10ms (0.2000
 * of a CPU), flags none". */
const char *params_text(const struct dl_params *p, char *buf, size_t len);

#endif
