// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * access family: does faccessat() allocate a cred when the override would
 * change nothing?
 *
 * The mode names the hooks that open and close each call's window and the
 * one that sees a cred being allocated inside it:
 *   fentry      fentry/fexit on do_faccessat(), fentry on prepare_creds()
 *   kprobe      kprobe/kretprobe on do_faccessat(), kprobe on prepare_creds()
 *   tracepoint  the access/faccessat/faccessat2 syscall tracepoints, and the
 *               raw kmem_cache_alloc tracepoint, call_site inside prepare_creds()
 * do_faccessat(dfd, filename, mode, flags) is what all three syscalls call
 * (out of line on 6.1, 6.12 and 7.2: in their BTF), so every mode sees the
 * same calls.  Syscall tracepoints are kept to the mode that has nothing
 * else: attaching one puts every task on the syscall-work slow path.
 *
 * tests/vm/overhead's steps (bench_stop, bpf/filter.bpf.h): 1 the filter
 * only, 2 the call's window in task storage (the allocation hook's too),
 * 3 the cred read and the outcome counters; the whole adds the two clock
 * reads and the latency histogram.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "permscope.h"
#include "filter.bpf.h"
#include "cred.bpf.h"
#include "sample.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * false with --lean: no clock read at either end of a call and no latency
 * histogram, the dearest part of a counted call (docs/benchmarks.md); the
 * outcome counts stay exact.  A constant after load: the verifier drops
 * what it turns off.
 */
const volatile bool count_latency = true;

/* [cred_alloc_lo, cred_alloc_lo + cred_alloc_len): prepare_creds() text. */
const volatile __u64 cred_alloc_lo = 0;
const volatile __u64 cred_alloc_len = 0;

/* The open call of a thread, in task-local storage: no hash on the hot path. */
struct access_call {
	__u64 start_ns;
	__u32 open; /* 0 none, else the window it opened in (`observing`) */
	__u8 needed;
	__u8 allocated;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
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

static __always_inline struct access_call *this_call(__u64 flags)
{
	return bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, flags);
}

static __always_inline int call_enter(int flags)
{
	struct task_struct *task;
	struct access_call *call;
	struct access_stats *s;
	struct cred_view cred;

	if (!observing || !task_wanted(bpf_get_current_pid_tgid()) || bench_stop == 1)
		return 0;
	task = bpf_get_current_task_btf();
	call = bpf_task_storage_get(&inflight, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!call) {
		s = this_cpu_stats();
		if (s)
			s->drops++;
		return 0;
	}
	call->needed = 0;
	if (bench_stop != 2) {
		read_task_cred(task, &cred);
		call->needed = access_needs_override(&cred, flags);
	}
	call->allocated = 0;
	call->open = observing;
	if (flags & PS_AT_EACCESS) {
		s = this_cpu_stats();
		if (s)
			s->eaccess++;
	}
	if (!bench_stop && count_latency)
		call->start_ns = bpf_ktime_get_ns();
	return 0;
}

/*
 * An unsafe call, for verify: the cred the override was needed for, as
 * current has it at the call's exit.  Out of line: only a violation calls it.
 */
static __noinline int sample_unsafe(void)
{
	struct ps_sample *s = sample_reserve(SAMPLE_ACCESS_UNSAFE);

	if (!s)
		return 0;
	read_current_cred(&s->access.cred);
	bpf_ringbuf_submit(s, 0);
	return 0;
}

static __always_inline int call_exit(void)
{
	struct access_call *call;
	struct access_stats *s;
	enum access_outcome o;
	__u64 delta = 0;
	__u32 window;

	if (bench_stop == 1)
		return 0;
	call = this_call(0);
	if (!call || !call->open)
		return 0;
	window = call->open;
	call->open = 0;
	if (window != observing || bench_stop == 2)
		return 0;
	if (!bench_stop && count_latency)
		delta = bpf_ktime_get_ns() - call->start_ns;
	o = access_outcome(call->needed, call->allocated);
	if (o == ACCESS_UNSAFE && emit_samples)
		sample_unsafe();
	s = this_cpu_stats();
	if (!s || o >= ACCESS_OUTCOMES)
		return 0;
	s->calls[o]++;
	if (!bench_stop && count_latency)
		hist_add(&s->latency[o], delta);
	return 0;
}

/* A cred is being allocated by this thread: note it if a call is open. */
static __always_inline void cred_allocated(void)
{
	struct access_call *call;

	if (bench_stop == 1)
		return;
	call = this_call(0);
	if (call && call->open)
		call->allocated = 1;
}

SEC("fentry/do_faccessat")
int BPF_PROG(fentry_do_faccessat, int dfd, const char *filename, int mode, int flags)
{
	return call_enter(flags);
}

SEC("fexit/do_faccessat")
int BPF_PROG(fexit_do_faccessat, int dfd, const char *filename, int mode, int flags, long ret)
{
	return call_exit();
}

SEC("kprobe/do_faccessat")
int BPF_KPROBE(kprobe_do_faccessat, int dfd, const char *filename, int mode, int flags)
{
	return call_enter(flags);
}

SEC("kretprobe/do_faccessat")
int BPF_KRETPROBE(kretprobe_do_faccessat)
{
	return call_exit();
}

/* access(2) is x86's: arm64 has faccessat and faccessat2 alone (glibc's access() is faccessat). */
#if !defined(__TARGET_ARCH_arm64)
SEC("tracepoint/syscalls/sys_enter_access")
int tp_sys_enter_access(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(0);
}
#endif

SEC("tracepoint/syscalls/sys_enter_faccessat")
int tp_sys_enter_faccessat(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter(0);
}

SEC("tracepoint/syscalls/sys_enter_faccessat2")
int tp_sys_enter_faccessat2(struct trace_event_raw_sys_enter *ctx)
{
	return call_enter((int)ctx->args[3]);
}

#if !defined(__TARGET_ARCH_arm64)
SEC("tracepoint/syscalls/sys_exit_access")
int tp_sys_exit_access(void *ctx)
{
	return call_exit();
}
#endif

SEC("tracepoint/syscalls/sys_exit_faccessat")
int tp_sys_exit_faccessat(void *ctx)
{
	return call_exit();
}

SEC("tracepoint/syscalls/sys_exit_faccessat2")
int tp_sys_exit_faccessat2(void *ctx)
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

/*
 * The floor of the family's hooks in fentry and kprobe mode, for
 * tests/vm/overhead: the same hooks on do_faccessat() and prepare_creds()
 * with empty programs, loaded in place of the others only when
 * PERMSCOPE_EMPTY_PROGRAMS is set.
 */
SEC("fentry/do_faccessat")
int BPF_PROG(empty_fentry_do_faccessat)
{
	return 0;
}

SEC("fexit/do_faccessat")
int BPF_PROG(empty_fexit_do_faccessat)
{
	return 0;
}

SEC("kprobe/do_faccessat")
int BPF_KPROBE(empty_kprobe_do_faccessat)
{
	return 0;
}

SEC("kretprobe/do_faccessat")
int BPF_KRETPROBE(empty_kretprobe_do_faccessat)
{
	return 0;
}

SEC("fentry/prepare_creds")
int BPF_PROG(empty_fentry_prepare_creds)
{
	return 0;
}

SEC("kprobe/prepare_creds")
int BPF_KPROBE(empty_kprobe_prepare_creds)
{
	return 0;
}
