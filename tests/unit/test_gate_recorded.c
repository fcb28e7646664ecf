// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What scripts ask of permscope instead of reading its JSON with awk:
 * gate --only-recorded (the rules on a family neither profile recorded
 * left out, each named, never a pass), gate --verdict-file (the verdicts
 * as tab-separated lines) and record --list-families (the one family
 * list).  tools/permscope-ab and tools/permscope-bisect rely on each
 * (docs/gate-rules.md, "Leaving out what was not recorded" and "Verdict
 * file").  Apart from test_gate.c, which holds the rest of the gate's
 * contract, to keep both readable.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "profile.h"
#include "rules.h"
#include "verdict.h"

/*
 * The access-only profiles of tests/unit/data (every other family not
 * requested): compare-access-base.json, where every access() call
 * allocated a cred it did not need, and compare-access-new.json, where
 * none did.
 */
static const char *access_file(const char *side)
{
	static char path[2][PATH_MAX];
	char *buf = path[strcmp(side, "base") != 0];

	snprintf(buf, PATH_MAX, "%s/compare-access-%s.json", testdata_dir(), side);
	return buf;
}

static void read_access(const char *side, struct profile *p)
{
	char err[256];

	if (profile_read(access_file(side), p, err, sizeof(err)))
		fail_msg("%s: %s", access_file(side), err);
}

static struct rule_set parse(const char *text)
{
	struct rule_set rs;
	char *errors = NULL;

	assert_int_equal(rules_parse(text, strlen(text), "t.rules", &rs, &errors), 0);
	assert_null(errors);
	return rs;
}

/* Only a family asked for on neither side is left out; one that did not attach is judged. */
static void a_rule_is_left_out_only_when_neither_side_asked_for_its_family(void **state)
{
	struct rule_set rs = parse("lookup.violations == 0\naccess.unsafe == 0\n"
				   "bench.cred_alloc.ns_per_op <= base\n");
	struct profile base, new;
	char why[256] = "";

	(void)state;
	read_access("base", &base);
	read_access("new", &new);
	assert_true(rule_left_out(&rs.r[0], &base, &new, why, sizeof(why)));
	assert_string_equal(why, "neither profile recorded the lookup family (not requested)");
	assert_false(rule_left_out(&rs.r[1], &base, &new, why, sizeof(why)));
	/* bench.* comes from no family: nothing to leave out */
	assert_false(rule_left_out(&rs.r[2], &base, &new, why, sizeof(why)));
	/* asked for on one side only: judged, and without verdict there */
	new.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	assert_false(rule_left_out(&rs.r[0], &base, &new, why, sizeof(why)));
	new.fam[FAMILY_LOOKUP].status = FAMILY_NOT_REQUESTED;
	base.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	assert_false(rule_left_out(&rs.r[0], &base, &new, why, sizeof(why)));
	profile_free(&base);
	profile_free(&new);
	rules_free(&rs);
}

/* A gate that judged no rule has no verdict: nothing judged is no pass. */
static void nothing_judged_is_no_verdict(void **state)
{
	const size_t none[3] = { 0, 0, 0 }, pass[3] = { 1, 0, 0 };

	(void)state;
	assert_int_equal(verdicts_overall(none), VERDICT_NO_VERDICT);
	assert_int_equal(verdicts_overall(pass), VERDICT_PASS);
}

/* The default rules on access-only profiles: lookup's and exec's left out, named, not passed. */
static void only_recorded_judges_the_families_recorded_and_names_the_others(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *json = tmp_path("gate.json");
	json_error_t e;
	json_t *root, *left;
	char *text;

	(void)state;
	/* without it, as always: no verdict on the three rules of families not recorded */
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, NULL), 3);
	assert_contains(out_text, "gate: 2 passed, 0 failed, 3 without verdict\n");
	assert_string_equal(err_text, "");

	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "--only-recorded", "-o", json,
				   NULL), 0);
	assert_contains(out_text, "PASS  access.unsafe  new 0  base 0  threshold == 0\n");
	assert_not_contains(out_text, "exec.enoent_early_share");
	assert_contains(out_text, "gate: 2 passed, 0 failed, 0 without verdict, 3 left out\n");
	assert_contains(err_text, "gate: not judged here: exec.enoent_early_share >= base - 0.01 "
			"((default rules):5): neither profile recorded the exec family (not "
			"requested)\n");
	assert_contains(err_text, "gate: not judged here: lookup.violations == 0 ((default "
			"rules):6): neither profile recorded the lookup family (not requested)\n");
	assert_contains(err_text, "gate: not judged here: lookup.did_skip_ratio >= base - 0.01");
	/* the JSON's rules are those judged; the others are in left_out, with why */
	text = slurp(json, NULL);
	assert_non_null(text);
	root = json_loads(text, 0, &e);
	free(text);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "pass");
	assert_int_equal(json_array_size(json_object_get(root, "rules")), 2);
	left = json_object_get(root, "left_out");
	assert_int_equal(json_array_size(left), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(left, 0), "metric")),
			    "exec.enoent_early_share");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(left, 0), "line")), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(left, 0), "reason")),
			    "neither profile recorded the exec family (not requested)");
	json_decref(root);

	/* a failure still fails */
	assert_int_equal(permscope("gate", "-b", fast, "-n", slow, "--only-recorded", NULL), 1);
	assert_contains(out_text, "FAIL  access.avoidable_per_call  new 1  base 0");
}

/* Every rule left out: no verdict (3), said, never a pass. */
static void a_gate_whose_every_rule_is_left_out_has_no_verdict(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *rules = write_tmp_file("lookup.rules", "lookup.violations == 0\n"
				"exec.enoent_early_share >= base\n");
	const char *junit = tmp_path("gate.xml");
	char *text;

	(void)state;
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "-r", rules, "--only-recorded",
				   "--junit", junit, "-j", NULL), 3);
	assert_contains(out_text, "\"verdict\": \"no-verdict\"");
	assert_contains(out_text, "\"exit_status\": 3");
	assert_contains(out_text, "\"rules\": []");
	assert_contains(err_text, "gate: not judged here: lookup.violations == 0 (");
	assert_contains(err_text, "gate: no rule of ");
	assert_contains(err_text, "lookup.rules judges a family either profile recorded: no "
			"verdict\n");
	/* JUnit: a left-out rule is skipped, with why */
	text = slurp(junit, NULL);
	assert_non_null(text);
	assert_contains(text, "tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"2\"");
	assert_contains(text, "<skipped message=\"not judged here: neither profile recorded the "
			"lookup family (not requested)\"/>");
	free(text);
}

/* A family asked for that did not attach is not left out: its rule has no verdict. */
static void a_family_that_did_not_attach_is_judged_without_verdict(void **state)
{
	const char *fast = access_file("new"), *broken = tmp_path("broken.json");
	const char *rules = write_tmp_file("two.rules", "access.unsafe == 0\nlookup.violations == 0\n");
	struct profile p;

	(void)state;
	read_access("new", &p);
	/* asked for, tried in fentry mode, refused */
	p.fam[FAMILY_LOOKUP] = (struct family_result){
		.status = FAMILY_UNAVAILABLE, .nattempts = 1,
		.attempts = { { .mode = MODE_FENTRY, .err = 1, .why = "load: EPERM" } },
	};
	assert_int_equal(profile_write(&p, broken), 0);
	profile_free(&p);
	assert_int_equal(permscope("gate", "-b", fast, "-n", broken, "-r", rules, "--only-recorded",
				   NULL), 3);
	assert_contains(out_text, "NO-VERDICT  lookup.violations  the lookup family did not "
			"record in the base profile (not requested) nor in the new profile "
			"(unavailable)\n");
	assert_contains(out_text, "gate: 1 passed, 0 failed, 1 without verdict\n");
	assert_string_equal(err_text, "");
}

/* --verdict-file: the gate's line, then one a rule, tab-separated; means as the JSON has them. */
static void verdict_file_holds_a_line_a_rule(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *file = tmp_path("gate.tsv");
	const char *rules = write_tmp_file("tsv.rules", "access.avoidable_per_call <= base + 0.01\n"
				"access.unsafe == 0\nlookup.violations == 0\n");
	char *text;

	(void)state;
	assert_int_equal(permscope("gate", "-b", fast, "-n", slow, "-r", rules, "--verdict-file",
				   file, NULL), 1);
	text = slurp(file, NULL);
	assert_non_null(text);
	assert_string_equal(text,
		"gate\tfail\t1\t1\t1\t1\t0\n"
		"fail\taccess.avoidable_per_call\taccess.avoidable_per_call <= base + 0.01\t1.0\t0.0\t\n"
		"pass\taccess.unsafe\taccess.unsafe == 0\t0.0\t0.0\t\n"
		"no-verdict\tlookup.violations\tlookup.violations == 0\t-\t-\tthe lookup family did "
		"not record in the base profile (not requested) nor in the new profile (not "
		"requested)\n");
	free(text);
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "-r", rules, "--verdict-file",
				   file, "--only-recorded", NULL), 0);
	text = slurp(file, NULL);
	assert_non_null(text);
	assert_contains(text, "gate\tpass\t0\t2\t0\t0\t1\n");
	assert_contains(text, "\nleft-out\tlookup.violations\tlookup.violations == 0\t-\t-\t"
			"neither profile recorded the lookup family (not requested)\n");
	free(text);
	/* a file that cannot be written is bad usage, found before judging */
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "--verdict-file",
				   tmp_path("nodir/gate.tsv"), NULL), 2);
}

/* record --list-families: every family, one a line, in the schema's order; nothing loaded. */
static void record_lists_its_families(void **state)
{
	char want[256] = "";

	(void)state;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		strcat(want, family_name(f));
		strcat(want, "\n");
	}
	assert_int_equal(permscope("record", "--list-families", NULL), 0);
	assert_string_equal(out_text, want);
	assert_string_equal(err_text, "");
	assert_int_equal(permscope("record", "--list-families", "--", "true", NULL), 2);
	assert_contains(err_text, "--list-families prints the families and runs no command");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_rule_is_left_out_only_when_neither_side_asked_for_its_family),
		cmocka_unit_test(nothing_judged_is_no_verdict),
		cmocka_unit_test(only_recorded_judges_the_families_recorded_and_names_the_others),
		cmocka_unit_test(a_gate_whose_every_rule_is_left_out_has_no_verdict),
		cmocka_unit_test(a_family_that_did_not_attach_is_judged_without_verdict),
		cmocka_unit_test(verdict_file_holds_a_line_a_rule),
		cmocka_unit_test(record_lists_its_families),
	};

	return cmocka_run_group_tests_name("gate_recorded", tests, tmpdir_setup, tmpdir_teardown);
}
