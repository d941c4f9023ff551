/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the processes given with `-p` still run, so that a recording of
 * them ends once every one has exited (as `perf record -p` does).  A
 * process is held by a pidfd (Linux 5.3+: readable once it has exited,
 * zombie or reaped, and never confused with a later process that gets its
 * number); where the kernel has none, by /proc/PID/stat's start time and
 * state.
 */
#ifndef FABTRACE_PIDWATCH_H
#define FABTRACE_PIDWATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PIDWATCH_MAX 256

struct pidwatch {
	int n;
	pid_t pid[PIDWATCH_MAX];
	int fd[PIDWATCH_MAX];            /* pidfd; -1: by /proc, or gone */
	uint64_t start[PIDWATCH_MAX];    /* /proc/PID/stat's start time (clock ticks after boot); by /proc only */
	bool gone[PIDWATCH_MAX];
};

/* Start watching PIDS[N] (at most PIDWATCH_MAX); one already gone counts as gone. */
void pidwatch__open(struct pidwatch *w, const pid_t *pids, int n);
/* The same, by pidfds only where PIDFDS and the kernel has them (false: by /proc; the unit tests). */
void pidwatch__open_mode(struct pidwatch *w, const pid_t *pids, int n, bool pidfds);
/* Look again: true once every watched process has exited (false with none watched). */
bool pidwatch__all_gone(struct pidwatch *w);
void pidwatch__close(struct pidwatch *w);

#endif
