// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The gate rules parser (rules_parse(), under rules_read(): gate --rules)
 * and the evaluation of every rule it accepts, as `permscope gate` does,
 * against the saved profiles: rule i against pair i mod 3 (lookup base and
 * new, access base and new, the sample profile with all three families
 * against the lookup one), so each rule is judged once and every pair is
 * reached by inputs of three rules or more.
 */
#include "fuzz.h"
#include "metrics.h"
#include "rules.h"
#include "verdict.h"

#define NPAIRS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct profile p[5];
	static const int pair[NPAIRS][2] = { { 0, 1 }, { 2, 3 }, { 4, 1 } };
	static int loaded;
	struct rule_set rs;
	struct rule_result res;
	char *errors, err[512];

	if (!loaded) {
		fuzz_profile("compare-lookup-base.json", &p[0]);
		fuzz_profile("compare-lookup-new.json", &p[1]);
		fuzz_profile("compare-access-base.json", &p[2]);
		fuzz_profile("compare-access-new.json", &p[3]);
		fuzz_profile("sample-profile.json", &p[4]);
		loaded = 1;
	}
	/* The parser takes a length; an unterminated buffer keeps it honest. */
	rules_parse((const char *)data, size, "fuzz.rules", &rs, &errors);
	for (size_t i = 0; i < rs.n; i++) {
		const struct rule *r = &rs.r[i];
		const int *pp = pair[i % NPAIRS];

		/*
		 * A name no profile has is evaluated in one input of 16: its
		 * nearest-names search takes ~4 ms under ASan, 10 times a known
		 * name's evaluation, and the parser must run at fuzzing speed.
		 */
		if (!(metric_family(r->metric) >= 0 && metric_name_valid(r->metric)) && size % 16)
			continue;
		rs.r[i].accept_loss = i % 2 ? 0.01 : 0;
		if (rule_evaluate(&rs.r[i], &p[pp[0]], &p[pp[1]], &res, err, sizeof(err)) == 0 &&
		    ((int)res.verdict < 0 || res.verdict > VERDICT_NO_VERDICT))
			abort(); /* a verdict outside PASS, FAIL and NO-VERDICT */
	}
	free(errors);
	rules_free(&rs);
	return 0;
}
