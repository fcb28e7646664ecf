// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The passwords of --web-config's basic_auth_users (see webconfig.h):
 * bcrypt through libcrypt's crypt_rn(), a verified password remembered as
 * the SHA-256 of user and password (GnuTLS), every comparison in constant
 * time.  No password, hash or digest is ever written anywhere.
 */
#include "prom/webconfig.h"

#include <crypt.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <stdlib.h>
#include <string.h>

/* Equal or not, in a time that depends on the length alone. */
static bool same_bytes(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/* SHA-256 of USER, NUL, PASSWORD: what is kept of a password that verified. */
static int digest(const char *user, const char *password, unsigned char out[32])
{
	size_t ul = strlen(user), pl = strlen(password);
	char *buf = malloc(ul + 1 + pl);
	int ret;

	if (!buf)
		return -1;
	memcpy(buf, user, ul + 1);
	memcpy(buf + ul + 1, password, pl);
	ret = gnutls_hash_fast(GNUTLS_DIG_SHA256, buf, ul + 1 + pl, out);
	explicit_bzero(buf, ul + 1 + pl);
	free(buf);
	return ret < 0 ? -1 : 0;
}

/* The dummy hash's salt, at the highest cost of the users, made once. */
static const char *dummy_setting(struct webconfig *wc)
{
	int cost = 4;

	if (wc->dummy_setting[0])
		return wc->dummy_setting;
	for (size_t i = 0; i < wc->nusers; i++) {
		int c = (wc->users[i].hash[4] - '0') * 10 + (wc->users[i].hash[5] - '0');

		cost = c > cost ? c : cost;
	}
	if (!crypt_gensalt_rn("$2b$", cost, NULL, 0, wc->dummy_setting,
			      sizeof(wc->dummy_setting)))
		wc->dummy_setting[0] = 0;
	return wc->dummy_setting;
}

static struct webconfig_user *find_user(struct webconfig *wc, const char *user)
{
	struct webconfig_user *u = NULL;

	/* Every name compared, so that the time does not tell where a user is. */
	for (size_t i = 0; i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, user))
			u = &wc->users[i];
	return u;
}

/* Whether D is the digest remembered for U; under wc->lock. */
static bool remembered(const struct webconfig_user *u, const unsigned char d[32])
{
	return u && u->has_good && same_bytes(d, u->good, 32);
}

bool webconfig_remembered(struct webconfig *wc, const char *user, const char *password)
{
	struct webconfig_user *u = find_user(wc, user);
	unsigned char d[32];
	bool ok;

	if (!u || digest(user, password, d))
		return false;
	pthread_mutex_lock(&wc->lock);
	ok = remembered(u, d);
	pthread_mutex_unlock(&wc->lock);
	explicit_bzero(d, sizeof(d));
	return ok;
}

enum webauth webconfig_authenticate(struct webconfig *wc, const char *user,
				    const char *password)
{
	struct webconfig_user *u = find_user(wc, user);
	unsigned char d[32];
	struct crypt_data *cd;
	const char *setting, *out;
	bool ok = false, have_digest;

	have_digest = digest(user, password, d) == 0;
	pthread_mutex_lock(&wc->lock);
	if (have_digest && remembered(u, d)) {
		pthread_mutex_unlock(&wc->lock);
		explicit_bzero(d, sizeof(d));
		return WEBAUTH_OK;
	}
	setting = u ? u->hash : dummy_setting(wc);
	pthread_mutex_unlock(&wc->lock);

	/* struct crypt_data is 32 KiB: on the heap, not on a thread's stack. */
	cd = calloc(1, sizeof(*cd));
	if (cd && *setting) {
		out = crypt_rn(password, setting, cd, sizeof(*cd));
		ok = u && out && strlen(out) == strlen(u->hash) &&
		     same_bytes(out, u->hash, strlen(u->hash));
		explicit_bzero(cd, sizeof(*cd));
	}
	free(cd);

	if (ok && have_digest) {
		pthread_mutex_lock(&wc->lock);
		memcpy(u->good, d, sizeof(d));
		u->has_good = true;
		pthread_mutex_unlock(&wc->lock);
	}
	explicit_bzero(d, sizeof(d));
	return ok ? WEBAUTH_OK : WEBAUTH_DENIED;
}
