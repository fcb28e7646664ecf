// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command line contract of the permscope binary: --help and --version,
 * bad usage and bad input give "Error: ..." and exit status 2, output files
 * are written whole.  Runs ./permscope (or $PERMSCOPE_BIN) without a shell.
 */
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "profile.h"

/* A small valid profile written through the real writer, access in mode `m`; its path. */
static const char *write_profile_as(const char *name, enum attach_mode m)
{
	const char *path = tmp_path(name);
	struct profile p;

	profile_init(&p);
	strcpy(p.kernel_release, "6.18.0-test");
	strcpy(p.hostname, "testhost");
	/* each mode's file its own recording (merge refuses one twice) */
	p.start_ns = (1700000000ULL + m) * 1000000000ULL;
	p.end_ns = p.start_ns + 5000000000ULL;
	p.fam[FAMILY_ACCESS].status = FAMILY_OK;
	p.fam[FAMILY_ACCESS].mode = m;
	p.access.calls[ACCESS_FAST] = 1000;
	p.access.latency[ACCESS_FAST].slots[9] = 1000; /* [512, 1024) ns */
	p.access.latency[ACCESS_FAST].count = 1000;
	p.access.latency[ACCESS_FAST].sum = 700000;
	p.fam[FAMILY_EXEC].status = FAMILY_NOT_REQUESTED;
	p.fam[FAMILY_LOOKUP].status = FAMILY_UNAVAILABLE;
	p.fam[FAMILY_LOOKUP].nattempts = 1;
	p.fam[FAMILY_LOOKUP].attempts[0].mode = MODE_FENTRY;
	p.fam[FAMILY_LOOKUP].attempts[0].err = 1;
	strcpy(p.fam[FAMILY_LOOKUP].attempts[0].why, "load: EPERM; refused here");
	assert_int_equal(profile_write(&p, path), 0);
	profile_free(&p);
	return path;
}

static const char *write_profile(void)
{
	return write_profile_as("good.json", MODE_TRACEPOINT);
}

static void version_and_help_succeed(void **state)
{
	(void)state;
	assert_int_equal(permscope("--version", NULL), 0);
	assert_contains(out_text, "permscope ");
	assert_contains(out_text, permscope_version());
	assert_int_equal(permscope("--help", NULL), 0);
	assert_contains(out_text, "record");
	assert_contains(out_text, "report");
	assert_int_equal(permscope("record", "--help", NULL), 0);
	assert_contains(out_text, "Usage: permscope record");
	assert_contains(out_text, "--duration");
	assert_contains(out_text, "--families");
	assert_int_equal(permscope("report", "--help", NULL), 0);
	assert_contains(out_text, "Usage: permscope report");
	assert_contains(out_text, "--format");
}

/* -q where there is progress or a note to silence, -v where BPF loads, -j where JSON prints. */
static void each_command_takes_only_the_common_options_that_mean_something_to_it(void **state)
{
	static const struct {
		const char *cmd;
		bool quiet, libbpf_log, json;
	} cmds[] = {
		{ "record", true, true, true },
		{ "report", true, true, true },
		{ "check", false, true, true },
		{ "merge", true, false, false },
		{ "compare", false, false, true },
		{ "gate", true, false, true },
		{ "daemon", true, true, false },
		{ "bench", true, false, true },
		{ "series", false, false, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(permscope(cmds[i].cmd, "--help", NULL), 0);
		if (cmds[i].quiet)
			assert_contains(out_text, "  -q, --quiet ");
		else
			assert_not_contains(out_text, "--quiet");
		if (cmds[i].libbpf_log)
			assert_contains(out_text, "  -v, --verbose              Also print libbpf's log");
		else
			assert_not_contains(out_text, "libbpf");
		if (cmds[i].json) {
			assert_contains(out_text, "  -j, --json ");
			assert_contains(out_text, "--format=FORMAT");
		} else {
			assert_not_contains(out_text, "--json");
			assert_not_contains(out_text, "--format");
		}
	}
	/* gate's -v shows where each rule came from: no BPF there */
	assert_int_equal(permscope("gate", "--help", NULL), 0);
	assert_contains(out_text, "  -v, --verbose              After each verdict line, print the "
			"rule");
	assert_int_equal(permscope("merge", "-j", "-o", "/nonexistent-dir/m.json", "x.json", NULL), 2);
	assert_contains(err_text, "Error: unrecognized option \'-j\'");
	assert_int_equal(permscope("merge", "-v", "-o", "/nonexistent-dir/m.json", "x.json", NULL), 2);
	assert_contains(err_text, "Error: unrecognized option \'-v\'");
	/* compare's -v prints the queries --prometheus sends: no BPF there either */
	assert_int_equal(permscope("compare", "--help", NULL), 0);
	assert_contains(out_text, "  -v, --verbose              With --prometheus, print each "
			"query sent");
	assert_int_equal(permscope("compare", "-q", "a.json", "b.json", NULL), 2);
	assert_contains(err_text, "Error: unrecognized option \'-q\'");
	assert_int_equal(permscope("check", "-q", NULL), 2);
	assert_contains(err_text, "Error: unrecognized option \'-q\'");
}

static void no_command_or_an_unknown_one_is_bad_usage(void **state)
{
	(void)state;
	assert_int_equal(permscope(NULL), 2);
	assert_contains(err_text, "Usage: permscope COMMAND");
	assert_int_equal(permscope("frobnicate", NULL), 2);
	assert_contains(err_text, "Error: unknown command 'frobnicate'");
}

static void bad_record_options_are_bad_usage(void **state)
{
	(void)state;
	assert_int_equal(permscope("record", "--mode", "uprobe", NULL), 2);
	assert_contains(err_text, "unknown mode 'uprobe'");
	assert_int_equal(permscope("record", "--families", "access,dcache", NULL), 2);
	assert_contains(err_text, "unknown family 'dcache'");
	assert_int_equal(permscope("record", "-d", "-1", NULL), 2);
	assert_contains(err_text, "invalid duration '-1'");
	assert_int_equal(permscope("record", "-d", "soon", NULL), 2);
	assert_int_equal(permscope("record", "--comm", "a-name-longer-than-15", NULL), 2);
	assert_contains(err_text, "invalid command name");
	assert_int_equal(permscope("record", "--pid", "12x", NULL), 2);
	assert_contains(err_text, "invalid pid '12x'");
	assert_int_equal(permscope("record", "--pid", "1", "--", "true", NULL), 2);
	assert_contains(err_text, "Error: --pid and a command exclude each other");
	assert_int_equal(permscope("record", "--no-such-option", NULL), 2);
}

/* The daemon refuses bad options before it attaches, binds or writes anything. */
static void bad_daemon_options_are_bad_usage(void **state)
{
	(void)state;
	assert_int_equal(permscope("daemon", "--interval", "0.01", NULL), 2);
	assert_contains(err_text, "invalid interval '0.01'");
	assert_int_equal(permscope("daemon", "--interval", "5s", NULL), 2);
	assert_int_equal(permscope("daemon", "--keep", "0", NULL), 2);
	assert_contains(err_text, "invalid --keep '0'");
	assert_int_equal(permscope("daemon", "--keep", "-3", NULL), 2);
	assert_int_equal(permscope("daemon", "--listen", "example.com:23649", NULL), 2);
	assert_contains(err_text, "Error: --listen example.com:23649:");
	assert_int_equal(permscope("daemon", "--web.listen-address", "127.0.0.1:http", NULL), 2);
	assert_contains(err_text, "Error: --listen 127.0.0.1:http: port 'http' is not a number");
	assert_int_equal(permscope("daemon", "--listen", "127.0.0.1", NULL), 2);
	assert_int_equal(permscope("daemon", "--listen", "127.0.0.1:99999", NULL), 2);
	assert_int_equal(permscope("daemon", "--state-dir", "", NULL), 2);
	assert_int_equal(permscope("daemon", "make", NULL), 2);
	assert_contains(err_text, "unexpected argument 'make'");
	assert_int_equal(permscope("daemon", "--families", "dcache", NULL), 2);
	assert_int_equal(permscope("daemon", "-j", NULL), 2);
	assert_int_equal(permscope("daemon", "--help", NULL), 0);
	assert_contains(out_text, "Usage: permscope daemon");
	assert_contains(out_text, "--state-dir=DIR");
	assert_contains(out_text, "127.0.0.1:23649");
}

/* A state directory with no snapshot yet is bad input for the commands that read profiles. */
static void a_state_dir_without_snapshots_is_bad_input(void **state)
{
	(void)state;
	assert_int_equal(permscope("report", tmpdir, NULL), 2);
	assert_contains(err_text, "a directory without snapshots");
}

/* --cgroup takes a cgroup v2 directory; anything else is bad input, said before loading. */
static void a_cgroup_that_is_no_cgroup_v2_directory_is_bad_usage(void **state)
{
	(void)state;
	assert_int_equal(permscope("record", "--cgroup", "/nonexistent-permscope-cgroup", "-d", "1",
				   NULL), 2);
	assert_contains(err_text, "Error: --cgroup /nonexistent-permscope-cgroup: no such directory");
	assert_int_equal(permscope("record", "--cgroup", "/proc", "-d", "1", NULL), 2);
	assert_contains(err_text, "--cgroup /proc: not a cgroup v2 directory");
	assert_int_equal(permscope("record", "--cgroup", "/proc/self/status", "-d", "1", NULL), 2);
	assert_contains(err_text, "--cgroup /proc/self/status: not a directory");
	assert_int_equal(permscope("record", "--cgroup", "", "-d", "1", NULL), 2);
	assert_contains(err_text, "an empty path (expected a cgroup v2 directory)");
	/* report takes the recording options too */
	assert_int_equal(permscope("report", "--cgroup", "/proc", NULL), 2);
	assert_contains(err_text, "Error: --cgroup /proc: not a cgroup v2 directory");
	assert_contains(err_text, "; see 'permscope report --help'\n");
	/* and --help teaches where a service's cgroup is */
	assert_int_equal(permscope("record", "--help", NULL), 0);
	assert_contains(out_text, "--cgroup=PATH");
	assert_contains(out_text, "systemctl show -p");
}

/* check tries families and modes: it neither lists nor takes record's other options. */
static void check_takes_only_families_and_mode(void **state)
{
	char want[256], names[128];
	(void)state;
	assert_int_equal(permscope("check", "--help", NULL), 0);
	assert_contains(out_text, "Usage: permscope check [OPTION...]\n");
	assert_contains(out_text, "--families=LIST        Comma-separated families to try");
	assert_contains(out_text, "--mode=MODE            Try only MODE");
	assert_not_contains(out_text, "--duration");
	assert_not_contains(out_text, "--pid");
	assert_not_contains(out_text, "--comm");
	assert_not_contains(out_text, "--cgroup");
	assert_not_contains(out_text, "ignored");
	assert_int_equal(permscope("check", "-d", "3", NULL), 2);
	assert_contains(err_text, "Error: unrecognized option \'-d\'");
	assert_int_equal(permscope("check", "--pid", "1", NULL), 2);
	assert_contains(err_text, "unrecognized option '--pid'");
	assert_int_equal(permscope("check", "--families", "access,dcache", NULL), 2);
	snprintf(want, sizeof(want), "unknown family 'dcache' (expected %s, or all)",
		 family_names_text(names, sizeof(names), "or"));
	assert_contains(err_text, want);
	assert_int_equal(permscope("check", "--mode", "uprobe", NULL), 2);
	assert_contains(err_text, "unknown mode 'uprobe' (expected fentry, kprobe or tracepoint)");
	assert_int_equal(permscope("check", "extra", NULL), 2);
	assert_contains(err_text, "unexpected argument 'extra'");
}

static void recording_a_process_that_does_not_exist_is_bad_input(void **state)
{
	(void)state;
	assert_int_equal(permscope("record", "--pid", "4194303", "-d", "1", NULL), 2);
	assert_contains(err_text, "Error: --pid 4194303: no such process");
}

static void unreadable_or_malformed_profiles_exit_2(void **state)
{
	const char *path;

	(void)state;
	assert_int_equal(permscope("report", "/nonexistent/p.json", NULL), 2);
	assert_contains(err_text, "Error: /nonexistent/p.json: cannot open:");
	path = write_tmp_file("trunc.json", "{\"format\": \"permscope-profile/1\", \"host\": {");
	assert_int_equal(permscope("report", path, NULL), 2);
	assert_contains(err_text, "not valid JSON");
	path = write_tmp_file("v2.json", "{\"format\": \"permscope-profile/2\"}");
	assert_int_equal(permscope("report", path, NULL), 2);
	assert_contains(err_text, "unsupported format \"permscope-profile/2\"");
	path = write_tmp_file("other.json", "[1, 2, 3]");
	assert_int_equal(permscope("report", path, NULL), 2);
	assert_contains(err_text, "expected a JSON object at the top");
}

static void report_rejects_options_that_do_not_fit(void **state)
{
	const char *path;

	(void)state;
	path = write_profile();
	assert_int_equal(permscope("report", path, "--format", "yaml", NULL), 2);
	assert_contains(err_text, "unknown format 'yaml'");
	assert_int_equal(permscope("report", path, "-d", "3", NULL), 2);
	assert_contains(err_text, "need no FILE");
	assert_int_equal(permscope("report", path, path, NULL), 2);
	assert_contains(err_text, "one profile at a time");
}

static void report_of_a_saved_profile_in_each_format(void **state)
{
	const char *path;

	(void)state;
	path = write_profile();
	assert_int_equal(permscope("report", path, NULL), 0);
	assert_contains(out_text, "permscope report: kernel 6.18.0-test on testhost");
	assert_contains(out_text, "fast                 1000  100.0%");
	assert_contains(out_text, "load: EPERM; refused here");
	assert_contains(out_text, "not requested (not in --families)");
	assert_int_equal(permscope("report", path, "--format", "json", NULL), 0);
	assert_contains(out_text, "\"format\": \"permscope-report/1\"");
	assert_int_equal(permscope("report", path, "-j", NULL), 0);
	assert_contains(out_text, "\"fast\": 1000");
	assert_int_equal(permscope("report", path, "--format", "csv", NULL), 0);
	assert_contains(out_text, "family,subject,metric,value\n");
	assert_contains(out_text, "access,fast,calls,1000\n");
}

/* -j is --format json in every command that prints JSON; -j against --format is refused. */
static void json_and_format_follow_one_rule_in_every_command(void **state)
{
	static const char *const cmds[] = { "report", "compare", "gate", "record", "check", "bench" };
	const char *path;

	(void)state;
	path = write_profile();
	assert_int_equal(permscope("report", path, "-j", "--format", "json", NULL), 0);
	assert_contains(out_text, "\"format\": \"permscope-report/1\"");
	assert_int_equal(permscope("compare", path, path, "-j", NULL), 0);
	assert_contains(out_text, "\"format\": \"permscope-compare/1\"");
	assert_int_equal(permscope("compare", path, path, "--format", "json", NULL), 0);
	assert_contains(out_text, "\"format\": \"permscope-compare/1\"");
	assert_int_equal(permscope("gate", "-b", path, "-n", path, "--format", "json", NULL), 3);
	assert_contains(out_text, "\"format\": \"permscope-gate/");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(permscope(cmds[i], "-j", "--format", "text", NULL), 2);
		assert_contains(err_text, "-j is --format json, but --format text was given too "
				"(give one of them)");
		assert_int_equal(permscope(cmds[i], "--format", "yaml", NULL), 2);
		assert_contains(err_text, "unknown format 'yaml'");
		assert_int_equal(permscope(cmds[i], "--help", NULL), 0);
		assert_contains(out_text, "--format=FORMAT        Print FORMAT: text (default)");
		assert_contains(out_text, "-j, --json                 Print JSON: the same as --format "
				"json");
	}
	assert_int_equal(permscope("report", path, "-j", "--format", "csv", NULL), 2);
	assert_contains(err_text, "-j is --format json, but --format csv was given too");
	assert_int_equal(permscope("compare", path, path, "--format", "html", "-j", NULL), 2);
	assert_contains(err_text, "-j is --format json, but --format html was given too");
	assert_int_equal(permscope("check", "--format", "csv", NULL), 2);
	assert_contains(err_text, "unknown format 'csv' (expected text or json)");
	assert_int_equal(permscope("gate", path, path, "--format", "html", NULL), 2);
	assert_contains(err_text, "unknown format 'html' (expected text or json)");
	/* report offers every format there is */
	assert_int_equal(permscope("report", path, "--format", "yaml", NULL), 2);
	assert_contains(err_text, "unknown format 'yaml' (expected text, json, csv, html or "
						 "openmetrics)");
	assert_int_equal(permscope("report", path, "--format", "html", NULL), 0);
	assert_contains(out_text, "<!DOCTYPE html>");
}

/* compare and merge refuse what gate gives no verdict on, in the same words. */
static void a_family_in_two_attach_modes_is_refused_unless_allowed(void **state)
{
	const char *tp, *fe, *merged;
	char msg[2048];

	(void)state;
	tp = write_profile();
	fe = write_profile_as("fentry.json", MODE_FENTRY);
	merged = tmp_path("merged.json");

	assert_int_equal(permscope("compare", tp, fe, NULL), 2);
	snprintf(msg, sizeof(msg), "Error: the access family attached with tracepoint in %s but "
		 "fentry in %s: an attach mode changes what a probe sees and costs "
		 "(--allow-mode-mismatch compares anyway)\n", tp, fe);
	assert_string_equal(err_text, msg);
	assert_string_equal(out_text, "");
	assert_int_equal(permscope("compare", tp, fe, "--allow-mode-mismatch", NULL), 0);
	assert_contains(out_text, "permscope compare");

	assert_int_equal(permscope("merge", tp, fe, "-o", merged, NULL), 2);
	snprintf(msg, sizeof(msg), "Error: the access family attached with tracepoint in %s but "
		 "fentry in %s: an attach mode changes what a probe sees and costs "
		 "(--allow-mode-mismatch merges anyway)\n", tp, fe);
	assert_string_equal(err_text, msg);
	assert_int_equal(access(merged, F_OK), -1);
	assert_int_equal(permscope("merge", "-q", tp, fe, "-o", merged, "--allow-mode-mismatch",
				   NULL), 0);
	assert_string_equal(err_text, "");
	assert_int_equal(access(merged, F_OK), 0);

	assert_int_equal(permscope("gate", "-b", tp, "-n", fe, NULL), 3);
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.unsafe  the access family attached with "
			"tracepoint in the base profile but fentry in the new profile "
			"(--allow-mode-mismatch judges anyway)\n");
}

/*
 * fentry against kprobe, what two kernels' defaults pair (kprobe where a
 * BPF program can be preempted): the same functions are hooked, so gate
 * judges the counts and compare compares them, saying that the latencies
 * do not compare; gate gives a latency rule no verdict; merge still wants
 * one mode.
 */
static void fentry_against_kprobe_compares_counts_not_latencies(void **state)
{
	const char *fe, *kp, *merged, *rules;
	char msg[2048];

	(void)state;
	fe = write_profile_as("fentry.json", MODE_FENTRY);
	kp = write_profile_as("kprobe.json", MODE_KPROBE);
	merged = tmp_path("merged-fk.json");
	rules = write_tmp_file("fk.rules", "access.unsafe == 0\n"
					    "access.avoidable_per_call <= base + 0.01\n"
					    "access.latency.p99 <= base * 1.5\n");

	assert_int_equal(permscope("compare", fe, kp, NULL), 0);
	snprintf(msg, sizeof(msg), "Warning: the access family attached with fentry in %s but "
		 "kprobe in %s: the same functions are hooked, so the counts compare; the "
		 "latencies do not, each includes its own mode's probe cost\n", fe, kp);
	assert_string_equal(err_text, msg);
	assert_contains(out_text, "permscope compare");

	assert_int_equal(permscope("gate", "-b", fe, "-n", kp, "-r", rules, NULL), 3);
	assert_contains(out_text, "PASS  access.unsafe  ");
	assert_contains(out_text, "PASS  access.avoidable_per_call  ");
	gate_unwrap();
	assert_contains(out_text, "NO-VERDICT  access.latency.p99  the access family attached "
			"with fentry in the base profile but kprobe in the new profile: each "
			"latency includes its own mode's probe cost (--allow-mode-mismatch judges "
			"anyway)\n");
	assert_contains(out_text, "gate: 2 passed, 0 failed, 1 without verdict");

	assert_int_equal(permscope("merge", fe, kp, "-o", merged, NULL), 2);
	assert_contains(err_text, "the access family attached with fentry in");
	assert_int_equal(access(merged, F_OK), -1);
}

static void report_output_file_is_written_whole_and_stdout_stays_empty(void **state)
{
	const char *path, *out = tmp_path("report.csv");
	char *text;

	(void)state;
	path = write_profile();
	assert_int_equal(permscope("report", path, "--format", "csv", "-o", out, NULL), 0);
	assert_string_equal(out_text, "");
	text = slurp(out, NULL);
	assert_non_null(text);
	assert_contains(text, "access,fast,calls,1000\n");
	free(text);
	/* a directory that is not there is bad usage, found before any work */
	assert_int_equal(permscope("report", path, "-o", "/nonexistent-dir/r.txt", NULL), 2);
	assert_contains(err_text, "Error: /nonexistent-dir/r.txt: cannot write there: directory "
			"/nonexistent-dir: No such file or directory\n");
}

static void a_command_that_cannot_run_is_bad_input(void **state)
{
	const char *out = tmp_path("never.json");

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: not root, the probes must attach before the command runs\n");
		skip();
	}
	assert_int_equal(permscope("record", "-q", "--families", "access", "-o", out, "--",
				   "/nonexistent/command", NULL), 2);
	assert_contains(err_text, "Error: cannot run '/nonexistent/command'");
	assert_int_equal(access(out, F_OK), -1);
}

/*
 * One meaning per short option across every command: each "-X, --long" of
 * every command's --help names the same --long everywhere; -h and
 * "permscope help COMMAND" give the command's help in every command.
 */
static void a_short_option_means_one_thing_in_every_command(void **state)
{
	char names[32][16], seen[128][48] = { { 0 } }, where[128][32] = { { 0 } };
	int n = permscope_commands(names, 32);

	(void)state;
	assert_true(n >= 10);
	for (int i = 0; i < n; i++) {
		char help[65536];

		assert_int_equal(permscope(names[i], "--help", NULL), 0);
		snprintf(help, sizeof(help), "%s", out_text);
		for (const char *line = help; line && *line;
		     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			unsigned char key;
			char name[48];
			size_t len;

			if (strncmp(line, "  -", 3) || line[4] != ',' || strncmp(line + 5, " --", 3))
				continue;
			key = line[3];
			len = strcspn(line + 8, "= \n");
			snprintf(name, sizeof(name), "%.*s", (int)len, line + 8);
			if (!seen[key][0]) {
				snprintf(seen[key], sizeof(seen[key]), "%s", name);
				snprintf(where[key], sizeof(where[key]), "%.15s", names[i]);
			} else if (strcmp(seen[key], name)) {
				fail_msg("-%c is --%s in %s but --%s in %s", key, seen[key], where[key],
					 name, names[i]);
			}
		}
		/* -h and help COMMAND: the same help, exit 0 */
		assert_int_equal(permscope(names[i], "-h", NULL), 0);
		assert_string_equal(out_text, help);
		assert_int_equal(permscope("help", names[i], NULL), 0);
		assert_string_equal(out_text, help);
	}
	assert_string_equal(seen['o'], "output");
	assert_string_equal(seen['p'], "pid");
	assert_string_equal(seen['r'], "rules");
	/* -h as an option's argument stays that argument */
	assert_int_equal(permscope("record", "--comm", "-h", "--list-families", NULL), 0);
	assert_int_equal(permscope("help", "nosuch", NULL), 2);
	assert_contains(err_text, "unknown command 'nosuch'");
}

/* compare takes --base and --new as gate does, and gate BASE NEW as compare does. */
static void both_ways_of_naming_the_two_sides_work_in_compare_and_gate(void **state)
{
	char base[PATH_MAX], new[PATH_MAX], want[1 << 16];

	(void)state;
	snprintf(base, sizeof(base), "%s/compare-access-base.json", testdata_dir());
	snprintf(new, sizeof(new), "%s/compare-access-new.json", testdata_dir());
	assert_int_equal(permscope("compare", base, new, NULL), 0);
	snprintf(want, sizeof(want), "%s", out_text);
	assert_int_equal(permscope("compare", "--base", base, "--new", new, NULL), 0);
	assert_string_equal(out_text, want);
	assert_int_equal(permscope("compare", "-n", new, base, NULL), 0);
	assert_string_equal(out_text, want);
	assert_int_equal(permscope("compare", "-b", base, new, new, NULL), 2);
	assert_contains(err_text, "BASE and NEW are given once");

	assert_int_equal(permscope("gate", "-b", base, "-n", new, NULL), 0);
	snprintf(want, sizeof(want), "%s", out_text);
	assert_int_equal(permscope("gate", base, new, NULL), 0);
	assert_string_equal(out_text, want);
	assert_int_equal(permscope("gate", base, new, new, NULL), 2);
	assert_contains(err_text, "BASE and NEW are given once");
	/* gate -o: what would be printed, in the file instead */
	assert_int_equal(permscope("gate", base, new, "-o", tmp_path("gate.txt"), NULL), 0);
	assert_string_equal(out_text, "");
	{
		char *text = slurp(tmp_path("gate.txt"), NULL);

		assert_non_null(text);
		assert_string_equal(text, want);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_and_help_succeed),
		cmocka_unit_test(each_command_takes_only_the_common_options_that_mean_something_to_it),
		cmocka_unit_test(no_command_or_an_unknown_one_is_bad_usage),
		cmocka_unit_test(bad_record_options_are_bad_usage),
		cmocka_unit_test(a_cgroup_that_is_no_cgroup_v2_directory_is_bad_usage),
		cmocka_unit_test(check_takes_only_families_and_mode),
		cmocka_unit_test(recording_a_process_that_does_not_exist_is_bad_input),
		cmocka_unit_test(unreadable_or_malformed_profiles_exit_2),
		cmocka_unit_test(report_rejects_options_that_do_not_fit),
		cmocka_unit_test(report_of_a_saved_profile_in_each_format),
		cmocka_unit_test(json_and_format_follow_one_rule_in_every_command),
		cmocka_unit_test(a_family_in_two_attach_modes_is_refused_unless_allowed),
		cmocka_unit_test(fentry_against_kprobe_compares_counts_not_latencies),
		cmocka_unit_test(report_output_file_is_written_whole_and_stdout_stays_empty),
		cmocka_unit_test(a_command_that_cannot_run_is_bad_input),
		cmocka_unit_test(bad_daemon_options_are_bad_usage),
		cmocka_unit_test(a_short_option_means_one_thing_in_every_command),
		cmocka_unit_test(both_ways_of_naming_the_two_sides_work_in_compare_and_gate),
		cmocka_unit_test(a_state_dir_without_snapshots_is_bad_input),
	};

	return cmocka_run_group_tests_name("cli", tests, tmpdir_setup, tmpdir_teardown);
}
