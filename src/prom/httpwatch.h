/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The request deadline of the daemon's endpoint (src/prom/http.c): a connection
 * that has not finished its TLS handshake and sent its request headers
 * HTTP_REQUEST_DEADLINE_S after it was accepted is shut down, however
 * little or often it sends.  libmicrohttpd's own timeout is an idle one: a
 * client that sends a byte every few seconds, or none at all for up to
 * the timeout, holds its connection slot that long, and enough of them
 * hold every slot (docs/hardening.md, "The daemon's endpoint under load").
 *
 * One thread looks at the connections not yet past their request a few
 * times a second and calls shutdown(2) on those past the deadline; MHD
 * then sees the end of the stream and closes the connection itself.  The
 * descriptor is only touched under the lock that the connection's
 * MHD_CONNECTION_NOTIFY_CLOSED also takes, and MHD closes it after that
 * notice: the descriptor shut down is never one reused since.
 */
#ifndef PERMSCOPE_HTTPWATCH_H
#define PERMSCOPE_HTTPWATCH_H

#include <stdint.h>

struct http_watch;

/* Watch up to SLOTS connections, each given DEADLINE_MS; NULL when no thread could be made. */
struct http_watch *http_watch_start(unsigned int slots, unsigned int deadline_ms);
/* A connection just accepted (MHD_CONNECTION_NOTIFY_STARTED), its descriptor FD. */
void http_watch_add(struct http_watch *w, const void *conn, int fd);
/* The connection's request arrived, or it is closing: no longer watched. */
void http_watch_done(struct http_watch *w, const void *conn);
/* How many connections were shut down for their deadline. */
uint64_t http_watch_expired(struct http_watch *w);
/* Stop the thread; the connections are MHD's to close. */
void http_watch_stop(struct http_watch *w);

#endif
