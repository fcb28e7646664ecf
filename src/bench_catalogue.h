/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What permscope bench can run: one row a benchmark, and the
 * bench.BENCHMARK.KEY metrics it writes.  A leaf: metrics and compare read
 * the names and keys here without the harness (src/bench/bench.h), and the
 * harness reads a benchmark's fixture and operation from its row.  A new
 * benchmark is an id, a row, and its setup and operation in
 * src/bench/bench_fixtures.c.
 */
#ifndef PERMSCOPE_BENCH_CATALOGUE_H
#define PERMSCOPE_BENCH_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


enum bench_id {
	BENCH_ACCESS1,
	BENCH_ACCESS2,
	BENCH_STAT_PATH,
	BENCH_EXEC_PATH,
	BENCH_CRED_BOUNCE,
	BENCH_COUNT,
};

/*
 * bench.BENCHMARK.KEY, one value per measured run (a fast/slow pair with
 * --slow) in a bench profile's runs, so that compare and gate take their
 * mean, sd and Welch's t like any merged metric (docs/benchmarks.md).  A
 * row applies to the benchmarks whose BENCH_M_* bits it shares.
 */
#define BENCH_M_WORKERS 0x1 /* looping workers: all but exec-path */
#define BENCH_M_SLOW    0x2 /* a slow variant: access1, access2, stat-path */
#define BENCH_M_EXEC    0x4 /* exec-path */
#define BENCH_M_OVERHEAD 0x8 /* every benchmark, with --overhead */

struct bench_metric_row {
	const char *key;
	unsigned int applies; /* BENCH_M_* */
	const char *meaning;
};

extern const struct bench_metric_row bench_metric_rows[];
extern const size_t bench_metric_nrows;
/* The row called `key`, or -1. */
int bench_metric_index(const char *key);

/* How a benchmark is measured. */
enum bench_loop {
	/* N workers each call op() in a loop and count it (src/bench/bench.c) */
	BENCH_LOOP_WORKERS,
	/* one process times each vfork+exec of the fixture's exec_paths */
	BENCH_LOOP_EXECS,
};

struct bench_def {
	const char *name;
	const char *key;     /* in metric names, bench.KEY.*: the name with '_' for '-' */
	const char *what;    /* the loop, one line */
	const char *change;  /* the kernel change it measures */
	const char *slow;    /* how --slow defeats the fast path, NULL: it cannot */
	unsigned int metrics; /* BENCH_M_*: which bench.NAME.* metrics it has */
	/* --overhead: what a user would write with bpftrace to watch the same thing */
	const char *bpftrace;
	enum bench_loop loop;
	int workers;         /* without --procs/--threads */
	/* its workers are threads whatever was asked: they must share one struct cred */
	bool always_threads;
	int unmeasured;      /* the first N workers keep the others busy and are not counted */
};

extern const struct bench_def bench_defs[BENCH_COUNT];
int bench_by_name(const char *name); /* -1 when unknown */
int bench_by_key(const char *key);   /* -1 when unknown */

#endif
