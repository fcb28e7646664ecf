/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A Prometheus that lies, for the tests of what permscope believes: a
 * loopback HTTP server (libmicrohttpd) in front of a real Prometheus,
 * which forwards each /api/v1/query to it and hands the real answer to
 * the test's mutate() before it answers.  So the answers are the real
 * server's, query for query, but for the one thing a test changes: a
 * sample's value, a label, a warning, a dropped family; or, with
 * fakeprom_reply fields, a status, a header, a delay, a body of its own
 * (gzip-encoded when asked), where no real server would oblige.
 *
 * mutate() runs on the server's thread; the test sets it, and the
 * fields it reads, before the command it runs and not during.
 */
#ifndef PERMSCOPE_TESTS_FAKEPROM_H
#define PERMSCOPE_TESTS_FAKEPROM_H

#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <zlib.h>

#include "testutil.h"

struct fakeprom_reply {
	unsigned int status;  /* 0: 200 */
	const char *location; /* a Location header */
	char *body;           /* malloc'ed: sent instead of the (mutated) answer */
	size_t body_len;
	bool gzip;            /* body is gzip data: Content-Encoding: gzip */
};

struct fakeprom {
	struct MHD_Daemon *d;
	int port;
	char url[64];
	const char *upstream;
	/* changes ANSWER (the real one, parsed) for QUERY, or fills R */
	void (*mutate)(const char *query, json_t *answer, struct fakeprom_reply *r);
	unsigned int delay_ms; /* before each answer */
	unsigned int queries;  /* answered so far */
	char auth[1024];       /* the last Authorization header, as sent */
};

static inline size_t fakeprom_body(char *p, size_t size, size_t n, void *ctx)
{
	struct { char *d; size_t len; } *b = ctx;
	char *q = realloc(b->d, b->len + size * n + 1);

	if (!q)
		return 0;
	memcpy(q + b->len, p, size * n);
	b->d = q;
	b->len += size * n;
	b->d[b->len] = 0;
	return size * n;
}

/* The real server's answer to QUERY at TIME (NULL: now), parsed. */
static inline json_t *fakeprom_upstream(const struct fakeprom *fp, const char *query,
					const char *time)
{
	struct { char *d; size_t len; } b = { 0 };
	CURL *c = curl_easy_init();
	char *q = curl_easy_escape(c, query, 0), *url = NULL;
	json_t *j = NULL;

	if (asprintf(&url, "%s/api/v1/query?query=%s%s%s", fp->upstream, q, time ? "&time=" : "",
		     time ? time : "") > 0) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fakeprom_body);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
		if (!curl_easy_perform(c) && b.d)
			j = json_loads(b.d, 0, NULL);
	}
	free(url);
	free(b.d);
	curl_free(q);
	curl_easy_cleanup(c);
	return j;
}

static inline enum MHD_Result fakeprom_handler(void *cls, struct MHD_Connection *conn,
					       const char *url, const char *method,
					       const char *version, const char *upload,
					       size_t *upload_size, void **con_cls)
{
	struct fakeprom *fp = cls;
	struct fakeprom_reply r = { 0 };
	const char *query = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "query");
	const char *time = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "time");
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	struct MHD_Response *resp;
	json_t *answer = NULL;
	enum MHD_Result ret;

	(void)url, (void)method, (void)version, (void)upload, (void)upload_size, (void)con_cls;
	snprintf(fp->auth, sizeof(fp->auth), "%s", auth ? auth : "");
	if (fp->delay_ms)
		usleep(fp->delay_ms * 1000u);
	fp->queries++;
	if (query)
		answer = fakeprom_upstream(fp, query, time);
	if (!answer)
		answer = json_pack("{s:s,s:s,s:s}", "status", "error", "errorType", "internal",
				   "error", "the fake's upstream did not answer");
	if (fp->mutate)
		fp->mutate(query ? query : "", answer, &r);
	if (!r.body) {
		r.body = json_dumps(answer, JSON_COMPACT);
		r.body_len = r.body ? strlen(r.body) : 0;
	}
	json_decref(answer);
	resp = MHD_create_response_from_buffer(r.body_len, r.body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type", "application/json");
	if (r.gzip)
		MHD_add_response_header(resp, "Content-Encoding", "gzip");
	if (r.location)
		MHD_add_response_header(resp, "Location", r.location);
	ret = MHD_queue_response(conn, r.status ? r.status : 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

static inline void fakeprom_start(struct fakeprom *fp, const char *upstream)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const union MHD_DaemonInfo *info;

	memset(fp, 0, sizeof(*fp));
	fp->upstream = upstream;
	fp->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
				 NULL, fakeprom_handler, fp, MHD_OPTION_SOCK_ADDR, &a,
				 MHD_OPTION_END);
	if (!fp->d)
		fail_msg("fakeprom: MHD_start_daemon failed");
	info = MHD_get_daemon_info(fp->d, MHD_DAEMON_INFO_BIND_PORT);
	fp->port = info ? info->port : 0;
	snprintf(fp->url, sizeof(fp->url), "http://127.0.0.1:%d", fp->port);
}

static inline void fakeprom_stop(struct fakeprom *fp)
{
	if (fp->d)
		MHD_stop_daemon(fp->d);
	fp->d = NULL;
}

/* Each sample of ANSWER's vector whose labels hold NAME=VALUE (NULL: any). */
#define fakeprom_foreach_sample(answer, i, s) \
	json_array_foreach(json_object_get(json_object_get((answer), "data"), "result"), (i), (s))

static inline bool fakeprom_label_is(json_t *sample, const char *name, const char *value)
{
	const char *v = json_string_value(json_object_get(json_object_get(sample, "metric"), name));

	return v && (!value || !strcmp(v, value));
}

static inline void fakeprom_set_value(json_t *sample, const char *value)
{
	json_array_set_new(json_object_get(sample, "value"), 1, json_string(value));
}

/* TEXT gzip-compressed into a malloc'ed buffer (a gzip stream, as HTTP's). */
static inline char *fakeprom_gzip(const char *text, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = compressBound(len) + 64;
	char *out = malloc(cap);

	if (!out || deflateInit2(&z, 1, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		fail_msg("fakeprom: deflateInit2");
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fail_msg("fakeprom: deflate");
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

#endif
