// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* permscope bench: the fast paths' microbenchmarks, fast vs forced slow. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cmd/commands.h"
#include "bench/overhead.h"
#include "bench/vmfigures.h"
#include "kernel/credlayout.h"
#include "profile.h"
#include "util.h"
#include "version.h"

#define BENCH_FORMAT "permscope-bench/1"

/* --procs and --runs have no short form: -p is --pid and -r --rules elsewhere */
enum { OPT_SLOW = 0x500, OPT_LOOPS, OPT_OVERHEAD, OPT_VM_RESULTS, OPT_PROCS, OPT_RUNS };

struct bench_cmd {
	struct output_opts out;
	const char *output;
	struct bench_config cfg;
	bool procs_given, threads_given, overhead;
	const char *vm_results; /* --vm-results DIR: print make bench-vm's figures */
	bool want[BENCH_COUNT];
	int nwant;
};

static const struct argp_option bench_options[] = {
	{ "procs", OPT_PROCS, "N", 0, "N worker processes (default: 1; cred-bounce: 2 threads)", 0 },
	{ "threads", 't', "N", 0, "N worker threads instead of processes", 0 },
	{ "duration", 'd', "S", 0, "Seconds a measured run lasts (default: 1)", 0 },
	{ "runs", OPT_RUNS, "R", 0, "Measured runs, or fast/slow pairs with --slow (default: 5)", 0 },
	{ "slow", OPT_SLOW, 0, 0, "Also measure with the fast path defeated, interleaved, and "
	  "print what the fast path is worth (access1, access2, stat-path)", 0 },
	{ "overhead", OPT_OVERHEAD, 0, 0, "Measure the probes' own cost instead: each run paired "
	  "with one under each family alone, all of them, and bpftrace's one-liner when "
	  "installed (root)", 0 },
	{ "output", 'o', "FILE", 0, "Also write the results to FILE as a profile of runs, for "
	  "compare and gate (bench.NAME.* metrics)", 0 },
	{ "vm-results", OPT_VM_RESULTS, "DIR", 0, "Run nothing: print the figures of one "
	  "kernel's make bench-vm results in DIR (build/vm/overhead/KERNEL/results): "
	  "guest instructions per probed call over no probe, beside the empty programs' "
	  "floor, step by step, and the daemon's slowdowns", 0 },
	/* for tests of the harness: each worker does exactly N operations */
	{ "loops", OPT_LOOPS, "N", OPTION_HIDDEN, "Each worker does exactly N operations", 0 },
	{ 0 },
};

static long parse_count(const char *arg, const char *what, long max, struct argp_state *state)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		argp_error(state, "%s must be a whole number from 1 to %ld, not '%s'", what, max, arg);
	return v;
}

/* "access1, access2, ... or all": what NAME may be, for the usage errors. */
static const char *bench_names(void)
{
	static char names[256];
	size_t len = 0;

	for (int i = 0; i < BENCH_COUNT && len < sizeof(names); i++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
				bench_defs[i].name);
	if (len < sizeof(names))
		snprintf(names + len, sizeof(names) - len, " or all");
	return names;
}

static error_t bench_parse(int key, char *arg, struct argp_state *state)
{
	struct bench_cmd *c = state->input;
	char *end;
	int id;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->out;
		break;
	case OPT_PROCS:
	case 't':
		if ((key == OPT_PROCS && c->threads_given) || (key == 't' && c->procs_given))
			argp_error(state, "--procs and --threads exclude each other");
		c->cfg.workers = (int)parse_count(arg, key == OPT_PROCS ? "--procs" : "--threads", 1024,
						  state);
		c->cfg.threads = key == 't';
		*(key == OPT_PROCS ? &c->procs_given : &c->threads_given) = true;
		break;
	case 'd':
		errno = 0;
		c->cfg.duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(c->cfg.duration >= 0.01 && c->cfg.duration <= 3600))
			argp_error(state, "--duration must be seconds from 0.01 to 3600, not '%s'", arg);
		break;
	case OPT_RUNS:
		c->cfg.runs = (int)parse_count(arg, "--runs", 1000, state);
		break;
	case OPT_SLOW:
		c->cfg.slow = true;
		break;
	case OPT_LOOPS:
		c->cfg.loops = parse_count(arg, "--loops", 1000000000L, state);
		break;
	case OPT_OVERHEAD:
		c->overhead = true;
		break;
	case OPT_VM_RESULTS:
		c->vm_results = arg;
		break;
	case 'o':
		c->output = arg;
		break;
	case ARGP_KEY_ARG:
		if (!strcmp(arg, "all")) {
			for (int i = 0; i < BENCH_COUNT; i++)
				c->want[i] = true;
		} else if ((id = bench_by_name(arg)) >= 0) {
			c->want[id] = true;
		} else {
			argp_error(state, "unknown benchmark '%s' (%s)", arg, bench_names());
		}
		c->nwant++;
		break;
	case ARGP_KEY_END:
		/* the probed and unprobed runs must differ in the probes only */
		if (c->overhead && c->cfg.slow)
			argp_error(state, "--overhead and --slow exclude each other (measure the "
				   "probes' cost on the fast path, then the fast path without probes)");
		if (c->overhead && c->cfg.loops)
			argp_error(state, "--overhead measures rates: it takes --duration, not --loops");
		if (c->vm_results && (c->nwant || c->overhead || c->cfg.slow || c->output))
			argp_error(state, "--vm-results runs nothing: it takes no benchmark, "
				   "--overhead, --slow or --output");
		if (!c->nwant && !c->vm_results)
			argp_error(state, "name a benchmark (%s)", bench_names());
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child bench_children[] = {
	{ &output_argp, 0, "Output:", 1 },
	{ &quiet_argp, 0, 0, 0 },
	{ 0 },
};

static const struct argp bench_argp = {
	bench_options, bench_parse, "NAME...",
	"Run the fast paths' microbenchmarks (no probes attached): N workers each "
	"run a loop and count its operations; a warm-up, then R measured runs of S "
	"seconds, each printed with its total and per-worker ops/s.\v"
	"Benchmarks (docs/benchmarks.md):\n"
	"  access1      each worker access()es its own file (faccessat cred override)\n"
	"  access2      all workers access() one file (the same change)\n"
	"  stat-path    stat() at the end of a deep path (MAY_EXEC lookup)\n"
	"  exec-path    vfork+exec through a 7-entry PATH vs by absolute path\n"
	"               (execve ENOENT)\n"
	"  cred-bounce  one thread opens+closes a file, the others access()/stat()\n"
	"               another; the readers' ops/s (cred refcount layout)\n"
	"  all          every one of them\n\n"
	"--slow measures each run twice, fast path then defeated fast path (access: "
	"one capability cleared from the effective set; stat-path: an allowing ACL on "
	"a directory of a private path), and prints \"fast path worth: +X% ops/s\" "
	"with a 95% confidence interval (Welch's t) and the fast/slow ratio of the "
	"pairs in wall time and in the workers' CPU time.  Clearing a capability needs "
	"one to clear (root).\n\n"
	"--overhead pairs, in every round, a run with no probes with one under each "
	"probe configuration (each family alone, all families, bpftrace's one-liner "
	"when /usr/bin/bpftrace exists), attached in-process before the run and "
	"detached after it, and prints the slowdown (unprobed / probed ops per CPU "
	"second) as median (range) over the rounds.  Root.\n\n"
	"Examples:\n"
	"  permscope bench access1 --slow --runs 7\n"
	"  permscope bench access2 --procs 2 --json\n"
	"  permscope bench access1 --slow -o base.json   (later: -o new.json)\n"
	"  permscope bench access1 exec-path --overhead --runs 10 --duration 0.3\n"
	"  permscope compare base.json new.json\n",
	bench_children, 0, 0,
};

/* ---- text ----------------------------------------------------------------- */

/* exec-path's results: execs timed, not workers' operations counted */
static bool times_execs(enum bench_id id)
{
	return bench_defs[id].loop == BENCH_LOOP_EXECS;
}

static void print_run(FILE *out, const struct bench_result *res, int i, int runno)
{
	const struct bench_run *r = &res->runs[i];
	const double ns[4] = { r->path_min_ns, r->path_median_ns, r->abs_min_ns, r->abs_median_ns };
	char t[DURATION_LEN];

	if (times_execs(res->id)) { /* durations with their units, as report and compare have them */
		fprintf(out, "  %3d  %12.0f", runno, r->ops_per_s);
		for (int k = 0; k < 4; k++) {
			fputs(k == 2 ? "  " : " ", out);
			fput_aligned(out, format_duration(t, sizeof(t), ns[k], false, text_charset()), 10);
		}
		fputc('\n', out);
		return;
	}
	fprintf(out, "  %3d  %-4s  %12.0f  %12.0f  %12.0f\n", runno,
		r->variant == VARIANT_SLOW ? "slow" : "fast", r->ops_per_s,
		r->nworkers ? r->ops_per_s / r->nworkers : 0, r->cpu_ops_per_s);
}

/* A duration for the text, in a buffer that lives as long as the statement's block. */
#define DUR(ns) \
	format_duration((char[DURATION_LEN]){ 0 }, DURATION_LEN, (ns), false, text_charset())
static void print_text(FILE *out, const void *results, int which, const struct bench_config *cfg)
{
	const struct bench_result *res = (const struct bench_result *)results + which;
	const struct bench_def *d = &bench_defs[res->id];
	struct bench_summary s;
	int runno = 0;

	bench_summarize(res, &s);
	fprintf(out, "%s: %s (%s)\n", d->name, d->what, d->change);
	fprintf(out, "  %d %s%s, ", res->workers, res->threads ? "thread" : "process",
		res->workers == 1 ? "" : res->threads ? "s" : "es");
	if (cfg->loops > 0)
		fprintf(out, "%ld operations a worker", cfg->loops);
	else
		fprintf(out, "%g s a run", cfg->duration);
	fprintf(out, "; %s\n", res->target);
	if (*res->slow_how)
		fprintf(out, "  slow runs: %s\n", res->slow_how);
	if (*res->slow_skipped)
		fprintf(out, "  no slow runs: %s\n", res->slow_skipped);
	if (times_execs(res->id)) {
		fprintf(out, "  run   pairs/s      PATH min     median   absolute min     median\n");
	} else {
		fprintf(out, "  run  variant      ops/s    per worker     ops/cpu-s\n");
	}
	for (int i = 0; i < res->nruns; i++) {
		if (res->runs[i].variant == VARIANT_FAST)
			runno++;
		print_run(out, res, i, runno);
	}
	if (times_execs(res->id)) {
		fprintf(out, "  (a pair is one exec through PATH and one by absolute path)\n");
		fprintf(out, "  exec through PATH: min %s, median %s; absolute: min %s, median %s\n",
			DUR(s.path_min_ns), DUR(s.path_median_ns), DUR(s.abs_min_ns), DUR(s.abs_median_ns));
		fprintf(out, "  the 6 failed lookups cost %s (median), %.1f%% of an exec through "
			"PATH\n", DUR(s.path_median_ns - s.abs_median_ns), s.path_median_ns > 0 ?
			100 * (s.path_median_ns - s.abs_median_ns) / s.path_median_ns : 0);
		return;
	}
	fprintf(out, "  (%s; per worker: ops/s over the %s; ops/cpu-s: each worker's ops over its "
		"own CPU time, summed)\n", res->id == BENCH_CRED_BOUNCE ? "ops/s: the readers'" :
		"ops/s: all workers'", res->id == BENCH_CRED_BOUNCE ? "readers" : "workers");
	fprintf(out, "  fast: %.0f ± %.0f ops/s over %zu runs\n", s.fast.mean, s.fast.stddev, s.fast.n);
	if (!s.slow.n)
		return;
	fprintf(out, "  slow: %.0f ± %.0f ops/s over %zu runs\n", s.slow.mean, s.slow.stddev, s.slow.n);
	if (s.compared) {
		fprintf(out, "  fast path worth: %+.1f%% ops/s (95%% CI %+.1f%% .. %+.1f%%, Welch's t p=%.2g)\n",
			s.gain.pct, s.gain.lo, s.gain.hi, s.w.p);
		fprintf(out, "                   %+.1f%% ops/cpu-s (95%% CI %+.1f%% .. %+.1f%%, p=%.2g)\n",
			s.cpu_gain.pct, s.cpu_gain.lo, s.cpu_gain.hi, s.cpu_w.p);
	}
	else
		fprintf(out, "  fast path worth: %+.1f%% ops/s (two pairs or more give a confidence "
			"interval)\n", s.slow.mean > 0 ? 100 * (s.fast.mean - s.slow.mean) / s.slow.mean : 0);
	fprintf(out, "  fast/slow ratio: %.2fx median (%.2f-%.2f over %zu pairs, wall); %.2fx "
		"(%.2f-%.2f, thread CPU time)\n", s.ratio_median, s.ratio_min, s.ratio_max, s.npairs,
		s.cpu_ratio_median, s.cpu_ratio_min, s.cpu_ratio_max);
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *summary_json(const struct sample_summary *s)
{
	return json_pack("{s:I,s:f,s:f}", "n", (json_int_t)s->n, "mean", s->mean, "sd", s->stddev);
}

static json_t *result_json(const void *results, int which, const struct bench_config *cfg)
{
	const struct bench_result *res = (const struct bench_result *)results + which;
	struct bench_summary s;
	json_t *o = json_object(), *runs = json_array(), *sum;

	bench_summarize(res, &s);
	json_object_set_new(o, "name", json_string(bench_defs[res->id].name));
	json_object_set_new(o, "change", json_string(bench_defs[res->id].change));
	json_object_set_new(o, "workers", json_integer(res->workers));
	json_object_set_new(o, "worker_kind", json_string(res->threads ? "threads" : "processes"));
	json_object_set_new(o, "target", json_string(res->target));
	if (cfg->loops > 0)
		json_object_set_new(o, "loops", json_integer(cfg->loops));
	json_object_set_new(o, "slow", *res->slow_how ? json_string(res->slow_how) : json_null());
	if (*res->slow_skipped)
		json_object_set_new(o, "slow_skipped", json_string(res->slow_skipped));
	for (int i = 0; i < res->nruns; i++) {
		const struct bench_run *r = &res->runs[i];
		json_t *jr = json_object(), *per = json_array();

		json_object_set_new(jr, "variant", json_string(r->variant == VARIANT_SLOW ? "slow" : "fast"));
		json_object_set_new(jr, "seconds", json_real(r->secs));
		json_object_set_new(jr, "ops", json_integer((json_int_t)r->ops));
		json_object_set_new(jr, "ops_per_s", json_real(r->ops_per_s));
		if (!times_execs(res->id))
			json_object_set_new(jr, "ops_per_cpu_s", json_real(r->cpu_ops_per_s));
		for (int w = 0; w < r->nworkers; w++)
			json_array_append_new(per, json_real(r->worker_ops_per_s[w]));
		json_object_set_new(jr, "worker_ops_per_s", per);
		if (times_execs(res->id)) {
			json_object_set_new(jr, "path_min_ns", json_real(r->path_min_ns));
			json_object_set_new(jr, "path_median_ns", json_real(r->path_median_ns));
			json_object_set_new(jr, "abs_min_ns", json_real(r->abs_min_ns));
			json_object_set_new(jr, "abs_median_ns", json_real(r->abs_median_ns));
		}
		json_array_append_new(runs, jr);
	}
	json_object_set_new(o, "runs", runs);
	sum = json_object();
	json_object_set_new(sum, "ops_per_s", summary_json(&s.fast));
	if (!times_execs(res->id))
		json_object_set_new(sum, "ops_per_cpu_s", summary_json(&s.cpu_fast));
	if (s.slow.n) {
		json_object_set_new(sum, "slow_ops_per_s", summary_json(&s.slow));
		json_object_set_new(sum, "slow_ops_per_cpu_s", summary_json(&s.cpu_slow));
	}
	if (s.compared) {
		json_object_set_new(sum, "fast_path_gain", json_pack(
			"{s:f,s:f,s:f,s:f,s:f,s:f}", "percent", s.gain.pct, "ci_lo", s.gain.lo,
			"ci_hi", s.gain.hi, "p", s.w.p, "t", s.w.t, "df", s.w.df));
		json_object_set_new(sum, "fast_path_cpu_gain", json_pack(
			"{s:f,s:f,s:f,s:f,s:f,s:f}", "percent", s.cpu_gain.pct, "ci_lo", s.cpu_gain.lo,
			"ci_hi", s.cpu_gain.hi, "p", s.cpu_w.p, "t", s.cpu_w.t, "df", s.cpu_w.df));
	}
	if (s.npairs)
		json_object_set_new(sum, "ratio", json_pack(
			"{s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "pairs", (json_int_t)s.npairs,
			"wall_median", s.ratio_median, "wall_min", s.ratio_min, "wall_max", s.ratio_max,
			"cpu_median", s.cpu_ratio_median, "cpu_min", s.cpu_ratio_min,
			"cpu_max", s.cpu_ratio_max));
	if (times_execs(res->id))
		json_object_set_new(sum, "exec", json_pack(
			"{s:f,s:f,s:f,s:f,s:f}", "path_min_ns", s.path_min_ns, "path_median_ns",
			s.path_median_ns, "abs_min_ns", s.abs_min_ns, "abs_median_ns", s.abs_median_ns,
			"failed_lookups_ns", s.path_median_ns - s.abs_median_ns));
	json_object_set_new(o, "summary", sum);
	return o;
}

/* ---- what bench and --overhead write alike ------------------------------- */

/* What the two print and write of their results; the rest is shared. */
struct result_kind {
	const char *mode; /* the document's "mode"; NULL: plain bench */
	/* bench.NAME.* of measured run (--overhead: round) `run` of results[which] */
	int (*run_metrics)(const void *results, int which, int run, struct metric_list *l);
	json_t *(*json)(const void *results, int which, const struct bench_config *cfg);
	void (*print)(FILE *out, const void *results, int which, const struct bench_config *cfg);
};

/*
 * The results as a profile: no family recorded, one run per measured run
 * (a fast/slow pair, an --overhead round) holding every benchmark's
 * bench.NAME.* metrics of that run, so that compare and gate read them as
 * a merged profile's samples.
 */
static int write_profile(const char *path, const struct result_kind *k, const void *results,
			 int nres, const struct bench_config *cfg, uint64_t start, uint64_t end,
			 int argc, char **argv)
{
	struct profile p;
	int err = -ENOMEM;

	profile_init(&p);
	profile_set_host(&p);
	cred_layout_keep(&p);
	p.start_ns = start;
	p.end_ns = end;
	p.command = calloc(argc + 2, sizeof(char *));
	p.runs = calloc(cfg->runs, sizeof(*p.runs));
	if (!p.command || !p.runs)
		goto out;
	for (int i = 0; i <= argc; i++)
		if (!(p.command[i] = strdup(i ? argv[i - 1] : "permscope")))
			goto out;
	p.exit_status = 0;
	for (int r = 0; r < cfg->runs; r++) {
		p.nruns = r + 1;
		for (int i = 0; i < nres; i++)
			if (k->run_metrics(results, i, r, &p.runs[r]))
				goto out;
	}
	err = profile_write(&p, path);
out:
	profile_free(&p);
	if (err)
		pr_err("cannot write %s: %s", path, strerror(-err));
	return err ? EXIT_FAIL : EXIT_OK;
}

/* Where and when, then `benchmarks`: one object a benchmark. */
static char *document_json(const struct result_kind *k, const void *results, int nres,
			   const struct bench_config *cfg, uint64_t start_ns, uint64_t end_ns)
{
	json_t *root = json_object(), *list = json_array();
	struct build_info build;
	struct utsname u;
	char when[64];
	char *text;

	host_uname(&u);
	json_object_set_new(root, "format", json_string(BENCH_FORMAT));
	json_object_set_new(root, "tool_version", json_string(permscope_version()));
	build_info_self(&build);
	json_object_set_new(root, "build", build_info_to_json(&build));
	if (k->mode)
		json_object_set_new(root, "mode", json_string(k->mode));
	json_object_set_new(root, "hostname", json_string(u.nodename));
	json_object_set_new(root, "kernel_release", json_string(u.release));
	json_object_set_new(root, "kernel_version", json_string(u.version));
	json_object_set_new(root, "machine", json_string(u.machine));
	json_object_set_new(root, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	format_utc_ns(start_ns, when, sizeof(when));
	json_object_set_new(root, "start", json_string(when));
	format_utc_ns(end_ns, when, sizeof(when));
	json_object_set_new(root, "end", json_string(when));
	json_object_set_new(root, "duration_s", json_real(cfg->duration));
	json_object_set_new(root, "runs", json_integer(cfg->runs));
	for (int i = 0; i < nres; i++)
		json_array_append_new(list, k->json(results, i, cfg));
	json_object_set_new(root, "benchmarks", list);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	json_decref(root);
	return text;
}

/* -o's profile, then the results on stdout, as JSON or as text. */
static int emit_results(const struct bench_cmd *c, const struct result_kind *k,
			const void *results, int nres, uint64_t start, uint64_t end, int argc,
			char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (c->output && write_profile(c->output, k, results, nres, &c->cfg, start, end, argc,
				       argv))
		return EXIT_FAIL;
	if (c->out.format == FORMAT_JSON) {
		text = document_json(k, results, nres, &c->cfg, start, end);
		if (!text) {
			pr_err("out of memory");
			return EXIT_FAIL;
		}
		ret = emit_output(NULL, text, strlen(text));
		if (!ret)
			putchar('\n');
		free(text);
		return ret;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	for (int i = 0; i < nres; i++) {
		if (i)
			fputc('\n', f);
		k->print(f, results, i, &c->cfg);
	}
	fclose(f);
	ret = emit_output(NULL, text, len);
	free(text);
	return ret;
}

static int bench_metrics(const void *results, int which, int run, struct metric_list *l)
{
	return bench_run_metrics((const struct bench_result *)results + which, run, l);
}

static const struct result_kind bench_kind = {
	.run_metrics = bench_metrics, .json = result_json, .print = print_text,
};

/* ---- --overhead ------------------------------------------------------------ */

/* `text` in lines of at most 78 columns, "  " before the first, "    " before the others. */
static void print_wrapped(FILE *out, const char *text)
{
	const char *indent = "  ";

	while (*text) {
		size_t width = 78 - strlen(indent), n = strlen(text), cut = n;

		if (n > width) {
			for (cut = width; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = width;
		}
		fprintf(out, "%s%.*s\n", indent, (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		indent = "    ";
	}
}

static void print_overhead(FILE *out, const void *results, int which, const struct bench_config *cfg)
{
	const struct ovh_result *res = (const struct ovh_result *)results + which;
	const struct bench_def *d = &bench_defs[res->id];

	fprintf(out, "%s overhead: %s\n", d->name, d->what);
	fprintf(out, "  %d %s%s, %g s a run, %d rounds; each round pairs a run without\n"
		"  probes with one under each configuration, attached before it, detached after\n",
		res->workers, res->threads ? "thread" : "process", res->workers == 1 ? "" :
		res->threads ? "s" : "es", cfg->duration, cfg->runs);
	fprintf(out, "  %-9s %-21s %-21s %s\n", "probes", "slowdown, CPU time", "wall time",
		"slower (95% CI)");
	for (int i = 0; i < res->nconf; i++) {
		const struct ovh_conf *c = &res->conf[i];
		struct ovh_summary s;
		char cpu[32], wall[32];

		if (!c->npairs)
			continue;
		overhead_summarize(c, &s);
		snprintf(cpu, sizeof(cpu), "%.3fx (%.3f-%.3f)", s.cpu_median, s.cpu_min, s.cpu_max);
		snprintf(wall, sizeof(wall), "%.3fx (%.3f-%.3f)", s.wall_median, s.wall_min, s.wall_max);
		fprintf(out, "  %-9s %-21s %-21s ", c->name, cpu, wall);
		if (s.compared)
			fprintf(out, "%+.1f%% (%+.1f..%+.1f)\n", s.cost.pct, s.cost.lo, s.cost.hi);
		else
			fprintf(out, "(two rounds or more)\n");
	}
	fprintf(out, "  (slowdown: unprobed / probed ops per second of the workers' CPU time,\n"
		"  median (range) over the pairs; slower: 100 x (unprobed - probed) / probed\n"
		"  of the mean ops/cpu-s, with the 95%% CI of Welch's t%s)\n",
		times_execs(res->id) ? ";\n  exec-path's wall time: from the median exec of each kind" : "");
	for (int i = 0; i < res->nconf; i++) {
		const struct ovh_conf *c = &res->conf[i];
		char line[sizeof(c->why) + 64];

		if (c->npairs && c->kind == OVH_BPFTRACE)
			snprintf(line, sizeof(line), "bpftrace -e '%s'", c->how);
		else if (c->npairs)
			snprintf(line, sizeof(line), "%s: %s; attach %.2f s, detach %.2f s a round",
				 c->name, c->how, c->attach_s / c->npairs, c->detach_s / c->npairs);
		else
			snprintf(line, sizeof(line), "%s: not measured: %s", c->name, c->why);
		print_wrapped(out, line);
	}
}

static json_t *overhead_json(const void *results, int which, const struct bench_config *cfg)
{
	const struct ovh_result *res = (const struct ovh_result *)results + which;
	json_t *o = json_object(), *confs = json_array();

	(void)cfg;

	json_object_set_new(o, "name", json_string(bench_defs[res->id].name));
	json_object_set_new(o, "change", json_string(bench_defs[res->id].change));
	json_object_set_new(o, "workers", json_integer(res->workers));
	json_object_set_new(o, "worker_kind", json_string(res->threads ? "threads" : "processes"));
	for (int i = 0; i < res->nconf; i++) {
		const struct ovh_conf *c = &res->conf[i];
		json_t *jc = json_object(), *pairs = json_array();
		struct ovh_summary s;

		json_object_set_new(jc, "name", json_string(c->name));
		json_object_set_new(jc, "measured", json_boolean(c->npairs > 0));
		json_object_set_new(jc, "attached", c->npairs ? json_string(c->how) : json_null());
		if (!c->available || !c->npairs)
			json_object_set_new(jc, "unavailable", json_string(c->why));
		for (int k = 0; k < c->npairs; k++)
			json_array_append_new(pairs, json_pack(
				"{s:f,s:f,s:f,s:f,s:f,s:f}", "ops_per_cpu_s", c->pairs[k].base_cpu,
				"probed_ops_per_cpu_s", c->pairs[k].probed_cpu, "ops_per_s",
				c->pairs[k].base_wall, "probed_ops_per_s", c->pairs[k].probed_wall,
				"cpu_ratio", overhead_ratio(&c->pairs[k], false),
				"wall_ratio", overhead_ratio(&c->pairs[k], true)));
		json_object_set_new(jc, "pairs", pairs);
		if (c->npairs) {
			overhead_summarize(c, &s);
			json_object_set_new(jc, "attach_s", json_real(c->attach_s / c->npairs));
			json_object_set_new(jc, "detach_s", json_real(c->detach_s / c->npairs));
			json_object_set_new(jc, "ratio", json_pack(
				"{s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "pairs", (json_int_t)s.n,
				"cpu_median", s.cpu_median, "cpu_min", s.cpu_min, "cpu_max", s.cpu_max,
				"wall_median", s.wall_median, "wall_min", s.wall_min,
				"wall_max", s.wall_max));
			if (s.compared)
				json_object_set_new(jc, "cpu_cost", json_pack(
					"{s:f,s:f,s:f,s:f,s:f,s:f}", "percent", s.cost.pct, "ci_lo",
					s.cost.lo, "ci_hi", s.cost.hi, "p", s.w.p, "t", s.w.t,
					"df", s.w.df));
		}
		json_array_append_new(confs, jc);
	}
	json_object_set_new(o, "configurations", confs);
	return o;
}

static int overhead_metrics(const void *results, int which, int run, struct metric_list *l)
{
	return overhead_run_metrics((const struct ovh_result *)results + which, run, l);
}

static const struct result_kind overhead_kind = {
	.mode = "overhead", .run_metrics = overhead_metrics, .json = overhead_json,
	.print = print_overhead,
};

static int overhead_main(struct bench_cmd *c, int argc, char **argv)
{
	struct ovh_result res[BENCH_COUNT];
	char err[PATH_MAX + 256];
	int nres = 0, ret = EXIT_OK;
	uint64_t start = now_realtime_ns();

	if (geteuid() != 0)
		pr_warn("not root: no probe will attach, so only bpftrace (if installed) is measured");
	for (int id = 0; id < BENCH_COUNT; id++) {
		if (!c->want[id])
			continue;
		if (overhead_run(id, &c->cfg, &res[nres], err, sizeof(err))) {
			if (c->cfg.progress)
				fprintf(stderr, "\r%-40s\r", "");
			pr_err("%s: %s", bench_defs[id].name, err);
			overhead_result_free(&res[nres]);
			ret = EXIT_FAIL;
			goto out;
		}
		nres++;
	}
	ret = emit_results(c, &overhead_kind, res, nres, start, now_realtime_ns(), argc, argv);
out:
	for (int i = 0; i < nres; i++)
		overhead_result_free(&res[i]);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cmd c = { .cfg = { .duration = 1, .runs = 5 } };
	struct bench_result res[BENCH_COUNT];
	char err[PATH_MAX + 256];
	uint64_t start;
	int nres = 0, ret = EXIT_OK;

	parse_command(&bench_argp, argc, argv, &c);
	if ((ret = check_output_path(c.output)) != EXIT_OK)
		return ret;
	c.cfg.progress = verbosity >= 0 && isatty(STDERR_FILENO);
	if (c.vm_results)
		return vmfigures_main(c.vm_results, c.out.format == FORMAT_JSON);
	if (c.overhead)
		return overhead_main(&c, argc, argv);
	start = now_realtime_ns();
	for (int id = 0; id < BENCH_COUNT; id++) {
		if (!c.want[id])
			continue;
		if (c.cfg.slow && !bench_defs[id].slow)
			pr_info("%s has no slow variant: --slow does not apply to it", bench_defs[id].name);
		if (bench_run(id, &c.cfg, &res[nres], err, sizeof(err))) {
			if (c.cfg.progress)
				fprintf(stderr, "\r%-40s\r", "");
			pr_err("%s: %s", bench_defs[id].name, err);
			bench_result_free(&res[nres]);
			ret = EXIT_FAIL;
			goto out;
		}
		nres++;
	}
	ret = emit_results(&c, &bench_kind, res, nres, start, now_realtime_ns(), argc, argv);
out:
	for (int i = 0; i < nres; i++)
		bench_result_free(&res[i]);
	return ret;
}
