// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Workloads whose syscall counts are known exactly, for the live tests and
 * for trying permscope by hand:
 *
 *   workload access N          N x access("/", R_OK) with the creds as they are
 *   workload access-dropcap N  clear one capability from the effective set
 *                              only (so the override is needed), then N x access
 *   workload eaccess N         N x faccessat(AT_FDCWD, "/", R_OK, AT_EACCESS)
 *   workload exec-missing N    N x execve() of a missing absolute path
 *   workload stat N PATH       N x stat(PATH)
 *   workload exec-path N NAME  N x fork + execvp(NAME): the $PATH search, each
 *                              directory before NAME's giving one ENOENT
 *   workload setacl PATH       give PATH a POSIX access ACL with only allowing
 *                              entries (raw setxattr: no setfacl needed)
 *   workload exec-existing N   N x fork + execve() of this program (which then
 *                              exits at once): exec that must allocate an mm
 *   workload chdir N DIR       N x chdir(DIR), then back to where it was
 *   workload access-x N PATH   N x access(PATH, X_OK)
 *   workload denied N PATH     as uid/gid 65534, N x stat(PATH) failing with EACCES
 *   workload chmod-loop N DIR  N x chmod(DIR) alternating 0750 and 0755
 *   workload busy S PATH       stat(PATH) and open+close it for S seconds
 *   workload time-stat N PATH  N x stat(PATH), then print the ns they took
 *                              (under QEMU -icount: guest instructions)
 *   workload time-access N PATH  N x access(PATH, R_OK), then the ns they took
 *   workload span-stat S PATH  stat(PATH) for S seconds, then "CALLS NS": the
 *                              calls made and the ns they took (the clock is
 *                              read every 64 calls, so the span is whole
 *                              to a few calls; under -icount a cost per call
 *                              averaged over S, a daemon's duty cycle included)
 *   workload span-access S DIR  the same with access(DIR/fK, R_OK), K cycling
 *                              over 0..63: distinct files (made if missing)
 *   workload span-execvp S NAME  the same with execvp(NAME), which fails with
 *                              ENOENT in every $PATH directory: one call is a
 *                              whole $PATH search
 *   workload load S W T PATH   W processes of T threads each, for S seconds,
 *                              thread i of them all doing one kind of call
 *                              in a loop by i % 4: access("/", R_OK),
 *                              access with one capability cleared,
 *                              execve() of a missing path, stat(PATH); then
 *                              prints the calls of each kind made, one line:
 *                              "load: access=N access_dropcap=N
 *                              exec_enoent=N stat=N" (S may be a fraction)
 *   workload join-cgroup DIR WORKLOAD...  move into the cgroup v2 directory DIR
 *                              (its cgroup.procs), then run WORKLOAD as above:
 *                              no call of WORKLOAD's is made outside DIR
 *
 * Exits 0 when every call behaved as expected, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slowpath.h"

#define MISSING_PATH "/nonexistent-permscope-dir/missing-program"

static int run_access(long n, int flags)
{
	for (long i = 0; i < n; i++) {
		int r = flags ? faccessat(AT_FDCWD, "/", R_OK, flags) : access("/", R_OK);

		if (r) {
			perror("workload: access(\"/\")");
			return 1;
		}
	}
	return 0;
}

static int run_exec_missing(long n)
{
	char *argv[] = { MISSING_PATH, NULL }, *envp[] = { NULL };

	for (long i = 0; i < n; i++) {
		execve(MISSING_PATH, argv, envp);
		if (errno != ENOENT) {
			perror("workload: execve of a missing path");
			return 1;
		}
	}
	return 0;
}

static int set_allowing_acl(const char *path)
{
	if (slowpath_allowing_acl(path)) {
		perror("workload: setxattr system.posix_acl_access");
		return 1;
	}
	return 0;
}

/*
 * n x fork + exec of `prog` (which must exit 0): by absolute path, or looked
 * up in $PATH with execvp() when `search` is set.
 */
static int run_fork_exec(long n, const char *prog, bool search)
{
	char *argv[] = { (char *)prog, "noop", "0", NULL }, *envp[] = { NULL };
	int status;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("workload: fork");
			return 1;
		}
		if (pid == 0) {
			if (search)
				execvp(prog, argv);
			else
				execve(prog, argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "workload: exec of %s failed\n", prog);
			return 1;
		}
	}
	return 0;
}

static int run_on_path(const char *what, long n, const char *path)
{
	struct stat st;

	if (!strcmp(what, "chdir")) {
		int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		for (long i = 0; i < n; i++)
			if (chdir(path) || fchdir(here)) {
				perror("workload: chdir");
				return 1;
			}
		close(here);
		return 0;
	}
	if (!strcmp(what, "access-x")) {
		for (long i = 0; i < n; i++)
			if (access(path, X_OK)) {
				perror("workload: access X_OK");
				return 1;
			}
		return 0;
	}
	if (!strcmp(what, "denied")) {
		/* Unprivileged, so DAC applies: every stat is refused on the way. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534)) {
			perror("workload: dropping to uid 65534");
			return 1;
		}
		for (long i = 0; i < n; i++)
			if (!stat(path, &st) || errno != EACCES) {
				fprintf(stderr, "workload: stat %s was not refused with EACCES\n", path);
				return 1;
			}
		return 0;
	}
	if (!strcmp(what, "chmod-loop")) {
		for (long i = 0; i < n; i++)
			if (chmod(path, i % 2 ? 0755 : 0750)) {
				perror("workload: chmod");
				return 1;
			}
		return chmod(path, 0755) ? 1 : 0;
	}
	if (!strcmp(what, "time-stat") || !strcmp(what, "time-access") ||
	    !strcmp(what, "time-exec")) {
		bool use_stat = !strcmp(what, "time-stat"), use_exec = !strcmp(what, "time-exec");
		char *exec_argv[] = { (char *)path, NULL }, *exec_envp[] = { NULL };
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < n; i++)
			if (use_exec) { /* a path that does not exist: each execve() fails */
				if (execve(path, exec_argv, exec_envp) == 0 || errno != ENOENT) {
					perror("workload: execve of a missing path");
					return 1;
				}
			} else if (use_stat ? stat(path, &st) : access(path, R_OK)) {
				perror(use_stat ? "workload: stat" : "workload: access");
				return 1;
			}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
				 (b.tv_nsec - a.tv_nsec));
		return 0;
	}
	if (!strcmp(what, "busy")) {
		struct timespec now, stop;

		clock_gettime(CLOCK_MONOTONIC, &stop);
		stop.tv_sec += n;
		do {
			int fd;

			if (stat(path, &st) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
				perror("workload: busy");
				return 1;
			}
			close(fd);
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (now.tv_sec < stop.tv_sec ||
			 (now.tv_sec == stop.tv_sec && now.tv_nsec < stop.tv_nsec));
		return 0;
	}
	return 2;
}

/* ---- span: calls for a span of time ------------------------------------- */

#define SPAN_FILES 64

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* One call of span workload `what` (its i-th): 0, or -1 when it did not behave. */
static int span_call(const char *what, const char *arg, char (*files)[4096], long i)
{
	struct stat st;

	if (!strcmp(what, "span-stat"))
		return stat(arg, &st);
	if (!strcmp(what, "span-access"))
		return access(files[i % SPAN_FILES], R_OK);
	/* every $PATH directory lacks NAME: execvp returns, ENOENT */
	char *argv[] = { (char *)arg, NULL };

	return execvp(arg, argv) < 0 && errno == ENOENT ? 0 : -1;
}

static int run_span(const char *what, double seconds, const char *arg)
{
	static char files[SPAN_FILES][4096];
	struct timespec a, b;
	long long limit = (long long)(seconds * 1e9);
	long calls = 0;

	if (!strcmp(what, "span-access"))
		for (int k = 0; k < SPAN_FILES; k++) {
			int fd;

			snprintf(files[k], sizeof(files[k]), "%s/f%d", arg, k);
			if ((fd = open(files[k], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0) {
				perror("workload: span-access: creating a file");
				return 1;
			}
			close(fd);
		}
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int k = 0; k < 64; k++, calls++)
			if (span_call(what, arg, files, calls)) {
				fprintf(stderr, "workload: %s: a call failed: %s\n", what,
					strerror(errno));
				return 1;
			}
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (ns_between(&a, &b) < limit);
	printf("%ld %lld\n", calls, ns_between(&a, &b));
	return 0;
}

/* ---- load: many workers, every family at once ---------------------------- */

enum load_kind { LOAD_ACCESS, LOAD_ACCESS_DROPCAP, LOAD_EXEC_ENOENT, LOAD_STAT, LOAD_KINDS };
static const char *const load_kind_name[LOAD_KINDS] = { "access", "access_dropcap",
							"exec_enoent", "stat" };

/* Shared by every worker process (MAP_SHARED): the stop flag and one counter a thread. */
struct load_shared {
	int stop;
	int failed;
	struct {
		unsigned long calls;
		char pad[56]; /* a cache line each: the counters must not bounce */
	} thread[];
};

struct load_thread {
	struct load_shared *sh;
	int index;
	const char *path;
};

/* One thread's loop: its kind of call until told to stop, each one counted once it is done. */
static void *load_thread_run(void *arg)
{
	const struct load_thread *t = arg;
	char *argv[] = { MISSING_PATH, NULL }, *envp[] = { NULL };
	unsigned long *calls = &t->sh->thread[t->index].calls;
	enum load_kind kind = t->index % LOAD_KINDS;
	struct stat st;

	/* Creds are a thread's own: this one alone needs the override. */
	if (kind == LOAD_ACCESS_DROPCAP && slowpath_drop_effective(CAP_NET_RAW)) {
		perror("workload load: capset");
		__atomic_store_n(&t->sh->failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	while (!__atomic_load_n(&t->sh->stop, __ATOMIC_RELAXED)) {
		bool ok;

		switch (kind) {
		case LOAD_ACCESS:
		case LOAD_ACCESS_DROPCAP:
			ok = access("/", R_OK) == 0;
			break;
		case LOAD_EXEC_ENOENT:
			ok = execve(MISSING_PATH, argv, envp) < 0 && errno == ENOENT;
			break;
		default:
			ok = stat(t->path, &st) == 0;
			break;
		}
		if (!ok) {
			fprintf(stderr, "workload load: a %s call failed: %s\n", load_kind_name[kind],
				strerror(errno));
			__atomic_store_n(&t->sh->failed, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		(*calls)++;
	}
	return NULL;
}

/* One worker process: its threads, numbered from `first` among them all. */
static int load_worker(struct load_shared *sh, int first, int threads, const char *path)
{
	struct load_thread t[threads];
	pthread_t tid[threads];
	pthread_attr_t attr;

	/*
	 * Small stacks (the threads only loop on syscalls), and a few tries
	 * on EAGAIN: pthread_create failed once in the 1 GiB VM on 6.1.
	 */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (int i = 0; i < threads; i++) {
		int err, tries = 0;

		t[i] = (struct load_thread){ sh, first + i, path };
		while ((err = pthread_create(&tid[i], &attr, load_thread_run, &t[i])) == EAGAIN &&
		       ++tries < 50)
			usleep(10000);
		if (err) {
			fprintf(stderr, "workload load: pthread_create: %s\n", strerror(err));
			sh->failed = 1;
			threads = i;
		}
	}
	pthread_attr_destroy(&attr);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	return sh->failed;
}

static int run_load(double seconds, int workers, int threads, const char *path)
{
	size_t size = sizeof(struct load_shared) + (size_t)workers * threads * 64;
	struct load_shared *sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned long total[LOAD_KINDS] = { 0 };
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	int status, bad = 0;

	if (sh == MAP_FAILED) {
		perror("workload load: mmap");
		return 1;
	}
	for (int w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("workload load: fork");
			sh->stop = 1;
			bad = 1;
			break;
		}
		if (pid == 0)
			_exit(load_worker(sh, w * threads, threads, path));
	}
	while (!bad && nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	for (int i = 0; i < workers * threads; i++)
		total[i % LOAD_KINDS] += sh->thread[i].calls;
	printf("load:");
	for (int k = 0; k < LOAD_KINDS; k++)
		printf(" %s=%lu", load_kind_name[k], total[k]);
	printf("\n");
	return bad || sh->failed;
}

/* Write our pid to DIR/cgroup.procs: from then on we are in cgroup DIR. */
static int join_cgroup(const char *dir)
{
	char path[4096], pid[16];
	int fd, len, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	len = snprintf(pid, sizeof(pid), "%d", getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	ok = write(fd, pid, len) == len;
	if (!ok)
		perror(path);
	close(fd);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	char *end;
	long n;

	if (argc >= 4 && !strcmp(argv[1], "join-cgroup")) {
		if (join_cgroup(argv[2]))
			return 1;
		argv[2] = argv[0];
		return main(argc - 2, argv + 2);
	}
	if (argc == 6 && !strcmp(argv[1], "load")) {
		double s = strtod(argv[2], &end);
		int w = atoi(argv[3]), t = atoi(argv[4]);

		if (*end || !(s >= 0) || w < 1 || w > 256 || t < 1 || t > 64)
			return 2;
		return run_load(s, w, t, argv[5]);
	}
	if (argc == 4 && !strncmp(argv[1], "span-", 5)) {
		double s = strtod(argv[2], &end);

		if (*end || !(s > 0) || s > 86400 ||
		    (strcmp(argv[1], "span-stat") && strcmp(argv[1], "span-access") &&
		     strcmp(argv[1], "span-execvp")))
			return 2;
		return run_span(argv[1], s, argv[3]);
	}
	if (argc == 3 && !strcmp(argv[1], "setacl"))
		return set_allowing_acl(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "exec-path")) {
		n = strtol(argv[2], &end, 10);
		return *end ? 2 : run_fork_exec(n, argv[3], true);
	}
	if (argc == 4 && (!strcmp(argv[1], "chdir") || !strcmp(argv[1], "access-x") ||
			  !strcmp(argv[1], "denied") || !strcmp(argv[1], "chmod-loop") ||
			  !strcmp(argv[1], "busy") || !strcmp(argv[1], "time-stat") ||
			  !strcmp(argv[1], "time-access") || !strcmp(argv[1], "time-exec"))) {
		n = strtol(argv[2], &end, 10);
		return *end || n < 0 ? 2 : run_on_path(argv[1], n, argv[3]);
	}
	if (argc == 4 && !strcmp(argv[1], "stat")) {
		struct stat st;

		n = strtol(argv[2], &end, 10);
		for (long i = 0; i < n && !*end; i++)
			if (stat(argv[3], &st)) {
				perror("workload: stat");
				return 1;
			}
		return *end ? 2 : 0;
	}
	if (argc != 3 || (n = strtol(argv[2], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: workload access|access-dropcap|eaccess|exec-missing|exec-existing N\n"
				"       workload stat N PATH | exec-path N NAME | setacl PATH\n"
				"       workload chdir|access-x|denied|chmod-loop N PATH | busy SECONDS PATH\n"
				"       workload time-stat|time-access|time-exec N PATH | join-cgroup DIR WORKLOAD...\n"
				"       workload load SECONDS WORKERS THREADS PATH\n"
				"       workload span-stat|span-access|span-execvp SECONDS PATH|DIR|NAME\n");
		return 2;
	}
	if (!strcmp(argv[1], "access"))
		return run_access(n, 0);
	if (!strcmp(argv[1], "eaccess"))
		return run_access(n, AT_EACCESS);
	if (!strcmp(argv[1], "access-dropcap")) {
		if (slowpath_drop_effective(CAP_NET_RAW)) {
			if (errno == EINVAL)
				fprintf(stderr, "workload: capability %d is not effective to begin "
					"with\n", CAP_NET_RAW);
			else
				perror("workload: capset");
			return 1;
		}
		return run_access(n, 0);
	}
	if (!strcmp(argv[1], "exec-missing"))
		return run_exec_missing(n);
	if (!strcmp(argv[1], "exec-existing"))
		return run_fork_exec(n, "/proc/self/exe", false);
	if (!strcmp(argv[1], "noop"))
		return 0;
	fprintf(stderr, "workload: unknown workload '%s'\n", argv[1]);
	return 2;
}
