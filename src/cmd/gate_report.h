/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The documents permscope gate writes for programs (gate_report.c): JSON,
 * JUnit XML and the verdict file, from the rules and their verdicts.
 */
#ifndef PERMSCOPE_GATE_REPORT_H
#define PERMSCOPE_GATE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/commands.h"
#include "rules.h"
#include "verdict.h"

/*
 * /2: "new", "base", "n_new", "n_base" were "current", "baseline", "n_current", "n_baseline";
 * /3: "rules" holds every rule, a skipped one with verdict "skipped" (no "left_out")
 */
#define GATE_FORMAT "permscope-gate/3"

/* The two sides, path and the build that recorded each, as the reports name them. */
struct gate_sides {
	const char *name[2]; /* base, new */
	const struct profile *p[2];
	enum stats_test test; /* what tested the 'significant' rules */
	const struct prom_sides *fleet; /* the sides' hosts, from --prometheus; or NULL */
};

extern const char *const side_words[2]; /* "base", "new" */

/* Whether a rule asks for significance: only then does the test matter. */
bool any_significant(const struct rule_set *rs);
/*
 * "new X  base Y  threshold OP Z[  p=P][  hosts B:N]", the values of a
 * verdict; from Prometheus, the hosts each side's value comes from.
 */
void values_text(const struct rule *r, const struct rule_result *res, bool fleet, char *buf,
		 size_t size);
/*
 * The verdicts as one JSON document, malloc'ed; NULL when out of memory.
 * count[V] counts the rules with verdict V.
 */
char *verdicts_json(const struct gate_sides *sd, const struct rule_set *rs,
		    const struct rule_result *res, const size_t count[VERDICTS], int status);
/*
 * The verdicts as JUnit XML, written to `path` atomically; 0 or -errno.  A
 * FAIL is a <failure>, a NO-VERDICT an <error> (could not tell: never green),
 * a SKIPPED rule <skipped> (not asked).
 */
int write_junit(const char *path, const struct gate_sides *sd, const struct rule_set *rs,
		const struct rule_result *res, const size_t count[VERDICTS]);
/*
 * The verdict file (--verdict-file, docs/gate-rules.md "Verdict file"):
 * "gate VERDICT STATUS PASSED FAILED NO-VERDICT SKIPPED", then a line a
 * rule "VERDICT METRIC RULE NEW BASE REASON", tab-separated, written to
 * `path` atomically; 0 or -errno.
 */
int write_verdict_file(const char *path, const struct rule_set *rs,
		       const struct rule_result *res, const size_t count[VERDICTS], int status);

#endif
