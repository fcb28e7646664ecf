/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Loading the probe families: each family tries its attach modes in the
 * order this kernel calls for (families_mode_order()), keeps the first that
 * loads and attaches, and records why the others failed.  One family failing never stops another.
 */
#ifndef PERMSCOPE_ATTACH_H
#define PERMSCOPE_ATTACH_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "profile.h"
#include "probe/probe_opts.h"

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
 * none: on a kernel that can preempt BPF programs (src/kernel/preempt.h), kprobe
 * before fentry.  Returns how many; WHY (when not NULL) says why, for check.
 */
int families_mode_order(enum attach_mode order[MODE_COUNT], char *why, size_t len);
/* Sum the per-CPU maps into the profile. */
int family_collect(struct family *fam, struct profile *p);
void family_stop(struct family *fam);
/*
 * A duty cycle's steps (src/run/dutycycle.c).  family_count() makes the
 * programs count in WINDOW (non-zero, a new number each time: a call
 * opened in one window is never counted in another), or stop (0), at
 * once.  family_detach_hooks() stops the counting and detaches every hook
 * but the process filter's fork and exit followers; the programs and
 * their counters stay.  family_attach_hooks() attaches them again, not
 * yet counting; -errno with WHY filled, and the hooks detached again,
 * when one cannot be attached.
 */
void family_count(struct family *fam, __u32 window);
void family_detach_hooks(struct family *fam);
int family_attach_hooks(struct family *fam, char *why, size_t len);

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
