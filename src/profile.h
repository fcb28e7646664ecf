/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A recording: where and when it ran, how each family attached, and what it
 * counted.  Stored as JSON, "permscope-profile/1" (docs/profile-format.md).
 * The model is profile.c's; the JSON is written by profile_write.c and read,
 * strictly, by profile_read.c.
 */
#ifndef PERMSCOPE_PROFILE_H
#define PERMSCOPE_PROFILE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "permscope.h"
#include "schema.h"
#include "version.h"

#define PROFILE_FORMAT "permscope-profile/1"
/* The largest profile read: a daemon's total of a busy year is under 1 MiB. */
#define PROFILE_MAX_BYTES (64u << 20)

#define MAX_ATTEMPTS 3

struct attach_attempt {
	enum attach_mode mode;
	int err;        /* positive errno, 0 when the mode was not tried */
	char why[256];  /* what failed, with a hint */
};

#define MAX_LOST 16

/* Events a family could not count, by what lost them (a program, a table). */
struct lost_count {
	char what[48];
	uint64_t count;
};

/*
 * What a daemon's counts cover: NS of watching, in WINDOWS windows of
 * WINDOW_NS every PERIOD_NS (both 0: always on, NS since attach); FAILED
 * windows it could not attach for.  All 0 in a recording, which watches
 * from its start to its end (family_observed_ns()).
 */
struct observation {
	uint64_t window_ns, period_ns;
	uint64_t ns;
	uint64_t windows, failed;
};

struct family_result {
	enum family_status status;
	enum attach_mode mode;
	struct attach_attempt attempts[MAX_ATTEMPTS];
	int nattempts;
	bool lost_known; /* false: a profile from before losses were read */
	struct lost_count lost[MAX_LOST];
	int nlost;
	struct observation observed;
	/*
	 * Recorded with --lean: the rows it leaves out (schema lean_absent) are
	 * absent for that, not for age, and so are the latency histograms.
	 */
	bool lean;
	/*
	 * The latency histograms are not known (--lean, or a host whose
	 * latency series are not in Prometheus): every latency metric is
	 * absent, never the 0 of an empty histogram.
	 */
	bool no_latency;
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

/* One recording, as merge tells it from another: its host and boot, its start and end. */
struct recording_ref {
	char hostname[65];
	char boot_id[40];
	uint64_t start_ns, end_ns;
};
/*
 * The fourth fast path, a fact of the kernel rather than a count: does
 * struct cred's refcount (usage) keep off the cacheline permission checks
 * read?  UNKNOWN where no layout could be read (no struct cred with a usage
 * in the BTF): never taken for either answer.  check's self-test prints it
 * (kernel/credlayout.c decides it), every profile keeps it, and the gate
 * judges it as the metric cred.refcount_shares_line.
 */
enum cred_layout_answer { CRED_LAYOUT_UNKNOWN, CRED_LAYOUT_SEPARATED, CRED_LAYOUT_SHARES };
extern const char *const cred_layout_answer_names[3]; /* "unknown", "separated", "shares" */
/* The answer spelt NAME, or -1. */
int cred_layout_answer_by_name(const char *name);

/* The longest "mixed" a profile holds (merge --allow-mixed). */
#define PROFILE_MIXED_MAX 1024

struct profile {
	char tool_version[64];
	/* The build that recorded it (profile_set_host(): version, revision,
	 * libbpf); all "" in a profile written before builds were kept. */
	struct build_info build;
	char hostname[65];
	char kernel_release[65];
	char kernel_version[65];
	char machine[65];
	char boot_id[40];
	/* The kernel's clocksource when recorded ("" when unknown, as in
	 * profiles written before it was kept): see profile_clock_is_coarse(). */
	char clocksource[32];
	/*
	 * struct cred's refcount line in the kernel that recorded, read from
	 * its BTF when the recording began (a merge of runs that differ:
	 * UNKNOWN); cred_line_kept is false in a profile written before it was
	 * kept, which says nothing about it.
	 */
	bool cred_line_kept;
	enum cred_layout_answer cred_line;

	char **command;   /* workload argv, NULL-terminated; NULL when none */
	int exit_status;  /* exit status, 128 + signal if killed; -1: none, or stopped by us */
	int filter_pid;   /* 0: none */
	char filter_comm[16];
	char filter_cgroup[4096]; /* --cgroup's directory, absolute; "" for none */

	uint64_t start_ns, end_ns; /* CLOCK_REALTIME */

	struct family_result fam[FAMILY_COUNT];
	/*
	 * Rows of each family's schema this profile lacks (bit per row): it
	 * was written before they existed (docs/profile-format.md).
	 */
	uint32_t absent[FAMILY_COUNT];
	/* each family with ONE stats struct: struct access_stats access; ... */
#define PROFILE_STATS_ONE(name) struct name##_stats name;
#define PROFILE_STATS_PER_FS(name)
#define PROFILE_STATS(id, name, place) PROFILE_STATS_##place(name)
	PERMSCOPE_FAMILIES(PROFILE_STATS)
#undef PROFILE_STATS
#undef PROFILE_STATS_PER_FS
#undef PROFILE_STATS_ONE
	struct fs_result *fs; /* sorted by name; a PER_FS family's stats */
	size_t nfs;

	/* A merged profile (permscope merge): the metrics of each run merged. */
	struct metric_list *runs;
	size_t nruns;
	/*
	 * And the recording behind each run (nrecordings == nruns), so that
	 * merge can refuse one recording twice; none in a profile merged
	 * before they were kept.
	 */
	struct recording_ref *recordings;
	size_t nrecordings;
	/* merge --allow-mixed: what differs among the runs, or NULL (malloc'ed) */
	char *mixed;
};

/*
 * The stats struct of family `f`: the profile's own, or filesystem `fs`'s
 * for a per-fs family.  profile_nstats() says how many there are.
 */
void *profile_stats(const struct profile *p, enum family_id f, size_t fs);
size_t profile_nstats(const struct profile *p, enum family_id f);
/* Row `row` (COUNT, OUTCOME or SUM) of family `f` over all its stats structs, saturating. */
uint64_t profile_count(const struct profile *p, enum family_id f, int row);

/*
 * How a family recorded, in one word: the mode it attached in, else its
 * status, as text ("not requested") or as JSON spells it ("not_requested").
 */
const char *family_state_text(const struct family_result *r);
const char *family_state_name(const struct family_result *r);

/*
 * The one mode-mismatch policy, for family `f` recorded in both profiles.
 * fentry and kprobe hook the same kernel functions, so they see the same
 * calls and their counts compare (every pinned kernel counts alike in both,
 * docs/kernels.md); but a latency is timed around the probes' own work,
 * which costs more in kprobe mode.  Tracepoint mode hooks other points
 * (the syscall tracepoints, the slab allocator), so it sees other calls.
 * The default mode differs between kernels (kprobe where a BPF program
 * can be preempted), so two kernels' profiles often pair fentry and kprobe.
 */
enum mode_match {
	MODES_SAME,
	MODES_SAME_CALLS, /* fentry against kprobe: counts compare, latencies do not */
	MODES_DIFFER,     /* tracepoint against a function hook */
};

/*
 * How family `f`'s modes in A and B relate; unless MODES_SAME, `why` is
 * "the F family attached with M1 in A but M2 in B" (A and B name the two
 * profiles), and the caller says what it does about it.
 */
enum mode_match family_modes_match(const struct profile *a, const char *a_name,
				   const struct profile *b, const char *b_name, enum family_id f,
				   char *why, size_t len);

/* Add `count` events lost by `what` (a program name, a table) to `r`. */
void family_add_lost(struct family_result *r, const char *what, uint64_t count);

/*
 * One loaded program's run statistics, which the kernel keeps while
 * BPF_ENABLE_STATS (or sysctl kernel.bpf_stats_enabled) is on: runs and
 * the time they took, since stats were enabled.
 */
struct program_runs {
	char program[64];
	enum family_id family;
	__u64 run_count, run_time_ns;
};
/* Their sum: 0 also when not known. */
uint64_t family_lost_total(const struct family_result *r);
/*
 * How long the family's counts watched: observed.ns where a daemon says,
 * else the profile's span (end - start).  Rates are per observed second.
 */
uint64_t family_observed_ns(const struct profile *p, enum family_id f);
/* Counted in windows with pauses between them (daemon --duty-cycle). */
bool family_duty_cycled(const struct family_result *r);
/* The duty cycle, "0.2 s in every 15 s", or "always on".  Returns buf. */
const char *family_coverage_text(const struct family_result *r, char *buf, size_t len);
/*
 * What the counts watched, "4 s in 20 windows of 0.2 s every 15 s, 1
 * failed": "" for an always-on family.  Returns buf.
 */
const char *family_watched_text(const struct family_result *r, char *buf, size_t len);
/* Two families sample alike: both always on, or the same window in the same period. */
bool family_sampled_alike(const struct family_result *a, const struct family_result *b);
/* What a family counted, in its events row (lookup's checks, the calls of the others). */
double family_events(const struct profile *p, enum family_id f);

void profile_init(struct profile *p);
void profile_free(struct profile *p);
/*
 * Make `dst` a copy of `src` that owns buffers of its own (command, fs,
 * runs), for profile_free() to free apart from `src`'s.  0, or -ENOMEM
 * with `dst` holding nothing to free.
 */
int profile_copy(struct profile *dst, const struct profile *src);
/* `to`, a new list, holds a copy of `from`'s metrics (a buffer of its own).  0 or -ENOMEM. */
int metric_list_copy(struct metric_list *to, const struct metric_list *from);
/* Fill host and kernel identity from uname() and /proc. */
void profile_set_host(struct profile *p);

/*
 * Whether the profile's latencies came from a clock too coarse to time a
 * system call: a jiffies clocksource (a guest that found no HPET, PM timer
 * or calibrated TSC) steps every few milliseconds, so nearly every latency
 * reads 0.  Counts are exact either way.
 */
bool profile_clock_is_coarse(const struct profile *p);
/* Filesystem `name`'s results, or NULL; profile_add_fs() adds it when missing. */
const struct fs_result *profile_find_fs(const struct profile *p, const char *name);
struct fs_result *profile_add_fs(struct profile *p, const char *name);
/* into += from, every family's counters (per filesystem where per-fs). 0 or -ENOMEM. */
int profile_add(struct profile *into, const struct profile *from);
/*
 * into -= from, the same counters: `from` an earlier reading of the running
 * totals `into` holds (the daemon's interval deltas).  0 or -ENOMEM.
 */
int profile_sub(struct profile *into, const struct profile *from);
void profile_sort_fs(struct profile *p);
/*
 * The largest count a profile holds: JSON integers are read as int64
 * (jansson's json_int_t), so a larger one would come back negative.
 */
#define PROFILE_COUNT_MAX ((uint64_t)INT64_MAX)
/* Whether every counter and loss of `p` is at most PROFILE_COUNT_MAX (a merge may pass it). */
bool profile_counts_fit(const struct profile *p);

/*
 * Write atomically: a temporary file beside `path`, fsync, rename.  Never
 * follows a symlink at the temporary name.  Returns 0 or -errno.
 */
int profile_write(const struct profile *p, const char *path);
/* Serialise to a malloc'ed JSON string. */
char *profile_to_json(const struct profile *p);

/*
 * Read the file at `path` strictly.  On failure returns -1 and puts a
 * message fit for "Error: <path>: <msg>" into `err`.  The commands read
 * what they are given with statedir_profile_read() (src/statedir.h), which
 * also takes a daemon's state directory.
 */
int profile_read(const char *path, struct profile *p, char *err, size_t errlen);
/*
 * profile_read() of a file the user named by another path (a state
 * directory, for its newest snapshot `name`): when the file cannot be read
 * at all, `err` starts with "<name>: ".
 */
int profile_read_named(const char *path, const char *name, struct profile *p, char *err,
		       size_t errlen);
int profile_from_json(const char *text, struct profile *p, char *err, size_t errlen);

#endif
