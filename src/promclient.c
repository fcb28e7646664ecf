// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus HTTP API client (promclient.h): one libcurl easy handle
 * per client, so that the queries of one run share a connection.
 */
#include <ctype.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promclient.h"
#include "util.h"

/* A password or token file bigger than this is not one. */
#define SECRET_MAX 4096

struct promclient {
	CURL *curl;
	char *base;     /* the URL without a trailing '/' */
	char *user;
	char *password; /* wiped on free */
	char *token;    /* wiped on free */
	char curl_err[CURL_ERROR_SIZE];
	int verbose;
};

struct body {
	char *data;
	size_t len;
	bool too_big;
};

static void __attribute__((format(printf, 3, 4)))
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *promclient_status_name(int status)
{
	switch (status) {
	case PROMCLIENT_OK: return "ok";
	case PROMCLIENT_EOPTS: return "options";
	case PROMCLIENT_EUNREACHABLE: return "unreachable";
	case PROMCLIENT_ETLS: return "TLS";
	case PROMCLIENT_EHTTP: return "HTTP";
	case PROMCLIENT_EREJECTED: return "rejected";
	case PROMCLIENT_EMALFORMED: return "malformed";
	case PROMCLIENT_ETYPE: return "type";
	}
	return "unknown";
}

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/*
 * The first line of a secret's file, malloc'ed, without its newline: NULL
 * with the reason when the file cannot be read or the line is empty.  The
 * file's whole text is wiped before it is freed.
 */
static char *read_secret(const char *what, const char *path, char *err, size_t errlen)
{
	char why[256], *data = NULL, *line = NULL;
	size_t len = 0;

	if (read_input_file(path, SECRET_MAX, &data, &len, why, sizeof(why))) {
		seterr(err, errlen, "%s %s: %s", what, path, why);
		return NULL;
	}
	len = strcspn(data, "\r\n");
	if (!len)
		seterr(err, errlen, "%s %s: the first line is empty", what, path);
	else if (!(line = strndup(data, len)))
		seterr(err, errlen, "%s %s: out of memory", what, path);
	explicit_bzero(data, strlen(data));
	free(data);
	return line;
}

/*
 * Only http and https, and no user, password, query or fragment in the
 * URL: a password there would show in ps and in every error message, and a
 * query would be dropped when the API path is appended.
 */
static int check_url(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *part = NULL;
	int ret = -1;

	if (!u) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	/* A scheme first: file:///x has no host, yet its fault is the scheme. */
	if (!curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) &&
	    !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) && strcmp(scheme, "http") &&
	    strcmp(scheme, "https")) {
		seterr(err, errlen, "prometheus URL %s: %s:// is not http:// or https://", url,
		       scheme);
		goto out;
	}
	if (!scheme || curl_url_get(u, CURLUPART_HOST, &host, 0)) {
		seterr(err, errlen, "prometheus URL %s: not a URL (like http://HOST:9090)",
		       url);
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_USER, &part, 0)) {
		seterr(err, errlen, "prometheus URL: credentials in the URL are refused;"
			" give the user and a password file");
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_QUERY, &part, 0) ||
	    !curl_url_get(u, CURLUPART_FRAGMENT, &part, 0)) {
		seterr(err, errlen, "prometheus URL %s: a query or fragment is not part of"
			" a server's URL", url);
		goto out;
	}
	ret = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(part);
	curl_url_cleanup(u);
	return ret;
}

struct promclient *promclient_new(const struct promclient_opts *opts, char *err,
				  size_t errlen)
{
	struct promclient *c;
	size_t n;

	if (!opts->url || !*opts->url) {
		seterr(err, errlen, "no Prometheus URL");
		return NULL;
	}
	if (check_url(opts->url, err, errlen))
		return NULL;
	if (!opts->user != !opts->password_file) {
		seterr(err, errlen, "basic auth needs both a user and a password file");
		return NULL;
	}
	if (opts->user && opts->bearer_token_file) {
		seterr(err, errlen, "basic auth and a bearer token exclude each other");
		return NULL;
	}
	if (!opts->cert_file != !opts->key_file) {
		seterr(err, errlen, "a client certificate needs both a cert and a key file");
		return NULL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		seterr(err, errlen, "libcurl failed to start");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->base = strdup(opts->url)) || !(c->curl = curl_easy_init())) {
		seterr(err, errlen, "out of memory");
		goto fail;
	}
	n = strlen(c->base);
	while (n && c->base[n - 1] == '/')
		c->base[--n] = 0;
	c->verbose = opts->verbose;
	if (opts->user && (!(c->user = strdup(opts->user)) ||
			   !(c->password = read_secret("password file", opts->password_file,
						      err, errlen))))
		goto fail;
	if (opts->bearer_token_file &&
	    !(c->token = read_secret("bearer token file", opts->bearer_token_file, err,
				     errlen)))
		goto fail;

	CURL *h = c->curl;
	long timeout_ms = (long)((opts->timeout_s > 0 ? opts->timeout_s
						      : PROMCLIENT_TIMEOUT_S) * 1000);

	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* A redirect is reported, never followed: no credential leaves the host. */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "permscope");
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (opts->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, opts->ca_file);
	if (opts->cert_file) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, opts->cert_file);
		curl_easy_setopt(h, CURLOPT_SSLKEY, opts->key_file);
	}
	if (c->user) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, c->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->password);
	}
	if (c->token) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, c->token);
	}
	return c;
fail:
	promclient_free(c);
	return NULL;
}

void promclient_free(struct promclient *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->base);
	free(c->user);
	wipe_free(c->password);
	wipe_free(c->token);
	free(c);
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct body *b = ctx;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n > PROMCLIENT_MAX_BODY) {
		b->too_big = true;
		return 0; /* curl stops with CURLE_WRITE_ERROR */
	}
	p = realloc(b->data, b->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, ptr, n);
	b->data = p;
	b->len += n;
	b->data[b->len] = 0;
	return n;
}

static bool tls_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CLIENTCERT:
	case CURLE_USE_SSL_FAILED:
		return true;
	default:
		return false;
	}
}

/* The first line of a body that is not JSON, printable, cut to 160 bytes. */
static void first_line(const char *data, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = data ? data : ""; *p && *p != '\n' && n + 1 < size && n < 160; p++)
		out[n++] = isprint((unsigned char)*p) ? *p : '?';
	out[n] = 0;
}

/* "now", or "1764651600 (2025-12-02T05:00:00Z)": both forms the UI takes. */
static void format_at(double at, char *buf, size_t size)
{
	char iso[32];

	if (at <= 0) {
		snprintf(buf, size, "now");
		return;
	}
	snprintf(buf, size, "%.3f (%s)", at, format_utc_s(at, iso, sizeof(iso)));
}

/* Every sample of a vector is {"metric": {...}, "value": [t, "v"]}. */
static bool vector_well_formed(json_t *result)
{
	size_t i;
	json_t *s;

	if (!json_is_array(result))
		return false;
	json_array_foreach(result, i, s) {
		json_t *v = json_object_get(s, "value");

		if (!json_is_object(json_object_get(s, "metric")) || !json_is_array(v) ||
		    json_array_size(v) != 2 || !json_is_number(json_array_get(v, 0)) ||
		    !json_is_string(json_array_get(v, 1)))
			return false;
	}
	return true;
}

/*
 * Judges an answer: status, body.  The API's error envelope
 * ({"status":"error","errorType":..,"error":..}) names the cause whatever
 * the HTTP status; bad_data is a query Prometheus refused.
 */
static int judge(struct promclient *c, long status, struct body *b, json_t **result,
		 char *err, size_t errlen)
{
	json_t *root = b->data ? json_loadb(b->data, b->len, 0, NULL) : NULL;
	const char *st = json_string_value(json_object_get(root, "status"));
	const char *etype = json_string_value(json_object_get(root, "errorType"));
	const char *emsg = json_string_value(json_object_get(root, "error"));
	json_t *data = json_object_get(root, "data");
	const char *rtype = json_string_value(json_object_get(data, "resultType"));
	char line[192];
	int ret;

	if (st && !strcmp(st, "error") && etype && !strcmp(etype, "bad_data")) {
		seterr(err, errlen, "prometheus %s rejected the query: %s", c->base,
		       emsg ? emsg : "bad_data");
		ret = PROMCLIENT_EREJECTED;
	} else if (status != 200 || (st && !strcmp(st, "error"))) {
		if (etype || emsg) {
			seterr(err, errlen, "prometheus %s: HTTP %ld: %s: %s", c->base, status,
			       etype ? etype : "error", emsg ? emsg : "(no message)");
		} else if (status >= 300 && status < 400) {
			char *loc = NULL;

			curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &loc);
			seterr(err, errlen, "prometheus %s: HTTP %ld: redirected to %s, not"
			       " followed (give that server's URL)", c->base, status,
			       loc ? loc : "(no Location)");
		} else {
			first_line(b->data, line, sizeof(line));
			seterr(err, errlen, "prometheus %s: HTTP %ld%s%s", c->base, status,
			       *line ? ": " : "", line);
		}
		ret = PROMCLIENT_EHTTP;
	} else if (!root || !st || strcmp(st, "success") || !json_is_object(data) || !rtype) {
		first_line(b->data, line, sizeof(line));
		seterr(err, errlen, "prometheus %s: not an answer of the query API: %s",
		       c->base, *line ? line : "(empty)");
		ret = PROMCLIENT_EMALFORMED;
	} else if (strcmp(rtype, "vector")) {
		seterr(err, errlen, "prometheus %s: the query gives a %s, not an instant"
		       " vector", c->base, rtype);
		ret = PROMCLIENT_ETYPE;
	} else if (!vector_well_formed(json_object_get(data, "result"))) {
		seterr(err, errlen, "prometheus %s: a vector whose samples are not"
		       " {metric, value: [time, \"number\"]}", c->base);
		ret = PROMCLIENT_EMALFORMED;
	} else {
		*result = json_incref(json_object_get(data, "result"));
		ret = PROMCLIENT_OK;
	}
	json_decref(root);
	return ret;
}

int promclient_query(struct promclient *c, const char *promql, double at_unix,
		     json_t **result, char *err, size_t errlen)
{
	struct body b = { 0 };
	char *q, *url = NULL, at[64];
	long status = 0;
	CURLcode rc;
	int ret;

	*result = NULL;
	if (c->verbose) {
		format_at(at_unix, at, sizeof(at));
		fprintf(stderr, "query: %s @ %s\n", promql, at);
	}
	q = curl_easy_escape(c->curl, promql, 0);
	if (!q || (at_unix > 0 ? asprintf(&url, "%s/api/v1/query?query=%s&time=%.3f",
					   c->base, q, at_unix)
			       : asprintf(&url, "%s/api/v1/query?query=%s", c->base, q)) < 0) {
		curl_free(q);
		seterr(err, errlen, "out of memory");
		return PROMCLIENT_EOPTS;
	}
	curl_free(q);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
	c->curl_err[0] = 0;
	rc = curl_easy_perform(c->curl);
	free(url);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
		ret = judge(c, status, &b, result, err, errlen);
	} else if (b.too_big) {
		seterr(err, errlen, "prometheus %s: an answer over %u MiB, refused", c->base,
		       PROMCLIENT_MAX_BODY >> 20);
		ret = PROMCLIENT_EMALFORMED;
	} else {
		/* libcurl's buffer names the address and the cause; its code, the kind. */
		seterr(err, errlen, "prometheus %s: %s%s", c->base, tls_error(rc) ? "TLS: " : "",
		       c->curl_err[0] ? c->curl_err : curl_easy_strerror(rc));
		ret = tls_error(rc) ? PROMCLIENT_ETLS : PROMCLIENT_EUNREACHABLE;
	}
	free(b.data);
	return ret;
}
