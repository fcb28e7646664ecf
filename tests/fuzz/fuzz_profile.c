// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile reader (profile_from_json(), under profile_read(): report,
 * compare, merge, gate) and what the commands then do with what it
 * accepted: every renderer, the metrics, the Prometheus exposition, writing
 * it out again, which must read back, comparing that copy with it (text
 * and JSON) and merging the two.
 */
#include "fuzz.h"
#include "compare.h"
#include "metrics.h"
#include "prom/prom.h"
#include "render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *json, err[512];
	struct profile p, again;
	struct metric_list ml = { 0 };
	size_t len;

	if (profile_from_json(text, &p, err, sizeof(err))) {
		profile_free(&p);
		free(text);
		return 0;
	}
	render_text(fuzz_sink(), &p, true);
	render_json(fuzz_sink(), &p);
	render_csv(fuzz_sink(), &p);
	if (!metrics_collect(&p, &ml))
		metrics_free(&ml);
	free(prom_render(&p, NULL, &len));
	/* What permscope writes, it reads back. */
	json = profile_to_json(&p);
	if (json && profile_from_json(json, &again, err, sizeof(err))) {
		fprintf(stderr, "a profile written from an accepted one is refused: %s\n%s\n", err, json);
		abort();
	}
	if (json) {
		struct compare c = { .base = &p, .new = &again, .base_name = "a", .new_name = "b" };

		if (!compare_build(&c)) {
			compare_text(fuzz_sink(), &c);
			compare_json(fuzz_sink(), &c);
		}
		compare_free(&c);
		profile_add(&again, &p); /* merge p with its copy */
		profile_free(&again);
	}
	free(json);
	profile_free(&p);
	free(text);
	return 0;
}
