/*
 * rd-table.c: see rd-table.h.
 */
#include <inttypes.h>
#include <stdio.h>

#include "rd-table.h"

void show_rd_table(FILE *o, const struct dl_rd *rds, size_t n, const int *drift, const char *repair)
{
	char a[DL_BW_STRLEN], b[DL_BW_STRLEN], d[DL_BW_STRLEN], e[DL_BW_STRLEN], f[DL_BW_STRLEN], g[DL_CPUS_STRLEN];
	bool computed = n && !rds[0].from_kernel;

	fprintf(o, "%-3s %-10s %8s %8s %8s %8s %6s\n", "RD", "CPUS", "CAPACITY", "FAIR", "ADMITTED", "FREE", "TASKS");
	for (size_t i = 0; i < n; i++) {
		fprintf(o, "%-3zu %-10s %8s %8s %8s %8s %6" PRIu64 "%s\n", i,
		       dl_cpus_format(&rds[i].cpus, g, sizeof(g)),
		       dl_bw_format((int64_t)rds[i].capacity, a, sizeof(a)),
		       dl_bw_format((int64_t)rds[i].fair_bw, b, sizeof(b)),
		       dl_bw_format(rds[i].total_bw, d, sizeof(d)),
		       rds[i].unlimited ? "unlimited" : dl_bw_format(rds[i].free_bw, e, sizeof(e)),
		       rds[i].ntasks, computed ? "  (computed)" : "");
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
	if (computed)
		fprintf(o, "note: the kernel's figures (debugfs sched/debug) cannot be read here (they need root): figures computed from the tasks and sysctls\n");
}
