// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lookup family: MAY_EXEC permission checks on directories, per filesystem.
 *
 * security_inode_permission() (SIP) is called by inode_permission() (IP) on
 * every kernel; lookup's fast path (the merged MAY_EXEC change) calls it
 * directly.  Which of the two made a SIP call is read from the call itself,
 * and only positive evidence counts: SIP's return address lies inside IP (a
 * plain call), or follows a `call inode_permission` (IP tail-called SIP, as
 * on every kernel checked, 6.1 to 7.2: IP's frame is gone and the address
 * is IP's caller's), or follows a `call security_inode_permission` (the
 * fast path: a skip).  The call instruction names its target (x86's
 * rel32, arm64's bl imm26).  Anything else is *unattributed*, counted per
 * reason, never a skip.  What an address means is bpf/callsite.h's (a
 * pure classifier, each architecture's instructions in
 * bpf/callsite_ARCH.h, tested on every call site of the pinned kernels);
 * reading it, the hooks undone and the per-CPU cache are bpf/callsite.bpf.h.
 *
 * Another tracer can stand in that return slot (docs/kernels.md, "Other
 * tracers"): a kretprobe on IP or SIP puts its trampoline's address there
 * and keeps the real one in the task's rethook list (recovered); an fexit
 * program on IP calls IP's body from its BPF trampoline, whose frame holds
 * IP's real return address (recovered); a function-graph return hook keeps
 * it in the task's ret_stack (not recovered: unattributed).
 *
 * So nothing is paired between programs: no depth counter that a missed
 * program or an attach in mid-call puts out of step for good, and no state
 * per task at all when every process is counted.  Each check stands alone.
 * User space checks the return slot's place (calibrate) once, after attach,
 * with one access("/", X_OK) of its own, a known IP -> SIP call.
 *
 * The IP program counts the IP calls for directories (what the SIP calls
 * made by IP fall short of returned before SIP: refused, or -ECHILD from an
 * RCU walk that is retried; no_lsm_check, which is no count of denials) and
 * the first check of an inode, during which the kernel sets IOP_FASTPERM.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "permscope.h"
#include "filter.bpf.h"
#include "predicates.h"
#include "sample.bpf.h"
#include "callsite.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load, from the clocks (the call sites' in callsite.bpf.h). */
const volatile __u64 realtime_offset_ns = 0;    /* CLOCK_REALTIME - CLOCK_MONOTONIC */

/*
 * bench_stop (bpf/filter.bpf.h): a SIP check stops after step 1 (the
 * per-CPU value), 2 (the call site) or 3 (the filesystem's counters).
 */

/* A skip of an ineligible directory whose ctime is this recent is "racing". */
#define RACE_WINDOW_S 2

/*
 * Calibration: user space sets calib_tid to its own thread and calls
 * access("/", X_OK) until ret_off >= 0.  Until then nothing is counted.
 * A kprobe's frame is SIP's entry stack pointer: the slot is at 0 (on
 * arm64 the address is in x30 and nothing is looked for: the check only
 * proves that the known call resolves).  A
 * fentry program's frame is its context, the arguments its trampoline
 * saved; the slot lies above the trampoline's own return address into SIP
 * (the anchor), and moves when another program on SIP changes the
 * trampoline's layout (an fexit adds a slot for the return value): each
 * check finds the anchor again where it no longer is.
 */
__u32 calib_tid;
__s32 calib_site = -1; /* what the calibration check resolved to, for user space's message */

/* Process filter verdict per thread (--pid, -- CMD), decided once. */
struct task_verdict {
	__u8 counted; /* 0 not decided yet, 1 counted, 2 not */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_verdict);
} verdicts SEC(".maps");

/* Per CPU, everything in one value (bpf/permscope.h): one array lookup a check. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lookup_cpu);
} percpu SEC(".maps");

static __always_inline struct lookup_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&percpu, &zero);
}

/* Filesystem names, read once when a type is first seen: no per-event strings. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct lookup_fs_name);
} fs_names SEC(".maps");

/*
 * Is this thread counted?  Not while the family is paused (`observing`,
 * bpf/filter.bpf.h); then the filters of task_wanted(),
 * in its order, but the process filter is asked once per thread and the
 * answer kept (user space and the fork follower fill `tracked` before a
 * thread runs): a task-storage lookup instead of a hash lookup.  With no
 * filter nothing is looked up.
 */
static __always_inline bool counted(struct lookup_cpu *cpu)
{
	struct task_verdict *v;

	if (!observing)
		return false;
	if (filter_cgroup && !in_cgroup())
		return false;
	if (filter_tasks) {
		v = bpf_task_storage_get(&verdicts, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!v) {
			cpu->lost.no_task_storage++;
			return false;
		}
		if (!v->counted)
			v->counted = task_tracked(bpf_get_current_pid_tgid()) ? 1 : 2;
		if (v->counted != 1)
			return false;
	}
	if (filter_comm && !comm_matches())
		return false;
	return true;
}

/*
 * fs_type's counters on this CPU, claiming a free slot the first time.
 * The slot comes from a hash of the superblock's magic, a plain number (the
 * verifier allows no arithmetic on the s_type pointer, only a compare); the
 * key stays the s_type address, so rootfs and tmpfs (one magic) stay apart.
 */
static __always_inline struct lookup_stats *fs_stats(struct lookup_cpu *cpu, __u64 fs_type,
						      __u64 magic, const struct inode *inode)
{
	__u32 h = (__u32)(magic * 0x9E3779B97F4A7C15ULL >> 58);
	struct lookup_fs_name n = {};
	struct lookup_fs_slot *e;

	for (int i = 0; i < 4; i++) {
		e = &cpu->fs[(h + i) & (LOOKUP_FS_SLOTS - 1)];
		if (e->fs_type == fs_type)
			return &e->s;
		if (e->fs_type)
			continue;
		/* This CPU's copy, written by one program run at a time. */
		e->fs_type = fs_type;
		if (!bpf_map_lookup_elem(&fs_names, &fs_type)) {
			bpf_probe_read_kernel_str(n.name, sizeof(n.name),
						  BPF_CORE_READ(inode, i_sb, s_type, name));
			bpf_map_update_elem(&fs_names, &fs_type, &n, BPF_NOEXIST);
		}
		return &e->s;
	}
	cpu->lost.fs_table_full++;
	return NULL;
}

/* ctime seconds under every layout: i_ctime (<6.6), __i_ctime (6.6-6.10), i_ctime_sec. */
struct inode___ctime_old {
	struct timespec64 i_ctime;
} __attribute__((preserve_access_index));
struct inode___ctime_66 {
	struct timespec64 __i_ctime;
} __attribute__((preserve_access_index));

static __always_inline __s64 ctime_sec(const struct inode *inode)
{
	if (bpf_core_field_exists(inode->i_ctime_sec))
		return BPF_CORE_READ(inode, i_ctime_sec);
	if (bpf_core_field_exists(((struct inode___ctime_66 *)inode)->__i_ctime))
		return BPF_CORE_READ((struct inode___ctime_66 *)inode, __i_ctime.tv_sec);
	return BPF_CORE_READ((struct inode___ctime_old *)inode, i_ctime.tv_sec);
}

/*
 * A direct SIP call on an ineligible directory is a violation, unless the
 * inode changed (chmod, setfacl: its ctime) so recently that the kernel may
 * have decided on the state before: racing, not judged.
 */
static __always_inline bool racing(const struct inode *inode)
{
	/* bpf_ktime_get_coarse_ns() is refused to kprobe programs; this path is rare. */
	__s64 now = (bpf_ktime_get_ns() + realtime_offset_ns) / 1000000000ULL;

	return ctime_sec(inode) >= now - RACE_WINDOW_S;
}

struct check {
	const struct inode *inode;
	__u64 fs_type;
	__u64 magic;          /* the superblock's s_magic */
	const void *frame;    /* the program's frame: where ret_off counts from */
	__u64 fp;             /* the frame pointer at SIP's entry where the program has it (kprobe), else 0 */
	__u64 lr;             /* the return address where a register holds it (arm64's kprobe), else 0 */
	int mask;
	struct dir_view d;    /* the inode as SIP sees it */
};

/*
 * A violation, for verify: the directory and where it lives.  Out of
 * line, and only a violation calls it.  Only the inode is passed, which
 * the check holds in a register anyway: passing the mask, the reason or
 * the fields read kept them alive, and the compiler reshuffled registers
 * on every check.  So the inode is read again here, by probe reads
 * whatever pointer the program has, and judged again by the same
 * predicate; racing() has just said it did not change for two seconds.
 */
static __noinline int sample_ineligible_skip(__u64 inode_addr)
{
	struct ps_sample *s = sample_reserve(SAMPLE_LOOKUP_INELIGIBLE_SKIP);
	const struct inode *inode = (const struct inode *)inode_addr;

	if (!s)
		return 0;
	s->lookup.d.mode = BPF_CORE_READ(inode, i_mode);
	s->lookup.d.opflags = BPF_CORE_READ(inode, i_opflags);
	if (bpf_core_field_exists(inode->i_acl))
		s->lookup.d.acl = (__u64)BPF_CORE_READ(inode, i_acl);
	s->lookup.reason = lookup_eligibility(&s->lookup.d);
	s->lookup.ino = BPF_CORE_READ(inode, i_ino);
	s->lookup.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	bpf_probe_read_kernel_str(s->lookup.fs, sizeof(s->lookup.fs),
				  BPF_CORE_READ(inode, i_sb, s_type, name));
	bpf_ringbuf_submit(s, 0);
	return 0;
}

static __always_inline void sip_check(struct lookup_cpu *cpu, struct check *c, bool direct_load,
				      bool tramp)
{
	struct lookup_stats *s;
	enum lookup_reason why;
	enum lookup_origin o;
	enum lookup_site site;
	bool direct;

	if (bench_stop == 1)
		return;
	site = call_site(cpu, c->frame, direct_load, tramp, c->fp, c->lr);
	/* neither proven skipped nor proven full: counted apart, never judged */
	switch (site) {
	case SITE_IP_WALK:
	case SITE_IP_OTHER:
	case SITE_DIRECT_WALK:
	case SITE_DIRECT_OTHER:
		break;
	case SITE_HOOKED:
		cpu->lost.unattributed_return_hook++;
		return;
	case SITE_FOREIGN:
		cpu->lost.unattributed_call_site++;
		return;
	default:
		cpu->lost.call_site_unread++;
		return;
	}
	if (bench_stop == 2)
		return;
	s = fs_stats(cpu, c->fs_type, c->magic, c->inode);
	if (!s || bench_stop == 3)
		return;
	direct = site == SITE_DIRECT_WALK || site == SITE_DIRECT_OTHER;
	why = lookup_eligibility(&c->d);
	o = lookup_origin(c->mask, site == SITE_IP_OTHER || site == SITE_DIRECT_OTHER);
	/* checks and nested are sums user space makes: not counted here */
	if (o < LOOKUP_ORIGINS)
		s->origin[o]++;
	if (why == LOOKUP_ELIGIBLE) {
		s->would_skip++;
		if (o == LOOKUP_ORIGIN_WALK)
			s->walk_would_skip++;
	} else if (why < LOOKUP_REASONS) {
		s->ineligible[why]++;
	}
	/*
	 * 0x80 is the v2 precomputed "skippable" bit, and in the merged change a
	 * filesystem's opt-in (IOP_FASTPERM_MAY_EXEC) that btrfs sets on every
	 * directory: counted, not judged.
	 */
	if (c->d.opflags & PS_IOP_FASTPERM_MAY_EXEC)
		s->may_exec_opt_in++;
	if (!direct)
		return;
	s->did_skip++;
	/* A skipped full check of an ineligible directory is never safe. */
	if (why != LOOKUP_ELIGIBLE) {
		if (racing(c->inode)) {
			s->racing++;
		} else {
			s->violations++;
			if (emit_samples)
				sample_ineligible_skip((__u64)c->inode);
		}
	}
}

/*
 * The calibration access("/", X_OK) of user space: the return slot's place
 * (a kprobe's at its frame, a fentry program's above the anchor), checked
 * by what the known IP -> SIP call resolves to.  Another tracer's return
 * hook on IP may hide it (SITE_HOOKED): the place is known all the same.
 */
static __always_inline void calibrate(struct lookup_cpu *cpu, const void *frame, bool tramp,
				      __u64 fp, __u64 lr)
{
	__s32 off = 0;
	__u64 ret, key;
	enum lookup_site s;

	if (tramp) {
		off = find_slot(frame);
		if (off < 0)
			return;
		fp = saved_rbp(frame, off);
	}
	if (lr) {
		ret = callsite_strip(&syms, lr);
		key = fp;
	} else {
		ret = callsite_strip(&syms, read_word(frame + (off & 0xff), false));
		key = CALLSITE_RET_IN_LR ? fp : (__u64)frame + (off & 0xff);
	}
	s = ret ? resolve(cpu, ret, key, fp) : SITE_UNREAD;
	calib_site = s;
	if (s == SITE_IP_WALK || s == SITE_IP_OTHER || s == SITE_HOOKED)
		ret_off = off;
}

static __always_inline bool calibrating(void)
{
	return (__u32)bpf_get_current_pid_tgid() == calib_tid;
}

/* IP on a directory with MAY_EXEC: an IP call, and maybe an inode's first check. */
static __always_inline void ip_call(struct lookup_cpu *cpu, const struct inode *inode,
				    __u64 fs_type, __u64 magic, __u32 opflags, bool has_permission_op)
{
	struct lookup_stats *s = fs_stats(cpu, fs_type, magic, inode);

	if (!s)
		return;
	s->ip_calls++;
	/* do_inode_permission() sets IOP_FASTPERM now, once for the inode's life */
	if (!(opflags & (PS_IOP_FASTPERM | PS_IOP_FASTPERM_MAY_EXEC)) && !has_permission_op)
		s->first_check++;
}

/* ---- direct loads through BTF pointers ---------------------------------- */

static __always_inline __u64 acl_of(const struct inode *inode)
{
	if (bpf_core_field_exists(inode->i_acl))
		return (__u64)inode->i_acl;
	return 0;
}

/*
 * The programs' bodies, for an inode the verifier knows as a BTF pointer
 * (fentry's argument, or any address through bpf_rdonly_cast): its fields
 * are direct loads.  `frame` is where ret_off counts from: the fentry
 * program's context, the stack pointer at a kprobe.
 */
static __always_inline void ip_entry(struct inode *inode, int mask)
{
	struct lookup_cpu *cpu;

	if (!(mask & PS_MAY_EXEC) || !mode_is_dir(inode->i_mode) || ret_off < 0 ||
	    !(cpu = this_cpu()) || !counted(cpu))
		return;
	ip_call(cpu, inode, (__u64)inode->i_sb->s_type, inode->i_sb->s_magic, inode->i_opflags,
		inode->i_op->permission != NULL);
}

static __always_inline void sip_entry(const void *frame, __u64 fp, __u64 lr, struct inode *inode,
				      int mask, bool direct_load, bool tramp)
{
	struct lookup_cpu *cpu;
	struct check c;

	if (!(mask & PS_MAY_EXEC) || !mode_is_dir(inode->i_mode) || !(cpu = this_cpu()))
		return;
	if (ret_off < 0) {
		if (calibrating())
			calibrate(cpu, frame, tramp, fp, lr);
		return;
	}
	if (!counted(cpu))
		return;
	c.inode = inode;
	c.fs_type = (__u64)inode->i_sb->s_type;
	c.magic = inode->i_sb->s_magic;
	c.frame = frame;
	c.fp = fp;
	c.lr = lr;
	c.mask = mask;
	c.d.mode = inode->i_mode;
	c.d.opflags = inode->i_opflags;
	c.d.acl = acl_of(inode);
	sip_check(cpu, &c, direct_load, tramp);
}

/* ---- fentry: the arguments are BTF pointers ----------------------------- */

SEC("fentry/inode_permission")
int BPF_PROG(fentry_inode_permission, struct mnt_idmap *idmap, struct inode *inode, int mask)
{
	ip_entry(inode, mask);
	return 0;
}

SEC("fentry/security_inode_permission")
int BPF_PROG(fentry_security_inode_permission_rdonly_cast, struct inode *inode, int mask)
{
	sip_entry(ctx, 0, 0, inode, mask, true, true);
	return 0;
}

SEC("fentry/security_inode_permission")
int BPF_PROG(fentry_security_inode_permission, struct inode *inode, int mask)
{
	sip_entry(ctx, 0, 0, inode, mask, false, true);
	return 0;
}

/*
 * ---- kprobe: the frame is the entry sp; the inode a plain address, made a
 * BTF pointer by bpf_rdonly_cast where the kernel has it, else read field
 * by field with probe reads (6.1) ------------------------------------------
 */

static __always_inline struct inode *as_inode(const void *addr)
{
	return bpf_rdonly_cast(addr, bpf_core_type_id_kernel(struct inode));
}

SEC("kprobe/inode_permission")
int BPF_KPROBE(kprobe_inode_permission_rdonly_cast, struct mnt_idmap *idmap, struct inode *inode,
	       int mask)
{
	ip_entry(as_inode(inode), mask);
	return 0;
}

SEC("kprobe/security_inode_permission")
int BPF_KPROBE(kprobe_security_inode_permission_rdonly_cast, struct inode *inode, int mask)
{
	sip_entry((void *)PT_REGS_SP(ctx), PT_REGS_FP(ctx), kprobe_lr(ctx), as_inode(inode), mask,
		  true, false);
	return 0;
}

SEC("kprobe/inode_permission")
int BPF_KPROBE(kprobe_inode_permission, struct mnt_idmap *idmap, struct inode *inode, int mask)
{
	struct lookup_cpu *cpu;

	if (!(mask & PS_MAY_EXEC) || !mode_is_dir(BPF_CORE_READ(inode, i_mode)) || ret_off < 0 ||
	    !(cpu = this_cpu()) || !counted(cpu))
		return 0;
	ip_call(cpu, inode, (__u64)BPF_CORE_READ(inode, i_sb, s_type), BPF_CORE_READ(inode, i_sb, s_magic),
		BPF_CORE_READ(inode, i_opflags), BPF_CORE_READ(inode, i_op, permission) != NULL);
	return 0;
}

SEC("kprobe/security_inode_permission")
int BPF_KPROBE(kprobe_security_inode_permission, struct inode *inode, int mask)
{
	struct lookup_cpu *cpu;
	struct check c;

	if (!(mask & PS_MAY_EXEC))
		return 0;
	c.d.mode = BPF_CORE_READ(inode, i_mode);
	if (!mode_is_dir(c.d.mode))
		return 0;
	if (!(cpu = this_cpu()))
		return 0;
	if (ret_off < 0) {
		if (calibrating())
			calibrate(cpu, (void *)PT_REGS_SP(ctx), false, PT_REGS_FP(ctx), kprobe_lr(ctx));
		return 0;
	}
	if (!counted(cpu))
		return 0;
	c.inode = inode;
	c.fs_type = (__u64)BPF_CORE_READ(inode, i_sb, s_type);
	c.magic = BPF_CORE_READ(inode, i_sb, s_magic);
	c.frame = (void *)PT_REGS_SP(ctx);
	c.fp = PT_REGS_FP(ctx);
	c.lr = kprobe_lr(ctx);
	c.mask = mask;
	c.d.opflags = BPF_CORE_READ(inode, i_opflags);
	c.d.acl = 0;
	if (bpf_core_field_exists(inode->i_acl))
		c.d.acl = (__u64)BPF_CORE_READ(inode, i_acl);
	sip_check(cpu, &c, false, false);
	return 0;
}

/*
 * Empty programs on the same hook: the floor the lookup programs' cost is
 * measured against (tests/vm/overhead).  Loaded instead of the others only
 * when PERMSCOPE_EMPTY_PROGRAMS is set; they count nothing.
 */
SEC("fentry/security_inode_permission")
int BPF_PROG(empty_fentry_security_inode_permission)
{
	return 0;
}

SEC("kprobe/security_inode_permission")
int BPF_KPROBE(empty_kprobe_security_inode_permission)
{
	return 0;
}
