/*
 * rd-table.c: see rd-table.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rd-table.h"
#include "tool.h"

ssize_t cpu_servers_read(const struct dl_rd *rds, size_t n, struct cpu_servers **out)
{
	struct cpu_servers *cs;
	size_t count = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		count += (size_t)rds[i].ncpus;
	*out = cs = calloc(count ? count : 1, sizeof(*cs));
	if (!cs)
		return -1;
	for (int c = 0; c < DL_CPUS_MAX && k < count; c++)
		for (size_t i = 0; i < n; i++) {
			if (!dl_cpus_isset(&rds[i].cpus, c))
				continue;
			cs[k].cpu = c;
			cs[k].rd = i;
			for (int kind = 0; kind < SERVER_KINDS; kind++) {
				/* A server that cannot be read is shown absent. */
				if (dl_server_get(c, kind, &cs[k].srv[kind]) < 0)
					memset(&cs[k].srv[kind], 0, sizeof(cs[k].srv[kind]));
				cs[k].counted[kind] = dl_server_counted(&rds[i], c, kind) == 1;
			}
			k++;
		}
	return (ssize_t)k;
}

const char *server_setting(const struct dl_server *s, char *buf, size_t len)
{
	char r[DL_TIME_STRLEN], p[DL_TIME_STRLEN];

	if (!s->runtime)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%s/%s", fmt_time(s->runtime, r), fmt_time(s->period, p));
	return buf;
}

static bool same_setting(const struct dl_server *a, const struct dl_server *b)
{
	return a->runtime == b->runtime && (!a->runtime || a->period == b->period) && a->known == b->known;
}

const char *rd_servers_text(const struct cpu_servers *cs, size_t ncs, size_t rd, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int kind = 0; kind < SERVER_KINDS; kind++) {
		const struct dl_server *first = NULL;
		bool alike = true;
		char set[64];

		for (size_t i = 0; i < ncs; i++) {
			if (cs[i].rd != rd || !cs[i].srv[kind].present)
				continue;
			if (!first)
				first = &cs[i].srv[kind];
			else if (!same_setting(first, &cs[i].srv[kind]))
				alike = false;
		}
		if (!first)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s ", used ? " " : "",
					 server_kind_name(kind));
		if (alike) {
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
						 server_setting(first, set, sizeof(set)), first->known ? "" : "?");
			continue;
		}
		for (size_t i = 0, n = 0; i < ncs; i++) {
			if (cs[i].rd != rd || !cs[i].srv[kind].present)
				continue;
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%d:%s%s", n++ ? "," : "",
						 cs[i].cpu, server_setting(&cs[i].srv[kind], set, sizeof(set)),
						 cs[i].srv[kind].known ? "" : "?");
		}
	}
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

bool servers_unread(const struct cpu_servers *cs, size_t ncs)
{
	for (size_t i = 0; i < ncs; i++)
		for (int kind = 0; kind < SERVER_KINDS; kind++)
			if (cs[i].srv[kind].present && !cs[i].srv[kind].known)
				return true;
	return false;
}

void servers_unread_note(FILE *o)
{
	fprintf(o, "note: ? after a server: its files (debugfs sched/fair_server) were not read (they need root, and a kernel in lockdown refuses them even to root): the kernel's default is shown\n");
}

void show_rd_table(FILE *o, const struct dl_rd *rds, size_t n, const int *drift, const char *repair)
{
	char a[DL_BW_STRLEN], b[DL_BW_STRLEN], d[DL_BW_STRLEN], e[DL_BW_STRLEN], f[DL_BW_STRLEN], g[DL_CPUS_STRLEN];
	char sv[512];
	bool computed = n && !rds[0].from_kernel;
	struct cpu_servers *cs;
	ssize_t ncs = cpu_servers_read(rds, n, &cs);

	fprintf(o, "%-3s %-10s %8s %8s %8s %8s %6s %s\n", "RD", "CPUS", "CAPACITY", "FAIR", "ADMITTED", "FREE", "TASKS",
		"SERVERS");
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "%-3zu %-10s %8s %8s %8s %8s %6" PRIu64 " %s%s\n", i,
		       dl_cpus_format(&rds[i].cpus, g, sizeof(g)),
		       dl_bw_format((int64_t)rds[i].capacity, a, sizeof(a)),
		       dl_bw_format((int64_t)rds[i].fair_bw, b, sizeof(b)),
		       dl_bw_format(rds[i].total_bw, d, sizeof(d)),
		       rds[i].unlimited ? "unlimited" : dl_bw_format(rds[i].free_bw, e, sizeof(e)),
		       rds[i].ntasks, ncs < 0 ? "?" : rd_servers_text(cs, (size_t)ncs, i, sv, sizeof(sv)),
		       computed ? "  (computed)" : "");
		if (rds[i].uncounted_fair_bw)
			fprintf(o, "    the kernel does not count the fair servers' %s now (Linux 6.12 drops them when a rebuild keeps the root domain); the next rebuild that makes it counts them again\n",
				dl_bw_format((int64_t)rds[i].uncounted_fair_bw, a, sizeof(a)));
		if (drift[i] != DL_DRIFT_NONE) {
			int64_t expected = dl_rd_expected(&rds[i]);

			fprintf(o, "    %s: the kernel counts %s admitted, its fair servers and live deadline tasks hold %s (%s%s): %s\n",
			       drift[i] == DL_DRIFT_YES ? "DRIFTED" : "settling",
			       dl_bw_format(rds[i].total_bw, a, sizeof(a)),
			       dl_bw_format(expected, b, sizeof(b)),
			       rds[i].total_bw > expected ? "+" : "",
			       dl_bw_format(rds[i].total_bw - expected, f, sizeof(f)),
			       drift[i] == DL_DRIFT_YES ? repair
			       : "exited tasks keep their bandwidth until their 0-lag time");
		}
	}
	if (ncs > 0 && servers_unread(cs, (size_t)ncs))
		servers_unread_note(o);
	free(cs);
	if (computed)
		fprintf(o, "note: the kernel's figures (debugfs sched/debug) cannot be read here (they need root): figures computed from the tasks and sysctls\n");
}
