// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Live tests of running without the privileges BPF needs: `record`,
 * `daemon` and `check`, as nobody and as root with every capability
 * dropped, each refuse with one error that names the missing capabilities
 * and how to run, exit 1 (the job could not run, as when no family
 * attaches), write nothing, and leave no BPF program or link behind
 * (`bpftool prog show` and `bpftool link show` before and after).
 *
 * Needs root (setpriv changes uid and drops capabilities) and util-linux's
 * setpriv; where either is missing the tests say so and are skipped.
 */
#include <glob.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define SETPRIV "/usr/bin/setpriv"
#define REFUSAL "Error: no privileges to load BPF: run as root, or with CAP_BPF and CAP_PERFMON " \
		"(this process lacks both): sudo permscope "

static char skip_all[512]; /* why no live test can run here, or "" */
static const char *bpftool;

/* The two ways of lacking the privileges, as setpriv's options. */
static const char *const as_nobody[] = { "--reuid=nobody", "--regid=nogroup", "--clear-groups",
					 "--inh-caps=-all", NULL };
static const char *const as_root_without_caps[] = { "--bounding-set=-all", "--inh-caps=-all",
						    NULL };

/*
 * `bpftool -j WHAT show`: the ids of the objects (progs or links), each with
 * the pids that hold it open ("" when none does: pinned, or left behind).
 */
static json_t *bpf_objects(const char *what)
{
	char *argv[] = { (char *)bpftool, "-j", (char *)what, "show", NULL };
	json_error_t jerr;
	json_t *list;

	assert_int_equal(run_capture(argv), 0);
	list = json_loads(out_text, 0, &jerr);
	if (!json_is_array(list))
		fail_msg("bpftool -j %s show: not a JSON array: %s", what, jerr.text);
	return list;
}

static bool listed(json_t *list, json_int_t id)
{
	size_t i;
	json_t *o;

	json_array_foreach(list, i, o)
		if (json_integer_value(json_object_get(o, "id")) == id)
			return true;
	return false;
}

/* Whether object O (a prog or link, WHAT) is held open: bpf_object_held(). */
static bool held_by(const char *what, json_t *o, pid_t pid)
{
	return bpf_object_held(what, json_integer_value(json_object_get(o, "id")), pid);
}

/*
 * Nothing in AFTER that was not in BEFORE stays without a live holder: an
 * object the refused run (exited now) made would be held by no process.
 * Objects another live process holds are someone else's (a test beside us).
 * "Held" is by a descriptor of the object itself or of a link to it.
 */
static void nothing_left(const char *what, json_t *before, json_t *after)
{
	size_t i;
	json_t *o;

	json_array_foreach(after, i, o) {
		json_int_t id = json_integer_value(json_object_get(o, "id"));

		if (listed(before, id) || held_by(what, o, 0))
			continue;
		print_error("bpftool %s show: id %lld is new and held by no process:\n", what,
			    (long long)id);
		fail_msg("%s", json_dumps(o, JSON_COMPACT));
	}
}

/* setpriv OPTS... permscope ARGS...: its exit status, output in out_text and err_text. */
static int permscope_without(const char *const *opts, const char *const *args)
{
	char *argv[32];
	int n = 0;

	argv[n++] = SETPRIV;
	for (; *opts; opts++)
		argv[n++] = (char *)*opts;
	argv[n++] = "--";
	argv[n++] = (char *)permscope_bin();
	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return run_capture(argv);
}

/*
 * permscope ARGS (ARGS[0] the command) run with OPTS refuses as specified,
 * and the BPF objects before and after show nothing of its left.
 */
static void refuses_and_leaves_nothing(const char *const *opts, const char *const *args)
{
	json_t *progs = bpf_objects("prog"), *links = bpf_objects("link"), *now;
	char want[256], *refusal;
	int status;

	status = permscope_without(opts, args);
	print_message("  setpriv %s ... permscope %s: exit %d\n  %s", opts[0], args[0], status,
		      err_text);
	snprintf(want, sizeof(want), REFUSAL "%s", args[0]);
	assert_int_equal(status, 1);
	assert_string_equal(out_text, "");
	assert_contains(err_text, want);
	assert_int_equal(strchr(err_text, '\n') - err_text + 1, strlen(err_text)); /* one line */
	refusal = strdup(err_text);
	nothing_left("prog", progs, now = bpf_objects("prog"));
	json_decref(now);
	nothing_left("link", links, now = bpf_objects("link"));
	json_decref(now);
	free(err_text);
	err_text = refusal; /* for the caller's own checks */
	json_decref(progs);
	json_decref(links);
}

static void skip_unless_setpriv(void)
{
	skip_unless_live(skip_all);
	if (access(SETPRIV, X_OK)) {
		print_message("skipped: no %s (util-linux)\n", SETPRIV);
		skip();
	}
}

/* record writes no profile and never starts its command. */
static void record_without_privileges(const char *const *opts)
{
	const char *out = tmp_path("unprivileged.json"), *ran = tmp_path("ran");
	const char *args[] = { "record", "-o", out, "--", "/usr/bin/touch", ran, NULL };

	skip_unless_setpriv();
	chmod(tmpdir, 0777); /* so nobody could write there, and the test sees it did not */
	refuses_and_leaves_nothing(opts, args);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(access(ran, F_OK), -1);
}

/* daemon makes no state directory and serves nothing. */
static void daemon_without_privileges(const char *const *opts)
{
	const char *dir = tmp_path("state");
	const char *args[] = { "daemon", "--state-dir", dir, "--listen", "127.0.0.1:0", "-d", "5",
			       NULL };

	skip_unless_setpriv();
	chmod(tmpdir, 0777);
	refuses_and_leaves_nothing(opts, args);
	assert_int_equal(access(dir, F_OK), -1);
}

/* check says what does work without (--btf). */
static void check_without_privileges(const char *const *opts)
{
	const char *args[] = { "check", NULL };

	skip_unless_setpriv();
	refuses_and_leaves_nothing(opts, args);
	assert_contains(err_text, "'permscope check --btf /sys/kernel/btf/vmlinux' reads the "
			"layout without");
}

static void record_as_nobody_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	record_without_privileges(as_nobody);
}

static void record_as_root_without_capabilities_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	record_without_privileges(as_root_without_caps);
}

static void daemon_as_nobody_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	daemon_without_privileges(as_nobody);
}

static void daemon_as_root_without_capabilities_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	daemon_without_privileges(as_root_without_caps);
}

static void check_as_nobody_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	check_without_privileges(as_nobody);
}

static void check_as_root_without_capabilities_refuses_and_leaves_nothing(void **state)
{
	(void)state;
	check_without_privileges(as_root_without_caps);
}

/* With CAP_BPF alone (no CAP_PERFMON), the error names the one that is missing. */
static void one_capability_missing_is_named(void **state)
{
	const char *const opts[] = { "--bounding-set=-all,+bpf,+syslog", "--inh-caps=-all", NULL };
	const char *args[] = { "record", "-o", tmp_path("perfmon.json"), "-d", "1", NULL };

	(void)state;
	skip_unless_setpriv();
	assert_int_equal(permscope_without(opts, args), 1);
	assert_contains(err_text, "(this process lacks CAP_PERFMON): sudo permscope record");
}

/*
 * The positive control: bpftool does see a privileged recording's programs,
 * held by its pid, while it runs, and none of them once it has exited.
 */
static void bpftool_sees_a_privileged_recording_and_nothing_after(void **state)
{
	char *argv[] = { (char *)permscope_bin(), "record", "-d", "3", "--families", "access,exec",
			 "-o", (char *)tmp_path("privileged.json"), NULL };
	const char *err = tmp_path("privileged.stderr");
	json_t *during, *after, *o;
	int held = 0;
	size_t i;
	pid_t pid;

	(void)state;
	skip_unless_live(skip_all);
	pid = spawn_to(argv, "/dev/null", err);
	for (int i = 0; i < 200; i++) {
		char *text = slurp(err, NULL);
		bool up = text && strstr(text, "Recording (");

		free(text);
		if (up)
			break;
		usleep(50000);
	}
	during = bpf_objects("prog");
	json_array_foreach(during, i, o)
		held += held_by("prog", o, pid);
	print_message("  during the recording: %d BPF programs held by permscope (pid %d)\n", held,
		      (int)pid);
	assert_int_equal(wait_exit_status(pid), 0);
	assert_true(held > 0);
	after = bpf_objects("prog");
	json_array_foreach(during, i, o)
		if (held_by("prog", o, pid) && listed(after, json_integer_value(json_object_get(o, "id"))))
			fail_msg("program %s is still loaded after the recording",
				 json_dumps(o, JSON_COMPACT));
	json_decref(during);
	json_decref(after);
}

static int probe_environment(void **state)
{
	static const char *const paths[] = { "/usr/sbin/bpftool", "/sbin/bpftool",
					     "/usr/bin/bpftool" };

	(void)state;
	if (live_skip_reason(skip_all, sizeof(skip_all), permscope_bin()))
		return -1;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !bpftool; i++)
		if (!access(paths[i], X_OK))
			bpftool = paths[i];
	if (!skip_all[0] && !bpftool)
		snprintf(skip_all, sizeof(skip_all), "no bpftool to list BPF programs and links");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bpftool_sees_a_privileged_recording_and_nothing_after),
		cmocka_unit_test(record_as_nobody_refuses_and_leaves_nothing),
		cmocka_unit_test(record_as_root_without_capabilities_refuses_and_leaves_nothing),
		cmocka_unit_test(daemon_as_nobody_refuses_and_leaves_nothing),
		cmocka_unit_test(daemon_as_root_without_capabilities_refuses_and_leaves_nothing),
		cmocka_unit_test(check_as_nobody_refuses_and_leaves_nothing),
		cmocka_unit_test(check_as_root_without_capabilities_refuses_and_leaves_nothing),
		cmocka_unit_test(one_capability_missing_is_named),
	};

	return cmocka_run_group_tests_name("live-privilege", tests, probe_environment,
					   tmpdir_teardown);
}
