/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The schema: every probe family and every value it records, described
 * once.  The profile writer and reader, report (text, JSON, CSV), the metric
 * namespace of compare and gate, and compare's text and HTML all loop over
 * these tables, so a counter is a field in bpf/permscope.h plus one row here.
 *
 * A row is one of:
 *   COUNT    a __u64 in the family's stats struct;
 *   OUTCOME  a __u64 call count plus its latency histogram (struct hist):
 *            the outcomes of one call partition the calls;
 *   ERRNOS   a __u64 array indexed by errno, keyed by errno name;
 *   SUM      derived: the sum of the rows in `terms`;
 *   RATIO    derived: the sum of `terms` over the sum of `whole`, 0 when
 *            the whole is 0 (computed only in schema_value()).
 * A per-fs family (lookup) has one stats struct per filesystem.
 *
 * A family's rows are an array indexed by its enum below (designated
 * initializers), so code names a row by its enum, never by a string, and a
 * row can go anywhere: its enum's place is its place in every output.
 * Masks (`terms`, `whole`) are bits of that enum, hence at most 32 rows.
 */
#ifndef PERMSCOPE_SCHEMA_H
#define PERMSCOPE_SCHEMA_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "permscope.h"

/*
 * The probe families, in the order of every output: X(ID, name, place) each.
 * `name` names its BPF program (bpf/NAME.bpf.c), its stats struct (struct
 * NAME_stats, bpf/permscope.h) and its glue (NAME_ops, src/probe/family_NAME.c);
 * `place` is ONE (one stats struct, a member `name` of struct profile) or
 * PER_FS (one a filesystem, in struct fs_result).  The enum, the stats
 * union, the engine's table of glue and the profile's members and places
 * are made from this list, so a family is one line here: a missing glue
 * file is then a link error, a missing descriptor (schema.c) a failure of
 * test_schema.
 */
#define PERMSCOPE_FAMILIES(X) \
	X(LOOKUP, lookup, PER_FS) \
	X(ACCESS, access, ONE)    \
	X(EXEC, exec, ONE)

enum family_id {
#define FAMILY_ENUM(id, name, place) FAMILY_##id,
	PERMSCOPE_FAMILIES(FAMILY_ENUM)
#undef FAMILY_ENUM
	FAMILY_COUNT
};

/* lookup's rows, in the order of every output. */
enum lookup_row {
	L_CHECKS, L_DID_SKIP, L_WOULD_SKIP, L_OPT_IN, L_VIOLATIONS, L_DID_SKIP_RATIO,
	L_WOULD_SKIP_RATIO, L_INEL_MODE, L_INEL_ACL, L_INEL_ACL_NOT_CACHED, L_INEL_NOT_OPTED_IN,
	L_ORIGIN_WALK, L_ORIGIN_CHDIR, L_ORIGIN_ACCESS, L_ORIGIN_CALLER, L_ORIGIN_MASK,
	L_WALK_WOULD_SKIP, L_WALK_DID_SKIP_RATIO, L_WALK_WOULD_SKIP_RATIO, L_NESTED, L_IP_CALLS,
	L_NO_LSM_CHECK, L_RACING, L_FIRST_CHECK,
	L_ROWS
};

/* access's rows. */
enum access_row {
	A_CALLS, A_NEEDED, A_AVOIDABLE, A_FAST, A_UNSAFE, A_AVOIDABLE_PER_CALL, A_NEEDED_PER_CALL,
	A_FAST_RATIO, A_EACCESS, A_DROPS,
	A_ROWS
};

/* exec's rows. */
enum exec_row {
	E_CALLS, E_OK, E_ENOENT_EARLY, E_ENOENT_LATE, E_ERROR_OTHER, E_ERRNO, E_ENOENT,
	E_ENOENT_EARLY_SHARE, E_ENOENT_LATE_SHARE, E_MM_ALLOCS, E_DROPS,
	E_ROWS
};

/* A row index that names no row (a family without a drops count). */
#define NO_ROW (-1)

/* The order a family tries them in. */
enum attach_mode { MODE_NONE, MODE_FENTRY, MODE_KPROBE, MODE_TRACEPOINT, MODE_COUNT };

enum family_status {
	FAMILY_NOT_REQUESTED, /* not in --families */
	FAMILY_OK,
	FAMILY_UNAVAILABLE,   /* no mode could attach: see attempts */
	FAMILY_STATUSES,
};

enum row_kind { ROW_COUNT, ROW_OUTCOME, ROW_ERRNOS, ROW_SUM, ROW_RATIO };
enum row_fill { FILL_NONE, FILL_SUM, FILL_DIFF };

/* Row flags: how the text report shows a row. */
#define ROW_TEXT        0x1 /* a line "  MEANING: VALUE" under the family's table */
#define ROW_TEXT_NONZERO 0x2 /* ... only when it is not 0 */

struct schema_row {
	const char *name;    /* JSON key and metric name component */
	const char *group;   /* JSON object the COUNT sits in ("ineligible"), or NULL */
	const char *label;   /* grouped: the Prometheus label its name goes in ("reason") */
	enum row_kind kind;
	size_t offset;       /* of the __u64 (COUNT, OUTCOME) or array (ERRNOS) */
	size_t hist_offset;  /* OUTCOME: of its struct hist */
	uint32_t terms;      /* SUM, RATIO: rows added up (bit i: row i) */
	uint32_t whole;      /* RATIO: the denominator's rows; a DIFF-filled COUNT: the subtrahend */
	const char *latency; /* SUM over outcomes: metric prefix of the merged latency
			      * ("" for the family's own, "enoent" for exec.enoent), or NULL */
	/*
	 * A COUNT the programs leave out to save instructions on every event,
	 * filled in by schema_fill() when the maps are read: the sum of
	 * `terms`, or `terms` minus `whole` (0 below).  Still a COUNT: profiles
	 * store it, and profiles from before its terms existed carry only it.
	 */
	enum row_fill fill;
	unsigned int flags;
	const char *was;     /* the key profiles used before a rename, still read */
	const char *meaning; /* one line for report and --help */
};

/* Room for any family's stats struct (a sum over filesystems, say). */
union family_stats {
#define FAMILY_STATS(id, name, place) struct name##_stats name;
	PERMSCOPE_FAMILIES(FAMILY_STATS)
#undef FAMILY_STATS
};

struct family_schema {
	enum family_id id;
	const char *name;    /* lookup, access, exec */
	const char *title;   /* section heading of report and compare */
	unsigned int modes;  /* bit per enum attach_mode it can attach in */
	bool per_fs;         /* one stats struct per filesystem */
	size_t stats_size;
	const struct schema_row *rows;
	int nrows;
	int events;          /* the row counting its events: what a loss is a share of */
	int drops;           /* the row counting events not followed (no task storage), or NO_ROW */
	/*
	 * The metrics compare shows, in order ("[]": every filesystem); the
	 * whole namespace stays available to gate.
	 */
	const char *const *compare_shown;
	/*
	 * What --lean leaves out: these rows (absent then), and the latency
	 * histograms of a family that has them (schema_has_latency()).
	 */
	uint32_t lean_absent;
};

extern const struct family_schema schema[FAMILY_COUNT];

/*
 * The names in texts fixed when compiling (argp's --help), in enum order;
 * test_schema holds them to schema[] and mode_name().  Texts made at run
 * time list the names with names_text().
 */
#define FAMILY_NAMES "lookup,access,exec"
#define MODE_NAMES   "fentry,kprobe,tracepoint"

const char *family_name(enum family_id f);
int family_by_name(const char *name); /* -1 when unknown */
const char *mode_name(enum attach_mode m);
int mode_by_name(const char *name);   /* -1 when unknown */
/* The JSON spelling "ok", "unavailable", "not_requested", and its text "not requested". */
const char *family_status_name(enum family_status s);
int family_status_by_name(const char *name);
const char *family_status_text(enum family_status s);
/*
 * "lookup, access or exec" (last_sep "or"; NULL: "lookup, access, exec"),
 * "fentry, kprobe or tracepoint": into buf.
 */
const char *family_names_text(char *buf, size_t size, const char *last_sep);
const char *mode_names_text(char *buf, size_t size, const char *last_sep);

/* "TITLE:\n  key  meaning\n..." for every family: what --help lists. malloc'ed. */
char *schema_describe(void);

/*
 * The row called `name` (group_name for a grouped COUNT), or -1: for names
 * that come from outside (a rule, a profile); code names rows by enum.
 */
int schema_row_index(enum family_id f, const char *name);
/* "ineligible_mode" for a grouped row, else the name: metric and CSV key. */
const char *schema_row_key(const struct schema_row *r, char *buf, size_t size);

/*
 * Rows absent from a profile written before they existed: bit per row.
 * A value that depends on an absent row is absent too.
 */
bool schema_row_absent(const struct family_schema *fs, int row, uint32_t absent);

/* The value of any row but ERRNOS from one stats struct. */
/* A COUNT, OUTCOME or SUM row exactly (a SUM saturates at UINT64_MAX); 0 for others. */
uint64_t schema_count(const struct family_schema *fs, int row, const void *stats);
double schema_value(const struct family_schema *fs, int row, const void *stats);
/* A RATIO row's denominator, the count it is a share of; 0 for other rows. */
uint64_t schema_ratio_whole(const struct family_schema *fs, int row, const void *stats);
/* A COUNT or OUTCOME's counter, and an OUTCOME's histogram, in `stats`. */
__u64 *schema_counter(const struct schema_row *r, const void *stats);
struct hist *schema_hist(const struct schema_row *r, const void *stats);
/* The merged latency of the OUTCOME rows in `terms`. */
void schema_latency(const struct family_schema *fs, uint32_t terms, const void *stats,
		    struct hist *out);

/*
 * Make a reading taken while the programs run agree with itself: a program
 * counts an event in its OUTCOME's calls, a bucket and the histogram's
 * count one after the other, so a read can catch it in some but not yet
 * all.  The buckets decide: calls and count are set to their sum, and the
 * event in flight is in the next reading.  Without `latency` (--lean: the
 * programs count no histogram) the calls stand and the histograms are 0.
 */
void schema_settle(const struct family_schema *fs, void *stats, bool latency);

/* Does the family keep latency histograms (has it OUTCOME rows)? */
bool schema_has_latency(const struct family_schema *fs);

/* Zero every OUTCOME's histogram: a latency not measured (--lean) holds nothing. */
void schema_clear_latency(const struct family_schema *fs, void *stats);

/* Compute the filled COUNTs (struct schema_row's `fill`) of a reading of the maps. */
void schema_fill(const struct family_schema *fs, void *stats);

/* The JSON key of an errno count: "ENOENT", "errno41", "other" (index 0). */
const char *errno_key(int e, char *buf, size_t size);
int errno_by_key(const char *key); /* -1 when unknown */

/* into += from for stats structs made only of __u64 counters. */
void counters_add(void *into, const void *from, size_t bytes);
/* into -= from, the same way: `from` an earlier reading of the same counters. */
void counters_sub(void *into, const void *from, size_t bytes);

/*
 * A metric name as a profile's runs carried it before its counter was
 * renamed (FAMILY.WAS, FAMILY.WAS[fs]: the row's `was`), under the name it
 * has now, written into buf; any other name is returned as it is.
 */
const char *schema_metric_renamed(const char *name, char *buf, size_t size);

#endif
