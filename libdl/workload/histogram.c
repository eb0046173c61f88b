/*
 * histogram.c: the response times of a periodic task's jobs, in a
 * log-linear histogram of fixed size (the scheme of HdrHistogram).
 *
 * The periodic loop must not allocate once it runs, and its statistics
 * must cost the same at job 10 as at job 10 million: every value goes
 * into one counter of a fixed array chosen at start, and a percentile is
 * a walk over the used part of that array.
 *
 * Values below 2^DL_HIST_SUB_BITS have a bucket each.  Above, each power
 * of two is cut into DL_HIST_HALF buckets of equal width, so a bucket is
 * never wider than 1/DL_HIST_HALF of the smallest value in it.  A
 * percentile is reported as the highest value of its bucket (at most the
 * largest value seen): never below the exact nearest-rank percentile,
 * and less than 1/DL_HIST_HALF (0.79%) above it.
 */
#include <string.h>

#include "workload/periodic.h"

size_t dl_hist_index(uint64_t v)
{
	unsigned b;

	if (v < (1ULL << DL_HIST_SUB_BITS))
		return (size_t)v;
	b = (unsigned)(63 - __builtin_clzll(v)) - (DL_HIST_SUB_BITS - 1);
	return (size_t)b * DL_HIST_HALF + (size_t)(v >> b);
}

uint64_t dl_hist_upper(size_t i)
{
	unsigned b;
	uint64_t sub;

	if (i < (1U << DL_HIST_SUB_BITS))
		return i;
	b = (unsigned)(i / DL_HIST_HALF) - 1;
	sub = i - (size_t)b * DL_HIST_HALF;
	/* The last bucket's end wraps to UINT64_MAX, as it should. */
	return ((sub + 1) << b) - 1;
}

void dl_hist_clear(struct dl_hist *h)
{
	/* Every byte written here, at start: the pages are the process's
	 * before the loop runs, so recording a job faults nothing in. */
	memset(h, 0, sizeof(*h));
	h->lo = DL_HIST_BUCKETS;
}

void dl_hist_add(struct dl_hist *h, uint64_t v)
{
	size_t i = dl_hist_index(v);

	if (h->count == 0 || v < h->min)
		h->min = v;
	if (h->count == 0 || v > h->max)
		h->max = v;
	if (i < h->lo)
		h->lo = i;
	if (i > h->hi || h->count == 0)
		h->hi = i;
	h->n[i]++;
	h->count++;
}

uint64_t dl_hist_percentile(const struct dl_hist *h, unsigned p)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (p > 100)
		p = 100;
	rank = (uint64_t)(((unsigned __int128)h->count * p + 99) / 100);
	if (rank == 0)
		rank = 1;
	for (size_t i = h->lo; i <= h->hi; i++) {
		seen += h->n[i];
		if (seen >= rank) {
			uint64_t v = dl_hist_upper(i);

			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}
