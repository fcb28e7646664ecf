// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --prometheus: compare and gate read both sides from a Prometheus, each
 * side the hosts a label selector picks (src/prom/promsource.c), each host one
 * run.  The options, the read of both sides, and the reasons a side cannot
 * be judged as text and JSON, written once for the two commands.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/commands.h"
#include "prom/promjudge.h"
#include "util.h"

#define DEFAULT_WINDOW "1h"
/*
 * A host is a run, and one run is judged as one profile file is: a rule
 * without 'significant' needs no more, and a 'significant' one already
 * gives no verdict, saying so, below the runs its test needs (Welch's t
 * 2 a side, Mann-Whitney 4).  What the default stops is a side of no
 * host at all: a selector that matches nothing.
 */
#define DEFAULT_MIN_HOSTS 1
#define STR_(x) #x
#define STR(x) STR_(x)

enum { OPT_PROMETHEUS = 0x500, OPT_WINDOW, OPT_AT, OPT_MIN_HOSTS, OPT_CA, OPT_CERT, OPT_KEY,
       OPT_USER, OPT_PASSWORD_FILE, OPT_TOKEN_FILE, OPT_TIMEOUT };

static const struct argp_option prom_source_options[] = {
	{ "prometheus", OPT_PROMETHEUS, "URL", 0, "Read both sides from the Prometheus at URL "
	  "(http:// or https://): BASE and NEW are label selectors, '{cohort=\"canary\"}', and "
	  "each host (instance) of a side is one run (docs/fleet.md)", 0 },
	{ "window", OPT_WINDOW, "DURATION", 0, "What each host counted over DURATION, a PromQL "
	  "one: 90s, 5m, 1h (default " DEFAULT_WINDOW ")", 0 },
	{ "at", OPT_AT, "TIME", 0, "The window's end: seconds since the epoch or "
	  "YYYY-MM-DDTHH:MM:SSZ (default: now; printed, so a run can be repeated)", 0 },
	{ "min-hosts", OPT_MIN_HOSTS, "N", 0, "A side with fewer hosts has no verdict "
	  "(default 1: a selector that matches no host)", 0 },
	{ "timeout", OPT_TIMEOUT, "SECONDS", 0, "The whole read from Prometheus, every query "
	  "of both sides, within SECONDS (default " STR(PROMCLIENT_TIMEOUT_S_INT) "); past it, "
	  "exit 4 and nothing judged", 0 },
	{ "prometheus-ca", OPT_CA, "FILE", 0, "Trust the CA certificates in FILE (PEM) "
	  "for an https:// URL, instead of the system's", 0 },
	{ "prometheus-cert", OPT_CERT, "FILE", 0, "Present the client certificate in FILE "
	  "(PEM), with --prometheus-key", 0 },
	{ "prometheus-key", OPT_KEY, "FILE", 0, "The client certificate's private key (PEM)", 0 },
	{ "prometheus-user", OPT_USER, "USER", 0, "Basic auth as USER, with "
	  "--prometheus-password-file", 0 },
	{ "prometheus-password-file", OPT_PASSWORD_FILE, "FILE", 0, "Basic auth's password: "
	  "FILE's first line (a file, so that no password shows in ps)", 0 },
	{ "prometheus-token-file", OPT_TOKEN_FILE, "FILE", 0, "Send FILE's first line as a "
	  "bearer token (Authorization: Bearer)", 0 },
	{ 0 },
};

/* TIME as seconds since the epoch, or 0 when it is none. */
static double parse_time(const char *arg)
{
	uint64_t ns;
	char *end;
	double t;

	errno = 0;
	t = strtod(arg, &end);
	if (!errno && !*end && t > 0 && isfinite(t))
		return t;
	return parse_utc_ns(arg, &ns) ? 0 : (double)ns / 1e9;
}

static error_t prom_source_parse(int key, char *arg, struct argp_state *state)
{
	struct prom_source_opts *o = state->input;
	char *end;
	long n;

	switch (key) {
	case OPT_PROMETHEUS:
		o->url = arg;
		break;
	case OPT_WINDOW:
		o->window = arg;
		break;
	case OPT_AT:
		if (!(o->at = parse_time(arg)))
			argp_error(state, "invalid --at '%s' (seconds since the epoch, or "
				   "YYYY-MM-DDTHH:MM:SSZ)", arg);
		break;
	case OPT_MIN_HOSTS:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || n < 1 || n > 100000)
			argp_error(state, "invalid --min-hosts '%s' (a number of hosts, 1 or more)",
				   arg);
		o->min_hosts = (int)n;
		break;
	case OPT_TIMEOUT: {
		double t;

		errno = 0;
		t = strtod(arg, &end);
		if (errno || *end || end == arg || !isfinite(t) || t <= 0 || t > 86400)
			argp_error(state, "invalid --timeout '%s' (seconds, more than 0 and at most "
				   "86400)", arg);
		o->client.timeout_s = t;
		break;
	}
	case OPT_CA:
		o->client.ca_file = arg;
		break;
	case OPT_CERT:
		o->client.cert_file = arg;
		break;
	case OPT_KEY:
		o->client.key_file = arg;
		break;
	case OPT_USER:
		o->client.user = arg;
		break;
	case OPT_PASSWORD_FILE:
		o->client.password_file = arg;
		break;
	case OPT_TOKEN_FILE:
		o->client.bearer_token_file = arg;
		break;
	case ARGP_KEY_END:
		if (!o->url && (o->window || o->at || o->min_hosts || o->client.timeout_s > 0 ||
				o->client.ca_file ||
				o->client.cert_file || o->client.key_file || o->client.user ||
				o->client.password_file || o->client.bearer_token_file))
			argp_error(state, "--window, --at, --min-hosts, --timeout and the "
				   "--prometheus-* options go with --prometheus URL");
		if (!o->client.cert_file != !o->client.key_file)
			argp_error(state, "--prometheus-cert and --prometheus-key go together");
		if (!o->client.user != !o->client.password_file)
			argp_error(state, "--prometheus-user and --prometheus-password-file go "
				   "together");
		if (o->client.user && o->client.bearer_token_file)
			argp_error(state, "basic auth or a bearer token, not both");
		o->client.url = o->url;
		if (!o->window)
			o->window = DEFAULT_WINDOW;
		if (!o->min_hosts)
			o->min_hosts = DEFAULT_MIN_HOSTS;
		/* now, fixed here: both sides end at one instant, which is printed */
		if (!o->at)
			o->at = (double)time(NULL);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp prom_source_argp = {
	prom_source_options, prom_source_parse, 0, 0, 0, 0, 0,
};

int prom_sides_read(const struct prom_source_opts *o, const char *base, const char *new,
		    bool verbose, struct prom_sides *s)
{
	struct promclient_opts co = o->client;
	struct promclient *pc;
	char err[1024];
	int ret = EXIT_OK, e;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	s->selector[0] = base;
	s->selector[1] = new;
	co.verbose = verbose;
	if (!(pc = promclient_new(&co, err, sizeof(err)))) {
		pr_err("--prometheus %s: %s", o->url, err);
		return EXIT_USAGE;
	}
	for (int i = 0; i < 2 && ret == EXIT_OK; i++) {
		struct promsource_query q = { .selector = s->selector[i], .window = o->window,
					      .at = o->at, .min_hosts = o->min_hosts };

		e = promsource_read(pc, &q, &s->side[i], err, sizeof(err));
		if (e == PROMSOURCE_EINPUT) {
			pr_err("%s", err);
			ret = EXIT_USAGE;
		} else if (e) {
			/* nothing is judged on a partial answer */
			pr_err("%s", err);
			ret = EXIT_ENV;
		}
	}
	promclient_free(pc);
	if (ret != EXIT_OK)
		prom_sides_free(s);
	return ret;
}

bool prom_sides_judgeable(const struct prom_sides *s)
{
	return promsource_judgeable(&s->side[0]) && promsource_judgeable(&s->side[1]);
}

int prom_sides_merge(const struct prom_sides *s, struct profile *base, struct profile *new)
{
	struct profile *out[2] = { base, new };

	for (int i = 0; i < 2; i++)
		if (promsource_merge(&s->side[i], out[i]))
			return -ENOMEM;
	return 0;
}

void prom_sides_free(struct prom_sides *s)
{
	promsource_side_free(&s->side[0]);
	promsource_side_free(&s->side[1]);
}

void prom_side_text(const struct prom_sides *s, int i, char *buf, size_t size)
{
	const struct promsource_side *sd = &s->side[i];
	size_t off;
	char at[32];

	off = (size_t)snprintf(buf, size, "%s: %zu host%s", s->selector[i], sd->nhosts,
			       sd->nhosts == 1 ? "" : "s");
	for (size_t h = 0; h < sd->nhosts && off < size; h++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", h ? ", " : " (",
					sd->hosts[h].instance);
	if (sd->nhosts && off < size)
		off += (size_t)snprintf(buf + off, size - off, ")");
	if (off < size)
		snprintf(buf + off, size - off, ", %s to %s", s->opts->window,
			 format_utc_s(s->opts->at, at, sizeof(at)));
}

void prom_sides_print_reasons(FILE *f, const char *prefix, const struct prom_sides *s)
{
	static const char *const word[2] = { "base", "new" };

	for (int i = 0; i < 2; i++) {
		const struct promsource_side *sd = &s->side[i];

		for (size_t k = 0; k < sd->why.n; k++)
			fprintf(f, "%s%s %s: %s\n", prefix, word[i], s->selector[i], sd->why.line[k]);
		for (size_t h = 0; h < sd->nhosts; h++)
			for (size_t k = 0; k < sd->hosts[h].why.n; k++)
				fprintf(f, "%s%s %s: host %s: %s\n", prefix, word[i], s->selector[i],
					sd->hosts[h].instance, sd->hosts[h].why.line[k]);
	}
}

void prom_sides_print_losses(FILE *f, const char *prefix, const struct prom_sides *s)
{
	static const char *const word[2] = { "base", "new" };

	for (int i = 0; i < 2; i++)
		for (size_t h = 0; h < s->side[i].nhosts; h++) {
			const struct promsource_host *x = &s->side[i].hosts[h];

			for (size_t k = 0; k < x->losses.n; k++)
				fprintf(f, "%s%s %s: host %s %s\n", prefix, word[i], s->selector[i],
					x->instance, x->losses.line[k]);
		}
}

static json_t *reasons_json(const struct promsource_reasons *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n; i++)
		json_array_append_new(a, json_string(r->line[i]));
	return a;
}

json_t *prom_side_json(const struct prom_sides *s, int i)
{
	const struct promsource_side *sd = &s->side[i];
	json_t *hosts = json_array(), *o;
	char at[32];

	for (size_t h = 0; hosts && h < sd->nhosts; h++) {
		const struct promsource_host *x = &sd->hosts[h];

		json_array_append_new(hosts, json_pack("{s:s,s:f,s:f,s:o,s:o}",
			"instance", x->instance,
			"from", (double)x->profile.start_ns / 1e9,
			"to", (double)x->profile.end_ns / 1e9,
			"reasons", reasons_json(&x->why),
			"lost", reasons_json(&x->losses)));
	}
	o = json_pack("{s:s,s:s,s:s,s:s,s:f,s:o,s:o}", "prometheus", s->opts->url,
		      "selector", s->selector[i], "window", s->opts->window,
		      "at", format_utc_s(s->opts->at, at, sizeof(at)),
		      "at_seconds", s->opts->at, "hosts", hosts ? hosts : json_null(),
		      "reasons", reasons_json(&sd->why));
	return o ? o : json_null();
}
