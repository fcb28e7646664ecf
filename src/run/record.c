// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "run/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel/credlayout.h"
#include "util.h"

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int f = 0; f < FAMILY_COUNT; f++)
		o->probe.want[f] = true;
	o->probe.kallsyms = "/proc/kallsyms";
}

/* ---- the workload ------------------------------------------------------- */

struct workload {
	pid_t pid;
	int go_fd;   /* write end: a byte lets the child exec, EOF ends it */
	int exec_fd; /* read end: the child's errno if exec failed, EOF if it worked */
};

/*
 * Fork the command, held before exec until the probes count its pid, so its
 * first syscalls are seen.  Signals are restored to the child's defaults.
 */
static int workload_fork(char **argv, const sigset_t *oldmask, struct workload *w)
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		char c;
		int err;

		close(go[1]);
		close(ex[0]);
		/* Still blocked: a Ctrl-C now reaches the recorder, which stops cleanly. */
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up before releasing us */
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		execvp(argv[0], argv);
		err = errno;
		if (write(ex[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->exec_fd = ex[0];
	return 0;
}

static void workload_abort(struct workload *w)
{
	kill(w->pid, SIGKILL);
	close(w->go_fd);
	close(w->exec_fd);
	waitpid(w->pid, NULL, 0);
}

/* Release the child; 0 once it has exec'ed, or the positive errno of exec. */
static int workload_release(struct workload *w)
{
	int err = 0;

	if (write(w->go_fd, "g", 1) != 1)
		return errno;
	close(w->go_fd);
	if (read(w->exec_fd, &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(w->exec_fd);
	return err;
}

/* ---- recording ---------------------------------------------------------- */

static void progress(double left, double total)
{
	if (verbosity < 0 || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rRecording: %4.0f s of %.0f s left (Ctrl-C stops early) ", left, total);
}

/* The shell's convention: the exit status, or 128 + the signal that killed it. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Stop a workload that outlived the recording: SIGTERM, a second, SIGKILL. */
static void workload_stop(struct workload *w)
{
	int status;

	kill(w->pid, SIGTERM);
	for (int i = 0; i < 20; i++) {
		if (waitpid(w->pid, &status, WNOHANG) == w->pid)
			return;
		usleep(50000);
	}
	kill(w->pid, SIGKILL);
	waitpid(w->pid, &status, 0);
}

/*
 * Wait for the end of the recording: the workload exiting, the duration
 * running out, or SIGINT/SIGTERM.  Signals are blocked and taken here
 * synchronously, so a stop never interrupts collection.
 */
static void wait_until_done(const struct record_opts *o, struct workload *w, struct profile *p)
{
	uint64_t start = now_monotonic_ns();
	uint64_t deadline = o->duration_s > 0 ? start + (uint64_t)(o->duration_s * 1e9) : 0;
	sigset_t set;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	for (;;) {
		uint64_t now = now_monotonic_ns(), wait_ns = 1000000000ULL;
		struct timespec ts;
		int sig;

		if (w->pid > 0 && waitpid(w->pid, &status, WNOHANG) == w->pid) {
			p->exit_status = exit_code(status);
			w->pid = 0;
			break;
		}
		if (deadline) {
			if (now >= deadline)
				break;
			progress((deadline - now) / 1e9, o->duration_s);
			if (deadline - now < wait_ns)
				wait_ns = deadline - now;
		}
		ts.tv_sec = wait_ns / 1000000000ULL;
		ts.tv_nsec = wait_ns % 1000000000ULL;
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			break;
	}
	if (deadline && verbosity >= 0 && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	if (w->pid > 0) {
		workload_stop(w);
		p->exit_status = -1; /* stopped by us: no status of its own */
	}
}

/* "Recording (lookup: unavailable, access: tracepoint, ...) until Ctrl-C." */
static void announce(const struct profile *p, const struct record_opts *o)
{
	char line[256];

	recorder_describe(p, line, sizeof(line));
	if (o->command)
		pr_info("Recording (%s) while %s runs...", line, o->command[0]);
	else
		pr_info("Recording (%s)%s", line, o->duration_s ? "..." : " until Ctrl-C or SIGTERM...");
}

int recorder_attach(struct recorder *r, const struct probe_opts *probe, struct profile *p)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = ensure_tracefs();
	if (err)
		pr_warn("tracefs is not mounted at /sys/kernel/tracing and mounting it failed: %s "
		     "(tracepoint mode will not attach)", strerror(-err));
	families_init_logging();
	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!probe->want[f])
			continue;
		r->fams[f] = family_start(f, probe, &p->fam[f]);
		if (r->fams[f])
			r->attached++;
	}
	if (r->attached)
		return EXIT_OK;
	pr_err("no probe family could attach on this kernel (%s)",
	       geteuid() ? "run as root" : "see the reasons below");
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (int i = 0; i < p->fam[f].nattempts; i++)
			fprintf(stderr, "  %s %s: %s\n", family_name(f),
				mode_name(p->fam[f].attempts[i].mode), p->fam[f].attempts[i].why);
	return EXIT_FAIL;
}

int recorder_collect(struct recorder *r, struct profile *p)
{
	int err, ret = 0;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (r->fams[f] && (err = family_collect(r->fams[f], p))) {
			pr_err("%s: reading the counters failed: %s", family_name(f), strerror(-err));
			ret = err;
		}
	}
	return ret;
}

int recorder_program_runs(struct recorder *r, struct program_runs *out, int max)
{
	int n = 0, got;

	for (int f = 0; f < FAMILY_COUNT; f++) {
		if (!r->fams[f])
			continue;
		got = family_program_runs(r->fams[f], out + n, max - n);
		if (got < 0)
			return got;
		n += got;
	}
	return n;
}

void recorder_detach(struct recorder *r)
{
	for (int f = 0; f < FAMILY_COUNT; f++) {
		family_stop(r->fams[f]);
		r->fams[f] = NULL;
	}
	r->attached = 0;
}

void recorder_describe(const struct profile *p, char *line, size_t size)
{
	size_t len = 0;

	line[0] = 0;
	for (int f = 0; f < FAMILY_COUNT && len < size; f++) {
		if (p->fam[f].status == FAMILY_NOT_REQUESTED)
			continue;
		len += snprintf(line + len, size - len, "%s%s: %s", len ? ", " : "",
				family_name(f), family_state_text(&p->fam[f]));
	}
}

void record_profile_init(const struct record_opts *o, struct profile *p)
{
	profile_init(p);
	profile_set_host(p);
	cred_layout_keep(p);
	p->filter_pid = o->pid;
	if (o->probe.filter_comm)
		memcpy(p->filter_comm, o->probe.comm, sizeof(p->filter_comm));
	if (o->probe.cgroup)
		copy_truncated(p->filter_cgroup, o->probe.cgroup, sizeof(p->filter_cgroup));
}

int record_run(const struct record_opts *o, struct profile *p)
{
	struct recorder rec = { .attached = 0 };
	struct workload w = { .pid = 0 };
	struct probe_opts probe = o->probe;
	sigset_t set, oldmask;
	int ret = EXIT_OK, err;

	record_profile_init(o, p);
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		pr_err("--pid %d: no such process", o->pid);
		return EXIT_USAGE;
	}
	probe.filter_tasks = o->pid || o->command;

	/* SIGPIPE ignored: a workload that died before its release gives an error, not our death. */
	block_stop_signals(SIGCHLD, &set, &oldmask);

	if (o->command) {
		err = workload_fork(o->command, &oldmask, &w);
		if (err) {
			pr_err("cannot start %s: %s", o->command[0], strerror(-err));
			ret = EXIT_FAIL;
			goto out;
		}
		p->command = argv_dup(o->command);
	}

	if (o->pid)
		probe.track[probe.ntrack++] = o->pid;
	if (w.pid)
		probe.track[probe.ntrack++] = w.pid;
	ret = recorder_attach(&rec, &probe, p);
	if (ret != EXIT_OK) {
		if (w.pid)
			workload_abort(&w);
		goto out;
	}

	announce(p, o);
	p->start_ns = now_realtime_ns();
	if (w.pid) {
		err = workload_release(&w);
		if (err) {
			waitpid(w.pid, NULL, 0);
			pr_err("cannot run '%s': %s", o->command[0], strerror(err));
			ret = EXIT_USAGE;
			goto out;
		}
	}
	wait_until_done(o, &w, p);
	p->end_ns = now_realtime_ns();
	if (recorder_collect(&rec, p))
		ret = EXIT_FAIL;
out:
	recorder_detach(&rec);
	/*
	 * The recording is over: a Ctrl-C or SIGTERM still pending (one that
	 * also ended the workload, say) must not kill us before the profile is
	 * written, so take it now instead of on unblocking.
	 */
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
