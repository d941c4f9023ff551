/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which calls are matched across ranks, and who a matched collective
 * waited for: one rule for the report (matching.c, over the calls of an
 * instance) and for top (userspace/live/, as the calls arrive).  The calls
 * of one collective arrive one by one; the one that entered last is the
 * straggler (of several that entered at the same moment, the first fed),
 * and the skew is how long after the first it entered.  Nobody is a
 * straggler when nobody entered after anybody.
 */
#ifndef FABTRACE_CORR_ARRIVALS_H
#define FABTRACE_CORR_ARRIVALS_H

#include <stdbool.h>
#include <stdint.h>

struct corr_arrivals {
	uint64_t first, last;       /* earliest and latest entry */
	uint32_t last_who;          /* the caller's id of the one that entered last */
	uint32_t n;                 /* calls arrived */
};

/* A call of a collective op (or of a slot flagged FT_SLOT_COLLECTIVE) with a sequence number. */
bool corr__call_is_collective(uint32_t op, uint32_t slot_flags, uint64_t seq);
/* One call that entered at ENTRY, WHO the caller's id for it.  A starts zeroed. */
void corr__arrive(struct corr_arrivals *a, uint64_t entry, uint32_t who);
/* WHO of the straggler, or CORR_NONE. */
uint32_t corr__straggler(const struct corr_arrivals *a);

#endif
