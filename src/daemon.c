// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two threads: the caller's takes signals and writes snapshots;
 * libmicrohttpd's serves /metrics, reading the maps into a profile of its
 * own per scrape.  They share only the attached families (read-only:
 * reading a map is a syscall) and the snapshot counters, under `lock`.
 */
#include "daemon.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "prom.h"
#include "statedir.h"
#include "util.h"
#include "webconfig.h"
#include "version.h"

struct daemon {
	struct recorder rec;
	struct http_server *srv; /* under lock: the first scrape may come before it is set */
	struct profile base; /* host, filters, how each family attached; no counts */
	pthread_mutex_t lock;
	struct prom_daemon stats; /* under lock */
};

/* The metrics thread's view: the maps read now, on every scrape. */
static char *render_metrics(void *ctx, size_t *len)
{
	struct daemon *d = ctx;
	struct prom_daemon stats;
	struct profile p;
	char *body = NULL;

	if (profile_copy(&p, &d->base))
		return NULL;
	p.end_ns = now_realtime_ns();
	if (recorder_collect(&d->rec, &p) == 0) {
		pthread_mutex_lock(&d->lock);
		stats = d->stats;
		http_stats(d->srv, &stats.http);
		pthread_mutex_unlock(&d->lock);
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
		err = recorder_collect(&d->rec, total);
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

/* Run until SIGTERM/SIGINT or -d; a snapshot at every tick and a last one at the end. */
static int serve(struct daemon *d, struct statedir *sd, const struct daemon_opts *o,
		 const sigset_t *set)
{
	uint64_t interval = (uint64_t)(o->interval_s * 1e9), start = now_monotonic_ns();
	uint64_t next = start + interval;
	uint64_t stop = o->rec.duration_s > 0 ? start + (uint64_t)(o->rec.duration_s * 1e9) : 0;
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
		struct timespec ts;
		int sig = 0;

		if (now < until) {
			ts.tv_sec = (until - now) / 1000000000ULL;
			ts.tv_nsec = (until - now) % 1000000000ULL;
			sig = sigtimedwait(set, NULL, &ts);
			if (sig < 0 && errno != EAGAIN)
				continue; /* EINTR: a signal we do not take */
		}
		if (sig == SIGHUP) {
			reopen_log(o->log_path);
			continue;
		}
		if (sig <= 0 && now_monotonic_ns() < until)
			continue;
		errors += snapshot(d, sd, &prev, &total) != 0;
		profile_free(&prev);
		prev = total;
		if (sig == SIGTERM || sig == SIGINT || (stop && now_monotonic_ns() >= stop)) {
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
	struct daemon d = { .lock = PTHREAD_MUTEX_INITIALIZER, .stats.buckets = o->buckets };
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

	record_profile_init(&o->rec, &d.base);
	probe = o->rec.probe;
	probe.filter_tasks = o->rec.pid != 0;
	if (o->rec.pid)
		probe.track[probe.ntrack++] = o->rec.pid;
	ret = recorder_attach(&d.rec, &probe, &d.base);
	if (ret != EXIT_OK)
		goto out;
	d.base.start_ns = now_realtime_ns();

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
	pr_info("snapshots every %g s into %s (the newest %u kept)", o->interval_s, sd.path, o->keep);
	/* Scripts and tests wait for this line: the endpoint answers from now on. */
	pr_info("listening on %s://%s/metrics", o->web && o->web->tls ? "https" : "http",
		http_address(srv));
	ret = serve(&d, &sd, o, &set);
out:
	http_stop(srv); /* no scrape reads the maps once they go */
	recorder_detach(&d.rec);
	statedir_close(&sd);
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
