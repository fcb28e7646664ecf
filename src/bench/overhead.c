// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The probes' own cost: paired runs without and with them (see overhead.h). */
#include "bench/overhead.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics.h"
#include "run/record.h"
#include "util.h"

const char *overhead_bpftrace_script(enum bench_id id)
{
	return bench_defs[id].bpftrace;
}

/* ---- bpftrace, a child -------------------------------------------------- */

struct bpftrace {
	pid_t pid;
	int fd; /* its stdout and stderr */
	char text[2048];
	size_t len;
};

/* Read what it has written, waiting up to `ms`; -1 at EOF. */
static int bpftrace_read(struct bpftrace *b, int ms)
{
	struct pollfd pfd = { b->fd, POLLIN, 0 };
	char buf[512];
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = read(b->fd, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && errno == EINTR ? 0 : -1;
	if (b->len + n >= sizeof(b->text)) { /* keep the start: the attach line and errors */
		n = sizeof(b->text) - 1 - b->len;
	}
	memcpy(b->text + b->len, buf, n);
	b->len += n;
	b->text[b->len] = 0;
	return 1;
}

static void bpftrace_reap(struct bpftrace *b)
{
	double deadline = now_monotonic_ns() / 1e9 + 10;
	int status;

	kill(b->pid, SIGINT);
	/* it prints its maps on the way out: drain them so it never blocks */
	while (bpftrace_read(b, 100) >= 0 && now_monotonic_ns() / 1e9 < deadline)
		if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
			b->pid = 0;
			break;
		}
	if (b->pid) {
		kill(b->pid, SIGKILL);
		while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	b->pid = 0;
	close(b->fd);
}

/* Its last "ERROR: ..." line (the one that stopped it), else all it said. */
static const char *last_error(char *text)
{
	char *e = NULL, *p = text;

	while ((p = strstr(p, "ERROR:"))) {
		e = p;
		p += 6;
	}
	if (!e)
		return text;
	e[strcspn(e, "\n")] = 0;
	return e;
}

/*
 * Start bpftrace on `script` (execve with an argv, no shell) and wait until
 * it says it has attached.  0, or -1 with what it printed in `why`.
 */
static int bpftrace_start(struct bpftrace *b, const char *script, char *why, size_t whylen)
{
	char *argv[] = { "bpftrace", "-e", (char *)script, NULL };
	double deadline;
	int p[2], status, n;

	memset(b, 0, sizeof(*b));
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	b->pid = fork();
	if (b->pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!b->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(BPFTRACE_PATH, argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", BPFTRACE_PATH, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	b->fd = p[0];
	deadline = now_monotonic_ns() / 1e9 + 60; /* it compiles the script first */
	while (!strstr(b->text, "Attaching")) {
		if (bpftrace_read(b, 200) < 0 || now_monotonic_ns() / 1e9 > deadline) {
			bpftrace_reap(b);
			snprintf(why, whylen, "bpftrace did not attach: %.900s", b->len ? b->text :
				 "it said nothing (timed out)");
			for (char *c = why; *c; c++) /* one line */
				if (*c == '\n')
					*c = ' ';
			return -1;
		}
	}
	/*
	 * The line is printed before the probes attach, and a probe that
	 * cannot attach (a kprobe on a kernel without them) ends it after:
	 * let them attach, and see that it still runs.
	 */
	while ((n = bpftrace_read(b, 300)) > 0)
		;
	/* at EOF it is exiting: wait for it */
	if (waitpid(b->pid, &status, n < 0 ? 0 : WNOHANG) == b->pid) {
		b->pid = 0;
		close(b->fd);
		snprintf(why, whylen, "bpftrace exited (status %d): %.900s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			 last_error(b->text));
		for (char *c = why; *c; c++)
			if (*c == '\n')
				*c = ' ';
		return -1;
	}
	return 0;
}

/* ---- the configurations --------------------------------------------------- */

static void describe_failure(const struct family_result *r, char *why, size_t len)
{
	size_t n = 0;

	why[0] = 0;
	for (int i = 0; i < r->nattempts && n < len; i++)
		n += snprintf(why + n, len - n, "%s%s: %s", i ? "; " : "",
			      mode_name(r->attempts[i].mode), r->attempts[i].why);
	if (!r->nattempts)
		snprintf(why, len, "%s", family_state_text(r));
}

/* Which families attach here, and how: one attach of all of them. */
static void plan(enum bench_id id, struct ovh_result *res)
{
	struct record_opts o;
	struct recorder rec;
	struct profile p;
	char line[256];
	bool any = false;

	record_opts_init(&o);
	profile_init(&p);
	recorder_attach(&rec, &o.probe, &p);
	recorder_detach(&rec);
	for (int f = 0; f < FAMILY_COUNT; f++) {
		struct ovh_conf *c = &res->conf[res->nconf++];

		c->kind = OVH_FAMILY;
		snprintf(c->name, sizeof(c->name), "%s", family_name(f));
		c->probe = o.probe;
		for (int g = 0; g < FAMILY_COUNT; g++)
			c->probe.want[g] = g == f;
		c->available = p.fam[f].status == FAMILY_OK;
		if (c->available) {
			snprintf(c->how, sizeof(c->how), "%s: %s", family_name(f),
				 family_state_text(&p.fam[f]));
			any = true;
		} else {
			describe_failure(&p.fam[f], c->why, sizeof(c->why));
		}
	}
	{
		struct ovh_conf *c = &res->conf[res->nconf++];

		c->kind = OVH_ALL;
		snprintf(c->name, sizeof(c->name), "all");
		c->probe = o.probe;
		for (int f = 0; f < FAMILY_COUNT; f++)
			c->probe.want[f] = p.fam[f].status == FAMILY_OK;
		c->available = any;
		recorder_describe(&p, line, sizeof(line));
		snprintf(any ? c->how : c->why, any ? sizeof(c->how) : sizeof(c->why), "%s", line);
	}
	{
		struct ovh_conf *c = &res->conf[res->nconf++];

		c->kind = OVH_BPFTRACE;
		snprintf(c->name, sizeof(c->name), "bpftrace");
		snprintf(c->how, sizeof(c->how), "%s", overhead_bpftrace_script(id));
		c->available = !access(BPFTRACE_PATH, X_OK);
		if (!c->available)
			snprintf(c->why, sizeof(c->why), "%s is not installed (Debian: apt-get install "
				 "bpftrace)", BPFTRACE_PATH);
	}
	profile_free(&p);
}

/* One run of benchmark `id` into `r`. */
static int one_run(enum bench_id id, const struct bench_config *cfg, struct bench_run *r,
		   struct ovh_result *res, char *err, size_t errlen)
{
	struct bench_config c1 = *cfg;
	struct bench_result br;

	c1.runs = 1;
	c1.slow = false;
	c1.progress = false;
	if (bench_run(id, &c1, &br, err, errlen)) {
		bench_result_free(&br);
		return -1;
	}
	*r = br.runs[0];
	r->worker_ops_per_s = NULL;
	res->workers = br.workers;
	res->threads = br.threads;
	bench_result_free(&br);
	return 0;
}

static void progress(const struct bench_config *cfg, enum bench_id id, const char *conf, int round)
{
	if (!cfg->progress)
		return;
	fprintf(stderr, "\r%-12s %-8s round %d/%d   ", bench_defs[id].name, conf, round, cfg->runs);
	fflush(stderr);
}

/* One pair of configuration `c`: unprobed, then probed.  A `c` that fails to attach is retired. */
static int one_pair(enum bench_id id, const struct bench_config *cfg, struct ovh_conf *c,
		    struct ovh_result *res, char *err, size_t errlen)
{
	struct bench_run base, probed;
	struct recorder rec;
	struct bpftrace bt;
	struct profile p;
	double t;
	int ret;

	if (one_run(id, cfg, &base, res, err, errlen))
		return -1;
	t = now_monotonic_ns() / 1e9;
	if (c->kind == OVH_BPFTRACE) {
		if (bpftrace_start(&bt, c->how, c->why, sizeof(c->why))) {
			c->available = false;
			return 0;
		}
	} else {
		profile_init(&p);
		if (recorder_attach(&rec, &c->probe, &p) != EXIT_OK) {
			recorder_detach(&rec);
			profile_free(&p);
			snprintf(c->why, sizeof(c->why), "it no longer attaches");
			c->available = false;
			return 0;
		}
		profile_free(&p);
	}
	c->attach_s += now_monotonic_ns() / 1e9 - t;
	ret = one_run(id, cfg, &probed, res, err, errlen);
	t = now_monotonic_ns() / 1e9;
	if (c->kind == OVH_BPFTRACE)
		bpftrace_reap(&bt);
	else
		recorder_detach(&rec);
	c->detach_s += now_monotonic_ns() / 1e9 - t;
	if (ret)
		return -1;
	if (bench_defs[id].loop == BENCH_LOOP_EXECS) {
		/*
		 * wall time from the median exec of each kind: a pair of runs
		 * of a fraction of a second, one of them descheduled for a
		 * while, otherwise swings 3x on a shared machine
		 */
		base.ops_per_s = base.path_median_ns + base.abs_median_ns > 0 ?
			1e9 / (base.path_median_ns + base.abs_median_ns) : 0;
		probed.ops_per_s = probed.path_median_ns + probed.abs_median_ns > 0 ?
			1e9 / (probed.path_median_ns + probed.abs_median_ns) : 0;
	}
	c->pairs[c->npairs++] = (struct ovh_pair){ base.cpu_ops_per_s, probed.cpu_ops_per_s,
						   base.ops_per_s, probed.ops_per_s };
	return 0;
}

int overhead_run(enum bench_id id, const struct bench_config *cfg, struct ovh_result *res,
		 char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	res->id = id;
	plan(id, res);
	for (int i = 0; i < res->nconf; i++) {
		res->conf[i].pairs = calloc(cfg->runs, sizeof(struct ovh_pair));
		if (!res->conf[i].pairs) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	for (int round = 1; round <= cfg->runs; round++)
		for (int i = 0; i < res->nconf; i++) {
			if (!res->conf[i].available)
				continue;
			progress(cfg, id, res->conf[i].name, round);
			if (one_pair(id, cfg, &res->conf[i], res, err, errlen))
				return -1;
		}
	if (cfg->progress)
		fprintf(stderr, "\r%-40s\r", "");
	return 0;
}

void overhead_result_free(struct ovh_result *res)
{
	for (int i = 0; i < res->nconf; i++)
		free(res->conf[i].pairs);
	memset(res, 0, sizeof(*res));
}

/* ---- summary -------------------------------------------------------------- */

double overhead_ratio(const struct ovh_pair *p, bool wall)
{
	double b = wall ? p->base_wall : p->base_cpu, x = wall ? p->probed_wall : p->probed_cpu;

	return b > 0 && x > 0 ? b / x : 0;
}

void overhead_summarize(const struct ovh_conf *c, struct ovh_summary *s)
{
	double *cpu = calloc(c->npairs + 1, sizeof(double)), *wall = calloc(c->npairs + 1, sizeof(double));
	double *b = calloc(c->npairs + 1, sizeof(double)), *x = calloc(c->npairs + 1, sizeof(double));

	memset(s, 0, sizeof(*s));
	if (!cpu || !wall || !b || !x)
		goto out;
	s->n = c->npairs;
	for (int i = 0; i < c->npairs; i++) {
		cpu[i] = overhead_ratio(&c->pairs[i], false);
		wall[i] = overhead_ratio(&c->pairs[i], true);
		b[i] = c->pairs[i].base_cpu;
		x[i] = c->pairs[i].probed_cpu;
	}
	summarize(b, s->n, &s->base);
	summarize(x, s->n, &s->probed);
	if (s->n) {
		median_range(cpu, s->n, &s->cpu_median, &s->cpu_min, &s->cpu_max);
		median_range(wall, s->n, &s->wall_median, &s->wall_min, &s->wall_max);
	}
	if (s->n >= 2 && s->probed.mean > 0) {
		/* diff = unprobed - probed */
		welch_test(&s->probed, &s->base, &s->w);
		s->compared = true;
		s->cost = welch_percent(&s->w, s->probed.mean);
	}
out:
	free(cpu);
	free(wall);
	free(b);
	free(x);
}

/* ---- metrics ---------------------------------------------------------------- */

int overhead_run_metrics(const struct ovh_result *res, int round, struct metric_list *l)
{
	char key[32], name[METRIC_NAME_LEN];

	for (int k = 0; k < res->nconf; k++) {
		const struct ovh_conf *c = &res->conf[k];
		double v;

		snprintf(key, sizeof(key), "overhead_%s", c->name);
		if (round >= c->npairs || !(v = overhead_ratio(&c->pairs[round], false)) ||
		    bench_metric_index(key) < 0)
			continue;
		snprintf(name, sizeof(name), "bench.%s.%s", bench_defs[res->id].key, key);
		if (metric_add(l, name, v))
			return -ENOMEM;
	}
	return 0;
}
