/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe coverage: count a tracepoint's hits independently of the BPF
 * program attached to it, with counting perf events: one per CPU (every
 * hit), or one per thread of a process (the hits in its context).  The
 * difference between hits and the program's own run count is what the
 * kernel skipped (recursion, NMI, kernels that do not run BPF for some
 * tasks): data lost without a trace in the ring buffer.
 */
#ifndef FABTRACE_COVERAGE_H
#define FABTRACE_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters of one tracepoint: on every CPU, or on every thread of a process. */
struct tp_counter {
	int *fds;      /* [n], -1 where the CPU was offline or the thread had ended */
	int n;
	int nopen;     /* counters open; 0 = coverage unknown */
};

/*
 * Directory of tracefs events ("/sys/kernel/tracing/events"), mounting
 * tracefs at /sys/kernel/tracing when nothing is there, else falling back to
 * /sys/kernel/debug/tracing.  NULL with errno set when neither works.
 */
const char *coverage__events_dir(void);

/* Tracepoint id of SYSTEM/EVENT from tracefs; -errno if not found. */
long coverage__tp_id(const char *system, const char *event);

/*
 * Open a counting perf event on SYSTEM/EVENT on each of NCPUS CPUs (a CPU
 * that is not online is skipped).  0, or -errno with WHY set; on failure
 * nothing stays open and c->nopen is 0 (coverage unknown).
 */
int coverage__open(struct tp_counter *c, const char *system, const char *event, int ncpus,
		   char *why, size_t whylen);
/*
 * Open a counting perf event on SYSTEM/EVENT on each thread of process TGID,
 * inherited by the threads it starts later but not by the processes it
 * forks: it counts the hits while a task of TGID is current, including
 * interrupts and softirqs that borrow that task.  Cheaper than the
 * per-CPU counters, not free: every hit still calls the tracepoint's perf
 * hook, which returns at once unless a thread of TGID runs on that CPU
 * (docs/performance.md, section 0).  0, or -errno with WHY set; on failure
 * nothing stays open.
 */
int coverage__open_tgid(struct tp_counter *c, const char *system, const char *event, int tgid,
			char *why, size_t whylen);
/*
 * True when this process and /proc belong to the initial PID namespace, so
 * that /proc/1 is the kernel's PID 1.
 */
bool coverage__init_pidns(void);

/* Hits summed over the counters (with inherited threads').  0 or -errno. */
int coverage__read(const struct tp_counter *c, uint64_t *hits);
void coverage__close(struct tp_counter *c);

/* hits - runs, clamped at 0 (the window's edges can give a few runs more). */
static inline uint64_t coverage__skipped(uint64_t hits, uint64_t runs)
{
	return hits > runs ? hits - runs : 0;
}

#endif
