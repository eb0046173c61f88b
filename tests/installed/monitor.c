/*
 * A monitor of root domains and deadline tasks, as an application writes
 * it against the installed header alone: it asks for what it needs and
 * passes NULL for the rest, and checks that the counts agree whichever
 * outputs it asks for.  Read-only.  Exit 0, or 1 with the reason.
 */
#include <stdio.h>
#include <stdlib.h>

#include <libdeadline.h>

static int fail(const char *what)
{
	fprintf(stderr, "monitor: %s: %s\n", what, dl_errmsg());
	return 1;
}

int main(void)
{
	char cpus[DL_CPUS_STRLEN], free_bw[DL_BW_STRLEN], cap[DL_BW_STRLEN];
	struct dl_rd *rds = NULL;
	struct dl_task *tasks = NULL;
	size_t nrd = 0, ntasks = 0;
	int n, m, r;

	n = dl_rd_list(&rds, NULL);
	if (n < 1)
		return fail("dl_rd_list(&rds, NULL)");
	m = dl_rd_list(NULL, &nrd);
	if (m != n || nrd != (size_t)n || dl_rd_list(NULL, NULL) != n)
		return fail("dl_rd_list's count depends on the outputs asked for");
	for (int i = 0; i < n; i++) {
		if (!dl_cpus_format(&rds[i].cpus, cpus, sizeof(cpus)) ||
		    !dl_bw_format(rds[i].free_bw, free_bw, sizeof(free_bw)) ||
		    !dl_bw_format(rds[i].capacity, cap, sizeof(cap)))
			return fail("a formatter refused a buffer of its constant's size");
		printf("root domain CPUs %s: %s free of %s\n", cpus, free_bw, cap);
	}
	free(rds);

	m = dl_tasks_list(0, NULL, &ntasks);
	if (m < 0 || (size_t)m != ntasks)
		return fail("dl_tasks_list(0, NULL, &n)");
	if (dl_snapshot(0, NULL, NULL, NULL, NULL) < 0 || dl_snapshot(0, &tasks, NULL, NULL, &nrd) < 0)
		return fail("dl_snapshot with NULL outputs");
	if (nrd != (size_t)n)
		return fail("dl_snapshot's root domains differ from dl_rd_list's");
	free(tasks);
	printf("%zu deadline threads\n", ntasks);

	/* Not root, or no layout, or no debugfs: said, never a crash. */
	r = dl_layout_report(NULL, NULL);
	printf("layout: %d\n", r);
	r = dl_drift_check(0, NULL, NULL);
	printf("drifted root domains: %d\n", r);
	return 0;
}
