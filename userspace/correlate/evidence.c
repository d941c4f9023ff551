// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network evidence of one collective window: what the traced
 * links, queues, drops, retransmits and RDMA/NIC counters of the
 * participating namespaces and processes showed between the first entry and
 * the last exit (corr__evidence).  Only collects facts; verdict_rules.c
 * judges them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/correlate/corr_internal.h"

static bool in_set(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool corr_pset_netns(const struct corr_pset *ps, uint32_t netns)
{
	return in_set(ps->netns, ps->nnetns, netns);
}

bool corr_pset_pid(const struct corr_pset *ps, uint32_t pid)
{
	return in_set(ps->pids, ps->npids, pid);
}

size_t corr_first_bin_after(const void *bins, size_t n, size_t sz, uint64_t a, uint64_t bin)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = *(const uint64_t *)(const void *)((const unsigned char *)bins + mid * sz);

		if (s + bin <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void link_window(const struct model *m, uint32_t ii, uint64_t a, uint64_t b,
			struct corr_link_ev *l)
{
	const struct model_iface *f = &m->ifaces[ii];
	uint64_t bin = m->hdr.bin_ns;

	memset(l, 0, sizeof(*l));
	l->iface = ii;
	l->qdisc = CORR_NONE;
	for (int d = 0; d < 2; d++) {
		const struct model_dir *x = &f->dir[d];
		size_t k = corr_first_bin_after(x->bins, x->nbins, sizeof(*x->bins), a, bin);
		double peak = 0;

		for (; k < x->nbins && x->bins[k].start_ns < b; k++) {
			l->bytes[d] += x->bins[k].bytes;
			l->ce_pkts += x->bins[k].ce_pkts;
			if (model__bin_bps(m, x->bins[k].bytes) > peak)
				peak = model__bin_bps(m, x->bins[k].bytes);
		}
		l->peak_util[d] = x->capacity_bps > 0 ? peak / x->capacity_bps : NAN;
		/* a direction's bursts are sorted and disjoint: their ends ascend too */
		const struct model_burst *bu = x->nbursts ? &m->bursts[x->first_burst] : NULL; /* bursts may be NULL */
		size_t lo = 0, hi = x->nbursts;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (bu[mid].start_ns + bu[mid].duration_ns <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < x->nbursts && bu[lo].start_ns < b; lo++)
			l->bursts++;
	}
	for (size_t q = 0; q < m->nqdiscs; q++) {
		const struct model_qdisc *qd = &m->qdiscs[q];
		uint64_t backlog = 0, soj = 0, base, maxd = 0, delay;
		size_t k;
		double cap = f->dir[FT_DIR_TX].capacity_bps;

		if (qd->iface != ii || !qd->nbins)
			continue;
		k = corr_first_bin_after(qd->bins, qd->nbins, sizeof(*qd->bins), a, bin);
		base = k ? qd->bins[k - 1].drops : k < qd->nbins ? qd->bins[k].drops : 0;
		for (; k < qd->nbins && qd->bins[k].start_ns < b; k++) {
			if (qd->bins[k].max_backlog > backlog)
				backlog = qd->bins[k].max_backlog;
			if (qd->bins[k].sojourn_max_ns > soj)
				soj = qd->bins[k].sojourn_max_ns;
			if (qd->bins[k].drops > maxd)
				maxd = qd->bins[k].drops;
		}
		delay = soj;
		if (cap > 0 && (double)backlog * 8e9 / cap > (double)delay) {
			double d = (double)backlog * 8e9 / cap;

			delay = d < 0x1p64 ? (uint64_t)d : UINT64_MAX;   /* beyond u64: no UB, saturate */
		}
		if (l->qdisc == CORR_NONE || delay > l->queue_delay_ns ||
		    (delay == l->queue_delay_ns && backlog > l->max_backlog_bytes)) {
			l->qdisc = (uint32_t)q;
			l->queue_delay_ns = delay;
			l->max_backlog_bytes = backlog;
			l->max_sojourn_ns = soj;
		}
		l->qdisc_drops += maxd > base ? maxd - base : 0;
	}
}

static int cmp_drop_ev(const void *a, const void *b)
{
	const struct corr_drop_ev *x = a, *y = b;
	int c = cmp_u64(y->count, x->count);

	if (!c)
		c = cmp_u32(x->reason, y->reason);
	return c ? c : cmp_u32(x->iface, y->iface);
}

static int cmp_flow_ev(const void *a, const void *b)
{
	const struct corr_flow_ev *x = a, *y = b;
	int c = cmp_u64(y->retrans, x->retrans);

	return c ? c : cmp_u32(x->flow, y->flow);
}

static int cmp_ctr_ev(const void *a, const void *b)
{
	const struct corr_ctr_ev *x = a, *y = b;
	int c = cmp_u64(y->growth, x->growth);

	return c ? c : cmp_u32(x->series, y->series);
}

/*
 * Does a counter group speak for these ranks?  A port or NIC whose netdev
 * is in a participant's namespace does; so does one with no netdev (an
 * InfiniBand port, or a RoCE netdev not found): a capture is one node's,
 * and its ranks share the node's adapters.
 */
bool corr_ctr_group_relevant(const struct model *m, const struct corr_pset *ps, uint32_t gi)
{
	const struct model_ctr_group *g = &m->ctr_groups[gi];

	if (!g->netns)
		return g->kind != FT_CTR_ETHTOOL;
	return in_set(ps->netns, ps->nnetns, g->netns);
}

/* Counter spikes overlapping [A, B) on the ranks' ports and NICs. */
static int counter_evidence(const struct model *m, const struct corr_pset *ps, uint64_t a, uint64_t b,
			    struct corr_evidence *ev)
{
	struct corr_evsum *s = &ev->sum;
	uint64_t longest = 0;
	size_t lo = 0, hi = m->nctr_events;

	for (size_t g = 0; g < m->nctr_groups; g++)
		if (m->ctr_groups[g].nsamples > 1 && corr_ctr_group_relevant(m, ps, (uint32_t)g))
			s->observed = true;
	for (size_t i = 0; i < m->nctr_events; i++)
		if (m->ctr_events[i].end_ns - m->ctr_events[i].start_ns > longest)
			longest = m->ctr_events[i].end_ns - m->ctr_events[i].start_ns;
	/* events are sorted by start: those overlapping start after a - longest */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ctr_events[mid].start_ns + longest < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->nctr_events && m->ctr_events[i].start_ns < b; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];
		const struct model_ctr_series *se = &m->ctr_series[e->series];
		uint64_t x = e->start_ns > a ? e->start_ns : a, y = e->end_ns < b ? e->end_ns : b;
		double grown;
		uint64_t g;
		size_t k;

		if (e->end_ns <= a || !corr_ctr_group_relevant(m, ps, se->group))
			continue;
		grown = model__ctr_growth(m, e->series, x, y);
		/* a collective shorter than one sample interval still saw the spike */
		g = grown > 0 ? (uint64_t)ceil(grown) : 0;
		s->ctr_events++;
		switch (se->cls) {
		case FT_CLS_CONGESTION: s->ctr_cong += g; break;
		case FT_CLS_PAUSE: s->ctr_pause += g; break;
		case FT_CLS_RETRANS: s->ctr_retrans += g; break;
		default: s->ctr_discard += g; break;
		}
		for (k = 0; k < ev->nctrs; k++)
			if (ev->ctrs[k].series == e->series)
				break;
		if (k == ev->nctrs) {
			struct corr_ctr_ev *n = realloc(ev->ctrs, (ev->nctrs + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ev->ctrs = n;
			memset(&ev->ctrs[k], 0, sizeof(ev->ctrs[k]));
			ev->ctrs[k].series = e->series;
			ev->nctrs++;
		}
		ev->ctrs[k].growth += g;
		if (e->peak_rate > ev->ctrs[k].peak_rate)
			ev->ctrs[k].peak_rate = e->peak_rate;
	}
	if (ev->nctrs) {
		qsort(ev->ctrs, ev->nctrs, sizeof(*ev->ctrs), cmp_ctr_ev);
		s->ctr_series = ev->ctrs[0].series;
	}
	return 0;
}

static int window_evidence(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
			   struct corr_evidence *ev)
{
	const struct model *m = c->m;
	const struct corr_thresholds *t = &c->opts.th;
	struct corr_evsum *s = &ev->sum;
	size_t cap_drops = 0;
	uint64_t best_drops = 0, best_ce = 0;

	memset(ev, 0, sizeof(*ev));
	ev->start_ns = a;
	ev->end_ns = b;
	s->peak_util = NAN;
	s->peak_iface = s->queue_qdisc = s->link = s->qdisc = s->ctr_series = s->toward_flow = CORR_NONE;
	for (size_t i = 0; i < m->nifaces; i++)
		ev->nlinks += in_set(ps->netns, ps->nnetns, m->ifaces[i].netns) && !is_loopback(&m->ifaces[i]);
	if (ev->nlinks) {
		ev->links = calloc(ev->nlinks, sizeof(*ev->links));
		if (!ev->links)
			return -ENOMEM;
	}
	ev->nlinks = 0;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];
		struct corr_link_ev *l;

		if (!in_set(ps->netns, ps->nnetns, f->netns) || is_loopback(f))
			continue;
		l = &ev->links[ev->nlinks++];
		link_window(m, (uint32_t)i, a, b, l);
		s->observed |= iface_observed(f);
		for (int d = 0; d < 2; d++)
			if (l->peak_util[d] == l->peak_util[d] &&
			    !(s->peak_util >= l->peak_util[d])) { /* also when NaN so far */
				s->peak_util = l->peak_util[d];
				s->peak_iface = (uint32_t)i;
				s->peak_dir = (uint32_t)d;
			}
		if (l->qdisc != CORR_NONE && (s->queue_qdisc == CORR_NONE || l->queue_delay_ns > s->queue_delay_ns)) {
			s->queue_qdisc = l->qdisc;
			s->queue_delay_ns = l->queue_delay_ns;
		}
		if (l->max_sojourn_ns > s->max_sojourn_ns)
			s->max_sojourn_ns = l->max_sojourn_ns;
		if (l->max_backlog_bytes > s->max_backlog_bytes)
			s->max_backlog_bytes = l->max_backlog_bytes;
		s->ce_pkts += l->ce_pkts;
		s->bursts += l->bursts;

		/* drop records on this interface in the window */
		if (!f->ndrops)
			continue;
		const struct model_drop_ev *de = &m->drop_events[f->first_drop];

		for (size_t k = corr_first_ts_at(de, f->ndrops, sizeof(*de), a); k < f->ndrops && de[k].ts_ns < b; k++) {
			const char *nm = model__drop_reason_name(m, de[k].reason);
			size_t d;

			for (d = 0; d < ev->ndrops; d++)
				if (ev->drops[d].reason == de[k].reason && ev->drops[d].iface == i)
					break;
			if (d == ev->ndrops) {
				if (ev->ndrops == cap_drops) {
					size_t nc = cap_drops ? cap_drops * 2 : 8;
					struct corr_drop_ev *nd = realloc(ev->drops, nc * sizeof(*nd));

					if (!nd)
						return -ENOMEM;
					ev->drops = nd;
					cap_drops = nc;
				}
				memset(&ev->drops[d], 0, sizeof(ev->drops[d]));
				ev->drops[d].reason = de[k].reason;
				ev->drops[d].iface = (uint32_t)i;
				ev->drops[d].congestion = corr__congestion_drop(nm);
				ev->ndrops++;
			}
			ev->drops[d].count++;
			l->drops++;
			s->drops++;
			if (ev->drops[d].congestion) {
				l->cong_drops++;
				s->cong_drops++;
			}
		}
	}
	if (ev->ndrops)
		qsort(ev->drops, ev->ndrops, sizeof(*ev->drops), cmp_drop_ev);

	/* retransmits on the ranks' flows: owned by a participant, else in a participant's netns */
	for (size_t fi = 0; fi < m->nflows; fi++) {
		const struct model_flow *w = &m->flows[fi];
		const struct model_rtx *re;
		uint64_t cnt = 0;

		if (!w->nrtx)
			continue;
		re = &m->rtx_events[w->first_rtx];
		if (!corr_flow_of(m, ps, fi))
			continue;
		for (size_t k = corr_first_ts_at(re, w->nrtx, sizeof(*re), a); k < w->nrtx && re[k].ts_ns < b; k++) {
			cnt++;
			s->retrans_tlp += re[k].trigger == FT_RTX_TLP;
		}
		if (!cnt)
			continue;
		struct corr_flow_ev *nf = realloc(ev->flows, (ev->nflows + 1) * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		ev->flows = nf;
		ev->flows[ev->nflows].flow = (uint32_t)fi;
		ev->flows[ev->nflows].retrans = cnt;
		ev->flows[ev->nflows].owned = w->nowners > 0;
		ev->nflows++;
		s->retrans += cnt;
	}
	if (ev->nflows)
		qsort(ev->flows, ev->nflows, sizeof(*ev->flows), cmp_flow_ev);
	if (counter_evidence(m, ps, a, b, ev))
		return -ENOMEM;

	/*
	 * The culprit: the worst queue, else drops, retransmits, CE, the
	 * interface of a spiking counter, a saturated link.
	 */
	if (s->queue_qdisc != CORR_NONE && s->queue_delay_ns >= t->queue_delay_ns && s->queue_delay_ns) {
		s->qdisc = s->queue_qdisc;
		s->link = m->qdiscs[s->qdisc].iface;
	} else if (s->cong_drops) {
		for (size_t i = 0; i < ev->nlinks; i++)
			if (ev->links[i].cong_drops > best_drops) {
				best_drops = ev->links[i].cong_drops;
				s->link = ev->links[i].iface;
				s->qdisc = ev->links[i].qdisc;
			}
	} else if (s->retrans > s->retrans_tlp) {
		const struct model_flow *w = &m->flows[ev->flows[0].flow];
		const struct model_iface *f = w->ifindex ? model__iface(m, w->key.netns, w->ifindex) : NULL;

		if (f)
			s->link = (uint32_t)(f - m->ifaces);
		/* the sender's interface is where the flow left, not where it queued:
		 * the congestion may be anywhere on its path (a switch port toward the
		 * receiver, most often), so the path is named */
		s->toward_flow = ev->flows[0].flow;
	} else if (s->ce_pkts) {
		for (size_t i = 0; i < ev->nlinks; i++)
			if (ev->links[i].ce_pkts > best_ce) {
				best_ce = ev->links[i].ce_pkts;
				s->link = ev->links[i].iface;
			}
	} else if (s->ctr_series != CORR_NONE &&
		   m->ctr_groups[m->ctr_series[s->ctr_series].group].iface != UINT32_MAX) {
		s->link = m->ctr_groups[m->ctr_series[s->ctr_series].group].iface;
	} else if (s->peak_util >= t->util) {
		s->link = s->peak_iface;
	}
	if (s->link != CORR_NONE && s->link >= m->nifaces)
		s->link = CORR_NONE;
	return 0;
}

bool corr_flow_of(const struct model *m, const struct corr_pset *ps, size_t fi)
{
	const struct model_flow *w = &m->flows[fi];

	if (!w->nowners)
		return in_set(ps->netns, ps->nnetns, w->key.netns);
	for (size_t o = 0; o < w->nowners; o++)
		if (in_set(ps->pids, ps->npids, m->owners[w->first_owner + o].pid))
			return true;
	return false;
}

void corr_pset_free(struct corr_pset *ps)
{
	free(ps->netns);
	free(ps->pids);
	ps->netns = ps->pids = NULL;
	ps->nnetns = ps->npids = 0;
}

int corr_instance_pset(const struct corr *c, const struct corr_instance *in, struct corr_pset *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->netns = calloc(in->nmembers, sizeof(*ps->netns));
	ps->pids = calloc(in->nmembers, sizeof(*ps->pids));
	if (!ps->netns || !ps->pids) {
		free(ps->netns);
		free(ps->pids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < in->nmembers; i++) {
		const struct corr_call *k = &c->calls[c->members[in->first_member + i]];
		uint32_t ns = k->netns;

		if (!ns && k->rank != CORR_NONE)
			ns = c->ranks[k->rank].netns;
		if (!in_set(ps->netns, ps->nnetns, ns))
			ps->netns[ps->nnetns++] = ns;
		if (!in_set(ps->pids, ps->npids, k->pid))
			ps->pids[ps->npids++] = k->pid;
	}
	return 0;
}

int corr__evidence(const struct corr *c, size_t idx, struct corr_evidence *ev)
{
	const struct corr_instance *in;
	struct corr_pset ps;
	int err;

	memset(ev, 0, sizeof(*ev));
	if (!c || idx >= c->ninstances)
		return -EINVAL;
	in = &c->instances[idx];
	err = corr_instance_pset(c, in, &ps);
	if (err)
		return err;
	err = window_evidence(c, &ps, in->first_entry, in->last_exit > in->first_entry ?
			      in->last_exit : in->first_entry + 1, ev);
	corr_pset_free(&ps);
	if (err)
		corr__evidence_free(ev);
	return err;
}

void corr__evidence_free(struct corr_evidence *ev)
{
	if (!ev)
		return;
	free(ev->links);
	free(ev->drops);
	free(ev->flows);
	free(ev->ctrs);
	ev->links = NULL;
	ev->drops = NULL;
	ev->flows = NULL;
	ev->ctrs = NULL;
	ev->nlinks = ev->ndrops = ev->nflows = ev->nctrs = 0;
}

