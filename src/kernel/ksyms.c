// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Function ranges from /proc/kallsyms, in one read of the file.  The
 * kernel makes its 100,000 and more lines anew at each read, and a guest
 * under TCG takes a second for that alone: the file is read once, its
 * lines split by hand (no stdio line reads, no sscanf), and the text
 * addresses kept to bound the functions found.
 */
#include "kernel/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A kallsyms file past this many text symbols is not a kernel's. */
#define KSYMS_TEXT_MAX (8u << 20)

struct scan {
	struct ksym_range *r;
	size_t *want_len; /* strlen of each range's name */
	int n;
	uint64_t *text;   /* every text symbol's address, in file order */
	size_t ntext, cap;
	bool any_nonzero;
	int err;
};

/* Functions: text symbols, and weak ones (W), which bound their neighbours too. */
static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * `want` "fn" matches fn only; "fn." matches fn and the compiler's copies of
 * it, fn.isra.0, fn.part.0 and the like (the first in the file wins).
 */
static bool name_matches(const char *name, size_t len, const char *want, size_t wlen)
{
	if (wlen && want[wlen - 1] == '.')
		return len >= wlen - 1 && !memcmp(name, want, wlen - 1) &&
		       (len == wlen - 1 || name[wlen - 1] == '.');
	return len == wlen && !memcmp(name, want, len);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static int keep_text(struct scan *s, uint64_t addr)
{
	if (s->ntext == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16384;
		uint64_t *t;

		if (cap > KSYMS_TEXT_MAX)
			return -E2BIG;
		t = realloc(s->text, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->text = t;
		s->cap = cap;
	}
	s->text[s->ntext++] = addr;
	return 0;
}

/* One line "ADDR TYPE NAME[\t[module]]", without its newline; others are skipped. */
static void scan_line(struct scan *s, const char *p, const char *end)
{
	uint64_t addr = 0;
	const char *name;
	int digits = 0, d;
	char type;

	for (; p < end && (d = hex_digit(*p)) >= 0; p++, digits++)
		addr = addr << 4 | (uint64_t)d;
	if (!digits || digits > 16 || p == end || !blank(*p))
		return;
	while (p < end && blank(*p))
		p++;
	if (end - p < 2 || !blank(p[1]))
		return;
	type = *p;
	for (p += 2; p < end && blank(*p); p++)
		;
	for (name = p; p < end && !blank(*p); p++)
		;
	if (p == name)
		return;
	if (addr)
		s->any_nonzero = true;
	if (is_text(type) && !s->err)
		s->err = keep_text(s, addr);
	for (int i = 0; i < s->n; i++)
		if (!s->r[i].lo && (is_text(type) || s->r[i].any_type) &&
		    name_matches(name, p - name, s->r[i].name, s->want_len[i]))
			s->r[i].lo = addr;
}

/* Every line of the file at fd through scan_line(); a line over 64 KiB is skipped. */
#define KSYMS_LINE_MAX 65536

static int scan_file(int fd, struct scan *s, char *buf)
{
	const size_t size = KSYMS_LINE_MAX;
	size_t have = 0;
	bool skipping = false;

	for (;;) {
		ssize_t got = read(fd, buf + have, size - have);
		char *line = buf, *nl, *end;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		end = buf + have + got;
		while ((nl = memchr(line, '\n', end - line))) {
			if (!skipping)
				scan_line(s, line, nl);
			skipping = false;
			line = nl + 1;
		}
		if (!got) {
			if (!skipping && line < end)
				scan_line(s, line, end);
			return 0;
		}
		have = end - line;
		if (have == size) { /* no newline in a whole buffer */
			skipping = true;
			have = 0;
		} else {
			memmove(buf, line, have);
		}
	}
}

int ksyms_resolve(const char *path, struct ksym_range *ranges, int n)
{
	struct scan s = { .r = ranges, .n = n };
	char *buf;
	int fd, err;

	for (int i = 0; i < n; i++)
		ranges[i].lo = ranges[i].len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	s.want_len = calloc(n > 0 ? n : 1, sizeof(*s.want_len));
	buf = malloc(KSYMS_LINE_MAX);
	if (!s.want_len || !buf) {
		free(s.want_len);
		free(buf);
		close(fd);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		s.want_len[i] = strlen(ranges[i].name);
	err = scan_file(fd, &s, buf);
	free(buf);
	close(fd);
	if (!err)
		err = s.err;
	if (!err && !s.any_nonzero)
		err = -EPERM;
	/* The nearest text symbol above each start bounds the function. */
	for (int i = 0; i < n && !err; i++) {
		uint64_t lo = ranges[i].lo;

		for (size_t t = 0; lo && t < s.ntext; t++) {
			uint64_t a = s.text[t];

			if (a > lo && (!ranges[i].len || a - lo < ranges[i].len))
				ranges[i].len = a - lo;
		}
	}
	if (err)
		for (int i = 0; i < n; i++)
			ranges[i].lo = ranges[i].len = 0;
	free(s.text);
	free(s.want_len);
	return err;
}
