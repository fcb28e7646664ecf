// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The log2 bucket rule, written once in bpf/permscope.h and src/hist.c. */
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "hist.h"
#include "schema.h"
#include "util.h"

static void small_values_fall_in_the_first_buckets(void **state)
{
	(void)state;
	assert_int_equal(hist_slot(0), 0);
	assert_int_equal(hist_slot(1), 0);
	assert_int_equal(hist_slot(2), 1);
	assert_int_equal(hist_slot(3), 1);
	assert_int_equal(hist_slot(4), 2);
	assert_int_equal(hist_slot(7), 2);
	assert_int_equal(hist_slot(8), 3);
	assert_int_equal(hist_slot(1023), 9);
	assert_int_equal(hist_slot(1024), 10);
}

static void huge_values_are_clamped_into_the_open_last_bucket(void **state)
{
	(void)state;
	assert_int_equal(hist_slot(1ULL << (HIST_SLOTS - 1)), HIST_SLOTS - 1);
	assert_int_equal(hist_slot(1ULL << HIST_SLOTS), HIST_SLOTS - 1);
	assert_int_equal(hist_slot(UINT64_MAX), HIST_SLOTS - 1);
	assert_true(hist_hi(HIST_SLOTS - 1) == UINT64_MAX);
}

/* Every bucket is [lo, hi): lo lands in it, hi - 1 too, hi in the next. */
static void every_bucket_is_half_open_and_they_tile(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		assert_int_equal(hist_slot(hist_lo(i)), i);
		if (hist_hi(i) != UINT64_MAX) {
			assert_int_equal(hist_slot(hist_hi(i) - 1), i);
			assert_int_equal(hist_slot(hist_hi(i)), i + 1);
			assert_true(hist_lo(i + 1) == hist_hi(i));
		}
		assert_int_equal(hist_slot_of_lo(hist_lo(i)), i);
	}
	assert_int_equal(hist_slot_of_lo(3), -1);
	assert_int_equal(hist_slot_of_lo(1), -1);
}

static void adding_keeps_count_and_sum(void **state)
{
	struct hist h = {0}, g = {0};

	(void)state;
	hist_add(&h, 0);
	hist_add(&h, 5);
	hist_add(&h, 5);
	hist_add(&h, 1000000);
	assert_int_equal(h.count, 4);
	assert_int_equal(h.sum, 1000010);
	assert_int_equal(h.slots[0], 1);
	assert_int_equal(h.slots[2], 2);
	assert_int_equal(h.slots[19], 1);
	hist_add(&g, 6);
	hist_merge(&g, &h);
	assert_int_equal(g.count, 5);
	assert_int_equal(g.sum, 1000016);
	assert_int_equal(g.slots[2], 3);
	assert_false(hist_empty(&g));
}

static char *print_to_string(const struct hist *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist_print(f, h, "", 10);
	fclose(f);
	return buf;
}

static void printing_shows_only_the_occupied_range_with_scaled_bars(void **state)
{
	struct hist h = {0};
	char *text;

	(void)state;
	for (int i = 0; i < 10; i++)
		hist_add(&h, 600);  /* [512, 1024) */
	for (int i = 0; i < 5; i++)
		hist_add(&h, 3000); /* [2048, 4096) */
	text = print_to_string(&h);
	assert_contains(text, "latency                 calls  distribution\n");
	assert_contains(text, "512ns–1.024µs              10  |@@@@@@@@@@|\n");
	assert_contains(text, "1.024µs–2.048µs             0  |          |\n");
	assert_contains(text, "2.048µs–4.096µs             5  |@@@@@     |\n");
	assert_not_contains(text, "256ns–512ns");
	assert_not_contains(text, "4.096µs–8.192µs");
	assert_contains(text, "15 calls, mean 1.4µs\n");
	free(text);
}

static void printing_the_open_bucket_says_inf(void **state)
{
	struct hist h = {0};
	char *text;

	(void)state;
	hist_add(&h, UINT64_MAX / 2);
	text = print_to_string(&h);
	assert_contains(text, "549.8s–∞");
	free(text);
	setenv("LC_ALL", "C", 1); /* a terminal that is not UTF-8 */
	text = print_to_string(&h);
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_contains(text, "549.8s-inf");
	free(text);
}

static void printing_an_empty_histogram_says_so(void **state)
{
	struct hist h = {0};
	char *text;

	(void)state;
	text = print_to_string(&h);
	assert_string_equal(text, "(no samples)\n");
	free(text);
}

/*
 * Counts added from CPUs, filesystems or profiles stop at 2^64 - 1 instead
 * of wrapping to a small number: a profile may hold counts up to 2^63 - 1
 * each, and three of them already pass 2^64.
 */
static void adding_counts_saturates_instead_of_wrapping(void **state)
{
	struct hist a = {0}, b = {0};
	__u64 x[3] = { UINT64_MAX - 1, INT64_MAX, 7 }, y[3] = { 5, INT64_MAX, 8 };

	(void)state;
	a.slots[3] = UINT64_MAX - 1;
	a.count = INT64_MAX;
	a.sum = UINT64_MAX;
	a.slots[4] = 1;
	b.slots[3] = 5;
	b.count = INT64_MAX;
	b.sum = 1;
	b.slots[4] = 2;
	hist_merge(&a, &b);
	assert_true(a.slots[3] == UINT64_MAX);
	assert_true(a.count == UINT64_MAX - 1); /* 2 x (2^63 - 1): fits, exact */
	hist_merge(&a, &b);
	assert_true(a.count == UINT64_MAX);
	assert_true(a.sum == UINT64_MAX);
	assert_true(a.slots[4] == 5); /* small counts stay exact */
	counters_add(x, y, sizeof(x));
	assert_true(x[0] == UINT64_MAX);
	assert_true(x[1] == UINT64_MAX - 1);
	assert_true(x[2] == 15);
	counters_add(x, y, sizeof(x));
	assert_true(x[1] == UINT64_MAX);
	assert_true(sat_add_u64(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	assert_true(sat_add_u64(1, 2) == 3);
}

/* A bar is exact for any count: count * width used to wrap past 2^64 / width. */
static void bars_of_huge_counts_are_scaled_exactly(void **state)
{
	struct hist h = {0};
	char *text;

	(void)state;
	assert_int_equal(bar_length(UINT64_MAX, UINT64_MAX, 10), 10);
	assert_int_equal(bar_length(UINT64_MAX / 2, UINT64_MAX, 10), 5);
	assert_int_equal(bar_length(1, UINT64_MAX, 10), 1);
	assert_int_equal(bar_length(0, UINT64_MAX, 10), 0);
	assert_int_equal(bar_length(5, 0, 10), 0);
	h.slots[9] = 1ULL << 63;
	h.slots[10] = 1ULL << 62;
	h.count = UINT64_MAX;
	text = print_to_string(&h);
	assert_contains(text, "512ns–1.024µs      9223372036854775808  |@@@@@@@@@@|\n");
	assert_contains(text, "1.024µs–2.048µs    4611686018427387904  |@@@@@     |\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_values_fall_in_the_first_buckets),
		cmocka_unit_test(huge_values_are_clamped_into_the_open_last_bucket),
		cmocka_unit_test(every_bucket_is_half_open_and_they_tile),
		cmocka_unit_test(adding_keeps_count_and_sum),
		cmocka_unit_test(printing_shows_only_the_occupied_range_with_scaled_bars),
		cmocka_unit_test(printing_the_open_bucket_says_inf),
		cmocka_unit_test(printing_an_empty_histogram_says_so),
		cmocka_unit_test(adding_counts_saturates_instead_of_wrapping),
		cmocka_unit_test(bars_of_huge_counts_are_scaled_exactly),
	};

	setenv("LC_ALL", "C.UTF-8", 1); /* µs and en dashes: the text a UTF-8 terminal gets */
	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
