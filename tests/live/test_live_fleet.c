// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet gate live (issue 23): two `permscope daemon`s on this host,
 * each watching its own workload (--comm), scraped every second by a real
 * Prometheus whose scrape config labels one cohort="base" and the other
 * cohort="new"; `permscope gate --prometheus` over a one-minute window
 * judges the two cohorts, each daemon one host.
 *
 * - equal workloads: every access and exec rule passes, each side one
 *   host; the lookup rules have no verdict, since lookup cannot attach on
 *   a host without fentry and kprobes (the daemons are not asked for it),
 *   so the default rules exit 3 and rules on access and exec alone exit 0;
 * - differing workloads (new makes twice the access calls, and its execs
 *   fail with a late ENOENT): rules on them fail, exit 1, naming the metric.
 *
 * The counts are exact: what gate and compare read from Prometheus is the
 * workloads' own numbers (docs/fleet.md, "Why a difference, not
 * increase()"), asserted through `compare --prometheus -j`.  The workloads
 * run once both daemons have been scraped at zero, so that each count is a
 * difference of two samples inside the window.
 *
 * Needs root, BPF (access and exec, any mode) and Prometheus and promtool
 * (Debian package prometheus); skipped, saying why, without them.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "daemonutil.h"
#include "promserver.h"

static char skip_all[512];

/* Two daemons, one a cohort, and the Prometheus that scrapes them. */
struct fleet {
	struct daemon base, new;
	struct promserver ps;
};

static struct fleet fleet;

/*
 * Start a daemon for each cohort (comm BASE_COMM and NEW_COMM) and a
 * Prometheus scraping them every second, one static job a cohort with the
 * cohort as a target label; return once Prometheus holds a sample of both
 * daemons' access counters, all still 0.
 */
static void fleet_start(struct fleet *f, const char *tag, const char *base_comm,
			const char *new_comm)
{
	char yaml[1024], why[PATH_MAX + 128], name[64];
	static const char *const cohorts[] = { "base", "new" };

	snprintf(name, sizeof(name), "%s-base", tag);
	daemon_start(&f->base, name, base_comm, "1", NULL);
	snprintf(name, sizeof(name), "%s-new", tag);
	daemon_start(&f->new, name, new_comm, "1", NULL);
	snprintf(yaml, sizeof(yaml),
		 "scrape_configs:\n"
		 "  - job_name: permscope-base\n"
		 "    static_configs:\n"
		 "      - targets: ['%s']\n"
		 "        labels:\n"
		 "          cohort: base\n"
		 "  - job_name: permscope-new\n"
		 "    static_configs:\n"
		 "      - targets: ['%s']\n"
		 "        labels:\n"
		 "          cohort: new\n", f->base.addr, f->new.addr);
	if (promserver_start(&f->ps, yaml, why, sizeof(why)))
		fail_msg("prometheus: %s", why);
	for (int i = 0; i < 2; i++) {
		char q[128], *json;
		double took;

		snprintf(q, sizeof(q), "sum(permscope_access_calls_total{cohort=\"%s\"})",
			 cohorts[i]);
		json = promserver_wait_data(&f->ps, q, 30, &took);
		if (!promserver_has_data(json)) {
			f->ps.keep = true;
			fail_msg("prometheus has no %s after %.1f s", q, took);
		}
		free(json);
		assert_true(promserver_value(&f->ps, q) == 0);
	}
}

/*
 * Poll sum(METRIC{cohort="COHORT"}) until it is WANT, 60 s at most; the
 * value last seen.  *t gets the time of the newest scrape of those series
 * (timestamp() of the series themselves: a sum's sample is stamped with
 * the query's time), when later than *t already.
 */
static double wait_value(struct fleet *f, const char *metric, const char *cohort, double want,
			 double *t)
{
	double t0 = promserver_now(), v = NAN, ts;
	char sum[256], stamp[256];

	snprintf(sum, sizeof(sum), "sum(%s{cohort=\"%s\"})", metric, cohort);
	snprintf(stamp, sizeof(stamp), "max(timestamp(%s{cohort=\"%s\"}))", metric, cohort);
	while (promserver_now() - t0 < 60) {
		v = promserver_value(&f->ps, sum);
		if (v == want)
			break;
		usleep(500000);
	}
	ts = promserver_value(&f->ps, stamp);
	print_message("  %s = %.0f after %.1f s (want %.0f), scraped at %.3f\n", sum, v,
		      promserver_now() - t0, want, ts);
	if (ts > *t)
		*t = ts;
	return v;
}

/*
 * Wait until Prometheus has scraped each cohort's final counts, then until
 * the second after the newest of those scrapes is over: gate's --at is in
 * whole seconds, and a window ending before a scrape would not hold it
 * (with --at the second the scrape fell in, the window held the zeros
 * alone and every count came out 0).
 */
static void wait_counts(struct fleet *f, int base_access, int base_exec, int new_access,
			int new_exec)
{
	static const char *const access_calls = "permscope_access_calls_total";
	static const char *const exec_calls = "permscope_exec_calls_total";
	double t = 0;

	assert_true(wait_value(f, access_calls, "base", base_access, &t) == base_access);
	assert_true(wait_value(f, exec_calls, "base", base_exec, &t) == base_exec);
	assert_true(wait_value(f, access_calls, "new", new_access, &t) == new_access);
	assert_true(wait_value(f, exec_calls, "new", new_exec, &t) == new_exec);
	assert_true(t > 0);
	while (time(NULL) <= (time_t)ceil(t))
		usleep(100000);
}

static void fleet_stop(struct fleet *f)
{
	promserver_stop(&f->ps);
	if (f->base.pid > 0)
		assert_int_equal(daemon_stop(&f->base, NULL), 0);
	if (f->new.pid > 0)
		assert_int_equal(daemon_stop(&f->new, NULL), 0);
}

/* Whatever a failing test left running: no Prometheus or daemon outlives it. */
static int fleet_teardown(void **state)
{
	(void)state;
	if (fleet.ps.pid > 0)
		fleet.ps.keep = true;
	promserver_stop(&fleet.ps);
	for (struct daemon *d = &fleet.base; d <= &fleet.new; d++)
		if (d->pid > 0) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, NULL, 0);
			d->pid = 0;
		}
	return 0;
}

/*
 * `permscope gate --prometheus URL --base '{cohort="base"}' --new
 * '{cohort="new"}' --window 1m --at NOW [EXTRA...]` (one host a side:
 * --min-hosts's default, 1), NOW
 * the second after Prometheus's last scrape; its exit status, its
 * stdout malloc'ed in *text (out_text is overwritten by every promtool
 * query, so the caller keeps its own copy).
 */
static int gate(struct fleet *f, char **text, const char *a1, const char *a2, const char *a3)
{
	char at[32];
	int status;

	/* after wait_counts(): every scrape of the final counts is in the window */
	snprintf(at, sizeof(at), "%lld", (long long)time(NULL));
	status = permscope("gate", "--prometheus", f->ps.url, "--base", "{cohort=\"base\"}",
			   "--new", "{cohort=\"new\"}", "--window", "1m",
			   "--at", at, a1, a2, a3, NULL);
	*text = strdup(out_text);
	assert_non_null(*text);
	if (err_text[0])
		print_message("  gate stderr:\n%s", err_text);
	return status;
}

/* The rule of gate -j's JSON whose metric is METRIC; fails when there is none. */
static json_t *rule_of(json_t *root, const char *metric)
{
	json_t *rules = json_object_get(root, "rules"), *r;
	size_t i;

	json_array_foreach(rules, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "metric")), metric))
			return r;
	fail_msg("gate -j has no rule on %s", metric);
	return NULL;
}

static const char *verdict_of(json_t *root, const char *metric)
{
	return json_string_value(json_object_get(rule_of(root, metric), "verdict"));
}

static double value_of(json_t *root, const char *metric, const char *side)
{
	return json_real_value(json_object_get(rule_of(root, metric), side));
}

/*
 * `permscope compare --prometheus ... -j` over the same window as gate():
 * METRIC's mean on SIDE ("base" or "new").
 */
static double compared(struct fleet *f, const char *family, const char *metric,
		       const char *side)
{
	char at[32];
	json_t *root, *m;
	size_t i;
	double v = NAN;

	snprintf(at, sizeof(at), "%lld", (long long)time(NULL));
	if (permscope("compare", "--prometheus", f->ps.url, "--window", "1m",
		      "--at", at, "-j", "{cohort=\"base\"}", "{cohort=\"new\"}", NULL))
		fail_msg("compare --prometheus: %s", err_text);
	root = json_loads(out_text, 0, NULL);
	assert_non_null(root);
	json_array_foreach(json_object_get(json_object_get(json_object_get(root, "families"),
							  family), "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), metric))
			v = json_number_value(json_object_get(json_object_get(m, side), "mean"));
	json_decref(root);
	return v;
}

/* Each side one host (one run) for METRIC's rule. */
static void assert_one_host_a_side(json_t *root, const char *metric)
{
	json_t *r = rule_of(root, metric);

	assert_int_equal(json_integer_value(json_object_get(r, "n_base")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "n_new")), 1);
}

#define N_ACCESS 600
#define M_EXEC 20

static const char *const access_exec_rules[] = {
	"access.unsafe", "access.avoidable_per_call", "exec.enoent_early_share",
};

/*
 * Equal workloads on both cohorts: the access and exec rules pass, each
 * side one host; lookup's rules are skipped (the daemons were not asked for
 * it), so the default rules pass (exit 0), as access's and exec's alone do.
 */
static void gate_judges_two_daemons_equal_cohorts(void **state)
{
	const char *rules = tmp_path("access-exec.rules");
	static const char rules_text[] =
		"# the default rules of the families this host records\n"
		"access.unsafe == 0\n"
		"access.avoidable_per_call <= base + 0.01\n"
		"exec.enoent_early_share >= base - 0.01\n";
	char *text;
	json_t *root;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	if (promserver_missing()) {
		print_message("skipped: %s\n", promserver_missing());
		skip();
	}
	fleet_start(&fleet, "equal", "psf-eq-base", "psf-eq-new");
	run_caller("psf-eq-base", N_ACCESS, M_EXEC);
	run_caller("psf-eq-new", N_ACCESS, M_EXEC);
	run_caller("psf-eq-other", 300, 5); /* neither daemon's comm: counted by none */
	wait_counts(&fleet, N_ACCESS, M_EXEC, N_ACCESS, M_EXEC);

	/*
	 * the default rules: the daemons were asked for access and exec only, so
	 * lookup's rules are skipped (not asked), and the gate passes
	 */
	status = gate(&fleet, &text, NULL, NULL, NULL);
	print_message("  permscope gate (default rules): exit %d\n%s", status, text);
	assert_int_equal(status, 0);
	assert_non_null(strstr(text, "\nPASS  access.unsafe  "));
	assert_non_null(strstr(text, "\nPASS  access.avoidable_per_call  "));
	assert_non_null(strstr(text, "\nPASS  exec.enoent_early_share  "));
	assert_non_null(strstr(text, "\nSKIPPED  lookup.violations  neither profile was asked to "
			       "record the lookup family\n"));
	assert_non_null(strstr(text, "\nSKIPPED  lookup.did_skip_ratio"));
	assert_null(strstr(text, "FAIL"));
	free(text);

	status = gate(&fleet, &text, "-j", NULL, NULL);
	root = json_loads(text, 0, NULL);
	if (!root)
		fail_msg("gate -j is not JSON:\n%s", text);
	assert_int_equal(status, 0);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "pass");
	for (size_t i = 0; i < sizeof(access_exec_rules) / sizeof(*access_exec_rules); i++) {
		const char *m = access_exec_rules[i];

		print_message("  %s: base %g, new %g: %s\n", m, value_of(root, m, "base"),
			      value_of(root, m, "new"), verdict_of(root, m));
		assert_string_equal(verdict_of(root, m), "pass");
		assert_one_host_a_side(root, m);
	}
	/* nothing unsafe: 0 stays 0 whatever increase() extrapolates */
	assert_true(value_of(root, "access.unsafe", "base") == 0);
	assert_true(value_of(root, "access.unsafe", "new") == 0);
	/* ratios of one host's counts: the same workload, the same ratio */
	assert_true(fabs(value_of(root, "exec.enoent_early_share", "base") -
			 value_of(root, "exec.enoent_early_share", "new")) < 1e-9);
	assert_true(fabs(value_of(root, "access.avoidable_per_call", "base") -
			 value_of(root, "access.avoidable_per_call", "new")) < 1e-9);
	assert_string_equal(verdict_of(root, "lookup.violations"), "skipped");
	assert_string_equal(verdict_of(root, "lookup.did_skip_ratio"), "skipped");
	json_decref(root);
	free(text);

	/* the workloads' own counts, to the call (and psf-eq-other's on neither side) */
	for (int i = 0; i < 2; i++) {
		const char *side = i ? "new" : "base";
		double calls = compared(&fleet, "access", "access.calls", side);
		double execs = compared(&fleet, "exec", "exec.calls", side);

		print_message("  compare --prometheus: %s access.calls %g, exec.calls %g\n", side,
			      calls, execs);
		assert_true(calls == N_ACCESS);
		assert_true(execs == M_EXEC);
	}

	/* only the families this host records: every rule passes */
	write_file(rules, rules_text, strlen(rules_text));
	status = gate(&fleet, &text, "--rules", rules, NULL);
	print_message("  permscope gate --rules %s: exit %d\n%s", rules, status, text);
	assert_int_equal(status, 0);
	assert_null(strstr(text, "NO-VERDICT"));
	assert_null(strstr(text, "FAIL"));
	free(text);
	fleet_stop(&fleet);
}

/*
 * A script whose interpreter is missing: execve() opens it, allocates the
 * new mm, and only then fails with ENOENT, looking for the interpreter: a
 * late ENOENT on every kernel, in every attach mode (tracepoint mode sees
 * the mm's allocation too).
 */
static const char *late_enoent_script(void)
{
	static const char text[] = "#!/nonexistent-permscope-dir/interpreter\n";
	const char *path = tmp_path("late-enoent.sh");

	write_file(path, text, strlen(text));
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/*
 * The cohorts differ: new makes twice base's access calls, and its execs
 * fail with a late ENOENT where base's (a missing path) fail early on a
 * kernel with the early check.  Rules on either fail: exit 1, the metric
 * named on a FAIL line.
 */
static void gate_fails_a_new_cohort_that_differs(void **state)
{
	const char *rules = tmp_path("differ.rules");
	static const char rules_text[] =
		"access.calls <= base\n"
		"exec.enoent_early_share >= base - 0.01\n"
		"access.unsafe == 0\n";
	double early_base, early_new;
	char *text;
	json_t *root;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	if (promserver_missing()) {
		print_message("skipped: %s\n", promserver_missing());
		skip();
	}
	write_file(rules, rules_text, strlen(rules_text));
	fleet_start(&fleet, "differ", "psf-df-base", "psf-df-new");
	run_caller("psf-df-base", N_ACCESS, M_EXEC);
	run_caller_exec("psf-df-new", 2 * N_ACCESS, M_EXEC, late_enoent_script());
	wait_counts(&fleet, N_ACCESS, M_EXEC, 2 * N_ACCESS, M_EXEC);
	/* every one of new's execs failed late; Prometheus has the same counts */
	assert_true(promserver_value(&fleet.ps, "sum(permscope_exec_calls_total"
				     "{cohort=\"new\",outcome=\"enoent_late\"})") == M_EXEC);

	status = gate(&fleet, &text, "--rules", rules, NULL);
	print_message("  permscope gate --rules %s: exit %d\n%s", rules, status, text);
	assert_int_equal(status, 1);
	/* a line a rule, the verdict first: the failing metric is named */
	assert_non_null(strstr(text, "\nFAIL  access.calls  "));
	assert_non_null(strstr(text, "\nPASS  access.unsafe  "));
	free(text);

	status = gate(&fleet, &text, "-j", "--rules", rules);
	root = json_loads(text, 0, NULL);
	if (!root)
		fail_msg("gate -j is not JSON:\n%s", text);
	assert_int_equal(status, 1);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "fail");
	assert_string_equal(verdict_of(root, "access.calls"), "fail");
	assert_string_equal(verdict_of(root, "access.unsafe"), "pass");
	assert_one_host_a_side(root, "access.calls");
	/*
	 * Twice the calls, exactly (increase() had made 600 anything from
	 * 609 to 877 here, over the few seconds a daemon was scraped)
	 */
	print_message("  access.calls: base %g, new %g\n", value_of(root, "access.calls", "base"),
		      value_of(root, "access.calls", "new"));
	assert_true(value_of(root, "access.calls", "base") == N_ACCESS);
	assert_true(value_of(root, "access.calls", "new") == 2 * N_ACCESS);
	/* every exec of new failed with ENOENT, none early (enoent_early_share 0, below) */
	assert_true(compared(&fleet, "exec", "exec.enoent", "new") == M_EXEC);
	early_base = value_of(root, "exec.enoent_early_share", "base");
	early_new = value_of(root, "exec.enoent_early_share", "new");
	print_message("  exec.enoent_early_share: base %g, new %g: %s\n", early_base, early_new,
		      verdict_of(root, "exec.enoent_early_share"));
	assert_true(early_new == 0);
	/* a missing path fails before the mm on a kernel with the early check (6.18 has it) */
	if (early_base > 0.01)
		assert_string_equal(verdict_of(root, "exec.enoent_early_share"), "fail");
	else
		print_message("  (no early ENOENT on this kernel: that rule cannot fail here)\n");
	json_decref(root);
	free(text);
	fleet_stop(&fleet);
}

/* Can the daemons run here at all?  If not, say why once and skip all. */
static int probe_environment(void **state)
{
	(void)state;
	return live_skip_reason(skip_all, sizeof(skip_all), permscope_bin());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(gate_judges_two_daemons_equal_cohorts, fleet_teardown),
		cmocka_unit_test_teardown(gate_fails_a_new_cohort_that_differs, fleet_teardown),
	};

	return cmocka_run_group_tests_name("live-fleet", tests, probe_environment,
					   tmpdir_teardown);
}
