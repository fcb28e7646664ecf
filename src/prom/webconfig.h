/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `permscope daemon --web-config FILE`: the web configuration file of
 * Prometheus's exporter-toolkit (the `--web.config.file` of node_exporter
 * and the other exporters), so that one file format serves a fleet:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # relative to FILE's directory
 *     key_file: server.key
 *     min_version: TLS12           # TLS12 (default) or TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...       # bcrypt
 *
 * The subset a scraper needs: TLS with a certificate and key, and basic
 * auth with bcrypt hashes.  Every other key, the exporter-toolkit's ones
 * permscope does not implement included, is refused with its line: a
 * security setting silently dropped is worse than a daemon that does not
 * start.  docs/daemon.md, "Scraping from another host", is the reference.
 *
 * Checking a password is here too, so that it is tested without HTTP:
 * bcrypt through libcrypt, and a verified password remembered (as its
 * SHA-256) so that a scraper pays bcrypt once.  Where the bcrypt runs, and
 * in which order when many come at once, is src/prom/httpauth.h's business.
 */
#ifndef PERMSCOPE_WEBCONFIG_H
#define PERMSCOPE_WEBCONFIG_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bigger config files are refused: a real one is a few hundred bytes. */
#define WEBCONFIG_MAX_SIZE (64 * 1024)
/* Bigger certificate or key files are refused. */
#define WEBCONFIG_MAX_PEM (1024 * 1024)
/*
 * The highest bcrypt cost accepted: each step doubles the time, and 12
 * takes ~0.2 s here (docs/daemon.md), so 14 is ~1 s of the server's thread
 * per password not yet verified.  htpasswd -B's default is 5, the
 * exporter-toolkit's advice 10.
 */
#define WEBCONFIG_MAX_COST 14

struct webconfig_user {
	char *name;
	char *hash;               /* bcrypt: $2a$, $2b$ or $2y$, cost, salt, hash */
	unsigned char good[32];   /* SHA-256 of the last password that verified */
	bool has_good;
};

struct webconfig {
	char path[PATH_MAX];      /* the file, as given */

	bool tls;                 /* tls_server_config has cert_file and key_file */
	char *cert_file, *key_file; /* resolved against the file's directory */
	int min_version, max_version; /* 12 or 13: TLS 1.2, TLS 1.3 */
	char *cert_pem, *key_pem; /* the files' contents, by webconfig_load() */
	/* Non-empty: what the user should hear about the key file (mode, owner). */
	char key_warning[PATH_MAX + 160];

	struct webconfig_user *users; /* basic_auth_users, in file order */
	size_t nusers;

	/* webconfig_authenticate()'s state, under lock. */
	pthread_mutex_t lock;
	char dummy_setting[64];   /* bcrypt salt for unknown users, at the users' top cost */
};

/*
 * Parse TEXT (LEN bytes) as a web config, relative paths resolved against
 * DIR; no file is read (webconfig_load() reads them).  0, or -1 with
 * "line L, column C: what" (or just "what") in ERR.  A value is never
 * quoted in a message: a password or hash in the wrong place stays out of
 * logs.  webconfig_free() is needed either way.
 */
int webconfig_parse(struct webconfig *wc, const char *text, size_t len, const char *dir,
		    char *err, size_t errlen);

/*
 * Read and parse PATH, read the certificate and key and check with GnuTLS
 * that they are PEM and belong together.  0, or -1 with "PATH: ..." in ERR,
 * for "Error: --web-config PATH: ...".  webconfig_free() is needed either way.
 */
int webconfig_load(struct webconfig *wc, const char *path, char *err, size_t errlen);

void webconfig_free(struct webconfig *wc);

/* The GnuTLS priority string for min_version..max_version. */
const char *webconfig_priorities(const struct webconfig *wc);

enum webauth {
	WEBAUTH_OK,      /* user known, password right */
	WEBAUTH_DENIED,  /* unknown user or wrong password */
};

/*
 * Whether PASSWORD is the one that last verified for USER: a SHA-256 and
 * a constant-time compare, microseconds, no bcrypt.  Thread-safe.
 */
bool webconfig_remembered(struct webconfig *wc, const char *user, const char *password);

/*
 * Whether USER may log in with PASSWORD.  A password that verified before
 * costs what webconfig_remembered() does; any other a bcrypt run (an
 * unknown user's too, against a dummy hash of the same cost, so that the
 * time does not tell whether a user exists), tens of milliseconds at cost
 * 10, on the caller's thread.  A password that verifies is remembered.
 * Thread-safe.
 */
enum webauth webconfig_authenticate(struct webconfig *wc, const char *user,
				    const char *password);

#endif
