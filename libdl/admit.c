/*
 * admit.c: would the kernel admit a reservation, now, and why (not)?
 *
 * The same checks as __sched_setscheduler() and sched_dl_overflow(), in
 * the same order, from the figures of the task's root domain: the
 * parameters, CAP_SYS_NICE, the affinity covering the root domain, and
 * the bandwidth: total_bw - old + new <= capacity.  Nothing is changed.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bw.h"

/* The threads the request covers, and the bandwidth they hold now. */
static int threads_of(pid_t pid, bool all, uint64_t *n, uint64_t *old)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	*n = 0;
	*old = 0;
	if (!all) {
		struct dl_params cur;
		int pol = dl_get(pid, &cur);

		if (pol < 0)
			return pol;
		*n = 1;
		if (pol == DL_SCHED_DEADLINE)
			*old = dl_params_bw(&cur);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return dl_fail(-ESRCH, "no process %d", (int)pid);
	while ((de = readdir(d))) {
		struct dl_params cur;
		pid_t tid = (pid_t)atoi(de->d_name);
		int pol;

		if (tid <= 0)
			continue;
		pol = dl_get(tid, &cur);
		if (pol < 0)
			continue; /* exited */
		(*n)++;
		if (pol == DL_SCHED_DEADLINE)
			*old += dl_params_bw(&cur);
	}
	closedir(d);
	return 0;
}

DL_EXPORT int dl_predict(pid_t pid, bool all_threads, const struct dl_params *p,
			 char *why, size_t len)
{
	char need_s[32], old_s[64], rdt[768], corrupt[256] = "";
	int64_t after;
	struct dl_params norm;
	uint64_t n, old, need;
	dl_cpus_t aff;
	struct dl_rd rd;
	int err, cpu;

	if (!why || len == 0)
		return dl_fail(-EINVAL, "no buffer for the reason");
	if (pid == 0)
		pid = gettid();
	if (dl_params_normalize(p, &norm) < 0) {
		snprintf(why, len, "%s", dl_errmsg());
		return 0;
	}
	err = threads_of(pid, all_threads, &n, &old);
	if (err)
		return err;
	if (dl_have_cap_sys_nice() == 0) {
		dl_explain(-EPERM, pid, &norm, why, len);
		return 0;
	}
	cpu = dl_task_cpu(pid);
	if (cpu < 0)
		return dl_fail(-ESRCH, "no thread %d", (int)pid);
	err = dl_rd_of_cpu(cpu, &rd);
	if (err)
		return err;
	if (dl_task_affinity(pid, &aff) == 0 && !dl_cpus_subset(&rd.cpus, &aff)) {
		dl_explain(-EPERM, pid, &norm, why, len);
		return 0;
	}
	if (rd.unlimited) {
		snprintf(why, len, "admitted: kernel.sched_rt_runtime_us is -1, the kernel tests no bandwidth");
		return 1;
	}
	if (rd.cpu_bw == 0) {
		dl_explain(-EPERM, pid, &norm, why, len);
		return 0;
	}
	need = n * dl_params_bw(&norm);
	dl_bw_format((int64_t)need, need_s, sizeof(need_s));
	dl_rd_text(&rd, rdt, sizeof(rdt));
	old_s[0] = '\0';
	if (old) {
		char held[32];

		snprintf(old_s, sizeof(old_s), ", %s of it held already",
			 dl_bw_format((int64_t)old, held, sizeof(held)));
	}
	/* __dl_overflow(): capacity < total_bw - old + new, in the kernel's
	 * unsigned arithmetic: a count drifted below zero refuses what
	 * keeps the sum negative. */
	after = rd.total_bw - (int64_t)old + (int64_t)need;
	if (rd.from_kernel && rd.total_bw < (int64_t)rd.fair_bw) {
		char tb[32], fb[32];

		snprintf(corrupt, sizeof(corrupt),
			 "; the kernel's count is corrupt (total_bw %s, below its fair servers' %s): rebuild the root domains to repair it (dl_rd_rebuild(3); dl-part repair)",
			 dl_bw_format(rd.total_bw, tb, sizeof(tb)), dl_bw_format((int64_t)rd.fair_bw, fb, sizeof(fb)));
	}
	if (after < 0 || (uint64_t)after > rd.capacity) {
		snprintf(why, len, "refused: it needs %s of a CPU%s%s, but the %s%s",
			 need_s, n > 1 ? " (all threads)" : "", old_s, rdt, corrupt);
		return 0;
	}
	if (corrupt[0]) {
		snprintf(why, len, "admitted, wrongly: it needs %s of a CPU%s%s; the %s%s",
			 need_s, n > 1 ? " (all threads)" : "", old_s, rdt, corrupt);
		return 1;
	}
	snprintf(why, len, "admitted: it needs %s of a CPU%s%s; the %s",
		 need_s, n > 1 ? " (all threads)" : "", old_s, rdt);
	return 1;
}
