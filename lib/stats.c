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
 * The two-sided p of the permutation test on the rank sum: under the null
 * hypothesis, which NA of the N pooled values are A's is a uniform draw of
 * the C(N, NA) subsets, ties and all.  In doubled ranks (whole numbers: a
 * run of equal values from 0-based position i to j - 1 has the mid-rank
 * (i + 1 + j) / 2), S is the sum of A's; p = P(|S - E S| >= |S_OBS - E S|),
 * E S = NA (N + 1).  The distribution of S by a walk over the runs of equal
 * values (RUN[g] values, doubled rank R2[g]), choosing j of each run for A
 * in C(RUN[g], j) ways: counts in doubles, additions and products only
 * (C(100, 50) < 2^97 is in their range; past 2^53 they round, to a relative
 * error of about 1e-15 in p, while S itself stays a whole number).  Without
 * ties this is the exact distribution of U; with them it is conditional on
 * the ties, exact too.
 */
static int exact_p(size_t na, size_t n, const size_t *run, const size_t *r2, size_t nruns, size_t s_obs,
		   double *p)
{
	size_t smax = n * (n + 1), width = smax + 1, seen = 0, taken = 0;
	double *cnt = calloc((na + 1) * width, sizeof(double)), total = 0, tail = 0;
	long long mean = (long long)na * (long long)(n + 1), dobs = llabs((long long)s_obs - mean);

	if (!cnt)
		return -ENOMEM;
	cnt[0] = 1; /* no value taken yet: S = 0 one way */
	for (size_t g = 0; g < nruns; g++) {
		size_t t = run[g], top = taken + t < na ? taken + t : na;

		/* row k from the rows below it (still the previous run's), so in place */
		for (size_t k = top + 1; k-- > 0;) {
			double *row = cnt + k * width;
			double binom = 1;

			for (size_t j = 1; j <= t && j <= k; j++) {
				const double *below = cnt + (k - j) * width;
				size_t shift = j * r2[g];

				binom = binom * (double)(t - j + 1) / (double)j; /* C(t, j): whole at each step */
				for (size_t s = shift; s <= seen + shift && s <= smax; s++)
					row[s] += binom * below[s - shift];
			}
		}
		taken = top;
		seen += t * r2[g];
		if (seen > smax)
			seen = smax;
	}
	for (size_t s = 0; s <= smax; s++) {
		double c = cnt[na * width + s];

		total += c;
		if (llabs((long long)s - mean) >= dobs)
			tail += c;
	}
	free(cnt);
	*p = total > 0 ? fmin(1.0, tail / total) : 1.0;
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, enum stats_mw_method method,
		       struct stats_mw *out)
{
	size_t n = na + nb, nruns = 0, s_obs = 0, *run, *r2;
	struct pooled *v;
	double r1 = 0, tie_term = 0, u1, u2, umax, mu, sd;
	int ret = 0;

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
	run = malloc(n * sizeof(*run));
	r2 = malloc(n * sizeof(*r2));
	if (!v || !run || !r2) {
		free(v);
		free(run);
		free(r2);
		return -ENOMEM;
	}
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
		run[nruns] = j - i;
		r2[nruns++] = i + 1 + j;
		for (size_t k = i; k < j; k++)
			if (v[k].from_a) {
				r1 += rank;
				s_obs += i + 1 + j;
			}
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
		     (method == STATS_MW_AUTO && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX);
	if (out->exact) {
		out->z = NAN;
		ret = exact_p(na, n, run, r2, nruns, s_obs, &out->p);
	}
	free(run);
	free(r2);
	if (out->exact || ret)
		return ret;
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

double stats_mw_least_p(size_t na, size_t nb)
{
	double c = 1; /* C(na + nb, na), built as a product of ratios */

	for (size_t k = 1; k <= na; k++)
		c = c * (double)(nb + k) / (double)k;
	return 2 / c < 1 ? 2 / c : 1;
}
