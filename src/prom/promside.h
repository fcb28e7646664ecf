/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A side of a fleet comparison: its hosts, each a profile with the
 * reasons it cannot be judged, and how one query's samples get into them
 * (promsource.c makes the queries): the labels a query keeps, the host
 * each sample is of, and what a sample must be before it counts.  Everything here reads
 * outside input, and trusts none of it:
 *
 *  - a value is a count only when Prometheus wrote a whole number, finite,
 *    not negative and exact in a float64 (at most 2^53), and sums stay
 *    within what a profile holds: anything else is the host's reason;
 *  - one count of a host comes from one series: two samples of a query
 *    with the same instance and row labels (two jobs scraping one host,
 *    an HA pair without deduplication) are a reason, never a sum;
 *  - a label longer than can be kept is a reason, never cut into another
 *    host's or filesystem's name; hosts and filesystems are bounded;
 *  - every label value kept is escaped (escape_text()) before it is a
 *    host's name or part of a reason, so none can forge a line of output.
 */
#ifndef PERMSCOPE_PROMSIDE_H
#define PERMSCOPE_PROMSIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "prom/promanswer.h"

/* Beside enum promclient_status: what the caller gave is not usable. */
#define PROMSOURCE_EINPUT (-20)
#define PROMSOURCE_ENOMEM (-21)


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
	/*
	 * A latency _count series came for the family: without one (a daemon
	 * run with --lean exports no histogram, relabelling may drop it) its
	 * latency is not known, never the 0 of an empty histogram.
	 */
	bool latency_seen[FAMILY_COUNT];
};

struct promsource_side {
	struct promsource_host *hosts; /* sorted by instance */
	size_t nhosts;
	struct promsource_reasons why; /* about the side as a whole */
};


/* A side of more hosts is refused (a reason): each host is a profile. */
#define PROMSIDE_HOSTS_MAX 4096
/* A host's filesystems: more is a label gone wrong. */
#define PROMSIDE_FS_MAX 256
/* A count above this is not exact in Prometheus's float64 (2^53). */
#define PROMSIDE_EXACT_MAX 9007199254740992.0

/*
 * One query's samples as they stream in.  keep[0] is always "instance",
 * keep[1] "job" (named in a duplicate's reason, left out of its key).
 */
struct promside_query {
	struct promsource_side *side;
	const char *series; /* the metric queried, for reasons */
	const char *keep[PROMANSWER_LABELS + 1];
	/* what the query does with a sample that passed the checks */
	int (*take)(struct promside_query *q, struct promsource_host *h,
		    const struct promanswer_sample *s);
	enum family_id f;
	int part;
	/* the keys seen, for two series of one host and row: open addressing */
	uint64_t *keys;
	size_t nkeys, cap;
};

/* A line more: 0, or PROMSOURCE_ENOMEM. */
int reasons_add(struct promsource_reasons *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool reasons_has(const struct promsource_reasons *r, const char *prefix);
/* A reason given once: the first of its kind (PREFIX) is kept. */
#define reasons_once(r, prefix, ...) \
	(reasons_has((r), (prefix)) ? 0 : reasons_add((r), prefix __VA_ARGS__))
void reasons_free(struct promsource_reasons *r);

/* Adds label NAME to the query's keep list, once (NULL: nothing). */
void promside_keep(struct promside_query *q, const char *name);
/* The value of kept label NAME in S, or NULL. */
const char *promside_label(const struct promside_query *q,
			     const struct promanswer_sample *s, const char *name);
/* NAME{a="x",b="y"}: the sample's labels but instance and job, for reasons. */
void promside_labels_text(const struct promside_query *q, const struct promanswer_sample *s,
			    char *buf, size_t size);
/* The host called INSTANCE (escaped here), added as a profile when new; NULL: no memory. */
struct promsource_host *promside_host(struct promsource_side *side, const char *instance);
/* Every host and reason of SIDE freed, SIDE zeroed (promsource_read() fills it). */
void promsource_side_free(struct promsource_side *side);
/*
 * The promanswer_sample_fn of every query (CTX a promside_query): the
 * checks above, then q->take.  0, or PROMSOURCE_ENOMEM.
 */
int promside_take(void *ctx, const struct promanswer_sample *s);
/* The query's keys freed, for the next query. */
void promside_done(struct promside_query *q);

/* S's value as a count, a latency sum in ns, a time (NAN if none): NULL, or why not. */
const char *promside_count(const struct promanswer_sample *s, __u64 *out);
const char *promside_sum(const struct promanswer_sample *s, __u64 *out);
double promside_time(const struct promanswer_sample *s);
/* WHY as H's reason, naming the series and value: 0 or PROMSOURCE_ENOMEM. */
int promside_not_a_count(struct promside_query *q, struct promsource_host *h,
			   const struct promanswer_sample *s, const char *why);
/* *COUNTER += V, or a reason where the sum passes what a profile holds. */
int promside_add_count(struct promside_query *q, struct promsource_host *h,
			 const struct promanswer_sample *s, __u64 *counter, __u64 v);
/* The stats of family q->f the sample's labels name (its fs); NULL: a reason or no memory. */
void *promside_stats(struct promside_query *q, struct promsource_host *h,
		       const struct promanswer_sample *s);

#endif
