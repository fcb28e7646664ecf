// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope check: what can run on this kernel, and how struct cred is laid
 * out there or in another kernel's image (--btf).
 */
#include <bpf/btf.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "kernel/credlayout.h"
#include "probe/attach.h"
#include "kernel/kimage.h"
#include "kernel/preempt.h"
#include "run/record.h"
#include "run/selftest.h"
#include "util.h"

enum { OPT_FAMILIES = 0x500, OPT_MODE, OPT_BTF, OPT_SELF_TEST, OPT_NO_SELF_TEST };

/* The JSON's "format"; docs/check.md says what changed from the last. */
/* /3: cred_layout.verdict is the answer's word (verdict_text the sentence); a fourth
 * self-test row, cred_refcount_line */
#define CHECK_FORMAT "permscope-check/3"

struct check_cmd {
	struct record_opts rec; /* only .probe: which families, which modes */
	struct output_opts out;
	const char *btf_file;
	bool probe_options; /* --families or --mode given */
	int self_test;      /* 1 --self-test, 0 --no-self-test, -1 the default: on without --btf */
};

static const struct argp_option check_options[] = {
	{ "families", OPT_FAMILIES, "LIST", 0,
	  "Comma-separated families to try: " FAMILY_NAMES " (default: all)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Try only MODE, one of " MODE_NAMES " (default: each in the order this "
	  "kernel calls for, up to the first that works)", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "Read another kernel's struct cred from FILE instead, without booting it: raw BTF "
	  "(/sys/kernel/btf/vmlinux), a vmlinux ELF, a bzImage/vmlinuz (gzip, bzip2, xz, lzma, "
	  "lz4 or zstd) or a Debian linux-image-*.deb / linux-binary-*.deb.  Nothing is "
	  "attached; needs no privileges", 0 },
	{ "self-test", OPT_SELF_TEST, 0, 0,
	  "Run a known workload with the families that attach and say, from its counts, whether "
	  "this kernel has each fast path: faccessat cred skip, ENOENT before mm, MAY_EXEC "
	  "lookup skip (yes, no, or unknown with the reason).  The default on the running "
	  "kernel; not with --btf", 0 },
	{ "no-self-test", OPT_NO_SELF_TEST, 0, 0, "Only try the attach modes and read the layout", 0 },
	{ 0 },
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		break;
	case OPT_FAMILIES:
		parse_families_arg(arg, c->rec.probe.want, state);
		c->probe_options = true;
		break;
	case OPT_MODE:
		c->rec.probe.only_mode = parse_mode_arg(arg, state);
		c->probe_options = true;
		break;
	case OPT_BTF:
		c->btf_file = arg;
		break;
	case OPT_SELF_TEST:
	case OPT_NO_SELF_TEST:
		c->self_test = key == OPT_SELF_TEST;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (c->btf_file && c->probe_options)
			argp_error(state, "--btf reads a file and attaches nothing: --families and "
				   "--mode do not go with it");
		if (c->btf_file && c->self_test == 1)
			argp_error(state, "--self-test runs on the running kernel, not with --btf");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* -j/--format and -v (libbpf's log); check prints no progress for -q to silence. */
static const struct argp_child check_output_children[] = {
	{ &output_argp, 0, 0, 0 },
	{ &bpf_verbose_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp check_output_argp = {
	0, first_child_parse, 0, 0, check_output_children, 0, 0,
};

static const struct argp_child check_children[] = {
	{ &check_output_argp, 0, "Output:", 2 },
	{ 0 },
};

static const struct argp check_argp = {
	check_options, check_parse, 0,
	"What this kernel has: try to load and attach every probe family the way "
	"'record' would, detach again, and "
	"read the layout of struct cred from the kernel's BTF.  The modes are tried "
	"in the order this kernel calls for, and the first line says why: fentry "
	"first where the kernel cannot preempt a BPF program, kprobe first where it "
	"can (a preempted fentry program makes the calls of every other task on its "
	"CPU go uncounted); each family says why it took its mode.  The layout table "
	"names every field in the cacheline of the refcount 'usage' and whether "
	"permission checks read it (uid..fsgid, securebits, cap_effective), and the "
	"verdict:\nshares (the refcount shares a cacheline with read-mostly fields) or "
	"separated.  With --btf, the same for a kernel in a file, and no "
	"attach tries.\n\n"
	"The self-test (on by default without --btf) records, filtered to a child "
	"process of its own, a few hundred access(\"/\") calls with the default creds "
	"and as many with one capability cleared from the effective set, a few dozen "
	"execve()s of a missing path and a few of an existing file with an argument "
	"over the kernel's 128 KiB limit (E2BIG after the mm), and a few hundred stats "
	"at the end of six 0755 directories on a private tmpfs (and some through a "
	"0700 one), then gives one verdict per fast path with its counts: yes, no, "
	"or unknown with the reason (a family that cannot attach, events lost, a "
	"positive control that failed).  The workload and its readings take "
	"milliseconds; loading, attaching and detaching the families take the rest "
	"(about 1.4 s in all in tracepoint mode on a 2-core machine, 0.25 s more "
	"than without the self-test).\v"
	"Exit status:\n"
	"  0  the check ran, whatever the kernel has (a family that cannot attach is\n"
	"     reported with the reason for each mode, not a failure; so is a self-test\n"
	"     verdict of \"no\" or \"unknown\")\n"
	"  1  it could not run: no BTF readable for this kernel, or no privileges to\n"
	"     load BPF (CAP_BPF and CAP_PERFMON, or root), or the self-test's\n"
	"     workload could not start (no temporary directory, fork failed)\n"
	"  2  bad usage, or a --btf FILE that is not a kernel it can read (one\n"
	"     'Error: FILE: ...' line says what was wrong)\n\n"
	"--json prints format \"" CHECK_FORMAT "\" (docs/check.md).\n\n"
	"Examples:\n"
	"  sudo permscope check\n"
	"  sudo permscope check --mode kprobe --json\n"
	"  sudo permscope check --no-self-test\n"
	"  permscope check --btf /boot/vmlinuz-$(uname -r)\n"
	"  permscope check --btf linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb\n",
	check_children, 0, 0,
};

/*
 * Why a family attached in its mode: forced, this kernel's first choice,
 * or the modes before it failed (listed after it).  NULL if it did not.
 */
static const char *chosen_why(const struct probe_opts *o, const struct family_result *r,
			      enum attach_mode first, char *buf, size_t len)
{
	if (r->status != FAMILY_OK)
		return NULL;
	if (o->only_mode != MODE_NONE)
		snprintf(buf, len, "forced with --mode");
	else if (r->mode == first)
		snprintf(buf, len, "this kernel's first choice");
	else
		snprintf(buf, len, "the modes before it failed");
	return buf;
}

/* The lines a field spans: "2" or "2-3". */
static const char *line_span(const struct cred_member *m, char *buf, size_t size)
{
	int first = m->offset / CACHELINE, last = (m->offset + (m->size ? m->size : 1) - 1) / CACHELINE;

	if (first == last)
		snprintf(buf, size, "%d", first);
	else
		snprintf(buf, size, "%d-%d", first, last);
	return buf;
}

static json_t *layout_json(const struct cred_layout *l)
{
	json_t *fields = json_object(), *line = json_array();

	for (int f = 0; f < CRED_FIELDS; f++)
		json_object_set_new(fields, cred_field_names[f], l->offset[f] < 0 ? json_null() :
			json_pack("{s:i,s:i}", "offset", l->offset[f], "line", l->offset[f] / CACHELINE));
	for (int i = 0; i < l->nline; i++) {
		const struct cred_member *m = &l->line[i];

		json_array_append_new(line, json_pack("{s:s,s:i,s:i,s:i,s:i,s:b}", "name", m->name,
			"offset", m->offset, "size", m->size, "line", m->offset / CACHELINE,
			"last_line", (m->offset + (m->size ? m->size : 1) - 1) / CACHELINE,
			"read_by_permission_checks", m->checked));
	}
	return json_pack("{s:i,s:i,s:o,s:b,s:b,s:{s:i,s:i,s:i,s:i},s:o,s:b,s:s,s:s}", "size", l->size,
			 "cacheline", CACHELINE, "fields", fields,
			 "usage_shares_line_with_uid", l->usage_shares_uid_line,
			 "usage_shares_line_with_readers", l->usage_shares_reader_lines,
			 "usage", "offset", l->offset[CRED_USAGE], "size", l->usage_size,
			 "line", l->usage_first_line, "last_line", l->usage_last_line,
			 "usage_line_fields", line,
			 "usage_shares_line_with_checked", l->usage_shares_checked,
			 "verdict", cred_layout_answer_names[cred_layout_answer(l)],
			 "verdict_text", cred_layout_verdict(l));
}

static void layout_text(const struct cred_layout *l)
{
	char span[32];
	int nchecked = 0;

	printf("\nstruct cred: %d bytes; the refcount usage: %d bytes at offset %d, cacheline %s "
	       "(%d-byte lines)\n", l->size, l->usage_size, l->offset[CRED_USAGE],
	       line_span(&(struct cred_member){ .offset = l->offset[CRED_USAGE],
						.size = l->usage_size }, span, sizeof(span)),
	       CACHELINE);
	printf("every field with a byte in that line:\n");
	printf("  %-20s %6s %5s %5s  %s\n", "FIELD", "OFFSET", "SIZE", "LINE",
	       "READ BY PERMISSION CHECKS");
	for (int i = 0; i < l->nline; i++) {
		const struct cred_member *m = &l->line[i];
		bool usage = !strcmp(m->name, cred_field_names[CRED_USAGE]);

		printf("  %-20s %6d %5d %5s  %s\n", m->name, m->offset, m->size,
		       line_span(m, span, sizeof(span)),
		       usage ? "no (the refcount: written by get_cred/put_cred)" :
		       m->checked ? "yes" : "no");
		nchecked += m->checked;
	}
	/* the word, and the sentence where it says more than the word */
	if (strcmp(cred_layout_answer_names[cred_layout_answer(l)], cred_layout_verdict(l)))
		printf("verdict: %s (%s)\n", cred_layout_answer_names[cred_layout_answer(l)],
		       cred_layout_verdict(l));
	else
		printf("verdict: %s\n", cred_layout_verdict(l));
	if (nchecked) {
		char names[CRED_LINE_MEMBERS * 49] = "", *p = names;

		for (int i = 0; i < l->nline; i++)
			if (l->line[i].checked)
				p += sprintf(p, " %s", l->line[i].name);
		fold_words(stdout, printf("  permission checks read %d fields of usage's line:",
					  nchecked), 3, 80, names);
	}
}

static void print_json(json_t *root)
{
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
}

/*
 * The self-test table's fourth row, the cred refcount cacheline, read from
 * the kernel's BTF (no workload can show a layout): its answer, and why in
 * words, with the fields permission checks read in usage's line.
 */
#define LAYOUT_ROW_TITLE "cred refcount line"
#define LAYOUT_ROW_KEY "cred_refcount_line"
static enum cred_layout_answer layout_row(const struct cred_layout *l, char *why, size_t len)
{
	enum cred_layout_answer a = cred_layout_answer(l);
	size_t n;

	if (a == CRED_LAYOUT_UNKNOWN) {
		snprintf(why, len, "no struct cred with a usage in this kernel's BTF");
		return a;
	}
	n = snprintf(why, len, "usage at offset %d, cacheline %d; %s", l->offset[CRED_USAGE],
		     l->usage_first_line, a == CRED_LAYOUT_SEPARATED ?
		     "no field permission checks read shares its line" :
		     "permission checks read these fields of its line:");
	for (int i = 0; a == CRED_LAYOUT_SHARES && i < l->nline && n < len; i++)
		if (l->line[i].checked)
			n += snprintf(why + n, len - n, " %s", l->line[i].name);
	return a;
}

/* The self-test: what ran and each verdict with its counts (docs/check.md). */
static json_t *selftest_json(const struct selftest *t, const struct selftest_verdict *v,
			     const struct cred_layout *l)
{
	char why[512];
	enum cred_layout_answer a;
	json_t *workload = json_object(), *not_run = json_object(), *verdicts = json_object();

	for (int ph = 0; ph < ST_PHASES; ph++) {
		json_object_set_new(workload, selftest_phase_name(ph), json_integer(t->n[ph]));
		if (t->not_run[ph][0])
			json_object_set_new(not_run, selftest_phase_name(ph), json_string(t->not_run[ph]));
	}
	for (int p = 0; p < ST_PATHS; p++) {
		json_t *counts = json_object();

		for (int i = 0; i < v[p].ncount; i++)
			json_object_set_new(counts, v[p].count[i].name,
					    json_integer((json_int_t)v[p].count[i].value));
		json_object_set_new(verdicts, selftest_path_key(p), json_pack("{s:s,s:s,s:s,s:o}",
			"title", selftest_path_title(p), "answer", selftest_answer_name(v[p].answer),
			"why", v[p].why, "counts", counts));
	}
	a = layout_row(l, why, sizeof(why));
	json_object_set_new(verdicts, LAYOUT_ROW_KEY, json_pack("{s:s,s:s,s:s,s:{s:i,s:i}}",
		"title", LAYOUT_ROW_TITLE, "answer", cred_layout_answer_names[a], "why", why,
		"counts", "usage_offset", l->offset[CRED_USAGE], "usage_line", l->usage_first_line));
	return json_pack("{s:f,s:f,s:f,s:s,s:s,s:o,s:o,s:o}", "elapsed_s", t->elapsed_s,
			 "attach_s", t->attach_s, "detach_s", t->detach_s, "where", t->where,
			 "fs", t->fs, "workload", workload, "failed", not_run, "verdicts", verdicts);
}

static void selftest_text(const struct selftest *t, const struct selftest_verdict *v,
			  const struct cred_layout *l)
{
	char line[256], why[512];
	enum cred_layout_answer a;

	recorder_describe(&t->run, line, sizeof(line));
	printf("\nself-test: the workload and its readings %.1f ms (attaching %.2f s, detaching "
	       "%.2f s)\n  %s\n  tree: %s\n", t->elapsed_s * 1e3, t->attach_s, t->detach_s, line,
	       t->where);
	printf("  %-21s %-7s %s\n", "FAST PATH", "ANSWER",
	       "EVIDENCE: the calls counted; the layout from BTF");
	for (int p = 0; p < ST_PATHS; p++) {
		size_t len = 0;

		line[0] = 0;
		for (int i = 0; i < v[p].ncount && len < sizeof(line); i++)
			len += snprintf(line + len, sizeof(line) - len, " %s=%llu", v[p].count[i].name,
					(unsigned long long)v[p].count[i].value);
		fold_words(stdout, printf("  %-21s %-7s", selftest_path_title(p),
					  selftest_answer_name(v[p].answer)), 31, 80, line);
		fold_words(stdout, printf("%31s", ""), 31, 80, v[p].why);
	}
	/* the fourth change, a fact of the layout: the same table, the same words */
	a = layout_row(l, why, sizeof(why));
	fold_words(stdout, printf("  %-21s %-7s", LAYOUT_ROW_TITLE, cred_layout_answer_names[a]),
		   31, 80, why);
}

/* --btf FILE: the layout of the kernel in FILE; nothing attached. */
static int check_file(const struct check_cmd *c)
{
	struct cred_layout layout;
	struct kimage ki;
	char err[512];
	int ret;

	if (kimage_read(c->btf_file, &ki, err, sizeof(err))) {
		pr_err("%s: %s", c->btf_file, err);
		return EXIT_USAGE;
	}
	ret = cred_layout_from_btf(ki.btf, &layout, err, sizeof(err));
	btf__free(ki.btf);
	if (ret) {
		pr_err("%s: %s", c->btf_file, err);
		return EXIT_USAGE;
	}
	if (c->out.format == FORMAT_JSON) {
		json_t *src = json_pack("{s:s,s:s}", "file", c->btf_file, "kind",
					kimage_kind_name(ki.kind));

		if (ki.compression[0])
			json_object_set_new(src, "compression", json_string(ki.compression));
		if (ki.member[0])
			json_object_set_new(src, "member", json_string(ki.member));
		print_json(json_pack("{s:s,s:o,s:n,s:o,s:n,s:n,s:n,s:n,s:o,s:n}", "format",
				     CHECK_FORMAT, "kernel",
				     ki.release[0] ? json_string(ki.release) : json_null(),
				     "machine", "source", src, "preemption", "mode_order",
				     "mode_order_why", "families",
				     "cred_layout", layout_json(&layout), "self_test"));
		return EXIT_OK;
	}
	printf("permscope check: kernel %s; attach tries skipped (--btf)\n",
	       ki.release[0] ? ki.release : "of unknown release");
	printf("  read from %s: %s%s%s%s%s\n", c->btf_file, kimage_kind_name(ki.kind),
	       ki.member[0] ? ", " : "", ki.member, ki.compression[0] ? ", " : "", ki.compression);
	layout_text(&layout);
	return EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	struct check_cmd c;
	struct family_result res[FAMILY_COUNT] = {0};
	struct selftest_verdict verdict[ST_PATHS];
	struct cred_layout layout;
	struct selftest t;
	const struct preemption *pre = preemption_running();
	enum attach_mode order[MODE_COUNT];
	char err[256], order_why[512], why[64];
	struct utsname u;
	json_t *fams;
	int norder;

	record_opts_init(&c.rec);
	memset(&c.out, 0, sizeof(c.out));
	c.btf_file = NULL;
	c.probe_options = false;
	c.self_test = -1;
	parse_command(&check_argp, argc, argv, &c);
	if (c.btf_file)
		return check_file(&c);
	c.self_test = c.self_test != 0;
	host_uname(&u);
	if (cred_layout_read(NULL, &layout, err, sizeof(err))) {
		pr_err("%s (the kernel needs CONFIG_DEBUG_INFO_BTF)", err);
		return EXIT_FAIL;
	}
	if (!families_may_load("check", "'permscope check --btf /sys/kernel/btf/vmlinux' "
				 "reads the layout without"))
		return EXIT_FAIL;
	if (ensure_tracefs())
		pr_warn("tracefs is not mounted at /sys/kernel/tracing and mounting it failed");
	families_init_logging();
	selftest_init(&t);
	if (c.self_test) {
		if (selftest_run(&c.rec.probe, &t) != EXIT_OK) {
			selftest_free(&t);
			return EXIT_FAIL;
		}
		memcpy(res, t.run.fam, sizeof(res));
		for (int p = 0; p < ST_PATHS; p++)
			selftest_judge(&t, p, &verdict[p]);
	} else {
		for (int f = 0; f < FAMILY_COUNT; f++)
			if (c.rec.probe.want[f])
				family_stop(family_start(f, &c.rec.probe, &res[f]));
	}

	norder = families_mode_order(order, order_why, sizeof(order_why));
	if (c.out.format == FORMAT_JSON) {
		json_t *modes = json_array();

		for (int i = 0; i < norder; i++)
			json_array_append_new(modes, json_string(mode_name(order[i])));
		fams = json_object();
		for (int f = 0; f < FAMILY_COUNT; f++) {
			json_t *attempts = json_array();

			for (int i = 0; i < res[f].nattempts; i++)
				json_array_append_new(attempts, json_pack("{s:s,s:i,s:s}",
					"mode", mode_name(res[f].attempts[i].mode),
					"errno", res[f].attempts[i].err, "why", res[f].attempts[i].why));
			json_object_set_new(fams, family_name(f), json_pack("{s:s,s:s?,s:o}", "mode",
				family_state_name(&res[f]),
				"chosen", chosen_why(&c.rec.probe, &res[f], order[0], why, sizeof(why)),
				"attempts", attempts));
		}
		print_json(json_pack("{s:s,s:s,s:s,s:{s:s},s:{s:s,s:s,s:b},s:o,s:s,s:o,s:o,s:o}",
				     "format", CHECK_FORMAT,
				     "kernel", u.release, "machine", u.machine,
				     "source", "kind", "running kernel",
				     "preemption", "model", preempt_model_name(pre->model),
				     "from", pre->source,
				     "preempts_bpf", preempt_model_preempts_bpf(pre->model),
				     "mode_order", modes, "mode_order_why", order_why,
				     "families", fams,
				     "cred_layout", layout_json(&layout),
				     "self_test", c.self_test ? selftest_json(&t, verdict, &layout) : json_null()));
		selftest_free(&t);
		return EXIT_OK;
	}
	printf("permscope check: kernel %s (%s)\n", u.release, u.machine);
	fold_words(stdout, printf("  modes:"), 10, 80, order_why);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		const char *chosen = chosen_why(&c.rec.probe, &res[f], order[0], why, sizeof(why));

		if (res[f].status == FAMILY_NOT_REQUESTED)
			continue;
		printf("  %-7s %s%s%s\n", family_name(f), family_state_text(&res[f]),
		       chosen ? ": " : "", chosen ? chosen : "");
		for (int i = 0; i < res[f].nattempts; i++)
			printf("          %-10s %s\n", mode_name(res[f].attempts[i].mode),
			       res[f].attempts[i].why);
		if (res[f].status == FAMILY_OK && c.rec.probe.only_mode == MODE_NONE &&
		    res[f].mode == order[0])
			printf("          %-10s not tried: %s\n", mode_name(order[1]),
			       order[1] == MODE_FENTRY ? "would lose events under load here"
						       : "costs more per call than fentry, "
							 "exact here");
	}
	if (c.self_test)
		selftest_text(&t, verdict, &layout);
	layout_text(&layout);
	selftest_free(&t);
	return EXIT_OK;
}
