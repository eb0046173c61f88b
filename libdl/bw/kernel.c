/*
 * kernel.c: the kernel's deadline figures, read: debugfs sched/debug
 * (parsed by sched-debug.c), the fair servers, the sysctls that set each
 * CPU's capacity.  The parsers of what is read are apart from the reads
 * (sched-debug.c, dl_parse_s64, dl_rt_ratio), for the unit suites.
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

#include "bw/bw.h"

#define DEBUGFS DL_DEBUGFS
#define SCHED_DEBUG DEBUGFS "/sched/debug"

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

/* The kernel's figures for each CPU's root domain (sched-debug.c). */
int dl_kernel_bw_all(int64_t *kbw, int64_t *ktotal, int ncpus, int *ndeadline)
{
	char path[256];
	FILE *f;
	int err;

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
	err = dl_sched_debug_parse(f, kbw, ktotal, ncpus, ndeadline);
	fclose(f);
	return err;
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

/* Linux 6.12 added the fair server (kernel/sched/deadline.c): a
 * property of the running kernel, looked up once a process; and whether
 * a root-domain rebuild may leave the fair servers out of total_bw
 * (docs/kernel-notes.md, "The fair server"). */
static bool fair_server, fair_droppable, ext_server;
static pthread_once_t fair_once = PTHREAD_ONCE_INIT;

static void fair_server_probe(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &major, &minor);
	if (access(DEBUGFS "/sched/fair_server", F_OK) == 0)
		fair_server = true;
	else
		fair_server = major > 6 || (major == 6 && minor >= 12);
	fair_droppable = fair_server && dl_fair_droppable_release(major, minor);
	/* The ext server: seen on 7.2; where debugfs cannot tell, 7.x. */
	if (access(DEBUGFS "/sched/ext_server", F_OK) == 0)
		ext_server = true;
	else if (access(DEBUGFS "/sched", F_OK) != 0)
		ext_server = major >= 7;
}

static bool have_fair_server(void)
{
	pthread_once(&fair_once, fair_server_probe);
	return fair_server;
}

/*
 * Linux 6.12 and 6.13: dl_clear_root_domain() sets the total_bw of a
 * root domain that a rebuild keeps (same CPUs) to 0 and the rebuild adds
 * back only the tasks, while a root domain the rebuild makes counts the
 * fair servers of the CPUs attached to it (rq_attach_root()).  Later
 * kernels restore them in dl_clear_root_domain() ("sched/deadline:
 * Restore dl_server bandwidth on non-destructive root domain changes");
 * docs/kernel-notes.md, "The fair server".
 */
bool dl_fair_droppable_release(int major, int minor)
{
	return major == 6 && (minor == 12 || minor == 13);
}

bool dl_fair_droppable(void)
{
	pthread_once(&fair_once, fair_server_probe);
	return fair_droppable;
}

/* Whether a BPF scheduler is attached (sched_ext's state "enabled"), and
 * whether it took every task (switch_all 1). */
static void scx_attached(bool *attached, bool *all)
{
	char buf[32];
	uint64_t v = 0;

	*attached = dl_read_file("/sys/kernel/sched_ext/state", buf, sizeof(buf)) == 0 &&
		    strcmp(buf, "enabled") == 0;
	*all = *attached && dl_read_u64("/sys/kernel/sched_ext/switch_all", &v) == 0 && v == 1;
}

/* One server's bandwidth, as dl_server_get() finds it (its files may
 * refuse reads: then the default); 0 without one. */
static uint64_t server_bw(int cpu, int kind)
{
	struct dl_server s;

	if (dl_server_get(cpu, kind, &s) < 0 || !s.present)
		return 0;
	return dl_to_ratio(s.period, s.runtime);
}

/*
 * The deadline servers the kernel counts on one CPU: its fair server
 * (from 6.12); and on kernels with an ext server (7.x), that one while a
 * BPF scheduler is attached, which then takes the fair server's place
 * when it switched every task (docs/kernel-notes.md, "The ext server").
 */
void dl_servers_attached(bool *fair, bool *ext)
{
	bool attached = false, all = false;

	*fair = *ext = false;
	if (!have_fair_server())
		return;
	if (ext_server)
		scx_attached(&attached, &all);
	*fair = !all;
	*ext = attached;
}

int dl_fair_server_bw(int cpu, uint64_t *bw)
{
	bool fair, ext;

	*bw = 0;
	dl_servers_attached(&fair, &ext);
	if (fair)
		*bw += server_bw(cpu, DL_SERVER_FAIR);
	if (ext)
		*bw += server_bw(cpu, DL_SERVER_EXT);
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
	int64_t runtime = (int64_t)DL_DEFAULT_RT_RUNTIME_US, period = (int64_t)DL_DEFAULT_RT_PERIOD_US;

	dl_read_s64("/proc/sys/kernel/sched_rt_runtime_us", &runtime);
	dl_read_s64("/proc/sys/kernel/sched_rt_period_us", &period);
	dl_rt_ratio(runtime, period, &rt_bw_cached, &rt_unlimited_cached);
}

int dl_rt_bw(uint64_t *bw, bool *unlimited)
{
	pthread_once(&rt_once, rt_bw_read);
	*bw = rt_bw_cached;
	*unlimited = rt_unlimited_cached;
	return 0;
}


/* The sysctls' runtime and period (microseconds) as a CPU's capacity in
 * units of 2^-20, as sched_rt_handler() and to_ratio() make it; a
 * negative runtime: no admission test. */
void dl_rt_ratio(int64_t runtime_us, int64_t period_us, uint64_t *bw, bool *unlimited)
{
	*unlimited = runtime_us < 0;
	*bw = runtime_us < 0 || period_us <= 0 ? DL_BW_UNIT : dl_to_ratio((uint64_t)period_us, (uint64_t)runtime_us);
}
