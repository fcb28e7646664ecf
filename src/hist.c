// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "hist.h"

#include <inttypes.h>
#include <string.h>

#include "util.h"

uint64_t hist_lo(unsigned int slot)
{
	return slot == 0 ? 0 : 1ULL << slot;
}

uint64_t hist_hi(unsigned int slot)
{
	return slot >= HIST_SLOTS - 1 ? UINT64_MAX : 1ULL << (slot + 1);
}

int hist_slot_of_lo(uint64_t lo)
{
	for (unsigned int i = 0; i < HIST_SLOTS; i++)
		if (hist_lo(i) == lo)
			return i;
	return -1;
}

const char *hist_range(unsigned int slot, enum charset cs, char *buf, size_t size)
{
	return format_duration_range(buf, size, hist_lo(slot), hist_hi(slot), cs);
}

void hist_merge(struct hist *into, const struct hist *from)
{
	for (int i = 0; i < HIST_SLOTS; i++)
		into->slots[i] = sat_add_u64(into->slots[i], from->slots[i]);
	into->count = sat_add_u64(into->count, from->count);
	into->sum = sat_add_u64(into->sum, from->sum);
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / h->count : 0.0;
}

bool hist_empty(const struct hist *h)
{
	return h->count == 0;
}

int bar_length(uint64_t v, uint64_t max, int width)
{
	/* in 128 bits: v * width passes 2^64 for a count over 2^64 / width */
	return max ? (int)(((unsigned __int128)v * width + max - 1) / max) : 0;
}

void hist_print(FILE *out, const struct hist *h, const char *indent, int width)
{
	const enum charset cs = text_charset();
	int first = -1, last = -1;
	uint64_t max = 0;
	char range[2 * DURATION_LEN], mean[DURATION_LEN];

	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (h->slots[i] > max)
			max = h->slots[i];
	}
	if (first < 0) {
		fprintf(out, "%s(no samples)\n", indent);
		return;
	}
	fprintf(out, "%s%-18s %10s  distribution\n", indent, "latency", "calls");
	for (int i = first; i <= last; i++) {
		int bar = bar_length(h->slots[i], max, width);

		fputs(indent, out);
		fput_aligned(out, hist_range(i, cs, range, sizeof(range)), -18);
		fprintf(out, " %10llu  |", (unsigned long long)h->slots[i]);
		for (int j = 0; j < width; j++)
			fputc(j < bar ? '@' : ' ', out);
		fputs("|\n", out);
	}
	fprintf(out, "%s%llu calls, mean %s\n", indent, (unsigned long long)h->count,
		format_duration(mean, sizeof(mean), hist_mean(h), false, cs));
}

bool hist_pair_range(const struct hist *a, const struct hist *b, int *first, int *last,
		     __u64 *max)
{
	*first = *last = -1;
	*max = 0;
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!a->slots[i] && !b->slots[i])
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
		*max = a->slots[i] > *max ? a->slots[i] : *max;
		*max = b->slots[i] > *max ? b->slots[i] : *max;
	}
	return *first >= 0;
}

json_t *hist_buckets_json(const struct hist *h)
{
	json_t *buckets = json_array();

	for (int i = 0; i < HIST_SLOTS; i++)
		if (h->slots[i])
			json_array_append_new(buckets, json_pack("{s:I,s:o,s:I}",
				"lo", (json_int_t)hist_lo(i),
				"hi", hist_hi(i) == UINT64_MAX ? json_null() : json_integer(hist_hi(i)),
				"count", (json_int_t)h->slots[i]));
	return buckets;
}
