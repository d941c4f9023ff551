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
#include "userspace/capture/records.h"
#include "userspace/live/live.h"
#include "userspace/live/live_priv.h"

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

static int on_iface(void *ctx, const struct ft_iface_info *r)
{
	struct live *l = ctx;
	uint32_t k = get_iface(l, r->netns, r->ifindex);
	struct live_iface *f;

	if (k == LIVE_NONE)
		return 0;
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
	return 0;
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

static int on_bin(void *ctx, const struct ft_iface_bin *b)
{
	struct live *l = ctx;
	uint32_t k = get_iface(l, b->netns, b->ifindex);
	struct live_dir *d;
	struct live_bin *w;
	uint64_t merged;

	if (k == LIVE_NONE || b->dir > FT_DIR_TX)
		return 0;
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
	return 0;
}

static int on_qdisc(void *ctx, const struct ft_qdisc_bin *q)
{
	struct live *l = ctx;
	uint32_t k = get_iface(l, q->netns, q->ifindex);
	struct live_iface *f;

	if (k == LIVE_NONE)
		return 0;
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
	return 0;
}

/* ---- drops, retransmits, lost ---- */

static int on_reason(void *ctx, const struct ft_drop_reason *r)
{
	struct live *l = ctx;

	for (size_t i = 0; i < l->nreasons; i++)
		if (l->reasons[i].reason == r->reason)
			return 0;
	if (l->nreasons >= LIVE_MAX_REASONS)
		return 0;
	l->reasons[l->nreasons].reason = r->reason;
	memcpy(l->reasons[l->nreasons].name, r->name, sizeof(r->name));
	l->reasons[l->nreasons].name[sizeof(r->name) - 1] = '\0';
	l->nreasons++;
	return 0;
}

const char *live__reason_name(const struct live *l, uint32_t reason)
{
	for (size_t i = 0; i < l->nreasons; i++)
		if (l->reasons[i].reason == reason)
			return l->reasons[i].name;
	return NULL;
}

static int on_drop(void *ctx, const struct ft_drop *d)
{
	struct live *l = ctx;
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
	return 0;
}

static int on_retrans(void *ctx, const struct ft_retrans *r)
{
	struct live *l = ctx;
	uint64_t segs = r->segs ? r->segs : 1;
	uint32_t k;

	if (!capture__retrans_sent(r))
		return 0; /* nothing went out */
	k = r->flow.ifindex ? get_iface(l, r->flow.netns, r->flow.ifindex) : LIVE_NONE;
	if (k == LIVE_NONE) {
		l->rtx_unrouted += segs;
		l->a_rtx_unrouted += segs;
		return 0;
	}
	l->ifaces[k].rtx += segs;
	l->ifaces[k].a_rtx += segs;
	return 0;
}

static int on_lost(void *ctx, const struct ft_lost *r)
{
	struct live *l = ctx;
	uint64_t *v;

	if (r->source >= FT_SRC_MAX || r->cpu >= LIVE_MAX_CPUS)
		return 0;
	v = &l->lost[r->source][r->cpu];
	if (r->lost <= *v) /* cumulative: only growth counts */
		return 0;
	l->lost_by_source[r->source] += r->lost - *v;
	l->lost_total += r->lost - *v;
	l->a_lost += r->lost - *v;
	*v = r->lost;
	return 0;
}

/* ---- counters (rdma/) ---- */

static int on_port(void *ctx, const struct ft_rdma_port *r)
{
	struct live *l = ctx;
	struct live_port *p;

	for (size_t i = 0; i < l->nports; i++)
		if (l->ports[i].port_id == r->port_id)
			return 0;
	if (l->nports >= LIVE_MAX_PORTS)
		return 0;
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
	return 0;
}

static struct live_group *find_group(struct live *l, uint32_t id)
{
	for (size_t i = 0; i < l->ngroups; i++)
		if (l->groups[i].id == id)
			return &l->groups[i];
	return NULL;
}

static int on_group(void *ctx, const struct ft_ctr_group *r)
{
	struct live *l = ctx;
	struct live_group *g;

	if (find_group(l, r->group))
		return 0;
	if (l->ngroups >= LIVE_MAX_GROUPS) {
		l->overflow_counters += r->ncounters;
		return 0;
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
		return 0;
	}
	{
		void *p = realloc(l->counters, (l->ncounters + r->ncounters) * sizeof(*l->counters));

		if (!p) {
			l->overflow_counters += r->ncounters;
			return 0;
		}
		l->counters = p;
	}
	g->first = (uint32_t)l->ncounters;
	memset(&l->counters[l->ncounters], 0, r->ncounters * sizeof(*l->counters));
	for (uint32_t i = 0; i < r->ncounters; i++)
		l->counters[l->ncounters + i].group = (uint32_t)(g - l->groups);
	l->ncounters += r->ncounters;
	return 0;
}

static int on_ctr_name(void *ctx, const struct ft_ctr_name *r)
{
	struct live *l = ctx;
	struct live_group *g = find_group(l, r->group);
	struct live_counter *c;

	if (!g || g->first == LIVE_NONE || r->index >= g->ncounters)
		return 0;
	c = &l->counters[g->first + r->index];
	c->cls = r->cls < FT_CLS_MAX ? r->cls : FT_CLS_OTHER;
	c->flags = r->flags;
	memcpy(c->name, r->name, sizeof(c->name));
	c->name[sizeof(c->name) - 1] = '\0';
	return 0;
}

static int on_ctr_sample(void *ctx, const struct ft_ctr_sample *r)
{
	struct live *l = ctx;
	const uint64_t *v = (const uint64_t *)(const void *)(r + 1);
	struct live_group *g;
	uint32_t n;

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

/* ---- records ---- */

static const struct capture_visitor live_visitor = {
	.iface_bin = on_bin, .qdisc_bin = on_qdisc, .drop = on_drop, .retrans = on_retrans,
	.phase = lp_on_phase, .req_done = lp_on_req_done, .comm_info = lp_on_comm_info, .proc = lp_on_proc,
	.sock_owner = lp_on_sock_owner, .iface = on_iface, .lost = on_lost, .drop_reason = on_reason,
	.phase_slot = lp_on_slot, .rdma_port = on_port, .ctr_group = on_group, .ctr_name = on_ctr_name,
	.ctr_sample = on_ctr_sample,
};

int live__add(struct live *l, const struct ft_rec_hdr *h)
{
	/* checked against its type once (records.h), then to its callback */
	if (capture__visit(&live_visitor, l, h)) {
		l->bad_records++;
		return -EINVAL;
	}
	l->records++;
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

	l->last_period_ns = len;
	lp_tick(l, now_ns);
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
	lp_begin_period(l);
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
