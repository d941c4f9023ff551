// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/stats.c: quantiles, the Mann-Whitney U test and the
 * bootstrap interval.
 *
 * The reference values of U and p were computed once with SciPy 1.10.1
 * (Debian 12's python3-scipy), on the data below:
 *   from scipy.stats import mannwhitneyu
 *   r = mannwhitneyu(a, b, alternative="two-sided", method=M, use_continuity=True)
 *   print(repr(float(r.statistic)), repr(float(r.pvalue)))
 * with M = "exact" and M = "asymptotic"; the quantiles with numpy.quantile
 * (its default, linear: Hyndman-Fan type 7).  The bootstrap has no outside
 * reference: its interval with a fixed seed is pinned as this code computed
 * it, and checked for what any correct bootstrap does (it covers the true
 * difference of a constructed sample, narrows as the samples grow, and the
 * seed alone decides it).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/stats.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want) + 1e-15)) {
		print_error("got %.17g, want %.17g (rel %g)\n", got, want, rel);
		fail();
	}
}

/* ---- quantiles ---- */

static void test_quantiles(void **state)
{
	const double x[] = { 3.5, 1.0, 7.25, 2.0, 9.0, 4.0, 6.5 };
	const double even[] = { 4.0, 1.0, 3.0, 2.0 };
	/* numpy.quantile(x, q) */
	const struct { double q, want; } ref[] = {
		{ 0, 1.0 }, { 0.1, 1.6 }, { 0.25, 2.75 }, { 0.5, 4.0 }, { 0.9, 7.950000000000001 }, { 1, 9.0 },
	};
	double copy[N(x)];

	(void)state;
	memcpy(copy, x, sizeof(x));
	for (size_t i = 0; i < N(ref); i++)
		assert_close(stats_quantile(x, N(x), ref[i].q), ref[i].want, 1e-12);
	assert_memory_equal(copy, x, sizeof(x)); /* the sample is left as it was */
	assert_close(stats_median(even, N(even)), 2.5, 1e-15);
	assert_close(stats_mean(x, N(x)), 33.25 / 7, 1e-15);
	assert_true(isnan(stats_quantile(x, 0, 0.5)));
	assert_true(isnan(stats_quantile(x, N(x), 1.5)));
	assert_true(isnan(stats_mean(x, 0)));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The selection against a full sort, on many shapes: duplicates, sorted, reversed, random. */
static void test_quantile_against_sort(void **state)
{
	struct stats_rng r;

	(void)state;
	stats_rng_seed(&r, 7);
	for (int round = 0; round < 400; round++) {
		size_t n = 1 + stats_rng_below(&r, 60);
		double x[64], s[64];

		for (size_t i = 0; i < n; i++) {
			switch (round % 4) {
			case 0: x[i] = (double)stats_rng_below(&r, 5); break;       /* many ties */
			case 1: x[i] = (double)i; break;                            /* sorted */
			case 2: x[i] = (double)(n - i); break;                      /* reversed */
			default: x[i] = (double)stats_rng_below(&r, 100000) / 7; break;
			}
			s[i] = x[i];
		}
		qsort(s, n, sizeof(double), cmp_double);
		for (int k = 0; k <= 20; k++) {
			double q = k / 20.0, h = (double)(n - 1) * q;
			size_t lo = (size_t)floor(h);
			double want = lo + 1 < n ? s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]) : s[lo];

			assert_close(stats_quantile(x, n, q), want, 1e-12);
		}
	}
}

/* ---- Mann-Whitney U ---- */

struct mw_case {
	const char *name;
	const double *a, *b;
	size_t na, nb;
	double u;
	double p_exact, p_asym;     /* the permutation test's (SciPy's method "exact" where
				     * there are no ties), and SciPy's method "asymptotic" */
	bool auto_exact;            /* what AUTO must choose */
	bool ties;
};

static const double small_a[] = { 1.1, 2.3, 3.7, 4.2, 5.9 };
static const double small_b[] = { 2.8, 6.1, 7.4, 8.0, 9.3, 10.5 };
static const double med_a[] = { 0.52, 1.91, 2.44, 3.05, 3.88, 4.41, 5.17, 5.93, 6.62, 7.20, 8.36, 9.01 };
static const double med_b[] = { 2.05, 3.33, 4.80, 5.55, 6.01, 6.77, 7.48, 7.92,
				8.64, 9.27, 9.85, 10.40, 11.13, 11.96, 12.58 };
static const double ties_a[] = { 1, 2, 2, 3, 3, 3, 4, 5 };
static const double ties_b[] = { 3, 4, 4, 5, 5, 6, 7, 7, 8 };
static const double same[] = { 1, 2, 3 };
static const double apart_a[] = { 1, 2, 3, 4 };
static const double apart_b[] = { 5, 6, 7, 8 };
/* "large": a_i = i * 7919 mod 1009 (i < 60), b_i = i * 104729 mod 1013 + 0.5 (i < 70): no ties */
static double large_a[60], large_b[70];

static void check_case(const struct mw_case *c)
{
	struct stats_mw r;

	print_message("%s\n", c->name);
	assert_int_equal(stats_mann_whitney(c->a, c->na, c->b, c->nb, STATS_MW_AUTO, &r), 0);
	assert_close(r.u, c->u, 1e-15);
	assert_int_equal(r.exact, c->auto_exact);
	assert_close(r.p, c->auto_exact ? c->p_exact : c->p_asym, 1e-9);
	assert_int_equal(r.ties, c->ties);
	assert_int_equal(stats_mann_whitney(c->a, c->na, c->b, c->nb, STATS_MW_ASYMPTOTIC, &r), 0);
	assert_false(r.exact);
	assert_close(r.p, c->p_asym, 1e-9);
	if (c->na <= STATS_MW_EXACT_MAX && c->nb <= STATS_MW_EXACT_MAX) {
		assert_int_equal(stats_mann_whitney(c->a, c->na, c->b, c->nb, STATS_MW_EXACT, &r), 0);
		assert_true(r.exact);
		assert_true(isnan(r.z));
		assert_close(r.p, c->p_exact, 1e-9);
	}
	/* the test is symmetric: B against A has U = na nb - U and the same p */
	assert_int_equal(stats_mann_whitney(c->b, c->nb, c->a, c->na, STATS_MW_AUTO, &r), 0);
	assert_close(r.u, (double)(c->na * c->nb) - c->u, 1e-15);
	assert_close(r.p, c->auto_exact ? c->p_exact : c->p_asym, 1e-9);
}

static void test_mann_whitney_scipy(void **state)
{
	const struct mw_case cases[] = {
		{ "small", small_a, small_b, N(small_a), N(small_b), 3.0, 0.030303030303030304, 0.03576376659097789, true,
		  false },
		{ "medium", med_a, med_b, N(med_a), N(med_b), 41.0, 0.016084575002329748, 0.017954376455399868, true,
		  false },
		/* ties: the permutation test conditional on them, 129 of the C(17, 8) = 24310 subsets
		 * (enumerated in Python); SciPy's "exact" ignores them (0.005512) */
		{ "ties", ties_a, ties_b, N(ties_a), N(ties_b), 7.5, 129.0 / 24310, 0.006373133838085873, true, true },
		{ "large", large_a, large_b, N(large_a), N(large_b), 2204.0, 0.6299501879667052, 0.6288401667626007, false,
		  false },
		{ "apart", apart_a, apart_b, N(apart_a), N(apart_b), 0.0, 0.02857142857142857, 0.03038282197657749, true,
		  false },
	};

	(void)state;
	for (size_t i = 0; i < N(large_a); i++)
		large_a[i] = (double)(i * 7919 % 1009);
	for (size_t i = 0; i < N(large_b); i++)
		large_b[i] = (double)(i * 104729 % 1013) + 0.5;
	for (size_t i = 0; i < N(cases); i++)
		check_case(&cases[i]);
}

static void test_mann_whitney_edges(void **state)
{
	struct stats_mw r;
	const double nan_a[] = { 1, NAN };
	double big[STATS_MW_EXACT_MAX + 1];

	(void)state;
	/* identical samples: p = 1 both ways (SciPy: U 4.5, p 1.0) */
	assert_int_equal(stats_mann_whitney(same, 3, same, 3, STATS_MW_AUTO, &r), 0);
	assert_close(r.u, 4.5, 1e-15);
	assert_close(r.p, 1.0, 1e-15);
	/* a sample of one value against another: every value tied, no variance, p = 1 */
	assert_int_equal(stats_mann_whitney(same, 1, same, 1, STATS_MW_AUTO, &r), 0);
	assert_close(r.p, 1.0, 1e-15);
	assert_int_equal(stats_mann_whitney(same, 0, same, 3, STATS_MW_AUTO, &r), -EINVAL);
	assert_int_equal(stats_mann_whitney(nan_a, 2, same, 3, STATS_MW_AUTO, &r), -EINVAL);
	for (size_t i = 0; i < N(big); i++)
		big[i] = (double)i;
	assert_int_equal(stats_mann_whitney(big, N(big), same, 3, STATS_MW_EXACT, &r), -EINVAL);
	/* one value more than the exact limit: AUTO goes asymptotic */
	assert_int_equal(stats_mann_whitney(big, N(big), med_b, N(med_b), STATS_MW_AUTO, &r), 0);
	assert_false(r.exact);
	assert_false(r.ties);
	assert_int_equal(stats_mann_whitney(big, STATS_MW_EXACT_MAX, med_b, N(med_b), STATS_MW_AUTO, &r), 0);
	assert_true(r.exact);
}

/*
 * The permutation p by brute force: every subset of NA of the N pooled
 * positions as A's, in doubled mid-ranks; a different algorithm from the
 * library's walk over the runs of equal values.
 */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, r2[16], tail = 0, total = 0;
	long long s_obs = 0, mean = (long long)na * (long long)(n + 1);
	double pool[16];

	for (size_t i = 0; i < n; i++)
		pool[i] = i < na ? a[i] : b[i - na];
	for (size_t i = 0; i < n; i++) { /* doubled mid-rank: 2 (below) + (equal) + 1 */
		size_t below = 0, equal = 0;

		for (size_t k = 0; k < n; k++) {
			below += pool[k] < pool[i];
			equal += pool[k] == pool[i];
		}
		r2[i] = 2 * below + equal + 1;
		if (i < na)
			s_obs += (long long)r2[i];
	}
	for (unsigned mask = 0; mask < 1u << n; mask++) {
		long long s = 0;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i))
				s += (long long)r2[i];
		total++;
		tail += llabs(s - mean) >= llabs(s_obs - mean);
	}
	return (double)tail / (double)total;
}

/* Ties in few runs: the exact test conditional on them, never the normal approximation. */
static void test_mann_whitney_tied_exact(void **state)
{
	const double zeros[] = { 0, 0, 0 }, ones[] = { 1, 1, 1 }, zero[] = { 0 };
	const double hundreds[] = { 100, 100, 100, 100, 100, 100 };
	const double mixed_a[] = { 5, 5, 7, 9 }, mixed_b[] = { 5, 9, 9, 12, 12 };
	struct stats_mw r;
	struct stats_rng g;

	(void)state;
	/* 3 against 3, each side one value: the least p of 3 against 3, 0.1
	 * (the normal approximation said 0.0495) */
	assert_int_equal(stats_mann_whitney(zeros, 3, ones, 3, STATS_MW_AUTO, &r), 0);
	assert_true(r.exact && r.ties);
	assert_close(r.p, 0.1, 1e-12);
	/* 1 against 6 tied: 1/7 (the approximation said 0.041) */
	assert_int_equal(stats_mann_whitney(zero, 1, hundreds, 6, STATS_MW_AUTO, &r), 0);
	assert_close(r.p, 1.0 / 7, 1e-12);
	/* enumerated in Python: 1/6 */
	assert_int_equal(stats_mann_whitney(mixed_a, 4, mixed_b, 5, STATS_MW_AUTO, &r), 0);
	assert_close(r.p, 1.0 / 6, 1e-12);
	/* against the brute force on many small samples, most of them tied */
	stats_rng_seed(&g, 11);
	for (int round = 0; round < 300; round++) {
		size_t na = 1 + stats_rng_below(&g, 7), nb = 1 + stats_rng_below(&g, 7);
		double x[8], y[8];
		uint64_t levels = 1 + stats_rng_below(&g, round % 3 ? 4 : 20);

		for (size_t i = 0; i < na; i++)
			x[i] = (double)stats_rng_below(&g, levels);
		for (size_t i = 0; i < nb; i++)
			y[i] = (double)stats_rng_below(&g, levels) + (round % 5 == 0 ? 1 : 0);
		assert_int_equal(stats_mann_whitney(x, na, y, nb, STATS_MW_AUTO, &r), 0);
		assert_true(r.exact);
		assert_close(r.p, brute_p(x, na, y, nb), 1e-12);
	}
}

/* ---- bootstrap ---- */

static void test_rng(void **state)
{
	struct stats_rng a, b;
	unsigned hist[10] = {0};

	(void)state;
	stats_rng_seed(&a, 42);
	stats_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		assert_true(stats_rng_next(&a) == stats_rng_next(&b));
	stats_rng_seed(&b, 43);
	assert_false(stats_rng_next(&a) == stats_rng_next(&b));
	/* uniform enough: 100000 draws in 10 bins, each within 5 % of its share */
	for (int i = 0; i < 100000; i++)
		hist[stats_rng_below(&a, 10)]++;
	for (int i = 0; i < 10; i++)
		assert_true(hist[i] > 9500 && hist[i] < 10500);
}

/* A: N values evenly over [0, 40), shuffled; B: A + 10.  The true difference of medians (and means) is 10. */
static void shifted(size_t n, double *a, double *b, uint64_t seed)
{
	struct stats_rng r;

	stats_rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		a[i] = (double)i * 40 / (double)n;
	for (size_t i = n; i > 1; i--) {
		size_t j = stats_rng_below(&r, i);
		double t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		b[i] = a[i] + 10;
}

static void test_bootstrap(void **state)
{
	double a[400], b[400];
	struct stats_ci ci, again, other, wide, narrow;

	(void)state;
	shifted(40, a, b, 1);
	assert_int_equal(stats_bootstrap_diff(a, 40, b, 40, STATS_MEDIAN, 2000, 0.95, 1234, &ci), 0);
	/* pinned: this code's output with seed 1234 (a change of the generator or the resampling shows here) */
	print_message("median diff %.17g [%.17g, %.17g]\n", ci.est, ci.lo, ci.hi);
	assert_close(ci.est, 10.0, 1e-15);
	assert_close(ci.lo, 1.0, 1e-12);
	assert_close(ci.hi, 18.0, 1e-12);
	/* the seed alone decides it */
	assert_int_equal(stats_bootstrap_diff(a, 40, b, 40, STATS_MEDIAN, 2000, 0.95, 1234, &again), 0);
	assert_memory_equal(&ci, &again, sizeof(ci));
	assert_int_equal(stats_bootstrap_diff(a, 40, b, 40, STATS_MEDIAN, 2000, 0.95, 99, &other), 0);
	assert_true(other.lo != ci.lo || other.hi != ci.hi);
	/* it covers the true difference, and narrows as the samples grow */
	assert_true(ci.lo <= 10 && 10 <= ci.hi);
	assert_int_equal(stats_bootstrap_diff(a, 40, b, 40, STATS_MEAN, 2000, 0.95, 1234, &wide), 0);
	assert_close(wide.est, 10.0, 1e-12);
	assert_true(wide.lo <= 10 && 10 <= wide.hi);
	shifted(400, a, b, 2);
	assert_int_equal(stats_bootstrap_diff(a, 400, b, 400, STATS_MEAN, 2000, 0.95, 1234, &narrow), 0);
	assert_true(narrow.lo <= 10 && 10 <= narrow.hi);
	print_message("mean: n 40 [%g, %g], n 400 [%g, %g]\n", wide.lo, wide.hi, narrow.lo, narrow.hi);
	/* one distribution, ten times the values: the sd of a mean falls as 1/sqrt(n), about a third of the width */
	assert_true(narrow.hi - narrow.lo < 0.5 * (wide.hi - wide.lo));
	/* a 50 % interval lies inside the 95 % one */
	assert_int_equal(stats_bootstrap_diff(a, 400, b, 400, STATS_MEAN, 2000, 0.5, 1234, &other), 0);
	assert_true(other.lo >= narrow.lo && other.hi <= narrow.hi && other.lo < other.hi);
	assert_int_equal(stats_bootstrap_diff(a, 0, b, 40, STATS_MEAN, 2000, 0.95, 1, &other), -EINVAL);
	assert_int_equal(stats_bootstrap_diff(a, 4, b, 4, STATS_MEAN, 1, 0.95, 1, &other), -EINVAL);
	assert_int_equal(stats_bootstrap_diff(a, 4, b, 4, STATS_MEAN, 100, 1.0, 1, &other), -EINVAL);
}

/* Coverage: over many constructed samples with a known shift, the 95 % interval holds it most of the time. */
static void test_bootstrap_coverage(void **state)
{
	int covered = 0, rounds = 200;
	struct stats_rng r;

	(void)state;
	stats_rng_seed(&r, 5);
	for (int k = 0; k < rounds; k++) {
		double a[30], b[30];
		struct stats_ci ci;

		/* two draws of one uniform distribution, B shifted by 3 */
		for (int i = 0; i < 30; i++) {
			a[i] = (double)stats_rng_below(&r, 1000000) / 1e5;
			b[i] = (double)stats_rng_below(&r, 1000000) / 1e5 + 3;
		}
		assert_int_equal(stats_bootstrap_diff(a, 30, b, 30, STATS_MEAN, 1000, 0.95, (uint64_t)k, &ci), 0);
		covered += ci.lo <= 3 && 3 <= ci.hi;
	}
	print_message("covered %d of %d\n", covered, rounds);
	/* a percentile bootstrap of n = 30 runs a little under its level; 85 % is far from a broken one */
	assert_true(covered >= rounds * 85 / 100);
}

/* The least p is the exact test's p for samples wholly apart (as for compare --aa's halves). */
static void test_mw_least_p(void **state)
{
	double a[8], b[8];

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		a[i] = (double)i;
		b[i] = 100.0 + (double)i;
	}
	for (size_t na = 1; na <= 8; na++)
		for (size_t nb = 1; nb <= 8; nb++) {
			struct stats_mw r;

			assert_int_equal(stats_mann_whitney(a, na, b, nb, STATS_MW_EXACT, &r), 0);
			assert_close(stats_mw_least_p(na, nb), r.p, 1e-12);
		}
	assert_close(stats_mw_least_p(3, 3), 0.1, 1e-12);      /* docs/compare.md: 3 against 3 */
	assert_close(stats_mw_least_p(4, 4), 2.0 / 70, 1e-12); /* 4 against 4: 0.029 */
	assert_true(stats_mw_least_p(3, 4) > 0.05);             /* --aa on 7 runs: nothing can be significant */
	assert_true(stats_mw_least_p(4, 4) < 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_quantile_against_sort),
		cmocka_unit_test(test_mann_whitney_scipy),
		cmocka_unit_test(test_mann_whitney_edges),
		cmocka_unit_test(test_mann_whitney_tied_exact),
		cmocka_unit_test(test_mw_least_p),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_bootstrap_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
