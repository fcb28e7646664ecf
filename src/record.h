/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Recording: attach the families, run or wait, collect into a profile. */
#ifndef PERMSCOPE_RECORD_H
#define PERMSCOPE_RECORD_H

#include "families.h"
#include "profile.h"

struct record_opts {
	struct probe_opts probe;
	double duration_s; /* 0: until the command exits, or Ctrl-C */
	int pid;           /* --pid: 0 for none */
	char **command;    /* -- CMD ARGS...: NULL for none */
};

void record_opts_init(struct record_opts *o);

/* Record into `p` (initialised here).  Returns an exit status. */
int record_run(const struct record_opts *o, struct profile *p);

#endif
