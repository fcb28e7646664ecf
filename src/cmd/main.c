// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope: observe and verify the kernel's permission-check and credential
 * fast paths.  `permscope COMMAND [OPTIONS]`, in the manner of bpftool.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util.h"
#include "version.h"

/* `permscope COMMAND --version` (argp's -V) prints what `permscope --version` does. */
static void print_version(FILE *out, struct argp_state *state)
{
	(void)state;
	version_print(out, false);
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;
/*
 * The Makefile's BUG_URL: the issue tracker of the repository this was
 * built from, when its origin is on GitHub or GitLab; empty otherwise (a
 * tarball, another host), and then the README says where.  No address is
 * made up here: a wrong one would lose the report.
 */
#ifndef PERMSCOPE_BUG_URL
#define PERMSCOPE_BUG_URL ""
#endif
#define BUG_ADDRESS (PERMSCOPE_BUG_URL[0] ? PERMSCOPE_BUG_URL : \
	"where README.md's\n'Reporting bugs' says (/usr/share/doc/permscope/README.md)")

const char *argp_program_bug_address = BUG_ADDRESS;

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "attach the probes, run a command or wait, write a profile" },
	{ "report", cmd_report, "per-filesystem skip report from a profile (or 5 s of this machine)" },
	{ "check", cmd_check, "which families can attach here, and struct cred's cacheline layout" },
	{ "verify", cmd_verify, "record, and fail if a fast path broke an invariant (with samples)" },
	{ "merge", cmd_merge, "several recordings of one workload as one profile of runs" },
	{ "compare", cmd_compare, "two profiles side by side, with statistics over runs" },
	{ "gate", cmd_gate, "pass or fail a new profile against a base profile by rules, for CI" },
	{ "daemon", cmd_daemon, "probe service: snapshots into a state dir, Prometheus /metrics" },
	{ "bench", cmd_bench, "the fast paths' microbenchmarks, fast vs forced slow path" },
	{ "series", cmd_series, "a patch series (an mbox, a directory) as its patches, in order" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: permscope COMMAND [OPTIONS]\n"
		"Observe and verify the Linux permission-check and credential fast paths\n"
		"with CO-RE BPF probes (run as root).\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\nExamples:\n"
		"  permscope report                         record 5 s of this machine, report\n"
		"  permscope record -o p.json -- make -j2   record a command and its children\n"
		"  permscope report p.json --format json    a saved profile's report as JSON\n"
		"\n'permscope help COMMAND' (or 'permscope COMMAND --help', or -h) explains a\n"
		"command; 'man permscope' is the manual.\n"
		"Exit status: 0 success, 1 the job failed, 2 bad usage or bad input; gate\n"
		"adds 3 (a rule had no verdict) and 4 (its environment failed: out of\n"
		"memory, an unwritable file); verify exits 1 when an invariant broke, 3 when\n"
		"it could not judge.\n\nReport bugs to %s.\n", BUG_ADDRESS);
}

int main(int argc, char **argv)
{
	argp_err_exit_status = EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* permscope help COMMAND: the command's own --help, as git and systemctl do it */
	if (!strcmp(argv[1], "help") && argc == 3) {
		char *help[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].run(2, help);
		pr_err("unknown command '%s' (try 'permscope --help')", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 3) {
		pr_err("help takes one command, not '%s'", argv[3]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		bool json = argc > 2 && (!strcmp(argv[2], "--json") || !strcmp(argv[2], "-j"));

		if (argc > 2 + json) {
			pr_err("--version takes --json alone, not '%s'", argv[2 + json]);
			return EXIT_USAGE;
		}
		version_print(stdout, json);
		return fflush(stdout) || ferror(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	pr_err("unknown command '%s' (try 'permscope --help')", argv[1]);
	return EXIT_USAGE;
}
