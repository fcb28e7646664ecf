/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Two profiles aligned family by family, metric by metric, with statistics. */
#ifndef PERMSCOPE_COMPARE_H
#define PERMSCOPE_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "stats.h"

#define COMPARE_FORMAT "permscope-compare/1"

struct compare_row {
	char name[METRIC_NAME_LEN];
	struct sample_summary base, cur;
	bool in_base, in_cur;
	struct welch w;       /* valid when both sides have >= 2 runs */
};

struct compare {
	const struct profile *base, *cur;
	const char *base_name, *cur_name;
	struct compare_row *rows;
	size_t nrows;
};

/* Rows for the metrics compare shows, in report order.  0 or -ENOMEM. */
int compare_build(struct compare *c);
void compare_free(struct compare *c);

void compare_text(FILE *out, const struct compare *c);
int compare_json(FILE *out, const struct compare *c);
void compare_html(FILE *out, const struct compare *c);

#endif
