// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The benchmark harness and loops (see bench.h). */
#include "bench.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "slowpath.h"
#include "util.h"

const struct bench_def bench_defs[BENCH_COUNT] = {
	[BENCH_ACCESS1] = { "access1", "access1", "each worker access()es its own file",
			    "faccessat cred override", "one capability cleared from the effective set",
			    BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD },
	[BENCH_ACCESS2] = { "access2", "access2", "every worker access()es the same file",
			    "faccessat cred override", "one capability cleared from the effective set",
			    BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD },
	[BENCH_STAT_PATH] = { "stat-path", "stat_path", "stat() of a file at the end of a deep path",
			      "MAY_EXEC lookup", "an allowing POSIX ACL on one directory of the path",
			      BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD },
	[BENCH_EXEC_PATH] = { "exec-path", "exec_path", "vfork+execve through a 7-entry PATH vs by absolute path",
			      "execve ENOENT", NULL, BENCH_M_EXEC | BENCH_M_OVERHEAD },
	[BENCH_CRED_BOUNCE] = { "cred-bounce", "cred_bounce", "one thread opens+closes a file, the others "
				"access()/stat() another", "cred refcount layout", NULL,
				BENCH_M_WORKERS | BENCH_M_OVERHEAD },
};

int bench_by_name(const char *name)
{
	for (int i = 0; i < BENCH_COUNT; i++)
		if (!strcmp(bench_defs[i].name, name))
			return i;
	return -1;
}

int bench_by_key(const char *key)
{
	for (int i = 0; i < BENCH_COUNT; i++)
		if (!strcmp(bench_defs[i].key, key))
			return i;
	return -1;
}

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
	const char *const *files; /* per worker (access1), else files[0] */
	const char *other;      /* cred-bounce: the file the opener opens */
	struct shared *sh;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The first capability in this thread's effective set, or -1. */
static int first_effective_cap(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (int c = 0; c < 64; c++)
		if (data[c / 32].effective & (1U << (c % 32)))
			return c;
	return -1;
}

/* One operation of worker `w`; 0 or -1 with errno. */
static inline int one_op(const struct job *j, int w, uint64_t i)
{
	struct stat st;
	int fd;

	switch (j->id) {
	case BENCH_ACCESS1:
		return access(j->files[w], R_OK);
	case BENCH_ACCESS2:
		return access(j->files[0], R_OK);
	case BENCH_STAT_PATH:
		return stat(j->files[0], &st);
	case BENCH_CRED_BOUNCE:
		if (w == 0) { /* the opener: every open takes a cred reference */
			fd = open(j->other, O_RDONLY);
			return fd < 0 ? -1 : close(fd);
		}
		return i & 1 ? stat(j->files[0], &st) : access(j->files[0], R_OK);
	default:
		errno = EINVAL;
		return -1;
	}
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
			if (one_op(j, w, i)) {
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
		if (one_op(j, w, i)) {
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
			snprintf(err, errlen, "worker %d: %s: %s", w, w == 0 && j->other ? j->other
				 : j->files[j->id == BENCH_ACCESS1 ? w : 0], strerror(j->sh->slot[w].err));
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

/* ---- the files the loops work on ---------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	if (*dir)
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int make_tmpdir(char *dir, size_t size)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, size, "%s/permscope-bench.XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0)
		return -1;
	return close(fd);
}

/* DIR/a/b/c/d/e/f/file: six directories deep; `path` gets the file's path. */
static int make_deep_tree(const char *dir, char *path, size_t size)
{
	size_t len = (size_t)snprintf(path, size, "%s", dir);

	for (const char *d = "abcdef"; *d; d++) {
		len += snprintf(path + len, size - len, "/%c", *d);
		if (mkdir(path, 0755))
			return -1;
	}
	snprintf(path + len, size - len, "/file");
	return make_file(path, 0644);
}

#if defined(__x86_64__)
/*
 * The smallest program that execs: a static x86-64 ELF whose whole text is
 * exit(0) (mov $60,%eax; xor %edi,%edi; syscall), so that an exec costs
 * the kernel's work and nothing of a loader's.
 */
static int write_noop_program(const char *path)
{
	static const unsigned char code[] = { 0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05 };
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		unsigned char code[sizeof(code)];
	} __attribute__((packed)) img;
	const Elf64_Addr base = 0x400000;
	int fd;
	ssize_t n;

	memset(&img, 0, sizeof(img));
	memcpy(img.eh.e_ident, ELFMAG, SELFMAG);
	img.eh.e_ident[EI_CLASS] = ELFCLASS64;
	img.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	img.eh.e_ident[EI_VERSION] = EV_CURRENT;
	img.eh.e_type = ET_EXEC;
	img.eh.e_machine = EM_X86_64;
	img.eh.e_version = EV_CURRENT;
	img.eh.e_entry = base + offsetof(typeof(img), code);
	img.eh.e_phoff = offsetof(typeof(img), ph);
	img.eh.e_ehsize = sizeof(Elf64_Ehdr);
	img.eh.e_phentsize = sizeof(Elf64_Phdr);
	img.eh.e_phnum = 1;
	img.ph.p_type = PT_LOAD;
	img.ph.p_flags = PF_R | PF_X;
	img.ph.p_vaddr = img.ph.p_paddr = base;
	img.ph.p_filesz = img.ph.p_memsz = sizeof(img);
	img.ph.p_align = 0x1000;
	memcpy(img.code, code, sizeof(code));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return -1;
	n = write(fd, &img, sizeof(img));
	if (close(fd) || n != (ssize_t)sizeof(img)) {
		errno = n < 0 ? errno : EIO;
		return -1;
	}
	return 0;
}
#else
static int write_noop_program(const char *path)
{
	(void)path;
	errno = ENOEXEC;
	return -1;
}
#endif

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
static int run_exec(char *const paths[7], const struct bench_config *cfg, struct bench_run *r,
		    int runno, char *err, size_t errlen)
{
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
		timed_exec(paths, 7, envp, &failed), timed_exec(paths + 6, 1, envp, &failed);
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
		viapath[n] = timed_exec(paths, 7, envp, &failed);
		abs[n] = timed_exec(paths + 6, 1, envp, &failed);
		if (failed)
			break;
		if (!(++n % 64))
			progress(cfg, "exec-path", "fast", runno, (mono_s() - t0) / cfg->duration);
	}
	if (failed) {
		snprintf(err, errlen, "vfork+exec of %s failed: %s", paths[6], strerror(failed));
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
	char dir[PATH_MAX] = "", fast_path[PATH_MAX], slow_path[PATH_MAX], other[PATH_MAX];
	char *paths[7] = { 0 }, **files = NULL;
	struct job j = { .id = id, .loops = cfg->loops, .cap = -1 };
	bool slow = cfg->slow && bench_defs[id].slow, threads = cfg->threads;
	int n = cfg->workers, ret = -1;
	struct stat st;

	memset(res, 0, sizeof(*res));
	res->id = id;
	if (id == BENCH_CRED_BOUNCE)
		threads = true; /* the opener and the readers must share one struct cred */
	if (n <= 0)
		n = id == BENCH_CRED_BOUNCE ? 2 : 1;
	if (id == BENCH_EXEC_PATH) {
		n = 1;
		threads = false;
	}
	if (id == BENCH_CRED_BOUNCE && n < 2) {
		snprintf(err, errlen, "needs 2 workers or more (one opens, the others read)");
		return -1;
	}
	res->workers = n;
	res->threads = threads;
	j.nworkers = n;
	if (make_tmpdir(dir, sizeof(dir))) {
		snprintf(err, errlen, "cannot make a temporary directory in %s: %s",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		dir[0] = 0;
		goto out;
	}
	files = calloc(n, sizeof(*files));
	if (!files)
		goto nomem;
	/* what to work on */
	switch (id) {
	case BENCH_ACCESS1:
	case BENCH_ACCESS2:
	case BENCH_CRED_BOUNCE:
		for (int w = 0; w < (id == BENCH_ACCESS1 ? n : 1); w++) {
			if (asprintf(&files[w], "%s/file%d", dir, w) < 0) {
				files[w] = NULL;
				goto nomem;
			}
			if (make_file(files[w], 0644))
				goto syserr;
		}
		snprintf(res->target, sizeof(res->target), id == BENCH_ACCESS1 ? "%s/fileN" : "%s/file0",
			 dir);
		if (id == BENCH_CRED_BOUNCE) {
			snprintf(other, sizeof(other), "%s/opened", dir);
			if (make_file(other, 0644))
				goto syserr;
			j.other = other;
		}
		if (slow && (j.cap = first_effective_cap()) < 0) {
			snprintf(res->slow_skipped, sizeof(res->slow_skipped), "no capability is "
				 "effective here, so access() already takes the fast path and "
				 "clearing one cannot defeat it (run as root)");
			slow = false;
		}
		if (slow)
			snprintf(res->slow_how, sizeof(res->slow_how), "capability %d cleared from "
				 "the effective set of each worker (permitted unchanged)", j.cap);
		break;
	case BENCH_STAT_PATH:
		/* With --slow both variants walk private trees of the same shape. */
		if (!slow && !stat("/usr/include/linux/fs.h", &st)) {
			snprintf(fast_path, sizeof(fast_path), "/usr/include/linux/fs.h");
		} else {
			snprintf(other, sizeof(other), "%s/fast", dir);
			if (mkdir(other, 0755) || make_deep_tree(other, fast_path, sizeof(fast_path)))
				goto syserr;
		}
		files[0] = fast_path;
		snprintf(res->target, sizeof(res->target), "%s", fast_path);
		if (slow) {
			snprintf(other, sizeof(other), "%s/slow", dir);
			if (mkdir(other, 0755) || make_deep_tree(other, slow_path, sizeof(slow_path)))
				goto syserr;
			snprintf(other, sizeof(other), "%s/slow/a/b", dir);
			if (slowpath_allowing_acl(other)) {
				snprintf(res->slow_skipped, sizeof(res->slow_skipped), "cannot set a POSIX "
					 "ACL on %s: %s (the filesystem of TMPDIR must support ACLs)",
					 other, strerror(errno));
				slow = false;
			} else {
				snprintf(res->slow_how, sizeof(res->slow_how), "an allowing POSIX ACL on "
					 "%s", other);
			}
		}
		break;
	case BENCH_EXEC_PATH:
		for (int i = 0; i < 7; i++) {
			if (asprintf(&paths[i], "%s/bin%d%s", dir, i + 1, i == 6 ? "/noop" : "") < 0) {
				paths[i] = NULL;
				goto nomem;
			}
		}
		snprintf(other, sizeof(other), "%s/bin7", dir);
		if (mkdir(other, 0755))
			goto syserr;
		for (int i = 0; i < 6; i++)
			if (mkdir(paths[i], 0755))
				goto syserr;
		/* the six misses look for bin1/noop .. bin6/noop */
		for (int i = 0; i < 6; i++) {
			char *p;

			if (asprintf(&p, "%s/noop", paths[i]) < 0)
				goto nomem;
			free(paths[i]);
			paths[i] = p;
		}
		if (write_noop_program(paths[6])) {
			snprintf(err, errlen, "cannot write the no-op program %s: %s%s", paths[6],
				 strerror(errno), errno == ENOEXEC ? " (exec-path runs on x86-64 only)" : "");
			goto out;
		}
		snprintf(res->target, sizeof(res->target), "%s", paths[6]);
		break;
	default:
		snprintf(err, errlen, "unknown benchmark");
		goto out;
	}
	j.files = (const char *const *)files;
	for (int run = 1; run <= cfg->runs; run++) {
		for (int v = VARIANT_FAST; v <= (slow ? VARIANT_SLOW : VARIANT_FAST); v++) {
			struct bench_run *r;

			if (add_run(res, v, &r))
				goto nomem;
			if (id == BENCH_EXEC_PATH) {
				if (run_exec(paths, cfg, r, run, err, errlen))
					goto out;
				continue;
			}
			j.slow = v == VARIANT_SLOW;
			if (id == BENCH_STAT_PATH)
				files[0] = j.slow ? slow_path : fast_path;
			ret = run_workers(&j, cfg, threads, id == BENCH_CRED_BOUNCE, r, run, err, errlen);
			if (ret)
				goto out;
			ret = -1;
		}
	}
	if (cfg->progress)
		fprintf(stderr, "\r%-40s\r", "");
	ret = 0;
	goto out;
syserr:
	snprintf(err, errlen, "cannot set up %s: %s", dir, strerror(errno));
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	if (files) {
		for (int w = 0; w < n && id != BENCH_STAT_PATH; w++)
			free(files[w]);
		free(files);
	}
	for (int i = 0; i < 7; i++)
		free(paths[i]);
	remove_tree(dir);
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
	if (res->id == BENCH_EXEC_PATH) {
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
