// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/cgroup.h"

#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

int cgroup2_mount(const char *mounts, char *buf, size_t len)
{
	char line[4096], dir[PATH_MAX], type[64];
	FILE *f = fopen(mounts, "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	/* "DEVICE MOUNTPOINT TYPE OPTIONS 0 0"; a space in MOUNTPOINT is \040 */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

/* The hint after a path that is not a cgroup v2 directory: where they are. */
static void where_they_are(const char *arg, const char *mounts, char *hint, size_t len)
{
	char mnt[PATH_MAX], guess[2 * PATH_MAX];
	struct stat st;

	if (cgroup2_mount(mounts, mnt, sizeof(mnt))) {
		snprintf(hint, len, " (no cgroup2 filesystem is mounted here: "
			 "mount -t cgroup2 none /sys/fs/cgroup)");
		return;
	}
	/* Under the mount already: nothing to add. */
	if (!strncmp(arg, mnt, strlen(mnt)) && (!arg[strlen(mnt)] || arg[strlen(mnt)] == '/'))
		return;
	/* systemd's ControlGroup, /system.slice/x.service, is relative to the mount. */
	snprintf(guess, sizeof(guess), "%s%s", mnt, arg);
	if (arg[0] == '/' && !stat(guess, &st) && S_ISDIR(st.st_mode))
		snprintf(hint, len, " (did you mean %s? a cgroup as systemd names it is "
			 "relative to the cgroup2 mount, %s)", guess, mnt);
	else
		snprintf(hint, len, " (cgroup v2 directories are under the cgroup2 mount, %s)",
			 mnt);
}

int cgroup_resolve(const char *arg, const char *mounts, char **path, char *why, size_t len)
{
	char hint[2 * PATH_MAX + 128] = "";
	struct statfs fs;
	struct stat st;
	int err;

	*path = NULL;
	if (!*arg) {
		snprintf(why, len, "an empty path (expected a cgroup v2 directory)");
		return -EINVAL;
	}
	if (stat(arg, &st) || statfs(arg, &fs)) {
		err = -errno;
		if (err == -ENOENT || err == -ENOTDIR)
			where_they_are(arg, mounts, hint, sizeof(hint));
		snprintf(why, len, "%s%s", err == -ENOENT ? "no such directory" : strerror(-err),
			 hint);
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		where_they_are(arg, mounts, hint, sizeof(hint));
		snprintf(why, len, "not a directory: a cgroup is the directory that holds "
			 "cgroup.procs%s", hint);
		return -ENOTDIR;
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC) {
		where_they_are(arg, mounts, hint, sizeof(hint));
		snprintf(why, len, "not a cgroup v2 directory%s%s",
			 fs.f_type == CGROUP_SUPER_MAGIC ? ": it is in a cgroup v1 hierarchy" : "",
			 hint);
		return -EINVAL;
	}
	*path = realpath(arg, NULL);
	if (!*path) {
		err = -errno;
		snprintf(why, len, "%s", strerror(-err));
		return err;
	}
	return 0;
}
