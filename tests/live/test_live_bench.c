// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope bench --slow on this kernel, as root: the access benchmarks'
 * slow runs clear a capability from the effective set and pair with fast
 * ones, and, recorded with the access family, the slow workers' calls are
 * exactly the ones that take the cred override (the positive control that
 * "slow" is slow for the reason the benchmark claims).  And --overhead
 * attaches the families around its probed runs and leaves nothing attached.
 * Asserts counts and names, never a speed.
 */
#include <bpf/bpf.h>
#include <jansson.h>
#include <linux/bpf.h>

#include "testutil.h"

#include "bench/bench.h"
#include "profile.h"
#include "run/record.h"
#include "util.h"

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
	skip_unless_live(why);
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

/* The ids of the tracing programs (tracepoint, kprobe, fentry) loaded now, 0-terminated. */
static void tracing_prog_ids(__u32 *ids, size_t max)
{
	__u32 id = 0;
	size_t n = 0;

	while (n + 1 < max && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    (info.type == BPF_PROG_TYPE_TRACEPOINT || info.type == BPF_PROG_TYPE_KPROBE ||
		     info.type == BPF_PROG_TYPE_TRACING || info.type == BPF_PROG_TYPE_RAW_TRACEPOINT))
			ids[n++] = id;
		close(fd);
	}
	ids[n] = 0;
}

static bool has_id(const __u32 *ids, __u32 id)
{
	for (; *ids; ids++)
		if (*ids == id)
			return true;
	return false;
}

static void overhead_attaches_each_configuration_and_leaves_nothing_attached(void **state)
{
	char why[256];
	char *argv[] = { (char *)permscope_bin(), "bench", "access1", "--overhead", "--duration",
			 "0.1", "--runs", "2", "-j", "-q", NULL };
	static __u32 before[4096], after[4096];
	json_t *doc, *b, *c;
	json_error_t jerr;
	size_t i, k;
	bool seen[5] = { 0 };
	static const char *const names[] = { "access", "exec", "lookup", "all", "bpftrace" };

	(void)state;
	if (live_skip_reason(why, sizeof(why), permscope_bin()))
		fail_msg("cannot make a scratch directory");
	skip_unless_live(why);
	/* positive control: the listing sees the programs of an attached family */
	{
		struct record_opts o;
		struct recorder rec;
		struct profile p;
		size_t fresh = 0;

		record_opts_init(&o);
		for (int f = 0; f < FAMILY_COUNT; f++)
			o.probe.want[f] = f == FAMILY_ACCESS;
		profile_init(&p);
		tracing_prog_ids(before, 4096);
		assert_int_equal(recorder_attach(&rec, &o.probe, &p), EXIT_OK);
		tracing_prog_ids(after, 4096);
		recorder_detach(&rec);
		profile_free(&p);
		for (i = 0; after[i]; i++)
			fresh += !has_id(before, after[i]);
		assert_true(fresh >= 2);
	}
	tracing_prog_ids(before, 4096);
	if (run_capture(argv)) {
		print_message("%s", err_text);
		fail_msg("permscope bench access1 --overhead failed");
	}
	tracing_prog_ids(after, 4096);
	/* A program another session loaded meanwhile is held by its process. */
	for (i = 0; after[i]; i++)
		if (!has_id(before, after[i]) && !bpf_object_held("prog", after[i], 0))
			fail_msg("BPF program %u was loaded during the run and is still there, "
				 "held by no process", after[i]);

	doc = json_loads(out_text, 0, &jerr);
	if (!doc)
		fail_msg("JSON: %s", jerr.text);
	assert_string_equal(json_string_value(json_object_get(doc, "mode")), "overhead");
	b = json_array_get(json_object_get(doc, "benchmarks"), 0);
	assert_string_equal(json_string_value(json_object_get(b, "name")), "access1");
	json_array_foreach(json_object_get(b, "configurations"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		json_t *pair;

		for (k = 0; k < 5; k++)
			if (!strcmp(name, names[k]))
				seen[k] = true;
		if (!json_is_true(json_object_get(c, "measured"))) {
			/* a configuration not measured says why */
			print_message("%s: not measured: %s\n", name,
				      json_string_value(json_object_get(c, "unavailable")));
			assert_true(strlen(json_string_value(json_object_get(c, "unavailable"))) > 10);
			assert_int_equal(json_array_size(json_object_get(c, "pairs")), 0);
			assert_string_not_equal(name, "access");
			continue;
		}
		print_message("%s: %s, CPU slowdown %.3f\n", name,
			      json_string_value(json_object_get(c, "attached")),
			      json_real_value(json_object_get(json_object_get(c, "ratio"), "cpu_median")));
		assert_int_equal(json_array_size(json_object_get(c, "pairs")), 2);
		json_array_foreach(json_object_get(c, "pairs"), k, pair) {
			assert_true(json_real_value(json_object_get(pair, "cpu_ratio")) > 0);
			assert_true(json_real_value(json_object_get(pair, "wall_ratio")) > 0);
		}
		if (!strcmp(name, "access") || !strcmp(name, "all"))
			assert_non_null(strstr(json_string_value(json_object_get(c, "attached")),
					       "access: "));
	}
	for (k = 0; k < 5; k++)
		if (!seen[k])
			fail_msg("no configuration %s", names[k]);
	/* the access family attaches wherever the live tests run: here in tracepoint mode */
	c = json_array_get(json_object_get(b, "configurations"), FAMILY_ACCESS);
	assert_string_equal(json_string_value(json_object_get(c, "name")), "access");
	assert_true(json_is_true(json_object_get(c, "measured")));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_slow_runs_clear_a_capability_and_pair_with_fast_ones),
		cmocka_unit_test(slow_access_runs_take_the_cred_override_and_fast_ones_do_not),
		cmocka_unit_test(overhead_attaches_each_configuration_and_leaves_nothing_attached),
	};

	return cmocka_run_group_tests_name("live_bench", tests, NULL, tmpdir_teardown);
}
