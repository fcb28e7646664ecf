/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the libFuzzer targets (tests/fuzz/fuzz_*.c) share: the input as a
 * NUL-terminated string, a sink for rendered output, and the saved
 * profiles of tests/unit/data (FUZZ_DATA, set by the Makefile) read once.
 * docs/hardening.md says how to run them.
 */
#ifndef PERMSCOPE_FUZZ_H
#define PERMSCOPE_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* DATA as a malloc'ed C string (the parsers take text; a NUL inside ends it). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* /dev/null as a stream, opened once: renderers write there. */
static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "we")))
		abort();
	return f;
}

/* tests/unit/data/NAME read into *p once; aborts if it cannot be. */
static inline void fuzz_profile(const char *name, struct profile *p)
{
	char path[4096], err[512];

	snprintf(path, sizeof(path), "%s/%s", FUZZ_DATA, name);
	if (profile_read(path, p, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err);
		abort();
	}
}

#endif
