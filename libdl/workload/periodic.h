/*
 * periodic.h: the release bookkeeping of periodic jobs (internal).
 *
 * A pure function of the times the caller observed, so that the unit
 * tests can feed it timelines (tests/unit/test-periodic.c) and the
 * rules below stay the only place that decides what a release is.
 */
#ifndef LIBDL_PERIODIC_H
#define LIBDL_PERIODIC_H

#include "sys/sys.h"

struct dl_book {
	int mode;          /* DL_PERIODIC_YIELD or DL_PERIODIC_SLEEP */
	int late;          /* sleep mode after a late job: 0 (skip),
			    * DL_PERIODIC_RELATIVE or DL_PERIODIC_ABSOLUTE */
	bool unreserved;   /* DL_PERIODIC_NO_RESERVATION: no kernel grid */
	uint64_t runtime, deadline, period;
	uint64_t phase;    /* the grid: period i starts at phase + i x period */
	uint64_t index;    /* the current job's period number */
	uint64_t release;  /* its release */
	uint64_t start;    /* when it began to run */
	uint64_t skipped;  /* periods with no job just before it */
	uint64_t shift;    /* ns the kernel moved the grid later just before it */
	bool late_wake;    /* the last timer release woke after its deadline */
};

/* Job 0 released at first_release, and running since start; mode may
 * carry DL_PERIODIC_NO_RESERVATION, DL_PERIODIC_RELATIVE or
 * DL_PERIODIC_ABSOLUTE. */
void dl_book_init(struct dl_book *b, int mode, const struct dl_params *p,
		  uint64_t first_release, uint64_t start);
/* The current job, ended at end, into job (its index, times, verdict). */
void dl_book_end(const struct dl_book *b, uint64_t end, struct dl_job *job);
/* Sleep mode: the release of the next job after one that ended at end
 * (the time to sleep until; it may have passed). */
uint64_t dl_book_sleep_next(struct dl_book *b, uint64_t end);
/* Yield mode: the job ended (sched_yield) at end, having used more than
 * its runtime of CPU (overran) or having slept inside (blocked); the
 * thread ran again at wake.  Decides the next job's release. */
void dl_book_yield_next(struct dl_book *b, uint64_t end, uint64_t wake, bool overran, bool blocked);
/* Yield mode with no reservation: when the kernel's replenishment timer
 * would release the next job (the next grid point; it may have passed). */
uint64_t dl_book_yield_wait(const struct dl_book *b);
/* Then the next job began to run at start. */
void dl_book_started(struct dl_book *b, uint64_t start);

/* Response times in a log-linear histogram of fixed size (histogram.c):
 * values below 2^DL_HIST_SUB_BITS exact, larger ones in buckets less
 * than 1/DL_HIST_HALF of their values wide. */
#define DL_HIST_SUB_BITS 8
#define DL_HIST_HALF (1U << (DL_HIST_SUB_BITS - 1))
#define DL_HIST_BUCKETS ((64 - DL_HIST_SUB_BITS + 2) * DL_HIST_HALF)
struct dl_hist {
	uint64_t count, min, max;
	size_t lo, hi;        /* the lowest and highest bucket used */
	uint64_t n[DL_HIST_BUCKETS];
};
size_t dl_hist_index(uint64_t v);
uint64_t dl_hist_upper(size_t i); /* the highest value bucket i holds */
void dl_hist_clear(struct dl_hist *h);
void dl_hist_add(struct dl_hist *h, uint64_t v);
/* The nearest-rank percentile p (0 < p <= 100), as the highest value of
 * its bucket, at most the largest value added; 0 when empty. */
uint64_t dl_hist_percentile(const struct dl_hist *h, unsigned p);

#endif
