// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope compare BASE NEW: the command around src/compare.c. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "compare.h"
#include "statedir.h"
#include "util.h"

enum { OPT_ALLOW_MODE_MISMATCH = 0x400, OPT_TEST };

struct compare_cmd {
	struct output_opts out;
	const char *output;
	bool allow_mode_mismatch;
	enum stats_test test;
	const char *paths[2];
	int npaths;
};

static const struct argp_option compare_options[] = {
	{ "output", 'o', "FILE", 0, "Write to FILE instead of standard output", 0 },
	{ "allow-mode-mismatch", OPT_ALLOW_MODE_MISMATCH, 0, 0,
	  "Compare a family even when it attached with tracepoint on one side and "
	  "a function hook on the other", 0 },
	{ "test", OPT_TEST, "TEST", 0, "The significance test over runs: welch (default) or "
	  "mann-whitney", 0 },
	{ 0 },
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_ALLOW_MODE_MISMATCH:
		c->allow_mode_mismatch = true;
		break;
	case OPT_TEST:
		c->test = parse_test_arg(arg, state);
		break;
	case ARGP_KEY_ARG:
		if (c->npaths == 2)
			argp_error(state, "two profiles, BASE and NEW (got a third, '%s')", arg);
		c->paths[c->npaths++] = arg;
		break;
	case ARGP_KEY_END:
		if (c->npaths != 2)
			argp_error(state, "two profiles are needed, BASE and NEW");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* No -q (compare prints nothing but its output and errors), no -v (no BPF). */
static const struct argp_child compare_children[] = {
	{ &output_argp, 0, "Output:", 1 },
	{ 0 },
};

static const struct argp compare_argp = {
	compare_options, compare_parse, "BASE NEW",
	"Compare two profiles family by family, filesystem by filesystem, outcome "
	"by outcome: counts and rates side by side with delta and ratio, latency "
	"histograms as two bars a bucket with p50/p90/p99.\v"
	"A side merged from several runs ('permscope merge') shows mean±sd, and "
	"where both sides have two runs or more, Welch's t-test gives a p-value "
	"and a 95% confidence interval of the difference (JSON); with --test "
	"mann-whitney the p-value is the distribution-free Mann-Whitney U test's; '~' "
	"marks a difference that is not significant (p >= 0.05).  A family that attached "
	"with tracepoint on one side and fentry or kprobe on the other is refused "
	"unless --allow-mode-mismatch: " MODE_MISMATCH_WHY ".  fentry against "
	"kprobe (two kernels' defaults can differ) is compared with a warning: "
	MODE_COST_WHY ".\n\n"
	"Examples:\n"
	"  permscope compare stock.json patched.json\n"
	"  permscope compare base.json new.json --format html -o compare.html\n"
	"  permscope compare --test mann-whitney base-10-runs.json new-10-runs.json\n",
	compare_children, 0, 0,
};

int cmd_compare(int argc, char **argv)
{
	struct compare_cmd c = { .out.offered = FORMAT_BIT(FORMAT_HTML) };
	struct profile p[2];
	struct compare cmp = {0};
	char err[512], why[256], *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret = EXIT_OK;

	parse_command(&compare_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret;
	for (int i = 0; i < 2; i++)
		if (statedir_profile_read(c.paths[i], &p[i], err, sizeof(err))) {
			pr_err("%s: %s", c.paths[i], err);
			if (i)
				profile_free(&p[0]);
			return EXIT_USAGE;
		}
	for (int f = 0; f < FAMILY_COUNT; f++)
		switch (family_modes_match(&p[0], c.paths[0], &p[1], c.paths[1], f, why,
					   sizeof(why))) {
		case MODES_SAME:
			break;
		case MODES_SAME_CALLS:
			pr_warn("%s: " MODE_COST_WHY, why);
			break;
		case MODES_DIFFER:
			if (c.allow_mode_mismatch)
				break;
			pr_err("%s: " MODE_MISMATCH_WHY " (--allow-mode-mismatch compares anyway)", why);
			ret = EXIT_USAGE;
			goto out;
		}
	cmp.base = &p[0];
	cmp.new = &p[1];
	cmp.base_name = c.paths[0];
	cmp.new_name = c.paths[1];
	cmp.test = c.test;
	out = open_memstream(&buf, &len);
	if (!out || compare_build(&cmp)) {
		pr_err("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	if (c.out.format == FORMAT_JSON)
		compare_json(out, &cmp);
	else if (c.out.format == FORMAT_HTML)
		compare_html(out, &cmp);
	else
		compare_text(out, &cmp);
	fclose(out);
	ret = emit_output(c.output, buf, len);
out:
	free(buf);
	compare_free(&cmp);
	profile_free(&p[0]);
	profile_free(&p[1]);
	return ret;
}
