// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network's items of a collective's transfer window (corr_costs), each
 * with an estimated cost: what the queues, the shapers, the retransmits and
 * the RDMA/NIC counters of the ranks' paths could have delayed it by.  Only
 * estimates facts; budget.c weighs them against the transfer's excess.
 *
 * Every estimate is physically bounded: an item's time lies inside the
 * window [A, B), and the retransmits of one kind on one link are the union
 * of their intervals [ts - cost, ts], so a burst of segments resent at one
 * timeout costs that timeout once.  docs/verdicts.md says how each cost is
 * estimated and where the estimate can be wrong.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "probes/drop_reasons.h"
#include "userspace/correlate/corr_internal.h"

#define US 1000ull
#define MS 1000000ull

/* The timer floor of a loss probe (two jiffies at HZ=1000 and more): what a PTO adds to 2 RTT. */
#define TLP_TIMER_NS (2 * MS)
/* An initial RTO (RFC 6298's 1 s): what a SYN retransmit costs. */
#define SYN_RTO_NS (1000 * MS)
/* A loss is real when the window shrinks within this (and 4 RTT) after its probe. */
#define TLP_REAL_WINDOW_NS (10 * MS)
/* What a probe's timer may run past its formula: jiffies, and the RTT moving since the sample. */
#define TLP_SLACK_NS (10 * MS)

uint64_t corr__cost_rto(uint32_t srtt_us, uint64_t rto_min_ns)
{
	/* Linux: rto = srtt + max(4 rttvar, rto_min), and rto_min dominates on a LAN */
	return (uint64_t)srtt_us * US + rto_min_ns;
}

uint64_t corr__cost_fast(uint32_t srtt_us)
{
	/* three duplicate ACKs and the repair: about one round trip; 1 ms when unknown */
	return srtt_us ? (uint64_t)srtt_us * US : MS;
}

uint64_t corr__cost_tlp(uint32_t srtt_us)
{
	/* the probe timeout: 2 RTT plus the timer's floor */
	return 2 * (uint64_t)srtt_us * US + TLP_TIMER_NS;
}

uint64_t corr__cost_shaper(uint64_t bytes, double shaper_bps, double line_bps)
{
	double t;

	if (!(shaper_bps > 0) || !(line_bps > shaper_bps))
		return 0;
	t = (double)bytes * 8e9 * (1.0 / shaper_bps - 1.0 / line_bps);
	return t < 9.2e18 ? (uint64_t)t : UINT64_MAX;
}

bool corr__tlp_real(const struct model *m, uint32_t flow, uint64_t ts, uint32_t srtt_us)
{
	const struct model_flow *w;
	const struct model_cong_ev *ev;
	uint64_t until = ts + 4 * (uint64_t)srtt_us * US + TLP_REAL_WINDOW_NS;

	if (flow >= m->nflows)
		return false;
	w = &m->flows[flow];
	if (!w->ncong)
		return false;
	ev = &m->cong_events[w->first_cong];
	/* a probe that repaired a real loss shrinks the window (tcp_process_tlp_ack:
	 * CWR); one that finds more loss enters recovery or loss.  A spurious probe
	 * (its segment had arrived: a DSACK) changes nothing */
	for (size_t k = corr_first_ts_at(ev, w->ncong, sizeof(*ev), ts); k < w->ncong && ev[k].ts_ns <= until; k++)
		if (ev[k].new_state >= 2 /* CWR, Recovery, Loss */ && ev[k].new_state <= 4)
			return true;
	return false;
}

/* ---- building the items ---- */

struct ivl {
	uint64_t a, b;
	uint32_t item;
	uint32_t pad;
};

struct acc {
	struct corr_cost **v;
	size_t *n, *cap;
	size_t first;               /* this window's items start here */
	struct ivl *iv;             /* intervals of the items that are unions */
	size_t niv, capiv;
	uint64_t *lead;             /* per item of this window (index - first): events of its leading flow */
	size_t caplead;
};

/* The item of (KIND, IFACE, QDISC) in this window, created empty; its index, or -1 (ENOMEM). */
static long item(struct acc *x, unsigned kind, uint32_t iface, uint32_t qdisc)
{
	struct corr_cost *v;
	size_t i;

	for (i = x->first; i < *x->n; i++)
		if ((*x->v)[i].kind == kind && (*x->v)[i].iface == iface && (*x->v)[i].qdisc == qdisc)
			return (long)i;
	if (grow_array((void **)x->v, x->cap, *x->n + 1, sizeof(**x->v)) ||
	    grow_array((void **)&x->lead, &x->caplead, *x->n + 1 - x->first, sizeof(*x->lead)))
		return -1;
	x->lead[*x->n - x->first] = 0;
	v = &(*x->v)[(*x->n)++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->iface = iface;
	v->qdisc = qdisc;
	v->flow = CORR_NONE;
	return (long)i;
}

static int interval(struct acc *x, long it, uint64_t a, uint64_t b)
{
	if (b <= a)
		return 0;
	if (grow_array((void **)&x->iv, &x->capiv, x->niv + 1, sizeof(*x->iv)))
		return -ENOMEM;
	x->iv[x->niv++] = (struct ivl){ .a = a, .b = b, .item = (uint32_t)it };
	return 0;
}

static int cmp_ivl(const void *p, const void *q)
{
	const struct ivl *x = p, *y = q;
	int c = cmp_u32(x->item, y->item);

	return c ? c : cmp_u64(x->a, y->a);
}

/* Each item's raw cost += the measure of the union of its intervals. */
static void unions(struct acc *x)
{
	if (!x->niv)
		return;
	qsort(x->iv, x->niv, sizeof(*x->iv), cmp_ivl);
	for (size_t i = 0; i < x->niv;) {
		uint32_t it = x->iv[i].item;
		uint64_t a = x->iv[i].a, b = x->iv[i].b, sum = 0;

		for (; i < x->niv && x->iv[i].item == it; i++) {
			if (x->iv[i].a > b) {
				sum += b - a;
				a = x->iv[i].a;
				b = x->iv[i].b;
			} else if (x->iv[i].b > b) {
				b = x->iv[i].b;
			}
		}
		(*x->v)[it].raw_ns += sum + (b - a);
	}
}

static const struct model_qbin *qbins_in(const struct model *m, const struct model_qdisc *q, uint64_t a,
					 size_t *k)
{
	*k = corr_first_bin_after(q->bins, q->nbins, sizeof(*q->bins), a, m->hdr.bin_ns);
	return q->bins;
}

/* The worst queue of interface II in [A, B): its delay (largest sojourn sampled, else
 * backlog over the rate), capped at the window. */
static int queue_item(const struct model *m, uint32_t ii, uint64_t a, uint64_t b, struct acc *x)
{
	double cap = m->ifaces[ii].dir[FT_DIR_TX].capacity_bps;
	uint64_t best = 0, best_n = 0;
	uint32_t bq = CORR_NONE;

	for (size_t q = 0; q < m->nqdiscs; q++) {
		const struct model_qdisc *qd = &m->qdiscs[q];
		uint64_t soj = 0, backlog = 0, samples = 0, delay;
		size_t k;
		const struct model_qbin *bins;

		if (qd->iface != ii || !qd->nbins)
			continue;
		bins = qbins_in(m, qd, a, &k);
		for (; k < qd->nbins && bins[k].start_ns < b; k++) {
			samples += bins[k].sojourn_cnt;
			if (bins[k].sojourn_cnt && bins[k].sojourn_max_ns > soj)
				soj = bins[k].sojourn_max_ns;
			if (bins[k].max_backlog > backlog)
				backlog = bins[k].max_backlog;
		}
		if (samples)
			delay = soj;
		else if (cap > 0 && (double)backlog * 8e9 / cap < 9.2e18)
			delay = (uint64_t)((double)backlog * 8e9 / cap);
		else
			delay = 0;
		if (delay > best) {
			best = delay;
			best_n = samples;
			bq = (uint32_t)q;
		}
	}
	if (!best)
		return 0;
	long it = item(x, CORR_COST_QUEUE, ii, bq);

	if (it < 0)
		return -ENOMEM;
	(*x->v)[it].raw_ns = best < b - a ? best : b - a;
	(*x->v)[it].count = best_n;
	return 0;
}

/* The root qdisc of interface II (index into model.qdiscs), CORR_NONE when none was recorded. */
static uint32_t root_qdisc(const struct model *m, uint32_t ii)
{
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].iface == ii && m->qdiscs[i].parent == 0xffffffffu)
			return (uint32_t)i;
	return CORR_NONE;
}

/* A shaper slower than the line on interface II: the bytes it let through in [A, B). */
static int shaper_item(const struct model *m, uint32_t ii, uint64_t a, uint64_t b, struct acc *x)
{
	const struct model_dir *d = &m->ifaces[ii].dir[FT_DIR_TX];
	uint64_t bytes = 0, cost;
	uint32_t q;
	size_t k;

	if (!(d->shaper_bps > 0) || !(d->line_bps > d->shaper_bps))
		return 0;
	for (k = corr_first_bin_after(d->bins, d->nbins, sizeof(*d->bins), a, m->hdr.bin_ns);
	     k < d->nbins && d->bins[k].start_ns < b; k++)
		bytes += d->bins[k].bytes;
	cost = corr__cost_shaper(bytes, d->shaper_bps, d->line_bps);
	if (!cost)
		return 0;
	q = root_qdisc(m, ii); /* it names the shaper */
	long it = item(x, CORR_COST_SHAPER, ii, q);

	if (it < 0)
		return -ENOMEM;
	(*x->v)[it].raw_ns = cost < b - a ? cost : b - a;
	(*x->v)[it].count = bytes;
	return 0;
}

/* The congestion drops of interface II (CORR_NONE or past the table: none) in [A, B), and with
 * LAST the latest one's time (0 when none). */
static uint64_t congestion_drops(const struct model *m, uint32_t ii, uint64_t a, uint64_t b, uint64_t *last)
{
	const struct model_iface *f = ii < m->nifaces ? &m->ifaces[ii] : NULL;
	const struct model_drop_ev *de = f && f->ndrops ? &m->drop_events[f->first_drop] : NULL;
	uint64_t n = 0;

	if (last)
		*last = 0;
	for (size_t k = de ? corr_first_ts_at(de, f->ndrops, sizeof(*de), a) : 0; de && k < f->ndrops && de[k].ts_ns < b; k++)
		if (corr__congestion_drop(model__drop_reason_name(m, de[k].reason))) {
			n++;
			if (last)
				*last = de[k].ts_ns; /* by time: the latest so far */
		}
	return n;
}

static int drop_item(const struct model *m, uint32_t ii, uint64_t a, uint64_t b, struct acc *x)
{
	uint64_t n = congestion_drops(m, ii, a, b, NULL);

	if (!n)
		return 0;
	long it = item(x, CORR_COST_DROP, ii, CORR_NONE);

	if (it < 0)
		return -ENOMEM;
	(*x->v)[it].count += n;
	return 0;
}

/* A retransmit's kind and its estimated cost; CORR_NCOSTS: no cost (a spurious probe). */
static unsigned rtx_cost(const struct corr *c, const struct model_rtx *r, uint32_t srtt, uint64_t *cost)
{
	switch (r->trigger) {
	case FT_RTX_RTO:
		*cost = corr__cost_rto(srtt, c->opts.th.rto_min_ns);
		return CORR_COST_RTO;
	case FT_RTX_SYN:
		*cost = SYN_RTO_NS;
		return CORR_COST_RTO;
	case FT_RTX_TLP:
		*cost = corr__cost_tlp(srtt);
		return corr__tlp_real(c->m, r->flow, r->ts_ns, srtt) ? CORR_COST_TLP : CORR_NCOSTS;
	default:
		*cost = corr__cost_fast(srtt);
		return CORR_COST_FAST;
	}
}

/* The latest congestion drop in [A, B) on interface II (CORR_NONE: none) or the other
 * end of its wire; 0 when none. */
static uint64_t last_congestion_drop(const struct corr *c, uint32_t ii, uint64_t a, uint64_t b)
{
	const struct model *m = c->m;
	uint32_t end[2] = { ii, ii != CORR_NONE && ii < m->nifaces && c->iface_peer ? c->iface_peer[ii] : CORR_NONE };
	uint64_t last = 0, l;

	for (unsigned e = 0; e < 2; e++)
		if (congestion_drops(m, end[e], a, b, &l) && l > last)
			last = l;
	return last;
}

/*
 * A real loss probe waited from the loss to its timer.  The timer is 2 RTT
 * and a floor, but a socket with one segment in flight adds the minimum RTO
 * (tcp_schedule_loss_probe): when a congestion drop on the flow's path (the
 * sender's wire or the receiver's) precedes the probe within that longest
 * timeout (and a timer's slack), the probe's cost is the time since that drop.
 */
static uint64_t tlp_loss_wait(const struct corr *c, uint32_t sender, uint32_t flow, uint64_t ts, uint64_t cost)
{
	const struct model_iface *d = corr__flow_dest_iface(c->m, flow);
	uint64_t longest = cost + c->opts.th.rto_min_ns + TLP_SLACK_NS;
	uint64_t from = ts > longest ? ts - longest : 0;
	uint64_t drop = last_congestion_drop(c, sender, from, ts);
	uint64_t at_dest = d ? last_congestion_drop(c, (uint32_t)(d - c->m->ifaces), from, ts) : 0;

	if (at_dest > drop)
		drop = at_dest;
	return drop && ts - drop > cost ? ts - drop : cost;
}

/* Did this window see congestion drops on wire W (either end)? */
static bool wire_dropped(const struct corr *c, const struct acc *x, uint32_t w)
{
	for (size_t i = x->first; w != CORR_NONE && i < *x->n; i++)
		if ((*x->v)[i].kind == CORR_COST_DROP && corr__wire(c, (*x->v)[i].iface) == w)
			return true;
	return false;
}

/*
 * Where a flow's loss is blamed: the wire toward its receiver when that one
 * dropped in the window (a sender's retransmit repairs a loss anywhere on
 * the path: most often the receiver's switch port), else the sender's.
 */
static uint32_t loss_place(const struct corr *c, const struct acc *x, uint32_t sender, uint32_t flow)
{
	const struct model_iface *d = corr__flow_dest_iface(c->m, flow);
	uint32_t dw = d ? corr__wire(c, (uint32_t)(d - c->m->ifaces)) : CORR_NONE;

	if (dw != CORR_NONE && !wire_dropped(c, x, corr__wire(c, sender)) && wire_dropped(c, x, dw))
		return dw;
	return sender;
}

/* Of DE[0..N) (by time), those in [A, B) the receiver already had (drop_reason__duplicate). */
static uint64_t duplicates_in(const struct model *m, const struct model_drop_ev *de, size_t n, uint64_t a,
			      uint64_t b)
{
	uint64_t d = 0;

	for (size_t k = n ? corr_first_ts_at(de, n, sizeof(*de), a) : 0; k < n && de[k].ts_ns < b; k++)
		d += drop_reason__duplicate(model__drop_reason_name(m, de[k].reason));
	return d;
}

/* Drops in [A, B), on any interface or none (TCP's own), of segments the receiver already had. */
static uint64_t duplicates_dropped(const struct model *m, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = m->ndrop_events;
	uint64_t n = 0;

	for (size_t i = 0; i < m->nifaces; i++)
		if (m->ifaces[i].ndrops)
			n += duplicates_in(m, &m->drop_events[m->ifaces[i].first_drop], m->ifaces[i].ndrops, a, b);
	/* the drops of no device come last (model.h), by time */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->drop_events[mid].iface == UINT32_MAX)
			hi = mid;
		else
			lo = mid + 1;
	}
	return n + duplicates_in(m, m->drop_events + lo, m->ndrop_events - lo, a, b);
}

/* The ranks' retransmits in [A, B). */
static uint64_t retransmits_in(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b)
{
	const struct model *m = c->m;
	uint64_t n = 0;

	for (size_t fi = 0; fi < m->nflows; fi++) {
		const struct model_flow *w = &m->flows[fi];
		const struct model_rtx *re = w->nrtx ? &m->rtx_events[w->first_rtx] : NULL;

		if (!re || !corr_flow_of(m, ps, fi))
			continue;
		for (size_t k = corr_first_ts_at(re, w->nrtx, sizeof(*re), a); k < w->nrtx && re[k].ts_ns < b; k++)
			n++;
	}
	return n;
}

/*
 * Retransmits that repaired no loss in the network: the window saw no
 * congestion drop, and the receivers dropped as duplicates at least half as
 * many segments as were retransmitted (what they already held, or PAWS
 * found older than they had seen: a host late to acknowledge, its senders'
 * timers fired).  Their time is not the network's; the budget leaves it
 * unexplained.
 */
static bool retransmits_spurious(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
				 const struct acc *x)
{
	uint64_t n;

	for (size_t i = x->first; i < *x->n; i++)
		if ((*x->v)[i].kind == CORR_COST_DROP)
			return false;
	n = retransmits_in(c, ps, a, b);
	return n && duplicates_dropped(c->m, a, b) * 2 >= n;
}

static int retransmit_items(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
			    struct acc *x)
{
	const struct model *m = c->m;

	if (retransmits_spurious(c, ps, a, b, x))
		return 0;
	for (size_t fi = 0; fi < m->nflows; fi++) {
		const struct model_flow *w = &m->flows[fi];
		const struct model_rtx *re;
		const struct model_iface *f;
		uint32_t ii;
		uint64_t mine[CORR_NCOSTS] = { 0 };

		if (!w->nrtx || !corr_flow_of(m, ps, fi))
			continue;
		re = &m->rtx_events[w->first_rtx];
		f = w->ifindex ? model__iface(m, w->key.netns, w->ifindex) : NULL;
		ii = loss_place(c, x, f ? (uint32_t)(f - m->ifaces) : CORR_NONE, (uint32_t)fi);
		for (size_t k = corr_first_ts_at(re, w->nrtx, sizeof(*re), a); k < w->nrtx && re[k].ts_ns < b; k++) {
			uint32_t srtt = re[k].srtt_us ? re[k].srtt_us : w->srtt_last_us;
			uint64_t cost, from;
			unsigned kind = rtx_cost(c, &re[k], srtt, &cost);
			long it;

			if (kind == CORR_NCOSTS)
				continue;
			if (kind == CORR_COST_TLP)
				cost = tlp_loss_wait(c, f ? (uint32_t)(f - m->ifaces) : CORR_NONE, (uint32_t)fi, re[k].ts_ns, cost);
			it = item(x, kind, ii, CORR_NONE);
			if (it < 0)
				return -ENOMEM;
			(*x->v)[it].count++;
			from = re[k].ts_ns > a + cost ? re[k].ts_ns - cost : a;
			if (interval(x, it, from, re[k].ts_ns))
				return -ENOMEM;
			/* the flow that retransmitted most names the item's path */
			if (++mine[kind] > x->lead[(size_t)it - x->first] || (*x->v)[it].flow == CORR_NONE) {
				x->lead[(size_t)it - x->first] = mine[kind];
				(*x->v)[it].flow = (uint32_t)fi;
			}
		}
	}
	return 0;
}

/* A CWR this close after its own interface's congestion drop was caused by it
 * (the drop is freed inside the send that then enters CWR: tcp_transmit_skb). */
#define LOCAL_DROP_CWR_NS (1 * MS)

/* Did interface II drop for congestion in [T - LOCAL_DROP_CWR_NS, T]? */
static bool own_drop_before(const struct model *m, uint32_t ii, uint64_t t)
{
	return congestion_drops(m, ii, t > LOCAL_DROP_CWR_NS ? t - LOCAL_DROP_CWR_NS : 0, t + 1, NULL) != 0;
}

/* How long before a window a stall that reaches into it may have begun. */
#define LOCAL_DROP_LOOKBACK_NS (1000 * MS)

/*
 * When the silence after a local drop's CWR (EV[K]) ended; 0: no silence (the
 * ACK clock resent the segment: data was in flight).  The flow's RTT
 * samples say whether it was silent for MODEL_RESUME_GAP_NS after the CWR
 * (model_resume).  A sample at tc egress with nothing in flight is the send
 * that ended it.  Otherwise (tcp_probe's samples, taken when an ACK comes;
 * or no samples of the flow at all: --no-probes rtt) the CWR's end
 * straight back to Open or Disorder stands for it (the resent segment's
 * ACK: the silence, a round trip, maybe a delayed ACK), at most one probe
 * timer (the RTT, the RTO floor and a timer's slack).
 */
static uint64_t local_drop_resume(const struct corr *c, const struct model_flow *w, const struct model_cong_ev *ev,
				  size_t k)
{
	const struct model *m = c->m;
	const struct model_resume *re = w->nresume ? &m->resume_events[w->first_resume] : NULL;
	uint64_t cwr = ev[k].ts_ns, cap;
	size_t r = re ? corr_first_ts_at(re, w->nresume, sizeof(*re), cwr + 1) : 0;
	bool silent = re && r < w->nresume && re[r].from_ns <= cwr && re[r].ts_ns - cwr >= MODEL_RESUME_GAP_NS;

	if (w->samples && !silent)
		return 0;
	if (silent && !re[r].packets_out)
		return re[r].ts_ns;
	if (k + 1 >= w->ncong || ev[k + 1].old_state != 2 || ev[k + 1].new_state >= 2 ||
	    ev[k + 1].ts_ns - cwr < MODEL_RESUME_GAP_NS)
		return 0;
	cap = corr__cost_rto(w->srtt_last_us, c->opts.th.rto_min_ns) + TLP_SLACK_NS;
	return ev[k + 1].ts_ns - cwr < cap ? ev[k + 1].ts_ns : cwr + cap;
}

/*
 * Stalls behind a local drop.  A segment the sender's own qdisc drops was
 * never sent: TCP enters CWR and, when nothing else is in flight, no ACK
 * will send it again; the probe timer does (tcp_check_probe_timer: at least
 * the RTO floor).  No retransmit records it.  Each such CWR of a ranks' flow
 * (a congestion drop on its own interface within LOCAL_DROP_CWR_NS before
 * it) followed by a silence of the flow (local_drop_resume) costs the
 * silence, inside [A, B), on that interface.
 */
static int local_drop_items(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
			    struct acc *x)
{
	const struct model *m = c->m;
	uint64_t from = a > LOCAL_DROP_LOOKBACK_NS ? a - LOCAL_DROP_LOOKBACK_NS : 0;

	for (size_t fi = 0; fi < m->nflows; fi++) {
		const struct model_flow *w = &m->flows[fi];
		const struct model_cong_ev *ev = w->ncong ? &m->cong_events[w->first_cong] : NULL;
		const struct model_iface *f;
		uint32_t ii;

		if (!ev || !corr_flow_of(m, ps, fi))
			continue;
		f = w->ifindex ? model__iface(m, w->key.netns, w->ifindex) : NULL;
		if (!f)
			continue;
		ii = (uint32_t)(f - m->ifaces);
		for (size_t k = corr_first_ts_at(ev, w->ncong, sizeof(*ev), from); k < w->ncong && ev[k].ts_ns < b; k++) {
			uint64_t end;
			long it;

			if (ev[k].new_state != 2 /* CWR */ || ev[k].old_state >= 2 || !own_drop_before(m, ii, ev[k].ts_ns))
				continue;
			end = local_drop_resume(c, w, ev, k);
			if (end <= a)
				continue;
			it = item(x, CORR_COST_LOCAL_DROP, ii, root_qdisc(m, ii)); /* a qdisc of it dropped */
			if (it < 0)
				return -ENOMEM;
			(*x->v)[it].count++;
			if ((*x->v)[it].flow == CORR_NONE)
				(*x->v)[it].flow = (uint32_t)fi;
			if (interval(x, it, ev[k].ts_ns > a ? ev[k].ts_ns : a, end < b ? end : b))
				return -ENOMEM;
		}
	}
	return 0;
}

static unsigned ctr_kind(unsigned cls)
{
	switch (cls) {
	case FT_CLS_PAUSE: return CORR_COST_PAUSE;
	case FT_CLS_CONGESTION: return CORR_COST_CNP;
	default: return CORR_COST_RDMA_LOSS;
	}
}

/* Counter spikes overlapping [A, B): the time each overlaps the window. */
static int counter_items(const struct model *m, const struct corr_pset *ps, uint64_t a, uint64_t b,
			 struct acc *x)
{
	for (size_t i = 0; i < m->nctr_events && m->ctr_events[i].start_ns < b; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];
		const struct model_ctr_series *se = &m->ctr_series[e->series];
		const struct model_ctr_group *g = &m->ctr_groups[se->group];
		long it;

		if (e->end_ns <= a || !corr_ctr_group_relevant(m, ps, se->group))
			continue;
		it = item(x, ctr_kind(se->cls), g->iface != UINT32_MAX ? g->iface : CORR_NONE, CORR_NONE);
		if (it < 0)
			return -ENOMEM;
		(*x->v)[it].count += e->delta;
		if (interval(x, it, e->start_ns > a ? e->start_ns : a, e->end_ns < b ? e->end_ns : b))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A wire's two ends (a host's NIC and its switch port) shape and queue its
 * two directions, and a collective's transfer uses both at once (data one
 * way, the other ranks' data and the ACKs the other): their times overlap,
 * so the wire's shaper and its queue each cost the larger end's, once.  The
 * host's end keeps the item, with both ends' bytes or samples.
 */
static void fold_wire_ends(const struct corr *c, struct acc *x)
{
	struct corr_cost *v = *x->v;

	for (size_t i = x->first; i < *x->n; i++) {
		if (v[i].kind != CORR_COST_SHAPER && v[i].kind != CORR_COST_QUEUE)
			continue;
		for (size_t k = i + 1; k < *x->n; k++) {
			struct corr_cost *keep, *drop;

			if (v[k].kind != v[i].kind || corr__wire(c, v[k].iface) != corr__wire(c, v[i].iface))
				continue;
			keep = corr__wire(c, v[k].iface) == v[k].iface ? &v[k] : &v[i];
			drop = keep == &v[k] ? &v[i] : &v[k];
			keep->count += drop->count;
			if (drop->raw_ns > keep->raw_ns)
				keep->raw_ns = drop->raw_ns;
			drop->count = drop->raw_ns = 0;
		}
	}
	/* squeeze out the emptied items */
	size_t w = x->first;

	for (size_t i = x->first; i < *x->n; i++)
		if (v[i].count || v[i].raw_ns || (v[i].kind != CORR_COST_SHAPER && v[i].kind != CORR_COST_QUEUE))
			v[w++] = v[i];
	*x->n = w;
}

int corr_costs(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
	       struct corr_cost **v, size_t *n, size_t *cap)
{
	const struct model *m = c->m;
	struct acc x = { .v = v, .n = n, .cap = cap, .first = *n };
	int err = 0;

	if (b <= a)
		return 0;
	for (size_t i = 0; i < m->nifaces && !err; i++) {
		if (!corr_pset_iface(c, ps, i))
			continue;
		err = queue_item(m, (uint32_t)i, a, b, &x);
		if (!err)
			err = shaper_item(m, (uint32_t)i, a, b, &x);
		if (!err)
			err = drop_item(m, (uint32_t)i, a, b, &x);
	}
	if (!err) {
		fold_wire_ends(c, &x);
		err = retransmit_items(c, ps, a, b, &x);
	}
	if (!err)
		err = local_drop_items(c, ps, a, b, &x);
	if (!err)
		err = counter_items(m, ps, a, b, &x);
	if (!err)
		unions(&x);
	free(x.iv);
	free(x.lead);
	return err;
}
