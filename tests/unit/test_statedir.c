// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The daemon's state directory: numbering, pruning, the lock, what readers see. */
#include <dirent.h>
#include <sys/stat.h>

#include "testutil.h"

#include "profile.h"
#include "statedir.h"
#include "util.h"

/* A profile whose access family counted `fast` fast calls, ending at `end_s`. */
static void make_profile(struct profile *p, __u64 fast, uint64_t end_s)
{
	profile_init(p);
	strcpy(p->tool_version, "test");
	p->fam[FAMILY_ACCESS].status = FAMILY_OK;
	p->fam[FAMILY_ACCESS].mode = MODE_TRACEPOINT;
	p->access.calls[ACCESS_FAST] = fast;
	p->access.latency[ACCESS_FAST].slots[5] = fast; /* the reader checks they agree */
	p->access.latency[ACCESS_FAST].count = fast;
	p->access.latency[ACCESS_FAST].sum = fast * 40;
	p->start_ns = 1796000000ULL * 1000000000ULL;
	p->end_ns = end_s * 1000000000ULL;
}

static int count_entries(const char *dir, const char *with)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strstr(de->d_name, with) != NULL;
	closedir(d);
	return n;
}

static void snapshots_are_numbered_and_only_the_newest_k_stay(void **state)
{
	const char *dir = tmp_path("keep");
	char err[512], name[PATH_MAX + 64], newest[PATH_MAX];
	struct statedir sd;
	struct profile p;

	(void)state;
	assert_int_equal(statedir_open(&sd, dir, 3, err, sizeof(err)), 0);
	for (int i = 1; i <= 5; i++) {
		make_profile(&p, 100 * i, 1796000000 + i);
		assert_int_equal(statedir_snapshot(&sd, &p, &p, name, sizeof(name)), 0);
		profile_free(&p);
	}
	assert_contains(name, "/snap-00000005-20261130T005325Z"); /* end time, UTC */
	assert_contains(name, ".total.json");
	assert_int_equal(count_entries(dir, ".total.json"), 3);
	assert_int_equal(count_entries(dir, ".delta.json"), 3);
	assert_int_equal(count_entries(dir, "snap-00000002-"), 0);
	assert_int_equal(count_entries(dir, "snap-00000003-"), 2);
	/* Readers take the directory for its newest total. */
	assert_int_equal(statedir_newest_total(dir, newest, sizeof(newest), err, sizeof(err)), 0);
	assert_string_equal(newest, name);
	if (statedir_profile_read(dir, &p, err, sizeof(err)))
		fail_msg("%s: %s", dir, err);
	assert_int_equal(p.access.calls[ACCESS_FAST], 500);
	profile_free(&p);
	statedir_close(&sd);

	/* Numbers go on after a restart; a smaller --keep prunes at once. */
	assert_int_equal(statedir_open(&sd, dir, 1, err, sizeof(err)), 0);
	assert_int_equal(count_entries(dir, ".total.json"), 1);
	make_profile(&p, 7, 1796000100);
	assert_int_equal(statedir_snapshot(&sd, &p, &p, name, sizeof(name)), 0);
	profile_free(&p);
	assert_contains(name, "/snap-00000006-");
	assert_int_equal(count_entries(dir, "snap-"), 2);
	statedir_close(&sd);
}

static void a_locked_state_dir_refuses_a_second_owner(void **state)
{
	const char *dir = tmp_path("locked");
	char err[512], pid[32];
	struct statedir a, b;

	(void)state;
	assert_int_equal(statedir_open(&a, dir, 3, err, sizeof(err)), 0);
	assert_int_equal(statedir_open(&b, dir, 3, err, sizeof(err)), -1);
	snprintf(pid, sizeof(pid), "(pid %d)", (int)getpid());
	assert_contains(err, "is in use by another permscope daemon");
	assert_contains(err, pid);
	statedir_close(&a);
	assert_int_equal(statedir_open(&b, dir, 3, err, sizeof(err)), 0); /* released */
	statedir_close(&b);
}

static void what_an_interrupted_write_left_is_cleared(void **state)
{
	const char *dir = tmp_path("torn"), *tmp = tmp_path("torn/snap-00000001-x.total.json.tmp.AbCdEf");
	const char *other = tmp_path("torn/notes.txt");
	char err[512];
	struct statedir sd;

	(void)state;
	assert_int_equal(mkdir(dir, 0750), 0);
	write_file(tmp, "{\"format\": \"perm", 16);
	write_file(other, "mine", 4);
	assert_int_equal(statedir_open(&sd, dir, 3, err, sizeof(err)), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(access(other, F_OK), 0); /* not ours: left alone */
	/* No snapshot yet: a reader is told so, never handed a torn file. */
	assert_int_equal(statedir_newest_total(dir, err, sizeof(err), err, sizeof(err)), -1);
	assert_contains(err, "a directory without snapshots");
	statedir_close(&sd);
}

static void a_state_dir_others_can_write_is_refused(void **state)
{
	const char *dir = tmp_path("open");
	char err[512];
	struct statedir sd;

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(statedir_open(&sd, dir, 3, err, sizeof(err)), -1);
	assert_contains(err, "writable by others");
	write_file(tmp_path("a-file"), "x", 1);
	assert_int_equal(statedir_open(&sd, tmp_path("a-file"), 3, err, sizeof(err)), -1);
	assert_contains(err, "Not a directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshots_are_numbered_and_only_the_newest_k_stay),
		cmocka_unit_test(a_locked_state_dir_refuses_a_second_owner),
		cmocka_unit_test(what_an_interrupted_write_left_is_cleared),
		cmocka_unit_test(a_state_dir_others_can_write_is_refused),
	};

	return cmocka_run_group_tests_name("statedir", tests, tmpdir_setup, tmpdir_teardown);
}
