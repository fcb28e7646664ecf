// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "render.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

#define BAR_WIDTH 40
#define NO_CALLS_HINT "no calls seen (an idle machine? 'permscope record -- CMD' records one)"

int report_format_by_name(const char *name)
{
	if (!strcmp(name, "text"))
		return REPORT_TEXT;
	if (!strcmp(name, "json"))
		return REPORT_JSON;
	if (!strcmp(name, "csv"))
		return REPORT_CSV;
	return -1;
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static __u64 sum_u64(const __u64 *v, int n)
{
	__u64 s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static unsigned long long ull(__u64 v)
{
	return v;
}

/* The reason most often seen, LOOKUP_ELIGIBLE when every check was eligible. */
static enum lookup_reason main_reason(const struct lookup_stats *s)
{
	enum lookup_reason best = LOOKUP_ELIGIBLE;

	for (int r = 1; r < LOOKUP_REASONS; r++)
		if (s->ineligible[r] > (best ? s->ineligible[best] : 0))
			best = r;
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

/* Filesystems ordered for reading: busiest first. */
static const struct fs_result **fs_sorted(const struct profile *p)
{
	const struct fs_result **v = calloc(p->nfs + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nfs; i++)
		v[i] = &p->fs[i];
	qsort(v, p->nfs, sizeof(*v), fs_by_checks_desc);
	return v;
}

/* ---- text --------------------------------------------------------------- */

static void bar(FILE *out, __u64 v, __u64 max)
{
	int n = max ? (int)((v * BAR_WIDTH + max - 1) / max) : 0;

	fputc('|', out);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '@' : ' ', out);
	fputc('|', out);
}

/* "    LABEL      text..." folded at 80 columns under the text's first word. */
static void wrapped(FILE *out, const char *label, const char *text)
{
	const int margin = 14, width = 80; /* each word is printed with its leading space */
	int col = fprintf(out, "    %-10s", label);

	while (*text) {
		int word;

		text += strspn(text, " ");
		word = strcspn(text, " ");
		if (!word)
			break;
		if (col > margin && col + 1 + word > width)
			col = fprintf(out, "\n%*s", margin, "") - 1;
		col += fprintf(out, " %.*s", word, text);
		text += word;
	}
	fputc('\n', out);
}

static void unavailable_text(FILE *out, const struct family_result *r)
{
	if (r->status == FAMILY_NOT_REQUESTED) {
		fprintf(out, "  not recorded (not in --families)\n");
		return;
	}
	fprintf(out, "  unavailable: no attach mode worked on this kernel\n");
	for (int i = 0; i < r->nattempts; i++)
		wrapped(out, mode_name(r->attempts[i].mode), r->attempts[i].why);
}

/* A family's heading with its mode; false (after saying why) when it did not record. */
static bool section(FILE *out, const char *title, const struct family_result *r)
{
	fprintf(out, "\n%s", title);
	if (r->status != FAMILY_OK) {
		fputc('\n', out);
		unavailable_text(out, r);
		return false;
	}
	fprintf(out, "  [%s]\n", mode_name(r->mode));
	return true;
}

static void header_text(FILE *out, const struct profile *p)
{
	char when[48];
	double secs = p->end_ns > p->start_ns ? (p->end_ns - p->start_ns) / 1e9 : 0;

	format_utc_ns(p->start_ns, when, sizeof(when));
	when[19] = 0; /* seconds are enough here */
	when[10] = ' ';
	fprintf(out, "permscope report: kernel %s on %s (%s)\n", p->kernel_release,
		p->hostname, p->machine);
	fprintf(out, "recorded %s UTC for %.2f s, ", when, secs);
	if (p->command) {
		fprintf(out, "command:");
		for (char **a = p->command; *a; a++)
			fprintf(out, " %s", *a);
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
		fprintf(out, "only tasks named '%s'\n", p->filter_comm);
}

static void lookup_text(FILE *out, const struct profile *p, bool histograms)
{
	const struct family_result *r = &p->fam[FAMILY_LOOKUP];
	const struct fs_result **fs;
	__u64 max = 0, violations = 0;

	if (!section(out, "Lookup: MAY_EXEC checks on directories, per filesystem", r))
		return;
	if (!p->nfs) {
		fprintf(out, "  no directory MAY_EXEC checks seen\n");
		return;
	}
	fs = fs_sorted(p);
	if (!fs)
		return;
	fprintf(out, "  %-12s %10s %9s %11s %8s  %s\n", "FS", "CHECKS", "DID SKIP",
		"WOULD SKIP", "0x80 SET", "MAIN INELIGIBILITY");
	for (size_t i = 0; i < p->nfs; i++) {
		const struct lookup_stats *s = &fs[i]->s;
		enum lookup_reason why = main_reason(s);
		char reason[48] = "-";

		if (why != LOOKUP_ELIGIBLE)
			snprintf(reason, sizeof(reason), "%s (%.1f%%)", lookup_reason_name(why),
				 pct(s->ineligible[why], s->checks));
		fprintf(out, "  %-12s %10llu %8.1f%% %10.1f%% %8llu  %s\n", fs[i]->name,
			ull(s->checks), pct(s->did_skip, s->checks),
			pct(s->would_skip, s->checks), ull(s->flag_v2), reason);
		if (s->checks > max)
			max = s->checks;
		violations += s->violations;
	}
	if (violations)
		fprintf(out, "  VIOLATION: %llu full checks skipped on ineligible directories\n",
			ull(violations));
	if (histograms) {
		fprintf(out, "\n  did skip vs full check, per filesystem\n");
		for (size_t i = 0; i < p->nfs; i++) {
			const struct lookup_stats *s = &fs[i]->s;

			fprintf(out, "  %-14s skip ", fs[i]->name);
			bar(out, s->did_skip, max);
			fprintf(out, " %llu\n", ull(s->did_skip));
			fprintf(out, "  %-14s full ", "");
			bar(out, s->checks - s->did_skip, max);
			fprintf(out, " %llu\n", ull(s->checks - s->did_skip));
		}
	}
	free(fs);
}

static const char *const access_meaning[ACCESS_OUTCOMES] = {
	[ACCESS_NEEDED] = "override needed, cred allocated",
	[ACCESS_AVOIDABLE] = "not needed, allocated anyway (stock kernel)",
	[ACCESS_FAST] = "not needed, no cred allocated (fast path)",
	[ACCESS_UNSAFE] = "needed, no cred allocated: VIOLATION",
};

static const char *const exec_meaning[EXEC_OUTCOMES] = {
	[EXEC_OK] = "succeeded",
	[EXEC_ENOENT_EARLY] = "ENOENT before any mm (fast path)",
	[EXEC_ENOENT_LATE] = "ENOENT after allocating an mm (stock)",
	[EXEC_ERROR_OTHER] = "failed with another errno",
};

static void outcome_rows(FILE *out, const char *const *names, const char *const *meaning,
			 const __u64 *calls, int n, const int *order)
{
	__u64 total = sum_u64(calls, n);

	fprintf(out, "  %-14s %10s %7s  %s\n", "OUTCOME", "CALLS", "SHARE", "MEANING");
	for (int k = 0; k < n; k++) {
		int i = order[k];

		fprintf(out, "  %-14s %10llu %6.1f%%  %s\n", names[i], ull(calls[i]),
			pct(calls[i], total), meaning[i]);
	}
	fprintf(out, "  %-14s %10llu\n", "total", ull(total));
}

static void latency_text(FILE *out, const char *family, const char *const *names,
			 const struct hist *lat, int n)
{
	for (int i = 0; i < n; i++) {
		if (hist_empty(&lat[i]))
			continue;
		fprintf(out, "\n  %s latency, outcome %s\n", family, names[i]);
		hist_print(out, &lat[i], "  ", BAR_WIDTH);
	}
}

static void access_text(FILE *out, const struct profile *p, bool histograms)
{
	static const int order[] = { ACCESS_FAST, ACCESS_NEEDED, ACCESS_AVOIDABLE, ACCESS_UNSAFE };
	const struct family_result *r = &p->fam[FAMILY_ACCESS];
	const struct access_stats *s = &p->access;
	__u64 total = sum_u64(s->calls, ACCESS_OUTCOMES);

	if (!section(out, "Access: faccessat cred override", r))
		return;
	if (!total)
		fprintf(out, "  %s\n", NO_CALLS_HINT);
	outcome_rows(out, access_outcome_names, access_meaning, s->calls, ACCESS_OUTCOMES, order);
	fprintf(out, "  avoidable cred allocations per call: %.3f",
		total ? (double)s->calls[ACCESS_AVOIDABLE] / total : 0.0);
	if (s->eaccess)
		fprintf(out, "; %llu calls with AT_EACCESS", ull(s->eaccess));
	if (s->drops)
		fprintf(out, "; %llu calls not followed (no task storage)", ull(s->drops));
	fputc('\n', out);
	if (histograms)
		latency_text(out, "access", access_outcome_names, s->latency, ACCESS_OUTCOMES);
}

static void exec_text(FILE *out, const struct profile *p, bool histograms)
{
	static const int order[] = { EXEC_OK, EXEC_ENOENT_EARLY, EXEC_ENOENT_LATE, EXEC_ERROR_OTHER };
	const struct family_result *r = &p->fam[FAMILY_EXEC];
	const struct exec_stats *s = &p->exec;
	bool any = false;
	char buf[16];

	if (!section(out, "Exec: execve outcomes and ENOENT", r))
		return;
	if (!sum_u64(s->calls, EXEC_OUTCOMES))
		fprintf(out, "  %s\n", NO_CALLS_HINT);
	outcome_rows(out, exec_outcome_names, exec_meaning, s->calls, EXEC_OUTCOMES, order);
	for (int e = 0; e < EXEC_ERRNO_MAX; e++) {
		if (!s->errnos[e])
			continue;
		fprintf(out, "%s %s %llu", any ? "," : "  errno:", errno_key(e, buf, sizeof(buf)),
			ull(s->errnos[e]));
		any = true;
	}
	if (any)
		fputc('\n', out);
	fprintf(out, "  calls that allocated an mm: %llu\n", ull(s->mm_allocs));
	if (s->drops)
		fprintf(out, "  %llu calls not followed (no task storage)\n", ull(s->drops));
	if (histograms)
		latency_text(out, "exec", exec_outcome_names, s->latency, EXEC_OUTCOMES);
}

void render_text(FILE *out, const struct profile *p, bool histograms)
{
	header_text(out, p);
	lookup_text(out, p, histograms);
	access_text(out, p, histograms);
	exec_text(out, p, histograms);
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *unavailable_json(const struct family_result *r)
{
	char reason[1024] = "";
	size_t len = 0;

	if (r->status == FAMILY_NOT_REQUESTED)
		return json_pack("{s:s,s:s}", "mode", "not_requested", "reason",
				 "not in --families");
	for (int i = 0; i < r->nattempts && len < sizeof(reason); i++)
		len += snprintf(reason + len, sizeof(reason) - len, "%s%s: %s", i ? "; " : "",
				mode_name(r->attempts[i].mode), r->attempts[i].why);
	return json_pack("{s:s,s:s}", "mode", "unavailable", "reason", reason);
}

static json_t *latency_summary(const struct hist *lat, const char *const *names, int n)
{
	json_t *o = json_object();

	for (int i = 0; i < n; i++)
		json_object_set_new(o, names[i], json_pack("{s:I,s:f}",
			"count", (json_int_t)lat[i].count,
			"mean_ns", lat[i].count ? (double)lat[i].sum / lat[i].count : 0.0));
	return o;
}

static json_t *access_json(const struct profile *p)
{
	const struct access_stats *s = &p->access;
	__u64 total = sum_u64(s->calls, ACCESS_OUTCOMES);
	json_t *o;

	if (p->fam[FAMILY_ACCESS].status != FAMILY_OK)
		return unavailable_json(&p->fam[FAMILY_ACCESS]);
	o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:I}",
		"mode", mode_name(p->fam[FAMILY_ACCESS].mode),
		"calls", (json_int_t)total,
		"needed", (json_int_t)s->calls[ACCESS_NEEDED],
		"avoidable", (json_int_t)s->calls[ACCESS_AVOIDABLE],
		"fast", (json_int_t)s->calls[ACCESS_FAST],
		"unsafe", (json_int_t)s->calls[ACCESS_UNSAFE],
		"avoidable_per_call", total ? (double)s->calls[ACCESS_AVOIDABLE] / total : 0.0,
		"eaccess", (json_int_t)s->eaccess,
		"drops", (json_int_t)s->drops);
	json_object_set_new(o, "latency", latency_summary(s->latency, access_outcome_names,
							  ACCESS_OUTCOMES));
	return o;
}

static json_t *exec_json(const struct profile *p)
{
	const struct exec_stats *s = &p->exec;
	json_t *o, *errs;
	char buf[16];

	if (p->fam[FAMILY_EXEC].status != FAMILY_OK)
		return unavailable_json(&p->fam[FAMILY_EXEC]);
	errs = json_object();
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		if (s->errnos[e])
			json_object_set_new(errs, errno_key(e, buf, sizeof(buf)),
					    json_integer(s->errnos[e]));
	o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}",
		"mode", mode_name(p->fam[FAMILY_EXEC].mode),
		"calls", (json_int_t)sum_u64(s->calls, EXEC_OUTCOMES),
		"ok", (json_int_t)s->calls[EXEC_OK],
		"enoent", (json_int_t)(s->calls[EXEC_ENOENT_EARLY] + s->calls[EXEC_ENOENT_LATE]),
		"enoent_early", (json_int_t)s->calls[EXEC_ENOENT_EARLY],
		"enoent_late", (json_int_t)s->calls[EXEC_ENOENT_LATE],
		"error_other", (json_int_t)s->calls[EXEC_ERROR_OTHER],
		"mm_allocs", (json_int_t)s->mm_allocs,
		"drops", (json_int_t)s->drops,
		"errno", errs);
	json_object_set_new(o, "latency", latency_summary(s->latency, exec_outcome_names,
							  EXEC_OUTCOMES));
	return o;
}

static json_t *lookup_json(const struct profile *p)
{
	json_t *per_fs;

	if (p->fam[FAMILY_LOOKUP].status != FAMILY_OK)
		return unavailable_json(&p->fam[FAMILY_LOOKUP]);
	per_fs = json_object();
	for (size_t i = 0; i < p->nfs; i++) {
		const struct lookup_stats *s = &p->fs[i].s;
		json_t *inel = json_object();

		for (int r = 1; r < LOOKUP_REASONS; r++)
			json_object_set_new(inel, lookup_reason_name(r), json_integer(s->ineligible[r]));
		json_object_set_new(per_fs, p->fs[i].name, json_pack(
			"{s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:s,s:o}",
			"checks", (json_int_t)s->checks, "did_skip", (json_int_t)s->did_skip,
			"would_skip", (json_int_t)s->would_skip, "flag_v2", (json_int_t)s->flag_v2,
			"violations", (json_int_t)s->violations,
			"did_skip_ratio", s->checks ? (double)s->did_skip / s->checks : 0.0,
			"would_skip_ratio", s->checks ? (double)s->would_skip / s->checks : 0.0,
			"main_ineligibility", main_reason(s) == LOOKUP_ELIGIBLE ? "none" :
				lookup_reason_name(main_reason(s)),
			"ineligible", inel));
	}
	return json_pack("{s:s,s:o}", "mode", mode_name(p->fam[FAMILY_LOOKUP].mode),
			 "per_fs", per_fs);
}

int render_json(FILE *out, const struct profile *p)
{
	json_t *root = json_pack("{s:s,s:s,s:s,s:f,s:{s:o,s:o,s:o}}",
		"format", REPORT_FORMAT,
		"kernel", p->kernel_release,
		"hostname", p->hostname,
		"duration_s", p->end_ns > p->start_ns ? (p->end_ns - p->start_ns) / 1e9 : 0.0,
		"families",
			"lookup", lookup_json(p),
			"access", access_json(p),
			"exec", exec_json(p));
	int ret;

	if (!root)
		return -1;
	ret = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', out);
	json_decref(root);
	return ret;
}

/* ---- CSV ---------------------------------------------------------------- */

/* RFC 4180: quote a field holding a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, const char *family, const char *subject, const char *metric,
		    const char *value)
{
	csv_field(out, family);
	fputc(',', out);
	csv_field(out, subject);
	fputc(',', out);
	csv_field(out, metric);
	fputc(',', out);
	csv_field(out, value);
	fputc('\n', out);
}

static void csv_u64(FILE *out, const char *family, const char *subject, const char *metric,
		    __u64 v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", ull(v));
	csv_row(out, family, subject, metric, buf);
}

static void csv_ratio(FILE *out, const char *family, const char *subject, const char *metric,
		      __u64 part, __u64 whole)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6f", whole ? (double)part / whole : 0.0);
	csv_row(out, family, subject, metric, buf);
}

static bool csv_status(FILE *out, const struct profile *p, enum family_id f)
{
	const struct family_result *r = &p->fam[f];

	if (r->status == FAMILY_OK) {
		csv_row(out, family_name(f), "", "mode", mode_name(r->mode));
		return true;
	}
	csv_row(out, family_name(f), "", "mode",
		r->status == FAMILY_NOT_REQUESTED ? "not_requested" : "unavailable");
	for (int i = 0; i < r->nattempts; i++)
		csv_row(out, family_name(f), mode_name(r->attempts[i].mode), "why",
			r->attempts[i].why);
	return false;
}

void render_csv(FILE *out, const struct profile *p)
{
	fputs("family,subject,metric,value\n", out);
	if (csv_status(out, p, FAMILY_LOOKUP)) {
		for (size_t i = 0; i < p->nfs; i++) {
			const struct lookup_stats *s = &p->fs[i].s;
			const char *fs = p->fs[i].name;

			csv_u64(out, "lookup", fs, "checks", s->checks);
			csv_u64(out, "lookup", fs, "did_skip", s->did_skip);
			csv_u64(out, "lookup", fs, "would_skip", s->would_skip);
			csv_u64(out, "lookup", fs, "flag_v2", s->flag_v2);
			csv_u64(out, "lookup", fs, "violations", s->violations);
			csv_ratio(out, "lookup", fs, "did_skip_ratio", s->did_skip, s->checks);
			csv_ratio(out, "lookup", fs, "would_skip_ratio", s->would_skip, s->checks);
			for (int r = 1; r < LOOKUP_REASONS; r++) {
				char metric[48];

				snprintf(metric, sizeof(metric), "ineligible_%s", lookup_reason_name(r));
				csv_u64(out, "lookup", fs, metric, s->ineligible[r]);
			}
		}
	}
	if (csv_status(out, p, FAMILY_ACCESS)) {
		const struct access_stats *s = &p->access;

		for (int i = 0; i < ACCESS_OUTCOMES; i++) {
			csv_u64(out, "access", access_outcome_names[i], "calls", s->calls[i]);
			csv_u64(out, "access", access_outcome_names[i], "latency_sum_ns", s->latency[i].sum);
		}
		csv_ratio(out, "access", "all", "avoidable_per_call", s->calls[ACCESS_AVOIDABLE],
			  sum_u64(s->calls, ACCESS_OUTCOMES));
		csv_u64(out, "access", "all", "eaccess", s->eaccess);
		csv_u64(out, "access", "all", "drops", s->drops);
	}
	if (csv_status(out, p, FAMILY_EXEC)) {
		const struct exec_stats *s = &p->exec;
		char buf[16];

		for (int i = 0; i < EXEC_OUTCOMES; i++) {
			csv_u64(out, "exec", exec_outcome_names[i], "calls", s->calls[i]);
			csv_u64(out, "exec", exec_outcome_names[i], "latency_sum_ns", s->latency[i].sum);
		}
		for (int e = 0; e < EXEC_ERRNO_MAX; e++)
			if (s->errnos[e])
				csv_u64(out, "exec", errno_key(e, buf, sizeof(buf)), "errno_calls",
					s->errnos[e]);
		csv_u64(out, "exec", "all", "mm_allocs", s->mm_allocs);
		csv_u64(out, "exec", "all", "drops", s->drops);
	}
}
