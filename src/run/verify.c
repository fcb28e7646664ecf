// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope verify's judgement (src/run/verify.h): counters and samples in,
 * findings, verdict, exit status and output out.  docs/verify.md says how
 * each invariant is decided; the text here and there must agree.
 */
#include "run/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stddef.h>
#include <string.h>

#include "predicates.h"
#include "run/record.h"
#include "util.h"

/* ---- samples -------------------------------------------------------------- */

void verify_samples_add(void *ctx, const struct ps_sample *s)
{
	struct verify_samples *vs = ctx;

	if (s->kind >= SAMPLE_KINDS)
		return;
	vs->received[s->kind]++;
	if (vs->nkept[s->kind] < VERIFY_SAMPLES_SHOWN)
		vs->kept[s->kind][vs->nkept[s->kind]++] = *s;
}

void verify_samples_unsent(void *ctx, enum sample_kind kind, __u64 total)
{
	struct verify_samples *vs = ctx;

	if (kind < SAMPLE_KINDS)
		vs->unsent[kind] = total; /* a running total: the latest reading */
}

/* ---- judging -------------------------------------------------------------- */

static struct verify_finding *add_finding(struct verify_result *r, enum family_id f, int row,
					  bool violation, int sample_kind, uint64_t count)
{
	char key[64];

	struct verify_finding *v;

	if (r->nfindings >= VERIFY_MAX_FINDINGS)
		return NULL;
	v = &r->findings[r->nfindings++];
	memset(v, 0, sizeof(*v));
	v->family = f;
	snprintf(v->kind, sizeof(v->kind), "%s.%s", schema[f].name,
		 schema_row_key(&schema[f].rows[row], key, sizeof(key)));
	v->violation = violation;
	v->sample_kind = sample_kind;
	v->count = count;
	return v;
}

/* A finding is named by the row it counts (its metric in compare and gate). */
#define FINDING(r, f, row, viol, sk, count, ...) do {                                 \
	struct verify_finding *v_ = add_finding((r), (f), (row), (viol), (sk), (count));   \
	if (v_)                                                                          \
		snprintf(v_->text, sizeof(v_->text), __VA_ARGS__);                       \
} while (0)

/* Can the family's counts be trusted to be complete?  If not, say why. */
static bool family_judged(const struct family_result *fr, char *why, size_t len)
{
	size_t n = 0;

	why[0] = 0;
	if (fr->status == FAMILY_UNAVAILABLE) {
		n = snprintf(why, len, "could not attach");
		for (int i = 0; i < fr->nattempts && n < len; i++)
			n += snprintf(why + n, len - n, "%s %s: %s", i ? ";" : ":",
				      mode_name(fr->attempts[i].mode), fr->attempts[i].why);
		return false;
	}
	if (family_lost_total(fr) == 0)
		return true;
	n = snprintf(why, len, "lost %" PRIu64 " events, so a violation may have gone unseen (",
		     family_lost_total(fr));
	for (int i = 0, shown = 0; i < fr->nlost && n < len; i++)
		if (fr->lost[i].count)
			n += snprintf(why + n, len - n, "%s%s %" PRIu64, shown++ ? ", " : "",
				      fr->lost[i].what, fr->lost[i].count);
	if (n < len)
		snprintf(why + n, len - n, ")");
	return false;
}

static void judge_access(const struct profile *p, struct verify_result *r)
{
	uint64_t unsafe = profile_count(p, FAMILY_ACCESS, A_UNSAFE);
	uint64_t avoidable = profile_count(p, FAMILY_ACCESS, A_AVOIDABLE);

	if (unsafe)
		FINDING(r, FAMILY_ACCESS, A_UNSAFE, true, SAMPLE_ACCESS_UNSAFE, unsafe,
			"%" PRIu64 " access() calls skipped the cred override although the "
			"caller's creds needed it", unsafe);
	if (avoidable)
		FINDING(r, FAMILY_ACCESS, A_AVOIDABLE, false, -1, avoidable,
			"%" PRIu64 " access() calls allocated a cred the override did not need: "
			"the stock behaviour, not a violation", avoidable);
}

static void judge_lookup(const struct profile *p, struct verify_result *r)
{
	uint64_t violations = profile_count(p, FAMILY_LOOKUP, L_VIOLATIONS);
	uint64_t racing = profile_count(p, FAMILY_LOOKUP, L_RACING);
	char where[160] = "";
	size_t n = 0;

	for (size_t i = 0; i < p->nfs; i++)
		if (p->fs[i].s.violations && n < sizeof(where))
			n += snprintf(where + n, sizeof(where) - n, "%s%s %" PRIu64, n ? ", " : "",
				      p->fs[i].name, (uint64_t)p->fs[i].s.violations);
	if (violations)
		FINDING(r, FAMILY_LOOKUP, L_VIOLATIONS, true,
			SAMPLE_LOOKUP_INELIGIBLE_SKIP, violations,
			"%" PRIu64 " full permission checks skipped on directories the fast path "
			"may not skip (%s)", violations, where);
	if (racing)
		FINDING(r, FAMILY_LOOKUP, L_RACING, false, -1, racing,
			"%" PRIu64 " skips of ineligible directories that changed within 2 s "
			"(chmod, setfacl): the kernel may have decided before, not judged", racing);
}

static void judge_exec(const struct profile *p, struct verify_result *r)
{
	uint64_t late = profile_count(p, FAMILY_EXEC, E_ENOENT_LATE);
	uint64_t early = profile_count(p, FAMILY_EXEC, E_ENOENT_EARLY);

	if (!late)
		return;
	if (early)
		FINDING(r, FAMILY_EXEC, E_ENOENT_LATE, true, SAMPLE_EXEC_ENOENT_LATE, late,
			"%" PRIu64 " execs failed with ENOENT after an mm was allocated, although "
			"%" PRIu64 " failed before one: this kernel has the early exit, and "
			"missed it", late, early);
	else
		FINDING(r, FAMILY_EXEC, E_ENOENT_LATE, false, SAMPLE_EXEC_ENOENT_LATE, late,
			"%" PRIu64 " execs failed with ENOENT after an mm was allocated, none "
			"before one: stock kernel, no early exit: not a violation", late);
}

/*
 * A family that lost events cannot convict: a missed program makes a call
 * look broken (a missed prepare_creds() hook turns a needed access() into
 * an "unsafe" one; fentry programs preempted on 7.2 do that under load).
 * Its findings from `first` on are shown, but as unconfirmed, not as
 * violations: the verdict is then "cannot judge" (3).
 */
static void unconfirm(struct verify_result *r, int first)
{
	for (int i = first; i < r->nfindings; i++) {
		struct verify_finding *v = &r->findings[i];
		char text[sizeof(v->text)];

		if (!v->violation)
			continue;
		v->violation = false;
		snprintf(text, sizeof(text), "unconfirmed, the family lost events: %s", v->text);
		memcpy(v->text, text, sizeof(text));
	}
}

void verify_judge(const struct profile *p, struct verify_result *r)
{
	static void (*const judge[FAMILY_COUNT])(const struct profile *, struct verify_result *) = {
		[FAMILY_LOOKUP] = judge_lookup,
		[FAMILY_ACCESS] = judge_access,
		[FAMILY_EXEC] = judge_exec,
	};
	bool violation = false, unjudged = false;

	memset(r, 0, sizeof(*r));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (p->fam[f].status == FAMILY_NOT_REQUESTED)
			continue;
		r->judged[f] = family_judged(&p->fam[f], r->why[f], sizeof(r->why[f]));
		if (!judge[f]) { /* a family with no invariants yet is never "clean" */
			snprintf(r->why[f], sizeof(r->why[f]), "permscope has no invariants for it");
			r->judged[f] = false;
		}
		unjudged |= !r->judged[f];
		if (p->fam[f].status == FAMILY_OK && judge[f]) {
			int first = r->nfindings;

			judge[f](p, r);
			if (!r->judged[f])
				unconfirm(r, first);
		}
	}
	for (int i = 0; i < r->nfindings; i++)
		violation |= r->findings[i].violation;
	r->verdict = violation ? VERIFY_VIOLATION : unjudged ? VERIFY_UNJUDGED : VERIFY_CLEAN;
}

int verify_exit_status(const struct verify_result *r)
{
	switch (r->verdict) {
	case VERIFY_CLEAN:
		return EXIT_OK;
	case VERIFY_VIOLATION:
		return EXIT_FAIL;
	default:
		return EXIT_NO_VERDICT;
	}
}

static const char *verdict_name(enum verify_verdict v)
{
	return v == VERIFY_CLEAN ? "clean" : v == VERIFY_VIOLATION ? "violation" : "unjudged";
}

/* ---- what a sample says --------------------------------------------------- */

/* The schema's name of an ineligibility reason ("mode", "acl", ...). */
static const char *reason_name(__u32 why)
{
	const struct family_schema *fs = &schema[FAMILY_LOOKUP];

	for (int i = 0; i < fs->nrows && why < LOOKUP_REASONS; i++)
		if (fs->rows[i].group && !strcmp(fs->rows[i].group, "ineligible") &&
		    fs->rows[i].offset == offsetof(struct lookup_stats, ineligible) + why * sizeof(__u64))
			return fs->rows[i].name;
	return why == LOOKUP_ELIGIBLE ? "eligible_now" : "unknown";
}

static const char *acl_state(__u64 acl)
{
	if (acl == PS_ACL_NOT_CACHED || acl == PS_ACL_DONT_CACHE)
		return "unread";
	return acl ? "cached" : "none";
}

static void dev_text(__u32 dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff); /* the kernel's MKDEV */
}

/* ---- text ----------------------------------------------------------------- */

static void print_samples_text(FILE *out, int kind, const struct verify_samples *vs)
{
	static const char *const header[SAMPLE_KINDS] = {
		[SAMPLE_ACCESS_UNSAFE] =
			"PID     COMM             UID   FSUID    GID   FSGID SECBITS  CAP_EFF   CAP_PRM",
		[SAMPLE_LOOKUP_INELIGIBLE_SKIP] =
			"PID     COMM            FS       DEV     INODE      MODE   ACL    OPT-IN REASON",
		[SAMPLE_EXEC_ENOENT_LATE] =
			"PID     COMM             ERRNO    LATENCY_NS",
	};

	if (!vs || kind < 0 || !vs->nkept[kind])
		return;
	fprintf(out, "    %s\n", header[kind]);
	for (unsigned int i = 0; i < vs->nkept[kind]; i++) {
		const struct ps_sample *s = &vs->kept[kind][i];
		char comm[17], dev[16];

		snprintf(comm, sizeof(comm), "%.16s", s->comm);
		fprintf(out, "    %-7u %-16s", s->pid, comm);
		switch (kind) {
		case SAMPLE_ACCESS_UNSAFE: {
			const struct cred_view *c = &s->access.cred;

			fprintf(out, " %5u %5u %6u %6u %7u %8llx %9llx\n", c->uid, c->fsuid,
				c->gid, c->fsgid, c->securebits,
				(unsigned long long)c->cap_effective,
				(unsigned long long)c->cap_permitted);
			break;
		}
		case SAMPLE_LOOKUP_INELIGIBLE_SKIP:
			dev_text(s->lookup.dev, dev, sizeof(dev));
			fprintf(out, "%-8.8s %-7s %-10llu %06o %-6s %-6s %s\n", s->lookup.fs, dev,
				(unsigned long long)s->lookup.ino, s->lookup.d.mode,
				acl_state(s->lookup.d.acl),
				s->lookup.d.opflags & PS_IOP_FASTPERM_MAY_EXEC ? "yes" : "no",
				reason_name(s->lookup.reason));
			break;
		case SAMPLE_EXEC_ENOENT_LATE:
			fprintf(out, " %-8s %llu\n",
				strerrorname_np(-s->exec.ret) ? strerrorname_np(-s->exec.ret) : "?",
				(unsigned long long)s->exec.latency_ns);
			break;
		}
	}
	if (kind == SAMPLE_LOOKUP_INELIGIBLE_SKIP)
		fprintf(out, "    (MODE octal, with the file type; ACL: none, cached, or unread "
			"(ACL_NOT_CACHED); OPT-IN: i_opflags & 0x80)\n");
	if (kind == SAMPLE_ACCESS_UNSAFE)
		fprintf(out, "    (the cred at the call's exit; capabilities in hex)\n");
}

static void print_unsent_text(FILE *out, int kind, const struct verify_finding *v,
			      const struct verify_samples *vs)
{
	uint64_t shown;

	if (!vs || kind < 0)
		return;
	shown = vs->nkept[kind];
	if (vs->unsent[kind] || vs->received[kind] > shown)
		fprintf(out, "    (%" PRIu64 " samples shown of %" PRIu64 " sent; %" PRIu64
			" not sent: at most %d a second, or the ring was full)\n", shown,
			vs->received[kind], vs->unsent[kind], SAMPLES_PER_SECOND);
	else if (!shown && v->violation)
		fprintf(out, "    (no sample arrived)\n");
}

static void print_text(FILE *out, const struct profile *p, const struct verify_result *r,
		       const struct verify_samples *vs)
{
	char line[256];

	recorder_describe(p, line, sizeof(line));
	fprintf(out, "permscope verify: kernel %s\n  families: %s\n", printable(p->kernel_release),
		line);
	if (p->command) {
		fprintf(out, "  command:");
		for (char **a = p->command; *a; a++)
			fprintf(out, " %s", printable(*a));
		if (p->exit_status >= 0)
			fprintf(out, " (exit %d)", p->exit_status);
		fputc('\n', out);
	}
	/* What was looked at: a clean verdict over nothing is no evidence. */
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (p->fam[f].status == FAMILY_OK)
			fprintf(out, "  %-8s %.0f %s seen\n", family_name(f), family_events(p, f),
				f == FAMILY_LOOKUP ? "MAY_EXEC checks on directories" : "calls");
	fputc('\n', out);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < r->nfindings; i++) {
			const struct verify_finding *v = &r->findings[i];

			if (v->violation != !pass)
				continue;
			fprintf(out, "%-10s %s:", v->violation ? "VIOLATION" : "info", v->kind);
			fold_words(out, 11 + (int)strlen(v->kind) + 1, 13, 80, v->text);
			if (v->violation)
				print_samples_text(out, v->sample_kind, vs);
			print_unsent_text(out, v->sample_kind, v, vs);
		}
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (p->fam[f].status != FAMILY_NOT_REQUESTED && !r->judged[f]) {
			fprintf(out, "%-10s %s:", "unjudged", family_name(f));
			fold_words(out, 11 + (int)strlen(family_name(f)) + 1, 13, 80, r->why[f]);
		}
	if (r->nfindings || r->verdict != VERIFY_CLEAN)
		fputc('\n', out);
	switch (r->verdict) {
	case VERIFY_CLEAN:
		fprintf(out, "Verdict: clean, no invariant broke (exit 0)\n");
		break;
	case VERIFY_VIOLATION:
		fprintf(out, "Verdict: VIOLATION, an invariant broke (exit 1)\n");
		break;
	default:
		fprintf(out, "Verdict: cannot judge, nothing broke in what was seen (exit 3)\n");
	}
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *sample_json(const struct ps_sample *s)
{
	json_t *o = json_pack("{s:I, s:I, s:s#, s:I}", "pid", (json_int_t)s->pid, "tid",
			      (json_int_t)s->tid, "comm", s->comm, (int)strnlen(s->comm, 16),
			      "time_ns", (json_int_t)s->time_ns);
	char dev[16], mode[16];

	switch (s->kind) {
	case SAMPLE_ACCESS_UNSAFE:
		json_object_set_new(o, "cred", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"uid", (json_int_t)s->access.cred.uid, "gid", (json_int_t)s->access.cred.gid,
			"fsuid", (json_int_t)s->access.cred.fsuid,
			"fsgid", (json_int_t)s->access.cred.fsgid,
			"securebits", (json_int_t)s->access.cred.securebits,
			"cap_effective", (json_int_t)s->access.cred.cap_effective,
			"cap_permitted", (json_int_t)s->access.cred.cap_permitted,
			"ns_root_uid", (json_int_t)s->access.cred.root_uid));
		break;
	case SAMPLE_LOOKUP_INELIGIBLE_SKIP:
		dev_text(s->lookup.dev, dev, sizeof(dev));
		snprintf(mode, sizeof(mode), "%06o", s->lookup.d.mode);
		json_object_update_new(o, json_pack("{s:s#, s:s, s:I, s:s, s:s, s:b, s:I, s:s}",
			"fs", s->lookup.fs, (int)strnlen(s->lookup.fs, FS_NAME_LEN), "dev", dev,
			"ino", (json_int_t)s->lookup.ino, "mode", mode,
			"acl", acl_state(s->lookup.d.acl),
			"opt_in", (int)!!(s->lookup.d.opflags & PS_IOP_FASTPERM_MAY_EXEC),
			"i_opflags", (json_int_t)s->lookup.d.opflags,
			"reason", reason_name(s->lookup.reason)));
		break;
	case SAMPLE_EXEC_ENOENT_LATE:
		json_object_set_new(o, "errno", json_integer(-s->exec.ret));
		json_object_set_new(o, "latency_ns", json_integer((json_int_t)s->exec.latency_ns));
		break;
	}
	return o;
}

static json_t *to_json(const struct profile *p, const struct verify_result *r,
		       const struct verify_samples *vs)
{
	json_t *root = json_object(), *fams = json_object(), *list = json_array(), *cmd;

	json_object_set_new(root, "format", json_string(VERIFY_FORMAT));
	json_object_set_new(root, "kernel_release", json_string(p->kernel_release));
	json_object_set_new(root, "hostname", json_string(p->hostname));
	/* which build judged: a verdict is the kernel's and this permscope's */
	json_object_set_new(root, "build", build_info_known(&p->build) ?
			    build_info_to_json(&p->build) : json_null());
	cmd = p->command ? json_array() : json_null();
	for (char **a = p->command; a && *a; a++)
		json_array_append_new(cmd, json_string(*a));
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "verdict", json_string(verdict_name(r->verdict)));
	json_object_set_new(root, "exit_status", json_integer(verify_exit_status(r)));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (p->fam[f].status == FAMILY_NOT_REQUESTED)
			continue;
		json_object_set_new(fams, family_name(f), json_pack("{s:s, s:b, s:I, s:I, s:s?}",
			"state", family_state_name(&p->fam[f]), "judged", (int)r->judged[f],
			"events", (json_int_t)family_events(p, f),
			"lost", (json_int_t)family_lost_total(&p->fam[f]),
			"why", r->judged[f] ? NULL : r->why[f]));
	}
	json_object_set_new(root, "families", fams);
	for (int i = 0; i < r->nfindings; i++) {
		const struct verify_finding *v = &r->findings[i];
		int k = v->sample_kind;
		json_t *o = json_pack("{s:s, s:s, s:b, s:I, s:s}", "kind", v->kind,
				      "family", family_name(v->family), "violation", (int)v->violation,
				      "count", (json_int_t)v->count, "text", v->text);
		json_t *samples = json_array();

		if (vs && k >= 0) {
			json_object_set_new(o, "samples_sent", json_integer((json_int_t)vs->received[k]));
			json_object_set_new(o, "samples_unsent", json_integer((json_int_t)vs->unsent[k]));
			for (unsigned int j = 0; j < vs->nkept[k]; j++)
				json_array_append_new(samples, sample_json(&vs->kept[k][j]));
		}
		json_object_set_new(o, "samples", samples);
		json_array_append_new(list, o);
	}
	json_object_set_new(root, "findings", list);
	return root;
}

int verify_report(FILE *out, const struct profile *p, const struct verify_samples *vs,
		  enum output_format format)
{
	struct verify_result r;
	json_t *root;

	verify_judge(p, &r);
	if (format == FORMAT_JSON) {
		root = to_json(p, &r, vs);
		if (!root || json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) {
			json_decref(root);
			pr_err("verify: cannot write the JSON: %s", strerror(ENOMEM));
			return EXIT_FAIL;
		}
		fputc('\n', out);
		json_decref(root);
	} else {
		print_text(out, p, &r, vs);
	}
	return verify_exit_status(&r);
}
