// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "metrics.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "stats.h"

static int add(struct metric_list *l, double value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add(struct metric_list *l, double value, const char *fmt, ...)
{
	va_list ap;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 128;
		struct metric *m = realloc(l->m, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		l->m = m;
		l->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(l->m[l->n].name, METRIC_NAME_LEN, fmt, ap);
	va_end(ap);
	l->m[l->n++].value = value;
	return 0;
}

static double ratio(double part, double whole)
{
	return whole > 0 ? part / whole : 0.0;
}

/* PREFIX.latency.{mean,p50,p90,p99} in ns. */
static void add_latency(struct metric_list *l, const char *prefix, const struct hist *h)
{
	add(l, h->count ? (double)h->sum / h->count : 0.0, "%s.latency.mean", prefix);
	add(l, hist_quantile(h, 0.50), "%s.latency.p50", prefix);
	add(l, hist_quantile(h, 0.90), "%s.latency.p90", prefix);
	add(l, hist_quantile(h, 0.99), "%s.latency.p99", prefix);
}

static void access_metrics(const struct profile *p, struct metric_list *l)
{
	const struct access_stats *s = &p->access;
	struct hist all = {0};
	double calls = 0;
	char prefix[48];

	for (int o = 0; o < ACCESS_OUTCOMES; o++) {
		calls += s->calls[o];
		hist_merge(&all, &s->latency[o]);
	}
	add(l, calls, "access.calls");
	for (int o = 0; o < ACCESS_OUTCOMES; o++)
		add(l, s->calls[o], "access.%s", access_outcome_names[o]);
	add(l, ratio(s->calls[ACCESS_AVOIDABLE], calls), "access.avoidable_per_call");
	add(l, ratio(s->calls[ACCESS_NEEDED], calls), "access.needed_per_call");
	add(l, ratio(s->calls[ACCESS_FAST], calls), "access.fast_ratio");
	add(l, s->eaccess, "access.eaccess");
	add(l, s->drops, "access.drops");
	add_latency(l, "access", &all);
	for (int o = 0; o < ACCESS_OUTCOMES; o++) {
		snprintf(prefix, sizeof(prefix), "access.%s", access_outcome_names[o]);
		add_latency(l, prefix, &s->latency[o]);
	}
}

static void exec_metrics(const struct profile *p, struct metric_list *l)
{
	const struct exec_stats *s = &p->exec;
	struct hist all = {0}, enoent = {0};
	double calls = 0, early = s->calls[EXEC_ENOENT_EARLY], late = s->calls[EXEC_ENOENT_LATE];
	char prefix[48];

	for (int o = 0; o < EXEC_OUTCOMES; o++) {
		calls += s->calls[o];
		hist_merge(&all, &s->latency[o]);
	}
	hist_merge(&enoent, &s->latency[EXEC_ENOENT_EARLY]);
	hist_merge(&enoent, &s->latency[EXEC_ENOENT_LATE]);
	add(l, calls, "exec.calls");
	for (int o = 0; o < EXEC_OUTCOMES; o++)
		add(l, s->calls[o], "exec.%s", exec_outcome_names[o]);
	add(l, early + late, "exec.enoent");
	add(l, ratio(early, early + late), "exec.enoent_early_share");
	add(l, ratio(late, early + late), "exec.enoent_late_share");
	add(l, s->mm_allocs, "exec.mm_allocs");
	add(l, s->drops, "exec.drops");
	add_latency(l, "exec", &all);
	add_latency(l, "exec.enoent", &enoent);
	for (int o = 0; o < EXEC_OUTCOMES; o++) {
		snprintf(prefix, sizeof(prefix), "exec.%s", exec_outcome_names[o]);
		add_latency(l, prefix, &s->latency[o]);
	}
}

static void lookup_one(struct metric_list *l, const char *fs, const struct lookup_stats *s)
{
	/* fs == NULL: all filesystems together, no [fs] suffix. */
	char sfx[FS_NAME_LEN + 3] = "";

	if (fs)
		snprintf(sfx, sizeof(sfx), "[%s]", fs);
	add(l, s->checks, "lookup.checks%s", sfx);
	add(l, s->did_skip, "lookup.did_skip%s", sfx);
	add(l, s->would_skip, "lookup.would_skip%s", sfx);
	add(l, s->flag_v2, "lookup.flag_v2%s", sfx);
	add(l, s->violations, "lookup.violations%s", sfx);
	add(l, ratio(s->did_skip, s->checks), "lookup.did_skip_ratio%s", sfx);
	add(l, ratio(s->would_skip, s->checks), "lookup.would_skip_ratio%s", sfx);
	for (int r = 1; r < LOOKUP_REASONS; r++)
		add(l, s->ineligible[r], "lookup.ineligible_%s%s", lookup_reason_name(r), sfx);
}

static void lookup_metrics(const struct profile *p, struct metric_list *l)
{
	struct lookup_stats total = {0};

	for (size_t i = 0; i < p->nfs; i++)
		counters_add(&total, &p->fs[i].s, sizeof(total));
	lookup_one(l, NULL, &total);
	for (size_t i = 0; i < p->nfs; i++)
		lookup_one(l, p->fs[i].name, &p->fs[i].s);
}

int metrics_collect(const struct profile *p, struct metric_list *out)
{
	memset(out, 0, sizeof(*out));
	if (p->fam[FAMILY_LOOKUP].status == FAMILY_OK)
		lookup_metrics(p, out);
	if (p->fam[FAMILY_ACCESS].status == FAMILY_OK)
		access_metrics(p, out);
	if (p->fam[FAMILY_EXEC].status == FAMILY_OK)
		exec_metrics(p, out);
	return out->n || !out->cap ? 0 : -ENOMEM;
}

void metrics_free(struct metric_list *l)
{
	free(l->m);
	memset(l, 0, sizeof(*l));
}

int metrics_schema(const char *fs, struct metric_list *out)
{
	struct profile p;
	int err;

	profile_init(&p);
	for (int f = 0; f < FAMILY_COUNT; f++)
		p.fam[f].status = FAMILY_OK;
	if (!profile_add_fs(&p, fs ? fs : "tmpfs")) {
		profile_free(&p);
		return -ENOMEM;
	}
	err = metrics_collect(&p, out);
	profile_free(&p);
	return err;
}

bool metric_name_valid(const char *name)
{
	const char *br = strchr(name, '[');
	char fs[FS_NAME_LEN] = "tmpfs";
	struct metric_list l;
	bool ok;

	if (br) {
		size_t len = strcspn(br + 1, "]");

		if (!len || len >= FS_NAME_LEN || strcmp(br + 1 + len, "]"))
			return false;
		memcpy(fs, br + 1, len);
		fs[len] = 0;
	}
	if (metrics_schema(fs, &l))
		return false;
	ok = metrics_find(&l, name) != NULL;
	metrics_free(&l);
	return ok;
}

const struct metric *metrics_find(const struct metric_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].name, name))
			return &l->m[i];
	return NULL;
}

int metric_family(const char *name)
{
	char fam[16];
	size_t len = strcspn(name, ".[");

	if (len >= sizeof(fam))
		return -1;
	memcpy(fam, name, len);
	fam[len] = 0;
	return family_by_name(fam);
}

size_t metric_samples(const struct profile *p, const char *name, double **samples)
{
	struct metric_list own;
	const struct metric *m;
	size_t n = 0;

	*samples = NULL;
	if (p->nruns) {
		*samples = calloc(p->nruns, sizeof(double));
		for (size_t r = 0; *samples && r < p->nruns; r++)
			if ((m = metrics_find(&p->runs[r], name)))
				(*samples)[n++] = m->value;
		return n;
	}
	if (metrics_collect(p, &own))
		return 0;
	m = metrics_find(&own, name);
	if (m && (*samples = malloc(sizeof(double)))) {
		(*samples)[0] = m->value;
		n = 1;
	}
	metrics_free(&own);
	return n;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = calloc(lb + 1, sizeof(size_t)), d;

	if (!row)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

size_t metrics_nearest(const struct metric_list *known, const char *name,
		       const char **out, size_t max)
{
	size_t n = 0, *dist = calloc(max ? max : 1, sizeof(size_t));

	if (!dist)
		return 0;
	for (size_t i = 0; i < known->n; i++) {
		size_t d = edit_distance(known->m[i].name, name), k;

		/* insertion into the sorted top list */
		for (k = n; k > 0 && dist[k - 1] > d; k--)
			if (k < max) {
				dist[k] = dist[k - 1];
				out[k] = out[k - 1];
			}
		if (k < max) {
			dist[k] = d;
			out[k] = known->m[i].name;
			if (n < max)
				n++;
		}
	}
	free(dist);
	return n;
}
