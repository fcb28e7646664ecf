// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's own process as the process_* metrics describe it
 * (prom_process_read(), src/prom/prom.h): read from /proc/self and
 * getrlimit(), apart from the exposition, which only writes what it is
 * given.
 */
#include "prom/prom.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int prom_process_read(struct prom_process *pp)
{
	unsigned long long utime, stime, start, vsize;
	struct timespec real, boot;
	long long rss;
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char buf[1024], *p;
	struct rlimit rl;
	struct dirent *e;
	FILE *f;
	DIR *dir;
	int n;

	memset(pp, 0, sizeof(*pp));
	f = fopen("/proc/self/stat", "re");
	if (!f)
		return -errno;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* comm, field 2, may hold spaces and parentheses: count from the last ')' */
	if (!p || !(p = strrchr(buf, ')')))
		return -EINVAL;
	n = sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
		   "%*d %*d %*d %*d %llu %llu %lld", &utime, &stime, &start, &vsize, &rss);
	if (n != 5 || ticks <= 0 || page <= 0)
		return -EINVAL;
	/*
	 * `start` is in clock ticks since boot (CLOCK_BOOTTIME): now minus the
	 * time since then.  /proc/stat's btime would do too, but it is whole
	 * seconds, so the start could read up to a second early.
	 */
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	pp->cpu_seconds = (double)(utime + stime) / ticks;
	pp->start_time_seconds = real.tv_sec + real.tv_nsec / 1e9 -
				 (boot.tv_sec + boot.tv_nsec / 1e9 - (double)start / ticks);
	pp->virtual_bytes = vsize;
	pp->resident_bytes = (uint64_t)rss * page;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	pp->max_fds = rl.rlim_cur;
	/* what the client libraries count: /proc/self/fd, the descriptor reading it included */
	if (!(dir = opendir("/proc/self/fd")))
		return -errno;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			pp->open_fds++;
	closedir(dir);
	return 0;
}
