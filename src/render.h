/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The per-fs skip report, from a profile, as text, JSON or CSV. */
#ifndef PERMSCOPE_RENDER_H
#define PERMSCOPE_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "profile.h"

#define REPORT_FORMAT "permscope-report/1"

/* The formats outputs are written in; each renderer takes the ones it has. */
enum output_format {
	FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_HTML,
	FORMAT_OPENMETRICS, /* report: prom.c's metrics, timestamped, for a backfill */
	FORMAT_COUNT
};

/* `histograms` false gives the one-screen summary `record` prints. */
void render_text(FILE *out, const struct profile *p, bool histograms);
/* One JSON document, "permscope-report/1" (docs/report.md). */
int render_json(FILE *out, const struct profile *p);
/*
 * What a windowed family's counts are of (daemon --duty-cycle), in the JSON
 * of report, compare and gate: {window_s, period_s, seconds, windows,
 * failed_windows}.  NULL for a family that counted every call, or did not
 * record.
 */
json_t *render_observed_json(const struct family_result *r);
/* family,subject,metric,value rows with a header line. */
void render_csv(FILE *out, const struct profile *p);
/* A page that stands alone: tables and inline SVG charts (src/render_html.c). */
void render_html(FILE *out, const struct profile *p);

/* Shared by the text and HTML reports. */
/* The lookup "ineligible" row most often seen, -1 when every check was eligible. */
int render_main_reason(const struct lookup_stats *s);
/* The filesystems ordered for reading, busiest first (calloc'ed, NULL-ended; NULL: no memory). */
const struct fs_result **render_fs_sorted(const struct profile *p);

#endif
