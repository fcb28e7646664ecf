/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * arm64's half of bpf/callsite.h: how a call instruction, a return
 * address and a BPF trampoline's frame look on this architecture.
 * bpf/callsite.h includes it (never include it yourself); it answers what
 * bpf/callsite_x86.h answers, in arm64's terms:
 *
 * - CALLSITE_WINDOW, the bytes read before a return address, and
 *   callsite_call_target(): whether they end in a direct call, and its
 *   target; callsite_tramp_call(): whether they end in a BPF trampoline's
 *   call of the function it is attached to, whose target only the
 *   trampoline's frame holds;
 * - callsite_strip(): a return address read from a frame with its pointer
 *   authentication code taken off;
 * - CALLSITE_ANCHOR_SPAN, and where a fentry trampoline keeps the traced
 *   function's return address, the anchor and the frame pointer it saved;
 * - callsite_orig_ret_offset(): where, above the frame pointer of IP's
 *   trampoline, IP's own return address is, when that trampoline ran IP's
 *   body;
 * - CALLSITE_RET_IN_LR: a kprobe at a function's entry finds the return
 *   address in the link register, not on the stack.
 *
 * Plain C, no BPF helper: compiled into the BPF program (clang -target
 * bpf) and into tests/unit/test_callsite_arm64.c (gcc, on any host).
 */
#ifndef PERMSCOPE_CALLSITE_ARM64_H
#define PERMSCOPE_CALLSITE_ARM64_H

/*
 * `bl` writes the address of the next instruction to x30: the return
 * address follows a 4-byte `bl imm26`.  8 bytes are read, the two
 * instructions before the return address: a trampoline's call of its
 * function takes both.
 */
#define CALLSITE_WINDOW 8
#define CALLSITE_ARM64_BL_MASK 0xfc000000u
#define CALLSITE_ARM64_BL 0x94000000u
/*
 * A BPF trampoline calls the function it is attached to through x10,
 * loaded from its frame (arch/arm64/net/bpf_jit_comp.c,
 * prepare_trampoline()): `adr x30, #8; ret x10` since 6.1 (which keeps the
 * return stack predictor in step), `blr x10` before.
 */
#define CALLSITE_ARM64_ADR_X30_8 0x1000005eu
#define CALLSITE_ARM64_RET_X10 0xd65f0140u
#define CALLSITE_ARM64_BLR_X10 0xd63f0140u

/*
 * A function's patched entry is at most `bti c`, `mov x9, x30` and the
 * `bl` of its trampoline (or of ftrace_caller): the return into it lies
 * 8 or 12 bytes past its start.  16 stays inside IP and SIP.
 */
#define CALLSITE_ANCHOR_SPAN 16

/* A kprobe at SIP's entry: the return address is x30, the frame x29. */
#define CALLSITE_RET_IN_LR 1

static inline __u32 callsite_arm64_insn(const __u8 *w, int at)
{
	return (__u32)w[at] | (__u32)w[at + 1] << 8 | (__u32)w[at + 2] << 16 |
	       (__u32)w[at + 3] << 24;
}

/*
 * The target of the `bl` that ends right at `ret`, from the window `w`.
 * False for anything else: a `b` (a tail call: it writes no x30), `blr`,
 * data.  The instruction set is fixed-width and aligned, so the word
 * before a return address is an instruction, never the middle of one.
 */
static inline bool callsite_call_target(const __u8 *w, __u64 ret, __u64 *tgt)
{
	__u32 insn = callsite_arm64_insn(w, CALLSITE_WINDOW - 4);
	__s64 imm;

	if ((insn & CALLSITE_ARM64_BL_MASK) != CALLSITE_ARM64_BL)
		return false;
	imm = (__s64)((__u64)(insn & 0x03ffffffu) << 38) >> 36; /* imm26 * 4, sign-extended */
	*tgt = ret - 4 + imm;
	return true;
}

/* A BPF trampoline's call, through x10, of the function it is attached to. */
static inline bool callsite_tramp_call(const __u8 *w)
{
	__u32 last = callsite_arm64_insn(w, CALLSITE_WINDOW - 4);

	return last == CALLSITE_ARM64_BLR_X10 ||
	       (last == CALLSITE_ARM64_RET_X10 &&
		callsite_arm64_insn(w, CALLSITE_WINDOW - 8) == CALLSITE_ARM64_ADR_X30_8);
}

/*
 * A return address with its pointer authentication code taken off.  A
 * function built with -mbranch-protection=pac-ret signs x30 before it
 * saves it (paciasp), with the code in the bits above the virtual address
 * size; a kernel text address has all of those set.  `text_top`
 * (bpf/permscope.h) is that run of set bits, read off the kernel's own
 * text address by user space: ORing it in strips a signed address and
 * leaves an unsigned one as it is.
 */
static inline __u64 callsite_strip(const volatile struct callsite_syms *k, __u64 addr)
{
	return addr | k->text_top;
}

/*
 * A fentry trampoline's frame on arm64, in 8-byte words above the
 * program's context (prepare_trampoline(), checked on 6.1, 6.12 and 7.2):
 * SIP's CALLSITE_NARGS arguments, a slot for the return value where a
 * program needs one (an fexit on SIP), x19 and x20, padding to 16 bytes
 * where the sizes below leave it, then the two frame records the
 * trampoline pushed first: {x29, x30} for SIP (x30 its return into SIP,
 * the anchor) and, above, {x29, x9} for SIP's caller (x29 as at SIP's
 * entry, x9 SIP's own return address: the slot).  So the anchor is one of
 * the CALLSITE_PROBE_WORDS words from CALLSITE_PROBE_WORD, and the slot
 * two words above it.
 */
#define CALLSITE_NARGS 2 /* security_inode_permission(inode, mask) */
#define CALLSITE_PROBE_WORD (CALLSITE_NARGS + 3)
#define CALLSITE_PROBE_WORDS 3
#define CALLSITE_ANCHOR_GAP 16 /* from the anchor up to the slot */

/* The slot's offset, from the anchor found in probe word i; -1: none is an anchor. */
static inline int callsite_slot_from(const volatile struct callsite_syms *k, const __u64 *w)
{
	for (int i = 0; i < CALLSITE_PROBE_WORDS; i++)
		if (w[i] - k->sip_lo < CALLSITE_ANCHOR_SPAN)
			return (CALLSITE_PROBE_WORD + i) * 8 + CALLSITE_ANCHOR_GAP;
	return -1;
}

/* x29 as at SIP's entry: the word right under the slot, in the caller's record. */
static inline int callsite_saved_fp_offset(int slot_off, bool anchored)
{
	(void)anchored;
	return slot_off - 8;
}

/*
 * IP's return address, above the frame pointer of IP's trampoline (x29
 * at SIP's entry, when IP's body tail-called SIP): that x29 points at the
 * record {x29, x30 = the return into IP, the anchor}; the caller's record
 * {x29, x9 = IP's return} lies right above it.
 */
static inline int callsite_orig_ret_offset(bool anchored)
{
	return anchored ? 24 : 8;
}

#endif
