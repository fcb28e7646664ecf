// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope gate: pass or fail a new profile against a base profile by rules,
 * for CI.  The contract (rules, evaluation, exit statuses) is
 * docs/gate-rules.md.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/commands.h"
#include "cmd/gate_report.h"
#include "metrics.h"
#include "prom/promclient.h"
#include "prom/promsource.h"
#include "rules.h"
#include "statedir.h"
#include "util.h"
#include "verdict.h"

#define DEFAULT_RULES_NAME "(default rules)"

static const char default_rules[] =
	"# permscope gate's default rules: no violation, and no fast path lost\n"
	"# against the base profile (1 percentage point of slack on the shares),\n"
	"# the cred refcount's cacheline among them.\n"
	"access.unsafe == 0\n"
	"access.avoidable_per_call <= base + 0.01\n"
	"exec.enoent_early_share >= base - 0.01\n"
	"lookup.violations == 0\n"
	"lookup.did_skip_ratio >= base - 0.01\n"
	"cred.refcount_shares_line <= base\n";

enum {
	OPT_JUNIT = 0x400, OPT_PRINT_DEFAULT_RULES, OPT_ACCEPT_LOSS, OPT_TEST,
	OPT_ONLY_RECORDED, OPT_VERDICT_FILE, OPT_FAMILIES, OPT_ALLOW_MODE_MISMATCH, OPT_JSON_FILE,
};

struct gate_cmd {
	struct output_opts out;
	const char *base, *new, *rules, *junit;
	const char *output;    /* -o: what is printed goes there instead */
	const char *json_path; /* --json-file: the JSON verdicts, beside what is printed */
	const char *verdict_file; /* --verdict-file: a line a rule, for a shell script */
	bool print_default_rules;
	bool scoped, scope[FAMILY_COUNT]; /* --families: the rules judged; the others skipped */
	bool allow_mode_mismatch;
	double accept_loss;
	enum stats_test test;
	/* --prometheus: BASE and NEW are selectors (docs/fleet.md) */
	struct prom_source_opts src;
};

static const struct argp_option gate_options[] = {
	{ "base", 'b', "BASE", 0, "The profile to compare with: the stock kernel, the last good "
	  "build; with --prometheus, the selector of its hosts (required)", 0 },
	{ "baseline", 0, 0, OPTION_ALIAS | OPTION_HIDDEN, 0, 0 }, /* its name until gate/2 */
	{ "new", 'n', "NEW", 0, "The profile under test; with --prometheus, the selector of "
	  "its hosts (required)", 0 },
	{ "current", 'c', 0, OPTION_ALIAS | OPTION_HIDDEN, 0, 0 }, /* -c, --current until gate/2 */
	{ "rules", 'r', "FILE", 0, "Rules to apply instead of the default rules", 0 },
	{ "junit", OPT_JUNIT, "FILE", 0, "Also write the verdicts as JUnit XML to FILE", 0 },
	{ "output", 'o', "FILE", 0, "Write what would be printed (the text, or JSON with -j) "
	  "to FILE instead of standard output, atomically", 0 },
	{ "json-file", OPT_JSON_FILE, "FILE", 0, "Also write the verdicts as JSON to FILE "
	  "(atomically), whatever is printed: the text for a person, the file for a script", 0 },
	{ "verdict-file", OPT_VERDICT_FILE, "FILE", 0, "Also write the verdicts to FILE "
	  "(atomically) as plain text for a shell script: the gate's verdict and exit status, "
	  "then a line a rule, tab-separated (docs/gate-rules.md)", 0 },
	{ "families", OPT_FAMILIES, "LIST", 0, "Judge only the rules on these families ("
	  FAMILY_NAMES ", or all); the others are SKIPPED.  Default: the families either "
	  "profile was asked to record.  A family named here that did not record is NO-VERDICT",
	  0 },
	{ "allow-mode-mismatch", OPT_ALLOW_MODE_MISMATCH, 0, 0, "Judge a family that attached "
	  "in different modes on the two sides (tracepoint against fentry, or a latency across "
	  "fentry and kprobe), said on standard error; by default such a rule has no verdict", 0 },
	/* the default since permscope-gate/3: accepted so that older CI scripts still run */
	{ "only-recorded", OPT_ONLY_RECORDED, 0, OPTION_HIDDEN, 0, 0 },
	{ "accept-loss", OPT_ACCEPT_LOSS, "SHARE", 0, "Judge a family that lost up to SHARE "
	  "(0 to 1) of its events (default 0: a family that lost any has no verdict)", 0 },
	{ "test", OPT_TEST, "TEST", 0, "What tests a 'significant' rule: welch (Welch's t, "
	  "the default) or mann-whitney (the U test; 4 runs a side or more)", 0 },
	{ "print-default-rules", OPT_PRINT_DEFAULT_RULES, 0, 0,
	  "Print the default rules and exit", 0 },
	{ 0 },
};

static error_t gate_parse(int key, char *arg, struct argp_state *state)
{
	struct gate_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		state->child_inputs[1] = &c->src;
		break;
	case 'b':
		c->base = arg;
		break;
	case 'n':
	case 'c':
		c->new = arg;
		break;
	case 'r':
		c->rules = arg;
		break;
	case OPT_JUNIT:
		c->junit = arg;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_JSON_FILE:
		c->json_path = arg;
		break;
	case OPT_PRINT_DEFAULT_RULES:
		c->print_default_rules = true;
		break;
	case OPT_VERDICT_FILE:
		c->verdict_file = arg;
		break;
	case OPT_ONLY_RECORDED:
		break;
	case OPT_FAMILIES:
		parse_families_arg(arg, c->scope, state);
		c->scoped = true;
		break;
	case OPT_ALLOW_MODE_MISMATCH:
		c->allow_mode_mismatch = true;
		break;
	case OPT_ACCEPT_LOSS: {
		char *end;

		errno = 0;
		c->accept_loss = strtod(arg, &end);
		if (errno || *end || !(c->accept_loss >= 0 && c->accept_loss <= 1))
			argp_error(state, "invalid --accept-loss '%s' (a share from 0 to 1, e.g. "
				   "0.01)", arg);
		break;
	}
	case OPT_TEST:
		c->test = parse_test_arg(arg, state);
		break;
	case ARGP_KEY_ARG:
		/* BASE NEW as compare takes them, or --base and --new: either way */
		if (!c->base)
			c->base = arg;
		else if (!c->new)
			c->new = arg;
		else
			argp_error(state, "unexpected argument '%s' (BASE and NEW are given once, "
				   "as arguments or with --base and --new)", arg);
		break;
	case ARGP_KEY_END:
		if (c->print_default_rules)
			break;
		if (!c->base || !c->new)
			argp_error(state, "--base BASE and --new NEW are required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* gate's own -q and -v: which verdict lines to print (gate loads no BPF). */
static const struct argp_option gate_verbosity_options[] = {
	{ "quiet", 'q', 0, 0, "Print only the rules that did not pass, and no summary line", 0 },
	{ "verbose", 'v', 0, 0, "After each verdict line, print the rule and the file and line "
	  "it came from; with --prometheus, print each query sent first", 0 },
	{ 0 },
};

static const struct argp gate_verbosity_argp = {
	gate_verbosity_options, verbosity_parse, 0, 0, 0, 0, 0,
};

/* -j/--format, -q and -v: one group, input struct output_opts. */
static const struct argp_child gate_output_children[] = {
	{ &output_argp, 0, 0, 0 },
	{ &gate_verbosity_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp gate_output_argp = {
	0, first_child_parse, 0, 0, gate_output_children, 0, 0,
};

static const struct argp_child gate_children[] = {
	{ &gate_output_argp, 0, "Output:", 1 },
	{ &prom_source_argp, 0, "Both sides from Prometheus (a fleet, a rollout's waves):", 2 },
	{ 0 },
};

static const struct argp gate_argp = {
	gate_options, gate_parse, "--base=BASE --new=NEW\n--print-default-rules",
	"Judge a new profile against a base profile by rules, and give each rule a "
	"verdict: PASS, FAIL, NO-VERDICT (could not tell) or SKIPPED (not asked: its family "
	"was in neither recording, or is outside --families).  A rule reads METRIC OP EXPR "
	"[significant], as in 'exec.enoent.latency.p50 <= base * 1.10' (docs/gate-rules.md)."
	"\v"
	"Exit status: 0 every rule judged passed (skipped rules do not count); 1 a rule "
	"failed; 3 no rule failed but one had no verdict (its family was asked for and did "
	"not record in a profile, or recorded in another attach mode, or lost events beyond "
	"--accept-loss, or a profile lacks the counter (older than it, or recorded with "
	"--lean), or too few runs for 'significant'), or every rule was skipped; with "
	"--prometheus, also a side "
	"with fewer than --min-hosts hosts, a host that restarted or lost events inside "
	"the window, or a side on two builds or attach modes, each named); 2 bad usage or "
	"bad input "
	"(an unreadable or malformed profile or rules file, a rule that does not parse, "
	"an unknown metric, a --junit, -o or --verdict-file FILE in a missing or read-only "
	"directory, or that is "
	"a directory, a symbolic link or no regular file); 4 gate's environment failed "
	"(out of memory, writing the --junit or -o file or standard output failed, as on a full "
	"disk; Prometheus unreachable, an HTTP error, a query it rejects), whatever the "
	"verdicts.\n\n"
	"Examples:\n"
	"  permscope gate --base stock.json --new patched.json\n"
	"  permscope gate -b base.json -n new.json --rules ci.rules --junit gate.xml\n"
	"  permscope gate -b base.json -n new.json --json-file gate.json   (and the text)\n"
	"  permscope gate -b stock.json -n new.json --families access --verdict-file gate.tsv\n"
	"  permscope gate -b base-8-runs.json -n new-8-runs.json --test mann-whitney \\\n"
	"      -r sig.rules\n"
	"  permscope gate --print-default-rules > ci.rules\n"
	"  permscope gate --prometheus http://127.0.0.1:9090 --base '{cohort=\"base\"}' \\\n"
	"      --new '{cohort=\"canary\"}' --window 1h -v   (each host a run)\n",
	gate_children, 0, 0,
};

static const char *const verdict_words[VERDICTS] = {
	[VERDICT_PASS] = "PASS", [VERDICT_FAIL] = "FAIL", [VERDICT_NO_VERDICT] = "NO-VERDICT",
	[VERDICT_SKIPPED] = "SKIPPED",
};

/* The exit status of each gate verdict (docs/gate-rules.md, "Exit status"). */
static const int verdict_status[VERDICTS] = {
	[VERDICT_PASS] = EXIT_OK, [VERDICT_FAIL] = EXIT_REGRESSION,
	[VERDICT_NO_VERDICT] = EXIT_NO_VERDICT,
};

/*
 * A failed rule's metric on each host, "      new: web-7 3, web-8 0": a
 * side's mean does not say which canary it came from.
 */
static void print_hosts(const struct gate_sides *sd, const char *metric)
{
	for (int i = 0; i < 2; i++) {
		const struct promsource_side *side = &sd->fleet->side[i];
		double *v = NULL;
		size_t n = metric_samples(sd->p[i], metric, &v);

		if (n != side->nhosts) { /* a host without the metric: runs and hosts do not pair */
			free(v);
			continue;
		}
		printf("      %s:", side_words[i]);
		for (size_t h = 0; h < n; h++)
			printf("%s %s %.6g", h ? "," : "", side->hosts[h].instance, v[h]);
		putchar('\n');
		free(v);
	}
}

/*
 * A verdict line, HEAD then "  REASON", within GATE_COLUMNS: a reason that
 * does not fit goes on under it, word by word, each line indented by
 * GATE_INDENT, so that a terminal or a CI log shows every word unbroken.
 */
#define GATE_COLUMNS 100
#define GATE_INDENT "      "
static void print_wrapped(const char *head, const char *reason)
{
	size_t col = strlen(head), room;

	fputs(head, stdout);
	if (!*reason) {
		putchar('\n');
		return;
	}
	if (col + 2 + strlen(reason) <= GATE_COLUMNS) {
		printf("  %s\n", reason);
		return;
	}
	room = GATE_COLUMNS - strlen(GATE_INDENT);
	col = room; /* the reason starts on a line of its own */
	for (const char *w = reason; *w;) {
		size_t n = strcspn(w, " ");

		if (col + (col ? 1 : 0) + n > room && col) {
			printf("\n" GATE_INDENT);
			col = 0;
		} else if (col) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)n, w);
		col += n;
		w += n;
		w += strspn(w, " ");
	}
	putchar('\n');
}

static void print_text(const struct gate_sides *sd, const struct rule_set *rs,
		       const struct rule_result *res, const size_t count[VERDICTS])
{
	char values[256], build[160], line[512];

	/* which builds are compared: a verdict names a change between these two */
	for (int i = 0; verbosity >= 0 && i < 2; i++) {
		char hosts[1024];

		build_info_text(&sd->p[i]->build, sd->p[i]->tool_version, build, sizeof(build));
		/* within GATE_COLUMNS: the build under the path when both do not fit */
		if (!sd->fleet && strlen(sd->name[i]) + strlen(build) + 13 <= GATE_COLUMNS) {
			printf("gate: %-4s %s: %s\n", side_words[i], sd->name[i], build);
			continue;
		}
		if (!sd->fleet) {
			printf("gate: %-4s %s\ngate: %-4s %s\n", side_words[i], sd->name[i], "", build);
			continue;
		}
		prom_side_text(sd->fleet, i, hosts, sizeof(hosts));
		printf("gate: %-4s %s\n", side_words[i], hosts);
		if (prom_sides_judgeable(sd->fleet))
			printf("gate: %-4s %s\n", "", build);
	}
	/* a duty-cycled side's counts cover its windows, and say so */
	for (int i = 0; verbosity >= 0 && i < 2; i++)
		for (int f = 0; f < FAMILY_COUNT; f++) {
			char watched[160];

			if (sd->p[i]->fam[f].status == FAMILY_OK &&
			    *family_watched_text(&sd->p[i]->fam[f], watched, sizeof(watched)))
				printf("gate: %-4s %s counted in windows: %s\n", side_words[i],
				       family_name(f), watched);
		}
	/* which hosts lost events, and why a side has no verdict, before the rules */
	if (sd->fleet && verbosity >= 0)
		prom_sides_print_losses(stdout, "gate: ", sd->fleet);
	if (sd->fleet)
		prom_sides_print_reasons(stdout, "NO-VERDICT  ", sd->fleet);
	if (verbosity >= 0 && any_significant(rs))
		printf("gate: significance: %s, p < %.2f\n", stats_test_titles[sd->test],
		       STATS_ALPHA);
	for (size_t i = 0; i < rs->n; i++) {
		if (verbosity < 0 && (res[i].verdict == VERDICT_PASS ||
				      res[i].verdict == VERDICT_SKIPPED))
			continue;
		values_text(&rs->r[i], &res[i], sd->fleet, values, sizeof(values));
		snprintf(line, sizeof(line), "%s  %s%s%s", verdict_words[res[i].verdict],
			 rs->r[i].metric, values[0] ? "  " : "", values);
		print_wrapped(line, res[i].verdict == VERDICT_NO_VERDICT ||
			      res[i].verdict == VERDICT_SKIPPED ? res[i].reason : "");
		if (sd->fleet && res[i].verdict == VERDICT_FAIL)
			print_hosts(sd, rs->r[i].metric);
		if (verbosity > 0)
			printf("      rule %s:%d: %s\n", rs->file, rs->r[i].line, rs->r[i].text);
	}
	if (verbosity >= 0)
		printf("gate: %zu passed, %zu failed, %zu without verdict, %zu skipped\n",
		       count[VERDICT_PASS], count[VERDICT_FAIL], count[VERDICT_NO_VERDICT],
		       count[VERDICT_SKIPPED]);
}

/* gate -o: what was printed, kept in memory (printed, nprinted) until it is whole. */
static FILE *real_stdout;
static char *printed;
static size_t nprinted;

/* -o FILE: the printed text into FILE atomically; stdout back.  0, or -1 after an error. */
static int finish_output(const char *path, FILE *real)
{
	int err = fclose(stdout) ? EXIT_ENV : EXIT_OK;

	stdout = real;
	if (err == EXIT_OK)
		err = emit_output(path, printed, nprinted);
	free(printed);
	printed = NULL;
	return err == EXIT_OK ? 0 : -1;
}

/* Everything printed reached standard output; else an error and false. */
static bool stdout_flushed(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	pr_err("writing to standard output failed: %s", strerror(errno ? errno : EIO));
	return false;
}

/* --allow-mode-mismatch: each family judged across modes, said on standard error. */
static void warn_mode_mismatch(const struct profile *base, const struct profile *new)
{
	char why[256];

	for (int f = 0; f < FAMILY_COUNT; f++)
		switch (family_modes_match(base, "the base profile", new, "the new profile", f, why,
					   sizeof(why))) {
		case MODES_SAME:
			break;
		case MODES_SAME_CALLS:
			fprintf(stderr, "gate: %s: %s; judged anyway (--allow-mode-mismatch)\n", why,
				MODE_COST_WHY);
			break;
		case MODES_DIFFER:
			fprintf(stderr, "gate: %s: %s; judged anyway (--allow-mode-mismatch)\n", why,
				MODE_MISMATCH_WHY);
			break;
		}
}

/*
 * Rules from --rules or the built-in ones; EXIT_OK, or after the errors
 * EXIT_USAGE (bad rules) or EXIT_ENV (out of memory).
 */
static int load_rules(const char *path, struct rule_set *rs)
{
	char *errors = NULL;
	int n;

	n = path ? rules_read(path, rs, &errors)
		 : rules_parse(default_rules, strlen(default_rules), DEFAULT_RULES_NAME, rs, &errors);
	if (n < 0) {
		if (n == -ENOMEM) {
			pr_err("out of memory");
			return EXIT_ENV;
		}
		pr_err("cannot read %s: %s", path, strerror(-n));
		return EXIT_USAGE;
	}
	if (n > 0) {
		/* one "Error: FILE:LINE:COL: expected X, found 'Y'" per bad line */
		for (char *line = errors, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			*nl = 0;
			pr_err("%s", line);
		}
		free(errors);
		rules_free(rs);
		return EXIT_USAGE;
	}
	if (!rs->n) {
		pr_err("%s: no rules (a gate without rules would pass anything)", rs->file);
		rules_free(rs);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_cmd c = {0};
	struct profile base, new;
	struct rule_set rs;
	struct rule_result *res = NULL;
	struct gate_sides sides = { .p = { &base, &new } };
	struct prom_sides fleet = {0};
	size_t count[VERDICTS] = {0};
	char err[1024];
	bool bad = false, judgeable = true;
	int ret, e;

	real_stdout = stdout;
	parse_command(&gate_argp, argc, argv, &c);
	sides.name[0] = c.base;
	sides.name[1] = c.new;
	if (c.print_default_rules) {
		fputs(default_rules, stdout);
		return stdout_flushed() ? EXIT_OK : EXIT_ENV;
	}
	/* a --junit or -o FILE that cannot be written is bad usage, found before judging */
	if ((ret = check_output_path(c.junit)) != EXIT_OK ||
	    (ret = check_output_path(c.json_path)) != EXIT_OK ||
	    (ret = check_output_path(c.output)) != EXIT_OK ||
	    (ret = check_output_path(c.verdict_file)) != EXIT_OK)
		return ret;
	ret = load_rules(c.rules, &rs);
	for (size_t i = 0; !ret && i < rs.n; i++) {
		rs.r[i].accept_loss = c.accept_loss;
		rs.r[i].test = c.test;
		rs.r[i].allow_mode_mismatch = c.allow_mode_mismatch;
	}
	sides.test = c.test;
	if (ret)
		return ret;
	/* -o: everything printed is kept, and goes to the file whole at the end */
	if (c.output && strcmp(c.output, "-") && !(stdout = open_memstream(&printed, &nprinted))) {
		stdout = real_stdout;
		pr_err("out of memory");
		rules_free(&rs);
		return EXIT_ENV;
	}
	profile_init(&base);
	profile_init(&new);
	if (c.src.url) {
		/* a side that cannot be judged leaves its profile empty: no rule is judged */
		if ((ret = prom_sides_read(&c.src, c.base, c.new, verbosity > 0, &fleet)) != EXIT_OK)
			goto out;
		sides.fleet = &fleet;
		judgeable = prom_sides_judgeable(&fleet);
		if (judgeable && prom_sides_merge(&fleet, &base, &new)) {
			pr_err("out of memory");
			ret = EXIT_ENV;
			goto out;
		}
	} else {
		struct profile *p[2] = { &base, &new };

		for (int i = 0; i < 2; i++)
			if (statedir_profile_read(sides.name[i], p[i], err, sizeof(err))) {
				pr_err("%s: %s", sides.name[i], err);
				bad = true;
			}
	}
	if (bad) {
		ret = EXIT_USAGE;
		goto out;
	}
	res = calloc(rs.n, sizeof(*res));
	if (!res) {
		pr_err("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	for (size_t i = 0; i < rs.n; i++) {
		/* evaluated even on a side without verdict: an unknown metric is still bad input */
		if (rule_evaluate(&rs.r[i], &base, &new, &res[i], err, sizeof(err))) {
			pr_err("%s", err);
			bad = true;
			continue;
		}
		if (!judgeable) {
			res[i] = (struct rule_result){ .verdict = VERDICT_NO_VERDICT };
			snprintf(res[i].reason, sizeof(res[i].reason), "a side's data cannot be "
				 "judged (its reasons are listed)");
		}
		/* not asked is said apart from could not tell: SKIPPED, never a pass */
		if (judgeable && rule_skipped(&rs.r[i], &base, &new, c.scoped ? c.scope : NULL,
					      res[i].reason, sizeof(res[i].reason))) {
			res[i].verdict = VERDICT_SKIPPED;
			res[i].has_values = res[i].tested = false;
		}
		count[res[i].verdict]++;
	}
	if (bad) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (count[VERDICT_SKIPPED] == rs.n)
		fprintf(stderr, "gate: every rule of %s was skipped (%s): nothing judged, no "
			"verdict\n", rs.file, c.scoped ? "none is on a family in --families" :
			"none is on a family either profile was asked to record");
	if (c.allow_mode_mismatch)
		warn_mode_mismatch(&base, &new);
	ret = verdict_status[verdicts_overall(count)];
	if (c.junit) {
		e = write_junit(c.junit, &sides, &rs, res, count);
		if (e) {
			pr_err("cannot write %s: %s", c.junit, strerror(-e));
			ret = EXIT_ENV;
			goto out;
		}
	}
	if (c.verdict_file) {
		e = write_verdict_file(c.verdict_file, &rs, res, count, ret);
		if (e) {
			pr_err("cannot write %s: %s", c.verdict_file, strerror(-e));
			ret = EXIT_ENV;
			goto out;
		}
	}
	if (c.out.format == FORMAT_JSON || c.json_path) {
		char *text = verdicts_json(&sides, &rs, res, count, ret);
		char *doc = NULL;

		if (!text || asprintf(&doc, "%s\n", text) < 0) {
			free(text);
			pr_err("out of memory");
			ret = EXIT_ENV;
			goto out;
		}
		free(text);
		if (c.json_path && emit_output(c.json_path, doc, strlen(doc)) != EXIT_OK)
			ret = EXIT_ENV;
		else if (c.out.format == FORMAT_JSON)
			fputs(doc, stdout);
		free(doc);
		if (ret == EXIT_ENV)
			goto out;
	}
	if (c.out.format != FORMAT_JSON)
		print_text(&sides, &rs, res, count);
	if (!stdout_flushed())
		ret = EXIT_ENV;
	if (c.output && stdout != real_stdout && finish_output(c.output, real_stdout))
		ret = EXIT_ENV;
out:
	if (stdout != real_stdout) { /* an early exit: what was printed is dropped */
		fclose(stdout);
		free(printed);
		stdout = real_stdout;
	}
	free(res);
	rules_free(&rs);
	if (sides.fleet)
		prom_sides_free(&fleet);
	profile_free(&base);
	profile_free(&new);
	return ret;
}
