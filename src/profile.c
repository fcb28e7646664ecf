// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A profile in memory: where each family's stats sit, its results and
 * losses, copies, sums and differences, its filesystems.  Its JSON, written
 * and read, is profile_write.c's and profile_read.c's.
 */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

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

uint64_t family_observed_ns(const struct profile *p, enum family_id f)
{
	if (p->fam[f].observed.ns)
		return p->fam[f].observed.ns;
	return p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
}

bool family_duty_cycled(const struct family_result *r)
{
	return r->observed.period_ns != 0;
}

const char *family_coverage_text(const struct family_result *r, char *buf, size_t len)
{
	if (!family_duty_cycled(r))
		snprintf(buf, len, "always on");
	else
		snprintf(buf, len, "%g s in every %g s", r->observed.window_ns / 1e9,
			 r->observed.period_ns / 1e9);
	return buf;
}

const char *family_watched_text(const struct family_result *r, char *buf, size_t len)
{
	const struct observation *o = &r->observed;
	int n;

	if (!family_duty_cycled(r)) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	n = snprintf(buf, len, "%.4g s in %llu window%s of %g s every %g s", o->ns / 1e9,
		     (unsigned long long)o->windows, o->windows == 1 ? "" : "s",
		     o->window_ns / 1e9, o->period_ns / 1e9);
	if (o->failed && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ", %llu failed", (unsigned long long)o->failed);
	return buf;
}

bool family_sampled_alike(const struct family_result *a, const struct family_result *b)
{
	return a->observed.window_ns == b->observed.window_ns &&
	       a->observed.period_ns == b->observed.period_ns;
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

const char *const cred_layout_answer_names[3] = {
	[CRED_LAYOUT_UNKNOWN] = "unknown", [CRED_LAYOUT_SEPARATED] = "separated",
	[CRED_LAYOUT_SHARES] = "shares",
};

int cred_layout_answer_by_name(const char *name)
{
	for (int a = 0; a < 3; a++)
		if (!strcmp(name, cred_layout_answer_names[a]))
			return a;
	return -1;
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
	free(p->recordings);
	free(p->mixed);
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
 * where per-fs), losses and time watched.  __u64 arithmetic is modular, so subtracting an
 * earlier reading of a loss is adding its negation.
 */
static int profile_combine(struct profile *into, const struct profile *from, bool subtract)
{
	void (*op)(void *, const void *, size_t) = subtract ? counters_sub : counters_add;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		into->absent[f] |= from->absent[f];
		into->fam[f].lean |= from->fam[f].lean;
		into->fam[f].no_latency |= from->fam[f].no_latency;
		/* A loss known on every side adds up; one side not knowing makes it unknown. */
		into->fam[f].lost_known &= from->fam[f].lost_known;
		for (int i = 0; i < from->fam[f].nlost; i++)
			family_add_lost(&into->fam[f], from->fam[f].lost[i].what,
					subtract ? -from->fam[f].lost[i].count
						 : from->fam[f].lost[i].count);
		if (!into->fam[f].lost_known)
			into->fam[f].nlost = 0;
		/* the time watched adds up like a counter; the cycle itself stays */
		op(&into->fam[f].observed.ns, &from->fam[f].observed.ns,
		   3 * sizeof(uint64_t));
		if (!into->fam[f].observed.period_ns) {
			into->fam[f].observed.window_ns = from->fam[f].observed.window_ns;
			into->fam[f].observed.period_ns = from->fam[f].observed.period_ns;
		}
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
