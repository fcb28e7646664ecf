/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * x86-64's half of bpf/callsite.h: how a call instruction and a BPF
 * trampoline's frame look on this architecture.  bpf/callsite.h includes
 * it (never include it yourself) and asks it these things, which another
 * architecture's file (bpf/callsite_arm64.h) answers in its own terms:
 *
 * - CALLSITE_WINDOW, the bytes read before a return address, and
 *   callsite_call_target(): whether they end in a direct call, and its
 *   target; callsite_tramp_call(): whether they end in a call whose target
 *   only a trampoline's frame holds (never, here: x86's trampoline calls
 *   the traced function's body directly, and the target says which);
 * - callsite_strip(): a return address read from memory as it compares
 *   (x86 signs none);
 * - CALLSITE_ANCHOR_SPAN: how far past a function's start the return
 *   of its fentry call lies (a trampoline's return into the function);
 * - callsite_slot_from(), CALLSITE_ANCHOR_GAP and callsite_saved_fp_offset():
 *   where a fentry trampoline keeps the traced function's return address,
 *   the anchor under it and the rbp it saved, above the program's context;
 * - callsite_orig_ret_offset(): where, above the rbp of IP's trampoline,
 *   IP's own return address is, when that trampoline ran IP's body;
 * - CALLSITE_RET_IN_LR (0): a kprobe at a function's entry finds the
 *   return address on the stack, at the stack pointer, and a kretprobe's
 *   rethook node names it by that address.
 *
 * Plain C, no BPF helper: compiled into the BPF program (clang -target
 * bpf) and into tests/unit/test_callsite.c (gcc, on any host: the windows
 * it feeds are x86 kernels').
 */
#ifndef PERMSCOPE_CALLSITE_X86_H
#define PERMSCOPE_CALLSITE_X86_H

/*
 * `call rel32` is 0xe8 and a 4-byte displacement from the return address:
 * its last 5 bytes.  8 are read, one aligned-size probe read as before;
 * the 3 before the opcode are not looked at.
 */
#define CALLSITE_WINDOW 8
#define CALLSITE_X86_CALL_REL32 0xe8

/*
 * A function's fentry call (5 bytes) follows at most an endbr64 (4) and
 * is the first instruction otherwise: its return lies within 9 bytes of
 * the start.  16 leaves room and stays inside the function, which is
 * longer than that (IP and SIP are).
 */
#define CALLSITE_ANCHOR_SPAN 16

/*
 * The target of the direct call that ends right at `ret`, from the window
 * `w` (the CALLSITE_WINDOW bytes before `ret`).  False for anything else:
 * a `jmp rel32` (0xe9, a tail call: it pushes no return address), an
 * indirect call, data.  A byte 0xe8 inside another instruction cannot be
 * told from a call here; nothing returns right after one, so no return
 * address a program reads ends there.
 */
static inline bool callsite_call_target(const __u8 *w, __u64 ret, __u64 *tgt)
{
	__u32 rel;

	if (w[CALLSITE_WINDOW - 5] != CALLSITE_X86_CALL_REL32)
		return false;
	rel = (__u32)w[CALLSITE_WINDOW - 4] | (__u32)w[CALLSITE_WINDOW - 3] << 8 |
	      (__u32)w[CALLSITE_WINDOW - 2] << 16 | (__u32)w[CALLSITE_WINDOW - 1] << 24;
	*tgt = ret + (__s64)(__s32)rel;
	return true;
}

/* x86 has no call through a register that only a trampoline's frame resolves. */
static inline bool callsite_tramp_call(const __u8 *w)
{
	(void)w;
	return false;
}

/* Return addresses are plain addresses here. */
static inline __u64 callsite_strip(const volatile struct callsite_syms *k, __u64 addr)
{
	(void)k;
	return addr;
}

/* A kprobe at SIP's entry: the return address is the word at the stack pointer. */
#define CALLSITE_RET_IN_LR 0

/*
 * A fentry trampoline's frame, in 8-byte words above the program's
 * context (arch/x86/net/bpf_jit_comp.c, __arch_prepare_bpf_trampoline(),
 * checked on 6.1, 6.12 and 7.2): SIP's CALLSITE_NARGS arguments, a slot
 * for the return value where a program needs one (an fexit on SIP), the
 * saved rbp, then what the trampoline was entered with: its return
 * address into SIP (the anchor) with SIP's return slot above it, or, in
 * the "jmp" mode of 6.19 and later (an fexit program there), the slot
 * alone.  So the word CALLSITE_PROBE_WORD is the slot, or the anchor with
 * the slot above it (a return-value slot moved everything up by one).
 */
#define CALLSITE_NARGS 2 /* security_inode_permission(inode, mask) */
#define CALLSITE_PROBE_WORD (CALLSITE_NARGS + 2)
#define CALLSITE_PROBE_WORDS 1
#define CALLSITE_ANCHOR_GAP 8 /* from the anchor up to the slot */

/* The slot's offset: the word above the anchor, or the probed one itself. */
static inline int callsite_slot_from(const volatile struct callsite_syms *k, const __u64 *w)
{
	bool anchored = w[0] - k->sip_lo < CALLSITE_ANCHOR_SPAN;

	return (CALLSITE_PROBE_WORD + (anchored ? 1 : 0)) * 8;
}

/* The trampoline's saved rbp, right under the anchor or under the slot. */
static inline int callsite_saved_fp_offset(int slot_off, bool anchored)
{
	return slot_off - (anchored ? 16 : 8);
}

/*
 * IP's return address, above the rbp that IP's trampoline pushed: right
 * above it where the trampoline was jumped to, or above its return into
 * IP (the anchor) where it was called.
 */
static inline int callsite_orig_ret_offset(bool anchored)
{
	return anchored ? 16 : 8;
}

#endif
