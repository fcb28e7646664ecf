// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The access family's glue (bpf/access.bpf.c): its skeleton, and in
 * tracepoint mode the text of prepare_creds(), where the allocation tracepoint's
 * call_site must fall.
 */
#include "probe/family_ops.h"

#include <string.h>

#include "access.skel.h"

ALLOC_SITE_CONFIGURE(access, "prepare_creds", cred_alloc_lo, cred_alloc_len)
SKEL_GLUE(access)
STATS_GLUE(access)

const struct family_ops access_ops = FAMILY_OPS(access, .stats = access_stats);
