/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What this build of permscope is: its version and revision from `git
 * describe` at build time (tools/gen-version), the libbpf it runs with, and
 * the features built in.  `permscope --version` prints it, every profile
 * keeps it ("build"), and /metrics exports it (permscope_build_info).
 * docs/version.md says how the version is made.
 */
#ifndef PERMSCOPE_VERSION_H
#define PERMSCOPE_VERSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* A build, as a profile records it; "" in a field it does not know. */
struct build_info {
	char version[64];  /* "0.1.0+g17f6072", "0.2.0-3-g17f6072-dirty", "0.1.0" */
	char revision[48]; /* the full commit id; "" for a build without git */
	char libbpf[24];   /* libbpf_version_string() at run time: "v1.1" */
};

/* This build's version: "0.1.0+g17f6072" (docs/version.md). */
const char *permscope_version(void);
/* The commit it was built from, or "" when built without git (a tarball). */
const char *permscope_revision(void);
/* This build, with the libbpf this process runs with. */
void build_info_self(struct build_info *b);
/* Whether `b` names a build: false for a profile written before builds were kept. */
bool build_info_known(const struct build_info *b);
/* {"version", "revision", "libbpf"}, a revision "" as null. */
json_t *build_info_to_json(const struct build_info *b);
/*
 * "permscope VERSION (libbpf V)", or for a profile that predates the
 * build, "permscope TOOL (build unknown: written before builds were kept)".
 */
void build_info_text(const struct build_info *b, const char *tool, char *buf, size_t size);

/*
 * `permscope --version`, as bpftool prints its own: the version line, the
 * libbpf this process runs with, the features built in; `json` for the same
 * as one JSON object.
 */
void version_print(FILE *out, bool json);

#endif
