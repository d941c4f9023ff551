// SPDX-License-Identifier: GPL-2.0-or-later
/* Tracepoint hit counters for probe coverage (see coverage.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "probes/coverage.h"

#define TRACEFS "/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"

static bool has_events(const char *root)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", root);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *coverage__events_dir(void)
{
	static char dir[PATH_MAX];

	if (dir[0])
		return dir;
	/* not mounted (containers, minimal images): mount it where it belongs;
	 * if that fails, the debugfs path below may still work */
	if (!has_events(TRACEFS))
		(void)mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (has_events(TRACEFS))
		snprintf(dir, sizeof(dir), "%s/events", TRACEFS);
	else if (has_events(DEBUGFS_TRACING))
		snprintf(dir, sizeof(dir), "%s/events", DEBUGFS_TRACING);
	else {
		errno = ENOENT;
		return NULL;
	}
	return dir;
}

long coverage__tp_id(const char *system, const char *event)
{
	const char *dir = coverage__events_dir();
	char path[PATH_MAX], buf[32];
	ssize_t n;
	long id;
	int fd;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, system, event);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = 0;
	id = strtol(buf, NULL, 10);
	return id > 0 ? id : -EINVAL;
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	struct rlimit rl;

	/* a counter per hook per CPU: many-CPU hosts outgrow the default 1024 fds */
	if (fd < 0 && errno == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		else
			errno = EMFILE;
	}
	return fd;
}

int coverage__open(struct tp_counter *c, const char *system, const char *event, int ncpus,
		   char *why, size_t whylen)
{
	struct perf_event_attr a;
	long id;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (ncpus <= 0) {
		snprintf(why, whylen, "no CPUs");
		return -EINVAL;
	}
	id = coverage__tp_id(system, event);
	if (id < 0) {
		snprintf(why, whylen, "tracefs id of %s/%s: %s", system, event, strerror((int)-id));
		return (int)id;
	}
	c->fds = malloc(sizeof(*c->fds) * (size_t)ncpus);
	if (!c->fds) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	c->ncpus = ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++)
		c->fds[cpu] = -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (__u64)id;
	a.disabled = 0;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		c->fds[cpu] = perf_open(&a, cpu);
		if (c->fds[cpu] >= 0) {
			c->nopen++;
		} else if (errno != ENODEV) { /* ENODEV: CPU possible but offline */
			err = -errno;
			snprintf(why, whylen, "perf counter on %s/%s, CPU %d: %s", system, event, cpu,
				 strerror(errno));
			break;
		}
	}
	if (!err && !c->nopen) {
		err = -ENODEV;
		snprintf(why, whylen, "perf counter on %s/%s: no CPU online", system, event);
	}
	if (err)
		coverage__close(c);
	return err;
}

int coverage__read(const struct tp_counter *c, uint64_t *hits)
{
	*hits = 0;
	if (!c->nopen)
		return -ENODATA;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		uint64_t v;

		if (c->fds[cpu] < 0)
			continue;
		if (read(c->fds[cpu], &v, sizeof(v)) != sizeof(v))
			return errno ? -errno : -EIO;
		*hits += v;
	}
	return 0;
}

void coverage__close(struct tp_counter *c)
{
	if (c->fds) {
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			if (c->fds[cpu] >= 0)
				close(c->fds[cpu]);
	}
	free(c->fds);
	memset(c, 0, sizeof(*c));
}
