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

/*
 * SKIPPED is "not asked": the rule's family was in neither side's recording
 * (or outside gate --families), so the pair says nothing about it and the
 * gate's status ignores it.  NO-VERDICT is "could not tell": asked for, and
 * no evidence (it did not attach, lost events, modes differ, too few runs).
 */
enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_NO_VERDICT, VERDICT_SKIPPED, VERDICTS };
extern const char *const verdict_names[VERDICTS]; /* "pass", "fail", "no-verdict", "skipped" */

struct rule_result {
	enum verdict verdict;
	bool has_values;       /* new, base and threshold are known */
	double new, base, threshold; /* means; threshold from base */
	size_t n_new, n_base;        /* samples on each side */
	bool tested;           /* the rule's test (Welch's t or Mann-Whitney) decided: p is set */
	double p;
	enum mw_method method; /* Mann-Whitney: exact or normal p; MW_NONE for Welch */
	bool not_significant;  /* PASS only because p >= STATS_ALPHA ("~") */
	char reason[256];      /* why NO-VERDICT or SKIPPED, or a note; "" when none */
};

/*
 * Evaluate rule `r` on the profiles `base` and `new`.  Returns 0 with `res`
 * filled in, or -1 when the metric is unknown (bad input): `err` then says
 * "FILE:LINE: unknown metric ..." with the nearest known names.
 */
int rule_evaluate(const struct rule *r, const struct profile *base, const struct profile *new,
		  struct rule_result *res, char *err, size_t errlen);
/*
 * Whether gate skips rule `r` ("not asked"): with `scope` (gate --families:
 * scope[F] true for each family named), when its family is not in it;
 * without (scope NULL), when neither profile was asked to record its
 * family.  A family that was asked for and did not attach is no reason: its
 * rules are judged, and have no verdict.  bench.* rules are never skipped.
 * True with `why` set ("neither profile was asked to record the lookup
 * family").
 */
bool rule_skipped(const struct rule *r, const struct profile *base, const struct profile *new,
		  const bool *scope, char *why, size_t len);
/*
 * The gate's one verdict on its rules' (count[V]: how many had verdict V):
 * FAIL when a rule failed, else NO-VERDICT when one had none or when none
 * was judged (every rule skipped), else PASS.  Skipped rules count for
 * nothing.
 */
enum verdict verdicts_overall(const size_t count[VERDICTS]);
/*
 * Whether a judged rule's verdict is near its threshold, so that one run
 * may not settle it (tools/permscope-bisect runs such a step again): a
 * latency metric (a name holding ".latency") always is, timing being
 * noisy; a rule `base + N` or `base - N` is when the new value lies within
 * N (its slack) of the threshold, on either side, and differs from base (a
 * value equal to base moved nothing).  Other rules (`== 0`, a NUMBER,
 * `base`, `base * N`) never are; neither is a rule without a verdict.
 */
bool rule_near(const struct rule *r, const struct rule_result *res);

#endif
