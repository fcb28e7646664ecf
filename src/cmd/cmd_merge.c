// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope merge: several recordings of one workload as one profile of runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "metrics.h"
#include "statedir.h"
#include "util.h"

enum { OPT_ALLOW_MODE_MISMATCH = 0x300 };

struct merge_cmd {
	const char *output;
	bool allow_mode_mismatch;
	char **inputs;
	int ninputs;
};

static const struct argp_option merge_options[] = {
	{ "output", 'o', "FILE", 0, "Write the merged profile to FILE (required)", 0 },
	{ "allow-mode-mismatch", OPT_ALLOW_MODE_MISMATCH, 0, 0,
	  "Merge runs of one family recorded in different attach modes", 0 },
	{ 0 },
};

static error_t merge_parse(int key, char *arg, struct argp_state *state)
{
	struct merge_cmd *c = state->input;

	switch (key) {
	case 'o':
		c->output = arg;
		break;
	case OPT_ALLOW_MODE_MISMATCH:
		c->allow_mode_mismatch = true;
		break;
	case ARGP_KEY_ARGS:
		c->inputs = state->argv + state->next;
		c->ninputs = state->argc - state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (c->ninputs < 1)
			argp_error(state, "no profiles to merge");
		if (!c->output)
			argp_error(state, "-o FILE is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -q silences the note of what was merged; merge prints no JSON and loads no BPF. */
static const struct argp_child merge_children[] = {
	{ &quiet_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp merge_argp = {
	merge_options, merge_parse, "PROFILE...",
	"Merge recordings of the same workload into one profile: counters and "
	"histograms are summed, and each input is kept as a run, so that compare "
	"and gate can report mean, standard deviation and significance.\v"
	"A merged input contributes all of its runs.  Families must have recorded "
	"in every input, in the same attach mode: " MODE_MISMATCH_WHY " "
	"(--allow-mode-mismatch merges anyway).\n\n"
	"Example:\n"
	"  for i in 1 2 3; do permscope record -o run$i.json -- make -j2; done\n"
	"  permscope merge run1.json run2.json run3.json -o base.json\n",
	merge_children, 0, 0,
};

/* Append `src`'s runs (or src itself as one run) to `dst`. */
static int add_runs(struct profile *dst, const struct profile *src)
{
	size_t add = src->nruns ? src->nruns : 1;
	struct metric_list *runs = realloc(dst->runs, (dst->nruns + add) * sizeof(*runs));

	if (!runs)
		return -ENOMEM;
	dst->runs = runs;
	if (!src->nruns)
		return metrics_collect(src, &dst->runs[dst->nruns++]);
	for (size_t r = 0; r < src->nruns; r++) {
		if (metric_list_copy(&dst->runs[dst->nruns], &src->runs[r]))
			return -ENOMEM;
		dst->nruns++;
	}
	return 0;
}

/* Add profile `p`, read from `path`, to `m`, which began as profile `first`. */
static int merge_into(struct profile *m, const char *first, const struct profile *p,
		      const char *path, bool allow_mode_mismatch)
{
	char why[256];

	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (m->fam[f].status != p->fam[f].status) {
			pr_err("%s: the %s family is %s there but %s in the first profile", path,
			      family_name(f), p->fam[f].status == FAMILY_OK ? "recorded" : "not recorded",
			      m->fam[f].status == FAMILY_OK ? "recorded" : "not recorded");
			return EXIT_USAGE;
		}
		/* A merged profile has one mode per family, and its latencies one probe cost. */
		if (!allow_mode_mismatch &&
		    family_modes_match(m, first, p, path, f, why, sizeof(why)) != MODES_SAME) {
			pr_err("%s: " MODE_MISMATCH_WHY " (--allow-mode-mismatch merges anyway)", why);
			return EXIT_USAGE;
		}
	}
	if (profile_add(m, p))
		return EXIT_FAIL;
	if (!profile_counts_fit(m)) {
		pr_err("%s: adding it takes a count past %llu, the largest a profile holds", path,
		       (unsigned long long)PROFILE_COUNT_MAX);
		return EXIT_USAGE;
	}
	if (p->start_ns < m->start_ns)
		m->start_ns = p->start_ns;
	if (p->end_ns > m->end_ns)
		m->end_ns = p->end_ns;
	return add_runs(m, p) ? EXIT_FAIL : EXIT_OK;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_cmd c = {0};
	struct profile m, p;
	char err[512];
	int ret = EXIT_OK, e;

	parse_command(&merge_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret;
	if (statedir_profile_read(c.inputs[0], &m, err, sizeof(err))) {
		pr_err("%s: %s", c.inputs[0], err);
		return EXIT_USAGE;
	}
	/* The first input becomes the base; its own values are its run(s). */
	if (!m.nruns) {
		m.runs = calloc(1, sizeof(*m.runs));
		if (!m.runs || metrics_collect(&m, &m.runs[0])) {
			pr_err("out of memory");
			profile_free(&m);
			return EXIT_FAIL;
		}
		m.nruns = 1;
	}
	for (int i = 1; i < c.ninputs && ret == EXIT_OK; i++) {
		if (statedir_profile_read(c.inputs[i], &p, err, sizeof(err))) {
			pr_err("%s: %s", c.inputs[i], err);
			ret = EXIT_USAGE;
			break;
		}
		ret = merge_into(&m, c.inputs[0], &p, c.inputs[i], c.allow_mode_mismatch);
		/* One run timed by a coarse clock makes the merged latencies so. */
		if (profile_clock_is_coarse(&p) && !profile_clock_is_coarse(&m))
			memcpy(m.clocksource, p.clocksource, sizeof(m.clocksource));
		profile_free(&p);
	}
	if (ret == EXIT_OK) {
		e = profile_write(&m, c.output);
		if (e) {
			pr_err("cannot write %s: %s", c.output, strerror(-e));
			ret = EXIT_FAIL;
		} else {
			pr_info("%zu runs merged into %s", m.nruns, c.output);
		}
	}
	profile_free(&m);
	return ret;
}
