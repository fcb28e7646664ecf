// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The benchmark harness: workers, timed execs, summaries and metrics (see bench.h). */
#include "bench/bench.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_fixtures.h"
#include "metrics.h"
#include "slowpath.h"
#include "util.h"

/* ---- shared counters ---------------------------------------------------- */

enum phase { PHASE_SETUP, PHASE_WARM, PHASE_MEASURE, PHASE_STOP };

/* One cache line a worker: only its worker writes it. */
struct slot {
	volatile uint64_t ops;
	uint64_t cpu0, cpu1, ops0, ops1; /* at the start and end of the measured window */
	volatile int ready, done, err;
} __attribute__((aligned(64)));

struct shared {
	volatile int phase __attribute__((aligned(64)));
	struct slot slot[];
};

/* What a worker needs; read-only once the workers start. */
struct job {
	enum bench_id id;
	bool slow;
	int cap;                /* slow access: the capability to clear */
	long loops;
	int nworkers;
	int (*op)(const char *file, int w, uint64_t i); /* the benchmark's row's */
	const char *const *files; /* the variant's, per worker */
	struct shared *sh;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void worker(const struct job *j, int w)
{
	struct slot *s = &j->sh->slot[w];
	bool measuring = false;
	uint64_t i = 0;
	int ph;

	if (j->slow && j->cap >= 0 && slowpath_drop_effective(j->cap)) {
		s->err = errno;
		s->ready = 1;
		return;
	}
	s->ready = 1;
	while (j->sh->phase == PHASE_SETUP)
		sched_yield();
	if (j->loops > 0) {
		s->cpu0 = thread_cpu_ns();
		for (; i < (uint64_t)j->loops; i++) {
			if (j->op(j->files[w], w, i)) {
				s->err = errno;
				break;
			}
			s->ops = i + 1;
		}
		s->cpu1 = thread_cpu_ns();
		s->ops0 = 0;
		s->ops1 = s->ops;
		s->done = 1;
		return;
	}
	for (;;) {
		ph = j->sh->phase;
		if (ph == PHASE_MEASURE && !measuring) {
			measuring = true;
			s->ops0 = i;
			s->cpu0 = thread_cpu_ns();
		} else if (ph == PHASE_STOP) {
			break;
		}
		if (j->op(j->files[w], w, i)) {
			s->err = errno;
			break;
		}
		s->ops = ++i;
	}
	s->ops1 = i;
	s->cpu1 = thread_cpu_ns();
	if (!measuring)
		s->ops1 = s->ops0 = 0;
	s->done = 1;
}

struct thread_arg {
	const struct job *j;
	int w;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;

	worker(a->j, a->w);
	return NULL;
}

static double mono_s(void)
{
	return now_monotonic_ns() / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void progress(const struct bench_config *cfg, const char *name, const char *variant,
		     int run, double frac)
{
	if (!cfg->progress)
		return;
	fprintf(stderr, "\r%-12s %s run %d/%d %3.0f%%", name, variant, run, cfg->runs, 100 * frac);
	fflush(stderr);
}

/*
 * One measured run of a worker benchmark: start the workers, warm up,
 * measure, stop them, and fill `r`.  Workers [first, n) are the measured
 * ones (cred-bounce's opener is worker 0 and is not).
 */
static int run_workers(struct job *j, const struct bench_config *cfg, bool threads, int first,
		       struct bench_run *r, int runno, char *err, size_t errlen)
{
	int n = j->nworkers, ret = 0, started = 0;
	size_t size = sizeof(struct shared) + n * sizeof(struct slot);
	pthread_t *tids = calloc(n, sizeof(*tids));
	struct thread_arg *args = calloc(n, sizeof(*args));
	pid_t *pids = calloc(n, sizeof(*pids));
	uint64_t *snap0 = calloc(n, sizeof(uint64_t));
	double t0, t1, deadline, warm = cfg->duration / 5 < 0.2 ? cfg->duration / 5 : 0.2;
	const char *vname = r->variant == VARIANT_SLOW ? "slow" : "fast";

	j->sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j->sh == MAP_FAILED || !tids || !args || !pids || !snap0) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		j->sh = NULL;
		goto out;
	}
	memset(j->sh, 0, size);
	for (int w = 0; w < n; w++, started++) {
		if (threads) {
			args[w] = (struct thread_arg){ j, w };
			errno = pthread_create(&tids[w], NULL, thread_main, &args[w]);
			if (errno)
				break;
		} else {
			pids[w] = fork();
			if (pids[w] < 0)
				break;
			if (!pids[w]) {
				/* a worker whose parent is killed must not spin on */
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() == 1)
					_exit(1);
				worker(j, w);
				_exit(0);
			}
		}
	}
	if (started < n) {
		snprintf(err, errlen, "cannot start worker %d: %s", started, strerror(errno));
		ret = -1;
		j->sh->phase = PHASE_STOP;
		goto join;
	}
	deadline = mono_s() + 10;
	for (int w = 0; w < n; w++)
		while (!j->sh->slot[w].ready && mono_s() < deadline)
			sleep_s(0.0005);
	for (int w = 0; w < n; w++)
		if (!j->sh->slot[w].ready || j->sh->slot[w].err) {
			snprintf(err, errlen, "worker %d could not start: %s", w,
				 j->sh->slot[w].ready ? strerror(j->sh->slot[w].err) : "timed out");
			ret = -1;
			j->sh->phase = PHASE_STOP;
			goto join;
		}
	if (cfg->loops > 0) {
		t0 = mono_s();
		j->sh->phase = PHASE_MEASURE;
		for (int w = 0; w < n; w++)
			while (!j->sh->slot[w].done)
				sleep_s(0.0005);
		t1 = mono_s();
	} else {
		j->sh->phase = PHASE_WARM;
		sleep_s(warm);
		t0 = mono_s();
		j->sh->phase = PHASE_MEASURE;
		for (int w = 0; w < n; w++)
			snap0[w] = j->sh->slot[w].ops;
		for (double now = t0; now < t0 + cfg->duration; now = mono_s()) {
			progress(cfg, bench_defs[j->id].name, vname, runno, (now - t0) / cfg->duration);
			sleep_s(t0 + cfg->duration - now < 0.25 ? t0 + cfg->duration - now : 0.25);
		}
		t1 = mono_s();
		r->ops = 0;
		for (int w = first; w < n; w++)
			snap0[w] = j->sh->slot[w].ops - snap0[w];
	}
	j->sh->phase = PHASE_STOP;
join:
	for (int w = 0; w < started; w++) {
		if (threads)
			pthread_join(tids[w], NULL);
		else
			while (waitpid(pids[w], NULL, 0) < 0 && errno == EINTR)
				;
	}
	if (ret)
		goto out;
	for (int w = 0; w < n; w++)
		if (j->sh->slot[w].err) {
			snprintf(err, errlen, "worker %d: %s: %s", w, j->files[w],
				 strerror(j->sh->slot[w].err));
			ret = -1;
			goto out;
		}
	r->secs = t1 - t0;
	r->nworkers = n - first;
	r->worker_ops_per_s = calloc(r->nworkers, sizeof(double));
	if (!r->worker_ops_per_s) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		goto out;
	}
	r->ops = 0;
	r->cpu_ops_per_s = 0;
	for (int w = first; w < n; w++) {
		struct slot *s = &j->sh->slot[w];
		uint64_t ops = cfg->loops > 0 ? s->ops : snap0[w];
		double cpu = (s->cpu1 - s->cpu0) / 1e9;

		r->ops += ops;
		r->worker_ops_per_s[w - first] = r->secs > 0 ? ops / r->secs : 0;
		if (cpu > 0)
			r->cpu_ops_per_s += (s->ops1 - s->ops0) / cpu;
	}
	r->ops_per_s = r->secs > 0 ? r->ops / r->secs : 0;
out:
	if (j->sh)
		munmap(j->sh, size);
	j->sh = NULL;
	free(tids);
	free(args);
	free(pids);
	free(snap0);
	return ret;
}

/* ---- exec-path ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median_of(double *x, size_t n)
{
	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void median_range(double *x, size_t n, double *median, double *min, double *max)
{
	*median = median_of(x, n);
	*min = n ? x[0] : 0;
	*max = n ? x[n - 1] : 0;
}

/*
 * vfork, then execve each of paths[0..n) in turn until one is found, as
 * execvp and posix_spawnp do; ns until the child is reaped.  vfork, as
 * posix_spawn does, so that copying this process's page tables does not
 * drown the exec it is there to measure.
 */
static double timed_exec(char *const paths[], int n, char *const envp[], int *failed)
{
	uint64_t t0 = now_monotonic_ns();
	char *argv[] = { paths[n - 1], NULL };
	int status;
	pid_t pid = vfork();

	if (pid < 0) {
		*failed = errno;
		return 0;
	}
	if (!pid) {
		for (int i = 0; i < n; i++) {
			execve(paths[i], argv, envp);
			if (errno != ENOENT)
				break;
		}
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			*failed = errno;
			return 0;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		*failed = ENOEXEC;
	return now_monotonic_ns() - t0;
}

/*
 * CPU ns of this thread and of the reaped children: an exec's work is done
 * in the vforked child, counted here once it is reaped.
 */
static uint64_t exec_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return thread_cpu_ns();
	return thread_cpu_ns() + (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* One operation: an exec through PATH and one by absolute path, alternating. */
static int run_exec(char *const paths[BENCH_EXEC_PATHS], const struct bench_config *cfg,
		    struct bench_run *r, int runno, char *err, size_t errlen)
{
	char *const *abs_path = paths + BENCH_EXEC_PATHS - 1;
	size_t cap = 1024, n = 0;
	double *viapath = malloc(cap * sizeof(double)), *abs = malloc(cap * sizeof(double));
	char *envp[] = { "PATH=/nonexistent", NULL };
	double t0 = mono_s(), warm_end = t0 + (cfg->loops > 0 ? 0 : cfg->duration / 5 < 0.2 ?
					  cfg->duration / 5 : 0.2), now;
	int failed = 0, ret = 0;
	uint64_t cpu0;

	if (!viapath || !abs)
		goto nomem;
	for (now = t0; now < warm_end && !failed; now = mono_s())
		timed_exec(paths, BENCH_EXEC_PATHS, envp, &failed),
			timed_exec(abs_path, 1, envp, &failed);
	t0 = mono_s();
	cpu0 = exec_cpu_ns();
	for (;;) {
		if (cfg->loops > 0 ? n >= (size_t)cfg->loops : mono_s() >= t0 + cfg->duration)
			break;
		if (n == cap) {
			double *a, *b;

			cap *= 2;
			a = realloc(viapath, cap * sizeof(double));
			if (a)
				viapath = a;
			b = realloc(abs, cap * sizeof(double));
			if (b)
				abs = b;
			if (!a || !b)
				goto nomem;
		}
		viapath[n] = timed_exec(paths, BENCH_EXEC_PATHS, envp, &failed);
		abs[n] = timed_exec(abs_path, 1, envp, &failed);
		if (failed)
			break;
		if (!(++n % 64))
			progress(cfg, "exec-path", "fast", runno, (mono_s() - t0) / cfg->duration);
	}
	if (failed) {
		snprintf(err, errlen, "vfork+exec of %s failed: %s", abs_path[0], strerror(failed));
		ret = -1;
		goto out;
	}
	r->secs = mono_s() - t0;
	cpu0 = exec_cpu_ns() - cpu0;
	r->ops = n;
	r->nworkers = 1;
	r->ops_per_s = r->secs > 0 ? n / r->secs : 0;
	/* pairs over the CPU time of this thread and of the children it reaped */
	r->cpu_ops_per_s = cpu0 ? n / (cpu0 / 1e9) : 0;
	r->worker_ops_per_s = calloc(1, sizeof(double));
	if (!r->worker_ops_per_s)
		goto nomem;
	r->worker_ops_per_s[0] = r->ops_per_s;
	r->path_median_ns = median_of(viapath, n);
	r->abs_median_ns = median_of(abs, n);
	r->path_min_ns = n ? viapath[0] : 0;
	r->abs_min_ns = n ? abs[0] : 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -1;
out:
	free(viapath);
	free(abs);
	return ret;
}

/* ---- a benchmark ---------------------------------------------------------- */

static int add_run(struct bench_result *res, enum bench_variant v, struct bench_run **r)
{
	struct bench_run *runs = realloc(res->runs, (res->nruns + 1) * sizeof(*runs));

	if (!runs)
		return -1;
	res->runs = runs;
	*r = &runs[res->nruns++];
	memset(*r, 0, sizeof(**r));
	(*r)->variant = v;
	return 0;
}

int bench_run(enum bench_id id, const struct bench_config *cfg, struct bench_result *res,
	      char *err, size_t errlen)
{
	const struct bench_def *d = &bench_defs[id];
	struct job j = { .id = id, .loops = cfg->loops, .op = bench_ops[id].op };
	bool threads = cfg->threads || d->always_threads;
	int n = cfg->workers > 0 ? cfg->workers : d->workers, ret = -1;
	struct bench_fixture fx;

	memset(res, 0, sizeof(*res));
	res->id = id;
	if (d->loop == BENCH_LOOP_EXECS) {
		n = 1;
		threads = false;
	}
	res->workers = n;
	res->threads = threads;
	j.nworkers = n;
	if (bench_fixture_init(&fx, n, cfg->slow && d->slow, err, errlen))
		goto out;
	err[0] = 0;
	if (bench_ops[id].setup(&fx, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "cannot set up %s: %s", fx.dir, strerror(errno));
		goto out;
	}
	j.cap = fx.cap;
	snprintf(res->target, sizeof(res->target), "%s", fx.target);
	snprintf(res->slow_how, sizeof(res->slow_how), "%s", fx.slow_how);
	snprintf(res->slow_skipped, sizeof(res->slow_skipped), "%s", fx.slow_skipped);
	for (int run = 1; run <= cfg->runs; run++) {
		for (int v = VARIANT_FAST; v <= (fx.slow ? VARIANT_SLOW : VARIANT_FAST); v++) {
			struct bench_run *r;

			if (add_run(res, v, &r)) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			if (d->loop == BENCH_LOOP_EXECS) {
				if (run_exec(fx.exec_paths, cfg, r, run, err, errlen))
					goto out;
				continue;
			}
			j.slow = v == VARIANT_SLOW;
			j.files = fx.files[v];
			if (run_workers(&j, cfg, threads, d->unmeasured, r, run, err, errlen))
				goto out;
		}
	}
	if (cfg->progress)
		fprintf(stderr, "\r%-40s\r", "");
	ret = 0;
out:
	bench_fixture_free(&fx);
	return ret;
}

void bench_result_free(struct bench_result *res)
{
	for (int i = 0; i < res->nruns; i++)
		free(res->runs[i].worker_ops_per_s);
	free(res->runs);
	memset(res, 0, sizeof(*res));
}

/* ---- summary -------------------------------------------------------------- */

void bench_summarize(const struct bench_result *res, struct bench_summary *s)
{
	double *fast = calloc(res->nruns + 1, sizeof(double)), *slow = calloc(res->nruns + 1, sizeof(double));
	double *ratio = calloc(res->nruns + 1, sizeof(double)), *cpu = calloc(res->nruns + 1, sizeof(double));
	double *pm = calloc(res->nruns + 1, sizeof(double)), *am = calloc(res->nruns + 1, sizeof(double));
	double *cf = calloc(res->nruns + 1, sizeof(double)), *cs = calloc(res->nruns + 1, sizeof(double));
	size_t nf = 0, ns = 0;

	memset(s, 0, sizeof(*s));
	if (!fast || !slow || !ratio || !cpu || !pm || !am || !cf || !cs)
		goto out;
	for (int i = 0; i < res->nruns; i++) {
		const struct bench_run *r = &res->runs[i];

		if (r->variant == VARIANT_SLOW) {
			cs[ns] = r->cpu_ops_per_s;
			slow[ns++] = r->ops_per_s;
			/* the pair: this slow run and the fast run before it */
			if (i > 0 && res->runs[i - 1].variant == VARIANT_FAST && r->ops_per_s > 0) {
				ratio[s->npairs] = res->runs[i - 1].ops_per_s / r->ops_per_s;
				cpu[s->npairs] = r->cpu_ops_per_s > 0 ?
					res->runs[i - 1].cpu_ops_per_s / r->cpu_ops_per_s : 0;
				s->npairs++;
			}
		} else {
			pm[nf] = r->path_min_ns;
			am[nf] = r->abs_min_ns;
			cf[nf] = r->cpu_ops_per_s;
			fast[nf++] = r->ops_per_s;
		}
	}
	summarize(fast, nf, &s->fast);
	summarize(slow, ns, &s->slow);
	summarize(cf, nf, &s->cpu_fast);
	summarize(cs, ns, &s->cpu_slow);
	if (bench_defs[res->id].loop == BENCH_LOOP_EXECS) {
		/* the smallest minimum, the median of the runs' medians */
		s->path_min_ns = nf ? pm[0] : 0;
		s->abs_min_ns = nf ? am[0] : 0;
		for (size_t i = 1; i < nf; i++) {
			s->path_min_ns = pm[i] < s->path_min_ns ? pm[i] : s->path_min_ns;
			s->abs_min_ns = am[i] < s->abs_min_ns ? am[i] : s->abs_min_ns;
		}
		nf = 0;
		for (int i = 0; i < res->nruns; i++) {
			pm[nf] = res->runs[i].path_median_ns;
			am[nf++] = res->runs[i].abs_median_ns;
		}
		s->path_median_ns = median_of(pm, nf);
		s->abs_median_ns = median_of(am, nf);
	}
	if (s->npairs) {
		median_range(ratio, s->npairs, &s->ratio_median, &s->ratio_min, &s->ratio_max);
		median_range(cpu, s->npairs, &s->cpu_ratio_median, &s->cpu_ratio_min,
			     &s->cpu_ratio_max);
	}
	if (ns >= 2 && nf >= 2 && s->slow.mean > 0) {
		s->compared = true;
		welch_test(&s->slow, &s->fast, &s->w);
		s->gain = welch_percent(&s->w, s->slow.mean);
	}
	if (s->compared && s->cpu_slow.mean > 0) {
		welch_test(&s->cpu_slow, &s->cpu_fast, &s->cpu_w);
		s->cpu_gain = welch_percent(&s->cpu_w, s->cpu_slow.mean);
	}
out:
	free(fast);
	free(slow);
	free(ratio);
	free(cpu);
	free(pm);
	free(am);
	free(cf);
	free(cs);
}

/* ---- metrics ---------------------------------------------------------------- */

/* The value of bench metric row `key` for a fast run and its slow partner (or NULL). */
static bool metric_value(const char *key, const struct bench_run *f, const struct bench_run *s,
			 double *v)
{
	if (!strcmp(key, "ops_per_s"))
		*v = f->ops_per_s;
	else if (!strcmp(key, "ops_per_cpu_s"))
		*v = f->cpu_ops_per_s;
	else if (!strcmp(key, "slow_ops_per_s") && s)
		*v = s->ops_per_s;
	else if (!strcmp(key, "fast_path_gain") && s && s->ops_per_s > 0)
		*v = 100 * (f->ops_per_s / s->ops_per_s - 1);
	else if (!strcmp(key, "slow_ops_per_cpu_s") && s)
		*v = s->cpu_ops_per_s;
	else if (!strcmp(key, "fast_path_cpu_gain") && s && s->cpu_ops_per_s > 0)
		*v = 100 * (f->cpu_ops_per_s / s->cpu_ops_per_s - 1);
	else if (!strcmp(key, "path_median_ns"))
		*v = f->path_median_ns;
	else if (!strcmp(key, "abs_median_ns"))
		*v = f->abs_median_ns;
	else if (!strcmp(key, "failed_lookups_ns"))
		*v = f->path_median_ns - f->abs_median_ns;
	else
		return false;
	return true;
}

int bench_run_metrics(const struct bench_result *res, int run, struct metric_list *l)
{
	const struct bench_def *d = &bench_defs[res->id];
	const struct bench_run *f = NULL, *s = NULL;
	char name[METRIC_NAME_LEN];
	double v;

	for (int i = 0, k = -1; i < res->nruns; i++) {
		if (res->runs[i].variant == VARIANT_FAST && ++k == run) {
			f = &res->runs[i];
			if (i + 1 < res->nruns && res->runs[i + 1].variant == VARIANT_SLOW)
				s = &res->runs[i + 1];
			break;
		}
	}
	if (!f)
		return 0;
	for (size_t r = 0; r < bench_metric_nrows; r++) {
		if (!(bench_metric_rows[r].applies & d->metrics) ||
		    !metric_value(bench_metric_rows[r].key, f, s, &v))
			continue;
		snprintf(name, sizeof(name), "bench.%s.%s", d->key, bench_metric_rows[r].key);
		if (metric_add(l, name, v))
			return -ENOMEM;
	}
	return 0;
}
