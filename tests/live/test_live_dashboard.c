// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * contrib/ against the real thing: a real `permscope daemon` (access, exec
 * and lookup asked for, with --bpf-stats), a real Prometheus scraping it
 * every second with contrib/prometheus/permscope.rules.yml evaluated every
 * second, and a workload (build/tests/workload access and exec-missing, in
 * a loop) so that the counters move.  Then:
 *
 * - every query of contrib/grafana/permscope-dashboard.json (tests/grafana.h:
 *   $instance the daemon's address, $__rate_interval 1m, $__interval 15s,
 *   $__range 5m) returns at least one sample with a number in it;
 * - every recording rule has recorded a series;
 * - every HTTP status has its series before its first answer, so that the
 *   panel of refused logins has data (0) on a daemon without --web-config;
 * - PermscopeProbeNotAttached is pending for a family that did not attach.
 *
 * A query or rule that reads only one family's metrics cannot return data
 * where that family did not attach (lookup, on a kernel that refuses
 * fentry and has no kprobes), nor one of the BPF programs' statistics
 * where the kernel would not enable them (--bpf-stats needs CAP_SYS_ADMIN
 * or sysctl kernel.bpf_stats_enabled=1; the daemon is then started
 * without it): it is named, with the reason, and not counted as checked.
 *
 * Needs root and BPF, and Prometheus and promtool (Debian package
 * prometheus); skips, saying why, without them.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "grafana.h"
#include "promserver.h"
#include "testutil.h"

#define RULES "contrib/prometheus/permscope.rules.yml"
#define DASHBOARD "contrib/grafana/permscope-dashboard.json"

static char skip_all[512];
static pid_t daemon_pid, load_pid;
static char daemon_addr[64];
static struct promserver prom;
static const char *families[] = { "lookup", "access", "exec" };
static bool attached[3]; /* by families[] */
static char bpf_stats_off[512]; /* why the daemon runs without --bpf-stats; "" if with */

/* TOP/REL, absolute: Prometheus reads the rules file from its own directory. */
static const char *top_path(const char *rel)
{
	static char paths[4][PATH_MAX];
	static unsigned int next;
	char *p = paths[next++ % 4], rel_path[PATH_MAX];

	snprintf(rel_path, sizeof(rel_path), "%s/../../../%s", testdata_dir(), rel);
	if (!realpath(rel_path, p))
		snprintf(p, PATH_MAX, "%s", rel_path);
	return p;
}

static const char *workload_bin(void)
{
	const char *w = getenv("PERMSCOPE_WORKLOAD");

	return w && *w ? w : "build/tests/workload";
}

/*
 * A child that runs `workload access 300` and `workload exec-missing 30`
 * five times a second until killed, so that every rate has calls in its
 * window whenever a query runs.
 */
static pid_t start_load(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char *access_argv[] = { (char *)workload_bin(), "access", "300", NULL };
		char *exec_argv[] = { (char *)workload_bin(), "exec-missing", "30", NULL };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			char **argvs[] = { access_argv, exec_argv };

			for (int i = 0; i < 2; i++) {
				pid_t w = fork();

				if (w == 0) {
					int fd = open("/dev/null", O_RDWR);

					dup2(fd, 0), dup2(fd, 1);
					execv(argvs[i][0], argvs[i]);
					_exit(127);
				}
				if (w > 0)
					waitpid(w, NULL, 0);
			}
			usleep(200000);
		}
	}
	return pid;
}

/*
 * Starts the daemon, reading its address from "listening on http://ADDR/";
 * with --bpf-stats when BPF_STATS is true.
 */
static int start_daemon(bool bpf_stats)
{
	char state[PATH_MAX], *text = NULL, *at;
	const char *err = tmp_path("daemon.stderr");
	char *argv[] = { (char *)permscope_bin(), "daemon", "--families", "lookup,access,exec",
			 "--listen", "127.0.0.1:0", "--state-dir", state, "--interval", "1", "--duty-cycle=always",
			 bpf_stats ? "--bpf-stats" : NULL, NULL };

	snprintf(state, sizeof(state), "%s/state", tmpdir);
	daemon_pid = spawn_to(argv, "/dev/null", err);
	for (int i = 0; i < 200; i++) {
		free(text);
		text = slurp(err, NULL);
		if (text && strstr(text, "listening on http://"))
			break;
		if (waitpid(daemon_pid, NULL, WNOHANG) == daemon_pid) {
			daemon_pid = 0;
			break;
		}
		usleep(50000);
	}
	if (!daemon_pid) { /* it exited: all it said */
		free(text);
		text = slurp(err, NULL);
	}
	at = text ? strstr(text, "listening on http://") : NULL;
	if (!at && bpf_stats && !daemon_pid && text && (at = strstr(text, "--bpf-stats: "))) {
		/* the kernel would not: the rest is still checked, the BPF panels named */
		snprintf(bpf_stats_off, sizeof(bpf_stats_off), "%.*s", (int)strcspn(at, "\n"), at);
		print_message("  %s: started again without --bpf-stats\n", bpf_stats_off);
		free(text);
		return start_daemon(false);
	}
	if (!at) {
		print_error("permscope daemon did not serve within 10 s:\n%s\n", text ? text : "");
		free(text);
		return -1;
	}
	at += strlen("listening on http://");
	snprintf(daemon_addr, sizeof(daemon_addr), "%.*s", (int)strcspn(at, "/\n"), at);
	print_message("  %.*s\n", (int)strcspn(text, "\n"), text);
	free(text);
	return 0;
}

/*
 * The group's setup: the daemon, Prometheus scraping it with the rules,
 * the load; returns once the rules have recorded and every family's
 * permscope_probe_attached is in Prometheus.  What cannot run here goes
 * into skip_all.
 */
static int setup(void **state)
{
	char yaml[2 * PATH_MAX], why[512];
	double took;
	char *json;

	(void)state;
	if (live_skip_reason(skip_all, sizeof(skip_all), permscope_bin()))
		return -1;
	if (skip_all[0])
		return 0;
	if (access(workload_bin(), X_OK)) {
		snprintf(skip_all, sizeof(skip_all), "%s not built", workload_bin());
		return 0;
	}
	if (!promtool_bin()) {
		snprintf(skip_all, sizeof(skip_all), "no promtool (Debian package prometheus)");
		return 0;
	}
	if (start_daemon(true))
		return -1;
	snprintf(yaml, sizeof(yaml),
		 "rule_files:\n  - %s\n"
		 "scrape_configs:\n  - job_name: permscope\n"
		 "    static_configs:\n      - targets: ['%s']\n",
		 top_path(RULES), daemon_addr);
	if (promserver_start(&prom, yaml, why, sizeof(why))) {
		if (access(PROMSERVER_BIN, X_OK) == 0)
			return -1; /* installed, and broken: that is a failure */
		snprintf(skip_all, sizeof(skip_all), "%s", why);
		return 0;
	}
	load_pid = start_load();
	json = promserver_wait_data(&prom, "permscope:access_calls:rate5m", 60, &took);
	print_message("  Prometheus %s scraping %s; rules recorded after %.1f s\n", prom.url,
		      daemon_addr, took);
	if (!promserver_has_data(json)) {
		free(json);
		print_error("the rules recorded nothing within 60 s\n");
		prom.keep = true;
		return -1;
	}
	free(json);
	/* Two scrapes at least in every 1m window, rates over calls made since. */
	sleep(3);
	for (int f = 0; f < 3; f++) {
		char q[128];

		snprintf(q, sizeof(q), "permscope_probe_attached{family=\"%s\",instance=\"%s\"}",
			 families[f], daemon_addr);
		attached[f] = promserver_value(&prom, q) == 1;
		print_message("  %s: %s\n", families[f], attached[f] ? "attached" : "not attached");
	}
	return 0;
}

static int teardown(void **state)
{
	if (load_pid > 0) {
		kill(load_pid, SIGKILL);
		waitpid(load_pid, NULL, 0);
	}
	promserver_stop(&prom);
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		wait_exit_status(daemon_pid);
	}
	return tmpdir_teardown(state);
}

/* Why a query of FAMILY's metrics alone cannot return data here; NULL if it can. */
static const char *cannot_check(const char *family)
{
	if (family && !strcmp(family, "bpf") && bpf_stats_off[0])
		return bpf_stats_off;
	for (int f = 0; family && f < 3; f++)
		if (!strcmp(family, families[f]) && !attached[f])
			return "its family did not attach on this host "
			       "(permscope_probe_attached 0, mode none)";
	return NULL;
}

/* Whether JSON (promserver_query()'s) holds a sample whose value is a number. */
static bool has_number(const char *json)
{
	json_t *root = json ? json_loads(json, 0, NULL) : NULL, *s;
	bool found = false;
	size_t i;

	json_array_foreach(root, i, s) {
		json_t *v = json_array_get(json_object_get(s, "value"), 1);
		double d = json_is_string(v) ? strtod(json_string_value(v), NULL) : NAN;

		found |= !isnan(d);
	}
	json_decref(root);
	return found;
}

/*
 * Every panel query and variable query of the dashboard, as Grafana would
 * send it for this daemon, returns a sample with a number.
 */
static void every_dashboard_query_returns_data(void **state)
{
	const struct grafana_var vars[] = { { "instance", daemon_addr },
					    { "__rate_interval", "1m" },
					    { "__interval", "15s" },
					    { "__range", "5m" },
					    { NULL, NULL } };
	json_error_t jerr;
	json_t *dash;
	struct grafana_query *qs;
	size_t n, checked = 0, unchecked = 0, failed = 0;

	(void)state;
	skip_unless_live(skip_all);
	dash = json_load_file(top_path(DASHBOARD), 0, &jerr);
	if (!dash)
		fail_msg("%s:%d: %s", DASHBOARD, jerr.line, jerr.text);
	n = grafana_queries(dash, vars, &qs);
	for (size_t i = 0; i < n; i++) {
		const char *why = cannot_check(qs[i].family);
		char *json = promserver_query(&prom, qs[i].expr);

		if (has_number(json)) {
			checked++;
		} else if (why) {
			print_message("  not checked: \"%s\" %s reads only %s metrics: %s\n",
				      qs[i].panel, qs[i].ref, qs[i].family, why);
			unchecked++;
		} else {
			print_error("no data: \"%s\" %s\n  %s\n  -> %s", qs[i].panel, qs[i].ref,
				    qs[i].expr, json ? json : "(promtool failed)\n");
			failed++;
		}
		free(json);
	}
	print_message("  %zu of %zu queries returned data, %zu could not be checked here\n",
		      checked, n, unchecked);
	if (failed)
		prom.keep = true;
	assert_int_equal(failed, 0);
	assert_true(checked > 0);
	grafana_free_queries(qs, n);
	json_decref(dash);
}

/* Every recording rule of the rules file has recorded a series for the daemon. */
static void every_recording_rule_records(void **state)
{
	char *text, *save = NULL;
	size_t checked = 0, unchecked = 0, failed = 0;

	(void)state;
	skip_unless_live(skip_all);
	text = slurp(top_path(RULES), NULL);
	assert_non_null(text);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128], query[256], *json, *family;
		const char *why;

		if (sscanf(l, " - record: %127s", name) != 1)
			continue;
		snprintf(query, sizeof(query), "%s{instance=\"%s\"}", name, daemon_addr);
		family = grafana_family(name);
		why = cannot_check(family);
		/* ratios of calls: a number while the load runs */
		json = promserver_wait_data(&prom, query, why ? 0 : 10, NULL);
		if (has_number(json)) {
			checked++;
		} else if (why) {
			print_message("  not checked: %s: %s\n", name, why);
			unchecked++;
		} else {
			print_error("no series: %s -> %s", query, json ? json : "(promtool failed)\n");
			failed++;
		}
		free(json);
		free(family);
	}
	print_message("  %zu recording rules recorded, %zu could not be checked here\n", checked,
		      unchecked);
	if (failed)
		prom.keep = true;
	assert_int_equal(failed, 0);
	assert_true(checked > 0);
	free(text);
}

/*
 * The panel of /metrics answers by code shows refused logins as the 401
 * line: on this daemon, without --web-config, nothing is refused, and the
 * line is still there at 0 (and so is PermscopeScrapeAuthFailures's
 * increase()), because every code has a series from the daemon's start.
 */
static void every_http_code_has_a_series_before_its_first_answer(void **state)
{
	static const char *const codes[] = { "200", "401", "404", "405", "429", "500" };
	char query[256];
	double v;

	(void)state;
	skip_unless_live(skip_all);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(query, sizeof(query),
			 "permscope_http_requests_total{code=\"%s\",instance=\"%s\"}", codes[i],
			 daemon_addr);
		v = promserver_value(&prom, query);
		print_message("  %s -> %g\n", query, v);
		assert_false(isnan(v));
		/* scrapes are answered 200; nothing asked for a password here */
		if (!strcmp(codes[i], "200"))
			assert_true(v > 0);
		else if (!strcmp(codes[i], "401"))
			assert_true(v == 0);
	}
	snprintf(query, sizeof(query),
		 "sum by (code) (rate(permscope_http_requests_total{code=\"401\",instance=\"%s\"}"
		 "[1m]))", daemon_addr);
	v = promserver_value(&prom, query);
	print_message("  the panel's 401 line: %g a second\n", v);
	assert_true(v == 0);
}

/*
 * The alerts are evaluated too: a family asked for that did not attach
 * makes PermscopeProbeNotAttached pending (it fires after 5 minutes).
 */
static void a_family_not_attached_makes_its_alert_pending(void **state)
{
	char query[256], *json;
	int f;

	(void)state;
	skip_unless_live(skip_all);
	for (f = 0; f < 3 && attached[f]; f++)
		;
	if (f == 3) {
		print_message("skipped: every family attached on this host\n");
		skip();
	}
	snprintf(query, sizeof(query),
		 "ALERTS{alertname=\"PermscopeProbeNotAttached\",alertstate=\"pending\","
		 "family=\"%s\",instance=\"%s\"}", families[f], daemon_addr);
	json = promserver_wait_data(&prom, query, 10, NULL);
	print_message("  %s -> %s", query, json ? json : "\n");
	assert_true(promserver_has_data(json));
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_dashboard_query_returns_data),
		cmocka_unit_test(every_recording_rule_records),
		cmocka_unit_test(every_http_code_has_a_series_before_its_first_answer),
		cmocka_unit_test(a_family_not_attached_makes_its_alert_pending),
	};

	return cmocka_run_group_tests_name("live-dashboard", tests, setup, teardown);
}
