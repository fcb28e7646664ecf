/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The queries of one side's read (promsource.c, promcover.c): a reader
 * holds the client, the query asked for and the side being filled, and
 * every query is an instant query at the window's end whose answer goes
 * into the side through promside_take().  The selector's matchers and the
 * window are checked first (promreader_matchers(), promreader_window_ms()):
 * nothing else of the caller's reaches a query's text.
 */
#ifndef PERMSCOPE_PROMQUERY_H
#define PERMSCOPE_PROMQUERY_H

#include <stddef.h>
#include <stdint.h>

#include "prom/promclient.h"
#include "prom/promside.h"

/* What a side is: its selector, its window and when the window ends. */
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

#define PROMREADER_QUERY_MAX 4096 /* four selectors of 511 bytes and the names: never cut */

struct promreader {
	struct promclient *c;
	const struct promsource_query *q;
	char matchers[512]; /* the selector's matchers, without the braces */
	struct promsource_side *side;
	char *err;
	size_t errlen;
};

/* The selector's matchers between its braces into `out`; -1 unless it is {...} or empty. */
int promreader_matchers(const char *sel, char *out, size_t size);
/*
 * A PromQL duration ("1h30m", "90s", "500ms") in milliseconds; 0 when it
 * is none, or longer than ten years.
 */
uint64_t promreader_window_ms(const char *w);
/* FN(NAME{MATCHERS}[WINDOW])TAIL into buf (PROMREADER_QUERY_MAX bytes). */
void promreader_range(const struct promreader *r, char *buf, const char *fn, const char *name,
		      const char *tail);
/* What counter NAME counted inside the window, exactly (promsource.c), then TAIL. */
void promreader_count(const struct promreader *r, char *buf, const char *name, const char *tail);
/*
 * Ask `promql` at the window's end; each sample goes to q->take() through
 * promside_take().  0, or promclient's negative code with r->err set.
 */
int promreader_query(struct promreader *r, struct promside_query *q, const char *promql);

#endif
