// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus text exposition (format 0.0.4) of a profile, and the
 * same as OpenMetrics: every family's rows, the recording's and the
 * daemon's own metrics, in the names src/prom/promnames.c gives them.
 * SUM and RATIO rows are derived and left to PromQL.  docs/metrics.md
 * lists every name.
 */
#include "prom/prom.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom/promnames.h"

/* build_info's four, or mode, fs, outcome and le; and OpenMetrics's instance and job */
#define MAX_LABELS 8

struct label {
	const char *name, *value;
};

struct labels {
	struct label l[MAX_LABELS];
	int n;
};

/*
 * The exposition being written, and the one metric family in progress:
 * its HELP and its samples gather in memory and are written out together
 * by end(), so that a family with no sample (no filesystem seen, no errno
 * counted) leaves no HELP and TYPE behind.
 */
struct prom {
	FILE *out;
	bool failed; /* ENOMEM somewhere */
	char name[128];
	const char *type;
	FILE *help, *body;
	char *help_buf, *body_buf;
	size_t help_len, body_len;
	/*
	 * OpenMetrics (prom_render_openmetrics()): instance and job on every
	 * series, and every series at two times, at[0] and at[1] (ms since
	 * the epoch: the profile's start and end).  `point` is -1 when
	 * sample() writes both points of its series at once, or 0 or 1 while
	 * a histogram writes one point of its series whole: OpenMetrics keeps
	 * the lines of one point (its buckets, _sum and _count) together.
	 */
	bool om;
	const char *instance, *job;
	uint64_t at_ms[2];
	int point;
};

/* ---- text ------------------------------------------------------------ */

/* HELP text escapes backslash and newline; label values the double quote too. */
static void put_escaped(FILE *out, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && quote)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

/* The shortest "%g" that reads back as the same double. */
static void format_double(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void label_add(struct labels *ls, const char *name, const char *value)
{
	if (ls->n < MAX_LABELS)
		ls->l[ls->n++] = (struct label){ name, value };
}

/* Alphabetical order, but le last as client libraries write it. */
static int label_before(const struct label *a, const struct label *b)
{
	if (!strcmp(a->name, "le") || !strcmp(b->name, "le"))
		return strcmp(b->name, "le") == 0 && strcmp(a->name, "le") != 0;
	return strcmp(a->name, b->name) < 0;
}

static void put_labels(FILE *out, const struct labels *in)
{
	struct labels ls = in ? *in : (struct labels){ .n = 0 };

	for (int i = 1; i < ls.n; i++) /* insertion sort: a handful at most */
		for (int j = i; j > 0 && label_before(&ls.l[j], &ls.l[j - 1]); j--) {
			struct label t = ls.l[j];

			ls.l[j] = ls.l[j - 1];
			ls.l[j - 1] = t;
		}
	if (!ls.n)
		return;
	fputc('{', out);
	for (int i = 0; i < ls.n; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", ls.l[i].name);
		put_escaped(out, ls.l[i].value, true);
		fputc('"', out);
	}
	fputc('}', out);
}

/* ---- metric families ------------------------------------------------- */

static void begin(struct prom *pr, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void begin(struct prom *pr, const char *type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->name, sizeof(pr->name), fmt, ap);
	va_end(ap);
	pr->type = type;
	pr->help_buf = pr->body_buf = NULL;
	pr->help = open_memstream(&pr->help_buf, &pr->help_len);
	pr->body = open_memstream(&pr->body_buf, &pr->body_len);
	if (!pr->help || !pr->body)
		pr->failed = true;
}

/* Append to the HELP of the family in progress (escaped when written). */
static void help(struct prom *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void help(struct prom *pr, const char *fmt, ...)
{
	va_list ap;

	if (!pr->help)
		return;
	va_start(ap, fmt);
	vfprintf(pr->help, fmt, ap);
	va_end(ap);
}

/*
 * Seconds with the milliseconds: S.mmm.  Prometheus reads an OpenMetrics
 * timestamp as a double and truncates it times 1000 to milliseconds
 * (2.42's openmetricsparse.go), so an S.mmm whose nearest double lies just
 * below would read back a millisecond early: that one is written S.mmm1,
 * a tenth of a millisecond above, which every reader rounds or truncates
 * to the same millisecond.
 */
static void format_ms(char *buf, size_t size, uint64_t ms)
{
	snprintf(buf, size, "%llu.%03llu", (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000));
	if ((uint64_t)(strtod(buf, NULL) * 1000) != ms)
		snprintf(buf, size, "%llu.%03llu1", (unsigned long long)(ms / 1000),
			 (unsigned long long)(ms % 1000));
}

static void sample_line(struct prom *pr, const char *suffix, const struct labels *ls,
			const char *value, int point)
{
	char ts[32];

	fprintf(pr->body, "%s%s", pr->name, suffix);
	put_labels(pr->body, ls);
	fprintf(pr->body, " %s", value);
	if (point >= 0) {
		format_ms(ts, sizeof(ts), pr->at_ms[point]);
		fprintf(pr->body, " %s", ts);
	}
	fputc('\n', pr->body);
}

/*
 * One sample NAME[SUFFIX]{LABELS} VALUE of the family in progress.  In
 * OpenMetrics, a counter's or histogram's series is 0 at the start and
 * VALUE at the end (what increase() over start..end gives back), a
 * gauge's VALUE at both.
 */
static void sample(struct prom *pr, const char *suffix, const struct labels *ls,
		   const char *value)
{
	struct labels all = ls ? *ls : (struct labels){ .n = 0 };
	bool gauge = !strcmp(pr->type, "gauge");

	if (!pr->body)
		return;
	if (!pr->om) {
		sample_line(pr, suffix, ls, value, -1);
		return;
	}
	label_add(&all, "instance", pr->instance);
	label_add(&all, "job", pr->job);
	for (int point = 0; point < 2; point++)
		if (pr->point < 0 || pr->point == point)
			sample_line(pr, suffix, &all, point == 0 && !gauge ? "0" : value, point);
}

static void sample_u64(struct prom *pr, const char *suffix, const struct labels *ls, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	sample(pr, suffix, ls, buf);
}

static void sample_double(struct prom *pr, const char *suffix, const struct labels *ls,
			  double v)
{
	char buf[32];

	format_double(buf, sizeof(buf), v);
	sample(pr, suffix, ls, buf);
}

static void end(struct prom *pr)
{
	bool ok = pr->help && pr->body;

	if (pr->help && fclose(pr->help))
		ok = false;
	if (pr->body && fclose(pr->body))
		ok = false;
	if (!ok)
		pr->failed = true;
	else if (pr->body_len) {
		/* OpenMetrics names a counter without the _total of its samples */
		int n = (int)strlen(pr->name);

		if (pr->om && !strcmp(pr->type, "counter") && n > 6 &&
		    !strcmp(pr->name + n - 6, "_total"))
			n -= 6;
		fprintf(pr->out, "# HELP %.*s ", n, pr->name);
		/* OpenMetrics escapes the double quote in HELP too */
		put_escaped(pr->out, pr->help_buf, pr->om);
		fprintf(pr->out, "\n# TYPE %.*s %s\n", n, pr->name, pr->type);
		fwrite(pr->body_buf, 1, pr->body_len, pr->out);
	}
	free(pr->help_buf);
	free(pr->body_buf);
	pr->help = pr->body = NULL;
	pr->help_buf = pr->body_buf = NULL;
}

/* ---- family series ----------------------------------------------------- */

/*
 * The labels every series of family `f` carries for its stats struct `i`:
 * the attach mode, and the filesystem for a per-fs family.
 */
static void family_labels(const struct profile *p, enum family_id f, size_t i,
			  struct labels *ls)
{
	ls->n = 0;
	label_add(ls, "mode", mode_name(p->fam[f].mode));
	if (schema[f].per_fs)
		label_add(ls, "fs", p->fs[i].name);
}

/* Is row `i` the first of the rows `match` picks (a group, the outcomes)? */
static bool first_of(const struct family_schema *fs, int i,
		     bool (*match)(const struct schema_row *, const struct schema_row *))
{
	for (int j = 0; j < i; j++)
		if (match(&fs->rows[j], &fs->rows[i]))
			return false;
	return true;
}

static bool same_group(const struct schema_row *a, const struct schema_row *b)
{
	return a->kind == ROW_COUNT && a->group && b->group && !strcmp(a->group, b->group);
}

static bool both_outcomes(const struct schema_row *a, const struct schema_row *b)
{
	return a->kind == ROW_OUTCOME && b->kind == ROW_OUTCOME;
}

/* Begin the counter prom_row_series() names for row `row`. */
static void begin_row(struct prom *pr, enum family_id f, int row)
{
	const char *label, *value;
	char name[128];

	prom_row_series(f, row, name, sizeof(name), &label, &value);
	begin(pr, "counter", "%s", name);
}

static void count_metric(struct prom *pr, const struct profile *p, enum family_id f, int row)
{
	const struct schema_row *r = &schema[f].rows[row];
	struct labels ls;

	begin_row(pr, f, row);
	help(pr, "%s: %s", schema[f].name, r->meaning);
	for (size_t i = 0; i < profile_nstats(p, f); i++) {
		family_labels(p, f, i, &ls);
		sample_u64(pr, "", &ls, *schema_counter(r, profile_stats(p, f, i)));
	}
	end(pr);
}

/* The rows of one group as one counter, the row name in the group's label. */
static void group_metric(struct prom *pr, const struct profile *p, enum family_id f, int first)
{
	const struct family_schema *fs = &schema[f];
	struct labels ls;

	begin_row(pr, f, first);
	help(pr, "%s:", fs->name);
	for (int j = first; j < fs->nrows; j++)
		if (same_group(&fs->rows[j], &fs->rows[first]))
			help(pr, "%s %s (%s=%s)", j == first ? "" : ";", fs->rows[j].meaning,
			     fs->rows[j].label, fs->rows[j].name);
	for (size_t i = 0; i < profile_nstats(p, f); i++)
		for (int j = first; j < fs->nrows; j++) {
			const struct schema_row *r = &fs->rows[j];

			if (!same_group(r, &fs->rows[first]) || schema_row_absent(fs, j, p->absent[f]))
				continue;
			family_labels(p, f, i, &ls);
			label_add(&ls, r->label, r->name);
			sample_u64(pr, "", &ls, *schema_counter(r, profile_stats(p, f, i)));
		}
	end(pr);
}

/*
 * A classic histogram from a log2 one.  Slot i holds the integer
 * nanoseconds [2^i, 2^(i+1) - 1] (slot 0: 0 and 1), so its inclusive upper
 * bound le is 2^(i+1) - 1 ns; the last slot is open, counted only in +Inf.
 * Only the bounds in `buckets` are written (PROM_BUCKETS_DEFAULT, or
 * --buckets); the count at each is still every call up to it.
 * +Inf and _count are the outcome's calls, which equal the buckets' total:
 * a reading made while the programs run is settled first (schema_settle()).
 */
static void latency_series(struct prom *pr, const struct labels *base, const struct hist *h,
			   __u64 calls, uint64_t buckets)
{
	struct labels ls = *base;
	char le[32];

	label_add(&ls, "le", le);
	/* OpenMetrics: the start's point whole, then the end's */
	for (int point = 0; point < (pr->om ? 2 : 1); point++) {
		__u64 cum = 0;

		pr->point = pr->om ? point : -1;
		/* every slot counts towards the next bound exported, only chosen bounds are written */
		for (unsigned int s = 0; s < HIST_SLOTS - 1; s++) {
			cum += h->slots[s];
			if (!(buckets & 1ULL << s))
				continue;
			format_double(le, sizeof(le), (double)(hist_hi(s) - 1) / 1e9);
			sample_u64(pr, "_bucket", &ls, cum);
		}
		snprintf(le, sizeof(le), "+Inf");
		sample_u64(pr, "_bucket", &ls, calls);
		sample_double(pr, "_sum", base, (double)h->sum / 1e9);
		sample_u64(pr, "_count", base, calls);
	}
	pr->point = -1;
}

/* The OUTCOME rows: one counter of the family's events and one histogram. */
static void outcome_metrics(struct prom *pr, const struct profile *p, enum family_id f,
			    uint64_t buckets)
{
	const struct family_schema *fs = &schema[f];
	const char *what = fs->rows[fs->events].meaning;
	struct labels ls;
	char name[128];
	bool histogram;

	for (int pass = 0; pass < 2; pass++) {
		histogram = pass == 1;
		if (histogram) {
			prom_latency_name(f, name, sizeof(name));
			begin(pr, "histogram", "%s", name);
			help(pr, "%s: latency in seconds of %s, by outcome", fs->name, what);
		} else {
			begin_row(pr, f, fs->events);
			help(pr, "%s: %s, by outcome:", fs->name, what);
			for (int j = 0, n = 0; j < fs->nrows; j++)
				if (fs->rows[j].kind == ROW_OUTCOME)
					help(pr, "%s %s (outcome=%s)", n++ ? ";" : "",
					     fs->rows[j].meaning, fs->rows[j].name);
		}
		for (size_t i = 0; i < profile_nstats(p, f); i++)
			for (int j = 0; j < fs->nrows; j++) {
				const struct schema_row *r = &fs->rows[j];
				const void *stats = profile_stats(p, f, i);

				if (r->kind != ROW_OUTCOME || schema_row_absent(fs, j, p->absent[f]))
					continue;
				family_labels(p, f, i, &ls);
				label_add(&ls, "outcome", r->name);
				if (histogram)
					latency_series(pr, &ls, schema_hist(r, stats),
						       *schema_counter(r, stats), buckets);
				else
					sample_u64(pr, "", &ls, *schema_counter(r, stats));
			}
		end(pr);
	}
}

/* Non-zero entries only: most of the 134 errnos never occur. */
static void errnos_metric(struct prom *pr, const struct profile *p, enum family_id f, int row)
{
	const struct schema_row *r = &schema[f].rows[row];
	struct labels ls;
	char key[24];

	begin_row(pr, f, row);
	help(pr, "%s: %s (those seen)", schema[f].name, r->meaning);
	for (size_t i = 0; i < profile_nstats(p, f); i++) {
		const __u64 *c = schema_counter(r, profile_stats(p, f, i));

		for (int e = 0; e < EXEC_ERRNO_MAX; e++) {
			if (!c[e])
				continue;
			family_labels(p, f, i, &ls);
			label_add(&ls, r->name, errno_key(e, key, sizeof(key)));
			sample_u64(pr, "", &ls, c[e]);
		}
	}
	end(pr);
}

/* Every exported row of a family that recorded, in schema order. */
static void family_metrics(struct prom *pr, const struct profile *p, enum family_id f,
			   uint64_t buckets)
{
	const struct family_schema *fs = &schema[f];

	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		bool absent = schema_row_absent(fs, i, p->absent[f]);

		switch (r->kind) {
		case ROW_COUNT:
			if (!r->group && !absent)
				count_metric(pr, p, f, i);
			else if (r->group && first_of(fs, i, same_group))
				group_metric(pr, p, f, i);
			break;
		case ROW_OUTCOME:
			if (first_of(fs, i, both_outcomes))
				outcome_metrics(pr, p, f, buckets);
			break;
		case ROW_ERRNOS:
			if (!absent)
				errnos_metric(pr, p, f, i);
			break;
		case ROW_SUM:
		case ROW_RATIO: /* derived: PromQL divides and adds */
			break;
		}
	}
}

/* ---- about the recording and the daemon ------------------------------- */

static void cross_family(struct prom *pr, const struct profile *p)
{
	struct labels ls = { .n = 0 };

	/* a profile older than its "build" object: its tool version, the rest unknown */
	bool known = build_info_known(&p->build);

	begin(pr, "gauge", "permscope_build_info");
	help(pr, "permscope's version and revision, the libbpf it runs with and the kernel "
	     "release it runs on; always 1");
	label_add(&ls, "version", known ? p->build.version : p->tool_version);
	label_add(&ls, "revision", known && p->build.revision[0] ? p->build.revision : "unknown");
	label_add(&ls, "libbpf", known ? p->build.libbpf : "unknown");
	label_add(&ls, "kernel", p->kernel_release);
	sample_u64(pr, "", &ls, 1);
	end(pr);

	begin(pr, "gauge", "permscope_start_time_seconds");
	help(pr, "when the probes attached, seconds since the epoch: the counters count from then");
	sample_double(pr, "", NULL, (double)p->start_ns / 1e9);
	end(pr);

	begin(pr, "gauge", "permscope_probe_attached");
	help(pr, "1: the family's probes are attached in this mode; "
	     "0: no mode could attach (mode=none)");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *r = &p->fam[f];

		if (r->status == FAMILY_NOT_REQUESTED)
			continue;
		ls.n = 0;
		label_add(&ls, "family", family_name(f));
		label_add(&ls, "mode", mode_name(r->status == FAMILY_OK ? r->mode : MODE_NONE));
		sample_u64(pr, "", &ls, r->status == FAMILY_OK);
	}
	end(pr);

	begin(pr, "counter", "permscope_lost_events_total");
	help(pr, "events a family could not count, by the program or table that lost them");
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; p->fam[f].lost_known && i < p->fam[f].nlost; i++) {
			ls.n = 0;
			label_add(&ls, "family", family_name(f));
			label_add(&ls, "program", p->fam[f].lost[i].what);
			sample_u64(pr, "", &ls, p->fam[f].lost[i].count);
		}
	end(pr);
}

static void daemon_metrics(struct prom *pr, const struct prom_daemon *d)
{
	begin(pr, "counter", "permscope_snapshots_written_total");
	help(pr, "snapshot profiles the daemon wrote to its state directory");
	sample_u64(pr, "", NULL, d->snapshots_written);
	end(pr);

	begin(pr, "counter", "permscope_snapshot_errors_total");
	help(pr, "snapshots the daemon could not write");
	sample_u64(pr, "", NULL, d->snapshot_errors);
	end(pr);

	begin(pr, "gauge", "permscope_last_snapshot_time_seconds");
	help(pr, "when the newest snapshot was written, seconds since the epoch");
	if (d->last_snapshot_ns)
		sample_double(pr, "", NULL, (double)d->last_snapshot_ns / 1e9);
	end(pr);

	/* Every code from the start, at 0: increase() of a 401 series then sees the first one. */
	begin(pr, "counter", "permscope_http_requests_total");
	help(pr, "requests the /metrics endpoint answered, by status code (401: no or wrong "
	     "password; 429 is no longer answered and stays at 0)");
	for (int i = 0; i < HTTP_NCODES; i++) {
		struct labels ls = { .n = 0 };
		char code[16];

		snprintf(code, sizeof(code), "%u", http_codes[i]);
		label_add(&ls, "code", code);
		sample_u64(pr, "", &ls, d->http.answers[i]);
	}
	end(pr);
}

/* ---- the process itself ------------------------------------------------- */

/* One process_* family of one sample: `v` when integral is false, else `n`. */
static void process_metric(struct prom *pr, const char *type, const char *name,
			   const char *what, bool integral, double v, uint64_t n)
{
	begin(pr, type, "%s", name);
	help(pr, "%s", what);
	if (integral)
		sample_u64(pr, "", NULL, n);
	else
		sample_double(pr, "", NULL, v);
	end(pr);
}

/* As the Go and Python clients write them, so dashboards made for those work. */
static void process_metrics(struct prom *pr, const struct prom_process *pp)
{
	process_metric(pr, "counter", "process_cpu_seconds_total",
		       "Total user and system CPU time spent in seconds.", false,
		       pp->cpu_seconds, 0);
	process_metric(pr, "gauge", "process_open_fds", "Number of open file descriptors.", true,
		       0, pp->open_fds);
	process_metric(pr, "gauge", "process_max_fds", "Maximum number of open file descriptors.",
		       true, 0, pp->max_fds);
	process_metric(pr, "gauge", "process_virtual_memory_bytes", "Virtual memory size in bytes.",
		       true, 0, pp->virtual_bytes);
	process_metric(pr, "gauge", "process_resident_memory_bytes",
		       "Resident memory size in bytes.", true, 0, pp->resident_bytes);
	process_metric(pr, "gauge", "process_start_time_seconds",
		       "Start time of the process since unix epoch in seconds.", false,
		       pp->start_time_seconds, 0);
}

/* --bpf-stats: each loaded program's runs and run time, as the kernel counts them. */
static void program_metrics(struct prom *pr, const struct program_runs *runs, int n)
{
	struct labels ls;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			begin(pr, "counter", "permscope_bpf_program_run_count_total");
			help(pr, "times the BPF program ran, since --bpf-stats turned the kernel's "
			     "run statistics on (BPF_ENABLE_STATS)");
		} else {
			begin(pr, "counter", "permscope_bpf_program_run_seconds_total");
			help(pr, "time the BPF program ran, seconds, since --bpf-stats turned the "
			     "kernel's run statistics on (BPF_ENABLE_STATS)");
		}
		for (int i = 0; i < n; i++) {
			ls.n = 0;
			label_add(&ls, "family", family_name(runs[i].family));
			label_add(&ls, "program", runs[i].program);
			if (pass == 0)
				sample_u64(pr, "", &ls, runs[i].run_count);
			else
				sample_double(pr, "", &ls, (double)runs[i].run_time_ns / 1e9);
		}
		end(pr);
	}
}

/* The exposition of `p` as `pr` (its mode set) says, and `d`'s figures. */
static char *render(struct prom *pr, const struct profile *p, const struct prom_daemon *d,
		    size_t *len)
{
	char *buf = NULL;

	*len = 0;
	pr->out = open_memstream(&buf, len);
	if (!pr->out)
		return NULL;
	cross_family(pr, p);
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (p->fam[f].status == FAMILY_OK)
			family_metrics(pr, p, f, d && d->buckets ? d->buckets : PROM_BUCKETS_DEFAULT);
	if (d)
		daemon_metrics(pr, d);
	if (d && d->programs)
		program_metrics(pr, d->programs, d->nprograms);
	if (d && d->process)
		process_metrics(pr, d->process);
	if (pr->om)
		fputs("# EOF\n", pr->out);
	if (fclose(pr->out) || pr->failed) {
		free(buf);
		*len = 0;
		return NULL;
	}
	return buf;
}

char *prom_render(const struct profile *p, const struct prom_daemon *d, size_t *len)
{
	struct prom pr = { .point = -1 };

	return render(&pr, p, d, len);
}

char *prom_render_openmetrics(const struct profile *p, const char *instance, const char *job,
			      size_t *len)
{
	/* the start down and the end up to the millisecond: the points span the recording */
	struct prom pr = { .om = true, .instance = instance, .job = job, .point = -1,
			   .at_ms = { p->start_ns / 1000000, (p->end_ns + 999999) / 1000000 } };

	return render(&pr, p, NULL, len);
}
