// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int verbosity;

/* Where messages go: stderr, or the daemon's --log file (log_open()). */
static FILE *log_out;
static bool log_journal; /* stderr is systemd's journal: "<3>" level prefixes */

/* Syslog levels, as journald reads them from a "<N>" line prefix. */
enum { LEVEL_ERR = 3, LEVEL_WARNING = 4, LEVEL_INFO = 6 };

static void vmsg(int level, const char *prefix, const char *fmt, va_list ap)
{
	FILE *out = log_out ? log_out : stderr;

	flockfile(out); /* one line at a time from the daemon's two threads */
	if (log_out) {
		char stamp[64];

		format_utc_ns(now_realtime_ns(), stamp, sizeof(stamp));
		fprintf(out, "%.23sZ ", stamp); /* to the millisecond */
	} else if (log_journal) {
		fprintf(out, "<%d>", level);
	}
	fputs(prefix, out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	if (log_out)
		fflush(out);
	funlockfile(out);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LEVEL_ERR, "Error: ", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(LEVEL_WARNING, "Warning: ", fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg(LEVEL_INFO, "", fmt, ap);
	va_end(ap);
}

void log_detect_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	/* systemd sets it to stderr's "device:inode" when stderr is the journal. */
	log_journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
		      fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

int log_open(const char *path)
{
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	if (log_out)
		fclose(log_out);
	log_out = f;
	return 0;
}

#define TRACEFS_MAGIC 0x74726163
#define TRACEFS_PATH "/sys/kernel/tracing"

bool read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = 0;
	if (!f)
		return false;
	ok = fgets(buf, size, f) != NULL;
	buf[ok ? strcspn(buf, "\n") : 0] = 0;
	fclose(f);
	return ok;
}

int ensure_tracefs(void)
{
	struct statfs st;

	if (statfs(TRACEFS_PATH, &st) == 0 && st.f_type == TRACEFS_MAGIC)
		return 0;
	if (mount("tracefs", TRACEFS_PATH, "tracefs", 0, NULL) == 0) {
		if (verbosity > 0)
			pr_info("mounted tracefs at %s", TRACEFS_PATH);
		return 0;
	}
	return -errno;
}

void fold_words(FILE *out, int col, int margin, int width, const char *text)
{
	while (*text) {
		int word;

		text += strspn(text, " ");
		word = strcspn(text, " ");
		if (!word)
			break;
		/* each word goes out with its leading space */
		if (col > margin && col + 1 + word > width)
			col = fprintf(out, "\n%*s", margin, "") - 1;
		col += fprintf(out, " %.*s", word, text);
		text += word;
	}
	fputc('\n', out);
}

void copy_truncated(char *dst, const char *src, size_t size)
{
	if (!size)
		return;
	snprintf(dst, size, "%s", src ? src : "");
}

const char *escape_text(const char *src, char *buf, size_t size)
{
	/* n: the text so far; room: the end of the last unit after which "..." fits */
	size_t n = 0, room = 0;

	if (!size)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(src ? src : ""); *p; p++) {
		char esc[8];
		size_t len;

		if (*p == '\\')
			len = (size_t)snprintf(esc, sizeof(esc), "\\\\");
		else if (*p == '\n')
			len = (size_t)snprintf(esc, sizeof(esc), "\\n");
		else if (*p == '\r')
			len = (size_t)snprintf(esc, sizeof(esc), "\\r");
		else if (*p == '\t')
			len = (size_t)snprintf(esc, sizeof(esc), "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			len = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			len = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", *++p);
		else
			esc[0] = (char)*p, esc[1] = 0, len = 1;
		if (n + len + 1 > size) {
			n = room;
			if (n + 4 <= size) {
				memcpy(buf + n, "...", 3);
				n += 3;
			}
			break;
		}
		memcpy(buf + n, esc, len);
		n += len;
		if (n + 4 <= size)
			room = n;
	}
	buf[n] = 0;
	return buf;
}

const char *printable(const char *src)
{
	static char buf[8][4 * 1024 + 4];
	static unsigned int next;

	return escape_text(src, buf[next++ % 8], sizeof(buf[0]));
}

enum charset text_charset(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8") ? CHARSET_UTF8 :
									       CHARSET_ASCII;
	}
	return CHARSET_ASCII;
}

static const struct {
	double scale;
	const char *utf8, *ascii;
} duration_units[] = {
	{ 1, "ns", "ns" }, { 1e3, "\u00b5s", "us" }, { 1e6, "ms", "ms" }, { 1e9, "s", "s" },
};

/*
 * The unit of a duration of `a` >= 0 ns (an index of duration_units) and
 * the decimals that give it four significant digits there; a value that
 * rounds to 1000 of a unit is 1 of the next.
 */
static int duration_unit(double a, int *decimals)
{
	int u = 1;
	double x = fmax(a / 1e3, 1); /* 999.5 ns and up: 1 µs */

	*decimals = 0;
	if (a < 999.5)
		return 0; /* whole nanoseconds: the clock's resolution */
	for (;;) {
		*decimals = x >= 100 ? 1 : x >= 10 ? 2 : 3;
		if (round(x * pow(10, *decimals)) < 1000 * pow(10, *decimals) || u == 3)
			break;
		x /= 1000;
		u++;
	}
	if (x >= 999.95)
		*decimals = 0; /* seconds past 1000: whole ones */
	return u;
}

/* `x` with `decimals` decimals, its trailing zeros and point dropped. */
static int print_trimmed(char *buf, size_t size, double x, int decimals)
{
	int n = snprintf(buf, size, "%.*f", decimals, x);

	if (n <= 0 || (size_t)n >= size || !strchr(buf, '.'))
		return n;
	while (buf[n - 1] == '0')
		buf[--n] = 0;
	if (buf[n - 1] == '.')
		buf[--n] = 0;
	return n;
}

static const char *unit_name(int u, enum charset cs)
{
	return cs == CHARSET_UTF8 ? duration_units[u].utf8 : duration_units[u].ascii;
}

const char *format_duration(char *buf, size_t size, double ns, bool sign, enum charset cs)
{
	char num[32];
	int u, d;

	if (!isfinite(ns)) {
		snprintf(buf, size, "-");
		return buf;
	}
	u = duration_unit(fabs(ns), &d);
	if (fabs(ns) >= 1e21) /* 10^12 s and more: no wall of digits */
		snprintf(num, sizeof(num), "%.4g", fabs(ns) / 1e9);
	else
		print_trimmed(num, sizeof(num), fabs(ns) / duration_units[u].scale, d);
	snprintf(buf, size, "%s%s%s", strcmp(num, "0") && ns < 0 ? "-" : sign ? "+" : "", num,
		 unit_name(u, cs));
	return buf;
}

const char *format_duration_pm(char *buf, size_t size, double mean, double sd, enum charset cs)
{
	char m[32], s[32];
	int u, d;

	if (!isfinite(mean) || !isfinite(sd) || fabs(mean) >= 1e21 || fabs(sd) >= 1e21)
		return format_duration(buf, size, isfinite(sd) ? mean : NAN, false, cs);
	u = duration_unit(fabs(mean) >= 0.5 ? fabs(mean) : fabs(sd), &d);
	print_trimmed(m, sizeof(m), fabs(mean) / duration_units[u].scale, d);
	print_trimmed(s, sizeof(s), fabs(sd) / duration_units[u].scale, d);
	snprintf(buf, size, "%s%s%s%s%s", strcmp(m, "0") && mean < 0 ? "-" : "", m,
		 cs == CHARSET_UTF8 ? "\u00b1" : "+-", s, unit_name(u, cs));
	return buf;
}

const char *format_duration_range(char *buf, size_t size, uint64_t lo, uint64_t hi,
				  enum charset cs)
{
	char a[DURATION_LEN], b[DURATION_LEN];

	format_duration(a, sizeof(a), (double)lo, false, cs);
	if (hi == UINT64_MAX)
		snprintf(b, sizeof(b), "%s", cs == CHARSET_UTF8 ? "\u221e" : "inf");
	else
		format_duration(b, sizeof(b), (double)hi, false, cs);
	snprintf(buf, size, "%s%s%s", a, cs == CHARSET_UTF8 ? "\u2013" : "-", b);
	return buf;
}

int text_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

void fput_aligned(FILE *out, const char *s, int width)
{
	int pad = abs(width) - text_width(s);

	if (width > 0)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
	fputs(s, out);
	if (width < 0)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void host_uname(struct utsname *u)
{
	if (uname(u))
		memset(u, 0, sizeof(*u));
}

uint64_t now_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t now_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void format_utc_ns(uint64_t ns, char *buf, size_t size)
{
	time_t sec = ns / 1000000000ULL;
	struct tm tm;
	char date[32];

	gmtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%09lluZ", date,
		 (unsigned long long)(ns % 1000000000ULL));
}

const char *format_utc_s(double t, char *buf, size_t size)
{
	time_t sec = (time_t)floor(t);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "%.3f", t);
	return buf;
}

int parse_utc_ns(const char *s, uint64_t *ns)
{
	struct tm tm = {0};
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	uint64_t frac = 0;
	int digits = 0;

	if (!p)
		return -EINVAL;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits < 9)
				frac = frac * 10 + (*p - '0');
		}
		if (!digits)
			return -EINVAL;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (strcmp(p, "Z") != 0)
		return -EINVAL;
	*ns = (uint64_t)timegm(&tm) * 1000000000ULL + frac;
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= n;
	}
	return 0;
}

static const char *file_type_name(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISSOCK(mode) ? "a socket" : "not a file";
}

int read_input_file(const char *path, size_t max, char **data, size_t *len, char *err,
		    size_t errlen)
{
	/* "-": standard input, a pipe or a redirected file, read to its end (`max` still holds) */
	bool std = !strcmp(path, "-");
	int fd = std ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3) :
		       open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), ret = 0;
	size_t got = 0, cap;
	struct stat st;
	char *buf = NULL;

	*data = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(-ret));
		goto out;
	}
	if (std && isatty(fd)) {
		snprintf(err, errlen, "standard input is a terminal: give a file, or pipe one in");
		ret = -EINVAL;
		goto out;
	}
	if (std && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		st.st_size = 65536; /* a first guess; the loop grows it up to max */
	else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s, not a regular file", file_type_name(st.st_mode));
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	/* st_size is a hint: a file that grows while it is read is checked on the bytes read too. */
	if ((uint64_t)st.st_size > max)
		goto too_large;
	cap = (size_t)st.st_size + 1; /* +1: end of file seen without a second read of a full buffer */
	if (!(buf = malloc(cap + 1)))
		goto no_memory;
	for (;;) {
		ssize_t n;

		if (got == cap) {
			char *t;

			if (cap > max)
				goto too_large;
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			if (!(t = realloc(buf, cap + 1)))
				goto no_memory;
			buf = t;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "read failed: %s", strerror(-ret));
			goto out;
		}
		if (n == 0)
			break;
		got += n;
	}
	buf[got] = 0;
	*data = buf;
	*len = got;
	buf = NULL;
	goto out;
too_large:
	snprintf(err, errlen, "larger than %zu MiB, the most read from a file", max >> 20);
	ret = -EFBIG;
	goto out;
no_memory:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

int write_file_atomic(const char *path, const char *data, size_t len, bool newline)
{
	char tmp[4096], *dir;
	int fd, dfd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, data, len);
	if (!ret && newline)
		ret = write_all(fd, "\n", 1);
	if (!ret && (fchmod(fd, 0644) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	/* Make the rename itself durable. */
	dir = strdup(path);
	if (dir) {
		dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	return 0;
}

char **argv_dup(char *const *argv)
{
	size_t n = 0;
	char **copy;

	while (argv[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	for (size_t i = 0; copy && i < n; i++)
		if (!(copy[i] = strdup(argv[i]))) {
			while (i--)
				free(copy[i]);
			free(copy);
			copy = NULL;
		}
	return copy;
}

void block_stop_signals(int extra, sigset_t *set, sigset_t *oldmask)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, extra);
	sigprocmask(SIG_BLOCK, set, oldmask);
	signal(SIGPIPE, SIG_IGN);
}
