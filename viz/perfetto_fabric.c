// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Perfetto trace's fabric (viz/perfetto.h): counter tracks (interface
 * throughput, qdisc backlog and sojourn, RDMA/NIC counter rates), reduced
 * to at most PF_MAX_BUCKETS buckets a window and written when their value
 * changes, and the network events (retransmits, drops, CE marks, counter
 * spikes) as instants.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "viz/perfetto.h"

/* ---- counters ---- */

/* Runs of buckets of equal value, written when the value changes. */
struct rle {
	struct pf *p;
	uint32_t pid, tid;
	const char *name, *unit;
	int decimals;
	bool have;
	uint64_t ps, pe;            /* pending run of buckets [ps, pe] */
	double pv;
	char last[48];              /* last value written ("" none) */
};

static void rle_emit(struct rle *r, uint64_t b, double v)
{
	struct pf *p = r->p;
	uint64_t t = p->from + b * p->res;
	char val[48];

	if (t >= p->to)
		return;
	/* the value as written: a change too small to show is no change */
	snprintf(val, sizeof(val), "%.*f", r->decimals, v);
	if (!strcmp(val, r->last))
		return;
	snprintf(r->last, sizeof(r->last), "%s", val);
	pf_ev_begin(p, 'C', NULL, r->pid, r->tid);
	pf_ts(p, "ts", t);
	json_kv_string(&p->j, "name", r->name);
	json_kv_object_begin(&p->j, "args");
	json_kv_double(&p->j, r->unit, v, r->decimals);
	json_object_end(&p->j);
	json_object_end(&p->j);
}

static void rle_put(struct rle *r, uint64_t b, uint64_t b1, double v)
{
	if (r->have && b <= r->pe) {
		if (v > r->pv) {
			if (r->ps < r->pe && b == r->pe) {
				rle_emit(r, r->ps, r->pv);
				r->ps = r->pe;
			}
			r->pv = v;
		}
		if (b1 > r->pe) {
			rle_emit(r, r->ps, r->pv);
			r->ps = r->pe + 1;
			r->pe = b1;
			r->pv = v;
		}
		return;
	}
	if (r->have) {
		rle_emit(r, r->ps, r->pv);
		if (b > r->pe + 1)
			rle_emit(r, r->pe + 1, 0);
	} else if (b > 0) {
		rle_emit(r, 0, 0);
	}
	r->have = true;
	r->ps = b;
	r->pe = b1;
	r->pv = v;
}

/* Value V over [t0, t1) (clipped to the window). */
static void rle_span(struct rle *r, uint64_t t0, uint64_t t1, double v)
{
	struct pf *p = r->p;
	uint64_t b0, b1;

	if (t1 <= t0)
		t1 = t0 + 1;
	if (t1 <= p->from || t0 >= p->to)
		return;
	if (t0 < p->from)
		t0 = p->from;
	if (t1 > p->to)
		t1 = p->to;
	b0 = (t0 - p->from) / p->res;
	b1 = (t1 - 1 - p->from) / p->res;
	rle_put(r, b0, b1, v);
}

static void rle_end(struct rle *r)
{
	if (!r->have)
		return;
	rle_emit(r, r->ps, r->pv);
	rle_emit(r, r->pe + 1, 0);
}

/* First element with start >= T in an array sorted by start (generic over the stride). */
static size_t lower_bound(const void *base, size_t n, size_t stride, size_t off, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * stride + off, sizeof(v));
		if (v < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void iface_counters(struct pf *p, uint32_t pid, uint32_t tid, size_t i)
{
	const struct model *m = p->m;
	const struct model_iface *f = &m->ifaces[i];

	for (int d = FT_DIR_TX; d >= FT_DIR_RX; d--) {
		const struct model_dir *x = &f->dir[d];
		char name[96];
		struct rle r = { .p = p, .pid = pid, .tid = tid, .name = name,
				 .unit = "Mbit/s", .decimals = 3 };
		uint64_t lead = m->hdr.bin_ns;
		size_t k;

		if (!x->nbins)
			continue;
		snprintf(name, sizeof(name), "%s %s", f->label, d == FT_DIR_TX ? "tx" : "rx");
		k = lower_bound(x->bins, x->nbins, sizeof(*x->bins), offsetof(struct model_bin, start_ns),
				p->from > lead ? p->from - lead : 0);
		for (; k < x->nbins && x->bins[k].start_ns < p->to; k++)
			rle_span(&r, x->bins[k].start_ns, x->bins[k].start_ns + m->hdr.bin_ns,
				 model__bin_bps(m, x->bins[k].bytes) / 1e6);
		rle_end(&r);
	}
}

static void qdisc_counters(struct pf *p, uint32_t pid, uint32_t tid, size_t q)
{
	const struct model *m = p->m;
	const struct model_qdisc *qd = &m->qdiscs[q];
	char base[128], n1[160], n2[160], h[24];
	struct rle bl = { .p = p, .pid = pid, .tid = tid, .name = n1, .unit = "bytes",
			  .decimals = 0 };
	struct rle sj = { .p = p, .pid = pid, .tid = tid, .name = n2, .unit = "us",
			  .decimals = 3 };
	uint64_t lead = m->hdr.bin_ns;
	size_t k;

	if (!qd->nbins)
		return;
	if (qd->handle & 0xffff)
		snprintf(h, sizeof(h), "%x:%x", qd->handle >> 16, qd->handle & 0xffff);
	else
		snprintf(h, sizeof(h), "%x:", qd->handle >> 16);
	snprintf(base, sizeof(base), "%s %s %s", qd->iface < m->nifaces ? m->ifaces[qd->iface].label : "?",
		 qd->kind[0] ? qd->kind : "qdisc", h);
	snprintf(n1, sizeof(n1), "%s backlog", base);
	snprintf(n2, sizeof(n2), "%s sojourn max", base);
	k = lower_bound(qd->bins, qd->nbins, sizeof(*qd->bins), offsetof(struct model_qbin, start_ns),
			p->from > lead ? p->from - lead : 0);
	for (size_t j = k; j < qd->nbins && qd->bins[j].start_ns < p->to; j++)
		rle_span(&bl, qd->bins[j].start_ns, qd->bins[j].start_ns + m->hdr.bin_ns, (double)qd->bins[j].max_backlog);
	rle_end(&bl);
	for (size_t j = k; j < qd->nbins && qd->bins[j].start_ns < p->to; j++)
		rle_span(&sj, qd->bins[j].start_ns, qd->bins[j].start_ns + m->hdr.bin_ns,
			 (double)qd->bins[j].sojourn_max_ns / 1e3);
	rle_end(&sj);
}

static void series_counter(struct pf *p, uint32_t pid, uint32_t tid, size_t si)
{
	const struct model *m = p->m;
	const struct model_ctr_series *se = &m->ctr_series[si];
	char name[128];
	struct rle r = { .p = p, .pid = pid, .tid = tid, .name = name, .unit = "per s", .decimals = 1 };

	if (!se->npts)
		return;
	snprintf(name, sizeof(name), "%s %s", m->ctr_groups[se->group].label, se->name);
	for (size_t j = se->first_pt; j < se->first_pt + se->npts; j++) {
		const struct model_ctr_point *pt = &m->ctr_points[j];

		if (pt->end_ns <= p->from || pt->start_ns >= p->to || !pt->delta)
			continue;
		rle_span(&r, pt->start_ns, pt->end_ns, model__ctr_point_rate(m, pt));
	}
	rle_end(&r);
}

void pf_counters(struct pf *p, uint32_t h, uint32_t pid, uint32_t tid)
{
	const struct model *m = p->m;
	bool none = h == p->hosts.n;

	for (size_t i = 0; !none && i < m->nifaces; i++)
		if (p->iface_host[i] == h)
			iface_counters(p, pid, tid, i);
	for (size_t q = 0; !none && q < m->nqdiscs; q++)
		if (m->qdiscs[q].iface < m->nifaces && p->iface_host[m->qdiscs[q].iface] == h)
			qdisc_counters(p, pid, tid, q);
	for (size_t s = 0; s < m->nctr_series; s++) {
		uint32_t fi = m->ctr_groups[m->ctr_series[s].group].iface;

		if (none ? fi >= m->nifaces : fi < m->nifaces && p->iface_host[fi] == h)
			series_counter(p, pid, tid, s);
	}
}

/* ---- instants ---- */

enum { EV_RTX, EV_DROP, EV_CE, EV_SPIKE };

struct inst {
	uint64_t ts;
	uint32_t kind, ref;
	uint32_t aux;               /* EV_CE: the interface */
	uint64_t n;                 /* EV_CE: CE packets in the counter bucket */
};

static int cmp_inst(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->aux != y->aux)
		return x->aux < y->aux ? -1 : 1;
	return x->ref < y->ref ? -1 : x->ref > y->ref;
}

static bool in_window(const struct pf *p, uint64_t ts)
{
	return ts >= p->from && ts <= p->to;
}

uint32_t pf_host_of_netns(const struct pf *p, uint32_t netns)
{
	char buf[64];

	return (uint32_t)viz__host_index(&p->hosts, model__host_name(p->m, netns, buf, sizeof(buf)));
}

/* Instants of host H (hosts.n: those on no host); sorted. */
static int gather(struct pf *p, uint32_t h, struct inst **out, size_t *n)
{
	const struct model *m = p->m;
	struct inst *v = NULL;
	size_t cap = 0, k = 0;

#define PUSH(T, K, R, A) do { \
		if (grow_array((void **)&v, &cap, k + 1, sizeof(*v))) { free(v); return -ENOMEM; } \
		v[k].ts = (T); v[k].kind = (K); v[k].ref = (uint32_t)(R); v[k].aux = (uint32_t)(A); v[k].n = 0; k++; \
	} while (0)
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->nrtx || pf_host_of_netns(p, w->key.netns) != h)
			continue;
		for (size_t j = w->first_rtx; j < w->first_rtx + w->nrtx; j++)
			if (in_window(p, m->rtx_events[j].ts_ns))
				PUSH(m->rtx_events[j].ts_ns, EV_RTX, j, 0);
	}
	for (size_t j = 0; j < m->ndrop_events; j++) {
		const struct model_drop_ev *d = &m->drop_events[j];
		uint32_t dh = d->iface < m->nifaces ? p->iface_host[d->iface] : (uint32_t)p->hosts.n;

		if (dh == h && in_window(p, d->ts_ns))
			PUSH(d->ts_ns, EV_DROP, j, 0);
	}
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_dir *x = &m->ifaces[i].dir[FT_DIR_RX];

		if (p->iface_host[i] != h || !x->ce_pkts)
			continue;
		/* one instant per counter bucket (a bin in short windows) */
		for (size_t j = 0; j < x->nbins; j++) {
			uint64_t t = x->bins[j].start_ns, b;

			if (!x->bins[j].ce_pkts || !in_window(p, t))
				continue;
			b = p->res > m->hdr.bin_ns ? p->from + (t - p->from) / p->res * p->res : t;
			if (k && v[k - 1].kind == EV_CE && v[k - 1].aux == i && v[k - 1].ts == b) {
				v[k - 1].n += x->bins[j].ce_pkts;
				continue;
			}
			PUSH(b, EV_CE, j, i);
			v[k - 1].n = x->bins[j].ce_pkts;
		}
	}
	for (size_t j = 0; j < m->nctr_events; j++) {
		const struct model_ctr_event *e = &m->ctr_events[j];
		uint32_t gi = m->ctr_series[e->series].group, fi = m->ctr_groups[gi].iface;
		uint32_t eh = fi < m->nifaces ? p->iface_host[fi] : (uint32_t)p->hosts.n;

		if (eh == h && e->end_ns >= p->from && e->start_ns <= p->to)
			PUSH(e->start_ns > p->from ? e->start_ns : p->from, EV_SPIKE, j, 0);
	}
#undef PUSH
	if (k)
		qsort(v, k, sizeof(*v), cmp_inst);
	*out = v;
	*n = k;
	return 0;
}

static void emit_inst(struct pf *p, uint32_t pid, uint32_t tid, const struct inst *e, const char *scope)
{
	const struct model *m = p->m;
	char name[128], buf[160];

	switch (e->kind) {
	case EV_RTX: {
		const struct model_rtx *x = &m->rtx_events[e->ref];

		snprintf(name, sizeof(name), "retransmit %s", model__trigger_name(x->trigger));
		model__flow_str(&m->flows[x->flow].key, buf, sizeof(buf));
		break;
	}
	case EV_DROP: {
		const struct model_drop_ev *d = &m->drop_events[e->ref];
		const char *rn = model__drop_reason_name(m, d->reason);

		if (rn && rn[0])
			snprintf(name, sizeof(name), "drop %s", rn);
		else
			snprintf(name, sizeof(name), "drop reason %u", d->reason);
		snprintf(buf, sizeof(buf), "%s", d->iface < m->nifaces ? m->ifaces[d->iface].label : "no device");
		break;
	}
	case EV_CE: {
		snprintf(name, sizeof(name), "CE x%" PRIu64, e->n);
		snprintf(buf, sizeof(buf), "%s", m->ifaces[e->aux].label);
		break;
	}

	default: {
		const struct model_ctr_event *x = &m->ctr_events[e->ref];
		const struct model_ctr_series *se = &m->ctr_series[x->series];

		snprintf(name, sizeof(name), "spike %s", se->name);
		snprintf(buf, sizeof(buf), "%s", m->ctr_groups[se->group].label);
		break;
	}
	}
	pf_ev_begin(p, 'i', scope, pid, tid);
	pf_ts(p, "ts", e->ts);
	json_kv_string(&p->j, "cat", e->kind == EV_RTX ? "tcp" : e->kind == EV_DROP ? "drop" :
		       e->kind == EV_CE ? "ecn" : "counter");
	json_kv_string(&p->j, "name", name);
	json_kv_object_begin(&p->j, "args");
	json_kv_string(&p->j, e->kind == EV_RTX ? "flow" : e->kind == EV_SPIKE ? "group" : "iface", buf);
	if (e->kind == EV_RTX)
		json_kv_u64(&p->j, "segs", m->rtx_events[e->ref].segs);
	if (e->kind == EV_SPIKE) {
		const struct model_ctr_event *x = &m->ctr_events[e->ref];

		json_kv_u64(&p->j, "duration_ns", x->end_ns - x->start_ns);
		json_kv_u64(&p->j, "growth", x->delta);
		json_kv_double(&p->j, "peak_per_s", x->peak_rate, 1);
	}
	json_object_end(&p->j);
	json_object_end(&p->j);
}

int pf_instants(struct pf *p, uint32_t h, uint32_t pid, uint32_t tid, const char *scope)
{
	struct inst *ev;
	size_t nev;
	int err = gather(p, h, &ev, &nev);

	if (err)
		return err;
	for (size_t i = 0; i < nev; i++)
		emit_inst(p, pid, tid, &ev[i], scope);
	free(ev);
	return 0;
}
