// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The counter tables of the docs, held to the schema (src/schema.c) as
 * docs/metrics.md is held to the exposition (test_prom.c): every row a
 * table is meant to list has a row there, and every counter a table lists
 * exists, so a counter added, renamed or removed fails here until the docs
 * say so.  What each table is meant to list:
 *
 * - docs/report.md, "JSON report": every row of the family, of every kind,
 *   since the JSON report writes them all, in the order of the schema as
 *   the report writes them.  A grouped row is a key of its
 *   group's object: the group's row names it (`ineligible`: `mode`, ...).
 *   Besides the counters, `latency` (the outcomes' mean latencies) and
 *   lookup's `main_ineligibility` are keys the report adds.
 * - docs/report.md, "CSV report": every row again, as the CSV writes them:
 *   an outcome is a subject (with the metrics `calls` and
 *   `latency_sum_ns`), the errno table is the metric `errno_calls`, every
 *   other row is a metric named by its key ("ineligible_mode").
 * - docs/profile-format.md, the tables of `families.*`: the rows a profile
 *   stores, COUNT, OUTCOME and ERRNOS; a SUM or RATIO is computed by every
 *   reader and never written, so a table naming one is wrong.  Outcomes are
 *   the keys of `outcomes` (and rows of access's outcome table), a group's
 *   rows the keys of its object, as in report.md.  These tables are lists
 *   of keys, "- `KEY` (TYPE): MEANING", each item read as a row.
 * - docs/gate-rules.md, "Metrics": the metric namespace gate checks rule
 *   names against, metrics_schema() (FAMILY.KEY for every row but the
 *   errno table, the latencies, FAMILY.lost), without the [fsname] copies
 *   the text describes once; `{mean,p50,p90,p99}` and OUTCOME stand for
 *   what they list.  Its bench table lists bench_metric_rows' keys.
 *
 * And every line of README.md and of every page of docs/ (a new one
 * included) is at most 100 characters, counted as characters, not bytes
 * (µ and – are one each): a page reads in a terminal, a diff and an editor
 * without wrapping.  A table too wide for that is written as a list.
 */
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "bench_catalogue.h"
#include "metrics.h"
#include "schema.h"

/* ---- a doc and its tables ------------------------------------------------ */

struct doc {
	const char *name; /* "docs/report.md" */
	char *text;
	int problems;     /* printed so far; the test fails at the end if any */
};

static void doc_load(struct doc *d, const char *name)
{
	char *path;

	d->name = name;
	d->problems = 0;
	assert_true(asprintf(&path, "%s/../../../%s", testdata_dir(), name) > 0);
	d->text = slurp(path, NULL);
	if (!d->text)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	free(path);
}

/* Every problem is printed, then one failure names how many. */
static void doc_done(struct doc *d)
{
	free(d->text);
	if (d->problems)
		fail_msg("%s: %d counter(s) out of step with the schema (above)", d->name,
			 d->problems);
}

#define problem(d, ...) do { print_error("%s: ", (d)->name); print_error(__VA_ARGS__); \
			      print_error("\n"); (d)->problems++; } while (0)

/* The text from the line holding `from` to the line holding `to`. */
struct region {
	struct doc *doc;
	const char *what; /* "JSON report, access" */
	const char *from, *to;
};

static struct region region(struct doc *d, const char *what, const char *from, const char *to)
{
	struct region r = { .doc = d, .what = what };

	r.from = strstr(d->text, from);
	if (!r.from)
		fail_msg("%s: no \"%s\", where the %s table starts: update test_docs.c if the "
			 "doc moved it", d->name, from, what);
	r.to = strstr(r.from, to);
	if (!r.to)
		fail_msg("%s: no \"%s\" after \"%s\", where the %s table ends: update "
			 "test_docs.c if the doc moved it", d->name, to, from, what);
	return r;
}

/*
 * A row is a table row, "| KEY | ... | MEANING |", or an item of a list of
 * keys, "- `KEY`...: MEANING" at the start of a line, its meaning going on
 * over the indented lines below it: a table too wide for 100 columns is
 * written as such a list.
 */
static bool is_item(const char *line)
{
	return !strncmp(line, "- `", 3);
}

/* The next row of `r` after *at (NULL: the first), or NULL. */
static const char *next_row(const struct region *r, const char *at)
{
	const char *line = strchr(at ? at : r->from, '\n');

	while (line && ++line < r->to) {
		if (*line == '|' || is_item(line))
			return line;
		line = strchr(line, '\n');
	}
	return NULL;
}

/*
 * An item's cells: its key, from "- " to the first ":" outside `code` that
 * ends a word (a blank or the line's end after it), and its meaning, the
 * rest of the item (to the first line not indented).
 */
static bool item_cell(const char *row, int n, const char **start, const char **end)
{
	bool code = false;
	const char *p;

	for (p = row + 2; *p && *p != '\n'; p++) {
		if (*p == '`')
			code = !code;
		if (!code && p[0] == ':' && (p[1] == ' ' || p[1] == '\n'))
			break;
	}
	if (p[0] != ':' || n > 1)
		return false;
	if (n == 0) {
		*start = row + 2;
		*end = p;
		return true;
	}
	*start = p + 2;
	for (*end = strchr(p, '\n'); *end && (*end)[1] == ' '; *end = strchr(*end + 1, '\n'))
		;
	if (!*end)
		*end = p + strlen(p);
	return true;
}

/* Cell `n` (0: the first) of `row`, [*start, *end); a `|` inside `code` is text. */
static bool cell(const char *row, int n, const char **start, const char **end)
{
	bool code = false;
	int at = -1;

	if (is_item(row))
		return item_cell(row, n, start, end);
	*start = *end = row;
	for (const char *p = row; *p && *p != '\n'; p++) {
		if (*p == '`')
			code = !code;
		if (*p != '|' || code)
			continue;
		if (at == n) {
			*end = p;
			return true;
		}
		*start = p + 1;
		at++;
	}
	return false;
}

/* The last cell of `row`: the meaning. */
static void last_cell(const char *row, const char **start, const char **end)
{
	int n = 0;

	while (cell(row, n + 1, start, end))
		n++;
	assert_true(cell(row, n, start, end));
}

/* The next `code` span in [*p, end) into buf; false when there is none. */
static bool next_code(const char **p, const char *end, char *buf, size_t size)
{
	const char *open = *p, *close;

	while (open < end && *open != '`')
		open++;
	if (open >= end)
		return false;
	close = memchr(open + 1, '`', end - open - 1);
	if (!close)
		return false;
	snprintf(buf, size, "%.*s", (int)(close - open - 1), open + 1);
	*p = close + 1;
	return true;
}

/* A key, not a value or an expression: [a-z0-9_]+ */
static bool is_key(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Does [start, end) hold `key` as a code span? */
static bool names(const char *start, const char *end, const char *key)
{
	char buf[128];

	while (next_code(&start, end, buf, sizeof(buf)))
		if (!strcmp(buf, key))
			return true;
	return false;
}

/* Does a row of `r` have `key` in its first cell (and which row)? */
static const char *row_of(const struct region *r, const char *key)
{
	for (const char *row = next_row(r, NULL); row; row = next_row(r, row)) {
		const char *s, *e;

		if (cell(row, 0, &s, &e) && names(s, e, key))
			return row;
	}
	return NULL;
}

/* ---- the schema's rows ----------------------------------------------------- */

static const struct schema_row *row_named(enum family_id f, const char *name)
{
	for (int i = 0; i < schema[f].nrows; i++)
		if (!schema[f].rows[i].group && !strcmp(schema[f].rows[i].name, name))
			return &schema[f].rows[i];
	return NULL;
}

static bool is_group(enum family_id f, const char *name)
{
	for (int i = 0; i < schema[f].nrows; i++)
		if (schema[f].rows[i].group && !strcmp(schema[f].rows[i].group, name))
			return true;
	return false;
}

static bool in_group(enum family_id f, const char *group, const char *name)
{
	for (int i = 0; i < schema[f].nrows; i++)
		if (schema[f].rows[i].group && !strcmp(schema[f].rows[i].group, group) &&
		    !strcmp(schema[f].rows[i].name, name))
			return true;
	return false;
}

static bool stored(const struct schema_row *r)
{
	return r->kind == ROW_COUNT || r->kind == ROW_OUTCOME || r->kind == ROW_ERRNOS;
}

static const char *const kind_names[] = {
	[ROW_COUNT] = "COUNT", [ROW_OUTCOME] = "OUTCOME", [ROW_ERRNOS] = "ERRNOS",
	[ROW_SUM] = "SUM", [ROW_RATIO] = "RATIO",
};

/*
 * A grouped row is named in the meaning of its group's row; every key that
 * meaning names is a row of the group.
 */
static void check_group(const struct region *r, enum family_id f, const char *row,
			const char *group)
{
	const char *s, *e;
	char key[128];

	last_cell(row, &s, &e);
	for (int i = 0; i < schema[f].nrows; i++) {
		const struct schema_row *x = &schema[f].rows[i];

		if (x->group && !strcmp(x->group, group) && !names(s, e, x->name))
			problem(r->doc, "%s: the row of `%s` does not name `%s` (%s.%s_%s in the "
				"schema): add it to that row", r->what, group, x->name,
				schema[f].name, group, x->name);
	}
	while (next_code(&s, e, key, sizeof(key)))
		if (is_key(key) && !in_group(f, group, key))
			problem(r->doc, "%s: the row of `%s` names `%s`, which is no row of that "
				"group in the schema (renamed or removed?): correct or delete it",
				r->what, group, key);
}

/* ---- docs/report.md -------------------------------------------------------- */

/*
 * The JSON report's table of family f: every row of the schema, and no key
 * but those and `extra`, the keys the report adds (NULL-terminated).
 */
static void check_report_json(struct doc *d, enum family_id f, const struct region *r,
			      const char *const *extra)
{
	const char *last = NULL, *last_key = NULL;

	for (int i = 0; i < schema[f].nrows; i++) {
		const struct schema_row *x = &schema[f].rows[i];
		const char *key = x->group ? x->group : x->name, *at = row_of(r, key);

		if (!at)
			problem(d, "%s: no row for `%s` (%s.%s, %s in the schema): add one",
				r->what, key, schema[f].name, x->name, kind_names[x->kind]);
		else if (last && at < last)
			problem(d, "%s: `%s` comes before `%s`, but the report writes them in the "
				"order of the schema: move its row", r->what, key, last_key);
		else {
			last = at;
			last_key = key;
		}
	}
	for (const char *row = next_row(r, NULL); row; row = next_row(r, row)) {
		const char *s, *e;
		char key[128];
		bool known;

		if (!cell(row, 0, &s, &e))
			continue;
		while (next_code(&s, e, key, sizeof(key))) {
			known = row_named(f, key) != NULL;
			for (size_t k = 0; extra[k] && !known; k++)
				known = !strcmp(extra[k], key);
			if (is_group(f, key))
				check_group(r, f, row, key);
			else if (!known)
				problem(d, "%s: the row of `%s` names no row of the %s schema "
					"(renamed or removed?): correct or delete it", r->what, key,
					schema[f].name);
		}
	}
}

/*
 * The CSV report's table: for family f, an outcome is a subject, the errno
 * table the metric `errno_calls`, any other row a metric under its key.
 */
static void check_report_csv(struct doc *d, enum family_id f, const struct region *r)
{
	char key[64];
	bool seen[64] = { false };

	assert_true(schema[f].nrows <= 64);
	for (const char *row = next_row(r, NULL); row; row = next_row(r, row)) {
		const char *s, *e, *ss, *se, *ms, *me;
		char word[128];
		bool outcome_row = false;

		if (!cell(row, 0, &s, &e) || !cell(row, 1, &ss, &se) || !cell(row, 2, &ms, &me) ||
		    !next_code(&s, e, word, sizeof(word)) || strcmp(word, schema[f].name))
			continue;
		while (next_code(&ss, se, word, sizeof(word))) {
			const struct schema_row *x = row_named(f, word);

			if (x && x->kind == ROW_OUTCOME) {
				seen[x - schema[f].rows] = true;
				outcome_row = true;
			} else if (is_key(word) && strcmp(word, "all"))
				problem(d, "%s: `%s` is a subject, but no outcome of the %s schema "
					"(renamed or removed?): correct or delete it", r->what, word,
					schema[f].name);
		}
		while (next_code(&ms, me, word, sizeof(word))) {
			int i = schema_row_index(f, word);

			if (outcome_row && (!strcmp(word, "calls") || !strcmp(word, "latency_sum_ns")))
				continue;
			if (!strcmp(word, "errno_calls")) {
				for (i = 0; i < schema[f].nrows; i++)
					if (schema[f].rows[i].kind == ROW_ERRNOS)
						break;
				if (i == schema[f].nrows)
					problem(d, "%s: `errno_calls` for %s, which has no errno table",
						r->what, schema[f].name);
				else
					seen[i] = true;
				continue;
			}
			if (i < 0 || schema[f].rows[i].kind == ROW_OUTCOME ||
			    schema[f].rows[i].kind == ROW_ERRNOS)
				problem(d, "%s: the metric `%s` of %s is no row key of its schema "
					"(renamed or removed?): correct or delete it", r->what, word,
					schema[f].name);
			else
				seen[i] = true;
		}
	}
	for (int i = 0; i < schema[f].nrows; i++)
		if (!seen[i])
			problem(d, "%s: no %s row has the %s `%s` (%s.%s, %s in the schema): "
				"add it", r->what, schema[f].name,
				schema[f].rows[i].kind == ROW_OUTCOME ? "subject" : "metric",
				schema[f].rows[i].kind == ROW_ERRNOS ? "errno_calls" :
				schema_row_key(&schema[f].rows[i], key, sizeof(key)),
				schema[f].name, schema[f].rows[i].name,
				kind_names[schema[f].rows[i].kind]);
}

/*
 * Where a doc holds each family's table.  Every family must have one: a
 * family added to the schema fails here until its section is written.
 */
struct family_table {
	const char *what, *from, *to;
	const char *const *extra; /* keys of the table that are no schema row */
};

/* Each family's table of doc `d`, where `t` says it is, through `check`. */
static void check_family_tables(struct doc *d, const struct family_table t[FAMILY_COUNT],
				void (*check)(struct doc *, enum family_id, const struct region *,
					      const char *const *))
{
	struct region r;

	for (int f = 0; f < FAMILY_COUNT; f++)
		if (!t[f].what)
			fail_msg("%s: no table of the %s family is checked: write its section and "
				 "add where it is to test_docs.c", d->name, schema[f].name);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		r = region(d, t[f].what, t[f].from, t[f].to);
		check(d, f, &r, t[f].extra);
	}
}

static void report_md_lists_every_counter(void **state)
{
	static const char *const outcome_extra[] = { "latency", NULL };
	static const char *const lookup_extra[] = { "main_ineligibility", NULL };
	static const struct family_table json_tables[FAMILY_COUNT] = {
		[FAMILY_ACCESS] = { "JSON report, access", "**`access`**", "**`exec`**",
				    outcome_extra },
		[FAMILY_EXEC] = { "JSON report, exec", "**`exec`**", "**`lookup`**", outcome_extra },
		[FAMILY_LOOKUP] = { "JSON report, lookup's per_fs entry",
				    "Each `per_fs` entry has these keys",
				    "Real output for the profile above", lookup_extra },
	};
	struct doc d;
	struct region r;

	(void)state;
	doc_load(&d, "docs/report.md");
	check_family_tables(&d, json_tables, check_report_json);
	r = region(&d, "CSV report", "## CSV report", "A counter that the profile predates");
	for (int f = 0; f < FAMILY_COUNT; f++)
		check_report_csv(&d, f, &r);
	doc_done(&d);
}

/* ---- docs/profile-format.md ------------------------------------------------ */

/*
 * The table of family f: every stored row (an outcome under `outcomes`), and
 * no key but stored rows, their groups and `outcomes`.
 */
static void check_profile_format(struct doc *d, enum family_id f, const struct region *r,
				 const char *const *extra)
{
	const char *outcomes = row_of(r, "outcomes");

	(void)extra; /* a profile's tables name only stored rows, their groups and outcomes */
	for (int i = 0; i < schema[f].nrows; i++) {
		const struct schema_row *x = &schema[f].rows[i];
		const char *s, *e;

		if (!stored(x))
			continue;
		if (x->kind == ROW_OUTCOME) {
			if (!outcomes)
				problem(d, "%s: no row for `outcomes`, where the outcome `%s` is "
					"stored: add one", r->what, x->name);
			else {
				last_cell(outcomes, &s, &e);
				if (!names(s, e, x->name))
					problem(d, "%s: the row of `outcomes` does not name `%s` (an "
						"OUTCOME of the %s schema): add it", r->what, x->name,
						schema[f].name);
			}
		} else if (!row_of(r, x->group ? x->group : x->name))
			problem(d, "%s: no row for `%s` (%s.%s, stored: %s): add one", r->what,
				x->group ? x->group : x->name, schema[f].name, x->name,
				kind_names[x->kind]);
	}
	for (const char *row = next_row(r, NULL); row; row = next_row(r, row)) {
		const char *s, *e;
		char key[128];

		if (!cell(row, 0, &s, &e))
			continue;
		while (next_code(&s, e, key, sizeof(key))) {
			const struct schema_row *x = row_named(f, key);

			if (is_group(f, key))
				check_group(r, f, row, key);
			else if (!strcmp(key, "outcomes")) {
				const char *ms, *me;
				char word[128];

				last_cell(row, &ms, &me);
				while (next_code(&ms, me, word, sizeof(word))) {
					const struct schema_row *o = row_named(f, word);

					if (is_key(word) && (!o || o->kind != ROW_OUTCOME))
						problem(d, "%s: the row of `outcomes` names `%s`, which is "
							"no outcome of the %s schema (renamed or "
							"removed?): correct or delete it", r->what, word,
							schema[f].name);
				}
			} else if (x && !stored(x))
				problem(d, "%s: `%s` is a %s, computed by every reader and never "
					"stored in a profile: delete its row", r->what, key,
					kind_names[x->kind]);
			else if (!x)
				problem(d, "%s: the row of `%s` names no row of the %s schema "
					"(renamed or removed?): correct or delete it", r->what, key,
					schema[f].name);
		}
	}
}

static void profile_format_md_lists_every_stored_counter(void **state)
{
	static const struct family_table tables[FAMILY_COUNT] = {
		[FAMILY_ACCESS] = { "families.access", "### `families.access`",
				    "### `families.exec`" },
		[FAMILY_EXEC] = { "families.exec", "### `families.exec`",
				  "#### The `errno` object" },
		[FAMILY_LOOKUP] = { "families.lookup's per_fs entry", "Each entry has these keys",
				    "For every entry, as written" },
	};
	struct doc d;

	(void)state;
	doc_load(&d, "docs/profile-format.md");
	check_family_tables(&d, tables, check_profile_format);
	doc_done(&d);
}

/* ---- docs/gate-rules.md ---------------------------------------------------- */

/* The names `pattern` stands for: {a,b} and OUTCOME expanded.  Adds to `out`. */
static void expand(const char *pattern, struct metric_list *out)
{
	const char *brace = strchr(pattern, '{'), *word = strstr(pattern, "OUTCOME");
	char buf[METRIC_NAME_LEN];

	if (brace) {
		const char *close = strchr(brace, '}');

		assert_non_null(close);
		for (const char *alt = brace + 1; alt < close;) {
			size_t len = strcspn(alt, ",}");

			snprintf(buf, sizeof(buf), "%.*s%.*s%s", (int)(brace - pattern), pattern,
				 (int)len, alt, close + 1);
			expand(buf, out);
			alt += len + 1;
		}
		return;
	}
	if (word) {
		int f = metric_family(pattern);

		assert_true(f >= 0);
		for (int i = 0; i < schema[f].nrows; i++)
			if (schema[f].rows[i].kind == ROW_OUTCOME) {
				snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(word - pattern), pattern,
					 schema[f].rows[i].name, word + strlen("OUTCOME"));
				expand(buf, out);
			}
		return;
	}
	assert_int_equal(metric_add(out, pattern, 0), 0);
}

static void gate_rules_md_lists_every_metric(void **state)
{
	struct metric_list known = { 0 }, documented = { 0 };
	struct doc d;
	struct region r;
	char word[128];

	(void)state;
	doc_load(&d, "docs/gate-rules.md");
	/* the first cells (the keys) of every table and list from "## Metrics" to the bench section */
	r = region(&d, "Metrics", "## Metrics", "### `bench.*`");
	for (const char *row = next_row(&r, NULL); row; row = next_row(&r, row)) {
		const char *s, *e;

		if (!cell(row, 0, &s, &e))
			continue;
		while (next_code(&s, e, word, sizeof(word)))
			if (metric_family(word) >= 0)
				expand(word, &documented);
	}
	assert_int_equal(metrics_schema(NULL, &known), 0);
	for (size_t i = 0; i < known.n; i++)
		if (metric_family(known.m[i].name) >= 0 && !strchr(known.m[i].name, '[') &&
		    !metrics_find(&documented, known.m[i].name))
			problem(&d, "%s: no row for `%s`, a metric gate knows: add one (`{mean,p50,"
				"p90,p99}` and OUTCOME may stand for several)", r.what,
				known.m[i].name);
	for (size_t i = 0; i < documented.n; i++)
		if (!metrics_find(&known, documented.m[i].name))
			problem(&d, "%s: `%s` is no metric gate knows (renamed or removed?): "
				"correct or delete its row", r.what, documented.m[i].name);

	/* permscope bench's keys */
	r = region(&d, "bench.*", "### `bench.*`", "## Evaluation");
	for (size_t k = 0; k < bench_metric_nrows; k++)
		if (!row_of(&r, bench_metric_rows[k].key))
			problem(&d, "%s: no row for `%s`, a key of bench_metric_rows: add one", r.what,
				bench_metric_rows[k].key);
	for (const char *row = next_row(&r, NULL); row; row = next_row(&r, row)) {
		const char *s, *e;

		if (!cell(row, 0, &s, &e))
			continue;
		while (next_code(&s, e, word, sizeof(word)))
			if (bench_metric_index(word) < 0)
				problem(&d, "%s: `%s` is no key of bench_metric_rows (renamed or "
					"removed?): correct or delete its row", r.what, word);
	}
	metrics_free(&known);
	metrics_free(&documented);
	doc_done(&d);
}

/* ---- every page: no line over 100 characters ------------------------------- */

#define DOC_COLUMNS 100

/* The lines of `name` over DOC_COLUMNS characters, each printed as FILE:LINE. */
static int long_lines(const char *name)
{
	struct doc d;
	int n = 0, line = 1;

	doc_load(&d, name);
	for (const char *p = d.text; *p; line++) {
		size_t chars = 0;

		for (; *p && *p != '\n'; p++)
			chars += ((unsigned char)*p & 0xc0) != 0x80; /* a UTF-8 character's first byte */
		if (chars > DOC_COLUMNS) {
			print_error("%s:%d: %zu characters (at most %d)\n", name, line, chars,
				    DOC_COLUMNS);
			n++;
		}
		if (*p)
			p++;
	}
	free(d.text);
	return n;
}

static void no_line_over_100_characters(void **state)
{
	char *pattern;
	glob_t g;
	int n = 0;
	size_t top;

	(void)state;
	assert_true(asprintf(&pattern, "%s/../../../docs/*.md", testdata_dir()) > 0);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_true(g.gl_pathc > 0);
	top = strlen(pattern) - strlen("docs/*.md");
	n += long_lines("README.md");
	for (size_t i = 0; i < g.gl_pathc; i++)
		n += long_lines(g.gl_pathv[i] + top); /* "docs/NAME.md" */
	globfree(&g);
	free(pattern);
	if (n)
		fail_msg("%d line(s) over %d characters (above): rewrap them, or make a wide table "
			 "a list", n, DOC_COLUMNS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_md_lists_every_counter),
		cmocka_unit_test(profile_format_md_lists_every_stored_counter),
		cmocka_unit_test(gate_rules_md_lists_every_metric),
		cmocka_unit_test(no_line_over_100_characters),
	};

	return cmocka_run_group_tests_name("docs", tests, NULL, NULL);
}
