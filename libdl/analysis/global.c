/*
 * analysis-global.c: global EDF on m CPUs, sporadic tasks with
 * constrained deadlines.
 *
 * Each test below is only sufficient: a refusal means "not guaranteed".
 * A set is called infeasible only when no schedule at all meets its
 * deadlines: total utilization above m.  A deadline missed in a
 * simulation of the synchronous periodic arrival sequence (every job its
 * whole runtime, equal deadlines going to the lower index) shows one
 * global EDF schedule that misses, not an infeasible set: with the other
 * order at a tie, or partitioned, the same set may meet every deadline.
 * It stays "not guaranteed", with the miss as the evidence.
 *
 *   n <= m  every task has a CPU of its own whenever it is ready.
 *   GFB     Goossens, Funk, Baruah 2003, density form:
 *           sum C/D <= m - (m - 1) max C/D.
 *   BAK     Baker 2005: for every task k, with lambda = C_k/D_k,
 *           sum_i min(1, beta_i) <= m (1 - lambda) + lambda, where
 *           beta_i = U_i (1 + (T_i - D_i)/D_k)
 *                    + max(0, C_i - lambda T_i)/D_k.
 *   BCL     Bertogna, Cirinei, Lipari 2005: for every task k,
 *           sum_{i != k} min(W_i, D_k - C_k) < m (D_k - C_k), or equal
 *           with some 0 < W_i <= D_k - C_k, where W_i is task i's most
 *           work with deadlines inside a window of D_k.
 *   RTA     Bertogna, Cirinei 2007: R_k = C_k + floor(1/m sum_{i != k}
 *           min(W_i(R_k), J_i, R_k - C_k + 1)), with each task's slack
 *           D - R fed back into the others' interference until nothing
 *           changes; it bounds each task's response time.
 *
 * GFB and BAK add ratios: each sum is compared with its bound exactly
 * (dl_an_sum_cmp()), so a set on the bound is accepted, as the papers
 * have it; BCL and the RTA are exact integers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sys/sys.h"

/* Past these sizes the quadratic tests run only while nothing cheaper
 * accepted, and the simulation not at all. */
#define QUADRATIC_ALWAYS_MAX 1000
#define QUADRATIC_MAX 2000
#define RTA_MAX 300
#define SIM_TASKS_MAX 64
#define RTA_ROUNDS_MAX 64
#define RTA_STEPS_MAX 20000

DL_EXPORT const char *dl_test_name(int test)
{
	static const char *const names[DL_TEST_COUNT] = {
		"n<=m", "GFB", "BAK", "BCL", "RTA", "QPA", "exact",
	};

	return test >= 0 && test < DL_TEST_COUNT ? names[test] : "none";
}

/* GFB's sum: each density, then (m - 1) times the largest, task k's. */
struct gfb_sum {
	const struct dl_an_task *ts;
	size_t n, k;
	int m;
};

static void gfb_term(const void *ctx, size_t i, dl_u128 *num, dl_u128 *den)
{
	const struct gfb_sum *g = ctx;
	const struct dl_an_task *t = &g->ts[i < g->n ? i : g->k];

	*num = i < g->n ? (dl_u128)t->c : (dl_u128)(g->m - 1) * t->c;
	*den = t->d;
}

int dl_gfb(const struct dl_an_task *ts, size_t n, int m, int64_t *margin, ssize_t *limit)
{
	struct gfb_sum g = { .ts = ts, .n = n, .m = m };
	uint64_t sum = 0;
	int64_t fp;
	bool ok;

	*limit = -1;
	if (n == 0) {
		if (margin)
			*margin = (int64_t)((uint64_t)m * DL_FP_ONE);
		return 1;
	}
	/* The densest task, compared exactly: C_i D_k > C_k D_i. */
	for (size_t i = 1; i < n; i++)
		if ((dl_u128)ts[i].c * ts[g.k].d > (dl_u128)ts[g.k].c * ts[i].d)
			g.k = i;
	*limit = (ssize_t)g.k;
	/* sum C/D <= m - (m - 1) max C/D: the left side plus (m - 1) max
	 * C/D against m. */
	ok = dl_an_sum_cmp(gfb_term, &g, n + 1, (uint64_t)m) <= 0;
	if (!margin)
		return ok;
	/* The margin in fixed point, rounded against acceptance, yet
	 * negative exactly when GFB refuses. */
	for (size_t i = 0; i < n; i++)
		sum += dl_fp_ratio_up(ts[i].c, ts[i].d);
	fp = (int64_t)((uint64_t)m * DL_FP_ONE) -
	     (int64_t)((uint64_t)(m - 1) * dl_fp_ratio_up(ts[g.k].c, ts[g.k].d)) - (int64_t)sum;
	*margin = ok ? (fp > 0 ? fp : 0) : (fp < 0 ? fp : -1);
	return ok;
}

/* Baker's sum for task k: min(1, beta_i) for each task i, each beta_i in
 * its two parts, then (m - 1) lambda; against m, it is the paper's
 * sum min(1, beta_i) <= m (1 - lambda) + lambda. */
struct bak_sum {
	const struct dl_an_task *ts;
	size_t n, k, i;
	int m;
};

/* beta_i's parts, part 0: U_i (1 + (T_i - D_i)/D_k), and part 1:
 * max(0, C_i - lambda T_i)/D_k = max(0, C_i D_k - C_k T_i)/D_k^2. */
static void beta_part(const struct dl_an_task *ts, size_t i, size_t k, size_t part, dl_u128 *num,
		      dl_u128 *den)
{
	const struct dl_an_task *ti = &ts[i], *tk = &ts[k];
	dl_u128 a = (dl_u128)ti->c * tk->d, b = (dl_u128)tk->c * ti->t;

	if (part == 0) {
		*num = (dl_u128)ti->c * (tk->d + (ti->t - ti->d));
		*den = (dl_u128)ti->t * tk->d;
	} else {
		*num = b < a ? a - b : 0;
		*den = (dl_u128)tk->d * tk->d;
	}
}

static void beta_term(const void *ctx, size_t part, dl_u128 *num, dl_u128 *den)
{
	const struct bak_sum *s = ctx;

	beta_part(s->ts, s->i, s->k, part, num, den);
}

static void bak_term(const void *ctx, size_t j, dl_u128 *num, dl_u128 *den)
{
	const struct bak_sum *s = ctx;
	struct bak_sum one = *s;

	if (j == 2 * s->n) {
		*num = (dl_u128)(s->m - 1) * s->ts[s->k].c;
		*den = s->ts[s->k].d;
		return;
	}
	/* min(1, beta_i) is 1 when beta_i >= 1, and when that cannot be
	 * told: more than the truth, which can only refuse. */
	one.i = j / 2;
	if (dl_an_sum_cmp(beta_term, &one, 2, 1) >= 0) {
		*num = j % 2 ? 0 : 1;
		*den = 1;
		return;
	}
	beta_part(s->ts, one.i, s->k, j % 2, num, den);
}

int dl_bak(const struct dl_an_task *ts, size_t n, int m, ssize_t *limit)
{
	*limit = -1;
	for (size_t k = 0; k < n; k++) {
		struct bak_sum s = { .ts = ts, .n = n, .k = k, .m = m };
		double lk = (double)ts[k].c / (double)ts[k].d, sd = 0, eps = 1e-9 * (double)(n + 1);
		double bound = (double)m * (1.0 - lk) + lk;

		/* Doubles decide unless the sum is within eps of the bound,
		 * far above their error (each part's numerator is exact
		 * before it is rounded); then the exact sum. */
		for (size_t i = 0; i < n; i++) {
			dl_u128 a = (dl_u128)ts[i].c * ts[k].d, b = (dl_u128)ts[k].c * ts[i].t;
			double beta = (double)ts[i].c / (double)ts[i].t *
				      ((double)(ts[k].d + (ts[i].t - ts[i].d)) / (double)ts[k].d);

			/* lambda < U_i exactly: C_k T_i < C_i D_k. */
			if (b < a)
				beta += (double)(a - b) / ((double)ts[k].d * (double)ts[k].d);
			sd += beta < 1.0 ? beta : 1.0;
		}
		if (sd < bound - eps)
			continue;
		if (sd > bound + eps || dl_an_sum_cmp(bak_term, &s, 2 * n + 1, (uint64_t)m) > 0) {
			*limit = (ssize_t)k;
			return 0;
		}
	}
	return 1;
}

/* Task i's most work with deadlines inside a window of length dk. */
static uint64_t bcl_work(const struct dl_an_task *ti, uint64_t dk)
{
	uint64_t nj = ti->d > dk ? 0 : (dk - ti->d) / ti->t + 1;
	dl_u128 w = (dl_u128)nj * ti->c, span = (dl_u128)nj * ti->t;
	uint64_t rest = span < dk ? (uint64_t)(dk - span) : 0;

	w += rest < ti->c ? rest : ti->c;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

int dl_bcl(const struct dl_an_task *ts, size_t n, int m, ssize_t *limit)
{
	*limit = -1;
	for (size_t k = 0; k < n; k++) {
		uint64_t slack = ts[k].d - ts[k].c;
		dl_u128 sum = 0, cap = (dl_u128)m * slack;
		bool small = false;

		for (size_t i = 0; i < n; i++) {
			uint64_t w;

			if (i == k)
				continue;
			w = bcl_work(&ts[i], ts[k].d);
			sum += w < slack ? w : slack;
			small = small || (w > 0 && w <= slack);
		}
		if (!(sum < cap || (sum == cap && small))) {
			*limit = (ssize_t)k;
			return 0;
		}
	}
	return 1;
}

/* Interference bounds of the RTA for task i on task k. */
static uint64_t rta_work(const struct dl_an_task *ti, uint64_t resp_k, uint64_t slack_i)
{
	uint64_t l = resp_k + ti->d - ti->c - slack_i;
	dl_u128 w = (dl_u128)(l / ti->t) * ti->c;
	uint64_t rest = l % ti->t;

	w += rest < ti->c ? rest : ti->c;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

static uint64_t edf_work(const struct dl_an_task *ti, uint64_t dk, uint64_t slack_i)
{
	dl_u128 w = (dl_u128)(dk / ti->t) * ti->c;
	uint64_t rest = dk % ti->t;

	if (rest > slack_i)
		w += rest - slack_i < ti->c ? rest - slack_i : ti->c;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

/* Task k's response-time bound with the others' slack; 0 when it passes
 * its deadline. */
static uint64_t rta_one(const struct dl_an_task *ts, size_t n, int m, size_t k,
			const uint64_t *slack)
{
	uint64_t r = ts[k].c;

	for (int step = 0; step < RTA_STEPS_MAX; step++) {
		uint64_t cap = r - ts[k].c + 1, next;
		dl_u128 sum = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t a, b;

			if (i == k)
				continue;
			a = edf_work(&ts[i], ts[k].d, slack[i]);
			b = rta_work(&ts[i], r, slack[i]);
			a = a < b ? a : b;
			sum += a < cap ? a : cap;
		}
		sum /= (unsigned)m;
		if (sum > ts[k].d)
			return 0;
		next = ts[k].c + (uint64_t)sum;
		if (next > ts[k].d)
			return 0;
		if (next <= r)
			return r; /* f(r) <= r: r bounds the response (f is monotone) */
		/* Creeping up by nanoseconds: leap ahead by a 4096th of the
		 * deadline; the first r with f(r) <= r is still a bound. */
		if (next - r < (ts[k].d >> 12))
			next = r + (ts[k].d >> 12) < ts[k].d ? r + (ts[k].d >> 12) : ts[k].d;
		r = next;
	}
	return 0; /* too slow to converge: not bounded (a refusal, so safe) */
}

int dl_rta(const struct dl_an_task *ts, size_t n, int m, uint64_t *resp, ssize_t *limit)
{
	uint64_t *slack = calloc(n ? n : 1, sizeof(*slack));
	uint64_t *r = calloc(n ? n : 1, sizeof(*r));
	bool ok = false, changed = true;

	*limit = -1;
	if (!slack || !r) {
		free(slack);
		free(r);
		return 0;
	}
	for (int round = 0; round < RTA_ROUNDS_MAX && changed && !ok; round++) {
		ok = true;
		changed = false;
		for (size_t k = 0; k < n; k++) {
			r[k] = rta_one(ts, n, m, k, slack);
			if (r[k] == 0) {
				ok = false;
				*limit = (ssize_t)k;
				continue;
			}
			if (ts[k].d - r[k] != slack[k]) {
				slack[k] = ts[k].d - r[k];
				changed = true;
			}
		}
	}
	if (ok)
		*limit = -1;
	if (resp)
		memcpy(resp, r, n * sizeof(*r));
	free(slack);
	free(r);
	return ok;
}

/* Does any of the tests allowed by mask accept? */
bool dl_an_any_accepts(const struct dl_an_task *ts, size_t n, int m, unsigned mask)
{
	ssize_t lim;

	if ((mask & (1u << DL_TEST_NM)) && n <= (size_t)m)
		return true;
	if ((mask & (1u << DL_TEST_GFB)) && dl_gfb(ts, n, m, NULL, &lim))
		return true;
	if ((mask & (1u << DL_TEST_BAK)) && dl_bak(ts, n, m, &lim))
		return true;
	if ((mask & (1u << DL_TEST_BCL)) && dl_bcl(ts, n, m, &lim))
		return true;
	return (mask & (1u << DL_TEST_RTA)) && dl_rta(ts, n, m, NULL, &lim);
}

/* The largest alpha (DL_BW units) with the first n - nfixed runtimes x
 * alpha still accepted by a test of mask. */
uint64_t dl_an_global_scaling(const struct dl_an_task *ts, size_t n, size_t nfixed, int m,
			       unsigned mask)
{
	struct dl_an_task *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	uint64_t lo = 0, hi = DL_BW_UNIT;

	if (!tmp)
		return 0;
	for (int grow = 1; grow;) {
		uint64_t a = grow > 0 ? hi : lo + (hi - lo) / 2;
		bool ok = true;

		if (grow < 0 && hi - lo <= 256) /* within 1/4096 */
			break;
		memcpy(tmp, ts, n * sizeof(*tmp));
		for (size_t i = 0; i + nfixed < n && ok; i++) {
			dl_u128 c = ((dl_u128)ts[i].c * a + DL_BW_UNIT - 1) >> DL_BW_SHIFT;

			ok = c <= ts[i].d;
			tmp[i].c = c ? (uint64_t)c : 1;
		}
		ok = ok && dl_an_any_accepts(tmp, n, m, mask);
		if (grow > 0) {
			if (ok && hi < (UINT64_MAX >> 2)) {
				lo = hi;
				hi <<= 1;
			} else {
				grow = -1;
				if (ok)
					lo = hi;
			}
		} else if (ok) {
			lo = a;
		} else {
			hi = a;
		}
	}
	free(tmp);
	return lo;
}

DL_EXPORT int dl_global_test(const struct dl_params *tasks, size_t n, int ncpus,
			     const struct dl_params *server, struct dl_global_result **res)
{
	struct dl_global_result *r;
	struct dl_an_task *ts;
	size_t total, nfix;
	unsigned mask = 0;
	ssize_t lim;
	char u[DL_BW_STRLEN];
	int err;

	if (!res)
		return dl_fail(-EINVAL, "dl_global_test: no result pointer given");
	*res = NULL;
	if (ncpus < 1 || ncpus > DL_CPUS_MAX)
		return dl_fail(-EINVAL, "%d CPUs: the analysis needs 1 to %d", ncpus, DL_CPUS_MAX);
	err = dl_an_tasks(tasks, n, server, ncpus, &ts, &total);
	if (err)
		return err;
	nfix = total - n;
	r = calloc(1, sizeof(*r) + (total ? total : 1) * sizeof(uint64_t));
	if (!r) {
		free(ts);
		return dl_fail(-ENOMEM, "out of memory");
	}
	r->response = (uint64_t *)(r + 1);
	r->ntasks = n;
	r->ncpus = ncpus;
	r->accepted_by = -1;
	r->limiting = -1;
	for (int i = 0; i < 8; i++)
		r->result[i] = -1;
	r->util = (dl_an_util_up(ts, total) + (1ULL << (DL_FP_SHIFT - DL_BW_SHIFT)) - 1) >>
		  (DL_FP_SHIFT - DL_BW_SHIFT);
	dl_bw_format((int64_t)r->util, u, sizeof(u));
	if (dl_an_util_cmp(ts, total, (uint64_t)ncpus) == 1) {
		r->verdict = DL_INFEASIBLE;
		snprintf(r->why, sizeof(r->why),
			 "infeasible: the tasks%s need %s CPUs, more than the %d there are",
			 nfix ? " and fair servers" : "", u, ncpus);
		r->scaling = dl_an_global_scaling(ts, total, nfix, ncpus, total <= 200 ? 0x1f : 1u << DL_TEST_GFB);
		goto done;
	}
	r->result[DL_TEST_NM] = total <= (size_t)ncpus;
	r->result[DL_TEST_GFB] = dl_gfb(ts, total, ncpus, &r->margin, &lim);
	r->margin >>= DL_FP_SHIFT - DL_BW_SHIFT;
	r->limiting = lim;
	if ((!r->result[DL_TEST_GFB] && total <= QUADRATIC_MAX) || total <= QUADRATIC_ALWAYS_MAX) {
		r->result[DL_TEST_BAK] = dl_bak(ts, total, ncpus, &lim);
		r->result[DL_TEST_BCL] = dl_bcl(ts, total, ncpus, &lim);
		if (total <= RTA_MAX) {
			r->result[DL_TEST_RTA] = dl_rta(ts, total, ncpus, r->response, &lim);
			if (!r->result[DL_TEST_RTA] && lim >= 0)
				r->limiting = lim;
			if (!r->result[DL_TEST_RTA])
				memset(r->response, 0, n * sizeof(uint64_t));
		}
	}
	for (int t = DL_TEST_NM; t <= DL_TEST_RTA; t++)
		if (r->result[t] == 1) {
			r->accepted_by = t;
			break;
		}
	if (r->accepted_by >= 0) {
		r->verdict = DL_SCHEDULABLE;
		snprintf(r->why, sizeof(r->why), "schedulable on %d CPUs under global EDF: %s accepts (utilization %s)",
			 ncpus, dl_test_name(r->accepted_by), u);
		mask = total <= 200 ? 0x1f : 1u << r->accepted_by;
	} else {
		ssize_t who = -1;
		uint64_t when = 0;

		r->verdict = DL_NOT_GUARANTEED;
		snprintf(r->why, sizeof(r->why), "not guaranteed on %d CPUs under global EDF: no sufficient test accepts (utilization %s)",
			 ncpus, u);
		if (total <= SIM_TASKS_MAX && dl_gedf_sim(ts, total, ncpus, &who, &when) && who < (ssize_t)n) {
			char at[DL_TIME_STRLEN];

			r->limiting = who;
			r->miss_at = when;
			snprintf(r->why, sizeof(r->why),
				 "not guaranteed on %d CPUs under global EDF: no sufficient test accepts, and with all tasks released together and equal deadlines in task order, task %zd misses its deadline at %s",
				 ncpus, who, dl_time_format(when, at, sizeof(at)));
		}
		mask = total <= 200 ? 0x1f : 1u << DL_TEST_GFB;
	}
	if (r->limiting >= (ssize_t)n)
		r->limiting = -1;
	r->scaling = dl_an_global_scaling(ts, total, nfix, ncpus, mask);
done:
	free(ts);
	*res = r;
	return 0;
}
