// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --web-config (src/prom/webconfig.c): the exporter-toolkit files it takes, the
 * ones it refuses and what it says (every refusal names the line, and none
 * repeats a hash), the certificate and key checks, bcrypt with its cache,
 * basic auth on a real server (plain HTTP here; TLS with a
 * real Prometheus is tests/live/test_live_webconfig.c), and the one
 * Error: line and exit 2 of `permscope daemon --web-config BAD`.
 *
 * Certificates are made by openssl(1) (Debian package openssl); the tests
 * that need one skip without it.  bcrypt hashes are made with libcrypt.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"

#include "prom/http.h"
#include "util.h"
#include "prom/webconfig.h"

#define OPENSSL "/usr/bin/openssl"

static char hash4[128];   /* "pw" at bcrypt cost 4: fast */
static char hash10[128];  /* "pw" at cost 10, as the toolkit's docs advise */
static bool have_certs;
static char err[4096];

/* A self-signed certificate for 127.0.0.1 and its key, as DIR/NAME.crt and DIR/NAME.key. */
static void make_cert(const char *name)
{
	char key[PATH_MAX], crt[PATH_MAX];
	char *argv[] = { OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
			 "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt,
			 "-days", "2", "-subj", "/CN=permscope-test", "-addext",
			 "subjectAltName=IP:127.0.0.1", NULL };

	snprintf(key, sizeof(key), "%s/%s.key", tmpdir, name);
	snprintf(crt, sizeof(crt), "%s/%s.crt", tmpdir, name);
	if (run_capture(argv) != 0)
		fail_msg("openssl req: %s", err_text);
	assert_int_equal(chmod(key, 0600), 0);
}

static int setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	bcrypt_hash("pw", 4, hash4, sizeof(hash4));
	bcrypt_hash("pw", 10, hash10, sizeof(hash10));
	if (!access(OPENSSL, X_OK)) {
		make_cert("a");
		make_cert("b");
		have_certs = true;
	}
	return 0;
}

static void need_certs(void)
{
	if (!have_certs) {
		print_message("skipped: no %s (Debian package openssl) to make certificates\n",
			      OPENSSL);
		skip();
	}
}

/* TMPDIR/web.yml holding TEXT, loaded into *wc: webconfig_load()'s result, err filled. */
static int load_text(struct webconfig *wc, const char *text)
{
	const char *path = write_tmp_file("web.yml", text);

	err[0] = 0;
	return webconfig_load(wc, path, err, sizeof(err));
}

/* ---- files it takes ------------------------------------------------------ */

static void tls_and_users_load_with_paths_relative_to_the_file(void **state)
{
	char text[512], want[PATH_MAX];
	struct webconfig wc;

	(void)state;
	need_certs();
	snprintf(text, sizeof(text),
		 "# the exporter-toolkit's layout\n"
		 "tls_server_config:\n  cert_file: a.crt\n  key_file: \"a.key\"\n"
		 "  client_auth_type: NoClientCert\n"
		 "http_server_config:\n  http2: false\n"
		 "basic_auth_users:\n  prometheus: %s\n  'other': '%s'\n", hash4, hash10);
	if (load_text(&wc, text))
		fail_msg("%s", err);
	assert_true(wc.tls);
	snprintf(want, sizeof(want), "%s/a.crt", tmpdir);
	assert_string_equal(wc.cert_file, want);
	snprintf(want, sizeof(want), "%s/a.key", tmpdir);
	assert_string_equal(wc.key_file, want);
	assert_contains(wc.cert_pem, "BEGIN CERTIFICATE");
	assert_contains(wc.key_pem, "PRIVATE KEY");
	assert_string_equal(wc.key_warning, "");
	assert_int_equal(wc.nusers, 2);
	assert_string_equal(wc.users[0].name, "prometheus");
	assert_string_equal(wc.users[1].hash, hash10);
	/* Default: TLS 1.2 and 1.3, nothing older. */
	assert_string_equal(webconfig_priorities(&wc), "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
	webconfig_free(&wc);
}

static void min_and_max_version_narrow_the_priorities(void **state)
{
	struct webconfig wc;

	(void)state;
	need_certs();
	if (load_text(&wc, "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"
		      "  min_version: TLS13\n"))
		fail_msg("%s", err);
	assert_string_equal(webconfig_priorities(&wc), "NORMAL:-VERS-ALL:+VERS-TLS1.3");
	assert_int_equal(wc.nusers, 0);
	webconfig_free(&wc);
	if (load_text(&wc, "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"
		      "  max_version: TLS12\n"))
		fail_msg("%s", err);
	assert_string_equal(webconfig_priorities(&wc), "NORMAL:-VERS-ALL:+VERS-TLS1.2");
	webconfig_free(&wc);
}

static void users_alone_are_basic_auth_without_tls(void **state)
{
	char text[256];
	struct webconfig wc;

	(void)state;
	snprintf(text, sizeof(text), "tls_server_config:\nbasic_auth_users:\n  u: %s\n", hash4);
	if (load_text(&wc, text))
		fail_msg("%s", err);
	assert_false(wc.tls);
	assert_null(wc.cert_pem);
	assert_int_equal(wc.nusers, 1);
	webconfig_free(&wc);
}

/* ---- files it refuses ---------------------------------------------------- */

/*
 * Each bad file, and what the message must hold.  "HASH" in a file is
 * replaced by a valid cost-4 hash.  No message may hold a hash.
 */
static const struct {
	const char *text, *says;
} bad[] = {
	{ "tls_server_config:\n  cert_file: [a.crt\n", "line 3, column 1: not YAML:" },
	{ "basic_auth_users:\n\tu: HASH\n", "line 2, column 1: not YAML: found character that "
	  "cannot start any token" },
	{ "", "empty: it configures neither" },
	{ "# only a comment\n", "empty" },
	{ "- a\n- b\n", "line 1, column 1: expected a mapping" },
	{ "tls_server_config: {}\n---\nbasic_auth_users: {}\n", "line 3, column 1: a second "
	  "YAML document" },
	{ "tls_server_config:\nbasic_auth_users:\n", "configures neither TLS" },
	{ "tls_sever_config:\n  cert_file: a.crt\n", "line 1, column 1: unknown key "
	  "'tls_sever_config'" },
	{ "basic_auth_users:\n  u: HASH\nbasic_auth_users:\n  v: HASH\n", "line 3, column 1: "
	  "the file: 'basic_auth_users' given twice (first on line 1)" },
	{ "rate_limit:\n  interval: 1s\n", "line 1, column 1: rate_limit is an exporter-toolkit "
	  "setting permscope does not implement" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_ca_file: ca.crt\n",
	  "line 4, column 3: tls_server_config: client_ca_file is an exporter-toolkit setting "
	  "permscope does not implement (client certificates are not supported" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  cipher_suites: [x]\n",
	  "line 4, column 3: tls_server_config: cipher_suites is an exporter-toolkit" },
	{ "tls_server_config:\n  cert: x\n", "tls_server_config: cert is an exporter-toolkit" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"
	  "  client_auth_type: RequireAndVerifyClientCert\n",
	  "line 4, column 21: tls_server_config: client_auth_type: only NoClientCert" },
	{ "tls_server_config:\n  cert_file: a.crt\n  keyfile: a.key\n", "line 3, column 3: "
	  "tls_server_config: unknown key 'keyfile'" },
	{ "tls_server_config:\n  cert_file: a.crt\n", "line 2, column 3: tls_server_config: "
	  "key_file is missing" },
	{ "tls_server_config:\n  key_file: a.key\n", "tls_server_config: cert_file is missing" },
	{ "tls_server_config:\n  min_version: TLS13\n", "cert_file is missing" },
	{ "tls_server_config:\n  cert_file:\n  key_file: a.key\n", "line 2, column 13: "
	  "tls_server_config: cert_file is empty" },
	{ "tls_server_config:\n  cert_file: [a, b]\n  key_file: a.key\n", "cert_file: expected "
	  "a value, got a list" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS11\n",
	  "line 4, column 16: tls_server_config: min_version: TLS11 is not served" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: tls1.2\n",
	  "expected TLS12 or TLS13" },
	{ "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS13\n"
	  "  max_version: TLS12\n", "min_version TLS13 is above max_version TLS12" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "line 2, column 3: "
	  "http_server_config: headers is an exporter-toolkit setting" },
	{ "http_server_config:\n  http2: maybe\nbasic_auth_users:\n  u: HASH\n",
	  "http2: expected true or false" },
	{ "basic_auth_users:\n  u: secret-password\n", "line 2, column 6: basic_auth_users: "
	  "user 'u': the password is not a bcrypt hash" },
	{ "basic_auth_users:\n  u: $2x$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234\n",
	  "is not a bcrypt hash ($2y$" },
	{ "basic_auth_users:\n  u: $2y$10$abcdefghij\n", "was it cut or quoted wrong?" },
	{ "basic_auth_users:\n  u: $2y$15$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234\n",
	  "the hash's bcrypt cost 15 is above 14" },
	{ "basic_auth_users:\n  u: $2y$03$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234\n",
	  "the cost must be 04 to 31" },
	{ "basic_auth_users:\n  u: HASH\n  v: HASH\n  u: HASH\n", "line 4, column 3: "
	  "basic_auth_users: 'u' given twice (first on line 2)" },
	{ "basic_auth_users:\n  '': HASH\n", "line 2, column 3: basic_auth_users: empty user name" },
	{ "basic_auth_users:\n  'a:b': HASH\n", "user 'a:b': a name with ':' can never log in" },
	{ "basic_auth_users:\n  u:\n", "user 'u': expected a bcrypt hash, got nothing" },
	{ "basic_auth_users:\n  u: {x: y}\n", "expected a bcrypt hash, got a mapping" },
	{ "basic_auth_users: [u]\n", "line 1, column 19: basic_auth_users: expected a mapping" },
	{ "basic_auth_users:\n  [u]: HASH\n", "a key must be a name, not a list" },
};

static void every_bad_file_is_refused_with_its_line(void **state)
{
	char text[1024], *at;
	struct webconfig wc;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = 0;

		/* HASH -> a valid hash */
		text[0] = 0;
		for (const char *s = bad[i].text; *s && n < sizeof(text) - 80;) {
			if (!strncmp(s, "HASH", 4)) {
				n += snprintf(text + n, sizeof(text) - n, "%s", hash4);
				s += 4;
			} else {
				text[n++] = *s++;
			}
		}
		text[n] = 0;
		if (!load_text(&wc, text))
			fail_msg("file %zu loaded, but should say \"%s\":\n%s", i, bad[i].says, text);
		webconfig_free(&wc);
		print_message("  %s\n", err);
		/* "PATH: ...", the path once, the message in one line. */
		assert_true(!strncmp(err, tmp_path("web.yml"), strlen(tmp_path("web.yml"))));
		assert_null(strchr(err, '\n'));
		assert_contains(err, bad[i].says);
		/* No secret in a message: not the hash, nor a password put in its place. */
		assert_not_contains(err, hash4);
		assert_not_contains(err, "secret-password");
		at = strstr(err, "$2");
		assert_true(!at || !strstr(at, "abcdefghij"));
	}
}

/* ---- the files it names --------------------------------------------------- */

static void unreadable_or_mismatched_certificates_are_refused(void **state)
{
	static const struct {
		const char *cert, *key, *says;
	} cases[] = {
		{ "missing.crt", "a.key", "cert_file TMP/missing.crt: cannot open: No such file or directory" },
		{ "a.crt", "missing.key", "key_file TMP/missing.key: cannot open: No such file or directory" },
		{ ".", "a.key", "cert_file TMP/.: a directory, not a regular file" },
		{ "a.crt", "b.key", "key_file TMP/b.key is not the key of cert_file TMP/a.crt" },
		{ "web.yml", "a.key", "cert_file TMP/web.yml with key_file TMP/a.key:" },
		{ "a.crt", "a.crt", "cert_file TMP/a.crt with key_file TMP/a.crt:" },
		{ "a.crt", "enc.key", "key_file TMP/enc.key is encrypted" },
	};
	char *argv[] = { OPENSSL, "pkey", "-in", (char *)tmp_path("a.key"), "-aes256",
			 "-passout", "pass:x", "-out", (char *)tmp_path("enc.key"), NULL };
	char text[512], want[1024];
	struct webconfig wc;

	(void)state;
	need_certs();
	assert_int_equal(run_capture(argv), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].says;
		size_t n = 0;

		snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: %s\n  key_file: %s\n",
			 cases[i].cert, cases[i].key);
		assert_int_equal(load_text(&wc, text), -1);
		webconfig_free(&wc);
		print_message("  %s\n", err);
		/* TMP -> the scratch directory */
		while (*t && n < sizeof(want) - PATH_MAX) {
			if (!strncmp(t, "TMP", 3)) {
				n += snprintf(want + n, sizeof(want) - n, "%s", tmpdir);
				t += 3;
			} else {
				want[n++] = *t++;
			}
		}
		want[n] = 0;
		assert_contains(err, want);
	}
}

static void a_key_others_can_read_is_warned_about(void **state)
{
	struct webconfig wc;

	(void)state;
	need_certs();
	assert_int_equal(chmod(tmp_path("a.key"), 0644), 0);
	if (load_text(&wc, "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n"))
		fail_msg("%s", err);
	assert_int_equal(chmod(tmp_path("a.key"), 0600), 0);
	print_message("  %s\n", wc.key_warning);
	assert_contains(wc.key_warning, "is mode 0644: readable by every user");
	webconfig_free(&wc);
}

static void a_config_that_is_no_file_is_refused(void **state)
{
	struct webconfig wc;
	char *big = malloc(WEBCONFIG_MAX_SIZE + 2);

	(void)state;
	assert_int_equal(webconfig_load(&wc, tmp_path("none.yml"), err, sizeof(err)), -1);
	webconfig_free(&wc);
	assert_contains(err, "none.yml: cannot open: No such file or directory");
	assert_int_equal(webconfig_load(&wc, tmpdir, err, sizeof(err)), -1);
	webconfig_free(&wc);
	assert_contains(err, "a directory, not a regular file");
	memset(big, '#', WEBCONFIG_MAX_SIZE + 1);
	big[WEBCONFIG_MAX_SIZE + 1] = 0;
	assert_int_equal(load_text(&wc, big), -1);
	webconfig_free(&wc);
	assert_contains(err, "more than a web config needs");
	free(big);
}

/* ---- passwords ------------------------------------------------------------ */

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

static double timed(struct webconfig *wc, const char *user, const char *pw, enum webauth *got)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*got = webconfig_authenticate(wc, user, pw);
	return ms_since(&t0);
}

static void users_log_in_with_bcrypt_once_then_from_the_cache(void **state)
{
	char text[256];
	struct webconfig wc;
	enum webauth got;
	double first, again, wrong, unknown;

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", hash10);
	if (load_text(&wc, text))
		fail_msg("%s", err);
	first = timed(&wc, "prom", "pw", &got);
	assert_int_equal(got, WEBAUTH_OK);
	again = timed(&wc, "prom", "pw", &got);
	assert_int_equal(got, WEBAUTH_OK);
	wrong = timed(&wc, "prom", "pw2", &got);
	assert_int_equal(got, WEBAUTH_DENIED);
	unknown = timed(&wc, "nobody", "pw", &got);
	assert_int_equal(got, WEBAUTH_DENIED);
	assert_int_equal(webconfig_authenticate(&wc, "prom", ""), WEBAUTH_DENIED);
	assert_int_equal(webconfig_authenticate(&wc, "Prom", "pw"), WEBAUTH_DENIED);
	print_message("  cost 10: first login %.1f ms, again %.3f ms (cached), wrong password "
		      "%.1f ms, unknown user %.1f ms\n", first, again, wrong, unknown);
	/* bcrypt at cost 10 takes tens of ms; the cache a few microseconds. */
	assert_true(first > 10 * again);
	/* An unknown user costs a bcrypt run too: the time does not tell who exists. */
	assert_true(unknown > wrong / 3);
	webconfig_free(&wc);
}

/*
 * webconfig_remembered(), the check the server makes on its own thread,
 * knows a password only once it verified, and only that one; wrong
 * passwords, however many, neither change that nor refuse the right one
 * (there is no budget to spend).
 */
static void only_a_verified_password_is_remembered(void **state)
{
	char text[256], pw[32];
	struct webconfig wc;

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", hash4);
	if (load_text(&wc, text))
		fail_msg("%s", err);
	assert_false(webconfig_remembered(&wc, "prom", "pw"));
	for (int i = 0; i < 50; i++) {
		snprintf(pw, sizeof(pw), "guess%d", i);
		assert_int_equal(webconfig_authenticate(&wc, "prom", pw), WEBAUTH_DENIED);
		assert_false(webconfig_remembered(&wc, "prom", pw));
	}
	assert_int_equal(webconfig_authenticate(&wc, "prom", "pw"), WEBAUTH_OK);
	assert_true(webconfig_remembered(&wc, "prom", "pw"));
	assert_false(webconfig_remembered(&wc, "prom", "pw "));
	assert_false(webconfig_remembered(&wc, "nobody", "pw"));
	assert_int_equal(webconfig_authenticate(&wc, "prom", "guess-more"), WEBAUTH_DENIED);
	assert_true(webconfig_remembered(&wc, "prom", "pw"));
	webconfig_free(&wc);
}

/* ---- basic auth on a server ------------------------------------------------ */

static char *render(void *ctx, size_t *len)
{
	(void)ctx;
	*len = 5;
	return strdup("body\n");
}

/* GET PATH from 127.0.0.1:PORT with header line AUTH (NULL: none): the whole answer. */
static char *get(int port, const char *path, const char *auth)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[512], *buf = calloc(1, 8192);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), n, len = 0, got;

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n%s%sConnection: close\r\n\r\n",
		     path, auth ? auth : "", auth ? "\r\n" : "");
	assert_int_equal(write(fd, req, n), n);
	while (len < 8191 && (got = read(fd, buf + len, 8191 - len)) > 0)
		len += got;
	close(fd);
	return buf;
}

static void a_server_with_users_answers_401_to_strangers_and_counts_it(void **state)
{
	char text[256], *a;
	struct webconfig wc;
	struct http_server *s;
	struct http_stats st;
	int port;

	(void)state;
	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", hash4);
	if (load_text(&wc, text))
		fail_msg("%s", err);
	s = http_start_web("127.0.0.1:0", &wc, render, NULL, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	port = atoi(strrchr(http_address(s), ':') + 1);

	a = get(port, "/metrics", NULL);
	assert_contains(a, "HTTP/1.1 401");
	assert_contains(a, "WWW-Authenticate: Basic realm=\"permscope\"");
	assert_not_contains(a, "body");
	free(a);
	/* prom:nope, then prom:pw */
	a = get(port, "/metrics", "Authorization: Basic cHJvbTpub3Bl");
	assert_contains(a, "HTTP/1.1 401");
	free(a);
	/* Even a 404 is not told to a stranger. */
	a = get(port, "/nothing-here", NULL);
	assert_contains(a, "HTTP/1.1 401");
	free(a);
	a = get(port, "/metrics", "Authorization: Basic cHJvbTpwdw==");
	assert_contains(a, "HTTP/1.1 200");
	assert_contains(a, "\r\n\r\nbody\n");
	free(a);
	a = get(port, "/nothing-here", "Authorization: Basic cHJvbTpwdw==");
	assert_contains(a, "HTTP/1.1 404");
	free(a);
	http_stats(s, &st);
	http_stop(s);
	webconfig_free(&wc);
	for (int i = 0; i < HTTP_NCODES; i++)
		print_message("  code %u: %llu\n", http_codes[i], (unsigned long long)st.answers[i]);
	assert_int_equal(st.answers[0], 1); /* 200 */
	assert_int_equal(st.answers[1], 3); /* 401 */
	assert_int_equal(st.answers[2], 1); /* 404 */
}

/* ---- the command ----------------------------------------------------------- */

/* A bad file: exit 2 and exactly one line, "Error: --web-config FILE: line L, ...". */
static void the_daemon_refuses_a_bad_file_with_one_error_line(void **state)
{
	const char *path = write_tmp_file("bad.yml", "tls_server_config:\n  cert_file: a.crt\n"
					  "  keyfile: a.key\n");
	char want[PATH_MAX + 64];
	int status;

	(void)state;
	status = permscope("daemon", "--web-config", path, "--state-dir", tmp_path("state"),
			   "--listen", "127.0.0.1:0", "-d", "1", NULL);
	print_message("  exit %d: %s", status, err_text);
	assert_int_equal(status, 2);
	snprintf(want, sizeof(want), "Error: --web-config %s: line 3, column 3: ", path);
	assert_true(!strncmp(err_text, want, strlen(want)));
	assert_contains(err_text, "unknown key 'keyfile'");
	assert_int_equal(strchr(err_text, '\n') - err_text + 1, (long)strlen(err_text));
	assert_string_equal(out_text, "");
	/* Nothing was made: the file was refused before the state directory. */
	assert_int_equal(access(tmp_path("state"), F_OK), -1);
	status = permscope("daemon", "--web-config", tmp_path("missing.yml"), NULL);
	assert_int_equal(status, 2);
	assert_contains(err_text, "missing.yml: cannot open: No such file or directory\n");
	assert_int_equal(strchr(err_text, '\n') - err_text + 1, (long)strlen(err_text));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tls_and_users_load_with_paths_relative_to_the_file),
		cmocka_unit_test(min_and_max_version_narrow_the_priorities),
		cmocka_unit_test(users_alone_are_basic_auth_without_tls),
		cmocka_unit_test(every_bad_file_is_refused_with_its_line),
		cmocka_unit_test(unreadable_or_mismatched_certificates_are_refused),
		cmocka_unit_test(a_key_others_can_read_is_warned_about),
		cmocka_unit_test(a_config_that_is_no_file_is_refused),
		cmocka_unit_test(users_log_in_with_bcrypt_once_then_from_the_cache),
		cmocka_unit_test(only_a_verified_password_is_remembered),
		cmocka_unit_test(a_server_with_users_answers_401_to_strangers_and_counts_it),
		cmocka_unit_test(the_daemon_refuses_a_bad_file_with_one_error_line),
	};

	return cmocka_run_group_tests_name("webconfig", tests, setup, tmpdir_teardown);
}
