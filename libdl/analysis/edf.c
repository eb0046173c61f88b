/*
 * analysis-edf.c: EDF on one CPU, exactly, and the kernel's admission.
 *
 * The processor demand criterion (Baruah, Rosier, Howell 1990): a set of
 * sporadic tasks with constrained deadlines meets every deadline under
 * EDF on one CPU iff U <= 1 and h(t) <= t at every absolute deadline t of
 * the synchronous arrival sequence, where h(t) = sum over tasks with
 * D <= t of (floor((t - D)/T) + 1) C.  Only deadlines up to
 * L = min(busy period, La*) need checking (Zhang and Burns 2009, La* =
 * max(D - T, sum (T - D) U / (1 - U))), and QPA walks them backwards,
 * jumping from t to h(t) when h(t) < t.  Everything here is integer
 * nanoseconds; only the bound La* is computed in fixed point, rounded up
 * (checking more deadlines is always safe).
 *
 * The fair server (kernel 6.12+: 50 ms every 1 s on each CPU) is a
 * SCHED_DEADLINE entity like any task on its CPU: the caller passes it,
 * and it is checked as one more task with D = T.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sys/sys.h"

uint64_t dl_an_demand(const struct dl_an_task *ts, size_t n, uint64_t t)
{
	dl_u128 h = 0;

	for (size_t i = 0; i < n; i++)
		if (ts[i].d <= t)
			h += (dl_u128)((t - ts[i].d) / ts[i].t + 1) * ts[i].c;
	return h > UINT64_MAX ? UINT64_MAX : (uint64_t)h;
}

uint64_t dl_an_util_up(const struct dl_an_task *ts, size_t n)
{
	uint64_t u = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = dl_fp_ratio_up(ts[i].c, ts[i].t);

		u = u + x < u ? UINT64_MAX : u + x;
	}
	return u;
}

static void util_term(const void *ctx, size_t i, dl_u128 *num, dl_u128 *den)
{
	const struct dl_an_task *ts = ctx;

	*num = ts[i].c;
	*den = ts[i].t;
}

int dl_an_util_cmp(const struct dl_an_task *ts, size_t n, uint64_t m)
{
	return dl_an_sum_cmp(util_term, ts, n, m);
}

/* The latest absolute deadline <= t (0: none), and the task due then. */
static uint64_t deadline_at_or_before(const struct dl_an_task *ts, size_t n, uint64_t t,
				      ssize_t *who)
{
	uint64_t best = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t d;

		if (ts[i].d > t)
			continue;
		d = (t - ts[i].d) / ts[i].t * ts[i].t + ts[i].d;
		if (d > best || (d == best && who && *who >= 0 && ts[i].d > ts[*who].d)) {
			best = d;
			if (who)
				*who = (ssize_t)i;
		}
	}
	return best;
}

/* The synchronous busy period, iterated from sum C; UINT64_MAX past limit
 * or when it converges slowly. */
static uint64_t busy_period(const struct dl_an_task *ts, size_t n, uint64_t limit, int rounds)
{
	dl_u128 w = 0, next;

	for (size_t i = 0; i < n; i++)
		w += ts[i].c;
	/* Each round is O(n) and small runtimes make it creep: past the
	 * rounds given La* alone bounds the check (it is a valid bound too). */
	for (int round = 0;; round++) {
		if (w > limit || round >= rounds)
			return UINT64_MAX;
		next = 0;
		for (size_t i = 0; i < n; i++)
			next += (dl_u128)((w + ts[i].t - 1) / ts[i].t) * ts[i].c;
		if (next == w)
			return (uint64_t)w;
		w = next;
	}
}

/* Zhang and Burns' La*, rounded up; UINT64_MAX when U is not below 1. */
static uint64_t la_star(const struct dl_an_task *ts, size_t n)
{
	double ud = 0, nd = 0;
	uint64_t u;
	dl_u128 num = 0;

	/* In doubles while 1 - U is not tiny: their error is far below the
	 * 1e-6 added, so the bound stays an upper bound. */
	for (size_t i = 0; i < n; i++) {
		double ui = (double)ts[i].c / (double)ts[i].t;

		ud += ui;
		nd += ui * (double)(ts[i].t - ts[i].d);
	}
	if (ud < 1.0 - 1e-6) {
		double la = nd / (1.0 - ud) * (1.0 + 1e-6) + 1.0;

		return la >= 9.2e18 ? UINT64_MAX : (uint64_t)la + 1;
	}
	u = dl_an_util_up(ts, n);

	if (u >= DL_FP_ONE)
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		dl_u128 x = (dl_u128)(ts[i].t - ts[i].d) * ts[i].c;
		uint64_t whole = (uint64_t)(x / ts[i].t);

		num += ((dl_u128)whole << DL_FP_SHIFT) + dl_fp_ratio_up(x % ts[i].t, ts[i].t);
	}
	num = (num + (DL_FP_ONE - u) - 1) / (DL_FP_ONE - u);
	return num > UINT64_MAX ? UINT64_MAX : (uint64_t)num;
}

/* A sufficient test: each demand bound below its linear upper bound
 * C + U (t - D) (t >= D); t minus their sum grows between the relative
 * deadlines (U < 1), so checking at each D is enough.  In doubles with
 * a margin far above their error; a refusal here only means "run QPA".
 * Needs U < 1. */
static bool approx_demand_ok(const struct dl_an_task *ts, size_t n)
{
	if (n > 256)
		return false;
	for (size_t k = 0; k < n; k++) {
		double dk = (double)ts[k].d, sum = 0;

		for (size_t i = 0; i < n; i++)
			if (ts[i].d <= ts[k].d)
				sum += (double)ts[i].c + (double)ts[i].c * (double)(ts[k].d - ts[i].d) / (double)ts[i].t;
		if (sum > dk * (1.0 - 1e-9 * (double)(n + 1)))
			return false;
	}
	return true;
}

int dl_qpa(const struct dl_an_task *ts, size_t n, struct dl_qpa_out *o)
{
	return dl_qpa_limited(ts, n, o, UINT64_MAX);
}

int dl_qpa_limited(const struct dl_an_task *ts, size_t n, struct dl_qpa_out *o, uint64_t max_steps)
{
	uint64_t dmin = UINT64_MAX, l, t, h;
	int ucmp;

	memset(o, 0, sizeof(*o));
	o->limiting = -1;
	o->verdict = DL_SCHEDULABLE;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (ts[i].d < dmin)
			dmin = ts[i].d;
	ucmp = dl_an_util_cmp(ts, n, 1);
	if (ucmp == 1) {
		/* U > 1: h(t) >= U t - sum D U, so the demand passes t by
		 * t0 = sum D U / (U - 1) at the latest; QPA from there finds a
		 * deadline to show. */
		dl_u128 num = 0;
		uint64_t u = 0, t0;

		for (size_t i = 0; i < n; i++) {
			u += dl_fp_ratio_down(ts[i].c, ts[i].t);
			num += dl_fp_ratio_up((dl_u128)ts[i].d * ts[i].c, ts[i].t);
		}
		o->verdict = DL_INFEASIBLE;
		num = u > DL_FP_ONE ? num / (u - DL_FP_ONE) + 1 : UINT64_MAX;
		t0 = num > UINT64_MAX ? UINT64_MAX : (uint64_t)num;
		l = t0 < (1ULL << 62) ? t0 + 1 : (1ULL << 62);
		/* The earliest such deadline is the useful one: walk forward
		 * a while before falling back on QPA's from t0. */
		for (uint64_t t1 = dmin, k = 0; k < 10000000 / n && t1 < l; k++) {
			uint64_t next = UINT64_MAX;

			o->steps++;
			h = dl_an_demand(ts, n, t1);
			if (h > t1) {
				o->fail_t = deadline_at_or_before(ts, n, t1, &o->limiting);
				o->fail_demand = h;
				o->bound = l;
				return 0;
			}
			for (size_t i = 0; i < n; i++) {
				uint64_t d = t1 < ts[i].d ? ts[i].d : ((t1 - ts[i].d) / ts[i].t + 1) * ts[i].t + ts[i].d;

				next = d < next ? d : next;
			}
			t1 = next;
		}
	} else {
		double dens = 0;

		/* Shortcuts: density at most 1 (with room for the doubles'
		 * error) passes; a demand above the first deadlines fails. */
		for (size_t i = 0; i < n; i++)
			dens += (double)ts[i].c / (double)ts[i].d;
		if (ucmp < 0 && dens <= 1.0 - 1e-9 * (double)(n + 1))
			return 0;
		if (ucmp < 0 && approx_demand_ok(ts, n))
			return 0;
		for (size_t i = 0; n <= 64 && i < n; i++) {
			o->steps++;
			h = dl_an_demand(ts, n, ts[i].d);
			if (h > ts[i].d) {
				o->verdict = DL_INFEASIBLE;
				o->fail_t = deadline_at_or_before(ts, n, ts[i].d, &o->limiting);
				o->fail_demand = h;
				return 0;
			}
		}
		l = la_star(ts, n);
		/* With U = 1 there is no La*: the busy period must do. */
		l = l == UINT64_MAX ? busy_period(ts, n, 1ULL << 62, 10000000) : busy_period(ts, n, l, 64);
		if (l == UINT64_MAX) {
			l = la_star(ts, n);
			if (l == UINT64_MAX) {
				o->verdict = DL_NOT_GUARANTEED;
				return 0;
			}
		}
	}
	o->bound = l;
	t = deadline_at_or_before(ts, n, l, NULL);
	if (t == 0)
		return 0;
	for (;;) {
		if (++o->steps > max_steps) {
			o->verdict = DL_NOT_GUARANTEED;
			return 0;
		}
		h = dl_an_demand(ts, n, t);
		if (h > t) {
			ssize_t who = -1;

			o->verdict = DL_INFEASIBLE;
			o->fail_t = deadline_at_or_before(ts, n, t, &who);
			o->fail_demand = h;
			o->limiting = who;
			return 0;
		}
		if (h <= dmin)
			return 0;
		if (h < t)
			t = h;
		else
			t = deadline_at_or_before(ts, n, t - 1, NULL);
		if (t == 0)
			return 0;
	}
}

/* Near the critical factor the interval to check grows without bound:
 * the search gives up on a factor after this many QPA steps and takes it
 * as failing, so the factor found is a lower bound (exact in practice). */
#define SCALING_STEPS 500
/* ...and it stops within 1/4096 of it (DL_BW units). */
#define SCALING_PRECISION 256

/* Runtimes times alpha (DL_BW units), rounded up; false when one would
 * pass its deadline. */
static bool scale_tasks(const struct dl_an_task *ts, size_t n, uint64_t alpha,
			struct dl_an_task *out)
{
	for (size_t i = 0; i < n; i++) {
		dl_u128 c = ((dl_u128)ts[i].c * alpha + DL_BW_UNIT - 1) >> DL_BW_SHIFT;

		out[i] = ts[i];
		if (c > ts[i].d)
			return false;
		out[i].c = c ? (uint64_t)c : 1;
	}
	return true;
}

/* The largest alpha (DL_BW units) with tasks x alpha (the last nfixed
 * entries unscaled) still passing QPA, and the task that fails first
 * beyond it. */
uint64_t dl_an_edf_scaling(const struct dl_an_task *ts, size_t n, size_t nfixed,
			    ssize_t *limiting)
{
	struct dl_an_task *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	uint64_t lo = 0, hi = DL_BW_UNIT;
	struct dl_qpa_out o;

	if (!tmp)
		return 0;
	/* Grow hi until it fails (a task past its deadline at the latest). */
	for (;;) {
		memcpy(tmp, ts, n * sizeof(*tmp));
		if (!scale_tasks(ts, n - nfixed, hi, tmp))
			break;
		dl_qpa_limited(tmp, n, &o, SCALING_STEPS);
		if (o.verdict != DL_SCHEDULABLE)
			break;
		lo = hi;
		if (hi > (UINT64_MAX >> 2))
			break;
		hi <<= 1;
	}
	while (hi - lo > SCALING_PRECISION) {
		uint64_t mid = lo + (hi - lo) / 2;

		memcpy(tmp, ts, n * sizeof(*tmp));
		if (scale_tasks(ts, n - nfixed, mid, tmp) && (dl_qpa_limited(tmp, n, &o, SCALING_STEPS), o.verdict == DL_SCHEDULABLE))
			lo = mid;
		else
			hi = mid;
	}
	if (limiting) {
		memcpy(tmp, ts, n * sizeof(*tmp));
		*limiting = -1;
		if (!scale_tasks(ts, n - nfixed, hi, tmp)) {
			for (size_t i = 0; i < n - nfixed; i++)
				if (tmp[i].c == 0 || (((dl_u128)ts[i].c * hi + DL_BW_UNIT - 1) >> DL_BW_SHIFT) > ts[i].d)
					*limiting = (ssize_t)i;
		} else {
			dl_qpa_limited(tmp, n, &o, SCALING_STEPS);
			*limiting = o.limiting;
		}
		if (*limiting >= (ssize_t)(n - nfixed))
			*limiting = -1;
	}
	free(tmp);
	return lo;
}

uint64_t dl_an_edf_scaling_bound(const struct dl_an_task *ts, size_t n, size_t nfixed)
{
	double best = 1e18;

	/* alpha x (each scaled task's C + U (t - D)) + the fixed ones' must
	 * stay below t at every relative deadline, and alpha U + U_fixed
	 * below 1: the linear demand bound, solved for alpha. */
	for (size_t k = 0; k <= n; k++) {
		double lim = k < n ? (double)ts[k].d : 1.0, var = 0, fix = 0;

		for (size_t i = 0; i < n; i++) {
			double x;

			if (k < n && ts[i].d > ts[k].d)
				continue;
			x = k < n ? (double)ts[i].c + (double)ts[i].c * (double)(ts[k].d - ts[i].d) / (double)ts[i].t
				  : (double)ts[i].c / (double)ts[i].t;
			if (i < n - nfixed)
				var += x;
			else
				fix += x;
		}
		if (var > 0 && (lim - fix) / var < best)
			best = (lim - fix) / var;
	}
	for (size_t i = 0; i < n - nfixed; i++)
		if ((double)ts[i].d / (double)ts[i].c < best)
			best = (double)ts[i].d / (double)ts[i].c;
	best *= 1.0 - 1e-9 * (double)(n + 1);
	return best <= 0 ? 0 : best >= 1e12 ? UINT64_MAX : (uint64_t)(best * (double)DL_BW_UNIT);
}

DL_EXPORT int dl_edf_test(const struct dl_params *tasks, size_t n, const struct dl_params *server,
			  struct dl_edf_result **res)
{
	struct dl_edf_result *r;
	struct dl_an_task *ts;
	struct dl_qpa_out o;
	size_t total;
	int err;

	if (!res)
		return dl_fail(-EINVAL, "dl_edf_test: no result pointer given");
	*res = NULL;
	err = dl_an_tasks(tasks, n, server, 1, &ts, &total);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(ts);
		return dl_fail(-ENOMEM, "out of memory");
	}
	dl_qpa(ts, total, &o);
	r->verdict = o.verdict;
	r->util = (dl_an_util_up(ts, total) + (1ULL << (DL_FP_SHIFT - DL_BW_SHIFT)) - 1) >>
		  (DL_FP_SHIFT - DL_BW_SHIFT);
	r->bound = o.bound;
	r->fail_t = o.fail_t;
	r->fail_demand = o.fail_demand;
	r->steps = o.steps;
	r->limiting = o.limiting < (ssize_t)n ? o.limiting : -1;
	if (o.verdict == DL_SCHEDULABLE)
		r->scaling = dl_an_edf_scaling(ts, total, total - n, &r->limiting);
	else
		r->scaling = dl_an_edf_scaling(ts, total, total - n, NULL);
	free(ts);
	*res = r;
	return 0;
}
