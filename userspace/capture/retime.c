// SPDX-License-Identifier: GPL-2.0-or-later
/* Rewrite a record's timestamps and ids in place (userspace/capture/retime.h). */
#include <math.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/records.h"
#include "userspace/capture/retime.h"

uint64_t retime__ts(const struct retime *rt, uint64_t t)
{
	double d;
	int64_t v;

	if (!t)
		return 0;
	d = rt->drift ? ((double)t - (double)rt->t0_ns) * rt->drift : 0;
	if (d != d)
		d = 0; /* a NaN drift moves nothing */
	/* saturated: a damaged capture's times may be anything */
	if (t > INT64_MAX || d >= 9.2e18)
		return UINT64_MAX;
	if (d <= -9.2e18)
		return 1;
	if (__builtin_add_overflow((int64_t)t, rt->offset_ns, &v))
		return rt->offset_ns > 0 ? UINT64_MAX : 1;
	if (__builtin_add_overflow(v, (int64_t)llround(d), &v))
		return d > 0 ? UINT64_MAX : 1;
	return v > 0 ? (uint64_t)v : 1;
}

static uint64_t bin_ts(const struct retime *rt, uint64_t t)
{
	uint64_t v = retime__ts(rt, t);

	if (!t || !rt->bin_ns || v > UINT64_MAX - rt->bin_ns)
		return v; /* saturated: stays at the end */
	return (v + rt->bin_ns / 2) / rt->bin_ns * rt->bin_ns;
}

/* The u32 at OFF of R (0: the record has no such field) */
static uint32_t *u32_at(struct ft_rec_hdr *r, uint16_t off)
{
	return off ? (uint32_t *)(void *)((uint8_t *)r + off) : NULL;
}

static void ns(const struct retime *rt, uint32_t *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < rt->nnetns; i++)
		if (rt->netns[i][0] == *n) {
			*n = rt->netns[i][1];
			return;
		}
}

static void pid(const struct retime *rt, uint32_t *p)
{
	if (p && *p)
		*p += rt->pid_base;
}

/* an id moved past the ids of the hosts before; ~0 (none) stays */
static void id(uint32_t *v, uint32_t base)
{
	if (v && *v != ~0u)
		*v += base;
}

void retime__record(const struct retime *rt, struct ft_rec_hdr *r)
{
	const struct capture_rec_fields *f = capture__rec_fields(r->type);

	/* the reader hands out known types at least as long as their struct */
	if (capture__rec_size(r->type) == 0 || r->size < capture__rec_size(r->type))
		return;
	for (int i = 0; i < 2; i++)
		if (f->time[i]) {
			uint64_t *t = (uint64_t *)(void *)((uint8_t *)r + f->time[i]);

			*t = f->bin ? bin_ts(rt, *t) : retime__ts(rt, *t);
		}
	ns(rt, u32_at(r, f->netns));
	pid(rt, u32_at(r, f->pid[0]));
	pid(rt, u32_at(r, f->pid[1]));
	if (f->slot)
		*u32_at(r, f->slot) += rt->slot_base;
	id(u32_at(r, f->group), rt->group_base);
	id(u32_at(r, f->port), rt->port_base);
	/* what is not a CLOCK_MONOTONIC time or an id of the field map */
	if (r->type == FT_REC_LOST) {
		struct ft_lost *x = (void *)r;

		x->cpu += rt->cpu_base;
		x->hdr.cpu = x->cpu;
	} else if (r->type == FT_REC_HOST_ID) {
		((struct ft_host_id *)(void *)r)->start_realtime_ns += rt->realtime_shift_ns;
	} else if (r->type == FT_REC_CLOCK) {
		struct ft_clock *x = (void *)r;

		x->realtime_ns += rt->realtime_shift_ns;
		if (x->tai_ns)
			x->tai_ns += rt->realtime_shift_ns;
	} else if (r->type == FT_REC_CONFIG) {
		struct ft_config *x = (void *)r;

		ns(rt, &x->flow.netns); /* a second namespace */
		if (x->scope == FT_CFG_RANK)
			pid(rt, &x->id);
	} else if (r->type == FT_REC_TRIGGER) {
		struct ft_trigger *x = (void *)r;

		/* the snapshot's window, and the moment in REALTIME */
		x->from_ns = retime__ts(rt, x->from_ns);
		x->to_ns = retime__ts(rt, x->to_ns);
		x->realtime_ns += rt->realtime_shift_ns;
	}
}
