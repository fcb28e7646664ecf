// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "render.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

#define BAR_WIDTH 40
#define NO_CALLS_HINT "no calls seen (an idle machine? 'permscope record -- CMD' records one)"

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static unsigned long long ull(__u64 v)
{
	return v;
}

static const struct family_schema *const lookup_schema = &schema[FAMILY_LOOKUP];

int render_main_reason(const struct lookup_stats *s)
{
	int best = -1;
	double most = 0;

	for (int i = L_INEL_MODE; i <= L_INEL_NOT_OPTED_IN; i++) {
		const struct schema_row *r = &lookup_schema->rows[i];

		if (*schema_counter(r, s) > most) {
			most = *schema_counter(r, s);
			best = i;
		}
	}
	return best;
}

static int fs_by_checks_desc(const void *a, const void *b)
{
	const struct fs_result *x = *(const struct fs_result *const *)a;
	const struct fs_result *y = *(const struct fs_result *const *)b;

	if (x->s.checks != y->s.checks)
		return x->s.checks < y->s.checks ? 1 : -1;
	return strcmp(x->name, y->name);
}

const struct fs_result **render_fs_sorted(const struct profile *p)
{
	const struct fs_result **v = calloc(p->nfs + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nfs; i++)
		v[i] = &p->fs[i];
	qsort(v, p->nfs, sizeof(*v), fs_by_checks_desc);
	return v;
}

/* A row's value for reading: "-" when the profile predates the row. */
static const char *value_text(const struct family_schema *fs, int row, const void *stats,
			      uint32_t absent, char *buf, size_t size)
{
	if (schema_row_absent(fs, row, absent))
		return "-";
	if (fs->rows[row].kind == ROW_RATIO)
		snprintf(buf, size, "%.3f", schema_value(fs, row, stats));
	else
		snprintf(buf, size, "%llu", (unsigned long long)schema_count(fs, row, stats));
	return buf;
}

/*
 * A count as a JSON integer, which is 64-bit signed: a total over 2^63 - 1
 * (several profiles' or filesystems' counts added) is given as 2^63 - 1,
 * the largest a profile holds, instead of wrapping to a negative number.
 */
static json_t *json_count(uint64_t v)
{
	return json_integer(v > PROFILE_COUNT_MAX ? (json_int_t)PROFILE_COUNT_MAX : (json_int_t)v);
}

/* ---- text --------------------------------------------------------------- */

static void bar(FILE *out, __u64 v, __u64 max)
{
	int n = bar_length(v, max, BAR_WIDTH);

	fputc('|', out);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '@' : ' ', out);
	fputc('|', out);
}

/* "    LABEL      text..." folded at 80 columns under the text's first word. */
static void wrapped(FILE *out, const char *label, const char *text)
{
	fold_words(out, fprintf(out, "    %-10s", label), 14, 80, text);
}

static void unavailable_text(FILE *out, const struct family_result *r)
{
	if (r->status == FAMILY_NOT_REQUESTED) {
		fprintf(out, "  %s (not in --families)\n", family_status_text(r->status));
		return;
	}
	fprintf(out, "  unavailable: no attach mode worked on this kernel\n");
	for (int i = 0; i < r->nattempts; i++)
		wrapped(out, mode_name(r->attempts[i].mode), r->attempts[i].why);
}

/* A family's heading with its mode; false (after saying why) when it did not record. */
static bool section(FILE *out, const char *title, const struct family_result *r)
{
	char watched[160];

	fprintf(out, "\n%s", title);
	if (r->status != FAMILY_OK) {
		fputc('\n', out);
		unavailable_text(out, r);
		return false;
	}
	fprintf(out, "  [%s]\n", mode_name(r->mode));
	/* a daemon's windows (--duty-cycle): its counts are of the seconds watched alone */
	if (*family_watched_text(r, watched, sizeof(watched)))
		fprintf(out, "  counted in windows: %s\n", watched);
	return true;
}

static void header_text(FILE *out, const struct profile *p)
{
	char when[48];
	double secs = p->end_ns > p->start_ns ? (p->end_ns - p->start_ns) / 1e9 : 0;

	format_utc_ns(p->start_ns, when, sizeof(when));
	when[19] = 0; /* seconds are enough here */
	when[10] = ' ';
	/* a profile is outside input: no text of it can end a line of ours */
	fprintf(out, "permscope report: kernel %s on %s (%s)\n", printable(p->kernel_release),
		printable(p->hostname), printable(p->machine));
	fprintf(out, "recorded %s UTC for %.2f s, ", when, secs);
	if (p->command) {
		fprintf(out, "command:");
		for (char **a = p->command; *a; a++)
			fprintf(out, " %s", printable(*a));
		if (p->exit_status > 128)
			fprintf(out, " (killed by signal %d)", p->exit_status - 128);
		else if (p->exit_status >= 0)
			fprintf(out, " (exit %d)", p->exit_status);
		else
			fprintf(out, " (stopped when the recording ended)");
		fputc('\n', out);
	} else if (p->filter_pid) {
		fprintf(out, "pid %d and the processes it started\n", p->filter_pid);
	} else {
		fprintf(out, "all processes\n");
	}
	if (p->filter_comm[0])
		fprintf(out, "only tasks named '%s'\n", printable(p->filter_comm));
	if (p->filter_cgroup[0])
		fprintf(out, "only tasks in cgroup %s and below\n", printable(p->filter_cgroup));
	if (p->cred_line_kept) /* the fourth fast path: check's fourth row, when recorded */
		fprintf(out, "cred refcount line: %s\n", p->cred_line == CRED_LAYOUT_SHARES ?
			"shares (usage on the cacheline permission checks read)" :
			p->cred_line == CRED_LAYOUT_SEPARATED ?
			"separated (usage off the cacheline permission checks read)" :
			"unknown (no layout of struct cred could be read)");
	if (p->mixed) /* merge --allow-mixed: its runs are not samples of one thing */
		fprintf(out, "note: merged from runs that differ (--allow-mixed): %s\n",
			printable(p->mixed));
	if (profile_clock_is_coarse(p))
		fprintf(out, "note: timed by the %s clocksource, which steps every few ms: the\n"
			"      latencies below are not measurements (most read 0); counts are exact\n",
			printable(p->clocksource));
}

/* "  MEANING: VALUE" for the rows flagged ROW_TEXT; "errno: ..." for ERRNOS. */
static void row_lines(FILE *out, const struct family_schema *fs, const void *stats,
		      uint32_t absent)
{
	char buf[32];

	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		bool any = false;

		if (r->kind == ROW_ERRNOS) {
			const __u64 *v = schema_counter(r, stats);

			for (int e = 0; e < EXEC_ERRNO_MAX; e++) {
				if (!v[e])
					continue;
				fprintf(out, "%s %s %llu", any ? "," : "  errno:",
					errno_key(e, buf, sizeof(buf)), ull(v[e]));
				any = true;
			}
			if (any)
				fputc('\n', out);
			continue;
		}
		if (!(r->flags & ROW_TEXT) ||
		    ((r->flags & ROW_TEXT_NONZERO) && !schema_row_absent(fs, i, absent) &&
		     !schema_value(fs, i, stats)))
			continue;
		fprintf(out, "  %s: %s\n", r->meaning,
			value_text(fs, i, stats, absent, buf, sizeof(buf)));
	}
}

/*
 * Lookup checks the programs could attribute neither to the fast path nor
 * to inode_permission() (bpf/lookup.bpf.c): counted as losses, so verify,
 * gate and the self-test draw no verdict from them, but said apart.
 */
#define UNATTRIBUTED_PREFIX "unattributed_"

static bool lost_unattributed(const struct lost_count *l)
{
	return !strncmp(l->what, UNATTRIBUTED_PREFIX, strlen(UNATTRIBUTED_PREFIX));
}

static const char *unattributed_why(const char *what)
{
	if (!strcmp(what, "unattributed_return_hook"))
		return "another tracer's return probe on inode_permission or "
		       "security_inode_permission (a kretprobe it could not undo, a "
		       "function-graph hook) hid the caller";
	if (!strcmp(what, "unattributed_call_site"))
		return "the return address follows no call of inode_permission or "
		       "security_inode_permission";
	return "no reason recorded";
}

/* "UNATTRIBUTED: N checks ..." with each reason, when there are any. */
static void unattributed_text(FILE *out, const struct family_result *r)
{
	char line[768];
	uint64_t total = 0;
	size_t len;

	for (int i = 0; i < r->nlost; i++)
		if (lost_unattributed(&r->lost[i]))
			total = sat_add_u64(total, r->lost[i].count);
	if (!total)
		return;
	len = snprintf(line, sizeof(line), "%llu checks neither proven skipped nor proven "
		       "full, counted in no row above:", ull(total));
	for (int i = 0, n = 0; i < r->nlost && len < sizeof(line); i++)
		if (lost_unattributed(&r->lost[i]) && r->lost[i].count)
			len += snprintf(line + len, sizeof(line) - len, "%s %llu %s (%s)",
					n++ ? ";" : "", ull(r->lost[i].count),
					unattributed_why(r->lost[i].what), r->lost[i].what);
	if (len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "; no skip, violation or verdict is "
			 "drawn from them (docs/kernels.md, \"Other tracers\")");
	fold_words(out, fprintf(out, "  UNATTRIBUTED:"), 8, 80, line);
}

/* "LOST: N events ..." when a family could not count everything it saw. */
static void lost_text(FILE *out, const struct family_result *r)
{
	char line[512];
	size_t len;
	uint64_t total = 0;

	unattributed_text(out, r);
	for (int i = 0; i < r->nlost; i++)
		if (!lost_unattributed(&r->lost[i]))
			total = sat_add_u64(total, r->lost[i].count);
	if (!total)
		return;
	len = snprintf(line, sizeof(line), "%llu events not counted (", ull(total));
	for (int i = 0, n = 0; i < r->nlost && len < sizeof(line); i++)
		if (r->lost[i].count && !lost_unattributed(&r->lost[i]))
			len += snprintf(line + len, sizeof(line) - len, "%s%s %llu", n++ ? ", " : "",
					r->lost[i].what, ull(r->lost[i].count));
	if (len < sizeof(line))
		len += snprintf(line + len, sizeof(line) - len, "): a count here may be off by "
				"up to that many, so none is exact (a missed hook can also "
				"move a call to another outcome: unsafe, early ENOENT)");
	/*
	 * Trampoline programs are skipped when one is preempted mid-run on the
	 * same CPU; kprobe programs run with preemption off (docs/kernels.md).
	 */
	if (r->mode == MODE_FENTRY && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "; --mode kprobe counts every call, "
			 "at a higher cost");
	fold_words(out, fprintf(out, "  LOST:"), 8, 80, line);
}

static void lookup_text(FILE *out, const struct profile *p, enum family_id f, bool histograms)
{
	const struct family_schema *fs = &schema[f];
	const struct family_result *r = &p->fam[f];
	const uint32_t absent = p->absent[f];
	/* A profile from before checks had origins: shares of all checks. */
	const bool by_origin = !schema_row_absent(fs, L_ORIGIN_WALK, absent);
	const int n = by_origin ? L_ORIGIN_WALK : L_CHECKS;
	const int did = by_origin ? L_WALK_DID_SKIP_RATIO : L_DID_SKIP_RATIO;
	const int would = by_origin ? L_WALK_WOULD_SKIP_RATIO : L_WOULD_SKIP_RATIO;
	static const enum lookup_row others[] = {
		L_ORIGIN_CHDIR, L_ORIGIN_ACCESS, L_ORIGIN_CALLER, L_ORIGIN_MASK, L_NO_LSM_CHECK,
		L_RACING, L_FIRST_CHECK,
	};
	union family_stats total = {0};
	const struct fs_result **sorted;
	__u64 max = 0;
	char buf[32], opt_buf[32], pct_did[16], pct_would[16];

	if (!section(out, fs->title, r))
		return;
	if (!p->nfs) {
		fprintf(out, "  no directory MAY_EXEC checks seen\n");
		lost_text(out, r);
		return;
	}
	sorted = render_fs_sorted(p);
	if (!sorted)
		return;
	/* The fast path can only take path-walk checks: the shares are of those. */
	fprintf(out, "  %-12s %10s %9s %11s %8s  %s\n", "FS", by_origin ? "WALKS" : "CHECKS",
		"DID SKIP", "WOULD SKIP", "OPT-IN", "MAIN INELIGIBILITY");
	for (size_t i = 0; i < p->nfs; i++) {
		const struct lookup_stats *s = &sorted[i]->s;
		int why = render_main_reason(s);
		char reason[48] = "-";

		if (why >= 0)
			snprintf(reason, sizeof(reason), "%s (%.1f%%)", fs->rows[why].name,
				 pct(*schema_counter(&fs->rows[why], s), s->checks));
		snprintf(pct_did, sizeof(pct_did), "%.1f%%", 100 * schema_value(fs, did, s));
		snprintf(pct_would, sizeof(pct_would), "%.1f%%", 100 * schema_value(fs, would, s));
		fprintf(out, "  %-12s %10s %9s %11s %8s  %s\n", sorted[i]->name,
			value_text(fs, n, s, absent, buf, sizeof(buf)),
			schema_row_absent(fs, did, absent) ? "-" : pct_did,
			schema_row_absent(fs, would, absent) ? "-" : pct_would,
			value_text(fs, L_OPT_IN, s, absent, opt_buf, sizeof(opt_buf)), reason);
		if (s->checks > max)
			max = s->checks;
		counters_add(&total, s, sizeof(*s));
	}
	/* Checks the fast path cannot take, and what no other column holds. */
	if (!by_origin) {
		fprintf(out, "  (a profile from before checks had origins: shares of all checks)\n");
	} else {
		fprintf(out, "\n  %-12s %8s %8s %8s %8s %8s %8s %8s\n", "FS", "CHDIR", "ACCESS",
			"CALLER", "MASK", "NO-LSM", "RACING", "FIRST");
		for (size_t i = 0; i < p->nfs; i++) {
			fprintf(out, "  %-12s", sorted[i]->name);
			for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++)
				fprintf(out, " %8s", value_text(fs, others[k], &sorted[i]->s,
								absent, buf, sizeof(buf)));
			fputc('\n', out);
		}
	}
	if (total.lookup.violations)
		fprintf(out, "  VIOLATION: %llu full checks skipped on ineligible directories\n",
			ull(total.lookup.violations));
	row_lines(out, fs, &total, absent);
	lost_text(out, r);
	if (histograms) {
		fprintf(out, "\n  did skip vs full check, per filesystem\n");
		for (size_t i = 0; i < p->nfs; i++) {
			const struct lookup_stats *s = &sorted[i]->s;

			fprintf(out, "  %-14s skip ", sorted[i]->name);
			bar(out, s->did_skip, max);
			fprintf(out, " %llu\n", ull(s->did_skip));
			fprintf(out, "  %-14s full ", "");
			bar(out, s->checks - s->did_skip, max);
			fprintf(out, " %llu\n", ull(s->checks - s->did_skip));
		}
	}
	free(sorted);
}

/* The outcome table, the flagged rows, then a latency histogram per outcome. */
static void outcomes_text(FILE *out, const struct profile *p, enum family_id f, bool histograms)
{
	const struct family_schema *fs = &schema[f];
	const void *stats = profile_stats(p, f, 0);
	const uint32_t absent = p->absent[f];
	double total = 0;

	if (!section(out, fs->title, &p->fam[f]))
		return;
	for (int i = 0; i < fs->nrows; i++)
		if (fs->rows[i].kind == ROW_OUTCOME)
			total += *schema_counter(&fs->rows[i], stats);
	if (!total)
		fprintf(out, "  %s\n", NO_CALLS_HINT);
	fprintf(out, "  %-14s %10s %7s  %s\n", "OUTCOME", "CALLS", "SHARE", "MEANING");
	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];

		if (r->kind != ROW_OUTCOME)
			continue;
		if (schema_row_absent(fs, i, absent))
			fprintf(out, "  %-14s %10s %7s  %s\n", r->name, "-", "-", r->meaning);
		else
			fprintf(out, "  %-14s %10llu %6.1f%%  %s\n", r->name,
				ull(*schema_counter(r, stats)), pct(*schema_counter(r, stats), total),
				r->meaning);
	}
	fprintf(out, "  %-14s %10.0f\n", "total", total);
	row_lines(out, fs, stats, absent);
	lost_text(out, &p->fam[f]);
	if (!histograms)
		return;
	if (p->fam[f].no_latency)
		fprintf(out, "\n  %s latency: not measured (%s)\n", fs->name,
			p->fam[f].lean ? "recorded with --lean" : "its histograms are not known");
	for (int i = 0; i < fs->nrows && !p->fam[f].no_latency; i++) {
		const struct schema_row *r = &fs->rows[i];

		if (r->kind != ROW_OUTCOME || hist_empty(schema_hist(r, stats)))
			continue;
		fprintf(out, "\n  %s latency, outcome %s\n", fs->name, r->name);
		hist_print(out, schema_hist(r, stats), "  ", BAR_WIDTH);
	}
}

void render_text(FILE *out, const struct profile *p, bool histograms)
{
	/*
	 * A family's own section where it has one; any family with one stats
	 * struct reads well as the generic outcome table and rows.  A per-fs
	 * family needs its own: the generic one would show one filesystem.
	 */
	static void (*const own_text[FAMILY_COUNT])(FILE *, const struct profile *,
						    enum family_id, bool) = {
		[FAMILY_LOOKUP] = lookup_text,
	};

	header_text(out, p);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (own_text[f])
			own_text[f](out, p, f, histograms);
		else if (!schema[f].per_fs)
			outcomes_text(out, p, f, histograms);
		else
			fprintf(out, "\n%s\n  permscope bug: no report section for this per-fs "
				"family\n", schema[f].title);
	}
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *unavailable_json(const struct family_result *r)
{
	char reason[1024] = "";
	size_t len = 0;

	if (r->status == FAMILY_NOT_REQUESTED)
		return json_pack("{s:s,s:s}", "mode", family_status_name(r->status), "reason",
				 "not in --families");
	for (int i = 0; i < r->nattempts && len < sizeof(reason); i++)
		len += snprintf(reason + len, sizeof(reason) - len, "%s%s: %s", i ? "; " : "",
				mode_name(r->attempts[i].mode), r->attempts[i].why);
	return json_pack("{s:s,s:s}", "mode", family_status_name(r->status), "reason", reason);
}

/*
 * Every row of one stats struct in schema order (null when absent), the
 * grouped ones in their object, errno counts by name; per-outcome latency
 * count and mean.
 */
static json_t *stats_json(const struct family_schema *fs, const void *stats, uint32_t absent,
			  bool latency)
{
	json_t *o = json_object(), *lat = json_object();
	char buf[16];

	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		const __u64 *v = schema_counter(r, stats);
		json_t *into = o, *val;

		if (r->group) {
			into = json_object_get(o, r->group);
			if (!into)
				json_object_set_new(o, r->group, into = json_object());
		}
		if (r->kind == ROW_ERRNOS) {
			val = json_object();
			for (int e = 0; e < EXEC_ERRNO_MAX; e++)
				if (v[e])
					json_object_set_new(val, errno_key(e, buf, sizeof(buf)),
							    json_count(v[e]));
		} else if (schema_row_absent(fs, i, absent)) {
			val = json_null();
		} else if (r->kind == ROW_RATIO) {
			val = json_real(schema_value(fs, i, stats));
		} else {
			val = json_count(schema_count(fs, i, stats));
		}
		json_object_set_new(into, r->name, val);
		if (r->kind == ROW_OUTCOME) {
			const struct hist *h = schema_hist(r, stats);

			/* null: not measured (--lean), not an empty histogram */
			json_object_set_new(lat, r->name, !latency ? json_null() :
				json_pack("{s:o,s:f}", "count", json_count(h->count),
					  "mean_ns", hist_mean(h)));
		}
	}
	if (json_object_size(lat))
		json_object_set_new(o, "latency", lat);
	else
		json_decref(lat);
	return o;
}

/* A filesystem's rows, and which reason kept most of its checks from the fast path. */
static json_t *fs_json(const struct profile *p, enum family_id f, size_t i)
{
	json_t *o = stats_json(&schema[f], profile_stats(p, f, i), p->absent[f],
			       !p->fam[f].no_latency);
	int why;

	if (f != FAMILY_LOOKUP)
		return o;
	why = render_main_reason(&p->fs[i].s);
	json_object_set_new(o, "main_ineligibility",
			    json_string(why < 0 ? "none" : lookup_schema->rows[why].name));
	return o;
}

json_t *render_observed_json(const struct family_result *r)
{
	const struct observation *o = &r->observed;

	if (r->status != FAMILY_OK || !family_duty_cycled(r))
		return NULL;
	return json_pack("{s:f,s:f,s:f,s:I,s:I}", "window_s", o->window_ns / 1e9, "period_s",
			 o->period_ns / 1e9, "seconds", o->ns / 1e9, "windows",
			 (json_int_t)o->windows, "failed_windows", (json_int_t)o->failed);
}

static json_t *family_json(const struct profile *p, enum family_id f)
{
	const struct family_result *r = &p->fam[f];
	json_t *o, *stats;

	if (r->status != FAMILY_OK)
		return unavailable_json(r);
	o = json_pack("{s:s}", "mode", mode_name(r->mode));
	if (family_duty_cycled(r)) /* the seconds its counts are of */
		json_object_set_new(o, "observed", render_observed_json(r));
	if (r->lean)
		json_object_set_new(o, "lean", json_true());
	/* What it could not count, by source; absent for a profile that predates it. */
	if (r->lost_known) {
		json_t *lost = json_object();

		for (int i = 0; i < r->nlost; i++)
			json_object_set_new(lost, r->lost[i].what, json_count(r->lost[i].count));
		json_object_set_new(o, "lost_total", json_count(family_lost_total(r)));
		json_object_set_new(o, "lost", lost);
	}
	if (schema[f].per_fs) {
		json_t *per_fs = json_object();

		for (size_t i = 0; i < p->nfs; i++)
			json_object_set_new(per_fs, p->fs[i].name,
					    fs_json(p, f, i));
		json_object_set_new(o, "per_fs", per_fs);
		return o;
	}
	stats = stats_json(&schema[f], profile_stats(p, f, 0), p->absent[f],
			   !p->fam[f].no_latency);
	json_object_update(o, stats);
	json_decref(stats);
	return o;
}

int render_json(FILE *out, const struct profile *p)
{
	json_t *fams = json_object(), *root;
	int ret;

	for (int f = 0; f < FAMILY_COUNT; f++)
		json_object_set_new(fams, family_name(f), family_json(p, f));
	/* Where latencies cannot be trusted, a script must see it too. */
	root = json_pack("{s:s,s:s,s:s,s:o,s:b,s:f,s:o}",
		"format", REPORT_FORMAT,
		"kernel", p->kernel_release,
		"hostname", p->hostname,
		"clocksource", p->clocksource[0] ? json_string(p->clocksource) : json_null(),
		"latency_trustworthy", !profile_clock_is_coarse(p),
		"duration_s", p->end_ns > p->start_ns ? (p->end_ns - p->start_ns) / 1e9 : 0.0,
		"families", fams);
	if (!root)
		return -1;
	if (p->cred_line_kept)
		json_object_set_new(root, "cred_refcount_line",
				    json_string(cred_layout_answer_names[p->cred_line]));
	if (p->mixed)
		json_object_set_new(root, "mixed", json_string(p->mixed));
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', out);
	json_decref(root);
	return ret;
}
