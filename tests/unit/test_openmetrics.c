// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `permscope report --format openmetrics` (src/prom/prom.c's OpenMetrics mode):
 * the daemon's series with instance and job, each at the profile's start
 * (counters 0) and end, "# EOF" last; and what it is for, checked with the
 * real tools: promtool backfills it and a Prometheus on those blocks gives
 * back the profile's counts through increase().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promserver.h"
#include "testutil.h"

#include "profile.h"
#include "prom/prom.h"

/* The sample profile: 2026-11-30T09:15:02.125Z to 09:15:44.625Z, host buildhost. */
#define START "1796030102.125"
#define END "1796030144.625"
#define WINDOW "42500ms" /* END - START */

static const char *sample_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sample-profile.json", testdata_dir());
	return path;
}

/* LINE (without its newline) is a whole line of TEXT. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define assert_line(text, line)                                                          \
	do {                                                                             \
		if (!has_line(text, line))                                               \
			fail_msg("no line\n  %s\nin\n%.3000s", line, text);              \
	} while (0)

static char *report_openmetrics(const char *first, ...)
{
	char *argv[16] = { (char *)permscope_bin(), "report", (char *)sample_path(), "--format",
			   "openmetrics" };
	int n = 5;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && n < 15; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	if (run_capture(argv) != 0)
		fail_msg("permscope report --format openmetrics: %s", err_text);
	return strdup(out_text);
}

static void counters_are_0_at_the_start_and_the_count_at_the_end(void **state)
{
	char *om;

	(void)state;
	om = report_openmetrics("--instance", "ci-1", "--job", "kernel-ci", NULL);
	/* OpenMetrics names the counter family without _total, its samples with it */
	assert_line(om, "# TYPE permscope_access_calls counter");
	assert_contains(om, "\npermscope_access_calls_total{instance=\"ci-1\",job=\"kernel-ci\","
			"mode=\"fentry\",outcome=\"fast\"} 0 " START "\n"
			"permscope_access_calls_total{instance=\"ci-1\",job=\"kernel-ci\","
			"mode=\"fentry\",outcome=\"fast\"} 38400 " END "\n");
	/* a histogram's point is written whole: the start's (all 0), then the end's */
	assert_line(om, "# TYPE permscope_access_latency_seconds histogram");
	assert_contains(om, "permscope_access_latency_seconds_count{instance=\"ci-1\","
			"job=\"kernel-ci\",mode=\"fentry\",outcome=\"needed\"} 0 " START "\n"
			"permscope_access_latency_seconds_bucket{instance=\"ci-1\",job=\"kernel-ci\","
			"mode=\"fentry\",outcome=\"needed\",le=\"1.27e-07\"} 0 " END "\n");
	assert_line(om, "permscope_access_latency_seconds_bucket{instance=\"ci-1\",job=\"kernel-ci\","
		    "mode=\"fentry\",outcome=\"needed\",le=\"4.095e-06\"} 1460 " END);
	assert_line(om, "permscope_access_latency_seconds_count{instance=\"ci-1\",job=\"kernel-ci\","
		    "mode=\"fentry\",outcome=\"needed\"} 1520 " END);
	/* gauges hold their value at both times */
	assert_contains(om, "\npermscope_probe_attached{family=\"access\",instance=\"ci-1\","
			"job=\"kernel-ci\",mode=\"fentry\"} 1 " START "\n"
			"permscope_probe_attached{family=\"access\",instance=\"ci-1\","
			"job=\"kernel-ci\",mode=\"fentry\"} 1 " END "\n");
	assert_line(om, "permscope_start_time_seconds{instance=\"ci-1\",job=\"kernel-ci\"} "
		    "1796030102.125 " END);
	/* # EOF once, last */
	assert_true(strlen(om) > 6);
	assert_string_equal(om + strlen(om) - 6, "# EOF\n");
	assert_true(strstr(om, "# EOF") == om + strlen(om) - 6);
	free(om);
}

static void instance_defaults_to_the_host_and_job_to_permscope(void **state)
{
	char *om;

	(void)state;
	om = report_openmetrics(NULL);
	assert_line(om, "permscope_exec_drops_total{instance=\"buildhost\",job=\"permscope\","
		    "mode=\"fentry\"} 0 " END);
	free(om);
}

static void label_values_are_escaped(void **state)
{
	char *om;

	(void)state;
	om = report_openmetrics("--instance", "a\"b\\c\nd", "--job", "j\"", NULL);
	assert_contains(om, "{instance=\"a\\\"b\\\\c\\nd\",job=\"j\\\"\",");
	free(om);
}

/*
 * "NAME{LABELS} VALUE" of the 0.0.4 line, from the OpenMetrics one: the
 * instance and job labels (I and J) and the timestamp taken out.
 */
static void strip_om(char *line)
{
	char *p, *ts;

	if ((p = strstr(line, "instance=\"I\",job=\"J\""))) {
		size_t n = strlen("instance=\"I\",job=\"J\"");

		if (p[n] == ',')
			n++;
		else if (p[-1] == ',')
			p--, n++;
		memmove(p, p + n, strlen(p + n) + 1);
	}
	if ((p = strstr(line, "{}")))
		memmove(p, p + 2, strlen(p + 2) + 1);
	ts = strrchr(line, ' ');
	*ts = 0;
}

/* One fact, one place: the series and end values are the daemon's, at two times each. */
static void the_series_are_the_daemons_each_at_start_and_end(void **state)
{
	struct profile p;
	char err[512], *prom, *om, *save = NULL, *save2 = NULL;
	size_t len;
	int nprom = 0, nom = 0;

	(void)state;
	if (profile_read(sample_path(), &p, err, sizeof(err)))
		fail_msg("%s", err);
	prom = prom_render(&p, NULL, &len);
	om = prom_render_openmetrics(&p, "I", "J", &len);
	assert_non_null(prom);
	assert_non_null(om);
	char *pl = strtok_r(prom, "\n", &save), *ol = strtok_r(om, "\n", &save2);

	for (; pl; pl = strtok_r(NULL, "\n", &save)) {
		if (pl[0] == '#')
			continue;
		nprom++;
		while (ol && ol[0] == '#')
			ol = strtok_r(NULL, "\n", &save2);
		assert_non_null(ol);
		/* a histogram's start point comes first, whole: skip to this line at the end */
		while (ol && !(strstr(ol, " " END) && (strip_om(ol), !strcmp(ol, pl)))) {
			assert_true(ol[0] == '#' || strstr(ol, " " START) || strstr(ol, " " END));
			nom++;
			ol = strtok_r(NULL, "\n", &save2);
		}
		if (!ol)
			fail_msg("no OpenMetrics sample at the end for\n  %s", pl);
		nom++;
		ol = strtok_r(NULL, "\n", &save2);
	}
	assert_true(nprom > 100);
	free(prom);
	free(om);
	profile_free(&p);
}

/*
 * Prometheus reads a timestamp as a double and truncates it times 1000:
 * 1090000000.001 reads back as ...000 ms, so it is written ...0011.
 */
static void timestamps_read_back_as_their_millisecond(void **state)
{
	struct profile p;
	char err[512], *om;
	size_t len;

	(void)state;
	if (profile_read(sample_path(), &p, err, sizeof(err)))
		fail_msg("%s", err);
	p.start_ns = 1090000000001000000ULL;     /* ...001 ms */
	p.end_ns = 1090000000007000001ULL;       /* rounded up: ...008 ms */
	om = prom_render_openmetrics(&p, "I", "J", &len);
	assert_non_null(om);
	assert_line(om, "permscope_start_time_seconds{instance=\"I\",job=\"J\"} "
		    "1090000000.001 1090000000.0011");
	assert_line(om, "permscope_start_time_seconds{instance=\"I\",job=\"J\"} "
		    "1090000000.001 1090000000.0081");
	assert_int_equal((long long)(strtod("1090000000.0081", NULL) * 1000), 1090000000008LL);
	assert_int_equal((long long)(strtod("1090000000.008", NULL) * 1000), 1090000000007LL);
	free(om);
	profile_free(&p);
}

static void refuses_what_it_cannot_timestamp_or_label(void **state)
{
	char *json, *bad;
	char *argv[] = { (char *)permscope_bin(), "report", NULL, "--format", "openmetrics", NULL };

	(void)state;
	assert_int_equal(permscope("report", sample_path(), "--instance", "x", NULL), 2);
	assert_contains(err_text, "--format openmetrics only");
	assert_int_equal(permscope("report", sample_path(), "--format", "openmetrics",
				   "--instance", "", NULL), 2);
	/* a profile that ends when it starts has no two times */
	json = slurp(sample_path(), NULL);
	assert_non_null(bad = strstr(json, "\"end\": \"2026-11-30T09:15:44.625000000Z\""));
	memcpy(bad, "\"end\": \"2026-11-30T09:15:02.125000000Z\"",
	       strlen("\"end\": \"2026-11-30T09:15:02.125000000Z\""));
	argv[2] = (char *)write_tmp_file("still.json", json);
	assert_int_equal(run_capture(argv), 2);
	assert_contains(err_text, "ends no later than it starts");
	free(json);
}

/* ---- the backfill, with the real promtool and Prometheus ------------------ */

static double query_at(const struct promserver *ps, const char *at, const char *promql)
{
	char *argv[] = { (char *)promtool_bin(), "query", "instant", "-o", "json", "--time",
			 (char *)at, (char *)ps->url, (char *)promql, NULL };
	json_t *root, *v;
	double value = NAN;

	if (run_capture(argv) != 0) {
		print_message("promtool query instant '%s': %s", promql, err_text);
		return NAN;
	}
	root = json_loads(out_text, 0, NULL);
	if (json_is_array(root) && json_array_size(root) == 1) {
		v = json_array_get(json_object_get(json_array_get(root, 0), "value"), 1);
		if (json_is_string(v))
			value = strtod(json_string_value(v), NULL);
	} else {
		print_message("'%s' at %s: %s\n", promql, at, out_text);
	}
	json_decref(root);
	return value;
}

static void a_backfilled_profile_gives_back_its_counts_through_increase(void **state)
{
	const char *file = tmp_path("build.om"), *tsdb = tmp_path("tsdb");
	struct promserver ps;
	char why[PATH_MAX + 128];
	char *argv[] = { (char *)permscope_bin(), "report", (char *)sample_path(), "--format",
			 "openmetrics", "--instance", "X", "-o", (char *)file, NULL };

	(void)state;
	if (promserver_missing()) {
		print_message("%s: skipped\n", promserver_missing());
		skip();
	}
	assert_int_equal(run_capture(argv), 0);
	promtool_backfill(file, tsdb);
	if (promserver_start_tsdb(&ps, NULL, tsdb, why, sizeof(why)))
		fail_msg("%s", why);
	/*
	 * At the end, over start..end: the start's 0 stops the extrapolation
	 * towards the window's start (a counter is not extrapolated below
	 * zero), the end's sample is at the evaluation time, so increase()
	 * is the count exactly.
	 */
	assert_true(query_at(&ps, END, "increase(permscope_access_calls_total{outcome=\"fast\","
			     "instance=\"X\"}[" WINDOW "])") == 38400);
	assert_true(query_at(&ps, END, "sum(increase(permscope_access_calls_total{instance=\"X\","
			     "job=\"permscope\"}[" WINDOW "]))") == 1520 + 38400);
	assert_true(query_at(&ps, END, "increase(permscope_access_latency_seconds_bucket{"
			     "outcome=\"needed\",le=\"4.095e-06\",instance=\"X\"}[" WINDOW "])") ==
		    1460);
	/* a longer window changes nothing: the extrapolation still stops at the 0 */
	assert_true(query_at(&ps, END, "increase(permscope_access_calls_total{outcome=\"fast\","
			     "instance=\"X\"}[1h])") == 38400);
	assert_true(query_at(&ps, END, "permscope_probe_attached{family=\"access\","
			     "instance=\"X\"}") == 1);
	promserver_stop(&ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_are_0_at_the_start_and_the_count_at_the_end),
		cmocka_unit_test(instance_defaults_to_the_host_and_job_to_permscope),
		cmocka_unit_test(label_values_are_escaped),
		cmocka_unit_test(the_series_are_the_daemons_each_at_start_and_end),
		cmocka_unit_test(timestamps_read_back_as_their_millisecond),
		cmocka_unit_test(refuses_what_it_cannot_timestamp_or_label),
		cmocka_unit_test(a_backfilled_profile_gives_back_its_counts_through_increase),
	};

	return cmocka_run_group_tests_name("openmetrics", tests, tmpdir_setup, tmpdir_teardown);
}
