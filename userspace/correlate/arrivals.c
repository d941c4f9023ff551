// SPDX-License-Identifier: GPL-2.0-or-later
/* Matched calls and their straggler (arrivals.h). */
#include "userspace/correlate/arrivals.h"
#include "userspace/correlate/correlate.h"

bool corr__call_is_collective(uint32_t op, uint32_t slot_flags, uint64_t seq)
{
	return seq > 0 && (corr__op_is_collective(op) || (slot_flags & FT_SLOT_COLLECTIVE));
}

void corr__arrive(struct corr_arrivals *a, uint64_t entry, uint32_t who)
{
	if (!a->n || entry < a->first)
		a->first = entry;
	if (!a->n || entry > a->last) {
		a->last = entry;
		a->last_who = who;
	}
	a->n++;
}

uint32_t corr__straggler(const struct corr_arrivals *a)
{
	return a->n < 2 || a->last == a->first ? CORR_NONE : a->last_who;
}
