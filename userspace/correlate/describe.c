// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text for display: the one-line description of an instance's
 * verdict and evidence (corr__describe), rank and qdisc labels.  Only reads
 * the correlator's results; kept apart from computing them.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "rdma/counters.h"
#include "userspace/correlate/corr_internal.h"

static const char *qdisc_str(const struct model *m, uint32_t q, char *buf, size_t len)
{
	const struct model_qdisc *qd = &m->qdiscs[q];
	uint32_t h = qd->handle;

	if (h & 0xffff)
		snprintf(buf, len, "%s %x:%x", qd->kind[0] ? qd->kind : "qdisc", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%s %x:", qd->kind[0] ? qd->kind : "qdisc", h >> 16);
	return buf;
}

const char *corr__rank_name(const struct corr *c, uint32_t r, bool with_pid, char *buf, size_t len)
{
	const struct corr_rank *rk;

	if (r == CORR_NONE || r >= c->nranks) {
		snprintf(buf, len, "?");
		return buf;
	}
	rk = &c->ranks[r];
	if (rk->rank >= 0 && with_pid)
		snprintf(buf, len, "rank %d (pid %u, %s)", rk->rank, rk->pid, rk->host);
	else if (rk->rank >= 0)
		snprintf(buf, len, "rank %d (%s)", rk->rank, rk->host);
	else
		snprintf(buf, len, "pid %u (%s)", rk->pid, rk->host);
	return buf;
}

const char *corr__rank_label(const struct corr *c, uint32_t rank, char *buf, size_t len)
{
	return corr__rank_name(c, rank, true, buf, len);
}

const char *corr__qdisc_label(const struct model *m, uint32_t qdisc, char *buf, size_t len)
{
	if (qdisc >= m->nqdiscs) {
		snprintf(buf, len, "?");
		return buf;
	}
	return qdisc_str(m, qdisc, buf, len);
}

#define app str_appendf

/* Drop reasons of EV summed over interfaces, the congestion ones first: "QDISC_DROP 12" */
static size_t drops_by_reason(const struct corr_evidence *ev, struct corr_drop_ev *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->ndrops; i++) {
		size_t r;

		for (r = 0; r < n; r++)
			if (out[r].reason == ev->drops[i].reason)
				break;
		if (r == n) {
			if (n == cap)
				continue;
			out[n] = ev->drops[i];
			out[n++].count = 0;
		}
		out[r].count += ev->drops[i].count;
	}
	return n;
}

/*
 * ", 24 congestion drops (QDISC_DROP 24)" and, for drops whose reason is no
 * congestion (NOT_SPECIFIED, TCP_OLD_SEQUENCE...), "; 4 other drops, not
 * counted (NOT_SPECIFIED 4)": shown, never weighed.
 */
static void drops_str(const struct model *m, const struct corr_evidence *ev, char *buf, size_t len, size_t *k,
		      bool first)
{
	struct corr_drop_ev by[16];
	size_t n = drops_by_reason(ev, by, sizeof(by) / sizeof(by[0]));

	for (int cong = 1; cong >= 0; cong--) {
		uint64_t total = 0;
		size_t shown = 0;

		for (size_t i = 0; i < n; i++)
			if (by[i].congestion == cong)
				total += by[i].count;
		if (!total)
			continue;
		if (cong)
			app(buf, len, k, "%s %" PRIu64 " congestion drops (", first ? "" : ",", total);
		else
			app(buf, len, k, "%s %" PRIu64 " other drops, not counted (", first ? "" : ";", total);
		for (size_t i = 0; i < n; i++) {
			const char *nm;

			if (by[i].congestion != cong)
				continue;
			if (shown++ == 3) {
				app(buf, len, k, ", ...");
				break;
			}
			nm = model__drop_reason_name(m, by[i].reason);
			if (nm && nm[0])
				app(buf, len, k, "%s%s %" PRIu64, shown > 1 ? ", " : "", nm, by[i].count);
			else
				app(buf, len, k, "%sreason %u %" PRIu64, shown > 1 ? ", " : "", by[i].reason, by[i].count);
		}
		app(buf, len, k, ")");
		first = false;
	}
}

/* The link whose worst queue is QDISC, NULL when none. */
static const struct corr_link_ev *queue_link(const struct corr_evidence *ev, uint32_t qdisc)
{
	for (size_t i = 0; i < ev->nlinks; i++)
		if (ev->links[i].qdisc == qdisc)
			return &ev->links[i];
	return NULL;
}

const char *corr__toward_label(const struct model *m, uint32_t flow, char *buf, size_t len)
{
	const struct ft_flow *f = &m->flows[flow].key;
	const struct model_iface *x = corr__flow_dest_iface(m, flow);
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->daddr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (x)
		snprintf(buf, len, "%s (%s)", a, x->label);
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

const char *corr__culprit_label(const struct model *m, const struct corr_evsum *s, char *buf, size_t len)
{
	size_t k = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (s->link != CORR_NONE && s->link < m->nifaces)
		app(buf, len, &k, "link %s", m->ifaces[s->link].label);
	if (s->qdisc != CORR_NONE && s->qdisc < m->nqdiscs) {
		char q[48];

		app(buf, len, &k, " (%s)", qdisc_str(m, s->qdisc, q, sizeof(q)));
	}
	if (s->toward_flow != CORR_NONE && s->toward_flow < m->nflows) {
		char t[128];

		app(buf, len, &k, "%s %s", k ? " toward" : "the path toward",
		    corr__toward_label(m, s->toward_flow, t, sizeof(t)));
	}
	return buf;
}

/* "eth0@h2 tbf 1: queue 2.40 ms (backlog 30.0 kB), 12 drops (QDISC_DROP 12), ..." */
static void evidence_str(const struct corr *c, const struct corr_evidence *ev, char *buf, size_t len,
			 size_t *k)
{
	const struct model *m = c->m;
	const struct corr_evsum *s = &ev->sum;
	char q[48], cl[256];
	bool first = true;

	if (corr__culprit_label(m, s, cl, sizeof(cl))[0])
		app(buf, len, k, "%s:", cl);
	if (s->queue_qdisc != CORR_NONE && s->queue_delay_ns) {
		const struct corr_link_ev *ql = queue_link(ev, s->queue_qdisc);
		char a[32];

		app(buf, len, k, " queueing %s", fmt_ns(s->queue_delay_ns, a, sizeof(a)));
		/* the worst queue's own figures, and where it is when that is not
		 * the link named: never one link's name with another's queue */
		if (ql && ql->iface != s->link)
			app(buf, len, k, " on %s (%s)", m->ifaces[ql->iface].label, qdisc_str(m, s->queue_qdisc, q, sizeof(q)));
		if (ql)
			app(buf, len, k, " (backlog %s, sojourn max %s)",
			    fmt_bytes((double)ql->max_backlog_bytes, a, sizeof(a)), fmt_ns(ql->max_sojourn_ns, q, sizeof(q)));
		first = false;
	}
	if (s->drops) {
		drops_str(m, ev, buf, len, k, first);
		first = false;
	}
	if (s->retrans) {
		app(buf, len, k, "%s %" PRIu64 " retransmits", first ? "" : ",", s->retrans);
		if (s->retrans_tlp)
			app(buf, len, k, " (%" PRIu64 " tail-loss probes)", s->retrans_tlp);
		first = false;
	}
	if (s->ce_pkts) {
		app(buf, len, k, "%s %" PRIu64 " CE", first ? "" : ",", s->ce_pkts);
		first = false;
	}
	for (size_t i = 0; i < ev->nctrs && i < 3; i++) {
		const struct model_ctr_series *se = &m->ctr_series[ev->ctrs[i].series];

		app(buf, len, k, "%s %s %s +%" PRIu64 " (%s)", first ? "" : ",", m->ctr_groups[se->group].label,
		    se->name, ev->ctrs[i].growth, ctr__class_name(se->cls));
		first = false;
	}
	if (s->peak_util == s->peak_util && s->peak_iface != CORR_NONE) {
		/* the busiest bin in bits/s and against the wire: a shaped link's bins
		 * run at the line rate, so a % of the shaper would read 3000 % */
		const struct model_dir *pd = &m->ifaces[s->peak_iface].dir[s->peak_dir & 1];
		double bps = s->peak_util * pd->capacity_bps;

		app(buf, len, k, "%s peak %s", first ? "" : ",", fmt_rate_bps(bps, q, sizeof(q)));
		if (pd->line_bps > 0)
			app(buf, len, k, " (%.1f%% of the line rate)", 100.0 * bps / pd->line_bps);
		app(buf, len, k, " on %s %s", m->ifaces[s->peak_iface].label, s->peak_dir == FT_DIR_TX ? "tx" : "rx");
		first = false;
	}
	if (first)
		app(buf, len, k, " nothing");
}

/* One item of a budget: "shaper 100 Mbit/s on eth0@h2 (about 88 ms)". */
static void item_str(const struct corr *c, const struct corr_cost *x, char *buf, size_t len, size_t *k)
{
	const struct model *m = c->m;
	const char *place = x->iface != CORR_NONE && x->iface < m->nifaces ? m->ifaces[x->iface].label : NULL;
	char a[32];

	switch (x->kind) {
	case CORR_COST_QUEUE:
		app(buf, len, k, "queueing %s", fmt_ns(x->raw_ns, a, sizeof(a)));
		if (place)
			app(buf, len, k, " on %s", place);
		if (x->qdisc != CORR_NONE && x->qdisc < m->nqdiscs)
			app(buf, len, k, " (%s)", qdisc_str(m, x->qdisc, a, sizeof(a)));
		if (x->cost_ns > x->raw_ns + x->raw_ns / 10)
			app(buf, len, k, ", %s in all", fmt_ns(x->cost_ns, a, sizeof(a)));
		return;
	case CORR_COST_SHAPER:
		app(buf, len, k, "shaper %s", place ? fmt_rate_bps(m->ifaces[x->iface].dir[FT_DIR_TX].shaper_bps, a,
								    sizeof(a)) : "?");
		break;
	case CORR_COST_DROP:
		app(buf, len, k, "%" PRIu64 " congestion drops", x->count);
		break;
	case CORR_COST_PAUSE:
	case CORR_COST_CNP:
	case CORR_COST_RDMA_LOSS:
		app(buf, len, k, "%s +%" PRIu64, corr__cost_label(x->kind), x->count);
		break;
	default:
		app(buf, len, k, "%" PRIu64 " %s", x->count, corr__cost_label(x->kind));
		break;
	}
	if (place)
		app(buf, len, k, " on %s", place);
	if (x->cost_ns)
		app(buf, len, k, " (about %s)", fmt_ns(x->cost_ns, a, sizeof(a)));
}

const char *corr__items_str(const struct corr *c, const struct corr_instance *in, size_t max, char *buf, size_t len)
{
	const struct corr_budget *b = &in->budget;
	size_t k = 0, shown = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < b->ncosts && shown < max; i++) {
		const struct corr_cost *x = &c->costs[b->first_cost + i];

		/* what cost a hundredth of the collective or more; drops and queues over
		 * the threshold beside the network's share, as the evidence saw them */
		bool material = x->cost_ns && x->cost_ns * 100 >= b->total_ns;

		if (!material && !(b->network_ns && x->kind == CORR_COST_DROP) &&
		    !(b->network_ns && x->kind == CORR_COST_QUEUE && x->raw_ns >= c->opts.th.queue_delay_ns))
			continue;
		app(buf, len, &k, "%s", shown++ ? ", " : "");
		item_str(c, x, buf, len, &k);
	}
	if (b->carried_network_ns && b->carried_from < c->ninstances) {
		const struct corr_instance *p = &c->instances[b->carried_from];
		char a[32];

		app(buf, len, &k, "%s%s late from %s #%" PRIu64, shown ? ", " : "", fmt_ns(b->carried_network_ns, a, sizeof(a)),
		    corr__op_name(p->op), p->seq);
	}
	return buf;
}

const char *corr__link_str(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	const struct corr_budget *b = &in->budget;
	const struct model *m = c->m;
	uint64_t queue = 0, drops = 0, rtx = 0, other = 0;
	double shaper = 0;
	size_t k = 0;
	char a[32];

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < b->ncosts; i++) {
		const struct corr_cost *x = &c->costs[b->first_cost + i];

		if (b->link == CORR_NONE || corr__wire(c, x->iface) != b->link) {
			other += x->cost_ns;
			continue;
		}
		switch (x->kind) {
		case CORR_COST_QUEUE:
			queue = x->raw_ns > queue ? x->raw_ns : queue;
			break;
		case CORR_COST_SHAPER:
			if (x->iface < m->nifaces && m->ifaces[x->iface].dir[FT_DIR_TX].shaper_bps > shaper)
				shaper = m->ifaces[x->iface].dir[FT_DIR_TX].shaper_bps;
			break;
		case CORR_COST_DROP:
			drops += x->count;
			break;
		case CORR_COST_RTO:
		case CORR_COST_FAST:
		case CORR_COST_TLP:
			rtx += x->count;
			break;
		default:
			app(buf, len, &k, "%s%s", k ? ", " : "", corr__cost_label(x->kind));
			break;
		}
	}
	if (shaper > 0)
		app(buf, len, &k, "%sshaper %s", k ? ", " : "", fmt_rate_bps(shaper, a, sizeof(a)));
	if (queue)
		app(buf, len, &k, "%squeueing %s", k ? ", " : "", fmt_ns(queue, a, sizeof(a)));
	if (drops)
		app(buf, len, &k, "%s%" PRIu64 " congestion drops", k ? ", " : "", drops);
	if (rtx)
		app(buf, len, &k, "%s%" PRIu64 " retransmits", k ? ", " : "", rtx);
	if (b->carried_network_ns && b->carried_from < c->ninstances) {
		const struct corr_instance *p = &c->instances[b->carried_from];

		app(buf, len, &k, "%s%s late from %s #%" PRIu64, k ? ", " : "",
		    fmt_ns(b->carried_network_ns, a, sizeof(a)), corr__op_name(p->op), p->seq);
	}
	if (other)
		app(buf, len, &k, "%s%s on other links", k ? ", " : "", fmt_ns(other, a, sizeof(a)));
	return buf;
}

/* "230 ms of 260 ms (88%)" */
static void share_str(uint64_t part, uint64_t total, char *buf, size_t len, size_t *k)
{
	char a[32], b[32];

	app(buf, len, k, "%s of %s (%.0f%%)", fmt_ns(part, a, sizeof(a)), fmt_ns(total, b, sizeof(b)),
	    total ? 100.0 * (double)part / (double)total : 0.0);
}

/* The part of the wait that a rank spent held by the scheduler, and that rank when another entered late. */
static void held_str(const struct corr *c, const struct corr_budget *b, char *buf, size_t len, size_t *k)
{
	char a[32], r[128];

	if (!b->stalled_ns)
		return;
	app(buf, len, k, ", %s while %s was runnable without a CPU", fmt_ns(b->stalled_ns, a, sizeof(a)),
	    b->held_rank == b->waiting_rank ? "it" : corr__rank_label(c, b->held_rank, r, sizeof(r)));
}

const char *corr__budget_str(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	const struct corr_budget *b = &in->budget;
	char r[128], a[32], e[32], it[512];
	size_t k = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	corr__items_str(c, in, 3, it, sizeof(it));
	switch (in->verdict) {
	case CORR_NETWORK:
		share_str(b->network_ns, b->total_ns, buf, len, &k);
		app(buf, len, &k, " the network's: %s", it[0] ? it : "congestion");
		break;
	case CORR_RANK:
		share_str(b->waiting_ns, b->total_ns, buf, len, &k);
		app(buf, len, &k, " waiting for %s", corr__rank_label(c, b->waiting_rank, r, sizeof(r)));
		held_str(c, b, buf, len, &k);
		break;
	case CORR_UNKNOWN:
		if (b->leader == CORR_SHARE_TIE) {
			app(buf, len, &k, "no share leads: waiting %s", fmt_ns(b->waiting_ns, a, sizeof(a)));
			if (b->waiting_ns)
				app(buf, len, &k, " for %s", corr__rank_label(c, b->waiting_rank, r, sizeof(r)));
			held_str(c, b, buf, len, &k);
			app(buf, len, &k, ", network %s, unexplained %s of %s", fmt_ns(b->network_ns, a, sizeof(a)),
			    fmt_ns(b->unexplained_ns, e, sizeof(e)), fmt_ns(b->total_ns, r, sizeof(r)));
			return buf;
		}
		share_str(b->unexplained_ns, b->total_ns, buf, len, &k);
		app(buf, len, &k, " unexplained");
		break;
	default:
		app(buf, len, &k, "%s, near its usual %s", fmt_ns(b->total_ns, a, sizeof(a)), fmt_ns(b->usual_ns, e, sizeof(e)));
		return buf;
	}
	/* the transfer against its usual, and what the network did beside a rank's lateness */
	app(buf, len, &k, "; transfer %s", fmt_ns(b->transfer_ns, a, sizeof(a)));
	if (b->excess_ns)
		app(buf, len, &k, ", %s over its usual %s", fmt_ns(b->excess_ns, a, sizeof(a)), fmt_ns(b->expected_ns, e, sizeof(e)));
	else
		app(buf, len, &k, ", at its usual");
	if (in->verdict != CORR_NETWORK && it[0])
		app(buf, len, &k, ": %s", it);
	return buf;
}

const char *corr__describe(const struct corr *c, size_t idx, char *buf, size_t len)
{
	const struct corr_instance *in;
	struct corr_evidence ev;
	char r[128], bs[768];
	size_t k = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!c || idx >= c->ninstances)
		return buf;
	in = &c->instances[idx];
	if (corr__evidence(c, idx, &ev)) {
		snprintf(buf, len, "%s", corr__verdict_name(in->verdict));
		return buf;
	}
	corr__budget_str(c, in, bs, sizeof(bs));
	switch (in->verdict) {
	case CORR_NETWORK:
		app(buf, len, &k, "network-bound: ");
		evidence_str(c, &ev, buf, len, &k);
		app(buf, len, &k, "; %s", bs);
		if (in->skew_ns) {
			char a[32];

			app(buf, len, &k, "; entry skew %s", fmt_ns(in->skew_ns, a, sizeof(a)));
		}
		break;
	case CORR_RANK:
		/* the rank first, as the details have always named it */
		app(buf, len, &k, "rank-bound: %s: ", corr__rank_label(c, in->budget.waiting_rank, r, sizeof(r)));
		share_str(in->budget.waiting_ns, in->budget.total_ns, buf, len, &k);
		app(buf, len, &k, " waiting for it");
		held_str(c, &in->budget, buf, len, &k);
		app(buf, len, &k, "%s", strchr(bs, ';') ? strchr(bs, ';') : "");
		if (in->why & CORR_WHY_UNOBSERVED) {
			app(buf, len, &k, "; network not traced in the ranks' namespaces");
		} else if (in->budget.stalled_ns && (in->why & CORR_WHY_CONGESTION)) {
			/* the network's items came after the held time: there, not in the share */
			app(buf, len, &k, "; beside it: ");
			evidence_str(c, &ev, buf, len, &k);
		} else if (in->budget.network_ns * 100 < in->budget.total_ns) { /* under a hundredth: negligible */
			char b[32];

			app(buf, len, &k, "; network clean (no queueing >= %s, drops, loss retransmits, CE or counter spikes "
			    "in the transfer)", fmt_ns(c->opts.th.queue_delay_ns, b, sizeof(b)));
		}
		break;
	case CORR_UNKNOWN:
		app(buf, len, &k, "unknown: %s", bs);
		if (in->why & CORR_WHY_UNOBSERVED)
			app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		else if (in->why & CORR_WHY_CONGESTION) {
			app(buf, len, &k, "; evidence: ");
			evidence_str(c, &ev, buf, len, &k);
		}
		break;
	default:
		app(buf, len, &k, "ok: %s", bs);
		if (in->why & CORR_WHY_UNOBSERVED)
			app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		break;
	}
	if (in->enqueue_only)
		app(buf, len, &k, " [NCCL: enqueue times, not completion]");
	corr__evidence_free(&ev);
	return buf;
}
