// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The gate's verdict policy: one parsed rule judged against a base and a
 * new profile, PASS, FAIL or NO-VERDICT with its reason (docs/gate-rules.md).
 * It stands apart from rules.c's grammar because it is the other half of the
 * gate's contract: what a rule says is fixed by the parser, what it takes
 * for it to pass (a family that did not record, modes that differ, lost
 * events and --accept-loss, a profile older than the counter, a share of
 * nothing, a coarse clock, too few runs, a significance test) here.  A
 * fleet side that cannot be judged at all is prom/promside.c's to say.
 */
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "schema.h"
#include "stats.h"

const char *const verdict_names[VERDICTS] = {
	[VERDICT_PASS] = "pass", [VERDICT_FAIL] = "fail", [VERDICT_NO_VERDICT] = "no-verdict",
	[VERDICT_SKIPPED] = "skipped",
};

double rule_threshold(const struct rule *r, double base)
{
	switch (r->expr) {
	case EXPR_NUMBER:
		return r->number;
	case EXPR_BASE:
		return base;
	case EXPR_BASE_MUL:
		return base * r->number;
	case EXPR_BASE_ADD:
		return base + r->number;
	case EXPR_BASE_SUB:
		return base - r->number;
	}
	return base;
}

bool rule_near(const struct rule *r, const struct rule_result *res)
{
	double slack = fabs(r->number);

	if (!res->has_values || (res->verdict != VERDICT_PASS && res->verdict != VERDICT_FAIL))
		return false;
	if (strstr(r->metric, ".latency"))
		return true;
	if (r->expr != EXPR_BASE_ADD && r->expr != EXPR_BASE_SUB)
		return false;
	return res->new != res->base && fabs(res->new - res->threshold) <= slack;
}

bool rule_compare(enum rule_op op, double new, double threshold)
{
	switch (op) {
	case RULE_GE:
		return new >= threshold;
	case RULE_LE:
		return new <= threshold;
	case RULE_GT:
		return new > threshold;
	case RULE_LT:
		return new < threshold;
	case RULE_EQ:
		return new == threshold;
	case RULE_NE:
		return new != threshold;
	default:
		return false;
	}
}


/*
 * Why profile p lacks `metric` of family f, when it is not its age: it was
 * recorded with --lean, or its latency histograms are not known (a host
 * whose latency series are not in Prometheus).  NULL: it predates it.
 */
static const char *absent_why(const struct profile *p, int f, const char *metric)
{
	if (f < 0)
		return NULL;
	if (p->fam[f].lean)
		return "recorded with --lean";
	if (p->fam[f].no_latency && strstr(metric, ".latency."))
		return "its latency histograms are not known";
	return NULL;
}

/* Append the names of `from` that `out` lacks. */
static int append_unique(struct metric_list *out, const struct metric_list *from)
{
	for (size_t i = 0; i < from->n; i++) {
		if (metrics_find(out, from->m[i].name))
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 64;
			struct metric *m = realloc(out->m, cap * sizeof(*m));

			if (!m)
				return -ENOMEM;
			out->m = m;
			out->cap = cap;
		}
		out->m[out->n++] = from->m[i];
	}
	return 0;
}

/* Names for hints: both profiles' metrics, then every name permscope knows. */
static int known_names(const struct profile *a, const struct profile *b, struct metric_list *out)
{
	struct metric_list more[2];
	int err = metrics_collect(a, out);

	if (err)
		return err;
	if (!(err = metrics_collect(b, &more[0]))) {
		err = append_unique(out, &more[0]);
		metrics_free(&more[0]);
	}
	if (!err && !(err = metrics_schema(NULL, &more[1]))) {
		err = append_unique(out, &more[1]);
		metrics_free(&more[1]);
	}
	if (err)
		metrics_free(out);
	return err;
}

static void unknown_metric(const struct rule *r, const struct profile *base,
			   const struct profile *new, char *err, size_t errlen)
{
	struct metric_list known;
	const char *near[3];
	size_t n = 0, off;
	int fam = metric_family(r->metric);
	char names[128];

	off = snprintf(err, errlen, "%s:%d: unknown metric '%s'", r->file, r->line, r->metric);
	if (fam < 0 && !metric_is_bench(r->metric) && strncmp(r->metric, "cred.", 5) &&
	    off < errlen)
		off += snprintf(err + off, errlen - off, " ('%.*s' is no family: %s; nor bench "
				"nor cred)",
				(int)strcspn(r->metric, ".["), r->metric,
				family_names_text(names, sizeof(names), NULL));
	if (!known_names(base, new, &known)) {
		n = metrics_nearest(&known, r->metric, near, 3);
		for (size_t i = 0; i < n && off < errlen; i++)
			off += snprintf(err + off, errlen - off, "%s%s", i ? ", " : "; nearest: ",
					near[i]);
		metrics_free(&known);
	}
	if (!n && off < errlen)
		snprintf(err + off, errlen - off, "; neither profile has any metric");
}

static double mean_of(const double *x, size_t n)
{
	struct sample_summary s;

	summarize(x, n, &s);
	return s.mean;
}

/* The schema row a metric of family `f` names (FAMILY.KEY[.../[fs]]), or -1. */
static int metric_row(int f, const char *metric)
{
	const char *rest = metric + strlen(family_name(f)) + 1;
	size_t len = strcspn(rest, ".[");
	char key[64];

	if (len >= sizeof(key))
		return -1;
	snprintf(key, sizeof(key), "%.*s", (int)len, rest);
	return schema_row_index(f, key);
}

/*
 * Whether METRIC of family `f` counts something (a row that is no ratio,
 * no latency): a number that grows with the time watched.
 */
static bool metric_is_count(int f, const char *metric)
{
	int row = metric_row(f, metric);

	return !strstr(metric, ".latency.") && (row < 0 || schema[f].rows[row].kind != ROW_RATIO);
}

/*
 * A duty-cycled daemon's counts are exact for its windows and say nothing
 * of the time between them (daemon --duty-cycle): a side that watched no
 * time is no evidence, and a count set against the base's compares only
 * when both sides sample alike.  A ratio or share is of calls inside the
 * same windows, and compares whatever the cycles.  True with res->reason.
 */
static bool no_evidence_in_windows(const struct rule *r, const struct profile *base,
				   const struct profile *new, int f, struct rule_result *res)
{
	const struct family_result *b = &base->fam[f], *n = &new->fam[f];
	char cb[64], cn[64];

	for (int side = 0; side < 2; side++) {
		const struct family_result *x = side ? n : b;

		if (family_duty_cycled(x) && !x->observed.ns) {
			snprintf(res->reason, sizeof(res->reason), "the %s profile's %s family watched "
				 "no time (%s, no window counted inside its span): its counts are no "
				 "evidence", side ? "new" : "base", family_name(f),
				 family_coverage_text(x, cb, sizeof(cb)));
			return true;
		}
	}
	if (r->expr != EXPR_NUMBER && !family_sampled_alike(b, n) && metric_is_count(f, r->metric)) {
		snprintf(res->reason, sizeof(res->reason), "%s counts %s in the base profile but %s "
			 "in the new: a count is set against the base's only when both sample "
			 "alike (a ratio or share compares across duty cycles)", r->metric,
			 family_coverage_text(b, cb, sizeof(cb)), family_coverage_text(n, cn, sizeof(cn)));
		return true;
	}
	return false;
}

/*
 * Why family `f` gives no evidence for rule `r` (it did not record on a
 * side, modes differ, it lost events): true with res->reason set.
 */
static bool family_gives_no_verdict(const struct rule *r, const struct profile *base,
				    const struct profile *new, int f, struct rule_result *res)
{
	if (base->fam[f].status != FAMILY_OK || new->fam[f].status != FAMILY_OK) {
		if (base->fam[f].status != FAMILY_OK && new->fam[f].status != FAMILY_OK)
			snprintf(res->reason, sizeof(res->reason),
				 "the %s family did not record in the base profile (%s) nor in the new "
				 "profile (%s)", family_name(f), family_status_text(base->fam[f].status),
				 family_status_text(new->fam[f].status));
		else
			snprintf(res->reason, sizeof(res->reason),
				 "the %s family did not record in the %s profile (%s)", family_name(f),
				 base->fam[f].status != FAMILY_OK ? "base" : "new",
				 family_status_text(base->fam[f].status != FAMILY_OK ? base->fam[f].status
									      : new->fam[f].status));
		return true;
	}
	/*
	 * The one mode-mismatch test; gate's answer to it is NO-VERDICT, but for
	 * fentry against kprobe only on latencies: the counts compare.  With
	 * gate --allow-mode-mismatch the rule is judged anyway (gate says so).
	 */
	switch (family_modes_match(base, "the base profile", new, "the new profile", f,
				   res->reason, sizeof(res->reason))) {
	case MODES_SAME:
		break;
	case MODES_SAME_CALLS:
		if (r->allow_mode_mismatch || !strstr(r->metric, ".latency."))
			break;
		snprintf(res->reason + strlen(res->reason), sizeof(res->reason) - strlen(res->reason),
			 ": each latency includes its own mode's probe cost (--allow-mode-mismatch "
			 "judges anyway)");
		return true;
	case MODES_DIFFER:
		if (r->allow_mode_mismatch)
			break;
		snprintf(res->reason + strlen(res->reason), sizeof(res->reason) - strlen(res->reason),
			 " (--allow-mode-mismatch judges anyway)");
		return true;
	}
	res->reason[0] = 0;
	/* Counts a family could not make in full are no evidence, unless a loss is accepted. */
	for (int side = 0; side < 2; side++) {
		const struct profile *p = side ? new : base;
		double lost = family_lost_total(&p->fam[f]), events = family_events(p, f);

		if (lost > 0 && lost > r->accept_loss * (events + lost)) {
			snprintf(res->reason, sizeof(res->reason), "the %s profile lost %.0f events of "
				 "the %s family (%.2g%%): none of its counts is exact (--accept-loss "
				 "SHARE judges anyway)", side ? "new" : "base", lost, family_name(f),
				 100 * lost / (events + lost));
			return true;
		}
	}
	return no_evidence_in_windows(r, base, new, f, res);
}

/*
 * Whether METRIC of family `f` is a share (a RATIO row, "exec.enoent_early_share"
 * or "lookup.did_skip_ratio[tmpfs]") of nothing in `p`: its denominator
 * counted no event, so the 0 it reads is no measurement.
 */
static bool share_of_nothing(const struct profile *p, int f, const char *metric)
{
	const struct family_schema *fs = &schema[f];
	const char *bracket = strchr(metric + strlen(family_name(f)) + 1, '[');
	char fsname[128];
	uint64_t whole = 0;
	int row = metric_row(f, metric);

	if (row < 0 || fs->rows[row].kind != ROW_RATIO)
		return false;
	if (bracket && fs->per_fs) {
		const struct fs_result *x;

		snprintf(fsname, sizeof(fsname), "%.*s", (int)strcspn(bracket + 1, "]"), bracket + 1);
		/* a filesystem a profile lacks is another reason, said below */
		x = profile_find_fs(p, fsname);
		return x && !schema_ratio_whole(fs, row, &x->s);
	}
	for (size_t i = 0; i < profile_nstats(p, f); i++)
		whole += schema_ratio_whole(fs, row, profile_stats(p, f, i));
	return !whole;
}

/*
 * Why the cred layout (cred.refcount_shares_line) gives no evidence: a
 * profile that predates it, or one whose kernel's layout is unknown.
 */
static bool cred_line_gives_no_verdict(const struct profile *base, const struct profile *new,
				       struct rule_result *res)
{
	bool b = !base->cred_line_kept, n = !new->cred_line_kept;

	if (b || n) {
		snprintf(res->reason, sizeof(res->reason), "the %s struct cred's layout: written "
			 "before permscope kept it", b && n ? "base and new profiles predate" :
			 b ? "base profile predates" : "new profile predates");
		return true;
	}
	b = base->cred_line == CRED_LAYOUT_UNKNOWN;
	n = new->cred_line == CRED_LAYOUT_UNKNOWN;
	if (b || n) {
		snprintf(res->reason, sizeof(res->reason), "struct cred's layout is unknown in the "
			 "%s (no struct cred with a usage in the kernel's BTF, or runs of kernels "
			 "that differ merged)", b && n ? "base and new profiles" : b ? "base profile" :
			 "new profile");
		return true;
	}
	return false;
}

int rule_evaluate(const struct rule *r, const struct profile *base, const struct profile *new,
		  struct rule_result *res, char *err, size_t errlen)
{
	int f = metric_family(r->metric);
	double *xb = NULL, *xn = NULL;
	bool holds;

	memset(res, 0, sizeof(*res));
	if (errlen)
		err[0] = 0;
	res->verdict = VERDICT_NO_VERDICT;
	/* A name no profile could hold is a mistake, whatever recorded. */
	if ((f < 0 && !metric_is_bench(r->metric) && !metric_is_cred_line(r->metric)) ||
	    !metric_name_valid(r->metric)) {
		unknown_metric(r, base, new, err, errlen);
		return -1;
	}
	if (metric_is_cred_line(r->metric) && cred_line_gives_no_verdict(base, new, res))
		return 0;
	/* bench.* metrics come from no family: nothing recorded them, nothing lost any */
	if (f >= 0 && family_gives_no_verdict(r, base, new, f, res))
		return 0;
	/*
	 * A profile older than the counter, or recorded with --lean, says
	 * nothing about it: no verdict, not a 0.
	 */
	if (metric_absent(base, r->metric) || metric_absent(new, r->metric)) {
		bool b = metric_absent(base, r->metric), n = metric_absent(new, r->metric);
		const char *why = b ? absent_why(base, f, r->metric) : NULL;

		if (!why && n)
			why = absent_why(new, f, r->metric);
		snprintf(res->reason, sizeof(res->reason), "the %s %s the counter behind %s%s%s%s",
			 b && n ? "base and new profiles" : b ? "base profile" : "new profile",
			 why ? (b && n ? "lack" : "lacks") : (b && n ? "predate" : "predates"),
			 r->metric, why ? " (" : "", why ? why : "", why ? ")" : "");
		return 0;
	}
	/*
	 * A share of no event reads 0, which is no measurement: judged, it
	 * would pass or fail on nothing (a window with no ENOENT in it).
	 */
	if (f >= 0) {
		bool b = share_of_nothing(base, f, r->metric), n = share_of_nothing(new, f, r->metric);

		if (b || n) {
			snprintf(res->reason, sizeof(res->reason), "%s is a share of nothing in the "
				 "%s: no event it is a share of was counted", r->metric,
				 b && n ? "base and new profiles" : b ? "base profile" : "new profile");
			return 0;
		}
	}
	/* A latency timed by a clock that steps every few ms is no measurement. */
	if (strstr(r->metric, "latency") &&
	    (profile_clock_is_coarse(base) || profile_clock_is_coarse(new))) {
		bool b = profile_clock_is_coarse(base);

		snprintf(res->reason, sizeof(res->reason), "the %s profile was timed by the %s "
			 "clocksource (a step every few ms): its latencies are not measurements",
			 b ? "base" : "new", b ? base->clocksource : new->clocksource);
		return 0;
	}
	res->n_base = metric_samples(base, r->metric, &xb);
	res->n_new = metric_samples(new, r->metric, &xn);
	if (!res->n_base && !res->n_new) {
		free(xb);
		free(xn);
		unknown_metric(r, base, new, err, errlen);
		return -1;
	}
	if (!res->n_base || !res->n_new) {
		snprintf(res->reason, sizeof(res->reason), "%s is not in the %s profile, only in the %s "
			 "profile", r->metric, res->n_base ? "new" : "base", res->n_base ? "base" : "new");
		if (res->n_base)
			res->base = mean_of(xb, res->n_base);
		else
			res->new = mean_of(xn, res->n_new);
		goto out;
	}
	res->has_values = true;
	res->base = mean_of(xb, res->n_base);
	res->new = mean_of(xn, res->n_new);
	res->threshold = rule_threshold(r, res->base);
	holds = rule_compare(r->op, res->new, res->threshold);
	if (!r->significant) {
		res->verdict = holds ? VERDICT_PASS : VERDICT_FAIL;
		goto out;
	}
	if (res->n_new < 2 || res->n_base < 2) {
		snprintf(res->reason, sizeof(res->reason),
			 "too few samples: n=%zu new and %zu base; significance needs 2 on each side",
			 res->n_new, res->n_base);
		goto out;
	}
	/*
	 * By ranks, few runs can never be significant (3 against 3: p >= 0.1):
	 * a PASS there would be one no data could have turned into a FAIL.
	 */
	if (!holds && r->test == STATS_MANN_WHITNEY &&
	    mann_whitney_min_p(res->n_base, res->n_new) >= STATS_ALPHA) {
		snprintf(res->reason, sizeof(res->reason),
			 "too few samples: n=%zu new and %zu base; Mann-Whitney's p is never below "
			 "%.2g with these (Welch's t needs 2 on each side)", res->n_new, res->n_base,
			 mann_whitney_min_p(res->n_base, res->n_new));
		goto out;
	}
	if (holds) {
		res->verdict = VERDICT_PASS;
	} else {
		struct sample_summary sb, sn;
		struct welch w;
		struct mann_whitney mw;

		if (r->test == STATS_MANN_WHITNEY) {
			mann_whitney_test(xb, res->n_base, xn, res->n_new, &mw);
			res->p = mw.p;
			res->method = mw.method;
		} else {
			summarize(xb, res->n_base, &sb);
			summarize(xn, res->n_new, &sn);
			welch_test(&sb, &sn, &w);
			res->p = w.p;
		}
		res->tested = true;
		if (res->p < STATS_ALPHA) {
			res->verdict = VERDICT_FAIL;
		} else {
			res->verdict = VERDICT_PASS;
			res->not_significant = true;
			snprintf(res->reason, sizeof(res->reason), "difference not significant");
		}
	}
out:
	free(xb);
	free(xn);
	return 0;
}

bool rule_skipped(const struct rule *r, const struct profile *base, const struct profile *new,
		  const bool *scope, char *why, size_t len)
{
	int f = metric_family(r->metric);

	/*
	 * The cred layout is no family's: a fact every profile keeps, so only
	 * two profiles from before it was kept were not asked for it.
	 */
	if (metric_is_cred_line(r->metric)) {
		if (base->cred_line_kept || new->cred_line_kept)
			return false;
		snprintf(why, len, "neither profile holds struct cred's layout (written before "
			 "permscope kept it, or a side read from Prometheus)");
		return true;
	}
	/* bench.* and unknown names have no family to skip: judged (or refused) */
	if (f < 0)
		return false;
	if (scope) {
		if (scope[f])
			return false;
		snprintf(why, len, "the %s family is not in gate --families", family_name(f));
		return true;
	}
	if (base->fam[f].status != FAMILY_NOT_REQUESTED ||
	    new->fam[f].status != FAMILY_NOT_REQUESTED)
		return false;
	snprintf(why, len, "neither profile was asked to record the %s family", family_name(f));
	return true;
}

enum verdict verdicts_overall(const size_t count[VERDICTS])
{
	/* nothing judged is no pass: a gate whose every rule was skipped */
	if (!count[VERDICT_PASS] && !count[VERDICT_FAIL])
		return VERDICT_NO_VERDICT;
	return count[VERDICT_FAIL] ? VERDICT_FAIL :
	       count[VERDICT_NO_VERDICT] ? VERDICT_NO_VERDICT : VERDICT_PASS;
}
