// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What permscope gate writes for programs, beside the text it prints for
 * people: the verdicts as JSON (-o, -j), as JUnit XML (--junit) and as the
 * verdict file (--verdict-file), one line a rule for a shell script
 * (docs/gate-rules.md).  Apart from cmd_gate.c, which parses the command
 * line and judges the rules, because these are documents with their own
 * formats, and a caller reads each of them without the others.
 */
#include "cmd/gate_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "render.h"
#include "util.h"

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
void values_text(const struct rule *r, const struct rule_result *res, bool fleet,
			char *buf, size_t size)
{
	char v[3][DURATION_LEN];
	size_t off = 0;

	buf[0] = 0;
	/* a latency with its unit, as report and compare print it; the rest as numbers */
	if (strstr(r->metric, ".latency.")) {
		enum charset cs = text_charset();

		format_duration(v[0], sizeof(v[0]), res->new, false, cs);
		format_duration(v[1], sizeof(v[1]), res->base, false, cs);
		format_duration(v[2], sizeof(v[2]), res->threshold, false, cs);
	} else {
		snprintf(v[0], sizeof(v[0]), "%.6g", res->new);
		snprintf(v[1], sizeof(v[1]), "%.6g", res->base);
		snprintf(v[2], sizeof(v[2]), "%.6g", res->threshold);
	}
	if (res->has_values)
		off = snprintf(buf, size, "new %s  base %s  threshold %s %s", v[0], v[1],
			       rule_op_name(r->op), v[2]);
	else if (res->n_new)
		off = snprintf(buf, size, "new %s", v[0]);
	else if (res->n_base)
		off = snprintf(buf, size, "base %s", v[1]);
	if (res->tested && off < size)
		off += (size_t)snprintf(buf + off, size - off, "%s%sp=%.2g", off ? "  " : "",
					res->not_significant ? "~ " : "", res->p);
	if (fleet && (res->n_base || res->n_new) && off < size)
		snprintf(buf + off, size - off, "%shosts %zu:%zu", off ? "  " : "", res->n_base,
			 res->n_new);
}

/* Whether a rule asks for significance: only then does the test matter. */
bool any_significant(const struct rule_set *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].significant)
			return true;
	return false;
}

const char *const side_words[2] = { "base", "new" };

/*
 * A side's duty-cycled families, "observed": {"access": {"window_s",
 * "period_s", "seconds", "windows", "failed_windows"}}; none when every
 * family counted every call.
 */
static void observed_json(json_t *side, const struct profile *p)
{
	json_t *obs = NULL, *o;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!(o = render_observed_json(&p->fam[f])))
			continue;
		if (!obs && !(obs = json_object())) {
			json_decref(o);
			return;
		}
		json_object_set_new(obs, family_name(f), o);
	}
	if (obs)
		json_object_set_new(side, "observed", obs);
}

char *verdicts_json(const struct gate_sides *sd, const struct rule_set *rs,
		    const struct rule_result *res, const size_t count[VERDICTS], int status)
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
			json_object_set_new(json_array_get(rules, json_array_size(rules) - 1), "p_method",
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
		observed_json(side, p);
		json_object_set_new(root, side_words[i], side);
	}
	json_object_set_new(root, "rules", rules);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(root);
	return text;
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

/*
 * A document built in memory (open_memstream() on *buf, *len), closed and
 * written to `path` atomically, so that a reader never sees half of it;
 * 0 or -errno.
 */
static int commit_stream(FILE *f, char **buf, size_t *len, const char *path)
{
	int err;

	if (fclose(f)) {
		free(*buf);
		return -ENOMEM;
	}
	err = write_file_atomic(path, *buf, *len, false);
	free(*buf);
	return err;
}

int write_junit(const char *path, const struct gate_sides *sd, const struct rule_set *rs,
		const struct rule_result *res, const size_t count[VERDICTS])
{
	char *buf = NULL, values[256], build[160];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -errno;
	/* could not tell is an error, red in CI as the exit status is; not asked a skip */
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuite name=\"permscope gate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"skipped=\"%zu\">\n", rs->n, count[VERDICT_FAIL], count[VERDICT_NO_VERDICT],
		count[VERDICT_SKIPPED]);
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
			fputs(">\n    <error type=\"no-verdict\" message=\"no verdict: ", f);
			xml_escape(f, res[i].reason);
			fputs("\"/>\n  </testcase>\n", f);
			break;
		case VERDICT_SKIPPED:
		case VERDICTS:
			fputs(">\n    <skipped message=\"not asked: ", f);
			xml_escape(f, res[i].reason);
			fputs("\"/>\n  </testcase>\n", f);
			break;
		}
	}
	fputs("</testsuite>\n", f);
	return commit_stream(f, &buf, &len, path);
}

/* A field of the verdict file: no tab, newline or other control byte splits a line. */
static void tsv_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/*
 * A mean in the verdict file, as the JSON writes it (jansson, 17
 * significant digits: "200.0", "0.01"), so that a script prints the same
 * figure from either; "-" where there is none.
 */
static void tsv_number(FILE *f, bool known, double v)
{
	json_t *j = known ? json_real(v) : NULL;
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;

	if (text)
		fputs(text, f);
	else if (known) /* NaN or an infinity, which JSON cannot hold */
		fprintf(f, "%g", v);
	else
		fputc('-', f);
	free(text);
	json_decref(j);
}



int write_verdict_file(const char *path, const struct rule_set *rs,
		       const struct rule_result *res, const size_t count[VERDICTS], int status)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -errno;
	fprintf(f, "gate\t%s\t%d\t%zu\t%zu\t%zu\t%zu\n", verdict_names[verdicts_overall(count)],
		status, count[VERDICT_PASS], count[VERDICT_FAIL], count[VERDICT_NO_VERDICT],
		count[VERDICT_SKIPPED]);
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule_result *x = &res[i];

		fprintf(f, "%s\t%s\t", verdict_names[x->verdict], rs->r[i].metric);
		tsv_field(f, rs->r[i].text);
		fputc('\t', f);
		tsv_number(f, x->has_values || x->n_new, x->new);
		fputc('\t', f);
		tsv_number(f, x->has_values || x->n_base, x->base);
		fputc('\t', f);
		tsv_field(f, x->reason);
		fputc('\t', f);
		tsv_number(f, x->has_values, x->threshold);
		fprintf(f, "\t%s\n", rule_near(&rs->r[i], x) ? "near" : "-");
	}
	return commit_stream(f, &buf, &len, path);
}
