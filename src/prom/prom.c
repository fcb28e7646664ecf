// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus text exposition (format 0.0.4) of a profile, and the
 * same as OpenMetrics: every family's rows, the recording's and the
 * daemon's own metrics, in the names src/prom/promnames.c gives them.
 * SUM and RATIO rows are derived and left to PromQL.  docs/metrics.md
 * lists every name.
 */
#include "prom/prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom/promnames.h"
#include "prom/promtext.h"

/* ---- family series ----------------------------------------------------- */

/*
 * The labels every series of family `f` carries for its stats struct `i`:
 * the attach mode, and the filesystem for a per-fs family.
 */
static void family_labels(const struct profile *p, enum family_id f, size_t i,
			  struct labels *ls)
{
	ls->n = 0;
	prom_label(ls, "mode", mode_name(p->fam[f].mode));
	if (schema[f].per_fs)
		prom_label(ls, "fs", p->fs[i].name);
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
	prom_begin(pr, "counter", "%s", name);
}

static void count_metric(struct prom *pr, const struct profile *p, enum family_id f, int row)
{
	const struct schema_row *r = &schema[f].rows[row];
	struct labels ls;

	begin_row(pr, f, row);
	prom_help(pr, "%s: %s", schema[f].name, r->meaning);
	for (size_t i = 0; i < profile_nstats(p, f); i++) {
		family_labels(p, f, i, &ls);
		prom_sample_u64(pr, "", &ls, *schema_counter(r, profile_stats(p, f, i)));
	}
	prom_end(pr);
}

/* The rows of one group as one counter, the row name in the group's label. */
static void group_metric(struct prom *pr, const struct profile *p, enum family_id f, int first)
{
	const struct family_schema *fs = &schema[f];
	struct labels ls;

	begin_row(pr, f, first);
	prom_help(pr, "%s:", fs->name);
	for (int j = first; j < fs->nrows; j++)
		if (same_group(&fs->rows[j], &fs->rows[first]))
			prom_help(pr, "%s %s (%s=%s)", j == first ? "" : ";", fs->rows[j].meaning,
			     fs->rows[j].label, fs->rows[j].name);
	for (size_t i = 0; i < profile_nstats(p, f); i++)
		for (int j = first; j < fs->nrows; j++) {
			const struct schema_row *r = &fs->rows[j];

			if (!same_group(r, &fs->rows[first]) || schema_row_absent(fs, j, p->absent[f]))
				continue;
			family_labels(p, f, i, &ls);
			prom_label(&ls, r->label, r->name);
			prom_sample_u64(pr, "", &ls, *schema_counter(r, profile_stats(p, f, i)));
		}
	prom_end(pr);
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

	prom_label(&ls, "le", le);
	/* OpenMetrics: the start's point whole, then the end's */
	for (int point = 0; point < (pr->om ? 2 : 1); point++) {
		__u64 cum = 0;

		pr->point = pr->om ? point : -1;
		/* every slot counts towards the next bound exported, only chosen bounds are written */
		for (unsigned int s = 0; s < HIST_SLOTS - 1; s++) {
			cum += h->slots[s];
			if (!(buckets & 1ULL << s))
				continue;
			prom_format_double(le, sizeof(le), (double)(hist_hi(s) - 1) / 1e9);
			prom_sample_u64(pr, "_bucket", &ls, cum);
		}
		snprintf(le, sizeof(le), "+Inf");
		prom_sample_u64(pr, "_bucket", &ls, calls);
		prom_sample_double(pr, "_sum", base, (double)h->sum / 1e9);
		prom_sample_u64(pr, "_count", base, calls);
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

	/* no histogram at all where latency was not measured (--lean), never an empty one */
	for (int pass = 0; pass < (p->fam[f].no_latency ? 1 : 2); pass++) {
		histogram = pass == 1;
		if (histogram) {
			prom_latency_name(f, name, sizeof(name));
			prom_begin(pr, "histogram", "%s", name);
			prom_help(pr, "%s: latency in seconds of %s, by outcome", fs->name, what);
		} else {
			begin_row(pr, f, fs->events);
			prom_help(pr, "%s: %s, by outcome:", fs->name, what);
			for (int j = 0, n = 0; j < fs->nrows; j++)
				if (fs->rows[j].kind == ROW_OUTCOME)
					prom_help(pr, "%s %s (outcome=%s)", n++ ? ";" : "",
					     fs->rows[j].meaning, fs->rows[j].name);
		}
		for (size_t i = 0; i < profile_nstats(p, f); i++)
			for (int j = 0; j < fs->nrows; j++) {
				const struct schema_row *r = &fs->rows[j];
				const void *stats = profile_stats(p, f, i);

				if (r->kind != ROW_OUTCOME || schema_row_absent(fs, j, p->absent[f]))
					continue;
				family_labels(p, f, i, &ls);
				prom_label(&ls, "outcome", r->name);
				if (histogram)
					latency_series(pr, &ls, schema_hist(r, stats),
						       *schema_counter(r, stats), buckets);
				else
					prom_sample_u64(pr, "", &ls, *schema_counter(r, stats));
			}
		prom_end(pr);
	}
}

/* Non-zero entries only: most of the 134 errnos never occur. */
static void errnos_metric(struct prom *pr, const struct profile *p, enum family_id f, int row)
{
	const struct schema_row *r = &schema[f].rows[row];
	struct labels ls;
	char key[24];

	begin_row(pr, f, row);
	prom_help(pr, "%s: %s (those seen)", schema[f].name, r->meaning);
	for (size_t i = 0; i < profile_nstats(p, f); i++) {
		const __u64 *c = schema_counter(r, profile_stats(p, f, i));

		for (int e = 0; e < EXEC_ERRNO_MAX; e++) {
			if (!c[e])
				continue;
			family_labels(p, f, i, &ls);
			prom_label(&ls, r->name, errno_key(e, key, sizeof(key)));
			prom_sample_u64(pr, "", &ls, c[e]);
		}
	}
	prom_end(pr);
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

/*
 * What the counts cover: a duty-cycled daemon counts in windows
 * (src/run/dutycycle.h), so a rate is an increase over the increase of
 * the seconds watched, never over wall time.
 */
static void observation_metrics(struct prom *pr, const struct profile *p)
{
	struct labels ls = { .n = 0 };

	prom_begin(pr, "counter", "permscope_observed_seconds_total");
	prom_help(pr, "seconds the family's probes were attached and counting: divide an "
		  "increase of a count by this one's for a rate per second watched");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (p->fam[f].status != FAMILY_OK)
			continue;
		ls.n = 0;
		prom_label(&ls, "family", family_name(f));
		prom_sample_double(pr, "", &ls, family_observed_ns(p, f) / 1e9);
	}
	prom_end(pr);

	prom_begin(pr, "gauge", "permscope_duty_cycle");
	prom_help(pr, "the share of time the family is attached: 1 counts every call, less is "
		  "a duty cycle (daemon --duty-cycle) whose counts are a sample of its windows");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct observation *o = &p->fam[f].observed;

		if (p->fam[f].status != FAMILY_OK)
			continue;
		ls.n = 0;
		prom_label(&ls, "family", family_name(f));
		prom_sample_double(pr, "", &ls, o->period_ns ? (double)o->window_ns / o->period_ns : 1);
	}
	prom_end(pr);

	/* the duty cycle itself, so that a reader can tell two daemons' samples alike */
	for (int k = 0; k < 2; k++) {
		prom_begin(pr, "gauge", k ? "permscope_duty_cycle_period_seconds" :
					    "permscope_duty_cycle_window_seconds");
		prom_help(pr, k ? "a duty cycle's period: a window opens once in every period" :
				  "a duty cycle's window: how long the family counts once a period");
		for (int f = 0; f < FAMILY_COUNT; f++) {
			const struct observation *o = &p->fam[f].observed;

			if (p->fam[f].status != FAMILY_OK || !family_duty_cycled(&p->fam[f]))
				continue;
			ls.n = 0;
			prom_label(&ls, "family", family_name(f));
			prom_sample_double(pr, "", &ls, (k ? o->period_ns : o->window_ns) / 1e9);
		}
		prom_end(pr);
	}

	prom_begin(pr, "counter", "permscope_observe_windows_total");
	prom_help(pr, "a duty cycle's windows: counted, or failed (a hook could not be attached "
		  "again, so nothing was counted in it)");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct observation *o = &p->fam[f].observed;

		if (p->fam[f].status != FAMILY_OK || !family_duty_cycled(&p->fam[f]))
			continue;
		ls.n = 0;
		prom_label(&ls, "family", family_name(f));
		prom_label(&ls, "outcome", "counted");
		prom_sample_u64(pr, "", &ls, o->windows);
		ls.n = 1;
		prom_label(&ls, "outcome", "failed");
		prom_sample_u64(pr, "", &ls, o->failed);
	}
	prom_end(pr);
}

static void cross_family(struct prom *pr, const struct profile *p)
{
	struct labels ls = { .n = 0 };

	/* a profile older than its "build" object: its tool version, the rest unknown */
	bool known = build_info_known(&p->build);

	prom_begin(pr, "gauge", "permscope_build_info");
	prom_help(pr, "permscope's version and revision, the libbpf it runs with and the kernel "
	     "release it runs on; always 1");
	prom_label(&ls, "version", known ? p->build.version : p->tool_version);
	prom_label(&ls, "revision", known && p->build.revision[0] ? p->build.revision : "unknown");
	prom_label(&ls, "libbpf", known ? p->build.libbpf : "unknown");
	prom_label(&ls, "kernel", p->kernel_release);
	prom_sample_u64(pr, "", &ls, 1);
	prom_end(pr);

	/*
	 * The fourth fast path, a fact of the running kernel: one series a
	 * state, the one that holds at 1 (OpenMetrics' stateset as a gauge),
	 * so that "unknown" is a state a query sees, never a missing series.
	 * A profile from before it was kept exports none.
	 */
	if (p->cred_line_kept) {
		prom_begin(pr, "gauge", "permscope_cred_refcount_line");
		prom_help(pr, "struct cred's refcount against the cacheline permission checks read: "
		     "1 for the state that holds (separated, shares, unknown)");
		for (int a = 0; a < 3; a++) {
			ls.n = 0;
			prom_label(&ls, "state", cred_layout_answer_names[a]);
			prom_sample_u64(pr, "", &ls, p->cred_line == (enum cred_layout_answer)a);
		}
		prom_end(pr);
	}

	prom_begin(pr, "gauge", "permscope_start_time_seconds");
	prom_help(pr, "when the probes attached, seconds since the epoch: the counters count from then");
	prom_sample_double(pr, "", NULL, (double)p->start_ns / 1e9);
	prom_end(pr);

	prom_begin(pr, "gauge", "permscope_probe_attached");
	prom_help(pr, "1: the family's probes are attached in this mode; "
	     "0: no mode could attach (mode=none)");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *r = &p->fam[f];

		if (r->status == FAMILY_NOT_REQUESTED)
			continue;
		ls.n = 0;
		prom_label(&ls, "family", family_name(f));
		prom_label(&ls, "mode", mode_name(r->status == FAMILY_OK ? r->mode : MODE_NONE));
		prom_sample_u64(pr, "", &ls, r->status == FAMILY_OK);
	}
	prom_end(pr);

	prom_begin(pr, "counter", "permscope_lost_events_total");
	prom_help(pr, "events a family could not count, by the program or table that lost them");
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; p->fam[f].lost_known && i < p->fam[f].nlost; i++) {
			ls.n = 0;
			prom_label(&ls, "family", family_name(f));
			prom_label(&ls, "program", p->fam[f].lost[i].what);
			prom_sample_u64(pr, "", &ls, p->fam[f].lost[i].count);
		}
	prom_end(pr);
	observation_metrics(pr, p);
}

static void daemon_metrics(struct prom *pr, const struct prom_daemon *d)
{
	prom_begin(pr, "counter", "permscope_snapshots_written_total");
	prom_help(pr, "snapshot profiles the daemon wrote to its state directory");
	prom_sample_u64(pr, "", NULL, d->snapshots_written);
	prom_end(pr);

	prom_begin(pr, "counter", "permscope_snapshot_errors_total");
	prom_help(pr, "snapshots the daemon could not write");
	prom_sample_u64(pr, "", NULL, d->snapshot_errors);
	prom_end(pr);

	prom_begin(pr, "gauge", "permscope_last_snapshot_time_seconds");
	prom_help(pr, "when the newest snapshot was written, seconds since the epoch");
	if (d->last_snapshot_ns)
		prom_sample_double(pr, "", NULL, (double)d->last_snapshot_ns / 1e9);
	prom_end(pr);

	/* Every code from the start, at 0: increase() of a 401 series then sees the first one. */
	prom_begin(pr, "counter", "permscope_http_requests_total");
	prom_help(pr, "requests the /metrics endpoint answered, by status code (401: no or wrong "
	     "password; 429 is no longer answered and stays at 0)");
	for (int i = 0; i < HTTP_NCODES; i++) {
		struct labels ls = { .n = 0 };
		char code[16];

		snprintf(code, sizeof(code), "%u", http_codes[i]);
		prom_label(&ls, "code", code);
		prom_sample_u64(pr, "", &ls, d->http.answers[i]);
	}
	prom_end(pr);
}

/* ---- the process itself ------------------------------------------------- */

/* One process_* family of one sample: `v` when integral is false, else `n`. */
static void process_metric(struct prom *pr, const char *type, const char *name,
			   const char *what, bool integral, double v, uint64_t n)
{
	prom_begin(pr, type, "%s", name);
	prom_help(pr, "%s", what);
	if (integral)
		prom_sample_u64(pr, "", NULL, n);
	else
		prom_sample_double(pr, "", NULL, v);
	prom_end(pr);
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
			prom_begin(pr, "counter", "permscope_bpf_program_run_count_total");
			prom_help(pr, "times the BPF program ran, since --bpf-stats turned the kernel's "
			     "run statistics on (BPF_ENABLE_STATS)");
		} else {
			prom_begin(pr, "counter", "permscope_bpf_program_run_seconds_total");
			prom_help(pr, "time the BPF program ran, seconds, since --bpf-stats turned the "
			     "kernel's run statistics on (BPF_ENABLE_STATS)");
		}
		for (int i = 0; i < n; i++) {
			ls.n = 0;
			prom_label(&ls, "family", family_name(runs[i].family));
			prom_label(&ls, "program", runs[i].program);
			if (pass == 0)
				prom_sample_u64(pr, "", &ls, runs[i].run_count);
			else
				prom_sample_double(pr, "", &ls, (double)runs[i].run_time_ns / 1e9);
		}
		prom_end(pr);
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
