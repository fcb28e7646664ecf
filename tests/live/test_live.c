// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Live tests: record workloads whose syscall counts are known exactly
 * (tests/live/workload.c) with the real permscope binary on this kernel, and
 * check the counts in the profile.  Every recording whose counts are checked
 * is filtered to the processes it is about (the workload's, --pid, --comm),
 * so machine noise cannot fake a pass.
 *
 * Needs root and BPF.  Where the kernel cannot run a test, the test prints
 * why and is skipped, never passed.  Expectations are those of a kernel that
 * carries the faccessat and execve changes (our CI machines); the VM suite
 * (tests/vm, docs/vm.md) covers stock kernels and the fentry and kprobe modes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/types.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#include "kernel/cgroup.h"
#include "probe/attach.h"
#include "kernel/preempt.h"
#include "metrics.h"
#include "profile.h"

static const char *workload_bin;
static char skip_all[512]; /* why no live test can run here, or "" */

/* TEXT, each line indented under the test's output. */
static void show_text(const char *text)
{
	for (const char *l = text, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl) {
			print_message("  | %s\n", l);
			break;
		}
		print_message("  | %.*s\n", (int)(nl - l), l);
	}
}

/* Whether the file PATH (a background recording's stderr) holds WHAT yet. */
static bool file_says(const char *path, const char *what)
{
	char *text = slurp(path, NULL);
	bool found = text && strstr(text, what);

	free(text);
	return found;
}

/*
 * permscope record -q --families FAMILIES -o TMP/TAG.json -- workload ARGS...
 * then read the profile into p.
 */
/* An option record_workload() passes before the command, when set (--lean). */
static const char *record_option;

static void record_workload(const char *tag, const char *families, struct profile *p, ...)
{
	char *argv[32], out[600], err[512];
	int n = 0, status;
	va_list ap;

	snprintf(out, sizeof(out), "%s/%s.json", tmpdir, tag);
	argv[n++] = (char *)permscope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	if (record_option)
		argv[n++] = (char *)record_option;
	argv[n++] = "--families";
	argv[n++] = (char *)families;
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "--";
	argv[n++] = (char *)workload_bin;
	va_start(ap, p);
	for (char *a; (a = va_arg(ap, char *)) && n < 31;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;

	status = run_capture(argv);
	if (status != 0) {
		print_message("permscope record exited with %d:\n", status);
		show_text(err_text);
		if (status == 1 && strstr(err_text, "no probe family could attach")) {
			print_message("skipped: the %s family cannot attach on this kernel\n",
				      families);
			skip();
		}
	}
	assert_int_equal(status, 0);
	if (profile_read(out, p, err, sizeof(err)))
		fail_msg("%s: %s", out, err);
}

static void require_family(const struct profile *p, enum family_id f)
{
	const struct family_result *r = &p->fam[f];

	if (r->status == FAMILY_OK)
		return;
	print_message("skipped: the %s family cannot attach on this kernel:\n", family_name(f));
	for (int i = 0; i < r->nattempts; i++)
		print_message("  %s: %s\n", mode_name(r->attempts[i].mode), r->attempts[i].why);
	skip();
}

static __u64 access_calls(const struct profile *p)
{
	__u64 n = 0;

	for (int i = 0; i < ACCESS_OUTCOMES; i++)
		n += p->access.calls[i];
	return n;
}

static void print_access(const struct profile *p)
{
	print_message("  access [%s]: calls %llu, fast %llu, needed %llu, avoidable %llu, "
		      "unsafe %llu, eaccess %llu\n", mode_name(p->fam[FAMILY_ACCESS].mode),
		      (unsigned long long)access_calls(p),
		      (unsigned long long)p->access.calls[ACCESS_FAST],
		      (unsigned long long)p->access.calls[ACCESS_NEEDED],
		      (unsigned long long)p->access.calls[ACCESS_AVOIDABLE],
		      (unsigned long long)p->access.calls[ACCESS_UNSAFE],
		      (unsigned long long)p->access.eaccess);
}

static void print_exec(const struct profile *p)
{
	print_message("  exec [%s]: ok %llu, enoent_early %llu, enoent_late %llu, "
		      "error_other %llu, mm_allocs %llu\n", mode_name(p->fam[FAMILY_EXEC].mode),
		      (unsigned long long)p->exec.calls[EXEC_OK],
		      (unsigned long long)p->exec.calls[EXEC_ENOENT_EARLY],
		      (unsigned long long)p->exec.calls[EXEC_ENOENT_LATE],
		      (unsigned long long)p->exec.calls[EXEC_ERROR_OTHER],
		      (unsigned long long)p->exec.mm_allocs);
}

/* 1000 access("/") as root with default creds: no cred allocated (fast path). */
static void access_default_creds_allocate_no_cred(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	record_workload("access", "access", &p, "access", "1000", NULL);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_int_equal(access_calls(&p), 1000); /* a static workload: no loader calls */
	/* At most 1% avoidable: the kernel carries the faccessat change. */
	assert_true(p.access.calls[ACCESS_AVOIDABLE] * 100 <= access_calls(&p));
	assert_int_equal(p.access.calls[ACCESS_UNSAFE], 0);
	assert_int_equal(p.access.drops, 0);
	profile_free(&p);
}

/* Positive control: with one effective cap cleared the override is needed. */
static void access_with_a_cleared_effective_cap_allocates_creds(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	record_workload("access-dropcap", "access", &p, "access-dropcap", "1000", NULL);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_int_equal(access_calls(&p), 1000); /* a static workload: no loader calls */
	assert_true(p.access.calls[ACCESS_NEEDED] * 100 >= access_calls(&p) * 99);
	assert_int_equal(p.access.calls[ACCESS_UNSAFE], 0);
	profile_free(&p);
}

/*
 * --lean: no clock read in access or exec, every outcome counted all the
 * same; the profile says the latency was not measured, never 0.
 */
static void lean_recordings_count_every_call_without_latency(void **state)
{
	struct profile a, e;

	(void)state;
	skip_unless_live(skip_all);
	record_option = "--lean";
	record_workload("access-dropcap-lean", "access", &a, "access-dropcap", "1000", NULL);
	record_workload("exec-lean", "exec", &e, "exec-missing", "200", NULL);
	record_option = NULL;
	require_family(&a, FAMILY_ACCESS);
	require_family(&e, FAMILY_EXEC);
	print_access(&a);
	assert_true(a.fam[FAMILY_ACCESS].lean && a.fam[FAMILY_ACCESS].no_latency);
	assert_int_equal(access_calls(&a), 1000);
	assert_true(a.access.calls[ACCESS_NEEDED] * 100 >= access_calls(&a) * 99);
	for (int o = 0; o < ACCESS_OUTCOMES; o++)
		assert_int_equal(a.access.latency[o].count, 0);
	assert_true(e.fam[FAMILY_EXEC].no_latency);
	/* 200 missing paths and the workload's own exec */
	assert_int_equal(e.exec.calls[EXEC_ENOENT_EARLY] + e.exec.calls[EXEC_ENOENT_LATE], 200);
	assert_int_equal(e.exec.calls[EXEC_OK], 1);
	assert_true(metric_absent(&a, "access.latency.p50"));
	profile_free(&a);
	profile_free(&e);
}

static void access_with_at_eaccess_is_counted_and_needs_no_cred(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	record_workload("eaccess", "access", &p, "eaccess", "500", NULL);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_int_equal(p.access.eaccess, 500);
	assert_int_equal(access_calls(&p), 500);
	assert_true(p.access.calls[ACCESS_NEEDED] + p.access.calls[ACCESS_AVOIDABLE] <= 5);
	profile_free(&p);
}

/* 200 execve() of a missing absolute path: 200 ENOENT, none after an mm. */
static void exec_of_a_missing_path_fails_early_with_enoent(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	record_workload("exec-missing", "exec", &p, "exec-missing", "200", NULL);
	require_family(&p, FAMILY_EXEC);
	print_exec(&p);
	assert_int_equal(p.exec.calls[EXEC_ENOENT_EARLY] + p.exec.calls[EXEC_ENOENT_LATE], 200);
	assert_int_equal(p.exec.errnos[2 /* ENOENT */], 200);
	/* The kernel returns ENOENT before allocating an mm. */
	assert_int_equal(p.exec.calls[EXEC_ENOENT_EARLY], 200);
	/* The only successful exec is permscope starting the workload. */
	assert_int_equal(p.exec.calls[EXEC_OK], 1);
	assert_int_equal(p.exec.calls[EXEC_ERROR_OTHER], 0);
	profile_free(&p);
}

/* Positive control: an exec that succeeds must be seen allocating an mm. */
static void exec_of_an_existing_file_is_seen_allocating_an_mm(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	record_workload("exec-existing", "exec", &p, "exec-existing", "50", NULL);
	require_family(&p, FAMILY_EXEC);
	print_exec(&p);
	assert_int_equal(p.exec.calls[EXEC_OK], 51); /* 50 children + the workload itself */
	assert_true(p.exec.mm_allocs >= 51);
	profile_free(&p);
}

/* Another busy process must not leak into a recording filtered to a command. */
static void recording_a_command_counts_only_its_processes(void **state)
{
	struct profile p;
	pid_t noise;

	(void)state;
	skip_unless_live(skip_all);
	noise = fork();
	assert_true(noise >= 0);
	if (noise == 0) {
		for (;;)
			access("/", R_OK);
	}
	record_workload("filter", "access", &p, "access", "100", NULL);
	kill(noise, SIGKILL);
	waitpid(noise, NULL, 0);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	/* The workload is static: no dynamic loader adds an access() of its own. */
	assert_int_equal(access_calls(&p), 100);
	profile_free(&p);
}

/* SIGTERM ends a recording early and the profile is still written whole. */
static void sigterm_stops_a_recording_and_keeps_the_profile(void **state)
{
	char out[600], err[512], *argv[] = { (char *)permscope_bin(), "record", "-q", "-d", "60",
					      "--families", "access,exec", "-o", out, NULL };
	struct timespec start, now;
	struct profile p;
	struct stat st;
	int status;
	pid_t pid;

	(void)state;
	skip_unless_live(skip_all);
	snprintf(out, sizeof(out), "%s/sigterm.json", tmpdir);
	pid = spawn_to(argv, NULL, NULL);
	sleep(2); /* attached by then; the test is about what SIGTERM does */
	clock_gettime(CLOCK_MONOTONIC, &start);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &now);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(now.tv_sec - start.tv_sec < 10);
	assert_int_equal(stat(out, &st), 0);
	if (profile_read(out, &p, err, sizeof(err)))
		fail_msg("%s: %s", out, err);
	assert_true(p.end_ns - p.start_ns < 30ULL * 1000000000ULL);
	assert_int_equal(p.fam[FAMILY_LOOKUP].status, FAMILY_NOT_REQUESTED);
	profile_free(&p);
}

/*
 * A child forked by this test (so no exec, no dynamic loader) that makes
 * exactly `n` access() calls when released, under command name `comm`.
 */
struct caller {
	pid_t pid;
	int go;
};

static struct caller access_caller_in(const char *cgroup, const char *comm, int n)
{
	struct caller c;
	int fds[2];
	char byte;

	assert_int_equal(pipe(fds), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		char procs[PATH_MAX], pid[16];
		int fd, len;

		close(fds[1]);
		prctl(PR_SET_NAME, comm);
		if (read(fds[0], &byte, 1) != 1)
			_exit(1);
		/* into the cgroup first, by writing our pid to its cgroup.procs */
		if (cgroup) {
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
			len = snprintf(pid, sizeof(pid), "%d", getpid());
			fd = open(procs, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, pid, len) != len)
				_exit(2);
			close(fd);
		}
		for (int i = 0; i < n; i++)
			access("/", R_OK);
		_exit(0);
	}
	close(fds[0]);
	c.go = fds[1];
	return c;
}

/* ... in this test's own cgroup, where it was started. */
static struct caller access_caller(const char *comm, int n)
{
	return access_caller_in(NULL, comm, n);
}

static void caller_run(struct caller *c)
{
	int status;

	assert_int_equal(write(c->go, "g", 1), 1);
	close(c->go);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Start `permscope record ARGS` in the background; return once it is attached. */
static pid_t start_recording(const char *tag, char **argv)
{
	char err[600], *text;
	pid_t pid;

	snprintf(err, sizeof(err), "%s/%s.stderr", tmpdir, tag);
	pid = spawn_to(argv, "/dev/null", err);
	/* It says "Recording (...)" on stderr once every family is attached. */
	for (int i = 0; i < 200 && !file_says(err, "Recording ("); i++)
		usleep(50000);
	if (!file_says(err, "Recording (")) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		text = slurp(err, NULL);
		show_text(text ? text : "");
		free(text);
		fail_msg("permscope record did not start within 10 s");
	}
	return pid;
}

static void stop_recording(pid_t pid, const char *out, struct profile *p)
{
	char err[512];
	int status;

	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (profile_read(out, p, err, sizeof(err)))
		fail_msg("%s: %s", out, err);
}

/* --pid: exactly the calls of that process, none of a busier neighbour. */
static void pid_filter_counts_exactly_that_process(void **state)
{
	struct caller target, noise;
	char out[600], pid[16], *argv[] = { NULL, "record", "-d", "60", "--families", "access",
					    "--pid", pid, "-o", out, NULL };
	struct profile p;
	pid_t rec;

	(void)state;
	skip_unless_live(skip_all);
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/pid.json", tmpdir);
	target = access_caller("ps-target", 300);
	noise = access_caller("ps-noise", 3000);
	snprintf(pid, sizeof(pid), "%d", target.pid);
	rec = start_recording("pid", argv);
	caller_run(&noise);
	caller_run(&target);
	stop_recording(rec, out, &p);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_int_equal(p.filter_pid, target.pid);
	assert_int_equal(access_calls(&p), 300);
	profile_free(&p);
}

/*
 * --pid follows the process's children through a table of fixed size; the
 * children it has no room for are not counted, and the profile says how
 * many (lost: tracked_full) instead of printing a confident short count.
 * PERMSCOPE_TRACKED_ENTRIES shrinks the table from 8192 to 4.
 */
static void children_the_process_table_cannot_hold_are_reported_lost(void **state)
{
	char out[600], pid[16], *argv[] = { NULL, "record", "-d", "60", "--families", "access",
					    "--pid", pid, "-o", out, NULL };
	int go[2], status;
	struct profile p;
	pid_t parent, rec;
	__u64 lost = 0;
	char byte;

	(void)state;
	skip_unless_live(skip_all);
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/tracked-full.json", tmpdir);
	assert_int_equal(pipe(go), 0);
	parent = fork();
	assert_true(parent >= 0);
	if (parent == 0) {
		int hold[2];
		pid_t kids[10];

		close(go[1]);
		if (read(go[0], &byte, 1) != 1 || pipe(hold))
			_exit(1);
		/* Ten children alive at once: the parent and three of them fill four slots. */
		for (int i = 0; i < 10; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				close(hold[1]);
				if (read(hold[0], &byte, 1) != 0)
					_exit(1);
				for (int j = 0; j < 10; j++)
					access("/", R_OK);
				_exit(0);
			}
		}
		close(hold[1]); /* EOF releases them all */
		for (int i = 0; i < 10; i++)
			waitpid(kids[i], NULL, 0);
		_exit(0);
	}
	close(go[0]);
	snprintf(pid, sizeof(pid), "%d", parent);
	setenv("PERMSCOPE_TRACKED_ENTRIES", "4", 1);
	rec = start_recording("tracked-full", argv);
	unsetenv("PERMSCOPE_TRACKED_ENTRIES");
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	assert_int_equal(waitpid(parent, &status, 0), parent);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	stop_recording(rec, out, &p);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	for (int i = 0; i < p.fam[FAMILY_ACCESS].nlost; i++)
		if (!strcmp(p.fam[FAMILY_ACCESS].lost[i].what, "tracked_full"))
			lost = p.fam[FAMILY_ACCESS].lost[i].count;
	print_message("  lost: tracked_full %llu\n", (unsigned long long)lost);
	assert_int_equal(lost, 7);
	assert_int_equal(access_calls(&p), 30);
	assert_true(p.fam[FAMILY_ACCESS].lost_known);
	profile_free(&p);
}

/* --comm: exactly the calls of tasks with that name, machine-wide. */
static void comm_filter_counts_exactly_tasks_of_that_name(void **state)
{
	struct caller a, b, noise;
	char out[600], *argv[] = { NULL, "record", "-d", "60", "--families", "access",
				   "--comm", "ps-wanted", "-o", out, NULL };
	struct profile p;
	pid_t rec;

	(void)state;
	skip_unless_live(skip_all);
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/comm.json", tmpdir);
	a = access_caller("ps-wanted", 200);
	b = access_caller("ps-wanted", 50);
	noise = access_caller("ps-wanted-not", 3000); /* shares a prefix */
	rec = start_recording("comm", argv);
	caller_run(&a);
	caller_run(&noise);
	caller_run(&b);
	stop_recording(rec, out, &p);
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_string_equal(p.filter_comm, "ps-wanted");
	assert_int_equal(access_calls(&p), 250);
	profile_free(&p);
}

/*
 * The cgroups of the --cgroup tests, under the cgroup2 mount: WANTED,
 * WANTED/inner below it, and a sibling whose name WANTED is a prefix of.
 */
static char cg_wanted[PATH_MAX + 32], cg_inner[PATH_MAX + 40], cg_sibling[PATH_MAX + 40];

static void cgroups_remove(void)
{
	/* children first; a cgroup whose processes have all exited can go */
	if (cg_inner[0])
		rmdir(cg_inner);
	if (cg_wanted[0])
		rmdir(cg_wanted);
	if (cg_sibling[0])
		rmdir(cg_sibling);
}

/* Make the three cgroups, or say why they cannot be made here and skip. */
static void cgroups_make(void)
{
	char mnt[PATH_MAX];
	int err;

	if ((err = cgroup2_mount("/proc/self/mounts", mnt, sizeof(mnt)))) {
		print_message("skipped: %s\n", err == -ENOENT ? "no cgroup2 filesystem is mounted "
			      "here" : strerror(-err));
		skip();
	}
	snprintf(cg_wanted, sizeof(cg_wanted), "%s/permscope-live-%d", mnt, getpid());
	snprintf(cg_inner, sizeof(cg_inner), "%s/inner", cg_wanted);
	snprintf(cg_sibling, sizeof(cg_sibling), "%s-sibling", cg_wanted);
	if (mkdir(cg_wanted, 0755) || mkdir(cg_inner, 0755) || mkdir(cg_sibling, 0755)) {
		err = errno;
		cgroups_remove();
		print_message("skipped: cannot make a cgroup under %s: %s\n", mnt, strerror(err));
		skip();
	}
}

/*
 * --cgroup: exactly the calls made in the cgroup and in the one below it,
 * by processes that moved there after the recording started; none of a
 * busier process outside, nor of one in a sibling cgroup of a longer name.
 */
static void cgroup_filter_counts_exactly_tasks_in_that_cgroup_and_below(void **state)
{
	struct caller in, nested, noise, sibling;
	char out[600], *argv[] = { NULL, "record", "-d", "60", "--families", "access",
				   "--cgroup", cg_wanted, "-o", out, NULL };
	struct profile p;
	pid_t rec;

	(void)state;
	skip_unless_live(skip_all);
	cgroups_make();
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/cgroup.json", tmpdir);
	in = access_caller_in(cg_wanted, "ps-in", 200);
	nested = access_caller_in(cg_inner, "ps-nested", 50);
	noise = access_caller("ps-noise", 3000);
	sibling = access_caller_in(cg_sibling, "ps-sibling", 700);
	rec = start_recording("cgroup", argv);
	caller_run(&in);
	caller_run(&noise);
	caller_run(&nested);
	caller_run(&sibling);
	stop_recording(rec, out, &p);
	cgroups_remove();
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_string_equal(p.filter_cgroup, cg_wanted);
	assert_int_equal(access_calls(&p), 250);
	profile_free(&p);
}

/* --cgroup with --comm: a task must be in the cgroup and have the name. */
static void cgroup_and_comm_filters_must_both_match(void **state)
{
	struct caller both, in_only, name_only;
	char out[600], *argv[] = { NULL, "record", "-d", "60", "--families", "access",
				   "--cgroup", cg_wanted, "--comm", "ps-both", "-o", out, NULL };
	struct profile p;
	pid_t rec;

	(void)state;
	skip_unless_live(skip_all);
	cgroups_make();
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/cgroup-comm.json", tmpdir);
	both = access_caller_in(cg_inner, "ps-both", 120);
	in_only = access_caller_in(cg_wanted, "ps-other", 500);
	name_only = access_caller("ps-both", 700);
	rec = start_recording("cgroup-comm", argv);
	caller_run(&in_only);
	caller_run(&both);
	caller_run(&name_only);
	stop_recording(rec, out, &p);
	cgroups_remove();
	require_family(&p, FAMILY_ACCESS);
	print_access(&p);
	assert_string_equal(p.filter_comm, "ps-both");
	assert_string_equal(p.filter_cgroup, cg_wanted);
	assert_int_equal(access_calls(&p), 120);
	profile_free(&p);
}

/* A command killed by a signal is recorded with the shell's 128 + signal. */
static void command_killed_by_a_signal_is_told_apart(void **state)
{
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	workload_bin = "/bin/sh";
	record_workload("killed", "exec", &p, "-c", "kill -9 $$", NULL);
	workload_bin = getenv("PERMSCOPE_WORKLOAD") ? getenv("PERMSCOPE_WORKLOAD")
						    : "build/tests/workload";
	assert_int_equal(p.exit_status, 128 + SIGKILL);
	assert_contains(err_text, "killed by signal 9");
	profile_free(&p);
}

/* -d shorter than the command: the command is stopped, the profile says so. */
static void duration_stops_a_longer_command(void **state)
{
	char out[600], err[512], *argv[] = { NULL, "record", "-q", "-d", "0.5", "--families",
					      "exec", "-o", out, "--", "/bin/sleep", "30", NULL };
	struct timespec start, end;
	struct profile p;

	(void)state;
	skip_unless_live(skip_all);
	argv[0] = (char *)permscope_bin();
	snprintf(out, sizeof(out), "%s/duration.json", tmpdir);
	clock_gettime(CLOCK_MONOTONIC, &start);
	assert_int_equal(run_capture(argv), 0);
	clock_gettime(CLOCK_MONOTONIC, &end);
	assert_true(end.tv_sec - start.tv_sec < 10); /* SIGTERM ended sleep, not its 30 s */
	if (profile_read(out, &p, err, sizeof(err)))
		fail_msg("%s: %s", out, err);
	assert_int_equal(p.exit_status, -1);
	assert_contains(err_text, "the recording ended before the command did");
	profile_free(&p);
}

/* Lookup counts per filesystem, where this kernel lets the family attach. */
static void lookup_counts_directory_checks_on_tmpfs(void **state)
{
	static const char *const levels[] = { "", "/a", "/b", "/c" };
	char dir[600], file[700];
	struct profile p;
	const struct fs_result *tmpfs = NULL;

	(void)state;
	skip_unless_live(skip_all);
	/* /dev/shm/permscope-live-PID/a/b/c, every level 0755 */
	snprintf(dir, sizeof(dir), "/dev/shm/permscope-live-%d", getpid());
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		strncat(dir, levels[i], sizeof(dir) - strlen(dir) - 1);
		assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	}
	snprintf(file, sizeof(file), "%s/f", dir);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	record_workload("lookup", "lookup", &p, "stat", "1000", file, NULL);
	require_family(&p, FAMILY_LOOKUP);
	tmpfs = profile_find_fs(&p, "tmpfs");
	assert_non_null(tmpfs);
	print_message("  lookup tmpfs: checks %llu, did_skip %llu, would_skip %llu\n",
		      (unsigned long long)tmpfs->s.checks, (unsigned long long)tmpfs->s.did_skip,
		      (unsigned long long)tmpfs->s.would_skip);
	/* a, b and c (and the permscope-live dir) are traversed on every stat. */
	assert_true(tmpfs->s.checks >= 3000);
	profile_free(&p);
}

/* Wherever lookup cannot attach, every mode it tried says why, in this kernel's order. */
static void unavailable_families_explain_every_mode(void **state)
{
	char out[600], err[512], *argv[] = { (char *)permscope_bin(), "record", "-q", "-d", "0.2",
					      "-o", out, NULL };
	enum attach_mode order[MODE_COUNT];
	struct profile p;

	(void)state;
	assert_int_equal(families_mode_order(order, NULL, 0), 3);
	skip_unless_live(skip_all);
	snprintf(out, sizeof(out), "%s/all.json", tmpdir);
	assert_int_equal(run_capture(argv), 0);
	if (profile_read(out, &p, err, sizeof(err)))
		fail_msg("%s: %s", out, err);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *r = &p.fam[f];

		print_message("  %s: %s\n", family_name(f), r->status == FAMILY_OK ?
			      mode_name(r->mode) : "unavailable");
		if (r->status == FAMILY_OK)
			continue;
		assert_int_equal(r->status, FAMILY_UNAVAILABLE);
		assert_int_equal(r->nattempts, 3);
		for (int i = 0; i < r->nattempts; i++) {
			assert_int_equal(r->attempts[i].mode, order[i]);
			assert_true(r->attempts[i].err > 0);
			assert_true(strlen(r->attempts[i].why) > 10);
		}
	}
	profile_free(&p);
}

/* ---- check --self-test -------------------------------------------------- */

/*
 * What the self-test must answer here, from recordings of the test
 * workload made apart from it (the same measure, another workload and
 * another path through permscope): "yes" when every default-cred access()
 * was fast and every missing-path execve() early, "no" when every one was
 * avoidable or late, "unknown" when the family cannot attach.
 */
struct expected_verdicts {
	const char *answer[3]; /* faccessat cred skip, ENOENT before mm, MAY_EXEC lookup skip */
};

static const char *const verdict_titles[3] = {
	"faccessat cred skip", "ENOENT before mm", "MAY_EXEC lookup skip",
};
static const char *const verdict_keys[3] = {
	"faccessat_cred_skip", "enoent_before_mm", "may_exec_lookup_skip",
};

static void expected_here(struct expected_verdicts *e)
{
	struct profile a, x, l;

	record_workload("st-access", "access", &a, "access", "300", NULL);
	record_workload("st-exec", "exec", &x, "exec-missing", "40", NULL);
	record_workload("st-lookup", "lookup,access", &l, "access", "1", NULL);
	print_access(&a);
	print_exec(&x);
	e->answer[0] = a.fam[FAMILY_ACCESS].status != FAMILY_OK ? "unknown" :
		       a.access.calls[ACCESS_FAST] == 300 ? "yes" :
		       a.access.calls[ACCESS_AVOIDABLE] == 300 ? "no" : "unknown";
	e->answer[1] = x.fam[FAMILY_EXEC].status != FAMILY_OK ? "unknown" :
		       x.exec.calls[EXEC_ENOENT_EARLY] == 40 ? "yes" :
		       x.exec.calls[EXEC_ENOENT_LATE] == 40 ? "no" : "unknown";
	/* Where lookup attaches, its answer is the VM suite's to check. */
	e->answer[2] = l.fam[FAMILY_LOOKUP].status != FAMILY_OK ? "unknown" : NULL;
	print_message("  recorded apart: %s %s, %s %s, %s %s\n", verdict_titles[0], e->answer[0],
		      verdict_titles[1], e->answer[1], verdict_titles[2],
		      e->answer[2] ? e->answer[2] : "(lookup attaches: any answer)");
	profile_free(&a);
	profile_free(&x);
	profile_free(&l);
}

static double run_timed(char *const argv[], int *status)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*status = run_capture(argv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/*
 * permscope check exits 0 and prints one line per fast path with its
 * counts, answering what the kernel was measured to do; the lookup line,
 * where lookup cannot attach, is "unknown" with the reason.
 */
static void check_self_test_answers_what_the_kernel_was_measured_to_do(void **state)
{
	char *argv[] = { (char *)permscope_bin(), "check", NULL };
	struct expected_verdicts e;
	double took;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	expected_here(&e);
	took = run_timed(argv, &status);
	print_message("  permscope check took %.2f s\n", took);
	show_text(strstr(out_text, "self-test") ? strstr(out_text, "self-test") : out_text);
	assert_int_equal(status, 0);
	for (int i = 0; i < 3; i++) {
		char line[96];
		const char *at;

		at = strstr(out_text, verdict_titles[i]);
		if (!at)
			fail_msg("no line for %s", verdict_titles[i]);
		if (e.answer[i]) {
			snprintf(line, sizeof(line), "%-21s %-7s", verdict_titles[i], e.answer[i]);
			assert_contains(out_text, line);
		}
	}
	assert_contains(out_text, "default_calls=300 default_fast=");
	assert_contains(out_text, "enoent=40 enoent_early=");
	assert_contains(out_text, "checks=");
	if (e.answer[2])
		assert_contains(out_text, "the lookup family attaches in no mode here");
	/* Generous: the tracepoint attach and detach alone take about 1.3 s here. */
	assert_true(took < 5.0);
}

/*
 * check --json says this kernel's preemption model as preemption_read()
 * finds it here, and puts kprobe first exactly where a BPF program can be
 * preempted (unknown counts as that); a forced fentry warns once there,
 * whether or not fentry then attaches.
 */
static void check_says_the_preemption_model_and_the_attach_order(void **state)
{
	char *json_argv[] = { (char *)permscope_bin(), "check", "--json", "--no-self-test", NULL };
	char *fentry_argv[] = { (char *)permscope_bin(), "check", "--no-self-test", "--mode",
				"fentry", NULL };
	const struct preemption *here = preemption_running();
	bool preempts = preempt_model_preempts_bpf(here->model);
	json_t *doc, *pre, *order;
	json_error_t je;

	(void)state;
	skip_unless_live(skip_all);
	assert_int_equal(run_capture(json_argv), 0);
	doc = json_loads(out_text, 0, &je);
	if (!doc)
		fail_msg("check --json: %s", je.text);
	pre = json_object_get(doc, "preemption");
	order = json_object_get(doc, "mode_order");
	print_message("  preemption %s (%s): %s first\n",
		      json_string_value(json_object_get(pre, "model")),
		      json_string_value(json_object_get(pre, "from")),
		      json_string_value(json_array_get(order, 0)));
	assert_string_equal(json_string_value(json_object_get(pre, "model")),
			    preempt_model_name(here->model));
	assert_string_equal(json_string_value(json_object_get(pre, "from")), here->source);
	assert_int_equal(json_is_true(json_object_get(pre, "preempts_bpf")), preempts);
	assert_int_equal(json_array_size(order), 3);
	assert_string_equal(json_string_value(json_array_get(order, 0)), preempts ? "kprobe" : "fentry");
	assert_string_equal(json_string_value(json_array_get(order, 2)), "tracepoint");
	assert_true(strlen(json_string_value(json_object_get(doc, "mode_order_why"))) > 20);
	json_decref(doc);

	assert_int_equal(run_capture(fentry_argv), 0);
	if (preempts) {
		const char *w = strstr(err_text, "Warning: --mode fentry on a kernel preemptible");

		assert_non_null(w);
		assert_null(strstr(w + 1, "Warning: --mode fentry")); /* once, not per family */
	} else {
		assert_not_contains(err_text, "Warning: --mode fentry");
	}
}

/* The same verdicts in check --json's self_test member, with every count the text shows. */
static void check_json_carries_the_self_test_verdicts_and_counts(void **state)
{
	char *argv[] = { (char *)permscope_bin(), "check", "--json", NULL };
	struct expected_verdicts e;
	json_t *doc, *st, *v;
	json_error_t je;
	int status;
	double took;

	(void)state;
	skip_unless_live(skip_all);
	expected_here(&e);
	took = run_timed(argv, &status);
	assert_int_equal(status, 0);
	doc = json_loads(out_text, 0, &je);
	if (!doc)
		fail_msg("check --json: %s", je.text);
	assert_string_equal(json_string_value(json_object_get(doc, "format")), "permscope-check/3");
	st = json_object_get(doc, "self_test");
	assert_true(json_is_object(st));
	print_message("  check --json took %.2f s; the workload and its readings %.1f ms, "
		      "attaching %.2f s, detaching %.2f s\n", took,
		      1e3 * json_real_value(json_object_get(st, "elapsed_s")),
		      json_real_value(json_object_get(st, "attach_s")),
		      json_real_value(json_object_get(st, "detach_s")));
	assert_true(json_real_value(json_object_get(st, "elapsed_s")) < 1.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "workload"),
							    "access_default")), 300);
	for (int i = 0; i < 3; i++) {
		v = json_object_get(json_object_get(st, "verdicts"), verdict_keys[i]);
		assert_true(json_is_object(v));
		print_message("  %s: %s: %s\n", verdict_keys[i],
			      json_string_value(json_object_get(v, "answer")),
			      json_string_value(json_object_get(v, "why")));
		assert_string_equal(json_string_value(json_object_get(v, "title")), verdict_titles[i]);
		assert_true(json_object_size(json_object_get(v, "counts")) >= 5);
		assert_true(strlen(json_string_value(json_object_get(v, "why"))) > 10);
		if (e.answer[i])
			assert_string_equal(json_string_value(json_object_get(v, "answer")), e.answer[i]);
	}
	v = json_object_get(json_object_get(st, "verdicts"), "faccessat_cred_skip");
	if (!strcmp(e.answer[0], "yes"))
		assert_int_equal(json_integer_value(json_object_get(json_object_get(v, "counts"),
								    "dropcap_needed")), 300);
	/* the fourth row says what cred_layout says, from the same BTF */
	v = json_object_get(json_object_get(st, "verdicts"), "cred_refcount_line");
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "answer")),
			    json_string_value(json_object_get(json_object_get(doc, "cred_layout"),
							      "verdict")));
	json_decref(doc);
	doc = NULL;
	/* --no-self-test: the attach tries alone, self_test null */
	argv[2] = "--no-self-test";
	assert_int_equal(run_capture(argv), 0);
	assert_not_contains(out_text, "self-test");
	assert_contains(out_text, "struct cred");
}


/* ---- permscope verify --------------------------------------------------- */

/*
 * permscope verify -j --families access,exec -- /bin/sh -c SCRIPT: its exit
 * status, the JSON verdict in *v.  Skipped where neither family attaches.
 */
static int verify_script(const char *script, json_t **v)
{
	char *argv[] = { (char *)permscope_bin(), "verify", "-q", "-j", "--families", "access,exec",
			 "--", "/bin/sh", "-c", (char *)script, NULL };
	json_error_t e;
	int status = run_capture(argv);

	if (status == 3 && strstr(err_text, "no probe family could attach")) {
		show_text(err_text);
		print_message("skipped: neither access nor exec attaches on this kernel\n");
		skip();
	}
	*v = json_loads(out_text, 0, &e);
	if (!*v) {
		show_text(err_text);
		fail_msg("permscope verify (exit %d) printed no JSON: %s", status, e.text);
	}
	return status;
}

/*
 * The access and exec loops, default and capability-dropped access(),
 * execs of existing and missing files: nothing breaks on this kernel, and
 * the verdict says so having seen every call.
 */
static void verify_is_clean_on_the_access_and_exec_workloads(void **state)
{
	char script[2048];
	json_t *v, *f;
	const char *name;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	snprintf(script, sizeof(script), "%1$s access 500 && %1$s access-dropcap 500 && "
		 "%1$s exec-existing 20 && %1$s exec-missing 100", workload_bin);
	status = verify_script(script, &v);
	if (status != 0)
		show_text(out_text);
	assert_int_equal(status, 0);
	assert_string_equal(json_string_value(json_object_get(v, "format")), "permscope-verify/1");
	assert_string_equal(json_string_value(json_object_get(v, "verdict")), "clean");
	json_object_foreach(json_object_get(v, "families"), name, f) {
		print_message("  %s: %s, %lld events\n", name,
			      json_string_value(json_object_get(f, "state")),
			      json_integer_value(json_object_get(f, "events")));
		assert_true(json_is_true(json_object_get(f, "judged")));
	}
	/* 1000 access() calls of the workloads, 20 + 100 + 4 execs at least */
	assert_true(json_integer_value(json_object_get(json_object_get(json_object_get(v,
		"families"), "access"), "events")) >= 1000);
	assert_true(json_integer_value(json_object_get(json_object_get(json_object_get(v,
		"families"), "exec"), "events")) >= 124);
	json_decref(v);
}

/*
 * verify --json-file FILE: the text verdict on stdout for a person, the
 * same verdict as JSON in FILE for a script, with the same exit status;
 * -o FILE: what would be printed, in FILE instead.
 */
static void verify_writes_the_json_verdict_beside_the_text(void **state)
{
	char script[1024], json_path[PATH_MAX];
	json_error_t e;
	json_t *v;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	snprintf(json_path, sizeof(json_path), "%s/verdict.json", tmpdir);
	snprintf(script, sizeof(script), "%s access 50", workload_bin);
	char *argv[] = { (char *)permscope_bin(), "verify", "-q", "--families", "access",
			 "--json-file", json_path, "--", "/bin/sh", "-c", script, NULL };
	status = run_capture(argv);
	if (status == 3 && strstr(err_text, "no probe family could attach")) {
		print_message("skipped: access does not attach on this kernel\n");
		skip();
	}
	assert_int_equal(status, 0);
	assert_contains(out_text, "Verdict: clean");
	v = json_load_file(json_path, 0, &e);
	if (!v)
		fail_msg("%s: %s", json_path, e.text);
	assert_string_equal(json_string_value(json_object_get(v, "verdict")), "clean");
	assert_int_equal(json_integer_value(json_object_get(v, "exit_status")), status);
	assert_true(json_integer_value(json_object_get(json_object_get(json_object_get(v,
		"families"), "access"), "events")) >= 50);
	json_decref(v);
	/* -o: the text in the file, nothing on stdout */
	argv[5] = "-o";
	assert_int_equal(run_capture(argv), 0);
	assert_string_equal(out_text, "");
	v = NULL;
	{
		char *text = slurp(json_path, NULL);

		assert_non_null(text);
		assert_contains(text, "Verdict: clean");
		free(text);
	}
	/* A place the file cannot go: refused before anything is recorded. */
	char *bad[] = { (char *)permscope_bin(), "verify", "-q", "--json-file",
			"/nonexistent/v.json", "--", "true", NULL };
	assert_int_equal(run_capture(bad), 2);
	assert_contains(err_text, "Error: /nonexistent/v.json: cannot write there");
}

/*
 * The sample path end to end on a real kernel: a script whose interpreter
 * is missing fails with ENOENT only after the kernel allocated an mm, on
 * every kernel, the patched ones too, and execs of a missing path fail
 * before one here.  verify cannot tell that late ENOENT from a regressed
 * early exit (docs/verify.md), so it reports exec.enoent_late, with the
 * samples its program sent through the ring buffer.
 */
static void verify_reports_late_enoent_with_samples_from_the_ring_buffer(void **state)
{
	char script[2048], noint[700];
	json_t *v, *finding, *sample;
	size_t i;
	int status;

	(void)state;
	skip_unless_live(skip_all);
	snprintf(noint, sizeof(noint), "%s/no-interpreter", tmpdir);
	write_file(noint, "#!/nonexistent/interpreter\n", 27);
	assert_int_equal(chmod(noint, 0755), 0);
	snprintf(script, sizeof(script), "%s exec-missing 20; for i in 1 2 3 4 5 6 7; do %s; done; "
		 "exit 0", workload_bin, noint);
	status = verify_script(script, &v);
	if (status != 1)
		show_text(out_text);
	assert_int_equal(status, 1);
	assert_string_equal(json_string_value(json_object_get(v, "verdict")), "violation");
	json_array_foreach(json_object_get(v, "findings"), i, finding) {
		if (strcmp(json_string_value(json_object_get(finding, "kind")), "exec.enoent_late"))
			continue;
		assert_true(json_is_true(json_object_get(finding, "violation")));
		assert_int_equal(json_integer_value(json_object_get(finding, "count")), 7);
		assert_int_equal(json_integer_value(json_object_get(finding, "samples_sent")), 7);
		assert_int_equal(json_array_size(json_object_get(finding, "samples")), 5);
		sample = json_array_get(json_object_get(finding, "samples"), 0);
		assert_int_equal(json_integer_value(json_object_get(sample, "errno")), ENOENT);
		assert_string_equal(json_string_value(json_object_get(sample, "comm")), "sh");
		json_decref(v);
		return;
	}
	fail_msg("no exec.enoent_late finding");
}

/* Can anything attach here at all?  If not, say why once and skip all. */
static int probe_environment(void **state)
{
	(void)state;
	workload_bin = getenv("PERMSCOPE_WORKLOAD") ? getenv("PERMSCOPE_WORKLOAD")
						    : "build/tests/workload";
	return live_skip_reason(skip_all, sizeof(skip_all), workload_bin);
}

static int cleanup(void **state)
{
	char shm[64];

	(void)state;
	snprintf(shm, sizeof(shm), "/dev/shm/permscope-live-%d", getpid());
	remove_tree(shm);
	cgroups_remove(); /* left by a test that failed half-way */
	tmpdir_teardown(state);
	return 0;
}

/*
 * `record -o FILE` SIGKILLed at random moments from 0.7 to 1.3 times a
 * whole run (the start is loading BPF), 20 times: FILE is always
 * the old profile byte for byte or a whole new one that parses; a kill
 * between the temporary file and the rename leaves only FILE.tmp.XXXXXX
 * (counted and removed here; no reader takes it for a profile).
 */
static void record_killed_at_random_leaves_the_old_or_a_whole_new_profile(void **state)
{
	const char *target = tmp_path("killed.json");
	char *argv[] = { (char *)permscope_bin(), "record", "-q", "-d", "0.2", "--families",
			 "access,exec", "-o", (char *)target, NULL };
	int kept_old = 0, wrote_new = 0, strays = 0;
	struct timespec t0, t1;
	double whole;

	(void)state;
	skip_unless_live(skip_all);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(run_to(argv, "/dev/null", "/dev/null"), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	whole = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	srand48(7);
	for (int i = 0; i < 20; i++) {
		/* around the end of a run, where the profile is written */
		double at = (0.7 + drand48() * 0.6) * whole;
		struct timespec delay = { (time_t)at, (long)((at - (long)at) * 1e9) };
		char *old, *now, err[512], dir_path[PATH_MAX + 300];
		size_t old_len, len;
		struct profile p;
		struct dirent *de;
		pid_t pid;
		DIR *d;

		old = slurp(target, &old_len);
		assert_non_null(old);
		pid = spawn_to(argv, "/dev/null", "/dev/null");
		nanosleep(&delay, NULL);
		kill(pid, SIGKILL);
		wait_exit_status(pid);
		now = slurp(target, &len);
		assert_non_null(now);
		if (len == old_len && !memcmp(now, old, len))
			kept_old++;
		else
			wrote_new++;
		if (profile_read(target, &p, err, sizeof(err)))
			fail_msg("kill %d after %.3f s: %s does not parse: %s", i, at, target, err);
		profile_free(&p);
		d = opendir(tmpdir);
		assert_non_null(d);
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "killed.json.tmp.", 16))
				continue;
			snprintf(dir_path, sizeof(dir_path), "%s/%s", tmpdir, de->d_name);
			unlink(dir_path);
			strays++;
		}
		closedir(d);
		free(old);
		free(now);
	}
	print_message("  record: 20 kills in [%.2f, %.2f s]: %d left the old profile, %d a new one, "
		      "%d temporary files left\n", whole * 0.7, whole * 1.3, kept_old, wrote_new, strays);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_default_creds_allocate_no_cred),
		cmocka_unit_test(access_with_a_cleared_effective_cap_allocates_creds),
		cmocka_unit_test(access_with_at_eaccess_is_counted_and_needs_no_cred),
		cmocka_unit_test(exec_of_a_missing_path_fails_early_with_enoent),
		cmocka_unit_test(exec_of_an_existing_file_is_seen_allocating_an_mm),
		cmocka_unit_test(recording_a_command_counts_only_its_processes),
		cmocka_unit_test(sigterm_stops_a_recording_and_keeps_the_profile),
		cmocka_unit_test(pid_filter_counts_exactly_that_process),
		cmocka_unit_test(children_the_process_table_cannot_hold_are_reported_lost),
		cmocka_unit_test(comm_filter_counts_exactly_tasks_of_that_name),
		cmocka_unit_test(cgroup_filter_counts_exactly_tasks_in_that_cgroup_and_below),
		cmocka_unit_test(cgroup_and_comm_filters_must_both_match),
		cmocka_unit_test(command_killed_by_a_signal_is_told_apart),
		cmocka_unit_test(duration_stops_a_longer_command),
		cmocka_unit_test(lean_recordings_count_every_call_without_latency),
		cmocka_unit_test(lookup_counts_directory_checks_on_tmpfs),
		cmocka_unit_test(unavailable_families_explain_every_mode),
		cmocka_unit_test(check_self_test_answers_what_the_kernel_was_measured_to_do),
		cmocka_unit_test(check_json_carries_the_self_test_verdicts_and_counts),
		cmocka_unit_test(check_says_the_preemption_model_and_the_attach_order),
		cmocka_unit_test(verify_is_clean_on_the_access_and_exec_workloads),
		cmocka_unit_test(verify_reports_late_enoent_with_samples_from_the_ring_buffer),
		cmocka_unit_test(verify_writes_the_json_verdict_beside_the_text),
		cmocka_unit_test(record_killed_at_random_leaves_the_old_or_a_whole_new_profile),
	};

	return cmocka_run_group_tests_name("live", tests, probe_environment, cleanup);
}
