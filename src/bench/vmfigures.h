/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The figures of tests/vm/overhead (make bench-vm), from one kernel's
 * results directory: guest instructions (QEMU -icount) per probed call
 * over the baseline, the families in every mode beside their floors, where
 * the instructions go step by step, and what the daemon's loops pay, as
 * slowdowns.  The guest only writes raw totals (overhead.txt); every ratio
 * is computed here.
 */
#ifndef PERMSCOPE_BENCH_VMFIGURES_H
#define PERMSCOPE_BENCH_VMFIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schema.h"

#define VMFIG_MAX_LINES 1024
#define VMFIG_MAX_BYTES (256 * 1024)
#define VMFIG_NAME_LEN 48

/* One line of overhead.txt: NAME TOTAL, or NAME CALLS NS (a daemon- line). */
struct vmfig_line {
	char name[VMFIG_NAME_LEN];
	uint64_t a, b;
	bool two;
};

struct vmfigures {
	struct vmfig_line line[VMFIG_MAX_LINES];
	size_t n;
	/* from beside overhead.txt: lookup checks a stat loop made (calls.json) */
	uint64_t lookup_checks;
	/* the mode each family took without --mode (NAME-default-1.json), or MODE_NONE */
	enum attach_mode default_mode[FAMILY_COUNT];
	char cycle[80]; /* the daemon's default duty cycle, "" when unknown */
};

/*
 * overhead.txt's text (`len` bytes, not NUL-terminated): each line a name
 * of [a-z0-9-] and one or two whole numbers.  0, or -1 with the first
 * fault and its line number in `err`.
 */
int vmfigures_parse(const char *text, size_t len, struct vmfigures *f, char *err, size_t errlen);

/*
 * Read results directory `dir`: overhead.txt, and what lies beside it
 * (calls.json, the default recordings' profiles, daemon-default.err).
 * 0, or -1 with `err` set.
 */
int vmfigures_read(const char *dir, struct vmfigures *f, char *err, size_t errlen);

/* Print the figures as text, or as one JSON document. */
void vmfigures_print(FILE *out, const struct vmfigures *f, bool json);

/* bench --vm-results DIR: read and print; the exit status (EXIT_USAGE: a bad DIR). */
int vmfigures_main(const char *dir, bool json);

#endif
