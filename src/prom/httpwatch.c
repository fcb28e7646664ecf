// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The request deadline (see httpwatch.h). */
#include "prom/httpwatch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "util.h"

/* How often the thread looks: the deadline is kept to within this. */
#define WATCH_TICK_MS 100

struct watched {
	const void *conn;      /* NULL: a free slot */
	int fd;
	bool shut;             /* shutdown(2) done; waiting for MHD to close it */
	uint64_t deadline_ns;
};

struct http_watch {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	unsigned int nslots;
	uint64_t deadline_ns, expired;
	struct watched slot[];
};

static void *watch(void *arg)
{
	struct http_watch *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec until;
		uint64_t now = now_monotonic_ns();

		for (unsigned int i = 0; i < w->nslots; i++) {
			struct watched *c = &w->slot[i];

			if (c->conn && !c->shut && now >= c->deadline_ns) {
				shutdown(c->fd, SHUT_RDWR);
				c->shut = true;
				w->expired++;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += WATCH_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct http_watch *http_watch_start(unsigned int slots, unsigned int deadline_ms)
{
	struct http_watch *w = calloc(1, sizeof(*w) + slots * sizeof(w->slot[0]));
	pthread_condattr_t attr;

	if (!w)
		return NULL;
	w->nslots = slots;
	w->deadline_ns = deadline_ms * 1000000ULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->thread, NULL, watch, w)) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void http_watch_add(struct http_watch *w, const void *conn, int fd)
{
	pthread_mutex_lock(&w->lock);
	/* MHD accepts no more connections than there are slots. */
	for (unsigned int i = 0; i < w->nslots; i++)
		if (!w->slot[i].conn) {
			w->slot[i] = (struct watched){ conn, fd, false,
						       now_monotonic_ns() + w->deadline_ns };
			break;
		}
	pthread_mutex_unlock(&w->lock);
}

void http_watch_done(struct http_watch *w, const void *conn)
{
	pthread_mutex_lock(&w->lock);
	for (unsigned int i = 0; i < w->nslots; i++)
		if (w->slot[i].conn == conn)
			w->slot[i].conn = NULL;
	pthread_mutex_unlock(&w->lock);
}

uint64_t http_watch_expired(struct http_watch *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->expired;
	pthread_mutex_unlock(&w->lock);
	return n;
}

void http_watch_stop(struct http_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
