/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The probes' own cost (permscope bench --overhead): a benchmark run
 * without probes and with them, in pairs, A/B/A/B: for each configuration
 * (each family alone, all of them, bpftrace's one-liner) and each round, a
 * run with nothing attached, then the configuration is attached in-process
 * (recorder_attach) or started (bpftrace, a child), a run, and it is
 * detached.  The slowdown of a pair is the unprobed rate over the probed
 * one, from the workers' thread CPU time first (steady on a shared
 * machine), from wall time beside it.  docs/benchmarks.md.
 */
#ifndef PERMSCOPE_OVERHEAD_H
#define PERMSCOPE_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "probe/attach.h"
#include "stats.h"

#define BPFTRACE_PATH "/usr/bin/bpftrace"

enum ovh_kind { OVH_FAMILY, OVH_ALL, OVH_BPFTRACE };

/* Configurations: the families, all, bpftrace. */
#define OVH_MAX_CONFS (FAMILY_COUNT + 2)

struct ovh_pair {
	double base_cpu, probed_cpu;   /* ops/cpu-s without and with the probes */
	double base_wall, probed_wall; /* ops/s; exec-path: 1e9 / the medians' sum */
};

struct ovh_conf {
	enum ovh_kind kind;
	char name[16];          /* "access", "exec", "lookup", "all", "bpftrace": overhead_NAME */
	bool available;
	char why[1024];         /* when not available: why (every mode's failure) */
	char how[256];          /* what is attached: "access: tracepoint", the bpftrace script */
	struct probe_opts probe;
	struct ovh_pair *pairs; /* one a round */
	int npairs;
	double attach_s, detach_s; /* summed over the rounds */
};

struct ovh_result {
	enum bench_id id;
	int workers;
	bool threads;
	struct ovh_conf conf[OVH_MAX_CONFS];
	int nconf;
};

/* The bpftrace program for benchmark `id` (its row's, src/bench_catalogue.c). */
const char *overhead_bpftrace_script(enum bench_id id);

/*
 * Run benchmark `id` cfg->runs rounds, each configuration paired with an
 * unprobed run in every round.  0, or -1 with a message in `err`.
 * Configurations that cannot run here are in `res` with available false and
 * the reason.
 */
int overhead_run(enum bench_id id, const struct bench_config *cfg, struct ovh_result *res,
		 char *err, size_t errlen);
void overhead_result_free(struct ovh_result *res);

struct ovh_summary {
	size_t n;
	/* probed slowdown: unprobed rate / probed rate, per pair */
	double cpu_median, cpu_min, cpu_max;
	double wall_median, wall_min, wall_max;
	/*
	 * How much slower, as --slow's gain: 100 * (unprobed - probed) / probed
	 * of the mean ops/cpu-s, and the 95% CI of Welch's t over the same
	 * denominator.
	 */
	struct sample_summary base, probed;
	struct welch w;
	bool compared;
	struct percent_change cost;
};

/* The slowdown of one pair from CPU time (wall: false) or wall time; 0 when unknown. */
double overhead_ratio(const struct ovh_pair *p, bool wall);
void overhead_summarize(const struct ovh_conf *c, struct ovh_summary *s);

/*
 * bench.NAME.overhead_CONF (src/bench_catalogue.c) of round `round` (0-based): the
 * CPU-time slowdown of that round's pair of each configuration measured.
 * 0 or -ENOMEM.
 */
int overhead_run_metrics(const struct ovh_result *res, int round, struct metric_list *l);

#endif
