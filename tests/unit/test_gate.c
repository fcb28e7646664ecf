// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope gate: the rules grammar and its exact messages, the evaluation
 * of a rule against two profiles (pass, fail, no verdict, significance over
 * runs, unknown metrics), and the binary's contract: exit statuses, text,
 * JSON and JUnit output (docs/gate-rules.md).  Runs ./permscope (or
 * $PERMSCOPE_BIN) without a shell, on profiles written with profile_write.
 */
#include <jansson.h>
#include <linux/types.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "metrics.h"
#include "profile.h"
#include "rules.h"
#include "verdict.h"

/* ---- hand-built profiles ------------------------------------------------ */

static void base_profile(struct profile *p)
{
	profile_init(p);
	strcpy(p->kernel_release, "6.18.0-test");
	strcpy(p->hostname, "testhost");
	p->start_ns = 1700000000ULL * 1000000000ULL;
	p->end_ns = p->start_ns + 5000000000ULL;
	for (int f = 0; f < FAMILY_COUNT; f++)
		p->fam[f].status = FAMILY_NOT_REQUESTED;
}

static void with_family(struct profile *p, enum family_id f, enum attach_mode m)
{
	p->fam[f].status = FAMILY_OK;
	p->fam[f].mode = m;
}

static void unavailable(struct profile *p, enum family_id f)
{
	p->fam[f].status = FAMILY_UNAVAILABLE;
	p->fam[f].nattempts = 1;
	p->fam[f].attempts[0].mode = MODE_FENTRY;
	p->fam[f].attempts[0].err = 1;
	strcpy(p->fam[f].attempts[0].why, "load: EPERM; refused here");
}

/* access: `avoidable` of 1000 calls allocate a cred needlessly, the rest are fast. */
static void set_access(struct profile *p, enum attach_mode m, unsigned avoidable)
{
	with_family(p, FAMILY_ACCESS, m);
	p->access.calls[ACCESS_AVOIDABLE] = avoidable;
	p->access.latency[ACCESS_AVOIDABLE].slots[10] = avoidable;
	p->access.latency[ACCESS_AVOIDABLE].count = avoidable;
	p->access.latency[ACCESS_AVOIDABLE].sum = 1500ULL * avoidable;
	p->access.calls[ACCESS_FAST] = 1000 - avoidable;
	p->access.latency[ACCESS_FAST].slots[9] = 1000 - avoidable;
	p->access.latency[ACCESS_FAST].count = 1000 - avoidable;
	p->access.latency[ACCESS_FAST].sum = 700ULL * (1000 - avoidable);
}

static void access_profile(struct profile *p, enum attach_mode m, unsigned avoidable)
{
	base_profile(p);
	set_access(p, m, avoidable);
}

/* lookup on one filesystem: `skipped` of 1000 checks took the fast path. */
static void lookup_profile(struct profile *p, const char *fs, unsigned skipped)
{
	struct fs_result *r;

	base_profile(p);
	with_family(p, FAMILY_LOOKUP, MODE_FENTRY);
	r = profile_add_fs(p, fs);
	assert_non_null(r);
	r->s.checks = 1000;
	r->s.did_skip = skipped;
	r->s.would_skip = 1000;
}

/* A merged profile: one run per value of `name` (the access family recorded). */
static void runs_profile(struct profile *p, const char *name, const double *v, size_t n)
{
	access_profile(p, MODE_TRACEPOINT, 0);
	p->runs = calloc(n, sizeof(*p->runs));
	assert_non_null(p->runs);
	p->nruns = n;
	for (size_t i = 0; i < n; i++) {
		p->runs[i].m = calloc(1, sizeof(struct metric));
		assert_non_null(p->runs[i].m);
		strcpy(p->runs[i].m[0].name, name);
		p->runs[i].m[0].value = v[i];
		p->runs[i].n = p->runs[i].cap = 1;
	}
}

static const char *save(struct profile *p, const char *name)
{
	const char *path = tmp_path(name);

	assert_int_equal(profile_write(p, path), 0);
	profile_free(p);
	return path;
}

/* ---- parsing ------------------------------------------------------------ */

static void parse_ok(const char *text, struct rule_set *rs)
{
	char *errors = NULL;
	int n = rules_parse(text, strlen(text), "t.rules", rs, &errors);

	if (n)
		fail_msg("unexpected parse errors (%d):\n%s", n, errors ? errors : "");
	assert_null(errors);
}

static void valid_rules_of_every_form_parse(void **state)
{
	static const char text[] =
		"# permscope gate rules\n"
		"\n"
		"   \t\n"
		"lookup.did_skip_ratio[tmpfs] >= 0.90\n"
		"access.avoidable_per_call <= 0.01   # at most 1 in 100\n"
		"exec.enoent.latency.p50 <= base * 1.10\n"
		"bench.access1.ops_per_sec >= baseline * 0.95 significant\n"
		"\taccess.calls > base\n"
		"access.fast < baseline + 5\r\n"
		"exec.calls != base - -2.5e1\n"
		"lookup.checks==-1e-3\n"
		"access.fast_ratio>=base*2 significant#comment\n"
		"lookup.violations[fuse.sshfs] == +.5\n"
		"exec.ok >= 7. significant";
	struct rule_set rs;
	const struct rule *r;

	(void)state;
	parse_ok(text, &rs);
	assert_int_equal(rs.n, 11);
	assert_string_equal(rs.file, "t.rules");

	r = &rs.r[0];
	assert_string_equal(r->metric, "lookup.did_skip_ratio[tmpfs]");
	assert_int_equal(r->op, RULE_GE);
	assert_int_equal(r->expr, EXPR_NUMBER);
	assert_true(r->number == 0.90);
	assert_false(r->significant);
	assert_int_equal(r->line, 4);
	assert_string_equal(r->file, "t.rules");
	assert_string_equal(r->text, "lookup.did_skip_ratio[tmpfs] >= 0.90");

	r = &rs.r[1];
	assert_string_equal(r->metric, "access.avoidable_per_call");
	assert_int_equal(r->op, RULE_LE);
	assert_true(r->number == 0.01);
	assert_string_equal(r->text, "access.avoidable_per_call <= 0.01");

	r = &rs.r[2];
	assert_int_equal(r->expr, EXPR_BASE_MUL);
	assert_true(r->number == 1.10);
	assert_int_equal(r->line, 6);

	r = &rs.r[3];
	assert_string_equal(r->metric, "bench.access1.ops_per_sec");
	assert_int_equal(r->expr, EXPR_BASE_MUL);
	assert_true(r->number == 0.95);
	assert_true(r->significant);

	r = &rs.r[4];
	assert_int_equal(r->op, RULE_GT);
	assert_int_equal(r->expr, EXPR_BASE);
	assert_false(r->significant);
	assert_string_equal(r->text, "access.calls > base");

	r = &rs.r[5];
	assert_int_equal(r->op, RULE_LT);
	assert_int_equal(r->expr, EXPR_BASE_ADD);
	assert_true(r->number == 5);
	assert_string_equal(r->text, "access.fast < baseline + 5");

	r = &rs.r[6];
	assert_int_equal(r->op, RULE_NE);
	assert_int_equal(r->expr, EXPR_BASE_SUB);
	assert_true(r->number == -25);

	r = &rs.r[7];
	assert_string_equal(r->metric, "lookup.checks");
	assert_int_equal(r->op, RULE_EQ);
	assert_int_equal(r->expr, EXPR_NUMBER);
	assert_true(r->number == -1e-3);

	r = &rs.r[8];
	assert_string_equal(r->metric, "access.fast_ratio");
	assert_int_equal(r->expr, EXPR_BASE_MUL);
	assert_true(r->number == 2);
	assert_true(r->significant);
	assert_string_equal(r->text, "access.fast_ratio>=base*2 significant");

	r = &rs.r[9];
	assert_string_equal(r->metric, "lookup.violations[fuse.sshfs]");
	assert_true(r->number == 0.5);

	r = &rs.r[10];
	assert_true(r->number == 7);
	assert_true(r->significant);
	assert_int_equal(r->line, 14);
	rules_free(&rs);
}

static void thresholds_and_comparisons(void **state)
{
	struct rule r = { .expr = EXPR_NUMBER, .number = 2 };

	(void)state;
	assert_true(rule_threshold(&r, 10) == 2);
	r.expr = EXPR_BASE;
	assert_true(rule_threshold(&r, 10) == 10);
	r.expr = EXPR_BASE_MUL;
	assert_true(rule_threshold(&r, 10) == 20);
	r.expr = EXPR_BASE_ADD;
	assert_true(rule_threshold(&r, 10) == 12);
	r.expr = EXPR_BASE_SUB;
	assert_true(rule_threshold(&r, 10) == 8);

	assert_true(rule_compare(RULE_GE, 1, 1) && !rule_compare(RULE_GE, 0.9, 1));
	assert_true(rule_compare(RULE_LE, 1, 1) && !rule_compare(RULE_LE, 1.1, 1));
	assert_true(rule_compare(RULE_GT, 1.1, 1) && !rule_compare(RULE_GT, 1, 1));
	assert_true(rule_compare(RULE_LT, 0.9, 1) && !rule_compare(RULE_LT, 1, 1));
	assert_true(rule_compare(RULE_EQ, 0, 0) && !rule_compare(RULE_EQ, 1e-12, 0));
	assert_true(rule_compare(RULE_NE, 1, 0) && !rule_compare(RULE_NE, 0, 0));
	assert_string_equal(rule_op_name(RULE_NE), "!=");
}

/* One failed rule fails the gate, whatever else had no verdict; PASS only when all passed. */
static void a_failure_outweighs_rules_without_verdict(void **state)
{
	const size_t all_pass[VERDICTS] = { [VERDICT_PASS] = 4 },
		     one_fail[VERDICTS] = { [VERDICT_PASS] = 2, [VERDICT_FAIL] = 1, [VERDICT_NO_VERDICT] = 3 },
		     one_none[VERDICTS] = { [VERDICT_PASS] = 5, [VERDICT_NO_VERDICT] = 1 };

	(void)state;
	assert_int_equal(verdicts_overall(all_pass), VERDICT_PASS);
	assert_int_equal(verdicts_overall(one_fail), VERDICT_FAIL);
	assert_int_equal(verdicts_overall(one_none), VERDICT_NO_VERDICT);
}

static const struct {
	const char *line;
	const char *message;
} malformed[] = {
	{ ">= 1", "t.rules:1:1: expected a metric name, found '>='\n" },
	{ "  == 0", "t.rules:1:3: expected a metric name, found '=='\n" },
	{ "acc$ess >= 1", "t.rules:1:1: expected a metric name, found 'acc$ess'\n" },
	{ "lookup.did_skip_ratio[tmpfs >= 1",
	  "t.rules:1:1: expected a metric name, found 'lookup.did_skip_ratio[tmpfs'\n" },
	{ "lookup.checks[] >= 1", "t.rules:1:1: expected a metric name, found 'lookup.checks[]'\n" },
	{ "lookup.checks[tmpfs]x >= 1",
	  "t.rules:1:1: expected a metric name, found 'lookup.checks[tmpfs]x'\n" },
	{ "access.a2345678901234567890123456789012345678901234567890123456789012345678901234 >= 1",
	  "t.rules:1:1: expected a metric name of at most 79 characters, "
	  "found 'access.a23456789012345678901234567890123...'\n" },
	{ "access.calls", "t.rules:1:13: expected an operator (>=, <=, >, <, ==, !=), "
		"found end of line\n" },
	{ "access.calls 1", "t.rules:1:14: expected an operator (>=, <=, >, <, ==, !=), "
		"found '1'\n" },
	{ "access.calls => 1", "t.rules:1:14: expected an operator (>=, <=, >, <, ==, !=), "
		"found '=>'\n" },
	{ "access.calls = 1", "t.rules:1:14: expected an operator (>=, <=, >, <, ==, !=), "
		"found '='\n" },
	{ "access.calls >== 1", "t.rules:1:14: expected an operator (>=, <=, >, <, ==, !=), "
		"found '>=='\n" },
	{ "access.calls >=", "t.rules:1:16: expected a number or 'base', found end of line\n" },
	{ "access.calls >= # nothing",
	  "t.rules:1:16: expected a number or 'base', found end of line\n" },
	{ "access.calls >= bas", "t.rules:1:17: expected a number or 'base', found 'bas'\n" },
	{ "access.calls >= basement", "t.rules:1:17: expected a number or 'base', found 'basement'\n" },
	{ "access.calls >= inf", "t.rules:1:17: expected a number or 'base', found 'inf'\n" },
	{ "access.calls >= 0.9x", "t.rules:1:17: expected a number or 'base', found '0.9x'\n" },
	{ "access.calls >= 1.5e", "t.rules:1:17: expected a number or 'base', found '1.5e'\n" },
	{ "access.calls >= .", "t.rules:1:17: expected a number or 'base', found '.'\n" },
	{ "access.calls >= - 1", "t.rules:1:17: expected a number or 'base', found '-'\n" },
	{ "access.calls >= base.5", "t.rules:1:17: expected a number or 'base', found 'base.5'\n" },
	{ "access.calls >= baseline.5",
	  "t.rules:1:17: expected a number or 'base', found 'baseline.5'\n" },
	{ "access.calls >= baseline/2",
	  "t.rules:1:17: expected a number or 'base', found 'baseline/2'\n" },
	{ "access.calls >= 1e999", "t.rules:1:17: expected a finite number, found '1e999'\n" },
	{ "access.calls >= baseline / 2", "t.rules:1:26: expected '*', '+', '-', 'significant' "
		"or end of line, found '/'\n" },
	{ "access.calls >= baseline *", "t.rules:1:27: expected a number, found end of line\n" },
	{ "access.calls >= base *", "t.rules:1:23: expected a number, found end of line\n" },
	{ "access.calls >= base * base", "t.rules:1:24: expected a number, found 'base'\n" },
	{ "access.calls >= base / 2", "t.rules:1:22: expected '*', '+', '-', 'significant' "
		"or end of line, found '/'\n" },
	{ "access.calls >= baseline * x", "t.rules:1:28: expected a number, found 'x'\n" },
	{ "access.calls >= baseline * baseline",
	  "t.rules:1:28: expected a number, found 'baseline'\n" },
	{ "access.calls >= baseline + 1 + 2",
	  "t.rules:1:30: expected 'significant' or end of line, found '+'\n" },
	{ "access.calls >= 2 * baseline",
	  "t.rules:1:19: expected 'significant' or end of line, found '*'\n" },
	{ "access.calls >= 1 signif",
	  "t.rules:1:19: expected 'significant' or end of line, found 'signif'\n" },
	{ "access.calls >= 1 significantly",
	  "t.rules:1:19: expected 'significant' or end of line, found 'significantly'\n" },
	{ "access.calls >= baseline Significant", "t.rules:1:26: expected '*', '+', '-', "
		"'significant' or end of line, found 'Significant'\n" },
	{ "access.calls >= 1 significant please",
	  "t.rules:1:31: expected end of line, found 'please'\n" },
	{ "\taccess.calls\t>=\t1\tsig", /* a tab is one column */
	  "t.rules:1:20: expected 'significant' or end of line, found 'sig'\n" },
};

static void malformed_rules_give_exact_messages(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		struct rule_set rs;
		char *errors = NULL;
		int n = rules_parse(malformed[i].line, strlen(malformed[i].line), "t.rules", &rs,
				    &errors);

		if (n != 1 || !errors || strcmp(errors, malformed[i].message))
			fail_msg("rule \"%s\":\n expected %s got (%d) %s", malformed[i].line,
				 malformed[i].message, n, errors ? errors : "nothing\n");
		assert_int_equal(rs.n, 0);
		free(errors);
		rules_free(&rs);
	}
}

static void every_bad_line_is_reported_and_odd_bytes_are_shown_safely(void **state)
{
	/* a NUL and a control byte inside a line: shown as '?' */
	static const char text[] = "access.calls >= 1\n"
				   "oops\n"
				   "\n"
				   "# fine\n"
				   "access.fast <= baseline\n"
				   "access.calls >= 1\0\n"
				   "access.calls >= \x01\n";
	struct rule_set rs;
	char *errors = NULL;

	(void)state;
	assert_int_equal(rules_parse(text, sizeof(text) - 1, "f.rules", &rs, &errors), 3);
	assert_string_equal(errors,
		"f.rules:2:5: expected an operator (>=, <=, >, <, ==, !=), found end of line\n"
		"f.rules:6:17: expected a number or 'base', found '1?'\n"
		"f.rules:7:17: expected a number or 'base', found '?'\n");
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.r[0].line, 1);
	assert_int_equal(rs.r[1].line, 5);
	free(errors);
	rules_free(&rs);

	/* nothing but comments: no rules, no errors */
	parse_ok("# a\n\n  # b\n", &rs);
	assert_int_equal(rs.n, 0);
	rules_free(&rs);

	/* an unreadable file */
	assert_int_equal(rules_read("/nonexistent/x.rules", &rs, &errors), -2 /* ENOENT */);
	assert_null(errors);
}

/* ---- evaluation --------------------------------------------------------- */

static struct rule one_rule(const char *text, struct rule_set *rs)
{
	parse_ok(text, rs);
	assert_int_equal(rs->n, 1);
	return rs->r[0];
}

static void evaluate(const char *text, const struct profile *base, const struct profile *new,
		     struct rule_result *res)
{
	struct rule_set rs;
	struct rule r = one_rule(text, &rs);
	char err[1024];

	if (rule_evaluate(&r, base, new, res, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	rules_free(&rs);
}

/* A jiffies clock: latency rules have no verdict, counts are still judged. */
static void latency_timed_by_a_coarse_clock_gives_no_verdict(void **state)
{
	struct profile stock, fast;
	struct rule_result res;

	(void)state;
	access_profile(&stock, MODE_FENTRY, 1000);
	access_profile(&fast, MODE_FENTRY, 0);
	evaluate("access.latency.p50 <= base * 1.10", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	strcpy(fast.clocksource, "refined-jiffies");
	evaluate("access.latency.p50 <= base * 1.10", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "the new profile was timed by the refined-jiffies "
			    "clocksource (a step every few ms): its latencies are not measurements");
	evaluate("access.avoidable_per_call <= base + 0.01", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	profile_free(&stock);
	profile_free(&fast);
}

static void plain_comparisons_pass_and_fail_on_the_means(void **state)
{
	struct profile stock, fast;
	struct rule_result res;

	(void)state;
	access_profile(&stock, MODE_TRACEPOINT, 1000);
	access_profile(&fast, MODE_TRACEPOINT, 0);

	evaluate("access.avoidable_per_call <= base + 0.01", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	assert_true(res.has_values);
	assert_true(res.new == 0 && res.base == 1 && res.threshold == 1.01);
	assert_int_equal(res.n_new, 1);
	assert_int_equal(res.n_base, 1);
	assert_false(res.tested);
	assert_string_equal(res.reason, "");

	evaluate("access.avoidable_per_call <= 0.01", &fast, &stock, &res);
	assert_int_equal(res.verdict, VERDICT_FAIL);
	assert_true(res.new == 1 && res.base == 0 && res.threshold == 0.01);

	evaluate("access.calls == base", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	evaluate("access.fast > baseline * 2", &fast, &stock, &res);
	assert_int_equal(res.verdict, VERDICT_FAIL);
	evaluate("access.unsafe == 0", &stock, &fast, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	profile_free(&stock);
	profile_free(&fast);
}

static void families_that_did_not_record_or_differ_give_no_verdict(void **state)
{
	struct profile a, b, lk, tp;
	struct rule_result res;

	(void)state;
	access_profile(&a, MODE_TRACEPOINT, 0);
	unavailable(&a, FAMILY_LOOKUP);
	access_profile(&b, MODE_TRACEPOINT, 0);
	with_family(&b, FAMILY_LOOKUP, MODE_FENTRY);

	evaluate("lookup.did_skip_ratio >= 0.9", &b, &a, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_false(res.has_values);
	assert_string_equal(res.reason, "the lookup family did not record in the new profile "
			    "(unavailable)");
	evaluate("lookup.did_skip_ratio >= 0.9", &a, &b, &res);
	assert_string_equal(res.reason, "the lookup family did not record in the base profile "
			    "(unavailable)");
	evaluate("exec.enoent_early_share >= base", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "the exec family did not record in the base profile "
			    "(not requested) nor in the new profile (not requested)");
	/* a misspelt name is bad input even where its family did not record */
	{
		struct rule_set rs;
		struct rule r = one_rule("exec.enoent_erly_share >= baseline", &rs);
		char err[1024];

		assert_int_equal(rule_evaluate(&r, &a, &b, &res, err, sizeof(err)), -1);
		assert_contains(err, "unknown metric 'exec.enoent_erly_share'; "
				     "nearest: exec.enoent_early_share");
		rules_free(&rs);
	}

	access_profile(&tp, MODE_TRACEPOINT, 0);
	access_profile(&lk, MODE_FENTRY, 0);
	evaluate("access.unsafe == 0", &tp, &lk, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "the access family attached with tracepoint in the base "
			    "profile but fentry in the new profile (--allow-mode-mismatch judges "
			    "anyway)");
	profile_free(&a);
	profile_free(&b);
	profile_free(&tp);
	profile_free(&lk);

	/* the family recorded on both sides, the filesystem only in one */
	lookup_profile(&a, "tmpfs", 950);
	lookup_profile(&b, "ext4", 0);
	evaluate("lookup.did_skip_ratio[tmpfs] >= base", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "lookup.did_skip_ratio[tmpfs] is not in the new "
			    "profile, only in the base profile");
	assert_int_equal(res.n_base, 1);
	assert_int_equal(res.n_new, 0);
	assert_true(res.base == 0.95);
	evaluate("lookup.did_skip_ratio[tmpfs] >= 0.9", &a, &a, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	profile_free(&a);
	profile_free(&b);
}

/*
 * A share of no event reads 0: judged, a window without one ENOENT would
 * fail exec.enoent_early_share against a base that had them, or pass it
 * on nothing.  No verdict, saying which side counted nothing.
 */
static void a_share_of_nothing_gives_no_verdict(void **state)
{
	struct profile a, b;
	struct rule_result res;
	struct fs_result *x;

	(void)state;
	base_profile(&a);
	with_family(&a, FAMILY_EXEC, MODE_TRACEPOINT);
	a.exec.calls[EXEC_ENOENT_EARLY] = 10;
	a.exec.calls[EXEC_OK] = 5;
	base_profile(&b);
	with_family(&b, FAMILY_EXEC, MODE_TRACEPOINT);
	b.exec.calls[EXEC_OK] = 5;
	evaluate("exec.enoent_early_share >= base - 0.01", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "exec.enoent_early_share is a share of nothing in the new "
			    "profile: no event it is a share of was counted");
	evaluate("exec.enoent_early_share >= base - 0.01", &b, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_contains(res.reason, "in the base and new profiles");
	/* a count of the same profiles is still judged: 0 calls is a measurement */
	evaluate("exec.enoent <= base", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	profile_free(&a);
	profile_free(&b);

	/* per filesystem: a filesystem with no check on one side */
	lookup_profile(&a, "tmpfs", 900);
	lookup_profile(&b, "tmpfs", 0);
	x = profile_add_fs(&b, "tmpfs"); /* the one lookup_profile() made */
	assert_non_null(x);
	x->s.checks = x->s.would_skip = 0;
	evaluate("lookup.did_skip_ratio[tmpfs] >= base - 0.01", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_contains(res.reason, "is a share of nothing in the new profile");
	profile_free(&a);
	profile_free(&b);
}

/*
 * A duty-cycled profile (daemon --duty-cycle): counts exact for its
 * windows.  One that watched no time is no evidence; a count set against
 * the base's is judged only between sides that sample alike; a share, and
 * a count held to a number, are judged whatever the cycles.
 */
static void counts_in_windows_are_judged_only_for_what_they_watched(void **state)
{
	const struct observation cycle = { 200000000, 15000000000ULL, 400000000, 2, 0 };
	struct profile a, b;
	struct rule_result res;

	(void)state;
	access_profile(&a, MODE_FENTRY, 0);
	access_profile(&b, MODE_FENTRY, 0);
	b.fam[FAMILY_ACCESS].observed = cycle;
	evaluate("access.avoidable_per_call <= base + 0.01", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	evaluate("access.unsafe == 0", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	evaluate("access.calls >= base * 0.9", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "access.calls counts always on in the base profile but "
			    "0.2 s in every 15 s in the new: a count is set against the base's "
			    "only when both sample alike (a ratio or share compares across duty "
			    "cycles)");
	/* both in the same cycle: counts compare */
	a.fam[FAMILY_ACCESS].observed = cycle;
	evaluate("access.calls >= base * 0.9", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	/* no window inside the span: nothing watched, even for a count held to 0 */
	b.fam[FAMILY_ACCESS].observed.ns = 0;
	b.fam[FAMILY_ACCESS].observed.windows = 0;
	evaluate("access.unsafe == 0", &a, &b, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "the new profile's access family watched no time (0.2 s "
			    "in every 15 s, no window counted inside its span): its counts are no "
			    "evidence");
	profile_free(&a);
	profile_free(&b);
}

static void unknown_metrics_are_bad_input_with_the_nearest_names(void **state)
{
	char want[256], names[128];
	struct profile a, b;
	struct rule_set rs;
	struct rule r;
	struct rule_result res;
	char err[1024];

	(void)state;
	access_profile(&a, MODE_TRACEPOINT, 0);
	access_profile(&b, MODE_TRACEPOINT, 0);
	r = one_rule("access.avoidable_per_cal <= 0.01", &rs);
	assert_int_equal(rule_evaluate(&r, &a, &b, &res, err, sizeof(err)), -1);
	assert_contains(err, "t.rules:1: unknown metric 'access.avoidable_per_cal'; nearest: "
			"access.avoidable_per_call, ");
	rules_free(&rs);

	parse_ok("\n\nbenchmark.access1.ops_per_s >= baseline * 0.95 significant", &rs);
	assert_int_equal(rule_evaluate(&rs.r[0], &a, &b, &res, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "t.rules:3: unknown metric 'benchmark.access1.ops_per_s' "
		 "('benchmark' is no family: %s; nor bench nor cred); nearest: ",
		 family_names_text(names, sizeof(names), NULL));
	assert_contains(err, want);
	rules_free(&rs);

	/* bench.* names are permscope bench's (src/schema.c), checked as strictly */
	parse_ok("bench.access1.ops_per_sec >= base", &rs);
	assert_int_equal(rule_evaluate(&rs.r[0], &a, &b, &res, err, sizeof(err)), -1);
	assert_contains(err, "t.rules:1: unknown metric 'bench.access1.ops_per_sec'; nearest: "
			"bench.access1.ops_per_s, ");
	rules_free(&rs);
	profile_free(&a);
	profile_free(&b);

	/* a filesystem neither profile saw */
	lookup_profile(&a, "tmpfs", 1000);
	lookup_profile(&b, "tmpfs", 1000);
	r = one_rule("lookup.did_skip_ratio[tmfps] >= 0.9", &rs);
	assert_int_equal(rule_evaluate(&r, &a, &b, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "t.rules:1: unknown metric 'lookup.did_skip_ratio[tmfps]'; "
			    "nearest: lookup.did_skip_ratio[tmpfs], lookup.would_skip_ratio[tmpfs], "
			    "lookup.did_skip_ratio");
	rules_free(&rs);
	profile_free(&a);
	profile_free(&b);
}

static void significance_over_runs(void **state)
{
	static const double tight_base[] = { 1.00, 1.01, 0.99 };
	static const double tight_low[] = { 0.50, 0.51, 0.49 };
	static const double noisy_base[] = { 1.0, 0.5, 1.5 };
	static const double noisy_low[] = { 0.9, 0.4, 1.2 };
	static const char *const rule = "access.fast_ratio >= base * 0.95 significant";
	struct profile b, c, one;
	struct rule_result res;

	(void)state;
	/* clearly lower: FAIL, with p */
	runs_profile(&b, "access.fast_ratio", tight_base, 3);
	runs_profile(&c, "access.fast_ratio", tight_low, 3);
	evaluate(rule, &b, &c, &res);
	assert_int_equal(res.verdict, VERDICT_FAIL);
	assert_true(res.tested);
	assert_true(res.p < 0.05);
	assert_false(res.not_significant);
	assert_int_equal(res.n_new, 3);
	assert_int_equal(res.n_base, 3);
	assert_true(fabs(res.new - 0.5) < 1e-12 && fabs(res.base - 1.0) < 1e-12);
	/* the same comparison without `significant` fails too */
	evaluate("access.fast_ratio >= baseline * 0.95", &b, &c, &res);
	assert_int_equal(res.verdict, VERDICT_FAIL);
	assert_false(res.tested);
	/* holds: PASS without a test */
	evaluate(rule, &c, &b, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	assert_false(res.tested);
	profile_free(&b);
	profile_free(&c);

	/* lower on average, but within the noise: PASS marked ~ */
	runs_profile(&b, "access.fast_ratio", noisy_base, 3);
	runs_profile(&c, "access.fast_ratio", noisy_low, 3);
	evaluate(rule, &b, &c, &res);
	assert_int_equal(res.verdict, VERDICT_PASS);
	assert_true(res.tested);
	assert_true(res.p >= 0.05);
	assert_true(res.not_significant);
	assert_string_equal(res.reason, "difference not significant");
	evaluate("access.fast_ratio >= baseline * 0.95", &b, &c, &res);
	assert_int_equal(res.verdict, VERDICT_FAIL);

	/* one run on the new side: no verdict */
	access_profile(&one, MODE_TRACEPOINT, 0);
	evaluate(rule, &b, &one, &res);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "too few samples: n=1 new and 3 base; significance "
			    "needs 2 on each side");
	assert_true(res.has_values);
	profile_free(&b);
	profile_free(&c);
	profile_free(&one);
}

/* ---- the binary ----------------------------------------------------------- */

/* stock.json (every access call avoidable), fast.json (none), lookup/mismatch ones. */
/* The build stock.json names; fast.json, like a profile older than builds, names none. */
#define STOCK_BUILD "permscope 0.2.0-3-g0123456 (libbpf v1.4)"
#define FAST_BUILD "permscope 0.1.0 (build unknown: written before builds were kept)"

static void write_profiles(void)
{
	struct profile p;

	access_profile(&p, MODE_TRACEPOINT, 1000);
	strcpy(p.build.version, "0.2.0-3-g0123456");
	strcpy(p.build.revision, "0123456789abcdef0123456789abcdef01234567");
	strcpy(p.build.libbpf, "v1.4");
	save(&p, "stock.json");
	access_profile(&p, MODE_TRACEPOINT, 0);
	strcpy(p.tool_version, "0.1.0");
	save(&p, "fast.json");
	access_profile(&p, MODE_FENTRY, 0);
	save(&p, "fentry.json");
}

static void gate_exit_statuses_and_text_output(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json"), *rules;
	char expected[2048];

	(void)state;
	write_profiles();
	rules = write_tmp_file("ok.rules", "access.avoidable_per_call <= 0.01\naccess.unsafe == 0\n");
	assert_int_equal(permscope("gate", "--base", stock, "--new", fast, "--rules", rules,
				   NULL), 0);
	/* both builds named first: a verdict is about the change between them */
	snprintf(expected, sizeof(expected),
		"gate: base %s: " STOCK_BUILD "\n"
		"gate: new  %s\ngate:      " FAST_BUILD "\n"
		"PASS  access.avoidable_per_call  new 0  base 1  threshold <= 0.01\n"
		"PASS  access.unsafe  new 0  base 0  threshold == 0\n"
		"gate: 2 passed, 0 failed, 0 without verdict, 0 skipped\n", stock, fast);
	assert_string_equal(out_text, expected);
	assert_string_equal(err_text, "");

	/* the other way round: the fast path was lost */
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, NULL), 1);
	snprintf(expected, sizeof(expected),
		"gate: base %s\ngate:      " FAST_BUILD "\n"
		"gate: new  %s: " STOCK_BUILD "\n"
		"FAIL  access.avoidable_per_call  new 1  base 0  threshold <= 0.01\n"
		"PASS  access.unsafe  new 0  base 0  threshold == 0\n"
		"gate: 1 passed, 1 failed, 0 without verdict, 0 skipped\n", fast, stock);
	assert_string_equal(out_text, expected);
	/* -q: only what did not pass */
	assert_int_equal(permscope("gate", "-q", "-b", fast, "-n", stock, "-r", rules, NULL), 1);
	assert_string_equal(out_text,
		"FAIL  access.avoidable_per_call  new 1  base 0  threshold <= 0.01\n");

	/* the default rules on access-only profiles: exec and lookup were not asked, skipped */
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, NULL), 0);
	assert_contains(out_text, "PASS  access.unsafe  new 0  base 0  threshold == 0\n");
	assert_contains(out_text, "PASS  access.avoidable_per_call  new 0  base 1  "
			"threshold <= 1.01\n");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  exec.enoent_early_share  neither profile was asked to "
			"record the exec family\n");
	/* and the cred layout, which profiles from before it was kept do not hold */
	assert_contains(out_text, "gate: 2 passed, 0 failed, 0 without verdict, 4 skipped\n");
	/* a failure wins over no verdict */
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, NULL), 1);
	assert_contains(out_text, "FAIL  access.avoidable_per_call  new 1  base 0  "
			"threshold <= 0.01\n");

	/* mode mismatch */
	assert_int_equal(permscope("gate", "-b", fast, "-n", tmp_path("fentry.json"), "-r", rules,
				   NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.unsafe  the access family attached with "
			"tracepoint in the base profile but fentry in the new profile "
			"(--allow-mode-mismatch judges anyway)\n");
}

/* Scripts written for gate/1 keep working: --baseline, --current and -c, `baseline` in rules. */
static void gate_takes_the_old_spellings_of_base_and_new(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json"), *rules;
	char *expected;

	(void)state;
	write_profiles();
	rules = write_tmp_file("old.rules", "access.avoidable_per_call <= baseline + 0.01\n"
					"access.calls == baseline\n");
	assert_int_equal(permscope("gate", "--base", fast, "--new", stock, "-r", rules, NULL), 1);
	assert_contains(out_text, "FAIL  access.avoidable_per_call  new 1  base 0  "
			"threshold <= 0.01\n");
	expected = strdup(out_text);
	assert_non_null(expected);
	assert_int_equal(permscope("gate", "--baseline", fast, "--current", stock, "-r", rules,
				   NULL), 1);
	assert_string_equal(out_text, expected);
	assert_int_equal(permscope("gate", "-b", fast, "-c", stock, "-r", rules, NULL), 1);
	assert_string_equal(out_text, expected);
	assert_string_equal(err_text, "");
	free(expected);
	/* the old spellings are not advertised */
	assert_int_equal(permscope("gate", "--help", NULL), 0);
	assert_contains(out_text, "  -b, --base=BASE ");
	assert_contains(out_text, "  -n, --new=NEW ");
	assert_null(strstr(out_text, "--baseline"));
	assert_null(strstr(out_text, "--current"));
	assert_null(strstr(out_text, "-c,"));
}

static void gate_bad_input_exits_2_and_evaluates_nothing(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json"), *rules;

	(void)state;
	write_profiles();
	rules = write_tmp_file("bad.rules", "access.unsafe == 0\n"
				       "access.calls =< 1\n"
				       "# ok\n"
				       "access.calls >= baseline * x\n");
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", rules, NULL), 2);
	assert_string_equal(out_text, "");
	assert_contains(err_text, "Error: ");
	assert_contains(err_text, "bad.rules:2:14: expected an operator (>=, <=, >, <, ==, !=), "
			"found '=<'\n");
	assert_contains(err_text, "bad.rules:4:28: expected a number, found 'x'\n");

	rules = write_tmp_file("unknown.rules", "access.unsafe == 0\naccess.avoidable_percall <= 0.01\n");
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", rules, NULL), 2);
	assert_string_equal(out_text, "");
	assert_contains(err_text, "unknown.rules:2: unknown metric 'access.avoidable_percall'; "
			"nearest: access.avoidable_per_call, ");

	rules = write_tmp_file("bench.rules", "bench.access1.ops_per_sec >= baseline * 0.95 significant\n");
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", rules, NULL), 2);
	assert_contains(err_text, "bench.rules:1: unknown metric 'bench.access1.ops_per_sec'");

	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", "/nonexistent/r", NULL), 2);
	assert_contains(err_text, "Error: cannot read /nonexistent/r: No such file or directory");

	rules = write_tmp_file("empty.rules", "# nothing yet\n");
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", rules, NULL), 2);
	assert_contains(err_text, "empty.rules: no rules");

	assert_int_equal(permscope("gate", "-b", "/nonexistent/p.json", "-n", fast, NULL), 2);
	assert_contains(err_text, "Error: /nonexistent/p.json: cannot open:");
	write_tmp_file("trunc.json", "{\"format\": \"permscope-profile/1\", \"host\": {");
	assert_int_equal(permscope("gate", "-b", stock, "-n", tmp_path("trunc.json"), NULL), 2);
	assert_contains(err_text, "not valid JSON");
	assert_string_equal(out_text, "");

	assert_int_equal(permscope("gate", "-b", stock, NULL), 2);
	assert_contains(err_text, "--base BASE and --new NEW are required");
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "extra", NULL), 2);
	assert_contains(err_text, "unexpected argument 'extra'");
}

/*
 * permscope(...) with standard output on /dev/full, where every write fails
 * with ENOSPC: the exit status, with stderr in err_text.
 */
static int permscope_into_dev_full(const char *first, ...)
{
	const char *err = tmp_path("stderr");
	char *argv[32];
	int n = 0, status;
	va_list ap;

	argv[n++] = (char *)permscope_bin();
	va_start(ap, first);
	for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	status = run_to(argv, "/dev/full", err);
	free(err_text);
	err_text = slurp(err, NULL);
	return status;
}

/*
 * Exit 4: the gate judged, but could not deliver the verdicts; never 2,
 * which is bad input.  A --junit FILE that cannot be written at all is bad
 * usage, refused before judging (test_badinput has every such case).
 */
static void gate_environment_failures_exit_4(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json");
	const char *junit = tmp_path("efbig.xml");
	char msg[700];

	(void)state;
	write_profiles();
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "--junit",
				   "/nonexistent-dir/x.xml", NULL), 2);
	assert_string_equal(err_text, "Error: /nonexistent-dir/x.xml: cannot write there: directory "
			    "/nonexistent-dir: No such file or directory\n");
	assert_string_equal(out_text, "");
	/* a directory where the JUnit file should go */
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "--junit", tmpdir, NULL), 2);
	snprintf(msg, sizeof(msg), "Error: %s: cannot write there: a directory\n", tmpdir);
	assert_string_equal(err_text, msg);
	assert_string_equal(out_text, "");
	/*
	 * A write that fails after the check: a file size limit of 512 bytes,
	 * under the JUnit file's size and over the error line's, gives EFBIG as
	 * a full disk gives ENOSPC.
	 */
	{
		char *argv[] = { "/bin/sh", "-c", "trap '' XFSZ; ulimit -f 1; exec \"$@\"", "sh",
				 (char *)permscope_bin(), "gate", "-b", (char *)stock, "-n",
				 (char *)fast, "--junit", (char *)junit, NULL };

		assert_int_equal(run_capture(argv), 4);
		snprintf(msg, sizeof(msg), "Error: cannot write %s: File too large\n", junit);
		assert_string_equal(err_text, msg);
		assert_string_equal(out_text, "");
		assert_int_equal(access(junit, F_OK), -1);
	}
	/* standard output that cannot be written: text, JSON, the default rules */
	assert_int_equal(permscope_into_dev_full("gate", "-b", stock, "-n", fast, NULL), 4);
	assert_contains(err_text, "Error: writing to standard output failed: No space left on "
			"device\n");
	assert_int_equal(permscope_into_dev_full("gate", "-b", fast, "-n", stock, "-j", NULL), 4);
	assert_contains(err_text, "Error: writing to standard output failed: No space left on "
			"device\n");
	assert_int_equal(permscope_into_dev_full("gate", "--print-default-rules", NULL), 4);
	assert_contains(err_text, "Error: writing to standard output failed: No space left on "
			"device\n");
}

static void gate_significance_in_the_output(void **state)
{
	static const double tight_base[] = { 1.00, 1.01, 0.99 };
	static const double tight_low[] = { 0.50, 0.51, 0.49 };
	static const double noisy_base[] = { 1.0, 0.5, 1.5 };
	static const double noisy_low[] = { 0.9, 0.4, 1.2 };
	struct profile p;
	const char *rules;
	char *p_at;

	(void)state;
	runs_profile(&p, "access.fast_ratio", tight_base, 3);
	save(&p, "tight-base.json");
	runs_profile(&p, "access.fast_ratio", tight_low, 3);
	save(&p, "tight-low.json");
	runs_profile(&p, "access.fast_ratio", noisy_base, 3);
	save(&p, "noisy-base.json");
	runs_profile(&p, "access.fast_ratio", noisy_low, 3);
	save(&p, "noisy-low.json");
	rules = write_tmp_file("sig.rules", "access.fast_ratio >= base * 0.95 significant\n");

	assert_int_equal(permscope("gate", "-b", tmp_path("tight-base.json"),
				   "-n", tmp_path("tight-low.json"), "-r", rules, NULL), 1);
	assert_contains(out_text, "FAIL  access.fast_ratio  new 0.5  base 1  "
			"threshold >= 0.95  p=");
	p_at = strstr(out_text, "p=");
	assert_true(strtod(p_at + 2, NULL) < 0.05);

	assert_int_equal(permscope("gate", "-b", tmp_path("noisy-base.json"),
				   "-n", tmp_path("noisy-low.json"), "-r", rules, NULL), 0);
	assert_contains(out_text, "PASS  access.fast_ratio  new 0.833333  base 1  "
			"threshold >= 0.95  ~ p=");
	p_at = strstr(out_text, "~ p=");
	assert_true(strtod(p_at + 4, NULL) >= 0.05);
	assert_contains(out_text, "gate: 1 passed, 0 failed, 0 without verdict, 0 skipped\n");

	/* a single recording against runs: too few samples */
	assert_int_equal(permscope("gate", "-b", tmp_path("noisy-base.json"),
				   "-n", tmp_path("fast.json"), "-r", rules, NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.fast_ratio  new 1  base 1  "
			"threshold >= 0.95  too few samples: n=1 new and 3 base; significance "
			"needs 2 on each side\n");
}

/*
 * gate --test mann-whitney: 3 runs a side can never reach p < 0.05 by ranks
 * (no verdict, saying why, where Welch's t fails the rule), 4 a side can
 * (2 of the 70 splits: p = 0.029); the text, JSON and JUnit name the test.
 */
static void gate_mann_whitney_needs_enough_runs_and_is_named(void **state)
{
	static const double tight_base[] = { 1.00, 1.01, 0.99 };
	static const double tight_low[] = { 0.50, 0.51, 0.49 };
	static const double four_base[] = { 1.00, 1.01, 0.99, 1.02 };
	static const double four_low[] = { 0.50, 0.51, 0.49, 0.52 };
	const char *junit = tmp_path("mw.xml");
	struct profile p;
	const char *rules;
	json_t *root, *r;

	(void)state;
	runs_profile(&p, "access.fast_ratio", tight_base, 3);
	save(&p, "mw-base3.json");
	runs_profile(&p, "access.fast_ratio", tight_low, 3);
	save(&p, "mw-low3.json");
	runs_profile(&p, "access.fast_ratio", four_base, 4);
	save(&p, "mw-base4.json");
	runs_profile(&p, "access.fast_ratio", four_low, 4);
	save(&p, "mw-low4.json");
	rules = write_tmp_file("mw.rules", "access.fast_ratio >= base * 0.95 significant\n");

	assert_int_equal(permscope("gate", "-b", tmp_path("mw-base3.json"),
				   "-n", tmp_path("mw-low3.json"), "-r", rules, NULL), 1);
	assert_contains(out_text, "gate: significance: Welch's t-test, p < 0.05\n");
	assert_int_equal(permscope("gate", "-b", tmp_path("mw-base3.json"),
				   "-n", tmp_path("mw-low3.json"), "-r", rules,
				   "--test", "mann-whitney", NULL), 3);
	assert_contains(out_text, "gate: significance: Mann-Whitney U test, p < 0.05\n");
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.fast_ratio  new 0.5  base 1  "
			"threshold >= 0.95  too few samples: n=3 new and 3 base; Mann-Whitney's p "
			"is never below 0.1 with these (Welch's t needs 2 on each side)\n");

	assert_int_equal(permscope("gate", "-b", tmp_path("mw-base4.json"),
				   "-n", tmp_path("mw-low4.json"), "-r", rules, "--test=mann-whitney",
				   "--junit", junit, "-j", NULL), 1);
	root = json_loads(out_text, 0, NULL);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "test")), "mann-whitney-u");
	r = json_array_get(json_object_get(root, "rules"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "fail");
	assert_true(fabs(json_number_value(json_object_get(r, "p")) - 2.0 / 70) < 1e-12);
	assert_string_equal(json_string_value(json_object_get(r, "p_method")), "exact");
	json_decref(root);
	{
		char *x = slurp(junit, NULL);

		assert_non_null(x);
		assert_contains(x, "<property name=\"test\" value=\"mann-whitney-u\"/>");
		free(x);
	}

	assert_int_equal(permscope("gate", "-b", tmp_path("mw-base4.json"),
				   "-n", tmp_path("mw-low4.json"), "--test", "t", NULL), 2);
	assert_contains(err_text, "invalid --test 't' (one of welch,mann-whitney)");
}

static void gate_json_output_parses(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json"), *rules;
	json_error_t e;
	json_t *root, *r;

	(void)state;
	write_profiles();
	rules = write_tmp_file("json.rules", "access.avoidable_per_call <= 0.01 # the fast path\n"
					 "lookup.violations == 0\n");
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, "--json", NULL), 1);
	root = json_loads(out_text, 0, &e);
	if (!root)
		fail_msg("not JSON: %s\n%s", e.text, out_text);
	assert_string_equal(json_string_value(json_object_get(root, "format")), "permscope-gate/3");
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "fail");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 1);
	assert_int_equal(json_array_size(json_object_get(root, "rules")), 2);
	/* both sides' builds: the base's unknown (null), the new one's as recorded */
	r = json_object_get(root, "base");
	assert_string_equal(json_string_value(json_object_get(r, "path")), fast);
	assert_string_equal(json_string_value(json_object_get(r, "tool")), "0.1.0");
	assert_true(json_is_null(json_object_get(r, "build")));
	r = json_object_get(json_object_get(root, "new"), "build");
	assert_string_equal(json_string_value(json_object_get(r, "version")), "0.2.0-3-g0123456");
	assert_string_equal(json_string_value(json_object_get(r, "revision")),
			    "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(json_string_value(json_object_get(r, "libbpf")), "v1.4");

	r = json_array_get(json_object_get(root, "rules"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "rule")),
			    "access.avoidable_per_call <= 0.01");
	assert_string_equal(json_string_value(json_object_get(r, "file")), rules);
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 1);
	assert_string_equal(json_string_value(json_object_get(r, "metric")),
			    "access.avoidable_per_call");
	assert_string_equal(json_string_value(json_object_get(r, "op")), "<=");
	assert_true(json_number_value(json_object_get(r, "threshold")) == 0.01);
	assert_true(json_number_value(json_object_get(r, "new")) == 1);
	assert_true(json_number_value(json_object_get(r, "base")) == 0);
	assert_int_equal(json_integer_value(json_object_get(r, "n_new")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "n_base")), 1);
	assert_null(json_object_get(r, "current")); /* gate/1's names are gone */
	assert_null(json_object_get(r, "n_baseline"));
	assert_true(json_is_null(json_object_get(r, "p")));
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "fail");
	assert_true(json_is_null(json_object_get(r, "reason")));

	r = json_array_get(json_object_get(root, "rules"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "skipped");
	assert_true(json_is_null(json_object_get(r, "threshold")));
	assert_true(json_is_null(json_object_get(r, "new")));
	assert_true(json_is_null(json_object_get(r, "base")));
	assert_int_equal(json_integer_value(json_object_get(r, "n_new")), 0);
	assert_string_equal(json_string_value(json_object_get(r, "reason")),
			    "neither profile was asked to record the lookup family");
	json_decref(root);

	/* no verdict without failure (lookup asked for by --families): "no-verdict", 3 */
	assert_int_equal(permscope("gate", "-b", stock, "-n", fast, "-r", rules, "--families", "all",
				   "-j", NULL), 3);
	root = json_loads(out_text, 0, &e);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "no-verdict");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 3);
	json_decref(root);
}

/*
 * --json-file FILE keeps the JSON -j would print while the text goes to
 * stdout; -o FILE takes what would be printed instead; a link there is
 * refused.
 */
static void gate_output_file_is_the_json_beside_the_text(void **state)
{
	const char *stock = tmp_path("stock.json"), *fast = tmp_path("fast.json");
	const char *kept = tmp_path("gate-kept.json"), *link = tmp_path("gate-link.json"), *rules;
	char *json, *file;

	(void)state;
	write_profiles();
	rules = write_tmp_file("o.rules", "access.avoidable_per_call <= 0.01\nlookup.violations == 0\n");
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, "-j", NULL), 1);
	json = strdup(out_text);
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, "--json-file",
				   kept, NULL), 1);
	assert_contains(out_text, "FAIL  access.avoidable_per_call");
	assert_contains(out_text, "gate: 0 passed, 1 failed, 0 without verdict, 1 skipped");
	file = slurp(kept, NULL);
	assert_string_equal(file, json);
	free(file);
	/* -o with -j: the same JSON, in the file, nothing on stdout */
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, "-j", "-o", kept,
				   NULL), 1);
	assert_string_equal(out_text, "");
	file = slurp(kept, NULL);
	assert_string_equal(file, json);
	free(file);
	free(json);

	assert_int_equal(symlink("gate-kept.json", link), 0);
	assert_int_equal(permscope("gate", "-b", fast, "-n", stock, "-r", rules, "-o", link, NULL), 2);
	assert_contains(err_text, "a symbolic link");
	assert_string_equal(out_text, "");
}

static void gate_junit_file(void **state)
{
	struct profile p;
	struct fs_result *fs;
	const char *rules, *junit = tmp_path("gate.xml");
	char *xml, expected[4096];

	(void)state;
	write_profiles();
	/* a filesystem whose name needs escaping in XML; access in different modes */
	lookup_profile(&p, "tmpfs", 950);
	fs = profile_add_fs(&p, "x&\"'y");
	fs->s.checks = 10;
	profile_sort_fs(&p);
	set_access(&p, MODE_TRACEPOINT, 1000);
	strcpy(p.build.version, "0.2.0<&>");
	strcpy(p.build.libbpf, "v1.4");
	save(&p, "lookup-base.json");
	lookup_profile(&p, "tmpfs", 500);
	fs = profile_add_fs(&p, "x&\"'y");
	fs->s.checks = 10;
	profile_sort_fs(&p);
	set_access(&p, MODE_FENTRY, 0);
	strcpy(p.tool_version, "0.1.0");
	save(&p, "lookup-cur.json");

	rules = write_tmp_file("junit.rules",
			   "lookup.checks[x&\"'y] < 20\n"
			   "lookup.did_skip_ratio[tmpfs] >= base - 0.01\n"
			   "access.unsafe == 0\n");
	assert_int_equal(permscope("gate", "-b", tmp_path("lookup-base.json"),
				   "-n", tmp_path("lookup-cur.json"), "-r", rules, "--junit", junit,
				   NULL), 1);
	xml = slurp(junit, NULL);
	assert_non_null(xml);
	snprintf(expected, sizeof(expected),
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"permscope gate\" tests=\"3\" failures=\"1\" errors=\"1\" "
		"skipped=\"0\">\n"
		"  <properties>\n"
		"    <property name=\"base\" value=\"%s\"/>\n"
		"    <property name=\"base.build\" value=\"permscope 0.2.0&lt;&amp;&gt; "
		"(libbpf v1.4)\"/>\n"
		"    <property name=\"new\" value=\"%s\"/>\n"
		"    <property name=\"new.build\" value=\"" FAST_BUILD "\"/>\n"
		"  </properties>\n"
		"  <testcase classname=\"permscope.gate\" name=\"lookup.checks[x&amp;&quot;&apos;y] "
		"&lt; 20\"/>\n"
		"  <testcase classname=\"permscope.gate\" name=\"lookup.did_skip_ratio[tmpfs] &gt;= "
		"base - 0.01\">\n"
		"    <failure message=\"lookup.did_skip_ratio[tmpfs]: new 0.5  base 0.95  "
		"threshold &gt;= 0.94\"/>\n"
		"  </testcase>\n"
		"  <testcase classname=\"permscope.gate\" name=\"access.unsafe == 0\">\n"
		"    <error type=\"no-verdict\" message=\"no verdict: the access family attached "
		"with tracepoint in the base profile but fentry in the new profile "
		"(--allow-mode-mismatch judges anyway)\"/>\n"
		"  </testcase>\n"
		"</testsuite>\n", tmp_path("lookup-base.json"), tmp_path("lookup-cur.json"));
	assert_string_equal(xml, expected);
	free(xml);
	/* the text output is printed as well */
	assert_contains(out_text, "gate: 1 passed, 1 failed, 1 without verdict, 0 skipped\n");
	/* bad input writes no JUnit file */
	unlink(junit);
	assert_int_equal(permscope("gate", "-b", tmp_path("lookup-base.json"), "-n",
				   "/nonexistent.json", "--junit", junit, NULL), 2);
	assert_int_equal(access(junit, F_OK), -1);
}

static void default_rules_are_printed_and_parse(void **state)
{
	struct rule_set rs;

	(void)state;
	assert_int_equal(permscope("gate", "--print-default-rules", NULL), 0);
	parse_ok(out_text, &rs);
	assert_int_equal(rs.n, 6);
	assert_string_equal(rs.r[0].text, "access.unsafe == 0");
	assert_string_equal(rs.r[1].text, "access.avoidable_per_call <= base + 0.01");
	assert_string_equal(rs.r[2].text, "exec.enoent_early_share >= base - 0.01");
	assert_string_equal(rs.r[3].text, "lookup.violations == 0");
	assert_string_equal(rs.r[4].text, "lookup.did_skip_ratio >= base - 0.01");
	assert_string_equal(rs.r[5].text, "cred.refcount_shares_line <= base");
	rules_free(&rs);
	assert_int_equal(permscope("gate", "--help", NULL), 0);
	assert_contains(out_text, "Usage: permscope gate");
	assert_contains(out_text, "--junit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_rules_of_every_form_parse),
		cmocka_unit_test(thresholds_and_comparisons),
		cmocka_unit_test(a_failure_outweighs_rules_without_verdict),
		cmocka_unit_test(malformed_rules_give_exact_messages),
		cmocka_unit_test(every_bad_line_is_reported_and_odd_bytes_are_shown_safely),
		cmocka_unit_test(plain_comparisons_pass_and_fail_on_the_means),
		cmocka_unit_test(latency_timed_by_a_coarse_clock_gives_no_verdict),
		cmocka_unit_test(families_that_did_not_record_or_differ_give_no_verdict),
		cmocka_unit_test(a_share_of_nothing_gives_no_verdict),
		cmocka_unit_test(counts_in_windows_are_judged_only_for_what_they_watched),
		cmocka_unit_test(unknown_metrics_are_bad_input_with_the_nearest_names),
		cmocka_unit_test(significance_over_runs),
		cmocka_unit_test(gate_exit_statuses_and_text_output),
		cmocka_unit_test(gate_takes_the_old_spellings_of_base_and_new),
		cmocka_unit_test(gate_bad_input_exits_2_and_evaluates_nothing),
		cmocka_unit_test(gate_environment_failures_exit_4),
		cmocka_unit_test(gate_significance_in_the_output),
		cmocka_unit_test(gate_mann_whitney_needs_enough_runs_and_is_named),
		cmocka_unit_test(gate_json_output_parses),
		cmocka_unit_test(gate_output_file_is_the_json_beside_the_text),
		cmocka_unit_test(gate_junit_file),
		cmocka_unit_test(default_rules_are_printed_and_parse),
	};

	return cmocka_run_group_tests_name("gate", tests, tmpdir_setup, tmpdir_teardown);
}
