// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traceable builds (docs/version.md): `permscope --version` names what
 * `git describe` says of the tree it was built from, tools/gen-version maps
 * every state of a tree (tag, commits past it, no tag, dirty, no git) to its
 * version by the documented rule and rewrites its header only on a change,
 * and --version --json and `COMMAND --version` say the same.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "testutil.h"

#include "version.h"

#define GIT "/usr/bin/git"

/* The source tree: tests/unit/data is three levels down. */
static const char *src_dir(void)
{
	static char path[PATH_MAX];

	if (!realpath(testdata_dir(), path))
		fail_msg("realpath %s: %s", testdata_dir(), strerror(errno));
	for (int i = 0; i < 3; i++)
		*strrchr(path, '/') = 0;
	return path;
}

/* git -C DIR ARGS...; its stdout without the newline in out_text, its exit status. */
static int git(const char *dir, ...)
{
	char *argv[16] = { GIT, "-C", (char *)dir };
	int n = 3, status;
	va_list ap;

	va_start(ap, dir);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	status = run_capture(argv);
	if (*out_text && out_text[strlen(out_text) - 1] == '\n')
		out_text[strlen(out_text) - 1] = 0;
	return status;
}

static void skip_without_git(void)
{
	if (access(GIT, X_OK)) {
		print_message("no %s (Debian package git): skipped\n", GIT);
		skip();
	}
}

/* A line of TEXT that starts with PREFIX, without its newline; malloc'ed. */
static char *line_after(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, prefix, strlen(prefix)))
			return strndup(l + strlen(prefix), strcspn(l + strlen(prefix), "\n"));
	print_error("no line starting \"%s\" in:\n", prefix);
	testutil_print_text(text);
	fail();
	return NULL;
}

/* The rule of docs/version.md, from what git says of DIR (which is a git tree). */
static void expected_version(const char *dir, const char *base, char *buf, size_t size)
{
	char describe[128];

	assert_int_equal(git(dir, "describe", "--tags", "--always", "--dirty", NULL), 0);
	snprintf(describe, sizeof(describe), "%s", out_text);
	if (git(dir, "describe", "--tags", NULL) == 0)
		snprintf(buf, size, "%s", describe + (describe[0] == 'v'));
	else
		snprintf(buf, size, "%s+g%s", base, describe);
}

/* The Makefile's VERSION: the base of a version without a tag. */
static void makefile_version(char *buf, size_t size)
{
	char *path, *mk, *v;

	assert_true(asprintf(&path, "%s/Makefile", src_dir()) > 0);
	mk = slurp(path, NULL);
	assert_non_null(mk);
	v = strstr(mk, "\nVERSION   := ");
	assert_non_null(v);
	v += strlen("\nVERSION   := ");
	snprintf(buf, size, "%.*s", (int)strcspn(v, "\n"), v);
	free(mk);
	free(path);
}

/*
 * Built in git, the binary's version is what git describe says of the tree
 * now (make unit-test builds it first) and its revision is HEAD.
 */
static void version_is_git_describe_of_the_tree(void **state)
{
	char want[192], base[64], *got;

	(void)state;
	skip_without_git();
	if (git(src_dir(), "rev-parse", "--show-toplevel", NULL)) {
		print_message("%s is no git tree (a tarball build): skipped\n", src_dir());
		skip();
	}
	makefile_version(base, sizeof(base));
	expected_version(src_dir(), base, want, sizeof(want));
	assert_int_equal(permscope("--version", NULL), 0);
	got = line_after(out_text, "permscope ");
	assert_string_equal(got, want);
	free(got);
	assert_string_equal(permscope_version(), want);
	assert_int_equal(git(src_dir(), "rev-parse", "HEAD", NULL), 0);
	strcpy(want, out_text);
	assert_int_equal(permscope("--version", NULL), 0);
	got = line_after(out_text, "revision ");
	assert_string_equal(got, want);
	free(got);
	assert_string_equal(permscope_revision(), want);
}

/* libbpf's own version, the one loaded at run time, and the features, as bpftool prints. */
static void version_names_libbpf_and_the_features(void **state)
{
	char want[64], *got;
	json_error_t e;
	json_t *root, *f;
	size_t i;

	(void)state;
	assert_int_equal(permscope("--version", NULL), 0);
	snprintf(want, sizeof(want), "using libbpf %s\n", libbpf_version_string());
	assert_contains(out_text, want);
	got = line_after(out_text, "features: ");
	assert_contains(got, "skeletons");
	assert_contains(got, "libmicrohttpd 0.");
	assert_contains(got, "libarchive 3.");
	free(got);

	/* every command's --version (argp's) says the same */
	got = strdup(out_text);
	assert_int_equal(permscope("record", "--version", NULL), 0);
	assert_string_equal(out_text, got);
	assert_int_equal(permscope("-V", NULL), 0);
	assert_string_equal(out_text, got);
	free(got);

	assert_int_equal(permscope("--version", "--json", NULL), 0);
	root = json_loads(out_text, 0, &e);
	if (!root)
		fail_msg("not JSON: %s\n%s", e.text, out_text);
	assert_string_equal(json_string_value(json_object_get(root, "version")),
			    permscope_version());
	assert_string_equal(json_string_value(json_object_get(root, "libbpf")),
			    libbpf_version_string());
	assert_true(json_array_size(json_object_get(root, "features")) >= 3);
	json_array_foreach(json_object_get(root, "features"), i, f) {
		assert_true(json_is_string(json_object_get(f, "name")));
		assert_true(json_is_string(json_object_get(f, "what")));
	}
	json_decref(root);

	assert_int_equal(permscope("--version", "--yaml", NULL), 2);
	assert_string_equal(err_text, "Error: --version takes --json alone, not '--yaml'\n");
}

/* ---- tools/gen-version on trees of its own -------------------------------- */

/* DIR/tools/gen-version, a copy of the real one: DIR is the tree it names. */
static void copy_gen_version(const char *dir)
{
	char *from, *to, *text;
	size_t len;

	assert_true(asprintf(&from, "%s/tools/gen-version", src_dir()) > 0);
	assert_true(asprintf(&to, "%s/tools", dir) > 0);
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	assert_true(mkdir(to, 0755) == 0 || errno == EEXIST);
	free(to);
	assert_true(asprintf(&to, "%s/tools/gen-version", dir) > 0);
	text = slurp(from, &len);
	assert_non_null(text);
	write_file(to, text, len);
	assert_int_equal(chmod(to, 0755), 0);
	free(text);
	free(from);
	free(to);
}

/* Run DIR's gen-version with VERSION into OUT; OUT's text. */
static char *gen_version(const char *dir, const char *version, const char *out)
{
	char *script, *text;

	assert_true(asprintf(&script, "%s/tools/gen-version", dir) > 0);
	if (run_capture((char *[]){ script, (char *)version, (char *)out, NULL })) {
		print_error("%s %s %s: %s", script, version, out, err_text);
		fail();
	}
	free(script);
	text = slurp(out, NULL);
	assert_non_null(text);
	return text;
}

static void assert_header(const char *text, const char *version, const char *revision,
			  const char *describe)
{
	char line[256];

	snprintf(line, sizeof(line), "#define PERMSCOPE_BUILD_VERSION \"%s\"\n", version);
	assert_contains(text, line);
	snprintf(line, sizeof(line), "#define PERMSCOPE_BUILD_REVISION \"%s\"\n", revision);
	assert_contains(text, line);
	snprintf(line, sizeof(line), "#define PERMSCOPE_BUILD_DESCRIBE \"%s\"\n", describe);
	assert_contains(text, line);
}

/* A tree with no git (a tarball): the Makefile's version, no revision. */
static void a_tarball_build_takes_the_makefiles_version(void **state)
{
	const char *dir = tmp_path("tarball"), *out = tmp_path("tarball.h");
	char *text;

	(void)state;
	copy_gen_version(dir);
	text = gen_version(dir, "9.8.7", out);
	assert_header(text, "9.8.7", "", "");
	free(text);
}

/*
 * A git tree through its states: no tag (VERSION+gHASH), dirty, at a tag
 * (the tag less its v), past it (git describe's -N-gHASH), each revision the
 * full commit id.  A tarball unpacked inside that tree still has no git of
 * its own.
 */
static void each_state_of_a_git_tree_has_its_version(void **state)
{
	const char *dir = tmp_path("repo"), *out = tmp_path("repo.h");
	char want[128], describe[130], head[64], shorthash[16], *text, *inner;

	(void)state;
	skip_without_git();
	copy_gen_version(dir);
	write_file(tmp_path("repo/file"), "one\n", 4);
	assert_int_equal(git(dir, "init", "-q", NULL), 0);
	assert_int_equal(git(dir, "add", ".", NULL), 0);
	assert_int_equal(git(dir, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit",
			     "-qm", "one", NULL), 0);
	assert_int_equal(git(dir, "rev-parse", "HEAD", NULL), 0);
	strcpy(head, out_text);
	assert_int_equal(git(dir, "rev-parse", "--short", "HEAD", NULL), 0);
	strcpy(shorthash, out_text);

	text = gen_version(dir, "0.1.0", out);
	snprintf(want, sizeof(want), "0.1.0+g%s", shorthash);
	assert_header(text, want, head, shorthash);
	free(text);

	write_file(tmp_path("repo/file"), "two\n", 4);
	text = gen_version(dir, "0.1.0", out);
	snprintf(want, sizeof(want), "0.1.0+g%s-dirty", shorthash);
	assert_header(text, want, head, want + strlen("0.1.0+g"));
	free(text);
	assert_int_equal(git(dir, "checkout", "-q", "file", NULL), 0);

	assert_int_equal(git(dir, "tag", "v1.2.3", NULL), 0);
	text = gen_version(dir, "0.1.0", out);
	assert_header(text, "1.2.3", head, "v1.2.3");
	free(text);

	write_file(tmp_path("repo/file"), "three\n", 6);
	assert_int_equal(git(dir, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit",
			     "-qam", "three", NULL), 0);
	assert_int_equal(git(dir, "rev-parse", "HEAD", NULL), 0);
	strcpy(head, out_text);
	expected_version(dir, "0.1.0", want, sizeof(want));
	assert_true(!strncmp(want, "1.2.3-1-g", 9));
	snprintf(describe, sizeof(describe), "v%s", want);
	text = gen_version(dir, "0.1.0", out);
	assert_header(text, want, head, describe);
	free(text);

	/* a tarball unpacked inside the repository: not its commits */
	inner = strdup(tmp_path("repo/unpacked"));
	copy_gen_version(inner);
	text = gen_version(inner, "0.3.0", out);
	assert_header(text, "0.3.0", "", "");
	free(text);
	free(inner);
}

/*
 * The header is rewritten only when its text changes: make then recompiles
 * nothing at the same commit (its mtime stays), and version.c after one.
 */
static void the_header_is_rewritten_only_when_it_changes(void **state)
{
	const char *dir = tmp_path("stable"), *out = tmp_path("stable.h");
	struct timespec old[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
	struct stat st;

	(void)state;
	copy_gen_version(dir);
	free(gen_version(dir, "1.0.0", out));
	assert_int_equal(utimensat(AT_FDCWD, out, old, 0), 0);
	free(gen_version(dir, "1.0.0", out));
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1000000000);
	free(gen_version(dir, "1.0.1", out));
	assert_int_equal(stat(out, &st), 0);
	assert_true(st.st_mtim.tv_sec > 1000000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_is_git_describe_of_the_tree),
		cmocka_unit_test(version_names_libbpf_and_the_features),
		cmocka_unit_test(a_tarball_build_takes_the_makefiles_version),
		cmocka_unit_test(each_state_of_a_git_tree_has_its_version),
		cmocka_unit_test(the_header_is_rewritten_only_when_it_changes),
	};

	return cmocka_run_group_tests_name("version", tests, tmpdir_setup, tmpdir_teardown);
}
