/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A struct cred in BTF, made at test time with libbpf's btf__add_*(), for
 * test_credlayout and test_kimage: the layouts a kernel could have, without
 * a kernel.
 */
#ifndef PERMSCOPE_CREDBTF_H
#define PERMSCOPE_CREDBTF_H

#include <bpf/btf.h>
#include <stdbool.h>

struct fake_field {
	const char *name;
	int offset, size; /* bytes; 1, 2, 4 and 8 are integers, others char arrays */
	bool in_union;    /* in the one anonymous union, which sits at the first such offset */
};

static inline int credbtf_type(struct btf *btf, int size)
{
	int ch;

	switch (size) {
	case 1: return btf__add_int(btf, "u8", 1, 0);
	case 2: return btf__add_int(btf, "u16", 2, 0);
	case 4: return btf__add_int(btf, "unsigned int", 4, 0);
	case 8: return btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	}
	ch = btf__add_int(btf, "char", 1, BTF_INT_CHAR);
	return btf__add_array(btf, btf__add_int(btf, "int", 4, BTF_INT_SIGNED), ch, size);
}

/*
 * struct cred of SIZE bytes with the N fields F, in order: a new BTF the
 * caller btf__free()s.  Fields with in_union are members of an anonymous
 * union (each at the union's start), as kernels have `union { int non_rcu;
 * struct rcu_head rcu; }`.
 */
static inline struct btf *fake_cred_btf(const struct fake_field *f, int n, int size)
{
	struct btf *btf = btf__new_empty();
	int types[64], un = 0, un_off = -1, un_size = 0, id;

	assert_non_null(btf);
	assert_true(n <= 64);
	for (int i = 0; i < n; i++) {
		types[i] = credbtf_type(btf, f[i].size);
		assert_true(types[i] > 0);
		if (f[i].in_union) {
			un_off = un_off < 0 ? f[i].offset : un_off;
			un_size = f[i].size > un_size ? f[i].size : un_size;
		}
	}
	if (un_off >= 0) {
		un = btf__add_union(btf, NULL, un_size);
		for (int i = 0; i < n; i++)
			if (f[i].in_union)
				assert_int_equal(btf__add_field(btf, f[i].name, types[i], 0, 0), 0);
	}
	id = btf__add_struct(btf, "cred", size);
	assert_true(id > 0);
	for (int i = 0; i < n; i++) {
		if (f[i].in_union) {
			if (f[i].offset == un_off && un) {
				assert_int_equal(btf__add_field(btf, NULL, un, un_off * 8, 0), 0);
				un = 0;
			}
			continue;
		}
		assert_int_equal(btf__add_field(btf, f[i].name, types[i], f[i].offset * 8, 0), 0);
	}
	return btf;
}

/* The cred of Debian's 6.12 and 7.2 cloud kernels, as `bpftool btf dump` gives it. */
static const struct fake_field credbtf_sid[] = {
	{ "usage", 0, 8, false }, { "uid", 8, 4, false }, { "gid", 12, 4, false },
	{ "suid", 16, 4, false }, { "sgid", 20, 4, false }, { "euid", 24, 4, false },
	{ "egid", 28, 4, false }, { "fsuid", 32, 4, false }, { "fsgid", 36, 4, false },
	{ "securebits", 40, 4, false }, { "cap_inheritable", 48, 8, false },
	{ "cap_permitted", 56, 8, false }, { "cap_effective", 64, 8, false },
	{ "cap_bset", 72, 8, false }, { "cap_ambient", 80, 8, false },
	{ "jit_keyring", 88, 1, false }, { "session_keyring", 96, 8, false },
	{ "process_keyring", 104, 8, false }, { "thread_keyring", 112, 8, false },
	{ "request_key_auth", 120, 8, false }, { "security", 128, 8, false },
	{ "user", 136, 8, false }, { "user_ns", 144, 8, false }, { "ucounts", 152, 8, false },
	{ "group_info", 160, 8, false }, { "non_rcu", 168, 4, true }, { "rcu", 168, 16, true },
};

#endif
