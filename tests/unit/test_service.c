// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * contrib/permscope.service as systemd itself judges it: `systemd-analyze
 * security --offline=true` must keep its exposure at or under the score
 * docs/daemon.md gives (a hardening option dropped fails here), and
 * `systemd-analyze verify` must find nothing wrong with it.  What the
 * daemon does under the unit's restrictions (its capabilities, its system
 * call filter) is asserted live, in test_live_daemon.
 *
 * Needs systemd-analyze (Debian package systemd); skipped without it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SYSTEMD_ANALYZE "/usr/bin/systemd-analyze"
/* docs/daemon.md, "Running under systemd": 2.0, in the tenths --threshold takes */
#define EXPOSURE_THRESHOLD "20"

static char unit[PATH_MAX];

static void need_systemd_analyze(void)
{
	if (access(SYSTEMD_ANALYZE, X_OK)) {
		print_message("skipped: no %s (Debian package systemd)\n", SYSTEMD_ANALYZE);
		skip();
	}
}

/* The overall exposure is at most 2.0 (it was 3.6 before the unit was hardened). */
static void the_units_exposure_is_at_most_2_0(void **state)
{
	char *argv[] = { SYSTEMD_ANALYZE, "security", "--offline=true",
			 "--threshold=" EXPOSURE_THRESHOLD, "--no-pager", unit, NULL };
	int status;

	(void)state;
	need_systemd_analyze();
	status = run_capture(argv);
	if (status != 0)
		print_message("systemd-analyze security (status %d):\n%s%s\n", status, out_text,
			      err_text);
	else
		testutil_print_text(strstr(out_text, "→ Overall") ?: out_text);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out_text, "Overall exposure level for permscope.service: 2.0"));
}

/*
 * `systemd-analyze verify` on a copy whose ExecStart= names the permscope
 * just built: the installed /usr/bin/permscope may not be there, and
 * --man=no because the man pages may not be installed either (their
 * presence is `make install`'s test).  Not a word of complaint.
 */
static void the_unit_verifies(void **state)
{
	char bin[PATH_MAX], *text, *at, *copy;
	const char *exec = "ExecStart=/usr/bin/permscope ";
	char *argv[] = { SYSTEMD_ANALYZE, "verify", "--man=no", NULL, NULL };
	int status;

	(void)state;
	need_systemd_analyze();
	assert_non_null(realpath(permscope_bin(), bin));
	text = slurp(unit, NULL);
	assert_non_null(text);
	at = strstr(text, exec);
	assert_non_null(at);
	*at = 0;
	assert_true(asprintf(&copy, "%sExecStart=%s %s", text, bin, at + strlen(exec)) > 0);
	argv[3] = (char *)write_tmp_file("permscope.service", copy);
	status = run_capture(argv);
	if (status != 0 || out_text[0] || err_text[0])
		print_message("systemd-analyze verify (status %d):\n%s%s\n", status, out_text,
			      err_text);
	assert_int_equal(status, 0);
	assert_string_equal(err_text, "");
	free(copy);
	free(text);
}

/* What the daemon's notification and the packaging rely on. */
static void the_unit_is_type_notify_with_a_watchdog(void **state)
{
	char *text = slurp(unit, NULL);

	(void)state;
	assert_non_null(text);
	assert_contains(text, "\nType=notify\n");
	assert_contains(text, "\nNotifyAccess=main\n");
	assert_contains(text, "\nWatchdogSec=30s\n");
	assert_contains(text, "\nEnvironmentFile=-/etc/default/permscope\n");
	assert_contains(text, "\nExecStart=/usr/bin/permscope daemon --state-dir "
			      "/var/lib/permscope $ARGS\n");
	assert_contains(text, "\nDocumentation=man:permscope-daemon(8) man:permscope(8)\n");
	free(text);
}

static int setup(void **state)
{
	snprintf(unit, sizeof(unit), "%s/../../../contrib/permscope.service", testdata_dir());
	return tmpdir_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_units_exposure_is_at_most_2_0),
		cmocka_unit_test(the_unit_verifies),
		cmocka_unit_test(the_unit_is_type_notify_with_a_watchdog),
	};

	return cmocka_run_group_tests_name("service", tests, setup, tmpdir_teardown);
}
