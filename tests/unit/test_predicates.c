// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fast-path predicates from bpf/predicates.h: the code the probes run. */
#include <linux/types.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "predicates.h"

#define CAP_ALL 0x000001ffffffffffULL
#define CAP_NET_RAW_BIT (1ULL << 13)

static struct cred_view root_default(void)
{
	struct cred_view c = {
		.cap_effective = CAP_ALL, .cap_permitted = CAP_ALL, .root_uid = 0,
	};
	return c;
}

static struct cred_view user_default(void)
{
	struct cred_view c = {
		.uid = 1000, .gid = 1000, .fsuid = 1000, .fsgid = 1000, .root_uid = 0,
	};
	return c;
}

static void root_with_full_caps_needs_no_override(void **state)
{
	struct cred_view c = root_default();

	(void)state;
	assert_false(access_needs_override(&c, 0));
}

static void root_missing_one_effective_cap_needs_override(void **state)
{
	struct cred_view c = root_default();

	(void)state;
	c.cap_effective &= ~CAP_NET_RAW_BIT;
	assert_true(access_needs_override(&c, 0));
}

static void user_without_caps_needs_no_override(void **state)
{
	struct cred_view c = user_default();

	(void)state;
	assert_false(access_needs_override(&c, 0));
}

static void user_with_an_effective_cap_needs_override(void **state)
{
	struct cred_view c = user_default();

	(void)state;
	c.cap_effective = CAP_NET_RAW_BIT;
	c.cap_permitted = CAP_NET_RAW_BIT;
	assert_true(access_needs_override(&c, 0));
}

static void differing_fsuid_or_fsgid_needs_override(void **state)
{
	struct cred_view c = user_default();

	(void)state;
	c.fsuid = 0;
	assert_true(access_needs_override(&c, 0));
	c = user_default();
	c.fsgid = 4;
	assert_true(access_needs_override(&c, 0));
	c = root_default();
	c.fsuid = 1000;
	assert_true(access_needs_override(&c, 0));
}

static void no_setuid_fixup_securebit_ignores_caps(void **state)
{
	struct cred_view c = root_default();

	(void)state;
	c.cap_effective = 0;
	c.securebits = 1U << PS_SECURE_NO_SETUID_FIXUP;
	assert_false(access_needs_override(&c, 0));
	c = user_default();
	c.cap_effective = CAP_ALL;
	c.securebits = 1U << PS_SECURE_NO_SETUID_FIXUP;
	assert_false(access_needs_override(&c, 0));
	/* ...but not the fsuid check, which comes first. */
	c.fsuid = 0;
	assert_true(access_needs_override(&c, 0));
}

static void other_securebits_do_not_matter(void **state)
{
	struct cred_view c = root_default();

	(void)state;
	c.securebits = 0x2f & ~(1U << PS_SECURE_NO_SETUID_FIXUP);
	assert_false(access_needs_override(&c, 0));
	c.cap_effective = 0;
	assert_true(access_needs_override(&c, 0));
}

static void at_eaccess_never_needs_override(void **state)
{
	struct cred_view c = user_default();

	(void)state;
	c.fsuid = 0;
	c.cap_effective = CAP_ALL;
	assert_false(access_needs_override(&c, PS_AT_EACCESS));
	assert_true(access_needs_override(&c, 0));
	assert_true(access_needs_override(&c, 0x100 /* AT_SYMLINK_NOFOLLOW */));
}

static void root_of_a_user_namespace_is_its_mapped_uid(void **state)
{
	struct cred_view c = root_default();

	(void)state;
	c.uid = c.gid = c.fsuid = c.fsgid = 100000;
	c.root_uid = 100000;
	assert_false(access_needs_override(&c, 0));
	/* Not root of that namespace: any effective cap needs the override. */
	c.root_uid = 200000;
	assert_true(access_needs_override(&c, 0));
}

static void outcome_matrix(void **state)
{
	(void)state;
	assert_int_equal(access_outcome(true, true), ACCESS_NEEDED);
	assert_int_equal(access_outcome(false, true), ACCESS_AVOIDABLE);
	assert_int_equal(access_outcome(false, false), ACCESS_FAST);
	assert_int_equal(access_outcome(true, false), ACCESS_UNSAFE);
}

static struct dir_view dir(__u16 mode, __u32 opflags, __u64 acl)
{
	struct dir_view d = { .mode = PS_S_IFDIR | mode, .opflags = opflags, .acl = acl };
	return d;
}

static void traversable_dir_without_acl_is_eligible(void **state)
{
	struct dir_view d = dir(0755, PS_IOP_FASTPERM, 0);

	(void)state;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_ELIGIBLE);
	d = dir(0711, PS_IOP_FASTPERM, 0);
	assert_int_equal(lookup_eligibility(&d), LOOKUP_ELIGIBLE);
	d = dir(01777, PS_IOP_FASTPERM, 0); /* sticky /tmp */
	assert_int_equal(lookup_eligibility(&d), LOOKUP_ELIGIBLE);
	d = dir(0755, PS_IOP_FASTPERM_MAY_EXEC, 0); /* the v2 flag opts in too */
	assert_int_equal(lookup_eligibility(&d), LOOKUP_ELIGIBLE);
}

static void mode_without_exec_for_all_is_ineligible(void **state)
{
	static const __u16 modes[] = { 0750, 0700, 0754, 0705, 0000, 0644 };

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct dir_view d = dir(modes[i], PS_IOP_FASTPERM, 0);

		assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_MODE);
	}
}

static void acl_states_are_told_apart(void **state)
{
	struct dir_view d = dir(0755, PS_IOP_FASTPERM, 0xffff888012345678ULL);

	(void)state;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_ACL);
	d.acl = PS_ACL_NOT_CACHED;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_ACL_NOT_CACHED);
	d.acl = PS_ACL_DONT_CACHE;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_ACL_NOT_CACHED);
}

static void fs_not_opted_in_is_ineligible(void **state)
{
	struct dir_view d = dir(0755, 0x2 | 0x4 | 0x8, 0); /* other IOP_* bits only */

	(void)state;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_NOT_OPTED_IN);
}

/*
 * The reasons come in the order the merged fast path tests them (7.2, as
 * compiled: i_opflags & 0x81, then the mode, then i_acl), so proc's and
 * sysfs's directories read "not opted in", not an ACL state.
 */
static void opt_in_is_reported_before_mode_and_acl(void **state)
{
	struct dir_view d = dir(0750, 0, PS_ACL_NOT_CACHED);

	(void)state;
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_NOT_OPTED_IN);
	d = dir(0755, 0, PS_ACL_NOT_CACHED);
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_NOT_OPTED_IN);
	d = dir(0750, PS_IOP_FASTPERM, 0xffff888012345678ULL);
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_MODE);
	d = dir(0755, PS_IOP_FASTPERM, 0xffff888012345678ULL);
	assert_int_equal(lookup_eligibility(&d), LOOKUP_INEL_ACL);
}

/* Only a path walk's check can take the fast path; the mask tells the rest. */
static void origin_comes_from_the_mask_and_the_caller(void **state)
{
	(void)state;
	assert_int_equal(lookup_origin(PS_MAY_EXEC, false), LOOKUP_ORIGIN_WALK);
	assert_int_equal(lookup_origin(PS_MAY_EXEC | PS_MAY_NOT_BLOCK, false), LOOKUP_ORIGIN_WALK);
	assert_int_equal(lookup_origin(PS_MAY_EXEC, true), LOOKUP_ORIGIN_CALLER);
	assert_int_equal(lookup_origin(PS_MAY_EXEC | PS_MAY_CHDIR, false), LOOKUP_ORIGIN_CHDIR);
	assert_int_equal(lookup_origin(PS_MAY_EXEC | PS_MAY_ACCESS, true), LOOKUP_ORIGIN_ACCESS);
	assert_int_equal(lookup_origin(PS_MAY_EXEC | 0x2 /* MAY_WRITE */, false),
			 LOOKUP_ORIGIN_MASK);
}

static void only_directories_are_directories(void **state)
{
	(void)state;
	assert_true(mode_is_dir(PS_S_IFDIR | 0755));
	assert_false(mode_is_dir(0100755)); /* regular file */
	assert_false(mode_is_dir(0120777)); /* symlink */
	assert_false(mode_is_dir(0060660)); /* block device shares the 0040000 bit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(root_with_full_caps_needs_no_override),
		cmocka_unit_test(root_missing_one_effective_cap_needs_override),
		cmocka_unit_test(user_without_caps_needs_no_override),
		cmocka_unit_test(user_with_an_effective_cap_needs_override),
		cmocka_unit_test(differing_fsuid_or_fsgid_needs_override),
		cmocka_unit_test(no_setuid_fixup_securebit_ignores_caps),
		cmocka_unit_test(other_securebits_do_not_matter),
		cmocka_unit_test(at_eaccess_never_needs_override),
		cmocka_unit_test(root_of_a_user_namespace_is_its_mapped_uid),
		cmocka_unit_test(outcome_matrix),
		cmocka_unit_test(traversable_dir_without_acl_is_eligible),
		cmocka_unit_test(mode_without_exec_for_all_is_ineligible),
		cmocka_unit_test(acl_states_are_told_apart),
		cmocka_unit_test(fs_not_opted_in_is_ineligible),
		cmocka_unit_test(opt_in_is_reported_before_mode_and_acl),
		cmocka_unit_test(origin_comes_from_the_mask_and_the_caller),
		cmocka_unit_test(only_directories_are_directories),
	};

	return cmocka_run_group_tests_name("predicates", tests, NULL, NULL);
}
