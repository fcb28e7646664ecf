// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The series reader (src/series.c) and `permscope series`: the mboxes git
 * format-patch, b4 am and lore write, made here as each tool writes them,
 * split into their patches; the series that cannot be read without a
 * guess refused, each with what is wrong.
 */
#include "testutil.h"

#include <sys/stat.h>

#include "series.h"

#define GIT_ENVELOPE "From 1b2c3d4e5f60718293a4b5c6d7e8f90112233445 Mon Sep 17 00:00:00 2001\n"
#define B4_ENVELOPE "From git@z Thu Jan  1 00:00:00 1970\n"
#define LORE_ENVELOPE "From mboxrd@z Thu Jan  1 00:00:00 1970\n"

/* Message N of M after ENVELOPE: fs/fN.c's line changes, its Subject folded; BODY before the diff. */
static void add_patch(char *mbox, size_t size, const char *envelope, const char *prefix, int n,
		      int m, const char *body)
{
	size_t len = strlen(mbox);

	snprintf(mbox + len, size - len,
		 "%sFrom: A Tester <tester@example.org>\n"
		 "Subject: [%s %d/%d] fs/f%d: number\n the variable\n\n"
		 "%s---\n"
		 "diff --git a/fs/f%d.c b/fs/f%d.c\n--- a/fs/f%d.c\n+++ b/fs/f%d.c\n"
		 "@@ -1 +1 @@\n-int f%d;\n+int f%d = %d;\n-- \n2.39.5\n\n",
		 envelope, prefix, n, m, n, body ? body : "", n, n, n, n, n, n, n);
}

static void add_cover(char *mbox, size_t size, const char *envelope, int m)
{
	size_t len = strlen(mbox);

	snprintf(mbox + len, size - len,
		 "%sFrom: A Tester <tester@example.org>\nSubject: [PATCH 0/%d] five files\n\n"
		 "Five numbers.\n\n fs/f1.c | 2 +-\n 1 file changed\n\n", envelope, m);
}

static int parse(const char *mbox, struct series *s, char *err, size_t errlen)
{
	return series_parse_mbox(mbox, strlen(mbox), s, err, errlen);
}

static void b4_mbox_of_five_patches_is_five_patches_in_order(void **state)
{
	static char mbox[16384];
	struct series s;
	char err[512];

	(void)state;
	mbox[0] = 0;
	add_cover(mbox, sizeof(mbox), B4_ENVELOPE, 5);
	for (int n = 1; n <= 5; n++)
		add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH v2", n, 5, NULL);
	assert_int_equal(parse(mbox, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nmessages, 6);
	assert_int_equal(s.envelope, ENVELOPE_B4);
	assert_false(s.mixed);
	assert_int_equal(s.npatches, 5);
	for (int n = 1; n <= 5; n++) {
		char name[64], subject[64];

		snprintf(name, sizeof(name), "%04d-fs-f%d-number-the-variable.patch", n, n);
		snprintf(subject, sizeof(subject), "fs/f%d: number the variable", n);
		assert_string_equal(s.patches[n - 1].name, name);
		assert_string_equal(s.patches[n - 1].subject, subject);
		assert_int_equal(s.patches[n - 1].number, n);
		assert_int_equal(s.patches[n - 1].total, 5);
		/* each message alone, from its envelope to the next */
		assert_true(!strncmp(s.patches[n - 1].text, B4_ENVELOPE, strlen(B4_ENVELOPE)));
		assert_null(strstr(s.patches[n - 1].text + 1, "From git@z"));
	}
	/* the cover letter is said, not dropped */
	assert_int_equal(s.nskipped, 1);
	assert_string_equal(s.skipped[0].source, "message 1");
	assert_string_equal(s.skipped[0].subject, "[PATCH 0/5] five files");
	assert_string_equal(s.skipped[0].why, "the cover letter (0/5)");
	series_free(&s);
}

static void lore_mboxrd_is_unquoted_and_its_replies_skipped(void **state)
{
	static char mbox[16384];
	const char *reply = LORE_ENVELOPE "From: Reviewer <r@example.org>\n"
			    "Subject: Re: [PATCH 2/3] fs/f2: number the variable\n\n"
			    "> +int f2 = 2;\nLooks fine.\n\n";
	struct series s;
	char err[512];

	(void)state;
	mbox[0] = 0;
	add_patch(mbox, sizeof(mbox), LORE_ENVELOPE, "RFC PATCH", 1, 3, NULL);
	add_patch(mbox, sizeof(mbox), LORE_ENVELOPE, "RFC PATCH", 2, 3,
		  ">From the start, f2 had no value.\n>>From a quote.\n>not a From line\n");
	strcat(mbox, reply);
	add_patch(mbox, sizeof(mbox), LORE_ENVELOPE, "RFC PATCH", 3, 3, NULL);
	assert_int_equal(parse(mbox, &s, err, sizeof(err)), 0);
	assert_int_equal(s.envelope, ENVELOPE_MBOXRD);
	assert_int_equal(s.npatches, 3);
	assert_contains(s.patches[1].text, "\n\nFrom the start, f2 had no value.\n>From a quote.\n"
			">not a From line\n---\n");
	assert_int_equal(s.nskipped, 1);
	assert_string_equal(s.skipped[0].source, "message 3");
	assert_string_equal(s.skipped[0].why, "a reply, not a patch");
	assert_string_equal(s.patches[2].name, "0003-fs-f3-number-the-variable.patch");
	series_free(&s);
}

static void git_format_patch_mbox_splits_at_envelopes_only(void **state)
{
	static char mbox[16384];
	struct series s;
	char err[512];

	(void)state;
	mbox[0] = 0;
	/* "From" opening a line of the message is no envelope: it has no date */
	add_patch(mbox, sizeof(mbox), GIT_ENVELOPE, "PATCH", 1, 2,
		  "From now on f1 has a value.\nFrom 12:00:00 on, it is set.\n");
	add_patch(mbox, sizeof(mbox), GIT_ENVELOPE, "PATCH", 2, 2, NULL);
	assert_int_equal(parse(mbox, &s, err, sizeof(err)), 0);
	assert_int_equal(s.envelope, ENVELOPE_GIT);
	assert_int_equal(s.nmessages, 2);
	assert_int_equal(s.npatches, 2);
	assert_contains(s.patches[0].text, "From now on f1 has a value.\nFrom 12:00:00 on, it is set.\n");
	series_free(&s);
}

static void crlf_line_ends_lose_their_cr(void **state)
{
	const char *mbox = B4_ENVELOPE "Subject: [PATCH] one\r\n\r\nbody\r\n---\r\n"
			   "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n";
	struct series s;
	char err[512];

	(void)state;
	assert_int_equal(parse(mbox, &s, err, sizeof(err)), 0);
	assert_int_equal(s.npatches, 1);
	assert_string_equal(s.patches[0].subject, "one");
	assert_null(strchr(s.patches[0].text, '\r'));
	assert_contains(s.patches[0].text, "+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
	series_free(&s);
}

/* Each mbox below is refused, with ERROR in the reason. */
static void refused(const char *mbox, const char *error)
{
	struct series s;
	char err[512] = "";

	if (parse(mbox, &s, err, sizeof(err)) != -EINVAL)
		fail_msg("accepted, or not as bad input (err '%s'): %.200s", err, mbox);
	assert_contains(err, error);
}

static void numbers_that_do_not_make_the_series_are_refused(void **state)
{
	static char mbox[16384];

	(void)state;
	/* four patches of five: what `b4 am` of a series with a lost message gives */
	mbox[0] = 0;
	for (int n = 1; n <= 5; n++)
		if (n != 3)
			add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", n, 5, NULL);
	refused(mbox, "4 patches, but their subjects number 5 ([PATCH n/5]): 3 missing");
	/* a number twice: two versions in one mbox */
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 2, 5, NULL);
	refused(mbox, "two messages are patch 2/5: message 2 (\"[PATCH 2/5] fs/f2: number the "
		"variable\") and message 5");
	/* two counts */
	mbox[0] = 0;
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 1, 2, NULL);
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 2, 3, NULL);
	refused(mbox, "message 2 (\"[PATCH 2/3] fs/f2: number the variable\") is numbered 2/3, "
		"but message 1 (\"[PATCH 1/2] fs/f1: number the variable\") 1/2");
	/* a number past the count */
	mbox[0] = 0;
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 1, 2, NULL);
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 3, 2, NULL);
	refused(mbox, "is numbered 3/2: past the count");
	/* numbered and not */
	mbox[0] = 0;
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 1, 1, NULL);
	strcat(mbox, B4_ENVELOPE "Subject: [PATCH] more\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
	refused(mbox, "message 2 (\"[PATCH] more\") has no [PATCH n/m] number, but message 1");
	/* a numbered message without a diff */
	mbox[0] = 0;
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 1, 2, NULL);
	strcat(mbox, B4_ENVELOPE "Subject: [PATCH 2/2] words only\n\nNo diff.\n");
	refused(mbox, "message 2 (\"[PATCH 2/2] words only\"): no diff in it, yet it is numbered 2/2");
	/* nothing to apply, a NUL, nothing at all */
	refused(B4_ENVELOPE "Subject: hello\n\nJust words.\n", "no patch with a diff in it (1 message read)");
	refused("\n\n", "empty: no message in it");
	assert_int_equal(series_parse_mbox("From x\0y", 8, &(struct series){0}, mbox, sizeof(mbox)), -EINVAL);
	assert_contains(mbox, "a NUL byte at offset 6");
}

static void the_limits_are_named_when_passed(void **state)
{
	size_t size = (SERIES_MAX_PATCHES + 2) * 400;
	char *mbox = calloc(1, size);

	(void)state;
	assert_non_null(mbox);
	for (int n = 1; n <= SERIES_MAX_PATCHES + 1; n++)
		add_patch(mbox, size, B4_ENVELOPE, "PATCH", n, SERIES_MAX_PATCHES + 1, NULL);
	refused(mbox, "more than 1000 patches, the most a series may hold here");
	mbox[0] = 0;
	for (int n = 0; n <= SERIES_MAX_MESSAGES; n++)
		strcat(mbox, B4_ENVELOPE "Subject: Re: [PATCH 1/1] x\n\nok\n");
	refused(mbox, "more than 2000 messages, the most a series is read with");
	/* a Subject folded over thousands of lines is refused, not grown line by line */
	strcpy(mbox, B4_ENVELOPE "Subject: [PATCH] x\n");
	for (int n = 0; n < 3000; n++)
		strcat(mbox, " ab\n");
	strcat(mbox, "\n--- a/x\n+++ b/x\n");
	refused(mbox, "message 1: a Subject longer than 4096 bytes");
	free(mbox);
}

static void names_are_format_patch_names_of_safe_characters(void **state)
{
	char slug[SERIES_SLUG_MAX + 1];

	(void)state;
	series_slug("fs/open: faccessat never overrides creds (permscope control: unsafe)",
		    slug, sizeof(slug));
	/* the name git format-patch gave tests/vm/patches/series-unsafe/0003-... */
	assert_string_equal(slug, "fs-open-faccessat-never-overrides-creds-permscope-co");
	series_slug("../../etc/passwd\n$(reboot) `x` ..", slug, sizeof(slug));
	assert_string_equal(slug, "etc-passwd-reboot-x");
	series_slug("", slug, sizeof(slug));
	assert_string_equal(slug, "");
}

/* ---- permscope series, on files ------------------------------------------------ */

static const char *five_patch_directory(const char *dir)
{
	static char mbox[4096];
	char path[256];

	mkdir(tmp_path(dir), 0755);
	for (int n = 1; n <= 5; n++) {
		mbox[0] = 0;
		add_patch(mbox, sizeof(mbox), GIT_ENVELOPE, "PATCH", n, 5, NULL);
		snprintf(path, sizeof(path), "%s/%04d-fs-f%d-number-the-variable.patch", dir, n, n);
		write_tmp_file(path, mbox);
	}
	return tmp_path(dir);
}

static void a_name_with_a_newline_is_refused_by_name(void **state)
{
	const char *dir = five_patch_directory("newline");
	char want[PATH_MAX + 128];

	(void)state;
	write_tmp_file("newline/0006-second\nline.patch", "--- a/x\n+++ b/x\n");
	assert_int_equal(permscope("series", dir, NULL), 2);
	snprintf(want, sizeof(want), "Error: series %s: the entry \"0006-second\\nline.patch\" has a "
		 "control character in its name: a name is data, so it is neither taken nor left out "
		 "(rename it)\n", dir);
	assert_string_equal(err_text, want);
	assert_string_equal(out_text, "");
	/* a tab or an escape, wherever in the name, whatever its suffix */
	unlink(tmp_path("newline/0006-second\nline.patch"));
	write_tmp_file("newline/notes\x1b[2J", "");
	assert_int_equal(permscope("series", dir, NULL), 2);
	assert_contains(err_text, "the entry \"notes\\x1b[2J\" has a control character");
	unlink(tmp_path("newline/notes\x1b[2J"));
	assert_int_equal(permscope("series", dir, NULL), 0);
}

static void a_directory_names_every_entry_it_does_not_take(void **state)
{
	const char *dir = five_patch_directory("entries");

	(void)state;
	write_tmp_file("entries/README", "how to apply\n");
	write_tmp_file("entries/0000-cover-letter.patch", "Subject: [PATCH 0/5] five\n\nfive\n");
	assert_int_equal(permscope("series", dir, NULL), 0);
	assert_contains(out_text, ": 5 patches from a directory of 6 messages, 2 skipped\n");
	assert_contains(out_text, "   3  0003-fs-f3-number-the-variable.patch  fs/f3: number the variable\n");
	assert_contains(out_text, "skipped 0000-cover-letter.patch (\"[PATCH 0/5] five\"): the cover "
			"letter (0/5)\n");
	assert_contains(out_text, "skipped README: neither *.patch nor *.diff: not read\n");
	/* a *.patch that is no regular file is refused */
	assert_int_equal(mkdir(tmp_path("entries/0009-dir.patch"), 0755), 0);
	assert_int_equal(permscope("series", dir, NULL), 2);
	assert_contains(err_text, ": 0009-dir.patch: a directory, not a regular file");
	rmdir(tmp_path("entries/0009-dir.patch"));
	/* names that sort out of the numbers' order */
	rename(tmp_path("entries/0001-fs-f1-number-the-variable.patch"), tmp_path("entries/0009-f1.patch"));
	assert_int_equal(permscope("series", dir, NULL), 2);
	assert_contains(err_text, ": 0002-fs-f2-number-the-variable.patch (\"[PATCH 2/5] fs/f2: number the "
			"variable\") is patch 2/5, but its name sorts before 0009-f1.patch (\"[PATCH 1/5] "
			"fs/f1: number the variable\"), patch 1: rename the files in the series' order\n");
}

static void output_directory_holds_the_patches_and_their_lists(void **state)
{
	static char mbox[16384];
	char *text;

	(void)state;
	mbox[0] = 0;
	add_cover(mbox, sizeof(mbox), B4_ENVELOPE, 2);
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 2, 2, NULL);
	add_patch(mbox, sizeof(mbox), B4_ENVELOPE, "PATCH", 1, 2, NULL);
	write_tmp_file("two.mbox", mbox);
	assert_int_equal(permscope("series", tmp_path("two.mbox"), "-o", tmp_path("two"), NULL), 0);
	assert_contains(out_text, "two.mbox: 2 patches from an mbox (b4 am) of 3 messages, 1 skipped\n");
	text = slurp(tmp_path("two/series"), NULL);
	assert_string_equal(text, "0001-fs-f1-number-the-variable.patch\n"
			    "0002-fs-f2-number-the-variable.patch\n");
	free(text);
	text = slurp(tmp_path("two/subjects"), NULL);
	assert_string_equal(text, "fs/f1: number the variable\nfs/f2: number the variable\n");
	free(text);
	text = slurp(tmp_path("two/0001-fs-f1-number-the-variable.patch"), NULL);
	assert_contains(text, "Subject: [PATCH 1/2] fs/f1: number\n the variable\n");
	free(text);
	/* DIR must be empty: patches of two series never mix */
	assert_int_equal(permscope("series", tmp_path("two.mbox"), "-o", tmp_path("two"), NULL), 2);
	assert_contains(err_text, "two: not empty");
	/* JSON: each patch with where it came from */
	assert_int_equal(permscope("series", "-j", tmp_path("two.mbox"), NULL), 0);
	assert_contains(out_text, "\"envelope\": \"b4 am\"");
	assert_contains(out_text, "\"source\": \"message 3\",\n      \"numbered\": \"1/2\"");
	/* bad usage */
	assert_int_equal(permscope("series", NULL), 2);
	assert_contains(err_text, "SERIES is needed");
	assert_int_equal(permscope("series", tmp_path("missing"), NULL), 2);
	assert_contains(err_text, "missing: No such file or directory\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(b4_mbox_of_five_patches_is_five_patches_in_order),
		cmocka_unit_test(lore_mboxrd_is_unquoted_and_its_replies_skipped),
		cmocka_unit_test(git_format_patch_mbox_splits_at_envelopes_only),
		cmocka_unit_test(crlf_line_ends_lose_their_cr),
		cmocka_unit_test(numbers_that_do_not_make_the_series_are_refused),
		cmocka_unit_test(the_limits_are_named_when_passed),
		cmocka_unit_test(names_are_format_patch_names_of_safe_characters),
		cmocka_unit_test(a_name_with_a_newline_is_refused_by_name),
		cmocka_unit_test(a_directory_names_every_entry_it_does_not_take),
		cmocka_unit_test(output_directory_holds_the_patches_and_their_lists),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
