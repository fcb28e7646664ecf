/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the live tests of `permscope daemon` share (test_live_daemon.c, and
 * test_live_fleet.c, which runs two daemons behind one Prometheus): a
 * workload with known counts made by a forked child under a command name
 * of its own (so --comm sees it alone), and a daemon started on a free
 * loopback port with a state directory under the test's tmpdir.
 *
 * Static inline, like testutil.h (which it needs, for tmpdir, spawn_to(),
 * slurp() and cmocka).
 */
#ifndef PERMSCOPE_DAEMONUTIL_H
#define PERMSCOPE_DAEMONUTIL_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MISSING_PATH "/nonexistent-permscope-dir/missing-program"

static inline double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- the workload ------------------------------------------------------- */

/*
 * A forked child named `comm` (no exec of its own, so no dynamic loader
 * calls) that makes exactly `n` access() calls and `m` execve() calls of
 * `path`, each of which must fail with ENOENT.
 */
static inline void run_caller_exec(const char *comm, int n, int m, const char *path)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };

		prctl(PR_SET_NAME, comm);
		for (int i = 0; i < n; i++)
			access("/", R_OK);
		for (int i = 0; i < m; i++)
			if (execve(path, argv, environ) == 0 || errno != ENOENT)
				_exit(2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* run_caller_exec() of a missing path: the execs fail with ENOENT. */
static inline void run_caller(const char *comm, int n, int m)
{
	run_caller_exec(comm, n, m, MISSING_PATH);
}

/* ---- the daemon --------------------------------------------------------- */

struct daemon {
	pid_t pid;
	char addr[64];   /* where /metrics is served */
	char state[600]; /* its state directory */
	char err[600];   /* its stderr */
};

/* Whether file PATH holds WHAT yet; its text in *text when asked. */
static inline bool file_says(const char *path, const char *what, char **text)
{
	char *t = slurp(path, NULL);
	bool found = t && strstr(t, what);

	if (text)
		*text = t;
	else
		free(t);
	return found;
}

/*
 * Start `permscope daemon --families access,exec --comm COMM --listen
 * 127.0.0.1:0 --state-dir TMP/TAG --interval INTERVAL --duty-cycle=always
 * [EXTRA]` (EXTRA may be another --duty-cycle; "" leaves the daemon its
 * default cycle), and return once it serves (it logs "listening on
 * http://ADDR/metrics").
 */
static inline void daemon_start(struct daemon *d, const char *tag, const char *comm,
			 const char *interval, const char *extra)
{
	char *argv[20], *text = NULL, *at;
	int n = 0;

	snprintf(d->state, sizeof(d->state), "%s/%s", tmpdir, tag);
	snprintf(d->err, sizeof(d->err), "%s/%s.stderr", tmpdir, tag);
	argv[n++] = (char *)permscope_bin();
	argv[n++] = "daemon";
	argv[n++] = "--families";
	argv[n++] = "access,exec";
	argv[n++] = "--comm";
	argv[n++] = (char *)comm;
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--state-dir";
	argv[n++] = d->state;
	argv[n++] = "--interval";
	argv[n++] = (char *)interval;
	/* every call, for the exact counts the tests assert, unless EXTRA sets a cycle */
	if (!extra || (*extra && strncmp(extra, "--duty-cycle", 12)))
		argv[n++] = "--duty-cycle=always";
	if (extra && *extra)
		argv[n++] = (char *)extra;
	argv[n] = NULL;
	d->pid = spawn_to(argv, "/dev/null", d->err);
	for (int i = 0; i < 200; i++) {
		free(text);
		if (file_says(d->err, "listening on http://", &text))
			break;
		if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
			print_message("permscope daemon exited early:\n%s\n", text ? text : "");
			free(text);
			fail_msg("permscope daemon did not start");
		}
		usleep(50000);
	}
	at = text ? strstr(text, "listening on http://") : NULL;
	if (!at) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		print_message("%s\n", text ? text : "");
		free(text);
		fail_msg("permscope daemon did not serve within 10 s");
	}
	at += strlen("listening on http://");
	snprintf(d->addr, sizeof(d->addr), "%.*s", (int)strcspn(at, "/\n"), at);
	free(text);
}

/* SIGTERM, and its exit status; *took gets how long it took to exit. */
static inline int daemon_stop(struct daemon *d, double *took)
{
	struct timespec t0;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(d->pid, SIGTERM);
	status = wait_exit_status(d->pid);
	if (took)
		*took = seconds_since(&t0);
	d->pid = 0;
	return status;
}

#endif
