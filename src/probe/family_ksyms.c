// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel addresses the families' configure() puts in their programs'
 * rodata, shared by the glue (family_access.c and family_exec.c take a
 * text range, family_lookup.c several at once).
 */
#include "probe/family_ops.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int resolve_ksyms(const struct probe_opts *o, struct ksym_range *r, int n, char *why,
		  size_t wlen)
{
	int err = ksyms_resolve(o->kallsyms, r, n);

	if (err)
		snprintf(why, wlen, "cannot read kernel addresses from %s: %s%s", o->kallsyms,
			 strerror(-err), err == -EPERM ? " (kptr_restrict: needs root with CAP_SYSLOG)" : "");
	return err;
}

int text_range(const struct probe_opts *o, const char *fn, __u64 *lo, __u64 *len,
	       char *why, size_t wlen)
{
	struct ksym_range r = { .name = fn };
	int err = resolve_ksyms(o, &r, 1, why, wlen);

	if (err)
		return err;
	if (!r.lo || !r.len) {
		snprintf(why, wlen, "%s not found in %s", fn, o->kallsyms);
		return -ENOENT;
	}
	*lo = r.lo;
	*len = r.len;
	return 0;
}
