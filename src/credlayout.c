// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "credlayout.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const cred_field_names[CRED_FIELDS] = {
	"usage", "uid", "gid", "suid", "sgid", "euid", "egid", "fsuid", "fsgid",
	"securebits", "cap_permitted", "cap_effective", "non_rcu",
};

/* Find `name` among the members of `t`, looking into anonymous structs/unions. */
static int member_offset(const struct btf *btf, const struct btf_type *t, const char *name,
			 int base)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		int off = base + (int)(btf_member_bit_offset(t, i) / 8);

		if (n && *n) {
			if (!strcmp(n, name))
				return off;
			continue;
		}
		/* An anonymous member: search inside it. */
		const struct btf_type *inner = btf__type_by_id(btf, m->type);

		while (inner && (btf_is_mod(inner) || btf_is_typedef(inner)))
			inner = btf__type_by_id(btf, inner->type);
		if (inner && btf_is_composite(inner)) {
			int r = member_offset(btf, inner, name, off);

			if (r >= 0)
				return r;
		}
	}
	return -1;
}

/* Decide the two sharing flags from the offsets. */
static void cred_layout_classify(struct cred_layout *l)
{
	int usage = l->offset[CRED_USAGE];

	l->usage_shares_uid_line = usage >= 0 && l->offset[CRED_UID] >= 0 &&
				   usage / CACHELINE == l->offset[CRED_UID] / CACHELINE;
	l->usage_shares_reader_lines = false;
	for (int f = CRED_UID; f <= CRED_SECUREBITS && usage >= 0; f++)
		if (l->offset[f] >= 0 && usage / CACHELINE == l->offset[f] / CACHELINE)
			l->usage_shares_reader_lines = true;
}

int cred_layout_read(const char *btf_path, struct cred_layout *l, char *err, size_t errlen)
{
	struct btf *btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id;

	if (!btf) {
		snprintf(err, errlen, "cannot read kernel BTF%s%s: %s", btf_path ? " from " : "",
			 btf_path ? btf_path : "", strerror(errno));
		return -errno;
	}
	id = btf__find_by_name_kind(btf, "cred", BTF_KIND_STRUCT);
	if (id < 0) {
		snprintf(err, errlen, "struct cred is not in the kernel BTF");
		btf__free(btf);
		return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	l->size = t->size;
	for (int f = 0; f < CRED_FIELDS; f++)
		l->offset[f] = member_offset(btf, t, cred_field_names[f], 0);
	btf__free(btf);
	cred_layout_classify(l);
	return 0;
}
