/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sections of the HTML page's data (viz/html.h) about the capture and the
 * network: meta (header, headline, view, level of detail, thresholds),
 * names, interfaces and qdiscs, flows, events (retransmits, drops, CE
 * marks, counter spikes, lost events) and counter series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "userspace/report/report_headline.h"
#include "viz/html.h"

/* ---- small helpers ---- */

static const char *flow_label(const struct ft_flow *f, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->saddr, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, f->daddr, d, sizeof(d)))
		snprintf(d, sizeof(d), "?");
	if (f->family == 6)
		snprintf(buf, len, "[%s]:%u -> [%s]:%u", s, f->sport, d, f->dport);
	else
		snprintf(buf, len, "%s:%u -> %s:%u", s, f->sport, d, f->dport);
	return buf;
}

static const char *wall_str(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	long us = (long)((ns % 1000000000) / 1000);
	struct tm tm;

	if (ns < 0 || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
	return buf;
}

static const char *host_of_netns(const struct model *m, uint32_t netns)
{
	const char *n = model__netns_name(m, netns);

	return n && n[0] ? n : m->hdr.hostname;
}


/* ---- sections ---- */

void html_put_meta(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->c;
	struct out *o = &h->o;
	char buf[64];
	uint64_t from = 0, to = m->duration_ns;

	if (h->v->from_ns || h->v->to_ns) {
		from = rel(m, h->v->from_ns);
		to = h->v->to_ns > h->v->from_ns ? rel(m, h->v->to_ns) : m->duration_ns;
	}
	out_obj(o, "meta");
	out_s(o, "host", m->hdr.hostname);
	out_s(o, "kernel", m->hdr.kernel);
	out_s(o, "tool", m->hdr.tool_version);
	out_s(o, "command", m->hdr.command);
	out_s(o, "start_wall", wall_str(model__wall_ns(m, m->start_ns), buf, sizeof(buf)));
	out_d(o, "start_wall_ms", (double)model__wall_ns(m, m->start_ns) / 1e6, 3);
	out_u(o, "duration", m->duration_ns);
	out_u(o, "bin", m->hdr.bin_ns);
	out_u(o, "ncpus", m->hdr.ncpus);
	out_u(o, "records", m->records);
	out_b(o, "truncated", m->truncated);
	out_s(o, "truncated_why", m->truncated_why);
	out_b(o, "have_end", m->have_end);
	out_u(o, "lost_total", m->lost_total);
	out_obj(o, "lost_by_source");
	for (unsigned s = 0; s <= FT_SRC_MAX; s++)
		out_u(o, model__source_name(s), m->lost_by_source[s]);
	out_end_obj(o);
	out_u(o, "skipped_runs", m->skipped_runs);
	{
		/* the page opens on the report's answer (its title line aside: the header has it) */
		struct headline hl;

		headline__build(&hl, m, h->pc, NULL);
		out_arr(o, "headline");
		for (size_t i = 1; i < hl.nlines; i++)
			out_s(o, NULL, hl.lines[i]);
		out_end_arr(o);
	}
	out_b(o, "have_probes", c && c->have_probes);
	out_b(o, "show_probes", c && c->show_probes);
	out_b(o, "inferred_on", c && c->inferred_on);
	out_b(o, "enqueue_only", c && c->enqueue_only);
	out_arr(o, "view");
	out_u(o, NULL, from);
	out_u(o, NULL, to > from ? to : from + 1);
	out_end_arr(o);
	out_obj(o, "lod");
	out_u(o, "kmin", h->kmin);
	out_u(o, "kmin_ctr", h->kmin_ctr);
	out_u(o, "detail_budget", h->detail_budget);
	out_u(o, "tries", h->tries);
	out_u(o, "series_cost", h->series_cost);
	out_u(o, "detail_cost", h->detail_cost);
	out_arr(o, "windows");
	for (size_t i = 0; i < h->win.n; i++) {
		out_arr(o, NULL);
		out_i(o, NULL, srel(m, h->win.from[i]));
		out_i(o, NULL, srel(m, h->win.to[i]));
		out_end_arr(o);
	}
	out_end_arr(o);
	out_end_obj(o);
	if (c) {
		out_obj(o, "thresholds");
		out_u(o, "queue_delay_ns", c->opts.th.queue_delay_ns);
		out_d(o, "util", c->opts.th.util, 3);
		out_d(o, "skew_frac", c->opts.th.skew_frac, 3);
		out_u(o, "skew_min_ns", c->opts.th.skew_min_ns);
		out_d(o, "slow_factor", c->opts.th.slow_factor, 3);
		out_end_obj(o);
	}
	out_end_obj(o);
}

void html_put_names(struct html *h)
{
	struct out *o = &h->o;

	out_arr(o, "ops");
	for (unsigned i = 0; i < FT_OP_MAX; i++)
		out_s(o, NULL, corr__op_name(i));
	out_end_arr(o);
	out_arr(o, "verdicts");
	for (unsigned i = 0; i < CORR_NVERDICTS; i++)
		out_s(o, NULL, corr__verdict_name((enum corr_verdict)i));
	out_end_arr(o);
	out_arr(o, "triggers");
	for (unsigned i = 0; i < MODEL_NTRIGGER; i++)
		out_s(o, NULL, model__trigger_name(i));
	out_end_arr(o);
	out_arr(o, "sources");
	for (unsigned i = 0; i <= FT_SRC_MAX; i++)
		out_s(o, NULL, model__source_name(i));
	out_end_arr(o);
}

void html_put_ifaces(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	out_arr(o, "ifaces");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];

		out_obj(o, NULL);
		out_s(o, "label", f->label);
		out_s(o, "name", f->name);
		out_s(o, "host", host_of_netns(m, f->netns));
		out_u(o, "netns", f->netns);
		out_b(o, "traced", (f->flags & FT_IFACE_TRACED) != 0);
		out_arr(o, "cap");
		for (unsigned d = 0; d < 2; d++)
			out_d(o, NULL, f->dir[d].capacity_bps, 0);
		out_end_arr(o);
		out_arr(o, "bytes");
		for (unsigned d = 0; d < 2; d++)
			out_u(o, NULL, f->dir[d].bytes);
		out_end_arr(o);
		out_arr(o, "peak");
		for (unsigned d = 0; d < 2; d++)
			out_d(o, NULL, f->dir[d].peak_bps, 0);
		out_end_arr(o);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_arr(o, "qdiscs");
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		out_obj(o, NULL);
		out_s(o, "kind", q->kind);
		out_u(o, "handle", q->handle);
		out_u(o, "parent", q->parent);
		out_u(o, "iface", q->iface);
		out_u(o, "max_backlog", q->max_backlog_bytes);
		out_u(o, "sojourn_max", q->sojourn_max_ns);
		out_u(o, "drops", q->drops_counter);
		out_end_obj(o);
	}
	out_end_arr(o);
}

void html_put_counters(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	out_arr(o, "ctr_groups");
	for (size_t i = 0; i < m->nctr_groups; i++) {
		const struct model_ctr_group *g = &m->ctr_groups[i];

		out_obj(o, NULL);
		out_s(o, "label", g->label);
		out_u(o, "kind", g->kind);
		out_i(o, "iface", g->iface == UINT32_MAX ? -1 : (int64_t)g->iface);
		out_u(o, "period", g->period_ns);
		out_u(o, "samples", g->nsamples);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_arr(o, "ctr_series");
	for (size_t i = 0; i < m->nctr_series; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];

		out_obj(o, NULL);
		out_u(o, "group", s->group);
		out_s(o, "name", s->name);
		out_u(o, "cls", s->cls);
		out_u(o, "flags", s->flags);
		out_u(o, "total", s->total);
		out_d(o, "peak_rate", s->peak_rate, 3);
		out_end_obj(o);
	}
	out_end_arr(o);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static size_t cap_events(size_t n)
{
	return n < HTML_EVENTS_MAX ? n : HTML_EVENTS_MAX;
}

struct ev_ref {
	uint64_t ts;
	size_t i;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int html_put_events(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;
	size_t nmax = m->nrtx_events > m->ndrop_events ? m->nrtx_events : m->ndrop_events;
	struct ev_ref *r = calloc(nmax ? nmax : 1, sizeof(*r));
	struct col ct = { 0 }, c1 = { 0 }, c2 = { 0 }, c3 = { 0 };
	size_t n;
	char buf[160];

	if (!r)
		return -ENOMEM;
	out_obj(o, "events");

	/* retransmits, by time */
	for (size_t i = 0; i < m->nrtx_events; i++) {
		r[i].ts = m->rtx_events[i].ts_ns;
		r[i].i = i;
	}
	qsort(r, m->nrtx_events, sizeof(*r), cmp_ev);
	n = cap_events(m->nrtx_events);
	for (size_t k = 0; k < n; k++) {
		const struct model_rtx *e = &m->rtx_events[r[k].i];

		col_d(&ct, srel(m, e->ts_ns));
		col_u(&c1, e->flow);
		col_u(&c2, e->trigger);
		col_u(&c3, e->segs);
	}
	out_obj(o, "rtx");
	out_u(o, "n", n);
	out_u(o, "omitted", m->nrtx_events - n);
	out_col(o, "t", &ct);
	out_col(o, "flow", &c1);
	out_col(o, "trig", &c2);
	out_col(o, "segs", &c3);
	out_end_obj(o);

	/* drops, by time */
	free(h->reasons);
	h->nreasons = 0;
	h->reasons = calloc(m->ndrop_events + 1, sizeof(uint32_t));
	if (!h->reasons) {
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->ndrop_events; i++) {
		r[i].ts = m->drop_events[i].ts_ns;
		r[i].i = i;
		h->reasons[i] = m->drop_events[i].reason;
	}
	qsort(h->reasons, m->ndrop_events, sizeof(uint32_t), cmp_u32);
	for (size_t i = 0; i < m->ndrop_events; i++)
		if (i == 0 || h->reasons[i] != h->reasons[h->nreasons - 1])
			h->reasons[h->nreasons++] = h->reasons[i];
	qsort(r, m->ndrop_events, sizeof(*r), cmp_ev);
	n = cap_events(m->ndrop_events);
	for (size_t k = 0; k < n; k++) {
		const struct model_drop_ev *e = &m->drop_events[r[k].i];
		size_t ri = 0;

		while (ri < h->nreasons && h->reasons[ri] != e->reason)
			ri++;
		col_d(&ct, srel(m, e->ts_ns));
		col_u(&c1, ri);
		col_u(&c2, e->iface == UINT32_MAX ? 0 : (uint64_t)e->iface + 1);
	}
	free(r);
	out_obj(o, "drop");
	out_u(o, "n", n);
	out_u(o, "omitted", m->ndrop_events - n);
	out_col(o, "t", &ct);
	out_col(o, "reason", &c1);
	out_col(o, "iface", &c2);
	out_end_obj(o);
	out_arr(o, "reasons");
	for (size_t i = 0; i < h->nreasons; i++) {
		const char *nm = model__drop_reason_name(m, h->reasons[i]);

		out_obj(o, NULL);
		out_u(o, "id", h->reasons[i]);
		if (!nm) {
			snprintf(buf, sizeof(buf), "reason %u", h->reasons[i]);
			nm = buf;
		}
		out_s(o, "name", nm);
		out_b(o, "congestion", corr__congestion_drop(nm));
		out_end_obj(o);
	}
	out_end_arr(o);

	/* CE marks: the bins that carried some, by time within each interface direction */
	n = 0;
	{
		size_t total = 0;

		for (size_t i = 0; i < m->nifaces; i++)
			for (unsigned d = 0; d < 2; d++) {
				const struct model_dir *md = &m->ifaces[i].dir[d];

				for (size_t b = 0; b < md->nbins; b++) {
					if (!md->bins[b].ce_pkts)
						continue;
					total++;
					if (n >= HTML_EVENTS_MAX)
						continue;
					col_d(&ct, srel(m, md->bins[b].start_ns));
					col_u(&c1, i * 2 + d);
					col_u(&c2, md->bins[b].ce_pkts);
					n++;
				}
			}
		out_obj(o, "ce");
		out_u(o, "n", n);
		out_u(o, "omitted", total - n);
		out_col(o, "t", &ct);
		out_col(o, "track", &c1);
		out_col(o, "pkts", &c2);
		out_end_obj(o);
	}

	/* counter spikes (CNP, pause, retransmission, discard storms), by start */
	{
		struct col c4 = { 0 }, c5 = { 0 };

		n = cap_events(m->nctr_events);
		for (size_t i = 0; i < n; i++) {
			const struct model_ctr_event *e = &m->ctr_events[i];

			col_u(&c1, e->series);
			col_d(&ct, srel(m, e->start_ns));
			col_u(&c2, e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0);
			col_u(&c3, e->delta);
			col_u(&c4, dround(e->peak_rate));
			col_u(&c5, e->nintervals);
		}
		out_obj(o, "ctr");
		out_u(o, "n", n);
		out_u(o, "omitted", m->nctr_events - n);
		out_col(o, "series", &c1);
		out_col(o, "t", &ct);
		out_col(o, "dur", &c2);
		out_col(o, "delta", &c3);
		out_col(o, "peak", &c4);
		out_col(o, "nint", &c5);
		out_end_obj(o);
	}

	/* lost events: the capture tells how many per source and CPU since the previous reading */
	out_arr(o, "lost");
	for (size_t i = 0; i < m->nlost_evs; i++) {
		const struct model_lost_ev *e = &m->lost_evs[i];

		out_arr(o, NULL);
		out_i(o, NULL, srel(m, e->from_ns));
		out_i(o, NULL, srel(m, e->ts_ns));
		out_u(o, NULL, e->lost);
		out_u(o, NULL, e->source);
		out_u(o, NULL, e->cpu);
		out_end_arr(o);
	}
	out_end_arr(o);
	out_end_obj(o);
	return 0;
}

void html_put_flows(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;
	char buf[160];

	out_arr(o, "flows");
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];
		int64_t rank = -1;

		for (size_t k = 0; k < f->nowners && f->first_owner + k < m->nowners && rank < 0; k++)
			rank = h->c ? corr__rank_of_pid(h->c, m->owners[f->first_owner + k].pid) : -1;
		out_obj(o, NULL);
		out_s(o, "label", flow_label(&f->key, buf, sizeof(buf)));
		out_s(o, "host", host_of_netns(m, f->key.netns));
		out_u(o, "rtx", f->rtx_total);
		out_i(o, "rank", rank);
		out_end_obj(o);
	}
	out_end_arr(o);
}
