// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "metrics.h"

#define SIGNIFICANCE 0.05

/*
 * The metrics a comparison shows, in this order; "[]" stands for every
 * filesystem.  The full namespace stays available to gate.
 */
static const char *const shown[] = {
	"lookup.did_skip_ratio", "lookup.would_skip_ratio", "lookup.violations",
	"lookup.checks[]", "lookup.did_skip_ratio[]", "lookup.would_skip_ratio[]",
	"lookup.violations[]",
	"access.calls", "access.avoidable_per_call", "access.needed_per_call",
	"access.fast_ratio", "access.unsafe", "access.latency.mean", "access.latency.p50",
	"access.latency.p99",
	"exec.calls", "exec.enoent", "exec.enoent_early_share", "exec.mm_allocs",
	"exec.enoent.latency.p50", "exec.enoent.latency.p99", "exec.ok.latency.p50",
};

static bool metrics_has_fs(const struct profile *p, const char *fs)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (!strcmp(p->fs[i].name, fs))
			return true;
	return false;
}

static int shown_rank(const char *name)
{
	const char *br = strchr(name, '[');
	size_t stem = br ? (size_t)(br - name) : strlen(name);

	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		size_t len = strlen(shown[i]);
		bool wild = len > 2 && !strcmp(shown[i] + len - 2, "[]");

		if (wild ? (br && stem == len - 2 && !strncmp(name, shown[i], stem))
			 : !strcmp(name, shown[i]))
			return (int)i;
	}
	return -1;
}

/* Family metrics in the order of `shown`; per-fs ones grouped by filesystem. */
static int row_cmp(const void *a, const void *b)
{
	const struct compare_row *x = a, *y = b;
	const char *fx = strchr(x->name, '['), *fy = strchr(y->name, '[');
	int rx = shown_rank(x->name), ry = shown_rank(y->name), c;

	if (fx && fy && (c = strcmp(fx, fy)))
		return c;
	if (!fx != !fy && metric_family(x->name) == metric_family(y->name))
		return fx ? 1 : -1;
	return rx != ry ? rx - ry : strcmp(x->name, y->name);
}

static void side(const struct profile *p, const char *name, struct sample_summary *s,
		 bool *present)
{
	double *v = NULL;
	size_t n = metric_samples(p, name, &v);

	summarize(v, n, s);
	*present = n > 0;
	free(v);
}

static int add_row(struct compare *c, const char *name)
{
	struct compare_row *r;

	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].name, name))
			return 0;
	r = realloc(c->rows, (c->nrows + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	c->rows = r;
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	side(c->base, name, &r->base, &r->in_base);
	side(c->cur, name, &r->cur, &r->in_cur);
	welch_test(&r->base, &r->cur, &r->w);
	return 0;
}

int compare_build(struct compare *c)
{
	const struct profile *sides[2] = { c->base, c->cur };
	int err = 0;

	c->rows = NULL;
	c->nrows = 0;
	for (int s = 0; s < 2 && !err; s++) {
		struct metric_list l;

		if ((err = metrics_collect(sides[s], &l)))
			break;
		for (size_t i = 0; i < l.n && !err; i++)
			if (shown_rank(l.m[i].name) >= 0)
				err = add_row(c, l.m[i].name);
		metrics_free(&l);
	}
	if (c->nrows)
		qsort(c->rows, c->nrows, sizeof(*c->rows), row_cmp);
	return err;
}

void compare_free(struct compare *c)
{
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

static size_t runs(const struct profile *p)
{
	return p->nruns ? p->nruns : 1;
}

/* ---- text --------------------------------------------------------------- */

/* Counts and nanoseconds as integers, ratios with four digits. */
static const char *num(char *buf, size_t len, double v, bool sign)
{
	snprintf(buf, len, fabs(v) >= 1000 ? (sign ? "%+.0f" : "%.0f") : (sign ? "%+.4g" : "%.4g"), v);
	return buf;
}

static void value_text(char *buf, size_t len, const struct sample_summary *s, bool present)
{
	char m[24], sd[24];

	if (!present)
		snprintf(buf, len, "-");
	else if (s->n > 1)
		snprintf(buf, len, "%.20s±%.20s", num(m, sizeof(m), s->mean, false),
			 num(sd, sizeof(sd), s->stddev, false));
	else
		snprintf(buf, len, "%s", num(m, sizeof(m), s->mean, false));
}

static bool significant(const struct compare_row *r)
{
	return r->w.valid && r->w.p < SIGNIFICANCE;
}

static void row_text(FILE *out, const struct compare_row *r, const char *label)
{
	char b[64], n[64], d[24] = "-", q[16] = "-", sig[24] = "";

	value_text(b, sizeof(b), &r->base, r->in_base);
	value_text(n, sizeof(n), &r->cur, r->in_cur);
	if (r->in_base && r->in_cur) {
		num(d, sizeof(d), r->cur.mean - r->base.mean, true);
		if (r->base.mean != 0)
			snprintf(q, sizeof(q), "%.3f", r->cur.mean / r->base.mean);
		else if (r->cur.mean == 0)
			snprintf(q, sizeof(q), "1.000");
		if (r->w.valid)
			snprintf(sig, sizeof(sig), significant(r) ? "p=%.3f" : "~ p=%.2f", r->w.p);
	}
	fprintf(out, "  %-24s %13s %13s %9s %6s%s%s\n", label, b, n, d, q, *sig ? " " : "", sig);
}

static const char *family_of_row(const char *name)
{
	int f = metric_family(name);

	return f >= 0 ? family_name(f) : "";
}

/* The buckets either histogram occupies, and the larger count; false if both are empty. */
static bool pair_range(const struct hist *a, const struct hist *b, int *first, int *last,
		       __u64 *max)
{
	*first = *last = -1;
	*max = 0;
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!a->slots[i] && !b->slots[i])
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
		*max = a->slots[i] > *max ? a->slots[i] : *max;
		*max = b->slots[i] > *max ? b->slots[i] : *max;
	}
	return *first >= 0;
}

/* A duration for reading: 850 ns, 15.6 us, 1.62 ms. */
static const char *dur(char *buf, double ns)
{
	if (ns < 1000)
		snprintf(buf, 16, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, 16, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, 16, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, 16, "%.3g s", ns / 1e9);
	return buf;
}

/* Two bars a bucket, base then new, scaled to the largest bucket of both. */
static void hist_pair_text(FILE *out, const char *title, const struct hist *a,
			   const struct hist *b)
{
	const int width = 16;
	int first, last;
	char t[6][16];
	__u64 max;

	if (!pair_range(a, b, &first, &last, &max))
		return;
	fprintf(out, "\n  %s\n  %-19s %8s %-*s %8s\n", title, "ns [lo, hi)", "base", width + 2, "",
		"new");
	for (int i = first; i <= last; i++) {
		char range[40];

		hist_range(i, range, sizeof(range));
		fprintf(out, "  %-19s %8llu |", range, (unsigned long long)a->slots[i]);
		for (int j = 0; j < width; j++)
			fputc(j < (int)((a->slots[i] * width + max - 1) / max) ? '@' : ' ', out);
		fprintf(out, "| %8llu |", (unsigned long long)b->slots[i]);
		for (int j = 0; j < width; j++)
			fputc(j < (int)((b->slots[i] * width + max - 1) / max) ? '#' : ' ', out);
		fputs("|\n", out);
	}
	fprintf(out, "  p50 %s / %s, p90 %s / %s, p99 %s / %s\n",
		dur(t[0], hist_quantile(a, 0.5)), dur(t[1], hist_quantile(b, 0.5)),
		dur(t[2], hist_quantile(a, 0.9)), dur(t[3], hist_quantile(b, 0.9)),
		dur(t[4], hist_quantile(a, 0.99)), dur(t[5], hist_quantile(b, 0.99)));
}

static double did_skip_of(const struct profile *p, const char *fs)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (!strcmp(p->fs[i].name, fs))
			return p->fs[i].s.checks ? (double)p->fs[i].s.did_skip / p->fs[i].s.checks : 0;
	return 0;
}

static void bar_pct(FILE *out, double v, char c, int width)
{
	fputc('|', out);
	for (int j = 0; j < width; j++)
		fputc(j < (int)(v * width + 0.5) ? c : ' ', out);
	fputc('|', out);
}

/* Did skip % per filesystem, two bars each: the per-fs histogram of the change. */
static void skip_bars_text(FILE *out, const struct compare *c)
{
	const struct profile *sides[2] = { c->base, c->cur };

	fprintf(out, "\n  did skip, %% of checks (@ base, # new)\n");
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nfs; i++) {
			const char *fs = sides[s]->fs[i].name;
			double a = did_skip_of(c->base, fs), b = did_skip_of(c->cur, fs);

			if (s && metrics_has_fs(c->base, fs))
				continue; /* listed with the base's filesystems */
			fprintf(out, "  %-12s %5.1f%% ", fs, 100 * a);
			bar_pct(out, a, '@', 20);
			fprintf(out, " %5.1f%% ", 100 * b);
			bar_pct(out, b, '#', 20);
			fputc('\n', out);
		}
}

static const char *mode_or_status(const struct family_result *r)
{
	return r->status == FAMILY_OK ? mode_name(r->mode) :
	       r->status == FAMILY_NOT_REQUESTED ? "not recorded" : "unavailable";
}

void compare_text(FILE *out, const struct compare *c)
{
	static const char *const titles[FAMILY_COUNT] = {
		[FAMILY_LOOKUP] = "Lookup: MAY_EXEC directory checks",
		[FAMILY_ACCESS] = "Access: faccessat cred override",
		[FAMILY_EXEC] = "Exec: execve and ENOENT",
	};

	fprintf(out, "permscope compare\n  base: %s\n        kernel %s, %zu run%s\n"
		"  new:  %s\n        kernel %s, %zu run%s\n",
		c->base_name, c->base->kernel_release, runs(c->base), runs(c->base) > 1 ? "s" : "",
		c->cur_name, c->cur->kernel_release, runs(c->cur), runs(c->cur) > 1 ? "s" : "");
	if (runs(c->base) > 1 || runs(c->cur) > 1)
		fprintf(out, "  mean±sd over runs; Welch's t-test, ~ marks p >= %.2f (not significant)\n",
			SIGNIFICANCE);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *rb = &c->base->fam[f], *rn = &c->cur->fam[f];
		bool any = false;

		if (rb->status == FAMILY_NOT_REQUESTED && rn->status == FAMILY_NOT_REQUESTED)
			continue;
		fprintf(out, "\n%s  [%s | %s]\n", titles[f], mode_or_status(rb), mode_or_status(rn));
		for (size_t i = 0; i < c->nrows; i++) {
			const char *name = c->rows[i].name;

			if (strcmp(family_of_row(name), family_name(f)))
				continue;
			if (!any)
				fprintf(out, "  %-24s %13s %13s %9s %6s\n", "metric", "base", "new",
					"delta", "ratio");
			any = true;
			row_text(out, &c->rows[i], name + strlen(family_name(f)) + 1);
		}
		if (!any)
			fprintf(out, "  nothing to compare: recorded on %s side\n",
				rb->status == FAMILY_OK || rn->status == FAMILY_OK ? "one" : "neither");
		if (rb->status != FAMILY_OK || rn->status != FAMILY_OK)
			continue;
		if (f == FAMILY_LOOKUP)
			skip_bars_text(out, c);
		if (f == FAMILY_ACCESS)
			for (int o = 0; o < ACCESS_OUTCOMES; o++) {
				char t[64];

				snprintf(t, sizeof(t), "latency, outcome %s (@ base, # new)",
					 access_outcome_names[o]);
				hist_pair_text(out, t, &c->base->access.latency[o], &c->cur->access.latency[o]);
			}
		if (f == FAMILY_EXEC)
			for (int o = 0; o < EXEC_OUTCOMES; o++) {
				char t[64];

				snprintf(t, sizeof(t), "latency, outcome %s (@ base, # new)",
					 exec_outcome_names[o]);
				hist_pair_text(out, t, &c->base->exec.latency[o], &c->cur->exec.latency[o]);
			}
	}
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *summary_json(const struct sample_summary *s, bool present)
{
	if (!present)
		return json_null();
	return json_pack("{s:I,s:f,s:f}", "n", (json_int_t)s->n, "mean", s->mean,
			 "stddev", s->stddev);
}

static json_t *hist_json(const struct hist *h)
{
	json_t *buckets = json_array();

	for (int i = 0; i < HIST_SLOTS; i++)
		if (h->slots[i])
			json_array_append_new(buckets, json_pack("{s:I,s:o,s:I}",
				"lo", (json_int_t)hist_lo(i),
				"hi", hist_hi(i) == UINT64_MAX ? json_null() : json_integer(hist_hi(i)),
				"count", (json_int_t)h->slots[i]));
	return json_pack("{s:I,s:f,s:f,s:f,s:o}", "count", (json_int_t)h->count,
			 "p50", hist_quantile(h, 0.5), "p90", hist_quantile(h, 0.9),
			 "p99", hist_quantile(h, 0.99), "buckets", buckets);
}

static json_t *hists_json(const struct compare *c, enum family_id f)
{
	json_t *o = json_object();
	int n = f == FAMILY_ACCESS ? ACCESS_OUTCOMES : EXEC_OUTCOMES;

	for (int i = 0; i < n; i++) {
		const struct hist *a = f == FAMILY_ACCESS ? &c->base->access.latency[i]
							  : &c->base->exec.latency[i];
		const struct hist *b = f == FAMILY_ACCESS ? &c->cur->access.latency[i]
							  : &c->cur->exec.latency[i];

		json_object_set_new(o, f == FAMILY_ACCESS ? access_outcome_names[i] :
				    exec_outcome_names[i],
				    json_pack("{s:o,s:o}", "base", hist_json(a), "new", hist_json(b)));
	}
	return o;
}

int compare_json(FILE *out, const struct compare *c)
{
	json_t *fams = json_object(), *root;
	int ret;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *rb = &c->base->fam[f], *rn = &c->cur->fam[f];
		json_t *rows = json_array(), *fj;

		for (size_t i = 0; i < c->nrows; i++) {
			const struct compare_row *r = &c->rows[i];
			bool both = r->in_base && r->in_cur;

			if (strcmp(family_of_row(r->name), family_name(f)))
				continue;
			json_array_append_new(rows, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
				"name", r->name,
				"base", summary_json(&r->base, r->in_base),
				"new", summary_json(&r->cur, r->in_cur),
				"delta", both ? json_real(r->cur.mean - r->base.mean) : json_null(),
				"ratio", both && r->base.mean != 0 ? json_real(r->cur.mean / r->base.mean)
								   : json_null(),
				"p", r->w.valid ? json_real(r->w.p) : json_null(),
				"ci95", r->w.valid ? json_pack("[f,f]", r->w.ci_lo, r->w.ci_hi) : json_null(),
				"significant", r->w.valid ? json_boolean(significant(r)) : json_null()));
		}
		fj = json_pack("{s:s,s:s,s:o}", "base_mode", mode_or_status(rb),
			       "new_mode", mode_or_status(rn), "metrics", rows);
		if (f != FAMILY_LOOKUP && rb->status == FAMILY_OK && rn->status == FAMILY_OK)
			json_object_set_new(fj, "latency", hists_json(c, f));
		json_object_set_new(fams, family_name(f), fj);
	}
	root = json_pack("{s:s,s:{s:s,s:s,s:I},s:{s:s,s:s,s:I},s:s,s:f,s:o}",
		"format", COMPARE_FORMAT,
		"base", "path", c->base_name, "kernel", c->base->kernel_release,
			"runs", (json_int_t)runs(c->base),
		"new", "path", c->cur_name, "kernel", c->cur->kernel_release,
			"runs", (json_int_t)runs(c->cur),
		"test", "welch-t", "alpha", SIGNIFICANCE,
		"families", fams);
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', out);
	json_decref(root);
	return ret;
}

/* ---- HTML --------------------------------------------------------------- */

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
		const struct profile *p = s ? c->cur : c->base;

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
			const struct profile *p = k % 2 ? c->cur : c->base;
			double v = 0;

			for (size_t j = 0; j < p->nfs; j++)
				if (!strcmp(p->fs[j].name, fss[i]) && p->fs[j].s.checks)
					v = (double)(k < 2 ? p->fs[j].s.did_skip : p->fs[j].s.would_skip) /
					    p->fs[j].s.checks;
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

	if (!pair_range(a, b, &first, &last, &max))
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

static void metrics_table_html(FILE *out, const struct compare *c, enum family_id f)
{
	bool any = false;

	for (size_t i = 0; i < c->nrows; i++) {
		const struct compare_row *r = &c->rows[i];
		char b[64], n[64];

		if (strcmp(family_of_row(r->name), family_name(f)))
			continue;
		if (!any)
			fputs("<table><tr><th>metric</th><th>base</th><th>new</th><th>delta</th>"
			      "<th>p (Welch)</th></tr>\n", out);
		any = true;
		value_text(b, sizeof(b), &r->base, r->in_base);
		value_text(n, sizeof(n), &r->cur, r->in_cur);
		fputs("<tr><td>", out);
		esc(out, r->name);
		fputs("</td><td>", out);
		esc(out, b);
		fputs("</td><td>", out);
		esc(out, n);
		if (r->in_base && r->in_cur)
			fprintf(out, "</td><td>%s</td>", num(b, sizeof(b), r->cur.mean - r->base.mean, true));
		else
			fputs("</td><td>-</td>", out);
		if (r->w.valid)
			fprintf(out, "<td>%s%.3g</td></tr>\n", significant(r) ? "" : "~ ", r->w.p);
		else
			fputs("<td>-</td></tr>\n", out);
	}
	if (any)
		fputs("</table>\n", out);
}

void compare_html(FILE *out, const struct compare *c)
{
	static const char *const titles[FAMILY_COUNT] = {
		[FAMILY_LOOKUP] = "Lookup", [FAMILY_ACCESS] = "Access", [FAMILY_EXEC] = "Exec",
	};

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
		const struct profile *p = s ? c->cur : c->base;

		fprintf(out, "<tr><th>%s</th><td>", s ? "new" : "base");
		esc(out, s ? c->cur_name : c->base_name);
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
		fprintf(out, "</td><td>%zu run%s</td></tr>\n", runs(p), runs(p) > 1 ? "s" : "");
	}
	fputs("</table>\n<p>Where a side has several runs: mean&plusmn;sd, Welch's t-test; "
	      "~ marks a difference that is not significant (p &ge; 0.05).</p>\n", out);
	lookup_svg(out, c);
	if (c->base->fam[FAMILY_ACCESS].status == FAMILY_OK ||
	    c->cur->fam[FAMILY_ACCESS].status == FAMILY_OK) {
		fputs("<h2>Access outcomes</h2>\n<table><tr><th>outcome</th><th>base calls</th>"
		      "<th>new calls</th></tr>\n", out);
		for (int o = 0; o < ACCESS_OUTCOMES; o++)
			fprintf(out, "<tr><td>%s</td><td>%llu</td><td>%llu</td></tr>\n",
				access_outcome_names[o], (unsigned long long)c->base->access.calls[o],
				(unsigned long long)c->cur->access.calls[o]);
		fputs("</table>\n", out);
	}
	if (c->base->fam[FAMILY_ACCESS].status == FAMILY_OK || c->cur->fam[FAMILY_ACCESS].status == FAMILY_OK ||
	    c->base->fam[FAMILY_EXEC].status == FAMILY_OK || c->cur->fam[FAMILY_EXEC].status == FAMILY_OK) {
		fputs("<h2>Latency histograms</h2>\n", out);
		legend(out);
	}
	for (int o = 0; o < ACCESS_OUTCOMES; o++) {
		char t[64];

		snprintf(t, sizeof(t), "access, %s", access_outcome_names[o]);
		hist_svg(out, t, &c->base->access.latency[o], &c->cur->access.latency[o]);
	}
	for (int o = 0; o < EXEC_OUTCOMES; o++) {
		char t[64];

		snprintf(t, sizeof(t), "exec, %s", exec_outcome_names[o]);
		hist_svg(out, t, &c->base->exec.latency[o], &c->cur->exec.latency[o]);
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (c->base->fam[f].status == FAMILY_NOT_REQUESTED &&
		    c->cur->fam[f].status == FAMILY_NOT_REQUESTED)
			continue;
		fprintf(out, "<h2>%s [%s | %s]</h2>\n", titles[f], mode_or_status(&c->base->fam[f]),
			mode_or_status(&c->cur->fam[f]));
		metrics_table_html(out, c, f);
	}
	fputs("</body></html>\n", out);
}
