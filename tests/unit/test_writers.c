// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writers killed at random moments (docs/hardening.md, "Writers"): `merge`
 * of two large profiles and `gate --junit` of a long rules file, each
 * SIGKILLed 100 times at a moment drawn from the length of a whole run
 * (in /dev/shm when there is one, so that fsync does not set the pace).
 * After every kill the target is byte for byte the file it was before or
 * the one an uninterrupted run writes, and parses; the only other file a
 * kill may leave is write_file_atomic()'s temporary TARGET.tmp.XXXXXX,
 * which no reader takes for a profile (the test counts and removes them).
 * record and the daemon, which need BPF, are killed the same way in
 * tests/live/test_live_daemon.c.
 */
#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"
#include "profile.h"

#define KILLS 100
#define FILESYSTEMS 1000 /* per input profile: merge writes 1.5 MB */

struct outcome {
	int kept_old, wrote_new, finished, strays;
};

/* Write the sample profile with FILESYSTEMS lookup filesystems, their counts scaled by K. */
static void write_large_profile(const char *path, int k)
{
	char sample[PATH_MAX], name[32];
	json_t *root, *per_fs, *base;
	json_error_t jerr;

	snprintf(sample, sizeof(sample), "%s/sample-profile.json", testdata_dir());
	root = json_load_file(sample, 0, &jerr);
	assert_non_null(root);
	per_fs = json_object_get(json_object_get(json_object_get(root, "families"), "lookup"),
				 "per_fs");
	base = json_object_get(per_fs, "btrfs");
	assert_non_null(base);
	for (int i = 0; i < FILESYSTEMS; i++) {
		json_t *fs = json_deep_copy(base);

		json_object_set_new(fs, "checks", json_integer(9000 * k + i));
		snprintf(name, sizeof(name), "fs%05d", i);
		json_object_set_new(per_fs, name, fs);
	}
	/* each K its own recording (merge refuses one twice) */
	snprintf(name, sizeof(name), "2026-11-30T00:00:%02d.000000000Z", k);
	json_object_set_new(root, "start", json_string(name));
	assert_int_equal(json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
	json_decref(root);
}

/* argv run to its end, stdout and stderr discarded; the test fails unless it exits 0. */
static double run_whole(char *const argv[])
{
	struct timespec a, b;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &a);
	status = run_to(argv, "/dev/null", "/dev/null");
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(status, 0);
	return (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
}

/*
 * The files of the scratch directory named TARGET.*: only TARGET's temporary
 * files (TARGET.tmp.XXXXXX) may be there; they are counted and removed.
 * Anything else so named fails the test.
 */
static int remove_strays(const char *target)
{
	const char *base = strrchr(target, '/') + 1;
	char prefix[NAME_MAX + 8], path[PATH_MAX + NAME_MAX];
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	snprintf(prefix, sizeof(prefix), "%s.tmp.", base);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, base, strlen(base)) || !strcmp(de->d_name, base))
			continue;
		if (strncmp(de->d_name, prefix, strlen(prefix)) ||
		    strlen(de->d_name) != strlen(prefix) + 6)
			fail_msg("a killed writer left %s, not named like a temporary file",
				 de->d_name);
		snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
		assert_int_equal(unlink(path), 0);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Run the two variants of a writer of TARGET by turns, each killed after a
 * random delay up to 1.1 times a whole run; the target must always be the
 * old file or the variant's whole output (REF[v]), and parse when a profile.
 */
static struct outcome kill_many(char *const argv[2][16], const char *target, const char *ref[2],
				bool profile)
{
	struct outcome o = {0};
	size_t ref_len[2], old_len;
	char *want[2], *old, *asan;
	double whole = 0;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (int v = 0; v < 2; v++) {
		whole += run_whole(argv[v]) / 2;
		assert_int_equal(rename(target, ref[v]), 0);
		want[v] = slurp(ref[v], &ref_len[v]);
		assert_non_null(want[v]);
	}
	assert_true(ref_len[0] != ref_len[1] || memcmp(want[0], want[1], ref_len[0]));
	run_whole(argv[1]); /* the target starts as variant 1's output */
	/*
	 * Under the sanitizers: no leak check in the runs that are killed.  A
	 * kill that lands while LeakSanitizer stops the world at exit leaves
	 * its tracer reporting "Unable to get registers from thread", a report
	 * about the kill, not about permscope.
	 */
	if ((asan = getenv("ASAN_OPTIONS"))) {
		char *opts;

		asan = strdup(asan);
		assert_true(asan && asprintf(&opts, "%s:detect_leaks=0", asan) > 0);
		setenv("ASAN_OPTIONS", opts, 1);
		free(opts);
	}
	srand48(12);
	for (int i = 0; i < KILLS; i++) {
		int v = i % 2, status;
		struct timespec delay;
		double at = drand48() * whole * 1.1;
		size_t len;
		char *now;
		pid_t pid;

		old = slurp(target, &old_len);
		assert_non_null(old);
		pid = testutil_spawn_fds(argv[v], -1, devnull);
		delay.tv_sec = (time_t)at;
		delay.tv_nsec = (long)((at - (double)delay.tv_sec) * 1e9);
		nanosleep(&delay, NULL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status)) {
			assert_int_equal(WEXITSTATUS(status), 0);
			o.finished++;
		}
		now = slurp(target, &len);
		assert_non_null(now);
		if (len == ref_len[v] && !memcmp(now, want[v], len)) {
			o.wrote_new++;
		} else if (len == old_len && !memcmp(now, old, len)) {
			o.kept_old++;
		} else {
			fail_msg("kill %d after %.3f s: %s is neither the old file (%zu bytes) nor "
				 "the new one (%zu bytes) but %zu bytes", i, at, target, old_len,
				 ref_len[v], len);
		}
		if (profile) {
			struct profile p;
			char err[512];

			if (profile_read(target, &p, err, sizeof(err)))
				fail_msg("kill %d: %s does not parse: %s", i, target, err);
			profile_free(&p);
		}
		o.strays += remove_strays(target);
		free(old);
		free(now);
	}
	print_message("%s: %d kills in [0, %.3f s]: %d left the old file, %d the new one "
		      "(%d of them had finished), %d temporary files left\n", argv[0][1], KILLS,
		      whole * 1.1, o.kept_old, o.wrote_new, o.finished, o.strays);
	if (asan) { /* the uninterrupted runs that follow are leak-checked again */
		setenv("ASAN_OPTIONS", asan, 1);
		free(asan);
	}
	free(want[0]);
	free(want[1]);
	close(devnull);
	return o;
}

/* The strdup()ed paths of a test (tmp_path() reuses its buffer). */
static void free_paths(const char *const *paths, int n)
{
	for (int i = 0; i < n; i++)
		free((void *)paths[i]);
}

static void merge_killed_at_random_leaves_the_old_or_the_new_profile(void **state)
{
	const char *a = strdup(tmp_path("a.json")), *b = strdup(tmp_path("b.json"));
	const char *target = strdup(tmp_path("merged.json"));
	const char *ref[2] = { strdup(tmp_path("ref-ab")), strdup(tmp_path("ref-ba")) };
	char *const argv[2][16] = {
		{ (char *)permscope_bin(), "merge", "-q", "-o", (char *)target, (char *)a, (char *)b, NULL },
		{ (char *)permscope_bin(), "merge", "-q", "-o", (char *)target, (char *)b, (char *)a, NULL },
	};
	struct outcome o;

	(void)state;
	write_large_profile(a, 1);
	write_large_profile(b, 3);
	o = kill_many(argv, target, ref, true);
	/* the kills spread over a whole run: some before, some after the rename */
	assert_true(o.kept_old > 0);
	assert_true(o.wrote_new > 0);
	free_paths((const char *[]){ a, b, target, ref[0], ref[1] }, 5);
}

static void gate_junit_killed_at_random_leaves_the_old_or_the_new_file(void **state)
{
	const char *profile = strdup(tmp_path("p.json")), *target = strdup(tmp_path("junit.xml"));
	const char *rules[2] = { strdup(tmp_path("one.rules")), strdup(tmp_path("two.rules")) };
	const char *ref[2] = { strdup(tmp_path("ref-one")), strdup(tmp_path("ref-two")) };
	char *const argv[2][16] = {
		{ (char *)permscope_bin(), "gate", "-q", "-b", (char *)profile, "-n", (char *)profile,
		  "-r", (char *)rules[0], "--junit", (char *)target, NULL },
		{ (char *)permscope_bin(), "gate", "-q", "-b", (char *)profile, "-n", (char *)profile,
		  "-r", (char *)rules[1], "--junit", (char *)target, NULL },
	};
	struct outcome o;

	(void)state;
	write_file(profile, "", 0);
	{
		char sample[PATH_MAX], *text;
		size_t len;

		snprintf(sample, sizeof(sample), "%s/sample-profile.json", testdata_dir());
		text = slurp(sample, &len);
		assert_non_null(text);
		write_file(profile, text, len);
		free(text);
	}
	/* 2000 rules a file: ~150 KB of JUnit XML */
	for (int r = 0; r < 2; r++) {
		FILE *f = fopen(rules[r], "w");

		assert_non_null(f);
		for (int i = 0; i < 2000; i++)
			fprintf(f, "access.unsafe <= %d\n", i + r);
		assert_int_equal(fclose(f), 0);
	}
	o = kill_many(argv, target, ref, false);
	assert_true(o.kept_old > 0);
	assert_true(o.wrote_new > 0);
	free_paths((const char *[]){ profile, target, rules[0], rules[1], ref[0], ref[1] }, 6);
}

int main(void)
{
	struct stat st;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_killed_at_random_leaves_the_old_or_the_new_profile),
		cmocka_unit_test(gate_junit_killed_at_random_leaves_the_old_or_the_new_file),
	};

	/*
	 * In memory when there is /dev/shm: a kill tests the rename, not the
	 * disk, and an fsync of megabytes on a busy disk took 0.8 to 7 s here.
	 * PERMSCOPE_KILL_ON_DISK=1 keeps $TMPDIR (or /tmp): slower, and more of
	 * the kills land inside the write, between the temporary file and the rename.
	 */
	if (!getenv("PERMSCOPE_KILL_ON_DISK") && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
