// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope bench --slow on this kernel, as root: the access benchmarks'
 * slow runs clear a capability from the effective set and pair with fast
 * ones, and, recorded with the access family, the slow workers' calls are
 * exactly the ones that take the cred override (the positive control that
 * "slow" is slow for the reason the benchmark claims).  Asserts counts,
 * never a speed.
 */
#include "testutil.h"

#include "bench.h"
#include "profile.h"

static void access_slow_runs_clear_a_capability_and_pair_with_fast_ones(void **state)
{
	struct bench_config cfg = { .workers = 2, .duration = 1, .runs = 2, .loops = 500,
				    .slow = true };
	char err[PATH_MAX + 256];

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: not root: no effective capability to clear\n");
		skip();
	}
	for (int threads = 0; threads < 2; threads++)
		for (int id = BENCH_ACCESS1; id <= BENCH_ACCESS2; id++) {
			struct bench_result res;

			cfg.threads = threads;
			if (bench_run(id, &cfg, &res, err, sizeof(err)))
				fail_msg("%s: %s", bench_defs[id].name, err);
			assert_string_equal(res.slow_skipped, "");
			assert_non_null(strstr(res.slow_how, "cleared from the effective set"));
			assert_int_equal(res.nruns, 4);
			for (int i = 0; i < res.nruns; i++) {
				assert_int_equal(res.runs[i].variant, i % 2 ? VARIANT_SLOW : VARIANT_FAST);
				assert_int_equal(res.runs[i].ops, 1000);
			}
			bench_result_free(&res);
		}
	/* the capability is cleared in the workers only */
	assert_int_equal(access("/", R_OK), 0);
}

static void slow_access_runs_take_the_cred_override_and_fast_ones_do_not(void **state)
{
	char why[256], out[PATH_MAX], perr[512];
	char *argv[] = { (char *)permscope_bin(), "record", "-q", "--families", "access", "-o", out,
			 "--", (char *)permscope_bin(), "bench", "access1", "--slow", "--loops",
			 "1000", "--runs", "1", "-q", NULL };
	struct profile p;

	(void)state;
	if (live_skip_reason(why, sizeof(why), permscope_bin()))
		fail_msg("cannot make a scratch directory");
	if (why[0]) {
		print_message("skipped: %s\n", why);
		skip();
	}
	snprintf(out, sizeof(out), "%s/bench-access.json", tmpdir);
	if (run_capture(argv)) {
		print_message("%s", err_text);
		fail_msg("permscope record -- permscope bench failed");
	}
	if (profile_read(out, &p, perr, sizeof(perr)))
		fail_msg("%s: %s", out, perr);
	if (p.fam[FAMILY_ACCESS].status != FAMILY_OK) {
		profile_free(&p);
		print_message("skipped: the access family cannot attach here\n");
		skip();
	}
	print_message("fast %llu needed %llu avoidable %llu unsafe %llu\n",
		      (unsigned long long)p.access.calls[ACCESS_FAST],
		      (unsigned long long)p.access.calls[ACCESS_NEEDED],
		      (unsigned long long)p.access.calls[ACCESS_AVOIDABLE],
		      (unsigned long long)p.access.calls[ACCESS_UNSAFE]);
	/* the slow worker's 1000 calls, and only they, needed an override cred */
	assert_int_equal(p.access.calls[ACCESS_NEEDED], 1000);
	/* the fast worker's 1000, and the dynamic loader's check of /etc/ld.so.preload */
	assert_in_range(p.access.calls[ACCESS_FAST], 1000, 1010);
	assert_int_equal(p.access.calls[ACCESS_UNSAFE], 0);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_slow_runs_clear_a_capability_and_pair_with_fast_ones),
		cmocka_unit_test(slow_access_runs_take_the_cred_override_and_fast_ones_do_not),
	};

	return cmocka_run_group_tests_name("live_bench", tests, NULL, tmpdir_teardown);
}
