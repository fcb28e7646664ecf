// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/permscope-bisect's bisection, its messages and its exit statuses,
 * without a kernel: the series is five patches on a fake "kernel tree"
 * (tools/vm/build-kernel --check tries them for real) and PERMSCOPE_AB
 * names a stub A/B that boots nothing and writes what permscope-ab would:
 * OUT/gate.json and OUT/gate.tsv (gate --verdict-file: what the bisection
 * reads), each side's verify-default-status.txt (verify's exit status) and
 * verify-default.txt.  Its gate fails
 * from $STUB_BAD patches on.  The real bisection of a real series, with
 * kernels built and booted, is measured in docs/vm.md ("Bisecting a
 * series").
 */
#include "testutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>

static const char *script = "tools/permscope-bisect";

/*
 * The stub A/B, with permscope-ab's exit statuses.  Its gate fails from
 * STUB_BAD patches on (exit 1), has no verdict at STUB_NOVERDICT patches
 * (3); from STUB_VERIFY_BAD patches on its gate passes but verify finds a
 * violation on the patched kernel (5); its patched kernel does not build at
 * STUB_NOBUILD patches (4, "untestable" in outcome.tsv); its environment
 * fails at STUB_CRASH patches (4, no cause); at STUB_FLAKY patches its
 * gate passes and fails by turns, call after call; at STUB_NEAR patches its
 * rule is near its threshold; the stock kernel's verify says STUB_STOCK
 * (clean by default).  With --rules FILE and STUB_IMPROVES, the gate judges
 * FILE's one rule, which holds from STUB_IMPROVES patches on.  With
 * STUB_PREPARE it makes the patched side's build tree (build-kernel
 * --prepare); with STUB_SLEEP it sleeps that long once "booted".  Each call appends its number of patches to STUB_LOG (the
 * patched side's, base patches included), and its arguments to STUB_ARGS
 * when set.
 */
static const char stub[] =
	"#!/bin/sh\n"
	"[ -z \"$STUB_ARGS\" ] || echo \"$*\" >> \"$STUB_ARGS\"\n"
	"out= k=0 counting=0 rules= src= pargs=\n"
	"while [ $# -gt 0 ]; do\n"
	"\tcase $1 in\n"
	"\t--patched) counting=1; src=$2; shift 2; continue ;;\n"
	"\t--out) out=$2; shift 2; counting=0; continue ;;\n"
	"\t--rules) rules=$2; shift 2; counting=0; continue ;;\n"
	"\t--*) counting=0 ;;\n"
	"\t*) [ $counting = 0 ] || { k=$((k + 1)); pargs=\"$pargs $1\"; } ;;\n"
	"\tesac\n"
	"\tshift\n"
	"done\n"
	"echo $k >> \"$STUB_LOG\"\n"
	"echo \"Booting both kernels in QEMU (stub)\"\n"
	"[ -z \"$STUB_SLEEP\" ] || sleep \"$STUB_SLEEP\"\n"
	"mkdir -p \"$out/stock/results\" \"$out/patched/results\"\n"
	"[ -z \"$STUB_PREPARE\" ] || tools/vm/build-kernel --prepare \"$src\" $pargs > /dev/null\n"
	"if [ \"$k\" = \"${STUB_NOBUILD:-x}\" ]; then\n"
	"\techo 'Error: permscope-ab: building the patched kernel failed'\n"
	"\tprintf '4\\tuntestable\\n' > \"$out/outcome.tsv\"; exit 4\n"
	"fi\n"
	"if [ \"$k\" -ge \"${STUB_BAD:-99}\" ]; then v=fail s=1; else v=pass s=0; fi\n"
	"if [ \"$k\" = \"${STUB_FLAKY:-x}\" ]; then\n"
	"\techo x >> \"$STUB_LOG.flaky\"\n"
	"\tif [ $(($(wc -l < \"$STUB_LOG.flaky\") % 2)) = 0 ]; then v=fail s=1; else v=pass s=0; fi\n"
	"fi\n"
	"[ \"$k\" != \"${STUB_NOVERDICT:-x}\" ] || { v=no-verdict s=3; }\n"
	"gs=$s pv=clean; [ \"$k\" -lt \"${STUB_VERIFY_BAD:-99}\" ] || { pv=violation; [ $s != 0 ] || s=5; }\n"
	"[ \"$k\" != \"${STUB_CRASH:-x}\" ] || { echo \"Error: permscope-ab: the stock VM failed\"; exit 4; }\n"
	"r=null; [ $v != no-verdict ] || r='\"no event on the base side\"'\n"
	"printf '{\\n  \"format\": \"permscope-gate/2\",\\n  \"verdict\": \"%s\",\\n"
	"  \"exit_status\": %d,\\n  \"base\": {\\n    \"build\": {\\n"
	"      \"version\": \"0.1.0\"\\n    }\\n  },\\n  \"rules\": [\\n    {\\n"
	"      \"rule\": \"access.unsafe == 0\",\\n      \"metric\": \"access.unsafe\",\\n"
	"      \"new\": 200.0,\\n      \"base\": 0.0,\\n      \"verdict\": \"%s\",\\n"
	"      \"reason\": %s\\n    }\\n  ]\\n}\\n' $v $gs $v \"$r\" > \"$out/gate.json\"\n"
	"t=; [ $v != no-verdict ] || t='no event on the base side'\n"
	"near=-; [ \"$k\" != \"${STUB_NEAR:-x}\" ] || near=near\n"
	"rule='access.unsafe == 0' new=200.0 base=0.0 thr=0.0\n"
	"if [ -n \"$rules\" ] && [ -n \"$STUB_IMPROVES\" ]; then\n"
	"\trule=$(head -n 1 \"$rules\") new=0.5 base=0.5 thr=0.55\n"
	"\tif [ \"$k\" -ge \"$STUB_IMPROVES\" ]; then v=pass gs=0 s=0 new=0.9; else v=fail gs=1 s=1; fi\n"
	"fi\n"
	"printf 'gate\\t%s\\t%d\\t0\\t0\\t0\\t0\\n%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' $v $gs $v "
	"\"${rule%% *}\" \"$rule\" $new $base \"$t\" $thr $near > \"$out/gate.tsv\"\n"
	"vs=0; [ \"${STUB_STOCK:-clean}\" != violation ] || vs=1\n"
	"echo $vs > \"$out/stock/results/verify-default-status.txt\"\n"
	"vs=0; [ $pv != violation ] || vs=1\n"
	"echo $vs > \"$out/patched/results/verify-default-status.txt\"\n"
	"printf 'VIOLATION  access.unsafe: in the stock kernel\\nVerdict: VIOLATION\\n' "
	"> \"$out/stock/results/verify-default.txt\"\n"
	"printf 'permscope verify\\n\\nVIOLATION  access.unsafe: %d patches\\n    42 workload\\n\\n"
	"Verdict: VIOLATION, an invariant broke (exit 1)\\n' $k > \"$out/patched/results/verify-default.txt\"\n"
	"exit $s\n";

/*
 * Patch N of the series after ENVELOPE (git format-patch's when NULL):
 * fs/fN.c's line changes, with a folded Subject and BODY in its message.
 */
static void patch_text(int n, const char *envelope, const char *body, char *text, size_t size)
{
	char git[96];

	snprintf(git, sizeof(git), "From %040d Mon Sep 17 00:00:00 2001\n", n);
	snprintf(text, size,
		 "%s"
		 "From: A Tester <tester@example.org>\n"
		 "Subject: [PATCH %d/5] fs/f%d: number\n the variable\n\n"
		 "Patch %d.\n%s---\n"
		 "diff --git a/fs/f%d.c b/fs/f%d.c\n--- a/fs/f%d.c\n+++ b/fs/f%d.c\n"
		 "@@ -1 +1 @@\n-int f%d;\n+int f%d = %d;\n-- \n2.39.5\n\n",
		 envelope ? envelope : git, n, n, n, body ? body : "", n, n, n, n, n, n, n);
}

static void write_patch(const char *dir, int n, char *mbox, size_t len)
{
	char name[PATH_MAX], text[1024];

	patch_text(n, NULL, NULL, text, sizeof(text));
	snprintf(name, sizeof(name), "%s/%04d-fs-f%d-number-the-variable.patch", dir, n, n);
	write_file(name, text, strlen(text));
	strncat(mbox, text, len - strlen(mbox) - 1);
}

/*
 * tmp/NAME: the five patches in one mbox, each after ENVELOPE, COVER
 * first when not NULL, patch 2 with BODY in its message.
 */
static const char *write_mbox(const char *name, const char *envelope, const char *cover,
			      const char *body)
{
	static char mbox[8192];
	char text[1024];

	snprintf(mbox, sizeof(mbox), "%s", cover ? cover : "");
	for (int n = 1; n <= 5; n++) {
		patch_text(n, envelope, n == 2 ? body : NULL, text, sizeof(text));
		strncat(mbox, text, sizeof(mbox) - strlen(mbox) - 1);
	}
	return write_tmp_file(name, mbox);
}

static int setup(void **state)
{
	static char mbox[8192];
	char path[64], text[64];

	if (tmpdir_setup(state))
		return -1;
	if (mkdir(tmp_path("linux"), 0755) || mkdir(tmp_path("linux/fs"), 0755) ||
	    mkdir(tmp_path("linux/scripts"), 0755) || mkdir(tmp_path("linux/scripts/kconfig"), 0755) ||
	    mkdir(tmp_path("series"), 0755))
		return -1;
	write_tmp_file("linux/Makefile", "# not a kernel\n");
	for (int n = 1; n <= 5; n++) {
		snprintf(path, sizeof(path), "linux/fs/f%d.c", n);
		snprintf(text, sizeof(text), "int f%d;\n", n);
		write_tmp_file(path, text);
		write_patch(tmp_path("series"), n, mbox, sizeof(mbox));
	}
	write_tmp_file("series.mbox", mbox);
	write_tmp_file("ab-stub", stub);
	if (chmod(tmp_path("ab-stub"), 0755))
		return -1;
	setenv("PERMSCOPE_AB", tmp_path("ab-stub"), 1);
	setenv("STUB_LOG", tmp_path("stub.log"), 1);
	setenv("BUILD_KERNEL_CACHE", tmp_path("cache"), 1);
	return 0;
}

/* Each test starts from the stub's defaults, whatever the one before it left set. */
static int stub_defaults(void **state)
{
	static const char *const vars[] = { "STUB_BAD", "STUB_NOVERDICT", "STUB_VERIFY_BAD",
					     "STUB_CRASH", "STUB_STOCK", "STUB_NOBUILD", "STUB_FLAKY",
					     "STUB_NEAR", "STUB_IMPROVES", "STUB_PREPARE",
					     "STUB_SLEEP", "PERMSCOPE_BISECT_HEARTBEAT" };

	(void)state;
	unlink(tmp_path("stub.log.flaky"));
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	return 0;
}

/* permscope-bisect --stock the fake tree SERIES --out OUT [MORE] */
static int bisect(const char *series, const char *more)
{
	char *argv[] = { (char *)script, "--stock", (char *)tmp_path("linux"), (char *)series,
			 "--out", (char *)tmp_path("out"), (char *)more, NULL };

	unlink(tmp_path("stub.log"));
	remove_tree(tmp_path("out"));
	return run_capture(argv);
}

/* The numbers of patches the stub A/B was run with, one a line. */
static char *ab_runs(void)
{
	char *text = slurp(tmp_path("stub.log"), NULL);

	return text ? text : strdup("");
}

/*
 * OUT holds the step line that starts with HEAD and ends with its times
 * and VERDICT, whatever the times are ("A/B 1 s" on a loaded machine).
 */
static void assert_step(const char *out, const char *head, const char *verdict)
{
	const char *at = strstr(out, head), *eol;
	size_t len = strlen(verdict);

	if (!at)
		fail_msg("no step line '%s' in:\n%s", head, out);
	eol = strchrnul(at, '\n');
	if ((size_t)(eol - at) < len + 2 || strncmp(eol - len - 2, ": ", 2) ||
	    strncmp(eol - len, verdict, len) || !memmem(at, eol - at, " s, A/B ", 8))
		fail_msg("step line '%.*s' does not end in 'build B s, A/B N s: %s'", (int)(eol - at),
			 at, verdict);
}

static void culprit_in_the_middle_is_found_in_three_ab_runs(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_BAD", "3", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_contains(out_text, "5 patches on");
	assert_contains(out_text, "at most 4 steps");
	assert_step(out_text, "step 1/4: 5 patches (0005-fs-f5-number-the-variable.patch: "
				  "fs/f5: number the variable):", "FAIL (access.unsafe)");
	assert_step(out_text, "step 2/4: 2 patches (0002-fs-f2-number-the-variable.patch: "
				  "fs/f2: number the variable):", "PASS");
	assert_step(out_text, "step 3/4: 3 patches (0003-fs-f3-number-the-variable.patch: "
				  "fs/f3: number the variable):", "FAIL (access.unsafe)");
	assert_not_contains(out_text, "step 4/4");
	assert_contains(out_text, "culprit: patch 3 of 5, 0003-fs-f3-number-the-variable.patch\n");
	assert_contains(out_text, "  subject: fs/f3: number the variable\n");
	assert_contains(out_text, "2 patches pass");
	assert_contains(out_text, "access.unsafe  access.unsafe == 0: new 200, base 0\n");
	/* verify's samples come from the culprit's own step, not the full series */
	assert_contains(out_text, "step-3/patched/results/verify-default.txt):\n");
	assert_contains(out_text, "    VIOLATION  access.unsafe: 3 patches\n        42 workload\n");
	assert_contains(out_text, "Verdict: VIOLATION, an invariant broke");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n");
	free(runs);
	/* each step's A/B has its own directory and log */
	assert_int_equal(access(tmp_path("out/step-full/ab.log"), F_OK), 0);
	assert_int_equal(access(tmp_path("out/step-2/gate.json"), F_OK), 0);
	assert_int_equal(access(tmp_path("out/step-3/ab.log"), F_OK), 0);
	unsetenv("STUB_BAD");
}

/*
 * --base-patch: the series starts from SRC with the base patches, on both
 * sides of every step (the cred layout's control starts from a kernel
 * whose refcount has a line of its own); tried with the series first.
 */
static void base_patches_are_applied_on_both_sides_of_every_step(void **state)
{
	const char *base = write_tmp_file("base.patch", "--- a/Makefile\n+++ b/Makefile\n"
					  "@@ -1 +1,2 @@\n # not a kernel\n+# the base\n");
	const char *bad = write_tmp_file("bad-base.patch", "--- a/Makefile\n+++ b/Makefile\n"
					 "@@ -1 +1,2 @@\n # no such line\n+# the base\n");
	char *argv[] = { (char *)script, "--stock", (char *)tmp_path("linux"), "--base-patch",
			 (char *)base, (char *)tmp_path("series"), "--out", (char *)tmp_path("out"),
			 NULL };
	char want[2 * PATH_MAX + 64], *args;

	(void)state;
	/* the stub counts the base patch among the patched side's: 1 + the prefix */
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_ARGS", tmp_path("stub.args"), 1);
	unlink(tmp_path("stub.log"));
	remove_tree(tmp_path("out"));
	assert_int_equal(run_capture(argv), 1);
	assert_contains(out_text, "culprit: patch 3 of 5, 0003-fs-f3-number-the-variable.patch\n");
	args = slurp(tmp_path("stub.args"), NULL);
	assert_non_null(args);
	snprintf(want, sizeof(want), "--stock %s %s --patched %s %s %s/series/0001-", tmp_path("linux"),
		 base, tmp_path("linux"), base, tmp_path("out"));
	assert_contains(args, want);
	free(args);
	unlink(tmp_path("stub.args"));
	unsetenv("STUB_ARGS");
	/* a base patch that does not apply stops before any A/B, as a bad series does */
	argv[4] = (char *)bad;
	unlink(tmp_path("stub.log"));
	assert_int_equal(run_capture(argv), 2);
	assert_int_equal(access(tmp_path("stub.log"), F_OK), -1);
	argv[4] = (char *)tmp_path("no-such.patch");
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "base patch ");
	assert_contains(err_text, "no-such.patch: no such file");
	unsetenv("STUB_BAD");
}

/*
 * --tree PATH --good REV --bad REV: a git tree of the fake kernel with the
 * five patches committed on top is bisected to the third commit, named by
 * its hash; GOOD is checked out in DIR/good and PATH is left as it was; a
 * range that is no range, or a tree that is none, is bad usage.
 */
static void a_git_tree_is_bisected_between_two_commits(void **state)
{
	char *cp[] = { "/bin/cp", "-a", (char *)tmp_path("linux"), (char *)tmp_path("git"), NULL };
	char *am[] = { "/bin/sh", "-c", "cd \"$0\" && git -c user.name=t -c user.email=t@t am -q "
		       "\"$1\"/*.patch", (char *)tmp_path("git"), (char *)tmp_path("series"), NULL };
	char gitdir[PATH_MAX], out[PATH_MAX], third[64], want[128];
	char *argv[] = { (char *)script, "--tree", gitdir, "--good", "HEAD~5", "--bad", "HEAD",
			 "--out", out, NULL };

	(void)state;
	snprintf(gitdir, sizeof(gitdir), "%s", tmp_path("git"));
	snprintf(out, sizeof(out), "%s", tmp_path("out-git"));
	assert_int_equal(run_capture(cp), 0);
	/* git keeps no empty directory: the fake tree's kconfig gets a file */
	write_tmp_file("git/scripts/kconfig/Makefile", "# not kconfig\n");
	assert_int_equal(git_in(gitdir, "init", "-q", NULL), 0);
	assert_int_equal(git_in(gitdir, "add", "-A", NULL), 0);
	assert_int_equal(git_in(gitdir, "commit", "-qm", "the good kernel", NULL), 0);
	assert_int_equal(run_capture(am), 0);
	assert_int_equal(git_in(gitdir, "rev-parse", "HEAD~2", NULL), 0);
	snprintf(third, sizeof(third), "%.40s", out_text);
	setenv("STUB_BAD", "3", 1);
	unlink(tmp_path("stub.log"));
	if (run_capture(argv) != 1)
		fail_msg("exit not 1:\n%s%s", out_text, err_text);
	assert_contains(out_text, "permscope-bisect: 5 commits of ");
	assert_contains(out_text, ", HEAD~5..HEAD (each a patch on ");
	assert_contains(out_text, "culprit: patch 3 of 5, 0003-");
	snprintf(want, sizeof(want), "  commit: %s\n", third);
	assert_contains(out_text, want);
	/* GOOD checked out apart; the user's tree untouched, its HEAD where it was */
	assert_int_equal(git_in(gitdir, "rev-parse", "HEAD~5", NULL), 0);
	snprintf(want, sizeof(want), "%s", out_text);
	assert_int_equal(git_in(tmp_path("out-git/good"), "rev-parse", "HEAD", NULL), 0);
	assert_string_equal(out_text, want);
	assert_int_equal(git_in(gitdir, "status", "--porcelain", NULL), 0);
	assert_string_equal(out_text, "");
	/* no range: BAD before GOOD, the same commit, a tree that is none, options mixed */
	argv[4] = "HEAD";
	argv[6] = "HEAD~5";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "is not an ancestor of --bad HEAD~5");
	argv[6] = "HEAD";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "--good and --bad are the same commit");
	argv[2] = (char *)tmp_path("linux");
	argv[4] = "HEAD~5";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "not a git tree");
	argv[2] = gitdir;
	argv[4] = "--stock";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "--good --stock: a revision, not an option");
	unsetenv("STUB_BAD");
}

static void every_position_of_the_culprit_is_found(void **state)
{
	char want[64];

	(void)state;
	for (int bad = 1; bad <= 5; bad++) {
		snprintf(want, sizeof(want), "%d", bad);
		setenv("STUB_BAD", want, 1);
		assert_int_equal(bisect(tmp_path("series"), NULL), 1);
		snprintf(want, sizeof(want), "culprit: patch %d of 5, %04d-", bad, bad);
		assert_contains(out_text, want);
	}
	/* the first patch: only the stock kernel passes, by assumption */
	setenv("STUB_BAD", "1", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_contains(out_text, "the stock kernel passes (assumed");
	unsetenv("STUB_BAD");
}

static void series_that_passes_is_said_plainly_after_one_ab(void **state)
{
	char *runs;

	(void)state;
	assert_int_equal(bisect(tmp_path("series"), NULL), 0);
	assert_contains(out_text, "step 1/4: 5 patches");
	assert_contains(out_text, ": PASS\nthe series passes: nothing to bisect\n");
	runs = ab_runs();
	assert_string_equal(runs, "5\n");
	free(runs);
}

static void stock_kernel_that_already_fails_verify_blames_no_patch(void **state)
{
	(void)state;
	setenv("STUB_BAD", "2", 1);
	setenv("STUB_STOCK", "violation", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 5);
	assert_contains(out_text, "the stock kernel already fails verify: no patch to blame\n");
	assert_contains(out_text, "VIOLATION  access.unsafe: in the stock kernel");
	assert_not_contains(out_text, "culprit");
	unsetenv("STUB_STOCK");
	unsetenv("STUB_BAD");
}

/* A prefix without a verdict is skipped, as git bisect skip does; its neighbour is tried. */
static void step_without_verdict_is_skipped_and_its_neighbour_tried(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_NOVERDICT", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_contains(out_text, "step 2/4: 2 patches");
	assert_contains(out_text, ": SKIPPED (no verdict)\n  no verdict: access.unsafe  access.unsafe "
				  "== 0: new 200, base 0 (no event on the base side)\n");
	/* a skipped step adds one to the steps there may be */
	assert_step(out_text, "step 3/5: 3 patches", "PASS");
	assert_step(out_text, "step 4/5: 4 patches", "FAIL (access.unsafe)");
	assert_contains(out_text, "culprit: patch 4 of 5, 0004-");
	/* the step skipped on the way is named under the culprit */
	assert_contains(out_text, "  3 patches pass (");
	assert_contains(out_text, "  skipped on the way: with patch 2, 0002-fs-f2-number-the-variable."
				  "patch, the gate had no verdict (");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n4\n");
	free(runs);
}

/*
 * A prefix whose kernel does not build is skipped; when only skipped ones
 * lie between the last that passes and the first that fails, the result
 * is that range of patches, each skipped one named: exit 6, no culprit
 * claimed.
 */
static void unbuildable_prefix_leaves_the_smallest_range_not_a_guess(void **state)
{
	char *runs, *verdict;

	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_NOBUILD", "3", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 6);
	assert_contains(out_text, ": SKIPPED (building the patched kernel failed)\n");
	assert_contains(out_text, "\nculprit: one of patches 3 to 4 of 5 (2 patches pass, 4 fail; the "
				  "prefixes between could not be judged)\n"
				  "  patch 3, 0003-fs-f3-number-the-variable.patch\n"
				  "    subject: fs/f3: number the variable\n"
				  "    skipped: with it, the kernel could not be built or booted (");
	assert_contains(out_text, "  patch 4, 0004-fs-f4-number-the-variable.patch\n");
	assert_contains(out_text, "    with it, the A/B fails (");
	assert_not_contains(out_text, "culprit: patch");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n4\n");
	free(runs);
	/* the step's verdict, kept for a rerun */
	verdict = slurp(tmp_path("out/step-3/verdict"), NULL);
	assert_non_null(verdict);
	assert_contains(verdict, "skip\tuntestable\t1\tSKIPPED (building the patched kernel failed)\n"
			"run\t1\tskip\t");
	free(verdict);
	/* the full series cannot be judged: nothing to bisect on */
	setenv("STUB_NOBUILD", "5", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 3);
	assert_contains(err_text, "the full series cannot be judged (untestable: see ");
}

/* --repeat N: every step N times; runs that disagree are flaky, and stop it. */
static void flaky_step_stops_the_bisection_with_its_runs(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_FLAKY", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), "--repeat=2"), 2);
	assert_contains(err_text, "--repeat=2");
	{
		char *argv[] = { (char *)script, "--stock", (char *)tmp_path("linux"),
				 (char *)tmp_path("series"), "--out", (char *)tmp_path("out"),
				 "--repeat", "2", NULL };

		remove_tree(tmp_path("out"));
		unlink(tmp_path("stub.log"));
		assert_int_equal(run_capture(argv), 7);
	}
	assert_contains(out_text, "  each step run 2 times\n");
	assert_contains(out_text, "  run 2/2: ");
	assert_contains(out_text, "  2 runs agree: bad\n");
	assert_contains(out_text, "FLAKY: the runs of step 2 disagree: 1 good, 1 bad\n"
				  "  run 1: good (");
	assert_contains(out_text, "  run 2: bad (");
	assert_contains(out_text, "/out/step-2/run-2)\n");
	assert_contains(err_text, "step 2 (2 patches) is flaky: its runs disagree");
	assert_not_contains(out_text, "culprit");
	runs = ab_runs();
	assert_string_equal(runs, "5\n5\n2\n2\n");
	free(runs);
	/* a flaky step keeps no verdict: a rerun runs it again */
	assert_int_equal(access(tmp_path("out/step-2/verdict"), F_OK), -1);
	assert_int_equal(access(tmp_path("out/step-2/flaky.tsv"), F_OK), 0);
}

/* A step whose rule lies near its threshold (gate.tsv's NEAR) runs 3 times. */
static void step_near_its_threshold_is_run_again(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_BAD", "3", 1);
	setenv("STUB_NEAR", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_contains(out_text, ": PASS\n  near its threshold: access.unsafe  access.unsafe == 0: new "
				  "200, threshold 0 (pass)\n  so 2 more runs of this step\n"
				  "  run 2/3: ");
	assert_contains(out_text, "  3 runs agree: good\n");
	assert_contains(out_text, "culprit: patch 3 of 5");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n2\n2\n3\n");
	free(runs);
	assert_int_equal(access(tmp_path("out/step-2/run-3/gate.tsv"), F_OK), 0);
	/* --repeat-near 1: one run is enough */
	assert_int_equal(bisect(tmp_path("series"), "--repeat-near=1"), 2);
}

/*
 * --find improvement RULE: the first patch with which RULE holds, the
 * stock kernel assumed not to; the terms named as git's --term-old and
 * --term-new.
 */
static void improvement_finds_the_patch_that_brought_a_fast_path(void **state)
{
	const char *rule = "lookup.did_skip_ratio >= base + 0.05";
	char *argv[] = { (char *)script, "--stock", (char *)tmp_path("linux"),
			 (char *)tmp_path("series"), "--out", (char *)tmp_path("out"), "--find",
			 "improvement", (char *)rule, "--term-old", "slow", "--term-new", "fast", NULL };
	char *text;

	(void)state;
	setenv("STUB_IMPROVES", "3", 1);
	unlink(tmp_path("stub.log"));
	remove_tree(tmp_path("out"));
	assert_int_equal(run_capture(argv), 1);
	assert_contains(out_text, "  the first patch with which 'lookup.did_skip_ratio >= base + "
				  "0.05' holds (fast; slow before it)");
	assert_step(out_text, "step 1/4: 5 patches", "FAST (it holds: new 0.9, threshold 0.55)");
	assert_step(out_text, "step 2/4: 2 patches", "SLOW (it does not hold: new 0.5, threshold 0.55)");
	assert_contains(out_text, "\nfirst fast: patch 3 of 5, 0003-fs-f3-number-the-variable.patch\n");
	assert_contains(out_text, "  with 2 patches it does not hold (");
	assert_contains(out_text, "    lookup.did_skip_ratio  lookup.did_skip_ratio >= base + 0.05: "
				  "new 0.9, base 0.5\n");
	/* RULE alone is the gate's rules */
	text = slurp(tmp_path("out/find.rules"), NULL);
	assert_non_null(text);
	assert_string_equal(text, "lookup.did_skip_ratio >= base + 0.05\n");
	free(text);
	/* a rule that never holds: nothing to find */
	setenv("STUB_IMPROVES", "99", 1);
	remove_tree(tmp_path("out"));
	assert_int_equal(run_capture(argv), 0);
	assert_contains(out_text, "does not hold with the full series: nothing to find\n");
	/* one rule, not a rules file; two names for two terms */
	argv[9] = "--rules";
	argv[10] = (char *)tmp_path("series.mbox");
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "no --rules with it");
	argv[9] = "--term-old";
	argv[10] = "fast";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "--term-old and --term-new are both 'fast'");
}

/*
 * An interrupted bisection resumes from its DIR: the steps judged are read
 * from DIR/step-K/verdict, not run again; other parameters are refused,
 * named, unless --fresh.
 */
static void interrupted_bisection_resumes_with_only_the_missing_steps(void **state)
{
	char *argv[] = { (char *)script, "--stock", (char *)tmp_path("linux"),
			 (char *)tmp_path("series"), "--out", (char *)tmp_path("out"), NULL, NULL,
			 NULL };
	char *runs;

	(void)state;
	setenv("STUB_BAD", "3", 1);
	setenv("STUB_CRASH", "3", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 4);
	assert_contains(err_text, "step 3 (3 patches): the A/B's environment failed");
	unsetenv("STUB_CRASH");
	unlink(tmp_path("stub.log"));
	assert_int_equal(run_capture(argv), 1);
	assert_contains(out_text, "step 1/4: 5 patches (0005-fs-f5-number-the-variable.patch: fs/f5: "
				  "number the variable): FAIL (access.unsafe); judged before, 1 run (");
	assert_contains(out_text, "step 2/4: 2 patches (0002-fs-f2-number-the-variable.patch: fs/f2: "
				  "number the variable): PASS; judged before, 1 run (");
	assert_contains(out_text, "culprit: patch 3 of 5, 0003-");
	runs = ab_runs();
	assert_string_equal(runs, "3\n");
	free(runs);
	/* other parameters: refused, each named */
	argv[6] = "--workload";
	argv[7] = "access";
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "holds a bisection of other parameters (workload: all, now access): "
				  "--fresh starts it over, or --out another DIR");
	argv[6] = "--fresh";
	argv[7] = NULL;
	unlink(tmp_path("stub.log"));
	assert_int_equal(run_capture(argv), 1);
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n");
	free(runs);
}

/*
 * Each prefix's build tree goes once its step is judged, when the
 * bisection made it; a tree built before stays, and --keep-trees keeps all.
 */
static void prefix_trees_the_bisection_made_are_removed_once_judged(void **state)
{
	char *argv[] = { "tools/vm/build-kernel", "--prepare", (char *)tmp_path("linux"),
			 (char *)tmp_path("out/series/0001-fs-f1-number-the-variable.patch"),
			 (char *)tmp_path("out/series/0002-fs-f2-number-the-variable.patch"), NULL };
	char before[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int trees = 0;

	(void)state;
	setenv("STUB_BAD", "3", 1);
	setenv("STUB_PREPARE", "1", 1);
	remove_tree(tmp_path("cache"));
	assert_int_equal(bisect(tmp_path("series"), "--keep-trees"), 1);
	d = opendir(tmp_path("cache/trees"));
	assert_non_null(d);
	while ((e = readdir(d)))
		trees += e->d_name[0] != '.' && !strstr(e->d_name, ".lock");
	closedir(d);
	assert_int_equal(trees, 3); /* 5, 2 and 3 patches */
	assert_not_contains(out_text, "removed its build tree");
	/* the tree of 2 patches, built before the bisection, stays */
	remove_tree(tmp_path("cache"));
	assert_int_equal(run_capture(argv), 0);
	snprintf(before, sizeof(before), "%.*s", (int)strcspn(out_text, "\n"), out_text);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_contains(out_text, ": FAIL (access.unsafe)\n  removed its build tree ");
	assert_int_equal(access(before, F_OK), 0);
	trees = 0;
	d = opendir(tmp_path("cache/trees"));
	assert_non_null(d);
	while ((e = readdir(d)))
		trees += e->d_name[0] != '.' && !strstr(e->d_name, ".lock");
	closedir(d);
	assert_int_equal(trees, 1);
}

/* A step that runs long says so every PERMSCOPE_BISECT_HEARTBEAT seconds, with its phase. */
static void long_step_prints_its_phase_while_it_runs(void **state)
{
	(void)state;
	setenv("STUB_SLEEP", "3", 1);
	setenv("PERMSCOPE_BISECT_HEARTBEAT", "1", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 0);
	assert_contains(out_text, "step 1/4: 5 patches (0005-fs-f5-number-the-variable.patch: fs/f5: "
				  "number the variable): \n  … 0 min 0");
	assert_contains(out_text, " s: booting both kernels\n");
	/* the step's line again, under its beats, with its verdict */
	assert_step(strstr(out_text, "booting both kernels\nstep 1/4") + 21, "step 1/4: 5 patches",
		    "PASS");
}

static void failed_vm_is_not_a_verdict(void **state)
{
	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_CRASH", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 4);
	assert_contains(out_text, "step 2/4: 2 patches");
	assert_contains(out_text, ": ERROR\n");
	assert_contains(err_text, "Error: permscope-ab: the stock VM failed");
	assert_contains(err_text, "step 2 (2 patches): the A/B's environment failed (exit 4: a "
			"build, a VM or a tool), so this prefix has no verdict");
	unsetenv("STUB_CRASH");
	unsetenv("STUB_BAD");
}

/* permscope-ab's own exit status for a build that fails: 4, not gate's 1. */
static void permscope_ab_says_a_failed_build_is_the_environment(void **state)
{
	char path[PATH_MAX * 2], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char *argv[] = { "tools/permscope-ab", "--patched", (char *)tmp_path("linux"),
			 (char *)tmp_path("series/0001-fs-f1-number-the-variable.patch"), "--out",
			 (char *)tmp_path("ab"), NULL };

	(void)state;
	/* make(1) as a stub: the A/B's own deps "install", any kernel build fails */
	mkdir(tmp_path("bin"), 0755);
	write_tmp_file("bin/make", "#!/bin/sh\ncase \" $* \" in *\" vm-deps \"*) exit 0 ;; esac\n"
		       "echo \"make: *** no kernel here\" >&2\nexit 2\n");
	assert_int_equal(chmod(tmp_path("bin/make"), 0755), 0);
	snprintf(path, sizeof(path), "%s:%s", tmp_path("bin"), old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	assert_int_equal(run_capture(argv), 4);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	assert_contains(err_text, "Error: permscope-ab: building the stock kernel failed");
}

static void verify_violation_on_the_patched_kernel_makes_the_culprit(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_VERIFY_BAD", "3", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 1);
	assert_step(out_text, "step 1/4: 5 patches (0005-fs-f5-number-the-variable.patch: "
				  "fs/f5: number the variable):", "FAIL (verify: a violation on the "
				  "patched kernel; the gate passes)");
	assert_step(out_text, "step 2/4: 2 patches (0002-fs-f2-number-the-variable.patch: "
				  "fs/f2: number the variable):", "PASS");
	assert_contains(out_text, "culprit: patch 3 of 5, 0003-fs-f3-number-the-variable.patch\n");
	assert_contains(out_text, "2 patches pass (");
	assert_contains(out_text, "with this one verify finds a violation on the patched kernel (");
	assert_contains(out_text, "  rules it fails: none (the gate passes)\n");
	assert_contains(out_text, "    VIOLATION  access.unsafe: 3 patches\n");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n");
	free(runs);
	unsetenv("STUB_VERIFY_BAD");
}

/* What `b4 am` writes: its own envelope on every message, the cover letter first. */
static void b4_mbox_of_five_patches_bisects_to_the_right_patch(void **state)
{
	const char *b4 = "From git@z Thu Jan  1 00:00:00 1970\n";
	char cover[256], *runs;

	(void)state;
	snprintf(cover, sizeof(cover), "%sSubject: [PATCH 0/5] fs: number five variables\n"
		 "From: A Tester <tester@example.org>\n\nFive numbers.\n\n", b4);
	setenv("STUB_BAD", "4", 1);
	assert_int_equal(bisect(write_mbox("b4.mbox", b4, cover, NULL), NULL), 1);
	assert_contains(out_text, "b4.mbox: 5 patches from an mbox (b4 am) of 6 messages, 1 skipped\n");
	assert_contains(out_text, "skipped message 1 (\"[PATCH 0/5] fs: number five variables\"): "
			"the cover letter (0/5)\n");
	assert_contains(out_text, "culprit: patch 4 of 5, 0004-fs-f4-number-the-variable.patch\n");
	assert_contains(out_text, "  subject: fs/f4: number the variable\n");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n3\n4\n");
	free(runs);
	unsetenv("STUB_BAD");
}

/* lore's mbox: mboxrd, where a body's "From " line was quoted as ">From ". */
static void lore_mboxrd_is_split_and_unquoted(void **state)
{
	char *text;

	(void)state;
	setenv("STUB_BAD", "2", 1);
	assert_int_equal(bisect(write_mbox("lore.mbox", "From mboxrd@z Thu Jan  1 00:00:00 1970\n",
					   NULL, ">From the start, f2 was 0.\n>>From a quote.\n"), NULL), 1);
	assert_contains(out_text, "5 patches from an mbox (mboxrd, as lore gives) of 5 messages");
	assert_contains(out_text, "culprit: patch 2 of 5, 0002-fs-f2-number-the-variable.patch\n");
	text = slurp(tmp_path("out/series/0002-fs-f2-number-the-variable.patch"), NULL);
	assert_non_null(text);
	assert_contains(text, "\nPatch 2.\nFrom the start, f2 was 0.\n>From a quote.\n---\n");
	free(text);
	unsetenv("STUB_BAD");
}

static void mbox_whose_count_is_not_its_subjects_is_refused(void **state)
{
	char text[1024], mbox[8192] = "";

	(void)state;
	for (int n = 1; n <= 5; n++) {
		if (n == 3)
			continue;
		patch_text(n, NULL, NULL, text, sizeof(text));
		strcat(mbox, text);
	}
	assert_int_equal(bisect(write_tmp_file("four.mbox", mbox), NULL), 2);
	assert_contains(err_text, "four.mbox: 4 patches, but their subjects number 5 ([PATCH n/5]): "
			"3 missing\n");
	assert_int_equal(access(tmp_path("stub.log"), F_OK), -1);
}

static void patch_name_with_a_newline_is_refused_by_name(void **state)
{
	(void)state;
	write_tmp_file("series/0006-second\nline.patch",
		       "--- a/fs/f1.c\n+++ b/fs/f1.c\n@@ -1 +1 @@\n-int f1;\n+int f1 = 6;\n");
	assert_int_equal(bisect(tmp_path("series"), NULL), 2);
	assert_contains(err_text, "the entry \"0006-second\\nline.patch\" has a control character "
			"in its name");
	assert_int_equal(access(tmp_path("stub.log"), F_OK), -1);
	unlink(tmp_path("series/0006-second\nline.patch"));
}

static void mbox_is_split_into_numbered_patches(void **state)
{
	(void)state;
	setenv("STUB_BAD", "4", 1);
	assert_int_equal(bisect(tmp_path("series.mbox"), NULL), 1);
	assert_contains(out_text, "series.mbox: 5 patches from an mbox (git format-patch) of 5 "
			"messages, 0 skipped\n");
	assert_contains(out_text, "culprit: patch 4 of 5, 0004-fs-f4-number-the-variable.patch\n");
	assert_int_equal(access(tmp_path("out/series/0004-fs-f4-number-the-variable.patch"), F_OK), 0);
	unsetenv("STUB_BAD");
}

static void bad_usage_and_bad_patches_stop_before_any_ab(void **state)
{
	char *argv[] = { (char *)script, (char *)tmp_path("series"), NULL };
	char *none[] = { (char *)script, "--stock", (char *)tmp_path("linux"), NULL };

	(void)state;
	unlink(tmp_path("stub.log"));
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "Error: permscope-bisect: --stock SRC is needed");
	assert_int_equal(run_capture(none), 2);
	assert_contains(err_text, "SERIES is needed");
	assert_int_equal(bisect(tmp_path("series"), "--workload"), 2);
	assert_contains(err_text, "--workload needs a value");
	assert_int_equal(bisect(tmp_path("missing"), NULL), 2);
	assert_contains(err_text, "no such file or directory");
	{
		char *mode[] = { (char *)script, "--stock", (char *)tmp_path("linux"),
				 (char *)tmp_path("series"), "--mode", "uprobe", NULL };

		assert_int_equal(run_capture(mode), 2);
		assert_contains(err_text, "unknown mode 'uprobe'");
	}
	/* a cover letter is skipped, and said */
	write_tmp_file("series/0000-cover-letter.patch", "Subject: [PATCH 0/5] five\n\nfive\n");
	assert_int_equal(bisect(tmp_path("series"), NULL), 0);
	assert_contains(out_text, "skipped 0000-cover-letter.patch (\"[PATCH 0/5] five\"): the cover "
			"letter (0/5)\n");
	unlink(tmp_path("series/0000-cover-letter.patch"));
	/* a patch that does not apply stops all */
	mkdir(tmp_path("stale"), 0755);
	write_tmp_file("stale/1.diff", "--- a/fs/f1.c\n+++ b/fs/f1.c\n@@ -1 +1 @@\n-int f1;\n+int f1 = 1;\n");
	write_tmp_file("stale/2.diff", "--- a/fs/f1.c\n+++ b/fs/f1.c\n@@ -1 +1 @@\n-int f1;\n+int f1 = 6;\n");
	unlink(tmp_path("stub.log"));
	assert_int_equal(bisect(tmp_path("stale"), NULL), 2);
	assert_contains(err_text, "0002.patch does not apply");
	assert_int_equal(access(tmp_path("stub.log"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(culprit_in_the_middle_is_found_in_three_ab_runs, stub_defaults),
		cmocka_unit_test_setup(every_position_of_the_culprit_is_found, stub_defaults),
		cmocka_unit_test_setup(base_patches_are_applied_on_both_sides_of_every_step, stub_defaults),
		cmocka_unit_test_setup(a_git_tree_is_bisected_between_two_commits, stub_defaults),
		cmocka_unit_test_setup(series_that_passes_is_said_plainly_after_one_ab, stub_defaults),
		cmocka_unit_test_setup(stock_kernel_that_already_fails_verify_blames_no_patch, stub_defaults),
		cmocka_unit_test_setup(step_without_verdict_is_skipped_and_its_neighbour_tried, stub_defaults),
		cmocka_unit_test_setup(unbuildable_prefix_leaves_the_smallest_range_not_a_guess, stub_defaults),
		cmocka_unit_test_setup(flaky_step_stops_the_bisection_with_its_runs, stub_defaults),
		cmocka_unit_test_setup(step_near_its_threshold_is_run_again, stub_defaults),
		cmocka_unit_test_setup(improvement_finds_the_patch_that_brought_a_fast_path, stub_defaults),
		cmocka_unit_test_setup(interrupted_bisection_resumes_with_only_the_missing_steps, stub_defaults),
		cmocka_unit_test_setup(prefix_trees_the_bisection_made_are_removed_once_judged, stub_defaults),
		cmocka_unit_test_setup(long_step_prints_its_phase_while_it_runs, stub_defaults),
		cmocka_unit_test_setup(failed_vm_is_not_a_verdict, stub_defaults),
		cmocka_unit_test_setup(mbox_is_split_into_numbered_patches, stub_defaults),
		cmocka_unit_test_setup(permscope_ab_says_a_failed_build_is_the_environment, stub_defaults),
		cmocka_unit_test_setup(verify_violation_on_the_patched_kernel_makes_the_culprit, stub_defaults),
		cmocka_unit_test_setup(b4_mbox_of_five_patches_bisects_to_the_right_patch, stub_defaults),
		cmocka_unit_test_setup(lore_mboxrd_is_split_and_unquoted, stub_defaults),
		cmocka_unit_test_setup(mbox_whose_count_is_not_its_subjects_is_refused, stub_defaults),
		cmocka_unit_test_setup(patch_name_with_a_newline_is_refused_by_name, stub_defaults),
		cmocka_unit_test_setup(bad_usage_and_bad_patches_stop_before_any_ab, stub_defaults),
	};

	return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
