// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus exposition of a profile (src/prom/prom.c): exact lines from
 * profiles whose counts are known, every schema row reaching /metrics,
 * the format's rules (one HELP and TYPE a family, its series together,
 * escaping), promtool's verdict, docs/metrics.md naming every metric, and
 * tests/unit/golden/metrics.prom for the sample profile.
 */
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "promserver.h"
#include "testutil.h"

#include "profile.h"
#include "prom/prom.h"
#include "prom/promnames.h"
#include "schema.h"
#include "util.h"

/* 2026-11-30T09:15:02.125Z, the sample profile's start */
#define START_NS 1796030102125000000ULL

/* ---- profiles ------------------------------------------------------------ */

static void load_sample(struct profile *p)
{
	char *path, err[512] = "";

	assert_true(asprintf(&path, "%s/sample-profile.json", testdata_dir()) > 0);
	if (profile_read(path, p, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	free(path);
}

/* Every family OK, no counts yet: lookup in fentry on ext4 and tmpfs, access
 * in kprobe, exec in tracepoint mode. */
static void empty_profile(struct profile *p)
{
	profile_init(p);
	strcpy(p->kernel_release, "6.18.0-prom");
	p->start_ns = START_NS;
	assert_non_null(profile_add_fs(p, "tmpfs"));
	assert_non_null(profile_add_fs(p, "ext4"));
	profile_sort_fs(p);
	p->fam[FAMILY_LOOKUP].status = FAMILY_OK;
	p->fam[FAMILY_LOOKUP].mode = MODE_FENTRY;
	p->fam[FAMILY_ACCESS].status = FAMILY_OK;
	p->fam[FAMILY_ACCESS].mode = MODE_KPROBE;
	p->fam[FAMILY_EXEC].status = FAMILY_OK;
	p->fam[FAMILY_EXEC].mode = MODE_TRACEPOINT;
}

/*
 * empty_profile() with every counter of every row holding a value of its
 * own, outcome latencies consistent with their calls, ENOENT counted, and
 * losses read.
 */
static void full_profile(struct profile *p)
{
	__u64 v = 1000;

	empty_profile(p);
	p->cred_line_kept = true;
	p->cred_line = CRED_LAYOUT_SEPARATED;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];

		for (size_t s = 0; s < profile_nstats(p, f); s++)
			for (int i = 0; i < fs->nrows; i++) {
				const struct schema_row *r = &fs->rows[i];
				void *stats = profile_stats(p, f, s);
				__u64 *c = schema_counter(r, stats);

				if (r->kind == ROW_COUNT) {
					*c = v += 7;
				} else if (r->kind == ROW_OUTCOME) {
					*c = v += 7;
					schema_hist(r, stats)->slots[10] = *c;
					schema_hist(r, stats)->count = *c;
					schema_hist(r, stats)->sum = *c * 1500;
				} else if (r->kind == ROW_ERRNOS) {
					c[ENOENT] = v += 7;
				}
			}
		p->fam[f].lost_known = true;
		family_add_lost(&p->fam[f], "ringbuf", f);
	}
}

static char *render(const struct profile *p, const struct prom_daemon *d)
{
	size_t len;
	char *text = prom_render(p, d, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

/* ---- reading the exposition --------------------------------------------- */

/* TEXT holds LINE as a whole line. */
#define assert_line(text, line) assert_line_at((text), (line), true, __FILE__, __LINE__)
#define assert_no_line(text, line) assert_line_at((text), (line), false, __FILE__, __LINE__)

static void assert_line_at(const char *text, const char *line, bool want, const char *file,
			   int at)
{
	size_t n = strlen(line);
	bool found = false;

	for (const char *s = text; s && *s && !found; s = strchr(s, '\n'), s = s ? s + 1 : s)
		found = !strncmp(s, line, n) && (s[n] == '\n' || !s[n]);
	if (found == want)
		return;
	print_error("%s the line\n  %s\nin:\n", want ? "expected" : "did not expect", line);
	testutil_print_text(text);
	_fail(file, at);
}

#define MAX_SERIES_LABELS 8

/* One sample line, label values unescaped. */
struct sample {
	char name[128];
	int nlabels;
	char label[MAX_SERIES_LABELS][32];
	char value[MAX_SERIES_LABELS][96];
	char number[48];
};

/* Parse the sample line at LINE (up to its newline); false when malformed. */
static bool parse_sample(const char *line, struct sample *s)
{
	size_t n = strcspn(line, "{ \n");

	memset(s, 0, sizeof(*s));
	if (!n || n >= sizeof(s->name))
		return false;
	memcpy(s->name, line, n);
	line += n;
	if (*line == '{') {
		line++;
		while (*line != '}') {
			char *v;
			size_t k = strcspn(line, "=\n}");

			if (s->nlabels == MAX_SERIES_LABELS || !k || k >= 32 || line[k] != '=' ||
			    line[k + 1] != '"')
				return false;
			memcpy(s->label[s->nlabels], line, k);
			line += k + 2;
			v = s->value[s->nlabels];
			for (n = 0; *line != '"'; line++) {
				if (!*line || *line == '\n' || n + 1 >= sizeof(s->value[0]))
					return false;
				if (*line == '\\') {
					line++;
					if (*line != '\\' && *line != '"' && *line != 'n')
						return false;
					v[n++] = *line == 'n' ? '\n' : *line;
				} else {
					v[n++] = *line;
				}
			}
			line++;
			s->nlabels++;
			if (*line == ',')
				line++;
			else if (*line != '}')
				return false;
		}
		line++;
	}
	if (*line++ != ' ')
		return false;
	n = strcspn(line, "\n");
	if (!n || n >= sizeof(s->number) || memchr(line, ' ', n))
		return false;
	memcpy(s->number, line, n);
	return true;
}

static const char *sample_label(const struct sample *s, const char *name)
{
	for (int i = 0; i < s->nlabels; i++)
		if (!strcmp(s->label[i], name))
			return s->value[i];
	return NULL;
}

/*
 * The value of the series NAME{LABELS} in TEXT, LABELS as "name", "value"
 * pairs ending in NULL, in any order; NULL when there is no such series.
 */
static const char *series_value(const char *text, const char *name, ...)
{
	static struct sample s;
	const char *want[2 * MAX_SERIES_LABELS];
	int nwant = 0;
	va_list ap;

	va_start(ap, name);
	while (nwant < 2 * MAX_SERIES_LABELS && (want[nwant] = va_arg(ap, const char *)))
		nwant++;
	va_end(ap);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		bool match;

		if (*l == '#' || !parse_sample(l, &s) || strcmp(s.name, name) ||
		    s.nlabels != nwant / 2)
			continue;
		match = true;
		for (int i = 0; i < nwant; i += 2) {
			const char *v = sample_label(&s, want[i]);

			match = match && v && !strcmp(v, want[i + 1]);
		}
		if (match)
			return s.number;
	}
	return NULL;
}

#define assert_series(text, want, name, ...) \
	assert_series_at((text), (want), series_value((text), (name), __VA_ARGS__), (name), \
			 __FILE__, __LINE__)

static void assert_series_at(const char *text, const char *want, const char *got,
			     const char *name, const char *file, int line)
{
	if (got && !strcmp(got, want))
		return;
	if (got)
		print_error("%s: %s, expected %s, in:\n", name, got, want);
	else
		print_error("no series %s with those labels (expected value %s) in:\n", name, want);
	testutil_print_text(text);
	_fail(file, line);
}

static char *u64_text(__u64 v)
{
	static char buf[4][24];
	static unsigned int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%llu", (unsigned long long)v);
	return b;
}

/* The names in the "# TYPE NAME TYPE" lines of TEXT, NULL-terminated; malloc'ed. */
static char **metric_names(const char *text, char ***types)
{
	size_t n = 0;
	char **names = calloc(1, sizeof(char *)), **t = calloc(1, sizeof(char *));

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char name[128], type[32];

		if (sscanf(l, "# TYPE %127s %31s", name, type) != 2)
			continue;
		names = realloc(names, (n + 2) * sizeof(char *));
		t = realloc(t, (n + 2) * sizeof(char *));
		assert_non_null(names);
		assert_non_null(t);
		names[n] = strdup(name);
		t[n++] = strdup(type);
		names[n] = t[n] = NULL;
	}
	if (types)
		*types = t;
	else {
		for (size_t i = 0; i < n; i++)
			free(t[i]);
		free(t);
	}
	return names;
}

static void free_names(char **names)
{
	for (char **n = names; n && *n; n++)
		free(*n);
	free(names);
}

/* ---- the golden file ----------------------------------------------------- */

/* Every bound of every slot, as before --buckets: what the exact-bound tests read. */
static const struct prom_daemon all_buckets = { .buckets = PROM_BUCKETS_ALL };

static const struct prom_daemon daemon_seen = {
	.snapshots_written = 3,
	.snapshot_errors = 1,
	.last_snapshot_ns = START_NS + 58375000000ULL,
};

static void sample_profile_matches_golden(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	load_sample(&p);
	text = render(&p, &daemon_seen);
	assert_golden("metrics.prom", text, strlen(text));
	free(text);
	profile_free(&p);
}

/* ---- counters ------------------------------------------------------------ */

static void counters_carry_their_values_per_filesystem_and_mode(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	p.fs[0].s.checks = 120000; /* ext4: sorted first */
	p.fs[0].s.ineligible[LOOKUP_INEL_NOT_OPTED_IN] = 112800;
	p.fs[0].s.ineligible[LOOKUP_INEL_ACL] = 1200;
	p.fs[1].s.checks = 48000;
	p.fs[1].s.did_skip = 45600;
	p.fs[1].s.origin[LOOKUP_ORIGIN_WALK] = 47000;
	p.access.eaccess = 240;
	p.access.calls[ACCESS_FAST] = 38400;
	p.access.calls[ACCESS_AVOIDABLE] = 17;
	p.exec.mm_allocs = 214;
	p.exec.calls[EXEC_ENOENT_EARLY] = 1340;
	text = render(&p, NULL);

	assert_line(text, "permscope_lookup_checks_total{fs=\"ext4\",mode=\"fentry\"} 120000");
	assert_line(text, "permscope_lookup_checks_total{fs=\"tmpfs\",mode=\"fentry\"} 48000");
	assert_line(text, "permscope_lookup_did_skip_total{fs=\"ext4\",mode=\"fentry\"} 0");
	assert_line(text, "permscope_lookup_did_skip_total{fs=\"tmpfs\",mode=\"fentry\"} 45600");
	/* filesystems in the profile's order, ext4's series before tmpfs's */
	assert_true(strstr(text, "checks_total{fs=\"ext4\"") < strstr(text, "checks_total{fs=\"tmpfs\""));
	assert_line(text, "permscope_lookup_ineligible_total{fs=\"ext4\",mode=\"fentry\","
			  "reason=\"not_opted_in\"} 112800");
	assert_line(text, "permscope_lookup_ineligible_total{fs=\"ext4\",mode=\"fentry\","
			  "reason=\"acl\"} 1200");
	assert_line(text, "permscope_lookup_ineligible_total{fs=\"tmpfs\",mode=\"fentry\","
			  "reason=\"acl\"} 0");
	assert_line(text, "permscope_lookup_origin_total{fs=\"tmpfs\",mode=\"fentry\","
			  "origin=\"walk\"} 47000");
	assert_line(text, "permscope_access_eaccess_total{mode=\"kprobe\"} 240");
	assert_line(text, "permscope_access_calls_total{mode=\"kprobe\",outcome=\"fast\"} 38400");
	assert_line(text, "permscope_access_calls_total{mode=\"kprobe\",outcome=\"avoidable\"} 17");
	assert_line(text, "permscope_access_calls_total{mode=\"kprobe\",outcome=\"unsafe\"} 0");
	assert_line(text, "permscope_exec_mm_allocs_total{mode=\"tracepoint\"} 214");
	assert_line(text, "permscope_exec_calls_total{mode=\"tracepoint\",outcome=\"enoent_early\"} 1340");
	assert_line(text, "# TYPE permscope_lookup_checks_total counter");
	assert_line(text, "# HELP permscope_lookup_checks_total lookup: MAY_EXEC checks on directories");
	/* derived rows are PromQL's to compute */
	assert_not_contains(text, "ratio");
	assert_not_contains(text, "per_call");
	assert_not_contains(text, "_share");
	assert_not_contains(text, "permscope_exec_enoent_total");
	/* one permscope_access_calls_total family: the SUM row "calls" adds none */
	assert_null(strstr(strstr(text, "# TYPE permscope_access_calls_total ") + 1,
			   "# TYPE permscope_access_calls_total "));
	free(text);
	profile_free(&p);
}

/*
 * Latencies 1, 3, 1000, 1500 and 5000 ns and one past 2^39 ns: slots 0, 1,
 * 9, 10, 12 and the open 39th, which only +Inf counts.
 */
static void latency_buckets_are_cumulative_in_seconds_and_count_the_calls(void **state)
{
	static const __u64 ns[] = { 1, 3, 1000, 1500, 5000, (1ULL << 39) + 5 };
	struct hist *h;
	struct profile p;
	char *text, *bucket;
	int nbuckets = 0;

	(void)state;
	empty_profile(&p);
	h = &p.access.latency[ACCESS_FAST];
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		hist_add(h, ns[i]);
	p.access.calls[ACCESS_FAST] = 6;
	text = render(&p, &all_buckets);

#define B "permscope_access_latency_seconds_bucket{mode=\"kprobe\",outcome=\"fast\","
	assert_line(text, "# TYPE permscope_access_latency_seconds histogram");
	assert_line(text, B "le=\"1e-09\"} 1");
	assert_line(text, B "le=\"3e-09\"} 2");
	assert_line(text, B "le=\"7e-09\"} 2");
	assert_line(text, B "le=\"5.11e-07\"} 2");
	assert_line(text, B "le=\"1.023e-06\"} 3");
	assert_line(text, B "le=\"2.047e-06\"} 4");
	assert_line(text, B "le=\"4.095e-06\"} 4");
	assert_line(text, B "le=\"8.191e-06\"} 5");
	assert_line(text, B "le=\"549.755813887\"} 5");
	assert_line(text, B "le=\"+Inf\"} 6");
	assert_line(text, "permscope_access_latency_seconds_count{mode=\"kprobe\",outcome=\"fast\"} 6");
	/* (1 + 3 + 1000 + 1500 + 5000 + 2^39 + 5) ns */
	assert_line(text, "permscope_access_latency_seconds_sum{mode=\"kprobe\",outcome=\"fast\"} "
			  "549.755821397");
	/* every bucket asked for, every time: 39 bounds and +Inf, for an outcome never seen too */
	for (bucket = strstr(text, B); bucket; bucket = strstr(bucket + 1, B))
		nbuckets++;
	assert_int_equal(nbuckets, HIST_SLOTS);
	assert_line(text, "permscope_access_latency_seconds_bucket{mode=\"kprobe\",outcome=\"unsafe\","
			  "le=\"1e-09\"} 0");
	assert_line(text, "permscope_access_latency_seconds_count{mode=\"kprobe\",outcome=\"unsafe\"} 0");
#undef B
	free(text);

	profile_free(&p);
}

/* le is the last nanosecond a slot holds, in seconds, for every slot, then +Inf. */
static void every_bucket_bound_is_the_last_nanosecond_of_its_slot(void **state)
{
	static const char key[] = "permscope_exec_latency_seconds_bucket{mode=\"tracepoint\","
				  "outcome=\"ok\",le=\"";
	struct profile p;
	const char *at;
	unsigned int s = 0;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, &all_buckets);
	for (at = strstr(text, key); at; at = strstr(at, key), s++) {
		__u64 last = (2ULL << s) - 1;
		char *end;
		double le;

		at += strlen(key);
		if (s == HIST_SLOTS - 1) {
			assert_true(!strncmp(at, "+Inf\"", 5));
			continue;
		}
		le = strtod(at, &end);
		assert_true(*end == '"');
		if (le != (double)last / 1e9)
			fail_msg("slot %u: le=\"%.*s\", expected %llu ns", s, (int)(end - at), at,
				 (unsigned long long)last);
	}
	assert_int_equal(s, HIST_SLOTS);
	free(text);
	profile_free(&p);
}

/*
 * By default the bounds from 128 ns to 2^30 ns (slots 6 to 29): 24 bounds
 * and +Inf.  What a slot below 6 counted is in every exported bound's
 * cumulative count, what slots 30 to 39 counted in +Inf alone; _sum and
 * _count stay exact.
 */
static void default_buckets_are_128ns_to_about_1s_and_stay_exact(void **state)
{
	static const __u64 ns[] = { 1, 100, 127, 128, 5000, 1073741823, 1073741824, 1ULL << 39 };
	static const char key[] = "permscope_access_latency_seconds_bucket{mode=\"kprobe\","
				  "outcome=\"fast\",le=\"";
	struct hist *h;
	struct profile p;
	unsigned int s = 6, n = 0;
	const char *at;
	char *text;

	(void)state;
	empty_profile(&p);
	h = &p.access.latency[ACCESS_FAST];
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		hist_add(h, ns[i]);
	p.access.calls[ACCESS_FAST] = 8;
	text = render(&p, NULL);
	for (at = strstr(text, key); at; at = strstr(at, key), n++) {
		at += strlen(key);
		if (!strncmp(at, "+Inf\"", 5))
			continue;
		assert_true(strtod(at, NULL) == (double)((2ULL << s) - 1) / 1e9);
		s++;
	}
	assert_int_equal(s, 30);
	assert_int_equal(n, 24 + 1);
#define B "permscope_access_latency_seconds_bucket{mode=\"kprobe\",outcome=\"fast\","
	assert_line(text, B "le=\"1.27e-07\"} 3");
	assert_line(text, B "le=\"2.55e-07\"} 4");
	assert_line(text, B "le=\"8.191e-06\"} 5");
	assert_line(text, B "le=\"0.536870911\"} 5");
	assert_line(text, B "le=\"1.073741823\"} 6");
	assert_line(text, B "le=\"+Inf\"} 8");
	assert_not_contains(text, "le=\"6.3e-08\"");
	assert_not_contains(text, "le=\"2.147483647\"");
#undef B
	assert_line(text, "permscope_access_latency_seconds_count{mode=\"kprobe\",outcome=\"fast\"} 8");
	/* (1 + 100 + 127 + 128 + 5000 + 2^30 - 1 + 2^30 + 2^39) ns */
	assert_line(text, "permscope_access_latency_seconds_sum{mode=\"kprobe\",outcome=\"fast\"} "
			  "551.903302891");
	free(text);
	profile_free(&p);
}

/* --buckets picks any set of slot bounds; the counts at each are the same as with all. */
static void chosen_buckets_are_exported_alone_with_exact_counts(void **state)
{
	struct prom_daemon d = { .buckets = 0 };
	struct profile p;
	char err[256];
	char *text;

	(void)state;
	empty_profile(&p);
	hist_add(&p.exec.latency[EXEC_OK], 3000);
	hist_add(&p.exec.latency[EXEC_OK], 70000);
	p.exec.calls[EXEC_OK] = 2;
	assert_int_equal(prom_buckets_parse("4.096us,2^20", &d.buckets, err, sizeof(err)), 0);
	text = render(&p, &d);
#define B "permscope_exec_latency_seconds_bucket{mode=\"tracepoint\",outcome=\"ok\","
	assert_line(text, B "le=\"4.095e-06\"} 1");
	assert_line(text, B "le=\"0.001048575\"} 2");
	assert_line(text, B "le=\"+Inf\"} 2");
	assert_int_equal(strstr(strstr(strstr(text, B) + 1, B) + 1, B) != NULL, 1);
	assert_null(strstr(strstr(strstr(strstr(text, B) + 1, B) + 1, B) + 1, B));
#undef B
	free(text);
	profile_free(&p);
}

/*
 * What --buckets accepts: single bounds, FROM..TO, lists, 2^K, every unit,
 * "all"; anything that is not a power of two of nanoseconds from 2 ns to
 * 2^39 ns is refused naming the nearest bounds.
 */
static void buckets_option_takes_slot_bounds_and_names_the_nearest_otherwise(void **state)
{
	static const struct {
		const char *arg;
		uint64_t slots;
	} good[] = {
		{ PROM_BUCKETS_DEFAULT_TEXT, PROM_BUCKETS_DEFAULT },
		{ "2^7..2^30", PROM_BUCKETS_DEFAULT },
		{ "128ns..1073741824ns", PROM_BUCKETS_DEFAULT },
		{ "all", PROM_BUCKETS_ALL },
		{ "2ns..549.755813888s", PROM_BUCKETS_ALL },
		{ "2ns", 1ULL << 0 },
		{ "1.024us", 1ULL << 9 },
		{ "0.001024ms", 1ULL << 9 },
		{ "1.048576ms,2^10,2^10", 1ULL << 19 | 1ULL << 9 },
		{ "256ns..1.024us,2^30", 0x7ULL << 7 | 1ULL << 29 },
		{ "4.194304ms..4.194304ms", 1ULL << 21 },
	};
	static const struct {
		const char *arg, *err;
	} bad[] = {
		{ "1s", "1s is not a bucket bound; the nearest are 536.870912ms (2^29 ns) and "
			"1.073741824s (2^30 ns): the histograms count in powers of two of nanoseconds" },
		{ "128ns..1s", "1s is not a bucket bound; the nearest are 536.870912ms (2^29 ns)" },
		{ "100ns", "100ns is not a bucket bound; the nearest are 64ns (2^6 ns) and 128ns (2^7 ns)" },
		{ "1us", "the nearest are 512ns (2^9 ns) and 1.024us (2^10 ns)" },
		{ "1ns", "1ns is not a bucket bound; the smallest is 2ns (2^1 ns)" },
		{ "0ns", "0ns is not a bucket bound; the smallest is 2ns" },
		{ "2^40", "2^40 is not a bucket bound; the largest is 549.755813888s (2^39 ns): "
			  "slower calls are in +Inf" },
		{ "1000s", "the largest is 549.755813888s" },
		{ "128", "'128': expected a duration with its unit" },
		{ "128 ns", "'128 ns': expected a duration with its unit" },
		{ "1.5ns", "'1.5ns': not a whole number of nanoseconds" },
		{ "2^x", "'2^x': expected 2^K" },
		{ "1.024us..128ns", "'1.024us..128ns': FROM is above TO" },
		{ "128ns,", "an empty bound" },
		{ "", "an empty bound" },
		{ "128ns..", "'': expected a duration" },
		{ "-128ns", "'-128ns': expected a duration" },
	};
	char err[512];
	uint64_t slots;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err[0] = 0;
		if (prom_buckets_parse(good[i].arg, &slots, err, sizeof(err)))
			fail_msg("--buckets %s refused: %s", good[i].arg, err);
		if (slots != good[i].slots)
			fail_msg("--buckets %s: slots %#llx, expected %#llx", good[i].arg,
				 (unsigned long long)slots, (unsigned long long)good[i].slots);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (!prom_buckets_parse(bad[i].arg, &slots, err, sizeof(err)))
			fail_msg("--buckets '%s' accepted", bad[i].arg);
		if (!strstr(err, bad[i].err))
			fail_msg("--buckets '%s': \"%s\", expected \"%s\"", bad[i].arg, err,
				 bad[i].err);
	}
}

/*
 * The series per host, for a profile where every family recorded on two
 * filesystems with an errno seen: the default bounds leave out 15 of the 39
 * bounds of each outcome's histogram.
 */
static void default_buckets_cut_the_series_per_host(void **state)
{
	struct prom_daemon d = daemon_seen;
	size_t n[2] = { 0 }, outcomes = 0;
	struct profile p;

	(void)state;
	full_profile(&p);
	for (int k = 0; k < 2; k++) {
		char *text;

		d.buckets = k ? PROM_BUCKETS_ALL : 0;
		text = render(&p, &d);
		for (const char *l = text; *l; l = strchr(l, '\n') + 1)
			n[k] += *l != '#';
		free(text);
	}
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < schema[f].nrows; i++)
			outcomes += schema[f].rows[i].kind == ROW_OUTCOME;
	print_message("series per host, every family on 2 filesystems: %zu with every bound, "
		      "%zu with the default bounds (%zu histograms)\n", n[1], n[0], outcomes);
	assert_int_equal(n[1] - n[0], outcomes * (HIST_SLOTS - 1 - 24));
	profile_free(&p);
}

static void errnos_are_exported_only_when_seen(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, NULL);
	assert_not_contains(text, "permscope_exec_errno_total");
	free(text);

	p.exec.errnos[ENOENT] = 1340;
	p.exec.errnos[EACCES] = 4;
	p.exec.errnos[0] = 2;
	text = render(&p, NULL);
	assert_line(text, "permscope_exec_errno_total{errno=\"ENOENT\",mode=\"tracepoint\"} 1340");
	assert_line(text, "permscope_exec_errno_total{errno=\"EACCES\",mode=\"tracepoint\"} 4");
	assert_line(text, "permscope_exec_errno_total{errno=\"other\",mode=\"tracepoint\"} 2");
	assert_not_contains(text, "errno=\"EPERM\"");
	free(text);
	profile_free(&p);
}

/* ---- families that did not record ---------------------------------------- */

static void an_unavailable_family_is_not_attached_and_has_no_series(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	p.fs[0].s.checks = 5;
	p.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	p.fam[FAMILY_LOOKUP].mode = MODE_NONE;
	p.fam[FAMILY_EXEC].status = FAMILY_NOT_REQUESTED;
	text = render(&p, NULL);
	assert_line(text, "permscope_probe_attached{family=\"lookup\",mode=\"none\"} 0");
	assert_line(text, "permscope_probe_attached{family=\"access\",mode=\"kprobe\"} 1");
	assert_not_contains(text, "permscope_lookup_");
	/* not requested: not a failure, so no probe_attached series at all */
	assert_not_contains(text, "family=\"exec\"");
	assert_not_contains(text, "permscope_exec_");
	assert_contains(text, "permscope_access_calls_total{");
	free(text);
	profile_free(&p);
}

/* A per-fs family with no filesystem seen yet: no series, and no HELP or TYPE. */
static void a_metric_with_no_series_leaves_no_help_or_type(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	p.nfs = 0;
	text = render(&p, NULL);
	assert_line(text, "permscope_probe_attached{family=\"lookup\",mode=\"fentry\"} 1");
	assert_not_contains(text, "permscope_lookup_");
	assert_not_contains(text, "permscope_lost_events_total");
	free(text);
	profile_free(&p);
}

/* ---- absent rows --------------------------------------------------------- */

static void rows_absent_from_the_profile_are_not_exported(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	p.absent[FAMILY_ACCESS] = 1U << schema_row_index(FAMILY_ACCESS, "eaccess") |
				  1U << schema_row_index(FAMILY_ACCESS, "unsafe");
	p.absent[FAMILY_LOOKUP] = 1U << schema_row_index(FAMILY_LOOKUP, "ineligible_acl");
	text = render(&p, NULL);
	assert_not_contains(text, "permscope_access_eaccess_total");
	assert_not_contains(text, "outcome=\"unsafe\"");
	assert_contains(text, "permscope_access_calls_total{mode=\"kprobe\",outcome=\"fast\"} 0\n");
	assert_contains(text, "permscope_access_latency_seconds_count{mode=\"kprobe\",outcome=\"fast\"}");
	assert_not_contains(text, "reason=\"acl\"");
	assert_contains(text, "reason=\"acl_not_cached\"");
	assert_contains(text, "permscope_access_drops_total{mode=\"kprobe\"} 0\n");
	free(text);
	profile_free(&p);

	/* The sample predates the origin counters. */
	load_sample(&p);
	text = render(&p, NULL);
	assert_not_contains(text, "permscope_lookup_origin_total");
	assert_not_contains(text, "permscope_lookup_walk_would_skip_total");
	assert_contains(text, "permscope_lookup_ineligible_total{");
	free(text);
	profile_free(&p);
}

/* ---- about the recording and the daemon --------------------------------- */

/*
 * The fourth fast path: one series a state, the one that holds at 1, so
 * that "unknown" is a state a query sees; none for a profile from before
 * the layout was kept.
 */
static void cred_refcount_line_is_one_series_a_state(void **state)
{
	static const char *const want[3][3] = {
		[CRED_LAYOUT_UNKNOWN] = { "1", "0", "0" },
		[CRED_LAYOUT_SEPARATED] = { "0", "1", "0" },
		[CRED_LAYOUT_SHARES] = { "0", "0", "1" },
	};
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, NULL);
	assert_not_contains(text, "permscope_cred_refcount_line");
	free(text);
	p.cred_line_kept = true;
	for (int a = 0; a < 3; a++) {
		p.cred_line = (enum cred_layout_answer)a;
		text = render(&p, NULL);
		assert_line(text, "# TYPE permscope_cred_refcount_line gauge");
		assert_series(text, want[a][0], "permscope_cred_refcount_line", "state", "unknown", NULL);
		assert_series(text, want[a][1], "permscope_cred_refcount_line", "state", "separated",
			      NULL);
		assert_series(text, want[a][2], "permscope_cred_refcount_line", "state", "shares",
			      NULL);
		free(text);
	}
	profile_free(&p);
}

static void build_info_start_time_and_losses(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, NULL);
	/* a profile that does not say which build wrote it: its tool version, the rest unknown */
	assert_series(text, "1", "permscope_build_info", "kernel", "6.18.0-prom", "libbpf",
		      "unknown", "revision", "unknown", "version", permscope_version(), NULL);
	assert_line(text, "# TYPE permscope_build_info gauge");
	assert_line(text, "permscope_start_time_seconds 1796030102.125");
	assert_line(text, "# TYPE permscope_start_time_seconds gauge");
	/* losses not read: no series */
	assert_not_contains(text, "permscope_lost_events_total");
	free(text);

	p.fam[FAMILY_LOOKUP].lost_known = true;
	family_add_lost(&p.fam[FAMILY_LOOKUP], "fentry_security_inode_permission", 50);
	family_add_lost(&p.fam[FAMILY_LOOKUP], "call_site_unread", 0);
	p.fam[FAMILY_EXEC].lost_known = true;
	text = render(&p, NULL);
	assert_line(text, "# TYPE permscope_lost_events_total counter");
	assert_line(text, "permscope_lost_events_total{family=\"lookup\","
			  "program=\"fentry_security_inode_permission\"} 50");
	assert_line(text, "permscope_lost_events_total{family=\"lookup\",program=\"call_site_unread\"} 0");
	assert_not_contains(text, "permscope_lost_events_total{family=\"exec\"");
	assert_not_contains(text, "permscope_lost_events_total{family=\"access\"");
	free(text);
	profile_free(&p);
}

/*
 * permscope_build_info names the build that recorded the profile, the one
 * `permscope --version` prints: version, revision (the commit; "unknown"
 * without git) and the libbpf it ran with.
 */
static void build_info_names_the_build_version_revision_and_libbpf(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	build_info_self(&p.build);
	assert_true(build_info_known(&p.build));
	text = render(&p, NULL);
	assert_series(text, "1", "permscope_build_info", "kernel", "6.18.0-prom", "libbpf",
		      libbpf_version_string(), "revision",
		      permscope_revision()[0] ? permscope_revision() : "unknown", "version",
		      permscope_version(), NULL);
	assert_contains(libbpf_version_string(), "v1.");
	free(text);

	/* another build's profile: its build, not this one's */
	strcpy(p.build.version, "0.2.0-3-g0123456");
	strcpy(p.build.revision, "0123456789abcdef0123456789abcdef01234567");
	strcpy(p.build.libbpf, "v1.4");
	text = render(&p, NULL);
	assert_line(text, "permscope_build_info{kernel=\"6.18.0-prom\",libbpf=\"v1.4\","
			  "revision=\"0123456789abcdef0123456789abcdef01234567\","
			  "version=\"0.2.0-3-g0123456\"} 1");
	free(text);
	profile_free(&p);
}

static void daemon_counters_only_with_a_daemon(void **state)
{
	struct prom_daemon d = { .snapshots_written = 0 };
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, NULL);
	assert_not_contains(text, "snapshot");
	free(text);

	text = render(&p, &d);
	assert_line(text, "permscope_snapshots_written_total 0");
	assert_line(text, "permscope_snapshot_errors_total 0");
	assert_not_contains(text, "permscope_last_snapshot_time_seconds");
	free(text);

	d.snapshots_written = 12;
	d.snapshot_errors = 2;
	d.last_snapshot_ns = START_NS + 500000000ULL;
	text = render(&p, &d);
	assert_line(text, "permscope_snapshots_written_total 12");
	assert_line(text, "permscope_snapshot_errors_total 2");
	assert_line(text, "# TYPE permscope_last_snapshot_time_seconds gauge");
	assert_line(text, "permscope_last_snapshot_time_seconds 1796030102.625");
	free(text);
	profile_free(&p);
}

/* ---- about the daemon's own process -------------------------------------- */

static const struct prom_process self_seen = {
	.cpu_seconds = 1.43, .start_time_seconds = 1796030101.87,
	.resident_bytes = 18464 * 1024, .virtual_bytes = 141312000,
	.open_fds = 17, .max_fds = 524288,
};

static const struct program_runs runs_seen[] = {
	{ "tp_sys_enter_faccessat2", FAMILY_ACCESS, 1018, 97197 },
	{ "tp_kmem_cache_alloc", FAMILY_EXEC, 61253, 2496757 },
};

static const struct prom_daemon daemon_with_self = {
	.snapshots_written = 3,
	.last_snapshot_ns = START_NS + 58375000000ULL,
	.process = &self_seen,
	.programs = runs_seen,
	.nprograms = 2,
};

/*
 * This process, read as the daemon reads itself: the values are this
 * test's own (started before now and within the hour, stdin/out/err and the
 * directory being read open, the soft RLIMIT_NOFILE, some memory).
 */
static void process_figures_are_this_processs_own(void **state)
{
	struct prom_process pp;
	struct rlimit rl;
	double now = (double)now_realtime_ns() / 1e9;

	(void)state;
	assert_int_equal(prom_process_read(&pp), 0);
	print_message("  cpu %.2f s, started %.2f s ago, rss %llu, vsz %llu, fds %llu of %llu\n",
		      pp.cpu_seconds, now - pp.start_time_seconds,
		      (unsigned long long)pp.resident_bytes, (unsigned long long)pp.virtual_bytes,
		      (unsigned long long)pp.open_fds, (unsigned long long)pp.max_fds);
	assert_true(pp.start_time_seconds <= now + 0.02); /* clock ticks: 10 ms */
	assert_true(pp.start_time_seconds > now - 3600);
	assert_true(pp.cpu_seconds >= 0 && pp.cpu_seconds < now - pp.start_time_seconds + 1);
	assert_true(pp.open_fds > 3);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(pp.max_fds, rl.rlim_cur);
	assert_true(pp.resident_bytes > 0 && pp.virtual_bytes >= pp.resident_bytes);
}

/* The process_* set with the client libraries' names, types and HELP. */
static void process_metrics_as_client_libraries_write_them(void **state)
{
	struct prom_daemon d = daemon_with_self;
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	d.programs = NULL;
	text = render(&p, &d);
	assert_line(text, "# HELP process_cpu_seconds_total Total user and system CPU time spent "
			  "in seconds.");
	assert_line(text, "# TYPE process_cpu_seconds_total counter");
	assert_line(text, "process_cpu_seconds_total 1.43");
	assert_line(text, "# HELP process_open_fds Number of open file descriptors.");
	assert_line(text, "# TYPE process_open_fds gauge");
	assert_line(text, "process_open_fds 17");
	assert_line(text, "# HELP process_max_fds Maximum number of open file descriptors.");
	assert_line(text, "process_max_fds 524288");
	assert_line(text, "# HELP process_virtual_memory_bytes Virtual memory size in bytes.");
	assert_line(text, "process_virtual_memory_bytes 141312000");
	assert_line(text, "# HELP process_resident_memory_bytes Resident memory size in bytes.");
	assert_line(text, "process_resident_memory_bytes 18907136");
	assert_line(text, "# HELP process_start_time_seconds Start time of the process since unix "
			  "epoch in seconds.");
	assert_line(text, "# TYPE process_start_time_seconds gauge");
	assert_line(text, "process_start_time_seconds 1796030101.87");
	assert_not_contains(text, "permscope_bpf_program");
	free(text);

	/* record and the gate have no daemon: no process_* either */
	text = render(&p, NULL);
	assert_not_contains(text, "process_");
	free(text);
	profile_free(&p);
}

/* --bpf-stats: a run count and a run time per program, labelled with its family. */
static void program_runs_only_with_bpf_stats(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	text = render(&p, &daemon_seen);
	assert_not_contains(text, "permscope_bpf_program");
	free(text);
	text = render(&p, &daemon_with_self);
	assert_line(text, "# TYPE permscope_bpf_program_run_count_total counter");
	assert_line(text, "permscope_bpf_program_run_count_total{family=\"access\","
			  "program=\"tp_sys_enter_faccessat2\"} 1018");
	assert_line(text, "permscope_bpf_program_run_count_total{family=\"exec\","
			  "program=\"tp_kmem_cache_alloc\"} 61253");
	assert_line(text, "# TYPE permscope_bpf_program_run_seconds_total counter");
	assert_line(text, "permscope_bpf_program_run_seconds_total{family=\"access\","
			  "program=\"tp_sys_enter_faccessat2\"} 9.7197e-05");
	assert_line(text, "permscope_bpf_program_run_seconds_total{family=\"exec\","
			  "program=\"tp_kmem_cache_alloc\"} 0.002496757");
	free(text);
	profile_free(&p);
}

/* ---- the format ---------------------------------------------------------- */

static void label_values_are_escaped(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	empty_profile(&p);
	strcpy(p.fs[1].name, "we\"ird\\fs\nx");
	p.fs[1].s.checks = 7;
	strcpy(p.kernel_release, "6.18\\\"rc\"");
	strcpy(p.tool_version, "0.1.0");
	p.fam[FAMILY_ACCESS].lost_known = true;
	family_add_lost(&p.fam[FAMILY_ACCESS], "a\\b", 3);
	text = render(&p, NULL);
	assert_line(text, "permscope_lookup_checks_total{fs=\"we\\\"ird\\\\fs\\nx\",mode=\"fentry\"} 7");
	assert_line(text, "permscope_build_info{kernel=\"6.18\\\\\\\"rc\\\"\",libbpf=\"unknown\","
			  "revision=\"unknown\",version=\"0.1.0\"} 1");
	assert_line(text, "permscope_lost_events_total{family=\"access\",program=\"a\\\\b\"} 3");
	/* and they read back as they were */
	assert_series(text, "7", "permscope_lookup_checks_total", "fs", "we\"ird\\fs\nx", "mode",
		      "fentry", NULL);
	free(text);
	profile_free(&p);
}

/*
 * Each metric family: one HELP, then its TYPE, then all its series, none
 * repeated, labels in alphabetical order (le last), and a newline at the
 * end.  Histogram series are NAME_bucket, NAME_sum and NAME_count.
 */
static void assert_well_formed(const char *text)
{
	char **seen = calloc(1024, sizeof(char *));
	char family[128] = "", type[32] = "", help[128] = "";
	size_t nseen = 0, idlen;
	struct sample s;

	assert_true(*text);
	assert_true(text[strlen(text) - 1] == '\n');
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		size_t len = strcspn(l, "\n");
		char name[128];

		if (!strncmp(l, "# HELP ", 7)) {
			assert_int_equal(sscanf(l, "# HELP %127s", help), 1);
			assert_true(len > 7 + strlen(help) + 1); /* a text, not just the name */
			for (size_t i = 0; i < nseen; i++)
				if (!strcmp(seen[i], help))
					fail_msg("%s: a second HELP, its series apart", help);
			assert_true(nseen < 1024);
			seen[nseen++] = strdup(help);
			family[0] = 0;
		} else if (!strncmp(l, "# TYPE ", 7)) {
			assert_int_equal(sscanf(l, "# TYPE %127s %31s", name, type), 2);
			if (strcmp(name, help))
				fail_msg("TYPE %s not right after its HELP", name);
			assert_true(!strcmp(type, "counter") || !strcmp(type, "gauge") ||
				    !strcmp(type, "histogram"));
			strcpy(family, name);
		} else {
			size_t fl = strlen(family);

			if (!parse_sample(l, &s))
				fail_msg("not a sample line: %.*s", (int)len, l);
			if (!fl || strncmp(s.name, family, fl))
				fail_msg("%s outside its family (in %s)", s.name, family);
			if (!strcmp(type, "histogram")) {
				if (strcmp(s.name + fl, "_bucket") && strcmp(s.name + fl, "_sum") &&
				    strcmp(s.name + fl, "_count"))
					fail_msg("%s in histogram %s", s.name, family);
				assert_true(!strcmp(s.name + fl, "_bucket") == !!sample_label(&s, "le"));
			} else if (s.name[fl]) {
				fail_msg("%s in %s %s", s.name, type, family);
			}
			if (!strcmp(type, "counter") && strcmp(family + fl - 6, "_total"))
				fail_msg("counter %s does not end in _total", family);
			for (int i = 1; i < s.nlabels; i++)
				if (strcmp(s.label[i - 1], s.label[i]) >= 0 && strcmp(s.label[i], "le"))
					fail_msg("labels out of order: %.*s", (int)len, l);
			/* the series, NAME{LABELS}, is what a line has before its value */
			idlen = len - strlen(s.number) - 1;
			for (const char *o = text; o < l; o = strchr(o, '\n') + 1)
				if (!strncmp(o, l, idlen) && o[idlen] == ' ')
					fail_msg("a series twice: %.*s", (int)len, l);
		}
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
}

static void the_exposition_is_well_formed(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	full_profile(&p);
	text = render(&p, &daemon_seen);
	assert_well_formed(text);
	free(text);
	profile_free(&p);
	load_sample(&p);
	text = render(&p, NULL);
	assert_well_formed(text);
	free(text);
	profile_free(&p);
}

/* ---- every schema row reaches /metrics ----------------------------------- */

/*
 * For a profile where every family recorded: every COUNT row (alone or in
 * its group), every OUTCOME row (calls, histogram), and the ERRNOS row
 * each give a series of the value the profile holds, for each filesystem
 * of a per-fs family.  A row added to the schema is exported, or this fails.
 */
static void every_row_of_every_family_is_exported(void **state)
{
	struct profile p;
	char *text, name[128], inf[128];

	(void)state;
	full_profile(&p);
	text = render(&p, NULL);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];
		const char *mode = mode_name(p.fam[f].mode);

		for (size_t i = 0; i < profile_nstats(&p, f); i++) {
			const void *stats = profile_stats(&p, f, i);
			/* a NULL fsl ends the label list early where there is no fs */
			const char *fsl = fs->per_fs ? "fs" : NULL;
			const char *fsv = fs->per_fs ? p.fs[i].name : NULL;

			for (int j = 0; j < fs->nrows; j++) {
				const struct schema_row *r = &fs->rows[j];
				const char *v = u64_text(*schema_counter(r, stats));

				switch (r->kind) {
				case ROW_COUNT:
					if (!r->group) {
						snprintf(name, sizeof(name), "permscope_%s_%s_total",
							 fs->name, r->name);
						assert_series(text, v, name, "mode", mode, fsl, fsv, NULL);
						break;
					}
					snprintf(name, sizeof(name), "permscope_%s_%s_total", fs->name,
						 r->group);
					assert_non_null(r->label);
					assert_series(text, v, name, "mode", mode, r->label, r->name, fsl,
						      fsv, NULL);
					break;
				case ROW_OUTCOME:
					snprintf(name, sizeof(name), "permscope_%s_%s_total", fs->name,
						 fs->rows[fs->events].name);
					assert_series(text, v, name, "mode", mode, "outcome", r->name, fsl,
						      fsv, NULL);
					snprintf(name, sizeof(name), "permscope_%s_latency_seconds_count",
						 fs->name);
					assert_series(text, v, name, "mode", mode, "outcome", r->name, fsl,
						      fsv, NULL);
					snprintf(inf, sizeof(inf), "permscope_%s_latency_seconds_bucket",
						 fs->name);
					assert_series(text, v, inf, "mode", mode, "outcome", r->name,
						      "le", "+Inf", fsl, fsv, NULL);
					break;
				case ROW_ERRNOS:
					snprintf(name, sizeof(name), "permscope_%s_%s_total", fs->name,
						 r->name);
					assert_series(text, u64_text(schema_counter(r, stats)[ENOENT]),
						      name, "mode", mode, r->name, "ENOENT", fsl, fsv,
						      NULL);
					break;
				case ROW_SUM:
				case ROW_RATIO:
					snprintf(name, sizeof(name), "permscope_%s_%s", fs->name, r->name);
					if ((int)i != fs->events) /* calls is the outcomes' counter */
						assert_not_contains(text, name);
					break;
				}
			}
		}
	}
	free(text);
	profile_free(&p);
}

/* What a series' labels are named must not clash with what the renderer adds. */
static void group_labels_are_valid_and_distinct(void **state)
{
	static const char *const taken[] = { "mode", "fs", "outcome", "le", NULL };

	(void)state;
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < schema[f].nrows; i++) {
			const struct schema_row *r = &schema[f].rows[i];
			const char *label = r->kind == ROW_ERRNOS ? r->name : r->label;

			if (r->kind != ROW_ERRNOS && !r->group)
				continue;
			if (!label || !*label || strspn(label, "abcdefghijklmnopqrstuvwxyz_") !=
			    strlen(label) || !strncmp(label, "__", 2))
				fail_msg("%s.%s: label \"%s\" is no Prometheus label name",
					 schema[f].name, r->name, label ? label : "(null)");
			for (const char *const *t = taken; *t; t++)
				if (!strcmp(label, *t))
					fail_msg("%s.%s: label \"%s\" is taken", schema[f].name,
						 r->name, label);
			for (int j = 0; j < i; j++)
				if (schema[f].rows[j].group && r->group &&
				    !strcmp(schema[f].rows[j].group, r->group) &&
				    strcmp(schema[f].rows[j].label, label))
					fail_msg("%s: group %s has labels %s and %s", schema[f].name,
						 r->group, schema[f].rows[j].label, label);
		}
}

/* ---- promtool (promserver.h finds it) ----------------------------------- */

static void check_with_promtool(const char *tool, const char *text, const char *file)
{
	char *argv[] = { (char *)tool, "check", "metrics", NULL };
	const char *path = write_tmp_file(file, text);
	int status = run_capture_in(path, argv);

	if (status != 0 || *out_text || *err_text) {
		print_error("promtool check metrics < %s: exit %d\n%s%s", file, status, out_text,
			    err_text);
		fail();
	}
}

/* promtool parses it and its linter has nothing to say. */
static void promtool_accepts_the_exposition(void **state)
{
	const char *tool = promtool_bin();
	struct profile p;
	char *text;

	(void)state;
	if (!tool) {
		print_message("promtool not found (Debian package prometheus; or set PROMTOOL): "
			      "skipped\n");
		skip();
	}
	full_profile(&p);
	strcpy(p.fs[1].name, "we\"ird\\fs");
	text = render(&p, &daemon_seen);
	check_with_promtool(tool, text, "full.prom");
	free(text);
	profile_free(&p);
	load_sample(&p);
	text = render(&p, &daemon_seen);
	check_with_promtool(tool, text, "sample.prom");
	free(text);
	text = render(&p, &daemon_with_self);
	check_with_promtool(tool, text, "self.prom");
	free(text);
	profile_free(&p);
}

/*
 * A duty-cycled family says what its counts cover: the seconds it watched
 * (not the profile's span), its share of time, its windows counted and
 * failed; an always-on one its span and a share of 1, and no windows.
 */
static void a_windowed_family_says_how_long_it_watched(void **state)
{
	struct profile p;
	char *text;

	(void)state;
	full_profile(&p);
	p.fam[FAMILY_ACCESS].observed = (struct observation){ 200000000, 15000000000ULL,
							      2250000000ULL, 12, 3 };
	text = render(&p, NULL);
	assert_line(text, "permscope_observed_seconds_total{family=\"access\"} 2.25");
	assert_line(text, "permscope_duty_cycle{family=\"access\"} 0.013333333333333334");
	assert_line(text, "permscope_observe_windows_total{family=\"access\",outcome=\"counted\"} 12");
	assert_line(text, "permscope_observe_windows_total{family=\"access\",outcome=\"failed\"} 3");
	assert_line(text, "permscope_duty_cycle_window_seconds{family=\"access\"} 0.2");
	assert_line(text, "permscope_duty_cycle_period_seconds{family=\"access\"} 15");
	assert_line(text, "permscope_duty_cycle{family=\"exec\"} 1");
	assert_not_contains(text, "permscope_duty_cycle_period_seconds{family=\"exec\"");
	/* the profile's span: end - start */
	p.start_ns = 1000000000000ULL;
	p.end_ns = p.start_ns + 42500000000ULL;
	free(text);
	text = render(&p, NULL);
	assert_line(text, "permscope_observed_seconds_total{family=\"exec\"} 42.5");
	assert_not_contains(text, "permscope_observe_windows_total{family=\"exec\"");
	free(text);
	profile_free(&p);
}

/* ---- docs/metrics.md ----------------------------------------------------- */

/*
 * The entry of metric NAME in docs/metrics.md's lists, a copy: the item
 * "- `NAME` (TYPE; labels `A`, `B`): MEANING" with its continuation lines
 * (indented), or NULL.  *head_len is the length of "- `NAME` (...)".
 */
static char *metric_entry(const char *doc, const char *name, size_t *head_len)
{
	char start[160], *entry, *close;
	const char *at, *end;

	snprintf(start, sizeof(start), "\n- `%s` (", name);
	at = strstr(doc, start);
	if (!at)
		return NULL;
	at++;
	for (end = strchr(at, '\n'); end && end[1] == ' '; end = strchr(end + 1, '\n'))
		;
	entry = end ? strndup(at, end - at) : strdup(at);
	assert_non_null(entry);
	close = strstr(entry, "):");
	if (!close)
		fail_msg("docs/metrics.md: the entry of %s is not \"- `%s` (TYPE; labels ...): "
			 "MEANING\"", name, name);
	*head_len = close + 1 - entry;
	return entry;
}

/*
 * Every metric the renderer writes for a profile where everything recorded
 * has an entry in docs/metrics.md's lists, "- `NAME` (TYPE; labels `LABEL`,
 * ...): MEANING", whose brackets give its type and each label its series
 * carry, and no entry documents a metric that is not made.
 */
static void every_metric_is_documented(void **state)
{
	struct profile p;
	char *path, *doc, *text, **names, **types;

	(void)state;
	assert_true(asprintf(&path, "%s/../../../docs/metrics.md", testdata_dir()) > 0);
	doc = slurp(path, NULL);
	if (!doc)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	full_profile(&p);
	p.exec.errnos[EACCES] = 1;
	/* a duty-cycled family: its windows are exported too */
	p.fam[FAMILY_ACCESS].observed = (struct observation){ 200000000, 15000000000ULL,
							      2000000000, 10, 1 };
	text = render(&p, &daemon_with_self);
	names = metric_names(text, &types);
	assert_non_null(names[0]);
	for (size_t i = 0; names[i]; i++) {
		char *at, type[32];
		size_t head;
		struct sample s;

		at = metric_entry(doc, names[i], &head);
		if (!at)
			fail_msg("docs/metrics.md has no entry \"- `%s` (%s; labels ...): ...\"",
				 names[i], types[i]);
		at[head] = 0; /* the brackets: type and labels */
		snprintf(type, sizeof(type), "(%s", types[i]);
		if (strncmp(strchr(at, '('), type, strlen(type)) ||
		    !strchr(";)", strchr(at, '(')[strlen(type)]))
			fail_msg("docs/metrics.md: %s is a %s, its entry does not say so", names[i],
				 types[i]);
		/* the labels of its first series */
		for (const char *l = strstr(text, "\n# TYPE "); l; l = strstr(l + 1, "\n# TYPE ")) {
			char label[48];

			if (strncmp(l + 8, names[i], strlen(names[i])) || l[8 + strlen(names[i])] != ' ')
				continue;
			assert_true(parse_sample(strchr(l + 1, '\n') + 1, &s));
			for (int k = 0; k < s.nlabels; k++) {
				snprintf(label, sizeof(label), "`%s`", s.label[k]);
				if (!strstr(at, label))
					fail_msg("docs/metrics.md: the entry of %s does not name its "
						 "label %s in its brackets", names[i], label);
			}
			break;
		}
		free(at);
	}
	/*
	 * The values of a group's label and of outcome, in the entry of their
	 * metric (`acl` or reason="acl"); each derived row in "Derived values".
	 */
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < schema[f].nrows; i++) {
			const struct schema_row *r = &schema[f].rows[i];
			char name[160], tick[64], quoted[64], *at;
			size_t head;

			if (r->kind == ROW_SUM || r->kind == ROW_RATIO) {
				snprintf(tick, sizeof(tick), "`%s`", r->name);
				at = strstr(doc, "\n### Derived values\n");
				if (!at || !strstr(at, tick))
					fail_msg("docs/metrics.md, Derived values: no %s (%s.%s)", tick,
						 schema[f].name, r->name);
				continue;
			}
			if (r->kind == ROW_COUNT && r->group)
				snprintf(name, sizeof(name), "permscope_%s_%s_total", schema[f].name,
					 r->group);
			else if (r->kind == ROW_OUTCOME)
				snprintf(name, sizeof(name), "permscope_%s_%s_total", schema[f].name,
					 schema[f].rows[schema[f].events].name);
			else
				continue;
			at = metric_entry(doc, name, &head);
			assert_non_null(at);
			snprintf(tick, sizeof(tick), "`%s`", r->name);
			snprintf(quoted, sizeof(quoted), "=\"%s\"", r->name);
			if (!strstr(at + head, tick) && !strstr(at + head, quoted))
				fail_msg("docs/metrics.md: the entry of %s does not say what %s means",
					 name, tick);
			free(at);
		}
	/* and nothing documented that is not made */
	for (const char *const *prefix = (const char *const[]){ "\n- `permscope_",
								"\n- `process_", NULL };
	     *prefix; prefix++)
		for (const char *at = strstr(doc, *prefix); at; at = strstr(at + 1, *prefix)) {
			char name[128];
			bool made = false;

			assert_int_equal(sscanf(at, "\n- `%127[a-z_]`", name), 1);
			for (size_t i = 0; names[i] && !made; i++)
				made = !strcmp(names[i], name);
			if (!made)
				fail_msg("docs/metrics.md documents %s, which is not exported", name);
		}
	free_names(names);
	free_names(types);
	free(text);
	free(doc);
	free(path);
	profile_free(&p);
}

/*
 * Every PromQL expression of docs/metrics.md parses: each ```promql block
 * (in "Derived values", one a value, FAMILY read as access) becomes a
 * recording rule; promtool check rules must accept them, every
 * rule counted.  The alerts live in contrib/prometheus/permscope.rules.yml,
 * which test_contrib checks (and checks the page's table of them against).
 */
static void the_promql_in_the_docs_parses(void **state)
{
	const char *tool = promtool_bin();
	char *path, *doc, *line, *save = NULL, *rules = NULL;
	size_t rules_len = 0, nrules = 0, nderived = 0;
	FILE *r;
	enum { TEXT, PROMQL, OTHER } in = TEXT;
	bool derived = false;
	char want[64];

	(void)state;
	if (!tool) {
		print_message("promtool not found (Debian package prometheus; or set PROMTOOL): "
			      "skipped\n");
		skip();
	}
	assert_true(asprintf(&path, "%s/../../../docs/metrics.md", testdata_dir()) > 0);
	doc = slurp(path, NULL);
	if (!doc)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	r = open_memstream(&rules, &rules_len);
	assert_non_null(r);
	fputs("groups:\n  - name: docs\n    rules:\n", r);
	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (in != TEXT) {
			if (!strcmp(line, "```"))
				in = TEXT;
			else if (in == PROMQL) {
				fputs("          ", r);
				for (const char *c = line; *c; c++)
					if (derived && !strncmp(c, "FAMILY", 6)) {
						fputs("access", r);
						c += 5;
					} else {
						fputc(*c, r);
					}
				fputc('\n', r);
			}
			continue;
		}
		if (!strcmp(line, "```promql")) {
			in = PROMQL;
			fprintf(r, "      - record: docs_%s_%zu\n        expr: |\n",
				derived ? "derived" : "example", ++nrules);
			nderived += derived;
			continue;
		}
		if (!strncmp(line, "```", 3)) { /* a prometheus.yml example */
			in = OTHER;
			continue;
		}
		if (line[0] == '#')
			derived = !strcmp(line, "### Derived values");
	}
	assert_int_equal(fclose(r), 0);
	assert_true(nrules > 0);
	if (!nderived)
		fail_msg("docs/metrics.md, Derived values: no ```promql block");
	{
		char *argv[] = { (char *)tool, "check", "rules", (char *)tmp_path("docs.rules.yml"),
				 NULL };

		write_file(argv[3], rules, rules_len);
		snprintf(want, sizeof(want), "SUCCESS: %zu rules found", nrules);
		if (run_capture(argv) != 0 || !strstr(out_text, want)) {
			print_error("promtool check rules %s (expected \"%s\"):\n%s%s\n%s", argv[3],
				    want, out_text, err_text, rules);
			fail();
		}
	}
	free(rules);
	free(doc);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_profile_matches_golden),
		cmocka_unit_test(counters_carry_their_values_per_filesystem_and_mode),
		cmocka_unit_test(latency_buckets_are_cumulative_in_seconds_and_count_the_calls),
		cmocka_unit_test(every_bucket_bound_is_the_last_nanosecond_of_its_slot),
		cmocka_unit_test(errnos_are_exported_only_when_seen),
		cmocka_unit_test(an_unavailable_family_is_not_attached_and_has_no_series),
		cmocka_unit_test(a_metric_with_no_series_leaves_no_help_or_type),
		cmocka_unit_test(rows_absent_from_the_profile_are_not_exported),
		cmocka_unit_test(default_buckets_are_128ns_to_about_1s_and_stay_exact),
		cmocka_unit_test(chosen_buckets_are_exported_alone_with_exact_counts),
		cmocka_unit_test(buckets_option_takes_slot_bounds_and_names_the_nearest_otherwise),
		cmocka_unit_test(default_buckets_cut_the_series_per_host),
		cmocka_unit_test(build_info_start_time_and_losses),
		cmocka_unit_test(cred_refcount_line_is_one_series_a_state),
		cmocka_unit_test(build_info_names_the_build_version_revision_and_libbpf),
		cmocka_unit_test(daemon_counters_only_with_a_daemon),
		cmocka_unit_test(label_values_are_escaped),
		cmocka_unit_test(the_exposition_is_well_formed),
		cmocka_unit_test(every_row_of_every_family_is_exported),
		cmocka_unit_test(group_labels_are_valid_and_distinct),
		cmocka_unit_test(promtool_accepts_the_exposition),
		cmocka_unit_test(process_figures_are_this_processs_own),
		cmocka_unit_test(process_metrics_as_client_libraries_write_them),
		cmocka_unit_test(program_runs_only_with_bpf_stats),
		cmocka_unit_test(a_windowed_family_says_how_long_it_watched),
		cmocka_unit_test(every_metric_is_documented),
		cmocka_unit_test(the_promql_in_the_docs_parses),
	};

	return cmocka_run_group_tests_name("prom", tests, tmpdir_setup, tmpdir_teardown);
}
