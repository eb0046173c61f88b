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

#endif
