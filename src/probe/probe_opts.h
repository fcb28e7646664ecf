/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a caller asks of the probes (struct probe_opts: which families,
 * which mode, which tasks) and where verify's samples go: read by the
 * attach engine (probe/attach.h) and by each family's glue
 * (probe/family_ops.h), which is why it is a header of its own.
 */
#ifndef PERMSCOPE_PROBE_OPTS_H
#define PERMSCOPE_PROBE_OPTS_H

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
	/*
	 * --lean: leave out the detail whose hooks cost the most per event
	 * (each family's lean_programs, family_ops.h); its rows are absent
	 * from the profile, never 0.
	 */
	bool lean;
};

#endif
