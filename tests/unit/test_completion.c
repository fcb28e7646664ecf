// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bash completion (contrib/bash-completion/permscope), driven as bash
 * drives it: a bash with bash-completion loaded sources the script, gets
 * COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as readline would set
 * them for a command line, calls _permscope and prints COMPREPLY, which is
 * compared here with what the binary and the library say: the commands of
 * `permscope --help`, each command's options from its --help, the families
 * and modes of the schema, the tests of --test (stats.h), each command's
 * formats from its --help, the benchmarks of the catalogue, and files from
 * a scratch directory.
 * Skipped, saying so, when bash or bash-completion is not installed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#include "bench_catalogue.h"
#include "schema.h"
#include "stats.h"

#define MAX_COMMANDS 16
#define MAX_OPTIONS 96

static const char bash_completion[] = "/usr/share/bash-completion/bash_completion";

/* What bash runs: the completion as bash-completion calls it, the replies sorted. */
static const char driver[] =
	"source \"$1\" || exit 90\n"
	"source \"$2\" || exit 91\n"
	"cd \"$3\" || exit 92\n"
	"shift 3\n"
	"COMP_WORDS=(\"$@\") COMP_CWORD=$(($# - 1))\n"
	"COMP_LINE=$PERMSCOPE_COMP_LINE COMP_POINT=${#PERMSCOPE_COMP_LINE}\n"
	"COMP_TYPE=9 COMP_KEY=9\n"
	"_permscope \"${COMP_WORDS[0]}\" \"${COMP_WORDS[COMP_CWORD]}\" "
	"\"${COMP_WORDS[COMP_CWORD-1]}\" 2>/dev/null\n"
	"((${#COMPREPLY[@]})) && printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort -u\n"
	"exit 0\n";

static char bash[PATH_MAX], script[PATH_MAX + 64];

static int setup(void **state)
{
	const char *found = find_program("bash");

	snprintf(script, sizeof(script), "%s/contrib/bash-completion/permscope", source_dir());
	if (found)
		snprintf(bash, sizeof(bash), "%s", found);
	return tmpdir_setup(state);
}

static void skip_without_bash_completion(void)
{
	if (!bash[0]) {
		print_message("bash is not installed: completion not tested\n");
		skip();
	}
	if (access(bash_completion, R_OK)) {
		print_message("%s: %s (apt-get install bash-completion): completion not tested\n",
			      bash_completion, strerror(errno));
		skip();
	}
}

/*
 * The replies to completing at the end of `permscope LINE` in directory
 * DIR, one a line, sorted (a static buffer).  LINE is cut into words as
 * readline cuts it: at blanks, and around '=' (in COMP_WORDBREAKS), so
 * "--families=lo" is "--families", "=", "lo"; a LINE ending in a blank
 * completes an empty word.
 */
static const char *complete_in(const char *dir, const char *line)
{
	static char *result;
	char full[1024], words[1024], *argv[64];
	int n = 0;

	snprintf(full, sizeof(full), "%s %s", permscope_bin(), line);
	argv[n++] = bash;
	argv[n++] = "--norc";
	argv[n++] = "--noprofile";
	argv[n++] = "-c";
	argv[n++] = (char *)driver;
	argv[n++] = "driver";
	argv[n++] = (char *)bash_completion;
	argv[n++] = script;
	argv[n++] = (char *)dir;
	snprintf(words, sizeof(words), "%s", full);
	for (char *p = words, *start = words;; p++) {
		char c = *p;

		assert_true(n < 60);
		if (c && c != ' ' && c != '=')
			continue;
		*p = 0;
		if (*start || !c) /* the last word, even empty, is the one completed */
			argv[n++] = start;
		if (!c)
			break;
		if (c == '=')
			argv[n++] = "=";
		start = p + 1;
	}
	argv[n] = NULL;
	assert_int_equal(setenv("PERMSCOPE_COMP_LINE", full, 1), 0);
	if (run_capture(argv) != 0)
		fail_msg("the completion driver failed for '%s':\n%s", line, err_text);
	free(result);
	result = strdup(out_text);
	return result;
}

static const char *complete(const char *line)
{
	return complete_in(tmpdir, line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* WORDS (separated by SEP) sorted as LC_ALL=C sort -u prints them. */
static char *sorted(const char *list, const char *sep)
{
	char *copy = strdup(list), *save = NULL, *w[128], *out;
	size_t n = 0, len = 1;

	for (char *t = strtok_r(copy, sep, &save); t; t = strtok_r(NULL, sep, &save)) {
		assert_true(n < 128);
		w[n++] = t;
		len += strlen(t) + 1;
	}
	qsort(w, n, sizeof(w[0]), cmp_str);
	out = calloc(1, len);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(w[i], w[i - 1]))
			strcat(strcat(out, w[i]), "\n");
	free(copy);
	return out;
}

#define assert_completes(line, words) do { \
	char *want_ = sorted((words), " "); \
	const char *got_ = complete(line); \
	if (strcmp(got_, want_)) \
		fail_msg("'permscope %s<TAB>' offered:\n%s\ninstead of:\n%s", (line), got_, want_); \
	free(want_); \
} while (0)

/* "lookup,access,exec" (FAMILY_NAMES, MODE_NAMES) as words: "lookup access exec". */
static const char *spaced(const char *list)
{
	static char out[256];

	snprintf(out, sizeof(out), "%s", list);
	for (char *p = out; (p = strchr(p, ',')); p++)
		*p = ' ';
	return out;
}

/* ---- the tests ------------------------------------------------------------ */

static void the_first_word_is_a_command_of_permscope_help(void **state)
{
	char cmds[MAX_COMMANDS][16], all[MAX_COMMANDS * 17] = "";
	int n;

	(void)state;
	skip_without_bash_completion();
	n = permscope_commands(cmds, MAX_COMMANDS);
	for (int i = 0; i < n; i++)
		strcat(strcat(all, cmds[i]), " ");
	assert_completes("", all);
	assert_completes("re", "record report");
	assert_completes("-", "--help --version");
	assert_completes("frobnicate -", "");
}

static void each_command_offers_exactly_the_options_of_its_help(void **state)
{
	char cmds[MAX_COMMANDS][16], line[320];
	int n;

	(void)state;
	skip_without_bash_completion();
	n = permscope_commands(cmds, MAX_COMMANDS);
	for (int i = 0; i < n; i++) {
		struct help_option opts[MAX_OPTIONS];
		char all[MAX_OPTIONS * 50] = "", longs[MAX_OPTIONS * 50] = "";
		int k;

		assert_int_equal(permscope(cmds[i], "--help", NULL), 0);
		k = help_options(out_text, opts, MAX_OPTIONS);
		for (int j = 0; j < k; j++) {
			strcat(strcat(all, opts[j].name), " ");
			if (opts[j].name[1] == '-')
				strcat(strcat(longs, opts[j].name), " ");
		}
		snprintf(line, sizeof(line), "%s -", cmds[i]);
		assert_completes(line, all);
		snprintf(line, sizeof(line), "%s --", cmds[i]);
		assert_completes(line, longs);
	}
	assert_completes("record --f", "--families --format");
	assert_completes("gate --print", "--print-default-rules");
}

static void families_complete_one_name_of_a_comma_list_at_a_time(void **state)
{
	(void)state;
	skip_without_bash_completion();
	assert_completes("record --families ", spaced(FAMILY_NAMES));
	assert_completes("daemon --families a", "access");
	assert_completes("record --families=", spaced(FAMILY_NAMES));
	assert_completes("verify --families lookup,", "lookup,access lookup,exec");
	assert_completes("check --families=exec,lookup,", "exec,lookup,access");
	assert_completes("report --families lookup,access,exec,", "");
}

static void modes_are_the_schemas(void **state)
{
	(void)state;
	skip_without_bash_completion();
	assert_completes("record --mode ", spaced(MODE_NAMES));
	assert_completes("check --mode=k", "kprobe");
	assert_completes("daemon --mode t", "tracepoint");
}

/* compare and gate --test: the tests stats.c knows by name. */
static void tests_are_the_statistics(void **state)
{
	(void)state;
	skip_without_bash_completion();
	assert_completes("compare --test ", spaced(STATS_TEST_NAMES));
	assert_completes("gate --test=m", "mann-whitney");
	assert_completes("gate -b b.json --test w", "welch");
}

/* "Print FORMAT: text (default), json or csv" in a --help: "text json csv". */
static char *help_formats(const char *help)
{
	const char *p = strstr(help, "--format=FORMAT"), *end;
	char *list, *out = calloc(1, 128);

	assert_non_null(p);
	p = strstr(p, "Print FORMAT: ");
	assert_non_null(p);
	p += strlen("Print FORMAT: ");
	/* argp folds a long list onto lines indented to the text's column */
	for (end = strchr(p, '\n'); end && !strncmp(end, "\n                             ", 30) &&
	     end[30] != ' ' && end[30] != '-'; end = strchr(end + 1, '\n'))
		;
	list = strndup(p, end - p);
	for (char *nl; (nl = strchr(list, '\n'));)
		*nl = ' ';
	for (char *save = NULL, *t = strtok_r(list, " ,", &save); t; t = strtok_r(NULL, " ,", &save))
		if (strcmp(t, "or") && strcmp(t, "(default)"))
			strcat(strcat(out, t), " ");
	free(list);
	return out;
}

static void each_command_offers_the_formats_its_help_names(void **state)
{
	char cmds[MAX_COMMANDS][16], line[320];
	int n, with_format = 0;

	(void)state;
	skip_without_bash_completion();
	n = permscope_commands(cmds, MAX_COMMANDS);
	for (int i = 0; i < n; i++) {
		char *formats;

		assert_int_equal(permscope(cmds[i], "--help", NULL), 0);
		if (!strstr(out_text, "--format=FORMAT"))
			continue;
		with_format++;
		formats = help_formats(out_text);
		snprintf(line, sizeof(line), "%s --format ", cmds[i]);
		assert_completes(line, formats);
		snprintf(line, sizeof(line), "%s --format=", cmds[i]);
		assert_completes(line, formats);
		free(formats);
	}
	assert_true(with_format >= 3);
	assert_completes("report --format c", "csv");
	assert_completes("compare --format h", "html");
}

static void bench_offers_the_catalogues_benchmarks(void **state)
{
	char all[512] = "all";

	(void)state;
	skip_without_bash_completion();
	for (int i = 0; i < BENCH_COUNT; i++)
		strcat(strcat(all, " "), bench_defs[i].name);
	assert_completes("bench ", all);
	assert_completes("bench access1 ", all);
	assert_completes("bench --slow s", "stat-path");
	assert_completes("bench -d ", ""); /* a number */
}

static void files_profiles_and_directories_where_they_belong(void **state)
{
	(void)state;
	skip_without_bash_completion();
	write_tmp_file("base.json", "{}");
	write_tmp_file("notes.txt", "");
	write_tmp_file("ci.rules", "lookup.violations == 0\n");
	assert_int_equal(mkdir(tmp_path("state"), 0750), 0);

	/* a profile, or a daemon's state directory */
	assert_completes("report ", "base.json state");
	assert_completes("compare base.json ", "base.json state");
	assert_completes("merge -o m.json ", "base.json state");
	assert_completes("gate --base ", "base.json state");
	assert_completes("gate --new=", "base.json state");
	assert_completes("gate -n b", "base.json");
	/* any file */
	assert_completes("gate --rules ", "base.json ci.rules notes.txt state");
	assert_completes("gate -r c", "ci.rules");
	assert_completes("record -o ", "base.json ci.rules notes.txt state");
	assert_completes("check --btf n", "notes.txt");
	assert_completes("daemon --log ", "base.json ci.rules notes.txt state");
	/* a directory */
	assert_completes("daemon --state-dir ", "state");
	assert_completes("series -o ", "state");
	/* a series: an mbox or a directory of patches */
	assert_completes("series ", "base.json ci.rules notes.txt state");
	assert_completes("record --cgroup ", "state");
	/* numbers and addresses: nothing to offer */
	assert_completes("record -d ", "");
	assert_completes("daemon --listen ", "");
	assert_completes("daemon --interval ", "");
	assert_completes("gate --accept-loss ", "");
}

static void after_a_double_dash_record_completes_the_command_it_runs(void **state)
{
	const char *got;

	(void)state;
	skip_without_bash_completion();
	got = complete("record -d 5 -- bas");
	assert_contains(got, "bash\n");
	assert_not_contains(got, "--");
	got = complete("verify -- ");
	assert_not_contains(got, "--families");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_word_is_a_command_of_permscope_help),
		cmocka_unit_test(each_command_offers_exactly_the_options_of_its_help),
		cmocka_unit_test(families_complete_one_name_of_a_comma_list_at_a_time),
		cmocka_unit_test(modes_are_the_schemas),
		cmocka_unit_test(tests_are_the_statistics),
		cmocka_unit_test(each_command_offers_the_formats_its_help_names),
		cmocka_unit_test(bench_offers_the_catalogues_benchmarks),
		cmocka_unit_test(files_profiles_and_directories_where_they_belong),
		cmocka_unit_test(after_a_double_dash_record_completes_the_command_it_runs),
	};

	return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
