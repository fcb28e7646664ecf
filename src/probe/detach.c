// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Letting a family's hooks go: for good (family_stop()), or between two
 * windows of a duty-cycled daemon (family_detach_hooks() and
 * family_attach_hooks(), src/run/dutycycle.c), where the programs stay
 * loaded and keep their counters, and only the links go, so a hook costs
 * nothing while paused.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/attach.h"
#include "probe/family.h"
#include "probe/family_ops.h"
#include "util.h"

static void *destroy_link(void *arg)
{
	struct bpf_link **link = arg;

	bpf_link__destroy(*link);
	*link = NULL;
	return NULL;
}

/* The fork and exit followers keep the process filter's table while paused. */
static bool is_follower(const struct bpf_object_skeleton *s, int i)
{
	return !strncmp(bpf_program__name(*s->progs[i].prog), "track_", 6);
}

/*
 * Detach every program (but the followers, when KEEP_FOLLOWERS) at once.
 * Each tracepoint link waits out RCU grace periods as it goes (~60 ms on
 * our machines), so one after the other the two families took 0.8 s to
 * let go; waits that overlap share their grace periods, which keeps a
 * SIGTERM'ed daemon's exit well under a second.
 */
static void detach_all(struct bpf_object_skeleton *s, bool keep_followers)
{
	pthread_t threads[64];
	int n = 0;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_link **link = s->progs[i].link;

		if (!link || !*link || (keep_followers && is_follower(s, i)))
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
	detach_all(fam->ops->skeleton(fam->skel), false);
	ring_buffer__free(fam->rb);
	fam->ops->destroy(fam->skel);
	free(fam);
}

void family_count(struct family *fam, __u32 window)
{
	__atomic_store_n(fam->ops->observing(fam->skel), window, __ATOMIC_SEQ_CST);
}

void family_detach_hooks(struct family *fam)
{
	family_count(fam, 0); /* nothing counts while half detached */
	detach_all(fam->ops->skeleton(fam->skel), true);
}

int family_attach_hooks(struct family *fam, char *why, size_t len)
{
	struct bpf_object_skeleton *s = fam->ops->skeleton(fam->skel);
	int err;

	family_count(fam, 0); /* nothing counts while half attached */
	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *s->progs[i].prog;
		struct bpf_link **link = s->progs[i].link;
		struct bpf_link *l;

		if (!link || *link || !bpf_program__autoload(prog))
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			err = errno ? errno : EINVAL;
			snprintf(why, len, "cannot attach %s again: %s", bpf_program__name(prog),
				 strerrorname_np(err) ? strerrorname_np(err) : strerror(err));
			family_detach_hooks(fam);
			return -err;
		}
		*link = l;
	}
	return 0;
}
