/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The names a profile's rows have in Prometheus, and the latency
 * histograms' bucket bounds /metrics exports (`daemon --buckets`): what
 * the exposition (src/prom/prom.c) writes and a fleet comparison
 * (src/prom/promsource.c) reads back, declared apart from either.
 */
#ifndef PERMSCOPE_PROMNAMES_H
#define PERMSCOPE_PROMNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

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
 * one mapping of names both ways (src/prom/prom.c's exposition, and
 * src/prom/promsource.c reading it back from Prometheus): the counter's
 * name into `name`, and the label that tells the row apart from the
 * metric's other rows: a grouped COUNT's group label ("reason") with the
 * row's name, "outcome" with the OUTCOME's name, the ERRNOS row's own
 * name with *value NULL (the errno key varies).  *label NULL when the row
 * has the counter to itself.
 * The OUTCOME rows' latency histogram is prom_latency_name()'s.  Every
 * series also carries "mode", and "fs" in a per-fs family.
 */
void prom_row_series(enum family_id f, int row, char *name, size_t size, const char **label,
		     const char **value);
/* permscope_FAMILY_latency_seconds: the histogram of `f`'s OUTCOME rows. */
void prom_latency_name(enum family_id f, char *name, size_t size);

#endif
