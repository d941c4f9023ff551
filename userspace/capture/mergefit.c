// SPDX-License-Identifier: GPL-2.0-or-later
/* Clock arithmetic of `fabtrace merge` (userspace/capture/mergefit.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/mergefit.h"

/* Normalised correlation of x[core] with y[core + lag] (both mean-removed). */
static double ncc(const float *x, const float *y, size_t n, size_t pad, int64_t lag, double mx, double my,
		  double nx, double ny)
{
	double s = 0;

	if (nx <= 0 || ny <= 0)
		return 0;
	for (size_t t = pad; t + pad < n; t++) {
		int64_t u = (int64_t)t + lag;

		if (u < 0 || (size_t)u >= n)
			continue;
		s += ((double)x[t] - mx) * ((double)y[u] - my);
	}
	return s / (nx * ny);
}

static void stats(const float *x, size_t n, size_t lo, size_t hi, double *mean, double *norm)
{
	double s = 0, q = 0;

	for (size_t t = lo; t < hi && t < n; t++)
		s += x[t];
	*mean = hi > lo ? s / (double)(hi - lo) : 0;
	for (size_t t = lo; t < hi && t < n; t++)
		q += ((double)x[t] - *mean) * ((double)x[t] - *mean);
	*norm = sqrt(q);
}

struct dir {
	const float *x, *y;
	double mx, my, nx, ny;
};

static void dir_init(struct dir *d, const float *x, const float *y, size_t n, size_t pad)
{
	double dummy;

	d->x = x;
	d->y = y;
	stats(x, n, pad, n - pad, &d->mx, &d->nx);
	stats(y, n, 0, n, &d->my, &dummy);
	/* the y side's norm over the part a lag can see: its whole length bounds
	 * it; use the core's norm so scores compare across lags */
	stats(y, n, pad, n - pad, &dummy, &d->ny);
	d->my = dummy;
}

static double dcorr(const struct dir *d, size_t n, size_t pad, int64_t lag)
{
	return ncc(d->x, d->y, n, pad, lag, d->mx, d->my, d->nx, d->ny);
}

/* Sum of x over groups of f (coarse search). */
static float *down(const float *x, size_t n, size_t f, size_t *on)
{
	size_t m = n / f;
	float *o = calloc(m ? m : 1, sizeof(*o));

	if (!o)
		return NULL;
	for (size_t i = 0; i < m * f; i++)
		o[i / f] += x[i];
	*on = m;
	return o;
}

/*
 * Best e in [lo, hi] for max_{|d|<=D} C_AB(e + d) + max_{|d|<=D} C_BA(-e + d):
 * each direction may take up to D bins of delay (wire, queues, binning), so
 * the two peaks need not sit at exactly e and -e.  Returns the score; *second
 * is the best score more than 2D + 2 away (ambiguity).
 */
static double best_joint(const struct dir *ab, const struct dir *ba, size_t n, size_t pad, int64_t lo, int64_t hi,
			 int64_t D, int64_t *best_e, double *second)
{
	size_t w = (size_t)(hi - lo + 2 * D + 1);
	double *cab = malloc(w * sizeof(double)), *cba = malloc(w * sizeof(double)), best = -2;

	*second = -2;
	if (!cab || !cba) {
		free(cab);
		free(cba);
		return -2;
	}
	for (size_t i = 0; i < w; i++) {
		cab[i] = dcorr(ab, n, pad, lo - D + (int64_t)i);   /* lag lo - D + i */
		cba[i] = dcorr(ba, n, pad, -hi - D + (int64_t)i);  /* lag -hi - D + i */
	}
	for (int64_t e = lo; e <= hi; e++) {
		double mab = -2, mba = -2;

		for (int64_t d = -D; d <= D; d++) {
			double x = cab[e + d - (lo - D)], y = cba[-e + d - (-hi - D)];

			mab = x > mab ? x : mab;
			mba = y > mba ? y : mba;
		}
		double sc = (mab + mba) / 2;

		if (sc > best) {
			if (llabs(e - *best_e) > 2 * D + 2 && best > *second)
				*second = best;
			best = sc;
			*best_e = e;
		} else if (sc > *second && llabs(e - *best_e) > 2 * D + 2) {
			*second = sc;
		}
	}
	free(cab);
	free(cba);
	return best;
}

#define MF_DELAY_BINS 10 /* the most delay one direction may add at full resolution */

struct mf_est mergefit__pair(const struct mf_series *a, const struct mf_series *b, int64_t lo, int64_t hi)
{
	struct mf_est r = { 0 };
	const size_t n = a->n, pad = a->pad;
	struct dir ab, ba;
	int64_t best_e = 0, f = 1, D = MF_DELAY_BINS;
	double best, second = -2;

	if (b->n != n || b->pad != pad || n <= 2 * pad || lo > hi)
		return r;
	if (lo < -(int64_t)pad + D)
		lo = -(int64_t)pad + D;
	if (hi > (int64_t)pad - D)
		hi = (int64_t)pad - D;
	if (lo > hi)
		return r;
	/* coarse pass on bins grouped by f when the range is wide */
	if (hi - lo > 400)
		f = 10;
	if (f > 1) {
		size_t cn, cpad = pad / (size_t)f, t;
		float *atx = down(a->tx, n, (size_t)f, &cn), *arx = down(a->rx, n, (size_t)f, &t),
		      *btx = down(b->tx, n, (size_t)f, &t), *brx = down(b->rx, n, (size_t)f, &t);
		double sc = -2;

		if (atx && arx && btx && brx) {
			dir_init(&ab, atx, brx, cn, cpad);
			dir_init(&ba, btx, arx, cn, cpad);
			sc = best_joint(&ab, &ba, cn, cpad, lo / f + 1, hi / f - 1, 1, &best_e, &second);
		}
		free(atx);
		free(arx);
		free(btx);
		free(brx);
		if (sc < -1)
			return r;
		lo = best_e * f - 2 * f > lo ? best_e * f - 2 * f : lo;
		hi = best_e * f + 2 * f < hi ? best_e * f + 2 * f : hi;
	}
	dir_init(&ab, a->tx, b->rx, n, pad);
	dir_init(&ba, b->tx, a->rx, n, pad);
	double fine_second;

	best = best_joint(&ab, &ba, n, pad, lo, hi, D, &best_e, &fine_second);
	if (f == 1)
		second = fine_second;
	/* each direction's own peak near the joint one: the NTP pair */
	int64_t lab = best_e, lba = -best_e;
	double sab = -2, sba = -2;

	for (int64_t d = -D; d <= D; d++) {
		double x = dcorr(&ab, n, pad, best_e + d), y = dcorr(&ba, n, pad, -best_e + d);

		if (x > sab) {
			sab = x;
			lab = best_e + d;
		}
		if (y > sba) {
			sba = y;
			lba = -best_e + d;
		}
	}
	r.score = best;
	r.second = second;
	r.e_bins2 = lab - lba;
	r.rtt_bins = lab + lba;
	r.valid = best >= 0.15 && sab > 0.1 && sba > 0.1 && (second < 0 || second < 0.9 * best);
	return r;
}

static bool agree(const double *t, const double *e, const double *sigma, size_t j, size_t k)
{
	return fabs(e[j] - e[k]) <= sigma[j] + sigma[k] + MF_MAX_DRIFT * fabs(t[j] - t[k]);
}

size_t mergefit__consensus(const double *t, const double *e, const double *sigma, const double *margin, size_t n,
			   bool *keep)
{
	size_t best = 0, kept = 0;
	double best_sum = -1;

	for (size_t k = 0; k < n; k++) {
		double sum = 0;

		for (size_t j = 0; j < n; j++)
			if (agree(t, e, sigma, j, k))
				sum += margin[j];
		if (sum > best_sum) {
			best_sum = sum;
			best = k;
		}
	}
	for (size_t j = 0; j < n; j++) {
		keep[j] = agree(t, e, sigma, j, best);
		kept += keep[j];
	}
	return kept;
}

int mergefit__line(const double *t, const double *e, const double *sigma, size_t n, double tref,
		   double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double w = 1.0 / (sigma[i] > 0 ? sigma[i] * sigma[i] : 1), x = t[i] - tref;

		sw += w;
		sx += w * x;
		sy += w * e[i];
		sxx += w * x * x;
		sxy += w * x * e[i];
	}
	double det = sw * sxx - sx * sx;

	if (n < 2 || fabs(det) < 1e-9 * sw * (sxx > 0 ? sxx : 1)) {
		*b = 0;
		*a = sy / sw;
		return 0;
	}
	*b = (sw * sxy - sx * sy) / det;
	*a = (sy - *b * sx) / sw;
	return 0;
}

void mergefit__chain(size_t n, const double *w, int *prev, double *dist)
{
	bool *done = calloc(n ? n : 1, sizeof(*done));

	for (size_t i = 0; i < n; i++) {
		prev[i] = -1;
		dist[i] = -1;
	}
	if (!n || !done) {
		free(done);
		return;
	}
	dist[0] = 0;
	for (;;) {
		int u = -1;

		for (size_t i = 0; i < n; i++)
			if (!done[i] && dist[i] >= 0 && (u < 0 || dist[i] < dist[u]))
				u = (int)i;
		if (u < 0)
			break;
		done[u] = true;
		for (size_t v = 0; v < n; v++) {
			double c = w[(size_t)u * n + v];

			if (c < 0 || done[v])
				continue;
			if (dist[v] < 0 || dist[u] + c < dist[v]) {
				dist[v] = dist[u] + c;
				prev[v] = u;
			}
		}
	}
	free(done);
}

/* ---- loops of pairs ---- */

/* Offset of V against U along edge X (which joins them). */
static double along(const struct mf_edge *x, int u)
{
	return x->a == u ? x->e : -x->e;
}

/* The chain's tree over the usable edges: PREV, DIST (mergefit__chain), VIA
 * (the edge to each host's PREV, -1 none) and OFF (each host's offset
 * against host 0 along its chain).  W and IDX are n x n scratch: the least
 * uncertain edge between two hosts, and which it is. */
static void tree(size_t n, const struct mf_edge *edges, size_t ne, double *w, long *idx, int *prev,
		 double *dist, long *via, double *off)
{
	for (size_t i = 0; i < n * n; i++) {
		w[i] = -1;
		idx[i] = -1;
	}
	for (size_t k = 0; k < ne; k++) {
		const struct mf_edge *x = &edges[k];
		size_t ab = (size_t)x->a * n + (size_t)x->b, ba = (size_t)x->b * n + (size_t)x->a;

		if (x->unc < 0 || x->a == x->b || (size_t)x->a >= n || (size_t)x->b >= n)
			continue;
		if (w[ab] < 0 || x->unc < w[ab]) {
			w[ab] = w[ba] = x->unc;
			idx[ab] = idx[ba] = (long)k;
		}
	}
	mergefit__chain(n, w, prev, dist);
	for (size_t j = 0; j < n; j++) {
		via[j] = prev[j] >= 0 ? idx[(size_t)prev[j] * n + j] : -1;
		off[j] = j ? NAN : 0;
	}
	/* parents first: a chain is at most n long */
	for (size_t round = 0; round < n; round++)
		for (size_t j = 1; j < n; j++)
			if (via[j] >= 0 && isnan(off[j]) && !isnan(off[prev[j]]))
				off[j] = off[prev[j]] + along(&edges[via[j]], prev[j]);
}

/* Where the chains of A and B meet (their last common host). */
static int meet(size_t n, const int *prev, bool *mark, int a, int b)
{
	memset(mark, 0, n * sizeof(*mark));
	for (int v = a; v >= 0; v = prev[v])
		mark[v] = true;
	for (int v = b; v >= 0; v = prev[v])
		if (mark[v])
			return v;
	return 0;
}

/* The least clear edge on the loop of edge K (through A's and B's chains to L). */
static long least_clear(const struct mf_edge *edges, const int *prev, const long *via, long k, int l)
{
	long pick = k;
	const int ends[2] = { edges[k].a, edges[k].b };

	for (int s = 0; s < 2; s++)
		for (int v = ends[s]; v != l && v >= 0 && via[v] >= 0; v = prev[v]) {
			const struct mf_edge *x = &edges[via[v]], *p = &edges[pick];

			if (x->margin < p->margin || (x->margin == p->margin && x->unc > p->unc))
				pick = via[v];
		}
	return pick;
}

size_t mergefit__loops(size_t n, struct mf_edge *edges, size_t ne)
{
	double *w = calloc(n ? n * n : 1, sizeof(*w)), *dist = malloc((n ? n : 1) * sizeof(*dist));
	double *off = malloc((n ? n : 1) * sizeof(*off));
	long *idx = malloc((n ? n * n : 1) * sizeof(*idx));
	int *prev = malloc((n ? n : 1) * sizeof(*prev));
	long *via = malloc((n ? n : 1) * sizeof(*via));
	bool *mark = malloc((n ? n : 1) * sizeof(*mark));
	size_t dropped = 0;

	for (size_t k = 0; k < ne; k++)
		edges[k].dropped_by = 0;
	if (!w || !idx || !dist || !off || !prev || !via || !mark || !n)
		goto out;
	for (;;) {
		long worst = -1;
		double worst_ratio = 1, worst_res = 0;
		int worst_meet = 0;

		tree(n, edges, ne, w, idx, prev, dist, via, off);
		for (size_t k = 0; k < ne; k++) {
			const struct mf_edge *x = &edges[k];
			int l;

			if (x->unc < 0 || x->a == x->b || (size_t)x->a >= n || (size_t)x->b >= n)
				continue;
			if (via[x->b] == (long)k || via[x->a] == (long)k || isnan(off[x->a]) || isnan(off[x->b]))
				continue; /* on the chain itself, or cut off */
			l = meet(n, prev, mark, x->a, x->b);
			double res = fabs(off[x->b] - off[x->a] - x->e);
			double tol = x->unc + dist[x->a] + dist[x->b] - 2 * dist[l];
			double ratio = tol > 0 ? res / tol : res > 0 ? INFINITY : 0;

			if (ratio > worst_ratio) {
				worst = (long)k;
				worst_ratio = ratio;
				worst_res = res;
				worst_meet = l;
			}
		}
		if (worst < 0)
			break;
		long pick = least_clear(edges, prev, via, worst, worst_meet);

		edges[pick].unc = -1;
		edges[pick].dropped_by = worst_res;
		dropped++;
	}
out:
	free(w);
	free(idx);
	free(dist);
	free(off);
	free(prev);
	free(via);
	free(mark);
	return dropped;
}

/* ---- where to match traffic ---- */

struct span {
	int64_t lo, hi;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_window(const void *a, const void *b)
{
	const struct mf_window *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t span_len(const struct span *s)
{
	return s->hi > s->lo ? (uint64_t)s->hi - (uint64_t)s->lo : 0;
}

/* K windows spread over C as merge always placed them: centred in K equal slices. */
static size_t spread_over(const struct span *c, size_t k, uint64_t len_ns, uint64_t bin_ns, struct mf_window *out)
{
	uint64_t slice = span_len(c) / k, wlen = slice < len_ns ? slice : len_ns;

	wlen = wlen / bin_ns * bin_ns;
	for (size_t i = 0; i < k; i++)
		out[i] = (struct mf_window){ c->lo + (int64_t)(slice * i + (slice - wlen) / 2), wlen };
	return k;
}

/* Components of the union of the pairs' overlaps P[0..NP) (sorted by start) into C. */
static size_t components(const struct span *p, size_t np, struct span *c)
{
	size_t nc = 0;

	for (size_t i = 0; i < np; i++) {
		if (nc && p[i].lo <= c[nc - 1].hi) {
			if (p[i].hi > c[nc - 1].hi)
				c[nc - 1].hi = p[i].hi;
			continue;
		}
		c[nc++] = p[i];
	}
	return nc;
}

/* How many windows each component gets: by its length, at least one while
 * they last (the longest first), SPREAD in all. */
static void share(const struct span *c, size_t nc, uint64_t len_ns, size_t spread, size_t *k)
{
	uint64_t total = 0;
	size_t want, given = 0;

	for (size_t i = 0; i < nc; i++)
		total += span_len(&c[i]);
	want = (size_t)(total / len_ns);
	want = want < 1 ? 1 : want > spread ? spread : want;
	for (size_t i = 0; i < nc; i++) {
		k[i] = (size_t)((double)want * (double)span_len(&c[i]) / (double)total);
		k[i] = k[i] < 1 ? 1 : k[i];
		given += k[i];
	}
	while (given > spread) { /* more components than windows: the shortest go without */
		size_t w = nc;

		for (size_t i = 0; i < nc; i++)
			if (k[i] && (w == nc || k[i] > k[w] || (k[i] == k[w] && span_len(&c[i]) < span_len(&c[w]))))
				w = i;
		k[w]--;
		given--;
	}
}

size_t mergefit__plan(size_t n, const int64_t *lo, const int64_t *hi, const bool *talk, uint64_t min_ns,
		      uint64_t len_ns, uint64_t bin_ns, size_t spread, struct mf_window *out, size_t max)
{
	struct span *p = malloc((n * n / 2 + 1) * sizeof(*p)), *c = malloc((n * n / 2 + 1) * sizeof(*c));
	size_t *k = malloc((n * n / 2 + 1) * sizeof(*k));
	size_t np = 0, nc, nw = 0;

	if (!p || !c || !k || !bin_ns || !len_ns)
		goto out;
	spread = spread < max ? spread : max;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			struct span o = { lo[i] > lo[j] ? lo[i] : lo[j], hi[i] < hi[j] ? hi[i] : hi[j] };

			if ((!talk || talk[i * n + j]) && span_len(&o) >= min_ns && span_len(&o) >= bin_ns)
				p[np++] = o;
		}
	if (!np)
		goto out;
	qsort(p, np, sizeof(*p), cmp_span);
	nc = components(p, np, c);
	share(c, nc, len_ns, spread, k);
	for (size_t i = 0; i < nc; i++)
		if (k[i])
			nw += spread_over(&c[i], k[i], len_ns, bin_ns, out + nw);
	/* a pair with no window inside its overlap gets one there */
	for (size_t i = 0; i < np && nw < max; i++) {
		bool covered = false;
		uint64_t wlen;

		for (size_t w = 0; w < nw && !covered; w++)
			covered = mergefit__inside(&out[w], p[i].lo, p[i].hi);
		if (covered)
			continue;
		wlen = span_len(&p[i]) < len_ns ? span_len(&p[i]) : len_ns;
		wlen = wlen / bin_ns * bin_ns;
		out[nw++] = (struct mf_window){ p[i].lo + (int64_t)((span_len(&p[i]) - wlen) / 2), wlen };
	}
	if (nw)
		qsort(out, nw, sizeof(*out), cmp_window);
out:
	free(p);
	free(c);
	free(k);
	return nw;
}
