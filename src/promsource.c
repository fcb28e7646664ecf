// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A side of a fleet comparison, from Prometheus (src/promsource.h).
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
#include "promsource.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "metrics.h"
#include "prom.h"
#include "util.h"

#define QUERY_MAX 4096 /* four selectors of 511 bytes and the names: never cut */

struct reader {
	struct promclient *c;
	const struct promsource_query *q;
	char matchers[512]; /* the selector's matchers, without the braces */
	struct promsource_side *side;
	char *err;
	size_t errlen;
};

static int reason_add(struct promsource_reasons *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int reason_add(struct promsource_reasons *r, const char *fmt, ...)
{
	char **line = realloc(r->line, (r->n + 1) * sizeof(*line));
	va_list ap;
	int n;

	if (!line)
		return PROMSOURCE_ENOMEM;
	r->line = line;
	va_start(ap, fmt);
	n = vasprintf(&line[r->n], fmt, ap);
	va_end(ap);
	if (n < 0)
		return PROMSOURCE_ENOMEM;
	r->n++;
	return 0;
}

static bool has_reason(const struct promsource_reasons *r, const char *prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strncmp(r->line[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void reasons_free(struct promsource_reasons *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->line[i]);
	free(r->line);
	*r = (struct promsource_reasons){ 0 };
}

/* The selector's matchers between its braces; -1 unless it is {...} or empty. */
static int selector_matchers(const char *sel, char *out, size_t size)
{
	size_t n;

	while (*sel == ' ')
		sel++;
	n = strlen(sel);
	while (n && sel[n - 1] == ' ')
		n--;
	if (!n) {
		*out = 0;
		return 0;
	}
	if (sel[0] != '{' || sel[n - 1] != '}' || n - 2 >= size || memchr(sel + 1, '}', n - 2) ||
	    memchr(sel + 1, '{', n - 2))
		return -1;
	memcpy(out, sel + 1, n - 2);
	out[n - 2] = 0;
	return 0;
}

/*
 * A PromQL duration ("1h30m", "90s", "500ms") in milliseconds; 0 when it
 * is none, so that nothing else reaches the query text.
 */
static uint64_t window_ms(const char *w)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		      { "d", 86400000 }, { "w", 604800000 }, { "y", 31536000000ULL } };
	uint64_t total = 0;

	if (!w || !*w || strlen(w) > 32)
		return 0;
	while (*w) {
		uint64_t n = 0;
		size_t k, digits = strspn(w, "0123456789");

		if (!digits || digits > 9)
			return 0;
		for (size_t i = 0; i < digits; i++)
			n = n * 10 + (uint64_t)(w[i] - '0');
		w += digits;
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			if (!strncmp(w, units[k].unit, strlen(units[k].unit)) &&
			    !(k == 2 && w[1] == 's'))
				break;
		if (k == sizeof(units) / sizeof(units[0]))
			return 0;
		w += strlen(units[k].unit);
		total += n * units[k].ms;
	}
	return total;
}

/* NAME{MATCHERS}[WINDOW], inside FN(...) and followed by TAIL. */
static void range_query(const struct reader *r, char *buf, const char *fn, const char *name,
			const char *tail)
{
	snprintf(buf, QUERY_MAX, "%s(%s{%s}[%s])%s", fn, name, r->matchers, r->q->window, tail);
}

/*
 * What counter NAME counted inside the window, exactly (see the top of
 * the file), followed by TAIL.
 */
static void count_query(const struct reader *r, char *buf, const char *name, const char *tail)
{
	const char *m = r->matchers, *w = r->q->window;

	snprintf(buf, QUERY_MAX, "((%s{%s} - %s{%s} offset %s) or (%s{%s} unless %s{%s} offset %s))%s",
		 name, m, name, m, w, name, m, name, m, w, tail);
}

static int query(struct reader *r, const char *promql, json_t **result)
{
	return promclient_query(r->c, promql, r->q->at, result, r->err, r->errlen);
}

static const char *label_of(json_t *sample, const char *name)
{
	json_t *v = json_object_get(json_object_get(sample, "metric"), name);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static double value_of(json_t *sample)
{
	json_t *v = json_array_get(json_object_get(sample, "value"), 1);

	return json_is_string(v) ? strtod(json_string_value(v), NULL) : NAN;
}

/* A difference of two counts the daemon exported: whole, or 0 across a reset. */
static __u64 count_of(double v)
{
	return isfinite(v) && v > 0 ? (__u64)llround(v) : 0;
}

/* The host called `instance`, added (as a profile of the window) when new. */
static struct promsource_host *host(struct reader *r, const char *instance)
{
	struct promsource_side *s = r->side;
	struct promsource_host *h;

	if (!instance)
		instance = "";
	for (size_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].instance, instance))
			return &s->hosts[i];
	h = realloc(s->hosts, (s->nhosts + 1) * sizeof(*h));
	if (!h)
		return NULL;
	s->hosts = h;
	h = &s->hosts[s->nhosts++];
	memset(h, 0, sizeof(*h));
	h->started = h->started_before = NAN;
	snprintf(h->instance, sizeof(h->instance), "%s", instance);
	profile_init(&h->profile);
	snprintf(h->profile.hostname, sizeof(h->profile.hostname), "%s", instance);
	for (int f = 0; f < FAMILY_COUNT; f++)
		h->profile.fam[f].lost_known = true;
	return h;
}

/* The stats struct of family `f` a sample's labels name (its fs for a per-fs family). */
static void *sample_stats(struct promsource_host *h, enum family_id f, json_t *sample)
{
	struct fs_result *fs;

	if (!schema[f].per_fs)
		return profile_stats(&h->profile, f, 0);
	fs = profile_add_fs(&h->profile, label_of(sample, "fs") ? label_of(sample, "fs") : "");
	return fs ? &fs->s : NULL;
}

/*
 * Each sample's count into the row of family `f` that prom_row_series()
 * names `name` and whose label the sample carries.
 */
static int read_counter(struct reader *r, enum family_id f, const char *name)
{
	const struct family_schema *fs = &schema[f];
	char promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret;

	count_query(r, promql, name, "");
	if ((ret = query(r, promql, &res)))
		return ret;
	json_array_foreach(res, i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));
		__u64 v = count_of(value_of(sample));
		void *stats;

		if (!h || !(stats = sample_stats(h, f, sample))) {
			json_decref(res);
			return PROMSOURCE_ENOMEM;
		}
		for (int row = 0; row < fs->nrows; row++) {
			const char *label, *value, *has;
			char rname[128];

			if (fs->rows[row].kind != ROW_COUNT && fs->rows[row].kind != ROW_OUTCOME &&
			    fs->rows[row].kind != ROW_ERRNOS)
				continue;
			prom_row_series(f, row, rname, sizeof(rname), &label, &value);
			if (strcmp(rname, name))
				continue;
			has = label ? label_of(sample, label) : NULL;
			if (fs->rows[row].kind == ROW_ERRNOS) {
				int e = has ? errno_by_key(has) : -1;

				if (e >= 0 && e < EXEC_ERRNO_MAX)
					schema_counter(&fs->rows[row], stats)[e] += v;
			} else if (!label || (has && !strcmp(has, value))) {
				*schema_counter(&fs->rows[row], stats) += v;
				h->seen[f] |= 1u << row;
			}
		}
	}
	json_decref(res);
	return 0;
}

/* A reason for each host with a counter `name` that went down inside the window. */
static int read_resets(struct reader *r, const char *name)
{
	char promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret = 0;

	range_query(r, promql, "resets", name, " > 0");
	if ((ret = query(r, promql, &res)))
		return ret;
	json_array_foreach(res, i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));

		ret = !h ? PROMSOURCE_ENOMEM :
		      has_reason(&h->why, "counters reset") ? 0 :
		      reason_add(&h->why, "counters reset inside the window (%s): the daemon "
				 "restarted, so what it counted in the window cannot be told", name);
		if (ret)
			break;
	}
	json_decref(res);
	return ret;
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
 * The OUTCOME rows' histogram: its buckets (cumulative, until
 * hist_uncumulate()), _sum and _count.  A bucket's cumulative count sits
 * in its slot, +Inf's in the last.
 */
static int read_latency(struct reader *r, enum family_id f)
{
	static const char *const parts[] = { "_bucket", "_sum", "_count" };
	const struct family_schema *fs = &schema[f];
	char name[128], metric[160], promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret;

	prom_latency_name(f, name, sizeof(name));
	for (int part = 0; part < 3; part++) {
		snprintf(metric, sizeof(metric), "%s%s", name, parts[part]);
		count_query(r, promql, metric, "");
		if ((ret = query(r, promql, &res)))
			return ret;
		json_array_foreach(res, i, sample) {
			struct promsource_host *h = host(r, label_of(sample, "instance"));
			const char *outcome = label_of(sample, "outcome"), *le = label_of(sample, "le");
			double v = value_of(sample);
			void *stats;

			if (!h || !(stats = sample_stats(h, f, sample))) {
				json_decref(res);
				return PROMSOURCE_ENOMEM;
			}
			for (int row = 0; row < fs->nrows; row++) {
				const struct schema_row *rw = &fs->rows[row];
				struct hist *hs;
				int s;

				if (rw->kind != ROW_OUTCOME || !outcome || strcmp(outcome, rw->name))
					continue;
				hs = schema_hist(rw, stats);
				if (part == 1) {
					hs->sum += isfinite(v) && v > 0 ? (__u64)llround(v * 1e9) : 0;
				} else if (part == 2) {
					hs->count += count_of(v);
				} else if (le && !strcmp(le, "+Inf")) {
					hs->slots[HIST_SLOTS - 1] += count_of(v);
				} else if (le && (s = slot_of_le(le)) >= 0) {
					hs->slots[s] += count_of(v);
				}
			}
		}
		json_decref(res);
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
static int read_family(struct reader *r, enum family_id f)
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
static int read_builds(struct reader *r)
{
	char promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret = 0;

	range_query(r, promql, "max_over_time", "permscope_build_info", "");
	if ((ret = query(r, promql, &res)))
		return ret;
	json_array_foreach(res, i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));
		const char *rev = label_of(sample, "revision"), *ver = label_of(sample, "version");
		const char *lib = label_of(sample, "libbpf"), *kernel = label_of(sample, "kernel");
		struct profile *p;

		if (!h) {
			ret = PROMSOURCE_ENOMEM;
			break;
		}
		p = &h->profile;
		if (p->build.revision[0] && strcmp(p->build.revision, rev ? rev : "")) {
			ret = reason_add(&h->why, "its permscope build changed inside the window "
					 "(revision %s, then %s)", p->build.revision, rev ? rev : "");
			if (ret)
				break;
			continue;
		}
		snprintf(p->build.revision, sizeof(p->build.revision), "%s", rev ? rev : "");
		snprintf(p->build.version, sizeof(p->build.version), "%s", ver ? ver : "");
		snprintf(p->tool_version, sizeof(p->tool_version), "%s", ver ? ver : "");
		snprintf(p->build.libbpf, sizeof(p->build.libbpf), "%s", lib ? lib : "");
		snprintf(p->kernel_release, sizeof(p->kernel_release), "%s", kernel ? kernel : "");
	}
	json_decref(res);
	return ret;
}

/* permscope_probe_attached: each family's mode, 1 attached, 0 unavailable. */
static int read_modes(struct reader *r)
{
	char promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret = 0;

	range_query(r, promql, "max_over_time", "permscope_probe_attached", "");
	if ((ret = query(r, promql, &res)))
		return ret;
	json_array_foreach(res, i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));
		const char *fname = label_of(sample, "family"), *mname = label_of(sample, "mode");
		int f = fname ? family_by_name(fname) : -1, m = mname ? mode_by_name(mname) : -1;
		struct family_result *fr;

		if (!h) {
			ret = PROMSOURCE_ENOMEM;
			break;
		}
		if (f < 0)
			continue;
		fr = &h->profile.fam[f];
		if (fr->status != FAMILY_NOT_REQUESTED &&
		    (fr->status != (value_of(sample) >= 1 ? FAMILY_OK : FAMILY_UNAVAILABLE) ||
		     (m >= 0 && fr->mode != (enum attach_mode)m))) {
			if ((ret = reason_add(&h->why, "the %s family attached in more than one "
					      "mode inside the window (%s, %s)", fname,
					      family_state_name(fr), mname ? mname : "none")))
				break;
			continue;
		}
		fr->status = value_of(sample) >= 1 ? FAMILY_OK : FAMILY_UNAVAILABLE;
		fr->mode = m > 0 ? (enum attach_mode)m : MODE_NONE;
	}
	json_decref(res);
	return ret;
}

/* permscope_lost_events_total: each family's losses, in the profile and named. */
static int read_losses(struct reader *r)
{
	char promql[QUERY_MAX];
	json_t *res, *sample;
	size_t i;
	int ret = 0;

	count_query(r, promql, "permscope_lost_events_total", " > 0");
	if ((ret = query(r, promql, &res)))
		return ret;
	json_array_foreach(res, i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));
		const char *fname = label_of(sample, "family"), *prog = label_of(sample, "program");
		int f = fname ? family_by_name(fname) : -1;
		__u64 n = count_of(value_of(sample));

		if (!h) {
			ret = PROMSOURCE_ENOMEM;
			break;
		}
		if (f >= 0)
			family_add_lost(&h->profile.fam[f], prog ? prog : "", n);
		if ((ret = reason_add(&h->losses, "lost %llu events (family %s, program %s)",
				      (unsigned long long)n, fname ? fname : "?", prog ? prog : "?")))
			break;
	}
	json_decref(res);
	if (!ret)
		ret = read_resets(r, "permscope_lost_events_total");
	return ret;
}

/*
 * permscope_start_time_seconds at the window's end and at its start
 * (offset W): what each host's counts count from, and so whether the
 * differences of count_query() are what it counted inside the window.
 */
static int read_starts(struct reader *r, double window_start)
{
	char promql[QUERY_MAX], a[32], b[32];
	json_t *res[2] = { NULL, NULL }, *sample;
	size_t i;
	int ret;

	snprintf(promql, QUERY_MAX, "permscope_start_time_seconds{%s}", r->matchers);
	if ((ret = query(r, promql, &res[0])))
		return ret;
	json_array_foreach(res[0], i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));

		if (!h) {
			json_decref(res[0]);
			return PROMSOURCE_ENOMEM;
		}
		h->started = value_of(sample);
	}
	snprintf(promql, QUERY_MAX, "permscope_start_time_seconds{%s} offset %s", r->matchers,
		 r->q->window);
	if ((ret = query(r, promql, &res[1]))) {
		json_decref(res[0]);
		return ret;
	}
	json_array_foreach(res[1], i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));

		if (!h) {
			ret = PROMSOURCE_ENOMEM;
			break;
		}
		h->started_before = value_of(sample);
	}
	json_decref(res[0]);
	json_decref(res[1]);
	if (ret)
		return ret;
	/* a restart inside the window, though its counters may not have gone down */
	range_query(r, promql, "changes", "permscope_start_time_seconds", " > 0");
	if ((ret = query(r, promql, &res[0])))
		return ret;
	json_array_foreach(res[0], i, sample) {
		struct promsource_host *h = host(r, label_of(sample, "instance"));

		if (!h) {
			ret = PROMSOURCE_ENOMEM;
			break;
		}
		h->restarts = count_of(value_of(sample));
	}
	json_decref(res[0]);
	for (i = 0; !ret && i < r->side->nhosts; i++) {
		struct promsource_host *h = &r->side->hosts[i];

		if (!isfinite(h->started))
			ret = reason_add(&h->why, "no permscope_start_time_seconds at the window's "
					 "end: what its counters count from is unknown");
		else if (h->restarts || (isfinite(h->started_before) &&
					 fabs(h->started_before - h->started) > 1e-3))
			ret = reason_add(&h->why, "its daemon restarted inside the window (last at "
					 "%s): what the earlier run counted is not all in its "
					 "counters", format_utc_s(h->started, b, sizeof(b)));
		else if (!isfinite(h->started_before) && h->started < window_start)
			ret = reason_add(&h->why, "no sample of it near the window's start (%s), "
					 "though its daemon ran since %s: what it counted before "
					 "the window cannot be told from what it counted inside",
					 format_utc_s(window_start, a, sizeof(a)),
					 format_utc_s(h->started, b, sizeof(b)));
	}
	return ret;
}

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct promsource_host *)a)->instance,
		      ((const struct promsource_host *)b)->instance);
}

/* The side's reasons: too few hosts, more than one build, more than one mode a family. */
static int judge_side(struct reader *r)
{
	struct promsource_side *s = r->side;
	int ret = 0;

	if (s->nhosts < (size_t)(r->q->min_hosts > 0 ? r->q->min_hosts : 0))
		ret = reason_add(&s->why, "%zu hosts, fewer than the %d asked for (--min-hosts)",
				 s->nhosts, r->q->min_hosts);
	for (size_t i = 1; !ret && i < s->nhosts; i++)
		if (strcmp(s->hosts[i].profile.build.revision, s->hosts[0].profile.build.revision))
			ret = reason_add(&s->why, "hosts run different permscope builds: %s revision "
					 "%s, %s revision %s", s->hosts[0].instance,
					 s->hosts[0].profile.build.revision, s->hosts[i].instance,
					 s->hosts[i].profile.build.revision);
	/*
	 * A family compares across hosts in one mode, and the hosts merge as
	 * runs of every metric: a host that does not run a family (its
	 * state "not_requested") differs from one that does.
	 */
	for (int f = 0; !ret && f < FAMILY_COUNT; f++) {
		const struct promsource_host *first = s->nhosts ? &s->hosts[0] : NULL;

		for (size_t i = 1; !ret && i < s->nhosts; i++) {
			const struct family_result *fr = &s->hosts[i].profile.fam[f];

			if (fr->status != first->profile.fam[f].status ||
			    (fr->status == FAMILY_OK && fr->mode != first->profile.fam[f].mode))
				ret = reason_add(&s->why, "hosts attach the %s family in different "
						 "modes: %s %s, %s %s", family_name(f),
						 first->instance,
						 family_state_name(&first->profile.fam[f]),
						 s->hosts[i].instance, family_state_name(fr));
		}
	}
	return ret;
}

int promsource_read(struct promclient *c, const struct promsource_query *q,
		    struct promsource_side *side, char *err, size_t errlen)
{
	struct reader r = { .c = c, .q = q, .side = side, .err = err, .errlen = errlen };
	uint64_t wms;
	double start;
	int ret = 0;

	memset(side, 0, sizeof(*side));
	if (selector_matchers(q->selector ? q->selector : "", r.matchers, sizeof(r.matchers))) {
		snprintf(err, errlen, "selector '%s': expected PromQL label matchers in braces, "
			 "e.g. '{cohort=\"canary\"}'", q->selector);
		return PROMSOURCE_EINPUT;
	}
	if (!(wms = window_ms(q->window))) {
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
		ret = read_starts(&r, start);
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
		/* a counter a host's build does not export: absent, as in its own file */
		for (int f = 0; f < FAMILY_COUNT; f++)
			for (int row = 0; profile_nstats(p, f) && row < schema[f].nrows; row++)
				if ((schema[f].rows[row].kind == ROW_COUNT ||
				     schema[f].rows[row].kind == ROW_OUTCOME) &&
				    !(h->seen[f] & 1u << row))
					p->absent[f] |= 1u << row;
		/* the window, or from the daemon's start when it started inside it */
		p->end_ns = (uint64_t)llround(q->at * 1e3) * 1000000ULL;
		p->start_ns = (uint64_t)llround((isfinite(h->started) && h->started > start ?
						 h->started : start) * 1e3) * 1000000ULL;
		if (!p->build.revision[0] && !p->build.version[0])
			ret = reason_add(&h->why, "no permscope_build_info in the window: its build "
					 "is unknown");
	}
	if (!ret && side->nhosts)
		qsort(side->hosts, side->nhosts, sizeof(*side->hosts), host_cmp);
	if (!ret)
		ret = judge_side(&r);
	if (ret == PROMSOURCE_ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	if (ret)
		promsource_side_free(side);
	return ret;
}

void promsource_side_free(struct promsource_side *side)
{
	for (size_t i = 0; i < side->nhosts; i++) {
		profile_free(&side->hosts[i].profile);
		reasons_free(&side->hosts[i].why);
		reasons_free(&side->hosts[i].losses);
	}
	free(side->hosts);
	reasons_free(&side->why);
	memset(side, 0, sizeof(*side));
}

int promsource_merge(const struct promsource_side *side, struct profile *out)
{
	profile_init(out);
	if (!side->nhosts)
		return -EINVAL;
	if (profile_copy(out, &side->hosts[0].profile))
		return -ENOMEM;
	snprintf(out->hostname, sizeof(out->hostname), "%zu hosts", side->nhosts);
	out->runs = calloc(side->nhosts, sizeof(*out->runs));
	if (!out->runs)
		goto nomem;
	for (size_t i = 0; i < side->nhosts; i++) {
		const struct profile *p = &side->hosts[i].profile;

		if (i && profile_add(out, p))
			goto nomem;
		if (metrics_collect(p, &out->runs[out->nruns])) {
			metrics_free(&out->runs[out->nruns]);
			goto nomem;
		}
		out->nruns++;
		if (p->start_ns < out->start_ns)
			out->start_ns = p->start_ns;
		if (p->end_ns > out->end_ns)
			out->end_ns = p->end_ns;
	}
	return 0;
nomem:
	profile_free(out);
	profile_init(out);
	return -ENOMEM;
}

int promsource_judgeable(const struct promsource_side *side)
{
	if (side->why.n)
		return 0;
	for (size_t i = 0; i < side->nhosts; i++)
		if (side->hosts[i].why.n)
			return 0;
	return 1;
}
