/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The flat metric namespace of a profile, shared by compare and gate:
 *   access.avoidable_per_call, exec.enoent.latency.p50,
 *   lookup.did_skip_ratio[tmpfs], ...  (docs/gate-rules.md lists them all)
 * Every value is derived from the profile's counters and histograms; a
 * merged profile also carries each run's values, the samples statistics
 * are computed from.
 */
#ifndef PERMSCOPE_METRICS_H
#define PERMSCOPE_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/*
 * Every metric of the families that recorded, in a stable order, then the
 * bench.* metrics a bench profile's runs carry (their mean over the runs).
 */
int metrics_collect(const struct profile *p, struct metric_list *out);
/* Append one metric.  0 or -ENOMEM. */
int metric_add(struct metric_list *l, const char *name, double value);
/*
 * The fourth fast path, a fact of the recording kernel and of no family:
 * 1 where struct cred's refcount shares a cacheline with what permission
 * checks read, 0 where it is separated; no metric where the layout is
 * unknown or the profile predates it (profile.h, cred_line).
 */
#define METRIC_CRED_LINE "cred.refcount_shares_line"
bool metric_is_cred_line(const char *name);
/* Is `name` a bench.BENCHMARK.KEY metric (permscope bench; no family)? */
bool metric_is_bench(const char *name);
/* Is `name` a duration in ns (FAMILY[.OUTCOME].latency.*, bench's *_ns)? */
bool metric_is_duration(const char *name);
void metrics_free(struct metric_list *l);
const struct metric *metrics_find(const struct metric_list *l, const char *name);

/*
 * Does `p` lack the counter behind metric `name` because it was written
 * before that counter existed (docs/profile-format.md, "Compatibility")?
 */
bool metric_absent(const struct profile *p, const char *name);

/* The family a metric name belongs to (its first component), or -1 (bench.* too). */
int metric_family(const char *name);

/*
 * The samples of `name` in `p`: one per run for a merged profile, else the
 * profile's own value.  Returns the count (>= 1), 0 when `p` has no such
 * metric.  *samples is malloc'ed.
 */
size_t metric_samples(const struct profile *p, const char *name, double **samples);

/*
 * Every name permscope can produce, as if all families recorded, per-fs
 * names with filesystem `fs` (NULL: "tmpfs"); for checking names before
 * anything recorded, and for hints.
 */
int metrics_schema(const char *fs, struct metric_list *out);
/* Is `name` a metric permscope can produce at all, whatever recorded? */
bool metric_name_valid(const char *name);

/* The `max` known names closest to `name` (edit distance), for hints. */
size_t metrics_nearest(const struct metric_list *known, const char *name,
		       const char **out, size_t max);

#endif
