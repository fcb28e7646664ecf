// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope report: the per-filesystem skip report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "prom/prom.h"
#include "run/record.h"
#include "render.h"
#include "schema.h"
#include "statedir.h"
#include "util.h"

#define REPORT_DEFAULT_SECONDS 5

struct report_cmd {
	struct record_opts rec;
	struct output_opts out;
	const char *input;
	const char *output;
	const char *instance, *job; /* --format openmetrics's labels; NULL: not given */
	bool recording_options;
};

enum { OPT_INSTANCE = 0x1100, OPT_JOB };

#define REPORT_DEFAULT_JOB "permscope"

static const struct argp_option report_options[] = {
	{ "output", 'o', "FILE", 0, "Write the report to FILE instead of standard output", 0 },
	{ "instance", OPT_INSTANCE, "NAME", 0,
	  "--format openmetrics: the instance label of every series (default: the profile's "
	  "host name)", 0 },
	{ "job", OPT_JOB, "NAME", 0,
	  "--format openmetrics: the job label of every series (default: " REPORT_DEFAULT_JOB ")",
	  0 },
	{ 0 },
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->rec;
		state->child_inputs[1] = &c->out;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_INSTANCE:
	case OPT_JOB:
		/* Prometheus drops a label whose value is empty */
		if (!*arg)
			argp_error(state, "--%s needs a NAME", key == OPT_JOB ? "job" : "instance");
		*(key == OPT_JOB ? &c->job : &c->instance) = arg;
		break;
	case ARGP_KEY_ARG:
		if (c->input)
			argp_error(state, "one profile at a time (got '%s' and '%s')", c->input, arg);
		c->input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child report_children[] = {
	{ &report_record_argp, 0, "Without FILE, what to record first:", 1 },
	{ &recording_output_argp, 0, "Output:", 2 },
	{ 0 },
};

/* After the examples: every counter with its meaning, from the schema. */
static char *report_help(int key, const char *text, void *input)
{
	char *counters, *all;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC || !(counters = schema_describe()))
		return (char *)text;
	if (asprintf(&all, "%s\nWhat each family counts (keys of --format json and csv; metric "
		     "names FAMILY.KEY for compare and gate):\n\n%s", text ? text : "", counters) < 0)
		all = (char *)text;
	free(counters);
	return all;
}

static const struct argp report_argp = {
	report_options, report_parse, "[FILE]",
	"Print the per-filesystem skip report of FILE, a profile that 'permscope "
	"record' wrote.  Without FILE, record this machine for 5 seconds first.\v"
	"Sections: MAY_EXEC directory checks per filesystem (did skip: the lookup "
	"fast path took it; would skip: the directory is eligible; the main reason "
	"when it is not), the access and exec outcome tables and latency histograms "
	"in log2 buckets, each holding the calls from its first bound up to its second, "
	"durations in ns, us, ms or s (us as the µ sign where the locale is UTF-8).  "
	"A '-' is a counter the profile lacks "
	"(older than it, or recorded with --lean).  --format html gives one page that "
	"stands alone: the tables, and the charts as inline SVG.\n\n"
	"Examples:\n"
	"  permscope report                         5 s of this machine\n"
	"  permscope report -d 30 --families lookup\n"
	"  permscope report build.json --format csv -o build.csv\n"
	"  permscope report build.json --format html -o build.html\n"
	"  permscope report build.json --format openmetrics --instance ci-1 -o build.om\n"
	"  promtool tsdb create-blocks-from openmetrics build.om /var/lib/prometheus\n",
	report_children, report_help, 0,
};

/*
 * --format openmetrics: every series at the profile's start and end, so a
 * profile needs both, apart; the instance is the recording host's unless
 * --instance names another.  Frees `p`.
 */
static int report_openmetrics(const struct report_cmd *c, struct profile *p)
{
	const char *instance = c->instance ? c->instance : p->hostname;
	char *buf;
	size_t len;
	int ret;

	if (!*instance || p->end_ns <= p->start_ns) {
		pr_err("%s: %s; OpenMetrics needs it", c->input ? c->input : "the recording",
		       *instance ? "the profile ends no later than it starts (its series are "
		       "timestamped at both)" : "the profile names no host: give --instance NAME");
		profile_free(p);
		return EXIT_USAGE;
	}
	buf = prom_render_openmetrics(p, instance, c->job ? c->job : REPORT_DEFAULT_JOB, &len);
	profile_free(p);
	if (!buf) {
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	ret = emit_output(c->output, buf, len);
	free(buf);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd c = { .out.offered = FORMAT_BIT(FORMAT_CSV) | FORMAT_BIT(FORMAT_HTML) |
					       FORMAT_BIT(FORMAT_OPENMETRICS) };
	struct record_opts defaults;
	struct profile p;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	record_opts_init(&c.rec);
	record_opts_init(&defaults);
	parse_command(&report_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret;
	if ((c.instance || c.job) && c.out.format != FORMAT_OPENMETRICS) {
		pr_err("--instance and --job label the series of --format openmetrics only");
		return EXIT_USAGE;
	}

	if (c.input) {
		if (memcmp(&c.rec, &defaults, sizeof(defaults))) {
			pr_err("recording options (-d, --families, --mode, --pid, --comm, --cgroup) need "
			       "no FILE");
			return EXIT_USAGE;
		}
		if (statedir_profile_read(c.input, &p, err, sizeof(err))) {
			pr_err("%s: %s", c.input, err);
			return EXIT_USAGE;
		}
	} else {
		if (!c.rec.duration_s)
			c.rec.duration_s = REPORT_DEFAULT_SECONDS;
		pr_info("No profile given: recording this machine for %.0f s.", c.rec.duration_s);
		ret = record_run(&c.rec, &p);
		if (ret != EXIT_OK) {
			profile_free(&p);
			return ret;
		}
	}

	if (c.out.format == FORMAT_OPENMETRICS)
		return report_openmetrics(&c, &p);

	out = open_memstream(&buf, &len);
	if (!out) {
		profile_free(&p);
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	switch (c.out.format) {
	case FORMAT_JSON:
		render_json(out, &p);
		break;
	case FORMAT_CSV:
		render_csv(out, &p);
		break;
	case FORMAT_HTML:
		render_html(out, &p);
		break;
	default:
		render_text(out, &p, true);
	}
	fclose(out);
	ret = emit_output(c.output, buf, len);
	free(buf);
	profile_free(&p);
	return ret;
}
