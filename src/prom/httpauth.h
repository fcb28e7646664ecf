/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The password checks of the daemon's endpoint (src/prom/http.c), off its
 * thread.  A password that verified before is checked on the server's
 * thread (webconfig_remembered(): a SHA-256, microseconds); any other
 * needs a bcrypt run, tens of milliseconds to a second, which runs here,
 * on one thread of its own, while the request's connection is suspended
 * (MHD_suspend_connection) and the server goes on with the others.
 *
 * Checks are made in the order they came, each one: none is refused
 * unchecked, so no flood of wrong passwords, from any address, can get a
 * right one answered 429 (the budget of bcrypt time that did so is gone,
 * docs/hardening.md says why).  What bounds the work is that every check
 * holds a connection, and connections are bounded (HTTP_CONNECTIONS, and
 * per address): a check waits for at most the ones ahead of it, and
 * bcrypt never takes more than this one thread, one CPU.
 */
#ifndef PERMSCOPE_HTTPAUTH_H
#define PERMSCOPE_HTTPAUTH_H

#include <stdbool.h>

#include "prom/webconfig.h"

struct http_auth;
struct MHD_Connection;

/* A check asked for: made by http_auth_check(), freed with http_auth_free(). */
struct http_auth_job {
	struct MHD_Connection *conn;
	char *user, *password;  /* wiped and freed once checked */
	enum webauth verdict;
	bool done;              /* verdict set; false after a stop: not checked */
	struct http_auth_job *next;
};

struct http_auth *http_auth_start(struct webconfig *web);
/*
 * Queue a check of USER:PASSWORD for CONN and suspend CONN (call it from
 * MHD's access handler); the checker resumes it with the job's verdict.
 * NULL (nothing queued, CONN not suspended) when out of memory or stopping.
 */
struct http_auth_job *http_auth_check(struct http_auth *a, struct MHD_Connection *conn,
				      const char *user, const char *password);
void http_auth_free(struct http_auth_job *j);
/*
 * Stop the checker: the check under way finishes, the ones still queued
 * are resumed unchecked (done false), and http_auth_check() queues no
 * more.  Before MHD_stop_daemon(), which must find no connection
 * suspended; http_auth_destroy() after it.
 */
void http_auth_stop(struct http_auth *a);
void http_auth_destroy(struct http_auth *a);

#endif
