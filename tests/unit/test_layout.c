// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make check-layout (tests/check-layout) on a copy of src/: the tree as
 * it is passes, and each kind of breach planted in the copy fails it,
 * named by file, line and rule: an include of a higher-ranked folder, one
 * between the siblings kernel/ and prom/, one of cmd/ from outside it,
 * and an include circle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

static char copy[PATH_MAX], script[PATH_MAX];

/* A fresh copy of src/ in the scratch directory. */
static void fresh_copy(void)
{
	char from[PATH_MAX + 8];
	char *rm[] = { "/bin/rm", "-rf", copy, NULL };
	char *cp[] = { "/bin/cp", "-a", from, copy, NULL };

	snprintf(from, sizeof(from), "%s/src", source_dir());
	assert_int_equal(run_to(rm, NULL, NULL), 0);
	assert_int_equal(run_to(cp, NULL, NULL), 0);
}

/* Adds LINE at the end of FILE (in the copy) and runs the check: its exit status. */
static int plant(const char *file, const char *line)
{
	char path[PATH_MAX + 64];
	char *argv[] = { script, copy, NULL };
	FILE *f;
	int rc;

	if (file) {
		snprintf(path, sizeof(path), "%s/%s", copy, file);
		f = fopen(path, "a");
		assert_non_null(f);
		fprintf(f, "%s\n", line);
		fclose(f);
	}
	rc = run_capture(argv);
	print_message("%s%s", out_text, err_text);
	return rc;
}

static int setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	snprintf(copy, sizeof(copy), "%s", tmp_path("src"));
	snprintf(script, sizeof(script), "%s/tests/check-layout", source_dir());
	return 0;
}

static void the_tree_as_it_is_passes(void **state)
{
	(void)state;
	fresh_copy();
	assert_int_equal(plant(NULL, NULL), 0);
	assert_contains(out_text, "every include within its layer's rank");
}

static void an_include_of_a_higher_rank_is_named(void **state)
{
	(void)state;
	fresh_copy();
	assert_int_equal(plant("prom/prom.c", "#include \"run/record.h\""), 1);
	assert_contains(err_text, "check-layout: src/prom/prom.c:");
	assert_contains(err_text, "includes src/run/record.h: prom/ (rank 1) may not include "
			"run/ (rank 3)");
	fresh_copy();
	assert_int_equal(plant("profile.h", "#include \"kernel/ksyms.h\""), 1);
	assert_contains(err_text, "src/profile.h:");
	assert_contains(err_text, "core/ (rank 0) may not include kernel/ (rank 1)");
}

static void siblings_never_include_each_other(void **state)
{
	(void)state;
	fresh_copy();
	assert_int_equal(plant("kernel/ksyms.c", "#include \"prom/prom.h\""), 1);
	assert_contains(err_text, "includes src/prom/prom.h: kernel/ and prom/ are siblings");
}

static void nothing_outside_cmd_includes_it(void **state)
{
	(void)state;
	fresh_copy();
	assert_int_equal(plant("bench/bench.c", "#include \"cmd/commands.h\""), 1);
	assert_contains(err_text, "src/bench/bench.c:");
	assert_contains(err_text, "nothing outside cmd/ includes the command layer");
}

static void an_include_circle_is_named(void **state)
{
	(void)state;
	fresh_copy();
	/* hist.h is included by stats.c: stats.h back in hist.c closes a loop */
	assert_int_equal(plant("hist.c", "#include \"stats.h\""), 1);
	assert_contains(err_text, "include circle");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_tree_as_it_is_passes),
		cmocka_unit_test(an_include_of_a_higher_rank_is_named),
		cmocka_unit_test(siblings_never_include_each_other),
		cmocka_unit_test(nothing_outside_cmd_includes_it),
		cmocka_unit_test(an_include_circle_is_named),
	};

	return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
