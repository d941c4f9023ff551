// SPDX-License-Identifier: GPL-2.0-or-later
/* Tracepoint hit counters for probe coverage (see coverage.h). */
#include <dirent.h>
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

#include "lib/util.h"
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

static int perf_open(struct perf_event_attr *a, int pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	struct rlimit rl;

	/* a counter per hook per CPU: many-CPU hosts outgrow the default 1024 fds */
	if (fd < 0 && errno == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		else
			errno = EMFILE;
	}
	return fd;
}

/* A counting event on SYSTEM/EVENT in *a; 0, or -errno with WHY set. */
static int tp_attr(struct perf_event_attr *a, const char *system, const char *event, char *why, size_t whylen)
{
	long id = coverage__tp_id(system, event);

	if (id < 0) {
		snprintf(why, whylen, "tracefs id of %s/%s: %s", system, event, strerror((int)-id));
		return (int)id;
	}
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_TRACEPOINT;
	a->size = sizeof(*a);
	a->config = (__u64)id;
	return 0;
}

/* Room for N counters in C, all closed (-1). */
static int alloc_fds(struct tp_counter *c, int n, char *why, size_t whylen)
{
	c->fds = malloc(sizeof(*c->fds) * (size_t)n);
	if (!c->fds) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	c->n = n;
	for (int i = 0; i < n; i++)
		c->fds[i] = -1;
	return 0;
}

int coverage__open(struct tp_counter *c, const char *system, const char *event, int ncpus,
		   char *why, size_t whylen)
{
	struct perf_event_attr a;
	int err;

	memset(c, 0, sizeof(*c));
	if (ncpus <= 0) {
		snprintf(why, whylen, "no CPUs");
		return -EINVAL;
	}
	err = tp_attr(&a, system, event, why, whylen);
	if (!err)
		err = alloc_fds(c, ncpus, why, whylen);
	if (err)
		return err;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		c->fds[cpu] = perf_open(&a, -1, cpu);
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

/* Thread ids of process TGID (/proc/TGID/task) into *tids; their count, or -errno. */
static int list_threads(int tgid, int **tids)
{
	char path[64];
	struct dirent *de;
	int n = 0, cap = 0, *v = NULL;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (end == de->d_name || *end || tid <= 0 || tid > INT_MAX)
			continue;
		if (n == cap) {
			int *nv = realloc(v, sizeof(*v) * (size_t)(cap = cap ? cap * 2 : 16));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (int)tid;
	}
	closedir(d);
	*tids = v;
	return n;
}

int coverage__open_tgid(struct tp_counter *c, const char *system, const char *event, int tgid,
			char *why, size_t whylen)
{
	struct perf_event_attr a;
	int *tids = NULL, n, err;

	memset(c, 0, sizeof(*c));
	err = tp_attr(&a, system, event, why, whylen);
	if (err)
		return err;
	/*
	 * Threads started later inherit the counter of the thread that starts
	 * them (inherit_thread: forked processes do not); read() sums them.  One
	 * listing only: a thread found again by a second listing may already be
	 * counted through its creator, and counting it twice would be worse than
	 * missing one started in the moment between the listing and the open.
	 */
	a.inherit = 1;
	a.inherit_thread = 1;
	n = list_threads(tgid, &tids);
	if (n <= 0 || !tids) {
		free(tids);
		snprintf(why, whylen, "threads of process %d: %s", tgid, n < 0 ? strerror(-n) : "none");
		return n < 0 ? n : -ESRCH;
	}
	err = alloc_fds(c, n, why, whylen);
	for (int i = 0; !err && i < n; i++) {
		c->fds[i] = perf_open(&a, tids[i], -1);
		if (c->fds[i] >= 0) {
			c->nopen++;
		} else if (errno != ESRCH) { /* ESRCH: the thread has ended since */
			err = -errno;
			snprintf(why, whylen, "perf counter on %s/%s, thread %d of process %d: %s", system, event,
				 tids[i], tgid, strerror(errno));
		}
	}
	free(tids);
	if (!err && !c->nopen) {
		err = -ESRCH;
		snprintf(why, whylen, "perf counter on %s/%s: process %d has ended", system, event, tgid);
	}
	if (err)
		coverage__close(c);
	return err;
}

/* The initial PID namespace's inode number (PROC_PID_INIT_INO, linux/proc_ns.h). */
#define PID_INIT_INO 0xEFFFFFFCu

bool coverage__init_pidns(void)
{
	char buf[4096];
	const char *at;
	struct stat st;
	ssize_t n;
	char *p;

	/* this process's namespace is the initial one ... */
	if (stat("/proc/self/ns/pid", &st) || st.st_ino != PID_INIT_INO)
		return false;
	/* ... and so is /proc's: NSpid lists one level */
	n = proc_status_read(0, buf, sizeof(buf));
	/* cut short (a long Groups line), NSpid's line may be too: unknown */
	if (n < 0 || (size_t)n == sizeof(buf) - 1 || !(at = proc_status_field(buf, "NSpid:")))
		return false;
	(void)strtol(at, &p, 10);
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\n' || !*p; /* no second level */
}

int coverage__read(const struct tp_counter *c, uint64_t *hits)
{
	*hits = 0;
	if (!c->nopen)
		return -ENODATA;
	for (int i = 0; i < c->n; i++) {
		uint64_t v;

		if (c->fds[i] < 0)
			continue;
		if (read(c->fds[i], &v, sizeof(v)) != sizeof(v))
			return errno ? -errno : -EIO;
		*hits += v;
	}
	return 0;
}

void coverage__close(struct tp_counter *c)
{
	if (c->fds) {
		for (int i = 0; i < c->n; i++)
			if (c->fds[i] >= 0)
				close(c->fds[i]);
	}
	free(c->fds);
	memset(c, 0, sizeof(*c));
}
