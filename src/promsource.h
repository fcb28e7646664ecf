/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One side of a fleet comparison read from Prometheus: every host
 * (`instance`) a selector picks becomes one profile, the increase of every
 * schema counter and latency histogram over a window, read back through
 * the names src/prom.c exports (prom_row_series()), so the profile is
 * what a file profile of that host's window would hold and every metric,
 * rule and statistic applies unchanged.
 *
 * Beside the profiles, the reasons a side cannot be judged, each host's
 * (the daemon restarted inside the window, or was not scraped near its
 * start) and the side's (hosts on different permscope builds or attach
 * modes, fewer hosts than asked for).  A host's lost events are no such
 * reason: they are in its profile, where a rule on the family that lost
 * them gives no verdict (unless gate --accept-loss), as for a file; the
 * host is named beside them.  docs/fleet.md lists the queries.  Nothing is
 * built from a partial answer: the first query that fails ends the read
 * with promclient's code.
 */
#ifndef PERMSCOPE_PROMSOURCE_H
#define PERMSCOPE_PROMSOURCE_H

#include <stddef.h>

#include "profile.h"
#include "promclient.h"

/* Beside enum promclient_status: what the caller gave is not usable. */
#define PROMSOURCE_EINPUT (-20)
#define PROMSOURCE_ENOMEM (-21)

struct promsource_query {
	/*
	 * A PromQL label matcher set, '{cohort="canary"}': its matchers are
	 * added to each query's own.  "" or "{}" picks every permscope series.
	 */
	const char *selector;
	const char *window; /* a PromQL duration: "1h", "5m", "90s" */
	double at;          /* the window's end, seconds since the epoch (required) */
	int min_hosts;      /* fewer is a reason of the side */
};

/* Reasons, one line each ("its daemon restarted inside the window ..."). */
struct promsource_reasons {
	char **line;
	size_t n;
};

struct promsource_host {
	char instance[256];
	/*
	 * The window's increase; hostname is the instance, start and end the
	 * window, build and kernel_release from permscope_build_info, each
	 * family's mode from permscope_probe_attached.  A histogram's slots are
	 * exact at the bounds exported (PROM_BUCKETS_DEFAULT by default): the
	 * calls between two exported bounds sit in the slot of the upper one.
	 */
	struct profile profile;
	/*
	 * permscope_start_time_seconds at the window's end and at its start
	 * (NAN: no sample): the counts are from the later of the window's
	 * start and `started`.
	 */
	double started, started_before;
	unsigned long long restarts; /* changes of the start time inside the window */
	struct promsource_reasons why; /* none: the host can be judged */
	struct promsource_reasons losses; /* "lost 7 events (family F, program P)" */
	/*
	 * The COUNT and OUTCOME rows a sample came for, a bit a row: the
	 * daemon exports them all, zeros too, but for the counters its build
	 * predates, which are then absent from the profile, never 0.
	 */
	uint32_t seen[FAMILY_COUNT];
	bool before; /* reported in the window before this one (read_gone()) */
};

struct promsource_side {
	struct promsource_host *hosts; /* sorted by instance */
	size_t nhosts;
	struct promsource_reasons why; /* about the side as a whole */
};

/*
 * Read the side `q` selects through `c` into `side` (zeroed first).
 * PROMCLIENT_OK, or promclient's negative code with `err` (the failing
 * query's message), PROMSOURCE_EINPUT for a selector or window that is no
 * PromQL one, PROMSOURCE_ENOMEM; on failure `side` holds nothing to free.
 */
int promsource_read(struct promclient *c, const struct promsource_query *q,
		    struct promsource_side *side, char *err, size_t errlen);
void promsource_side_free(struct promsource_side *side);

/*
 * The side as one profile of runs, as `permscope merge` makes one: the
 * hosts' counters added up, each host one run, so statistics compare hosts.
 * Only for a side promsource_judgeable() passes (one build, the same
 * families in the same modes).  0, -EINVAL for no hosts, or -ENOMEM;
 * `out` is initialised either way (profile_free() it).
 */
int promsource_merge(const struct promsource_side *side, struct profile *out);

/* Whether nothing stops a verdict: no reason for the side or any host. */
int promsource_judgeable(const struct promsource_side *side);

#endif
