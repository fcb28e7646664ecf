// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The self-test of permscope check: a forked child makes a known number of
 * calls in phases, the families count only it (the process filter), and the
 * counts of each phase decide one verdict per fast path with the criteria
 * tests/vm/test_vm.c applies to the pinned kernels (check_access,
 * check_exec, check_lookup there).
 */
#include "run/selftest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/record.h"
#include "slowpath.h"
#include "util.h"

/* Path components below the tree's top: ST_TREE_CHECKS - 1 directories and the file. */
#define TREE_FILE "d1/d2/d3/d4/d5/d6/file"
#define CONTROL_FILE "ctl/file"
/* One argument longer than the kernel's MAX_ARG_STRLEN (32 pages): E2BIG after the mm. */
#define CONTROL_ARG_LEN (32 * 4096 + 1024)

void selftest_init(struct selftest *t)
{
	static const int n[ST_PHASES] = {
		[ST_ACCESS_DEFAULT] = 300, [ST_ACCESS_DROPCAP] = 300, [ST_EXEC_MISSING] = 40,
		[ST_EXEC_CONTROL] = 4, [ST_STAT_TREE] = 300, [ST_STAT_CONTROL] = 50,
	};

	memset(t, 0, sizeof(*t));
	memcpy(t->n, n, sizeof(n));
	copy_truncated(t->fs, "tmpfs", sizeof(t->fs));
	profile_init(&t->run);
	for (int i = 0; i < ST_PHASES; i++)
		profile_init(&t->phase[i]);
}

void selftest_free(struct selftest *t)
{
	profile_free(&t->run);
	for (int i = 0; i < ST_PHASES; i++)
		profile_free(&t->phase[i]);
}

/* ---- the workload, in a child ---------------------------------------------- */

/* What the child answers after its setup and after each phase. */
struct child_reply {
	int err;         /* 0, or the errno of what failed */
	char why[128];   /* what failed, when err */
	char top[PATH_MAX]; /* setup: the tree's top directory */
	char where[PATH_MAX + 96]; /* setup: how it was made */
};

struct child {
	int topfd;
	char missing[PATH_MAX];
	char *big; /* the control exec's argument */
};

static int reply_err(struct child_reply *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reply_err(struct child_reply *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->err = err ? err : EINVAL;
	return -1;
}

static bool on_tmpfs(const char *path)
{
	struct statfs s;

	return !statfs(path, &s) && s.f_type == TMPFS_MAGIC;
}

/*
 * The tree: a private tmpfs on `mnt` in a mount namespace of the child's
 * own (it goes when the child exits), or a directory on /dev/shm or /run
 * named like `mnt` that the parent removes.
 */
static int child_tree(const char *mnt, struct child *c, struct child_reply *r)
{
	static const char *const dirs[] = { "d1", "d1/d2", "d1/d2/d3", "d1/d2/d3/d4",
					    "d1/d2/d3/d4/d5", "d1/d2/d3/d4/d5/d6" };
	static const char *const fallbacks[] = { "/dev/shm", "/run" };
	char mount_err[64] = "";
	struct stat st;
	int fd;

	umask(0);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("permscope", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")) {
		snprintf(mount_err, sizeof(mount_err), "%s", strerror(errno));
		r->top[0] = 0;
		for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]) && !r->top[0]; i++) {
			char base[PATH_MAX];

			copy_truncated(base, mnt, sizeof(base));
			snprintf(r->top, sizeof(r->top), "%s/%s", fallbacks[i], basename(base));
			if (!on_tmpfs(fallbacks[i]) || mkdir(r->top, 0755))
				r->top[0] = 0;
		}
		if (!r->top[0])
			return reply_err(r, errno, "mounting a tmpfs failed (%s), and neither /dev/shm "
					 "nor /run is a writable tmpfs", mount_err);
		snprintf(r->where, sizeof(r->where), "%s (mounting a private tmpfs failed: %s)",
			 r->top, mount_err);
	} else {
		copy_truncated(r->top, mnt, sizeof(r->top));
		snprintf(r->where, sizeof(r->where), "a private tmpfs mounted on %s", mnt);
	}
	c->topfd = open(r->top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->topfd < 0)
		return reply_err(r, errno, "open %s: %s", r->top, strerror(errno));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdirat(c->topfd, dirs[i], 0755))
			return reply_err(r, errno, "mkdir %s/%s: %s", r->top, dirs[i], strerror(errno));
	if (mkdirat(c->topfd, "ctl", 0700))
		return reply_err(r, errno, "mkdir %s/ctl: %s", r->top, strerror(errno));
	for (int i = 0; i < 2; i++) {
		const char *file = i ? CONTROL_FILE : TREE_FILE;

		fd = openat(c->topfd, file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return reply_err(r, errno, "create %s/%s: %s", r->top, file, strerror(errno));
		close(fd);
		/* The first check of an inode may take the full path while the kernel marks it. */
		fstatat(c->topfd, file, &st, 0);
	}
	snprintf(c->missing, sizeof(c->missing), "%s/missing", r->top);
	c->big = malloc(CONTROL_ARG_LEN + 1);
	if (!c->big)
		return reply_err(r, ENOMEM, "out of memory");
	memset(c->big, 'x', CONTROL_ARG_LEN);
	c->big[CONTROL_ARG_LEN] = 0;
	return 0;
}

/*
 * Clear the first capability of the effective set (slowpath_drop_effective()
 * refuses, with EINVAL, those not in it).  The capability, or -1 with errno.
 */
static int drop_an_effective_cap(void)
{
	for (int cap = 0; cap < 64; cap++)
		if (!slowpath_drop_effective(cap))
			return cap;
		else if (errno != EINVAL)
			return -1;
	errno = ESRCH;
	return -1;
}

static int child_phase(enum selftest_phase ph, int n, const struct child *c, struct child_reply *r)
{
	char *argv[] = { (char *)"permscope-self-test", NULL, NULL }, *envp[] = { NULL };
	struct stat st;
	int cap;

	switch (ph) {
	case ST_ACCESS_DROPCAP:
		cap = drop_an_effective_cap();
		if (cap < 0 && errno == ESRCH)
			return reply_err(r, errno, "no capability in the effective set to clear");
		if (cap < 0)
			return reply_err(r, errno, "clearing a capability: %s", strerror(errno));
		/* fall through */
	case ST_ACCESS_DEFAULT:
		for (int i = 0; i < n; i++)
			if (access("/", R_OK))
				return reply_err(r, errno, "access(\"/\", R_OK): %s", strerror(errno));
		return 0;
	case ST_EXEC_MISSING:
		for (int i = 0; i < n; i++)
			if (!execve(c->missing, argv, envp) || errno != ENOENT)
				return reply_err(r, errno, "execve(%s): %s instead of ENOENT", c->missing,
						 strerror(errno));
		return 0;
	case ST_EXEC_CONTROL:
		argv[1] = c->big;
		for (int i = 0; i < n; i++)
			if (!execve("/proc/self/exe", argv, envp) || errno != E2BIG)
				return reply_err(r, errno, "execve(/proc/self/exe, a %d-byte argument): "
						 "%s instead of E2BIG", CONTROL_ARG_LEN, strerror(errno));
		return 0;
	case ST_STAT_TREE:
	case ST_STAT_CONTROL:
		for (int i = 0; i < n; i++)
			if (fstatat(c->topfd, ph == ST_STAT_TREE ? TREE_FILE : CONTROL_FILE, &st, 0))
				return reply_err(r, errno, "stat: %s", strerror(errno));
		return 0;
	case ST_PHASES:
		break;
	}
	return 0;
}

/* Reads a phase number, runs it, replies; until EOF.  The tree first. */
static int child_main(const char *mnt, const int *n, int in, int out)
{
	struct child c = { .topfd = -1 };
	struct child_reply r;
	unsigned char ph;

	memset(&r, 0, sizeof(r));
	child_tree(mnt, &c, &r);
	if (write(out, &r, sizeof(r)) != sizeof(r) || r.err)
		return 1;
	while (read(in, &ph, 1) == 1 && ph < ST_PHASES) {
		memset(&r, 0, sizeof(r));
		child_phase(ph, n[ph], &c, &r);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			return 1;
	}
	return 0;
}

/* ---- running it -------------------------------------------------------------- */

/*
 * Start the families like recorder_attach(), which calls a run where none
 * attaches an error: for check that is a finding, reported in the table.
 */
static void attach(struct recorder *rec, const struct probe_opts *probe, struct profile *p)
{
	memset(rec, 0, sizeof(*rec));
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!probe->want[f])
			continue;
		rec->fams[f] = family_start(f, probe, &p->fam[f]);
		rec->attached += rec->fams[f] != NULL;
	}
}

static bool read_reply(int fd, struct child_reply *r)
{
	return read(fd, r, sizeof(*r)) == sizeof(*r);
}

/* Each phase's counts: its reading less the one before (reading[0] is the baseline). */
static int phase_deltas(struct selftest *t, struct profile *baseline)
{
	for (int ph = ST_PHASES - 1; ph >= 0; ph--)
		if (profile_sub(&t->phase[ph], ph ? &t->phase[ph - 1] : baseline))
			return -ENOMEM;
	return 0;
}

/* What child_tree() made outside its own tmpfs, deepest first; nothing else. */
static void remove_fallback_tree(const char *top)
{
	static const char *const made[] = { TREE_FILE, "d1/d2/d3/d4/d5/d6", "d1/d2/d3/d4/d5",
					    "d1/d2/d3/d4", "d1/d2/d3", "d1/d2", "d1", CONTROL_FILE,
					    "ctl", "" };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, made[i]);
		remove(path);
	}
}

int selftest_run(const struct probe_opts *probe_in, struct selftest *t)
{
	struct probe_opts probe = *probe_in;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	const char *tmp = getenv("TMPDIR");
	char mnt[PATH_MAX];
	struct child_reply r;
	char top[PATH_MAX] = ""; /* the tree's, from the setup reply */
	struct recorder rec = { .attached = 0 };
	struct profile baseline;
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, ret = EXIT_FAIL;
	uint64_t start;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	snprintf(mnt, sizeof(mnt), "%s/permscope-self-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	profile_init(&baseline);
	if (!mkdtemp(mnt)) {
		pr_err("self-test: mkdtemp %s: %s", mnt, strerror(errno));
		return EXIT_FAIL;
	}
	/* A child that died must give an error, not end us at the next write. */
	sigaction(SIGPIPE, &ign, &old_pipe);
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
		pr_err("self-test: pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("self-test: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		_exit(child_main(mnt, t->n, to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	to[0] = from[1] = -1;
	if (read_reply(from[0], &r))
		copy_truncated(top, r.top, sizeof(top));
	else
		r.err = 0;
	if (!top[0] || r.err) {
		pr_err("self-test: setting up its tree under %s failed: %s", mnt,
		       r.err ? r.why : "the workload process died");
		goto reap;
	}
	copy_truncated(t->where, r.where, sizeof(t->where));

	/* Counted from its first call: in `tracked` before anything attaches. */
	probe.filter_tasks = true;
	probe.ntrack = 0;
	probe.track[probe.ntrack++] = pid;
	start = now_monotonic_ns();
	attach(&rec, &probe, &t->run);
	t->attach_s = (now_monotonic_ns() - start) / 1e9;
	start = now_monotonic_ns();
	if (recorder_collect(&rec, &baseline))
		goto reap;
	for (unsigned char ph = 0; ph < ST_PHASES; ph++) {
		if (write(to[1], &ph, 1) != 1 || !read_reply(from[0], &r)) {
			pr_err("self-test: the workload process died in phase %d", ph);
			goto reap;
		}
		if (r.err)
			copy_truncated(t->not_run[ph], r.why, sizeof(t->not_run[ph]));
		if (recorder_collect(&rec, &t->phase[ph]))
			goto reap;
	}
	if (recorder_collect(&rec, &t->run) || phase_deltas(t, &baseline))
		goto reap;
	t->elapsed_s = (now_monotonic_ns() - start) / 1e9;
	ret = EXIT_OK;
reap:
	close(to[1]);
	to[1] = -1;
	waitpid(pid, NULL, 0);
	start = now_monotonic_ns();
	recorder_detach(&rec);
	t->detach_s = (now_monotonic_ns() - start) / 1e9;
	if (top[0] && strcmp(top, mnt)) /* the fallback directory */
		remove_fallback_tree(top);
out:
	sigaction(SIGPIPE, &old_pipe, NULL);
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	rmdir(mnt);
	profile_free(&baseline);
	return ret;
}

/* ---- the verdicts ------------------------------------------------------------ */

static const char *const phase_names[ST_PHASES] = {
	[ST_ACCESS_DEFAULT] = "access_default", [ST_ACCESS_DROPCAP] = "access_dropcap",
	[ST_EXEC_MISSING] = "exec_missing", [ST_EXEC_CONTROL] = "exec_control",
	[ST_STAT_TREE] = "stat_tree", [ST_STAT_CONTROL] = "stat_control",
};
static const char *const path_titles[ST_PATHS] = {
	[ST_CRED_SKIP] = "faccessat cred skip",
	[ST_ENOENT_EARLY] = "ENOENT before mm",
	[ST_LOOKUP_SKIP] = "MAY_EXEC lookup skip",
};
static const char *const path_keys[ST_PATHS] = {
	[ST_CRED_SKIP] = "faccessat_cred_skip",
	[ST_ENOENT_EARLY] = "enoent_before_mm",
	[ST_LOOKUP_SKIP] = "may_exec_lookup_skip",
};
static const char *const answer_names[] = {
	[ST_UNKNOWN] = "unknown", [ST_YES] = "yes", [ST_NO] = "no",
};

const char *selftest_phase_name(enum selftest_phase ph) { return phase_names[ph]; }
const char *selftest_path_title(enum selftest_path p) { return path_titles[p]; }
const char *selftest_path_key(enum selftest_path p) { return path_keys[p]; }
const char *selftest_answer_name(enum selftest_answer a) { return answer_names[a]; }

static void evidence(struct selftest_verdict *v, const char *name, uint64_t value)
{
	if (v->ncount < ST_MAX_COUNTS) {
		v->count[v->ncount].name = name;
		v->count[v->ncount++].value = value;
	}
}

static void answer(struct selftest_verdict *v, enum selftest_answer a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void answer(struct selftest_verdict *v, enum selftest_answer a, const char *fmt, ...)
{
	va_list ap;

	v->answer = a;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

/*
 * Whether family f's counts can be judged at all: it attached, its losses
 * were read and there were none (a program the kernel skipped, a table that
 * was full), and the phases it judges ran.  Otherwise the verdict is
 * unknown, with the reason.
 */
static bool judgeable(const struct selftest *t, enum family_id f, enum selftest_phase first,
		      enum selftest_phase last, struct selftest_verdict *v)
{
	const struct family_result *r = &t->run.fam[f];
	char tries[160] = "";
	size_t len = 0;

	if (r->status == FAMILY_NOT_REQUESTED) {
		answer(v, ST_UNKNOWN, "the %s family was not requested (--families)", family_name(f));
		return false;
	}
	if (r->status != FAMILY_OK) {
		for (int i = 0; i < r->nattempts && len < sizeof(tries); i++)
			len += snprintf(tries + len, sizeof(tries) - len, "%s%s %s", i ? ", " : "",
					mode_name(r->attempts[i].mode),
					r->attempts[i].err ? strerrorname_np(r->attempts[i].err) : "no hook");
		answer(v, ST_UNKNOWN, "the %s family attaches in no mode here (%s): nothing to count "
		       "with", family_name(f), tries);
		return false;
	}
	if (!r->lost_known) {
		answer(v, ST_UNKNOWN, "the %s family's losses were not read", family_name(f));
		return false;
	}
	if (family_lost_total(r)) {
		for (int i = 0; i < r->nlost && len < sizeof(tries); i++)
			if (r->lost[i].count)
				len += snprintf(tries + len, sizeof(tries) - len, "%s%s %" PRIu64,
						len ? ", " : "", r->lost[i].what, r->lost[i].count);
		answer(v, ST_UNKNOWN, "the %s family lost %" PRIu64 " events (%s): the counts may be "
		       "short", family_name(f), family_lost_total(r), tries);
		return false;
	}
	for (int ph = first; ph <= (int)last; ph++)
		if (t->not_run[ph][0]) {
			answer(v, ST_UNKNOWN, "the workload failed: %s", t->not_run[ph]);
			return false;
		}
	return true;
}

static uint64_t sum(const __u64 *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s = sat_add_u64(s, v[i]);
	return s;
}

/*
 * test_vm's check_access: every default-cred call fast (or every one
 * avoidable, the stock kernel), and the positive control -- every call
 * with a capability cleared needed and allocated a cred.
 */
static void judge_access(const struct selftest *t, struct selftest_verdict *v)
{
	const struct access_stats *d = &t->phase[ST_ACCESS_DEFAULT].access;
	const struct access_stats *c = &t->phase[ST_ACCESS_DROPCAP].access;
	uint64_t n = t->n[ST_ACCESS_DEFAULT], nc = t->n[ST_ACCESS_DROPCAP];
	uint64_t calls = sum(d->calls, ACCESS_OUTCOMES), ccalls = sum(c->calls, ACCESS_OUTCOMES);
	uint64_t unsafe = d->calls[ACCESS_UNSAFE] + c->calls[ACCESS_UNSAFE];
	uint64_t fast = d->calls[ACCESS_FAST], avoidable = d->calls[ACCESS_AVOIDABLE];
	uint64_t needed = d->calls[ACCESS_NEEDED], cneeded = c->calls[ACCESS_NEEDED];
	bool control_ran = !t->not_run[ST_ACCESS_DROPCAP][0];

	evidence(v, "default_calls", calls);
	evidence(v, "default_fast", fast);
	evidence(v, "default_avoidable", avoidable);
	evidence(v, "default_needed", needed);
	evidence(v, "dropcap_calls", ccalls);
	evidence(v, "dropcap_needed", cneeded);
	evidence(v, "unsafe", unsafe);
	if (!judgeable(t, FAMILY_ACCESS, ST_ACCESS_DEFAULT, ST_ACCESS_DEFAULT, v))
		return;
	if (calls != n)
		return answer(v, ST_UNKNOWN, "the probes counted %" PRIu64 " of the %" PRIu64
			      " default-cred access() calls", calls, n);
	if (unsafe)
		return answer(v, ST_UNKNOWN, "%" PRIu64 " calls skipped an override they needed "
			      "(unsafe): a violation, not a verdict", unsafe);
	if (needed)
		return answer(v, ST_UNKNOWN, "%" PRIu64 " of the default-cred calls needed the "
			      "override (fsuid != uid, or capabilities a non-root process holds): "
			      "none could take the fast path", needed);
	if (avoidable == n)
		return answer(v, ST_NO, "all %" PRIu64 " default-cred calls allocated a cred they "
			      "did not need", n);
	if (fast != n)
		return answer(v, ST_UNKNOWN, "mixed: %" PRIu64 " fast and %" PRIu64 " avoidable of %"
			      PRIu64 " default-cred calls", fast,
			      avoidable, n);
	if (!control_ran)
		return answer(v, ST_UNKNOWN, "no cred allocated by the %" PRIu64 " default-cred calls, "
			      "but no positive control: %s", n, t->not_run[ST_ACCESS_DROPCAP]);
	if (ccalls != nc || cneeded != nc)
		return answer(v, ST_UNKNOWN, "no cred allocated by the default-cred calls, but the "
			      "positive control failed: %" PRIu64 " of %" PRIu64 " calls with a "
			      "capability cleared were seen allocating one (the probe may not see "
			      "cred allocations)", cneeded, nc);
	answer(v, ST_YES, "none of the %" PRIu64 " default-cred calls allocated a cred, and all %"
	       PRIu64 " with a capability cleared did", n, nc);
}

/*
 * test_vm's check_exec: every ENOENT early (or every one late, stock), and
 * the positive control -- execs that fail after the mm (E2BIG) counted
 * allocating one, so that "no mm" means the probe would have seen one.
 */
static void judge_exec(const struct selftest *t, struct selftest_verdict *v)
{
	const struct exec_stats *m = &t->phase[ST_EXEC_MISSING].exec;
	const struct exec_stats *c = &t->phase[ST_EXEC_CONTROL].exec;
	uint64_t n = t->n[ST_EXEC_MISSING], nc = t->n[ST_EXEC_CONTROL];
	uint64_t early = m->calls[EXEC_ENOENT_EARLY], late = m->calls[EXEC_ENOENT_LATE];

	evidence(v, "enoent", m->errnos[ENOENT]);
	evidence(v, "enoent_early", early);
	evidence(v, "enoent_late", late);
	evidence(v, "control_calls", sum(c->calls, EXEC_OUTCOMES));
	evidence(v, "control_mm_allocs", c->mm_allocs);
	if (!judgeable(t, FAMILY_EXEC, ST_EXEC_MISSING, ST_EXEC_MISSING, v))
		return;
	if (m->errnos[ENOENT] != n || early + late != n)
		return answer(v, ST_UNKNOWN, "the probes counted %" PRIu64 " ENOENTs (%" PRIu64
			      " early, %" PRIu64 " late) of the %" PRIu64 " failing execve() calls",
			      (uint64_t)m->errnos[ENOENT], early, late, n);
	if (late == n)
		return answer(v, ST_NO, "all %" PRIu64 " ENOENTs came after an mm was allocated", n);
	if (early != n)
		return answer(v, ST_UNKNOWN, "mixed: %" PRIu64 " early and %" PRIu64 " late ENOENTs",
			      early, late);
	if (t->not_run[ST_EXEC_CONTROL][0])
		return answer(v, ST_UNKNOWN, "all %" PRIu64 " ENOENTs before any mm, but no positive "
			      "control: %s", n, t->not_run[ST_EXEC_CONTROL]);
	if (c->mm_allocs != nc)
		return answer(v, ST_UNKNOWN, "all %" PRIu64 " ENOENTs before any mm, but the positive "
			      "control failed: %" PRIu64 " of %" PRIu64 " execs failing after the mm "
			      "(E2BIG) were seen allocating one (the probe may not see mm "
			      "allocations)", n, (uint64_t)c->mm_allocs, nc);
	answer(v, ST_YES, "all %" PRIu64 " ENOENTs came before any mm, and all %" PRIu64
	       " execs failing later (E2BIG) allocated one", n, nc);
}

static const struct lookup_stats *fs_stats(const struct profile *p, const char *fs)
{
	const struct fs_result *r = profile_find_fs(p, fs);

	return r ? &r->s : NULL;
}

/*
 * test_vm's check_lookup: on the 0755 tree every eligible check skipped
 * (did = would) or none (stock), no violation; and the positive control --
 * the 0700 directory's checks made in full, so that "skipped" means the
 * probe tells a full check from a skipped one.
 */
static void judge_lookup(const struct selftest *t, struct selftest_verdict *v)
{
	static const struct lookup_stats none;
	const struct lookup_stats *s = fs_stats(&t->phase[ST_STAT_TREE], t->fs);
	const struct lookup_stats *c = fs_stats(&t->phase[ST_STAT_CONTROL], t->fs);
	uint64_t want = (uint64_t)ST_TREE_CHECKS * t->n[ST_STAT_TREE];
	uint64_t nc = t->n[ST_STAT_CONTROL];
	uint64_t violations;

	s = s ? s : &none;
	c = c ? c : &none;
	violations = sat_add_u64(s->violations, c->violations);
	evidence(v, "checks", s->checks);
	evidence(v, "did_skip", s->did_skip);
	evidence(v, "would_skip", s->would_skip);
	evidence(v, "violations", violations);
	evidence(v, "control_checks", c->checks);
	evidence(v, "control_did_skip", c->did_skip);
	if (!judgeable(t, FAMILY_LOOKUP, ST_STAT_TREE, ST_STAT_TREE, v))
		return;
	if (s->checks < want)
		return answer(v, ST_UNKNOWN, "the probes counted %" PRIu64 " of the %" PRIu64
			      " directory checks on %s", (uint64_t)s->checks, want, t->fs);
	if (violations)
		return answer(v, ST_UNKNOWN, "%" PRIu64 " full checks skipped on ineligible "
			      "directories (violations): not a verdict",
			      violations);
	if (!s->did_skip)
		return answer(v, ST_NO, "none of the %" PRIu64 " checks on the 0755 tree was skipped (%"
			      PRIu64 " eligible)", (uint64_t)s->checks, (uint64_t)s->would_skip);
	if (s->did_skip != s->would_skip)
		return answer(v, ST_UNKNOWN, "partial: %" PRIu64 " of %" PRIu64 " eligible checks "
			      "skipped", (uint64_t)s->did_skip, (uint64_t)s->would_skip);
	if (t->not_run[ST_STAT_CONTROL][0])
		return answer(v, ST_UNKNOWN, "every eligible check skipped, but no positive control: "
			      "%s", t->not_run[ST_STAT_CONTROL]);
	if (c->checks < ST_CONTROL_CHECKS * nc || c->did_skip > nc)
		return answer(v, ST_UNKNOWN, "every eligible check skipped, but the positive control "
			      "failed: of %" PRIu64 " checks through a 0700 directory, %" PRIu64
			      " were seen skipped where at most %" PRIu64 " can be (the probe may "
			      "not tell a full check from a skipped one)", (uint64_t)c->checks,
			      (uint64_t)c->did_skip, nc);
	answer(v, ST_YES, "all %" PRIu64 " eligible checks on the 0755 tree were skipped, and the "
	       "0700 directory's were made in full", (uint64_t)s->would_skip);
}

void selftest_judge(const struct selftest *t, enum selftest_path p, struct selftest_verdict *v)
{
	memset(v, 0, sizeof(*v));
	switch (p) {
	case ST_CRED_SKIP:
		judge_access(t, v);
		break;
	case ST_ENOENT_EARLY:
		judge_exec(t, v);
		break;
	case ST_LOOKUP_SKIP:
		judge_lookup(t, v);
		break;
	case ST_PATHS:
		break;
	}
}
