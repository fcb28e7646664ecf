/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which tasks a family counts: everything, one process (--pid), a command
 * name (--comm), or a command and its descendants (record -- CMD).
 *
 * Every family object includes this, so each has its own `tracked` table and
 * fork/exit followers: a family that fails to load never takes the filter of
 * the others down with it.  The followers are only loaded when a process
 * filter is set.
 */
#ifndef PERMSCOPE_FILTER_BPF_H
#define PERMSCOPE_FILTER_BPF_H

#define TASK_COMM_LEN 16

const volatile bool filter_tasks = false; /* only tgids in `tracked` */
const volatile bool filter_comm = false;
const volatile char comm_wanted[TASK_COMM_LEN] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);   /* tgid */
	__type(value, __u8);
} tracked SEC(".maps");

static __always_inline bool comm_matches(void)
{
	/*
	 * Zeroed first: bpf_get_current_comm() on 6.1 copies with strscpy(),
	 * which leaves the bytes after the NUL as they were, so an uninitialised
	 * buffer compared word by word never matched there (--comm counted
	 * nothing in fentry mode on bookworm; tests/vm checks it now).
	 */
	char comm[TASK_COMM_LEN] = {};
	__u64 *a = (__u64 *)comm;
	const volatile __u64 *b = (const volatile __u64 *)comm_wanted;

	bpf_get_current_comm(comm, sizeof(comm));
	return a[0] == b[0] && a[1] == b[1];
}

/* Cheapest checks first: the rodata flags are constants after load. */
static __always_inline bool task_wanted(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (filter_tasks && !bpf_map_lookup_elem(&tracked, &tgid))
		return false;
	if (filter_comm && !comm_matches())
		return false;
	return true;
}

/* sched_process_fork(parent, child): follow new processes of tracked ones. */
SEC("raw_tp/sched_process_fork")
int track_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 parent = bpf_get_current_pid_tgid() >> 32;
	__u32 pid = BPF_CORE_READ(child, pid);
	__u8 one = 1;

	/* A new thread shares its tgid, tracked already: only processes go in. */
	if (pid != (__u32)BPF_CORE_READ(child, tgid))
		return 0;
	if (bpf_map_lookup_elem(&tracked, &parent))
		bpf_map_update_elem(&tracked, &pid, &one, BPF_NOEXIST);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int track_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, tgid = id >> 32;

	/* Forget a process when its last thread, the leader, goes. */
	if (tid == tgid)
		bpf_map_delete_elem(&tracked, &tgid);
	return 0;
}

#endif /* PERMSCOPE_FILTER_BPF_H */
