/*
 * periodic.c: periodic deadline tasks, every job measured.
 *
 * The loop's two activation modes and what "release" means in each are
 * in release.c; this file does the waiting, reads the clocks and keeps
 * the statistics.  Times are CLOCK_MONOTONIC, the clock the kernel's
 * replenishment timer runs on (start_dl_timer() converts the deadline
 * from the runqueue clock to it).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "workload/periodic.h"
#include "workload/publish.h"

struct dl_periodic {
	struct dl_book book;
	bool reserved;      /* under a reservation (not DL_PERIODIC_NO_RESERVATION) */
	pid_t tid;          /* the loop's thread */
	struct dl_job last;
	struct dl_periodic_stats counts; /* kept by every job */
	struct dl_periodic_stats stats;  /* what dl_periodic_stats() last returned */
	uint64_t cpu0;      /* the thread's CPU clock when the last job ended */
	struct rusage ru0;  /* its voluntary switches and page faults then */
	uint32_t xcpu0;     /* SIGXCPU count then */
	int xcpu;           /* its slot of xcpu_slot, or -1 */
	struct dl_hist resp; /* every job's response, for the percentiles */
	struct dl_pub pub;   /* DL_PERIODIC_PUBLISH: the record dl-stat reads */
};

/* DL_FLAG_DL_OVERRUN sends SIGXCPU to the process, whose default action
 * kills it: count them instead, in the thread that receives it.  The
 * kernel delivers it to the thread that overran unless that thread
 * blocks it (docs/kernel-notes.md, "The overrun signal goes to the
 * thread that overran"), so each loop counts its own.
 *
 * Each loop that counts holds a slot of this table, named by its thread
 * id; the handler finds its thread's slot by gettid(2).  Not thread-local
 * storage: a handler must not reach __tls_get_addr, which may allocate,
 * and initial-exec TLS would make the whole library's thread-local block
 * static, which a program that loads libdeadline with dlopen (Python's
 * binding, a plugin) cannot then get ("cannot allocate memory in static
 * TLS block").  A loop beyond the table's size runs without counting its
 * overruns (its jobs' overruns read 0). */
#define XCPU_SLOTS 1024
static struct {
	pid_t tid;      /* 0: free */
	uint32_t count; /* SIGXCPU received by that thread */
} xcpu_slot[XCPU_SLOTS];

static void on_xcpu(int sig)
{
	pid_t tid = gettid();

	(void)sig;
	for (int i = 0; i < XCPU_SLOTS; i++)
		if (__atomic_load_n(&xcpu_slot[i].tid, __ATOMIC_RELAXED) == tid) {
			__atomic_add_fetch(&xcpu_slot[i].count, 1, __ATOMIC_RELAXED);
			return;
		}
}

/* The calling thread's slot, taken now (-1 when the table is full). */
static int xcpu_take(void)
{
	pid_t tid = gettid();

	for (int i = 0; i < XCPU_SLOTS; i++) {
		pid_t free_tid = 0;

		if (__atomic_compare_exchange_n(&xcpu_slot[i].tid, &free_tid, tid, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&xcpu_slot[i].count, 0, __ATOMIC_RELAXED);
			return i;
		}
	}
	return -1;
}

static void xcpu_give_back(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&xcpu_slot[slot].tid, 0, __ATOMIC_RELEASE);
}

static uint32_t xcpu_read(int slot)
{
	return slot >= 0 ? __atomic_load_n(&xcpu_slot[slot].count, __ATOMIC_RELAXED) : 0;
}

static void count_overruns(void)
{
	struct sigaction old, sa;

	if (sigaction(SIGXCPU, NULL, &old) < 0 || old.sa_handler != SIG_DFL)
		return; /* the program handles it */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_xcpu;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXCPU, &sa, NULL);
}

/* The thread's voluntary switches and page faults so far (0 when
 * getrusage fails: a job then counts none). */
static void thread_usage(struct rusage *ru)
{
	if (getrusage(RUSAGE_THREAD, ru) < 0)
		memset(ru, 0, sizeof(*ru));
}

DL_EXPORT int dl_yield(void)
{
	if (sched_yield() < 0)
		return dl_fail(-errno, "sched_yield: %s", strerror(errno));
	return 0;
}

/*
 * The counters a job is measured by (its CPU time, voluntary switches
 * and page faults), read where the previous job ended (or once, when the
 * first begins).  Reading them again after the wait
 * would put system calls (the thread's CPU clock has no vDSO path, nor
 * has getrusage) between the wake-up and the job's code, where
 * cyclicdeadline's loop makes none: on the project's VM, from the
 * kernel's switch-in to the job's first trace marker, the median went
 * from 37 to 27 us in sleep mode and from 45 to 35 us in yield mode when
 * they moved here (cyclicdeadline: 29 us; bench/trace-wake.sh, 1500 jobs
 * each).  So a job's CPU time also holds the wait's own system call
 * around it, a few microseconds, which the kernel charges to the task's
 * runtime all the same.  sched_yield() gives up the CPU involuntarily
 * (nivcsw), so the voluntary switches still count the job's own blocking
 * only.  The page faults (docs/kernel-notes.md, "Locked memory: no page
 * fault in a job") are the thread's own, its job's and its wait's.
 */
static void job_begins(struct dl_periodic *pt, uint64_t cpu, const struct rusage *ru)
{
	pt->cpu0 = cpu;
	pt->xcpu0 = xcpu_read(pt->xcpu);
	pt->ru0 = *ru;
}

DL_EXPORT int dl_periodic_start(struct dl_periodic **out, const struct dl_params *p, int mode,
				uint64_t first_release)
{
	struct dl_periodic *pt;
	struct dl_params norm;
	bool reserve = !(mode & DL_PERIODIC_NO_RESERVATION);
	uint64_t now, release;
	int err;

	if (!out)
		return dl_fail(-EINVAL, "dl_periodic_start needs somewhere to put the task");
	*out = NULL;
	bool publish = mode & DL_PERIODIC_PUBLISH;
	int late = mode & (DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE);
	mode &= ~(DL_PERIODIC_NO_RESERVATION | DL_PERIODIC_PUBLISH | DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE);
	if (mode != DL_PERIODIC_YIELD && mode != DL_PERIODIC_SLEEP)
		return dl_fail(-EINVAL, "unknown periodic mode %d: use DL_PERIODIC_YIELD or DL_PERIODIC_SLEEP, optionally with DL_PERIODIC_NO_RESERVATION or DL_PERIODIC_PUBLISH", mode);
	if (late == (DL_PERIODIC_RELATIVE | DL_PERIODIC_ABSOLUTE))
		return dl_fail(-EINVAL, "DL_PERIODIC_RELATIVE and DL_PERIODIC_ABSOLUTE together: give one, or neither to skip the releases a late job passed");
	if (late && mode != DL_PERIODIC_SLEEP)
		return dl_fail(-EINVAL, "DL_PERIODIC_%s goes with DL_PERIODIC_SLEEP: in yield mode the kernel's replenishments release the jobs",
			       late == DL_PERIODIC_RELATIVE ? "RELATIVE" : "ABSOLUTE");
	if (!reserve && !p)
		return dl_fail(-EINVAL, "DL_PERIODIC_NO_RESERVATION needs the parameters to run by: give p");
	/* Everything the loop will use, allocated and written now: after
	 * this, dl_periodic_next() allocates nothing and faults no page in. */
	pt = malloc(sizeof(*pt));
	if (!pt)
		return dl_fail(-ENOMEM, "out of memory for a periodic task (%zu bytes)", sizeof(*pt));
	memset(pt, 0, sizeof(*pt));
	pt->xcpu = -1;
	pt->tid = gettid();
	dl_hist_clear(&pt->resp);
	pt->reserved = reserve;
	if (p) {
		err = dl_params_normalize(p, &norm);
	} else {
		/* Adopt the reservation the thread already has (dl-run's). */
		err = dl_get(0, &norm);
		if (err >= 0 && err != DL_SCHED_DEADLINE)
			err = dl_fail(-EINVAL, "the thread is not under SCHED_DEADLINE: give parameters, or set a reservation first (dl_set(3))");
		else if (err > 0)
			err = 0;
	}
	/* The record first: a loop that cannot publish (a folder not
	 * the user's, a group refused) leaves the thread as it was. */
	if (!err && publish)
		err = dl_pub_open(&pt->pub, &norm);
	if (!err && p && reserve && (err = dl_set(0, &norm)))
		dl_pub_close(&pt->pub);
	if (err) {
		free(pt);
		return err;
	}
	if (reserve && (norm.flags & DL_FLAG_DL_OVERRUN)) {
		pt->xcpu = xcpu_take();
		count_overruns();
	}
	now = dl_now_ns();
	if (first_release > now) {
		/* In yield mode too: the CBS wake-up rule gives the task a
		 * fresh deadline, now + D, when it wakes here, so the
		 * kernel's periods start at the release. */
		dl_sleep_until(first_release);
		release = first_release;
	} else if (mode == DL_PERIODIC_YIELD && reserve) {
		/* Begin on a period boundary: the next replenishment. */
		err = dl_yield();
		if (err) {
			dl_periodic_free(pt);
			return err;
		}
		release = dl_now_ns();
	} else {
		/* Without a reservation there is no replenishment to wait
		 * for: the kernel's first period would start now. */
		release = first_release ? first_release : now;
	}
	dl_book_init(&pt->book, (reserve ? mode : mode | DL_PERIODIC_NO_RESERVATION) | late, &norm, release, dl_now_ns());
	{
		struct rusage ru;

		thread_usage(&ru);
		job_begins(pt, dl_thread_cpu_ns(), &ru);
	}
	*out = pt;
	return 0;
}

static void record(struct dl_periodic *pt, const struct dl_job *job)
{
	struct dl_periodic_stats *st = &pt->counts;

	st->jobs++;
	st->misses += !job->met;
	st->skipped += job->skipped;
	st->overruns += job->overruns;
	if (job->reanchor) {
		st->reanchors++;
		st->reanchor_ns += job->reanchor;
	}
	if (job->tardiness > st->tardiness_max)
		st->tardiness_max = job->tardiness;
	st->minflt += job->minflt;
	st->majflt += job->majflt;
	st->faulted += st->jobs > 1 && (job->minflt || job->majflt);
	dl_hist_add(&pt->resp, job->response);
	if (pt->pub.rec)
		dl_pub_job(&pt->pub, job->response, !job->met, job->overruns);
}

DL_EXPORT int dl_periodic_next(struct dl_periodic *pt, const struct dl_job **done)
{
	uint64_t end = dl_now_ns(), cpu = dl_thread_cpu_ns(), wake, release;
	struct rusage ru;
	bool blocked = false;
	int err = 0;

	if (done)
		*done = NULL;
	if (!pt)
		return dl_fail(-EINVAL, "dl_periodic_next needs the task dl_periodic_start made");
	thread_usage(&ru);
	if (pt->book.mode == DL_PERIODIC_YIELD && pt->reserved)
		blocked = ru.ru_nvcsw != pt->ru0.ru_nvcsw;
	dl_book_end(&pt->book, end, &pt->last);
	pt->last.cpu = cpu - pt->cpu0;
	pt->last.minflt = (uint32_t)(ru.ru_minflt - pt->ru0.ru_minflt);
	pt->last.majflt = (uint32_t)(ru.ru_majflt - pt->ru0.ru_majflt);
	/* The SIGXCPU count is this thread's: a loop with no reservation
	 * cannot have overrun, whatever a signal sent by hand says. */
	pt->last.overruns = pt->reserved ? xcpu_read(pt->xcpu) - pt->xcpu0 : 0;
	record(pt, &pt->last);
	if (done)
		*done = &pt->last;
	job_begins(pt, cpu, &ru);
	if (pt->book.mode == DL_PERIODIC_SLEEP) {
		release = dl_book_sleep_next(&pt->book, end);
		dl_sleep_until(release);
		dl_book_started(&pt->book, dl_now_ns());
	} else if (pt->reserved) {
		/* A failed yield (sched_yield(2) documents none on Linux)
		 * is booked as a wake-up at once: the next job has begun
		 * all the same, and the error says it was not waited for. */
		err = dl_yield();
		wake = dl_now_ns();
		dl_book_yield_next(&pt->book, end, wake, pt->last.cpu > pt->book.runtime, blocked);
		dl_book_started(&pt->book, wake);
	} else {
		/* No reservation: wait where the kernel's replenishment
		 * timer would release the next job.  Nothing throttles the
		 * thread nor moves its grid on a wake-up, so it neither
		 * overran nor blocked in the kernel's sense. */
		dl_sleep_until(dl_book_yield_wait(&pt->book));
		wake = dl_now_ns();
		dl_book_yield_next(&pt->book, end, wake, false, false);
		dl_book_started(&pt->book, wake);
	}
	return err;
}

DL_EXPORT const struct dl_periodic_stats *dl_periodic_stats(struct dl_periodic *pt)
{
	struct dl_periodic_stats *st;

	if (!pt) {
		dl_fail(-EINVAL, "dl_periodic_stats needs the task dl_periodic_start made");
		errno = EINVAL;
		return NULL;
	}
	st = &pt->stats;
	*st = pt->counts;
	st->response_min = pt->resp.min;
	st->response_p50 = dl_hist_percentile(&pt->resp, 50);
	st->response_p90 = dl_hist_percentile(&pt->resp, 90);
	st->response_p99 = dl_hist_percentile(&pt->resp, 99);
	st->response_max = pt->resp.max;
	return st;
}

/* The loop's thread by its id: another thread may ask for it too. */
DL_EXPORT int dl_periodic_budget(struct dl_periodic *pt, struct dl_budget *b)
{
	if (!pt) {
		if (b)
			memset(b, 0, sizeof(*b));
		return dl_fail(-EINVAL, "dl_periodic_budget needs the task dl_periodic_start made");
	}
	return dl_get_budget(pt->tid, b);
}

DL_EXPORT void dl_periodic_free(struct dl_periodic *pt)
{
	if (!pt)
		return;
	dl_pub_close(&pt->pub);
	xcpu_give_back(pt->xcpu);
	free(pt);
}
