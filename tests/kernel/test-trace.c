/*
 * The periodic API checked against an independent source: the kernel's
 * sched_switch and sched_wakeup tracepoints (tracefs, trace_clock=mono,
 * the API's CLOCK_MONOTONIC).
 *
 * Two tasks share CPU 0 (partition0 of a --no-move layout of the
 * suite's own): "comp" (1.8 ms of work every 20 ms, runtime and deadline
 * 2 ms) and "probe" (1.3 ms of work, runtime 1.5 ms, deadline 2.2 ms,
 * period 10 ms, released 100 us after comp, so with a later absolute
 * deadline than comp's).  In the periods where comp runs first, probe
 * ends about 0.8 ms late; in the others about 0.8 ms early: half its
 * jobs miss, by margins far above the tolerance.
 *
 * From the trace alone: each probe job is a wake-up (the timer of its
 * release), a switch-in (its start) and a switch-out to sleep (its end);
 * its release is the grid point at the wake-up; it missed when its end
 * is after that release plus 2.2 ms.  The API's start and end of every
 * job must be within TOL of the trace's (but for at most 5% of the jobs,
 * which a stall of this VM delays between the clock read and the
 * switch; each is noted), its release the trace's wake-up's grid point,
 * and its verdicts and miss count the trace's.
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
	char kind;    /* 'w' wake-up, 'i' switched in, 'o' switched out */
	char state;   /* 'o': the prev_state's first letter */
	bool preempt; /* 'o': "R+", switched out involuntarily */
	int prev;     /* 'i': the pid it took the CPU from */
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
				q = strstr(sw, " prev_pid=");
				e.prev = q ? atoi(q + 10) : -1;
			} else {
				snprintf(key, sizeof(key), " prev_pid=%d ", pid);
				if (!strstr(sw, key))
					continue;
				q = strstr(sw, " prev_state=");
				e.kind = 'o';
				e.state = q ? q[12] : '?';
				e.preempt = q && q[12] && q[13] == '+';
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
	tl_layout_cpu0();
}

static void layout_down(void)
{
	tl_layout_restore(root_lb);
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

static const char set[] = "comp  2ms   2ms   20ms work=1.8ms place=partition0\n"
			  "probe 1.5ms 2.2ms 10ms work=1.3ms offset=100us place=partition0\n";
#define PROBE_D (2200 * US)

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
		trace_misses += end > grid + PROBE_D;
		if (absdiff(end, grid + PROBE_D) <= TOL)
			borderline++;
		else if (job->met != (end <= grid + PROBE_D))
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
	CHECK(outliers * 20 <= matched, "%zu of %zu jobs more than %llu us off the trace", outliers, matched, TOL / US);
	CHECK(trace_misses * 10 >= matched && trace_misses * 10 <= matched * 9,
	      "%zu of %zu missed: the run did not test both verdicts", trace_misses, matched);
	dl_load_free(l);
	dl_taskset_free(ts);
	return nbad == 0;
}

/* Yield mode: no wake-up event marks a replenishment, but a switch-in
 * onto a CPU comp does not hold follows it at once, so those switch-ins
 * are the kernel's period grid (anchored at the wake-up of the first
 * release, the CBS wake-up rule) and show where the kernel moved it.  A
 * trace job runs from a switch-in to the next voluntary switch-out
 * (prev_state "R", the yield; "R+" is a preemption or a throttling in
 * the middle of the job).  Its release is the trace's grid point at its
 * start, its verdict that and the 2.2 ms deadline.  Each API job is
 * compared with the trace job that starts nearest. */
struct tjob {
	uint64_t start, end, rel;
};

static bool yield_once(void)
{
	uint64_t anchor = 0, grid0, phase, max_start = 0, max_end = 0, max_rel = 0;
	size_t nev, ntj = 0, matched = 0, api_misses = 0, trace_misses = 0, borderline = 0;
	size_t disagree = 0, outliers = 0, off_grid = 0, moves = 0;
	const struct dl_load_task *probe, *comp = NULL;
	struct dl_taskset *ts = NULL;
	struct tjob *tj, cur = { 0 };
	bool in_job = false;
	struct dl_load *l;
	struct ev *ev;
	char *text;

	ck_assert_int_eq(dl_taskset_parse(set, strlen(set), "trace", &ts), 0);
	l = traced_run(ts, DL_PERIODIC_YIELD, &text);
	probe = probe_of(l);
	for (size_t i = 0; i < dl_load_count(l); i++)
		if (strcmp(dl_load_task(l, i)->spec->name, "comp") == 0)
			comp = dl_load_task(l, i);
	ck_assert_ptr_nonnull(comp);
	grid0 = dl_load_start(l) + 100 * US;
	nev = parse_trace(text, probe->pid, &ev);
	for (size_t i = 0; i < nev && !anchor; i++)
		if (ev[i].kind == 'w' && absdiff(ev[i].t, grid0) <= WAKE_TOL)
			anchor = ev[i].t;
	ck_assert_msg(anchor, "no wake-up at the first release in the trace (%zu events)", nev);
	tj = calloc(nev + 1, sizeof(*tj));
	phase = anchor;
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].t + US < anchor)
			continue;
		if (ev[i].kind == 'i' && !in_job) {
			uint64_t near = phase + (ev[i].t + 5 * MS - phase) / (10 * MS) * (10 * MS);

			in_job = true;
			cur.start = ev[i].t;
			cur.rel = ev[i].t < near ? near - 10 * MS : near;
			if (ev[i].prev != comp->pid) {
				/* Switched in at the replenishment. */
				if (absdiff(ev[i].t, near) > WAKE_TOL) {
					moves++;
					phase = ev[i].t;
				}
				cur.rel = ev[i].t < near || absdiff(ev[i].t, near) > WAKE_TOL ? ev[i].t : near;
			}
		} else if (ev[i].kind == 'o' && in_job && ev[i].state == 'R' && !ev[i].preempt) {
			cur.end = ev[i].t;
			tj[ntj++] = cur;
			in_job = false;
		}
	}
	for (size_t j = 0, t = 0; j < probe->njobs; j++) {
		const struct dl_job *job = &probe->jobs[j];
		uint64_t dl;

		while (t + 1 < ntj && absdiff(tj[t + 1].start, job->start) < absdiff(tj[t].start, job->start))
			t++;
		if (t >= ntj || absdiff(tj[t].start, job->start) > 2 * MS)
			continue;
		matched++;
		dl = tj[t].rel + PROBE_D;
		if (absdiff(job->release, tj[t].rel) > max_rel)
			max_rel = absdiff(job->release, tj[t].rel);
		if (absdiff(job->start, tj[t].start) > max_start)
			max_start = absdiff(job->start, tj[t].start);
		if (absdiff(job->end, tj[t].end) > max_end)
			max_end = absdiff(job->end, tj[t].end);
		if (!(job->start + US >= tj[t].start && job->start <= tj[t].start + TOL) ||
		    !(job->end <= tj[t].end + US && job->end + TOL >= tj[t].end)) {
			if (outliers++ < 3)
				tl_note("yield job %llu: API start %+lld us, end %+lld us from the trace's",
					(unsigned long long)job->index, ((long long)job->start - (long long)tj[t].start) / 1000,
					((long long)job->end - (long long)tj[t].end) / 1000);
			continue;
		}
		if (absdiff(job->release, tj[t].rel) > WAKE_TOL) {
			off_grid++;
			continue;
		}
		api_misses += !job->met;
		trace_misses += tj[t].end > dl;
		if (absdiff(tj[t].end, dl) <= TOL)
			borderline++;
		else if (job->met != (tj[t].end <= dl))
			disagree++;
	}
	tl_note("yield probe: %zu jobs by the API (%llu re-anchorings), %zu trace jobs (the trace's grid moved %zu times), %zu compared; misses: API %zu, trace %zu (%zu within %llu us of the deadline); %zu outliers, %zu releases off the trace's grid; worst gaps API-trace: release %llu us, start %llu us, end %llu us",
		probe->njobs, (unsigned long long)probe->stats->reanchors, ntj, moves, matched, api_misses,
		trace_misses, borderline, TOL / US, outliers, off_grid, (unsigned long long)(max_rel / US),
		(unsigned long long)(max_start / US), (unsigned long long)(max_end / US));
	free(tj);
	free(ev);
	free(text);
	CHECK(matched * 10 >= probe->njobs * 8, "only %zu of %zu jobs found in the trace", matched, probe->njobs);
	CHECK(outliers * 20 <= matched, "%zu of %zu jobs more than %llu us off the trace", outliers, matched, TOL / US);
	CHECK(off_grid * 20 <= matched, "%zu of %zu releases off the trace's grid", off_grid, matched);
	CHECK(disagree == 0, "%zu verdicts differ", disagree);
	CHECK(absdiff(api_misses, trace_misses) <= borderline, "miss counts differ");
	CHECK(trace_misses * 10 >= matched && trace_misses * 10 <= matched * 9,
	      "%zu of %zu missed: the run did not test both verdicts", trace_misses, matched);
	dl_load_free(l);
	dl_taskset_free(ts);
	return nbad == 0;
}

/* This virtual machine's host stops it now and then (100 ms and more,
 * seen here when its CPUs are busy): a stall between a job's end and
 * its sleep, or one that moves the kernel's grid, makes a run that
 * cannot be compared.  Such a run is noted and tried again, four times
 * at most: in a CI run on 2026-12-05, with a qemu guest busy on the
 * other CPU, three yield runs in a row were spoilt this way (109 and
 * then 11 releases off the trace's grid after stalls, then a run with
 * too few misses to test both verdicts), with no verdict differing. */
#define TRACE_TRIES 5
static void against_trace(bool (*once)(void), const char *mode)
{
	for (int attempt = 1; attempt <= TRACE_TRIES; attempt++) {
		nbad = 0;
		bad[0] = '\0';
		if (once())
			return;
		tl_note("%s mode, try %d: %d disagreements: %s", mode, attempt, nbad, bad);
		if (attempt < TRACE_TRIES)
			sleep(2);
	}
	ck_abort_msg("%s mode: the API and the kernel's trace disagreed in %d runs: see the notes", mode, TRACE_TRIES);
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

	tl_require_layout_host();
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
