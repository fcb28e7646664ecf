// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What each benchmark works on and does (see bench_fixtures.h). */
#include "bench/bench_fixtures.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slowpath.h"

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


/* ---- a fixture ------------------------------------------------------------ */

int bench_fixture_init(struct bench_fixture *fx, int nworkers, bool slow, char *err,
		       size_t errlen)
{
	memset(fx, 0, sizeof(*fx));
	fx->nworkers = nworkers;
	fx->slow = slow;
	fx->cap = -1;
	if (make_tmpdir(fx->dir, sizeof(fx->dir))) {
		snprintf(err, errlen, "cannot make a temporary directory in %s: %s",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		fx->dir[0] = 0;
		return -1;
	}
	fx->files[0] = calloc(nworkers, sizeof(*fx->files[0]));
	fx->files[1] = calloc(nworkers, sizeof(*fx->files[1]));
	if (!fx->files[0] || !fx->files[1]) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void bench_fixture_free(struct bench_fixture *fx)
{
	for (size_t i = 0; i < fx->nowned; i++)
		free(fx->owned[i]);
	free(fx->owned);
	free(fx->files[0]);
	free(fx->files[1]);
	remove_tree(fx->dir);
	memset(fx, 0, sizeof(*fx));
}

/* A path in the fixture, freed with it; NULL with "out of memory" in `err`. */
__attribute__((format(printf, 4, 5)))
static char *fixture_path(struct bench_fixture *fx, char *err, size_t errlen, const char *fmt, ...)
{
	char **owned = realloc(fx->owned, (fx->nowned + 1) * sizeof(*owned));
	char *path;
	va_list ap;
	int n;

	if (!owned) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fx->owned = owned;
	va_start(ap, fmt);
	n = vasprintf(&path, fmt, ap);
	va_end(ap);
	if (n < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return fx->owned[fx->nowned++] = path;
}

/* Worker w works on `path` in both variants. */
static void every_variant(struct bench_fixture *fx, int w, const char *path)
{
	fx->files[0][w] = fx->files[1][w] = path;
}

/* ---- access1, access2, cred-bounce --------------------------------------- */

/*
 * DIR/file0, or with `own_file` DIR/fileW for every worker W; the slow
 * variant clears the first effective capability.
 */
static int access_files(struct bench_fixture *fx, bool own_file, char *err, size_t errlen)
{
	for (int w = 0; w < fx->nworkers; w++) {
		char *path;

		if (w && !own_file) {
			every_variant(fx, w, fx->files[0][0]);
			continue;
		}
		path = fixture_path(fx, err, errlen, "%s/file%d", fx->dir, w);
		if (!path || make_file(path, 0644))
			return -1;
		every_variant(fx, w, path);
	}
	snprintf(fx->target, sizeof(fx->target), own_file ? "%s/fileN" : "%s/file0", fx->dir);
	if (fx->slow && (fx->cap = first_effective_cap()) < 0) {
		snprintf(fx->slow_skipped, sizeof(fx->slow_skipped), "no capability is "
			 "effective here, so access() already takes the fast path and "
			 "clearing one cannot defeat it (run as root)");
		fx->slow = false;
	}
	if (fx->slow)
		snprintf(fx->slow_how, sizeof(fx->slow_how), "capability %d cleared from "
			 "the effective set of each worker (permitted unchanged)", fx->cap);
	return 0;
}

int access1_setup(struct bench_fixture *fx, char *err, size_t errlen)
{
	return access_files(fx, true, err, errlen);
}

int access2_setup(struct bench_fixture *fx, char *err, size_t errlen)
{
	return access_files(fx, false, err, errlen);
}

int access_op(const char *file, int w, uint64_t i)
{
	(void)w;
	(void)i;
	return access(file, R_OK);
}

/* Worker 0 opens and closes DIR/opened; the others read DIR/file0. */
int cred_bounce_setup(struct bench_fixture *fx, char *err, size_t errlen)
{
	char *opened;

	if (fx->nworkers < 2) {
		snprintf(err, errlen, "needs 2 workers or more (one opens, the others read)");
		return -1;
	}
	if (access_files(fx, false, err, errlen))
		return -1;
	opened = fixture_path(fx, err, errlen, "%s/opened", fx->dir);
	if (!opened || make_file(opened, 0644))
		return -1;
	every_variant(fx, 0, opened);
	return 0;
}

int cred_bounce_op(const char *file, int w, uint64_t i)
{
	struct stat st;
	int fd;

	if (w == 0) { /* the opener: every open takes a cred reference */
		fd = open(file, O_RDONLY);
		return fd < 0 ? -1 : close(fd);
	}
	return i & 1 ? stat(file, &st) : access(file, R_OK);
}

/* ---- stat-path ------------------------------------------------------------ */

/*
 * DIR/a/b/c/d/e/f/file, DIR and the six directories made: its path, or
 * NULL with errno or with a message in `err`.
 */
static const char *make_deep_tree(struct bench_fixture *fx, const char *dir, char *err,
				  size_t errlen)
{
	char *path = fixture_path(fx, err, errlen, "%s/a/b/c/d/e/f/file", dir);
	size_t len = strlen(dir);

	if (!path || mkdir(dir, 0755))
		return NULL;
	for (size_t end = len + 2; end <= len + 12; end += 2) { /* DIR/a, DIR/a/b, ... */
		path[end] = 0;
		if (mkdir(path, 0755))
			return NULL;
		path[end] = '/';
	}
	return make_file(path, 0644) ? NULL : path;
}

/*
 * A file six directories deep: the system's linux/fs.h, or with --slow a
 * private tree for each variant, so that both walk the same shape, the
 * slow one with an allowing ACL on one of its directories.
 */
int stat_path_setup(struct bench_fixture *fx, char *err, size_t errlen)
{
	const char *fast = "/usr/include/linux/fs.h", *slow = NULL;
	char *dir, *acl_dir;
	struct stat st;

	if (fx->slow || stat(fast, &st)) {
		dir = fixture_path(fx, err, errlen, "%s/fast", fx->dir);
		if (!dir || !(fast = make_deep_tree(fx, dir, err, errlen)))
			return -1;
	}
	snprintf(fx->target, sizeof(fx->target), "%s", fast);
	if (fx->slow) {
		dir = fixture_path(fx, err, errlen, "%s/slow", fx->dir);
		acl_dir = fixture_path(fx, err, errlen, "%s/slow/a/b", fx->dir);
		if (!dir || !acl_dir || !(slow = make_deep_tree(fx, dir, err, errlen)))
			return -1;
		if (slowpath_allowing_acl(acl_dir)) {
			snprintf(fx->slow_skipped, sizeof(fx->slow_skipped), "cannot set a POSIX "
				 "ACL on %s: %s (the filesystem of TMPDIR must support ACLs)",
				 acl_dir, strerror(errno));
			fx->slow = false;
		} else {
			snprintf(fx->slow_how, sizeof(fx->slow_how), "an allowing POSIX ACL on "
				 "%s", acl_dir);
		}
	}
	for (int w = 0; w < fx->nworkers; w++) {
		fx->files[0][w] = fast;
		fx->files[1][w] = slow;
	}
	return 0;
}

int stat_op(const char *file, int w, uint64_t i)
{
	struct stat st;

	(void)w;
	(void)i;
	return stat(file, &st);
}

/* ---- exec-path ------------------------------------------------------------ */

/* DIR/bin1/noop .. DIR/bin7/noop, of which only the last exists. */
int exec_path_setup(struct bench_fixture *fx, char *err, size_t errlen)
{
	for (int i = 0; i < BENCH_EXEC_PATHS; i++) {
		char *bin = fixture_path(fx, err, errlen, "%s/bin%d", fx->dir, i + 1);

		if (!bin)
			return -1;
		if (mkdir(bin, 0755))
			return -1;
		fx->exec_paths[i] = fixture_path(fx, err, errlen, "%s/noop", bin);
		if (!fx->exec_paths[i])
			return -1;
	}
	if (write_noop_program(fx->exec_paths[BENCH_EXEC_PATHS - 1])) {
		snprintf(err, errlen, "cannot write the no-op program %s: %s%s",
			 fx->exec_paths[BENCH_EXEC_PATHS - 1], strerror(errno),
			 errno == ENOEXEC ? " (exec-path runs on x86-64 only)" : "");
		return -1;
	}
	snprintf(fx->target, sizeof(fx->target), "%s", fx->exec_paths[BENCH_EXEC_PATHS - 1]);
	return 0;
}

/*
 * Each benchmark's setup and operation: the bench layer's half of a row
 * of bench_defs, whose names and metrics the core keeps for profiles.
 */
const struct bench_ops bench_ops[BENCH_COUNT] = {
	[BENCH_ACCESS1] = { access1_setup, access_op },
	[BENCH_ACCESS2] = { access2_setup, access_op },
	[BENCH_STAT_PATH] = { stat_path_setup, stat_op },
	[BENCH_EXEC_PATH] = { exec_path_setup, NULL },
	[BENCH_CRED_BOUNCE] = { cred_bounce_setup, cred_bounce_op },
};
