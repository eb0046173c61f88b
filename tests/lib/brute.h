/*
 * brute.h: schedulability by brute force, step by step in integer time
 * units and independent of the library's analysis: what the unit suites
 * check the analysis and the plans against.  Tasks (c, d, t) are small
 * integers, all released at 0.
 */
#ifndef LIBDL_TESTS_BRUTE_H
#define LIBDL_TESTS_BRUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"

/* One CPU: utilisation at most 1 and the demand h(t) <= t at every t up
 * to the hyperperiod plus the longest deadline. */
bool tl_brute_edf(const struct dl_an_task *ts, size_t n);
/* Global EDF on m CPUs, simulated unit by unit to the hyperperiod (at
 * most 2,000,000) plus the longest deadline: true on a miss.  At most 32
 * tasks. */
bool tl_brute_gedf_misses(const struct dl_an_task *ts, size_t n, int m);

/* Global EDF on m CPUs, every sporadic arrival sequence in integer time:
 * true when one misses a deadline.  A depth-first walk over (work left,
 * time since the last release) per task, every reached state marked in a
 * bitmap, no pruning; equal deadlines in any order (any_tie: every choice
 * of m among the ready jobs that no later deadline beats) or the lower
 * index first.  Tiny sets only: at most 6 tasks, the product of
 * (C + 1) (T + 1) below 2^27.  -1 when the set is too large. */
int tl_brute_gedf_exact(const struct dl_an_task *ts, size_t n, int m, bool any_tie);
/* The same arrival sequence replayed unit by unit: releases (task, time)
 * by time, and per time unit a mask of tasks that run ahead at equal
 * deadlines (ahead[t], t < nahead).  The first time a job is found
 * unfinished at its deadline, its task in *who; -1 none by the horizon. */
int64_t tl_brute_replay(const struct dl_an_task *ts, size_t n, int m, const size_t *task,
			const uint64_t *at, size_t narr, const uint64_t *ahead, size_t nahead,
			uint64_t horizon, size_t *who);

#endif
