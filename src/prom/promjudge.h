/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a side read from Prometheus (promsource_read()) is worth as a
 * whole: the side's own reasons, whether any reason stops a verdict, and
 * the side as the one profile compare and gate read.
 */
#ifndef PERMSCOPE_PROMJUDGE_H
#define PERMSCOPE_PROMJUDGE_H

#include "profile.h"
#include "prom/promside.h"

/*
 * The side's reasons, added to side->why: fewer hosts than `min_hosts`,
 * counts whose sum over the hosts passes 2^63, more than one build, a
 * family in more than one mode.  0, or PROMSOURCE_ENOMEM.
 */
int promsource_judge_side(struct promsource_side *side, int min_hosts);

/*
 * The side as one profile of runs, as `permscope merge` makes one: the
 * hosts' counters added up, each host one run, so statistics compare hosts.
 * Only for a side promsource_judgeable() passes (one build, the same
 * families in the same modes).  0, -EINVAL for no hosts, or -ENOMEM;
 * `out` is initialised either way (profile_free() it).
 */
int promsource_merge(const struct promsource_side *side, struct profile *out);

/* Whether nothing stops a verdict: no reason for the side or any host. */
int promsource_judgeable(const struct promsource_side *side);

#endif
