// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel-image reader of `permscope check --btf FILE` (kimage_read_mem(),
 * under kimage_read()): raw BTF, a vmlinux ELF, a bzImage in any of the
 * kernel's compressions, a Debian package; then the struct cred layout from
 * the BTF it found, as check does.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fuzz.h"
#include "kernel/credlayout.h"
#include "kernel/kimage.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* libbpf's warnings about each malformed BTF would be most of the run. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	libbpf_set_print(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kimage ki;
	struct cred_layout l;
	char err[512];

	if (kimage_read_mem(data, size, &ki, err, sizeof(err)))
		return 0;
	cred_layout_from_btf(ki.btf, &l, err, sizeof(err));
	btf__free(ki.btf);
	return 0;
}
