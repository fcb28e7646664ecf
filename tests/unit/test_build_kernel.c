// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/vm/build-kernel's patch and cache logic, on a fake "kernel tree" of
 * three files, without building anything: --key prints a build's key,
 * --check only tries the patches and --prepare stops once they are applied (the real build is measured
 * in docs/vm.md, "Kernels built from source").  The script runs as a child
 * with an argv, its cache in the scratch directory.
 */
#include "testutil.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

static const char *script = "tools/vm/build-kernel";

/* fs/namei.c of the fake tree: two hunks' worth of lines, far apart. */
static const char namei[] =
	"int may_lookup(void)\n{\n\treturn exec_shortcut();\n}\n"
	"/* 1 */\n/* 2 */\n/* 3 */\n/* 4 */\n/* 5 */\n/* 6 */\n/* 7 */\n/* 8 */\n"
	"int may_open(void)\n{\n\treturn 0;\n}\n";

/* A git format-patch file: the shortcut goes. */
static const char good[] =
	"From 0123456789abcdef Mon Sep 17 00:00:00 2001\n"
	"From: A Tester <tester@example.org>\n"
	"Subject: [PATCH] namei: no shortcut\n\n---\n"
	"diff --git a/fs/namei.c b/fs/namei.c\n"
	"--- a/fs/namei.c\n+++ b/fs/namei.c\n"
	"@@ -2,3 +2,3 @@\n {\n-\treturn exec_shortcut();\n+\treturn slow_path();\n }\n"
	"-- \n2.39.5\n";

/* A plain diff on top of good: it changes what good wrote. */
static const char second[] =
	"--- a/fs/namei.c\n+++ b/fs/namei.c\n"
	"@@ -2,3 +2,3 @@\n {\n-\treturn slow_path();\n+\treturn slower_path();\n }\n";

/* Its first hunk applies, its second's context is not in the tree. */
static const char bad[] =
	"--- a/fs/namei.c\n+++ b/fs/namei.c\n"
	"@@ -2,3 +2,3 @@\n {\n-\treturn exec_shortcut();\n+\treturn 1;\n }\n"
	"@@ -14,3 +14,3 @@\n {\n-\treturn -EACCES;\n+\treturn 0;\n }\n";

/* A git format-patch file whose only hunk's context is not in the tree. */
static const char stale[] =
	"From 0123456789abcdef Mon Sep 17 00:00:00 2001\n"
	"From: A Tester <tester@example.org>\n"
	"Subject: [PATCH] namei: slower\n\n---\n"
	"diff --git a/fs/namei.c b/fs/namei.c\n"
	"--- a/fs/namei.c\n+++ b/fs/namei.c\n"
	"@@ -2,3 +2,3 @@\n {\n-\treturn slow_path();\n+\treturn slower_path();\n }\n"
	"-- \n2.39.5\n";

static const char fragment[] = "CONFIG_BPF_SYSCALL=y\n";

static int setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	if (mkdir(tmp_path("linux"), 0755) || mkdir(tmp_path("linux/fs"), 0755) ||
	    mkdir(tmp_path("linux/scripts"), 0755) || mkdir(tmp_path("linux/scripts/kconfig"), 0755))
		return -1;
	write_tmp_file("linux/Makefile", "# not a kernel\n");
	write_tmp_file("linux/fs/namei.c", namei);
	write_tmp_file("good.patch", good);
	write_tmp_file("second.diff", second);
	write_tmp_file("bad.diff", bad);
	write_tmp_file("stale.patch", stale);
	write_tmp_file("permscope.config", fragment);
	write_tmp_file("other.config", "CONFIG_BPF_SYSCALL=y\nCONFIG_KPROBES=y\n");
	setenv("BUILD_KERNEL_CACHE", tmp_path("cache"), 1);
	setenv("BUILD_KERNEL_FRAGMENT", tmp_path("permscope.config"), 1);
	return 0;
}

/* PROGRAM with the arguments from FIRST on, through run_capture(). */
static int run_args(const char *program, const char *first, va_list ap)
{
	char *argv[16];
	int n = 0;

	argv[n++] = (char *)program;
	for (const char *a = first; a && n < 15; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	argv[n] = NULL;
	return run_capture(argv);
}

/* build-kernel ARGS... (NULL-terminated). */
static int build_kernel(const char *first, ...)
{
	va_list ap;
	int status;

	va_start(ap, first);
	status = run_args(script, first, ap);
	va_end(ap);
	return status;
}

/* The key build-kernel --key prints for the fake tree and these patches. */
static char *key_of(const char *patch1, const char *patch2)
{
	assert_int_equal(build_kernel("--key", tmp_path("linux"), patch1, patch2, NULL), 0);
	assert_int_equal(strlen(out_text), 17); /* 16 hex digits and a newline */
	return strdup(out_text);
}

static void patch_that_applies_changes_the_copy_and_never_the_pristine_tree(void **state)
{
	char *tree, *text;

	(void)state;
	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), tmp_path("good.patch"), NULL), 0);
	tree = strndup(out_text, strcspn(out_text, "\n"));
	assert_contains(tree, tmp_path("cache/trees/"));
	text = slurp(tmp_path("linux/fs/namei.c"), NULL);
	assert_string_equal(text, namei);
	free(text);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/fs/namei.c", tree);
	text = slurp(path, NULL);
	assert_contains(text, "return slow_path();");
	assert_not_contains(text, "exec_shortcut");
	free(text);
	free(tree);
}

static void patches_apply_in_the_order_given(void **state)
{
	char path[PATH_MAX], *text;

	(void)state;
	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), tmp_path("good.patch"),
				      tmp_path("second.diff"), NULL), 0);
	snprintf(path, sizeof(path), "%.*s/fs/namei.c", (int)strcspn(out_text, "\n"), out_text);
	text = slurp(path, NULL);
	assert_contains(text, "return slower_path();");
	free(text);
	/* The other way round, the second finds nothing to change. */
	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), tmp_path("second.diff"),
				      tmp_path("good.patch"), NULL), 1);
	assert_contains(err_text, "second.diff does not apply");
}

static void patch_that_does_not_apply_names_file_and_hunk_and_leaves_no_tree(void **state)
{
	char *key = key_of(tmp_path("bad.diff"), NULL);
	char tree[PATH_MAX];

	(void)state;
	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), tmp_path("bad.diff"), NULL), 1);
	assert_contains(err_text, "bad.diff does not apply");
	assert_contains(err_text, "checking file fs/namei.c");
	assert_contains(err_text, "Hunk #2 FAILED");
	assert_contains(err_text, "hunk 2 of fs/namei.c:");
	assert_contains(err_text, "-\treturn -EACCES;");
	/* The hunk that applied is not shown as failing. */
	assert_not_contains(err_text, "hunk 1 of");
	key[16] = '\0';
	snprintf(tree, sizeof(tree), "%s/%s", tmp_path("cache/trees"), key);
	assert_int_equal(access(tree, F_OK), -1);
	free(key);
}

static void key_follows_the_patches_their_order_and_the_config(void **state)
{
	char *stock = key_of(NULL, NULL), *again = key_of(NULL, NULL);
	char *patched = key_of(tmp_path("good.patch"), NULL);
	char *both = key_of(tmp_path("good.patch"), tmp_path("second.diff"));
	char *swapped = key_of(tmp_path("second.diff"), tmp_path("good.patch"));
	char *other, *mine;

	(void)state;
	assert_string_equal(stock, again); /* every A/B on this source shares it */
	assert_string_not_equal(stock, patched);
	assert_string_not_equal(patched, both);
	assert_string_not_equal(both, swapped);
	setenv("BUILD_KERNEL_FRAGMENT", tmp_path("other.config"), 1);
	other = key_of(NULL, NULL);
	setenv("BUILD_KERNEL_FRAGMENT", tmp_path("permscope.config"), 1);
	assert_string_not_equal(stock, other);
	free(other);
	/* a whole .config to start from (permscope-ab --config) is another kernel */
	setenv("BUILD_KERNEL_CONFIG", write_tmp_file("my.config", "CONFIG_SMP=y\n"), 1);
	mine = key_of(NULL, NULL);
	assert_string_not_equal(stock, mine);
	write_tmp_file("my.config", "CONFIG_SMP=n\n");
	other = key_of(NULL, NULL);
	unsetenv("BUILD_KERNEL_CONFIG");
	assert_string_not_equal(mine, other);
	assert_string_not_equal(stock, other);
	free(stock), free(again), free(patched), free(both), free(swapped), free(other), free(mine);
}

/* build-kernel --key TREE (the fake tree's copy at TREE): malloc'ed. */
static char *tree_key(const char *tree)
{
	assert_int_equal(build_kernel("--key", tree, NULL), 0);
	assert_int_equal(strlen(out_text), 17);
	return strdup(out_text);
}

/*
 * A local tree's key follows what it holds: without git, an edit (its size
 * or time) is a new key; with git, a commit, an uncommitted edit and a new
 * untracked file each are, and undoing the edit gives the key back.
 */
static void key_follows_a_local_trees_commits_and_edits(void **state)
{
	char tree[PATH_MAX], *k0, *k1, *kg, *kd, *k0b, *ku, *kc;
	char *cp[] = { "/bin/cp", "-a", (char *)tmp_path("linux"), tree, NULL };

	(void)state;
	if (!find_program("git")) {
		print_message("skipped: no git (Debian package git)\n");
		skip();
	}
	snprintf(tree, sizeof(tree), "%s", tmp_path("linux-git"));
	assert_int_equal(run_capture(cp), 0);
	k0 = tree_key(tree);
	write_tmp_file("linux-git/fs/namei.c", "/* edited */\n");
	k1 = tree_key(tree);
	assert_string_not_equal(k0, k1);
	assert_int_equal(git_in(tree, "init", "-q", NULL), 0);
	assert_int_equal(git_in(tree, "add", "-A", NULL), 0);
	assert_int_equal(git_in(tree, "commit", "-q", "-m", "base", NULL), 0);
	kg = tree_key(tree);
	write_tmp_file("linux-git/fs/namei.c", "/* edited again */\n");
	kd = tree_key(tree);
	assert_string_not_equal(kg, kd);
	assert_int_equal(git_in(tree, "checkout", "-q", "--", "fs/namei.c", NULL), 0);
	k0b = tree_key(tree);
	assert_string_equal(k0b, kg);
	write_tmp_file("linux-git/fs/new.c", "int x;\n");
	ku = tree_key(tree);
	assert_string_not_equal(kg, ku);
	assert_int_equal(git_in(tree, "add", "-A", NULL), 0);
	assert_int_equal(git_in(tree, "commit", "-q", "-m", "new file", NULL), 0);
	kc = tree_key(tree);
	assert_string_not_equal(kc, kg);
	assert_string_not_equal(kc, ku); /* the same files, but another HEAD */
	free(k0), free(k1), free(kg), free(kd), free(k0b), free(ku), free(kc);
}

static void patched_tree_starts_from_a_finished_stock_build(void **state)
{
	char *stock = key_of(NULL, NULL), path[PATH_MAX], copy[PATH_MAX];
	struct stat a, b;

	(void)state;
	stock[16] = '\0';
	/* No tree of an earlier test: the patched one is made here. */
	assert_int_equal(remove_tree(tmp_path("cache/trees")), 0);
	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), NULL), 0);
	/* What a finished stock build leaves. */
	snprintf(path, sizeof(path), "%s/%s/obj", tmp_path("cache/trees"), stock);
	for (const char *sub = "/arch\0/x86\0/boot\0"; *sub; sub += strlen(sub) + 1) {
		assert_int_equal(mkdir(path, 0755), 0);
		strcat(path, sub);
	}
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/bzImage");
	write_file(path, "stock", 5);

	assert_int_equal(build_kernel("--prepare", tmp_path("linux"), tmp_path("good.patch"), NULL), 0);
	assert_contains(err_text, "starting from the stock build");
	assert_contains(err_text, stock);
	snprintf(copy, sizeof(copy), "%.*s/obj/arch/x86/boot/bzImage", (int)strcspn(out_text, "\n"),
		 out_text);
	/* A copy of its own, which the patched build may overwrite. */
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(stat(copy, &b), 0);
	assert_int_not_equal(a.st_ino, b.st_ino);
	free(stock);
}

/* A finished build's marks in the build tree printed by --prepare (OUT): its bzImage says WHAT. */
static void fake_finished_build(const char *out, const char *what, char *tree, size_t len)
{
	char path[PATH_MAX + 64];

	snprintf(tree, len, "%.*s", (int)strcspn(out, "\n"), out);
	snprintf(path, sizeof(path), "%s/obj", tree);
	for (const char *sub = "/arch\0/x86\0/boot\0"; *sub; sub += strlen(sub) + 1) {
		mkdir(path, 0755);
		strcat(path, sub);
	}
	mkdir(path, 0755);
	strcat(path, "/bzImage");
	write_file(path, what, strlen(what));
	snprintf(path, sizeof(path), "%s/obj/.config-checked", tree);
	write_file(path, "", 0);
}

/*
 * A local tree built at another commit (git bisect run's next step): the
 * build starts from the newest build of an earlier state of the same tree
 * and config, so make rebuilds what changed, and its configuration is
 * made again; another config never shares it.
 */
static void local_tree_starts_from_its_earlier_build(void **state)
{
	char tree[PATH_MAX], first[PATH_MAX], second[PATH_MAX], path[PATH_MAX + 64], *text;
	char *cp[] = { "/bin/cp", "-a", (char *)tmp_path("linux"), tree, NULL };
	struct stat in_tree, in_build;
	int fd;

	(void)state;
	if (!find_program("git")) {
		print_message("skipped: no git (Debian package git)\n");
		skip();
	}
	assert_int_equal(remove_tree(tmp_path("cache/trees")), 0);
	snprintf(tree, sizeof(tree), "%s", tmp_path("linux-inc"));
	remove_tree(tree);
	assert_int_equal(run_capture(cp), 0);
	assert_int_equal(git_in(tree, "init", "-q", NULL), 0);
	assert_int_equal(git_in(tree, "add", "-A", NULL), 0);
	assert_int_equal(git_in(tree, "commit", "-q", "-m", "c1", NULL), 0);
	assert_int_equal(build_kernel("--prepare", tree, NULL), 0);
	assert_not_contains(err_text, "starting from");
	fake_finished_build(out_text, "c1", first, sizeof(first));

	/* a new file in place of the old, as git checkout writes one */
	write_tmp_file("linux-inc/fs/namei.c.new", "/* c2 */\n");
	snprintf(path, sizeof(path), "%s/fs/namei.c", tree);
	assert_int_equal(rename(tmp_path("linux-inc/fs/namei.c.new"), path), 0);
	assert_int_equal(stat(path, &in_tree), 0);
	assert_int_equal(git_in(tree, "commit", "-q", "-a", "-m", "c2", NULL), 0);
	assert_int_equal(build_kernel("--prepare", tree, NULL), 0);
	assert_contains(err_text, "starting from the build ");
	assert_contains(err_text, strrchr(first, '/') + 1);
	assert_contains(err_text, "(files that differ from it: 1)");
	snprintf(second, sizeof(second), "%.*s", (int)strcspn(out_text, "\n"), out_text);
	assert_string_not_equal(first, second);
	/* the objects moved here (one build a tree), the new source, the config made again */
	snprintf(path, sizeof(path), "%s/obj/arch/x86/boot/bzImage", second);
	text = slurp(path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "c1");
	free(text);
	assert_int_not_equal(access(first, F_OK), 0);
	snprintf(path, sizeof(path), "%s/obj/.config-checked", second);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/fs/namei.c", second);
	text = slurp(path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "/* c2 */\n");
	free(text);
	/* that file a copy of its own, dated now (newer than any object), the tree's untouched */
	assert_int_equal(stat(path, &in_build), 0);
	assert_int_not_equal(in_build.st_ino, in_tree.st_ino);
	assert_true(in_build.st_mtime >= in_tree.st_mtime);
	snprintf(path, sizeof(path), "%s/Makefile", second);
	assert_int_equal(stat(path, &in_build), 0);
	snprintf(path, sizeof(path), "%s/Makefile", tree);
	assert_int_equal(stat(path, &in_tree), 0);
	assert_int_equal(in_build.st_ino, in_tree.st_ino);

	/* an earlier build another run holds (its lock) is copied, not taken */
	fake_finished_build(out_text, "c2", first, sizeof(first));
	write_tmp_file("linux-inc/fs/namei.c", "/* c2b */\n");
	assert_int_equal(git_in(tree, "commit", "-q", "-a", "-m", "c2b", NULL), 0);
	snprintf(path, sizeof(path), "%s.lock", first);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_int_equal(build_kernel("--prepare", tree, NULL), 0);
	close(fd);
	assert_contains(err_text, "starting from the build ");
	assert_not_contains(err_text, "moved here");
	snprintf(path, sizeof(path), "%s/obj/arch/x86/boot/bzImage", first);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(second, sizeof(second), "%.*s/obj/arch/x86/boot/bzImage",
		 (int)strcspn(out_text, "\n"), out_text);
	text = slurp(second, NULL);
	assert_non_null(text);
	assert_string_equal(text, "c2");
	free(text);

	/* another config: a build of its own, from nothing */
	write_tmp_file("linux-inc/fs/namei.c", "/* c3 */\n");
	assert_int_equal(git_in(tree, "commit", "-q", "-a", "-m", "c3", NULL), 0);
	setenv("BUILD_KERNEL_CONFIG", tmp_path("other.config"), 1);
	assert_int_equal(build_kernel("--prepare", tree, NULL), 0);
	unsetenv("BUILD_KERNEL_CONFIG");
	assert_not_contains(err_text, "starting from");
}

static void check_tries_the_series_without_making_a_tree(void **state)
{
	(void)state;
	assert_int_equal(remove_tree(tmp_path("cache/trees")), 0);
	assert_int_equal(build_kernel("--check", tmp_path("linux"), tmp_path("good.patch"),
				      tmp_path("second.diff"), NULL), 0);
	assert_contains(err_text, "2 patch(es) apply");
	/* The second patch is tried on what the first made of the file. */
	assert_int_equal(build_kernel("--check", tmp_path("linux"), tmp_path("second.diff"),
				      tmp_path("good.patch"), NULL), 1);
	assert_contains(err_text, "second.diff does not apply");
	assert_int_equal(build_kernel("--check", tmp_path("linux"), tmp_path("bad.diff"), NULL), 1);
	assert_contains(err_text, "hunk 2 of fs/namei.c:");
	/* git format-patch's signature ("-- ", a version) is not part of the hunk shown */
	assert_int_equal(build_kernel("--check", tmp_path("linux"), tmp_path("stale.patch"), NULL), 1);
	assert_contains(err_text, "hunk 1 of fs/namei.c:");
	assert_contains(err_text, "+\treturn slower_path();");
	assert_not_contains(err_text, "2.39.5");
	/* Nothing copied, nothing built, the pristine tree untouched. */
	assert_int_equal(access(tmp_path("cache/trees"), F_OK), -1);
	char *text = slurp(tmp_path("linux/fs/namei.c"), NULL);
	assert_string_equal(text, namei);
	free(text);
}

/* tools/permscope-ab ARGS... (NULL-terminated). */
static int permscope_ab(const char *first, ...)
{
	va_list ap;
	int status;

	va_start(ap, first);
	status = run_args("tools/permscope-ab", first, ap);
	va_end(ap);
	return status;
}

/*
 * permscope-ab's bad usage is exit 2 with one Error line, before anything
 * is fetched, installed, built or booted; so is a patch that does not
 * apply to a kernel tree, tried before the stock kernel is built.
 */
static void permscope_ab_refuses_bad_usage_and_bad_patches_before_any_build(void **state)
{
	const char *out = tmp_path("ab");

	(void)state;
	assert_int_equal(permscope_ab(NULL), 2);
	assert_contains(err_text, "Error: permscope-ab: --patched is needed");
	assert_int_equal(permscope_ab("--patched", "bookworm", NULL), 2);
	assert_contains(err_text, "--stock is needed when --patched is not a kernel source");
	assert_int_equal(permscope_ab("--stock", "bookworm", "--patched", "sid",
				      tmp_path("good.patch"), NULL), 2);
	assert_contains(err_text, "sid is a kernel to boot as it is");
	assert_int_equal(permscope_ab("--patched", tmp_path("linux"), tmp_path("missing.patch"),
				      NULL), 2);
	assert_contains(err_text, "missing.patch: no such file");
	assert_int_equal(permscope_ab("--patched", tmp_path("linux"), tmp_path("good.patch"),
				      "--mode", "uprobe", NULL), 2);
	assert_contains(err_text, "unknown mode 'uprobe'");
	/* every workload ends in a comparison of its mixed runs: --html goes with any */
	assert_int_equal(permscope_ab("--patched", tmp_path("linux"), tmp_path("good.patch"),
				      "--workload", "exec", "--html", tmp_path("nodir/ab.html"), NULL),
			 2);
	assert_contains(err_text, "directory");
	assert_contains(err_text, "nodir does not exist");
	assert_int_equal(permscope_ab("--patched", tmp_path("linux"), "--stock", tmp_path("linux"),
				      NULL), 2);
	assert_contains(err_text, "the same kernel with the same patches");
	assert_int_equal(permscope_ab("--patched", tmp_path("linux"), tmp_path("good.patch"),
				      tmp_path("bad.diff"), "--out", out, NULL), 2);
	assert_contains(err_text, "bad.diff does not apply");
	assert_contains(err_text, "hunk 2 of fs/namei.c:");
	/* Nothing fetched or built: no kernel in the results directory. */
	assert_int_equal(access(tmp_path("ab/kernels"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(patch_that_applies_changes_the_copy_and_never_the_pristine_tree),
		cmocka_unit_test(patches_apply_in_the_order_given),
		cmocka_unit_test(patch_that_does_not_apply_names_file_and_hunk_and_leaves_no_tree),
		cmocka_unit_test(key_follows_the_patches_their_order_and_the_config),
		cmocka_unit_test(key_follows_a_local_trees_commits_and_edits),
		cmocka_unit_test(patched_tree_starts_from_a_finished_stock_build),
		cmocka_unit_test(local_tree_starts_from_its_earlier_build),
		cmocka_unit_test(check_tries_the_series_without_making_a_tree),
		cmocka_unit_test(permscope_ab_refuses_bad_usage_and_bad_patches_before_any_build),
	};

	return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
