// SPDX-License-Identifier: GPL-2.0-or-later
/* The live aggregator behind `fabtrace top` (userspace/live/live.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/iface_label.h"
#include "userspace/correlate/correlate.h"
#include "userspace/live/live.h"

void live_opts__init(struct live_opts *o, uint64_t bin_ns)
{
	memset(o, 0, sizeof(*o));
	o->bin_ns = bin_ns;
	o->burst_threshold = 0.5;
}

struct live *live__new(const struct live_opts *o, uint64_t now_ns)
{
	struct live *l;

	if (!o || !o->bin_ns) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->reasons = calloc(LIVE_MAX_REASONS, sizeof(*l->reasons));
	if (!l->reasons) {
		free(l);
		return NULL;
	}
	l->opts = *o;
	if (!(l->opts.burst_threshold > 0)) /* also NaN */
		l->opts.burst_threshold = 0.5;
	if (!l->opts.burst_gap_ns)
		l->opts.burst_gap_ns = o->bin_ns;
	l->start_ns = l->period_start_ns = now_ns;
	l->slowest = LIVE_NONE;
	return l;
}

void live__free(struct live *l)
{
	if (!l)
		return;
	free(l->ifaces);
	free(l->ifhash);
	free(l->reasons);
	free(l->counters);
	free(l->slots);
	live_align__free(&l->align);
	free(l);
}

/* ---- interfaces ---- */

static size_t if_hash(uint32_t netns, uint32_t ifindex, size_t cap)
{
	uint64_t h = ((uint64_t)netns << 32 | ifindex) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

uint32_t live__iface(const struct live *l, uint32_t netns, uint32_t ifindex)
{
	if (!l->ifhash_cap)
		return LIVE_NONE;
	for (size_t i = if_hash(netns, ifindex, l->ifhash_cap);; i = (i + 1) & (l->ifhash_cap - 1)) {
		uint32_t k = l->ifhash[i];

		if (k == LIVE_NONE)
			return LIVE_NONE;
		if (l->ifaces[k].netns == netns && l->ifaces[k].ifindex == ifindex)
			return k;
	}
}

static void label_iface(struct live_iface *f)
{
	iface_label(f->label, sizeof(f->label), f->known, f->name, f->netns_name, f->netns, f->ifindex);
}

static void capacity(struct live_iface *f)
{
	for (int dir = FT_DIR_RX; dir <= FT_DIR_TX; dir++)
		f->dir[dir].capacity_bps = iface_capacity_bps(f->speed_mbps, f->tx_rate_kbps, dir);
}

/* The interface's index, created on first sight; LIVE_NONE when full. */
static uint32_t get_iface(struct live *l, uint32_t netns, uint32_t ifindex)
{
	uint32_t k = live__iface(l, netns, ifindex);
	struct live_iface *f;

	if (k != LIVE_NONE)
		return k;
	if (l->nifaces >= LIVE_MAX_IFACES) {
		l->overflow_ifaces++;
		return LIVE_NONE;
	}
	if (!l->ifhash_cap) {
		l->ifhash_cap = (size_t)LIVE_MAX_IFACES * 2; /* load stays <= 1/2 */
		l->ifhash = malloc(l->ifhash_cap * sizeof(*l->ifhash));
		if (!l->ifhash) {
			l->ifhash_cap = 0;
			return LIVE_NONE;
		}
		memset(l->ifhash, 0xff, l->ifhash_cap * sizeof(*l->ifhash));
	}
	if (l->nifaces == l->ifaces_cap) {
		size_t cap = l->ifaces_cap ? l->ifaces_cap * 2 : 16;
		void *p = realloc(l->ifaces, cap * sizeof(*l->ifaces));

		if (!p)
			return LIVE_NONE;
		l->ifaces = p;
		l->ifaces_cap = cap;
	}
	k = (uint32_t)l->nifaces++;
	f = &l->ifaces[k];
	memset(f, 0, sizeof(*f));
	f->netns = netns;
	f->ifindex = ifindex;
	for (int d = 0; d < 2; d++)
		f->dir[d].util = f->dir[d].peak_util = NAN;
	label_iface(f);
	for (size_t i = if_hash(netns, ifindex, l->ifhash_cap);; i = (i + 1) & (l->ifhash_cap - 1))
		if (l->ifhash[i] == LIVE_NONE) {
			l->ifhash[i] = k;
			break;
		}
	return k;
}

static void on_iface(struct live *l, const struct ft_iface_info *r)
{
	uint32_t k = get_iface(l, r->netns, r->ifindex);
	struct live_iface *f;

	if (k == LIVE_NONE)
		return;
	f = &l->ifaces[k];
	f->known = true;
	f->traced = f->traced || (r->flags & FT_IFACE_TRACED);
	f->mtu = r->mtu;
	f->speed_mbps = r->speed_mbps;
	f->tx_rate_kbps = r->tx_rate_kbps;
	f->flags = r->flags;
	iface_info_names(r, &f->name, &f->netns_name, &f->kind);
	label_iface(f);
	capacity(f);
	/* a RoCE port described before its netdev */
	for (size_t i = 0; i < l->nports; i++)
		if (l->ports[i].iface == LIVE_NONE && l->ports[i].netdev[0] &&
		    !strcmp(l->ports[i].netdev, f->name))
			l->ports[i].iface = k;
}

/* A hot bin at START: part of the current burst, or the start of a new one. */
static void hot_bin(struct live *l, struct live_dir *d, uint64_t start)
{
	uint64_t end = start + l->opts.bin_ns, gap = l->opts.burst_gap_ns;

	d->hot_bins++;
	/* bins of different CPUs may come out of order: within gap of either edge extends it */
	if (d->burst_open && start < d->burst_end + gap && end + gap > d->burst_start) {
		if (start < d->burst_start)
			d->burst_start = start;
		if (end > d->burst_end)
			d->burst_end = end;
		return;
	}
	d->burst_open = true;
	d->burst_start = start;
	d->burst_end = end;
	d->bursts++;
	d->a_bursts++;
}

static void on_bin(struct live *l, const struct ft_iface_bin *b)
{
	uint32_t k = get_iface(l, b->netns, b->ifindex);
	struct live_dir *d;
	struct live_bin *w;
	uint64_t merged;

	if (k == LIVE_NONE || b->dir > FT_DIR_TX)
		return;
	d = &l->ifaces[k].dir[b->dir];
	d->bytes += b->bytes;
	d->pkts += b->pkts;
	d->ce_pkts += b->ce_pkts;
	d->a_bytes += b->bytes;
	d->a_pkts += b->pkts;
	d->a_ce += b->ce_pkts;
	if (b->bytes)
		l->ifaces[k].last_active_ns = b->start_ns;
	/* merge the per-CPU parts of one bin in a window indexed by bin number */
	w = &d->win[(b->start_ns / l->opts.bin_ns) % LIVE_WIN];
	if (w->start_ns == b->start_ns && w->bytes) {
		w->bytes += b->bytes;
	} else if (w->start_ns < b->start_ns || !w->bytes) {
		w->start_ns = b->start_ns;
		w->bytes = b->bytes;
		w->hot = false;
	} else {
		w = NULL; /* older than the window: on its own */
	}
	merged = w ? w->bytes : b->bytes;
	if (merged > d->a_peak_bin) {
		d->a_peak_bin = merged;
		d->a_peak_start_ns = b->start_ns;
	}
	if (merged > d->max_peak_bin)
		d->max_peak_bin = merged;
	if (d->capacity_bps > 0 && merged &&
	    (double)merged * 8e9 / (double)l->opts.bin_ns >= l->opts.burst_threshold * d->capacity_bps - 1e-9) {
		if (!w || !w->hot)
			hot_bin(l, d, b->start_ns);
		if (w)
			w->hot = true;
	}
}

static void on_qdisc(struct live *l, const struct ft_qdisc_bin *q)
{
	uint32_t k = get_iface(l, q->netns, q->ifindex);
	struct live_iface *f;

	if (k == LIVE_NONE)
		return;
	f = &l->ifaces[k];
	if (q->max_backlog > f->a_backlog || !f->qdisc[0]) {
		memcpy(f->qdisc, q->kind, sizeof(f->qdisc));
		f->qdisc[sizeof(f->qdisc) - 1] = '\0';
	}
	if (q->max_backlog > f->a_backlog)
		f->a_backlog = q->max_backlog;
	if (q->max_backlog > f->max_backlog)
		f->max_backlog = q->max_backlog;
	if (q->max_qlen > f->a_qlen)
		f->a_qlen = q->max_qlen;
	if (q->sojourn_cnt && q->sojourn_max_ns > f->a_sojourn)
		f->a_sojourn = q->sojourn_max_ns;
	if (q->sojourn_cnt && q->sojourn_max_ns > f->max_sojourn)
		f->max_sojourn = q->sojourn_max_ns;
}

/* ---- drops, retransmits, lost ---- */

static void on_reason(struct live *l, const struct ft_drop_reason *r)
{
	for (size_t i = 0; i < l->nreasons; i++)
		if (l->reasons[i].reason == r->reason)
			return;
	if (l->nreasons >= LIVE_MAX_REASONS)
		return;
	l->reasons[l->nreasons].reason = r->reason;
	memcpy(l->reasons[l->nreasons].name, r->name, sizeof(r->name));
	l->reasons[l->nreasons].name[sizeof(r->name) - 1] = '\0';
	l->nreasons++;
}

const char *live__reason_name(const struct live *l, uint32_t reason)
{
	for (size_t i = 0; i < l->nreasons; i++)
		if (l->reasons[i].reason == reason)
			return l->reasons[i].name;
	return NULL;
}

static void on_drop(struct live *l, const struct ft_drop *d)
{
	uint32_t k = d->ifindex ? get_iface(l, d->netns, d->ifindex) : LIVE_NONE;
	struct live_drop *s = NULL;

	l->drops_total++;
	l->a_drops++;
	if (k != LIVE_NONE) {
		l->ifaces[k].drops++;
		l->ifaces[k].a_drops++;
	}
	for (size_t i = 0; i < l->ndrops && !s; i++)
		if (l->drops[i].iface == k && l->drops[i].reason == d->reason)
			s = &l->drops[i];
	if (!s && l->ndrops < LIVE_MAX_DROPS - 1) { /* the last one is the overflow series */
		s = &l->drops[l->ndrops++];
		*s = (struct live_drop){ .iface = k, .reason = d->reason };
	}
	if (!s) {
		s = &l->drops[LIVE_MAX_DROPS - 1];
		if (l->ndrops < LIVE_MAX_DROPS) {
			*s = (struct live_drop){ .iface = LIVE_NONE, .reason = LIVE_NONE };
			l->ndrops = LIVE_MAX_DROPS;
		}
		l->overflow_drops++;
	}
	s->total++;
	s->a++;
}

static void on_retrans(struct live *l, const struct ft_retrans *r)
{
	uint32_t k = r->flow.ifindex ? get_iface(l, r->flow.netns, r->flow.ifindex) : LIVE_NONE;
	uint64_t segs = r->segs ? r->segs : 1;

	if (k == LIVE_NONE) {
		l->rtx_unrouted += segs;
		l->a_rtx_unrouted += segs;
		return;
	}
	l->ifaces[k].rtx += segs;
	l->ifaces[k].a_rtx += segs;
}

static void on_lost(struct live *l, const struct ft_lost *r)
{
	uint64_t *v;

	if (r->source >= FT_SRC_MAX || r->cpu >= LIVE_MAX_CPUS)
		return;
	v = &l->lost[r->source][r->cpu];
	if (r->lost <= *v) /* cumulative: only growth counts */
		return;
	l->lost_by_source[r->source] += r->lost - *v;
	l->lost_total += r->lost - *v;
	l->a_lost += r->lost - *v;
	*v = r->lost;
}

/* ---- counters (rdma/) ---- */

static void on_port(struct live *l, const struct ft_rdma_port *r)
{
	struct live_port *p;

	for (size_t i = 0; i < l->nports; i++)
		if (l->ports[i].port_id == r->port_id)
			return;
	if (l->nports >= LIVE_MAX_PORTS)
		return;
	p = &l->ports[l->nports++];
	memset(p, 0, sizeof(*p));
	p->port_id = r->port_id;
	p->port_num = r->port_num;
	memcpy(p->dev, r->dev, sizeof(p->dev));
	p->dev[sizeof(p->dev) - 1] = '\0';
	memcpy(p->netdev, r->netdev, sizeof(p->netdev));
	p->netdev[sizeof(p->netdev) - 1] = '\0';
	p->rate_mbps = r->rate_mbps;
	p->link_layer = r->link_layer;
	p->iface = r->netdev_ifindex ? get_iface(l, r->netdev_netns, r->netdev_ifindex) : LIVE_NONE;
}

static struct live_group *find_group(struct live *l, uint32_t id)
{
	for (size_t i = 0; i < l->ngroups; i++)
		if (l->groups[i].id == id)
			return &l->groups[i];
	return NULL;
}

static void on_group(struct live *l, const struct ft_ctr_group *r)
{
	struct live_group *g;

	if (find_group(l, r->group))
		return;
	if (l->ngroups >= LIVE_MAX_GROUPS) {
		l->overflow_counters += r->ncounters;
		return;
	}
	g = &l->groups[l->ngroups++];
	memset(g, 0, sizeof(*g));
	g->id = r->group;
	g->kind = r->kind;
	g->ncounters = r->ncounters;
	g->port = g->iface = g->first = LIVE_NONE;
	memcpy(g->label, r->label, sizeof(g->label));
	g->label[sizeof(g->label) - 1] = '\0';
	if (r->kind != FT_CTR_ETHTOOL)
		for (size_t i = 0; i < l->nports; i++)
			if (l->ports[i].port_id == r->port_id)
				g->port = (uint32_t)i;
	if (r->ifindex)
		g->iface = get_iface(l, r->netns, r->ifindex);
	if (g->iface != LIVE_NONE)
		l->ifaces[g->iface].has_ctr = true;
	if (!r->ncounters || r->ncounters > LIVE_MAX_COUNTERS - l->ncounters) {
		l->overflow_counters += r->ncounters;
		return;
	}
	{
		void *p = realloc(l->counters, (l->ncounters + r->ncounters) * sizeof(*l->counters));

		if (!p) {
			l->overflow_counters += r->ncounters;
			return;
		}
		l->counters = p;
	}
	g->first = (uint32_t)l->ncounters;
	memset(&l->counters[l->ncounters], 0, r->ncounters * sizeof(*l->counters));
	for (uint32_t i = 0; i < r->ncounters; i++)
		l->counters[l->ncounters + i].group = (uint32_t)(g - l->groups);
	l->ncounters += r->ncounters;
}

static void on_ctr_name(struct live *l, const struct ft_ctr_name *r)
{
	struct live_group *g = find_group(l, r->group);
	struct live_counter *c;

	if (!g || g->first == LIVE_NONE || r->index >= g->ncounters)
		return;
	c = &l->counters[g->first + r->index];
	c->cls = r->cls < FT_CLS_MAX ? r->cls : FT_CLS_OTHER;
	c->flags = r->flags;
	memcpy(c->name, r->name, sizeof(c->name));
	c->name[sizeof(c->name) - 1] = '\0';
}

static int on_ctr_sample(struct live *l, const struct ft_ctr_sample *r)
{
	const uint64_t *v = (const uint64_t *)(const void *)(r + 1);
	struct live_group *g;
	uint32_t n;

	if (r->n > (r->hdr.size - sizeof(*r)) / sizeof(uint64_t))
		return -EINVAL;
	g = find_group(l, r->group);
	if (!g || g->first == LIVE_NONE)
		return 0;
	n = r->n < g->ncounters ? r->n : g->ncounters;
	for (uint32_t i = 0; i < n; i++) {
		struct live_counter *c = &l->counters[g->first + i];
		uint64_t raw, delta;
		unsigned df = 0;

		if (v[i] == FT_CTR_NA)
			continue;
		if (!c->have_prev) {
			c->have_prev = true;
			c->prev = v[i];
			continue;
		}
		raw = ctr__delta(c->prev, v[i], c->flags, &df);
		c->prev = v[i];
		c->wraps += !!(df & (CTR_DELTA_WRAP32 | CTR_DELTA_WRAP64));
		c->resets += !!(df & CTR_DELTA_RESET);
		delta = ctr__scale(raw, c->flags);
		if (!delta)
			continue;
		c->total += delta;
		c->a += delta;
		if (c->cls == FT_CLS_DATA && !(c->flags & FT_CTRF_BYTES))
			continue; /* the data class's sum is of bytes: its packet counters stay apart */
		if (g->iface != LIVE_NONE) {
			l->ifaces[g->iface].ctr[c->cls] += delta;
			l->ifaces[g->iface].a_ctr[c->cls] += delta;
		}
		if (g->port != LIVE_NONE) {
			l->ports[g->port].ctr[c->cls] += delta;
			l->ports[g->port].a_ctr[c->cls] += delta;
		}
	}
	return 0;
}

/* ---- phases ---- */

static struct live_slot *slot_of(struct live *l, uint32_t slot)
{
	if (slot >= l->nslots || !l->slots[slot].known)
		return NULL;
	return &l->slots[slot];
}

static void on_slot(struct live *l, const struct ft_phase_slot *r)
{
	if (r->slot >= LIVE_MAX_SLOTS)
		return;
	if (r->slot >= l->nslots) {
		size_t n = r->slot + 64 < LIVE_MAX_SLOTS ? r->slot + 64 : LIVE_MAX_SLOTS;
		void *p = realloc(l->slots, n * sizeof(*l->slots));

		if (!p)
			return;
		l->slots = p;
		memset(&l->slots[l->nslots], 0, (n - l->nslots) * sizeof(*l->slots));
		l->nslots = n;
	}
	l->slots[r->slot] = (struct live_slot){ .op = r->op, .lib_kind = r->lib_kind,
						.flags = r->flags, .known = true };
}

static uint32_t get_proc(struct live *l, uint32_t pid)
{
	struct live_proc *p;

	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i].pid == pid)
			return (uint32_t)i;
	if (l->nprocs >= LIVE_MAX_PROCS) {
		/* reuse the slot of a process that exited, else give up */
		size_t victim = LIVE_MAX_PROCS;

		for (size_t i = 0; i < l->nprocs; i++)
			if (l->procs[i].exited && (victim == LIVE_MAX_PROCS ||
			    l->procs[i].last_seen_ns < l->procs[victim].last_seen_ns))
				victim = i;
		if (victim == LIVE_MAX_PROCS) {
			l->overflow_procs++;
			return LIVE_NONE;
		}
		if (l->slowest == victim)
			l->slowest = LIVE_NONE;
		live_align__forget(&l->align, (uint32_t)victim);
		p = &l->procs[victim];
	} else {
		p = &l->procs[l->nprocs++];
	}
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->rank = p->size = -1;
	p->last_busbw_bps = NAN;
	return (uint32_t)(p - l->procs);
}

static void on_proc(struct live *l, const struct ft_proc *r)
{
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;

	if (k == LIVE_NONE)
		return;
	p = &l->procs[k];
	memcpy(p->comm, r->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->netns = r->netns;
	p->exited = r->event == FT_PROC_EXIT;
	p->last_seen_ns = r->ts_ns;
}

static void on_comm_info(struct live *l, const struct ft_comm_info *r)
{
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;
	struct live_comm *c = NULL;

	if (k == LIVE_NONE)
		return;
	p = &l->procs[k];
	for (int i = 0; i < p->ncomms && !c; i++)
		if (p->comms[i].comm == r->comm)
			c = &p->comms[i];
	if (!c) {
		if (p->ncomms == LIVE_MAX_COMMS)
			return;
		c = &p->comms[p->ncomms++];
		*c = (struct live_comm){ .comm = r->comm, .rank = -1, .size = -1 };
	}
	if (r->rank >= 0)
		c->rank = r->rank;
	if (r->size > 0)
		c->size = r->size;
	/* the world is the largest communicator it told us about */
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].size > p->size || (p->comms[i].size == p->size && p->comms[i].rank >= 0)) {
			p->size = p->comms[i].size;
			p->rank = p->comms[i].rank;
		}
}

static int32_t comm_size(const struct live_proc *p, uint64_t comm)
{
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].comm == comm)
			return p->comms[i].size;
	return -1;
}

static struct live_rank *rank_of(struct live *l, const struct live_proc *p)
{
	if (p->rank < 0)
		return NULL;
	for (size_t i = 0; i < l->nranks; i++)
		if (l->ranks[i].rank == p->rank && l->ranks[i].netns == p->netns)
			return &l->ranks[i];
	if (l->nranks == LIVE_MAX_RANKS)
		return NULL;
	l->ranks[l->nranks] = (struct live_rank){ .rank = p->rank, .netns = p->netns };
	return &l->ranks[l->nranks++];
}

/*
 * Match one collective across ranks by (communicator, seq): an integer
 * handle (MPICH) is the same in every process; a pointer (Open MPI, NCCL)
 * is not, so it is keyed by the communicator's size only, and apart from
 * collectives the library numbered itself (Gloo's tag).  The kind comes
 * from the slot (comm_key.h).  The rank that entered last, once every rank
 * was seen, is the one the others waited for.
 */
static uint64_t instance_key(uint64_t comm, uint32_t kind, int32_t size)
{
	return kind == CORR_COMM_HANDLE ? comm : (uint64_t)(kind == CORR_COMM_LIBSEQ ? 2 : 1) << 62 | (uint32_t)size;
}

static void match_instance(struct live *l, uint32_t proc, uint64_t key, int32_t size, uint64_t seq, uint16_t op,
			   uint64_t entry)
{
	struct live_instance *in = NULL;

	if (size < 2 || !seq)
		return;
	for (unsigned i = 0; i < LIVE_INSTANCES && !in; i++)
		if (l->inst[i].used && l->inst[i].key == key && l->inst[i].seq == seq &&
		    l->inst[i].op == op)
			in = &l->inst[i];
	if (!in) {
		in = &l->inst[l->inst_next];  /* the oldest goes: never completed */
		l->inst_next = (l->inst_next + 1) % LIVE_INSTANCES;
		*in = (struct live_instance){ .key = key, .seq = seq, .op = op, .expected = size,
					      .first_entry = entry, .last_entry = entry,
					      .last_proc = proc, .used = true };
	} else {
		if (entry < in->first_entry)
			in->first_entry = entry;
		if (entry >= in->last_entry) {
			in->last_entry = entry;
			in->last_proc = proc;
		}
	}
	if (++in->seen < in->expected)
		return;
	if (in->last_entry > in->first_entry && in->last_proc < l->nprocs) {
		struct live_proc *p = &l->procs[in->last_proc];
		uint64_t skew = in->last_entry - in->first_entry;

		struct live_rank *rk = rank_of(l, p);

		p->late++;
		p->a_late++;
		p->late_ns += skew;
		p->a_late_ns += skew;
		if (rk) {
			rk->late++;
			rk->late_ns += skew;
		}
	}
	in->used = false;
}

static void match_call(void *ctx, const struct live_call *c)
{
	match_instance(ctx, c->proc, c->key, c->size, c->seq, c->op, c->start);
}

static void coll_done(struct live *l, uint32_t k, uint16_t op, uint64_t start, uint64_t end,
		      uint64_t bytes, int32_t nranks, bool count_total)
{
	struct live_proc *p = &l->procs[k];
	struct live_rank *rk = rank_of(l, p);
	uint64_t dur = end > start ? end - start : 0;
	uint32_t n = nranks > 0 ? (uint32_t)nranks : 0;
	uint64_t size = corr__size_bytes(op, bytes, n, count_total);

	p->colls++;
	p->a_colls++;
	p->coll_ns += dur;
	p->a_coll_ns += dur;
	p->last_op = op;
	p->last_end_ns = end;
	p->last_dur_ns = dur;
	p->last_size = size;
	/* bus bandwidth needs the ranks (the factor depends on them) */
	p->last_busbw_bps = size && dur && n ? (double)size * 8e9 / (double)dur * corr__busbw_factor(op, n)
					     : NAN;
	if (op < FT_OP_MAX) {
		l->ops[op].calls++;
		l->ops[op].ns += dur;
		l->ops[op].bytes += size;
	}
	l->colls_total++;
	if (rk) {
		rk->colls++;
		rk->coll_ns += dur;
	}
}

static void on_phase(struct live *l, const struct ft_phase *r)
{
	const struct live_slot *s = slot_of(l, r->slot);
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;
	bool coll;
	int32_t n;
	uint64_t bytes;

	if (k == LIVE_NONE)
		return;
	p = &l->procs[k];
	p->netns = r->netns;
	p->last_seen_ns = r->end_ns;
	if (!s)
		return;
	if (s->op == FT_OP_STEP && (r->flags & FT_PHASE_MARK_BEGIN)) {
		p->step = r->count;
		return;
	}
	if (s->flags & FT_SLOT_MARKER)
		return;
	p->calls++;
	coll = r->seq > 0 && (corr__op_is_collective(s->op) || (s->flags & FT_SLOT_COLLECTIVE));
	if (!coll)
		return;
	n = comm_size(p, r->comm);
	if (n <= 0)
		n = p->size;
	bytes = r->dtype_size ? r->count * r->dtype_size : 0;
	{
		uint32_t kind = comm_key__kind(s->flags, r->comm, (r->flags & FT_PHASE_LIB_SEQ) != 0);
		struct live_call c = { .key = instance_key(r->comm, kind, n), .seq = r->seq, .start = r->start_ns,
				       .end = r->end_ns, .proc = k, .size = n, .op = s->op };

		if (kind == CORR_COMM_LIBSEQ || n < 2)
			match_call(l, &c); /* the library's own numbers: equal on every rank */
		else
			live_align__feed(&l->align, &c, match_call, l);
	}
	if ((r->flags & FT_PHASE_NONBLOCKING) && !(r->flags & FT_PHASE_OPEN)) {
		struct live_pending *q = &l->pend[l->pend_next];

		l->pend_next = (l->pend_next + 1) % LIVE_PENDING;
		*q = (struct live_pending){ .pid = r->pid, .proc = k, .req = r->req,
					    .start_ns = r->start_ns, .bytes = bytes, .op = s->op,
					    .nranks = n, .count_total = !!(r->flags & FT_PHASE_COUNT_TOTAL),
					    .used = true };
		return;
	}
	coll_done(l, k, s->op, r->start_ns, r->end_ns, bytes, n, !!(r->flags & FT_PHASE_COUNT_TOTAL));
}

static void on_req_done(struct live *l, const struct ft_req_done *r)
{
	for (unsigned i = 0; i < LIVE_PENDING; i++) {
		struct live_pending *q = &l->pend[i];

		if (!q->used || q->pid != r->pid || q->req != r->req || r->ts_ns < q->start_ns)
			continue;
		q->used = false;
		if (q->proc < l->nprocs && l->procs[q->proc].pid == q->pid)
			coll_done(l, q->proc, q->op, q->start_ns, r->ts_ns, q->bytes, q->nranks,
				  q->count_total);
		return;
	}
}

static void on_sock_owner(struct live *l, const struct ft_sock_owner *r)
{
	/* only names processes the phase probes already know */
	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i].pid == r->pid && !l->procs[i].comm[0]) {
			memcpy(l->procs[i].comm, r->comm, sizeof(l->procs[i].comm));
			l->procs[i].comm[sizeof(l->procs[i].comm) - 1] = '\0';
		}
}

/* ---- records ---- */

int live__add(struct live *l, const struct ft_rec_hdr *h)
{
	const void *r = h;

	/* the record's size as this build writes it (capture.c's one table) */
	if (h->size < sizeof(*h) || h->size < capture__rec_size(h->type)) {
		l->bad_records++;
		return -EINVAL;
	}
	l->records++;
	switch (h->type) {
	case FT_REC_IFACE_BIN: on_bin(l, r); break;
	case FT_REC_QDISC_BIN: on_qdisc(l, r); break;
	case FT_REC_DROP: on_drop(l, r); break;
	case FT_REC_RETRANS: on_retrans(l, r); break;
	case FT_REC_PHASE: on_phase(l, r); break;
	case FT_REC_REQ_DONE: on_req_done(l, r); break;
	case FT_REC_COMM_INFO: on_comm_info(l, r); break;
	case FT_REC_PROC: on_proc(l, r); break;
	case FT_REC_SOCK_OWNER: on_sock_owner(l, r); break;
	case FT_REC_IFACE: on_iface(l, r); break;
	case FT_REC_LOST: on_lost(l, r); break;
	case FT_REC_DROP_REASON: on_reason(l, r); break;
	case FT_REC_PHASE_SLOT: on_slot(l, r); break;
	case FT_REC_RDMA_PORT: on_port(l, r); break;
	case FT_REC_CTR_GROUP: on_group(l, r); break;
	case FT_REC_CTR_NAME: on_ctr_name(l, r); break;
	case FT_REC_CTR_SAMPLE:
		if (on_ctr_sample(l, r)) {
			l->bad_records++;
			return -EINVAL;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* ---- periods ---- */

static void close_dir(struct live *l, struct live_dir *d, double secs)
{
	d->p_bytes = d->a_bytes;
	d->p_pkts = d->a_pkts;
	d->p_ce = d->a_ce;
	d->p_bursts = d->a_bursts;
	d->p_peak_bin = d->a_peak_bin;
	d->p_peak_start_ns = d->a_peak_start_ns;
	d->a_bytes = d->a_pkts = d->a_ce = d->a_bursts = d->a_peak_bin = d->a_peak_start_ns = 0;
	d->rate_bps = (double)d->p_bytes * 8.0 / secs;
	d->peak_bps = (double)d->p_peak_bin * 8e9 / (double)l->opts.bin_ns;
	d->util = d->capacity_bps > 0 ? d->rate_bps / d->capacity_bps : NAN;
	d->peak_util = d->capacity_bps > 0 ? d->peak_bps / d->capacity_bps : NAN;
	d->hist[l->hist_pos] = d->rate_bps;
}

void live__tick(struct live *l, uint64_t now_ns)
{
	uint64_t len = now_ns > l->period_start_ns ? now_ns - l->period_start_ns : 1;
	double secs = (double)len / 1e9;
	uint64_t best = 0;

	l->last_period_ns = len;
	live_align__flush(&l->align, now_ns, match_call, l); /* ranks that stay missing: no longer wait */
	for (size_t i = 0; i < l->nifaces; i++) {
		struct live_iface *f = &l->ifaces[i];

		for (int d = 0; d < 2; d++)
			close_dir(l, &f->dir[d], secs);
		f->p_backlog = f->a_backlog;
		f->p_qlen = f->a_qlen;
		f->p_sojourn = f->a_sojourn;
		f->p_drops = f->a_drops;
		f->p_rtx = f->a_rtx;
		f->a_backlog = f->a_sojourn = f->a_drops = f->a_rtx = 0;
		f->a_qlen = 0;
		for (int c = 0; c < FT_CLS_MAX; c++) {
			f->p_ctr[c] = f->a_ctr[c];
			f->a_ctr[c] = 0;
		}
	}
	for (size_t i = 0; i < l->ndrops; i++) {
		l->drops[i].p = l->drops[i].a;
		l->drops[i].a = 0;
	}
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		l->p_skipped[i] = l->skipped[i] - l->skipped_mark[i];
		l->skipped_mark[i] = l->skipped[i];
	}
	l->p_drops = l->a_drops;
	l->p_rtx_unrouted = l->a_rtx_unrouted;
	l->p_lost = l->a_lost;
	l->a_drops = l->a_rtx_unrouted = l->a_lost = 0;
	for (size_t i = 0; i < l->ncounters; i++) {
		l->counters[i].p = l->counters[i].a;
		l->counters[i].a = 0;
	}
	for (size_t i = 0; i < l->nports; i++)
		for (int c = 0; c < FT_CLS_MAX; c++) {
			l->ports[i].p_ctr[c] = l->ports[i].a_ctr[c];
			l->ports[i].a_ctr[c] = 0;
		}
	l->slowest = LIVE_NONE;
	for (size_t i = 0; i < l->nprocs; i++) {
		struct live_proc *p = &l->procs[i];

		p->p_colls = p->a_colls;
		p->p_coll_ns = p->a_coll_ns;
		p->p_late = p->a_late;
		p->p_late_ns = p->a_late_ns;
		p->a_colls = p->a_coll_ns = p->a_late = p->a_late_ns = 0;
		if (p->p_late_ns > best) {
			best = p->p_late_ns;
			l->slowest = (uint32_t)i;
		}
	}
	l->hist_pos = (l->hist_pos + 1) % LIVE_HISTORY;
	l->periods++;
	l->period_start_ns = now_ns;
}

void live__begin_period(struct live *l, uint64_t now_ns)
{
	for (size_t i = 0; i < l->nifaces; i++) {
		struct live_iface *f = &l->ifaces[i];

		for (int d = 0; d < 2; d++) {
			struct live_dir *x = &f->dir[d];

			x->a_bytes = x->a_pkts = x->a_ce = x->a_bursts = x->a_peak_bin = x->a_peak_start_ns = 0;
		}
		f->a_backlog = f->a_sojourn = f->a_drops = f->a_rtx = 0;
		f->a_qlen = 0;
		memset(f->a_ctr, 0, sizeof(f->a_ctr));
	}
	for (size_t i = 0; i < l->ndrops; i++)
		l->drops[i].a = 0;
	l->a_drops = l->a_rtx_unrouted = l->a_lost = 0;
	memcpy(l->skipped_mark, l->skipped, sizeof(l->skipped_mark));
	for (size_t i = 0; i < l->ncounters; i++)
		l->counters[i].a = 0;
	for (size_t i = 0; i < l->nports; i++)
		memset(l->ports[i].a_ctr, 0, sizeof(l->ports[i].a_ctr));
	for (size_t i = 0; i < l->nprocs; i++) {
		struct live_proc *p = &l->procs[i];

		p->a_colls = p->a_coll_ns = p->a_late = p->a_late_ns = 0;
	}
	l->period_start_ns = now_ns;
}

void live__set_skipped(struct live *l, const uint64_t skipped[FT_PROBE_MAX], const bool known[FT_PROBE_MAX])
{
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		l->skipped_known[i] = l->skipped_known[i] || known[i];
		if (known[i] && skipped[i] > l->skipped[i])
			l->skipped[i] = skipped[i];
	}
}

void live__reset_peaks(struct live *l)
{
	for (size_t i = 0; i < l->nifaces; i++) {
		struct live_iface *f = &l->ifaces[i];

		f->dir[0].max_peak_bin = f->dir[1].max_peak_bin = 0;
		f->max_backlog = f->max_sojourn = 0;
	}
}

void live__history(const struct live *l, const struct live_dir *d, double *out, unsigned n)
{
	if (n > LIVE_HISTORY)
		n = LIVE_HISTORY;
	/* hist_pos is the next slot to write: the newest is just before it */
	for (unsigned i = 0; i < n; i++) {
		unsigned back = n - i; /* 1 = newest */

		out[i] = back <= l->periods ? d->hist[(l->hist_pos + LIVE_HISTORY - back) % LIVE_HISTORY] : 0;
	}
}

double live__period_s(const struct live *l)
{
	return l->last_period_ns ? (double)l->last_period_ns / 1e9 : 1.0;
}

const char *live__netns_name(const struct live *l, uint32_t netns)
{
	for (size_t i = 0; i < l->nifaces; i++)
		if (l->ifaces[i].netns == netns && l->ifaces[i].known)
			return l->ifaces[i].netns_name;
	return "";
}

bool live__proc_active(const struct live *l, const struct live_proc *p)
{
	(void)l;
	return p->p_colls || !p->exited;
}
