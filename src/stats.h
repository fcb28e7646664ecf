/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Statistics for comparing repeated runs: mean, standard deviation, Welch's
 * t-test and the 95% confidence interval of the difference of means, the
 * Mann-Whitney U test, and percentiles of log2 histograms.  Written once,
 * used by compare and gate.
 */
#ifndef PERMSCOPE_STATS_H
#define PERMSCOPE_STATS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "permscope.h"

struct sample_summary {
	size_t n;
	double mean;
	double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
};

void summarize(const double *x, size_t n, struct sample_summary *out);

/*
 * Welch's unequal-variance t-test of mean(b) - mean(a).  `valid` is false
 * when either side has n < 2 (no variance to test with).  When both
 * variances are zero the difference is exact: p = 0 if the means differ,
 * 1 if not, and the interval collapses to the difference.  Never NaN.
 */
struct welch {
	bool valid;
	double diff;         /* mean(b) - mean(a) */
	double t, df;
	double p;            /* two-sided */
	double ci_lo, ci_hi; /* 95% confidence interval of diff */
};

void welch_test(const struct sample_summary *a, const struct sample_summary *b,
		struct welch *out);

/* A Welch difference as a share of a mean, in percent, with its 95% CI. */
struct percent_change {
	double pct, lo, hi;
};

/* 100 * w->diff / base and the same of its CI; base is mean(a), > 0. */
struct percent_change welch_percent(const struct welch *w, double base);

/*
 * The Mann-Whitney U test (two-sided Wilcoxon rank-sum) of b against a:
 * distribution-free, it asks whether a value of one side tends to be
 * larger than a value of the other.  Ranks over both sides, ties given
 * their average rank.  `valid` is false when either side has n < 2: no
 * verdict, p = 1 (never 0).  With both sides of at most MW_EXACT_MAX
 * values the p-value is exact: the permutation distribution of the rank
 * sum given the ranks, ties included (the normal approximation would give
 * 0.047 for {1,1,1} against {0,0,0}, below the 0.1 that 3 against 3 can
 * ever reach).  Larger sides take the normal approximation with the tie
 * correction of the variance and a continuity correction of 1/2.  When
 * every value is equal there is nothing to rank: p = 1.
 */
enum mw_method { MW_NONE, MW_EXACT, MW_NORMAL };
extern const char *const mw_method_names[3]; /* "none", "exact", "normal" */

#define MW_EXACT_MAX 20

struct mann_whitney {
	bool valid;
	enum mw_method method; /* MW_NONE when !valid */
	double u;      /* U of b: pairs (a_i, b_j) with b_j > a_i, a tie counting 1/2 */
	double z;      /* |normal deviate|, continuity-corrected; 0 when exact */
	double p;      /* two-sided */
	/*
	 * Exact: the smallest two-sided p these sizes allow, 2 / C(na+nb, na)
	 * (0.1 for 3 against 3; ties can only raise it); 0 with the normal
	 * approximation.
	 */
	double min_p;
};

void mann_whitney_test(const double *a, size_t na, const double *b, size_t nb,
		       struct mann_whitney *out);
/*
 * The smallest two-sided p Mann-Whitney can give for sides of na and nb
 * values without ties, 2 / C(na+nb, na), capped at 1; 1 when a side has
 * fewer than 2 (no test at all).  0.1 for 3 against 3: no 0.05 to reach.
 */
double mann_whitney_min_p(size_t na, size_t nb);

/* Which test compare and gate apply (--test). */
enum stats_test { STATS_WELCH, STATS_MANN_WHITNEY, STATS_TESTS };
#define STATS_TEST_NAMES "welch,mann-whitney" /* as --test takes them */
extern const char *const stats_test_names[STATS_TESTS];  /* "welch", "mann-whitney" */
extern const char *const stats_test_titles[STATS_TESTS]; /* "Welch's t-test", ... */
extern const char *const stats_test_ids[STATS_TESTS];    /* JSON: "welch-t", "mann-whitney-u" */
/* The test named `name` (as --test takes it), or -1. */
int stats_test_parse(const char *name);

/*
 * Below this two-sided p of the test a difference is significant: what
 * compare marks and what makes a failed gate rule a FAIL.
 */
#define STATS_ALPHA 0.05

/* Two-sided p-value of Student's t with df degrees of freedom (df > 0). */
double student_t_p_two_sided(double t, double df);
/* The t value with two-sided tail probability p (0 < p < 1), e.g. p = 0.05. */
double student_t_quantile_two_sided(double p, double df);

/*
 * The q-th quantile (0..1) of a log2 histogram: the bucket holding the
 * ceil(q * count)-th sample, interpolated linearly inside [lo, hi); the open
 * last bucket answers its lo.  0 when the histogram is empty.
 */
double hist_quantile(const struct hist *h, double q);

#endif
