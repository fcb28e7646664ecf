// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The duty cycle behind src/run/dutycycle.h.  The time a family watched is
 * measured from the moment every hook of the window is back (only then do
 * the programs count) to the moment they stop counting, before any hook is
 * detached: the attach and detach themselves are never counted as
 * watched, so a rate per observed second is never diluted by them.
 */
#include "run/dutycycle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Seconds as digits with at most one '.', into ns; false for anything else. */
static bool parse_seconds(const char *s, size_t n, uint64_t *ns)
{
	char buf[32];
	int dots = 0, digits = 0;
	double v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else
			return false;
	}
	if (dots > 1 || !digits)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	v = strtod(buf, NULL);
	if (!(v >= 0) || v > DUTY_PERIOD_MAX_NS / 1e9 + 1)
		return false;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return true;
}

int duty_cycle_parse(const char *arg, uint64_t *window_ns, uint64_t *period_ns, char *why,
		     size_t len)
{
	const char *slash = strchr(arg, '/');
	uint64_t w, p;

	if (!strcmp(arg, "always") || !strcmp(arg, "100%")) {
		*window_ns = *period_ns = 0;
		return 0;
	}
	if (!slash || !parse_seconds(arg, slash - arg, &w) ||
	    !parse_seconds(slash + 1, strlen(slash + 1), &p)) {
		snprintf(why, len, "'%s' is not WINDOW/PERIOD in seconds (like %s), 'always' or "
			 "'100%%'", printable(arg), DUTY_CYCLE_DEFAULT);
		return -EINVAL;
	}
	if (w < DUTY_WINDOW_MIN_NS) {
		snprintf(why, len, "a window of %g s is too short: at least %g s, or the attach "
			 "and detach take most of it", w / 1e9, DUTY_WINDOW_MIN_NS / 1e9);
		return -EINVAL;
	}
	if (w >= p) {
		snprintf(why, len, "the window (%g s) must be shorter than the period (%g s); "
			 "for every call, 'always'", w / 1e9, p / 1e9);
		return -EINVAL;
	}
	if (p > DUTY_PERIOD_MAX_NS) {
		snprintf(why, len, "a period of %g s is over a day (%llu s)", p / 1e9,
			 DUTY_PERIOD_MAX_NS / 1000000000ULL);
		return -EINVAL;
	}
	*window_ns = w;
	*period_ns = p;
	return 0;
}

void duty_cycle_describe(uint64_t window_ns, uint64_t period_ns, char *buf, size_t len)
{
	if (!period_ns)
		snprintf(buf, len, "always on");
	else
		snprintf(buf, len, "%g s in every %g s (%.2g %% of the time)", window_ns / 1e9,
			 period_ns / 1e9, 100.0 * window_ns / period_ns);
}

void duty_cycle_start(struct duty_cycle *c, uint64_t window_ns, uint64_t period_ns,
		      const bool on[FAMILY_COUNT], const struct duty_hooks *h)
{
	uint64_t now = h->now(h->ctx);

	memset(c, 0, sizeof(*c));
	c->window_ns = period_ns ? window_ns : 0;
	c->period_ns = period_ns;
	c->start_ns = now;
	c->window = 1;
	c->next_ns = period_ns ? now + window_ns : UINT64_MAX;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		struct duty_family *df = &c->fam[f];

		if (!on[f])
			continue;
		df->on = df->counting = true;
		df->open_ns = now;
		df->seen.window_ns = c->window_ns;
		df->seen.period_ns = period_ns;
		df->seen.windows = period_ns ? 1 : 0;
	}
}

static void pause_all(struct duty_cycle *c, const struct duty_hooks *h)
{
	uint64_t t = h->now(h->ctx);

	for (int f = 0; f < FAMILY_COUNT; f++)
		if (c->fam[f].counting)
			h->count(h->ctx, f, 0);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		struct duty_family *df = &c->fam[f];

		if (!df->counting)
			continue;
		h->detach(h->ctx, f);
		df->seen.ns += t - df->open_ns;
		df->counting = false;
	}
	c->paused = true;
}

static void resume_all(struct duty_cycle *c, const struct duty_hooks *h)
{
	bool back[FAMILY_COUNT] = { 0 };
	char why[256];
	uint64_t t;

	if (++c->window == 0)
		c->window = 1; /* 0 means paused to the programs */
	for (int f = 0; f < FAMILY_COUNT; f++) {
		struct duty_family *df = &c->fam[f];
		int err;

		if (!df->on)
			continue;
		why[0] = 0;
		err = h->attach(h->ctx, f, why, sizeof(why));
		if (err) {
			df->seen.failed++;
			if (!df->failing)
				pr_warn("%s: window %u not counted: %s (counted as failed; said once "
					"until a window attaches again)", family_name(f), c->window,
					why[0] ? why : strerror(-err));
			df->failing = true;
			continue;
		}
		if (df->failing)
			pr_info("%s: attached again in window %u", family_name(f), c->window);
		df->failing = false;
		back[f] = true;
	}
	t = h->now(h->ctx);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!back[f])
			continue;
		h->count(h->ctx, f, c->window);
		c->fam[f].counting = true;
		c->fam[f].open_ns = t;
		c->fam[f].seen.windows++;
	}
	c->paused = false;
}

uint64_t duty_cycle_step(struct duty_cycle *c, const struct duty_hooks *h)
{
	uint64_t now = h->now(h->ctx), slot;

	if (!c->period_ns || now < c->next_ns)
		return c->next_ns;
	slot = (now - c->start_ns) / c->period_ns;
	if (!c->paused) {
		pause_all(c, h);
		c->next_ns = c->start_ns + (slot + 1) * c->period_ns;
		return c->next_ns;
	}
	/* A loop that wakes after this slot's window has closed skips it. */
	if (now < c->start_ns + slot * c->period_ns + c->window_ns) {
		resume_all(c, h);
		c->next_ns = c->start_ns + slot * c->period_ns + c->window_ns;
	} else {
		c->next_ns = c->start_ns + (slot + 1) * c->period_ns;
	}
	return c->next_ns;
}

void duty_cycle_observed(const struct duty_cycle *c, uint64_t now, struct profile *p)
{
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct duty_family *df = &c->fam[f];

		if (!df->on)
			continue;
		p->fam[f].observed = df->seen;
		if (df->counting && now > df->open_ns)
			p->fam[f].observed.ns += now - df->open_ns;
	}
}
