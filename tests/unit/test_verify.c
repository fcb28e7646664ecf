// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope verify's judgement, end to end from what the probes deliver:
 * hand-made profiles and samples go through verify_report(), the very
 * function cmd_verify calls after recording, and the exit status and the
 * text or JSON it prints are checked.  A real kernel does not break on
 * demand; these are the violations it would show.
 */
#include <jansson.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "predicates.h"
#include "profile.h"
#include "run/verify.h"

static struct profile p;
static struct verify_samples vs;
static char *out;

/* Access and exec in tracepoint mode, lookup in fentry, each with clean counts. */
static int clean_recording(void **state)
{
	struct fs_result *fs;

	(void)state;
	profile_init(&p);
	strcpy(p.kernel_release, "7.2.0-test");
	strcpy(p.hostname, "testhost");
	for (int f = 0; f < FAMILY_COUNT; f++) {
		p.fam[f].status = FAMILY_OK;
		p.fam[f].lost_known = true;
	}
	p.fam[FAMILY_LOOKUP].mode = MODE_FENTRY;
	p.fam[FAMILY_ACCESS].mode = MODE_TRACEPOINT;
	p.fam[FAMILY_EXEC].mode = MODE_TRACEPOINT;
	p.access.calls[ACCESS_FAST] = 1000;
	p.access.calls[ACCESS_NEEDED] = 1000;
	p.exec.calls[EXEC_OK] = 10;
	p.exec.calls[EXEC_ENOENT_EARLY] = 70;
	fs = profile_add_fs(&p, "tmpfs");
	fs->s.origin[LOOKUP_ORIGIN_WALK] = 5000;
	fs->s.checks = 5000;
	fs->s.did_skip = 4000;
	memset(&vs, 0, sizeof(vs));
	out = NULL;
	return 0;
}

static int free_recording(void **state)
{
	(void)state;
	profile_free(&p);
	free(out);
	return 0;
}

/* verify_report's output in `out`, its exit status returned. */
static int report(enum output_format format)
{
	size_t len;
	FILE *f = open_memstream(&out, &len);
	int ret;

	assert_non_null(f);
	free(out);
	out = NULL;
	ret = verify_report(f, &p, &vs, format);
	fclose(f);
	return ret;
}

static struct ps_sample sample(enum sample_kind k, __u32 pid, const char *comm)
{
	struct ps_sample s = { .kind = k, .pid = pid, .tid = pid };

	strncpy(s.comm, comm, sizeof(s.comm));
	return s;
}

static void clean_recording_exits_0(void **state)
{
	(void)state;
	assert_int_equal(report(FORMAT_TEXT), 0);
	assert_contains(out, "Verdict: clean");
	assert_contains(out, "access   2000 calls seen");
	assert_not_contains(out, "VIOLATION");
}

static void unsafe_access_exits_1_with_its_samples(void **state)
{
	struct ps_sample s = sample(SAMPLE_ACCESS_UNSAFE, 4242, "setuid-helper");

	(void)state;
	p.access.calls[ACCESS_UNSAFE] = 3;
	s.access.cred = (struct cred_view){ .uid = 1000, .gid = 1000, .fsuid = 0, .fsgid = 1000,
					    .cap_effective = 0, .cap_permitted = 0 };
	verify_samples_add(&vs, &s);
	assert_int_equal(report(FORMAT_TEXT), 1);
	assert_contains(out, "VIOLATION  access.unsafe: 3 access() calls skipped the cred override");
	assert_contains(out, "PID     COMM             UID   FSUID    GID   FSGID");
	assert_contains(out, "    4242    setuid-helper     1000     0   1000   1000");
	assert_contains(out, "Verdict: VIOLATION");
}

static void avoidable_access_is_information_only(void **state)
{
	(void)state;
	p.access.calls[ACCESS_AVOIDABLE] = 500;
	assert_int_equal(report(FORMAT_TEXT), 0);
	assert_contains(out, "info       access.avoidable: 500 access() calls allocated a cred");
}

static void lookup_skip_of_an_ineligible_directory_exits_1(void **state)
{
	struct ps_sample s = sample(SAMPLE_LOOKUP_INELIGIBLE_SKIP, 77, "ls");

	(void)state;
	p.fs[0].s.violations = 2;
	strcpy(s.lookup.fs, "tmpfs");
	s.lookup.dev = 8 << 20 | 3;
	s.lookup.ino = 123456;
	s.lookup.d = (struct dir_view){ .mode = 040700, .opflags = PS_IOP_FASTPERM_MAY_EXEC };
	s.lookup.reason = LOOKUP_INEL_MODE;
	verify_samples_add(&vs, &s);
	assert_int_equal(report(FORMAT_TEXT), 1);
	assert_contains(out, "VIOLATION  lookup.violations: 2 full permission checks skipped");
	assert_contains(out, "(tmpfs 2)");
	assert_contains(out, "    77      ls              tmpfs    8:3     123456     040700 none   yes    mode");
}

static void racing_skips_are_not_judged(void **state)
{
	(void)state;
	p.fs[0].s.racing = 4;
	assert_int_equal(report(FORMAT_TEXT), 0);
	assert_contains(out, "info       lookup.racing: 4 skips");
}

static void late_enoent_beside_early_ones_exits_1(void **state)
{
	struct ps_sample s = sample(SAMPLE_EXEC_ENOENT_LATE, 900, "make");

	(void)state;
	p.exec.calls[EXEC_ENOENT_LATE] = 5;
	s.exec.ret = -2;
	s.exec.latency_ns = 31000;
	verify_samples_add(&vs, &s);
	assert_int_equal(report(FORMAT_TEXT), 1);
	assert_contains(out, "VIOLATION  exec.enoent_late: 5 execs failed with ENOENT after an mm");
	assert_contains(out, "although 70 failed before one");
	assert_contains(out, "    900     make             ENOENT   31000");
}

static void late_enoent_alone_is_a_stock_kernel(void **state)
{
	(void)state;
	p.exec.calls[EXEC_ENOENT_EARLY] = 0;
	p.exec.calls[EXEC_ENOENT_LATE] = 70;
	assert_int_equal(report(FORMAT_TEXT), 0);
	assert_contains(out, "info       exec.enoent_late: 70 execs failed with ENOENT after an mm");
	assert_contains(out, "none before one: stock kernel, no early exit: not a");
	assert_contains(out, "Verdict: clean");
}

static void lost_events_exit_3(void **state)
{
	(void)state;
	family_add_lost(&p.fam[FAMILY_ACCESS], "no_task_storage", 3);
	family_add_lost(&p.fam[FAMILY_ACCESS], "tp_sys_exit_access", 0);
	assert_int_equal(report(FORMAT_TEXT), 3);
	assert_contains(out, "unjudged   access: lost 3 events");
	assert_contains(out, "(no_task_storage 3)");
	assert_contains(out, "Verdict: cannot judge");
}

/*
 * Under load on 7.2 a preempted fentry program is skipped (a recursion
 * miss): a missed prepare_creds() hook makes a needed call look unsafe.
 * A family that lost events shows its findings unconfirmed, exit 3.
 */
static void a_violation_in_a_family_that_lost_events_is_unconfirmed(void **state)
{
	(void)state;
	p.access.calls[ACCESS_UNSAFE] = 1031;
	family_add_lost(&p.fam[FAMILY_ACCESS], "fentry_prepare_creds", 1031);
	assert_int_equal(report(FORMAT_TEXT), 3);
	assert_not_contains(out, "VIOLATION");
	assert_contains(out, "access.unsafe: unconfirmed, the family lost events: 1031 access()");
	assert_contains(out, "unjudged   access: lost 1031 events");
}

static void unavailable_family_exits_3(void **state)
{
	struct attach_attempt *t = &p.fam[FAMILY_LOOKUP].attempts[0];

	(void)state;
	p.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	p.fam[FAMILY_LOOKUP].nattempts = 1;
	t->mode = MODE_FENTRY;
	t->err = 1;
	strcpy(t->why, "load fentry_inode_permission: EPERM; this kernel refuses BPF trampolines");
	assert_int_equal(report(FORMAT_TEXT), 3);
	assert_contains(out, "unjudged   lookup: could not attach: fentry: load");
}

static void a_violation_outweighs_a_family_not_judged(void **state)
{
	(void)state;
	p.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	p.access.calls[ACCESS_UNSAFE] = 1;
	assert_int_equal(report(FORMAT_TEXT), 1);
	assert_contains(out, "VIOLATION  access.unsafe");
	assert_contains(out, "unjudged   lookup");
}

static void five_samples_kept_and_the_rest_counted(void **state)
{
	(void)state;
	p.access.calls[ACCESS_UNSAFE] = 100;
	for (int i = 0; i < 8; i++) {
		struct ps_sample s = sample(SAMPLE_ACCESS_UNSAFE, 1000 + i, "loop");

		verify_samples_add(&vs, &s);
	}
	verify_samples_unsent(&vs, SAMPLE_ACCESS_UNSAFE, 92);
	assert_int_equal(report(FORMAT_TEXT), 1);
	assert_contains(out, "    1004    loop");
	assert_not_contains(out, "    1005    loop");
	assert_contains(out, "(5 samples shown of 8 sent; 92 not sent: at most 16 a second");
}

static void json_carries_verdict_findings_and_samples(void **state)
{
	struct ps_sample s = sample(SAMPLE_LOOKUP_INELIGIBLE_SKIP, 77, "ls");
	json_error_t err;
	json_t *root, *v, *smp;

	(void)state;
	p.fs[0].s.violations = 1;
	strcpy(s.lookup.fs, "ext4");
	s.lookup.dev = 259 << 20 | 1;
	s.lookup.ino = 42;
	s.lookup.d = (struct dir_view){ .mode = 040755, .opflags = 1, .acl = PS_ACL_NOT_CACHED };
	s.lookup.reason = LOOKUP_INEL_ACL_NOT_CACHED;
	verify_samples_add(&vs, &s);
	p.access.calls[ACCESS_AVOIDABLE] = 9;
	build_info_self(&p.build); /* as record_profile_init() gives it */
	assert_int_equal(report(FORMAT_JSON), 1);
	root = json_loads(out, 0, &err);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "format")), "permscope-verify/1");
	assert_string_equal(json_string_value(json_object_get(root, "verdict")), "violation");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_status")), 1);
	/* the build that judged */
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "build"),
							      "version")), permscope_version());
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(root, "families"),
								 "lookup"), "judged")));
	assert_int_equal(json_array_size(json_object_get(root, "findings")), 2);
	v = json_array_get(json_object_get(root, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(v, "kind")), "lookup.violations");
	assert_true(json_is_true(json_object_get(v, "violation")));
	assert_int_equal(json_integer_value(json_object_get(v, "samples_sent")), 1);
	smp = json_array_get(json_object_get(v, "samples"), 0);
	assert_string_equal(json_string_value(json_object_get(smp, "fs")), "ext4");
	assert_string_equal(json_string_value(json_object_get(smp, "dev")), "259:1");
	assert_string_equal(json_string_value(json_object_get(smp, "mode")), "040755");
	assert_string_equal(json_string_value(json_object_get(smp, "acl")), "unread");
	assert_string_equal(json_string_value(json_object_get(smp, "reason")), "acl_not_cached");
	assert_false(json_is_true(json_object_get(smp, "opt_in")));
	v = json_array_get(json_object_get(root, "findings"), 1);
	assert_string_equal(json_string_value(json_object_get(v, "kind")), "access.avoidable");
	assert_false(json_is_true(json_object_get(v, "violation")));
	json_decref(root);
}

#define T(f) cmocka_unit_test_setup_teardown(f, clean_recording, free_recording)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(clean_recording_exits_0),
		T(unsafe_access_exits_1_with_its_samples),
		T(avoidable_access_is_information_only),
		T(lookup_skip_of_an_ineligible_directory_exits_1),
		T(racing_skips_are_not_judged),
		T(late_enoent_beside_early_ones_exits_1),
		T(late_enoent_alone_is_a_stock_kernel),
		T(lost_events_exit_3),
		T(a_violation_in_a_family_that_lost_events_is_unconfirmed),
		T(unavailable_family_exits_3),
		T(a_violation_outweighs_a_family_not_judged),
		T(five_samples_kept_and_the_rest_counted),
		T(json_carries_verdict_findings_and_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
