/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which tasks a family counts: everything, one process (--pid), a command
 * name (--comm), the tasks of a cgroup v2 subtree (--cgroup), or a command
 * and its descendants (record -- CMD).  Filters given together must all
 * match.
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
const volatile bool filter_cgroup = false; /* only tasks in cgroup_wanted[0] or below */

/*
 * When a family counts: 0 while a duty-cycled daemon has it paused (its
 * hooks detached, src/run/dutycycle.c), else the number of the window
 * it is in; always 1 for record, verify and an always-on daemon.  A call
 * is counted only when it opens and closes in the same window: one that
 * straddles a pause may have done its allocation while nothing watched.
 * User space writes 0 before it detaches, and the next number only once
 * every hook is back.
 */
__u32 observing = 1;

/*
 * For tests/vm/overhead's breakdown only (PERMSCOPE_BENCH_STOP): where
 * each family's programs stop, to see where the instructions go (each
 * family says what its steps are); 0, always outside that measurement,
 * runs them whole.  A constant after load: the verifier drops the steps
 * not taken, so a whole run pays a load and a compare per step.
 */
const volatile __u32 bench_stop = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);   /* tgid */
	__type(value, __u8);
} tracked SEC(".maps");

/*
 * New processes of tracked ones that found `tracked` full: none of their
 * calls is counted, so user space reports them as lost ("tracked_full").
 * Only forks pay for it, never a probed call.
 */
__u64 tracked_full = 0;
#define E2BIG_ 7 /* a full hash map refuses a new key with -E2BIG */

/* --cgroup: user space puts an fd of the cgroup v2 directory here after load. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_wanted SEC(".maps");

/*
 * Is the current task in the wanted cgroup or a cgroup below it?  The
 * helper is task_under_cgroup_hierarchy(current, cgroup): the task's
 * cgroup v2 (css_set->dfl_cgrp) has the wanted one at the wanted one's
 * level among its ancestors, a compare of two pointers, no walk up the
 * tree.  It returns 1 or 0, and a negative errno for an empty slot (the
 * map not set up): that counts nothing, never everything.  Tracing
 * programs may call it; tests/vm calls it from fentry, kprobe and
 * tracepoint programs on 6.1, 6.12 and 7.2.
 */
static __always_inline bool in_cgroup(void)
{
	return bpf_current_task_under_cgroup(&cgroup_wanted, 0) == 1;
}

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

/* The process filter: the caller's tgid is in `tracked`. */
static __always_inline bool task_tracked(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	return bpf_map_lookup_elem(&tracked, &tgid) != NULL;
}

/*
 * Every filter asked for must match.  The rodata flags are constants after
 * load: the verifier drops the check of a flag that is off (only the
 * flag's load stays), so a filter not asked for costs next to nothing.
 *
 * Of the checks asked for, the cheapest goes first.  Measured with the
 * access family in the VM (QEMU -icount, tests/vm/overhead, docs/kernels.md
 * "Probe cost"): guest instructions per access() call in tracepoint mode
 * on 7.2 / 6.1, when the filter rejects the caller, against 1159 / 1577
 * counted with no filter:
 *   cgroup   839 / 1087  one helper call that compares two pointers
 *   process  917 / 1177  a hash lookup in `tracked`
 *   comm     999 / 1194  the 16-byte name copied to the stack and compared
 * A call the cgroup check lets through costs 25 to 27 more than unfiltered.
 *
 * The cgroup and comm checks are asked on every call, never cached: a
 * task can be moved to another cgroup (cgroup.procs) or renamed (exec,
 * prctl) at any time.  lookup keeps this order in counted().
 */
static __always_inline bool task_wanted(__u64 pid_tgid)
{
	if (filter_cgroup && !in_cgroup())
		return false;
	if (filter_tasks && !task_tracked(pid_tgid))
		return false;
	if (filter_comm && !comm_matches())
		return false;
	return true;
}

/* Follow a new process of a tracked one; current is its parent. */
static __always_inline int follow_fork(struct task_struct *child)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32;
	__u32 pid = BPF_CORE_READ(child, pid);
	__u8 one = 1;

	/* A new thread shares its tgid, tracked already: only processes go in. */
	if (pid != (__u32)BPF_CORE_READ(child, tgid))
		return 0;
	if (bpf_map_lookup_elem(&tracked, &parent) &&
	    bpf_map_update_elem(&tracked, &pid, &one, BPF_NOEXIST) == -E2BIG_)
		__sync_fetch_and_add(&tracked_full, 1);
	return 0;
}

/* sched_process_fork(parent, child), in fentry and tracepoint mode. */
SEC("raw_tp/sched_process_fork")
int track_fork(struct bpf_raw_tracepoint_args *ctx)
{
	return follow_fork((struct task_struct *)ctx->args[1]);
}

/*
 * The same in kprobe mode, on wake_up_new_task(child), which every new
 * task passes once, in its parent: a kprobe handler runs with preemption
 * off.  A raw tracepoint program on 7.x can be preempted, and a fork on
 * its CPU then skips it (seen on sid's 7.2 under the load test: one child
 * never followed, reported as track_fork's loss), which would make the
 * exact mode of a preemptible kernel lose what it follows.
 */
SEC("kprobe/wake_up_new_task")
int BPF_KPROBE(track_kprobe_fork, struct task_struct *child)
{
	return follow_fork(child);
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
