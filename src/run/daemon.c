// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two threads: the caller's takes signals and writes snapshots;
 * libmicrohttpd's serves /metrics, reading the maps into a profile of its
 * own per scrape.  They share the attached families (reading a map is a
 * syscall) and the duty cycle, under `cycle`: a scrape never reads the
 * counts of one side of a pause with the time watched of the other; and
 * the snapshot counters, under `lock`.
 */
#include "run/daemon.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "prom/http.h"
#include "run/dutycycle.h"
#include "prom/prom.h"
#include "statedir.h"
#include "util.h"
#include "version.h"
#include "prom/webconfig.h"

struct daemon {
	struct recorder rec;
	struct http_server *srv; /* under lock: the first scrape may come before it is set */
	struct profile base; /* host, filters, how each family attached; no counts */
	pthread_mutex_t lock;
	struct prom_daemon stats; /* under lock */
	bool bpf_stats;           /* --bpf-stats, and the kernel keeps run statistics */
	int stats_fd;             /* BPF_ENABLE_STATS's, held while we run; or -1 */
	pthread_mutex_t cycle;
	struct duty_cycle duty;   /* under cycle */
};

static void duty_count(void *ctx, enum family_id f, __u32 window)
{
	family_count(((struct daemon *)ctx)->rec.fams[f], window);
}

static void duty_detach(void *ctx, enum family_id f)
{
	family_detach_hooks(((struct daemon *)ctx)->rec.fams[f]);
}

static int duty_attach(void *ctx, enum family_id f, char *why, size_t len)
{
	return family_attach_hooks(((struct daemon *)ctx)->rec.fams[f], why, len);
}

static uint64_t duty_now(void *ctx)
{
	(void)ctx;
	return now_monotonic_ns();
}

/* The counts and the time they watched, read on the same side of any pause. */
static int collect_observed(struct daemon *d, struct profile *p)
{
	int err;

	pthread_mutex_lock(&d->cycle);
	err = recorder_collect(&d->rec, p);
	duty_cycle_observed(&d->duty, now_monotonic_ns(), p);
	pthread_mutex_unlock(&d->cycle);
	return err;
}

/* The most programs --bpf-stats reports: more than the families load. */
#define MAX_PROGRAMS 64

/* The metrics thread's view: the maps read now, on every scrape. */
static char *render_metrics(void *ctx, size_t *len)
{
	struct daemon *d = ctx;
	struct program_runs runs[MAX_PROGRAMS];
	struct prom_process self;
	struct prom_daemon stats;
	struct profile p;
	char *body = NULL;
	int n = 0;

	if (profile_copy(&p, &d->base))
		return NULL;
	p.end_ns = now_realtime_ns();
	if (d->bpf_stats && (n = recorder_program_runs(&d->rec, runs, MAX_PROGRAMS)) < 0)
		pr_err("--bpf-stats: reading the programs' statistics failed: %s", strerror(-n));
	if (n >= 0 && collect_observed(d, &p) == 0) {
		pthread_mutex_lock(&d->lock);
		stats = d->stats;
		http_stats(d->srv, &stats.http);
		pthread_mutex_unlock(&d->lock);
		/* a /proc that cannot be read leaves process_* out, not the scrape */
		stats.process = prom_process_read(&self) == 0 ? &self : NULL;
		stats.programs = d->bpf_stats ? runs : NULL;
		stats.nprograms = n;
		body = prom_render(&p, &stats, len);
	}
	profile_free(&p);
	return body;
}

/*
 * Read the running totals into `total`, write them and their difference
 * from `prev` (the previous snapshot's totals) as the next snapshot.
 */
static int snapshot(struct daemon *d, struct statedir *sd, const struct profile *prev,
		    struct profile *total)
{
	char name[PATH_MAX + 64];
	struct profile delta = { 0 };
	int err;

	/* whatever fails, total is left a profile with an end time: serve() keeps it as prev */
	err = profile_copy(total, &d->base);
	total->end_ns = now_realtime_ns();
	if (!err)
		err = collect_observed(d, total);
	if (!err)
		err = profile_copy(&delta, total);
	delta.start_ns = prev->end_ns;
	if (!err)
		err = profile_sub(&delta, prev);
	if (!err)
		err = statedir_snapshot(sd, total, &delta, name, sizeof(name));
	profile_free(&delta);
	pthread_mutex_lock(&d->lock);
	if (err) {
		d->stats.snapshot_errors++;
	} else {
		d->stats.snapshots_written++;
		d->stats.last_snapshot_ns = total->end_ns;
	}
	pthread_mutex_unlock(&d->lock);
	if (err)
		pr_err("snapshot into %s failed: %s (the metrics go on; the next interval tries "
		       "again)", sd->path, strerror(-err));
	else if (verbosity > 0)
		pr_info("snapshot %s", name);
	return err;
}

/* SIGHUP: logrotate has moved the log away; start a new one under --log's name. */
static void reopen_log(const char *path)
{
	int err;

	if (!path) {
		pr_info("SIGHUP: logging to stderr, nothing to reopen");
		return;
	}
	err = log_open(path);
	if (err)
		pr_err("SIGHUP: cannot reopen log %s: %s (still writing to the old one)", path,
		       strerror(-err));
	else
		pr_info("SIGHUP: log reopened");
}

/*
 * systemd's WatchdogSec=, halved as sd_watchdog_enabled(3) advises, in ns;
 * 0 when no watchdog is asked for (no WATCHDOG_USEC, or it names another
 * process in WATCHDOG_PID).
 */
static uint64_t watchdog_period_ns(void)
{
	uint64_t usec = 0;

	return sd_watchdog_enabled(0, &usec) > 0 ? usec * 1000 / 2 : 0;
}

/*
 * --bpf-stats: the kernel counts each program's runs and their time while
 * some process holds a BPF_ENABLE_STATS descriptor (or sysctl
 * kernel.bpf_stats_enabled is 1), at the price of two clock reads a run.
 * Only CAP_SYS_ADMIN may ask for it; the sysctl set by an administrator
 * serves a daemon without it.  0 with *fd the descriptor (-1: the
 * sysctl's), or -errno after saying why.
 */
static int enable_bpf_stats(int *fd)
{
	char line[16] = "";
	int err;

	*fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (*fd >= 0)
		return 0;
	err = -errno;
	if (err == -EPERM && read_first_line("/proc/sys/kernel/bpf_stats_enabled", line,
					     sizeof(line)) && !strcmp(line, "1")) {
		pr_info("--bpf-stats: kernel.bpf_stats_enabled is already 1; using it");
		return 0;
	}
	pr_err("--bpf-stats: cannot enable BPF run-time statistics: %s%s", strerror(-err),
	       err == -EPERM ? " (it needs CAP_SYS_ADMIN; or set sysctl "
	       "kernel.bpf_stats_enabled=1 and keep CAP_BPF, CAP_PERFMON)" : "");
	return err;
}

/* Run until SIGTERM/SIGINT or -d; a snapshot at every tick and a last one at the end. */
static int serve(struct daemon *d, struct statedir *sd, const struct daemon_opts *o,
		 const sigset_t *set)
{
	uint64_t interval = (uint64_t)(o->interval_s * 1e9), start = now_monotonic_ns();
	uint64_t next = start + interval;
	uint64_t stop = o->rec.duration_s > 0 ? start + (uint64_t)(o->rec.duration_s * 1e9) : 0;
	uint64_t watchdog = watchdog_period_ns(), ping = start, cycle_next = 0;
	const struct duty_hooks hooks = { duty_count, duty_detach, duty_attach, duty_now, d };
	struct profile prev, total;
	int errors = 0;

	/* Before the first interval: nothing counted, nothing lost, and both known. */
	if (profile_copy(&prev, &d->base)) {
		pr_err("out of memory");
		return EXIT_FAIL;
	}
	prev.end_ns = d->base.start_ns;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		prev.fam[f].lost_known = true;
		prev.fam[f].nlost = 0;
	}
	for (;;) {
		uint64_t now = now_monotonic_ns(), until = stop && stop < next ? stop : next;
		uint64_t wake = until;
		struct timespec ts;
		int sig = 0;

		/*
		 * Healthy means this loop comes round: it is the one that
		 * snapshots and takes signals, so a snapshot stuck in a write
		 * to hung storage, or a deadlock on `lock` with a scrape, stops
		 * the pings and systemd restarts us.  A snapshot that fails
		 * (disk full) does not: a restart would not cure it, and the
		 * metrics still answer; permscope_snapshot_errors_total says it.
		 */
		/*
		 * A window's attach or detach takes a while (the kernel's
		 * ftrace updates and grace periods: 0.2 s here): ping before
		 * it too, so that a short WatchdogSec is not missed meanwhile.
		 */
		if (watchdog && (now >= ping || now >= cycle_next)) {
			sd_notify(0, "WATCHDOG=1");
			ping = now + watchdog;
		}
		if (watchdog && ping < wake)
			wake = ping;
		pthread_mutex_lock(&d->cycle);
		cycle_next = duty_cycle_step(&d->duty, &hooks);
		pthread_mutex_unlock(&d->cycle);
		now = now_monotonic_ns();
		if (cycle_next < wake)
			wake = cycle_next;
		if (now < wake) {
			ts.tv_sec = (wake - now) / 1000000000ULL;
			ts.tv_nsec = (wake - now) % 1000000000ULL;
			sig = sigtimedwait(set, NULL, &ts);
			if (sig < 0 && errno != EAGAIN)
				continue; /* EINTR: a signal we do not take */
		}
		if (sig == SIGHUP) {
			reopen_log(o->log_path);
			continue;
		}
		if (sig <= 0 && now_monotonic_ns() < until)
			continue; /* a watchdog or duty-cycle wake-up, or EAGAIN early */
		errors += snapshot(d, sd, &prev, &total) != 0;
		profile_free(&prev);
		prev = total;
		if (sig == SIGTERM || sig == SIGINT || (stop && now_monotonic_ns() >= stop)) {
			/* what remains (endpoint, detach) takes about 0.1 s */
			sd_notify(0, "STOPPING=1");
			pr_info("%s: final snapshot written, stopping",
				sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "--duration");
			break;
		}
		/* Ticks stay on the start's grid; a slow snapshot skips ticks, never bunches them. */
		now = now_monotonic_ns();
		while (next <= now)
			next += interval;
	}
	profile_free(&prev);
	return errors ? EXIT_FAIL : EXIT_OK;
}

int daemon_run(const struct daemon_opts *o)
{
	struct daemon d = { .lock = PTHREAD_MUTEX_INITIALIZER, .stats.buckets = o->buckets,
			   .stats_fd = -1, .cycle = PTHREAD_MUTEX_INITIALIZER };
	const struct duty_hooks hooks = { duty_count, duty_detach, duty_attach, duty_now, &d };
	bool on[FAMILY_COUNT];
	char cycle[128];
	struct probe_opts probe;
	struct http_server *srv = NULL;
	struct statedir sd;
	char err[PATH_MAX + 256], families[256];
	sigset_t set, oldmask;
	int ret;

	log_detect_journal();
	if (o->log_path && (ret = log_open(o->log_path))) {
		/* log_open() opens with O_NOFOLLOW: ELOOP is a symlink at the path */
		pr_err("cannot open log %s: %s", o->log_path, ret == -ELOOP ?
		       "a symbolic link (never followed; name the file it points to)" : strerror(-ret));
		return EXIT_USAGE;
	}
	if (statedir_open(&sd, o->state_dir, o->keep, err, sizeof(err))) {
		pr_err("%s", err);
		/* a DIR that is no directory, or unsafe, is bad usage; another daemon on it is not */
		return sd.busy ? EXIT_FAIL : EXIT_USAGE;
	}

	/* Blocked before the HTTP thread starts, so it inherits the mask and signals come here. */
	block_stop_signals(SIGHUP, &set, &oldmask);

	if (o->bpf_stats && enable_bpf_stats(&d.stats_fd)) {
		ret = EXIT_FAIL;
		goto out;
	}
	d.bpf_stats = o->bpf_stats;
	record_profile_init(&o->rec, &d.base);
	probe = o->rec.probe;
	probe.filter_tasks = o->rec.pid != 0;
	if (o->rec.pid)
		probe.track[probe.ntrack++] = o->rec.pid;
	ret = recorder_attach(&d.rec, &probe, &d.base);
	if (ret != EXIT_OK)
		goto out;
	d.base.start_ns = now_realtime_ns();
	/* Window 1 is the attach's: the families count from now. */
	for (int f = 0; f < FAMILY_COUNT; f++)
		on[f] = d.rec.fams[f] != NULL;
	duty_cycle_start(&d.duty, o->window_ns, o->period_ns, on, &hooks);

	/* d.srv is read by the render function, on MHD's thread: set under the lock. */
	pthread_mutex_lock(&d.lock);
	srv = d.srv = http_start_web(o->listen, o->web, render_metrics, &d, err, sizeof(err));
	pthread_mutex_unlock(&d.lock);
	if (!srv) {
		pr_err("%s", err); /* it names the address */
		ret = EXIT_FAIL;
		goto out;
	}
	if (o->web && o->web->key_warning[0])
		pr_warn("--web-config %s: %s", o->web->path, o->web->key_warning);
	if (!http_is_loopback(srv) && !o->web)
		pr_warn("metrics served on %s: reachable from other hosts, which learn this "
			"machine's kernel and workload counts; --web-config FILE adds TLS and "
			"basic auth (docs/daemon.md)", http_address(srv));
	else if (!http_is_loopback(srv) && !o->web->tls)
		pr_warn("metrics served on %s without TLS: --web-config %s has basic_auth_users "
			"but no tls_server_config, so passwords cross the network in clear",
			http_address(srv), o->web->path);
	else if (!http_is_loopback(srv) && !o->web->nusers)
		pr_warn("metrics served on %s over TLS without basic_auth_users: any host that "
			"reaches it reads this machine's kernel and workload counts",
			http_address(srv));
	if (o->web)
		pr_info("--web-config %s: %s%s, %zu basic auth user%s", o->web->path,
			o->web->tls ? "TLS " : "no TLS",
			o->web->tls ? (o->web->min_version == 13 ? "1.3" :
				       o->web->max_version == 12 ? "1.2" : "1.2 and 1.3") : "",
			o->web->nusers, o->web->nusers == 1 ? "" : "s");
	recorder_describe(&d.base, families, sizeof(families));
	pr_info("permscope daemon %s (pid %d): %s", permscope_version(), (int)getpid(), families);
	duty_cycle_describe(o->window_ns, o->period_ns, cycle, sizeof(cycle));
	pr_info("counting %s%s", cycle, o->period_ns ? "; rates are per second watched "
		"(permscope_observed_seconds_total)" : ": every call");
	pr_info("snapshots every %g s into %s (the newest %u kept)", o->interval_s, sd.path, o->keep);
	/* Scripts and tests wait for this line: the endpoint answers from now on. */
	pr_info("listening on %s://%s/metrics", o->web && o->web->tls ? "https" : "http",
		http_address(srv));
	/*
	 * systemd (Type=notify): started only now, with the probes attached
	 * and the endpoint answering.  Without NOTIFY_SOCKET sd_notify() does
	 * nothing.
	 */
	sd_notifyf(0, "READY=1\nSTATUS=%s; /metrics on %s", families, http_address(srv));
	ret = serve(&d, &sd, o, &set);
out:
	http_stop(srv); /* no scrape reads the maps once they go */
	recorder_detach(&d.rec);
	statedir_close(&sd);
	if (d.stats_fd >= 0)
		close(d.stats_fd); /* the kernel stops timing our programs */
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
