/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the attach engine (src/probe/attach.c) asks of a probe family, and what
 * each family's glue (src/probe/family_<name>.c) gives it: untyped calls into the
 * family's generated skeleton, the rodata its programs need for a mode, and
 * where its counters are more than one per-CPU stats entry, their reading.
 */
#ifndef PERMSCOPE_FAMILY_OPS_H
#define PERMSCOPE_FAMILY_OPS_H

#include <bpf/libbpf.h>
#include <stddef.h>
#include <stdlib.h>

#include "kernel/ksyms.h"
#include "probe/probe_opts.h"

struct family_ops {
	void *(*open)(void);
	struct bpf_object *(*object)(void *skel);
	/* Set rodata for this mode; -errno with `why` filled when impossible. */
	int (*configure)(void *skel, const struct probe_opts *o, enum attach_mode m,
			 char *why, size_t len);
	int (*load)(void *skel);
	int (*attach)(void *skel);
	void (*destroy)(void *skel);
	struct bpf_map *(*tracked)(void *skel);
	struct bpf_map *(*cgroup_wanted)(void *skel);
	struct bpf_map *(*stats)(void *skel);
	/* A per-fs family's own; the others' one per-CPU stats entry is read generically. */
	int (*collect)(void *skel, struct profile *p);
	/* Optional: once attached, before counting starts; -errno with `why` filled. */
	int (*after_attach)(void *skel, char *why, size_t len);
	struct bpf_object_skeleton *(*skeleton)(void *skel);
	__u64 (*tracked_full)(void *skel); /* processes the fork follower had no room for */
	/* Violation samples (bpf/sample.bpf.h): the ring, the switch, what was left out. */
	struct bpf_map *(*samples)(void *skel);
	void (*emit_samples)(void *skel);
	const __u64 *(*samples_unsent)(void *skel);
	/* The window its programs count in, 0 while paused (bpf/filter.bpf.h). */
	__u32 *(*observing)(void *skel);
	/*
	 * The programs --lean leaves out (names, each with its twins,
	 * NULL-terminated); the rows only they count are the schema's
	 * lean_absent.
	 */
	const char *const *lean_programs;
};

/* Each family's glue; the engine's table finds them by enum family_id. */
#define FAMILY_OPS_DECL(id, name, place) extern const struct family_ops name##_ops;
PERMSCOPE_FAMILIES(FAMILY_OPS_DECL)
#undef FAMILY_OPS_DECL

/* The filter rodata is declared once in bpf/filter.bpf.h, so every skeleton has it. */
#define SET_FILTER(skel, o) do {                                                  \
	(skel)->rodata->filter_tasks = (o)->filter_tasks;                         \
	(skel)->rodata->filter_comm = (o)->filter_comm;                           \
	(skel)->rodata->filter_cgroup = (o)->cgroup != NULL;                      \
	memcpy((void *)(skel)->rodata->comm_wanted, (o)->comm, sizeof((o)->comm)); \
	(skel)->rodata->bench_stop = bench_stop_from_env();                        \
} while (0)

/* tests/vm/overhead's step-by-step breakdown (bpf/filter.bpf.h); never set otherwise. */
static inline __u32 bench_stop_from_env(void)
{
	const char *s = getenv("PERMSCOPE_BENCH_STOP");

	return s ? (__u32)strtoul(s, NULL, 10) : 0;
}

/* Adapters from the typed skeleton API to struct family_ops. */
#define SKEL_GLUE(x)                                                                   \
	static void *x##_open(void) { return x##_bpf__open(); }                            \
	static struct bpf_object *x##_object(void *s) { return ((struct x##_bpf *)s)->obj; } \
	static int x##_load(void *s) { return x##_bpf__load(s); }                          \
	static int x##_attach(void *s) { return x##_bpf__attach(s); }                      \
	static void x##_destroy(void *s) { x##_bpf__destroy(s); }                          \
	static struct bpf_map *x##_tracked(void *s) { return ((struct x##_bpf *)s)->maps.tracked; } \
	static struct bpf_object_skeleton *x##_skeleton(void *s) { return ((struct x##_bpf *)s)->skeleton; } \
	static struct bpf_map *x##_cgroup_wanted(void *s)                                  \
	{ return ((struct x##_bpf *)s)->maps.cgroup_wanted; }                               \
	static __u64 x##_tracked_full(void *s) { return ((struct x##_bpf *)s)->bss->tracked_full; } \
	static struct bpf_map *x##_samples(void *s) { return ((struct x##_bpf *)s)->maps.samples; } \
	static void x##_emit_samples(void *s) { ((struct x##_bpf *)s)->rodata->emit_samples = true; } \
	static const __u64 *x##_samples_unsent(void *s) { return ((struct x##_bpf *)s)->bss->samples_unsent; } \
	static __u32 *x##_observing(void *s) { return &((struct x##_bpf *)s)->data->observing; }
/* The families with one per-CPU stats entry, read generically. */
#define STATS_GLUE(x) \
	static struct bpf_map *x##_stats(void *s) { return ((struct x##_bpf *)s)->maps.stats; }

/*
 * x_configure() of a family whose tracepoint mode counts an allocation only
 * when its call_site lies in function FN's text (rodata LO and LEN), and
 * whose latency histograms --lean leaves out (rodata count_latency).
 */
#define ALLOC_SITE_CONFIGURE(x, fn, lo, len)                                         \
	static int x##_configure(void *s, const struct probe_opts *o, enum attach_mode m, \
				 char *why, size_t wlen)                                  \
	{                                                                           \
		struct x##_bpf *skel = s;                                           \
                                                                                    \
		SET_FILTER(skel, o);                                                \
		skel->rodata->count_latency = !o->lean;                             \
		if (m != MODE_TRACEPOINT)                                           \
			return 0;                                                   \
		return text_range(o, fn, (__u64 *)&skel->rodata->lo,                \
				  (__u64 *)&skel->rodata->len, why, wlen);           \
	}

/* A family's ops from SKEL_GLUE(x) and its x_configure(), plus its own extras. */
#define FAMILY_OPS(x, ...) {                                             \
	.open = x##_open, .object = x##_object, .configure = x##_configure,   \
	.load = x##_load, .attach = x##_attach, .destroy = x##_destroy,       \
	.tracked = x##_tracked, .skeleton = x##_skeleton,                      \
	.cgroup_wanted = x##_cgroup_wanted, .tracked_full = x##_tracked_full,   \
	.samples = x##_samples, .emit_samples = x##_emit_samples,               \
	.samples_unsent = x##_samples_unsent,                                  \
	.observing = x##_observing,                                            \
	__VA_ARGS__                                                            \
}

/* ---- kernel addresses for configure() (src/probe/family_ksyms.c) -------------- */

/* ksyms_resolve() on the probes' kallsyms, with `why` filled when it fails. */
int resolve_ksyms(const struct probe_opts *o, struct ksym_range *r, int n, char *why,
		  size_t wlen);

/* Kernel text ranges for the tracepoint mode's call_site match, resolved once. */
int text_range(const struct probe_opts *o, const char *fn, __u64 *lo, __u64 *len,
	       char *why, size_t wlen);

#endif
