// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A Prometheus query API answer (src/prom/promanswer.c: the streaming parse
 * gate and compare --prometheus read every answer with) on any bytes,
 * fed in chunks whose size the first byte picks, as a network delivers
 * them: every sample handed on must carry bounded, terminated strings,
 * and every text must escape to one printable line (escape_text()).
 */
#include "fuzz.h"
#include "prom/promanswer.h"
#include "util.h"

static const char *const keep[] = { "instance", "job", "fs", "outcome", "le", NULL };

static void check_text(const char *s, size_t max)
{
	char out[4 * PROMANSWER_TEXT_MAX + 8];

	if (strlen(s) > max)
		abort();
	escape_text(s, out, sizeof(out));
	for (const char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static int on_sample(void *ctx, const struct promanswer_sample *s)
{
	(void)ctx;
	for (int i = 0; keep[i]; i++)
		if (s->label[i])
			check_text(s->label[i], PROMANSWER_LABEL_MAX);
	check_text(s->value, PROMANSWER_VALUE_MAX);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct promanswer *a = promanswer_new(keep, on_sample, NULL);
	size_t chunk = size ? (size_t)data[0] % 64 + 1 : 1;

	if (!a)
		abort();
	for (size_t off = 1; off < size; off += chunk)
		if (promanswer_feed(a, (const char *)data + off,
				    size - off < chunk ? size - off : chunk))
			break;
	promanswer_finish(a);
	check_text(promanswer_status(a), PROMANSWER_TEXT_MAX);
	check_text(promanswer_error_text(a), PROMANSWER_TEXT_MAX);
	check_text(promanswer_result_type(a), PROMANSWER_TEXT_MAX);
	for (size_t i = 0; i < promanswer_nwarnings(a); i++)
		check_text(promanswer_warning(a, i), PROMANSWER_TEXT_MAX);
	check_text(promanswer_error(a), 255);
	promanswer_free(a);
	return 0;
}
