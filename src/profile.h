/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A recording: where and when it ran, how each family attached, and what it
 * counted.  Stored as JSON, "permscope-profile/1" (docs/profile-format.md).
 */
#ifndef PERMSCOPE_PROFILE_H
#define PERMSCOPE_PROFILE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "permscope.h"

#define PROFILE_FORMAT "permscope-profile/1"

enum family_id { FAMILY_LOOKUP, FAMILY_ACCESS, FAMILY_EXEC, FAMILY_COUNT };

/* The order a family tries them in. */
enum attach_mode { MODE_NONE, MODE_FENTRY, MODE_KPROBE, MODE_TRACEPOINT, MODE_COUNT };

enum family_status {
	FAMILY_NOT_REQUESTED,
	FAMILY_OK,
	FAMILY_UNAVAILABLE, /* no mode could attach: see attempts */
};

#define MAX_ATTEMPTS 3

struct attach_attempt {
	enum attach_mode mode;
	int err;        /* positive errno, 0 when the mode was not tried */
	char why[256];  /* what failed, with a hint */
};

struct family_result {
	enum family_status status;
	enum attach_mode mode;
	struct attach_attempt attempts[MAX_ATTEMPTS];
	int nattempts;
};

/* lookup.ineligible_acl_not_cached[ + a 31-byte fs name + ] fits whole. */
#define METRIC_NAME_LEN 80

/* One named value of the flat metric namespace (src/metrics.h). */
struct metric {
	char name[METRIC_NAME_LEN];
	double value;
};

struct metric_list {
	struct metric *m;
	size_t n, cap;
};

struct fs_result {
	char name[FS_NAME_LEN];
	struct lookup_stats s;
};

struct profile {
	char tool_version[32];
	char hostname[65];
	char kernel_release[65];
	char kernel_version[65];
	char machine[65];
	char boot_id[40];

	char **command;   /* workload argv, NULL-terminated; NULL when none */
	int exit_status;  /* exit status, 128 + signal if killed; -1: none, or stopped by us */
	int filter_pid;   /* 0: none */
	char filter_comm[16];

	uint64_t start_ns, end_ns; /* CLOCK_REALTIME */

	struct family_result fam[FAMILY_COUNT];
	struct access_stats access;
	struct exec_stats exec;
	struct fs_result *fs; /* sorted by name */
	size_t nfs;

	/* A merged profile (permscope merge): the metrics of each run merged. */
	struct metric_list *runs;
	size_t nruns;
};

const char *family_name(enum family_id f);
int family_by_name(const char *name); /* -1 when unknown */
const char *mode_name(enum attach_mode m);
int mode_by_name(const char *name);   /* -1 when unknown */
extern const char *const access_outcome_names[ACCESS_OUTCOMES];
extern const char *const exec_outcome_names[EXEC_OUTCOMES];
const char *lookup_reason_name(enum lookup_reason r);

/* The JSON key of an exec errno count: "ENOENT", "errno41", "other" (index 0). */
const char *errno_key(int e, char *buf, size_t size);

/*
 * into += from for stats structs made only of __u64 counters (access_stats,
 * exec_stats, lookup_stats, struct hist): `bytes` is their size.
 */
void counters_add(void *into, const void *from, size_t bytes);

/*
 * The one mode-mismatch policy: family `f` recorded in both profiles but
 * in different attach modes, which changes what its probes see and cost.
 * True with `why` set to "the F family attached with M1 in A but M2 in B"
 * (A and B name the two profiles); the caller says what it does about it.
 */
bool family_modes_differ(const struct profile *a, const char *a_name,
			 const struct profile *b, const char *b_name, enum family_id f,
			 char *why, size_t len);

void profile_init(struct profile *p);
void profile_free(struct profile *p);
/* Fill host and kernel identity from uname() and /proc. */
void profile_set_host(struct profile *p);
struct fs_result *profile_add_fs(struct profile *p, const char *name);
void profile_sort_fs(struct profile *p);

/*
 * Write atomically: a temporary file beside `path`, fsync, rename.  Never
 * follows a symlink at the temporary name.  Returns 0 or -errno.
 */
int profile_write(const struct profile *p, const char *path);
/* Serialise to a malloc'ed JSON string. */
char *profile_to_json(const struct profile *p);

/*
 * Read strictly.  On failure returns -1 and puts a message fit for
 * "Error: <path>: <msg>" into `err`.
 */
int profile_read(const char *path, struct profile *p, char *err, size_t errlen);
int profile_from_json(const char *text, struct profile *p, char *err, size_t errlen);

#endif
