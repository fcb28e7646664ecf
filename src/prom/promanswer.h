/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The answer of Prometheus's query API (GET /api/v1/query), read as it
 * streams in: a SAX parse (yajl) that hands each sample of an instant
 * vector to the caller as soon as it is complete, keeping only the labels
 * the caller named.  So what a read holds is one sample and a few short
 * strings, whatever the size of the answer: a 200 MiB answer (a gzip bomb
 * of 600 kB) costs what a 2 kB one does, where a parse into a tree took
 * 24 times the answer's size.
 *
 * Nothing here trusts the answer: every string it keeps is bounded (a
 * longer one is flagged, never cut into another value), every count is
 * capped, and what is handed on is the text Prometheus wrote, for the
 * caller to judge.  The envelope ({"status", "data", "errorType", "error",
 * "warnings"}) is kept for the caller, with the warnings: an answer with
 * warnings is a partial one (a remote-read or store was down).
 */
#ifndef PERMSCOPE_PROMANSWER_H
#define PERMSCOPE_PROMANSWER_H

#include <stdbool.h>
#include <stddef.h>

/* Labels a sample can keep, and the longest value kept (a longer one is flagged). */
#define PROMANSWER_LABELS 12
#define PROMANSWER_LABEL_MAX 255
/* A sample's value as written ("12", "NaN", "1e308"); longer is flagged. */
#define PROMANSWER_VALUE_MAX 63
/* The envelope's strings (status, error, a warning) are cut here. */
#define PROMANSWER_TEXT_MAX 511
#define PROMANSWER_WARNINGS 8
/* More samples than this in one answer is refused: no fleet's vector is near it. */
#define PROMANSWER_SAMPLES_MAX 2000000u

struct promanswer_sample {
	/* parallel to the names the read keeps: the value, or NULL when absent */
	const char *label[PROMANSWER_LABELS];
	unsigned int overlong; /* bit i: label i's value is over PROMANSWER_LABEL_MAX */
	double t;              /* the sample's time, seconds since the epoch */
	const char *value;     /* as Prometheus wrote it, "" when overlong */
	bool value_overlong;
};

/* A caller's nonzero return stops the read; promanswer_feed() returns it. */
typedef int (*promanswer_sample_fn)(void *ctx, const struct promanswer_sample *s);

struct promanswer;

/*
 * A read keeping the labels KEEP names (NULL-terminated, at most
 * PROMANSWER_LABELS; copied by reference: they must outlive the read),
 * handing each sample to FN.  NULL when out of memory.
 */
struct promanswer *promanswer_new(const char *const *keep, promanswer_sample_fn fn, void *ctx);
void promanswer_free(struct promanswer *a);

/*
 * Feed the next LEN bytes of the answer.  0, FN's nonzero return, or -1
 * when the answer is no JSON or breaks a bound (promanswer_error() says
 * which).  Once it has returned nonzero, nothing more is parsed.
 */
int promanswer_feed(struct promanswer *a, const char *buf, size_t len);
/* The end of the answer: as promanswer_feed(). */
int promanswer_finish(struct promanswer *a);

/* What was wrong with the answer ("" when nothing): printable text. */
const char *promanswer_error(const struct promanswer *a);

/* The envelope, "" for a field the answer did not carry. */
const char *promanswer_status(const struct promanswer *a);      /* "success", "error" */
const char *promanswer_error_type(const struct promanswer *a);  /* "bad_data", ... */
const char *promanswer_error_text(const struct promanswer *a);  /* Prometheus's "error" */
const char *promanswer_result_type(const struct promanswer *a); /* "vector", ... */
/* Whether data.result was there, and whether its samples were all well formed. */
bool promanswer_has_result(const struct promanswer *a);
bool promanswer_samples_ok(const struct promanswer *a);
size_t promanswer_nsamples(const struct promanswer *a);
/* Its warnings, each cut to PROMANSWER_TEXT_MAX; how many there were in all. */
size_t promanswer_nwarnings(const struct promanswer *a);
const char *promanswer_warning(const struct promanswer *a, size_t i);

#endif
