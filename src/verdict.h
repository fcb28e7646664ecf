/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The verdict of a gate rule (rules.h) on a base and a new profile: PASS,
 * FAIL or NO-VERDICT, with the values behind it and, without a verdict, the
 * reason (docs/gate-rules.md, "Evaluation").
 */
#ifndef PERMSCOPE_VERDICT_H
#define PERMSCOPE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"
#include "rules.h"
#include "stats.h"

/* EXPR with `base` standing for the given mean of the base profile. */
double rule_threshold(const struct rule *r, double base);
/* new OP threshold */
bool rule_compare(enum rule_op op, double new, double threshold);

enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_NO_VERDICT };
extern const char *const verdict_names[3];  /* "pass", "fail", "no-verdict" */

struct rule_result {
	enum verdict verdict;
	bool has_values;       /* new, base and threshold are known */
	double new, base, threshold; /* means; threshold from base */
	size_t n_new, n_base;        /* samples on each side */
	bool tested;           /* the rule's test (Welch's t or Mann-Whitney) decided: p is set */
	double p;
	enum mw_method method; /* Mann-Whitney: exact or normal p; MW_NONE for Welch */
	bool not_significant;  /* PASS only because p >= STATS_ALPHA ("~") */
	char reason[256];      /* why NO-VERDICT, or a note; "" when none */
	bool left_out;         /* gate --only-recorded left it out (reason says why): no verdict */
};

/*
 * Evaluate rule `r` on the profiles `base` and `new`.  Returns 0 with `res`
 * filled in, or -1 when the metric is unknown (bad input): `err` then says
 * "FILE:LINE: unknown metric ..." with the nearest known names.
 */
int rule_evaluate(const struct rule *r, const struct profile *base, const struct profile *new,
		  struct rule_result *res, char *err, size_t errlen);
/*
 * Whether gate --only-recorded leaves rule `r` out: its family was asked to
 * record in neither profile (not requested on both sides), so the pair has
 * nothing to say about it.  A family that was asked for and did not attach
 * is no reason: its rules are judged, and have no verdict.  True with
 * `why` "neither profile recorded the F family (not requested)".
 */
bool rule_left_out(const struct rule *r, const struct profile *base, const struct profile *new,
		   char *why, size_t len);
/*
 * The gate's one verdict on its rules' (count[V]: how many had verdict V):
 * FAIL when a rule failed, else NO-VERDICT when one had none or when none
 * was judged (every rule left out), else PASS.
 */
enum verdict verdicts_overall(const size_t count[3]);

#endif
