// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exporter-toolkit web config (see webconfig.h): parsed with libyaml's
 * document loader, checked key by key against what permscope implements;
 * the certificate and key checked with GnuTLS; passwords with libcrypt's
 * bcrypt.  Nothing cryptographic is written here.
 */
#include "prom/webconfig.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "util.h"

#define TOOLKIT_DOC "docs/daemon.md, \"Scraping from another host\""

static int fail(char *err, size_t errlen, const yaml_node_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "line L, column C: what", the place libyaml recorded for `at` (NULL: none). */
static int fail(char *err, size_t errlen, const yaml_node_t *at, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (at)
		n = snprintf(err, errlen, "line %zu, column %zu: ", at->start_mark.line + 1,
			     at->start_mark.column + 1);
	if (n >= errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	default:
		return "a value";
	}
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A plain empty value, `~` or `null`: YAML's null, which the toolkit takes as "not set". */
static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = scalar(n);
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/*
 * Walk the mapping `map` of document `doc`: each key a scalar, none twice;
 * `fn` is called with each key and value.  A null `map` is an empty one.
 */
typedef int (*pair_fn)(struct webconfig *wc, const yaml_document_t *doc, const char *section,
		       const yaml_node_t *key, const yaml_node_t *value, const char *dir,
		       char *err, size_t errlen);

static int each_pair(struct webconfig *wc, yaml_document_t *doc, const char *section,
		     const yaml_node_t *map, pair_fn fn, const char *dir, char *err, size_t errlen)
{
	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail(err, errlen, map, "%s: expected a mapping of keys, got %s",
			    section, kind(map));
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (!k || !v)
			return fail(err, errlen, map, "%s: malformed mapping", section);
		if (k->type != YAML_SCALAR_NODE)
			return fail(err, errlen, k, "%s: a key must be a name, not %s", section,
				    kind(k));
		/* YAML forbids duplicate keys; libyaml does not check. */
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *kq = yaml_document_get_node(doc, q->key);

			if (kq && kq->type == YAML_SCALAR_NODE && !strcmp(scalar(kq), scalar(k)))
				return fail(err, errlen, k, "%s: '%s' given twice (first on line "
					    "%zu)", section, scalar(k), kq->start_mark.line + 1);
		}
		if (fn(wc, doc, section, k, v, dir, err, errlen))
			return -1;
	}
	return 0;
}

/* A non-empty string value; its text in *out (borrowed from the document). */
static int string_value(const char *section, const yaml_node_t *k, const yaml_node_t *v,
			const char **out, char *err, size_t errlen)
{
	if (v->type != YAML_SCALAR_NODE)
		return fail(err, errlen, v, "%s: %s: expected a value, got %s", section,
			    scalar(k), kind(v));
	if (is_null(v) || !*scalar(v))
		return fail(err, errlen, v, "%s: %s is empty", section, scalar(k));
	if (strlen(scalar(v)) != v->data.scalar.length)
		return fail(err, errlen, v, "%s: %s holds a NUL byte", section, scalar(k));
	*out = scalar(v);
	return 0;
}

/* PATH as written when absolute, else DIR/PATH: the toolkit's rule. */
static int resolve(const char *dir, const char *path, char **out, char *err, size_t errlen)
{
	free(*out);
	if (path[0] == '/' || !dir || !*dir)
		*out = strdup(path);
	else if (asprintf(out, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", path) < 0)
		*out = NULL;
	if (!*out)
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	return 0;
}

/* "TLS12" -> 12; refused below 1.2, which no maintained Prometheus needs. */
static int tls_version(const char *section, const yaml_node_t *k, const yaml_node_t *v,
		       int *out, char *err, size_t errlen)
{
	const char *s;

	if (string_value(section, k, v, &s, err, errlen))
		return -1;
	if (!strcmp(s, "TLS12"))
		*out = 12;
	else if (!strcmp(s, "TLS13"))
		*out = 13;
	else if (!strcmp(s, "TLS10") || !strcmp(s, "TLS11"))
		return fail(err, errlen, v, "%s: %s: %s is not served (TLS 1.2 is the "
			    "oldest permscope speaks); use TLS12 or TLS13", section, scalar(k), s);
	else
		return fail(err, errlen, v, "%s: %s: expected TLS12 or TLS13", section,
			    scalar(k));
	return 0;
}

/*
 * The exporter-toolkit keys permscope does not implement, and what to do
 * instead.  Refused, never ignored: a client-certificate check or a rate
 * limit that the file asks for and the daemon skips is a hole nobody sees.
 */
static const struct {
	const char *section, *key, *instead;
} unsupported[] = {
	{ "tls_server_config", "cert", "put the certificate in a file and name it in cert_file" },
	{ "tls_server_config", "key", "put the key in a file (mode 0600) and name it in key_file" },
	{ "tls_server_config", "client_ca", "client certificates are not supported; use "
	  "basic_auth_users" },
	{ "tls_server_config", "client_ca_file", "client certificates are not supported; use "
	  "basic_auth_users" },
	{ "tls_server_config", "client_allowed_sans", "client certificates are not supported; "
	  "use basic_auth_users" },
	{ "tls_server_config", "cipher_suites", "GnuTLS's defaults for TLS 1.2 and 1.3 are used; "
	  "min_version TLS13 narrows them" },
	{ "tls_server_config", "curve_preferences", "GnuTLS's defaults are used" },
	{ "tls_server_config", "prefer_server_cipher_suites", "GnuTLS's defaults are used" },
	{ "http_server_config", "headers", "permscope sets X-Content-Type-Options: nosniff "
	  "itself and serves no HTML" },
	{ "", "rate_limit", "permscope bounds connections and the time spent on passwords "
	  "itself" },
};

static int refuse_unsupported(const char *section, const yaml_node_t *k, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(unsupported[i].section, section) && !strcmp(unsupported[i].key, scalar(k)))
			return fail(err, errlen, k, "%s%s%s is an exporter-toolkit setting permscope "
				    "does not implement (%s); remove it", section,
				    *section ? ": " : "", scalar(k), unsupported[i].instead);
	return 0;
}

static int tls_pair(struct webconfig *wc, const yaml_document_t *doc, const char *section,
		    const yaml_node_t *k, const yaml_node_t *v, const char *dir, char *err,
		    size_t errlen)
{
	const char *key = scalar(k), *s;

	(void)doc;
	if (refuse_unsupported(section, k, err, errlen))
		return -1;
	if (!strcmp(key, "cert_file"))
		return string_value(section, k, v, &s, err, errlen) ||
		       resolve(dir, s, &wc->cert_file, err, errlen);
	if (!strcmp(key, "key_file"))
		return string_value(section, k, v, &s, err, errlen) ||
		       resolve(dir, s, &wc->key_file, err, errlen);
	if (!strcmp(key, "min_version"))
		return tls_version(section, k, v, &wc->min_version, err, errlen);
	if (!strcmp(key, "max_version"))
		return tls_version(section, k, v, &wc->max_version, err, errlen);
	if (!strcmp(key, "client_auth_type")) {
		if (string_value(section, k, v, &s, err, errlen))
			return -1;
		if (strcmp(s, "NoClientCert"))
			return fail(err, errlen, v, "%s: client_auth_type: only NoClientCert is "
				    "supported (client certificates are not; use "
				    "basic_auth_users)", section);
		return 0;
	}
	return fail(err, errlen, k, "%s: unknown key '%s' (permscope reads cert_file, "
		    "key_file, min_version, max_version, client_auth_type: NoClientCert; "
		    TOOLKIT_DOC ")", section, key);
}

static int http_pair(struct webconfig *wc, const yaml_document_t *doc, const char *section,
		     const yaml_node_t *k, const yaml_node_t *v, const char *dir, char *err,
		     size_t errlen)
{
	const char *s;

	(void)wc, (void)doc, (void)dir;
	if (refuse_unsupported(section, k, err, errlen))
		return -1;
	/* HTTP/2 or not changes no security property: the endpoint speaks HTTP/1.1. */
	if (!strcmp(scalar(k), "http2")) {
		if (string_value(section, k, v, &s, err, errlen))
			return -1;
		if (strcmp(s, "true") && strcmp(s, "false"))
			return fail(err, errlen, v, "%s: http2: expected true or false", section);
		return 0;
	}
	return fail(err, errlen, k, "%s: unknown key '%s' (permscope reads http2 only, and "
		    "serves HTTP/1.1 whatever it says)", section, scalar(k));
}

/*
 * A bcrypt hash as crypt(3) writes it: $2a$, $2b$ or $2y$, a two-digit
 * cost, '$', 22 characters of salt and 31 of hash in bcrypt's base64.
 * Checked here, not by a crypt_rn() run, which at a high cost would take
 * seconds per user at start.  NULL, or what is wrong.
 */
static const char *bcrypt_problem(const char *h, int *cost)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	if (strncmp(h, "$2", 2) || !h[2] || !strchr("aby", h[2]) || h[3] != '$')
		return "is not a bcrypt hash ($2y$..., $2b$... or $2a$...: a plain password? "
		       "make a hash with htpasswd -nBC 10 USER)";
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return "is not a bcrypt hash (no two-digit cost after the $2?$ prefix)";
	*cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (strlen(h) != 60 || strspn(h + 7, b64) != 53)
		return "is not a bcrypt hash (53 characters of salt and hash expected after the "
		       "cost; was it cut or quoted wrong?)";
	if (*cost < 4 || *cost > 31)
		return "is not a bcrypt hash (the cost must be 04 to 31)";
	return NULL;
}

static int user_pair(struct webconfig *wc, const yaml_document_t *doc, const char *section,
		     const yaml_node_t *k, const yaml_node_t *v, const char *dir, char *err,
		     size_t errlen)
{
	struct webconfig_user *u;
	const char *name = scalar(k), *hash, *problem;
	int cost = 0;

	(void)doc, (void)dir;
	if (!*name)
		return fail(err, errlen, k, "%s: empty user name", section);
	if (strlen(name) != k->data.scalar.length)
		return fail(err, errlen, k, "%s: a user name holds a NUL byte", section);
	/* Basic auth sends "user:password": the first ':' ends the name. */
	if (strchr(name, ':'))
		return fail(err, errlen, k, "%s: user '%s': a name with ':' can never log in "
			    "(basic auth splits at the first ':')", section, name);
	if (v->type != YAML_SCALAR_NODE || is_null(v))
		return fail(err, errlen, v, "%s: user '%s': expected a bcrypt hash, got %s", section,
			    name, is_null(v) ? "nothing" : kind(v));
	hash = scalar(v);
	problem = strlen(hash) == v->data.scalar.length ? bcrypt_problem(hash, &cost) :
		  "holds a NUL byte";
	if (problem)
		return fail(err, errlen, v, "%s: user '%s': the password %s", section, name, problem);
	if (cost > WEBCONFIG_MAX_COST)
		return fail(err, errlen, v, "%s: user '%s': the hash's bcrypt cost %d is above %d, "
			    "the most permscope accepts (each step doubles the time the server "
			    "spends on a password; make it with htpasswd -nBC 10 USER)", section,
			    name, cost, WEBCONFIG_MAX_COST);
	u = realloc(wc->users, (wc->nusers + 1) * sizeof(*u));
	if (!u)
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	wc->users = u;
	u = &wc->users[wc->nusers];
	memset(u, 0, sizeof(*u));
	u->name = strdup(name);
	u->hash = strdup(hash);
	wc->nusers++;
	if (!u->name || !u->hash)
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	return 0;
}

static int top_pair(struct webconfig *wc, const yaml_document_t *doc, const char *section,
		    const yaml_node_t *k, const yaml_node_t *v, const char *dir, char *err,
		    size_t errlen)
{
	yaml_document_t *d = (yaml_document_t *)doc;
	const char *key = scalar(k);

	(void)section;
	if (refuse_unsupported("", k, err, errlen))
		return -1;
	if (!strcmp(key, "tls_server_config")) {
		if (each_pair(wc, d, key, v, tls_pair, dir, err, errlen))
			return -1;
		/*
		 * Any key here asks for TLS: min_version alone is no reason to
		 * serve plain HTTP, as the toolkit would.
		 */
		if (v->type == YAML_MAPPING_NODE &&
		    v->data.mapping.pairs.top > v->data.mapping.pairs.start) {
			if (!wc->cert_file)
				return fail(err, errlen, v, "tls_server_config: cert_file is missing "
					    "(the server's certificate, PEM)");
			if (!wc->key_file)
				return fail(err, errlen, v, "tls_server_config: key_file is missing "
					    "(the certificate's private key, PEM)");
			if (wc->min_version > wc->max_version)
				return fail(err, errlen, v, "tls_server_config: min_version TLS%d is "
					    "above max_version TLS%d", wc->min_version,
					    wc->max_version);
			wc->tls = true;
		}
		return 0;
	}
	if (!strcmp(key, "basic_auth_users"))
		return each_pair(wc, d, key, v, user_pair, dir, err, errlen);
	if (!strcmp(key, "http_server_config"))
		return each_pair(wc, d, key, v, http_pair, dir, err, errlen);
	return fail(err, errlen, k, "unknown key '%s' (permscope reads tls_server_config, "
		    "basic_auth_users and http_server_config; " TOOLKIT_DOC ")", key);
}

/* libyaml's own message: "line L, column C: found ... while scanning ...". */
static int yaml_fail(const yaml_parser_t *p, char *err, size_t errlen)
{
	const yaml_mark_t *m = &p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	if (p->context)
		return fail(err, errlen, NULL, "line %zu, column %zu: not YAML: %s %s (line %zu)",
			    m->line + 1, m->column + 1, p->problem ? p->problem : "error",
			    p->context, p->context_mark.line + 1);
	return fail(err, errlen, NULL, "line %zu, column %zu: not YAML: %s", m->line + 1,
		    m->column + 1, p->problem ? p->problem : "error");
}

static void init(struct webconfig *wc)
{
	memset(wc, 0, sizeof(*wc));
	pthread_mutex_init(&wc->lock, NULL);
	wc->min_version = 12;
	wc->max_version = 13;
}

int webconfig_parse(struct webconfig *wc, const char *text, size_t len, const char *dir,
		    char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc, next;
	yaml_node_t *root, *more;
	int ret = -1;

	init(wc);
	if (len > WEBCONFIG_MAX_SIZE)
		return fail(err, errlen, NULL, "%zu bytes: more than a web config needs (at most "
			    "%d)", len, WEBCONFIG_MAX_SIZE);
	if (!yaml_parser_initialize(&parser))
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_fail(&parser, err, errlen);
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || is_null(root)) {
		fail(err, errlen, NULL, "empty: it configures neither tls_server_config nor "
		     "basic_auth_users (" TOOLKIT_DOC ")");
		goto out;
	}
	/* A second document would be ignored: refuse it like any other ignored setting. */
	if (!yaml_parser_load(&parser, &next)) {
		yaml_fail(&parser, err, errlen);
		goto out;
	}
	more = yaml_document_get_root_node(&next);
	if (more)
		fail(err, errlen, more, "a second YAML document: a web config is one mapping");
	yaml_document_delete(&next);
	if (more)
		goto out;
	if (root->type != YAML_MAPPING_NODE) {
		fail(err, errlen, root, "expected a mapping (tls_server_config:, "
		     "basic_auth_users:), got %s", kind(root));
		goto out;
	}
	if (each_pair(wc, &doc, "the file", root, top_pair, dir, err, errlen))
		goto out;
	if (!wc->tls && !wc->nusers) {
		fail(err, errlen, NULL, "configures neither TLS (tls_server_config: cert_file, "
		     "key_file) nor basic_auth_users: it would change nothing");
		goto out;
	}
	ret = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return ret;
}

/* ---- the files ------------------------------------------------------------ */

/*
 * What the user should know about key file PATH: readable by others than
 * its owner, or owned by someone who is neither root nor us (and could
 * swap the key).
 */
static void check_key_file(struct webconfig *wc, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return;
	if (st.st_mode & 077)
		snprintf(wc->key_warning, sizeof(wc->key_warning),
			 "key_file %s is mode %04o: readable by %s; a private key should be "
			 "0600 or 0400", path, (unsigned int)(st.st_mode & 07777),
			 st.st_mode & 07 ? "every user" : "its group");
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		snprintf(wc->key_warning, sizeof(wc->key_warning),
			 "key_file %s is owned by uid %u, who can replace the key; make it "
			 "root's", path, (unsigned int)st.st_uid);
}

static int read_pem(const char *what, const char *path, char **out, char *err, size_t errlen)
{
	char why[PATH_MAX + 128];
	size_t len;
	int ret = read_input_file(path, WEBCONFIG_MAX_PEM, out, &len, why, sizeof(why));

	if (ret)
		return fail(err, errlen, NULL, "%s %s: %s", what, path,
			    ret == -EFBIG ? "too big for a PEM file" : why);
	if (strlen(*out) != len)
		return fail(err, errlen, NULL, "%s %s: holds a NUL byte: not PEM", what, path);
	return 0;
}

/* GnuTLS's verdict on the pair, as MHD will load it; 0 or -1 with `err`. */
static int check_pair(const struct webconfig *wc, char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	gnutls_datum_t cert = { (unsigned char *)wc->cert_pem, strlen(wc->cert_pem) };
	gnutls_datum_t key = { (unsigned char *)wc->key_pem, strlen(wc->key_pem) };
	const char *where = NULL;
	int ret;

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return fail(err, errlen, NULL, "%s", strerror(ENOMEM));
	ret = gnutls_certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (ret == GNUTLS_E_DECRYPTION_FAILED || ret == GNUTLS_E_INVALID_PASSWORD)
		return fail(err, errlen, NULL, "key_file %s is encrypted: the daemon cannot ask "
			    "for a passphrase (openssl pkey -in KEY -out PLAIN)", wc->key_file);
	if (ret == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
		return fail(err, errlen, NULL, "key_file %s is not the key of cert_file %s",
			    wc->key_file, wc->cert_file);
	if (ret < 0) {
		const char *why = gnutls_strerror(ret);

		/* GnuTLS's messages end in a full stop. */
		return fail(err, errlen, NULL, "cert_file %s with key_file %s: %.*s (are both "
			    "PEM?)", wc->cert_file, wc->key_file,
			    (int)strcspn(why, "."), why);
	}
	ret = gnutls_priority_init(&prio, webconfig_priorities(wc), &where);
	if (ret < 0)
		return fail(err, errlen, NULL, "this GnuTLS refuses the priorities %s: %s",
			    webconfig_priorities(wc), gnutls_strerror(ret));
	gnutls_priority_deinit(prio);
	return 0;
}

int webconfig_load(struct webconfig *wc, const char *path, char *err, size_t errlen)
{
	char why[PATH_MAX + 512], *text = NULL, *dir, *slash;
	size_t len;
	int ret;

	init(wc);
	ret = read_input_file(path, WEBCONFIG_MAX_SIZE, &text, &len, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, ret == -EFBIG ?
			 "more than a web config needs (at most 64 KiB)" : why);
		return -1;
	}
	/* The toolkit's rule: relative paths in the file are relative to its directory. */
	dir = strdup(path);
	if (!dir) {
		free(text);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		strcpy(dir, ".");
	ret = webconfig_parse(wc, text, len, dir, why, sizeof(why));
	free(dir);
	free(text);
	copy_truncated(wc->path, path, sizeof(wc->path));
	if (!ret && wc->tls) {
		ret = read_pem("cert_file", wc->cert_file, &wc->cert_pem, why, sizeof(why)) ||
		      read_pem("key_file", wc->key_file, &wc->key_pem, why, sizeof(why)) ||
		      check_pair(wc, why, sizeof(why)) ? -1 : 0;
		if (!ret)
			check_key_file(wc, wc->key_file);
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

void webconfig_free(struct webconfig *wc)
{
	for (size_t i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->cert_pem);
	free(wc->cert_file);
	free(wc->key_file);
	pthread_mutex_destroy(&wc->lock);
	explicit_bzero(wc, sizeof(*wc));
}

const char *webconfig_priorities(const struct webconfig *wc)
{
	/* GnuTLS's NORMAL set, its versions cut to what the file allows. */
	if (wc->min_version >= 13)
		return "NORMAL:-VERS-ALL:+VERS-TLS1.3";
	if (wc->max_version <= 12)
		return "NORMAL:-VERS-ALL:+VERS-TLS1.2";
	return "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
}
