// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * callsite-extract NAME VMLINUZ KALLSYMS: the call sites of
 * inode_permission() (IP) and security_inode_permission() (SIP) in a
 * kernel image, as lines of tests/unit/data/callsite-windows.txt
 * (tests/callsite-windows runs it on each pinned kernel; test_callsite
 * reads them).  KALLSYMS is that kernel's /proc/kallsyms, read in a VM:
 * Debian ships no symbols with the image (its System.map is a stub).
 *
 * Every `call rel32` (0xe8) and `jmp rel32` (0xe9, a tail call) in the
 * core text whose target lies in IP's or SIP's padding, at their start or
 * up to 16 bytes into them is written with the 8 bytes before its return
 * address.  The class each must get is told here from the symbols alone,
 * not by bpf/callsite.h: what the call sits in (IP itself, the path
 * walker link_path_walk*, anything else) and what it calls.  The bytes are
 * a linear sweep's, not a disassembler's: a 0xe8 inside another
 * instruction whose next 4 bytes point at IP would be listed too, which
 * the classifier cannot tell from a call either.
 *
 * Addresses are the image's own (KASLR's offset taken off, from _stext),
 * found by lookup_callsite_syms(), as the lookup programs are given them.
 *
 * An arm64 Image is the kernel's loaded bytes, from _text on, with no
 * section table: every aligned `bl` and `b` (a tail call) in it is looked
 * at, and the addresses are those of the boot that read KALLSYMS; an
 * `image` line gives _text there, where the image's first byte lies.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kimage.h"
#include "util.h"
#include "probe/family_lookup.h"

#define WINDOW 8 /* bpf/callsite_ARCH.h's CALLSITE_WINDOW, the same on x86 and arm64 */
#define SPAN 16  /* and its CALLSITE_ANCHOR_SPAN */

/* What a sweep found: a call (or tail jump) ending at `ret`, to `tgt`. */
struct found {
	uint64_t ret, tgt, at; /* at: the instruction's address */
	const unsigned char *window;
	bool tail;
};

struct sym {
	uint64_t addr;
	char name[256];
};

static struct sym *syms;
static size_t nsyms;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "Error: callsite-extract: %s: %s\n", what, why);
	exit(1);
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The core kernel's text symbols (no module's), sorted. */
static void read_symbols(const char *path)
{
	char line[512], name[256], type, mod;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		die(path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%llx %c %255s %c", &addr, &type, name, &mod);

		if (n < 3 || n == 4 || !strchr("tTwW", type))
			continue;
		if (nsyms == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				die(path, "out of memory");
		}
		syms[nsyms].addr = addr;
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), by_addr);
}

/* The symbol `addr` lies in: the last at or below it. */
static const struct sym *containing(uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return nsyms && syms[lo].addr <= addr ? &syms[lo] : NULL;
}

static bool named(const char *name, const char *fn)
{
	size_t n = strlen(fn);

	return !strncmp(name, fn, n) && (!name[n] || name[n] == '.');
}

/* The image's .text: its address, bytes and size. */
static void text_section(Elf *e, uint64_t *addr, const unsigned char **bytes, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		die("vmlinux", elf_errmsg(-1));
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".text"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size < WINDOW)
			die("vmlinux", ".text holds no bytes");
		*addr = sh.sh_addr;
		*bytes = d->d_buf;
		*size = d->d_size;
		return;
	}
	die("vmlinux", "no .text section");
}

/* The class a call site must get, from the symbols alone; NULL: not IP's or SIP's. */
static const char *classify(const struct callsite_syms *k, const struct found *f, uint64_t delta,
			    const char **what, uint64_t *off)
{
	const struct sym *in = containing(f->at + delta);

	if (f->tgt + k->ip_pad - k->ip_lo < k->ip_pad + SPAN)
		*what = "inode_permission", *off = f->tgt - k->ip_lo;
	else if (f->tgt + k->sip_pad - k->sip_lo < k->sip_pad + SPAN)
		*what = "security_inode_permission", *off = f->tgt - k->sip_lo;
	else
		return NULL;
	if (f->tail) /* a tail call leaves no return address of its own */
		return in && !strcmp(in->name, "inode_permission") ? "ip_walk" : "foreign";
	if (in && !strcmp(in->name, "inode_permission"))
		return "ip_walk"; /* IP's own call: by the mask alone */
	if ((int64_t)*off > 0 && (*what)[0] == 'i')
		return "orig"; /* IP's body past its entry: a trampoline's call */
	if ((int64_t)*off > 0)
		return "foreign";
	if (in && named(in->name, "link_path_walk"))
		return (*what)[0] == 'i' ? "ip_walk" : "direct_walk";
	return (*what)[0] == 'i' ? "ip_other" : "direct_other";
}

static size_t emit(const struct callsite_syms *k, const struct found *f, uint64_t delta)
{
	const char *what, *want;
	const struct sym *in;
	uint64_t off;

	want = classify(k, f, delta, &what, &off);
	if (!want)
		return 0;
	in = containing(f->at + delta);
	printf("site %llx ", (unsigned long long)f->ret);
	for (int j = 0; j < WINDOW; j++)
		printf("%02x", f->window[j]);
	printf(" %s %s+%#llx %s %s%+lld\n", want, in ? in->name : "?",
	       in ? (unsigned long long)(f->at + delta - in->addr) : 0ULL, f->tail ? "jmp" : "call",
	       what, (long long)(int64_t)off);
	return 1;
}

static void print_syms(const char *name, const struct callsite_syms *k)
{
	printf("kernel %s\n", name);
	printf("syms %llx %llx %llx %llx %llx %llx %llx %llx %llx\n", (unsigned long long)k->ip_lo,
	       (unsigned long long)k->ip_len, (unsigned long long)k->sip_lo,
	       (unsigned long long)k->ip_pad, (unsigned long long)k->sip_pad,
	       (unsigned long long)k->walk_lo, (unsigned long long)k->walk_len,
	       (unsigned long long)k->rethook_tramp, (unsigned long long)k->fgraph_tramp);
}

/* x86: every `call rel32` (0xe8) and `jmp rel32` (0xe9) of the vmlinux's .text. */
static size_t sweep_x86(const char *name, const char *image, struct callsite_syms *k, __u64 stext)
{
	uint64_t text, delta;
	const unsigned char *b;
	unsigned char *elf;
	size_t elflen, size, found = 0;
	char err[512];
	Elf *e;

	if (kimage_vmlinux(image, &elf, &elflen, err, sizeof(err)))
		die(image, err);
	elf_version(EV_CURRENT);
	e = elf_memory((char *)elf, elflen);
	if (!e)
		die(image, elf_errmsg(-1));
	text_section(e, &text, &b, &size);
	delta = stext - text; /* KASLR's offset: kallsyms' _stext is .text's start */
	k->ip_lo -= delta;
	k->sip_lo -= delta;
	k->walk_lo = k->walk_lo ? k->walk_lo - delta : 0;
	k->rethook_tramp = k->rethook_tramp ? k->rethook_tramp - delta : 0;
	k->fgraph_tramp = k->fgraph_tramp ? k->fgraph_tramp - delta : 0;
	print_syms(name, k);
	for (size_t i = WINDOW - 5; i + 5 <= size; i++) {
		struct found f = { .ret = text + i + 5, .at = text + i, .window = b + i + 5 - WINDOW,
				   .tail = b[i] == 0xe9 };
		int32_t rel;

		if (b[i] != 0xe8 && b[i] != 0xe9)
			continue;
		memcpy(&rel, b + i + 1, 4); /* little-endian, as x86 */
		f.tgt = f.ret + (int64_t)rel;
		found += emit(k, &f, delta);
	}
	elf_end(e);
	free(elf);
	return found;
}

static uint32_t arm64_insn(const unsigned char *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/*
 * arm64: every aligned `bl` (0x94000000) and `b` (0x14000000) from _stext
 * to _etext.  The image starts at _text, which 6.1 does not list: there it
 * lies 64 KiB under _stext (the head text), as on 7.2, which lists both.
 * Either way SIP's first instruction must be one a patchable entry starts
 * with (nop, bti c, paciasp), or the image is not this kallsyms' kernel.
 */
static size_t sweep_arm64(const char *name, const unsigned char *img, size_t len,
			  const struct callsite_syms *k, __u64 stext, __u64 stext_len)
{
	uint64_t text = stext - 0x10000;
	size_t found = 0;
	uint32_t entry;

	for (size_t i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, "_text"))
			text = syms[i].addr;
	if (stext < text || stext - text + stext_len > len || k->sip_lo - text + 4 > len)
		die(name, "_stext.._etext lies outside the image");
	entry = arm64_insn(img + (k->sip_lo - text));
	if (entry != 0xd503201fu && entry != 0xd503245fu && entry != 0xd503233fu)
		die(name, "security_inode_permission starts with no nop, bti c or paciasp in the "
			  "image: is KALLSYMS this image's?");
	print_syms(name, k);
	printf("image %llx\n", (unsigned long long)text);
	for (uint64_t at = stext; at < stext + stext_len; at += 4) {
		size_t i = at - text;
		uint32_t insn = arm64_insn(img + i);
		struct found f = { .ret = at + 4, .at = at, .tail = (insn & 0xfc000000u) == 0x14000000u };

		if ((insn & 0xfc000000u) != 0x94000000u && !f.tail)
			continue;
		if (i + 4 < WINDOW)
			continue;
		f.window = img + i + 4 - WINDOW;
		f.tgt = at + ((int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36);
		found += emit(k, &f, 0);
	}
	return found;
}

int main(int argc, char **argv)
{
	struct probe_opts o = { .kallsyms = argv[argc - 1] };
	struct callsite_syms k;
	__u64 stext, stext_len;
	size_t found, len;
	char err[512], *img;

	if (argc != 4) {
		fprintf(stderr, "usage: callsite-extract NAME VMLINUZ KALLSYMS\n");
		return 2;
	}
	/* the addresses the lookup programs are given, read as they read them */
	if (lookup_callsite_syms(&o, &k, &stext, &stext_len, err, sizeof(err)))
		die(argv[3], err);
	if (!stext)
		die(argv[3], "no _stext");
	read_symbols(argv[3]);
	if (read_input_file(argv[2], KIMAGE_MAX_BYTES, &img, &len, err, sizeof(err)))
		die(argv[2], err);
	if (len >= 0x40 && !memcmp(img + 0x38, "ARM\x64", 4))
		found = sweep_arm64(argv[1], (unsigned char *)img, len, &k, stext, stext_len);
	else
		found = sweep_x86(argv[1], argv[2], &k, stext);
	free(img);
	if (!found)
		die(argv[2], "no call of inode_permission or security_inode_permission in the text "
			     "(is KALLSYMS this image's?)");
	fprintf(stderr, "callsite-extract: %s: %zu call sites\n", argv[1], found);
	return 0;
}
