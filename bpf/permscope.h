/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Keys and values shared by the BPF programs and user space.
 *
 * Included from BPF code after vmlinux.h and from user space after
 * <linux/types.h>, so it uses only the __u* types both provide.
 */
#ifndef PERMSCOPE_H
#define PERMSCOPE_H

/*
 * Latency histograms: log2 buckets over nanoseconds.  Slot 0 holds [0, 2),
 * slot i (i >= 1) holds [2^i, 2^(i+1)); the last slot is open at the top.
 * This is the single definition of the bucket rule (see docs/profile-format.md).
 */
#define HIST_SLOTS 40

struct hist {
	__u64 slots[HIST_SLOTS];
	__u64 count;
	__u64 sum; /* ns */
};

static inline unsigned int hist_slot(__u64 v)
{
	unsigned int r = 0, shift;

	/* Branch-light floor(log2(v)), the same code in BPF and in tests. */
	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFFULL) << 4;     v >>= shift; r |= shift;
	shift = (v > 0xFFULL) << 3;       v >>= shift; r |= shift;
	shift = (v > 0xFULL) << 2;        v >>= shift; r |= shift;
	shift = (v > 0x3ULL) << 1;        v >>= shift; r |= shift;
	r |= (unsigned int)(v >> 1);
	return r < HIST_SLOTS ? r : HIST_SLOTS - 1;
}

static inline void hist_add(struct hist *h, __u64 v)
{
	/*
	 * hist_slot() clamps already, but the compiler then drops any check
	 * and older verifiers (6.1) lose the bound: a volatile copy keeps an
	 * explicit check on the very register used as the index.
	 */
	volatile unsigned int slot = hist_slot(v);
	unsigned int i = slot;

	if (i < HIST_SLOTS)
		h->slots[i]++;
	h->count++;
	h->sum += v;
}

/* ---- access family: faccessat cred override ---------------------------- */

enum access_outcome {
	ACCESS_NEEDED,    /* override needed and a cred was allocated */
	ACCESS_AVOIDABLE, /* not needed, allocated anyway: stock behaviour */
	ACCESS_FAST,      /* not needed, not allocated: the fast path */
	ACCESS_UNSAFE,    /* needed but not allocated: a violation */
	ACCESS_OUTCOMES,
};

struct access_stats {
	__u64 calls[ACCESS_OUTCOMES];
	__u64 eaccess;  /* calls with AT_EACCESS (never need an override) */
	__u64 drops;    /* calls not followed: no task storage for them */
	struct hist latency[ACCESS_OUTCOMES];
};

/* ---- exec family: ENOENT before mm allocation --------------------------- */

enum exec_outcome {
	EXEC_OK,
	EXEC_ENOENT_EARLY, /* ENOENT, no mm allocated during the call */
	EXEC_ENOENT_LATE,  /* ENOENT after an mm was allocated */
	EXEC_ERROR_OTHER,  /* any other errno */
	EXEC_OUTCOMES,
};

#define EXEC_ERRNO_MAX 134 /* errno values 1..133 are counted one by one */

struct exec_stats {
	__u64 calls[EXEC_OUTCOMES];
	__u64 errnos[EXEC_ERRNO_MAX]; /* index = errno; 0 collects the rest */
	__u64 mm_allocs; /* calls that allocated an mm: the positive control */
	__u64 drops;
	struct hist latency[EXEC_OUTCOMES];
};

/* ---- lookup family: MAY_EXEC on directories ----------------------------- */

enum lookup_reason {
	LOOKUP_ELIGIBLE,
	LOOKUP_INEL_MODE,           /* (mode & 0111) != 0111 */
	LOOKUP_INEL_ACL,            /* a POSIX ACL is cached on the inode */
	LOOKUP_INEL_ACL_NOT_CACHED, /* i_acl still ACL_NOT_CACHED/DONT_CACHE */
	LOOKUP_INEL_NOT_OPTED_IN,   /* neither IOP_FASTPERM nor the MAY_EXEC opt-in */
	LOOKUP_REASONS,
};

enum lookup_origin {
	LOOKUP_ORIGIN_WALK,    /* the path walker: the only checks the fast path can take */
	LOOKUP_ORIGIN_CHDIR,   /* MAY_CHDIR */
	LOOKUP_ORIGIN_ACCESS,  /* MAY_ACCESS: access(X_OK) and friends */
	LOOKUP_ORIGIN_CALLER,  /* walk-shaped, another caller: overlayfs's real inode, ... */
	LOOKUP_ORIGIN_MASK,    /* other mask bits: MAY_WRITE for create/delete, ... */
	LOOKUP_ORIGINS,
};

#define FS_NAME_LEN 32

struct lookup_stats {
	__u64 checks;     /* MAY_EXEC checks on directories: the sum of origin[],
			   * filled in by schema_fill() (src/schema.c) */
	__u64 did_skip;   /* not inside inode_permission(): the fast path took it */
	__u64 would_skip; /* eligibility predicate holds */
	__u64 may_exec_opt_in; /* i_opflags & 0x80: the MAY_EXEC opt-in (v2: precomputed flag) */
	__u64 violations; /* did skip although the predicate is false (inode stable) */
	__u64 ineligible[LOOKUP_REASONS]; /* by reason; [LOOKUP_ELIGIBLE] is never counted */
	__u64 origin[LOOKUP_ORIGINS];     /* checks by who asked */
	__u64 walk_would_skip; /* path-walk checks on eligible directories */
	__u64 racing;     /* did skip an ineligible directory that changed just now: not judged */
	__u64 nested;     /* made by inode_permission(): checks - did_skip, filled
			   * in by schema_fill() */
	__u64 ip_calls;   /* inode_permission() calls (MAY_EXEC, a directory) */
	/*
	 * ip_calls - nested: IP calls that made no SIP call, whatever they
	 * returned (refused before the LSM hook, or -ECHILD: an RCU walk given
	 * up to be retried), filled in by schema_fill() (src/schema.c).  No
	 * denial count: that needs IP's return value, a return probe on the
	 * hottest path (docs/kernels.md, "No denial count").
	 */
	__u64 no_lsm_check;
	__u64 first_check; /* the kernel set IOP_FASTPERM during this very check */
};

/* One filesystem's counters on one CPU: the per-CPU table is addressed by fs_type. */
struct lookup_fs_slot {
	__u64 fs_type; /* address of the struct file_system_type; 0: free */
	struct lookup_stats s;
};

#define LOOKUP_FS_SLOTS 64

/* What the lookup programs could not count, per CPU. */
struct lookup_lost {
	__u64 no_task_storage; /* a thread's filter verdict could not be stored */
	__u64 fs_table_full;   /* more filesystems than LOOKUP_FS_SLOTS on a CPU */
	__u64 call_site_unread; /* a check whose return address could not be read */
	/*
	 * Checks neither proven skipped nor proven full (bpf/lookup.bpf.c):
	 * another tracer's return hook hid SIP's return address and it could
	 * not be recovered, or the address follows no call of IP or SIP.
	 */
	__u64 unattributed_return_hook;
	__u64 unattributed_call_site;
};

/*
 * What made a SIP call, as the lookup programs resolve it from its return
 * address (bpf/callsite.h).  The first five are what an address in
 * kernel text is, and are cached; user space names the calibration call's.
 */
enum lookup_site {
	SITE_UNREAD,       /* the return address, or the call before it, could not be read */
	SITE_IP_WALK,      /* IP, for the path walker (or by the mask alone: a plain call) */
	SITE_IP_OTHER,     /* IP, for another caller */
	SITE_DIRECT_WALK,  /* the walker called SIP itself: its fast path skipped IP */
	SITE_DIRECT_OTHER, /* another function called SIP itself */
	SITE_FOREIGN,      /* follows no call of IP or SIP: not attributed */
	SITE_HOOKED,       /* another tracer's return hook stands in the slot, not recovered */
	SITE_ORIG,         /* a trampoline on IP called IP's body (resolved further) */
};

/*
 * Where bpf/callsite.h's classifier finds IP, SIP and the rest: the
 * lookup programs' rodata, from /proc/kallsyms (src/probe/family_lookup.c).
 * The classifier takes it as volatile: the BPF program's copy is rodata
 * that user space fills in before load, and clang must not fold the zeros
 * it is declared with.
 */
struct callsite_syms {
	__u64 ip_lo, ip_len;     /* inode_permission() */
	__u64 sip_lo;            /* security_inode_permission() */
	__u64 ip_pad, sip_pad;   /* bytes of __pfx_ padding before each, where a call thunk may take a call */
	__u64 walk_lo, walk_len; /* link_path_walk(); len 0: not known, every check is the walker's */
	__u64 rethook_tramp;     /* arch_rethook_trampoline (or __kretprobe_trampoline), a kretprobe's stand-in; 0 unknown */
	__u64 fgraph_tramp;      /* return_to_handler, the function graph tracer's; 0 unknown */
	__u64 text_top;          /* the run of set bits atop the kernel's text address (arm64 strips PACs with it) */
};

struct lookup_fs_name {
	char name[FS_NAME_LEN];
};

#define LOOKUP_SITES 64

/*
 * Everything the lookup programs keep per CPU, in one map value: one map
 * lookup a check.  sites[] caches what each call site is (bpf/lookup.bpf.c).
 */
struct lookup_cpu {
	struct lookup_fs_slot fs[LOOKUP_FS_SLOTS];
	__u64 sites[LOOKUP_SITES];
	struct lookup_lost lost;
};

/*
 * The fields of struct cred that access_need_override_creds() reads
 * (bpf/predicates.h), and of struct inode that the MAY_EXEC lookup fast
 * path reads: the predicates' inputs, and what a sample shows.
 */
struct cred_view {
	__u32 uid, gid, fsuid, fsgid;
	__u32 securebits;
	__u64 cap_effective, cap_permitted;
	__u32 root_uid; /* kuid of uid 0 in cred->user_ns */
};

struct dir_view {
	__u16 mode;
	__u32 opflags;
	__u64 acl; /* i_acl as an address; 0 when the kernel has no ACL support */
};

/* ---- violation samples (permscope verify) -------------------------------- */

/*
 * What a sample shows of a violation.  Each family's program sends one
 * through its `samples` ring buffer (bpf/sample.bpf.h) when an invariant
 * breaks, and only when verify asked for samples; src/run/verify.c judges and
 * prints them.
 */
enum sample_kind {
	SAMPLE_ACCESS_UNSAFE,    /* access: override needed, no cred allocated */
	SAMPLE_LOOKUP_INELIGIBLE_SKIP, /* lookup: full check skipped, directory ineligible */
	SAMPLE_EXEC_ENOENT_LATE, /* exec: ENOENT after an mm was allocated */
	SAMPLE_KINDS,
};

/* At most this many samples of one kind a second; the rest are counted as unsent. */
#define SAMPLES_PER_SECOND 16

struct sample_access {
	struct cred_view cred; /* current's cred at the call's exit */
};

struct sample_lookup {
	char fs[FS_NAME_LEN];
	__u64 ino;
	__u32 dev;     /* the superblock's s_dev: major << 20 | minor */
	__u32 reason;  /* enum lookup_reason: why the directory is ineligible */
	struct dir_view d; /* mode, i_opflags (the opt-in bit), i_acl */
};

struct sample_exec {
	__s64 ret;     /* the syscall's return value: -ENOENT */
	__u64 latency_ns;
};

struct ps_sample {
	__u32 kind;    /* enum sample_kind */
	__u32 pid;     /* tgid */
	__u32 tid;
	__u32 pad;
	__u64 time_ns; /* CLOCK_MONOTONIC */
	char comm[16];
	union {
		struct sample_access access;
		struct sample_lookup lookup;
		struct sample_exec exec;
	};
};

#endif /* PERMSCOPE_H */
