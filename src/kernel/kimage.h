/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Another kernel's BTF, read from a file without booting it: a raw BTF file
 * (/sys/kernel/btf/vmlinux), a vmlinux ELF (its .BTF section), an x86
 * bzImage/vmlinuz (the payload decompressed: gzip, xz, lzma, bzip2, zstd or
 * lz4), an arm64 Image/vmlinuz (plain or gzip'ed: the BTF blob in it), or
 * a Debian linux-image-*.deb / linux-binary-*.deb (its
 * boot/vmlinuz-* or usr/lib/modules/RELEASE/vmlinuz).  Decompression is libarchive's, in memory: no temporary
 * file, no external program.
 */
#ifndef PERMSCOPE_KIMAGE_H
#define PERMSCOPE_KIMAGE_H

#include <stddef.h>

struct btf;

/* What the file was; kimage_kind_name() says it in words. */
enum kimage_kind { KIMAGE_BTF, KIMAGE_ELF, KIMAGE_BZIMAGE, KIMAGE_DEB, KIMAGE_ARM64 };

/* Neither the input file nor a decompressed kernel may be larger. */
#define KIMAGE_MAX_BYTES (512u << 20)

struct kimage {
	enum kimage_kind kind;
	char release[128];     /* "6.1.0-57-amd64"; "" when the file does not say (raw BTF) */
	char compression[16];  /* the bzImage payload's: "gzip", "xz", ...; "" otherwise */
	char member[256];      /* in a .deb: the kernel image's path inside it */
	struct btf *btf;       /* the kernel's BTF; the caller btf__free()s it */
};

const char *kimage_kind_name(enum kimage_kind kind);

/*
 * Read PATH (a regular file, opened without blocking: a FIFO is refused)
 * into `ki`.  0, or -1 with `err` saying what was wrong with the file, for an
 * "Error: PATH: ..." line.
 */
int kimage_read(const char *path, struct kimage *ki, char *err, size_t errlen);

/* The same on LEN bytes in memory (the tests' entry point). */
int kimage_read_mem(const void *data, size_t len, struct kimage *ki, char *err, size_t errlen);

/*
 * The vmlinux ELF inside the bzImage/vmlinuz at PATH, decompressed into
 * *elf (the caller frees it): for tests/callsite-extract, which reads the
 * kernel's text.  0, or -1 with `err` saying why.
 */
int kimage_vmlinux(const char *path, unsigned char **elf, size_t *elflen, char *err,
		   size_t errlen);

#endif
