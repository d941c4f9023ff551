/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clock arithmetic of `fabtrace merge` (docs/multihost.md), kept apart
 * from the file handling so that it can be tested alone:
 *
 *  - pair estimates from traffic: host A's TX bins against host B's RX bins
 *    and B's TX against A's RX, as NTP uses its four timestamps.  Bytes that
 *    leave A at t arrive at B at t + delay, so if B's clock reads e ahead of
 *    A's the A->B match sits at lag e + delay and the B->A match at
 *    -e + delay': the offset is the half difference, and half the sum (the
 *    "round trip") bounds its error, together with the bin width;
 *  - the causal window from collectives: no rank leaves an all-reduce
 *    before the last one entered, so e lies within [L, U];
 *  - a line (offset, drift) per pair through its windows, and each host's
 *    offset against the reference along the most certain chain of pairs.
 */
#ifndef FABTRACE_MERGEFIT_H
#define FABTRACE_MERGEFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One window's traffic of one host, binned on the coarse merged clock:
 * n bins of which the core [pad, n - pad) is matched, pad bins each side
 * being the room the search may move the other host by. */
struct mf_series {
	float *tx, *rx;
	size_t n, pad;
};

struct mf_est {
	bool valid;
	int64_t e_bins2;     /* 2 x offset of B against A, in bins (half bins exact) */
	int64_t rtt_bins;    /* lag A->B + lag B->A, bins */
	double score;        /* mean normalised correlation of both directions at the match */
	double second;       /* best score away from the match (ambiguity) */
};

/*
 * Offset of B's clock against A's in one window, searched over lags
 * [lo, hi] bins (within +-pad).  Returns the estimate (valid = a clear,
 * two-way match).
 */
struct mf_est mergefit__pair(const struct mf_series *a, const struct mf_series *b, int64_t lo, int64_t hi);

/* The most a clock's rate can be off and still be one: the kernel's
 * frequency correction ends at 500 ppm (adjtimex), so NTP gives up on a
 * crystal farther off. */
#define MF_MAX_DRIFT 500e-6

/*
 * One pair's windows that agree: N matches (T, E, SIGMA in ns, MARGIN: the
 * best score less the best elsewhere).  A window agrees with window K when
 * they differ by no more than their SIGMAs plus what a clock MF_MAX_DRIFT
 * off moves between them; KEEP gets the windows that agree with the K whose
 * agreeing windows have the most MARGIN in all.  A window that matched a
 * wrong peak of repeating traffic, ms away from the others, is left out
 * rather than bending the line.  Returns how many are kept.
 */
size_t mergefit__consensus(const double *t, const double *e, const double *sigma, const double *margin, size_t n,
			   bool *keep);

/* Weighted line e(t) = a + b (t - tref) through N points (t, e, sigma);
 * with one point (or all at one t) b = 0.  0, or -1 when N = 0. */
int mergefit__line(const double *t, const double *e, const double *sigma, size_t n, double tref,
		   double *a, double *b);

/* A traffic window on the coarse clock: its core [start, start + len). */
struct mf_window {
	int64_t start;
	uint64_t len;
};

/*
 * Where to match traffic: N hosts span LO[i]..HI[i] on the coarse clock
 * (LO >= HI: nothing); TALK[i * N + j] says i and j exchange traffic (NULL:
 * all do).  The windows are spread over the time where some pair that talks
 * overlaps by MIN_NS or more (SPREAD of them at most, LEN_NS long at most,
 * as many as that time holds), and every such pair gets at least one
 * window inside its own overlap, up to MAX windows in all.  So a capture
 * that starts late, or ends early, costs the others nothing: each pair is
 * matched where both hosts recorded.  Lengths are whole BIN_NS.  Returns
 * the number of windows in OUT, by start.
 */
size_t mergefit__plan(size_t n, const int64_t *lo, const int64_t *hi, const bool *talk, uint64_t min_ns,
		      uint64_t len_ns, uint64_t bin_ns, size_t spread, struct mf_window *out, size_t max);
/* Whether window W lies inside [LO, HI) */
static inline bool mergefit__inside(const struct mf_window *w, int64_t lo, int64_t hi)
{
	return w->start >= lo && w->start < hi && (uint64_t)hi - (uint64_t)w->start >= w->len;
}

/*
 * Chain: the most certain path (sum of uncertainties) from host 0 to every
 * host over the pair graph.  W[i*n+j] is the uncertainty of the edge i->j
 * (< 0 none); on return PREV[j] is the host before j on its path (-1 for 0
 * and for unreachable hosts) and DIST[j] the summed uncertainty (< 0
 * unreachable).
 */
void mergefit__chain(size_t n, const double *w, int *prev, double *dist);

/* One pair's traffic fit as the loop check sees it: B's clock against A's
 * at the fits' reference time (ns), its uncertainty (< 0: not used) and how
 * clearly its matches won (the sum over its windows of the best score less
 * the best one elsewhere).  DROPPED_BY is set on return: the disagreement
 * (ns) of the loop that dropped it, 0 when kept. */
struct mf_edge {
	int a, b;
	double e, unc, margin;
	double dropped_by;
};

/*
 * Loops: two chains of pairs that place one host apart by more than their
 * uncertainties summed mean that some pair on that loop matched a wrong
 * peak (periodic traffic repeats itself).  Drops (unc = -1) the least clear
 * pair of the worst such loop, and again, until every loop agrees.
 * Returns the number of pairs dropped.
 */
size_t mergefit__loops(size_t n, struct mf_edge *edges, size_t ne);

#endif
