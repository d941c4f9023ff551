// SPDX-License-Identifier: GPL-2.0-or-later
/* Clock arithmetic of `fabtrace merge` (userspace/mergefit.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mergefit.h"

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

struct mf_est mergefit__pair(const struct mf_series *a, const struct mf_series *b, int64_t lo, int64_t hi)
{
	struct mf_est r = { 0 };
	const size_t n = a->n, pad = a->pad;
	struct dir ab, ba;
	int64_t best_e = 0, f = 1;
	double best = -2, second = -2;

	if (b->n != n || b->pad != pad || n <= 2 * pad || lo > hi)
		return r;
	if (lo < -(int64_t)pad)
		lo = -(int64_t)pad;
	if (hi > (int64_t)pad)
		hi = (int64_t)pad;
	if (lo > hi)
		return r;
	/* coarse pass on bins grouped by f when the range is wide */
	if (hi - lo > 400)
		f = 10;
	if (f > 1) {
		size_t cn, cpad = pad / (size_t)f, t;
		float *atx = down(a->tx, n, (size_t)f, &cn), *arx = down(a->rx, n, (size_t)f, &t),
		      *btx = down(b->tx, n, (size_t)f, &t), *brx = down(b->rx, n, (size_t)f, &t);

		if (atx && arx && btx && brx) {
			dir_init(&ab, atx, brx, cn, cpad);
			dir_init(&ba, btx, arx, cn, cpad);
			for (int64_t e = lo / f; e <= hi / f; e++) {
				double s = (dcorr(&ab, cn, cpad, e) + dcorr(&ba, cn, cpad, -e)) / 2;

				if (s > best) {
					if (llabs(e - best_e) > 2)
						second = best;
					best = s;
					best_e = e;
				} else if (s > second && llabs(e - best_e) > 2) {
					second = s;
				}
			}
		}
		free(atx);
		free(arx);
		free(btx);
		free(brx);
		if (best < -1)
			return r;
		r.second = second;
		lo = best_e * f - 2 * f > lo ? best_e * f - 2 * f : lo;
		hi = best_e * f + 2 * f < hi ? best_e * f + 2 * f : hi;
		best = -2;
	}
	dir_init(&ab, a->tx, b->rx, n, pad);
	dir_init(&ba, b->tx, a->rx, n, pad);
	for (int64_t e = lo; e <= hi; e++) {
		double s = (dcorr(&ab, n, pad, e) + dcorr(&ba, n, pad, -e)) / 2;

		if (s > best) {
			if (f == 1 && llabs(e - best_e) > 20)
				second = best;
			best = s;
			best_e = e;
		} else if (f == 1 && s > second && llabs(e - best_e) > 20) {
			second = s;
		}
	}
	if (f == 1)
		r.second = second;
	/* each direction's own peak near the joint one: the NTP pair */
	int64_t lab = best_e, lba = -best_e;
	double sab = -2, sba = -2;

	for (int64_t d = -3; d <= 3; d++) {
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
	r.e_bins2 = lab - lba;
	r.rtt_bins = lab + lba;
	r.valid = best >= 0.15 && sab > 0.1 && sba > 0.1 && (r.second < 0 || r.second < 0.9 * best);
	return r;
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
