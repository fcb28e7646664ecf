/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Errors, verbosity and small helpers shared by every command. */
#ifndef PERMSCOPE_UTIL_H
#define PERMSCOPE_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses, the contract scripts rely on (README, "Commands"). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,  /* the job failed */
	EXIT_REGRESSION = 1, /* gate: a rule failed (the gate's "job failed") */
	EXIT_USAGE = 2, /* bad usage or bad input */
	EXIT_NO_VERDICT = 3, /* gate: no rule failed, but one gave no verdict */
	EXIT_ENV = 4,   /* gate: its environment failed (out of memory, output unwritable) */
};

extern int verbosity; /* -1 quiet, 0 normal, 1 verbose (-v) */

/*
 * "Error: what failed: why (hint)" on stderr, bpftool style.  Named like
 * the kernel's pr_*() so they never shadow glibc's error(3) and warn(3).
 */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and notes on stderr, silenced by -q. */
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For a long-running command: log_detect_journal() gives every line a
 * syslog level prefix ("<3>" errors, "<4>" warnings, "<6>" the rest) when
 * stderr is systemd's journal, which reads it as the priority;
 * log_open(PATH) sends the lines to a file instead (appended, each with a
 * UTC timestamp), and calling it again reopens it after a rotation.
 * log_open returns 0 or -errno and keeps the old destination on failure.
 */
void log_detect_journal(void);
int log_open(const char *path);

/*
 * Read the whole of PATH, a regular file of at most `max` bytes, into a
 * malloc'ed buffer with a NUL after the last byte (*data, *len).  Every
 * reader of outside files goes through here: the open never blocks (a FIFO
 * is opened O_NONBLOCK), and anything fstat() does not call a regular file
 * (a directory, a FIFO, /dev/zero, a socket) is refused before a byte is
 * read.  0, or -errno with what was wrong in `err` ("a FIFO, not a regular
 * file"; strerror() when open or read failed).
 */
int read_input_file(const char *path, size_t max, char **data, size_t *len, char *err,
		    size_t errlen);

/* Mount tracefs at /sys/kernel/tracing when nothing is there yet. */
int ensure_tracefs(void);
/*
 * The first line of a one-line file (/proc, /sys) into BUF, without its
 * newline: false, with BUF "", when it cannot be read.
 */
bool read_first_line(const char *path, char *buf, size_t size);

/*
 * Write a whole file atomically: a new temporary file beside `path`
 * (O_EXCL, so a planted symlink is never followed), fsync, rename over
 * `path`, fsync the directory.  Readers see the old file or the new one,
 * never a part.  `newline` appends a final '\n'.  Returns 0 or -errno.
 */
int write_file_atomic(const char *path, const char *data, size_t len, bool newline);

/*
 * Print the words of `text` from column `col` on, each after a space, and
 * fold before column `width` onto a new line indented by `margin`; end
 * with a newline.
 */
void fold_words(FILE *out, int col, int margin, int width, const char *text);

/*
 * a + b, or UINT64_MAX where the sum would wrap: every count added from
 * CPUs, filesystems, outcomes or profiles goes through it, so that a
 * total is at worst stuck at the top and never small again.
 */
static inline uint64_t sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

/* Does `s` begin with `prefix`? */
static inline bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Copy `src` (NULL: "") into the `size` bytes of `dst`, cut short to fit
 * and always terminated: for fixed-size fields such as a profile's names.
 */
void copy_truncated(char *dst, const char *src, size_t size);

/*
 * `src` as text safe to print on a terminal or in a line-based log,
 * into the `size` bytes of `buf` (returned): a control byte becomes \n,
 * \r, \t or \xNN, a C1 control (U+0080..U+009F) \u00NN, a backslash
 * \\, so the mapping is one to one and no outside text can end a line,
 * move the cursor or forge a line of ours.  Cut short with "..." where it
 * does not fit, never inside an escape.
 */
const char *escape_text(const char *src, char *buf, size_t size);

/*
 * escape_text() into one of a few static buffers, for text read from a
 * file or a server that a line of ours prints (a profile's hostname, its
 * command): valid until eight more calls.  Not for threads.
 */
const char *printable(const char *src);

/*
 * How a person reads a duration: its unit ("µs") and a range's dash ("–")
 * in UTF-8, or "us" and "-" for a terminal that is not UTF-8.  HTML is
 * always UTF-8; text asks text_charset().
 */
enum charset { CHARSET_UTF8, CHARSET_ASCII };
/* UTF-8 when the first of LC_ALL, LC_CTYPE and LANG that is set names it, else ASCII. */
enum charset text_charset(void);

#define DURATION_LEN 40 /* enough for any of the three below, with its sign */
/*
 * A duration of `ns` nanoseconds with its unit, ns, µs, ms or s, chosen by
 * its size: whole nanoseconds below 1 µs, then four significant digits
 * without trailing zeros (24459.999 is "24.46µs", 1000 "1µs", 999999
 * "1ms"), whole seconds from 1000 s.  `sign` puts "+" before a value that
 * is not negative ("+0ns").  NaN and infinities are "-".  Returns buf.
 */
const char *format_duration(char *buf, size_t size, double ns, bool sign, enum charset cs);
/*
 * "mean±sd" in the mean's unit, the sd to the mean's decimals: "24.38±1.44µs"
 * ("24.38+-1.44us" in ASCII).
 */
const char *format_duration_pm(char *buf, size_t size, double mean, double sd,
			       enum charset cs);
/* The range [lo, hi) as "131.1µs–262.1µs"; hi UINT64_MAX (no bound): "549.8s–∞". */
const char *format_duration_range(char *buf, size_t size, uint64_t lo, uint64_t hi,
				  enum charset cs);
/* The columns `s` takes on a terminal: its UTF-8 characters, not its bytes. */
int text_width(const char *s);
/* `s` in `width` columns, as printf's %*s: right-aligned, left-aligned for width < 0. */
void fput_aligned(FILE *out, const char *s, int width);

/* A malloc'ed copy of the NULL-terminated `argv`, each string too; NULL when out of memory. */
char **argv_dup(char *const *argv);

/*
 * This machine's uname(2): hostname, kernel release and version, machine.
 * Every field "" should it fail, so that no caller prints what the stack
 * held before.
 */
struct utsname;
void host_uname(struct utsname *u);

/*
 * Block SIGINT, SIGTERM and `extra` in `set`, to be taken with sigwait()
 * and friends, saving the mask before in `oldmask` (for a child to
 * restore); and ignore SIGPIPE, so a closed pipe or socket is an error
 * where it is written, not our death.
 */
void block_stop_signals(int extra, sigset_t *set, sigset_t *oldmask);

uint64_t now_realtime_ns(void);
uint64_t now_monotonic_ns(void);
/* 2026-11-30T00:10:00.123456789Z */
void format_utc_ns(uint64_t ns, char *buf, size_t size);
/* Seconds since the epoch to the second, 2026-11-30T00:10:00Z; returns buf. */
const char *format_utc_s(double t, char *buf, size_t size);
int parse_utc_ns(const char *s, uint64_t *ns);

#endif
