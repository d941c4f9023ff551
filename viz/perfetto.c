// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Chrome Trace Event Format (JSON object form), opened by ui.perfetto.dev
 * and chrome://tracing.  Layout:
 *
 *   process per host (pid = 1 + host index, hosts sorted by name)
 *     thread per rank      steps, named phases, calls and their wait /
 *                          transfer sub-phases as complete events (X) where
 *                          they nest; intervals that overlap without nesting
 *                          (non-blocking calls) as async slices (b/e, cat
 *                          "rank-async", one id per extra lane)
 *     thread "events"      instants (i): retransmits, drops with reason, CE
 *                          marks, counter spikes
 *     counters (C)         per interface TX/RX Mbit/s, per qdisc backlog and
 *                          sojourn, per RDMA/NIC counter growth per second;
 *                          every C event carries pid and tid
 *   process "collectives"  one async slice per matched collective (verdict in
 *                          its name and args), global instants for lost events
 *
 * Flow arrows (flow_out / flow_in with bind_id, Perfetto's "v2" flows) link
 * the members of one collective across ranks in entry order.  Timestamps are
 * microseconds since the capture start with three decimals (exact ns).
 * Every track is written in time order; counter tracks are reduced to at
 * most PF_MAX_BUCKETS values per window (max per bucket) so an hour-long
 * capture stays loadable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "viz/common.h"

#define PF_MAX_BUCKETS 20000u
#define PF_TID_MUL 100000u          /* tid = pid * PF_TID_MUL + k: unique over the trace */
#define PF_TID_EVENTS 90000u
#define PF_TID_COUNTERS 90001u
#define PF_DETAIL_CALLS 100000u     /* more calls in the window: sub-phases go into the calls' args */

struct pf {
	struct json j;              /* one line per event (json_break) */
	const struct model *m;
	const struct corr *c;
	uint64_t from, to, res;
	struct viz_hosts hosts;
	uint32_t *rank_tid;         /* per rank */
	uint32_t *rank_pid;
	uint32_t *iface_host;       /* per interface: host index, hosts.n if none */
	uint8_t *flow_role;         /* per call: 0, 1 out, 2 in+out, 3 in */
	uint32_t coll_pid;
	bool subphases;             /* wait/transfer as slices (else in the call's args) */
	size_t ncalls;              /* calls in the window */
};

/* An event on a line of its own, left open: {"ph":PH[,"s":SCOPE],"pid":PID,"tid":TID */
static void ev_begin(struct pf *p, char ph, const char *scope, uint32_t pid, uint32_t tid)
{
	const char phs[2] = { ph, '\0' };

	json_break(&p->j);
	json_object_begin(&p->j);
	json_kv_string(&p->j, "ph", phs);
	if (scope)
		json_kv_string(&p->j, "s", scope);
	json_kv_u64(&p->j, "pid", pid);
	json_kv_u64(&p->j, "tid", tid);
}

/* A time as microseconds since the capture start, exactly (three decimals: ns). */
static void ts_field(struct pf *p, const char *key, uint64_t ts)
{
	json_kv_fixed(&p->j, key, model__rel_ns(p->m, ts), 3);
}

static void meta(struct pf *p, uint32_t pid, uint32_t tid, const char *what, const char *name, long sort)
{
	ev_begin(p, 'M', NULL, pid, tid);
	json_kv_string(&p->j, "name", what);
	json_kv_object_begin(&p->j, "args");
	if (name)
		json_kv_string(&p->j, "name", name);
	else
		json_kv_i64(&p->j, "sort_index", sort);
	json_object_end(&p->j);
	json_object_end(&p->j);
}

/* ---- rank threads ---- */

struct rank_emit {
	struct pf *p;
	uint32_t pid, tid;
	uint64_t id;                /* async id of the lane */
};

static void item_args(struct pf *p, const struct viz_item *it)
{
	const struct corr *c = p->c;
	struct json *j = &p->j;
	char buf[128];

	/* steps and named phases: the name says it all */
	if (it->kind == VIZ_STEP || (it->kind == VIZ_MARK && !c->spans[it->ref].open))
		return;
	json_kv_object_begin(j, "args");
	switch (it->kind) {
	case VIZ_MARK:
		json_kv_bool(j, "open", true);
		break;
	case VIZ_CALL: {
		const struct corr_call *k = &c->calls[it->ref];

		json_kv_u64(j, "bytes", k->bytes);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, k->comm);
		json_kv_string(j, "comm", buf);
		if (k->instance != CORR_NONE) {
			const struct corr_instance *in = &c->instances[k->instance];

			json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
			if (!p->subphases) {
				/* sub-phases left out (a long window): their split in numbers */
				uint64_t last = in->last_entry, w_end = last < k->end_ns ? last : k->end_ns;

				json_kv_u64(j, "wait_ns", w_end > k->start_ns ? w_end - k->start_ns : 0);
				json_kv_string(j, "wait_cause", viz__cause(c, k, VIZ_WAIT, buf, sizeof(buf)));
				json_kv_string(j, "transfer_cause", viz__cause(c, k, VIZ_XFER, buf, sizeof(buf)));
			}
		}
		if (k->flags & CORR_CALL_OPEN)
			json_kv_bool(j, "open", true);
		break;
	}
	default:
		json_kv_string(j, "cause", viz__cause(c, &c->calls[it->ref], it->kind, buf, sizeof(buf)));
		break;
	}
	json_object_end(j);
}

static const char *item_cat(const struct viz_item *it, const struct corr *c)
{
	switch (it->kind) {
	case VIZ_STEP: return "step";
	case VIZ_MARK: return "phase";
	case VIZ_CALL: return c->calls[it->ref].instance != CORR_NONE ? "collective" : "call";
	case VIZ_WAIT: return "wait";
	default: return "transfer";
	}
}

/* Slice name: collectives carry their sequence number ("allreduce #3"). */
static const char *item_title(const struct corr *c, const struct viz_item *it, char *buf, size_t len)
{
	if (it->kind == VIZ_CALL && c->calls[it->ref].instance != CORR_NONE)
		snprintf(buf, len, "%s #%" PRIu64, viz__call_op(c, &c->calls[it->ref]), c->calls[it->ref].seq);
	else
		viz__item_name(c, it, buf, len);
	return buf;
}

static void flow_fields(struct pf *p, const struct viz_item *it)
{
	uint8_t role;

	if (it->kind != VIZ_CALL || !p->flow_role || !(role = p->flow_role[it->ref]))
		return;
	json_kv_u64(&p->j, "bind_id", p->c->calls[it->ref].instance + 1);
	if (role >= 2)
		json_kv_bool(&p->j, "flow_in", true);
	if (role <= 2)
		json_kv_bool(&p->j, "flow_out", true);
}

static void emit_x(struct pf *p, uint32_t pid, uint32_t tid, const struct viz_item *it)
{
	char name[128];

	ev_begin(p, 'X', NULL, pid, tid);
	ts_field(p, "ts", it->start);
	json_kv_fixed(&p->j, "dur", (int64_t)(it->end - it->start), 3);
	json_kv_string(&p->j, "cat", item_cat(it, p->c));
	json_kv_string(&p->j, "name", item_title(p->c, it, name, sizeof(name)));
	flow_fields(p, it);
	item_args(p, it);
	json_object_end(&p->j);
}

/* The start of an async slice's begin or end event: its time, category, id and name. */
static void async_begin(struct pf *p, char ph, uint32_t pid, uint32_t tid, const struct viz_item *it,
			const char *cat, uint64_t id, const char *name)
{
	char ids[24];

	ev_begin(p, ph, NULL, pid, tid);
	ts_field(p, "ts", ph == 'b' ? it->start : it->end);
	json_kv_string(&p->j, "cat", cat);
	snprintf(ids, sizeof(ids), "0x%" PRIx64, id);
	json_kv_string(&p->j, "id", ids);
	json_kv_string(&p->j, "name", name);
}

static void async_ev(struct rank_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	char name[128];

	async_begin(p, ph, e->pid, e->tid, it, "rank-async", e->id, item_title(p->c, it, name, sizeof(name)));
	if (ph == 'b') {
		flow_fields(p, it);
		item_args(p, it);
	}
	json_object_end(&p->j);
}

static void async_open(void *arg, const struct viz_item *it)
{
	async_ev(arg, 'b', it);
}

static void async_close(void *arg, const struct viz_item *it)
{
	async_ev(arg, 'e', it);
}

static int emit_rank(struct pf *p, uint32_t r)
{
	struct viz_item *it;
	size_t n;
	int lanes, err = viz__rank_items(p->c, r, p->from, p->to, &it, &n);

	if (err)
		return err;
	lanes = viz__lanes(it, n);
	if (lanes < 0) {
		free(it);
		return lanes;
	}
	if (!p->subphases) {
		/* dropping leaves keeps every lane properly nested */
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (it[i].kind != VIZ_WAIT && it[i].kind != VIZ_XFER)
				it[k++] = it[i];
		n = k;
	}
	/* lane 0 nests on the thread, in order: complete events in pre-order */
	for (size_t i = 0; i < n; i++)
		if (it[i].lane == 0)
			emit_x(p, p->rank_pid[r], p->rank_tid[r], &it[i]);
	for (int l = 1; l < lanes; l++) {
		struct rank_emit e = { .p = p, .pid = p->rank_pid[r], .tid = p->rank_tid[r],
				       .id = (uint64_t)p->rank_tid[r] * 65536u + (uint64_t)l };

		viz__walk_lane(it, n, (uint32_t)l, async_open, async_close, &e);
	}
	free(it);
	return 0;
}

/* Flow roles: the visible members of each collective in entry order. */
static int cmp_call_entry(const void *a, const void *b, void *arg)
{
	const struct corr *c = arg;
	const struct corr_call *x = &c->calls[*(const uint32_t *)a], *y = &c->calls[*(const uint32_t *)b];

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int flow_roles(struct pf *p)
{
	const struct corr *c = p->c;
	uint32_t *tmp = NULL;
	size_t cap = 0;

	if (!c->ncalls)
		return 0;
	p->flow_role = calloc(c->ncalls, 1);
	if (!p->flow_role)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		size_t k = 0;

		if (!viz__visible(in->first_entry, in->last_exit, p->from, p->to))
			continue;
		if (grow_array((void **)&tmp, &cap, in->nmembers + 1, sizeof(*tmp))) {
			free(tmp);
			return -ENOMEM;
		}
		for (size_t j = 0; j < in->nmembers; j++) {
			uint32_t ci = c->members[in->first_member + j];

			if (viz__visible(c->calls[ci].start_ns, c->calls[ci].end_ns, p->from, p->to) &&
			    c->calls[ci].rank < c->nranks)
				tmp[k++] = ci;
		}
		if (k < 2)
			continue;
		qsort_r(tmp, k, sizeof(*tmp), cmp_call_entry, (void *)c);
		for (size_t j = 0; j < k; j++)
			p->flow_role[tmp[j]] = j == 0 ? 1 : j + 1 == k ? 3 : 2;
	}
	free(tmp);
	return 0;
}

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
	ev_begin(p, 'C', NULL, r->pid, r->tid);
	ts_field(p, "ts", t);
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

static void iface_counters(struct pf *p, uint32_t pid, size_t i)
{
	const struct model *m = p->m;
	const struct model_iface *f = &m->ifaces[i];

	for (int d = FT_DIR_TX; d >= FT_DIR_RX; d--) {
		const struct model_dir *x = &f->dir[d];
		char name[96];
		struct rle r = { .p = p, .pid = pid, .tid = pid * PF_TID_MUL + PF_TID_COUNTERS, .name = name,
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

static void qdisc_counters(struct pf *p, uint32_t pid, size_t q)
{
	const struct model *m = p->m;
	const struct model_qdisc *qd = &m->qdiscs[q];
	char base[128], n1[160], n2[160], h[24];
	struct rle bl = { .p = p, .pid = pid, .tid = pid * PF_TID_MUL + PF_TID_COUNTERS, .name = n1, .unit = "bytes",
			  .decimals = 0 };
	struct rle sj = { .p = p, .pid = pid, .tid = pid * PF_TID_MUL + PF_TID_COUNTERS, .name = n2, .unit = "us",
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

static uint32_t host_of_netns(const struct pf *p, uint32_t netns)
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

		if (!w->nrtx || host_of_netns(p, w->key.netns) != h)
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
	ev_begin(p, 'i', scope, pid, tid);
	ts_field(p, "ts", e->ts);
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

/* ---- collectives ---- */

static int cmp_vitem(const void *a, const void *b)
{
	const struct viz_item *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->ref < y->ref ? -1 : x->ref > y->ref;
}

struct coll_emit {
	struct pf *p;
	uint32_t tid;
	uint64_t id;
};

static void coll_ev(struct coll_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	struct json *j = &p->j;
	const struct corr *c = p->c;
	const struct corr_instance *in = &c->instances[it->ref];
	char name[96];

	snprintf(name, sizeof(name), "%s #%" PRIu64 " %s", corr__op_name(in->op), in->seq,
		 corr__verdict_name(in->verdict));
	async_begin(p, ph, p->coll_pid, e->tid, it, "collective", e->id, name);
	if (ph == 'b') {
		json_kv_object_begin(j, "args");
		json_kv_string(j, "op", corr__op_name(in->op));
		json_kv_u64(j, "seq", in->seq);
		json_kv_u64(j, "size_bytes", in->size_bytes);
		json_kv_u64(j, "ranks", in->nranks);
		json_kv_u64(j, "span_ns", in->span_ns);
		json_kv_u64(j, "skew_ns", in->skew_ns);
		json_kv_bool(j, "slow", in->slow);
		json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
		if (in->straggler != CORR_NONE) {
			char r[96];

			json_kv_string(j, "straggler", viz__rank_label(c, in->straggler, r, sizeof(r)));
		} else {
			json_key(j, "straggler");
			json_null(j);
		}
		if (in->verdict != CORR_OK || in->slow) {
			char desc[1024];

			json_kv_string(j, "summary", corr__describe(c, it->ref, desc, sizeof(desc)));
		}
		json_object_end(j);
	}
	json_object_end(j);
}

static void coll_open(void *arg, const struct viz_item *it)
{
	coll_ev(arg, 'b', it);
}

static void coll_close(void *arg, const struct viz_item *it)
{
	coll_ev(arg, 'e', it);
}

static int emit_collectives(struct pf *p)
{
	const struct corr *c = p->c;
	struct viz_item *it = NULL;
	size_t n = 0, cap = 0;
	uint32_t tid = p->coll_pid * PF_TID_MUL + 1;
	int lanes;

	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		if (!viz__visible(in->first_entry, in->last_exit, p->from, p->to))
			continue;
		if (grow_array((void **)&it, &cap, n + 1, sizeof(*it))) {
			free(it);
			return -ENOMEM;
		}
		memset(&it[n], 0, sizeof(it[n]));
		it[n].start = in->first_entry > p->from ? in->first_entry : p->from;
		it[n].end = in->last_exit < p->to ? in->last_exit : p->to;
		if (it[n].end < it[n].start)
			it[n].end = it[n].start;
		it[n].kind = VIZ_CALL;
		it[n].ref = (uint32_t)i;
		it[n].parent = UINT32_MAX;
		n++;
	}
	if (!n)
		return 0;
	qsort(it, n, sizeof(*it), cmp_vitem);
	lanes = viz__lanes(it, n);
	for (int l = 0; l < lanes; l++) {
		struct coll_emit e = { .p = p, .tid = tid, .id = (uint64_t)tid * 65536u + (uint64_t)l };

		viz__walk_lane(it, n, (uint32_t)l, coll_open, coll_close, &e);
	}
	free(it);
	return lanes < 0 ? lanes : 0;
}

/* ---- lost-event gaps: async slices (gaps of several CPUs may overlap) ---- */

struct gap_emit {
	struct pf *p;
	uint32_t tid;
	uint64_t id;
};

static void gap_ev(struct gap_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	const struct model_lost_ev *g = &p->m->lost_evs[it->ref];
	char name[64];

	snprintf(name, sizeof(name), "events lost (%s, cpu %u)", model__source_name(g->source), g->cpu);
	async_begin(p, ph, p->coll_pid, e->tid, it, "lost", e->id, name);
	if (ph == 'b') {
		json_kv_object_begin(&p->j, "args");
		json_kv_u64(&p->j, "lost", g->lost);
		json_kv_string(&p->j, "note", "ring buffer full: data missing in this interval, counts are lower bounds");
		json_object_end(&p->j);
	}
	json_object_end(&p->j);
}

static void gap_open(void *arg, const struct viz_item *it)
{
	gap_ev(arg, 'b', it);
}

static void gap_close(void *arg, const struct viz_item *it)
{
	gap_ev(arg, 'e', it);
}

static int emit_lost(struct pf *p)
{
	const struct model *m = p->m;
	struct viz_item *it = NULL;
	size_t n = 0, cap = 0;
	uint32_t tid = p->coll_pid * PF_TID_MUL + 2;
	int lanes;

	for (size_t i = 0; i < m->nlost_evs; i++) {
		const struct model_lost_ev *g = &m->lost_evs[i];

		if (!viz__visible(g->from_ns, g->ts_ns, p->from, p->to))
			continue;
		if (grow_array((void **)&it, &cap, n + 1, sizeof(*it))) {
			free(it);
			return -ENOMEM;
		}
		memset(&it[n], 0, sizeof(it[n]));
		it[n].start = g->from_ns > p->from ? g->from_ns : p->from;
		it[n].end = g->ts_ns < p->to ? g->ts_ns : p->to;
		if (it[n].end < it[n].start)
			it[n].end = it[n].start;
		it[n].ref = (uint32_t)i;
		it[n].parent = UINT32_MAX;
		n++;
	}
	if (!n)
		return 0;
	meta(p, p->coll_pid, tid, "thread_name", "lost events", 0);
	qsort(it, n, sizeof(*it), cmp_vitem);
	lanes = viz__lanes(it, n);
	for (int l = 0; l < lanes; l++) {
		struct gap_emit e = { .p = p, .tid = tid, .id = (uint64_t)tid * 65536u + (uint64_t)l };

		viz__walk_lane(it, n, (uint32_t)l, gap_open, gap_close, &e);
	}
	free(it);
	return lanes < 0 ? lanes : 0;
}

/* ---- the document ---- */

static int setup(struct pf *p, const struct viz_ctx *v)
{
	const struct model *m = p->m;
	const struct corr *c = p->c;
	size_t *per_host;
	int err = viz__hosts(v, &p->hosts);

	if (err)
		return err;
	p->coll_pid = (uint32_t)p->hosts.n + 1;
	p->iface_host = calloc(m->nifaces ? m->nifaces : 1, sizeof(*p->iface_host));
	p->rank_tid = calloc(c && c->nranks ? c->nranks : 1, sizeof(*p->rank_tid));
	p->rank_pid = calloc(c && c->nranks ? c->nranks : 1, sizeof(*p->rank_pid));
	per_host = calloc(p->hosts.n + 1, sizeof(*per_host));
	if (!p->iface_host || !p->rank_tid || !p->rank_pid || !per_host) {
		free(per_host);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nifaces; i++)
		p->iface_host[i] = host_of_netns(p, m->ifaces[i].netns);
	for (size_t r = 0; c && r < c->nranks; r++) {
		size_t h = viz__host_index(&p->hosts, c->ranks[r].host);

		p->rank_pid[r] = (uint32_t)h + 1;
		p->rank_tid[r] = p->rank_pid[r] * PF_TID_MUL + 1 + (uint32_t)per_host[h]++;
	}
	free(per_host);
	for (size_t i = 0; c && i < c->ncalls; i++)
		p->ncalls += viz__visible(c->calls[i].start_ns, c->calls[i].end_ns, p->from, p->to);
	p->subphases = p->ncalls <= PF_DETAIL_CALLS;
	return c ? flow_roles(p) : 0;
}

static void cleanup(struct pf *p)
{
	viz__hosts_free(&p->hosts);
	free(p->iface_host);
	free(p->rank_tid);
	free(p->rank_pid);
	free(p->flow_role);
}

static int emit_host(struct pf *p, uint32_t h)
{
	const struct model *m = p->m;
	const struct corr *c = p->c;
	uint32_t pid = h + 1;
	struct inst *ev;
	size_t nev;
	int err;

	meta(p, pid, pid * PF_TID_MUL + PF_TID_EVENTS, "process_name", p->hosts.name[h], 0);
	meta(p, pid, pid * PF_TID_MUL + PF_TID_EVENTS, "process_sort_index", NULL, (long)pid);
	for (size_t r = 0; c && r < c->nranks; r++) {
		char label[128], pidn[32];

		if (p->rank_pid[r] != pid)
			continue;
		viz__rank_label(c, (uint32_t)r, label, sizeof(label));
		snprintf(pidn, sizeof(pidn), " pid %u", c->ranks[r].pid);
		strncat(label, pidn, sizeof(label) - strlen(label) - 1);
		meta(p, pid, p->rank_tid[r], "thread_name", label, 0);
		meta(p, pid, p->rank_tid[r], "thread_sort_index", NULL, (long)(p->rank_tid[r] % PF_TID_MUL));
	}
	meta(p, pid, pid * PF_TID_MUL + PF_TID_EVENTS, "thread_name", "network events", 0);
	meta(p, pid, pid * PF_TID_MUL + PF_TID_EVENTS, "thread_sort_index", NULL, (long)PF_TID_EVENTS);
	meta(p, pid, pid * PF_TID_MUL + PF_TID_COUNTERS, "thread_name", "fabric counters", 0);
	meta(p, pid, pid * PF_TID_MUL + PF_TID_COUNTERS, "thread_sort_index", NULL, (long)PF_TID_COUNTERS);
	for (size_t r = 0; c && r < c->nranks; r++)
		if (p->rank_pid[r] == pid && (err = emit_rank(p, (uint32_t)r)))
			return err;
	err = gather(p, h, &ev, &nev);
	if (err)
		return err;
	for (size_t i = 0; i < nev; i++)
		emit_inst(p, pid, pid * PF_TID_MUL + PF_TID_EVENTS, &ev[i], "t");
	free(ev);
	for (size_t i = 0; i < m->nifaces; i++)
		if (p->iface_host[i] == h)
			iface_counters(p, pid, i);
	for (size_t q = 0; q < m->nqdiscs; q++)
		if (m->qdiscs[q].iface < m->nifaces && p->iface_host[m->qdiscs[q].iface] == h)
			qdisc_counters(p, pid, q);
	for (size_t s = 0; s < m->nctr_series; s++) {
		uint32_t fi = m->ctr_groups[m->ctr_series[s].group].iface;

		if (fi < m->nifaces && p->iface_host[fi] == h)
			series_counter(p, pid, pid * PF_TID_MUL + PF_TID_COUNTERS, s);
	}
	return 0;
}

int viz__perfetto(const struct viz_ctx *v, FILE *f)
{
	struct pf p = { 0 };
	struct json *j = &p.j;
	char a[32], b[32], text[256];
	struct inst *ev = NULL;
	size_t nev = 0;
	uint64_t span;
	uint32_t ctid;
	int err;

	if (!v || !v->m || !f)
		return -EINVAL;
	json_init(j, f, false);
	p.m = v->m;
	p.c = v->c;
	viz__window(v, false, &p.from, &p.to);
	span = p.to - p.from;
	p.res = p.m->hdr.bin_ns ? p.m->hdr.bin_ns : 1;
	if (span / p.res > PF_MAX_BUCKETS)
		p.res *= (span / p.res + PF_MAX_BUCKETS - 1) / PF_MAX_BUCKETS;
	err = setup(&p, v);
	if (err)
		goto out;
	ctid = p.coll_pid * PF_TID_MUL + 1;
	json_object_begin(j);
	json_kv_string(j, "displayTimeUnit", "ns");
	json_kv_object_begin(j, "otherData");
	json_kv_string(j, "generator", "fabtrace " FT_VERSION);
	json_kv_string(j, "host", p.m->hdr.hostname);
	snprintf(text, sizeof(text), "+%s..+%s", viz__secs(p.m, p.from, a, sizeof(a)), viz__secs(p.m, p.to, b, sizeof(b)));
	json_kv_string(j, "window_s", text);
	json_kv_u64(j, "counter_resolution_ns", p.res);
	json_kv_u64(j, "lost_events", p.m->lost_total);
	if (!p.subphases) {
		snprintf(text, sizeof(text), "%zu calls in the window: wait/transfer sub-phases are in the calls' args "
			 "(at most %u calls get them as slices; narrow the window with --from/--to)", p.ncalls,
			 PF_DETAIL_CALLS);
		json_kv_string(j, "note", text);
	}
	json_object_end(j);
	json_break(j);
	json_kv_array_begin(j, "traceEvents");
	for (uint32_t h = 0; h < p.hosts.n && !err; h++)
		err = emit_host(&p, h);
	if (err)
		goto out;
	meta(&p, p.coll_pid, ctid, "process_name", "collectives", 0);
	meta(&p, p.coll_pid, ctid, "process_sort_index", NULL, (long)p.coll_pid);
	meta(&p, p.coll_pid, ctid, "thread_name", "matched collectives", 0);
	if (p.c && (err = emit_collectives(&p)))
		goto out;
	err = emit_lost(&p);
	if (err)
		goto out;
	/* events on no host (drops without a device, node-wide counters) */
	err = gather(&p, (uint32_t)p.hosts.n, &ev, &nev);
	if (err)
		goto out;
	for (size_t i = 0; i < nev; i++)
		emit_inst(&p, p.coll_pid, ctid, &ev[i], "g");
	free(ev);
	for (size_t s = 0; s < p.m->nctr_series; s++) {
		uint32_t fi = p.m->ctr_groups[p.m->ctr_series[s].group].iface;

		if (fi >= p.m->nifaces)
			series_counter(&p, p.coll_pid, ctid, s);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
	json_finish(j);
	err = fflush(f) || ferror(f) ? -EIO : 0;
out:
	cleanup(&p);
	return err;
}
