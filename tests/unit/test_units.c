// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Durations as a person reads them (format_duration() in src/util.c, the
 * one function report, compare and the HTML print latencies with): the unit
 * chosen by the value, at most four significant digits, no float noise, and
 * the ASCII spelling for a terminal that is not UTF-8.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "util.h"

static const char *dur(double ns)
{
	static char buf[DURATION_LEN];

	return format_duration(buf, sizeof(buf), ns, false, CHARSET_UTF8);
}

static const char *dur_ascii(double ns)
{
	static char buf[DURATION_LEN];

	return format_duration(buf, sizeof(buf), ns, false, CHARSET_ASCII);
}

static void each_unit_starts_where_the_one_below_would_reach_1000(void **state)
{
	(void)state;
	assert_string_equal(dur(0), "0ns");
	assert_string_equal(dur(1), "1ns");
	assert_string_equal(dur(999), "999ns");
	assert_string_equal(dur(999.4), "999ns");
	assert_string_equal(dur(999.5), "1µs"); /* would print 1000ns */
	assert_string_equal(dur(1000), "1µs");
	assert_string_equal(dur(1001), "1.001µs");
	assert_string_equal(dur(1024), "1.024µs");
	assert_string_equal(dur(999900), "999.9µs");
	assert_string_equal(dur(999940), "999.9µs");
	assert_string_equal(dur(999960), "1ms"); /* would print 1000.0µs */
	assert_string_equal(dur(1e6), "1ms");
	assert_string_equal(dur(1048576), "1.049ms");
	assert_string_equal(dur(999.96e6), "1s");
	assert_string_equal(dur(59e9), "59s");
	assert_string_equal(dur(59.5e9), "59.5s");
	assert_string_equal(dur(999.9e9), "999.9s");
	assert_string_equal(dur(1000e9), "1000s");
	assert_string_equal(dur(3600e9), "3600s");
}

static void four_significant_digits_and_no_float_noise(void **state)
{
	(void)state;
	assert_string_equal(dur(24459.999), "24.46µs");
	assert_string_equal(dur(24460), "24.46µs");
	assert_string_equal(dur(24400), "24.4µs"); /* trailing zeros dropped */
	assert_string_equal(dur(16384), "16.38µs");
	assert_string_equal(dur(131072), "131.1µs");
	assert_string_equal(dur(108346.2), "108.3µs");
	assert_string_equal(dur(625.4), "625ns"); /* whole nanoseconds */
	assert_string_equal(dur(0.4), "0ns");
	assert_string_equal(dur(0.1 + 0.2), "0ns");
}

static void huge_negative_and_not_finite_values(void **state)
{
	char buf[DURATION_LEN];

	(void)state;
	assert_string_equal(dur((double)UINT64_MAX), "18446744074s");
	assert_string_equal(dur(1e300), "1e+291s"); /* past 10^12 s, no wall of digits */
	assert_string_equal(dur(NAN), "-");
	assert_string_equal(dur(INFINITY), "-");
	assert_string_equal(dur(-21018), "-21.02µs");
	assert_string_equal(format_duration(buf, sizeof(buf), -21018, true, CHARSET_UTF8),
			    "-21.02µs");
	assert_string_equal(format_duration(buf, sizeof(buf), 900, true, CHARSET_UTF8), "+900ns");
	assert_string_equal(format_duration(buf, sizeof(buf), 0, true, CHARSET_UTF8), "+0ns");
	/* -0.3 ns rounds to nothing: no sign of its own */
	assert_string_equal(format_duration(buf, sizeof(buf), -0.3, true, CHARSET_UTF8), "+0ns");
	assert_string_equal(dur(-0.3), "0ns");
	/* cut short, never past the buffer */
	assert_string_equal(format_duration(buf, 4, 24460, false, CHARSET_UTF8), "24.");
}

static void mean_and_sd_share_the_means_unit_and_decimals(void **state)
{
	char buf[DURATION_LEN];

	(void)state;
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 24384, 1437, CHARSET_UTF8),
			    "24.38±1.44µs");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 3366, 782.6, CHARSET_UTF8),
			    "3.366±0.783µs");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 105326, 8835, CHARSET_UTF8),
			    "105.3±8.8µs");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 625, 12.4, CHARSET_UTF8),
			    "625±12ns");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 0, 0, CHARSET_UTF8), "0±0ns");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), 24384, 1437, CHARSET_ASCII),
			    "24.38+-1.44us");
	assert_string_equal(format_duration_pm(buf, sizeof(buf), NAN, 1, CHARSET_UTF8), "-");
}

static void ranges_use_an_en_dash_or_a_hyphen(void **state)
{
	char buf[2 * DURATION_LEN];

	(void)state;
	assert_string_equal(format_duration_range(buf, sizeof(buf), 131072, 262144, CHARSET_UTF8),
			    "131.1µs–262.1µs");
	assert_string_equal(format_duration_range(buf, sizeof(buf), 131072, 262144, CHARSET_ASCII),
			    "131.1us-262.1us");
	assert_string_equal(format_duration_range(buf, sizeof(buf), 0, 2, CHARSET_UTF8), "0ns–2ns");
	assert_string_equal(format_duration_range(buf, sizeof(buf), 1ULL << 39, UINT64_MAX,
						  CHARSET_UTF8), "549.8s–∞");
	assert_string_equal(format_duration_range(buf, sizeof(buf), 1ULL << 39, UINT64_MAX,
						  CHARSET_ASCII), "549.8s-inf");
	assert_string_equal(dur_ascii(24460), "24.46us");
	assert_string_equal(dur_ascii(1e6), "1ms");
}

/* LC_ALL, then LC_CTYPE, then LANG: the first that is set and not empty decides. */
static void the_locale_chooses_utf8_or_ascii(void **state)
{
	(void)state;
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	assert_int_equal(text_charset(), CHARSET_ASCII);
	setenv("LANG", "en_GB.UTF-8", 1);
	assert_int_equal(text_charset(), CHARSET_UTF8);
	setenv("LC_CTYPE", "C", 1);
	assert_int_equal(text_charset(), CHARSET_ASCII);
	setenv("LC_ALL", "de_DE.utf8", 1);
	assert_int_equal(text_charset(), CHARSET_UTF8);
	setenv("LC_ALL", "POSIX", 1);
	assert_int_equal(text_charset(), CHARSET_ASCII);
	setenv("LC_ALL", "", 1); /* empty: as if unset */
	assert_int_equal(text_charset(), CHARSET_ASCII);
	unsetenv("LC_CTYPE");
	assert_int_equal(text_charset(), CHARSET_UTF8);
}

/* Columns, not bytes: µ is two bytes, – three, each one column. */
static void columns_count_characters_not_bytes(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(text_width("131.1µs–262.1µs"), 15);
	assert_int_equal(text_width("abc"), 3);
	fput_aligned(f, "1µs", 6);
	fputc('|', f);
	fput_aligned(f, "1µs", -6);
	fputc('|', f);
	fput_aligned(f, "toolong", 3);
	fclose(f);
	assert_string_equal(buf, "   1µs|1µs   |toolong");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_unit_starts_where_the_one_below_would_reach_1000),
		cmocka_unit_test(four_significant_digits_and_no_float_noise),
		cmocka_unit_test(huge_negative_and_not_finite_values),
		cmocka_unit_test(mean_and_sd_share_the_means_unit_and_decimals),
		cmocka_unit_test(ranges_use_an_en_dash_or_a_hyphen),
		cmocka_unit_test(the_locale_chooses_utf8_or_ascii),
		cmocka_unit_test(columns_count_characters_not_bytes),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
