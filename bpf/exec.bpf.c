// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * exec family: does a failing execve() return ENOENT before allocating an mm?
 *
 * The mode names the hooks that open and close each call's window and the
 * one that sees an mm being allocated inside it:
 *   fentry      fentry/fexit on __x64_sys_execve/execveat (arm64:
 *               __arm64_sys_*), fentry on mm_alloc()
 *   kprobe      kprobe/kretprobe on the same, kprobe on mm_alloc()
 *   tracepoint  the execve/execveat syscall tracepoints, and the raw
 *               kmem_cache_alloc tracepoint, call_site inside mm_alloc()
 * do_execveat_common() is inlined on 6.1, 6.12 and 7.2, so the function
 * hooks are on the architecture's syscall functions (SYSCALL(), below;
 * 32-bit compat execs are seen in tracepoint mode only).  Syscall tracepoints are kept to the mode that
 * has nothing else: attaching one puts every task on the syscall-work slow
 * path.
 *
 * tests/vm/overhead's steps (bench_stop, bpf/filter.bpf.h): 1 the filter
 * only, 2 the call's window in task storage (the allocation hook's too),
 * 3 the outcome and errno counters; the whole adds the two clock reads and
 * the latency histogram.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "permscope.h"
#include "filter.bpf.h"
#include "sample.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * A syscall's function under the architecture's syscall wrapper
 * (CONFIG_ARCH_HAS_SYSCALL_WRAPPER): __x64_sys_execve on x86-64,
 * __arm64_sys_execve on arm64.  The programs' own names are the same on both.
 */
#if defined(__TARGET_ARCH_arm64)
#define SYSCALL(name) "__arm64_sys_" name
#else
#define SYSCALL(name) "__x64_sys_" name
#endif

#define ENOENT 2

/*
 * false with --lean: no clock read at either end of a call and no latency
 * histogram, the dearest part of a counted call (docs/benchmarks.md); the
 * outcome counts stay exact.  A constant after load: the verifier drops
 * what it turns off.
 */
const volatile bool count_latency = true;

/* [mm_alloc_lo, mm_alloc_lo + mm_alloc_len): mm_alloc() text. */
const volatile __u64 mm_alloc_lo = 0;
const volatile __u64 mm_alloc_len = 0;

/* The open call of a thread, in task-local storage: no hash on the hot path. */
struct exec_call {
	__u64 start_ns;
	__u32 open; /* 0 none, else the window it opened in (`observing`) */
	__u8 mm_allocated;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct exec_call);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_stats);
} stats SEC(".maps");

static __always_inline struct exec_call *this_call(__u64 flags)
{
	return bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, flags);
}

static __always_inline int call_enter(void)
{
	struct exec_call *call;
	struct exec_stats *s;
	__u32 zero = 0;

	if (!observing || !task_wanted(bpf_get_current_pid_tgid()) || bench_stop == 1)
		return 0;
	call = this_call(BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!call) {
		s = bpf_map_lookup_elem(&stats, &zero);
		if (s)
			s->drops++;
		return 0;
	}
	call->mm_allocated = 0;
	call->open = observing;
	if (!bench_stop && count_latency)
		call->start_ns = bpf_ktime_get_ns();
	return 0;
}

/*
 * A late ENOENT, for verify, which judges it (a regression only where the
 * same recording saw early ones).  Out of line: only a late ENOENT calls it.
 */
static __noinline int sample_enoent_late(long ret, __u64 latency_ns)
{
	struct ps_sample *s = sample_reserve(SAMPLE_EXEC_ENOENT_LATE);

	if (!s)
		return 0;
	s->exec.ret = ret;
	s->exec.latency_ns = latency_ns;
	bpf_ringbuf_submit(s, 0);
	return 0;
}

/*
 * A multi-threaded exec returns in the thread that took over the leader's
 * pid; task storage follows the task_struct, so the call is still found.
 */
static __always_inline int call_exit(long ret)
{
	struct exec_call *call;
	struct exec_stats *s;
	enum exec_outcome o;
	__u32 zero = 0;
	__u64 delta = 0;
	__u32 window;
	long err = -ret;
	__u8 mm;

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
	mm = call->mm_allocated;
	if (ret == 0)
		o = EXEC_OK;
	else if (err == ENOENT)
		o = mm ? EXEC_ENOENT_LATE : EXEC_ENOENT_EARLY;
	else
		o = EXEC_ERROR_OTHER;
	if (o == EXEC_ENOENT_LATE && emit_samples)
		sample_enoent_late(ret, delta);

	s = bpf_map_lookup_elem(&stats, &zero);
	if (!s)
		return 0;
	s->calls[o]++;
	s->mm_allocs += mm;
	if (!bench_stop && count_latency)
		hist_add(&s->latency[o], delta);
	if (ret < 0) {
		__u32 e = err < EXEC_ERRNO_MAX ? err : 0;

		/* Keep the bound check where the verifier can see it. */
		barrier_var(e);
		if (e < EXEC_ERRNO_MAX)
			s->errnos[e]++;
	}
	return 0;
}

static __always_inline void mm_allocated(void)
{
	struct exec_call *call;

	if (bench_stop == 1)
		return;
	call = this_call(0);
	if (call && call->open)
		call->mm_allocated = 1;
}

SEC("fentry/" SYSCALL("execve"))
int BPF_PROG(fentry_sys_execve, const struct pt_regs *regs)
{
	return call_enter();
}

SEC("fentry/" SYSCALL("execveat"))
int BPF_PROG(fentry_sys_execveat, const struct pt_regs *regs)
{
	return call_enter();
}

SEC("fexit/" SYSCALL("execve"))
int BPF_PROG(fexit_sys_execve, const struct pt_regs *regs, long ret)
{
	return call_exit(ret);
}

SEC("fexit/" SYSCALL("execveat"))
int BPF_PROG(fexit_sys_execveat, const struct pt_regs *regs, long ret)
{
	return call_exit(ret);
}

SEC("kprobe/" SYSCALL("execve"))
int BPF_KPROBE(kprobe_sys_execve)
{
	return call_enter();
}

SEC("kprobe/" SYSCALL("execveat"))
int BPF_KPROBE(kprobe_sys_execveat)
{
	return call_enter();
}

SEC("kretprobe/" SYSCALL("execve"))
int BPF_KRETPROBE(kretprobe_sys_execve, long ret)
{
	return call_exit(ret);
}

SEC("kretprobe/" SYSCALL("execveat"))
int BPF_KRETPROBE(kretprobe_sys_execveat, long ret)
{
	return call_exit(ret);
}

SEC("tracepoint/syscalls/sys_enter_execve")
int tp_sys_enter_execve(void *ctx)
{
	return call_enter();
}

SEC("tracepoint/syscalls/sys_enter_execveat")
int tp_sys_enter_execveat(void *ctx)
{
	return call_enter();
}

SEC("tracepoint/syscalls/sys_exit_execve")
int tp_sys_exit_execve(struct trace_event_raw_sys_exit *ctx)
{
	return call_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_execveat")
int tp_sys_exit_execveat(struct trace_event_raw_sys_exit *ctx)
{
	return call_exit(ctx->ret);
}

SEC("fentry/mm_alloc")
int BPF_PROG(fentry_mm_alloc)
{
	mm_allocated();
	return 0;
}

SEC("kprobe/mm_alloc")
int BPF_KPROBE(kprobe_mm_alloc)
{
	mm_allocated();
	return 0;
}

/* Every slab allocation: one unsigned compare before any map is touched. */
SEC("raw_tp/kmem_cache_alloc")
int tp_kmem_cache_alloc(struct bpf_raw_tracepoint_args *ctx)
{
	if (ctx->args[0] - mm_alloc_lo >= mm_alloc_len)
		return 0;
	mm_allocated();
	return 0;
}

/*
 * The floor of the family's hooks in fentry and kprobe mode, for
 * tests/vm/overhead: the same hooks on execve() and mm_alloc() with empty
 * programs, loaded in place of the others only when
 * PERMSCOPE_EMPTY_PROGRAMS is set.
 */
SEC("fentry/" SYSCALL("execve"))
int BPF_PROG(empty_fentry_sys_execve)
{
	return 0;
}

SEC("fexit/" SYSCALL("execve"))
int BPF_PROG(empty_fexit_sys_execve)
{
	return 0;
}

SEC("kprobe/" SYSCALL("execve"))
int BPF_KPROBE(empty_kprobe_sys_execve)
{
	return 0;
}

SEC("kretprobe/" SYSCALL("execve"))
int BPF_KRETPROBE(empty_kretprobe_sys_execve)
{
	return 0;
}

SEC("fentry/mm_alloc")
int BPF_PROG(empty_fentry_mm_alloc)
{
	return 0;
}

SEC("kprobe/mm_alloc")
int BPF_KPROBE(empty_kprobe_mm_alloc)
{
	return 0;
}
