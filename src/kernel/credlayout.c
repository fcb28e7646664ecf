// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/credlayout.h"

#include <bpf/btf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cred_field_names[CRED_FIELDS] = {
	"usage", "uid", "gid", "suid", "sgid", "euid", "egid", "fsuid", "fsgid",
	"securebits", "cap_permitted", "cap_effective", "non_rcu",
};

bool cred_field_is_checked(const char *name)
{
	for (int f = CRED_UID; f <= CRED_SECUREBITS; f++)
		if (!strcmp(name, cred_field_names[f]))
			return true;
	return !strcmp(name, cred_field_names[CRED_CAP_EFFECTIVE]);
}

enum cred_layout_answer cred_layout_answer(const struct cred_layout *l)
{
	if (!l || l->size <= 0 || l->offset[CRED_USAGE] < 0)
		return CRED_LAYOUT_UNKNOWN;
	return l->usage_shares_checked ? CRED_LAYOUT_SHARES : CRED_LAYOUT_SEPARATED;
}

void cred_layout_keep(struct profile *p)
{
	struct cred_layout l;
	char err[256];

	p->cred_line_kept = true;
	p->cred_line = cred_layout_read(NULL, &l, err, sizeof(err)) ? CRED_LAYOUT_UNKNOWN
								   : cred_layout_answer(&l);
}

const char *cred_layout_verdict(const struct cred_layout *l)
{
	return l->usage_shares_checked ? "refcount shares a cacheline with read-mostly fields"
				       : "separated";
}

/* Every member of struct cred, anonymous structs and unions opened. */
struct members {
	int n, cap;
	struct cred_member *m;
};

static const struct btf_type *skip_mods(const struct btf *btf, const struct btf_type *t)
{
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/*
 * A kernel nests anonymous structs and unions in struct cred two deep at
 * most; a BTF whose anonymous member contains itself, or with a member
 * offset or size over 1 GiB (offset + size must fit an int), is corrupt
 * (-EINVAL), not a layout.
 */
#define COLLECT_DEPTH 8

static int collect(const struct btf *btf, const struct btf_type *t, int base, struct members *ms,
		   int depth)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		long long at = base + (long long)(btf_member_bit_offset(t, i) / 8), size;
		int off = (int)at, bits = btf_member_bitfield_size(t, i), e;
		const struct btf_type *inner;

		if (at > INT_MAX / 2)
			return -EINVAL;
		if (!name || !*name) {
			inner = skip_mods(btf, btf__type_by_id(btf, m->type));
			if (!inner || !btf_is_composite(inner))
				continue;
			if (depth == COLLECT_DEPTH)
				return -EINVAL;
			if ((e = collect(btf, inner, off, ms, depth + 1)))
				return e;
			continue;
		}
		if (ms->n == ms->cap) {
			struct cred_member *grown = realloc(ms->m, (ms->cap = ms->cap * 2 + 16) *
							    sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			ms->m = grown;
		}
		struct cred_member *cm = &ms->m[ms->n++];

		snprintf(cm->name, sizeof(cm->name), "%s", name);
		cm->offset = off;
		size = bits ? (btf_member_bit_offset(t, i) % 8 + bits + 7) / 8
			    : btf__resolve_size(btf, m->type);
		if (size > INT_MAX / 2)
			return -EINVAL;
		cm->size = size < 0 ? 0 : (int)size;
		cm->checked = cred_field_is_checked(name);
	}
	return 0;
}

static const struct cred_member *find(const struct members *ms, const char *name)
{
	for (int i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].name, name))
			return &ms->m[i];
	return NULL;
}

static int by_offset(const void *a, const void *b)
{
	const struct cred_member *x = a, *y = b;

	return x->offset != y->offset ? x->offset - y->offset : x->size - y->size;
}

/* The two old flags, and the members in usage's line(s) with the verdict. */
static void classify(struct cred_layout *l, const struct members *ms)
{
	int usage = l->offset[CRED_USAGE];
	int lo = l->usage_first_line * CACHELINE, hi = (l->usage_last_line + 1) * CACHELINE;

	l->usage_shares_uid_line = l->offset[CRED_UID] >= 0 &&
				   usage / CACHELINE == l->offset[CRED_UID] / CACHELINE;
	l->usage_shares_reader_lines = false;
	for (int f = CRED_UID; f <= CRED_SECUREBITS; f++)
		if (l->offset[f] >= 0 && usage / CACHELINE == l->offset[f] / CACHELINE)
			l->usage_shares_reader_lines = true;
	l->nline = 0;
	l->usage_shares_checked = false;
	for (int i = 0; i < ms->n && l->nline < CRED_LINE_MEMBERS; i++) {
		const struct cred_member *m = &ms->m[i];
		int end = m->offset + (m->size ? m->size : 1);

		if (m->offset >= hi || end <= lo)
			continue;
		l->line[l->nline++] = *m;
		l->usage_shares_checked |= m->checked;
	}
	qsort(l->line, l->nline, sizeof(l->line[0]), by_offset);
}

int cred_layout_from_btf(const struct btf *btf, struct cred_layout *l, char *err, size_t errlen)
{
	struct members ms = {0};
	const struct btf_type *t;
	const struct cred_member *usage;
	int id;

	memset(l, 0, sizeof(*l));
	id = btf__find_by_name_kind(btf, "cred", BTF_KIND_STRUCT);
	if (id < 0) {
		snprintf(err, errlen, "struct cred is not in the kernel BTF");
		return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	l->size = t->size;
	if ((id = collect(btf, t, 0, &ms, 0))) {
		free(ms.m);
		snprintf(err, errlen, id == -ENOMEM ? "out of memory reading struct cred" :
			 "struct cred in this BTF is corrupt (anonymous members nested over %d deep, "
			 "or an offset or size over 1 GiB)", COLLECT_DEPTH);
		return id;
	}
	for (int f = 0; f < CRED_FIELDS; f++) {
		const struct cred_member *m = find(&ms, cred_field_names[f]);

		l->offset[f] = m ? m->offset : -1;
	}
	usage = find(&ms, cred_field_names[CRED_USAGE]);
	if (!usage) {
		free(ms.m);
		snprintf(err, errlen, "struct cred has no member 'usage'");
		return -ENOENT;
	}
	l->usage_size = usage->size;
	l->usage_first_line = usage->offset / CACHELINE;
	l->usage_last_line = (usage->offset + (usage->size ? usage->size : 1) - 1) / CACHELINE;
	classify(l, &ms);
	free(ms.m);
	return 0;
}

int cred_layout_read(const char *btf_path, struct cred_layout *l, char *err, size_t errlen)
{
	struct btf *btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	int ret;

	if (!btf) {
		ret = -errno;
		snprintf(err, errlen, "cannot read kernel BTF%s%s: %s", btf_path ? " from " : "",
			 btf_path ? btf_path : "", strerror(errno));
		return ret;
	}
	ret = cred_layout_from_btf(btf, l, err, errlen);
	btf__free(btf);
	return ret;
}
