// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lookup call-site classifier from bpf/callsite.h, the code the probes
 * run: every call site of the pinned kernels (tests/unit/data/
 * callsite-windows.txt, made by tests/callsite-windows), then what no
 * image holds: thunks in the padding and a byte past it, a trampoline's
 * call of IP's body, other tracers' stand-ins, trampoline frames, an
 * unreadable window and garbage.
 */
#include <linux/types.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/kimage.h"
#include "testutil.h"

/* The data are x86 kernels': their decoder, whatever this host is. */
#ifndef __TARGET_ARCH_x86
#define __TARGET_ARCH_x86
#endif
#include "callsite.h"

#define CALLSITE_DATA "callsite-windows.txt"
#define CALLSITE_KERNELS 3
#include "callsite_data.h"


/* A kernel laid out like sid's 7.2 (tests/unit/data/callsite-windows.txt). */
static const struct callsite_syms K = {
	.ip_lo = 0xffffffff8181ebb0, .ip_len = 0x180, .sip_lo = 0xffffffff81a135d0,
	.ip_pad = 16, .sip_pad = 16, .walk_lo = 0xffffffff818222b0, .walk_len = 0x6e0,
	.rethook_tramp = 0xffffffff8133cd10, .fgraph_tramp = 0xffffffff8133cc90,
};
#define IN_WALKER (K.walk_lo + 0xa8)
#define ELSEWHERE 0xffffffff81398731ULL /* prctl_set_mm_exe_file()'s return from IP */

/* The window of an instruction OP (0xe8 call, 0xe9 jmp) with rel32 that ends at `ret`. */
static void window(__u8 w[CALLSITE_WINDOW], __u8 op, __u64 ret, __u64 tgt)
{
	__u32 rel = (__u32)(tgt - ret);

	memset(w, 0x90, CALLSITE_WINDOW);
	w[CALLSITE_WINDOW - 5] = op;
	for (int i = 0; i < 4; i++)
		w[CALLSITE_WINDOW - 4 + i] = (__u8)(rel >> (8 * i));
}

/* The image's .text: its address and bytes. */
static bool text_of(Elf *e, __u64 *addr, const __u8 **bytes, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".text") && (d = elf_getdata(scn, NULL))) {
			*addr = sh.sh_addr;
			*bytes = d->d_buf;
			*size = d->d_size;
			return true;
		}
	}
	return false;
}

/*
 * Kernel k's text, for the_windows_are_the_images_own_bytes()
 * (tests/callsite_data.h): the vmlinux inside the bzImage at PATH,
 * decompressed again by kimage_vmlinux(), its .text copied out.
 */
static void image_text(int k, const char *path, __u64 *lo, __u8 **text, size_t *size)
{
	const __u8 *bytes = NULL;
	unsigned char *elf;
	size_t elflen;
	char why[512];
	Elf *e;

	(void)k;
	if (kimage_vmlinux(path, &elf, &elflen, why, sizeof(why)))
		fail_msg("%s: %s", path, why);
	elf_version(EV_CURRENT);
	e = elf_memory((char *)elf, elflen);
	assert_non_null(e);
	assert_true(text_of(e, lo, &bytes, size));
	*text = malloc(*size);
	assert_non_null(*text);
	memcpy(*text, bytes, *size);
	elf_end(e);
	free(elf);
}

/* ---- what no image holds ------------------------------------------------ */

static void a_tail_jump_is_no_call(void **state)
{
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	window(w, 0xe9, IN_WALKER, K.sip_lo);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	window(w, 0xe9, ELSEWHERE, K.ip_lo);
	expect(&K, ELSEWHERE, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
	/* the same bytes as a call are one */
	window(w, 0xe8, IN_WALKER, K.sip_lo);
	expect(&K, IN_WALKER, w, SITE_DIRECT_WALK, CALLSITE_CALL);
	window(w, 0xe8, ELSEWHERE, K.ip_lo);
	expect(&K, ELSEWHERE, w, SITE_IP_OTHER, CALLSITE_CALL);
}

static void a_call_thunk_in_the_padding_counts_and_a_byte_past_it_does_not(void **state)
{
	struct callsite_syms no_pad = K;
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	no_pad.ip_pad = no_pad.sip_pad = 0; /* 6.1: no __pfx_ symbols */
	for (__u64 back = 0; back <= K.sip_pad; back++) {
		window(w, 0xe8, IN_WALKER, K.sip_lo - back);
		expect(&K, IN_WALKER, w, SITE_DIRECT_WALK, CALLSITE_CALL);
		expect(&no_pad, IN_WALKER, w, back ? SITE_FOREIGN : SITE_DIRECT_WALK,
		       back ? CALLSITE_OTHER_TARGET : CALLSITE_CALL);
		window(w, 0xe8, ELSEWHERE, K.ip_lo - back);
		expect(&K, ELSEWHERE, w, SITE_IP_OTHER, CALLSITE_CALL);
		expect(&no_pad, ELSEWHERE, w, back ? SITE_FOREIGN : SITE_IP_OTHER,
		       back ? CALLSITE_OTHER_TARGET : CALLSITE_CALL);
	}
	/* one byte before the padding: another function's last byte */
	window(w, 0xe8, IN_WALKER, K.sip_lo - K.sip_pad - 1);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
	window(w, 0xe8, ELSEWHERE, K.ip_lo - K.ip_pad - 1);
	expect(&K, ELSEWHERE, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
	/* past SIP's entry: no call of SIP */
	window(w, 0xe8, IN_WALKER, K.sip_lo + 1);
	expect(&K, IN_WALKER, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
}

static void a_call_of_ips_body_is_a_trampolines(void **state)
{
	__u8 w[CALLSITE_WINDOW];
	const __u64 tramp = 0xffffffffc0001234ULL; /* a BPF trampoline: module space */

	(void)state;
	for (__u64 in = 1; in < CALLSITE_ANCHOR_SPAN; in++) {
		window(w, 0xe8, tramp, K.ip_lo + in);
		expect(&K, tramp, w, SITE_ORIG, CALLSITE_IP_BODY);
	}
	window(w, 0xe8, tramp, K.ip_lo + CALLSITE_ANCHOR_SPAN);
	expect(&K, tramp, w, SITE_FOREIGN, CALLSITE_OTHER_TARGET);
}

static void the_walker_is_told_by_the_return_address(void **state)
{
	struct callsite_syms unknown = K;
	__u8 w[CALLSITE_WINDOW];
	const __u64 first = K.walk_lo, past = K.walk_lo + K.walk_len;

	(void)state;
	unknown.walk_lo = unknown.walk_len = 0; /* no link_path_walk in kallsyms */
	window(w, 0xe8, first, K.sip_lo);
	expect(&K, first, w, SITE_DIRECT_WALK, CALLSITE_CALL);
	window(w, 0xe8, past - 1, K.sip_lo);
	expect(&K, past - 1, w, SITE_DIRECT_WALK, CALLSITE_CALL);
	window(w, 0xe8, past, K.sip_lo);
	expect(&K, past, w, SITE_DIRECT_OTHER, CALLSITE_CALL);
	expect(&unknown, past, w, SITE_DIRECT_WALK, CALLSITE_CALL);
	window(w, 0xe8, first - 1, K.ip_lo);
	expect(&K, first - 1, w, SITE_IP_OTHER, CALLSITE_CALL);
	expect(&unknown, first - 1, w, SITE_IP_WALK, CALLSITE_CALL);
}

static void a_return_inside_ip_needs_no_window(void **state)
{
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	memset(w, 0xcc, sizeof(w)); /* whatever the bytes: int3 */
	for (__u64 ret = K.ip_lo; ret < K.ip_lo + K.ip_len; ret += 0x17) {
		assert_true(callsite_by_address(&K, ret));
		expect(&K, ret, NULL, SITE_IP_WALK, CALLSITE_CALL);
		expect(&K, ret, w, SITE_IP_WALK, CALLSITE_CALL);
	}
	assert_false(callsite_by_address(&K, K.ip_lo + K.ip_len));
	assert_false(callsite_by_address(&K, K.ip_lo - 1));
	expect(&K, K.ip_lo + K.ip_len, w, SITE_FOREIGN, CALLSITE_NOT_A_CALL);
}

static void other_tracers_stand_ins_are_hooked(void **state)
{
	struct callsite_syms unknown = K;
	__u8 w[CALLSITE_WINDOW];

	(void)state;
	unknown.rethook_tramp = unknown.fgraph_tramp = 0;
	assert_true(callsite_by_address(&K, K.rethook_tramp));
	assert_true(callsite_by_address(&K, K.fgraph_tramp));
	expect(&K, K.rethook_tramp, NULL, SITE_HOOKED, CALLSITE_RETHOOK);
	expect(&K, K.fgraph_tramp, NULL, SITE_HOOKED, CALLSITE_FGRAPH);
	/* even where the bytes before them would read as a call of SIP */
	window(w, 0xe8, K.rethook_tramp, K.sip_lo);
	expect(&K, K.rethook_tramp, w, SITE_HOOKED, CALLSITE_RETHOOK);
	/* not known: the window decides, as for any address */
	assert_false(callsite_by_address(&unknown, K.rethook_tramp));
	expect(&unknown, K.rethook_tramp, w, SITE_DIRECT_OTHER, CALLSITE_CALL);
	expect(&unknown, K.fgraph_tramp, NULL, SITE_UNREAD, CALLSITE_UNREADABLE);
	/* a byte off is no stand-in */
	expect(&K, K.rethook_tramp + 1, NULL, SITE_UNREAD, CALLSITE_UNREADABLE);
}

static void an_unreadable_window_is_unread_never_foreign(void **state)
{
	(void)state;
	assert_false(callsite_by_address(&K, ELSEWHERE));
	expect(&K, ELSEWHERE, NULL, SITE_UNREAD, CALLSITE_UNREADABLE);
	expect(&K, IN_WALKER, NULL, SITE_UNREAD, CALLSITE_UNREADABLE);
}

/*
 * A fentry trampoline's frame on SIP, from the program's context up, as
 * arch/x86/net/bpf_jit_comp.c lays it out: the arguments, the return
 * value's slot when a program needs it, the saved rbp, the return into
 * SIP (the anchor) unless in jmp mode, SIP's return slot.
 */
static void trampoline_frames_give_the_slot_and_saved_rbp(void **state)
{
	const __u64 anchor = K.sip_lo + 9, ret = ELSEWHERE, rbp = 0xffffc90000123f00ULL;
	struct { const char *what; __u64 w[6]; int slot, fp; } frames[] = {
		{ "fentry", { 1, 2, rbp, anchor, ret, 0 }, 4, 2 },
		{ "fentry and fexit", { 1, 2, 0, rbp, anchor, ret }, 5, 3 },
		{ "jmp mode (6.19+)", { 1, 2, 0, rbp, ret, 0 }, 4, 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		const __u64 *w = frames[i].w;
		int off = callsite_tramp_slot(&K, &w[CALLSITE_PROBE_WORD]);
		bool anchored = callsite_sip_anchor(&K, w[off / 8 - 1]);

		print_message("%s: slot word %d, saved rbp word %d\n", frames[i].what, off / 8,
			      callsite_saved_fp_offset(off, anchored) / 8);
		assert_int_equal(off, frames[i].slot * 8);
		assert_true(w[off / 8] == ret);
		assert_int_equal(callsite_saved_fp_offset(off, anchored), frames[i].fp * 8);
		cases++;
	}
	/* the anchor: a return just past SIP's fentry call, no further */
	for (__u64 d = 0; d < CALLSITE_ANCHOR_SPAN; d++)
		assert_true(callsite_sip_anchor(&K, K.sip_lo + d));
	assert_false(callsite_sip_anchor(&K, K.sip_lo + CALLSITE_ANCHOR_SPAN));
	assert_false(callsite_sip_anchor(&K, K.sip_lo - 1));
	assert_true(callsite_ip_anchor(&K, K.ip_lo + 9));
	assert_false(callsite_ip_anchor(&K, K.ip_lo + CALLSITE_ANCHOR_SPAN));
	assert_false(callsite_ip_anchor(&K, K.ip_lo - 1));
	/* IP's return, above the rbp of IP's trampoline: over the anchor when it was called */
	assert_int_equal(callsite_orig_ret_offset(false), 8);
	assert_int_equal(callsite_orig_ret_offset(true), 16);
}

/* xorshift64: the same garbage on every run */
static __u64 next_random(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Is `w` before `ret` really a call of IP's or SIP's entry or padding?  Decoded here by hand. */
static bool really_a_call(const __u8 *w, __u64 ret)
{
	__s32 rel;
	__u64 tgt;

	if (w[3] != 0xe8)
		return false;
	memcpy(&rel, w + 4, 4);
	tgt = ret + (__s64)rel;
	return (tgt >= K.ip_lo - K.ip_pad && tgt <= K.ip_lo) ||
	       (tgt >= K.sip_lo - K.sip_pad && tgt <= K.sip_lo);
}

static void garbage_is_never_a_confident_call(void **state)
{
	const int n = 200000;
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	unsigned confident = 0;

	(void)state;
	for (int i = 0; i < n; i++) {
		__u64 r = next_random(&seed), ret = 0xffffffff81000000ULL + (r >> 40);
		__u8 w[CALLSITE_WINDOW];
		enum callsite_reason why;
		enum lookup_site s;

		for (int j = 0; j < CALLSITE_WINDOW; j++)
			w[j] = (__u8)(next_random(&seed) >> 56);
		/* a third with a call opcode, a third of those aimed near IP or SIP */
		if (i % 3 == 1)
			w[3] = 0xe8;
		if (i % 9 == 1)
			window(w, 0xe8, ret, (r & 1 ? K.ip_lo : K.sip_lo) + (__s64)(r % 48) - 24);
		/* and a few with any other opcode before a rel32 of SIP */
		if (i % 9 == 4)
			window(w, (__u8)(r >> 8) == 0xe8 ? 0xe9 : (__u8)(r >> 8), ret, K.sip_lo);
		s = callsite_classify(&K, ret, w, &why);
		assert_true(s >= SITE_UNREAD && s <= SITE_ORIG);
		if (callsite_by_address(&K, ret))
			continue; /* by its address, whatever the bytes */
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
	assert_true(confident > 0); /* the aimed ones: the assertion above was reached */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_call_site_of_the_pinned_kernels_is_what_its_symbols_say),
		cmocka_unit_test(the_windows_are_the_images_own_bytes),
		cmocka_unit_test(a_tail_jump_is_no_call),
		cmocka_unit_test(a_call_thunk_in_the_padding_counts_and_a_byte_past_it_does_not),
		cmocka_unit_test(a_call_of_ips_body_is_a_trampolines),
		cmocka_unit_test(the_walker_is_told_by_the_return_address),
		cmocka_unit_test(a_return_inside_ip_needs_no_window),
		cmocka_unit_test(other_tracers_stand_ins_are_hooked),
		cmocka_unit_test(an_unreadable_window_is_unread_never_foreign),
		cmocka_unit_test(trampoline_frames_give_the_slot_and_saved_rbp),
		cmocka_unit_test(garbage_is_never_a_confident_call),
	};

	return cmocka_run_group_tests_name("callsite", tests, NULL, print_cases);
}
