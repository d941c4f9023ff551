// SPDX-License-Identifier: GPL-2.0-or-later
/* Sequence alignment across ranks for jobs attached mid-run (seq_align.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "userspace/correlate/seq_align.h"

static int cmp_item(const void *a, const void *b)
{
	const struct seq_item *x = a, *y = b;

	if (x->g0 != y->g0)
		return x->g0 < y->g0 ? -1 : 1;
	if (x->g1 != y->g1)
		return x->g1 < y->g1 ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The item of seq S in IT[0..N) (sorted by seq), NULL if none. */
static const struct seq_item *find_seq(const struct seq_item *it, size_t n, int64_t s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (it[mid].seq < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && it[lo].seq == s ? &it[lo] : NULL;
}

/*
 * The calls share at least half of the shorter one.  In one blocking
 * collective the later entrant's call lies inside the earlier one's (they
 * leave together); neighbours meet only by the skew of their exits: a rank
 * that goes straight into the next collective touches the late rank's
 * previous call for the few ms the late rank takes to leave it.
 */
static bool overlap(const struct seq_item *a, const struct seq_item *b)
{
	uint64_t lo = a->start > b->start ? a->start : b->start;
	uint64_t hi = a->end < b->end ? a->end : b->end;
	uint64_t da = a->end - a->start, db = b->end - b->start;

	return lo <= hi && 2 * (hi - lo) >= (da < db ? da : db);
}

/*
 * The shift D for process P against reference R: P's call seq s + D is R's
 * call seq s.  A pair agrees when the calls are the same op and overlap in
 * time (by half of the shorter, above); a pair of different ops counts double against.  Score: agreeing
 * pairs minus the others.
 */
static long shift_score(const struct seq_item *r, size_t nr, const struct seq_item *p, size_t np, int64_t d,
			long *pairs)
{
	long score = 0;

	*pairs = 0;
	for (size_t i = 0; i < nr; i++) {
		const struct seq_item *q = find_seq(p, np, r[i].seq + d);

		if (!q)
			continue;
		(*pairs)++;
		if (q->op != r[i].op)
			score -= 2;
		else
			score += overlap(&r[i], q) ? 1 : -1;
	}
	return score;
}

static int64_t best_shift(const struct seq_item *r, size_t nr, const struct seq_item *p, size_t np)
{
	long pairs, best_pairs = 0, zero = shift_score(r, nr, p, np, 0, &pairs), best_score = zero;
	int64_t best = 0;

	for (int64_t a = 1; a <= SEQ_ALIGN_MAX_SHIFT; a++)
		for (int sign = 1; sign >= -1; sign -= 2) {
			long score = shift_score(r, nr, p, np, a * sign, &pairs);

			if (score > best_score) {
				best = a * sign;
				best_score = score;
				best_pairs = pairs;
			}
		}
	/* clear evidence only: most of its pairs agree, at least two more than unshifted */
	if (best && (best_score < 2 || 2 * best_score < best_pairs || best_score < zero + 2))
		return 0;
	return best;
}

int seq_align__run(struct seq_item *it, size_t n, size_t *shifted)
{
	size_t nshift = 0;

	if (shifted)
		*shifted = 0;
	if (!n)
		return 0;
	qsort(it, n, sizeof(*it), cmp_item);
	for (size_t g = 0; g < n;) {
		size_t ge = g, ref = g, ref_n = 0;
		int64_t min_seq = INT64_MAX;

		while (ge < n && it[ge].g0 == it[g].g0 && it[ge].g1 == it[g].g1)
			ge++;
		/* the reference: the process with the most calls on this communicator */
		for (size_t p = g; p < ge;) {
			size_t pe = p;

			while (pe < ge && it[pe].pid == it[p].pid)
				pe++;
			if (pe - p > ref_n) {
				ref = p;
				ref_n = pe - p;
			}
			p = pe;
		}
		for (size_t p = g; p < ge;) {
			size_t pe = p;

			while (pe < ge && it[pe].pid == it[p].pid)
				pe++;
			if (p != ref) {
				int64_t d = best_shift(&it[ref], ref_n, &it[p], pe - p);

				if (d) {
					for (size_t i = p; i < pe; i++)
						it[i].seq -= d;
					nshift++;
				}
			}
			p = pe;
		}
		/* keep every seq >= 1 (a process ahead of the reference from the start) */
		for (size_t i = g; i < ge; i++)
			if (it[i].seq < min_seq)
				min_seq = it[i].seq;
		if (min_seq < 1)
			for (size_t i = g; i < ge; i++)
				it[i].seq += 1 - min_seq;
		g = ge;
	}
	if (shifted)
		*shifted = nshift;
	return 0;
}
