// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's state directory as a reader sees it (statedir_open() on a
 * restart, statedir_profile_read() of a directory): its file names, then the newest
 * running total.  The input is the directory: one file name a line up to
 * the first empty line, then that snapshot's text.  In memory, so that it
 * runs at fuzzing speed: the static name parser is reached by including
 * statedir.c, and the snapshot goes through profile_from_json() as
 * profile_read() would pass it.
 */
#include "fuzz.h"
#include "../../src/statedir.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *p = text, *nl, err[512];
	struct scan s = { .dirfd = -1 };
	struct profile prof;
	uint64_t seq;
	bool total;

	while ((nl = strchr(p, '\n')) && nl != p) {
		*nl = 0;
		if (strlen(p) <= NAME_MAX && !strchr(p, '/'))
			scan_entry(p, &s);
		p = nl + 1;
	}
	/* the newest total is a total, and its number is the one kept */
	if (s.any_total && (!snapshot_seq(s.newest, &total, &seq) || !total || seq != s.newest_total))
		abort();
	if (nl) {
		if (!profile_from_json(nl + 1, &prof, err, sizeof(err)))
			free(profile_to_json(&prof));
		profile_free(&prof);
	}
	free(text);
	return 0;
}
