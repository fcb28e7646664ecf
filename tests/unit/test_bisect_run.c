// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/permscope-ab --bisect-run under a real `git bisect run`, on a
 * throwaway git repository whose commits are a fake "kernel tree" (a
 * Makefile, scripts/kconfig and a file VERDICT saying what its A/B gives:
 * pass, fail, violation, noverdict, nobuild or harness).
 * PERMSCOPE_AB_STEP names a stub that stands where the builds, the VMs and
 * the judges are: it reads the tree's VERDICT and writes what they would
 * (gate.tsv, verify's statuses), or exits 3 for a kernel that "does not
 * build"; permscope-ab's own statuses, its outcome.tsv and the mapping to
 * git's statuses are the real ones.  The real A/B is measured in docs/vm.md.
 */
#include "testutil.h"

#include <stdarg.h>
#include <sys/stat.h>

static char ab[PATH_MAX];

/* The stub of the builds, the VMs and the judges: PROGRAM STOCK PATCHED DIR. */
static const char stub[] =
	"#!/bin/sh\n"
	"v=$(cat \"$2/VERDICT\")\n"
	"echo \"$(git -C \"$2\" log -1 --format=%s) $v\" >> \"$STUB_LOG\"\n"
	"mkdir -p \"$3/stock/results\" \"$3/patched/results\"\n"
	"echo 0 > \"$3/stock/results/verify-default-status.txt\"\n"
	"echo 0 > \"$3/patched/results/verify-default-status.txt\"\n"
	"g=pass s=0 r=\n"
	"case $v in\n"
	"nobuild) echo 'make: *** [fs/f.o] Error 1' >&2; exit 3 ;;\n"
	"harness) echo 'qemu-system-x86_64: not found' >&2; exit 2 ;;\n"
	"fail) g=fail s=1 ;;\n"
	"violation) echo 1 > \"$3/patched/results/verify-default-status.txt\" ;;\n"
	"noverdict) g=no-verdict s=3 r='no event on the base side' ;;\n"
	"esac\n"
	"printf 'gate\\t%s\\t%d\\t0\\t0\\t0\\t0\\n%s\\taccess.unsafe\\taccess.unsafe == 0\\t0.0\\t0.0\\t%s"
	"\\t0.0\\t-\\n' $g $s $g \"$r\" > \"$3/gate.tsv\"\n";

/* A fake kernel tree at tmp/NAME whose A/B gives VERDICT. */
static const char *fake_tree(const char *name, const char *verdict)
{
	char path[256];

	mkdir(tmp_path(name), 0755);
	snprintf(path, sizeof(path), "%s/scripts", name);
	mkdir(tmp_path(path), 0755);
	snprintf(path, sizeof(path), "%s/scripts/kconfig", name);
	mkdir(tmp_path(path), 0755);
	snprintf(path, sizeof(path), "%s/Makefile", name);
	write_tmp_file(path, "# not a kernel\n");
	snprintf(path, sizeof(path), "%s/VERDICT", name);
	write_tmp_file(path, verdict);
	return tmp_path(name);
}

/*
 * tmp/NAME: a git repository of one commit a verdict, "c1" to "cN", in
 * order (NULL-terminated); the good kernel beside it, tmp/good.
 */
static const char *repo(const char *name, ...)
{
	static char dir[PATH_MAX];
	char msg[16];
	va_list ap;
	int n = 0;

	remove_tree(tmp_path(name));
	snprintf(dir, sizeof(dir), "%s", fake_tree(name, "pass"));
	if (git_in(dir, "init", "-q", NULL))
		fail_msg("git init: %s", err_text);
	va_start(ap, name);
	for (const char *v = va_arg(ap, const char *); v; v = va_arg(ap, const char *)) {
		char path[256];

		snprintf(path, sizeof(path), "%s/VERDICT", name);
		write_tmp_file(path, v);
		snprintf(msg, sizeof(msg), "c%d", ++n);
		if (git_in(dir, "add", "-A", NULL) ||
		    git_in(dir, "commit", "-q", "--allow-empty", "-m", msg, NULL))
			fail_msg("git commit %s: %s", msg, err_text);
	}
	va_end(ap);
	fake_tree("good", "pass");
	unlink(tmp_path("stub.log"));
	return dir;
}

/* The commit whose subject is SUBJECT ("c3"), as git names it: malloc'ed. */
static char *commit(const char *dir, const char *subject)
{
	char grep[32];

	snprintf(grep, sizeof(grep), "--grep=^%s$", subject);
	assert_int_equal(git_in(dir, "log", "--format=%H", grep, NULL), 0);
	assert_int_equal(strlen(out_text), 41);
	return strndup(out_text, 40);
}

/* git bisect start BAD GOOD (c1), then git bisect run permscope-ab --bisect-run. */
static int bisect_run(const char *dir, const char *bad)
{
	char *good = commit(dir, "c1"), *last = commit(dir, bad);
	int status;

	if (git_in(dir, "bisect", "start", last, good, NULL))
		fail_msg("git bisect start: %s", err_text);
	free(good), free(last);
	status = git_in(dir, "bisect", "run", ab, "--bisect-run", "--stock", tmp_path("good"),
		     "--patched", ".", "--out", tmp_path("ab"), NULL);
	return status;
}

static int setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	snprintf(ab, sizeof(ab), "%s/tools/permscope-ab", source_dir());
	write_tmp_file("ab-step", stub);
	if (chmod(tmp_path("ab-step"), 0755))
		return -1;
	setenv("PERMSCOPE_AB_STEP", tmp_path("ab-step"), 1);
	setenv("STUB_LOG", tmp_path("stub.log"), 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	return 0;
}

/* permscope-ab --bisect-run on the tree DIR: its status. */
static int ab_on(const char *dir)
{
	char *argv[] = { ab, "--bisect-run", "--stock", (char *)tmp_path("good"), "--patched",
			 (char *)dir, "--out", (char *)tmp_path("ab"), NULL };

	return run_capture(argv);
}

/* Each of permscope-ab's outcomes, and git's status for it. */
static void each_outcome_has_git_bisect_runs_status(void **state)
{
	static const struct {
		const char *verdict, *outcome, *says;
		int status;
	} cases[] = {
		{ "pass", "0\tpass\n", "exit 0 for git bisect run (good; ", 0 },
		{ "fail", "1\tregression\n", "exit 1 for git bisect run (bad; ", 1 },
		{ "violation", "5\tviolation\n", "exit 1 for git bisect run (bad; ", 1 },
		{ "noverdict", "3\tno-verdict\n", "(skip: this commit cannot be judged; ", 125 },
		{ "nobuild", "4\tuntestable\n", "(skip: this commit cannot be judged; ", 125 },
		{ "harness", "4\tenvironment\n", "exit 128 for git bisect run (abort", 128 },
	};
	char *text;

	(void)state;
	fake_tree("good", "pass");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *tree = fake_tree("tree", cases[i].verdict);

		assert_int_equal(ab_on(tree), cases[i].status);
		assert_contains(err_text, cases[i].says);
		/* permscope-ab's own status and its cause, whatever git is told */
		text = slurp(tmp_path("ab/outcome.tsv"), NULL);
		assert_non_null(text);
		assert_string_equal(text, cases[i].outcome);
		free(text);
	}
	assert_contains(err_text, "Error: permscope-ab: PERMSCOPE_AB_STEP ");
	/* without --bisect-run, permscope-ab's own statuses, for its other callers */
	{
		char *argv[] = { ab, "--stock", (char *)tmp_path("good"), "--patched",
				 (char *)fake_tree("tree", "nobuild"), "--out", (char *)tmp_path("ab"),
				 NULL };

		assert_int_equal(run_capture(argv), 4);
		assert_contains(err_text, "Error: permscope-ab: building the patched kernel failed");
		assert_not_contains(err_text, "git bisect run");
	}
	/* bad usage aborts git's bisection, wherever --bisect-run stands on the line */
	{
		char *argv[] = { ab, "--mode", "uprobe", "--patched", (char *)tmp_path("tree"),
				 "--stock", (char *)tmp_path("good"), "--bisect-run", NULL };

		assert_int_equal(run_capture(argv), 128);
		assert_contains(err_text, "unknown mode 'uprobe'");
		argv[7] = NULL;
		assert_int_equal(run_capture(argv), 2);
	}
}

/*
 * git's bisection, judged by permscope-ab: c3 fails the gate first; c4,
 * the first commit git picks, does not build and is skipped; git names c3.
 */
static void git_bisect_run_finds_the_first_failing_commit_past_one_that_does_not_build(void **state)
{
	const char *dir = repo("linux", "pass", "pass", "fail", "nobuild", "fail", "fail", "fail",
			       NULL);
	char want[64], *c3 = commit(dir, "c3"), *log;

	(void)state;
	assert_int_equal(bisect_run(dir, "c7"), 0);
	snprintf(want, sizeof(want), "%s is the first bad commit\n", c3);
	assert_contains(out_text, want);
	log = slurp(tmp_path("stub.log"), NULL);
	assert_non_null(log);
	/*
	 * git picked c4 first (the middle), skipped it and went on with its
	 * neighbours, in an order its commits' hashes choose
	 */
	assert_true(!strncmp(log, "c4 nobuild\n", 11));
	assert_contains(log, "c3 fail\n");
	assert_contains(log, "c2 pass\n");
	assert_not_contains(log, "c7");
	free(log), free(c3);
	git_in(dir, "bisect", "reset", NULL);
}

/*
 * The commit before the first failing one does not build: git cannot
 * tell which of the two broke the gate, and says so; permscope-ab never
 * called the unbuildable commit bad.
 */
static void a_commit_that_does_not_build_is_skipped_never_blamed(void **state)
{
	const char *dir = repo("linux", "pass", "pass", "nobuild", "fail", "fail", NULL);
	char *c3 = commit(dir, "c3"), *c4 = commit(dir, "c4"), *log;

	(void)state;
	bisect_run(dir, "c5");
	assert_contains(out_text, "There are only 'skip'ped commits left to test.\n"
			"The first bad commit could be any of:\n");
	assert_contains(out_text, c3);
	assert_contains(out_text, c4);
	assert_contains(out_text, "We cannot bisect more!\n");
	log = slurp(tmp_path("stub.log"), NULL);
	assert_non_null(log);
	assert_contains(log, "c3 nobuild\n");
	free(log), free(c3), free(c4);
	git_in(dir, "bisect", "reset", NULL);
}

/* A broken harness stops git's bisection at once: no commit is called bad for it. */
static void a_broken_harness_aborts_git_bisect_run(void **state)
{
	const char *dir = repo("linux", "pass", "harness", "harness", "harness", "fail", NULL);

	(void)state;
	assert_int_not_equal(bisect_run(dir, "c5"), 0);
	assert_contains(err_text, "exit code 128");
	assert_not_contains(out_text, "is the first bad commit");
	git_in(dir, "bisect", "reset", NULL);
}

/*
 * --find improvement RULE: the reverse question, as git asks it with its
 * own terms.  RULE is gate's only rule, verify does not judge, and git
 * reads 0 as old (the rule does not hold) and 1 as new (it holds).
 */
static void find_improvement_speaks_git_bisects_old_and_new(void **state)
{
	static const struct {
		const char *verdict, *outcome, *says;
		int status;
	} cases[] = {
		{ "pass", "0\tholds\n", "exit 1 for git bisect run (new: the rule holds; ", 1 },
		{ "fail", "1\tdoes-not-hold\n", "exit 0 for git bisect run (old: the rule does not "
						 "hold; ", 0 },
		/* the gate passes; verify's violation is not this question's */
		{ "violation", "0\tholds\n", "exit 1 for git bisect run (new: ", 1 },
		{ "nobuild", "4\tuntestable\n", "(skip: this commit cannot be judged; ", 125 },
	};
	const char *rule = "lookup.did_skip_ratio >= base + 0.05";
	const char *dir;
	char *text, want[64], *c3, *log;

	(void)state;
	fake_tree("good", "pass");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { ab, "--bisect-run", "--find", "improvement", (char *)rule, "--stock",
				 (char *)tmp_path("good"), "--patched",
				 (char *)fake_tree("tree", cases[i].verdict), "--out",
				 (char *)tmp_path("ab"), NULL };

		assert_int_equal(run_capture(argv), cases[i].status);
		assert_contains(err_text, cases[i].says);
		text = slurp(tmp_path("ab/outcome.tsv"), NULL);
		assert_non_null(text);
		assert_string_equal(text, cases[i].outcome);
		free(text);
	}
	/* RULE is the rules gate was given */
	text = slurp(tmp_path("ab/find.rules"), NULL);
	assert_non_null(text);
	assert_string_equal(text, "lookup.did_skip_ratio >= base + 0.05\n");
	free(text);
	/* not with --rules, and not without a RULE: bad usage, git aborts */
	{
		char *argv[] = { ab, "--bisect-run", "--find", "improvement", (char *)rule, "--rules",
				 (char *)tmp_path("ab/find.rules"), "--stock", (char *)tmp_path("good"),
				 "--patched", (char *)tmp_path("tree"), NULL };

		assert_int_equal(run_capture(argv), 128);
		assert_contains(err_text, "not with --rules");
		argv[4] = "--stock", argv[5] = (char *)tmp_path("good"), argv[6] = NULL;
		assert_int_equal(run_capture(argv), 128);
		argv[0] = ab, argv[1] = "--find", argv[2] = "improvement", argv[3] = NULL;
		assert_int_equal(run_capture(argv), 2);
		assert_contains(err_text, "--find improvement needs a RULE");
	}
	/* git's own bisection with its own terms: c3 is the first where it holds */
	dir = repo("linux", "fail", "fail", "pass", "pass", "pass", NULL);
	c3 = commit(dir, "c3");
	{
		char *good = commit(dir, "c1"), *last = commit(dir, "c5");

		if (git_in(dir, "bisect", "start", "--term-old=slow", "--term-new=fast", last, good,
			   NULL))
			fail_msg("git bisect start: %s", err_text);
		free(good), free(last);
	}
	assert_int_equal(git_in(dir, "bisect", "run", ab, "--bisect-run", "--find", "improvement",
				rule, "--stock", tmp_path("good"), "--patched", ".", "--out",
				tmp_path("ab"), NULL),
			 0);
	snprintf(want, sizeof(want), "%s is the first fast commit\n", c3);
	assert_contains(out_text, want);
	log = slurp(tmp_path("stub.log"), NULL);
	assert_non_null(log);
	assert_contains(log, "c3 pass\n");
	free(log), free(c3);
	git_in(dir, "bisect", "reset", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_outcome_has_git_bisect_runs_status),
		cmocka_unit_test(git_bisect_run_finds_the_first_failing_commit_past_one_that_does_not_build),
		cmocka_unit_test(a_commit_that_does_not_build_is_skipped_never_blamed),
		cmocka_unit_test(a_broken_harness_aborts_git_bisect_run),
		cmocka_unit_test(find_improvement_speaks_git_bisects_old_and_new),
	};

	if (!find_program("git")) {
		printf("test_bisect_run: no git, skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
