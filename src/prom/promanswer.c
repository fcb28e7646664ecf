// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The query API's answer, parsed as it streams (promanswer.h).
 *
 * yajl calls back for each token; the parser keeps a stack of what each
 * open container is (the root, data, the result array, a sample, its
 * metric, its value pair, the warnings, or something to pass over) and
 * the key it is under, and nothing else of the document.
 */
#include "prom/promanswer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* Deeper than an answer ever nests: passed over, but the depth is bounded. */
#define DEPTH_MAX 64

enum node { N_OTHER, N_ROOT, N_DATA, N_RESULT, N_SAMPLE, N_METRIC, N_VALUE, N_WARNINGS };
enum key { K_NONE, K_STATUS, K_ERROR_TYPE, K_ERROR, K_WARNINGS, K_DATA, K_RESULT_TYPE,
	   K_RESULT, K_METRIC, K_VALUE, K_LABEL };

struct promanswer {
	yajl_handle y;
	const char *const *keep;
	size_t nkeep;
	promanswer_sample_fn fn;
	void *ctx;
	int stopped; /* the first nonzero return, kept */

	int depth;
	enum node node[DEPTH_MAX];
	enum key key[DEPTH_MAX];
	int label_idx; /* the kept label the current metric key names, or -1 */
	size_t pos[DEPTH_MAX]; /* the index in an array */

	/* the sample being read */
	char label[PROMANSWER_LABELS][PROMANSWER_LABEL_MAX + 1];
	bool has_label[PROMANSWER_LABELS];
	unsigned int overlong;
	char value[PROMANSWER_VALUE_MAX + 1];
	bool value_overlong, has_metric, has_value, has_time, sample_bad;
	double t;

	char status[PROMANSWER_TEXT_MAX + 1], error_type[PROMANSWER_TEXT_MAX + 1];
	char error_text[PROMANSWER_TEXT_MAX + 1], result_type[PROMANSWER_TEXT_MAX + 1];
	char warning[PROMANSWER_WARNINGS][PROMANSWER_TEXT_MAX + 1];
	size_t nwarnings;
	bool has_result, samples_ok;
	size_t nsamples;
	char why[256];
};

static void copy_cut(char *dst, size_t size, const unsigned char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = 0;
}

static int stop(struct promanswer *a, const char *why)
{
	if (!a->why[0])
		snprintf(a->why, sizeof(a->why), "%s", why);
	return 0; /* yajl: cancel the parse */
}

/* A malformed sample is remembered, not fatal at once: a result's type may follow it. */
static void sample_bad(struct promanswer *a)
{
	a->sample_bad = true;
	a->samples_ok = false;
}

static enum node parent(const struct promanswer *a)
{
	return a->depth ? a->node[a->depth - 1] : N_OTHER;
}

static enum key parent_key(const struct promanswer *a)
{
	return a->depth ? a->key[a->depth - 1] : K_NONE;
}

/* After a value (scalar or container) inside an array: the next position. */
static void next_pos(struct promanswer *a)
{
	if (a->depth)
		a->pos[a->depth - 1]++;
}

static int on_scalar_string(struct promanswer *a, const unsigned char *s, size_t len, bool str)
{
	enum node p = parent(a);
	enum key k = parent_key(a);

	switch (p) {
	case N_ROOT:
		if (!str)
			break;
		if (k == K_STATUS)
			copy_cut(a->status, sizeof(a->status), s, len);
		else if (k == K_ERROR_TYPE)
			copy_cut(a->error_type, sizeof(a->error_type), s, len);
		else if (k == K_ERROR)
			copy_cut(a->error_text, sizeof(a->error_text), s, len);
		break;
	case N_DATA:
		if (k == K_RESULT_TYPE && str)
			copy_cut(a->result_type, sizeof(a->result_type), s, len);
		break;
	case N_WARNINGS:
		if (str && a->nwarnings < PROMANSWER_WARNINGS)
			copy_cut(a->warning[a->nwarnings], sizeof(a->warning[0]), s, len);
		a->nwarnings++;
		break;
	case N_METRIC:
		if (!str) {
			sample_bad(a);
		} else if (a->label_idx >= 0) {
			int i = a->label_idx;

			if (len > PROMANSWER_LABEL_MAX) {
				a->overlong |= 1u << i;
				a->label[i][0] = 0;
			} else {
				copy_cut(a->label[i], sizeof(a->label[i]), s, len);
			}
			a->has_label[i] = true;
		}
		break;
	case N_VALUE:
		if (a->pos[a->depth - 1] == 0 && !str) {
			char num[64];

			copy_cut(num, sizeof(num), s, len);
			a->t = strtod(num, NULL);
			a->has_time = true;
		} else if (a->pos[a->depth - 1] == 1 && str) {
			if (len > PROMANSWER_VALUE_MAX) {
				a->value_overlong = true;
				a->value[0] = 0;
			} else {
				copy_cut(a->value, sizeof(a->value), s, len);
			}
			a->has_value = true;
		} else {
			sample_bad(a);
		}
		break;
	case N_RESULT:
		/* a scalar in the result array: not a vector's sample */
		sample_bad(a);
		break;
	case N_SAMPLE:
	case N_OTHER:
		break;
	}
	next_pos(a);
	return 1;
}

static int y_null(void *ctx)
{
	return on_scalar_string(ctx, (const unsigned char *)"", 0, false);
}

static int y_boolean(void *ctx, int b)
{
	(void)b;
	return on_scalar_string(ctx, (const unsigned char *)"", 0, false);
}

static int y_number(void *ctx, const char *s, size_t len)
{
	return on_scalar_string(ctx, (const unsigned char *)s, len, false);
}

static int y_string(void *ctx, const unsigned char *s, size_t len)
{
	return on_scalar_string(ctx, s, len, true);
}

static int push(struct promanswer *a, enum node n)
{
	if (a->depth == DEPTH_MAX)
		return stop(a, "nested deeper than an answer of the query API");
	a->node[a->depth] = n;
	a->key[a->depth] = K_NONE;
	a->pos[a->depth] = 0;
	a->depth++;
	return 1;
}

static void sample_start(struct promanswer *a)
{
	memset(a->has_label, 0, sizeof(a->has_label));
	a->overlong = 0;
	a->value[0] = 0;
	a->value_overlong = a->has_metric = a->has_value = a->has_time = a->sample_bad = false;
	a->t = 0;
}

static int y_start_map(void *ctx)
{
	struct promanswer *a = ctx;
	enum node p = parent(a), n = N_OTHER;
	enum key k = parent_key(a);

	if (!a->depth)
		n = N_ROOT;
	else if (p == N_ROOT && k == K_DATA)
		n = N_DATA;
	else if (p == N_RESULT)
		n = N_SAMPLE;
	else if (p == N_SAMPLE && k == K_METRIC)
		n = N_METRIC;
	else if (p == N_VALUE || p == N_METRIC)
		sample_bad(a);
	if (n == N_SAMPLE) {
		if (a->nsamples == PROMANSWER_SAMPLES_MAX)
			return stop(a, "more samples than one answer may hold");
		sample_start(a);
	}
	if (n == N_METRIC)
		a->has_metric = true;
	return push(a, n);
}

static int key_of(struct promanswer *a, const unsigned char *s, size_t len)
{
	static const struct {
		enum node in;
		const char *name;
		enum key key;
	} keys[] = {
		{ N_ROOT, "status", K_STATUS }, { N_ROOT, "errorType", K_ERROR_TYPE },
		{ N_ROOT, "error", K_ERROR }, { N_ROOT, "warnings", K_WARNINGS },
		{ N_ROOT, "data", K_DATA }, { N_DATA, "resultType", K_RESULT_TYPE },
		{ N_DATA, "result", K_RESULT }, { N_SAMPLE, "metric", K_METRIC },
		{ N_SAMPLE, "value", K_VALUE },
	};
	enum node n = a->node[a->depth - 1];

	a->label_idx = -1;
	if (n == N_METRIC) {
		for (size_t i = 0; i < a->nkeep; i++)
			if (strlen(a->keep[i]) == len && !memcmp(a->keep[i], s, len)) {
				a->label_idx = (int)i;
				break;
			}
		return K_LABEL;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].in == n && strlen(keys[i].name) == len && !memcmp(keys[i].name, s, len))
			return keys[i].key;
	return K_NONE;
}

static int y_map_key(void *ctx, const unsigned char *s, size_t len)
{
	struct promanswer *a = ctx;

	a->key[a->depth - 1] = key_of(a, s, len);
	return 1;
}

static int y_end_map(void *ctx)
{
	struct promanswer *a = ctx;
	enum node n = a->node[--a->depth];

	if (n == N_SAMPLE) {
		struct promanswer_sample s = { .overlong = a->overlong, .t = a->t,
					       .value = a->value,
					       .value_overlong = a->value_overlong };
		int ret;

		a->nsamples++;
		if (a->sample_bad || !a->has_metric || !a->has_value || !a->has_time) {
			sample_bad(a);
		} else if (!a->stopped) {
			for (size_t i = 0; i < a->nkeep; i++)
				s.label[i] = a->has_label[i] ? a->label[i] : NULL;
			if ((ret = a->fn(a->ctx, &s))) {
				a->stopped = ret;
				return 0;
			}
		}
	}
	next_pos(a);
	return 1;
}

static int y_start_array(void *ctx)
{
	struct promanswer *a = ctx;
	enum node p = parent(a), n = N_OTHER;
	enum key k = parent_key(a);

	if (!a->depth)
		return stop(a, "an array where the answer's object should be");
	if (p == N_ROOT && k == K_WARNINGS) {
		n = N_WARNINGS;
	} else if (p == N_DATA && k == K_RESULT) {
		/* a result whose type is known not to be a vector is passed over */
		if (!a->result_type[0] || !strcmp(a->result_type, "vector"))
			n = N_RESULT;
		a->has_result = true;
	} else if (p == N_SAMPLE && k == K_VALUE) {
		n = N_VALUE;
	} else if (p == N_VALUE || p == N_METRIC) {
		sample_bad(a);
	}
	return push(a, n);
}

static int y_end_array(void *ctx)
{
	struct promanswer *a = ctx;
	enum node n = a->node[--a->depth];

	if (n == N_VALUE && a->pos[a->depth] != 2)
		sample_bad(a);
	next_pos(a);
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = y_null,
	.yajl_boolean = y_boolean,
	.yajl_number = y_number,
	.yajl_string = y_string,
	.yajl_start_map = y_start_map,
	.yajl_map_key = y_map_key,
	.yajl_end_map = y_end_map,
	.yajl_start_array = y_start_array,
	.yajl_end_array = y_end_array,
};

struct promanswer *promanswer_new(const char *const *keep, promanswer_sample_fn fn, void *ctx)
{
	struct promanswer *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->keep = keep;
	while (keep && keep[a->nkeep] && a->nkeep < PROMANSWER_LABELS)
		a->nkeep++;
	a->fn = fn;
	a->ctx = ctx;
	a->samples_ok = true;
	a->label_idx = -1;
	if (!(a->y = yajl_alloc(&callbacks, NULL, a))) {
		free(a);
		return NULL;
	}
	return a;
}

void promanswer_free(struct promanswer *a)
{
	if (!a)
		return;
	yajl_free(a->y);
	free(a);
}

/* yajl's status into ours: the caller's code, -1 with a reason, or 0. */
static int status_of(struct promanswer *a, yajl_status st)
{
	if (a->stopped)
		return a->stopped;
	if (st == yajl_status_ok)
		return 0;
	if (!a->why[0]) {
		unsigned char *msg = yajl_get_error(a->y, 0, NULL, 0);
		size_t n = 0;

		/* yajl's text, printable and on one line */
		for (const unsigned char *p = msg; p && *p && n + 1 < sizeof(a->why); p++)
			a->why[n++] = (*p >= 0x20 && *p < 0x7f) ? (char)*p : ' ';
		a->why[n] = 0;
		if (!n)
			snprintf(a->why, sizeof(a->why), "not JSON");
		yajl_free_error(a->y, msg);
	}
	a->stopped = -1;
	return -1;
}

int promanswer_feed(struct promanswer *a, const char *buf, size_t len)
{
	if (a->stopped)
		return a->stopped;
	return status_of(a, yajl_parse(a->y, (const unsigned char *)buf, len));
}

int promanswer_finish(struct promanswer *a)
{
	if (a->stopped)
		return a->stopped;
	return status_of(a, yajl_complete_parse(a->y));
}

const char *promanswer_error(const struct promanswer *a)
{
	return a->why;
}

const char *promanswer_status(const struct promanswer *a)
{
	return a->status;
}

const char *promanswer_error_type(const struct promanswer *a)
{
	return a->error_type;
}

const char *promanswer_error_text(const struct promanswer *a)
{
	return a->error_text;
}

const char *promanswer_result_type(const struct promanswer *a)
{
	return a->result_type;
}

bool promanswer_has_result(const struct promanswer *a)
{
	return a->has_result;
}

bool promanswer_samples_ok(const struct promanswer *a)
{
	return a->samples_ok;
}

size_t promanswer_nsamples(const struct promanswer *a)
{
	return a->nsamples;
}

size_t promanswer_nwarnings(const struct promanswer *a)
{
	return a->nwarnings;
}

const char *promanswer_warning(const struct promanswer *a, size_t i)
{
	return i < a->nwarnings && i < PROMANSWER_WARNINGS ? a->warning[i] : "";
}
