// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * preemption_read() (src/kernel/preempt.c) on fake roots: each test writes the
 * files a kernel would show (debugfs' sched/preempt, /proc/cmdline,
 * /boot/config-RELEASE) under its own directory and passes uname's
 * strings.  "Could not tell" must come out as unknown, which counts as
 * preemptible: the attach order then puts the exact mode first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernel/preempt.h"
#include "testutil.h"

#define DYNAMIC "#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1 (2026-11-02)"

static int case_no;

/* A fresh fake root for one case, with FILES (path, content pairs, NULL-ended). */
static const char *fake_root(const char *first, ...)
{
	static char root[PATH_MAX];
	char name[32], path[PATH_MAX + 64], *slash;
	va_list ap;

	snprintf(name, sizeof(name), "root%d", case_no++);
	snprintf(root, sizeof(root), "%s", tmp_path(name));
	assert_int_equal(mkdir(root, 0755), 0);
	va_start(ap, first);
	for (const char *p = first; p; p = va_arg(ap, const char *)) {
		const char *text = va_arg(ap, const char *);

		snprintf(path, sizeof(path), "%s%s", root, p);
		for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = 0;
			mkdir(path, 0755);
			*slash = '/';
		}
		write_file(path, text, strlen(text));
	}
	va_end(ap);
	return root;
}

static struct preemption read_at(const char *root, const char *release, const char *version,
				 const char *machine)
{
	struct preemption p;

	preemption_read(root, release, version, machine, &p);
	return p;
}

static void debugfs_names_the_running_model(void **state)
{
	const char *root = fake_root("/sys/kernel/debug/sched/preempt", "none voluntary full (lazy)\n",
				     "/boot/config-6.12.1", "CONFIG_PREEMPT_VOLUNTARY=y\n", NULL);
	struct preemption p = read_at(root, "6.12.1", DYNAMIC, "x86_64");

	(void)state;
	assert_int_equal(p.model, PREEMPT_MODEL_LAZY);
	assert_string_equal(p.source, "/sys/kernel/debug/sched/preempt");
	assert_true(preempt_model_preempts_bpf(p.model));

	root = fake_root("/sys/kernel/debug/sched/preempt", "none (voluntary) full\n", NULL);
	p = read_at(root, "6.1.0-57-amd64", DYNAMIC, "x86_64");
	assert_int_equal(p.model, PREEMPT_MODEL_VOLUNTARY);
	assert_false(preempt_model_preempts_bpf(p.model));
	/* debugfs outranks the version rule: it is what runs. */
	root = fake_root("/sys/kernel/debug/sched/preempt", "full (lazy)\n", NULL);
	assert_int_equal(read_at(root, "7.2.13", DYNAMIC, "x86_64").model, PREEMPT_MODEL_LAZY);
}

static void x86_7_0_and_later_preempt_whatever_else_is_missing(void **state)
{
	const char *root = fake_root(NULL);
	struct preemption p = read_at(root, "7.2.13+deb14-cloud-amd64", DYNAMIC, "x86_64");

	(void)state;
	assert_int_equal(p.model, PREEMPT_MODEL_FULL_OR_LAZY);
	assert_true(preempt_model_preempts_bpf(p.model));
	assert_int_equal(p.kernel_major, 7);
	/* Only x86's models were cut: another machine falls through to unknown. */
	p = read_at(root, "7.2.13", DYNAMIC, "aarch64");
	assert_int_equal(p.model, PREEMPT_MODEL_UNKNOWN);
	assert_true(preempt_model_preempts_bpf(p.model));
	assert_non_null(strstr(p.source, "debugfs mounted?"));
}

static void a_kernel_of_one_model_says_it_in_uname(void **state)
{
	const char *root = fake_root("/proc/cmdline", "preempt=full\n", NULL);

	(void)state;
	assert_int_equal(read_at(root, "4.19.0", "#1 SMP Debian 4.19.316-1", "x86_64").model,
			 PREEMPT_MODEL_NONE_OR_VOLUNTARY);
	assert_int_equal(read_at(root, "5.10.0", "#1 SMP PREEMPT Tue Oct 1", "x86_64").model,
			 PREEMPT_MODEL_FULL);
	assert_int_equal(read_at(root, "6.1.0", "#1 SMP PREEMPT_RT Debian 6.1", "x86_64").model,
			 PREEMPT_MODEL_RT);
	assert_int_equal(read_at(root, "6.14.0", "#1 SMP PREEMPT_LAZY", "x86_64").model,
			 PREEMPT_MODEL_LAZY);
}

static void a_dynamic_kernel_takes_the_boot_choice_then_the_config(void **state)
{
	const char *config = "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_VOLUNTARY=y\n"
			     "# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_DYNAMIC=y\n";
	const char *root = fake_root("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro preempt=full quiet\n",
				     "/boot/config-6.12.117", config, NULL);
	struct preemption p = read_at(root, "6.12.117", DYNAMIC, "x86_64");

	(void)state;
	assert_int_equal(p.model, PREEMPT_MODEL_FULL);
	assert_string_equal(p.source, "preempt= in /proc/cmdline");

	root = fake_root("/proc/cmdline", "ro nopreempt=full quiet\n", "/boot/config-6.12.117",
			 config, NULL);
	p = read_at(root, "6.12.117", DYNAMIC, "x86_64");
	assert_int_equal(p.model, PREEMPT_MODEL_VOLUNTARY);
	assert_string_equal(p.source, "/boot/config-6.12.117");

	/* An RT configuration sets CONFIG_PREEMPT too: RT wins. */
	root = fake_root("/boot/config-6.12.117", "CONFIG_PREEMPT=y\nCONFIG_PREEMPT_RT=y\n", NULL);
	assert_int_equal(read_at(root, "6.12.117", DYNAMIC, "x86_64").model, PREEMPT_MODEL_RT);
}

static void what_cannot_be_read_is_unknown_and_counts_as_preemptible(void **state)
{
	const char *root = fake_root("/sys/kernel/debug/sched/preempt", "none voluntary full\n",
				     "/proc/cmdline", "ro preempt=sometimes\n", NULL);
	struct preemption p = read_at(root, "6.12.117", DYNAMIC, "x86_64");

	(void)state;
	assert_int_equal(p.model, PREEMPT_MODEL_UNKNOWN);
	assert_true(preempt_model_preempts_bpf(p.model));
	assert_string_equal(preempt_model_name(p.model), "unknown");
	assert_non_null(strstr(p.source, "no /boot/config-6.12.117"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(debugfs_names_the_running_model),
		cmocka_unit_test(x86_7_0_and_later_preempt_whatever_else_is_missing),
		cmocka_unit_test(a_kernel_of_one_model_says_it_in_uname),
		cmocka_unit_test(a_dynamic_kernel_takes_the_boot_choice_then_the_config),
		cmocka_unit_test(what_cannot_be_read_is_unknown_and_counts_as_preemptible),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
