// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lookup family: MAY_EXEC permission checks on directories, per filesystem.
 *
 * security_inode_permission() is called from inode_permission() on every
 * kernel; a call that arrives with no inode_permission() open on this thread
 * came from lookup's fast path (the merged MAY_EXEC change), so it "did skip"
 * the full check.  Needs function hooks (fentry or kprobe): there is no
 * tracepoint on this path, so on a kernel without either the family is
 * reported unavailable.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "permscope.h"
#include "filter.bpf.h"
#include "predicates.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define MAY_EXEC 0x1

/* inode_permission() nesting depth per thread (overlayfs nests it), in task storage. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} depth SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, struct lookup_key);
	__type(value, struct lookup_stats);
} stats SEC(".maps");

/* Filesystem names, read once when a type is first seen: no per-event strings. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct lookup_key);
	__type(value, struct lookup_fs_name);
} fs_names SEC(".maps");

static __always_inline __u32 *this_depth(__u64 flags)
{
	return bpf_task_storage_get(&depth, bpf_get_current_task_btf(), 0, flags);
}

static __always_inline void depth_inc(void)
{
	__u32 *d = this_depth(BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (d)
		(*d)++; /* only this thread touches its own storage */
}

static __always_inline void depth_dec(void)
{
	__u32 *d = this_depth(0);

	if (d && *d > 0)
		(*d)--;
}

static __always_inline bool nested(void)
{
	__u32 *d = this_depth(0);

	return d && *d > 0;
}

static __always_inline struct lookup_stats *fs_stats(const struct inode *inode)
{
	struct lookup_key key = {
		.fs_type = (__u64)BPF_CORE_READ(inode, i_sb, s_type),
	};
	struct lookup_stats *s, zero = {};
	struct lookup_fs_name name = {};
	const char *p;

	s = bpf_map_lookup_elem(&stats, &key);
	if (s)
		return s;
	if (!bpf_map_lookup_elem(&fs_names, &key)) {
		p = BPF_CORE_READ(inode, i_sb, s_type, name);
		bpf_probe_read_kernel_str(name.name, sizeof(name.name), p);
		bpf_map_update_elem(&fs_names, &key, &name, BPF_NOEXIST);
	}
	bpf_map_update_elem(&stats, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stats, &key);
}

static __always_inline void permission_check(const struct inode *inode, int mask)
{
	struct lookup_stats *s;
	struct dir_view d = {};
	enum lookup_reason why;

	if (!(mask & MAY_EXEC))
		return;
	d.mode = BPF_CORE_READ(inode, i_mode);
	if (!mode_is_dir(d.mode))
		return;
	if (!task_wanted(bpf_get_current_pid_tgid()))
		return;
	d.opflags = BPF_CORE_READ(inode, i_opflags);
	if (bpf_core_field_exists(inode->i_acl))
		d.acl = (__u64)BPF_CORE_READ(inode, i_acl);

	s = fs_stats(inode);
	if (!s)
		return;
	s->checks++;
	why = lookup_eligibility(&d);
	if (why == LOOKUP_ELIGIBLE)
		s->would_skip++;
	else if (why < LOOKUP_REASONS)
		s->ineligible[why]++;
	/*
	 * A skipped full check on an ineligible directory is the one outcome
	 * that is never safe, whatever the kernel's version of the change.
	 */
	if (!nested()) {
		s->did_skip++;
		if (why != LOOKUP_ELIGIBLE)
			s->violations++;
	}
	/*
	 * 0x80 is the v2 precomputed "skippable" bit, and in the merged change a
	 * filesystem's opt-in (IOP_FASTPERM_MAY_EXEC) that btrfs sets on every
	 * directory: counted, not judged.
	 */
	if (d.opflags & PS_IOP_FASTPERM_MAY_EXEC)
		s->may_exec_opt_in++;
}

SEC("fentry/inode_permission")
int BPF_PROG(fentry_inode_permission)
{
	depth_inc();
	return 0;
}

SEC("fexit/inode_permission")
int BPF_PROG(fexit_inode_permission)
{
	depth_dec();
	return 0;
}

SEC("fentry/security_inode_permission")
int BPF_PROG(fentry_security_inode_permission, struct inode *inode, int mask)
{
	permission_check(inode, mask);
	return 0;
}

SEC("kprobe/inode_permission")
int BPF_KPROBE(kprobe_inode_permission)
{
	depth_inc();
	return 0;
}

SEC("kretprobe/inode_permission")
int BPF_KRETPROBE(kretprobe_inode_permission)
{
	depth_dec();
	return 0;
}

SEC("kprobe/security_inode_permission")
int BPF_KPROBE(kprobe_security_inode_permission, struct inode *inode, int mask)
{
	permission_check(inode, mask);
	return 0;
}
