/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A client of the Prometheus HTTP API, for reading a fleet's counters:
 * instant queries (GET /api/v1/query) through libcurl, the answer parsed
 * with jansson.  What a fleet's Prometheus asks of a client is here: a CA
 * to trust, a client certificate, basic auth or a bearer token.
 *
 * Secrets come from files only (a command line is visible in ps and in
 * shell history) and are never printed, with verbose or without.  Verbose
 * prints each query as `query: PROMQL @ TIME` on stderr, so a user can
 * paste it into the Prometheus UI.
 *
 * Nothing is judged on a partial answer: every way a query can fail has
 * its own code, with a message in `err` naming the server and the cause.
 * Redirects are never followed, so credentials never go to another host.
 */
#ifndef PERMSCOPE_PROMCLIENT_H
#define PERMSCOPE_PROMCLIENT_H

#include <stddef.h>

#include "prom/promanswer.h"

/* Distinct codes, so that a caller can say which went wrong. */
enum promclient_status {
	PROMCLIENT_OK = 0,
	PROMCLIENT_EOPTS = -1,       /* bad options: URL, unreadable file */
	PROMCLIENT_EUNREACHABLE = -2, /* DNS, connection refused, timeout */
	PROMCLIENT_ETLS = -3,        /* handshake or certificate failure */
	PROMCLIENT_EHTTP = -4,       /* an HTTP status other than 200 */
	PROMCLIENT_EREJECTED = -5,   /* Prometheus refused the query: bad_data */
	PROMCLIENT_EMALFORMED = -6,  /* an answer that is not the API's JSON */
	PROMCLIENT_ETYPE = -7,       /* a result other than an instant vector */
	PROMCLIENT_ETIMEOUT = -8,    /* the whole read's --timeout passed */
};

struct promclient_opts {
	const char *url;       /* http:// or https://, e.g. http://host:9090 */
	const char *ca_file;   /* PEM CAs to trust; NULL: the system's */
	const char *cert_file; /* client certificate (PEM), with key_file */
	const char *key_file;
	const char *user;      /* basic auth, with password_file */
	const char *password_file; /* the password: the file's first line */
	const char *bearer_token_file; /* the token: the file's first line */
	/*
	 * The whole read, every query of this client: a slow server cannot
	 * hold a CI job for an hour, 30 s at a time.  0: PROMCLIENT_TIMEOUT_S.
	 */
	double timeout_s;
	int verbose;           /* print each query on stderr */
};

#define PROMCLIENT_TIMEOUT_S_INT 180
#define PROMCLIENT_TIMEOUT_S ((double)PROMCLIENT_TIMEOUT_S_INT)
/*
 * A bigger answer (decoded: what it unpacks to) is refused as malformed,
 * to bound the time a read takes; its memory is bounded by the streaming
 * parse (promanswer.h), whatever the size.
 */
#define PROMCLIENT_MAX_BODY (256u << 20)

struct promclient;

/*
 * A client for OPTS (copied; the files are read now).  NULL with the
 * reason in `err` when the URL is not http(s), carries credentials or a
 * query, when user and token are both given, or a file cannot be read.
 */
struct promclient *promclient_new(const struct promclient_opts *opts, char *err,
				  size_t errlen);
/* Wipes the secrets; NULL is fine. */
void promclient_free(struct promclient *c);

/* What an answer held besides its samples: a partial answer has warnings. */
struct promclient_answer {
	size_t nsamples;
	size_t nwarnings;
	char warning[2048]; /* the first, escaped */
};

/*
 * Evaluates PROMQL at AT_UNIX (seconds since the epoch; 0: the server's
 * now), handing each sample of the instant vector to FN as it streams in,
 * with the labels KEEP names (promanswer.h).  PROMCLIENT_OK with *ANS
 * (may be NULL) filled, a negative promclient_status with the reason in
 * `err` (libcurl's text for a transport or TLS failure, Prometheus's
 * errorType and error when its answer carries them; escaped, no secret in
 * it), or FN's own nonzero return, which must be none of those (-20 or
 * lower).  FN may have been called before a failure: a caller keeps
 * nothing of a query that did not return PROMCLIENT_OK.
 */
int promclient_query(struct promclient *c, const char *promql, double at_unix,
		     const char *const *keep, promanswer_sample_fn fn, void *ctx,
		     struct promclient_answer *ans, char *err, size_t errlen);

/* "unreachable", "TLS", "HTTP", "rejected", ...: for a log or a test. */
const char *promclient_status_name(int status);

#endif
