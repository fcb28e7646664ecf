// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Report rendering (src/render.c) of tests/unit/data/sample-profile.json,
 * compared byte for byte with tests/unit/golden/, plus facts checked
 * directly.  PERMSCOPE_UPDATE_GOLDEN=1 rewrites the golden files instead;
 * read the diff before committing them.
 */
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "testutil.h"

#include "profile.h"
#include "render.h"

static void load_sample(struct profile *p)
{
	char *path, err[512] = "";

	assert_true(asprintf(&path, "%s/sample-profile.json", testdata_dir()) > 0);
	if (profile_read(path, p, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	free(path);
}

enum render_kind { TEXT_FULL, TEXT_SUMMARY, JSON, CSV };

/* The rendered report as a malloc'ed string. */
static char *render(const struct profile *p, enum render_kind kind, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	switch (kind) {
	case TEXT_FULL: render_text(out, p, true); break;
	case TEXT_SUMMARY: render_text(out, p, false); break;
	case JSON: assert_int_equal(render_json(out, p), 0); break;
	case CSV: render_csv(out, p); break;
	}
	assert_int_equal(fclose(out), 0);
	if (lenp)
		*lenp = len;
	return buf;
}

/* ---- golden files ------------------------------------------------------- */

/* A jiffies clock is named in the text and the JSON: latencies not measured. */
static void coarse_clock_is_said_in_text_and_json(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	load_sample(&p);
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_not_contains(text, "clocksource");
	free(text);
	strcpy(p.clocksource, "refined-jiffies");
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text, "note: timed by the refined-jiffies clocksource");
	assert_contains(text, "counts are exact");
	free(text);
	text = render(&p, JSON, NULL);
	assert_contains(text, "\"clocksource\": \"refined-jiffies\"");
	assert_contains(text, "\"latency_trustworthy\": false");
	free(text);
	profile_free(&p);
}

/* A daemon's windowed family says, in text and JSON, what its counts are of. */
static void windowed_counts_say_what_they_watched(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	load_sample(&p);
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_not_contains(text, "counted in windows");
	free(text);
	p.fam[FAMILY_ACCESS].observed = (struct observation){ 200000000, 30000000000ULL,
							      600000000, 3, 0 };
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text, "[fentry]\n  counted in windows: 0.6 s in 3 windows of 0.2 s every 30 s\n");
	free(text);
	text = render(&p, JSON, NULL);
	assert_contains(text, "\"observed\": {\n        \"window_s\": 0.2,\n        \"period_s\": 30.0,");
	free(text);
	profile_free(&p);
}

static void check_golden(enum render_kind kind, const char *name)
{
	struct profile p;
	size_t len;
	char *text;

	load_sample(&p);
	text = render(&p, kind, &len);
	assert_golden(name, text, len);
	free(text);
	profile_free(&p);
}

static void full_text_report_matches_golden(void **state)
{
	(void)state;
	check_golden(TEXT_FULL, "report.txt");
}

static void text_summary_matches_golden(void **state)
{
	(void)state;
	check_golden(TEXT_SUMMARY, "summary.txt");
}

static void json_report_matches_golden(void **state)
{
	(void)state;
	check_golden(JSON, "report.json");
}

static void csv_report_matches_golden(void **state)
{
	(void)state;
	check_golden(CSV, "report.csv");
}

/* ---- facts checked directly -------------------------------------------- */

static json_t *render_parsed_json(const struct profile *p)
{
	json_error_t jerr;
	char *text = render(p, JSON, NULL);
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

	if (!root)
		fail_msg("render_json output is not JSON: line %d: %s", jerr.line, jerr.text);
	free(text);
	return root;
}

/* root.families.<name>, which must be an object */
static json_t *family(json_t *root, const char *name)
{
	json_t *v = json_object_get(json_object_get(root, "families"), name);

	if (!json_is_object(v))
		fail_msg("families.%s: not an object", name);
	return v;
}

static void assert_has_keys(json_t *obj, const char *where, const char *const *keys)
{
	for (; *keys; keys++)
		if (!json_object_get(obj, *keys))
			fail_msg("%s: no key \"%s\"", where, *keys);
}

static __u64 uint_at(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\": not an integer", key);
	return json_integer_value(v);
}

static void json_report_has_the_documented_keys_and_totals(void **state)
{
	static const char *const access_keys[] = {
		"mode", "calls", "needed", "avoidable", "fast", "unsafe", NULL,
	};
	static const char *const exec_keys[] = {
		"mode", "calls", "enoent", "enoent_early", "enoent_late", NULL,
	};
	static const char *const fs_keys[] = {
		"checks", "did_skip", "would_skip", "may_exec_opt_in", NULL,
	};
	struct profile p;
	json_t *root, *access, *exec, *per_fs, *tmpfs;

	(void)state;
	load_sample(&p);
	root = render_parsed_json(&p);
	assert_string_equal(json_string_value(json_object_get(root, "format")),
			    "permscope-report/1");

	access = family(root, "access");
	assert_has_keys(access, "families.access", access_keys);
	assert_string_equal(json_string_value(json_object_get(access, "mode")), "fentry");
	assert_int_equal(uint_at(access, "calls"), 38400 + 1520);
	assert_int_equal(uint_at(access, "fast"), 38400);

	exec = family(root, "exec");
	assert_has_keys(exec, "families.exec", exec_keys);
	assert_int_equal(uint_at(exec, "calls"), 212 + 1340 + 6);
	assert_int_equal(uint_at(exec, "enoent"), 1340); /* early + late */

	per_fs = json_object_get(family(root, "lookup"), "per_fs");
	tmpfs = json_object_get(per_fs, "tmpfs");
	assert_true(json_is_object(tmpfs));
	assert_has_keys(tmpfs, "families.lookup.per_fs.tmpfs", fs_keys);
	assert_int_equal(uint_at(tmpfs, "checks"), 48000);
	assert_true(json_real_value(json_object_get(tmpfs, "did_skip_ratio")) == 0.95);
	assert_string_equal(json_string_value(json_object_get(json_object_get(per_fs, "ext4"),
			    "main_ineligibility")), "not_opted_in");
	assert_string_equal(json_string_value(json_object_get(json_object_get(per_fs, "btrfs"),
			    "main_ineligibility")), "acl_not_cached");
	json_decref(root);
	profile_free(&p);
}

static void make_lookup_unavailable(struct profile *p)
{
	struct family_result *r = &p->fam[FAMILY_LOOKUP];

	memset(r, 0, sizeof(*r));
	r->status = FAMILY_UNAVAILABLE;
	r->nattempts = 2;
	r->attempts[0].mode = MODE_FENTRY;
	r->attempts[0].err = EPERM;
	strcpy(r->attempts[0].why, "load fentry_inode_permission: EPERM");
	r->attempts[1].mode = MODE_KPROBE;
	r->attempts[1].err = ENOENT;
	strcpy(r->attempts[1].why, "no kprobe PMU, no \"kprobe_events\"");
}

static void unavailable_lookup_renders_unavailable_with_a_reason(void **state)
{
	struct profile p;
	json_t *root, *lookup;
	const char *reason;
	char *text;

	(void)state;
	load_sample(&p);
	make_lookup_unavailable(&p);

	root = render_parsed_json(&p);
	lookup = family(root, "lookup");
	assert_string_equal(json_string_value(json_object_get(lookup, "mode")), "unavailable");
	reason = json_string_value(json_object_get(lookup, "reason"));
	assert_non_null(reason);
	assert_true(reason[0] != 0);
	assert_contains(reason, "load fentry_inode_permission: EPERM");
	assert_null(json_object_get(lookup, "per_fs"));
	json_decref(root);

	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text, "  unavailable: no attach mode worked on this kernel\n"
			      "    fentry     load fentry_inode_permission: EPERM\n");
	assert_not_contains(text, "tmpfs");
	free(text);
	profile_free(&p);
}

static void long_reason_is_folded_at_80_columns(void **state)
{
	struct profile p;
	char *text, *line, *save = NULL;

	(void)state;
	load_sample(&p);
	make_lookup_unavailable(&p);
	strcpy(p.fam[FAMILY_LOOKUP].attempts[1].why,
	       "attach kprobe_inode_permission: ENOENT; kprobes are not available here: "
	       "no kprobe PMU, no kprobe_events, and no tracefs mounted either");
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text,
		"    kprobe     attach kprobe_inode_permission: ENOENT; kprobes are not available\n"
		"               here: no kprobe PMU, no kprobe_events, and no tracefs mounted\n"
		"               either\n");
	/* the attempt lines, the only ones indented by 4 in the summary */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "    ", 4) == 0 && strlen(line) > 80)
			fail_msg("line of %zu columns: %s", strlen(line), line);
	free(text);
	profile_free(&p);
}

/*
 * A word that would end exactly at column 80 with its space goes to the
 * next line, under the first word, never glued to the word before it.
 */
static void folded_reason_wraps_a_word_that_would_end_at_column_80(void **state)
{
	struct profile p;
	char *text, why[80];

	(void)state;
	load_sample(&p);
	make_lookup_unavailable(&p);
	snprintf(why, sizeof(why), "%.55s %.10s",
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	strcpy(p.fam[FAMILY_LOOKUP].attempts[1].why, why);
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_not_contains(text, "abbbbbbbbbb");
	assert_contains(text, "    kprobe     aaaaa");
	assert_contains(text, "aaaaa\n               bbbbbbbbbb\n");
	free(text);
	profile_free(&p);
}

/*
 * Lookup checks the programs could not attribute (another tracer's return
 * probe hid the caller) get their own line with the reason, apart from the
 * LOST line of events not counted, and the JSON keeps them under "lost".
 */
static void unattributed_checks_are_said_apart_with_their_reason(void **state)
{
	struct profile p;
	char *text, *json, *line, *save = NULL;

	(void)state;
	load_sample(&p);
	p.fam[FAMILY_LOOKUP].lost_known = true;
	family_add_lost(&p.fam[FAMILY_LOOKUP], "unattributed_return_hook", 25023);
	family_add_lost(&p.fam[FAMILY_LOOKUP], "fentry_security_inode_permission", 7);
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text, "  UNATTRIBUTED: 25023 checks neither proven skipped nor proven full");
	assert_contains(text, "another tracer's return probe on");
	assert_contains(text, "(unattributed_return_hook)");
	assert_contains(text, "  LOST: 7 events not counted (fentry_security_inode_permission 7)");
	assert_null(strstr(text, "LOST: 25030"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 80)
			fail_msg("line of %zu columns: %s", strlen(line), line);
	json = render(&p, JSON, NULL);
	assert_contains(json, "\"unattributed_return_hook\": 25023");
	free(json);
	free(text);
	profile_free(&p);
}

static void not_requested_family_says_so(void **state)
{
	struct profile p;
	json_t *root;
	char *text;

	(void)state;
	load_sample(&p);
	memset(&p.fam[FAMILY_EXEC], 0, sizeof(p.fam[FAMILY_EXEC]));
	p.fam[FAMILY_EXEC].status = FAMILY_NOT_REQUESTED;

	root = render_parsed_json(&p);
	assert_string_equal(json_string_value(json_object_get(family(root, "exec"), "mode")),
			    "not_requested");
	json_decref(root);
	text = render(&p, CSV, NULL);
	assert_contains(text, "\nexec,,mode,not_requested\n");
	assert_not_contains(text, "\nexec,ok,");
	free(text);
	profile_free(&p);
}

static void csv_has_a_header_and_four_fields_a_row(void **state)
{
	struct profile p;
	char *text, *line, *save = NULL;
	int rows = 0;

	(void)state;
	load_sample(&p);
	text = render(&p, CSV, NULL);
	assert_true(strncmp(text, "family,subject,metric,value\n", 28) == 0);
	/* No field of the sample holds a comma: three separators a row. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int commas = 0;

		for (char *c = line; *c; c++)
			commas += *c == ',';
		if (commas != 3)
			fail_msg("CSV row with %d commas: %s", commas, line);
		rows++;
	}
	assert_true(rows > 1);
	free(text);
	profile_free(&p);
}

static void csv_quotes_a_field_with_a_comma_or_a_quote(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	load_sample(&p);
	make_lookup_unavailable(&p);
	text = render(&p, CSV, NULL);
	assert_contains(text, "\nlookup,,mode,unavailable\n");
	assert_contains(text, "\nlookup,fentry,why,load fentry_inode_permission: EPERM\n");
	/* RFC 4180: quoted, inner quotes doubled */
	assert_contains(text,
		"\nlookup,kprobe,why,\"no kprobe PMU, no \"\"kprobe_events\"\"\"\n");
	free(text);
	profile_free(&p);
}

static void text_lists_busiest_filesystem_first_with_its_main_reason(void **state)
{
	struct profile p;
	char *text, *ext4, *tmpfs, *btrfs;

	(void)state;
	load_sample(&p);
	text = render(&p, TEXT_SUMMARY, NULL);
	/* checks: ext4 120000 > tmpfs 48000 > btrfs 9000; not name order */
	ext4 = strstr(text, "\n  ext4 ");
	tmpfs = strstr(text, "\n  tmpfs ");
	btrfs = strstr(text, "\n  btrfs ");
	assert_non_null(ext4);
	assert_non_null(tmpfs);
	assert_non_null(btrfs);
	assert_true(ext4 < tmpfs && tmpfs < btrfs);
	assert_contains(ext4, "  not_opted_in (94.0%)\n");
	assert_contains(btrfs, "  acl_not_cached (7.5%)\n");
	/* the summary has no histograms */
	assert_not_contains(text, "distribution");
	free(text);
	profile_free(&p);
}

/* The header names every filter the recording had, each on its own line. */
static void header_names_the_filters(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	load_sample(&p);
	assert_string_equal(p.filter_cgroup, ""); /* the sample predates --cgroup */
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_not_contains(text, "only tasks");
	free(text);
	strcpy(p.filter_comm, "cc1");
	strcpy(p.filter_cgroup, "/sys/fs/cgroup/system.slice/build.service");
	text = render(&p, TEXT_SUMMARY, NULL);
	assert_contains(text, "(exit 0)\nonly tasks named 'cc1'\n"
			"only tasks in cgroup /sys/fs/cgroup/system.slice/build.service and below\n\n");
	free(text);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_text_report_matches_golden),
		cmocka_unit_test(coarse_clock_is_said_in_text_and_json),
		cmocka_unit_test(text_summary_matches_golden),
		cmocka_unit_test(json_report_matches_golden),
		cmocka_unit_test(csv_report_matches_golden),
		cmocka_unit_test(json_report_has_the_documented_keys_and_totals),
		cmocka_unit_test(unavailable_lookup_renders_unavailable_with_a_reason),
		cmocka_unit_test(long_reason_is_folded_at_80_columns),
		cmocka_unit_test(folded_reason_wraps_a_word_that_would_end_at_column_80),
		cmocka_unit_test(not_requested_family_says_so),
		cmocka_unit_test(unattributed_checks_are_said_apart_with_their_reason),
		cmocka_unit_test(csv_has_a_header_and_four_fields_a_row),
		cmocka_unit_test(csv_quotes_a_field_with_a_comma_or_a_quote),
		cmocka_unit_test(text_lists_busiest_filesystem_first_with_its_main_reason),
		cmocka_unit_test(header_names_the_filters),
		cmocka_unit_test(windowed_counts_say_what_they_watched),
	};

	setenv("LC_ALL", "C.UTF-8", 1); /* the golden text is a UTF-8 terminal's */
	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
