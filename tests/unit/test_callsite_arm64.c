// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lookup call-site classifier from bpf/callsite.h with arm64's half,
 * bpf/callsite_arm64.h, on any host: every call site of the pinned arm64
 * kernels (tests/unit/data/callsite-windows-arm64.txt, made by
 * `tests/callsite-windows --arch arm64`), then what no image holds: a
 * BPF trampoline's call of its function, signed return addresses,
 * trampoline frames and garbage.
 */
#include <linux/types.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/kimage.h"
#include "testutil.h"
#include "util.h"

/* The data are arm64 kernels': their decoder, whatever this host is. */
#define __TARGET_ARCH_arm64
#include "callsite.h"

#define CALLSITE_DATA "callsite-windows-arm64.txt"
#define CALLSITE_KERNELS 3
#include "callsite_data.h"

/* A kernel laid out as an arm64 6.12 is: 48-bit virtual addresses, no __pfx_ padding. */
static const struct callsite_syms K = {
	.ip_lo = 0xffff8000803c1d40, .ip_len = 0x140, .sip_lo = 0xffff80008052a1c0,
	.walk_lo = 0xffff8000803c4a80, .walk_len = 0x6c0,
	.rethook_tramp = 0xffff800080034bb0, .fgraph_tramp = 0xffff80008002c4f8,
	.text_top = 0xffff800000000000,
};
#define IN_WALKER (K.walk_lo + 0xa8)
#define ELSEWHERE 0xffff8000800e6a2cULL

static void put_insn(__u8 *w, int at, __u32 insn)
{
	for (int i = 0; i < 4; i++)
		w[at + i] = (__u8)(insn >> (8 * i));
}

/* The window of a `bl` (or, tail, a `b`) to `tgt` that ends at `ret`. */
static void window(__u8 w[CALLSITE_WINDOW], bool tail, __u64 ret, __u64 tgt)
{
	__s64 imm = (__s64)(tgt - (ret - 4)) / 4;

	put_insn(w, 0, 0xd503201f); /* nop */
	put_insn(w, 4, (tail ? 0x14000000u : 0x94000000u) | ((__u32)imm & 0x03ffffffu));
}

/*
 * Kernel k's text, for the_windows_are_the_images_own_bytes()
 * (tests/callsite_data.h): the arm64 Image at PATH is the kernel's loaded
 * bytes, its first at the `image` line's _text.
 */
static void image_text(int k, const char *path, __u64 *lo, __u8 **text, size_t *size)
{
	char why[512], *img;

	if (read_input_file(path, KIMAGE_MAX_BYTES, &img, size, why, sizeof(why)))
		fail_msg("%s: %s", path, why);
	assert_true(kernels[k].image != 0);
	*lo = kernels[k].image;
	*text = (__u8 *)img;
}

/* ---- what no image holds ------------------------------------------------ */

static void bl_targets_either_way_and_a_b_is_no_call(void **state)
{
	__u8 w[CALLSITE_WINDOW];
	__u64 tgt;

	(void)state;
	/* forward and backward, as far as imm26 reaches (128 MiB) */
	window(w, false, IN_WALKER, K.sip_lo);
	expect(&K, IN_WALKER, w, SITE_DIRECT_WALK, CALLSITE_CALL);
	window(w, false, ELSEWHERE, K.ip_lo);
	expect(&K, ELSEWHERE, w, SITE_IP_OTHER, CALLSITE_CALL);
	window(w, false, K.sip_lo + 0x8000004, K.sip_lo); /* the bl 128 MiB after: imm26 -2^25 */
	assert_true(callsite_call_target(w, K.sip_lo + 0x8000004, &tgt) && tgt == K.sip_lo);
	window(w, false, K.sip_lo - 0x7fffff8, K.sip_lo); /* 128 MiB - 4 before: imm26 2^25 - 1 */
	assert_true(callsite_call_target(w, K.sip_lo - 0x7fffff8, &tgt) && tgt == K.sip_lo);
	/* a tail call writes no x30: never a return address's call */
	window(w, true, IN_WALKER, K.sip_lo);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	window(w, true, ELSEWHERE, K.ip_lo);
	expect(&K, ELSEWHERE, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	/* one instruction into SIP, or before it: not SIP's entry (arm64 has no __pfx_) */
	window(w, false, IN_WALKER, K.sip_lo + 4);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
	window(w, false, IN_WALKER, K.sip_lo - 4);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
	/* blr x8, an indirect call, and a plain data word */
	put_insn(w, 4, 0xd63f0100);
	expect(&K, ELSEWHERE, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	put_insn(w, 4, 0x12345678);
	expect(&K, ELSEWHERE, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
}

/*
 * A BPF trampoline calls its function's body through x10 (`adr x30, #8;
 * ret x10`, or `blr x10` before 6.1): which function, only its frame says.
 * The same instructions with another register, or the ret alone, are not it.
 */
static void a_trampolines_call_of_its_function_is_resolved_in_its_frame(void **state)
{
	const __u64 tramp = 0xffff800081234568ULL; /* a BPF trampoline's page */
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	put_insn(w, 0, CALLSITE_ARM64_ADR_X30_8);
	put_insn(w, 4, CALLSITE_ARM64_RET_X10);
	expect(&K, tramp, w, SITE_ORIG, CALLSITE_TRAMP_CALL);
	put_insn(w, 0, 0xd503201f);
	put_insn(w, 4, CALLSITE_ARM64_BLR_X10);
	expect(&K, tramp, w, SITE_ORIG, CALLSITE_TRAMP_CALL);
	/* ret x10 after anything but that adr: a plain return, no call */
	put_insn(w, 4, CALLSITE_ARM64_RET_X10);
	expect(&K, tramp, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	/* adr x30, #8 then ret x11; blr x11 */
	put_insn(w, 0, CALLSITE_ARM64_ADR_X30_8);
	put_insn(w, 4, 0xd65f0160);
	expect(&K, tramp, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	put_insn(w, 4, 0xd63f0160);
	expect(&K, tramp, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	/* adr x30, #12 (another distance) before ret x10 */
	put_insn(w, 0, 0x1000007e);
	put_insn(w, 4, CALLSITE_ARM64_RET_X10);
	expect(&K, tramp, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
}

/*
 * A return address saved by a function built with pac-ret carries its
 * code in the bits above the 48-bit address; stripped, it is the address.
 * text_top is read off the kernel's own text address: 48-bit (and 52-bit,
 * whose kernel image lies where 48-bit's does) and 39-bit layouts.
 */
static void signed_return_addresses_are_stripped_before_they_are_told(void **state)
{
	__u64 seed = 0x2545f4914f6cdd1dULL;
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	assert_true(callsite_text_top(0xffff8000803c1d40ULL) == 0xffff800000000000ULL);
	assert_true(callsite_text_top(0xffffffc008010000ULL) == 0xffffffc000000000ULL);
	assert_true(callsite_text_top(0x0000000012345678ULL) == 0);
	window(w, false, IN_WALKER, K.sip_lo);
	for (int i = 0; i < 1000; i++) {
		__u64 pac, signed_ret;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		/* the code takes bits 54..48 and, with no top-byte ignore, 63..56; bit 55 stays */
		pac = seed & 0xff7f000000000000ULL;
		signed_ret = (IN_WALKER & 0x0000ffffffffffffULL) | (1ULL << 55) | pac;
		assert_true(callsite_strip(&K, signed_ret) == IN_WALKER);
		expect(&K, callsite_strip(&K, signed_ret), w, SITE_DIRECT_WALK, CALLSITE_CALL);
	}
	/* an unsigned address is left as it is */
	assert_true(callsite_strip(&K, ELSEWHERE) == ELSEWHERE);
	assert_true(callsite_strip(&K, K.rethook_tramp) == K.rethook_tramp);
}

/*
 * A fentry trampoline's frame on SIP, from the program's context up, as
 * arch/arm64/net/bpf_jit_comp.c lays it out: the two arguments, the return
 * value's slot when a program needs one, x19 and x20, padding to 16 bytes
 * where the sizes below leave it, {x29, x30 = the anchor}, {x29 at SIP's
 * entry, x9 = SIP's return address}.
 */
static void trampoline_frames_give_the_slot_and_saved_fp(void **state)
{
	const __u64 anchor = K.sip_lo + 8, ret = ELSEWHERE, fp = 0xffff800082a3fd40ULL;
	const __u64 x19 = 0xffff0000c1234500ULL, x20 = 7, tfp = 0xffff800082a3fd00ULL;
	struct { const char *what; __u64 w[10]; int slot; } frames[] = {
		{ "fentry", { 1, 2, x19, x20, tfp, anchor, fp, ret }, 7 },
		{ "fentry, padded", { 1, 2, x19, x20, 0, tfp, anchor, fp, ret }, 8 },
		{ "fentry and fexit", { 1, 2, 0, x19, x20, tfp, anchor, fp, ret }, 8 },
		{ "fentry and fexit, padded", { 1, 2, 0, x19, x20, 0, tfp, anchor, fp, ret }, 9 },
		/* the anchor one instruction later: `bti c` before the patched entry */
		{ "fentry, bti", { 1, 2, x19, x20, tfp, anchor + 4, fp, ret }, 7 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		const __u64 *w = frames[i].w;
		int off = callsite_tramp_slot(&K, &w[CALLSITE_PROBE_WORD]);

		print_message("%s: slot word %d\n", frames[i].what, off / 8);
		assert_int_equal(off, frames[i].slot * 8);
		assert_true(w[off / 8] == ret);
		assert_true(callsite_sip_anchor(&K, w[(off - CALLSITE_ANCHOR_GAP) / 8]));
		assert_true(w[callsite_saved_fp_offset(off, true) / 8] == fp);
		cases++;
	}
	/* no anchor where one can be: no slot, never a guess */
	{
		const __u64 w[] = { 1, 2, x19, x20, tfp, ELSEWHERE, fp, ret, 0, 0 };

		assert_int_equal(callsite_tramp_slot(&K, &w[CALLSITE_PROBE_WORD]), -1);
	}
	/* IP's return, above the x29 of IP's trampoline: the caller's record over IP's */
	assert_int_equal(callsite_orig_ret_offset(true), 24);
	assert_int_equal(callsite_orig_ret_offset(false), 8);
}

static void the_walker_inside_ip_and_other_tracers_as_on_x86(void **state)
{
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	window(w, false, K.walk_lo + K.walk_len, K.sip_lo);
	expect(&K, K.walk_lo + K.walk_len, w, SITE_DIRECT_OTHER, CALLSITE_CALL);
	expect(&K, K.ip_lo + 0x24, NULL, SITE_IP_WALK, CALLSITE_CALL);
	expect(&K, K.rethook_tramp, NULL, SITE_HOOKED, CALLSITE_RETHOOK);
	expect(&K, K.fgraph_tramp, NULL, SITE_HOOKED, CALLSITE_FGRAPH);
	expect(&K, ELSEWHERE, NULL, SITE_UNREAD, CALLSITE_UNREADABLE);
}

/* Is `w` before `ret` really a `bl` of IP's or SIP's entry?  Decoded here by hand. */
static bool really_a_call(const __u8 *w, __u64 ret)
{
	__u32 insn = w[4] | w[5] << 8 | w[6] << 16 | (__u32)w[7] << 24;
	__s32 imm = (__s32)(insn << 6) >> 6;
	__u64 tgt = ret - 4 + (__s64)imm * 4;

	return (insn >> 26) == 0x25 && (tgt == K.ip_lo || tgt == K.sip_lo);
}

static void garbage_is_never_a_confident_call(void **state)
{
	const int n = 200000;
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	unsigned confident = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		__u64 r, ret;
		__u8 w[CALLSITE_WINDOW];
		enum callsite_reason why;
		enum lookup_site s;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		r = seed;
		ret = 0xffff800080000000ULL + ((r >> 36) & ~3ULL);
		for (int j = 0; j < CALLSITE_WINDOW; j++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			w[j] = (__u8)(seed >> 56);
		}
		/* a third with a bl opcode, a third of those aimed near IP or SIP */
		if (i % 3 == 1)
			w[7] = (w[7] & 0x03) | 0x94;
		if (i % 9 == 1)
			window(w, false, ret, (r & 1 ? K.ip_lo : K.sip_lo) + ((__s64)(r % 12) - 6) * 4);
		s = callsite_classify(&K, ret, w, &why);
		assert_true(s >= SITE_UNREAD && s <= SITE_ORIG);
		if (callsite_by_address(&K, ret))
			continue;
		if (s == SITE_IP_WALK || s == SITE_IP_OTHER || s == SITE_DIRECT_WALK ||
		    s == SITE_DIRECT_OTHER) {
			assert_true(really_a_call(w, ret));
			assert_int_equal(why, CALLSITE_CALL);
			confident++;
		} else if (s != SITE_ORIG) {
			assert_int_equal(s, SITE_FOREIGN);
			assert_false(really_a_call(w, ret));
		}
		cases++;
	}
	print_message("garbage: %d windows, %u of them real calls of IP or SIP, all told so\n", n,
		      confident);
	assert_true(confident > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_call_site_of_the_pinned_kernels_is_what_its_symbols_say),
		cmocka_unit_test(the_windows_are_the_images_own_bytes),
		cmocka_unit_test(bl_targets_either_way_and_a_b_is_no_call),
		cmocka_unit_test(a_trampolines_call_of_its_function_is_resolved_in_its_frame),
		cmocka_unit_test(signed_return_addresses_are_stripped_before_they_are_told),
		cmocka_unit_test(trampoline_frames_give_the_slot_and_saved_fp),
		cmocka_unit_test(the_walker_inside_ip_and_other_tracers_as_on_x86),
		cmocka_unit_test(garbage_is_never_a_confident_call),
	};

	return cmocka_run_group_tests_name("callsite_arm64", tests, NULL, print_cases);
}
