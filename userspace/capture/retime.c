// SPDX-License-Identifier: GPL-2.0-or-later
/* Rewrite a record's timestamps and ids in place (userspace/capture/retime.h). */
#include <math.h>

#include "userspace/capture/capture.h"
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

static void ns(const struct retime *rt, uint32_t *n)
{
	for (uint32_t i = 0; i < rt->nnetns; i++)
		if (rt->netns[i][0] == *n) {
			*n = rt->netns[i][1];
			return;
		}
}

static void pid(const struct retime *rt, uint32_t *p)
{
	if (*p)
		*p += rt->pid_base;
}

void retime__record(const struct retime *rt, struct ft_rec_hdr *r)
{
	/* the reader hands out known types at least as long as their struct */
	if (capture__rec_size(r->type) == 0 || r->size < capture__rec_size(r->type))
		return;
	switch (r->type) {
	case FT_REC_IFACE_BIN: {
		struct ft_iface_bin *b = (void *)r;

		b->start_ns = bin_ts(rt, b->start_ns);
		ns(rt, &b->netns);
		break;
	}
	case FT_REC_QDISC_BIN: {
		struct ft_qdisc_bin *b = (void *)r;

		b->start_ns = bin_ts(rt, b->start_ns);
		ns(rt, &b->netns);
		break;
	}
	case FT_REC_DROP: {
		struct ft_drop *d = (void *)r;

		d->ts_ns = retime__ts(rt, d->ts_ns);
		ns(rt, &d->netns);
		break;
	}
	case FT_REC_RETRANS: {
		struct ft_retrans *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		ns(rt, &x->flow.netns);
		break;
	}
	case FT_REC_CONG_STATE: {
		struct ft_cong_state *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		ns(rt, &x->flow.netns);
		break;
	}
	case FT_REC_TCP_SAMPLE: {
		struct ft_tcp_sample *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		ns(rt, &x->flow.netns);
		break;
	}
	case FT_REC_PHASE: {
		struct ft_phase *p = (void *)r;

		p->start_ns = retime__ts(rt, p->start_ns);
		p->end_ns = retime__ts(rt, p->end_ns);
		pid(rt, &p->pid);
		pid(rt, &p->tid);
		ns(rt, &p->netns);
		p->slot += rt->slot_base;
		break;
	}
	case FT_REC_REQ_DONE: {
		struct ft_req_done *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		pid(rt, &x->pid);
		pid(rt, &x->tid);
		x->slot += rt->slot_base;
		break;
	}
	case FT_REC_COMM_INFO: {
		struct ft_comm_info *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		pid(rt, &x->pid);
		x->slot += rt->slot_base;
		break;
	}
	case FT_REC_PROC: {
		struct ft_proc *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		pid(rt, &x->pid);
		pid(rt, &x->ppid);
		ns(rt, &x->netns);
		break;
	}
	case FT_REC_SOCK_OWNER: {
		struct ft_sock_owner *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		ns(rt, &x->flow.netns);
		pid(rt, &x->pid);
		pid(rt, &x->tid);
		break;
	}
	case FT_REC_IFACE:
		ns(rt, &((struct ft_iface_info *)(void *)r)->netns);
		break;
	case FT_REC_IFACE_STATS: {
		struct ft_iface_stats *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		ns(rt, &x->netns);
		break;
	}
	case FT_REC_CE_FLOW: {
		struct ft_ce_flow *x = (void *)r;

		x->first_ns = retime__ts(rt, x->first_ns);
		x->last_ns = retime__ts(rt, x->last_ns);
		ns(rt, &x->flow.netns);
		break;
	}
	case FT_REC_LOST: {
		struct ft_lost *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		x->cpu += rt->cpu_base;
		x->hdr.cpu = x->cpu;
		break;
	}
	case FT_REC_PHASE_SLOT:
		((struct ft_phase_slot *)(void *)r)->slot += rt->slot_base;
		break;
	case FT_REC_RDMA_PORT: {
		struct ft_rdma_port *x = (void *)r;

		x->port_id += rt->port_base;
		ns(rt, &x->netdev_netns);
		break;
	}
	case FT_REC_CTR_GROUP: {
		struct ft_ctr_group *x = (void *)r;

		x->group += rt->group_base;
		if (x->port_id != ~0u)
			x->port_id += rt->port_base;
		ns(rt, &x->netns);
		break;
	}
	case FT_REC_CTR_NAME:
		((struct ft_ctr_name *)(void *)r)->group += rt->group_base;
		break;
	case FT_REC_CTR_SAMPLE: {
		struct ft_ctr_sample *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		x->group += rt->group_base;
		break;
	}
	case FT_REC_SAMPLER: {
		struct ft_sampler_event *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		if (x->group != ~0u)
			x->group += rt->group_base;
		break;
	}
	case FT_REC_HOST_ID: {
		struct ft_host_id *x = (void *)r;

		ns(rt, &x->netns);
		x->start_realtime_ns += rt->realtime_shift_ns;
		break;
	}
	case FT_REC_CLOCK: {
		struct ft_clock *x = (void *)r;

		x->mono_ns = retime__ts(rt, x->mono_ns);
		x->realtime_ns += rt->realtime_shift_ns;
		if (x->tai_ns)
			x->tai_ns += rt->realtime_shift_ns;
		break;
	}
	case FT_REC_HOST_NETNS:
		ns(rt, &((struct ft_host_netns *)(void *)r)->netns);
		break;
	case FT_REC_TRIGGER: {
		struct ft_trigger *x = (void *)r;

		x->mono_ns = retime__ts(rt, x->mono_ns);
		x->received_ns = retime__ts(rt, x->received_ns);
		x->from_ns = retime__ts(rt, x->from_ns);
		x->to_ns = retime__ts(rt, x->to_ns);
		x->realtime_ns += rt->realtime_shift_ns;
		x->sender_pid = x->sender_pid ? x->sender_pid + rt->pid_base : 0;
		break;
	}
	case FT_REC_END: {
		struct ft_end *x = (void *)r;

		x->ts_ns = retime__ts(rt, x->ts_ns);
		break;
	}
	default:
		break;
	}
}
