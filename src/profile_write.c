// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A profile written out as "permscope-profile/1" (docs/profile-format.md):
 * the JSON document, in schema order, and the atomic write of its file.
 * Apart from profile.c, which holds what a profile is and does in memory,
 * and from profile_read.c, the strict reader of the same format, which
 * shares none of this code.
 */
#include "profile.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

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

/* What a daemon's counts cover (struct observation). */
static json_t *observed_to_json(const struct observation *o)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I}", "window_ns", (json_int_t)o->window_ns,
			 "period_ns", (json_int_t)o->period_ns, "ns", (json_int_t)o->ns,
			 "windows", (json_int_t)o->windows, "failed_windows", (json_int_t)o->failed);
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
static json_t *stats_to_json(const struct family_schema *fs, const void *stats, uint32_t absent,
			     bool latency)
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
							  "latency", latency ?
							  hist_to_json(schema_hist(r, stats)) :
							  json_null()));
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
	const bool latency = !p->fam[f].no_latency;
	json_t *per_fs;

	if (!fs->per_fs)
		return stats_to_json(fs, profile_stats(p, f, 0), p->absent[f], latency);
	per_fs = json_object();
	for (size_t i = 0; i < p->nfs; i++)
		json_object_set_new(per_fs, p->fs[i].name,
				    stats_to_json(fs, profile_stats(p, f, i), p->absent[f],
						  latency));
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
			if (r->observed.ns || r->observed.period_ns)
				json_object_set_new(fj, "observed", observed_to_json(&r->observed));
			if (r->lean)
				json_object_set_new(fj, "lean", json_true());
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
	if (p->cred_line_kept)
		json_object_set_new(json_object_get(root, "host"), "cred_refcount_line",
				    json_string(cred_layout_answer_names[p->cred_line]));
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
	if (p->nrecordings) {
		json_t *recs = json_array();

		for (size_t r = 0; r < p->nrecordings; r++) {
			const struct recording_ref *x = &p->recordings[r];

			json_array_append_new(recs, json_pack("{s:s,s:s,s:I,s:I}", "hostname",
				x->hostname, "boot_id", x->boot_id, "start_ns", (json_int_t)x->start_ns,
				"end_ns", (json_int_t)x->end_ns));
		}
		json_object_set_new(root, "recordings", recs);
	}
	if (p->mixed)
		json_object_set_new(root, "mixed", json_string(p->mixed));
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
