// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bad-input suite (issue 12, docs/hardening.md "Bad input"): every
 * command that reads an outside file, given each kind of bad file, prints
 * exactly one "Error: ..." line naming the file, exits 2, prints nothing on
 * stdout and leaves no output file, complete or partial, behind.
 *
 * The inputs are made here from tests/unit/data/sample-profile.json (one
 * change each), so that a change of the format changes them too.  Every
 * command runs under timeout(1): a reader that blocks (a FIFO) fails the
 * test instead of hanging it, and one that crashes exits with 128 + signal.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <elf.h>
#include <pwd.h>

#include "testutil.h"

#define TIMEOUT "/usr/bin/timeout"
#define SETPRIV "/usr/bin/setpriv"

static char *good_text;   /* the sample profile */
static const char *good;  /* a copy of it in tmpdir, readable by anyone */
static const char *outdir; /* where outputs go: must stay empty after a bad run */

/* TEXT with its first OLD replaced by NEW (malloc'ed); the test fails when OLD is not in it. */
static char *replace_once(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	char *s;

	if (!at)
		fail_msg("\"%s\" is not in the sample profile", old);
	assert_true(asprintf(&s, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old)) > 0);
	return s;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = 0;
	return s;
}

/* ---- the inputs --------------------------------------------------------- */

struct bad_file {
	const char *name;
	const char *says; /* what the one error line must say beside the file's name */
	char *text;  /* what the file holds (NULL: made by `make`) */
	size_t len;
	/* a FIFO, a directory, a sparse file: made at PATH instead of written */
	void (*make)(const char *path);
};

static void make_fifo(const char *path)
{
	assert_int_equal(mkfifo(path, 0644), 0);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755))
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* 65 MiB of nothing: over every reader's cap, found from its size alone. */
static void make_huge(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 65 << 20), 0);
	close(fd);
}

#define TEXT(n, t) { .name = (n), .text = (t), .len = (size_t)-1 }

static struct bad_file profiles[32];
static int nprofiles;

static void add_profile(const char *name, const char *says, char *text)
{
	profiles[nprofiles++] = (struct bad_file){ .name = name, .says = says, .text = text,
						   .len = strlen(text) };
}

static void make_profile_inputs(void)
{
	char *deep, *longname, *s;
	size_t n = 100000;

	add_profile("empty", "not valid JSON",
		    strdup(""));
	add_profile("truncated", "not valid JSON",
		    strndup(good_text, strlen(good_text) / 2));
	add_profile("wrong-version", "unsupported format \"permscope-profile/2\"",
		    replace_once(good_text, "permscope-profile/1", "permscope-profile/2"));
	add_profile("not-an-object", "expected a JSON object at the top, found an array",
		    strdup("[1, 2, 3]\n"));
	add_profile("string-count", "checks: expected an integer, found a string",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": \"9000\""));
	add_profile("object-for-string", "host.hostname: expected a string, found an object",
		    replace_once(good_text, "\"hostname\": \"buildhost\"",
						      "\"hostname\": {}"));
	add_profile("huge-count", "too big integer",
		    replace_once(good_text, "\"checks\": 9000",
					       "\"checks\": 99999999999999999999"));
	add_profile("negative-count", "expected a non-negative integer, found -1",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": -1"));
	add_profile("fractional-count", "checks: expected an integer, found a number",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": 9000.5"));
	add_profile("exponent-overflow", "real number overflow",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": 1e999"));
	add_profile("nan", "invalid token near 'NaN'",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": NaN"));
	add_profile("infinity", "invalid token near 'Infinity'",
		    replace_once(good_text, "\"checks\": 9000", "\"checks\": Infinity"));
	add_profile("duplicate-key", "duplicate object key",
		    replace_once(good_text, "\"hostname\": \"buildhost\"",
						  "\"hostname\": \"a\", \"hostname\": \"b\""));
	deep = malloc(2 * n + 1);
	assert_non_null(deep);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = 0;
	add_profile("deeply-nested", "maximum parsing depth reached",
		    deep);
	add_profile("non-utf8", "unable to decode byte 0xff",
		    replace_once(good_text, "buildhost", "build\xff\xfehost"));
	longname = repeat('x', 4096);
	assert_true(asprintf(&s, "\"%s\": {", longname) > 0);
	add_profile("long-fs-name", "filesystem name longer than 31 bytes",
		    replace_once(good_text, "\"btrfs\": {", s));
	free(s);
	/* a merged profile's runs: one metric named with 4096 bytes */
	assert_true(asprintf(&deep, "%.*s, \"runs\": [{\"%s\": 1}]\n}\n",
			     (int)(strrchr(good_text, '}') - good_text), good_text, longname) > 0);
	add_profile("long-metric-name", "...: expected a number under a name of at most 79 bytes",
		    deep);
	free(longname);
	profiles[nprofiles++] = (struct bad_file){ .name = "nul-byte", .len = 11,
		.says = "not valid JSON: contains a NUL byte",
		.text = memcpy(malloc(11), "{\"format\"\0}", 11) };
	profiles[nprofiles++] = (struct bad_file){ .name = "directory", .make = make_dir,
		.says = "a directory without snapshots" };
	profiles[nprofiles++] = (struct bad_file){ .name = "fifo", .make = make_fifo,
		.says = "a FIFO, not a regular file" };
	profiles[nprofiles++] = (struct bad_file){ .name = "over-64MiB", .make = make_huge,
		.says = "larger than 64 MiB" };
}

/* PATH made as BAD says. */
static void create(const struct bad_file *bad, const char *path)
{
	if (bad->make)
		bad->make(path);
	else
		write_file(path, bad->text, bad->len);
}

/* ---- running and judging ------------------------------------------------ */

/*
 * Whether run(true, ...) can run a command as nobody: the unreadable file
 * and the read-only directory are the ones root owns (0600, 0755), as
 * root reads and writes past any mode.
 */
static bool can_be_nobody(void)
{
	return geteuid() == 0 && access(SETPRIV, X_OK) == 0;
}

/* argv with FILE, GOOD and OUT put in, run under timeout(1) (and as nobody with `nobody`). */
static int run(bool nobody, const char *const *args, const char *file, const char *out)
{
	char *argv[40];
	int n = 0;

	argv[n++] = TIMEOUT;
	argv[n++] = "20";
	if (nobody) {
		argv[n++] = SETPRIV;
		argv[n++] = "--reuid=nobody";
		argv[n++] = "--regid=nogroup";
		argv[n++] = "--clear-groups";
	}
	argv[n++] = (char *)permscope_bin();
	for (; *args; args++) {
		const char *a = *args;

		argv[n++] = (char *)(!strcmp(a, "FILE") ? file : !strcmp(a, "GOOD") ? good :
				     !strcmp(a, "OUT") ? out : a);
	}
	argv[n] = NULL;
	return run_capture(argv);
}

static void print_cmd(const char *const *args, const char *file)
{
	print_error("permscope");
	for (; *args; args++)
		print_error(" %s", !strcmp(*args, "FILE") ? file : *args);
	print_error("\n");
}

/* The files in outdir: none may be left by a run that failed. */
static int outdir_entries(void)
{
	DIR *d = opendir(outdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * The contract for one bad input: exit STATUS (2 unless said), one line on
 * stderr, "Error: " and NAMED in it, nothing on stdout, nothing in outdir.
 */
static void assert_refused(int got, int status, const char *named, const char *const *args,
			   const char *file)
{
	const char *nl = strchr(err_text, '\n');
	bool ok = got == status && !strncmp(err_text, "Error: ", 7) && nl && !nl[1] &&
		  strstr(err_text, named) && !out_text[0] && outdir_entries() == 0;

	if (ok)
		return;
	print_cmd(args, file);
	print_error("exit %d (expected %d); stdout %zu bytes; %d files left in %s; stderr:\n", got,
		    status, strlen(out_text), outdir_entries(), outdir);
	testutil_print_text(err_text);
	fail_msg("not one \"Error: ...%s...\" line with exit %d", named, status);
}

/* Each of the N files (TEXT()'s length is counted here) made and refused by ARGS; texts freed. */
static void refuse_each(struct bad_file *files, size_t n, const char *const *args, const char *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *path = tmp_path(files[i].name);

		if (files[i].len == (size_t)-1)
			files[i].len = strlen(files[i].text);
		create(&files[i], path);
		assert_refused(run(false, args, path, out), 2, path, args, path);
		if (files[i].says)
			assert_contains(err_text, files[i].says);
		free(files[i].text);
	}
}

/* Every command that reads a profile, FILE where the bad one goes. */
static const char *const profile_readers[][12] = {
	{ "report", "FILE", NULL },
	{ "report", "FILE", "-o", "OUT", NULL },
	{ "report", "--format", "json", "FILE", NULL },
	{ "compare", "GOOD", "FILE", "-o", "OUT", NULL },
	{ "compare", "FILE", "GOOD", "--format", "html", NULL },
	{ "gate", "-b", "GOOD", "-n", "FILE", "--junit", "OUT", NULL },
	{ "gate", "-b", "FILE", "-n", "GOOD", "--junit", "OUT", NULL },
	{ "merge", "-o", "OUT", "GOOD", "FILE", NULL },
	{ "merge", "-o", "OUT", "FILE", "GOOD", NULL },
};

/* Each reader refuses FILE with one line that names NAMED and, unless NULL, says SAYS. */
static void each_profile_reader(const char *file, const char *named, const char *says, bool nobody)
{
	const char *out = tmp_path("out/result");

	for (size_t c = 0; c < sizeof(profile_readers) / sizeof(profile_readers[0]); c++) {
		int got = run(nobody, profile_readers[c], file, out);

		assert_refused(got, 2, named, profile_readers[c], file);
		if (says)
			assert_contains(err_text, says);
	}
}

static void every_profile_reader_refuses_every_bad_profile(void **state)
{
	(void)state;
	for (int i = 0; i < nprofiles; i++) {
		const char *path = tmp_path(profiles[i].name);

		create(&profiles[i], path);
		each_profile_reader(path, path, profiles[i].says, false);
	}
}

static void devices_missing_and_unreadable_profiles_are_refused(void **state)
{
	const char *secret = tmp_path("secret.json");

	(void)state;
	each_profile_reader("/dev/zero", "/dev/zero: a character device, not a regular file", NULL,
			    false);
	each_profile_reader("/dev/null", "/dev/null: a character device", NULL, false);
	each_profile_reader(tmp_path("missing.json"), "cannot open: No such file or directory", NULL,
			    false);
	write_file(secret, good_text, strlen(good_text));
	assert_int_equal(chmod(secret, 0600), 0);
	if (geteuid() != 0) { /* not root: a mode of 000 is enough */
		assert_int_equal(chmod(secret, 0), 0);
		each_profile_reader(secret, "cannot open: Permission denied", NULL, false);
		return;
	}
	if (!can_be_nobody()) {
		print_message("no setpriv: the unreadable case is not run\n");
		return;
	}
	each_profile_reader(secret, "cannot open: Permission denied", NULL, true);
}

/* A daemon's state directory given as a profile: its newest total stands for it. */
static void a_bad_newest_snapshot_in_a_state_dir_is_refused_by_name(void **state)
{
	const char *snap = "snap-00000001-20261130T000000Z.total.json";
	char path[PATH_MAX + 64], named[PATH_MAX + 128];

	(void)state;
	for (int i = 0; i < nprofiles; i++) {
		char dir[64];

		snprintf(dir, sizeof(dir), "statedir-%s", profiles[i].name);
		make_dir(tmp_path(dir));
		snprintf(path, sizeof(path), "%s/%s", tmp_path(dir), snap);
		create(&profiles[i], path);
		/* "Error: DIR: snap-...total.json: ..." when it cannot be read at all */
		snprintf(named, sizeof(named), "%s: ", tmp_path(dir));
		each_profile_reader(tmp_path(dir), named, profiles[i].make == make_dir ?
				    "snap-00000001-20261130T000000Z.total.json: a directory, not a regular file" :
				    profiles[i].says, false);
	}
	make_dir(tmp_path("statedir-none"));
	each_profile_reader(tmp_path("statedir-none"), "a directory without snapshots", NULL, false);
}

/*
 * The largest count a profile holds, 2^63 - 1, in each of the three
 * filesystems: it is read and shown exactly, the totals saturate instead
 * of wrapping (three of them pass 2^64), the JSON report does not turn it
 * negative, and merging it with another recording of the same counts (its
 * start a second later: merge refuses one recording twice before any sum)
 * is refused.
 */
static void the_largest_counts_are_shown_exactly_and_never_wrap(void **state)
{
	static const char *const text[] = { "report", "FILE", NULL };
	static const char *const json[] = { "report", "-j", "FILE", NULL };
	const char *path = tmp_path("largest.json"), *other = tmp_path("largest-later.json");
	const char *const merge[] = { "merge", "-o", "OUT", "FILE", other, NULL };
	char *a, *b, *c, *d;

	(void)state;
	a = replace_once(good_text, "\"checks\": 9000,", "\"checks\": 9223372036854775807,");
	b = replace_once(a, "\"checks\": 120000,", "\"checks\": 9223372036854775807,");
	c = replace_once(b, "\"checks\": 48000,", "\"checks\": 9223372036854775807,");
	write_file(path, c, strlen(c));
	d = replace_once(c, "\"start\": \"2026-11-30T09:15:02.125", "\"start\": \"2026-11-30T09:15:03.125");
	write_file(other, d, strlen(d));
	free(a);
	free(b);
	free(c);
	free(d);
	assert_int_equal(run(false, text, path, NULL), 0);
	assert_contains(out_text, "  btrfs        9223372036854775807 ");
	assert_contains(out_text, "  tmpfs        9223372036854775807 ");
	assert_int_equal(run(false, json, path, NULL), 0);
	assert_contains(out_text, "\"checks\": 9223372036854775807,");
	assert_not_contains(out_text, "-9223372036854775808");
	assert_refused(run(false, merge, path, tmp_path("out/merged.json")), 2,
		       "adding it takes a count past 9223372036854775807", merge, path);
}

/*
 * A profile's text reaches a terminal: a hostname holding a newline and a
 * forged verdict, a kernel release holding a terminal's escape, a command
 * holding both, are printed escaped by every command that prints them.
 */
static void a_profile_cannot_forge_a_line_of_output(void **state)
{
	static const char *const report[] = { "report", "FILE", NULL };
	static const char *const compare[] = { "compare", "FILE", "FILE", NULL };
	static const char *const gate[] = { "gate", "-b", "FILE", "-n", "FILE", NULL };
	const char *const *cmds[] = { report, compare, gate };
	const char *path = tmp_path("forged.json");
	char *a, *b;

	(void)state;
	a = replace_once(good_text, "\"buildhost\"", "\"evil\\nPASS  access.unsafe  forged\"");
	b = replace_once(a, "\"6.18.44-fastperm\"", "\"6.18\\u001b[2J\\r\"");
	write_file(path, b, strlen(b));
	free(a);
	free(b);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		run(false, cmds[i], path, NULL);
		assert_not_contains(out_text, "\nPASS  access.unsafe  forged");
		assert_not_contains(out_text, "\x1b");
		assert_not_contains(err_text, "\x1b");
		assert_not_contains(out_text, "\r");
	}
	run(false, report, path, NULL);
	assert_contains(out_text, "on evil\\nPASS  access.unsafe  forged (x86_64)");
	assert_contains(out_text, "kernel 6.18\\x1b[2J\\r on");
}

/* ---- gate --rules ------------------------------------------------------- */

static void gate_refuses_every_bad_rules_file(void **state)
{
	static const char *const gate[] = { "gate", "-b", "GOOD", "-n", "GOOD", "-r", "FILE",
					    "--junit", "OUT", NULL };
	const char *out = tmp_path("out/junit.xml");
	char *longname = repeat('m', 4096), *big = repeat('#', (1 << 20) + 1), *text;
	struct bad_file rules[] = {
		TEXT("rules-empty", strdup("")),
		TEXT("rules-comments-only", strdup("# nothing else\n")),
		TEXT("rules-truncated", strdup("access.unsafe ==")),
		TEXT("rules-nan", strdup("access.unsafe <= nan\n")),
		TEXT("rules-infinity", strdup("access.unsafe <= inf\n")),
		TEXT("rules-overflow", strdup("access.unsafe <= 1e999\n")),
		TEXT("rules-negative-slack", strdup("access.unsafe <= base - -\n")),
		TEXT("rules-non-utf8", strdup("\xff\xfe == 0\n")),
		TEXT("rules-unknown-metric", strdup("access.no_such_counter == 0\n")),
		TEXT("rules-long-metric", NULL),
		TEXT("rules-over-1MiB", big),
		{ .name = "rules-nul", .text = memcpy(malloc(20), "access.unsafe == 0\0\n", 20), .len = 20 },
		{ .name = "rules-directory", .make = make_dir },
		{ .name = "rules-fifo", .make = make_fifo },
	};

	(void)state;
	assert_true(asprintf(&text, "%s == 0\n", longname) > 0);
	rules[9].text = text;
	refuse_each(rules, sizeof(rules) / sizeof(rules[0]), gate, out);
	assert_refused(run(false, gate, "/dev/zero", out), 2,
		       "/dev/zero: a character device, not a regular file", gate, "/dev/zero");
	assert_refused(run(false, gate, tmp_path("missing.rules"), out), 2,
		       "No such file or directory", gate, "missing.rules");
	if (can_be_nobody()) {
		const char *secret = tmp_path("secret.rules");

		write_file(secret, "access.unsafe == 0\n", 19);
		assert_int_equal(chmod(secret, 0600), 0);
		assert_refused(run(true, gate, secret, out), 2, "Permission denied", gate, secret);
	}
	free(longname);
}

/* ---- check --btf -------------------------------------------------------- */

/* A vmlinux's ELF header alone: x86-64, section headers said to follow it. */
static char *elf_header_only(void)
{
	Elf64_Ehdr *eh = calloc(1, sizeof(*eh));

	assert_non_null(eh);
	fake_elf64_header(eh, sizeof(*eh), 10);
	return (char *)eh;
}

/* 513 MiB of nothing (sparse): over the kernel image cap, found from its size alone. */
static void make_huge_kimage(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 513 << 20), 0);
	close(fd);
}

static void check_btf_refuses_every_bad_kernel_file(void **state)
{
	static const char *const check[] = { "check", "--btf", "FILE", NULL };
	struct bad_file files[] = {
		TEXT("btf-empty", strdup("")),
		TEXT("btf-garbage", strdup("this is no kernel\n")),
		/* an ELF header cut short, and raw BTF's magic with nothing after it */
		{ .name = "btf-truncated-elf", .text = memcpy(malloc(8), "\x7f" "ELF\x02\x01\x01\x00", 8),
		  .len = 8, .says = "truncated ELF: 8 bytes, less than the 16 of its identification" },
		/* a whole ELF header whose 10 section headers would follow it: the file ends there */
		{ .name = "btf-elf-header-only", .text = elf_header_only(), .len = sizeof(Elf64_Ehdr),
		  .says = "truncated ELF: section headers end at byte 704, past the file's 64 bytes" },
		{ .name = "btf-truncated-btf", .text = memcpy(malloc(4), "\x9f\xeb\x01\x00", 4), .len = 4,
		  .says = "not valid BTF" },
		{ .name = "btf-directory", .make = make_dir, .says = "a directory, not a regular file" },
		{ .name = "btf-fifo", .make = make_fifo, .says = "a FIFO, not a regular file" },
		{ .name = "btf-over-512MiB", .make = make_huge_kimage, .says = "larger than 512 MiB" },
	};

	(void)state;
	refuse_each(files, sizeof(files) / sizeof(files[0]), check, NULL);
	assert_refused(run(false, check, "/dev/zero", NULL), 2, "/dev/zero: a character device",
		       check, "/dev/zero");
	assert_refused(run(false, check, tmp_path("btf-missing"), NULL), 2,
		       "btf-missing: cannot open: No such file or directory", check, "btf-missing");
	if (can_be_nobody()) {
		const char *secret = tmp_path("btf-secret");

		write_file(secret, "x", 1);
		assert_int_equal(chmod(secret, 0600), 0);
		assert_refused(run(true, check, secret, NULL), 2, "cannot open: Permission denied",
			       check, secret);
	}
}

/* ---- the daemon's --state-dir ------------------------------------------- */

static void daemon_refuses_a_state_dir_it_cannot_own(void **state)
{
	static const char *const daemon[] = { "daemon", "--state-dir", "FILE", "-d", "0.1", NULL };
	struct passwd *nobody = getpwnam("nobody");
	const char *file = tmp_path("sd-file"), *fifo = tmp_path("sd-fifo");
	const char *open_dir = tmp_path("sd-777"), *theirs = tmp_path("sd-nobody");
	char under[PATH_MAX];

	(void)state;
	if (geteuid() != 0)
		skip(); /* the checks are of a root daemon's directory */
	write_file(file, "x", 1);
	make_fifo(fifo);
	make_dir(open_dir);
	assert_int_equal(chmod(open_dir, 0777), 0);
	make_dir(theirs);
	assert_non_null(nobody);
	assert_int_equal(chown(theirs, nobody->pw_uid, nobody->pw_gid), 0);
	snprintf(under, sizeof(under), "%s/sub", file);

	assert_refused(run(false, daemon, file, NULL), 2, "Not a directory", daemon, file);
	assert_refused(run(false, daemon, fifo, NULL), 2, "Not a directory", daemon, fifo);
	assert_refused(run(false, daemon, "/dev/zero", NULL), 2, "Not a directory", daemon, "/dev/zero");
	assert_refused(run(false, daemon, under, NULL), 2, "cannot create state directory", daemon,
		       under);
	assert_refused(run(false, daemon, open_dir, NULL), 2, "writable by others", daemon, open_dir);
	assert_refused(run(false, daemon, theirs, NULL), 2, "owned by another user", daemon, theirs);
}

/* The daemon's --log, which it appends to: a file it cannot open, or a symlink, is refused. */
static void daemon_refuses_a_log_it_cannot_open(void **state)
{
	static const char *const daemon[] = { "daemon", "--log", "FILE", "--state-dir", "OUT", "-d",
					      "0.1", NULL };
	const char *link = tmp_path("log-link"), *victim = tmp_path("log-victim");
	const char *sd = tmp_path("out/sd");
	char named[PATH_MAX + 128];
	char *text;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the daemon checks its privileges first */
	write_file(victim, "old\n", 4);
	assert_int_equal(symlink(victim, link), 0);
	assert_refused(run(false, daemon, "/nonexistent-dir/x.log", sd), 2,
		       "Error: cannot open log /nonexistent-dir/x.log: No such file or directory",
		       daemon, NULL);
	snprintf(named, sizeof(named), "Error: cannot open log %s: Is a directory", outdir);
	assert_refused(run(false, daemon, outdir, sd), 2, named, daemon, NULL);
	snprintf(named, sizeof(named), "Error: cannot open log %s: a symbolic link (never followed",
		 link);
	assert_refused(run(false, daemon, link, sd), 2, named, daemon, NULL);
	text = slurp(victim, NULL);
	assert_string_equal(text, "old\n");
	free(text);
}

/* ---- outputs ------------------------------------------------------------ */

/* Every command that writes a file, OUT where it goes (all checked before any work). */
static const char *const writers[][14] = {
	{ "report", "GOOD", "-o", "OUT", NULL },
	{ "compare", "GOOD", "GOOD", "-o", "OUT", NULL },
	{ "merge", "-o", "OUT", "GOOD", "GOOD", NULL },
	{ "gate", "-b", "GOOD", "-n", "GOOD", "--junit", "OUT", NULL },
	{ "gate", "-b", "GOOD", "-n", "GOOD", "-o", "OUT", NULL },
	{ "record", "-q", "-d", "0.1", "-o", "OUT", NULL },
	{ "bench", "access1", "-d", "0.01", "--runs", "1", "-o", "OUT", NULL },
};

static void outputs_that_cannot_be_written_are_refused_before_any_work(void **state)
{
	const char *fifo = tmp_path("out-fifo"), *rodir = tmp_path("readonly");
	char in_rodir[PATH_MAX], in_file[PATH_MAX];

	(void)state;
	make_fifo(fifo);
	make_dir(rodir);
	snprintf(in_rodir, sizeof(in_rodir), "%s/x.json", rodir);
	snprintf(in_file, sizeof(in_file), "%s/x.json", good);
	for (size_t c = 0; c < sizeof(writers) / sizeof(writers[0]); c++) {
		const char *const *w = writers[c];

		assert_refused(run(false, w, NULL, "/nonexistent-dir/x.json"), 2,
			       "Error: /nonexistent-dir/x.json: cannot write there: directory "
			       "/nonexistent-dir: No such file or directory", w, NULL);
		assert_refused(run(false, w, NULL, in_file), 2, "is not a directory", w, NULL);
		assert_refused(run(false, w, NULL, outdir), 2, "cannot write there: a directory", w, NULL);
		assert_refused(run(false, w, NULL, fifo), 2, "not a regular file", w, NULL);
		assert_refused(run(false, w, NULL, "/dev/null"), 2, "not a regular file", w, NULL);
		if (can_be_nobody()) { /* root-owned 0755: read-only to nobody */
			char named[PATH_MAX + 64];

			snprintf(named, sizeof(named), "%s: cannot write there: cannot create files in "
				 "%s: Permission denied", in_rodir, rodir);
			assert_refused(run(true, w, NULL, in_rodir), 2, named, w, NULL);
		} else {
			print_message("not root with setpriv: the read-only directory is not tried\n");
		}
	}
}

/*
 * An output that is a symlink is refused before any work: neither followed
 * (whoever planted it would choose what a root permscope overwrites) nor
 * replaced.  The link and the file it points to stay as they were; a
 * dangling link too.
 */
static void an_output_symlink_is_refused_and_neither_it_nor_its_target_changes(void **state)
{
	const char *victim = tmp_path("victim"), *link = tmp_path("link.out");
	const char *dangling = tmp_path("dangling.out");

	(void)state;
	write_file(victim, "precious\n", 9);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(symlink(tmp_path("no-such-target"), dangling), 0);
	for (size_t c = 0; c < sizeof(writers) / sizeof(writers[0]); c++) {
		char named[PATH_MAX + 64], target[PATH_MAX];
		struct stat st;
		char *text;
		ssize_t n;

		snprintf(named, sizeof(named), "Error: %s: cannot write there: a symbolic link", link);
		assert_refused(run(false, writers[c], NULL, link), 2, named, writers[c], NULL);
		text = slurp(victim, NULL);
		assert_string_equal(text, "precious\n");
		free(text);
		assert_int_equal(lstat(link, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		n = readlink(link, target, sizeof(target) - 1);
		assert_true(n > 0);
		target[n] = 0;
		assert_string_equal(target, victim);

		snprintf(named, sizeof(named), "Error: %s: cannot write there: a symbolic link",
			 dangling);
		assert_refused(run(false, writers[c], NULL, dangling), 2, named, writers[c], NULL);
		assert_int_equal(lstat(dangling, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		assert_int_equal(access(tmp_path("no-such-target"), F_OK), -1);
	}
}

/* ---- options ------------------------------------------------------------ */

static void out_of_range_and_conflicting_options_are_bad_usage(void **state)
{
	static const char *const bad[][12] = {
		{ "record", "-d", "-1", NULL },
		{ "record", "-d", "nan", NULL },
		{ "record", "-d", "1e999", NULL },
		{ "record", "-p", "0", NULL },
		{ "record", "-p", "99999999999", NULL },
		{ "record", "-p", "1", "--", "/bin/true", NULL },
		{ "record", "--families", "nosuch", NULL },
		{ "record", "--mode", "nosuch", NULL },
		{ "record", "-c", "a-name-longer-than-15", NULL },
		{ "report", "-j", "--format", "csv", "GOOD", NULL },
		{ "report", "--format", "yaml", "GOOD", NULL },
		{ "report", "-j", "--format", "html", "GOOD", NULL },
		{ "report", "-d", "1", "GOOD", NULL },
		{ "compare", "GOOD", NULL },
		{ "compare", "GOOD", "GOOD", "GOOD", NULL },
		{ "gate", "-b", "GOOD", "-n", "GOOD", "--accept-loss", "2", NULL },
		{ "gate", "-b", "GOOD", "-n", "GOOD", "--accept-loss", "-0.5", NULL },
		{ "gate", "-b", "GOOD", "-n", "GOOD", "--accept-loss", "nan", NULL },
		{ "gate", "-b", "GOOD", NULL },
		{ "merge", "GOOD", NULL },
		{ "merge", "-o", "OUT", NULL },
		{ "bench", "access1", "--runs", "0", NULL },
		{ "bench", "access1", "--runs", "99999999999", NULL },
		{ "bench", "access1", "--procs", "0", NULL },
		{ "bench", "access1", "--procs", "2", "-t", "2", NULL },
		{ "bench", "access1", "-d", "inf", NULL },
		{ "bench", "nosuch", NULL },
		{ "daemon", "--interval", "0", NULL },
		{ "daemon", "--interval", "nan", NULL },
		{ "daemon", "--keep", "0", NULL },
		{ "daemon", "--keep", "-1", NULL },
		{ "daemon", "--listen", "127.0.0.1:99999", NULL },
		{ "check", "--mode", "nosuch", NULL },
	};
	const char *out = tmp_path("out/x.json");

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(run(false, bad[i], NULL, out), 2, "Error: ", bad[i], NULL);
}

/*
 * What argp and getopt find (an unknown option, a missing argument, a bad
 * value) is one "Error: " line like any other, pointing at the command's
 * --help: argp's own "Try `...' or `...'" text is not printed.
 */
static void unknown_options_and_missing_arguments_are_one_error_line(void **state)
{
	/* each command, and one of its options that takes an argument */
	static const char *const cmds[][2] = {
		{ "record", "--duration" }, { "report", "--output" }, { "check", "--btf" },
		{ "verify", "--duration" }, { "merge", "--output" }, { "compare", "--output" },
		{ "gate", "--base" }, { "daemon", "--interval" }, { "bench", "--runs" },
	};
	char want[160], shortopt[8];

	(void)state;
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		const char *cmd = cmds[c][0], *opt = cmds[c][1];
		const char *frob[] = { cmd, "--frob", NULL }, *z[] = { cmd, "-Z", NULL };
		const char *noarg[] = { cmd, opt, NULL }, *shortnoarg[] = { cmd, shortopt, NULL };

		snprintf(want, sizeof(want), "Error: unrecognized option '--frob'; see "
			 "'permscope %s --help'\n", cmd);
		assert_refused(run(false, frob, NULL, NULL), 2, want, frob, NULL);
		assert_string_equal(err_text, want);
		snprintf(want, sizeof(want), "Error: unrecognized option '-Z'; see "
			 "'permscope %s --help'\n", cmd);
		assert_refused(run(false, z, NULL, NULL), 2, want, z, NULL);
		assert_string_equal(err_text, want);
		snprintf(want, sizeof(want), "Error: option '%s' requires an argument; see "
			 "'permscope %s --help'\n", opt, cmd);
		assert_refused(run(false, noarg, NULL, NULL), 2, want, noarg, NULL);
		assert_string_equal(err_text, want);
		/* the short form, where there is one: getopt's "-- 'd'" said as the long one is */
		if (!strcmp(opt, "--duration") || !strcmp(opt, "--output") || !strcmp(opt, "--base")) {
			snprintf(shortopt, sizeof(shortopt), "-%c", opt[2]);
			snprintf(want, sizeof(want), "Error: option '%s' requires an argument; see "
				 "'permscope %s --help'\n", shortopt, cmd);
			assert_refused(run(false, shortnoarg, NULL, NULL), 2, want, shortnoarg, NULL);
			assert_string_equal(err_text, want);
		}
	}
	/* a bad value, found by the command's own parser */
	{
		static const char *const d[] = { "record", "-d", "-1", NULL };

		assert_refused(run(false, d, NULL, NULL), 2, "", d, NULL);
		assert_string_equal(err_text, "Error: invalid duration '-1' (expected seconds > 0); "
				    "see 'permscope record --help'\n");
	}
	/* --help, --usage and --version still print on stdout and exit 0 */
	{
		static const char *const help[] = { "report", "--help", NULL };
		static const char *const usage[] = { "report", "--usage", NULL };
		static const char *const version[] = { "gate", "--version", NULL };

		assert_int_equal(run(false, help, NULL, NULL), 0);
		assert_contains(out_text, "Usage: permscope report [OPTION...]");
		assert_string_equal(err_text, "");
		assert_int_equal(run(false, usage, NULL, NULL), 0);
		assert_contains(out_text, "Usage: permscope report [-");
		assert_string_equal(err_text, "");
		assert_int_equal(run(false, version, NULL, NULL), 0);
		assert_contains(out_text, "permscope 0.");
		assert_string_equal(err_text, "");
	}
}

static int setup(void **state)
{
	char path[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	/* nobody runs some of these: it must reach the good profile, not the rest */
	if (chmod(tmpdir, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/sample-profile.json", testdata_dir());
	good_text = slurp(path, NULL);
	if (!good_text)
		return -1;
	good = strdup(tmp_path("good.json"));
	write_file(good, good_text, strlen(good_text));
	outdir = strdup(tmp_path("out"));
	/* writable by nobody too, so that its runs get as far as their input */
	if (mkdir(outdir, 0755) || chmod(outdir, 01777))
		return -1;
	make_profile_inputs();
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nprofiles; i++)
		free(profiles[i].text);
	free(good_text);
	return tmpdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_profile_reader_refuses_every_bad_profile),
		cmocka_unit_test(devices_missing_and_unreadable_profiles_are_refused),
		cmocka_unit_test(a_bad_newest_snapshot_in_a_state_dir_is_refused_by_name),
		cmocka_unit_test(the_largest_counts_are_shown_exactly_and_never_wrap),
		cmocka_unit_test(a_profile_cannot_forge_a_line_of_output),
		cmocka_unit_test(gate_refuses_every_bad_rules_file),
		cmocka_unit_test(check_btf_refuses_every_bad_kernel_file),
		cmocka_unit_test(daemon_refuses_a_state_dir_it_cannot_own),
		cmocka_unit_test(daemon_refuses_a_log_it_cannot_open),
		cmocka_unit_test(outputs_that_cannot_be_written_are_refused_before_any_work),
		cmocka_unit_test(an_output_symlink_is_refused_and_neither_it_nor_its_target_changes),
		cmocka_unit_test(out_of_range_and_conflicting_options_are_bad_usage),
		cmocka_unit_test(unknown_options_and_missing_arguments_are_one_error_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
