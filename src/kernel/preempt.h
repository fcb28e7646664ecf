/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Can the running kernel preempt a BPF program?  It decides the attach
 * mode (src/probe/attach.c): a trampoline (fentry) program runs with preemption
 * on, guarded by one `active` count per program and CPU, so a task
 * preempted inside it makes every other task on that CPU skip the program
 * until it runs again; kprobe handlers run with preemption off.  The
 * models none and voluntary never preempt kernel code outside
 * cond_resched(), which no BPF program calls; full, lazy and rt do.
 */
#ifndef PERMSCOPE_PREEMPT_H
#define PERMSCOPE_PREEMPT_H

#include <stdbool.h>

enum preempt_model {
	PREEMPT_MODEL_UNKNOWN,
	PREEMPT_MODEL_NONE,
	PREEMPT_MODEL_VOLUNTARY,
	PREEMPT_MODEL_NONE_OR_VOLUNTARY, /* a kernel built without preemption */
	PREEMPT_MODEL_FULL,
	PREEMPT_MODEL_LAZY,
	PREEMPT_MODEL_FULL_OR_LAZY, /* x86 7.0+: which of the two is not known */
	PREEMPT_MODEL_RT,
};

struct preemption {
	enum preempt_model model;
	int kernel_major; /* 7 for 7.2.13: 7.0 made tracepoint programs preemptible */
	/* Where the model was read, or why it is unknown: for the user. */
	char source[160];
};

/*
 * Read the model from, in order: debugfs' sched/preempt (what runs now);
 * the kernel version (x86 7.0 and later offer only full and lazy); uname
 * -v of a kernel built without PREEMPT_DYNAMIC (its model is fixed); a
 * dynamic kernel's preempt= on its command line; its build configuration
 * in /boot/config-RELEASE.  ROOT prefixes every path ("" for the running
 * system; the tests' fixtures elsewhere); RELEASE, VERSION and MACHINE are
 * uname's.  The model is PREEMPT_MODEL_UNKNOWN when none of them tells.
 */
void preemption_read(const char *root, const char *release, const char *version,
		     const char *machine, struct preemption *out);
/* The running kernel's, read once. */
const struct preemption *preemption_running(void);

const char *preempt_model_name(enum preempt_model m);
/* Full, lazy, rt, and unknown: "could not tell" is never "cannot preempt". */
bool preempt_model_preempts_bpf(enum preempt_model m);

#endif
