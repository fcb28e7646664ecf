// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every command shares: common options, argument parsing, output. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const struct argp_option common_options[] = {
	{ "quiet", 'q', 0, 0, "No progress, notes or summary: only errors and the output asked "
	  "for (the profile of record, the report of report)", -1 },
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

const struct argp_child common_children[] = {
	{ &common_argp, 0, "Output:", 1 },
	{ 0 },
};

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
			pr_err("writing to standard output failed: %s", strerror(errno));
			return EXIT_FAIL;
		}
		return EXIT_OK;
	}
	err = write_file_atomic(path, data, len, false);
	if (err) {
		pr_err("cannot write %s: %s", path, strerror(-err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

