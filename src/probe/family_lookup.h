/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the lookup family's glue tells others: the kernel addresses its
 * call-site classifier (bpf/callsite.h) is given, read once from kallsyms,
 * for the programs' rodata and for tests/callsite-extract, which reads a
 * kernel image with the same addresses.
 */
#ifndef PERMSCOPE_FAMILY_LOOKUP_H
#define PERMSCOPE_FAMILY_LOOKUP_H

#include <linux/types.h>
#include <stddef.h>

#include "permscope.h"
#include "probe/probe_opts.h"

/*
 * IP, SIP, their __pfx_ padding, the path walker and other tracers'
 * trampolines from o->kallsyms into `cs`; the core text (_stext.._etext,
 * both 0 when not found) into text_lo and text_len.  0, or -errno with
 * `why` saying what was missing or unreadable.
 */
int lookup_callsite_syms(const struct probe_opts *o, struct callsite_syms *cs, __u64 *text_lo,
			 __u64 *text_len, char *why, size_t len);

#endif
