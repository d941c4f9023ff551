// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranks' run-queue wait (FT_REC_SCHED_WAIT, probes/schedwait.h): kept
 * as recorded, sorted by process and time at the finish, and asked how
 * long a process was held by the scheduler over a span of time.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/util.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

int mdl_add_sched_wait(struct model *m, const struct ft_sched_wait *r)
{
	if (r->end_ns <= r->start_ns)
		return 0; /* no interval: nothing to place */
	if (grow_array((void **)&m->sched_waits, &m->capsched_waits, m->nsched_waits + 1, sizeof(*m->sched_waits)))
		return -ENOMEM;
	m->sched_waits[m->nsched_waits++] = *r;
	mdl_see_ts(m, r->start_ns);
	mdl_see_ts(m, r->end_ns);
	return 0;
}

static int cmp_sched(const void *a, const void *b)
{
	const struct ft_sched_wait *x = a, *y = b;
	int c = cmp_u32(x->netns, y->netns);

	if (!c)
		c = cmp_u32(x->pid, y->pid);
	return c ? c : cmp_u64(x->start_ns, y->start_ns);
}

void mdl_finish_sched(struct model *m)
{
	if (m->nsched_waits)
		qsort(m->sched_waits, m->nsched_waits, sizeof(*m->sched_waits), cmp_sched);
}

bool model__sched_interval_held(const struct ft_sched_wait *r, uint64_t *from, uint64_t *to)
{
	if (r->end_ns <= r->start_ns || r->max_wait_ns <= r->end_ns - r->start_ns || r->max_wait_ns < MODEL_HELD_MIN_NS)
		return false;
	/* the wait ended before the CPU time the interval also holds (at the
	 * latest: a thread that ran on after it, or the others' time) */
	*to = r->end_ns - (r->cpu_ns < r->end_ns - r->start_ns ? r->cpu_ns : r->end_ns - r->start_ns);
	*from = *to > r->max_wait_ns ? *to - r->max_wait_ns : 0;
	return true;
}

/* The first of process (NETNS, PID)'s intervals whose key is not below (NETNS, PID, T). */
static size_t first_from(const struct model *m, uint32_t netns, uint32_t pid, uint64_t t)
{
	size_t lo = 0, hi = m->nsched_waits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ft_sched_wait *r = &m->sched_waits[mid];
		int c = cmp_u32(r->netns, netns);

		if (!c)
			c = cmp_u32(r->pid, pid);
		if (!c)
			c = cmp_u64(r->start_ns, t);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t model__sched_held(const struct model *m, uint32_t netns, uint32_t pid, uint64_t from, uint64_t to)
{
	uint64_t held = 0, upto = from; /* held is counted up to UPTO: spans overlap at most at their ends */
	size_t i;

	if (!m->nsched_waits || to <= from)
		return 0;
	/* a wait ends in the interval that credits it: its interval ends after FROM,
	 * so began at most one sampling interval before it (a slow recorder's a few) */
	i = first_from(m, netns, pid, from > MODEL_SCHED_REACH_NS ? from - MODEL_SCHED_REACH_NS : 0);
	for (; i < m->nsched_waits; i++) {
		const struct ft_sched_wait *r = &m->sched_waits[i];
		uint64_t a, b;

		if (r->netns != netns || r->pid != pid || r->start_ns >= to + MODEL_SCHED_REACH_NS)
			break; /* a wait that ends later still began before TO: the rank's exit ends its collective */
		if (!model__sched_interval_held(r, &a, &b) || b <= upto || a >= to)
			continue;
		if (a < upto)
			a = upto;
		if (b > to)
			b = to;
		if (b > a)
			held += b - a;
		upto = b;
	}
	return held;
}
