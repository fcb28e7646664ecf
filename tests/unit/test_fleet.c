// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Gating a rollout from Prometheus, hermetic and end to end: the verdicts
 * `permscope gate --prometheus` gives on fleet data are the verdicts the
 * same gate gives on the hosts' own profile files, merged.
 *
 * Five sides of three hosts, each host a profile (tests/unit/data's
 * sample, its fast-path count varied a little a host, as hosts differ):
 *
 *   base    the stock kernel's hosts
 *   same    hosts like base: every rule passes
 *   unsafe  one host made 3 unsafe access calls: access.unsafe fails
 *   lossy   one host lost 7 access events: the access rules have no
 *           verdict, the host is named (and --accept-loss judges anyway)
 *   reset   one host's daemon restarted inside the window (two
 *           recordings, the counters from 0 again): no rule is judged, the
 *           host is named.  A file is one daemon run, so this one has no
 *           file counterpart.
 *
 * Each profile is written as OpenMetrics by `permscope report --format
 * openmetrics --instance HOST --job SIDE`, backfilled with the real
 * promtool into one TSDB, and a real Prometheus serves it.  Then gate
 * and compare run against Prometheus, and against `permscope merge` of the
 * same sides' files: the same verdicts, exit statuses and compared
 * numbers.  Last, with Prometheus stopped: exit 4.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "promserver.h"
#include "profile.h"
#include "metrics.h"

#define S_NS 1796032800000000000ULL /* 2026-11-30T10:00:00Z */
#define E_NS 1796032860000000000ULL /* a minute later */
#define AT "1796032860"
#define WINDOW "2m"
#define REV "cccccccccccccccccccccccccccccccccccccccc"

/* A host: its side, its name and what sets it apart. */
static const struct host_spec {
	const char *job, *instance;
	int unsafe; /* unsafe access calls */
	int lost;   /* lost access events */
	bool restarts;
} hosts[] = {
	{ "base", "base-1", 0, 0, false },   { "base", "base-2", 0, 0, false },
	{ "base", "base-3", 0, 0, false },   { "same", "same-1", 0, 0, false },
	{ "same", "same-2", 0, 0, false },   { "same", "same-3", 0, 0, false },
	{ "unsafe", "unsafe-1", 0, 0, false }, { "unsafe", "unsafe-2", 3, 0, false },
	{ "unsafe", "unsafe-3", 0, 0, false }, { "lossy", "lossy-1", 0, 0, false },
	{ "lossy", "lossy-2", 0, 7, false },   { "lossy", "lossy-3", 0, 0, false },
	{ "reset", "reset-1", 0, 0, false },   { "reset", "reset-2", 0, 0, false },
	{ "reset", "reset-3", 0, 0, true },
};
#define NHOSTS (sizeof(hosts) / sizeof(hosts[0]))

static struct promserver ps;
static char skip_why[256];

/* The profile of host `h`, recorded from `start` to `end`, as a file and backfilled. */
static void write_host(size_t h, uint64_t start, uint64_t end, const char *file,
		       const char *tsdb)
{
	const struct host_spec *hs = &hosts[h];
	char data[PATH_MAX], err[512], om[PATH_MAX];
	char *argv[] = { (char *)permscope_bin(), "report", (char *)file, "--format",
			 "openmetrics", "--instance", (char *)hs->instance, "--job",
			 (char *)hs->job, "-o", om, NULL };
	struct profile p;

	snprintf(data, sizeof(data), "%s/sample-profile.json", testdata_dir());
	if (profile_read(data, &p, err, sizeof(err)))
		fail_msg("%s: %s", data, err);
	p.start_ns = start;
	p.end_ns = end;
	/* each host its own boot: merge takes each file for a recording of its own */
	snprintf(p.boot_id, sizeof(p.boot_id), "00000000-0000-0000-0000-%012zu", h);
	snprintf(p.build.version, sizeof(p.build.version), "0.1.0");
	snprintf(p.build.revision, sizeof(p.build.revision), REV);
	snprintf(p.build.libbpf, sizeof(p.build.libbpf), "v1.1");
	/* hosts differ a little: 100 fast-path calls more a host of a side */
	p.access.calls[ACCESS_FAST] += 100 * (h % 3);
	p.access.latency[ACCESS_FAST].slots[9] += 100 * (h % 3);
	p.access.latency[ACCESS_FAST].count += 100 * (h % 3);
	p.access.latency[ACCESS_FAST].sum += 700 * 100 * (h % 3);
	if (hs->unsafe) {
		p.access.calls[ACCESS_UNSAFE] = hs->unsafe;
		p.access.latency[ACCESS_UNSAFE].slots[11] = hs->unsafe;
		p.access.latency[ACCESS_UNSAFE].count = hs->unsafe;
		p.access.latency[ACCESS_UNSAFE].sum = 3000ULL * hs->unsafe;
	}
	/* as today's daemon writes them: losses read, none but the lossy host's */
	for (int f = 0; f < FAMILY_COUNT; f++)
		p.fam[f].lost_known = true;
	if (hs->lost)
		family_add_lost(&p.fam[FAMILY_ACCESS], "access_tp", hs->lost);
	assert_int_equal(profile_write(&p, file), 0);
	profile_free(&p);
	snprintf(om, sizeof(om), "%s.om", file);
	if (run_capture(argv) != 0)
		fail_msg("report %s: %s", file, err_text);
	promtool_backfill(om, tsdb);
}

static int fleet_setup(void **state)
{
	char tsdb[PATH_MAX], why[PATH_MAX + 128], file[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	if (promserver_missing()) {
		snprintf(skip_why, sizeof(skip_why), "%s", promserver_missing());
		return 0;
	}
	snprintf(tsdb, sizeof(tsdb), "%s", tmp_path("tsdb"));
	for (size_t h = 0; h < NHOSTS; h++) {
		snprintf(file, sizeof(file), "%s/%s.json", tmpdir, hosts[h].instance);
		if (!hosts[h].restarts) {
			write_host(h, S_NS, E_NS, file, tsdb);
			continue;
		}
		/*
		 * A daemon that restarted at :30: its first run's recording up
		 * to :20, then the second run's from :30, whose file is what the
		 * host's state directory holds afterwards.
		 */
		snprintf(file, sizeof(file), "%s/%s-first-run.json", tmpdir, hosts[h].instance);
		write_host(h, S_NS, S_NS + 20000000000ULL, file, tsdb);
		snprintf(file, sizeof(file), "%s/%s.json", tmpdir, hosts[h].instance);
		write_host(h, S_NS + 30000000000ULL, E_NS, file, tsdb);
	}
	if (promserver_start_tsdb(&ps, NULL, tsdb, why, sizeof(why)))
		fail_msg("%s", why);
	return 0;
}

static int fleet_teardown(void **state)
{
	if (ps.pid)
		promserver_stop(&ps);
	return tmpdir_teardown(state);
}

static void skip_without_server(void)
{
	skip_if(skip_why);
}

/* `permscope merge` of side `job`'s files, in the hosts' order: its path. */
static const char *merged(const char *job)
{
	static char out[2][PATH_MAX];
	static int next;
	char files[3][PATH_MAX], *o = out[next++ % 2];
	int n = 0;

	snprintf(o, PATH_MAX, "%s/%s-merged.json", tmpdir, job);
	for (size_t h = 0; h < NHOSTS; h++)
		if (!strcmp(hosts[h].job, job))
			snprintf(files[n++], PATH_MAX, "%s/%s.json", tmpdir, hosts[h].instance);
	assert_int_equal(n, 3);
	if (permscope("merge", "-o", o, files[0], files[1], files[2], NULL))
		fail_msg("merge %s: %s", job, err_text);
	return o;
}

static const char *selector(const char *job)
{
	static char sel[4][64];
	static int next;
	char *s = sel[next++ % 4];

	snprintf(s, 64, "{job=\"%s\"}", job);
	return s;
}

/* gate over Prometheus: its exit status; out_text holds its text. */
static int gate_prom(const char *base, const char *new, const char *url, const char *fmt)
{
	return permscope("gate", "--prometheus", url, "--base", selector(base), "--new",
			 selector(new), "--window", WINDOW, "--at", AT, "--min-hosts", "3",
			 "--format", fmt, NULL);
}

static int gate_files(const char *base, const char *new)
{
	return permscope("gate", "--base", merged(base), "--new", merged(new), NULL);
}

/* rule -> verdict of gate's JSON in out_text, as "rule=VERDICT\n" lines. */
static char *verdict_lines(void)
{
	json_error_t jerr;
	json_t *root = json_loads(out_text, 0, &jerr), *r;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!root)
		fail_msg("gate -j: not JSON (%s): %s", jerr.text, out_text);
	json_array_foreach(json_object_get(root, "rules"), i, r)
		fprintf(f, "%s=%s\n", json_string_value(json_object_get(r, "rule")),
			json_string_value(json_object_get(r, "verdict")));
	fclose(f);
	json_decref(root);
	return buf;
}

/* The same side pair through Prometheus and through files: the same verdicts. */
static void same_verdicts(const char *base, const char *new, int want)
{
	char *from_prom, *from_files;

	assert_int_equal(gate_prom(base, new, ps.url, "json"), want);
	from_prom = verdict_lines();
	if (permscope("gate", "--base", merged(base), "--new", merged(new), "-j", NULL) != want)
		fail_msg("files: %s%s", out_text, err_text);
	from_files = verdict_lines();
	assert_string_equal(from_prom, from_files);
	free(from_prom);
	free(from_files);
}

static void equal_sides_pass(void **state)
{
	(void)state;
	skip_without_server();
	if (gate_prom("base", "same", ps.url, "text") != 0)
		fail_msg("%s%s", out_text, err_text);
	print_message("%s", out_text);
	assert_contains(out_text, "gate: base {job=\"base\"}: 3 hosts (base-1, base-2, base-3), "
			"2m to 2026-11-30T10:01:00Z\n");
	assert_contains(out_text, "PASS  access.unsafe  new 0  base 0  threshold == 0  "
			"hosts 3:3\n");
	/* a side read from Prometheus holds no cred layout: its rule skipped, named */
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  cred.refcount_shares_line  neither profile holds struct "
			"cred's layout (");
	assert_contains(out_text, "gate: 5 passed, 0 failed, 0 without verdict, 1 skipped\n");
	assert_int_equal(gate_files("base", "same"), 0);
	same_verdicts("base", "same", 0);
}

static void an_unsafe_host_fails_access_unsafe(void **state)
{
	(void)state;
	skip_without_server();
	assert_int_equal(gate_prom("base", "unsafe", ps.url, "text"), 1);
	print_message("%s", out_text);
	/* the mean of the three hosts: 3 calls on one of them */
	assert_contains(out_text, "FAIL  access.unsafe  new 1  base 0  threshold == 0  "
			"hosts 3:3\n"
			"      base: base-1 0, base-2 0, base-3 0\n"
			"      new: unsafe-1 0, unsafe-2 3, unsafe-3 0\n");
	assert_int_equal(gate_files("base", "unsafe"), 1);
	assert_contains(out_text, "FAIL  access.unsafe  new 1  base 0  threshold == 0\n");
	same_verdicts("base", "unsafe", 1);
}

static void a_lossy_host_holds_back_its_family(void **state)
{
	(void)state;
	skip_without_server();
	assert_int_equal(gate_prom("base", "lossy", ps.url, "text"), 3);
	print_message("%s", out_text);
	assert_contains(out_text, "gate: new {job=\"lossy\"}: host lossy-2 lost 7 events "
			"(family access, program access_tp)\n");
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.unsafe  the new profile lost 7 events of "
			"the access family");
	assert_contains(out_text, "PASS  exec.enoent_early_share");
	assert_int_equal(gate_files("base", "lossy"), 3);
	same_verdicts("base", "lossy", 3);
	/* a loss a user accepts: judged, from Prometheus as from the files */
	assert_int_equal(permscope("gate", "--prometheus", ps.url, "-b", selector("base"), "-n",
				   selector("lossy"), "--window", WINDOW, "--at", AT,
				   "--accept-loss", "0.001", NULL), 0);
	assert_int_equal(permscope("gate", "-b", merged("base"), "-n", merged("lossy"),
				   "--accept-loss", "0.001", NULL), 0);
}

static void a_restarted_host_holds_back_its_side(void **state)
{
	const char *junit = tmp_path("reset.xml");
	json_error_t jerr;
	json_t *root, *hs;
	char *xml;

	(void)state;
	skip_without_server();
	assert_int_equal(gate_prom("base", "reset", ps.url, "text"), 3);
	print_message("%s", out_text);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  new {job=\"reset\"}: host reset-3: its daemon "
			"restarted inside the window (last at 2026-11-30T10:00:30Z)");
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.unsafe  a side's data cannot be judged");
	assert_not_contains(out_text, "PASS");
	assert_not_contains(out_text, "host reset-1:");

	/* JSON: each host with its reasons; JUnit: the reasons as properties */
	assert_int_equal(permscope("gate", "--prometheus", ps.url, "-b", selector("base"), "-n",
				   selector("reset"), "--window", WINDOW, "--at", AT, "-j",
				   "--junit", junit, NULL), 3);
	root = json_loads(out_text, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "no-verdict");
	hs = json_object_get(json_object_get(root, "new"), "hosts");
	assert_int_equal(json_array_size(hs), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(hs, 2), "instance")),
			    "reset-3");
	assert_true(json_array_size(json_object_get(json_array_get(hs, 2), "reasons")) >= 1);
	assert_int_equal(json_array_size(json_object_get(json_array_get(hs, 0), "reasons")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "new"),
							      "at")), "2026-11-30T10:01:00Z");
	json_decref(root);
	xml = slurp(junit, NULL);
	assert_contains(xml, "<property name=\"no-verdict\" value=\"new {job=&quot;reset&quot;}: "
			"host reset-3: ");
	assert_contains(xml, "<error type=\"no-verdict\" message=\"no verdict: a side&apos;s data "
			"cannot be judged");
	free(xml);

	/* compare shows no numbers from such data: the reasons, exit 3 */
	assert_int_equal(permscope("compare", "--prometheus", ps.url, "--window", WINDOW, "--at",
				   AT, selector("base"), selector("reset"), NULL), 3);
	assert_contains(err_text, "host reset-3: its daemon restarted");
	assert_string_equal(out_text, "");
}

/* compare's numbers from Prometheus are the numbers from the files, to the digit. */
static void compare_from_prometheus_is_compare_of_the_files(void **state)
{
	json_t *a, *b;
	json_error_t jerr;

	(void)state;
	skip_without_server();
	if (permscope("compare", "--prometheus", ps.url, "--window", WINDOW, "--at", AT, "-j",
		      selector("base"), selector("unsafe"), NULL))
		fail_msg("%s", err_text);
	a = json_loads(out_text, 0, &jerr);
	assert_non_null(a);
	if (permscope("compare", "-j", merged("base"), merged("unsafe"), NULL))
		fail_msg("%s", err_text);
	b = json_loads(out_text, 0, &jerr);
	assert_non_null(b);
	if (!json_equal(json_object_get(a, "families"), json_object_get(b, "families"))) {
		char *x = json_dumps(json_object_get(a, "families"), JSON_SORT_KEYS);
		char *y = json_dumps(json_object_get(b, "families"), JSON_SORT_KEYS);
		size_t at = 0;

		while (x[at] && x[at] == y[at])
			at++;
		at = at > 300 ? at - 300 : 0;
		fail_msg("compare --prometheus and compare of the merged files differ:\n"
			 "  prometheus: ...%.600s\n  files:      ...%.600s", x + at, y + at);
	}
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "new"), "runs")),
			 3);
	json_decref(a);
	json_decref(b);
	/* the text and the HTML name each side's hosts and window */
	assert_int_equal(permscope("compare", "--prometheus", ps.url, "--window", WINDOW, "--at",
				   AT, selector("base"), selector("unsafe"), NULL), 0);
	assert_contains(out_text, "{job=\"unsafe\"}: 3 hosts (unsafe-1, unsafe-2, unsafe-3), 2m "
			"to 2026-11-30T10:01:00Z");
	assert_int_equal(permscope("compare", "--prometheus", ps.url, "--window", WINDOW, "--at",
				   AT, "--format", "html", selector("base"), selector("unsafe"), NULL),
			 0);
	assert_contains(out_text, "{job=&quot;unsafe&quot;}: 3 hosts (unsafe-1, unsafe-2, "
			"unsafe-3)");
	/* -v: each query, ready to paste into Prometheus's UI */
	assert_int_equal(permscope("compare", "-v", "--prometheus", ps.url, "--window", WINDOW,
				   "--at", AT, selector("base"), selector("unsafe"), NULL), 0);
	assert_contains(err_text, "query: ((permscope_access_calls_total{job=\"unsafe\"} - "
			"permscope_access_calls_total{job=\"unsafe\"} offset 2m) or "
			"(permscope_access_calls_total{job=\"unsafe\"} unless "
			"permscope_access_calls_total{job=\"unsafe\"} offset 2m)) @ ");
}

static void too_few_hosts_and_bad_input(void **state)
{
	(void)state;
	skip_without_server();
	assert_int_equal(permscope("gate", "--prometheus", ps.url, "-b", selector("base"), "-n",
				   selector("same"), "--window", WINDOW, "--at", AT, "--min-hosts",
				   "4", NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  base {job=\"base\"}: 3 hosts, fewer than the 4 "
			"asked for (--min-hosts)");
	assert_int_equal(permscope("gate", "--prometheus", ps.url, "-b", "job=base", "-n",
				   selector("same"), NULL), 2);
	assert_contains(err_text, "label matchers in braces");
	assert_int_equal(permscope("gate", "-b", "a.json", "-n", "b.json", "--window", "5m",
				   NULL), 2);
	assert_contains(err_text, "go with --prometheus URL");
	assert_int_equal(permscope("gate", "--prometheus", ps.url, "-b", selector("base"), "-n",
				   selector("same"), "--prometheus-user", "u", NULL), 2);
	assert_contains(err_text, "--prometheus-user and --prometheus-password-file go together");
}

/* Last: with Prometheus gone, gate and compare say so and exit 4. */
static void a_stopped_prometheus_is_exit_4(void **state)
{
	char url[64];

	(void)state;
	skip_without_server();
	snprintf(url, sizeof(url), "%s", ps.url);
	promserver_stop(&ps);
	assert_int_equal(gate_prom("base", "same", url, "text"), 4);
	assert_contains(err_text, url);
	assert_string_equal(out_text, "");
	assert_int_equal(permscope("compare", "--prometheus", url, selector("base"),
				   selector("same"), NULL), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_sides_pass),
		cmocka_unit_test(an_unsafe_host_fails_access_unsafe),
		cmocka_unit_test(a_lossy_host_holds_back_its_family),
		cmocka_unit_test(a_restarted_host_holds_back_its_side),
		cmocka_unit_test(compare_from_prometheus_is_compare_of_the_files),
		cmocka_unit_test(too_few_hosts_and_bad_input),
		cmocka_unit_test(a_stopped_prometheus_is_exit_4),
	};

	return cmocka_run_group_tests_name("fleet", tests, fleet_setup, fleet_teardown);
}
