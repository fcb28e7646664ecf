// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope daemon: its options, their checks and its help.  What it does
 * once they are known is the engine's (src/run/daemon.h).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "run/daemon.h"
#include "run/dutycycle.h"
#include "prom/http.h"
#include "prom/promnames.h"
#include "statedir.h"
#include "util.h"
#include "prom/webconfig.h"

#define DEFAULT_INTERVAL_S 60.0
#define DEFAULT_KEEP 60

enum { OPT_INTERVAL = 0x200, OPT_STATE_DIR, OPT_KEEP, OPT_LISTEN, OPT_LOG, OPT_WEB_CONFIG,
       OPT_BUCKETS, OPT_BPF_STATS, OPT_DUTY_CYCLE };

static const struct argp_option daemon_options[] = {
	{ "interval", OPT_INTERVAL, "SECONDS", 0,
	  "Write a snapshot every SECONDS (default: 60; at least 0.1)", 0 },
	{ "state-dir", OPT_STATE_DIR, "DIR", 0,
	  "Where snapshots go (default: " STATEDIR_DEFAULT "; created 0750, locked)", 0 },
	{ "keep", OPT_KEEP, "K", 0,
	  "Keep the newest K snapshots, delete older ones (default: 60)", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve /metrics on ADDR:PORT (default: " HTTP_DEFAULT_LISTEN ", loopback only; "
	  ":PORT and localhost:PORT are loopback too; all interfaces only as 0.0.0.0:PORT "
	  "or [::]:PORT; port 0 picks a free one)", 0 },
	/* node_exporter's names, as its users type them */
	{ "web.listen-address", OPT_LISTEN, "ADDR:PORT", OPTION_HIDDEN, 0, 0 },
	{ "log", OPT_LOG, "FILE", 0,
	  "Append log lines to FILE, reopened on SIGHUP (default: stderr)", 0 },
	{ "web-config", OPT_WEB_CONFIG, "FILE", 0,
	  "TLS and basic auth for /metrics, in Prometheus exporter-toolkit's web config "
	  "format (docs/daemon.md)", 0 },
	{ "web.config.file", OPT_WEB_CONFIG, "FILE", OPTION_HIDDEN, 0, 0 },
	{ "buckets", OPT_BUCKETS, "LIST", 0,
	  "The latency histograms' bucket bounds on /metrics: bounds and FROM..TO ranges, "
	  "comma-separated, each a power of two of nanoseconds (128ns, 1.024us, 2^20), or "
	  "'all' (default: " PROM_BUCKETS_DEFAULT_TEXT ")", 0 },
	{ "duty-cycle", OPT_DUTY_CYCLE, "WINDOW/PERIOD", 0,
	  "Count for WINDOW seconds in every PERIOD, with the hooks detached between "
	  "windows so the probed calls cost nothing then; 'always' (or '100%') counts "
	  "every call (default: " DUTY_CYCLE_DEFAULT ")", 0 },
	{ "bpf-stats", OPT_BPF_STATS, 0, 0,
	  "Export each BPF program's run count and run time (BPF_ENABLE_STATS: needs "
	  "CAP_SYS_ADMIN or sysctl kernel.bpf_stats_enabled=1; costs two clock reads "
	  "a run)", 0 },
	{ 0 },
};

static error_t daemon_parse(int key, char *arg, struct argp_state *state)
{
	struct daemon_opts *c = state->input;
	char *end, why[256];
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
	case OPT_WEB_CONFIG:
		if (!*arg)
			argp_error(state, "--web-config: empty path");
		c->web_config = arg;
		break;
	case OPT_BUCKETS:
		c->buckets_arg = arg;
		break;
	case OPT_BPF_STATS:
		c->bpf_stats = true;
		break;
	case OPT_DUTY_CYCLE:
		if (duty_cycle_parse(arg, &c->window_ns, &c->period_ns, why, sizeof(why)))
			argp_error(state, "--duty-cycle: %s", why);
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
	{ &daemon_record_argp, 0, "What to count:", 1 },
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
	"Duty cycle: by default (" DUTY_CYCLE_DEFAULT ") the families count for 0.2 s "
	"in every 30 s and have their hooks detached in between, so a probed call "
	"costs nothing most of the time (under 2 % on average on every pinned "
	"kernel, docs/daemon.md): the counts are exact for the windows they cover, "
	"and permscope_observed_seconds_total says how long that was; a rate is per "
	"second watched, not per wall-clock second.  --duty-cycle always counts every "
	"call, at the full cost.\n\n"
	"Metrics (docs/metrics.md): permscope_access_calls_total{outcome=...}, "
	"permscope_exec_calls_total{outcome=...}, permscope_lookup_checks_total{fs=...}, "
	"latency histograms in seconds, permscope_lost_events_total, ...  The "
	"endpoint serves GET and HEAD of /metrics only; an address other than "
	"loopback is used only when given.\n\n"
	"Examples:\n"
	"  permscope daemon                          defaults: 60 s, /var/lib/permscope,\n"
	"                                            0.2 s counted in every 30 s\n"
	"  permscope daemon --interval 10 --keep 360 --families access,exec\n"
	"  permscope daemon --duty-cycle always      every call, at the full cost\n"
	"  curl -s localhost:23649/metrics | grep permscope_access_calls_total\n"
	"  permscope report /var/lib/permscope       the newest running total\n"
	"  permscope compare DIR/snap-00000001-*.delta.json \\\n"
	"                    DIR/snap-00000060-*.delta.json\n",
	daemon_children, 0, 0,
};

int cmd_daemon(int argc, char **argv)
{
	struct daemon_opts c = {
		.interval_s = DEFAULT_INTERVAL_S, .state_dir = STATEDIR_DEFAULT,
		.keep = DEFAULT_KEEP, .listen = HTTP_DEFAULT_LISTEN,
	};
	char err[2 * PATH_MAX + 512];
	struct sockaddr_storage ss;
	struct webconfig web;
	socklen_t sslen;
	int ret;

	record_opts_init(&c.rec);
	duty_cycle_parse(DUTY_CYCLE_DEFAULT, &c.window_ns, &c.period_ns, err, sizeof(err));
	parse_command(&daemon_argp, argc, argv, &c);
	/* Bad --listen is bad usage: say so before attaching anything. */
	if (http_parse_listen(c.listen, &ss, &sslen, err, sizeof(err))) {
		pr_err("--listen %s: %s", c.listen, err);
		return EXIT_USAGE;
	}
	if (c.buckets_arg && prom_buckets_parse(c.buckets_arg, &c.buckets, err, sizeof(err))) {
		pr_err("--buckets %s: %s", c.buckets_arg, err);
		return EXIT_USAGE;
	}
	if (c.rec.pid && kill(c.rec.pid, 0) && errno == ESRCH) {
		pr_err("--pid %d: no such process", c.rec.pid);
		return EXIT_USAGE;
	}
	/* A bad web config is bad usage, told before anything is attached or made. */
	if (c.web_config) {
		if (webconfig_load(&web, c.web_config, err, sizeof(err))) {
			pr_err("--web-config %s", err); /* "FILE: [line L, column C: ]what" */
			webconfig_free(&web);
			return EXIT_USAGE;
		}
		if (web.tls && !http_tls_supported()) {
			pr_err("--web-config %s: this libmicrohttpd was built without TLS (GnuTLS) "
			       "support, which tls_server_config needs", c.web_config);
			webconfig_free(&web);
			return EXIT_FAIL;
		}
		c.web = &web;
	}
	if (!families_may_load("daemon", NULL))
		ret = EXIT_FAIL; /* before the log and the state directory are made */
	else
		ret = daemon_run(&c);
	if (c.web)
		webconfig_free(&web);
	return ret;
}
