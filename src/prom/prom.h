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
