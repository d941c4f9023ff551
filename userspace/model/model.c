// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fabric model (see model.h): aggregate a capture's records into
 * interfaces, merged bins, bursts, queues, flows, drops and lost counts.
 *
 * Loading keeps every entity in a "keyed vector": a growable array of
 * structs whose first ksz bytes are the key, indexed by an open-addressing
 * hash table of array indices.  Raw per-CPU bins go into one flat array;
 * model__finish() sorts it by (interface, direction, start) and sums equal
 * keys in place, so memory stays proportional to the number of bins.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/model/model.h"
#include "userspace/model/model_counters.h"

/* ---- keyed vector ---- */

struct kvec {
	unsigned char *items;
	size_t isz, ksz, n, cap;
	uint32_t *slots;    /* index + 1, 0 = empty */
	size_t nslots;      /* power of two */
};

static void kvec_init(struct kvec *v, size_t isz, size_t ksz)
{
	memset(v, 0, sizeof(*v));
	v->isz = isz;
	v->ksz = ksz;
}

static void kvec_free(struct kvec *v)
{
	free(v->items);
	free(v->slots);
	v->items = NULL;
	v->slots = NULL;
	v->n = v->cap = v->nslots = 0;
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

static void *kvec_at(const struct kvec *v, size_t i)
{
	return v->items + i * v->isz;
}

static int kvec_reindex(struct kvec *v, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(v->slots);
	v->slots = s;
	v->nslots = nslots;
	for (size_t i = 0; i < v->n; i++) {
		size_t h = hash_bytes(kvec_at(v, i), v->ksz) & (nslots - 1);

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* Index of KEY, or -1 if absent. */
static long kvec_find(const struct kvec *v, const void *key)
{
	if (!v->nslots)
		return -1;
	size_t h = hash_bytes(key, v->ksz) & (v->nslots - 1);

	while (v->slots[h]) {
		size_t i = v->slots[h] - 1;

		if (!memcmp(kvec_at(v, i), key, v->ksz))
			return (long)i;
		h = (h + 1) & (v->nslots - 1);
	}
	return -1;
}

/* Index of KEY, created zeroed (with the key copied in) if absent; -1 on ENOMEM. */
static long kvec_get(struct kvec *v, const void *key, bool *created)
{
	long i = kvec_find(v, key);

	if (created)
		*created = false;
	if (i >= 0)
		return i;
	if (v->n >= UINT32_MAX - 1)
		return -1;
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 16;
		void *p = realloc(v->items, nc * v->isz);

		if (!p)
			return -1;
		v->items = p;
		v->cap = nc;
	}
	void *it = kvec_at(v, v->n);

	memset(it, 0, v->isz);
	memcpy(it, key, v->ksz);
	v->n++;
	if (v->n * 2 > v->nslots) {
		if (kvec_reindex(v, v->nslots ? v->nslots * 2 : 64)) {
			v->n--;
			return -1;
		}
	} else {
		size_t h = hash_bytes(key, v->ksz) & (v->nslots - 1);

		while (v->slots[h])
			h = (h + 1) & (v->nslots - 1);
		v->slots[h] = (uint32_t)v->n;
	}
	if (created)
		*created = true;
	return (long)(v->n - 1);
}

/* ---- private loading state ---- */

struct reason_name {
	uint32_t reason;
	char name[56];
};

/* A retransmit or a drop while loading: flows and interfaces get their final indices in finish. */
struct rtx_raw {
	uint64_t ts_ns;
	struct ft_flow key;
	uint32_t segs;
	uint32_t trigger;
};

struct drop_raw {
	uint64_t ts_ns;
	uint32_t reason, netns, ifindex, pad;
};

/* A growable array of plain records. */
struct vec {
	void *items;
	size_t n, cap, isz;
};

struct model_priv {
	struct kvec ifaces, qdiscs, flows, drops, lost, cong, reasons, probes, coverage;
	struct kvec slots, comms, procs, owners;
	struct model_bin *raw;
	size_t nraw, capraw;
	struct model_qbin *qraw;
	size_t nqraw, capqraw;
	struct vec phases, req_dones, rtx, dropev;
	struct vec lostev;          /* struct model_lost_ev */
	struct ctr_load *ctr;       /* counter sampler records (model_counters.c) */
	uint64_t max_ts;
	bool any_ts;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 256;
		void *p = realloc(v->items, nc * v->isz);

		if (!p)
			return NULL;
		v->items = p;
		v->cap = nc;
	}
	return (unsigned char *)v->items + v->isz * v->n++;
}

static void vec_free(struct vec *v)
{
	free(v->items);
	v->items = NULL;
	v->n = v->cap = 0;
}

void model_opts__init(struct model_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->burst_threshold = 0.5;
	o->burst_gap_ns = 0;
	o->conserve_tol_bytes = 0;
	o->conserve_tol_frac = 0; /* exact, but for packets in flight (see conserve()) */
	o->spike_rate = 1000;
}

struct model *model__new(const struct ft_file_header *hdr, const struct model_opts *o)
{
	struct model *m;

	if (!hdr || !hdr->bin_ns) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->priv = calloc(1, sizeof(*m->priv));
	if (m->priv && !(m->priv->ctr = model_ctr__new())) {
		free(m->priv);
		m->priv = NULL;
	}
	if (!m->priv) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->hdr = *hdr;
	if (o)
		m->opts = *o;
	else
		model_opts__init(&m->opts);
	if (!(m->opts.burst_threshold >= 0)) /* also NaN */
		m->opts.burst_threshold = 0.5;
	if (!(m->opts.conserve_tol_frac >= 0))
		m->opts.conserve_tol_frac = 0;
	if (!m->opts.burst_gap_ns)
		m->opts.burst_gap_ns = hdr->bin_ns;
	if (!(m->opts.spike_rate > 0))
		m->opts.spike_rate = 1000;
	m->start_ns = hdr->start_mono_ns;

	struct model_priv *p = m->priv;

	kvec_init(&p->ifaces, sizeof(struct model_iface), 8);
	kvec_init(&p->qdiscs, sizeof(struct model_qdisc), 12);
	kvec_init(&p->flows, sizeof(struct model_flow), sizeof(struct ft_flow));
	kvec_init(&p->drops, sizeof(struct model_drop), 12);
	kvec_init(&p->lost, sizeof(struct model_lost), 8);
	kvec_init(&p->cong, sizeof(struct model_cong_pair), 2);
	kvec_init(&p->reasons, sizeof(struct reason_name), 4);
	kvec_init(&p->probes, sizeof(struct model_probe), 4);
	kvec_init(&p->coverage, sizeof(struct model_coverage), 4);
	kvec_init(&p->slots, sizeof(struct model_slot), 4);
	kvec_init(&p->comms, sizeof(struct model_comm), 16);
	kvec_init(&p->procs, sizeof(struct model_proc), 4);
	kvec_init(&p->owners, sizeof(struct model_owner), offsetof(struct model_owner, tid));
	p->phases.isz = sizeof(struct model_phase);
	p->req_dones.isz = sizeof(struct model_req_done);
	p->rtx.isz = sizeof(struct rtx_raw);
	p->dropev.isz = sizeof(struct drop_raw);
	p->lostev.isz = sizeof(struct model_lost_ev);
	return m;
}

static void priv_free(struct model_priv *p)
{
	if (!p)
		return;
	kvec_free(&p->ifaces);
	kvec_free(&p->qdiscs);
	kvec_free(&p->flows);
	kvec_free(&p->drops);
	kvec_free(&p->lost);
	kvec_free(&p->cong);
	kvec_free(&p->reasons);
	kvec_free(&p->probes);
	kvec_free(&p->coverage);
	kvec_free(&p->slots);
	kvec_free(&p->comms);
	kvec_free(&p->procs);
	kvec_free(&p->owners);
	vec_free(&p->phases);
	vec_free(&p->req_dones);
	vec_free(&p->rtx);
	vec_free(&p->dropev);
	vec_free(&p->lostev);
	model_ctr__free(p->ctr);
	free(p->raw);
	free(p->qraw);
	free(p);
}

void model__free(struct model *m)
{
	if (!m)
		return;
	/* the public arrays alias the kvec items and the raw arrays */
	priv_free(m->priv);
	free(m->bursts);
	free(m->rtx_events);
	free(m->drop_events);
	free(m->ctr_events);
	free(m->lost_evs);
	free(m);
}

static void see_ts(struct model *m, uint64_t ts)
{
	struct model_priv *p = m->priv;

	if (!p->any_ts || ts > p->max_ts)
		p->max_ts = ts;
	p->any_ts = true;
}

static long iface_get(struct model *m, uint32_t netns, uint32_t ifindex)
{
	uint32_t key[2] = { netns, ifindex };

	return kvec_get(&m->priv->ifaces, key, NULL);
}

static struct model_iface *iface_at(struct model *m, long i)
{
	return kvec_at(&m->priv->ifaces, (size_t)i);
}

/* A flow's key: ifindex and padding zeroed, IPv4 addresses without trailing bytes. */
static void flow_key(const struct ft_flow *f, struct ft_flow *key)
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

	flow_key(f, &key);
	i = kvec_get(&m->priv->flows, &key, NULL);
	if (i < 0)
		return NULL;
	struct model_flow *fl = kvec_at(&m->priv->flows, (size_t)i);

	if (f->ifindex)
		fl->ifindex = f->ifindex;
	return fl;
}

static int add_bin(struct model *m, const struct ft_iface_bin *b)
{
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
	see_ts(m, b->start_ns + m->hdr.bin_ns);
	return 0;
}

static int add_qbin(struct model *m, const struct ft_qdisc_bin *b)
{
	struct model_priv *p = m->priv;
	uint32_t key[3] = { b->netns, b->ifindex, b->handle };
	bool created;
	long qi = kvec_get(&p->qdiscs, key, &created);

	if (qi < 0 || iface_get(m, b->netns, b->ifindex) < 0)
		return -ENOMEM;
	struct model_qdisc *q = kvec_at(&p->qdiscs, (size_t)qi);

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
	see_ts(m, b->start_ns + m->hdr.bin_ns);
	return 0;
}

static int add_drop(struct model *m, const struct ft_drop *d)
{
	uint32_t key[3] = { d->reason, d->netns, d->ifindex };
	bool created;
	long i = kvec_get(&m->priv->drops, key, &created);
	struct drop_raw *e;

	if (i < 0)
		return -ENOMEM;
	e = vec_push(&m->priv->dropev);
	if (!e)
		return -ENOMEM;
	e->ts_ns = d->ts_ns;
	e->reason = d->reason;
	e->netns = d->netns;
	e->ifindex = d->ifindex;
	e->pad = 0;
	struct model_drop *g = kvec_at(&m->priv->drops, (size_t)i);

	if (created || d->ts_ns < g->first_ns)
		g->first_ns = d->ts_ns;
	if (created || d->ts_ns > g->last_ns)
		g->last_ns = d->ts_ns;
	g->count++;
	see_ts(m, d->ts_ns);
	return 0;
}

static int add_retrans(struct model *m, const struct ft_retrans *r)
{
	struct model_flow *f = flow_get(m, &r->flow);
	unsigned t = r->trigger < MODEL_NTRIGGER ? r->trigger : FT_RTX_UNKNOWN;
	struct rtx_raw *e;

	if (!f)
		return -ENOMEM;
	e = vec_push(&m->priv->rtx);
	if (!e)
		return -ENOMEM;
	e->ts_ns = r->ts_ns;
	flow_key(&r->flow, &e->key);
	e->segs = r->segs ? r->segs : 1;
	e->trigger = t;
	if (!f->rtx[t] || r->ts_ns < f->rtx_first_ns[t])
		f->rtx_first_ns[t] = r->ts_ns;
	if (!f->rtx[t] || r->ts_ns > f->rtx_last_ns[t])
		f->rtx_last_ns[t] = r->ts_ns;
	f->rtx[t]++;
	f->rtx_total++;
	f->rtx_segs += r->segs ? r->segs : 1;
	see_ts(m, r->ts_ns);
	return 0;
}

static int add_cong(struct model *m, const struct ft_cong_state *c)
{
	struct model_flow *f = flow_get(m, &c->flow);
	uint8_t key[2] = { c->old_state, c->new_state };
	long i;

	if (!f)
		return -ENOMEM;
	f->cong_changes++;
	i = kvec_get(&m->priv->cong, key, NULL);
	if (i < 0)
		return -ENOMEM;
	((struct model_cong_pair *)kvec_at(&m->priv->cong, (size_t)i))->count++;
	see_ts(m, c->ts_ns);
	return 0;
}

static int add_sample(struct model *m, const struct ft_tcp_sample *s)
{
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
	f->samples++;
	see_ts(m, s->ts_ns);
	return 0;
}

static int add_iface(struct model *m, const struct ft_iface_info *in)
{
	long i = iface_get(m, in->netns, in->ifindex);

	if (i < 0)
		return -ENOMEM;
	struct model_iface *f = iface_at(m, i);

	f->known = true;
	f->mtu = in->mtu;
	f->speed_mbps = in->speed_mbps;
	f->flags = in->flags;
	f->tx_rate_kbps = in->tx_rate_kbps;
	memcpy(f->name, in->name, sizeof(f->name));
	f->name[sizeof(f->name) - 1] = '\0';
	memcpy(f->netns_name, in->netns_name, sizeof(f->netns_name));
	f->netns_name[sizeof(f->netns_name) - 1] = '\0';
	memcpy(f->kind, in->kind, sizeof(f->kind));
	f->kind[sizeof(f->kind) - 1] = '\0';
	return 0;
}

static int add_stats(struct model *m, const struct ft_iface_stats *s)
{
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

static int add_ce_flow(struct model *m, const struct ft_ce_flow *c)
{
	struct model_flow *f = flow_get(m, &c->flow);

	if (!f)
		return -ENOMEM;
	f->have_ce = true;
	f->ce_pkts = c->ce_pkts; /* cumulative: keep the last */
	f->ce_first_ns = c->first_ns;
	f->ce_last_ns = c->last_ns;
	return 0;
}

static int add_lost(struct model *m, const struct ft_lost *l)
{
	uint32_t key[2] = { l->source, l->cpu };
	long i = kvec_get(&m->priv->lost, key, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_lost *e = kvec_at(&m->priv->lost, (size_t)i);

	if (l->lost > e->lost) { /* the window it grew in, for the timelines */
		struct model_lost_ev *g = vec_push(&m->priv->lostev);
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

static int add_reason(struct model *m, const struct ft_drop_reason *r)
{
	long i = kvec_get(&m->priv->reasons, &r->reason, NULL);

	if (i < 0)
		return -ENOMEM;
	struct reason_name *n = kvec_at(&m->priv->reasons, (size_t)i);

	memcpy(n->name, r->name, sizeof(n->name));
	n->name[sizeof(n->name) - 1] = '\0';
	return 0;
}

static int add_probe(struct model *m, const struct ft_probe_info *pi)
{
	long i = kvec_get(&m->priv->probes, &pi->id, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_probe *p = kvec_at(&m->priv->probes, (size_t)i);

	p->attached = pi->attached;
	memcpy(p->name, pi->name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	memcpy(p->hook, pi->hook, sizeof(p->hook));
	p->hook[sizeof(p->hook) - 1] = '\0';
	memcpy(p->why, pi->why, sizeof(p->why));
	p->why[sizeof(p->why) - 1] = '\0';
	return 0;
}

static int add_coverage(struct model *m, const struct ft_coverage *c)
{
	long i = kvec_get(&m->priv->coverage, &c->probe, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_coverage *e = kvec_at(&m->priv->coverage, (size_t)i);

	/* one per probe at stop; should there be more, the last is the total */
	e->known = c->known ? 1 : 0;
	e->hits = e->known ? c->hits : 0;
	e->runs = c->runs;
	return 0;
}

/* Copy a fixed-size char field, always NUL terminated. */
#define COPY_STR(dst, src) do {                                                  \
	_Static_assert(sizeof(dst) <= sizeof(src), "field sizes");                \
	memcpy((dst), (src), sizeof(dst));                                        \
	(dst)[sizeof(dst) - 1] = '\0';                                             \
} while (0)

static int add_phase(struct model *m, const struct ft_phase *r)
{
	struct model_phase *e = vec_push(&m->priv->phases);

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
	see_ts(m, e->start_ns);
	see_ts(m, e->end_ns);
	return 0;
}

static int add_req_done(struct model *m, const struct ft_req_done *r)
{
	struct model_req_done *e = vec_push(&m->priv->req_dones);

	if (!e)
		return -ENOMEM;
	e->ts_ns = r->ts_ns;
	e->req = r->req;
	e->pid = r->pid;
	e->tid = r->tid;
	e->slot = r->slot;
	e->pad = 0;
	see_ts(m, r->ts_ns);
	return 0;
}

static int add_comm_info(struct model *m, const struct ft_comm_info *r)
{
	struct model_comm key;
	bool created;
	long i;

	memset(&key, 0, sizeof(key));
	key.pid = r->pid;
	key.comm = r->comm;
	i = kvec_get(&m->priv->comms, &key, &created);
	if (i < 0)
		return -ENOMEM;
	struct model_comm *c = kvec_at(&m->priv->comms, (size_t)i);

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
	see_ts(m, r->ts_ns);
	return 0;
}

static int add_proc(struct model *m, const struct ft_proc *r)
{
	bool created;
	long i = kvec_get(&m->priv->procs, &r->pid, &created);

	if (i < 0)
		return -ENOMEM;
	struct model_proc *p = kvec_at(&m->priv->procs, (size_t)i);
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
	see_ts(m, r->ts_ns);
	return 0;
}

static int add_sock_owner(struct model *m, const struct ft_sock_owner *r)
{
	struct model_owner key;
	bool created;
	long i;

	memset(&key, 0, sizeof(key));
	flow_key(&r->flow, &key.key);
	key.pid = r->pid;
	i = kvec_get(&m->priv->owners, &key, &created);
	if (i < 0)
		return -ENOMEM;
	struct model_owner *o = kvec_at(&m->priv->owners, (size_t)i);

	if (created || r->ts_ns < o->first_ns) {
		o->first_ns = r->ts_ns;
		o->tid = r->tid;
		COPY_STR(o->comm, r->comm);
	}
	see_ts(m, r->ts_ns);
	return 0;
}

static int add_slot(struct model *m, const struct ft_phase_slot *r)
{
	long i = kvec_get(&m->priv->slots, &r->slot, NULL);

	if (i < 0)
		return -ENOMEM;
	struct model_slot *s = kvec_at(&m->priv->slots, (size_t)i);

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

static size_t rec_min_size(uint16_t type)
{
	switch (type) {
	case FT_REC_IFACE_BIN: return sizeof(struct ft_iface_bin);
	case FT_REC_QDISC_BIN: return sizeof(struct ft_qdisc_bin);
	case FT_REC_DROP: return sizeof(struct ft_drop);
	case FT_REC_RETRANS: return sizeof(struct ft_retrans);
	case FT_REC_CONG_STATE: return sizeof(struct ft_cong_state);
	case FT_REC_TCP_SAMPLE: return sizeof(struct ft_tcp_sample);
	case FT_REC_PHASE: return sizeof(struct ft_phase);
	case FT_REC_REQ_DONE: return sizeof(struct ft_req_done);
	case FT_REC_COMM_INFO: return sizeof(struct ft_comm_info);
	case FT_REC_PROC: return sizeof(struct ft_proc);
	case FT_REC_SOCK_OWNER: return sizeof(struct ft_sock_owner);
	case FT_REC_IFACE: return sizeof(struct ft_iface_info);
	case FT_REC_IFACE_STATS: return sizeof(struct ft_iface_stats);
	case FT_REC_CE_FLOW: return sizeof(struct ft_ce_flow);
	case FT_REC_LOST: return sizeof(struct ft_lost);
	case FT_REC_DROP_REASON: return sizeof(struct ft_drop_reason);
	case FT_REC_PROBE: return sizeof(struct ft_probe_info);
	case FT_REC_COVERAGE: return sizeof(struct ft_coverage);
	case FT_REC_PHASE_SLOT: return sizeof(struct ft_phase_slot);
	case FT_REC_END: return sizeof(struct ft_end);
	default: return 0;
	}
}

int model__add(struct model *m, const struct ft_rec_hdr *rec)
{
	size_t need;

	if (!m || !rec)
		return -EINVAL;
	if (m->finished)
		return -EBUSY;
	if (rec->size < sizeof(*rec))
		return -EINVAL;
	need = rec_min_size(rec->type);
	if (!need)
		need = model_ctr__min_size(rec->type);
	if (!need && capture__rec_size(rec->type)) {
		m->records++; /* known, read elsewhere (host identity and clocks: clockinfo.c) */
		return 0;
	}
	if (!need) {
		m->records++;
		m->unknown_records++;
		return 0;
	}
	/* Larger is accepted: a newer writer may append fields. */
	if (rec->size < need)
		return -EINVAL;
	m->records++;

	switch (rec->type) {
	case FT_REC_IFACE_BIN: return add_bin(m, (const void *)rec);
	case FT_REC_QDISC_BIN: return add_qbin(m, (const void *)rec);
	case FT_REC_DROP: return add_drop(m, (const void *)rec);
	case FT_REC_RETRANS: return add_retrans(m, (const void *)rec);
	case FT_REC_CONG_STATE: return add_cong(m, (const void *)rec);
	case FT_REC_TCP_SAMPLE: return add_sample(m, (const void *)rec);
	case FT_REC_PHASE: return add_phase(m, (const void *)rec);
	case FT_REC_REQ_DONE: return add_req_done(m, (const void *)rec);
	case FT_REC_COMM_INFO: return add_comm_info(m, (const void *)rec);
	case FT_REC_PROC: return add_proc(m, (const void *)rec);
	case FT_REC_SOCK_OWNER: return add_sock_owner(m, (const void *)rec);
	case FT_REC_PHASE_SLOT: return add_slot(m, (const void *)rec);
	case FT_REC_IFACE: return add_iface(m, (const void *)rec);
	case FT_REC_IFACE_STATS: return add_stats(m, (const void *)rec);
	case FT_REC_CE_FLOW: return add_ce_flow(m, (const void *)rec);
	case FT_REC_LOST: return add_lost(m, (const void *)rec);
	case FT_REC_DROP_REASON: return add_reason(m, (const void *)rec);
	case FT_REC_PROBE: return add_probe(m, (const void *)rec);
	case FT_REC_COVERAGE: return add_coverage(m, (const void *)rec);
	case FT_REC_RDMA_PORT:
	case FT_REC_CTR_GROUP:
	case FT_REC_CTR_NAME:
	case FT_REC_CTR_SAMPLE:
		see_ts(m, ((const struct ft_ctr_sample *)rec)->ts_ns);
		return model_ctr__add(m->priv->ctr, rec);
	case FT_REC_SAMPLER:
		return model_ctr__add(m->priv->ctr, rec);
	case FT_REC_END:
		m->have_end = true;
		m->end = *(const struct ft_end *)rec;
		return 0;
	default:
		return 0;
	}
}

/* ---- finish ---- */

static int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/*
 * Interfaces: named ones first, by namespace name then interface name, then
 * (netns, ifindex); unnamed ones ("netns N ifindex I") after, by number.
 */
static int cmp_iface(const void *a, const void *b)
{
	const struct model_iface *x = a, *y = b;
	int c;

	if (x->known != y->known)
		return x->known ? -1 : 1;
	if (x->known) {
		c = strcmp(x->netns_name, y->netns_name);
		if (c)
			return c;
		c = strcmp(x->name, y->name);
		if (c)
			return c;
	}
	c = cmp_u32(x->netns, y->netns);
	return c ? c : cmp_u32(x->ifindex, y->ifindex);
}

static int cmp_bin(const void *a, const void *b)
{
	const struct model_bin *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u32(x->dir, y->dir);
	return c ? c : cmp_u64(x->start_ns, y->start_ns);
}

static int cmp_qbin(const void *a, const void *b)
{
	const struct model_qbin *x = a, *y = b;
	int c = cmp_u32(x->qdisc, y->qdisc);

	return c ? c : cmp_u64(x->start_ns, y->start_ns);
}

/* Qdiscs sorted by their interface's order, then handle. */
static int cmp_qdisc(const void *a, const void *b)
{
	const struct model_qdisc *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u32(x->handle, y->handle);
	return c ? c : cmp_u32(x->parent, y->parent);
}

static int cmp_flow_key(const struct ft_flow *x, const struct ft_flow *y)
{
	int c = cmp_u32(x->netns, y->netns);

	if (!c)
		c = cmp_u32(x->family, y->family);
	if (!c)
		c = memcmp(x->saddr, y->saddr, sizeof(x->saddr));
	if (!c)
		c = cmp_u32(x->sport, y->sport);
	if (!c)
		c = memcmp(x->daddr, y->daddr, sizeof(x->daddr));
	if (!c)
		c = cmp_u32(x->dport, y->dport);
	return c ? c : cmp_u32(x->proto, y->proto);
}

static int cmp_flow(const void *a, const void *b)
{
	return cmp_flow_key(&((const struct model_flow *)a)->key, &((const struct model_flow *)b)->key);
}
static int cmp_cong(const void *a, const void *b)
{
	const struct model_cong_pair *x = a, *y = b;
	int c = cmp_u32(x->old_state, y->old_state);

	return c ? c : cmp_u32(x->new_state, y->new_state);
}

static int cmp_drop(const void *a, const void *b)
{
	const struct model_drop *x = a, *y = b;
	int c = cmp_u64(y->count, x->count);

	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = cmp_u32(x->reason, y->reason);
	if (!c)
		c = cmp_u32(x->iface, y->iface);
	if (!c)
		c = cmp_u32(x->netns, y->netns);
	return c ? c : cmp_u32(x->ifindex, y->ifindex);
}

static int cmp_lost(const void *a, const void *b)
{
	const struct model_lost *x = a, *y = b;
	int c = cmp_u32(x->source, y->source);

	return c ? c : cmp_u32(x->cpu, y->cpu);
}

static int cmp_lost_ev(const void *a, const void *b)
{
	const struct model_lost_ev *x = a, *y = b;
	int c = cmp_u64(x->ts_ns, y->ts_ns);

	if (!c)
		c = cmp_u32(x->source, y->source);
	return c ? c : cmp_u32(x->cpu, y->cpu);
}

static int cmp_probe(const void *a, const void *b)
{
	return cmp_u32(((const struct model_probe *)a)->id, ((const struct model_probe *)b)->id);
}

static int cmp_coverage(const void *a, const void *b)
{
	return cmp_u32(((const struct model_coverage *)a)->probe,
		       ((const struct model_coverage *)b)->probe);
}

static int cmp_slot(const void *a, const void *b)
{
	return cmp_u32(((const struct model_slot *)a)->slot, ((const struct model_slot *)b)->slot);
}

static int cmp_phase(const void *a, const void *b)
{
	const struct model_phase *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->start_ns, y->start_ns);
	if (!c)
		c = cmp_u64(x->end_ns, y->end_ns);
	if (!c)
		c = cmp_u32(x->tid, y->tid);
	if (!c)
		c = cmp_u32(x->slot, y->slot);
	if (!c)
		c = cmp_u64(x->seq, y->seq);
	return c ? c : cmp_u32(x->flags, y->flags);
}

static int cmp_req_done(const void *a, const void *b)
{
	const struct model_req_done *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->req, y->req);
	if (!c)
		c = cmp_u64(x->ts_ns, y->ts_ns);
	return c ? c : cmp_u32(x->tid, y->tid);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct model_comm *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	return c ? c : cmp_u64(x->comm, y->comm);
}

static int cmp_proc(const void *a, const void *b)
{
	return cmp_u32(((const struct model_proc *)a)->pid, ((const struct model_proc *)b)->pid);
}

static int cmp_owner(const void *a, const void *b)
{
	const struct model_owner *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	if (!c && x->flow == UINT32_MAX)
		c = cmp_flow_key(&x->key, &y->key);
	return c ? c : cmp_u32(x->pid, y->pid);
}

static int cmp_rtx(const void *a, const void *b)
{
	const struct model_rtx *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	return c ? c : cmp_u64(x->ts_ns, y->ts_ns);
}

static int cmp_drop_ev(const void *a, const void *b)
{
	const struct model_drop_ev *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u64(x->ts_ns, y->ts_ns);
	return c ? c : cmp_u32(x->reason, y->reason);
}

double model__bin_bps(const struct model *m, uint64_t bytes)
{
	return (double)bytes * 8.0 * 1e9 / (double)m->hdr.bin_ns;
}

static void iface_label(struct model_iface *f)
{
	if (!f->known || !f->name[0])
		snprintf(f->label, sizeof(f->label), "netns %u ifindex %u", f->netns, f->ifindex);
	else if (f->netns_name[0])
		snprintf(f->label, sizeof(f->label), "%s@%s", f->name, f->netns_name);
	else
		snprintf(f->label, sizeof(f->label), "%s", f->name);
}

static double capacity_bps(const struct model_iface *f, int dir)
{
	double cap = (double)f->speed_mbps * 1e6;

	if (dir == FT_DIR_TX && f->tx_rate_kbps) {
		double r = (double)f->tx_rate_kbps * 1e3;

		if (!cap || r < cap)
			cap = r;
	}
	return cap;
}

static int burst_push(struct model *m, size_t *cap, const struct model_burst *b)
{
	if (m->nbursts == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		void *p = realloc(m->bursts, nc * sizeof(*m->bursts));

		if (!p)
			return -ENOMEM;
		m->bursts = p;
		*cap = nc;
	}
	m->bursts[m->nbursts++] = *b;
	return 0;
}

/*
 * Hot bins (utilisation >= threshold) become bursts; a hot bin that starts
 * less than burst_gap_ns after the end of the current burst extends it.
 * A burst's bytes/pkts are everything inside it, the cold bins it spans
 * included; nbins counts the hot ones.
 */
static int detect_bursts(struct model *m, struct model_dir *d, uint32_t iface, uint32_t dir,
			 size_t *bcap)
{
	const double eps = 1e-9;
	struct model_burst cur;
	bool open = false;
	uint64_t pend_bytes = 0, pend_pkts = 0, end = 0;
	/* a microburst is about the wire: against the line rate, not a shaper's
	 * long-term rate (every packet of a shaped link would be a "burst") */
	double ref = d->line_bps > 0 ? d->line_bps : d->capacity_bps;

	d->first_burst = m->nbursts;
	d->nbursts = 0;
	if (!(ref > 0))
		return 0;
	for (size_t i = 0; i < d->nbins; i++) {
		const struct model_bin *b = &d->bins[i];
		double bps = model__bin_bps(m, b->bytes);
		double util = bps / ref;
		bool hot = util >= m->opts.burst_threshold - eps && b->bytes > 0;

		if (!hot) {
			if (open) {
				pend_bytes += b->bytes;
				pend_pkts += b->pkts;
			}
			continue;
		}
		if (open && b->start_ns >= end && b->start_ns - end < m->opts.burst_gap_ns) {
			cur.bytes += pend_bytes + b->bytes;
			cur.pkts += pend_pkts + b->pkts;
			cur.nbins++;
			if (bps > cur.peak_bps)
				cur.peak_bps = bps;
		} else {
			if (open) {
				cur.peak_util = cur.peak_bps / ref;
				if (burst_push(m, bcap, &cur))
					return -ENOMEM;
				d->nbursts++;
			}
			memset(&cur, 0, sizeof(cur));
			cur.iface = iface;
			cur.dir = dir;
			cur.start_ns = b->start_ns;
			cur.bytes = b->bytes;
			cur.pkts = b->pkts;
			cur.nbins = 1;
			cur.peak_bps = bps;
			open = true;
		}
		pend_bytes = pend_pkts = 0;
		end = b->start_ns + m->hdr.bin_ns;
		cur.duration_ns = end - cur.start_ns;
	}
	if (open) {
		cur.peak_util = cur.peak_bps / ref;
		if (burst_push(m, bcap, &cur))
			return -ENOMEM;
		d->nbursts++;
	}
	return 0;
}

/*
 * Highest rate over any window of MODEL_SUSTAIN_NS (or the capture, if
 * shorter): what a link sustains, as opposed to the peak of one bin.
 * Bins are sorted, so a window slides over them in one pass.
 */
static double sustained_bps(const struct model *m, const struct model_dir *d)
{
	uint64_t win = MODEL_SUSTAIN_NS, sum = 0, best = 0;
	size_t lo = 0;

	if (m->duration_ns && m->duration_ns < win)
		win = m->duration_ns;
	if (win < m->hdr.bin_ns)
		win = m->hdr.bin_ns;
	for (size_t hi = 0; hi < d->nbins; hi++) {
		sum += d->bins[hi].bytes;
		/* a difference, not start + win: that wraps near 2^64 and lo ran past hi */
		while (lo < hi && d->bins[hi].start_ns - d->bins[lo].start_ns >= win)
			sum -= d->bins[lo++].bytes;
		if (sum > best)
			best = sum;
	}
	return (double)best * 8e9 / (double)win;
}

static void dir_stats(struct model *m, struct model_dir *d)
{
	uint64_t active = 0;

	d->bytes = d->pkts = d->ce_pkts = 0;
	d->peak_bps = 0;
	d->peak_start_ns = 0;
	for (size_t i = 0; i < d->nbins; i++) {
		const struct model_bin *b = &d->bins[i];
		double bps = model__bin_bps(m, b->bytes);

		d->bytes += b->bytes;
		d->pkts += b->pkts;
		d->ce_pkts += b->ce_pkts;
		if (b->bytes || b->pkts)
			active++;
		if (bps > d->peak_bps) {
			d->peak_bps = bps;
			d->peak_start_ns = b->start_ns;
		}
	}
	d->active_ns = active * m->hdr.bin_ns;
	d->sustained_bps = sustained_bps(m, d);
	d->mean_bps = m->duration_ns ? (double)d->bytes * 8e9 / (double)m->duration_ns : NAN;
	d->busy_mean_bps = d->active_ns ? (double)d->bytes * 8e9 / (double)d->active_ns : 0;
	if (d->capacity_bps > 0) {
		d->mean_util = d->mean_bps / d->capacity_bps;
		d->busy_util = d->busy_mean_bps / d->capacity_bps;
		d->peak_util = d->peak_bps / d->capacity_bps;
		d->sustained_util = d->sustained_bps / d->capacity_bps;
	} else {
		d->mean_util = d->busy_util = d->peak_util = d->sustained_util = NAN;
	}
	d->peak_line_util = d->line_bps > 0 ? d->peak_bps / d->line_bps : d->peak_util;
	d->busy_line_util = d->line_bps > 0 ? d->busy_mean_bps / d->line_bps : d->busy_util;
}

static void conserve(struct model *m, struct model_iface *f)
{
	bool untraced = f->known && !(f->flags & FT_IFACE_TRACED) &&
			!f->dir[0].nbins && !f->dir[1].nbins;

	for (int dir = 0; dir < 2; dir++) {
		struct model_dir *d = &f->dir[dir];
		uint64_t b0, b1, p0, p1;

		if (!f->have_start || !f->have_stop) {
			d->conserve = MODEL_CONSERVE_UNKNOWN;
			continue;
		}
		/* no bins expected: interface not selected, or that direction's probe not attached */
		if (untraced || !(m->hdr.probes & (1ull << (dir == FT_DIR_RX ? FT_PROBE_IFACE_RX
										 : FT_PROBE_IFACE_TX)))) {
			d->conserve = MODEL_CONSERVE_UNTRACED;
			continue;
		}
		if (dir == FT_DIR_RX) {
			b0 = f->start.rx_bytes; b1 = f->stop.rx_bytes;
			p0 = f->start.rx_packets; p1 = f->stop.rx_packets;
		} else {
			b0 = f->start.tx_bytes; b1 = f->stop.tx_bytes;
			p0 = f->start.tx_packets; p1 = f->stop.tx_packets;
		}
		bool backwards = b1 < b0 || p1 < p0; /* counters reset: device recreated */

		d->counter_bytes = b1 >= b0 ? b1 - b0 : 0;
		d->counter_pkts = p1 >= p0 ? p1 - p0 : 0;
		d->diff_bytes = (int64_t)(d->bytes - d->counter_bytes);
		d->diff_pkts = (int64_t)(d->pkts - d->counter_pkts);
		double frac = m->opts.conserve_tol_frac * (double)d->counter_bytes;
		uint64_t tol = (uint64_t)frac;

		/* In flight at the start and at the stop snapshot: at most one
		 * full-size frame each; anything more is data the probes missed. */
		uint64_t inflight = 2ull * ((f->mtu ? f->mtu : 1500) + 14);

		if (tol < inflight)
			tol = inflight;
		if (tol < m->opts.conserve_tol_bytes)
			tol = m->opts.conserve_tol_bytes;
		d->tol_bytes = tol;
		uint64_t adiff = d->diff_bytes < 0 ? (uint64_t)(-(d->diff_bytes + 1)) + 1
						   : (uint64_t)d->diff_bytes;
		bool pkts_ok = d->diff_pkts >= -2 && d->diff_pkts <= 2;

		d->conserve = !backwards && adiff <= tol && (pkts_ok || tol > inflight)
				      ? MODEL_CONSERVE_OK : MODEL_CONSERVE_MISMATCH;
	}
}

static uint64_t skipped_runs_of(const struct model *m, uint32_t probe)
{
	for (size_t i = 0; i < m->ncoverage; i++)
		if (m->coverage[i].probe == probe)
			return m->coverage[i].skipped;
	return 0;
}

/*
 * A probe run the kernel skipped is one skb missing from the bins (each run
 * bins one skb) on whichever interface it passed.  When every shortfall of a
 * direction, summed over its interfaces, fits in that direction's skipped
 * runs, the mismatches are explained: OK_SKIPPED, not MISMATCH.  A surplus,
 * or a shortfall larger than the skips, stays a MISMATCH.
 */
static void conserve_explain_skipped(struct model *m, int dir)
{
	uint64_t skipped = skipped_runs_of(m, dir == FT_DIR_RX ? FT_PROBE_IFACE_RX : FT_PROBE_IFACE_TX);
	uint64_t short_pkts = 0;

	if (!skipped)
		return;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_dir *d = &m->ifaces[i].dir[dir];

		if ((d->conserve == MODEL_CONSERVE_OK || d->conserve == MODEL_CONSERVE_MISMATCH) &&
		    d->diff_pkts < 0)
			short_pkts += (uint64_t)(-d->diff_pkts);
	}
	if (short_pkts > skipped)
		return;
	for (size_t i = 0; i < m->nifaces; i++) {
		struct model_dir *d = &m->ifaces[i].dir[dir];

		/* a surplus, or bytes missing without packets missing, stays unexplained */
		if (d->conserve == MODEL_CONSERVE_MISMATCH && d->diff_pkts < 0 && d->diff_bytes < 0) {
			d->conserve = MODEL_CONSERVE_OK_SKIPPED;
			d->skipped_pkts = (uint64_t)(-d->diff_pkts);
		}
	}
}

static int merge_bins(struct model *m, const uint32_t *remap)
{
	struct model_priv *p = m->priv;
	size_t n = 0;

	for (size_t i = 0; i < p->nraw; i++)
		p->raw[i].iface = remap[p->raw[i].iface];
	if (p->nraw)
		qsort(p->raw, p->nraw, sizeof(*p->raw), cmp_bin);
	for (size_t i = 0; i < p->nraw; i++) {
		const struct model_bin *b = &p->raw[i];

		if (n && p->raw[n - 1].iface == b->iface && p->raw[n - 1].dir == b->dir &&
		    p->raw[n - 1].start_ns == b->start_ns) {
			struct model_bin *t = &p->raw[n - 1];

			t->bytes += b->bytes;
			t->pkts += b->pkts;
			t->ce_pkts += b->ce_pkts;
		} else {
			p->raw[n++] = *b;
		}
	}
	if (n && n < p->capraw / 2) {
		void *q = realloc(p->raw, n * sizeof(*p->raw));

		if (q) {
			p->raw = q;
			p->capraw = n;
		}
	}
	p->nraw = n;
	m->bins = p->raw;
	m->nbins = n;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && m->bins[j].iface == m->bins[i].iface && m->bins[j].dir == m->bins[i].dir)
			j++;
		struct model_dir *d = &m->ifaces[m->bins[i].iface].dir[m->bins[i].dir];

		d->bins = &m->bins[i];
		d->nbins = j - i;
		i = j;
	}
	return 0;
}

static void merge_qbins(struct model *m, const uint32_t *qremap)
{
	struct model_priv *p = m->priv;
	size_t n = 0;

	for (size_t i = 0; i < p->nqraw; i++)
		p->qraw[i].qdisc = qremap[p->qraw[i].qdisc];
	if (p->nqraw)
		qsort(p->qraw, p->nqraw, sizeof(*p->qraw), cmp_qbin);
	for (size_t i = 0; i < p->nqraw; i++) {
		const struct model_qbin *b = &p->qraw[i];

		if (n && p->qraw[n - 1].qdisc == b->qdisc && p->qraw[n - 1].start_ns == b->start_ns) {
			struct model_qbin *t = &p->qraw[n - 1];

			if (b->max_backlog > t->max_backlog)
				t->max_backlog = b->max_backlog;
			if (b->sojourn_max_ns > t->sojourn_max_ns)
				t->sojourn_max_ns = b->sojourn_max_ns;
			if (b->max_qlen > t->max_qlen)
				t->max_qlen = b->max_qlen;
			if (b->drops > t->drops)
				t->drops = b->drops;
			t->enq_bytes += b->enq_bytes;
			t->enq_pkts += b->enq_pkts;
			t->sojourn_sum_ns += b->sojourn_sum_ns;
			t->sojourn_cnt += b->sojourn_cnt;
		} else {
			p->qraw[n++] = *b;
		}
	}
	p->nqraw = n;
	m->qbins = p->qraw;
	m->nqbins = n;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && m->qbins[j].qdisc == m->qbins[i].qdisc)
			j++;
		m->qdiscs[m->qbins[i].qdisc].bins = &m->qbins[i];
		m->qdiscs[m->qbins[i].qdisc].nbins = j - i;
		i = j;
	}
}

static void qdisc_stats(struct model_qdisc *q)
{
	for (size_t i = 0; i < q->nbins; i++) {
		const struct model_qbin *b = &q->bins[i];

		if (!i || b->max_backlog > q->max_backlog_bytes) {
			q->max_backlog_bytes = b->max_backlog;
			q->max_backlog_ns = b->start_ns;
		}
		if (b->max_qlen > q->max_qlen_pkts)
			q->max_qlen_pkts = b->max_qlen;
		q->enq_pkts += b->enq_pkts;
		q->enq_bytes += b->enq_bytes;
		q->sojourn_cnt += b->sojourn_cnt;
		q->sojourn_sum_ns += b->sojourn_sum_ns;
		if (b->sojourn_max_ns > q->sojourn_max_ns)
			q->sojourn_max_ns = b->sojourn_max_ns;
	}
	q->sojourn_mean_ns = q->sojourn_cnt ? (double)q->sojourn_sum_ns / (double)q->sojourn_cnt : NAN;
	if (q->nbins) {
		q->drops_first = q->bins[0].drops;
		q->drops_last = q->bins[q->nbins - 1].drops;
		q->drops_counter = q->drops_last >= q->drops_first ? q->drops_last - q->drops_first : 0;
	}
}

/*
 * Phase records and single events (after interfaces and flows have their
 * final order): sort, and give flows and interfaces their slices.
 */
static int finish_phases(struct model *m)
{
	struct model_priv *p = m->priv;

	m->slots = (struct model_slot *)p->slots.items;
	m->nslots = p->slots.n;
	if (m->nslots)
		qsort(m->slots, m->nslots, sizeof(*m->slots), cmp_slot);
	m->phases = p->phases.items;
	m->nphases = p->phases.n;
	if (m->nphases)
		qsort(m->phases, m->nphases, sizeof(*m->phases), cmp_phase);
	m->req_dones = p->req_dones.items;
	m->nreq_dones = p->req_dones.n;
	if (m->nreq_dones)
		qsort(m->req_dones, m->nreq_dones, sizeof(*m->req_dones), cmp_req_done);
	m->comms = (struct model_comm *)p->comms.items;
	m->ncomms = p->comms.n;
	if (m->ncomms)
		qsort(m->comms, m->ncomms, sizeof(*m->comms), cmp_comm);
	m->procs = (struct model_proc *)p->procs.items;
	m->nprocs = p->procs.n;
	if (m->nprocs)
		qsort(m->procs, m->nprocs, sizeof(*m->procs), cmp_proc);

	/* owners: on their flow (its key is the owner's key without the pid) */
	m->owners = (struct model_owner *)p->owners.items;
	m->nowners = p->owners.n;
	for (size_t i = 0; i < m->nowners; i++) {
		long f = kvec_find(&p->flows, &m->owners[i].key);

		m->owners[i].flow = f < 0 ? UINT32_MAX : (uint32_t)f;
	}
	if (m->nowners)
		qsort(m->owners, m->nowners, sizeof(*m->owners), cmp_owner);
	for (size_t i = 0; i < m->nowners;) {
		size_t j = i;

		while (j < m->nowners && m->owners[j].flow == m->owners[i].flow)
			j++;
		if (m->owners[i].flow != UINT32_MAX) {
			m->flows[m->owners[i].flow].first_owner = i;
			m->flows[m->owners[i].flow].nowners = j - i;
		}
		i = j;
	}

	/* retransmits: flow index by key */
	if (p->rtx.n) {
		const struct rtx_raw *raw = p->rtx.items;

		m->rtx_events = calloc(p->rtx.n, sizeof(*m->rtx_events));
		if (!m->rtx_events)
			return -ENOMEM;
		for (size_t i = 0; i < p->rtx.n; i++) {
			long f = kvec_find(&p->flows, &raw[i].key);

			if (f < 0)
				continue; /* cannot happen: the record created its flow */
			m->rtx_events[m->nrtx_events].ts_ns = raw[i].ts_ns;
			m->rtx_events[m->nrtx_events].flow = (uint32_t)f;
			m->rtx_events[m->nrtx_events].segs = raw[i].segs;
			m->rtx_events[m->nrtx_events].trigger = raw[i].trigger;
			m->nrtx_events++;
		}
		vec_free(&p->rtx);
		qsort(m->rtx_events, m->nrtx_events, sizeof(*m->rtx_events), cmp_rtx);
		for (size_t i = 0; i < m->nrtx_events;) {
			size_t j = i;

			while (j < m->nrtx_events && m->rtx_events[j].flow == m->rtx_events[i].flow)
				j++;
			m->flows[m->rtx_events[i].flow].first_rtx = i;
			m->flows[m->rtx_events[i].flow].nrtx = j - i;
			i = j;
		}
	}

	/* drops: interface index */
	if (p->dropev.n) {
		const struct drop_raw *raw = p->dropev.items;

		m->drop_events = calloc(p->dropev.n, sizeof(*m->drop_events));
		if (!m->drop_events)
			return -ENOMEM;
		for (size_t i = 0; i < p->dropev.n; i++) {
			const struct model_iface *f = raw[i].ifindex || raw[i].netns ?
				model__iface(m, raw[i].netns, raw[i].ifindex) : NULL;

			m->drop_events[i].ts_ns = raw[i].ts_ns;
			m->drop_events[i].reason = raw[i].reason;
			m->drop_events[i].iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		}
		m->ndrop_events = p->dropev.n;
		vec_free(&p->dropev);
		qsort(m->drop_events, m->ndrop_events, sizeof(*m->drop_events), cmp_drop_ev);
		for (size_t i = 0; i < m->ndrop_events;) {
			size_t j = i;

			while (j < m->ndrop_events && m->drop_events[j].iface == m->drop_events[i].iface)
				j++;
			if (m->drop_events[i].iface != UINT32_MAX) {
				m->ifaces[m->drop_events[i].iface].first_drop = i;
				m->ifaces[m->drop_events[i].iface].ndrops = j - i;
			}
			i = j;
		}
	}

	/* lookups use binary search from here on */
	free(p->slots.slots); p->slots.slots = NULL; p->slots.nslots = 0;
	free(p->comms.slots); p->comms.slots = NULL; p->comms.nslots = 0;
	free(p->procs.slots); p->procs.slots = NULL; p->procs.nslots = 0;
	free(p->owners.slots); p->owners.slots = NULL; p->owners.nslots = 0;
	return 0;
}

int model__finish(struct model *m)
{
	struct model_priv *p;
	uint32_t *remap = NULL, *qremap = NULL;
	size_t bcap = 0;
	int err = -ENOMEM;

	if (!m)
		return -EINVAL;
	if (m->finished)
		return 0;
	p = m->priv;

	/* capture span */
	if (m->have_end && m->end.ts_ns >= m->start_ns)
		m->end_ns = m->end.ts_ns;
	else if (p->any_ts && p->max_ts > m->start_ns)
		m->end_ns = p->max_ts;
	else
		m->end_ns = m->start_ns;
	m->duration_ns = m->end_ns - m->start_ns;

	/* interfaces: label, sort, remap indices */
	size_t ni = p->ifaces.n;
	struct model_iface *ifs = (struct model_iface *)p->ifaces.items;

	for (size_t i = 0; i < ni; i++)
		iface_label(&ifs[i]);
	remap = calloc(ni ? ni : 1, sizeof(*remap));
	if (!remap)
		goto out;
	/*
	 * Sort, learning the old -> new index mapping: qdisc_drop_recs (computed
	 * later) carries each entry's old index through the sort.
	 */
	for (size_t i = 0; i < ni; i++)
		ifs[i].qdisc_drop_recs = i;
	if (ni)
		qsort(ifs, ni, sizeof(*ifs), cmp_iface);
	for (size_t i = 0; i < ni; i++) {
		remap[ifs[i].qdisc_drop_recs] = (uint32_t)i;
		ifs[i].qdisc_drop_recs = 0;
	}
	if (ni && kvec_reindex(&p->ifaces, p->ifaces.nslots))
		goto out;
	m->ifaces = ifs;
	m->nifaces = ni;

	if (merge_bins(m, remap))
		goto out;

	for (size_t i = 0; i < ni; i++) {
		for (int dir = 0; dir < 2; dir++) {
			struct model_dir *d = &ifs[i].dir[dir];

			d->capacity_bps = capacity_bps(&ifs[i], dir);
			d->line_bps = (double)ifs[i].speed_mbps * 1e6;
			d->shaper_bps = dir == FT_DIR_TX ? (double)ifs[i].tx_rate_kbps * 1e3 : 0;
			dir_stats(m, d);
			if (detect_bursts(m, d, (uint32_t)i, (uint32_t)dir, &bcap))
				goto out;
		}
	}

	/* drops: names, interface, qdisc drop records */
	m->drops = (struct model_drop *)p->drops.items;
	m->ndrops = p->drops.n;
	for (size_t i = 0; i < m->ndrops; i++) {
		struct model_drop *d = &m->drops[i];
		const char *nm = model__drop_reason_name(m, d->reason);
		const struct model_iface *f = model__iface(m, d->netns, d->ifindex);

		if (nm && nm[0])
			snprintf(d->name, sizeof(d->name), "%s", nm);
		else
			snprintf(d->name, sizeof(d->name), "reason %u", d->reason);
		d->iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		if (f && !strncmp(d->name, "QDISC_", 6))
			m->ifaces[d->iface].qdisc_drop_recs += d->count;
		m->drops_total += d->count;
	}
	if (m->ndrops)
		qsort(m->drops, m->ndrops, sizeof(*m->drops), cmp_drop);

	/* qdiscs */
	size_t nq = p->qdiscs.n;
	struct model_qdisc *qs = (struct model_qdisc *)p->qdiscs.items;

	for (size_t i = 0; i < nq; i++) {
		const struct model_iface *f = model__iface(m, qs[i].netns, qs[i].ifindex);

		qs[i].iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		qs[i].drop_recs = i; /* old index, replaced below */
	}
	qremap = calloc(nq ? nq : 1, sizeof(*qremap));
	if (!qremap)
		goto out;
	if (nq)
		qsort(qs, nq, sizeof(*qs), cmp_qdisc);
	for (size_t i = 0; i < nq; i++) {
		qremap[qs[i].drop_recs] = (uint32_t)i;
		qs[i].drop_recs = qs[i].iface != UINT32_MAX ? m->ifaces[qs[i].iface].qdisc_drop_recs : 0;
	}
	if (nq && kvec_reindex(&p->qdiscs, p->qdiscs.nslots))
		goto out;
	m->qdiscs = qs;
	m->nqdiscs = nq;
	merge_qbins(m, qremap);
	for (size_t i = 0; i < nq; i++)
		qdisc_stats(&qs[i]);

	/* flows */
	m->flows = (struct model_flow *)p->flows.items;
	m->nflows = p->flows.n;
	if (m->nflows) {
		qsort(m->flows, m->nflows, sizeof(*m->flows), cmp_flow);
		if (kvec_reindex(&p->flows, p->flows.nslots))
			goto out;
	}
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];

		m->retrans += f->rtx_total;
		m->retrans_segs += f->rtx_segs;
		m->cong_changes += f->cong_changes;
		for (int t = 0; t < MODEL_NTRIGGER; t++)
			m->retrans_by_trigger[t] += f->rtx[t];
	}
	m->cong_pairs = (struct model_cong_pair *)p->cong.items;
	m->ncong_pairs = p->cong.n;
	if (m->ncong_pairs)
		qsort(m->cong_pairs, m->ncong_pairs, sizeof(*m->cong_pairs), cmp_cong);

	/* lost: last cumulative value per (source, cpu), summed */
	m->lost = (struct model_lost *)p->lost.items;
	m->nlost = p->lost.n;
	if (m->nlost)
		qsort(m->lost, m->nlost, sizeof(*m->lost), cmp_lost);
	for (size_t i = 0; i < m->nlost; i++) {
		unsigned s = m->lost[i].source < FT_SRC_MAX ? m->lost[i].source : FT_SRC_MAX;

		m->lost_by_source[s] += m->lost[i].lost;
		m->lost_total += m->lost[i].lost;
	}

	/* growths of the lost counters, by time (owned by the model) */
	m->lost_evs = (struct model_lost_ev *)p->lostev.items;
	m->nlost_evs = p->lostev.n;
	p->lostev.items = NULL;
	p->lostev.n = p->lostev.cap = 0;
	if (m->nlost_evs)
		qsort(m->lost_evs, m->nlost_evs, sizeof(*m->lost_evs), cmp_lost_ev);

	m->probes = (struct model_probe *)p->probes.items;
	m->nprobes = p->probes.n;
	if (m->nprobes)
		qsort(m->probes, m->nprobes, sizeof(*m->probes), cmp_probe);

	/* coverage: tracepoint hits the programs did not see, kept apart from lost_total */
	m->coverage = (struct model_coverage *)p->coverage.items;
	m->ncoverage = p->coverage.n;
	if (m->ncoverage)
		qsort(m->coverage, m->ncoverage, sizeof(*m->coverage), cmp_coverage);
	for (size_t i = 0; i < m->ncoverage; i++) {
		struct model_coverage *c = &m->coverage[i];

		c->skipped = c->known && c->hits > c->runs ? c->hits - c->runs : 0;
		m->skipped_runs += c->skipped;
		m->coverage_unknown += !c->known;
	}

	for (size_t i = 0; i < ni; i++)
		conserve(m, &ifs[i]);
	for (int dir = 0; dir < 2; dir++)
		conserve_explain_skipped(m, dir);

	if (finish_phases(m))
		goto out;
	if (model_ctr__finish(m, p->ctr))
		goto out;

	/* drop hash tables that are no longer consistent with sorted arrays */
	free(p->cong.slots); p->cong.slots = NULL; p->cong.nslots = 0;
	free(p->lost.slots); p->lost.slots = NULL; p->lost.nslots = 0;
	free(p->drops.slots); p->drops.slots = NULL; p->drops.nslots = 0;
	free(p->probes.slots); p->probes.slots = NULL; p->probes.nslots = 0;
	free(p->coverage.slots); p->coverage.slots = NULL; p->coverage.nslots = 0;
	m->finished = true;
	err = 0;
out:
	free(remap);
	free(qremap);
	return err;
}

const struct model_iface *model__iface(const struct model *m, uint32_t netns, uint32_t ifindex)
{
	uint32_t key[2] = { netns, ifindex };
	long i;

	if (!m || !m->ifaces)
		return NULL;
	i = kvec_find(&m->priv->ifaces, key);
	return i < 0 ? NULL : &m->ifaces[i];
}

const char *model__netns_name(const struct model *m, uint32_t netns)
{
	for (size_t i = 0; i < m->nifaces; i++)
		if (m->ifaces[i].netns == netns && m->ifaces[i].netns_name[0])
			return m->ifaces[i].netns_name;
	return "";
}

const char *model__host_name(const struct model *m, uint32_t netns, char *buf, size_t len)
{
	const char *n = model__netns_name(m, netns);

	if (n[0])
		snprintf(buf, len, "%s", n);
	else if (m->hdr.hostname[0])
		snprintf(buf, len, "%.*s", (int)sizeof(m->hdr.hostname), m->hdr.hostname);
	else
		snprintf(buf, len, "netns %u", netns);
	return buf;
}

const char *model__drop_reason_name(const struct model *m, uint32_t reason)
{
	long i = kvec_find(&m->priv->reasons, &reason);

	return i < 0 ? NULL : ((const struct reason_name *)kvec_at(&m->priv->reasons, (size_t)i))->name;
}

const struct model_flow *model__flow(const struct model *m, const struct ft_flow *f)
{
	struct ft_flow key;
	long i;

	if (!m || !m->finished || !f)
		return NULL;
	flow_key(f, &key);
	i = kvec_find(&m->priv->flows, &key);
	return i < 0 ? NULL : &m->flows[i];
}

const struct model_slot *model__slot(const struct model *m, uint32_t slot)
{
	size_t lo = 0, hi = m->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->slots[mid].slot == slot)
			return &m->slots[mid];
		if (m->slots[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct model_proc *model__proc(const struct model *m, uint32_t pid)
{
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid].pid == pid)
			return &m->procs[mid];
		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *model__probe_name(const struct model *m, uint32_t id, char *buf, size_t len)
{
	for (size_t i = 0; i < m->nprobes; i++)
		if (m->probes[i].id == id && m->probes[i].name[0])
			return m->probes[i].name;
	snprintf(buf, len, "probe %u", id);
	return buf;
}

const char *model__trigger_name(unsigned trigger)
{
	static const char *const n[] = { "unknown", "rto", "fast", "tlp", "syn" };

	return trigger < MODEL_NTRIGGER ? n[trigger] : "unknown";
}

const char *model__ca_state_name(unsigned state, char *buf, size_t len)
{
	static const char *const n[] = { "open", "disorder", "cwr", "recovery", "loss" };

	if (state < 5)
		return n[state];
	snprintf(buf, len, "state %u", state);
	return buf;
}

const char *model__source_name(unsigned source)
{
	static const char *const n[] = { "net", "tcp", "user", "phase" };

	_Static_assert(sizeof(n) / sizeof(n[0]) == FT_SRC_MAX, "a name per enum ft_source");
	return source < FT_SRC_MAX ? n[source] : "unknown";
}

const char *model__conserve_name(enum model_conserve c)
{
	switch (c) {
	case MODEL_CONSERVE_OK: return "ok";
	case MODEL_CONSERVE_MISMATCH: return "mismatch";
	case MODEL_CONSERVE_OK_SKIPPED: return "ok_skipped";
	case MODEL_CONSERVE_UNTRACED: return "untraced";
	default: return "unknown";
	}
}

int model__load(const char *path, const struct model_opts *o, struct model **out,
		char *err, size_t errlen)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	struct model *m = NULL;
	uint64_t n = 0;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	ret = capture__open(&r, path, err, errlen);
	if (ret)
		return ret < 0 ? ret : -EIO;
	m = model__new(capture__header(r), o);
	if (!m) {
		ret = -errno;
		snprintf(err, errlen, "%s", ret == -EINVAL ? "capture header has a bin width of 0"
							     : strerror(-ret));
		goto fail;
	}
	while ((ret = capture__next(r, &rec)) == 1) {
		n++;
		ret = model__add(m, rec);
		if (ret == -EINVAL) {
			snprintf(err, errlen,
				 "corrupt record %llu (%s, size %u) in the block after offset %llu",
				 (unsigned long long)n, capture__rec_name(rec->type), rec->size,
				 (unsigned long long)capture__good_offset(r));
			ret = -EIO;
			goto fail;
		}
		if (ret) {
			snprintf(err, errlen, "%s", strerror(-ret));
			goto fail;
		}
	}
	if (ret < 0 || capture__state(r) == CAPTURE_CORRUPT) {
		const char *why = capture__error(r);

		snprintf(err, errlen, "%s", why && why[0] ? why : "corrupt capture");
		ret = -EIO;
		goto fail;
	}
	m->truncated = capture__state(r) == CAPTURE_TRUNCATED || !m->have_end;
	if (m->truncated) {
		const char *why = capture__error(r);

		snprintf(m->truncated_why, sizeof(m->truncated_why), "%s",
			 why && why[0] ? why : "capture has no end record (recording was interrupted)");
	}
	ret = model__finish(m);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
		goto fail;
	}
	capture__free(r);
	*out = m;
	return 0;
fail:
	model__free(m);
	capture__free(r);
	return ret;
}

const char *model__flow_str(const struct ft_flow *f, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = f->family == 6 ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, f->saddr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (!inet_ntop(af, f->daddr, b, sizeof(b)))
		snprintf(b, sizeof(b), "?");
	if (f->family == 6)
		snprintf(buf, len, "[%s]:%u -> [%s]:%u", a, f->sport, b, f->dport);
	else
		snprintf(buf, len, "%s:%u -> %s:%u", a, f->sport, b, f->dport);
	return buf;
}
