// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's --web-config parser (webconfig_parse(): libyaml's loader and
 * the key-by-key checks after it) on any bytes; the files it names are not
 * read here, and no password is checked (bcrypt's cost would make every
 * run slow).
 */
#include "fuzz.h"
#include "prom/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct webconfig wc;
	char err[1024] = "";

	webconfig_parse(&wc, (const char *)data, size, "/nonexistent", err, sizeof(err));
	if (!memchr(err, 0, sizeof(err)))
		abort();
	webconfig_free(&wc);
	return 0;
}
