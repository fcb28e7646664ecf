// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exec family's glue (bpf/exec.bpf.c): its skeleton, and in
 * tracepoint mode the text of mm_alloc(), where the allocation tracepoint's
 * call_site must fall.
 */
#include "family_ops.h"

#include <string.h>

#include "exec.skel.h"

static int exec_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			  char *why, size_t len)
{
	struct exec_bpf *skel = s;

	SET_FILTER(skel, o);
	if (m != MODE_TRACEPOINT)
		return 0;
	return text_range(o, "mm_alloc", (__u64 *)&skel->rodata->mm_alloc_lo,
			  (__u64 *)&skel->rodata->mm_alloc_len, why, len);
}

SKEL_GLUE(exec)
STATS_GLUE(exec)

const struct family_ops exec_ops = FAMILY_OPS(exec, .stats = exec_stats);
