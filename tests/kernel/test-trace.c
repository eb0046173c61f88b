/*
 * The periodic API checked against an independent source: the kernel's
 * sched_switch and sched_wakeup tracepoints (tracefs, trace_clock=mono,
 * the API's CLOCK_MONOTONIC).
 *
 * Two tasks share CPU 0 (partition0 of a --no-move layout of the
 * suite's own) in sleep mode: "comp" (1 ms every 20 ms, deadline 1 ms)
 * and "probe" (1 ms of work, runtime 1.2 ms, deadline 1.5 ms, period
 * 10 ms, released 100 us after comp).  In the periods where comp runs
 * first, probe ends about 0.4 ms late; in the others about 0.5 ms early:
 * half its jobs miss, by margins far above the tolerance.
 *
 * From the trace alone: each probe job is a wake-up (the timer of its
 * release), a switch-in (its start) and a switch-out to sleep (its end);
 * its release is the grid point at the wake-up; it missed when its end
 * is after that release plus 1.5 ms.  The API's start and end of every
 * job must be within TOL of the trace's, its release the trace's
 * wake-up's grid point, and its verdicts and miss count the trace's.
 * The trace is in a private tracefs instance on CPU 0, in a private
 * mount namespace when tracefs is not mounted; it is removed after.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define US 1000ULL
#define MS 1000000ULL
#define CPUSET "/sys/fs/cgroup/cpuset"
#define TOL (200 * US)         /* API time against the trace's */
#define WAKE_TOL (500 * US)    /* a wake-up this near a grid point is its timer's */
#define INSTANCE "libdl-test-trace"

static char root_lb[16];
static char tracefs[256];

static int put(const char *dir, const char *file, const char *text)
{
	char path[512];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = (int)write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* tracefs, mounted if need be (in this process's own mount namespace). */
static bool find_tracefs(void)
{
	static const char *places[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[300];

	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		snprintf(path, sizeof(path), "%s/instances", places[i]);
		if (access(path, F_OK) == 0) {
			snprintf(tracefs, sizeof(tracefs), "%s", places[i]);
			return true;
		}
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
		return false;
	snprintf(tracefs, sizeof(tracefs), "/sys/kernel/tracing");
	return true;
}

struct ev {
	uint64_t t;
	char kind;  /* 'w' wake-up, 'i' switched in, 'o' switched out */
	char state; /* 'o': the prev_state's first letter */
};

/* pid's events in the trace text, in order. */
static size_t parse_trace(char *text, int pid, struct ev **out)
{
	size_t n = 0, cap = 1024;
	struct ev *ev = malloc(cap * sizeof(*ev));
	char *line, *save = NULL, key[32];

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sw = strstr(line, ": sched_switch: "), *wk = strstr(line, ": sched_wakeup: "), *p, *q;
		unsigned long long s, us;
		struct ev e = { 0 };

		if (!sw && !wk)
			continue;
		p = sw ? sw : wk;
		while (p > line && p[-1] != ' ')
			p--;
		if (sscanf(p, "%llu.%6llu", &s, &us) != 2)
			continue;
		e.t = s * 1000000000ULL + us * 1000ULL;
		if (wk) {
			snprintf(key, sizeof(key), " pid=%d ", pid);
			if (!strstr(wk, key))
				continue;
			e.kind = 'w';
		} else {
			snprintf(key, sizeof(key), " next_pid=%d ", pid);
			if (strstr(sw, key)) {
				e.kind = 'i';
			} else {
				snprintf(key, sizeof(key), " prev_pid=%d ", pid);
				if (!strstr(sw, key))
					continue;
				q = strstr(sw, " prev_state=");
				e.kind = 'o';
				e.state = q ? q[12] : '?';
			}
		}
		if (n == cap)
			ev = realloc(ev, (cap *= 2) * sizeof(*ev));
		ev[n++] = e;
	}
	*out = ev;
	return n;
}

static void layout_up(void)
{
	struct dl_layout *lay = dl_layout_new();
	dl_cpus_t cpu0;
	int err;

	dl_cpus_zero(&cpu0);
	dl_cpus_set(&cpu0, 0);
	ck_assert_int_eq(dl_layout_add_partition(lay, "partition0", &cpu0), 0);
	ck_assert_int_eq(dl_layout_set_flags(lay, DL_LAYOUT_NO_MOVE), 0);
	err = dl_layout_create(lay, NULL);
	dl_layout_free(lay);
	ck_assert_msg(err == 0, "layout: %s", dl_errmsg());
}

static void layout_down(void)
{
	char now[16] = "";

	if (access("/run/libdl/layout", F_OK) == 0 && dl_layout_destroy(NULL) < 0)
		tl_note("cleanup: destroy failed: %s", dl_errmsg());
	dl_read_file(CPUSET "/cpuset.sched_load_balance", now, sizeof(now));
	if (root_lb[0] && strcmp(now, root_lb) != 0)
		dl_write_file(CPUSET "/cpuset.sched_load_balance", root_lb);
}

/* Run the two tasks with the trace on; the trace's text into *text. */
static struct dl_load *traced_run(struct dl_taskset *ts, int mode, char **text)
{
	char inst[512], path[600];
	struct dl_load *l = NULL;
	size_t len = 0, cap = 1 << 20;
	int err, fd;
	ssize_t r;

	ck_assert_msg(find_tracefs(), "cannot mount tracefs: %s", strerror(errno));
	snprintf(inst, sizeof(inst), "%s/instances/" INSTANCE, tracefs);
	rmdir(inst); /* a crashed run's */
	ck_assert_msg(mkdir(inst, 0700) == 0, "mkdir %s: %s", inst, strerror(errno));
	err = put(inst, "trace_clock", "mono");
	if (!err)
		err = put(inst, "buffer_size_kb", "8192");
	if (!err)
		err = put(inst, "tracing_cpumask", "1");
	if (!err)
		err = put(inst, "events/sched/sched_switch/enable", "1");
	if (!err)
		err = put(inst, "events/sched/sched_wakeup/enable", "1");
	if (!err)
		err = put(inst, "tracing_on", "1");
	if (!err && dl_load_run(ts, mode, 2000 * MS, 0, DL_LOAD_KEEP_JOBS, &l) < 0)
		err = 1;
	put(inst, "tracing_on", "0");
	*text = malloc(cap + 1);
	snprintf(path, sizeof(path), "%s/trace", inst);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && (r = read(fd, *text + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap)
			*text = realloc(*text, (cap *= 2) + 1);
	}
	(*text)[len] = '\0';
	if (fd >= 0)
		close(fd);
	put(inst, "events/sched/sched_switch/enable", "0");
	put(inst, "events/sched/sched_wakeup/enable", "0");
	if (rmdir(inst) < 0)
		tl_note("cannot remove the tracefs instance %s: %s", inst, strerror(errno));
	ck_assert_msg(err == 0, "%s", err < 0 ? strerror(-err) : dl_errmsg());
	ck_assert_msg(len > 0, "an empty trace");
	return l;
}

/* What a run found wrong: the first few, and how many. */
static int nbad;
static char bad[1024];

#define CHECK(cond, fmt, ...)                                                   \
	do {                                                                    \
		if (!(cond) && nbad++ < 3) {                                    \
			size_t used_ = strlen(bad);                             \
			snprintf(bad + used_, sizeof(bad) - used_, "%s" fmt,    \
				 used_ ? "; " : "", ##__VA_ARGS__);             \
		}                                                               \
	} while (0)

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static const char set[] = "comp  1ms   1ms   20ms work=0.9ms place=partition0\n"
			  "probe 1.2ms 1.5ms 10ms work=1ms offset=100us place=partition0\n";

static const struct dl_load_task *probe_of(const struct dl_load *l)
{
	for (size_t i = 0; i < dl_load_count(l); i++)
		if (strcmp(dl_load_task(l, i)->spec->name, "probe") == 0)
			return dl_load_task(l, i);
	ck_abort_msg("no probe");
	return NULL;
}

static bool sleep_once(void)
{
	uint64_t max_start = 0, max_end = 0, max_wake = 0, grid0;
	size_t nev, matched = 0, api_misses = 0, trace_misses = 0, borderline = 0, disagree = 0, unclean = 0, outliers = 0;
	const struct dl_load_task *probe = NULL;
	struct dl_taskset *ts = NULL;
	struct dl_load *l;
	struct ev *ev;
	char *text;

	ck_assert_int_eq(dl_taskset_parse(set, strlen(set), "trace", &ts), 0);
	l = traced_run(ts, DL_PERIODIC_SLEEP, &text);
	probe = probe_of(l);
	grid0 = dl_load_start(l) + 100 * US;
	nev = parse_trace(text, probe->pid, &ev);
	ck_assert_msg(nev > 100, "%zu events of pid %d in the trace", nev, (int)probe->pid);

	/* The trace's jobs: wake-up, switch-in, switch-out to sleep.  A job
	 * switched out running in between (preempted, throttled by a stall
	 * that ate its runtime) has no end the trace can tell: left out. */
	for (size_t i = 0; i < nev; i++) {
		uint64_t k, grid, start = 0, end = 0;
		const struct dl_job *job = NULL;
		size_t a;

		if (ev[i].kind != 'w' || ev[i].t + WAKE_TOL < grid0)
			continue;
		k = (ev[i].t - grid0 + 5 * MS) / (10 * MS);
		grid = grid0 + k * 10 * MS;
		if (absdiff(ev[i].t, grid) > WAKE_TOL)
			continue; /* not a release's timer */
		a = i + 1;
		if (a == nev)
			break;
		if (ev[a].kind != 'i') {
			/* Woken before it got off the CPU (a release right
			 * after the previous end): it never switched in. */
			unclean++;
			continue;
		}
		start = ev[a].t;
		for (; a < nev && ev[a].kind != 'o'; a++)
			;
		if (a == nev)
			break;
		if (ev[a].state == 'R') {
			unclean++;
			continue;
		}
		end = ev[a].t;
		for (size_t j = 0; j < probe->njobs; j++)
			if (probe->jobs[j].index == k)
				job = &probe->jobs[j];
		if (!job)
			continue;
		matched++;
		/* Sleep mode's release is the grid point the kernel woke it at. */
		ck_assert_uint_eq(job->release, grid);
		if (absdiff(ev[i].t, grid) > max_wake)
			max_wake = absdiff(ev[i].t, grid);
		/* The trace has microseconds: 1 us of rounding either way. */
		if (absdiff(job->start, start) > max_start)
			max_start = absdiff(job->start, start);
		if (absdiff(job->end, end) > max_end)
			max_end = absdiff(job->end, end);
		if (!(job->start + US >= start && job->start <= start + TOL) ||
		    !(job->end <= end + US && job->end + TOL >= end)) {
			if (outliers++ < 3)
				tl_note("sleep job %llu: API start %+lld us, end %+lld us from the trace's",
					(unsigned long long)k, ((long long)job->start - (long long)start) / 1000,
					((long long)job->end - (long long)end) / 1000);
			continue;
		}
		api_misses += !job->met;
		trace_misses += end > grid + 1500 * US;
		if (absdiff(end, grid + 1500 * US) <= TOL)
			borderline++;
		else if (job->met != (end <= grid + 1500 * US))
			disagree++;
	}
	tl_note("sleep probe: %zu jobs by the API, %zu compared with the trace (%zu switched out running: left out); misses: API %zu, trace %zu (%zu within %llu us of the deadline); %zu outliers; worst gaps API-trace: start %llu us, end %llu us; wake-up after the release: up to %llu us",
		probe->njobs, matched, unclean, api_misses, trace_misses, borderline, TOL / US, outliers,
		(unsigned long long)(max_start / US), (unsigned long long)(max_end / US),
		(unsigned long long)(max_wake / US));
	free(ev);
	free(text);
	CHECK(matched * 10 >= probe->njobs * 8, "only %zu of %zu jobs found in the trace", matched, probe->njobs);
	CHECK(disagree == 0, "%zu verdicts differ", disagree);
	CHECK(absdiff(api_misses, trace_misses) <= borderline, "miss counts differ");
	/* The scenario makes about half of them miss: the check compared
	 * both verdicts. */
	CHECK(outliers * 50 <= matched, "%zu of %zu jobs more than %llu us off the trace", outliers, matched, TOL / US);
	CHECK(trace_misses * 10 >= matched && trace_misses * 10 <= matched * 9,
	      "%zu of %zu missed: the run did not test both verdicts", trace_misses, matched);
	dl_load_free(l);
	dl_taskset_free(ts);
	return nbad == 0;
}

/* Yield mode: no wake-up event marks a replenishment, but a switch-in
 * onto an idle CPU follows it at once.  The kernel's grid is anchored
 * at the wake-up of the first release (the CBS wake-up rule); in the
 * periods comp does not run, probe's switch-in must be on that grid,
 * which shows the kernel kept it (no re-anchoring).  The trace's jobs
 * are switch-in to the last switch-out before the next period's; their
 * verdicts come from that grid and the 1.5 ms deadline. */
static bool yield_once(void)
{
	uint64_t anchor = 0, grid0, max_start = 0, max_end = 0, max_rel = 0;
	size_t nev, matched = 0, api_misses = 0, trace_misses = 0, borderline = 0, disagree = 0;
	size_t idle_periods = 0, on_grid = 0, nk, unclean = 0, outliers = 0;
	const struct dl_load_task *probe;
	struct dl_taskset *ts = NULL;
	uint64_t *kstart, *kend, *kins;
	struct dl_load *l;
	struct ev *ev;
	char *text;

	ck_assert_int_eq(dl_taskset_parse(set, strlen(set), "trace", &ts), 0);
	l = traced_run(ts, DL_PERIODIC_YIELD, &text);
	probe = probe_of(l);
	grid0 = dl_load_start(l) + 100 * US;
	nev = parse_trace(text, probe->pid, &ev);
	for (size_t i = 0; i < nev && !anchor; i++)
		if (ev[i].kind == 'w' && absdiff(ev[i].t, grid0) <= WAKE_TOL)
			anchor = ev[i].t;
	ck_assert_msg(anchor, "no wake-up at the first release in the trace (%zu events)", nev);
	nk = 2000 * MS / (10 * MS) + 2;
	kstart = calloc(nk, sizeof(*kstart));
	kend = calloc(nk, sizeof(*kend));
	kins = calloc(nk, sizeof(*kins));
	for (size_t i = 0; i < nev; i++) {
		uint64_t k;

		if (ev[i].kind != 'i' || ev[i].t + US < anchor)
			continue;
		k = (ev[i].t - anchor + 5 * MS) / (10 * MS);
		if (k >= nk)
			break;
		if (!kins[k]++)
			kstart[k] = ev[i].t;
		for (size_t a = i + 1; a < nev; a++) {
			if (ev[a].kind == 'o') {
				kend[k] = ev[a].t;
				break;
			}
		}
	}
	for (size_t j = 0; j < probe->njobs; j++) {
		const struct dl_job *job = &probe->jobs[j];
		uint64_t k = job->index, rel = anchor + k * 10 * MS;

		if (k >= nk || !kstart[k] || !kend[k])
			continue;
		if (kins[k] != 1) {
			/* Switched out and in again: preempted or throttled, its
			 * end is not the first switch-out. */
			unclean++;
			continue;
		}
		matched++;
		if (k % 2) {
			idle_periods++;
			on_grid += absdiff(kstart[k], rel) <= WAKE_TOL;
		}
		if (absdiff(job->release, rel) > max_rel)
			max_rel = absdiff(job->release, rel);
		if (absdiff(job->start, kstart[k]) > max_start)
			max_start = absdiff(job->start, kstart[k]);
		if (absdiff(job->end, kend[k]) > max_end)
			max_end = absdiff(job->end, kend[k]);
		if (!(job->start + US >= kstart[k] && job->start <= kstart[k] + TOL) ||
		    !(job->end <= kend[k] + US && job->end + TOL >= kend[k])) {
			if (outliers++ < 3)
				tl_note("yield job %llu: API start %+lld us, end %+lld us from the trace's",
					(unsigned long long)k, ((long long)job->start - (long long)kstart[k]) / 1000,
					((long long)job->end - (long long)kend[k]) / 1000);
			continue;
		}
		api_misses += !job->met;
		trace_misses += kend[k] > rel + 1500 * US;
		if (absdiff(kend[k], rel + 1500 * US) <= TOL)
			borderline++;
		else if (job->met != (kend[k] <= rel + 1500 * US))
			disagree++;
	}
	tl_note("yield probe: %zu jobs by the API (%llu re-anchorings), %zu compared with the trace (%zu switched in twice: left out); misses: API %zu, trace %zu (%zu within %llu us of the deadline); switch-ins on the kernel's grid in %zu of %zu periods without comp; %zu outliers; worst gaps API-trace: release %llu us, start %llu us, end %llu us",
		probe->njobs, (unsigned long long)probe->stats->reanchors, matched, unclean, api_misses, trace_misses,
		borderline, TOL / US, on_grid, idle_periods, outliers, (unsigned long long)(max_rel / US),
		(unsigned long long)(max_start / US), (unsigned long long)(max_end / US));
	free(kstart);
	free(kend);
	free(kins);
	free(ev);
	free(text);
	CHECK(matched * 10 >= probe->njobs * 8, "only %zu of %zu jobs found in the trace", matched, probe->njobs);
	CHECK(on_grid * 10 >= idle_periods * 8, "the kernel's grid moved (a stall?)");
	CHECK(max_rel <= WAKE_TOL, "releases off the trace's grid");
	CHECK(disagree == 0, "%zu verdicts differ", disagree);
	CHECK(absdiff(api_misses, trace_misses) <= borderline, "miss counts differ");
	CHECK(outliers * 50 <= matched, "%zu of %zu jobs more than %llu us off the trace", outliers, matched, TOL / US);
	CHECK(trace_misses * 10 >= matched && trace_misses * 10 <= matched * 9,
	      "%zu of %zu missed: the run did not test both verdicts", trace_misses, matched);
	dl_load_free(l);
	dl_taskset_free(ts);
	return nbad == 0;
}

/* This virtual machine's host stops it now and then (100 ms and more,
 * seen here when its CPUs are busy): a stall between a job's end and
 * its sleep, or one that moves the kernel's grid, makes a run that
 * cannot be compared.  Such a run is noted and tried again, twice at
 * most. */
static void against_trace(bool (*once)(void), const char *mode)
{
	for (int attempt = 1; attempt <= 3; attempt++) {
		nbad = 0;
		bad[0] = '\0';
		if (once())
			return;
		tl_note("%s mode, try %d: %d disagreements: %s", mode, attempt, nbad, bad);
		if (attempt < 3)
			sleep(2);
	}
	ck_abort_msg("%s mode: the API and the kernel's trace disagreed in 3 runs: see the notes", mode);
}

START_TEST(test_sleep_mode_against_trace)
{
	against_trace(sleep_once, "sleep");
}
END_TEST

START_TEST(test_yield_mode_against_trace)
{
	against_trace(yield_once, "yield");
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");
	char fs[4096] = "";
	dl_cpus_t online;

	if (dl_cpuset_version() != 1)
		tl_skip_all("the host suites need cgroup v1 cpusets (cgroup v2 is tested in the VM suites)");
	dl_cpus_online(&online);
	if (dl_cpus_count(&online) != 2)
		tl_skip_all("the host suites are written for the 2-CPU machines (this one has %d)", dl_cpus_count(&online));
	if (access("/run/libdl/layout", F_OK) == 0)
		tl_skip_all("a dl-part layout is in place on this machine: the tests will not touch it");
	if (dl_read_file("/proc/filesystems", fs, sizeof(fs)) < 0 || !strstr(fs, "tracefs"))
		tl_skip_all("this kernel has no tracefs (CONFIG_TRACING): nothing to check against");
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, layout_up, layout_down);
	tcase_add_test(tc, test_sleep_mode_against_trace);
	tcase_add_test(tc, test_yield_mode_against_trace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	layout_down();
	return ret;
}
