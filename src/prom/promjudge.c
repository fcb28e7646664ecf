// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A side of a fleet comparison once read (src/prom/promjudge.h): the
 * reasons of the side as a whole, whether anything stops a verdict, and
 * the side as one profile of runs.  Apart from promsource.c's queries:
 * nothing here asks Prometheus anything, it weighs the hosts already read.
 */
#include "prom/promjudge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

int promsource_judge_side(struct promsource_side *s, int min_hosts)
{
	int ret = 0;

	if (s->nhosts < (size_t)(min_hosts > 0 ? min_hosts : 0))
		ret = reasons_add(&s->why, "%zu hosts, fewer than the %d asked for (--min-hosts)",
				 s->nhosts, min_hosts);
	if (!ret && s->nhosts) {
		struct profile all;

		/* the side's hosts added up, as gate and compare will: every sum must fit */
		if (promsource_merge(s, &all))
			ret = PROMSOURCE_ENOMEM;
		else if (!profile_counts_fit(&all))
			ret = reasons_add(&s->why, "its hosts' counts add up past 2^63: no sum of "
					 "them is exact");
		profile_free(&all);
	}
	for (size_t i = 1; !ret && i < s->nhosts; i++)
		if (strcmp(s->hosts[i].profile.build.revision, s->hosts[0].profile.build.revision))
			ret = reasons_add(&s->why, "hosts run different permscope builds: %s revision "
					 "%s, %s revision %s", s->hosts[0].instance,
					 s->hosts[0].profile.build.revision, s->hosts[i].instance,
					 s->hosts[i].profile.build.revision);
	/*
	 * A family compares across hosts in one mode, and the hosts merge as
	 * runs of every metric: a host that does not run a family (its
	 * state "not_requested") differs from one that does.
	 */
	for (int f = 0; !ret && f < FAMILY_COUNT; f++) {
		const struct promsource_host *first = s->nhosts ? &s->hosts[0] : NULL;

		for (size_t i = 1; !ret && i < s->nhosts; i++) {
			const struct family_result *fr = &s->hosts[i].profile.fam[f];

			if (fr->status != first->profile.fam[f].status ||
			    (fr->status == FAMILY_OK && fr->mode != first->profile.fam[f].mode))
				ret = reasons_add(&s->why, "hosts attach the %s family in different "
						 "modes: %s %s, %s %s", family_name(f),
						 first->instance,
						 family_state_name(&first->profile.fam[f]),
						 s->hosts[i].instance, family_state_name(fr));
			else if (fr->status == FAMILY_OK &&
				 (fr->observed.window_ns != first->profile.fam[f].observed.window_ns ||
				  fr->observed.period_ns != first->profile.fam[f].observed.period_ns)) {
				char a[96], b[96];

				/* their counts sum over different shares of the time */
				ret = reasons_add(&s->why, "hosts count the %s family with different duty "
						 "cycles: %s %s, %s %s", family_name(f),
						 first->instance,
						 family_coverage_text(&first->profile.fam[f], a, sizeof(a)),
						 s->hosts[i].instance,
						 family_coverage_text(fr, b, sizeof(b)));
			}
		}
	}
	return ret;
}

int promsource_merge(const struct promsource_side *side, struct profile *out)
{
	profile_init(out);
	if (!side->nhosts)
		return -EINVAL;
	if (profile_copy(out, &side->hosts[0].profile))
		return -ENOMEM;
	snprintf(out->hostname, sizeof(out->hostname), "%zu hosts", side->nhosts);
	out->runs = calloc(side->nhosts, sizeof(*out->runs));
	if (!out->runs)
		goto nomem;
	for (size_t i = 0; i < side->nhosts; i++) {
		const struct profile *p = &side->hosts[i].profile;

		if (i && profile_add(out, p))
			goto nomem;
		if (metrics_collect(p, &out->runs[out->nruns])) {
			metrics_free(&out->runs[out->nruns]);
			goto nomem;
		}
		out->nruns++;
		if (p->start_ns < out->start_ns)
			out->start_ns = p->start_ns;
		if (p->end_ns > out->end_ns)
			out->end_ns = p->end_ns;
	}
	return 0;
nomem:
	profile_free(out);
	profile_init(out);
	return -ENOMEM;
}

int promsource_judgeable(const struct promsource_side *side)
{
	if (side->why.n)
		return 0;
	for (size_t i = 0; i < side->nhosts; i++)
		if (side->hosts[i].why.n)
			return 0;
	return 1;
}
