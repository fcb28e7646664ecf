// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A counter is named for what it counts.  lookup's `ip_calls - nested`
 * was called `denied`, but an inode_permission() call that makes no
 * security_inode_permission() call is not always a denial: an RCU walk
 * that meets an ACL not read yet returns -ECHILD there and is retried
 * (bookworm's ext4 in fentry mode: 2,001 for 2,000 refusals).  So it is
 * `no_lsm_check` now, in every output, and a profile written before the
 * rename, its merged runs included, still reads (docs/profile-format.md,
 * "Compatibility").
 */
#include <linux/types.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "metrics.h"
#include "profile.h"
#include "prom/prom.h"
#include "render.h"
#include "schema.h"
#include "testutil.h"

/* tests/unit/data: written by `permscope merge` of the build before the rename. */
#define BEFORE_RENAME "lookup-denied-before-rename.json"

static void read_data(const char *name, struct profile *p)
{
	char *path, err[512] = "";

	assert_true(asprintf(&path, "%s/%s", testdata_dir(), name) > 0);
	if (profile_read(path, p, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	free(path);
}

static int lookup_row(const char *name)
{
	return schema_row_index(FAMILY_LOOKUP, name);
}

static char *text_report(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	render_text(out, p, false);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void assert_has(const char *text, const char *what, bool want)
{
	if ((strstr(text, what) != NULL) != want)
		fail_msg("%s \"%s\" in:\n%s", want ? "no" : "an unwanted", what, text);
}

/* What the row is: ip_calls - nested, no denial count, once called denied. */
static void no_lsm_check_is_ip_calls_that_made_no_lsm_call(void **state)
{
	int i = lookup_row("no_lsm_check");
	const struct schema_row *r;

	(void)state;
	assert_true(i >= 0);
	r = &schema[FAMILY_LOOKUP].rows[i];
	assert_int_equal(r->kind, ROW_COUNT);
	assert_int_equal(r->fill, FILL_DIFF);
	assert_int_equal(r->terms, 1U << lookup_row("ip_calls"));
	assert_int_equal(r->whole, 1U << lookup_row("nested"));
	assert_non_null(r->was);
	assert_string_equal(r->was, "denied");
	/* its meaning names the retried RCU walk and disowns the denials */
	assert_has(r->meaning, "ECHILD", true);
	assert_has(r->meaning, "not a count of denials", true);
}

/*
 * No row, metric, series or column says "denied" for a count that holds
 * more than denials.
 */
static void nothing_is_called_denied_that_counts_more(void **state)
{
	struct profile p;
	struct metric_list l;
	char *prom, *text, key[64];
	size_t len;

	(void)state;
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < schema[f].nrows; i++) {
			const char *k = schema_row_key(&schema[f].rows[i], key, sizeof(key));

			if (strstr(k, "denied"))
				fail_msg("%s.%s: named denied", schema[f].name, k);
		}
	read_data(BEFORE_RENAME, &p);
	assert_int_equal(metrics_collect(&p, &l), 0);
	assert_null(metrics_find(&l, "lookup.denied"));
	assert_non_null(metrics_find(&l, "lookup.no_lsm_check"));
	assert_true(metrics_find(&l, "lookup.no_lsm_check[ext4]")->value == 2001);
	metrics_free(&l);
	assert_false(metric_name_valid("lookup.denied"));
	assert_true(metric_name_valid("lookup.no_lsm_check"));
	prom = prom_render(&p, NULL, &len);
	assert_non_null(prom);
	assert_has(prom, "permscope_lookup_no_lsm_check_total{fs=\"ext4\",mode=\"fentry\"} 2001",
		   true);
	assert_has(prom, "denied", false);
	text = text_report(&p);
	assert_has(text, "NO-LSM", true);
	assert_has(text, "DENIED", false);
	free(text);
	free(prom);
	profile_free(&p);
}

/*
 * A profile of the build before: its `denied` is read as no_lsm_check, its
 * runs' lookup.denied as lookup.no_lsm_check, and it is written again
 * under the new name only.
 */
static void a_profile_from_before_the_rename_reads_denied_as_no_lsm_check(void **state)
{
	struct profile p, q;
	char err[512] = "", *json;
	double *x;
	int i = lookup_row("no_lsm_check");

	(void)state;
	assert_true(i >= 0);
	read_data(BEFORE_RENAME, &p);
	assert_int_equal(p.nfs, 1);
	assert_false(schema_row_absent(&schema[FAMILY_LOOKUP], i, p.absent[FAMILY_LOOKUP]));
	assert_int_equal(*schema_counter(&schema[FAMILY_LOOKUP].rows[i], profile_stats(&p,
			 FAMILY_LOOKUP, 0)), 2001);
	assert_int_equal(p.nruns, 1);
	assert_null(metrics_find(&p.runs[0], "lookup.denied"));
	assert_null(metrics_find(&p.runs[0], "lookup.denied[ext4]"));
	assert_true(metrics_find(&p.runs[0], "lookup.no_lsm_check[ext4]")->value == 2001);
	/* what compare and gate take of a merged profile: its runs */
	assert_int_equal(metric_samples(&p, "lookup.no_lsm_check", &x), 1);
	assert_true(x[0] == 2001);
	free(x);
	json = profile_to_json(&p);
	assert_non_null(json);
	assert_has(json, "\"no_lsm_check\": 2001", true);
	assert_has(json, "\"lookup.no_lsm_check[ext4]\": 2001", true);
	assert_has(json, "\"denied\":", false); /* the workload is called denied */
	assert_has(json, "lookup.denied", false);
	assert_int_equal(profile_from_json(json, &q, err, sizeof(err)), 0);
	assert_true(metrics_find(&q.runs[0], "lookup.no_lsm_check")->value == 2001);
	free(json);
	profile_free(&q);
	profile_free(&p);
}

/* A run's metric under a row's old key, with or without a filesystem. */
static void run_metrics_under_an_old_key_take_the_new_one(void **state)
{
	char buf[METRIC_NAME_LEN];

	(void)state;
	assert_string_equal(schema_metric_renamed("lookup.denied", buf, sizeof(buf)),
			    "lookup.no_lsm_check");
	assert_string_equal(schema_metric_renamed("lookup.flag_v2[btrfs]", buf, sizeof(buf)),
			    "lookup.may_exec_opt_in[btrfs]");
	/* a key that only starts like an old one, another family, no family */
	assert_string_equal(schema_metric_renamed("lookup.denied_x", buf, sizeof(buf)),
			    "lookup.denied_x");
	assert_string_equal(schema_metric_renamed("access.denied", buf, sizeof(buf)), "access.denied");
	assert_string_equal(schema_metric_renamed("bench.denied", buf, sizeof(buf)), "bench.denied");
	assert_string_equal(schema_metric_renamed("lookup", buf, sizeof(buf)), "lookup");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_lsm_check_is_ip_calls_that_made_no_lsm_call),
		cmocka_unit_test(nothing_is_called_denied_that_counts_more),
		cmocka_unit_test(a_profile_from_before_the_rename_reads_denied_as_no_lsm_check),
		cmocka_unit_test(run_metrics_under_an_old_key_take_the_new_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
