// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "hist.h"
#include "util.h"

/*
 * Where each family's stats struct sits: in the profile, or for a per-fs
 * family in each struct fs_result.  A size that is not the schema's (a
 * per-fs family whose stats are not fs_result's) makes profile_stats()
 * refuse it rather than hand out another family's numbers.
 */
#define PLACE_ONE(name) { offsetof(struct profile, name), sizeof(((struct profile *)0)->name) }
#define PLACE_PER_FS(name) { offsetof(struct fs_result, s), sizeof(((struct fs_result *)0)->s) }
static const struct {
	size_t offset, size;
} stats_place[FAMILY_COUNT] = {
#define STATS_PLACE(id, name, place) [FAMILY_##id] = PLACE_##place(name),
	PERMSCOPE_FAMILIES(STATS_PLACE)
#undef STATS_PLACE
};

void *profile_stats(const struct profile *p, enum family_id f, size_t fs)
{
	const char *base = schema[f].per_fs ? (const char *)&p->fs[fs] : (const char *)p;

	if (stats_place[f].size != schema[f].stats_size) {
		fprintf(stderr, "permscope: bug: family %s has no place in struct profile\n",
			schema[f].name);
		abort();
	}
	return (void *)(base + stats_place[f].offset);
}

size_t profile_nstats(const struct profile *p, enum family_id f)
{
	return schema[f].per_fs ? p->nfs : 1;
}

uint64_t profile_count(const struct profile *p, enum family_id f, int row)
{
	uint64_t n = 0;

	for (size_t i = 0; i < profile_nstats(p, f); i++)
		n = sat_add_u64(n, schema_count(&schema[f], row, profile_stats(p, f, i)));
	return n;
}

const char *family_state_text(const struct family_result *r)
{
	return r->status == FAMILY_OK ? mode_name(r->mode) : family_status_text(r->status);
}

const char *family_state_name(const struct family_result *r)
{
	return r->status == FAMILY_OK ? mode_name(r->mode) : family_status_name(r->status);
}

void family_add_lost(struct family_result *r, const char *what, uint64_t count)
{
	for (int i = 0; i < r->nlost; i++)
		if (!strcmp(r->lost[i].what, what)) {
			r->lost[i].count += count;
			return;
		}
	if (r->nlost == MAX_LOST) { /* more than any family has; keep the sum right */
		copy_truncated(r->lost[MAX_LOST - 1].what, "other", sizeof(r->lost[0].what));
		r->lost[MAX_LOST - 1].count += count;
		return;
	}
	copy_truncated(r->lost[r->nlost].what, what, sizeof(r->lost[0].what));
	r->lost[r->nlost++].count = count;
}

uint64_t family_lost_total(const struct family_result *r)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->nlost; i++)
		sum = sat_add_u64(sum, r->lost[i].count);
	return sum;
}

double family_events(const struct profile *p, enum family_id f)
{
	return (double)profile_count(p, f, schema[f].events);
}

enum mode_match family_modes_match(const struct profile *a, const char *a_name,
				   const struct profile *b, const char *b_name, enum family_id f,
				   char *why, size_t len)
{
	enum attach_mode ma = a->fam[f].mode, mb = b->fam[f].mode;

	if (a->fam[f].status != FAMILY_OK || b->fam[f].status != FAMILY_OK || ma == mb)
		return MODES_SAME;
	snprintf(why, len, "the %s family attached with %s in %s but %s in %s",
		 family_name(f), mode_name(ma), a_name, mode_name(mb), b_name);
	return ma == MODE_TRACEPOINT || mb == MODE_TRACEPOINT ? MODES_DIFFER : MODES_SAME_CALLS;
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->exit_status = -1;
	copy_truncated(p->tool_version, permscope_version(), sizeof(p->tool_version));
}

void profile_free(struct profile *p)
{
	if (p->command)
		for (char **a = p->command; *a; a++)
			free(*a);
	free(p->command);
	free(p->fs);
	for (size_t r = 0; r < p->nruns; r++)
		free(p->runs[r].m);
	free(p->runs);
	memset(p, 0, sizeof(*p));
}

int metric_list_copy(struct metric_list *to, const struct metric_list *from)
{
	/* as large as the original, so that it grows as the original would */
	size_t cap = from->cap > from->n ? from->cap : from->n;

	to->m = malloc((cap ? cap : 1) * sizeof(*to->m));
	if (!to->m)
		return -ENOMEM;
	memcpy(to->m, from->m, from->n * sizeof(*to->m));
	to->n = from->n;
	to->cap = cap;
	return 0;
}

int profile_copy(struct profile *dst, const struct profile *src)
{
	*dst = *src;
	/* None of src's buffers is dst's: whatever fails below leaves dst safe to free. */
	dst->command = NULL;
	dst->fs = NULL;
	dst->runs = NULL;
	dst->nruns = 0;
	if (src->command && !(dst->command = argv_dup(src->command)))
		goto no_memory;
	if (src->nfs && !(dst->fs = malloc(src->nfs * sizeof(*dst->fs))))
		goto no_memory;
	if (src->nfs)
		memcpy(dst->fs, src->fs, src->nfs * sizeof(*dst->fs));
	if (src->nruns && !(dst->runs = calloc(src->nruns, sizeof(*dst->runs))))
		goto no_memory;
	for (; dst->nruns < src->nruns; dst->nruns++)
		if (metric_list_copy(&dst->runs[dst->nruns], &src->runs[dst->nruns]))
			goto no_memory;
	return 0;
no_memory:
	profile_free(dst);
	return -ENOMEM;
}

void profile_set_host(struct profile *p)
{
	struct utsname u;

	build_info_self(&p->build);
	host_uname(&u);
	copy_truncated(p->hostname, u.nodename, sizeof(p->hostname));
	copy_truncated(p->kernel_release, u.release, sizeof(p->kernel_release));
	copy_truncated(p->kernel_version, u.version, sizeof(p->kernel_version));
	copy_truncated(p->machine, u.machine, sizeof(p->machine));
	read_first_line("/proc/sys/kernel/random/boot_id", p->boot_id, sizeof(p->boot_id));
	read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			p->clocksource, sizeof(p->clocksource));
}

bool profile_clock_is_coarse(const struct profile *p)
{
	/* "jiffies", "refined-jiffies" */
	return strstr(p->clocksource, "jiffies") != NULL;
}

/*
 * into += from, or into -= from: every family's counters (per filesystem
 * where per-fs) and losses.  __u64 arithmetic is modular, so subtracting an
 * earlier reading of a loss is adding its negation.
 */
static int profile_combine(struct profile *into, const struct profile *from, bool subtract)
{
	void (*op)(void *, const void *, size_t) = subtract ? counters_sub : counters_add;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		into->absent[f] |= from->absent[f];
		/* A loss known on every side adds up; one side not knowing makes it unknown. */
		into->fam[f].lost_known &= from->fam[f].lost_known;
		for (int i = 0; i < from->fam[f].nlost; i++)
			family_add_lost(&into->fam[f], from->fam[f].lost[i].what,
					subtract ? -from->fam[f].lost[i].count
						 : from->fam[f].lost[i].count);
		if (!into->fam[f].lost_known)
			into->fam[f].nlost = 0;
		if (!schema[f].per_fs) {
			op(profile_stats(into, f, 0), profile_stats(from, f, 0), schema[f].stats_size);
			continue;
		}
		for (size_t i = 0; i < from->nfs; i++) {
			struct fs_result *fs = profile_add_fs(into, from->fs[i].name);

			if (!fs)
				return -ENOMEM;
			op(&fs->s, &from->fs[i].s, sizeof(fs->s));
		}
	}
	profile_sort_fs(into);
	return 0;
}

int profile_add(struct profile *into, const struct profile *from)
{
	return profile_combine(into, from, false);
}

int profile_sub(struct profile *into, const struct profile *from)
{
	return profile_combine(into, from, true);
}

bool profile_counts_fit(const struct profile *p)
{
	for (int f = 0; f < FAMILY_COUNT; f++) {
		for (int i = 0; i < p->fam[f].nlost; i++)
			if (p->fam[f].lost[i].count > PROFILE_COUNT_MAX)
				return false;
		for (size_t i = 0; i < profile_nstats(p, f); i++) {
			const __u64 *c = profile_stats(p, f, i);

			/* a stats struct is __u64s alone, as counters_add() adds them */
			for (size_t k = 0; k < schema[f].stats_size / sizeof(*c); k++)
				if (c[k] > PROFILE_COUNT_MAX)
					return false;
		}
	}
	return true;
}

const struct fs_result *profile_find_fs(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->nfs; i++)
		if (strcmp(p->fs[i].name, name) == 0)
			return &p->fs[i];
	return NULL;
}

struct fs_result *profile_add_fs(struct profile *p, const char *name)
{
	struct fs_result *fs = (struct fs_result *)profile_find_fs(p, name);

	if (fs)
		return fs;
	fs = realloc(p->fs, (p->nfs + 1) * sizeof(*fs));
	if (!fs)
		return NULL;
	p->fs = fs;
	fs = &p->fs[p->nfs++];
	memset(fs, 0, sizeof(*fs));
	copy_truncated(fs->name, name, sizeof(fs->name));
	return fs;
}

static int fs_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fs_result *)a)->name, ((const struct fs_result *)b)->name);
}

void profile_sort_fs(struct profile *p)
{
	if (p->nfs)
		qsort(p->fs, p->nfs, sizeof(*p->fs), fs_cmp);
}

/* ---- writing ------------------------------------------------------------ */

static json_t *hist_to_json(const struct hist *h)
{
	return json_pack("{s:I,s:I,s:o}", "count", (json_int_t)h->count,
			 "sum_ns", (json_int_t)h->sum, "buckets", hist_buckets_json(h));
}

static json_t *attempts_to_json(const struct family_result *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nattempts; i++) {
		const struct attach_attempt *t = &r->attempts[i];

		json_array_append_new(a, json_pack("{s:s,s:i,s:s}", "mode", mode_name(t->mode),
			"errno", t->err, "why", t->why));
	}
	return a;
}

/* {"what": count}: every source of loss that was read, zeros included. */
static json_t *lost_to_json(const struct family_result *r)
{
	json_t *o = json_object();

	for (int i = 0; i < r->nlost; i++)
		json_object_set_new(o, r->lost[i].what, json_integer(r->lost[i].count));
	return o;
}

/* A named sub-object of `o`, created on first use (so in schema order). */
static json_t *sub_object(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		v = json_object();
		json_object_set_new(o, key, v);
	}
	return v;
}

/*
 * One stats struct: its plain COUNTs, then grouped ones ("ineligible",
 * "origin"), then "outcomes" {NAME: {calls, latency}}, then "errno".
 * Absent rows are left out.
 */
static json_t *stats_to_json(const struct family_schema *fs, const void *stats, uint32_t absent)
{
	static const enum row_kind order[] = { ROW_COUNT, ROW_OUTCOME, ROW_ERRNOS };
	json_t *o = json_object();
	char buf[16];

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (int g = 0; g < 2; g++) /* plain COUNTs before grouped ones */
			for (int i = 0; i < fs->nrows; i++) {
				const struct schema_row *r = &fs->rows[i];
				const __u64 *v = schema_counter(r, stats);
				json_t *errs;

				if (r->kind != order[k] || !r->group != !g ||
				    schema_row_absent(fs, i, absent))
					continue;
				switch (r->kind) {
				case ROW_COUNT:
					json_object_set_new(r->group ? sub_object(o, r->group) : o,
							    r->name, json_integer(*v));
					break;
				case ROW_OUTCOME:
					json_object_set_new(sub_object(o, "outcomes"), r->name,
						json_pack("{s:I,s:o}", "calls", (json_int_t)*v,
							  "latency", hist_to_json(schema_hist(r, stats))));
					break;
				default:
					errs = sub_object(o, r->name);
					for (int e = 0; e < EXEC_ERRNO_MAX; e++)
						if (v[e])
							json_object_set_new(errs, errno_key(e, buf, sizeof(buf)),
									    json_integer(v[e]));
				}
			}
	return o;
}

static json_t *family_stats_to_json(const struct profile *p, enum family_id f)
{
	const struct family_schema *fs = &schema[f];
	json_t *per_fs;

	if (!fs->per_fs)
		return stats_to_json(fs, profile_stats(p, f, 0), p->absent[f]);
	per_fs = json_object();
	for (size_t i = 0; i < p->nfs; i++)
		json_object_set_new(per_fs, p->fs[i].name,
				    stats_to_json(fs, profile_stats(p, f, i), p->absent[f]));
	return json_pack("{s:o}", "per_fs", per_fs);
}

char *profile_to_json(const struct profile *p)
{
	json_t *root, *fams = json_object(), *workload = json_null(), *cmd;
	char start[48], end[48];
	char *text;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		const struct family_result *r = &p->fam[f];
		json_t *fj = json_pack("{s:s,s:o,s:o}", "status", family_status_name(r->status),
			"mode", r->status == FAMILY_OK ? json_string(mode_name(r->mode)) : json_null(),
			"attempts", attempts_to_json(r));

		if (r->status == FAMILY_OK) {
			json_t *stats = family_stats_to_json(p, f);

			json_object_update(fj, stats);
			json_decref(stats);
			if (r->lost_known)
				json_object_set_new(fj, "lost", lost_to_json(r));
		}
		json_object_set_new(fams, family_name(f), fj);
	}
	if (p->command) {
		cmd = json_array();
		for (char **a = p->command; *a; a++)
			json_array_append_new(cmd, json_string(*a));
		workload = json_pack("{s:o,s:o}", "command", cmd, "exit_status",
				     p->exit_status >= 0 ? json_integer(p->exit_status) : json_null());
	}
	format_utc_ns(p->start_ns, start, sizeof(start));
	format_utc_ns(p->end_ns, end, sizeof(end));
	/* o*: no "build" for a profile read from one written before builds were kept */
	root = json_pack("{s:s,s:s,s:o*,s:{s:s,s:s,s:s,s:s,s:s},s:o,s:{s:o,s:o,s:o},s:s,s:s,"
			 "s:{s:s,s:s},s:o}",
		"format", PROFILE_FORMAT,
		"tool", p->tool_version,
		"build", build_info_known(&p->build) ? build_info_to_json(&p->build) : NULL,
		"host", "hostname", p->hostname, "kernel_release", p->kernel_release,
			"kernel_version", p->kernel_version, "machine", p->machine,
			"boot_id", p->boot_id,
		"workload", workload,
		"filter", "pid", p->filter_pid ? json_integer(p->filter_pid) : json_null(),
			"comm", p->filter_comm[0] ? json_string(p->filter_comm) : json_null(),
			"cgroup", p->filter_cgroup[0] ? json_string(p->filter_cgroup) : json_null(),
		"start", start, "end", end,
		"histograms", "unit", "ns",
			"buckets", "log2: [0, 2), then [2^i, 2^(i+1)); the last has no upper bound",
		"families", fams);
	if (!root)
		return NULL;
	if (p->clocksource[0])
		json_object_set_new(json_object_get(root, "host"), "clocksource",
				    json_string(p->clocksource));
	if (p->nruns) {
		json_t *runs = json_array();

		for (size_t r = 0; r < p->nruns; r++) {
			json_t *run = json_object();

			for (size_t i = 0; i < p->runs[r].n; i++)
				json_object_set_new(run, p->runs[r].m[i].name,
						    json_real(p->runs[r].m[i].value));
			json_array_append_new(runs, run);
		}
		json_object_set_new(root, "runs", runs);
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(root);
	return text;
}

int profile_write(const struct profile *p, const char *path)
{
	char *text = profile_to_json(p);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = write_file_atomic(path, text, strlen(text), true);
	free(text);
	return ret;
}

/* ---- reading (strict) --------------------------------------------------- */

struct reader {
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return; /* keep the first, most specific message */
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* obj[key] of the wanted type, or NULL after recording what was wrong. */
static json_t *member(struct reader *r, json_t *obj, const char *path, const char *key,
		      json_type type)
{
	json_t *v;

	if (r->failed)
		return NULL;
	v = json_object_get(obj, key);
	if (!v) {
		fail(r, "%s%s%s: missing", path, *path ? "." : "", key);
		return NULL;
	}
	if (json_typeof(v) != type) {
		fail(r, "%s%s%s: expected %s, found %s", path, *path ? "." : "", key,
		     type == JSON_OBJECT ? "an object" : type == JSON_ARRAY ? "an array" :
		     type == JSON_STRING ? "a string" : "an integer", type_name(v));
		return NULL;
	}
	return v;
}

static uint64_t member_u64(struct reader *r, json_t *obj, const char *path, const char *key)
{
	json_t *v = member(r, obj, path, key, JSON_INTEGER);

	if (v && json_integer_value(v) < 0) {
		fail(r, "%s.%s: expected a non-negative integer, found %lld", path, key,
		     (long long)json_integer_value(v));
		return 0;
	}
	return v ? (uint64_t)json_integer_value(v) : 0;
}

/*
 * The optional "build" object (written since permscope recorded its build;
 * an older profile has none, and its build stays unknown): strings, the
 * revision null for a build made without git.
 */
static void read_build(struct reader *r, json_t *v, struct build_info *b)
{
	static const struct {
		const char *key;
		size_t offset, size;
		bool nullable;
	} fields[] = {
		{ "version", offsetof(struct build_info, version), sizeof(b->version), false },
		{ "revision", offsetof(struct build_info, revision), sizeof(b->revision), true },
		{ "libbpf", offsetof(struct build_info, libbpf), sizeof(b->libbpf), false },
	};

	memset(b, 0, sizeof(*b));
	if (!v || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		fail(r, "build: expected an object, found %s", type_name(v));
		return;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		json_t *f = json_object_get(v, fields[i].key);

		if (json_is_string(f))
			copy_truncated((char *)b + fields[i].offset, json_string_value(f),
				       fields[i].size);
		else if (!(fields[i].nullable && json_is_null(f)))
			fail(r, "build.%s: expected a string%s, found %s", fields[i].key,
			     fields[i].nullable ? " or null" : "", f ? type_name(f) : "nothing");
	}
	if (!b->version[0])
		fail(r, "build.version: empty");
}

static void member_str(struct reader *r, json_t *obj, const char *path, const char *key,
		       char *buf, size_t len)
{
	json_t *v = member(r, obj, path, key, JSON_STRING);

	if (v)
		copy_truncated(buf, json_string_value(v), len);
}

static void read_hist(struct reader *r, json_t *obj, const char *path, struct hist *h)
{
	json_t *buckets, *b;
	char bpath[256];
	uint64_t total = 0, seen = 0;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->count = member_u64(r, obj, path, "count");
	h->sum = member_u64(r, obj, path, "sum_ns");
	buckets = member(r, obj, path, "buckets", JSON_ARRAY);
	json_array_foreach(buckets, i, b) {
		uint64_t lo, cnt;
		json_t *hi;
		int slot;

		snprintf(bpath, sizeof(bpath), "%s.buckets[%zu]", path, i);
		if (!json_is_object(b)) {
			fail(r, "%s: expected an object, found %s", bpath, type_name(b));
			return;
		}
		lo = member_u64(r, b, bpath, "lo");
		cnt = member_u64(r, b, bpath, "count");
		hi = json_object_get(b, "hi");
		if (r->failed)
			return;
		slot = hist_slot_of_lo(lo);
		if (slot >= 0 && (seen & (1ULL << slot))) {
			fail(r, "%s: bucket [%llu, ...) appears twice", bpath, (unsigned long long)lo);
			return;
		}
		if (slot < 0 || !hi ||
		    (hist_hi(slot) == UINT64_MAX ? !json_is_null(hi) :
		     !json_is_integer(hi) || (uint64_t)json_integer_value(hi) != hist_hi(slot))) {
			fail(r, "%s: [lo, hi) is not a log2 bucket of this format", bpath);
			return;
		}
		h->slots[slot] = cnt;
		seen |= 1ULL << slot;
		total += cnt;
	}
	if (!r->failed && total != h->count)
		fail(r, "%s: buckets add up to %llu, count says %llu", path,
		     (unsigned long long)total, (unsigned long long)h->count);
}

static void read_attempts(struct reader *r, json_t *fj, const char *path,
			  struct family_result *res)
{
	json_t *arr = member(r, fj, path, "attempts", JSON_ARRAY), *a;
	char apath[96], mode[32];
	size_t i;

	json_array_foreach(arr, i, a) {
		struct attach_attempt *t;
		int m;

		snprintf(apath, sizeof(apath), "%s.attempts[%zu]", path, i);
		if (i >= MAX_ATTEMPTS) {
			fail(r, "%s: at most %d attempts expected", apath, MAX_ATTEMPTS);
			return;
		}
		if (!json_is_object(a)) {
			fail(r, "%s: expected an object, found %s", apath, type_name(a));
			return;
		}
		t = &res->attempts[i];
		member_str(r, a, apath, "mode", mode, sizeof(mode));
		t->err = (int)member_u64(r, a, apath, "errno");
		member_str(r, a, apath, "why", t->why, sizeof(t->why));
		m = mode_by_name(mode);
		if (!r->failed && m <= MODE_NONE) {
			fail(r, "%s.mode: unknown attach mode \"%s\"", apath, mode);
			return;
		}
		t->mode = m;
		res->nattempts = i + 1;
	}
}

/* obj[key] when present, else obj[was] (the key older profiles used). */
static json_t *get_either(json_t *obj, const char *key, const char *was, const char **found)
{
	json_t *v = json_object_get(obj, key);

	*found = key;
	if (!v && was && (v = json_object_get(obj, was)))
		*found = was;
	return v;
}

/*
 * One stats struct, the mirror of stats_to_json().  A row that is missing
 * is absent (the profile predates it), never read as 0; a row of the wrong
 * shape is an error.
 */
static void read_stats(struct reader *r, json_t *obj, const char *path,
		       const struct family_schema *fs, void *stats, uint32_t *absent)
{
	char rpath[160], hpath[192];

	for (int i = 0; i < fs->nrows && !r->failed; i++) {
		const struct schema_row *row = &fs->rows[i];
		const char *in = row->group ? row->group : row->kind == ROW_OUTCOME ? "outcomes" : NULL;
		json_t *parent = obj, *v, *e;
		const char *key;
		__u64 *c = schema_counter(row, stats);

		if (row->kind == ROW_SUM || row->kind == ROW_RATIO)
			continue;
		snprintf(rpath, sizeof(rpath), "%s%s%s", path, in ? "." : "", in ? in : "");
		if (in && !(parent = json_object_get(obj, in))) {
			*absent |= 1U << i;
			continue;
		}
		if (in && !json_is_object(parent)) {
			fail(r, "%s: expected an object, found %s", rpath, type_name(parent));
			return;
		}
		v = get_either(parent, row->name, row->was, &key);
		if (!v) {
			*absent |= 1U << i;
			continue;
		}
		switch (row->kind) {
		case ROW_COUNT:
			*c = member_u64(r, parent, rpath, key);
			break;
		case ROW_OUTCOME:
			snprintf(rpath + strlen(rpath), sizeof(rpath) - strlen(rpath), ".%s", key);
			if (!json_is_object(v)) {
				fail(r, "%s: expected an object, found %s", rpath, type_name(v));
				return;
			}
			*c = member_u64(r, v, rpath, "calls");
			snprintf(hpath, sizeof(hpath), "%s.latency", rpath);
			read_hist(r, member(r, v, rpath, "latency", JSON_OBJECT), hpath,
				  schema_hist(row, stats));
			if (!r->failed && schema_hist(row, stats)->count != *c)
				fail(r, "%s: %llu calls but %llu latency samples", rpath,
				     (unsigned long long)*c,
				     (unsigned long long)schema_hist(row, stats)->count);
			break;
		default: /* ROW_ERRNOS */
			snprintf(rpath + strlen(rpath), sizeof(rpath) - strlen(rpath), ".%s", key);
			if (!json_is_object(v)) {
				fail(r, "%s: expected an object, found %s", rpath, type_name(v));
				return;
			}
			json_object_foreach(v, key, e) {
				int n = errno_by_key(key);

				if (n < 0) {
					fail(r, "%s.%s: unknown errno name", rpath, key);
					return;
				}
				c[n] = member_u64(r, v, rpath, key);
			}
		}
	}
}

static void read_family_stats(struct reader *r, json_t *fj, const char *path,
			      enum family_id f, struct profile *p)
{
	const struct family_schema *fs = &schema[f];
	json_t *obj, *v;
	const char *key;
	char fpath[96];

	if (!fs->per_fs) {
		read_stats(r, fj, path, fs, profile_stats(p, f, 0), &p->absent[f]);
		return;
	}
	obj = member(r, fj, path, "per_fs", JSON_OBJECT);
	json_object_foreach(obj, key, v) {
		struct fs_result *res;

		snprintf(fpath, sizeof(fpath), "%s.per_fs.%s", path, key);
		if (!json_is_object(v)) {
			fail(r, "%s: expected an object, found %s", fpath, type_name(v));
			return;
		}
		if (strlen(key) >= FS_NAME_LEN) {
			fail(r, "%s: filesystem name longer than %d bytes", fpath, FS_NAME_LEN - 1);
			return;
		}
		res = profile_add_fs(p, key);
		if (!res) {
			fail(r, "out of memory");
			return;
		}
		read_stats(r, v, fpath, fs, &res->s, &p->absent[f]);
	}
	profile_sort_fs(p);
}

/* "lost": optional; a profile without it predates the reading of losses. */
static void read_lost(struct reader *r, json_t *fj, const char *path, struct family_result *res)
{
	json_t *lost = json_object_get(fj, "lost"), *v;
	char lpath[96];
	const char *what;

	if (r->failed || !lost)
		return;
	snprintf(lpath, sizeof(lpath), "%s.lost", path);
	if (!json_is_object(lost)) {
		fail(r, "%s: expected an object, found %s", lpath, type_name(lost));
		return;
	}
	res->lost_known = true;
	json_object_foreach(lost, what, v) {
		uint64_t n = member_u64(r, lost, lpath, what);

		if (r->failed)
			return;
		family_add_lost(res, what, n);
	}
}

static void read_families(struct reader *r, json_t *root, struct profile *p)
{
	json_t *fams = member(r, root, "", "families", JSON_OBJECT);
	char path[64], status[32];

	for (int f = 0; f < FAMILY_COUNT && !r->failed; f++) {
		struct family_result *res = &p->fam[f];
		json_t *fj = member(r, fams, "families", family_name(f), JSON_OBJECT), *mode;
		int s;

		snprintf(path, sizeof(path), "families.%s", family_name(f));
		member_str(r, fj, path, "status", status, sizeof(status));
		if (r->failed)
			return;
		s = family_status_by_name(status);
		if (s < 0) {
			fail(r, "%s.status: expected \"ok\", \"unavailable\" or \"not_requested\", found \"%s\"",
			     path, status);
			return;
		}
		res->status = s;
		read_attempts(r, fj, path, res);
		if (!r->failed && res->status == FAMILY_UNAVAILABLE && !res->nattempts) {
			fail(r, "%s.attempts: an unavailable family must say why (no attempts)", path);
			return;
		}
		mode = json_object_get(fj, "mode");
		if (res->status == FAMILY_OK) {
			int m = json_is_string(mode) ? mode_by_name(json_string_value(mode)) : -1;
			char names[128];

			if (m <= MODE_NONE) {
				fail(r, "%s.mode: expected %s", path,
				     mode_names_text(names, sizeof(names), "or"));
				return;
			}
			res->mode = m;
			read_family_stats(r, fj, path, f, p);
			read_lost(r, fj, path, res);
		}
	}
}

/* "runs": optional, one object of metric values per merged run. */
static void read_runs(struct reader *r, json_t *root, struct profile *p)
{
	json_t *runs = json_object_get(root, "runs"), *run, *v;
	char renamed[METRIC_NAME_LEN];
	const char *name;
	size_t i;

	if (r->failed || !runs)
		return;
	if (!json_is_array(runs) || !json_array_size(runs)) {
		fail(r, "runs: expected a non-empty array of objects");
		return;
	}
	p->runs = calloc(json_array_size(runs), sizeof(*p->runs));
	if (!p->runs) {
		fail(r, "out of memory");
		return;
	}
	json_array_foreach(runs, i, run) {
		struct metric_list *l = &p->runs[i];

		p->nruns = i + 1;
		if (!json_is_object(run)) {
			fail(r, "runs[%zu]: expected an object, found %s", i, type_name(run));
			return;
		}
		l->cap = json_object_size(run);
		l->m = calloc(l->cap ? l->cap : 1, sizeof(*l->m));
		if (!l->m) {
			fail(r, "out of memory");
			return;
		}
		json_object_foreach(run, name, v) {
			if (!json_is_number(v) || strlen(name) >= METRIC_NAME_LEN) {
				/* the name cut short: a long one would crowd out the why */
				fail(r, "runs[%zu].%.*s%s: expected a number under a name of at most %d bytes",
				     i, METRIC_NAME_LEN - 1, name,
				     strlen(name) >= METRIC_NAME_LEN ? "..." : "", METRIC_NAME_LEN - 1);
				return;
			}
			/* a run merged before a counter's rename: its name now */
			copy_truncated(l->m[l->n].name, schema_metric_renamed(name, renamed, sizeof(renamed)),
				       METRIC_NAME_LEN);
			l->m[l->n++].value = json_number_value(v);
		}
	}
}

int profile_from_json(const char *text, struct profile *p, char *err, size_t errlen)
{
	struct reader r = { .err = err, .errlen = errlen };
	json_error_t jerr;
	json_t *root, *v, *host, *wl, *filter;
	char fmt[64] = "", start[64] = "", end[64] = "";

	profile_init(p);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(err, errlen, "not valid JSON: line %d, column %d: %s",
			 jerr.line, jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(root)) {
		fail(&r, "expected a JSON object at the top, found %s", type_name(root));
		goto out;
	}
	v = json_object_get(root, "format");
	if (!json_is_string(v)) {
		fail(&r, "not a permscope profile (no \"format\" string; expected \"%s\")",
		     PROFILE_FORMAT);
		goto out;
	}
	copy_truncated(fmt, json_string_value(v), sizeof(fmt));
	if (strcmp(fmt, PROFILE_FORMAT) != 0) {
		fail(&r, "unsupported format \"%s\" (this permscope reads \"%s\")", fmt,
		     PROFILE_FORMAT);
		goto out;
	}
	member_str(&r, root, "", "tool", p->tool_version, sizeof(p->tool_version));
	read_build(&r, json_object_get(root, "build"), &p->build);
	host = member(&r, root, "", "host", JSON_OBJECT);
	member_str(&r, host, "host", "hostname", p->hostname, sizeof(p->hostname));
	member_str(&r, host, "host", "kernel_release", p->kernel_release, sizeof(p->kernel_release));
	member_str(&r, host, "host", "kernel_version", p->kernel_version, sizeof(p->kernel_version));
	member_str(&r, host, "host", "machine", p->machine, sizeof(p->machine));
	member_str(&r, host, "host", "boot_id", p->boot_id, sizeof(p->boot_id));
	/* Optional: profiles before it was kept have none. */
	v = host ? json_object_get(host, "clocksource") : NULL;
	if (v && !json_is_string(v) && !json_is_null(v))
		fail(&r, "host.clocksource: expected a string, found %s", type_name(v));
	else if (json_is_string(v))
		copy_truncated(p->clocksource, json_string_value(v), sizeof(p->clocksource));

	wl = json_object_get(root, "workload");
	if (wl && !json_is_null(wl)) {
		json_t *cmd, *a, *st;
		size_t i;

		if (!json_is_object(wl)) {
			fail(&r, "workload: expected an object or null, found %s", type_name(wl));
			goto out;
		}
		cmd = member(&r, wl, "workload", "command", JSON_ARRAY);
		if (cmd) {
			p->command = calloc(json_array_size(cmd) + 1, sizeof(char *));
			json_array_foreach(cmd, i, a) {
				if (!json_is_string(a)) {
					fail(&r, "workload.command[%zu]: expected a string", i);
					goto out;
				}
				p->command[i] = strdup(json_string_value(a));
			}
		}
		st = json_object_get(wl, "exit_status");
		p->exit_status = json_is_integer(st) ? (int)json_integer_value(st) : -1;
	}
	filter = member(&r, root, "", "filter", JSON_OBJECT);
	if (filter) {
		v = json_object_get(filter, "pid");
		p->filter_pid = json_is_integer(v) ? (int)json_integer_value(v) : 0;
		v = json_object_get(filter, "comm");
		if (json_is_string(v))
			copy_truncated(p->filter_comm, json_string_value(v), sizeof(p->filter_comm));
		/* written since --cgroup exists: an older profile has none */
		v = json_object_get(filter, "cgroup");
		if (json_is_string(v) && json_string_length(v) >= sizeof(p->filter_cgroup))
			fail(&r, "filter.cgroup: longer than %zu bytes", sizeof(p->filter_cgroup) - 1);
		else if (json_is_string(v))
			copy_truncated(p->filter_cgroup, json_string_value(v), sizeof(p->filter_cgroup));
	}
	member_str(&r, root, "", "start", start, sizeof(start));
	member_str(&r, root, "", "end", end, sizeof(end));
	if (!r.failed && (parse_utc_ns(start, &p->start_ns) || parse_utc_ns(end, &p->end_ns)))
		fail(&r, "start/end: expected UTC times like 2026-01-31T12:00:00.000000000Z");
	read_families(&r, root, p);
	read_runs(&r, root, p);
out:
	json_decref(root);
	if (r.failed) {
		profile_free(p);
		return -1;
	}
	return 0;
}

int profile_read_named(const char *path, const char *name, struct profile *p, char *err,
		       size_t errlen)
{
	char why[256];
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (read_input_file(path, PROFILE_MAX_BYTES, &text, &len, why, sizeof(why))) {
		snprintf(err, errlen, "%s%s%s", name ? name : "", name ? ": " : "", why);
		return -1;
	}
	if (strlen(text) != len) {
		snprintf(err, errlen, "not valid JSON: contains a NUL byte");
		free(text);
		return -1;
	}
	ret = profile_from_json(text, p, err, errlen);
	free(text);
	return ret;
}

int profile_read(const char *path, struct profile *p, char *err, size_t errlen)
{
	return profile_read_named(path, NULL, p, err, errlen);
}
