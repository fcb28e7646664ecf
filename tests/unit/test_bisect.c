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

#include <sys/stat.h>

static const char *script = "tools/permscope-bisect";

/*
 * The stub A/B, with permscope-ab's exit statuses.  Its gate fails from
 * STUB_BAD patches on (exit 1), has no verdict at STUB_NOVERDICT patches
 * (3); from STUB_VERIFY_BAD patches on its gate passes but verify finds a
 * violation on the patched kernel (5); its VM fails at STUB_CRASH patches
 * (4); the stock kernel's verify says STUB_STOCK (clean by default).  Each
 * call appends its number of patches to STUB_LOG (the patched side's, base
 * patches included), and its arguments to STUB_ARGS when set.
 */
static const char stub[] =
	"#!/bin/sh\n"
	"[ -z \"$STUB_ARGS\" ] || echo \"$*\" >> \"$STUB_ARGS\"\n"
	"out= k=0 counting=0\n"
	"while [ $# -gt 0 ]; do\n"
	"\tcase $1 in\n"
	"\t--patched) counting=1; shift 2; continue ;;\n"
	"\t--out) out=$2; shift 2; counting=0; continue ;;\n"
	"\t--*) counting=0 ;;\n"
	"\t*) [ $counting = 0 ] || k=$((k + 1)) ;;\n"
	"\tesac\n"
	"\tshift\n"
	"done\n"
	"echo $k >> \"$STUB_LOG\"\n"
	"echo \"Booting both kernels in QEMU (stub)\"\n"
	"mkdir -p \"$out/stock/results\" \"$out/patched/results\"\n"
	"if [ \"$k\" -ge \"${STUB_BAD:-99}\" ]; then v=fail s=1; else v=pass s=0; fi\n"
	"[ \"$k\" != \"${STUB_NOVERDICT:-x}\" ] || { v=no-verdict s=3; }\n"
	"gs=$s pv=clean; [ \"$k\" -lt \"${STUB_VERIFY_BAD:-99}\" ] || { pv=violation; [ $s != 0 ] || s=5; }\n"
	"[ \"$k\" != \"${STUB_CRASH:-x}\" ] || { echo \"Error: permscope-ab: the patched VM failed\"; exit 4; }\n"
	"r=null; [ $v != no-verdict ] || r='\"no event on the base side\"'\n"
	"printf '{\\n  \"format\": \"permscope-gate/2\",\\n  \"verdict\": \"%s\",\\n"
	"  \"exit_status\": %d,\\n  \"base\": {\\n    \"build\": {\\n"
	"      \"version\": \"0.1.0\"\\n    }\\n  },\\n  \"rules\": [\\n    {\\n"
	"      \"rule\": \"access.unsafe == 0\",\\n      \"metric\": \"access.unsafe\",\\n"
	"      \"new\": 200.0,\\n      \"base\": 0.0,\\n      \"verdict\": \"%s\",\\n"
	"      \"reason\": %s\\n    }\\n  ]\\n}\\n' $v $gs $v \"$r\" > \"$out/gate.json\"\n"
	"t=; [ $v != no-verdict ] || t='no event on the base side'\n"
	"printf 'gate\\t%s\\t%d\\t0\\t0\\t0\\t0\\n%s\\taccess.unsafe\\taccess.unsafe == 0\\t200.0\\t"
	"0.0\\t%s\\n' $v $gs $v \"$t\" > \"$out/gate.tsv\"\n"
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
					     "STUB_CRASH", "STUB_STOCK" };

	(void)state;
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
	assert_contains(out_text, "access.unsafe  access.unsafe == 0: new 200.0, base 0.0\n");
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

static void step_without_verdict_stops_the_bisection(void **state)
{
	char *runs;

	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_NOVERDICT", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 3);
	assert_contains(out_text, "step 2/4: 2 patches");
	assert_contains(out_text, ": NO VERDICT\n  no verdict: access.unsafe  access.unsafe == 0: "
				  "new 200.0, base 0.0 (no event on the base side)\n");
	assert_contains(err_text, "Error: permscope-bisect: step 2 (2 patches, ");
	assert_contains(err_text, "the gate had no verdict");
	assert_not_contains(out_text, "culprit");
	runs = ab_runs();
	assert_string_equal(runs, "5\n2\n");
	free(runs);
	unsetenv("STUB_NOVERDICT");
	unsetenv("STUB_BAD");
}

static void failed_vm_is_not_a_verdict(void **state)
{
	(void)state;
	setenv("STUB_BAD", "4", 1);
	setenv("STUB_CRASH", "2", 1);
	assert_int_equal(bisect(tmp_path("series"), NULL), 4);
	assert_contains(out_text, "step 2/4: 2 patches");
	assert_contains(out_text, ": ERROR\n");
	assert_contains(err_text, "Error: permscope-ab: the patched VM failed");
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
		cmocka_unit_test_setup(series_that_passes_is_said_plainly_after_one_ab, stub_defaults),
		cmocka_unit_test_setup(stock_kernel_that_already_fails_verify_blames_no_patch, stub_defaults),
		cmocka_unit_test_setup(step_without_verdict_stops_the_bisection, stub_defaults),
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
