// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "metrics.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_catalogue.h"
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

int metric_add(struct metric_list *l, const char *name, double value)
{
	return add(l, value, "%s", name);
}

bool metric_is_cred_line(const char *name)
{
	return !strcmp(name, METRIC_CRED_LINE);
}

bool metric_is_bench(const char *name)
{
	return !strncmp(name, "bench.", 6);
}

bool metric_is_duration(const char *name)
{
	size_t len = strlen(name);

	return strstr(name, ".latency.") || (len > 3 && !strcmp(name + len - 3, "_ns"));
}

/* PREFIX.latency.{mean,p50,p90,p99} in ns.  0 or -ENOMEM. */
static int add_latency(struct metric_list *l, const char *prefix, const struct hist *h)
{
	return add(l, hist_mean(h), "%s.latency.mean", prefix) ?:
	       add(l, hist_quantile(h, 0.50), "%s.latency.p50", prefix) ?:
	       add(l, hist_quantile(h, 0.90), "%s.latency.p90", prefix) ?:
	       add(l, hist_quantile(h, 0.99), "%s.latency.p99", prefix);
}

/*
 * Every row of one stats struct as FAMILY.KEY[SUFFIX], in schema order,
 * then the latencies: merged ones (FAMILY.latency, FAMILY.enoent.latency),
 * then each outcome's.  Absent rows give no metric.
 */
static int stats_metrics(struct metric_list *l, const struct family_schema *fs,
			 const void *stats, uint32_t absent, bool latency, const char *sfx)
{
	char key[64], prefix[64];
	struct hist h;
	int err = 0;

	for (int i = 0; i < fs->nrows && !err; i++)
		if (fs->rows[i].kind != ROW_ERRNOS && !schema_row_absent(fs, i, absent))
			err = add(l, schema_value(fs, i, stats), "%s.%s%s", fs->name,
				  schema_row_key(&fs->rows[i], key, sizeof(key)), sfx);
	for (int i = 0; i < fs->nrows && !err && latency; i++) {
		const struct schema_row *r = &fs->rows[i];

		if (r->kind != ROW_SUM || !r->latency || schema_row_absent(fs, i, absent))
			continue;
		schema_latency(fs, r->terms, stats, &h);
		snprintf(prefix, sizeof(prefix), "%s%s%s", fs->name, *r->latency ? "." : "",
			 r->latency);
		err = add_latency(l, prefix, &h);
	}
	for (int i = 0; i < fs->nrows && !err && latency; i++) {
		if (fs->rows[i].kind != ROW_OUTCOME || schema_row_absent(fs, i, absent))
			continue;
		snprintf(prefix, sizeof(prefix), "%s.%s", fs->name, fs->rows[i].name);
		err = add_latency(l, prefix, schema_hist(&fs->rows[i], stats));
	}
	return err;
}

/* A per-fs family: all filesystems together (no suffix), then each as [fs]. */
static int family_metrics(const struct profile *p, enum family_id f, struct metric_list *l)
{
	const struct family_schema *fs = &schema[f];
	const bool latency = !p->fam[f].no_latency;
	union family_stats total = {0};
	char sfx[FS_NAME_LEN + 3];
	int err;

	if (!fs->per_fs)
		return stats_metrics(l, fs, profile_stats(p, f, 0), p->absent[f], latency, "");
	for (size_t i = 0; i < p->nfs; i++)
		counters_add(&total, profile_stats(p, f, i), fs->stats_size);
	err = stats_metrics(l, fs, &total, p->absent[f], latency, "");
	for (size_t i = 0; i < p->nfs && !err; i++) {
		snprintf(sfx, sizeof(sfx), "[%s]", p->fs[i].name);
		err = stats_metrics(l, fs, profile_stats(p, f, i), p->absent[f], latency, sfx);
	}
	return err;
}

int metrics_collect(const struct profile *p, struct metric_list *out)
{
	memset(out, 0, sizeof(*out));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (p->fam[f].status != FAMILY_OK)
			continue;
		/* Events the family could not count; no metric where that was not read. */
		if (family_metrics(p, f, out) ||
		    (p->fam[f].lost_known &&
		     add(out, family_lost_total(&p->fam[f]), "%s.lost", family_name(f))))
			return -ENOMEM;
	}
	if (p->cred_line_kept && p->cred_line != CRED_LAYOUT_UNKNOWN &&
	    add(out, p->cred_line == CRED_LAYOUT_SHARES, "%s", METRIC_CRED_LINE))
		return -ENOMEM;
	/* A bench profile's metrics live in its runs only: each once, as its mean. */
	for (size_t r = 0; r < p->nruns; r++)
		for (size_t i = 0; i < p->runs[r].n; i++) {
			const char *name = p->runs[r].m[i].name;
			double *v, sum = 0;
			size_t n;

			if (!metric_is_bench(name) || metrics_find(out, name))
				continue;
			n = metric_samples(p, name, &v);
			for (size_t k = 0; k < n; k++)
				sum += v[k];
			free(v);
			if (add(out, n ? sum / n : 0, "%s", name))
				return -ENOMEM;
		}
	return 0;
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
	for (int f = 0; f < FAMILY_COUNT; f++) {
		p.fam[f].status = FAMILY_OK;
		p.fam[f].lost_known = true;
	}
	p.cred_line_kept = true;
	p.cred_line = CRED_LAYOUT_SHARES;
	if (!profile_add_fs(&p, fs ? fs : "tmpfs")) {
		profile_free(&p);
		return -ENOMEM;
	}
	err = metrics_collect(&p, out);
	profile_free(&p);
	/* and what permscope bench can write */
	for (int b = 0; b < BENCH_COUNT && !err; b++)
		for (size_t r = 0; r < bench_metric_nrows && !err; r++)
			if (bench_metric_rows[r].applies & bench_defs[b].metrics)
				err = add(out, 0, "bench.%s.%s", bench_defs[b].key,
					  bench_metric_rows[r].key);
	return err;
}

bool metric_name_valid(const char *name)
{
	const char *br = strchr(name, '[');
	char fs[FS_NAME_LEN] = "tmpfs";
	struct metric_list l;
	bool ok;

	if (metric_is_bench(name)) {
		const char *dot = strchr(name + 6, '.');
		char bench[32];
		int b, r;

		if (!dot || (size_t)(dot - (name + 6)) >= sizeof(bench))
			return false;
		memcpy(bench, name + 6, dot - (name + 6));
		bench[dot - (name + 6)] = 0;
		b = bench_by_key(bench);
		r = bench_metric_index(dot + 1);
		return b >= 0 && r >= 0 && (bench_metric_rows[r].applies & bench_defs[b].metrics);
	}
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

bool metric_absent(const struct profile *p, const char *name)
{
	int f = metric_family(name), row = -1;
	const char *rest;
	char key[64];
	size_t len;

	if (metric_is_cred_line(name))
		return !p->cred_line_kept;
	if (f < 0 || p->fam[f].status != FAMILY_OK)
		return false;
	/* every latency, merged or an outcome's, when the histograms are not known */
	if (p->fam[f].no_latency && strstr(name, ".latency."))
		return true;
	rest = name + strlen(family_name(f)) + 1;
	len = strcspn(rest, ".[");
	if (len >= sizeof(key))
		return false;
	memcpy(key, rest, len);
	key[len] = 0;
	if (!strcmp(key, "lost"))
		return !p->fam[f].lost_known;
	if (!strcmp(key, "latency")) { /* FAMILY.latency.*: the SUM row whose latency is "" */
		for (int i = 0; i < schema[f].nrows; i++)
			if (schema[f].rows[i].latency && !*schema[f].rows[i].latency)
				row = i;
	} else {
		row = schema_row_index(f, key);
	}
	return row >= 0 && schema_row_absent(&schema[f], row, p->absent[f]);
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
	/* a fact of the kernel, one for all runs (merge makes it unknown where they differ) */
	if (p->nruns && !metric_is_cred_line(name)) {
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
