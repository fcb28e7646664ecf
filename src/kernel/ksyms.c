// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/ksyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions: text symbols, and weak ones (W), which bound their neighbours too. */
static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * `want` "fn" matches fn only; "fn." matches fn and the compiler's copies of
 * it, fn.isra.0, fn.part.0 and the like (the first in the file wins).
 */
static bool name_matches(const char *name, const char *want)
{
	size_t len = strlen(want);

	if (len && want[len - 1] == '.')
		return !strncmp(name, want, len - 1) && (!name[len - 1] || name[len - 1] == '.');
	return !strcmp(name, want);
}

int ksyms_resolve(const char *path, struct ksym_range *ranges, int n)
{
	char line[512], name[256], type;
	unsigned long long addr;
	int i, any_nonzero = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		ranges[i].lo = ranges[i].len = 0;

	/* Pass 1: the start of each wanted function (first text match wins). */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (addr)
			any_nonzero = 1;
		if (!is_text(type))
			continue;
		for (i = 0; i < n; i++)
			if (!ranges[i].lo && name_matches(name, ranges[i].name))
				ranges[i].lo = addr;
	}
	if (!any_nonzero) {
		fclose(f);
		return -EPERM;
	}

	/* Pass 2: the nearest text symbol above each start bounds the function. */
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !is_text(type))
			continue;
		for (i = 0; i < n; i++) {
			uint64_t lo = ranges[i].lo;

			if (lo && addr > lo && (!ranges[i].len || addr - lo < ranges[i].len))
				ranges[i].len = addr - lo;
		}
	}
	fclose(f);
	return 0;
}
