// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The gate rules parser (rules_parse(), under rules_read(): gate --rules)
 * and the metric-name lookups of the rules it accepts: each is evaluated
 * against the saved lookup profiles, as `permscope gate` does.
 */
#include "fuzz.h"
#include "metrics.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct profile base, new;
	static int loaded;
	struct rule_set rs;
	struct rule_result res;
	char *errors, err[512];

	if (!loaded) {
		fuzz_profile("compare-lookup-base.json", &base);
		fuzz_profile("compare-lookup-new.json", &new);
		loaded = 1;
	}
	/* The parser takes a length; an unterminated buffer keeps it honest. */
	rules_parse((const char *)data, size, "fuzz.rules", &rs, &errors);
	/*
	 * The first rule only, and a name no profile has (whose nearest-names
	 * search takes ~4 ms under ASan, 10 times a known name's evaluation)
	 * in one input of 16: the parser is what must run at fuzzing speed.
	 */
	if (rs.n && ((metric_family(rs.r[0].metric) >= 0 && metric_name_valid(rs.r[0].metric)) ||
		     size % 16 == 0)) {
		rs.r[0].accept_loss = 0.01;
		rule_evaluate(&rs.r[0], &base, &new, &res, err, sizeof(err));
	}
	free(errors);
	rules_free(&rs);
	return 0;
}
