/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rules of `permscope gate` (docs/gate-rules.md): one a line,
 *   METRIC OP EXPR [significant]
 * with OP one of >= <= > < == != and EXPR a NUMBER, `base`, or
 * `base * NUMBER`, `base + NUMBER`, `base - NUMBER` (`baseline` is read as
 * `base`).  A rule judges the new profile against the base profile.
 * Parsing lives here and a rule's verdict against two profiles in
 * verdict.h, both apart from the command (src/cmd/cmd_gate.c) so that unit
 * tests and the fuzzer can call them.
 */
#ifndef PERMSCOPE_RULES_H
#define PERMSCOPE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"
#include "stats.h"

enum rule_op { RULE_GE, RULE_LE, RULE_GT, RULE_LT, RULE_EQ, RULE_NE, RULE_OPS };

enum rule_expr {
	EXPR_NUMBER,   /* NUMBER */
	EXPR_BASE,     /* base */
	EXPR_BASE_MUL, /* base * NUMBER */
	EXPR_BASE_ADD, /* base + NUMBER */
	EXPR_BASE_SUB, /* base - NUMBER */
};

struct rule {
	char metric[METRIC_NAME_LEN];
	enum rule_op op;
	enum rule_expr expr;
	double number;     /* the expression's NUMBER; 0 for EXPR_BASE */
	bool significant;
	double accept_loss; /* the share of lost events still judged (gate --accept-loss) */
	bool allow_mode_mismatch; /* judged across attach modes (gate --allow-mode-mismatch) */
	enum stats_test test; /* what tests `significant` (gate --test; Welch's t by default) */
	const char *file;  /* the set's file name */
	int line;          /* 1-based */
	char *text;        /* the rule as written: no comment, no outer blanks */
};

struct rule_set {
	char *file;
	struct rule *r;
	size_t n, cap;
};

/*
 * Parse rules from `text` (`len` bytes; may hold NULs, which are bad
 * characters), naming them after `file` in messages.  Every bad line gives
 * one message "FILE:LINE:COL: expected X, found 'Y'" (or "found end of
 * line"), each ending in '\n', concatenated in *errors (malloc'ed; NULL
 * when there are none).  Returns the number of bad lines, or -ENOMEM.
 * `out` holds the good rules either way; rules_free() it.
 */
int rules_parse(const char *text, size_t len, const char *file, struct rule_set *out,
		char **errors);
/* The largest rules file read; the default rules are 4 KiB. */
#define RULES_MAX_BYTES (1u << 20)
/*
 * The same from a file; -errno (and nothing in `out`) when it cannot be
 * opened or read.  A FIFO, device or socket, or a file over RULES_MAX_BYTES,
 * is one line of *errors ("FILE: a FIFO, not a regular file") and returns 1.
 */
int rules_read(const char *path, struct rule_set *out, char **errors);
void rules_free(struct rule_set *rs);

const char *rule_op_name(enum rule_op op);

#endif
