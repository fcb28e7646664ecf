// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A side of a fleet comparison, from Prometheus (src/prom/promsource.h).
 *
 * Every value comes from an instant query at q->at (T) over the window W.
 * A counter's count is the difference of two samples the daemon exported,
 * the last at or before T and the last at or before T - W
 * (`x - x offset W`), or the value at T for a series with no sample then
 * (`x unless x offset W`: a daemon or a label value that began inside the
 * window counts from 0).  Not increase(): it extrapolates the samples out
 * to the window's edges, which adds up to a scrape interval's worth of
 * calls that never happened (5 % at a 15 s interval over 5 m), and a count
 * here is evidence.  Which of the two a host's counters need is told by
 * permscope_start_time_seconds at both ends: the same start is one daemon
 * run across the window, a later one a restart (a reason), none at T - W
 * either a daemon that started inside the window or one Prometheus did
 * not scrape then (a reason: what it counted before the window cannot be
 * told from what it counted inside).
 *
 * resets() over the window guards the counters themselves (one that went
 * down makes the difference wrong), and max_over_time() reads the two
 * gauges that say what ran (permscope_build_info,
 * permscope_probe_attached), so that a host whose build or mode changed
 * inside the window shows both.
 */
#include "prom/promsource.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom/promjudge.h"
#include "prom/promcover.h"
#include "prom/promnames.h"
#include "prom/promquery.h"
#include "prom/promside.h"
#include "util.h"

/* A sample of counter q->series into the rows prom_row_series() names so. */
static int take_counter(struct promside_query *q, struct promsource_host *h,
			const struct promanswer_sample *s)
{
	const struct family_schema *fs = &schema[q->f];
	const char *why;
	void *stats;
	__u64 v;
	int ret = 0;

	if ((why = promside_count(s, &v)))
		return promside_not_a_count(q, h, s, why);
	if (!(stats = promside_stats(q, h, s)))
		return h->why.n ? 0 : PROMSOURCE_ENOMEM;
	for (int row = 0; !ret && row < fs->nrows; row++) {
		const char *label, *value, *has;
		char rname[128];

		if (fs->rows[row].kind != ROW_COUNT && fs->rows[row].kind != ROW_OUTCOME &&
		    fs->rows[row].kind != ROW_ERRNOS)
			continue;
		prom_row_series(q->f, row, rname, sizeof(rname), &label, &value);
		if (strcmp(rname, q->series))
			continue;
		has = label ? promside_label(q, s, label) : NULL;
		if (fs->rows[row].kind == ROW_ERRNOS) {
			int e = has ? errno_by_key(has) : -1;

			if (e >= 0 && e < EXEC_ERRNO_MAX)
				ret = promside_add_count(q, h, s, &schema_counter(&fs->rows[row], stats)[e], v);
			h->seen[q->f] |= 1u << row;
		} else if (!label || (has && !strcmp(has, value))) {
			ret = promside_add_count(q, h, s, schema_counter(&fs->rows[row], stats), v);
			h->seen[q->f] |= 1u << row;
		}
	}
	return ret;
}

/*
 * Each sample's count into the row of family `f` that prom_row_series()
 * names `name` and whose label the sample carries.
 */
static int read_counter(struct promreader *r, enum family_id f, const char *name)
{
	const struct family_schema *fs = &schema[f];
	struct promside_query q = { .series = name, .take = take_counter, .f = f };
	char promql[PROMREADER_QUERY_MAX];

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	promside_keep(&q, "fs");
	for (int row = 0; row < fs->nrows; row++) {
		const char *label, *value;
		char rname[128];

		if (fs->rows[row].kind != ROW_COUNT && fs->rows[row].kind != ROW_OUTCOME &&
		    fs->rows[row].kind != ROW_ERRNOS)
			continue;
		prom_row_series(f, row, rname, sizeof(rname), &label, &value);
		if (!strcmp(rname, name))
			promside_keep(&q, label);
	}
	promreader_count(r, promql, name, "");
	return promreader_query(r, &q, promql);
}

static int take_reset(struct promside_query *q, struct promsource_host *h,
		      const struct promanswer_sample *s)
{
	(void)s;
	return reasons_once(&h->why, "counters reset inside the window", " (%s): the daemon "
			   "restarted, so what it counted in the window cannot be told",
			   q->series);
}

/* A reason for each host with a counter `name` that went down inside the window. */
static int read_resets(struct promreader *r, const char *name)
{
	struct promside_query q = { .series = name, .take = take_reset };
	char promql[PROMREADER_QUERY_MAX];

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	/* one series per row: keep what tells rows apart, or they look alike */
	promside_keep(&q, "fs");
	promside_keep(&q, "outcome");
	promside_keep(&q, "le");
	promside_keep(&q, "family");
	promside_keep(&q, "program");
	promside_keep(&q, "errno");
	promside_keep(&q, "reason");
	promreader_range(r, promql, "resets", name, " > 0");
	return promreader_query(r, &q, promql);
}

/* The slot whose exported bound `le` is (seconds), or -1. */
static int slot_of_le(const char *le)
{
	double ns = strtod(le, NULL) * 1e9;

	for (unsigned int s = 0; s < HIST_SLOTS - 1; s++)
		if (fabs((double)(hist_hi(s) - 1) - ns) < 0.5)
			return (int)s;
	return -1;
}

/*
 * A sample of the OUTCOME rows' histogram: its buckets (cumulative, until
 * hist_uncumulate()), _sum and _count.  A bucket's cumulative count sits
 * in its slot, +Inf's in the last.
 */
static int take_latency(struct promside_query *q, struct promsource_host *h,
			const struct promanswer_sample *s)
{
	const struct family_schema *fs = &schema[q->f];
	const char *outcome = promside_label(q, s, "outcome"), *le = promside_label(q, s, "le"), *why;
	void *stats;
	__u64 v;
	int ret = 0;

	why = q->part == 1 ? promside_sum(s, &v) : promside_count(s, &v);
	if (why)
		return promside_not_a_count(q, h, s, why);
	if (!(stats = promside_stats(q, h, s)))
		return h->why.n ? 0 : PROMSOURCE_ENOMEM;
	if (q->part == 2)
		h->latency_seen[q->f] = true;
	for (int row = 0; !ret && row < fs->nrows; row++) {
		const struct schema_row *rw = &fs->rows[row];
		struct hist *hs;
		int slot;

		if (rw->kind != ROW_OUTCOME || !outcome || strcmp(outcome, rw->name))
			continue;
		hs = schema_hist(rw, stats);
		if (q->part == 1)
			ret = promside_add_count(q, h, s, &hs->sum, v);
		else if (q->part == 2)
			ret = promside_add_count(q, h, s, &hs->count, v);
		else if (le && !strcmp(le, "+Inf"))
			ret = promside_add_count(q, h, s, &hs->slots[HIST_SLOTS - 1], v);
		else if (le && (slot = slot_of_le(le)) >= 0)
			ret = promside_add_count(q, h, s, &hs->slots[slot], v);
	}
	return ret;
}

static int read_latency(struct promreader *r, enum family_id f)
{
	static const char *const parts[] = { "_bucket", "_sum", "_count" };
	char name[128], metric[3][160], promql[PROMREADER_QUERY_MAX];
	int ret;

	prom_latency_name(f, name, sizeof(name));
	for (int part = 0; part < 3; part++) {
		struct promside_query q = { .series = metric[part], .take = take_latency, .f = f,
					.part = part };

		snprintf(metric[part], sizeof(metric[part]), "%s%s", name, parts[part]);
		promside_keep(&q, "instance");
		promside_keep(&q, "job");
		promside_keep(&q, "fs");
		promside_keep(&q, "outcome");
		promside_keep(&q, "le");
		promreader_count(r, promql, metric[part], "");
		if ((ret = promreader_query(r, &q, promql)))
			return ret;
	}
	return 0;
}

/*
 * Cumulative counts at the exported bounds into each slot's own: the calls
 * between two exported bounds go to the slot of the upper one (a slot not
 * exported holds 0, so the walk passes over it).
 */
static void hist_uncumulate(struct hist *h)
{
	__u64 below = 0;

	for (unsigned int s = 0; s < HIST_SLOTS; s++) {
		__u64 cum = h->slots[s];

		if (!cum)
			continue;
		h->slots[s] = cum > below ? cum - below : 0;
		below = cum > below ? cum : below;
	}
}

/* Every counter and histogram of family `f`, and their resets. */
static int read_family(struct promreader *r, enum family_id f)
{
	const struct family_schema *fs = &schema[f];
	char name[128], seen[32][128];
	int nseen = 0, ret;
	bool latency = false;

	for (int row = 0; row < fs->nrows; row++) {
		const char *label, *value;
		bool again = false;

		if (fs->rows[row].kind == ROW_OUTCOME)
			latency = true;
		if (fs->rows[row].kind != ROW_COUNT && fs->rows[row].kind != ROW_OUTCOME &&
		    fs->rows[row].kind != ROW_ERRNOS)
			continue;
		prom_row_series(f, row, name, sizeof(name), &label, &value);
		for (int i = 0; i < nseen; i++)
			again |= !strcmp(seen[i], name);
		if (again || nseen == 32)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
		if ((ret = read_counter(r, f, name)) || (ret = read_resets(r, name)))
			return ret;
	}
	if (latency) {
		char bucket[160];

		if ((ret = read_latency(r, f)))
			return ret;
		prom_latency_name(f, name, sizeof(name));
		snprintf(bucket, sizeof(bucket), "%s_count", name);
		if ((ret = read_resets(r, bucket)))
			return ret;
	}
	return 0;
}

/* permscope_build_info: the build and kernel; two builds in the window is a reason. */
static int take_build(struct promside_query *q, struct promsource_host *h,
		      const struct promanswer_sample *s)
{
	const char *rev = promside_label(q, s, "revision"), *ver = promside_label(q, s, "version");
	const char *lib = promside_label(q, s, "libbpf"), *kernel = promside_label(q, s, "kernel");
	struct profile *p = &h->profile;
	char e[4 * 64];

	escape_text(rev, e, sizeof(e));
	if (p->build.revision[0] && strcmp(p->build.revision, e))
		return reasons_add(&h->why, "its permscope build changed inside the window "
				  "(revision %s, then %s)", p->build.revision, e);
	copy_truncated(p->build.revision, e, sizeof(p->build.revision));
	escape_text(ver, p->build.version, sizeof(p->build.version));
	escape_text(ver, p->tool_version, sizeof(p->tool_version));
	escape_text(lib, p->build.libbpf, sizeof(p->build.libbpf));
	escape_text(kernel, p->kernel_release, sizeof(p->kernel_release));
	return 0;
}

static int read_builds(struct promreader *r)
{
	struct promside_query q = { .series = "permscope_build_info", .take = take_build };
	char promql[PROMREADER_QUERY_MAX];

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	promside_keep(&q, "revision");
	promside_keep(&q, "version");
	promside_keep(&q, "libbpf");
	promside_keep(&q, "kernel");
	promreader_range(r, promql, "max_over_time", "permscope_build_info", "");
	return promreader_query(r, &q, promql);
}

/* permscope_probe_attached: each family's mode, 1 attached, 0 unavailable. */
static int take_mode(struct promside_query *q, struct promsource_host *h,
		     const struct promanswer_sample *s)
{
	const char *fname = promside_label(q, s, "family"), *mname = promside_label(q, s, "mode");
	int f = fname ? family_by_name(fname) : -1, m = mname ? mode_by_name(mname) : -1;
	enum family_status st = strtod(s->value, NULL) >= 1 ? FAMILY_OK : FAMILY_UNAVAILABLE;
	struct family_result *fr;
	char e[64];

	if (f < 0)
		return 0;
	fr = &h->profile.fam[f];
	if (fr->status != FAMILY_NOT_REQUESTED &&
	    (fr->status != st || (m >= 0 && fr->mode != (enum attach_mode)m)))
		return reasons_add(&h->why, "the %s family attached in more than one mode inside "
				  "the window (%s, %s)", fname, family_state_name(fr),
				  mname ? escape_text(mname, e, sizeof(e)) : "none");
	fr->status = st;
	fr->mode = m > 0 ? (enum attach_mode)m : MODE_NONE;
	return 0;
}

static int read_modes(struct promreader *r)
{
	struct promside_query q = { .series = "permscope_probe_attached", .take = take_mode };
	char promql[PROMREADER_QUERY_MAX];

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	promside_keep(&q, "family");
	promside_keep(&q, "mode");
	promreader_range(r, promql, "max_over_time", "permscope_probe_attached", "");
	return promreader_query(r, &q, promql);
}

/* permscope_lost_events_total: each family's losses, in the profile and named. */
static int take_loss(struct promside_query *q, struct promsource_host *h,
		     const struct promanswer_sample *s)
{
	const char *fname = promside_label(q, s, "family"), *prog = promside_label(q, s, "program"), *why;
	int f = fname ? family_by_name(fname) : -1;
	char p[4 * 64];
	__u64 n;

	if ((why = promside_count(s, &n)))
		return promside_not_a_count(q, h, s, why);
	escape_text(prog ? prog : "?", p, sizeof(p));
	if (f >= 0)
		family_add_lost(&h->profile.fam[f], p, n);
	else if (!reasons_has(&h->why, "lost events of a family "))
		return reasons_add(&h->why, "lost events of a family this build does not know "
				  "(program %s)", p);
	return reasons_add(&h->losses, "lost %llu events (family %s, program %s)",
			  (unsigned long long)n, f >= 0 ? family_name(f) : "?", p);
}

static int read_losses(struct promreader *r)
{
	struct promside_query q = { .series = "permscope_lost_events_total", .take = take_loss };
	char promql[PROMREADER_QUERY_MAX];
	int ret;

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	promside_keep(&q, "family");
	promside_keep(&q, "program");
	promreader_count(r, promql, "permscope_lost_events_total", " > 0");
	if ((ret = promreader_query(r, &q, promql)))
		return ret;
	return read_resets(r, "permscope_lost_events_total");
}

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct promsource_host *)a)->instance,
		      ((const struct promsource_host *)b)->instance);
}

int promsource_read(struct promclient *c, const struct promsource_query *q,
		    struct promsource_side *side, char *err, size_t errlen)
{
	struct promreader r = { .c = c, .q = q, .side = side, .err = err, .errlen = errlen };
	uint64_t wms;
	double start;
	int ret = 0;

	memset(side, 0, sizeof(*side));
	if (promreader_matchers(q->selector ? q->selector : "", r.matchers, sizeof(r.matchers))) {
		snprintf(err, errlen, "selector '%s': expected PromQL label matchers in braces, "
			 "e.g. '{cohort=\"canary\"}'", q->selector);
		return PROMSOURCE_EINPUT;
	}
	if (!(wms = promreader_window_ms(q->window))) {
		snprintf(err, errlen, "window '%s': expected a PromQL duration, e.g. 5m or 1h",
			 q->window ? q->window : "");
		return PROMSOURCE_EINPUT;
	}
	if (!(q->at > 0) || q->at - (double)wms / 1e3 <= 0) {
		snprintf(err, errlen, "the window's end %.3f: expected seconds since the epoch, "
			 "a window after it", q->at);
		return PROMSOURCE_EINPUT;
	}
	start = q->at - (double)wms / 1e3;
	ret = read_builds(&r);
	if (!ret)
		ret = read_modes(&r);
	for (int f = 0; !ret && f < FAMILY_COUNT; f++)
		ret = read_family(&r, f);
	if (!ret)
		ret = read_losses(&r);
	if (!ret)
		ret = promcover_observed(&r);
	if (!ret)
		ret = promcover_starts(&r, start);
	if (!ret)
		ret = promcover_gone(&r);
	for (size_t i = 0; !ret && i < side->nhosts; i++) {
		struct promsource_host *h = &side->hosts[i];
		struct profile *p = &h->profile;

		for (int f = 0; f < FAMILY_COUNT; f++)
			for (size_t k = 0; k < profile_nstats(p, f); k++)
				for (int row = 0; row < schema[f].nrows; row++)
					if (schema[f].rows[row].kind == ROW_OUTCOME)
						hist_uncumulate(schema_hist(&schema[f].rows[row],
									    profile_stats(p, f, k)));
		profile_sort_fs(p);
		/*
		 * A counter a host's build does not export: absent, as in its
		 * own file.  A family it says it ran with none of its series in
		 * Prometheus (dropped by relabelling, a build that predates
		 * it): every row absent, never a 0 that passes.
		 */
		for (int f = 0; f < FAMILY_COUNT; f++) {
			bool none = !h->seen[f] && p->fam[f].status == FAMILY_OK;

			for (int row = 0; (none || profile_nstats(p, f)) && row < schema[f].nrows;
			     row++)
				if ((schema[f].rows[row].kind == ROW_COUNT ||
				     schema[f].rows[row].kind == ROW_OUTCOME) &&
				    !(h->seen[f] & 1u << row))
					p->absent[f] |= 1u << row;
			/* its calls came, its latency did not: not measured, not 0 */
			if (!none && p->fam[f].status == FAMILY_OK && schema_has_latency(&schema[f]) &&
			    !h->latency_seen[f])
				p->fam[f].no_latency = true;
			if (none)
				ret = reasons_add(&h->why, "the %s family ran (permscope_probe_attached) "
						 "but none of its series is in Prometheus: absent, "
						 "not 0 (dropped by relabelling? a build that does not "
						 "export them?)", family_name(f));
		}
		/* the window, or from the daemon's start when it started inside it */
		p->end_ns = (uint64_t)llround(q->at * 1e3) * 1000000ULL;
		p->start_ns = (uint64_t)llround((isfinite(h->started) && h->started > start ?
						 h->started : start) * 1e3) * 1000000ULL;
		if (!ret && !p->build.revision[0] && !p->build.version[0])
			ret = reasons_add(&h->why, "no permscope_build_info in the window: its build "
					 "is unknown");
	}
	if (!ret && side->nhosts)
		qsort(side->hosts, side->nhosts, sizeof(*side->hosts), host_cmp);
	if (!ret)
		ret = promsource_judge_side(side, q->min_hosts);
	if (ret == PROMSOURCE_ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	if (ret)
		promsource_side_free(side);
	return ret;
}
