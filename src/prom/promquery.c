// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How promsource.c and promcover.c ask Prometheus (src/prom/promquery.h):
 * the selector and window checked before they reach a query's text, the
 * three shapes of query, and one query's answer into a side.
 */
#include "prom/promquery.h"

#include <stdio.h>
#include <string.h>

int promreader_matchers(const char *sel, char *out, size_t size)
{
	size_t n;

	while (*sel == ' ')
		sel++;
	n = strlen(sel);
	while (n && sel[n - 1] == ' ')
		n--;
	if (!n) {
		*out = 0;
		return 0;
	}
	if (sel[0] != '{' || sel[n - 1] != '}' || n - 2 >= size || memchr(sel + 1, '}', n - 2) ||
	    memchr(sel + 1, '{', n - 2))
		return -1;
	memcpy(out, sel + 1, n - 2);
	out[n - 2] = 0;
	return 0;
}

/* No window is ten years long; a bigger one would overflow. */
uint64_t promreader_window_ms(const char *w)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		      { "d", 86400000 }, { "w", 604800000 }, { "y", 31536000000ULL } };
	const uint64_t most = 10 * 31536000000ULL;
	uint64_t total = 0;

	if (!w || !*w || strlen(w) > 32)
		return 0;
	while (*w) {
		uint64_t n = 0;
		size_t k, digits = strspn(w, "0123456789");

		if (!digits || digits > 9)
			return 0;
		for (size_t i = 0; i < digits; i++)
			n = n * 10 + (uint64_t)(w[i] - '0');
		w += digits;
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
			if (!strncmp(w, units[k].unit, strlen(units[k].unit)) &&
			    !(k == 2 && w[1] == 's'))
				break;
		if (k == sizeof(units) / sizeof(units[0]))
			return 0;
		w += strlen(units[k].unit);
		/* n < 10^9 and ms <= 3.2e10: the product fits; the sum is checked */
		if (n > most / units[k].ms || (total += n * units[k].ms) > most)
			return 0;
	}
	return total;
}

void promreader_range(const struct promreader *r, char *buf, const char *fn, const char *name,
		      const char *tail)
{
	snprintf(buf, PROMREADER_QUERY_MAX, "%s(%s{%s}[%s])%s", fn, name, r->matchers,
		 r->q->window, tail);
}

/* `x - x offset W`, or `x unless x offset W` for a series that began inside W. */
void promreader_count(const struct promreader *r, char *buf, const char *name, const char *tail)
{
	const char *m = r->matchers, *w = r->q->window;

	snprintf(buf, PROMREADER_QUERY_MAX,
		 "((%s{%s} - %s{%s} offset %s) or (%s{%s} unless %s{%s} offset %s))%s", name, m, name, m, w, name, m, name, m, w, tail);
}

int promreader_query(struct promreader *r, struct promside_query *q, const char *promql)
{
	struct promclient_answer ans;
	int ret;

	q->side = r->side;
	q->keep[0] = "instance";
	q->keep[1] = "job";
	ret = promclient_query(r->c, promql, r->q->at, q->keep, promside_take, q, &ans, r->err,
			       r->errlen);
	promside_done(q);
	if (!ret && ans.nwarnings)
		ret = reasons_once(&r->side->why, "Prometheus warned that its answer may be ",
				  "partial (%zu warning%s, the first: %s): nothing is judged on "
				  "part of a fleet", ans.nwarnings, ans.nwarnings == 1 ? "" : "s",
				  ans.warning);
	return ret;
}

