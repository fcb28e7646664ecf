/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Log2 latency histograms (struct hist, bpf/permscope.h): bucket bounds and
 * terminal rendering.  Bucket i holds [hist_lo(i), hist_hi(i)) nanoseconds;
 * the last bucket has no upper bound (hist_hi() returns UINT64_MAX).
 */
#ifndef PERMSCOPE_HIST_H
#define PERMSCOPE_HIST_H

#include <jansson.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "permscope.h"
#include "util.h"

uint64_t hist_lo(unsigned int slot);
uint64_t hist_hi(unsigned int slot);
/* The slot whose [lo, hi) starts at lo, or -1 when lo is no bucket bound. */
int hist_slot_of_lo(uint64_t lo);
void hist_merge(struct hist *into, const struct hist *from);
/*
 * A slot's [lo, hi) for reading, "131.1µs–262.1µs" (format_duration_range()),
 * "549.8s–∞" for the open last one.  Returns buf.
 */
const char *hist_range(unsigned int slot, enum charset cs, char *buf, size_t size);
bool hist_empty(const struct hist *h);
/* The mean of what it counted (its exact sum over its count), 0 when empty. */
double hist_mean(const struct hist *h);
/*
 * The slots either histogram occupies, [first, last], and the larger count
 * of any slot; false when both are empty.  For drawing two side by side.
 */
bool hist_pair_range(const struct hist *a, const struct hist *b, int *first, int *last,
		     __u64 *max);
/* [{lo, hi, count}] of the occupied slots, hi null for the open last one. */
json_t *hist_buckets_json(const struct hist *h);
/* Print like bpftrace/print_log2_hist: range, count, bar of `width` chars. */
/* The bar of count v where max fills width: ceil(v * width / max), exact for any count. */
int bar_length(uint64_t v, uint64_t max, int width);
void hist_print(FILE *out, const struct hist *h, const char *indent, int width);

#endif
