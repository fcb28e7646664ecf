// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `permscope daemon --web-config` as a remote Prometheus meets it: a real
 * Prometheus (tests/promserver.h) scrapes the daemon over TLS with basic
 * auth and gets the series; a second job with a wrong password gets up 0
 * and moves the daemon's 401 counter; a third speaking plain HTTP to the
 * TLS port gets up 0, and so does a raw "GET /metrics HTTP/1.0".  A bad
 * file stops the daemon with exit 2 and one Error: line; a non-loopback
 * --listen warns, and says what --web-config would add.
 *
 * The certificate is made by openssl(1) for IP 127.0.0.1, the bcrypt hash
 * by libcrypt.  Needs root and BPF (the daemon attaches access and exec),
 * Prometheus and openssl; each test that cannot run here says why and
 * skips.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "promserver.h"
#include "testutil.h"

#define OPENSSL "/usr/bin/openssl"
#define PASSWORD "right horse battery staple"

static char skip_all[512];
static char cert[1024], config[PATH_MAX];

/* ---- the daemon --------------------------------------------------------- */

struct daemon {
	pid_t pid;
	char addr[64];   /* 127.0.0.1:PORT */
	char err[PATH_MAX];
};

/*
 * `permscope daemon --families access,exec --comm psd-web --listen LISTEN
 * --state-dir TMP/TAG -d SECONDS [--web-config CONFIG]`, returned once it
 * logs "listening on SCHEME://".
 */
static void daemon_start(struct daemon *d, const char *tag, const char *listen,
			 const char *web, const char *scheme, const char *seconds)
{
	char state[PATH_MAX], want[32], *text = NULL, *at;
	char *argv[] = { (char *)permscope_bin(), "daemon", "--families", "access,exec",
			 "--comm", "psd-web", "--listen", (char *)listen, "--state-dir", state,
			 "--interval", "1", "--duty-cycle=always", "-d", (char *)seconds,
			 web ? "--web-config" : NULL, (char *)web, NULL };

	snprintf(state, sizeof(state), "%s/%s", tmpdir, tag);
	snprintf(d->err, sizeof(d->err), "%s/%s.stderr", tmpdir, tag);
	snprintf(want, sizeof(want), "listening on %s://", scheme);
	d->pid = spawn_to(argv, "/dev/null", d->err);
	for (int i = 0; i < 200; i++) {
		free(text);
		text = slurp(d->err, NULL);
		if (text && strstr(text, want))
			break;
		if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
			d->pid = 0;
			fail_msg("permscope daemon exited early:\n%s", text ? text : "");
		}
		usleep(50000);
	}
	at = text ? strstr(text, want) : NULL;
	if (!at) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		fail_msg("permscope daemon did not serve within 10 s:\n%s", text ? text : "");
	}
	at += strlen(want);
	snprintf(d->addr, sizeof(d->addr), "%.*s", (int)strcspn(at, "/\n"), at);
	free(text);
}

static int daemon_stop(struct daemon *d)
{
	int status;

	if (!d->pid)
		return -1;
	kill(d->pid, SIGTERM);
	status = wait_exit_status(d->pid);
	d->pid = 0;
	return status;
}

/* ---- a client that does not speak TLS ----------------------------------- */

/* Send "GET /metrics HTTP/1.0" in clear to ADDR: what came back, NUL-terminated (bytes in *len). */
static char *plain_get(const char *addr, size_t *len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *req = "GET /metrics HTTP/1.0\r\n\r\n";
	const char *colon = strrchr(addr, ':');
	char host[64], *buf = calloc(1, 65536);
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	assert_non_null(buf);
	assert_true(fd >= 0);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
	assert_int_equal(inet_pton(AF_INET, host, &sin.sin_addr), 1);
	sin.sin_port = htons(atoi(colon + 1));
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	*len = 0;
	while (*len < 65535 && (n = read(fd, buf + *len, 65535 - *len)) > 0)
		*len += n;
	close(fd);
	return buf;
}

/* ---- the tests ---------------------------------------------------------- */

static struct promserver prom;
static struct daemon dmn;

/* Whatever a failed test left running. */
static int stop_all(void **state)
{
	(void)state;
	promserver_stop(&prom);
	daemon_stop(&dmn);
	return 0;
}

static void need_prometheus_and_certs(void)
{
	skip_unless_live(skip_all);
	if (!cert[0]) {
		print_message("skipped: no %s (Debian package openssl) to make a certificate\n",
			      OPENSSL);
		skip();
	}
}

/*
 * The fleet story over the network's rules: Prometheus with the CA and the
 * password gets up 1 and the series; the wrong password gets up 0 and is
 * counted as a 401 (read back through the authenticated job); plain HTTP
 * gets up 0; and the daemon's log says https.
 */
static void prometheus_scrapes_over_tls_with_basic_auth_and_others_are_refused(void **state)
{
	char yaml[6 * PATH_MAX], why[2 * PATH_MAX], *json, *answer, *log;
	double up_ok = NAN, up_wrong = NAN, up_plain = NAN, refused = NAN, ok = NAN, took = 0;
	size_t len;

	(void)state;
	need_prometheus_and_certs();
	daemon_start(&dmn, "tls", "127.0.0.1:0", config, "https", "120");
	snprintf(yaml, sizeof(yaml),
		 "scrape_configs:\n"
		 "  - job_name: permscope\n"
		 "    scheme: https\n"
		 "    tls_config: {ca_file: '%s'}\n"
		 "    basic_auth: {username: prometheus, password: '" PASSWORD "'}\n"
		 "    static_configs: [{targets: ['%s']}]\n"
		 "  - job_name: wrong-password\n"
		 "    scheme: https\n"
		 "    tls_config: {ca_file: '%s'}\n"
		 "    basic_auth: {username: prometheus, password: 'wrong horse'}\n"
		 "    static_configs: [{targets: ['%s']}]\n"
		 "  - job_name: plain-http\n"
		 "    static_configs: [{targets: ['%s']}]\n",
		 cert, dmn.addr, cert, dmn.addr, dmn.addr);
	if (promserver_start(&prom, yaml, why, sizeof(why))) {
		daemon_stop(&dmn);
		if (!strncmp(why, "no ", 3)) {
			print_message("skipped: %s\n", why);
			skip();
		}
		fail_msg("%s", why);
	}
	/* The series arrive through the authenticated job, once its first scrapes are in. */
	json = promserver_wait_data(&prom, "permscope_probe_attached{job=\"permscope\"}", 60, &took);
	for (double t0 = promserver_now(); promserver_now() - t0 < 30; usleep(500000)) {
		up_ok = promserver_value(&prom, "up{job=\"permscope\"}");
		up_wrong = promserver_value(&prom, "up{job=\"wrong-password\"}");
		up_plain = promserver_value(&prom, "up{job=\"plain-http\"}");
		refused = promserver_value(&prom, "permscope_http_requests_total{job=\"permscope\","
					   "code=\"401\"}");
		ok = promserver_value(&prom, "permscope_http_requests_total{job=\"permscope\","
				      "code=\"200\"}");
		if (up_ok == 1 && up_wrong == 0 && up_plain == 0 && refused > 0 && ok > 0)
			break;
	}
	print_message("  after %.1f s: up %g (TLS + password), %g (wrong password), %g (plain "
		      "HTTP); the daemon counted %g answers 200 and %g answers 401\n", took,
		      up_ok, up_wrong, up_plain, ok, refused);
	answer = plain_get(dmn.addr, &len);
	print_message("  a raw GET /metrics HTTP/1.0 in clear got %zu bytes back%s\n", len,
		      len && (unsigned char)answer[0] == 0x15 ? " (a TLS alert record)" : "");
	log = slurp(dmn.err, NULL);
	if (!promserver_has_data(json) || up_ok != 1)
		prom.keep = true;
	promserver_stop(&prom);
	assert_int_equal(daemon_stop(&dmn), 0);

	assert_true(promserver_has_data(json));
	assert_contains(json, "\"family\":\"access\"");
	assert_true(up_ok == 1);
	assert_true(up_wrong == 0);
	assert_true(up_plain == 0);
	assert_true(refused > 0);
	assert_true(ok > 0);
	/* No HTTP answer, let alone the metrics, to a client that skips TLS. */
	assert_true(len < 5 || strncmp(answer, "HTTP/", 5));
	assert_null(memmem(answer, len, "permscope_", 10));
	assert_contains(log, "listening on https://127.0.0.1:");
	assert_contains(log, "--web-config");
	assert_not_contains(log, "Warning:");
	/* libmicrohttpd's complaints about the non-TLS clients stay bounded. */
	free(json);
	free(answer);
	free(log);
}

/* A key that is not the certificate's: exit 2, one Error: line naming both files. */
static void a_bad_config_stops_the_daemon_with_one_error_line(void **state)
{
	const char *bad = tmp_path("bad.yml");
	char want[PATH_MAX + 64];
	int status;

	(void)state;
	need_prometheus_and_certs();
	write_tmp_file("bad.yml", "tls_server_config:\n  cert_file: server.crt\n"
		       "  key_file: other.key\n");
	status = permscope("daemon", "--web-config", bad, "--listen", "127.0.0.1:0",
			   "--state-dir", tmp_path("bad-state"), "-d", "1", NULL);
	print_message("  exit %d: %s", status, err_text);
	assert_int_equal(status, 2);
	snprintf(want, sizeof(want), "Error: --web-config %s: key_file ", bad);
	assert_true(!strncmp(err_text, want, strlen(want)));
	assert_contains(err_text, "other.key is not the key of cert_file ");
	assert_int_equal(strchr(err_text, '\n') - err_text + 1, (long)strlen(err_text));
	assert_int_equal(access(tmp_path("bad-state"), F_OK), -1);
}

/* 0.0.0.0 without --web-config works, and the warning points at --web-config. */
static void a_non_loopback_listen_without_web_config_warns(void **state)
{
	char *log;

	(void)state;
	skip_unless_live(skip_all);
	daemon_start(&dmn, "open", "0.0.0.0:0", NULL, "http", "0.5");
	assert_int_equal(wait_exit_status(dmn.pid), 0);
	dmn.pid = 0;
	log = slurp(dmn.err, NULL);
	assert_non_null(log);
	print_message("%s", log ? log : "");
	assert_contains(log, "Warning: metrics served on 0.0.0.0:");
	assert_contains(log, "--web-config FILE adds TLS and basic auth");
	free(log);
}

/* ---- setup -------------------------------------------------------------- */

/*
 * The certificate (openssl, for IP 127.0.0.1), its key (0600), and the web
 * config beside them naming them relatively, with the password's hash.
 */
static int setup(void **state)
{
	char key[PATH_MAX], other[PATH_MAX], otherkey[PATH_MAX], text[512];
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	const char *hash;

	(void)state;
	if (live_skip_reason(skip_all, sizeof(skip_all), permscope_bin()))
		return -1;
	if (skip_all[0] || access(OPENSSL, X_OK))
		return 0;
	snprintf(cert, sizeof(cert), "%.1000s/server.crt", tmpdir);
	snprintf(key, sizeof(key), "%s/server.key", tmpdir);
	snprintf(other, sizeof(other), "%s/other.crt", tmpdir);
	snprintf(otherkey, sizeof(otherkey), "%s/other.key", tmpdir);
	for (int i = 0; i < 2; i++) {
		char *argv[] = { OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
				 "ec_paramgen_curve:prime256v1", "-nodes",
				 "-keyout", i ? otherkey : key, "-out", i ? other : cert,
				 "-days", "2", "-subj", "/CN=permscope-live-test",
				 "-addext", "subjectAltName=IP:127.0.0.1", NULL };

		if (run_capture(argv) != 0) {
			print_error("openssl req: %s\n", err_text);
			return -1;
		}
	}
	if (chmod(key, 0600) || chmod(otherkey, 0600))
		return -1;
	cd = calloc(1, sizeof(*cd));
	if (!cd || !crypt_gensalt_rn("$2b$", 10, NULL, 0, setting, sizeof(setting)) ||
	    !(hash = crypt_rn(PASSWORD, setting, cd, sizeof(*cd))))
		return -1;
	snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: server.crt\n"
		 "  key_file: server.key\nbasic_auth_users:\n  prometheus: %s\n", hash);
	free(cd);
	snprintf(config, sizeof(config), "%s", write_tmp_file("web.yml", text));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			prometheus_scrapes_over_tls_with_basic_auth_and_others_are_refused, stop_all),
		cmocka_unit_test(a_bad_config_stops_the_daemon_with_one_error_line),
		cmocka_unit_test_teardown(a_non_loopback_listen_without_web_config_warns, stop_all),
	};

	return cmocka_run_group_tests_name("live-webconfig", tests, setup, tmpdir_teardown);
}
