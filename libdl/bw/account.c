/*
 * account.c: the deadline bandwidth of a root domain, the kernel's
 * figures and ours.
 *
 * Admission control is per root domain (Documentation/scheduler/
 * sched-deadline.rst, 5): a request is admitted when
 *     total_bw - old_bw + new_bw <= cpu_bw x CPUs
 * where cpu_bw = sched_rt_runtime_us / sched_rt_period_us in units of
 * 2^-20 and total_bw holds the root domain's deadline tasks and, from
 * Linux 6.12, one fair server per CPU (50 ms every 1 s by default).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bw/bw.h"

/*
 * A CPU's capacity as the scheduler sees it (arch_scale_cpu_capacity()):
 * 1024 for the machine's biggest CPUs, less for smaller ones (big.LITTLE,
 * from the device tree's capacity-dmips-mhz or ACPI's CPPC).  The file is
 * absent where every CPU is alike (x86 but hybrid ones): 1024.
 */
uint32_t dl_cpu_capacity(int cpu)
{
	char path[128];
	uint64_t cap = DL_CAPACITY_SCALE;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	if (dl_read_u64(path, &cap) < 0 || cap == 0 || cap > DL_CAPACITY_SCALE)
		cap = DL_CAPACITY_SCALE;
	return (uint32_t)cap;
}

/*
 * dl_task_fits_capacity() of kernel/sched/deadline.c: a CPU of capacity
 * cap runs the task in time when cap >= dl_density >> (20 - 10), its
 * density being to_ratio(deadline, runtime).  The admission test does
 * not look (it sums the capacities); the kernel looks only when the task
 * wakes, and moves it only to a fitting CPU free of deadline work
 * (docs/kernel-notes.md, "CPUs of different capacity").
 */
uint32_t dl_cap_need(const struct dl_params *p)
{
	uint64_t d = p->deadline ? p->deadline : p->period;

	if (!d)
		return 0;
	return (uint32_t)(dl_to_ratio(d, p->runtime) >> (DL_BW_SHIFT - 10));
}

/* The CPUs of span whose capacity is need or more. */
void dl_cpus_fitting(const dl_cpus_t *span, uint32_t need, dl_cpus_t *fit)
{
	memset(fit, 0, sizeof(*fit));
	for (int c = 0; c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(span, c) && dl_cpu_capacity(c) >= need)
			dl_cpus_set(fit, c);
}

void dl_rd_fill(struct dl_rd *rd, const dl_cpus_t *span, const struct dl_task *tasks,
		size_t ntasks, const int64_t *kbw, const int64_t *ktotal)
{
	uint64_t capsum = 0;
	uint32_t cap;
	int first = -1;

	memset(rd, 0, sizeof(*rd));
	rd->cpus = *span;
	rd->ncpus = dl_cpus_count(span);
	for (int c = 0; c < DL_CPUS_MAX; c++) {
		uint64_t fb;

		if (!dl_cpus_isset(span, c))
			continue;
		if (first < 0)
			first = c;
		cap = dl_cpu_capacity(c);
		capsum += cap;
		if (!rd->cap_min || cap < rd->cap_min)
			rd->cap_min = cap;
		if (cap > rd->cap_max)
			rd->cap_max = cap;
		dl_fair_server_bw(c, &fb);
		rd->fair_bw += (int64_t)fb;
	}
	for (size_t i = 0; i < ntasks; i++) {
		if (dl_cpus_isset(span, tasks[i].cpu)) {
			rd->tasks_bw += dl_params_bw(&tasks[i].params);
			rd->ntasks++;
		}
	}
	if (kbw && first >= 0 && kbw[first] != -2 && ktotal[first] != -2) {
		rd->from_kernel = true;
		rd->unlimited = kbw[first] == -1;
		rd->cpu_bw = rd->unlimited ? (int64_t)DL_BW_UNIT : kbw[first];
		rd->total_bw = ktotal[first];
		dl_rd_fair_counted(rd, dl_fair_droppable());
	} else {
		uint64_t bw;

		dl_rt_bw(&bw, &rd->unlimited);
		rd->cpu_bw = (int64_t)bw;
		rd->total_bw = dl_rd_expected(rd);
	}
	/* cap_scale(bw, dl_bw_capacity()) of __dl_overflow(): bw x CPUs
	 * when every CPU has the full capacity of 1024, else bw x the sum of
	 * their capacities / 1024 (Linux 5.9 on). */
	rd->cap_sum = capsum;
	rd->capacity = (int64_t)(((unsigned __int128)(uint64_t)rd->cpu_bw * capsum) >> 10);
	rd->free_bw = dl_bw_free(rd);
}

/*
 * Which fair servers the kernel's count holds (docs/kernel-notes.md,
 * "The fair server").  From 6.14 a root domain always counts its CPUs'
 * fair servers.  On 6.12 and 6.13 (droppable) a rebuild that keeps a
 * root domain drops them and one that makes it counts them, and nothing
 * but total_bw shows which: a count below the fair servers and live tasks
 * is read as the fair servers left out.  That errs on the safe side: an
 * exited task's bandwidth, still held until its 0-lag time, is then seen
 * as settling, never as drift, so nothing rebuilds the root domains
 * while it is held (docs/kernel-notes.md, "Exit before a rebuild"); a
 * drift below the fair servers' share shows once it has lasted
 * DL_DRIFT_SETTLE_MS, as a count above the live tasks.
 */
void dl_rd_fair_counted(struct dl_rd *rd, bool droppable)
{
	rd->fair_bw += rd->uncounted_fair_bw;
	rd->uncounted_fair_bw = 0;
	if (droppable && rd->from_kernel && rd->fair_bw &&
	    rd->total_bw - (int64_t)rd->tasks_bw < (int64_t)rd->fair_bw) {
		rd->uncounted_fair_bw = rd->fair_bw;
		rd->fair_bw = 0;
	}
}

/*
 * Whether the kernel's total_bw of rd, CPU cpu's root domain, holds that
 * CPU's server of kind now (docs/kernel-notes.md, "The fair server"): a
 * fair server from 6.12 always, but on 6.12 and 6.13 not after a rebuild
 * that kept the root domain (rd->uncounted_fair_bw, dl_rd_fair_counted());
 * an ext server only while a BPF scheduler is attached (sched_ext's state
 * "enabled").
 */
DL_EXPORT int dl_server_counted(const struct dl_rd *rd, int cpu, int kind)
{
	struct dl_server s;
	bool fair, ext;
	int err;

	if (!rd)
		return dl_fail(-EINVAL, "dl_server_counted needs the root domain of the CPU (dl_rd_of_cpu(3))");
	if (cpu < 0 || cpu >= DL_CPUS_MAX || !dl_cpus_isset(&rd->cpus, cpu))
		return dl_fail(-EINVAL, "CPU %d is not in that root domain", cpu);
	err = dl_server_get(cpu, kind, &s);
	if (err)
		return err;
	if (!s.present)
		return 0;
	/* The same rule as the count's (dl_fair_server_bw). */
	dl_servers_attached(&fair, &ext);
	if (kind == DL_SERVER_FAIR)
		return fair && rd->uncounted_fair_bw == 0;
	return ext;
}

/* What the kernel's count should be: the fair servers it counts and the
 * live deadline tasks (what dl_rebuild_rd_accounting() recounts). */
DL_EXPORT int64_t dl_rd_expected(const struct dl_rd *rd)
{
	return rd->fair_bw + rd->tasks_bw;
}

int dl_bw_verdict(const struct dl_rd *rd, bool settled)
{
	int64_t expected = dl_rd_expected(rd);

	if (!rd->from_kernel || rd->total_bw == expected)
		return DL_DRIFT_NONE;
	if (rd->total_bw < expected || settled)
		return DL_DRIFT_YES;
	return DL_DRIFT_SETTLING;
}

DL_EXPORT int dl_rd_drift(const struct dl_rd *rd, uint64_t high_ns)
{
	return dl_bw_verdict(rd, high_ns >= DL_DRIFT_SETTLE_MS * 1000000ULL);
}

/* What the next request may take: capacity - total_bw, INT64_MAX when
 * there is no admission test.  The one subtraction behind free_bw, the
 * layout's fit check and the planner's rooms. */
int64_t dl_bw_free(const struct dl_rd *rd)
{
	return rd->unlimited ? INT64_MAX : rd->capacity - rd->total_bw;
}

/*
 * __dl_overflow() of kernel/sched/deadline.c: would total - old + new
 * pass the capacity?  In the kernel's unsigned arithmetic: a count that
 * drifted below zero refuses what keeps the sum negative.
 */
bool dl_bw_overflow(const struct dl_rd *rd, uint64_t old, uint64_t new_bw)
{
	int64_t after = rd->total_bw - (int64_t)old + (int64_t)new_bw;

	return !rd->unlimited && (after < 0 || after > rd->capacity);
}
