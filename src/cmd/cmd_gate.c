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
#include "metrics.h"
#include "prom/promclient.h"
#include "prom/promsource.h"
#include "rules.h"
#include "statedir.h"
#include "util.h"
#include "verdict.h"

#define DEFAULT_RULES_NAME "(default rules)"
/* /2: "new", "base", "n_new", "n_base" were "current", "baseline", "n_current", "n_baseline" */
#define GATE_FORMAT "permscope-gate/2"

static const char default_rules[] =
	"# permscope gate's default rules: no violation, and no fast path lost\n"
	"# against the base profile (1 percentage point of slack on the shares).\n"
	"access.unsafe == 0\n"
	"access.avoidable_per_call <= base + 0.01\n"
	"exec.enoent_early_share >= base - 0.01\n"
	"lookup.violations == 0\n"
	"lookup.did_skip_ratio >= base - 0.01\n";

enum { OPT_JUNIT = 0x400, OPT_PRINT_DEFAULT_RULES, OPT_ACCEPT_LOSS, OPT_TEST };

struct gate_cmd {
	struct output_opts out;
	const char *base, *new, *rules, *junit;
	const char *json_path; /* -o: the JSON verdicts, beside what is printed */
	bool print_default_rules;
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
	{ "output", 'o', "FILE", 0, "Also write the verdicts as JSON to FILE (atomically), "
	  "whatever --format prints: the text for a person, the file for a script", 0 },
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
		c->json_path = arg;
		break;
	case OPT_PRINT_DEFAULT_RULES:
		c->print_default_rules = true;
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
		argp_error(state, "unexpected argument '%s' (profiles go with --base and --new)",
			   arg);
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
	"verdict: PASS, FAIL or NO-VERDICT.  A rule is 'METRIC OP EXPR [significant]', "
	"e.g. 'exec.enoent.latency.p50 <= base * 1.10'; see docs/gate-rules.md.\v"
	"Exit status: 0 every rule passed; 1 a rule failed; 3 no rule failed but one "
	"had no verdict (its family did not record in a profile, or recorded in another "
	"attach mode, or lost events beyond --accept-loss, or a profile predates the "
	"counter, or too few runs for 'significant'; with --prometheus, also a side "
	"with fewer than --min-hosts hosts, a host that restarted or lost events inside "
	"the window, or a side on two builds or attach modes, each named); 2 bad usage or "
	"bad input "
	"(an unreadable or malformed profile or rules file, a rule that does not parse, "
	"an unknown metric, a --junit or -o FILE in a missing or read-only directory, or that is "
	"a directory, a symbolic link or no regular file); 4 gate's environment failed "
	"(out of memory, writing the --junit or -o file or standard output failed, as on a full "
	"disk; Prometheus unreachable, an HTTP error, a query it rejects), whatever the "
	"verdicts.\n\n"
	"Examples:\n"
	"  permscope gate --base stock.json --new patched.json\n"
	"  permscope gate -b base.json -n new.json --rules ci.rules --junit gate.xml\n"
	"  permscope gate -b base.json -n new.json -o gate.json   (JSON kept in a file)\n"
	"  permscope gate -b base-8-runs.json -n new-8-runs.json --test mann-whitney \\\n"
	"      -r sig.rules\n"
	"  permscope gate --print-default-rules > ci.rules\n"
	"  permscope gate --prometheus http://127.0.0.1:9090 --base '{cohort=\"base\"}' \\\n"
	"      --new '{cohort=\"canary\"}' --window 1h -v   (each host a run)\n",
	gate_children, 0, 0,
};

/* json_string, never NULL: bytes that are not ASCII become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		return json_null();
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

/*
 * "new X  base Y  threshold OP Z[  p=P][  hosts B:N]", the values of a
 * verdict; from Prometheus, the hosts each side's value comes from.
 */
static void values_text(const struct rule *r, const struct rule_result *res, bool fleet,
			char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	if (res->has_values)
		off = snprintf(buf, size, "new %.6g  base %.6g  threshold %s %.6g",
			       res->new, res->base, rule_op_name(r->op), res->threshold);
	else if (res->n_new)
		off = snprintf(buf, size, "new %.6g", res->new);
	else if (res->n_base)
		off = snprintf(buf, size, "base %.6g", res->base);
	if (res->tested && off < size)
		off += (size_t)snprintf(buf + off, size - off, "%s%sp=%.2g", off ? "  " : "",
					res->not_significant ? "~ " : "", res->p);
	if (fleet && (res->n_base || res->n_new) && off < size)
		snprintf(buf + off, size - off, "%shosts %zu:%zu", off ? "  " : "", res->n_base,
			 res->n_new);
}

static const char *const verdict_words[3] = {
	[VERDICT_PASS] = "PASS", [VERDICT_FAIL] = "FAIL", [VERDICT_NO_VERDICT] = "NO-VERDICT",
};

/* The exit status of each gate verdict (docs/gate-rules.md, "Exit status"). */
static const int verdict_status[3] = {
	[VERDICT_PASS] = EXIT_OK, [VERDICT_FAIL] = EXIT_REGRESSION,
	[VERDICT_NO_VERDICT] = EXIT_NO_VERDICT,
};

/* The two sides, path and the build that recorded each, as the reports name them. */
struct gate_sides {
	const char *name[2]; /* base, new */
	const struct profile *p[2];
	enum stats_test test; /* what tested the 'significant' rules */
	const struct prom_sides *fleet; /* the sides' hosts, from --prometheus; or NULL */
};

/* Whether a rule asks for significance: only then does the test matter. */
static bool any_significant(const struct rule_set *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].significant)
			return true;
	return false;
}

static const char *const side_words[2] = { "base", "new" };

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

static void print_text(const struct gate_sides *sd, const struct rule_set *rs,
		       const struct rule_result *res, const size_t count[3])
{
	char values[256], build[160];

	/* which builds are compared: a verdict names a change between these two */
	for (int i = 0; verbosity >= 0 && i < 2; i++) {
		char hosts[1024];

		build_info_text(&sd->p[i]->build, sd->p[i]->tool_version, build, sizeof(build));
		if (!sd->fleet) {
			printf("gate: %-4s %s: %s\n", side_words[i], sd->name[i], build);
			continue;
		}
		prom_side_text(sd->fleet, i, hosts, sizeof(hosts));
		printf("gate: %-4s %s\n", side_words[i], hosts);
		if (prom_sides_judgeable(sd->fleet))
			printf("gate: %-4s %s\n", "", build);
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
		if (verbosity < 0 && res[i].verdict == VERDICT_PASS)
			continue;
		values_text(&rs->r[i], &res[i], sd->fleet, values, sizeof(values));
		printf("%s  %s", verdict_words[res[i].verdict], rs->r[i].metric);
		if (values[0])
			printf("  %s", values);
		if (res[i].verdict == VERDICT_NO_VERDICT)
			printf("  %s", res[i].reason);
		putchar('\n');
		if (sd->fleet && res[i].verdict == VERDICT_FAIL)
			print_hosts(sd, rs->r[i].metric);
		if (verbosity > 0)
			printf("      rule %s:%d: %s\n", rs->file, rs->r[i].line, rs->r[i].text);
	}
	if (verbosity >= 0)
		printf("gate: %zu passed, %zu failed, %zu without verdict\n", count[VERDICT_PASS],
		       count[VERDICT_FAIL], count[VERDICT_NO_VERDICT]);
}

/* The verdicts as one JSON document, malloc'ed; NULL when out of memory. */
static char *verdicts_json(const struct gate_sides *sd, const struct rule_set *rs,
			   const struct rule_result *res, const size_t count[3], int status)
{
	json_t *rules = json_array(), *root, *side;
	char *text;

	for (size_t i = 0; rules && i < rs->n; i++) {
		const struct rule_result *x = &res[i];
		bool new = x->has_values || x->n_new, base = x->has_values || x->n_base;

		if (json_array_append_new(rules, json_pack("{s:o,s:o,s:i,s:s,s:s,s:o,s:o,s:o,s:I,s:I,"
							   "s:o,s:s,s:o}",
			"rule", jstr(rs->r[i].text), "file", jstr(rs->file), "line", rs->r[i].line,
			"metric", rs->r[i].metric, "op", rule_op_name(rs->r[i].op),
			"threshold", x->has_values ? json_real(x->threshold) : json_null(),
			"new", new ? json_real(x->new) : json_null(),
			"base", base ? json_real(x->base) : json_null(),
			"n_new", (json_int_t)x->n_new, "n_base", (json_int_t)x->n_base,
			"p", x->tested ? json_real(x->p) : json_null(),
			"verdict", verdict_names[x->verdict],
			"reason", x->reason[0] ? jstr(x->reason) : json_null()))) {
			json_decref(rules);
			return NULL;
		}
		/* how Mann-Whitney's p was found: exact or by the normal approximation */
		if (x->tested && sd->test == STATS_MANN_WHITNEY)
			json_object_set_new(json_array_get(rules, i), "p_method",
					    json_string(mw_method_names[x->method]));
	}
	root = json_pack("{s:s,s:s,s:i,s:s}", "format", GATE_FORMAT,
			 "verdict", verdict_names[verdicts_overall(count)], "exit_status", status,
			 "test", stats_test_ids[sd->test]);
	if (!root) {
		json_decref(rules);
		return NULL;
	}
	/*
	 * each side's path and build (null for a profile older than its
	 * "build"); from Prometheus, its selector, hosts and reasons instead
	 * of a path, and no build when the side cannot be judged
	 */
	for (int i = 0; i < 2; i++) {
		const struct profile *p = sd->p[i];
		bool known = build_info_known(&p->build);

		if (sd->fleet) {
			side = prom_side_json(sd->fleet, i);
			json_object_set_new(side, "tool", json_string(p->tool_version));
			json_object_set_new(side, "build", known ? build_info_to_json(&p->build) :
					    json_null());
		} else {
			side = json_pack("{s:o,s:s,s:o}", "path", jstr(sd->name[i]),
					 "tool", p->tool_version, "build", known ?
					 build_info_to_json(&p->build) : json_null());
		}
		json_object_set_new(root, side_words[i], side);
	}
	json_object_set_new(root, "rules", rules);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(root);
	return text;
}

/* Everything printed reached standard output; else an error and false. */
static bool stdout_flushed(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	pr_err("writing to standard output failed: %s", strerror(errno ? errno : EIO));
	return false;
}

/* Text for XML attributes and content: & < > " ' escaped, no control bytes. */
static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 allows no C0 controls but tab, LF, CR; keep ASCII only */
			fputc(c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : c, f);
		}
	}
}

static int write_junit(const char *path, const struct gate_sides *sd,
		       const struct rule_set *rs, const struct rule_result *res,
		       const size_t count[3])
{
	char *buf = NULL, values[256], build[160];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"permscope gate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"skipped=\"%zu\">\n", rs->n, count[VERDICT_FAIL], count[VERDICT_NO_VERDICT]);
	/* the builds compared, where CI servers show a suite's properties */
	fputs("  <properties>\n", f);
	for (int i = 0; i < 2; i++) {
		char hosts[1024];

		build_info_text(&sd->p[i]->build, sd->p[i]->tool_version, build, sizeof(build));
		fprintf(f, "    <property name=\"%s\" value=\"", side_words[i]);
		if (sd->fleet)
			prom_side_text(sd->fleet, i, hosts, sizeof(hosts));
		xml_escape(f, sd->fleet ? hosts : sd->name[i]);
		fputs("\"/>\n", f);
		fprintf(f, "    <property name=\"%s.build\" value=\"", side_words[i]);
		xml_escape(f, build);
		fputs("\"/>\n", f);
	}
	if (any_significant(rs)) /* the test only matters to 'significant' rules */
		fprintf(f, "    <property name=\"test\" value=\"%s\"/>\n",
			stats_test_ids[sd->test]);
	if (sd->fleet) { /* why a side has no verdict: one property a reason */
		char *why = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&why, &n);

		if (m) {
			prom_sides_print_reasons(m, "", sd->fleet);
			fclose(m);
		}
		for (char *line = why, *nl; line && *line; line = nl + 1) {
			nl = strchr(line, '\n');
			*nl = 0;
			fputs("    <property name=\"no-verdict\" value=\"", f);
			xml_escape(f, line);
			fputs("\"/>\n", f);
		}
		free(why);
	}
	fputs("  </properties>\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		values_text(&rs->r[i], &res[i], sd->fleet, values, sizeof(values));
		fputs("  <testcase classname=\"permscope.gate\" name=\"", f);
		xml_escape(f, rs->r[i].text);
		fputc('"', f);
		switch (res[i].verdict) {
		case VERDICT_PASS:
			fputs("/>\n", f);
			break;
		case VERDICT_FAIL:
			fputs(">\n    <failure message=\"", f);
			xml_escape(f, rs->r[i].metric);
			fputs(": ", f);
			xml_escape(f, values);
			fputs("\"/>\n  </testcase>\n", f);
			break;
		case VERDICT_NO_VERDICT:
			fputs(">\n    <skipped message=\"", f);
			xml_escape(f, res[i].reason);
			fputs("\"/>\n  </testcase>\n", f);
			break;
		}
	}
	fputs("</testsuite>\n", f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	err = write_file_atomic(path, buf, len, false);
	free(buf);
	return err;
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
	size_t count[3] = {0};
	char err[1024];
	bool bad = false, judgeable = true;
	int ret, e;

	parse_command(&gate_argp, argc, argv, &c);
	sides.name[0] = c.base;
	sides.name[1] = c.new;
	if (c.print_default_rules) {
		fputs(default_rules, stdout);
		return stdout_flushed() ? EXIT_OK : EXIT_ENV;
	}
	/* a --junit or -o FILE that cannot be written is bad usage, found before judging */
	if ((ret = check_output_path(c.junit)) != EXIT_OK ||
	    (ret = check_output_path(c.json_path)) != EXIT_OK)
		return ret;
	ret = load_rules(c.rules, &rs);
	for (size_t i = 0; !ret && i < rs.n; i++) {
		rs.r[i].accept_loss = c.accept_loss;
		rs.r[i].test = c.test;
	}
	sides.test = c.test;
	if (ret)
		return ret;
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
		count[res[i].verdict]++;
	}
	if (bad) {
		ret = EXIT_USAGE;
		goto out;
	}
	ret = verdict_status[verdicts_overall(count)];
	if (c.junit) {
		e = write_junit(c.junit, &sides, &rs, res, count);
		if (e) {
			pr_err("cannot write %s: %s", c.junit, strerror(-e));
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
out:
	free(res);
	rules_free(&rs);
	if (sides.fleet)
		prom_sides_free(&fleet);
	profile_free(&base);
	profile_free(&new);
	return ret;
}
