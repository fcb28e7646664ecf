// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Debian package, end to end on this machine: `make deb` builds it,
 * lintian finds no error in it, `dpkg -i` installs it, the installed binary
 * runs (--version, and the daemon with the command line the unit runs, for
 * a second), its man pages render, the unit and /etc/default/permscope are
 * where systemd and the unit look (systemd-analyze verify accepts the unit),
 * and `dpkg --purge` leaves nothing behind: every file `dpkg -L` listed,
 * every directory the package brought, the conffile and the daemon's state
 * directory are gone.
 *
 * Needs root, dpkg-buildpackage and lintian (make test-deps), and a machine
 * where permscope is not installed and /etc/default/permscope and
 * /var/lib/permscope do not exist: the test never touches a user's own
 * installation.  Otherwise it says why and is skipped.  The daemon's run
 * needs BPF as the other live tests do; without it that step alone is
 * skipped, with the reason.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define DPKG "/usr/bin/dpkg"
#define DPKG_DEB "/usr/bin/dpkg-deb"
#define DPKG_QUERY "/usr/bin/dpkg-query"
#define LINTIAN "/usr/bin/lintian"
#define MAN "/usr/bin/man"
#define SYSTEMD_ANALYZE "/usr/bin/systemd-analyze"
#define INSTALLED_BIN "/usr/bin/permscope"
#define UNIT "/lib/systemd/system/permscope.service"
#define DEFAULTS "/etc/default/permscope"
#define STATE_DIR "/var/lib/permscope"

static char skip_all[512];   /* why the package cannot be tried here, or "" */
static char no_bpf[512];     /* why the installed daemon cannot run here, or "" */
static char top[PATH_MAX / 2];  /* the source tree */
static char out[PATH_MAX / 2];  /* the build directory: this program's ../ */
static bool installed;       /* dpkg -i ran: the teardown purges */

static const char *const tools[] = { DPKG, DPKG_DEB, DPKG_QUERY, LINTIAN, MAN,
				     "/usr/bin/dpkg-buildpackage", "/usr/bin/dh", "/usr/bin/make" };

/* Whether dpkg knows permscope in any state (installed, or conffiles left). */
static bool dpkg_knows_permscope(void)
{
	char *argv[] = { DPKG_QUERY, "-W", "-f=${Status}", "permscope", NULL };

	return run_capture(argv) == 0 && !strstr(out_text, "not-installed");
}

static int setup(void **state)
{
	char path[PATH_MAX + 32], real[PATH_MAX];
	ssize_t n;

	(void)state;
	if (live_skip_reason(no_bpf, sizeof(no_bpf), permscope_bin()) < 0)
		return -1;
	if (geteuid() != 0) {
		snprintf(skip_all, sizeof(skip_all), "not root: dpkg -i and --purge need root");
		return 0;
	}
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (access(tools[i], X_OK)) {
			snprintf(skip_all, sizeof(skip_all), "%s is missing (make test-deps)", tools[i]);
			return 0;
		}
	/* This program is OUT/tests/test_live_package: OUT gets the .deb. */
	n = readlink("/proc/self/exe", real, sizeof(real) - 1);
	real[n > 0 ? n : 0] = 0;
	for (int up = 0; up < 2 && strrchr(real, '/'); up++)
		*strrchr(real, '/') = 0;
	if (n <= 0 || !real[0] || strlen(real) >= sizeof(out)) {
		snprintf(skip_all, sizeof(skip_all), "cannot tell where this program is");
		return 0;
	}
	strcpy(out, real);
	/* The source tree: tests/unit/data/../../.., with its debian/. */
	snprintf(path, sizeof(path), "%s/../../..", testdata_dir());
	if (!realpath(path, real) || strlen(real) >= sizeof(top)) {
		snprintf(skip_all, sizeof(skip_all), "no source tree above %s", testdata_dir());
		return 0;
	}
	strcpy(top, real);
	snprintf(path, sizeof(path), "%s/debian/control", top);
	if (access(path, F_OK))
		snprintf(skip_all, sizeof(skip_all), "%.400s is missing", path);
	else if (dpkg_knows_permscope())
		snprintf(skip_all, sizeof(skip_all),
			 "permscope is already installed here (%s): not replacing it", out_text);
	else if (access(DEFAULTS, F_OK) == 0 || access(STATE_DIR, F_OK) == 0)
		snprintf(skip_all, sizeof(skip_all),
			 "%s or %s exists: a purge would remove a user's files", DEFAULTS, STATE_DIR);
	return 0;
}

/* If a test failed between dpkg -i and --purge, the package goes anyway. */
static int teardown(void **state)
{
	if (installed) {
		char *argv[] = { DPKG, "--purge", "permscope", NULL };

		if (run_capture(argv) != 0)
			print_error("dpkg --purge permscope: %s%s", out_text, err_text);
	}
	return tmpdir_teardown(state);
}

/* Runs argv, which must exit 0; else prints its output and fails. */
static void run_ok(char *const argv[])
{
	if (run_capture(argv) != 0) {
		print_error("%s %s failed:\n%s%s", argv[0], argv[1] ? argv[1] : "", out_text,
			    err_text);
		fail();
	}
}

/* The lines of TEXT as a NULL-terminated array of copies. */
static char **lines_of(const char *text)
{
	size_t n = 0, cap = 64;
	char **v = malloc(cap * sizeof(*v));

	assert_non_null(v);
	for (const char *p = text; *p; ) {
		size_t len = strcspn(p, "\n");

		if (len) {
			if (n + 1 >= cap) {
				cap *= 2;
				v = realloc(v, cap * sizeof(*v));
				assert_non_null(v);
			}
			v[n++] = strndup(p, len);
		}
		p += len + (p[len] == '\n');
	}
	v[n] = NULL;
	return v;
}

static size_t count(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

static void free_lines(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* The installed unit's ExecStart= split at blanks, as systemd splits it. */
static char **exec_start(void)
{
	char *unit = slurp(UNIT, NULL), *line, *words;
	char **v;

	assert_non_null(unit);
	line = strstr(unit, "\nExecStart=");
	assert_non_null(line);
	line += strlen("\nExecStart=");
	line[strcspn(line, "\n")] = 0;
	words = strdup(line);
	assert_non_null(words);
	for (char *p = words; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '\n';
	v = lines_of(words);
	free(words);
	free(unit);
	return v;
}

/* The newest OUT/permscope_*.deb made at or after SINCE; NULL if none. */
static char *built_deb(time_t since)
{
	char pattern[PATH_MAX], *best = NULL;
	time_t best_time = since - 1;
	struct stat st;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/permscope_*.deb", out);
	if (glob(pattern, 0, NULL, &g))
		return NULL;
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (stat(g.gl_pathv[i], &st) == 0 && st.st_mtime > best_time) {
			best_time = st.st_mtime;
			free(best);
			best = strdup(g.gl_pathv[i]);
		}
	globfree(&g);
	return best;
}

/*
 * The directories DEB holds that do not exist yet (dpkg-deb -c, before
 * dpkg -i): the ones the package brings, which purge must take away too.
 */
static char **new_directories(const char *deb)
{
	char *argv[] = { DPKG_DEB, "-c", (char *)deb, NULL };
	char **lines, **dirs;
	size_t n = 0;

	run_ok(argv);
	lines = lines_of(out_text);
	dirs = calloc(count(lines) + 1, sizeof(*dirs));
	assert_non_null(dirs);
	for (size_t i = 0; lines[i]; i++) {
		/* "drwxr-xr-x root/root 0 2026-12-02 03:55 ./usr/share/doc/permscope/" */
		char *path = strstr(lines[i], " ./");
		size_t len;

		if (lines[i][0] != 'd' || !path)
			continue;
		path += 2;
		len = strlen(path);
		if (len > 1 && path[len - 1] == '/')
			path[--len] = 0;
		if (len > 1 && access(path, F_OK))
			dirs[n++] = strdup(path);
	}
	free_lines(lines);
	return dirs;
}

static void the_package_installs_runs_and_purges_without_a_trace(void **state)
{
	char out_arg[PATH_MAX + 8];
	char *deb, **listed, **dirs;
	time_t start = time(NULL);
	struct stat st;
	int errors = 0;

	(void)state;
	if (skip_all[0]) {
		print_message("skipped: %s\n", skip_all);
		skip();
	}

	/* make deb, into this build's OUT. */
	snprintf(out_arg, sizeof(out_arg), "OUT=%s", out);
	{
		char *argv[] = { "/usr/bin/make", "-s", "-C", top, out_arg, "deb", NULL };

		run_ok(argv);
	}
	deb = built_deb(start);
	if (!deb)
		fail_msg("make deb left no %s/permscope_*.deb", out);
	assert_int_equal(stat(deb, &st), 0);
	print_message("package: %s, %lld bytes\n", deb, (long long)st.st_size);

	/* lintian: every line it prints is shown, an E: line fails. */
	{
		char *argv[] = { LINTIAN, deb, NULL };
		char **lines;

		run_capture(argv);
		lines = lines_of(out_text);
		for (size_t i = 0; lines[i]; i++) {
			print_message("lintian: %s\n", lines[i]);
			errors += !strncmp(lines[i], "E: ", 3);
		}
		free_lines(lines);
		if (errors)
			fail_msg("lintian found %d error(s) in %s", errors, deb);
	}

	/* dpkg -i, and what it says the package holds. */
	dirs = new_directories(deb);
	{
		char *argv[] = { DPKG, "-i", deb, NULL };

		installed = true;
		run_ok(argv);
	}
	{
		char *argv[] = { DPKG_QUERY, "-L", "permscope", NULL };

		run_ok(argv);
		listed = lines_of(out_text);
	}
	{
		char *argv[] = { DPKG_QUERY, "-W", "-f=${Conffiles}", "permscope", NULL };

		run_ok(argv);
		assert_contains(out_text, " " DEFAULTS " ");
	}

	/* The installed binary, man pages, unit and defaults file. */
	{
		char *argv[] = { INSTALLED_BIN, "--version", NULL };

		run_ok(argv);
		assert_contains(out_text, "permscope");
	}
	/*
	 * man-db keeps a formatted copy of a page it rendered at the default
	 * width in /var/cache/man, and prefers it while it is newer than the
	 * page: the package's pages carry debian/changelog's date, so a copy
	 * left by an earlier run would hide this package's pages, and would be
	 * left behind after the purge.  At another width man-db keeps none.
	 */
	setenv("MANWIDTH", "100", 1);
	{
		char *argv[] = { MAN, "-P", "cat", "permscope-daemon", NULL };

		run_ok(argv);
		assert_contains(out_text, "SYNOPSIS");
		/* this tree's page, not an older one: it names the newest options */
		assert_contains(out_text, "--web-config");
		assert_contains(out_text, "--bpf-stats");
	}
	{
		char *argv[] = { MAN, "-P", "cat", "permscope", NULL };

		run_ok(argv);
		assert_contains(out_text, "SYNOPSIS");
	}
	unsetenv("MANWIDTH");
	assert_int_equal(access(UNIT, R_OK), 0);
	assert_int_equal(access(DEFAULTS, R_OK), 0);
	if (access(SYSTEMD_ANALYZE, X_OK) == 0) {
		char *argv[] = { SYSTEMD_ANALYZE, "verify", UNIT, NULL };

		if (run_capture(argv) != 0 || err_text[0])
			fail_msg("systemd-analyze verify %s:\n%s%s", UNIT, out_text, err_text);
		print_message("systemd-analyze verify %s: clean\n", UNIT);
	} else {
		print_message("not checked: systemd-analyze verify (%s is missing)\n",
			      SYSTEMD_ANALYZE);
	}

	/*
	 * The daemon with the command line the unit runs (its ExecStart=, the
	 * defaults file's ARGS empty), as one would start it without systemd;
	 * on a free port and for a second.  It writes snapshots into
	 * /var/lib/permscope, which purge must take too.
	 */
	if (no_bpf[0]) {
		print_message("not run: the installed daemon (%s)\n", no_bpf);
	} else {
		char *argv[32], *defaults = slurp(DEFAULTS, NULL);
		char **cmd = exec_start();
		size_t n = 0;
		glob_t g;

		assert_non_null(defaults);
		assert_contains(defaults, "\nARGS=\"\"\n");
		free(defaults);
		for (size_t i = 0; cmd[i] && n < 24; i++)
			if (strcmp(cmd[i], "$ARGS"))
				argv[n++] = cmd[i];
		assert_string_equal(argv[0], INSTALLED_BIN);
		for (const char *const *a = (const char *const[]){ "--listen", "127.0.0.1:0", "-d",
				"1", "--interval", "0.5", "-q", NULL }; *a; a++)
			argv[n++] = (char *)*a;
		argv[n] = NULL;
		run_ok(argv);
		assert_int_equal(glob(STATE_DIR "/snap-*.total.json", 0, NULL, &g), 0);
		print_message("the unit's command line ran 1 s: %zu snapshots in %s\n", g.gl_pathc,
			      STATE_DIR);
		globfree(&g);
		free_lines(cmd);
	}

	/* dpkg --purge: nothing it listed, brought or made is left. */
	{
		char *argv[] = { DPKG, "--purge", "permscope", NULL };

		run_ok(argv);
		installed = false;
	}
	assert_false(dpkg_knows_permscope());
	errors = 0;
	/* A directory dpkg lists may be shared (/usr, /lib: a symlink here). */
	for (size_t i = 0; listed[i]; i++) {
		if (stat(listed[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			print_error("left after purge: %s\n", listed[i]);
			errors++;
		}
	}
	for (size_t i = 0; dirs[i]; i++) {
		if (access(dirs[i], F_OK) == 0) {
			print_error("directory left after purge: %s\n", dirs[i]);
			errors++;
		}
	}
	for (size_t i = 0; i < 2; i++) {
		const char *path = i ? STATE_DIR : DEFAULTS;

		if (access(path, F_OK) == 0) {
			print_error("left after purge: %s\n", path);
			errors++;
		}
	}
	print_message("dpkg -L listed %zu paths, %zu directories came with the package\n",
		      count(listed), count(dirs));
	free_lines(listed);
	free_lines(dirs);
	free(deb);
	assert_int_equal(errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_package_installs_runs_and_purges_without_a_trace),
	};

	return cmocka_run_group_tests_name("live-package", tests, setup, teardown);
}
