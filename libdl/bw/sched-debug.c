/*
 * sched-debug.c: the kernel's deadline figures in the text of debugfs
 * sched/debug (print_dl_rq() and print_rq() in kernel/sched/debug.c),
 * parsed apart from the read, so that the unit suites feed it the files
 * saved from each kernel the project runs on (tests/unit/data/).
 *
 * What it keys on, the same in 6.1, 6.12 and 6.18: a line "dl_rq[N]:"
 * begins CPU N's deadline run queue, whose indented lines
 * ".dl_bw->bw : V" and ".dl_bw->total_bw : V" are its root domain's
 * capacity per CPU and admitted bandwidth (units of 2^-20 of a CPU; bw
 * -1: no admission test); a line "runnable tasks:" begins a CPU's list of
 * every thread on it, a header up to a rule of dashes, then a row a
 * thread up to a line that does not begin with a space or '>'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bw/bw.h"

/*
 * A row of sched/debug's task listing that may be a deadline thread: a
 * word "-1", the prio print_task() gives every SCHED_DEADLINE thread (and
 * a thread boosted to deadline priority).  The row's other numbers carry
 * a decimal point or cannot be -1; a name with the word "-1" in it only
 * makes the caller take its slow, exact path.
 */
static bool deadline_row(const char *row)
{
	for (const char *p = row; (p = strstr(p, "-1")); p++)
		if ((p == row || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[2] == ' ' || p[2] == '\t' || p[2] == '\n' || p[2] == '\0'))
			return true;
	return false;
}

/*
 * The kernel's figures for each CPU's root domain, from the "dl_rq[N]:"
 * blocks, in one pass.  kbw[cpu] is -2 where the file says nothing of that CPU.
 *
 * With ndeadline, also how many threads the same read lists at deadline
 * priority: print_rq() lists every thread of the machine under its CPU's
 * "runnable tasks:" (sleeping ones too), one row each.  -1 when no
 * listing was found.
 */
int dl_sched_debug_parse(FILE *f, int64_t *kbw, int64_t *ktotal, int ncpus, int *ndeadline)
{
	char *line = NULL;
	size_t cap = 0;
	int cpu = -1, found = 0, lists = 0, rows = 0, dl = 0;
	bool in_list = false, rule = false;

	for (int c = 0; c < ncpus; c++)
		kbw[c] = ktotal[c] = -2;
	if (ndeadline)
		*ndeadline = -1;
	/* getline: a row's length has no bound (its cgroup path). */
	while (getline(&line, &cap, f) > 0) {
		long long v;
		int c;

		if (in_list) {
			/* Its header up to the rule of dashes, then one row a
			 * thread (">R": the one running) up to a blank line. */
			if (line[0] == '-' && !rule) {
				rule = true;
				continue;
			}
			if (!rule)
				continue;
			if (line[0] == ' ' || line[0] == '>') {
				rows++;
				dl += deadline_row(line);
				continue;
			}
			in_list = false;
		}
		if (strncmp(line, "runnable tasks:", 15) == 0) {
			in_list = true;
			rule = false;
			lists++;
			continue;
		}
		if (line[0] != ' ') {
			cpu = sscanf(line, "dl_rq[%d]:", &c) == 1 && c >= 0 && c < ncpus ? c : -1;
			continue;
		}
		if (cpu < 0)
			continue;
		if (sscanf(line, " .dl_bw->bw : %lld", &v) == 1) {
			kbw[cpu] = v;
		} else if (sscanf(line, " .dl_bw->total_bw : %lld", &v) == 1) {
			ktotal[cpu] = v;
			found++;
		}
	}
	free(line);
	/* Every CPU listed, with rows (this thread at least is one). */
	if (ndeadline && lists > 0 && lists >= found && rows > 0)
		*ndeadline = dl;
	return found ? 0 : -ENOENT;
}
