/*
 * brute.c: schedulability by brute force (see brute.h).
 */
#include <stdint.h>

#include "brute.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

bool tl_brute_edf(const struct dl_an_task *ts, size_t n)
{
	uint64_t h = 1, dmax = 0, sum = 0;

	for (size_t i = 0; i < n; i++) {
		h = h / gcd(h, ts[i].t) * ts[i].t;
		dmax = ts[i].d > dmax ? ts[i].d : dmax;
	}
	for (size_t i = 0; i < n; i++)
		sum += ts[i].c * (h / ts[i].t);
	if (sum > h)
		return false;
	for (uint64_t t = 1; t <= h + dmax; t++) {
		uint64_t d = 0;

		for (size_t i = 0; i < n; i++)
			if (ts[i].d <= t)
				d += ((t - ts[i].d) / ts[i].t + 1) * ts[i].c;
		if (d > t)
			return false;
	}
	return true;
}

bool tl_brute_gedf_misses(const struct dl_an_task *ts, size_t n, int m)
{
	uint64_t h = 1, dmax = 0, rem[32] = { 0 }, dl[32] = { 0 };

	for (size_t i = 0; i < n; i++) {
		h = h / gcd(h, ts[i].t) * ts[i].t;
		dmax = ts[i].d > dmax ? ts[i].d : dmax;
	}
	if (h > 2000000)
		h = 2000000;
	for (uint64_t t = 0; t <= h + dmax; t++) {
		bool ran[32] = { false };

		for (size_t i = 0; i < n; i++) {
			if (rem[i] && dl[i] <= t)
				return true;
			if (t % ts[i].t == 0) {
				rem[i] = ts[i].c;
				dl[i] = t + ts[i].d;
			}
		}
		for (int c = 0; c < m; c++) {
			size_t best = n;

			for (size_t i = 0; i < n; i++)
				if (rem[i] && !ran[i] && (best == n || dl[i] < dl[best]))
					best = i;
			if (best == n)
				break;
			ran[best] = true;
			rem[best]--;
		}
	}
	return false;
}
