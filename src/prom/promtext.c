// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exposition writer behind src/prom/promtext.h: escaping, labels in
 * order, one family's HELP and samples gathered and written together.
 */
#include "prom/promtext.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ------------------------------------------------------------ */

/* HELP text escapes backslash and newline; label values the double quote too. */
static void put_escaped(FILE *out, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && quote)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

void prom_format_double(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void prom_label(struct labels *ls, const char *name, const char *value)
{
	if (ls->n < MAX_LABELS)
		ls->l[ls->n++] = (struct label){ name, value };
}

/* Alphabetical order, but le last as client libraries write it. */
static int label_before(const struct label *a, const struct label *b)
{
	if (!strcmp(a->name, "le") || !strcmp(b->name, "le"))
		return strcmp(b->name, "le") == 0 && strcmp(a->name, "le") != 0;
	return strcmp(a->name, b->name) < 0;
}

static void put_labels(FILE *out, const struct labels *in)
{
	struct labels ls = in ? *in : (struct labels){ .n = 0 };

	for (int i = 1; i < ls.n; i++) /* insertion sort: a handful at most */
		for (int j = i; j > 0 && label_before(&ls.l[j], &ls.l[j - 1]); j--) {
			struct label t = ls.l[j];

			ls.l[j] = ls.l[j - 1];
			ls.l[j - 1] = t;
		}
	if (!ls.n)
		return;
	fputc('{', out);
	for (int i = 0; i < ls.n; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", ls.l[i].name);
		put_escaped(out, ls.l[i].value, true);
		fputc('"', out);
	}
	fputc('}', out);
}

/* ---- metric families ------------------------------------------------- */

void prom_begin(struct prom *pr, const char *type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->name, sizeof(pr->name), fmt, ap);
	va_end(ap);
	pr->type = type;
	pr->help_buf = pr->body_buf = NULL;
	pr->help = open_memstream(&pr->help_buf, &pr->help_len);
	pr->body = open_memstream(&pr->body_buf, &pr->body_len);
	if (!pr->help || !pr->body)
		pr->failed = true;
}

void prom_help(struct prom *pr, const char *fmt, ...)
{
	va_list ap;

	if (!pr->help)
		return;
	va_start(ap, fmt);
	vfprintf(pr->help, fmt, ap);
	va_end(ap);
}

/*
 * Seconds with the milliseconds: S.mmm.  Prometheus reads an OpenMetrics
 * timestamp as a double and truncates it times 1000 to milliseconds
 * (2.42's openmetricsparse.go), so an S.mmm whose nearest double lies just
 * below would read back a millisecond early: that one is written S.mmm1,
 * a tenth of a millisecond above, which every reader rounds or truncates
 * to the same millisecond.
 */
static void format_ms(char *buf, size_t size, uint64_t ms)
{
	snprintf(buf, size, "%llu.%03llu", (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000));
	if ((uint64_t)(strtod(buf, NULL) * 1000) != ms)
		snprintf(buf, size, "%llu.%03llu1", (unsigned long long)(ms / 1000),
			 (unsigned long long)(ms % 1000));
}

static void sample_line(struct prom *pr, const char *suffix, const struct labels *ls,
			const char *value, int point)
{
	char ts[32];

	fprintf(pr->body, "%s%s", pr->name, suffix);
	put_labels(pr->body, ls);
	fprintf(pr->body, " %s", value);
	if (point >= 0) {
		format_ms(ts, sizeof(ts), pr->at_ms[point]);
		fprintf(pr->body, " %s", ts);
	}
	fputc('\n', pr->body);
}

/*
 * One sample NAME[SUFFIX]{LABELS} VALUE of the family in progress.  In
 * OpenMetrics, a counter's or histogram's series is 0 at the start and
 * VALUE at the end (what increase() over start..end gives back), a
 * gauge's VALUE at both.
 */
void prom_sample(struct prom *pr, const char *suffix, const struct labels *ls,
		 const char *value)
{
	struct labels all = ls ? *ls : (struct labels){ .n = 0 };
	bool gauge = !strcmp(pr->type, "gauge");

	if (!pr->body)
		return;
	if (!pr->om) {
		sample_line(pr, suffix, ls, value, -1);
		return;
	}
	prom_label(&all, "instance", pr->instance);
	prom_label(&all, "job", pr->job);
	for (int point = 0; point < 2; point++)
		if (pr->point < 0 || pr->point == point)
			sample_line(pr, suffix, &all, point == 0 && !gauge ? "0" : value, point);
}

void prom_sample_u64(struct prom *pr, const char *suffix, const struct labels *ls, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	prom_sample(pr, suffix, ls, buf);
}

void prom_sample_double(struct prom *pr, const char *suffix, const struct labels *ls,
			double v)
{
	char buf[32];

	prom_format_double(buf, sizeof(buf), v);
	prom_sample(pr, suffix, ls, buf);
}

void prom_end(struct prom *pr)
{
	bool ok = pr->help && pr->body;

	if (pr->help && fclose(pr->help))
		ok = false;
	if (pr->body && fclose(pr->body))
		ok = false;
	if (!ok)
		pr->failed = true;
	else if (pr->body_len) {
		/* OpenMetrics names a counter without the _total of its samples */
		int n = (int)strlen(pr->name);

		if (pr->om && !strcmp(pr->type, "counter") && n > 6 &&
		    !strcmp(pr->name + n - 6, "_total"))
			n -= 6;
		fprintf(pr->out, "# HELP %.*s ", n, pr->name);
		/* OpenMetrics escapes the double quote in HELP too */
		put_escaped(pr->out, pr->help_buf, pr->om);
		fprintf(pr->out, "\n# TYPE %.*s %s\n", n, pr->name, pr->type);
		fwrite(pr->body_buf, 1, pr->body_len, pr->out);
	}
	free(pr->help_buf);
	free(pr->body_buf);
	pr->help = pr->body = NULL;
	pr->help_buf = pr->body_buf = NULL;
}
