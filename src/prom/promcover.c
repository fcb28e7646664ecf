// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What each host's counts cover (src/prom/promcover.h): from when they
 * count (its daemon's start time, at both ends of the window), whether a
 * host of the window before went missing, and how long a duty-cycled
 * daemon watched inside the window.
 */
#include "prom/promcover.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int take_start(struct promside_query *q, struct promsource_host *h,
		      const struct promanswer_sample *s)
{
	__u64 n;

	if (q->part == 0)
		h->started = promside_time(s);
	else if (q->part == 1)
		h->started_before = promside_time(s);
	else if (promside_count(s, &n) || !(h->restarts = n))
		h->restarts = 1; /* changes() said something, and not a count: a change */
	return 0;
}

/*
 * A host of the window before this one: promside_take() has added it if
 * none of this window's answers held it, which is all promcover_gone() asks.
 */
static int take_gone(struct promside_query *q, struct promsource_host *h,
		     const struct promanswer_sample *s)
{
	(void)q;
	(void)h;
	(void)s;
	return 0;
}

/*
 * permscope_start_time_seconds at the window's end and at its start
 * (offset W): what each host's counts count from, and so whether the
 * differences of promreader_count() are what it counted inside the window.
 */
int promcover_starts(struct promreader *r, double window_start)
{
	char promql[PROMREADER_QUERY_MAX], a[32], b[32];
	struct promside_query q = { .series = "permscope_start_time_seconds", .take = take_start };
	int ret;

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	snprintf(promql, PROMREADER_QUERY_MAX, "permscope_start_time_seconds{%s}", r->matchers);
	if ((ret = promreader_query(r, &q, promql)))
		return ret;
	q.part = 1;
	snprintf(promql, PROMREADER_QUERY_MAX, "permscope_start_time_seconds{%s} offset %s", r->matchers,
		 r->q->window);
	if ((ret = promreader_query(r, &q, promql)))
		return ret;
	/* a restart inside the window, though its counters may not have gone down */
	q.part = 2;
	promreader_range(r, promql, "changes", "permscope_start_time_seconds", " > 0");
	if ((ret = promreader_query(r, &q, promql)))
		return ret;
	for (size_t i = 0; !ret && i < r->side->nhosts; i++) {
		struct promsource_host *h = &r->side->hosts[i];

		if (!isfinite(h->started))
			ret = reasons_add(&h->why, "no permscope_start_time_seconds at the window's "
					 "end: what its counters count from is unknown (a host "
					 "that stopped reporting inside the window?)");
		else if (h->restarts || (isfinite(h->started_before) &&
					 fabs(h->started_before - h->started) > 1e-3))
			ret = reasons_add(&h->why, "its daemon restarted inside the window (last at "
					 "%s): what the earlier run counted is not all in its "
					 "counters", format_utc_s(h->started, b, sizeof(b)));
		else if (!isfinite(h->started_before) && h->started < window_start)
			ret = reasons_add(&h->why, "no sample of it near the window's start (%s), "
					 "though its daemon ran since %s: what it counted before "
					 "the window cannot be told from what it counted inside",
					 format_utc_s(window_start, a, sizeof(a)),
					 format_utc_s(h->started, b, sizeof(b)));
	}
	return ret;
}

/*
 * The hosts that reported in the window before this one, [T - 2W, T - W]:
 * one of them with no series at all in this window is a host the side
 * lost (a canary that crashed, a store that did not answer), and a side
 * judged without it is judged on part of itself.
 */
int promcover_gone(struct promreader *r)
{
	struct promsource_side *side = r->side;
	struct promside_query q = { .series = "permscope_start_time_seconds", .take = take_gone };
	char promql[PROMREADER_QUERY_MAX];
	size_t before = side->nhosts;
	int ret;

	promside_keep(&q, "instance");
	promside_keep(&q, "job");
	snprintf(promql, PROMREADER_QUERY_MAX, "max_over_time(permscope_start_time_seconds{%s}[%s] offset %s)",
		 r->matchers, r->q->window, r->q->window);
	if ((ret = promreader_query(r, &q, promql)))
		return ret;
	/* the hosts promside_take() added are the ones this window did not hold */
	for (size_t i = before; !ret && i < side->nhosts; i++)
		ret = reasons_add(&side->why, "host %s reported in the window before this one but "
				 "has no series in it: a side is not judged without a host it "
				 "had", side->hosts[i].instance);
	for (size_t i = before; i < side->nhosts; i++) {
		profile_free(&side->hosts[i].profile);
		reasons_free(&side->hosts[i].why);
		reasons_free(&side->hosts[i].losses);
	}
	side->nhosts = before;
	return ret;
}


/* The queries of promcover_observed(), in its order (promside_query.part). */
enum observed_part { OBS_SECONDS, OBS_WINDOWS, OBS_WINDOW, OBS_PERIOD };

/* No daemon watched for a century, nor cycles that slowly. */
#define OBSERVED_MAX_NS (3200000000ULL * 1000000000ULL)

static int take_observed(struct promside_query *q, struct promsource_host *h,
			 const struct promanswer_sample *s)
{
	const char *fname = promside_label(q, s, "family");
	int f = fname ? family_by_name(fname) : -1;
	struct observation *o;
	const char *outcome;
	__u64 n;

	if (f < 0)
		return 0; /* a family this build does not know: none of its counts is read */
	o = &h->profile.fam[f].observed;
	if (q->part == OBS_WINDOWS) { /* counted or failed */
		if (promside_count(s, &n))
			return promside_not_a_count(q, h, s, "not a count of windows");
		outcome = promside_label(q, s, "outcome");
		if (outcome && !strcmp(outcome, "counted"))
			o->windows = n;
		else if (outcome && !strcmp(outcome, "failed"))
			o->failed = n;
		return 0;
	}
	/* seconds, as a latency sum is: a number, finite, not negative, into ns */
	if (promside_sum(s, &n) || n > OBSERVED_MAX_NS) {
		char val[4 * PROMANSWER_VALUE_MAX + 1];

		return reasons_once(&h->why, "a value that is no number of seconds", " in %s: \"%s\"",
				   q->series, escape_text(s->value, val, sizeof(val)));
	}
	if (q->part == OBS_SECONDS)
		o->ns = n;
	else if (q->part == OBS_WINDOW)
		o->window_ns = n;
	else
		o->period_ns = n;
	return 0;
}

int promcover_observed(struct promreader *r)
{
	static const struct {
		const char *series, *fn; /* fn: a gauge's max over the window, else a count */
	} part[] = {
		[OBS_SECONDS] = { "permscope_observed_seconds_total", NULL },
		[OBS_WINDOWS] = { "permscope_observe_windows_total", NULL },
		[OBS_WINDOW] = { "permscope_duty_cycle_window_seconds", "max_over_time" },
		[OBS_PERIOD] = { "permscope_duty_cycle_period_seconds", "max_over_time" },
	};
	char promql[PROMREADER_QUERY_MAX];
	int ret = 0;

	for (int i = 0; !ret && i < (int)(sizeof(part) / sizeof(part[0])); i++) {
		struct promside_query q = { .series = part[i].series, .take = take_observed,
					    .part = i };

		promside_keep(&q, "instance");
		promside_keep(&q, "job");
		promside_keep(&q, "family");
		promside_keep(&q, "outcome");
		if (part[i].fn)
			promreader_range(r, promql, part[i].fn, part[i].series, "");
		else
			promreader_count(r, promql, part[i].series, "");
		ret = promreader_query(r, &q, promql);
	}
	/* a window and its period come together, the window the shorter */
	for (size_t i = 0; !ret && i < r->side->nhosts; i++) {
		struct promsource_host *h = &r->side->hosts[i];

		for (int f = 0; !ret && f < FAMILY_COUNT; f++) {
			const struct observation *o = &h->profile.fam[f].observed;

			if (!o->window_ns != !o->period_ns ||
			    (o->period_ns && o->window_ns >= o->period_ns))
				ret = reasons_add(&h->why, "its %s family's duty cycle is none: a "
						 "window of %.6g s every %.6g s", family_name(f),
						 o->window_ns / 1e9, o->period_ns / 1e9);
		}
	}
	return ret;
}
