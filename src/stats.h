/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Statistics for comparing repeated runs: mean, standard deviation, Welch's
 * t-test and the 95% confidence interval of the difference of means, and
 * percentiles of log2 histograms.  Written once, used by compare and gate.
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
 * Below this two-sided p of Welch's test a difference is significant: what
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
