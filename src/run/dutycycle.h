/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's duty cycle (--duty-cycle WINDOW/PERIOD): the families count
 * for WINDOW seconds at the start of every PERIOD and have their hooks
 * detached for the rest, so a kernel path pays for the probes only a
 * WINDOW/PERIOD share of the time.  The counts stay exact for the time
 * they cover, and each family keeps how long that was (struct
 * observation), so rates are per second watched.
 */
#ifndef PERMSCOPE_DUTYCYCLE_H
#define PERMSCOPE_DUTYCYCLE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/*
 * The daemon's default: 0.2 s in every 30 s, 0.67 % of the time.  What a
 * window costs is the hooks' cost while attached and a fixed part, the
 * kernel's work to attach and detach them (ftrace updates, trampolines):
 * on 6.1 and 6.12 the fixed part of a window is about 1.5 % of 15 s, so a
 * 15 s period could not stay within 2 % (docs/daemon.md, "Duty cycle",
 * measured by make bench-vm).
 */
#define DUTY_CYCLE_DEFAULT "0.2/30"
/* Windows shorter than this are mostly attach and detach. */
#define DUTY_WINDOW_MIN_NS 50000000ULL
#define DUTY_PERIOD_MAX_NS (86400ULL * 1000000000ULL)

/*
 * "always" or "100%": always on (both 0); "W/P": seconds, W at least 0.05,
 * below P, P at most a day.  0, or -EINVAL with WHY saying what is wrong.
 */
int duty_cycle_parse(const char *arg, uint64_t *window_ns, uint64_t *period_ns, char *why,
		     size_t len);
/* "always on" or "0.2 s in every 15 s (1.3 % of the time)" */
void duty_cycle_describe(uint64_t window_ns, uint64_t period_ns, char *buf, size_t len);

/*
 * What the cycle does to a family; the daemon's are family_count(),
 * family_detach_hooks() and family_attach_hooks().  Every family stops
 * counting before any is detached, and starts only once all are back, so
 * the families of one window watch the same time.
 */
struct duty_hooks {
	void (*count)(void *ctx, enum family_id f, __u32 window); /* 0: stop */
	void (*detach)(void *ctx, enum family_id f);
	int (*attach)(void *ctx, enum family_id f, char *why, size_t len);
	uint64_t (*now)(void *ctx); /* CLOCK_MONOTONIC ns */
	void *ctx;
};

struct duty_family {
	bool on;       /* attached at the start: takes part */
	bool counting; /* attached now, since open_ns */
	uint64_t open_ns;
	struct observation seen; /* closed windows; the open one is added by duty_cycle_observed() */
	bool failing;  /* its last resume failed (said once, until one succeeds) */
};

struct duty_cycle {
	uint64_t window_ns, period_ns; /* period 0: always on */
	uint64_t start_ns;             /* the grid: windows open at start + k * period */
	uint64_t next_ns;              /* the next pause or resume; UINT64_MAX: none */
	bool paused;
	__u32 window;                  /* the number of the newest window, from 1 */
	struct duty_family fam[FAMILY_COUNT];
};

/*
 * Begin at hooks->now(), every family in ON attached and counting (window
 * 1, the one the families were loaded in).
 */
void duty_cycle_start(struct duty_cycle *c, uint64_t window_ns, uint64_t period_ns,
		      const bool on[FAMILY_COUNT], const struct duty_hooks *h);
/*
 * Pause or resume when due (a loop that comes late skips the windows it
 * missed, never bunches them), saying once why a family could not come
 * back.  Returns the monotonic time of the next step.
 */
uint64_t duty_cycle_step(struct duty_cycle *c, const struct duty_hooks *h);
/* Each family's observation up to NOW into p->fam[].observed. */
void duty_cycle_observed(const struct duty_cycle *c, uint64_t now, struct profile *p);

#endif
