/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The lookup family's call site, read from kernel memory: where SIP's
 * return address is above a program's frame, the word itself, the window
 * before it, another tracer's hook undone (a kretprobe's rethook list, a
 * trampoline's frame on IP), and the per-CPU cache of call sites already
 * told.  What an address and its window mean is bpf/callsite.h's, the
 * pure classifier the unit test holds; this file is what only a BPF
 * program can do, apart from bpf/lookup.bpf.c's counting of the checks.
 * Included by lookup.bpf.c alone, after its percpu map's value type.
 */
#ifndef PERMSCOPE_CALLSITE_BPF_H
#define PERMSCOPE_CALLSITE_BPF_H

#include "callsite.h"

/* Set by user space before load, from /proc/kallsyms. */
const volatile struct callsite_syms syms = {}; /* IP, SIP, the walker, other tracers' stand-ins */
const volatile __u64 text_lo = 0, text_len = 0; /* core kernel text: its call sites never move */

/*
 * The return address a kprobe at SIP's entry finds in a register: arm64's
 * `bl` leaves it in x30 (bpf/callsite_arm64.h); x86's `call` pushed it,
 * and the program reads it at the stack pointer (0: none in a register).
 */
#if CALLSITE_RET_IN_LR
#define kprobe_lr(ctx) PT_REGS_RET(ctx)
#else
#define kprobe_lr(ctx) 0
#endif

/* Calibrated once after attach (lookup.bpf.c, calibrate()); -1 until then. */
__s32 ret_off = -1; /* SIP's return address: this many bytes above the program's frame */

/*
 * A call site's kind (enum lookup_site, bpf/permscope.h) is cached per CPU
 * with the verdict in how it is stored (one 64-bit word, so never read
 * half written).
 */
static const __u64 site_key[] = { /* stored as ret ^ site_key[site] */
	[SITE_IP_WALK] = 0x5a5a5a5a5a5a5a5aULL, [SITE_IP_OTHER] = 0x3c3c3c3c3c3c3c3cULL,
	[SITE_DIRECT_WALK] = 0xa5a5a5a5a5a5a5a5ULL, [SITE_DIRECT_OTHER] = 0,
	[SITE_FOREIGN] = 0xc3c3c3c3c3c3c3c3ULL,
};

/*
 * bpf_rdonly_cast() (a kfunc since 6.2) turns an address into a read-only
 * BTF pointer: a load through it is one instruction, and a fault reads 0,
 * where bpf_probe_read_kernel() is a helper call of about 90.  Weak, and
 * only the programs named *_rdonly_cast call it: user space loads those
 * where the kernel's BTF has the kfunc and their twins without the suffix
 * elsewhere (src/probe/attach.c).
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* One word of kernel memory; 0 when unreadable. */
static __always_inline __u64 read_word(const void *addr, bool direct_load)
{
	__u64 w = 0;

	if (direct_load) {
		/* any struct whose first member is 8 bytes of scalar will do */
		const struct timespec64 *word =
			bpf_rdonly_cast(addr, bpf_core_type_id_kernel(struct timespec64));

		return word->tv_sec;
	}
	if (bpf_probe_read_kernel(&w, sizeof(w), addr))
		return 0;
	return w;
}

/*
 * A fentry program's anchor, and the return slot CALLSITE_ANCHOR_GAP
 * above it at `addr`: adjacent on x86, so one probe read where there is no
 * bpf_rdonly_cast, not two.  Both 0 when unreadable.
 */
static __always_inline void read_pair(const void *addr, bool direct_load, __u64 *lo, __u64 *hi)
{
	__u64 w[2] = {};

	if (CALLSITE_ANCHOR_GAP != 8) {
		*lo = read_word(addr, direct_load);
		*hi = read_word(addr + CALLSITE_ANCHOR_GAP, direct_load);
		return;
	}
	if (direct_load) {
		/* timespec64 is two 8-byte scalars */
		const struct timespec64 *pair =
			bpf_rdonly_cast(addr, bpf_core_type_id_kernel(struct timespec64));

		*lo = pair->tv_sec;
		*hi = pair->tv_nsec;
		return;
	}
	bpf_probe_read_kernel(w, sizeof(w), addr);
	*lo = w[0];
	*hi = w[1];
}

/*
 * What made the call that returns to `ret` (bpf/callsite.h), the window
 * before it read only where the address alone does not say.
 */
static __always_inline enum lookup_site decode(__u64 ret, enum callsite_reason *why)
{
	__u8 w[CALLSITE_WINDOW];
	bool read = !callsite_by_address(&syms, ret) &&
		    !bpf_probe_read_kernel(w, sizeof(w), (void *)(ret - CALLSITE_WINDOW));

	return callsite_classify(&syms, ret, read ? w : NULL, why);
}

/*
 * A kretprobe (rethook) put arch_rethook_trampoline where the return
 * address was and pushed {ret_addr, frame} on the task's rethooks list
 * (arch_rethook_prepare(), 5.19 and later), newest first: on x86 the
 * frame is the slot's address, on arm64 (x30 holds the address) x29 at
 * the entry (callsite_rethook_frame()).  Two kretprobes on one slot (IP's
 * and SIP's: a tail call shares it) chain: the newer node keeps the
 * older's trampoline.  The real address behind the `seen` nodes of this
 * frame already undone, or 0.
 */
struct rethook_node___ps {
	struct llist_node llist;
	unsigned long ret_addr;
	unsigned long frame;
} __attribute__((preserve_access_index));

/*
 * Where a kernel without rethook for kretprobes (arm64: no HAVE_RETHOOK)
 * keeps the same: __kretprobe_trampoline stands in, and the task's
 * kretprobe_instances list holds {ret_addr, fp = x29 at the entry}
 * (arch_prepare_kretprobe()).
 */
struct kretprobe_instance___ps {
	struct llist_node llist;
	void *ret_addr;
	void *fp;
} __attribute__((preserve_access_index));

struct task_struct___ps {
	struct llist_head rethooks;
	struct llist_head kretprobe_instances;
} __attribute__((preserve_access_index));

static __always_inline __u64 rethook_ret(__u64 slot, int seen)
{
	struct task_struct___ps *t = (void *)bpf_get_current_task();
	struct llist_node *n;

	if (bpf_core_field_exists(t->rethooks)) {
		n = BPF_CORE_READ(t, rethooks.first);
		for (int i = 0; i < 16 && n; i++) {
			struct rethook_node___ps *rh =
				(void *)n - bpf_core_field_offset(struct rethook_node___ps, llist);

			if (BPF_CORE_READ(rh, frame) == slot && seen-- == 0)
				return callsite_strip(&syms, BPF_CORE_READ(rh, ret_addr));
			n = BPF_CORE_READ(n, next);
		}
		return 0;
	}
	if (!bpf_core_field_exists(t->kretprobe_instances))
		return 0;
	n = BPF_CORE_READ(t, kretprobe_instances.first);
	for (int i = 0; i < 16 && n; i++) {
		struct kretprobe_instance___ps *ri =
			(void *)n - bpf_core_field_offset(struct kretprobe_instance___ps, llist);

		if ((__u64)BPF_CORE_READ(ri, fp) == slot && seen-- == 0)
			return callsite_strip(&syms, (__u64)BPF_CORE_READ(ri, ret_addr));
		n = BPF_CORE_READ(n, next);
	}
	return 0;
}

/* Where SIP's return slot is above a fentry program's frame (bpf/callsite_ARCH.h). */
static __noinline int find_slot(const void *frame)
{
	__u64 w[CALLSITE_PROBE_WORDS] = {};

	if (bpf_probe_read_kernel(w, sizeof(w), frame + CALLSITE_PROBE_WORD * 8))
		return -1;
	return callsite_tramp_slot(&syms, w);
}

/* The trampoline's saved rbp: right under the anchor, or under the slot (jmp mode). */
static __always_inline __u64 saved_rbp(const void *frame, __u32 off)
{
	bool anchored = callsite_sip_anchor(&syms, read_word(frame + ((off - CALLSITE_ANCHOR_GAP) & 0xff), false));

	return read_word(frame + (callsite_saved_fp_offset(off, anchored) & 0xff), false);
}

/*
 * The return address `ret`, read from `slot` (a kretprobe's rethook node
 * names it so), not in this CPU's cache: what made the check.  `fp` is the
 * frame pointer at SIP's entry: where IP tail-called SIP from a BPF
 * trampoline's call, the base of that trampoline's frame.  Out of line:
 * only a new call site, or another tracer's hook, comes here.
 */
static __noinline int resolve(struct lookup_cpu *cpu, __u64 ret, __u64 slot, __u64 fp)
{
	enum callsite_reason why = CALLSITE_CALL;
	enum lookup_site s = SITE_HOOKED;
	bool via_orig = false;
	int undone = 0;

	for (int hop = 0; hop < 4; hop++) {
		s = decode(ret, &why);
		if (why == CALLSITE_RETHOOK) {
			ret = rethook_ret(slot, undone++);
			if (!ret)
				return SITE_HOOKED;
			continue;
		}
		if (why == CALLSITE_FGRAPH)
			return SITE_HOOKED;
		if (s == SITE_ORIG) {
			/*
			 * IP made this check; its return address is in the
			 * trampoline's frame, above its return into IP if it was
			 * called, right above the saved rbp if it was jumped to
			 */
			if (via_orig || !fp)
				return SITE_HOOKED;
			via_orig = true;
			undone = 0;
			slot = fp + callsite_orig_ret_offset(false);
			ret = callsite_strip(&syms, read_word((void *)slot, false));
			if (callsite_ip_anchor(&syms, ret)) {
				slot = fp + callsite_orig_ret_offset(true);
				ret = callsite_strip(&syms, read_word((void *)slot, false));
			}
			/* on arm64 a rethook node names IP's entry by its x29, saved under IP's return */
			if (CALLSITE_RET_IN_LR)
				slot = read_word((void *)(fp + callsite_orig_ret_offset(true) - 8), false);
			if (!ret)
				return SITE_HOOKED;
			continue;
		}
		break;
	}
	if (s == SITE_ORIG)
		return SITE_HOOKED;
	/* a trampoline called IP: what it returns to must be a call of IP */
	if (via_orig && s != SITE_IP_WALK && s != SITE_IP_OTHER)
		return SITE_HOOKED;
	if (s != SITE_UNREAD && s != SITE_HOOKED && callsite_in(ret, text_lo, text_len))
		cpu->sites[(ret >> 1) & (LOOKUP_SITES - 1)] = ret ^ site_key[s];
	return s;
}

/*
 * Who made the SIP call whose program frame is `frame`: read the return
 * address (a direct load, or one probe read where the kernel has no
 * bpf_rdonly_cast), then ask this CPU's cache of call sites, and resolve
 * only a site not seen before or a hooked one.  `tramp`: the frame is a
 * fentry program's, whose slot is read with the anchor under it, and checked.
 * `fp`: the frame pointer at SIP's entry, where the program has it
 * (kprobe), else 0.  `lr`: the return address where the program's
 * registers hold it (an arm64 kprobe: x30), else 0; a kretprobe's rethook
 * node then names the call by `fp`.
 */
static __always_inline enum lookup_site call_site(struct lookup_cpu *cpu, const void *frame,
					   bool direct_load, bool tramp, __u64 fp, __u64 lr)
{
	__u32 off = ret_off & 0xff; /* bounded: the verifier needs that for ctx */
	__u64 anchor, ret, *slot, key;
	enum lookup_site s;
	int found;

	if (lr) {
		ret = callsite_strip(&syms, lr);
		key = fp;
	} else if (tramp) {
		read_pair(frame + ((off - CALLSITE_ANCHOR_GAP) & 0xff), direct_load, &anchor, &ret);
		if (!callsite_sip_anchor(&syms, anchor)) {
			found = find_slot(frame);
			if (found < 0)
				return SITE_UNREAD;
			ret_off = found;
			off = found & 0xff;
			ret = read_word(frame + off, direct_load);
		}
		ret = callsite_strip(&syms, ret);
	} else {
		ret = read_word(frame + off, direct_load);
	}
	if (!ret)
		return SITE_UNREAD;
	slot = &cpu->sites[(ret >> 1) & (LOOKUP_SITES - 1)];
	for (s = SITE_IP_WALK; s <= SITE_FOREIGN; s++)
		if (*slot == (ret ^ site_key[s]))
			return s;
	if (tramp)
		fp = saved_rbp(frame, off);
	if (!lr)
		key = CALLSITE_RET_IN_LR ? fp : (__u64)frame + off;
	return resolve(cpu, ret, key, fp);
}

#endif
