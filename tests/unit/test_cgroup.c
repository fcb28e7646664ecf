// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --cgroup PATH (src/kernel/cgroup.c): which paths are taken, and what a user is
 * told about the others.  Mount tables are files written here, so the
 * hints are checked whatever this machine mounts; only the last test needs
 * a real cgroup2 mount, and it says so and skips without one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#include "kernel/cgroup.h"

static char why[2 * PATH_MAX + 256];

/* A mount table with a cgroup2 filesystem at MNT (and a v1 one before it). */
static const char *mounts_with_cgroup2_at(const char *mnt)
{
	char text[PATH_MAX + 512];

	snprintf(text, sizeof(text),
		 "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
		 "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
		 "cgroup2 %s cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n", mnt);
	return write_tmp_file("mounts", text);
}

static void the_cgroup2_mount_is_found_in_the_mount_table(void **state)
{
	char mnt[PATH_MAX];

	(void)state;
	assert_int_equal(cgroup2_mount(mounts_with_cgroup2_at("/sys/fs/cgroup/unified"), mnt,
				       sizeof(mnt)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_int_equal(cgroup2_mount(write_tmp_file("v1only",
		"cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"), mnt, sizeof(mnt)), -ENOENT);
	assert_int_equal(cgroup2_mount(tmp_path("no-such-table"), mnt, sizeof(mnt)), -ENOENT);
}

static void an_empty_path_is_refused(void **state)
{
	char *path = (char *)1;

	(void)state;
	assert_int_equal(cgroup_resolve("", "/proc/self/mounts", &path, why, sizeof(why)),
			 -EINVAL);
	assert_null(path);
	assert_string_equal(why, "an empty path (expected a cgroup v2 directory)");
}

/* Not found: where cgroups are, or that none are mounted. */
static void a_missing_directory_says_where_cgroups_are(void **state)
{
	char *path;

	(void)state;
	assert_int_equal(cgroup_resolve("/nonexistent-permscope/x",
					mounts_with_cgroup2_at("/sys/fs/cgroup"), &path, why,
					sizeof(why)), -ENOENT);
	assert_string_equal(why, "no such directory (cgroup v2 directories are under the "
			    "cgroup2 mount, /sys/fs/cgroup)");
	assert_int_equal(cgroup_resolve("/nonexistent-permscope/x",
					write_tmp_file("none", "proc /proc proc rw 0 0\n"), &path,
					why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no such directory (no cgroup2 filesystem is mounted here: "
			    "mount -t cgroup2 none /sys/fs/cgroup)");
	/* under the mount already: the path is plain enough */
	assert_int_equal(cgroup_resolve("/sys/fs/cgroup/nonexistent-permscope",
					mounts_with_cgroup2_at("/sys/fs/cgroup"), &path, why,
					sizeof(why)), -ENOENT);
	assert_string_equal(why, "no such directory");
}

/* systemd's ControlGroup value is relative to the mount: the likely path is named. */
static void a_systemd_control_group_gets_the_path_it_means(void **state)
{
	char mnt[PATH_MAX], *path;

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s", tmp_path("cg"));
	assert_int_equal(mkdir(mnt, 0755), 0);
	assert_int_equal(mkdir(tmp_path("cg/system.slice"), 0755), 0);
	assert_int_equal(mkdir(tmp_path("cg/system.slice/nginx.service"), 0755), 0);
	assert_int_equal(cgroup_resolve("/system.slice/nginx.service",
					mounts_with_cgroup2_at(mnt), &path, why, sizeof(why)),
			 -ENOENT);
	assert_contains(why, "no such directory (did you mean ");
	assert_contains(why, "/cg/system.slice/nginx.service? a cgroup as systemd names it is "
			"relative to the cgroup2 mount, ");
}

/* A file, a directory of another filesystem: refused, saying which. */
static void what_is_no_cgroup_v2_directory_is_refused(void **state)
{
	const char *mounts = mounts_with_cgroup2_at("/sys/fs/cgroup");
	char *path;

	(void)state;
	assert_int_equal(cgroup_resolve(write_tmp_file("file", "x"), mounts, &path, why,
					sizeof(why)), -ENOTDIR);
	assert_string_equal(why, "not a directory: a cgroup is the directory that holds "
			    "cgroup.procs (cgroup v2 directories are under the cgroup2 mount, "
			    "/sys/fs/cgroup)");
	assert_int_equal(cgroup_resolve(tmpdir, mounts, &path, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a cgroup v2 directory (cgroup v2 directories are under "
			    "the cgroup2 mount, /sys/fs/cgroup)");
	assert_null(path);
}

/* The cgroup2 mount itself is a cgroup v2 directory: taken, made absolute. */
static void a_cgroup_v2_directory_is_taken_as_an_absolute_path(void **state)
{
	char mnt[PATH_MAX], cwd[PATH_MAX], *path;

	(void)state;
	if (cgroup2_mount("/proc/self/mounts", mnt, sizeof(mnt))) {
		print_message("skipped: no cgroup2 filesystem is mounted here\n");
		skip();
	}
	if (cgroup_resolve(mnt, "/proc/self/mounts", &path, why, sizeof(why)))
		fail_msg("%s: %s", mnt, why);
	assert_string_equal(path, mnt);
	free(path);
	/* a relative path is taken from the current directory, like any path */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(mnt), 0);
	assert_int_equal(cgroup_resolve(".", "/proc/self/mounts", &path, why, sizeof(why)), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(path, mnt);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_cgroup2_mount_is_found_in_the_mount_table),
		cmocka_unit_test(an_empty_path_is_refused),
		cmocka_unit_test(a_missing_directory_says_where_cgroups_are),
		cmocka_unit_test(a_systemd_control_group_gets_the_path_it_means),
		cmocka_unit_test(what_is_no_cgroup_v2_directory_is_refused),
		cmocka_unit_test(a_cgroup_v2_directory_is_taken_as_an_absolute_path),
	};

	return cmocka_run_group_tests_name("cgroup", tests, tmpdir_setup, tmpdir_teardown);
}
