/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Who made a security_inode_permission() (SIP) call, from its return
 * address alone: the lookup family's call-site classifier, written once and
 * compiled into bpf/lookup.bpf.c and into tests/unit/test_callsite.c, as
 * bpf/predicates.h is, so that the tested definition is the running one.
 * The test feeds it every call site of the pinned kernels
 * (tests/unit/data/callsite-windows.txt, made by tests/callsite-windows).
 *
 * Only positive evidence counts (bpf/lookup.bpf.c's opening comment says
 * why): an address inside inode_permission() (IP), a direct call of IP or
 * of its padding (IP tail-called SIP), a direct call of SIP or its padding
 * (the fast path: a skip).  Everything else is unattributed, with a reason.
 *
 * Nothing here reads memory: the caller reads the window before the
 * return address (a probe read in BPF, the data file in the test) and says
 * when it could not.  What an instruction or a trampoline's frame looks
 * like is the architecture's (bpf/callsite_ARCH.h, chosen below); this file
 * is the same on all of them.
 */
#ifndef PERMSCOPE_CALLSITE_H
#define PERMSCOPE_CALLSITE_H

#include "permscope.h"

/*
 * One file per architecture; the BPF build says which
 * (-D__TARGET_ARCH_x86), a user-space build its compiler's, and a test of
 * another architecture's data defines __TARGET_ARCH_ARCH itself.
 */
#if defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && !defined(__TARGET_ARCH_x86) && defined(__aarch64__))
#include "callsite_arm64.h"
#elif defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#include "callsite_x86.h"
#else
#error "bpf/callsite.h: no call-site decoder for this architecture (x86 and arm64 have one: write bpf/callsite_ARCH.h)"
#endif

/* struct callsite_syms, the addresses it is given, is in permscope.h. */

/* Why a return address was or was not attributed. */
enum callsite_reason {
	CALLSITE_CALL,         /* a call of IP or SIP, or a return inside IP: attributed */
	CALLSITE_IP_BODY,      /* a call of IP's body past its fentry call: a trampoline ran it (SITE_ORIG) */
	CALLSITE_TRAMP_CALL,   /* a trampoline's call of its function, named only in its frame (SITE_ORIG) */
	CALLSITE_UNREADABLE,   /* the window could not be read (SITE_UNREAD) */
	CALLSITE_NOT_A_CALL,   /* the window ends in no direct call: a jmp, an indirect call, data (SITE_FOREIGN) */
	CALLSITE_OTHER_TARGET, /* a direct call of something else (SITE_FOREIGN) */
	CALLSITE_RETHOOK,      /* a kretprobe's trampoline: the task's rethook list has the real address (SITE_HOOKED) */
	CALLSITE_FGRAPH,       /* the function graph tracer's: not recovered (SITE_HOOKED) */
};

/*
 * The run of set bits atop a kernel text address, user space's for
 * callsite_syms.text_top: on arm64 the bits a pointer authentication code
 * takes in a signed return address (callsite_strip()).
 */
static inline __u64 callsite_text_top(__u64 addr)
{
	__u64 top = 0;

	for (int bit = 63; bit >= 0 && (addr >> bit & 1); bit--)
		top |= 1ULL << bit;
	return top;
}

static inline bool callsite_in(__u64 addr, __u64 lo, __u64 len)
{
	return addr - lo < len;
}

/*
 * Does the address alone answer, so that no window need be read?  Another
 * tracer's stand-in, or a return inside IP.  The BPF program reads the
 * window only when not; the classifier answers either way.
 */
static inline bool callsite_by_address(const volatile struct callsite_syms *k, __u64 ret)
{
	return (k->rethook_tramp && ret == k->rethook_tramp) ||
	       (k->fgraph_tramp && ret == k->fgraph_tramp) || callsite_in(ret, k->ip_lo, k->ip_len);
}

/* A function's start or its own padding: a call thunk's target, and no further. */
static inline bool callsite_entry(__u64 tgt, __u64 lo, __u64 pad)
{
	return callsite_in(tgt + pad, lo, pad + 1);
}

/* A trampoline's return into SIP, just past SIP's fentry call: the anchor. */
static inline bool callsite_sip_anchor(const volatile struct callsite_syms *k, __u64 w)
{
	return w - k->sip_lo < CALLSITE_ANCHOR_SPAN;
}

/* A trampoline's return into IP, just past IP's fentry call. */
static inline bool callsite_ip_anchor(const volatile struct callsite_syms *k, __u64 w)
{
	return w - k->ip_lo < CALLSITE_ANCHOR_SPAN;
}

/*
 * What made the call that returns to `ret`.  `w`: the CALLSITE_WINDOW bytes
 * before `ret`, or NULL when they could not be read (never looked at when
 * callsite_by_address()).  `why`, if not NULL, gets the reason.
 * SITE_IP_*: IP made the check (inside IP: a plain call, told by the mask
 * alone, as the walker's); SITE_DIRECT_*: the caller called SIP itself;
 * SITE_ORIG: resolve further, in the trampoline's frame; SITE_HOOKED with
 * CALLSITE_RETHOOK: resolve further, in the rethook list.
 */
static inline enum lookup_site callsite_classify(const volatile struct callsite_syms *k, __u64 ret,
						 const __u8 *w, enum callsite_reason *why)
{
	bool walker = !k->walk_len || callsite_in(ret, k->walk_lo, k->walk_len);
	enum callsite_reason r = CALLSITE_CALL;
	enum lookup_site s;
	__u64 tgt;

	if (k->rethook_tramp && ret == k->rethook_tramp) {
		r = CALLSITE_RETHOOK;
		s = SITE_HOOKED;
	} else if (k->fgraph_tramp && ret == k->fgraph_tramp) {
		r = CALLSITE_FGRAPH;
		s = SITE_HOOKED;
	} else if (callsite_in(ret, k->ip_lo, k->ip_len)) {
		s = SITE_IP_WALK; /* IP's caller is not known: by the mask alone */
	} else if (!w) {
		r = CALLSITE_UNREADABLE;
		s = SITE_UNREAD;
	} else if (callsite_tramp_call(w)) {
		r = CALLSITE_TRAMP_CALL; /* resolve() reads its frame: IP's, or hooked */
		s = SITE_ORIG;
	} else if (!callsite_call_target(w, ret, &tgt)) {
		r = CALLSITE_NOT_A_CALL;
		s = SITE_FOREIGN;
	} else if (callsite_entry(tgt, k->ip_lo, k->ip_pad)) {
		s = walker ? SITE_IP_WALK : SITE_IP_OTHER;
	} else if (callsite_ip_anchor(k, tgt)) {
		r = CALLSITE_IP_BODY;
		s = SITE_ORIG;
	} else if (callsite_entry(tgt, k->sip_lo, k->sip_pad)) {
		s = walker ? SITE_DIRECT_WALK : SITE_DIRECT_OTHER;
	} else {
		r = CALLSITE_OTHER_TARGET;
		s = SITE_FOREIGN;
	}
	if (why)
		*why = r;
	return s;
}

/*
 * A fentry program's return slot, told by the CALLSITE_PROBE_WORDS words
 * from CALLSITE_PROBE_WORD of its frame: its offset above the program's
 * context, or -1 where none of them is where the architecture's
 * trampoline puts its anchor.
 */
static inline int callsite_tramp_slot(const volatile struct callsite_syms *k, const __u64 *probed)
{
	return callsite_slot_from(k, probed);
}

#endif
