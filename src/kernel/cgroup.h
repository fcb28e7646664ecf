/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --cgroup PATH: a cgroup v2 directory named on the command line. */
#ifndef PERMSCOPE_CGROUP_H
#define PERMSCOPE_CGROUP_H

#include <stddef.h>

/*
 * Where the first cgroup2 filesystem of the mount table `mounts` (normally
 * /proc/self/mounts) is mounted, into buf.  0, -ENOENT when none is, or
 * -errno when the table cannot be read.
 */
int cgroup2_mount(const char *mounts, char *buf, size_t len);

/*
 * `arg`, an ordinary path (relative ones are taken from the current
 * directory), must name a directory of a cgroup v2 filesystem.  Returns 0
 * and in *path its absolute, symlink-free form (malloc'ed), or -errno with
 * `why` saying what is wrong and how to find the right path: the cgroup2
 * mount of `mounts`, and for a path like systemd's ControlGroup value
 * (relative to that mount) the path it likely means.
 */
int cgroup_resolve(const char *arg, const char *mounts, char **path, char *why, size_t len);

#endif
