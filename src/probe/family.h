/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A running family, private to src/probe/: the attach engine
 * (attach.c) makes it, detach.c lets its hooks go.
 */
#ifndef PERMSCOPE_FAMILY_H
#define PERMSCOPE_FAMILY_H

#include <stdbool.h>

#include "profile.h"

struct family_ops;
struct ring_buffer;
struct sample_sink;

struct family {
	enum family_id id;
	bool follows_forks; /* --pid, -- CMD: the `tracked` table can fill */
	bool lean;          /* --lean: ops->lean_programs not loaded, their rows absent */
	const struct family_ops *ops;
	void *skel;
	struct ring_buffer *rb; /* violation samples, when asked for */
	const struct sample_sink *sink;
};

#endif
