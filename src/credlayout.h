/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The layout of struct cred in the running kernel, from its BTF: does the
 * refcount (usage) share a 64-byte cacheline with the fields permission
 * checks read (uid ... fsgid, securebits)?  Offsets differ between builds
 * of one version, so they are always read, never assumed.
 */
#ifndef PERMSCOPE_CREDLAYOUT_H
#define PERMSCOPE_CREDLAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#define CACHELINE 64

enum cred_field {
	CRED_USAGE, CRED_UID, CRED_GID, CRED_SUID, CRED_SGID, CRED_EUID, CRED_EGID,
	CRED_FSUID, CRED_FSGID, CRED_SECUREBITS, CRED_CAP_PERMITTED, CRED_CAP_EFFECTIVE,
	CRED_NON_RCU, CRED_FIELDS,
};

struct cred_layout {
	int size;                 /* sizeof(struct cred) */
	int offset[CRED_FIELDS];  /* bytes; -1 when the field does not exist */
	bool usage_shares_uid_line;     /* usage and uid in one cacheline */
	bool usage_shares_reader_lines; /* usage in a line with any of uid..securebits */
};

extern const char *const cred_field_names[CRED_FIELDS];

/*
 * Read from /sys/kernel/btf/vmlinux (or `btf_path`) and decide the two
 * sharing flags.  0, or -errno with `err` set.
 */
int cred_layout_read(const char *btf_path, struct cred_layout *l, char *err, size_t errlen);

#endif
