// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_catalogue.h"
#include "hist.h"
#include "metrics.h"
#include "render.h"
#include "util.h"

/* The place of a metric in its family's compare_shown list ("[]": any fs), or -1. */
static int shown_rank(const char *name)
{
	const char *br = strchr(name, '[');
	size_t stem = br ? (size_t)(br - name) : strlen(name);
	int f = metric_family(name), rank = 0;

	if (metric_is_bench(name)) { /* after every family's, in bench then schema order */
		const char *bench = name + 6, *key = strchr(bench, '.');
		int row = key ? bench_metric_index(key + 1) : -1;

		for (int g = 0; g < FAMILY_COUNT; g++)
			for (const char *const *m = schema[g].compare_shown; *m; m++)
				rank++;
		for (int b = 0; b < BENCH_COUNT && key && row >= 0; b++, rank += bench_metric_nrows)
			if ((size_t)(key - bench) == strlen(bench_defs[b].key) &&
			    !strncmp(bench, bench_defs[b].key, key - bench))
				return rank + row;
		return -1;
	}
	for (int g = 0; g < f; g++)
		for (const char *const *m = schema[g].compare_shown; *m; m++)
			rank++;
	for (const char *const *m = f >= 0 ? schema[f].compare_shown : NULL; m && *m; m++, rank++) {
		size_t len = strlen(*m);
		bool wild = len > 2 && !strcmp(*m + len - 2, "[]");

		if (wild ? (br && stem == len - 2 && !strncmp(name, *m, stem)) : !strcmp(name, *m))
			return rank;
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

/* The samples of `name` on one side (malloc'ed, or NULL) and their summary. */
static double *side(const struct profile *p, const char *name, struct sample_summary *s,
		    bool *present)
{
	double *v = NULL;
	size_t n = metric_samples(p, name, &v);

	summarize(v, n, s);
	*present = n > 0;
	return v;
}

static int add_row(struct compare *c, const char *name)
{
	struct compare_row *r;
	double *xb, *xn;

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
	xb = side(c->base, name, &r->base, &r->in_base);
	xn = side(c->new, name, &r->new, &r->in_new);
	welch_test(&r->base, &r->new, &r->w);
	if (c->test == STATS_MANN_WHITNEY) {
		mann_whitney_test(xb, r->base.n, xn, r->new.n, &r->mw);
		r->tested = r->mw.valid;
		r->p = r->mw.p;
	} else {
		r->tested = r->w.valid;
		r->p = r->w.p;
	}
	free(xb);
	free(xn);
	return 0;
}

int compare_build(struct compare *c)
{
	const struct profile *sides[2] = { c->base, c->new };
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

size_t compare_runs(const struct profile *p)
{
	return p->nruns ? p->nruns : 1;
}

/* ---- text --------------------------------------------------------------- */

/* Counts and nanoseconds as integers, ratios with four digits. */
const char *compare_num(char *buf, size_t len, double v, bool sign)
{
	snprintf(buf, len, fabs(v) >= 1000 ? (sign ? "%+.0f" : "%.0f") : (sign ? "%+.4g" : "%.4g"), v);
	return buf;
}

double compare_delta(const struct compare_row *r)
{
	double d = r->new.mean - r->base.mean;

	return fabs(d) <= 1e-9 * fmax(fabs(r->new.mean), fabs(r->base.mean)) ? 0 : d;
}

/* "mean±sd", "mean" or "-" of one side. */
static void value_text(char *buf, size_t len, const struct sample_summary *s, bool present,
		       bool duration, enum charset cs)
{
	char m[24], sd[24];

	if (!present)
		snprintf(buf, len, "-");
	else if (duration && s->n > 1)
		format_duration_pm(buf, len, s->mean, s->stddev, cs);
	else if (duration)
		format_duration(buf, len, s->mean, false, cs);
	else if (s->n > 1)
		snprintf(buf, len, "%.20s%s%.20s", compare_num(m, sizeof(m), s->mean, false),
			 cs == CHARSET_UTF8 ? "±" : "+-", compare_num(sd, sizeof(sd), s->stddev, false));
	else
		snprintf(buf, len, "%s", compare_num(m, sizeof(m), s->mean, false));
}

void compare_cells(const struct compare_row *r, enum charset cs, struct compare_cells *out)
{
	bool duration = metric_is_duration(r->name);

	value_text(out->base, sizeof(out->base), &r->base, r->in_base, duration, cs);
	value_text(out->new, sizeof(out->new), &r->new, r->in_new, duration, cs);
	snprintf(out->delta, sizeof(out->delta), "-");
	snprintf(out->ratio, sizeof(out->ratio), "-");
	if (!r->in_base || !r->in_new)
		return;
	if (duration)
		format_duration(out->delta, sizeof(out->delta), compare_delta(r), true, cs);
	else
		compare_num(out->delta, sizeof(out->delta), compare_delta(r), true);
	if (r->base.mean != 0)
		snprintf(out->ratio, sizeof(out->ratio), "%.3f", r->new.mean / r->base.mean);
	else if (r->new.mean == 0)
		snprintf(out->ratio, sizeof(out->ratio), "1.000");
}

bool compare_significant(const struct compare_row *r)
{
	return r->tested && r->p < STATS_ALPHA;
}

static void row_text(FILE *out, const struct compare_row *r, const char *label)
{
	struct compare_cells t;
	char sig[24] = "";

	compare_cells(r, text_charset(), &t);
	if (r->in_base && r->in_new && r->tested)
		snprintf(sig, sizeof(sig), compare_significant(r) ? "p=%.3f" : "~ p=%.2f", r->p);
	fprintf(out, "  %-24s ", label);
	fput_aligned(out, t.base, 13);
	fputc(' ', out);
	fput_aligned(out, t.new, 13);
	fputc(' ', out);
	fput_aligned(out, t.delta, 9);
	fprintf(out, " %6s%s%s\n", t.ratio, *sig ? " " : "", sig);
}

/* Two bars a bucket, base then new, scaled to the largest bucket of both. */
static void hist_pair_text(FILE *out, const char *title, const struct hist *a,
			   const struct hist *b)
{
	const enum charset cs = text_charset();
	const int width = 16;
	int first, last;
	char t[6][DURATION_LEN];
	__u64 max;

	if (!hist_pair_range(a, b, &first, &last, &max))
		return;
	fprintf(out, "\n  %s\n  %-19s %8s %-*s %8s\n", title, "latency", "base", width + 2, "",
		"new");
	for (int i = first; i <= last; i++) {
		char range[2 * DURATION_LEN];

		fputs("  ", out);
		fput_aligned(out, hist_range(i, cs, range, sizeof(range)), -19);
		fprintf(out, " %8llu |", (unsigned long long)a->slots[i]);
		for (int j = 0; j < width; j++)
			fputc(j < bar_length(a->slots[i], max, width) ? '@' : ' ', out);
		fprintf(out, "| %8llu |", (unsigned long long)b->slots[i]);
		for (int j = 0; j < width; j++)
			fputc(j < bar_length(b->slots[i], max, width) ? '#' : ' ', out);
		fputs("|\n", out);
	}
	fprintf(out, "  p50 %s / %s, p90 %s / %s, p99 %s / %s\n",
		format_duration(t[0], sizeof(t[0]), hist_quantile(a, 0.5), false, cs),
		format_duration(t[1], sizeof(t[1]), hist_quantile(b, 0.5), false, cs),
		format_duration(t[2], sizeof(t[2]), hist_quantile(a, 0.9), false, cs),
		format_duration(t[3], sizeof(t[3]), hist_quantile(b, 0.9), false, cs),
		format_duration(t[4], sizeof(t[4]), hist_quantile(a, 0.99), false, cs),
		format_duration(t[5], sizeof(t[5]), hist_quantile(b, 0.99), false, cs));
}

double compare_fs_ratio(const struct profile *p, const char *fs, enum lookup_row ratio)
{
	const struct fs_result *r = profile_find_fs(p, fs);

	return r ? schema_value(&schema[FAMILY_LOOKUP], ratio, &r->s) : 0;
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
	const struct profile *sides[2] = { c->base, c->new };

	fprintf(out, "\n  did skip, %% of checks (@ base, # new)\n");
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nfs; i++) {
			const char *fs = sides[s]->fs[i].name;
			double a = compare_fs_ratio(c->base, fs, L_DID_SKIP_RATIO),
			       b = compare_fs_ratio(c->new, fs, L_DID_SKIP_RATIO);

			if (s && profile_find_fs(c->base, fs))
				continue; /* listed with the base's filesystems */
			fprintf(out, "  %-12s %5.1f%% ", fs, 100 * a);
			bar_pct(out, a, '@', 20);
			fprintf(out, " %5.1f%% ", 100 * b);
			bar_pct(out, b, '#', 20);
			fputc('\n', out);
		}
}

/*
 * A duty-cycled side (daemon --duty-cycle) counted in windows only: say
 * what each side watched, and, when they sample differently, that their
 * counts cover different shares of the time while their ratios compare.
 */
static void coverage_text(FILE *out, const struct family_result *rb, const struct family_result *rn)
{
	char wb[160], wn[160];

	if (rb->status != FAMILY_OK || rn->status != FAMILY_OK ||
	    (!family_duty_cycled(rb) && !family_duty_cycled(rn)))
		return;
	family_watched_text(rb, wb, sizeof(wb));
	family_watched_text(rn, wn, sizeof(wn));
	fprintf(out, "  counted in windows: base %s, new %s\n", *wb ? wb : "always on",
		*wn ? wn : "always on");
	if (!family_sampled_alike(rb, rn))
		fprintf(out, "  note: the two sides sample differently: their counts cover "
			"different shares of the time; compare the ratios and shares\n");
}

void compare_text(FILE *out, const struct compare *c)
{
	char build[2][160];

	build_info_text(&c->base->build, c->base->tool_version, build[0], sizeof(build[0]));
	build_info_text(&c->new->build, c->new->tool_version, build[1], sizeof(build[1]));
	fprintf(out, "permscope compare\n  base: %s\n        kernel %s, %zu run%s\n        %s\n"
		"  new:  %s\n        kernel %s, %zu run%s\n        %s\n",
		c->base_name, printable(c->base->kernel_release), compare_runs(c->base),
		compare_runs(c->base) > 1 ? "s" : "", build[0],
		c->new_name, printable(c->new->kernel_release), compare_runs(c->new),
		compare_runs(c->new) > 1 ? "s" : "",
		build[1]);
	for (int i = 0; i < 2; i++) /* merge --allow-mixed: runs that are no samples of one thing */
		if ((i ? c->new : c->base)->mixed)
			fprintf(out, "  note: %s merged from runs that differ (--allow-mixed): %s\n",
				i ? "new" : "base", printable((i ? c->new : c->base)->mixed));
	/* the fourth fast path, a fact of each kernel: where either profile kept it */
	if (c->base->cred_line_kept || c->new->cred_line_kept) {
		const char *b = c->base->cred_line_kept ?
				cred_layout_answer_names[c->base->cred_line] : "not kept";
		const char *n = c->new->cred_line_kept ?
				cred_layout_answer_names[c->new->cred_line] : "not kept";

		fprintf(out, "  cred refcount line: base %s, new %s%s\n", b, n,
			c->base->cred_line == CRED_LAYOUT_SEPARATED &&
			c->new->cred_line == CRED_LAYOUT_SHARES ?
			" (usage back on the checks' line)" :
			c->base->cred_line == CRED_LAYOUT_SHARES &&
			c->new->cred_line == CRED_LAYOUT_SEPARATED ?
			" (usage moved off the checks' line)" : "");
	}
	if (compare_runs(c->base) > 1 || compare_runs(c->new) > 1)
		fprintf(out, "  mean%ssd over runs; %s, ~ marks p >= %.2f (not significant)\n",
			text_charset() == CHARSET_UTF8 ? "±" : "+-", stats_test_titles[c->test],
			STATS_ALPHA);
	/* 3 runs against 3 can never be significant by ranks: say so, not just "~" */
	if (c->test == STATS_MANN_WHITNEY && compare_runs(c->base) > 1 && compare_runs(c->new) > 1 &&
	    mann_whitney_min_p(compare_runs(c->base), compare_runs(c->new)) >= STATS_ALPHA)
		fprintf(out, "  note: with %zu and %zu runs Mann-Whitney's smallest p is %.2g: "
			"no difference can be significant\n", compare_runs(c->base),
			compare_runs(c->new),
			mann_whitney_min_p(compare_runs(c->base), compare_runs(c->new)));
	for (int side = 0; side < 2; side++) {
		const struct profile *p = side ? c->new : c->base;

		if (profile_clock_is_coarse(p))
			fprintf(out, "  note: %s was timed by the %s clocksource (a step every few ms):\n"
				"        its latencies are not measurements; counts are exact\n",
				side ? "new" : "base", p->clocksource);
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *rb = &c->base->fam[f], *rn = &c->new->fam[f];
		bool any = false;

		if (rb->status == FAMILY_NOT_REQUESTED && rn->status == FAMILY_NOT_REQUESTED)
			continue;
		fprintf(out, "\n%s  [%s | %s]\n", schema[f].title, family_state_text(rb),
			family_state_text(rn));
		coverage_text(out, rb, rn);
		for (size_t i = 0; i < c->nrows; i++) {
			const char *name = c->rows[i].name;

			if (metric_family(name) != f)
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
		if (schema[f].per_fs)
			skip_bars_text(out, c);
		if (schema_has_latency(&schema[f]) && (rb->no_latency || rn->no_latency))
			fprintf(out, "\n  latency: not measured on the %s (%s)\n",
				rb->no_latency && rn->no_latency ? "base and new sides" :
				rb->no_latency ? "base side" : "new side",
				(rb->no_latency ? rb : rn)->lean ? "recorded with --lean" :
				"its histograms are not known");
		for (int o = 0; o < schema[f].nrows && !rb->no_latency && !rn->no_latency; o++) {
			const struct schema_row *row = &schema[f].rows[o];
			char t[64];

			if (row->kind != ROW_OUTCOME)
				continue;
			snprintf(t, sizeof(t), "latency, outcome %s (@ base, # new)", row->name);
			hist_pair_text(out, t, schema_hist(row, profile_stats(c->base, f, 0)),
				       schema_hist(row, profile_stats(c->new, f, 0)));
		}
	}
	for (size_t i = 0, any = 0; i < c->nrows; i++) {
		if (!metric_is_bench(c->rows[i].name))
			continue;
		if (!any++)
			fprintf(out, "\nBenchmarks (permscope bench)\n  %-24s %13s %13s %9s %6s\n",
				"metric", "base", "new", "delta", "ratio");
		row_text(out, &c->rows[i], c->rows[i].name + 6);
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
	return json_pack("{s:I,s:f,s:f,s:f,s:o}", "count", (json_int_t)h->count,
			 "p50", hist_quantile(h, 0.5), "p90", hist_quantile(h, 0.9),
			 "p99", hist_quantile(h, 0.99), "buckets", hist_buckets_json(h));
}

/* Each outcome's latency, base and new; NULL for a family without outcomes. */
static json_t *hists_json(const struct compare *c, enum family_id f)
{
	json_t *o = json_object();

	for (int i = 0; i < schema[f].nrows; i++) {
		const struct schema_row *r = &schema[f].rows[i];

		/* null: that side did not measure latency (--lean) */
		if (r->kind == ROW_OUTCOME)
			json_object_set_new(o, r->name, json_pack("{s:o,s:o}",
				"base", c->base->fam[f].no_latency ? json_null() :
				hist_json(schema_hist(r, profile_stats(c->base, f, 0))),
				"new", c->new->fam[f].no_latency ? json_null() :
				hist_json(schema_hist(r, profile_stats(c->new, f, 0)))));
	}
	if (json_object_size(o))
		return o;
	json_decref(o);
	return NULL;
}

static json_t *row_json(const struct compare *c, const struct compare_row *r)
{
	bool both = r->in_base && r->in_new;
	json_t *j;

	j = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"name", r->name,
		"base", summary_json(&r->base, r->in_base),
		"new", summary_json(&r->new, r->in_new),
		"delta", both ? json_real(compare_delta(r)) : json_null(),
		"ratio", both && r->base.mean != 0 ? json_real(r->new.mean / r->base.mean) : json_null(),
		"p", r->tested ? json_real(r->p) : json_null(),
		"ci95", r->w.valid ? json_pack("[f,f]", r->w.ci_lo, r->w.ci_hi) : json_null(),
		"significant", r->tested ? json_boolean(compare_significant(r)) : json_null());
	/* Mann-Whitney's own figures: U of new against base, and how p was found */
	if (j && c->test == STATS_MANN_WHITNEY) {
		json_object_set_new(j, "u", r->tested ? json_real(r->mw.u) : json_null());
		json_object_set_new(j, "p_method", r->tested ?
				    json_string(mw_method_names[r->mw.method]) : json_null());
	}
	return j;
}

int compare_json(FILE *out, const struct compare *c)
{
	json_t *fams = json_object(), *bench = json_array(), *root;
	int ret;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *rb = &c->base->fam[f], *rn = &c->new->fam[f];
		json_t *rows = json_array(), *fj, *lat;

		for (size_t i = 0; i < c->nrows; i++) {
			const struct compare_row *r = &c->rows[i];

			if (metric_family(r->name) != f)
				continue;
			json_array_append_new(rows, row_json(c, r));
		}
		fj = json_pack("{s:s,s:s,s:o}", "base_mode", family_state_text(rb),
			       "new_mode", family_state_text(rn), "metrics", rows);
		/* what each side's counts cover: null where every call counted */
		json_object_set_new(fj, "base_observed", render_observed_json(rb) ?: json_null());
		json_object_set_new(fj, "new_observed", render_observed_json(rn) ?: json_null());
		if (rb->status == FAMILY_OK && rn->status == FAMILY_OK && (lat = hists_json(c, f)))
			json_object_set_new(fj, "latency", lat);
		json_object_set_new(fams, family_name(f), fj);
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (metric_is_bench(c->rows[i].name))
			json_array_append_new(bench, row_json(c, &c->rows[i]));
	root = json_pack("{s:s,s:{s:s,s:s,s:I,s:o},s:{s:s,s:s,s:I,s:o},s:s,s:f,s:o}",
		"format", COMPARE_FORMAT,
		"base", "path", c->base_name, "kernel", c->base->kernel_release,
			"runs", (json_int_t)compare_runs(c->base),
			"build", build_info_known(&c->base->build) ?
				 build_info_to_json(&c->base->build) : json_null(),
		"new", "path", c->new_name, "kernel", c->new->kernel_release,
			"runs", (json_int_t)compare_runs(c->new),
			"build", build_info_known(&c->new->build) ?
				 build_info_to_json(&c->new->build) : json_null(),
		"test", stats_test_ids[c->test], "alpha", STATS_ALPHA,
		"families", fams);
	if (json_array_size(bench))
		json_object_set_new(root, "benchmarks", bench);
	else
		json_decref(bench);
	for (int i = 0; root && i < 2; i++)
		if ((i ? c->new : c->base)->cred_line_kept)
			json_object_set_new(json_object_get(root, i ? "new" : "base"),
					    "cred_refcount_line", json_string(cred_layout_answer_names[
					    (i ? c->new : c->base)->cred_line]));
	for (int i = 0; root && i < 2; i++)
		if ((i ? c->new : c->base)->mixed)
			json_object_set_new(json_object_get(root, i ? "new" : "base"), "mixed",
					    json_string((i ? c->new : c->base)->mixed));
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', out);
	json_decref(root);
	return ret;
}

