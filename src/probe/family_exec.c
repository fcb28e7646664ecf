// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exec family's glue (bpf/exec.bpf.c): its skeleton, and in
 * tracepoint mode the text of mm_alloc(), where the allocation tracepoint's
 * call_site must fall.
 */
#include "probe/family_ops.h"

#include <string.h>

#include "exec.skel.h"

ALLOC_SITE_CONFIGURE(exec, "mm_alloc", mm_alloc_lo, mm_alloc_len)
SKEL_GLUE(exec)
STATS_GLUE(exec)

const struct family_ops exec_ops = FAMILY_OPS(exec, .stats = exec_stats);
