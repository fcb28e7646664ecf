// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The mbox splitter and series reader (series_parse_mbox(), what
 * `permscope series` and tools/permscope-bisect run on an mbox from b4,
 * lore or git format-patch).  Besides not crashing, what it gives holds
 * its promises: every patch has a safe name in order and a printable
 * subject, a numbered series is 1..m once each, and nothing exceeds the
 * limits it names.
 */
#include "fuzz.h"
#include "series.h"

static void check_name(const struct series_patch *p, size_t i)
{
	char want[8];

	snprintf(want, sizeof(want), "%04zu", i + 1);
	if (strncmp(p->name, want, 4) || strlen(p->name) < 10 ||
	    strcmp(p->name + strlen(p->name) - 6, ".patch"))
		abort();
	for (const char *c = p->name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
		    *c != '-' && *c != '.' && *c != '_')
			abort();
	if (strstr(p->name, ".."))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct series s;
	char err[1024];

	if (series_parse_mbox((const char *)data, size, &s, err, sizeof(err))) {
		if (!err[0])
			abort(); /* a refusal always says why */
		return 0;
	}
	if (!s.npatches || s.npatches > SERIES_MAX_PATCHES || s.nmessages > SERIES_MAX_MESSAGES ||
	    s.npatches + s.nskipped > s.nmessages)
		abort();
	for (size_t i = 0; i < s.npatches; i++) {
		const struct series_patch *p = &s.patches[i];

		check_name(p, i);
		if (p->total && (p->number != i + 1 || p->total != s.npatches))
			abort();
		if (strlen(p->text) != p->len || p->len > size)
			abort();
		for (const char *c = p->subject; *c; c++)
			if ((unsigned char)*c < ' ' || *c == 127)
				abort();
	}
	series_free(&s);
	return 0;
}
