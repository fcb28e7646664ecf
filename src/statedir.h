/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's state directory: a lock and numbered snapshot profiles
 * (docs/daemon.md, "State directory"):
 *
 *   DIR/lock                                 flock()ed by the running daemon; its pid
 *   DIR/snap-00000042-20261130T210501Z.total.json   the running total since attach
 *   DIR/snap-00000042-20261130T210501Z.delta.json   that interval alone
 *
 * Both are ordinary profiles, written atomically; the last `keep` pairs stay.
 */
#ifndef PERMSCOPE_STATEDIR_H
#define PERMSCOPE_STATEDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define STATEDIR_DEFAULT "/var/lib/permscope"

struct statedir {
	char path[PATH_MAX];
	int dirfd, lockfd;
	uint64_t next_seq; /* after the highest already there: numbers survive restarts */
	unsigned int keep;
	bool busy; /* statedir_open failed because another daemon holds the lock */
};

/*
 * Create DIR if missing (0750), refuse one that others can write to, take
 * its lock, clear what an interrupted write left, and keep at most `keep`
 * snapshots.  0, or -1 with a message for "Error: <msg>" in `err` (a second
 * daemon on the same DIR gets the first one's pid, and `busy` set: the
 * directory is fine, the machine is not; every other failure is the DIR
 * given).
 */
int statedir_open(struct statedir *sd, const char *path, unsigned int keep,
		  char *err, size_t errlen);
/*
 * Write `total` and `delta` as the next snapshot, then delete the pairs
 * beyond `keep`.  `name` gets the total's path.  0 or -errno.
 */
int statedir_snapshot(struct statedir *sd, const struct profile *total,
		      const struct profile *delta, char *name, size_t namelen);
void statedir_close(struct statedir *sd);

/*
 * The newest total snapshot of state directory DIR, for the commands that
 * read profiles.  0 with its path in `out`, or -1 with `err` filled.
 */
int statedir_newest_total(const char *dir, char *out, size_t outlen, char *err, size_t errlen);
/*
 * What the commands read a profile argument with: a profile file, as
 * profile_read() reads it, or a daemon's state directory, which stands for
 * its newest running total.  On failure returns -1 and puts a message fit
 * for "Error: <path>: <msg>" into `err` (one about the newest snapshot
 * names it).
 */
int statedir_profile_read(const char *path, struct profile *p, char *err, size_t errlen);

#endif
