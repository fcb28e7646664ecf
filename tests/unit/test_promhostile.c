// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What `gate --prometheus` believes of a Prometheus answer: nothing that
 * is not what it claims to be.  Each case must give a named reason and
 * exit 3 (cannot judge) or 4 (the source failed), never a PASS.
 *
 * The data: two sides of three hosts (job="base", job="new", the sample
 * profile each, the same counts), backfilled with promtool into a real
 * Prometheus; a host scraped by two jobs (instance dup-1, jobs "dup" and
 * "dup-migrated"); a host that reported only before the window.  In front
 * of it a fake (tests/fakeprom.h) forwards every query and changes one
 * thing in the answers: a value that is no count, a warning, a family's
 * series dropped, a label with a newline, a slow answer, an error page
 * that echoes the request's token, a redirect with control bytes in its
 * Location, a 32 MiB answer and a 200 MiB one gzipped to a few hundred kB.
 * A second real Prometheus on a copy of the TSDB, with a remote_read to a
 * port where nothing listens, gives the warnings of a partial answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "fakeprom.h"
#include "promserver.h"
#include "profile.h"

#define S_NS 1796032800000000000ULL /* 2026-11-30T10:00:00Z */
#define E_NS 1796032860000000000ULL /* a minute later */
#define AT "1796032860"
#define WINDOW "2m"
#define REV "cccccccccccccccccccccccccccccccccccccccc"
#define TOKEN "tok-9f8e7d6c5b4a-secret"

static const struct host_spec {
	const char *job, *instance;
	uint64_t start, end;
} hosts[] = {
	{ "base", "base-1", S_NS, E_NS },	{ "base", "base-2", S_NS, E_NS },
	{ "base", "base-3", S_NS, E_NS },	{ "new", "new-1", S_NS, E_NS },
	{ "new", "new-2", S_NS, E_NS },		{ "new", "new-3", S_NS, E_NS },
	{ "dup", "dup-1", S_NS, E_NS },		{ "dup-migrated", "dup-1", S_NS, E_NS },
	/* reported from 7 to 6 minutes before S, and then no more */
	{ "gone", "gone-1", S_NS - 420000000000ULL, S_NS - 360000000000ULL },
	{ "gone", "gone-2", S_NS, E_NS },
};
#define NHOSTS (sizeof(hosts) / sizeof(hosts[0]))

static struct promserver ps, partial;
static struct fakeprom fp;
static char skip_why[256];

/* The sample profile as host H, from its start to its end, backfilled into TSDB. */
static void backfill_host(size_t h, const char *tsdb)
{
	char data[PATH_MAX], file[PATH_MAX - 8], om[PATH_MAX], err[512];
	char *argv[] = { (char *)permscope_bin(), "report", file, "--format", "openmetrics",
			 "--instance", (char *)hosts[h].instance, "--job", (char *)hosts[h].job,
			 "-o", om, NULL };
	struct profile p;

	snprintf(data, sizeof(data), "%s/sample-profile.json", testdata_dir());
	if (profile_read(data, &p, err, sizeof(err)))
		fail_msg("%s: %s", data, err);
	p.start_ns = hosts[h].start;
	p.end_ns = hosts[h].end;
	snprintf(p.build.version, sizeof(p.build.version), "0.1.0");
	snprintf(p.build.revision, sizeof(p.build.revision), REV);
	snprintf(p.build.libbpf, sizeof(p.build.libbpf), "v1.1");
	for (int f = 0; f < FAMILY_COUNT; f++)
		p.fam[f].lost_known = true;
	snprintf(file, sizeof(file), "%s/%s-%s.json", tmpdir, hosts[h].instance, hosts[h].job);
	snprintf(om, sizeof(om), "%s.om", file);
	assert_int_equal(profile_write(&p, file), 0);
	profile_free(&p);
	if (run_capture(argv) != 0)
		fail_msg("report %s: %s", file, err_text);
	promtool_backfill(om, tsdb);
}

static int setup(void **state)
{
	char tsdb[PATH_MAX], copy[PATH_MAX], why[PATH_MAX + 128], yaml[256];
	char *cp[] = { "/bin/cp", "-a", tsdb, copy, NULL };

	if (tmpdir_setup(state))
		return -1;
	if (promserver_missing()) {
		snprintf(skip_why, sizeof(skip_why), "%s", promserver_missing());
		return 0;
	}
	snprintf(tsdb, sizeof(tsdb), "%s", tmp_path("tsdb"));
	snprintf(copy, sizeof(copy), "%s", tmp_path("tsdb-partial"));
	for (size_t h = 0; h < NHOSTS; h++)
		backfill_host(h, tsdb);
	assert_int_equal(run_to(cp, NULL, NULL), 0);
	if (promserver_start_tsdb(&ps, NULL, tsdb, why, sizeof(why)))
		fail_msg("%s", why);
	/* remote_read to a port nobody listens on: every answer carries its warning */
	snprintf(yaml, sizeof(yaml), "remote_read:\n  - url: http://127.0.0.1:%d/read\n",
		 promserver_free_port());
	if (promserver_start_tsdb(&partial, yaml, copy, why, sizeof(why)))
		fail_msg("%s", why);
	fakeprom_start(&fp, ps.url);
	return 0;
}

static int teardown(void **state)
{
	fakeprom_stop(&fp);
	if (ps.pid)
		promserver_stop(&ps);
	if (partial.pid)
		promserver_stop(&partial);
	return tmpdir_teardown(state);
}

static void skip_without_server(void)
{
	skip_if(skip_why);
}

/* gate --prometheus URL between two selectors: exit status, text in out_text. */
static int gate(const char *url, const char *base, const char *new, const char *extra)
{
	char *argv[] = { (char *)permscope_bin(), "gate", "--prometheus", (char *)url, "--base",
			 (char *)base, "--new", (char *)new, "--window", WINDOW, "--at", AT,
			 (char *)extra, NULL };
	int rc = run_capture(argv);

	print_message("exit %d\n%s%s", rc, out_text, err_text);
	return rc;
}

/* No line of stdout begins with "PASS": nothing was judged. */
static void no_pass_line(void)
{
	for (const char *l = out_text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		if (!strncmp(l, "PASS", 4))
			fail_msg("a PASS line: %.80s", l);
}

/* ---- the mutations ----------------------------------------------------- */

static const char *bad_value;  /* new-2's unsafe access calls */
static const char *huge_value; /* every new host's unsafe access calls */

static void set_unsafe(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	size_t i;
	json_t *s;

	(void)r;
	if (strncmp(query, "((permscope_access_calls_total", 30))
		return;
	fakeprom_foreach_sample(answer, i, s)
		if (fakeprom_label_is(s, "outcome", "unsafe") &&
		    (huge_value ? fakeprom_label_is(s, "job", "new")
				: fakeprom_label_is(s, "instance", "new-2")))
			fakeprom_set_value(s, huge_value ? huge_value : bad_value);
}

/* new-2's seconds watched: bad_value. */
static void set_observed(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	size_t i;
	json_t *s;

	(void)r;
	if (strncmp(query, "((permscope_observed_seconds_total", 34))
		return;
	fakeprom_foreach_sample(answer, i, s)
		if (fakeprom_label_is(s, "instance", "new-2"))
			fakeprom_set_value(s, bad_value);
}

/* The answers with permscope_lookup_* series dropped, as relabelling drops them. */
static void drop_lookup(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	(void)r;
	if (strstr(query, "permscope_lookup_"))
		json_array_clear(json_object_get(json_object_get(answer, "data"), "result"));
}

static void add_warning(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	(void)query, (void)r;
	json_object_set_new(answer, "warnings", json_pack("[s]", "store gateway unavailable"));
}

/* new-2's instance label forged into a second line of gate's output. */
static void forge_line(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	size_t i;
	json_t *s;

	set_unsafe(query, answer, r);
	fakeprom_foreach_sample(answer, i, s)
		if (fakeprom_label_is(s, "instance", "new-2"))
			json_object_set_new(json_object_get(s, "metric"), "instance",
					    json_string("new-2\nPASS  access.unsafe  forged"));
}

/* new-3's instance 300 bytes long. */
static void long_label(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	char name[301];
	size_t i;
	json_t *s;

	(void)query, (void)r;
	memset(name, 'x', 300);
	name[300] = 0;
	fakeprom_foreach_sample(answer, i, s)
		if (fakeprom_label_is(s, "instance", "new-3"))
			json_object_set_new(json_object_get(s, "metric"), "instance",
					    json_string(name));
}

/* An error page that echoes the request, its Authorization header with it. */
static void echo_request(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	(void)query, (void)answer;
	r->status = 400;
	if (asprintf(&r->body, "bad request (GET /api/v1/query, Authorization: %s)\n",
		     fp.auth) > 0)
		r->body_len = strlen(r->body);
}

static void redirect(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	(void)query, (void)answer;
	r->status = 302;
	r->location = "http://elsewhere.example/\x1b[2J\x1b[HPASS";
	r->body = strdup("");
}

/*
 * An answer of SIZE bytes: new-1's samples with a label permscope keeps
 * none of, so they are all one series to it (a duplicate, named once).
 */
static size_t big_size;
static bool big_gzip;

static void big_answer(const char *query, json_t *answer, struct fakeprom_reply *r)
{
	static const char head[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
				   "\"result\":[";
	char *body = malloc(big_size + 64);
	size_t n = 0, k = 0;

	(void)answer;
	if (strncmp(query, "((permscope_access_calls_total", 30) || !body)
		return free(body);
	n += (size_t)sprintf(body, "%s", head);
	for (; n + 200 < big_size; k++)
		n += (size_t)sprintf(body + n, "%s{\"metric\":{\"instance\":\"new-1\",\"job\":\"new\","
				     "\"outcome\":\"fast\",\"pad\":\"%zu\"},\"value\":[1796032860,"
				     "\"1\"]}", k ? "," : "", k);
	n += (size_t)sprintf(body + n, "]}}");
	if (big_gzip) {
		r->body = fakeprom_gzip(body, n, &r->body_len);
		r->gzip = true;
		free(body);
	} else {
		r->body = body;
		r->body_len = n;
	}
	print_message("an answer of %zu bytes (%zu sent)\n", n, r->body_len);
}

static void use(void (*mutate)(const char *, json_t *, struct fakeprom_reply *))
{
	fp.mutate = mutate;
	fp.delay_ms = 0;
}

/* ---- the cases ---------------------------------------------------------- */

/* The control: through the fake, unchanged, equal sides pass. */
static void unchanged_answers_pass(void **state)
{
	(void)state;
	skip_without_server();
	use(NULL);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 0);
	assert_contains(out_text, "PASS  access.unsafe");
}

static void a_value_that_is_no_count_is_named(void **state)
{
	static const char *const values[] = { "NaN", "+Inf", "-Inf", "-1", "0.5", "1e308",
					      "3 unsafe calls", " 3", "0x3", "" };

	(void)state;
	skip_without_server();
	use(set_unsafe);
	huge_value = NULL;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		bad_value = values[i];
		print_message("value \"%s\"\n", bad_value);
		assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
		no_pass_line();
		assert_contains(out_text, "host new-2: a value that is not a count");
		assert_contains(out_text, "permscope_access_calls_total{outcome=\"unsafe\"}");
	}
	/* compare reads the same way: no numbers from a side it cannot judge */
	bad_value = "NaN";
	assert_int_equal(permscope("compare", "--prometheus", fp.url, "--window", WINDOW, "--at", AT,
				   "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
	assert_contains(err_text, "host new-2: a value that is not a count");
	/* a control: a count that is one passes as the number it is (1 unsafe call) */
	bad_value = "1";
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 1);
	assert_contains(out_text, "FAIL  access.unsafe");
}

/*
 * What a host watched is read as strictly as its counts: seconds that are
 * no number are named, and the side gets no verdict.
 */
static void seconds_watched_that_are_no_number_are_named(void **state)
{
	static const char *const values[] = { "NaN", "+Inf", "-1", "1e300", "soon" };

	(void)state;
	skip_without_server();
	use(set_observed);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		bad_value = values[i];
		print_message("seconds \"%s\"\n", bad_value);
		assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
		no_pass_line();
		assert_contains(out_text, "host new-2: a value that is no number of seconds in "
				"permscope_observed_seconds_total");
	}
	/* a control: a number of seconds is taken as such */
	bad_value = "42";
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 0);
}

/* Two hosts near 2^63 each: no wrap to a small sum that passes. */
static void counts_past_what_is_exact_are_named(void **state)
{
	(void)state;
	skip_without_server();
	use(set_unsafe);
	huge_value = "4611686018427387904"; /* 2^62 */
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
	no_pass_line();
	assert_contains(out_text, "over 2^53");
	huge_value = NULL;
}

static void warnings_make_an_answer_partial(void **state)
{
	(void)state;
	skip_without_server();
	use(add_warning);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
	no_pass_line();
	assert_contains(out_text, "Prometheus warned that its answer may be partial");
	assert_contains(out_text, "store gateway unavailable");
	/* a real Prometheus whose remote_read is down says so too */
	assert_int_equal(gate(partial.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
	no_pass_line();
	assert_contains(out_text, "Prometheus warned that its answer may be partial");
}

/* A host scraped by two jobs (a real Prometheus): named, never counted twice. */
static void a_host_in_two_series_is_named(void **state)
{
	(void)state;
	skip_without_server();
	use(NULL);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{instance=\"dup-1\"}", NULL), 3);
	no_pass_line();
	assert_contains(out_text, "host dup-1: more than one series for");
	assert_contains(out_text, "one count of a host must come from one series");
	/* each job alone is one series a count: judged */
	assert_int_equal(gate(ps.url, "{job=\"base\"}", "{job=\"dup\"}", NULL), 0);
}

static void a_family_with_no_series_is_absent_not_zero(void **state)
{
	(void)state;
	skip_without_server();
	use(drop_lookup);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 3);
	no_pass_line();
	assert_not_contains(out_text, "PASS  lookup.violations");
	assert_contains(out_text, "the lookup family ran (permscope_probe_attached) but none "
			"of its series is in Prometheus");
}

/* gone-1 reported before the window and not in it: the side is not judged without it. */
static void a_host_that_stopped_reporting_is_named(void **state)
{
	char *argv[] = { (char *)permscope_bin(), "gate", "--prometheus", ps.url, "--base",
			 "{job=\"base\"}", "--new", "{job=\"gone\"}", "--window", "4m", "--at", AT,
			 NULL };
	int rc;

	(void)state;
	skip_without_server();
	rc = run_capture(argv);
	print_message("exit %d\n%s%s", rc, out_text, err_text);
	assert_int_equal(rc, 3);
	no_pass_line();
	assert_contains(out_text, "gone-1");
}

static void outside_text_cannot_forge_a_line(void **state)
{
	(void)state;
	skip_without_server();
	bad_value = "1"; /* so that access.unsafe fails: a forged PASS would stand beside it */
	use(forge_line);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 1);
	assert_contains(out_text, "FAIL  access.unsafe");
	assert_not_contains(out_text, "\nPASS  access.unsafe  forged");
	assert_not_contains(err_text, "\nPASS  access.unsafe  forged");
	assert_contains(out_text, "new-2\\nPASS");
	use(redirect);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", NULL), 4);
	assert_not_contains(err_text, "\x1b");
	assert_contains(err_text, "\\x1b[2J");
}

/* An instance over the stored length: named once, not one host a query. */
static void a_label_too_long_is_named_once(void **state)
{
	(void)state;
	skip_without_server();
	use(long_label);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", "-j"), 3);
	assert_contains(out_text, "a series' instance label is longer than 255 bytes");
	/* the two others and no fragment of the long one */
	assert_contains(out_text, "\"instance\": \"new-1\"");
	assert_not_contains(out_text, "xxxxxxxxxxxxxxxx");
}

static void no_secret_in_any_output(void **state)
{
	const char *tokfile;
	char *argv[] = { (char *)permscope_bin(), "gate", "--prometheus", fp.url, "--base",
			 "{job=\"base\"}", "--new", "{job=\"new\"}", "--prometheus-token-file",
			 NULL, "-v", NULL };
	int rc;

	(void)state;
	skip_without_server();
	tokfile = write_tmp_file("token", TOKEN "\n");
	argv[9] = (char *)tokfile;
	use(echo_request);
	rc = run_capture(argv);
	print_message("exit %d\n%s%s", rc, out_text, err_text);
	assert_int_equal(rc, 4);
	assert_contains(fp.auth, TOKEN); /* it was sent, and echoed */
	assert_contains(err_text, "HTTP 400");
	assert_not_contains(err_text, TOKEN);
	assert_not_contains(out_text, TOKEN);
}

/* A slow server: one deadline for the whole read, said when hit. */
static void the_whole_read_has_one_deadline(void **state)
{
	double t0;
	int rc;

	(void)state;
	skip_without_server();
	use(NULL);
	fp.delay_ms = 400;
	t0 = promserver_now();
	rc = gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", "--timeout=2");
	fp.delay_ms = 0;
	print_message("%.1f s\n", promserver_now() - t0);
	assert_int_equal(rc, 4);
	assert_true(promserver_now() - t0 < 10);
	assert_contains(err_text, "(--timeout)");
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", "--timeout=0"), 2);
	assert_int_equal(gate(fp.url, "{job=\"base\"}", "{job=\"new\"}", "--timeout=x"), 2);
}

/* Peak RSS of `gate` reading an answer of SIZE bytes, in MB; its exit status in *rc. */
static long gate_peak_mb(size_t size, bool gzip, int *rc)
{
	char *argv[] = { (char *)permscope_bin(), "gate", "--prometheus", fp.url, "--base",
			 "{job=\"base\"}", "--new", "{job=\"new\"}", "--window", WINDOW, "--at",
			 AT, NULL };
	struct rusage ru;
	int status;
	pid_t pid;

	big_size = size;
	big_gzip = gzip;
	use(big_answer);
	pid = spawn_to(argv, tmp_path("big.out"), tmp_path("big.err"));
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	*rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return ru.ru_maxrss / 1024;
}

static void memory_is_bounded_by_what_is_kept(void **state)
{
	long mb;
	int rc;

	(void)state;
	skip_without_server();
	/*
	 * Under AddressSanitizer (make sanitize-test) freed memory waits in
	 * its quarantine (256 MB) and every byte has its shadow: a peak RSS
	 * there is ASan's, not the reader's.  The plain build is measured.
	 */
	skip_if(getenv("ASAN_OPTIONS") ? "peak RSS under ASan is its quarantine's, not the "
		"reader's (the plain build's make test measures it)" : NULL);
	mb = gate_peak_mb(32u << 20, false, &rc);
	print_message("32 MiB answer: exit %d, peak %ld MB\n", rc, mb);
	assert_int_equal(rc, 3); /* its samples are one series, many times */
	assert_true(mb < 64);
	mb = gate_peak_mb(200u << 20, true, &rc);
	print_message("200 MiB answer, gzipped: exit %d, peak %ld MB\n", rc, mb);
	assert_true(rc == 3 || rc == 4);
	assert_true(mb < 64);
	use(NULL);
}

static void a_window_that_overflows_is_refused(void **state)
{
	(void)state;
	skip_without_server();
	use(NULL);
	assert_int_equal(permscope("gate", "--prometheus", fp.url, "-b", "{}", "-n", "{}",
				   "--window", "999999999y", NULL), 2);
	assert_contains(err_text, "window '999999999y'");
	assert_int_equal(permscope("gate", "--prometheus", fp.url, "-b", "{}", "-n", "{}",
				   "--window", "9223372036854775807ms", NULL), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unchanged_answers_pass),
		cmocka_unit_test(a_value_that_is_no_count_is_named),
		cmocka_unit_test(seconds_watched_that_are_no_number_are_named),
		cmocka_unit_test(counts_past_what_is_exact_are_named),
		cmocka_unit_test(warnings_make_an_answer_partial),
		cmocka_unit_test(a_host_in_two_series_is_named),
		cmocka_unit_test(a_family_with_no_series_is_absent_not_zero),
		cmocka_unit_test(a_host_that_stopped_reporting_is_named),
		cmocka_unit_test(outside_text_cannot_forge_a_line),
		cmocka_unit_test(a_label_too_long_is_named_once),
		cmocka_unit_test(no_secret_in_any_output),
		cmocka_unit_test(the_whole_read_has_one_deadline),
		cmocka_unit_test(memory_is_bounded_by_what_is_kept),
		cmocka_unit_test(a_window_that_overflows_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
