// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's duty cycle (src/run/dutycycle.c) on a clock of its own:
 * what --duty-cycle accepts, when families pause and resume, how long each
 * watched, and a window a family could not attach for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/dutycycle.h"

#define S 1000000000ULL
#define MS 1000000ULL

struct fake {
	uint64_t now;
	uint64_t attach_ns, detach_ns; /* each attach or detach takes this long */
	bool attached[FAMILY_COUNT], counting[FAMILY_COUNT];
	bool refuse[FAMILY_COUNT];
	int pauses, resumes;
	__u32 last_window, window[FAMILY_COUNT];
};

static void fake_count(void *ctx, enum family_id f, __u32 window)
{
	struct fake *k = ctx;

	/* counting only with every hook there; a new window number each time */
	if (window) {
		assert_true(k->attached[f]);
		assert_true(window > k->window[f]);
		k->window[f] = k->last_window = window;
	}
	k->counting[f] = window != 0;
}

static void fake_detach(void *ctx, enum family_id f)
{
	struct fake *k = ctx;

	assert_true(k->attached[f]);
	/* every family stopped counting before any is detached */
	for (int g = 0; g < FAMILY_COUNT; g++)
		assert_false(k->counting[g]);
	k->now += k->detach_ns;
	k->attached[f] = false;
	k->pauses++;
}

static int fake_attach(void *ctx, enum family_id f, char *why, size_t len)
{
	struct fake *k = ctx;

	assert_false(k->attached[f]);
	assert_false(k->counting[f]);
	k->now += k->attach_ns;
	k->resumes++;
	if (k->refuse[f]) {
		snprintf(why, len, "refused by the test");
		return -22;
	}
	k->attached[f] = true;
	return 0;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static void start(struct duty_cycle *c, struct fake *k, const char *arg)
{
	const struct duty_hooks h = { fake_count, fake_detach, fake_attach, fake_now, k };
	bool on[FAMILY_COUNT] = { 0 };
	uint64_t w, p;
	char why[256];

	assert_int_equal(duty_cycle_parse(arg, &w, &p, why, sizeof(why)), 0);
	on[FAMILY_ACCESS] = on[FAMILY_EXEC] = true;
	k->attached[FAMILY_ACCESS] = k->attached[FAMILY_EXEC] = true;
	k->counting[FAMILY_ACCESS] = k->counting[FAMILY_EXEC] = true;
	k->last_window = k->window[FAMILY_ACCESS] = k->window[FAMILY_EXEC] = 1;
	duty_cycle_start(c, w, p, on, &h);
}

/* Run the cycle's loop until T, stepping whenever it asks to be woken. */
static void run_until(struct duty_cycle *c, struct fake *k, uint64_t t)
{
	const struct duty_hooks h = { fake_count, fake_detach, fake_attach, fake_now, k };
	uint64_t next;

	while ((next = duty_cycle_step(c, &h)) <= t)
		if (k->now < next)
			k->now = next;
	k->now = t;
}

static void the_option_takes_seconds_or_always_and_refuses_the_rest(void **state)
{
	static const char *const bad[] = { "", "1", "1/", "/5", "0.2/0.2", "1/0.5", "0.01/1",
					   "-1/5", "1/5s", "1e1/100", "0x1/5", "1..2/5",
					   "1/90000", "nan/5", "0.2/15/3", "always ", "50%" };
	uint64_t w, p;
	char why[256];

	(void)state;
	assert_int_equal(duty_cycle_parse("always", &w, &p, why, sizeof(why)), 0);
	assert_true(w == 0 && p == 0);
	assert_int_equal(duty_cycle_parse("100%", &w, &p, why, sizeof(why)), 0);
	assert_true(w == 0 && p == 0);
	assert_int_equal(duty_cycle_parse("0.2/15", &w, &p, why, sizeof(why)), 0);
	assert_true(w == 200 * MS && p == 15 * S);
	assert_int_equal(duty_cycle_parse("0.05/86400", &w, &p, why, sizeof(why)), 0);
	assert_true(w == 50 * MS && p == 86400 * S);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		if (duty_cycle_parse(bad[i], &w, &p, why, sizeof(why)) != -22)
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(why[0]);
	}
	duty_cycle_describe(200 * MS, 15 * S, why, sizeof(why));
	assert_string_equal(why, "0.2 s in every 15 s (1.3 % of the time)");
	duty_cycle_describe(0, 0, why, sizeof(why));
	assert_string_equal(why, "always on");
}

/* Over 10 periods of 0.5/2: 10 windows, 5 s watched, paused between. */
static void families_watch_only_inside_their_windows(void **state)
{
	struct fake k = { .now = 1000 * S };
	struct duty_cycle c;
	struct profile p;

	(void)state;
	start(&c, &k, "0.5/2");
	run_until(&c, &k, 1000 * S + 400 * MS);
	assert_true(k.attached[FAMILY_ACCESS] && k.attached[FAMILY_EXEC]);
	run_until(&c, &k, 1000 * S + 600 * MS);
	assert_false(k.attached[FAMILY_ACCESS] || k.attached[FAMILY_EXEC]);
	run_until(&c, &k, 1020 * S - 1);
	assert_false(k.attached[FAMILY_ACCESS]); /* the 10th window closed at 1018.5 */
	profile_init(&p);
	duty_cycle_observed(&c, k.now, &p);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.windows, 10);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.ns, 5 * S);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.failed, 0);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.window_ns, 500 * MS);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.period_ns, 2 * S);
	assert_int_equal(p.fam[FAMILY_LOOKUP].observed.ns, 0); /* not taking part */
	assert_int_equal(k.last_window, 10);
	/* inside the 11th window, the open part counts */
	run_until(&c, &k, 1020 * S + 100 * MS);
	duty_cycle_observed(&c, k.now, &p);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.ns, 5 * S + 100 * MS);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.windows, 11);
	profile_free(&p);
}

/*
 * Neither attach nor detach is watched time, and the families of a window
 * watch the same time: every hook is back before any counts, and all stop
 * before any is detached.
 */
static void the_time_an_attach_takes_is_not_counted_as_watched(void **state)
{
	struct fake k = { .now = 0, .attach_ns = 30 * MS, .detach_ns = 40 * MS };
	struct duty_cycle c;
	struct profile p;

	(void)state;
	start(&c, &k, "0.2/1");
	run_until(&c, &k, 3 * S - 1); /* windows 1 (loaded in it), 2, 3 */
	profile_init(&p);
	duty_cycle_observed(&c, k.now, &p);
	/* window 1 whole; 2 and 3 from when both attaches are done (60 ms in) */
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.ns, 200 * MS + 2 * (200 - 60) * MS);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.ns, p.fam[FAMILY_ACCESS].observed.ns);
	profile_free(&p);
}

/* A family that cannot come back counts the window as failed and watches nothing in it. */
static void a_window_that_cannot_attach_is_failed_not_watched(void **state)
{
	struct fake k = { .now = 0 };
	struct duty_cycle c;
	struct profile p;

	(void)state;
	start(&c, &k, "1/4");
	run_until(&c, &k, 5 * S); /* window 2 open */
	k.refuse[FAMILY_EXEC] = true;
	run_until(&c, &k, 13 * S); /* windows 3, 4 refused to exec */
	k.refuse[FAMILY_EXEC] = false;
	run_until(&c, &k, 16 * S - 1); /* window 4 closed at 13 */
	profile_init(&p);
	duty_cycle_observed(&c, k.now, &p);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.windows, 4);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.failed, 0);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.ns, 4 * S);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.windows, 2);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.failed, 2);
	assert_int_equal(p.fam[FAMILY_EXEC].observed.ns, 2 * S);
	run_until(&c, &k, 16 * S + 500 * MS); /* window 5: exec back */
	assert_true(k.attached[FAMILY_EXEC]);
	profile_free(&p);
}

/* A loop that wakes late skips the windows it missed, and never bunches them. */
static void a_late_loop_skips_windows_rather_than_bunching_them(void **state)
{
	const struct duty_hooks h = { fake_count, fake_detach, fake_attach, fake_now, NULL };
	struct duty_hooks hk = h;
	struct fake k = { .now = 0 };
	struct duty_cycle c;
	uint64_t next;
	struct profile p;

	(void)state;
	hk.ctx = &k;
	start(&c, &k, "1/10");
	k.now = 1 * S;
	next = duty_cycle_step(&c, &hk); /* pause window 1 */
	assert_int_equal(next, 10 * S);
	k.now = 35 * S + 500 * MS; /* asleep through windows at 10, 20, 30 */
	next = duty_cycle_step(&c, &hk); /* 30..31 is over: nothing opens */
	assert_int_equal(next, 40 * S);
	assert_false(k.attached[FAMILY_ACCESS]);
	k.now = 40 * S + 300 * MS;
	next = duty_cycle_step(&c, &hk); /* late into the window at 40: opens for its rest */
	assert_int_equal(next, 41 * S);
	assert_true(k.attached[FAMILY_ACCESS]);
	k.now = 41 * S;
	duty_cycle_step(&c, &hk);
	profile_init(&p);
	duty_cycle_observed(&c, k.now, &p);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.windows, 2);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.ns, 1 * S + 700 * MS);
	profile_free(&p);
}

/* Always on: never paused, watching since the start. */
static void always_on_never_pauses(void **state)
{
	struct fake k = { .now = 5 * S };
	struct duty_cycle c;
	struct profile p;

	(void)state;
	start(&c, &k, "always");
	run_until(&c, &k, 3600 * S);
	assert_int_equal(k.pauses, 0);
	profile_init(&p);
	duty_cycle_observed(&c, k.now, &p);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.ns, 3595 * S);
	assert_int_equal(p.fam[FAMILY_ACCESS].observed.period_ns, 0);
	assert_false(family_duty_cycled(&p.fam[FAMILY_ACCESS]));
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_option_takes_seconds_or_always_and_refuses_the_rest),
		cmocka_unit_test(families_watch_only_inside_their_windows),
		cmocka_unit_test(the_time_an_attach_takes_is_not_counted_as_watched),
		cmocka_unit_test(a_window_that_cannot_attach_is_failed_not_watched),
		cmocka_unit_test(a_late_loop_skips_windows_rather_than_bunching_them),
		cmocka_unit_test(always_on_never_pauses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
