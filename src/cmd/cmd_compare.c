// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope compare BASE NEW: the command around src/compare.c.  BASE and
 * NEW are profiles, or with --prometheus the selectors of two sets of hosts
 * (src/cmd/cli_prometheus.c), each host one run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "compare.h"
#include "statedir.h"
#include "util.h"

enum { OPT_ALLOW_MODE_MISMATCH = 0x400, OPT_TEST };

struct compare_cmd {
	struct output_opts out;
	struct prom_source_opts src;
	const char *output;
	bool allow_mode_mismatch, verbose;
	enum stats_test test;
	const char *paths[2]; /* profiles, or selectors with --prometheus */
	int npaths;
	const char *named[2]; /* --base and --new, as gate takes them */
};

static const struct argp_option compare_options[] = {
	{ "base", 'b', "BASE", 0, "The base profile, as gate names it (or the first argument)",
	  0 },
	{ "new", 'n', "NEW", 0, "The new profile, as gate names it (or the second argument)", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE instead of standard output", 0 },
	{ "allow-mode-mismatch", OPT_ALLOW_MODE_MISMATCH, 0, 0,
	  "Compare a family even when it attached with tracepoint on one side and "
	  "a function hook on the other", 0 },
	{ "test", OPT_TEST, "TEST", 0, "The significance test over runs: welch (default) or "
	  "mann-whitney", 0 },
	{ "verbose", 'v', 0, 0, "With --prometheus, print each query sent, to paste into "
	  "Prometheus's UI", 0 },
	{ 0 },
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		state->child_inputs[1] = &c->src;
		break;
	case 'v':
		c->verbose = true;
		break;
	case 'o':
		c->output = arg;
		break;
	case 'b':
	case 'n':
		if (c->named[key == 'n'])
			argp_error(state, "--%s given twice", key == 'n' ? "new" : "base");
		c->named[key == 'n'] = arg;
		break;
	case OPT_ALLOW_MODE_MISMATCH:
		c->allow_mode_mismatch = true;
		break;
	case OPT_TEST:
		c->test = parse_test_arg(arg, state);
		break;
	case ARGP_KEY_ARG:
		if (c->npaths == 2)
			argp_error(state, "two profiles or selectors, BASE and NEW (got a third, "
				   "'%s')", arg);
		c->paths[c->npaths++] = arg;
		break;
	case ARGP_KEY_END:
		/* --base and --new fill the sides the arguments do not */
		for (int side = 0; side < 2; side++) {
			if (!c->named[side])
				continue;
			if (c->npaths == 2)
				argp_error(state, "BASE and NEW are given once, as arguments or with "
					   "--base and --new");
			if (side == 0 && c->npaths == 1)
				c->paths[1] = c->paths[0];
			c->paths[side == 0 || c->npaths == 0 ? side : 1] = c->named[side];
			c->npaths++;
		}
		if (c->npaths != 2)
			argp_error(state, "two profiles are needed, BASE and NEW (with --prometheus, "
				   "two selectors)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* No -q (compare prints nothing but its output and errors); -v is its own (no BPF). */
static const struct argp_child compare_children[] = {
	{ &output_argp, 0, "Output:", 1 },
	{ &prom_source_argp, 0, "Both sides from Prometheus (a fleet, a rollout's waves):", 2 },
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
	"  permscope compare --test mann-whitney base-10-runs.json new-10-runs.json\n"
	"  permscope compare --prometheus http://127.0.0.1:9090 --window 1h \\\n"
	"      '{cohort=\"base\"}' '{cohort=\"canary\"}'   (each host a run)\n\n"
	"Exit status: 0 compared; 1 out of memory; 2 bad usage or input (an unreadable "
	"profile, modes that differ, an output FILE that cannot be written); with "
	"--prometheus, 3 a side cannot be compared (fewer than --min-hosts hosts, a host "
	"that restarted or lost events inside the window, a side on two builds or attach "
	"modes: each reason is printed) and 4 Prometheus did not answer (unreachable, an "
	"HTTP error, a query it rejects).\n",
	compare_children, 0, 0,
};

int cmd_compare(int argc, char **argv)
{
	struct compare_cmd c = { .out.offered = FORMAT_BIT(FORMAT_HTML) };
	struct profile p[2];
	struct compare cmp = {0};
	struct prom_sides fleet = {0};
	char err[512], why[256], name[2][1024], *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret = EXIT_OK;

	parse_command(&compare_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret;
	if (c.src.url) {
		if ((ret = prom_sides_read(&c.src, c.paths[0], c.paths[1], c.verbose, &fleet)))
			return ret;
		/* compare shows numbers, and none from data that cannot be judged */
		if (!prom_sides_judgeable(&fleet)) {
			pr_err("cannot compare: a side's data cannot be judged:");
			prom_sides_print_reasons(stderr, "  ", &fleet);
			prom_sides_free(&fleet);
			return EXIT_NO_VERDICT;
		}
		if (prom_sides_merge(&fleet, &p[0], &p[1])) {
			pr_err("out of memory");
			prom_sides_free(&fleet);
			profile_free(&p[0]);
			profile_free(&p[1]);
			return EXIT_FAIL;
		}
		/* their families' counts are short: say where */
		prom_sides_print_losses(stderr, "Warning: ", &fleet);
		for (int i = 0; i < 2; i++) {
			prom_side_text(&fleet, i, name[i], sizeof(name[i]));
			c.paths[i] = name[i];
		}
		prom_sides_free(&fleet);
	}
	for (int i = 0; !c.src.url && i < 2; i++)
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
