// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The schema (src/schema.c) is the one description of every counter: these
 * tests prove that each of its rows reaches every output — the profile (and
 * back), the report as JSON and CSV, and the metric namespace of compare
 * and gate — so a counter added to the schema cannot be forgotten by one of
 * them, and that a profile written before a counter existed reads it as
 * absent, never as 0 (docs/profile-format.md, "Compatibility").
 */
#include <linux/types.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>

#include "metrics.h"
#include "profile.h"
#include "render.h"
#include "rules.h"
#include "schema.h"
#include "verdict.h"

#define FS "tmpfs"

/*
 * A profile where every family recorded and every counter holds its own
 * value (outcome latencies consistent with their call counts).
 */
static void full_profile(struct profile *p)
{
	__u64 v = 1000;

	profile_init(p);
	strcpy(p->kernel_release, "6.18.0-schema");
	p->start_ns = 1000000000ULL * 1800000000ULL;
	p->end_ns = p->start_ns + 1000000000ULL;
	assert_non_null(profile_add_fs(p, FS));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];
		void *stats = profile_stats(p, f, 0);

		p->fam[f].status = FAMILY_OK;
		p->fam[f].mode = MODE_FENTRY;
		for (int i = 0; i < fs->nrows; i++) {
			const struct schema_row *r = &fs->rows[i];
			__u64 *c = schema_counter(r, stats);

			switch (r->kind) {
			case ROW_COUNT:
				*c = v += 7;
				break;
			case ROW_OUTCOME:
				*c = v += 7;
				schema_hist(r, stats)->slots[10] = *c;
				schema_hist(r, stats)->count = *c;
				schema_hist(r, stats)->sum = *c * 1500;
				break;
			case ROW_ERRNOS:
				c[ENOENT] = v += 7;
				break;
			default:
				break;
			}
		}
	}
}

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV };

static char *render(const struct profile *p, enum report_format kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	if (kind == REPORT_JSON)
		assert_int_equal(render_json(out, p), 0);
	else if (kind == REPORT_CSV)
		render_csv(out, p);
	else
		render_text(out, p, true);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);

	if (!j)
		fail_msg("not JSON: %s", e.text);
	return j;
}

/* The JSON object holding a family's rows: the family's, or its filesystem's. */
static json_t *family_object(json_t *root, enum family_id f)
{
	json_t *o = json_object_get(json_object_get(root, "families"), family_name(f));

	if (schema[f].per_fs)
		o = json_object_get(json_object_get(o, "per_fs"), FS);
	if (!json_is_object(o))
		fail_msg("no object for family %s", family_name(f));
	return o;
}

/* obj[group][name] or obj[name]. */
static json_t *row_member(json_t *obj, const struct schema_row *r)
{
	return json_object_get(r->group ? json_object_get(obj, r->group) : obj, r->name);
}

static void assert_number(json_t *v, double want, const char *where)
{
	if (!json_is_number(v))
		fail_msg("%s: missing or not a number", where);
	/* reports print 9 significant digits */
	if (fabs(json_number_value(v) - want) > 1e-8 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("%s: %.9g, expected %.9g", where, json_number_value(v), want);
}

static void every_row_is_in_the_profile_and_reads_back_the_same(void **state)
{
	struct profile p, q;
	char err[512] = "", where[128];
	char *text;
	json_t *root;

	(void)state;
	full_profile(&p);
	text = profile_to_json(&p);
	assert_non_null(text);
	root = parse(text);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];
		json_t *obj = family_object(root, f);
		const void *stats = profile_stats(&p, f, 0);

		for (int i = 0; i < fs->nrows; i++) {
			const struct schema_row *r = &fs->rows[i];
			json_t *v;

			snprintf(where, sizeof(where), "profile %s.%s", fs->name, r->name);
			switch (r->kind) {
			case ROW_COUNT:
				assert_number(row_member(obj, r), *schema_counter(r, stats), where);
				break;
			case ROW_OUTCOME:
				v = json_object_get(json_object_get(obj, "outcomes"), r->name);
				assert_number(json_object_get(v, "calls"), *schema_counter(r, stats), where);
				assert_number(json_object_get(json_object_get(v, "latency"), "count"),
					      *schema_counter(r, stats), where);
				break;
			case ROW_ERRNOS:
				assert_number(json_object_get(row_member(obj, r), "ENOENT"),
					      schema_counter(r, stats)[ENOENT], where);
				break;
			default: /* derived: not stored */
				if (row_member(obj, r))
					fail_msg("%s: a derived value is stored in the profile", where);
			}
		}
	}
	json_decref(root);
	if (profile_from_json(text, &q, err, sizeof(err)))
		fail_msg("reading it back: %s", err);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		assert_int_equal(q.absent[f], 0);
		assert_int_equal(profile_nstats(&q, f), profile_nstats(&p, f));
		assert_memory_equal(profile_stats(&q, f, 0), profile_stats(&p, f, 0),
				    schema[f].stats_size);
	}
	free(text);
	profile_free(&q);
	profile_free(&p);
}

static void every_row_is_in_the_report_json_and_csv(void **state)
{
	struct profile p;
	char *json, *csv, where[128], line[160], key[64], value[48];
	json_t *root;

	(void)state;
	full_profile(&p);
	json = render(&p, REPORT_JSON);
	csv = render(&p, REPORT_CSV);
	root = parse(json);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];
		json_t *obj = family_object(root, f);
		const void *stats = profile_stats(&p, f, 0);
		const char *subject = fs->per_fs ? FS : "all";

		for (int i = 0; i < fs->nrows; i++) {
			const struct schema_row *r = &fs->rows[i];

			snprintf(where, sizeof(where), "report JSON %s.%s", fs->name, r->name);
			if (r->kind == ROW_ERRNOS) {
				assert_number(json_object_get(row_member(obj, r), "ENOENT"),
					      schema_counter(r, stats)[ENOENT], where);
				snprintf(line, sizeof(line), "\n%s,ENOENT,errno_calls,%llu\n", fs->name,
					 (unsigned long long)schema_counter(r, stats)[ENOENT]);
			} else {
				assert_number(row_member(obj, r), schema_value(fs, i, stats), where);
				snprintf(value, sizeof(value), r->kind == ROW_RATIO ? "%.6f" : "%.0f",
					 schema_value(fs, i, stats));
				if (r->kind == ROW_OUTCOME)
					snprintf(line, sizeof(line), "\n%s,%s,calls,%s\n", fs->name,
						 r->name, value);
				else
					snprintf(line, sizeof(line), "\n%s,%s,%s,%s\n", fs->name, subject,
						 schema_row_key(r, key, sizeof(key)), value);
			}
			if (!strstr(csv, line))
				fail_msg("CSV lacks the line %s", line + 1);
		}
	}
	json_decref(root);
	free(json);
	free(csv);
	profile_free(&p);
}

static void every_row_but_errno_counts_is_a_metric(void **state)
{
	struct profile p;
	struct metric_list l;
	char name[METRIC_NAME_LEN], key[64];

	(void)state;
	full_profile(&p);
	assert_int_equal(metrics_collect(&p, &l), 0);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];

		for (int i = 0; i < fs->nrows; i++) {
			const struct schema_row *r = &fs->rows[i];
			const struct metric *m;

			if (r->kind == ROW_ERRNOS)
				continue;
			snprintf(name, sizeof(name), "%s.%s%s", fs->name,
				 schema_row_key(r, key, sizeof(key)), fs->per_fs ? "[" FS "]" : "");
			m = metrics_find(&l, name);
			if (!m)
				fail_msg("no metric %s", name);
			assert_true(m->value == schema_value(fs, i, profile_stats(&p, f, 0)));
			assert_true(metric_name_valid(name));
			if (r->kind == ROW_OUTCOME) {
				snprintf(name, sizeof(name), "%s.%s.latency.p50", fs->name, r->name);
				if (!metrics_find(&l, name))
					fail_msg("no metric %s", name);
			}
		}
	}
	metrics_free(&l);
	profile_free(&p);
}

static void compare_shows_only_metrics_that_exist(void **state)
{
	char name[METRIC_NAME_LEN];

	(void)state;
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (const char *const *m = schema[f].compare_shown; *m; m++) {
			size_t len = strlen(*m);

			snprintf(name, sizeof(name), "%s", *m);
			if (len > 2 && !strcmp(*m + len - 2, "[]"))
				snprintf(name + len - 2, sizeof(name) - (len - 2), "[%s]", FS);
			if (!metric_name_valid(name))
				fail_msg("compare shows %s, which is no metric", *m);
			assert_int_equal(metric_family(name), f);
		}
}

/* report --help lists every counter with the first words of its meaning. */
static void help_describes_every_row(void **state)
{
	char *help = schema_describe(), key[64], want[128];

	(void)state;
	assert_non_null(help);
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < schema[f].nrows; i++) {
			const struct schema_row *r = &schema[f].rows[i];

			if (r->kind == ROW_ERRNOS)
				continue;
			snprintf(want, sizeof(want), "\n  %-25s %.20s", schema_row_key(r, key, sizeof(key)),
				 r->meaning);
			if (!strstr(help, want))
				fail_msg("--help lacks \"%s\" in:\n%s", want + 1, help);
		}
	free(help);
}

static void rows_have_one_name_and_a_meaning_each(void **state)
{
	char a[64], b[64];

	(void)state;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];

		assert_true(fs->nrows <= 32); /* absent and terms masks are 32 bits */
		assert_int_equal(family_by_name(fs->name), f);
		for (int i = 0; i < fs->nrows; i++) {
			assert_non_null(fs->rows[i].meaning);
			assert_true(strlen(fs->rows[i].meaning) > 0);
			assert_int_equal(schema_row_index(f, schema_row_key(&fs->rows[i], a, sizeof(a))), i);
			for (int j = 0; j < i; j++)
				if (!strcmp(schema_row_key(&fs->rows[i], a, sizeof(a)),
					    schema_row_key(&fs->rows[j], b, sizeof(b))))
					fail_msg("%s: two rows named %s", fs->name, a);
		}
	}
}

/*
 * The descriptors hold together: every row slot of the enum-indexed arrays
 * filled (a forgotten row has no name), the events and drops rows in range
 * and of the right kind, a filled row computed only from rows that are
 * ready before it, and the names in compile-time texts the schema's.
 */
static void descriptors_leave_nothing_to_a_default(void **state)
{
	char names[128] = "", *tok, *save = NULL;
	int f = 0, m = MODE_NONE + 1;

	(void)state;
	for (f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];

		assert_int_equal(fs->id, f);
		assert_non_null(fs->name);
		assert_true(fs->events >= 0 && fs->events < fs->nrows);
		assert_true(fs->drops == NO_ROW || (fs->drops >= 0 && fs->drops < fs->nrows));
		for (int i = 0; i < fs->nrows; i++) {
			const struct schema_row *r = &fs->rows[i];

			if (!r->name)
				fail_msg("%s: row %d has no name: a hole in its enum's array", fs->name, i);
			if (r->fill == FILL_NONE)
				continue;
			assert_int_equal(r->kind, ROW_COUNT);
			for (int j = 0; j < fs->nrows; j++)
				if (((r->terms | r->whole) >> j & 1) && fs->rows[j].fill && j >= i)
					fail_msg("%s.%s is filled from %s, filled after it", fs->name,
						 r->name, fs->rows[j].name);
		}
	}
	snprintf(names, sizeof(names), "%s", FAMILY_NAMES);
	for (f = 0, tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save), f++)
		assert_int_equal(family_by_name(tok), f);
	assert_int_equal(f, FAMILY_COUNT);
	snprintf(names, sizeof(names), "%s", MODE_NAMES);
	for (save = NULL, tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save), m++)
		assert_int_equal(mode_by_name(tok), m);
	assert_int_equal(m, MODE_COUNT);
	/* the words between the names: ", " and the last one's */
	assert_string_equal(mode_names_text(names, sizeof(names), "or"), "fentry, kprobe or tracepoint");
	assert_string_equal(mode_names_text(names, sizeof(names), NULL), "fentry, kprobe, tracepoint");
	{
		char want[128] = "";
		size_t len = 0;

		for (f = 0; f < FAMILY_COUNT; f++)
			len += snprintf(want + len, sizeof(want) - len, "%s%s", f == 0 ? "" :
					f + 1 < FAMILY_COUNT ? ", " : " and ", schema[f].name);
		assert_string_equal(family_names_text(names, sizeof(names), "and"), want);
	}
}

/* Each family's stats are its own: distinct places of the right size in a profile. */
static void every_family_has_its_own_place_in_a_profile(void **state)
{
	struct profile p = { 0 };
	struct fs_result fs = { .name = "tmpfs" };

	(void)state;
	p.fs = &fs;
	p.nfs = 1;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const char *a = profile_stats(&p, f, 0);

		for (int g = 0; g < f; g++) {
			const char *b = profile_stats(&p, g, 0);

			if (a < b + schema[g].stats_size && b < a + schema[f].stats_size)
				fail_msg("the stats of %s and %s overlap", schema[f].name, schema[g].name);
		}
	}
}

/* The counts the programs leave out, from the ones they keep. */
static void filled_rows_are_computed_from_their_terms(void **state)
{
	struct lookup_stats s = { .did_skip = 7, .ip_calls = 10 };

	(void)state;
	s.origin[LOOKUP_ORIGIN_WALK] = 12;
	s.origin[LOOKUP_ORIGIN_CHDIR] = 3;
	s.origin[LOOKUP_ORIGIN_MASK] = 1;
	schema_fill(&schema[FAMILY_LOOKUP], &s);
	assert_int_equal(s.checks, 16);
	assert_int_equal(s.nested, 9);
	assert_int_equal(s.no_lsm_check, 1);
	/* A difference never wraps: more skips than checks read as 0 nested. */
	s.did_skip = 40;
	schema_fill(&schema[FAMILY_LOOKUP], &s);
	assert_int_equal(s.nested, 0);
	assert_int_equal(s.no_lsm_check, 10);
}

/* Delete obj.path (dotted) from a profile's JSON text; the new text. */
static char *without(const char *text, const char *parent, const char *key)
{
	json_t *root = parse(text), *o = root;
	char buf[128], *seg, *save = NULL, *out;

	snprintf(buf, sizeof(buf), "%s", parent);
	for (seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save))
		o = json_object_get(o, seg);
	assert_int_equal(json_object_del(o, key), 0);
	out = json_dumps(root, JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}

static void a_counter_missing_from_an_older_profile_is_absent_not_zero(void **state)
{
	struct profile p, q;
	struct metric_list l;
	char err[512] = "", *text, *t2, *t3, *json, *csv, *txt;
	int eaccess = schema_row_index(FAMILY_ACCESS, "eaccess");
	int did = schema_row_index(FAMILY_LOOKUP, "did_skip");
	json_t *root;

	(void)state;
	full_profile(&p);
	text = profile_to_json(&p);
	t2 = without(text, "families.access", "eaccess");
	t3 = without(t2, "families.lookup.per_fs." FS, "did_skip");
	if (profile_from_json(t3, &q, err, sizeof(err)))
		fail_msg("a profile without two counters: %s", err);
	assert_int_equal(q.absent[FAMILY_ACCESS], 1U << eaccess);
	assert_int_equal(q.absent[FAMILY_LOOKUP], 1U << did);

	/* Not a metric, and neither is a ratio over it; the rest are there. */
	assert_int_equal(metrics_collect(&q, &l), 0);
	assert_null(metrics_find(&l, "access.eaccess"));
	assert_null(metrics_find(&l, "lookup.did_skip[" FS "]"));
	assert_null(metrics_find(&l, "lookup.did_skip_ratio"));
	assert_non_null(metrics_find(&l, "lookup.would_skip_ratio"));
	assert_non_null(metrics_find(&l, "access.avoidable_per_call"));
	metrics_free(&l);
	/* ...and gate can tell "predates the counter" from "no such metric". */
	assert_true(metric_absent(&q, "access.eaccess"));
	assert_true(metric_absent(&q, "lookup.did_skip_ratio[" FS "]"));
	assert_false(metric_absent(&q, "access.fast"));
	assert_false(metric_absent(&q, "access.latency.p50"));
	assert_false(metric_absent(&p, "access.eaccess"));

	/* Reports say so: null in JSON, an empty CSV value, "-" in text. */
	json = render(&q, REPORT_JSON);
	root = parse(json);
	assert_true(json_is_null(json_object_get(family_object(root, FAMILY_ACCESS), "eaccess")));
	assert_true(json_is_null(json_object_get(family_object(root, FAMILY_LOOKUP),
						 "did_skip_ratio")));
	json_decref(root);
	csv = render(&q, REPORT_CSV);
	assert_non_null(strstr(csv, "\naccess,all,eaccess,\n"));
	assert_non_null(strstr(csv, "\nlookup," FS ",did_skip_ratio,\n"));
	txt = render(&q, REPORT_TEXT);
	assert_non_null(strstr(txt, "calls with AT_EACCESS (never need an override): -\n"));

	/* gate gives a rule on it no verdict, and judges the rest. */
	{
		static const char text[] = "access.eaccess == 0\naccess.unsafe >= 0\n";
		struct rule_set rs;
		struct rule_result res;
		char *errors = NULL;

		assert_int_equal(rules_parse(text, strlen(text), "t.rules", &rs, &errors), 0);
		assert_int_equal(rule_evaluate(&rs.r[0], &q, &p, &res, err, sizeof(err)), 0);
		assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
		assert_string_equal(res.reason, "the base profile predates the counter behind "
				    "access.eaccess");
		assert_int_equal(rule_evaluate(&rs.r[0], &q, &q, &res, err, sizeof(err)), 0);
		assert_string_equal(res.reason, "the base and new profiles predate the counter "
				    "behind access.eaccess");
		assert_int_equal(rule_evaluate(&rs.r[1], &q, &p, &res, err, sizeof(err)), 0);
		assert_int_equal(res.verdict, VERDICT_PASS);
		rules_free(&rs);
	}

	/* Written again (merge does), it stays absent. */
	free(text);
	text = profile_to_json(&q);
	profile_free(&q);
	assert_int_equal(profile_from_json(text, &q, err, sizeof(err)), 0);
	assert_int_equal(q.absent[FAMILY_ACCESS], 1U << eaccess);

	free(json);
	free(csv);
	free(txt);
	free(t2);
	free(t3);
	free(text);
	profile_free(&q);
	profile_free(&p);
}

/*
 * A recording made with --lean: what it left out is absent (the metrics, the
 * profile's keys), the profile says it was lean, and gate says that is why,
 * not that the profile is old.
 */
static void what_lean_left_out_is_absent_and_said_to_be(void **state)
{
	static const char rules[] = "lookup.ip_calls >= 0\nlookup.did_skip >= 0\n";
	uint32_t left_out = 1U << L_IP_CALLS | 1U << L_NO_LSM_CHECK | 1U << L_FIRST_CHECK;
	struct profile p, q;
	struct metric_list l;
	struct rule_set rs;
	struct rule_result res;
	char err[512] = "", *text, *errors = NULL;
	json_t *root, *lookup;

	(void)state;
	full_profile(&p);
	full_profile(&q);
	q.fam[FAMILY_LOOKUP].lean = true;
	q.absent[FAMILY_LOOKUP] = left_out;
	text = profile_to_json(&q);
	root = parse(text);
	lookup = json_object_get(json_object_get(root, "families"), "lookup");
	assert_true(json_is_true(json_object_get(lookup, "lean")));
	assert_null(json_object_get(json_object_get(json_object_get(lookup, "per_fs"), FS),
				    "ip_calls"));
	assert_non_null(json_object_get(json_object_get(json_object_get(lookup, "per_fs"), FS),
					"did_skip"));
	json_decref(root);
	profile_free(&q);
	if (profile_from_json(text, &q, err, sizeof(err)))
		fail_msg("a lean profile: %s", err);
	free(text);
	assert_true(q.fam[FAMILY_LOOKUP].lean);
	assert_false(p.fam[FAMILY_LOOKUP].lean);
	assert_int_equal(q.absent[FAMILY_LOOKUP], left_out);
	assert_int_equal(metrics_collect(&q, &l), 0);
	assert_null(metrics_find(&l, "lookup.ip_calls"));
	assert_null(metrics_find(&l, "lookup.no_lsm_check[" FS "]"));
	assert_null(metrics_find(&l, "lookup.first_check"));
	assert_non_null(metrics_find(&l, "lookup.did_skip_ratio"));
	metrics_free(&l);

	assert_int_equal(rules_parse(rules, strlen(rules), "t.rules", &rs, &errors), 0);
	assert_int_equal(rule_evaluate(&rs.r[0], &p, &q, &res, err, sizeof(err)), 0);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_string_equal(res.reason, "the new profile lacks the counter behind "
			    "lookup.ip_calls (recorded with --lean)");
	assert_int_equal(rule_evaluate(&rs.r[1], &p, &q, &res, err, sizeof(err)), 0);
	assert_int_equal(res.verdict, VERDICT_PASS);
	rules_free(&rs);
	profile_free(&q);

	/* access and exec: no latency, each outcome's is null; the calls are there */
	full_profile(&q);
	q.fam[FAMILY_ACCESS].lean = q.fam[FAMILY_ACCESS].no_latency = true;
	text = profile_to_json(&q);
	root = parse(text);
	assert_true(json_is_null(json_object_get(json_object_get(json_object_get(json_object_get(
		json_object_get(root, "families"), "access"), "outcomes"), "fast"), "latency")));
	json_decref(root);
	profile_free(&q);
	if (profile_from_json(text, &q, err, sizeof(err)))
		fail_msg("a lean access family: %s", err);
	free(text);
	assert_true(q.fam[FAMILY_ACCESS].no_latency);
	assert_false(q.fam[FAMILY_EXEC].no_latency);
	assert_int_equal(q.access.calls[ACCESS_FAST], p.access.calls[ACCESS_FAST]);
	assert_int_equal(q.access.latency[ACCESS_FAST].count, 0);
	assert_int_equal(metrics_collect(&q, &l), 0);
	assert_null(metrics_find(&l, "access.latency.p50"));
	assert_null(metrics_find(&l, "access.fast.latency.p99"));
	assert_non_null(metrics_find(&l, "access.fast"));
	assert_non_null(metrics_find(&l, "exec.latency.p50"));
	metrics_free(&l);
	assert_true(metric_absent(&q, "access.latency.p50"));
	assert_true(metric_absent(&q, "access.needed.latency.mean"));
	assert_false(metric_absent(&q, "access.fast"));
	{
		static const char lat[] = "access.latency.p50 <= base * 1.1\n";

		assert_int_equal(rules_parse(lat, strlen(lat), "t.rules", &rs, &errors), 0);
		assert_int_equal(rule_evaluate(&rs.r[0], &q, &p, &res, err, sizeof(err)), 0);
		assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
		assert_string_equal(res.reason, "the base profile lacks the counter behind "
				    "access.latency.p50 (recorded with --lean)");
		rules_free(&rs);
	}
	/* report: "not measured" in text, null in JSON, an empty CSV value */
	text = render(&q, REPORT_TEXT);
	assert_non_null(strstr(text, "access latency: not measured (recorded with --lean)"));
	assert_null(strstr(text, "access latency, outcome"));
	free(text);
	text = render(&q, REPORT_JSON);
	root = parse(text);
	assert_true(json_is_true(json_object_get(family_object(root, FAMILY_ACCESS), "lean")));
	assert_true(json_is_null(json_object_get(json_object_get(family_object(root, FAMILY_ACCESS),
								 "latency"), "fast")));
	json_decref(root);
	free(text);
	text = render(&q, REPORT_CSV);
	assert_non_null(strstr(text, "\naccess,fast,latency_sum_ns,\n"));
	assert_null(strstr(text, "\nexec,ok,latency_sum_ns,\n"));
	free(text);
	profile_free(&q);
	profile_free(&p);
}

static void the_0x80_count_of_older_profiles_is_read_under_its_old_name(void **state)
{
	struct profile p, q;
	char err[512] = "", *text, *old;
	char *at;

	(void)state;
	full_profile(&p);
	p.fs[0].s.may_exec_opt_in = 4242;
	text = profile_to_json(&p);
	at = strstr(text, "\"may_exec_opt_in\"");
	assert_non_null(at);
	assert_true(asprintf(&old, "%.*s\"flag_v2\"%s", (int)(at - text), text,
			     at + strlen("\"may_exec_opt_in\"")) > 0);
	assert_int_equal(profile_from_json(old, &q, err, sizeof(err)), 0);
	assert_int_equal(q.absent[FAMILY_LOOKUP], 0);
	assert_int_equal(q.fs[0].s.may_exec_opt_in, 4242);
	free(old);
	free(text);
	profile_free(&q);
	profile_free(&p);
}

/*
 * Losses are read per family and kept: in the profile (and back), as the
 * metric FAMILY.lost, in every report format; gate judges no metric of a
 * family that lost events, unless a share is accepted.
 */
static void a_family_that_lost_events_says_so_everywhere(void **state)
{
	static const char text[] = "lookup.violations == 0\n";
	struct profile p, q;
	struct metric_list l;
	struct rule_set rs;
	struct rule_result res;
	char err[512] = "", *json, *errors = NULL, *txt, *csv;

	(void)state;
	full_profile(&p);
	p.fam[FAMILY_LOOKUP].lost_known = true;
	family_add_lost(&p.fam[FAMILY_LOOKUP], "fentry_security_inode_permission", 50);
	family_add_lost(&p.fam[FAMILY_LOOKUP], "call_site_unread", 0);
	json = profile_to_json(&p);
	assert_int_equal(profile_from_json(json, &q, err, sizeof(err)), 0);
	assert_true(q.fam[FAMILY_LOOKUP].lost_known);
	assert_int_equal(q.fam[FAMILY_LOOKUP].nlost, 2);
	assert_int_equal(family_lost_total(&q.fam[FAMILY_LOOKUP]), 50);
	assert_false(q.fam[FAMILY_ACCESS].lost_known);
	assert_true(metric_absent(&q, "access.lost"));
	assert_int_equal(metrics_collect(&q, &l), 0);
	assert_true(metrics_find(&l, "lookup.lost")->value == 50);
	assert_null(metrics_find(&l, "access.lost"));
	metrics_free(&l);
	txt = render(&q, REPORT_TEXT);
	assert_non_null(strstr(txt, "LOST: 50 events not counted (fentry_security_inode_permission 50)"));
	/* in fentry mode, where the loss comes from, the way out (folded lines joined) */
	{
		char *w = txt;

		for (const char *r = txt; *r; r++)
			if (!isspace((unsigned char)*r) || (w > txt && w[-1] != ' '))
				*w++ = isspace((unsigned char)*r) ? ' ' : *r;
		*w = 0;
	}
	assert_non_null(strstr(txt, "--mode kprobe counts every call, at a higher cost"));
	csv = render(&q, REPORT_CSV);
	assert_non_null(strstr(csv, "\nlookup,fentry_security_inode_permission,lost,50\n"));

	assert_int_equal(rules_parse(text, strlen(text), "t.rules", &rs, &errors), 0);
	assert_int_equal(rule_evaluate(&rs.r[0], &p, &q, &res, err, sizeof(err)), 0);
	assert_int_equal(res.verdict, VERDICT_NO_VERDICT);
	assert_non_null(strstr(res.reason, "the base profile lost 50 events of the lookup family"));
	/* accepted: 50 of checks + 50 is well under a half */
	rs.r[0].accept_loss = 0.5;
	assert_int_equal(rule_evaluate(&rs.r[0], &p, &q, &res, err, sizeof(err)), 0);
	assert_int_not_equal(res.verdict, VERDICT_NO_VERDICT);
	rules_free(&rs);
	/* merge adds the losses up; a side that did not read them makes them unknown */
	assert_int_equal(profile_add(&q, &p), 0);
	assert_int_equal(family_lost_total(&q.fam[FAMILY_LOOKUP]), 100);
	p.fam[FAMILY_LOOKUP].lost_known = false;
	assert_int_equal(profile_add(&q, &p), 0);
	assert_false(q.fam[FAMILY_LOOKUP].lost_known);
	assert_true(metric_absent(&q, "lookup.lost"));
	free(json);
	free(txt);
	free(csv);
	profile_free(&q);
	profile_free(&p);
}

/*
 * A reading taken while a program counts an event can hold it in its call
 * counter but not its bucket, or the other way round: settled, calls and
 * the histogram's count follow the buckets, which the profile reader checks.
 */
static void a_reading_caught_mid_event_is_settled_by_its_buckets(void **state)
{
	struct access_stats a = { 0 };
	struct exec_stats e = { 0 };

	(void)state;
	a.calls[ACCESS_FAST] = 5;                /* the 6th event: its call counted... */
	a.latency[ACCESS_FAST].slots[3] = 6;     /* ...and its bucket... */
	a.latency[ACCESS_FAST].count = 5;        /* ...not yet its count */
	a.calls[ACCESS_NEEDED] = 2;              /* a bucket before its call */
	a.latency[ACCESS_NEEDED].slots[9] = 3;
	a.latency[ACCESS_NEEDED].count = 3;
	a.eaccess = 7;
	schema_settle(&schema[FAMILY_ACCESS], &a, true);
	assert_int_equal(a.calls[ACCESS_FAST], 6);
	assert_int_equal(a.latency[ACCESS_FAST].count, 6);
	assert_int_equal(a.calls[ACCESS_NEEDED], 3);
	assert_int_equal(a.latency[ACCESS_NEEDED].count, 3);
	assert_int_equal(a.eaccess, 7); /* counters of their own are left alone */

	e.calls[EXEC_OK] = 1;
	schema_settle(&schema[FAMILY_EXEC], &e, true);
	assert_int_equal(e.calls[EXEC_OK], 0);

	/* --lean counts no histogram: the calls stand, the histograms stay 0 */
	e.calls[EXEC_OK] = 4;
	e.latency[EXEC_OK].slots[2] = 1;
	schema_settle(&schema[FAMILY_EXEC], &e, false);
	assert_int_equal(e.calls[EXEC_OK], 4);
	assert_int_equal(e.latency[EXEC_OK].slots[2], 0);
	assert_int_equal(e.latency[EXEC_OK].count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_reading_caught_mid_event_is_settled_by_its_buckets),
		cmocka_unit_test(every_row_is_in_the_profile_and_reads_back_the_same),
		cmocka_unit_test(every_row_is_in_the_report_json_and_csv),
		cmocka_unit_test(every_row_but_errno_counts_is_a_metric),
		cmocka_unit_test(compare_shows_only_metrics_that_exist),
		cmocka_unit_test(rows_have_one_name_and_a_meaning_each),
		cmocka_unit_test(descriptors_leave_nothing_to_a_default),
		cmocka_unit_test(every_family_has_its_own_place_in_a_profile),
		cmocka_unit_test(filled_rows_are_computed_from_their_terms),
		cmocka_unit_test(help_describes_every_row),
		cmocka_unit_test(a_counter_missing_from_an_older_profile_is_absent_not_zero),
		cmocka_unit_test(what_lean_left_out_is_absent_and_said_to_be),
		cmocka_unit_test(the_0x80_count_of_older_profiles_is_read_under_its_old_name),
		cmocka_unit_test(a_family_that_lost_events_says_so_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
