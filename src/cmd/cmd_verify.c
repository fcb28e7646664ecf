// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * permscope verify: record like `record`, with the programs sending a
 * sample of every broken invariant, then judge (src/run/verify.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "run/record.h"
#include "util.h"
#include "run/verify.h"

/* Without -d or a command: this much of the whole machine. */
#define VERIFY_DEFAULT_S 5.0

struct verify_cmd {
	struct record_opts rec;
	struct output_opts out;
	const char *output;    /* -o: what is printed goes there instead */
	const char *json_path; /* --json-file: the JSON verdict, beside what is printed */
};

enum { OPT_JSON_FILE = 0x500 };

static const struct argp_option verify_cmd_options[] = {
	{ "output", 'o', "FILE", 0, "Write what would be printed (the text, or JSON with -j) "
	  "to FILE instead of standard output, atomically", 0 },
	{ "json-file", OPT_JSON_FILE, "FILE", 0, "Also write the verdict as JSON to FILE "
	  "(atomically), whatever is printed: the text for a person, the file for a script", 0 },
	{ 0 },
};

static error_t verify_cmd_parse(int key, char *arg, struct argp_state *state)
{
	struct verify_cmd *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		c->out.offered = FORMAT_BIT(FORMAT_TEXT) | FORMAT_BIT(FORMAT_JSON);
		state->child_inputs[0] = &c->rec;
		state->child_inputs[1] = &c->out;
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_JSON_FILE:
		c->json_path = arg;
		break;
	case ARGP_KEY_ARGS:
		c->rec.command = state->argv + state->next;
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child verify_cmd_children[] = {
	{ &verify_record_argp, 0, "What to record:", 1 },
	{ &recording_output_argp, 0, "Output:", 2 },
	{ 0 },
};

static const struct argp verify_cmd_argp = {
	verify_cmd_options, verify_cmd_parse, "[-- CMD [ARGS...]]",
	"Record like 'permscope record' (CMD and its children, or the whole machine "
	"for --duration seconds, 5 by default), with the probes sending a sample "
	"each time an invariant of a fast path breaks, and say whether any did.\v"
	"The invariants:\n"
	"  access.unsafe           access() skipped the cred override although the\n"
	"                          caller's fsuid/fsgid or capabilities needed it.\n"
	"                          (access.avoidable, a cred allocated that was not\n"
	"                          needed, is the stock behaviour: information only.)\n"
	"  lookup.violations       path lookup skipped the full permission check of a\n"
	"                          directory that is not world-searchable, has an ACL\n"
	"                          or did not opt in (one changed in the last 2 s is\n"
	"                          'racing': information only).\n"
	"  exec.enoent_late        execve() failed with ENOENT after allocating an mm,\n"
	"                          while other calls of the same recording failed\n"
	"                          before: the early exit exists here and was missed.\n"
	"                          Late ENOENTs alone mean a stock kernel: information.\n\n"
	"Each broken invariant is printed with its count and up to 5 samples (pid,\n"
	"comm and what mattered: the creds, or the directory's fs, dev:ino, mode, ACL\n"
	"state and opt-in bit); the probes send at most 16 samples of a kind a second\n"
	"and count the rest.  docs/verify.md has the details and the JSON format\n"
	"(\"" VERIFY_FORMAT "\").\n\n"
	"Exit status:\n"
	"  0  clean: every family recorded everything, and no invariant broke\n"
	"  1  an invariant broke (the samples say where)\n"
	"  2  bad usage\n"
	"  3  cannot judge: nothing broke in what was seen, but a family could not\n"
	"     attach or lost events (dropped calls, programs the kernel skipped)\n\n"
	"Examples:\n"
	"  permscope verify                          the whole machine for 5 s\n"
	"  permscope verify -d 60 --families lookup  lookup only, for a minute\n"
	"  permscope verify -j -- make -j2           a build, the verdict as JSON\n"
	"  permscope verify -o verdict.json -- make   the text, and the JSON kept\n"
	"  permscope verify --families access,exec -- ./ci-workload.sh\n",
	verify_cmd_children, 0, 0,
};

/* The verdict in FORMAT into `path` (atomically; "-": stdout): 0, or -1 after saying why. */
static int write_verdict(const char *path, const struct profile *p,
			 const struct verify_samples *vs, enum output_format format, int *verdict)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int err;

	if (!mem) {
		pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	*verdict = verify_report(mem, p, vs, format);
	if (fclose(mem)) {
		free(buf);
		pr_err("%s: %s", path, strerror(errno));
		return -1;
	}
	err = emit_output(path, buf, len);
	free(buf);
	return err == EXIT_OK ? 0 : -1;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_cmd c;
	struct verify_samples samples;
	struct sample_sink sink = {
		.sample = verify_samples_add, .unsent = verify_samples_unsent, .ctx = &samples,
	};
	struct profile p;
	int ret;

	memset(&c, 0, sizeof(c));
	memset(&samples, 0, sizeof(samples));
	record_opts_init(&c.rec);
	parse_command(&verify_cmd_argp, argc, argv, &c);
	if (c.rec.pid && c.rec.command) {
		pr_err("--pid and a command exclude each other (the command's own pid is followed)");
		return EXIT_USAGE;
	}
	if (c.rec.probe.lean) {
		pr_err("--lean: verify judges from complete recordings (record, report and the "
		       "daemon take --lean)");
		return EXIT_USAGE;
	}
	if ((c.json_path && check_output_path(c.json_path)) ||
	    (c.output && check_output_path(c.output)))
		return EXIT_USAGE;
	if (!c.rec.command && !c.rec.duration_s)
		c.rec.duration_s = VERIFY_DEFAULT_S;
	c.rec.probe.samples = &sink;
	ret = record_run(&c.rec, &p);
	if (ret != EXIT_OK) {
		profile_free(&p);
		/* Nothing attached (the reasons are printed): nothing was judged. */
		return ret == EXIT_FAIL ? EXIT_NO_VERDICT : ret;
	}
	if (c.output) {
		if (write_verdict(c.output, &p, &samples, c.out.format, &ret))
			ret = EXIT_FAIL;
	} else {
		ret = verify_report(stdout, &p, &samples, c.out.format);
		fflush(stdout);
	}
	if (c.json_path && write_verdict(c.json_path, &p, &samples, FORMAT_JSON, &(int){ 0 }))
		ret = EXIT_FAIL;
	if (p.command && p.exit_status < 0)
		pr_warn("the recording ended before the command did: it was stopped");
	profile_free(&p);
	return ret;
}
