/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's engine (its command line is src/cmd/cmd_daemon.c): attach once,
 * count in the windows of its duty cycle (or always), every interval write a snapshot (the running total and the
 * interval's delta) into a state directory, and serve the running total as
 * Prometheus metrics until SIGTERM.
 */
#ifndef PERMSCOPE_DAEMON_H
#define PERMSCOPE_DAEMON_H

#include <stdbool.h>

#include "run/record.h"

struct daemon_opts {
	struct record_opts rec; /* what to count; rec.duration_s > 0 stops it as SIGTERM would */
	double interval_s;      /* between snapshots */
	const char *state_dir;
	unsigned int keep;      /* snapshots kept in state_dir */
	const char *listen;     /* ADDR:PORT, already checked by http_parse_listen() */
	const char *buckets_arg; /* --buckets as given, parsed into buckets */
	const char *log_path;   /* NULL: stderr */
	const char *web_config; /* --web-config FILE; NULL: none */
	struct webconfig *web;  /* that file, loaded (src/prom/webconfig.h); NULL: none */
	uint64_t buckets;       /* latency bounds /metrics exports (prom_buckets_parse()); 0: default */
	bool bpf_stats;         /* --bpf-stats: the programs' run counts and times */
	uint64_t window_ns, period_ns; /* --duty-cycle (src/run/dutycycle.h); period 0: always on */
};

/*
 * Open the log and the state directory, attach, serve /metrics and write
 * snapshots until SIGTERM, SIGINT or rec.duration_s, then detach.  Takes
 * SIGTERM, SIGINT and SIGHUP (reopen the log) while it runs.  Returns an
 * exit status, after saying why: EXIT_USAGE for a log or a state directory
 * that cannot be used, EXIT_FAIL for one another daemon holds, nothing
 * attached, no endpoint or a snapshot that failed.
 */
int daemon_run(const struct daemon_opts *o);

#endif
