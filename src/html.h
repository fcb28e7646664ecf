/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pieces of an HTML page that stands alone, shared by report and
 * compare --format html: its head and style, outside text escaped, and the
 * charts as inline SVG written here (no script, no font, no network), each
 * scaled by its viewBox to the page's width.
 */
#ifndef PERMSCOPE_HTML_H
#define PERMSCOPE_HTML_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "permscope.h"

#define HTML_BASE_COLOUR "#4e79a7"
#define HTML_NEW_COLOUR "#f28e2b"

/* "<!DOCTYPE html>" to "<body>" with the page's one style sheet; `title` is ours. */
void html_begin(FILE *out, const char *title);
void html_end(FILE *out);
/*
 * Outside text (a host, a filesystem, a command) as HTML or SVG text: a
 * control byte made visible as escape_text() does, then & < > " ' as
 * entities.  `max` > 0 cuts it to that many characters with "…".
 */
void html_text(FILE *out, const char *s, int max);
/* A swatch of `colour` and its label (ours), for a legend. */
void html_swatch(FILE *out, const char *colour, const char *label);

/* One side of a chart: a profile, its colour. */
struct chart_series {
	const char *name; /* "base", "new", or the profile's own */
	const char *colour;
};

/*
 * Horizontal bars of shares, 0 to 1: for each group (a filesystem) a row
 * in every panel ("did skip", "would skip"), one bar a series, its value
 * beside it.  0 is a mark on the axis labelled "0%", never an empty
 * space; NaN is "not seen" (the side has no such filesystem).
 * v[(group * npanels + panel) * nseries + series].
 */
struct share_chart {
	const char *label; /* the chart's accessible name */
	const char *axis;  /* what the shares are of: "share of path-walk checks" */
	const char *const *groups;
	size_t ngroups;
	const char *const *panels;
	size_t npanels;
	const struct chart_series *series;
	size_t nseries;
	const double *v;
};
void svg_share_bars(FILE *out, const struct share_chart *c);

/*
 * Latency histograms of one outcome, one per series, over the log2 buckets
 * any of them holds: each bucket's share of that series' calls, the series
 * side by side in it; x ticks at the bucket bounds with their units, y
 * ticks in %, each series' p50 a dashed line.
 */
struct hist_chart {
	const char *label;
	const struct hist *const *h;
	const struct chart_series *series;
	size_t nseries;
};
void svg_hist(FILE *out, const struct hist_chart *c);

#endif
