// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope daemon: attach once, then every interval write a snapshot (the
 * running total and the interval's delta) into a state directory, and serve
 * the running total as Prometheus metrics until SIGTERM.
 *
 * Two threads: this one takes signals and writes snapshots; libmicrohttpd's
 * serves /metrics, reading the maps into a profile of its own per scrape.
 * They share only the attached families (read-only: reading a map is a
 * syscall) and the snapshot counters, under `lock`.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "http.h"
#include "prom.h"
#include "record.h"
#include "statedir.h"
#include "util.h"

#define DEFAULT_INTERVAL_S 60.0
#define DEFAULT_KEEP 60

struct daemon_cmd {
	struct record_opts rec;
	double interval_s;
	const char *state_dir;
	unsigned int keep;
	const char *listen;
	const char *log_path;
};

enum { OPT_INTERVAL = 0x200, OPT_STATE_DIR, OPT_KEEP, OPT_LISTEN, OPT_LOG };

static const struct argp_option daemon_options[] = {
	{ "interval", OPT_INTERVAL, "SECONDS", 0,
	  "Write a snapshot every SECONDS (default: 60; at least 0.1)", 0 },
	{ "state-dir", OPT_STATE_DIR, "DIR", 0,
	  "Where snapshots go (default: " STATEDIR_DEFAULT "; created 0750, locked)", 0 },
	{ "keep", OPT_KEEP, "K", 0,
	  "Keep the newest K snapshots, delete older ones (default: 60)", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve /metrics on ADDR:PORT (default: " HTTP_DEFAULT_LISTEN ", loopback only; "
	  "port 0 picks a free one)", 0 },
	{ "log", OPT_LOG, "FILE", 0,
	  "Append log lines to FILE, reopened on SIGHUP (default: stderr)", 0 },
	{ 0 },
};

static error_t daemon_parse(int key, char *arg, struct argp_state *state)
{
	struct daemon_cmd *c = state->input;
	char *end;
	double d;
	unsigned long k;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->rec;
		break;
	case OPT_INTERVAL:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || *end || !isfinite(d) || d < 0.1 || d > 86400)
			argp_error(state, "invalid interval '%s' (expected seconds, 0.1 to 86400)",
				   arg);
		c->interval_s = d;
		break;
	case OPT_STATE_DIR:
		if (!*arg)
			argp_error(state, "--state-dir: empty path");
		c->state_dir = arg;
		break;
	case OPT_KEEP:
		errno = 0;
		k = strtoul(arg, &end, 10);
		if (errno || *end || arg[0] == '-' || k < 1 || k > 1000000)
			argp_error(state, "invalid --keep '%s' (expected 1 to 1000000 snapshots)", arg);
		c->keep = k;
		break;
	case OPT_LISTEN:
		c->listen = arg;
		break;
	case OPT_LOG:
		c->log_path = arg;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s' (the daemon watches the machine, or "
			   "what --pid, --comm, --cgroup select; it runs no command)", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -q and -v under one heading; they set globals and take no input. */
static const struct argp_child daemon_log_children[] = {
	{ &quiet_argp, 0, 0, 0 },
	{ &bpf_verbose_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp daemon_log_argp = { 0, 0, 0, 0, daemon_log_children, 0, 0 };

static const struct argp_child daemon_children[] = {
	{ &record_argp, 0, "What to count:", 1 },
	{ &daemon_log_argp, 0, "Log:", 2 },
	{ 0 },
};

static const struct argp daemon_argp = {
	daemon_options, daemon_parse, 0,
	"Attach the probe families once (as record does), then every --interval "
	"write a snapshot into the state directory and serve the running totals "
	"as Prometheus metrics on /metrics, until SIGTERM or Ctrl-C.\v"
	"Snapshots: each interval writes DIR/snap-SEQ-TIME.total.json (everything "
	"since the daemon attached) and DIR/snap-SEQ-TIME.delta.json (that "
	"interval alone), atomically; the newest --keep pairs stay.  report, "
	"compare and gate take DIR itself for its newest total, or any snapshot.  "
	"SIGTERM and SIGINT write a final snapshot and stop; SIGHUP reopens --log.  "
	"A second daemon on the same DIR refuses to start.  -d SECONDS stops after "
	"that long, as SIGTERM would.\n\n"
	"Metrics (docs/metrics.md): permscope_access_calls_total{outcome=...}, "
	"permscope_exec_calls_total{outcome=...}, permscope_lookup_checks_total{fs=...}, "
	"latency histograms in seconds, permscope_lost_events_total, ...  The "
	"endpoint serves GET and HEAD of /metrics only; an address other than "
	"loopback is used only when given.\n\n"
	"Examples:\n"
	"  permscope daemon                          defaults: 60 s, /var/lib/permscope\n"
	"  permscope daemon --interval 10 --keep 360 --families access,exec\n"
	"  curl -s localhost:9464/metrics | grep permscope_access_calls_total\n"
	"  permscope report /var/lib/permscope       the newest running total\n"
	"  permscope compare DIR/snap-00000001-*.delta.json DIR/snap-00000060-*.delta.json\n",
	daemon_children, 0, 0,
};

struct daemon {
	struct recorder rec;
	struct profile base; /* host, filters, how each family attached; no counts */
	pthread_mutex_t lock;
	struct prom_daemon stats; /* under lock */
};

/* The metrics thread's view: the maps read now, on every scrape. */
static char *render_metrics(void *ctx, size_t *len)
{
	struct daemon *d = ctx;
	struct prom_daemon stats;
	struct profile p;
	char *body = NULL;

	if (profile_copy(&p, &d->base))
		return NULL;
	p.end_ns = now_realtime_ns();
	if (recorder_collect(&d->rec, &p) == 0) {
		pthread_mutex_lock(&d->lock);
		stats = d->stats;
		pthread_mutex_unlock(&d->lock);
		body = prom_render(&p, &stats, len);
	}
	profile_free(&p);
	return body;
}

/*
 * Read the running totals into `total`, write them and their difference
 * from `prev` (the previous snapshot's totals) as the next snapshot.
 */
static int snapshot(struct daemon *d, struct statedir *sd, const struct profile *prev,
		    struct profile *total)
{
	char name[PATH_MAX + 64];
	struct profile delta = { 0 };
	int err;

	/* whatever fails, total is left a profile with an end time: serve() keeps it as prev */
	err = profile_copy(total, &d->base);
	total->end_ns = now_realtime_ns();
	if (!err)
		err = recorder_collect(&d->rec, total);
	if (!err)
		err = profile_copy(&delta, total);
	delta.start_ns = prev->end_ns;
	if (!err)
		err = profile_sub(&delta, prev);
	if (!err)
		err = statedir_snapshot(sd, total, &delta, name, sizeof(name));
	profile_free(&delta);
	pthread_mutex_lock(&d->lock);
	if (err) {
		d->stats.snapshot_errors++;
	} else {
		d->stats.snapshots_written++;
		d->stats.last_snapshot_ns = total->end_ns;
	}
	pthread_mutex_unlock(&d->lock);
	if (err)
		pr_err("snapshot into %s failed: %s (the metrics go on; the next interval tries "
		       "again)", sd->path, strerror(-err));
	else if (verbosity > 0)
		pr_info("snapshot %s", name);
	return err;
}

/* SIGHUP: logrotate has moved the log away; start a new one under --log's name. */
static void reopen_log(const char *path)
{
	int err;

	if (!path) {
		pr_info("SIGHUP: logging to stderr, nothing to reopen");
		return;
	}
	err = log_open(path);
	if (err)
		pr_err("SIGHUP: cannot reopen log %s: %s (still writing to the old one)", path,
		       strerror(-err));
	else
		pr_info("SIGHUP: log reopened");
}

/* Run until SIGTERM/SIGINT or -d; a snapshot at every tick and a last one at the end. */
static int serve(struct daemon *d, struct statedir *sd, const struct daemon_cmd *c,
		 const sigset_t *set)
{
	uint64_t interval = (uint64_t)(c->interval_s * 1e9), start = now_monotonic_ns();
	uint64_t next = start + interval;
	uint64_t stop = c->rec.duration_s > 0 ? start + (uint64_t)(c->rec.duration_s * 1e9) : 0;
	struct profile prev, total;
	int errors = 0;

	/* Before the first interval: nothing counted, nothing lost, and both known. */
	if (profile_copy(&prev, &d->base)) {
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	prev.end_ns = d->base.start_ns;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		prev.fam[f].lost_known = true;
		prev.fam[f].nlost = 0;
	}
	for (;;) {
		uint64_t now = now_monotonic_ns(), until = stop && stop < next ? stop : next;
		struct timespec ts;
		int sig = 0;

		if (now < until) {
			ts.tv_sec = (until - now) / 1000000000ULL;
			ts.tv_nsec = (until - now) % 1000000000ULL;
			sig = sigtimedwait(set, NULL, &ts);
			if (sig < 0 && errno != EAGAIN)
				continue; /* EINTR: a signal we do not take */
		}
		if (sig == SIGHUP) {
			reopen_log(c->log_path);
			continue;
		}
		if (sig <= 0 && now_monotonic_ns() < until)
			continue;
		errors += snapshot(d, sd, &prev, &total) != 0;
		profile_free(&prev);
		prev = total;
		if (sig == SIGTERM || sig == SIGINT || (stop && now_monotonic_ns() >= stop)) {
			pr_info("%s: final snapshot written, stopping",
				sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "--duration");
			break;
		}
		/* Ticks stay on the start's grid; a slow snapshot skips ticks, never bunches them. */
		now = now_monotonic_ns();
		while (next <= now)
			next += interval;
	}
	profile_free(&prev);
	return errors ? EXIT_FAIL : EXIT_OK;
}

int cmd_daemon(int argc, char **argv)
{
	struct daemon_cmd c = {
		.interval_s = DEFAULT_INTERVAL_S, .state_dir = STATEDIR_DEFAULT,
		.keep = DEFAULT_KEEP, .listen = HTTP_DEFAULT_LISTEN,
	};
	struct daemon d = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct probe_opts probe;
	struct http_server *srv = NULL;
	struct statedir sd;
	char err[PATH_MAX + 256], families[256];
	struct sockaddr_storage ss;
	socklen_t sslen;
	sigset_t set, oldmask;
	int ret;

	record_opts_init(&c.rec);
	parse_command(&daemon_argp, argc, argv, &c);
	/* Bad --listen is bad usage: say so before attaching anything. */
	if (http_parse_listen(c.listen, &ss, &sslen, err, sizeof(err))) {
		pr_err("--listen %s: %s", c.listen, err);
		return EXIT_USAGE;
	}
	if (c.rec.pid && kill(c.rec.pid, 0) && errno == ESRCH) {
		pr_err("--pid %d: no such process", c.rec.pid);
		return EXIT_USAGE;
	}
	if (!families_may_load("daemon", NULL))
		return EXIT_FAIL; /* before the log and the state directory are made */
	log_detect_journal();
	if (c.log_path && (ret = log_open(c.log_path))) {
		/* log_open() opens with O_NOFOLLOW: ELOOP is a symlink at the path */
		pr_err("cannot open log %s: %s", c.log_path, ret == -ELOOP ?
		       "a symbolic link (never followed; name the file it points to)" : strerror(-ret));
		return EXIT_USAGE;
	}
	if (statedir_open(&sd, c.state_dir, c.keep, err, sizeof(err))) {
		pr_err("%s", err);
		/* a DIR that is no directory, or unsafe, is bad usage; another daemon on it is not */
		return sd.busy ? EXIT_FAIL : EXIT_USAGE;
	}

	/* Blocked before the HTTP thread starts, so it inherits the mask and signals come here. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &oldmask);
	signal(SIGPIPE, SIG_IGN);

	record_profile_init(&c.rec, &d.base);
	probe = c.rec.probe;
	probe.filter_tasks = c.rec.pid != 0;
	if (c.rec.pid)
		probe.track[probe.ntrack++] = c.rec.pid;
	ret = recorder_attach(&d.rec, &probe, &d.base);
	if (ret != EXIT_OK)
		goto out;
	d.base.start_ns = now_realtime_ns();

	srv = http_start(c.listen, render_metrics, &d, err, sizeof(err));
	if (!srv) {
		pr_err("%s", err); /* it names the address */
		ret = EXIT_FAIL;
		goto out;
	}
	if (!http_is_loopback(srv))
		pr_warn("metrics served on %s: reachable from other hosts, which learn this "
			"machine's kernel and workload counts", http_address(srv));
	recorder_describe(&d.base, families, sizeof(families));
	pr_info("permscope daemon %s (pid %d): %s", PERMSCOPE_VERSION, (int)getpid(), families);
	pr_info("snapshots every %g s into %s (the newest %u kept)", c.interval_s, sd.path, c.keep);
	/* Scripts and tests wait for this line: the endpoint answers from now on. */
	pr_info("listening on http://%s/metrics", http_address(srv));
	ret = serve(&d, &sd, &c, &set);
out:
	http_stop(srv); /* no scrape reads the maps once they go */
	recorder_detach(&d.rec);
	statedir_close(&sd);
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
