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

#include "prom/promanswer.h"
#include "prom/promclient.h"
#include "util.h"

/* A password or token file bigger than this is not one. */
#define SECRET_MAX 4096

struct promclient {
	CURL *curl;
	char *base;     /* the URL without a trailing '/' */
	char *user;
	char *password; /* wiped on free */
	char *token;    /* wiped on free */
	char *basic;    /* base64 of user:password, as an Authorization header carries it */
	char curl_err[CURL_ERROR_SIZE];
	int verbose;
	double timeout_s;     /* the whole read's, every query of this client */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC: when that time is up */
	unsigned int queries; /* made so far */
};

/* An answer as it streams in: into the parser, its start kept for messages. */
struct body {
	struct promanswer *parse;
	size_t len;
	char head[193];
	bool too_big;
	int parse_ret; /* the parser's first nonzero return */
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
	case PROMCLIENT_ETIMEOUT: return "timeout";
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

/* RFC 4648 base64 of S, malloc'ed: what a Basic Authorization header carries. */
static char *base64(const char *s)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;
	char *out = malloc(4 * ((n + 2) / 3) + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = (unsigned char)s[i] << 16;

		v |= i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)s[i + 2] : 0;
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[o] = 0;
	return out;
}

/* Every copy of SECRET in MSG (NUL-terminated, in place) becomes "<secret>". */
static void redact_one(char *msg, const char *secret)
{
	static const char mark[] = "<secret>";
	size_t sl = secret ? strlen(secret) : 0;
	char *p;

	if (sl < 1)
		return;
	while ((p = strstr(msg, secret))) {
		size_t rest = strlen(p + sl);

		if (sl >= sizeof(mark) - 1) {
			memcpy(p, mark, sizeof(mark) - 1);
			memmove(p + sizeof(mark) - 1, p + sl, rest + 1);
		} else {
			/* shorter than the mark: starred out in place */
			memset(p, '*', sl);
		}
	}
}

/*
 * No secret in any message: a server's error page or error text can echo
 * the request, its Authorization header with it.
 */
static void redact(const struct promclient *c, char *msg, size_t size)
{
	if (!msg || !size)
		return;
	redact_one(msg, c->password);
	redact_one(msg, c->token);
	redact_one(msg, c->basic);
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
	c->timeout_s = opts->timeout_s > 0 ? opts->timeout_s : PROMCLIENT_TIMEOUT_S;
	c->deadline_ns = now_monotonic_ns() + (uint64_t)(c->timeout_s * 1e9);
	if (opts->user && (!(c->user = strdup(opts->user)) ||
			   !(c->password = read_secret("password file", opts->password_file,
						      err, errlen))))
		goto fail;
	if (c->user) {
		char *pair = NULL;

		if (asprintf(&pair, "%s:%s", c->user, c->password) < 0 ||
		    !(c->basic = base64(pair))) {
			wipe_free(pair);
			seterr(err, errlen, "out of memory");
			goto fail;
		}
		wipe_free(pair);
	}
	if (opts->bearer_token_file &&
	    !(c->token = read_secret("bearer token file", opts->bearer_token_file, err,
				     errlen)))
		goto fail;

	CURL *h = c->curl;

	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* A redirect is reported, never followed: no credential leaves the host. */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
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
	wipe_free(c->basic);
	free(c);
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct body *b = ctx;
	size_t n = size * nmemb;

	/* decoded bytes: a compressed answer is bounded by what it unpacks to */
	if (b->len + n > PROMCLIENT_MAX_BODY) {
		b->too_big = true;
		return 0; /* curl stops with CURLE_WRITE_ERROR */
	}
	if (b->len < sizeof(b->head) - 1) {
		size_t k = sizeof(b->head) - 1 - b->len;

		memcpy(b->head + b->len, ptr, k < n ? k : n);
	}
	b->len += n;
	/*
	 * A parse that stopped stops the transfer; what it means (an error
	 * page is no JSON either, a caller that gave up) is judged with the
	 * HTTP status, which curl keeps.
	 */
	if ((b->parse_ret = promanswer_feed(b->parse, ptr, n)))
		return 0;
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
	char line[161];
	size_t n = 0;

	for (const char *p = data ? data : ""; *p && *p != '\n' && n < 160; p++)
		line[n++] = *p;
	line[n] = 0;
	escape_text(line, out, size);
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

/*
 * Judges an answer: status, envelope.  The API's error envelope
 * ({"status":"error","errorType":..,"error":..}) names the cause whatever
 * the HTTP status; bad_data is a query Prometheus refused.  Every text
 * from the answer is escaped before it is part of a message.
 */
static int judge(struct promclient *c, long status, struct body *b,
		 struct promclient_answer *ans, char *err, size_t errlen)
{
	struct promanswer *a = b->parse;
	const char *st = promanswer_status(a), *etype = promanswer_error_type(a);
	const char *rtype = promanswer_result_type(a);
	char emsg[4 * PROMANSWER_TEXT_MAX + 1], et[128], line[4 * 161], rt[64];
	bool parsed = b->parse_ret == 0 && !promanswer_finish(a);

	escape_text(promanswer_error_text(a), emsg, sizeof(emsg));
	escape_text(etype, et, sizeof(et));
	escape_text(rtype, rt, sizeof(rt));
	if (b->parse_ret > 0 || b->parse_ret < -1)
		return b->parse_ret; /* the caller's own code */
	if (!strcmp(st, "error") && !strcmp(etype, "bad_data")) {
		seterr(err, errlen, "prometheus %s rejected the query: %s", c->base,
		       *emsg ? emsg : "bad_data");
		return PROMCLIENT_EREJECTED;
	}
	if (status != 200 || !strcmp(st, "error")) {
		if (*et || *emsg) {
			seterr(err, errlen, "prometheus %s: HTTP %ld: %s: %s", c->base, status,
			       *et ? et : "error", *emsg ? emsg : "(no message)");
		} else if (status >= 300 && status < 400) {
			char *loc = NULL, where[4 * 256 + 1];

			curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &loc);
			seterr(err, errlen, "prometheus %s: HTTP %ld: redirected to %s, not"
			       " followed (give that server's URL)", c->base, status,
			       loc ? escape_text(loc, where, sizeof(where)) : "(no Location)");
		} else {
			first_line(b->head, line, sizeof(line));
			seterr(err, errlen, "prometheus %s: HTTP %ld%s%s", c->base, status,
			       *line ? ": " : "", line);
		}
		return PROMCLIENT_EHTTP;
	}
	if (!parsed || strcmp(st, "success") || !*rtype) {
		char why[300];

		first_line(b->head, line, sizeof(line));
		escape_text(promanswer_error(a), why, sizeof(why));
		seterr(err, errlen, "prometheus %s: not an answer of the query API (%s): %s",
		       c->base, *why ? why : "no status, data or resultType",
		       *line ? line : "(empty)");
		return PROMCLIENT_EMALFORMED;
	}
	if (strcmp(rtype, "vector")) {
		seterr(err, errlen, "prometheus %s: the query gives a %s, not an instant"
		       " vector", c->base, rt);
		return PROMCLIENT_ETYPE;
	}
	if (!promanswer_has_result(a) || !promanswer_samples_ok(a)) {
		seterr(err, errlen, "prometheus %s: a vector whose samples are not"
		       " {metric, value: [time, \"number\"]}", c->base);
		return PROMCLIENT_EMALFORMED;
	}
	if (ans) {
		ans->nsamples = promanswer_nsamples(a);
		ans->nwarnings = promanswer_nwarnings(a);
		escape_text(promanswer_warning(a, 0), ans->warning, sizeof(ans->warning));
	}
	return PROMCLIENT_OK;
}

int promclient_query(struct promclient *c, const char *promql, double at_unix,
		     const char *const *keep, promanswer_sample_fn fn, void *ctx,
		     struct promclient_answer *ans, char *err, size_t errlen)
{
	struct body b = { 0 };
	char *q, *url = NULL, at[64];
	uint64_t now = now_monotonic_ns();
	long status = 0;
	CURLcode rc;
	int ret;

	if (ans)
		memset(ans, 0, sizeof(*ans));
	if (now >= c->deadline_ns) {
		seterr(err, errlen, "prometheus %s: the read took longer than its %g s "
		       "(--timeout) after %u queries; nothing is judged on part of it", c->base,
		       c->timeout_s, c->queries);
		return PROMCLIENT_ETIMEOUT;
	}
	c->queries++;
	if (c->verbose) {
		format_at(at_unix, at, sizeof(at));
		fprintf(stderr, "query: %s @ %s\n", promql, at);
	}
	q = curl_easy_escape(c->curl, promql, 0);
	if (!q || (at_unix > 0 ? asprintf(&url, "%s/api/v1/query?query=%s&time=%.3f",
					   c->base, q, at_unix)
			       : asprintf(&url, "%s/api/v1/query?query=%s", c->base, q)) < 0 ||
	    !(b.parse = promanswer_new(keep, fn, ctx))) {
		curl_free(q);
		free(url);
		seterr(err, errlen, "out of memory");
		return PROMCLIENT_EOPTS;
	}
	curl_free(q);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
	/* what is left of the whole read's time, at least a millisecond */
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS,
			 (long)((c->deadline_ns - now) / 1000000 + 1));
	c->curl_err[0] = 0;
	rc = curl_easy_perform(c->curl);
	free(url);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
		ret = judge(c, status, &b, ans, err, errlen);
	} else if (b.too_big) {
		seterr(err, errlen, "prometheus %s: an answer over %u MiB, refused", c->base,
		       PROMCLIENT_MAX_BODY >> 20);
		ret = PROMCLIENT_EMALFORMED;
	} else if (rc == CURLE_WRITE_ERROR && b.parse_ret) {
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
		ret = judge(c, status, &b, ans, err, errlen);
	} else if (rc == CURLE_OPERATION_TIMEDOUT && now_monotonic_ns() >= c->deadline_ns) {
		seterr(err, errlen, "prometheus %s: no whole answer within the read's %g s "
		       "(--timeout), at query %u; nothing is judged on part of it", c->base,
		       c->timeout_s, c->queries);
		ret = PROMCLIENT_ETIMEOUT;
	} else {
		char why[4 * CURL_ERROR_SIZE];

		/* libcurl's buffer names the address and the cause; its code, the kind. */
		escape_text(c->curl_err[0] ? c->curl_err : curl_easy_strerror(rc), why,
			    sizeof(why));
		seterr(err, errlen, "prometheus %s: %s%s", c->base, tls_error(rc) ? "TLS: " : "",
		       why);
		ret = tls_error(rc) ? PROMCLIENT_ETLS : PROMCLIENT_EUNREACHABLE;
	}
	promanswer_free(b.parse);
	redact(c, err, errlen);
	return ret;
}
