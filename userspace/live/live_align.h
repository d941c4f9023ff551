/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collective numbers of a job attached mid-run, aligned live.  Each process
 * counts its collectives per communicator from the first call the probes
 * saw, so ranks attached a collective apart number the same collective
 * differently, and matching by (communicator, seq) pairs different ones: a
 * rank that was never late looked like the straggler.  Per communicator,
 * the first calls are held until every rank has made a few (or half a
 * second has passed at a refresh), the shift of each process is found as `report` finds it
 * (userspace/correlate/seq_align.h: calls of one collective overlap in
 * time), and from then on every call is matched with its shifted number.
 * A process that shows up later opens the alignment again.
 */
#ifndef FABTRACE_LIVE_ALIGN_H
#define FABTRACE_LIVE_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#define LIVE_ALIGN_KEYS 8      /* communicators aligned at once (the least recent gives way) */
#define LIVE_ALIGN_PROCS 256   /* processes with a shift per communicator */
#define LIVE_ALIGN_CALLS 4     /* calls of every rank that make the shifts clear */
#define LIVE_ALIGN_HOLD_MIN 64 /* calls held per communicator: size x CALLS, within these */
#define LIVE_ALIGN_HOLD_MAX 1024
#define LIVE_ALIGN_WAIT_NS 500000000ull /* held at most this long when ranks stay missing */

/* One completed collective call of one process. */
struct live_call {
	uint64_t key;          /* the communicator as matching keys it */
	uint64_t seq;          /* the process's own count (>= 1) */
	uint64_t start, end;
	uint32_t proc;         /* the caller's index */
	int32_t size;          /* ranks of the communicator */
	uint16_t op;
};

struct live_align_key {
	uint64_t key;
	uint64_t last_ns;      /* the latest call's end: the least recent key gives way */
	bool used, done;
	uint32_t nheld, cap, nshift;
	struct live_call *held;
	struct { uint32_t proc; int32_t shift; } shift[LIVE_ALIGN_PROCS];
};

struct live_align {
	struct live_align_key k[LIVE_ALIGN_KEYS];
};

/* Matches one call, its seq aligned. */
typedef void (*live_match_fn)(void *ctx, const struct live_call *c);

/* Hold C until its communicator is aligned, or match it aligned at once. */
void live_align__feed(struct live_align *a, const struct live_call *c, live_match_fn match, void *ctx);
/* At a refresh: align and match what a communicator held for LIVE_ALIGN_WAIT_NS by NOW_NS. */
void live_align__flush(struct live_align *a, uint64_t now_ns, live_match_fn match, void *ctx);
/* Forget process PROC (its slot is reused for another). */
void live_align__forget(struct live_align *a, uint32_t proc);
void live_align__free(struct live_align *a);

#endif
