// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the gate says of rules it was not asked to judge, apart from those
 * it could not judge: a rule on a family neither profile was asked to
 * record (or outside gate --families) is SKIPPED, named, and leaves the
 * exit status alone; a family asked for that did not attach stays
 * NO-VERDICT (exit 3), an <error> in JUnit, never a green skip.  Also gate
 * --verdict-file (the verdicts as tab-separated lines), gate
 * --allow-mode-mismatch and record --list-families (the one family list),
 * which tools/permscope-ab and tools/permscope-bisect rely on
 * (docs/gate-rules.md, "Skipped: not asked" and "Verdict file").  Apart
 * from test_gate.c, which holds the rest of the gate's contract, to keep
 * both readable.
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

/* Only a family asked for on neither side is skipped; one that did not attach is judged. */
static void a_rule_is_skipped_only_when_neither_side_asked_for_its_family(void **state)
{
	struct rule_set rs = parse("lookup.violations == 0\naccess.unsafe == 0\n"
				   "bench.cred_alloc.ns_per_op <= base\n");
	struct profile base, new;
	bool scope[FAMILY_COUNT] = { [FAMILY_ACCESS] = true };
	char why[256] = "";

	(void)state;
	read_access("base", &base);
	read_access("new", &new);
	assert_true(rule_skipped(&rs.r[0], &base, &new, NULL, why, sizeof(why)));
	assert_string_equal(why, "neither profile was asked to record the lookup family");
	assert_false(rule_skipped(&rs.r[1], &base, &new, NULL, why, sizeof(why)));
	/* bench.* comes from no family: nothing to skip */
	assert_false(rule_skipped(&rs.r[2], &base, &new, NULL, why, sizeof(why)));
	assert_false(rule_skipped(&rs.r[2], &base, &new, scope, why, sizeof(why)));
	/* asked for on one side only: judged, and without verdict there */
	new.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	assert_false(rule_skipped(&rs.r[0], &base, &new, NULL, why, sizeof(why)));
	new.fam[FAMILY_LOOKUP].status = FAMILY_NOT_REQUESTED;
	base.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	assert_false(rule_skipped(&rs.r[0], &base, &new, NULL, why, sizeof(why)));
	/* --families decides alone: outside it skipped, inside it judged */
	assert_true(rule_skipped(&rs.r[0], &base, &new, scope, why, sizeof(why)));
	assert_string_equal(why, "the lookup family is not in gate --families");
	scope[FAMILY_LOOKUP] = true;
	base.fam[FAMILY_LOOKUP].status = FAMILY_NOT_REQUESTED;
	assert_false(rule_skipped(&rs.r[0], &base, &new, scope, why, sizeof(why)));
	profile_free(&base);
	profile_free(&new);
	rules_free(&rs);
}

/* A gate that judged no rule has no verdict: nothing judged is no pass; skips count for nothing. */
static void nothing_judged_is_no_verdict(void **state)
{
	const size_t none[VERDICTS] = { 0 }, skipped[VERDICTS] = { [VERDICT_SKIPPED] = 4 },
		     pass[VERDICTS] = { [VERDICT_PASS] = 1, [VERDICT_SKIPPED] = 4 },
		     unknown[VERDICTS] = { [VERDICT_PASS] = 1, [VERDICT_NO_VERDICT] = 1,
					   [VERDICT_SKIPPED] = 4 };

	(void)state;
	assert_int_equal(verdicts_overall(none), VERDICT_NO_VERDICT);
	assert_int_equal(verdicts_overall(skipped), VERDICT_NO_VERDICT);
	assert_int_equal(verdicts_overall(pass), VERDICT_PASS);
	assert_int_equal(verdicts_overall(unknown), VERDICT_NO_VERDICT);
}

static json_t *read_json(const char *path)
{
	json_error_t e;
	char *text = slurp(path, NULL);
	json_t *root;

	assert_non_null(text);
	root = json_loads(text, 0, &e);
	free(text);
	assert_non_null(root);
	return root;
}

/*
 * The default rules on access-only profiles: lookup's and exec's SKIPPED,
 * named, and the gate passes; the exit status, the JSON and the JUnit agree.
 */
static void the_default_gate_on_access_profiles_passes_with_the_rest_skipped(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *json = tmp_path("gate.json"), *junit = tmp_path("gate.xml");
	json_t *root, *rules, *r;
	char *text;

	(void)state;
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "--json-file", json, "--junit", junit,
				   NULL), 0);
	assert_contains(out_text, "PASS  access.unsafe  new 0  base 0  threshold == 0\n");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  exec.enoent_early_share  neither profile was asked to "
			"record the exec family\n");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  lookup.violations  neither profile was asked to "
			"record the lookup family\n");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  cred.refcount_shares_line  neither profile holds struct "
			"cred's layout (written before permscope kept it, or a side read from "
			"Prometheus)\n");
	assert_contains(out_text, "gate: 2 passed, 0 failed, 0 without verdict, 4 skipped\n");
	assert_string_equal(err_text, "");
	/* every rule in the JSON's rules, in order, a skipped one with its reason */
	root = read_json(json);
	assert_string_equal(json_string_value(json_object_get(root, "format")), "permscope-gate/3");
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "pass");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 0);
	rules = json_object_get(root, "rules");
	assert_int_equal(json_array_size(rules), 6);
	r = json_array_get(rules, 2);
	assert_string_equal(json_string_value(json_object_get(r, "metric")),
			    "exec.enoent_early_share");
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "skipped");
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 6);
	assert_string_equal(json_string_value(json_object_get(r, "reason")),
			    "neither profile was asked to record the exec family");
	assert_true(json_is_null(json_object_get(r, "new")));
	assert_null(json_object_get(root, "left_out"));
	json_decref(root);
	/* JUnit: green because the gate passed, the four skips named as skips */
	text = slurp(junit, NULL);
	assert_non_null(text);
	assert_contains(text, "tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"4\"");
	assert_contains(text, "<skipped message=\"not asked: neither profile was asked to record "
			"the lookup family\"/>");
	free(text);
	/* -q prints neither the passes nor the skips */
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "-q", NULL), 0);
	assert_string_equal(out_text, "");
	/* a failure still fails */
	assert_int_equal(permscope("gate", "-b", fast, "-n", slow, NULL), 1);
	assert_contains(out_text, "FAIL  access.avoidable_per_call  new 1  base 0");
	/* the option that asked for this before is still accepted */
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "--only-recorded", NULL), 0);
}

/*
 * The access profile of SIDE with host.cred_refcount_line set to LINE (NULL:
 * as it is, from before the layout was kept), written to TMPDIR/NAME.
 */
static const char *with_cred_line(const char *side, const char *line, const char *name)
{
	json_t *root = read_json(access_file(side));

	if (line)
		json_object_set_new(json_object_get(root, "host"), "cred_refcount_line",
				    json_string(line));
	assert_int_equal(json_dump_file(root, tmp_path(name), 0), 0);
	json_decref(root);
	return tmp_path(name);
}

/*
 * The fourth fast path in the default gate: usage back on the checks' line
 * against a base where it was off fails, naming the rule; no change, or a
 * move off, passes; a side whose layout is unknown or not kept gives no
 * verdict (exit 3), never a pass; two profiles from before it was kept
 * skip the rule, named.
 */
static void the_cred_refcount_line_is_judged_against_the_base(void **state)
{
	static const struct {
		const char *base, *new;
		int status;
		const char *line;
	} cases[] = {
		{ "separated", "shares", 1, "FAIL  cred.refcount_shares_line  new 1  base 0  "
					    "threshold <= 0\n" },
		{ "shares", "shares", 0, "PASS  cred.refcount_shares_line  new 1  base 1  "
					 "threshold <= 1\n" },
		{ "separated", "separated", 0, "PASS  cred.refcount_shares_line  new 0  base 0" },
		{ "shares", "separated", 0, "PASS  cred.refcount_shares_line  new 0  base 1" },
		{ "separated", "unknown", 3, "NO-VERDICT  cred.refcount_shares_line  struct cred's "
					     "layout is unknown in the new profile" },
		{ "unknown", "shares", 3, "layout is unknown in the base profile" },
		{ NULL, "shares", 3, "NO-VERDICT  cred.refcount_shares_line  the base profile "
				     "predates struct cred's layout" },
		{ "separated", NULL, 3, "the new profile predates struct cred's layout" },
		{ NULL, NULL, 0, "SKIPPED  cred.refcount_shares_line  neither profile holds struct "
				 "cred's layout" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* the access counts of base and new alike: only the layout differs */
		const char *b = with_cred_line("new", cases[i].base, "base.json");
		const char *n = with_cred_line("new", cases[i].new, "new.json");

		assert_int_equal(permscope("gate", b, n, NULL), cases[i].status);
		gate_unwrap();
		assert_contains(out_text, cases[i].line);
	}
	/* compare and report say it too, and their JSON carries the word */
	assert_int_equal(permscope("compare", with_cred_line("new", "separated", "base.json"),
				   with_cred_line("new", "shares", "new.json"), NULL), 0);
	assert_contains(out_text, "  cred refcount line: base separated, new shares (usage back on "
			"the checks' line)\n");
	assert_int_equal(permscope("compare", "-j", tmp_path("base.json"), tmp_path("new.json"),
				   NULL), 0);
	assert_contains(out_text, "\"cred_refcount_line\": \"shares\"");
	assert_int_equal(permscope("compare", "--format", "html", tmp_path("base.json"),
				   tmp_path("new.json"), NULL), 0);
	assert_contains(out_text, "<br>cred refcount line separated</td>");
	assert_contains(out_text, "<br>cred refcount line shares</td>");
	assert_int_equal(permscope("report", "--format", "html", tmp_path("new.json"), NULL), 0);
	assert_contains(out_text, "<tr><th>cred refcount line</th><td>shares</td></tr>");
	assert_int_equal(permscope("report", tmp_path("new.json"), NULL), 0);
	assert_contains(out_text, "\ncred refcount line: shares (usage on the cacheline permission "
			"checks read)\n");
	/* a word a profile cannot hold is refused as the profile's fault */
	assert_int_equal(permscope("report", with_cred_line("new", "maybe", "bad.json"), NULL), 2);
	assert_contains(err_text, "host.cred_refcount_line: expected \"separated\", \"shares\" or "
			"\"unknown\", found \"maybe\"");
}

/* A latency rule's values print with their unit, as report and compare print them. */
static void latency_values_print_with_their_unit(void **state)
{
	const char *rules = write_tmp_file("lat.rules", "access.latency.mean <= base\n");

	(void)state;
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(permscope("gate", "-r", rules, access_file("base"), access_file("new"),
				   NULL), 0);
	assert_contains(out_text, "PASS  access.latency.mean  new 3.366µs  base 24.38µs  "
			"threshold <= 24.38µs\n");
	setenv("LC_ALL", "C", 1);
	assert_int_equal(permscope("gate", "-r", rules, access_file("base"), access_file("new"),
				   NULL), 0);
	assert_contains(out_text, "new 3.366us  base 24.38us  threshold <= 24.38us\n");
	unsetenv("LC_ALL");
}

/* Every rule skipped: nothing judged, no verdict (3), said, never a pass. */
static void a_gate_whose_every_rule_is_skipped_has_no_verdict(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *rules = write_tmp_file("lookup.rules", "lookup.violations == 0\n"
				"exec.enoent_early_share >= base\n");
	const char *junit = tmp_path("gate.xml");
	char *text;

	(void)state;
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "-r", rules, "--junit", junit,
				   "-j", NULL), 3);
	assert_contains(out_text, "\"verdict\": \"no-verdict\"");
	assert_contains(out_text, "\"exit_status\": 3");
	assert_contains(out_text, "\"verdict\": \"skipped\"");
	assert_contains(err_text, "gate: every rule of ");
	assert_contains(err_text, "lookup.rules was skipped (none is on a family either profile "
			"was asked to record): nothing judged, no verdict\n");
	text = slurp(junit, NULL);
	assert_non_null(text);
	assert_contains(text, "tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"2\"");
	free(text);
}

/*
 * A family asked for that did not attach is not skipped: its rule has no
 * verdict, exit 3, and JUnit says so with an error, not a skip.
 */
static void a_family_that_did_not_attach_is_no_verdict_and_a_junit_error(void **state)
{
	const char *fast = access_file("new"), *broken = tmp_path("broken.json");
	const char *rules = write_tmp_file("two.rules", "access.unsafe == 0\nlookup.violations == 0\n");
	const char *junit = tmp_path("gate.xml");
	struct profile p;
	char *text;

	(void)state;
	read_access("new", &p);
	/* asked for, tried in fentry mode, refused */
	p.fam[FAMILY_LOOKUP] = (struct family_result){
		.status = FAMILY_UNAVAILABLE, .nattempts = 1,
		.attempts = { { .mode = MODE_FENTRY, .err = 1, .why = "load: EPERM" } },
	};
	assert_int_equal(profile_write(&p, broken), 0);
	profile_free(&p);
	assert_int_equal(permscope("gate", "-b", fast, "-n", broken, "-r", rules, "--junit", junit,
				   NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  lookup.violations  the lookup family did not "
			"record in the base profile (not requested) nor in the new profile "
			"(unavailable)\n");
	assert_contains(out_text, "gate: 1 passed, 0 failed, 1 without verdict, 0 skipped\n");
	assert_string_equal(err_text, "");
	text = slurp(junit, NULL);
	assert_non_null(text);
	assert_contains(text, "tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\"");
	assert_contains(text, "<error type=\"no-verdict\" message=\"no verdict: the lookup family "
			"did not record");
	assert_not_contains(text, "<skipped");
	free(text);
	/* --families scopes the rules: lookup not asked for here, so skipped, and a pass */
	assert_int_equal(permscope("gate", "-b", fast, "-n", broken, "-r", rules, "--families",
				   "access", "--junit", junit, NULL), 0);
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  lookup.violations  the lookup family is not in gate "
			"--families\n");
	text = slurp(junit, NULL);
	assert_non_null(text);
	assert_contains(text, "tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\"");
	free(text);
	/* a family named in --families that neither side recorded: asked for, so no verdict */
	assert_int_equal(permscope("gate", "-b", fast, "-n", fast, "--families", "access,exec",
				   NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  exec.enoent_early_share  the exec family did not "
			"record in the base profile (not requested) nor in the new profile (not "
			"requested)\n");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  lookup.violations  the lookup family is not in gate "
			"--families\n");
	assert_int_equal(permscope("gate", "-b", fast, "-n", fast, "--families", "all", NULL), 3);
	/* but not the cred layout, which no family holds and neither profile kept */
	assert_contains(out_text, "gate: 2 passed, 0 failed, 3 without verdict, 1 skipped\n");
	assert_int_equal(permscope("gate", "-b", fast, "-n", fast, "--families", "dcache", NULL), 2);
	assert_contains(err_text, "unknown family 'dcache'");
}

/*
 * Modes that differ give no verdict, and say how to judge anyway;
 * --allow-mode-mismatch judges, and says so on standard error.
 */
static void allow_mode_mismatch_judges_across_modes_and_says_so(void **state)
{
	const char *fast = access_file("new"), *tp = tmp_path("tracepoint.json");
	const char *rules = write_tmp_file("access.rules", "access.unsafe == 0\n");
	struct profile p;

	(void)state;
	read_access("new", &p);
	assert_int_equal(p.fam[FAMILY_ACCESS].status, FAMILY_OK);
	p.fam[FAMILY_ACCESS].mode = p.fam[FAMILY_ACCESS].mode == MODE_TRACEPOINT ? MODE_FENTRY
										 : MODE_TRACEPOINT;
	assert_int_equal(profile_write(&p, tp), 0);
	profile_free(&p);
	assert_int_equal(permscope("gate", "-b", fast, "-n", tp, "-r", rules, NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.unsafe  the access family attached with ");
	assert_contains(out_text, " (--allow-mode-mismatch judges anyway)\n");
	assert_int_equal(permscope("gate", "-b", fast, "-n", tp, "-r", rules,
				   "--allow-mode-mismatch", NULL), 0);
	assert_contains(out_text, "PASS  access.unsafe");
	assert_contains(err_text, "gate: the access family attached with ");
	assert_contains(err_text, "judged anyway (--allow-mode-mismatch)\n");
}

/*
 * gate's text fits 100 columns: a reason that would pass them goes on the
 * lines under its verdict, indented, never a word cut.
 */
static void the_text_fits_100_columns_with_long_reasons_wrapped(void **state)
{
	const char *fast = access_file("new");
	const char *rules = write_tmp_file("long.rules", "lookup.violations == 0\n"
				"exec.enoent_early_share >= base\n");
	char *copy, *line, *save = NULL;
	bool wrapped = false;

	(void)state;
	assert_int_equal(permscope("gate", "-b", fast, "-n", fast, "-r", rules, "--families", "all",
				   NULL), 3);
	assert_contains(out_text, "NO-VERDICT  lookup.violations\n      the lookup family did not "
			"record in the base profile (not requested) nor in the new profile\n"
			"      (not requested)\n");
	copy = strdup(out_text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strlen(line) > 100)
			fail_msg("over 100 columns: %s", line);
		wrapped |= !strncmp(line, "      ", 6);
	}
	free(copy);
	assert_true(wrapped);
	/* a short reason stays on its line */
	assert_int_equal(permscope("gate", "-b", fast, "-n", fast, "-r", rules, NULL), 3);
	assert_contains(out_text, "SKIPPED  lookup.violations  neither profile was asked to record "
			"the lookup family\n");
}

/* A profile from standard input, "-", as from a file. */
static void a_profile_is_read_from_standard_input(void **state)
{
	const char *fast = access_file("new"), *slow = access_file("base");
	char *argv[] = { (char *)permscope_bin(), "gate", "-b", (char *)slow, "-n", "-", NULL };
	char *report[] = { (char *)permscope_bin(), "report", "-", NULL };
	char *terminal[] = { (char *)permscope_bin(), "report", "-", NULL };

	(void)state;
	assert_int_equal(run_capture_in(fast, argv), 0);
	assert_contains(out_text, "gate: new  -: ");
	assert_contains(out_text, "PASS  access.avoidable_per_call  new 0  base 1");
	assert_int_equal(run_capture_in(fast, report), 0);
	assert_contains(out_text, "permscope report: kernel 7.2.13+deb14-cloud-amd64");
	/* nothing to read is bad input, said */
	assert_int_equal(run_capture_in(write_tmp_file("empty.json", ""), terminal), 2);
	assert_contains(err_text, "-: not valid JSON");
}

/*
 * --verdict-file: the gate's line, then one a rule, tab-separated; means as
 * the JSON has them, then the threshold and whether the value is near it.
 */
static void verdict_file_holds_a_line_a_rule(void **state)
{
	const char *slow = access_file("base"), *fast = access_file("new");
	const char *file = tmp_path("gate.tsv");
	const char *rules = write_tmp_file("tsv.rules", "access.avoidable_per_call <= base + 0.01\n"
				"access.unsafe == 0\nlookup.violations == 0\n"
				"access.avoidable_per_call <= base + 1.5\n");
	char *text;

	(void)state;
	assert_int_equal(permscope("gate", "-b", fast, "-n", slow, "-r", rules, "--verdict-file",
				   file, NULL), 1);
	text = slurp(file, NULL);
	assert_non_null(text);
	assert_string_equal(text,
		"gate\tfail\t1\t2\t1\t0\t1\n"
		"fail\taccess.avoidable_per_call\taccess.avoidable_per_call <= base + 0.01\t1.0\t0.0\t"
		"\t0.01\t-\n"
		"pass\taccess.unsafe\taccess.unsafe == 0\t0.0\t0.0\t\t0.0\t-\n"
		"skipped\tlookup.violations\tlookup.violations == 0\t-\t-\tneither profile was asked "
		"to record the lookup family\t-\t-\n"
		/* 1.0 lies within the rule's slack (1.5) of its threshold: near, though it passes */
		"pass\taccess.avoidable_per_call\taccess.avoidable_per_call <= base + 1.5\t1.0\t0.0\t"
		"\t1.5\tnear\n");
	free(text);
	assert_int_equal(permscope("gate", "-b", slow, "-n", fast, "-r", rules, "--verdict-file",
				   file, NULL), 0);
	text = slurp(file, NULL);
	assert_non_null(text);
	assert_contains(text, "gate\tpass\t0\t3\t0\t0\t1\n");
	/* 0.0 against a threshold of 2.5 is far from it: not near */
	assert_contains(text, "base + 1.5\t0.0\t1.0\t\t2.5\t-\n");
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
		cmocka_unit_test(a_rule_is_skipped_only_when_neither_side_asked_for_its_family),
		cmocka_unit_test(nothing_judged_is_no_verdict),
		cmocka_unit_test(the_default_gate_on_access_profiles_passes_with_the_rest_skipped),
		cmocka_unit_test(a_gate_whose_every_rule_is_skipped_has_no_verdict),
		cmocka_unit_test(the_cred_refcount_line_is_judged_against_the_base),
		cmocka_unit_test(latency_values_print_with_their_unit),
		cmocka_unit_test(a_family_that_did_not_attach_is_no_verdict_and_a_junit_error),
		cmocka_unit_test(allow_mode_mismatch_judges_across_modes_and_says_so),
		cmocka_unit_test(the_text_fits_100_columns_with_long_reasons_wrapped),
		cmocka_unit_test(a_profile_is_read_from_standard_input),
		cmocka_unit_test(verdict_file_holds_a_line_a_rule),
		cmocka_unit_test(record_lists_its_families),
	};

	return cmocka_run_group_tests_name("gate_recorded", tests, tmpdir_setup, tmpdir_teardown);
}
