/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics for comparing two sets of runs (`compare`, issue 34): order
 * statistics, the Mann-Whitney U test with its two-sided p, and a
 * bootstrap confidence interval of a difference, reproducible from a seed.
 * Pure C; the samples are never changed (sorted copies are made).
 *
 * Mann-Whitney (STATS_MW_AUTO): the exact permutation distribution of the
 * rank sum when both samples have at most STATS_MW_EXACT_MAX values
 * (conditional on the ties, where there are some), else the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5.  Without ties, the same numbers as
 * scipy.stats.mannwhitneyu(a, b, alternative="two-sided") with
 * method="exact" and method="asymptotic" (use_continuity=True).
 */
#ifndef FABTRACE_STATS_H
#define FABTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The Q-quantile (0..1) of X[0..N), linear between order statistics
 * (Hyndman-Fan type 7, numpy's default); NaN when N is 0 or Q outside [0, 1]. */
double stats_quantile(const double *x, size_t n, double q);
double stats_median(const double *x, size_t n);
double stats_mean(const double *x, size_t n);  /* NaN when N is 0 */

#define STATS_MW_EXACT_MAX 50

enum stats_mw_method {
	STATS_MW_AUTO = 0,      /* exact where it applies (above), else asymptotic */
	STATS_MW_EXACT,         /* the exact distribution (conditional on any ties) */
	STATS_MW_ASYMPTOTIC,    /* the normal approximation */
};

struct stats_mw {
	double u;               /* U of sample A: the pairs (a, b) with a > b, ties counting 1/2 */
	double p;               /* two-sided */
	double z;               /* the normal approximation's z (continuity-corrected); NaN when exact */
	bool exact;             /* which of the two gave p */
	bool ties;              /* the pooled sample has ties */
};

/*
 * Mann-Whitney U test of A[0..NA) against B[0..NB).  0, or -EINVAL (a
 * sample empty, a NaN in one, or EXACT asked with more than
 * STATS_MW_EXACT_MAX values in a sample), -ENOMEM.
 */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, enum stats_mw_method method,
		       struct stats_mw *out);

/* The least two-sided p the exact test can give samples of NA and NB
 * values (every A beyond every B, no ties): 2 / C(NA + NB, NA), at most 1.
 * At or above a test's alpha, no difference can be significant. */
double stats_mw_least_p(size_t na, size_t nb);

/* A small, fast PRNG (xoshiro256**) seeded through splitmix64: the same seed, the same numbers. */
struct stats_rng {
	uint64_t s[4];
};
void stats_rng_seed(struct stats_rng *r, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *r);
/* Uniform in [0, N) without modulo bias; N > 0. */
uint64_t stats_rng_below(struct stats_rng *r, uint64_t n);

enum stats_stat {
	STATS_MEDIAN = 0,
	STATS_MEAN,
};

struct stats_ci {
	double est;             /* stat(B) - stat(A) of the samples themselves */
	double lo, hi;          /* the interval */
};

/*
 * Percentile bootstrap interval of stat(B) - stat(A) at LEVEL (0.95 for 95 %):
 * NBOOT times, each sample resampled with replacement (its own size), from
 * the generator seeded with SEED; the interval's ends are the (1 - LEVEL)/2
 * and (1 + LEVEL)/2 quantiles of the NBOOT differences.  0, -EINVAL (an
 * empty sample, NBOOT < 2, LEVEL outside (0, 1)), -ENOMEM.
 */
int stats_bootstrap_diff(const double *a, size_t na, const double *b, size_t nb, enum stats_stat stat,
			 unsigned nboot, double level, uint64_t seed, struct stats_ci *out);

#endif
