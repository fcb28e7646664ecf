/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the cmocka tests (unit, live and VM) share, written once:
 *
 * - where things are: permscope_bin(), testdata_dir();
 * - one scratch directory a test program, removed whole: tmpdir_setup() and
 *   tmpdir_teardown() (cmocka fixtures), tmp_path(), write_tmp_file();
 * - whole files: slurp(), write_file(), remove_tree();
 * - child processes, never through a shell, stdin from /dev/null: spawn_to()
 *   and wait_exit_status(), run_to(); run_capture() and
 *   permscope("report", FILE, NULL) leave the output in out_text and err_text;
 *   run_capture_in() reads stdin from a file instead;
 * - assert_contains() and assert_not_contains(), which print both strings;
 * - assert_golden(): golden files, with the one update rule
 *   PERMSCOPE_UPDATE_GOLDEN=1;
 * - source_dir(), find_program() in $PATH, permscope_commands() and
 *   help_options(): the commands and a command's options, from --help.
 *
 * Everything is static inline, so a test program compiles only what it uses.
 */
#ifndef PERMSCOPE_TESTUTIL_H
#define PERMSCOPE_TESTUTIL_H

#include <crypt.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

extern char **environ;

/* ---- where things are --------------------------------------------------- */

/* The permscope binary under test: $PERMSCOPE_BIN, else ./permscope. */
static inline const char *permscope_bin(void)
{
	const char *bin = getenv("PERMSCOPE_BIN");

	return bin && *bin ? bin : "./permscope";
}

/* tests/unit/data (saved profiles), or $PERMSCOPE_TESTDATA; golden/ is beside it. */
static inline const char *testdata_dir(void)
{
	const char *dir = getenv("PERMSCOPE_TESTDATA");

	return dir && *dir ? dir : "tests/unit/data";
}

/* ---- the scratch directory ---------------------------------------------- */

/* This test program's scratch directory, made by tmpdir_setup(). */
static char tmpdir[512];

/*
 * Makes $TMPDIR/permscope-PROGRAM.XXXXXX (or under /tmp) the scratch
 * directory.  A cmocka setup: 0, or -1 if it cannot be made.
 */
static inline int tmpdir_setup(void **state)
{
	const char *base = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/permscope-%s.XXXXXX", base && *base ? base : "/tmp",
		 program_invocation_short_name);
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* TMPDIR/NAME, in one of 16 buffers that are reused in turn. */
static inline const char *tmp_path(const char *name)
{
	static char paths[16][PATH_MAX];
	static unsigned int next;
	char *p = paths[next++ % 16];

	snprintf(p, sizeof(paths[0]), "%s/%s", tmpdir, name);
	return p;
}

static inline int testutil_remove_one(const char *path, const struct stat *st, int flag,
				      struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* rm -r PATH, without following links; 0, or -1 if anything is left. */
static inline int remove_tree(const char *path)
{
	return nftw(path, testutil_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes the scratch directory and all in it.  A cmocka teardown: 0, or -1. */
static inline int tmpdir_teardown(void **state)
{
	(void)state;
	return tmpdir[0] ? remove_tree(tmpdir) : 0;
}

/* ---- files -------------------------------------------------------------- */

static inline char *testutil_slurp_stream(FILE *f, size_t *lenp)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);

	assert_non_null(buf);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

/*
 * The whole of PATH in a malloc'ed buffer with a NUL after the last byte,
 * its length in *lenp unless lenp is NULL; NULL (errno set) if it cannot be
 * opened.  No size limit: a test never sees half a file.
 */
static inline char *slurp(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	int err;

	if (lenp)
		*lenp = 0;
	if (!f)
		return NULL;
	buf = testutil_slurp_stream(f, lenp);
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(buf);
		if (lenp)
			*lenp = 0;
		errno = err;
		return NULL;
	}
	return buf;
}

/* PATH holds exactly LEN bytes of DATA afterwards, or the test fails. */
static inline void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Writes TEXT to TMPDIR/NAME and returns that path (see tmp_path()). */
static inline const char *write_tmp_file(const char *name, const char *text)
{
	const char *path = tmp_path(name);

	write_file(path, text, strlen(text));
	return path;
}

/* ---- skipping and secrets ---------------------------------------------- */

/* Skips the test, saying WHY, when WHY is not empty: a test that cannot run here. */
static inline void skip_if(const char *why)
{
	if (why && *why) {
		print_message("skipped: %s\n", why);
		skip();
	}
}

/* A bcrypt hash of PASSWORD at COST ($2b$), as web config files hold one. */
static inline void bcrypt_hash(const char *password, int cost, char *out, size_t len)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;

	assert_non_null(cd);
	assert_non_null(crypt_gensalt_rn("$2b$", cost, NULL, 0, setting, sizeof(setting)));
	h = crypt_rn(password, setting, cd, sizeof(*cd));
	assert_non_null(h);
	snprintf(out, len, "%s", h);
	free(cd);
}

/* ---- child processes ---------------------------------------------------- */

/*
 * The children started and not yet waited for: a test that fails between
 * starting a daemon and stopping it leaves it running, and a daemon that
 * goes on attaching and detaching its hooks would be seen by the tests
 * after it (a link that comes and goes).  At exit, each one still ours (its
 * parent is this process: a pid reaped elsewhere and reused by another
 * program is not) gets SIGTERM, then SIGKILL a few seconds on.
 */
static pid_t testutil_children[256];

static inline void testutil_forget_child(pid_t pid)
{
	for (size_t i = 0; i < sizeof(testutil_children) / sizeof(*testutil_children); i++)
		if (testutil_children[i] == pid)
			testutil_children[i] = 0;
}

static inline bool testutil_still_ours(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')))
		sscanf(rp + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid == getpid();
}

static inline void testutil_stop_children(void)
{
	bool any = false;

	for (size_t i = 0; i < sizeof(testutil_children) / sizeof(*testutil_children); i++)
		if (testutil_children[i] && testutil_still_ours(testutil_children[i])) {
			kill(testutil_children[i], SIGTERM);
			any = true;
		}
	for (int t = 0; any && t < 50; t++) {
		any = false;
		for (size_t i = 0; i < sizeof(testutil_children) / sizeof(*testutil_children); i++) {
			pid_t pid = testutil_children[i];

			if (pid && waitpid(pid, NULL, WNOHANG) == 0)
				any = true;
			else
				testutil_children[i] = 0;
		}
		if (any)
			usleep(100000);
	}
	for (size_t i = 0; i < sizeof(testutil_children) / sizeof(*testutil_children); i++)
		if (testutil_children[i] && testutil_still_ours(testutil_children[i])) {
			kill(testutil_children[i], SIGKILL);
			waitpid(testutil_children[i], NULL, 0);
		}
}

static inline void testutil_remember_child(pid_t pid)
{
	static bool registered;

	if (!registered)
		registered = !atexit(testutil_stop_children);
	for (size_t i = 0; i < sizeof(testutil_children) / sizeof(*testutil_children); i++)
		if (!testutil_children[i]) {
			testutil_children[i] = pid;
			return;
		}
}

/*
 * Starts argv[0] (a path: no shell, no $PATH search) with argv, stdin from
 * the file IN, stdout and stderr onto the descriptors OUT and ERR (-1: this
 * process's own).  Fails the test if the program cannot be started.
 */
static inline pid_t testutil_spawn_io(char *const argv[], const char *in, int out, int err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (err >= 0)
		posix_spawn_file_actions_adddup2(&fa, err, 2);
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		fail_msg("cannot run %s: %s", argv[0], strerror(ret));
	testutil_remember_child(pid);
	return pid;
}

/* testutil_spawn_io() with stdin from /dev/null. */
static inline pid_t testutil_spawn_fds(char *const argv[], int out, int err)
{
	return testutil_spawn_io(argv, "/dev/null", out, err);
}

static inline int testutil_open_output(const char *path)
{
	int fd;

	if (!path)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	return fd;
}

/*
 * Starts argv as testutil_spawn_fds() does, stdout and stderr into the files
 * OUT and ERR (created or truncated; NULL: this process's own), and returns
 * its pid without waiting.
 */
static inline pid_t spawn_to(char *const argv[], const char *out, const char *err)
{
	int ofd = testutil_open_output(out), efd = testutil_open_output(err);
	pid_t pid = testutil_spawn_fds(argv, ofd, efd);

	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return pid;
}

/* Waits for PID: its exit status, or -1 when a signal ended it. */
static inline int wait_exit_status(pid_t pid)
{
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	testutil_forget_child(pid);
	if (got != pid)
		fail_msg("waitpid %d: %s", (int)pid, strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* spawn_to() and wait: the exit status, or -1 when a signal ended it. */
static inline int run_to(char *const argv[], const char *out, const char *err)
{
	return wait_exit_status(spawn_to(argv, out, err));
}

/* What the last run_capture() or permscope() wrote, NUL-terminated, whole. */
static char *out_text, *err_text;

/* An unlinked temporary file, open for reading and writing. */
static inline FILE *testutil_capture_file(void)
{
	const char *base = getenv("TMPDIR");
	char path[PATH_MAX];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/permscope-capture.XXXXXX", base && *base ? base : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	unlink(path);
	f = fdopen(fd, "w+");
	assert_non_null(f);
	return f;
}

/*
 * Runs argv (see testutil_spawn_io()) to its end, stdin from the file IN,
 * and leaves its stdout in out_text and its stderr in err_text, each whole.
 * Returns the exit status, or -1 when a signal ended it.
 */
static inline int run_capture_in(const char *in, char *const argv[])
{
	FILE *out = testutil_capture_file(), *err = testutil_capture_file();
	int status = wait_exit_status(testutil_spawn_io(argv, in, fileno(out), fileno(err)));

	free(out_text);
	free(err_text);
	rewind(out);
	rewind(err);
	out_text = testutil_slurp_stream(out, NULL);
	err_text = testutil_slurp_stream(err, NULL);
	fclose(out);
	fclose(err);
	return status;
}

/* run_capture_in() with stdin from /dev/null. */
static inline int run_capture(char *const argv[])
{
	return run_capture_in("/dev/null", argv);
}

/* permscope("record", "--help", NULL): run_capture() of permscope_bin() with these arguments. */
static inline int permscope(const char *first, ...)
{
	char *argv[64];
	int n = 0;
	va_list ap;

	argv[n++] = (char *)permscope_bin();
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		if (n == 63)
			fail_msg("permscope(): more than 62 arguments");
		argv[n++] = (char *)a;
	}
	va_end(ap);
	argv[n] = NULL;
	return run_capture(argv);
}

/* ---- assertions --------------------------------------------------------- */

/* Prints TEXT for a failure message, cut after 16 KiB. */
/*
 * gate's text with its wrapped reasons joined again (src/cmd/cmd_gate.c,
 * print_wrapped()): each "      word ..." line under a NO-VERDICT or
 * SKIPPED line goes back on it, the first after two spaces, so that a test
 * asserts a reason whole whatever the width.  In place, in out_text.
 */
static inline void gate_unwrap(void)
{
	char *r = out_text, *w = out_text;
	bool in_reason = false, first = false;

	if (!out_text)
		return;
	while (*r) {
		char *nl = strchr(r, '\n');
		size_t n = nl ? (size_t)(nl - r) : strlen(r);

		if (in_reason && n > 6 && !strncmp(r, "      ", 6) && strncmp(r + 6, "rule ", 5) &&
		    r[6] != ' ') {
			/* a continuation: its words after the head line's */
			w--; /* the head line's newline */
			memmove(w, first ? "  " : " ", first ? 2 : 1);
			w += first ? 2 : 1;
			memmove(w, r + 6, n - 6);
			w += n - 6;
			first = false;
		} else {
			in_reason = !strncmp(r, "NO-VERDICT  ", 12) || !strncmp(r, "SKIPPED  ", 9);
			/* a head line that ends where its reason was cut: metric and values only */
			first = in_reason;
			memmove(w, r, n);
			w += n;
		}
		if (nl)
			*w++ = '\n';
		r += n + (nl ? 1 : 0);
	}
	*w = 0;
}

static inline void testutil_print_text(const char *text)
{
	const size_t most = 16384;
	size_t len = strlen(text);

	print_error("%.*s%s", (int)(len < most ? len : most), text,
		    len && text[(len < most ? len : most) - 1] != '\n' ? "\n" : "");
	if (len > most)
		print_error("[... %zu more bytes]\n", len - most);
}

static inline void testutil_contains(const char *haystack, const char *needle, bool want,
				     const char *file, int line)
{
	if (haystack && (strstr(haystack, needle) != NULL) == want)
		return;
	if (!haystack)
		print_error("%s \"%s\" in a text, but the text is NULL\n",
			    want ? "expected" : "did not expect", needle);
	else {
		print_error("%s \"%s\" in:\n", want ? "expected" : "did not expect", needle);
		testutil_print_text(haystack);
	}
	_fail(file, line);
}

/* HAYSTACK (a string) holds NEEDLE; else the test fails, printing both. */
#define assert_contains(haystack, needle) \
	testutil_contains((haystack), (needle), true, __FILE__, __LINE__)

/* HAYSTACK (a string) does not hold NEEDLE; else the test fails, printing both. */
#define assert_not_contains(haystack, needle) \
	testutil_contains((haystack), (needle), false, __FILE__, __LINE__)

/* The line of TEXT (LEN bytes) that holds byte AT, for a message. */
static inline void testutil_print_line(const char *label, const char *text, size_t len, size_t at)
{
	size_t start = at, end = at;

	if (at >= len) {
		print_error("  %s (ends before this line)\n", label);
		return;
	}
	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (end < len && text[end] != '\n')
		end++;
	print_error("  %s |%.*s|\n", label, (int)(end - start), text + start);
}

static inline void testutil_golden(const char *name, const char *text, size_t len,
				   const char *file, int line)
{
	const char *update = getenv("PERMSCOPE_UPDATE_GOLDEN");
	char dir[PATH_MAX], golden[PATH_MAX + 256], got[PATH_MAX];
	size_t want_len = 0, i, lineno = 1;
	char *want;
	int fd;

	snprintf(got, sizeof(got), "%s/../golden", testdata_dir());
	snprintf(golden, sizeof(golden), "%s/%s", realpath(got, dir) ? dir : got, name);
	if (update && !strcmp(update, "1")) {
		write_file(golden, text, len);
		print_message("updated %s (PERMSCOPE_UPDATE_GOLDEN=1): read the diff before "
			      "committing it\n", golden);
		return;
	}
	want = slurp(golden, &want_len);
	if (!want) {
		print_error("cannot read %s: %s (PERMSCOPE_UPDATE_GOLDEN=1 writes it)\n", golden,
			    strerror(errno));
		_fail(file, line);
	}
	if (want_len == len && !memcmp(want, text, len)) {
		free(want);
		return;
	}
	for (i = 0; i < want_len && i < len && want[i] == text[i]; i++)
		if (want[i] == '\n')
			lineno++;
	snprintf(got, sizeof(got), "%s/permscope-%s.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	fd = mkstemp(got);
	if (fd >= 0) {
		close(fd);
		write_file(got, text, len);
	}
	print_error("%s differs from the golden file, first at line %zu:\n", name, lineno);
	testutil_print_line("golden: ", want, want_len, i);
	testutil_print_line("now:    ", text, len, i);
	if (fd >= 0)
		print_error("see  diff -u %s %s\n", golden, got);
	print_error("(PERMSCOPE_UPDATE_GOLDEN=1 rewrites the golden files; review the diff)\n");
	free(want);
	_fail(file, line);
}

/*
 * TEXT (LEN bytes) equals tests/unit/golden/NAME byte for byte.  The one
 * update rule: with PERMSCOPE_UPDATE_GOLDEN=1 the file is rewritten instead,
 * and the test says so.  Otherwise a difference fails, showing the first line
 * that differs and the `diff -u` to run against what was produced.
 */
#define assert_golden(name, text, len) testutil_golden((name), (text), (len), __FILE__, __LINE__)

/* ---- the source tree, programs, --help (man pages, completion) ----------- */

/* The top of the source tree: three levels above testdata_dir(). */
static inline const char *source_dir(void)
{
	static char dir[PATH_MAX];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/../../..", testdata_dir());
	if (!realpath(path, dir))
		fail_msg("no source tree at %s: %s", path, strerror(errno));
	return dir;
}

/* The path of program NAME found in $PATH, or NULL (a test then skips). */
static inline const char *find_program(const char *name)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	dirs = strdup(path && *path ? path : "/usr/bin:/bin");
	assert_non_null(dirs);
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(found, sizeof(found), "%s/%s", dir, name);
		if (!access(found, X_OK)) {
			free(dirs);
			return found;
		}
	}
	free(dirs);
	return NULL;
}

/*
 * git -C DIR ARGS... (NULL-terminated) with an identity of its own, so that
 * a commit works on a machine with no git config: run_capture()'s status,
 * its output in out_text and err_text.
 */
static inline int git_in(const char *dir, const char *first, ...)
{
	char *argv[24] = { (char *)find_program("git"), "-C", (char *)dir, "-c", "user.name=t",
			   "-c", "user.email=t@t" };
	int n = 7;
	va_list ap;

	if (!argv[0])
		fail_msg("no git in $PATH (apt-get install git)");
	va_start(ap, first);
	for (const char *a = first; a && n < 23; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return run_capture(argv);
}

/* The commands `permscope --help` lists under "Commands:", into NAMES; how many. */
static inline int permscope_commands(char names[][16], int max)
{
	const char *p;
	int n = 0;

	assert_int_equal(permscope("--help", NULL), 0);
	p = strstr(out_text, "\nCommands:\n");
	assert_non_null(p);
	for (p += strlen("\nCommands:\n"); !strncmp(p, "  ", 2) && p[2] != ' '; p = strchr(p, '\n') + 1) {
		assert_true(n < max);
		assert_int_equal(sscanf(p + 2, "%15s", names[n]), 1);
		n++;
	}
	assert_true(n > 0);
	return n;
}

/* One option of a --help: "--output" or "-o", and "FILE" ("" when it takes none). */
struct help_option {
	char name[48];
	char arg[32];
};

/*
 * The options argp lists in HELP (a command's --help): each line that starts
 * with "  -x, --long=ARG" or "      --long=ARG", up to --version, argp's
 * last.  Fills OUT (up to MAX) and returns how many.
 */
static inline int help_options(const char *help, struct help_option *out, int max)
{
	int n = 0;

	for (const char *line = help; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line, *end;
		char arg[32] = "";
		bool last = false;

		if (!strncmp(p, "  -", 3) && p[3] != '-' && p[3] != ' ')
			p += 2;
		else if (!strncmp(p, "      --", 8) && p[8] != ' ')
			p += 6;
		else
			continue;
		end = strstr(p, "  ");
		if (!end || (strchr(p, '\n') && strchr(p, '\n') < end))
			end = strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p);
		/*
		 * "-o, --output=FILE": the argument goes with each of the names.
		 * It is one word: a long option's text may follow it after one
		 * blank, where argp's column is reached.
		 */
		for (const char *q = p; q < end; q++)
			if (*q == '=') {
				const char *blank = memchr(q, ' ', end - q);

				end = blank ? blank : end;
				snprintf(arg, sizeof(arg), "%.*s", (int)(end - q - 1), q + 1);
				end = q;
				break;
			}
		while (p < end) {
			const char *comma = memchr(p, ',', end - p), *stop = comma ? comma : end;

			assert_true(n < max);
			snprintf(out[n].name, sizeof(out[n].name), "%.*s", (int)(stop - p), p);
			snprintf(out[n].arg, sizeof(out[n].arg), "%s", arg);
			last |= !strcmp(out[n].name, "--version");
			n++;
			p = comma ? comma + 2 : end;
		}
		if (last)
			break;
	}
	return n;
}

/* ---- live tests ---------------------------------------------------------- */

/* Skip the running test, saying why, when `why` (live_skip_reason()'s) is not "". */
#define skip_unless_live(why) do {                                   \
	if ((why)[0]) {                                              \
		print_message("skipped: %s\n", (why));              \
		skip();                                              \
	}                                                            \
} while (0)

/*
 * Why live tests cannot run here, into `why` ("" when they can): not root,
 * `bin` not built, or `permscope record` of the access and exec families
 * failing (its first line of stderr says why).  Makes the scratch directory
 * first; -1 only when that fails.
 */
static inline int live_skip_reason(char *why, size_t len, const char *bin)
{
	char out[PATH_MAX], *argv[] = { (char *)permscope_bin(), "record", "-q", "-d", "0.1",
					"--families", "access,exec", "-o", out, NULL };

	why[0] = 0;
	if (tmpdir_setup(NULL))
		return -1;
	if (geteuid() != 0)
		snprintf(why, len, "not root: BPF needs CAP_BPF and CAP_PERFMON");
	else if (access(permscope_bin(), X_OK) || access(bin, X_OK))
		snprintf(why, len, "%s or %s not built", permscope_bin(), bin);
	if (why[0])
		return 0;
	snprintf(out, sizeof(out), "%s/probe.json", tmpdir);
	if (run_capture(argv) != 0)
		snprintf(why, len, "no probe family attaches on this kernel: %.*s",
			 (int)strcspn(err_text, "\n"), err_text);
	return 0;
}

/*
 * Whether the BPF object of kind WHAT ("prog" or "link") and id ID is held
 * open by process PID, or by any process when PID is 0: a descriptor whose
 * /proc/PID/fdinfo names its id (a link's names its program's prog_id too).
 * bpftool's own "pids" needs BPF iterators, which some kernels refuse like
 * every trampoline.  The live tests tell their own leftovers (held by no
 * process once the run exited) from programs other sessions hold.
 */
static inline bool bpf_object_held(const char *what, long long id, pid_t pid)
{
	char pattern[128], dir[64];
	bool found = false;
	glob_t g;

	snprintf(dir, sizeof(dir), pid ? "/proc/%d" : "/proc/[0-9]*", (int)pid);
	snprintf(pattern, sizeof(pattern), "%s/fdinfo/*", dir);
	snprintf(dir, sizeof(dir), "\n%s_id:\t%lld\n", what, id);
	if (glob(pattern, GLOB_NOSORT, NULL, &g))
		return false;
	for (size_t i = 0; i < g.gl_pathc && !found; i++) {
		char *text = slurp(g.gl_pathv[i], NULL);

		found = text && strstr(text, dir);
		free(text);
	}
	globfree(&g);
	return found;
}

/*
 * The ELF header of an x86-64 vmlinux in miniature (test_kimage's images,
 * test_badinput's cut ones): SHNUM section headers said to start at SHOFF.
 */
static inline void fake_elf64_header(Elf64_Ehdr *eh, uint64_t shoff, uint16_t shnum)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shoff = shoff;
	eh->e_shnum = shnum;
}

#endif
