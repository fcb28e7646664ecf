/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the current task's credentials into a struct cred_view (CO-RE). */
#ifndef PERMSCOPE_CRED_BPF_H
#define PERMSCOPE_CRED_BPF_H

#include "predicates.h"

#define UID_GID_MAP_MAX_BASE_EXTENTS 5
#define INVALID_UID ((__u32)-1)

/*
 * make_kuid(ns, 0): the kernel uid that uid 0 of the cred's user namespace
 * maps to.  The initial namespace maps identically; others are searched in
 * their base extents (the common case of at most five lines in uid_map).
 * A larger map answers INVALID_UID, i.e. "the task is not that root".
 */
static __always_inline __u32 ns_root_uid(const struct user_namespace *ns)
{
	__u32 nr;

	if (BPF_CORE_READ(ns, level) == 0)
		return 0;
	nr = BPF_CORE_READ(ns, uid_map.nr_extents);
	if (nr > UID_GID_MAP_MAX_BASE_EXTENTS)
		return INVALID_UID;
	for (int i = 0; i < UID_GID_MAP_MAX_BASE_EXTENTS; i++) {
		if (i >= nr)
			break;
		if (BPF_CORE_READ(ns, uid_map.extent[i].first) == 0 &&
		    BPF_CORE_READ(ns, uid_map.extent[i].count) > 0)
			return BPF_CORE_READ(ns, uid_map.extent[i].lower_first);
	}
	return INVALID_UID;
}

static __always_inline void read_current_cred(struct cred_view *v)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	const struct cred *cred = BPF_CORE_READ(task, cred);

	v->uid = BPF_CORE_READ(cred, uid.val);
	v->gid = BPF_CORE_READ(cred, gid.val);
	v->fsuid = BPF_CORE_READ(cred, fsuid.val);
	v->fsgid = BPF_CORE_READ(cred, fsgid.val);
	v->securebits = BPF_CORE_READ(cred, securebits);
	/* kernel_cap_t is a u64 since 6.3 and a u32[2] before: 8 bytes either way. */
	bpf_core_read(&v->cap_effective, sizeof(v->cap_effective), &cred->cap_effective);
	bpf_core_read(&v->cap_permitted, sizeof(v->cap_permitted), &cred->cap_permitted);
	v->root_uid = ns_root_uid(BPF_CORE_READ(cred, user_ns));
}

#endif /* PERMSCOPE_CRED_BPF_H */
