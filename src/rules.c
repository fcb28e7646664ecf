// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Gate rules: the line grammar, parsed with exact, located messages
 * ("FILE:LINE:COL: expected X, found 'Y'").  What a rule's verdict is
 * against two profiles is verdict.c.
 */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const op_names[RULE_OPS] = {
	[RULE_GE] = ">=", [RULE_LE] = "<=", [RULE_GT] = ">",
	[RULE_LT] = "<", [RULE_EQ] = "==", [RULE_NE] = "!=",
};

const char *rule_op_name(enum rule_op op)
{
	return op < RULE_OPS ? op_names[op] : "?";
}

/* Messages quote at most this many bytes of the offending token. */
#define FOUND_MAX 40

struct parser {
	const char *file;
	int line;
	const char *bol;  /* start of the line: columns count bytes from here */
	char *errors;     /* concatenated messages */
	size_t errlen;
	int nerrors;
	bool nomem;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool op_char(char c)
{
	return c == '<' || c == '>' || c == '=' || c == '!';
}

static bool name_char(char c)
{
	return isascii((unsigned char)c) && (isalnum((unsigned char)c) || c == '_' || c == '.');
}

/* Inside [fsname]: printable ASCII but blanks, brackets, '#' and operators. */
static bool fs_char(char c)
{
	return c > ' ' && c < 0x7f && c != '[' && c != ']' && c != '#' && !op_char(c);
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && blank(*p))
		p++;
	return p;
}

/* The end of the run of non-blank characters at p. */
static const char *word_end(const char *p, const char *e)
{
	while (p < e && !blank(*p))
		p++;
	return p;
}

/*
 * One message: "FILE:LINE:COL: expected WHAT, found 'TOKEN'" for the token
 * [p, q), or "found end of line" when p == q.
 */
static void bad(struct parser *ps, const char *p, const char *q, const char *what)
{
	char found[FOUND_MAX + 8], *msg;
	size_t n = 0;
	int len;

	if (p == q) {
		strcpy(found, "end of line");
	} else {
		found[n++] = '\'';
		for (const char *c = p; c < q && n < FOUND_MAX + 1; c++)
			found[n++] = *c >= ' ' && *c < 0x7f ? *c : '?';
		if (q - p > FOUND_MAX) {
			n = FOUND_MAX + 1;
			memcpy(found + n, "...", 3);
			n += 3;
		}
		found[n++] = '\'';
		found[n] = 0;
	}
	ps->nerrors++;
	len = snprintf(NULL, 0, "%s:%d:%d: expected %s, found %s\n", ps->file, ps->line,
		       (int)(p - ps->bol) + 1, what, found);
	msg = realloc(ps->errors, ps->errlen + len + 1);
	if (!msg) {
		ps->nomem = true;
		return;
	}
	ps->errors = msg;
	snprintf(msg + ps->errlen, len + 1, "%s:%d:%d: expected %s, found %s\n", ps->file,
		 ps->line, (int)(p - ps->bol) + 1, what, found);
	ps->errlen += len;
}

/*
 * The length of a NUMBER at p: [+-]? (D+ ('.' D*)? | '.' D+) ([eE] [+-]? D+)?
 * 0 when there is none.
 */
static size_t lex_number(const char *p, const char *e)
{
	const char *s = p, *d;

	if (s < e && (*s == '+' || *s == '-'))
		s++;
	d = s;
	while (s < e && isdigit((unsigned char)*s))
		s++;
	if (s < e && *s == '.') {
		s++;
		while (s < e && isdigit((unsigned char)*s))
			s++;
	}
	if (s - d == 0 || (s - d == 1 && *d == '.'))
		return 0;
	if (s < e && (*s == 'e' || *s == 'E')) {
		const char *x = s + 1;

		if (x < e && (*x == '+' || *x == '-'))
			x++;
		if (x < e && isdigit((unsigned char)*x)) {
			while (x < e && isdigit((unsigned char)*x))
				x++;
			s = x;
		}
	}
	return s - p;
}

/*
 * A NUMBER token at p that ends at a blank or the end of the line.  On
 * success *q is its end and *v its value; else a message saying `what`.
 */
static bool number(struct parser *ps, const char *p, const char *e, const char *what,
		   const char **q, double *v)
{
	size_t n = lex_number(p, e);
	char buf[128];

	if (!n || (p + n < e && !blank(p[n]))) {
		bad(ps, p, word_end(p, e), what);
		return false;
	}
	if (n >= sizeof(buf)) {
		bad(ps, p, p + n, "a number of at most 127 characters");
		return false;
	}
	memcpy(buf, p, n);
	buf[n] = 0;
	*v = strtod(buf, NULL);
	if (!isfinite(*v)) {
		bad(ps, p, p + n, "a finite number");
		return false;
	}
	*q = p + n;
	return true;
}

/* METRIC: [A-Za-z0-9_.]+ then an optional [fsname]. */
static bool valid_metric(const char *p, const char *q)
{
	const char *s = p;

	while (s < q && name_char(*s))
		s++;
	if (s == p)
		return false;
	if (s == q)
		return true;
	if (*s++ != '[' || q - s < 2 || q[-1] != ']')
		return false;
	for (; s < q - 1; s++)
		if (!fs_char(*s))
			return false;
	return true;
}

static bool keyword(const char *p, const char *e, const char *kw)
{
	size_t n = strlen(kw);

	return (size_t)(e - p) >= n && !memcmp(p, kw, n);
}

/* One line [p, e) without its newline.  Returns 0, or -1 after a message. */
static int parse_line(struct parser *ps, const char *p, const char *e, struct rule *r)
{
	static const char ops_expected[] = "an operator (>=, <=, >, <, ==, !=)";
	const char *q, *start = p;
	const char *after_expr;

	memset(r, 0, sizeof(*r));
	/* METRIC: up to a blank or an operator character */
	for (q = p; q < e && !blank(*q) && !op_char(*q); q++)
		;
	if (q == p) {
		while (q < e && op_char(*q))
			q++;
		bad(ps, p, q, "a metric name");
		return -1;
	}
	if (!valid_metric(p, q)) {
		bad(ps, p, q, "a metric name");
		return -1;
	}
	if (q - p >= METRIC_NAME_LEN) {
		bad(ps, p, q, "a metric name of at most 79 characters");
		return -1;
	}
	memcpy(r->metric, p, q - p);
	r->metric[q - p] = 0;

	/* OP */
	p = skip_blanks(q, e);
	for (q = p; q < e && op_char(*q); q++)
		;
	if (q == p) {
		bad(ps, p, word_end(p, e), ops_expected);
		return -1;
	}
	for (r->op = 0; r->op < RULE_OPS; r->op++)
		if ((size_t)(q - p) == strlen(op_names[r->op]) && !memcmp(p, op_names[r->op], q - p))
			break;
	if (r->op == RULE_OPS) {
		bad(ps, p, q, ops_expected);
		return -1;
	}

	/* EXPR: `baseline` is the older spelling of `base` */
	p = skip_blanks(q, e);
	for (q = p; q < e && name_char(*q); q++)
		;
	if (((q - p == 4 && keyword(p, e, "base")) || (q - p == 8 && keyword(p, e, "baseline"))) &&
	    (q == e || blank(*q) || *q == '*' || *q == '+' || *q == '-')) {
		r->expr = EXPR_BASE;
		p = skip_blanks(q, e);
		if (p < e && (*p == '*' || *p == '+' || *p == '-')) {
			r->expr = *p == '*' ? EXPR_BASE_MUL : *p == '+' ? EXPR_BASE_ADD : EXPR_BASE_SUB;
			p = skip_blanks(p + 1, e);
			if (!number(ps, p, e, "a number", &q, &r->number))
				return -1;
		} else {
			q = p;
		}
		after_expr = r->expr == EXPR_BASE ?
			"'*', '+', '-', 'significant' or end of line" : "'significant' or end of line";
	} else {
		r->expr = EXPR_NUMBER;
		if (!number(ps, p, e, "a number or 'base'", &q, &r->number))
			return -1;
		after_expr = "'significant' or end of line";
	}

	/* [significant] */
	p = skip_blanks(q, e);
	if (p < e) {
		q = word_end(p, e);
		if (q - p != 11 || !keyword(p, e, "significant")) {
			bad(ps, p, q, after_expr);
			return -1;
		}
		r->significant = true;
		p = skip_blanks(q, e);
		if (p < e) {
			bad(ps, p, word_end(p, e), "end of line");
			return -1;
		}
	}
	r->line = ps->line;
	r->text = strndup(start, e - start);
	if (!r->text) {
		ps->nomem = true;
		return -1;
	}
	return 0;
}

int rules_parse(const char *text, size_t len, const char *file, struct rule_set *out,
		char **errors)
{
	struct parser ps = { .file = file };
	const char *end = text + len, *p = text;

	memset(out, 0, sizeof(*out));
	*errors = NULL;
	out->file = strdup(file);
	if (!out->file)
		return -ENOMEM;
	while (p < end && !ps.nomem) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end, *hash, *s;
		struct rule r;

		ps.line++;
		ps.bol = p;
		/* '#' starts a comment; then drop the blanks around the rest */
		hash = memchr(p, '#', e - p);
		if (hash)
			e = hash;
		while (e > p && blank(e[-1]))
			e--;
		s = skip_blanks(p, e);
		p = nl ? nl + 1 : end;
		if (s == e || parse_line(&ps, s, e, &r))
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 16;
			struct rule *m = realloc(out->r, cap * sizeof(*m));

			if (!m) {
				free(r.text);
				ps.nomem = true;
				break;
			}
			out->r = m;
			out->cap = cap;
		}
		out->r[out->n++] = r;
	}
	for (size_t i = 0; i < out->n; i++)
		out->r[i].file = out->file;
	if (ps.nomem) {
		free(ps.errors);
		rules_free(out);
		return -ENOMEM;
	}
	*errors = ps.errors;
	return ps.nerrors;
}

int rules_read(const char *path, struct rule_set *out, char **errors)
{
	char *text, why[256];
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	*errors = NULL;
	ret = read_input_file(path, RULES_MAX_BYTES, &text, &len, why, sizeof(why));
	if (ret && ret != -EINVAL && ret != -EFBIG)
		return ret; /* -errno of open or read: the caller says "cannot read PATH: why" */
	if (ret) {
		/* not a regular file, or too large: said as one line of errors */
		if (asprintf(errors, "%s: %s\n", path, why) < 0) {
			*errors = NULL;
			return -ENOMEM;
		}
		return 1;
	}
	ret = rules_parse(text, len, path, out, errors);
	free(text);
	return ret;
}

void rules_free(struct rule_set *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->r[i].text);
	free(rs->r);
	free(rs->file);
	memset(rs, 0, sizeof(*rs));
}
