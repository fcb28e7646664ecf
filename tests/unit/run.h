/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Running the permscope binary from a cmocka test, without a shell:
 * permscope("record", "--help", NULL) returns the exit status and leaves
 * stdout and stderr in out_text and err_text.  The including test defines
 * PERMSCOPE_TMPDIR (a mkdtemp template) and sets `bin` before use.
 */
#ifndef PERMSCOPE_TEST_RUN_H
#define PERMSCOPE_TEST_RUN_H

#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

static const char *bin;
static char tmpdir[] = PERMSCOPE_TMPDIR;
static char out_text[65536], err_text[65536];

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

/* Run permscope with the given arguments; stdout/stderr land in out_text/err_text. */
static int permscope(const char *first, ...)
{
	char *argv[32], out[600], err[600];
	posix_spawn_file_actions_t fa;
	int n = 0, status;
	va_list ap;
	pid_t pid;

	argv[n++] = (char *)bin;
	va_start(ap, first);
	for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	snprintf(out, sizeof(out), "%s/stdout", tmpdir);
	snprintf(err, sizeof(err), "%s/stderr", tmpdir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	slurp(out, out_text, sizeof(out_text));
	slurp(err, err_text, sizeof(err_text));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
