/*
 * stat-out.c: see stat-out.h.
 *
 * The Prometheus text exposition format (version 0.0.4, as node_exporter's
 * textfile collector reads it): a HELP and a TYPE line per metric family,
 * then its samples; base units (seconds, not nanoseconds), fractions of
 * a CPU as _ratio, counters ending in _total, a libdl_ prefix.  Labels
 * stay few per series: a task is its command, its cgroup, its root
 * domain and its rank among the threads that share the first two, so
 * that restarting a program gives the same series again; pid and tid
 * only when asked (stat_view.pid_labels), since each restart would make
 * a new series.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "stat-out.h"

#define NS_PER_SEC UINT64_C(1000000000)

bool task_overran(const struct dl_task *t, uint64_t used)
{
	return t->params.runtime && used * 1000 / t->params.runtime >= BUDGET_FULL_PERMILLE;
}

const char *member_invalid(int version, const struct dl_part_info *p)
{
	if (!strcmp(p->state, "gone"))
		return "its cgroup no longer exists (removed by someone else)";
	if (!p->partition)
		return NULL;
	if (version == 1 && strcmp(p->state, "exclusive"))
		return "it is no longer cpu_exclusive";
	if (version == 2 && !strcmp(p->state, "unknown"))
		return "it has no cpuset.cpus.partition any more (the cpuset controller was disabled above it)";
	if (version == 2 && strcmp(p->state, "root") && strcmp(p->state, "isolated"))
		return "the kernel no longer makes it a partition";
	return NULL;
}

static const char *drift_word(int d)
{
	return d == DL_DRIFT_YES ? "drifted" : d == DL_DRIFT_SETTLING ? "settling" : "none";
}

/* One CPU's server k as a JSON object. */
static void json_server(struct json *j, const struct cpu_servers *cs, int k)
{
	const struct dl_server *sv = &cs->srv[k];

	json_obj_begin(j, NULL);
	json_str(j, "server", server_kind_name(k));
	json_int(j, "cpu", cs->cpu);
	json_uint(j, "runtime_ns", sv->runtime);
	json_uint(j, "period_ns", sv->period);
	json_int(j, "bw", server_bw(sv));
	json_bool(j, "counted", cs->counted[k]);
	json_bool(j, "read", sv->known);
	json_obj_end(j);
}

/* The servers of the CPUs of root domain rd (all CPUs: rd SIZE_MAX). */
static void json_servers(struct json *j, const struct stat_frame *f, size_t rd)
{
	json_arr_begin(j, "servers");
	for (size_t i = 0; i < f->ncpus; i++)
		for (int k = 0; k < SERVER_KINDS; k++)
			if (f->cpus[i].srv[k].present && (rd == SIZE_MAX || f->cpus[i].rd == rd))
				json_server(j, &f->cpus[i], k);
	json_arr_end(j);
}

void stat_json(FILE *o, const struct stat_frame *f, const struct stat_view *v)
{
	const struct dl_task *t = f->tasks;
	struct json j;
	char buf[DL_CPUS_STRLEN], note[200];

	json_init(&j, o);
	json_obj_begin(&j, NULL);
	json_uint(&j, "time_ns", f->now);
	json_bool(&j, "kernel_figures", f->nrds && f->rds[0].from_kernel);
	json_arr_begin(&j, "notes");
	if (f->nrds && !f->rds[0].from_kernel)
		json_str(&j, NULL, "the kernel's figures (debugfs sched/debug) cannot be read (they need root): figures computed");
	if (f->kernel_asked && !f->kcounts)
		json_str(&j, NULL, f->kernel_why);
	if (stat_krec_note(f, note, sizeof(note)))
		json_str(&j, NULL, note);
	json_arr_end(&j);
	/* --kernel: whether each task's kernel_counters are there, and
	 * what counted their throttles. */
	if (f->kernel_asked)
		json_bool(&j, "kernel_counting", !!f->kcounts);
	if (f->kcounts && f->kthrottle_source)
		json_str(&j, "kernel_throttle_source", f->kthrottle_source);
	if (f->kcounts)
		json_uint(&j, "kernel_records_failed", f->krec_failed);
	if (!v->tasks_only) {
		json_arr_begin(&j, "root_domains");
		for (size_t i = 0; i < f->nrds; i++) {
			const struct dl_rd *rd = &f->rds[i];
			int64_t expected = dl_rd_expected(rd);

			json_obj_begin(&j, NULL);
			json_uint(&j, "id", i);
			json_rd_fields(&j, rd);
			json_int(&j, "expected_bw", expected);
			json_str(&j, "drift", drift_word(f->drift[i]));
			json_int(&j, "drift_bw", rd->from_kernel ? rd->total_bw - expected : 0);
			json_servers(&j, f, i);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_arr_begin(&j, "cpus");
		for (size_t i = 0; i < f->ncpus; i++) {
			json_obj_begin(&j, NULL);
			json_int(&j, "cpu", f->cpus[i].cpu);
			json_uint(&j, "root_domain", f->cpus[i].rd);
			json_arr_begin(&j, "servers");
			for (int k = 0; k < SERVER_KINDS; k++)
				if (f->cpus[i].srv[k].present)
					json_server(&j, &f->cpus[i], k);
			json_arr_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		if (!f->layout) {
			json_null(&j, "layout");
		} else {
			json_obj_begin(&j, "layout");
			json_int(&j, "cgroup_version", f->layout_version);
			json_arr_begin(&j, "members");
			for (size_t i = 0; i < f->nparts; i++) {
				const struct dl_part_info *p = &f->parts[i];
				const char *why = member_invalid(f->layout_version, p);

				json_obj_begin(&j, NULL);
				json_str(&j, "name", p->name);
				json_bool(&j, "partition", p->partition);
				json_str(&j, "cgroup", p->cgroup);
				json_str(&j, "cpus", dl_cpus_format(&p->cpus, buf, sizeof(buf)));
				json_str(&j, "state", p->state);
				json_bool(&j, "valid", !why);
				json_str(&j, "invalid_because", why);
				json_uint(&j, "threads", p->nthreads);
				json_uint(&j, "deadline_threads", p->ndeadline);
				json_str(&j, "root_domain_cpus", dl_cpus_format(&p->rd.cpus, buf, sizeof(buf)));
				json_obj_end(&j);
			}
			json_arr_end(&j);
			json_obj_end(&j);
		}
	}
	if (!v->domains_only) {
		json_arr_begin(&j, "tasks");
		for (size_t i = 0; i < f->ntasks; i++) {
			json_obj_begin(&j, NULL);
			json_int(&j, "pid", t[i].pid);
			json_int(&j, "tid", t[i].tid);
			json_str(&j, "comm", t[i].comm);
			json_uint(&j, "runtime_ns", t[i].params.runtime);
			json_uint(&j, "deadline_ns", t[i].params.deadline);
			json_uint(&j, "period_ns", t[i].params.period);
			json_int(&j, "bw", t[i].bw);
			json_uint(&j, "util_ppm", (uint64_t)(((unsigned __int128)t[i].bw * 1000000) >> DL_BW_SHIFT));
			json_arr_begin(&j, "flags");
			if (t[i].params.flags & DL_FLAG_RESET_ON_FORK)
				json_str(&j, NULL, "reset-on-fork");
			if (t[i].params.flags & DL_FLAG_RECLAIM)
				json_str(&j, NULL, "reclaim");
			if (t[i].params.flags & DL_FLAG_DL_OVERRUN)
				json_str(&j, NULL, "overrun-signal");
			json_arr_end(&j);
			json_str(&j, "cpuset", t[i].cpuset);
			json_int(&j, "cpu", t[i].cpu);
			json_int(&j, "root_domain", t[i].rd);
			json_str(&j, "root_domain_cpus", dl_cpus_format(&t[i].rd_cpus, buf, sizeof(buf)));
			json_uint(&j, "exec_ns", t[i].exec_ns);
			/* The kernel's own figures, where it gives them: absent,
			 * never guessed, where it does not. */
			if (f->budget && f->budget[i]) {
				json_int(&j, "remaining_runtime_ns", f->budget[i]->runtime);
				json_uint(&j, "abs_deadline_ns", f->budget[i]->deadline);
			}
			if (f->watch && f->seen[i]) {
				json_uint(&j, "used_per_period_ns", f->used[i]);
				json_bool(&j, "out_of_budget", task_overran(&t[i], f->used[i]));
				json_uint(&j, "overruns", f->overruns[i]);
			} else if (f->watch) {
				json_null(&j, "used_per_period_ns");
				json_null(&j, "out_of_budget");
				json_null(&j, "overruns");
			}
			json_task_counts(&j, f, i);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	/* Absent where this user may not read the records: not a false "none". */
	if (f->unreserved_known) {
		json_arr_begin(&j, "unreserved_containers");
		for (size_t i = 0; i < f->nunreserved; i++) {
			const struct dl_container_unreserved *u = &f->unreserved[i];

			json_obj_begin(&j, NULL);
			json_int(&j, "pid", u->pid);
			json_str(&j, "namespace", u->ns);
			json_str(&j, "pod", u->pod);
			json_str(&j, "container", u->name);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	json_obj_end(&j);
	json_end(&j);
}

/* ---------------------------------------------------------------- Prometheus */

/* A label value as the exposition format wants it: a name from the system
 * made printable ASCII first (dl_str_escape(3): what dl-stat's table
 * shows), then backslash, double quote and line feed escaped. */
static void put_label(FILE *o, const char *key, const char *val, bool first)
{
	char shown[1100];

	dl_str_escape(val, shown, sizeof(shown));
	fprintf(o, "%s%s=\"", first ? "" : ",", key);
	for (const char *s = shown; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', o);
		if (*s == '\n')
			fputs("\\n", o);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

static void family(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Seconds from nanoseconds, exactly: "0.002000000". */
static void put_seconds(FILE *o, uint64_t ns)
{
	fprintf(o, " %" PRIu64 ".%09" PRIu64 "\n", ns / (uint64_t)NS_PER_SEC, ns % (uint64_t)NS_PER_SEC);
}

/* A bandwidth in DL_BW units as a fraction of a CPU: bw / 2^20 is exact
 * in a double, and 17 significant digits write that double exactly. */
static void put_ratio(FILE *o, int64_t bw)
{
	fprintf(o, " %.17g\n", (double)bw / (double)DL_BW_UNIT);
}

static void rd_labels(FILE *o, const char *name, const struct dl_rd *rd)
{
	char cpus[DL_CPUS_STRLEN];

	fprintf(o, "%s{", name);
	put_label(o, "root_domain", dl_cpus_format(&rd->cpus, cpus, sizeof(cpus)), true);
	fputc('}', o);
}

/* Its rank among the threads of the same command and cgroup, by thread
 * id: 0 for the first. */
static size_t thread_rank(const struct stat_frame *f, size_t i)
{
	const struct dl_task *t = f->tasks;
	size_t rank = 0;

	for (size_t k = 0; k < f->ntasks; k++)
		if (t[k].tid < t[i].tid && !strcmp(t[k].comm, t[i].comm) && !strcmp(t[k].cpuset, t[i].cpuset))
			rank++;
	return rank;
}

static void task_labels(FILE *o, const char *name, const struct stat_frame *f, const struct stat_view *v,
			size_t i, const char *source, const char *extra_key, const char *extra_val)
{
	const struct dl_task *t = &f->tasks[i];
	char buf[DL_CPUS_STRLEN];

	fprintf(o, "%s{", name);
	put_label(o, "command", t->comm, true);
	put_label(o, "cgroup", t->cpuset, false);
	put_label(o, "root_domain", dl_cpus_format(&t->rd_cpus, buf, sizeof(buf)), false);
	snprintf(buf, sizeof(buf), "%zu", thread_rank(f, i));
	put_label(o, "thread", buf, false);
	if (v->pid_labels) {
		snprintf(buf, sizeof(buf), "%d", (int)t->pid);
		put_label(o, "pid", buf, false);
		snprintf(buf, sizeof(buf), "%d", (int)t->tid);
		put_label(o, "tid", buf, false);
	}
	if (source)
		put_label(o, "source", source, false);
	if (extra_key)
		put_label(o, extra_key, extra_val, false);
	fputc('}', o);
}

static void member_labels(FILE *o, const char *name, const struct dl_part_info *p)
{
	fprintf(o, "%s{", name);
	put_label(o, "member", p->name, true);
	fputc('}', o);
}

/* The figures of each root domain, in the order of rd_fields below. */
enum { RD_CPUS, RD_CPU_LIMIT, RD_CAPACITY, RD_FAIR, RD_TASKS, RD_ADMITTED, RD_FREE, RD_EXPECTED, RD_DRIFT,
       RD_THREADS, RD_DRIFTED, RD_UNLIMITED, RD_N };
static const struct {
	const char *name, *help;
} rd_fields[RD_N] = {
	[RD_CPUS] = { "libdl_root_domain_cpus", "CPUs in the root domain." },
	[RD_CPU_LIMIT] = { "libdl_root_domain_cpu_limit_ratio", "Deadline bandwidth each CPU of the root domain may give (sched_rt_runtime_us / sched_rt_period_us)." },
	[RD_CAPACITY] = { "libdl_root_domain_capacity_ratio", "Deadline bandwidth the root domain may admit, in CPUs (its CPUs times the per-CPU limit)." },
	[RD_FAIR] = { "libdl_root_domain_fair_server_ratio", "Deadline bandwidth the fair servers of its CPUs hold, in CPUs (kernel 6.12 and later)." },
	[RD_TASKS] = { "libdl_root_domain_tasks_ratio", "Deadline bandwidth its live deadline threads hold, in CPUs." },
	[RD_ADMITTED] = { "libdl_root_domain_admitted_ratio", "Deadline bandwidth the kernel counts admitted (total_bw), in CPUs." },
	[RD_FREE] = { "libdl_root_domain_free_ratio", "Deadline bandwidth left for the next reservation, in CPUs (capacity minus admitted; +Inf when unlimited)." },
	[RD_EXPECTED] = { "libdl_root_domain_expected_ratio", "What the admitted count should be: fair servers plus live deadline threads, in CPUs." },
	[RD_DRIFT] = { "libdl_root_domain_drift_ratio", "Admitted minus expected when the kernel's figures are read, else 0, in CPUs." },
	[RD_THREADS] = { "libdl_root_domain_deadline_threads", "Live deadline threads in the root domain." },
	[RD_DRIFTED] = { "libdl_root_domain_drifted", "1 when the kernel's count has drifted from what its tasks hold (repair: dl-part repair), else 0." },
	[RD_UNLIMITED] = { "libdl_root_domain_unlimited", "1 when sched_rt_runtime_us is -1: the kernel tests no bandwidth, else 0." },
};

static void rd_value(FILE *o, const struct stat_frame *f, size_t i, int field)
{
	const struct dl_rd *rd = &f->rds[i];
	int64_t expected = dl_rd_expected(rd);

	switch (field) {
	case RD_CPUS:
		fprintf(o, " %d\n", rd->ncpus);
		break;
	case RD_CPU_LIMIT:
		put_ratio(o, (int64_t)rd->cpu_bw);
		break;
	case RD_CAPACITY:
		put_ratio(o, (int64_t)rd->capacity);
		break;
	case RD_FAIR:
		put_ratio(o, (int64_t)rd->fair_bw);
		break;
	case RD_TASKS:
		put_ratio(o, (int64_t)rd->tasks_bw);
		break;
	case RD_ADMITTED:
		put_ratio(o, rd->total_bw);
		break;
	case RD_FREE:
		/* No admission test (sched_rt_runtime_us = -1): any
		 * reservation fits, which the format spells +Inf. */
		if (rd->unlimited)
			fputs(" +Inf\n", o);
		else
			put_ratio(o, rd->free_bw);
		break;
	case RD_EXPECTED:
		put_ratio(o, expected);
		break;
	case RD_DRIFT:
		put_ratio(o, rd->from_kernel ? rd->total_bw - expected : 0);
		break;
	case RD_THREADS:
		fprintf(o, " %" PRIu64 "\n", rd->ntasks);
		break;
	case RD_DRIFTED:
		fprintf(o, " %d\n", f->drift[i] == DL_DRIFT_YES);
		break;
	case RD_UNLIMITED:
		fprintf(o, " %d\n", rd->unlimited);
		break;
	}
}

/* Each CPU's root domain and deadline servers: the series are by CPU
 * and server, whatever root domain the CPU is in now. */
static void prom_servers(FILE *o, const struct stat_frame *f)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{ "libdl_cpu_server_runtime_seconds", "Runtime of the CPU's deadline server each period (0: off); server is fair or ext (kernel 6.12 and later)." },
		{ "libdl_cpu_server_period_seconds", "Period of the CPU's deadline server." },
		{ "libdl_cpu_server_bandwidth_ratio", "Its reservation, runtime / period, in CPUs." },
		{ "libdl_cpu_server_counted", "1 when the kernel counts the server in its root domain's admitted bandwidth now, else 0." },
		{ "libdl_cpu_server_read", "1 when the setting was read from the kernel, 0 when its files could not be (not root, or a kernel in lockdown) and the kernel's default is shown." },
	};
	char cpus[DL_CPUS_STRLEN], cpu[16];

	family(o, "libdl_cpu_root_domain_info", "gauge", "The root domain the CPU is in now.");
	for (size_t i = 0; i < f->ncpus; i++) {
		snprintf(cpu, sizeof(cpu), "%d", f->cpus[i].cpu);
		fputs("libdl_cpu_root_domain_info{", o);
		put_label(o, "cpu", cpu, true);
		put_label(o, "root_domain", dl_cpus_format(&f->rds[f->cpus[i].rd].cpus, cpus, sizeof(cpus)), false);
		fputs("} 1\n", o);
	}
	for (size_t m = 0; m < sizeof(fam) / sizeof(fam[0]); m++) {
		family(o, fam[m].name, "gauge", fam[m].help);
		for (size_t i = 0; i < f->ncpus; i++)
			for (int k = 0; k < SERVER_KINDS; k++) {
				const struct cpu_servers *cs = &f->cpus[i];
				const struct dl_server *sv = &cs->srv[k];

				if (!sv->present)
					continue;
				snprintf(cpu, sizeof(cpu), "%d", cs->cpu);
				fprintf(o, "%s{", fam[m].name);
				put_label(o, "cpu", cpu, true);
				put_label(o, "server", server_kind_name(k), false);
				fputc('}', o);
				if (m == 0)
					put_seconds(o, sv->runtime);
				else if (m == 1)
					put_seconds(o, sv->period);
				else if (m == 2)
					put_ratio(o, server_bw(sv));
				else
					fprintf(o, " %d\n", m == 3 ? cs->counted[k] : sv->known);
			}
	}
}

static void prom_domains(FILE *o, const struct stat_frame *f)
{
	char cpus[DL_CPUS_STRLEN];
	size_t nparts = 0;

	family(o, "libdl_kernel_figures", "gauge",
	       "1 when the admitted bandwidth is the kernel's own (debugfs sched/debug, read as root), 0 when computed from the tasks and sysctls.");
	fprintf(o, "libdl_kernel_figures %d\n", f->nrds && f->rds[0].from_kernel);
	for (int k = 0; k < RD_N; k++) {
		family(o, rd_fields[k].name, "gauge", rd_fields[k].help);
		for (size_t i = 0; i < f->nrds; i++) {
			rd_labels(o, rd_fields[k].name, &f->rds[i]);
			rd_value(o, f, i, k);
		}
	}
	prom_servers(o, f);
	for (size_t i = 0; f->layout && i < f->nparts; i++)
		nparts += f->parts[i].partition;
	family(o, "libdl_layout_partitions", "gauge", "Partitions of the dl-part layout (0: no layout).");
	fprintf(o, "libdl_layout_partitions %zu\n", nparts);
	if (!f->layout)
		return;
	family(o, "libdl_layout_member_info", "gauge",
	       "A member of the dl-part layout (a partition, or the cluster): its cgroup, CPUs, the kernel's state of it, and its root domain.");
	for (size_t i = 0; i < f->nparts; i++) {
		const struct dl_part_info *p = &f->parts[i];

		fputs("libdl_layout_member_info{", o);
		put_label(o, "member", p->name, true);
		put_label(o, "kind", p->partition ? "partition" : "cluster", false);
		put_label(o, "cgroup", p->cgroup, false);
		put_label(o, "cpus", dl_cpus_format(&p->cpus, cpus, sizeof(cpus)), false);
		put_label(o, "state", p->state, false);
		put_label(o, "root_domain", dl_cpus_format(&p->rd.cpus, cpus, sizeof(cpus)), false);
		fputs("} 1\n", o);
	}
	family(o, "libdl_layout_member_valid", "gauge",
	       "1 when the member is what dl-part create made (a partition: a root domain of its own), 0 when the kernel says otherwise (its state says why).");
	for (size_t i = 0; i < f->nparts; i++) {
		member_labels(o, "libdl_layout_member_valid", &f->parts[i]);
		fprintf(o, " %d\n", !member_invalid(f->layout_version, &f->parts[i]));
	}
	family(o, "libdl_layout_member_cpus", "gauge", "Effective CPUs of the member's cgroup.");
	for (size_t i = 0; i < f->nparts; i++) {
		member_labels(o, "libdl_layout_member_cpus", &f->parts[i]);
		fprintf(o, " %d\n", dl_cpus_count(&f->parts[i].cpus));
	}
	family(o, "libdl_layout_member_threads", "gauge", "Threads in the member's cgroup (under systemd, in a partition's slice).");
	for (size_t i = 0; i < f->nparts; i++) {
		member_labels(o, "libdl_layout_member_threads", &f->parts[i]);
		fprintf(o, " %" PRIu64 "\n", f->parts[i].nthreads);
	}
	family(o, "libdl_layout_member_deadline_threads", "gauge", "Of them, SCHED_DEADLINE threads.");
	for (size_t i = 0; i < f->nparts; i++) {
		member_labels(o, "libdl_layout_member_deadline_threads", &f->parts[i]);
		fprintf(o, " %" PRIu64 "\n", f->parts[i].ndeadline);
	}
}

static void prom_tasks(FILE *o, const struct stat_frame *f, const struct stat_view *v)
{
	static const struct {
		const char *name, *help;
	} param[3] = {
		{ "libdl_task_runtime_seconds", "CPU time the deadline thread may use in each period." },
		{ "libdl_task_deadline_seconds", "Its relative deadline: the time from each period's start by which it gets its runtime." },
		{ "libdl_task_period_seconds", "Its period." },
	};
	const struct dl_task *t = f->tasks;
	char flags[64];

	family(o, "libdl_deadline_threads", "gauge", "SCHED_DEADLINE threads shown.");
	fprintf(o, "libdl_deadline_threads %zu\n", f->ntasks);
	for (int k = 0; k < 3; k++) {
		family(o, param[k].name, "gauge", param[k].help);
		for (size_t i = 0; i < f->ntasks; i++) {
			task_labels(o, param[k].name, f, v, i, NULL, NULL, NULL);
			put_seconds(o, k == 0 ? t[i].params.runtime : k == 1 ? t[i].params.deadline : t[i].params.period);
		}
	}
	family(o, "libdl_task_bandwidth_ratio", "gauge", "Its reservation, runtime / period, in CPUs.");
	for (size_t i = 0; i < f->ntasks; i++) {
		task_labels(o, "libdl_task_bandwidth_ratio", f, v, i, NULL, NULL, NULL);
		put_ratio(o, (int64_t)t[i].bw);
	}
	family(o, "libdl_task_flags_info", "gauge",
	       "Its SCHED_DEADLINE flags, comma-separated: reset-on-fork, reclaim, overrun-signal (\"\": none).");
	for (size_t i = 0; i < f->ntasks; i++) {
		snprintf(flags, sizeof(flags), "%s%s%s%s%s", t[i].params.flags & DL_FLAG_RESET_ON_FORK ? "reset-on-fork" : "",
			 (t[i].params.flags & DL_FLAG_RESET_ON_FORK) && (t[i].params.flags & (DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN)) ? "," : "",
			 t[i].params.flags & DL_FLAG_RECLAIM ? "reclaim" : "",
			 (t[i].params.flags & DL_FLAG_RECLAIM) && (t[i].params.flags & DL_FLAG_DL_OVERRUN) ? "," : "",
			 t[i].params.flags & DL_FLAG_DL_OVERRUN ? "overrun-signal" : "");
		task_labels(o, "libdl_task_flags_info", f, v, i, NULL, "flags", flags);
		fputs(" 1\n", o);
	}
	family(o, "libdl_task_cpu_seconds_total", "counter", "CPU time the thread has used (its schedstat).");
	for (size_t i = 0; i < f->ntasks; i++) {
		task_labels(o, "libdl_task_cpu_seconds_total", f, v, i, NULL, NULL, NULL);
		put_seconds(o, t[i].exec_ns);
	}
	prom_task_counts(o, f, v);
	if (!f->watch)
		return;
	family(o, "libdl_task_used_per_period_seconds", "gauge",
	       "CPU time it used per period since the refresh before (dl-stat --watch).");
	for (size_t i = 0; i < f->ntasks; i++)
		if (f->seen[i]) {
			task_labels(o, "libdl_task_used_per_period_seconds", f, v, i, NULL, NULL, NULL);
			put_seconds(o, f->used[i]);
		}
	family(o, "libdl_task_overrun", "gauge",
	       "1 when it used 95% of its runtime or more per period since the refresh before: it runs out of budget (dl-stat's ! mark), else 0.");
	for (size_t i = 0; i < f->ntasks; i++)
		if (f->seen[i]) {
			task_labels(o, "libdl_task_overrun", f, v, i, NULL, NULL, NULL);
			fprintf(o, " %d\n", task_overran(&t[i], f->used[i]));
		}
	family(o, "libdl_task_out_of_budget_refreshes_total", "counter",
	       "Refreshes of this dl-stat --watch that found it out of budget.");
	for (size_t i = 0; i < f->ntasks; i++)
		if (f->seen[i]) {
			task_labels(o, "libdl_task_out_of_budget_refreshes_total", f, v, i, NULL, NULL, NULL);
			fprintf(o, " %" PRIu64 "\n", f->overruns[i]);
		}
}

/* The count, 0 included, to alert on; one series per container to name
 * it.  Both absent where this user may not read the records. */
static void prom_unreserved(FILE *o, const struct stat_frame *f)
{
	family(o, "libdl_containers_unreserved", "gauge",
	       "Containers whose annotations ask for a reservation and whose process holds none (created while libdl-nri was not running)");
	fprintf(o, "libdl_containers_unreserved %zu\n", f->nunreserved);
	if (!f->nunreserved)
		return;
	family(o, "libdl_container_unreserved_info", "gauge",
	       "A container that asks for a reservation and runs without one, by pod and name");
	for (size_t i = 0; i < f->nunreserved; i++) {
		const struct dl_container_unreserved *u = &f->unreserved[i];

		fputs("libdl_container_unreserved_info{", o);
		put_label(o, "namespace", u->ns, true);
		put_label(o, "pod", u->pod, false);
		put_label(o, "container", u->name, false);
		fputs("} 1\n", o);
	}
}

void stat_prometheus(FILE *o, const struct stat_frame *f, const struct stat_view *v)
{
	if (!v->tasks_only)
		prom_domains(o, f);
	if (!v->domains_only)
		prom_tasks(o, f, v);
	if (f->unreserved_known)
		prom_unreserved(o, f);
	fflush(o);
}

/* ------------------------------------------------- published counters */

/* A bucket's bound in seconds, in the fewest digits that read back as
 * the same double, the way Prometheus's own libraries write le (so
 * node_exporter serves it unchanged): "1.024e-06", "0.000131072". */
static void le_seconds(char *buf, size_t len, unsigned i)
{
	double s = (double)DL_COUNTS_LE_NS(i) / (double)NS_PER_SEC;

	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, s);
		if (strtod(buf, NULL) == s)
			return;
	}
}

/* Counters c under key, with their throttles or overruns under
 * ovr_key. */
static void json_counts(struct json *j, const char *key, const struct dl_task_counts *c, const char *ovr_key,
			const bool *rose, const uint64_t *inferred)
{
	json_obj_begin(j, key);
	json_uint(j, "jobs", c->jobs);
	json_uint(j, "deadline_misses", c->misses);
	json_uint(j, ovr_key, c->overruns);
	/* The kernel's: its throttles inferred at the switch-out, beside the
	 * tracepoint's (equal to them where the kernel has none). */
	if (inferred)
		json_uint(j, "throttles_inferred", *inferred);
	json_uint(j, "response_max_ns", c->response_max);
	json_uint(j, "response_sum_ns", c->response_sum);
	/* Each bucket's own jobs (not cumulative); the last has no bound. */
	json_arr_begin(j, "response_buckets");
	for (unsigned b = 0; b < DL_COUNTS_BUCKETS; b++) {
		json_obj_begin(j, NULL);
		if (b < DL_COUNTS_BUCKETS - 1)
			json_uint(j, "le_ns", DL_COUNTS_LE_NS(b));
		else
			json_null(j, "le_ns");
		json_uint(j, "jobs", c->buckets[b]);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (rose)
		json_bool(j, "misses_rising", *rose);
	json_obj_end(j);
}

void json_task_counts(struct json *j, const struct stat_frame *f, size_t i)
{
	const struct dl_task_counts *c = f->counts ? f->counts[i] : NULL;

	if (!c)
		json_null(j, "counters");
	else
		json_counts(j, "counters", c, "overruns", f->watch && f->misses_rose ? &f->misses_rose[i] : NULL, NULL);
	if (f->kcounts)
		json_counts(j, "kernel_counters", &f->kcounts[i], "throttles", NULL,
			    f->kthrottles_inferred ? &f->kthrottles_inferred[i] : NULL);
	else if (f->kernel_asked)
		json_null(j, "kernel_counters");
}

/* Task i's counters from source: the loop's, or the kernel's; NULL when
 * that source has none for it. */
static const struct dl_task_counts *counts_of(const struct stat_frame *f, size_t i, int kernel)
{
	if (kernel)
		return f->kcounts ? &f->kcounts[i] : NULL;
	return f->counts ? f->counts[i] : NULL;
}

bool stat_throttle_tp(const struct stat_frame *f)
{
	return f->kcounts && f->kthrottle_source && strcmp(f->kthrottle_source, "sched_switch") != 0;
}

const char *stat_krec_note(const struct stat_frame *f, char *buf, size_t len)
{
	if (!f->kcounts || !f->krec_failed)
		return NULL;
	snprintf(buf, len,
		 "--kernel: %" PRIu64 " time%s the kernel could not make a thread's record (no memory for it): what it counted then was lost, that thread's counts are short",
		 f->krec_failed, f->krec_failed == 1 ? "" : "s");
	return buf;
}

void prom_task_counts(FILE *o, const struct stat_frame *f, const struct stat_view *v)
{
	static const struct {
		const char *name, *help;
	} counter[3] = {
		{ "libdl_task_jobs_total", "Jobs ended: counted by its periodic loop (source=\"loop\": DL_PERIODIC_PUBLISH, dl-load) or by the kernel's scheduler (source=\"kernel\": dl-stat --kernel, jobs since dl-stat began)." },
		{ "libdl_task_deadline_misses_total", "Of them, jobs that ended after their deadline." },
		{ "libdl_task_overruns_total", "Runtime overruns: the SIGXCPU the kernel sent the thread (source=\"loop\", SCHED_FLAG_DL_OVERRUN), or the times the kernel throttled it, its runtime exhausted (source=\"kernel\")." },
	};
	static const char *const source[2] = { "loop", "kernel" };
	const char *hist = "libdl_task_response_seconds";
	char le[32];

	if (f->kernel_asked) {
		family(o, "libdl_kernel_counting", "gauge",
		       "1 when dl-stat --kernel counts every deadline thread from the kernel (BPF), 0 when it cannot (dl-stat says why).");
		fprintf(o, "libdl_kernel_counting %d\n", !!f->kcounts);
	}
	if (f->kcounts) {
		family(o, "libdl_kernel_records_failed_total", "counter",
		       "Times since dl-stat --kernel began that the kernel could not make a thread's record (no memory for it): what it counted then was lost (the thread's counts are short).");
		fprintf(o, "libdl_kernel_records_failed_total %" PRIu64 "\n", f->krec_failed);
	}
	if (f->kcounts && f->kthrottle_source) {
		family(o, "libdl_kernel_throttle_source", "gauge",
		       "1 for what counts the kernel's throttles (libdl_task_overruns_total{source=\"kernel\"}): tracepoint=\"sched_dl_throttle_tp\", the kernel's own (Linux 7.1 and later), or tracepoint=\"sched_switch\", inferred at the switch-out.");
		fputs("libdl_kernel_throttle_source{", o);
		put_label(o, "tracepoint", f->kthrottle_source, true);
		fputs("} 1\n", o);
	}
	if (!f->counts && !f->kcounts)
		return;
	for (int k = 0; k < 3; k++) {
		family(o, counter[k].name, "counter", counter[k].help);
		for (int s = 0; s < 2; s++)
			for (size_t i = 0; i < f->ntasks; i++) {
				const struct dl_task_counts *c = counts_of(f, i, s);

				if (!c)
					continue;
				task_labels(o, counter[k].name, f, v, i, source[s], NULL, NULL);
				fprintf(o, " %" PRIu64 "\n", k == 0 ? c->jobs : k == 1 ? c->misses : c->overruns);
			}
	}
	/* Where the tracepoint counts the throttles, the inferred count beside
	 * it (elsewhere it is libdl_task_overruns_total{source="kernel"}). */
	if (f->kthrottles_inferred && stat_throttle_tp(f)) {
		family(o, "libdl_task_throttles_inferred_total", "counter",
		       "The kernel's throttles of the thread as the switch-out shows them (runnable, dl_throttled, not yielded), beside libdl_task_overruns_total{source=\"kernel\"} that the kernel's sched_dl_throttle_tp counts.");
		for (size_t i = 0; i < f->ntasks; i++) {
			task_labels(o, "libdl_task_throttles_inferred_total", f, v, i, "kernel", NULL, NULL);
			fprintf(o, " %" PRIu64 "\n", f->kthrottles_inferred[i]);
		}
	}
	family(o, hist, "histogram",
	       "Response time of its jobs: from release to end (source=\"kernel\": from the release the kernel's CBS gave it, its deadline minus the relative deadline).");
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < f->ntasks; i++) {
			const struct dl_task_counts *c = counts_of(f, i, s);
			uint64_t below = 0;

			if (!c)
				continue;
			for (unsigned b = 0; b < DL_COUNTS_BUCKETS; b++) {
				below += c->buckets[b];
				if (b < DL_COUNTS_BUCKETS - 1)
					le_seconds(le, sizeof(le), b);
				else
					snprintf(le, sizeof(le), "+Inf");
				task_labels(o, "libdl_task_response_seconds_bucket", f, v, i, source[s], "le", le);
				fprintf(o, " %" PRIu64 "\n", below);
			}
			task_labels(o, "libdl_task_response_seconds_sum", f, v, i, source[s], NULL, NULL);
			put_seconds(o, c->response_sum);
			task_labels(o, "libdl_task_response_seconds_count", f, v, i, source[s], NULL, NULL);
			fprintf(o, " %" PRIu64 "\n", c->jobs);
		}
}
