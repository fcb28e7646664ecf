// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make bench-vm's totals (overhead.txt), through vmfigures_parse() (`bench
 * --vm-results`), and what was accepted printed as text and as JSON, with a
 * divisor of lookup checks from the input's first byte (0 included, which
 * must print no figure rather than divide by it).
 */
#include "fuzz.h"
#include "bench/vmfigures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmfigures f;
	char err[256];

	if (vmfigures_parse((const char *)data, size, &f, err, sizeof(err)))
		return 0;
	f.lookup_checks = size ? data[0] % 4 * 1000 : 0;
	for (int i = 0; i < FAMILY_COUNT; i++)
		f.default_mode[i] = (enum attach_mode)(size > 1 ? data[1] % MODE_COUNT : MODE_NONE);
	snprintf(f.cycle, sizeof(f.cycle), "0.2 s in every 30 s");
	vmfigures_print(fuzz_sink(), &f, false);
	vmfigures_print(fuzz_sink(), &f, true);
	return 0;
}
