/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Microbenchmarks of the four fast paths, in the manner of will-it-scale:
 * N workers (processes or threads) each run one operation in a loop and
 * count it in shared memory, one cache line a worker; a warm-up, then a
 * measured run of S seconds, R times.  With `slow`, each run is measured
 * twice, fast path then defeated fast path, so that the pairs interleave.
 * The benchmarks themselves are rows of src/bench_catalogue.c;
 * docs/benchmarks.md says what each one measures.
 */
#ifndef PERMSCOPE_BENCH_H
#define PERMSCOPE_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_catalogue.h"
#include "profile.h"
#include "stats.h"

struct bench_config {
	int workers;     /* 0: the benchmark's default (1; cred-bounce 2) */
	bool threads;    /* threads instead of processes (cred-bounce always) */
	double duration; /* seconds a measured run lasts */
	int runs;        /* measured runs (pairs with slow) */
	bool slow;       /* also measure the defeated fast path, interleaved */
	/*
	 * > 0: no clock; each worker does exactly `loops` operations and the
	 * run reports what was counted (for tests of the harness).
	 */
	long loops;
	bool progress;   /* a progress line on stderr */
};

enum bench_variant { VARIANT_FAST, VARIANT_SLOW };

struct bench_run {
	enum bench_variant variant;
	double secs;           /* measured wall time */
	uint64_t ops;          /* counted by the measured workers */
	double ops_per_s;      /* ops / secs */
	/* the workers' ops over their own thread CPU time, summed: steadier on a busy machine */
	double cpu_ops_per_s;
	int nworkers;          /* measured workers (cred-bounce: the readers) */
	double *worker_ops_per_s;
	/* exec-path: ns per fork+exec through PATH and by absolute path */
	double path_min_ns, path_median_ns, abs_min_ns, abs_median_ns;
};

struct bench_result {
	enum bench_id id;
	int workers;           /* all of them (cred-bounce: the opener too) */
	bool threads;
	char target[PATH_MAX]; /* what the loop works on */
	char slow_how[PATH_MAX + 128];    /* how the slow runs defeated the fast path, "" when none ran */
	char slow_skipped[PATH_MAX + 256]; /* why --slow did not run here, "" */
	struct bench_run *runs;
	int nruns;
};

/*
 * Run benchmark `id`.  0, or -1 with a message fit for "Error: NAME: <msg>"
 * in `err`.
 */
int bench_run(enum bench_id id, const struct bench_config *cfg, struct bench_result *res,
	      char *err, size_t errlen);
void bench_result_free(struct bench_result *res);

struct bench_summary {
	struct sample_summary fast, slow;  /* ops_per_s of the runs of each variant */
	bool compared;                     /* slow runs exist, two pairs or more */
	struct welch w;                    /* fast - slow */
	struct percent_change gain;        /* 100 * (fast - slow) / slow, and its 95% CI */
	/* the same from ops_per_cpu_s: steadier than wall time on a shared machine */
	struct sample_summary cpu_fast, cpu_slow;
	struct welch cpu_w;
	struct percent_change cpu_gain;
	size_t npairs;
	/* fast/slow per pair: wall ops/s, thread-CPU ops/s */
	double ratio_median, ratio_min, ratio_max;
	double cpu_ratio_median, cpu_ratio_min, cpu_ratio_max;
	/* exec-path, medians over runs */
	double path_median_ns, abs_median_ns, path_min_ns, abs_min_ns;
};

void bench_summarize(const struct bench_result *res, struct bench_summary *s);

/*
 * The bench.NAME.* metrics of measured run `run` (0-based; with --slow the
 * pair's fast and slow runs) of `res`, appended to `l`.  0 or -ENOMEM.
 */
int bench_run_metrics(const struct bench_result *res, int run, struct metric_list *l);

/* The median of x[0..n) (sorts x); 0 when n == 0. */
double median_of(double *x, size_t n);
/* The median, smallest and largest of x[0..n) (sorts x); 0s when n == 0. */
void median_range(double *x, size_t n, double *median, double *min, double *max);

#endif
