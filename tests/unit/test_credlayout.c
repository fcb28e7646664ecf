// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cred layout verdict (src/kernel/credlayout.c) on layouts made in BTF at test
 * time, and `permscope check`'s exit status where it cannot run.
 */
#include "testutil.h"
#include "kernel/credlayout.h"
#include "credbtf.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static struct cred_layout layout_of(const struct fake_field *f, int n, int size)
{
	struct btf *btf = fake_cred_btf(f, n, size);
	struct cred_layout l;
	char err[256];

	assert_int_equal(cred_layout_from_btf(btf, &l, err, sizeof(err)), 0);
	btf__free(btf);
	return l;
}

static void assert_member(const struct cred_layout *l, int i, const char *name, int offset,
			  int size, bool checked)
{
	assert_true(i < l->nline);
	assert_string_equal(l->line[i].name, name);
	assert_int_equal(l->line[i].offset, offset);
	assert_int_equal(l->line[i].size, size);
	assert_int_equal(l->line[i].checked, checked);
}

static void stock_layout_names_every_field_of_usages_line_and_shares(void **state)
{
	struct cred_layout l = layout_of(credbtf_sid, N(credbtf_sid), 184);
	static const char *const names[] = { "usage", "uid", "gid", "suid", "sgid", "euid",
					     "egid", "fsuid", "fsgid", "securebits",
					     "cap_inheritable", "cap_permitted" };

	(void)state;
	assert_int_equal(l.size, 184);
	assert_int_equal(l.nline, N(names));
	for (int i = 0; i < N(names); i++)
		assert_string_equal(l.line[i].name, names[i]);
	assert_member(&l, 0, "usage", 0, 8, false);
	assert_member(&l, 9, "securebits", 40, 4, true);
	assert_member(&l, 11, "cap_permitted", 56, 8, false);
	assert_true(l.usage_shares_checked);
	assert_true(l.usage_shares_uid_line);
	assert_true(l.usage_shares_reader_lines);
	assert_string_equal(cred_layout_verdict(&l),
			    "refcount shares a cacheline with read-mostly fields");
	/* cap_effective starts the next line: named among the offsets, not in the line */
	assert_int_equal(l.offset[CRED_CAP_EFFECTIVE], 64);
	assert_int_equal(l.offset[CRED_NON_RCU], 168);
}

/* 6.1: kernel_cap_t is two u32, packed at 44, and cap_effective straddles lines 0 and 1. */
static void a_field_with_one_byte_in_the_line_shares_it(void **state)
{
	static const struct fake_field f[] = {
		{ "usage", 0, 8, false }, { "session_keyring", 8, 8, false },
		{ "cap_permitted", 52, 8, false }, { "cap_effective", 60, 8, false },
		{ "uid", 72, 4, false },
	};
	struct cred_layout l = layout_of(f, N(f), 96);

	(void)state;
	assert_int_equal(l.nline, 4);
	assert_member(&l, 3, "cap_effective", 60, 8, true);
	assert_true(l.usage_shares_checked);
	assert_false(l.usage_shares_uid_line);
	assert_false(l.usage_shares_reader_lines);
}

/* The patched layout: usage alone with what permission checks never read. */
static void usage_moved_off_the_readers_is_separated_and_unions_are_opened(void **state)
{
	static const struct fake_field f[] = {
		{ "uid", 0, 4, false }, { "gid", 4, 4, false }, { "securebits", 40, 4, false },
		{ "cap_effective", 56, 8, false }, { "usage", 64, 8, false },
		{ "non_rcu", 72, 4, true }, { "rcu", 72, 16, true }, { "user", 120, 8, false },
		{ "group_info", 128, 8, false },
	};
	struct cred_layout l = layout_of(f, N(f), 136);

	(void)state;
	assert_int_equal(l.nline, 4);
	assert_member(&l, 0, "usage", 64, 8, false);
	assert_member(&l, 1, "non_rcu", 72, 4, false);
	assert_member(&l, 2, "rcu", 72, 16, false);
	assert_member(&l, 3, "user", 120, 8, false);
	assert_int_equal(l.usage_first_line, 1);
	assert_int_equal(l.usage_last_line, 1);
	assert_false(l.usage_shares_checked);
	assert_string_equal(cred_layout_verdict(&l), "separated");
}

static void the_fields_permission_checks_read_are_the_documented_ones(void **state)
{
	static const char *const yes[] = { "uid", "gid", "suid", "sgid", "euid", "egid",
					   "fsuid", "fsgid", "securebits", "cap_effective" };
	static const char *const no[] = { "usage", "cap_permitted", "cap_inheritable",
					  "non_rcu", "user", "security" };

	(void)state;
	for (int i = 0; i < N(yes); i++)
		assert_true(cred_field_is_checked(yes[i]));
	for (int i = 0; i < N(no); i++)
		assert_false(cred_field_is_checked(no[i]));
}

static void btf_without_struct_cred_is_an_error_that_says_so(void **state)
{
	struct btf *btf = btf__new_empty();
	struct cred_layout l;
	char err[256];

	(void)state;
	assert_true(btf__add_int(btf, "int", 4, BTF_INT_SIGNED) > 0);
	assert_true(cred_layout_from_btf(btf, &l, err, sizeof(err)) < 0);
	assert_string_equal(err, "struct cred is not in the kernel BTF");
	btf__free(btf);
}

/*
 * permscope ARGS... as nobody (through util-linux's setpriv when root; as
 * is otherwise), output in out_text and err_text: the exit status.
 */
static int permscope_unprivileged(const char *a1, const char *a2, const char *a3)
{
	char *asroot[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			   (char *)permscope_bin(), (char *)a1, (char *)a2, (char *)a3, NULL };

	return geteuid() ? permscope(a1, a2, a3, NULL) : run_capture(asroot);
}

/* Exit 1, not 2 and not 0: the check did not run, and the error says how to get the layout. */
static void check_without_privileges_exits_1_and_says_what_works_without(void **state)
{
	(void)state;
	assert_int_equal(permscope_unprivileged("check", NULL, NULL), 1);
	assert_string_equal(out_text, "");
	assert_contains(err_text, "Error: no privileges to load BPF: run as root, or with CAP_BPF "
			"and CAP_PERFMON");
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		print_message("no /sys/kernel/btf/vmlinux: --btf on this kernel not tried\n");
		return;
	}
	assert_int_equal(permscope_unprivileged("check", "--btf", "/sys/kernel/btf/vmlinux"), 0);
	assert_contains(out_text, "every field with a byte in that line:\n");
	assert_contains(out_text, "verdict: ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stock_layout_names_every_field_of_usages_line_and_shares),
		cmocka_unit_test(a_field_with_one_byte_in_the_line_shares_it),
		cmocka_unit_test(usage_moved_off_the_readers_is_separated_and_unions_are_opened),
		cmocka_unit_test(the_fields_permission_checks_read_are_the_documented_ones),
		cmocka_unit_test(btf_without_struct_cred_is_an_error_that_says_so),
		cmocka_unit_test(check_without_privileges_exits_1_and_says_what_works_without),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
