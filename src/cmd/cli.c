// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every command shares: common options, argument parsing, output. */
#include <argp.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/cgroup.h"
#include "cmd/commands.h"
#include "run/record.h"
#include "util.h"

/* ---- -q and -v ---------------------------------------------------------- */

static const struct argp_option quiet_options[] = {
	{ "quiet", 'q', 0, 0, "No progress, notes or summary: only errors, warnings and the "
	  "output asked for", 0 },
	{ 0 },
};

static const struct argp_option bpf_verbose_options[] = {
	{ "verbose", 'v', 0, 0, "Also print libbpf's log on stderr: why a mode did not load or "
	  "attach", 0 },
	{ 0 },
};

error_t verbosity_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	switch (key) {
	case 'q':
		verbosity = -1;
		break;
	case 'v':
		verbosity = 1;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp quiet_argp = { quiet_options, verbosity_parse, 0, 0, 0, 0, 0 };
const struct argp bpf_verbose_argp = { bpf_verbose_options, verbosity_parse, 0, 0, 0, 0, 0 };

/* ---- -j and --format ---------------------------------------------------- */

enum { OPT_FORMAT = 0x1000 };

static const char *const format_names[FORMAT_COUNT] = {
	[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_CSV] = "csv",
	[FORMAT_HTML] = "html", [FORMAT_OPENMETRICS] = "openmetrics",
};

static const struct argp_option output_options[] = {
	{ "format", OPT_FORMAT, "FORMAT", 0, "Print FORMAT: text (default) or json", 0 },
	{ "json", 'j', 0, 0, "Print JSON: the same as --format json", 0 },
	{ 0 },
};

static unsigned offered(const struct output_opts *o)
{
	return o->offered | FORMAT_BIT(FORMAT_TEXT) | FORMAT_BIT(FORMAT_JSON);
}

/* "text, json or csv", the formats `o` offers; "text (default), ..." for help. */
static void format_list(const struct output_opts *o, bool help, char *buf, size_t size)
{
	size_t off = 0;
	int n = 0, total = __builtin_popcount(offered(o));

	buf[0] = 0;
	for (int f = 0; f < FORMAT_COUNT && off < size; f++) {
		if (!(offered(o) & FORMAT_BIT(f)))
			continue;
		n++;
		off += snprintf(buf + off, size - off, "%s%s%s", n == 1 ? "" : n == total ? " or " : ", ",
				format_names[f], help && f == FORMAT_TEXT ? " (default)" : "");
	}
}

/*
 * The one rule for -j and --format, for every command: --format FORMAT
 * prints FORMAT, -j is --format json, and text is the default.  -j beside
 * a --format that names another format is refused: neither may win
 * silently over the other.
 */
static void output_format_resolve(struct output_opts *o, struct argp_state *state)
{
	if (o->json && o->given >= 0 && o->given != FORMAT_JSON)
		argp_error(state, "-j is --format json, but --format %s was given too (give one of "
			   "them)", format_names[o->given]);
	o->format = o->json ? FORMAT_JSON : o->given >= 0 ? (enum output_format)o->given : FORMAT_TEXT;
}

static error_t output_parse(int key, char *arg, struct argp_state *state)
{
	struct output_opts *o = state->input;
	char list[96];
	int f;

	switch (key) {
	case ARGP_KEY_INIT:
		o->json = false;
		o->given = -1;
		o->format = FORMAT_TEXT;
		break;
	case 'j':
		o->json = true;
		break;
	case OPT_FORMAT:
		for (f = 0; f < FORMAT_COUNT; f++)
			if ((offered(o) & FORMAT_BIT(f)) && !strcmp(arg, format_names[f]))
				break;
		if (f == FORMAT_COUNT) {
			format_list(o, false, list, sizeof(list));
			argp_error(state, "unknown format '%s' (expected %s)", arg, list);
		}
		o->given = f;
		break;
	case ARGP_KEY_END:
		output_format_resolve(o, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --format's help names the formats of the command at hand. */
static char *output_help(int key, const char *text, void *input)
{
	const struct output_opts *o = input;
	char list[96], *s;

	if (key != OPT_FORMAT || !o)
		return (char *)text;
	format_list(o, true, list, sizeof(list));
	if (asprintf(&s, "Print FORMAT: %s", list) < 0)
		return (char *)text;
	return s;
}

const struct argp output_argp = { output_options, output_parse, 0, 0, 0, output_help, 0 };

/* ---- families and modes ------------------------------------------------- */

void parse_families_arg(char *list, bool want[FAMILY_COUNT], struct argp_state *state)
{
	char *save = NULL, *tok;

	for (int f = 0; f < FAMILY_COUNT; f++)
		want[f] = false;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int f = family_by_name(tok);
		char names[128];

		if (!strcmp(tok, "all")) {
			for (f = 0; f < FAMILY_COUNT; f++)
				want[f] = true;
			continue;
		}
		if (f < 0)
			argp_error(state, "unknown family '%s' (expected %s, or all)", tok,
				   family_names_text(names, sizeof(names), "or"));
		want[f] = true;
	}
}

enum attach_mode parse_mode_arg(const char *name, struct argp_state *state)
{
	int m = mode_by_name(name);
	char names[128];

	if (m <= MODE_NONE)
		argp_error(state, "unknown mode '%s' (expected %s)", name,
			   mode_names_text(names, sizeof(names), "or"));
	return m;
}

enum stats_test parse_test_arg(const char *name, struct argp_state *state)
{
	int t = stats_test_parse(name);

	if (t < 0)
		argp_error(state, "invalid --test '%s' (one of " STATS_TEST_NAMES ")", name);
	return t;
}

/* ---- what to record: the options record and report share ------------- */

enum { OPT_FAMILIES = 0x100, OPT_MODE, OPT_CGROUP, OPT_LEAN };

static const struct argp_option record_options[] = {
	{ "duration", 'd', "SECONDS", 0,
	  "Stop after SECONDS (default: when CMD exits, or on Ctrl-C or SIGTERM)", 0 },
	{ "families", OPT_FAMILIES, "LIST", 0,
	  "Comma-separated families to record: " FAMILY_NAMES ", or all (the default)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Attach only in MODE, one of " MODE_NAMES " (default: the first that "
	  "works, in the order this kernel calls for: kprobe first where a BPF program can "
	  "be preempted, fentry first where not; 'permscope check' says which)", 0 },
	{ "pid", 'p', "PID", 0, "Count only process PID and its descendants", 0 },
	{ "comm", 'c', "NAME", 0, "Count only tasks whose command name is NAME", 0 },
	{ "cgroup", OPT_CGROUP, "PATH", 0,
	  "Count only tasks in the cgroup v2 directory PATH or in a cgroup below it.  "
	  "For a service, PATH is the cgroup2 mount followed by the output of "
	  "'systemctl show -p ControlGroup --value UNIT', e.g. "
	  "/sys/fs/cgroup/system.slice/UNIT.  "
	  "With --pid, --comm or a command, a task must match them all", 0 },
	{ "lean", OPT_LEAN, 0, 0,
	  "Leave out the detail that costs the most per event: access's and exec's "
	  "latency histograms (two clock reads a call), and lookup's program on "
	  "inode_permission(), a second hook on every full check, with the ip_calls, "
	  "no_lsm_check and first_check it counts.  They are then absent from the "
	  "profile and /metrics, never 0; every other count, the skips and the "
	  "violations among them, stays exact", 0 },
	{ 0 },
};


static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	char *end;
	long v;
	double d;

	switch (key) {
	case 'd':
		errno = 0;
		d = strtod(arg, &end);
		if (errno || *end || !(d > 0) || !isfinite(d) || d > 86400 * 365)
			argp_error(state, "invalid duration '%s' (expected seconds > 0)", arg);
		o->duration_s = d;
		break;
	case OPT_FAMILIES:
		parse_families_arg(arg, o->probe.want, state);
		break;
	case OPT_MODE:
		o->probe.only_mode = parse_mode_arg(arg, state);
		break;
	case OPT_LEAN:
		o->probe.lean = true;
		break;
	case 'p':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v <= 0 || v > 4194304)
			argp_error(state, "invalid pid '%s'", arg);
		o->pid = v;
		break;
	case 'c':
		if (!*arg || strlen(arg) >= sizeof(o->probe.comm))
			argp_error(state, "invalid command name '%s' (1 to 15 bytes, as in "
				   "/proc/PID/comm)", arg);
		memset(o->probe.comm, 0, sizeof(o->probe.comm));
		memcpy(o->probe.comm, arg, strlen(arg));
		o->probe.filter_comm = true;
		break;
	case OPT_CGROUP: {
		char why[2 * PATH_MAX + 256], *path;

		if (cgroup_resolve(arg, "/proc/self/mounts", &path, why, sizeof(why)))
			argp_error(state, "--cgroup %s: %s", arg, why);
		free((char *)o->probe.cgroup); /* given twice: the last one counts */
		o->probe.cgroup = path;
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp record_argp = { record_options, record_parse, 0, 0, 0, 0, 0 };

/*
 * The same options where -d means something else: report and the daemon
 * run no CMD, and verify stops after 5 s without one.  Only the help
 * differs, so the table is not copied; argp frees a text a help filter
 * returns in place of the one it got.
 */
static char *record_help_as(int key, const char *text, const char *duration, bool cmd)
{
	static const char with_cmd[] = ", --comm or a command,";
	const char *at;
	char *s = NULL;

	if (key == 'd')
		s = strdup(duration);
	else if (key == OPT_CGROUP && !cmd && text && (at = strstr(text, with_cmd)) &&
		 asprintf(&s, "%.*s or --comm,%s", (int)(at - text), text,
			  at + strlen(with_cmd)) < 0)
		s = NULL;
	return s ? s : (char *)text;
}

static char *report_record_help(int key, const char *text, void *input)
{
	(void)input;
	return record_help_as(key, text, "Record for SECONDS (default: 5)", false);
}

static char *verify_record_help(int key, const char *text, void *input)
{
	char *s;

	(void)input;
	if (key == OPT_LEAN && (s = strdup("Refused: verify judges from complete recordings")))
		return s;
	return record_help_as(key, text, "Stop after SECONDS (default: when CMD exits; "
			      "without CMD, after 5 s)", true);
}

static char *daemon_record_help(int key, const char *text, void *input)
{
	(void)input;
	return record_help_as(key, text, "Stop after SECONDS, as SIGTERM would (default: "
			      "run until SIGTERM or Ctrl-C)", false);
}

const struct argp report_record_argp = {
	record_options, record_parse, 0, 0, 0, report_record_help, 0,
};
const struct argp verify_record_argp = {
	record_options, record_parse, 0, 0, 0, verify_record_help, 0,
};
const struct argp daemon_record_argp = {
	record_options, record_parse, 0, 0, 0, daemon_record_help, 0,
};

/* ---- grouping ----------------------------------------------------------- */

error_t first_child_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	state->child_inputs[0] = state->input;
	return 0;
}

static const struct argp_child recording_output_children[] = {
	{ &output_argp, 0, 0, 0 },
	{ &quiet_argp, 0, 0, 0 },
	{ &bpf_verbose_argp, 0, 0, 0 },
	{ 0 },
};

const struct argp recording_output_argp = {
	0, first_child_parse, 0, 0, recording_output_children, 0, 0,
};

/* ---- running a command -------------------------------------------------- */

/*
 * argp and getopt print a usage error as two lines or three ("permscope
 * report: unrecognized option '--frob'", then "Try `permscope report
 * --help' or ..." folded), and exit with argp_err_exit_status (2) from
 * inside argp_parse().  Every other error is one "Error: " line, so while
 * argp parses, stderr (which getopt writes to, and which argp takes as its
 * err_stream) is a memory stream, and what was caught is printed as
 *
 *   Error: unrecognized option '--frob'; see 'permscope report --help'
 *
 * by an atexit() handler when argp exits, or as it was (a warning) when
 * parsing goes on.
 */
static struct {
	FILE *stream, *real;
	char *text;
	size_t len;
	const char *cmd; /* "permscope report" */
} caught;

/* getopt's short-option wording, in the long options' words. */
static void usage_error_line(const char *line, size_t len, const char *cmd)
{
	char opt;

	if (sscanf(line, "invalid option -- '%c'", &opt) == 1)
		fprintf(stderr, "Error: unrecognized option '-%c'", opt);
	else if (sscanf(line, "option requires an argument -- '%c'", &opt) == 1)
		fprintf(stderr, "Error: option '-%c' requires an argument", opt);
	else
		fprintf(stderr, "Error: %.*s", (int)len, line);
	fprintf(stderr, "; see '%s --help'\n", cmd);
}

static void caught_release(bool exiting)
{
	const char *text, *nl, *see;
	size_t prefix = strlen(caught.cmd);

	if (!caught.stream)
		return;
	fclose(caught.stream);
	caught.stream = NULL;
	stderr = caught.real;
	text = caught.text ? caught.text : "";
	see = strstr(text, "Try `");
	if (!exiting || !see) {
		fputs(text, stderr); /* no usage error: what a parser printed, as it was */
	} else {
		/* the first line that says what was wrong, without "permscope CMD: " */
		if (!strncmp(text, caught.cmd, prefix) && !strncmp(text + prefix, ": ", 2))
			text += prefix + 2;
		nl = strchr(text, '\n');
		if (text == see || !nl) /* only the "Try" line: argp_usage() */
			usage_error_line("wrong arguments", 15, caught.cmd);
		else
			usage_error_line(text, nl - text, caught.cmd);
	}
	free(caught.text);
	caught.text = NULL;
}

static void caught_at_exit(void)
{
	caught_release(true);
}

/*
 * Whether TOK is an option of ARGP (or of its children) that takes its
 * argument as the next word ("-o FILE", "--comm NAME"), so that a "-h"
 * after it is that argument, not a call for help.
 */
static bool takes_next_word(const struct argp *argp, const char *tok)
{
	for (const struct argp_option *o = argp->options; o && (o->name || o->key || o->doc); o++) {
		if (!o->arg || (o->flags & OPTION_ARG_OPTIONAL))
			continue;
		if (tok[1] != '-' && o->key > 0 && o->key < 0x100 && tok[1] == o->key && !tok[2])
			return true;
		if (tok[1] == '-' && o->name && !strcmp(tok + 2, o->name))
			return true;
	}
	for (const struct argp_child *c = argp->children; c && c->argp; c++)
		if (takes_next_word(c->argp, tok))
			return true;
	return false;
}

int parse_command(const struct argp *argp, int argc, char **argv, void *input)
{
	static bool registered;
	char name[64];
	char *saved = argv[0];
	int err;

	/* -h is --help in every command, as people type it; never an option's argument */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") && !(argv[i - 1][0] == '-' &&
						  takes_next_word(argp, argv[i - 1])))
			argv[i] = "--help";

	/* argp names the program after argv[0] in usage and error lines. */
	snprintf(name, sizeof(name), "permscope %s", argv[0]);
	argv[0] = name;
	caught.cmd = name;
	caught.real = stderr;
	caught.stream = open_memstream(&caught.text, &caught.len);
	if (caught.stream) {
		if (!registered)
			atexit(caught_at_exit);
		registered = true;
		stderr = caught.stream;
	}
	err = argp_parse(argp, argc, argv, 0, NULL, input);
	caught_release(false);
	argv[0] = saved;
	return err;
}

static const char *output_unusable(const char *path, const char *dir, char *why, size_t len)
{
	struct stat st;

	if (!*path)
		return "an empty file name";
	if (lstat(path, &st) == 0) {
		/*
		 * A symlink is refused: written through, it would let whoever
		 * planted it choose what a root permscope overwrites, and replaced
		 * (what write_file_atomic() would do), it would not be where the
		 * user meant the output to go.
		 */
		if (S_ISLNK(st.st_mode))
			return "a symbolic link (never followed or replaced; remove it, or name "
			       "the file it points to)";
		if (S_ISDIR(st.st_mode))
			return "a directory";
		if (!S_ISREG(st.st_mode))
			return "not a regular file (the output replaces it; remove it first)";
	}
	if (stat(dir, &st)) {
		snprintf(why, len, "directory %s: %s", dir, strerror(errno));
		return why;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a directory", dir);
		return why;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(why, len, "cannot create files in %s: %s", dir, strerror(errno));
		return why;
	}
	return NULL;
}

int check_output_path(const char *path)
{
	char *copy, why[PATH_MAX + 128];
	const char *bad;

	if (!path || !strcmp(path, "-"))
		return EXIT_OK;
	copy = strdup(path);
	if (!copy) {
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	bad = output_unusable(path, dirname(copy), why, sizeof(why));
	if (bad)
		pr_err("%s: cannot write there: %s", path, bad);
	free(copy);
	return bad ? EXIT_USAGE : EXIT_OK;
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
