// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's endpoint (src/prom/http.c) under load, on loopback only: clients
 * that open TLS connections and stall in the handshake (a slowloris), and a
 * flood of wrong passwords, must not keep out a scraper with the right
 * password.  Every client here is bounded in time (a few seconds each, the
 * whole file under a minute, SIGALRM past 120 s) and closed at the end.
 *
 * The attackers use other loopback addresses (127.0.0.2, 127.0.0.3: all of
 * 127/8 routes to lo on Linux), as a few hosts would.  Certificates are
 * made by openssl(1); the TLS tests skip without it.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"

#include "prom/http.h"
#include "util.h"
#include "prom/webconfig.h"

#define OPENSSL "/usr/bin/openssl"
#define SCRAPES 7
#define SCRAPE_TIMEOUT_S 5

static bool have_cert;
static char err[4096];

static double now_s(void)
{
	return now_monotonic_ns() / 1e9;
}

static int setup(void **state)
{
	char *argv[] = { OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
			 "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", NULL, "-out", NULL,
			 "-days", "2", "-subj", "/CN=permscope-test", "-addext",
			 "subjectAltName=IP:127.0.0.1", NULL };
	char key[PATH_MAX], crt[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	snprintf(key, sizeof(key), "%s", tmp_path("s.key"));
	snprintf(crt, sizeof(crt), "%s", tmp_path("s.crt"));
	argv[9] = key;
	argv[11] = crt;
	have_cert = access(OPENSSL, X_OK) == 0 && run_capture(argv) == 0 && chmod(key, 0600) == 0;
	return 0;
}

static int teardown(void **state)
{
	curl_global_cleanup();
	return tmpdir_teardown(state);
}

static char *render(void *ctx, size_t *len)
{
	(void)ctx;
	*len = 5;
	return strdup("body\n");
}

/* A server on 127.0.0.1:0 under the web config TEXT; its port in *port. */
static struct http_server *serve(struct webconfig *wc, const char *text, int *port)
{
	const char *path = write_tmp_file("web.yml", text);
	struct http_server *s;

	if (webconfig_load(wc, path, err, sizeof(err)))
		fail_msg("%s", err);
	s = http_start_web("127.0.0.1:0", wc, render, NULL, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	*port = atoi(strrchr(http_address(s), ':') + 1);
	return s;
}

static size_t discard(char *p, size_t size, size_t n, void *cls)
{
	(void)p, (void)cls;
	return size * n;
}

/*
 * GET /metrics as USER:PASSWORD from source address FROM (NULL: any), over
 * TLS when `tls`, within TIMEOUT_MS: the HTTP status, or 0 when no answer
 * came (curl's reason in `why`).
 */
static long scrape(int port, bool tls, const char *from, const char *user,
		   const char *password, long timeout_ms, char *why, size_t whylen)
{
	char url[64];
	long code = 0;
	CURL *h = curl_easy_init();
	CURLcode ret;

	assert_non_null(h);
	snprintf(url, sizeof(url), "%s://127.0.0.1:%d/metrics", tls ? "https" : "http", port);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERNAME, user);
	curl_easy_setopt(h, CURLOPT_PASSWORD, password);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	if (from)
		curl_easy_setopt(h, CURLOPT_INTERFACE, from);
	if (tls)
		curl_easy_setopt(h, CURLOPT_CAINFO, tmp_path("s.crt"));
	ret = curl_easy_perform(h);
	if (ret == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	else if (why)
		snprintf(why, whylen, "%s", curl_easy_strerror(ret));
	curl_easy_cleanup(h);
	return code;
}

/* ---- stalled handshakes ----------------------------------------------------- */

/*
 * A TLS record header announcing a 512-byte handshake message and the
 * start of a ClientHello: what a client that stalls mid-handshake has sent.
 */
static const unsigned char partial_hello[] = { 0x16, 0x03, 0x01, 0x02, 0x00,
					       0x01, 0x00, 0x01, 0xfc, 0x03, 0x03 };

/* A non-blocking connection to 127.0.0.1:PORT from FROM; -1 when the kernel says no. */
static int open_from(const char *from, int port)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	inet_pton(AF_INET, from, &src.sin_addr);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

#define HOLDERS 16

/*
 * HOLDERS connections, half from each of two addresses, every other one
 * sending partial_hello and then nothing, the rest nothing at all; one the
 * server closes is opened again at once, as a slowloris does.
 */
struct holders {
	int port;
	int fd[HOLDERS];
	bool sent[HOLDERS];
	int reopened;          /* connections the server closed */
	volatile bool stop;
	pthread_t thread;
};

static const char *holder_address(int i)
{
	return i % 2 ? "127.0.0.3" : "127.0.0.2";
}

static void *hold(void *arg)
{
	struct holders *h = arg;
	struct pollfd p[HOLDERS];
	char buf[256];

	for (int i = 0; i < HOLDERS; i++)
		h->fd[i] = open_from(holder_address(i), h->port);
	while (!h->stop) {
		for (int i = 0; i < HOLDERS; i++) {
			if (h->fd[i] < 0) {
				h->fd[i] = open_from(holder_address(i), h->port);
				h->sent[i] = false;
			}
			p[i].fd = h->fd[i];
			p[i].events = POLLIN | (h->sent[i] ? 0 : POLLOUT);
		}
		if (poll(p, HOLDERS, 50) <= 0)
			continue;
		for (int i = 0; i < HOLDERS; i++) {
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				if (read(h->fd[i], buf, sizeof(buf)) > 0)
					continue;
				close(h->fd[i]);
				h->fd[i] = -1;
				h->reopened++;
			} else if (p[i].revents & POLLOUT) {
				/* connected: the half that speaks sends a little and stalls */
				if (i % 4 < 2 && write(h->fd[i], partial_hello, sizeof(partial_hello)) < 0) {
					close(h->fd[i]);
					h->fd[i] = -1;
					continue;
				}
				h->sent[i] = true;
			}
		}
	}
	for (int i = 0; i < HOLDERS; i++)
		if (h->fd[i] >= 0)
			close(h->fd[i]);
	return NULL;
}

static bool have_second_loopback_address(void)
{
	int fd = open_from("127.0.0.2", 9);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * 16 stalled handshakes from two addresses: every scrape, made one after
 * the other with curl's 5 s timeout, gets its 200.
 */
static void stalled_handshakes_from_two_addresses_do_not_keep_a_scraper_out(void **state)
{
	char hash[128], text[512], why[CURL_ERROR_SIZE] = "";
	struct holders h = { 0 };
	struct webconfig wc;
	struct http_server *s;
	int ok = 0;
	double worst = 0;

	(void)state;
	if (!have_cert || !have_second_loopback_address()) {
		print_message("skipped: %s\n", have_cert ? "127.0.0.2 cannot be bound" :
			      "no " OPENSSL " (Debian package openssl) to make a certificate");
		skip();
	}
	bcrypt_hash("pw", 4, hash, sizeof(hash));
	snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
		 "basic_auth_users:\n  prom: %s\n", hash);
	s = serve(&wc, text, &h.port);
	assert_int_equal(pthread_create(&h.thread, NULL, hold, &h), 0);
	/* Let them take their slots. */
	usleep(500 * 1000);
	for (int i = 0; i < SCRAPES; i++) {
		double t0 = now_s(), took;
		long code = scrape(h.port, true, NULL, "prom", "pw", SCRAPE_TIMEOUT_S * 1000,
				   why, sizeof(why));

		took = now_s() - t0;
		worst = took > worst ? took : worst;
		print_message("  scrape %d: %ld in %.2f s%s%s\n", i + 1, code, took,
			      code ? "" : ": ", code ? "" : why);
		ok += code == 200;
		usleep(300 * 1000);
	}
	h.stop = true;
	pthread_join(h.thread, NULL);
	http_stop(s);
	webconfig_free(&wc);
	print_message("  %d of %d scrapes answered 200 (slowest %.2f s); the server closed %d "
		      "stalled connections, reopened at once\n", ok, SCRAPES, worst, h.reopened);
	assert_int_equal(ok, SCRAPES);
}

/*
 * Seconds until the server closes FD (after `start`), -1 if not within
 * LIMIT; DRIBBLE: send partial_hello a byte every 0.25 s, then zeros (the
 * rest of the 512-byte record, which takes two minutes at that pace).
 */
static double time_to_close(int fd, double start, double limit, bool dribble)
{
	size_t sent = 0;
	char c;

	while (now_s() - start < limit) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 250) > 0 && read(fd, &c, 1) <= 0)
			return now_s() - start;
		c = sent < sizeof(partial_hello) ? partial_hello[sent] : 0;
		if (dribble && write(fd, &c, 1) < 0)
			return now_s() - start;
		sent++;
	}
	return -1;
}

/*
 * A connection gets HTTP_REQUEST_DEADLINE_S for its handshake and request,
 * however it spends it: one that sends nothing and one that sends a byte
 * every quarter second (which the idle timeout never closes) are both
 * closed by then.
 */
static void a_handshake_that_stalls_is_closed_at_the_deadline(void **state)
{
	struct webconfig wc;
	struct http_server *s;
	char text[256];
	double start, silent, dribbler, limit = HTTP_REQUEST_DEADLINE_S + 1.5;
	int port, a, b;

	(void)state;
	if (!have_cert || !have_second_loopback_address()) {
		print_message("skipped: no certificate, or 127.0.0.2 cannot be bound\n");
		skip();
	}
	snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n");
	s = serve(&wc, text, &port);
	start = now_s();
	a = open_from("127.0.0.2", port);
	b = open_from("127.0.0.2", port);
	assert_true(a >= 0 && b >= 0);
	fcntl(b, F_SETFL, 0);
	dribbler = time_to_close(b, start, limit, true);
	silent = time_to_close(a, start, limit, false);
	close(a);
	close(b);
	http_stop(s);
	webconfig_free(&wc);
	print_message("  deadline %d s: the silent connection closed after %.2f s, the dribbling "
		      "one after %.2f s (-1: still open at %.1f s)\n", HTTP_REQUEST_DEADLINE_S,
		      silent, dribbler, limit);
	assert_true(silent > 0 && silent < limit);
	assert_true(dribbler > 0 && dribbler < limit);
	/* Not before: a slow client has the whole deadline. */
	assert_true(dribbler > HTTP_REQUEST_DEADLINE_S - 0.5);
}

/* ---- a flood of wrong passwords --------------------------------------------- */

#define FLOODERS 4

struct flood {
	int port;
	volatile bool stop;
	int answers[FLOODERS][3];   /* 401, 429, anything else */
	pthread_t thread[FLOODERS];
};

struct flooder {
	struct flood *f;
	int i;
};

/* Wrong passwords for the scraper's own user, one after the other, from 127.0.0.1 or .2. */
static void *flood(void *arg)
{
	struct flooder *me = arg;
	struct flood *f = me->f;
	char pw[32];

	for (int n = 0; !f->stop; n++) {
		long code;

		snprintf(pw, sizeof(pw), "guess-%d-%d", me->i, n);
		code = scrape(f->port, false, me->i % 2 ? "127.0.0.2" : "127.0.0.1", "u1", pw, 5000,
			      NULL, 0);
		f->answers[me->i][code == 401 ? 0 : code == 429 ? 1 : 2]++;
	}
	return NULL;
}

/*
 * While four clients, two on the scraper's own address, send wrong
 * passwords as fast as they are answered, each of seven scrapers with the
 * right password (seven users, none verified before: each costs a bcrypt
 * run at cost 10) gets 200, within the 5 s timeout.
 */
static void a_right_password_gets_200_during_a_flood_of_wrong_ones(void **state)
{
	char hash[128], text[2048], user[8], pw[16];
	struct flooder who[FLOODERS];
	struct flood f = { 0 };
	struct webconfig wc;
	struct http_server *s;
	struct http_stats st;
	size_t len;
	int ok = 0, wrong = 0, busy = 0, other = 0;
	double worst = 0;

	(void)state;
	len = snprintf(text, sizeof(text), "basic_auth_users:\n");
	for (int i = 1; i <= SCRAPES; i++) {
		snprintf(pw, sizeof(pw), "pw-%d", i);
		bcrypt_hash(pw, 10, hash, sizeof(hash));
		len += snprintf(text + len, sizeof(text) - len, "  u%d: %s\n", i, hash);
	}
	s = serve(&wc, text, &f.port);
	for (int i = 0; i < FLOODERS; i++) {
		who[i] = (struct flooder){ &f, i };
		assert_int_equal(pthread_create(&f.thread[i], NULL, flood, &who[i]), 0);
	}
	/* Long enough for the flood to have spent any saved-up allowance. */
	sleep(2);
	for (int i = 1; i <= SCRAPES; i++) {
		double t0 = now_s(), took;
		long code;

		snprintf(user, sizeof(user), "u%d", i);
		snprintf(pw, sizeof(pw), "pw-%d", i);
		code = scrape(f.port, false, NULL, user, pw, SCRAPE_TIMEOUT_S * 1000, NULL, 0);
		took = now_s() - t0;
		worst = took > worst ? took : worst;
		print_message("  %s with its password: %ld in %.2f s\n", user, code, took);
		ok += code == 200;
	}
	f.stop = true;
	for (int i = 0; i < FLOODERS; i++) {
		pthread_join(f.thread[i], NULL);
		wrong += f.answers[i][0];
		busy += f.answers[i][1];
		other += f.answers[i][2];
	}
	http_stats(s, &st);
	http_stop(s);
	webconfig_free(&wc);
	print_message("  %d of %d right passwords answered 200 (slowest %.2f s); the flood got "
		      "%d 401, %d 429, %d other; the server answered 429 %llu times\n", ok, SCRAPES,
		      worst, wrong, busy, other, (unsigned long long)st.answers[4]);
	assert_int_equal(ok, SCRAPES);
	/* It was a flood: its passwords were checked, and refused. */
	assert_true(wrong >= 2 * SCRAPES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stalled_handshakes_from_two_addresses_do_not_keep_a_scraper_out),
		cmocka_unit_test(a_handshake_that_stalls_is_closed_at_the_deadline),
		cmocka_unit_test(a_right_password_gets_200_during_a_flood_of_wrong_ones),
	};

	/* Every client above stops by itself; this is the bound if one does not. */
	alarm(120);
	return cmocka_run_group_tests_name("http_load", tests, setup, teardown);
}
