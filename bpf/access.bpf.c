// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * access family: does faccessat() allocate a cred when the override would
 * change nothing?
 *
 * The call window is the access/faccessat/faccessat2 syscall tracepoints in
 * every mode, so counts agree across modes.  The mode names the hook that
 * sees a cred being allocated inside the window:
 *   fentry      fentry on prepare_creds()
 *   kprobe      kprobe on prepare_creds()
 *   tracepoint  raw kmem_cache_alloc tracepoint, call_site inside prepare_creds()
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "permscope.h"
#include "filter.bpf.h"
#include "cred.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* [cred_alloc_lo, cred_alloc_lo + cred_alloc_len): prepare_creds() text. */
const volatile __u64 cred_alloc_lo = 0;
const volatile __u64 cred_alloc_len = 0;

struct access_call {
	__u64 start_ns;
	__u8 needed;
	__u8 allocated;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32); /* tid */
	__type(value, struct access_call);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct access_stats);
} stats SEC(".maps");

static __always_inline struct access_stats *this_cpu_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline int call_enter(int flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;
	struct access_call call = {};
	struct access_stats *s;
	struct cred_view cred;

	if (!task_wanted(id))
		return 0;
	read_current_cred(&cred);
	call.needed = access_needs_override(&cred, flags);
	if (flags & PS_AT_EACCESS) {
		s = this_cpu_stats();
		if (s)
			s->eaccess++;
	}
	call.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&inflight, &tid, &call, BPF_ANY)) {
		s = this_cpu_stats();
		if (s)
			s->drops++;
	}
	return 0;
}

static __always_inline int call_exit(void)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct access_call *call;
	struct access_stats *s;
	enum access_outcome o;
	__u64 delta;

	call = bpf_map_lookup_elem(&inflight, &tid);
	if (!call)
		return 0;
	delta = bpf_ktime_get_ns() - call->start_ns;
	o = access_outcome(call->needed, call->allocated);
	bpf_map_delete_elem(&inflight, &tid);
	s = this_cpu_stats();
	if (!s || o >= ACCESS_OUTCOMES)
		return 0;
	s->calls[o]++;
	hist_add(&s->latency[o], delta);
	return 0;
}

/* A cred is being allocated by this thread: note it if a call is open. */
static __always_inline void cred_allocated(void)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct access_call *call = bpf_map_lookup_elem(&inflight, &tid);

	if (call)
		call->allocated = 1;
}

SEC("tracepoint/syscalls/sys_enter_access")
int sys_enter_access(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(0);
}

SEC("tracepoint/syscalls/sys_enter_faccessat")
int sys_enter_faccessat(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(0);
}

SEC("tracepoint/syscalls/sys_enter_faccessat2")
int sys_enter_faccessat2(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter((int)ctx->args[3]);
}

SEC("tracepoint/syscalls/sys_exit_access")
int sys_exit_access(void *ctx)
{
	return call_exit();
}

SEC("tracepoint/syscalls/sys_exit_faccessat")
int sys_exit_faccessat(void *ctx)
{
	return call_exit();
}

SEC("tracepoint/syscalls/sys_exit_faccessat2")
int sys_exit_faccessat2(void *ctx)
{
	return call_exit();
}

SEC("fentry/prepare_creds")
int BPF_PROG(fentry_prepare_creds)
{
	cred_allocated();
	return 0;
}

SEC("kprobe/prepare_creds")
int BPF_KPROBE(kprobe_prepare_creds)
{
	cred_allocated();
	return 0;
}

/*
 * Runs for every slab allocation on the machine: one unsigned compare
 * rejects everything outside prepare_creds() before any map is touched.
 */
SEC("raw_tp/kmem_cache_alloc")
int tp_kmem_cache_alloc(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[0] - cred_alloc_lo >= cred_alloc_len)
		return 0;
	cred_allocated();
	return 0;
}
