// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verdicts of check --self-test (src/run/selftest.c) from crafted counts:
 * what each kernel of the VM suite records gives its answer, and every
 * reason the counts cannot be trusted -- a family that did not attach,
 * events lost, calls missed, a positive control that failed, a violation
 * -- gives "unknown" with that reason, never a confident yes or no.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"

#include "run/selftest.h"

/*
 * A run on a kernel with all three fast paths (sid 7.2), every count what
 * the workload makes; the tests below change what they are about.
 */
static void fast_kernel(struct selftest *t)
{
	struct fs_result *tree, *ctl;

	selftest_init(t);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		t->run.fam[f].status = FAMILY_OK;
		t->run.fam[f].mode = MODE_FENTRY;
		t->run.fam[f].lost_known = true;
		family_add_lost(&t->run.fam[f], "fentry_prog", 0);
	}
	t->phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_FAST] = t->n[ST_ACCESS_DEFAULT];
	t->phase[ST_ACCESS_DROPCAP].access.calls[ACCESS_NEEDED] = t->n[ST_ACCESS_DROPCAP];
	t->phase[ST_EXEC_MISSING].exec.calls[EXEC_ENOENT_EARLY] = t->n[ST_EXEC_MISSING];
	t->phase[ST_EXEC_MISSING].exec.errnos[ENOENT] = t->n[ST_EXEC_MISSING];
	t->phase[ST_EXEC_CONTROL].exec.calls[EXEC_ERROR_OTHER] = t->n[ST_EXEC_CONTROL];
	t->phase[ST_EXEC_CONTROL].exec.errnos[E2BIG] = t->n[ST_EXEC_CONTROL];
	t->phase[ST_EXEC_CONTROL].exec.mm_allocs = t->n[ST_EXEC_CONTROL];
	tree = profile_add_fs(&t->phase[ST_STAT_TREE], "tmpfs");
	tree->s.checks = tree->s.did_skip = tree->s.would_skip =
		ST_TREE_CHECKS * t->n[ST_STAT_TREE];
	ctl = profile_add_fs(&t->phase[ST_STAT_CONTROL], "tmpfs");
	ctl->s.checks = ST_CONTROL_CHECKS * t->n[ST_STAT_CONTROL];
	ctl->s.did_skip = ctl->s.would_skip = t->n[ST_STAT_CONTROL]; /* the top, not ctl */
	ctl->s.ineligible[LOOKUP_INEL_MODE] = t->n[ST_STAT_CONTROL];
}

/* What bookworm's 6.1 records: no fast path at all. */
static void stock_kernel(struct selftest *t)
{
	struct lookup_stats *s;

	fast_kernel(t);
	t->phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_FAST] = 0;
	t->phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_AVOIDABLE] = t->n[ST_ACCESS_DEFAULT];
	t->phase[ST_EXEC_MISSING].exec.calls[EXEC_ENOENT_EARLY] = 0;
	t->phase[ST_EXEC_MISSING].exec.calls[EXEC_ENOENT_LATE] = t->n[ST_EXEC_MISSING];
	t->phase[ST_EXEC_MISSING].exec.mm_allocs = t->n[ST_EXEC_MISSING];
	s = &t->phase[ST_STAT_TREE].fs[0].s;
	s->did_skip = 0;
	s->nested = s->checks;
	t->phase[ST_STAT_CONTROL].fs[0].s.did_skip = 0;
}

static enum selftest_answer judge(const struct selftest *t, enum selftest_path p,
				  struct selftest_verdict *v)
{
	selftest_judge(t, p, v);
	print_message("  %s: %s: %s\n", selftest_path_title(p), selftest_answer_name(v->answer),
		      v->why);
	return v->answer;
}

static uint64_t count(const struct selftest_verdict *v, const char *name)
{
	for (int i = 0; i < v->ncount; i++)
		if (!strcmp(v->count[i].name, name))
			return v->count[i].value;
	fail_msg("no count %s in the evidence", name);
	return 0;
}

static void a_kernel_with_every_fast_path_says_yes_three_times(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_YES);
	assert_int_equal(count(&v, "default_fast"), t.n[ST_ACCESS_DEFAULT]);
	assert_int_equal(count(&v, "dropcap_needed"), t.n[ST_ACCESS_DROPCAP]);
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_YES);
	assert_int_equal(count(&v, "enoent_early"), t.n[ST_EXEC_MISSING]);
	assert_int_equal(count(&v, "control_mm_allocs"), t.n[ST_EXEC_CONTROL]);
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_YES);
	assert_int_equal(count(&v, "did_skip"), ST_TREE_CHECKS * t.n[ST_STAT_TREE]);
	selftest_free(&t);
}

static void a_stock_kernel_says_no_three_times(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	stock_kernel(&t);
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_NO);
	assert_int_equal(count(&v, "default_avoidable"), t.n[ST_ACCESS_DEFAULT]);
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_NO);
	assert_int_equal(count(&v, "enoent_late"), t.n[ST_EXEC_MISSING]);
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_NO);
	assert_int_equal(count(&v, "did_skip"), 0);
	selftest_free(&t);
}

/* trixie 6.12: the access and execve changes, not lookup's. */
static void trixie_6_12_counts_say_yes_yes_no(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	t.phase[ST_STAT_TREE].fs[0].s.did_skip = 0;
	t.phase[ST_STAT_CONTROL].fs[0].s.did_skip = 0;
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_YES);
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_YES);
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_NO);
	selftest_free(&t);
}

static void a_family_that_cannot_attach_is_unknown_naming_each_mode(void **state)
{
	struct selftest_verdict v;
	struct selftest t;
	struct family_result *r;

	(void)state;
	fast_kernel(&t);
	r = &t.run.fam[FAMILY_LOOKUP];
	r->status = FAMILY_UNAVAILABLE;
	r->nattempts = 2;
	r->attempts[0] = (struct attach_attempt){ .mode = MODE_FENTRY, .err = EPERM };
	r->attempts[1] = (struct attach_attempt){ .mode = MODE_KPROBE, .err = ENOENT };
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "the lookup family attaches in no mode here (fentry EPERM, "
			"kprobe ENOENT)");
	/* the others are judged all the same */
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_YES);
	t.run.fam[FAMILY_EXEC].status = FAMILY_NOT_REQUESTED;
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	assert_contains(v.why, "not requested");
	selftest_free(&t);
}

static void lost_events_make_the_verdict_unknown_with_what_lost_them(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	family_add_lost(&t.run.fam[FAMILY_LOOKUP], "fentry_security_inode_permission", 17);
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "lost 17 events (fentry_security_inode_permission 17)");
	family_add_lost(&t.run.fam[FAMILY_ACCESS], "no_task_storage", 1);
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	t.run.fam[FAMILY_EXEC].lost_known = false;
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	selftest_free(&t);
}

/* A probe that misses calls proves nothing either way. */
static void missed_calls_are_unknown_not_no(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	stock_kernel(&t);
	t.phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_AVOIDABLE] -= 1;
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "counted 299 of the 300");
	t.phase[ST_EXEC_MISSING].exec.errnos[ENOENT] -= 1;
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	t.phase[ST_STAT_TREE].fs[0].s.checks -= 1;
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	/* nothing of the tree's filesystem at all */
	strcpy(t.fs, "ext4");
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_int_equal(count(&v, "checks"), 0);
	selftest_free(&t);
}

/* "yes" means nothing was seen: only a probe shown to see the slow path may say it. */
static void yes_needs_its_positive_control(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	t.phase[ST_ACCESS_DROPCAP].access.calls[ACCESS_NEEDED] = 0;
	t.phase[ST_ACCESS_DROPCAP].access.calls[ACCESS_AVOIDABLE] = t.n[ST_ACCESS_DROPCAP];
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "positive control failed: 0 of 300");
	t.phase[ST_EXEC_CONTROL].exec.mm_allocs = 0;
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	assert_contains(v.why, "positive control failed: 0 of 4");
	t.phase[ST_STAT_CONTROL].fs[0].s.did_skip = 2 * t.n[ST_STAT_CONTROL];
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "positive control failed");
	selftest_free(&t);
}

static void a_control_the_workload_could_not_run_leaves_yes_unknown(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	memset(&t.phase[ST_ACCESS_DROPCAP].access, 0, sizeof(t.phase[0].access));
	strcpy(t.not_run[ST_ACCESS_DROPCAP], "no capability in the effective set to clear");
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "no positive control: no capability in the effective set to clear");
	/* a stock kernel's allocations are their own control */
	selftest_free(&t);
	stock_kernel(&t);
	strcpy(t.not_run[ST_ACCESS_DROPCAP], "no capability in the effective set to clear");
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_NO);
	selftest_free(&t);
}

static void default_creds_that_need_the_override_cannot_show_the_skip(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	t.phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_FAST] = 0;
	t.phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_NEEDED] = t.n[ST_ACCESS_DEFAULT];
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "needed the override");
	selftest_free(&t);
}

static void violations_and_mixed_counts_are_not_verdicts(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	t.phase[ST_ACCESS_DROPCAP].access.calls[ACCESS_NEEDED] -= 3;
	t.phase[ST_ACCESS_DROPCAP].access.calls[ACCESS_UNSAFE] = 3;
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "unsafe");
	assert_int_equal(count(&v, "unsafe"), 3);
	selftest_free(&t);
	fast_kernel(&t);
	t.phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_FAST] = 200;
	t.phase[ST_ACCESS_DEFAULT].access.calls[ACCESS_AVOIDABLE] = 100;
	assert_int_equal(judge(&t, ST_CRED_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "mixed");
	t.phase[ST_EXEC_MISSING].exec.calls[EXEC_ENOENT_EARLY] = 30;
	t.phase[ST_EXEC_MISSING].exec.calls[EXEC_ENOENT_LATE] = 10;
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	assert_contains(v.why, "mixed");
	t.phase[ST_STAT_TREE].fs[0].s.did_skip -= 1;
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "partial");
	t.phase[ST_STAT_TREE].fs[0].s.violations = 1;
	assert_int_equal(judge(&t, ST_LOOKUP_SKIP, &v), ST_UNKNOWN);
	assert_contains(v.why, "violations");
	selftest_free(&t);
}

static void a_phase_that_failed_makes_its_verdict_unknown(void **state)
{
	struct selftest_verdict v;
	struct selftest t;

	(void)state;
	fast_kernel(&t);
	strcpy(t.not_run[ST_EXEC_MISSING], "execve(/x/missing): Permission denied instead of ENOENT");
	assert_int_equal(judge(&t, ST_ENOENT_EARLY, &v), ST_UNKNOWN);
	assert_contains(v.why, "the workload failed: execve(/x/missing)");
	selftest_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_kernel_with_every_fast_path_says_yes_three_times),
		cmocka_unit_test(a_stock_kernel_says_no_three_times),
		cmocka_unit_test(trixie_6_12_counts_say_yes_yes_no),
		cmocka_unit_test(a_family_that_cannot_attach_is_unknown_naming_each_mode),
		cmocka_unit_test(lost_events_make_the_verdict_unknown_with_what_lost_them),
		cmocka_unit_test(missed_calls_are_unknown_not_no),
		cmocka_unit_test(yes_needs_its_positive_control),
		cmocka_unit_test(a_control_the_workload_could_not_run_leaves_yes_unknown),
		cmocka_unit_test(default_creds_that_need_the_override_cannot_show_the_skip),
		cmocka_unit_test(violations_and_mixed_counts_are_not_verdicts),
		cmocka_unit_test(a_phase_that_failed_makes_its_verdict_unknown),
	};

	return cmocka_run_group_tests_name("selftest", tests, NULL, NULL);
}
