// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_vm's assertions, every one, on what Debian's arm64 builds of the
 * pinned kernels recorded in QEMU (tools/vm/kernels.conf's NAME-arm64:
 * build/vm/run/NAME-arm64/results): the four changes are
 * architecture-neutral, and so must every count be.  The same source,
 * compiled with the arm64 kernels' names and what check reads of them, so
 * that the two suites cannot drift apart; a kernel without results is
 * skipped, saying so.
 *
 * What differs is the kernels' build, not permscope: Debian builds its
 * arm64 kernels without PREEMPT_DYNAMIC, so uname -v names the model with
 * or without debugfs (7.2: full; 6.1 and 6.12: none or voluntary), and its
 * arm64 6.1 refuses BPF trampolines, so fentry is no mode there and
 * kprobe, the next, is its default.
 */
#define VM_KERNEL_SUFFIX "-arm64"
#define VM_KERNEL_FACTS {                                              \
	[BOOKWORM] = { "none or voluntary", "none or voluntary", false }, \
	[TRIXIE] = { "none or voluntary", "none or voluntary", true },    \
	[SID] = { "full", "full", true },                                 \
}
#include "test_vm.c"
