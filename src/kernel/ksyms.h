/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Text ranges of kernel functions, from /proc/kallsyms, resolved once. */
#ifndef PERMSCOPE_KSYMS_H
#define PERMSCOPE_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct ksym_range {
	const char *name; /* in: function name; "fn." also matches fn.isra.0 and such */
	bool any_type;    /* in: a data symbol matches too (arm64's _etext is one) */
	uint64_t lo;      /* out: start address, 0 when not found */
	uint64_t len;     /* out: distance to the next text symbol */
};

/*
 * Fill each range from the kallsyms file at `path` (normally /proc/kallsyms)
 * in one read.  Returns 0, or -errno when the file cannot be read, shows
 * only zero addresses (-EPERM: kptr_restrict) or holds more text symbols
 * than a kernel has (-E2BIG); on an error every range is 0.  Names not
 * found keep lo == 0.
 */
int ksyms_resolve(const char *path, struct ksym_range *ranges, int n);

#endif
