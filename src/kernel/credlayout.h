/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The layout of struct cred, from a kernel's BTF: does the refcount (usage)
 * share a 64-byte cacheline with the fields permission checks read
 * (uid ... fsgid, securebits, cap_effective)?  Offsets differ between builds
 * of one version, so they are always read, never assumed.
 */
#ifndef PERMSCOPE_CREDLAYOUT_H
#define PERMSCOPE_CREDLAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

#define CACHELINE 64

struct btf;

enum cred_field {
	CRED_USAGE, CRED_UID, CRED_GID, CRED_SUID, CRED_SGID, CRED_EUID, CRED_EGID,
	CRED_FSUID, CRED_FSGID, CRED_SECUREBITS, CRED_CAP_PERMITTED, CRED_CAP_EFFECTIVE,
	CRED_NON_RCU, CRED_FIELDS,
};

/* One member of struct cred, members of anonymous structs and unions included. */
struct cred_member {
	char name[48];
	int offset, size;  /* bytes */
	bool checked;      /* read by permission checks: cred_field_is_checked() */
};

#define CRED_LINE_MEMBERS 64

struct cred_layout {
	int size;                 /* sizeof(struct cred) */
	int offset[CRED_FIELDS];  /* bytes; -1 when the field does not exist */
	bool usage_shares_uid_line;     /* usage and uid in one cacheline */
	bool usage_shares_reader_lines; /* usage in a line with any of uid..securebits */
	/*
	 * The cacheline(s) usage lies in, and every member with a byte in
	 * them (usage itself included), in offset order.
	 */
	int usage_size, usage_first_line, usage_last_line;
	int nline;
	struct cred_member line[CRED_LINE_MEMBERS];
	bool usage_shares_checked; /* a member of `line` that checks read: the verdict */
};

extern const char *const cred_field_names[CRED_FIELDS];

/* Is NAME one of the fields permission checks read: uid..fsgid, securebits, cap_effective? */
bool cred_field_is_checked(const char *name);

/* The fourth fast path's answer (profile.h) for layout `l`; UNKNOWN for none. */
enum cred_layout_answer cred_layout_answer(const struct cred_layout *l);

/*
 * Keep the running kernel's answer in profile `p` (record, the daemon and
 * bench call it as a recording begins): UNKNOWN where the BTF cannot be read.
 */
void cred_layout_keep(struct profile *p);

/* "refcount shares a cacheline with read-mostly fields" or "separated". */
const char *cred_layout_verdict(const struct cred_layout *l);

/* From BTF: 0, or -errno with `err` set (struct cred missing, no usage). */
int cred_layout_from_btf(const struct btf *btf, struct cred_layout *l, char *err, size_t errlen);

/*
 * Read from /sys/kernel/btf/vmlinux (or `btf_path`, raw BTF or ELF) and
 * decide.  0, or -errno with `err` set.
 */
int cred_layout_read(const char *btf_path, struct cred_layout *l, char *err, size_t errlen);

#endif
