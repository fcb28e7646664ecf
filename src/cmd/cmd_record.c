// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope record: the command around the recording engine of src/run/record.c. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "probe/attach.h"
#include "run/record.h"
#include "render.h"
#include "util.h"

struct record_cmd {
	struct record_opts rec;
	struct output_opts out;
	const char *output;
	bool list_families;
};

enum { OPT_LIST_FAMILIES = 0x500 };

static const struct argp_option record_cmd_options[] = {
	{ "output", 'o', "FILE", 0, "Write the profile to FILE, permscope.json by default", 0 },
	{ "list-families", OPT_LIST_FAMILIES, 0, 0, "Print the families --families takes, one a "
	  "line, and exit (for scripts: no family list written twice)", 0 },
	{ 0 },
};

static error_t record_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct record_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->rec;
		state->child_inputs[1] = &c->out;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_LIST_FAMILIES:
		c->list_families = true;
		break;
	case ARGP_KEY_ARGS:
		c->rec.command = state->argv + state->next;
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child record_cmd_children[] = {
	{ &record_argp, 0, "What to record:", 1 },
	{ &recording_output_argp, 0, "Output:", 2 },
	{ 0 },
};

static const struct argp record_cmd_argp = {
	record_cmd_options, record_cmd_parse, "[-- CMD [ARGS...]]",
	"Attach the probe families (" FAMILY_NAMES "), then run CMD and its "
	"children (or watch the whole machine for --duration seconds, or until "
	"Ctrl-C), and write what they counted to a profile.\v"
	"Each family attaches in the first mode of " MODE_NAMES " that works here, "
	"in the order this kernel calls for ('permscope check' says which), and the "
	"profile says which it took; a family that cannot attach is "
	"listed as unavailable with the reason, and the others still record.\n\n"
	"Examples:\n"
	"  permscope record -d 10                 the whole machine for 10 s\n"
	"  permscope record -o build.json -- make -j2\n"
	"  permscope record --families access --pid 1234 -d 5\n"
	"  permscope record --cgroup /sys/fs/cgroup/system.slice/nginx.service -d 60\n"
	"  permscope record --list-families     " FAMILY_NAMES ", one a line\n"
	"  permscope report build.json            read it back\n",
	record_cmd_children, 0, 0,
};

int cmd_record(int argc, char **argv)
{
	struct record_cmd c = { .output = "permscope.json" };
	struct profile p;
	int ret, err;

	record_opts_init(&c.rec);
	parse_command(&record_cmd_argp, argc, argv, &c);
	if (c.list_families && c.rec.command) {
		pr_err("--list-families prints the families and runs no command");
		return EXIT_USAGE;
	}
	if (c.list_families) {
		/* needs no privilege and loads nothing: the schema's families, in its order */
		for (int f = 0; f < FAMILY_COUNT; f++)
			printf("%s\n", family_name(f));
		return fflush(stdout) || ferror(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	if (c.rec.pid && c.rec.command) {
		pr_err("--pid and a command exclude each other (the command's own pid is followed)");
		return EXIT_USAGE;
	}
	/* bad usage before missing privileges: neither depends on the other */
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret; /* before recording: a profile that cannot be written is lost work */
	if (!families_may_load("record", NULL))
		return EXIT_FAIL; /* before CMD is started */
	ret = record_run(&c.rec, &p);
	if (ret != EXIT_OK) {
		profile_free(&p);
		return ret;
	}
	err = profile_write(&p, c.output);
	if (err) {
		pr_err("cannot write profile %s: %s", c.output, strerror(-err));
		profile_free(&p);
		return EXIT_FAIL;
	}
	if (c.out.format == FORMAT_JSON)
		render_json(stdout, &p);
	else if (verbosity >= 0)
		render_text(stdout, &p, false); /* -q: the profile file is the only output */
	fflush(stdout); /* the summary before the note, also when piped */
	pr_info("\nProfile written to %s; 'permscope report %s' shows the histograms.",
	     c.output, c.output);
	if (p.command && p.exit_status < 0)
		pr_warn("the recording ended before the command did: it was stopped, counts "
		     "cover only what it did until then");
	else if (p.command && p.exit_status > 128)
		pr_warn("the command was killed by signal %d", p.exit_status - 128);
	else if (p.command && p.exit_status)
		pr_warn("the command failed with status %d", p.exit_status);
	profile_free(&p);
	return EXIT_OK;
}
