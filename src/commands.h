/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The `permscope COMMAND` entry points and what they share. */
#ifndef PERMSCOPE_COMMANDS_H
#define PERMSCOPE_COMMANDS_H

#include <argp.h>
#include <stdbool.h>

/* -q, -v and -j, accepted by every command; input: struct common_opts *. */
struct common_opts {
	bool json;
};
extern const struct argp common_argp;
/* argp children of a command whose only shared options are those. */
extern const struct argp_child common_children[];

/*
 * Parse a command's own arguments with argp, so that `--help` and errors
 * name it ("permscope record: ...").  argv[0] is the command's name.
 */
int parse_command(const struct argp *argp, int argc, char **argv, void *input);

/* Print a rendered document to stdout, or atomically to `path`. */
int emit_output(const char *path, const char *data, size_t len);

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);

#endif
