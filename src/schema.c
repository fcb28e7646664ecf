// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define BIT(i) (1U << (i))

#define COUNT(st, field, fl, text) \
	{ .name = #field, .kind = ROW_COUNT, .offset = offsetof(st, field), .flags = (fl), \
	  .meaning = (text) }
/* A COUNT schema_fill() computes: the sum of `t`, or `t` minus `w`. */
#define FILLED(st, field, how, t, w, text) \
	{ .name = #field, .kind = ROW_COUNT, .offset = offsetof(st, field), .fill = (how), \
	  .terms = (t), .whole = (w), .meaning = (text) }
#define OUTCOME(st, key, idx, fl, text) \
	{ .name = (key), .kind = ROW_OUTCOME, .offset = offsetof(st, calls[idx]), \
	  .hist_offset = offsetof(st, latency[idx]), .flags = (fl), .meaning = (text) }
#define SUM(key, t, lat, text) \
	{ .name = (key), .kind = ROW_SUM, .terms = (t), .latency = (lat), .meaning = (text) }
#define RATIO(key, t, w, fl, text) \
	{ .name = (key), .kind = ROW_RATIO, .terms = (t), .whole = (w), .flags = (fl), \
	  .meaning = (text) }

_Static_assert(L_ROWS <= 32 && A_ROWS <= 32 && E_ROWS <= 32,
	       "a row mask (terms, whole) is 32 bits");

/* ---- lookup: MAY_EXEC on directories, per filesystem --------------------- */

/* Row L_INEL_X reads ineligible[LOOKUP_INEL_X]; row L_ORIGIN_X reads origin[LOOKUP_ORIGIN_X]. */
#define INELIGIBLE(x, key, text) [L_INEL_##x] = \
	{ .name = (key), .group = "ineligible", .label = "reason", .kind = ROW_COUNT, \
	  .offset = offsetof(struct lookup_stats, ineligible[LOOKUP_INEL_##x]), .meaning = (text) }
#define ORIGIN(x, key, text) [L_ORIGIN_##x] = \
	{ .name = (key), .group = "origin", .label = "origin", .kind = ROW_COUNT, \
	  .offset = offsetof(struct lookup_stats, origin[LOOKUP_ORIGIN_##x]), .meaning = (text) }
#define L_ORIGINS (BIT(L_ORIGIN_WALK) | BIT(L_ORIGIN_CHDIR) | BIT(L_ORIGIN_ACCESS) | \
		   BIT(L_ORIGIN_CALLER) | BIT(L_ORIGIN_MASK))

/*
 * ineligible[LOOKUP_ELIGIBLE] is never counted, so no row reads it.  Each
 * check has one origin, a check the fast path did not take was made by IP
 * (nested), and an IP call that made no SIP call returned before it
 * (no_lsm_check): the programs count none of the three.  That last one is
 * no count of denials: an RCU walk's -ECHILD, retried, lands there too,
 * and what IP returned is not read (a return probe on the hottest path).
 */
static const struct schema_row lookup_rows[L_ROWS] = {
	[L_CHECKS] = FILLED(struct lookup_stats, checks, FILL_SUM, L_ORIGINS, 0,
			    "MAY_EXEC checks on directories"),
	[L_DID_SKIP] = COUNT(struct lookup_stats, did_skip, 0,
			     "not made by an inode_permission() call: lookup's fast path took it"),
	[L_WOULD_SKIP] = COUNT(struct lookup_stats, would_skip, 0,
			       "the directory is eligible: what the fast path can skip"),
	[L_OPT_IN] = { .name = "may_exec_opt_in", .kind = ROW_COUNT,
		       .offset = offsetof(struct lookup_stats, may_exec_opt_in), .was = "flag_v2",
		       .meaning = "i_opflags & 0x80: the MAY_EXEC opt-in (v2: the precomputed flag)" },
	[L_VIOLATIONS] = COUNT(struct lookup_stats, violations, 0,
			       "full checks skipped on ineligible directories that had not just "
			       "changed"),
	[L_DID_SKIP_RATIO] = RATIO("did_skip_ratio", BIT(L_DID_SKIP), BIT(L_CHECKS), 0,
				   "share of checks skipped"),
	[L_WOULD_SKIP_RATIO] = RATIO("would_skip_ratio", BIT(L_WOULD_SKIP), BIT(L_CHECKS), 0,
				     "share of checks on eligible directories"),
	INELIGIBLE(MODE, "mode", "ineligible: (mode & 0111) != 0111"),
	INELIGIBLE(ACL, "acl", "ineligible: a POSIX ACL is cached on the inode"),
	INELIGIBLE(ACL_NOT_CACHED, "acl_not_cached",
		   "ineligible: i_acl not read yet (ext4 without cache_no_acl() at iget)"),
	INELIGIBLE(NOT_OPTED_IN, "not_opted_in",
		   "ineligible: the filesystem did not opt in (no IOP_FASTPERM, no 0x80)"),
	ORIGIN(WALK, "walk", "checks made by a path walk: the only ones the fast path can take"),
	ORIGIN(CHDIR, "chdir", "checks made by chdir() (MAY_CHDIR)"),
	ORIGIN(ACCESS, "access", "checks made by access(X_OK) and friends (MAY_ACCESS)"),
	ORIGIN(CALLER, "caller",
	       "walk-shaped checks by another caller than the path walker (overlayfs's real inode)"),
	ORIGIN(MASK, "mask", "checks with other mask bits (MAY_WRITE: create, delete)"),
	[L_WALK_WOULD_SKIP] = COUNT(struct lookup_stats, walk_would_skip, 0,
				    "path-walk checks on eligible directories"),
	[L_WALK_DID_SKIP_RATIO] = RATIO("walk_did_skip_ratio", BIT(L_DID_SKIP), BIT(L_ORIGIN_WALK),
					0, "share of path-walk checks skipped"),
	[L_WALK_WOULD_SKIP_RATIO] = RATIO("walk_would_skip_ratio", BIT(L_WALK_WOULD_SKIP),
					  BIT(L_ORIGIN_WALK), 0,
					  "share of path-walk checks on eligible directories: did = "
					  "would on a correct kernel"),
	[L_NESTED] = FILLED(struct lookup_stats, nested, FILL_DIFF, BIT(L_CHECKS), BIT(L_DID_SKIP),
			    "made by inode_permission(): the full check"),
	[L_IP_CALLS] = COUNT(struct lookup_stats, ip_calls, 0,
			     "inode_permission() calls (MAY_EXEC, a directory)"),
	[L_NO_LSM_CHECK] = { .name = "no_lsm_check", .kind = ROW_COUNT,
			     .offset = offsetof(struct lookup_stats, no_lsm_check),
			     .fill = FILL_DIFF, .terms = BIT(L_IP_CALLS), .whole = BIT(L_NESTED),
			     .was = "denied",
			     .meaning = "inode_permission() calls that made no "
					"security_inode_permission() call: refused before it "
					"(EACCES, EPERM, EROFS), or an RCU walk given up to be "
					"retried (ECHILD): not a count of denials" },
	[L_RACING] = COUNT(struct lookup_stats, racing, 0,
			   "skips of ineligible directories changed within 2 s (chmod, setfacl): "
			   "not judged"),
	[L_FIRST_CHECK] = COUNT(struct lookup_stats, first_check, 0,
				"first checks of an inode: the kernel set IOP_FASTPERM during them"),
};

static const char *const lookup_shown[] = {
	"lookup.did_skip_ratio", "lookup.would_skip_ratio", "lookup.walk_did_skip_ratio",
	"lookup.walk_would_skip_ratio", "lookup.violations", "lookup.lost",
	"lookup.checks[]", "lookup.did_skip_ratio[]", "lookup.would_skip_ratio[]",
	"lookup.violations[]", NULL,
};

/* ---- access: faccessat cred override ------------------------------------- */

#define A_OUTCOMES (BIT(A_NEEDED) | BIT(A_AVOIDABLE) | BIT(A_FAST) | BIT(A_UNSAFE))

static const struct schema_row access_rows[A_ROWS] = {
	[A_CALLS] = SUM("calls", A_OUTCOMES, "", "access, faccessat and faccessat2 calls"),
	[A_NEEDED] = OUTCOME(struct access_stats, "needed", ACCESS_NEEDED, 0,
			     "override needed, cred allocated"),
	[A_AVOIDABLE] = OUTCOME(struct access_stats, "avoidable", ACCESS_AVOIDABLE, 0,
				"not needed, allocated anyway (stock kernel)"),
	[A_FAST] = OUTCOME(struct access_stats, "fast", ACCESS_FAST, 0,
			   "not needed, no cred allocated (fast path)"),
	[A_UNSAFE] = OUTCOME(struct access_stats, "unsafe", ACCESS_UNSAFE, 0,
			     "needed, no cred allocated: VIOLATION"),
	[A_AVOIDABLE_PER_CALL] = RATIO("avoidable_per_call", BIT(A_AVOIDABLE), A_OUTCOMES,
				       ROW_TEXT, "avoidable cred allocations per call"),
	[A_NEEDED_PER_CALL] = RATIO("needed_per_call", BIT(A_NEEDED), A_OUTCOMES, 0,
				    "share of calls that needed the override"),
	[A_FAST_RATIO] = RATIO("fast_ratio", BIT(A_FAST), A_OUTCOMES, 0,
			       "share of calls on the fast path"),
	[A_EACCESS] = COUNT(struct access_stats, eaccess, ROW_TEXT | ROW_TEXT_NONZERO,
			    "calls with AT_EACCESS (never need an override)"),
	[A_DROPS] = COUNT(struct access_stats, drops, ROW_TEXT | ROW_TEXT_NONZERO,
			  "calls not followed (no task storage)"),
};

static const char *const access_shown[] = {
	"access.calls", "access.avoidable_per_call", "access.needed_per_call",
	"access.fast_ratio", "access.unsafe", "access.latency.mean", "access.latency.p50",
	"access.latency.p99", "access.lost", NULL,
};

/* ---- exec: ENOENT before mm allocation ----------------------------------- */

#define E_OUTCOMES (BIT(E_OK) | BIT(E_ENOENT_EARLY) | BIT(E_ENOENT_LATE) | BIT(E_ERROR_OTHER))
#define E_ENOENTS (BIT(E_ENOENT_EARLY) | BIT(E_ENOENT_LATE))

static const struct schema_row exec_rows[E_ROWS] = {
	[E_CALLS] = SUM("calls", E_OUTCOMES, "", "execve and execveat calls"),
	[E_OK] = OUTCOME(struct exec_stats, "ok", EXEC_OK, 0, "succeeded"),
	[E_ENOENT_EARLY] = OUTCOME(struct exec_stats, "enoent_early", EXEC_ENOENT_EARLY, 0,
				   "ENOENT before any mm (fast path)"),
	[E_ENOENT_LATE] = OUTCOME(struct exec_stats, "enoent_late", EXEC_ENOENT_LATE, 0,
				  "ENOENT after allocating an mm (stock)"),
	[E_ERROR_OTHER] = OUTCOME(struct exec_stats, "error_other", EXEC_ERROR_OTHER, 0,
				  "failed with another errno"),
	[E_ERRNO] = { .name = "errno", .kind = ROW_ERRNOS,
		      .offset = offsetof(struct exec_stats, errnos),
		      .meaning = "failed calls by errno" },
	[E_ENOENT] = SUM("enoent", E_ENOENTS, "enoent", "calls that failed with ENOENT"),
	[E_ENOENT_EARLY_SHARE] = RATIO("enoent_early_share", BIT(E_ENOENT_EARLY), E_ENOENTS, 0,
				       "share of ENOENT returned before any mm"),
	[E_ENOENT_LATE_SHARE] = RATIO("enoent_late_share", BIT(E_ENOENT_LATE), E_ENOENTS, 0,
				      "share of ENOENT returned after allocating an mm"),
	[E_MM_ALLOCS] = COUNT(struct exec_stats, mm_allocs, ROW_TEXT, "calls that allocated an mm"),
	[E_DROPS] = COUNT(struct exec_stats, drops, ROW_TEXT | ROW_TEXT_NONZERO,
			  "calls not followed (no task storage)"),
};

static const char *const exec_shown[] = {
	"exec.calls", "exec.enoent", "exec.enoent_early_share", "exec.mm_allocs",
	"exec.enoent.latency.p50", "exec.enoent.latency.p99", "exec.ok.latency.p50", "exec.lost",
	NULL,
};

/* ---- the families --------------------------------------------------------- */

/*
 * Every field is an argument, so a family cannot leave one to a default;
 * rows_ is sized by its enum, so nrows is the enum's count.
 */
#define ALL_MODES (BIT(MODE_FENTRY) | BIT(MODE_KPROBE) | BIT(MODE_TRACEPOINT))
#define FAMILY(id_, name_, title_, modes_, per_fs_, st, rows_, shown_, events_, drops_, lean_) \
	[id_] = {                                                                     \
	.id = (id_), .name = (name_), .title = (title_), .modes = (modes_),          \
	.per_fs = (per_fs_), .stats_size = sizeof(st), .rows = (rows_),               \
	.nrows = sizeof(rows_) / sizeof((rows_)[0]), .compare_shown = (shown_),       \
	.events = (events_), .drops = (drops_), .lean_absent = (lean_) }

const struct family_schema schema[FAMILY_COUNT] = {
	/* No tracepoint sits on the permission-check path. */
	FAMILY(FAMILY_LOOKUP, "lookup", "Lookup: MAY_EXEC checks on directories, per filesystem",
	       BIT(MODE_FENTRY) | BIT(MODE_KPROBE), true, struct lookup_stats, lookup_rows,
	       lookup_shown, L_CHECKS, NO_ROW,
	       BIT(L_IP_CALLS) | BIT(L_NO_LSM_CHECK) | BIT(L_FIRST_CHECK)),
	FAMILY(FAMILY_ACCESS, "access", "Access: faccessat cred override", ALL_MODES, false,
	       struct access_stats, access_rows, access_shown, A_CALLS, A_DROPS, 0),
	FAMILY(FAMILY_EXEC, "exec", "Exec: execve outcomes and ENOENT", ALL_MODES, false,
	       struct exec_stats, exec_rows, exec_shown, E_CALLS, E_DROPS, 0),
};

/* ---- names ---------------------------------------------------------------- */

static const char *const mode_names[MODE_COUNT] = {
	[MODE_NONE] = "none", [MODE_FENTRY] = "fentry",
	[MODE_KPROBE] = "kprobe", [MODE_TRACEPOINT] = "tracepoint",
};
static const char *const status_names[FAMILY_STATUSES] = {
	[FAMILY_NOT_REQUESTED] = "not_requested", [FAMILY_OK] = "ok",
	[FAMILY_UNAVAILABLE] = "unavailable",
};
static const char *const status_texts[FAMILY_STATUSES] = {
	[FAMILY_NOT_REQUESTED] = "not requested", [FAMILY_OK] = "ok",
	[FAMILY_UNAVAILABLE] = "unavailable",
};

static int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *family_name(enum family_id f) { return schema[f].name; }
const char *mode_name(enum attach_mode m) { return mode_names[m]; }
int mode_by_name(const char *n) { return index_of(mode_names, MODE_COUNT, n); }
const char *family_status_name(enum family_status s) { return status_names[s]; }
const char *family_status_text(enum family_status s) { return status_texts[s]; }

/* "a, b LAST c" of the names i in [first, n). */
static const char *names_text(char *buf, size_t size, const char *(*name)(int), int first, int n,
			      const char *last_sep)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = first; i < n && len < size; i++) {
		bool last = last_sep && i > first && i + 1 == n;

		len += snprintf(buf + len, size - len, "%s%s%s%s", i == first ? "" : last ? " " : ", ",
				last ? last_sep : "", last ? " " : "", name(i));
	}
	return buf;
}

static const char *family_name_at(int f) { return schema[f].name; }
static const char *mode_name_at(int m) { return mode_names[m]; }

const char *family_names_text(char *buf, size_t size, const char *last_sep)
{
	return names_text(buf, size, family_name_at, 0, FAMILY_COUNT, last_sep);
}

const char *mode_names_text(char *buf, size_t size, const char *last_sep)
{
	return names_text(buf, size, mode_name_at, MODE_NONE + 1, MODE_COUNT, last_sep);
}

int family_status_by_name(const char *n)
{
	return index_of(status_names, FAMILY_STATUSES, n);
}

int family_by_name(const char *n)
{
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (!strcmp(schema[f].name, n))
			return f;
	return -1;
}

const char *schema_row_key(const struct schema_row *r, char *buf, size_t size)
{
	if (!r->group)
		return r->name;
	snprintf(buf, size, "%s_%s", r->group, r->name);
	return buf;
}

int schema_row_index(enum family_id f, const char *name)
{
	char buf[64];

	for (int i = 0; i < schema[f].nrows; i++)
		if (!strcmp(schema_row_key(&schema[f].rows[i], buf, sizeof(buf)), name))
			return i;
	return -1;
}

/* "  KEY   meaning" folded before column 79 (argp's margin) under the meaning. */
static void describe_row(FILE *out, const char *key, const char *text)
{
	fold_words(out, fprintf(out, "  %-25s", key), 27, 78, text);
}

char *schema_describe(void)
{
	char *buf = NULL, key[64];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		fprintf(out, "%s%s (%s):\n", f ? "\n" : "", schema[f].title, schema[f].name);
		for (int i = 0; i < schema[f].nrows; i++)
			if (schema[f].rows[i].kind != ROW_ERRNOS)
				describe_row(out, schema_row_key(&schema[f].rows[i], key, sizeof(key)),
					     schema[f].rows[i].meaning);
	}
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- values --------------------------------------------------------------- */

bool schema_row_absent(const struct family_schema *fs, int row, uint32_t absent)
{
	const struct schema_row *r = &fs->rows[row];

	if (r->kind == ROW_SUM || r->kind == ROW_RATIO)
		return (r->terms | r->whole) & absent;
	return absent & BIT(row);
}

__u64 *schema_counter(const struct schema_row *r, const void *stats)
{
	return (__u64 *)((const char *)stats + r->offset);
}

struct hist *schema_hist(const struct schema_row *r, const void *stats)
{
	return (struct hist *)((const char *)stats + r->hist_offset);
}

/* The rows in `terms` added up, saturating at UINT64_MAX. */
static uint64_t sum_of(const struct family_schema *fs, uint32_t terms, const void *stats)
{
	uint64_t sum = 0;

	for (int i = 0; i < fs->nrows; i++)
		if (terms & BIT(i))
			sum = sat_add_u64(sum, *schema_counter(&fs->rows[i], stats));
	return sum;
}

uint64_t schema_count(const struct family_schema *fs, int row, const void *stats)
{
	const struct schema_row *r = &fs->rows[row];

	if (r->kind == ROW_COUNT || r->kind == ROW_OUTCOME)
		return *schema_counter(r, stats);
	return r->kind == ROW_SUM ? sum_of(fs, r->terms, stats) : 0;
}

double schema_value(const struct family_schema *fs, int row, const void *stats)
{
	const struct schema_row *r = &fs->rows[row];
	double whole;

	switch (r->kind) {
	case ROW_COUNT:
	case ROW_OUTCOME:
	case ROW_SUM:
		return schema_count(fs, row, stats);
	case ROW_RATIO:
		whole = (double)sum_of(fs, r->whole, stats);
		return whole > 0 ? (double)sum_of(fs, r->terms, stats) / whole : 0.0;
	default:
		return 0;
	}
}

uint64_t schema_ratio_whole(const struct family_schema *fs, int row, const void *stats)
{
	return fs->rows[row].kind == ROW_RATIO ? sum_of(fs, fs->rows[row].whole, stats) : 0;
}

void schema_latency(const struct family_schema *fs, uint32_t terms, const void *stats,
		    struct hist *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < fs->nrows; i++)
		if ((terms & BIT(i)) && fs->rows[i].kind == ROW_OUTCOME)
			counters_add(out, schema_hist(&fs->rows[i], stats), sizeof(*out));
}

void schema_fill(const struct family_schema *fs, void *stats)
{
	/* In row order: a filled row's terms are counters or filled rows before it. */
	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		uint64_t terms, whole;

		if (r->fill == FILL_NONE)
			continue;
		terms = sum_of(fs, r->terms, stats);
		whole = sum_of(fs, r->whole, stats);
		*schema_counter(r, stats) = r->fill == FILL_SUM ? terms :
					    terms > whole ? terms - whole : 0;
	}
}

bool schema_has_latency(const struct family_schema *fs)
{
	for (int i = 0; i < fs->nrows; i++)
		if (fs->rows[i].kind == ROW_OUTCOME)
			return true;
	return false;
}

void schema_clear_latency(const struct family_schema *fs, void *stats)
{
	for (int i = 0; i < fs->nrows; i++)
		if (fs->rows[i].kind == ROW_OUTCOME)
			memset(schema_hist(&fs->rows[i], stats), 0, sizeof(struct hist));
}

void schema_settle(const struct family_schema *fs, void *stats, bool latency)
{
	if (!latency)
		schema_clear_latency(fs, stats);
	for (int i = 0; latency && i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		struct hist *h;
		__u64 n = 0;

		if (r->kind != ROW_OUTCOME)
			continue;
		h = schema_hist(r, stats);
		for (int s = 0; s < HIST_SLOTS; s++)
			n = sat_add_u64(n, h->slots[s]);
		h->count = n;
		*schema_counter(r, stats) = n;
	}
}

const char *errno_key(int e, char *buf, size_t size)
{
	const char *n;

	if (e <= 0 || e >= EXEC_ERRNO_MAX)
		return "other";
	n = strerrorname_np(e);
	if (n)
		return n;
	/* glibc names no errno 41 or 58: a number keeps them apart from "other". */
	snprintf(buf, size, "errno%d", e);
	return buf;
}

int errno_by_key(const char *key)
{
	char buf[16];

	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		if (strcmp(errno_key(e, buf, sizeof(buf)), key) == 0)
			return e;
	return -1;
}

void counters_add(void *into, const void *from, size_t bytes)
{
	__u64 *a = into;
	const __u64 *b = from;

	for (size_t i = 0; i < bytes / sizeof(__u64); i++)
		a[i] = sat_add_u64(a[i], b[i]);
}

void counters_sub(void *into, const void *from, size_t bytes)
{
	__u64 *a = into;
	const __u64 *b = from;

	for (size_t i = 0; i < bytes / sizeof(__u64); i++)
		a[i] -= b[i];
}

const char *schema_metric_renamed(const char *name, char *buf, size_t size)
{
	size_t flen = strcspn(name, ".[");
	const char *rest;
	char key[64], was[64], fam[32];
	int f;

	if (flen >= sizeof(fam))
		return name;
	memcpy(fam, name, flen);
	fam[flen] = 0;
	if ((f = family_by_name(fam)) < 0 || name[flen] != '.')
		return name;
	rest = name + strlen(family_name(f)) + 1;
	for (int i = 0; i < schema[f].nrows; i++) {
		const struct schema_row *r = &schema[f].rows[i];
		size_t len;

		if (!r->was)
			continue;
		/* the old key, made as schema_row_key() makes the new one */
		len = (size_t)snprintf(was, sizeof(was), "%s%s%s", r->group ? r->group : "",
				       r->group ? "_" : "", r->was);
		if (!strncmp(rest, was, len) && (!rest[len] || rest[len] == '[')) {
			snprintf(buf, size, "%s.%s%s", family_name(f),
				 schema_row_key(r, key, sizeof(key)), rest + len);
			return buf;
		}
	}
	return name;
}
