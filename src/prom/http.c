// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's /metrics endpoint on libmicrohttpd (MHD).
 *
 * The listening socket is made here and handed to MHD
 * (MHD_OPTION_LISTEN_SOCKET): MHD_start_daemon() only says NULL, while our
 * own bind() says EADDRINUSE or EACCES, which is what a user can act on; it
 * is also where the port the kernel picked for port 0 is read, and where
 * the socket is made close-on-exec and, for IPv6, IPv6-only, so "[::]"
 * means IPv6 whatever net.ipv6.bindv6only says.
 *
 * One internal polling thread serves every connection; MHD picks epoll
 * (MHD_USE_AUTO), never select(), which cannot watch a descriptor above
 * 1023 and the daemon holds many BPF ones.  The render function therefore
 * runs on that thread, concurrently with the caller's: it must be
 * thread-safe.  The thread is started with every signal blocked, so the
 * daemon's signals are always taken by its own threads.
 *
 * Every request is answered on the first call of the access handler, as
 * soon as its headers are in.  MHD then never reads a request body (it
 * neither buffers an upload nor hands it to the handler) and closes the
 * connection after the answer: one request per connection, which costs a
 * scraper one TCP handshake per scrape and bounds what a client can hold.
 *
 * Under --web-config (src/prom/webconfig.h), MHD speaks TLS through GnuTLS with
 * the certificate and key read at start, and basic auth is checked before
 * anything else: a password that verified before on this thread, in
 * microseconds; any other by bcrypt on a thread of its own
 * (src/prom/httpauth.h), the connection suspended meanwhile.
 *
 * Every connection must have finished its TLS handshake and sent its
 * request headers HTTP_REQUEST_DEADLINE_S after it was accepted, or it is
 * shut down (src/prom/httpwatch.h).
 */
#include "prom/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prom/httpauth.h"
#include "prom/httpwatch.h"
#include "prom/webconfig.h"

/*
 * The bounds.  A scraper needs one connection and a request of a few
 * hundred bytes; people with curl or a browser a few more connections.
 * The total is eight times what one address may hold, so that clients on
 * a few addresses that connect and stall cannot take every slot (with 16
 * and 8 two addresses could: 4 of 7 scrapes got through, docs/hardening.md,
 * "The daemon's endpoint under load"); and a slot that never gets its
 * request is given back after HTTP_REQUEST_DEADLINE_S (http.h), not the
 * idle timeout, which a client that sends a byte now and then never meets.
 * 64 connections are 64 descriptors and at most 64 x 16 KiB of MHD's
 * memory, plus GnuTLS's state for each.
 */
enum {
	HTTP_CONNECTIONS = 64,        /* at once; more wait in the listen queue */
	HTTP_CONNECTIONS_PER_IP = 8,  /* so a few addresses cannot take them all */
	HTTP_BACKLOG = 64,            /* the listen queue: as many again may wait */
	HTTP_IDLE_TIMEOUT_S = 10,     /* a silent connection is closed after this */
	/* MHD's memory per connection, which bounds the request line and headers
	 * (MHD answers 414 or 431 beyond); a reply body is a buffer of its own. */
	HTTP_CONNECTION_MEMORY = 16 * 1024,
};

#define LISTEN_FORM "expected ADDR:PORT, e.g. 127.0.0.1:23649, [::1]:23649 or :23649"

#define CONTENT_TYPE_TEXT "text/plain; charset=utf-8"
#define CONTENT_TYPE_HTML "text/html; charset=utf-8"
/* "/": what a person who opens the exporter's address in a browser is after. */
#define LANDING_PAGE "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">" \
	"<title>permscope daemon</title></head>\n<body><h1>permscope daemon</h1>\n" \
	"<p>The permission-check fast paths of this machine, as Prometheus metrics: " \
	"<a href=\"/metrics\">/metrics</a></p>\n</body></html>\n"
/* The Prometheus text exposition format. */
#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

struct http_server {
	struct MHD_Daemon *mhd;
	http_render_fn render;
	void *ctx;
	struct webconfig *web;  /* NULL: plain HTTP, no auth */
	struct http_auth *auth; /* the bcrypt thread, with web's users */
	struct http_watch *watch; /* the request deadline */
	uint64_t answers[HTTP_NCODES]; /* by http_codes[]; atomic */
	int loopback;
	char address[INET6_ADDRSTRLEN + sizeof("[]:65535")];
};

/* ---- ADDR:PORT ------------------------------------------------------------ */

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* 0..65535 in decimal digits only: no sign, no space, no hex. */
static int parse_port(const char *s, uint16_t *port, char *err, size_t errlen)
{
	size_t digits = strspn(s, "0123456789");
	unsigned long v;

	if (!*s)
		return fail(err, errlen, "missing port after ':'; " LISTEN_FORM);
	if (s[digits])
		return fail(err, errlen, "port '%s' is not a number; " LISTEN_FORM, s);
	v = digits > 5 ? 65536 : strtoul(s, NULL, 10);
	if (v > 65535)
		return fail(err, errlen, "port %s is out of range (0..65535; 0 picks a free one)", s);
	*port = v;
	return 0;
}

int http_parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *sslen,
		      char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN];
	const char *addr, *port;
	size_t addrlen;
	int family;
	uint16_t p;

	memset(ss, 0, sizeof(*ss));
	*sslen = 0;
	if (!arg || !*arg)
		return fail(err, errlen, "empty; " LISTEN_FORM);
	/*
	 * As exporters are given it (node_exporter's --web.listen-address), but
	 * never wider than asked: ":PORT" and "localhost:PORT" are loopback's;
	 * all interfaces only as 0.0.0.0:PORT or [::]:PORT, written out.
	 */
	if ((arg[0] == ':' && !strchr(arg + 1, ':')) || !strncmp(arg, "localhost:", 10)) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (parse_port(strchr(arg, ':') + 1, &p, err, errlen))
			return -1;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons(p);
		*sslen = sizeof(*in);
		return 0;
	}
	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');

		if (!close)
			return fail(err, errlen, "'[' without ']'; " LISTEN_FORM);
		if (close[1] != ':')
			return fail(err, errlen, "missing :PORT after ']'; " LISTEN_FORM);
		family = AF_INET6;
		addr = arg + 1;
		addrlen = close - addr;
		port = close + 2;
	} else {
		const char *colon = strrchr(arg, ':');

		if (!colon)
			return fail(err, errlen, "missing :PORT; " LISTEN_FORM);
		if (memchr(arg, ':', colon - arg))
			return fail(err, errlen, "an IPv6 address goes in brackets: [::1]:23649");
		family = AF_INET;
		addr = arg;
		addrlen = colon - arg;
		port = colon + 1;
	}
	if (!addrlen)
		return fail(err, errlen, "missing address before :PORT; " LISTEN_FORM);
	if (addrlen >= sizeof(host))
		return fail(err, errlen, "'%.*s...' is not a numeric address; " LISTEN_FORM, 16, addr);
	memcpy(host, addr, addrlen);
	host[addrlen] = 0;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return fail(err, errlen, "'%s' is not a numeric IPv4 address (names are "
				    "not resolved); " LISTEN_FORM, host);
		if (parse_port(port, &p, err, errlen))
			return -1;
		in->sin_family = AF_INET;
		in->sin_port = htons(p);
		*sslen = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return fail(err, errlen, "'%s' is not a numeric IPv6 address; " LISTEN_FORM,
				    host);
		/* An IPv6-only socket cannot bind one (EINVAL). */
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return fail(err, errlen, "'%s' is an IPv4 address: give it as A.B.C.D:PORT",
				    host);
		if (parse_port(port, &p, err, errlen))
			return -1;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*sslen = sizeof(*in6);
	}
	return 0;
}

/* ---- the listening socket ------------------------------------------------- */

/* "127.0.0.1:23649" or "[::1]:23649", and whether that is a loopback address. */
static void describe(const struct sockaddr_storage *ss, char *buf, size_t len, int *loopback)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
		*loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	} else {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
		*loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
}

/* What a user can do about a failed socket(), bind() or listen() on `arg`. */
static void explain(int e, const char *arg, const struct sockaddr_storage *ss, char *err,
		    size_t errlen)
{
	uint16_t port = ntohs(ss->ss_family == AF_INET6 ?
			      ((const struct sockaddr_in6 *)ss)->sin6_port :
			      ((const struct sockaddr_in *)ss)->sin_port);

	if (e == EADDRINUSE)
		snprintf(err, errlen, "%s: address in use (another daemon? pick one with --listen)",
			 arg);
	else if (e == EACCES && port < 1024)
		snprintf(err, errlen, "%s: permission denied (a port below 1024 needs "
			 "CAP_NET_BIND_SERVICE; pick another with --listen)", arg);
	else if (e == EADDRNOTAVAIL)
		snprintf(err, errlen, "%s: not an address of this machine (EADDRNOTAVAIL)", arg);
	else if (e == EAFNOSUPPORT)
		snprintf(err, errlen, "%s: this machine has no %s (EAFNOSUPPORT)", arg,
			 ss->ss_family == AF_INET6 ? "IPv6" : "IPv4");
	else
		snprintf(err, errlen, "%s: cannot listen: %s", arg, strerror(e));
}

/* A listening socket on `ss`, its bound address described into `s`; -1 with `err` filled. */
static int open_listener(const char *arg, const struct sockaddr_storage *ss, socklen_t sslen,
			 struct http_server *s, char *err, size_t errlen)
{
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	int one = 1, fd, e;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		explain(errno, arg, ss, err, errlen);
		return -1;
	}
	/* A restarted daemon gets its port back while old connections linger in
	 * TIME_WAIT; a socket still listening there keeps it (EADDRINUSE). */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, HTTP_BACKLOG) ||
	    getsockname(fd, (struct sockaddr *)&bound, &boundlen)) {
		e = errno;
		close(fd);
		explain(e, arg, ss, err, errlen);
		return -1;
	}
	describe(&bound, s->address, sizeof(s->address), &s->loopback);
	return fd;
}

/* ---- answers ---------------------------------------------------------------- */

const unsigned int http_codes[HTTP_NCODES] = { 200, 401, 404, 405, 429, 500 };

static void count(struct http_server *s, unsigned int status)
{
	for (int i = 0; i < HTTP_NCODES; i++)
		if (http_codes[i] == status)
			__atomic_fetch_add(&s->answers[i], 1, __ATOMIC_RELAXED);
}

void http_stats(const struct http_server *s, struct http_stats *st)
{
	for (int i = 0; i < HTTP_NCODES; i++)
		st->answers[i] = s ? __atomic_load_n(&s->answers[i], __ATOMIC_RELAXED) : 0;
}

/*
 * Queue `r` (NULL: it could not be made) as the answer, with `type`, what
 * every answer carries and a 405's Allow, and drop our reference.  MHD_NO makes MHD
 * close the connection without an answer.
 */
static enum MHD_Result answer(struct http_server *s, struct MHD_Connection *c,
			      unsigned int status, struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	/* nosniff: never let a browser take a label value for HTML. */
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES ||
	    MHD_add_response_header(r, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff") !=
	    MHD_YES ||
	    (status == MHD_HTTP_METHOD_NOT_ALLOWED &&
	     MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	/* WWW-Authenticate: Basic realm="permscope", added by MHD. */
	if (status == MHD_HTTP_UNAUTHORIZED)
		ret = MHD_queue_basic_auth_fail_response(c, "permscope", r);
	else
		ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	if (ret == MHD_YES)
		count(s, status);
	return ret;
}

/* A fixed text: nothing a client sent is ever put into one. */
static struct MHD_Response *text(const char *t)
{
	return MHD_create_response_from_buffer(strlen(t), (void *)t, MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result answer_metrics(struct http_server *s, struct MHD_Connection *c)
{
	struct MHD_Response *r;
	size_t len = 0;
	char *body = s->render(s->ctx, &len);

	if (!body)
		return answer(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      text("permscope: the metrics could not be rendered\n"),
			      CONTENT_TYPE_TEXT);
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r)
		free(body);
	return answer(s, c, MHD_HTTP_OK, r, CONTENT_TYPE_METRICS);
}

/* A request that could not be served whoever sent it: no bcrypt is spent on one. */
static bool unservable(struct MHD_Connection *c, const char *method)
{
	return (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/*
 * Basic auth, when the web config has users, on the request's first call:
 * WEBAUTH_OK to go on, WEBAUTH_DENIED for a 401, -1 when the password
 * went to the checker (*job) and the connection is suspended until it is
 * checked, -2 when it could not go (no memory, stopping: the connection
 * closes unanswered).  A request that could never be served is not
 * checked unless its password verified before: 401 (a stranger learns
 * nothing, not even that a method is not served).  Nothing the client
 * sent is kept here: the password is wiped before MHD's copy is freed.
 */
static int authenticate(struct http_server *s, struct MHD_Connection *c, const char *method,
			struct http_auth_job **job)
{
	char *password = NULL, *user;
	int verdict = WEBAUTH_DENIED;

	user = MHD_basic_auth_get_username_password(c, &password);
	if (user && password) {
		if (webconfig_remembered(s->web, user, password))
			verdict = WEBAUTH_OK;
		else if (!unservable(c, method)) {
			*job = http_auth_check(s->auth, c, user, password);
			verdict = *job ? -1 : -2;
		}
	}
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	return verdict;
}

/* A checked request's job, freed when MHD is done with the request. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)c, (void)toe;
	http_auth_free(*con_cls);
	*con_cls = NULL;
}

/* Accepted: the request deadline starts; closed: it ends. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *s = cls;
	const union MHD_ConnectionInfo *fd;

	(void)socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_watch_done(s->watch, c);
		return;
	}
	fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (fd)
		http_watch_add(s->watch, c, fd->connect_fd);
}

/*
 * MHD's access handler, called as soon as a request's headers are in (the
 * request line and headers within HTTP_CONNECTION_MEMORY; MHD itself
 * refuses longer ones and malformed ones).  `url` is the path, unescaped,
 * without the query.  Answering on this first call means MHD reads no body
 * and never calls this again for the request (see the top of the file), so
 * upload_data is never seen.  HEAD gets GET's answer: MHD sends its headers,
 * Content-Length included, and not its body.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct http_server *s = cls;
	struct http_auth_job *job = *con_cls;
	int verdict = WEBAUTH_OK;

	(void)version, (void)upload_data;
	/* Before anything else: a client without the password learns nothing, not even a 404. */
	if (job) {
		/* Resumed by the checker.  unservable() let no body through. */
		if (*upload_data_size || !__atomic_load_n(&job->done, __ATOMIC_ACQUIRE))
			return MHD_NO;
		verdict = job->verdict;
	} else {
		/* In time: from here on the idle timeout alone. */
		http_watch_done(s->watch, c);
		if (s->web && s->web->nusers) {
			verdict = authenticate(s, c, method, &job);
			if (verdict == -1) {
				*con_cls = job;
				return MHD_YES;
			}
			if (verdict < 0)
				return MHD_NO;
		}
	}
	if (verdict != WEBAUTH_OK)
		return answer(s, c, MHD_HTTP_UNAUTHORIZED, text("permscope: unauthorized\n"),
			      CONTENT_TYPE_TEXT);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer(s, c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      text("permscope: only GET and HEAD are served\n"), CONTENT_TYPE_TEXT);
	if (!strcmp(url, "/metrics"))
		return answer_metrics(s, c);
	if (!strcmp(url, "/")) /* as exporters answer it: a page that links the metrics */
		return answer(s, c, MHD_HTTP_OK, text(LANDING_PAGE), CONTENT_TYPE_HTML);
	return answer(s, c, MHD_HTTP_NOT_FOUND, text("permscope: not found; metrics at /metrics\n"),
		      CONTENT_TYPE_TEXT);
}

/*
 * MHD's messages, one line each: "permscope: http: ..." on stderr, at most
 * HTTP_LOG_PER_MINUTE a minute.  Under TLS every client that does not
 * speak it (a port scan, curl http://) makes MHD say "received handshake
 * message out of context": without a bound anyone who reaches the port
 * could fill the log.
 */
enum { HTTP_LOG_PER_MINUTE = 10 };

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t minute;
	static unsigned int said, dropped;
	time_t now = time(NULL);
	char msg[512];
	size_t len;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = 0;
	pthread_mutex_lock(&lock);
	if (now - minute >= 60) {
		if (dropped)
			fprintf(stderr, "permscope: http: %u more messages in the minute before "
				"not shown\n", dropped);
		minute = now;
		said = dropped = 0;
	}
	if (said++ < HTTP_LOG_PER_MINUTE)
		fprintf(stderr, "permscope: http: %s\n", msg);
	else
		dropped++;
	pthread_mutex_unlock(&lock);
}

/* ---- the server --------------------------------------------------------------- */

/* The checker and the watch, once MHD is stopped or never started. */
static void stop_threads(struct http_server *s)
{
	http_auth_stop(s->auth);
	http_auth_destroy(s->auth);
	http_watch_stop(s->watch);
}

int http_tls_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

struct http_server *http_start(const char *listen_arg, http_render_fn render, void *ctx,
			       char *err, size_t errlen)
{
	return http_start_web(listen_arg, NULL, render, ctx, err, errlen);
}

struct http_server *http_start_web(const char *listen_arg, struct webconfig *web,
				   http_render_fn render, void *ctx, char *err, size_t errlen)
{
	bool tls = web && web->tls;
	/* MHD copies none of these: web's buffers live as long as the server. */
	struct MHD_OptionItem tls_options[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, tls ? web->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? web->key_pem : NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, tls ? (void *)webconfig_priorities(web) : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	struct sockaddr_storage ss;
	struct http_server *s;
	sigset_t all, old;
	socklen_t sslen;
	char why[256];
	int fd;

	if (http_parse_listen(listen_arg, &ss, &sslen, why, sizeof(why))) {
		snprintf(err, errlen, "--listen %s: %s", listen_arg ? listen_arg : "", why);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "%s: %s", listen_arg, strerror(ENOMEM));
		return NULL;
	}
	s->render = render;
	s->ctx = ctx;
	s->web = web;
	if (tls && !http_tls_supported()) {
		snprintf(err, errlen, "%s: this libmicrohttpd was built without TLS support, which "
			 "--web-config's tls_server_config needs", listen_arg);
		free(s);
		return NULL;
	}
	fd = open_listener(listen_arg, &ss, sslen, s, err, errlen);
	if (fd < 0) {
		free(s);
		return NULL;
	}
	/* MHD's thread and ours inherit this mask. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->watch = http_watch_start(HTTP_CONNECTIONS, HTTP_REQUEST_DEADLINE_S * 1000);
	s->auth = web && web->nusers ? http_auth_start(web) : NULL;
	if (!s->watch || (web && web->nusers && !s->auth)) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		stop_threads(s);
		close(fd);
		snprintf(err, errlen, "%s: cannot start the HTTP server's threads: %s", listen_arg,
			 strerror(EAGAIN));
		free(s);
		return NULL;
	}
	s->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
				  MHD_ALLOW_SUSPEND_RESUME |
				  MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0) |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, on_request, s,
				  /* first, so that MHD's start-up messages go through it too */
				  MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
				  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)HTTP_CONNECTIONS_PER_IP,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				  MHD_OPTION_ARRAY, tls ? tls_options : &tls_options[3],
				  MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->mhd) {
		/*
		 * fd is not closed here: MHD closes a listen socket it was given
		 * on every failure past its option parsing (and our options are
		 * fixed), and on the few before it (no memory, no descriptor for
		 * its own use) it leaves it open; closing it again could close a
		 * descriptor another thread has opened since.
		 */
		snprintf(err, errlen, "%s: the HTTP server did not start (libmicrohttpd's "
			 "message above says why)", listen_arg);
		stop_threads(s);
		free(s);
		return NULL;
	}
	return s;
}

const char *http_address(const struct http_server *s)
{
	return s->address;
}

int http_is_loopback(const struct http_server *s)
{
	return s->loopback;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	/* No connection may be suspended when MHD stops: the checker resumes them. */
	http_auth_stop(s->auth);
	/* Joins MHD's thread, closes every connection and the listening socket. */
	MHD_stop_daemon(s->mhd);
	http_auth_destroy(s->auth);
	http_watch_stop(s->watch);
	free(s);
}
