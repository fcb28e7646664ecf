// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "statedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define SNAP_PREFIX "snap-"
#define TOTAL_SUFFIX ".total.json"
#define DELTA_SUFFIX ".delta.json"

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * The number of a snapshot file "snap-SEQ-TIME.{total,delta}.json"; false
 * for anything else (the lock, a temporary file, a stranger's file).
 */
static bool snapshot_seq(const char *name, bool *total, uint64_t *seq)
{
	char *end;

	if (strncmp(name, SNAP_PREFIX, strlen(SNAP_PREFIX)))
		return false;
	*total = has_suffix(name, TOTAL_SUFFIX);
	if (!*total && !has_suffix(name, DELTA_SUFFIX))
		return false;
	name += strlen(SNAP_PREFIX);
	if (*name < '0' || *name > '9')
		return false;
	errno = 0;
	*seq = strtoull(name, &end, 10);
	return !errno && *end == '-';
}

/* Call fn for every entry of the directory open at `dirfd`. */
static int each_entry(int dirfd, void (*fn)(const char *name, void *ctx), void *ctx)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(d)))
		fn(de->d_name, ctx);
	closedir(d);
	return 0;
}

struct scan {
	int dirfd;
	uint64_t max_seq, newest_total, below; /* below: delete snapshots numbered < this */
	bool any, any_total;
	char newest[NAME_MAX + 1];
};

static void scan_entry(const char *name, void *ctx)
{
	struct scan *s = ctx;
	uint64_t seq;
	bool total;

	/* What a write killed half way left: write_file_atomic's PATH.tmp.XXXXXX. */
	if (s->dirfd >= 0 && !strncmp(name, SNAP_PREFIX, strlen(SNAP_PREFIX)) &&
	    strstr(name, ".json.tmp.")) {
		unlinkat(s->dirfd, name, 0);
		return;
	}
	if (!snapshot_seq(name, &total, &seq))
		return;
	if (!s->any || seq > s->max_seq)
		s->max_seq = seq;
	s->any = true;
	if (total && (!s->any_total || seq > s->newest_total)) {
		s->newest_total = seq;
		s->any_total = true;
		copy_truncated(s->newest, name, sizeof(s->newest));
	}
}

static void prune_entry(const char *name, void *ctx)
{
	struct scan *s = ctx;
	uint64_t seq;
	bool total;

	if (snapshot_seq(name, &total, &seq) && seq < s->below)
		unlinkat(s->dirfd, name, 0);
}

/* mkdir -p, each new level 0750. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

static int take_lock(struct statedir *sd, char *err, size_t errlen)
{
	char pid[32] = "";
	ssize_t n;

	sd->lockfd = openat(sd->dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (sd->lockfd < 0) {
		snprintf(err, errlen, "%s/lock: %s", sd->path, strerror(errno));
		return -1;
	}
	if (flock(sd->lockfd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		n = pread(sd->lockfd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		sd->busy = e == EWOULDBLOCK;
		if (e == EWOULDBLOCK)
			snprintf(err, errlen, "%s is in use by another permscope daemon%s%s%s; stop "
				 "it first, or give this one another --state-dir", sd->path,
				 pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
		else
			snprintf(err, errlen, "%s/lock: %s", sd->path, strerror(e));
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(sd->lockfd, 0) || pwrite(sd->lockfd, pid, n, 0) != n) {
		snprintf(err, errlen, "%s/lock: %s", sd->path, strerror(errno));
		return -1;
	}
	return 0;
}

int statedir_open(struct statedir *sd, const char *path, unsigned int keep,
		  char *err, size_t errlen)
{
	struct scan s = { .dirfd = -1 };
	struct stat st;
	int e;

	memset(sd, 0, sizeof(*sd));
	sd->dirfd = sd->lockfd = -1;
	sd->keep = keep;
	if (strlen(path) >= sizeof(sd->path) - 64) {
		snprintf(err, errlen, "--state-dir: path too long");
		return -1;
	}
	strcpy(sd->path, path);
	if ((e = make_dirs(path))) {
		snprintf(err, errlen, "cannot create state directory %s: %s", path, strerror(-e));
		return -1;
	}
	sd->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sd->dirfd < 0 || fstat(sd->dirfd, &st)) {
		snprintf(err, errlen, "state directory %s: %s", path, strerror(errno));
		statedir_close(sd);
		return -1;
	}
	/*
	 * The daemon writes and deletes files here as root: a directory that
	 * someone else owns or may write to would let them choose what.
	 */
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "state directory %s is %s; it must be the daemon's alone "
			 "(chown %u and chmod go-w it, or pick another --state-dir)", path,
			 st.st_uid != geteuid() ? "owned by another user" : "writable by others",
			 (unsigned int)geteuid());
		statedir_close(sd);
		return -1;
	}
	if (take_lock(sd, err, errlen)) {
		statedir_close(sd);
		return -1;
	}
	s.dirfd = sd->dirfd;
	if ((e = each_entry(sd->dirfd, scan_entry, &s))) {
		snprintf(err, errlen, "reading state directory %s: %s", path, strerror(-e));
		statedir_close(sd);
		return -1;
	}
	sd->next_seq = s.any ? s.max_seq + 1 : 1;
	/* A smaller --keep than last time takes effect now, not after `keep` intervals. */
	s.below = sd->next_seq > keep ? sd->next_seq - keep : 0;
	each_entry(sd->dirfd, prune_entry, &s);
	return 0;
}

int statedir_snapshot(struct statedir *sd, const struct profile *total,
		      const struct profile *delta, char *name, size_t namelen)
{
	char stamp[32], path[PATH_MAX + 64];
	uint64_t seq = sd->next_seq;
	time_t t = total->end_ns / 1000000000ULL;
	struct tm tm;
	int err;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* The delta first: a total never names an interval whose delta is missing. */
	snprintf(path, sizeof(path), "%s/" SNAP_PREFIX "%08" PRIu64 "-%s" DELTA_SUFFIX, sd->path,
		 seq, stamp);
	if ((err = profile_write(delta, path)))
		return err;
	snprintf(path, sizeof(path), "%s/" SNAP_PREFIX "%08" PRIu64 "-%s" TOTAL_SUFFIX, sd->path,
		 seq, stamp);
	if ((err = profile_write(total, path)))
		return err;
	copy_truncated(name, path, namelen);
	sd->next_seq++;
	/* Names carry a time, so old ones are found by number: one readdir. */
	if (seq >= sd->keep) {
		struct scan s = { .dirfd = sd->dirfd, .below = seq - sd->keep + 1 };

		each_entry(sd->dirfd, prune_entry, &s);
	}
	return 0;
}

void statedir_close(struct statedir *sd)
{
	if (sd->lockfd >= 0)
		close(sd->lockfd); /* releases the flock; the file stays, harmless */
	if (sd->dirfd >= 0)
		close(sd->dirfd);
	sd->lockfd = sd->dirfd = -1;
}

int statedir_newest_total(const char *dir, char *out, size_t outlen, char *err, size_t errlen)
{
	struct scan s = { .dirfd = -1 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	e = each_entry(fd, scan_entry, &s);
	close(fd);
	if (e) {
		snprintf(err, errlen, "%s", strerror(-e));
		return -1;
	}
	if (!s.any_total) {
		snprintf(err, errlen, "a directory without snapshots (a daemon's state directory "
			 "holds snap-*.total.json once its first interval has passed)");
		return -1;
	}
	if ((size_t)snprintf(out, outlen, "%s/%s", dir, s.newest) >= outlen) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	return 0;
}

int statedir_profile_read(const char *path, struct profile *p, char *err, size_t errlen)
{
	char newest[PATH_MAX];
	struct stat st;

	/* a missing path too goes to profile_read(), which says "cannot open" */
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return profile_read(path, p, err, errlen);
	if (statedir_newest_total(path, newest, sizeof(newest), err, errlen))
		return -1;
	return profile_read_named(newest, strrchr(newest, '/') + 1, p, err, errlen);
}
