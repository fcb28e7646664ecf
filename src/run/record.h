/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Recording: attach the families, run or wait, collect into a profile. */
#ifndef PERMSCOPE_RECORD_H
#define PERMSCOPE_RECORD_H

#include "probe/attach.h"
#include "profile.h"

struct record_opts {
	struct probe_opts probe;
	double duration_s; /* 0: until the command exits, or Ctrl-C */
	int pid;           /* --pid: 0 for none */
	char **command;    /* -- CMD ARGS...: NULL for none */
};

void record_opts_init(struct record_opts *o);

/* A new profile of this host, with the filters of `o` (--pid, --comm, --cgroup). */
void record_profile_init(const struct record_opts *o, struct profile *p);

/* Record into `p` (initialised here).  Returns an exit status. */
int record_run(const struct record_opts *o, struct profile *p);

/*
 * The engine under record and daemon: attach the families once, read their
 * running totals as often as wanted, detach.
 */
struct recorder {
	struct family *fams[FAMILY_COUNT];
	int attached;
};

/*
 * Attach the families `probe` wants, their outcome in p->fam[].  EXIT_OK
 * when at least one attached; otherwise every mode's failure is printed and
 * EXIT_FAIL returned.  Either way recorder_detach() cleans up.
 */
int recorder_attach(struct recorder *r, const struct probe_opts *probe, struct profile *p);
/*
 * Set p's counters to the totals since attach (the maps only grow).  Safe
 * from several threads at once if each reads into its own profile.
 * 0 or the first -errno; every failing family is reported.
 */
int recorder_collect(struct recorder *r, struct profile *p);
/* Every attached family's programs, up to `max` (family_program_runs()). */
int recorder_program_runs(struct recorder *r, struct program_runs *out, int max);
void recorder_detach(struct recorder *r);
/* "lookup: unavailable, access: tracepoint, exec: tracepoint" */
void recorder_describe(const struct profile *p, char *line, size_t size);

#endif
