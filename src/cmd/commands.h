/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The `permscope COMMAND` entry points and what they share. */
#ifndef PERMSCOPE_COMMANDS_H
#define PERMSCOPE_COMMANDS_H

#include <argp.h>
#include <stdbool.h>

#include <jansson.h>
#include <stdio.h>

#include "profile.h"
#include "prom/promsource.h"
#include "render.h"
#include "stats.h"

/*
 * The options commands share, each for the commands it means something to
 * (no input): -q for those that print progress or notes, -v for those that
 * load BPF programs (libbpf's log).
 */
extern const struct argp quiet_argp;
extern const struct argp bpf_verbose_argp;
/* Their parser (-q: verbosity -1, -v: 1), for a command's own -q/-v texts. */
error_t verbosity_parse(int key, char *arg, struct argp_state *state);

/* What a command can print (enum output_format, render.h): every command offers text and json. */
#define FORMAT_BIT(f) (1u << (f))

struct output_opts {
	unsigned offered;          /* FORMAT_BIT()s the command can print, set before parsing */
	enum output_format format; /* the format asked for, set when parsing ends */
	/* as given, for output_argp's parser */
	bool json;                 /* -j */
	int given;                 /* --format, -1 when not given */
};

/*
 * -j and --format FORMAT; input: struct output_opts *.  One rule for every
 * command (output_format_resolve in cli.c): --format FORMAT prints FORMAT,
 * -j is --format json, text is the default, and -j beside a --format that
 * names another format is bad usage.
 */
extern const struct argp output_argp;

/*
 * What to record (-d, --families, --mode, --pid, --comm), shared by record
 * and report; input: struct record_opts *.
 */
extern const struct argp record_argp;
/*
 * The same, with -d (and --cgroup) described for report (which records 5 s
 * when given no FILE), verify (5 s without CMD) and the daemon (no CMD).
 */
extern const struct argp report_record_argp;
extern const struct argp verify_record_argp;
extern const struct argp daemon_record_argp;

/*
 * Option arguments that name families and modes, for the argp parsers of
 * the commands that load probes: an unknown name is bad usage, with the
 * names that exist.  --families LIST sets want[] to exactly the families
 * in the comma-separated LIST (which strtok_r cuts up).
 */
void parse_families_arg(char *list, bool want[FAMILY_COUNT], struct argp_state *state);
enum attach_mode parse_mode_arg(const char *name, struct argp_state *state);
/* --test of compare and gate: "welch" or "mann-whitney" (stats.h). */
enum stats_test parse_test_arg(const char *name, struct argp_state *state);

/*
 * The parser of an argp that only groups others under one --help heading
 * (`{ 0, first_child_parse, 0, 0, children }`): it hands its input to its
 * first child.  Without a parser, argp would give the children no input.
 */
error_t first_child_parse(int key, char *arg, struct argp_state *state);
/* -j/--format, -q and -v (libbpf's log) for a command that records; input struct output_opts. */
extern const struct argp recording_output_argp;

/*
 * Parse a command's own arguments with argp, so that `--help` and errors
 * name it ("permscope record: ...").  argv[0] is the command's name.
 */
int parse_command(const struct argp *argp, int argc, char **argv, void *input);

/*
 * Why compare and merge refuse profiles whose families attached in different
 * modes (family_modes_differ() says which); --allow-mode-mismatch overrides.
 */
#define MODE_MISMATCH_WHY "an attach mode changes what a probe sees and costs"
/* fentry against kprobe (src/profile.h, enum mode_match) */
#define MODE_COST_WHY "the same functions are hooked, so the counts compare; the latencies " \
	"do not, each includes its own mode's probe cost"

/*
 * Before any work: whether an output file can go at `path` (NULL and "-",
 * standard output, always can).  EXIT_OK, or EXIT_USAGE after "Error: PATH:
 * cannot write there: WHY" (its directory is missing or not writable, or
 * PATH is a directory or a device, which the output would replace).
 */
int check_output_path(const char *path);

/* Print a rendered document to stdout, or atomically to `path`. */
int emit_output(const char *path, const char *data, size_t len);

/*
 * --prometheus URL and its options (src/cmd/cli_prometheus.c), shared by
 * compare and gate: each side the hosts a selector picks, each host one
 * run; input struct prom_source_opts *.  When parsing ends without URL,
 * url is NULL; with it, window, min_hosts and at (now when not given)
 * are set.
 */
struct prom_source_opts {
	const char *url, *window;
	double at;     /* the window's end, seconds since the epoch */
	int min_hosts;
	struct promclient_opts client; /* TLS and auth; url is set from url */
};
extern const struct argp prom_source_argp;

/* Both sides of a fleet comparison: base [0] and new [1]. */
struct prom_sides {
	const struct prom_source_opts *opts;
	const char *selector[2];
	struct promsource_side side[2];
};

/*
 * Read both sides, with each query printed when verbose.  EXIT_OK (the
 * sides may still not be judgeable), EXIT_USAGE for a selector, window or
 * client option that is none, EXIT_ENV when Prometheus did not answer,
 * each after its error is printed; only EXIT_OK leaves anything to free.
 */
int prom_sides_read(const struct prom_source_opts *o, const char *base, const char *new,
		    bool verbose, struct prom_sides *s);
bool prom_sides_judgeable(const struct prom_sides *s);
/* Each judgeable side as one profile of one run a host.  0 or -ENOMEM. */
int prom_sides_merge(const struct prom_sides *s, struct profile *base, struct profile *new);
void prom_sides_free(struct prom_sides *s);
/* Each reason as a line: PREFIX base|new SELECTOR: [host INSTANCE: ]REASON */
void prom_sides_print_reasons(FILE *f, const char *prefix, const struct prom_sides *s);
/*
 * Each host's losses (no reason: they are in its profile, for the rules):
 * PREFIX base|new SELECTOR: host INSTANCE lost N events (family F, program P)
 */
void prom_sides_print_losses(FILE *f, const char *prefix, const struct prom_sides *s);
/* "SELECTOR: 3 hosts (a, b, c), 5m to 2026-12-02T07:40:00Z" of side i */
void prom_side_text(const struct prom_sides *s, int i, char *buf, size_t size);
/*
 * Side i as JSON: prometheus, selector, window, at, hosts (each with its
 * reasons and losses), reasons
 */
json_t *prom_side_json(const struct prom_sides *s, int i);

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_series(int argc, char **argv);

#endif
