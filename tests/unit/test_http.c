// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's HTTP endpoint (src/prom/http.c), spoken to with plain sockets:
 * which addresses --listen takes, what each request gets and never gets,
 * and that the bounds on requests and connections hold while the server
 * keeps answering.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>

#include "testutil.h"

#include "prom/http.h"

/* The limits src/prom/http.c sets, as a client sees them. */
#define CONNECTIONS 64
#define CONNECTIONS_PER_IP 8

#define KNOWN_BODY "# HELP permscope_test A known body.\n" \
		   "# TYPE permscope_test counter\n"       \
		   "permscope_test 42\n"

/* What the render function serves (NULL: it fails), and how often it ran. */
struct source {
	const char *body;
	atomic_int calls;
};

static char *render(void *ctx, size_t *len)
{
	struct source *src = ctx;

	atomic_fetch_add(&src->calls, 1);
	if (!src->body)
		return NULL;
	*len = strlen(src->body);
	return strdup(src->body);
}

/* One server per test, on 127.0.0.1 and a port the kernel picks. */
struct fixture {
	struct source src;
	struct http_server *server;
};

static struct http_server *start(const char *listen, struct source *src)
{
	char err[512] = "";
	struct http_server *s = http_start(listen, render, src, err, sizeof(err));

	if (!s)
		fail_msg("http_start %s: %s", listen, err);
	return s;
}

static int serve_known_body(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->src.body = KNOWN_BODY;
	f->server = start("127.0.0.1:0", &f->src);
	*state = f;
	return 0;
}

static int stop_server(void **state)
{
	struct fixture *f = *state;

	http_stop(f->server);
	free(f);
	return 0;
}

/* ---- a client ------------------------------------------------------------- */

/*
 * A TCP connection to ADDRESS ("127.0.0.1:41234", "[::1]:41234"), from the
 * address SOURCE ("127.0.0.2:0") unless it is NULL.  -1 with errno set when
 * the bind or the connect fails.
 */
static int dial(const char *address, const char *source)
{
	struct sockaddr_storage to, from;
	socklen_t tolen, fromlen;
	char err[256];
	int fd, e;

	if (http_parse_listen(address, &to, &tolen, err, sizeof(err)))
		fail_msg("%s: %s", address, err);
	fd = socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	if (source && http_parse_listen(source, &from, &fromlen, err, sizeof(err)))
		fail_msg("%s: %s", source, err);
	if ((source && bind(fd, (struct sockaddr *)&from, fromlen)) ||
	    connect(fd, (struct sockaddr *)&to, tolen)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int must_dial(const char *address, const char *source)
{
	int fd = dial(address, source);

	if (fd < 0)
		fail_msg("connect to %s from %s: %s", address, source ? source : "any",
			 strerror(errno));
	return fd;
}

/* Sends what it can of LEN bytes; a server that closes early stops it quietly. */
static void send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Whether FD has something to read (bytes, EOF or a reset) within MS. */
static bool readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* What came back: all of it, and its parts. */
struct reply {
	char *raw;          /* NUL-terminated */
	size_t len;
	bool closed;        /* the server closed (EOF or reset) before the time ran out */
	int status;         /* 0: no status line */
	const char *body;   /* after the blank line; NULL without one */
	size_t body_len;
};

/* Everything FD receives until the server closes it, or MS pass. */
static struct reply receive(int fd, int ms)
{
	struct reply r = { 0 };
	size_t cap = 4096;
	long long end = now_ms() + ms;
	const char *blank;

	r.raw = malloc(cap);
	assert_non_null(r.raw);
	for (;;) {
		long long left = end - now_ms();
		ssize_t n;

		if (left <= 0 || !readable_within(fd, (int)left))
			break;
		if (r.len + 1 == cap) {
			cap *= 2;
			r.raw = realloc(r.raw, cap);
			assert_non_null(r.raw);
		}
		n = recv(fd, r.raw + r.len, cap - r.len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r.closed = true;
			break;
		}
		r.len += n;
	}
	r.raw[r.len] = 0;
	if (!strncmp(r.raw, "HTTP/1.", 7) && r.len >= 12)
		r.status = atoi(r.raw + 9);
	blank = strstr(r.raw, "\r\n\r\n");
	if (blank) {
		r.body = blank + 4;
		r.body_len = r.len - (r.body - r.raw);
	}
	return r;
}

/* Sends REQUEST (LEN bytes) on a new connection to ADDRESS and returns the reply. */
static struct reply exchange_n(const char *address, const char *request, size_t len)
{
	int fd = must_dial(address, NULL);
	struct reply r;

	send_all(fd, request, len);
	r = receive(fd, 5000);
	close(fd);
	return r;
}

static struct reply exchange(const char *address, const char *request)
{
	return exchange_n(address, request, strlen(request));
}

static struct reply get(const char *address, const char *path)
{
	char request[512];

	snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path);
	return exchange(address, request);
}

/* The value of header NAME in R ("" when absent), in a buffer reused by the next call. */
static const char *header(const struct reply *r, const char *name)
{
	static char value[256];
	const char *line = strstr(r->raw, "\r\n"), *end;
	size_t n = strlen(name);

	value[0] = 0;
	while (line && (!r->body || line + 2 < r->body)) {
		line += 2;
		end = strstr(line, "\r\n");
		if (!end)
			break;
		if (!strncasecmp(line, name, n) && line[n] == ':') {
			const char *v = line + n + 1 + strspn(line + n + 1, " ");

			snprintf(value, sizeof(value), "%.*s", (int)(end - v), v);
			break;
		}
		line = end;
	}
	return value;
}

static void print_reply(const struct reply *r)
{
	print_error("reply (%zu bytes%s):\n", r->len, r->closed ? ", then closed" : "");
	testutil_print_text(r->raw);
}

#define assert_status(r, want) do {                                          \
	if ((r).status != (want)) {                                          \
		print_reply(&(r));                                           \
		fail_msg("status %d, expected %d", (r).status, (want));      \
	}                                                                    \
} while (0)

/* GET PATH until it answers 200, for up to MS; false if it never does. */
static bool answers_within(const char *address, const char *path, int ms)
{
	long long end = now_ms() + ms;

	do {
		struct reply r = get(address, path);
		int status = r.status;

		free(r.raw);
		if (status == 200)
			return true;
		usleep(20000);
	} while (now_ms() < end);
	return false;
}

/* ---- --listen --------------------------------------------------------------- */

static void listen_takes_numeric_addresses_with_a_port(void **state)
{
	static const struct {
		const char *arg;
		int family;
		const char *addr;
		unsigned int port;
	} ok[] = {
		{ "127.0.0.1:23649", AF_INET, "127.0.0.1", 23649 },
		{ "0.0.0.0:0", AF_INET, "0.0.0.0", 0 },
		{ "192.0.2.2:65535", AF_INET, "192.0.2.2", 65535 },
		{ "127.0.0.1:00080", AF_INET, "127.0.0.1", 80 },
		{ "[::1]:23649", AF_INET6, "::1", 23649 },
		{ "[::]:0", AF_INET6, "::", 0 },
		{ "[fd00::2]:1", AF_INET6, "fd00::2", 1 },
		{ "[2001:db8:0:0:0:0:0:1]:443", AF_INET6, "2001:db8::1", 443 },
		/* as exporters are given it, but loopback: all interfaces only written out */
		{ ":23649", AF_INET, "127.0.0.1", 23649 },
		{ "localhost:9100", AF_INET, "127.0.0.1", 9100 },
		{ ":0", AF_INET, "127.0.0.1", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct sockaddr_storage ss;
		char err[256] = "", addr[INET6_ADDRSTRLEN];
		socklen_t len;

		if (http_parse_listen(ok[i].arg, &ss, &len, err, sizeof(err)))
			fail_msg("%s refused: %s", ok[i].arg, err);
		assert_int_equal(ss.ss_family, ok[i].family);
		if (ok[i].family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;

			assert_int_equal(len, sizeof(*in));
			assert_int_equal(ntohs(in->sin_port), ok[i].port);
			inet_ntop(AF_INET, &in->sin_addr, addr, sizeof(addr));
		} else {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

			assert_int_equal(len, sizeof(*in6));
			assert_int_equal(ntohs(in6->sin6_port), ok[i].port);
			inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof(addr));
		}
		assert_string_equal(addr, ok[i].addr);
	}
}

static void listen_refuses_names_junk_and_missing_parts_saying_what_it_expects(void **state)
{
	static const struct {
		const char *arg;
		const char *says;
	} bad[] = {
		{ "", "expected ADDR:PORT, e.g. 127.0.0.1:23649, [::1]:23649 or :23649" },
		{ "127.0.0.1", "missing :PORT; expected ADDR:PORT" },
		{ "127.0.0.1:", "missing port after ':'" },
		{ ":", "missing port after ':'" },
		{ ":http", "port 'http' is not a number" },
		{ "localhost:", "missing port after ':'" },
		{ "localhost.localdomain:23649", "not a numeric IPv4 address (names are not resolved)" },
		{ "LOCALHOST:23649", "not a numeric IPv4 address (names are not resolved)" },
		{ "example.com:80", "names are not resolved" },
		{ "localhost", "missing :PORT" },
		{ "127.0.0.1:65536", "port 65536 is out of range (0..65535" },
		{ "127.0.0.1:99999999999999999999", "out of range" },
		{ "127.0.0.1:-1", "port '-1' is not a number" },
		{ "127.0.0.1:+80", "is not a number" },
		{ "127.0.0.1:80 ", "is not a number" },
		{ "127.0.0.1:0x50", "is not a number" },
		{ "127.0.0.1:http", "is not a number" },
		{ "127.1:80", "not a numeric IPv4 address" },
		{ "010.0.0.1:80", "not a numeric IPv4 address" },
		{ "256.0.0.1:80", "not a numeric IPv4 address" },
		{ " 127.0.0.1:80", "not a numeric IPv4 address" },
		{ "*:23649", "not a numeric IPv4 address" },
		{ "::1:23649", "an IPv6 address goes in brackets: [::1]:23649" },
		{ "[::1]", "missing :PORT after ']'" },
		{ "[::1]23649", "missing :PORT after ']'" },
		{ "[::1:23649", "'[' without ']'" },
		{ "[]:80", "missing address" },
		{ "[127.0.0.1]:80", "'127.0.0.1' is not a numeric IPv6 address" },
		{ "[fe80::1%eth0]:80", "not a numeric IPv6 address" },
		{ "[ip6-localhost]:80", "not a numeric IPv6 address" },
		{ "[::ffff:127.0.0.1]:80", "is an IPv4 address: give it as A.B.C.D:PORT" },
		{ "[::1]:65536", "out of range" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sockaddr_storage ss;
		char err[256] = "";
		socklen_t len = 1;

		if (!http_parse_listen(bad[i].arg, &ss, &len, err, sizeof(err)))
			fail_msg("'%s' was taken", bad[i].arg);
		assert_contains(err, bad[i].says);
		assert_int_equal(len, 0);
	}
}

/* What http_start() cannot listen on, and what it says (in-use: below). */
static void start_refuses_what_it_cannot_listen_on_saying_why(void **state)
{
	static const struct {
		const char *listen;
		const char *says;
	} bad[] = {
		{ "example.com:23649", "--listen example.com:23649: 'example.com' is not a numeric" },
		/* TEST-NET-3 (RFC 5737): documentation only, never a local address. */
		{ "203.0.113.7:0", "203.0.113.7:0: not an address of this machine" },
	};
	struct source src = { .body = KNOWN_BODY };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512] = "";

		assert_null(http_start(bad[i].listen, render, &src, err, sizeof(err)));
		assert_contains(err, bad[i].says);
	}
	assert_int_equal(atomic_load(&src.calls), 0);
}

/* ---- what each request gets ------------------------------------------------ */

static void port_0_binds_a_port_the_kernel_picked_and_says_which(void **state)
{
	struct fixture *f = *state;
	const char *addr = http_address(f->server);

	assert_true(!strncmp(addr, "127.0.0.1:", 10));
	assert_true(atoi(addr + 10) > 0 && atoi(addr + 10) <= 65535);
	assert_true(http_is_loopback(f->server));
}

static void get_metrics_is_the_rendered_body_in_the_exposition_format(void **state)
{
	struct fixture *f = *state;
	struct reply r = get(http_address(f->server), "/metrics");
	char length[32];

	assert_status(r, 200);
	assert_non_null(r.body);
	assert_int_equal(r.body_len, strlen(KNOWN_BODY));
	assert_memory_equal(r.body, KNOWN_BODY, r.body_len);
	assert_string_equal(header(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
	snprintf(length, sizeof(length), "%zu", strlen(KNOWN_BODY));
	assert_string_equal(header(&r, "Content-Length"), length);
	assert_string_equal(header(&r, "X-Content-Type-Options"), "nosniff");
	/* One request per connection: said, and done. */
	assert_string_equal(header(&r, "Connection"), "close");
	assert_true(r.closed);
	assert_int_equal(atomic_load(&f->src.calls), 1);
	free(r.raw);

	/* Every scrape renders afresh; the query is not part of the path. */
	r = get(http_address(f->server), "/metrics?debug=1");
	assert_status(r, 200);
	assert_int_equal(atomic_load(&f->src.calls), 2);
	free(r.raw);
}

static void head_metrics_has_the_get_headers_and_no_body(void **state)
{
	struct fixture *f = *state;
	struct reply r = exchange(http_address(f->server),
				  "HEAD /metrics HTTP/1.1\r\nHost: test\r\n\r\n");
	char length[32];

	assert_status(r, 200);
	assert_non_null(r.body);
	assert_int_equal(r.body_len, 0);
	assert_true(r.closed);
	assert_string_equal(header(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
	snprintf(length, sizeof(length), "%zu", strlen(KNOWN_BODY));
	assert_string_equal(header(&r, "Content-Length"), length);
	assert_int_equal(atomic_load(&f->src.calls), 1);
	free(r.raw);
}

static void root_is_a_page_pointing_at_metrics(void **state)
{
	struct fixture *f = *state;
	struct reply r = get(http_address(f->server), "/");

	assert_status(r, 200);
	assert_contains(r.body, "<title>permscope daemon</title>");
	assert_contains(r.body, "<a href=\"/metrics\">/metrics</a>");
	assert_string_equal(header(&r, "Content-Type"), "text/html; charset=utf-8");
	assert_int_equal(atomic_load(&f->src.calls), 0);
	free(r.raw);
}

static void other_paths_are_404_and_never_echoed_or_read(void **state)
{
	static const struct {
		const char *path;
		const char *never; /* in the reply */
	} paths[] = {
		{ "/nope", "nope" },
		{ "/../etc/passwd", "root:" },
		{ "/../../../../etc/passwd", "passwd" },
		{ "/%2e%2e/%2e%2e/etc/passwd", "root:" },
		{ "/metrics/../../etc/passwd", "root:" },
		{ "/metrics/", "metrics/" },
		{ "/metricsx", "metricsx" },
		{ "/METRICS", "METRICS" },
		{ "/<script>alert(1)</script>", "<script>" },
		{ "/%3Cscript%3E", "<script>" },
		{ "/proc/self/environ", "PATH=" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct reply r = get(http_address(f->server), paths[i].path);

		assert_status(r, 404);
		assert_string_equal(r.body, "permscope: not found; metrics at /metrics\n");
		assert_not_contains(r.raw, paths[i].never);
		free(r.raw);
	}
	assert_int_equal(atomic_load(&f->src.calls), 0);
}

static void other_methods_are_405_with_allow_and_their_body_is_never_waited_for(void **state)
{
	static const char *const requests[] = {
		/* 10 bytes of a promised megabyte: the answer comes anyway */
		"POST /metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 1048576\r\n\r\n0123456789",
		"POST /metrics HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
		"400\r\n0123456789",
		"PUT /metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello",
		"DELETE /metrics HTTP/1.1\r\nHost: test\r\n\r\n",
		"OPTIONS / HTTP/1.1\r\nHost: test\r\n\r\n",
		"get /metrics HTTP/1.1\r\nHost: test\r\n\r\n",
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		long long t0 = now_ms();
		struct reply r = exchange(http_address(f->server), requests[i]);

		assert_status(r, 405);
		assert_string_equal(header(&r, "Allow"), "GET, HEAD");
		assert_string_equal(r.body, "permscope: only GET and HEAD are served\n");
		assert_true(r.closed);
		/* Answered at once, not after the idle timeout (10 s) for the rest of the body. */
		assert_true(now_ms() - t0 < 3000);
		free(r.raw);
	}
	assert_int_equal(atomic_load(&f->src.calls), 0);
	assert_true(answers_within(http_address(f->server), "/metrics", 2000));
}

static void a_get_with_a_body_is_answered_without_waiting_for_it(void **state)
{
	struct fixture *f = *state;
	long long t0 = now_ms();
	struct reply r = exchange(http_address(f->server),
				  "GET /metrics HTTP/1.1\r\nHost: test\r\nContent-Length: 1048576\r\n"
				  "\r\n0123456789");

	assert_status(r, 200);
	assert_int_equal(r.body_len, strlen(KNOWN_BODY));
	assert_true(r.closed);
	assert_true(now_ms() - t0 < 3000);
	free(r.raw);
}

static void a_render_failure_is_a_500(void **state)
{
	struct source src = { .body = NULL };
	struct http_server *s = start("127.0.0.1:0", &src);
	struct reply r = get(http_address(s), "/metrics");

	(void)state;
	assert_status(r, 500);
	assert_string_equal(r.body, "permscope: the metrics could not be rendered\n");
	assert_string_equal(header(&r, "Content-Type"), "text/plain; charset=utf-8");
	assert_int_equal(atomic_load(&src.calls), 1);
	free(r.raw);
	http_stop(s);
}

/* ---- bounds ------------------------------------------------------------------ */

/* A GET of /metrics with a header of HEADER bytes or a query of QUERY bytes. */
static char *padded_request(size_t header, size_t query, size_t *len)
{
	char *req = malloc(header + query + 256), *p = req;

	assert_non_null(req);
	p += sprintf(p, "GET /metrics%s", query ? "?" : "");
	memset(p, 'q', query);
	p += query;
	p += sprintf(p, " HTTP/1.1\r\nHost: test\r\n%s", header ? "X-Pad: " : "");
	memset(p, 'h', header);
	p += header;
	p += sprintf(p, "%s\r\n", header ? "\r\n" : "");
	*len = p - req;
	return req;
}

static void requests_beyond_16_kib_are_refused_and_the_server_keeps_answering(void **state)
{
	static const struct {
		const char *what;
		size_t header, query;
		bool served;
	} cases[] = {
		{ "an 8 KiB header", 8 * 1024, 0, true },
		{ "a 20 KiB header", 20 * 1024, 0, false }, /* MHD alone would take it */
		{ "a 64 KiB header", 64 * 1024, 0, false },
		{ "a 64 KiB request line", 0, 64 * 1024, false },
	};
	struct fixture *f = *state;
	int served = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		char *req = padded_request(cases[i].header, cases[i].query, &len);
		struct reply r = exchange_n(http_address(f->server), req, len);

		print_message("%s: status %d%s\n", cases[i].what, r.status,
			      r.closed ? ", closed" : "");
		if (cases[i].served) {
			assert_status(r, 200);
			served++;
		} else if (!(r.status >= 400 && r.status < 500) && !(r.status == 0 && r.closed)) {
			/* A 4xx, or the connection closed without an answer: never served. */
			print_reply(&r);
			fail_msg("%s was not refused", cases[i].what);
		}
		free(r.raw);
		free(req);
	}
	assert_int_equal(atomic_load(&f->src.calls), served);
	assert_true(answers_within(http_address(f->server), "/metrics", 2000));
}

/* Redirects stderr into PATH until restore_stderr(SAVED). */
static int capture_stderr(const char *path)
{
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	return saved;
}

static void restore_stderr(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

static void one_address_gets_8_connections_and_the_next_is_closed_and_logged(void **state)
{
	struct fixture *f = *state;
	const char *addr = http_address(f->server);
	int held[CONNECTIONS_PER_IP], extra, saved;
	struct reply r;
	char *log;

	for (int i = 0; i < CONNECTIONS_PER_IP; i++)
		held[i] = must_dial(addr, NULL);
	saved = capture_stderr(tmp_path("stderr"));
	extra = must_dial(addr, NULL);
	send_all(extra, "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n", 38);
	r = receive(extra, 3000);
	restore_stderr(saved);
	close(extra);
	if (r.len || !r.closed) {
		print_reply(&r);
		fail_msg("connection %d from one address was not closed unanswered",
			 CONNECTIONS_PER_IP + 1);
	}
	free(r.raw);
	log = slurp(tmp_path("stderr"), NULL);
	assert_non_null(log);
	assert_contains(log, "permscope: http: ");
	assert_contains(log, "connection limit");
	free(log);
	/* The held ones were accepted: each is still served. */
	send_all(held[0], "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n", 38);
	r = receive(held[0], 5000);
	assert_status(r, 200);
	free(r.raw);
	for (int i = 0; i < CONNECTIONS_PER_IP; i++)
		close(held[i]);
	assert_true(answers_within(addr, "/metrics", 2000));
}

/*
 * 64 connections from eight addresses (127.0.0.0/8 is all loopback on
 * Linux), 8 each so that the per-address limit does not come first: the
 * next waits in the listen queue until one closes.  All within the request
 * deadline, which would close them too.
 */
static void beyond_64_connections_a_client_waits_until_one_closes(void **state)
{
	struct fixture *f = *state;
	const char *addr = http_address(f->server);
	int held[CONNECTIONS], extra;
	char from[32];
	struct reply r;

	held[0] = dial(addr, "127.0.0.2:0");
	if (held[0] < 0) {
		print_message("skipped: cannot connect from 127.0.0.2: %s\n", strerror(errno));
		skip();
	}
	for (int i = 1; i < CONNECTIONS; i++) {
		snprintf(from, sizeof(from), "127.0.0.%d:0", 2 + i / CONNECTIONS_PER_IP);
		held[i] = must_dial(addr, from);
	}
	extra = must_dial(addr, "127.0.0.99:0");
	send_all(extra, "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n", 38);
	/* Not accepted: it waits in the listen queue, unanswered. */
	assert_false(readable_within(extra, 500));
	assert_int_equal(atomic_load(&f->src.calls), 0);
	close(held[0]);
	r = receive(extra, 2000);
	close(extra);
	assert_status(r, 200);
	assert_int_equal(r.body_len, strlen(KNOWN_BODY));
	free(r.raw);
	for (int i = 1; i < CONNECTIONS; i++)
		close(held[i]);
	assert_true(answers_within(addr, "/metrics", 2000));
}

/* ---- addresses ----------------------------------------------------------------- */

static void ipv6_loopback_is_served_when_the_machine_has_it(void **state)
{
	struct sockaddr_in6 lo = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct source src = { .body = KNOWN_BODY };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct http_server *s;
	char other[64];
	struct reply r;

	(void)state;
	if (fd < 0 || bind(fd, (struct sockaddr *)&lo, sizeof(lo))) {
		print_message("skipped: no IPv6 loopback here: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		skip();
	}
	close(fd);
	s = start("[::1]:0", &src);
	assert_true(!strncmp(http_address(s), "[::1]:", 6));
	assert_true(atoi(http_address(s) + 6) > 0);
	assert_true(http_is_loopback(s));
	r = get(http_address(s), "/metrics");
	assert_status(r, 200);
	assert_string_equal(r.body, KNOWN_BODY);
	free(r.raw);
	http_stop(s);

	/* [::] is every IPv6 address and no IPv4 one, whatever net.ipv6.bindv6only says. */
	s = start("[::]:0", &src);
	assert_true(!strncmp(http_address(s), "[::]:", 5));
	assert_false(http_is_loopback(s));
	snprintf(other, sizeof(other), "[::1]:%s", http_address(s) + 5);
	assert_true(answers_within(other, "/metrics", 2000));
	snprintf(other, sizeof(other), "127.0.0.1:%s", http_address(s) + 5);
	fd = dial(other, NULL);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ECONNREFUSED);
	http_stop(s);
}

static void an_address_in_use_is_refused_saying_so(void **state)
{
	struct fixture *f = *state;
	struct source src = { .body = KNOWN_BODY };
	char err[512] = "", taken[64];

	snprintf(taken, sizeof(taken), "%s", http_address(f->server));
	assert_null(http_start(taken, render, &src, err, sizeof(err)));
	print_message("%s\n", err);
	assert_true(!strncmp(err, taken, strlen(taken)));
	assert_contains(err, ": address in use (another daemon? pick one with --listen)");
	/* The first server is untouched. */
	assert_true(answers_within(taken, "/metrics", 2000));
}

static void loopback_is_127_slash_8_and_not_any(void **state)
{
	struct source src = { .body = KNOWN_BODY };
	struct http_server *s;

	(void)state;
	s = start("127.0.0.1:0", &src);
	assert_true(http_is_loopback(s));
	http_stop(s);

	s = start("127.3.2.1:0", &src);
	assert_true(http_is_loopback(s));
	assert_true(!strncmp(http_address(s), "127.3.2.1:", 10));
	http_stop(s);

	s = start("0.0.0.0:0", &src);
	assert_false(http_is_loopback(s));
	assert_true(!strncmp(http_address(s), "0.0.0.0:", 8));
	assert_true(atoi(http_address(s) + 8) > 0);
	http_stop(s);
}

/* ---- the thread and the end ------------------------------------------------------ */

/* Whether thread TID of this process blocks SIGTERM. */
static bool blocks_sigterm(const char *tid)
{
	char path[64], *status, *blk;
	unsigned long long mask;
	bool blocked;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", tid);
	status = slurp(path, NULL);
	assert_non_null(status);
	blk = strstr(status, "\nSigBlk:");
	assert_non_null(blk);
	mask = strtoull(blk + 8, NULL, 16);
	blocked = mask & (1ULL << (SIGTERM - 1));
	free(status);
	return blocked;
}

static void the_server_thread_takes_no_signals(void **state)
{
	struct fixture *f = *state;
	char me[32];
	int others = 0;
	struct dirent *d;
	DIR *dir;

	/* Served, so the thread is past its start (glibc starts a thread with
	 * every signal blocked, then gives it the mask it inherits). */
	assert_true(answers_within(http_address(f->server), "/metrics", 2000));
	snprintf(me, sizeof(me), "%ld", (long)syscall(SYS_gettid));
	assert_false(blocks_sigterm(me)); /* the caller's mask is as it was */
	dir = opendir("/proc/self/task");
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, me))
			continue;
		others++;
		assert_true(blocks_sigterm(d->d_name));
	}
	closedir(dir);
	assert_true(others >= 1);
}

static void after_stop_nothing_listens(void **state)
{
	struct source src = { .body = KNOWN_BODY };
	struct http_server *s = start("127.0.0.1:0", &src);
	char addr[64];
	int fd;

	(void)state;
	snprintf(addr, sizeof(addr), "%s", http_address(s));
	assert_true(answers_within(addr, "/metrics", 2000));
	http_stop(s);
	fd = dial(addr, NULL);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ECONNREFUSED);
	http_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(listen_takes_numeric_addresses_with_a_port),
		cmocka_unit_test(listen_refuses_names_junk_and_missing_parts_saying_what_it_expects),
		cmocka_unit_test(start_refuses_what_it_cannot_listen_on_saying_why),
		cmocka_unit_test_setup_teardown(port_0_binds_a_port_the_kernel_picked_and_says_which,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(get_metrics_is_the_rendered_body_in_the_exposition_format,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(head_metrics_has_the_get_headers_and_no_body,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(root_is_a_page_pointing_at_metrics,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(other_paths_are_404_and_never_echoed_or_read,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(other_methods_are_405_with_allow_and_their_body_is_never_waited_for,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(a_get_with_a_body_is_answered_without_waiting_for_it,
						serve_known_body, stop_server),
		cmocka_unit_test(a_render_failure_is_a_500),
		cmocka_unit_test_setup_teardown(requests_beyond_16_kib_are_refused_and_the_server_keeps_answering,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(one_address_gets_8_connections_and_the_next_is_closed_and_logged,
						serve_known_body, stop_server),
		cmocka_unit_test_setup_teardown(beyond_64_connections_a_client_waits_until_one_closes,
						serve_known_body, stop_server),
		cmocka_unit_test(ipv6_loopback_is_served_when_the_machine_has_it),
		cmocka_unit_test_setup_teardown(an_address_in_use_is_refused_saying_so,
						serve_known_body, stop_server),
		cmocka_unit_test(loopback_is_127_slash_8_and_not_any),
		cmocka_unit_test_setup_teardown(the_server_thread_takes_no_signals,
						serve_known_body, stop_server),
		cmocka_unit_test(after_stop_nothing_listens),
	};

	return cmocka_run_group_tests_name("http", tests, tmpdir_setup, tmpdir_teardown);
}
