// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes the seeds of fuzz_kimage into DIR: the kernels test_kimage makes
 * (raw BTF of a struct cred, a vmlinux ELF, a bzImage in each compression,
 * an arm64 Image plain and gzip'ed, a Debian package), made by its own functions, so that they are the files
 * the unit tests read.  `make fuzz-seeds` runs it; the output is checked in
 * under tests/fuzz/corpus/fuzz_kimage.
 */
#define main test_kimage_main
#include "../unit/test_kimage.c"
#undef main

static void put(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, data, len); /* fails the program if it cannot */
	free((void *)data);
}

int main(int argc, char **argv)
{
	static const struct { int filter; const char *name; } z[] = {
		{ ARCHIVE_FILTER_GZIP, "bzimage-gzip" }, { ARCHIVE_FILTER_BZIP2, "bzimage-bzip2" },
		{ ARCHIVE_FILTER_XZ, "bzimage-xz" }, { ARCHIVE_FILTER_LZMA, "bzimage-lzma" },
		{ ARCHIVE_FILTER_LZ4, "bzimage-lz4" }, { ARCHIVE_FILTER_ZSTD, "bzimage-zstd" },
	};
	size_t btf_len, len, bz_len;
	void *btf, *bz, *d;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	btf = cred_btf(&btf_len);
	/* (an argument's order of evaluation is unspecified: len is set first) */
	d = fake_vmlinux(btf, btf_len, &len);
	put(argv[1], "vmlinux", d, len);
	d = fake_arm64_image(btf, btf_len, &len);
	bz = compress(d, len, ARCHIVE_FILTER_GZIP, &bz_len);
	put(argv[1], "arm64-image.gz", bz, bz_len);
	put(argv[1], "arm64-image", d, len);
	put(argv[1], "raw.btf", btf, btf_len);
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		d = fake_kernel(z[i].filter, &len);
		put(argv[1], z[i].name, d, len);
	}
	bz = fake_kernel(ARCHIVE_FILTER_XZ, &bz_len);
	d = fake_deb("./boot/vmlinuz-9.8.7-setup", bz, bz_len, &len);
	put(argv[1], "linux-image.deb", d, len);
	free(bz);
	return 0;
}
