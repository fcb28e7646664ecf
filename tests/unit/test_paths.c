// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every path of the tree that a doc, a comment or a script names exists:
 * each `src/...`, `bpf/...` and `tests/...` in the files git tracks (the
 * docs, the sources, the Makefile, tools/ and tests/vm/), so that a file
 * moved or renamed leaves no reader sent to a place that is not there.
 *
 * What counts as a path: the longest run of [A-Za-z0-9_./-] starting at
 * src/, bpf/ or tests/ where no such character (nor '<') comes before it,
 * its trailing '.' and '-' dropped.  One followed by '*', '<', '{', '$' or '%',
 * or ending in "...",
 * is a pattern's stem (tests/unit/test_*.c, src/probe/family_<name>.c):
 * some file must begin with it.  One with a run of capitals in it is a
 * placeholder (docs/vm.md's tests/vm/patches/NAME): not checked.  A name
 * without ".c" whose ".c" exists is a test program's (tests/unit/test_hist).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <ctype.h>
#include <sys/stat.h>

#include "testutil.h"

#define MAX_FILES 4096

static char *tracked[MAX_FILES];
static size_t ntracked;

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == '-';
}

static bool exists(const char *top, const char *path)
{
	char full[PATH_MAX + 1024];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", top, path);
	return !stat(full, &st);
}

static bool some_file_begins(const char *stem)
{
	for (size_t i = 0; i < ntracked; i++)
		if (!strncmp(tracked[i], stem, strlen(stem)))
			return true;
	return false;
}

static bool placeholder(const char *p)
{
	for (; *p; p++)
		if (isupper((unsigned char)p[0]) && isupper((unsigned char)p[1]))
			return true;
	return false;
}

/* The paths FILE names that are not there, each printed; how many. */
static int check_file(const char *top, const char *file)
{
	char full[PATH_MAX + 1024];
	size_t len;
	char *text;
	int missing = 0;

	snprintf(full, sizeof(full), "%s/%s", top, file);
	if (!(text = slurp(full, &len)))
		return 0;
	for (size_t i = 0; i < len; i++) {
		static const char *const roots[] = { "src/", "bpf/", "tests/" };
		char path[512], plain[520];
		size_t n = 0, line = 1;
		bool stem;

		if (i && (path_char(text[i - 1]) || text[i - 1] == '<'))
			continue;
		for (size_t r = 0; r < 3; r++)
			if (!strncmp(text + i, roots[r], strlen(roots[r])))
				n = 1;
		if (!n)
			continue;
		for (n = 0; i + n < len && path_char(text[i + n]) && n + 1 < sizeof(path); n++)
			path[n] = text[i + n];
		stem = i + n < len && strchr("*<{$%", text[i + n]);
		/* "tests/vm/patches/series-unsafe/0003-...": a stem too */
		stem |= n > 3 && !strncmp(path + n - 3, "...", 3);
		while (n && (path[n - 1] == '.' || path[n - 1] == '-'))
			n--;
		path[n] = 0;
		i += n;
		if (placeholder(path) || !strchr(path, '/')[1])
			continue;
		snprintf(plain, sizeof(plain), "%s.c", path);
		if (stem ? some_file_begins(path) : exists(top, path) || exists(top, plain))
			continue;
		for (size_t k = 0; k < i - n; k++)
			line += text[k] == '\n';
		print_message("%s:%zu names %s%s, which is not there\n", file, line, path,
			      stem ? " (as the start of a pattern)" : "");
		missing++;
	}
	free(text);
	return missing;
}

static bool checked(const char *f)
{
	static const char *const skip[] = { "tests/unit/data/", "tests/unit/golden/",
					     "tests/fuzz/corpus/", "tests/corpus/", "vmlinux/" };
	size_t n = strlen(f);

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(f, skip[i], strlen(skip[i])))
			return false;
	return (n > 3 && (!strcmp(f + n - 3, ".md") || !strcmp(f + n - 2, ".8"))) ||
	       (n > 2 && (!strcmp(f + n - 2, ".c") || !strcmp(f + n - 2, ".h"))) ||
	       !strcmp(f, "Makefile") || !strncmp(f, "tools/", 6) || !strncmp(f, "tests/vm/", 9) ||
	       !strcmp(f, "tests/check-layout") || !strcmp(f, "tests/run-all");
}

static void every_path_named_exists(void **state)
{
	const char *top = source_dir(), *git = find_program("git");
	char dotgit[PATH_MAX + 8];
	char *argv[] = { (char *)git, "-C", (char *)top, "ls-files", NULL };
	int missing = 0;

	(void)state;
	snprintf(dotgit, sizeof(dotgit), "%s/.git", top);
	skip_if(!git ? "no git to list the tracked files" :
		access(dotgit, F_OK) ? "not a git checkout (a tarball): no list of its files" : NULL);
	assert_int_equal(run_capture(argv), 0);
	for (char *line = strtok(out_text, "\n"); line && ntracked < MAX_FILES;
	     line = strtok(NULL, "\n"))
		tracked[ntracked++] = strdup(line);
	assert_true(ntracked > 100);
	for (size_t i = 0; i < ntracked; i++)
		if (checked(tracked[i]))
			missing += check_file(top, tracked[i]);
	print_message("%zu files listed, %d paths named that are not there\n", ntracked, missing);
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_path_named_exists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
