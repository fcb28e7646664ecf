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

#include "http.h"
#include "profile.h"

/* What the daemon adds about itself. */
struct prom_daemon {
	uint64_t snapshots_written;   /* snapshot profiles written to the state dir */
	uint64_t snapshot_errors;     /* snapshots that could not be written */
	uint64_t last_snapshot_ns;    /* CLOCK_REALTIME of the newest; 0: none yet */
	struct http_stats http;       /* the endpoint's answers by status code */
};

/*
 * Render `p`, the running total since the probes attached (p->start_ns), as
 * a malloc'ed exposition; `d` may be NULL.  *len gets its length.  NULL on
 * ENOMEM.
 */
char *prom_render(const struct profile *p, const struct prom_daemon *d, size_t *len);

#endif
