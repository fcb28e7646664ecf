// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A kernel's BTF from a file: raw BTF, vmlinux ELF, bzImage, Debian package.
 * Everything is read into memory and parsed there; a .deb is unpacked as a
 * stream (ar, then data.tar.*), and only its kernel image is kept.
 */
#include "kernel/kimage.h"

#include <archive.h>
#include <archive_entry.h>
#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* x86 boot protocol (Documentation/arch/x86/boot.rst): the setup header. */
#define BOOT_SETUP_SECTS   0x1f1
#define BOOT_FLAG          0x1fe /* 0xaa55 */
#define BOOT_HEADER        0x202 /* "HdrS" */
#define BOOT_VERSION       0x206 /* protocol version; payload fields from 2.08 */
#define BOOT_KERNEL_VER    0x20e /* pointer to the version string, minus 0x200 */
#define BOOT_PAYLOAD_OFF   0x248 /* from the protected-mode code's start */
#define BOOT_PAYLOAD_LEN   0x24c
#define BOOT_HEADER_END    0x250

/*
 * arm64 boot protocol (Documentation/arch/arm64/booting.rst): the Image's
 * 64-byte header, "ARM\x64" at 0x38.  The Image is the kernel's loaded
 * bytes themselves (objcopy -O binary), so its BTF, which the kernel keeps
 * in its read-only data for /sys/kernel/btf/vmlinux, is in it as is.
 */
#define ARM64_MAGIC_OFF 0x38
#define ARM64_HEADER_END 0x40

/* A BTF header (include/uapi/linux/btf.h): magic, version 1, flags, hdr_len 24. */
#define BTF_HEADER_LEN 24

#define err_set(...) snprintf(err, errlen, __VA_ARGS__)

const char *kimage_kind_name(enum kimage_kind kind)
{
	static const char *const names[] = {
		[KIMAGE_BTF] = "raw BTF", [KIMAGE_ELF] = "vmlinux ELF",
		[KIMAGE_BZIMAGE] = "bzImage", [KIMAGE_DEB] = "Debian package",
		[KIMAGE_ARM64] = "arm64 Image",
	};

	return names[kind];
}

static uint16_t le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first word of the NUL-terminated S (at most LEN bytes): "6.1.0-57-amd64". */
static void copy_release(char *dst, size_t size, const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && n + 1 < size && s[n] && !isspace((unsigned char)s[n]))
		n++;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* The release in a vmlinux's banner, linux_banner: "Linux version 6.1.0-57-amd64 (...". */
static void banner_release(const unsigned char *data, size_t len, char *dst, size_t size)
{
	static const char banner[] = "Linux version ";
	const unsigned char *p = data, *end = data + len;

	while ((p = memmem(p, end - p, banner, sizeof(banner) - 1))) {
		p += sizeof(banner) - 1;
		if (p < end && isdigit(*p)) {
			copy_release(dst, size, (const char *)p, end - p);
			return;
		}
	}
}

/* ---- ELF and BTF -------------------------------------------------------- */

static int parse_btf(const void *data, size_t len, struct kimage *ki, char *err, size_t errlen)
{
	ki->btf = btf__new(data, len);
	if (!ki->btf) {
		err_set("not valid BTF: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* An ELF header field of `size` bytes at `off`, in the file's byte order. */
static uint64_t elf_field(const unsigned char *d, size_t off, size_t size, bool big)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)d[off + (big ? size - 1 - i : i)] << (8 * i);
	return v;
}

/*
 * What libelf does not say: elf_memory() takes a header cut short or
 * section headers past the end without an error of its own, and
 * elf_errmsg() then says "no error".  The header and the section header
 * table must lie inside the file (the ELF header's e_shoff, e_shentsize,
 * e_shnum: 64-bit and 32-bit layouts).
 */
static bool elf_layout_bad(const unsigned char *d, size_t len, char *err, size_t errlen)
{
	bool is64, big;
	size_t ehsize;
	uint64_t shoff, shentsize, shnum, end;

	if (len < EI_NIDENT) {
		err_set("truncated ELF: %zu bytes, less than the %d of its identification", len,
			EI_NIDENT);
		return true;
	}
	if (d[EI_CLASS] != ELFCLASS64 && d[EI_CLASS] != ELFCLASS32) {
		err_set("corrupt ELF: class %u, neither 32- nor 64-bit", d[EI_CLASS]);
		return true;
	}
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB) {
		err_set("corrupt ELF: byte order %u, neither little- nor big-endian", d[EI_DATA]);
		return true;
	}
	is64 = d[EI_CLASS] == ELFCLASS64;
	big = d[EI_DATA] == ELFDATA2MSB;
	ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (len < ehsize) {
		err_set("truncated ELF: %zu bytes, less than its %zu-byte header", len, ehsize);
		return true;
	}
	shoff = is64 ? elf_field(d, offsetof(Elf64_Ehdr, e_shoff), 8, big)
		     : elf_field(d, offsetof(Elf32_Ehdr, e_shoff), 4, big);
	shentsize = elf_field(d, is64 ? offsetof(Elf64_Ehdr, e_shentsize)
				      : offsetof(Elf32_Ehdr, e_shentsize), 2, big);
	shnum = elf_field(d, is64 ? offsetof(Elf64_Ehdr, e_shnum) : offsetof(Elf32_Ehdr, e_shnum),
			  2, big);
	if (!shoff) {
		err_set("ELF file without section headers (so without a .BTF section)");
		return true;
	}
	/* e_shnum 0 with a table: the count is in the first header's sh_size (checked by libelf) */
	end = shoff + (shnum ? shnum : 1) * shentsize;
	if (shoff > len || end > len || end < shoff) {
		err_set("truncated ELF: section headers end at byte %llu, past the file's %zu bytes",
			(unsigned long long)end, len);
		return true;
	}
	return false;
}

/* The .BTF section of the ELF file DATA as BTF, and the banner's release. */
static int parse_elf(const unsigned char *data, size_t len, struct kimage *ki, char *err,
		     size_t errlen)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	int ret = -1;

	if (elf_layout_bad(data, len, err, errlen))
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)data, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		int e = elf_errno();

		err_set("corrupt ELF file: %s", e ? elf_errmsg(e) : "libelf cannot read its headers");
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			break;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".BTF"))
			break;
	}
	if (!scn) {
		err_set("ELF file without a .BTF section (a kernel built without "
			"CONFIG_DEBUG_INFO_BTF?)");
		goto out;
	}
	if (sh.sh_type == SHT_NOBITS || sh.sh_offset > len || sh.sh_size > len - sh.sh_offset) {
		err_set("truncated ELF file: .BTF ends at byte %llu, the file has %zu",
			(unsigned long long)(sh.sh_offset + sh.sh_size), len);
		goto out;
	}
	if (parse_btf(data + sh.sh_offset, sh.sh_size, ki, err, errlen) == 0) {
		if (!ki->release[0])
			banner_release(data, len, ki->release, sizeof(ki->release));
		ret = 0;
	}
out:
	elf_end(elf);
	return ret;
}

/* ---- decompression ------------------------------------------------------ */

/*
 * The compressions Linux's x86 boot code can unpack, less LZO: each is a
 * library libarchive is linked with on Debian, never an external program
 * (which is what archive_read_support_filter_all() would fall back to).
 */
static void support_kernel_filters(struct archive *a)
{
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_lz4(a);
	archive_read_support_filter_zstd(a);
}

/* All of the current entry of A into a malloc'ed *OUT, up to KIMAGE_MAX_BYTES. */
static int read_entry(struct archive *a, unsigned char **out, size_t *outlen, const char *what,
		      char *err, size_t errlen)
{
	size_t len = 0, cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	la_ssize_t n = 0;

	while (buf && (n = archive_read_data(a, buf + len, cap - len)) > 0) {
		len += n;
		if (len < cap)
			continue;
		if (cap >= KIMAGE_MAX_BYTES) {
			err_set("%s is larger than %u MiB", what, KIMAGE_MAX_BYTES >> 20);
			free(buf);
			return -1;
		}
		cap *= 2;
		unsigned char *grown = realloc(buf, cap);

		if (!grown)
			free(buf);
		buf = grown;
	}
	if (!buf) {
		err_set("out of memory reading %s", what);
		return -1;
	}
	if (n < 0) {
		err_set("truncated or corrupt %s: %s", what, archive_error_string(a));
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* DATA, compressed in one of support_kernel_filters()'s formats, unpacked. */
static int decompress(const void *data, size_t len, unsigned char **out, size_t *outlen,
		      struct kimage *ki, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char what[64];
	int ret = -1;

	if (!a) {
		err_set("out of memory");
		return -1;
	}
	support_kernel_filters(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		err_set("truncated or corrupt kernel payload: %s", archive_error_string(a));
		goto out;
	}
	if (archive_filter_count(a) < 2) {
		err_set("unknown compression of the kernel payload (gzip, bzip2, xz, lzma, lz4 "
			"and zstd are read; first bytes %02x %02x %02x %02x)",
			len > 0 ? ((const unsigned char *)data)[0] : 0,
			len > 1 ? ((const unsigned char *)data)[1] : 0,
			len > 2 ? ((const unsigned char *)data)[2] : 0,
			len > 3 ? ((const unsigned char *)data)[3] : 0);
		goto out;
	}
	snprintf(ki->compression, sizeof(ki->compression), "%s", archive_filter_name(a, 0));
	snprintf(what, sizeof(what), "%s kernel payload", ki->compression);
	ret = read_entry(a, out, outlen, what, err, errlen);
out:
	archive_read_free(a);
	return ret;
}

/* ---- bzImage ------------------------------------------------------------ */

/* The bzImage's payload, decompressed and checked to be an ELF vmlinux. */
static int bzimage_payload(const unsigned char *d, size_t len, struct kimage *ki,
			   unsigned char **vmlinux, size_t *vmlinux_len, char *err, size_t errlen)
{
	unsigned setup_sects, version, ver_ptr;
	size_t pm_start, off, plen;

	if (len < BOOT_HEADER_END) {
		err_set("truncated bzImage: %zu bytes, less than its setup header", len);
		return -1;
	}
	version = le16(d + BOOT_VERSION);
	if (le16(d + BOOT_FLAG) != 0xaa55 || version < 0x208) {
		err_set("not a bzImage this can read (boot protocol %u.%02u; 2.08 or later is "
			"needed for the payload's place)", version >> 8, version & 0xff);
		return -1;
	}
	setup_sects = d[BOOT_SETUP_SECTS] ? d[BOOT_SETUP_SECTS] : 4;
	pm_start = (size_t)(setup_sects + 1) * 512;
	off = pm_start + le32(d + BOOT_PAYLOAD_OFF);
	plen = le32(d + BOOT_PAYLOAD_LEN);
	if (off > len || plen > len - off || plen < 4) {
		err_set("truncated bzImage: the payload ends at byte %zu, the file has %zu",
			off + plen, len);
		return -1;
	}
	ver_ptr = le16(d + BOOT_KERNEL_VER);
	if (ver_ptr && ver_ptr + 0x200 < pm_start && pm_start <= len)
		copy_release(ki->release, sizeof(ki->release), (const char *)d + ver_ptr + 0x200,
			     pm_start - (ver_ptr + 0x200));
	/*
	 * The kernel's build appends the uncompressed size, 4 bytes, to every
	 * payload (scripts/Makefile.lib, size_append) but gzip's, whose trailer
	 * ends with it anyway: a decompressor must not see them as data.
	 */
	if (!(d[off] == 0x1f && d[off + 1] == 0x8b))
		plen -= 4;
	if (decompress(d + off, plen, vmlinux, vmlinux_len, ki, err, errlen))
		return -1;
	if (*vmlinux_len < 4 || memcmp(*vmlinux, ELFMAG, SELFMAG)) {
		err_set("the decompressed %s payload is not an ELF vmlinux", ki->compression);
		free(*vmlinux);
		return -1;
	}
	return 0;
}

static int parse_bzimage(const unsigned char *d, size_t len, struct kimage *ki, char *err,
			 size_t errlen)
{
	unsigned char *vmlinux;
	size_t vmlinux_len;
	int ret;

	if (bzimage_payload(d, len, ki, &vmlinux, &vmlinux_len, err, errlen))
		return -1;
	ret = parse_elf(vmlinux, vmlinux_len, ki, err, errlen);
	free(vmlinux);
	return ret;
}

/* ---- arm64 Image --------------------------------------------------------- */

static bool is_arm64_image(const unsigned char *d, size_t len)
{
	return len >= ARM64_HEADER_END && !memcmp(d + ARM64_MAGIC_OFF, "ARM\x64", 4);
}

/*
 * The kernel's BTF inside a raw arm64 Image: the blob whose header says
 * version 1 and 24 header bytes, and whose sections end inside the file,
 * that libbpf accepts.  The largest such wins: the kernel's own BTF is
 * megabytes, and nothing else in the image that happens to start with the
 * same eight bytes could parse as more.  A blob that parses is skipped
 * whole, and at most ARM64_BTF_TRIES candidates are parsed: a file made of
 * such headers costs a bounded number of parses, not one per byte.
 */
#define ARM64_BTF_TRIES 16

static int parse_arm64_image(const unsigned char *d, size_t len, struct kimage *ki, char *err,
			     size_t errlen)
{
	static const unsigned char magic[] = { 0x9f, 0xeb, 0x01, 0x00, BTF_HEADER_LEN, 0, 0, 0 };
	const unsigned char *p = d, *end = d + len;
	size_t best = 0;
	int tries = 0;

	banner_release(d, len, ki->release, sizeof(ki->release));
	while (tries < ARM64_BTF_TRIES && (p = memmem(p, end - p, magic, sizeof(magic)))) {
		size_t avail = end - p, tend, send, size;
		struct btf *btf;

		if (avail < BTF_HEADER_LEN)
			break;
		tend = (uint64_t)le32(p + 8) + le32(p + 12);  /* type_off + type_len */
		send = (uint64_t)le32(p + 16) + le32(p + 20); /* str_off + str_len */
		size = BTF_HEADER_LEN + (tend > send ? tend : send);
		if (size <= best || size > avail) {
			p++;
			continue;
		}
		tries++;
		btf = btf__new(p, size);
		if (!btf) {
			p++;
			continue;
		}
		btf__free(ki->btf);
		ki->btf = btf;
		best = size;
		p += size;
	}
	if (!ki->btf) {
		err_set("an arm64 Image without BTF (a kernel built without CONFIG_DEBUG_INFO_BTF)");
		return -1;
	}
	return 0;
}

/*
 * A compressed arm64 Image (Image.gz and the like, as some distributions
 * install it): decompressed, then read as one.
 */
static int parse_compressed_arm64(const unsigned char *d, size_t len, struct kimage *ki,
				  char *err, size_t errlen)
{
	unsigned char *image;
	size_t image_len;
	int ret;

	if (decompress(d, len, &image, &image_len, ki, err, errlen))
		return -1;
	if (!is_arm64_image(image, image_len)) {
		err_set("the decompressed %s file is no arm64 Image", ki->compression);
		free(image);
		return -1;
	}
	ret = parse_arm64_image(image, image_len, ki, err, errlen);
	free(image);
	return ret;
}

/* ---- Debian package ----------------------------------------------------- */

/* The outer archive (ar) read as the inner one's (data.tar.*) input. */
struct nested {
	struct archive *outer;
	unsigned char buf[64 << 10];
};

static la_ssize_t nested_read(struct archive *a, void *data, const void **buf)
{
	struct nested *n = data;

	(void)a;
	*buf = n->buf;
	return archive_read_data(n->outer, n->buf, sizeof(n->buf));
}

/*
 * Where Debian's packages put the kernel image: boot/vmlinuz-RELEASE, and
 * since the linux-binary-* packages usr/lib/modules/RELEASE/vmlinuz.
 */
static bool is_kernel_image(const char *name)
{
	const char *slash;

	if (!strncmp(name, "boot/vmlinuz-", 13))
		return true;
	if (strncmp(name, "usr/lib/modules/", 16))
		return false;
	slash = strchr(name + 16, '/');
	return slash && slash > name + 16 && !strcmp(slash, "/vmlinuz");
}

/* The kernel image in the package's data.tar.*, which the outer archive is at. */
static int deb_data_tar(struct nested *n, struct kimage *ki, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	unsigned char *img = NULL;
	size_t img_len = 0;
	int r, ret = -1;

	if (!a) {
		err_set("out of memory");
		return -1;
	}
	support_kernel_filters(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, n, NULL, nested_read, NULL) != ARCHIVE_OK) {
		err_set("unreadable data.tar in the package: %s", archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		if (name && !strncmp(name, "./", 2))
			name += 2;
		if (!name || !is_kernel_image(name) ||
		    archive_entry_filetype(e) != AE_IFREG)
			continue;
		snprintf(ki->member, sizeof(ki->member), "%s", name);
		if (read_entry(a, &img, &img_len, ki->member, err, errlen) == 0)
			ret = is_arm64_image(img, img_len)
				      ? parse_arm64_image(img, img_len, ki, err, errlen)
				      : parse_bzimage(img, img_len, ki, err, errlen);
		free(img);
		goto out;
	}
	if (r != ARCHIVE_EOF)
		err_set("truncated or corrupt data.tar in the package: %s", archive_error_string(a));
	else
		err_set("Debian package without a kernel image (no boot/vmlinuz-* or "
			"usr/lib/modules/*/vmlinuz in its data.tar)");
out:
	archive_read_free(a);
	return ret;
}

static int parse_deb(const void *data, size_t len, struct kimage *ki, char *err, size_t errlen)
{
	struct nested *n = malloc(sizeof(*n));
	struct archive_entry *e;
	int r, ret = -1;

	if (!n || !(n->outer = archive_read_new())) {
		free(n);
		err_set("out of memory");
		return -1;
	}
	archive_read_support_format_ar(n->outer);
	if (archive_read_open_memory(n->outer, data, len) != ARCHIVE_OK) {
		err_set("unreadable ar archive: %s", archive_error_string(n->outer));
		goto out;
	}
	while ((r = archive_read_next_header(n->outer, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		if (name && !strncmp(name, "data.tar", 8)) {
			ret = deb_data_tar(n, ki, err, errlen);
			goto out;
		}
	}
	if (r != ARCHIVE_EOF)
		err_set("truncated or corrupt ar archive: %s", archive_error_string(n->outer));
	else
		err_set("ar archive without a data.tar member: not a Debian package");
out:
	archive_read_free(n->outer);
	free(n);
	return ret;
}

/* ---- entry points ------------------------------------------------------- */

int kimage_read_mem(const void *data, size_t len, struct kimage *ki, char *err, size_t errlen)
{
	const unsigned char *d = data;

	memset(ki, 0, sizeof(*ki));
	if (len >= SELFMAG && !memcmp(d, ELFMAG, SELFMAG)) {
		ki->kind = KIMAGE_ELF;
		return parse_elf(d, len, ki, err, errlen);
	}
	if (len >= 2 && ((d[0] == 0x9f && d[1] == 0xeb) || (d[0] == 0xeb && d[1] == 0x9f))) {
		ki->kind = KIMAGE_BTF;
		return parse_btf(d, len, ki, err, errlen);
	}
	if (len >= 8 && !memcmp(d, "!<arch>\n", 8)) {
		ki->kind = KIMAGE_DEB;
		return parse_deb(d, len, ki, err, errlen);
	}
	if (len >= BOOT_HEADER + 4 && !memcmp(d + BOOT_HEADER, "HdrS", 4)) {
		ki->kind = KIMAGE_BZIMAGE;
		return parse_bzimage(d, len, ki, err, errlen);
	}
	if (is_arm64_image(d, len)) {
		ki->kind = KIMAGE_ARM64;
		return parse_arm64_image(d, len, ki, err, errlen);
	}
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		ki->kind = KIMAGE_ARM64;
		return parse_compressed_arm64(d, len, ki, err, errlen);
	}
	err_set("not a bzImage/vmlinuz, arm64 Image, vmlinux ELF, raw BTF file or Debian package");
	return -1;
}

int kimage_read(const char *path, struct kimage *ki, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	memset(ki, 0, sizeof(*ki));
	if (read_input_file(path, KIMAGE_MAX_BYTES, &buf, &len, err, errlen))
		return -1;
	ret = kimage_read_mem((unsigned char *)buf, len, ki, err, errlen);
	free(buf);
	return ret;
}

int kimage_vmlinux(const char *path, unsigned char **elf, size_t *elflen, char *err,
		   size_t errlen)
{
	struct kimage ki = { .kind = KIMAGE_BZIMAGE };
	char *buf;
	size_t len;
	int ret;

	if (read_input_file(path, KIMAGE_MAX_BYTES, &buf, &len, err, errlen))
		return -1;
	if (len < BOOT_HEADER + 4 || memcmp(buf + BOOT_HEADER, "HdrS", 4)) {
		err_set("not a bzImage/vmlinuz (no HdrS setup header)");
		free(buf);
		return -1;
	}
	ret = bzimage_payload((unsigned char *)buf, len, &ki, elf, elflen, err, errlen);
	free(buf);
	return ret;
}
