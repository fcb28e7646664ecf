// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The password checker (see httpauth.h). */
#include "prom/httpauth.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct http_auth {
	struct webconfig *web;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	struct http_auth_job *head, **tail;  /* in arrival order */
};

static void wipe(char **s)
{
	if (*s) {
		explicit_bzero(*s, strlen(*s));
		free(*s);
		*s = NULL;
	}
}

/*
 * Resume the job's connection: the last the checker does with a job, which
 * MHD's thread may free as soon as the connection runs again.
 */
static void finish(struct http_auth_job *j, enum webauth verdict, bool done)
{
	struct MHD_Connection *c = j->conn;

	wipe(&j->password);
	free(j->user);
	j->user = NULL;
	j->verdict = verdict;
	__atomic_store_n(&j->done, done, __ATOMIC_RELEASE);
	MHD_resume_connection(c);
}

static void *checker(void *arg)
{
	struct http_auth *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct http_auth_job *j;

		while (!a->head && !a->stop)
			pthread_cond_wait(&a->wake, &a->lock);
		if (a->stop)
			break;
		j = a->head;
		a->head = j->next;
		if (!a->head)
			a->tail = &a->head;
		pthread_mutex_unlock(&a->lock);
		finish(j, webconfig_authenticate(a->web, j->user, j->password), true);
		pthread_mutex_lock(&a->lock);
	}
	while (a->head) {
		struct http_auth_job *j = a->head;

		a->head = j->next;
		finish(j, WEBAUTH_DENIED, false);
	}
	a->tail = &a->head;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct http_auth *http_auth_start(struct webconfig *web)
{
	struct http_auth *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->web = web;
	a->tail = &a->head;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	if (pthread_create(&a->thread, NULL, checker, a)) {
		pthread_cond_destroy(&a->wake);
		pthread_mutex_destroy(&a->lock);
		free(a);
		return NULL;
	}
	return a;
}

struct http_auth_job *http_auth_check(struct http_auth *a, struct MHD_Connection *conn,
				      const char *user, const char *password)
{
	struct http_auth_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->conn = conn;
	j->user = strdup(user);
	j->password = strdup(password);
	if (!j->user || !j->password) {
		http_auth_free(j);
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	if (a->stop) {
		pthread_mutex_unlock(&a->lock);
		http_auth_free(j);
		return NULL;
	}
	/*
	 * Suspended before the checker can see the job, so that its resume
	 * always follows; both on MHD's thread, as MHD requires.
	 */
	MHD_suspend_connection(conn);
	*a->tail = j;
	a->tail = &j->next;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	return j;
}

void http_auth_free(struct http_auth_job *j)
{
	if (!j)
		return;
	wipe(&j->password);
	free(j->user);
	free(j);
}

void http_auth_stop(struct http_auth *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
}

void http_auth_destroy(struct http_auth *a)
{
	if (!a)
		return;
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
