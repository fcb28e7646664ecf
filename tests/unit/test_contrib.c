// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * contrib/: the Prometheus rules and the Grafana dashboard, without a
 * daemon (tests/live/test_live_dashboard.c runs them against one).
 *
 * - promtool check rules accepts the rules file, every rule counted, and
 *   promtool test rules passes its unit tests, which cover every rule;
 * - one fact, one place: each recording rule's expression is the one of
 *   docs/metrics.md's "Derived values", and the page's list of alerts
 *   names the file's alerts with the same expressions;
 * - every dashboard query parses (promtool, as a recording rule), reads
 *   only metrics docs/metrics.md documents, and filters on $instance; each
 *   panel asks the dashboard's data source variable.
 *
 * promtool comes from Debian's prometheus package; the tests that need it
 * skip, saying so, where it is absent.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grafana.h"
#include "promserver.h"
#include "testutil.h"

/* ---- the files ----------------------------------------------------------- */

/* TOP/REL, for a file of the source tree (tests/unit/data is testdata_dir()). */
static const char *top_path(const char *rel)
{
	static char paths[4][PATH_MAX];
	static unsigned int next;
	char *p = paths[next++ % 4];

	snprintf(p, PATH_MAX, "%s/../../../%s", testdata_dir(), rel);
	return p;
}

static char *read_top(const char *rel)
{
	char *text = slurp(top_path(rel), NULL);

	if (!text)
		fail_msg("cannot read %s: %s", top_path(rel), strerror(errno));
	return text;
}

#define RULES "contrib/prometheus/permscope.rules.yml"
#define RULES_TEST "contrib/prometheus/permscope.rules.test.yml"
#define DASHBOARD "contrib/grafana/permscope-dashboard.json"

/* TEXT without its blanks: PromQL that differs in layout alone compares equal. */
static char *squeeze(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *c = text; *c; c++)
		if (!isspace((unsigned char)*c))
			*o++ = *c;
	*o = 0;
	return out;
}

/* ---- the rules file, read as far as these tests need ---------------------- */

struct rule {
	char kind[8];   /* "record" or "alert" */
	char name[128];
	char *expr;     /* blanks squeezed out */
};

/*
 * The rules of permscope.rules.yml in order: each `- record: NAME` or
 * `- alert: NAME` and its `expr:`, inline or a `|` block (the lines indented
 * deeper than `expr:`).  The file is ours and kept to that shape; promtool
 * checks it is valid YAML.
 */
static size_t read_rules(struct rule **out)
{
	char *text = read_top(RULES), *save = NULL;
	struct rule *rules = NULL;
	size_t n = 0, expr_indent = 0;
	char *block = NULL;
	size_t block_len = 0;
	FILE *f = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t indent = strspn(line, " ");
		char *body = line + indent, name[128];

		if (f && indent > expr_indent) {
			fprintf(f, "%s\n", body);
			continue;
		}
		if (f) {
			assert_int_equal(fclose(f), 0);
			f = NULL;
			rules[n - 1].expr = squeeze(block);
			free(block);
		}
		if (sscanf(body, "- record: %127s", name) == 1 ||
		    sscanf(body, "- alert: %127s", name) == 1) {
			rules = realloc(rules, (n + 1) * sizeof(*rules));
			assert_non_null(rules);
			snprintf(rules[n].kind, sizeof(rules[n].kind), "%s", body[2] == 'r' ? "record" : "alert");
			snprintf(rules[n].name, sizeof(rules[n].name), "%s", name);
			rules[n++].expr = NULL;
		} else if (!strncmp(body, "expr:", 5)) {
			assert_true(n > 0 && !rules[n - 1].expr);
			if (!strcmp(body, "expr: |")) {
				expr_indent = indent;
				f = open_memstream(&block, &block_len);
				assert_non_null(f);
			} else {
				rules[n - 1].expr = squeeze(body + 5);
			}
		}
	}
	if (f) {
		assert_int_equal(fclose(f), 0);
		rules[n - 1].expr = squeeze(block);
		free(block);
	}
	for (size_t i = 0; i < n; i++)
		if (!rules[i].expr)
			fail_msg("%s: %s %s has no expr", RULES, rules[i].kind, rules[i].name);
	free(text);
	*out = rules;
	return n;
}

static void free_rules(struct rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rules[i].expr);
	free(rules);
}

static const struct rule *find_rule(const struct rule *rules, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rules[i].name, name))
			return &rules[i];
	return NULL;
}

static const char *need_promtool(void)
{
	const char *tool = promtool_bin();

	if (!tool) {
		print_message("skipped: promtool not found (Debian package prometheus; or set "
			      "PROMTOOL)\n");
		skip();
	}
	return tool;
}

/* ---- promtool on the rules ----------------------------------------------- */

/* promtool check rules accepts the file and counts every rule in it. */
static void promtool_checks_the_rules(void **state)
{
	char *argv[] = { (char *)need_promtool(), "check", "rules", (char *)top_path(RULES), NULL };
	struct rule *rules;
	size_t n = read_rules(&rules), records = 0;
	char want[64];

	(void)state;
	for (size_t i = 0; i < n; i++)
		records += !strcmp(rules[i].kind, "record");
	print_message("  %zu recording rules, %zu alerts\n", records, n - records);
	assert_true(records >= 10);
	assert_true(n - records >= 6);
	snprintf(want, sizeof(want), "SUCCESS: %zu rules found", n);
	if (run_capture(argv) != 0 || !strstr(out_text, want))
		fail_msg("promtool check rules %s (expected \"%s\"):\n%s%s", argv[3], want, out_text,
			 err_text);
	free_rules(rules, n);
}

/*
 * promtool test rules passes, and the tests cover every rule: each
 * recording rule's value is asserted, each alert is asserted both silent
 * (exp_alerts: []) and firing at some time.
 */
static void promtool_unit_tests_cover_every_rule(void **state)
{
	char *argv[] = { (char *)need_promtool(), "test", "rules", (char *)top_path(RULES_TEST),
			 NULL };
	char *tests = read_top(RULES_TEST);
	struct rule *rules;
	size_t n = read_rules(&rules);

	(void)state;
	if (run_capture(argv) != 0 || !strstr(out_text, "SUCCESS"))
		fail_msg("promtool test rules %s:\n%s%s", argv[3], out_text, err_text);
	for (size_t i = 0; i < n; i++) {
		char key[160];
		int silent = 0, firing = 0;

		if (!strcmp(rules[i].kind, "record")) {
			snprintf(key, sizeof(key), "- expr: %s\n", rules[i].name);
			if (!strstr(tests, key))
				fail_msg("%s: no promql_expr_test of %s", RULES_TEST, rules[i].name);
			continue;
		}
		snprintf(key, sizeof(key), "alertname: %s\n", rules[i].name);
		for (const char *at = strstr(tests, key); at; at = strstr(at + 1, key)) {
			const char *next = at + strlen(key) + strspn(at + strlen(key), " ");

			if (!strncmp(next, "exp_alerts: []", 14))
				silent++;
			else if (!strncmp(next, "exp_alerts:\n", 12))
				firing++;
		}
		if (!silent || !firing)
			fail_msg("%s: %s is tested %d times silent and %d firing; want both",
				 RULES_TEST, rules[i].name, silent, firing);
	}
	free_rules(rules, n);
	free(tests);
}

/* ---- one fact, one place: the rules and docs/metrics.md ------------------ */

/* The text between the first pair of backquotes of TEXT, in place. */
static char *ticked(char *text)
{
	char *a = strchr(text, '`'), *b = a ? strchr(a + 1, '`') : NULL;

	if (!b)
		return NULL;
	*b = 0;
	return a + 1;
}

/*
 * The lines of docs/metrics.md's section HEADING, to the next heading, one
 * call each (NULL: the next one); blank lines skipped.
 */
static char *section_line(char *doc, const char *heading, char **save)
{
	char *line;

	if (doc) {
		char *at = strstr(doc, heading);

		if (!at)
			fail_msg("docs/metrics.md has no section \"%s\"", heading);
		doc = at + strlen(heading);
	}
	line = strtok_r(doc, "\n", save);
	return line && line[0] != '#' ? line : NULL;
}

/*
 * Each value of "Derived values", a line naming it ("`VALUE`:", "access
 * `calls`:") and the ```promql block of its expression, has its recording
 * rule, permscope:FAMILY_VALUE:rate5m (VALUE with '.' made '_';
 * FAMILY.latency.p99 for access and exec; FAMILY bpf for the --bpf-stats
 * programs' counters), with the same expression; and every recording rule
 * is such a value.
 */
static void the_recording_rules_are_the_docs_derived_values(void **state)
{
	char *doc = read_top("docs/metrics.md"), *save = NULL, *line, *label = NULL;
	struct rule *rules;
	size_t n = read_rules(&rules), records = 0, matched = 0;

	(void)state;
	for (size_t i = 0; i < n; i++)
		records += !strcmp(rules[i].kind, "record");
	for (line = section_line(doc, "\n### Derived values\n", &save); line;
	     line = section_line(NULL, NULL, &save)) {
		char *value, *expr = NULL, *block;
		size_t expr_len = 0;
		const char *family = NULL;
		FILE *e;

		if (strcmp(line, "```promql")) {
			label = line;
			continue;
		}
		/* the block: its lines to the closing ``` */
		e = open_memstream(&expr, &expr_len);
		assert_non_null(e);
		while ((block = strtok_r(NULL, "\n", &save)) && strcmp(block, "```"))
			fprintf(e, "%s\n", block);
		assert_int_equal(fclose(e), 0);
		if (!block)
			fail_msg("docs/metrics.md, Derived values: a ```promql block never closed");
		if (!label || label[strlen(label) - 1] != ':')
			fail_msg("docs/metrics.md, Derived values: a ```promql block after no "
				 "\"`VALUE`:\" line:\n%s", expr);
		if (!strncmp(label, "access ", 7) || !strncmp(label, "exec ", 5))
			family = label[0] == 'a' ? "access" : "exec";
		value = ticked(label);
		label = NULL;
		assert_non_null(value);
		for (int k = 0; k < 2; k++) {
			char name[160], *want, *fam_expr = NULL;
			const struct rule *r;
			const char *fam = family, *v = value;

			if (!strncmp(value, "FAMILY.", 7)) {
				/* the histograms: access and exec */
				fam = k ? "exec" : "access";
				v = value + 7;
				fam_expr = strdup(expr);
				for (char *f; (f = strstr(fam_expr, "FAMILY"));) {
					memmove(f + strlen(fam), f + 6, strlen(f + 6) + 1);
					memcpy(f, fam, strlen(fam));
				}
			} else if (k) {
				break;
			}
			if (!fam)
				fam = strstr(expr, "permscope_lookup_") ? "lookup" :
				      strstr(expr, "permscope_access_") ? "access" :
				      strstr(expr, "permscope_bpf_") ? "bpf" : "exec";
			snprintf(name, sizeof(name), "permscope:%s_%s:rate5m", fam, v);
			for (char *d = strchr(name, '.'); d; d = strchr(d, '.'))
				*d = '_';
			r = find_rule(rules, n, name);
			if (!r)
				fail_msg("%s has no recording rule %s for docs/metrics.md's %s", RULES,
					 name, value);
			want = squeeze(fam_expr ? fam_expr : expr);
			if (strcmp(r->expr, want))
				fail_msg("%s: %s is\n  %s\nbut docs/metrics.md says\n  %s", RULES, name,
					 r->expr, want);
			matched++;
			free(want);
			free(fam_expr);
		}
		free(expr);
	}
	print_message("  %zu recording rules, each a value of Derived values\n", matched);
	assert_int_equal(matched, records);
	free_rules(rules, n);
	free(doc);
}

/*
 * docs/metrics.md's list of alerts is the file's alerts, expressions
 * included: an item "- `NAME`, SEVERITY: fires when `EXPR`. MEANING" and
 * its indented lines.
 */
static void the_docs_alerts_are_the_rules_alerts(void **state)
{
	char *doc = read_top("docs/metrics.md"), *save = NULL, *line;
	struct rule *rules;
	size_t n = read_rules(&rules), alerts = 0, matched = 0;
	char *item = NULL;
	size_t item_len = 0;
	FILE *f = NULL;

	(void)state;
	for (size_t i = 0; i < n; i++)
		alerts += !strcmp(rules[i].kind, "alert");
	line = section_line(doc, "\n### Alerts\n", &save);
	for (;; line = section_line(NULL, NULL, &save)) {
		char *name, *expr, *want, *when;
		const struct rule *r;

		if (line && line[0] == ' ' && f) { /* the item goes on */
			fprintf(f, " %s", line + strspn(line, " "));
			continue;
		}
		if (f) { /* an item ends */
			assert_int_equal(fclose(f), 0);
			f = NULL;
			when = strstr(item, ": fires when `");
			name = ticked(item);
			if (!name || !when)
				fail_msg("docs/metrics.md, Alerts: not \"- `NAME`, SEVERITY: fires when "
					 "`EXPR`. ...\": %s", item);
			expr = ticked(when);
			assert_non_null(expr);
			r = find_rule(rules, n, name);
			if (!r || strcmp(r->kind, "alert"))
				fail_msg("docs/metrics.md lists alert %s, which %s does not have", name,
					 RULES);
			want = squeeze(expr);
			if (strcmp(r->expr, want))
				fail_msg("%s: %s is\n  %s\nbut docs/metrics.md says\n  %s", RULES, name,
					 r->expr, want);
			free(want);
			free(item);
			item = NULL;
			matched++;
		}
		if (!line)
			break;
		if (!strncmp(line, "- ", 2)) {
			f = open_memstream(&item, &item_len);
			assert_non_null(f);
			fputs(line, f);
		}
	}
	if (matched != alerts)
		fail_msg("%s has %zu alerts, docs/metrics.md's list %zu", RULES, alerts, matched);
	free_rules(rules, n);
	free(doc);
}

/* ---- the dashboard -------------------------------------------------------- */

/* What Grafana would put for its variables; any instance will do here. */
static const struct grafana_var dashboard_vars[] = {
	{ "instance", "127.0.0.1:1" }, { "__rate_interval", "1m" }, { "__interval", "15s" },
	{ "__range", "1h" }, { NULL, NULL },
};

static json_t *load_dashboard(void)
{
	json_error_t err;
	json_t *dash = json_load_file(top_path(DASHBOARD), 0, &err);

	if (!dash)
		fail_msg("%s:%d: %s", DASHBOARD, err.line, err.text);
	return dash;
}

/* "${datasource}": where a panel or target asks for its data. */
static void assert_datasource(json_t *ds, const char *what)
{
	const char *uid = json_string_value(json_object_get(ds, "uid"));
	const char *type = json_string_value(json_object_get(ds, "type"));

	if (!uid || strcmp(uid, "${datasource}") || !type || strcmp(type, "prometheus"))
		fail_msg("%s: datasource is not {\"type\": \"prometheus\", \"uid\": "
			 "\"${datasource}\"}", what);
}

/*
 * The dashboard Grafana would import: a data source variable for
 * Prometheus, an instance variable, unique panel ids, every panel on the
 * 24-column grid, and each panel that is no row asking ${datasource} in
 * itself and in every target.
 */
static void the_dashboard_is_well_formed(void **state)
{
	json_t *dash = load_dashboard(), *v, *p;
	bool have_ds = false, have_instance = false;
	long long ids[256];
	size_t i, nids = 0, queries = 0;

	(void)state;
	assert_true(json_integer_value(json_object_get(dash, "schemaVersion")) >= 36);
	assert_non_null(json_string_value(json_object_get(dash, "title")));
	assert_non_null(json_string_value(json_object_get(dash, "uid")));
	json_array_foreach(json_object_get(json_object_get(dash, "templating"), "list"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *type = json_string_value(json_object_get(v, "type"));

		if (name && !strcmp(name, "datasource")) {
			assert_string_equal(type, "datasource");
			assert_string_equal(json_string_value(json_object_get(v, "query")),
					    "prometheus");
			have_ds = true;
		}
		if (name && !strcmp(name, "instance")) {
			assert_string_equal(type, "query");
			assert_datasource(json_object_get(v, "datasource"), "variable instance");
			have_instance = true;
		}
	}
	assert_true(have_ds);
	assert_true(have_instance);
	json_array_foreach(json_object_get(dash, "panels"), i, p) {
		const char *title = json_string_value(json_object_get(p, "title"));
		const char *type = json_string_value(json_object_get(p, "type"));
		json_t *g = json_object_get(p, "gridPos"), *t;
		long long id = json_integer_value(json_object_get(p, "id"));
		size_t j;

		assert_non_null(title);
		assert_non_null(type);
		for (size_t k = 0; k < nids; k++)
			if (ids[k] == id)
				fail_msg("panel \"%s\": id %lld used twice", title, id);
		assert_true(nids < 256);
		ids[nids++] = id;
		if (!json_is_object(g) ||
		    json_integer_value(json_object_get(g, "x")) +
			    json_integer_value(json_object_get(g, "w")) > 24 ||
		    json_integer_value(json_object_get(g, "h")) < 1)
			fail_msg("panel \"%s\": gridPos off the 24-column grid", title);
		if (!strcmp(type, "row"))
			continue;
		assert_datasource(json_object_get(p, "datasource"), title);
		if (!json_array_size(json_object_get(p, "targets")))
			fail_msg("panel \"%s\" has no query", title);
		json_array_foreach(json_object_get(p, "targets"), j, t) {
			assert_datasource(json_object_get(t, "datasource"), title);
			queries++;
		}
	}
	print_message("  %zu panels, %zu queries\n", nids, queries);
	json_decref(dash);
}

/*
 * Every query of the dashboard, variables replaced, parses: promtool check
 * rules accepts them all, each as a recording rule.
 */
static void every_dashboard_query_parses(void **state)
{
	const char *tool = need_promtool();
	char *argv[] = { (char *)tool, "check", "rules", (char *)tmp_path("dashboard.rules.yml"),
			 NULL };
	json_t *dash = load_dashboard();
	struct grafana_query *qs;
	size_t n = grafana_queries(dash, dashboard_vars, &qs), len = 0;
	char *rules = NULL, want[64];
	FILE *f = open_memstream(&rules, &len);

	(void)state;
	assert_non_null(f);
	assert_true(n > 0);
	fputs("groups:\n  - name: dashboard\n    rules:\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "      - record: dashboard_query_%zu\n        expr: |\n          ", i);
		for (const char *c = qs[i].expr; *c; c++)
			fputs(*c == '\n' ? "\n          " : (char[]){ *c, 0 }, f);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	write_file(argv[3], rules, len);
	snprintf(want, sizeof(want), "SUCCESS: %zu rules found", n);
	if (run_capture(argv) != 0 || !strstr(out_text, want))
		fail_msg("promtool check rules %s (expected \"%s\"):\n%s%s\n%s", argv[3], want,
			 out_text, err_text, rules);
	print_message("  %zu queries parse\n", n);
	free(rules);
	grafana_free_queries(qs, n);
	json_decref(dash);
}

/*
 * Each metric a dashboard query reads is one docs/metrics.md documents
 * (permscope_*, and the daemon's process_*: test_prom checks the page
 * against what is exported), a recording rule of the rules file, or one
 * Prometheus makes itself (any other name before `{`: up,
 * scrape_duration_seconds); every panel query keeps to the instances the
 * $instance variable picked.
 */
static void the_dashboard_reads_only_documented_metrics(void **state)
{
	static const char *const prometheus_own[] = { "up", "scrape_duration_seconds", NULL };
	static const char *const suffixes[] = { "_bucket", "_sum", "_count", NULL };
	const struct grafana_var vars[] = { { "instance", "$instance" },
					    { "__rate_interval", "1m" },
					    { "__interval", "15s" },
					    { "__range", "1h" },
					    { NULL, NULL } };
	char *doc = read_top("docs/metrics.md");
	json_t *dash = load_dashboard();
	struct grafana_query *qs;
	struct rule *rules;
	size_t n = grafana_queries(dash, vars, &qs), nrules = read_rules(&rules), names = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *e = qs[i].expr;

		if (strncmp(qs[i].panel, "variable ", 9) && !strstr(e, "instance=~\"$instance\""))
			fail_msg("panel \"%s\" %s does not keep to instance=~\"$instance\":\n  %s",
				 qs[i].panel, qs[i].ref, e);
		for (const char *c = e; *c; c++) {
			size_t len = strspn(c, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
			char name[128], row[160];
			bool known = false;

			if (!len || (c > e && (isalnum((unsigned char)c[-1]) || c[-1] == '_')) ||
			    len >= sizeof(name)) {
				c += len ? len - 1 : 0;
				continue;
			}
			snprintf(name, sizeof(name), "%.*s", (int)len, c);
			c += len - 1;
			if (!strncmp(name, "permscope_", 10) || !strncmp(name, "process_", 8)) {
				for (int k = 0; suffixes[k]; k++) {
					size_t sl = strlen(suffixes[k]), nl = strlen(name);

					if (nl > sl && !strcmp(name + nl - sl, suffixes[k]))
						name[nl - sl] = 0;
				}
				snprintf(row, sizeof(row), "\n- `%s` (", name);
				known = strstr(doc, row) != NULL;
			} else if (!strncmp(name, "permscope:", 10)) {
				known = find_rule(rules, nrules, name) != NULL;
			} else if (c[1] == '{') {
				for (int k = 0; prometheus_own[k]; k++)
					known |= !strcmp(name, prometheus_own[k]);
			} else {
				continue; /* a function, a keyword, a label */
			}
			if (!known)
				fail_msg("panel \"%s\" %s reads %s, which is no documented metric:\n  %s",
					 qs[i].panel, qs[i].ref, name, e);
			names++;
		}
	}
	print_message("  %zu metric names in %zu queries, each documented\n", names, n);
	free_rules(rules, nrules);
	grafana_free_queries(qs, n);
	json_decref(dash);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(promtool_checks_the_rules),
		cmocka_unit_test(promtool_unit_tests_cover_every_rule),
		cmocka_unit_test(the_recording_rules_are_the_docs_derived_values),
		cmocka_unit_test(the_docs_alerts_are_the_rules_alerts),
		cmocka_unit_test(the_dashboard_is_well_formed),
		cmocka_unit_test(every_dashboard_query_parses),
		cmocka_unit_test(the_dashboard_reads_only_documented_metrics),
	};

	return cmocka_run_group_tests_name("contrib", tests, tmpdir_setup, tmpdir_teardown);
}
