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
#include "viz/common.h"
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
	html_out_obj(o, "meta");
	html_out_s(o, "host", m->hdr.hostname);
	html_out_s(o, "kernel", m->hdr.kernel);
	html_out_s(o, "tool", m->hdr.tool_version);
	html_out_s(o, "command", m->hdr.command);
	html_out_s(o, "start_wall", wall_str(model__wall_ns(m, m->start_ns), buf, sizeof(buf)));
	html_out_d(o, "start_wall_ms", (double)model__wall_ns(m, m->start_ns) / 1e6, 3);
	html_out_u(o, "duration", m->duration_ns);
	html_out_u(o, "bin", m->hdr.bin_ns);
	html_out_u(o, "ncpus", m->hdr.ncpus);
	html_out_u(o, "records", m->records);
	html_out_b(o, "truncated", m->truncated);
	html_out_s(o, "truncated_why", m->truncated_why);
	html_out_b(o, "have_end", m->have_end);
	html_out_u(o, "lost_total", m->lost_total);
	html_out_obj(o, "lost_by_source");
	for (unsigned s = 0; s <= FT_SRC_MAX; s++)
		html_out_u(o, model__source_name(s), m->lost_by_source[s]);
	html_out_end_obj(o);
	html_out_u(o, "skipped_runs", m->skipped_runs);
	{
		/* the page opens on the report's answer (its title line aside: the header has it) */
		struct headline hl;

		headline__build(&hl, m, h->pc, NULL);
		html_out_arr(o, "headline");
		for (size_t i = 1; i < hl.nlines; i++)
			html_out_s(o, NULL, hl.lines[i]);
		html_out_end_arr(o);
		headline__free(&hl);
	}
	html_out_b(o, "have_probes", c && c->have_probes);
	html_out_b(o, "show_probes", c && c->show_probes);
	html_out_b(o, "inferred_on", c && c->inferred_on);
	html_out_b(o, "enqueue_only", c && c->enqueue_only);
	html_out_arr(o, "view");
	html_out_u(o, NULL, from);
	html_out_u(o, NULL, to > from ? to : from + 1);
	html_out_end_arr(o);
	html_out_obj(o, "lod");
	html_out_u(o, "kmin", h->kmin);
	html_out_u(o, "kmin_ctr", h->kmin_ctr);
	html_out_u(o, "detail_budget", h->detail_budget);
	html_out_u(o, "tries", h->tries);
	html_out_u(o, "series_cost", h->series_cost);
	html_out_u(o, "detail_cost", h->detail_cost);
	html_out_arr(o, "windows");
	for (size_t i = 0; i < h->win.n; i++) {
		html_out_arr(o, NULL);
		html_out_i(o, NULL, srel(m, h->win.from[i]));
		html_out_i(o, NULL, srel(m, h->win.to[i]));
		html_out_end_arr(o);
	}
	html_out_end_arr(o);
	html_out_end_obj(o);
	if (c) {
		html_out_obj(o, "thresholds");
		html_out_u(o, "queue_delay_ns", c->opts.th.queue_delay_ns);
		html_out_d(o, "util", c->opts.th.util, 3);
		html_out_d(o, "skew_frac", c->opts.th.skew_frac, 3);
		html_out_u(o, "skew_min_ns", c->opts.th.skew_min_ns);
		html_out_d(o, "slow_factor", c->opts.th.slow_factor, 3);
		html_out_end_obj(o);
	}
	html_out_end_obj(o);
}

static void put_name(void *ctx, const char *name)
{
	html_out_s(ctx, NULL, name);
}

void html_put_names(struct html *h)
{
	struct out *o = &h->o;

	html_out_arr(o, "ops");
	for (unsigned i = 0; i < FT_OP_MAX; i++)
		html_out_s(o, NULL, corr__op_name(i));
	viz__custom_names(h->m, put_name, o); /* the calls' op column indexes these after the ops */
	html_out_end_arr(o);
	html_out_arr(o, "verdicts");
	for (unsigned i = 0; i < CORR_NVERDICTS; i++)
		html_out_s(o, NULL, corr__verdict_name((enum corr_verdict)i));
	html_out_end_arr(o);
	html_out_arr(o, "triggers");
	for (unsigned i = 0; i < MODEL_NTRIGGER; i++)
		html_out_s(o, NULL, model__trigger_name(i));
	html_out_end_arr(o);
	html_out_arr(o, "sources");
	for (unsigned i = 0; i <= FT_SRC_MAX; i++)
		html_out_s(o, NULL, model__source_name(i));
	html_out_end_arr(o);
}

void html_put_ifaces(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	html_out_arr(o, "ifaces");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];

		html_out_obj(o, NULL);
		html_out_s(o, "label", f->label);
		html_out_s(o, "name", f->name);
		html_out_s(o, "host", host_of_netns(m, f->netns));
		html_out_u(o, "netns", f->netns);
		html_out_b(o, "traced", (f->flags & FT_IFACE_TRACED) != 0);
		html_out_arr(o, "cap");
		for (unsigned d = 0; d < 2; d++)
			html_out_d(o, NULL, f->dir[d].capacity_bps, 0);
		html_out_end_arr(o);
		html_out_arr(o, "bytes");
		for (unsigned d = 0; d < 2; d++)
			html_out_u(o, NULL, f->dir[d].bytes);
		html_out_end_arr(o);
		html_out_arr(o, "peak");
		for (unsigned d = 0; d < 2; d++)
			html_out_d(o, NULL, f->dir[d].peak_bps, 0);
		html_out_end_arr(o);
		html_out_end_obj(o);
	}
	html_out_end_arr(o);
	html_out_arr(o, "qdiscs");
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		html_out_obj(o, NULL);
		html_out_s(o, "kind", q->kind);
		html_out_u(o, "handle", q->handle);
		html_out_u(o, "parent", q->parent);
		html_out_u(o, "iface", q->iface);
		html_out_u(o, "max_backlog", q->max_backlog_bytes);
		html_out_u(o, "sojourn_max", q->sojourn_max_ns);
		html_out_u(o, "drops", q->drops_counter);
		html_out_end_obj(o);
	}
	html_out_end_arr(o);
}

void html_put_counters(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	html_out_arr(o, "ctr_groups");
	for (size_t i = 0; i < m->nctr_groups; i++) {
		const struct model_ctr_group *g = &m->ctr_groups[i];

		html_out_obj(o, NULL);
		html_out_s(o, "label", g->label);
		html_out_u(o, "kind", g->kind);
		html_out_i(o, "iface", g->iface == UINT32_MAX ? -1 : (int64_t)g->iface);
		html_out_u(o, "period", g->period_ns);
		html_out_u(o, "samples", g->nsamples);
		html_out_end_obj(o);
	}
	html_out_end_arr(o);
	html_out_arr(o, "ctr_series");
	for (size_t i = 0; i < m->nctr_series; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];

		html_out_obj(o, NULL);
		html_out_u(o, "group", s->group);
		html_out_s(o, "name", s->name);
		html_out_u(o, "cls", s->cls);
		html_out_u(o, "flags", s->flags);
		html_out_u(o, "total", s->total);
		html_out_d(o, "peak_rate", s->peak_rate, 3);
		html_out_end_obj(o);
	}
	html_out_end_arr(o);
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
	html_out_obj(o, "events");

	/* retransmits, by time */
	for (size_t i = 0; i < m->nrtx_events; i++) {
		r[i].ts = m->rtx_events[i].ts_ns;
		r[i].i = i;
	}
	qsort(r, m->nrtx_events, sizeof(*r), cmp_ev);
	n = cap_events(m->nrtx_events);
	for (size_t k = 0; k < n; k++) {
		const struct model_rtx *e = &m->rtx_events[r[k].i];

		html_col_d(&ct, srel(m, e->ts_ns));
		html_col_u(&c1, e->flow);
		html_col_u(&c2, e->trigger);
		html_col_u(&c3, e->segs);
	}
	html_out_obj(o, "rtx");
	html_out_u(o, "n", n);
	html_out_u(o, "omitted", m->nrtx_events - n);
	html_out_col(o, "t", &ct);
	html_out_col(o, "flow", &c1);
	html_out_col(o, "trig", &c2);
	html_out_col(o, "segs", &c3);
	html_out_end_obj(o);

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
		html_col_d(&ct, srel(m, e->ts_ns));
		html_col_u(&c1, ri);
		html_col_u(&c2, e->iface == UINT32_MAX ? 0 : (uint64_t)e->iface + 1);
	}
	free(r);
	html_out_obj(o, "drop");
	html_out_u(o, "n", n);
	html_out_u(o, "omitted", m->ndrop_events - n);
	html_out_col(o, "t", &ct);
	html_out_col(o, "reason", &c1);
	html_out_col(o, "iface", &c2);
	html_out_end_obj(o);
	html_out_arr(o, "reasons");
	for (size_t i = 0; i < h->nreasons; i++) {
		const char *nm = model__drop_reason_name(m, h->reasons[i]);

		html_out_obj(o, NULL);
		html_out_u(o, "id", h->reasons[i]);
		if (!nm) {
			snprintf(buf, sizeof(buf), "reason %u", h->reasons[i]);
			nm = buf;
		}
		html_out_s(o, "name", nm);
		html_out_b(o, "congestion", corr__congestion_drop(nm));
		html_out_end_obj(o);
	}
	html_out_end_arr(o);

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
					html_col_d(&ct, srel(m, md->bins[b].start_ns));
					html_col_u(&c1, i * 2 + d);
					html_col_u(&c2, md->bins[b].ce_pkts);
					n++;
				}
			}
		html_out_obj(o, "ce");
		html_out_u(o, "n", n);
		html_out_u(o, "omitted", total - n);
		html_out_col(o, "t", &ct);
		html_out_col(o, "track", &c1);
		html_out_col(o, "pkts", &c2);
		html_out_end_obj(o);
	}

	/* counter spikes (CNP, pause, retransmission, discard storms), by start */
	{
		struct col c4 = { 0 }, c5 = { 0 };

		n = cap_events(m->nctr_events);
		for (size_t i = 0; i < n; i++) {
			const struct model_ctr_event *e = &m->ctr_events[i];

			html_col_u(&c1, e->series);
			html_col_d(&ct, srel(m, e->start_ns));
			html_col_u(&c2, e->end_ns > e->start_ns ? e->end_ns - e->start_ns : 0);
			html_col_u(&c3, e->delta);
			html_col_u(&c4, dround(e->peak_rate));
			html_col_u(&c5, e->nintervals);
		}
		html_out_obj(o, "ctr");
		html_out_u(o, "n", n);
		html_out_u(o, "omitted", m->nctr_events - n);
		html_out_col(o, "series", &c1);
		html_out_col(o, "t", &ct);
		html_out_col(o, "dur", &c2);
		html_out_col(o, "delta", &c3);
		html_out_col(o, "peak", &c4);
		html_out_col(o, "nint", &c5);
		html_out_end_obj(o);
	}

	/* lost events: the capture tells how many per source and CPU since the previous reading */
	html_out_arr(o, "lost");
	for (size_t i = 0; i < m->nlost_evs; i++) {
		const struct model_lost_ev *e = &m->lost_evs[i];

		html_out_arr(o, NULL);
		html_out_i(o, NULL, srel(m, e->from_ns));
		html_out_i(o, NULL, srel(m, e->ts_ns));
		html_out_u(o, NULL, e->lost);
		html_out_u(o, NULL, e->source);
		html_out_u(o, NULL, e->cpu);
		html_out_end_arr(o);
	}
	html_out_end_arr(o);
	html_out_end_obj(o);
	return 0;
}

void html_put_flows(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;
	char buf[160];

	html_out_arr(o, "flows");
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];
		int64_t rank = -1;

		for (size_t k = 0; k < f->nowners && f->first_owner + k < m->nowners && rank < 0; k++)
			rank = h->c ? corr__rank_of_pid(h->c, m->owners[f->first_owner + k].pid) : -1;
		html_out_obj(o, NULL);
		html_out_s(o, "label", flow_label(&f->key, buf, sizeof(buf)));
		html_out_s(o, "host", host_of_netns(m, f->key.netns));
		html_out_u(o, "rtx", f->rtx_total);
		html_out_i(o, "rank", rank);
		html_out_end_obj(o);
	}
	html_out_end_arr(o);
}
