// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope compare --format html: one page that stands alone, the charts
 * as inline SVG (no script, no network), base and new in two colours.
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "hist.h"
#include "metrics.h"

static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

#define BASE_COLOR "#4e79a7"
#define NEW_COLOR "#f28e2b"

static void legend(FILE *out)
{
	fprintf(out, "<p class=\"legend\"><span style=\"background:%s\"></span> base "
		"<span style=\"background:%s\"></span> new</p>\n", BASE_COLOR, NEW_COLOR);
}

/* Grouped bars: did skip and would skip %, base and new, per filesystem. */
static void lookup_svg(FILE *out, const struct compare *c)
{
	const int bw = 14, gap = 40, h = 200, top = 20;
	const char *fss[64];
	size_t n = 0;
	int w;

	for (int s = 0; s < 2; s++) {
		const struct profile *p = s ? c->new : c->base;

		for (size_t i = 0; i < p->nfs && n < 64; i++) {
			size_t j;

			for (j = 0; j < n && strcmp(fss[j], p->fs[i].name); j++)
				;
			if (j == n)
				fss[n++] = p->fs[i].name;
		}
	}
	if (!n)
		return;
	w = 60 + (int)n * (4 * bw + gap);
	fprintf(out, "<h2>Lookup: did skip and would skip, %% of MAY_EXEC directory checks</h2>\n");
	legend(out);
	fprintf(out, "<svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"skip ratios per filesystem\">\n",
		w, h + top + 40);
	for (int pct = 0; pct <= 100; pct += 25)
		fprintf(out, "<line x1=\"50\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
			"<text x=\"45\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%d%%</text>\n",
			w, top + h - pct * h / 100, top + h - pct * h / 100, top + h - pct * h / 100 + 4, pct);
	for (size_t i = 0; i < n; i++) {
		int x0 = 60 + (int)i * (4 * bw + gap);

		for (int k = 0; k < 4; k++) {
			const struct profile *p = k % 2 ? c->new : c->base;
			double v = compare_fs_ratio(p, fss[i], k < 2 ? L_DID_SKIP_RATIO :
								  L_WOULD_SKIP_RATIO);
			fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"%s>"
				"<title>%s %s %.1f%%</title></rect>\n", x0 + k * bw, top + h - v * h, bw - 2,
				v * h, k % 2 ? NEW_COLOR : BASE_COLOR, k < 2 ? "" : " opacity=\"0.5\"",
				k % 2 ? "new" : "base", k < 2 ? "did skip" : "would skip", 100 * v);
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">",
			x0 + 2 * bw, top + h + 16);
		esc(out, fss[i]);
		fprintf(out, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">"
			"did | would</text>\n", x0 + 2 * bw, top + h + 30);
	}
	fputs("</svg>\n", out);
}

/* Two histograms overlaid on one log2 axis. */
static void hist_svg(FILE *out, const char *title, const struct hist *a, const struct hist *b)
{
	const int h = 120, bw = 22, top = 10;
	int first, last, w;
	__u64 max;

	if (!hist_pair_range(a, b, &first, &last, &max))
		return;
	w = 20 + (last - first + 1) * bw;
	fprintf(out, "<figure><figcaption>");
	esc(out, title);
	fprintf(out, " &mdash; p50 %.0f / %.0f ns, p99 %.0f / %.0f ns</figcaption>\n"
		"<svg width=\"%d\" height=\"%d\" role=\"img\">\n", hist_quantile(a, 0.5),
		hist_quantile(b, 0.5), hist_quantile(a, 0.99), hist_quantile(b, 0.99), w, h + top + 30);
	for (int i = first; i <= last; i++) {
		int x = 10 + (i - first) * bw;

		for (int s = 0; s < 2; s++) {
			__u64 v = (s ? b : a)->slots[i];
			double hh = (double)v * h / max;

			fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\" "
				"opacity=\"0.6\"><title>%s [%llu, ...) ns: %llu</title></rect>\n", x,
				top + h - hh, bw - 2, hh, s ? NEW_COLOR : BASE_COLOR, s ? "new" : "base",
				(unsigned long long)hist_lo(i), (unsigned long long)v);
		}
		if ((i - first) % 2 == 0)
			fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"9\">2^%d</text>\n", x,
				top + h + 14, i);
	}
	fputs("</svg></figure>\n", out);
}

/* The metrics of family `f`; -1: the bench.* metrics, which belong to no family. */
static void metrics_table_html(FILE *out, const struct compare *c, int f)
{
	bool any = false;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *r = &c->rows[i];
		struct compare_cells t;

		if (metric_family(r->name) != f)
			continue;
		if (!any)
			fprintf(out, "<table><tr><th>metric</th><th>base</th><th>new</th><th>delta</th><th>ratio</th>"
				"<th>p (%s)</th></tr>\n",
				c->test == STATS_MANN_WHITNEY ? "Mann-Whitney" : "Welch");
		any = true;
		compare_cells(r, CHARSET_UTF8, &t);
		fputs("<tr><td>", out);
		esc(out, r->name);
		fprintf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>", t.base, t.new,
			t.delta, t.ratio);
		if (r->tested)
			fprintf(out, "<td>%s%.3g</td></tr>\n", compare_significant(r) ? "" : "~ ", r->p);
		else
			fputs("<td>-</td></tr>\n", out);
	}
	if (any)
		fputs("</table>\n", out);
}

/* Recorded on either side. */
static bool recorded(const struct compare *c, enum family_id f)
{
	return c->base->fam[f].status == FAMILY_OK || c->new->fam[f].status == FAMILY_OK;
}

static bool any_outcomes(const struct compare *c)
{
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; recorded(c, f) && i < schema[f].nrows; i++)
			if (schema[f].rows[i].kind == ROW_OUTCOME)
				return true;
	return false;
}

/* "Access outcomes": calls per outcome, base and new. */
static void outcomes_html(FILE *out, const struct compare *c, enum family_id f)
{
	const struct family_schema *fs = &schema[f];
	bool any = false;

	for (int i = 0; recorded(c, f) && i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];

		if (r->kind != ROW_OUTCOME)
			continue;
		if (!any)
			fprintf(out, "<h2>%c%s outcomes</h2>\n<table><tr><th>outcome</th>"
				"<th>base calls</th><th>new calls</th></tr>\n",
				fs->name[0] - 'a' + 'A', fs->name + 1);
		any = true;
		fprintf(out, "<tr><td>%s</td><td>%llu</td><td>%llu</td></tr>\n", r->name,
			(unsigned long long)*schema_counter(r, profile_stats(c->base, f, 0)),
			(unsigned long long)*schema_counter(r, profile_stats(c->new, f, 0)));
	}
	if (any)
		fputs("</table>\n", out);
}

void compare_html(FILE *out, const struct compare *c)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>permscope compare</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;max-width:70em;color:#222}\n"
	      "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
	      "td,th{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}\n"
	      "td:first-child,th:first-child{text-align:left;font-family:monospace}\n"
	      "figure{display:inline-block;margin:0 1.5em 1em 0}figcaption{font-size:0.85em}\n"
	      ".legend span{display:inline-block;width:1em;height:1em;vertical-align:middle}\n"
	      "</style></head><body>\n<h1>permscope compare</h1>\n<table>\n", out);
	for (int s = 0; s < 2; s++) {
		const struct profile *p = s ? c->new : c->base;

		fprintf(out, "<tr><th>%s</th><td>", s ? "new" : "base");
		esc(out, s ? c->new_name : c->base_name);
		fputs("</td><td>kernel ", out);
		esc(out, p->kernel_release);
		fputs("</td><td>", out);
		if (p->command)
			for (char **a = p->command; *a; a++) {
				esc(out, *a);
				fputc(' ', out);
			}
		else
			fputs("(whole machine)", out);
		fprintf(out, "</td><td>%zu run%s</td></tr>\n", compare_runs(p), compare_runs(p) > 1 ? "s" : "");
	}
	fprintf(out, "</table>\n<p>Where a side has several runs: mean&plusmn;sd, %s; "
		"~ marks a difference that is not significant (p &ge; 0.05).</p>\n",
		stats_test_titles[c->test]);
	lookup_svg(out, c);
	for (int f = 0; f < FAMILY_COUNT; f++)
		outcomes_html(out, c, f);
	if (any_outcomes(c)) {
		fputs("<h2>Latency histograms</h2>\n", out);
		legend(out);
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		bool known = !c->base->fam[f].no_latency && !c->new->fam[f].no_latency;

		if (!known && recorded(c, f) && schema_has_latency(&schema[f]))
			fprintf(out, "<p>%s: latency not measured on one side or both (--lean)</p>\n",
				family_name(f));
		for (int o = 0; o < schema[f].nrows && known; o++) {
			const struct schema_row *r = &schema[f].rows[o];
			char t[64];

			if (r->kind != ROW_OUTCOME || !recorded(c, f))
				continue;
			snprintf(t, sizeof(t), "%s, %s", family_name(f), r->name);
			hist_svg(out, t, schema_hist(r, profile_stats(c->base, f, 0)),
				 schema_hist(r, profile_stats(c->new, f, 0)));
		}
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (c->base->fam[f].status == FAMILY_NOT_REQUESTED &&
		    c->new->fam[f].status == FAMILY_NOT_REQUESTED)
			continue;
		fprintf(out, "<h2>%s [%s | %s]</h2>\n", schema[f].title, family_state_text(&c->base->fam[f]),
			family_state_text(&c->new->fam[f]));
		metrics_table_html(out, c, f);
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (metric_is_bench(c->rows[i].name)) {
			fputs("<h2>Benchmarks (permscope bench)</h2>\n", out);
			metrics_table_html(out, c, -1);
			break;
		}
	fputs("</body></html>\n", out);
}
