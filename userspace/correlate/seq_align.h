/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sequence alignment across ranks for jobs attached mid-run.  Each process
 * counts its collectives per communicator from the first call the probes
 * saw; attached while some ranks sat inside collective k (its entry missed)
 * and others were still computing, the first counts k+1 where the second
 * counts k.  Matching by (communicator, seq) would then pair different
 * collectives.  A blocking collective has a moment when every rank is inside
 * it (nobody leaves before the last one entered), so the true pairing is the
 * shift under which a process's calls overlap a reference process's calls
 * in time, and it is the same op.  Alignment picks, per process and
 * communicator, the shift whose pairs agree best, and shifts only when that
 * is clear: most of its pairs agree, and more than without a shift (so a job
 * traced from its start keeps its numbers).
 */
#ifndef FABTRACE_SEQ_ALIGN_H
#define FABTRACE_SEQ_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#define SEQ_ALIGN_MAX_SHIFT 4   /* collectives a rank may be ahead or behind at attach */

/* One collective call: which communicator (g0, g1), which process, its own count and interval. */
struct seq_item {
	uint64_t g0, g1;            /* equal on every rank for the same communicator */
	uint32_t pid;
	uint32_t idx;               /* the caller's index, carried along */
	uint32_t op;                /* the same collective is the same op on every rank */
	uint32_t pad;
	int64_t seq;                /* in: the process's own count (>= 1); out: aligned (>= 1) */
	uint64_t start, end;        /* entry and exit (end >= start) */
};

/*
 * Align the seq of IT (N items, any order; sorted by (g0, g1, pid, seq) on
 * return).  *SHIFTED (may be NULL) gets the number of (communicator,
 * process) pairs that were shifted.  0 or -ENOMEM.
 */
int seq_align__run(struct seq_item *it, size_t n, size_t *shifted);

#endif
