// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope bench: the harness counts exactly what its workers did, as
 * processes and as threads; runs pair up fast and slow; bad options are bad
 * usage; the JSON document loads.  Never a speed: the runs are a fraction of
 * a second and only what was counted is asserted.  Needs no privileges (the
 * capability-clearing --slow of access1/access2 is in tests/live).
 */
#include <jansson.h>
#include <math.h>

#include "testutil.h"

#include "bench/bench.h"
#include "metrics.h"
#include "bench/overhead.h"
#include "profile.h"

/* With --loops, every worker does exactly `loops` operations: workers x loops are counted. */
static void check_counts(enum bench_id id, int workers, bool threads, long loops, int runs,
			 int measured)
{
	struct bench_config cfg = { .workers = workers, .threads = threads, .duration = 1,
				    .runs = runs, .loops = loops };
	struct bench_result res;
	char err[PATH_MAX + 256];

	if (bench_run(id, &cfg, &res, err, sizeof(err)))
		fail_msg("%s: %s", bench_defs[id].name, err);
	assert_int_equal(res.nruns, runs);
	for (int i = 0; i < res.nruns; i++) {
		assert_int_equal(res.runs[i].variant, VARIANT_FAST);
		assert_int_equal(res.runs[i].nworkers, measured);
		assert_int_equal(res.runs[i].ops, (uint64_t)measured * loops);
	}
	bench_result_free(&res);
}

static void workers_times_loops_operations_are_counted_in_processes(void **state)
{
	(void)state;
	check_counts(BENCH_ACCESS1, 1, false, 1000, 2, 1);
	check_counts(BENCH_ACCESS1, 3, false, 777, 2, 3);
	check_counts(BENCH_ACCESS2, 3, false, 500, 1, 3);
	check_counts(BENCH_STAT_PATH, 2, false, 300, 2, 2);
}

static void workers_times_loops_operations_are_counted_in_threads(void **state)
{
	(void)state;
	check_counts(BENCH_ACCESS1, 4, true, 1000, 2, 4);
	check_counts(BENCH_ACCESS2, 3, true, 999, 1, 3);
	check_counts(BENCH_STAT_PATH, 2, true, 300, 2, 2);
}

/* cred-bounce's opener is worker 0 and not counted; exec-path is one worker, a pair an op. */
static void cred_bounce_counts_its_readers_and_exec_path_its_pairs(void **state)
{
	(void)state;
	check_counts(BENCH_CRED_BOUNCE, 3, true, 400, 2, 2);
	check_counts(BENCH_CRED_BOUNCE, 2, false, 400, 1, 1); /* threads all the same */
	check_counts(BENCH_EXEC_PATH, 0, false, 20, 2, 1);
}

/* A timed run: something counted, the per-worker rates add up to the total. */
static void a_timed_run_reports_total_and_per_worker_rates(void **state)
{
	struct bench_config cfg = { .workers = 2, .threads = true, .duration = 0.05, .runs = 2 };
	struct bench_result res;
	char err[PATH_MAX + 256];

	(void)state;
	if (bench_run(BENCH_ACCESS2, &cfg, &res, err, sizeof(err)))
		fail_msg("access2: %s", err);
	assert_int_equal(res.nruns, 2);
	for (int i = 0; i < res.nruns; i++) {
		double sum = 0;

		assert_true(res.runs[i].ops > 0);
		assert_true(res.runs[i].secs >= 0.05);
		for (int w = 0; w < res.runs[i].nworkers; w++)
			sum += res.runs[i].worker_ops_per_s[w];
		assert_true(fabs(sum - res.runs[i].ops_per_s) <= 1e-6 * res.runs[i].ops_per_s);
	}
	bench_result_free(&res);
}

/* stat-path --slow needs an ACL on a private directory, not root: fast and slow alternate. */
static void stat_path_slow_runs_interleave_with_fast_ones(void **state)
{
	struct bench_config cfg = { .workers = 1, .duration = 1, .runs = 3, .loops = 200,
				    .slow = true };
	struct bench_result res;
	struct bench_summary s;
	char err[PATH_MAX + 256];

	(void)state;
	if (bench_run(BENCH_STAT_PATH, &cfg, &res, err, sizeof(err)))
		fail_msg("stat-path: %s", err);
	if (*res.slow_skipped) {
		bench_result_free(&res);
		skip(); /* a TMPDIR without ACLs: said in slow_skipped */
	}
	assert_int_equal(res.nruns, 6);
	for (int i = 0; i < res.nruns; i++) {
		assert_int_equal(res.runs[i].variant, i % 2 ? VARIANT_SLOW : VARIANT_FAST);
		assert_int_equal(res.runs[i].ops, 200);
	}
	assert_non_null(strstr(res.slow_how, "POSIX ACL"));
	bench_summarize(&res, &s);
	assert_int_equal(s.npairs, 3);
	assert_int_equal(s.fast.n, 3);
	assert_int_equal(s.slow.n, 3);
	assert_true(s.compared);
	bench_result_free(&res);
}

static void the_median_of_an_even_count_is_the_mean_of_the_middle_two(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(median_of(odd, 3) == 3);
	assert_true(median_of(even, 4) == 2.5);
	assert_true(median_of(NULL, 0) == 0);
}

static void bad_bench_options_are_bad_usage(void **state)
{
	static const char *const bad[][6] = {
		{ NULL },
		{ "nosuch", NULL },
		{ "access1", "--procs", "2", "--threads", "2", NULL },
		{ "access1", "--procs", "0", NULL },
		{ "access1", "--duration", "0", NULL },
		{ "access1", "--duration", "x", NULL },
		{ "access1", "--runs", "-1", NULL },
		{ "access1", "--loops", "0", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[8] = { (char *)permscope_bin(), "bench" };
		int n = 2;

		for (int k = 0; k < 6 && bad[i][k]; k++)
			argv[n++] = (char *)bad[i][k];
		argv[n] = NULL;
		assert_int_equal(run_capture(argv), 2);
		assert_true(!strncmp(err_text, "Error: ", 7));
		assert_contains(err_text, "; see 'permscope bench --help'\n");
	}
	assert_int_equal(permscope("bench", "nosuch", NULL), 2);
	assert_contains(err_text, "unknown benchmark 'nosuch' (access1, access2, stat-path, "
			"exec-path, cred-bounce or all)");
	assert_int_equal(permscope("bench", "access1", "--procs", "2", "--threads", "2", NULL), 2);
	assert_contains(err_text, "--procs and --threads exclude each other");
}

/* --overhead compares probed with unprobed runs of the fast path, timed: nothing else. */
static void overhead_with_slow_or_loops_is_bad_usage(void **state)
{
	(void)state;
	assert_int_equal(permscope("bench", "access1", "--overhead", "--slow", NULL), 2);
	assert_contains(err_text, "--overhead and --slow exclude each other");
	assert_int_equal(permscope("bench", "access1", "--slow", "--overhead", NULL), 2);
	assert_contains(err_text, "--overhead and --slow exclude each other");
	assert_int_equal(permscope("bench", "exec-path", "--overhead", "--loops", "5", NULL), 2);
	assert_contains(err_text, "--overhead measures rates: it takes --duration, not --loops");
	assert_int_equal(permscope("bench", "--overhead", NULL), 2);
	assert_contains(err_text, "name a benchmark");
}

/*
 * A round's slowdown is unprobed over probed ops per CPU second, written as
 * bench.NAME.overhead_CONF for gate; a configuration not measured writes
 * nothing, and the summary's median and range are over the pairs.
 */
static void overhead_metrics_are_the_cpu_slowdown_of_each_round(void **state)
{
	struct ovh_pair access_pairs[] = { { 1000, 800, 990, 700 }, { 1100, 1000, 1000, 950 },
					  { 900, 600, 900, 500 } };
	struct ovh_pair all_pairs[] = { { 1000, 500, 1000, 400 }, { 1000, 400, 1000, 500 },
				       { 1000, 250, 1000, 300 } };
	struct ovh_result res = { .id = BENCH_EXEC_PATH, .nconf = 3 };
	struct ovh_summary s;
	struct metric_list l = { 0 };
	const struct metric *m;

	(void)state;
	res.conf[0] = (struct ovh_conf){ .kind = OVH_FAMILY, .name = "access", .available = true,
					 .pairs = access_pairs, .npairs = 3 };
	res.conf[1] = (struct ovh_conf){ .kind = OVH_FAMILY, .name = "lookup" };
	res.conf[2] = (struct ovh_conf){ .kind = OVH_ALL, .name = "all", .available = true,
					 .pairs = all_pairs, .npairs = 3 };
	assert_true(overhead_ratio(&access_pairs[0], false) == 1.25);
	assert_true(fabs(overhead_ratio(&access_pairs[0], true) - 990.0 / 700) < 1e-12);
	assert_true(overhead_ratio(&(struct ovh_pair){ 1000, 0, 1000, 0 }, false) == 0);

	assert_int_equal(overhead_run_metrics(&res, 2, &l), 0);
	assert_int_equal(l.n, 2);
	m = metrics_find(&l, "bench.exec_path.overhead_access");
	assert_non_null(m);
	assert_true(m->value == 1.5);
	m = metrics_find(&l, "bench.exec_path.overhead_all");
	assert_non_null(m);
	assert_true(m->value == 4);
	assert_null(metrics_find(&l, "bench.exec_path.overhead_lookup"));
	for (size_t i = 0; i < l.n; i++)
		assert_true(metric_name_valid(l.m[i].name));
	assert_true(metric_name_valid("bench.access1.overhead_bpftrace"));
	assert_true(metric_name_valid("bench.stat_path.overhead_lookup"));
	metrics_free(&l);

	overhead_summarize(&res.conf[2], &s);
	assert_int_equal(s.n, 3);
	assert_true(s.cpu_median == 2.5 && s.cpu_min == 2 && s.cpu_max == 4);
	assert_true(s.wall_median == 2.5 && s.wall_min == 2 && s.wall_max == 10.0 / 3);
	/* mean unprobed 1000, mean probed 383.3: +160.9% slower */
	assert_true(s.compared);
	assert_true(fabs(s.cost.pct - 100 * (1000 - 1150.0 / 3) / (1150.0 / 3)) < 1e-9);
	assert_true(s.cost.lo < s.cost.pct && s.cost.pct < s.cost.hi);
	overhead_summarize(&res.conf[1], &s);
	assert_int_equal(s.n, 0);
	assert_false(s.compared);
}

/* The JSON printed loads, with what each run counted. */
static void json_output_loads_with_every_run_counted(void **state)
{
	json_t *doc, *b, *runs;
	json_error_t jerr;
	size_t i;

	(void)state;
	assert_int_equal(permscope("bench", "access1", "cred-bounce", "--threads", "3", "--loops",
				   "250", "--runs", "2", "-j", NULL), 0);
	doc = json_loads(out_text, 0, &jerr);
	if (!doc)
		fail_msg("bench -j: %s at line %d", jerr.text, jerr.line);
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "permscope-bench/1");
	assert_non_null(json_string_value(json_object_get(doc, "kernel_release")));
	assert_int_equal(json_array_size(json_object_get(doc, "benchmarks")), 2);
	json_array_foreach(json_object_get(doc, "benchmarks"), i, b) {
		json_int_t readers = i ? 2 : 3; /* cred-bounce: the opener is not counted */
		json_t *r;
		size_t k;

		assert_string_equal(json_string_value(json_object_get(b, "name")),
				    i ? "cred-bounce" : "access1");
		assert_string_equal(json_string_value(json_object_get(b, "worker_kind")), "threads");
		runs = json_object_get(b, "runs");
		assert_int_equal(json_array_size(runs), 2);
		json_array_foreach(runs, k, r) {
			assert_int_equal(json_integer_value(json_object_get(r, "ops")), readers * 250);
			assert_int_equal(json_array_size(json_object_get(r, "worker_ops_per_s")), readers);
		}
		assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
			b, "summary"), "ops_per_s"), "n")), 2);
	}
	json_decref(doc);
}

/*
 * -o writes a profile of runs: no family recorded, each measured run's
 * bench.* metrics, which compare shows with mean±sd and gate judges.
 */
static void output_file_is_a_profile_compare_and_gate_read(void **state)
{
	const char *base = tmp_path("bench-base.json"), *new = tmp_path("bench-new.json");
	const char *rules = write_tmp_file("bench.rules",
		"bench.stat_path.ops_per_s > 0\n"
		"bench.stat_path.fast_path_gain > -100\n"
		"bench.exec_path.failed_lookups_ns > -1e9\n");
	struct profile p;
	char err[512];
	double *v;

	(void)state;
	assert_int_equal(permscope("bench", "stat-path", "exec-path", "--slow", "--loops", "50",
				   "--runs", "3", "-q", "-o", base, NULL), 0);
	assert_int_equal(permscope("bench", "stat-path", "exec-path", "--slow", "--loops", "50",
				   "--runs", "2", "-q", "-o", new, NULL), 0);
	if (profile_read(base, &p, err, sizeof(err)))
		fail_msg("%s: %s", base, err);
	assert_int_equal(p.nruns, 3);
	for (int f = 0; f < FAMILY_COUNT; f++)
		assert_int_equal(p.fam[f].status, FAMILY_NOT_REQUESTED);
	assert_int_equal(metric_samples(&p, "bench.stat_path.ops_per_s", &v), 3);
	free(v);
	assert_int_equal(metric_samples(&p, "bench.exec_path.path_median_ns", &v), 3);
	free(v);
	profile_free(&p);

	assert_int_equal(permscope("compare", base, new, NULL), 0);
	assert_contains(out_text, "Benchmarks (permscope bench)");
	assert_contains(out_text, "  stat_path.ops_per_s ");
	assert_contains(out_text, "  exec_path.failed_lookups_ns ");
	assert_contains(out_text, "3 runs");
	assert_int_equal(permscope("compare", base, new, "-j", NULL), 0);
	assert_contains(out_text, "\"benchmarks\": [");
	assert_contains(out_text, "\"name\": \"bench.stat_path.ops_per_s\"");
	/* a TMPDIR without ACLs has no slow runs, and then gate has no verdict on the gain */
	assert_in_set(permscope("gate", "-b", base, "-n", new, "-r", rules, NULL),
		      ((uintmax_t[]){ 0, 3 }), 2);
	assert_contains(out_text, "PASS  bench.stat_path.ops_per_s ");
	assert_contains(out_text, "PASS  bench.exec_path.failed_lookups_ns ");
}

/* Text: a line per run and the summary; no --slow figures without --slow. */
static void text_output_has_a_line_per_run_and_a_summary(void **state)
{
	(void)state;
	assert_int_equal(permscope("bench", "access2", "--duration", "0.05", "--runs", "2", "-q",
				   NULL), 0);
	assert_contains(out_text, "access2: every worker access()es the same file (faccessat cred "
			"override)");
	assert_contains(out_text, "\n    1  fast ");
	assert_contains(out_text, "\n    2  fast ");
	assert_contains(out_text, "  fast: ");
	assert_not_contains(out_text, "fast path worth");
	assert_int_equal(permscope("bench", "exec-path", "--loops", "5", "--runs", "1", "-q", NULL), 0);
	assert_contains(out_text, "the 6 failed lookups cost ");
}

/*
 * tests/vm/overhead-plan.sh measures bpftrace's one-liners in the VM: they
 * must be the very scripts `bench --overhead` runs here.
 */
static void the_vm_plan_runs_the_same_bpftrace_scripts(void **state)
{
	char *plan = slurp("tests/vm/overhead-plan.sh", NULL), *want;

	(void)state;
	assert_non_null(plan);
	assert_true(asprintf(&want, "BT_LOOKUP='%s'", overhead_bpftrace_script(BENCH_STAT_PATH)) > 0);
	assert_contains(plan, want);
	free(want);
	assert_true(asprintf(&want, "BT_ACCESS='%s'", overhead_bpftrace_script(BENCH_ACCESS1)) > 0);
	assert_contains(plan, want);
	free(want);
	free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(workers_times_loops_operations_are_counted_in_processes),
		cmocka_unit_test(workers_times_loops_operations_are_counted_in_threads),
		cmocka_unit_test(cred_bounce_counts_its_readers_and_exec_path_its_pairs),
		cmocka_unit_test(a_timed_run_reports_total_and_per_worker_rates),
		cmocka_unit_test(stat_path_slow_runs_interleave_with_fast_ones),
		cmocka_unit_test(the_median_of_an_even_count_is_the_mean_of_the_middle_two),
		cmocka_unit_test(bad_bench_options_are_bad_usage),
		cmocka_unit_test(overhead_with_slow_or_loops_is_bad_usage),
		cmocka_unit_test(overhead_metrics_are_the_cpu_slowdown_of_each_round),
		cmocka_unit_test(json_output_loads_with_every_run_counted),
		cmocka_unit_test(output_file_is_a_profile_compare_and_gate_read),
		cmocka_unit_test(text_output_has_a_line_per_run_and_a_summary),
		cmocka_unit_test(the_vm_plan_runs_the_same_bpftrace_scripts),
	};

	return cmocka_run_group_tests_name("bench", tests, tmpdir_setup, tmpdir_teardown);
}
