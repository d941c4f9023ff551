// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding records into the model (model__add): one function per record
 * type, each folding its record into the keyed vectors or raw arrays of
 * the loading state; counter sampler records go to model_counters.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/iface_label.h"
#include "userspace/capture/records.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"
#include "lib/util.h"

static long iface_get(struct model *m, uint32_t netns, uint32_t ifindex)
{
	uint32_t key[2] = { netns, ifindex };

	return mdl_kvec_get(&m->priv->ifaces, key, NULL);
}

static struct model_iface *iface_at(struct model *m, long i)
{
	return mdl_kvec_at(&m->priv->ifaces, (size_t)i);
}

/* A flow's key: ifindex and padding zeroed, IPv4 addresses without trailing bytes. */
void mdl_flow_key(const struct ft_flow *f, struct ft_flow *key)
{
	memset(key, 0, sizeof(*key));
	memcpy(key->saddr, f->saddr, f->family == 4 ? 4 : 16);
	memcpy(key->daddr, f->daddr, f->family == 4 ? 4 : 16);
	key->sport = f->sport;
	key->dport = f->dport;
	key->family = f->family;
	key->proto = f->proto;
	key->netns = f->netns;
}

static struct model_flow *flow_get(struct model *m, const struct ft_flow *f)
{
	struct ft_flow key;
	long i;

	mdl_flow_key(f, &key);
	i = mdl_kvec_get(&m->priv->flows, &key, NULL);
	if (i < 0)
		return NULL;
	struct model_flow *fl = mdl_kvec_at(&m->priv->flows, (size_t)i);

	if (f->ifindex)
		fl->ifindex = f->ifindex;
	return fl;
}

static int add_bin(void *ctx, const struct ft_iface_bin *b)
{
	struct model *m = ctx;
	struct model_priv *p = m->priv;
	long ii = iface_get(m, b->netns, b->ifindex);

	if (ii < 0)
		return -ENOMEM;
	if (b->dir > FT_DIR_TX)
		return 0; /* unknown direction: ignore */
	if (p->nraw == p->capraw) {
		size_t nc = p->capraw ? p->capraw * 2 : 1024;
		void *q = realloc(p->raw, nc * sizeof(*p->raw));

		if (!q)
			return -ENOMEM;
		p->raw = q;
		p->capraw = nc;
	}
	struct model_bin *r = &p->raw[p->nraw++];

	r->start_ns = b->start_ns;
	r->bytes = b->bytes;
	r->pkts = b->pkts;
	r->ce_pkts = b->ce_pkts;
	r->iface = (uint32_t)ii;
	r->dir = b->dir;
	mdl_see_ts(m, b->start_ns + m->hdr.bin_ns);
	return 0;
}

static int add_qbin(void *ctx, const struct ft_qdisc_bin *b)
{
	struct model *m = ctx;
	struct model_priv *p = m->priv;
	uint32_t key[3] = { b->netns, b->ifindex, b->handle };
	bool created;
	long qi = mdl_kvec_get(&p->qdiscs, key, &created);

	if (qi < 0 || iface_get(m, b->netns, b->ifindex) < 0)
		return -ENOMEM;
	struct model_qdisc *q = mdl_kvec_at(&p->qdiscs, (size_t)qi);

	if (created || !q->kind[0]) {
		memcpy(q->kind, b->kind, sizeof(q->kind));
		q->kind[sizeof(q->kind) - 1] = '\0';
		q->parent = b->parent;
	}
	if (p->nqraw == p->capqraw) {
		size_t nc = p->capqraw ? p->capqraw * 2 : 256;
		void *n = realloc(p->qraw, nc * sizeof(*p->qraw));

		if (!n)
			return -ENOMEM;
		p->qraw = n;
		p->capqraw = nc;
	}
	struct model_qbin *r = &p->qraw[p->nqraw++];

	memset(r, 0, sizeof(*r));
	r->start_ns = b->start_ns;
	r->max_backlog = b->max_backlog;
	r->enq_bytes = b->enq_bytes;
	r->sojourn_sum_ns = b->sojourn_sum_ns;
	r->sojourn_max_ns = b->sojourn_max_ns;
	r->sojourn_cnt = b->sojourn_cnt;
	r->max_qlen = b->max_qlen;
	r->enq_pkts = b->enq_pkts;
	r->drops = b->drops;
	r->qdisc = (uint32_t)qi;
	mdl_see_ts(m, b->start_ns + m->hdr.bin_ns);
	return 0;
}

static int add_drop(void *ctx, const struct ft_drop *d)
{
	struct model *m = ctx;
	uint32_t key[3] = { d->reason, d->netns, d->ifindex };
	bool created;
	long i = mdl_kvec_get(&m->priv->drops, key, &created);
	struct drop_raw *e;

	if (i < 0)
		return -ENOMEM;
	e = mdl_vec_push(&m->priv->dropev);
	if (!e)
		return -ENOMEM;
	e->ts_ns = d->ts_ns;
	e->reason = d->reason;
	e->netns = d->netns;
	e->ifindex = d->ifindex;
	e->pad = 0;
	struct model_drop *g = mdl_kvec_at(&m->priv->drops, (size_t)i);

	if (created || d->ts_ns < g->first_ns)
		g->first_ns = d->ts_ns;
	if (created || d->ts_ns > g->last_ns)
		g->last_ns = d->ts_ns;
	g->count++;
	mdl_see_ts(m, d->ts_ns);
	return 0;
}

static int add_retrans(void *ctx, const struct ft_retrans *r)
{
	struct model *m = ctx;
	struct model_flow *f = flow_get(m, &r->flow);
	unsigned t = r->trigger < MODEL_NTRIGGER ? r->trigger : FT_RTX_UNKNOWN;
	struct rtx_raw *e;

	if (!f)
		return -ENOMEM;
	if (!capture__retrans_sent(r)) { /* nothing went out: no retransmit, no evidence */
		f->rtx_unsent++;
		mdl_see_ts(m, r->ts_ns);
		return 0;
	}
	e = mdl_vec_push(&m->priv->rtx);
	if (!e)
		return -ENOMEM;
	e->ts_ns = r->ts_ns;
	mdl_flow_key(&r->flow, &e->key);
	e->segs = r->segs ? r->segs : 1;
	e->trigger = t;
	e->srtt_us = r->srtt_us;
	if (!f->rtx[t] || r->ts_ns < f->rtx_first_ns[t])
		f->rtx_first_ns[t] = r->ts_ns;
	if (!f->rtx[t] || r->ts_ns > f->rtx_last_ns[t])
		f->rtx_last_ns[t] = r->ts_ns;
	f->rtx[t]++;
	f->rtx_total++;
	f->rtx_segs += r->segs ? r->segs : 1;
	mdl_see_ts(m, r->ts_ns);
	return 0;
}

static int add_cong(void *ctx, const struct ft_cong_state *c)
{
	struct model *m = ctx;
	struct model_flow *f = flow_get(m, &c->flow);
	uint8_t key[2] = { c->old_state, c->new_state };
	struct cong_raw *e;
	long i;

	if (!f)
		return -ENOMEM;
	e = mdl_vec_push(&m->priv->congev);
	if (!e)
		return -ENOMEM;
	e->ts_ns = c->ts_ns;
	mdl_flow_key(&c->flow, &e->key);
	e->old_state = c->old_state;
	e->new_state = c->new_state;
	f->cong_changes++;
	i = mdl_kvec_get(&m->priv->cong, key, NULL);
	if (i < 0)
		return -ENOMEM;
	((struct model_cong_pair *)mdl_kvec_at(&m->priv->cong, (size_t)i))->count++;
	mdl_see_ts(m, c->ts_ns);
	return 0;
}

static int add_sample(void *ctx, const struct ft_tcp_sample *s)
{
	struct model *m = ctx;
	struct model_flow *f = flow_get(m, &s->flow);

	if (!f)
		return -ENOMEM;
	if (!f->samples || s->srtt_us < f->srtt_min_us)
		f->srtt_min_us = s->srtt_us;
	if (!f->samples || s->srtt_us > f->srtt_max_us)
		f->srtt_max_us = s->srtt_us;
	if (!f->samples || s->snd_cwnd < f->cwnd_min)
		f->cwnd_min = s->snd_cwnd;
	if (!f->samples || s->snd_cwnd > f->cwnd_max)
		f->cwnd_max = s->snd_cwnd;
	f->srtt_last_us = s->srtt_us;
	f->cwnd_last = s->snd_cwnd;
	if (f->samples && s->ts_ns > f->sample_last_ns && s->ts_ns - f->sample_last_ns >= MODEL_RESUME_GAP_NS) {
		struct resume_raw *e = mdl_vec_push(&m->priv->resumeev);

		if (!e)
			return -ENOMEM;
		e->from_ns = f->sample_last_ns;
		e->ts_ns = s->ts_ns;
		e->packets_out = s->packets_out;
		mdl_flow_key(&s->flow, &e->key);
	}
	if (s->ts_ns > f->sample_last_ns)
		f->sample_last_ns = s->ts_ns;
	f->samples++;
	mdl_see_ts(m, s->ts_ns);
	return 0;
}

static int add_iface(void *ctx, const struct ft_iface_info *in)
{
	struct model *m = ctx;
	long i = iface_get(m, in->netns, in->ifindex);

	if (i < 0)
		return -ENOMEM;
	struct model_iface *f = iface_at(m, i);

	f->known = true;
	f->mtu = in->mtu;
	f->speed_mbps = in->speed_mbps;
	f->flags = in->flags;
	f->tx_rate_kbps = in->tx_rate_kbps;
	iface_info_names(in, &f->name, &f->netns_name, &f->kind);
	return 0;
}

static int add_stats(void *ctx, const struct ft_iface_stats *s)
{
	struct model *m = ctx;
	long i = iface_get(m, s->netns, s->ifindex);

	if (i < 0)
		return -ENOMEM;
	struct model_iface *f = iface_at(m, i);

	if (s->phase == FT_STATS_START && !f->have_start) {
		f->start = *s;
		f->have_start = true;
	} else if (s->phase == FT_STATS_STOP) {
		f->stop = *s;
		f->have_stop = true;
	}
	return 0;
}

static int add_ce_flow(void *ctx, const struct ft_ce_flow *c)
{
	struct model *m = ctx;
	struct model_flow *f = flow_get(m, &c->flow);

	if (!f)
		return -ENOMEM;
	f->have_ce = true;
	f->ce_pkts = c->ce_pkts; /* cumulative: keep the last */
	f->ce_first_ns = c->first_ns;
	f->ce_last_ns = c->last_ns;
	return 0;
}

static int add_lost(void *ctx, const struct ft_lost *l)
{
	struct model *m = ctx;
	uint32_t key[2] = { l->source, l->cpu };
	long i = mdl_kvec_get(&m->priv->lost, key, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_lost *e = mdl_kvec_at(&m->priv->lost, (size_t)i);

	if (m->opts.window && l->ts_ns < m->capture_start_ns + m->opts.window_from_ns) {
		e->base = e->lost = l->lost; /* before the window: its baseline */
		e->ts_ns = l->ts_ns;
		return 0;
	}
	if (l->lost > e->lost) { /* the window it grew in, for the timelines */
		struct model_lost_ev *g = mdl_vec_push(&m->priv->lostev);
		uint64_t from = l->ts_ns > MODEL_LOST_TICK_NS ? l->ts_ns - MODEL_LOST_TICK_NS : 0;

		if (!g)
			return -ENOMEM;
		if (e->ts_ns > from)
			from = e->ts_ns;
		if (m->start_ns > from)
			from = m->start_ns < l->ts_ns ? m->start_ns : l->ts_ns;
		g->from_ns = from;
		g->ts_ns = l->ts_ns;
		g->lost = l->lost - e->lost;
		g->source = l->source;
		g->cpu = l->cpu;
	}
	e->lost = l->lost; /* cumulative: keep the last */
	e->ts_ns = l->ts_ns;
	return 0;
}

static int add_reason(void *ctx, const struct ft_drop_reason *r)
{
	struct model *m = ctx;
	long i = mdl_kvec_get(&m->priv->reasons, &r->reason, NULL);

	if (i < 0)
		return -ENOMEM;
	struct reason_name *n = mdl_kvec_at(&m->priv->reasons, (size_t)i);

	memcpy(n->name, r->name, sizeof(n->name));
	n->name[sizeof(n->name) - 1] = '\0';
	return 0;
}

static int add_probe(void *ctx, const struct ft_probe_info *pi)
{
	struct model *m = ctx;
	long i = mdl_kvec_get(&m->priv->probes, &pi->id, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_probe *p = mdl_kvec_at(&m->priv->probes, (size_t)i);

	p->attached = pi->attached;
	memcpy(p->name, pi->name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	memcpy(p->hook, pi->hook, sizeof(p->hook));
	p->hook[sizeof(p->hook) - 1] = '\0';
	memcpy(p->why, pi->why, sizeof(p->why));
	p->why[sizeof(p->why) - 1] = '\0';
	return 0;
}

static int add_coverage(void *ctx, const struct ft_coverage *c)
{
	struct model *m = ctx;
	bool created;
	long i = mdl_kvec_get(&m->priv->coverage, &c->probe, &created);

	if (i < 0)
		return -ENOMEM;
	capture__cov_add(mdl_kvec_at(&m->priv->coverage, (size_t)i), created, c);
	return 0;
}

/* Copy a fixed-size char field, always NUL terminated. */
#define COPY_STR(dst, src) do {                                                  \
	_Static_assert(sizeof(dst) <= sizeof(src), "field sizes");                \
	memcpy((dst), (src), sizeof(dst));                                        \
	(dst)[sizeof(dst) - 1] = '\0';                                             \
} while (0)

static int add_phase(void *ctx, const struct ft_phase *r)
{
	struct model *m = ctx;
	struct model_phase *e = mdl_vec_push(&m->priv->phases);

	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	e->start_ns = r->start_ns;
	e->end_ns = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns;
	e->count = r->count;
	e->comm = r->comm;
	e->req = r->req;
	e->seq = r->seq;
	e->pid = r->pid;
	e->tid = r->tid;
	e->netns = r->netns;
	e->slot = r->slot;
	e->dtype_size = r->dtype_size;
	e->peer = r->peer;
	e->flags = r->flags;
	e->ret = r->ret;
	COPY_STR(e->name, r->name);
	mdl_see_ts(m, e->start_ns);
	mdl_see_ts(m, e->end_ns);
	return 0;
}

static int add_req_done(void *ctx, const struct ft_req_done *r)
{
	struct model *m = ctx;
	struct model_req_done *e = mdl_vec_push(&m->priv->req_dones);

	if (!e)
		return -ENOMEM;
	e->ts_ns = r->ts_ns;
	e->req = r->req;
	e->pid = r->pid;
	e->tid = r->tid;
	e->slot = r->slot;
	e->pad = 0;
	mdl_see_ts(m, r->ts_ns);
	return 0;
}

static int add_comm_info(void *ctx, const struct ft_comm_info *r)
{
	struct model *m = ctx;
	struct model_comm key;
	bool created;
	long i;

	memset(&key, 0, sizeof(key));
	key.pid = r->pid;
	key.comm = r->comm;
	i = mdl_kvec_get(&m->priv->comms, &key, &created);
	if (i < 0)
		return -ENOMEM;
	struct model_comm *c = mdl_kvec_at(&m->priv->comms, (size_t)i);

	if (created) {
		c->rank = c->size = -1;
		c->first_ns = r->ts_ns;
		c->slot = r->slot;
	}
	if (r->ts_ns < c->first_ns)
		c->first_ns = r->ts_ns;
	if (r->rank >= 0)
		c->rank = r->rank;
	if (r->size >= 0) {
		c->size = r->size;
		c->slot = r->slot;
	}
	mdl_see_ts(m, r->ts_ns);
	return 0;
}

static int add_proc(void *ctx, const struct ft_proc *r)
{
	struct model *m = ctx;
	bool created;
	long i = mdl_kvec_get(&m->priv->procs, &r->pid, &created);

	if (i < 0)
		return -ENOMEM;
	struct model_proc *p = mdl_kvec_at(&m->priv->procs, (size_t)i);
	bool latest = created || r->ts_ns >= p->last_ns;

	if (created || r->ts_ns < p->first_ns)
		p->first_ns = r->ts_ns;
	if (latest) {
		p->last_ns = r->ts_ns;
		if (r->comm[0])
			COPY_STR(p->comm, r->comm);
		if (r->netns)
			p->netns = r->netns;
	}
	if (r->ppid && (latest || !p->ppid))
		p->ppid = r->ppid;
	if (r->event <= FT_PROC_EXIT)
		p->events |= 1u << r->event;
	switch (r->event) {
	case FT_PROC_FORK:
		if (r->ts_ns >= p->fork_ns)
			p->fork_ns = r->ts_ns;
		break;
	case FT_PROC_EXEC:
		p->nexec++;
		if (r->ts_ns >= p->exec_ns)
			p->exec_ns = r->ts_ns;
		break;
	case FT_PROC_EXIT:
		if (r->ts_ns >= p->exit_ns) {
			p->exit_ns = r->ts_ns;
			p->exit_code = r->exit_code;
		}
		break;
	default:
		break;
	}
	mdl_see_ts(m, r->ts_ns);
	return 0;
}

static int add_sock_owner(void *ctx, const struct ft_sock_owner *r)
{
	struct model *m = ctx;
	struct model_owner key;
	bool created;
	long i;

	memset(&key, 0, sizeof(key));
	mdl_flow_key(&r->flow, &key.key);
	key.pid = r->pid;
	i = mdl_kvec_get(&m->priv->owners, &key, &created);
	if (i < 0)
		return -ENOMEM;
	struct model_owner *o = mdl_kvec_at(&m->priv->owners, (size_t)i);

	if (created || r->ts_ns < o->first_ns) {
		o->first_ns = r->ts_ns;
		o->tid = r->tid;
		COPY_STR(o->comm, r->comm);
	}
	mdl_see_ts(m, r->ts_ns);
	return 0;
}

static int add_slot(void *ctx, const struct ft_phase_slot *r)
{
	struct model *m = ctx;
	long i = mdl_kvec_get(&m->priv->slots, &r->slot, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_slot *s = mdl_kvec_at(&m->priv->slots, (size_t)i);

	/* one per slot; should there be more, the last says it */
	s->lib_kind = r->lib_kind;
	s->op = r->op;
	s->flags = r->flags;
	s->offset = r->offset;
	COPY_STR(s->lib, r->lib);
	COPY_STR(s->symbol, r->symbol);
	COPY_STR(s->name, r->name);
	return 0;
}

static int see_ctr_sample(void *ctx, const struct ft_ctr_sample *r)
{
	mdl_see_ts(ctx, r->ts_ns);
	return 0;
}

static int add_host(void *ctx, const struct ft_host *r)
{
	struct model *m = ctx;

	m->nhosts++;
	m->damaged_hosts += (r->flags & FT_HOST_DAMAGED) != 0;
	return 0;
}

static int add_end(void *ctx, const struct ft_end *r)
{
	struct model *m = ctx;

	m->have_end = true;
	m->end = *r;
	return 0;
}

/* the configuration store takes its records and the merged hosts' namespaces (model_config.c) */
static int add_config(void *ctx, const struct ft_config *r)
{
	return model__config_add(ctx, &r->hdr);
}

static int add_host_netns(void *ctx, const struct ft_host_netns *r)
{
	return model__config_add(ctx, &r->hdr);
}

/* a flight recorder's trigger: why a snapshot was taken (report_trigger.c) */
static int add_trigger(void *ctx, const struct ft_trigger *r)
{
	struct model *m = ctx;

	if (grow_array((void **)&m->triggers, &m->captriggers, m->ntriggers + 1, sizeof(*m->triggers)))
		return -ENOMEM;
	m->triggers[m->ntriggers++] = *r;
	return 0;
}

static int add_probe_span(void *ctx, const struct ft_probe_span *r)
{
	struct model *m = ctx;

	if (grow_array((void **)&m->spans, &m->capspans, m->nspans + 1, sizeof(*m->spans)))
		return -ENOMEM;
	m->spans[m->nspans++] = *r;
	return 0;
}

static int add_sched_wait(void *ctx, const struct ft_sched_wait *r)
{
	return mdl_add_sched_wait(ctx, r);
}

static int add_unknown(void *ctx, const struct ft_rec_hdr *r)
{
	(void)r;
	((struct model *)ctx)->unknown_records++;
	return 0;
}

/* host identity and clocks are read elsewhere (clockinfo.c); counters in model_counters.c */
static const struct capture_visitor add_visitor = {
	.iface_bin = add_bin, .qdisc_bin = add_qbin, .drop = add_drop, .retrans = add_retrans,
	.cong_state = add_cong, .tcp_sample = add_sample, .phase = add_phase,
	.req_done = add_req_done, .comm_info = add_comm_info, .proc = add_proc,
	.sock_owner = add_sock_owner, .phase_slot = add_slot, .iface = add_iface,
	.iface_stats = add_stats, .ce_flow = add_ce_flow, .lost = add_lost,
	.drop_reason = add_reason, .probe = add_probe, .coverage = add_coverage,
	.ctr_sample = see_ctr_sample, .config = add_config, .trigger = add_trigger, .probe_span = add_probe_span, .host = add_host,
	.sched_wait = add_sched_wait,
	.host_netns = add_host_netns, .end = add_end, .unknown = add_unknown,
};

/* One record, checked, into the model. */
static int add_record(struct model *m, const struct ft_rec_hdr *rec)
{
	int ret = capture__dispatch(&add_visitor, m, rec);

	return ret ? ret : model_ctr__add(m->priv->ctr, rec);
}

int model__add(struct model *m, const struct ft_rec_hdr *rec)
{
	if (!m || !rec)
		return -EINVAL;
	if (m->finished)
		return -EBUSY;
	/* the one check of a record against its type (records.h); larger is
	 * accepted: a newer writer may append fields */
	if (capture__rec_check(rec, NULL, 0))
		return -EINVAL;
	m->records++;
	if (m->opts.window) {
		int keep = mdl_window_keep(m, rec, add_record);

		if (keep <= 0)
			return keep;
	}
	return add_record(m, rec);
}

int mdl_add_held(struct model *m)
{
	return m->opts.window ? mdl_window_flush(m, add_record) : 0;
}
