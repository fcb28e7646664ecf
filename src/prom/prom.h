/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A profile as Prometheus metrics: the text exposition format 0.0.4 that
 * `permscope daemon` serves on /metrics.  Every family metric is generated
 * from the schema (src/schema.h), so a counter added there is exported
 * without being spelled again; docs/metrics.md lists the names.
 */
#ifndef PERMSCOPE_PROM_H
#define PERMSCOPE_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "prom/http.h"
#include "profile.h"

/*
 * The process_* metrics every Prometheus client library exports about its
 * own process (names, types and HELP as the Go and Python clients write
 * them), here the daemon's.
 */
struct prom_process {
	double cpu_seconds;        /* user + system CPU time */
	double start_time_seconds; /* since the epoch */
	uint64_t resident_bytes, virtual_bytes;
	uint64_t open_fds, max_fds; /* max: RLIMIT_NOFILE's soft limit */
};

/* This process's figures from /proc/self and getrlimit(); 0 or -errno. */
int prom_process_read(struct prom_process *pp);

/* What the daemon adds about itself. */
struct prom_daemon {
	uint64_t snapshots_written;   /* snapshot profiles written to the state dir */
	uint64_t snapshot_errors;     /* snapshots that could not be written */
	uint64_t last_snapshot_ns;    /* CLOCK_REALTIME of the newest; 0: none yet */
	struct http_stats http;       /* the endpoint's answers by status code */
	uint64_t buckets;             /* latency bounds exported (--buckets); 0: the default */
	const struct prom_process *process;  /* NULL: no process_* metrics */
	const struct program_runs *programs; /* --bpf-stats: nprograms; NULL: off */
	int nprograms;
};

/*
 * The latency histograms' bucket bounds that /metrics exports, one bit a
 * log2 slot: bit s is the bound 2^(s+1) ns of slot s, exported as
 * le = (2^(s+1) - 1) ns, the last nanosecond the slot holds, the only
 * bounds whose cumulative counts are exact.  Slot 39, open at the top, has
 * none: +Inf holds it.  By default 128 ns (slot 6) to 2^30 ns, about 1.07 s
 * (slot 29): what the probed calls take, without the always-empty rest.
 */
#define PROM_BUCKETS_ALL ((1ULL << (HIST_SLOTS - 1)) - 1)
#define PROM_BUCKETS_DEFAULT (((1ULL << 30) - 1) & ~((1ULL << 6) - 1))
#define PROM_BUCKETS_DEFAULT_TEXT "128ns..1.073741824s"

/*
 * Parse --buckets: a comma list of bounds and FROM..TO ranges of them,
 * each a power of two of nanoseconds with a unit (128ns, 1.024us,
 * 1.073741824s) or as 2^K (2^7..2^30); "all" for every bound.  0 with
 * *slots set, or -1 with why in `err` (for "Error: --buckets ARG: <err>"),
 * naming the nearest bounds when a value is not one.
 */
int prom_buckets_parse(const char *arg, uint64_t *slots, char *err, size_t errlen);

/*
 * Where row `row` of family `f` (COUNT, OUTCOME or ERRNOS) is exported, the
 * one mapping of names both ways (this exposition, and src/prom/promsource.c
 * reading it back from Prometheus): the counter's name into `name`, and
 * the label that tells the row apart from the metric's other rows: a
 * grouped COUNT's group label ("reason") with the row's name, "outcome"
 * with the OUTCOME's name, the ERRNOS row's own name with *value NULL (the
 * errno key varies).  *label NULL when the row has the counter to itself.
 * The OUTCOME rows' latency histogram is prom_latency_name()'s.  Every
 * series also carries "mode", and "fs" in a per-fs family.
 */
void prom_row_series(enum family_id f, int row, char *name, size_t size, const char **label,
		     const char **value);
/* permscope_FAMILY_latency_seconds: the histogram of `f`'s OUTCOME rows. */
void prom_latency_name(enum family_id f, char *name, size_t size);

/*
 * Render `p`, the running total since the probes attached (p->start_ns), as
 * a malloc'ed exposition; `d` may be NULL.  *len gets its length.  NULL on
 * ENOMEM.
 */
char *prom_render(const struct profile *p, const struct prom_daemon *d, size_t *len);

/*
 * The same metrics, names and labels as OpenMetrics 1.0 text for a
 * backfill (`permscope report --format openmetrics`; docs/report.md):
 * `instance` and `job` labels on every series, each series at two times,
 * the profile's start (rounded down to the millisecond) and its end
 * (rounded up), a counter's and a histogram's 0 at the start and the
 * count at the end, a gauge's value at both; "# EOF" last.  The profile
 * must end after it starts.  NULL on ENOMEM.
 */
char *prom_render_openmetrics(const struct profile *p, const char *instance, const char *job,
			      size_t *len);

#endif
