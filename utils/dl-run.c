/*
 * dl-run: run a command, or change a running process, under a
 * SCHED_DEADLINE reservation.
 *
 * dl-run sets the policy on itself and execs the command: no extra
 * process, the PID the user sees is the command's, and the reservation is
 * inherited across exec(2).  When installed with file capabilities
 * (setcap cap_sys_nice+ep) it drops every capability before the exec.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "json-writer.h"
#include "tool.h"

struct dl_run {
	struct dl_params params;
	pid_t pid;        /* --pid, or 0: run a command */
	bool all_threads;
	bool check;
	bool json;        /* with --check: the verdict as JSON */
	bool verbose;
	const char *place; /* --partition NAME, or DL_CLUSTER */
	const char *oci;   /* --check --oci: a bundle's config.json, or its folder */
	char **command;
	struct dl_policy *policy; /* for a caller that is not root */
};

/*
 * The exit status is the command's once it runs, so that whoever watches
 * it (a shell, systemd's Restart= and RestartPreventExitStatus=) reads
 * the program's failures as the program's: dl-run's own failures (bad
 * usage, the reservation refused, the policy, a --check that cannot
 * tell) are EXIT_CANCELED, 125, and a command that cannot run 126 or
 * 127, as env(1), nice(1) and timeout(1) keep theirs apart.  --check
 * runs nothing and answers as test(1) and grep(1) do: 0 yes, 1 no.
 */
#define EXIT_NOT_ADMISSIBLE 1

/* The policy file of dl-run.conf(5): a path fixed at build time. */
#ifndef DL_RUN_POLICY
#define DL_RUN_POLICY "/etc/libdl/dl-run.conf"
#endif

static noreturn void usage(void)
{
	printf("Usage:\n"
	       " %1$s [options] [--] COMMAND [ARG...]\n"
	       " %1$s [options] --pid PID [--all-threads]\n"
	       " %1$s --check [--json] --oci FILE\n"
	       "\n"
	       "Run COMMAND, or change the process PID, under a SCHED_DEADLINE reservation:\n"
	       "RUNTIME of CPU time in every PERIOD, to be used within DEADLINE of the\n"
	       "period's start.\n"
	       "\n"
	       "Options:\n"
	       " -r, --runtime TIME      CPU time per period (required)\n"
	       " -d, --deadline TIME     relative deadline (default: the period)\n"
	       " -p, --period TIME       period (default: the deadline)\n"
	       " -R, --reset-on-fork     children start as SCHED_OTHER\n"
	       "     --reclaim           reclaim unused bandwidth (GRUB)\n"
	       "     --overrun-signal    send SIGXCPU when the runtime overruns\n"
	       "     --util-min N        utilization clamp minimum, 0..1024\n"
	       "     --util-max N        utilization clamp maximum, 0..1024\n"
	       "     --partition NAME    run in partition NAME of the dl-part(1) layout\n"
	       "     --cluster           run in the layout's cluster\n"
	       "     --pid PID           change a running process instead of running COMMAND\n"
	       " -a, --all-threads       with --pid: every thread of PID (default: only PID)\n"
	       "     --check             say whether the kernel would admit it, and why;\n"
	       "                         change nothing and run nothing\n"
	       "     --json              with --check: the verdict as JSON (see dl-run(1))\n"
	       "     --oci FILE          with --check: the process.scheduler of an OCI bundle's\n"
	       "                         config.json (FILE, or the bundle's folder), where its\n"
	       "                         linux.cgroupsPath puts the container\n"
	       " -v, --verbose           print the reservation the kernel reports\n"
	       " -h, --help              display this help\n"
	       " -V, --version           display the version\n"
	       "\n"
	       "TIME is a number with a unit: 750ns, 500us, 1.5ms, 200ms, 1s; a bare\n"
	       "number is nanoseconds, as in chrt(1).\n"
	       "\n"
	       "A deadline task cannot fork: without --reset-on-fork, fork() fails with\n"
	       "EAGAIN, so a shell script (\"Cannot fork\") or any command that starts\n"
	       "others needs -R, e.g.\n"
	       "  %1$s -R -r 2ms -p 10ms -- sh ./job.sh\n"
	       "\n"
	       "Exit status: the command's own; 125 if dl-run fails (bad usage, the\n"
	       "reservation refused); 126 if COMMAND cannot be run; 127 if it is not\n"
	       "found.  With --check: 0 admissible, 1 not, 125 if it cannot tell.\n"
	       "\n"
	       "See dl-run(1).\n", program_name);
	exit(EXIT_SUCCESS);
}

enum {
	OPT_RECLAIM = 0x100,
	OPT_OVERRUN,
	OPT_UTIL_MIN,
	OPT_UTIL_MAX,
	OPT_PID,
	OPT_CHECK,
	OPT_JSON,
	OPT_PARTITION,
	OPT_CLUSTER,
	OPT_OCI,
};

static void parse_args(struct dl_run *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runtime", required_argument, NULL, 'r' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "period", required_argument, NULL, 'p' },
		{ "reset-on-fork", no_argument, NULL, 'R' },
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "overrun-signal", no_argument, NULL, OPT_OVERRUN },
		{ "util-min", required_argument, NULL, OPT_UTIL_MIN },
		{ "util-max", required_argument, NULL, OPT_UTIL_MAX },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "all-threads", no_argument, NULL, 'a' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ "cluster", no_argument, NULL, OPT_CLUSTER },
		{ "oci", required_argument, NULL, OPT_OCI },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_runtime = false;
	int c;

	/* '+': options end at COMMAND, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+:r:d:p:RavhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ctl->params.runtime = opt_time("--runtime", optarg);
			have_runtime = true;
			break;
		case 'd':
			ctl->params.deadline = opt_time("--deadline", optarg);
			break;
		case 'p':
			ctl->params.period = opt_time("--period", optarg);
			break;
		case 'R':
			ctl->params.flags |= DL_FLAG_RESET_ON_FORK;
			break;
		case OPT_RECLAIM:
			ctl->params.flags |= DL_FLAG_RECLAIM;
			break;
		case OPT_OVERRUN:
			ctl->params.flags |= DL_FLAG_DL_OVERRUN;
			break;
		case OPT_UTIL_MIN:
			ctl->params.util_min = opt_uint("--util-min", optarg, DL_UTIL_MAX);
			ctl->params.flags |= DL_FLAG_UTIL_CLAMP_MIN;
			break;
		case OPT_UTIL_MAX:
			ctl->params.util_max = opt_uint("--util-max", optarg, DL_UTIL_MAX);
			ctl->params.flags |= DL_FLAG_UTIL_CLAMP_MAX;
			break;
		case OPT_PID:
			ctl->pid = opt_pid("--pid", optarg);
			break;
		case 'a':
			ctl->all_threads = true;
			break;
		case OPT_CHECK:
			ctl->check = true;
			break;
		case OPT_JSON:
			ctl->json = true;
			break;
		case OPT_PARTITION:
			if (ctl->place)
				usage_error("give one --partition or --cluster");
			ctl->place = optarg;
			break;
		case OPT_CLUSTER:
			if (ctl->place)
				usage_error("give one --partition or --cluster");
			ctl->place = DL_CLUSTER;
			break;
		case OPT_OCI:
			ctl->oci = optarg;
			break;
		case 'v':
			ctl->verbose = true;
			break;
		case 'h':
			usage();
		case 'V':
			print_version();
		default:
			bad_option(c, argv);
		}
	}
	if (ctl->oci) {
		/* The request is the file's, and where it runs its cgroup's. */
		if (!ctl->check)
			usage_error("--oci goes with --check: dl-run --check --oci FILE");
		if (have_runtime || ctl->params.deadline || ctl->params.period || ctl->params.flags)
			usage_error("--oci takes the reservation from the file: give no --runtime, --deadline, --period or flags");
		if (ctl->pid || ctl->all_threads || ctl->place || optind < argc)
			usage_error("--oci takes where the container runs from the file: give no --pid, --partition, --cluster or COMMAND");
		return;
	}
	if (!have_runtime)
		usage_error("no runtime: give --runtime TIME (e.g. -r 2ms)");
	if (ctl->params.deadline == 0 && ctl->params.period == 0)
		usage_error("no deadline or period: give --period TIME or --deadline TIME (each defaults to the other)");
	if (ctl->all_threads && !ctl->pid)
		usage_error("--all-threads needs --pid");
	ctl->command = optind < argc ? &argv[optind] : NULL;
	if (ctl->pid && ctl->command)
		usage_error("give --pid or a COMMAND, not both");
	if (!ctl->pid && !ctl->command && !ctl->check)
		usage_error("no COMMAND to run (or --pid PID to change)");
	if (ctl->json && !ctl->check)
		usage_error("--json goes with --check");
}

/*
 * The parameters checked by every rule of the kernel's, its period limits
 * included (two files of /proc/sys: dl_params_normalize(3)), and
 * completed: a broken rule is bad usage.  Before anything is changed,
 * unless the first change is the kernel's own sched_setattr(2) on dl-run
 * itself (a launch by root, set_self()): the kernel checks the rules
 * before it changes anything, so they are read only when it refuses.
 */
static void check_params(struct dl_run *ctl)
{
	if (dl_params_normalize(&ctl->params, &ctl->params) < 0)
		usage_error("%s", dl_errmsg());
}

/* A launch by root: the reservation on dl-run itself, which the command
 * inherits across the exec; its parameters are checked when the kernel
 * refuses them (check_params). */
static void set_self(struct dl_run *ctl)
{
	char why[1024], text[256];

	if (dl_set(0, &ctl->params) == 0)
		return;
	snprintf(why, sizeof(why), "%s", dl_errmsg());
	check_params(ctl);
	die(EXIT_CANCELED, "cannot set SCHED_DEADLINE (%s): %s", params_text(&ctl->params, text, sizeof(text)), why);
}

/* What the kernel now reports for tid, on stderr (stdout is the command's). */
static void report(pid_t tid)
{
	struct dl_params got;
	char text[256];
	int policy = dl_get(tid, &got);

	if (policy < 0) {
		warnx_("cannot read back thread %d: %s", (int)tid, dl_errmsg());
		return;
	}
	if (policy != DL_SCHED_DEADLINE) {
		warnx_("thread %d: policy %d, not SCHED_DEADLINE", (int)tid, policy);
		return;
	}
	warnx_("thread %d: SCHED_DEADLINE %s", (int)(tid ? tid : getpid()),
	       params_text(&got, text, sizeof(text)));
}

static const char *const step_names[] = {
	[DL_VERDICT_ADMITTED] = "admitted",
	[DL_VERDICT_INVALID] = "invalid",
	[DL_VERDICT_NO_CAP] = "no-capability",
	[DL_VERDICT_AFFINITY] = "affinity",
	[DL_VERDICT_NO_BW] = "no-bandwidth",
	[DL_VERDICT_OVERFLOW] = "overflow",
};

/* The "oci" object of --check --json: the container and where it runs. */
static void json_oci(struct json *j, const struct dl_oci *oci, const struct dl_params *p)
{
	json_obj_begin(j, "oci");
	json_str(j, "config", oci->config);
	json_str(j, "cgroups_path", oci->cgroup);
	json_str(j, "partition", oci->member);
	json_str(j, "where", oci->where);
	json_bool(j, "reset_on_fork", p->flags & DL_FLAG_RESET_ON_FORK);
	json_str(j, "note", oci->note);
	json_obj_end(j);
}

/* --check --json --oci without a verdict of the kernel's: a file that
 * cannot be judged (no oci), or a layout unknown. */
static void oci_no_verdict(const char *verdict, const char *why, const struct dl_oci *oci)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_bool(&j, "admissible", false);
	json_str(&j, "verdict", verdict);
	json_str(&j, "explanation", why);
	if (oci) {
		json_null(&j, "member");
		json_oci(&j, oci, &oci->params);
		json_null(&j, "policy");
	}
	json_obj_end(&j);
	json_end(&j);
}

/* --check --json: one object, the schema of dl-run(1). */
static void check_json(const struct dl_run *ctl, const struct dl_params *p, const struct dl_oci *oci,
		       const struct dl_verdict *v, bool admitted, const char *why, int pol, const char *allowed)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_bool(&j, "admissible", admitted);
	json_bool(&j, "kernel_admits", v->admitted);
	json_str(&j, "verdict", v->step >= 0 && (size_t)v->step < sizeof(step_names) / sizeof(step_names[0]) &&
			step_names[v->step] ? step_names[v->step] : "unknown");
	json_str(&j, "explanation", why);
	json_obj_begin(&j, "request");
	json_uint(&j, "runtime_ns", p->runtime);
	json_uint(&j, "deadline_ns", p->deadline);
	json_uint(&j, "period_ns", p->period);
	json_uint(&j, "flags", p->flags);
	json_uint(&j, "bw", dl_params_bw(p));
	json_int(&j, "pid", ctl->pid);
	json_bool(&j, "all_threads", ctl->all_threads);
	json_uint(&j, "threads", v->threads);
	json_uint(&j, "need_bw", v->need);
	json_uint(&j, "old_bw", v->old);
	json_uint(&j, "cpu_capacity_need", v->cap_need);
	json_obj_end(&j);
	/* A container's member is its cgroup's (null outside the partitions). */
	json_str(&j, "member", oci ? oci->member : ctl->place);
	if (oci)
		json_oci(&j, oci, p);
	if (v->cpu >= 0 && v->rd.ncpus > 0) {
		json_int(&j, "cpu", v->cpu);
		json_obj_begin(&j, "root_domain");
		json_rd_fields(&j, &v->rd);
		json_str(&j, "drift", v->drift == DL_DRIFT_YES ? "drifted" : v->drift == DL_DRIFT_SETTLING ? "settling" : "none");
		json_obj_end(&j);
	} else {
		json_null(&j, "cpu");
		json_null(&j, "root_domain");
	}
	/* A container's request is judged by no user's policy. */
	if (ctl->policy && !oci) {
		json_obj_begin(&j, "policy");
		json_bool(&j, "allowed", pol == 1);
		json_str(&j, "explanation", allowed);
		json_obj_end(&j);
	} else {
		json_null(&j, "policy");
	}
	json_obj_end(&j);
	json_end(&j);
}

/* --check: the library's prediction from the root domain's figures (of
 * the member's root domain with --partition or --cluster, as if the
 * thread had joined it first); nothing is changed, nothing is run, and
 * nothing is mounted: without debugfs the figures are computed and the
 * explanation says so (dl_rd_list(3)). */
static int check(const struct dl_run *ctl)
{
	char why[1024], shown[1024], text[256];
	char allowed[1024] = "";
	struct dl_verdict v;
	int ret, pol = 1;

	ret = ctl->place ? dl_part_predict(ctl->place, ctl->pid, ctl->all_threads, &ctl->params, &v, why, sizeof(why))
			 : dl_predict_verdict(ctl->pid, ctl->all_threads, &ctl->params, &v, why, sizeof(why));
	if (ret < 0)
		die(EXIT_CANCELED, "cannot tell: %s", dl_errmsg());
	if (ctl->policy) {
		pol = dl_policy_check(ctl->policy, ctl->pid, ctl->all_threads, &ctl->params,
				      allowed, sizeof(allowed));
		if (pol < 0)
			die(EXIT_CANCELED, "cannot apply the policy: %s", dl_errmsg());
	}
	tool_text(why, shown, sizeof(shown));
	if (ctl->json) {
		check_json(ctl, &ctl->params, NULL, &v, ret && pol, shown, pol, allowed);
	} else {
		printf("%s %s\n", ret && pol ? "admissible:" : "not admissible:",
		       params_text(&ctl->params, text, sizeof(text)));
		printf("%s\n", shown);
		if (ctl->policy)
			printf("policy: %s\n", allowed);
	}
	return ret && pol ? EXIT_SUCCESS : EXIT_NOT_ADMISSIBLE;
}

/* The layout's state cannot be read (it is root's): which partition a
 * container's cgroup is in cannot be told.  why says so. */
static bool layout_unknown(char *why, size_t len)
{
	struct dl_layout *l;
	int err = dl_layout_load(&l);

	if (err != -EACCES) {
		if (!err)
			dl_layout_free(l);
		return false;
	}
	snprintf(why, len, "layout unknown: %s; which partition the container's cgroup is in, and so which CPUs judge it, cannot be told: run dl-run --check --oci as root",
		 dl_errmsg());
	return true;
}

/* --check --oci: what crun will ask the kernel when it starts the
 * container, judged by the root domain of the partition its cgroup is in.
 * No per-user policy: a container runtime runs as root.  Exit 0
 * admitted, 1 refused, 125 a file that cannot be judged or a layout
 * unknown. */
static int check_oci(const struct dl_run *ctl)
{
	char why[2048], shown[2048], text[256], file[1024];
	struct dl_params shown_params;
	struct dl_oci *oci;
	struct dl_verdict v;
	int ret;

	if (dl_oci_read(ctl->oci, &oci) < 0) {
		tool_text(dl_errmsg(), shown, sizeof(shown));
		if (ctl->json)
			oci_no_verdict("bad-file", shown, NULL);
		die(EXIT_CANCELED, "%s", shown);
	}
	if (!oci->member && layout_unknown(why, sizeof(why))) {
		tool_text(why, shown, sizeof(shown));
		if (ctl->json) {
			oci_no_verdict("layout-unknown", shown, oci);
		} else {
			printf("cannot tell: %s\n", shown);
			printf("container: %s: %s\n", dl_str_escape(oci->config, file, sizeof(file)), oci->where);
		}
		dl_oci_free(oci);
		return EXIT_CANCELED;
	}
	ret = dl_predict_member(oci->member, &oci->params, &v, why, sizeof(why));
	/* Shown as the kernel takes them: a period of 0 is the deadline. */
	if (dl_params_normalize(&oci->params, &shown_params) < 0)
		shown_params = oci->params;
	if (ret < 0)
		die(EXIT_CANCELED, "cannot tell: %s", dl_errmsg());
	tool_text(why, shown, sizeof(shown));
	if (ctl->json) {
		check_json(ctl, &shown_params, oci, &v, ret, shown, 1, NULL);
	} else {
		printf("%s %s\n", ret ? "admissible:" : "not admissible:", params_text(&shown_params, text, sizeof(text)));
		printf("container: %s: %s\n", dl_str_escape(oci->config, file, sizeof(file)), oci->where);
		printf("%s\n", shown);
		if (oci->note)
			printf("note: %s\n", oci->note);
	}
	dl_oci_free(oci);
	return ret ? EXIT_SUCCESS : EXIT_NOT_ADMISSIBLE;
}

/* A caller that is not root, placing a task in a partition: the policy
 * first (dl-run.conf(5)); joining a partition needs root anyway. */
static void enforce_policy(const struct dl_run *ctl)
{
	char why[1024], text[256];
	int ret;

	if (!ctl->policy)
		return;
	ret = dl_policy_check(ctl->policy, ctl->pid, ctl->all_threads, &ctl->params, why, sizeof(why));
	if (ret < 0)
		die(EXIT_CANCELED, "cannot apply the policy: %s", dl_errmsg());
	if (ret == 0)
		die(EXIT_CANCELED, "will not set SCHED_DEADLINE (%s): %s",
		    params_text(&ctl->params, text, sizeof(text)), why);
}

/* The threads of a failed --all-threads that the kernel refused, each
 * explained; then the failure.  why is the library's message, saved before
 * dl_explain() can set another. */
static void all_threads_failed(const struct dl_run *ctl, const struct dl_thread_status *st, size_t n,
			       bool owned, const char *why)
{
	char text[256];

	for (size_t i = 0; i < n; i++) {
		char one[1024];

		if (!st[i].err || (st[i].err == -EPERM && owned))
			continue;
		dl_explain(st[i].err, st[i].tid, &ctl->params, one, sizeof(one));
		warnx_("thread %d of pid %d failed: %s", (int)st[i].tid, (int)ctl->pid, one);
	}
	warnx_("cannot set SCHED_DEADLINE on the threads of pid %d (%s): %s", (int)ctl->pid,
	       params_text(&ctl->params, text, sizeof(text)), why);
}

/*
 * --all-threads holds each thread by a descriptor of its /proc directory
 * until its change is final (dl_set_process(3)): a process of more
 * threads than the soft limit of open files allows needs the hard one.
 */
static void files_for_threads(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * A caller that is not root: the policy's check and the change as one step
 * of the user's (dl_policy_set(3)), on the threads that were checked;
 * pid 0 is dl-run itself, before the exec.
 */
static int set_by_policy(const struct dl_run *ctl)
{
	struct dl_thread_status *st = NULL;
	char why[1024], text[256];
	size_t n = 0;
	int ret;

	params_text(&ctl->params, text, sizeof(text));
	ret = dl_policy_set(ctl->policy, ctl->pid, ctl->all_threads, &ctl->params, &st, &n, why, sizeof(why));
	if (ret == 0)
		die(EXIT_CANCELED, "will not set SCHED_DEADLINE (%s): %s", text, why);
	if (ret < 0) {
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		if (ctl->pid && ctl->all_threads)
			all_threads_failed(ctl, st, n, true, why);
		else if (ctl->pid)
			warnx_("cannot set SCHED_DEADLINE on pid %d (%s): %s", (int)ctl->pid, text, why);
		else
			warnx_("cannot set SCHED_DEADLINE (%s): %s", text, why);
		free(st);
		return EXIT_CANCELED;
	}
	if (ctl->verbose && st)
		for (size_t i = 0; i < n; i++)
			report(st[i].tid);
	else if (ctl->verbose)
		report(ctl->pid);
	free(st);
	return EXIT_SUCCESS;
}

static int set_pid(const struct dl_run *ctl)
{
	struct dl_thread_status *st = NULL;
	/* Not root: only the caller's own threads (the kernel's rule without
	 * CAP_SYS_NICE, which a setcap dl-run holds). */
	unsigned int flags = getuid() != 0 ? DL_PROC_OWNED : 0;
	char text[256];
	size_t n = 0;
	int err;

	params_text(&ctl->params, text, sizeof(text));
	if (!ctl->all_threads) {
		err = ctl->place ? dl_part_set(ctl->place, ctl->pid, &ctl->params)
		      : flags	 ? dl_set_owned(ctl->pid, &ctl->params)
				 : dl_set(ctl->pid, &ctl->params);
		if (err) {
			warnx_("cannot set SCHED_DEADLINE on pid %d (%s): %s", (int)ctl->pid, text, dl_errmsg());
			return EXIT_CANCELED;
		}
		if (ctl->verbose)
			report(ctl->pid);
		return EXIT_SUCCESS;
	}
	err = ctl->place ? dl_part_set_process(ctl->place, ctl->pid, &ctl->params, flags, &st, &n)
			 : dl_set_process(ctl->pid, &ctl->params, flags, &st, &n);
	if (err < 0) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		all_threads_failed(ctl, st, n, flags & DL_PROC_OWNED, why);
		free(st);
		return EXIT_CANCELED;
	}
	if (ctl->verbose)
		for (size_t i = 0; i < n; i++)
			report(st[i].tid);
	free(st);
	return EXIT_SUCCESS;
}

/*
 * dl-run is meant to hold a file capability (setcap cap_sys_nice+ep),
 * never to be setuid or setgid: then it would exec the user's command
 * with another identity (root's).  Refuse before anything.  The ids are
 * the ones the kernel put in the auxiliary vector at exec (getauxval(3)),
 * which nothing has changed since: a setuid or setgid file makes the
 * effective id differ from the real one there, and the saved ids are
 * the effective ones at exec.  Returns the real uid.
 */
static uid_t refuse_set_id(void)
{
	uid_t r = (uid_t)getauxval(AT_UID), e = (uid_t)getauxval(AT_EUID);
	gid_t rg = (gid_t)getauxval(AT_GID), eg = (gid_t)getauxval(AT_EGID);

	if (r != e || rg != eg)
		die(EXIT_CANCELED, "dl-run is installed setuid or setgid (real uid %u, effective uid %u; real gid %u, effective gid %u): it would run commands as another user; remove the bits (chmod u-s,g-s) and give it the capability instead (setcap cap_sys_nice+ep, see dl-run(1))",
		    (unsigned)r, (unsigned)e, (unsigned)rg, (unsigned)eg);
	return r;
}

int main(int argc, char **argv)
{
	struct dl_run ctl = { 0 };
	char text[256];
	bool launch;
	uid_t uid;
	int ret;

	util_init(argv[0]);
	tool_usage_status = EXIT_CANCELED;
	uid = refuse_set_id();
	parse_args(&ctl, argc, argv);
	launch = uid == 0 && ctl.command && !ctl.place && !ctl.check;
	if (!launch && !ctl.oci)
		check_params(&ctl);
	if (uid != 0 && dl_policy_read(DL_RUN_POLICY, &ctl.policy) < 0)
		die(EXIT_CANCELED, "%s", dl_errmsg());

	if (ctl.check) {
		ret = ctl.oci ? check_oci(&ctl) : check(&ctl);
		dl_policy_free(ctl.policy);
		return ret;
	}
	if (ctl.all_threads)
		files_for_threads();
	if (ctl.policy && !ctl.place) {
		/* The user's turn: check, change, count again (dl_policy_set). */
		ret = set_by_policy(&ctl);
		dl_policy_free(ctl.policy);
		if (ctl.pid || ret != EXIT_SUCCESS)
			return ret;
	} else {
		/* Root, or a partition (which only root may join). */
		enforce_policy(&ctl);
		if (ctl.pid) {
			ret = set_pid(&ctl);
			dl_policy_free(ctl.policy);
			return ret;
		}
		dl_policy_free(ctl.policy);
		/* Into the partition's cpuset first, then the reservation there. */
		if (launch)
			set_self(&ctl);
		else if ((ctl.place ? dl_part_set(ctl.place, 0, &ctl.params) : dl_set(0, &ctl.params)) < 0)
			die(EXIT_CANCELED, "cannot set SCHED_DEADLINE (%s): %s",
			    params_text(&ctl.params, text, sizeof(text)), dl_errmsg());
		if (ctl.verbose)
			report(0);
	}
	if (dl_caps_drop() < 0)
		die(EXIT_CANCELED, "will not run %s: %s", ctl.command[0], dl_errmsg());
	execvp(ctl.command[0], ctl.command);
	if (errno == ENOENT)
		die(EXIT_NOT_FOUND, "%s: command not found", ctl.command[0]);
	die(EXIT_CANNOT_EXEC, "cannot run %s: %s", ctl.command[0], strerror(errno));
}
