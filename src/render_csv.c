// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The report as CSV: family,subject,metric,value rows, one a value, for a
 * spreadsheet or a shell pipeline (docs/report.md, "CSV report").
 */
#include "render.h"

#include <stdio.h>
#include <string.h>

#include "schema.h"

/* RFC 4180: quote a field holding a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, const char *family, const char *subject, const char *metric,
		    const char *value)
{
	csv_field(out, family);
	fputc(',', out);
	csv_field(out, subject);
	fputc(',', out);
	csv_field(out, metric);
	fputc(',', out);
	csv_field(out, value);
	fputc('\n', out);
}

static void csv_u64(FILE *out, const char *family, const char *subject, const char *metric,
		    __u64 v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	csv_row(out, family, subject, metric, buf);
}

static bool csv_status(FILE *out, const struct profile *p, enum family_id f)
{
	const struct family_result *r = &p->fam[f];

	csv_row(out, family_name(f), "", "mode", family_state_name(r));
	for (int i = 0; i < r->nattempts && r->status != FAMILY_OK; i++)
		csv_row(out, family_name(f), mode_name(r->attempts[i].mode), "why",
			r->attempts[i].why);
	for (int i = 0; i < r->nlost && r->status == FAMILY_OK; i++)
		csv_u64(out, family_name(f), r->lost[i].what, "lost", r->lost[i].count);
	return r->status == FAMILY_OK;
}

/*
 * One stats struct: an outcome gives SUBJECT=its name, "calls" and
 * "latency_sum_ns"; an errno count SUBJECT=its name, "errno_calls"; any
 * other row SUBJECT=`subject` (the filesystem, or "all").  An absent row
 * has an empty value.
 */
static void stats_csv(FILE *out, const struct family_schema *fs, const void *stats,
		      uint32_t absent, bool latency, const char *subject)
{
	char key[64], buf[32];

	for (int i = 0; i < fs->nrows; i++) {
		const struct schema_row *r = &fs->rows[i];
		const __u64 *v = schema_counter(r, stats);
		bool gone = schema_row_absent(fs, i, absent);

		switch (r->kind) {
		case ROW_OUTCOME:
			if (gone) {
				csv_row(out, fs->name, r->name, "calls", "");
				csv_row(out, fs->name, r->name, "latency_sum_ns", "");
				break;
			}
			csv_u64(out, fs->name, r->name, "calls", *v);
			if (latency)
				csv_u64(out, fs->name, r->name, "latency_sum_ns",
					schema_hist(r, stats)->sum);
			else /* not measured (--lean): empty, as an absent row */
				csv_row(out, fs->name, r->name, "latency_sum_ns", "");
			break;
		case ROW_ERRNOS:
			for (int e = 0; e < EXEC_ERRNO_MAX; e++)
				if (v[e])
					csv_u64(out, fs->name, errno_key(e, buf, sizeof(buf)),
						"errno_calls", v[e]);
			break;
		default:
			if (gone)
				buf[0] = 0;
			else
				snprintf(buf, sizeof(buf), r->kind == ROW_RATIO ? "%.6f" : "%.0f",
					 schema_value(fs, i, stats));
			csv_row(out, fs->name, subject, schema_row_key(r, key, sizeof(key)), buf);
		}
	}
}

void render_csv(FILE *out, const struct profile *p)
{
	fputs("family,subject,metric,value\n", out);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!csv_status(out, p, f))
			continue;
		if (!schema[f].per_fs)
			stats_csv(out, &schema[f], profile_stats(p, f, 0), p->absent[f],
				  !p->fam[f].no_latency, "all");
		for (size_t i = 0; schema[f].per_fs && i < p->nfs; i++)
			stats_csv(out, &schema[f], profile_stats(p, f, i), p->absent[f],
				  !p->fam[f].no_latency, p->fs[i].name);
	}
}
