// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One query's samples into a side's hosts (promside.h).
 */
#include "prom/promside.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int reasons_add(struct promsource_reasons *r, const char *fmt, ...)
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

bool reasons_has(const struct promsource_reasons *r, const char *prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strncmp(r->line[i], prefix, strlen(prefix)))
			return true;
	return false;
}

void reasons_free(struct promsource_reasons *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->line[i]);
	free(r->line);
	*r = (struct promsource_reasons){ 0 };
}

/* The index of label NAME in the query's keep list, or -1. */
static int keep_index(const struct promside_query *q, const char *name)
{
	for (int i = 0; q->keep[i]; i++)
		if (!strcmp(q->keep[i], name))
			return i;
	return -1;
}

const char *promside_label(const struct promside_query *q, const struct promanswer_sample *s,
			    const char *name)
{
	int i = keep_index(q, name);

	return i >= 0 ? s->label[i] : NULL;
}

/* Adds label NAME to the query's keep list, once. */
void promside_keep(struct promside_query *q, const char *name)
{
	int n = 0;

	if (!name || keep_index(q, name) >= 0)
		return;
	while (q->keep[n])
		n++;
	if (n < PROMANSWER_LABELS)
		q->keep[n] = name;
}

/* The sample's labels but instance and job, as {a="x",b="y"}: for reasons. */
void promside_labels_text(const struct promside_query *q, const struct promanswer_sample *s,
			char *buf, size_t size)
{
	size_t off = (size_t)snprintf(buf, size, "%s{", q->series);

	for (int i = 2; q->keep[i] && off < size; i++)
		if (s->label[i]) {
			char v[4 * PROMANSWER_LABEL_MAX + 1];

			off += (size_t)snprintf(buf + off, size - off, "%s%s=\"%s\"",
						buf[off - 1] == '{' ? "" : ",", q->keep[i],
						escape_text(s->label[i], v, sizeof(v)));
		}
	if (off < size)
		snprintf(buf + off, size - off, "}");
}

/* FNV-1a over the sample's instance and row labels (not job): two series, one count. */
static uint64_t sample_key(const struct promside_query *q, const struct promanswer_sample *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; q->keep[i]; i++) {
		const char *v = i == 1 ? NULL : s->label[i];

		/* absent and "" differ: a marker byte first */
		h = (h ^ (v ? 1u : 2u)) * 1099511628211ULL;
		for (; v && *v; v++)
			h = (h ^ (unsigned char)*v) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h ? h : 1;
}

/* Whether KEY was seen in this query; adds it.  -1 when out of memory. */
static int key_seen(struct promside_query *q, uint64_t key)
{
	size_t i;

	if (2 * (q->nkeys + 1) > q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024;
		uint64_t *keys = calloc(cap, sizeof(*keys));

		if (!keys)
			return -1;
		for (size_t k = 0; k < q->cap; k++)
			if (q->keys[k])
				for (i = q->keys[k] & (cap - 1); ; i = (i + 1) & (cap - 1))
					if (!keys[i]) {
						keys[i] = q->keys[k];
						break;
					}
		free(q->keys);
		q->keys = keys;
		q->cap = cap;
	}
	for (i = key & (q->cap - 1); q->keys[i]; i = (i + 1) & (q->cap - 1))
		if (q->keys[i] == key)
			return 1;
	q->keys[i] = key;
	q->nkeys++;
	return 0;
}

/* The host called `instance` (escaped: printable, one to one), added when new. */
struct promsource_host *promside_host(struct promsource_side *s, const char *instance)
{
	struct promsource_host *h;
	char name[sizeof(h->instance)];

	escape_text(instance ? instance : "", name, sizeof(name));
	for (size_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].instance, name))
			return &s->hosts[i];
	h = realloc(s->hosts, (s->nhosts + 1) * sizeof(*h));
	if (!h)
		return NULL;
	s->hosts = h;
	h = &s->hosts[s->nhosts++];
	memset(h, 0, sizeof(*h));
	h->started = h->started_before = NAN;
	snprintf(h->instance, sizeof(h->instance), "%s", name);
	profile_init(&h->profile);
	copy_truncated(h->profile.hostname, name, sizeof(h->profile.hostname));
	for (int f = 0; f < FAMILY_COUNT; f++)
		h->profile.fam[f].lost_known = true;
	return h;
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

/*
 * Every sample of every query comes here first: a label longer than can
 * be kept, a host past the side's bound, or a second series for one row
 * of one host is a reason, and the sample is not taken.
 */
int promside_take(void *ctx, const struct promanswer_sample *s)
{
	struct promside_query *q = ctx;
	struct promsource_side *side = q->side;
	struct promsource_host *h;
	char what[1024], job[4 * 64];
	int seen;

	if (s->overlong & 1u)
		return reasons_once(&side->why, "a series' instance label is longer than ",
				   "%d bytes (%s): its host cannot be told apart from others",
				   PROMANSWER_LABEL_MAX, q->series);
	if (side->nhosts >= PROMSIDE_HOSTS_MAX && !reasons_has(&side->why, "more than ")) {
		bool known = false;
		char name[sizeof(h->instance)];

		escape_text(s->label[0] ? s->label[0] : "", name, sizeof(name));
		for (size_t i = 0; i < side->nhosts && !known; i++)
			known = !strcmp(side->hosts[i].instance, name);
		if (!known)
			return reasons_add(&side->why, "more than %d hosts: a side is bounded so "
					  "(narrow the selector)", PROMSIDE_HOSTS_MAX);
	}
	if (side->nhosts >= PROMSIDE_HOSTS_MAX && reasons_has(&side->why, "more than "))
		return 0;
	if (!(h = promside_host(side, s->label[0])))
		return PROMSOURCE_ENOMEM;
	if (s->overlong) {
		promside_labels_text(q, s, what, sizeof(what));
		return reasons_once(&h->why, "a label longer than ", "%d bytes in %s: it cannot "
				   "be kept whole, so its count cannot be placed",
				   PROMANSWER_LABEL_MAX, what);
	}
	if ((seen = key_seen(q, sample_key(q, s))) < 0)
		return PROMSOURCE_ENOMEM;
	if (seen) {
		promside_labels_text(q, s, what, sizeof(what));
		return reasons_once(&h->why, "more than one series for ", "%s (job %s among "
				   "them): one count of a host must come from one series (a "
				   "host scraped by two jobs, an HA pair without deduplication)",
				   what, escape_text(s->label[1] ? s->label[1] : "", job,
						     sizeof(job)));
	}
	return q->take(q, h, s);
}

/*
 * The sample's value as a count: a whole number, finite, not negative,
 * exact in a float64, written as a number and nothing else.  NULL, or
 * why it is none.
 */
const char *promside_count(const struct promanswer_sample *s, __u64 *out)
{
	const char *v = s->value;
	char *end;
	double d;

	*out = 0;
	if (s->value_overlong)
		return "longer than any number";
	/* Prometheus writes a float64 so: digits, a point, an exponent, or NaN, ±Inf */
	if (!strcmp(v, "NaN") || !strcmp(v, "+Inf") || !strcmp(v, "-Inf") || !strcmp(v, "Inf"))
		return "not finite";
	if (!*v || v[strspn(v, "0123456789.eE+-")])
		return "not a number";
	d = strtod(v, &end);
	if (*end || end == v)
		return "not a number";
	if (!isfinite(d))
		return "not finite";
	if (d < 0)
		return "negative";
	if (d != floor(d))
		return "not a whole number";
	if (d > PROMSIDE_EXACT_MAX)
		return "over 2^53, where a float64 no longer holds every count exactly";
	*out = (uint64_t)d;
	return NULL;
}

/* The reason a sample is not a count, on its host; 0 or PROMSOURCE_ENOMEM. */
int promside_not_a_count(struct promside_query *q, struct promsource_host *h,
		       const struct promanswer_sample *s, const char *why)
{
	char what[1024], val[4 * PROMANSWER_VALUE_MAX + 1];

	promside_labels_text(q, s, what, sizeof(what));
	return reasons_once(&h->why, "a value that is not a count", ": %s is \"%s\", %s%s",
			   what, escape_text(s->value, val, sizeof(val)), why,
			   !strcmp(why, "negative") ? " (the counter went down inside the "
			   "window without a reset Prometheus saw)" : "");
}

/* COUNTER += V, or a reason where the sum would pass what a profile holds. */
int promside_add_count(struct promside_query *q, struct promsource_host *h,
		     const struct promanswer_sample *s, __u64 *counter, __u64 v)
{
	if (__builtin_add_overflow(*counter, v, counter) || *counter > PROFILE_COUNT_MAX) {
		*counter = 0;
		return promside_not_a_count(q, h, s, "a sum past 2^63");
	}
	return 0;
}

/* The stats struct of family `f` a sample's labels name (its fs for a per-fs family). */
void *promside_stats(struct promside_query *q, struct promsource_host *h,
			  const struct promanswer_sample *s)
{
	const char *fs_name = promside_label(q, s, "fs");
	struct fs_result *fs;

	if (!schema[q->f].per_fs)
		return profile_stats(&h->profile, q->f, 0);
	if (fs_name && strlen(fs_name) >= FS_NAME_LEN) {
		reasons_once(&h->why, "a filesystem name longer than ", "%d bytes: its counts "
			    "cannot be told from another's", FS_NAME_LEN - 1);
		return NULL;
	}
	if (!profile_find_fs(&h->profile, fs_name ? fs_name : "") && h->profile.nfs >= PROMSIDE_FS_MAX) {
		reasons_once(&h->why, "more filesystems than ", "%d: a host has not so many",
			    PROMSIDE_FS_MAX);
		return NULL;
	}
	fs = profile_add_fs(&h->profile, fs_name ? fs_name : "");
	return fs ? &fs->s : NULL;
}

/* A latency sum in seconds as ns, or why it is none. */
const char *promside_sum(const struct promanswer_sample *s, __u64 *out)
{
	char *end;
	double d;

	*out = 0;
	if (s->value_overlong || !*s->value || s->value[strspn(s->value, "0123456789.eE+-")])
		return "not a number";
	d = strtod(s->value, &end);
	if (*end)
		return "not a number";
	if (!isfinite(d) || d < 0 || d * 1e9 > (double)PROFILE_COUNT_MAX)
		return "not a sum of latencies";
	*out = (uint64_t)llround(d * 1e9);
	return NULL;
}

/* A gauge of seconds since the epoch, or NAN. */
double promside_time(const struct promanswer_sample *s)
{
	char *end;
	double d = s->value_overlong ? NAN : strtod(s->value, &end);

	return !s->value_overlong && *s->value && !*end && isfinite(d) && d > 0 ? d : NAN;
}

void promside_done(struct promside_query *q)
{
	free(q->keys);
	q->keys = NULL;
	q->nkeys = q->cap = 0;
}
