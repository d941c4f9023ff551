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
	json_kv_object_begin(&o->j, "meta");
	json_kv_string(&o->j, "host", m->hdr.hostname);
	json_kv_string(&o->j, "kernel", m->hdr.kernel);
	json_kv_string(&o->j, "tool", m->hdr.tool_version);
	json_kv_string(&o->j, "command", m->hdr.command);
	json_kv_string(&o->j, "start_wall", wall_str(model__wall_ns(m, m->start_ns), buf, sizeof(buf)));
	json_kv_double(&o->j, "start_wall_ms", (double)model__wall_ns(m, m->start_ns) / 1e6, 3);
	json_kv_u64(&o->j, "duration", m->duration_ns);
	json_kv_u64(&o->j, "bin", m->hdr.bin_ns);
	json_kv_u64(&o->j, "ncpus", m->hdr.ncpus);
	json_kv_u64(&o->j, "records", m->records);
	json_kv_bool(&o->j, "truncated", m->truncated);
	json_kv_string(&o->j, "truncated_why", m->truncated_why);
	json_kv_bool(&o->j, "have_end", m->have_end);
	json_kv_u64(&o->j, "lost_total", m->lost_total);
	json_kv_object_begin(&o->j, "lost_by_source");
	for (unsigned s = 0; s <= FT_SRC_MAX; s++)
		json_kv_u64(&o->j, model__source_name(s), m->lost_by_source[s]);
	json_object_end(&o->j);
	json_kv_u64(&o->j, "skipped_runs", m->skipped_runs);
	{
		/* the page opens on the report's answer (its title line aside: the header has it) */
		struct headline hl;

		headline__build(&hl, m, h->pc, NULL);
		json_kv_array_begin(&o->j, "headline");
		for (size_t i = 1; i < hl.nlines; i++)
			json_kv_string(&o->j, NULL, hl.lines[i]);
		json_array_end(&o->j);
	}
	json_kv_bool(&o->j, "have_probes", c && c->have_probes);
	json_kv_bool(&o->j, "show_probes", c && c->show_probes);
	json_kv_bool(&o->j, "inferred_on", c && c->inferred_on);
	json_kv_bool(&o->j, "enqueue_only", c && c->enqueue_only);
	json_kv_array_begin(&o->j, "view");
	json_kv_u64(&o->j, NULL, from);
	json_kv_u64(&o->j, NULL, to > from ? to : from + 1);
	json_array_end(&o->j);
	json_kv_object_begin(&o->j, "lod");
	json_kv_u64(&o->j, "kmin", h->kmin);
	json_kv_u64(&o->j, "kmin_ctr", h->kmin_ctr);
	json_kv_u64(&o->j, "detail_budget", h->detail_budget);
	json_kv_u64(&o->j, "tries", h->tries);
	json_kv_u64(&o->j, "series_cost", h->series_cost);
	json_kv_u64(&o->j, "detail_cost", h->detail_cost);
	json_kv_array_begin(&o->j, "windows");
	for (size_t i = 0; i < h->win.n; i++) {
		json_kv_array_begin(&o->j, NULL);
		json_kv_i64(&o->j, NULL, srel(m, h->win.from[i]));
		json_kv_i64(&o->j, NULL, srel(m, h->win.to[i]));
		json_array_end(&o->j);
	}
	json_array_end(&o->j);
	json_object_end(&o->j);
	if (c) {
		json_kv_object_begin(&o->j, "thresholds");
		json_kv_u64(&o->j, "queue_delay_ns", c->opts.th.queue_delay_ns);
		json_kv_double(&o->j, "util", c->opts.th.util, 3);
		json_kv_double(&o->j, "skew_frac", c->opts.th.skew_frac, 3);
		json_kv_u64(&o->j, "skew_min_ns", c->opts.th.skew_min_ns);
		json_kv_double(&o->j, "slow_factor", c->opts.th.slow_factor, 3);
		json_object_end(&o->j);
	}
	json_object_end(&o->j);
}

static void put_name(void *ctx, const char *name)
{
	json_string(ctx, name);
}

void html_put_names(struct html *h)
{
	struct out *o = &h->o;

	json_kv_array_begin(&o->j, "ops");
	for (unsigned i = 0; i < FT_OP_MAX; i++)
		json_kv_string(&o->j, NULL, corr__op_name(i));
	viz__custom_names(h->m, put_name, &o->j); /* the calls' op column indexes these after the ops */
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "verdicts");
	for (unsigned i = 0; i < CORR_NVERDICTS; i++)
		json_kv_string(&o->j, NULL, corr__verdict_name((enum corr_verdict)i));
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "triggers");
	for (unsigned i = 0; i < MODEL_NTRIGGER; i++)
		json_kv_string(&o->j, NULL, model__trigger_name(i));
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "sources");
	for (unsigned i = 0; i <= FT_SRC_MAX; i++)
		json_kv_string(&o->j, NULL, model__source_name(i));
	json_array_end(&o->j);
}

void html_put_ifaces(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	json_kv_array_begin(&o->j, "ifaces");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "label", f->label);
		json_kv_string(&o->j, "name", f->name);
		json_kv_string(&o->j, "host", host_of_netns(m, f->netns));
		json_kv_u64(&o->j, "netns", f->netns);
		json_kv_bool(&o->j, "traced", (f->flags & FT_IFACE_TRACED) != 0);
		json_kv_array_begin(&o->j, "cap");
		for (unsigned d = 0; d < 2; d++)
			json_kv_double(&o->j, NULL, f->dir[d].capacity_bps, 0);
		json_array_end(&o->j);
		json_kv_array_begin(&o->j, "bytes");
		for (unsigned d = 0; d < 2; d++)
			json_kv_u64(&o->j, NULL, f->dir[d].bytes);
		json_array_end(&o->j);
		json_kv_array_begin(&o->j, "peak");
		for (unsigned d = 0; d < 2; d++)
			json_kv_double(&o->j, NULL, f->dir[d].peak_bps, 0);
		json_array_end(&o->j);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "qdiscs");
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "kind", q->kind);
		json_kv_u64(&o->j, "handle", q->handle);
		json_kv_u64(&o->j, "parent", q->parent);
		json_kv_u64(&o->j, "iface", q->iface);
		json_kv_u64(&o->j, "max_backlog", q->max_backlog_bytes);
		json_kv_u64(&o->j, "sojourn_max", q->sojourn_max_ns);
		json_kv_u64(&o->j, "drops", q->drops_counter);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
}

void html_put_counters(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	json_kv_array_begin(&o->j, "ctr_groups");
	for (size_t i = 0; i < m->nctr_groups; i++) {
		const struct model_ctr_group *g = &m->ctr_groups[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "label", g->label);
		json_kv_u64(&o->j, "kind", g->kind);
		json_kv_i64(&o->j, "iface", g->iface == UINT32_MAX ? -1 : (int64_t)g->iface);
		json_kv_u64(&o->j, "period", g->period_ns);
		json_kv_u64(&o->j, "samples", g->nsamples);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "ctr_series");
	for (size_t i = 0; i < m->nctr_series; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_u64(&o->j, "group", s->group);
		json_kv_string(&o->j, "name", s->name);
		json_kv_u64(&o->j, "cls", s->cls);
		json_kv_u64(&o->j, "flags", s->flags);
		json_kv_u64(&o->j, "total", s->total);
		json_kv_double(&o->j, "peak_rate", s->peak_rate, 3);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
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
	json_kv_object_begin(&o->j, "events");

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
	json_kv_object_begin(&o->j, "rtx");
	json_kv_u64(&o->j, "n", n);
	json_kv_u64(&o->j, "omitted", m->nrtx_events - n);
	html_out_col(o, "t", &ct);
	html_out_col(o, "flow", &c1);
	html_out_col(o, "trig", &c2);
	html_out_col(o, "segs", &c3);
	json_object_end(&o->j);

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
	json_kv_object_begin(&o->j, "drop");
	json_kv_u64(&o->j, "n", n);
	json_kv_u64(&o->j, "omitted", m->ndrop_events - n);
	html_out_col(o, "t", &ct);
	html_out_col(o, "reason", &c1);
	html_out_col(o, "iface", &c2);
	json_object_end(&o->j);
	json_kv_array_begin(&o->j, "reasons");
	for (size_t i = 0; i < h->nreasons; i++) {
		const char *nm = model__drop_reason_name(m, h->reasons[i]);

		json_kv_object_begin(&o->j, NULL);
		json_kv_u64(&o->j, "id", h->reasons[i]);
		if (!nm) {
			snprintf(buf, sizeof(buf), "reason %u", h->reasons[i]);
			nm = buf;
		}
		json_kv_string(&o->j, "name", nm);
		json_kv_bool(&o->j, "congestion", corr__congestion_drop(nm));
		json_object_end(&o->j);
	}
	json_array_end(&o->j);

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
		json_kv_object_begin(&o->j, "ce");
		json_kv_u64(&o->j, "n", n);
		json_kv_u64(&o->j, "omitted", total - n);
		html_out_col(o, "t", &ct);
		html_out_col(o, "track", &c1);
		html_out_col(o, "pkts", &c2);
		json_object_end(&o->j);
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
		json_kv_object_begin(&o->j, "ctr");
		json_kv_u64(&o->j, "n", n);
		json_kv_u64(&o->j, "omitted", m->nctr_events - n);
		html_out_col(o, "series", &c1);
		html_out_col(o, "t", &ct);
		html_out_col(o, "dur", &c2);
		html_out_col(o, "delta", &c3);
		html_out_col(o, "peak", &c4);
		html_out_col(o, "nint", &c5);
		json_object_end(&o->j);
	}

	/* lost events: the capture tells how many per source and CPU since the previous reading */
	json_kv_array_begin(&o->j, "lost");
	for (size_t i = 0; i < m->nlost_evs; i++) {
		const struct model_lost_ev *e = &m->lost_evs[i];

		json_kv_array_begin(&o->j, NULL);
		json_kv_i64(&o->j, NULL, srel(m, e->from_ns));
		json_kv_i64(&o->j, NULL, srel(m, e->ts_ns));
		json_kv_u64(&o->j, NULL, e->lost);
		json_kv_u64(&o->j, NULL, e->source);
		json_kv_u64(&o->j, NULL, e->cpu);
		json_array_end(&o->j);
	}
	json_array_end(&o->j);
	json_object_end(&o->j);
	return 0;
}

void html_put_flows(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;
	char buf[160];

	json_kv_array_begin(&o->j, "flows");
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];
		int64_t rank = -1;

		for (size_t k = 0; k < f->nowners && f->first_owner + k < m->nowners && rank < 0; k++)
			rank = h->c ? corr__rank_of_pid(h->c, m->owners[f->first_owner + k].pid) : -1;
		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "label", flow_label(&f->key, buf, sizeof(buf)));
		json_kv_string(&o->j, "host", host_of_netns(m, f->key.netns));
		json_kv_u64(&o->j, "rtx", f->rtx_total);
		json_kv_i64(&o->j, "rank", rank);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
}
