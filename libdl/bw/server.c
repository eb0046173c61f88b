/*
 * server.c: the kernel's deadline servers of each CPU, read and set
 * through debugfs, sched/fair_server/cpuN and sched/ext_server/cpuN
 * (kernel/sched/debug.c); docs/kernel-notes.md, "The deadline servers'
 * settings".
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bw/bw.h"

/* The kernel's bounds on a server's period (dl_server_period_min and
 * _max in kernel/sched/debug.c): 100 us and 2^22 us. */
#define SERVER_PERIOD_MIN_NS (100ULL * 1000)
#define SERVER_PERIOD_MAX_NS ((1ULL << 22) * 1000)

static const char *const server_dir[] = {
	[DL_SERVER_FAIR] = "fair_server",
	[DL_SERVER_EXT] = "ext_server",
};

const char *dl_server_name(int kind)
{
	return kind == DL_SERVER_EXT ? "ext server" : "fair server";
}

static int server_path(char *buf, size_t len, int cpu, int kind, const char *file)
{
	return dl_pathf(buf, len, DL_DEBUGFS "/sched/%s/cpu%d%s%s", server_dir[kind], cpu, file ? "/" : "",
			file ? file : "");
}

static int check_args(int cpu, int kind)
{
	if (kind != DL_SERVER_FAIR && kind != DL_SERVER_EXT)
		return dl_fail(-EINVAL, "unknown server kind %d: DL_SERVER_FAIR or DL_SERVER_EXT", kind);
	if (cpu < 0 || cpu >= DL_CPUS_MAX)
		return dl_fail(-EINVAL, "CPU %d is out of range (0 to %d)", cpu, DL_CPUS_MAX - 1);
	return 0;
}

/* The running kernel's release ("6.18.44"), and whether it is 6.12 or
 * later, the first with the fair server. */
static bool release_has_fair(char *rel, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) != 0)
		snprintf(u.release, sizeof(u.release), "(unknown)");
	if (rel)
		snprintf(rel, len, "%s", u.release);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major > 6 || (major == 6 && minor >= 12);
}

/*
 * Reads never mount debugfs.  Without it, the fair server is taken to be
 * there by the release, at the kernel's default; of the ext server
 * nothing can be known.  Its files may refuse reads: on a kernel in
 * lockdown debugfs refuses every writable file, to root too.
 */
DL_EXPORT int dl_server_get(int cpu, int kind, struct dl_server *s)
{
	char path[160];
	uint64_t runtime, period;
	int err;

	if (!s)
		return dl_fail(-EINVAL, "no struct dl_server to fill in");
	memset(s, 0, sizeof(*s));
	err = check_args(cpu, kind);
	if (err)
		return err;
	if (access(DL_DEBUGFS "/sched", F_OK) != 0) {
		s->present = kind == DL_SERVER_FAIR && release_has_fair(NULL, 0);
	} else {
		server_path(path, sizeof(path), cpu, kind, NULL);
		s->present = access(path, F_OK) == 0;
	}
	if (!s->present)
		return 0;
	s->runtime = DL_SERVER_RUNTIME_DEFAULT;
	s->period = DL_SERVER_PERIOD_DEFAULT;
	if (server_path(path, sizeof(path), cpu, kind, "runtime") == 0 && dl_read_u64(path, &runtime) == 0 &&
	    server_path(path, sizeof(path), cpu, kind, "period") == 0 && dl_read_u64(path, &period) == 0) {
		s->runtime = runtime;
		s->period = period;
		s->known = true;
	}
	return 0;
}

/* Why a server's file could not be read or written, said. */
static int server_failed(int err, int cpu, int kind, const char *doing)
{
	const char *name = dl_server_name(kind);

	if (err == -EPERM || err == -EACCES) {
		if (geteuid() != 0)
			return dl_fail(err, "cannot %s CPU %d's %s: it takes root (debugfs)", doing, cpu, name);
		return dl_fail(err,
			       "cannot %s CPU %d's %s: debugfs refuses its files even to root, as a kernel in "
			       "lockdown does (kernel_lockdown(7); /sys/kernel/security/lockdown says the mode): "
			       "the deadline servers cannot be changed on this boot",
			       doing, cpu, name);
	}
	if (err == -ENOENT)
		return dl_fail(err, "cannot %s CPU %d's %s: debugfs has no sched/%s/cpu%d (is debugfs mounted at "
			       DL_DEBUGFS "?)", doing, cpu, name, server_dir[kind], cpu);
	return dl_fail(err, "cannot %s CPU %d's %s: %s", doing, cpu, name, strerror(-err));
}

static bool cpu_offline(int cpu)
{
	char path[96], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return dl_read_file(path, buf, sizeof(buf)) == 0 && buf[0] == '0';
}

/* One file of a server written, every write through the test hooks; the
 * kernel's refusal said. */
static int server_write(int cpu, int kind, const char *file, uint64_t value, uint64_t runtime, uint64_t period)
{
	char path[160], text[32], site[96], t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN];
	int err;

	snprintf(site, sizeof(site), "CPU %d's %s %s", cpu, dl_server_name(kind), file);
	err = dl_fault(site);
	if (err)
		return err;
	err = server_path(path, sizeof(path), cpu, kind, file);
	if (err)
		return err;
	snprintf(text, sizeof(text), "%" PRIu64, value);
	err = dl_write_file(path, text);
	if (!err)
		return 0;
	dl_time_format(runtime, t1, sizeof(t1));
	dl_time_format(period, t2, sizeof(t2));
	if (err == -EBUSY && cpu_offline(cpu))
		return dl_fail(err, "CPU %d is offline: the kernel changes a deadline server only on an online CPU; "
			       "bring it online first (/sys/devices/system/cpu/cpu%d/online)", cpu, cpu);
	if (err == -EBUSY)
		return dl_fail(err,
			       "the root domain of CPU %d has not the deadline bandwidth free for its %s at %s every %s: "
			       "its deadline tasks and servers hold too much (dl-stat(1) shows them)",
			       cpu, dl_server_name(kind), t1, t2);
	if (err == -EINVAL)
		return dl_fail(err, "the kernel refused CPU %d's %s at %s every %s: it needs runtime <= period and "
			       "a period from 100us to 4.194304s", cpu, dl_server_name(kind), t1, t2);
	return server_failed(err, cpu, kind, "set");
}

/* The first of two writes undone after the second failed with err,
 * whose message stays the one said. */
static void put_back(int cpu, int kind, const char *file, uint64_t runtime, uint64_t period, int err)
{
	char why[1024];

	snprintf(why, sizeof(why), "%s", dl_errmsg());
	if (server_write(cpu, kind, file, file[0] == 'r' ? runtime : period, runtime, period) < 0)
		dl_fail(err, "%s; and putting its %s back failed too: %s", why, file, dl_errmsg());
	else
		dl_fail(err, "%s", why);
}

/* runtime and period as the kernel holds them now, read. */
int dl_server_read(int cpu, int kind, uint64_t *runtime, uint64_t *period)
{
	char path[160];
	int err;

	err = server_path(path, sizeof(path), cpu, kind, "runtime");
	if (!err)
		err = dl_read_u64(path, runtime);
	if (!err)
		err = server_path(path, sizeof(path), cpu, kind, "period");
	if (!err)
		err = dl_read_u64(path, period);
	return err ? server_failed(err, cpu, kind, "read") : 0;
}

/*
 * The kernel takes one value a write and checks each pair it makes
 * (runtime <= period, the period's bounds, the root domain's bandwidth
 * for the new pair).  One of the two orders always gives a valid pair
 * in between: runtime first needs the new runtime within the old
 * period, period first the old runtime within the new period, and both
 * failing would make new runtime > old period >= old runtime > new
 * period >= new runtime.  Of two valid orders the one whose pair in
 * between has the smaller bandwidth: its bandwidth is at most that of
 * the old or the new pair (the two in-between bandwidths multiply to the
 * old times the new), so it fits wherever both ends fit.
 */
bool dl_server_runtime_first(uint64_t old_runtime, uint64_t old_period, uint64_t runtime, uint64_t period)
{
	bool runtime_ok = runtime <= old_period, period_ok = old_runtime <= period;

	if (!runtime_ok || !period_ok)
		return runtime_ok;
	return dl_to_ratio(old_period, runtime) <= dl_to_ratio(period, old_runtime);
}

/*
 * On 6.12 and 6.13 a root domain may not count its fair servers now (a
 * rebuild that kept it: docs/kernel-notes.md, "The fair server"), and the
 * kernel's dl_server_apply_params() takes a server's old bandwidth out of
 * the count all the same: a change to less is refused (EBUSY: the count
 * less the old wraps round) and one to more leaves the count short by the
 * old ("The deadline servers' settings").  Such a change is refused here
 * with -EAGAIN, before any write: a rebuild that makes the root domain
 * again counts its servers, and the change is then right.
 */
static int old_counted(int cpu, int kind, uint64_t old_rt, uint64_t old_per)
{
	char rel[65], t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN];
	struct dl_rd rd;

	if (kind != DL_SERVER_FAIR || old_rt == 0 || !dl_fair_droppable() || dl_rd_of_cpu(cpu, &rd) < 0 ||
	    rd.uncounted_fair_bw == 0)
		return 0;
	release_has_fair(rel, sizeof(rel));
	dl_time_format(old_rt, t1, sizeof(t1));
	dl_time_format(old_per, t2, sizeof(t2));
	return dl_fail(-EAGAIN,
		       "the root domain of CPU %d does not count its fair servers now (Linux %s drops them from "
		       "total_bw when a root-domain rebuild keeps the domain, as systemd's cgroup writes do), and the "
		       "kernel would take this server's %s every %s out of that count all the same: refused, or "
		       "total_bw left short; make that root domain again first, which counts its servers (its cgroup "
		       "v2 partition set isolated and back to root: dl-part does it for a layout's servers), then set it",
		       cpu, rel, t1, t2);
}

/*
 * The change is whole or not at all: SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * are held back while it is made (sys/signals.c); a second write that
 * fails puts the first back, and what the kernel holds afterwards is
 * read back and compared.
 */
DL_EXPORT int dl_server_set(int cpu, int kind, uint64_t runtime, uint64_t period)
{
	char rel[65], path[160], t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN];
	uint64_t old_rt, old_per, rt, per;
	const char *name;
	sigset_t old;
	bool rt_first;
	int err;

	err = check_args(cpu, kind);
	if (err)
		return err;
	name = dl_server_name(kind);
	if (access(DL_DEBUGFS "/sched", F_OK) != 0)
		dl_debugfs_mount();
	server_path(path, sizeof(path), cpu, kind, NULL);
	if (access(path, F_OK) != 0) {
		bool fair = release_has_fair(rel, sizeof(rel));

		if (access(DL_DEBUGFS "/sched", F_OK) != 0)
			return dl_fail(-ENOENT, "cannot set CPU %d's %s: debugfs is not mounted at " DL_DEBUGFS
				       " and could not be (mount -t debugfs none " DL_DEBUGFS ", as root)", cpu, name);
		if (kind == DL_SERVER_FAIR && !fair)
			return dl_fail(-ENODEV, "Linux %s has no fair server (it came with Linux 6.12): there is "
				       "nothing to set", rel);
		if (kind == DL_SERVER_EXT)
			return dl_fail(-ENODEV, "Linux %s has no ext server (debugfs has no sched/ext_server: it "
				       "comes with sched_ext's deadline server in later kernels)", rel);
		return dl_fail(-ENODEV, "CPU %d has no %s (debugfs has no sched/%s/cpu%d): is it a CPU of "
			       "this machine?", cpu, name, server_dir[kind], cpu);
	}
	err = dl_server_read(cpu, kind, &old_rt, &old_per);
	if (err)
		return err;
	if (period == 0)
		period = old_per;
	dl_time_format(runtime, t1, sizeof(t1));
	dl_time_format(period, t2, sizeof(t2));
	if (period < SERVER_PERIOD_MIN_NS || period > SERVER_PERIOD_MAX_NS)
		return dl_fail(-EINVAL, "a %s period of %s is out of the kernel's bounds: 100us to 4.194304s",
			       name, t2);
	if (runtime > period)
		return dl_fail(-EINVAL, "a %s runtime of %s is longer than its period %s: the kernel needs "
			       "runtime <= period", name, t1, t2);
	if (runtime == old_rt && period == old_per)
		return 0;
	err = old_counted(cpu, kind, old_rt, old_per);
	if (err)
		return err;
	rt_first = dl_server_runtime_first(old_rt, old_per, runtime, period);
	dl_sig_hold(&old);
	if (rt_first) {
		err = runtime == old_rt ? 0 : server_write(cpu, kind, "runtime", runtime, runtime, old_per);
		if (!err && period != old_per) {
			err = server_write(cpu, kind, "period", period, runtime, period);
			if (err && runtime != old_rt)
				put_back(cpu, kind, "runtime", old_rt, old_per, err);
		}
	} else {
		err = period == old_per ? 0 : server_write(cpu, kind, "period", period, old_rt, period);
		if (!err && runtime != old_rt) {
			err = server_write(cpu, kind, "runtime", runtime, runtime, period);
			if (err && period != old_per)
				put_back(cpu, kind, "period", old_rt, old_per, err);
		}
	}
	if (!err) {
		err = dl_server_read(cpu, kind, &rt, &per);
		if (!err && (rt != runtime || per != period)) {
			char k1[DL_TIME_STRLEN], k2[DL_TIME_STRLEN];

			dl_time_format(rt, k1, sizeof(k1));
			dl_time_format(per, k2, sizeof(k2));
			err = dl_fail(-EIO, "CPU %d's %s reads %s every %s after %s every %s was written: the kernel "
				      "did not keep it", cpu, name, k1, k2, t1, t2);
		}
	}
	dl_sig_release(&old);
	return err;
}
