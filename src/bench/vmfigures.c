// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "bench/vmfigures.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "util.h"

/* ---- reading ------------------------------------------------------------- */

static int parse_number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

int vmfigures_parse(const char *text, size_t len, struct vmfigures *f, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	unsigned int lineno = 0;

	f->n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		struct vmfig_line *l;
		size_t n = 0;

		if (!eol)
			eol = end;
		lineno++;
		if (eol == p) { /* an empty line */
			p = eol + 1;
			continue;
		}
		if (f->n == VMFIG_MAX_LINES) {
			snprintf(err, errlen, "line %u: more than %d lines", lineno, VMFIG_MAX_LINES);
			return -1;
		}
		l = &f->line[f->n];
		memset(l, 0, sizeof(*l));
		for (; q < eol && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-');
		     q++) {
			if (n + 1 >= sizeof(l->name)) {
				snprintf(err, errlen, "line %u: a name longer than %zu bytes", lineno,
					 sizeof(l->name) - 1);
				return -1;
			}
			l->name[n++] = *q;
		}
		if (!n || q == eol || *q++ != ' ' || parse_number(&q, eol, &l->a)) {
			snprintf(err, errlen, "line %u: expected NAME NUMBER [NUMBER] (a name of "
				 "a-z, 0-9 and -, whole numbers)", lineno);
			return -1;
		}
		if (q < eol && *q == ' ') {
			q++;
			l->two = true;
			if (parse_number(&q, eol, &l->b)) {
				snprintf(err, errlen, "line %u: the second number is not a whole number",
					 lineno);
				return -1;
			}
		}
		if (q != eol) {
			snprintf(err, errlen, "line %u: something after the numbers", lineno);
			return -1;
		}
		/* one total a configuration: a second would leave which one counts to chance */
		for (size_t i = 0; i < f->n; i++)
			if (!strcmp(f->line[i].name, l->name)) {
				snprintf(err, errlen, "line %u: %s a second time", lineno, l->name);
				return -1;
			}
		f->n++;
		p = eol + 1;
	}
	return 0;
}

/* "counting 0.2 s in every 30 s: ..." or "counting always on: ..." in the daemon's log. */
static void read_cycle(const char *dir, struct vmfigures *f)
{
	char path[PATH_MAX], err[256], *text, *at;
	size_t len, n = 0;

	f->cycle[0] = 0;
	snprintf(path, sizeof(path), "%s/daemon-default.err", dir);
	if (read_input_file(path, 64 * 1024, &text, &len, err, sizeof(err)))
		return;
	if ((at = strstr(text, "counting "))) {
		at += strlen("counting ");
		while (n + 1 < sizeof(f->cycle) && at[n] && at[n] != ':' && at[n] != '\n' &&
		       (at[n] == ' ' || at[n] == '.' || (at[n] >= '0' && at[n] <= '9') ||
			(at[n] >= 'a' && at[n] <= 'z')))
			n++;
		if (at[n] == ':')
			snprintf(f->cycle, sizeof(f->cycle), "%.*s", (int)n, at);
	}
	free(text);
}

int vmfigures_read(const char *dir, struct vmfigures *f, char *err, size_t errlen)
{
	char path[PATH_MAX], why[PATH_MAX + 256], *text;
	struct profile p;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/overhead.txt", dir);
	if (read_input_file(path, VMFIG_MAX_BYTES, &text, &len, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	ret = vmfigures_parse(text, len, f, why, sizeof(why));
	free(text);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	/* What one stat() loop made, as the probes counted it: the lookup divisor. */
	f->lookup_checks = 0;
	snprintf(path, sizeof(path), "%s/calls.json", dir);
	if (!access(path, F_OK)) {
		if (profile_read(path, &p, why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", path, why);
			return -1;
		}
		for (size_t i = 0; i < p.nfs; i++)
			f->lookup_checks += p.fs[i].s.checks;
		profile_free(&p);
	}
	for (int fam = 0; fam < FAMILY_COUNT; fam++) {
		f->default_mode[fam] = MODE_NONE;
		snprintf(path, sizeof(path), "%s/%s-default-1.json", dir, family_name(fam));
		if (access(path, F_OK))
			continue;
		if (profile_read(path, &p, why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", path, why);
			return -1;
		}
		if (p.fam[fam].status == FAMILY_OK)
			f->default_mode[fam] = p.fam[fam].mode;
		profile_free(&p);
	}
	read_cycle(dir, f);
	return 0;
}

/* ---- figures ------------------------------------------------------------- */

static const struct vmfig_line *find(const struct vmfigures *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->line[i].name, name))
			return &f->line[i];
	return NULL;
}

static uint64_t count_of(const struct vmfigures *f, const char *name)
{
	const struct vmfig_line *l = find(f, name);

	return l ? l->a : 0;
}

/* What a configuration's calls are, its baseline and its divisor; false: none. */
static bool kind_of(const struct vmfigures *f, const char *name, const char **what,
		    const char **base, uint64_t *calls)
{
	static const char *const counts[] = { "stats", "accesses", "taxed-stats", "execs" };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (!strcmp(name, counts[i]))
			return false;
	/* the baselines, and the daemon's loops (their own table) */
	if (has_prefix(name, "daemon-") || !strcmp(name, "none") ||
	    (strlen(name) >= 5 && !strcmp(name + strlen(name) - 5, "-none")))
		return false;
	if (has_prefix(name, "access-")) {
		*what = "access() call", *base = "access-none", *calls = count_of(f, "accesses");
	} else if (has_prefix(name, "tax-")) {
		*what = "stat() call", *base = "tax-none", *calls = count_of(f, "taxed-stats");
	} else if (has_prefix(name, "exec-")) {
		*what = "failing execve()", *base = "exec-none", *calls = count_of(f, "execs");
	} else {
		*what = "check", *base = "none", *calls = f->lookup_checks;
	}
	return true;
}

/*
 * Extra instructions per call of configuration `name`, and (`what`, when
 * not NULL) what its calls are; false when it has none.
 */
static bool per_call(const struct vmfigures *f, const char *name, double *v, const char **what)
{
	const struct vmfig_line *l = find(f, name), *b;
	const char *kind, *base;
	uint64_t calls;

	if (!l || l->two || !kind_of(f, name, &kind, &base, &calls) || !calls ||
	    !(b = find(f, base)) || b->two)
		return false;
	*v = ((double)l->a - (double)b->a) / (double)calls;
	if (what)
		*what = kind;
	return true;
}

/* The rows of the per-mode table: title, configuration prefix, floor prefix, family. */
static const struct mode_row {
	const char *title, *prefix, *floor;
	enum family_id fam;
} mode_rows[] = {
	{ "lookup", "lookup-", "empty-", FAMILY_LOOKUP },
	{ "lookup --lean", "lean-", "empty-", FAMILY_LOOKUP },
	{ "access", "access-", "access-empty-", FAMILY_ACCESS },
	{ "access --lean", "access-lean-", "access-empty-", FAMILY_ACCESS },
	{ "exec", "exec-", "exec-empty-", FAMILY_EXEC },
	{ "exec --lean", "exec-lean-", "exec-empty-", FAMILY_EXEC },
};
static const char *const table_modes[] = { "fentry", "kprobe", "tracepoint", "default" };
#define NROWS (sizeof(mode_rows) / sizeof(mode_rows[0]))

/* The daemon's loops and what they are. */
static const char *const loops[][2] = {
	{ "stat", "stat(), 6-deep tmpfs path" },
	{ "access", "access(), distinct files" },
	{ "execvp", "execvp(), 7-entry PATH" },
};
static const char *const daemon_confs[] = { "none", "always", "default" };

/* The daemon part's instructions per call of loop `bench` under `conf`. */
static bool daemon_per_call(const struct vmfigures *f, const char *bench, const char *conf,
			    double *v)
{
	char name[VMFIG_NAME_LEN + 16];
	const struct vmfig_line *l;

	snprintf(name, sizeof(name), "daemon-%s-%s", bench, conf);
	l = find(f, name);
	if (!l || !l->two || !l->a)
		return false;
	*v = (double)l->b / (double)l->a;
	return true;
}

static void print_text(FILE *out, const struct vmfigures *f)
{
	char key[96], floor[96], cell[112];
	bool any_plain = false, head = false;
	double v, fl, last;

	for (size_t i = 0; i < f->n; i++)
		any_plain |= !has_prefix(f->line[i].name, "daemon-");
	if (any_plain) {
		fprintf(out, "  %llu lookup checks, %llu access() calls, %llu failing execve() calls\n",
			(unsigned long long)f->lookup_checks,
			(unsigned long long)count_of(f, "accesses"),
			(unsigned long long)count_of(f, "execs"));
		for (size_t i = 0; i < f->n; i++) {
			const char *what;

			if (per_call(f, f->line[i].name, &v, &what))
				fprintf(out, "  %-28s %6.0f instructions per %s\n", f->line[i].name, v,
					what);
		}
		fprintf(out, "\n  per mode (floor)    %-16s %-16s %-16s %s\n", "fentry", "kprobe",
			"tracepoint", "default");
		for (size_t r = 0; r < NROWS; r++) {
			char row[160];
			size_t len = 0;
			bool any = false;

			len += snprintf(row + len, sizeof(row) - len, "  %-19s", mode_rows[r].title);
			for (size_t m = 0; m < 4; m++) {
				snprintf(key, sizeof(key), "%s%s", mode_rows[r].prefix, table_modes[m]);
				snprintf(floor, sizeof(floor), "%s%s", mode_rows[r].floor, table_modes[m]);
				snprintf(cell, sizeof(cell), "-");
				if (per_call(f, key, &v, NULL)) {
					int c = snprintf(cell, sizeof(cell), "%.0f", v);

					any = true;
					if (per_call(f, floor, &fl, NULL))
						c += snprintf(cell + c, sizeof(cell) - c, " (%.0f)", fl);
					if (m == 3 && f->default_mode[mode_rows[r].fam] != MODE_NONE)
						snprintf(cell + c, sizeof(cell) - c, " %s",
							 mode_name(f->default_mode[mode_rows[r].fam]));
				}
				len += snprintf(row + len, sizeof(row) - len, m < 3 ? "%-17s" : "%s",
						cell);
				if (len >= sizeof(row))
					len = sizeof(row) - 1;
			}
			if (any)
				fprintf(out, "%s\n", row);
		}
		/* where the instructions go: each step over the one before, the first over the floor */
		for (size_t r = 0; r < NROWS; r += 2)
			for (size_t m = 0; m < 2; m++) {
				const char *p = r ? mode_rows[r].prefix : "";

				snprintf(floor, sizeof(floor), "%s%s", mode_rows[r].floor, table_modes[m]);
				snprintf(key, sizeof(key), "%sstep1-%s", p, table_modes[m]);
				if (!per_call(f, floor, &fl, NULL) || !per_call(f, key, &v, NULL))
					continue;
				snprintf(key, sizeof(key), "%s%s", mode_rows[r].prefix, table_modes[m]);
				if (!per_call(f, key, &v, NULL))
					continue;
				if (!head)
					fprintf(out, "\n  steps, each over the last  %-7s %-7s %-7s "
						"%-7s %-7s %s\n", "floor", "step 1", "step 2",
						"step 3", "whole", "over floor");
				head = true;
				snprintf(cell, sizeof(cell), "%s %s", mode_rows[r].title, table_modes[m]);
				fprintf(out, "  %-27s %-7.0f", cell, fl);
				last = fl;
				for (int st = 1; st <= 3; st++) {
					double sv;

					snprintf(key, sizeof(key), "%sstep%d-%s", p, st, table_modes[m]);
					if (per_call(f, key, &sv, NULL)) {
						fprintf(out, " %+-7.0f", sv - last);
						last = sv;
					} else {
						fprintf(out, " %-7s", "-");
					}
				}
				fprintf(out, " %+-7.0f %.0f\n", v - last, v - fl);
			}
	}
	if (!daemon_per_call(f, "stat", "none", &v) && !daemon_per_call(f, "access", "none", &v) &&
	    !daemon_per_call(f, "execvp", "none", &v))
		return;
	snprintf(cell, sizeof(cell), "default: %s", f->cycle[0] ? f->cycle : "unknown");
	fprintf(out, "\n  %-26s %-10s %-20s %s\n", "daemon: instr. per call", "none", "always on",
		cell);
	for (size_t b = 0; b < sizeof(loops) / sizeof(loops[0]); b++) {
		double none;

		if (!daemon_per_call(f, loops[b][0], "none", &none) || !none)
			continue;
		fprintf(out, "  %-26s %-10.0f", loops[b][1], none);
		for (int c = 1; c <= 2; c++) {
			if (daemon_per_call(f, loops[b][0], daemon_confs[c], &v))
				snprintf(cell, sizeof(cell), "%.0f (%+.1f%%)", v, 100 * (v - none) / none);
			else
				snprintf(cell, sizeof(cell), "-");
			fprintf(out, c < 2 ? " %-20s" : " %s\n", cell);
		}
	}
}

static json_t *json_doc(const struct vmfigures *f)
{
	json_t *root = json_object(), *per = json_object(), *modes = json_object();
	json_t *daemon = json_object();
	double v;

	for (size_t i = 0; i < f->n; i++)
		if (per_call(f, f->line[i].name, &v, NULL))
			json_object_set_new(per, f->line[i].name, json_real(round(v * 10) / 10));
	for (int fam = 0; fam < FAMILY_COUNT; fam++)
		json_object_set_new(modes, family_name(fam), f->default_mode[fam] == MODE_NONE ?
				    json_null() : json_string(mode_name(f->default_mode[fam])));
	for (size_t b = 0; b < sizeof(loops) / sizeof(loops[0]); b++) {
		json_t *loop = json_object();
		double none = 0;
		bool has_none = daemon_per_call(f, loops[b][0], "none", &none) && none;

		for (int c = 0; c < 3; c++) {
			char key[32];

			if (!daemon_per_call(f, loops[b][0], daemon_confs[c], &v))
				continue;
			json_object_set_new(loop, daemon_confs[c], json_real(round(v * 10) / 10));
			snprintf(key, sizeof(key), "%s_slowdown", daemon_confs[c]);
			if (c && has_none)
				json_object_set_new(loop, key, json_real(v / none));
		}
		if (json_object_size(loop))
			json_object_set_new(daemon, loops[b][0], loop);
		else
			json_decref(loop);
	}
	if (f->cycle[0])
		json_object_set_new(daemon, "default_cycle", json_string(f->cycle));
	json_object_set_new(root, "format", json_string("permscope-bench-vm/1"));
	json_object_set_new(root, "lookup_checks", json_integer((json_int_t)f->lookup_checks));
	json_object_set_new(root, "default_mode", modes);
	json_object_set_new(root, "instructions_per_call", per);
	json_object_set_new(root, "daemon", daemon);
	return root;
}

void vmfigures_print(FILE *out, const struct vmfigures *f, bool json)
{
	json_t *doc;

	if (!json) {
		print_text(out, f);
		return;
	}
	doc = json_doc(f);
	json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(doc);
}

int vmfigures_main(const char *dir, bool json)
{
	struct vmfigures *f = calloc(1, sizeof(*f));
	char err[PATH_MAX + 512];

	if (!f) {
		pr_err("%s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	if (vmfigures_read(dir, f, err, sizeof(err))) {
		pr_err("--vm-results: %s", err);
		free(f);
		return EXIT_USAGE;
	}
	vmfigures_print(stdout, f, json);
	free(f);
	return EXIT_OK;
}
