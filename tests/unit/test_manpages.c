// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The man pages of docs/man held to the binary, and its --help held to 80
 * columns.  Every command `permscope --help` lists has a page
 * permscope-CMD.8 and no page is left for a command that went; each page
 * has the sections a reader looks for; its OPTIONS section names every
 * option of `permscope CMD --help` with the same argument, and nothing
 * that --help does not list, so an option added or removed fails here
 * until the page says so; `groff -man -ww -z` finds nothing to warn of.
 * The pages are read from the source tree (source_dir(), found from
 * PERMSCOPE_TESTDATA).
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAX_OPTIONS 96
#define MAX_COMMANDS 16

static const char *const sections[] = {
	"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "FILES", "EXAMPLES",
	"SEE ALSO",
};

/* Every problem is printed, then one failure says how many. */
static int problems;
#define problem(...) do { print_error(__VA_ARGS__); print_error("\n"); problems++; } while (0)

static void no_problems(const char *what)
{
	if (problems)
		fail_msg("%d problem(s) with %s (above)", problems, what);
}

static char *page_path(const char *page)
{
	static char path[PATH_MAX + 340];

	snprintf(path, sizeof(path), "%s/docs/man/%s.8", source_dir(), page);
	return path;
}

/* The page's roff source, or NULL after a problem. */
static char *page_read(const char *page)
{
	char *text = slurp(page_path(page), NULL);

	if (!text)
		problem("%s: cannot read it: %s", page_path(page), strerror(errno));
	return text;
}

/* Whether LINE (up to its newline) is ".SH NAME" or ".SH \"NAME\"". */
static bool is_section(const char *line, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(line, ".SH ", 4))
		return false;
	line += 4;
	if (*line == '"')
		return !strncmp(line + 1, name, len) && !strncmp(line + 1 + len, "\"\n", 2);
	return !strncmp(line, name, len) && line[len] == '\n';
}

/* The lines of section NAME, without its .SH line (malloc'ed), or NULL. */
static char *section(const char *text, const char *name)
{
	const char *start = NULL, *end, *line;

	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (is_section(line, name)) {
			start = strchr(line, '\n') + 1;
			break;
		}
	if (!start)
		return NULL;
	for (end = start; *end && strncmp(end, ".SH ", 4); end = strchr(end, '\n') ? strchr(end, '\n') + 1 : end + strlen(end))
		;
	return strndup(start, end - start);
}

/* LINE as man prints it, near enough: "\-" a dash, fonts and \& \% gone. */
static void unroff(const char *line, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = line; *p && *p != '\n' && n + 1 < size; p++) {
		if (*p != '\\') {
			out[n++] = *p;
			continue;
		}
		switch (p[1]) {
		case '-':
			out[n++] = '-';
			p++;
			break;
		case 'f':
			p += p[2] ? 2 : 1;
			break;
		case '&':
		case '%':
			p++;
			break;
		case 'e':
			out[n++] = '\\';
			p++;
			break;
		default:
			out[n++] = *p;
		}
	}
	out[n] = 0;
}

/*
 * The options a page's OPTIONS section documents: every "-x" and "--long"
 * (with its "=ARG") in the tag line of a .TP or .TQ.
 */
static int page_options(const char *options, struct help_option *out, int max)
{
	int n = 0;
	bool tag = false;

	for (const char *line = options; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char text[512];

		if (!strncmp(line, ".TP", 3) || !strncmp(line, ".TQ", 3)) {
			tag = true;
			continue;
		}
		if (!tag)
			continue;
		tag = false;
		unroff(line, text, sizeof(text));
		for (char *p = text; *p; p++) {
			size_t len;

			if (*p != '-' || (p > text && p[-1] != ' ' && p[-1] != ','))
				continue;
			if (p[1] == '-') {
				len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
				if (len == 2)
					continue;
			} else if (p[1] && strchr("?abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", p[1]) &&
				   (!p[2] || strchr(" ,=", p[2]))) {
				len = 2;
			} else {
				continue;
			}
			assert_true(n < max);
			snprintf(out[n].name, sizeof(out[n].name), "%.*s", (int)len, p);
			out[n].arg[0] = 0;
			if (p[len] == '=')
				snprintf(out[n].arg, sizeof(out[n].arg), "%.*s",
					 (int)strcspn(p + len + 1, " ,"), p + len + 1);
			n++;
			p += len - 1;
		}
	}
	return n;
}

static const struct help_option *find_option(const struct help_option *opts, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* ---- the tests ------------------------------------------------------------ */

static void every_command_has_a_page_and_every_page_a_command(void **state)
{
	char cmds[MAX_COMMANDS][16], name[320], path[PATH_MAX + 16];
	int n = permscope_commands(cmds, MAX_COMMANDS);
	struct dirent *e;
	DIR *dir;

	(void)state;
	problems = 0;
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "permscope-%s", cmds[i]);
		if (access(page_path(name), R_OK))
			problem("%s: missing: 'permscope %s' has no man page", page_path(name), cmds[i]);
	}
	snprintf(path, sizeof(path), "%s/docs/man", source_dir());
	dir = opendir(path);
	if (!dir)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while ((e = readdir(dir))) {
		bool known = !strcmp(e->d_name, "permscope.8");

		if (e->d_name[0] == '.')
			continue;
		for (int i = 0; i < n && !known; i++) {
			snprintf(name, sizeof(name), "permscope-%s.8", cmds[i]);
			known = !strcmp(e->d_name, name);
		}
		if (!known)
			problem("docs/man/%s: no command of 'permscope --help' goes with it", e->d_name);
	}
	closedir(dir);
	if (access(page_path("permscope"), R_OK))
		problem("%s: missing", page_path("permscope"));
	no_problems("the pages of docs/man");
}

static void every_page_has_the_sections_a_reader_looks_for(void **state)
{
	char cmds[MAX_COMMANDS + 1][16], page[320], th[320], name[320];
	int n = permscope_commands(cmds, MAX_COMMANDS);

	(void)state;
	problems = 0;
	strcpy(cmds[n++], "");
	for (int i = 0; i < n; i++) {
		char *text, *sec;

		snprintf(page, sizeof(page), "permscope%s%s", *cmds[i] ? "-" : "", cmds[i]);
		if (!(text = page_read(page)))
			continue;
		for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
			sec = section(text, sections[s]);
			if (!sec || !sec[strspn(sec, " \n")])
				problem("%s.8: no %s section, or an empty one", page, sections[s]);
			free(sec);
		}
		/* the title and the NAME line man -k and whatis read */
		snprintf(th, sizeof(th), "\n.TH PERMSCOPE%s", *cmds[i] ? "\\-" : "");
		for (char *p = th + strlen(th), *c = cmds[i]; *c; c++)
			*p++ = *c - 'a' + 'A', *p = 0;
		strcat(th, " 8 ");
		if (!strstr(text, th))
			problem("%s.8: no '%s' line", page, th + 1);
		snprintf(name, sizeof(name), ".SH NAME\npermscope%s%s \\- ", *cmds[i] ? "\\-" : "",
			 cmds[i]);
		if (!strstr(text, name))
			problem("%s.8: NAME is not 'permscope%s%s \\- what it does'", page,
				*cmds[i] ? "\\-" : "", cmds[i]);
		free(text);
	}
	no_problems("the sections of the pages");
}

static void each_page_documents_exactly_the_options_of_its_help(void **state)
{
	char cmds[MAX_COMMANDS][16], page[320];
	int n = permscope_commands(cmds, MAX_COMMANDS);

	(void)state;
	problems = 0;
	for (int i = 0; i < n; i++) {
		struct help_option help[MAX_OPTIONS], man[MAX_OPTIONS];
		const struct help_option *o;
		int nhelp, nman;
		char *text, *options;

		assert_int_equal(permscope(cmds[i], "--help", NULL), 0);
		nhelp = help_options(out_text, help, MAX_OPTIONS);
		assert_true(nhelp > 3); /* at least --help, --usage, --version */
		snprintf(page, sizeof(page), "permscope-%s", cmds[i]);
		if (!(text = page_read(page)))
			continue;
		options = section(text, "OPTIONS");
		nman = options ? page_options(options, man, MAX_OPTIONS) : 0;
		for (int h = 0; h < nhelp; h++) {
			o = find_option(man, nman, help[h].name);
			if (!o)
				problem("%s.8: OPTIONS does not document %s%s%s of 'permscope %s "
					"--help'", page, help[h].name,
					help[h].name[1] == '-' && *help[h].arg ? "=" : "",
					help[h].name[1] == '-' ? help[h].arg : "", cmds[i]);
			else if (help[h].name[1] == '-' && strcmp(o->arg, help[h].arg))
				problem("%s.8: %s takes %s in --help, but '%s' in the page", page,
					help[h].name, *help[h].arg ? help[h].arg : "no argument",
					o->arg);
		}
		for (int m = 0; m < nman; m++)
			if (!find_option(help, nhelp, man[m].name))
				problem("%s.8: OPTIONS documents %s, which 'permscope %s --help' does "
					"not list", page, man[m].name, cmds[i]);
		free(options);
		free(text);
	}
	no_problems("the options of the pages");
}

static void groff_finds_nothing_to_warn_of_in_any_page(void **state)
{
	char cmds[MAX_COMMANDS + 1][16], page[320], *groff;
	int n = permscope_commands(cmds, MAX_COMMANDS);
	const char *found = find_program("groff");

	(void)state;
	if (!found) {
		print_message("groff is not installed (apt-get install groff): pages not checked\n");
		skip();
	}
	groff = strdup(found);
	problems = 0;
	strcpy(cmds[n++], "");
	for (int i = 0; i < n; i++) {
		snprintf(page, sizeof(page), "permscope%s%s", *cmds[i] ? "-" : "", cmds[i]);
		char *argv[] = { groff, "-man", "-ww", "-z", page_path(page), NULL };
		int status = run_capture(argv);

		if (status || *out_text || *err_text)
			problem("groff -man -ww -z %s.8: status %d:\n%s%s", page, status, out_text,
				err_text);
	}
	free(groff);
	no_problems("groff's warnings");
}

/* ---- --help at 80 columns --------------------------------------------------- */

/* Characters, not bytes: "mean±sd" is 7 columns. */
static size_t columns(const char *line, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)line[i] & 0xc0) != 0x80;
	return n;
}

/*
 * Whether a 'single-quoted span' opens in LINE and is not closed there.  A
 * quote opens a span after a blank or '(' and before a non-blank; one after
 * a letter is an apostrophe (libbpf's) or closes the span.
 */
static bool quote_left_open(const char *line, size_t len)
{
	bool open = false;

	for (size_t i = 0; i < len; i++) {
		char before = i ? line[i - 1] : ' ', after = i + 1 < len ? line[i + 1] : ' ';

		if (line[i] != '\'')
			continue;
		if (!open && strchr(" ([\"", before) && after != ' ')
			open = true;
		else if (open && strchr(" .,;:)]\"", after))
			open = false;
	}
	return open;
}

static void check_help_lines(const char *what, const char *help)
{
	for (const char *line = help; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line), quotes = 0;

		if (columns(line, len) > 80)
			problem("%s: %zu columns: |%.*s|", what, columns(line, len), (int)len, line);
		if (quote_left_open(line, len))
			problem("%s: a 'quoted' span broken at the end of |%.*s|", what, (int)len,
				line);
		for (size_t i = 0; i < len; i++)
			quotes += line[i] == '"';
		if (quotes % 2)
			problem("%s: a \"quoted\" span broken in |%.*s|", what, (int)len, line);
		line += len + (nl != NULL);
	}
}

static void no_help_line_is_over_80_columns_or_breaks_a_quote(void **state)
{
	char cmds[MAX_COMMANDS][16], what[320];
	int n = permscope_commands(cmds, MAX_COMMANDS);

	(void)state;
	problems = 0;
	check_help_lines("permscope --help", out_text);
	for (int i = 0; i < n; i++) {
		assert_int_equal(permscope(cmds[i], "--help", NULL), 0);
		snprintf(what, sizeof(what), "permscope %s --help", cmds[i]);
		check_help_lines(what, out_text);
	}
	no_problems("--help");
}

/* The checker itself, on lines argp once printed. */
static void the_quote_check_tells_a_broken_quote_from_an_apostrophe(void **state)
{
	static const char *const broken[] = {
		"cgroup2 mount followed by what 'systemctl show -p",
		"Print the per-filesystem skip report of a profile FILE written by 'permscope",
	};
	static const char *const whole[] = {
		"Also print libbpf's log on stderr: why a mode did not load or attach",
		"ControlGroup --value UNIT' prints: /sys/fs/cgroup/system.slice/UNIT.  With --pid,",
		"works, in the order this kernel calls for ('permscope check' says which), and",
		"the workers' CPU time.  'racing': information only).",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
		assert_true(quote_left_open(broken[i], strlen(broken[i])));
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		assert_false(quote_left_open(whole[i], strlen(whole[i])));
}

static void every_help_says_where_to_report_bugs(void **state)
{
	char cmds[MAX_COMMANDS][16];
	int n = permscope_commands(cmds, MAX_COMMANDS);

	(void)state;
	assert_int_equal(permscope("--help", NULL), 0);
	assert_contains(out_text, "'man permscope'");
	for (int i = -1; i < n; i++) {
		const char *at;

		assert_int_equal(i < 0 ? permscope("--help", NULL) : permscope(cmds[i], "--help", NULL), 0);
		at = strstr(out_text, "\nReport bugs to ");
		if (!at)
			fail_msg("'permscope %s --help' says nowhere where to report bugs", i < 0 ? "" : cmds[i]);
		at += strlen("\nReport bugs to ");
		/* a tracker's URL, or the README's section: never a name of nothing */
		if (strncmp(at, "https://", 8) && !strstr(at, "'Reporting bugs'"))
			fail_msg("'Report bugs to %.60s' names no place", at);
	}
}

static void the_daemons_duration_speaks_of_no_command(void **state)
{
	const char *d, *end;

	(void)state;
	assert_int_equal(permscope("daemon", "--help", NULL), 0);
	d = strstr(out_text, "  -d, --duration=SECONDS");
	assert_non_null(d);
	end = strstr(d + 1, "\n  -");
	assert_non_null(end);
	if (memmem(d, end - d, "CMD", 3) || memmem(d, end - d, "command", 7))
		fail_msg("the daemon runs no command, but its -d says: %.*s", (int)(end - d), d);
	assert_true(memmem(d, end - d, "SIGTERM", 7) != NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_command_has_a_page_and_every_page_a_command),
		cmocka_unit_test(every_page_has_the_sections_a_reader_looks_for),
		cmocka_unit_test(each_page_documents_exactly_the_options_of_its_help),
		cmocka_unit_test(groff_finds_nothing_to_warn_of_in_any_page),
		cmocka_unit_test(no_help_line_is_over_80_columns_or_breaks_a_quote),
		cmocka_unit_test(the_quote_check_tells_a_broken_quote_from_an_apostrophe),
		cmocka_unit_test(every_help_says_where_to_report_bugs),
		cmocka_unit_test(the_daemons_duration_speaks_of_no_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
