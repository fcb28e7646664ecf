/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One side of a fleet comparison read from Prometheus: every host
 * (`instance`) a selector picks becomes one profile, the increase of every
 * schema counter and latency histogram over a window, read back through
 * the names src/prom/prom.c exports (prom_row_series(), promnames.h), so
 * the profile is what a file profile of that host's window would hold and
 * every metric, rule and statistic applies unchanged.
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
#include "prom/promclient.h"
#include "prom/promquery.h"
#include "prom/promside.h"


/*
 * Read the side `q` selects through `c` into `side` (zeroed first).
 * PROMCLIENT_OK, or promclient's negative code with `err` (the failing
 * query's message), PROMSOURCE_EINPUT for a selector or window that is no
 * PromQL one, PROMSOURCE_ENOMEM; on failure `side` holds nothing to free.
 */
int promsource_read(struct promclient *c, const struct promsource_query *q,
		    struct promsource_side *side, char *err, size_t errlen);

#endif
