/*
 * ratio.c: ratios of times, in fixed point and exactly.
 *
 * The tests that add ratios (total utilization, GFB's densities, Baker's
 * betas) compare a sum of non-negative fractions with a whole number of
 * CPUs, and the published tests accept a sum equal to the bound.  Doubles
 * decide a sum far from it, fixed point rounded both ways one within
 * their error, and the exact sum, a reduced fraction in 128 bits, the
 * rest: equality is equality, however the ratios round in binary.
 */
#include "analysis/analysis.h"

static uint64_t fp_div(dl_u128 num, dl_u128 den, bool up)
{
	dl_u128 q, r, frac = 0;

	if (den == 0)
		return UINT64_MAX;
	q = num / den;
	r = num % den;
	if (q >> (64 - DL_FP_SHIFT))
		return UINT64_MAX;
	if (r < ((dl_u128)1 << (127 - DL_FP_SHIFT))) {
		dl_u128 s = r << DL_FP_SHIFT;

		frac = s / den;
		if (up && s % den)
			frac++;
	} else {
		/* Long division, one bit at a time: r < den, so 2r fits. */
		for (int b = 0; b < DL_FP_SHIFT; b++) {
			frac <<= 1;
			if (r >= den - r) {
				r = r - (den - r);
				frac |= 1;
			} else {
				r <<= 1;
			}
		}
		if (up && r)
			frac++;
	}
	return (uint64_t)((q << DL_FP_SHIFT) + frac);
}

uint64_t dl_fp_ratio_up(dl_u128 num, dl_u128 den)
{
	return fp_div(num, den, true);
}

uint64_t dl_fp_ratio_down(dl_u128 num, dl_u128 den)
{
	return fp_div(num, den, false);
}

dl_u128 dl_an_gcd(dl_u128 a, dl_u128 b)
{
	while (b) {
		dl_u128 r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* num/den += a/b, reduced; false when a part would need more than 128
 * bits. */
static bool frac_add(dl_u128 *num, dl_u128 *den, dl_u128 a, dl_u128 b)
{
	dl_u128 g, x, y, nd;

	if (a == 0)
		return true;
	g = dl_an_gcd(a, b);
	a /= g;
	b /= g;
	g = dl_an_gcd(*den, b);
	if (__builtin_mul_overflow(*num, b / g, &x) || __builtin_mul_overflow(a, *den / g, &y) ||
	    __builtin_mul_overflow(*den / g, b, &nd) || __builtin_add_overflow(x, y, num))
		return false;
	*den = nd;
	g = dl_an_gcd(*num, *den);
	*num /= g;
	*den /= g;
	return true;
}

int dl_an_sum_cmp(dl_an_term_fn *term, const void *ctx, size_t n, uint64_t m)
{
	dl_u128 lo = 0, hi = 0, num = 0, den = 1, lim = (dl_u128)m << DL_FP_SHIFT, a, b;
	double u = 0;

	/* Doubles first: each term is within 2^-52 of the truth relative to
	 * the sum, and m < 2^20, so a sum more than 1e-9 per term away from
	 * m decides. */
	for (size_t i = 0; i < n; i++) {
		term(ctx, i, &a, &b);
		u += (double)a / (double)b;
	}
	if (u < (double)m - 1e-9 * (double)(n + 1))
		return -1;
	if (u > (double)m + 1e-9 * (double)(n + 1))
		return 1;
	/* A term too large for the fixed point saturates: it is above m on
	 * its own, and lo says so. */
	for (size_t i = 0; i < n; i++) {
		term(ctx, i, &a, &b);
		lo += dl_fp_ratio_down(a, b);
		hi += dl_fp_ratio_up(a, b);
	}
	if (hi < lim)
		return -1;
	if (lo > lim)
		return 1;
	for (size_t i = 0; i < n; i++) {
		term(ctx, i, &a, &b);
		if (!frac_add(&num, &den, a, b))
			return 2;
	}
	/* num/den against m without multiplying: the quotient, then the
	 * remainder. */
	if (num / den != m)
		return num / den < m ? -1 : 1;
	return num % den ? 1 : 0;
}
