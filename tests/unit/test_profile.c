// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profile I/O (src/profile_write.c, src/profile_read.c): JSON round trips,
 * the strict reader's error messages, profile_write's atomic replace, and
 * profile_copy (src/profile.c).  No root, no BPF.
 */
#include <linux/types.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "testutil.h"

#include "profile.h"

/* 2026-11-30T09:15:02.123456789Z */
#define T0_NS 1796030102123456789ULL

/* ---- building profiles by hand ------------------------------------------ */

static void add_samples(struct hist *h, unsigned int slot, __u64 n, __u64 ns_each)
{
	h->slots[slot] += n;
	h->count += n;
	h->sum += n * ns_each;
}

static void add_attempt(struct family_result *r, enum attach_mode m, int err, const char *why)
{
	struct attach_attempt *a = &r->attempts[r->nattempts++];

	a->mode = m;
	a->err = err;
	snprintf(a->why, sizeof(a->why), "%s", why);
}

static char **argv_dup(const char *const *argv)
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		assert_non_null(v[i] = strdup(argv[i]));
	return v;
}

static void set_lookup(struct profile *p, const char *fs, __u64 checks, __u64 did_skip,
		       __u64 would_skip, __u64 may_exec_opt_in, __u64 violations, __u64 mode,
		       __u64 acl, __u64 acl_not_cached, __u64 not_opted_in)
{
	struct fs_result *r = profile_add_fs(p, fs);

	assert_non_null(r);
	r->s.checks = checks;
	r->s.did_skip = did_skip;
	r->s.would_skip = would_skip;
	r->s.may_exec_opt_in = may_exec_opt_in;
	r->s.violations = violations;
	r->s.ineligible[LOOKUP_INEL_MODE] = mode;
	r->s.ineligible[LOOKUP_INEL_ACL] = acl;
	r->s.ineligible[LOOKUP_INEL_ACL_NOT_CACHED] = acl_not_cached;
	r->s.ineligible[LOOKUP_INEL_NOT_OPTED_IN] = not_opted_in;
}

/* Every field set, every family ok.  The strict-reading cases mutate this. */
static void build_full_profile(struct profile *p)
{
	static const char *const argv[] = {
		"sh", "-c", "printf '%s\\n' \"a, b\" && ls /tmp", NULL,
	};
	struct access_stats *a = &p->access;
	struct exec_stats *e = &p->exec;

	profile_init(p);
	strcpy(p->tool_version, "9.8.7-rc1");
	strcpy(p->hostname, "builder-07.lab.example.org");
	strcpy(p->kernel_release, "6.18.44-fc-v669");
	strcpy(p->kernel_version, "#1 SMP PREEMPT_DYNAMIC Sun, 29 Nov 2026");
	strcpy(p->machine, "x86_64");
	strcpy(p->boot_id, "df8c7713-1d75-4808-88ae-821aa31aac78");
	/* a duty-cycled daemon's access family: 12 windows of 0.2 s, one failed */
	p->fam[FAMILY_ACCESS].observed = (struct observation){ 200000000, 15000000000ULL,
							       2400000000ULL, 12, 1 };
	strcpy(p->clocksource, "tsc");
	p->command = argv_dup(argv);
	p->exit_status = 3;
	p->filter_pid = 4242;
	strcpy(p->filter_comm, "make");
	strcpy(p->filter_cgroup, "/sys/fs/cgroup/system.slice/build.service");
	p->start_ns = T0_NS;
	p->end_ns = T0_NS + 4250000001ULL;

	p->fam[FAMILY_LOOKUP].status = FAMILY_OK;
	p->fam[FAMILY_LOOKUP].mode = MODE_FENTRY;
	p->fam[FAMILY_ACCESS].status = FAMILY_OK;
	p->fam[FAMILY_ACCESS].mode = MODE_KPROBE;
	add_attempt(&p->fam[FAMILY_ACCESS], MODE_FENTRY, EPERM,
		    "load fentry_prepare_creds: EPERM; this kernel refuses BPF trampolines");
	p->fam[FAMILY_EXEC].status = FAMILY_OK;
	p->fam[FAMILY_EXEC].mode = MODE_TRACEPOINT;
	add_attempt(&p->fam[FAMILY_EXEC], MODE_FENTRY, EPERM, "load fentry_mm_alloc: EPERM");
	add_attempt(&p->fam[FAMILY_EXEC], MODE_KPROBE, ENOENT,
		    "attach kprobe_mm_alloc: ENOENT; no \"kprobe\" PMU, no kprobe_events");

	a->calls[ACCESS_NEEDED] = 120;
	a->calls[ACCESS_AVOIDABLE] = 7;
	a->calls[ACCESS_FAST] = 1010;
	a->calls[ACCESS_UNSAFE] = 1;
	a->eaccess = 33;
	a->drops = 2;
	add_samples(&a->latency[ACCESS_NEEDED], 11, 120, 3000);
	add_samples(&a->latency[ACCESS_AVOIDABLE], 10, 7, 1500);
	/* fast: slot 0, slot 1, a middle slot and the open-ended last slot */
	add_samples(&a->latency[ACCESS_FAST], 0, 3, 1);
	add_samples(&a->latency[ACCESS_FAST], 1, 5, 3);
	add_samples(&a->latency[ACCESS_FAST], 9, 1000, 700);
	add_samples(&a->latency[ACCESS_FAST], HIST_SLOTS - 1, 2, 1ULL << 40);
	add_samples(&a->latency[ACCESS_UNSAFE], 12, 1, 5000);

	e->calls[EXEC_OK] = 40;
	e->calls[EXEC_ENOENT_EARLY] = 300;
	e->calls[EXEC_ENOENT_LATE] = 5;
	e->calls[EXEC_ERROR_OTHER] = 9;
	e->errnos[0] = 1;       /* "other": an errno >= EXEC_ERRNO_MAX */
	e->errnos[ENOENT] = 305;
	e->errnos[EACCES] = 6;
	e->errnos[ELOOP] = 2;
	e->mm_allocs = 45;
	e->drops = 4;
	add_samples(&e->latency[EXEC_OK], 18, 30, 300000);
	add_samples(&e->latency[EXEC_OK], 19, 10, 600000);
	add_samples(&e->latency[EXEC_ENOENT_EARLY], 11, 300, 2500);
	add_samples(&e->latency[EXEC_ENOENT_LATE], 16, 5, 90000);
	add_samples(&e->latency[EXEC_ERROR_OTHER], 0, 9, 1);

	/* Added out of order: the writer must get them sorted. */
	set_lookup(p, "tmpfs", 48000, 45600, 45600, 45600, 0, 1800, 0, 0, 600);
	set_lookup(p, "btrfs", 9000, 7200, 7650, 7200, 3, 450, 225, 675, 0);
	set_lookup(p, "ext4", 120000, 0, 0, 0, 0, 6000, 1200, 0, 112800);
	set_lookup(p, "proc", 5, 0, 0, 0, 0, 0, 0, 0, 5);
	profile_sort_fs(p);
}

/* Lookup could not attach anywhere, access was not asked for. */
static void build_degraded_profile(struct profile *p)
{
	profile_init(p);
	strcpy(p->hostname, "vm");
	strcpy(p->kernel_release, "5.15.0");
	strcpy(p->kernel_version, "#1 SMP");
	strcpy(p->machine, "aarch64");
	strcpy(p->boot_id, "00000000-0000-0000-0000-000000000001");
	p->start_ns = T0_NS;
	p->end_ns = T0_NS + 5000000000ULL;

	p->fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	add_attempt(&p->fam[FAMILY_LOOKUP], MODE_FENTRY, EPERM,
		    "load fentry_inode_permission: EPERM; this kernel refuses BPF trampolines");
	add_attempt(&p->fam[FAMILY_LOOKUP], MODE_KPROBE, ENOENT,
		    "attach kprobe_inode_permission: ENOENT; kprobes are not available here");
	add_attempt(&p->fam[FAMILY_LOOKUP], MODE_TRACEPOINT, EOPNOTSUPP,
		    "no tracepoint hook exists for this family");
	p->fam[FAMILY_ACCESS].status = FAMILY_NOT_REQUESTED;
	p->fam[FAMILY_EXEC].status = FAMILY_OK;
	p->fam[FAMILY_EXEC].mode = MODE_FENTRY;
	p->exec.calls[EXEC_OK] = 2;
	p->exec.mm_allocs = 2;
	add_samples(&p->exec.latency[EXEC_OK], 18, 2, 400000);
}

static void assert_profiles_equal(const struct profile *want, const struct profile *got)
{
	assert_string_equal(got->tool_version, want->tool_version);
	assert_string_equal(got->build.version, want->build.version);
	assert_string_equal(got->build.revision, want->build.revision);
	assert_string_equal(got->build.libbpf, want->build.libbpf);
	assert_string_equal(got->hostname, want->hostname);
	assert_string_equal(got->kernel_release, want->kernel_release);
	assert_string_equal(got->kernel_version, want->kernel_version);
	assert_string_equal(got->machine, want->machine);
	assert_string_equal(got->boot_id, want->boot_id);
	assert_string_equal(got->clocksource, want->clocksource);

	if (!want->command) {
		assert_null(got->command);
	} else {
		size_t i;

		assert_non_null(got->command);
		for (i = 0; want->command[i]; i++) {
			assert_non_null(got->command[i]);
			assert_string_equal(got->command[i], want->command[i]);
		}
		assert_null(got->command[i]);
	}
	assert_int_equal(got->exit_status, want->exit_status);
	assert_int_equal(got->filter_pid, want->filter_pid);
	assert_string_equal(got->filter_comm, want->filter_comm);
	assert_string_equal(got->filter_cgroup, want->filter_cgroup);
	assert_int_equal(got->start_ns, want->start_ns);
	assert_int_equal(got->end_ns, want->end_ns);

	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *w = &want->fam[f], *g = &got->fam[f];

		assert_int_equal(g->status, w->status);
		assert_int_equal(g->mode, w->mode);
		assert_int_equal(g->nattempts, w->nattempts);
		for (int i = 0; i < w->nattempts; i++) {
			assert_int_equal(g->attempts[i].mode, w->attempts[i].mode);
			assert_int_equal(g->attempts[i].err, w->attempts[i].err);
			assert_string_equal(g->attempts[i].why, w->attempts[i].why);
		}
		assert_memory_equal(&g->observed, &w->observed, sizeof(w->observed));
	}
	assert_memory_equal(&got->access, &want->access, sizeof(want->access));
	assert_memory_equal(&got->exec, &want->exec, sizeof(want->exec));
	assert_int_equal(got->nfs, want->nfs);
	for (size_t i = 0; i < want->nfs; i++) {
		assert_string_equal(got->fs[i].name, want->fs[i].name);
		assert_memory_equal(&got->fs[i].s, &want->fs[i].s, sizeof(want->fs[i].s));
	}
}

/* Serialise, parse back, compare. */
static void assert_round_trip(const struct profile *p)
{
	struct profile back;
	char err[512] = "";
	char *text = profile_to_json(p);

	assert_non_null(text);
	if (profile_from_json(text, &back, err, sizeof(err)) != 0)
		fail_msg("profile_from_json refused profile_to_json's output: %s", err);
	assert_profiles_equal(p, &back);
	profile_free(&back);
	free(text);
}

/* ---- round trips -------------------------------------------------------- */

/*
 * host.clocksource: kept when known, absent (older profiles) reads as
 * unknown, a wrong type is refused; only a jiffies clock is coarse.
 */
static void clocksource_is_optional_and_marks_a_coarse_clock(void **state)
{
	struct profile p, back;
	char err[512] = "", *text;

	(void)state;
	build_full_profile(&p);
	assert_false(profile_clock_is_coarse(&p));
	strcpy(p.clocksource, "refined-jiffies");
	assert_true(profile_clock_is_coarse(&p));
	assert_round_trip(&p);
	p.clocksource[0] = 0;
	text = profile_to_json(&p);
	assert_not_contains(text, "clocksource");
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
	assert_string_equal(back.clocksource, "");
	assert_false(profile_clock_is_coarse(&back));
	profile_free(&back);
	free(text);
	strcpy(p.clocksource, "tsc");
	text = profile_to_json(&p);
	char *at = strstr(text, "\"tsc\"");
	assert_non_null(at);
	memcpy(at, "12345", 5);
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), -1);
	assert_contains(err, "host.clocksource: expected a string");
	free(text);
	profile_free(&p);
}

/*
 * host.cred_refcount_line: each of check's three words round-trips; absent
 * (a profile from before it was kept) reads as not kept, which no word
 * stands for; anything else is refused, named.
 */
static void cred_refcount_line_is_optional_and_one_of_three_words(void **state)
{
	struct profile p, back;
	char err[512] = "", *text, *at;

	(void)state;
	build_full_profile(&p);
	p.cred_line_kept = true;
	for (int a = 0; a < 3; a++) {
		p.cred_line = (enum cred_layout_answer)a;
		text = profile_to_json(&p);
		assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
		assert_true(back.cred_line_kept);
		assert_int_equal(back.cred_line, a);
		profile_free(&back);
		free(text);
	}
	p.cred_line_kept = false;
	text = profile_to_json(&p);
	assert_not_contains(text, "cred_refcount_line");
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
	assert_false(back.cred_line_kept);
	profile_free(&back);
	free(text);
	p.cred_line_kept = true;
	p.cred_line = CRED_LAYOUT_SHARES;
	text = profile_to_json(&p);
	at = strstr(text, "\"shares\"");
	assert_non_null(at);
	memcpy(at, "\"sha\\ne\"", 8); /* a newline in it, as JSON writes one */
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), -1);
	assert_contains(err, "host.cred_refcount_line: expected \"separated\", \"shares\" or "
			"\"unknown\", found \"sha\\ne\"");
	memcpy(at, "12345678", 8);
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), -1);
	assert_contains(err, "host.cred_refcount_line: expected a string, found an integer");
	free(text);
	profile_free(&p);
}

/* TEXT, a profile, with "build" set to BUILD is refused with an error containing WHY. */
static void assert_build_refused(const char *text, json_t *build, const char *why)
{
	json_t *root = json_loads(text, 0, NULL);
	struct profile back;
	char err[512] = "", *bad;

	assert_non_null(root);
	json_object_set_new(root, "build", build);
	bad = json_dumps(root, 0);
	assert_int_equal(profile_from_json(bad, &back, err, sizeof(err)), -1);
	assert_contains(err, why);
	free(bad);
	json_decref(root);
}

/*
 * A profile made where its host facts are gathered (profile_set_host(), as
 * record, verify, the daemon and bench do) names the build that made it,
 * right after "tool"; one written before builds were kept has no "build"
 * and reads back with the build unknown; a "build" of the wrong shape is
 * refused.
 */
static void a_profile_names_its_build_and_an_old_one_reads_unknown(void **state)
{
	struct profile p, back;
	struct build_info self;
	char err[512] = "", *text, want[256];

	(void)state;
	profile_init(&p);
	profile_set_host(&p);
	build_info_self(&self);
	assert_true(build_info_known(&p.build));
	assert_memory_equal(&p.build, &self, sizeof(self));
	assert_string_equal(p.build.version, permscope_version());
	assert_string_equal(p.tool_version, permscope_version());
	assert_round_trip(&p);
	text = profile_to_json(&p);
	snprintf(want, sizeof(want), "\"tool\": \"%s\",\n  \"build\": {\n    \"version\": \"%s\",",
		 permscope_version(), permscope_version());
	assert_contains(text, want);
	snprintf(want, sizeof(want), "\"libbpf\": \"%s\"", self.libbpf);
	assert_contains(text, want);
	free(text);

	/* a build made without git: revision null */
	p.build.revision[0] = 0;
	text = profile_to_json(&p);
	assert_contains(text, "\"revision\": null");
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
	assert_string_equal(back.build.revision, "");
	assert_true(build_info_known(&back.build));
	profile_free(&back);
	free(text);

	/* older than builds: nothing written, unknown read */
	memset(&p.build, 0, sizeof(p.build));
	text = profile_to_json(&p);
	assert_not_contains(text, "\"build\"");
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
	assert_false(build_info_known(&back.build));
	profile_free(&back);
	free(text);

	/* the wrong shapes */
	build_info_self(&p.build);
	text = profile_to_json(&p);
	assert_build_refused(text, json_integer(7), "build: expected an object, found");
	assert_build_refused(text, json_pack("{s:s,s:n,s:i}", "version", "1", "revision",
					     "libbpf", 12), "build.libbpf: expected a string, found");
	assert_build_refused(text, json_pack("{s:s,s:s}", "version", "", "libbpf", "v1"),
			     "build.revision: expected a string or null, found nothing");
	free(text);
	profile_free(&p);
}

static void full_profile_survives_json_round_trip(void **state)
{
	struct profile p;

	(void)state;
	build_full_profile(&p);
	assert_round_trip(&p);
	profile_free(&p);
}

static void unavailable_and_not_requested_families_survive_round_trip(void **state)
{
	struct profile p;

	(void)state;
	build_degraded_profile(&p);
	assert_null(p.command); /* and no workload, no filter */
	assert_round_trip(&p);
	profile_free(&p);
}

static void histogram_buckets_are_written_as_log2_ranges(void **state)
{
	struct profile p;
	json_t *root, *b;
	char *text;

	(void)state;
	build_full_profile(&p);
	text = profile_to_json(&p);
	root = json_loads(text, 0, NULL);
	assert_non_null(root);
	b = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(
		json_object_get(root, "families"), "access"), "outcomes"), "fast"), "latency"),
		"buckets");
	assert_int_equal(json_array_size(b), 4);
	/* slot 0 is [0, 2) */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 0), "lo")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 0), "hi")), 2);
	/* slot 1 is [2, 4) */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 1), "lo")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 1), "hi")), 4);
	/* the last slot has no upper bound: "hi": null */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(b, 3), "lo")),
			 1ULL << (HIST_SLOTS - 1));
	assert_true(json_is_null(json_object_get(json_array_get(b, 3), "hi")));
	json_decref(root);
	free(text);
	profile_free(&p);
}

/*
 * glibc names no errno 41 or 58; their counts are written under their own
 * key ("errno41"), never merged into "other" (errnos[0]) and lost.
 */
static void errno_without_a_glibc_name_keeps_its_own_count(void **state)
{
	struct profile p, back;
	char err[512] = "";
	__u64 want = 0, got = 0;
	char *text;

	(void)state;
	build_full_profile(&p);
	p.exec.errnos[41] = 7;
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		want += p.exec.errnos[e];
	text = profile_to_json(&p);
	assert_int_equal(profile_from_json(text, &back, err, sizeof(err)), 0);
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		got += back.exec.errnos[e];
	if (got != want)
		print_message("errno 41 lost in the round trip\n");
	assert_int_equal(got, want);
	profile_free(&back);
	profile_free(&p);
	free(text);
}

/* ---- strict reading ----------------------------------------------------- */

enum edit {
	SET,           /* path.key = value (JSON text) */
	REMOVE,        /* delete path.key */
	TRUNCATE,      /* cut the text in half */
	WRAP_IN_ARRAY, /* [ document ] */
	DUPLICATE_KEY, /* repeat the line holding "key": */
};

struct bad_input {
	const char *what;
	enum edit edit;
	const char *path;  /* dotted, array elements by index; "" is the top */
	const char *key;
	const char *value;
	const char *error; /* expected in the message */
	bool at_start;     /* ...as its beginning */
};

#define LAT "families.access.outcomes.fast.latency"

static const struct bad_input bad_inputs[] = {
	{ "observed not an object", SET, "families.access", "observed", "3",
	  "families.access.observed: expected an object, found", true },
	{ "observed without its failed windows", REMOVE, "families.access.observed",
	  "failed_windows", NULL, "families.access.observed.failed_windows: missing", true },
	{ "a window as long as its period", SET, "families.access.observed", "window_ns",
	  "15000000000", "families.access.observed: window_ns 15000000000 must be above 0 and "
	  "below period_ns 15000000000", true },
	{ "a window with no period", SET, "families.access.observed", "period_ns", "0",
	  "must be above 0 and below period_ns 0", false },
	{ "negative time watched", SET, "families.access.observed", "ns", "-1",
	  "families.access.observed.ns: expected a non-negative integer", true },
	{ "lean not a boolean", SET, "families.access", "lean", "\"yes\"",
	  "families.access.lean: expected a boolean, found a string", true },
	{ "more time watched than the windows hold", SET, "families.access.observed", "ns",
	  "99000000000", "cannot fit in 12 windows within the profile's 4250000001 ns", false },
	{ "not JSON at all", TRUNCATE, "", NULL, NULL, "not valid JSON: line ", true },
	{ "top-level array", WRAP_IN_ARRAY, "", NULL, NULL,
	  "expected a JSON object at the top, found an array", true },
	{ "no format", REMOVE, "", "format", NULL,
	  "not a permscope profile (no \"format\" string; expected \"permscope-profile/1\")", true },
	{ "next format version", SET, "", "format", "\"permscope-profile/2\"",
	  "unsupported format \"permscope-profile/2\" (this permscope reads \"permscope-profile/1\")",
	  true },
	{ "no families", REMOVE, "", "families", NULL, "families: missing", true },
	{ "one family missing", REMOVE, "families", "exec", NULL, "families.exec: missing", true },
	{ "unknown family status", SET, "families.lookup", "status", "\"bogus\"",
	  "families.lookup.status: expected \"ok\", \"unavailable\" or \"not_requested\", "
	  "found \"bogus\"", true },
	{ "negative call count", SET, "families.access.outcomes.fast", "calls", "-1",
	  "families.access.outcomes.fast.calls: expected a non-negative integer, found -1", true },
	{ "negative bucket count", SET, LAT ".buckets.2", "count", "-4",
	  LAT ".buckets[2].count: expected a non-negative integer, found -4", true },
	{ "negative per-fs count", SET, "families.lookup.per_fs.tmpfs", "checks", "-5",
	  "families.lookup.per_fs.tmpfs.checks: expected a non-negative integer, found -5", true },
	{ "count that is not an integer", SET, "families.access", "eaccess", "1.5",
	  "families.access.eaccess: expected an integer, found a number", true },
	{ "stats of the wrong type", SET, "families.lookup", "per_fs", "[]",
	  "families.lookup.per_fs: expected an object, found an array", true },
	{ "bucket lo not a power of two", SET, LAT ".buckets.0", "lo", "3",
	  LAT ".buckets[0]: [lo, hi) is not a log2 bucket of this format", true },
	{ "bucket hi not the next power of two", SET, LAT ".buckets.1", "hi", "3",
	  LAT ".buckets[1]: [lo, hi) is not a log2 bucket of this format", true },
	{ "last bucket closed at the top", SET, LAT ".buckets.3", "hi", "1099511627776",
	  LAT ".buckets[3]: [lo, hi) is not a log2 bucket of this format", true },
	{ "bucket without hi", REMOVE, LAT ".buckets.1", "hi", NULL,
	  LAT ".buckets[1]: [lo, hi) is not a log2 bucket of this format", true },
	{ "buckets do not add up to count", SET, LAT, "count", "1011",
	  LAT ": buckets add up to 1010, count says 1011", true },
	{ "unknown attach mode in an attempt", SET, "families.access.attempts.0", "mode",
	  "\"uprobe\"", "families.access.attempts[0].mode: unknown attach mode \"uprobe\"", true },
	{ "unknown attach mode of an ok family", SET, "families.exec", "mode", "\"uprobe\"",
	  "families.exec.mode: expected fentry, kprobe or tracepoint", true },
	{ "ok family without a mode", SET, "families.lookup", "mode", "null",
	  "families.lookup.mode: expected fentry, kprobe or tracepoint", true },
	{ "unknown errno name", SET, "families.exec.errno", "EBOGUS", "1",
	  "families.exec.errno.EBOGUS: unknown errno name", true },
	{ "duplicate key", DUPLICATE_KEY, "", "tool", NULL,
	  "duplicate object key near '\"tool\"'", false },
	{ "start without a time zone", SET, "", "start", "\"2026-11-30T09:15:02.123456789\"",
	  "start/end: expected UTC times like 2026-01-31T12:00:00.000000000Z", true },
	{ "end that is no time", SET, "", "end", "\"yesterday\"",
	  "start/end: expected UTC times like 2026-01-31T12:00:00.000000000Z", true },
	{ "command with a number", SET, "workload.command", "1", "7",
	  "workload.command[1]: expected a string", true },
	{ "unavailable family that does not say why", SET, "families.lookup", "status",
	  "\"unavailable\"", "families.lookup.attempts: an unavailable family must say why", true },
};

/* The member at a dotted path: "families.exec.attempts.0". */
static json_t *walk(json_t *root, const char *path)
{
	char buf[256], *seg, *save = NULL;
	json_t *v = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, ".", &save); seg && v; seg = strtok_r(NULL, ".", &save))
		v = json_is_array(v) ? json_array_get(v, strtoul(seg, NULL, 10)) :
				       json_object_get(v, seg);
	return v;
}

/* Repeat the first line holding "key": right after it. */
static char *duplicate_line(const char *text, const char *key)
{
	char needle[64], *out;
	const char *at, *bol, *eol;

	snprintf(needle, sizeof(needle), "\"%s\":", key);
	at = strstr(text, needle);
	assert_non_null(at);
	for (bol = at; bol > text && bol[-1] != '\n'; bol--)
		;
	eol = strchr(at, '\n');
	assert_non_null(eol);
	eol++;
	assert_true(asprintf(&out, "%.*s%.*s%s", (int)(eol - text), text,
			     (int)(eol - bol), bol, eol) > 0);
	return out;
}

/* The valid document with one edit applied. */
static char *make_bad_input(const char *valid, const struct bad_input *c)
{
	json_t *root, *parent;
	char *text;

	if (c->edit == TRUNCATE)
		return strndup(valid, strlen(valid) / 2);
	if (c->edit == DUPLICATE_KEY)
		return duplicate_line(valid, c->key);

	root = json_loads(valid, 0, NULL);
	assert_non_null(root);
	if (c->edit == WRAP_IN_ARRAY) {
		root = json_pack("[o]", root);
	} else {
		parent = walk(root, c->path);
		if (!parent)
			fail_msg("%s: no member at \"%s\"", c->what, c->path);
		if (c->edit == REMOVE) {
			assert_int_equal(json_object_del(parent, c->key), 0);
		} else {
			json_t *v = json_loads(c->value, JSON_DECODE_ANY, NULL);

			assert_non_null(v);
			if (json_is_array(parent))
				assert_int_equal(json_array_set_new(parent,
					strtoul(c->key, NULL, 10), v), 0);
			else
				assert_int_equal(json_object_set_new(parent, c->key, v), 0);
		}
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	assert_non_null(text);
	json_decref(root);
	return text;
}

static void malformed_profiles_are_refused_with_a_precise_message(void **state)
{
	struct profile p;
	char *valid, err[512];
	int failures = 0;

	(void)state;
	build_full_profile(&p);
	valid = profile_to_json(&p);
	profile_free(&p);
	assert_non_null(valid);
	/* The control: unedited, the document is accepted. */
	assert_int_equal(profile_from_json(valid, &p, err, sizeof(err)), 0);
	profile_free(&p);

	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad_input *c = &bad_inputs[i];
		char *bad = make_bad_input(valid, c);
		int ret;
		bool ok;

		strcpy(err, "(no message)");
		ret = profile_from_json(bad, &p, err, sizeof(err));
		ok = ret == -1 && (c->at_start ? strncmp(err, c->error, strlen(c->error)) == 0
					      : strstr(err, c->error) != NULL);
		if (!ok) {
			print_error("case \"%s\": returned %d, message \"%s\"\n"
				    "  expected -1 and a message %s \"%s\"\n", c->what, ret, err,
				    c->at_start ? "starting" : "containing", c->error);
			failures++;
		} else if (p.command || p.fs || p.nfs) {
			print_error("case \"%s\": profile not freed after the error\n", c->what);
			failures++;
		}
		if (ret == 0)
			profile_free(&p);
		free(bad);
	}
	free(valid);
	assert_int_equal(failures, 0);
}

/* filter.cgroup: older profiles have no such key; a path too long is refused. */
static void filter_cgroup_is_optional_and_bounded(void **state)
{
	struct profile p;
	json_t *root, *filter;
	char *valid, *text, *longpath, err[512] = "";

	(void)state;
	build_full_profile(&p);
	valid = profile_to_json(&p);
	profile_free(&p);
	root = json_loads(valid, 0, NULL);
	assert_non_null(root);
	filter = json_object_get(root, "filter");
	assert_string_equal(json_string_value(json_object_get(filter, "cgroup")),
			    "/sys/fs/cgroup/system.slice/build.service");

	/* written before --cgroup existed: no key, no cgroup filter */
	assert_int_equal(json_object_del(filter, "cgroup"), 0);
	text = json_dumps(root, 0);
	if (profile_from_json(text, &p, err, sizeof(err)))
		fail_msg("a profile without filter.cgroup: %s", err);
	assert_string_equal(p.filter_cgroup, "");
	assert_string_equal(p.filter_comm, "make");
	profile_free(&p);
	free(text);

	/* null is none too */
	json_object_set_new(filter, "cgroup", json_null());
	text = json_dumps(root, 0);
	assert_int_equal(profile_from_json(text, &p, err, sizeof(err)), 0);
	assert_string_equal(p.filter_cgroup, "");
	profile_free(&p);
	free(text);

	/* longer than the profile keeps: refused, never cut to another path */
	longpath = malloc(sizeof(p.filter_cgroup) + 1);
	assert_non_null(longpath);
	memset(longpath, 'a', sizeof(p.filter_cgroup));
	longpath[0] = '/';
	longpath[sizeof(p.filter_cgroup)] = 0;
	json_object_set_new(filter, "cgroup", json_string(longpath));
	text = json_dumps(root, 0);
	assert_int_equal(profile_from_json(text, &p, err, sizeof(err)), -1);
	assert_contains(err, "filter.cgroup: longer than 4095 bytes");
	free(text);
	free(longpath);
	json_decref(root);
	free(valid);
}

/*
 * Two buckets with the same [lo, hi) could add up to the count while the
 * slot kept only one of them: the reader refuses a repeated bucket.
 */
static void duplicate_latency_bucket_is_refused(void **state)
{
	struct profile p;
	json_t *root, *buckets, *copy;
	char *valid, *bad, err[512] = "";
	int ret;

	(void)state;
	build_full_profile(&p);
	valid = profile_to_json(&p);
	profile_free(&p);
	root = json_loads(valid, 0, NULL);
	buckets = walk(root, LAT ".buckets");
	assert_non_null(buckets);
	/* bucket 2 is [512, 1024) with 1000: split it into two 500s */
	json_object_set_new(json_array_get(buckets, 2), "count", json_integer(500));
	copy = json_deep_copy(json_array_get(buckets, 2));
	json_array_insert_new(buckets, 3, copy);
	bad = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	ret = profile_from_json(bad, &p, err, sizeof(err));
	if (ret == 0) {
		print_message("duplicate bucket accepted, "
			      "slots[9] = %llu, count = %llu\n",
			      (unsigned long long)p.access.latency[ACCESS_FAST].slots[9],
			      (unsigned long long)p.access.latency[ACCESS_FAST].count);
		profile_free(&p);
	}
	assert_int_equal(ret, -1);
	assert_contains(err, LAT);
	json_decref(root);
	free(bad);
	free(valid);
}

/* ---- profile_write and profile_read ------------------------------------ */

static int count_temp_files(const char *dirpath)
{
	struct dirent *e;
	DIR *dir = opendir(dirpath);
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		if (strstr(e->d_name, ".tmp."))
			n++;
	closedir(dir);
	return n;
}

static void written_profile_reads_back_with_mode_0644_and_no_temp_file(void **state)
{
	const char *path = tmp_path("profile.json");
	struct profile p, back;
	char err[512] = "";
	struct stat st;

	(void)state;
	build_full_profile(&p);
	for (int pass = 0; pass < 2; pass++) { /* create, then replace */
		assert_int_equal(profile_write(&p, path), 0);
		if (profile_read(path, &back, err, sizeof(err)))
			fail_msg("profile_read: %s", err);
		assert_profiles_equal(&p, &back);
		profile_free(&back);
		assert_int_equal(count_temp_files(tmpdir), 0);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(st.st_mode & 07777, 0644);
	}
	profile_free(&p);
}

static void writing_over_a_symlink_replaces_the_link_not_its_target(void **state)
{
	static const char old[] = "old content, not a profile\n";
	const char *target = tmp_path("target.json"), *link = tmp_path("link.json");
	char *content, err[512] = "";
	struct profile p, back;
	struct stat st;

	(void)state;
	write_file(target, old, strlen(old));
	assert_int_equal(symlink("target.json", link), 0);
	build_degraded_profile(&p);

	assert_int_equal(profile_write(&p, link), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode)); /* the link is gone, a file took its name */
	content = slurp(target, NULL);
	assert_non_null(content);
	assert_string_equal(content, old);
	free(content);
	if (profile_read(link, &back, err, sizeof(err)))
		fail_msg("profile_read: %s", err);
	assert_profiles_equal(&p, &back);
	assert_int_equal(count_temp_files(tmpdir), 0);
	profile_free(&back);
	profile_free(&p);
}

static void failed_write_reports_errno_and_leaves_no_temp_file(void **state)
{
	const char *path = tmp_path("a-directory");
	struct profile p;

	(void)state;
	assert_int_equal(mkdir(path, 0755), 0);
	build_degraded_profile(&p);
	assert_int_equal(profile_write(&p, path), -EISDIR);
	assert_int_equal(count_temp_files(tmpdir), 0);
	profile_free(&p);
}

static void reading_a_missing_file_says_cannot_open(void **state)
{
	const char *path = tmp_path("no-such-profile.json");
	char err[512] = "";
	struct profile p;

	(void)state;
	assert_int_equal(profile_read(path, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "cannot open: No such file or directory");
}

static void file_with_a_nul_byte_is_refused(void **state)
{
	const char *path = tmp_path("nul.json");
	char *text, *data, err[512] = "";
	struct profile p;
	size_t len;

	(void)state;
	/* A valid document, then a NUL and junk: a C-string parser would accept it. */
	build_degraded_profile(&p);
	text = profile_to_json(&p);
	profile_free(&p);
	len = strlen(text);
	data = malloc(len + 8);
	assert_non_null(data);
	memcpy(data, text, len);
	memcpy(data + len, "\n\0junk\n", 7);
	write_file(path, data, len + 7);

	assert_int_equal(profile_read(path, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "not valid JSON: contains a NUL byte");
	free(data);
	free(text);
}

/* ---- profile_copy ------------------------------------------------------- */

/* Two merged runs (permscope merge), so that a copy has every kind of owned buffer. */
static void add_runs(struct profile *p)
{
	p->nruns = 2;
	assert_non_null(p->runs = calloc(p->nruns, sizeof(*p->runs)));
	for (size_t r = 0; r < p->nruns; r++) {
		struct metric_list *l = &p->runs[r];

		l->cap = 4; /* room left: a copy keeps it */
		assert_non_null(l->m = calloc(l->cap, sizeof(*l->m)));
		strcpy(l->m[l->n].name, "access.calls");
		l->m[l->n++].value = 1000.0 * (r + 1);
		strcpy(l->m[l->n].name, "exec.enoent_early_share");
		l->m[l->n++].value = 0.25 * (r + 1);
	}
}

static void a_copy_equals_the_original_and_owns_its_buffers(void **state)
{
	struct profile p, copy;

	(void)state;
	build_full_profile(&p);
	add_runs(&p);
	family_add_lost(&p.fam[FAMILY_EXEC], "ringbuf", 17);
	p.fam[FAMILY_EXEC].lost_known = true;
	p.absent[FAMILY_ACCESS] = 1u << 3;
	assert_int_equal(profile_copy(&copy, &p), 0);

	assert_profiles_equal(&p, &copy);
	assert_memory_equal(copy.absent, p.absent, sizeof(p.absent));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		assert_int_equal(copy.fam[f].lost_known, p.fam[f].lost_known);
		assert_int_equal(copy.fam[f].nlost, p.fam[f].nlost);
		assert_memory_equal(copy.fam[f].lost, p.fam[f].lost, sizeof(p.fam[f].lost));
	}
	assert_int_equal(copy.nruns, p.nruns);
	for (size_t r = 0; r < p.nruns; r++) {
		assert_int_equal(copy.runs[r].n, p.runs[r].n);
		assert_int_equal(copy.runs[r].cap, p.runs[r].cap);
		assert_memory_equal(copy.runs[r].m, p.runs[r].m, p.runs[r].n * sizeof(*p.runs[r].m));
	}

	/* Every buffer is the copy's own... */
	assert_ptr_not_equal(copy.command, p.command);
	for (size_t i = 0; p.command[i]; i++)
		assert_ptr_not_equal(copy.command[i], p.command[i]);
	assert_ptr_not_equal(copy.fs, p.fs);
	assert_ptr_not_equal(copy.runs, p.runs);
	for (size_t r = 0; r < p.nruns; r++)
		assert_ptr_not_equal(copy.runs[r].m, p.runs[r].m);
	/* ...so growing it leaves the original as it was (the daemon subtracts from a copy)... */
	assert_non_null(profile_add_fs(&copy, "xfs"));
	assert_int_equal(p.nfs, 4);
	assert_string_equal(p.fs[3].name, "tmpfs");
	/* ...and each is freed on its own: a double free or a leak fails `make sanitize-test`. */
	profile_free(&copy);
	profile_free(&p);

	/* Nothing owned, nothing allocated. */
	build_degraded_profile(&p);
	assert_int_equal(profile_copy(&copy, &p), 0);
	assert_profiles_equal(&p, &copy);
	assert_null(copy.command);
	assert_null(copy.fs);
	assert_null(copy.runs);
	profile_free(&copy);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_profile_survives_json_round_trip),
		cmocka_unit_test(a_profile_names_its_build_and_an_old_one_reads_unknown),
		cmocka_unit_test(clocksource_is_optional_and_marks_a_coarse_clock),
		cmocka_unit_test(cred_refcount_line_is_optional_and_one_of_three_words),
		cmocka_unit_test(unavailable_and_not_requested_families_survive_round_trip),
		cmocka_unit_test(histogram_buckets_are_written_as_log2_ranges),
		cmocka_unit_test(errno_without_a_glibc_name_keeps_its_own_count),
		cmocka_unit_test(malformed_profiles_are_refused_with_a_precise_message),
		cmocka_unit_test(filter_cgroup_is_optional_and_bounded),
		cmocka_unit_test(duplicate_latency_bucket_is_refused),
		cmocka_unit_test(a_copy_equals_the_original_and_owns_its_buffers),
		cmocka_unit_test_setup_teardown(written_profile_reads_back_with_mode_0644_and_no_temp_file,
						tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(writing_over_a_symlink_replaces_the_link_not_its_target,
						tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(failed_write_reports_errno_and_leaves_no_temp_file,
						tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(reading_a_missing_file_says_cannot_open,
						tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(file_with_a_nul_byte_is_refused,
						tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
