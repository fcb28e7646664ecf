/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A real Prometheus server for the tests that need one (the fleet story:
 * a remote Prometheus scraping the daemon, the contrib rules and dashboard
 * queries evaluated by the real engine), written once:
 *
 * - promserver_start(): a fresh directory with prometheus.yml (scrape and
 *   rule evaluation every second, then the caller's YAML), Prometheus on a
 *   free loopback port storing its TSDB and log there; returns once
 *   /-/ready answers 200.  -1 with the reason when it cannot: no
 *   /usr/bin/prometheus (the caller skips), or the server did not come up
 *   (its log is printed);
 * - promserver_start_tsdb(): the same on a TSDB directory the caller made
 *   (a backfill: `promtool tsdb create-blocks-from`), scraping nothing;
 * - promserver_start_web(): the same with --web.config.file (TLS, basic
 *   auth): ready once the port answers at all, the caller then waits;
 * - promtool_bin(): $PROMTOOL, else promtool on $PATH, else NULL;
 * - promserver_missing(): why Prometheus or promtool cannot run here
 *   (the caller skips), or NULL;
 * - promtool_backfill(): `promtool tsdb create-blocks-from openmetrics
 *   FILE TSDB`, failing the test when promtool does;
 * - promserver_query(): `promtool query instant -o json URL EXPR`, its
 *   stdout (the result vector as JSON, "[]" when empty);
 * - promserver_wait_data(): the same, polled until the result is not empty;
 * - promserver_value(): the one sample's value of a query, NAN otherwise;
 * - promserver_stop(): SIGTERM, wait, remove the directory; when the
 *   server did not exit cleanly, or the test set ps->keep, print its log and
 *   leave the directory for a look.
 *
 * promserver_query() runs promtool through run_capture(): out_text and
 * err_text are overwritten.  A test that may fail between start() and stop()
 * should stop the server in a cmocka teardown, so that no Prometheus outlives
 * it.
 *
 * Prometheus and promtool run with fork/exec (testutil.h's spawning), never
 * through a shell.  Static inline, like testutil.h (which it includes).
 */
#ifndef PERMSCOPE_PROMSERVER_H
#define PERMSCOPE_PROMSERVER_H

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>

#include "testutil.h"

#define PROMSERVER_BIN "/usr/bin/prometheus"

struct promserver {
	pid_t pid;           /* the server; 0 once stopped */
	int port;            /* on 127.0.0.1 */
	char dir[PATH_MAX];  /* prometheus.yml, data/, prometheus.log */
	char url[64];        /* http://127.0.0.1:PORT */
	bool keep;           /* set by a failing test: stop() keeps dir and log */
};

/* $PROMTOOL, else promtool on $PATH; NULL when there is none. */
static inline const char *promtool_bin(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("PROMTOOL"), *dirs = getenv("PATH");

	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d; d += strcspn(d, ":"), d += *d == ':') {
		snprintf(path, sizeof(path), "%.*s/promtool", (int)strcspn(d, ":"), d);
		if (access(path, X_OK) == 0)
			return path;
	}
	return NULL;
}

/* Why the real Prometheus and promtool cannot run here, or NULL when they can. */
static inline const char *promserver_missing(void)
{
	static char why[128];

	if (promtool_bin() && access(PROMSERVER_BIN, X_OK) == 0)
		return NULL;
	snprintf(why, sizeof(why), "no promtool or %s (Debian package prometheus; or set "
		 "PROMTOOL)", PROMSERVER_BIN);
	return why;
}

/* OpenMetrics FILE into the TSDB directory TSDB (a backfill); fails the test on error. */
static inline void promtool_backfill(const char *file, const char *tsdb)
{
	char *argv[] = { (char *)promtool_bin(), "tsdb", "create-blocks-from", "openmetrics",
			 (char *)file, (char *)tsdb, NULL };

	if (run_capture(argv) != 0)
		fail_msg("promtool tsdb create-blocks-from openmetrics %s: %s%s", file, out_text,
			 err_text);
}

static inline double promserver_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * A TCP port free on loopback now.  Prometheus cannot be told port 0 and
 * report the one it got, so another process may take it first: start()
 * tries again on another port when the server exits at once.
 */
static inline int promserver_free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	if (!bind(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
	    !getsockname(fd, (struct sockaddr *)&sin, &len))
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* The HTTP status of GET http://127.0.0.1:PORT/PATH, or -1 if none answers. */
static inline int promserver_http_status(int port, const char *path)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				   .sin_port = htons(port) };
	char buf[256];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), status = -1, len;
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		close(fd);
		return -1;
	}
	len = snprintf(buf, sizeof(buf),
		       "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n",
		       path, port);
	if (write(fd, buf, len) == len)
		while (got < (ssize_t)sizeof(buf) - 1 &&
		       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
			got += n;
	close(fd);
	buf[got > 0 ? got : 0] = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		status = -1;
	return status;
}

/* The reason for a failed start, cut to LEN (a path may be long). */
static inline void __attribute__((format(printf, 3, 4)))
promserver_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Prints the server's log (prometheus.log in its directory), for a failure. */
static inline void promserver_print_log(const struct promserver *ps)
{
	char path[PATH_MAX + 32];
	char *log;

	snprintf(path, sizeof(path), "%s/prometheus.log", ps->dir);
	log = slurp(path, NULL);
	print_message("--- %s ---\n", path);
	if (log)
		testutil_print_text(log);
	free(log);
}

/*
 * Starts Prometheus with a config of
 *
 *   global: scrape_interval, scrape_timeout and evaluation_interval 1s
 *
 * followed by YAML, the caller's top-level keys verbatim: `scrape_configs:`
 * and, when rules are to be evaluated, `rule_files:` (absolute paths, or
 * paths relative to ps->dir).  Returns 0 once /-/ready answers 200 (within
 * 60 s); -1 with the reason in WHY: no Prometheus installed (the caller
 * skips), a directory that cannot be made, or a server that exited or never
 * got ready (its log printed, the directory kept).
 */
static inline int promserver_start_with(struct promserver *ps, const char *yaml,
					const char *tsdb, const char *web_config, char *why,
					size_t whylen);

static inline int promserver_start(struct promserver *ps, const char *yaml, char *why,
				   size_t whylen)
{
	return promserver_start_with(ps, yaml, NULL, NULL, why, whylen);
}

/* promserver_start() behind --web.config.file WEB_CONFIG (TLS, basic auth). */
static inline int promserver_start_web(struct promserver *ps, const char *yaml,
				       const char *web_config, char *why, size_t whylen)
{
	return promserver_start_with(ps, yaml, NULL, web_config, why, whylen);
}

/*
 * promserver_start() with its TSDB in TSDB (NULL: data/ in its directory),
 * which the caller removes.  For a backfill's blocks, YAML NULL: no
 * scrape_configs, the blocks are all it has.
 */
static inline int promserver_start_tsdb(struct promserver *ps, const char *yaml,
					const char *tsdb, char *why, size_t whylen)
{
	return promserver_start_with(ps, yaml, tsdb, NULL, why, whylen);
}

/* The three above: TSDB NULL for a fresh one, WEB_CONFIG NULL for plain HTTP. */
static inline int promserver_start_with(struct promserver *ps, const char *yaml,
					const char *tsdb, const char *web_config, char *why,
					size_t whylen)
{
	const char *base = getenv("TMPDIR");
	char conf[PATH_MAX + 32], data[PATH_MAX + 32], log[PATH_MAX + 32];
	char conf_arg[PATH_MAX + 64], data_arg[PATH_MAX + 64], listen_arg[80];
	char web_arg[PATH_MAX + 64];
	char *argv[] = { PROMSERVER_BIN, conf_arg, data_arg, listen_arg,
			 "--storage.tsdb.retention.time=1h", "--log.level=info",
			 web_config ? web_arg : NULL, NULL };
	FILE *f;

	memset(ps, 0, sizeof(*ps));
	why[0] = 0;
	if (access(PROMSERVER_BIN, X_OK)) {
		promserver_why(why, whylen, "no %s (Debian package prometheus)", PROMSERVER_BIN);
		return -1;
	}
	snprintf(ps->dir, sizeof(ps->dir), "%s/permscope-prometheus.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(ps->dir)) {
		promserver_why(why, whylen, "cannot make %s: %s", ps->dir, strerror(errno));
		ps->dir[0] = 0;
		return -1;
	}
	snprintf(conf, sizeof(conf), "%s/prometheus.yml", ps->dir);
	snprintf(data, sizeof(data), "%s/data", ps->dir);
	snprintf(log, sizeof(log), "%s/prometheus.log", ps->dir);
	f = fopen(conf, "w");
	if (!f) {
		promserver_why(why, whylen, "cannot write %s: %s", conf, strerror(errno));
		return -1;
	}
	fprintf(f, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
		   "  evaluation_interval: 1s\n%s", yaml ? yaml : "");
	if (fclose(f)) {
		promserver_why(why, whylen, "cannot write %s: %s", conf, strerror(errno));
		return -1;
	}
	snprintf(conf_arg, sizeof(conf_arg), "--config.file=%s", conf);
	snprintf(data_arg, sizeof(data_arg), "--storage.tsdb.path=%s", tsdb ? tsdb : data);
	if (web_config)
		snprintf(web_arg, sizeof(web_arg), "--web.config.file=%s", web_config);
	/* A few ports: another process may take the free one before Prometheus. */
	for (int attempt = 0; attempt < 5; attempt++) {
		double t0 = promserver_now();

		ps->port = promserver_free_port();
		snprintf(ps->url, sizeof(ps->url), "http://127.0.0.1:%d", ps->port);
		snprintf(listen_arg, sizeof(listen_arg), "--web.listen-address=127.0.0.1:%d",
			 ps->port);
		ps->pid = spawn_to(argv, log, log);
		while (promserver_now() - t0 < 60) {
			int status = promserver_http_status(ps->port, "/-/ready");

			/*
			 * Behind TLS or basic auth a plain request gets 400 or
			 * 401: the server is up, the caller waits for its data.
			 */
			if (status == 200 || (web_config && status > 0))
				return 0;
			if (waitpid(ps->pid, NULL, WNOHANG) == ps->pid) {
				ps->pid = 0;
				break;
			}
			usleep(100000);
		}
		if (ps->pid) { /* running, never ready */
			kill(ps->pid, SIGKILL);
			waitpid(ps->pid, NULL, 0);
			ps->pid = 0;
			promserver_why(why, whylen, "prometheus not ready within 60 s (log in %s)", log);
			promserver_print_log(ps);
			return -1;
		}
		{
			char *text = slurp(log, NULL);
			bool taken = text && strstr(text, "address already in use");

			free(text);
			if (!taken)
				break;
		}
	}
	promserver_why(why, whylen, "prometheus exited at start (log in %s)", log);
	promserver_print_log(ps);
	return -1;
}

/*
 * `promtool query instant -o json URL PROMQL`: its stdout, malloc'ed (the
 * result as JSON: a vector's "[{"metric":{...},"value":[t,"v"]}]", "[]"
 * when it has no data), or NULL when promtool failed (its stderr printed).
 */
static inline char *promserver_query(const struct promserver *ps, const char *promql)
{
	char *argv[] = { (char *)promtool_bin(), "query", "instant", "-o", "json",
			 (char *)ps->url, (char *)promql, NULL };
	int status;

	if (!argv[0]) {
		print_message("promtool not found (Debian package prometheus; or set PROMTOOL)\n");
		return NULL;
	}
	status = run_capture(argv);

	if (status != 0) {
		print_message("promtool query instant %s '%s': exit %d\n%s", ps->url, promql,
			      status, err_text);
		return NULL;
	}
	return strdup(out_text);
}

/* Whether promserver_query()'s JSON holds at least one sample or series. */
static inline bool promserver_has_data(const char *json)
{
	json_t *root = json ? json_loads(json, 0, NULL) : NULL;
	bool data = false;

	/* A vector or matrix is an array of series, a scalar [t, "v"]. */
	if (json_is_array(root))
		data = json_array_size(root) > 0;
	json_decref(root);
	return data;
}

/*
 * Runs PROMQL every 0.5 s until its result holds data or TIMEOUT seconds
 * pass: the last JSON (malloc'ed; empty or NULL on timeout).  *took, when
 * not NULL, gets the seconds waited.
 */
static inline char *promserver_wait_data(const struct promserver *ps, const char *promql,
					 double timeout, double *took)
{
	double t0 = promserver_now();
	char *json = NULL;

	for (;;) {
		free(json);
		json = promserver_query(ps, promql);
		if (promserver_has_data(json) || promserver_now() - t0 >= timeout)
			break;
		usleep(500000);
	}
	if (took)
		*took = promserver_now() - t0;
	return json;
}

/* The value of PROMQL's result when it is exactly one sample; NAN otherwise. */
static inline double promserver_value(const struct promserver *ps, const char *promql)
{
	char *json = promserver_query(ps, promql);
	json_t *root = json ? json_loads(json, 0, NULL) : NULL, *v = NULL;
	double value = NAN;

	/* A scalar is [t, "v"]; a vector of one sample [{"value": [t, "v"]}]. */
	if (json_is_array(root) && json_is_number(json_array_get(root, 0)))
		v = root;
	else if (json_is_array(root) && json_array_size(root) == 1)
		v = json_object_get(json_array_get(root, 0), "value");
	v = json_array_get(v, 1);
	if (json_is_string(v))
		value = strtod(json_string_value(v), NULL);
	json_decref(root);
	free(json);
	return value;
}

/*
 * SIGTERM, wait, and remove the directory.  When Prometheus did not exit
 * with status 0, or ps->keep is set, print its log and keep the directory
 * instead, saying where.  Safe on a server that never started, and twice.
 */
static inline void promserver_stop(struct promserver *ps)
{
	bool keep = ps->keep;

	if (ps->pid > 0) {
		kill(ps->pid, SIGTERM);
		if (wait_exit_status(ps->pid) != 0) {
			print_message("prometheus did not exit cleanly\n");
			keep = true;
		}
		ps->pid = 0;
	}
	if (!ps->dir[0])
		return;
	if (keep) {
		promserver_print_log(ps);
		print_message("kept %s\n", ps->dir);
	} else if (remove_tree(ps->dir)) {
		print_message("could not remove all of %s\n", ps->dir);
	}
	ps->dir[0] = 0;
}

#endif
