// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench-vm's figures (src/bench/vmfigures.c, `permscope bench
 * --vm-results DIR`): from a results directory whose totals are chosen so
 * that every figure is known by hand, each per-call figure, the per-mode
 * table with its floors, the steps and the daemon's slowdowns, in text and
 * JSON; a line that is not NAME NUMBER [NUMBER] is refused by its number.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>

#include "testutil.h"
#include "bench/vmfigures.h"

/*
 * 1000 access() calls, 10 failing execve()s: access's floor is 200 a call,
 * its steps 230, 330 and 500, the whole 650 and --lean 500; exec 400; the
 * daemon's stat() loop 5,000 instructions a call with none, 10,000 always
 * on, 5,050 with its default.
 */
static const char results[] =
	"accesses 1000\n"
	"access-none 100000\n"
	"access-empty-fentry 300000\n"
	"access-step1-fentry 330000\n"
	"access-step2-fentry 430000\n"
	"access-step3-fentry 600000\n"
	"access-fentry 750000\n"
	"access-lean-fentry 600000\n"
	"\n"
	"execs 10\n"
	"exec-none 5000\n"
	"exec-fentry 9000\n"
	"daemon-stat-none 100 500000\n"
	"daemon-stat-always 100 1000000\n"
	"daemon-stat-default 100 505000\n";

static const char *results_dir(const char *name, const char *overhead, const char *err)
{
	char path[64];
	const char *dir = tmp_path(name);

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/overhead.txt", name);
	write_tmp_file(path, overhead);
	if (err) {
		snprintf(path, sizeof(path), "%s/daemon-default.err", name);
		write_tmp_file(path, err);
	}
	return dir;
}

static void every_figure_is_computed_from_the_totals(void **state)
{
	const char *dir = results_dir("r", results, "permscope: listening on 127.0.0.1:9479\n"
				      "permscope: counting 0.2 s in every 30 s: lookup, access\n");
	char dirbuf[PATH_MAX];

	(void)state;
	snprintf(dirbuf, sizeof(dirbuf), "%s", dir);
	if (permscope("bench", "--vm-results", dirbuf, NULL) != 0)
		fail_msg("%s", err_text);
	assert_contains(out_text, "  access-empty-fentry             200 instructions per access() call\n");
	assert_contains(out_text, "  access-step3-fentry             500 instructions per access() call\n");
	assert_contains(out_text, "  exec-fentry                     400 instructions per failing execve()\n");
	assert_contains(out_text, "  access             650 (200)");
	assert_contains(out_text, "  access --lean      500 (200)");
	assert_contains(out_text, "  exec               400              -");
	assert_contains(out_text, "  access fentry               200     +30     +100    +170    +150    450\n");
	assert_contains(out_text, "default: 0.2 s in every 30 s");
	assert_contains(out_text, "  stat(), 6-deep tmpfs path  5000       10000 (+100.0%)      5050 (+1.0%)\n");
	/* the baselines and the counts are no configurations */
	assert_not_contains(out_text, "access-none ");
	assert_not_contains(out_text, "accesses ");

	assert_int_equal(permscope("bench", "--vm-results", dirbuf, "--json", NULL), 0);
	{
		json_t *root = json_loads(out_text, 0, NULL), *per, *stat;

		assert_non_null(root);
		per = json_object_get(root, "instructions_per_call");
		assert_true(json_real_value(json_object_get(per, "access-lean-fentry")) == 500);
		assert_true(json_real_value(json_object_get(per, "exec-fentry")) == 400);
		assert_null(json_object_get(per, "access-none"));
		stat = json_object_get(json_object_get(root, "daemon"), "stat");
		assert_true(json_real_value(json_object_get(stat, "always_slowdown")) == 2.0);
		assert_true(fabs(json_real_value(json_object_get(stat, "default_slowdown")) - 1.01) < 1e-9);
		assert_string_equal(json_string_value(json_object_get(json_object_get(root, "daemon"),
								      "default_cycle")),
				    "0.2 s in every 30 s");
		assert_true(json_is_null(json_object_get(json_object_get(root, "default_mode"),
							 "lookup")));
		json_decref(root);
	}
}

static void a_line_that_is_no_total_is_refused_by_its_number(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "none 5\nfoo\n", "line 2: expected NAME NUMBER" },
		{ "Foo 1\n", "line 1: expected NAME NUMBER" },
		{ "x 1 2 3\n", "line 1: something after the numbers" },
		{ "x -1\n", "line 1: expected NAME NUMBER" },
		{ "x 99999999999999999999999\n", "line 1: expected NAME NUMBER" },
		{ "x 1 y\n", "line 1: the second number is not a whole number" },
		{ "x 1\t\n", "line 1: something after the numbers" },
		{ "none 5\nx 1\nnone 6\n", "line 3: none a second time" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1\n", "longer than 47 bytes" },
	};
	static struct vmfigures f;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(vmfigures_parse(bad[i].text, strlen(bad[i].text), &f, err,
						 sizeof(err)), -1);
		assert_contains(err, bad[i].why);
	}
	/* bounded: a line more than the table holds is refused, not grown into */
	{
		size_t n = (VMFIG_MAX_LINES + 1) * 8; /* "a0000 1\n": each name its own */
		char *many = malloc(n + 1);

		assert_non_null(many);
		for (size_t i = 0; i < VMFIG_MAX_LINES + 1; i++)
			snprintf(many + 8 * i, 9, "a%04zu 1\n", i);
		assert_int_equal(vmfigures_parse(many, n, &f, err, sizeof(err)), -1);
		assert_contains(err, "more than 1024 lines");
		free(many);
	}
	/* the command: exit 2, the file and the line named */
	{
		char dirbuf[PATH_MAX];

		snprintf(dirbuf, sizeof(dirbuf), "%s", results_dir("bad", "none x\n", NULL));
		assert_int_equal(permscope("bench", "--vm-results", dirbuf, NULL), 2);
		assert_contains(err_text, "overhead.txt: line 1: expected NAME NUMBER");
		assert_int_equal(permscope("bench", "--vm-results", tmp_path("nowhere"), NULL), 2);
		assert_contains(err_text, "overhead.txt");
		assert_int_equal(permscope("bench", "--vm-results", dirbuf, "access1", NULL), 2);
		assert_contains(err_text, "--vm-results runs nothing");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_figure_is_computed_from_the_totals),
		cmocka_unit_test(a_line_that_is_no_total_is_refused_by_its_number),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
