/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The load test's judgement, written once for the live test on this kernel
 * (tests/live/test_live_load.c) and the VM suite (tests/vm/test_vm.c):
 * `workload load` prints how many calls of each kind its workers made, and
 * the profile recorded around it must hold exactly those counts, unless the
 * tool says it lost events, and then be off by no more than it lost.
 *
 * Include after testutil.h and profile.h; links with the library (render.c).
 */
#ifndef PERMSCOPE_TESTS_LOAD_H
#define PERMSCOPE_TESTS_LOAD_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "render.h"

/* What `workload load` says it did: "load: access=N access_dropcap=N exec_enoent=N stat=N". */
struct load_counts {
	unsigned long long access, access_dropcap, exec_enoent, stat;
};

/* The workload's line, found anywhere in TEXT; false when there is none. */
static inline bool load_counts_parse(const char *text, struct load_counts *c)
{
	const char *line = text ? strstr(text, "load: access=") : NULL;

	return line && sscanf(line, "load: access=%llu access_dropcap=%llu exec_enoent=%llu "
			      "stat=%llu", &c->access, &c->access_dropcap, &c->exec_enoent,
			      &c->stat) == 4;
}

/* Lost events of family F that user space read, failing if it read none. */
static inline unsigned long long load_lost(const struct profile *p, enum family_id f,
					   const char *label)
{
	const struct family_result *r = &p->fam[f];
	const char *tables[] = { "tracked_full", "no_task_storage",
				 f == FAMILY_LOOKUP ? "fs_table_full" : NULL };

	if (!r->lost_known)
		fail_msg("%s: the %s family's lost events were not read", label, family_name(f));
	/* The fixed-size tables say when they were full: a count of their own. */
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && tables[t]; t++) {
		bool listed = false;

		for (int i = 0; i < r->nlost; i++)
			listed |= !strcmp(r->lost[i].what, tables[t]);
		if (!listed)
			fail_msg("%s: the %s family reports no %s count", label, family_name(f),
				 tables[t]);
	}
	return family_lost_total(r);
}

/* GOT is WANT exactly when nothing was lost, within LOST of it otherwise. */
static inline void load_within(const char *label, const char *what, unsigned long long got,
			       unsigned long long want, unsigned long long lost)
{
	unsigned long long off = got > want ? got - want : want - got;

	if (off > lost)
		fail_msg("%s: %s recorded %llu, the workload made %llu (%s%llu lost)", label, what,
			 got, want, lost ? "only " : "", lost);
}

/*
 * Profile P, recorded around `workload load` (its counts C), holds them:
 * access calls by outcome, exec ENOENTs, and, when LOOKUP_FS is given and
 * the lookup family attached, DIRS MAY_EXEC checks a stat on that
 * filesystem.  The report text says "events not counted" exactly when
 * something was lost.  Prints the figures under LABEL.
 */
static inline void load_check_profile(const struct profile *p, const struct load_counts *c,
				      const char *lookup_fs, unsigned int dirs, const char *label)
{
	const struct access_stats *a = &p->access;
	const struct exec_stats *e = &p->exec;
	unsigned long long lost[FAMILY_COUNT] = { 0 }, all = 0, checks = 0;
	bool lookup = lookup_fs && p->fam[FAMILY_LOOKUP].status == FAMILY_OK;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	assert_int_equal(p->exit_status, 0); /* every worker's every call did what it should */
	assert_true(p->fam[FAMILY_ACCESS].status == FAMILY_OK);
	assert_true(p->fam[FAMILY_EXEC].status == FAMILY_OK);
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (p->fam[f].status == FAMILY_OK)
			all += lost[f] = load_lost(p, f, label);
	if (lookup) {
		const struct fs_result *r = profile_find_fs(p, lookup_fs);

		checks = r ? r->s.checks : 0;
	}
	print_message("  %s: workload access %llu + %llu cap-dropped, exec ENOENT %llu, stat %llu\n"
		      "  %s: recorded fast+avoidable %llu, needed %llu, unsafe %llu; ENOENT %llu "
		      "(early %llu, late %llu); lookup %s checks %llu (%u a stat: %llu)\n"
		      "  %s: lost access %llu, exec %llu, lookup %llu\n",
		      label, c->access, c->access_dropcap, c->exec_enoent, c->stat, label,
		      (unsigned long long)(a->calls[ACCESS_FAST] + a->calls[ACCESS_AVOIDABLE]),
		      (unsigned long long)a->calls[ACCESS_NEEDED],
		      (unsigned long long)a->calls[ACCESS_UNSAFE],
		      (unsigned long long)e->errnos[ENOENT],
		      (unsigned long long)e->calls[EXEC_ENOENT_EARLY],
		      (unsigned long long)e->calls[EXEC_ENOENT_LATE],
		      lookup ? lookup_fs : "(not recorded)", checks, dirs,
		      (unsigned long long)dirs * c->stat, label, lost[FAMILY_ACCESS],
		      lost[FAMILY_EXEC], lost[FAMILY_LOOKUP]);
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < p->fam[f].nlost; i++)
			if (p->fam[f].lost[i].count)
				print_message("  %s: %s lost %llu in %s\n", label, family_name(f),
					      (unsigned long long)p->fam[f].lost[i].count,
					      p->fam[f].lost[i].what);
	/* More tasks than CPUs, each doing its calls as fast as it can: none may be 0. */
	assert_true(c->access && c->access_dropcap && c->exec_enoent && c->stat);
	load_within(label, "access calls that needed no override (fast + avoidable)",
		    a->calls[ACCESS_FAST] + a->calls[ACCESS_AVOIDABLE], c->access,
		    lost[FAMILY_ACCESS]);
	load_within(label, "access calls that needed the override", a->calls[ACCESS_NEEDED],
		    c->access_dropcap, lost[FAMILY_ACCESS]);
	load_within(label, "unsafe access calls", a->calls[ACCESS_UNSAFE], 0, lost[FAMILY_ACCESS]);
	load_within(label, "execve ENOENT (errno row)", e->errnos[ENOENT], c->exec_enoent,
		    lost[FAMILY_EXEC]);
	load_within(label, "execve ENOENT (early + late)",
		    e->calls[EXEC_ENOENT_EARLY] + e->calls[EXEC_ENOENT_LATE], c->exec_enoent,
		    lost[FAMILY_EXEC]);
	load_within(label, "execve other errors", e->calls[EXEC_ERROR_OTHER], 0, lost[FAMILY_EXEC]);
	/* The one execve that worked: record's own of the workload. */
	load_within(label, "execve that succeeded", e->calls[EXEC_OK], 1, lost[FAMILY_EXEC]);
	if (lookup)
		load_within(label, "lookup MAY_EXEC checks", checks,
			    (unsigned long long)dirs * c->stat, lost[FAMILY_LOOKUP]);
	/* Shown to people too: the report says what was lost, and only then. */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	render_text(out, p, false);
	fclose(out);
	if (all)
		assert_contains(text, "events not counted");
	else
		assert_not_contains(text, "events not counted");
	free(text);
}

#endif
