// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's --listen ADDRESS:PORT parser (http_parse_listen()); the
 * HTTP requests themselves are parsed by libmicrohttpd, not here.
 */
#include "fuzz.h"
#include "prom/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[512];
	struct sockaddr_storage ss;
	socklen_t len;

	http_parse_listen(text, &ss, &len, err, sizeof(err));
	free(text);
	return 0;
}
