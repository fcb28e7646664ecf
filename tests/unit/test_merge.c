// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope merge must not fake evidence: runs are samples of one thing,
 * so inputs of different kernels, hosts, workloads or modes are refused
 * (exit 2, both files and what differs named, nothing written) unless
 * --allow-mixed, which the merged profile, report and compare then say;
 * and one recording twice is refused always, whether as one file twice,
 * a copy, or a run inside a merged input (docs/compare.md, "Merging runs").
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "profile.h"

/* The cred refcount line the next recording() keeps; -1: none, as before it was kept. */
static int next_cred_line = -1;

/* One recording of N fast access calls: on KERNEL and HOST, of COMMAND, started at second S. */
static const char *recording(const char *name, const char *kernel, const char *host,
			     const char *command, int s, int n)
{
	const char *path = tmp_path(name);
	char *argv[] = { (char *)command, NULL };
	struct profile p;

	profile_init(&p);
	strcpy(p.kernel_release, kernel);
	strcpy(p.kernel_version, "#1 SMP");
	strcpy(p.hostname, host);
	strcpy(p.machine, "x86_64");
	strcpy(p.boot_id, "5f0a7d0c-0000-4000-8000-000000000001");
	p.command = argv;
	p.exit_status = 0;
	p.start_ns = (1800000000ULL + s) * 1000000000ULL;
	p.end_ns = p.start_ns + 2000000000ULL;
	p.fam[FAMILY_ACCESS].status = FAMILY_OK;
	p.fam[FAMILY_ACCESS].mode = MODE_FENTRY;
	p.access.calls[ACCESS_FAST] = n;
	p.access.latency[ACCESS_FAST].slots[9] = n;
	p.access.latency[ACCESS_FAST].count = n;
	p.access.latency[ACCESS_FAST].sum = 700ULL * n;
	p.fam[FAMILY_EXEC].status = FAMILY_NOT_REQUESTED;
	p.fam[FAMILY_LOOKUP].status = FAMILY_NOT_REQUESTED;
	p.cred_line_kept = next_cred_line >= 0;
	p.cred_line = next_cred_line >= 0 ? (enum cred_layout_answer)next_cred_line : 0;
	assert_int_equal(profile_write(&p, path), 0);
	p.command = NULL; /* argv is ours */
	profile_free(&p);
	return path;
}

static void read_ok(const char *path, struct profile *p)
{
	char err[256];

	if (profile_read(path, p, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
}

/* Three recordings of one workload: three runs, and each run's recording kept. */
static void recordings_of_one_workload_merge_and_are_kept(void **state)
{
	const char *a = recording("a.json", "7.2.0", "web-1", "/bin/true", 0, 100);
	const char *b = recording("b.json", "7.2.0", "web-1", "/bin/true", 10, 110);
	const char *c = recording("c.json", "7.2.0", "web-1", "/bin/true", 20, 120);
	const char *ab = tmp_path("ab.json"), *abc = tmp_path("abc.json");
	struct profile m;

	(void)state;
	assert_int_equal(permscope("merge", a, b, c, "-o", abc, NULL), 0);
	assert_contains(err_text, "3 runs merged into ");
	read_ok(abc, &m);
	assert_int_equal(m.nruns, 3);
	assert_int_equal(m.nrecordings, 3);
	assert_true(m.recordings[1].start_ns == (1800000000ULL + 10) * 1000000000ULL);
	assert_string_equal(m.recordings[2].hostname, "web-1");
	assert_null(m.mixed);
	profile_free(&m);
	/* a merged input brings its runs' recordings along */
	assert_int_equal(permscope("merge", a, b, "-o", ab, NULL), 0);
	assert_int_equal(permscope("merge", ab, c, "-o", abc, NULL), 0);
	read_ok(abc, &m);
	assert_int_equal(m.nrecordings, 3);
	profile_free(&m);
}

/*
 * One kernel build has one cred layout: runs that agree keep it; runs that
 * say two things of it (kernels mixed, or a run from before it was kept)
 * make it unknown, which the gate judges as no verdict, never a pass.
 */
static void the_cred_refcount_line_is_kept_only_where_the_runs_agree(void **state)
{
	const char *a, *b, *c, *d, *m2 = tmp_path("m.json");
	struct profile m;

	(void)state;
	next_cred_line = CRED_LAYOUT_SEPARATED;
	a = recording("a.json", "7.2.0", "web-1", "/bin/true", 0, 100);
	b = recording("b.json", "7.2.0", "web-1", "/bin/true", 10, 110);
	next_cred_line = CRED_LAYOUT_SHARES;
	c = recording("c.json", "7.3.0", "web-1", "/bin/true", 20, 120);
	next_cred_line = -1;
	d = recording("d.json", "7.2.0", "web-1", "/bin/true", 30, 130);
	assert_int_equal(permscope("merge", a, b, "-o", m2, NULL), 0);
	read_ok(m2, &m);
	assert_true(m.cred_line_kept);
	assert_int_equal(m.cred_line, CRED_LAYOUT_SEPARATED);
	profile_free(&m);
	assert_int_equal(permscope("gate", a, m2, NULL), 0);
	assert_contains(out_text, "PASS  cred.refcount_shares_line  new 0  base 0");
	/* with a run that predates the layout: unknown */
	assert_int_equal(permscope("merge", a, d, "-o", m2, NULL), 0);
	read_ok(m2, &m);
	assert_true(m.cred_line_kept);
	assert_int_equal(m.cred_line, CRED_LAYOUT_UNKNOWN);
	profile_free(&m);
	/* kernels mixed, their layouts two: unknown, and no verdict */
	assert_int_equal(permscope("merge", a, c, "--allow-mixed", "-o", m2, NULL), 0);
	read_ok(m2, &m);
	assert_int_equal(m.cred_line, CRED_LAYOUT_UNKNOWN);
	profile_free(&m);
	assert_int_equal(permscope("gate", a, m2, NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  cred.refcount_shares_line  struct cred's layout is "
			"unknown in the new profile");
}

/* One recording twice, in any disguise: exit 2, both named, nothing written. */
static void one_recording_twice_is_refused(void **state)
{
	const char *a = recording("a.json", "7.2.0", "web-1", "/bin/true", 0, 100);
	const char *b = recording("b.json", "7.2.0", "web-1", "/bin/true", 10, 110);
	const char *ab = tmp_path("ab.json"), *out = tmp_path("twice.json");
	char *copy = strdup(tmp_path("a-copy.json")), *text = slurp(a, NULL);

	(void)state;
	write_file(copy, text, strlen(text));
	free(text);
	/* the same file */
	assert_int_equal(permscope("merge", a, a, "-o", out, NULL), 2);
	assert_contains(err_text, "are the same file: merging one recording twice would count "
			"its run as two and shrink the standard deviation");
	assert_int_equal(access(out, F_OK), -1);
	/* a copy of it */
	assert_int_equal(permscope("merge", a, copy, "-o", out, NULL), 2);
	assert_contains(err_text, "hold the same recording (web-1, started ");
	assert_contains(err_text, copy);
	assert_int_equal(access(out, F_OK), -1);
	/* a run of a merged input */
	assert_int_equal(permscope("merge", a, b, "-o", ab, NULL), 0);
	assert_int_equal(permscope("merge", ab, copy, "-o", out, NULL), 2);
	assert_contains(err_text, "hold the same recording");
	assert_int_equal(access(out, F_OK), -1);
	free(copy);
}

/*
 * Runs merged before merge kept their recordings (the saved profiles of
 * tests/unit/data): one file twice is told by runs equal in every metric.
 */
static void old_merged_runs_twice_are_told_by_their_metrics(void **state)
{
	char base[PATH_MAX], *text;
	const char *copy = tmp_path("old-copy.json"), *out = tmp_path("old.json");

	(void)state;
	snprintf(base, sizeof(base), "%s/compare-access-base.json", testdata_dir());
	text = slurp(base, NULL);
	write_file(copy, text, strlen(text));
	free(text);
	assert_int_equal(permscope("merge", base, copy, "-o", out, NULL), 2);
	assert_contains(err_text, "hold two runs equal in every metric: the same recording twice");
	assert_int_equal(access(out, F_OK), -1);
}

/* Different kernels, hosts, workloads, modes: refused; --allow-mixed merges and says so. */
static void mixed_runs_are_refused_unless_allowed_and_then_said(void **state)
{
	const char *a = recording("a.json", "7.2.0", "web-1", "/bin/true", 0, 100);
	const char *k = recording("k.json", "6.1.0", "web-1", "/bin/true", 10, 100);
	const char *h = recording("h.json", "7.2.0", "web-2", "/bin/true", 20, 100);
	const char *w = recording("w.json", "7.2.0", "web-1", "/bin/false", 30, 100);
	const char *out = tmp_path("mixed.json");
	struct profile m;
	char msg[1024];

	(void)state;
	assert_int_equal(permscope("merge", a, k, "-o", out, NULL), 2);
	snprintf(msg, sizeof(msg), "Error: %s and %s were recorded on different kernels (7.2.0 "
		 "and 6.1.0): runs of different kernels are no samples of one thing "
		 "(--allow-mixed merges anyway, and says so)\n", a, k);
	assert_string_equal(err_text, msg);
	assert_string_equal(out_text, "");
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(permscope("merge", a, h, "-o", out, NULL), 2);
	assert_contains(err_text, "were recorded on different hosts (web-1 and web-2)");
	assert_int_equal(permscope("merge", a, w, "-o", out, NULL), 2);
	assert_contains(err_text, "were recorded on different workloads (/bin/true and "
			"/bin/false)");
	assert_int_equal(access(out, F_OK), -1);

	assert_int_equal(permscope("merge", "--allow-mixed", a, k, h, "-o", out, NULL), 0);
	assert_contains(err_text, "Warning: merging runs of different kernels (7.2.0 in ");
	assert_contains(err_text, "3 runs merged into ");
	read_ok(out, &m);
	assert_string_equal(m.mixed, "kernels: 7.2.0 and 6.1.0; hosts: web-1 and web-2");
	profile_free(&m);
	assert_int_equal(permscope("report", out, NULL), 0);
	assert_contains(out_text, "note: merged from runs that differ (--allow-mixed): kernels: "
			"7.2.0 and 6.1.0; hosts: web-1 and web-2\n");
	assert_int_equal(permscope("report", "-j", out, NULL), 0);
	assert_contains(out_text, "\"mixed\": \"kernels: 7.2.0 and 6.1.0; hosts: web-1 and web-2\"");
	assert_int_equal(permscope("compare", out, a, NULL), 0);
	assert_contains(out_text, "  note: base merged from runs that differ (--allow-mixed): "
			"kernels: 7.2.0 and 6.1.0; hosts: web-1 and web-2\n");
	/* one recording twice stays refused, mixed or not */
	assert_int_equal(permscope("merge", "--allow-mixed", a, a, "-o", tmp_path("m2.json"), NULL),
			 2);
}

/* What a reader takes of "recordings" and "mixed": bounded, one a run, else refused. */
static void the_reader_refuses_bad_recordings(void **state)
{
	const char *a = recording("a.json", "7.2.0", "web-1", "/bin/true", 0, 100);
	const char *b = recording("b.json", "7.2.0", "web-1", "/bin/true", 10, 110);
	const char *ab = tmp_path("ab.json"), *bad = tmp_path("bad.json");
	json_error_t e;
	json_t *root;
	struct profile p;
	char err[256], big[PROFILE_MIXED_MAX + 8];

	(void)state;
	assert_int_equal(permscope("merge", a, b, "-o", ab, NULL), 0);
	root = json_load_file(ab, 0, &e);
	assert_non_null(root);
	json_array_remove(json_object_get(root, "recordings"), 1);
	assert_int_equal(json_dump_file(root, bad, 0), 0);
	assert_int_not_equal(profile_read(bad, &p, err, sizeof(err)), 0);
	assert_string_equal(err, "recordings: expected an array of one object a run (2)");
	json_decref(root);

	root = json_load_file(ab, 0, &e);
	json_object_set_new(json_array_get(json_object_get(root, "recordings"), 0), "end_ns",
			    json_integer(1));
	assert_int_equal(json_dump_file(root, bad, 0), 0);
	assert_int_not_equal(profile_read(bad, &p, err, sizeof(err)), 0);
	assert_contains(err, "recordings[0]: expected start_ns and end_ns");
	json_decref(root);

	root = json_load_file(ab, 0, &e);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	json_object_set_new(root, "mixed", json_string(big));
	assert_int_equal(json_dump_file(root, bad, 0), 0);
	assert_int_not_equal(profile_read(bad, &p, err, sizeof(err)), 0);
	assert_contains(err, "mixed: expected a string of under 1024 bytes");
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recordings_of_one_workload_merge_and_are_kept),
		cmocka_unit_test(one_recording_twice_is_refused),
		cmocka_unit_test(the_cred_refcount_line_is_kept_only_where_the_runs_agree),
		cmocka_unit_test(old_merged_runs_twice_are_told_by_their_metrics),
		cmocka_unit_test(mixed_runs_are_refused_unless_allowed_and_then_said),
		cmocka_unit_test(the_reader_refuses_bad_recordings),
	};

	return cmocka_run_group_tests_name("merge", tests, tmpdir_setup, tmpdir_teardown);
}
