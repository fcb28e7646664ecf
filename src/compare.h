/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Two profiles aligned family by family, metric by metric, with statistics. */
#ifndef PERMSCOPE_COMPARE_H
#define PERMSCOPE_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "stats.h"
#include "util.h"

#define COMPARE_FORMAT "permscope-compare/1"

struct compare_row {
	char name[METRIC_NAME_LEN];
	struct sample_summary base, new;
	bool in_base, in_new;
	struct welch w;       /* valid when both sides have >= 2 runs */
	struct mann_whitney mw; /* computed only when compare's test is Mann-Whitney */
	bool tested;          /* the chosen test gave a p-value (>= 2 runs a side) */
	double p;             /* its two-sided p */
};

struct compare {
	const struct profile *base, *new; /* the two sides, as everywhere: base and new */
	const char *base_name, *new_name;
	enum stats_test test; /* which test gives each row's p (compare --test) */
	struct compare_row *rows;
	size_t nrows;
};

/* Rows for the metrics compare shows, in report order.  0 or -ENOMEM. */
int compare_build(struct compare *c);
void compare_free(struct compare *c);

void compare_text(FILE *out, const struct compare *c);
int compare_json(FILE *out, const struct compare *c);
/* A page that stands alone: inline SVG charts, no network (src/compare_html.c). */
void compare_html(FILE *out, const struct compare *c);

/* Shared by the text, JSON and HTML renderings. */
size_t compare_runs(const struct profile *p); /* 1 for a profile that is no merge */
bool compare_significant(const struct compare_row *r);
/* Counts and nanoseconds as integers, ratios with four digits. */
const char *compare_num(char *buf, size_t len, double v, bool sign);
/*
 * new - base of a row's means, and exactly 0 where the two differ only by
 * the rounding of their sums (under a billionth of the larger): equal runs
 * summed in another order must not print +3.638e-12.
 */
double compare_delta(const struct compare_row *r);
/*
 * A row's cells as text and HTML print them: base and new ("mean±sd",
 * "mean" or "-"), delta and ratio ("-" where there is none); a duration
 * with its unit (format_duration()), other values as compare_num() has them.
 */
struct compare_cells {
	char base[64], new[64], delta[DURATION_LEN], ratio[16];
};
void compare_cells(const struct compare_row *r, enum charset cs, struct compare_cells *out);
/* A lookup ratio row ("did_skip_ratio") of filesystem `fs`, 0 when `p` lacks it. */
double compare_fs_ratio(const struct profile *p, const char *fs, enum lookup_row ratio);

#endif
