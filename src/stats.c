// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Statistics for comparing repeated runs (see stats.h).
 *
 * Student's t tail comes from the regularized incomplete beta function,
 *   P(|T| >= t) = I_x(df/2, 1/2),  x = df / (df + t^2),
 * evaluated with its continued fraction (modified Lentz) and the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) on the side where the fraction converges
 * slowly.  x and 1 - x are carried as logarithms of t^2/df so that neither
 * tiny nor huge t loses precision or overflows.
 */
#include "stats.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

void summarize(const double *x, size_t n, struct sample_summary *out)
{
	double mean = 0, ss = 0, dev = 0;

	out->n = n;
	out->mean = 0;
	out->stddev = 0;
	if (n == 0)
		return;
	/* Two passes: a running mean (no overflow of a plain sum) ... */
	for (size_t i = 0; i < n; i++)
		mean += (x[i] - mean) / (double)(i + 1);
	out->mean = mean;
	if (n < 2)
		return;
	/* ... then squared deviations, corrected by the residual of the mean. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		ss += d * d;
		dev += d;
	}
	ss -= dev * dev / (double)n;
	out->stddev = ss > 0 ? sqrt(ss / (double)(n - 1)) : 0;
}

/* ---- Student's t ---------------------------------------------------------- */

/* log(1 + e^z) without overflow or loss for large |z|. */
static double softplus(double z)
{
	return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* ln Gamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2), Stirling's series, x >= 10. */
static double stirling_tail(double x)
{
	double z = 1 / (x * x);

	return (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z / 1680))) / x;
}

/*
 * ln B(a, b).  When the larger argument is big, ln Gamma(big) and
 * ln Gamma(big + small) are huge and nearly equal: take their difference
 * from Stirling's series instead of subtracting them.  Accurate when the
 * smaller argument is moderate (here it is always 1/2).
 */
static double log_beta(double a, double b)
{
	double big = a > b ? a : b, small = a > b ? b : a;

	if (big < 10)
		return lgamma(a) + lgamma(b) - lgamma(a + b);
	return lgamma(small) - (big - 0.5) * log1p(small / big) -
	       small * log(big + small) + small +
	       stirling_tail(big) - stirling_tail(big + small);
}

/*
 * The continued fraction I_x(a, b) = front / (1 + d1/(1 + d2/(1 + ...))),
 *   d(2m+1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),
 *   d(2m)   = m (b - m) x / ((a + 2m - 1)(a + 2m)),
 * returns the denominator 1 + d1/(1 + ...), evaluated front to back with
 * Lentz's method (ratios of successive convergents, zeros nudged away).
 */
static double beta_fraction(double a, double b, double x)
{
	const double nudge = 1e-300;
	double f = 1, c = 1, d = 0;

	for (int k = 1; k <= 100000; k++) {
		double m = (double)(k / 2), coef, step;

		if (k % 2)
			coef = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		else
			coef = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + coef * d;
		c = 1 + coef / c;
		if (fabs(d) < nudge)
			d = nudge;
		if (fabs(c) < nudge)
			c = nudge;
		d = 1 / d;
		step = c * d;
		f *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return f;
}

/*
 * I_x(a, b) with ln x and ln(1 - x) given (x = e^lx, 1 - x = e^ly), from
 * the continued fraction directly when x < (a + 1)/(a + b + 2), where it
 * converges fast, and through the symmetry otherwise.
 */
static double reg_inc_beta(double a, double b, double lx, double ly)
{
	double x = exp(lx), y = exp(ly), front, v;
	bool swap = x >= (a + 1) / (a + b + 2);

	if (swap) {
		double t = a;

		a = b;
		b = t;
		t = x;
		x = y;
		y = t;
		t = lx;
		lx = ly;
		ly = t;
	}
	front = exp(a * lx + b * ly - log_beta(a, b)) / a;
	v = front / beta_fraction(a, b, x);
	if (swap)
		v = 1 - v;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/*
 * From here on the continued fraction loses about df * DBL_EPSILON (x is
 * within t^2/df of 1 and its first terms cancel), while the asymptotic
 * normalization below is already good to ~1e-14 at df = 1e3.
 */
#define LARGE_DF 1e5

/*
 * Hill's normalizing transformation (G. W. Hill, "Algorithm 395: Student's
 * t-distribution", CACM 13(10), 1970): with a = df - 1/2, b = 48 a^2 and
 * y = a ln(1 + t^2/df), z = sqrt(y) (1 + (y + 3 + c(y)) / b),
 * c(y) = -(0.4 y^3 + 3.3 y^2 + 24 y + 85.5) / (0.8 y^2 + 100 + b), is
 * standard normal: checked against 40-digit references to ~1e-14 for
 * df >= 1e3.  ln(1 + t^2/df) = softplus(lr) never overflows, and b = inf
 * for absurd df only drops the corrections.
 */
static double t_tail_large_df(double lr, double df)
{
	double a = df - 0.5, b = 48 * a * a, y = a * softplus(lr), c, z;

	c = -(((0.4 * y + 3.3) * y + 24) * y + 85.5) / (0.8 * y * y + 100 + b);
	z = sqrt(y) * (1 + (y + 3 + c) / b);
	return erfc(z / sqrt(2.0));
}

/* Outside the domain (NaN, df <= 0) the answer is NaN, never a plausible p. */
double student_t_p_two_sided(double t, double df)
{
	double lr;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	t = fabs(t);
	if (t == 0)
		return 1;
	if (isinf(t))
		return 0;
	if (isinf(df))
		return erfc(t / sqrt(2.0));
	/*
	 * x = df/(df + t^2) = 1/(1 + r), 1 - x = r/(1 + r), r = t^2/df:
	 * ln x = -softplus(ln r), ln(1 - x) = -softplus(-ln r).
	 */
	lr = 2 * log(t) - log(df);
	if (df >= LARGE_DF)
		return t_tail_large_df(lr, df);
	return reg_inc_beta(df / 2, 0.5, -softplus(lr), -softplus(-lr));
}

/*
 * Bisection on the two-sided tail, which falls from 1 at t = 0 to 0: find
 * an upper bound by doubling, then halve until the bracket is as narrow
 * as doubles allow.  Slow-ish (about 60 tail evaluations) but cannot
 * diverge, and it is called a handful of times per comparison.
 */
double student_t_quantile_two_sided(double p, double df)
{
	double lo = 0, hi = 1;

	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 1)
		return 0;
	if (p == 0)
		return INFINITY;
	while (student_t_p_two_sided(hi, df) > p) {
		lo = hi;
		hi *= 2;
		if (isinf(hi))
			return INFINITY; /* beyond DBL_MAX (df far below 1) */
	}
	for (int i = 0; i < 2200; i++) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (student_t_p_two_sided(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

/* ---- Welch's t-test --------------------------------------------------------- */

struct percent_change welch_percent(const struct welch *w, double base)
{
	return (struct percent_change){
		.pct = 100 * w->diff / base, .lo = 100 * w->ci_lo / base, .hi = 100 * w->ci_hi / base,
	};
}

void welch_test(const struct sample_summary *a, const struct sample_summary *b,
		struct welch *out)
{
	double ea, eb, se, ua, ub, tq;

	out->valid = false;
	out->diff = b->mean - a->mean;
	out->t = 0;
	out->df = 0;
	out->p = 1;
	out->ci_lo = out->ci_hi = out->diff;
	if (a->n < 2 || b->n < 2)
		return;
	out->valid = true;

	/* Standard errors of each mean; hypot() keeps se from underflowing. */
	ea = fabs(a->stddev) / sqrt((double)a->n);
	eb = fabs(b->stddev) / sqrt((double)b->n);
	se = hypot(ea, eb);
	if (se == 0) {
		/* Both exact: the difference is certain (or certainly zero). */
		out->df = (double)(a->n + b->n - 2);
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		out->p = out->diff == 0 ? 1 : 0;
		return;
	}
	/*
	 * Welch-Satterthwaite, with each variance of the mean as a share of
	 * their sum so nothing is squared into underflow:
	 *   df = (va + vb)^2 / (va^2/(na-1) + vb^2/(nb-1)) = 1/(ua^4/(na-1) + ub^4/(nb-1)).
	 */
	ua = ea / se;
	ub = eb / se;
	ua *= ua;
	ub *= ub;
	out->df = 1 / (ua * ua / (double)(a->n - 1) + ub * ub / (double)(b->n - 1));
	out->t = out->diff / se;
	out->p = student_t_p_two_sided(out->t, out->df);
	tq = student_t_quantile_two_sided(0.05, out->df);
	out->ci_lo = out->diff - tq * se;
	out->ci_hi = out->diff + tq * se;
}

/* ---- Mann-Whitney U ---------------------------------------------------------- */

const char *const mw_method_names[3] = { "none", "exact", "normal" };
const char *const stats_test_names[STATS_TESTS] = { "welch", "mann-whitney" };
const char *const stats_test_titles[STATS_TESTS] = { "Welch's t-test", "Mann-Whitney U test" };
const char *const stats_test_ids[STATS_TESTS] = { "welch-t", "mann-whitney-u" };

int stats_test_parse(const char *name)
{
	for (int i = 0; i < STATS_TESTS; i++)
		if (!strcmp(name, stats_test_names[i]))
			return i;
	return -1;
}

struct ranked {
	double v;
	bool from_b;
};

static int ranked_cmp(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/*
 * The exact two-sided p of the rank sum of b, conditional on the ranks
 * (ties included): every one of the C(n, nb) ways to pick b's nb ranks out
 * of the pooled ranks is equally likely under the null, and p is the share
 * whose sum lies at least as far from its mean as the observed one.  The
 * ranks are doubled (r2[]) so that average ranks of ties stay integers; a
 * dynamic program over the pooled values counts the subsets of each size
 * and sum, ways[k][s], the knapsack way (k downwards, so each value is
 * taken once).  Counts stay below C(40, 20) < 2^53 for sides up to
 * MW_EXACT_MAX, so doubles hold them exactly.  NaN when out of memory.
 */
static double mw_exact_p(const unsigned int *r2, size_t n, size_t nb, unsigned long w2)
{
	size_t smax = n * (n + 1), cols = smax + 1;
	double *ways = calloc((nb + 1) * cols, sizeof(*ways)), far = 0, total = 0;
	long mean2 = (long)(nb * (n + 1)), dev = labs((long)w2 - mean2);

	if (!ways)
		return NAN;
	ways[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = (i + 1 < nb ? i + 1 : nb); k >= 1; k--)
			for (size_t t = smax; t >= r2[i]; t--)
				ways[k * cols + t] += ways[(k - 1) * cols + t - r2[i]];
	for (size_t t = 0; t <= smax; t++) {
		double w = ways[nb * cols + t];

		total += w;
		if (labs((long)t - mean2) >= dev)
			far += w;
	}
	free(ways);
	return fmin(1, far / total);
}

double mann_whitney_min_p(size_t na, size_t nb)
{
	double c = 1;

	if (na < 2 || nb < 2)
		return 1;
	/* C(na+nb, na) as a running product: exact while it fits, large after */
	for (size_t i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	return fmin(1, 2 / c);
}

void mann_whitney_test(const double *a, size_t na, const double *b, size_t nb,
		       struct mann_whitney *out)
{
	size_t n = na + nb, i, j;
	struct ranked *r;
	unsigned int *r2;
	unsigned long w2 = 0; /* twice the rank sum of b */
	double ties = 0, mu, var, u_low;

	memset(out, 0, sizeof(*out));
	out->p = 1;
	out->min_p = 1;
	if (na < 2 || nb < 2)
		return;
	r = malloc(n * sizeof(*r));
	r2 = malloc(n * sizeof(*r2));
	if (!r || !r2) {
		free(r);
		free(r2);
		return; /* invalid: no verdict rather than a guess */
	}
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], false };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], true };
	qsort(r, n, sizeof(*r), ranked_cmp);
	/* a run of t equal values [i, j) shares the average rank (i + 1 + j) / 2 */
	for (i = 0; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		for (size_t k = i; k < j; k++) {
			r2[k] = (unsigned int)(i + 1 + j);
			if (r[k].from_b)
				w2 += r2[k];
		}
		ties += t * t * t - t;
	}
	free(r);
	out->valid = true;
	out->u = (double)w2 / 2 - (double)nb * (double)(nb + 1) / 2;
	out->min_p = mann_whitney_min_p(na, nb);
	if (na <= MW_EXACT_MAX && nb <= MW_EXACT_MAX) {
		double p = mw_exact_p(r2, n, nb, w2);

		if (!isnan(p)) {
			free(r2);
			out->method = MW_EXACT;
			out->p = p;
			return;
		}
	}
	free(r2);
	out->method = MW_NORMAL;
	out->min_p = 0; /* an approximation has no floor of its own */
	mu = (double)na * (double)nb / 2;
	/* the distribution is symmetric about mu: the smaller tail is the one of min(U, na nb - U) */
	u_low = fmin(out->u, (double)na * (double)nb - out->u);
	/* var(U) = na nb / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))) */
	var = (double)na * (double)nb / 12 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (!(var > 0)) {
		out->p = 1; /* every value equal: nothing tells the sides apart */
		return;
	}
	out->z = fmax(0, mu - u_low - 0.5) / sqrt(var);
	out->p = fmin(1, erfc(out->z / sqrt(2.0)));
}

/* ---- log2 histograms ------------------------------------------------------ */

/*
 * The k-th of the c samples in [lo, hi) is taken to sit at the middle of
 * the k-th of c equal parts of the bucket, lo + (hi - lo)(k - 1/2)/c: the
 * answer is always strictly inside the bucket.
 */
double hist_quantile(const struct hist *h, double q)
{
	double total = 0, r, rank, before = 0;

	if (h->count == 0)
		return 0;
	for (int i = 0; i < HIST_SLOTS; i++)
		total += (double)h->slots[i];
	if (total == 0)
		return 0;
	if (!(q > 0))
		q = 0;
	if (q > 1)
		q = 1;
	/* ceil(q * total), forgiving the rounding of q (0.07 * 100 = 7.000...1). */
	r = q * total;
	rank = ceil(r - r * 4 * DBL_EPSILON);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		double c = (double)h->slots[i], lo, hi;

		if (c == 0 || before + c < rank) {
			before += c;
			continue;
		}
		lo = (double)hist_lo(i);
		if (hist_hi(i) == UINT64_MAX)
			return lo;
		hi = (double)hist_hi(i);
		return lo + (hi - lo) * (rank - before - 0.5) / c;
	}
	return 0; /* not reached: rank <= total */
}
