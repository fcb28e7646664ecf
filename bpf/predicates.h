/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two fast-path predicates, written once and compiled both into the BPF
 * programs and into the unit tests, so the definition that is tested is the
 * one that runs.  Inputs are plain values read by the caller (CO-RE reads in
 * BPF, literals in tests); nothing here touches kernel memory.
 */
#ifndef PERMSCOPE_PREDICATES_H
#define PERMSCOPE_PREDICATES_H

#include "permscope.h"

#define PS_AT_EACCESS 0x200           /* include/uapi/linux/fcntl.h */
#define PS_SECURE_NO_SETUID_FIXUP 2   /* include/uapi/linux/securebits.h */

/* struct cred_view and struct dir_view, the inputs, are in permscope.h. */

/*
 * Would faccessat() have to switch to overridden creds?  Mirrors the kernel's
 * access_need_override_creds(): the override only changes anything when fsuid
 * or fsgid differ from the real ids, or when the capability fixup would alter
 * cap_effective (cleared for non-root, set to cap_permitted for root).
 */
static inline bool access_needs_override(const struct cred_view *c, int flags)
{
	if (flags & PS_AT_EACCESS)
		return false;
	if (c->fsuid != c->uid || c->fsgid != c->gid)
		return true;
	if (c->securebits & (1U << PS_SECURE_NO_SETUID_FIXUP))
		return false;
	if (c->uid != c->root_uid)
		return c->cap_effective != 0;
	return c->cap_effective != c->cap_permitted;
}

static inline enum access_outcome access_outcome(bool needed, bool allocated)
{
	if (needed)
		return allocated ? ACCESS_NEEDED : ACCESS_UNSAFE;
	return allocated ? ACCESS_AVOIDABLE : ACCESS_FAST;
}

#define PS_IOP_FASTPERM 0x0001
#define PS_IOP_FASTPERM_MAY_EXEC 0x0080 /* the MAY_EXEC opt-in (v2: precomputed flag) */
#define PS_ACL_NOT_CACHED ((__u64)-1)   /* include/linux/fs.h */
#define PS_ACL_DONT_CACHE ((__u64)-3)
#define PS_S_IFMT 0170000
#define PS_S_IFDIR 0040000

static inline bool mode_is_dir(__u16 mode)
{
	return (mode & PS_S_IFMT) == PS_S_IFDIR;
}

/*
 * Could lookup skip inode_permission() for this directory?  Returns
 * LOOKUP_ELIGIBLE or the first reason it cannot, in the order the merged
 * fast path tests them (lookup_inode_permission_may_exec() on 7.2, as
 * compiled): the opt-in (i_opflags & 0x81), then (i_mode & 0111) == 0111,
 * then i_acl == NULL, where an ACL not read yet (ACL_NOT_CACHED, not NULL)
 * is told apart from a cached one.
 */
static inline enum lookup_reason lookup_eligibility(const struct dir_view *d)
{
	if (!(d->opflags & (PS_IOP_FASTPERM | PS_IOP_FASTPERM_MAY_EXEC)))
		return LOOKUP_INEL_NOT_OPTED_IN;
	if ((d->mode & 0111) != 0111)
		return LOOKUP_INEL_MODE;
	if (d->acl == PS_ACL_NOT_CACHED || d->acl == PS_ACL_DONT_CACHE)
		return LOOKUP_INEL_ACL_NOT_CACHED;
	if (d->acl != 0)
		return LOOKUP_INEL_ACL;
	return LOOKUP_ELIGIBLE;
}

#define PS_MAY_EXEC 0x01      /* include/linux/fs.h */
#define PS_MAY_ACCESS 0x10
#define PS_MAY_CHDIR 0x40
#define PS_MAY_NOT_BLOCK 0x80

/*
 * Who asked for a MAY_EXEC check on a directory: only a path walk can take
 * the fast path.  chdir() and access() say so in the mask; any other bit
 * (MAY_WRITE for create and delete, ...) is another kind of check; a
 * walk-shaped check made by another caller than the path walker is, for
 * one, a stacked filesystem (overlayfs) checking its real inode.
 */
static inline enum lookup_origin lookup_origin(int mask, bool other_caller)
{
	if (mask & PS_MAY_CHDIR)
		return LOOKUP_ORIGIN_CHDIR;
	if (mask & PS_MAY_ACCESS)
		return LOOKUP_ORIGIN_ACCESS;
	if (mask & ~(PS_MAY_EXEC | PS_MAY_NOT_BLOCK))
		return LOOKUP_ORIGIN_MASK;
	return other_caller ? LOOKUP_ORIGIN_CALLER : LOOKUP_ORIGIN_WALK;
}

#endif /* PERMSCOPE_PREDICATES_H */
