// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The running kernel's preemption model, from what it shows without BPF
 * (src/kernel/preempt.h says why the attach mode depends on it).
 */
#include "kernel/preempt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "util.h"

static const struct {
	const char *name;
	bool preempts_bpf;
} models[] = {
	[PREEMPT_MODEL_UNKNOWN] = { "unknown", true },
	[PREEMPT_MODEL_NONE] = { "none", false },
	[PREEMPT_MODEL_VOLUNTARY] = { "voluntary", false },
	[PREEMPT_MODEL_NONE_OR_VOLUNTARY] = { "none or voluntary", false },
	[PREEMPT_MODEL_FULL] = { "full", true },
	[PREEMPT_MODEL_LAZY] = { "lazy", true },
	[PREEMPT_MODEL_FULL_OR_LAZY] = { "full or lazy", true },
	[PREEMPT_MODEL_RT] = { "rt", true },
};

const char *preempt_model_name(enum preempt_model m)
{
	return models[m].name;
}

bool preempt_model_preempts_bpf(enum preempt_model m)
{
	return models[m].preempts_bpf;
}

/* The one-word models of sched/preempt and preempt=. */
static enum preempt_model model_by_word(const char *w, size_t len)
{
	for (enum preempt_model m = PREEMPT_MODEL_NONE; m <= PREEMPT_MODEL_RT; m++)
		if (strlen(models[m].name) == len && !strncmp(models[m].name, w, len) &&
		    !strchr(models[m].name, ' '))
			return m;
	return PREEMPT_MODEL_UNKNOWN;
}

/* The first line of ROOT/PATH, without its newline; false if unreadable. */
static bool read_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return read_first_line(full, buf, size);
}

/* Is WORD one of the blank-separated words of S? */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; (p = strstr(p, word)); p += n)
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* "none voluntary full (lazy)": the word in parentheses runs now. */
static enum preempt_model from_sched_preempt(const char *line)
{
	const char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;

	return close ? model_by_word(open + 1, close - open - 1) : PREEMPT_MODEL_UNKNOWN;
}

/* preempt=MODEL on the kernel command line; UNKNOWN without one. */
static enum preempt_model from_cmdline(const char *line)
{
	for (const char *p = line; (p = strstr(p, "preempt=")); p++)
		if (p == line || p[-1] == ' ')
			return model_by_word(p + 8, strcspn(p + 8, " "));
	return PREEMPT_MODEL_UNKNOWN;
}

/* The model a kernel's configuration chose (a dynamic kernel's default). */
static enum preempt_model from_config(const char *root, const char *release)
{
	static const struct {
		const char *line;
		enum preempt_model model;
	} choice[] = {
		{ "CONFIG_PREEMPT_RT=y", PREEMPT_MODEL_RT },
		{ "CONFIG_PREEMPT_LAZY=y", PREEMPT_MODEL_LAZY },
		{ "CONFIG_PREEMPT=y", PREEMPT_MODEL_FULL },
		{ "CONFIG_PREEMPT_VOLUNTARY=y", PREEMPT_MODEL_VOLUNTARY },
		{ "CONFIG_PREEMPT_NONE=y", PREEMPT_MODEL_NONE },
	};
	enum preempt_model found = PREEMPT_MODEL_UNKNOWN;
	int rank = sizeof(choice) / sizeof(choice[0]);
	char path[512], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/boot/config-%s", root, release);
	f = fopen(path, "re");
	if (!f)
		return PREEMPT_MODEL_UNKNOWN;
	/* RT and LAZY come with other lines set: the first of the table wins. */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		for (int i = 0; i < rank; i++)
			if (!strcmp(line, choice[i].line)) {
				found = choice[i].model;
				rank = i;
				break;
			}
	}
	fclose(f);
	return found;
}

void preemption_read(const char *root, const char *release, const char *version,
		     const char *machine, struct preemption *out)
{
	char line[4096];
	enum preempt_model m;

	memset(out, 0, sizeof(*out));
	out->kernel_major = atoi(release);
	if (read_line(root, "/sys/kernel/debug/sched/preempt", line, sizeof(line)) &&
	    (m = from_sched_preempt(line)) != PREEMPT_MODEL_UNKNOWN) {
		out->model = m;
		snprintf(out->source, sizeof(out->source), "/sys/kernel/debug/sched/preempt");
		return;
	}
	if (!strcmp(machine, "x86_64") && out->kernel_major >= 7) {
		out->model = PREEMPT_MODEL_FULL_OR_LAZY;
		snprintf(out->source, sizeof(out->source),
			 "x86 kernels 7.0 and later preempt fully or lazily");
		return;
	}
	/* A kernel built with one model says which in uname -v, or says nothing. */
	if (has_word(version, "PREEMPT_RT") || !has_word(version, "PREEMPT_DYNAMIC")) {
		out->model = has_word(version, "PREEMPT_RT")	 ? PREEMPT_MODEL_RT
			     : has_word(version, "PREEMPT_LAZY") ? PREEMPT_MODEL_LAZY
			     : has_word(version, "PREEMPT")	 ? PREEMPT_MODEL_FULL
								 : PREEMPT_MODEL_NONE_OR_VOLUNTARY;
		snprintf(out->source, sizeof(out->source), "uname -v: %s",
			 out->model == PREEMPT_MODEL_NONE_OR_VOLUNTARY
				 ? "built without preemption"
				 : "built with one preemption model");
		return;
	}
	/* PREEMPT_DYNAMIC: the boot's choice, else the configuration's default. */
	if (read_line(root, "/proc/cmdline", line, sizeof(line)) &&
	    (m = from_cmdline(line)) != PREEMPT_MODEL_UNKNOWN) {
		out->model = m;
		snprintf(out->source, sizeof(out->source), "preempt= in /proc/cmdline");
		return;
	}
	if ((m = from_config(root, release)) != PREEMPT_MODEL_UNKNOWN) {
		out->model = m;
		snprintf(out->source, sizeof(out->source), "/boot/config-%s", release);
		return;
	}
	snprintf(out->source, sizeof(out->source),
		 "PREEMPT_DYNAMIC kernel: /sys/kernel/debug/sched/preempt unreadable (is debugfs "
		 "mounted?), no preempt= at boot, no /boot/config-%s", release);
}

static struct preemption running;

static void read_running(void)
{
	struct utsname u;

	host_uname(&u);
	preemption_read("", u.release, u.version, u.machine, &running);
}

const struct preemption *preemption_running(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_running);
	return &running;
}
