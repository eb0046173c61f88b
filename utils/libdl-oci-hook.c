/*
 * libdl-oci-hook: an OCI hook (oci-hooks(5)) that gives a container the
 * SCHED_DEADLINE reservation its deadline.libdl.io/ annotations ask for,
 * admitted first, in the partition they name (libdl-oci-hook(8)).  One
 * program for two stages, named by the hook's args:
 *
 *   precreate      podman: the runtime configuration on stdin, admitted
 *                  and printed back with the partition's cgroup (and,
 *                  with --scheduler, process.scheduler), or refused
 *                  before the container exists;
 *   createRuntime  every engine: the container's state on stdin; the
 *                  reservation set on its process before the user's
 *                  program runs, unless the configuration carries it;
 *   unreserved     libdl-nri: a running container's state on stdin; if
 *                  it asks for a reservation and holds none (created
 *                  while the plugin was not running), recorded for
 *                  dl-stat, changed in nothing.
 *
 * process.scheduler only on request: crun applies it before it resets
 * the process's affinity on entering its cgroup, and before 1.25 that
 * reset is an empty mask, which the kernel refuses a deadline task
 * (EBUSY): the container fails although admitted.  createRuntime runs
 * after that reset, with every runtime.
 *
 * A refusal is a message on stderr and exit 1: the engine stops there.
 * Engines do not show a hook's stderr (podman 5.4 and crun 1.21 report
 * "exit status 1"; crun appends a createRuntime hook's to the file of
 * the container's run.oci.hooks.stderr annotation, podman none), so the
 * message also goes to the system log, where the administrator finds it
 * (journalctl -t libdl-oci-hook).  A container without the annotations is passed
 * through as it came.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "tool.h"

#ifndef DL_RUN_POLICY
#define DL_RUN_POLICY "/etc/libdl/dl-run.conf"
#endif

/* A configuration is at most the library's 4 MiB; one byte more says
 * the input is larger. */
#define INPUT_MAX ((4 << 20) + 1)
/* The engine closes stdin once it has written it; an input that never
 * ends is given up after this long, so the hook never hangs the engine. */
#define INPUT_SECONDS 30

/* A refusal: on stderr and in the system log, exit 1.  What the
 * container wrote reaches it only through the library's messages and
 * dl_oci's where, which escape it (dl_oci_parse(3)): it is printed as
 * it is, so that nothing is escaped twice; the hook adds its own words
 * and numbers alone. */
static noreturn void refused(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static noreturn void refused(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", program_name, msg);
	openlog("libdl-oci-hook", LOG_PID, LOG_DAEMON);
	syslog(LOG_ERR, "%s", msg);
	closelog();
	exit(EXIT_FAILURE);
}

static void usage(void)
{
	printf("Usage: %s precreate [--scheduler] | createRuntime | unreserved\n"
	       "An OCI hook (oci-hooks(5)): gives a container the SCHED_DEADLINE reservation of its\n"
	       "annotations deadline.libdl.io/runtime, deadline, period, flags and partition.\n"
	       "  precreate       the runtime configuration on stdin, admitted and printed back with the\n"
	       "                  partition's cgroup, or refused (podman)\n"
	       "    --scheduler   and with process.scheduler, for a runtime that applies it (crun 1.25)\n"
	       "  createRuntime   the container's state on stdin: the reservation set on its process\n"
	       "  unreserved      a running container's state on stdin: recorded for dl-stat if it asks\n"
	       "                  for a reservation and holds none (libdl-nri)\n"
	       "  -h, --help      this text\n"
	       "  -V, --version   the version\n"
	       "See libdl-oci-hook(8).\n",
	       program_name);
	exit(EXIT_SUCCESS);
}

static void too_slow(int sig)
{
	static const char msg[] = ": refused: stdin did not end within 30 s: an engine writes the configuration or state and closes it\n";

	(void)sig;
	if (write(STDERR_FILENO, program_name, strlen(program_name)) >= 0 &&
	    write(STDERR_FILENO, msg, sizeof(msg) - 1) >= 0)
		_exit(EXIT_FAILURE);
	_exit(EXIT_FAILURE);
}

static char *read_input(size_t *len)
{
	char *buf = malloc(INPUT_MAX);
	size_t n = 0;

	if (!buf)
		refused("refused: out of memory");
	signal(SIGALRM, too_slow);
	alarm(INPUT_SECONDS);
	while (n < INPUT_MAX) {
		ssize_t r = read(STDIN_FILENO, buf + n, INPUT_MAX - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			refused("refused: cannot read stdin: %s", strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	alarm(0);
	*len = n;
	return buf;
}

/*
 * A rootless engine runs its hooks in its user namespace, where uid 0 is
 * the user's own: the kernel grants SCHED_DEADLINE only with CAP_SYS_NICE
 * in the initial namespace (sched(7)), which no rootless container holds.
 * 1 and the host's uid in *host when the hook runs in another namespace.
 */
static int rootless(unsigned long *host)
{
	char line[256];
	unsigned long in, out, count;
	int inner = 0;
	FILE *f = fopen("/proc/self/uid_map", "re");

	*host = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lu %lu %lu", &in, &out, &count) == 3) {
			if (in == 0 && out == 0 && count == 4294967295UL)
				continue;
			if (getuid() >= in && getuid() - in < count)
				*host = out + (getuid() - in);
			inner = 1;
		}
	fclose(f);
	return inner;
}

static noreturn void refuse(const char *what, const char *why)
{
	char shown[4096];

	refused("refused %s: %s", what, tool_text(why, shown, sizeof(shown)));
}

/* A rootless engine never: said first, before what its namespace keeps
 * the hook from reading (the layout's state, which is root's). */
static void not_rootless(const char *what)
{
	unsigned long host;

	if (rootless(&host))
		refused("refused %s: the engine is rootless (the hook runs in a user namespace, as host uid %lu): the kernel gives SCHED_DEADLINE only to a process with CAP_SYS_NICE on the host, which no rootless container has; run it with root's engine (sudo podman), within the policy of dl-run.conf(5) for that user",
		    what, host);
}

/* The node's policy (dl-run.conf(5)): read, or the hook refuses. */
static struct dl_policy *policy(const char *what)
{
	struct dl_policy *pol;

	if (dl_policy_read(DL_RUN_POLICY, &pol) < 0)
		refuse(what, dl_errmsg());
	return pol;
}

static struct dl_container container_of(const struct dl_oci *oci)
{
	return (struct dl_container){ .ns = oci->ns, .pod = oci->pod, .name = oci->container, .member = oci->member,
				      .pid = oci->pid };
}

/* A refusal of the policy's: a user's engine's container was judged by
 * that user's rules, which the message names. */
static noreturn void refused_by_policy(const struct dl_oci *oci, const char *what, const char *why)
{
	char uid[32] = "";

	if (!oci->ns && getuid() != 0)
		snprintf(uid, sizeof(uid), " for uid %u", (unsigned)getuid());
	refused("refused %s: the policy (" DL_RUN_POLICY ") does not allow it%s: %s", what, uid, why);
}

/* The caller's right to it, before the kernel is asked: a rootless
 * engine never; a pod's container by its namespace's rule, root's engine
 * included; any other by the engine's rule, or the user's when the
 * engine is not root's (dl-run.conf(5)). */
static void allowed(const struct dl_oci *oci, const char *what)
{
	struct dl_container c = container_of(oci);
	struct dl_policy *pol;
	char why[2048];
	int ret;

	not_rootless(what);
	pol = policy(what);
	ret = dl_policy_container_check(pol, &c, &oci->params, why, sizeof(why));
	dl_policy_free(pol);
	if (ret < 0)
		refuse(what, dl_errmsg());
	if (ret == 0)
		refused_by_policy(oci, what, why);
}

static const char fix[] =
	"ask for less (deadline.libdl.io/runtime), place it elsewhere (deadline.libdl.io/partition), or free bandwidth there (dl-stat --tasks shows who holds it)";

static int precreate(const char *text, size_t len, unsigned int write)
{
	struct dl_oci *oci;
	char what[512], p[256], why[2048], shown[2048], *out;
	size_t n;
	int err = dl_oci_parse(text, len, "the runtime configuration", 0, &oci);

	if (err == -ENODATA) {
		/* Not ours: the configuration back as it came. */
		return fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (err) {
		not_rootless("the container");
		refuse("the container", dl_errmsg());
	}
	snprintf(what, sizeof(what), "the container's reservation (%s)", params_text(&oci->params, p, sizeof(p)));
	allowed(oci, what);
	err = dl_predict_member(oci->member, &oci->params, NULL, why, sizeof(why));
	if (err < 0)
		refuse(what, dl_errmsg());
	if (err == 0)
		refused("refused %s, %s: %s; %s", what, oci->where, tool_text(why, shown, sizeof(shown)), fix);
	if (dl_oci_write(oci, write, &out, &n) < 0)
		refuse(what, dl_errmsg());
	err = fwrite(out, 1, n, stdout) == n && fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	free(out);
	dl_oci_free(oci);
	return err;
}

static int create_runtime(const char *text, size_t len)
{
	struct dl_policy *pol;
	struct dl_container c;
	struct dl_oci *oci;
	char what[512], p[256], why[2048], shown[2048];
	int err = dl_oci_parse(text, len, "the container's state", DL_OCI_STATE, &oci);

	if (err == -ENODATA)
		return EXIT_SUCCESS;
	if (err) {
		not_rootless("the container");
		refuse("the container", dl_errmsg());
	}
	snprintf(what, sizeof(what), "the reservation of the container's process %d (%s)", (int)oci->pid,
		 params_text(&oci->params, p, sizeof(p)));
	not_rootless(what);
	pol = policy(what);
	c = container_of(oci);
	/* The process is in its cgroup: the kernel's sched_setattr is the
	 * admission itself, judged and taken in one step with the policy's
	 * count (dl_policy_container_set(3)); a refusal of the kernel's is
	 * explained from the system as it is.  When the precreate stage
	 * wrote process.scheduler, the runtime sets the same (a no-op for
	 * the kernel), and it is counted here. */
	err = dl_policy_container_set(pol, &c, &oci->params, why, sizeof(why));
	dl_policy_free(pol);
	if (err == 0)
		refused_by_policy(oci, what, why);
	if (err == -EBUSY || err == -EPERM || err == -EINVAL) {
		dl_explain(err, oci->pid, &oci->params, why, sizeof(why));
		refused("refused %s, %s: %s; %s", what, oci->where, tool_text(why, shown, sizeof(shown)), fix);
	}
	if (err < 0)
		refuse(what, dl_errmsg());
	dl_oci_free(oci);
	return EXIT_SUCCESS;
}

/* A container the plugin found running: recorded when it asks for a
 * reservation and holds none; exit 0 whether or not, 1 with the reason
 * when it cannot tell. */
static int unreserved(const char *text, size_t len)
{
	struct dl_container c;
	struct dl_oci *oci;
	char shown[4096];
	int err = dl_oci_parse(text, len, "the container's state", DL_OCI_STATE, &oci);

	if (err == -ENODATA)
		return EXIT_SUCCESS;
	if (err)
		refused("cannot read the container's state: %s", tool_text(dl_errmsg(), shown, sizeof(shown)));
	c = container_of(oci);
	if (dl_container_unreserved_add(&c) < 0)
		refused("cannot record the container's process %d as running without its reservation: %s",
			(int)oci->pid, tool_text(dl_errmsg(), shown, sizeof(shown)));
	dl_oci_free(oci);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	char *text;
	size_t len;
	int ret;

	util_init(argv[0]);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage();
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")))
		print_version();
	if (argc < 2 || (strcmp(argv[1], "precreate") && strcmp(argv[1], "createRuntime") &&
			 strcmp(argv[1], "unreserved")))
		usage_error("give the hook's stage: precreate or createRuntime (the args of its hooks.d file), or libdl-nri's unreserved");
	if (argc > 3 || (argc == 3 && (strcmp(argv[1], "precreate") || strcmp(argv[2], "--scheduler"))))
		usage_error("the only option is precreate's --scheduler, not %s", argv[argc - 1]);
	text = read_input(&len);
	if (!strcmp(argv[1], "precreate"))
		ret = precreate(text, len, argc == 3 ? DL_OCI_SCHEDULER : 0);
	else if (!strcmp(argv[1], "createRuntime"))
		ret = create_runtime(text, len);
	else
		ret = unreserved(text, len);
	free(text);
	return ret;
}
