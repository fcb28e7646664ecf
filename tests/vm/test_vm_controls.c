// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The controls of tests/vm/patches: kernels deliberately broken (or slowed,
 * or laid out differently) by one patch each, built from Debian's source
 * and compared with the same source unpatched by tools/permscope-ab.  Each
 * must fail exactly the gate rule it breaks and pass the others; the broken
 * ones must make `permscope verify` exit 1 with samples of the right kind,
 * while the stock kernel's verify stays clean; the cred layout one must
 * change check --btf's verdict and pass the gate, and the one that takes the
 * refcount's own line back (from a base that has it) must fail the gate's
 * cred rule alone and be found by bisect.  permscope-ab runs them in
 * the default mode, the one permscope picks for each kernel: fentry on the
 * minimal 6.12 (built without preemption), kprobe on the minimal 7.2
 * (x86 7.0 and later preempt; docs/kernels.md).
 *
 * tests/vm/controls (`make vmtest-src`) leaves the results in
 * build/vm/controls/NAME ($PERMSCOPE_VM_CONTROLS/NAME).  Without them,
 * every test says so and is skipped.
 */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

static char controls[PATH_MAX];

static int setup(void **state)
{
	const char *dir = getenv("PERMSCOPE_VM_CONTROLS");

	(void)state;
	/* tests/run-all sets it; by hand, from the top of the tree */
	snprintf(controls, sizeof(controls), "%s", dir ? dir : "build/vm/controls");
	return 0;
}

/* The control's results, or a skip that says how to make them. */
static void need(const char *name)
{
	char path[PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/ab-status.txt", controls, name);
	if (stat(path, &st)) {
		print_message("skipped: no results for control %s in %s (run 'make vmtest-src')\n",
			      name, controls);
		skip();
	}
}

static json_t *load_json(const char *name, const char *file)
{
	char path[PATH_MAX + 128];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s/%s", controls, name, file);
	j = json_load_file(path, 0, &e);
	if (!j)
		fail_msg("%s: %s (see %s/%s/ab.stderr)", path, e.text, controls, name);
	return j;
}

static int ab_status(const char *name)
{
	char path[PATH_MAX + 64];
	char *text;
	int status;

	snprintf(path, sizeof(path), "%s/%s/ab-status.txt", controls, name);
	text = slurp(path, NULL);
	if (!text)
		fail_msg("%s: cannot read it", path);
	status = atoi(text);
	free(text);
	return status;
}

/*
 * gate.json: the rule on `metric` failed, and every other rule passed or was
 * skipped (its family not recorded by the control's workload); metric NULL:
 * none failed.
 */
static void gate_fails_only(const char *name, const char *metric)
{
	json_t *g = load_json(name, "gate.json"), *rule;
	size_t i, failed = 0;

	json_array_foreach(json_object_get(g, "rules"), i, rule) {
		const char *m = json_string_value(json_object_get(rule, "metric"));
		const char *v = json_string_value(json_object_get(rule, "verdict"));
		const char *want = metric && m && !strcmp(m, metric) ? "fail" : "pass";

		if (!m || !v)
			fail_msg("%s: gate.json: a rule without metric or verdict", name);
		/* a family the control's workload does not record: not asked, never the culprit */
		if (!strcmp(v, "skipped") && strcmp(want, "fail"))
			continue;
		if (strcmp(v, want))
			fail_msg("%s: gate: %s is %s, expected %s (see %s/%s/ab.txt)", name, m, v,
				 want, controls, name);
		failed += !strcmp(v, "fail");
	}
	if (i < 6)
		fail_msg("%s: gate.json judged %zu rules, not the 6 default ones", name, i);
	assert_int_equal(failed, metric ? 1 : 0);
	assert_int_equal(json_integer_value(json_object_get(g, "exit_status")), metric ? 1 : 0);
	json_decref(g);
	/* permscope-ab's own exit status is gate's */
	assert_int_equal(ab_status(name), metric ? 1 : 0);
}

/*
 * `side`'s verify verdict in `mode`: exit status `status`, and when a kind
 * is given, a violation of that kind with samples; with none, no violation
 * at all.  Returns the violation's count.
 */
static long long verify_finds(const char *name, const char *side, const char *mode,
			      int status, const char *kind)
{
	char file[128];
	json_t *v, *f;
	size_t i;
	long long count = 0;
	bool found = false;

	snprintf(file, sizeof(file), "%s/results/verify-%s.json", side, mode);
	v = load_json(name, file);
	if (json_integer_value(json_object_get(v, "exit_status")) != status)
		fail_msg("%s: verify on the %s kernel (%s) exited %lld, expected %d (see %s/%s/%s)",
			 name, side, mode, json_integer_value(json_object_get(v, "exit_status")),
			 status, controls, name, file);
	json_array_foreach(json_object_get(v, "findings"), i, f) {
		const char *k = json_string_value(json_object_get(f, "kind"));

		if (!json_is_true(json_object_get(f, "violation")))
			continue;
		if (!kind || strcmp(k, kind))
			fail_msg("%s: verify on the %s kernel (%s) found a violation %s", name, side,
				 mode, k);
		found = true;
		count = json_integer_value(json_object_get(f, "count"));
		if (json_array_size(json_object_get(f, "samples")) == 0)
			fail_msg("%s: verify's %s finding carries no sample", name, k);
	}
	if (kind && !found)
		fail_msg("%s: verify on the %s kernel (%s) did not find %s", name, side, mode, kind);
	json_decref(v);
	return count;
}

static const char *layout_verdict(const char *name, const char *side, char *buf, size_t len)
{
	char file[64];
	json_t *l;

	snprintf(file, sizeof(file), "layout-%s.json", side);
	l = load_json(name, file);
	snprintf(buf, len, "%s",
		 json_string_value(json_object_get(json_object_get(l, "cred_layout"), "verdict"))
			 ?: "(none)");
	json_decref(l);
	return buf;
}

/* Everything a control must leave unchanged: the layout, and the stock verify. */
static void stock_side_is_clean(const char *name)
{
	char a[128], b[128];

	verify_finds(name, "stock", "default", 0, NULL);
	assert_string_equal(layout_verdict(name, "stock", a, sizeof(a)),
			    layout_verdict(name, "patched", b, sizeof(b)));
}

/* The override skipped for a capability-dropped caller: unsafe. */
static void faccessat_unsafe_fails_access_unsafe_and_verify(void **state)
{
	const char *c = "faccessat-unsafe";

	(void)state;
	need(c);
	gate_fails_only(c, "access.unsafe");
	stock_side_is_clean(c);
	/* access-dropcap 500 in verify's workload: every call needed the override */
	assert_int_equal(verify_finds(c, "patched", "default", 1, "access.unsafe"), 500);
}

/*
 * The same kernel recorded for access alone (--workload access): still a
 * verdict, on the rules of the family recorded.  The others are named as
 * not judged here, not failed, and permscope-ab exits 1 with the rule.
 */
static void a_focused_ab_gives_the_verdict_of_its_family(void **state)
{
	const char *c = "faccessat-unsafe-access-only";
	json_t *g, *rule;
	char path[PATH_MAX + 64], *text;
	size_t i;

	(void)state;
	need(c);
	assert_int_equal(ab_status(c), 1);
	g = load_json(c, "gate.json");
	assert_int_equal(json_array_size(json_object_get(g, "rules")), 2);
	json_array_foreach(json_object_get(g, "rules"), i, rule) {
		const char *m = json_string_value(json_object_get(rule, "metric"));

		assert_string_equal(json_string_value(json_object_get(rule, "verdict")),
				    !strcmp(m, "access.unsafe") ? "fail" : "pass");
	}
	json_decref(g);
	snprintf(path, sizeof(path), "%s/%s/ab.stderr", controls, c);
	text = slurp(path, NULL);
	assert_non_null(text);
	assert_contains(text, "gate: not judged here: exec.enoent_early_share");
	assert_contains(text, "--workload access records no lookup");
	free(text);
	snprintf(path, sizeof(path), "%s/%s/ab.txt", controls, c);
	text = slurp(path, NULL);
	assert_non_null(text);
	assert_contains(text, "FAIL  access.unsafe");
	assert_contains(text, "verify  patched  VIOLATION");
	free(text);
	stock_side_is_clean(c);
	assert_int_equal(verify_finds(c, "patched", "default", 1, "access.unsafe"), 500);
}

/*
 * tools/permscope-ab bisect on tests/vm/patches/series-unsafe (five
 * patches, the third the unsafe control): the full series fails, two
 * patches pass, three fail, and the third is named with its rule and
 * verify's samples; three A/Bs.
 */
static void bisect_names_the_third_patch_of_the_series(void **state)
{
	const char *c = "series-unsafe";
	char path[PATH_MAX + 64], *text;
	int steps = 0;

	(void)state;
	need(c);
	assert_int_equal(ab_status(c), 1);
	snprintf(path, sizeof(path), "%s/%s/ab.txt", controls, c);
	text = slurp(path, NULL);
	assert_non_null(text);
	for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		steps += !strncmp(l, "step ", 5);
	if (steps != 3)
		fail_msg("%s: %d A/B steps, expected 3:\n%s", c, steps, text);
	assert_contains(text, "step 1/4: 5 patches (0005-");
	assert_contains(text, "step 2/4: 2 patches (0002-");
	assert_contains(text, "step 3/4: 3 patches (0003-");
	assert_contains(text, ": FAIL (access.unsafe)\nstep 2/4");
	assert_contains(text, ": PASS\nstep 3/4");
	assert_contains(text, "culprit: patch 3 of 5, 0003-");
	assert_contains(text, "  subject: fs/open: faccessat never overrides creds");
	assert_contains(text, "    access.unsafe  access.unsafe == 0: new ");
	assert_contains(text, "VIOLATION  access.unsafe: 500 access() calls skipped the cred "
			"override");
	free(text);
}

/* A cred allocated on every call: the fast path lost, nothing wrong. */
static void faccessat_always_allocate_fails_avoidable_per_call_only(void **state)
{
	const char *c = "faccessat-always-allocate";

	(void)state;
	need(c);
	gate_fails_only(c, "access.avoidable_per_call");
	stock_side_is_clean(c);
	verify_finds(c, "patched", "default", 0, NULL);
}

/* ENOENT after the mm: the early exit lost, nothing wrong. */
static void exec_enoent_after_mm_fails_enoent_early_share_only(void **state)
{
	const char *c = "exec-enoent-after-mm";

	(void)state;
	need(c);
	gate_fails_only(c, "exec.enoent_early_share");
	stock_side_is_clean(c);
	/* Late ENOENTs alone are a stock kernel's behaviour to verify. */
	verify_finds(c, "patched", "default", 0, NULL);
}

/* The MAY_EXEC shortcut without its mode test: 0750 directories skipped. */
static void lookup_ignore_mode_fails_lookup_violations_and_verify(void **state)
{
	const char *c = "lookup-ignore-mode";

	(void)state;
	need(c);
	gate_fails_only(c, "lookup.violations");
	stock_side_is_clean(c);
	if (verify_finds(c, "patched", "default", 1, "lookup.violations") <= 0)
		fail_msg("%s: no ineligible skip counted", c);
}

/*
 * A layout control C: gate fails only METRIC (NULL: none), check --btf says
 * STOCK and PATCHED of the two images, and verify is clean on both.
 */
static void layout_control(const char *c, const char *metric, const char *stock,
			   const char *patched)
{
	char a[128], b[128];

	need(c);
	gate_fails_only(c, metric);
	assert_string_equal(layout_verdict(c, "stock", a, sizeof(a)), stock);
	assert_string_equal(layout_verdict(c, "patched", b, sizeof(b)), patched);
	verify_finds(c, "stock", "default", 0, NULL);
	verify_finds(c, "patched", "default", 0, NULL);
}

/* The refcount on its own line: check --btf says so; no rule moves. */
static void cred_usage_own_cacheline_changes_only_the_layout_verdict(void **state)
{
	(void)state;
	layout_control("cred-usage-own-cacheline", NULL, "shares", "separated");
}

/*
 * usage back beside uid, against a base whose refcount had a line of its
 * own: the gate's cred rule fails, and no other; nothing wrong for verify.
 */
static void cred_usage_beside_uid_fails_the_cred_rule_only(void **state)
{
	(void)state;
	layout_control("cred-usage-beside-uid", "cred.refcount_shares_line", "separated", "shares");
}

/*
 * tools/permscope-ab bisect on tests/vm/patches/series-cred-layout (three
 * patches on a base whose refcount has its own line, the second taking it
 * back): the second is named, with the cred rule.
 */
static void bisect_names_the_patch_that_takes_the_refcount_line_back(void **state)
{
	const char *c = "series-cred-layout";
	char path[PATH_MAX + 64], *text;

	(void)state;
	need(c);
	assert_int_equal(ab_status(c), 1);
	snprintf(path, sizeof(path), "%s/%s/ab.txt", controls, c);
	text = slurp(path, NULL);
	assert_non_null(text);
	assert_contains(text, "step 1/3: 3 patches (0003-");
	assert_contains(text, ": FAIL (cred.refcount_shares_line)\n");
	assert_contains(text, "culprit: patch 2 of 3, 0002-");
	assert_contains(text, "  subject: cred: drop uid's cacheline alignment");
	assert_contains(text, "    cred.refcount_shares_line  cred.refcount_shares_line <= base: new 1");
	assert_not_contains(text, "access.unsafe  access.unsafe");
	free(text);
}

/* The control's FILE, whole (failing when it is missing): malloc'ed. */
static char *control_file(const char *name, const char *file)
{
	char path[PATH_MAX + 128];
	char *text;

	snprintf(path, sizeof(path), "%s/%s/%s", controls, name, file);
	text = slurp(path, NULL);
	if (!text)
		fail_msg("%s: cannot read it", path);
	return text;
}

/* The id of the commit of commits.txt ("ID SUBJECT" lines) whose subject starts so. */
static void commit_with_subject(const char *name, const char *subject, char *id, size_t len)
{
	char *text = control_file(name, "commits.txt"), *line, *save = NULL;

	id[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sp = strchr(line, ' ');

		if (sp && !strncmp(sp + 1, subject, strlen(subject)))
			snprintf(id, len, "%.*s", (int)(sp - line), line);
	}
	free(text);
	if (!id[0])
		fail_msg("%s: no commit \"%s...\" in commits.txt", name, subject);
}

/*
 * tests/vm/patches/series-unbuildable, bisected by tools/permscope-ab
 * bisect: its second patch calls a helper only the third adds, so a
 * kernel with two patches does not build.  That step is skipped, not
 * judged; the third passes, the fourth (the unsafe control) fails and is
 * the culprit, with the skipped patch named under it.
 */
static void bisect_skips_the_patch_that_does_not_build(void **state)
{
	const char *c = "series-unbuildable";
	char *text, *log;

	(void)state;
	need(c);
	assert_int_equal(ab_status(c), 1);
	text = control_file(c, "ab.txt");
	assert_contains(text, "step 1/4: 5 patches (0005-");
	assert_contains(text, ": FAIL (access.unsafe)\n");
	assert_contains(text, "step 2/4: 2 patches (0002-");
	assert_contains(text, "no VM booted: SKIPPED (building the patched kernel failed)\n");
	assert_contains(text, "step 3/5: 3 patches (0003-");
	assert_contains(text, ": PASS\n");
	assert_contains(text, "step 4/5: 4 patches (0004-");
	assert_contains(text, "culprit: patch 4 of 5, 0004-");
	assert_contains(text, "  subject: fs/open: faccessat never overrides creds");
	assert_contains(text, "  3 patches pass (");
	assert_contains(text, "  skipped on the way: with patch 2, 0002-fs-fs_pin-pin_remove-detaches"
			      "-the-pin-through-a-help.patch, the kernel could not be built or booted (");
	assert_contains(text, "    access.unsafe  access.unsafe == 0: new ");
	free(text);
	/* skipped for the compiler's reason, kept in the step's log */
	log = control_file(c, "step-2/ab.log");
	assert_contains(log, "error: implicit declaration of function");
	assert_contains(log, "pin_detach_locked");
	free(log);
	text = control_file(c, "step-2/outcome.tsv");
	assert_string_equal(text, "4\tuntestable\n");
	free(text);
}

/*
 * git bisect run tools/permscope-ab --bisect-run on a git tree of
 * linux-source-6.12 with tests/vm/patches/series-unsafe committed on it
 * (tests/vm/make-git-tree): git names the third commit, the unsafe
 * control, from the A/B of each commit it checked out against the
 * source's stock build, and every status it read was good or bad.
 */
static void git_bisect_run_names_the_unsafe_commit(void **state)
{
	const char *c = "git-bisect-run-unsafe";
	char unsafe[64], *text;

	(void)state;
	need(c);
	/* git bisect run's own status: 0, it found the first bad commit */
	assert_int_equal(ab_status(c), 0);
	commit_with_subject(c, "fs/open: faccessat never overrides creds", unsafe, sizeof(unsafe));
	text = control_file(c, "first-bad.txt");
	if (strncmp(text, unsafe, strlen(unsafe)) || text[strlen(unsafe)] != '\n')
		fail_msg("%s: git named %s, not the unsafe commit %s", c, text, unsafe);
	free(text);
	text = control_file(c, "ab.txt");
	assert_contains(text, " is the first bad commit");
	assert_contains(text, unsafe);
	free(text);
	/* each step's status, and no commit skipped: all five build */
	text = control_file(c, "ab.stderr");
	assert_contains(text, "permscope-ab --bisect-run: exit 1 for git bisect run");
	assert_contains(text, "permscope-ab --bisect-run: exit 0 for git bisect run");
	assert_not_contains(text, "exit 125");
	assert_not_contains(text, "exit 128");
	free(text);
	text = control_file(c, "bisect.log");
	assert_not_contains(text, "git bisect skip");
	assert_contains(text, "# first bad commit: [");
	free(text);
}

/*
 * tools/permscope-bisect --tree --find improvement on a git tree of
 * linux-source-7.2 with tests/vm/patches/series-lookup-fast-path committed
 * on it: the first commit takes the MAY_EXEC lookup shortcut out (GOOD,
 * where lookup.did_skip_ratio >= base + 0.05 does not hold), the third
 * brings it back.  The third is named, by patch and by commit, and with it
 * the ratio rose from GOOD's 0.
 */
static void find_improvement_names_the_commit_that_brings_the_fast_path(void **state)
{
	const char *c = "git-find-lookup-fast-path";
	const char *rule = "    lookup.did_skip_ratio  lookup.did_skip_ratio >= base + 0.05: new ";
	char back[64], line[128], *text, *at;
	double now, before;

	(void)state;
	need(c);
	assert_int_equal(ab_status(c), 1);
	commit_with_subject(c, "fs/namei: bring the MAY_EXEC lookup shortcut back", back, sizeof(back));
	text = control_file(c, "ab.txt");
	assert_contains(text, "first new: patch 2 of 3, 0002-fs-namei-bring-the-MAY_EXEC-lookup-");
	snprintf(line, sizeof(line), "  commit: %s\n", back);
	assert_contains(text, line);
	/* with the first of the three (a comment) it does not hold yet */
	assert_contains(text, "  with 1 patch it does not hold (");
	at = strstr(text, rule);
	if (!at || sscanf(at + strlen(rule), "%lf, base %lf", &now, &before) != 2)
		fail_msg("%s: no value of the rule in ab.txt:\n%s", c, text);
	if (!(before < 0.01 && now > 0.5))
		fail_msg("%s: did_skip_ratio new %g, base %g: expected the fast path's rise from 0",
			 c, now, before);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(faccessat_unsafe_fails_access_unsafe_and_verify),
		cmocka_unit_test(a_focused_ab_gives_the_verdict_of_its_family),
		cmocka_unit_test(bisect_names_the_third_patch_of_the_series),
		cmocka_unit_test(faccessat_always_allocate_fails_avoidable_per_call_only),
		cmocka_unit_test(exec_enoent_after_mm_fails_enoent_early_share_only),
		cmocka_unit_test(lookup_ignore_mode_fails_lookup_violations_and_verify),
		cmocka_unit_test(cred_usage_own_cacheline_changes_only_the_layout_verdict),
		cmocka_unit_test(cred_usage_beside_uid_fails_the_cred_rule_only),
		cmocka_unit_test(bisect_names_the_patch_that_takes_the_refcount_line_back),
		cmocka_unit_test(bisect_skips_the_patch_that_does_not_build),
		cmocka_unit_test(git_bisect_run_names_the_unsafe_commit),
		cmocka_unit_test(find_improvement_names_the_commit_that_brings_the_fast_path),
	};

	return cmocka_run_group_tests_name("vm-controls", tests, setup, NULL);
}
