/*
 * dl-part: partition the CPUs with cpusets for deadline tasks.
 *
 *   dl-part create --partition [NAME=]CPUS [--partition ...] [--cluster CPUS]
 *                  [--mems NODES] [--isolated] [--no-move]
 *                  [--fair-server NAME=off|RUNTIME/PERIOD ...] [--ext-server ...] [--force]
 *   dl-part create --config FILE
 *   dl-part list [--json]
 *   dl-part destroy [--force] [--config FILE]
 *   dl-part status [--json]
 *   dl-part repair
 *
 * The article's eight-step recipe, by one command on cgroup v1 or v2; all
 * the work is the library's (dl_layout_create(3)).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl-part-conf.h"
#include "json-writer.h"
#include "rd-table.h"
#include "dl-part-plan.h"
#include "stat-out.h"
#include "tool.h"

static noreturn void usage(void)
{
	printf("Usage:\n"
	       " %1$s create --partition [NAME=]CPUS [--partition ...] [--cluster CPUS]\n"
	       "                [--mems NODES] [--isolated] [--no-move]\n"
	       "                [--fair-server NAME=off|RUNTIME/PERIOD] [--ext-server ...] [--force]\n"
	       " %1$s create --config FILE\n"
	       " %1$s list [--json]\n"
	       " %1$s destroy [--force] [--config FILE]\n"
	       " %1$s status [--json]\n"
	       " %1$s repair\n"
	       " %1$s plan [--cpus N] [--capacity CAP[xN],...] [--json] TASKSET\n"
	       " %1$s apply [--no-move] [--isolated] TASKSET\n"
	       "\n"
	       "Partition the CPUs for SCHED_DEADLINE: each partition becomes a root domain\n"
	       "of its own, for heavy deadline tasks; the cluster (by default every other\n"
	       "online CPU) is one root domain where light tasks are scheduled globally.\n"
	       "\n"
	       "Commands:\n"
	       " create    make the layout (cgroup v1: the root cpuset's tasks move to the\n"
	       "           cluster and its balancing goes off; v2: root partitions)\n"
	       " list      the layout's cpusets, CPUs, tasks and root domains\n"
	       " destroy   undo create exactly, even after a create that was killed; a\n"
	       "           partition that holds a container or a unit is refused, named\n"
	       "           (--force: leave those in place, destroy the rest; --config\n"
	       "           FILE: only FILE's layout, and none in place is no error)\n"
	       " status    the layout, every root domain's deadline bandwidth, and whether\n"
	       "           the kernel's accounting has drifted (exit 1 if it has)\n"
	       " repair    make the kernel recount its deadline bandwidth (a root-domain\n"
	       "           rebuild), and say what it was and what it is now\n"
	       " plan      will a task set (libdl-taskset(5)) meet its deadlines: the\n"
	       "           schedulability tests, and a layout that makes it (exit 1: none)\n"
	       " apply     create the plan's layout and start the task set's commands\n"
	       "\n"
	       "Options of create:\n"
	       " -P, --partition [NAME=]CPUS  a partition (NAME default: partitionN)\n"
	       " -C, --config FILE            the layout from FILE (dl-part.conf(5))\n"
	       " -c, --cluster CPUS           the cluster's CPUs (default: the rest; on a\n"
	       "                              systemd host always the rest of the machine)\n"
	       " -m, --mems NODES             memory nodes (default: every online node)\n"
	       "     --isolated               cgroup v2: \"isolated\" partitions (no load\n"
	       "                              balancing inside them)\n"
	       "     --no-move                cgroup v1: leave the root cpuset's tasks\n"
	       "     --fair-server NAME=off|RUNTIME/PERIOD\n"
	       "                              the fair server of partition NAME's CPUs (or\n"
	       "                              the cluster's) while the layout stands; destroy\n"
	       "                              puts back what was there (Linux 6.12 and later)\n"
	       "     --ext-server NAME=off|RUNTIME/PERIOD\n"
	       "                              the same for sched_ext's server\n"
	       " -j, --json                   list and status as JSON\n"
	       " -f, --force                  destroy: stop nothing, leave the partitions\n"
	       "                              that hold tasks as they are; create: set a\n"
	       "                              server off where normal tasks run (the cluster)\n"
	       " -h, --help    -V, --version\n"
	       "\n"
	       "CPUS and NODES use the kernel's list format: 0, 1-7, 0,2-3.\n"
	       "Then run deadline tasks inside: dl-run --partition NAME ... / dl-run --cluster ...\n"
	       "\n"
	       "See dl-part(1).\n", program_name);
	exit(EXIT_SUCCESS);
}

struct opts {
	struct dl_layout *layout;
	bool json;
	bool force; /* destroy --force; create: a server may go off where normal tasks run */
	bool servers; /* create sets deadline servers */
	bool config; /* --config */
	int nparts;
};

static void add_partition(struct opts *o, const char *arg)
{
	char name[DL_LAYOUT_NAME_MAX + 1] = "";
	const char *eq = strchr(arg, '=');
	const char *list = eq ? eq + 1 : arg;
	dl_cpus_t cpus;

	if (eq) {
		if ((size_t)(eq - arg) > DL_LAYOUT_NAME_MAX || eq == arg)
			usage_error("--partition %s: the name before '=' must be 1 to %d characters",
				    arg, DL_LAYOUT_NAME_MAX);
		memcpy(name, arg, (size_t)(eq - arg));
	}
	if (dl_cpus_parse(list, &cpus) < 0)
		usage_error("--partition %s: %s", arg, dl_errmsg());
	if (dl_cpus_count(&cpus) == 0)
		usage_error("--partition %s: no CPU", arg);
	if (dl_layout_add_partition(o->layout, name, &cpus) < 0)
		usage_error("--partition %s: %s", arg, dl_errmsg());
	o->nparts++;
}

static void parse_args(struct opts *o, const char *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "partition", required_argument, NULL, 'P' },
		{ "config", required_argument, NULL, 'C' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "mems", required_argument, NULL, 'm' },
		{ "isolated", no_argument, NULL, 'I' },
		{ "no-move", no_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "fair-server", required_argument, NULL, 'S' },
		{ "ext-server", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool creating = strcmp(cmd, "create") == 0, config = false;
	unsigned int flags = 0;
	dl_cpus_t cpus;
	int c;

	int idx;

	while ((idx = -1, c = getopt_long(argc, argv, "+:P:C:c:m:jfhV", longopts, &idx)) != -1) {
		if (c == 'f') {
			if (strcmp(cmd, "destroy") && !creating)
				usage_error("%s takes no option --force: it is for create and destroy", cmd);
			o->force = true;
			if (creating)
				flags |= DL_LAYOUT_SERVER_OFF;
			continue;
		}
		if (!creating && c == 'C' && strcmp(cmd, "destroy"))
			usage_error("%s takes no option --config: it is for create and destroy", cmd);
		if (!creating && c != 'C' && c != 'j' && c != 'h' && c != 'V' && c != '?' && c != ':') {
			char shortname[3] = { '-', (char)c, '\0' };

			/* Name the option, not its value. */
			if (idx >= 0)
				usage_error("%s takes no option --%s: it is for create", cmd, longopts[idx].name);
			usage_error("%s takes no option %s: it is for create", cmd, shortname);
		}
		switch (c) {
		case 'P':
			if (config)
				usage_error("--config and --partition: give the layout one way");
			add_partition(o, optarg);
			break;
		case 'C': {
			char msg[1024];

			if (o->nparts)
				usage_error("--config and --partition: give the layout one way");
			config = o->config = true;
			if (conf_load(optarg, o->layout, &flags, &o->nparts, msg, sizeof(msg)) < 0)
				die(EXIT_USAGE, "%s", msg);
			break;
		}
		case 'c':
			if (dl_cpus_parse(optarg, &cpus) < 0)
				usage_error("--cluster %s: %s", optarg, dl_errmsg());
			dl_layout_set_cluster(o->layout, &cpus);
			break;
		case 'm':
			if (dl_layout_set_mems(o->layout, optarg) < 0)
				usage_error("--mems: %s", dl_errmsg());
			break;
		case 'S':
		case 'E': {
			char why[512];

			if (conf_server(o->layout, c == 'S' ? DL_SERVER_FAIR : DL_SERVER_EXT, optarg, why,
					sizeof(why)) < 0)
				usage_error("--%s-server %s", c == 'S' ? "fair" : "ext", why);
			o->servers = true;
			break;
		}
		case 'I':
			flags |= DL_LAYOUT_ISOLATED;
			break;
		case 'N':
			flags |= DL_LAYOUT_NO_MOVE;
			break;
		case 'j':
			if (creating)
				usage_error("create takes no --json");
			o->json = true;
			break;
		case 'h':
			usage();
		case 'V':
			print_version();
		default:
			bad_option(c, argv);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (creating && o->nparts == 0)
		usage_error("create needs at least one --partition CPUS (e.g. --partition 0)");
	dl_layout_set_flags(o->layout, flags);
}

static void print_rd(const struct dl_rd *rd)
{
	char cpus[DL_CPUS_STRLEN], f[DL_BW_STRLEN], c[DL_BW_STRLEN], t[DL_BW_STRLEN];

	printf("root domain CPUs %s: capacity %s, admitted %s%s, free %s",
	       dl_cpus_format(&rd->cpus, cpus, sizeof(cpus)),
	       dl_bw_format((int64_t)rd->capacity, c, sizeof(c)),
	       dl_bw_format(rd->total_bw, t, sizeof(t)),
	       rd->from_kernel ? "" : " (computed)",
	       rd->unlimited ? "unlimited" : dl_bw_format(rd->free_bw, f, sizeof(f)));
}

static void json_rd(struct json *j, const char *key, const struct dl_rd *rd)
{
	json_obj_begin(j, key);
	json_rd_fields(j, rd);
	json_obj_end(j);
}

/* A member's server settings in words: "fair server off, ext server
 * 20ms/25ms"; "" when the layout sets none. */
static const char *server_settings(const struct dl_layout *l, const char *member, char *buf, size_t len)
{
	static const int kinds[] = { DL_SERVER_FAIR, DL_SERVER_EXT };
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < 2 && used < len; k++) {
		char t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN];
		struct dl_server s;

		if (dl_layout_server(l, member, kinds[k], &s) != 1)
			continue;
		if (s.runtime == 0)
			snprintf(t1, sizeof(t1), "off");
		else
			snprintf(t1, sizeof(t1), "%s", fmt_time(s.runtime, t2));
		if (s.runtime && s.period)
			snprintf(t1 + strlen(t1), sizeof(t1) - strlen(t1), "/%s", fmt_time(s.period, t2));
		used += (size_t)snprintf(buf + used, len - used, "%s%s server %s", used ? ", " : "",
					 kinds[k] == DL_SERVER_FAIR ? "fair" : "ext", t1);
	}
	return buf;
}

/* The layout's cpusets as they are now, as text or JSON. */
static int show_layout(bool json, struct json *j)
{
	struct dl_part_info *info;
	struct dl_layout *l = NULL;
	size_t n;
	int err = dl_layout_report(&info, &n);

	if (err < 0)
		return err;
	dl_layout_load(&l);
	if (json) {
		json_int(j, "cgroup_version", dl_layout_version(l));
		json_arr_begin(j, "cpusets");
		for (size_t i = 0; i < n; i++) {
			char cpus[DL_CPUS_STRLEN];

			json_obj_begin(j, NULL);
			json_str(j, "name", info[i].name);
			json_str(j, "cgroup", info[i].cgroup);
			json_bool(j, "partition", info[i].partition);
			json_str(j, "cpus", dl_cpus_format(&info[i].cpus, cpus, sizeof(cpus)));
			json_str(j, "state", info[i].state);
			json_uint(j, "threads", info[i].nthreads);
			json_uint(j, "deadline_threads", info[i].ndeadline);
			json_uint(j, "servers_changed", info[i].servers_changed);
			json_rd(j, "root_domain", &info[i].rd);
			json_obj_end(j);
		}
		json_arr_end(j);
	} else {
		printf("layout (cgroup v%d%s):\n", dl_layout_version(l),
		       dl_layout_flags(l) & DL_LAYOUT_NO_MOVE ? ", tasks not moved" : "");
		for (size_t i = 0; i < n; i++) {
			char cpus[DL_CPUS_STRLEN], cg[1100], state[520], set[128];

			printf("  %-12s /%-22s CPUs %-8s %-14s %" PRIu64 " threads (%" PRIu64 " deadline); ",
			       info[i].name, dl_str_escape(info[i].cgroup, cg, sizeof(cg)),
			       dl_cpus_format(&info[i].cpus, cpus, sizeof(cpus)),
			       dl_str_escape(info[i].state, state, sizeof(state)), info[i].nthreads, info[i].ndeadline);
			print_rd(&info[i].rd);
			if (l && *server_settings(l, info[i].name, set, sizeof(set)))
				printf("; %s", set);
			putchar('\n');
		}
	}
	dl_layout_free(l);
	free(info);
	return 0;
}

/* The CPUs of the layout's partition name that are offline now, in
 * out; false when none is (or the layout has no such partition). */
static bool partition_offline(const struct dl_layout *l, const char *name, dl_cpus_t *out)
{
	dl_cpus_t on;

	if (!l || dl_cpus_online(&on) < 0)
		return false;
	for (int i = 0; i < dl_layout_count(l); i++) {
		dl_cpus_t cpus;

		if (strcmp(dl_layout_member(l, i, &cpus), name) != 0)
			continue;
		*out = (dl_cpus_t){ 0 };
		for (int c = 0; c < DL_CPUS_MAX; c++)
			if (dl_cpus_isset(&cpus, c) && !dl_cpus_isset(&on, c))
				dl_cpus_set(out, c);
		return dl_cpus_count(out) > 0;
	}
	return false;
}

/*
 * Every partition of the layout in place, as the kernel reads it now: one
 * line per partition that is not what create made (gone, invalid, its
 * cpuset files vanished).  Returns how many; -1 when there is no layout.
 * A partition whose CPUs went offline is invalid while it holds a task
 * (v2): the kernel makes it a partition again when they come back
 * (docs/kernel-notes.md, "The deadline servers' settings").
 */
static int check_partitions(bool print)
{
	struct dl_part_info *info;
	struct dl_layout *l = NULL;
	size_t n;
	int bad = 0;

	if (dl_layout_report(&info, &n) < 0)
		return -1;
	dl_layout_load(&l);
	for (size_t i = 0; i < n; i++) {
		const struct dl_part_info *p = &info[i];
		const char *why = member_invalid(dl_layout_version(l), p);

		if (!p->partition)
			continue;
		if (!why)
			continue;
		bad++;
		if (print) {
			char cg[1100], state[520], cpus[DL_CPUS_STRLEN];
			dl_cpus_t off;

			printf("INVALID: partition %s (/%s): %s; it reads \"%s\": ", p->name,
			       dl_str_escape(p->cgroup, cg, sizeof(cg)), why,
			       dl_str_escape(p->state, state, sizeof(state)));
			if (partition_offline(l, p->name, &off))
				printf("offline CPUs %s: the kernel makes it a partition again once they are back "
				       "online (or run dl-part destroy)\n",
				       dl_cpus_format(&off, cpus, sizeof(cpus)));
			else
				printf("run dl-part destroy, then create again\n");
		}
	}
	dl_layout_free(l);
	free(info);
	return bad;
}

/*
 * Every member whose CPUs' deadline servers are not the layout's setting
 * (someone wrote debugfs): one line
 * each.  Returns how many members.
 */
static int check_servers(bool print)
{
	struct dl_part_info *info;
	struct dl_layout *l = NULL;
	size_t n;
	int bad = 0;

	if (dl_layout_report(&info, &n) < 0)
		return 0;
	dl_layout_load(&l);
	for (size_t i = 0; i < n && l; i++) {
		char set[128];

		if (!info[i].servers_changed)
			continue;
		bad++;
		if (print)
			printf("CHANGED: %s%s: %" PRIu64 " of its CPUs' deadline servers %s not the layout's (%s): "
			       "someone changed them; run dl-part repair to set them again\n",
			       info[i].partition ? "partition " : "", info[i].name, info[i].servers_changed,
			       info[i].servers_changed == 1 ? "is" : "are",
			       server_settings(l, info[i].name, set, sizeof(set)));
	}
	dl_layout_free(l);
	free(info);
	return bad;
}

static int cmd_create(struct opts *o)
{
	struct dl_layout_result res;

	if (dl_layout_create(o->layout, &res) < 0)
		die(EXIT_FAILURE, "cannot create the layout: %s", dl_errmsg());
	show_layout(false, NULL);
	if (dl_layout_flags(o->layout) & DL_LAYOUT_NO_MOVE || dl_layout_version(o->layout) == 2)
		printf("tasks: none moved (%s)\n", dl_layout_version(o->layout) == 2
		       ? "cgroup v2: tasks elsewhere lose the partitions' CPUs by the kernel's rules"
		       : "--no-move");
	else
		printf("tasks: %" PRIu64 " moved to the cluster, %" PRIu64 " kernel threads skipped (they cannot move), %" PRIu64 " exited meanwhile\n",
		       res.moved, res.skipped, res.gone);
	if (res.repaired)
		printf("the kernel's deadline accounting drifted during the rebuild and was repaired\n");
	return EXIT_SUCCESS;
}

static int cmd_destroy(const struct opts *o)
{
	struct dl_layout_result res;
	struct dl_layout *l = NULL;
	int loaded = dl_layout_load(&l), parts = loaded == 0 ? dl_layout_count(l) : 0, err;

	/* --config (dl-part.service after a start that did not finish):
	 * FILE's layout alone, and none is nothing to do. */
	if (o->config && loaded == -ENOENT) {
		printf("no layout: nothing to destroy\n");
		return EXIT_SUCCESS;
	}
	if (o->config) {
		dl_layout_free(l);
		l = o->layout;
	}
	if (l && o->force)
		dl_layout_set_flags(l, dl_layout_flags(l) | DL_LAYOUT_LEAVE_BUSY);
	/* The layout just read (or FILE's), or (none) the library's own
	 * refusal. */
	if ((err = dl_layout_destroy(l, &res)) < 0) {
		if (o->config && err == -ESTALE)
			die(EXIT_FAILURE, "the layout in place is not the one of --config's file: it is left as it is (dl-part destroy without --config destroys it)");
		die(EXIT_FAILURE, "cannot destroy the layout: %s", dl_errmsg());
	}
	if (!o->config)
		dl_layout_free(l);
	if (parts > 0 && res.absent == (uint64_t)parts)
		printf("the layout was already gone: none of its partitions' cgroups exists any more\n");
	if (res.left) {
		/* What stays, and what holds it, from the layout now recorded. */
		if (dl_layout_load(&l) == 0) {
			for (int i = 0; i < dl_layout_count(l); i++) {
				const char *name = dl_layout_member(l, i, NULL);
				char what[2048], shown[2100];

				if (dl_part_occupants(name, what, sizeof(what)) > 0)
					printf("left in place: partition %s, which holds %s\n", name,
					       tool_text(what, shown, sizeof(shown)));
			}
			dl_layout_free(l);
		}
		printf("layout partly destroyed: %" PRIu64 " partition%s left as %s, nothing stopped; %" PRIu64 " tasks moved back to the root; run dl-part destroy again once what runs there has stopped\n",
		       res.left, res.left == 1 ? "" : "s", res.left == 1 ? "it was" : "they were", res.moved);
	} else {
		printf("layout destroyed: %" PRIu64 " tasks moved back to the root, settings restored\n", res.moved);
	}
	if (res.repaired)
		printf("the kernel's deadline accounting drifted during the rebuild and was repaired\n");
	return EXIT_SUCCESS;
}

static int cmd_list(const struct opts *o)
{
	struct json j;
	int err;

	if (o->json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
	}
	err = show_layout(o->json, &j);
	if (err == -ENOENT) {
		if (!o->json) {
			printf("no layout\n");
			return EXIT_SUCCESS;
		}
		json_null(&j, "cpusets");
	} else if (err < 0) {
		die(EXIT_FAILURE, "%s", dl_errmsg());
	}
	if (o->json) {
		json_obj_end(&j);
		json_end(&j);
	}
	return EXIT_SUCCESS;
}

/* Drift per root domain, against the root domains themselves. */
static const struct dl_drift *drift_of(const struct dl_drift *d, size_t n, const dl_cpus_t *cpus)
{
	for (size_t i = 0; i < n; i++)
		if (dl_cpus_equal(&d[i].cpus, cpus))
			return &d[i];
	return NULL;
}

static int cmd_status(const struct opts *o)
{
	struct dl_drift *drifts = NULL;
	struct dl_rd *rds;
	size_t nrd, nd = 0;
	struct json j;
	char msg[1024], left[8192];
	bool invalid = false, servers = false;
	int ret, err, nleft;

	ret = dl_drift_check(DL_DRIFT_SETTLE_MS, &drifts, &nd);
	err = dl_rd_list(&rds, &nrd);
	if (err < 0)
		die(EXIT_FAILURE, "%s", dl_errmsg());
	/* A negative count (no cpuset controller) is no leftover. */
	nleft = dl_rd_leftovers(left, sizeof(left));
	if (o->json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		if (show_layout(true, &j) == -ENOENT)
			json_null(&j, "cpusets");
		invalid = check_partitions(false) > 0;
		json_bool(&j, "partitions_valid", !invalid);
		servers = check_servers(false) > 0;
		json_bool(&j, "servers_as_set", !servers);
		json_bool(&j, "accounting_checked", ret >= 0);
		json_arr_begin(&j, "leftovers");
		for (char *line = left, *next; nleft > 0 && *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			json_str(&j, NULL, line);
		}
		json_arr_end(&j);
		json_arr_begin(&j, "root_domains");
		for (size_t i = 0; i < nrd; i++) {
			const struct dl_drift *d = drift_of(drifts, nd, &rds[i].cpus);

			json_obj_begin(&j, NULL);
			json_rd(&j, "figures", &rds[i]);
			json_bool(&j, "drifted", d != NULL);
			if (d) {
				json_int(&j, "kernel_total_bw", d->kernel_bw);
				json_int(&j, "expected_total_bw", d->expected_bw);
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		if (show_layout(false, NULL) == -ENOENT)
			printf("no layout\n");
		if (nrd) {
			int *drift = calloc(nrd, sizeof(*drift));

			if (!drift)
				die(EXIT_FAILURE, "out of memory");
			for (size_t i = 0; i < nrd; i++)
				drift[i] = drift_of(drifts, nd, &rds[i].cpus) ? DL_DRIFT_YES : DL_DRIFT_NONE;
			printf("root domains:\n");
			show_rd_table(stdout, rds, nrd, drift,
				      "kernel accounting drift, run dl-part repair (see libdeadline(3), BUGS)");
			free(drift);
		}
		if (check_partitions(true) > 0)
			invalid = true;
		if (check_servers(true) > 0)
			servers = true;
		for (char *line = left, *next; nleft > 0 && *line; line = next) {
			next = line + strcspn(line, "\n");
			printf("LEFT BEHIND: %.*s: run dl-part repair (or create or destroy), which removes it\n",
			       (int)(next - line), line);
			next += *next != '\0';
		}
		if (ret < 0)
			printf("accounting not checked: %s\n", tool_text(dl_errmsg(), msg, sizeof(msg)));
		else if (nd == 0)
			printf("accounting: the kernel's figures match its live tasks\n");
	}
	free(rds);
	free(drifts);
	return nd || invalid || servers || nleft > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int cmd_repair(void)
{
	struct dl_drift *before = NULL, *after = NULL;
	size_t nb = 0, na = 0;
	char cpus[DL_CPUS_STRLEN], k[DL_BW_STRLEN], e[DL_BW_STRLEN];

	if (dl_drift_check(DL_DRIFT_SETTLE_MS, &before, &nb) < 0)
		die(EXIT_FAILURE, "cannot read the kernel's figures: %s", dl_errmsg());
	if (nb == 0)
		printf("found: the kernel's figures match its live tasks\n");
	for (size_t i = 0; i < nb; i++)
		printf("found: root domain CPUs %s: the kernel counts %s, the live tasks and fair servers hold %s\n",
		       dl_cpus_format(&before[i].cpus, cpus, sizeof(cpus)),
		       dl_bw_format(before[i].kernel_bw, k, sizeof(k)),
		       dl_bw_format(before[i].expected_bw, e, sizeof(e)));
	if (dl_rd_rebuild() < 0)
		die(EXIT_FAILURE, "%s", dl_errmsg());
	printf("rebuilt the root domains\n");
	if (dl_drift_check(DL_DRIFT_SETTLE_MS, &after, &na) < 0)
		die(EXIT_FAILURE, "cannot read the kernel's figures: %s", dl_errmsg());
	for (size_t i = 0; i < na; i++)
		printf("now: root domain CPUs %s: still %s against %s\n",
		       dl_cpus_format(&after[i].cpus, cpus, sizeof(cpus)),
		       dl_bw_format(after[i].kernel_bw, k, sizeof(k)),
		       dl_bw_format(after[i].expected_bw, e, sizeof(e)));
	if (na == 0)
		printf("now: the kernel's figures match its live tasks\n");
	free(before);
	free(after);
	return na ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	const char *cmd;
	int ret;

	util_init(argv[0]);
	if (argc < 2)
		usage_error("no command: create, list, destroy, status, repair, plan or apply");
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		usage();
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
		print_version();
	if (!strcmp(cmd, "plan") || !strcmp(cmd, "apply")) /* dl-part-plan.c */
		return dl_part_plan_main(cmd, argc, argv);
	if (strcmp(cmd, "create") && strcmp(cmd, "list") && strcmp(cmd, "destroy") &&
	    strcmp(cmd, "status") && strcmp(cmd, "repair"))
		usage_error("unknown command '%s': create, list, destroy, status, repair, plan or apply", cmd);
	o.layout = dl_layout_new();
	if (!o.layout)
		die(EXIT_FAILURE, "out of memory");
	optind = 2;
	parse_args(&o, cmd, argc, argv);
	dl_debugfs_mount(); /* status and repair judge the kernel's figures */
	if (!strcmp(cmd, "create"))
		ret = cmd_create(&o);
	else if (!strcmp(cmd, "destroy"))
		ret = cmd_destroy(&o);
	else if (!strcmp(cmd, "list"))
		ret = cmd_list(&o);
	else if (!strcmp(cmd, "status"))
		ret = cmd_status(&o);
	else
		ret = cmd_repair();
	dl_layout_free(o.layout);
	return ret;
}
