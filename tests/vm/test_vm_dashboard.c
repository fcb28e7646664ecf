// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lookup queries of contrib/grafana/permscope-dashboard.json and the
 * lookup recording rules of contrib/prometheus/permscope.rules.yml, on what
 * a real daemon counted with the lookup family attached.  The live test
 * (tests/live/test_live_dashboard.c) names them "not checked" on a host
 * where lookup cannot attach (no fentry, no kprobes); every kernel of the
 * VM suite attaches it.
 *
 * A replay, not a live daemon.  In each VM, tools/vm/plan.sh runs
 * `permscope daemon --families lookup --comm workload` and saves two of its
 * /metrics answers: daemon-metrics.txt after the tmpfs stat loop, and
 * daemon-metrics-2.txt after 2000 more stats.  Here, for each kernel,
 * busybox httpd serves the first answer, as the daemon would, at /metrics on
 * a loopback port of its own; a real Prometheus (tests/promserver.h) scrapes
 * the three every second with the rules loaded; after three scrapes of each
 * the test puts the second answer in the first's place.  Then, for each
 * kernel, $instance being its target's address (Prometheus's instance label
 * is the scraped address, as for a daemon):
 *
 * - every dashboard query that reads only lookup metrics (tests/grafana.h)
 *   returns a sample with a number in it, and the did-skip ratio panel's
 *   tmpfs value is the ratio of the two answers' tmpfs increases;
 * - every lookup recording rule has recorded a number, the did-skip ratio's
 *   on tmpfs being that same ratio.
 *
 * What the replay cannot show: the daemon's own HTTP side and timing (the
 * samples' times are this Prometheus's scrapes, not the VM's; the live tests
 * hold the daemon's endpoint), and the queries of other families (the VM's
 * daemon runs lookup alone; test_live_dashboard checks those).
 *
 * Results come from $PERMSCOPE_VM_RESULTS/KERNEL/results (tests/run-all sets
 * it; build/vm/run by hand, from the top of the tree).  A kernel without
 * results, or with results from a run before plan.sh saved a second answer,
 * is skipped, saying so; so is everything without Prometheus, promtool or
 * busybox.  Needs no root.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grafana.h"
#include "promserver.h"
#include "testutil.h"

#define RULES "contrib/prometheus/permscope.rules.yml"
#define DASHBOARD "contrib/grafana/permscope-dashboard.json"
#define DID_SKIP_PANEL "Did-skip ratio per filesystem"
#define DID_SKIP_RULE "permscope:lookup_did_skip_ratio:rate5m"

static const char *const kernels[] = { "bookworm", "trixie", "sid" };
enum { BOOKWORM, TRIXIE, SID, KERNELS };

static char skip_all[512];
static struct {
	char results[PATH_MAX]; /* RESULTS/KERNEL/results */
	char skip[PATH_MAX + 256]; /* why this kernel cannot be checked; "" if it can */
	char broken[PATH_MAX + 256]; /* why its results fail the test; "" if they do not */
	char *scrape[2];        /* daemon-metrics.txt, daemon-metrics-2.txt */
	char dir[PATH_MAX];     /* what its httpd serves: metrics */
	pid_t httpd;
	char addr[64];          /* 127.0.0.1:PORT, its target and instance */
	double did_skip_ratio;  /* tmpfs: did_skip increase / checks increase */
} k_[KERNELS];
static struct promserver prom;

static const char *results_base(void)
{
	const char *base = getenv("PERMSCOPE_VM_RESULTS");

	return base && *base ? base : "build/vm/run";
}

/*
 * The sum of METRIC's series in exposition TEXT whose labels hold MATCH
 * (`fs="tmpfs"`): every mode the daemon attached in counts.  NAN when there
 * is none.
 */
static double exposition_sum(const char *text, const char *metric, const char *match)
{
	size_t n = strlen(metric);
	double sum = NAN;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = l + strcspn(l, "\n"), *close;

		if (strncmp(l, metric, n) || l[n] != '{')
			continue;
		close = memchr(l, '}', end - l);
		if (!close || !memmem(l, close - l, match, strlen(match)))
			continue;
		sum = (isnan(sum) ? 0 : sum) + strtod(close + 1, NULL);
	}
	return sum;
}

static double tmpfs_increase(int k, const char *metric)
{
	return exposition_sum(k_[k].scrape[1], metric, "fs=\"tmpfs\"") -
	       exposition_sum(k_[k].scrape[0], metric, "fs=\"tmpfs\"");
}

/* RESULTS/NAME of kernel k, malloc'ed, or NULL if it is not there. */
static char *result_text(int k, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", k_[k].results, name);
	return slurp(path, NULL);
}

/* Reads kernel k's two answers, or says in skip or broken why not. */
static void read_results(int k)
{
	char path[PATH_MAX + 64], *log;
	struct stat st;
	double checks;

	snprintf(k_[k].results, sizeof(k_[k].results), "%s/%s/results", results_base(),
		 kernels[k]);
	snprintf(path, sizeof(path), "%s/MANIFEST", k_[k].results);
	if (stat(path, &st)) {
		snprintf(k_[k].skip, sizeof(k_[k].skip),
			 "no VM results for %s in %s (run 'make vmtest')", kernels[k],
			 k_[k].results);
		return;
	}
	k_[k].scrape[0] = result_text(k, "daemon-metrics.txt");
	k_[k].scrape[1] = result_text(k, "daemon-metrics-2.txt");
	if (!k_[k].scrape[0]) {
		/* the plan runs the daemon only with the lookup workloads and a tmpfs */
		snprintf(k_[k].skip, sizeof(k_[k].skip),
			 "%s's run saved no daemon-metrics.txt in %s (its plan.log says why)",
			 kernels[k], k_[k].results);
		return;
	}
	if (!k_[k].scrape[1]) {
		log = result_text(k, "plan.log");
		if (log && strstr(log, "could not be read a second time"))
			snprintf(k_[k].broken, sizeof(k_[k].broken),
				 "the daemon in %s's VM did not answer the second scrape "
				 "(%s/plan.log)", kernels[k], k_[k].results);
		else
			snprintf(k_[k].skip, sizeof(k_[k].skip),
				 "no daemon-metrics-2.txt in %s: results from a run before "
				 "tools/vm/plan.sh saved a second scrape (run 'make vmtest')",
				 k_[k].results);
		free(log);
		return;
	}
	/* Nothing to rate without an increase: plan.sh ran 2000 stats between. */
	checks = tmpfs_increase(k, "permscope_lookup_checks_total");
	if (!(checks > 0)) {
		snprintf(k_[k].broken, sizeof(k_[k].broken),
			 "%s: the daemon's second answer counts no more tmpfs checks than "
			 "its first (increase %g), though 2000 stats ran between",
			 k_[k].results, checks);
		return;
	}
	k_[k].did_skip_ratio = tmpfs_increase(k, "permscope_lookup_did_skip_total") / checks;
}

/* Writes TEXT to kernel k's served metrics file, whole: no scrape sees half. */
static void serve(int k, const char *text)
{
	char path[PATH_MAX + 16], next[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/metrics", k_[k].dir);
	snprintf(next, sizeof(next), "%s/metrics.next", k_[k].dir);
	write_file(next, text, strlen(text));
	if (rename(next, path))
		fail_msg("rename %s: %s", next, strerror(errno));
}

/* busybox httpd serving kernel k's directory on a free loopback port. */
static int start_httpd(int k, const char *busybox)
{
	char listen[32], log[PATH_MAX + 16];
	char *argv[] = { (char *)busybox, "httpd", "-f", "-p", listen, "-h", k_[k].dir, NULL };

	snprintf(log, sizeof(log), "%s.log", k_[k].dir);
	/* like promserver_start(): the free port may be taken before httpd binds */
	for (int attempt = 0; attempt < 5; attempt++) {
		int port = promserver_free_port();

		snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
		k_[k].httpd = spawn_to(argv, log, log);
		for (int i = 0; i < 50; i++) {
			if (promserver_http_status(port, "/metrics") == 200) {
				snprintf(k_[k].addr, sizeof(k_[k].addr), "%s", listen);
				return 0;
			}
			if (waitpid(k_[k].httpd, NULL, WNOHANG) == k_[k].httpd) {
				k_[k].httpd = 0;
				break;
			}
			usleep(100000);
		}
		if (k_[k].httpd) {
			kill(k_[k].httpd, SIGKILL);
			waitpid(k_[k].httpd, NULL, 0);
			k_[k].httpd = 0;
		}
	}
	print_error("busybox httpd did not serve %s/metrics (log in %s)\n", k_[k].dir, log);
	return -1;
}

/* Polls PROMQL's value (one sample) until it reaches AT_LEAST; false on timeout. */
static bool wait_value(const char *promql, double at_least, double timeout)
{
	double t0 = promserver_now();

	while (promserver_now() - t0 < timeout) {
		if (promserver_value(&prom, promql) >= at_least)
			return true;
		usleep(500000);
	}
	return false;
}

static bool ready(int k)
{
	return !k_[k].skip[0] && !k_[k].broken[0];
}

/*
 * The group's setup: each kernel's answers read, its httpd serving the
 * first, Prometheus scraping them all with the rules; three scrapes of
 * each, then the second answers in place, and returns once Prometheus has
 * scraped them and evaluated the rules over both.
 */
static int setup(void **state)
{
	char yaml[4 * PATH_MAX], why[512], query[256];
	const char *busybox;
	bool any = false;
	int len;

	if (tmpdir_setup(state))
		return -1;
	for (int k = 0; k < KERNELS; k++) {
		read_results(k);
		any |= ready(k);
	}
	if (!any)
		return 0;
	busybox = find_program("busybox");
	if (!busybox) {
		snprintf(skip_all, sizeof(skip_all), "no busybox (Debian package busybox-static)");
		return 0;
	}
	if (!promtool_bin()) {
		snprintf(skip_all, sizeof(skip_all), "no promtool (Debian package prometheus)");
		return 0;
	}
	print_message("  replayed, not live: the /metrics answers a real daemon served in each "
		      "VM,\n  served again by busybox httpd to a real Prometheus\n");
	len = snprintf(yaml, sizeof(yaml),
		       "rule_files:\n  - %s/" RULES "\n"
		       "scrape_configs:\n  - job_name: permscope\n"
		       "    static_configs:\n      - targets:\n", source_dir());
	for (int k = 0; k < KERNELS; k++) {
		if (!ready(k))
			continue;
		snprintf(k_[k].dir, sizeof(k_[k].dir), "%s/%s", tmpdir, kernels[k]);
		if (mkdir(k_[k].dir, 0755))
			return -1;
		serve(k, k_[k].scrape[0]);
		if (start_httpd(k, busybox))
			return -1;
		len += snprintf(yaml + len, sizeof(yaml) - len, "          - '%s'\n",
				k_[k].addr);
		print_message("  %s: http://%s/metrics serves %s/daemon-metrics.txt, then "
			      "daemon-metrics-2.txt (tmpfs checks +%.0f)\n", kernels[k],
			      k_[k].addr, k_[k].results,
			      tmpfs_increase(k, "permscope_lookup_checks_total"));
	}
	if (promserver_start(&prom, yaml, why, sizeof(why))) {
		if (access(PROMSERVER_BIN, X_OK) == 0)
			return -1; /* installed, and broken: that is a failure */
		snprintf(skip_all, sizeof(skip_all), "%s", why);
		return 0;
	}
	for (int k = 0; k < KERNELS; k++) {
		if (!ready(k))
			continue;
		snprintf(query, sizeof(query),
			 "count_over_time(permscope_probe_attached{family=\"lookup\","
			 "instance=\"%s\"}[1m])", k_[k].addr);
		if (!wait_value(query, 3, 30)) {
			print_error("Prometheus did not scrape %s three times in 30 s\n",
				    k_[k].addr);
			prom.keep = true;
			return -1;
		}
	}
	for (int k = 0; k < KERNELS; k++)
		if (ready(k))
			serve(k, k_[k].scrape[1]);
	for (int k = 0; k < KERNELS; k++) {
		if (!ready(k))
			continue;
		snprintf(query, sizeof(query),
			 "sum(changes(permscope_lookup_checks_total{instance=\"%s\"}[1m]))",
			 k_[k].addr);
		if (!wait_value(query, 1, 15)) {
			print_error("Prometheus did not scrape %s's second answer in 15 s\n",
				    kernels[k]);
			prom.keep = true;
			return -1;
		}
	}
	/* A few scrapes of the second answer, the rules evaluated over both. */
	sleep(3);
	print_message("  Prometheus %s has scraped both answers of each\n", prom.url);
	return 0;
}

static int teardown(void **state)
{
	promserver_stop(&prom);
	for (int k = 0; k < KERNELS; k++) {
		if (k_[k].httpd > 0) {
			kill(k_[k].httpd, SIGTERM);
			waitpid(k_[k].httpd, NULL, 0);
		}
		free(k_[k].scrape[0]);
		free(k_[k].scrape[1]);
	}
	return tmpdir_teardown(state);
}

/* Skips or fails kernel k's test when its results cannot be checked. */
static void need(int k)
{
	if (k_[k].broken[0])
		fail_msg("%s", k_[k].broken);
	if (k_[k].skip[0] || skip_all[0]) {
		print_message("skipped: %s\n", k_[k].skip[0] ? k_[k].skip : skip_all);
		skip();
	}
}

/* The sample's value in JSON (promserver_query()'s) whose LABEL is VALUE; NAN if none. */
static double sample_where(const char *json, const char *label, const char *value)
{
	json_t *root = json ? json_loads(json, 0, NULL) : NULL, *s;
	double d = NAN;
	size_t i;

	json_array_foreach(root, i, s) {
		const char *l = json_string_value(json_object_get(json_object_get(s, "metric"),
								  label));
		json_t *v = json_array_get(json_object_get(s, "value"), 1);

		if (l && !strcmp(l, value) && json_is_string(v))
			d = strtod(json_string_value(v), NULL);
	}
	json_decref(root);
	return d;
}

/* How many samples of JSON hold a number (not NaN). */
static size_t numbers(const char *json)
{
	json_t *root = json ? json_loads(json, 0, NULL) : NULL, *s;
	size_t i, n = 0;

	json_array_foreach(root, i, s) {
		json_t *v = json_array_get(json_object_get(s, "value"), 1);

		n += json_is_string(v) && !isnan(strtod(json_string_value(v), NULL));
	}
	json_decref(root);
	return n;
}

/* PROMQL polled for 10 s at most until a sample holds a number: its JSON. */
static char *query_numbers(const char *promql)
{
	double t0 = promserver_now();
	char *json = NULL;

	for (;;) {
		free(json);
		json = promserver_query(&prom, promql);
		if (numbers(json) || promserver_now() - t0 >= 10)
			return json;
		usleep(500000);
	}
}

/* Whether Prometheus's tmpfs did-skip ratio in JSON is kernel k's answers'. */
static bool did_skip_ratio_is_the_answers(int k, const char *what, const char *json)
{
	double got = sample_where(json, "fs", "tmpfs"), want = k_[k].did_skip_ratio;
	bool same = fabs(got - want) <= 1e-9 + 1e-6 * fabs(want);

	print_message("  %s, tmpfs: %g; the answers' increases: %g\n", what, got, want);
	if (!same)
		print_error("%s: tmpfs did-skip ratio %g, the daemon's answers say %g\n", what,
			    got, want);
	return same;
}

/*
 * Every dashboard query of lookup metrics alone, as Grafana would send it
 * for kernel k's target, returns a sample with a number; the did-skip ratio
 * panel shows the ratio the daemon's two answers give.
 */
static void lookup_queries(int k)
{
	const struct grafana_var vars[] = { { "instance", k_[k].addr },
					    { "__rate_interval", "1m" },
					    { "__interval", "15s" },
					    { "__range", "5m" },
					    { NULL, NULL } };
	struct grafana_query *qs;
	size_t n, checked = 0, failed = 0;
	bool ratio_seen = false;
	json_error_t jerr;
	char path[PATH_MAX + 64];
	json_t *dash;

	need(k);
	snprintf(path, sizeof(path), "%s/" DASHBOARD, source_dir());
	dash = json_load_file(path, 0, &jerr);
	if (!dash)
		fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
	n = grafana_queries(dash, vars, &qs);
	for (size_t i = 0; i < n; i++) {
		char *json;

		if (!qs[i].family || strcmp(qs[i].family, "lookup"))
			continue;
		json = query_numbers(qs[i].expr);
		if (numbers(json)) {
			print_message("  \"%s\" %s: %zu series with a number\n", qs[i].panel,
				      qs[i].ref, numbers(json));
			checked++;
		} else {
			print_error("no data: \"%s\" %s\n  %s\n  -> %s", qs[i].panel, qs[i].ref,
				    qs[i].expr, json ? json : "(promtool failed)\n");
			failed++;
		}
		if (!strcmp(qs[i].panel, DID_SKIP_PANEL)) {
			ratio_seen = true;
			failed += !did_skip_ratio_is_the_answers(k, "panel \"" DID_SKIP_PANEL "\"",
								 json);
		}
		free(json);
	}
	print_message("  %s: %zu lookup queries of the dashboard returned data from the "
		      "replayed answers\n", kernels[k], checked);
	if (failed)
		prom.keep = true;
	assert_int_equal(failed, 0);
	assert_true(checked > 0);
	if (!ratio_seen)
		fail_msg("%s has no lookup panel \"%s\" (renamed? say so here)", DASHBOARD,
			 DID_SKIP_PANEL);
	grafana_free_queries(qs, n);
	json_decref(dash);
}

/*
 * Every lookup recording rule has recorded a number for kernel k's target;
 * the did-skip ratio's on tmpfs is the ratio the daemon's answers give.
 */
static void lookup_rules(int k)
{
	char path[PATH_MAX + 64], *text, *save = NULL;
	size_t checked = 0, failed = 0;
	bool ratio_seen = false;

	need(k);
	snprintf(path, sizeof(path), "%s/" RULES, source_dir());
	text = slurp(path, NULL);
	assert_non_null(text);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128], query[256], *json, *family;

		if (sscanf(l, " - record: %127s", name) != 1)
			continue;
		family = grafana_family(name);
		if (!family || strcmp(family, "lookup")) {
			free(family);
			continue;
		}
		free(family);
		snprintf(query, sizeof(query), "%s{instance=\"%s\"}", name, k_[k].addr);
		json = query_numbers(query);
		if (numbers(json)) {
			print_message("  %s: %zu series with a number\n", name, numbers(json));
			checked++;
		} else {
			print_error("no number: %s -> %s", query,
				    json ? json : "(promtool failed)\n");
			failed++;
		}
		if (!strcmp(name, DID_SKIP_RULE)) {
			ratio_seen = true;
			failed += !did_skip_ratio_is_the_answers(k, DID_SKIP_RULE, json);
		}
		free(json);
	}
	print_message("  %s: %zu lookup recording rules recorded from the replayed answers\n",
		      kernels[k], checked);
	if (failed)
		prom.keep = true;
	assert_int_equal(failed, 0);
	assert_true(checked > 0);
	if (!ratio_seen)
		fail_msg("%s has no rule %s (renamed? say so here)", RULES, DID_SKIP_RULE);
	free(text);
}

/* One pair of tests a kernel: cmocka names a test by its function. */
#define KERNEL_TESTS(K, NAME)                                                        \
	static void NAME##_every_lookup_panel_query_has_data_on_the_replayed_answers(  \
		void **state)                                                          \
	{                                                                              \
		(void)state;                                                           \
		lookup_queries(K);                                                     \
	}                                                                              \
	static void NAME##_every_lookup_recording_rule_records_on_the_replayed_answers( \
		void **state)                                                          \
	{                                                                              \
		(void)state;                                                           \
		lookup_rules(K);                                                       \
	}
KERNEL_TESTS(BOOKWORM, bookworm_6_1)
KERNEL_TESTS(TRIXIE, trixie_6_12)
KERNEL_TESTS(SID, sid)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bookworm_6_1_every_lookup_panel_query_has_data_on_the_replayed_answers),
		cmocka_unit_test(bookworm_6_1_every_lookup_recording_rule_records_on_the_replayed_answers),
		cmocka_unit_test(trixie_6_12_every_lookup_panel_query_has_data_on_the_replayed_answers),
		cmocka_unit_test(trixie_6_12_every_lookup_recording_rule_records_on_the_replayed_answers),
		cmocka_unit_test(sid_every_lookup_panel_query_has_data_on_the_replayed_answers),
		cmocka_unit_test(sid_every_lookup_recording_rule_records_on_the_replayed_answers),
	};

	return cmocka_run_group_tests_name("vm-dashboard", tests, setup, teardown);
}
