// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A side read from a real Prometheus (src/prom/promsource.c), hermetic: the
 * profiles of tests/unit/data written by `permscope report --format
 * openmetrics` as hosts of four sides (job="base", "access", "lookup",
 * "new"), backfilled with promtool into one TSDB, a Prometheus started on
 * it.  Each host must come back as its profile, counter by counter and
 * bucket by bucket; a host that lost events, one whose counter went down
 * (a restart), a side on two builds and one whose hosts run different
 * families must be named with their reasons; a side merges as one
 * profile of one run a host; a query Prometheus rejects, or a stopped
 * Prometheus, must end the read with its code.
 *
 * Times: the profiles were recorded at different times and for different
 * lengths; the copies all get the same start and end (S, E below), so one
 * window [T - W, T] at T = E holds every host's two points.  W = 2m reaches
 * past S: each host's daemon "started" inside the window
 * (permscope_start_time_seconds = S), so its counts are its values at T;
 * W = 1m ends at S, where its points are 0 (the same run at both ends: the
 * difference of the two).  Both must give each count back exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "promserver.h"
#include "prom/promclient.h"
#include "prom/promjudge.h"
#include "prom/promsource.h"
#include "prom/promnames.h"
#include "metrics.h"
#include "hist.h"

#define S_NS 1796032800000000000ULL /* 2026-11-30T10:00:00Z */
#define E_NS 1796032860000000000ULL /* a minute later */
#define T_S 1796032860.0
#define W "2m"
#define REV_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define REV_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* A host: which data profile, its instance and side, and what is done to it. */
static const struct host_spec {
	const char *data, *instance, *job, *revision;
	bool lost;
	bool windowed; /* a daemon --duty-cycle 0.2/15: every family counted in windows */
	unsigned int unsafe; /* access calls that skipped a needed override (a broken kernel) */
	bool lean; /* a daemon --lean: no latency histograms exported */
} hosts[] = {
	{ "sample-profile.json", "base-1", "base", REV_A, false, false, 0, false },
	{ "sample-profile.json", "base-2", "base", REV_A, false, false, 0, false },
	{ "compare-access-base.json", "access-1", "access", REV_A, false, false, 0, false },
	{ "compare-access-new.json", "access-2", "access", REV_A, false, false, 0, false },
	{ "compare-lookup-base.json", "lookup-1", "lookup", REV_A, false, false, 0, false },
	{ "compare-lookup-new.json", "lookup-2", "lookup", REV_B, false, false, 0, false },
	{ "sample-profile.json", "new-1", "new", REV_A, false, false, 0, false },
	{ "sample-profile.json", "new-lossy", "new", REV_A, true, false, 0, false },
	{ "sample-profile.json", "win-1", "windowed", REV_A, false, true, 0, false },
	{ "sample-profile.json", "win-2", "windowed", REV_A, false, true, 0, false },
	{ "sample-profile.json", "mixed-1", "mixed", REV_A, false, true, 0, false },
	{ "sample-profile.json", "mixed-2", "mixed", REV_A, false, false, 0, false },
	/* canaries of the faccessat-unsafe kind: a windowed daemon sees a sample of theirs */
	{ "sample-profile.json", "unsafe-win-1", "unsafe-win", REV_A, false, true, 3, false },
	{ "sample-profile.json", "unsafe-win-2", "unsafe-win", REV_A, false, true, 2, false },
	{ "sample-profile.json", "unsafe-on-1", "unsafe-on", REV_A, false, false, 200, false },
	{ "sample-profile.json", "unsafe-on-2", "unsafe-on", REV_A, false, false, 180, false },
	{ "sample-profile.json", "lean-1", "lean", REV_A, false, false, 0, true },
	{ "sample-profile.json", "lean-2", "lean", REV_A, false, false, 0, true },
};
/* what a windowed host watched in the minute: 4 windows of 0.2 s, 1 failed */
static const struct observation windowed = { 200000000, 15000000000ULL, 800000000, 4, 1 };
#define NHOSTS (sizeof(hosts) / sizeof(hosts[0]))

static struct profile originals[NHOSTS];
static struct promserver ps;
static char skip_why[256];

/*
 * Written by hand: the daemon restarts at :35 inside the window, and the
 * counter goes 0, 100, then 50.
 */
static const char reset_host[] =
	"# TYPE permscope_build_info gauge\n"
	"permscope_build_info{instance=\"new-reset\",job=\"new\",kernel=\"6.18.0\",libbpf=\"v1.1\","
	"revision=\"" REV_A "\",version=\"0.1.0\"} 1 1796032800.000\n"
	"permscope_build_info{instance=\"new-reset\",job=\"new\",kernel=\"6.18.0\",libbpf=\"v1.1\","
	"revision=\"" REV_A "\",version=\"0.1.0\"} 1 1796032860.000\n"
	"# TYPE permscope_start_time_seconds gauge\n"
	"permscope_start_time_seconds{instance=\"new-reset\",job=\"new\"} 1796032800 "
	"1796032800.000\n"
	"permscope_start_time_seconds{instance=\"new-reset\",job=\"new\"} 1796032800 "
	"1796032830.000\n"
	"permscope_start_time_seconds{instance=\"new-reset\",job=\"new\"} 1796032835 "
	"1796032860.000\n"
	"# TYPE permscope_probe_attached gauge\n"
	"permscope_probe_attached{family=\"access\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032800.000\n"
	"permscope_probe_attached{family=\"access\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032860.000\n"
	"permscope_probe_attached{family=\"exec\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032800.000\n"
	"permscope_probe_attached{family=\"exec\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032860.000\n"
	"permscope_probe_attached{family=\"lookup\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032800.000\n"
	"permscope_probe_attached{family=\"lookup\",instance=\"new-reset\",job=\"new\","
	"mode=\"fentry\"} 1 1796032860.000\n"
	"# TYPE permscope_access_calls counter\n"
	"permscope_access_calls_total{instance=\"new-reset\",job=\"new\",mode=\"fentry\","
	"outcome=\"fast\"} 0 1796032800.000\n"
	"permscope_access_calls_total{instance=\"new-reset\",job=\"new\",mode=\"fentry\","
	"outcome=\"fast\"} 100 1796032830.000\n"
	"permscope_access_calls_total{instance=\"new-reset\",job=\"new\",mode=\"fentry\","
	"outcome=\"fast\"} 50 1796032860.000\n"
	"# EOF\n";

/*
 * Written by hand: a daemon running since an hour before S that
 * Prometheus scraped then and at E only, so nothing near E - W.
 */
static const char gap_host[] =
	"# TYPE permscope_build_info gauge\n"
	"permscope_build_info{instance=\"gap-1\",job=\"gap\",kernel=\"6.18.0\",libbpf=\"v1.1\","
	"revision=\"" REV_A "\",version=\"0.1.0\"} 1 1796029200.000\n"
	"permscope_build_info{instance=\"gap-1\",job=\"gap\",kernel=\"6.18.0\",libbpf=\"v1.1\","
	"revision=\"" REV_A "\",version=\"0.1.0\"} 1 1796032860.000\n"
	"# TYPE permscope_start_time_seconds gauge\n"
	"permscope_start_time_seconds{instance=\"gap-1\",job=\"gap\"} 1796029200 "
	"1796029200.000\n"
	"permscope_start_time_seconds{instance=\"gap-1\",job=\"gap\"} 1796029200 "
	"1796032860.000\n"
	"# TYPE permscope_access_calls counter\n"
	"permscope_access_calls_total{instance=\"gap-1\",job=\"gap\",mode=\"fentry\","
	"outcome=\"fast\"} 0 1796029200.000\n"
	"permscope_access_calls_total{instance=\"gap-1\",job=\"gap\",mode=\"fentry\","
	"outcome=\"fast\"} 500 1796032860.000\n"
	"# EOF\n";

static int fleet_setup(void **state)
{
	char tsdb[PATH_MAX], why[PATH_MAX + 128], err[512], data[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	if (promserver_missing()) {
		snprintf(skip_why, sizeof(skip_why), "%s", promserver_missing());
		return 0;
	}
	snprintf(tsdb, sizeof(tsdb), "%s", tmp_path("tsdb"));
	for (size_t i = 0; i < NHOSTS; i++) {
		struct profile *p = &originals[i];
		char copy[PATH_MAX], om[PATH_MAX];
		char *argv[] = { (char *)permscope_bin(), "report", copy, "--format", "openmetrics",
				 "--instance", (char *)hosts[i].instance, "--job",
				 (char *)hosts[i].job, "-o", om, NULL };

		snprintf(data, sizeof(data), "%s/%s", testdata_dir(), hosts[i].data);
		if (profile_read(data, p, err, sizeof(err)))
			fail_msg("%s: %s", data, err);
		p->start_ns = S_NS;
		p->end_ns = E_NS;
		snprintf(p->build.version, sizeof(p->build.version), "0.1.0");
		snprintf(p->build.revision, sizeof(p->build.revision), "%s", hosts[i].revision);
		snprintf(p->build.libbpf, sizeof(p->build.libbpf), "v1.1");
		if (hosts[i].lost) {
			p->fam[FAMILY_ACCESS].lost_known = true;
			family_add_lost(&p->fam[FAMILY_ACCESS], "access_tp", 7);
		}
		if (hosts[i].unsafe) { /* each with its latency, as the probes record it */
			p->access.calls[ACCESS_UNSAFE] += hosts[i].unsafe;
			p->access.latency[ACCESS_UNSAFE].slots[10] += hosts[i].unsafe;
			p->access.latency[ACCESS_UNSAFE].count += hosts[i].unsafe;
			p->access.latency[ACCESS_UNSAFE].sum += 1500ULL * hosts[i].unsafe;
		}
		for (int f = 0; hosts[i].windowed && f < FAMILY_COUNT; f++)
			p->fam[f].observed = windowed;
		for (int f = 0; hosts[i].lean && f < FAMILY_COUNT; f++)
			if (schema_has_latency(&schema[f]))
				p->fam[f].lean = p->fam[f].no_latency = true;
		snprintf(copy, sizeof(copy), "%s/%s.json", tmpdir, hosts[i].instance);
		snprintf(om, sizeof(om), "%s/%s.om", tmpdir, hosts[i].instance);
		assert_int_equal(profile_write(p, copy), 0);
		if (run_capture(argv) != 0)
			fail_msg("report %s: %s", copy, err_text);
		/* one backfill a host into the one TSDB: Prometheus reads overlapping blocks */
		promtool_backfill(om, tsdb);
	}
	promtool_backfill(write_tmp_file("new-reset.om", reset_host), tsdb);
	promtool_backfill(write_tmp_file("gap.om", gap_host), tsdb);
	if (promserver_start_tsdb(&ps, NULL, tsdb, why, sizeof(why)))
		fail_msg("%s", why);
	return 0;
}

static int fleet_teardown(void **state)
{
	if (ps.pid)
		promserver_stop(&ps);
	for (size_t i = 0; i < NHOSTS; i++)
		profile_free(&originals[i]);
	return tmpdir_teardown(state);
}

static struct promclient *client(void)
{
	struct promclient_opts o = { .url = ps.url, .timeout_s = 10,
				     .verbose = getenv("V") != NULL };
	char err[512];
	struct promclient *c = promclient_new(&o, err, sizeof(err));

	if (!c)
		fail_msg("promclient_new: %s", err);
	return c;
}

static void skip_without_server(void)
{
	skip_if(skip_why);
}

static const char *window = W;

static int read_side(const char *selector, int min_hosts, struct promsource_side *side,
		     char *err, size_t errlen)
{
	struct promclient *c = client();
	struct promsource_query q = { .selector = selector, .window = window, .at = T_S,
				      .min_hosts = min_hosts };
	int ret = promsource_read(c, &q, side, err, errlen);

	promclient_free(c);
	return ret;
}

static const struct promsource_host *find_host(const struct promsource_side *s,
					       const char *instance)
{
	for (size_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].instance, instance))
			return &s->hosts[i];
	fail_msg("no host %s in the side", instance);
	return NULL;
}

static __u64 cumulative(const struct hist *h, unsigned int upto)
{
	__u64 n = 0;

	for (unsigned int s = 0; s <= upto; s++)
		n += h->slots[s];
	return n;
}

/*
 * `got` holds what `want` counted: every COUNT, OUTCOME and ERRNOS row of
 * every family that recorded, per filesystem, and each latency histogram
 * at the bounds the exposition carries (its count and sum too).
 */
static void same_counts(const struct profile *want, const struct profile *got, const char *who)
{
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_schema *fs = &schema[f];

		if (got->fam[f].status != want->fam[f].status ||
		    (want->fam[f].status == FAMILY_OK && got->fam[f].mode != want->fam[f].mode))
			fail_msg("%s: %s: %s, want %s", who, fs->name, family_state_name(&got->fam[f]),
				 family_state_name(&want->fam[f]));
		if (want->fam[f].status != FAMILY_OK)
			continue;
		assert_int_equal(profile_nstats(got, f), profile_nstats(want, f));
		for (size_t k = 0; k < profile_nstats(want, f); k++) {
			const void *w = profile_stats(want, f, k), *g;

			if (fs->per_fs) {
				const struct fs_result *r = profile_find_fs(got, want->fs[k].name);

				if (!r)
					fail_msg("%s: no filesystem %s", who, want->fs[k].name);
				g = &r->s;
			} else {
				g = profile_stats(got, f, k);
			}
			for (int row = 0; row < fs->nrows; row++) {
				const struct schema_row *r = &fs->rows[row];

				if (schema_row_absent(fs, row, want->absent[f]))
					continue;
				if (r->kind == ROW_ERRNOS) {
					for (int e = 0; e < EXEC_ERRNO_MAX; e++)
						if (schema_counter(r, g)[e] != schema_counter(r, w)[e])
							fail_msg("%s: %s.%s[%d]: %llu, want %llu", who,
								 fs->name, r->name, e,
								 (unsigned long long)schema_counter(r, g)[e],
								 (unsigned long long)schema_counter(r, w)[e]);
					continue;
				}
				if (r->kind != ROW_COUNT && r->kind != ROW_OUTCOME)
					continue;
				if (*schema_counter(r, g) != *schema_counter(r, w))
					fail_msg("%s: %s.%s: %llu, want %llu", who, fs->name, r->name,
						 (unsigned long long)*schema_counter(r, g),
						 (unsigned long long)*schema_counter(r, w));
				/* its latency comes back unknown, never an empty histogram */
				assert_int_equal(got->fam[f].no_latency, want->fam[f].no_latency);
				if (r->kind != ROW_OUTCOME || want->fam[f].no_latency)
					continue;
				for (unsigned int s = 0; s < HIST_SLOTS - 1; s++)
					if ((PROM_BUCKETS_DEFAULT & 1ULL << s) &&
					    cumulative(schema_hist(r, g), s) !=
						    cumulative(schema_hist(r, w), s))
						fail_msg("%s: %s.%s latency up to slot %u: %llu, want "
							 "%llu", who, fs->name, r->name, s,
							 (unsigned long long)cumulative(schema_hist(r, g), s),
							 (unsigned long long)cumulative(schema_hist(r, w), s));
				assert_int_equal(schema_hist(r, g)->count, *schema_counter(r, w));
				assert_int_equal(schema_hist(r, g)->sum, schema_hist(r, w)->sum);
			}
		}
	}
}

static bool has_line(const struct promsource_reasons *r, const char *needle)
{
	for (size_t i = 0; i < r->n; i++)
		if (strstr(r->line[i], needle))
			return true;
	return false;
}

/* Every host of side `job` comes back as its profile; its reasons: none. */
static void side_comes_back(const char *job, size_t nhosts, struct promsource_side *side)
{
	char selector[64], err[512];

	snprintf(selector, sizeof(selector), "{job=\"%s\"}", job);
	assert_int_equal(read_side(selector, 0, side, err, sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(side->nhosts, nhosts);
	for (size_t i = 0; i < NHOSTS; i++) {
		const struct promsource_host *h;

		if (strcmp(hosts[i].job, job) || hosts[i].lost)
			continue;
		h = find_host(side, hosts[i].instance);
		same_counts(&originals[i], &h->profile, h->instance);
		assert_string_equal(h->profile.build.revision, hosts[i].revision);
		assert_string_equal(h->profile.kernel_release, originals[i].kernel_release);
		assert_true(h->profile.start_ns == S_NS); /* its daemon started inside W */
		assert_true(h->profile.end_ns == E_NS);
		assert_int_equal(h->why.n, 0);
	}
}

static void each_host_comes_back_as_its_profile(void **state)
{
	struct promsource_side side;

	(void)state;
	skip_without_server();
	side_comes_back("base", 2, &side);
	assert_true(promsource_judgeable(&side));
	promsource_side_free(&side);
	side_comes_back("access", 2, &side);
	assert_true(promsource_judgeable(&side));
	promsource_side_free(&side);
	side_comes_back("lean", 2, &side);
	assert_true(promsource_judgeable(&side));
	assert_true(side.hosts[0].profile.fam[FAMILY_ACCESS].no_latency);
	assert_true(side.hosts[0].profile.fam[FAMILY_EXEC].no_latency);
	assert_false(side.hosts[0].profile.fam[FAMILY_LOOKUP].no_latency);
	promsource_side_free(&side);
	/* lookup-2 runs another build: both hosts whole, the side not judged */
	side_comes_back("lookup", 2, &side);
	assert_false(promsource_judgeable(&side));
	assert_int_equal(side.why.n, 1);
	assert_true(has_line(&side.why, "hosts run different permscope builds: lookup-1 "
			     "revision " REV_A ", lookup-2 revision " REV_B));
	promsource_side_free(&side);
}

/*
 * W = 1m: the window starts at S, where every host has a point (the same
 * daemon run at both ends), so its counts are differences: still exact.
 */
static void a_window_from_the_first_points_takes_differences(void **state)
{
	struct promsource_side side;

	(void)state;
	skip_without_server();
	window = "1m";
	side_comes_back("base", 2, &side);
	assert_true(promsource_judgeable(&side));
	promsource_side_free(&side);
	side_comes_back("access", 2, &side);
	promsource_side_free(&side);
	window = W;
}

/* A daemon older than the window with no sample near its start: no verdict. */
static void a_host_not_scraped_at_the_window_start_is_named(void **state)
{
	struct promsource_side side;
	char err[512];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("{job=\"gap\"}", 0, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(side.nhosts, 1);
	assert_int_equal(side.hosts[0].why.n, 1);
	assert_true(has_line(&side.hosts[0].why, "no sample of it near the window's start "
			     "(2026-11-30T09:59:00Z), though its daemon ran since "
			     "2026-11-30T09:00:00Z"));
	promsource_side_free(&side);
}

static void hosts_running_different_families_are_named(void **state)
{
	struct promsource_side side;
	char err[512];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("{instance=~\"access-1|lookup-1\"}", 0, &side, err,
				   sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(side.nhosts, 2);
	assert_int_equal(side.why.n, 2);
	assert_true(has_line(&side.why, "hosts attach the lookup family in different modes: "
			     "access-1 not_requested, lookup-1 fentry"));
	assert_true(has_line(&side.why, "hosts attach the access family in different modes: "
			     "access-1 fentry, lookup-1 not_requested"));
	promsource_side_free(&side);
}

static void lost_events_and_a_reset_are_named(void **state)
{
	struct promsource_side side;
	const struct promsource_host *h;
	char err[512];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("{job=\"new\"}", 0, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(side.nhosts, 3);
	assert_false(promsource_judgeable(&side));
	same_counts(&originals[6], &find_host(&side, "new-1")->profile, "new-1");
	assert_int_equal(find_host(&side, "new-1")->why.n, 0);
	/* a loss is no reason: it is in the profile, for the rules; the host is named */
	h = find_host(&side, "new-lossy");
	assert_int_equal(h->why.n, 0);
	assert_int_equal(h->losses.n, 1);
	assert_true(has_line(&h->losses, "lost 7 events (family access, program access_tp)"));
	assert_int_equal(family_lost_total(&h->profile.fam[FAMILY_ACCESS]), 7);
	h = find_host(&side, "new-reset");
	for (size_t i = 0; i < h->why.n; i++)
		print_message("new-reset: %s\n", h->why.line[i]);
	/* its exec and lookup families "ran" with no series: absent, never 0 */
	assert_int_equal(h->why.n, 4);
	assert_true(has_line(&h->why, "the exec family ran (permscope_probe_attached) but none "
			     "of its series is in Prometheus"));
	assert_true(has_line(&h->why, "the lookup family ran (permscope_probe_attached) but "
			     "none of its series is in Prometheus"));
	assert_true(has_line(&h->why, "its daemon restarted inside the window (last at "
			     "2026-11-30T10:00:35Z)"));
	assert_true(has_line(&h->why, "counters reset inside the window "
			     "(permscope_access_calls_total)"));
	/* nothing about the side as a whole: one build, the same modes */
	assert_int_equal(side.why.n, 0);
	promsource_side_free(&side);
}

static void a_side_merges_as_one_run_a_host(void **state)
{
	struct promsource_side side;
	struct profile merged;
	double *samples = NULL;
	char err[512];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("{job=\"base\"}", 2, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(promsource_merge(&side, &merged), 0);
	assert_int_equal(merged.nruns, 2);
	assert_true(profile_count(&merged, FAMILY_ACCESS, A_FAST) ==
		    2 * profile_count(&originals[0], FAMILY_ACCESS, A_FAST));
	assert_int_equal(metric_samples(&merged, "access.fast_ratio", &samples), 2);
	assert_true(samples[0] == schema_value(&schema[FAMILY_ACCESS], A_FAST_RATIO,
					       &originals[0].access));
	assert_true(samples[1] == samples[0]);
	free(samples);
	profile_free(&merged);
	promsource_side_free(&side);
}

static void fewer_hosts_than_asked_is_a_reason(void **state)
{
	struct promsource_side side;
	char err[512];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("{job=\"base\"}", 3, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_false(promsource_judgeable(&side));
	assert_true(has_line(&side.why, "2 hosts, fewer than the 3 asked for"));
	promsource_side_free(&side);
	/* a selector nothing matches: no hosts at all */
	assert_int_equal(read_side("{job=\"nowhere\"}", 1, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(side.nhosts, 0);
	assert_true(has_line(&side.why, "0 hosts"));
	promsource_side_free(&side);
}

/*
 * A duty-cycled daemon's hosts come back with what they watched, each
 * family's seconds, window, period and windows; an always-on host's with
 * the seconds of the window it counted.  A side whose hosts sample
 * differently is named: their counts sum over different shares of time.
 */
static void what_windowed_hosts_watched_comes_back(void **state)
{
	struct promsource_side side;
	char err[512];

	(void)state;
	skip_without_server();
	side_comes_back("windowed", 2, &side);
	assert_true(promsource_judgeable(&side));
	for (size_t i = 0; i < side.nhosts; i++)
		for (int f = 0; f < FAMILY_COUNT; f++) {
			const struct observation *o = &side.hosts[i].profile.fam[f].observed;

			if (side.hosts[i].profile.fam[f].status != FAMILY_OK)
				continue;
			assert_true(o->ns == windowed.ns && o->window_ns == windowed.window_ns &&
				    o->period_ns == windowed.period_ns);
			assert_int_equal(o->windows, windowed.windows);
			assert_int_equal(o->failed, windowed.failed);
		}
	promsource_side_free(&side);
	/* always on: the minute its daemon counted, no cycle */
	side_comes_back("base", 2, &side);
	assert_true(side.hosts[0].profile.fam[FAMILY_ACCESS].observed.ns == 60000000000ULL);
	assert_false(family_duty_cycled(&side.hosts[0].profile.fam[FAMILY_ACCESS]));
	promsource_side_free(&side);
	assert_int_equal(read_side("{job=\"mixed\"}", 0, &side, err, sizeof(err)), PROMCLIENT_OK);
	assert_false(promsource_judgeable(&side));
	assert_true(has_line(&side.why, "hosts count the access family with different duty "
			     "cycles: mixed-1 0.2 s in every 15 s, mixed-2 always on"));
	promsource_side_free(&side);
}

/* permscope gate --prometheus URL --base SEL --new SEL at T over W: its exit status. */
static int gate(const char *base, const char *new, const char *url)
{
	char at[32];

	snprintf(at, sizeof(at), "%.0f", T_S);
	return permscope("gate", "--prometheus", url, "--base", base, "--new", new, "--window", W,
			 "--at", at, NULL);
}

/* The same with the rules of file `rules` (its text). */
static int gate_rules(const char *base, const char *new, const char *url, const char *rules)
{
	char at[32];

	snprintf(at, sizeof(at), "%.0f", T_S);
	return permscope("gate", "--prometheus", url, "--base", base, "--new", new, "--window", W,
			 "--at", at, "--rules", write_tmp_file("windowed.rules", rules), NULL);
}

static void gate_judges_sides_read_from_prometheus(void **state)
{
	(void)state;
	skip_without_server();
	/* a side against itself: every rule passes */
	if (gate("{job=\"base\"}", "{job=\"base\"}", ps.url) != 0)
		fail_msg("%s%s", out_text, err_text);
	assert_contains(out_text, "PASS");
	/* the lossy and the reset hosts: no verdict, both named */
	assert_int_equal(gate("{job=\"base\"}", "{job=\"new\"}", ps.url), 3);
	assert_contains(out_text, "gate: new {job=\"new\"}: host new-lossy lost 7 events");
	assert_contains(out_text, "NO-VERDICT  new {job=\"new\"}: host new-reset: counters "
			"reset inside the window");
	/* two builds on a side, and too few hosts */
	assert_int_equal(gate("{job=\"lookup\"}", "{job=\"nowhere\"}", ps.url), 3);
	assert_contains(out_text, "hosts run different permscope builds");
	assert_contains(out_text, "NO-VERDICT  new {job=\"nowhere\"}: 0 hosts, fewer than the 1");
	/*
	 * windowed against always-on hosts of the same counts: the default
	 * rules (shares, and counts that must stay 0) judge alike; a count
	 * set against the base's cannot, and says why
	 */
	if (gate("{job=\"base\"}", "{job=\"windowed\"}", ps.url) != 0)
		fail_msg("%s%s", out_text, err_text);
	/* two hosts' windows, added up */
	assert_contains(out_text, "gate: new  access counted in windows: 1.6 s in 8 windows of "
			"0.2 s every 15 s, 2 failed");
	assert_int_equal(gate_rules("{job=\"base\"}", "{job=\"windowed\"}", ps.url,
				    "access.calls >= base * 0.9\naccess.fast_ratio >= base - 0.01\n"), 3);
	assert_contains(out_text, "PASS  access.fast_ratio");
	assert_contains(out_text, "access.calls counts always on in the base profile but 0.2 s in "
			"every 15 s in the new");
	/* canaries that skip a needed override: the same FAIL, watched in windows or always */
	assert_int_equal(gate("{job=\"base\"}", "{job=\"unsafe-on\"}", ps.url), 1);
	assert_contains(out_text, "FAIL  access.unsafe  new 190  base 0  threshold == 0  hosts 2:2");
	assert_int_equal(gate("{job=\"base\"}", "{job=\"unsafe-win\"}", ps.url), 1);
	assert_contains(out_text, "FAIL  access.unsafe  new 2.5  base 0  threshold == 0  hosts 2:2");
	/*
	 * daemons run with --lean export no latency: their calls judge as
	 * before, a latency rule has no verdict, never one on an empty histogram
	 */
	if (gate("{job=\"base\"}", "{job=\"lean\"}", ps.url) != 0)
		fail_msg("%s%s", out_text, err_text);
	assert_int_equal(gate_rules("{job=\"base\"}", "{job=\"lean\"}", ps.url,
				    "access.fast_ratio >= base - 0.01\n"
				    "access.latency.p50 <= base * 1.1\n"), 3);
	assert_contains(out_text, "PASS  access.fast_ratio");
	gate_unwrap();
	assert_contains(out_text, "the new profile lacks the counter behind access.latency.p50 "
			"(its latency histograms are not known)");
	/* a selector Prometheus rejects: its error, exit 4 */
	assert_int_equal(gate("{job=~\"(\"}", "{job=\"base\"}", ps.url), 4);
	assert_contains(err_text, "rejected the query");
}

static void nothing_is_read_from_a_failed_query(void **state)
{
	struct promsource_side side;
	char err[512], url[64];

	(void)state;
	skip_without_server();
	assert_int_equal(read_side("job=\"base\"", 0, &side, err, sizeof(err)), PROMSOURCE_EINPUT);
	assert_non_null(strstr(err, "label matchers in braces"));
	assert_int_equal(read_side("{job=~\"(\"}", 0, &side, err, sizeof(err)),
			 PROMCLIENT_EREJECTED);
	assert_null(side.hosts);
	/* last: the server goes away */
	snprintf(url, sizeof(url), "%s", ps.url);
	promserver_stop(&ps);
	assert_int_equal(read_side("{job=\"base\"}", 0, &side, err, sizeof(err)),
			 PROMCLIENT_EUNREACHABLE);
	assert_int_equal(side.nhosts, 0);
	assert_int_equal(gate("{job=\"base\"}", "{job=\"base\"}", url), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_host_comes_back_as_its_profile),
		cmocka_unit_test(a_window_from_the_first_points_takes_differences),
		cmocka_unit_test(a_host_not_scraped_at_the_window_start_is_named),
		cmocka_unit_test(hosts_running_different_families_are_named),
		cmocka_unit_test(lost_events_and_a_reset_are_named),
		cmocka_unit_test(a_side_merges_as_one_run_a_host),
		cmocka_unit_test(fewer_hosts_than_asked_is_a_reason),
		cmocka_unit_test(what_windowed_hosts_watched_comes_back),
		cmocka_unit_test(gate_judges_sides_read_from_prometheus),
		cmocka_unit_test(nothing_is_read_from_a_failed_query),
	};

	return cmocka_run_group_tests_name("promsource", tests, fleet_setup, fleet_teardown);
}
