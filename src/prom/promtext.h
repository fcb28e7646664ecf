/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Writing an exposition, whatever it holds: metric families (HELP, TYPE
 * and their samples) in the Prometheus text format 0.0.4 or as
 * OpenMetrics 1.0.  What is exported, under which names, is prom.c's.
 */
#ifndef PERMSCOPE_PROMTEXT_H
#define PERMSCOPE_PROMTEXT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* build_info's four, or mode, fs, outcome and le; and OpenMetrics's instance and job */
#define MAX_LABELS 8

struct label {
	const char *name, *value;
};

struct labels {
	struct label l[MAX_LABELS];
	int n;
};

/*
 * The exposition being written, and the one metric family in progress:
 * its HELP and its samples gather in memory and are written out together
 * by prom_end(), so that a family with no sample (no filesystem seen, no errno
 * counted) leaves no HELP and TYPE behind.
 */
struct prom {
	FILE *out;
	bool failed; /* ENOMEM somewhere */
	char name[128];
	const char *type;
	FILE *help, *body;
	char *help_buf, *body_buf;
	size_t help_len, body_len;
	/*
	 * OpenMetrics (prom_render_openmetrics()): instance and job on every
	 * series, and every series at two times, at[0] and at[1] (ms since
	 * the epoch: the profile's start and end).  `point` is -1 when
	 * prom_sample() writes both points of its series at once, or 0 or 1 while
	 * a histogram writes one point of its series whole: OpenMetrics keeps
	 * the lines of one point (its buckets, _sum and _count) together.
	 */
	bool om;
	const char *instance, *job;
	uint64_t at_ms[2];
	int point;
};

/* The shortest "%g" that reads back as the same double. */
void prom_format_double(char *buf, size_t size, double v);
/* Add a label (both strings must outlive the sample). */
void prom_label(struct labels *ls, const char *name, const char *value);
/* Start the metric family NAME of TYPE ("counter", "gauge", "histogram"). */
void prom_begin(struct prom *pr, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append to the HELP of the family in progress (escaped when written). */
void prom_help(struct prom *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void prom_sample(struct prom *pr, const char *suffix, const struct labels *ls,
		 const char *value);
void prom_sample_u64(struct prom *pr, const char *suffix, const struct labels *ls, __u64 v);
void prom_sample_double(struct prom *pr, const char *suffix, const struct labels *ls,
			double v);
/* Write the family out, HELP and TYPE first; nothing when it has no sample. */
void prom_end(struct prom *pr);

#endif
