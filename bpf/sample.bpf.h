/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Violation samples for permscope verify: one struct ps_sample
 * (bpf/permscope.h) through the family's ring buffer each time an invariant
 * breaks, at most SAMPLES_PER_SECOND of a kind a second; what the budget or
 * a full ring leaves out is counted in samples_unsent[kind].
 *
 * Every family object includes this, as it does filter.bpf.h.  The callers
 * test emit_samples inside a branch that only a violation takes, and call
 * a __noinline sampler there: the common path gets no instruction more.
 * When verify does not ask (record, daemon, ...), emit_samples is a false
 * constant after load, the verifier drops the sampler's call as dead code,
 * and the ring buffer stays at its minimum of one page.
 */
#ifndef PERMSCOPE_SAMPLE_BPF_H
#define PERMSCOPE_SAMPLE_BPF_H

const volatile bool emit_samples = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* verify sets the size it wants before load */
} samples SEC(".maps");

/*
 * The budget of each kind: the second it is for and the samples sent in
 * it.  Shared by all CPUs without a lock: two CPUs may both take the last
 * token of a second, which only makes the limit a little loose.
 */
__u64 sample_second[SAMPLE_KINDS];
__u64 sample_sent[SAMPLE_KINDS];
__u64 samples_unsent[SAMPLE_KINDS];

/* A zeroed sample of kind k with who and when filled in, or NULL (counted). */
static __always_inline struct ps_sample *sample_reserve(enum sample_kind k)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct ps_sample *s;

	if (k >= SAMPLE_KINDS)
		return NULL;
	if (sample_second[k] != now / 1000000000ULL) {
		sample_second[k] = now / 1000000000ULL;
		sample_sent[k] = 0;
	}
	if (sample_sent[k] >= SAMPLES_PER_SECOND)
		goto unsent;
	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s)
		goto unsent;
	__sync_fetch_and_add(&sample_sent[k], 1);
	__builtin_memset(s, 0, sizeof(*s));
	s->kind = k;
	s->pid = id >> 32;
	s->tid = (__u32)id;
	s->time_ns = now;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	return s;
unsent:
	__sync_fetch_and_add(&samples_unsent[k], 1);
	return NULL;
}

#endif /* PERMSCOPE_SAMPLE_BPF_H */
