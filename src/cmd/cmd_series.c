// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope series SERIES [-o DIR]: a patch series (src/series.c) as the
 * patches it holds, in order, each written to DIR under a name made here.
 * tools/permscope-bisect calls it, so that no shell splits an mbox.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "series.h"
#include "util.h"

struct series_cmd {
	struct output_opts out;
	const char *path, *dir;
};

static const struct argp_option series_options[] = {
	{ "output", 'o', "DIR", 0,
	  "Write the patches into DIR (made if missing; it must be empty): "
	  "NNNN-SUBJECT.patch, with DIR/series their names in order and "
	  "DIR/subjects their subjects, one a line", 0 },
	{ 0 },
};

static error_t series_parse(int key, char *arg, struct argp_state *state)
{
	struct series_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		c->out.offered = FORMAT_BIT(FORMAT_TEXT) | FORMAT_BIT(FORMAT_JSON);
		state->child_inputs[0] = &c->out;
		break;
	case 'o':
		c->dir = arg;
		break;
	case ARGP_KEY_ARG:
		if (c->path)
			argp_error(state, "one SERIES, a directory or an mbox (got '%s', then '%s')",
				   c->path, arg);
		c->path = arg;
		break;
	case ARGP_KEY_END:
		if (!c->path)
			argp_error(state, "SERIES is needed: a directory of git format-patch files "
				   "or an mbox");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child series_children[] = {
	{ &output_argp, 0, "Output:", 1 },
	{ 0 },
};

static const struct argp series_argp = {
	series_options, series_parse, "SERIES",
	"Read a patch series, a directory of 'git format-patch' files or one mbox, "
	"into its patches in order, and print them: number, file, subject.  With -o, "
	"write them out, as tools/permscope-bisect does before it builds anything.\v"
	"An mbox is split where git mailsplit splits it: at each 'From ' line that ends "
	"in a date.  That covers git format-patch --stdout (From <commit> Mon Sep 17 "
	"00:00:00 2001), 'b4 am' (From git@z Thu Jan  1 00:00:00 1970) and lore's mboxrd "
	"(From mboxrd@z ..., whose '>From' lines lose one '>').  A file that does not "
	"start with one is one message.  A directory gives its *.patch and *.diff "
	"files in the order of their names; every other entry is named as not read.\n\n"
	"Each message's [PATCH n/m] (also [PATCH v2 n/m], [RFC PATCH n/m]) is its place. "
	"The cover letter (0/m) and replies (Re:) are skipped, each named; so is a "
	"message without number and without a diff.  Refused, exit 2, with what is "
	"wrong: numbers that do not make 1..m once each (a count that is not m, a "
	"number twice or missing), numbered and unnumbered patches together, a "
	"numbered message without a diff, a directory whose names sort out of the "
	"numbers' order, an entry whose name holds a control character (a newline: "
	"a name is data, and is never dropped), an entry that is not a regular file, "
	"more than 1000 patches, 2000 messages or entries, or 64 MiB.\n\n"
	"Exit status: 0 the series was read (and written); 1 DIR could not be written "
	"or out of memory; 2 bad usage or a series refused.\n\n"
	"Examples:\n"
	"  b4 am -o - 20261201-fix-v2@example.org > fix.mbox\n"
	"  permscope series fix.mbox                  its patches, in order\n"
	"  permscope series fix.mbox -o fix/          and written out\n"
	"  permscope series -j outgoing/              a format-patch directory, JSON\n",
	series_children, 0, 0,
};

/* DIR made, or already there and empty: 0, or EXIT_USAGE after saying why. */
static int output_dir_ready(const char *dir)
{
	struct dirent *de;
	DIR *d;

	if (!mkdir(dir, 0777))
		return 0;
	if (errno != EEXIST || !(d = opendir(dir))) {
		pr_err("-o %s: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de) {
		pr_err("-o %s: not empty (the patches would mix with what is there)", dir);
		return EXIT_USAGE;
	}
	return 0;
}

static int write_at(int dfd, const char *dir, const char *name, const char *data, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	ssize_t n = 0;

	for (size_t done = 0; fd >= 0 && done < len; done += n)
		if ((n = write(fd, data + done, len - done)) <= 0)
			break;
	if (fd < 0 || n < 0 || (fd >= 0 && close(fd))) {
		pr_err("cannot write %s/%s: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The patches, then DIR/series and DIR/subjects (last: they say the rest is whole). */
static int write_series(const struct series *s, const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;
	char *names = NULL, *subjects = NULL;
	size_t nlen = 0, slen = 0;
	FILE *n = open_memstream(&names, &nlen), *t = open_memstream(&subjects, &slen);

	if (dfd < 0 || !n || !t) {
		pr_err("cannot write %s: %s", dir, strerror(errno));
		e = -1;
	}
	for (size_t i = 0; !e && i < s->npatches; i++) {
		e = write_at(dfd, dir, s->patches[i].name, s->patches[i].text, s->patches[i].len);
		fprintf(n, "%s\n", s->patches[i].name);
		fprintf(t, "%s\n", s->patches[i].subject);
	}
	if (n && fclose(n))
		e = -1;
	if (t && fclose(t))
		e = -1;
	if (!e)
		e = write_at(dfd, dir, "series", names, nlen);
	if (!e)
		e = write_at(dfd, dir, "subjects", subjects, slen);
	free(names);
	free(subjects);
	if (dfd >= 0)
		close(dfd);
	return e;
}

static void print_text(const struct series *s, const char *path, const char *dir)
{
	if (s->directory)
		printf("%s: %zu patch%s from a directory of %zu message%s", path, s->npatches,
		       s->npatches == 1 ? "" : "es", s->nmessages, s->nmessages == 1 ? "" : "s");
	else
		printf("%s: %zu patch%s from an mbox (%s) of %zu message%s", path, s->npatches,
		       s->npatches == 1 ? "" : "es", s->mixed ? "mixed envelopes" :
		       series_envelope_name(s->envelope), s->nmessages, s->nmessages == 1 ? "" : "s");
	printf(", %zu skipped\n", s->nskipped);
	for (size_t i = 0; i < s->npatches; i++)
		printf("%4zu  %s  %s\n", i + 1, s->patches[i].name, s->patches[i].subject);
	for (size_t i = 0; i < s->nskipped; i++) {
		const struct series_skip *k = &s->skipped[i];

		printf("skipped %s%s%s%s: %s\n", k->source, *k->subject ? " (\"" : "", k->subject,
		       *k->subject ? "\")" : "", k->why);
	}
	if (dir)
		printf("written to %s: the patches, %s/series (their names, in order) and "
		       "%s/subjects\n", dir, dir, dir);
}

static json_t *series_json(const struct series *s, const char *path, const char *dir)
{
	json_t *root = json_object(), *patches = json_array(), *skipped = json_array();

	json_object_set_new(root, "series", json_string(path));
	json_object_set_new(root, "form", json_string(s->directory ? "directory" : "mbox"));
	json_object_set_new(root, "envelope", json_string(s->mixed ? "mixed" :
					     series_envelope_name(s->envelope)));
	json_object_set_new(root, "messages", json_integer(s->nmessages));
	json_object_set_new(root, "output", dir ? json_string(dir) : json_null());
	for (size_t i = 0; i < s->npatches; i++) {
		const struct series_patch *p = &s->patches[i];

		json_array_append_new(patches, json_pack("{s:I, s:s, s:s, s:s, s:o}", "number",
							 (json_int_t)(i + 1), "file", p->name,
							 "subject", p->subject, "source", p->source,
							 "numbered", p->total ? json_sprintf("%u/%u",
							 p->number, p->total) : json_null()));
	}
	for (size_t i = 0; i < s->nskipped; i++)
		json_array_append_new(skipped, json_pack("{s:s, s:s, s:s}", "source",
							 s->skipped[i].source, "subject",
							 s->skipped[i].subject, "why", s->skipped[i].why));
	json_object_set_new(root, "patches", patches);
	json_object_set_new(root, "skipped", skipped);
	return root;
}

int cmd_series(int argc, char **argv)
{
	struct series_cmd c = {0};
	struct series s;
	char err[1024];
	int e;

	parse_command(&series_argp, argc, argv, &c);
	if (c.dir && output_dir_ready(c.dir))
		return EXIT_USAGE;
	e = series_read(c.path, &s, err, sizeof(err));
	if (e) {
		pr_err("series %s: %s", c.path, err);
		return e == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	e = c.dir ? write_series(&s, c.dir) : 0;
	if (!e && c.out.format == FORMAT_JSON) {
		json_t *root = series_json(&s, c.path, c.dir);

		if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			e = -1;
		putchar('\n');
		json_decref(root);
	} else if (!e) {
		print_text(&s, c.path, c.dir);
	}
	series_free(&s);
	return e || fflush(stdout) || ferror(stdout) ? EXIT_FAIL : EXIT_OK;
}
