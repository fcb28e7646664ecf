// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope compare --format html: one page that stands alone, the charts
 * as inline SVG (no script, no network), base and new in two colours.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "hist.h"
#include "html.h"
#include "metrics.h"

static const struct chart_series sides[2] = {
	{ "base", HTML_BASE_COLOUR }, { "new", HTML_NEW_COLOUR },
};

/* Which colour is which side: its name and kernel. */
static void legend(FILE *out, const struct compare *c)
{
	fputs("<p class=\"legend\">", out);
	for (int s = 0; s < 2; s++) {
		html_swatch(out, sides[s].colour, s ? "new: " : "base: ");
		html_text(out, s ? c->new_name : c->base_name, 60);
		fputs(" (kernel ", out);
		html_text(out, (s ? c->new : c->base)->kernel_release, 60);
		fputc(')', out);
	}
	fputs("</p>\n", out);
}

/* Did skip and would skip per filesystem, base and new bars in each. */
static void lookup_svg(FILE *out, const struct compare *c)
{
	static const char *const panels[] = { "did skip (fast path taken)", "would skip (eligible)" };
	static const enum lookup_row ratios[] = { L_DID_SKIP_RATIO, L_WOULD_SKIP_RATIO };
	const char **fss = calloc(c->base->nfs + c->new->nfs + 1, sizeof(*fss));
	double *v = calloc(4 * (c->base->nfs + c->new->nfs) + 1, sizeof(*v));
	size_t n = 0;

	for (int s = 0; s < 2 && fss && v; s++) {
		const struct profile *p = s ? c->new : c->base;

		for (size_t i = 0; i < p->nfs; i++)
			if (!s || !profile_find_fs(c->base, p->fs[i].name))
				fss[n++] = p->fs[i].name;
	}
	for (size_t g = 0; g < n; g++)
		for (int k = 0; k < 4; k++) {
			const struct profile *p = k % 2 ? c->new : c->base;

			v[g * 4 + k] = profile_find_fs(p, fss[g]) ?
				compare_fs_ratio(p, fss[g], ratios[k / 2]) : NAN;
		}
	if (n) {
		fputs("<h2>Lookup: did skip and would skip, per filesystem</h2>\n", out);
		legend(out, c);
		fputs("<p class=\"note\">Each bar is the share of a filesystem's MAY_EXEC checks on "
		      "directories. <b>did skip</b>: checks the lookup fast path took, without the full "
		      "<code>inode_permission()</code>; <b>would skip</b>: checks on directories "
		      "eligible for it (what a stock kernel would gain). A bar of 0% is a mark on the "
		      "axis labelled 0%; <i>not seen</i>: that side recorded no check on the "
		      "filesystem.</p>\n", out);
		svg_share_bars(out, &(struct share_chart){
			.label = "did skip and would skip per filesystem, base and new",
			.axis = "share of MAY_EXEC directory checks", .groups = fss, .ngroups = n,
			.panels = panels, .npanels = 2, .series = sides, .nseries = 2, .v = v });
	}
	free(fss);
	free(v);
}

/* One outcome's latency, base and new, with both sides' calls and percentiles. */
static void hist_figure(FILE *out, enum family_id f, const struct schema_row *r,
			const struct hist *a, const struct hist *b)
{
	const struct hist *h[2] = { a, b };
	char label[96], q[2][DURATION_LEN];

	fprintf(out, "<figure><figcaption><b>%s, outcome %s</b>", family_name(f), r->name);
	for (int s = 0; s < 2; s++) {
		fprintf(out, "%s %s: %llu calls", s ? ";" : " &mdash;", sides[s].name,
			(unsigned long long)h[s]->count);
		if (h[s]->count)
			fprintf(out, ", p50 %s, p99 %s",
				format_duration(q[0], sizeof(q[0]), hist_quantile(h[s], 0.5), false,
						CHARSET_UTF8),
				format_duration(q[1], sizeof(q[1]), hist_quantile(h[s], 0.99), false,
						CHARSET_UTF8));
	}
	fputs("</figcaption>\n", out);
	snprintf(label, sizeof(label), "latency of %s, outcome %s, base and new", family_name(f),
		 r->name);
	svg_hist(out, &(struct hist_chart){ .label = label, .h = h, .series = sides, .nseries = 2 });
	fputs("</figure>\n", out);
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
			fprintf(out, "<table><tr><th>metric</th><th>base</th><th>new</th><th>delta</th>"
				"<th>ratio</th><th>p (%s)</th></tr>\n",
				c->test == STATS_MANN_WHITNEY ? "Mann-Whitney" : "Welch");
		any = true;
		compare_cells(r, CHARSET_UTF8, &t);
		fputs("<tr><td>", out);
		html_text(out, r->name, 0);
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
	html_begin(out, "permscope compare");
	fputs("<h1>permscope compare</h1>\n<table class=\"sides\">\n", out);
	for (int s = 0; s < 2; s++) {
		const struct profile *p = s ? c->new : c->base;

		fprintf(out, "<tr><th>%s</th><td>", sides[s].name);
		html_text(out, s ? c->new_name : c->base_name, 0);
		fputs("</td><td>kernel ", out);
		html_text(out, p->kernel_release, 0);
		/* the fourth fast path, a fact of each kernel */
		fprintf(out, "<br>cred refcount line %s", p->cred_line_kept ?
			cred_layout_answer_names[p->cred_line] : "not kept");
		fputs("</td><td>host ", out);
		html_text(out, p->hostname, 0);
		fputs("</td><td>", out);
		for (char **a = p->command; a && *a; a++) {
			html_text(out, *a, 0);
			fputc(' ', out);
		}
		if (!p->command)
			fputs("(whole machine)", out);
		fprintf(out, "</td><td>%zu run%s</td></tr>\n", compare_runs(p),
			compare_runs(p) > 1 ? "s" : "");
	}
	fprintf(out, "</table>\n<p class=\"note\">Where a side has several runs: mean&plusmn;sd "
		"over its runs, %s; ~ marks a difference that is not significant (p &ge; 0.05). "
		"ratio: new / base.</p>\n", stats_test_titles[c->test]);
	lookup_svg(out, c);
	for (int f = 0; f < FAMILY_COUNT; f++)
		outcomes_html(out, c, f);
	if (any_outcomes(c)) {
		fputs("<h2>Latency histograms</h2>\n", out);
		legend(out, c);
		fputs("<p class=\"note\">One chart an outcome. x: latency in log2 buckets, each "
		      "bar holding the calls from the tick on its left up to the next; y: the share "
		      "of that side's calls in the bucket, so sides with different numbers of calls "
		      "compare. Base is the left bar of a bucket, new the right; a dashed line marks "
		      "each side's median (p50).</p>\n", out);
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		bool known = !c->base->fam[f].no_latency && !c->new->fam[f].no_latency;

		if (!known && recorded(c, f) && schema_has_latency(&schema[f]))
			fprintf(out, "<p>%s: latency not measured on one side or both (--lean)</p>\n",
				family_name(f));
		for (int o = 0; o < schema[f].nrows && known; o++) {
			const struct schema_row *r = &schema[f].rows[o];

			if (r->kind != ROW_OUTCOME || !recorded(c, f))
				continue;
			hist_figure(out, f, r, schema_hist(r, profile_stats(c->base, f, 0)),
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
	html_end(out);
}
