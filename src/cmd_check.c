// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope check: what can run on this kernel, and how struct cred is laid
 * out there or in another kernel's image (--btf).
 */
#include <bpf/btf.h>
#include <jansson.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "credlayout.h"
#include "families.h"
#include "kimage.h"
#include "record.h"
#include "util.h"

enum { OPT_FAMILIES = 0x500, OPT_MODE, OPT_BTF };

/* The JSON's "format"; docs/check.md says what changed from the last. */
#define CHECK_FORMAT "permscope-check/2"

struct check_cmd {
	struct record_opts rec; /* only .probe: which families, which modes */
	struct output_opts out;
	const char *btf_file;
	bool probe_options; /* --families or --mode given */
};

static const struct argp_option check_options[] = {
	{ "families", OPT_FAMILIES, "LIST", 0,
	  "Comma-separated families to try: lookup,access,exec (default: all)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "Try only MODE: fentry, kprobe or tracepoint (default: each in that order, up to "
	  "the first that works)", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "Read another kernel's struct cred from FILE instead, without booting it: raw BTF "
	  "(/sys/kernel/btf/vmlinux), a vmlinux ELF, a bzImage/vmlinuz (gzip, bzip2, xz, lzma, "
	  "lz4 or zstd) or a Debian linux-image-*.deb / linux-binary-*.deb.  Nothing is "
	  "attached; needs no privileges", 0 },
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
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (c->btf_file && c->probe_options)
			argp_error(state, "--btf reads a file and attaches nothing: --families and "
				   "--mode do not go with it");
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
	"'record' would (fentry, then kprobe, then tracepoint), detach again, and "
	"read the layout of struct cred from the kernel's BTF.  The layout table "
	"names every field in the cacheline of the refcount 'usage' and whether "
	"permission checks read it (uid..fsgid, securebits, cap_effective); the "
	"verdict is \"refcount shares a cacheline with read-mostly fields\" or "
	"\"separated\".  With --btf, the same for a kernel in a file, and no "
	"attach tries.\v"
	"Exit status:\n"
	"  0  the check ran, whatever the kernel has (a family that cannot attach is\n"
	"     reported with the reason for each mode, not a failure)\n"
	"  1  it could not run: no BTF readable for this kernel, or no privileges to\n"
	"     load BPF (CAP_BPF and CAP_PERFMON, or root)\n"
	"  2  bad usage, or a --btf FILE that is not a kernel it can read (one\n"
	"     'Error: FILE: ...' line says what was wrong)\n\n"
	"--json prints format \"" CHECK_FORMAT "\" (docs/check.md).\n\n"
	"Examples:\n"
	"  sudo permscope check\n"
	"  sudo permscope check --mode kprobe --json\n"
	"  permscope check --btf /boot/vmlinuz-$(uname -r)\n"
	"  permscope check --btf linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb\n",
	check_children, 0, 0,
};

/* Can this process load BPF at all: CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON? */
static bool may_load_bpf(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
	return eff & (1ULL << CAP_SYS_ADMIN) ||
	       (eff & (1ULL << 39) && eff & (1ULL << 38)); /* CAP_BPF, CAP_PERFMON (5.8) */
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
	return json_pack("{s:i,s:i,s:o,s:b,s:b,s:{s:i,s:i,s:i,s:i},s:o,s:b,s:s}", "size", l->size,
			 "cacheline", CACHELINE, "fields", fields,
			 "usage_shares_line_with_uid", l->usage_shares_uid_line,
			 "usage_shares_line_with_readers", l->usage_shares_reader_lines,
			 "usage", "offset", l->offset[CRED_USAGE], "size", l->usage_size,
			 "line", l->usage_first_line, "last_line", l->usage_last_line,
			 "usage_line_fields", line,
			 "usage_shares_line_with_checked", l->usage_shares_checked,
			 "verdict", cred_layout_verdict(l));
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
		print_json(json_pack("{s:s,s:o,s:n,s:o,s:n,s:o}", "format", CHECK_FORMAT, "kernel",
				     ki.release[0] ? json_string(ki.release) : json_null(),
				     "machine", "source", src, "families",
				     "cred_layout", layout_json(&layout)));
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
	struct cred_layout layout;
	struct utsname u;
	char err[256];
	json_t *fams;

	record_opts_init(&c.rec);
	memset(&c.out, 0, sizeof(c.out));
	c.btf_file = NULL;
	c.probe_options = false;
	parse_command(&check_argp, argc, argv, &c);
	if (c.btf_file)
		return check_file(&c);
	uname(&u);
	if (cred_layout_read(NULL, &layout, err, sizeof(err))) {
		pr_err("%s (the kernel needs CONFIG_DEBUG_INFO_BTF)", err);
		return EXIT_FAIL;
	}
	if (!may_load_bpf()) {
		pr_err("no privileges to load BPF: run as root, or with CAP_BPF and CAP_PERFMON "
		       "('permscope check --btf /sys/kernel/btf/vmlinux' reads the layout without)");
		return EXIT_FAIL;
	}
	if (ensure_tracefs())
		pr_warn("tracefs is not mounted at /sys/kernel/tracing and mounting it failed");
	families_init_logging();
	for (int f = 0; f < FAMILY_COUNT; f++)
		if (c.rec.probe.want[f])
			family_stop(family_start(f, &c.rec.probe, &res[f]));

	if (c.out.format == FORMAT_JSON) {
		fams = json_object();
		for (int f = 0; f < FAMILY_COUNT; f++) {
			json_t *attempts = json_array();

			for (int i = 0; i < res[f].nattempts; i++)
				json_array_append_new(attempts, json_pack("{s:s,s:i,s:s}",
					"mode", mode_name(res[f].attempts[i].mode),
					"errno", res[f].attempts[i].err, "why", res[f].attempts[i].why));
			json_object_set_new(fams, family_name(f), json_pack("{s:s,s:o}", "mode",
				family_state_name(&res[f]),
				"attempts", attempts));
		}
		print_json(json_pack("{s:s,s:s,s:s,s:{s:s},s:o,s:o}", "format", CHECK_FORMAT,
				     "kernel", u.release, "machine", u.machine,
				     "source", "kind", "running kernel", "families", fams,
				     "cred_layout", layout_json(&layout)));
		return EXIT_OK;
	}
	printf("permscope check: kernel %s (%s)\n", u.release, u.machine);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (res[f].status == FAMILY_NOT_REQUESTED)
			continue;
		printf("  %-7s %s\n", family_name(f), family_state_text(&res[f]));
		for (int i = 0; i < res[f].nattempts; i++)
			printf("          %-10s %s\n", mode_name(res[f].attempts[i].mode),
			       res[f].attempts[i].why);
	}
	layout_text(&layout);
	return EXIT_OK;
}
