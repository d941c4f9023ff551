// SPDX-License-Identifier: GPL-2.0-or-later
/* Live alignment of collective numbers across ranks (live_align.h). */
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/seq_align.h"
#include "userspace/live/live_align.h"

static struct live_align_key *key_of(struct live_align *a, uint64_t key)
{
	struct live_align_key *free_k = NULL;

	for (int i = 0; i < LIVE_ALIGN_KEYS; i++) {
		if (a->k[i].used && a->k[i].key == key)
			return &a->k[i];
		if (!a->k[i].used && !free_k)
			free_k = &a->k[i];
	}
	if (free_k) {
		memset(free_k, 0, sizeof(*free_k));
		free_k->key = key;
		free_k->used = true;
	}
	return free_k;
}

static int32_t shift_of(const struct live_align_key *k, uint32_t proc)
{
	for (uint32_t i = 0; i < k->nshift; i++)
		if (k->shift[i].proc == proc)
			return k->shift[i].shift;
	return 0; /* not seen while aligning: counted from where the others were */
}

static void match_shifted(const struct live_align_key *k, const struct live_call *c, live_match_fn match, void *ctx)
{
	struct live_call x = *c;
	int64_t s = (int64_t)c->seq + shift_of(k, c->proc);

	if (s < 1)
		return; /* a collective before the others' first */
	x.seq = (uint64_t)s;
	match(ctx, &x);
}

/* Every rank made LIVE_ALIGN_CALLS calls: the shifts are as clear as they get. */
static bool enough(const struct live_align_key *k)
{
	uint32_t procs[LIVE_ALIGN_HOLD], counts[LIVE_ALIGN_HOLD], n = 0;
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
		for (uint32_t i = 0; i < k->nheld; i++) {
			const struct live_call *c = &k->held[it[i].idx];
			bool known = false;

			for (uint32_t j = 0; j < k->nshift && !known; j++)
				known = k->shift[j].proc == c->proc;
			if (!known && k->nshift < LIVE_ALIGN_PROCS) {
				k->shift[k->nshift].proc = c->proc;
				k->shift[k->nshift++].shift = (int32_t)(it[i].seq - (int64_t)c->seq);
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

void live_align__feed(struct live_align *a, const struct live_call *c, live_match_fn match, void *ctx)
{
	struct live_align_key *k = key_of(a, c->key);

	if (!k) { /* more communicators than the table: unaligned */
		match(ctx, c);
		return;
	}
	if (k->done) {
		match_shifted(k, c, match, ctx);
		return;
	}
	k->held[k->nheld++] = *c;
	if (k->nheld == LIVE_ALIGN_HOLD || enough(k))
		align(k, match, ctx);
}

void live_align__flush(struct live_align *a, live_match_fn match, void *ctx)
{
	for (int i = 0; i < LIVE_ALIGN_KEYS; i++)
		if (a->k[i].used && !a->k[i].done && a->k[i].nheld)
			align(&a->k[i], match, ctx);
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
