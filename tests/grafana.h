/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The PromQL of a Grafana dashboard (contrib/grafana/), as Grafana would
 * send it, for the tests that check it: test_contrib parses every query
 * with promtool, test_live_dashboard runs every one against a real
 * Prometheus scraping a real daemon.  Written once so that both check the
 * same queries:
 *
 * - grafana_queries(): every panel target's `expr` (row panels' nested
 *   panels too) and every query variable's label_values(), with the
 *   dashboard's variables replaced by the values the caller gives;
 * - grafana_free_queries().
 *
 * Grafana's own variables ($__rate_interval, $__interval, $__range) are
 * values like any other: the caller says what they stand for.  A variable
 * the caller did not give fails the test, so a query can never reach
 * Prometheus with a `$` left in it.  Needs testutil.h and jansson.
 */
#ifndef PERMSCOPE_GRAFANA_H
#define PERMSCOPE_GRAFANA_H

#include <ctype.h>
#include <jansson.h>

#include "testutil.h"

struct grafana_query {
	char *panel;    /* the panel's title, or "variable NAME" */
	char *ref;      /* the target's refId ("" for a variable) */
	char *family;   /* "lookup", "access" or "exec" when it reads only that
			 * family's metrics, "bpf" when only the BPF
			 * programs' statistics (--bpf-stats), else NULL */
	char *expr;     /* the PromQL, variables replaced */
};

/* One variable: `$NAME`, `${NAME}` or `${NAME:format}` stands for VALUE. */
struct grafana_var {
	const char *name;
	const char *value;
};

/* TEXT with each variable replaced by its value; fails on an unknown one. */
static inline char *grafana_substitute(const char *text, const struct grafana_var *vars,
				       const char *where)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	for (const char *c = text; *c; c++) {
		char name[64];
		size_t n;
		bool braces = c[0] == '$' && c[1] == '{', found = false;

		if (c[0] != '$') {
			fputc(*c, f);
			continue;
		}
		if (braces)
			n = strcspn(c + 2, ":}");
		else
			for (n = 0; isalnum((unsigned char)c[1 + n]) || c[1 + n] == '_'; n++)
				;
		if (n == 0 || n >= sizeof(name))
			fail_msg("%s: a '$' that starts no variable in %s", where, text);
		memcpy(name, c + 1 + braces, n);
		name[n] = 0;
		for (const struct grafana_var *v = vars; v->name && !found; v++)
			if (!strcmp(v->name, name)) {
				fputs(v->value, f);
				found = true;
			}
		if (!found)
			fail_msg("%s: variable $%s has no value for the test in %s", where, name,
				 text);
		c += braces ? 2 + strcspn(c + 2, "}") : n;
	}
	assert_int_equal(fclose(f), 0);
	return out;
}

/*
 * The family whose metrics EXPR reads, when it reads one family's alone:
 * permscope_FAMILY_... or the recording rules' permscope:FAMILY_...; "bpf"
 * counts as one (permscope_bpf_program_...: there only with --bpf-stats).
 */
static inline char *grafana_family(const char *expr)
{
	static const char *const families[] = { "lookup", "access", "exec", "bpf" };
	const char *found = NULL;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		char a[32], b[32];

		snprintf(a, sizeof(a), "permscope_%s_", families[i]);
		snprintf(b, sizeof(b), "permscope:%s_", families[i]);
		if (strstr(expr, a) || strstr(expr, b)) {
			if (found)
				return NULL;
			found = families[i];
		}
	}
	return found ? strdup(found) : NULL;
}

static inline void grafana_add(struct grafana_query **qs, size_t *n, const char *panel,
			       const char *ref, const char *expr, const struct grafana_var *vars)
{
	struct grafana_query *q;
	char *where;

	*qs = realloc(*qs, (*n + 1) * sizeof(**qs));
	assert_non_null(*qs);
	q = &(*qs)[(*n)++];
	assert_true(asprintf(&where, "panel \"%s\" target %s", panel, ref) > 0);
	q->panel = strdup(panel);
	q->ref = strdup(ref);
	q->expr = grafana_substitute(expr, vars, where);
	q->family = grafana_family(q->expr);
	free(where);
}

static inline void grafana_panels(json_t *panels, struct grafana_query **qs, size_t *n,
				  const struct grafana_var *vars)
{
	size_t i, j;
	json_t *p, *t;

	json_array_foreach(panels, i, p) {
		const char *title = json_string_value(json_object_get(p, "title"));

		if (!title)
			fail_msg("a panel (#%zu) has no title", i);
		grafana_panels(json_object_get(p, "panels"), qs, n, vars); /* a row's */
		json_array_foreach(json_object_get(p, "targets"), j, t) {
			const char *expr = json_string_value(json_object_get(t, "expr"));
			const char *ref = json_string_value(json_object_get(t, "refId"));

			if (!expr || !ref)
				fail_msg("panel \"%s\": target #%zu has no expr or refId", title, j);
			grafana_add(qs, n, title, ref, expr, vars);
		}
	}
}

/*
 * Every query of dashboard DASH, with VARS (ending with { NULL }) replaced:
 * the panels' targets in order, then each query variable's
 * label_values(METRIC, LABEL), asked as `count by (LABEL) (METRIC)` (what
 * Grafana asks /api/v1/series is the same question).  Returns how many, the
 * array in *out.
 */
static inline size_t grafana_queries(json_t *dash, const struct grafana_var *vars,
				     struct grafana_query **out)
{
	json_t *v;
	size_t n = 0, i;

	*out = NULL;
	grafana_panels(json_object_get(dash, "panels"), out, &n, vars);
	json_array_foreach(json_object_get(json_object_get(dash, "templating"), "list"), i, v) {
		const char *type = json_string_value(json_object_get(v, "type"));
		const char *name = json_string_value(json_object_get(v, "name"));
		json_t *q = json_object_get(v, "query");
		const char *text = json_is_object(q) ? json_string_value(json_object_get(q, "query"))
						     : json_string_value(q);
		char metric[256], label[64], panel[128], expr[512];

		if (!type || strcmp(type, "query"))
			continue;
		if (!text || sscanf(text, "label_values(%255[^,], %63[^)])", metric, label) != 2)
			fail_msg("variable %s: no label_values(METRIC, LABEL) query", name);
		snprintf(panel, sizeof(panel), "variable %s", name);
		snprintf(expr, sizeof(expr), "count by (%s) (%s)", label, metric);
		grafana_add(out, &n, panel, "", expr, vars);
	}
	return n;
}

static inline void grafana_free_queries(struct grafana_query *qs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(qs[i].panel);
		free(qs[i].ref);
		free(qs[i].family);
		free(qs[i].expr);
	}
	free(qs);
}

#endif
