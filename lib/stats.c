// SPDX-License-Identifier: GPL-2.0-or-later
/* Order statistics, Mann-Whitney U and a bootstrap interval (stats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

/* ---- order statistics ---- */

/* The K-th smallest of X[0..N) (0-based), reordering X (Hoare's selection). */
static double select_kth(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = x[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				double t = x[i];

				x[i] = x[j];
				x[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return x[k];
	}
	return x[k];
}

/* Type 7 quantile of X[0..N), reordering X. */
static double quantile_inplace(double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q, lo;
	size_t k = (size_t)floor(h);

	lo = select_kth(x, n, k);
	if (k + 1 >= n || h == (double)k)
		return lo;
	/* after the selection everything past K is >= x[K]: the next order statistic is their minimum */
	double next = x[k + 1];

	for (size_t i = k + 2; i < n; i++)
		if (x[i] < next)
			next = x[i];
	return lo + (h - (double)k) * (next - lo);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *t, v;

	if (!n || !(q >= 0 && q <= 1))
		return NAN;
	t = malloc(n * sizeof(*t));
	if (!t)
		return NAN;
	memcpy(t, x, n * sizeof(*t));
	v = quantile_inplace(t, n, q);
	free(t);
	return v;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_mean(const double *x, size_t n)
{
	double s = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/* ---- Mann-Whitney U ---- */

struct pooled {
	double v;
	int from_a;
};

static int cmp_pooled(const void *pa, const void *pb)
{
	const struct pooled *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

/*
 * P(U >= K) for samples of M and N values without ties: the distribution
 * by the recurrence on the largest value, from A (it beats all N: U = N +
 * U(M-1, N)) or from B (U = U(M, N-1)), with probabilities M/(M+N) and
 * N/(M+N).  Only additions of probabilities: no cancellation.
 */
static int exact_sf(size_t m, size_t n, size_t k, double *p)
{
	size_t len = m * n + 1;
	double *prev = calloc((n + 1) * len, sizeof(double)), *cur = calloc((n + 1) * len, sizeof(double));

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	/* row m' = 0: U = 0 surely, whatever n' */
	for (size_t j = 0; j <= n; j++)
		prev[j * len] = 1;
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * len * sizeof(double));
		cur[0] = 1; /* n' = 0 */
		for (size_t j = 1; j <= n; j++) {
			double fa = (double)i / (double)(i + j), fb = (double)j / (double)(i + j);
			const double *pa = prev + j * len, *pb = cur + (j - 1) * len;
			double *o = cur + j * len;

			for (size_t u = 0; u <= i * j; u++)
				o[u] = (u >= j ? fa * pa[u - j] : 0) + (u <= i * (j - 1) ? fb * pb[u] : 0);
		}
		double *t = prev;

		prev = cur;
		cur = t;
	}
	*p = 0;
	for (size_t u = m * n + 1; u-- > k;) /* the small tail first */
		*p += prev[n * len + u];
	free(prev);
	free(cur);
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, enum stats_mw_method method,
		       struct stats_mw *out)
{
	size_t n = na + nb;
	struct pooled *v;
	double r1 = 0, tie_term = 0, u1, u2, umax, mu, sd;

	if (!na || !nb)
		return -EINVAL;
	for (size_t i = 0; i < na; i++)
		if (isnan(a[i]))
			return -EINVAL;
	for (size_t i = 0; i < nb; i++)
		if (isnan(b[i]))
			return -EINVAL;
	if (method == STATS_MW_EXACT && (na > STATS_MW_EXACT_MAX || nb > STATS_MW_EXACT_MAX))
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		v[i] = (struct pooled){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		v[na + i] = (struct pooled){ b[i], 0 };
	qsort(v, n, sizeof(*v), cmp_pooled);
	/* ranks from 1; a run of equal values shares their mean rank */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double rank, t;

		while (j < n && v[j].v == v[i].v)
			j++;
		rank = ((double)i + 1 + (double)j) / 2;
		t = (double)(j - i);
		tie_term += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (v[k].from_a)
				r1 += rank;
		i = j;
	}
	free(v);
	memset(out, 0, sizeof(*out));
	u1 = r1 - (double)na * ((double)na + 1) / 2;
	u2 = (double)na * (double)nb - u1;
	umax = u1 > u2 ? u1 : u2;
	out->u = u1;
	out->ties = tie_term > 0;
	out->exact = method == STATS_MW_EXACT ||
		     (method == STATS_MW_AUTO && !out->ties && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX);
	if (out->exact) {
		/* U is whole without ties; with them (EXACT asked) truncated, as SciPy does */
		int ret = exact_sf(na, nb, (size_t)umax, &out->p);

		if (ret)
			return ret;
		out->z = NAN;
		out->p = fmin(1.0, 2 * out->p);
		return 0;
	}
	mu = (double)na * (double)nb / 2;
	sd = sqrt((double)na * (double)nb / 12 * (((double)n + 1) - tie_term / ((double)n * ((double)n - 1))));
	out->z = sd > 0 ? (umax - 0.5 - mu) / sd : 0;
	out->p = sd > 0 ? fmin(1.0, erfc(out->z / M_SQRT2)) : 1.0; /* 2 x the normal's upper tail */
	return 0;
}

/* ---- the generator ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void stats_rng_seed(struct stats_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t stats_rng_below(struct stats_rng *r, uint64_t n)
{
	/* reject the top values that would make some results likelier */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = stats_rng_next(r);
	while (x >= limit);
	return x % n;
}

/* ---- bootstrap ---- */

static double statistic(double *x, size_t n, enum stats_stat stat)
{
	return stat == STATS_MEAN ? stats_mean(x, n) : quantile_inplace(x, n, 0.5);
}

static void resample(struct stats_rng *r, const double *x, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = x[stats_rng_below(r, n)];
}

int stats_bootstrap_diff(const double *a, size_t na, const double *b, size_t nb, enum stats_stat stat,
			 unsigned nboot, double level, uint64_t seed, struct stats_ci *out)
{
	double *sa, *sb, *d;
	struct stats_rng r;

	if (!na || !nb || nboot < 2 || !(level > 0 && level < 1))
		return -EINVAL;
	sa = malloc(na * sizeof(*sa));
	sb = malloc(nb * sizeof(*sb));
	d = malloc(nboot * sizeof(*d));
	if (!sa || !sb || !d) {
		free(sa);
		free(sb);
		free(d);
		return -ENOMEM;
	}
	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	out->est = statistic(sb, nb, stat) - statistic(sa, na, stat);
	stats_rng_seed(&r, seed);
	for (unsigned i = 0; i < nboot; i++) {
		resample(&r, a, na, sa);
		resample(&r, b, nb, sb);
		d[i] = statistic(sb, nb, stat) - statistic(sa, na, stat);
	}
	out->lo = quantile_inplace(d, nboot, (1 - level) / 2);
	out->hi = quantile_inplace(d, nboot, (1 + level) / 2);
	free(sa);
	free(sb);
	free(d);
	return 0;
}
