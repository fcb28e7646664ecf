/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * permscope verify's judgement: from a recording's counters and the
 * violation samples its programs sent, which invariants broke, the verdict
 * and the exit status, as text or JSON ("permscope-verify/1",
 * docs/verify.md).  Nothing here reads BPF: cmd_verify.c records into a
 * profile and a struct verify_samples, and the unit tests build both by
 * hand and go through the same functions.
 */
#ifndef PERMSCOPE_VERIFY_H
#define PERMSCOPE_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "render.h"

#define VERIFY_FORMAT "permscope-verify/1"

/* Samples printed of each kind. */
#define VERIFY_SAMPLES_SHOWN 5

/* What the programs sent: the first few samples of each kind, and counts. */
struct verify_samples {
	struct ps_sample kept[SAMPLE_KINDS][VERIFY_SAMPLES_SHOWN];
	unsigned int nkept[SAMPLE_KINDS];
	uint64_t received[SAMPLE_KINDS];
	uint64_t unsent[SAMPLE_KINDS]; /* rate limit or full ring */
};

/* For struct sample_sink (src/probe/attach.h): ctx is a struct verify_samples. */
void verify_samples_add(void *ctx, const struct ps_sample *s);
void verify_samples_unsent(void *ctx, enum sample_kind kind, __u64 total);

enum verify_verdict {
	VERIFY_CLEAN,     /* exit 0: every family judged, no invariant broke */
	VERIFY_VIOLATION, /* exit 1: an invariant broke (whatever else) */
	VERIFY_UNJUDGED,  /* exit 3: none broke, but a family could not be judged */
};

/* One line of the judgement: an invariant that broke, or information. */
struct verify_finding {
	enum family_id family;
	char kind[METRIC_NAME_LEN]; /* FAMILY.ROW, the row it counts: "access.unsafe", ... */
	bool violation;
	int sample_kind;       /* its samples' enum sample_kind, -1 for none */
	uint64_t count;
	char text[256];
};

#define VERIFY_MAX_FINDINGS 8

struct verify_result {
	enum verify_verdict verdict;
	bool judged[FAMILY_COUNT];    /* requested families only */
	char why[FAMILY_COUNT][512];  /* why a requested family was not judged */
	struct verify_finding findings[VERIFY_MAX_FINDINGS];
	int nfindings;
};

/* Judge the families `p` recorded. */
void verify_judge(const struct profile *p, struct verify_result *r);
/* 0, 1 or 3 (EXIT_OK, EXIT_FAIL, EXIT_NO_VERDICT). */
int verify_exit_status(const struct verify_result *r);

/*
 * Judge, print in `format` (text or JSON) to `out`, and return the exit
 * status: what `permscope verify` does once the recording is over.
 */
int verify_report(FILE *out, const struct profile *p, const struct verify_samples *vs,
		  enum output_format format);

#endif
