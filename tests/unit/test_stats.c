// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Statistics (src/stats.c) against answers known from elsewhere: printed
 * t tables, closed forms of the t distribution for 1 and 2 degrees of
 * freedom, the Welch examples of Wikipedia's "Welch's t-test" page, and
 * reference values computed independently at 40 digits (Python mpmath's
 * betainc, exact rational means and variances).  Mann-Whitney's exact
 * p-values are counted by brute force in Python (itertools.combinations
 * over every split of the pooled values, U of each as Fractions) or, for
 * 20 against 20, by the recursion f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)
 * with Fractions; its normal approximations come from the textbook formula
 * in Python (Fractions for the variance, math.erfc).  Tied samples are
 * counted the same way: every split of the pooled values, ties included.  scipy was not
 * installed; no value below comes from the code under test.
 */
#include <linux/types.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hist.h"
#include "stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* |actual - expected| <= tol |expected|, NaN never passes. */
#define assert_rel(actual, expected, tol) \
	check_close((actual), (expected), -(tol), __FILE__, __LINE__)
/* |actual - expected| <= tol, NaN never passes. */
#define assert_abs(actual, expected, tol) \
	check_close((actual), (expected), (tol), __FILE__, __LINE__)

/* A negative tolerance is relative to expected, a positive one absolute. */
static void check_close(double actual, double expected, double tol,
			const char *file, int line)
{
	if (tol < 0)
		tol = -tol * fabs(expected);
	if (!isnan(actual) && fabs(actual - expected) <= tol)
		return;
	print_error("%.17g is not %.17g (tolerance %g)\n", actual, expected, tol);
	_fail(file, line);
}

static void assert_no_nan(const struct welch *w)
{
	assert_false(isnan(w->diff));
	assert_false(isnan(w->t));
	assert_false(isnan(w->df));
	assert_false(isnan(w->p));
	assert_false(isnan(w->ci_lo));
	assert_false(isnan(w->ci_hi));
}

static struct sample_summary summary(size_t n, double mean, double stddev)
{
	struct sample_summary s = { .n = n, .mean = mean, .stddev = stddev };

	return s;
}

/* ---- summarize ------------------------------------------------------------ */

static void summarize_of_no_samples_is_all_zero(void **state)
{
	struct sample_summary s = summary(99, 99, 99);

	(void)state;
	summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.mean == 0);
	assert_true(s.stddev == 0);
}

static void summarize_of_one_sample_has_its_mean_and_no_spread(void **state)
{
	double x[] = { 42.5 };
	struct sample_summary s;

	(void)state;
	summarize(x, 1, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.mean == 42.5);
	assert_true(s.stddev == 0);
}

/* The textbook set: mean 5, population sd 2, so sample sd sqrt(32/7). */
static void summarize_uses_the_n_minus_1_standard_deviation(void **state)
{
	double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct sample_summary s;

	(void)state;
	summarize(x, ARRAY_LEN(x), &s);
	assert_int_equal(s.n, 8);
	assert_rel(s.mean, 5, 1e-15);
	assert_rel(s.stddev, sqrt(32.0 / 7), 1e-15);
}

/*
 * 4, 7, 13, 16 (variance 30) shifted far from zero: sum-of-squares
 * formulas lose every digit here, a stable method loses none.
 */
static void summarize_is_stable_far_from_zero(void **state)
{
	double x[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	double y[] = { 1e15 + 4, 1e15 + 7, 1e15 + 13, 1e15 + 16 };
	struct sample_summary s;

	(void)state;
	summarize(x, ARRAY_LEN(x), &s);
	assert_rel(s.mean, 1e9 + 10, 1e-15);
	assert_rel(s.stddev, sqrt(30), 1e-12);
	summarize(y, ARRAY_LEN(y), &s);
	assert_rel(s.mean, 1e15 + 10, 1e-15);
	assert_rel(s.stddev, sqrt(30), 1e-12);
}

static void summarize_of_identical_samples_has_exactly_zero_spread(void **state)
{
	double x[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };
	struct sample_summary s;

	(void)state;
	summarize(x, ARRAY_LEN(x), &s);
	assert_true(s.mean == 0.1);
	assert_true(s.stddev == 0);
}

/* ---- Student's t: p-values ------------------------------------------------ */

static void t_p_value_matches_the_printed_tables(void **state)
{
	(void)state;
	/* Table values, then the same points at 1e-9 (mpmath betainc). */
	assert_abs(student_t_p_two_sided(2.0, 5), 0.1019, 5e-5);
	assert_abs(student_t_p_two_sided(2.228, 10), 0.05, 5e-5);
	assert_abs(student_t_p_two_sided(2.042, 30), 0.05, 5e-5);
	assert_abs(student_t_p_two_sided(12.706, 1), 0.05, 5e-5);
	assert_abs(student_t_p_two_sided(1.96, INFINITY), 0.05, 5e-5);
	assert_rel(student_t_p_two_sided(2.0, 5), 0.10193947882985836, 1e-9);
	assert_rel(student_t_p_two_sided(3.0, 0.5), 0.36730815598594345, 1e-9);
	assert_rel(student_t_p_two_sided(2.5, 24.5), 0.019495272120004577, 1e-9);
	assert_rel(student_t_p_two_sided(10, 30), 4.5752514082296132e-11, 1e-9);
	assert_rel(student_t_p_two_sided(40, 3), 3.4380680789158528e-5, 1e-9);
	assert_rel(student_t_p_two_sided(1.96, INFINITY), 0.049995790296440872, 1e-12);
}

/*
 * df = 1 is the Cauchy distribution, P(|T| > t) = (2/pi) atan(1/t); for
 * df = 2, P(|T| > t) = 1 - t/sqrt(2 + t^2) = 2/(s (s + t)), s = sqrt(2 + t^2).
 * Exact at every t, tails included.
 */
static void t_p_value_matches_the_closed_forms_for_1_and_2_df(void **state)
{
	double ts[] = { 1e-8, 0.1, 0.5, 1, 2, 12.706, 100, 1e5, 1e10, 1e100 };

	(void)state;
	assert_rel(student_t_p_two_sided(1, 1), 0.5, 1e-12);
	for (size_t i = 0; i < ARRAY_LEN(ts); i++) {
		double t = ts[i], s = sqrt(2 + t * t);

		assert_rel(student_t_p_two_sided(t, 1), 2 / M_PI * atan(1 / t), 1e-9);
		assert_rel(student_t_p_two_sided(t, 2), 2 / (s * (s + t)), 1e-9);
	}
}

static void t_p_value_is_symmetric_one_at_zero_and_zero_at_infinity(void **state)
{
	double dfs[] = { 0.1, 1, 2.5, 10, 1e4, 1e8, INFINITY };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(dfs); i++) {
		assert_true(student_t_p_two_sided(0, dfs[i]) == 1);
		assert_true(student_t_p_two_sided(-0.0, dfs[i]) == 1);
		assert_true(student_t_p_two_sided(INFINITY, dfs[i]) == 0);
		assert_true(student_t_p_two_sided(-INFINITY, dfs[i]) == 0);
		assert_true(student_t_p_two_sided(-2.5, dfs[i]) ==
			    student_t_p_two_sided(2.5, dfs[i]));
	}
}

/* Huge |t|: no overflow of t^2, never negative, never NaN, zero only by underflow. */
static void t_p_value_for_huge_t_is_tiny_but_never_negative_or_nan(void **state)
{
	double dfs[] = { 0.1, 1, 3, 30, 1e3, 1e5, 1e9, INFINITY };
	double ts[] = { 50, 1e3, 1e20, 1e154, 1e155, 1e300, DBL_MAX };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(dfs); i++) {
		double prev = 1;

		for (size_t j = 0; j < ARRAY_LEN(ts); j++) {
			double p = student_t_p_two_sided(ts[j], dfs[i]);

			assert_false(isnan(p));
			assert_true(p >= 0 && p <= prev);
			if (dfs[i] >= 30)
				assert_true(p < 1e-20);
			assert_true(student_t_p_two_sided(-ts[j], dfs[i]) == p);
			prev = p;
		}
	}
	/* df = 0.1: the tail falls like t^-0.1, still 8e-31 at t = 1e300. */
	assert_rel(student_t_p_two_sided(1e300, 0.1), 8.3476062743464034e-31, 1e-9);
}

/* As df grows the t distribution becomes the standard normal. */
static void t_p_value_approaches_the_normal_for_large_df(void **state)
{
	double ts[] = { 0.5, 1.96, 3, 5, 10 };

	(void)state;
	assert_rel(student_t_p_two_sided(1.96, 1e6), 0.049996067585269791, 1e-9);
	assert_rel(student_t_p_two_sided(3, 1e6), 0.0026998625414217971, 1e-9);
	assert_rel(student_t_p_two_sided(5, 1e6), 5.7339978708907416e-7, 1e-9);
	assert_rel(student_t_p_two_sided(1.96, 1e10), 0.049995790324169745, 1e-9);
	assert_rel(student_t_p_two_sided(3, 1e10), 0.0026997960699079617, 1e-9);
	assert_rel(student_t_p_two_sided(5, 1e10), 5.7330315342206473e-7, 1e-9);
	for (size_t i = 0; i < ARRAY_LEN(ts); i++) {
		double normal = erfc(ts[i] / sqrt(2));

		assert_rel(student_t_p_two_sided(ts[i], 1e15), normal, 1e-9);
		assert_rel(student_t_p_two_sided(ts[i], 1e300), normal, 1e-12);
		assert_rel(student_t_p_two_sided(ts[i], DBL_MAX), normal, 1e-12);
	}
}

/* Two methods meet at df = 1e5 (continued fraction below, asymptotic above). */
static void t_p_value_is_continuous_where_the_method_changes(void **state)
{
	double ts[] = { 0.01, 0.7, 1.0, 1.96, 4, 8, 20 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(ts); i++)
		assert_rel(student_t_p_two_sided(ts[i], 1e5 * (1 - 1e-12)),
			   student_t_p_two_sided(ts[i], 1e5), 1e-9);
}

static void t_p_value_outside_its_domain_is_nan(void **state)
{
	(void)state;
	assert_true(isnan(student_t_p_two_sided(NAN, 5)));
	assert_true(isnan(student_t_p_two_sided(1, 0)));
	assert_true(isnan(student_t_p_two_sided(1, -3)));
	assert_true(isnan(student_t_p_two_sided(1, NAN)));
}

/* ---- Student's t: quantiles ----------------------------------------------- */

static void t_quantile_matches_the_printed_tables(void **state)
{
	(void)state;
	/* The 0.975 column of every t table, to its printed 3 decimals. */
	assert_abs(student_t_quantile_two_sided(0.05, 1), 12.706, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, 2), 4.303, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, 5), 2.571, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, 10), 2.228, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, 30), 2.042, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, 120), 1.980, 5e-4);
	assert_abs(student_t_quantile_two_sided(0.05, INFINITY), 1.960, 5e-4);
	/* The same at 1e-9 (mpmath). */
	assert_rel(student_t_quantile_two_sided(0.05, 3), 3.1824463052837095, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, 10), 2.2281388519862747, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, 30), 2.0422724563012383, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, 120), 1.9799304050824408, 1e-9);
	assert_rel(student_t_quantile_two_sided(1e-6, 4), 49.458636756934635, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.5, 7.5), 0.70859958044425949, 1e-9);
}

/* Closed-form inverses: df = 1, t = tan(pi (1 - p) / 2) = 1/tan(pi p / 2); df = 2 below. */
static void t_quantile_matches_the_closed_forms_for_1_and_2_df(void **state)
{
	double ps[] = { 0.999, 0.5, 0.2, 0.1, 0.05, 0.01, 1e-3, 1e-6, 1e-10 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(ps); i++) {
		double p = ps[i];

		assert_rel(student_t_quantile_two_sided(p, 1), 1 / tan(M_PI * p / 2), 1e-9);
		/* t = (1 - p) sqrt(2 / (1 - (1 - p)^2)), and 1 - (1 - p)^2 = p (2 - p) */
		assert_rel(student_t_quantile_two_sided(p, 2), (1 - p) * sqrt(2 / (p * (2 - p))), 1e-9);
	}
}

static void t_quantile_inverts_the_p_value(void **state)
{
	double dfs[] = { 0.7, 1, 3, 8.25, 24.5, 100, 5e4, 2e5, 1e9 };
	double ps[] = { 0.9, 0.5, 0.05, 0.01, 1e-4, 1e-8, 1e-15 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(dfs); i++)
		for (size_t j = 0; j < ARRAY_LEN(ps); j++)
			assert_rel(student_t_p_two_sided(
					   student_t_quantile_two_sided(ps[j], dfs[i]), dfs[i]),
				   ps[j], 1e-9);
}

static void t_quantile_approaches_1_96_for_large_df(void **state)
{
	(void)state;
	assert_rel(student_t_quantile_two_sided(0.05, 1e6), 1.959966356814107, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, 1e10), 1.9599639847772813, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, 1e300), 1.9599639845400542, 1e-9);
	assert_rel(student_t_quantile_two_sided(0.05, INFINITY), 1.9599639845400542, 1e-9);
}

static void t_quantile_ends_are_zero_and_infinity(void **state)
{
	(void)state;
	assert_true(student_t_quantile_two_sided(1, 5) == 0);
	assert_true(isinf(student_t_quantile_two_sided(0, 5)));
	/* df = 0.001: the 5% point lies beyond the largest double. */
	assert_true(isinf(student_t_quantile_two_sided(0.05, 0.001)));
	assert_true(isnan(student_t_quantile_two_sided(1.5, 5)));
	assert_true(isnan(student_t_quantile_two_sided(-0.1, 5)));
	assert_true(isnan(student_t_quantile_two_sided(0.05, 0)));
}

/* ---- Welch's t-test --------------------------------------------------------- */

/*
 * Wikipedia, "Welch's t-test", example with n = 10 and n = 20 (published:
 * t = -2.22, df = 24.5, p = 0.036 for a - b).  Reference digits: exact
 * rational means and variances, then 40-digit mpmath.
 */
static const double wiki_a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
static const double wiki_b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };

static void welch_matches_the_unequal_sizes_example(void **state)
{
	struct sample_summary a, b;
	struct welch w;

	(void)state;
	summarize(wiki_a, ARRAY_LEN(wiki_a), &a);
	summarize(wiki_b, ARRAY_LEN(wiki_b), &b);
	assert_rel(a.mean, 19.37, 1e-14);
	assert_rel(a.stddev, 1.2037441588643328, 1e-12);
	assert_rel(b.mean, 21.59, 1e-14);
	assert_rel(b.stddev, 4.1234757949549003, 1e-12);

	welch_test(&a, &b, &w);
	assert_true(w.valid);
	assert_rel(w.diff, 2.22, 1e-13);
	assert_abs(w.t, 2.23, 0.01);
	assert_abs(w.df, 24.5, 0.05);
	assert_abs(w.p, 0.036, 0.001);
	assert_rel(w.t, 2.2255120399698532, 1e-9);
	assert_rel(w.df, 24.524634944257348, 1e-9);
	assert_rel(w.p, 0.035484530830010218, 1e-8);
	assert_rel(w.ci_lo, 0.16354134987944414, 1e-8);
	assert_rel(w.ci_hi, 4.2764586501205559, 1e-8);

	/* The other way round: diff, t and the interval change sign. */
	welch_test(&b, &a, &w);
	assert_rel(w.diff, -2.22, 1e-13);
	assert_rel(w.t, -2.2255120399698532, 1e-9);
	assert_rel(w.df, 24.524634944257348, 1e-9);
	assert_rel(w.p, 0.035484530830010218, 1e-8);
	assert_rel(w.ci_lo, -4.2764586501205559, 1e-8);
	assert_rel(w.ci_hi, -0.16354134987944414, 1e-8);
}

/* Same page, n = 15 and n = 15 (published: t = -2.46, df = 25.0, p = 0.021). */
static void welch_matches_the_equal_sizes_example(void **state)
{
	const double x[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double y[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	struct sample_summary a, b;
	struct welch w;

	(void)state;
	summarize(x, ARRAY_LEN(x), &a);
	summarize(y, ARRAY_LEN(y), &b);
	welch_test(&a, &b, &w);
	assert_true(w.valid);
	assert_abs(w.t, 2.46, 0.005);
	assert_abs(w.df, 25.0, 0.05);
	assert_abs(w.p, 0.021, 0.0005);
	assert_rel(w.diff, 2.1666666666666667, 1e-13);
	assert_rel(w.t, 2.4553563982860051, 1e-9);
	assert_rel(w.df, 24.988529290231414, 1e-9);
	assert_rel(w.p, 0.021378001462867032, 1e-8);
	assert_rel(w.ci_lo, 0.34923706619240525, 1e-8);
	assert_rel(w.ci_hi, 3.9840962671409281, 1e-8);
}

/*
 * a exact (sd 0), b = {11, 12, 13, 14}: all uncertainty is b's, so
 * df = nb - 1 = 3, se = sd(b)/2, t = 2.5/se = sqrt(15), and the interval
 * uses t(0.975, 3) = 3.182446305...
 */
static void welch_with_one_exact_side_takes_the_other_sides_variance(void **state)
{
	const double y[] = { 11, 12, 13, 14 };
	struct sample_summary a = summary(5, 10, 0), b;
	struct welch w;
	double se = sqrt(5.0 / 3) / 2;

	(void)state;
	summarize(y, ARRAY_LEN(y), &b);
	welch_test(&a, &b, &w);
	assert_true(w.valid);
	assert_rel(w.diff, 2.5, 1e-15);
	assert_rel(w.df, 3, 1e-12);
	assert_rel(w.t, sqrt(15), 1e-12);
	assert_rel(w.p, 0.030466291662170991, 1e-9);
	assert_rel(w.ci_lo, 2.5 - 3.1824463052837095 * se, 1e-9);
	assert_rel(w.ci_hi, 2.5 + 3.1824463052837095 * se, 1e-9);
	assert_no_nan(&w);
}

static void welch_with_fewer_than_two_samples_is_invalid_but_sets_diff(void **state)
{
	struct sample_summary cases[][2] = {
		{ summary(1, 3, 0), summary(5, 7, 1.5) },
		{ summary(5, 3, 1.5), summary(1, 7, 0) },
		{ summary(0, 0, 0), summary(5, 7, 1.5) },
		{ summary(1, 3, 0), summary(1, 3, 0) },
	};
	double diffs[] = { 4, 4, 7, 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct welch w;

		memset(&w, 0xff, sizeof(w)); /* NaN everywhere, valid true */
		welch_test(&cases[i][0], &cases[i][1], &w);
		assert_false(w.valid);
		assert_true(w.diff == diffs[i]);
		assert_true(w.p == 1);
		assert_true(w.ci_lo == diffs[i] && w.ci_hi == diffs[i]);
		assert_no_nan(&w);
	}
}

static void welch_with_two_exact_equal_sides_says_no_difference(void **state)
{
	struct sample_summary a = summary(4, 12.5, 0), b = summary(9, 12.5, 0);
	struct welch w;

	(void)state;
	welch_test(&a, &b, &w);
	assert_true(w.valid);
	assert_true(w.diff == 0);
	assert_true(w.t == 0);
	assert_true(w.p == 1);
	assert_true(w.ci_lo == 0 && w.ci_hi == 0);
	assert_no_nan(&w);
	assert_false(isinf(w.df));
}

static void welch_with_two_exact_different_sides_is_certain(void **state)
{
	struct sample_summary a = summary(4, 10, 0), b = summary(9, 12.5, 0);
	struct welch w;

	(void)state;
	welch_test(&a, &b, &w);
	assert_true(w.valid);
	assert_true(w.diff == 2.5);
	assert_true(isinf(w.t) && w.t > 0);
	assert_true(w.p == 0);
	assert_true(w.ci_lo == 2.5 && w.ci_hi == 2.5);
	assert_no_nan(&w);

	welch_test(&b, &a, &w);
	assert_true(w.diff == -2.5);
	assert_true(isinf(w.t) && w.t < 0);
	assert_true(w.p == 0);
	assert_true(w.ci_lo == -2.5 && w.ci_hi == -2.5);
	assert_no_nan(&w);
}

/*
 * Standard deviations whose squares underflow or overflow a double, and
 * differences far beyond the noise: finite, sensible answers, no NaN.
 * Equal n and equal variances give df = 2n - 2 exactly.
 */
static void welch_never_answers_nan_at_extreme_scales(void **state)
{
	struct sample_summary cases[][2] = {
		{ summary(3, 0, 1e-200), summary(3, 1e-200, 1e-200) },
		{ summary(3, 0, 1e200), summary(3, 1e200, 1e200) },
		{ summary(3, 0, 1e-300), summary(3, 1e300, 1e-300) },
		{ summary(3, 0, 1e-320), summary(3, 1, 0) },
		{ summary(2, -1e300, 1e300), summary(1000000, 1e300, 1e-300) },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct welch w;

		welch_test(&cases[i][0], &cases[i][1], &w);
		assert_true(w.valid);
		assert_no_nan(&w);
		assert_true(w.p >= 0 && w.p <= 1);
		assert_true(w.df >= 1);
		assert_true(w.ci_lo <= w.diff && w.diff <= w.ci_hi);
	}
	for (size_t i = 0; i < 2; i++) {
		struct welch w;

		welch_test(&cases[i][0], &cases[i][1], &w);
		assert_rel(w.df, 4, 1e-12);
		assert_rel(w.t, sqrt(1.5), 1e-12);
	}
}

/* ---- hist_quantile ---------------------------------------------------------- */

static void hist_quantile_of_an_empty_histogram_is_zero(void **state)
{
	struct hist h = {0};

	(void)state;
	assert_true(hist_quantile(&h, 0) == 0);
	assert_true(hist_quantile(&h, 0.5) == 0);
	assert_true(hist_quantile(&h, 1) == 0);
}

/*
 * Four samples in [512, 1024): the k-th sits at the middle of the k-th
 * quarter, 576, 704, 832, 960.  One sample sits in the middle, 768.
 */
static void hist_quantile_interpolates_inside_one_bucket(void **state)
{
	struct hist h = {0};

	(void)state;
	hist_add(&h, 600);
	assert_true(hist_quantile(&h, 0.01) == 768);
	assert_true(hist_quantile(&h, 1) == 768);
	for (int i = 0; i < 3; i++)
		hist_add(&h, 1000);
	assert_true(hist_quantile(&h, 0) == 576);
	assert_true(hist_quantile(&h, 0.25) == 576);
	assert_true(hist_quantile(&h, 0.26) == 704);
	assert_true(hist_quantile(&h, 0.5) == 704);
	assert_true(hist_quantile(&h, 0.75) == 832);
	assert_true(hist_quantile(&h, 0.99) == 960);
	assert_true(hist_quantile(&h, 1) == 960);
}

/* 10 samples in [8, 16), 10 in [1024, 2048): the ceil(q n)-th sample decides. */
static void hist_quantile_takes_the_bucket_of_the_ceil_q_n_th_sample(void **state)
{
	struct hist h = {0};

	(void)state;
	for (int i = 0; i < 10; i++) {
		hist_add(&h, 9);
		hist_add(&h, 1500);
	}
	assert_true(hist_quantile(&h, 0.05) == 8 + 8 * 0.5 / 10);
	assert_true(hist_quantile(&h, 0.5) == 8 + 8 * 9.5 / 10);
	assert_true(hist_quantile(&h, 0.51) == 1024 + 1024 * 0.5 / 10);
	assert_true(hist_quantile(&h, 1) == 1024 + 1024 * 9.5 / 10);
	/* Empty buckets in between change nothing; q outside [0, 1] is clamped. */
	assert_true(hist_quantile(&h, -1) == hist_quantile(&h, 0));
	assert_true(hist_quantile(&h, NAN) == hist_quantile(&h, 0));
	assert_true(hist_quantile(&h, 7) == hist_quantile(&h, 1));
}

/* 0.07 * 100 is 7.000000000000001 in doubles: still the 7th sample, not the 8th. */
static void hist_quantile_forgives_the_rounding_of_q(void **state)
{
	struct hist h = {0};

	(void)state;
	for (int i = 0; i < 7; i++)
		hist_add(&h, 3);         /* [2, 4) */
	for (int i = 0; i < 93; i++)
		hist_add(&h, 1 << 20);   /* [2^20, 2^21) */
	assert_true(0.07 * 100 > 7);
	assert_true(hist_quantile(&h, 0.07) == 2 + 2 * 6.5 / 7);
	assert_true(hist_quantile(&h, 0.08) == 1048576 + 1048576 * 0.5 / 93);
}

static void hist_quantile_in_the_first_bucket_stays_within_0_and_2(void **state)
{
	struct hist h = {0};

	(void)state;
	hist_add(&h, 0);
	hist_add(&h, 1);
	assert_true(hist_quantile(&h, 0.5) == 0.5);
	assert_true(hist_quantile(&h, 1) == 1.5);
}

static void hist_quantile_in_the_open_last_bucket_is_its_lo(void **state)
{
	struct hist h = {0};
	double last_lo = (double)hist_lo(HIST_SLOTS - 1);

	(void)state;
	hist_add(&h, 100);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, 1ULL << 50);
	assert_true(last_lo == 549755813888.0);
	assert_true(hist_quantile(&h, 0.34) == last_lo);
	assert_true(hist_quantile(&h, 1) == last_lo);
	assert_true(hist_quantile(&h, 0.33) == 64 + 64 * 0.5);
}

/* ---- Mann-Whitney U -------------------------------------------------------- */

static void mw(const double *a, size_t na, const double *b, size_t nb, struct mann_whitney *r)
{
	mann_whitney_test(a, na, b, nb, r);
}

/* The example of Wikipedia's "Mann-Whitney U test" page (and scipy's docs). */
static void mann_whitney_matches_the_textbook_example(void **state)
{
	const double females[] = { 20, 11, 17, 12 }, males[] = { 19, 22, 16, 29, 24 };
	struct mann_whitney r;

	(void)state;
	mw(females, 4, males, 5, &r);
	assert_true(r.valid);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 17, 0);
	assert_rel(r.p, 1.0 / 9, 1e-12); /* 14 of the 126 splits are as far from 10 */
	/* the sides swapped: U becomes 20 - 17, p is the same */
	mw(males, 5, females, 4, &r);
	assert_abs(r.u, 3, 0);
	assert_rel(r.p, 1.0 / 9, 1e-12);
}

static void mann_whitney_with_3_runs_a_side_cannot_reach_p_below_0_1(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 2, 4, 6 }, d[] = { 1, 3, 5 };
	struct mann_whitney r;

	(void)state;
	/* completely separated: the most extreme 2 of the 20 splits */
	mw(a, 3, b, 3, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 9, 0);
	assert_rel(r.p, 0.1, 1e-12);
	assert_rel(r.min_p, 0.1, 1e-12);
	assert_false(r.p < STATS_ALPHA);
	mw(b, 3, a, 3, &r);
	assert_abs(r.u, 0, 0);
	assert_rel(r.p, 0.1, 1e-12);
	/* interleaved: 14 of the 20 splits are as far from 4.5 as U = 6 */
	mw(d, 3, c, 3, &r);
	assert_abs(r.u, 6, 0);
	assert_rel(r.p, 0.7, 1e-12);
}

static void mann_whitney_exact_matches_enumeration_for_8_against_9(void **state)
{
	const double a[] = { 3.1, 4.7, 5.2, 6.8, 7.0, 8.4, 9.9, 12.5 },
		     b[] = { 5.0, 7.7, 8.8, 10.1, 11.2, 11.9, 13.4, 14.0, 15.6 };
	struct mann_whitney r;

	(void)state;
	mw(a, 8, b, 9, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 58, 0);
	assert_rel(r.p, 437.0 / 12155, 1e-12); /* 0.0359... */
	assert_true(r.p < STATS_ALPHA);
}

static void mann_whitney_exact_holds_up_to_20_against_20(void **state)
{
	double a[20], b[21];
	struct mann_whitney r;

	(void)state;
	/* b's values each above exactly 5 of a's: U = 100 of 400, no ties */
	for (int i = 0; i < 20; i++) {
		a[i] = i + 1;
		b[i] = 5.5 + 0.001 * (i + 1);
	}
	mw(a, 20, b, 20, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 100, 0);
	assert_rel(r.p, 141176801.0 / 22974421470, 1e-9); /* 0.006145 */
	/* separated: 2 / C(40, 20), far below anything the normal tail gives right */
	for (int i = 0; i < 20; i++)
		b[i] = 100 + i;
	mw(a, 20, b, 20, &r);
	assert_rel(r.p, 2 / 137846528820.0, 1e-9);
	assert_rel(r.min_p, 2 / 137846528820.0, 1e-9);
	assert_rel(mann_whitney_min_p(20, 20), 2 / 137846528820.0, 1e-12);
	assert_rel(mann_whitney_min_p(3, 3), 0.1, 1e-12);
	assert_rel(mann_whitney_min_p(3, 4), 2.0 / 35, 1e-12);
	assert_abs(mann_whitney_min_p(1, 9), 1, 0);
	/* one more value: beyond the exact table, the normal approximation */
	b[20] = 200;
	mw(a, 20, b, 21, &r);
	assert_int_equal(r.method, MW_NORMAL);
	assert_abs(r.u, 420, 0);
	assert_true(r.p > 0 && r.p < 1e-6);
}

static void mann_whitney_with_ties_is_exact_over_the_average_ranks(void **state)
{
	const double a[] = { 1, 2, 2, 3, 3, 3 }, b[] = { 3, 4, 4, 5, 6, 6 };
	const double c[] = { 20, 11, 17, 12 }, d[] = { 19, 22, 16, 29, 24, 20 };
	const double zeros[] = { 0, 0, 0 }, ones[] = { 1, 1, 1 };
	struct mann_whitney r;

	(void)state;
	mw(a, 6, b, 6, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 34.5, 0); /* the 3s of a against the 3 of b count 1/2 each */
	assert_rel(r.p, 2.0 / 231, 1e-12); /* 8 of the 924 splits; normal: 0.00873 */
	mw(c, 4, d, 6, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 20.5, 0);
	assert_rel(r.p, 8.0 / 105, 1e-12);
	/*
	 * Runs whose counts are exact tie often.  Separated like this, 3 against
	 * 3 is 2 splits of 20 however it ties: p = 0.1, where the normal
	 * approximation would claim 0.047 and a significance the data cannot hold.
	 */
	mw(zeros, 3, ones, 3, &r);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 9, 0);
	assert_rel(r.p, 0.1, 1e-12);
}

static void mann_whitney_beyond_20_a_side_uses_the_tie_corrected_normal(void **state)
{
	double a[21], b[21];
	struct mann_whitney r;

	(void)state;
	for (int i = 0; i < 21; i++) {
		a[i] = i / 2;     /* 0 0 1 1 ... 10 */
		b[i] = i / 2 + 3; /* 3 3 4 4 ... 13 */
	}
	mw(a, 21, b, 21, &r);
	assert_int_equal(r.method, MW_NORMAL);
	assert_abs(r.u, 328, 0);
	assert_rel(r.z, 2.7003210284034043, 1e-12);
	assert_rel(r.p, 0.006927259672956324, 1e-9);
}

static void mann_whitney_of_identical_samples_is_p_1(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 3, 1, 2 };
	struct mann_whitney r;

	(void)state;
	mw(a, 3, b, 3, &r);
	assert_true(r.valid);
	assert_abs(r.u, 4.5, 0);
	assert_abs(r.p, 1, 0);
}

static void mann_whitney_of_all_equal_values_is_p_1_never_nan(void **state)
{
	const double a[] = { 7, 7, 7 }, b[] = { 7, 7, 7, 7 };
	struct mann_whitney r;

	(void)state;
	mw(a, 3, b, 4, &r);
	assert_true(r.valid);
	assert_int_equal(r.method, MW_EXACT);
	assert_abs(r.u, 6, 0);
	assert_abs(r.p, 1, 0);
	/* the same beyond the exact table: a variance of 0, no division by it */
	{
		double x[25], y[25];

		for (int i = 0; i < 25; i++)
			x[i] = y[i] = 7;
		mw(x, 25, y, 25, &r);
		assert_int_equal(r.method, MW_NORMAL);
		assert_abs(r.z, 0, 0);
		assert_abs(r.p, 1, 0);
	}
}

static void mann_whitney_with_one_run_on_a_side_has_no_verdict(void **state)
{
	const double a[] = { 1 }, b[] = { 4, 5, 6 }, none[] = { 0 };
	struct mann_whitney r;

	(void)state;
	mw(a, 1, b, 3, &r);
	assert_false(r.valid);
	assert_int_equal(r.method, MW_NONE);
	assert_abs(r.p, 1, 0); /* never 0: no evidence is no difference */
	mw(b, 3, a, 1, &r);
	assert_false(r.valid);
	assert_abs(r.p, 1, 0);
	mw(none, 0, none, 0, &r);
	assert_false(r.valid);
	assert_abs(r.p, 1, 0);
}

static void stats_test_names_parse_back(void **state)
{
	(void)state;
	assert_int_equal(stats_test_parse("welch"), STATS_WELCH);
	assert_int_equal(stats_test_parse("mann-whitney"), STATS_MANN_WHITNEY);
	assert_int_equal(stats_test_parse("wilcoxon"), -1);
	for (int i = 0; i < STATS_TESTS; i++)
		assert_non_null(strstr(STATS_TEST_NAMES, stats_test_names[i]));
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summarize_of_no_samples_is_all_zero),
		cmocka_unit_test(summarize_of_one_sample_has_its_mean_and_no_spread),
		cmocka_unit_test(summarize_uses_the_n_minus_1_standard_deviation),
		cmocka_unit_test(summarize_is_stable_far_from_zero),
		cmocka_unit_test(summarize_of_identical_samples_has_exactly_zero_spread),
		cmocka_unit_test(t_p_value_matches_the_printed_tables),
		cmocka_unit_test(t_p_value_matches_the_closed_forms_for_1_and_2_df),
		cmocka_unit_test(t_p_value_is_symmetric_one_at_zero_and_zero_at_infinity),
		cmocka_unit_test(t_p_value_for_huge_t_is_tiny_but_never_negative_or_nan),
		cmocka_unit_test(t_p_value_approaches_the_normal_for_large_df),
		cmocka_unit_test(t_p_value_is_continuous_where_the_method_changes),
		cmocka_unit_test(t_p_value_outside_its_domain_is_nan),
		cmocka_unit_test(t_quantile_matches_the_printed_tables),
		cmocka_unit_test(t_quantile_matches_the_closed_forms_for_1_and_2_df),
		cmocka_unit_test(t_quantile_inverts_the_p_value),
		cmocka_unit_test(t_quantile_approaches_1_96_for_large_df),
		cmocka_unit_test(t_quantile_ends_are_zero_and_infinity),
		cmocka_unit_test(welch_matches_the_unequal_sizes_example),
		cmocka_unit_test(welch_matches_the_equal_sizes_example),
		cmocka_unit_test(welch_with_one_exact_side_takes_the_other_sides_variance),
		cmocka_unit_test(welch_with_fewer_than_two_samples_is_invalid_but_sets_diff),
		cmocka_unit_test(welch_with_two_exact_equal_sides_says_no_difference),
		cmocka_unit_test(welch_with_two_exact_different_sides_is_certain),
		cmocka_unit_test(welch_never_answers_nan_at_extreme_scales),
		cmocka_unit_test(mann_whitney_matches_the_textbook_example),
		cmocka_unit_test(mann_whitney_with_3_runs_a_side_cannot_reach_p_below_0_1),
		cmocka_unit_test(mann_whitney_exact_matches_enumeration_for_8_against_9),
		cmocka_unit_test(mann_whitney_exact_holds_up_to_20_against_20),
		cmocka_unit_test(mann_whitney_with_ties_is_exact_over_the_average_ranks),
		cmocka_unit_test(mann_whitney_beyond_20_a_side_uses_the_tie_corrected_normal),
		cmocka_unit_test(mann_whitney_of_identical_samples_is_p_1),
		cmocka_unit_test(mann_whitney_of_all_equal_values_is_p_1_never_nan),
		cmocka_unit_test(mann_whitney_with_one_run_on_a_side_has_no_verdict),
		cmocka_unit_test(stats_test_names_parse_back),
		cmocka_unit_test(hist_quantile_of_an_empty_histogram_is_zero),
		cmocka_unit_test(hist_quantile_interpolates_inside_one_bucket),
		cmocka_unit_test(hist_quantile_takes_the_bucket_of_the_ceil_q_n_th_sample),
		cmocka_unit_test(hist_quantile_forgives_the_rounding_of_q),
		cmocka_unit_test(hist_quantile_in_the_first_bucket_stays_within_0_and_2),
		cmocka_unit_test(hist_quantile_in_the_open_last_bucket_is_its_lo),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
