/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A patch series as kernel developers hand it over: a directory of `git
 * format-patch` files, or one mbox (git format-patch --stdout, `b4 am`,
 * lore's mboxrd), read into its patches in order.  Outside input: every
 * size is bounded, and what is not taken is said, by name, never dropped.
 * No BPF, no sockets: `permscope series` and the fuzz target call it.
 */
#ifndef PERMSCOPE_SERIES_H
#define PERMSCOPE_SERIES_H

#include <stdbool.h>
#include <stddef.h>

/* The most read: all files of a directory, or the mbox, together. */
#define SERIES_MAX_BYTES ((size_t)64 << 20)
/* The most messages (patches, cover letters, replies) and entries of a directory. */
#define SERIES_MAX_MESSAGES 2000
/* The most patches a series may hold (NNNN- names have room for 9999). */
#define SERIES_MAX_PATCHES 1000
/* The slug of a written name, as git format-patch cuts it: NNNN-SLUG.patch */
#define SERIES_SLUG_MAX 52

/* What the envelope line ("From ...") of a message says of who wrote the mbox. */
enum series_envelope {
	ENVELOPE_NONE,    /* a file that is one message, with no envelope line */
	ENVELOPE_GIT,     /* git format-patch: From <40 hex> Mon Sep 17 00:00:00 2001 */
	ENVELOPE_B4,      /* b4 am: From git@z Thu Jan  1 00:00:00 1970 */
	ENVELOPE_MBOXRD,  /* lore: From mboxrd@z ..., ">From" quoted one '>' deeper */
	ENVELOPE_MBOX,    /* any other mbox "From ADDR DATE" line */
};

struct series_patch {
	char *text;          /* the message: CRs of CRLF gone, mboxrd's >From unquoted */
	size_t len;
	char *subject;       /* unfolded, printable, its [PATCH n/m] prefix gone */
	char *source;        /* where it came from: "message 3", "0001-x.patch" */
	unsigned number, total; /* [PATCH number/total]; 0 0 when not numbered */
	char name[SERIES_SLUG_MAX + 32]; /* NNNN-SLUG.patch, safe characters only */
};

/* A message or a directory entry not taken, and why. */
struct series_skip {
	char *source;
	char *subject;       /* "" for a file that was not read */
	char *why;
};

struct series {
	struct series_patch *patches;
	size_t npatches;
	struct series_skip *skipped;
	size_t nskipped;
	size_t nmessages;    /* every message read */
	bool directory;
	enum series_envelope envelope; /* the first message's */
	bool mixed;          /* messages with different envelopes */
};

/* "b4 am", "git format-patch", ... */
const char *series_envelope_name(enum series_envelope e);

/*
 * Read PATH, a directory or an mbox, into *s.  0, or -EINVAL for input
 * that is no series (err says why, naming the file, message or entry),
 * -ENOMEM, or -errno when PATH cannot be read.  On failure *s holds
 * nothing to free.
 */
int series_read(const char *path, struct series *s, char *err, size_t errlen);
/* The same for an mbox already in memory (LEN bytes of DATA). */
int series_parse_mbox(const char *data, size_t len, struct series *s, char *err, size_t errlen);
void series_free(struct series *s);

/* git format-patch's file-name slug of SUBJECT into BUF (at most SERIES_SLUG_MAX). */
void series_slug(const char *subject, char *buf, size_t size);

#endif
