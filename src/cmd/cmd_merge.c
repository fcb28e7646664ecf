// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope merge: several recordings of one workload as one profile of
 * runs.  Runs are samples of one thing: merge refuses inputs recorded on
 * different kernels, hosts, workloads or attach modes (unless
 * --allow-mixed, which the merged profile then says), and one recording
 * twice, which would add a run that is no new sample and shrink the
 * standard deviation (docs/compare.md, "Merging runs").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "metrics.h"
#include "statedir.h"
#include "util.h"

enum { OPT_ALLOW_MODE_MISMATCH = 0x300, OPT_ALLOW_MIXED };

struct merge_cmd {
	const char *output;
	bool allow_mode_mismatch, allow_mixed;
	char **inputs;
	int ninputs;
};

static const struct argp_option merge_options[] = {
	{ "output", 'o', "FILE", 0, "Write the merged profile to FILE (required)", 0 },
	{ "allow-mode-mismatch", OPT_ALLOW_MODE_MISMATCH, 0, 0,
	  "Merge runs of one family recorded in different attach modes", 0 },
	{ "allow-mixed", OPT_ALLOW_MIXED, 0, 0, "Merge runs of different kernels, hosts, "
	  "workloads or attach modes; the merged profile says what differs, and report and "
	  "compare print it", 0 },
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
	case OPT_ALLOW_MIXED:
		c->allow_mixed = c->allow_mode_mismatch = true;
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
	"A merged input contributes all of its runs.  Runs are samples of one thing: "
	"the inputs must come from one kernel, one host and one workload, each family "
	"recorded in every input in the same attach mode (" MODE_MISMATCH_WHY "); "
	"--allow-mixed merges anyway and the merged profile says so.  One recording "
	"twice is refused, always: it would count one run twice and shrink the "
	"standard deviation.\n\n"
	"Exit status: 0 merged; 2 bad usage or input (an unreadable profile, inputs that "
	"differ, a recording twice); 1 writing FILE failed.\n\n"
	"Example:\n"
	"  for i in 1 2 3; do permscope record -o run$i.json -- make -j2; done\n"
	"  permscope merge run1.json run2.json run3.json -o base.json\n",
	merge_children, 0, 0,
};

/* The recording behind each of p's runs: its own, or a merged profile's list (none if unkept). */
static size_t recordings_of(const struct profile *p, const struct recording_ref **out,
			    struct recording_ref *own)
{
	if (p->nruns) {
		*out = p->recordings;
		return p->nrecordings;
	}
	memset(own, 0, sizeof(*own));
	copy_truncated(own->hostname, p->hostname, sizeof(own->hostname));
	copy_truncated(own->boot_id, p->boot_id, sizeof(own->boot_id));
	own->start_ns = p->start_ns;
	own->end_ns = p->end_ns;
	*out = own;
	return 1;
}

static bool same_recording(const struct recording_ref *a, const struct recording_ref *b)
{
	return a->start_ns == b->start_ns && a->end_ns == b->end_ns &&
	       !strcmp(a->hostname, b->hostname) && !strcmp(a->boot_id, b->boot_id);
}

/* Append `src`'s runs (or src itself as one run) to `dst`, with their recordings. */
static int add_runs(struct profile *dst, const struct profile *src)
{
	size_t add = src->nruns ? src->nruns : 1;
	struct metric_list *runs = realloc(dst->runs, (dst->nruns + add) * sizeof(*runs));
	const struct recording_ref *recs;
	struct recording_ref own;
	size_t nrecs = recordings_of(src, &recs, &own);

	if (!runs)
		return -ENOMEM;
	dst->runs = runs;
	/* the list holds one a run, or none once an input had none to give */
	if (dst->nrecordings == dst->nruns && nrecs == add) {
		struct recording_ref *r = realloc(dst->recordings,
						  (dst->nrecordings + add) * sizeof(*r));

		if (!r)
			return -ENOMEM;
		memcpy(r + dst->nrecordings, recs, add * sizeof(*r));
		dst->recordings = r;
		dst->nrecordings += add;
	} else {
		free(dst->recordings);
		dst->recordings = NULL;
		dst->nrecordings = 0;
	}
	if (!src->nruns)
		return metrics_collect(src, &dst->runs[dst->nruns++]);
	for (size_t r = 0; r < src->nruns; r++) {
		if (metric_list_copy(&dst->runs[dst->nruns], &src->runs[r]))
			return -ENOMEM;
		dst->nruns++;
	}
	return 0;
}

/* "WHAT: A and B" added to the merged profile's "mixed", cut to what a profile holds. */
static int add_mixed(struct profile *m, const char *what, const char *a, const char *b)
{
	char *note;

	if (asprintf(&note, "%s: %s and %s", what, a, b) < 0)
		return EXIT_FAIL;
	if (m->mixed && strstr(m->mixed, note)) { /* a third input like the second */
		free(note);
		return EXIT_OK;
	}
	free(note);
	if (asprintf(&note, "%s%s%s: %s and %s", m->mixed ? m->mixed : "", m->mixed ? "; " : "",
		     what, a, b) < 0)
		return EXIT_FAIL;
	if (strlen(note) >= PROFILE_MIXED_MAX)
		strcpy(note + PROFILE_MIXED_MAX - 4, "...");
	free(m->mixed);
	m->mixed = note;
	return EXIT_OK;
}

/* The workload as one line: the command, or who was watched. */
static void workload_text(const struct profile *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (p->command)
		for (char **a = p->command; *a && n < len; a++)
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "", printable(*a));
	else if (p->filter_pid)
		snprintf(buf, len, "pid %d", p->filter_pid);
	else
		snprintf(buf, len, "all processes");
	n = strlen(buf);
	if (p->filter_comm[0] && n < len)
		snprintf(buf + n, len - n, ", comm %s", printable(p->filter_comm));
	n = strlen(buf);
	if (p->filter_cgroup[0] && n < len)
		snprintf(buf + n, len - n, ", cgroup %s", printable(p->filter_cgroup));
}

/*
 * What makes `p` (from `path`) another thing than `m`, which holds the
 * first input's (`name`) host, kernel and workload as they were: each
 * difference refused (exit 2) or, with --allow-mixed, warned of and kept
 * in m->mixed.
 */
static int check_alike(struct profile *m, const char *name, const struct profile *p,
		       const char *path, bool allow)
{
	char wa[512], wb[512];
	/* a build of another release is said by the release alone */
	bool same_release = !strcmp(m->kernel_release, p->kernel_release);
	const struct { const char *what, *a, *b; bool ask; } facts[] = {
		{ "kernels", m->kernel_release, p->kernel_release, true },
		{ "kernel builds", m->kernel_version, p->kernel_version, same_release },
		{ "hosts", m->hostname, p->hostname, true },
		{ "architectures", m->machine, p->machine, true },
		{ "workloads", wa, wb, true },
	};

	workload_text(m, wa, sizeof(wa));
	workload_text(p, wb, sizeof(wb));
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		char a[512], b[512];

		snprintf(a, sizeof(a), "%s", printable(facts[i].a));
		snprintf(b, sizeof(b), "%s", printable(facts[i].b));
		if (!facts[i].ask || !strcmp(a, b))
			continue;
		if (!allow) {
			pr_err("%s and %s were recorded on different %s (%s and %s): runs of "
			       "different %s are no samples of one thing (--allow-mixed merges "
			       "anyway, and says so)", name, path, facts[i].what, a, b, facts[i].what);
			return EXIT_USAGE;
		}
		pr_warn("merging runs of different %s (%s in %s, %s in %s): --allow-mixed",
			facts[i].what, a, name, b, path);
		if (add_mixed(m, facts[i].what, a, b))
			return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Add profile `p`, read from `path`, to `m`, which began as profile `first`. */
static int merge_into(struct profile *m, const char *first, const struct profile *p,
		      const char *path, const struct merge_cmd *c)
{
	char why[256];

	/*
	 * One kernel build has one cred layout; runs that say two things of it
	 * (kernels mixed, or a run from before it was kept) say nothing.
	 */
	if (m->cred_line_kept != p->cred_line_kept || m->cred_line != p->cred_line) {
		m->cred_line_kept = true;
		m->cred_line = CRED_LAYOUT_UNKNOWN;
	}
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (m->fam[f].status != p->fam[f].status) {
			pr_err("%s: the %s family is %s there but %s in the first profile", path,
			      family_name(f), p->fam[f].status == FAMILY_OK ? "recorded" : "not recorded",
			      m->fam[f].status == FAMILY_OK ? "recorded" : "not recorded");
			return EXIT_USAGE;
		}
		/* A merged profile has one mode per family, and its latencies one probe cost. */
		if (family_modes_match(m, first, p, path, f, why, sizeof(why)) == MODES_SAME)
			continue;
		if (!c->allow_mode_mismatch) {
			pr_err("%s: " MODE_MISMATCH_WHY " (--allow-mode-mismatch merges anyway)", why);
			return EXIT_USAGE;
		}
		if (c->allow_mixed) {
			char what[64];

			snprintf(what, sizeof(what), "%s modes", family_name(f));
			pr_warn("%s: --allow-mixed", why);
			if (add_mixed(m, what, mode_name(m->fam[f].mode), mode_name(p->fam[f].mode)))
				return EXIT_FAIL;
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

/*
 * One recording in two inputs, or twice in one: refused by name.  `seen`
 * holds the recordings of the inputs before `i` (names[j] each's input).
 */
static int check_repeat(struct recording_ref **seen, int **owner, size_t *nseen,
			char *const *names, int i, const struct profile *p)
{
	const struct recording_ref *recs;
	struct recording_ref own;
	size_t n = recordings_of(p, &recs, &own);
	struct recording_ref *s;
	int *o;

	if (!(s = realloc(*seen, (*nseen + n + 1) * sizeof(*s))))
		return EXIT_FAIL;
	*seen = s;
	if (!(o = realloc(*owner, (*nseen + n + 1) * sizeof(*o))))
		return EXIT_FAIL;
	*owner = o;
	for (size_t k = 0; k < n; k++) {
		for (size_t j = 0; j < *nseen; j++) {
			char when[48];

			if (!same_recording(&s[j], &recs[k]))
				continue;
			format_utc_ns(recs[k].start_ns, when, sizeof(when));
			pr_err("%s and %s hold the same recording (%s, started %s): merging it twice "
			       "would count one run as two and shrink the standard deviation",
			       names[o[j]], names[i], printable(recs[k].hostname), when);
			return EXIT_USAGE;
		}
		s[*nseen] = recs[k];
		o[(*nseen)++] = i;
	}
	return EXIT_OK; /* runs merged before their recordings were kept: check_equal_runs() */
}

static bool runs_equal(const struct metric_list *a, const struct metric_list *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->m[i].name, b->m[i].name) || a->m[i].value != b->m[i].value)
			return false;
	return true;
}

/*
 * Where a run's recording is not known (an input merged before merge kept
 * them), two runs equal in every metric, latency sums to the nanosecond
 * among them, are taken for one recording twice: refused, by input.
 */
static int check_equal_runs(const struct profile *m, const int *run_input, char *const *names)
{
	if (m->nrecordings == m->nruns)
		return EXIT_OK; /* each run's recording known, and checked */
	for (size_t k = 1; k < m->nruns; k++)
		for (size_t j = 0; j < k; j++) {
			if (!runs_equal(&m->runs[j], &m->runs[k]))
				continue;
			pr_err("%s and %s hold two runs equal in every metric: the same recording "
			       "twice, whose runs would count as two and shrink the standard "
			       "deviation", names[run_input[j]], names[run_input[k]]);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}

/* Before any work: the same file twice is one recording twice. */
static int check_same_file(char *const *names, int n)
{
	for (int i = 1; i < n; i++) {
		struct stat a, b;

		if (stat(names[i], &a))
			continue; /* a state directory's name, or unreadable: said when read */
		for (int j = 0; j < i; j++)
			if (!stat(names[j], &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
				pr_err("%s and %s are the same file: merging one recording twice would "
				       "count its run as two and shrink the standard deviation",
				       names[j], names[i]);
				return EXIT_USAGE;
			}
	}
	return EXIT_OK;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_cmd c = {0};
	struct profile m, p;
	struct recording_ref *seen = NULL;
	int *owner = NULL, *run_input = NULL;
	size_t nseen = 0;
	char err[512];
	int ret = EXIT_OK, e;

	parse_command(&merge_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK ||
	    (ret = check_same_file(c.inputs, c.ninputs)) != EXIT_OK)
		return ret;
	if (statedir_profile_read(c.inputs[0], &m, err, sizeof(err))) {
		pr_err("%s: %s", c.inputs[0], err);
		return EXIT_USAGE;
	}
	if ((ret = check_repeat(&seen, &owner, &nseen, c.inputs, 0, &m)) != EXIT_OK)
		goto out;
	/* The first input becomes the base; its own values are its run(s). */
	if (!m.nruns) {
		struct recording_ref own;
		const struct recording_ref *recs;

		recordings_of(&m, &recs, &own);
		m.runs = calloc(1, sizeof(*m.runs));
		m.recordings = malloc(sizeof(*m.recordings));
		if (!m.runs || !m.recordings || metrics_collect(&m, &m.runs[0])) {
			pr_err("out of memory");
			ret = EXIT_FAIL;
			goto out;
		}
		m.recordings[0] = own;
		m.nruns = m.nrecordings = 1;
	}
	if (!(run_input = calloc(m.nruns, sizeof(*run_input)))) {
		ret = EXIT_FAIL;
		goto out;
	}
	for (int i = 1; i < c.ninputs && ret == EXIT_OK; i++) {
		if (statedir_profile_read(c.inputs[i], &p, err, sizeof(err))) {
			pr_err("%s: %s", c.inputs[i], err);
			ret = EXIT_USAGE;
			break;
		}
		ret = check_repeat(&seen, &owner, &nseen, c.inputs, i, &p);
		if (ret == EXIT_OK)
			ret = check_alike(&m, c.inputs[0], &p, c.inputs[i], c.allow_mixed);
		if (ret == EXIT_OK) {
			size_t before = m.nruns;
			int *ri;

			ret = merge_into(&m, c.inputs[0], &p, c.inputs[i], &c);
			if (!(ri = realloc(run_input, (m.nruns + 1) * sizeof(*ri))))
				ret = EXIT_FAIL;
			else
				run_input = ri;
			for (size_t r = before; ri && r < m.nruns; r++)
				run_input[r] = i;
		}
		/* One run timed by a coarse clock makes the merged latencies so. */
		if (profile_clock_is_coarse(&p) && !profile_clock_is_coarse(&m))
			memcpy(m.clocksource, p.clocksource, sizeof(m.clocksource));
		profile_free(&p);
	}
	if (ret == EXIT_OK)
		ret = check_equal_runs(&m, run_input, c.inputs);
	if (ret == EXIT_FAIL)
		pr_err("out of memory");
	if (ret == EXIT_OK) {
		e = profile_write(&m, c.output);
		if (e) {
			pr_err("cannot write %s: %s", c.output, strerror(-e));
			ret = EXIT_FAIL;
		} else {
			pr_info("%zu runs merged into %s%s%s", m.nruns, c.output,
				m.mixed ? ", mixed: " : "", m.mixed ? m.mixed : "");
		}
	}
out:
	free(seen);
	free(owner);
	free(run_input);
	profile_free(&m);
	return ret;
}
