/*
 * brute.c: schedulability by brute force (see brute.h).
 */
#include <stdint.h>
#include <stdlib.h>

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

/* A state: per task its work left and its age (time since its last
 * release, at most T: "may release"), in mixed radix. */
struct walk {
	const struct dl_an_task *ts;
	size_t n;
	int m;
	bool any_tie;
	uint64_t radix[8];
};

static uint64_t encode(const struct walk *w, const int *rem, const int *age)
{
	uint64_t code = 0;

	for (size_t i = w->n; i-- > 0;)
		code = code * w->radix[i] + (uint64_t)rem[i] * (w->ts[i].t + 1) + (uint64_t)age[i];
	return code;
}

static void decode(const struct walk *w, uint64_t code, int *rem, int *age)
{
	for (size_t i = 0; i < w->n; i++) {
		uint64_t x = code % w->radix[i];

		code /= w->radix[i];
		rem[i] = (int)(x / (w->ts[i].t + 1));
		age[i] = (int)(x % (w->ts[i].t + 1));
	}
}

int tl_brute_gedf_exact(const struct dl_an_task *ts, size_t n, int m, bool any_tie)
{
	struct walk w = { .ts = ts, .n = n, .m = m, .any_tie = any_tie };
	uint64_t states = 1, *stack, sp = 0, cap = 1 << 16;
	uint8_t *seen;
	int rem[8], age[8], missed = 0;

	if (n > 6)
		return -1;
	for (size_t i = 0; i < n; i++) {
		w.radix[i] = (ts[i].c + 1) * (ts[i].t + 1);
		states *= w.radix[i];
		if (states >= (1u << 27))
			return -1;
	}
	seen = calloc(states / 8 + 1, 1);
	stack = malloc(cap * sizeof(*stack));
	for (size_t i = 0; i < n; i++) {
		rem[i] = 0;
		age[i] = (int)ts[i].t;
	}
	stack[sp++] = encode(&w, rem, age);
	seen[stack[0] / 8] |= (uint8_t)(1 << (stack[0] % 8));
	while (sp && !missed) {
		uint64_t code = stack[--sp];
		unsigned may = 0;

		decode(&w, code, rem, age);
		for (size_t i = 0; i < n; i++)
			if (!rem[i] && age[i] == (int)ts[i].t)
				may |= 1u << i;
		for (unsigned rel = 0; rel < (1u << n) && !missed; rel++) {
			int r2[8], a2[8], dl[8];
			unsigned ready = 0;
			int nready = 0;

			if (rel & ~may)
				continue;
			for (size_t i = 0; i < n; i++) {
				r2[i] = rel >> i & 1 ? (int)ts[i].c : rem[i];
				a2[i] = rel >> i & 1 ? 0 : age[i];
				dl[i] = (int)ts[i].d - a2[i];
				if (r2[i]) {
					ready |= 1u << i;
					nready++;
				}
			}
			/* Every set of min(m, ready) ready jobs that EDF may run:
			 * none left out has an earlier deadline than one chosen;
			 * without any_tie, only the one the lower index wins. */
			int k = nready < m ? nready : m;
			bool first = true;

			for (unsigned run = 0; run < (1u << n) && !missed; run++) {
				bool ok = (run & ~ready) == 0 && __builtin_popcount(run) == k;

				for (size_t i = 0; ok && i < n; i++)
					for (size_t j = 0; ok && j < n; j++)
						if ((run >> i & 1) && (ready >> j & 1) && !(run >> j & 1))
							ok = dl[i] < dl[j] ||
							     (dl[i] == dl[j] && (any_tie || i < j));
				if (!ok)
					continue;
				if (!any_tie && !first)
					break;
				first = false;
				int r3[8], a3[8];

				for (size_t i = 0; i < n; i++) {
					r3[i] = r2[i] - (int)(run >> i & 1);
					a3[i] = a2[i] + 1 > (int)ts[i].t ? (int)ts[i].t : a2[i] + 1;
					if (r3[i] && a3[i] >= (int)ts[i].d)
						missed = 1;
				}
				uint64_t next = encode(&w, r3, a3);

				if (!(seen[next / 8] >> (next % 8) & 1)) {
					seen[next / 8] |= (uint8_t)(1 << (next % 8));
					if (sp == cap)
						stack = realloc(stack, (cap *= 2) * sizeof(*stack));
					stack[sp++] = next;
				}
			}
		}
	}
	free(seen);
	free(stack);
	return missed;
}

int64_t tl_brute_replay(const struct dl_an_task *ts, size_t n, int m, const size_t *task, const uint64_t *at,
			size_t narr, const uint64_t *ahead, size_t nahead, uint64_t horizon, size_t *who)
{
	uint64_t rem[32] = { 0 }, dl[32] = { 0 };
	size_t k = 0;

	for (uint64_t t = 0; t <= horizon; t++) {
		bool ran[32] = { false };
		uint64_t pref = t < nahead ? ahead[t] : 0;

		for (size_t i = 0; i < n; i++)
			if (rem[i] && dl[i] <= t) {
				*who = i;
				return (int64_t)t;
			}
		for (; k < narr && at[k] == t; k++) {
			rem[task[k]] = ts[task[k]].c;
			dl[task[k]] = t + ts[task[k]].d;
		}
		for (int c = 0; c < m; c++) {
			size_t best = n;

			for (size_t i = 0; i < n; i++) {
				if (!rem[i] || ran[i])
					continue;
				if (best == n || dl[i] < dl[best] ||
				    (dl[i] == dl[best] && (pref >> i & 1) && !(pref >> best & 1)))
					best = i;
			}
			if (best == n)
				break;
			ran[best] = true;
			rem[best]--;
		}
	}
	return -1;
}
