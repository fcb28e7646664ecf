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

#include "commands.h"
#include "util.h"

const char *argp_program_version = "permscope " PERMSCOPE_VERSION;
const char *argp_program_bug_address = "the permscope issue tracker";

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "attach the probes, run a command or wait, write a profile" },
	{ "report", cmd_report, "per-filesystem skip report from a profile (or 5 s of this machine)" },
};

static const struct argp_option common_options[] = {
	{ "quiet", 'q', 0, 0, "Print only results and errors", -1 },
	{ "verbose", 'v', 0, 0, "Explain more, including libbpf's log", -1 },
	{ "json", 'j', 0, 0, "Print JSON instead of text", -1 },
	{ 0 },
};

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct common_opts *c = state->input;

	(void)arg;
	switch (key) {
	case 'q':
		verbosity = -1;
		break;
	case 'v':
		verbosity = 1;
		break;
	case 'j':
		if (c)
			c->json = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp common_argp = { common_options, common_parse, 0, 0, 0, 0, 0 };

int parse_command(const struct argp *argp, int argc, char **argv, void *input)
{
	char name[64];
	char *saved = argv[0];
	int err;

	/* argp names the program after argv[0] in usage and error lines. */
	snprintf(name, sizeof(name), "permscope %s", argv[0]);
	argv[0] = name;
	err = argp_parse(argp, argc, argv, 0, NULL, input);
	argv[0] = saved;
	return err;
}

int emit_output(const char *path, const char *data, size_t len)
{
	int err;

	if (!path || !strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			error("writing to standard output failed: %s", strerror(errno));
			return EXIT_FAIL;
		}
		return EXIT_OK;
	}
	err = write_file_atomic(path, data, len, false);
	if (err) {
		error("cannot write %s: %s", path, strerror(-err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

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
		"  permscope report                      record 5 s of this machine, print the report\n"
		"  permscope record -o p.json -- make -j2  record a command and its children\n"
		"  permscope report p.json --format json   the report of a saved profile, as JSON\n"
		"\n'permscope COMMAND --help' explains a command.  Exit status: 0 success,\n"
		"1 the job failed, 2 bad usage or bad input.\n");
}

int main(int argc, char **argv)
{
	argp_err_exit_status = EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("%s\n", argp_program_version);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	error("unknown command '%s' (try 'permscope --help')", argv[1]);
	return EXIT_USAGE;
}
