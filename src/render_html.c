// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope report --format html: the report of one profile as a page that
 * stands alone, the tables of the text report and its charts as inline SVG
 * (src/html.c), the same units as the text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "html.h"
#include "render.h"
#include "stats.h"
#include "util.h"

static const struct chart_series this_profile[1] = { { "this profile", HTML_BASE_COLOUR } };

static double pct(__u64 part, double whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static void header_html(FILE *out, const struct profile *p)
{
	char when[48];

	format_utc_ns(p->start_ns, when, sizeof(when));
	when[19] = 0;
	when[10] = ' ';
	fputs("<h1>permscope report</h1>\n<table class=\"sides\">\n<tr><th>host</th><td>", out);
	html_text(out, p->hostname, 0);
	fputs(" (", out);
	html_text(out, p->machine, 0);
	fputs(")</td></tr>\n<tr><th>kernel</th><td>", out);
	html_text(out, p->kernel_release, 0);
	if (p->cred_line_kept) /* the fourth fast path, a fact of that kernel */
		fprintf(out, "</td></tr>\n<tr><th>cred refcount line</th><td>%s",
			cred_layout_answer_names[p->cred_line]);
	fprintf(out, "</td></tr>\n<tr><th>recorded</th><td>%s UTC for %.2f s</td></tr>\n"
		"<tr><th>what</th><td>", when,
		p->end_ns > p->start_ns ? (p->end_ns - p->start_ns) / 1e9 : 0);
	if (p->command) {
		fputs("command:", out);
		for (char **a = p->command; *a; a++) {
			fputc(' ', out);
			html_text(out, *a, 0);
		}
	} else if (p->filter_pid) {
		fprintf(out, "pid %d and the processes it started", p->filter_pid);
	} else {
		fputs("all processes", out);
	}
	if (p->filter_comm[0]) {
		fputs("; only tasks named ", out);
		html_text(out, p->filter_comm, 0);
	}
	if (p->filter_cgroup[0]) {
		fputs("; only tasks in cgroup ", out);
		html_text(out, p->filter_cgroup, 0);
	}
	fputs("</td></tr>\n</table>\n", out);
	if (p->mixed) {
		fputs("<p class=\"note\">Merged from runs that differ (--allow-mixed): ", out);
		html_text(out, p->mixed, 0);
		fputs("</p>\n", out);
	}
	if (profile_clock_is_coarse(p)) {
		fputs("<p class=\"note\">Timed by the ", out);
		html_text(out, p->clocksource, 0);
		fputs(" clocksource, which steps every few ms: the latencies below are not "
		      "measurements; counts are exact.</p>\n", out);
	}
}

/* A family's heading; false (after saying why) when it did not record. */
static bool section(FILE *out, const struct profile *p, enum family_id f)
{
	const struct family_result *r = &p->fam[f];
	uint64_t lost;

	fprintf(out, "<h2>%s [%s]</h2>\n", schema[f].title, family_state_text(r));
	if (r->status == FAMILY_NOT_REQUESTED) {
		fputs("<p class=\"note\">Not recorded (not in --families).</p>\n", out);
		return false;
	}
	if (r->status != FAMILY_OK) {
		fputs("<p>Unavailable: no attach mode worked on this kernel.</p>\n<ul>\n", out);
		for (int i = 0; i < r->nattempts; i++) {
			fprintf(out, "<li>%s: ", mode_name(r->attempts[i].mode));
			html_text(out, r->attempts[i].why, 0);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
		return false;
	}
	if ((lost = family_lost_total(r)))
		fprintf(out, "<p class=\"note\">%llu events not counted (see the text report's LOST "
			"line): a count here may be off by up to that many.</p>\n",
			(unsigned long long)lost);
	return true;
}

static void lookup_html(FILE *out, const struct profile *p, enum family_id f)
{
	static const char *const panels[] = { "did skip (fast path taken)", "would skip (eligible)" };
	const struct family_schema *fs = &schema[f];
	const uint32_t absent = p->absent[f];
	const bool by_origin = !schema_row_absent(fs, L_ORIGIN_WALK, absent);
	const int n = by_origin ? L_ORIGIN_WALK : L_CHECKS;
	const int ratio[2] = { by_origin ? L_WALK_DID_SKIP_RATIO : L_DID_SKIP_RATIO,
			       by_origin ? L_WALK_WOULD_SKIP_RATIO : L_WOULD_SKIP_RATIO };
	const struct fs_result **sorted;
	const char **names;
	double *v;

	if (!section(out, p, f))
		return;
	if (!p->nfs) {
		fputs("<p>No directory MAY_EXEC checks seen.</p>\n", out);
		return;
	}
	sorted = render_fs_sorted(p);
	names = calloc(p->nfs, sizeof(*names));
	v = calloc(2 * p->nfs, sizeof(*v));
	if (!sorted || !names || !v)
		goto out;
	fprintf(out, "<table><tr><th>filesystem</th><th>%s</th><th>did skip</th>"
		"<th>would skip</th><th>opt-in</th><th>main ineligibility</th></tr>\n",
		by_origin ? "walks" : "checks");
	for (size_t i = 0; i < p->nfs; i++) {
		const struct lookup_stats *s = &sorted[i]->s;
		int why = render_main_reason(s);

		names[i] = sorted[i]->name;
		fputs("<tr><td>", out);
		html_text(out, sorted[i]->name, 0);
		fprintf(out, "</td><td>%llu</td>", (unsigned long long)schema_count(fs, n, s));
		for (int k = 0; k < 2; k++) {
			v[2 * i + k] = schema_row_absent(fs, ratio[k], absent) ? NAN :
				       schema_value(fs, ratio[k], s);
			if (isnan(v[2 * i + k]))
				fputs("<td>-</td>", out);
			else
				fprintf(out, "<td>%.1f%%</td>", 100 * v[2 * i + k]);
		}
		if (schema_row_absent(fs, L_OPT_IN, absent))
			fputs("<td>-</td><td>", out);
		else
			fprintf(out, "<td>%llu</td><td>",
				(unsigned long long)schema_count(fs, L_OPT_IN, s));
		if (why >= 0)
			fprintf(out, "%s (%.1f%%)", fs->rows[why].name,
				pct(*schema_counter(&fs->rows[why], s), s->checks));
		else
			fputc('-', out);
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "</table>\n<p class=\"note\">Each bar is the share of a filesystem's %s. "
		"<b>did skip</b>: checks the lookup fast path took, without the full "
		"<code>inode_permission()</code>; <b>would skip</b>: checks on directories eligible "
		"for it. A bar of 0%% is a mark on the axis labelled 0%%.</p>\n",
		by_origin ? "path-walk MAY_EXEC checks on directories" :
		"MAY_EXEC checks on directories");
	svg_share_bars(out, &(struct share_chart){
		.label = "did skip and would skip per filesystem", .axis = by_origin ?
		"share of path-walk checks" : "share of MAY_EXEC directory checks",
		.groups = names, .ngroups = p->nfs, .panels = panels, .npanels = 2,
		.series = this_profile, .nseries = 1, .v = v });
out:
	free(sorted);
	free(names);
	free(v);
}

static void outcomes_html(FILE *out, const struct profile *p, enum family_id f)
{
	const struct family_schema *fs = &schema[f];
	const void *stats = profile_stats(p, f, 0);
	double total = 0;
	bool charts = false;

	if (!section(out, p, f))
		return;
	for (int i = 0; i < fs->nrows; i++)
		if (fs->rows[i].kind == ROW_OUTCOME)
			total += *schema_counter(&fs->rows[i], stats);
	fputs("<table><tr><th>outcome</th><th>calls</th><th>share</th>"
	      "<th style=\"text-align:left\">meaning</th></tr>\n", out);
	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];

		if (r->kind != ROW_OUTCOME)
			continue;
		if (schema_row_absent(fs, i, p->absent[f]))
			fprintf(out, "<tr><td>%s</td><td>-</td><td>-</td>", r->name);
		else
			fprintf(out, "<tr><td>%s</td><td>%llu</td><td>%.1f%%</td>", r->name,
				(unsigned long long)*schema_counter(r, stats),
				pct(*schema_counter(r, stats), total));
		fprintf(out, "<td style=\"text-align:left\">%s</td></tr>\n", r->meaning);
	}
	fprintf(out, "<tr><td>total</td><td>%.0f</td><td></td><td></td></tr>\n</table>\n", total);
	if (p->fam[f].no_latency) {
		fprintf(out, "<p class=\"note\">%s latency: not measured (%s).</p>\n", fs->name,
			p->fam[f].lean ? "recorded with --lean" : "its histograms are not known");
		return;
	}
	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		const struct hist *h = schema_hist(r, stats);
		char label[96], q[3][DURATION_LEN];

		if (r->kind != ROW_OUTCOME || hist_empty(h))
			continue;
		if (!charts)
			fputs("<p class=\"note\">Latency of each outcome. x: log2 buckets, each bar "
			      "holding the calls from the tick on its left up to the next; y: the share "
			      "of the outcome's calls in the bucket; the dashed line marks the median "
			      "(p50).</p>\n", out);
		charts = true;
		fprintf(out, "<figure><figcaption><b>%s, outcome %s</b> &mdash; %llu calls, mean %s, "
			"p50 %s, p99 %s</figcaption>\n", fs->name, r->name,
			(unsigned long long)h->count,
			format_duration(q[0], sizeof(q[0]), hist_mean(h), false, CHARSET_UTF8),
			format_duration(q[1], sizeof(q[1]), hist_quantile(h, 0.5), false, CHARSET_UTF8),
			format_duration(q[2], sizeof(q[2]), hist_quantile(h, 0.99), false,
					CHARSET_UTF8));
		snprintf(label, sizeof(label), "latency of %s, outcome %s", fs->name, r->name);
		svg_hist(out, &(struct hist_chart){ .label = label, .h = &h,
			 .series = this_profile, .nseries = 1 });
		fputs("</figure>\n", out);
	}
}

void render_html(FILE *out, const struct profile *p)
{
	html_begin(out, "permscope report");
	header_html(out, p);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (f == FAMILY_LOOKUP)
			lookup_html(out, p, f);
		else if (!schema[f].per_fs)
			outcomes_html(out, p, f);
	}
	html_end(out);
}
