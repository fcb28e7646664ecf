// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus client against a real Prometheus (tests/promserver.h)
 * scraping itself as job "self": a vector with data, a query at a given
 * time, a query Prometheus rejects, an unknown path, a result that is not
 * a vector, a stopped server, URLs refused before any request; and, with
 * --web.config.file, TLS with basic auth (right password, wrong password,
 * an untrusted certificate).  Each test that cannot run here says why and
 * skips: no Prometheus, or no openssl for the certificate.
 */
#include <crypt.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "promserver.h"
#include "prom/promclient.h"

#define OPENSSL "/usr/bin/openssl"
#define PASSWORD "s3cret-passw0rd"

static struct promserver self;   /* scraping itself, for the plain tests */
static struct promserver secure; /* TLS + basic auth */
static char skip_why[256];       /* why the plain tests skip, or "" */

static struct promclient *client(const char *url)
{
	struct promclient_opts o = { .url = url, .timeout_s = 10 };
	char err[512];
	struct promclient *c = promclient_new(&o, err, sizeof(err));

	if (!c)
		fail_msg("promclient_new %s: %s", url, err);
	return c;
}

static void skip_without_server(void)
{
	skip_if(skip_why);
}

/* What a query's samples were: how many, and the first's instance, time and value. */
struct got {
	size_t n;
	char instance[256];
	double t, v;
};

static const char *const keep[] = { "instance", NULL };

static int collect(void *ctx, const struct promanswer_sample *s)
{
	struct got *g = ctx;

	if (!g->n++) {
		snprintf(g->instance, sizeof(g->instance), "%s", s->label[0] ? s->label[0] : "");
		g->t = s->t;
		g->v = strtod(s->value, NULL);
	}
	return 0;
}

static int query(struct promclient *c, const char *promql, double at, struct got *g,
		 char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	return promclient_query(c, promql, at, keep, collect, g, NULL, err, errlen);
}

/* The value of a vector's only sample, and its time. */
static double only_value(const struct got *g, double *at)
{
	assert_int_equal(g->n, 1);
	if (at)
		*at = g->t;
	return g->v;
}

/*
 * Queries until the answer is a non-empty vector or TIMEOUT passes:
 * the last status, *g set on success.
 */
static int query_until_data(struct promclient *c, const char *promql, double timeout,
			    struct got *g, char *err, size_t errlen)
{
	double t0 = promserver_now();
	int rc;

	for (;;) {
		rc = query(c, promql, 0, g, err, errlen);
		if (rc == PROMCLIENT_OK && g->n > 0)
			return rc;
		if (promserver_now() - t0 > timeout)
			return rc;
		usleep(250000);
	}
}

/* ---- a plain Prometheus scraping itself --------------------------------- */

static void a_vector_query_returns_the_scraped_up(void **state)
{
	struct promclient *c;
	struct got r;
	char err[512], instance[64];
	double at;
	int rc;

	(void)state;
	skip_without_server();
	c = client(self.url);
	rc = query_until_data(c, "up{job=\"self\"}", 30, &r, err, sizeof(err));
	if (rc)
		fail_msg("%s: %s", promclient_status_name(rc), err);
	assert_true(only_value(&r, &at) == 1.0);
	snprintf(instance, sizeof(instance), "127.0.0.1:%d", self.port);
	assert_string_equal(r.instance, instance);
	assert_true(at > 1e9);
	promclient_free(c);
}

/*
 * At the time of a scraped sample the query sees it, stamped with that
 * time; an hour before the server started there is nothing.
 */
static void a_query_at_a_given_time_sees_that_time(void **state)
{
	struct promclient *c;
	struct got r;
	char err[512];
	double at, t;

	(void)state;
	skip_without_server();
	c = client(self.url);
	assert_int_equal(query_until_data(c, "up{job=\"self\"}", 30, &r, err, sizeof(err)),
			 PROMCLIENT_OK);
	only_value(&r, &at);

	assert_int_equal(query(c, "up{job=\"self\"}", at, &r, err, sizeof(err)),
			 PROMCLIENT_OK);
	assert_true(only_value(&r, &t) == 1.0);
	assert_true(t == at);

	assert_int_equal(query(c, "up{job=\"self\"}", at - 3600, &r, err,
					  sizeof(err)), PROMCLIENT_OK);
	assert_int_equal(r.n, 0);
	promclient_free(c);
}

static void a_query_prometheus_rejects_carries_its_message(void **state)
{
	struct promclient *c;
	struct got r;
	char err[512];

	(void)state;
	skip_without_server();
	c = client(self.url);
	assert_int_equal(query(c, "sum(", 0, &r, err, sizeof(err)),
			 PROMCLIENT_EREJECTED);
	print_message("rejected: %s\n", err);
	assert_non_null(strstr(err, "parse error"));
	assert_non_null(strstr(err, self.url));
	promclient_free(c);
}

static void an_unknown_path_is_an_http_error(void **state)
{
	char url[128], err[512];
	struct promclient *c;
	struct got r;

	(void)state;
	skip_without_server();
	snprintf(url, sizeof(url), "%s/no/such/prefix", self.url);
	c = client(url);
	assert_int_equal(query(c, "up", 0, &r, err, sizeof(err)), PROMCLIENT_EHTTP);
	print_message("404: %s\n", err);
	assert_non_null(strstr(err, "HTTP 404"));
	promclient_free(c);
}

static void a_result_other_than_a_vector_is_refused(void **state)
{
	struct promclient *c;
	struct got r;
	char err[512];

	(void)state;
	skip_without_server();
	c = client(self.url);
	assert_int_equal(query(c, "scalar(vector(1))", 0, &r, err, sizeof(err)),
			 PROMCLIENT_ETYPE);
	assert_non_null(strstr(err, "scalar"));
	assert_int_equal(query(c, "up{job=\"self\"}[5s]", 0, &r, err, sizeof(err)),
			 PROMCLIENT_ETYPE);
	assert_non_null(strstr(err, "matrix"));
	promclient_free(c);
}

/* Last of the plain tests: it stops the server. */
static void a_stopped_prometheus_is_unreachable(void **state)
{
	struct promclient *c;
	struct got r;
	char err[512];

	(void)state;
	skip_without_server();
	c = client(self.url);
	assert_int_equal(query(c, "vector(1)", 0, &r, err, sizeof(err)),
			 PROMCLIENT_OK);
	promserver_stop(&self);
	assert_int_equal(query(c, "vector(1)", 0, &r, err, sizeof(err)),
			 PROMCLIENT_EUNREACHABLE);
	print_message("stopped: %s\n", err);
	assert_non_null(strstr(err, "onnect"));
	promclient_free(c);
}

/* ---- refused before any request ----------------------------------------- */

static void refused(const struct promclient_opts *o, const char *want)
{
	char err[512] = "";
	struct promclient *c = promclient_new(o, err, sizeof(err));

	if (c)
		fail_msg("%s accepted", o->url);
	print_message("refused: %s\n", err);
	assert_non_null(strstr(err, want));
}

static void urls_that_are_not_http_are_refused(void **state)
{
	(void)state;
	refused(&(struct promclient_opts){ .url = "ftp://127.0.0.1:9090" },
		"is not http:// or https://");
	refused(&(struct promclient_opts){ .url = "file:///etc/passwd" },
		"is not http:// or https://");
	refused(&(struct promclient_opts){ .url = "127.0.0.1:9090" }, "127.0.0.1:9090");
	refused(&(struct promclient_opts){ .url = "" }, "no Prometheus URL");
	/* The password would show in ps and in every message. */
	refused(&(struct promclient_opts){ .url = "http://u:" PASSWORD "@127.0.0.1:9090" },
		"credentials in the URL are refused");
	refused(&(struct promclient_opts){ .url = "http://127.0.0.1:9090/?x=1" },
		"a query or fragment");
	refused(&(struct promclient_opts){ .url = "http://127.0.0.1:9090", .user = "u" },
		"both a user and a password file");
	refused(&(struct promclient_opts){ .url = "http://127.0.0.1:9090", .user = "u",
					   .password_file = "/nonexistent/pw" },
		"/nonexistent/pw");
}

/* ---- TLS and basic auth ------------------------------------------------- */

/*
 * Starts `secure`: a certificate for IP 127.0.0.1 (openssl), a bcrypt hash
 * of PASSWORD (libcrypt), the web config naming them.  False with the
 * reason printed when this host cannot.
 */
static bool start_secure(void)
{
	char cert[PATH_MAX], key[PATH_MAX], text[512], why[256];
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	const char *hash;

	if (skip_why[0]) {
		print_message("skipped: %s\n", skip_why);
		return false;
	}
	if (access(OPENSSL, X_OK)) {
		print_message("skipped: no %s (Debian package openssl)\n", OPENSSL);
		return false;
	}
	snprintf(cert, sizeof(cert), "%s", tmp_path("server.crt"));
	snprintf(key, sizeof(key), "%s", tmp_path("server.key"));
	{
		char *argv[] = { OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
				 "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
				 "-out", cert, "-days", "2", "-subj", "/CN=permscope-test",
				 "-addext", "subjectAltName=IP:127.0.0.1", NULL };

		if (run_capture(argv) != 0)
			fail_msg("openssl req: %s", err_text);
	}
	cd = calloc(1, sizeof(*cd));
	assert_non_null(cd);
	assert_non_null(crypt_gensalt_rn("$2b$", 10, NULL, 0, setting, sizeof(setting)));
	hash = crypt_rn(PASSWORD, setting, cd, sizeof(*cd));
	assert_non_null(hash);
	snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: server.crt\n"
		 "  key_file: server.key\nbasic_auth_users:\n  prometheus: %s\n", hash);
	free(cd);
	write_tmp_file("password", PASSWORD "\n");
	write_tmp_file("wrong-password", "not-" PASSWORD "\n");
	if (promserver_start_web(&secure, "", write_tmp_file("web.yml", text), why,
				 sizeof(why)))
		fail_msg("prometheus with --web.config.file: %s", why);
	return true;
}

static int stop_secure(void **state)
{
	(void)state;
	promserver_stop(&secure);
	return 0;
}

/*
 * With the CA and the right password the query answers (once the server
 * is ready); with a wrong password it is HTTP 401; without the CA the
 * certificate is not trusted.  Verbose prints the query, never the
 * password.
 */
static void tls_with_basic_auth_answers_only_the_right_password(void **state)
{
	char url[96], err[512], pw[PATH_MAX], wrong[PATH_MAX], log[PATH_MAX];
	struct promclient_opts o = { .user = "prometheus", .timeout_s = 10 };
	struct promclient *c;
	struct got r;
	int saved, fd, rc;
	char *printed;

	(void)state;
	if (!start_secure())
		skip();
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", secure.port);
	snprintf(pw, sizeof(pw), "%s", tmp_path("password"));
	snprintf(wrong, sizeof(wrong), "%s", tmp_path("wrong-password"));
	snprintf(log, sizeof(log), "%s", tmp_path("verbose.log"));
	o.url = url;
	o.ca_file = tmp_path("server.crt");
	o.password_file = pw;
	o.verbose = 1;

	/* stderr to a file, to read what verbose printed. */
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	c = promclient_new(&o, err, sizeof(err));
	rc = c ? query_until_data(c, "vector(1)", 30, &r, err, sizeof(err)) : -100;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (rc)
		fail_msg("%s: %s", promclient_status_name(rc), err);
	assert_true(only_value(&r, NULL) == 1.0);
	promclient_free(c);
	printed = slurp(log, NULL);
	assert_non_null(printed);
	assert_non_null(strstr(printed, "query: vector(1) @ now\n"));
	assert_null(strstr(printed, PASSWORD));
	free(printed);

	o.verbose = 0;
	o.password_file = wrong;
	c = promclient_new(&o, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(query(c, "vector(1)", 0, &r, err, sizeof(err)),
			 PROMCLIENT_EHTTP);
	print_message("wrong password: %s\n", err);
	assert_non_null(strstr(err, "HTTP 401"));
	assert_null(strstr(err, PASSWORD));
	promclient_free(c);

	o.password_file = pw;
	o.ca_file = NULL;
	c = promclient_new(&o, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(query(c, "vector(1)", 0, &r, err, sizeof(err)),
			 PROMCLIENT_ETLS);
	print_message("no CA: %s\n", err);
	assert_non_null(strstr(err, "TLS: "));
	promclient_free(c);

	/*
	 * The same through gate's options: with the CA and the password the
	 * sides are read (none of this Prometheus's series is permscope's:
	 * no hosts, no verdict); a wrong password, or no CA, exit 4.
	 */
	assert_int_equal(permscope("gate", "--prometheus", url, "-b", "{}", "-n", "{}",
				   "--prometheus-ca", tmp_path("server.crt"), "--prometheus-user",
				   "prometheus", "--prometheus-password-file", pw, NULL), 3);
	assert_contains(out_text, "0 hosts, fewer than the 1 asked for");
	assert_int_equal(permscope("gate", "--prometheus", url, "-b", "{}", "-n", "{}",
				   "--prometheus-ca", tmp_path("server.crt"), "--prometheus-user",
				   "prometheus", "--prometheus-password-file", wrong, NULL), 4);
	assert_contains(err_text, "HTTP 401");
	assert_not_contains(err_text, PASSWORD);
	assert_int_equal(permscope("gate", "--prometheus", url, "-b", "{}", "-n", "{}",
				   "--prometheus-user", "prometheus", "--prometheus-password-file",
				   pw, NULL), 4);
	assert_contains(err_text, "TLS: ");
	/* the password file missing: bad usage, before any query */
	assert_int_equal(permscope("gate", "--prometheus", url, "-b", "{}", "-n", "{}",
				   "--prometheus-user", "prometheus", "--prometheus-password-file",
				   "/nonexistent/pw", NULL), 2);
}

/* ---- setup -------------------------------------------------------------- */

/*
 * A scratch directory, and Prometheus scraping itself: its port is known
 * only once it runs, so the target comes through a file_sd file written
 * then (Prometheus watches the file).
 */
static int setup(void **state)
{
	char yaml[PATH_MAX + 256], targets[128], tmp[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	snprintf(yaml, sizeof(yaml),
		 "scrape_configs:\n  - job_name: self\n    file_sd_configs:\n"
		 "      - files: ['%s/targets.json']\n", tmpdir);
	if (promserver_start(&self, yaml, skip_why, sizeof(skip_why)))
		return skip_why[0] ? 0 : -1;
	snprintf(targets, sizeof(targets), "[{\"targets\": [\"127.0.0.1:%d\"]}]\n", self.port);
	snprintf(tmp, sizeof(tmp), "%s", write_tmp_file("targets.json.new", targets));
	return rename(tmp, tmp_path("targets.json"));
}

static int teardown(void **state)
{
	promserver_stop(&self);
	promserver_stop(&secure);
	return tmpdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_vector_query_returns_the_scraped_up),
		cmocka_unit_test(a_query_at_a_given_time_sees_that_time),
		cmocka_unit_test(a_query_prometheus_rejects_carries_its_message),
		cmocka_unit_test(an_unknown_path_is_an_http_error),
		cmocka_unit_test(a_result_other_than_a_vector_is_refused),
		cmocka_unit_test(a_stopped_prometheus_is_unreachable),
		cmocka_unit_test(urls_that_are_not_http_are_refused),
		cmocka_unit_test_teardown(tls_with_basic_auth_answers_only_the_right_password,
					  stop_secure),
	};

	return cmocka_run_group_tests_name("promclient", tests, setup, teardown);
}
