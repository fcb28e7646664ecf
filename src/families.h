/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loading the probe families: each family tries its attach modes in the
 * order this kernel calls for (families_mode_order()), keeps the first that
 * loads and attaches, and records why the others failed.  One family failing never stops another.
 */
#ifndef PERMSCOPE_FAMILIES_H
#define PERMSCOPE_FAMILIES_H

#include <stdbool.h>

#include "profile.h"

/*
 * Where violation samples go (permscope verify): the families' ring
 * buffers are read into sample() when their counters are collected, and
 * unsent() gets each kind's running total of samples left out (rate limit
 * or full ring).  Only when set do the programs send any.
 */
struct sample_sink {
	void (*sample)(void *ctx, const struct ps_sample *s);
	void (*unsent)(void *ctx, enum sample_kind kind, __u64 total);
	void *ctx;
};

/* A family's ring buffer when samples are asked for: about 580 samples. */
#define SAMPLE_RING_BYTES (64 * 1024)

struct probe_opts {
	bool want[FAMILY_COUNT];
	enum attach_mode only_mode; /* MODE_NONE: try every mode in order */
	bool filter_tasks;          /* count only tracked processes (--pid, -- CMD) */
	bool filter_comm;
	char comm[16];
	/*
	 * --cgroup: a cgroup v2 directory, absolute (cgroup_resolve() made
	 * it); each family opens it and puts it in its filter.  NULL: none.
	 */
	const char *cgroup;
	const char *kallsyms;       /* path, normally /proc/kallsyms */
	/*
	 * Processes counted from the start (--pid, the recorded command): in
	 * `tracked` before any program attaches, so no thread of theirs is
	 * ever judged before the filter knows it.
	 */
	int track[2];
	int ntrack;
	const struct sample_sink *samples; /* NULL: no samples (all but verify) */
};

struct family;

/*
 * Try the modes of family `f`; on success return a running family and set
 * res->status = FAMILY_OK, otherwise NULL with res->status =
 * FAMILY_UNAVAILABLE.  res->attempts explains every mode that failed.
 */
struct family *family_start(enum family_id f, const struct probe_opts *o,
			    struct family_result *res);
/*
 * The order family_start() tries the attach modes in when --mode forces
 * none: on a kernel that can preempt BPF programs (src/preempt.h), kprobe
 * before fentry.  Returns how many; WHY (when not NULL) says why, for check.
 */
int families_mode_order(enum attach_mode order[MODE_COUNT], char *why, size_t len);
/* Sum the per-CPU maps into the profile. */
int family_collect(struct family *fam, struct profile *p);
void family_stop(struct family *fam);

/* Up to `max` of the family's loaded programs into `out`: how many, or -errno. */
int family_program_runs(struct family *fam, struct program_runs *out, int max);

/* Route libbpf's messages: shown with -v, otherwise kept for error hints. */
void families_init_logging(void);

/*
 * Whether this process may load BPF at all (CAP_SYS_ADMIN, or CAP_BPF with
 * CAP_PERFMON in its effective set).  When it may not: print one error
 * naming the capabilities it lacks and how to run COMMAND, with HINT (or
 * nothing) after it, and return false.  Commands ask before they create or
 * start anything, so a refused run leaves nothing behind.
 */
bool families_may_load(const char *command, const char *hint);

#endif
