/*
 * analysis.h: what the schedulability analysis files share inside the
 * library (edf.c, global.c, plan.c, ratio.c).  Never installed.
 *
 * Times are integer nanoseconds.  A sum of ratios (utilization, density)
 * is compared with its bound exactly (dl_an_sum_cmp()).  Figures given
 * in fixed point with DL_FP_SHIFT fractional bits are rounded against
 * acceptance: a sum up, a bound down.  The demand-based tests (QPA, BCL,
 * the RTA) use exact integers only.
 */
#ifndef LIBDL_ANALYSIS_H
#define LIBDL_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libdeadline.h"

#define DL_FP_SHIFT 40
#define DL_FP_ONE ((uint64_t)1 << DL_FP_SHIFT)

typedef unsigned __int128 dl_u128;

/* A task as the analysis sees it: runtime, deadline, period, normalized
 * (runtime <= deadline <= period, all non-zero). */
struct dl_an_task {
	uint64_t c, d, t;
};

/* Normalize n parameter sets (and, when server is non-NULL with a
 * runtime, append nserver copies of it at the end). */
int dl_an_tasks(const struct dl_params *p, size_t n, const struct dl_params *server,
		int nserver, struct dl_an_task **out, size_t *count);

/* The greatest common divisor (ratio.c). */
dl_u128 dl_an_gcd(dl_u128 a, dl_u128 b);

/* ceil(num * 2^DL_FP_SHIFT / den), saturating. */
uint64_t dl_fp_ratio_up(dl_u128 num, dl_u128 den);
uint64_t dl_fp_ratio_down(dl_u128 num, dl_u128 den);

/* The processor demand h(t) of the synchronous arrival sequence,
 * saturating at UINT64_MAX. */
uint64_t dl_an_demand(const struct dl_an_task *ts, size_t n, uint64_t t);

/* One CPU, exact.  verdict: DL_SCHEDULABLE, DL_INFEASIBLE, or
 * DL_NOT_GUARANTEED when the interval to check cannot be bounded (total
 * utilization exactly 1 with a busy period beyond 2^62 ns).  fail_t: the
 * latest absolute deadline t with h(t) > t that QPA met. */
struct dl_qpa_out {
	int verdict;
	uint64_t bound;
	uint64_t fail_t;
	uint64_t fail_demand;
	ssize_t limiting; /* the task with a deadline at fail_t, or -1 */
	uint64_t steps;
};
int dl_qpa(const struct dl_an_task *ts, size_t n, struct dl_qpa_out *o);
/* The same, giving up (DL_NOT_GUARANTEED) after max_steps demand checks. */
int dl_qpa_limited(const struct dl_an_task *ts, size_t n, struct dl_qpa_out *o, uint64_t max_steps);

/* Term i of a sum of non-negative ratios: *num / *den, *den > 0. */
typedef void dl_an_term_fn(const void *ctx, size_t i, dl_u128 *num, dl_u128 *den);
/* The sum of the n terms against the whole number m (below 2^20): -1
 * below, 0 equal, 1 above, exactly; 2 when the sum is within rounding
 * of m and its exact fraction needs more than 128 bits (many distinct
 * denominators), so that it cannot tell: a test then refuses. */
int dl_an_sum_cmp(dl_an_term_fn *term, const void *ctx, size_t n, uint64_t m);

/* Total utilization against m: dl_an_sum_cmp() of the C/T. */
int dl_an_util_cmp(const struct dl_an_task *ts, size_t n, uint64_t m);
uint64_t dl_an_util_up(const struct dl_an_task *ts, size_t n);   /* DL_FP units */

/* Global EDF tests on m CPUs; 1 accepted, 0 not.  rta fills resp[]
 * (0: not bounded) when resp is non-NULL. */
int dl_gfb(const struct dl_an_task *ts, size_t n, int m, int64_t *margin, ssize_t *limit);
int dl_bak(const struct dl_an_task *ts, size_t n, int m, ssize_t *limit);
int dl_bcl(const struct dl_an_task *ts, size_t n, int m, ssize_t *limit);
int dl_rta(const struct dl_an_task *ts, size_t n, int m, uint64_t *resp, ssize_t *limit);
/* Synchronous periodic release, every job its whole runtime, global EDF
 * on m CPUs, equal deadlines going to the lower index: 1 when a deadline
 * is missed (task in *who, at *when), 0 when none was found within the
 * budget.  A miss is one schedule's: another tie-break may meet it. */
int dl_gedf_sim(const struct dl_an_task *ts, size_t n, int m, ssize_t *who, uint64_t *when);
/* A sporadic arrival sequence replayed (sim.c): arr by time, each task's
 * releases at least its period apart; during [from, to) of a tie rule the
 * tasks of ahead run first among equal deadlines.  1 on a miss (the
 * earliest, the lower index first), 0 none to the last release plus the
 * longest deadline; -EINVAL a sequence that is not sporadic, more than 64
 * tasks; -ENOMEM. */
struct dl_an_arrival {
	size_t task;
	uint64_t at;
};
struct dl_an_tie {
	uint64_t from, to;
	uint64_t ahead;
};
int dl_gedf_replay(const struct dl_an_task *ts, size_t n, int m, const struct dl_an_arrival *arr, size_t narr,
		   const struct dl_an_tie *ties, size_t nties, ssize_t *who, uint64_t *when);

/* The exact test's search (exact.c) on ts, filling r's verdict, counts
 * and witness (arrivals and ties allocated), its why left to the caller
 * unless it gives up before searching.  0, or -ENOMEM. */
int dl_an_exact(const struct dl_an_task *ts, size_t n, int m, const struct dl_exact_opts *o,
		struct dl_exact_result *r);

/* Critical scaling factors (DL_BW units): the largest alpha with the
 * first n - nfixed runtimes x alpha still accepted (QPA on one CPU; any
 * test of mask, bits 1 << DL_TEST_*, on m CPUs); *limiting: the task
 * that fails first beyond it. */
uint64_t dl_an_edf_scaling(const struct dl_an_task *ts, size_t n, size_t nfixed,
			   ssize_t *limiting);
uint64_t dl_an_global_scaling(const struct dl_an_task *ts, size_t n, size_t nfixed, int m,
			      unsigned mask);
/* A lower bound of the first, from the linear demand bound: cheap. */
uint64_t dl_an_edf_scaling_bound(const struct dl_an_task *ts, size_t n, size_t nfixed);
bool dl_an_any_accepts(const struct dl_an_task *ts, size_t n, int m, unsigned mask);

/* The platform's capacity of a CPU (DL_CAPACITY_SCALE where it gives
 * none), and the smallest, biggest and sum of cpus'. */
uint32_t dl_an_cap(const struct dl_platform *pf, int cpu);
void dl_an_caps(const struct dl_platform *pf, const dl_cpus_t *cpus, uint32_t *min, uint32_t *max,
		uint64_t *sum);
/* t's runtime as the time it takes on a CPU of capacity cap (the kernel
 * charges runtime at the CPU's capacity); false when it then passes
 * the deadline (runtime set to deadline + 1). */
bool dl_an_scale(struct dl_an_task *t, uint32_t cap);
/* The platform as the analysis takes it: reserved words zero, ncpus
 * and cpus agreeing, capacities 1 to DL_CAPACITY_SCALE. */
int dl_an_platform_check(const struct dl_platform *pf, const char *who);
/* dl_global_test() on the platform's CPUs and fair servers, every
 * runtime counted at its smallest CPU's speed. */
int dl_an_global_on(const struct dl_params *tasks, size_t n, const struct dl_platform *pf,
		    struct dl_global_result **res);

/* The root domain the platform's CPUs cpus would make, holding the
 * tasks ts: its figures as dl_rd_fill() gives a real one's (bw.h). */
void dl_an_rd(const struct dl_platform *pf, const struct dl_an_task *ts, size_t n, const dl_cpus_t *cpus,
	      struct dl_rd *rd);
/* The kernel's admission of that root domain: the sum of
 * to_ratio(period, runtime) of its tasks and fair servers against
 * cap_scale(cpu_bw, the CPUs' capacities) (dl_bw_free()).  Returns the
 * room left (negative: refused). */
int64_t dl_an_admission(const struct dl_platform *pf, const struct dl_an_task *ts,
			size_t n, const dl_cpus_t *cpus);
uint64_t dl_an_bw(const struct dl_an_task *t); /* to_ratio(), DL_BW units */

#endif
