// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The access family's glue (bpf/access.bpf.c): its skeleton, and in
 * tracepoint mode the text of prepare_creds(), where the allocation tracepoint's
 * call_site must fall.
 */
#include "family_ops.h"

#include <string.h>

#include "access.skel.h"

static int access_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			    char *why, size_t len)
{
	struct access_bpf *skel = s;

	SET_FILTER(skel, o);
	if (m != MODE_TRACEPOINT)
		return 0;
	return text_range(o, "prepare_creds", (__u64 *)&skel->rodata->cred_alloc_lo,
			  (__u64 *)&skel->rodata->cred_alloc_len, why, len);
}

SKEL_GLUE(access)
STATS_GLUE(access)

const struct family_ops access_ops = FAMILY_OPS(access, .stats = access_stats);
