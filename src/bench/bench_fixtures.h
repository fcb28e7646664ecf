/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What each benchmark works on and does: its setup, which makes files in
 * a private temporary directory, and its one operation.  The rows of
 * src/bench_catalogue.c point here; src/bench/bench.c runs them.
 */
#ifndef PERMSCOPE_BENCH_FIXTURES_H
#define PERMSCOPE_BENCH_FIXTURES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_catalogue.h"

/* exec-path's PATH: six directories without the program, then the one with it */
#define BENCH_EXEC_PATHS 7

struct bench_fixture {
	char dir[PATH_MAX];   /* the temporary directory, removed with everything in it */
	int nworkers;
	/* in: --slow asked and the benchmark has a slow variant; out: false when it cannot here */
	bool slow;
	int cap;              /* slow: the capability each worker clears, -1 none */
	/* per variant (fast, slow), per worker: the file worker w works on */
	const char **files[2];
	char *exec_paths[BENCH_EXEC_PATHS]; /* exec-path: PATH's entries, each with the program's name */
	char target[PATH_MAX];              /* what the loop works on, for people */
	char slow_how[PATH_MAX + 128];      /* how the slow runs defeat the fast path */
	char slow_skipped[PATH_MAX + 256];  /* why --slow does not run here */
	char **owned;         /* every string above that is malloc'ed */
	size_t nowned;
};

/*
 * A fixture for `nworkers` workers in a new temporary directory under
 * $TMPDIR (/tmp).  0, or -1 with a message in `err`; bench_fixture_free()
 * either way.
 */
int bench_fixture_init(struct bench_fixture *fx, int nworkers, bool slow, char *err,
		       size_t errlen);
void bench_fixture_free(struct bench_fixture *fx);

/* What a benchmark of bench_defs does, a row each (bench_fixtures.c). */
struct bench_ops {
	/*
	 * Make what the loop works on in fx->dir; 0, or -1 with errno (the
	 * harness says "cannot set up DIR") or with a message in `err`.
	 */
	int (*setup)(struct bench_fixture *fx, char *err, size_t errlen);
	/* BENCH_LOOP_WORKERS: one operation of worker `w` on `file`; 0 or -1 with errno */
	int (*op)(const char *file, int w, uint64_t i);
};
extern const struct bench_ops bench_ops[BENCH_COUNT];

/* The benchmarks' setups and operations (bench_ops). */
int access1_setup(struct bench_fixture *fx, char *err, size_t errlen);
int access2_setup(struct bench_fixture *fx, char *err, size_t errlen);
int access_op(const char *file, int w, uint64_t i);
int stat_path_setup(struct bench_fixture *fx, char *err, size_t errlen);
int stat_op(const char *file, int w, uint64_t i);
int exec_path_setup(struct bench_fixture *fx, char *err, size_t errlen);
int cred_bounce_setup(struct bench_fixture *fx, char *err, size_t errlen);
int cred_bounce_op(const char *file, int w, uint64_t i);

#endif
