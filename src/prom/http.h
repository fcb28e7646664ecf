/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's HTTP endpoint (libmicrohttpd): GET or HEAD /metrics, nothing
 * else.  One internal polling thread, a bounded number of connections and
 * bounded request memory; it never reads a file or runs anything for a
 * client, it only calls the render function it was given.
 */
#ifndef PERMSCOPE_HTTP_H
#define PERMSCOPE_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Loopback unless the user names another address: where --listen points by default. */
#define HTTP_DEFAULT_LISTEN "127.0.0.1:23649"

/*
 * Seconds a connection has, from its accept, to finish its TLS handshake
 * and send its request headers; then it is shut down (src/prom/httpwatch.h).
 * A scraper needs milliseconds, three round trips over a slow WAN.
 */
#define HTTP_REQUEST_DEADLINE_S 3

/*
 * The body of /metrics, malloc'ed (the server frees it), *len its length;
 * NULL makes the answer a 500.  Called from the server's thread, while the
 * caller's threads go on: what it reads of `ctx` must be made thread-safe
 * (a lock, or a snapshot swapped in atomically).
 */
typedef char *(*http_render_fn)(void *ctx, size_t *len);

/*
 * Parse ADDR:PORT ("127.0.0.1:23649", "[::1]:23649", "0.0.0.0:23649"; port 0
 * picks a free one).  Numeric addresses only: no name is resolved.  0, or
 * -1 with a message for "Error: --listen ADDR: <msg>" in `err`.
 */
int http_parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen,
		      char *err, size_t errlen);

struct http_server;
struct webconfig;

/* Listen on `listen` (ADDR:PORT as above).  NULL with `err` filled on failure. */
struct http_server *http_start(const char *listen, http_render_fn render, void *ctx,
			       char *err, size_t errlen);
/*
 * http_start() under a --web-config (src/prom/webconfig.h; NULL: none): TLS
 * when it has a certificate, and every request, whatever its path, first
 * asked for a user of basic_auth_users (401 with WWW-Authenticate: Basic
 * realm="permscope" when missing or wrong; a password is never refused
 * unchecked, src/prom/httpauth.h).  `web` must outlive the server.
 */
struct http_server *http_start_web(const char *listen, struct webconfig *web,
				   http_render_fn render, void *ctx, char *err, size_t errlen);
/* Whether this libmicrohttpd was built with TLS (GnuTLS). */
int http_tls_supported(void);

/*
 * The answers counted by status code: every one the server itself made
 * (MHD's own 400, 414 and 431 for malformed requests, and connections that
 * never got as far as a request, such as a failed TLS handshake, are not).
 */
enum { HTTP_NCODES = 6 };
/*
 * 429 is no longer answered (a password is never refused unchecked); it
 * stays so that the series of permscope_http_requests_total{code="429"}
 * that dashboards and alerts name goes on, at 0.
 */
extern const unsigned int http_codes[HTTP_NCODES]; /* 200, 401, 404, 405, 429, 500 */
struct http_stats {
	uint64_t answers[HTTP_NCODES]; /* by http_codes[] */
};
/* A snapshot of the counts; callable from any thread, the render function's too. */
void http_stats(const struct http_server *s, struct http_stats *st);
/* The address bound, with the port the kernel picked for port 0: "127.0.0.1:41234". */
const char *http_address(const struct http_server *s);
/* Whether the bound address is a loopback one. */
int http_is_loopback(const struct http_server *s);
void http_stop(struct http_server *s);

#endif
