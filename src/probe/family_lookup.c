// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lookup family's glue (bpf/lookup.bpf.c): its skeleton, the kernel
 * addresses its programs tell call sites by, the calibration of where a
 * return address sits once attached, and the reading of its per-fs counters.
 */
#include "probe/family_lookup.h"
#include "probe/family_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "callsite.h"
#include "lookup.skel.h"

/* The bytes of a function's __pfx_ padding right before it (at most 64), or 0. */
static __u64 padding(const struct ksym_range *pfx, __u64 fn)
{
	return pfx->lo && pfx->lo < fn && fn - pfx->lo <= 64 ? fn - pfx->lo : 0;
}

int lookup_callsite_syms(const struct probe_opts *o, struct callsite_syms *cs, __u64 *text_lo,
			 __u64 *text_len, char *why, size_t len)
{
	enum { IP, SIP, IP_PFX, SIP_PFX, WALK, STEXT, ETEXT, RETHOOK, KRETPROBE, FGRAPH, NSYMS };
	struct ksym_range k[NSYMS] = {
		[IP] = { .name = "inode_permission" },
		[SIP] = { .name = "security_inode_permission" },
		/* their padding, where call thunks (6.2+, CALL_PADDING) take calls */
		[IP_PFX] = { .name = "__pfx_inode_permission" },
		[SIP_PFX] = { .name = "__pfx_security_inode_permission" },
		[WALK] = { .name = "link_path_walk." },
		[STEXT] = { .name = "_stext" },
		[ETEXT] = { .name = "_etext", .any_type = true }, /* D on arm64, T on x86 */
		/* other tracers' stand-ins for a return address (bpf/callsite.h) */
		[RETHOOK] = { .name = "arch_rethook_trampoline" },
		/* a kernel whose kretprobes use no rethook (arm64) */
		[KRETPROBE] = { .name = "__kretprobe_trampoline" },
		[FGRAPH] = { .name = "return_to_handler" },
	};
	int err;

	/* Where IP and SIP are: a check's call site says which of them was called. */
	err = resolve_ksyms(o, k, NSYMS, why, len);
	if (err)
		return err;
	for (int i = IP; i <= SIP; i++)
		if (!k[i].lo || !k[i].len) {
			snprintf(why, len, "%s not found in %s", k[i].name, o->kallsyms);
			return -ENOENT;
		}
	*cs = (struct callsite_syms){
		.ip_lo = k[IP].lo, .ip_len = k[IP].len, .sip_lo = k[SIP].lo,
		.ip_pad = padding(&k[IP_PFX], k[IP].lo), .sip_pad = padding(&k[SIP_PFX], k[SIP].lo),
		/* the path walker, to tell its checks from other callers' (optional) */
		.walk_lo = k[WALK].lo, .walk_len = k[WALK].len,
		.rethook_tramp = k[RETHOOK].lo ? k[RETHOOK].lo : k[KRETPROBE].lo,
		.fgraph_tramp = k[FGRAPH].lo,
		.text_top = callsite_text_top(k[IP].lo),
	};
	/* Core text, whose call sites are cached; modules' and trampolines' never are. */
	*text_lo = *text_len = 0;
	if (k[STEXT].lo && k[ETEXT].lo > k[STEXT].lo) {
		*text_lo = k[STEXT].lo;
		*text_len = k[ETEXT].lo - k[STEXT].lo;
	}
	return 0;
}

static int lookup_configure(void *s, const struct probe_opts *o, enum attach_mode m,
			    char *why, size_t len)
{
	struct lookup_bpf *skel = s;
	struct timespec rt, mono;
	int err;

	(void)m;
	SET_FILTER(skel, o);
	err = lookup_callsite_syms(o, &skel->rodata->syms, &skel->rodata->text_lo,
				   &skel->rodata->text_len, why, len);
	if (err)
		return err;
	/* ctime is wall-clock time; the programs only have the monotonic clock. */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	skel->rodata->realtime_offset_ns = (rt.tv_sec - mono.tv_sec) * 1000000000ULL +
					   rt.tv_nsec - mono.tv_nsec;
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
	profile_sort_fs(p);
	/* The programs' own losses, beside the kernel's count of their misses. */
	family_add_lost(res, "no_task_storage", lost.no_task_storage);
	family_add_lost(res, "fs_table_full", lost.fs_table_full);
	family_add_lost(res, "call_site_unread", lost.call_site_unread);
	family_add_lost(res, "unattributed_return_hook", lost.unattributed_return_hook);
	family_add_lost(res, "unattributed_call_site", lost.unattributed_call_site);
	return 0;
}

SKEL_GLUE(lookup)

/*
 * --lean: no program on inode_permission(), the hottest hook after
 * security_inode_permission() itself (a second trampoline on every full
 * check: docs/benchmarks.md has its price per kernel).  Only it counts
 * ip_calls and first_check, and no_lsm_check is made from ip_calls: the
 * schema's lean_absent.
 */
static const char *const lookup_lean_programs[] = {
	"fentry_inode_permission", "kprobe_inode_permission", NULL,
};

const struct family_ops lookup_ops = FAMILY_OPS(lookup, .collect = lookup_collect,
						.after_attach = lookup_after_attach,
						.lean_programs = lookup_lean_programs);
