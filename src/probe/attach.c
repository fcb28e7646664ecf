// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The attach engine behind src/probe/attach.h, the same for every family: the
 * attach modes, which programs each mode loads, the order the modes are
 * tried in and why one failed; the process and cgroup filters' tables, the
 * samples' ring, the losses; whether this process may load BPF,
 * and libbpf's messages.  What is particular to a family is its glue
 * (src/probe/family_<name>.c, through struct family_ops in src/probe/family_ops.h).
 */
#include "probe/attach.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe/family.h"
#include "probe/family_ops.h"
#include "kernel/preempt.h"
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

/* ---- the families -------------------------------------------------------- */


#define BIT(m) (1U << (m))

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

/* Each family's glue; the modes it can attach in are the schema's. */
static const struct family_ops *const family_ops[FAMILY_COUNT] = {
#define FAMILY_OPS_ROW(id, name, place) [FAMILY_##id] = &name##_ops,
	PERMSCOPE_FAMILIES(FAMILY_OPS_ROW)
#undef FAMILY_OPS_ROW
};
/* A new family needs its row above too: family_start() refuses a missing one. */

/* ---- mode selection ------------------------------------------------------- */

/*
 * Program names carry their mode: fentry_/fexit_, kprobe_/kretprobe_, tp_.
 * Unprefixed programs (syscall tracepoints) run in every mode; track_ ones
 * only when a process filter needs them, and the fork follower in kprobe
 * mode as a kprobe (track_kprobe_fork), elsewhere as a raw tracepoint
 * (track_fork): bpf/filter.bpf.h says why.
 */
static bool mode_wanted(const char *name, enum attach_mode m, bool filter_tasks)
{
	if (has_prefix(name, "track_kprobe_"))
		return filter_tasks && m == MODE_KPROBE;
	if (!strcmp(name, "track_fork"))
		return filter_tasks && m != MODE_KPROBE;
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

/* Is program `name` one that --lean leaves out: one of lean_programs or its twin? */
static bool lean_left_out(const struct family_ops *ops, const char *name)
{
	for (const char *const *l = ops->lean_programs; l && *l; l++)
		if (!strcmp(name, *l) ||
		    (has_prefix(name, *l) && !strcmp(name + strlen(*l), RDONLY_CAST_SUFFIX)))
			return true;
	return false;
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
							       o->filter_tasks) &&
					  !(o->lean && lean_left_out(ops, bpf_program__name(prog))));
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

/* "preemption lazy, from /sys/kernel/debug/sched/preempt" */
static void preemption_text(char *buf, size_t len)
{
	const struct preemption *p = preemption_running();

	snprintf(buf, len, "preemption %s, from %s", preempt_model_name(p->model), p->source);
}

int families_mode_order(enum attach_mode order[MODE_COUNT], char *why, size_t len)
{
	const struct preemption *p = preemption_running();
	bool preempts = preempt_model_preempts_bpf(p->model);
	char facts[256];
	int n = 0;

	order[n++] = preempts ? MODE_KPROBE : MODE_FENTRY;
	order[n++] = preempts ? MODE_FENTRY : MODE_KPROBE;
	order[n++] = MODE_TRACEPOINT;
	if (!why)
		return n;
	preemption_text(facts, sizeof(facts));
	if (p->model == PREEMPT_MODEL_UNKNOWN)
		snprintf(why, len, "preemption model unknown (%s): kprobe first, as where BPF "
			 "programs can be preempted and fentry would lose events under load",
			 p->source);
	else if (preempts)
		snprintf(why, len, "kernel preemptible in BPF programs (%s): kprobe first, "
			 "fentry would lose events under load", facts);
	else
		snprintf(why, len, "kernel not preemptible in BPF programs (%s): fentry first, "
			 "exact and the cheapest", facts);
	return n;
}

/*
 * A mode forced where it can lose events to preemption: say so once.  A
 * trampoline program preempted mid-run makes its CPU skip the program;
 * on 7.x tracepoint programs lose events under load too (measured on 7.2,
 * exact on 6.1 and 6.12: docs/kernels.md).
 */
static void warn_forced_mode(enum attach_mode m)
{
	static bool warned;
	const struct preemption *p = preemption_running();
	char facts[256];

	if (!preempt_model_preempts_bpf(p->model) ||
	    !(m == MODE_FENTRY || (m == MODE_TRACEPOINT && p->kernel_major >= 7)) ||
	    __atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		return;
	preemption_text(facts, sizeof(facts));
	pr_warn("--mode %s on a kernel preemptible in BPF programs (%s): while one task is "
		"preempted inside a program, the calls of every other task on its CPU go "
		"uncounted (reported as LOST); without --mode, kprobe counts every call",
		mode_name(m), facts);
}

struct family *family_start(enum family_id f, const struct probe_opts *o,
			    struct family_result *res)
{
	const struct family_ops *ops = family_ops[f];
	enum attach_mode order[MODE_COUNT];
	struct family *fam;
	void *skel = NULL;
	int norder;

	if (!ops) {
		pr_err("BUG: family %s has no glue in family_ops[] (src/probe/attach.c)", family_name(f));
		abort();
	}
	memset(res, 0, sizeof(*res));
	if (o->only_mode != MODE_NONE) {
		order[0] = o->only_mode;
		norder = 1;
		warn_forced_mode(o->only_mode);
	} else {
		norder = families_mode_order(order, NULL, 0);
	}
	for (int i = 0; i < norder && !skel; i++) {
		enum attach_mode m = order[i];
		struct attach_attempt *t;

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
	fam->lean = o->lean;
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

int family_program_runs(struct family *fam, struct program_runs *out, int max)
{
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, fam->ops->object(fam->skel)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || !bpf_program__autoload(prog) || n == max)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		copy_truncated(out[n].program, bpf_program__name(prog), sizeof(out[n].program));
		out[n].family = fam->id;
		out[n].run_count = info.run_cnt;
		out[n++].run_time_ns = info.run_time_ns;
	}
	return n;
}

int family_collect(struct family *fam, struct profile *p)
{
	const struct family_schema *fs = &schema[fam->id];
	struct family_result *res = &p->fam[fam->id];
	void *stats;
	__u32 zero = 0;
	int err;

	res->nlost = 0;
	res->lost_known = true;
	/* What --lean leaves out is not known, not 0: its rows, and its latency. */
	if (fam->lean) {
		p->absent[fam->id] |= fs->lean_absent;
		res->lean = true;
		res->no_latency = schema_has_latency(fs);
	}
	if ((err = programs_lost(fam, res)))
		return err;
	if (fam->follows_forks)
		family_add_lost(res, "tracked_full", fam->ops->tracked_full(fam->skel));
	if (fam->rb)
		collect_samples(fam);
	if (fam->ops->collect) {
		err = fam->ops->collect(fam->skel, p);
	} else {
		stats = profile_stats(p, fam->id, 0);
		memset(stats, 0, fs->stats_size);
		err = percpu_sum(fam->ops->stats(fam->skel), &zero, stats, fs->stats_size);
		schema_settle(fs, stats, !(fam->lean && res->no_latency));
	}
	/* What the programs leave out to save instructions (filled rows). */
	for (size_t i = 0; !err && i < profile_nstats(p, fam->id); i++)
		schema_fill(fs, profile_stats(p, fam->id, i));
	/* A call the family could not follow (no task storage) is a loss. */
	if (!err && fs->drops != NO_ROW)
		family_add_lost(res, "no_task_storage", profile_count(p, fam->id, fs->drops));
	return err;
}
