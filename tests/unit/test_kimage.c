// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a kernel's BTF from a file (src/kernel/kimage.c, `permscope check --btf`):
 * raw BTF, a vmlinux ELF, a bzImage in every compression and a Debian
 * package, all made here at test time around a struct cred in BTF; the bad
 * files each give their error; and the pinned kernels of the VM cache give
 * the layout `bpftool btf dump` gives, without booting.
 */
#include <archive.h>
#include <archive_entry.h>
#include <elf.h>
#include <jansson.h>
#include <libgen.h>
#include <sys/stat.h>

#include "testutil.h"
#include "kernel/credlayout.h"
#include "kernel/kimage.h"
#include "credbtf.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- making kernels ------------------------------------------------------ */

/* The raw BTF of a struct cred laid out as Debian's 7.2 cloud kernel's, malloc'ed. */
static void *cred_btf(size_t *len)
{
	struct btf *btf = fake_cred_btf(credbtf_sid, N(credbtf_sid), 184);
	unsigned int size;
	const void *raw = btf__raw_data(btf, &size);
	void *copy = malloc(size);

	assert_non_null(raw);
	assert_non_null(copy);
	memcpy(copy, raw, size);
	btf__free(btf);
	*len = size;
	return copy;
}

/* The banner a kernel's .rodata holds, after the format string that looks like it. */
static const char rodata[] = "Linux version %s\0Linux version 9.8.7-test (builder@example) #1 SMP";

/*
 * A vmlinux in miniature: an x86-64 ELF with .rodata (the banner), .BTF
 * (unless btf is NULL) and .shstrtab, section headers last.
 */
static unsigned char *fake_vmlinux(const void *btf, size_t btf_len, size_t *len)
{
	static const char names[] = "\0.rodata\0.BTF\0.shstrtab";
	size_t ro = sizeof(Elf64_Ehdr), bt = ro + sizeof(rodata), st = bt + btf_len;
	size_t sh = (st + sizeof(names) + 7) & ~(size_t)7;
	unsigned char *d = calloc(1, sh + 4 * sizeof(Elf64_Shdr));
	Elf64_Ehdr *eh = (Elf64_Ehdr *)d;
	Elf64_Shdr *s = (Elf64_Shdr *)(d + sh);

	assert_non_null(d);
	fake_elf64_header(eh, sh, 4);
	eh->e_shstrndx = 3;
	memcpy(d + ro, rodata, sizeof(rodata));
	if (btf)
		memcpy(d + bt, btf, btf_len);
	memcpy(d + st, names, sizeof(names));
	s[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = ro,
			     .sh_size = sizeof(rodata), .sh_addralign = 1 };
	s[2] = (Elf64_Shdr){ .sh_name = btf ? 9 : 1, .sh_type = SHT_PROGBITS, .sh_offset = bt,
			     .sh_size = btf_len, .sh_addralign = 1 };
	s[3] = (Elf64_Shdr){ .sh_name = 14, .sh_type = SHT_STRTAB, .sh_offset = st,
			     .sh_size = sizeof(names), .sh_addralign = 1 };
	*len = sh + 4 * sizeof(Elf64_Shdr);
	return d;
}

struct member {
	const char *name;
	const void *data;
	size_t len;
};

/* The N members M as an archive of FORMAT through FILTER, malloc'ed, unpadded. */
static unsigned char *pack(int (*format)(struct archive *), int filter, const struct member *m,
			   int n, size_t *len)
{
	struct archive *a = archive_write_new();
	size_t cap = 1 << 16, used = 0;
	unsigned char *buf;

	for (int i = 0; i < n; i++)
		cap += m[i].len * 2;
	buf = malloc(cap);
	assert_non_null(buf);
	assert_int_equal(archive_write_add_filter(a, filter), ARCHIVE_OK);
	assert_int_equal(format(a), ARCHIVE_OK);
	archive_write_set_bytes_in_last_block(a, 1);
	assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
	for (int i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, m[i].len);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		assert_int_equal(archive_write_data(a, m[i].data, m[i].len), (la_ssize_t)m[i].len);
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	*len = used;
	return buf;
}

/*
 * DATA compressed with FILTER as the kernel's build does it: the
 * uncompressed size appended, 4 bytes, but to gzip (scripts/Makefile.lib).
 */
static unsigned char *compress(const void *data, size_t len, int filter, size_t *out_len)
{
	struct member m = { "vmlinux.bin", data, len };
	unsigned char *z = pack(archive_write_set_format_raw, filter, &m, 1, out_len);

	if (filter != ARCHIVE_FILTER_GZIP && filter != ARCHIVE_FILTER_NONE) {
		uint32_t size = len; /* little-endian host */

		z = realloc(z, *out_len + 4);
		assert_non_null(z);
		memcpy(z + *out_len, &size, 4);
		*out_len += 4;
	}
	return z;
}

/* A bzImage (boot protocol 2.15, one setup sector) around PAYLOAD, release "9.8.7-setup". */
static unsigned char *fake_bzimage(const void *payload, size_t plen, size_t *len)
{
	static const char version[] = "9.8.7-setup (builder@example) #1 SMP";
	unsigned char *d = calloc(1, 1024 + 16 + plen);
	uint32_t off = 16, l = plen;

	assert_non_null(d);
	d[0x1f1] = 1;                                  /* setup_sects */
	d[0x1fe] = 0x55, d[0x1ff] = 0xaa;             /* boot_flag */
	memcpy(d + 0x202, "HdrS", 4);
	d[0x206] = 0x0f, d[0x207] = 0x02;             /* version 2.15 */
	d[0x20e] = 0x00, d[0x20f] = 0x01;             /* kernel_version: 0x100 + 0x200 */
	memcpy(d + 0x300, version, sizeof(version));
	memcpy(d + 0x248, &off, 4);
	memcpy(d + 0x24c, &l, 4);
	memcpy(d + 1024 + 16, payload, plen);
	*len = 1024 + 16 + plen;
	return d;
}

/* The whole fake kernel: a vmlinux with the cred BTF, compressed with FILTER, as a bzImage. */
static unsigned char *fake_kernel(int filter, size_t *len)
{
	size_t btf_len, elf_len, z_len;
	void *btf = cred_btf(&btf_len);
	unsigned char *elf = fake_vmlinux(btf, btf_len, &elf_len);
	unsigned char *z = compress(elf, elf_len, filter, &z_len);
	unsigned char *bz = fake_bzimage(z, z_len, len);

	free(btf);
	free(elf);
	free(z);
	return bz;
}

/*
 * An arm64 Image in miniature: the 64-byte boot header ("ARM\x64" at
 * 0x38), the banner, a decoy that starts as BTF does but whose sections
 * end past the file (unless the BTF is NULL, then nothing else), then the
 * BTF itself, as the Image holds the kernel's read-only data.
 */
static unsigned char *fake_arm64_image(const void *btf, size_t btf_len, size_t *len)
{
	static const unsigned char decoy[24] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0,
						 0xff, 0xff, 0xff, 0x7f };
	size_t at = 0x40 + sizeof(rodata) + sizeof(decoy);
	unsigned char *d = calloc(1, at + btf_len);

	assert_non_null(d);
	memcpy(d + 0x38, "ARM\x64", 4);
	memcpy(d + 0x40, rodata, sizeof(rodata));
	if (btf) {
		memcpy(d + 0x40 + sizeof(rodata), decoy, sizeof(decoy));
		memcpy(d + at, btf, btf_len);
	}
	*len = at + btf_len;
	return d;
}

/* A Debian package with the kernel image (or anything) at PATH in data.tar.xz. */
static unsigned char *fake_deb(const char *path, const void *img, size_t img_len, size_t *len)
{
	struct member data = { path, img, img_len }, deb[3] = {
		{ "debian-binary", "2.0\n", 4 }, { "control.tar.xz", NULL, 0 },
		{ "data.tar.xz", NULL, 0 },
	};
	unsigned char *control = pack(archive_write_set_format_pax_restricted, ARCHIVE_FILTER_XZ,
				      &(struct member){ "./control", "Package: x\n", 11 }, 1,
				      &deb[1].len);
	unsigned char *tar = pack(archive_write_set_format_pax_restricted, ARCHIVE_FILTER_XZ,
				  &data, 1, &deb[2].len);
	unsigned char *out;

	deb[1].data = control;
	deb[2].data = tar;
	out = pack(archive_write_set_format_ar_svr4, ARCHIVE_FILTER_NONE, deb, 3, len);
	free(control);
	free(tar);
	return out;
}

/* ---- reading them --------------------------------------------------------- */

static char err[512];

/* DATA read as a kernel: it must work, be KIND of RELEASE, and give Debian 7.2's cred. */
static void assert_reads(const void *data, size_t len, enum kimage_kind kind, const char *release,
			 struct kimage *ki)
{
	struct cred_layout l;

	if (kimage_read_mem(data, len, ki, err, sizeof(err)))
		fail_msg("kimage_read_mem: %s", err);
	assert_int_equal(ki->kind, kind);
	assert_string_equal(ki->release, release);
	assert_int_equal(cred_layout_from_btf(ki->btf, &l, err, sizeof(err)), 0);
	btf__free(ki->btf);
	ki->btf = NULL;
	assert_int_equal(l.size, 184);
	assert_int_equal(l.offset[CRED_UID], 8);
	assert_true(l.usage_shares_checked);
}

/* DATA is refused with an error that holds WHY. */
static void assert_refused(const void *data, size_t len, const char *why)
{
	struct kimage ki;

	assert_int_equal(kimage_read_mem(data, len, &ki, err, sizeof(err)), -1);
	assert_null(ki.btf);
	assert_contains(err, why);
}

static void raw_btf_is_read_as_is_and_has_no_release(void **state)
{
	size_t len;
	void *btf = cred_btf(&len);
	struct kimage ki;

	(void)state;
	assert_reads(btf, len, KIMAGE_BTF, "", &ki);
	free(btf);
}

static void vmlinux_elf_gives_its_btf_section_and_the_banners_release(void **state)
{
	size_t btf_len, len;
	void *btf = cred_btf(&btf_len);
	unsigned char *elf = fake_vmlinux(btf, btf_len, &len);
	struct kimage ki;

	(void)state;
	assert_reads(elf, len, KIMAGE_ELF, "9.8.7-test", &ki);
	free(btf);
	free(elf);
}

static void bzimage_in_each_compression_the_kernel_uses(void **state)
{
	static const struct { int filter; const char *name; } z[] = {
		{ ARCHIVE_FILTER_GZIP, "gzip" }, { ARCHIVE_FILTER_BZIP2, "bzip2" },
		{ ARCHIVE_FILTER_XZ, "xz" }, { ARCHIVE_FILTER_LZMA, "lzma" },
		{ ARCHIVE_FILTER_LZ4, "lz4" }, { ARCHIVE_FILTER_ZSTD, "zstd" },
	};

	(void)state;
	for (int i = 0; i < N(z); i++) {
		size_t len;
		unsigned char *bz = fake_kernel(z[i].filter, &len);
		struct kimage ki;

		print_message("%s\n", z[i].name);
		/* the setup header's version string wins over the banner */
		assert_reads(bz, len, KIMAGE_BZIMAGE, "9.8.7-setup", &ki);
		assert_string_equal(ki.compression, z[i].name);
		free(bz);
	}
}

/*
 * The same with payloads compressed the way the kernel's build compresses
 * them (scripts/Makefile.lib: `lz4 -l` is the legacy lz4 format, not
 * libarchive's frames; `xz --check=crc32`, as the kernel's xz decoder
 * wants), by the command-line tools, run without a shell; a tool that is
 * not installed is said and passed over.
 */
static void bzimage_compressed_by_the_kernels_own_tools(void **state)
{
	static const struct { const char *tool, *opt, *name; } z[] = {
		{ "/usr/bin/gzip", "-9", "gzip" }, { "/usr/bin/bzip2", "-9", "bzip2" },
		{ "/usr/bin/xz", "--check=crc32", "xz" }, { "/usr/bin/lzma", "-9", "lzma" },
		{ "/usr/bin/lz4", "-l", "lz4" }, { "/usr/bin/zstd", "-19", "zstd" },
	};
	size_t btf_len, elf_len;
	void *btf = cred_btf(&btf_len);
	unsigned char *elf = fake_vmlinux(btf, btf_len, &elf_len);
	const char *in = tmp_path("vmlinux"), *out = tmp_path("vmlinux.z");
	int tried = 0;

	(void)state;
	write_file(in, elf, elf_len);
	for (int i = 0; i < N(z); i++) {
		char *argv[] = { (char *)z[i].tool, (char *)z[i].opt, "-c", (char *)in, NULL };
		size_t len, bz_len;
		unsigned char *payload, *bz;
		uint32_t size = elf_len;
		struct kimage ki;

		if (access(z[i].tool, X_OK)) {
			print_message("%s not installed: %s not tried\n", z[i].tool, z[i].name);
			continue;
		}
		assert_int_equal(run_to(argv, out, NULL), 0);
		payload = (unsigned char *)slurp(out, &len);
		assert_non_null(payload);
		if (strcmp(z[i].name, "gzip")) { /* size_append */
			payload = realloc(payload, len + 4);
			memcpy(payload + len, &size, 4);
			len += 4;
		}
		bz = fake_bzimage(payload, len, &bz_len);
		print_message("%s\n", z[i].name);
		assert_reads(bz, bz_len, KIMAGE_BZIMAGE, "9.8.7-setup", &ki);
		assert_string_equal(ki.compression, z[i].name);
		free(payload);
		free(bz);
		tried++;
	}
	free(btf);
	free(elf);
	if (!tried) {
		print_message("skipped: none of the compressors is installed\n");
		skip();
	}
}

static void arm64_image_plain_gzipped_and_packaged_gives_its_btf(void **state)
{
	size_t btf_len, len, z_len, deb_len, bare_len;
	void *btf = cred_btf(&btf_len);
	unsigned char *img = fake_arm64_image(btf, btf_len, &len);
	unsigned char *z = compress(img, len, ARCHIVE_FILTER_GZIP, &z_len);
	unsigned char *deb = fake_deb("./boot/vmlinuz-9.8.7-test", img, len, &deb_len);
	unsigned char *bare = fake_arm64_image(NULL, 0, &bare_len);
	struct kimage ki;

	(void)state;
	/* the banner's release; the decoy's sections end past the file: passed over */
	assert_reads(img, len, KIMAGE_ARM64, "9.8.7-test", &ki);
	assert_reads(z, z_len, KIMAGE_ARM64, "9.8.7-test", &ki);
	assert_string_equal(ki.compression, "gzip");
	assert_reads(deb, deb_len, KIMAGE_DEB, "9.8.7-test", &ki);
	assert_string_equal(ki.member, "boot/vmlinuz-9.8.7-test");
	assert_refused(bare, bare_len, "an arm64 Image without BTF");
	/* a gzip'ed file that is no arm64 Image (a bzImage's ELF payload, say) */
	free(z);
	z = compress(rodata, sizeof(rodata), ARCHIVE_FILTER_GZIP, &z_len);
	assert_refused(z, z_len, "the decompressed gzip file is no arm64 Image");
	free(btf);
	free(img);
	free(z);
	free(deb);
	free(bare);
}

static void debian_package_kernel_in_boot_or_in_usr_lib_modules(void **state)
{
	static const char *const paths[] = { "./boot/vmlinuz-9.8.7-setup",
					     "./usr/lib/modules/9.8.7-setup/vmlinuz" };
	size_t bz_len, len;
	unsigned char *bz = fake_kernel(ARCHIVE_FILTER_XZ, &bz_len);

	(void)state;
	for (int i = 0; i < N(paths); i++) {
		unsigned char *deb = fake_deb(paths[i], bz, bz_len, &len);
		struct kimage ki;

		assert_reads(deb, len, KIMAGE_DEB, "9.8.7-setup", &ki);
		assert_string_equal(ki.member, paths[i] + 2);
		free(deb);
	}
	free(bz);
}

static void debian_package_without_a_kernel_is_refused(void **state)
{
	size_t len;
	unsigned char *deb = fake_deb("./usr/lib/modules/9.8.7/kernel/fs/ext4.ko", "x", 1, &len);

	(void)state;
	assert_refused(deb, len, "Debian package without a kernel image");
	free(deb);
}

static void truncated_bzimage_and_cut_payload_are_refused(void **state)
{
	size_t len;
	unsigned char *bz = fake_kernel(ARCHIVE_FILTER_GZIP, &len);
	uint32_t plen;

	(void)state;
	assert_refused(bz, len / 2, "truncated bzImage: the payload ends at byte");
	assert_refused(bz, 0x220, "truncated bzImage: 544 bytes, less than its setup header");
	/* the header agrees with the file, the gzip stream stops half-way */
	memcpy(&plen, bz + 0x24c, 4);
	plen /= 2;
	memcpy(bz + 0x24c, &plen, 4);
	assert_refused(bz, 1024 + 16 + plen, "truncated or corrupt kernel payload: ");
	assert_contains(err, "gzip"); /* libarchive's words: which stream, what it missed */
	free(bz);
}

static void uncompressed_or_unknown_payload_is_refused(void **state)
{
	size_t btf_len, elf_len, len;
	void *btf = cred_btf(&btf_len);
	unsigned char *elf = fake_vmlinux(btf, btf_len, &elf_len);
	unsigned char *bz = fake_bzimage(elf, elf_len, &len);

	(void)state;
	assert_refused(bz, len, "unknown compression of the kernel payload");
	assert_refused(bz, len, "first bytes 7f 45 4c 46");
	free(btf);
	free(elf);
	free(bz);
}

static void garbage_and_elf_without_btf_are_refused(void **state)
{
	size_t len;
	unsigned char *elf = fake_vmlinux(NULL, 0, &len);

	(void)state;
	assert_refused("#!/bin/sh\necho hello\n", 21,
		       "not a bzImage/vmlinuz, arm64 Image, vmlinux ELF, raw BTF file or Debian package");
	assert_refused("", 0, "not a bzImage/vmlinuz");
	assert_refused(elf, len, "ELF file without a .BTF section");
	assert_refused("\x9f\xeb\x01\x00garbage", 11, "not valid BTF");
	free(elf);
}

/* A cut or corrupt ELF header says what is wrong, where libelf said "no error". */
static void truncated_and_corrupt_elf_headers_are_named(void **state)
{
	size_t len, cut;
	unsigned char *elf = fake_vmlinux(NULL, 0, &len), *bad;
	Elf64_Ehdr eh;
	char want[160];

	(void)state;
	memcpy(&eh, elf, sizeof(eh));
	assert_refused(elf, 8, "truncated ELF: 8 bytes, less than the 16 of its identification");
	assert_refused(elf, 40, "truncated ELF: 40 bytes, less than its 64-byte header");
	/* the section header table cut: the file ends inside it */
	cut = eh.e_shoff + eh.e_shentsize;
	assert_true(cut < len);
	snprintf(want, sizeof(want), "truncated ELF: section headers end at byte %llu, past the "
		 "file's %zu bytes", (unsigned long long)(eh.e_shoff + eh.e_shnum * eh.e_shentsize),
		 cut);
	assert_refused(elf, cut, want);
	bad = malloc(len);
	assert_non_null(bad);
	memcpy(bad, elf, len);
	bad[EI_CLASS] = 7;
	assert_refused(bad, len, "corrupt ELF: class 7, neither 32- nor 64-bit");
	memcpy(bad, elf, len);
	((Elf64_Ehdr *)bad)->e_shoff = (Elf64_Off)-8;
	assert_refused(bad, len, "truncated ELF: section headers end at byte");
	memcpy(bad, elf, len);
	((Elf64_Ehdr *)bad)->e_shoff = 0;
	assert_refused(bad, len, "ELF file without section headers");
	free(bad);
	free(elf);
}

static void fifo_and_directory_are_refused_without_reading(void **state)
{
	struct kimage ki;

	(void)state;
	assert_int_equal(mkfifo(tmp_path("fifo"), 0600), 0);
	/* no writer: a blocking open would wait here for ever */
	assert_int_equal(kimage_read(tmp_path("fifo"), &ki, err, sizeof(err)), -1);
	assert_string_equal(err, "a FIFO, not a regular file");
	assert_int_equal(kimage_read(tmpdir, &ki, err, sizeof(err)), -1);
	assert_string_equal(err, "a directory, not a regular file");
	assert_int_equal(kimage_read(tmp_path("missing"), &ki, err, sizeof(err)), -1);
	assert_string_equal(err, "cannot open: No such file or directory");
}

/* ---- permscope check --btf ------------------------------------------------ */

static void check_btf_prints_the_release_and_the_table_and_exits_0(void **state)
{
	size_t len;
	unsigned char *bz = fake_kernel(ARCHIVE_FILTER_ZSTD, &len);
	const char *path = tmp_path("vmlinuz-9.8.7-setup");
	json_t *j, *fields;

	(void)state;
	write_file(path, bz, len);
	free(bz);
	assert_int_equal(permscope("check", "--btf", path, NULL), 0);
	assert_contains(out_text, "permscope check: kernel 9.8.7-setup; attach tries skipped");
	assert_contains(out_text, "/vmlinuz-9.8.7-setup: bzImage, zstd\n");
	assert_contains(out_text, "  securebits               40     4     0  yes\n");
	assert_contains(out_text, "  cap_permitted            56     8     0  no\n");
	assert_contains(out_text, "verdict: shares (refcount shares a cacheline with read-mostly "
			"fields)\n");
	assert_string_equal(err_text, "");

	assert_int_equal(permscope("check", "--btf", path, "--json", NULL), 0);
	j = json_loads(out_text, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "format")), "permscope-check/3");
	assert_string_equal(json_string_value(json_object_get(j, "kernel")), "9.8.7-setup");
	assert_true(json_is_null(json_object_get(j, "families")));
	fields = json_object_get(json_object_get(j, "cred_layout"), "usage_line_fields");
	assert_int_equal(json_array_size(fields), 12);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fields, 11), "name")),
			    "cap_permitted");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "cred_layout"),
							      "verdict")), "shares");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "cred_layout"),
							      "verdict_text")),
			    "refcount shares a cacheline with read-mostly fields");
	json_decref(j);
}

static void check_btf_on_a_bad_file_is_one_error_line_and_exit_2(void **state)
{
	const char *path = write_tmp_file("notes.txt", "not a kernel\n");
	char want[PATH_MAX + 128];

	(void)state;
	assert_int_equal(permscope("check", "--btf", path, NULL), 2);
	snprintf(want, sizeof(want), "Error: %s: not a bzImage/vmlinuz, arm64 Image, vmlinux ELF, raw BTF file "
		 "or Debian package\n", path);
	assert_string_equal(err_text, want);
	assert_string_equal(out_text, "");
	assert_int_equal(permscope("check", "--btf", tmpdir, NULL), 2);
	assert_contains(err_text, "a directory, not a regular file");
	assert_int_equal(permscope("check", "--btf", path, "--mode", "kprobe", NULL), 2);
	assert_contains(err_text, "--families and --mode do not go with it");
}

/* ---- the pinned kernels, not booted ----------------------------------------- */

/*
 * The VM cache (tests/vm/vmtest fills it): $PERMSCOPE_VM_CACHE, else the
 * parent of tests/run-all's $PERMSCOPE_VM_RESULTS (build/vm/run), else build/vm.
 */
static const char *vm_cache(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("PERMSCOPE_VM_CACHE"), *res = getenv("PERMSCOPE_VM_RESULTS");

	if (env && *env)
		return env;
	if (res && *res) {
		snprintf(dir, sizeof(dir), "%s", res);
		return dirname(dir);
	}
	return "build/vm";
}

/*
 * struct cred's size and named top-level members as `bpftool btf dump file
 * BTF format raw` gives them: "'uid' type_id=263 bits_offset=64" lines.
 */
static int bpftool_cred(const char *btf, char names[][48], int *offsets, int most, int *size)
{
	char *argv[] = { "/usr/sbin/bpftool", "btf", "dump", "file", (char *)btf, "format", "raw",
			 NULL };
	const char *env = getenv("BPFTOOL");
	char *p;
	int n = 0;

	if (env && *env == '/')
		argv[0] = (char *)env;
	if (access(argv[0], X_OK))
		return -1;
	assert_int_equal(run_capture(argv), 0);
	p = strstr(out_text, "] STRUCT 'cred' size=");
	assert_non_null(p);
	*size = atoi(p + strlen("] STRUCT 'cred' size="));
	p = strchr(p, '\n');
	while (p && p[1] == '\t' && n < most) {
		unsigned long bits;

		if (sscanf(p + 2, "'%47[^']' type_id=%*d bits_offset=%lu", names[n], &bits) == 2 &&
		    strcmp(names[n], "(anon)"))
			offsets[n++] = bits / 8;
		p = strchr(p + 1, '\n');
	}
	return n;
}

/* `permscope check --btf FILE --json` against bpftool's reading of the same BTF. */
static void check_pinned(const char *file, const char *release)
{
	char names[64][48], btf_path[PATH_MAX];
	int offsets[64], n, size;
	struct kimage ki;
	const void *raw;
	unsigned int raw_len;
	json_t *j, *layout, *fields, *f;
	size_t i;

	print_message("%s\n", file);
	assert_int_equal(permscope("check", "--btf", file, "--json", NULL), 0);
	j = json_loads(out_text, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "kernel")), release);
	layout = json_object_get(j, "cred_layout");
	/* all three stock kernels: usage at 0, uid..securebits behind it */
	assert_string_equal(json_string_value(json_object_get(layout, "verdict")), "shares");

	/* the reference: bpftool on the .BTF this image holds */
	if (kimage_read(file, &ki, err, sizeof(err)))
		fail_msg("%s: %s", file, err);
	raw = btf__raw_data(ki.btf, &raw_len);
	snprintf(btf_path, sizeof(btf_path), "%s", tmp_path("pinned.btf"));
	write_file(btf_path, raw, raw_len);
	btf__free(ki.btf);
	n = bpftool_cred(btf_path, names, offsets, 64, &size);
	if (n < 0) {
		print_message("bpftool not installed: layout not compared\n");
		json_decref(j);
		return;
	}
	assert_int_equal(json_integer_value(json_object_get(layout, "size")), size);
	fields = json_object_get(layout, "usage_line_fields");
	/* every named member bpftool puts in usage's line (line 0 here) is in the table... */
	for (int k = 0; k < n; k++) {
		bool found = false;

		if (offsets[k] >= CACHELINE)
			continue;
		json_array_foreach(fields, i, f)
			if (!strcmp(json_string_value(json_object_get(f, "name")), names[k])) {
				assert_int_equal(json_integer_value(json_object_get(f, "offset")),
						 offsets[k]);
				found = true;
			}
		if (!found)
			fail_msg("%s: bpftool's %s at %d is not in the table", file, names[k],
				 offsets[k]);
	}
	/* ...and the table holds nothing bpftool places elsewhere */
	json_array_foreach(fields, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		int k;

		for (k = 0; k < n && strcmp(names[k], name); k++)
			;
		if (k < n)
			assert_int_equal(json_integer_value(json_object_get(f, "offset")), offsets[k]);
	}
	json_decref(j);
}

static void pinned_kernels_give_bpftools_layout_without_booting(void **state)
{
	static const char *const kernels[] = { "bookworm", "trixie", "sid", "bookworm-arm64",
					       "trixie-arm64", "sid-arm64" };
	static const struct { const char *deb, *release; } debs[] = {
		{ "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb", "6.1.0-57-amd64" },
		{ "linux-image-6.12.117+deb13-cloud-amd64_6.12.117-1_amd64.deb",
		  "6.12.117+deb13-cloud-amd64" },
		{ "linux-binary-7.2.13+deb14-cloud-amd64_7.2.13-1_amd64.deb",
		  "7.2.13+deb14-cloud-amd64" },
		{ "linux-image-6.1.0-57-arm64_6.1.192-3_arm64.deb", "6.1.0-57-arm64" },
		{ "linux-image-6.12.117+deb13-cloud-arm64_6.12.117-1_arm64.deb",
		  "6.12.117+deb13-cloud-arm64" },
		{ "linux-binary-7.2.13+deb14-cloud-arm64_7.2.13-1_arm64.deb",
		  "7.2.13+deb14-cloud-arm64" },
	};
	char path[PATH_MAX], release[128];
	int tried = 0;

	(void)state;
	for (int k = 0; k < N(kernels); k++) {
		char *r;

		snprintf(path, sizeof(path), "%s/kernels/%s/release", vm_cache(), kernels[k]);
		r = slurp(path, NULL);
		snprintf(path, sizeof(path), "%s/kernels/%s/vmlinuz", vm_cache(), kernels[k]);
		if (!r || access(path, R_OK)) {
			print_message("no %s: not fetched here (tests/vm/vmtest fetches it)\n", path);
			free(r);
			continue;
		}
		snprintf(release, sizeof(release), "%.*s", (int)strcspn(r, "\n"), r);
		free(r);
		check_pinned(path, release);
		tried++;
	}
	for (int d = 0; d < N(debs); d++) {
		snprintf(path, sizeof(path), "%s/debs/%s", vm_cache(), debs[d].deb);
		if (access(path, R_OK)) {
			print_message("no %s: not fetched here\n", path);
			continue;
		}
		check_pinned(path, debs[d].release);
		tried++;
	}
	if (!tried) {
		print_message("skipped: no pinned kernel in %s (tests/vm/vmtest fetches them)\n",
			      vm_cache());
		skip();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(raw_btf_is_read_as_is_and_has_no_release),
		cmocka_unit_test(vmlinux_elf_gives_its_btf_section_and_the_banners_release),
		cmocka_unit_test(bzimage_in_each_compression_the_kernel_uses),
		cmocka_unit_test(bzimage_compressed_by_the_kernels_own_tools),
		cmocka_unit_test(arm64_image_plain_gzipped_and_packaged_gives_its_btf),
		cmocka_unit_test(debian_package_kernel_in_boot_or_in_usr_lib_modules),
		cmocka_unit_test(debian_package_without_a_kernel_is_refused),
		cmocka_unit_test(truncated_bzimage_and_cut_payload_are_refused),
		cmocka_unit_test(truncated_and_corrupt_elf_headers_are_named),
		cmocka_unit_test(uncompressed_or_unknown_payload_is_refused),
		cmocka_unit_test(garbage_and_elf_without_btf_are_refused),
		cmocka_unit_test(fifo_and_directory_are_refused_without_reading),
		cmocka_unit_test(check_btf_prints_the_release_and_the_table_and_exits_0),
		cmocka_unit_test(check_btf_on_a_bad_file_is_one_error_line_and_exit_2),
		cmocka_unit_test(pinned_kernels_give_bpftools_layout_without_booting),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
