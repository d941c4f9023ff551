/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run-queue wait of the ranks (FT_REC_SCHED_WAIT): how long the threads
 * that carry a process's collectives were runnable without a CPU.  A rank
 * the scheduler holds inside a collective stalls every other rank, with no
 * trace in the network; this is its evidence (docs/verdicts.md, "No CPU").
 *
 * Read from the kernel's per-thread schedstat (/proc/PID/task/TID/schedstat:
 * CPU time, run-queue wait; CONFIG_SCHED_INFO), every FT_SCHED_PERIOD_MS,
 * for the threads the recorder was told about: those that made a
 * collective call or moved a flow's data (the phase and socket-owner
 * records' tids).  No kernel hook: a scheduler tracepoint would run on
 * every context switch of the machine; a read of the few threads that
 * matter costs a system call each.
 */
#ifndef FABTRACE_SCHEDWAIT_H
#define FABTRACE_SCHEDWAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/fabtrace.h"

struct schedwait;

/* Threads followed at most (descriptors kept open); more are not followed. */
#define SCHEDWAIT_MAX_THREADS 512

typedef int (*schedwait_fn)(void *ctx, const struct ft_rec_hdr *rec);

/* A sampler that follows nothing yet: NULL on -ENOMEM. */
struct schedwait *schedwait__new(void);

/*
 * Follow thread TID of process PID (network namespace NETNS) from now on:
 * its first interval ends at the next sample.  COLLECTIVE: the thread made
 * a collective call, which makes its process a rank; else (it moved a
 * flow's data) it is followed once its process is a rank, and kept until
 * then (the last SCHEDWAIT_PENDING of them).  One already followed, or
 * gone, or past SCHEDWAIT_MAX_THREADS, is left as is.  0 or -ENOMEM.
 */
int schedwait__follow(struct schedwait *w, pid_t pid, pid_t tid, uint32_t netns, bool collective);

#define SCHEDWAIT_PENDING 256

/*
 * Read every followed thread at NOW_NS (CLOCK_MONOTONIC) and hand FN an
 * FT_REC_SCHED_WAIT for each process whose threads waited at least
 * FT_SCHED_MIN_WAIT_NS since the last sample.  A thread that has exited is
 * forgotten.  FN's non-zero return stops and is returned.
 */
int schedwait__sample(struct schedwait *w, uint64_t now_ns, schedwait_fn fn, void *ctx);

/* Threads followed now. */
unsigned schedwait__threads(const struct schedwait *w);

/* Parse a schedstat line ("CPU_NS WAIT_NS SLICES"): 0, or -EINVAL. */
int schedwait__parse(const char *text, uint64_t *cpu_ns, uint64_t *wait_ns);

void schedwait__free(struct schedwait *w);

#endif
