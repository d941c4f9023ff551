/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML page's tracks (viz/html.h): every series of bins (throughput
 * per interface direction, queue per qdisc) and of counter rates becomes a
 * pyramid of levels, level k one cell per 2^k grid slots with max / min /
 * sum; the finest level kept (kmin) is chosen to fit a budget, and when it
 * is coarser than the bins the exact bins are kept in detail windows
 * around the slowest collectives (or the strongest bursts).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "viz/html.h"

/* ---- tracks: sparse series on a grid, turned into pyramids ---- */

enum trk_type {
	TRK_TP = 0,   /* throughput: bins of one interface direction */
	TRK_Q,        /* queue: bins of one qdisc */
	TRK_CTR,      /* counter: growth intervals of one counter series */
};

#define TRK_NOUT 4

struct trk {
	enum trk_type type;
	uint32_t ref;                /* iface, qdisc or counter series */
	uint32_t dir;
	uint64_t w;                  /* grid step, ns */
	uint64_t origin;             /* absolute time of grid index 0 */
	size_t n;                    /* samples */
	uint64_t cells[HTML_MAX_LEVEL + 1]; /* non-empty cells per level */
	unsigned ktop;               /* coarsest level emitted */
};

/* One level: cells with their slot count and outputs. */
struct level {
	size_t n;
	uint64_t *idx, *cnt;
	uint64_t *v[TRK_NOUT];
};

static unsigned trk_nout(const struct trk *t)
{
	return t->type == TRK_TP ? 4 : 3;
}

/* Aggregation of output J: 0 max, 1 min (0 unless every slot is present), 2 sum. */
static int trk_agg(const struct trk *t, unsigned j)
{
	static const int tp[4] = { 0, 1, 2, 2 }, q[3] = { 0, 0, 2 }, ctr[3] = { 0, 1, 2 };

	if (j >= trk_nout(t))
		return 2; /* an unused output: a sum of nothing */
	return t->type == TRK_TP ? tp[j] : t->type == TRK_Q ? q[j] : ctr[j];
}

static uint64_t sample_time(const struct model *m, const struct trk *t, size_t i)
{
	switch (t->type) {
	case TRK_TP:
		return m->ifaces[t->ref].dir[t->dir].bins[i].start_ns;
	case TRK_Q:
		return m->qdiscs[t->ref].bins[i].start_ns;
	default: {
		const struct model_ctr_series *s = &m->ctr_series[t->ref];

		return m->ctr_points[s->first_pt + i].end_ns;
	}
	}
}

static uint64_t sample_idx(const struct model *m, const struct trk *t, size_t i)
{
	uint64_t ts = sample_time(m, t, i);

	return ts > t->origin ? (ts - t->origin) / t->w : 0;
}

static uint64_t qdrops_delta(const struct model_qbin *b, size_t i)
{
	return i > 0 && b[i].drops > b[i - 1].drops ? b[i].drops - b[i - 1].drops : 0;
}

static uint64_t ctr_rate(const struct model_ctr_point *p)
{
	uint64_t d = p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 1;

	return dround((double)p->delta * 1e9 / (double)d);
}

/* Inputs of the pyramid of sample I (the outputs' sources). */
static void sample_in(const struct model *m, const struct trk *t, size_t i, uint64_t *v)
{
	switch (t->type) {
	case TRK_TP: {
		const struct model_bin *b = &m->ifaces[t->ref].dir[t->dir].bins[i];

		v[0] = v[1] = v[2] = b->bytes;
		v[3] = b->ce_pkts;
		break;
	}
	case TRK_Q: {
		const struct model_qbin *b = m->qdiscs[t->ref].bins;

		v[0] = b[i].max_backlog;
		v[1] = b[i].sojourn_max_ns;
		v[2] = qdrops_delta(b, i);
		v[3] = 0;
		break;
	}
	default: {
		const struct model_ctr_point *p = &m->ctr_points[m->ctr_series[t->ref].first_pt + i];

		v[0] = v[1] = ctr_rate(p);
		v[2] = p->delta;
		v[3] = 0;
		break;
	}
	}
}

static void trk_count(const struct model *m, struct trk *t, uint64_t dur)
{
	uint64_t last[HTML_MAX_LEVEL + 1];
	uint64_t slots = dur / t->w + 2;

	memset(last, 0, sizeof(last));
	memset(t->cells, 0, sizeof(t->cells));
	for (size_t i = 0; i < t->n; i++) {
		uint64_t idx = sample_idx(m, t, i);

		for (unsigned k = 0; k <= HTML_MAX_LEVEL; k++) {
			uint64_t c = idx >> k;

			if (t->cells[k] && last[k] == c)
				break; /* same cell here means the same cell above */
			last[k] = c;
			t->cells[k]++;
		}
	}
	t->ktop = 0;
	while (t->ktop < HTML_MAX_LEVEL && (slots >> t->ktop) > HTML_TOP_CELLS)
		t->ktop++;
}

/* Estimated raw bytes of level K of T (index + values, ~2.5 bytes a varint). */
static uint64_t level_cost(const struct trk *t, unsigned k)
{
	unsigned nv = k == 0 ? (t->type == TRK_Q ? 5 : 3) : trk_nout(t);

	if (t->type == TRK_CTR && k == 0)
		nv = 4;
	return t->cells[k] * (uint64_t)(2 + 5 * nv) / 2;
}

static uint64_t trk_cost(const struct trk *t, unsigned kmin)
{
	uint64_t s = 0;
	unsigned top = t->ktop > kmin ? t->ktop : kmin;

	for (unsigned k = kmin; k <= top && k <= HTML_MAX_LEVEL; k++)
		s += level_cost(t, k);
	return s;
}

/* The finest level such that all tracks fit BUDGET. */
static unsigned choose_kmin(const struct trk *ts, size_t n, uint64_t budget)
{
	for (unsigned k = 0; k < HTML_MAX_LEVEL; k++) {
		uint64_t s = 0;

		for (size_t i = 0; i < n; i++)
			s += trk_cost(&ts[i], k);
		if (s <= budget)
			return k;
	}
	return HTML_MAX_LEVEL;
}

static void level_free(struct level *l)
{
	free(l->idx);
	free(l->cnt);
	for (unsigned j = 0; j < TRK_NOUT; j++)
		free(l->v[j]);
	memset(l, 0, sizeof(*l));
}

static int level_alloc(struct level *l, size_t n)
{
	memset(l, 0, sizeof(*l));
	l->idx = calloc(n ? n : 1, sizeof(uint64_t));
	l->cnt = calloc(n ? n : 1, sizeof(uint64_t));
	for (unsigned j = 0; j < TRK_NOUT; j++)
		l->v[j] = calloc(n ? n : 1, sizeof(uint64_t));
	if (!l->idx || !l->cnt || !l->v[0] || !l->v[1] || !l->v[2] || !l->v[3]) {
		level_free(l);
		return -ENOMEM;
	}
	return 0;
}

static void agg(struct level *l, size_t c, const struct trk *t, const uint64_t *v, uint64_t cnt)
{
	for (unsigned j = 0; j < trk_nout(t); j++) {
		switch (trk_agg(t, j)) {
		case 0:
			if (v[j] > l->v[j][c])
				l->v[j][c] = v[j];
			break;
		case 1:
			if (v[j] < l->v[j][c])
				l->v[j][c] = v[j];
			break;
		default:
			l->v[j][c] += v[j];
			break;
		}
	}
	l->cnt[c] += cnt;
}

/* Level K straight from the samples. */
static int level_from_samples(const struct model *m, const struct trk *t, unsigned k, struct level *l)
{
	uint64_t v[TRK_NOUT], lastidx = 0;
	bool have = false;

	if (level_alloc(l, t->cells[k]))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t idx = sample_idx(m, t, i), c = idx >> k;

		sample_in(m, t, i, v);
		if (!l->n || l->idx[l->n - 1] != c) {
			if (l->n >= t->cells[k])
				break; /* cannot happen: counted the same way */
			l->idx[l->n] = c;
			for (unsigned j = 0; j < TRK_NOUT; j++)
				l->v[j][l->n] = trk_agg(t, j) == 1 ? UINT64_MAX : 0;
			l->n++;
			have = false;
		}
		/* slots, not samples: two counter points may share a slot */
		agg(l, l->n - 1, t, v, have && lastidx == idx ? 0 : 1);
		lastidx = idx;
		have = true;
	}
	return 0;
}

/* Level K+1 from level K (L). */
static int level_up(const struct trk *t, const struct level *l, struct level *u)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (i == 0 || (l->idx[i] >> 1) != (l->idx[i - 1] >> 1))
			n++;
	if (level_alloc(u, n))
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t v[TRK_NOUT];
		uint64_t c = l->idx[i] >> 1;

		if (!u->n || u->idx[u->n - 1] != c) {
			u->idx[u->n] = c;
			for (unsigned j = 0; j < TRK_NOUT; j++)
				u->v[j][u->n] = trk_agg(t, j) == 1 ? UINT64_MAX : 0;
			u->n++;
		}
		for (unsigned j = 0; j < TRK_NOUT; j++)
			v[j] = l->v[j][i];
		agg(u, u->n - 1, t, v, l->cnt[i]);
	}
	return 0;
}

/* Write a level (K >= 1): min is 0 in cells with a slot missing. */
static void put_level(struct out *o, const struct trk *t, const struct level *l, unsigned k)
{
	struct col ci = { 0 }, cv[TRK_NOUT];
	uint64_t full = k < 63 ? 1ull << k : UINT64_MAX;

	memset(cv, 0, sizeof(cv));
	for (size_t i = 0; i < l->n; i++) {
		html_col_d(&ci, (int64_t)l->idx[i]);
		for (unsigned j = 0; j < trk_nout(t); j++) {
			uint64_t v = l->v[j][i];

			if (trk_agg(t, j) == 1 && (l->cnt[i] < full || v == UINT64_MAX))
				v = 0;
			html_col_u(&cv[j], v);
		}
	}
	json_kv_object_begin(&o->j, NULL);
	json_kv_u64(&o->j, "k", k);
	json_kv_u64(&o->j, "n", l->n);
	html_out_col(o, "i", &ci);
	json_kv_array_begin(&o->j, "v");
	for (unsigned j = 0; j < trk_nout(t); j++)
		html_out_col(o, NULL, &cv[j]);
	json_array_end(&o->j);
	json_object_end(&o->j);
}

static bool in_windows(const struct windows *w, uint64_t ts, size_t *pos)
{
	while (*pos < w->n && w->to[*pos] <= ts)
		(*pos)++;
	return *pos < w->n && w->from[*pos] <= ts;
}

/* Exact samples (level 0), all of them or those inside W. */
static void put_exact(struct out *o, const struct model *m, const struct trk *t, const struct windows *w,
		      const char *k)
{
	struct col ci = { 0 }, c[5];
	size_t pos = 0, n = 0;

	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < t->n; i++) {
		if (w && !in_windows(w, sample_time(m, t, i), &pos))
			continue;
		n++;
		switch (t->type) {
		case TRK_TP: {
			const struct model_bin *b = &m->ifaces[t->ref].dir[t->dir].bins[i];

			html_col_d(&ci, (int64_t)sample_idx(m, t, i));
			html_col_u(&c[0], b->bytes);
			html_col_u(&c[1], b->pkts);
			html_col_u(&c[2], b->ce_pkts);
			break;
		}
		case TRK_Q: {
			const struct model_qbin *b = m->qdiscs[t->ref].bins;

			html_col_d(&ci, (int64_t)sample_idx(m, t, i));
			html_col_u(&c[0], b[i].max_backlog);
			html_col_u(&c[1], b[i].max_qlen);
			html_col_u(&c[2], b[i].sojourn_max_ns);
			html_col_u(&c[3], b[i].sojourn_cnt ? b[i].sojourn_sum_ns / b[i].sojourn_cnt : 0);
			html_col_u(&c[4], qdrops_delta(b, i));
			break;
		}
		default: {
			const struct model_ctr_point *p = &m->ctr_points[m->ctr_series[t->ref].first_pt + i];

			html_col_d(&ci, srel(m, p->start_ns));
			html_col_u(&c[0], p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0);
			html_col_u(&c[1], p->delta);
			html_col_u(&c[2], p->dflags);
			html_col_u(&c[3], ctr_rate(p));
			break;
		}
		}
	}
	json_kv_object_begin(&o->j, k);
	json_kv_u64(&o->j, "k", 0);
	json_kv_u64(&o->j, "n", n);
	html_out_col(o, t->type == TRK_CTR ? "s" : "i", &ci);
	json_kv_array_begin(&o->j, "v");
	for (unsigned j = 0; j < (t->type == TRK_Q ? 5u : t->type == TRK_CTR ? 4u : 3u); j++)
		html_out_col(o, NULL, &c[j]);
	json_array_end(&o->j);
	json_object_end(&o->j);
	for (unsigned j = 0; j < 5; j++)
		html_col_free(&c[j]);
}

/* The "levels" array (and "detail") of T from KMIN up. */
static int put_pyramid(struct out *o, const struct model *m, const struct trk *t, unsigned kmin,
		       const struct windows *w)
{
	struct level cur, nxt;
	unsigned top = t->ktop > kmin ? t->ktop : kmin;
	unsigned k0 = kmin ? kmin : 1;

	json_kv_u64(&o->j, "kmin", kmin);
	json_kv_u64(&o->j, "ktop", top);
	json_kv_array_begin(&o->j, "levels");
	if (kmin == 0)
		put_exact(o, m, t, NULL, NULL);
	if (top >= k0 && t->n) {
		if (level_from_samples(m, t, k0, &cur))
			return -ENOMEM;
		for (unsigned k = k0;; k++) {
			put_level(o, t, &cur, k);
			if (k >= top)
				break;
			if (level_up(t, &cur, &nxt)) {
				level_free(&cur);
				return -ENOMEM;
			}
			level_free(&cur);
			cur = nxt;
		}
		level_free(&cur);
	}
	json_array_end(&o->j);
	if (kmin > 0 && w && w->n)
		put_exact(o, m, t, w, "detail");
	return 0;
}

/* ---- the page's tracks, their finest level, the detail windows ---- */

static int add_trk(struct html *h, enum trk_type type, uint32_t ref, uint32_t dir, size_t n, uint64_t w,
		   uint64_t first_ts)
{
	struct trk *t;
	uint64_t base = h->m->start_ns < first_ts ? h->m->start_ns : first_ts;

	t = &h->trks[h->ntrks++];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->ref = ref;
	t->dir = dir;
	t->n = n;
	t->w = w ? w : 1;
	t->origin = base / t->w * t->w;
	trk_count(h->m, t, h->m->duration_ns + (h->m->start_ns - t->origin));
	return 0;
}

static bool ctr_series_shown(const struct model_ctr_series *s)
{
	return s->cls != FT_CLS_OTHER && s->npts > 0;
}

int html_build_tracks(struct html *h)
{
	const struct model *m = h->m;
	size_t max = m->nifaces * 2 + m->nqdiscs + m->nctr_series;
	size_t nctr = 0;
	uint64_t bin = m->hdr.bin_ns ? m->hdr.bin_ns : 1;

	h->trks = calloc(max ? max : 1, sizeof(*h->trks));
	if (!h->trks)
		return -ENOMEM;
	for (size_t i = 0; i < m->nifaces; i++)
		for (unsigned d = 0; d < 2; d++) {
			const struct model_dir *md = &m->ifaces[i].dir[d];

			if (md->nbins)
				add_trk(h, TRK_TP, (uint32_t)i, d, md->nbins, bin, md->bins[0].start_ns);
		}
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].nbins)
			add_trk(h, TRK_Q, (uint32_t)i, 0, m->qdiscs[i].nbins, bin, m->qdiscs[i].bins[0].start_ns);
	h->nbin_trks = h->ntrks;
	for (size_t i = 0; i < m->nctr_series && nctr < HTML_CTR_SERIES_MAX; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];
		const struct model_ctr_group *g = s->group < m->nctr_groups ? &m->ctr_groups[s->group] : NULL;

		if (!ctr_series_shown(s) || s->first_pt + s->npts > m->nctr_points)
			continue;
		add_trk(h, TRK_CTR, (uint32_t)i, 0, s->npts, g && g->period_ns ? g->period_ns : 100000000ull,
			m->ctr_points[s->first_pt].end_ns);
		nctr++;
	}
	h->detail_budget = HTML_DETAIL_RAW;
	h->kmin = choose_kmin(h->trks, h->nbin_trks, HTML_SERIES_RAW);
	h->kmin_ctr = choose_kmin(h->trks + h->nbin_trks, h->ntrks - h->nbin_trks, HTML_CTR_RAW);
	return 0;
}

void html_series_cost(struct html *h)
{
	h->series_cost = 0;
	for (size_t i = 0; i < h->ntrks; i++)
		h->series_cost += trk_cost(&h->trks[i], i < h->nbin_trks ? h->kmin : h->kmin_ctr);
}

/* Samples of T in [from, to) (T's samples are sorted by time). */
static size_t trk_count_in(const struct model *m, const struct trk *t, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = t->n, a, b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sample_time(m, t, mid) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sample_time(m, t, mid) < to)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo;
	return b - a;
}

static int cmp_win(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

struct burst_ref {
	double peak;
	size_t i;
};

static int cmp_burst_peak(const void *a, const void *b)
{
	const struct burst_ref *x = a, *y = b;

	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Detail windows: when the finest level kept is coarser than the bins,
 * keep the exact bins around the slowest collectives (those with a
 * verdict other than ok first), else around the strongest bursts.
 */
int html_build_windows(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	uint64_t (*cand)[2];
	size_t ncand = 0, ntake = 0;
	uint64_t cost = 0;

	free(h->win.from);
	free(h->win.to);
	memset(&h->win, 0, sizeof(h->win));
	h->detail_cost = 0;
	if (h->kmin == 0 && h->kmin_ctr == 0)
		return 0;
	cand = calloc(HTML_DETAIL_WINDOWS, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (int pass = 0; pass < 2 && c; pass++)
		for (size_t r = 0; r < c->nby_span && ncand < HTML_DETAIL_WINDOWS; r++) {
			const struct corr_instance *in = &c->instances[c->by_span[r]];
			uint64_t pad = in->span_ns / 10 + 1000000;

			if ((pass == 0) != (in->verdict != CORR_OK))
				continue;
			cand[ncand][0] = in->first_entry > pad ? in->first_entry - pad : 0;
			cand[ncand][1] = in->last_exit + pad;
			ncand++;
		}
	if (ncand == 0 && m->nbursts) {
		struct burst_ref *br = calloc(m->nbursts, sizeof(*br));

		if (!br) {
			free(cand);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->nbursts; i++) {
			br[i].peak = m->bursts[i].peak_bps;
			br[i].i = i;
		}
		qsort(br, m->nbursts, sizeof(*br), cmp_burst_peak);
		for (size_t i = 0; i < m->nbursts && ncand < HTML_DETAIL_WINDOWS; i++) {
			const struct model_burst *b = &m->bursts[br[i].i];
			uint64_t pad = b->duration_ns * 4 + 50 * m->hdr.bin_ns;

			cand[ncand][0] = b->start_ns > pad ? b->start_ns - pad : 0;
			cand[ncand][1] = b->start_ns + b->duration_ns + pad;
			ncand++;
		}
		free(br);
	}
	/* take candidates (in priority order) while the exact bins fit */
	for (size_t i = 0; i < ncand; i++) {
		uint64_t n = 0;

		for (size_t t = 0; t < h->ntrks; t++) {
			bool bins = t < h->nbin_trks;

			if ((bins ? h->kmin : h->kmin_ctr) == 0)
				continue;
			n += trk_count_in(m, &h->trks[t], cand[i][0], cand[i][1]) * 8;
		}
		if (cost + n > h->detail_budget)
			continue;
		cost += n;
		cand[ntake][0] = cand[i][0];
		cand[ntake][1] = cand[i][1];
		ntake++;
	}
	qsort(cand, ntake, sizeof(*cand), cmp_win);
	h->win.from = calloc(ntake ? ntake : 1, sizeof(uint64_t));
	h->win.to = calloc(ntake ? ntake : 1, sizeof(uint64_t));
	if (!h->win.from || !h->win.to) {
		free(cand);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ntake; i++) {
		if (h->win.n && cand[i][0] <= h->win.to[h->win.n - 1]) {
			if (cand[i][1] > h->win.to[h->win.n - 1])
				h->win.to[h->win.n - 1] = cand[i][1];
			continue;
		}
		h->win.from[h->win.n] = cand[i][0];
		h->win.to[h->win.n] = cand[i][1];
		h->win.n++;
	}
	h->detail_cost = cost;
	free(cand);
	return 0;
}

void html_put_tracks(struct html *h)
{
	const struct model *m = h->m;
	struct out *o = &h->o;

	json_kv_array_begin(&o->j, "tracks");
	for (size_t i = 0; i < h->ntrks && !o->oom; i++) {
		const struct trk *t = &h->trks[i];
		bool bins = i < h->nbin_trks;

		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "type", t->type == TRK_TP ? "tp" : t->type == TRK_Q ? "q" : "ctr");
		json_kv_u64(&o->j, "ref", t->ref);
		json_kv_u64(&o->j, "dir", t->dir);
		json_kv_u64(&o->j, "w", t->w);
		json_kv_i64(&o->j, "o", srel(m, t->origin));
		json_kv_u64(&o->j, "n", t->n);
		if (put_pyramid(o, m, t, bins ? h->kmin : h->kmin_ctr, &h->win))
			o->oom = true;
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
}
