// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text for display: the one-line description of an instance's
 * verdict and evidence (corr__describe), rank and qdisc labels.  Only reads
 * the correlator's results; kept apart from computing them.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
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

static const char *rank_str(const struct corr *c, uint32_t r, char *buf, size_t len)
{
	const struct corr_rank *rk;

	if (r == CORR_NONE || r >= c->nranks) {
		snprintf(buf, len, "?");
		return buf;
	}
	rk = &c->ranks[r];
	if (rk->rank >= 0)
		snprintf(buf, len, "rank %d (pid %u, %s)", rk->rank, rk->pid, rk->host);
	else
		snprintf(buf, len, "pid %u (%s)", rk->pid, rk->host);
	return buf;
}

const char *corr__rank_label(const struct corr *c, uint32_t rank, char *buf, size_t len)
{
	return rank_str(c, rank, buf, len);
}

const char *corr__qdisc_label(const struct model *m, uint32_t qdisc, char *buf, size_t len)
{
	if (qdisc >= m->nqdiscs) {
		snprintf(buf, len, "?");
		return buf;
	}
	return qdisc_str(m, qdisc, buf, len);
}

/* Append to BUF at *k (bounded). */
static void app(char *buf, size_t len, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void app(char *buf, size_t len, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*k >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *k, len - *k, fmt, ap);
	va_end(ap);
	if (n > 0)
		*k = *k + (size_t)n < len ? *k + (size_t)n : len;
}

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
	size_t alen = f->family == 6 ? 16 : 4;
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->daddr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	/* the receiver's interface: where a flow of the capture has that address as its source */
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *g = &m->flows[i];
		const struct model_iface *x;

		if (g->key.family != f->family || memcmp(g->key.saddr, f->daddr, alen) != 0 || !g->ifindex)
			continue;
		x = model__iface(m, g->key.netns, g->ifindex);
		if (x) {
			snprintf(buf, len, "%s (%s)", a, x->label);
			return buf;
		}
	}
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

const char *corr__describe(const struct corr *c, size_t idx, char *buf, size_t len)
{
	const struct corr_instance *in;
	struct corr_evidence ev;
	char r[128], a[32];
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
	switch (in->verdict) {
	case CORR_NETWORK:
		app(buf, len, &k, "network-bound: ");
		evidence_str(c, &ev, buf, len, &k);
		if (in->skew_ns)
			app(buf, len, &k, "; entry skew %s", fmt_ns(in->skew_ns, a, sizeof(a)));
		break;
	case CORR_RANK:
		app(buf, len, &k, "rank-bound: %s entered %s after the first (%.0f%% of the span)",
		    rank_str(c, in->straggler, r, sizeof(r)), fmt_ns(in->skew_ns, a, sizeof(a)),
		    in->span_ns ? 100.0 * (double)in->skew_ns / (double)in->span_ns : 0.0);
		if (in->why & CORR_WHY_UNOBSERVED) {
			app(buf, len, &k, "; network not traced in the ranks' namespaces");
		} else {
			char b[32];

			app(buf, len, &k, "; network clean (no queueing >= %s, drops, loss retransmits, CE or counter spikes)",
			    fmt_ns(c->opts.th.queue_delay_ns, b, sizeof(b)));
		}
		break;
	case CORR_UNKNOWN:
		if ((in->why & CORR_WHY_STRAGGLER) && (in->why & CORR_WHY_CONGESTION)) {
			app(buf, len, &k, "unknown: %s entered %s late and the network was congested: ",
			    rank_str(c, in->straggler, r, sizeof(r)), fmt_ns(in->skew_ns, a, sizeof(a)));
			evidence_str(c, &ev, buf, len, &k);
		} else {
			app(buf, len, &k, "unknown: %.1fx the median of its kind, no straggler and no congestion seen",
			    in->slow_ratio == in->slow_ratio ? in->slow_ratio : 0.0);
			if (in->why & CORR_WHY_UNOBSERVED)
				app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		}
		break;
	default:
		app(buf, len, &k, "ok");
		if (in->why & CORR_WHY_UNOBSERVED)
			app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		/* a last rank is named beside it: say why it is not the cause, in
		 * the figures the rule weighs (verdicts.c): its own lateness
		 * against itself plus the time once all were in */
		if (in->straggler != CORR_NONE && in->skew_ns && in->nmembers > 1) {
			uint64_t base = in->own_late_ns + in->all_arrived_ns < in->span_ns
						? in->own_late_ns + in->all_arrived_ns : in->span_ns;
			char b[32], o[32];

			app(buf, len, &k, "; %s entered last, %s after the first; its own lateness, %s, is %.0f%% of "
			    "itself plus the time once all were in (a straggler needs %.0f%% and %s)",
			    rank_str(c, in->straggler, r, sizeof(r)), fmt_ns(in->skew_ns, a, sizeof(a)),
			    fmt_ns(in->own_late_ns, o, sizeof(o)),
			    base ? 100.0 * (double)in->own_late_ns / (double)base : 0.0, 100.0 * c->opts.th.skew_frac,
			    fmt_ns(c->opts.th.skew_min_ns, b, sizeof(b)));
		}
		break;
	}
	if (in->enqueue_only)
		app(buf, len, &k, " [NCCL: enqueue times, not completion]");
	corr__evidence_free(&ev);
	return buf;
}
