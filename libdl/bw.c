/*
 * bw.c: the deadline bandwidth of a root domain, the kernel's figures and
 * ours.
 *
 * Admission control is per root domain (Documentation/scheduler/
 * sched-deadline.rst, 5): a request is admitted when
 *     total_bw - old_bw + new_bw <= cpu_bw x CPUs
 * where cpu_bw = sched_rt_runtime_us / sched_rt_period_us in units of
 * 2^-20 and total_bw holds the root domain's deadline tasks and, from
 * Linux 6.12, one fair server per CPU (50 ms every 1 s by default).
 *
 * The kernel's own figures (dl_bw->bw and dl_bw->total_bw of each CPU's
 * root domain) are read from debugfs sched/debug when it can be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bw.h"

#define DEBUGFS "/sys/kernel/debug"
#define SCHED_DEBUG DEBUGFS "/sched/debug"
/* The fair server's default: 50 ms every 1000 ms (kernel/sched/deadline.c). */
#define FAIR_RUNTIME_NS 50000000ULL
#define FAIR_PERIOD_NS 1000000000ULL

/*
 * Mounts debugfs when it is not and the caller may (root), once per
 * process.  Never from a query: only from what changes the system anyway
 * (dl_layout_create, dl_layout_destroy, dl_rd_rebuild) and from a tool
 * that says it does (dl-stat(1)).
 */
DL_EXPORT int dl_debugfs_mount(void)
{
	static int tried; /* atomic: one mount attempt per process */

	if (access(SCHED_DEBUG, R_OK) != 0 && !__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL)) {
		struct stat st;

		if (stat(DEBUGFS, &st) == 0 && access(DEBUGFS "/sched", F_OK) != 0)
			mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	}
	return access(SCHED_DEBUG, R_OK) == 0 ? 0 : -errno;
}

/* The kernel's sched/debug, when it can be read now. */
int dl_debugfs_path(char *buf, size_t len)
{
	if (access(SCHED_DEBUG, R_OK) != 0)
		return -errno;
	snprintf(buf, len, "%s", SCHED_DEBUG);
	return 0;
}

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
 * blocks of sched/debug (print_dl_rq() in kernel/sched/debug.c), read in
 * one pass.  kbw[cpu] is -2 where the file says nothing of that CPU.
 *
 * With ndeadline, also how many threads the same read lists at deadline
 * priority: print_rq() lists every thread of the machine under its CPU's
 * "runnable tasks:" (sleeping ones too), one row each.  -1 when no
 * listing was found.
 */
int dl_kernel_bw_all(int64_t *kbw, int64_t *ktotal, int ncpus, int *ndeadline)
{
	char path[256], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err, cpu = -1, found = 0, lists = 0, rows = 0, dl = 0;
	bool in_list = false, rule = false;

	for (int c = 0; c < ncpus; c++)
		kbw[c] = ktotal[c] = -2;
	if (ndeadline)
		*ndeadline = -1;
	err = dl_debugfs_path(path, sizeof(path));
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return -errno;
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
	fclose(f);
	/* Every CPU listed, with rows (this thread at least is one). */
	if (ndeadline && lists > 0 && lists >= found && rows > 0)
		*ndeadline = dl;
	return found ? 0 : -ENOENT;
}

int dl_kernel_bw(int cpu, uint64_t *bw, int64_t *total_bw)
{
	int64_t *kbw, *kt;
	int err;

	if (cpu < 0 || cpu >= DL_CPUS_MAX)
		return -EINVAL;
	kbw = calloc(2 * (size_t)(cpu + 1), sizeof(*kbw));
	if (!kbw)
		return -ENOMEM;
	kt = kbw + cpu + 1;
	err = dl_kernel_bw_all(kbw, kt, cpu + 1, NULL);
	if (!err && (kbw[cpu] == -2 || kt[cpu] == -2))
		err = -ENOENT;
	if (!err) {
		*bw = (uint64_t)kbw[cpu];
		*total_bw = kt[cpu];
	}
	free(kbw);
	return err;
}

/* Linux 6.12 added the fair server (kernel/sched/deadline.c): a
 * property of the running kernel, looked up once a process. */
static bool fair_server;
static pthread_once_t fair_once = PTHREAD_ONCE_INIT;

static void fair_server_probe(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (access(DEBUGFS "/sched/fair_server", F_OK) == 0)
		fair_server = true;
	else if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2)
		fair_server = major > 6 || (major == 6 && minor >= 12);
}

static bool have_fair_server(void)
{
	pthread_once(&fair_once, fair_server_probe);
	return fair_server;
}

/* One CPU's fair server; its files may refuse reads, then the default. */
int dl_fair_server_bw(int cpu, uint64_t *bw)
{
	uint64_t runtime = FAIR_RUNTIME_NS, period = FAIR_PERIOD_NS;
	char path[128];

	if (!have_fair_server()) {
		*bw = 0;
		return 0;
	}
	snprintf(path, sizeof(path), DEBUGFS "/sched/fair_server/cpu%d/runtime", cpu);
	if (dl_read_u64(path, &runtime) == 0) {
		snprintf(path, sizeof(path), DEBUGFS "/sched/fair_server/cpu%d/period", cpu);
		if (dl_read_u64(path, &period) < 0)
			period = FAIR_PERIOD_NS;
	} else {
		runtime = FAIR_RUNTIME_NS;
	}
	*bw = dl_to_ratio(period, runtime);
	return 0;
}

/*
 * sched_rt_runtime_us / sched_rt_period_us, as the kernel's to_ratio().
 *
 * Only when debugfs cannot be read, and once per process: on Linux 6.18
 * even a read of these sysctls rebuilds the root domains
 * (sched_rt_handler()), and a rebuild within a millisecond of a deadline
 * task's exit corrupts the accounting (libdeadline(3), BUGS).
 */
static uint64_t rt_bw_cached;
static bool rt_unlimited_cached;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;

static void rt_bw_read(void)
{
	int64_t runtime = 950000;
	uint64_t period = 1000000;

	dl_read_s64("/proc/sys/kernel/sched_rt_runtime_us", &runtime);
	dl_read_u64("/proc/sys/kernel/sched_rt_period_us", &period);
	rt_unlimited_cached = runtime < 0;
	rt_bw_cached = runtime < 0 ? DL_BW_UNIT : dl_to_ratio(period, (uint64_t)runtime);
}

int dl_rt_bw(uint64_t *bw, bool *unlimited)
{
	pthread_once(&rt_once, rt_bw_read);
	*bw = rt_bw_cached;
	*unlimited = rt_unlimited_cached;
	return 0;
}

static uint64_t cpu_capacity(int cpu)
{
	char path[128];
	uint64_t cap = 1024;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	dl_read_u64(path, &cap);
	return cap;
}

void dl_rd_fill(struct dl_rd *rd, const dl_cpus_t *span, const struct dl_task *tasks,
		size_t ntasks, const int64_t *kbw, const int64_t *ktotal)
{
	uint64_t capsum = 0;
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
		capsum += cpu_capacity(c);
		dl_fair_server_bw(c, &fb);
		rd->fair_bw += fb;
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
		rd->cpu_bw = rd->unlimited ? DL_BW_UNIT : (uint64_t)kbw[first];
		rd->total_bw = ktotal[first];
	} else {
		dl_rt_bw(&rd->cpu_bw, &rd->unlimited);
		rd->total_bw = dl_rd_expected(rd);
	}
	/* cap_scale(bw, capacity) of __dl_overflow(): bw x CPUs when every
	 * CPU has the full capacity of 1024. */
	rd->capacity = (uint64_t)(((unsigned __int128)rd->cpu_bw * capsum) >> 10);
	rd->free_bw = dl_bw_free(rd);
}

/* The kernel's per-CPU figures, bw then total_bw; NULL when unreadable.
 * With ndeadline, the threads the same read lists at deadline priority
 * (-1: unknown). */
int64_t *dl_kernel_bw_census(int *ndeadline)
{
	int64_t *kbw = calloc(2 * DL_CPUS_MAX, sizeof(*kbw));

	if (ndeadline)
		*ndeadline = -1;
	if (kbw && dl_kernel_bw_all(kbw, kbw + DL_CPUS_MAX, DL_CPUS_MAX, ndeadline) < 0) {
		free(kbw);
		kbw = NULL;
		if (ndeadline)
			*ndeadline = -1;
	}
	return kbw;
}

int64_t *dl_kernel_bw_read(void)
{
	return dl_kernel_bw_census(NULL);
}

/* What the kernel's count should be: the fair servers and the live
 * deadline tasks (what dl_rebuild_rd_accounting() recounts). */
DL_EXPORT int64_t dl_rd_expected(const struct dl_rd *rd)
{
	return (int64_t)(rd->fair_bw + rd->tasks_bw);
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
	return rd->unlimited ? INT64_MAX : (int64_t)rd->capacity - rd->total_bw;
}

/*
 * __dl_overflow() of kernel/sched/deadline.c: would total - old + new
 * pass the capacity?  In the kernel's unsigned arithmetic: a count that
 * drifted below zero refuses what keeps the sum negative.
 */
bool dl_bw_overflow(const struct dl_rd *rd, uint64_t old, uint64_t new_bw)
{
	int64_t after = rd->total_bw - (int64_t)old + (int64_t)new_bw;

	return !rd->unlimited && (after < 0 || (uint64_t)after > rd->capacity);
}

