// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A patch series read into its patches (series.h).  Two steps: every
 * message is read, from the mbox or from each *.patch and *.diff file of
 * the directory, with what its subject and body say; then the series is
 * judged whole: its [PATCH n/m] numbers, its cover letter and replies,
 * messages without a diff.  Where a reading would be a guess (two counts,
 * a number twice, a file name with a newline in it), it is refused.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "series.h"
#include "util.h"

/* One message as read, before the series is judged. */
struct message {
	char *text;
	size_t len;
	char *subject;       /* unfolded, whole */
	const char *rest;    /* into subject: after the [..] groups */
	char *source;
	enum series_envelope envelope;
	unsigned n, m;
	bool numbered, reply, diff;
};

struct build {
	struct message *msgs;
	size_t nmsgs;
	struct series_skip *skips;
	size_t nskips;
	size_t bytes;        /* read so far */
	char *err;
	size_t errlen;
};

const char *series_envelope_name(enum series_envelope e)
{
	switch (e) {
	case ENVELOPE_GIT: return "git format-patch";
	case ENVELOPE_B4: return "b4 am";
	case ENVELOPE_MBOXRD: return "mboxrd, as lore gives";
	case ENVELOPE_MBOX: return "mbox";
	default: return "no envelope";
	}
}

static int bad(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int skip(struct build *b, const char *source, const char *subject, const char *why)
{
	struct series_skip *k = realloc(b->skips, (b->nskips + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	b->skips = k;
	k += b->nskips;
	k->source = strdup(source);
	k->subject = strdup(subject ? subject : "");
	k->why = strdup(why);
	b->nskips++;
	return k->source && k->subject && k->why ? 0 : -ENOMEM;
}

/* The length of the line at P (up to END), without its '\n' and a '\r' before it. */
static size_t line_len(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', end - p);
	size_t n = (nl ? nl : end) - p;

	*next = nl ? nl + 1 : end;
	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

/*
 * Whether LINE is an mbox envelope, the rule git mailsplit splits at:
 * "From " and, at its last colon, a time (H:MM:SS, the hour's last digit
 * four before the colon) followed by a year after 90.  "From" at the
 * start of a sentence in a commit message has no such date.
 */
static bool is_envelope(const char *l, size_t n)
{
	size_t c = n, i;
	unsigned long year = 0;

	if (n < 20 || memcmp(l, "From ", 5))
		return false;
	while (c > 9 && l[c - 1] != ':')
		c--;
	if (c <= 9)
		return false;
	c--; /* the colon */
	if (c + 3 > n || !isdigit((unsigned char)l[c - 1]) || !isdigit((unsigned char)l[c - 2]) ||
	    !isdigit((unsigned char)l[c - 4]) || !isdigit((unsigned char)l[c + 1]) ||
	    !isdigit((unsigned char)l[c + 2]))
		return false;
	for (i = c + 3; i < n && l[i] == ' '; i++)
		;
	for (; i < n && isdigit((unsigned char)l[i]) && year < 100000; i++)
		year = year * 10 + (l[i] - '0');
	return year > 90;
}

static enum series_envelope envelope_of(const char *l, size_t n)
{
	size_t hex = 0;

	if (n >= 11 && !memcmp(l, "From git@z ", 11))
		return ENVELOPE_B4;
	if (n >= 14 && !memcmp(l, "From mboxrd@z ", 14))
		return ENVELOPE_MBOXRD;
	while (5 + hex < n && isxdigit((unsigned char)l[5 + hex]))
		hex++;
	return hex == 40 && n > 45 && l[45] == ' ' ? ENVELOPE_GIT : ENVELOPE_MBOX;
}

/* The message's text: lines without the CR of a CRLF, mboxrd's ">From" one '>' less. */
static char *message_text(const char *p, const char *end, bool mboxrd, size_t *len)
{
	char *text = malloc(end - p + 1), *o = text;
	const char *next;
	size_t n, gt;

	if (!text)
		return NULL;
	for (; p < end; p = next) {
		n = line_len(p, end, &next);
		for (gt = 0; gt < n && p[gt] == '>'; gt++)
			;
		if (mboxrd && gt && n - gt >= 5 && !memcmp(p + gt, "From ", 5)) {
			p++;
			n--;
		}
		memcpy(o, p, n);
		o += n;
		if (next > p + n && next[-1] == '\n')
			*o++ = '\n';
	}
	*o = 0;
	*len = o - text;
	return text;
}

/* A header line: a field name of printable characters, then ':'. */
static bool is_header(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] > ' ' && l[i] < 127 && l[i] != ':')
		i++;
	return i > 0 && i < n && l[i] == ':';
}

/*
 * Add the N bytes at P to the subject *S (of *LEN), one space between
 * pieces, control characters as spaces.  0, -ENOMEM, or -E2BIG past
 * SUBJECT_MAX: a subject that long is no subject, and growing it line by
 * line would cost the square of its length.
 */
#define SUBJECT_MAX 4096
static int subject_add(char **s, size_t *len, const char *p, size_t n)
{
	char *t;

	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	if (*len + n + 1 > SUBJECT_MAX)
		return -E2BIG;
	if (!(t = realloc(*s, *len + n + 2)))
		return -ENOMEM;
	*s = t;
	if (*len && n)
		t[(*len)++] = ' ';
	for (size_t i = 0; i < n; i++)
		t[(*len)++] = (unsigned char)p[i] < ' ' || p[i] == 127 ? ' ' : p[i];
	t[*len] = 0;
	return 0;
}

/* A token N/M of a [..] group at T, ending at a space or at CLOSE, its ']'. */
static bool parse_count(const char *t, const char *close, unsigned *n, unsigned *m)
{
	unsigned long v[2] = { 0, 0 };

	for (int k = 0; k < 2; k++) {
		if (!isdigit((unsigned char)*t))
			return false;
		for (; t < close && isdigit((unsigned char)*t); t++)
			v[k] = v[k] < 10000000 ? v[k] * 10 + (*t - '0') : v[k];
		if (k == 0 && *t++ != '/')
			return false;
	}
	if (t != close && *t != ' ')
		return false;
	*n = v[0];
	*m = v[1];
	return true;
}

/* "[PATCH v2 3/5] [tag] rest": the first N/M of the [..] groups, and where rest begins. */
static const char *strip_prefix(const char *s, struct message *msg)
{
	const char *close;

	while (*s == '[' && (close = strchr(s, ']'))) {
		for (const char *t = s + 1; t < close && !msg->numbered; t++)
			if (t[-1] == '[' || t[-1] == ' ')
				msg->numbered = parse_count(t, close, &msg->n, &msg->m);
		for (s = close + 1; *s == ' '; s++)
			;
	}
	return s;
}

/* The headers (Subject) and the body (a diff?) of MSG's text. */
static int read_message(struct message *msg)
{
	const char *p = msg->text, *end = p + msg->len, *next;
	char *subject = NULL;
	size_t n, slen = 0;
	bool in_subject = false, headers = true, minus = false;
	int e = 0;

	/* the envelope line, if any, then the headers up to an empty line */
	if (msg->envelope != ENVELOPE_NONE)
		line_len(p, end, &p);
	for (; p < end && headers; p = next) {
		n = line_len(p, end, &next);
		if (!n) {
			p = next;
			break;
		}
		if (in_subject && (*p == ' ' || *p == '\t')) {
			e = subject_add(&subject, &slen, p, n);
		} else if (is_header(p, n)) {
			in_subject = n >= 8 && !strncasecmp(p, "subject:", 8);
			if (in_subject)
				e = subject_add(&subject, &slen, p + 8, n - 8);
		} else {
			headers = false; /* a plain diff: the body from its first line */
			next = p;
		}
		if (e) {
			free(subject);
			return e;
		}
	}
	/* a diff: "diff --git", or "+++ " after "--- " */
	for (; p < end && !msg->diff; p = next) {
		n = line_len(p, end, &next);
		msg->diff = (n >= 11 && !memcmp(p, "diff --git ", 11)) ||
			    (minus && n >= 4 && !memcmp(p, "+++ ", 4));
		minus = n >= 4 && !memcmp(p, "--- ", 4);
	}
	if (!subject && !(subject = strdup("")))
		return -ENOMEM;
	while (slen && subject[slen - 1] == ' ')
		subject[--slen] = 0;
	msg->subject = subject;
	msg->reply = !strncasecmp(subject, "re:", 3);
	msg->rest = strip_prefix(subject, msg);
	return 0;
}

static int add_message(struct build *b, const char *p, const char *end, enum series_envelope env,
		       const char *file, size_t k, size_t count)
{
	struct message *m;
	char source[NAME_MAX + 32];

	if (b->nmsgs >= SERIES_MAX_MESSAGES)
		return bad(b, "more than %d messages, the most a series is read with",
			   SERIES_MAX_MESSAGES);
	if (!(m = realloc(b->msgs, (b->nmsgs + 1) * sizeof(*m))))
		return -ENOMEM;
	b->msgs = m;
	m += b->nmsgs++;
	memset(m, 0, sizeof(*m));
	m->envelope = env;
	if (!file)
		snprintf(source, sizeof(source), "message %zu", k);
	else if (count > 1)
		snprintf(source, sizeof(source), "%s, message %zu", file, k);
	else
		snprintf(source, sizeof(source), "%s", file);
	if (!(m->source = strdup(source)) ||
	    !(m->text = message_text(p, end, env == ENVELOPE_MBOXRD, &m->len)))
		return -ENOMEM;
	if (read_message(m) == -E2BIG)
		return bad(b, "%s: a Subject longer than %d bytes", m->source, SUBJECT_MAX);
	return m->subject ? 0 : -ENOMEM;
}

/*
 * The messages of DATA, an mbox or one message with no envelope (as git
 * am takes a file that does not start with one), from FILE (NULL: the
 * series is this mbox).
 */
static int split_messages(struct build *b, const char *data, size_t len, const char *file)
{
	const char *p = data, *end = data + len, *next, *start = NULL, *nul;
	size_t n, count = 0, k = 0;
	enum series_envelope env = ENVELOPE_NONE;
	int e;

	if ((nul = memchr(data, 0, len)))
		return bad(b, "%s%sa NUL byte at offset %zu: not an mbox or a patch", file ? file : "",
			   file ? ": " : "", (size_t)(nul - data));
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p == end)
		return file ? skip(b, file, "", "empty: no message in it") : bad(b, "empty: no message in it");
	n = line_len(p, end, &next);
	if (!is_envelope(p, n))
		return add_message(b, p, end, ENVELOPE_NONE, file, 1, 1);
	for (const char *q = p; q < end; q = next)
		count += is_envelope(q, line_len(q, end, &next));
	for (; p < end; p = next) {
		n = line_len(p, end, &next);
		if (!is_envelope(p, n))
			continue;
		if (start && (e = add_message(b, start, p, env, file, ++k, count)))
			return e;
		start = p;
		env = envelope_of(p, n);
	}
	return add_message(b, start, end, env, file, ++k, count);
}

/* "[PATCH 3/5] subject" of a message, for an error. */
static const char *described(const struct message *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s (\"%.80s\")", m->source, m->subject);
	return buf;
}

/*
 * The numbered series: every number 1..M once, a count of M.  ORDER[n - 1]
 * becomes the index of patch n.  A directory's names must sort in the
 * numbers' order: a series read in another order than its own is a guess.
 */
static int check_numbers(struct build *b, size_t *take, size_t ntake, unsigned m, bool dir,
			 size_t *order)
{
	char d1[160], d2[160], missing[128] = "";
	size_t i, len = 0;

	for (i = 0; i < m; i++)
		order[i] = SIZE_MAX;
	for (i = 0; i < ntake; i++) {
		const struct message *msg = &b->msgs[take[i]];

		if (msg->n > m)
			return bad(b, "%s is numbered %u/%u: past the count", described(msg, d1, 160),
				   msg->n, m);
		if (order[msg->n - 1] != SIZE_MAX)
			return bad(b, "two messages are patch %u/%u: %s and %s (two versions of a "
				   "series in one? keep one)", msg->n, m,
				   described(&b->msgs[order[msg->n - 1]], d1, 160), described(msg, d2, 160));
		order[msg->n - 1] = take[i];
	}
	for (i = 0; i < m && len + 12 < sizeof(missing); i++)
		if (order[i] == SIZE_MAX)
			len += snprintf(missing + len, sizeof(missing) - len, "%s%zu", len ? ", " : "", i + 1);
	if (ntake != m)
		return bad(b, "%zu patches, but their subjects number %u ([PATCH n/%u]): %s missing",
			   ntake, m, m, missing);
	for (i = 1; dir && i < m; i++)
		if (order[i] < order[i - 1])
			return bad(b, "%s is patch %zu/%u, but its name sorts before %s, patch %zu: "
				   "rename the files in the series' order", described(&b->msgs[order[i]], d1, 160),
				   i + 1, m, described(&b->msgs[order[i - 1]], d2, 160), i);
	return 0;
}

/* The messages judged as a series, into s. */
static int judge(struct build *b, struct series *s)
{
	size_t *take = malloc((b->nmsgs + 1) * sizeof(*take)), *order = NULL, ntake = 0, i;
	const struct message *numbered = NULL, *plain = NULL, *counted = NULL;
	char d1[160], d2[160], why[64];
	int e = 0;

	if (!take)
		return -ENOMEM;
	for (i = 0; i < b->nmsgs && !e; i++) {
		const struct message *msg = &b->msgs[i];

		if (msg->reply) {
			e = skip(b, msg->source, msg->subject, "a reply, not a patch");
			continue;
		}
		if (msg->numbered && counted && msg->m != counted->m)
			e = bad(b, "%s is numbered %u/%u, but %s %u/%u: one series has one count",
				described(msg, d1, 160), msg->n, msg->m, described(counted, d2, 160),
				counted->n, counted->m);
		else if (msg->numbered && !counted)
			counted = msg;
		if (e)
			break;
		if (msg->numbered && msg->n == 0) {
			snprintf(why, sizeof(why), "the cover letter (0/%u)", msg->m);
			e = skip(b, msg->source, msg->subject, why);
		} else if (!msg->diff && !msg->numbered) {
			e = skip(b, msg->source, msg->subject, "no diff in it");
		} else if (!msg->diff) {
			e = bad(b, "%s: no diff in it, yet it is numbered %u/%u, a patch of the series",
				described(msg, d1, 160), msg->n, msg->m);
		} else {
			take[ntake++] = i;
			if (msg->numbered && !numbered)
				numbered = msg;
			if (!msg->numbered && !plain)
				plain = msg;
		}
	}
	if (!e && numbered && plain)
		e = bad(b, "%s has no [PATCH n/m] number, but %s is numbered %u/%u: a series is "
			"numbered throughout or not at all", described(plain, d1, 160),
			described(numbered, d2, 160), numbered->n, numbered->m);
	if (!e && !ntake)
		e = bad(b, "no patch with a diff in it (%zu message%s read)", b->nmsgs,
			b->nmsgs == 1 ? "" : "s");
	if (!e && (ntake > SERIES_MAX_PATCHES || (numbered && numbered->m > SERIES_MAX_PATCHES)))
		e = bad(b, "more than %d patches, the most a series may hold here", SERIES_MAX_PATCHES);
	if (!e && numbered) {
		if (!(order = malloc((numbered->m + 1) * sizeof(*order))))
			e = -ENOMEM;
		else if (!(e = check_numbers(b, take, ntake, numbered->m, s->directory, order)))
			memcpy(take, order, ntake * sizeof(*take));
	}
	if (!e && !(s->patches = calloc(ntake, sizeof(*s->patches))))
		e = -ENOMEM;
	for (i = 0; !e && i < ntake; i++) {
		struct message *msg = &b->msgs[take[i]];
		struct series_patch *p = &s->patches[s->npatches++];
		char slug[SERIES_SLUG_MAX + 1];

		p->text = msg->text;
		p->len = msg->len;
		p->source = msg->source;
		msg->text = msg->source = NULL;
		p->number = msg->n;
		p->total = msg->m;
		if (!(p->subject = strdup(msg->rest)))
			e = -ENOMEM;
		series_slug(msg->rest, slug, sizeof(slug));
		snprintf(p->name, sizeof(p->name), "%04zu%s%s.patch", i + 1, *slug ? "-" : "", slug);
	}
	free(order);
	free(take);
	return e;
}

void series_slug(const char *subject, char *buf, size_t size)
{
	size_t n = 0, max = size - 1 < SERIES_SLUG_MAX ? size - 1 : SERIES_SLUG_MAX;
	bool gap = false;

	for (const char *p = subject; *p && n < max; p++) {
		/* a slug starts with a letter, a digit or '_', never '.' */
		if ((!isalnum((unsigned char)*p) && *p != '.' && *p != '_') || (*p == '.' && !n)) {
			gap = n > 0;
			continue;
		}
		if (*p == '.' && n && buf[n - 1] == '.')
			continue;
		if (gap && n + 1 < max)
			buf[n++] = '-';
		gap = false;
		buf[n++] = *p;
	}
	while (n && (buf[n - 1] == '-' || buf[n - 1] == '.'))
		n--;
	buf[n] = 0;
}

static bool has_control(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < ' ' || *p == 127)
			return true;
	return false;
}

/* NAME with its control characters as C escapes ("a\nb.patch"), for an error. */
static void escaped(const char *name, char *buf, size_t size)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p && n + 5 < size; p++) {
		if (*p == '\n')
			n += snprintf(buf + n, size - n, "\\n");
		else if (*p == '\t')
			n += snprintf(buf + n, size - n, "\\t");
		else if (*p < ' ' || *p == 127 || *p == '\\')
			n += snprintf(buf + n, size - n, *p == '\\' ? "\\\\" : "\\x%02x", *p);
		else
			buf[n++] = *p;
	}
	buf[n] = 0;
}

static bool is_patch_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !strcmp(name + n - 6, ".patch")) || (n > 5 && !strcmp(name + n - 5, ".diff"));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One entry of the directory: a patch file read, or said not to be one. */
static int read_entry(struct build *b, const char *dir, int dfd, const char *name)
{
	char path[PATH_MAX], why[256], shown[4 * NAME_MAX + 8], *data;
	struct stat st;
	size_t len;
	int e;

	if (has_control(name)) {
		escaped(name, shown, sizeof(shown));
		return bad(b, "the entry \"%s\" has a control character in its name: a name is data, "
			   "so it is neither taken nor left out (rename it)", shown);
	}
	if (!is_patch_name(name))
		return skip(b, name, "", "neither *.patch nor *.diff: not read");
	if (fstatat(dfd, name, &st, 0))
		return bad(b, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(b, "%s: %s, not a regular file: a series is its files", name,
			   S_ISDIR(st.st_mode) ? "a directory" : "a special file");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	e = read_input_file(path, SERIES_MAX_BYTES - b->bytes, &data, &len, why, sizeof(why));
	if (e == -EFBIG)
		return bad(b, "%s: past %zu MiB in all, the most a series is read with", name,
			   SERIES_MAX_BYTES >> 20);
	if (e)
		return bad(b, "%s: %s", name, why);
	b->bytes += len;
	e = split_messages(b, data, len, name);
	free(data);
	return e;
}

static int read_directory(struct build *b, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int e = 0;

	if (!d) {
		e = -errno;
		bad(b, "%s", strerror(-e));
		return e;
	}
	while (!e && (errno = 0, de = readdir(d))) {
		char **t;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n >= SERIES_MAX_MESSAGES)
			e = bad(b, "more than %d entries, the most a series directory is read with",
				SERIES_MAX_MESSAGES);
		else if (!(t = realloc(names, (n + 1) * sizeof(*t))) || !(t[n] = strdup(de->d_name)))
			e = -ENOMEM, names = t ? t : names;
		else
			names = t, n++;
	}
	if (!e && errno)
		e = bad(b, "%s", strerror(errno));
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n && !e; i++)
		e = read_entry(b, path, dirfd(d), names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return e;
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->nmsgs; i++) {
		free(b->msgs[i].text);
		free(b->msgs[i].subject);
		free(b->msgs[i].source);
	}
	free(b->msgs);
}

/* The messages read, judged, into s; everything freed on failure. */
static int finish(struct build *b, struct series *s, int e)
{
	if (!e)
		e = judge(b, s);
	if (e == -ENOMEM)
		snprintf(b->err, b->errlen, "out of memory");
	s->nmessages = b->nmsgs;
	s->skipped = b->skips;
	s->nskipped = b->nskips;
	if (b->nmsgs) {
		s->envelope = b->msgs[0].envelope;
		for (size_t i = 1; i < b->nmsgs; i++)
			s->mixed |= b->msgs[i].envelope != s->envelope;
	}
	build_free(b);
	if (e)
		series_free(s);
	return e;
}

int series_parse_mbox(const char *data, size_t len, struct series *s, char *err, size_t errlen)
{
	struct build b = { .err = err, .errlen = errlen };

	memset(s, 0, sizeof(*s));
	if (len > SERIES_MAX_BYTES)
		return finish(&b, s, bad(&b, "larger than %zu MiB, the most a series is read with",
					 SERIES_MAX_BYTES >> 20));
	return finish(&b, s, split_messages(&b, data, len, NULL));
}

int series_read(const char *path, struct series *s, char *err, size_t errlen)
{
	struct build b = { .err = err, .errlen = errlen };
	struct stat st;
	char *data;
	size_t len;
	int e;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st)) {
		e = -errno;
		snprintf(err, errlen, "%s", strerror(-e));
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		s->directory = true;
		return finish(&b, s, read_directory(&b, path));
	}
	if ((e = read_input_file(path, SERIES_MAX_BYTES, &data, &len, err, errlen)))
		return e;
	e = split_messages(&b, data, len, NULL);
	free(data);
	return finish(&b, s, e);
}

void series_free(struct series *s)
{
	for (size_t i = 0; i < s->npatches; i++) {
		free(s->patches[i].text);
		free(s->patches[i].subject);
		free(s->patches[i].source);
	}
	for (size_t i = 0; i < s->nskipped; i++) {
		free(s->skipped[i].source);
		free(s->skipped[i].subject);
		free(s->skipped[i].why);
	}
	free(s->patches);
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}
