// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope compare on real profiles recorded in QEMU (tests/unit/data):
 * bookworm's 6.1 against sid's 7.2, access merged from three runs each
 * (statistics) and lookup on ext4 with an ACL'd directory (one run each).
 * Golden text and JSON, plus the facts they must show; HTML's structure.
 * PERMSCOPE_UPDATE_GOLDEN=1 rewrites the golden files.
 */
#include <jansson.h>
#include <math.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "compare.h"
#include "metrics.h"

struct pair {
	struct profile base, cur;
	struct compare c;
};

static void load_pair_with(struct pair *p, const char *what, enum stats_test test)
{
	char path[600], err[512];

	snprintf(path, sizeof(path), "%s/compare-%s-base.json", testdata_dir(), what);
	if (profile_read(path, &p->base, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	snprintf(path, sizeof(path), "%s/compare-%s-new.json", testdata_dir(), what);
	if (profile_read(path, &p->cur, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	memset(&p->c, 0, sizeof(p->c));
	p->c.base = &p->base;
	p->c.new = &p->cur;
	p->c.base_name = "bookworm.json";
	p->c.new_name = "sid.json";
	p->c.test = test;
	assert_int_equal(compare_build(&p->c), 0);
}

static void load_pair(struct pair *p, const char *what)
{
	load_pair_with(p, what, STATS_WELCH);
}

static void free_pair(struct pair *p)
{
	compare_free(&p->c);
	profile_free(&p->base);
	profile_free(&p->cur);
}

enum kind { TEXT, JSON, HTML };

static char *render(struct pair *p, enum kind k)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (k == TEXT)
		compare_text(f, &p->c);
	else if (k == JSON)
		compare_json(f, &p->c);
	else
		compare_html(f, &p->c);
	fclose(f);
	return buf;
}

static const struct compare_row *row(const struct pair *p, const char *name)
{
	for (size_t i = 0; i < p->c.nrows; i++)
		if (!strcmp(p->c.rows[i].name, name))
			return &p->c.rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static void access_text_matches_golden(void **state)
{
	struct pair p;
	char *t;

	(void)state;
	load_pair(&p, "access");
	t = render(&p, TEXT);
	assert_golden("compare-access.txt", t, strlen(t));
	free(t);
	free_pair(&p);
}

static void access_json_matches_golden(void **state)
{
	struct pair p;
	char *t;

	(void)state;
	load_pair(&p, "access");
	t = render(&p, JSON);
	assert_golden("compare-access.json", t, strlen(t));
	free(t);
	free_pair(&p);
}

static void lookup_text_matches_golden(void **state)
{
	struct pair p;
	char *t;

	(void)state;
	load_pair(&p, "lookup");
	t = render(&p, TEXT);
	assert_golden("compare-lookup.txt", t, strlen(t));
	free(t);
	free_pair(&p);
}

/* Three runs a side: the cred saving is significant, equal counts are not. */
static void runs_give_mean_sd_and_significance(void **state)
{
	const struct compare_row *r;
	struct pair p;

	(void)state;
	load_pair(&p, "access");
	r = row(&p, "access.avoidable_per_call");
	assert_int_equal(r->base.n, 3);
	assert_int_equal(r->new.n, 3);
	assert_true(r->base.mean == 1.0 && r->new.mean == 0.0);
	assert_true(r->w.valid && r->w.p < 0.05);
	r = row(&p, "access.calls");
	assert_true(r->w.valid && r->w.p >= 0.05); /* 2000 = 2000: "~" */
	r = row(&p, "access.latency.mean");
	assert_true(r->new.mean < r->base.mean);
	assert_true(r->w.ci_lo <= r->w.diff && r->w.diff <= r->w.ci_hi);
	free_pair(&p);
}

/*
 * --test mann-whitney: 3 runs against 3 are never below p = 0.1 by ranks,
 * even the separated 1,1,1 against 0,0,0 that Welch's t calls certain;
 * every output names the test, and the text says why nothing is marked.
 */
static void mann_whitney_replaces_welch_and_every_output_names_it(void **state)
{
	const struct compare_row *r;
	struct pair p;
	json_t *j, *m;
	char *t;

	(void)state;
	load_pair_with(&p, "access", STATS_MANN_WHITNEY);
	r = row(&p, "access.avoidable_per_call");
	assert_true(r->w.valid && r->w.p < 0.05); /* Welch's figures stay for the CI */
	assert_true(r->tested);
	assert_int_equal(r->mw.method, MW_EXACT);
	assert_true(fabs(r->p - 0.1) < 1e-12);
	assert_false(compare_significant(r));
	r = row(&p, "access.latency.mean"); /* every new run faster than every base run */
	assert_true(r->mw.u == 0 && fabs(r->p - 0.1) < 1e-12);
	r = row(&p, "access.calls"); /* 2000 in every run: nothing to rank */
	assert_true(r->tested && r->p == 1);

	t = render(&p, TEXT);
	assert_contains(t, "mean±sd over runs; Mann-Whitney U test, ~ marks p >= 0.05");
	assert_contains(t, "note: with 3 and 3 runs Mann-Whitney's smallest p is 0.1: no "
			"difference can be significant\n");
	assert_contains(t, "~ p=0.10");
	free(t);
	t = render(&p, JSON);
	j = json_loads(t, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "test")), "mann-whitney-u");
	m = json_object_get(json_object_get(json_object_get(j, "families"), "access"), "metrics");
	for (size_t i = 0; i < json_array_size(m); i++) {
		json_t *x = json_array_get(m, i);

		if (strcmp(json_string_value(json_object_get(x, "name")), "access.latency.mean"))
			continue;
		assert_string_equal(json_string_value(json_object_get(x, "p_method")), "exact");
		assert_true(json_real_value(json_object_get(x, "u")) == 0);
		assert_true(fabs(json_real_value(json_object_get(x, "p")) - 0.1) < 1e-9);
		assert_true(json_is_false(json_object_get(x, "significant")));
	}
	json_decref(j);
	free(t);
	t = render(&p, HTML);
	assert_contains(t, "<th>p (Mann-Whitney)</th>");
	assert_contains(t, "mean&plusmn;sd over its runs, Mann-Whitney U test;");
	free(t);
	free_pair(&p);

	/* the default names Welch's t in all three */
	load_pair(&p, "access");
	t = render(&p, HTML);
	assert_contains(t, "<th>p (Welch)</th>");
	free(t);
	t = render(&p, TEXT);
	assert_not_contains(t, "Mann-Whitney");
	free(t);
	free_pair(&p);
}

/* One run a side: no statistics, and the ACL'd directory shows in the ratios. */
static void single_runs_show_the_lookup_change_per_fs(void **state)
{
	const struct compare_row *r;
	struct pair p;

	(void)state;
	load_pair(&p, "lookup");
	r = row(&p, "lookup.did_skip_ratio[ext4]");
	assert_false(r->w.valid);
	assert_true(r->base.mean == 0.0);
	assert_true(r->new.mean == 140000.0 / 160000.0);
	r = row(&p, "lookup.violations[ext4]");
	assert_true(r->base.mean == 0 && r->new.mean == 0);
	free_pair(&p);
}

static void json_has_the_documented_shape(void **state)
{
	struct pair p;
	json_t *j, *m;
	char *t;

	(void)state;
	load_pair(&p, "access");
	t = render(&p, JSON);
	j = json_loads(t, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "format")), COMPARE_FORMAT);
	assert_string_equal(json_string_value(json_object_get(j, "test")), "welch-t");
	m = json_object_get(json_object_get(json_object_get(j, "families"), "access"), "metrics");
	assert_true(json_array_size(m) > 5);
	assert_non_null(json_object_get(json_array_get(m, 0), "ci95"));
	assert_non_null(json_object_get(json_object_get(json_object_get(
		json_object_get(j, "families"), "access"), "latency"), "fast"));
	json_decref(j);
	free(t);
	free_pair(&p);
}

static void html_is_self_contained_with_charts(void **state)
{
	struct pair p;
	char *t;

	(void)state;
	load_pair(&p, "lookup");
	t = render(&p, HTML);
	assert_contains(t, "<!DOCTYPE html>");
	assert_contains(t, "<h2>Lookup: did skip and would skip");
	assert_contains(t, "<svg");
	assert_not_contains(t, "<script");
	assert_not_contains(t, "http://");
	assert_not_contains(t, "https://");
	free(t);
	free_pair(&p);
	load_pair(&p, "access");
	t = render(&p, HTML);
	assert_contains(t, "<h2>Access outcomes</h2>");
	assert_contains(t, "<h2>Latency histograms</h2>");
	free(t);
	free_pair(&p);
}

/* The longest metric name, with the longest filesystem name, is kept whole. */
static void long_filesystem_names_keep_whole_metric_names(void **state)
{
	struct profile p;
	struct metric_list l;
	const char *fs = "a-filesystem-name-of-31-bytes-x";
	char want[128];

	(void)state;
	profile_init(&p);
	p.fam[FAMILY_LOOKUP].status = FAMILY_OK;
	p.fam[FAMILY_LOOKUP].mode = MODE_FENTRY;
	assert_int_equal(strlen(fs), FS_NAME_LEN - 1);
	assert_non_null(profile_add_fs(&p, fs));
	assert_int_equal(metrics_collect(&p, &l), 0);
	snprintf(want, sizeof(want), "lookup.ineligible_acl_not_cached[%s]", fs);
	assert_non_null(metrics_find(&l, want));
	metrics_free(&l);
	profile_free(&p);
}

/*
 * A windowed side (daemon --duty-cycle) says what it watched, in text and
 * JSON, and that counts of sides that sample differently do not compare.
 */
static void windowed_sides_say_what_they_watched(void **state)
{
	struct pair p;
	char *t;

	(void)state;
	load_pair(&p, "access");
	p.cur.fam[FAMILY_ACCESS].observed = (struct observation){ 200000000, 15000000000ULL,
								   1600000000, 8, 1 };
	compare_free(&p.c);
	memset(&p.c, 0, sizeof(p.c));
	p.c.base = &p.base;
	p.c.new = &p.cur;
	p.c.base_name = "always.json";
	p.c.new_name = "windowed.json";
	assert_int_equal(compare_build(&p.c), 0);
	t = render(&p, TEXT);
	assert_contains(t, "  counted in windows: base always on, new 1.6 s in 8 windows of 0.2 s "
			"every 15 s, 1 failed\n  note: the two sides sample differently");
	free(t);
	t = render(&p, JSON);
	assert_non_null(strstr(t, "\"base_observed\": null,\n      \"new_observed\": {\n"
				 "        \"window_s\": 0.2,\n        \"period_s\": 15.0,\n"
				 "        \"seconds\": 1.6,\n        \"windows\": 8,\n"
				 "        \"failed_windows\": 1\n      }"));
	free(t);
	free_pair(&p);
}

/*
 * Equal runs summed in another order differ in their last bit: the delta
 * is 0 (printed "+0"), not +3.638e-12; a difference of a millionth stays.
 */
static void a_delta_of_rounding_alone_is_zero(void **state)
{
	volatile double a = 0.1, b = 0.2, c = 0.3;
	struct compare_row r = { .in_base = true, .in_new = true };
	char buf[24];

	(void)state;
	r.base.mean = (a + b + c) / 3;
	r.new.mean = (c + b + a) / 3;
	assert_true(r.new.mean != r.base.mean); /* the noise this is about */
	assert_true(compare_delta(&r) == 0);
	assert_string_equal(compare_num(buf, sizeof(buf), compare_delta(&r), true), "+0");
	r.base.mean = 24460;
	r.new.mean = 24460 + 24460e-6;
	assert_true(compare_delta(&r) > 0.02 && compare_delta(&r) < 0.03);
	/* against 0 nothing is rounding: the smallest value is a difference */
	r.base.mean = 0;
	r.new.mean = 1e-12;
	assert_true(compare_delta(&r) == 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_delta_of_rounding_alone_is_zero),
		cmocka_unit_test(access_text_matches_golden),
		cmocka_unit_test(access_json_matches_golden),
		cmocka_unit_test(lookup_text_matches_golden),
		cmocka_unit_test(runs_give_mean_sd_and_significance),
		cmocka_unit_test(mann_whitney_replaces_welch_and_every_output_names_it),
		cmocka_unit_test(single_runs_show_the_lookup_change_per_fs),
		cmocka_unit_test(json_has_the_documented_shape),
		cmocka_unit_test(html_is_self_contained_with_charts),
		cmocka_unit_test(long_filesystem_names_keep_whole_metric_names),
		cmocka_unit_test(windowed_sides_say_what_they_watched),
	};

	setenv("LC_ALL", "C.UTF-8", 1); /* the golden text is a UTF-8 terminal's */
	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
