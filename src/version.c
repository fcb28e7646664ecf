// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "version.h"

#include <archive.h>
#include <bpf/libbpf.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <string.h>
#include <yaml.h>

#include "gitversion.h" /* OUT/gitversion.h, from tools/gen-version */
#include "util.h"

const char *permscope_version(void)
{
	return PERMSCOPE_BUILD_VERSION;
}

const char *permscope_revision(void)
{
	return PERMSCOPE_BUILD_REVISION;
}

void build_info_self(struct build_info *b)
{
	memset(b, 0, sizeof(*b));
	copy_truncated(b->version, PERMSCOPE_BUILD_VERSION, sizeof(b->version));
	copy_truncated(b->revision, PERMSCOPE_BUILD_REVISION, sizeof(b->revision));
	copy_truncated(b->libbpf, libbpf_version_string(), sizeof(b->libbpf));
}

bool build_info_known(const struct build_info *b)
{
	return b->version[0] != 0;
}

json_t *build_info_to_json(const struct build_info *b)
{
	return json_pack("{s:s,s:o,s:s}", "version", b->version,
			 "revision", b->revision[0] ? json_string(b->revision) : json_null(),
			 "libbpf", b->libbpf);
}

void build_info_text(const struct build_info *b, const char *tool, char *buf, size_t size)
{
	/* a profile's or a server's text: escaped, it cannot end a line */
	if (build_info_known(b))
		snprintf(buf, size, "permscope %s (libbpf %s)", printable(b->version),
			 b->libbpf[0] ? printable(b->libbpf) : "unknown");
	else
		snprintf(buf, size, "permscope %s (build unknown: written before builds were kept)",
			 tool && *tool ? printable(tool) : "unknown");
}

/* ---- features ------------------------------------------------------------ */

static const char *libmicrohttpd_version(void)
{
	return MHD_get_version();
}

static const char *libarchive_version(void)
{
	/* "libarchive 3.6.2": the number alone, as the others give it */
	const char *v = archive_version_string();

	return strncmp(v, "libarchive ", 11) ? v : v + 11;
}

/* GnuTLS's, if the libmicrohttpd this runs with serves TLS at all. */
static const char *tls_version(void)
{
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return "unavailable (libmicrohttpd built without TLS)";
	return gnutls_check_version(NULL);
}

static const char *libyaml_version(void)
{
	return yaml_get_version_string();
}

/*
 * What this build can do that another build might not: one row a feature,
 * in the order --version prints them.  A feature that is built in only
 * when a library is there gets its row under that library's #ifdef.
 */
static const struct feature {
	const char *name;              /* the word --version prints */
	const char *what;              /* what it gives */
	const char *(*library)(void);  /* the version of the library it runs with, or NULL */
} features[] = {
	{ "skeletons", "BPF programs built into the binary (bpftool gen skeleton)", NULL },
	{ "libmicrohttpd", "the daemon's /metrics endpoint", libmicrohttpd_version },
	{ "libarchive", "compressed kernel images for check --btf", libarchive_version },
	{ "tls", "--web-config's tls_server_config (GnuTLS, through libmicrohttpd)", tls_version },
	{ "basic-auth", "--web-config's basic_auth_users (bcrypt by libcrypt)", NULL },
	{ "libyaml", "reads --web-config", libyaml_version },
	{ "systemd-notify", "the daemon's READY=1, STATUS= and WATCHDOG=1 (libsystemd)", NULL },
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))

static void version_json(FILE *out)
{
	struct build_info b;
	json_t *root, *fs = json_array();

	build_info_self(&b);
	for (size_t i = 0; i < NFEATURES; i++)
		json_array_append_new(fs, json_pack("{s:s,s:s,s:o}", "name", features[i].name,
			"what", features[i].what, "library", features[i].library ?
			json_string(features[i].library()) : json_null()));
	root = build_info_to_json(&b);
	json_object_set_new(root, "describe", PERMSCOPE_BUILD_DESCRIBE[0] ?
			    json_string(PERMSCOPE_BUILD_DESCRIBE) : json_null());
	json_object_set_new(root, "features", fs);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

void version_print(FILE *out, bool json)
{
	if (json) {
		version_json(out);
		return;
	}
	fprintf(out, "permscope %s\n", PERMSCOPE_BUILD_VERSION);
	if (PERMSCOPE_BUILD_REVISION[0])
		fprintf(out, "revision %s\n", PERMSCOPE_BUILD_REVISION);
	else
		fprintf(out, "revision unknown (built without git)\n");
	fprintf(out, "using libbpf %s\n", libbpf_version_string());
	fputs("features:", out);
	for (size_t i = 0; i < NFEATURES; i++)
		fprintf(out, "%s %s%s%s", i ? "," : "", features[i].name,
			features[i].library ? " " : "", features[i].library ? features[i].library() : "");
	fputc('\n', out);
}
