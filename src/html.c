// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Inline SVG written by hand: deterministic, testable, nothing to fetch.
 * Every number drawn is finite (a share of nothing is 0, an absent value
 * is said in words), every outside string escaped, every label inside its
 * viewBox: the widths are fixed, long names cut with "…".
 */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "stats.h"
#include "util.h"

void html_begin(FILE *out, const char *title)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>%s</title>\n<style>\n"
		"body{font-family:sans-serif;margin:2em auto;padding:0 1em;max-width:62em;"
		"color:#222;line-height:1.4}\n"
		"table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
		"td,th{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}\n"
		"td:first-child,th:first-child{text-align:left;font-family:monospace}\n"
		"table.sides td{text-align:left}\n"
		"figure{margin:0 0 1.5em}figcaption{font-size:0.9em;margin-bottom:0.3em}\n"
		"svg.chart{display:block;width:100%%;max-width:760px;height:auto}\n"
		"svg.chart text{font-family:sans-serif;fill:#222}\n"
		".legend{font-size:0.9em}.legend span.sw{display:inline-block;width:0.9em;"
		"height:0.9em;vertical-align:middle;margin:0 0.3em 0 0.8em}\n"
		".legend span.sw:first-child{margin-left:0}\n"
		".note{color:#555;font-size:0.9em}\n"
		"</style></head><body>\n", title);
}

void html_end(FILE *out)
{
	fputs("</body></html>\n", out);
}

void html_text(FILE *out, const char *s, int max)
{
	size_t size = 4 * strlen(s ? s : "") + 8;
	char *buf = malloc(size);
	int n = 0;

	if (!buf)
		return;
	escape_text(s, buf, size);
	for (const char *p = buf; *p; p++) {
		bool lead = ((unsigned char)*p & 0xc0) != 0x80;

		if (lead && max > 0 && ++n == max && text_width(p) > 1) {
			fputs("\u2026", out);
			break;
		}
		switch (*p) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
	free(buf);
}

void html_swatch(FILE *out, const char *colour, const char *label)
{
	fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>%s", colour, label);
}

/* A share for a label: "0%", "<0.1%", "87.5%", "100%"; never NaN. */
static const char *share_text(char *buf, size_t size, double v)
{
	if (!isfinite(v) || v <= 0)
		snprintf(buf, size, "0%%");
	else if (v >= 1)
		snprintf(buf, size, "100%%");
	else if (v < 0.0005)
		snprintf(buf, size, "<0.1%%");
	else
		snprintf(buf, size, "%.1f%%", 100 * v);
	return buf;
}

#define CHART_W 760
#define LABEL_W 150 /* the groups' names, right-aligned before the panels */
#define VALUE_W 52  /* room after a bar for its value, "100.0%" */
#define BAR_H 16
#define FONT "font-size=\"12\""

void svg_share_bars(FILE *out, const struct share_chart *c)
{
	const int top = 40, bottom = 34, gap = 20;
	const int group_h = (int)c->nseries * (BAR_H + 3) + 12;
	const int h = top + (int)c->ngroups * group_h + bottom;
	const int pw = (CHART_W - LABEL_W - gap * (int)c->npanels) / (int)(c->npanels ? c->npanels : 1);
	const int bw = pw - VALUE_W;

	fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		CHART_W, h, c->label);
	for (size_t p = 0; p < c->npanels; p++) {
		int x0 = LABEL_W + gap + (int)p * (pw + gap);

		fprintf(out, "<text x=\"%d\" y=\"16\" " FONT " font-weight=\"bold\">%s</text>\n", x0,
			c->panels[p]);
		for (int pct = 0; pct <= 100; pct += 25) {
			int x = x0 + pct * bw / 100;

			fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
				"<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d%%"
				"</text>\n", x, x, top - 8, h - bottom + 4, pct ? "#ddd" : "#555", x,
				h - bottom + 18, pct);
		}
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
		LABEL_W + (CHART_W - LABEL_W) / 2, h - 4, c->axis);
	for (size_t g = 0; g < c->ngroups; g++) {
		int y0 = top + (int)g * group_h;

		fprintf(out, "<text x=\"%d\" y=\"%d\" " FONT " text-anchor=\"end\" "
			"class=\"group\"><title>", LABEL_W,
			y0 + ((int)c->nseries * (BAR_H + 3) - 3) / 2 + 4);
		html_text(out, c->groups[g], 0);
		fputs("</title>", out);
		html_text(out, c->groups[g], 22);
		fputs("</text>\n", out);
		for (size_t p = 0; p < c->npanels; p++) {
			int x0 = LABEL_W + gap + (int)p * (pw + gap);

			for (size_t s = 0; s < c->nseries; s++) {
				double v = c->v[(g * c->npanels + p) * c->nseries + s];
				int y = y0 + (int)s * (BAR_H + 3);
				double w = isfinite(v) ? fmin(fmax(v, 0), 1) * bw : 0;
				char t[16];

				if (!isfinite(v)) {
					fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
						"font-style=\"italic\" fill=\"#777\">%s: not seen"
						"</text>\n", x0 + 4, y + BAR_H - 4, c->series[s].name);
					continue;
				}
				share_text(t, sizeof(t), v);
				/* 0: a mark on the axis as tall as a bar, so it reads as a value */
				fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
					"fill=\"%s\"><title>%s, ", x0, y, w < 3 ? 3 : w, BAR_H,
					c->series[s].colour, c->series[s].name);
				html_text(out, c->groups[g], 0);
				fprintf(out, ", %s: %s</title></rect>\n", c->panels[p], t);
				fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" class=\"value\">"
					"%s</text>\n", x0 + (w < 3 ? 3 : w) + 4, y + BAR_H - 4, t);
			}
		}
	}
	fputs("</svg>\n", out);
}

/* A step of 1, 2 or 5 times a power of ten that gives at most 5 ticks up to `max`. */
static double nice_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* The x of a latency on the bucket axis: linear inside its log2 bucket. */
static double latency_x(double ns, int first, double left, double sw)
{
	unsigned int slot = hist_slot(ns < 0 ? 0 : (__u64)ns);
	double lo = (double)hist_lo(slot), hi = (double)hist_hi(slot);
	double frac = hist_hi(slot) == UINT64_MAX || hi <= lo ? 0 : (ns - lo) / (hi - lo);

	return left + (slot - first + fmin(fmax(frac, 0), 1)) * sw;
}

void svg_hist(FILE *out, const struct hist_chart *c)
{
	const int left = 64, right = 40, top = 16 + 16 * (int)c->nseries, bottom = 52, h = 300;
	const double pw = CHART_W - left - right, ph = h - top - bottom;
	int first = -1, last = -1, every;
	double ymax = 0, step, sw;
	char a[2 * DURATION_LEN], b[DURATION_LEN];

	for (size_t s = 0; s < c->nseries; s++)
		for (int i = 0; i < HIST_SLOTS; i++) {
			if (!c->h[s]->slots[i] || !c->h[s]->count)
				continue;
			first = first < 0 || i < first ? i : first;
			last = i > last ? i : last;
			ymax = fmax(ymax, (double)c->h[s]->slots[i] / c->h[s]->count);
		}
	if (first < 0)
		return;
	ymax = fmin(ymax, 1);
	step = nice_step(ymax);
	ymax = ceil(ymax / step - 1e-9) * step;
	sw = pw / (last - first + 1);
	every = (int)ceil(58.0 / sw); /* a label needs about 58 px */
	fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		CHART_W, h, c->label);
	for (int k = 0; k * step <= ymax + 1e-9; k++) {
		double y = top + ph - k * step / ymax * ph;

		fprintf(out, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g%%</text>\n",
			left, left + pw, y, y, k ? "#ddd" : "#555", left - 6, y + 4, 100 * k * step);
	}
	fprintf(out, "<text transform=\"translate(14 %.0f) rotate(-90)\" font-size=\"11\" "
		"text-anchor=\"middle\">share of calls</text>\n", top + ph / 2);
	for (int i = first; i <= last + 1; i++) {
		double x = left + (i - first) * sw;

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>",
			x, x, top + ph, top + ph + 4);
		if ((i - first) % every == 0 || i == last + 1)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
				"text-anchor=\"middle\">%s</text>", x, top + ph + 16,
				i < HIST_SLOTS ? format_duration(a, sizeof(a), (double)hist_lo(i),
								 false, CHARSET_UTF8) : "\u221e");
		fputc('\n', out);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">latency "
		"(log2 buckets: a bar holds the calls from the tick on its left up to the one on its "
		"right)</text>\n", left + pw / 2, h - 8);
	for (int i = first; i <= last; i++) {
		double slot_x = left + (i - first) * sw, bw = (sw - 4) / c->nseries;

		for (size_t s = 0; s < c->nseries; s++) {
			__u64 n = c->h[s]->slots[i];
			double share = c->h[s]->count ? (double)n / c->h[s]->count : 0;
			double bh = fmin(share / ymax, 1) * ph;

			if (!n)
				continue;
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\"><title>%s: %s, %llu calls (%.1f%%)</title></rect>\n",
				slot_x + 2 + s * bw, top + ph - fmax(bh, 1), bw, fmax(bh, 1),
				c->series[s].colour, c->series[s].name,
				hist_range(i, CHARSET_UTF8, a, sizeof(a)), (unsigned long long)n,
				100 * share);
		}
	}
	/* p50 of each series: a dashed line, its value in the series' row above the plot */
	for (size_t s = 0; s < c->nseries; s++) {
		double x;

		if (!c->h[s]->count) {
			fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s: no "
				"calls</text>\n", left, 14 + 16 * (int)s, c->series[s].colour,
				c->series[s].name);
			continue;
		}
		x = latency_x(hist_quantile(c->h[s], 0.5), first, left, sw);
		format_duration(b, sizeof(b), hist_quantile(c->h[s], 0.5), false, CHARSET_UTF8);
		/* dark, so that it shows over its own bars too; the label names the side */
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#222\" "
			"stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%d\" "
			"font-size=\"11\" text-anchor=\"%s\">%s%sp50 %s</text>\n", x, x, top - 2,
			top + ph, x > left + pw / 2 ? x - 4 : x + 4, 14 + 16 * (int)s,
			x > left + pw / 2 ? "end" : "start", c->nseries > 1 ? c->series[s].name : "",
			c->nseries > 1 ? " " : "", b);
	}
	fputs("</svg>\n", out);
}
