// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make install` and `make uninstall` into a scratch DESTDIR, no privileges
 * needed: exactly the files the README's "Installing" lists land where
 * PREFIX says (the binary, every man page of docs/man, the bash completion, the
 * unit with ExecStart= rewritten to PREFIX, /etc/default/permscope, the
 * docs, the example files), with their modes; the defaults file names only
 * options the daemon has; the example rules parse and judge; an edited
 * defaults file survives both a second install and uninstall.
 *
 * The expected list is built from the tree (the man pages, docs and
 * contrib/ files there), so a new page or example is expected without
 * editing this test; permscope.8 and permscope-daemon.8 are named.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define MAKE "/usr/bin/make"

static char top[PATH_MAX / 2]; /* the source tree: tests/unit/data/../../.. */
static char skip_all[256];   /* why nothing here can run, or "" */

static int setup(void **state)
{
	char path[PATH_MAX + 16], real[PATH_MAX];

	if (tmpdir_setup(state))
		return -1;
	snprintf(path, sizeof(path), "%s/../../..", testdata_dir());
	if (!realpath(path, real) || strlen(real) >= sizeof(top))
		snprintf(skip_all, sizeof(skip_all), "no source tree above %s", testdata_dir());
	else if (access(MAKE, X_OK))
		snprintf(skip_all, sizeof(skip_all), "%s is not installed", MAKE);
	else
		strcpy(top, real);
	return 0;
}

#define skip_unless_tree() do {                                         \
	if (skip_all[0]) {                                              \
		print_message("skipped: %s\n", skip_all);               \
		skip();                                                 \
	}                                                               \
} while (0)

/* `make -s -C TOP TARGET [ARG...]`, which must exit 0. */
static void make(const char *target, const char *arg1, const char *arg2)
{
	char *argv[] = { MAKE, "-s", "-C", top, (char *)target, (char *)arg1, (char *)arg2, NULL };

	if (run_capture(argv) != 0) {
		print_error("make %s %s %s:\n%s%s", target, arg1 ? arg1 : "", arg2 ? arg2 : "",
			    out_text, err_text);
		fail();
	}
}

/* TOP/REL, in a static buffer of its own per call site's use. */
static const char *in_tree(const char *rel)
{
	static char paths[4][PATH_MAX];
	static unsigned int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", top, rel);
	return p;
}

/* ---- file lists: one path a line, sorted, so that a diff reads well ------ */

struct list {
	char **v;
	size_t n, cap;
};

static void list_add(struct list *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	assert_true(vasprintf(&s, fmt, ap) > 0);
	va_end(ap);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The list as text, sorted, one entry a line; the list is freed. */
static char *list_text(struct list *l)
{
	size_t len = 1;
	char *text;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_str);
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	text = calloc(1, len);
	assert_non_null(text);
	for (size_t i = 0; i < l->n; i++) {
		strcat(strcat(text, l->v[i]), "\n");
		free(l->v[i]);
	}
	free(l->v);
	*l = (struct list){ 0 };
	return text;
}

/* nftw has no user pointer: the walk's list and the prefix it strips. */
static struct list *walk_list;
static size_t walk_strip;
static const char *walk_as;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_F || flag == FTW_SL)
		list_add(walk_list, "%s%s %04o", walk_as, path + walk_strip,
			 (unsigned int)(st->st_mode & 07777));
	return 0;
}

/*
 * Every file and symlink under DIR (none if it does not exist) as
 * "AS/relative/path MODE", MODE in octal (what the walk found; for the
 * tree's files, the mode install gives them is passed in AS instead).
 */
static void list_tree(struct list *l, const char *dir, const char *as)
{
	walk_list = l;
	walk_strip = strlen(dir);
	walk_as = as;
	if (access(dir, F_OK) == 0)
		assert_int_equal(nftw(dir, walk_one, 16, FTW_PHYS), 0);
}

/* The files of the tree matching PATTERN (relative to TOP), as "DEST/NAME 0644". */
static void expect_glob(struct list *l, const char *pattern, const char *dest)
{
	glob_t g;

	if (glob(in_tree(pattern), 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			list_add(l, "%s/%s 0644", dest, strrchr(g.gl_pathv[i], '/') + 1);
		globfree(&g);
	}
}

/* What `make install DESTDIR=.. PREFIX=PREFIX` must write, and nothing else. */
static char *expected_files(const char *prefix, const char *unitdir)
{
	char p[PATH_MAX];
	struct list l = { 0 };
	struct list trees = { 0 };

	list_add(&l, "%s/bin/permscope 0755", prefix);
	snprintf(p, sizeof(p), "%s/share/man/man8", prefix);
	expect_glob(&l, "docs/man/*.8", p);
	if (access(in_tree("contrib/bash-completion/permscope"), F_OK) == 0)
		list_add(&l, "%s/share/bash-completion/completions/permscope 0644", prefix);
	list_add(&l, "%s/permscope.service 0644", unitdir);
	list_add(&l, "/etc/default/permscope 0644");
	list_add(&l, "%s/share/doc/permscope/README.md 0644", prefix);
	snprintf(p, sizeof(p), "%s/share/doc/permscope/docs", prefix);
	expect_glob(&l, "docs/*.md", p);
	snprintf(p, sizeof(p), "%s/share/doc/permscope/docs/images", prefix);
	expect_glob(&l, "docs/images/*.png", p);
	snprintf(p, sizeof(p), "%s/share/doc/permscope/examples", prefix);
	expect_glob(&l, "contrib/examples/*", p);
	/* contrib/prometheus/ and grafana/ keep their layout under examples/. */
	for (const char *const *dir = (const char *const[]){ "prometheus", "grafana", NULL };
	     *dir; dir++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "contrib/%s", *dir);
		snprintf(p, sizeof(p), "%s/share/doc/permscope/examples/%s", prefix, *dir);
		list_tree(&trees, in_tree(rel), p);
	}
	for (size_t i = 0; i < trees.n; i++) {
		*strrchr(trees.v[i], ' ') = 0;
		list_add(&l, "%s 0644", trees.v[i]);
		free(trees.v[i]);
	}
	free(trees.v);
	return list_text(&l);
}

static char *installed_files(const char *destdir)
{
	struct list l = { 0 };

	list_tree(&l, destdir, "");
	return list_text(&l);
}

/* One line of TEXT equals LINE. */
static bool has_line(const char *text, const char *line, size_t len)
{
	for (const char *p = text; *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, line, len) && p[len] == '\n')
			return true;
	return false;
}

/* The installed list GOT is WANT; else the test fails naming each difference. */
static void assert_file_list(const char *got, const char *want)
{
	bool same = true;

	for (const char *p = want; *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");

		if (!has_line(got, p, len)) {
			print_error("missing:    %.*s\n", (int)len, p);
			same = false;
		}
	}
	for (const char *p = got; *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");

		if (!has_line(want, p, len)) {
			print_error("unexpected: %.*s\n", (int)len, p);
			same = false;
		}
	}
	if (!same)
		fail_msg("make install wrote another set of files than the tree calls for");
}

/* The contents of DESTDIR/PATH; the test fails if it cannot be read. */
static char *read_installed(const char *destdir, const char *path)
{
	char p[PATH_MAX];
	char *text;

	snprintf(p, sizeof(p), "%s%s", destdir, path);
	text = slurp(p, NULL);
	if (!text)
		fail_msg("cannot read %s: %s", p, strerror(errno));
	return text;
}

static void assert_same_file(const char *destdir, const char *path, const char *tree_rel)
{
	char *got = read_installed(destdir, path), *want = slurp(in_tree(tree_rel), NULL);

	assert_non_null(want);
	if (strcmp(got, want))
		fail_msg("%s%s is not a copy of %s", destdir, path, tree_rel);
	free(got);
	free(want);
}

/* ---- the tests ----------------------------------------------------------- */

static void install_prefix_usr_writes_exactly_the_listed_files(void **state)
{
	const char *root = tmp_path("usr");
	char dest[PATH_MAX + 16], *want, *got, *unit;
	char bin[PATH_MAX + 32];

	(void)state;
	skip_unless_tree();
	snprintf(dest, sizeof(dest), "DESTDIR=%s", root);
	make("install", dest, "PREFIX=/usr");

	want = expected_files("/usr", "/lib/systemd/system");
	got = installed_files(root);
	assert_file_list(got, want);
	free(want);
	free(got);

	/* Both named pages, as the tree has them (dh compresses them, not make). */
	assert_same_file(root, "/usr/share/man/man8/permscope.8", "docs/man/permscope.8");
	assert_same_file(root, "/usr/share/man/man8/permscope-daemon.8", "docs/man/permscope-daemon.8");
	assert_same_file(root, "/etc/default/permscope", "contrib/permscope.default");
	assert_same_file(root, "/usr/share/doc/permscope/README.md", "README.md");

	/* The unit runs the installed binary with the defaults file's ARGS. */
	unit = read_installed(root, "/lib/systemd/system/permscope.service");
	assert_contains(unit, "\nExecStart=/usr/bin/permscope daemon ");
	assert_contains(unit, " $ARGS\n");
	assert_contains(unit, "\nEnvironmentFile=-/etc/default/permscope\n");
	free(unit);

	/* The installed binary is the one built: it runs. */
	snprintf(bin, sizeof(bin), "%s/usr/bin/permscope", root);
	{
		char *argv[] = { bin, "--version", NULL };

		assert_int_equal(run_capture(argv), 0);
		assert_contains(out_text, "permscope");
	}
}

static void install_default_prefix_is_usr_local_and_the_unit_follows(void **state)
{
	const char *root = tmp_path("local");
	char dest[PATH_MAX + 16], *want, *got, *unit;

	(void)state;
	skip_unless_tree();
	snprintf(dest, sizeof(dest), "DESTDIR=%s", root);
	make("install", dest, NULL);

	want = expected_files("/usr/local", "/usr/local/lib/systemd/system");
	got = installed_files(root);
	assert_file_list(got, want);
	free(want);
	free(got);

	unit = read_installed(root, "/usr/local/lib/systemd/system/permscope.service");
	assert_contains(unit, "\nExecStart=/usr/local/bin/permscope daemon ");
	assert_not_contains(unit, "/usr/bin/permscope");
	free(unit);
}

static void an_edited_defaults_file_survives_install_and_uninstall(void **state)
{
	const char *root = tmp_path("edited");
	const char *edited = "ARGS=\"--interval 5\"\n";
	char dest[PATH_MAX + 16], path[PATH_MAX + 32], *text, *left;

	(void)state;
	skip_unless_tree();
	snprintf(dest, sizeof(dest), "DESTDIR=%s", root);
	make("install", dest, "PREFIX=/usr");
	snprintf(path, sizeof(path), "%s/etc/default/permscope", root);
	write_file(path, edited, strlen(edited));

	make("install", dest, "PREFIX=/usr");
	assert_contains(out_text, "kept ");
	text = read_installed(root, "/etc/default/permscope");
	assert_string_equal(text, edited);
	free(text);

	/* uninstall removes everything but the admin's file. */
	make("uninstall", dest, "PREFIX=/usr");
	left = installed_files(root);
	assert_string_equal(left, "/etc/default/permscope 0644\n");
	free(left);
	text = read_installed(root, "/etc/default/permscope");
	assert_string_equal(text, edited);
	free(text);
}

static void uninstall_removes_an_unedited_install_whole(void **state)
{
	const char *root = tmp_path("whole");
	char dest[PATH_MAX + 16], *left;

	(void)state;
	skip_unless_tree();
	snprintf(dest, sizeof(dest), "DESTDIR=%s", root);
	make("install", dest, "PREFIX=/usr");
	make("uninstall", dest, "PREFIX=/usr");
	left = installed_files(root);
	assert_string_equal(left, "");
	free(left);
}

/*
 * contrib/permscope.default: ARGS is set (empty), and every option it
 * names, the example's included, is one `permscope daemon --help` lists;
 * the example's port is the daemon's default port.
 */
static void the_defaults_file_names_only_options_the_daemon_has(void **state)
{
	char *text, *help, *p, *port;
	int named = 0;

	(void)state;
	skip_unless_tree();
	text = slurp(in_tree("contrib/permscope.default"), NULL);
	assert_non_null(text);
	assert_contains(text, "\nARGS=\"\"\n");

	assert_int_equal(permscope("daemon", "--help", NULL), 0);
	help = strdup(out_text);
	assert_non_null(help);
	for (p = text; (p = strstr(p, "--")); ) {
		char opt[64];
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");

		if (n == 0 || n > 40) {
			p += 2;
			continue;
		}
		snprintf(opt, sizeof(opt), "--%.*s", (int)n, p + 2);
		if (!strstr(help, opt))
			fail_msg("contrib/permscope.default names %s, which permscope daemon --help "
				 "does not list", opt);
		named++;
		p += 2 + n;
	}
	assert_true(named >= 5);

	/* "default: 127.0.0.1:PORT" in --help; the example listens on PORT. */
	port = strstr(help, "127.0.0.1:");
	assert_non_null(port);
	port += strlen("127.0.0.1:");
	port[strspn(port, "0123456789")] = 0;
	{
		char want[64];

		snprintf(want, sizeof(want), ":%s\"", port);
		assert_contains(text, want);
	}
	free(help);
	free(text);
}

/*
 * The example rules are a working gate: on two saved access profiles every
 * access rule passes and the other families' are skipped (exit 0); with
 * those families asked for (--families all) they give no verdict (exit 3).
 * A rule that did not parse or named no metric would exit 2.
 */
static void the_example_rules_parse_and_judge(void **state)
{
	char base[PATH_MAX], new[PATH_MAX];

	(void)state;
	skip_unless_tree();
	snprintf(base, sizeof(base), "%s/compare-access-base.json", testdata_dir());
	snprintf(new, sizeof(new), "%s/compare-access-new.json", testdata_dir());
	assert_int_equal(permscope("gate", "--base", base, "--new", new, "--rules",
				   in_tree("contrib/examples/kernel-patch.rules"), NULL), 0);
	assert_string_equal(err_text, "");
	assert_contains(out_text, "PASS  access.unsafe ");
	assert_contains(out_text, "PASS  access.avoidable_per_call ");
	gate_unwrap();
	assert_contains(out_text, "SKIPPED  lookup.violations ");
	/* and the cred rule, which profiles from before the layout was kept do not hold */
	assert_contains(out_text, " 0 failed, 0 without verdict, 5 skipped");
	assert_int_equal(permscope("gate", "--base", base, "--new", new, "--rules",
				   in_tree("contrib/examples/kernel-patch.rules"), "--families", "all",
				   NULL), 3);
	assert_contains(out_text, " 0 failed, 4 without verdict, 1 skipped");
}

/*
 * The words of a list that runs from the line starting with KEY in TEXT
 * over its continuation lines: for a Makefile (KEY "BUILD_PKGS :=", lines
 * ending in a backslash) or a control file (KEY "Build-Depends:", lines
 * starting with a blank; each entry's version constraint dropped).
 */
static char *list_after(const char *text, const char *key, bool control)
{
	const char *p = strstr(text, key);
	struct list l = { 0 };

	if (!p)
		fail_msg("no '%s' found", key);
	p += strlen(key);
	for (;;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len), *save = NULL;

		assert_non_null(line);
		for (char *w = strtok_r(line, control ? "," : " \t\\", &save); w;
		     w = strtok_r(NULL, control ? "," : " \t\\", &save)) {
			w += strspn(w, " \t");
			w[strcspn(w, " \t(")] = 0;
			if (*w)
				list_add(&l, "%s", w);
		}
		free(line);
		if (!p[len])
			break;
		if (control ? (p[len + 1] != ' ' && p[len + 1] != '\t')
			    : (len == 0 || p[len - 1] != '\\'))
			break;
		p += len + 1;
	}
	return list_text(&l);
}

/*
 * debian/control's Build-Depends name every package of the Makefile's
 * BUILD_PKGS (less make and gcc, which build-essential brings): a library
 * the build starts to need goes into both, or the package build fails on a
 * clean machine.  (make deb installs the Build-Depends it lacks.)
 */
static void the_package_build_depends_on_the_makefiles_build_packages(void **state)
{
	char *makefile, *control, *build, *depends;

	(void)state;
	skip_unless_tree();
	makefile = slurp(in_tree("Makefile"), NULL);
	control = slurp(in_tree("debian/control"), NULL);
	assert_non_null(makefile);
	assert_non_null(control);
	build = list_after(makefile, "\nBUILD_PKGS :=", false);
	depends = list_after(control, "\nBuild-Depends:", true);
	for (const char *p = build; *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");

		if ((len == 4 && !strncmp(p, "make", 4)) || (len == 3 && !strncmp(p, "gcc", 3)))
			continue;
		if (!has_line(depends, p, len))
			fail_msg("BUILD_PKGS names %.*s, debian/control's Build-Depends do not:\n%s",
				 (int)len, p, depends);
	}
	free(build);
	free(depends);
	free(makefile);
	free(control);
}

/* The packages `make -n TARGET` would install, one a line. */
static char *packages_of(const char *target)
{
	const char *make = find_program("make"), *from, *to;
	char *argv[] = { (char *)make, "-s", "-n", "-C", (char *)in_tree("."), (char *)target,
			 NULL };
	char *list;

	if (!make)
		fail_msg("no make on $PATH");
	if (run_capture(argv) != 0)
		fail_msg("make -n %s: %s", target, err_text);
	from = strstr(out_text, "for p in ");
	to = from ? strstr(from, "; do") : NULL;
	if (!to)
		fail_msg("make -n %s installs no package list:\n%s", target, out_text);
	from += strlen("for p in ");
	/* a line a package, each ended by its newline, as has_line() reads them */
	assert_true(asprintf(&list, "%.*s\n", (int)(to - from), from) > 0);
	for (char *c = list; *c; c++)
		if (*c == ' ')
			*c = '\n';
	return list;
}

/*
 * tools/permscope-ab installs what booting kernels (make vm-deps) and
 * building them (make kernel-deps) need, not the tests' Chromium or
 * Prometheus; make test-deps stays a superset of vm-deps.
 */
static void the_ab_installs_the_vm_not_the_tests_packages(void **state)
{
	char *vm, *all, *ab;

	(void)state;
	skip_unless_tree();
	vm = packages_of("vm-deps");
	all = packages_of("test-deps");
	for (const char *p = vm; *p; p += strcspn(p, "\n") + 1) {
		size_t len = strcspn(p, "\n");

		if (!has_line(all, p, len))
			fail_msg("vm-deps installs %.*s, test-deps does not", (int)len, p);
	}
	assert_true(has_line(vm, "qemu-system-x86", strlen("qemu-system-x86")));
	assert_true(has_line(vm, "busybox-static", strlen("busybox-static")));
	assert_false(has_line(vm, "chromium", strlen("chromium")));
	assert_false(has_line(vm, "prometheus", strlen("prometheus")));
	assert_false(has_line(vm, "libcmocka-dev", strlen("libcmocka-dev")));
	ab = slurp(in_tree("tools/permscope-ab"), NULL);
	assert_non_null(ab);
	assert_contains(ab, "deps=vm-deps");
	assert_not_contains(ab, "test-deps");
	free(ab);
	free(vm);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(install_prefix_usr_writes_exactly_the_listed_files),
		cmocka_unit_test(install_default_prefix_is_usr_local_and_the_unit_follows),
		cmocka_unit_test(an_edited_defaults_file_survives_install_and_uninstall),
		cmocka_unit_test(uninstall_removes_an_unedited_install_whole),
		cmocka_unit_test(the_defaults_file_names_only_options_the_daemon_has),
		cmocka_unit_test(the_example_rules_parse_and_judge),
		cmocka_unit_test(the_package_build_depends_on_the_makefiles_build_packages),
		cmocka_unit_test(the_ab_installs_the_vm_not_the_tests_packages),
	};

	return cmocka_run_group_tests_name("install", tests, setup, tmpdir_teardown);
}
