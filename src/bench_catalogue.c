// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The benchmarks and their metrics (see bench_catalogue.h). */
#include "bench_catalogue.h"

#include <string.h>

/*
 * What a user would write with bpftrace to watch the same thing: for the
 * access and exec benchmarks the latency of the syscall, from its enter and
 * exit tracepoints, and a count of slab allocations (where an override cred
 * or an mm comes from); for the lookup the MAY_EXEC posting's one-liner,
 * checks by filesystem name and the i_opflags bit 0x80.  tests/vm's
 * overhead plan runs the same scripts in the VM (a unit test compares).
 * cred-bounce is access() and stat() under a contended cred: the access one.
 */
#if defined(__aarch64__) /* no access(2) there: glibc's access() is faccessat(2) */
#define ACCESS_SYSCALL "faccessat"
#else
#define ACCESS_SYSCALL "access"
#endif
#define BPFTRACE_ACCESS \
	"tracepoint:syscalls:sys_enter_" ACCESS_SYSCALL " { @start[tid] = nsecs; } " \
	"tracepoint:syscalls:sys_exit_" ACCESS_SYSCALL " /@start[tid]/ " \
	"{ @lat = hist(nsecs - @start[tid]); delete(@start[tid]); } " \
	"tracepoint:kmem:kmem_cache_alloc { @allocs = count(); }"
#define BPFTRACE_EXEC \
	"tracepoint:syscalls:sys_enter_execve { @start[tid] = nsecs; } " \
	"tracepoint:syscalls:sys_exit_execve /@start[tid]/ " \
	"{ @lat = hist(nsecs - @start[tid]); delete(@start[tid]); } " \
	"tracepoint:kmem:kmem_cache_alloc { @allocs = count(); }"
#define BPFTRACE_LOOKUP \
	"kprobe:security_inode_permission " \
	"{ @[str(((struct inode *)arg0)->i_sb->s_type->name), " \
	"((struct inode *)arg0)->i_opflags & 0x80] = count(); }"

#define SLOW_BY_CAPABILITY "one capability cleared from the effective set"

const struct bench_def bench_defs[BENCH_COUNT] = {
	[BENCH_ACCESS1] = {
		"access1", "access1", "each worker access()es its own file",
		"faccessat cred override", SLOW_BY_CAPABILITY,
		BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD, BPFTRACE_ACCESS,
		.loop = BENCH_LOOP_WORKERS, .workers = 1,
	},
	[BENCH_ACCESS2] = {
		"access2", "access2", "every worker access()es the same file",
		"faccessat cred override", SLOW_BY_CAPABILITY,
		BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD, BPFTRACE_ACCESS,
		.loop = BENCH_LOOP_WORKERS, .workers = 1,
	},
	[BENCH_STAT_PATH] = {
		"stat-path", "stat_path", "stat() of a file at the end of a deep path",
		"MAY_EXEC lookup", "an allowing POSIX ACL on one directory of the path",
		BENCH_M_WORKERS | BENCH_M_SLOW | BENCH_M_OVERHEAD, BPFTRACE_LOOKUP,
		.loop = BENCH_LOOP_WORKERS, .workers = 1,
	},
	[BENCH_EXEC_PATH] = {
		"exec-path", "exec_path", "vfork+execve through a 7-entry PATH vs by absolute path",
		"execve ENOENT", NULL, BENCH_M_EXEC | BENCH_M_OVERHEAD, BPFTRACE_EXEC,
		.loop = BENCH_LOOP_EXECS, .workers = 1,
	},
	[BENCH_CRED_BOUNCE] = {
		"cred-bounce", "cred_bounce",
		"one thread opens+closes a file, the others access()/stat() another",
		"cred refcount layout", NULL, BENCH_M_WORKERS | BENCH_M_OVERHEAD, BPFTRACE_ACCESS,
		.loop = BENCH_LOOP_WORKERS, .workers = 2, .always_threads = true, .unmeasured = 1,
	},
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

const struct bench_metric_row bench_metric_rows[] = {
	{ "ops_per_s", BENCH_M_WORKERS | BENCH_M_EXEC,
	  "operations a second of the measured workers, wall time (exec-path: pairs of execs)" },
	{ "ops_per_cpu_s", BENCH_M_WORKERS,
	  "each measured worker's operations over its own thread CPU time, summed" },
	{ "slow_ops_per_s", BENCH_M_SLOW, "ops_per_s with the fast path defeated (--slow)" },
	{ "fast_path_gain", BENCH_M_SLOW,
	  "100 x (ops_per_s / slow_ops_per_s - 1) of the run's fast/slow pair, percent" },
	{ "slow_ops_per_cpu_s", BENCH_M_SLOW, "ops_per_cpu_s with the fast path defeated (--slow)" },
	{ "fast_path_cpu_gain", BENCH_M_SLOW,
	  "fast_path_gain from ops_per_cpu_s: steadier than wall time on a busy machine" },
	{ "path_median_ns", BENCH_M_EXEC, "median ns of a vfork+exec through the 7-entry PATH" },
	{ "abs_median_ns", BENCH_M_EXEC, "median ns of a vfork+exec by absolute path" },
	{ "failed_lookups_ns", BENCH_M_EXEC, "path_median_ns - abs_median_ns: the 6 failed lookups" },
	/* --overhead: one pair, unprobed then probed, a round; > 1 is slower */
	{ "overhead_access", BENCH_M_OVERHEAD,
	  "ops_per_cpu_s without probes / with the access family attached (--overhead)" },
	{ "overhead_exec", BENCH_M_OVERHEAD,
	  "ops_per_cpu_s without probes / with the exec family attached (--overhead)" },
	{ "overhead_lookup", BENCH_M_OVERHEAD,
	  "ops_per_cpu_s without probes / with the lookup family attached (--overhead)" },
	{ "overhead_all", BENCH_M_OVERHEAD,
	  "ops_per_cpu_s without probes / with every family that attaches (--overhead)" },
	{ "overhead_bpftrace", BENCH_M_OVERHEAD,
	  "ops_per_cpu_s without probes / with the equivalent bpftrace one-liner (--overhead)" },
};

const size_t bench_metric_nrows = sizeof(bench_metric_rows) / sizeof(bench_metric_rows[0]);

int bench_metric_index(const char *key)
{
	for (size_t i = 0; i < bench_metric_nrows; i++)
		if (!strcmp(bench_metric_rows[i].key, key))
			return (int)i;
	return -1;
}
