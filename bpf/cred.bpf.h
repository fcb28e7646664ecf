/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the current task's credentials into a struct cred_view (CO-RE). */
#ifndef PERMSCOPE_CRED_BPF_H
#define PERMSCOPE_CRED_BPF_H

#include "predicates.h"

#define UID_GID_MAP_MAX_BASE_EXTENTS 5
#define INVALID_UID ((__u32)-1)

/* kernel_cap_t before 6.3: two u32 words (CO-RE picks the layout at load). */
struct kernel_cap_struct___old {
	__u32 cap[2];
};

static __always_inline __u64 cap_bits(const kernel_cap_t *cap)
{
	if (bpf_core_field_exists(cap->val))
		return cap->val;
	const struct kernel_cap_struct___old *old = (const void *)cap;
	return old->cap[0] | (__u64)old->cap[1] << 32;
}

/*
 * make_kuid(ns, 0): the kernel uid that uid 0 of the cred's user namespace
 * maps to.  The initial namespace maps identically; others are searched in
 * their base extents (the common case of at most five lines in uid_map).
 * A larger map answers INVALID_UID, i.e. "the task is not that root".
 */
static __always_inline __u32 ns_root_uid(const struct user_namespace *ns)
{
	__u32 nr;

	if (ns->level == 0)
		return 0;
	nr = ns->uid_map.nr_extents;
	if (nr > UID_GID_MAP_MAX_BASE_EXTENTS)
		return INVALID_UID;
	for (int i = 0; i < UID_GID_MAP_MAX_BASE_EXTENTS; i++) {
		if (i >= nr)
			break;
		if (ns->uid_map.extent[i].first == 0 && ns->uid_map.extent[i].count > 0)
			return ns->uid_map.extent[i].lower_first;
	}
	return INVALID_UID;
}

/*
 * Direct loads through the BTF task pointer: the verifier turns them into
 * fault-safe inline loads, much cheaper than a probe_read helper per field
 * on a path that runs for every access() call.
 */
static __always_inline void read_task_cred(const struct task_struct *task, struct cred_view *v)
{
	const struct cred *cred = task->cred;

	v->uid = cred->uid.val;
	v->gid = cred->gid.val;
	v->fsuid = cred->fsuid.val;
	v->fsgid = cred->fsgid.val;
	v->securebits = cred->securebits;
	v->cap_effective = cap_bits(&cred->cap_effective);
	v->cap_permitted = cap_bits(&cred->cap_permitted);
	v->root_uid = ns_root_uid(cred->user_ns);
}

/* The same for current: a helper call to find it. */
static __always_inline void read_current_cred(struct cred_view *v)
{
	read_task_cred(bpf_get_current_task_btf(), v);
}

#endif /* PERMSCOPE_CRED_BPF_H */
