// SPDX-License-Identifier: GPL-2.0-or-later
/* Live alignment of collective numbers across ranks (live_align.h). */
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/seq_align.h"
#include "userspace/live/live_align.h"

static void key_clear(struct live_align_key *k)
{
	free(k->held);
	memset(k, 0, sizeof(*k));
}

/* KEY's entry; a new one in a free slot, else in the least recent one's. */
static struct live_align_key *key_of(struct live_align *a, uint64_t key)
{
	struct live_align_key *free_k = NULL, *old = NULL;

	for (int i = 0; i < LIVE_ALIGN_KEYS; i++) {
		struct live_align_key *k = &a->k[i];

		if (k->used && k->key == key)
			return k;
		if (!k->used && !free_k)
			free_k = k;
		if (k->used && (!old || k->last_ns < old->last_ns))
			old = k;
	}
	if (!free_k) { /* its held calls go unaligned: better than never matched */
		free_k = old;
		key_clear(free_k);
	}
	free_k->key = key;
	free_k->used = true;
	return free_k;
}

/* The shift of PROC's numbers, false when it has none (not seen while aligning). */
static bool shift_of(const struct live_align_key *k, uint32_t proc, int32_t *shift)
{
	for (uint32_t i = 0; i < k->nshift; i++)
		if (k->shift[i].proc == proc) {
			*shift = k->shift[i].shift;
			return true;
		}
	*shift = 0;
	return false;
}

static void match_shifted(const struct live_align_key *k, const struct live_call *c, live_match_fn match, void *ctx)
{
	struct live_call x = *c;
	int32_t d;
	int64_t s;

	(void)shift_of(k, c->proc, &d);
	s = (int64_t)c->seq + d;
	if (s < 1)
		return; /* a collective before the others' first */
	x.seq = (uint64_t)s;
	match(ctx, &x);
}

/* Every rank made LIVE_ALIGN_CALLS calls: the shifts are as clear as they get. */
static bool enough(const struct live_align_key *k)
{
	uint32_t procs[LIVE_ALIGN_HOLD_MAX], counts[LIVE_ALIGN_HOLD_MAX], n = 0;
	int32_t size = 0;

	for (uint32_t i = 0; i < k->nheld; i++) {
		uint32_t j;

		for (j = 0; j < n && procs[j] != k->held[i].proc; j++)
			;
		if (j == n) {
			procs[n] = k->held[i].proc;
			counts[n++] = 0;
		}
		counts[j]++;
		if (k->held[i].size > size)
			size = k->held[i].size;
	}
	if (size < 2 || n < (uint32_t)size)
		return false;
	for (uint32_t j = 0; j < n; j++)
		if (counts[j] < LIVE_ALIGN_CALLS)
			return false;
	return true;
}

static int cmp_start(const void *a, const void *b)
{
	const struct live_call *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Find each held process's shift, then match what was held, in time order. */
static void align(struct live_align_key *k, live_match_fn match, void *ctx)
{
	struct seq_item *it = calloc(k->nheld ? k->nheld : 1, sizeof(*it));

	for (uint32_t i = 0; it && i < k->nheld; i++) {
		const struct live_call *c = &k->held[i];

		it[i] = (struct seq_item){ .g0 = k->key, .pid = c->proc, .idx = i, .op = c->op,
					   .seq = (int64_t)c->seq, .start = c->start,
					   .end = c->end > c->start ? c->end : c->start };
	}
	/* out of memory: numbers as counted (as before alignment existed) */
	if (it && seq_align__run(it, k->nheld, NULL) == 0) {
		uint32_t nold = k->nshift;
		int32_t keep = 0;
		bool anchored = false;

		for (uint32_t i = 0; i < k->nheld; i++) {
			const struct live_call *c = &k->held[it[i].idx];
			int32_t d = (int32_t)(it[i].seq - (int64_t)c->seq), old = 0;
			bool had = false;

			for (uint32_t j = 0; j < nold && !had; j++)
				if (k->shift[j].proc == c->proc) {
					had = true;
					old = k->shift[j].shift;
				}
			/* aligned before: the numbers it matched under stay (the
			 * collectives being matched keep their keys) */
			if (had && !anchored) {
				keep = old - d;
				anchored = true;
			}
		}
		for (uint32_t i = 0; i < k->nheld; i++) {
			const struct live_call *c = &k->held[it[i].idx];
			int32_t d = (int32_t)(it[i].seq - (int64_t)c->seq) + keep;
			bool found = false;

			for (uint32_t j = 0; j < k->nshift && !found; j++)
				if (k->shift[j].proc == c->proc) {
					found = true;
					if (j >= nold)
						continue; /* set in this loop already */
					k->shift[j].shift = d;
				}
			if (!found && k->nshift < LIVE_ALIGN_PROCS) {
				k->shift[k->nshift].proc = c->proc;
				k->shift[k->nshift++].shift = d;
			}
		}
	}
	free(it);
	qsort(k->held, k->nheld, sizeof(k->held[0]), cmp_start);
	k->done = true;
	for (uint32_t i = 0; i < k->nheld; i++)
		match_shifted(k, &k->held[i], match, ctx);
	k->nheld = 0;
}

/* Room for one more held call; false when there is none to be had. */
static bool hold_room(struct live_align_key *k, int32_t size)
{
	uint32_t want = size > 0 && (uint64_t)size * LIVE_ALIGN_CALLS < LIVE_ALIGN_HOLD_MAX
				? (uint32_t)size * LIVE_ALIGN_CALLS : LIVE_ALIGN_HOLD_MAX;

	if (want < LIVE_ALIGN_HOLD_MIN)
		want = LIVE_ALIGN_HOLD_MIN;
	if (k->nheld < k->cap)
		return true;
	if (k->cap >= want)
		return false;
	struct live_call *h = realloc(k->held, want * sizeof(*h));

	if (!h)
		return false;
	k->held = h;
	k->cap = want;
	return true;
}

void live_align__feed(struct live_align *a, const struct live_call *c, live_match_fn match, void *ctx)
{
	struct live_align_key *k = key_of(a, c->key);
	int32_t d;

	k->last_ns = c->end;
	/* a process not seen while aligning opens the alignment again */
	if (k->done && !shift_of(k, c->proc, &d))
		k->done = false;
	if (k->done) {
		match_shifted(k, c, match, ctx);
		return;
	}
	if (!hold_room(k, c->size)) { /* full, and no more room to be had: align now */
		align(k, match, ctx);
		if (shift_of(k, c->proc, &d))
			match_shifted(k, c, match, ctx);
		else
			match(ctx, c);
		return;
	}
	k->held[k->nheld++] = *c;
	if (k->nheld == k->cap || enough(k))
		align(k, match, ctx);
}

void live_align__flush(struct live_align *a, uint64_t now_ns, live_match_fn match, void *ctx)
{
	for (int i = 0; i < LIVE_ALIGN_KEYS; i++) {
		struct live_align_key *k = &a->k[i];

		/* ranks that stay missing: the others are not held for ever */
		if (k->used && !k->done && k->nheld && now_ns >= k->held[0].end + LIVE_ALIGN_WAIT_NS)
			align(k, match, ctx);
	}
}

void live_align__forget(struct live_align *a, uint32_t proc)
{
	for (int i = 0; i < LIVE_ALIGN_KEYS; i++) {
		struct live_align_key *k = &a->k[i];

		for (uint32_t j = 0; j < k->nshift; j++)
			if (k->shift[j].proc == proc) {
				k->shift[j] = k->shift[--k->nshift];
				break;
			}
		for (uint32_t j = 0; j < k->nheld;)
			if (k->held[j].proc == proc)
				k->held[j] = k->held[--k->nheld];
			else
				j++;
	}
}

void live_align__free(struct live_align *a)
{
	for (int i = 0; i < LIVE_ALIGN_KEYS; i++)
		key_clear(&a->k[i]);
}
