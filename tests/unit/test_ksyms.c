// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ksyms_resolve (src/kernel/ksyms.c) against small fake kallsyms files. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/ksyms.h"

struct fake {
	char path[256];
};

/* A kallsyms file with `text` as its content; the state owns it. */
static const char *fake_kallsyms(void **state, const char *text)
{
	struct fake *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	FILE *out;
	int fd;

	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "%s/kallsyms.XXXXXX", tmp ? tmp : "/tmp");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
	*state = f;
	return f->path;
}

static int remove_fake(void **state)
{
	struct fake *f = *state;

	if (f) {
		unlink(f->path);
		free(f);
	}
	return 0;
}

static const char sample[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T alpha\n"
	"ffffffff81001040 d alpha_table\n"      /* data: no bound */
	"ffffffff81001080 D alpha_ops\n"
	"ffffffff810010c0 b alpha_count\n"
	"ffffffff81001100 t beta\n"             /* static text bounds alpha */
	"ffffffff81001180 D beta_data\n"
	"ffffffff81001200 T gamma\n"
	"ffffffff81001200 T gamma_alias\n"      /* same address: no bound */
	"ffffffff81001260 T delta\n"
	"ffffffffc0a01000 t mod_open\t[fakemod]\n"
	"ffffffffc0a01300 t mod_close\t[fakemod]\n"
	"ffffffffc0a01340 d mod_state\t[fakemod]\n";

static void range_ends_at_the_next_text_symbol(void **state)
{
	struct ksym_range r[] = { { .name = "alpha" }, { .name = "beta" }, { .name = "gamma" } };
	const char *path = fake_kallsyms(state, sample);

	assert_int_equal(ksyms_resolve(path, r, 3), 0);
	/* alpha: d, D and b symbols in between are not bounds; beta (t) is */
	assert_int_equal(r[0].lo, 0xffffffff81001000ULL);
	assert_int_equal(r[0].len, 0x100);
	/* beta: bounded by gamma (T), not by beta_data (D) */
	assert_int_equal(r[1].lo, 0xffffffff81001100ULL);
	assert_int_equal(r[1].len, 0x100);
	/* gamma: its alias at the same address is no bound, delta is */
	assert_int_equal(r[2].lo, 0xffffffff81001200ULL);
	assert_int_equal(r[2].len, 0x60);
}

static void module_symbols_with_a_module_column_resolve(void **state)
{
	struct ksym_range r[] = { { .name = "mod_open" }, { .name = "mod_close" } };
	const char *path = fake_kallsyms(state, sample);

	assert_int_equal(ksyms_resolve(path, r, 2), 0);
	assert_int_equal(r[0].lo, 0xffffffffc0a01000ULL);
	assert_int_equal(r[0].len, 0x300);
	/* the last text symbol has no next one: found, but no length */
	assert_int_equal(r[1].lo, 0xffffffffc0a01300ULL);
	assert_int_equal(r[1].len, 0);
}

static void unknown_name_keeps_lo_zero(void **state)
{
	struct ksym_range r[] = {
		{ .name = "no_such_function", .lo = 123, .len = 456 }, /* reset, not kept */
		{ .name = "alpha_table" }, /* a data symbol is no function */
		{ .name = "alph" },        /* no prefix match */
		{ .name = "alpha" },
	};
	const char *path = fake_kallsyms(state, sample);

	assert_int_equal(ksyms_resolve(path, r, 4), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].lo, 0);
		assert_int_equal(r[i].len, 0);
	}
	assert_int_equal(r[3].lo, 0xffffffff81001000ULL);
}

/* arm64's _etext is a data symbol: found where asked for, never a function's bound. */
static void a_data_symbol_resolves_where_any_type_asks_for_it(void **state)
{
	struct ksym_range r[] = {
		{ .name = "alpha_table", .any_type = true },
		{ .name = "alpha" },
	};
	const char *path = fake_kallsyms(state, sample);

	assert_int_equal(ksyms_resolve(path, r, 2), 0);
	assert_int_equal(r[0].lo, 0xffffffff81001040ULL);
	assert_int_equal(r[1].lo, 0xffffffff81001000ULL);
	assert_int_equal(r[1].len, 0x100); /* beta bounds alpha, not the table */
}

static void bound_is_the_nearest_text_symbol_whatever_the_line_order(void **state)
{
	static const char shuffled[] =
		"ffffffff81003000 T far\n"
		"ffffffff81001000 T target\n"
		"ffffffff81000800 T below\n"
		"ffffffff81001010 d target_data\n"
		"ffffffff81001400 t near\n"
		"ffffffff81002000 T middle\n";
	struct ksym_range r = { .name = "target" };
	const char *path = fake_kallsyms(state, shuffled);

	assert_int_equal(ksyms_resolve(path, &r, 1), 0);
	assert_int_equal(r.lo, 0xffffffff81001000ULL);
	assert_int_equal(r.len, 0x400);
}

static void first_text_definition_of_a_name_wins(void **state)
{
	static const char twice[] =
		"ffffffff81000100 D dup\n"             /* data of that name: skipped */
		"ffffffff81001000 t dup\n"
		"ffffffff81001100 T after_first\n"
		"ffffffffc0001000 t dup\t[othermod]\n"
		"ffffffffc0001800 t after_second\t[othermod]\n";
	struct ksym_range r = { .name = "dup" };
	const char *path = fake_kallsyms(state, twice);

	assert_int_equal(ksyms_resolve(path, &r, 1), 0);
	assert_int_equal(r.lo, 0xffffffff81001000ULL);
	assert_int_equal(r.len, 0x100);
}

static void all_zero_addresses_give_eperm(void **state)
{
	/* What a non-root reader sees with kptr_restrict set. */
	static const char hidden[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 T alpha\n"
		"0000000000000000 d alpha_table\n"
		"0000000000000000 t beta\n";
	struct ksym_range r = { .name = "alpha", .lo = 1, .len = 1 };
	const char *path = fake_kallsyms(state, hidden);

	assert_int_equal(ksyms_resolve(path, &r, 1), -EPERM);
	assert_int_equal(r.lo, 0);
}

static void missing_file_gives_enoent(void **state)
{
	struct ksym_range r = { .name = "alpha" };

	(void)state;
	assert_int_equal(ksyms_resolve("/nonexistent/permscope-test/kallsyms", &r, 1), -ENOENT);
}

/*
 * Weak functions ('W' in /proc/kallsyms, about 300 on x86_64) are text:
 * they bound the function before them and can be resolved themselves, or
 * call sites inside them would be counted as the neighbour's in tracepoint
 * mode.
 */
static void weak_function_symbols_bound_and_resolve(void **state)
{
	static const char weak[] =
		"ffffffff81001000 T alpha\n"
		"ffffffff81001100 W weak_hook\n"
		"ffffffff81001200 T omega\n";
	struct ksym_range r[] = { { .name = "alpha" }, { .name = "weak_hook" } };
	const char *path = fake_kallsyms(state, weak);

	assert_int_equal(ksyms_resolve(path, r, 2), 0);
	if (r[0].len != 0x100 || r[1].lo == 0)
		print_message("'W' not text: alpha len 0x%llx, "
			      "weak_hook lo 0x%llx\n", (unsigned long long)r[0].len,
			      (unsigned long long)r[1].lo);
	assert_int_equal(r[0].len, 0x100);
	assert_int_equal(r[1].lo, 0xffffffff81001100ULL);
	assert_int_equal(r[1].len, 0x100);
}

/*
 * The lines are split by hand: a last line with no newline counts, a line
 * too long for a kernel's (over 64 KiB) and lines that are not
 * "ADDR TYPE NAME" are skipped without their neighbours, and a name is
 * matched whole (up to a tab, a space or the line's end).
 */
static void lines_split_by_hand_skip_what_is_not_a_symbol(void **state)
{
	static const char head[] =
		"ffffffff81000000 T first\n"
		"ffffffff81000100 T after_long\n"
		"zzzz T bad_address\n"
		"11112222333344445 T seventeen_digits\n"
		"ffffffff81000140 Tno_blank\n"
		"ffffffff81000180\n"
		"ffffffff810001c0 T\n"
		"ffffffff81000200 T  two_blanks\n"
		"ffffffff81000240 T prefix_of_a_longer_name\n"
		"ffffffff81000300 T ";
	static const char tail[] = " long_line\n"
		"ffffffff81000400 t last_without_newline";
	struct ksym_range r[] = {
		{ .name = "first" }, { .name = "long_line" }, { .name = "bad_address" },
		{ .name = "seventeen_digits" }, { .name = "no_blank" }, { .name = "two_blanks" },
		{ .name = "prefix_of_a" }, { .name = "last_without_newline" },
	};
	size_t pad = 70000, hl = strlen(head), tl = strlen(tail);
	char *text = malloc(hl + pad + tl + 1);
	const char *path;

	assert_non_null(text);
	memcpy(text, head, hl);
	memset(text + hl, 'x', pad);
	memcpy(text + hl + pad, tail, tl + 1);
	path = fake_kallsyms(state, text);
	free(text);
	assert_int_equal(ksyms_resolve(path, r, 8), 0);
	/* bounded by after_long: the malformed lines in between are no bounds */
	assert_int_equal(r[0].lo, 0xffffffff81000000ULL);
	assert_int_equal(r[0].len, 0x100);
	for (int i = 1; i < 8; i++)
		if (i != 5 && i != 7)
			assert_int_equal(r[i].lo, 0);
	assert_int_equal(r[5].lo, 0xffffffff81000200ULL);
	assert_int_equal(r[7].lo, 0xffffffff81000400ULL);
	assert_int_equal(r[7].len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(range_ends_at_the_next_text_symbol, remove_fake),
		cmocka_unit_test_teardown(module_symbols_with_a_module_column_resolve, remove_fake),
		cmocka_unit_test_teardown(unknown_name_keeps_lo_zero, remove_fake),
		cmocka_unit_test_teardown(a_data_symbol_resolves_where_any_type_asks_for_it, remove_fake),
		cmocka_unit_test_teardown(bound_is_the_nearest_text_symbol_whatever_the_line_order,
					  remove_fake),
		cmocka_unit_test_teardown(first_text_definition_of_a_name_wins, remove_fake),
		cmocka_unit_test_teardown(all_zero_addresses_give_eperm, remove_fake),
		cmocka_unit_test(missing_file_gives_enoent),
		cmocka_unit_test_teardown(weak_function_symbols_bound_and_resolve, remove_fake),
		cmocka_unit_test_teardown(lines_split_by_hand_skip_what_is_not_a_symbol, remove_fake),
	};

	return cmocka_run_group_tests_name("ksyms", tests, NULL, NULL);
}
