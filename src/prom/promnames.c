// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where each row of the schema is exported (src/prom/promnames.h), apart
 * from the exposition that writes the rows: promsource.c reads them back
 * by these names without the writer.
 *
 * Names come from the schema: a COUNT row is permscope_FAMILY_ROW_total, a
 * grouped one permscope_FAMILY_GROUP_total{LABEL="ROW"}, the OUTCOME rows
 * one counter permscope_FAMILY_EVENTS_total{outcome=...} and one histogram
 * permscope_FAMILY_latency_seconds{outcome=...}, an ERRNOS row
 * permscope_FAMILY_ROW_total{ROW="ENOENT"}.  SUM and RATIO rows are derived
 * and left to PromQL.  docs/metrics.md lists every name.
 *
 * Then --buckets: which of the histograms' bounds are exported.
 */
#include "prom/promnames.h"

#include <stdio.h>
#include <string.h>

/* ---- names ---------------------------------------------------------------- */

void prom_row_series(enum family_id f, int row, char *name, size_t size, const char **label,
		     const char **value)
{
	const struct family_schema *fs = &schema[f];
	const struct schema_row *r = &fs->rows[row];

	*label = *value = NULL;
	switch (r->kind) {
	case ROW_OUTCOME:
		snprintf(name, size, "permscope_%s_%s_total", fs->name, fs->rows[fs->events].name);
		*label = "outcome";
		*value = r->name;
		break;
	case ROW_ERRNOS:
		snprintf(name, size, "permscope_%s_%s_total", fs->name, r->name);
		*label = r->name;
		break;
	default:
		snprintf(name, size, "permscope_%s_%s_total", fs->name, r->group ? r->group : r->name);
		if (r->group) {
			*label = r->label;
			*value = r->name;
		}
		break;
	}
}

void prom_latency_name(enum family_id f, char *name, size_t size)
{
	snprintf(name, size, "permscope_%s_latency_seconds", schema[f].name);
}

/* ---- --buckets ------------------------------------------------------------ */

/* The largest bound, 2^39 ns: slot 38's; slot 39 is open. */
#define BOUND_MAX_LOG2 (HIST_SLOTS - 1)

/* NS as the shortest exact duration: 128ns, 1.024us, 1.073741824s. */
static void format_bound(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = { { "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL } };
	int digits = 9;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++, digits -= 3) {
		char frac[16];
		int n;

		if (ns < units[i].scale)
			continue;
		n = snprintf(frac, sizeof(frac), "%0*llu", digits,
			     (unsigned long long)(ns % units[i].scale));
		while (n > 0 && frac[n - 1] == '0')
			frac[--n] = 0;
		snprintf(buf, size, "%llu%s%s%s", (unsigned long long)(ns / units[i].scale),
			 n ? "." : "", frac, units[i].unit);
		return;
	}
	snprintf(buf, size, "%lluns", (unsigned long long)ns);
}

/*
 * One duration, S up to END, in whole nanoseconds: DIGITS[.DIGITS]UNIT, or
 * 2^K.  0, or -1 with why in err.
 */
static int parse_duration(const char *s, const char *end, uint64_t *ns, char *err,
			  size_t errlen)
{
	static const struct {
		const char *unit;
		int exp10;
	} units[] = { { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 } };
	unsigned __int128 v = 0;
	int frac = -1, exp10 = -1;
	const char *p = s;

	if (end - s > 2 && s[0] == '2' && s[1] == '^') {
		unsigned k = 0;

		for (p = s + 2; p < end && *p >= '0' && *p <= '9' && k < 100; p++)
			k = k * 10 + (*p - '0');
		if (p != end || p == s + 2 || k > 63) {
			snprintf(err, errlen, "'%.*s': expected 2^K, K a number of bits", (int)(end - s), s);
			return -1;
		}
		*ns = 1ULL << k;
		return 0;
	}
	for (; p < end && ((*p >= '0' && *p <= '9') || (*p == '.' && frac < 0)); p++) {
		if (*p == '.') {
			frac = 0;
			continue;
		}
		if (v > (unsigned __int128)1 << 80)
			break;
		v = v * 10 + (*p - '0');
		frac += frac >= 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((size_t)(end - p) == strlen(units[i].unit) && !strncmp(p, units[i].unit, end - p))
			exp10 = units[i].exp10;
	if (p == s || (p == s + 1 && *s == '.') || exp10 < 0) {
		snprintf(err, errlen, "'%.*s': expected a duration with its unit (128ns, 1.024us, "
			 "1.073741824s) or 2^K", (int)(end - s), s);
		return -1;
	}
	exp10 -= frac > 0 ? frac : 0;
	for (; exp10 > 0; exp10--)
		v *= 10;
	for (; exp10 < 0; exp10++) {
		if (v % 10) {
			snprintf(err, errlen, "'%.*s': not a whole number of nanoseconds",
				 (int)(end - s), s);
			return -1;
		}
		v /= 10;
	}
	*ns = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	return 0;
}

/* The slot whose bound is NS (2^(slot+1) ns), or -1 with the nearest bounds in err. */
static int bound_slot(const char *s, const char *end, uint64_t ns, char *err, size_t errlen)
{
	char lo[32], hi[32];
	int k;

	if (ns && !(ns & (ns - 1)) && ns >= 2 && ns <= 1ULL << BOUND_MAX_LOG2)
		return __builtin_ctzll(ns) - 1;
	k = ns ? 63 - __builtin_clzll(ns) : 0; /* 2^k <= ns < 2^(k+1) */
	if (k < 1) {
		format_bound(2, hi, sizeof(hi));
		snprintf(err, errlen, "%.*s is not a bucket bound; the smallest is %s (2^1 ns)",
			 (int)(end - s), s, hi);
	} else if (k >= BOUND_MAX_LOG2) {
		format_bound(1ULL << BOUND_MAX_LOG2, lo, sizeof(lo));
		snprintf(err, errlen, "%.*s is not a bucket bound; the largest is %s (2^%d ns): "
			 "slower calls are in +Inf", (int)(end - s), s, lo, BOUND_MAX_LOG2);
	} else {
		format_bound(1ULL << k, lo, sizeof(lo));
		format_bound(1ULL << (k + 1), hi, sizeof(hi));
		snprintf(err, errlen, "%.*s is not a bucket bound; the nearest are %s (2^%d ns) and "
			 "%s (2^%d ns): the histograms count in powers of two of nanoseconds",
			 (int)(end - s), s, lo, k, hi, k + 1);
	}
	return -1;
}

int prom_buckets_parse(const char *arg, uint64_t *slots, char *err, size_t errlen)
{
	uint64_t set = 0;

	if (!strcmp(arg, "all")) {
		*slots = PROM_BUCKETS_ALL;
		return 0;
	}
	for (const char *item = arg, *next;; item = next + 1) {
		const char *end = strchr(item, ','), *dots;
		uint64_t from_ns, to_ns;
		int from, to;

		next = end ? end : item + strlen(item);
		end = next;
		if (item == end) {
			snprintf(err, errlen, "an empty bound (expected bounds and FROM..TO ranges, "
				 "comma-separated, e.g. %s)", PROM_BUCKETS_DEFAULT_TEXT);
			return -1;
		}
		dots = memmem(item, end - item, "..", 2);
		if (parse_duration(item, dots ? dots : end, &from_ns, err, errlen) ||
		    (from = bound_slot(item, dots ? dots : end, from_ns, err, errlen)) < 0)
			return -1;
		to = from;
		if (dots && (parse_duration(dots + 2, end, &to_ns, err, errlen) ||
			     (to = bound_slot(dots + 2, end, to_ns, err, errlen)) < 0))
			return -1;
		if (to < from) {
			snprintf(err, errlen, "'%.*s': FROM is above TO", (int)(end - item), item);
			return -1;
		}
		for (int s = from; s <= to; s++)
			set |= 1ULL << s;
		if (!*next)
			break;
	}
	*slots = set;
	return 0;
}
