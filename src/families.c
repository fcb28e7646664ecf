// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "families.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "access.skel.h"
#include "exec.skel.h"
#include "ksyms.h"
#include "lookup.skel.h"
#include "util.h"

/* ---- privileges ---------------------------------------------------------- */

/* Numbered here: CAP_BPF and CAP_PERFMON came in 5.8, after some headers. */
#define PS_CAP_PERFMON 38
#define PS_CAP_BPF 39

bool families_may_load(const char *command, const char *hint)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uint64_t eff = 0;
	bool bpf, perfmon;

	if (syscall(SYS_capget, &hdr, data) == 0)
		eff = (uint64_t)data[1].effective << 32 | data[0].effective;
	bpf = eff & (1ULL << PS_CAP_BPF);
	perfmon = eff & (1ULL << PS_CAP_PERFMON);
	if (eff & (1ULL << CAP_SYS_ADMIN) || (bpf && perfmon))
		return true;
	pr_err("no privileges to load BPF: run as root, or with CAP_BPF and CAP_PERFMON "
	       "(this process lacks %s): sudo permscope %s%s%s",
	       !bpf && !perfmon ? "both" : !bpf ? "CAP_BPF" : "CAP_PERFMON", command,
	       hint ? "; " : "", hint ? hint : "");
	return false;
}

/* ---- libbpf messages ------------------------------------------------------ */

/* The first libbpf warning that names a program, to name it in a hint. */
static char last_libbpf_warning[512];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;

	if (level == LIBBPF_WARN && !strstr(last_libbpf_warning, "prog '")) {
		va_copy(copy, ap);
		vsnprintf(last_libbpf_warning, sizeof(last_libbpf_warning), fmt, copy);
		va_end(copy);
	}
	if (verbosity > 0 && level != LIBBPF_DEBUG)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void families_init_logging(void)
{
	libbpf_set_print(libbpf_print);
}

/* ---- per-family glue around the generated skeletons ----------------------- */

struct family_ops {
	void *(*open)(void);
	struct bpf_object *(*object)(void *skel);
	/* Set rodata for this mode; -errno with `why` filled when impossible. */
	int (*configure)(void *skel, const struct probe_opts *o, enum attach_mode m,
			 char *why, size_t len);
	int (*load)(void *skel);
	int (*attach)(void *skel);
	void (*destroy)(void *skel);
	struct bpf_map *(*tracked)(void *skel);
	struct bpf_map *(*cgroup_wanted)(void *skel);
	struct bpf_map *(*stats)(void *skel);
	/* A per-fs family's own; the others' one per-CPU stats entry is read generically. */
	int (*collect)(void *skel, struct profile *p);
	/* Optional: once attached, before counting starts; -errno with `why` filled. */
	int (*after_attach)(void *skel, char *why, size_t len);
	struct bpf_object_skeleton *(*skeleton)(void *skel);
	__u64 (*tracked_full)(void *skel); /* processes the fork follower had no room for */
	/* Violation samples (bpf/sample.bpf.h): the ring, the switch, what was left out. */
	struct bpf_map *(*samples)(void *skel);
	void (*emit_samples)(void *skel);
	const __u64 *(*samples_unsent)(void *skel);
};

struct family {
	enum family_id id;
	bool follows_forks; /* --pid, -- CMD: the `tracked` table can fill */
	const struct family_ops *ops;
	void *skel;
	struct ring_buffer *rb; /* violation samples, when asked for */
	const struct sample_sink *sink;
};

#define BIT(m) (1U << (m))

/* The filter rodata is declared once in bpf/filter.bpf.h, so every skeleton has it. */
#define SET_FILTER(skel, o) do {                                                  \
	(skel)->rodata->filter_tasks = (o)->filter_tasks;                         \
	(skel)->rodata->filter_comm = (o)->filter_comm;                           \
	(skel)->rodata->filter_cgroup = (o)->cgroup != NULL;                      \
	memcpy((void *)(skel)->rodata->comm_wanted, (o)->comm, sizeof((o)->comm)); \
} while (0)

/* Sum a per-CPU map value made only of __u64 counters. */
static int percpu_sum(struct bpf_map *map, const void *key, void *out, size_t size)
{
	int ncpus = libbpf_num_possible_cpus();
	char *vals;
	int err;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	vals = calloc(ncpus, size);
	if (!vals)
		return -ENOMEM;
	err = bpf_map__lookup_elem(map, key, bpf_map__key_size(map), vals, ncpus * size, 0);
	if (!err)
		for (int c = 0; c < ncpus; c++)
			counters_add(out, vals + c * size, size);
	free(vals);
	return err;
}

/* ksyms_resolve() on the probes' kallsyms, with `why` filled when it fails. */
static int resolve_ksyms(const struct probe_opts *o, struct ksym_range *r, int n, char *why,
			 size_t wlen)
{
	int err = ksyms_resolve(o->kallsyms, r, n);

	if (err)
		snprintf(why, wlen, "cannot read kernel addresses from %s: %s%s", o->kallsyms,
			 strerror(-err), err == -EPERM ? " (kptr_restrict: needs root with CAP_SYSLOG)" : "");
	return err;
}

/* Kernel text ranges for the tracepoint mode's call_site match, resolved once. */
static int text_range(const struct probe_opts *o, const char *fn, __u64 *lo, __u64 *len,
		      char *why, size_t wlen)
{
	struct ksym_range r = { .name = fn };
	int err = resolve_ksyms(o, &r, 1, why, wlen);

	if (err)
		return err;
	if (!r.lo || !r.len) {
		snprintf(why, wlen, "%s not found in %s", fn, o->kallsyms);
		return -ENOENT;
	}
	*lo = r.lo;
	*len = r.len;
	return 0;
}

static int access_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			    char *why, size_t len)
{
	struct access_bpf *skel = s;

	SET_FILTER(skel, o);
	if (m != MODE_TRACEPOINT)
		return 0;
	return text_range(o, "prepare_creds", (__u64 *)&skel->rodata->cred_alloc_lo,
			  (__u64 *)&skel->rodata->cred_alloc_len, why, len);
}

static int exec_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			  char *why, size_t len)
{
	struct exec_bpf *skel = s;

	SET_FILTER(skel, o);
	if (m != MODE_TRACEPOINT)
		return 0;
	return text_range(o, "mm_alloc", (__u64 *)&skel->rodata->mm_alloc_lo,
			  (__u64 *)&skel->rodata->mm_alloc_len, why, len);
}

/* The bytes of a function's __pfx_ padding right before it (at most 64), or 0. */
static __u64 padding(const struct ksym_range *pfx, __u64 fn)
{
	return pfx->lo && pfx->lo < fn && fn - pfx->lo <= 64 ? fn - pfx->lo : 0;
}

static int lookup_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			    char *why, size_t len)
{
	struct lookup_bpf *skel = s;
	enum { IP, SIP, IP_PFX, SIP_PFX, WALK, STEXT, ETEXT, RETHOOK, FGRAPH, NSYMS };
	struct ksym_range k[NSYMS] = {
		[IP] = { .name = "inode_permission" },
		[SIP] = { .name = "security_inode_permission" },
		/* their padding, where call thunks (6.2+, CALL_PADDING) take calls */
		[IP_PFX] = { .name = "__pfx_inode_permission" },
		[SIP_PFX] = { .name = "__pfx_security_inode_permission" },
		[WALK] = { .name = "link_path_walk." },
		[STEXT] = { .name = "_stext" },
		[ETEXT] = { .name = "_etext" },
		/* other tracers' stand-ins for a return address (bpf/lookup.bpf.c) */
		[RETHOOK] = { .name = "arch_rethook_trampoline" },
		[FGRAPH] = { .name = "return_to_handler" },
	};
	struct timespec rt, mono;
	int err;

	(void)m;
	SET_FILTER(skel, o);
	/* Where IP and SIP are: a check's call site says which of them was called. */
	err = resolve_ksyms(o, k, NSYMS, why, len);
	if (err)
		return err;
	for (int i = IP; i <= SIP; i++)
		if (!k[i].lo || !k[i].len) {
			snprintf(why, len, "%s not found in %s", k[i].name, o->kallsyms);
			return -ENOENT;
		}
	skel->rodata->ip_lo = k[IP].lo;
	skel->rodata->ip_len = k[IP].len;
	skel->rodata->sip_lo = k[SIP].lo;
	skel->rodata->ip_pad = padding(&k[IP_PFX], k[IP].lo);
	skel->rodata->sip_pad = padding(&k[SIP_PFX], k[SIP].lo);
	/* The path walker, to tell its checks from other callers' (optional). */
	skel->rodata->walk_lo = k[WALK].lo;
	skel->rodata->walk_len = k[WALK].len;
	/* Core text, whose call sites are cached; modules' and trampolines' never are. */
	if (k[STEXT].lo && k[ETEXT].lo > k[STEXT].lo) {
		skel->rodata->text_lo = k[STEXT].lo;
		skel->rodata->text_len = k[ETEXT].lo - k[STEXT].lo;
	}
	skel->rodata->rethook_tramp = k[RETHOOK].lo;
	skel->rodata->fgraph_tramp = k[FGRAPH].lo;
	/* ctime is wall-clock time; the programs only have the monotonic clock. */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	skel->rodata->realtime_offset_ns = (rt.tv_sec - mono.tv_sec) * 1000000000ULL +
					   rt.tv_nsec - mono.tv_nsec;
	/* tests/vm/overhead's breakdown, step by step; never set otherwise */
	if (getenv("PERMSCOPE_BENCH_STOP"))
		skel->rodata->bench_stop = atoi(getenv("PERMSCOPE_BENCH_STOP"));
	return 0;
}

/* What the calibration call resolved to (-1: it was never seen). */
static const char *calib_site_text(int site)
{
	switch (site) {
	case -1:
		return "was never seen";
	case SITE_UNREAD:
		return "left a return address that could not be read";
	case SITE_DIRECT_WALK:
	case SITE_DIRECT_OTHER:
		return "resolved to a direct call of security_inode_permission";
	case SITE_FOREIGN:
		return "returns to no call of inode_permission";
	default:
		return "could not be resolved";
	}
}

/*
 * Find where security_inode_permission()'s return address sits relative
 * to a program's frame (bpf/lookup.bpf.c): a known call of it by
 * inode_permission(), access("/", X_OK), on this thread.  A try can be
 * lost to a missed program, so a few are made.
 */
static int lookup_after_attach(void *s, char *why, size_t len)
{
	struct lookup_bpf *skel = s;

	if (getenv("PERMSCOPE_EMPTY_PROGRAMS"))
		return 0; /* tests/vm/overhead's floor: nothing to calibrate */
	skel->bss->calib_tid = gettid();
	for (int i = 0; i < 64; i++) {
		if (faccessat(AT_FDCWD, "/", X_OK, 0) && errno != EACCES)
			break;
		if (__atomic_load_n(&skel->data->ret_off, __ATOMIC_ACQUIRE) >= 0)
			return 0;
	}
	snprintf(why, len, "calibrate: the known call inode_permission -> security_inode_permission "
		 "of access(\"/\", X_OK) %s (64 tries)", calib_site_text(skel->data->calib_site));
	return -ENOENT;
}

/* Every CPU's one value: its filesystems (grouped by fs_type) and its losses. */
static int lookup_collect(void *s, struct profile *p)
{
	struct lookup_bpf *skel = s;
	int ncpus = libbpf_num_possible_cpus(), err;
	struct family_result *res = &p->fam[FAMILY_LOOKUP];
	struct lookup_lost lost = {};
	struct lookup_cpu *vals;
	__u32 zero = 0;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	p->nfs = 0;
	err = bpf_map__lookup_elem(skel->maps.percpu, &zero, sizeof(zero), vals,
				   ncpus * sizeof(*vals), 0);
	for (int c = 0; c < ncpus && !err; c++) {
		counters_add(&lost, &vals[c].lost, sizeof(lost));
		for (int i = 0; i < LOOKUP_FS_SLOTS && !err; i++) {
			struct lookup_fs_name name = {};
			struct fs_result *fs;
			__u64 type = vals[c].fs[i].fs_type;

			if (!type)
				continue;
			if (bpf_map__lookup_elem(skel->maps.fs_names, &type, sizeof(type), &name,
						 sizeof(name), 0) || !name.name[0])
				snprintf(name.name, sizeof(name.name), "fs@%llx",
					 (unsigned long long)type);
			name.name[FS_NAME_LEN - 1] = 0;
			fs = profile_add_fs(p, name.name);
			if (!fs)
				err = -ENOMEM;
			else
				counters_add(&fs->s, &vals[c].fs[i].s, sizeof(fs->s));
		}
	}
	free(vals);
	if (err)
		return err;
	/*
	 * What the programs leave out to save instructions on every check:
	 * each check has one origin, a check the fast path did not take was
	 * made by IP (nested), and an IP call that made no SIP call was
	 * refused before it (denied).
	 */
	for (size_t i = 0; i < p->nfs; i++) {
		struct lookup_stats *st = &p->fs[i].s;

		st->checks = 0;
		for (int o = 0; o < LOOKUP_ORIGINS; o++)
			st->checks += st->origin[o];
		st->nested = st->checks > st->did_skip ? st->checks - st->did_skip : 0;
		st->denied = st->ip_calls > st->nested ? st->ip_calls - st->nested : 0;
	}
	profile_sort_fs(p);
	/* The programs' own losses, beside the kernel's count of their misses. */
	family_add_lost(res, "no_task_storage", lost.no_task_storage);
	family_add_lost(res, "fs_table_full", lost.fs_table_full);
	family_add_lost(res, "call_site_unread", lost.call_site_unread);
	family_add_lost(res, "unattributed_return_hook", lost.unattributed_return_hook);
	family_add_lost(res, "unattributed_call_site", lost.unattributed_call_site);
	return 0;
}

/* Adapters from the typed skeleton API to the table below. */
#define SKEL_GLUE(x)                                                                   \
	static void *x##_open(void) { return x##_bpf__open(); }                            \
	static struct bpf_object *x##_object(void *s) { return ((struct x##_bpf *)s)->obj; } \
	static int x##_load(void *s) { return x##_bpf__load(s); }                          \
	static int x##_attach(void *s) { return x##_bpf__attach(s); }                      \
	static void x##_destroy(void *s) { x##_bpf__destroy(s); }                          \
	static struct bpf_map *x##_tracked(void *s) { return ((struct x##_bpf *)s)->maps.tracked; } \
	static struct bpf_object_skeleton *x##_skeleton(void *s) { return ((struct x##_bpf *)s)->skeleton; } \
	static struct bpf_map *x##_cgroup_wanted(void *s)                                  \
	{ return ((struct x##_bpf *)s)->maps.cgroup_wanted; }                               \
	static __u64 x##_tracked_full(void *s) { return ((struct x##_bpf *)s)->bss->tracked_full; } \
	static struct bpf_map *x##_samples(void *s) { return ((struct x##_bpf *)s)->maps.samples; } \
	static void x##_emit_samples(void *s) { ((struct x##_bpf *)s)->rodata->emit_samples = true; } \
	static const __u64 *x##_samples_unsent(void *s) { return ((struct x##_bpf *)s)->bss->samples_unsent; }
/* The families with one per-CPU stats entry, read generically. */
#define STATS_GLUE(x) \
	static struct bpf_map *x##_stats(void *s) { return ((struct x##_bpf *)s)->maps.stats; }

SKEL_GLUE(access)
SKEL_GLUE(exec)
SKEL_GLUE(lookup)
STATS_GLUE(access)
STATS_GLUE(exec)

#define OPS(x, ...) {                                                    \
	.open = x##_open, .object = x##_object, .configure = x##_configure,   \
	.load = x##_load, .attach = x##_attach, .destroy = x##_destroy,       \
	.tracked = x##_tracked, .skeleton = x##_skeleton,                      \
	.cgroup_wanted = x##_cgroup_wanted, .tracked_full = x##_tracked_full,   \
	.samples = x##_samples, .emit_samples = x##_emit_samples,               \
	.samples_unsent = x##_samples_unsent,                                  \
	__VA_ARGS__                                                            \
}

/* The modes each family can attach in are the schema's. */
static const struct family_ops family_ops[FAMILY_COUNT] = {
	[FAMILY_LOOKUP] = OPS(lookup, .collect = lookup_collect, .after_attach = lookup_after_attach),
	[FAMILY_ACCESS] = OPS(access, .stats = access_stats),
	[FAMILY_EXEC] = OPS(exec, .stats = exec_stats),
};

/* ---- mode selection ------------------------------------------------------- */

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Program names carry their mode: fentry_/fexit_, kprobe_/kretprobe_, tp_.
 * Unprefixed programs (syscall tracepoints) run in every mode; track_ ones
 * only when a process filter needs them.
 */
static bool mode_wanted(const char *name, enum attach_mode m, bool filter_tasks)
{
	if (has_prefix(name, "fentry_") || has_prefix(name, "fexit_"))
		return m == MODE_FENTRY;
	if (has_prefix(name, "kprobe_") || has_prefix(name, "kretprobe_"))
		return m == MODE_KPROBE;
	if (has_prefix(name, "tp_"))
		return m == MODE_TRACEPOINT;
	if (has_prefix(name, "track_"))
		return filter_tasks;
	return true;
}

#define RDONLY_CAST_SUFFIX "_rdonly_cast"

/* Does the running kernel have the kfunc bpf_rdonly_cast() (6.2 and later)? */
static bool kernel_has_rdonly_cast(void)
{
	static int has = -1;
	struct btf *btf;

	if (has < 0) {
		btf = btf__load_vmlinux_btf();
		has = btf && btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
		btf__free(btf);
	}
	return has;
}

/*
 * A program named NAME_rdonly_cast reads kernel memory through the kfunc
 * bpf_rdonly_cast() (bpf/lookup.bpf.c); its twin NAME does the same with
 * probe reads.  Exactly one of the two loads: the first where the kernel
 * has the kfunc, the twin elsewhere.
 */
static bool twin_wanted(struct bpf_object *obj, const char *name)
{
	char with_cast[128];

	if (strlen(name) > strlen(RDONLY_CAST_SUFFIX) &&
	    !strcmp(name + strlen(name) - strlen(RDONLY_CAST_SUFFIX), RDONLY_CAST_SUFFIX))
		return kernel_has_rdonly_cast();
	snprintf(with_cast, sizeof(with_cast), "%s%s", name, RDONLY_CAST_SUFFIX);
	return !bpf_object__find_program_by_name(obj, with_cast) || !kernel_has_rdonly_cast();
}

/*
 * The empty programs (bpf/lookup.bpf.c) replace all the others, but for
 * the process filter's, only for the overhead measurement of
 * tests/vm/overhead (PERMSCOPE_EMPTY_PROGRAMS).
 */
static bool program_wanted(struct bpf_object *obj, const char *name, enum attach_mode m,
			   bool filter_tasks)
{
	static int empty = -1;

	if (empty < 0)
		empty = getenv("PERMSCOPE_EMPTY_PROGRAMS") != NULL;
	if (has_prefix(name, "empty_"))
		return empty && mode_wanted(name + 6, m, filter_tasks);
	if (empty && !has_prefix(name, "track_"))
		return false;
	return mode_wanted(name, m, filter_tasks) && twin_wanted(obj, name);
}

/*
 * Tracepoint mode opens each call's window on the syscall tracepoints: a
 * kernel built without CONFIG_FTRACE_SYSCALLS has none, which tracefs
 * shows (events/syscalls missing) when it is mounted at all.
 */
static const char *tracepoint_hint(void)
{
	static const char *const tracefs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[64];

	for (size_t i = 0; i < sizeof(tracefs) / sizeof(tracefs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs[i]);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/events/syscalls", tracefs[i]);
		if (access(path, F_OK))
			return "this kernel has no syscall tracepoints (built without "
			       "CONFIG_FTRACE_SYSCALLS)";
		return "attach point not found: run with -v for details";
	}
	return "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)";
}

static const char *mode_hint(enum attach_mode m, int err)
{
	switch (err) {
	case EPERM:
		if (geteuid() != 0)
			return "run as root: loading BPF needs CAP_BPF and CAP_PERFMON";
		return m == MODE_FENTRY ? "this kernel refuses BPF trampolines (fentry/fexit)"
					: "the kernel refused the program: run with -v";
	case EACCES:
		return "the verifier rejected the program: run with -v for its log";
	case ENOENT:
	case ESRCH:
		if (m == MODE_KPROBE && access("/sys/bus/event_source/devices/kprobe", F_OK))
			return "kprobes are not available here: no kprobe PMU, no kprobe_events";
		if (m == MODE_FENTRY)
			return "function not found in kernel BTF: inlined or renamed here";
		if (m == MODE_TRACEPOINT)
			return tracepoint_hint();
		return "attach point not found: run with -v for details";
	case EOPNOTSUPP:
	case 524: /* ENOTSUPP, kernel-internal */
		return m == MODE_FENTRY ? "BPF trampolines are not supported by this kernel"
					: "not supported by this kernel";
	case EINVAL:
		return "the kernel rejected the program or its attach point: run with -v";
	default:
		return "run with -v for libbpf's log";
	}
}

/* "prog 'fentry_x': failed ..." in libbpf's last warning: the program's name. */
static void failing_program(char *buf, size_t len)
{
	const char *p = strstr(last_libbpf_warning, "prog '"), *q;

	buf[0] = 0;
	if (p && (q = strchr(p + 6, '\'')))
		snprintf(buf, len, " %.*s", (int)(q - p - 6), p + 6);
}

/*
 * --cgroup: the directory's fd into the loaded object's cgroup_wanted[0],
 * before anything attaches.  The map keeps its own reference to the
 * cgroup, so the fd is closed at once.  The kernel refuses an fd that is
 * no cgroup with EBADF.
 */
static int set_cgroup(struct bpf_map *map, const char *path, char *why, size_t len)
{
	__u32 key = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "load: cannot open --cgroup %s: %s", path, strerror(-err));
		return err;
	}
	if (bpf_map__update_elem(map, &key, sizeof(key), &fd, sizeof(fd), BPF_ANY)) {
		err = -errno;
		snprintf(why, len, "load: cannot set the cgroup filter to %s: %s%s", path,
			 strerrorname_np(-err) ? strerrorname_np(-err) : strerror(-err),
			 err == -EBADF ? " (the kernel says it is no cgroup)" : "");
	}
	close(fd);
	return err;
}

/* Set when root was refused a trampoline program: the kernel refuses them all. */
static bool fentry_refused;

/*
 * A mode this kernel refuses to every family, known without loading an
 * object (each load parses the kernel's BTF and runs the verifier, about
 * a tenth of a second): no kprobes at all, or trampolines refused (EPERM)
 * to a family before.  0 when the mode is worth a try.
 */
static int refused_everywhere(enum attach_mode m)
{
	if (m == MODE_KPROBE && access("/sys/bus/event_source/devices/kprobe", F_OK) &&
	    access("/sys/kernel/tracing/kprobe_events", F_OK) &&
	    access("/sys/kernel/debug/tracing/kprobe_events", F_OK))
		return ENOENT;
	if (m == MODE_FENTRY && __atomic_load_n(&fentry_refused, __ATOMIC_RELAXED))
		return EPERM;
	return 0;
}

static void *try_mode(const struct family_ops *ops, const struct probe_opts *o,
		      enum attach_mode m, struct attach_attempt *t)
{
	struct bpf_program *prog;
	const char *stage = "open";
	char prog_name[80];
	void *skel;
	int err;

	t->mode = m;
	last_libbpf_warning[0] = 0;
	err = refused_everywhere(m);
	if (err) {
		snprintf(t->why, sizeof(t->why), "%s; %s", strerrorname_np(err), mode_hint(m, err));
		t->err = err;
		return NULL;
	}
	skel = ops->open();
	if (!skel) {
		err = errno ? errno : EINVAL;
		goto fail;
	}
	err = -ops->configure(skel, o, m, t->why, sizeof(t->why));
	if (err)
		goto fail_why;
	/* Otherwise the ring keeps its one page and the verifier drops the sending. */
	if (o->samples) {
		ops->emit_samples(skel);
		bpf_map__set_max_entries(ops->samples(skel), SAMPLE_RING_BYTES);
	}
	bpf_object__for_each_program(prog, ops->object(skel))
		bpf_program__set_autoload(prog, program_wanted(ops->object(skel),
							       bpf_program__name(prog), m,
							       o->filter_tasks));
	/* For the test that fills it: a table of 8192 processes takes 8192 to fill. */
	if (getenv("PERMSCOPE_TRACKED_ENTRIES"))
		bpf_map__set_max_entries(ops->tracked(skel), atoi(getenv("PERMSCOPE_TRACKED_ENTRIES")));
	stage = "load";
	err = -ops->load(skel);
	if (err)
		goto fail;
	/* The filter knows its processes before any program can see them. */
	for (int i = 0; i < o->ntrack; i++) {
		__u32 key = o->track[i];
		__u8 one = 1;

		err = -bpf_map__update_elem(ops->tracked(skel), &key, sizeof(key), &one,
					    sizeof(one), BPF_ANY);
		if (err) {
			snprintf(t->why, sizeof(t->why), "load: cannot set the process filter: %s",
				 strerror(err));
			goto fail_why;
		}
	}
	if (o->cgroup && (err = -set_cgroup(ops->cgroup_wanted(skel), o->cgroup, t->why,
					      sizeof(t->why))))
		goto fail_why;
	stage = "attach";
	err = -ops->attach(skel);
	if (err)
		goto fail;
	if (ops->after_attach && (err = -ops->after_attach(skel, t->why, sizeof(t->why))))
		goto fail_why;
	return skel;
fail:
	if (m == MODE_FENTRY && err == EPERM && !strcmp(stage, "load") && geteuid() == 0)
		__atomic_store_n(&fentry_refused, true, __ATOMIC_RELAXED);
	failing_program(prog_name, sizeof(prog_name));
	snprintf(t->why, sizeof(t->why), "%s%s: %s; %s", stage, prog_name,
		 strerrorname_np(err) ? strerrorname_np(err) : strerror(err), mode_hint(m, err));
fail_why:
	t->err = err;
	if (skel)
		ops->destroy(skel);
	return NULL;
}

static int sample_received(void *ctx, void *data, size_t size)
{
	const struct sample_sink *sink = ctx;

	if (size >= sizeof(struct ps_sample))
		sink->sample(sink->ctx, data);
	return 0;
}

/* The family's ring of violation samples, read at each collect. */
static int start_samples(struct family *fam, const struct sample_sink *sink,
			 struct family_result *res)
{
	struct attach_attempt *t;
	int err;

	fam->sink = sink;
	fam->rb = ring_buffer__new(bpf_map__fd(fam->ops->samples(fam->skel)), sample_received,
				   (void *)sink, NULL);
	if (fam->rb)
		return 0;
	err = errno ? errno : EINVAL;
	res->status = FAMILY_UNAVAILABLE;
	if (res->nattempts < MAX_ATTEMPTS) {
		t = &res->attempts[res->nattempts++];
		t->mode = res->mode;
		t->err = err;
		snprintf(t->why, sizeof(t->why), "samples: cannot map the ring buffer: %s",
			 strerror(err));
	}
	return -err;
}

/* Hand the samples sent since the last read, and what was left out, to the sink. */
static void collect_samples(struct family *fam)
{
	const __u64 *unsent = fam->ops->samples_unsent(fam->skel);

	ring_buffer__consume(fam->rb);
	for (int k = 0; k < SAMPLE_KINDS; k++)
		if (unsent[k])
			fam->sink->unsent(fam->sink->ctx, k, unsent[k]);
}

struct family *family_start(enum family_id f, const struct probe_opts *o,
			    struct family_result *res)
{
	const struct family_ops *ops = &family_ops[f];
	struct family *fam;
	void *skel = NULL;

	memset(res, 0, sizeof(*res));
	for (enum attach_mode m = MODE_FENTRY; m < MODE_COUNT && !skel; m++) {
		struct attach_attempt *t;

		if (o->only_mode != MODE_NONE && m != o->only_mode)
			continue;
		t = &res->attempts[res->nattempts++];
		if (!(schema[f].modes & BIT(m))) {
			t->mode = m;
			t->err = EOPNOTSUPP;
			snprintf(t->why, sizeof(t->why), "no %s hook exists for this family%s",
				 mode_name(m), f == FAMILY_LOOKUP ?
				 " (no tracepoint on security_inode_permission)" : "");
			continue;
		}
		skel = try_mode(ops, o, m, t);
		if (skel) {
			res->nattempts--; /* only failures are kept */
			memset(t, 0, sizeof(*t));
			res->mode = m;
		}
	}
	res->status = skel ? FAMILY_OK : FAMILY_UNAVAILABLE;
	if (!skel)
		return NULL;
	fam = calloc(1, sizeof(*fam));
	if (!fam) {
		ops->destroy(skel);
		res->status = FAMILY_UNAVAILABLE;
		return NULL;
	}
	fam->id = f;
	fam->ops = ops;
	fam->skel = skel;
	fam->follows_forks = o->filter_tasks;
	if (o->samples && start_samples(fam, o->samples, res)) {
		family_stop(fam);
		return NULL;
	}
	return fam;
}

/*
 * Every loaded program's misses: the kernel skips a program, and counts it
 * in recursion_misses, when the same program is already running on that CPU
 * (a trampoline program preempted on a preemptible kernel) or another BPF
 * program is (kprobes).
 */
static int programs_lost(struct family *fam, struct family_result *res)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, fam->ops->object(fam->skel)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || !bpf_program__autoload(prog))
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		family_add_lost(res, bpf_program__name(prog), info.recursion_misses);
	}
	return 0;
}

int family_collect(struct family *fam, struct profile *p)
{
	struct family_result *res = &p->fam[fam->id];
	void *stats;
	__u32 zero = 0;
	int err;

	res->nlost = 0;
	res->lost_known = true;
	if ((err = programs_lost(fam, res)))
		return err;
	if (fam->follows_forks)
		family_add_lost(res, "tracked_full", fam->ops->tracked_full(fam->skel));
	if (fam->rb)
		collect_samples(fam);
	if (fam->ops->collect)
		return fam->ops->collect(fam->skel, p);
	stats = profile_stats(p, fam->id, 0);
	memset(stats, 0, schema[fam->id].stats_size);
	err = percpu_sum(fam->ops->stats(fam->skel), &zero, stats, schema[fam->id].stats_size);
	schema_settle(&schema[fam->id], stats);
	/* access and exec count a call they could not follow as `drops`. */
	if (!err && schema_row_index(fam->id, "drops") >= 0)
		family_add_lost(res, "no_task_storage", (__u64)schema_value(&schema[fam->id],
				schema_row_index(fam->id, "drops"), stats));
	return err;
}

static void *destroy_link(void *arg)
{
	struct bpf_link **link = arg;

	bpf_link__destroy(*link);
	*link = NULL;
	return NULL;
}

/*
 * Detach every program at once.  Each tracepoint link waits out RCU grace
 * periods as it goes (~60 ms on our machines), so one after the other the
 * two families took 0.8 s to let go; waits that overlap share their grace
 * periods, which keeps a SIGTERM'ed daemon's exit well under a second.
 */
static void detach_all(struct bpf_object_skeleton *s)
{
	pthread_t threads[64];
	int n = 0;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_link **link = s->progs[i].link;

		if (!link || !*link)
			continue;
		if (n == 64 || pthread_create(&threads[n], NULL, destroy_link, link))
			destroy_link(link); /* one at a time still detaches */
		else
			n++;
	}
	while (n--)
		pthread_join(threads[n], NULL);
}

void family_stop(struct family *fam)
{
	if (!fam)
		return;
	detach_all(fam->ops->skeleton(fam->skel));
	ring_buffer__free(fam->rb);
	fam->ops->destroy(fam->skel);
	free(fam);
}
