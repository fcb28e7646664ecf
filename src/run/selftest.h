/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * permscope check --self-test: a known workload recorded with the families
 * that attach, and the verdict on each fast path judged from its counts the
 * way tests/vm/test_vm.c judges the pinned kernels (docs/check.md).
 */
#ifndef PERMSCOPE_SELFTEST_H
#define PERMSCOPE_SELFTEST_H

#include <limits.h>
#include <stdint.h>

#include "probe/attach.h"
#include "profile.h"

/* The workload, in the order it runs; each phase is counted on its own. */
enum selftest_phase {
	ST_ACCESS_DEFAULT, /* access("/", R_OK) with the creds it was given */
	ST_ACCESS_DROPCAP, /* the same with one capability cleared from the effective set */
	ST_EXEC_MISSING,   /* execve() of a path that does not exist: ENOENT */
	ST_EXEC_CONTROL,   /* execve() of an existing file with a 129 KiB argument: E2BIG */
	ST_STAT_TREE,      /* stat() of a file below six 0755 directories on a tmpfs */
	ST_STAT_CONTROL,   /* stat() of a file in a 0700 directory on the same tmpfs */
	ST_PHASES,
};

/* The fast paths judged, one verdict line each. */
enum selftest_path { ST_CRED_SKIP, ST_ENOENT_EARLY, ST_LOOKUP_SKIP, ST_PATHS };

enum selftest_answer { ST_UNKNOWN, ST_YES, ST_NO };

/* Directory checks per stat: the tree's top (the mount root) and d1..d6; ctl's top and ctl. */
#define ST_TREE_CHECKS 7
#define ST_CONTROL_CHECKS 2

struct selftest {
	int n[ST_PHASES];             /* calls each phase makes */
	/* "" when the phase ran; else why it could not (no capability to clear, say) */
	char not_run[ST_PHASES][128];
	char fs[32];                  /* the tree's filesystem type, as lookup names it */
	char where[PATH_MAX + 96];    /* "a private tmpfs mounted on /tmp/...", or "/dev/shm/..." */
	struct profile run;           /* how each family attached, and its losses over the run */
	struct profile phase[ST_PHASES]; /* each phase's counts alone */
	double elapsed_s;             /* the workload and its readings, attach and detach excluded */
	double attach_s, detach_s;    /* loading and attaching the families; letting them go */
};

#define ST_MAX_COUNTS 8

struct selftest_verdict {
	enum selftest_answer answer;
	char why[400];     /* how the counts decide it, or why they cannot */
	struct { const char *name; uint64_t value; } count[ST_MAX_COUNTS]; /* the evidence */
	int ncount;
};

/* The phase sizes check uses: a few hundred calls, under a second in all. */
void selftest_init(struct selftest *t);
void selftest_free(struct selftest *t);

/*
 * Attach the families `probe` wants, filtered to the workload's process, run
 * the workload and read each phase's counts into t; detach.  t->run's
 * fam[] says how each family attached (check prints that as its attach
 * tries).  EXIT_OK when the workload ran (whatever attached), else
 * EXIT_FAIL with the error printed.
 */
int selftest_run(const struct probe_opts *probe, struct selftest *t);

/* The verdict on fast path `p` from t's counts: pure, what the unit tests feed. */
void selftest_judge(const struct selftest *t, enum selftest_path p, struct selftest_verdict *v);

const char *selftest_phase_name(enum selftest_phase ph); /* JSON: "access_default" */
const char *selftest_path_title(enum selftest_path p); /* "faccessat cred skip" */
const char *selftest_path_key(enum selftest_path p);   /* JSON: "faccessat_cred_skip" */
const char *selftest_answer_name(enum selftest_answer a); /* "yes", "no", "unknown" */

#endif
