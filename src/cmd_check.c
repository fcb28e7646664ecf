// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope check: what can run on this kernel, and how struct cred is laid out. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "commands.h"
#include "credlayout.h"
#include "families.h"
#include "record.h"
#include "util.h"

enum { OPT_FAMILIES = 0x500, OPT_MODE };

struct check_cmd {
	struct record_opts rec; /* only .probe: which families, which modes */
	struct output_opts out;
};

static const struct argp_option check_options[] = {
	{ "families", OPT_FAMILIES, "LIST", 0,
	  "Comma-separated families to try: lookup,access,exec (default: all)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Try only MODE: fentry, kprobe or tracepoint (default: each in that order, up to "
	  "the first that works)", 0 },
	{ 0 },
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		break;
	case OPT_FAMILIES:
		parse_families_arg(arg, c->rec.probe.want, state);
		break;
	case OPT_MODE:
		c->rec.probe.only_mode = parse_mode_arg(arg, state);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -j/--format and -v (libbpf's log); check prints no progress for -q to silence. */
static const struct argp_child check_output_children[] = {
	{ &output_argp, 0, 0, 0 },
	{ &bpf_verbose_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp check_output_argp = {
	0, first_child_parse, 0, 0, check_output_children, 0, 0,
};

static const struct argp_child check_children[] = {
	{ &check_output_argp, 0, "Output:", 2 },
	{ 0 },
};

static const struct argp check_argp = {
	check_options, check_parse, 0,
	"Try to load and attach every probe family the way 'record' would, detach "
	"again, and read the layout of struct cred from the kernel's BTF.\v"
	"Exit status 0 when every family tried can attach, 1 when one cannot.\n\n"
	"Examples:\n"
	"  permscope check\n"
	"  permscope check --mode kprobe --json\n",
	check_children, 0, 0,
};

static json_t *layout_json(const struct cred_layout *l)
{
	json_t *fields = json_object();

	for (int f = 0; f < CRED_FIELDS; f++)
		json_object_set_new(fields, cred_field_names[f], l->offset[f] < 0 ? json_null() :
			json_pack("{s:i,s:i}", "offset", l->offset[f], "line", l->offset[f] / CACHELINE));
	return json_pack("{s:i,s:i,s:o,s:b,s:b}", "size", l->size, "cacheline", CACHELINE,
			 "fields", fields, "usage_shares_line_with_uid", l->usage_shares_uid_line,
			 "usage_shares_line_with_readers", l->usage_shares_reader_lines);
}

static void layout_text(const struct cred_layout *l)
{
	printf("\nstruct cred (%d bytes), offsets in bytes [cacheline]:\n ", l->size);
	for (int f = 0; f < CRED_FIELDS; f++)
		if (l->offset[f] >= 0)
			printf(" %s %d [%d]", cred_field_names[f], l->offset[f], l->offset[f] / CACHELINE);
	printf("\n  usage shares a cacheline with uid: %s; with any of uid..securebits: %s\n",
	       l->usage_shares_uid_line ? "yes" : "no", l->usage_shares_reader_lines ? "yes" : "no");
}

int cmd_check(int argc, char **argv)
{
	struct check_cmd c;
	struct family_result res[FAMILY_COUNT] = {0};
	struct cred_layout layout;
	struct utsname u;
	char err[256];
	bool all = true, have_layout;
	json_t *fams;

	record_opts_init(&c.rec);
	memset(&c.out, 0, sizeof(c.out));
	parse_command(&check_argp, argc, argv, &c);
	uname(&u);
	if (ensure_tracefs())
		pr_warn("tracefs is not mounted at /sys/kernel/tracing and mounting it failed");
	families_init_logging();
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!c.rec.probe.want[f])
			continue;
		family_stop(family_start(f, &c.rec.probe, &res[f]));
		all &= res[f].status == FAMILY_OK;
	}
	have_layout = cred_layout_read(NULL, &layout, err, sizeof(err)) == 0;
	if (!have_layout)
		pr_warn("%s", err);

	if (c.out.format == FORMAT_JSON) {
		fams = json_object();
		for (int f = 0; f < FAMILY_COUNT; f++) {
			json_t *attempts = json_array();

			for (int i = 0; i < res[f].nattempts; i++)
				json_array_append_new(attempts, json_pack("{s:s,s:i,s:s}",
					"mode", mode_name(res[f].attempts[i].mode),
					"errno", res[f].attempts[i].err, "why", res[f].attempts[i].why));
			json_object_set_new(fams, family_name(f), json_pack("{s:s,s:o}", "mode",
				family_state_name(&res[f]),
				"attempts", attempts));
		}
		json_t *root = json_pack("{s:s,s:s,s:s,s:o,s:o}", "format", "permscope-check/1",
					 "kernel", u.release, "machine", u.machine, "families", fams,
					 "cred_layout", have_layout ? layout_json(&layout) : json_null());
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(root);
	} else {
		printf("permscope check: kernel %s (%s)\n", u.release, u.machine);
		for (int f = 0; f < FAMILY_COUNT; f++) {
			if (res[f].status == FAMILY_NOT_REQUESTED)
				continue;
			printf("  %-7s %s\n", family_name(f), family_state_text(&res[f]));
			for (int i = 0; i < res[f].nattempts; i++)
				printf("          %-10s %s\n", mode_name(res[f].attempts[i].mode),
				       res[f].attempts[i].why);
		}
		if (have_layout)
			layout_text(&layout);
	}
	return all ? EXIT_OK : EXIT_FAIL;
}
