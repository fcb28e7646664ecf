/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What each host's counts of a side cover, read through promquery.h into
 * the side promsource_read() is filling: from when they count, the hosts
 * the window lost, and how long each family watched.
 */
#ifndef PERMSCOPE_PROMCOVER_H
#define PERMSCOPE_PROMCOVER_H

#include "prom/promquery.h"

/*
 * permscope_start_time_seconds at the window's end and at its start: a
 * reason for each host whose counters do not count from the window's
 * start or its daemon's (a restart, no sample near the start).
 */
int promcover_starts(struct promreader *r, double window_start);
/* A reason of the side for each host of the window before with no series in this one. */
int promcover_gone(struct promreader *r);
/*
 * Each family's observation (profile.h): the seconds watched inside the
 * window (permscope_observed_seconds_total), a duty cycle's window and
 * period (permscope_duty_cycle_{window,period}_seconds: none for an
 * always-on daemon) and its windows counted and failed.  A daemon too old
 * to export them leaves them 0: its counts watched the whole window.
 */
int promcover_observed(struct promreader *r);

#endif
