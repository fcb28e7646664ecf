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
#include <sys/socket.h>

/* Loopback unless the user names another address: where --listen points by default. */
#define HTTP_DEFAULT_LISTEN "127.0.0.1:23649"

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

/* Listen on `listen` (ADDR:PORT as above).  NULL with `err` filled on failure. */
struct http_server *http_start(const char *listen, http_render_fn render, void *ctx,
			       char *err, size_t errlen);
/* The address bound, with the port the kernel picked for port 0: "127.0.0.1:41234". */
const char *http_address(const struct http_server *s);
/* Whether the bound address is a loopback one. */
int http_is_loopback(const struct http_server *s);
void http_stop(struct http_server *s);

#endif
