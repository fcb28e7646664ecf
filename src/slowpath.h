/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Defeating a fast path on purpose, written once for `permscope bench
 * --slow` and the test workload (tests/live/workload.c), which compiles
 * this header alone: hence static inline, libc only.
 */
#ifndef PERMSCOPE_SLOWPATH_H
#define PERMSCOPE_SLOWPATH_H

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/*
 * Clear capability `cap` from this thread's effective set only: permitted
 * stays, so effective != permitted and every access() needs the cred
 * override.  -1 with errno set; EINVAL when `cap` was not effective.
 */
static inline int slowpath_drop_effective(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (!(data[cap / 32].effective & (1U << (cap % 32)))) {
		errno = EINVAL;
		return -1;
	}
	data[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &hdr, data);
}

/*
 * Give `path` an access ACL that allows what the mode bits allow and names
 * one user: a directory with it is no longer one "everyone may traverse
 * with no ACL", so path walk takes the full permission check.  Raw
 * setxattr in the kernel's posix_acl_xattr format (no libacl).  -1 with
 * errno set.
 */
static inline int slowpath_allowing_acl(const char *path)
{
	struct {
		uint32_t version;
		struct { uint16_t tag, perm; uint32_t id; } e[5];
	} acl = { 2, {
		{ 0x01, 7, -1U },   /* ACL_USER_OBJ rwx */
		{ 0x02, 5, 1000 },  /* ACL_USER 1000 r-x */
		{ 0x04, 5, -1U },   /* ACL_GROUP_OBJ r-x */
		{ 0x10, 5, -1U },   /* ACL_MASK r-x */
		{ 0x20, 5, -1U },   /* ACL_OTHER r-x */
	} };

	return setxattr(path, "system.posix_acl_access", &acl, sizeof(acl), 0);
}

#endif
