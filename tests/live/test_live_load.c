// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The load test on this kernel: `permscope record` of all three families
 * around `workload load`, which runs more tasks than CPUs (8 processes of
 * 2 threads, or 4 a CPU where there are more), each hammering one kind of
 * call: access() with its creds as they are, access() with one capability
 * cleared, execve() of a missing path, stat() at the end of a 16-deep tree.
 * The recording must keep running to the end, read every family's lost
 * counters (its fixed-size tables say when they were full), and hold
 * exactly the workload's own counts, or be off by no more than it says it
 * lost (tests/load.h).
 *
 * PERMSCOPE_LOAD_SECONDS sets how long the workload runs (default 10; 60
 * for the figures of docs/hardening.md).  Needs root and BPF; where they are
 * missing, the test says why and is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#include "load.h"
#include "profile.h"

#define TREE_DEPTH 16

static char skip_all[512]; /* why no live test can run here, or "" */
static const char *workload_bin;

static double load_seconds(void)
{
	const char *s = getenv("PERMSCOPE_LOAD_SECONDS");
	double v = s && *s ? strtod(s, NULL) : 10;

	return v > 0 ? v : 10;
}

/* TMPDIR/tree/d1/.../d16/file, made here: the stat threads' target. */
static const char *deep_file(void)
{
	static char path[PATH_MAX];
	size_t len = snprintf(path, sizeof(path), "%s/tree", tmpdir);

	mkdir(path, 0755);
	for (int d = 1; d <= TREE_DEPTH; d++) {
		len += snprintf(path + len, sizeof(path) - len, "/d%d", d);
		mkdir(path, 0755);
	}
	snprintf(path + len, sizeof(path) - len, "/file");
	write_file(path, "", 0);
	return path;
}

static void more_tasks_than_cpus_are_counted_exactly_or_their_losses_shown(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int workers = cpus * 4 > 16 ? (int)cpus * 2 : 8, threads = 2;
	char seconds[32], nworkers[16], nthreads[16];
	char *argv[] = { (char *)permscope_bin(), "record", "--families", "lookup,access,exec",
			 "-o", (char *)tmp_path("load.json"), "--", (char *)workload_bin, "load",
			 seconds, nworkers, nthreads, (char *)deep_file(), NULL };
	struct load_counts c;
	struct timespec a, b;
	struct profile p;
	char err[512];
	double took;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	snprintf(seconds, sizeof(seconds), "%g", load_seconds());
	snprintf(nworkers, sizeof(nworkers), "%d", workers);
	snprintf(nthreads, sizeof(nthreads), "%d", threads);
	print_message("  %d processes x %d threads on %ld CPUs for %s s\n", workers, threads, cpus,
		      seconds);
	assert_true(workers * threads > cpus);
	clock_gettime(CLOCK_MONOTONIC, &a);
	status = run_capture(argv);
	clock_gettime(CLOCK_MONOTONIC, &b);
	took = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	print_message("  permscope record exited %d after %.1f s\n", status, took);
	if (status) {
		print_message("%s", err_text);
		fail_msg("the recording did not keep running to the end");
	}
	/* It ran the whole time: the workload's line is there, and its seconds passed. */
	if (!load_counts_parse(out_text, &c))
		fail_msg("no 'load:' line from the workload in:\n%s", out_text);
	assert_true(took >= load_seconds());
	if (profile_read(tmp_path("load.json"), &p, err, sizeof(err)))
		fail_msg("%s", err);
	/* Whatever this kernel lets attach; lookup's checks are compared where it does. */
	load_check_profile(&p, &c, NULL, 0, "tracepoint mode here");
	if (p.fam[FAMILY_LOOKUP].status != FAMILY_OK)
		print_message("  the lookup family cannot attach here: its checks are compared in "
			      "the VM (tests/vm, load-*)\n");
	profile_free(&p);
}

static int probe_environment(void **state)
{
	(void)state;
	workload_bin = getenv("PERMSCOPE_WORKLOAD");
	if (!workload_bin || !*workload_bin)
		workload_bin = "build/tests/workload";
	return live_skip_reason(skip_all, sizeof(skip_all), workload_bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(more_tasks_than_cpus_are_counted_exactly_or_their_losses_shown),
	};

	return cmocka_run_group_tests_name("live-load", tests, probe_environment, tmpdir_teardown);
}
