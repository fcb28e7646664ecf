// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The strict reader of "permscope-profile/1" (docs/profile-format.md): a
 * profile read from a file or a string, every key checked for its type and
 * range, the first thing wrong named by its path ("families.lookup.mode:
 * ..."), keys older profiles used read as their rows now.  Apart from
 * profile.c's model, since all of it is about outside input, and from
 * profile_write.c, which writes what this reads back.
 */
#include "profile.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

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
		       const struct family_schema *fs, void *stats, uint32_t *absent,
		       bool *no_latency)
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
			/* null: not measured (--lean), never an empty histogram */
			if (json_is_null(json_object_get(v, "latency"))) {
				*no_latency = true;
				break;
			}
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
		read_stats(r, fj, path, fs, profile_stats(p, f, 0), &p->absent[f],
			   &p->fam[f].no_latency);
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
		read_stats(r, v, fpath, fs, &res->s, &p->absent[f], &p->fam[f].no_latency);
	}
	profile_sort_fs(p);
}

/* "lean": optional, true when recorded with --lean; false or missing: not. */
static void read_lean(struct reader *r, json_t *fj, const char *path, struct family_result *res)
{
	json_t *v = json_object_get(fj, "lean");

	if (r->failed || !v)
		return;
	if (!json_is_boolean(v)) {
		fail(r, "%s.lean: expected a boolean, found %s", path, type_name(v));
		return;
	}
	res->lean = json_is_true(v);
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

/*
 * "observed": optional, a daemon's (struct observation); a window is
 * shorter than its period, and no more time is watched than the windows
 * can hold.
 */
static void read_observed(struct reader *r, json_t *fj, const char *path,
			  struct family_result *res, uint64_t span_ns)
{
	json_t *v = json_object_get(fj, "observed");
	struct observation *o = &res->observed;
	char opath[96];

	if (r->failed || !v)
		return;
	snprintf(opath, sizeof(opath), "%s.observed", path);
	if (!json_is_object(v)) {
		fail(r, "%s: expected an object, found %s", opath, type_name(v));
		return;
	}
	o->window_ns = member_u64(r, v, opath, "window_ns");
	o->period_ns = member_u64(r, v, opath, "period_ns");
	o->ns = member_u64(r, v, opath, "ns");
	o->windows = member_u64(r, v, opath, "windows");
	o->failed = member_u64(r, v, opath, "failed_windows");
	if (r->failed)
		return;
	if (o->period_ns ? o->window_ns == 0 || o->window_ns >= o->period_ns : o->window_ns != 0)
		fail(r, "%s: window_ns %" PRIu64 " must be above 0 and below period_ns %" PRIu64
		     " (both 0: always on)", opath, o->window_ns, o->period_ns);
	else if (o->period_ns && span_ns && o->ns / (o->windows ? o->windows : 1) > span_ns)
		/*
		 * A pause that comes late (a daemon waiting for a CPU) stretches
		 * its window by as long as it waits: no multiple of the window
		 * bounds it.  Each window lies inside the recording, though, and
		 * holds it when the windows of several hosts are added up.
		 */
		fail(r, "%s.ns: %" PRIu64 " ns watched cannot fit in %" PRIu64 " windows within "
		     "the profile's %" PRIu64 " ns", opath, o->ns, o->windows, span_ns);
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
			read_observed(r, fj, path, res,
				      p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0);
			read_lean(r, fj, path, res);
			/* one outcome without latency: the family has none to compare */
			for (size_t i = 0; res->no_latency && i < profile_nstats(p, f); i++)
				schema_clear_latency(&schema[f], profile_stats(p, f, i));
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

/*
 * "recordings": optional, the recording behind each merged run, one a run;
 * "mixed": optional, what differs among them (merge --allow-mixed).
 */
static void read_recordings(struct reader *r, json_t *root, struct profile *p)
{
	json_t *recs = json_object_get(root, "recordings"), *x, *mixed = json_object_get(root, "mixed");
	size_t i;

	if (!r->failed && mixed && (!json_is_string(mixed) ||
				    json_string_length(mixed) >= PROFILE_MIXED_MAX)) {
		fail(r, "mixed: expected a string of under %d bytes", PROFILE_MIXED_MAX);
		return;
	}
	if (!r->failed && mixed && !(p->mixed = strdup(json_string_value(mixed)))) {
		fail(r, "out of memory");
		return;
	}
	if (r->failed || !recs)
		return;
	if (!json_is_array(recs) || json_array_size(recs) != p->nruns) {
		fail(r, "recordings: expected an array of one object a run (%zu)", p->nruns);
		return;
	}
	if (!(p->recordings = calloc(p->nruns, sizeof(*p->recordings)))) {
		fail(r, "out of memory");
		return;
	}
	p->nrecordings = p->nruns;
	json_array_foreach(recs, i, x) {
		struct recording_ref *rec = &p->recordings[i];
		json_t *s = json_object_get(x, "start_ns"), *e = json_object_get(x, "end_ns");
		char where[48];

		snprintf(where, sizeof(where), "recordings[%zu]", i);
		member_str(r, x, where, "hostname", rec->hostname, sizeof(rec->hostname));
		member_str(r, x, where, "boot_id", rec->boot_id, sizeof(rec->boot_id));
		if (r->failed)
			return;
		if (!json_is_integer(s) || !json_is_integer(e) || json_integer_value(s) < 0 ||
		    json_integer_value(e) < json_integer_value(s)) {
			fail(r, "%s: expected start_ns and end_ns, integers, 0 <= start <= end", where);
			return;
		}
		rec->start_ns = json_integer_value(s);
		rec->end_ns = json_integer_value(e);
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
	/* Optional too: check's fourth row, one of its three words. */
	v = host ? json_object_get(host, "cred_refcount_line") : NULL;
	if (v && !json_is_string(v))
		fail(&r, "host.cred_refcount_line: expected a string, found %s", type_name(v));
	else if (v && cred_layout_answer_by_name(json_string_value(v)) < 0)
		fail(&r, "host.cred_refcount_line: expected \"separated\", \"shares\" or "
		     "\"unknown\", found \"%.40s\"", printable(json_string_value(v)));
	else if (v) {
		p->cred_line_kept = true;
		p->cred_line = cred_layout_answer_by_name(json_string_value(v));
	}

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
	read_recordings(&r, root, p);
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
