// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each (op, size, ranks) group's expected transfer and its typical one
 * (correlate.h, struct corr_baseline), from one sample per collective: the
 * rule is here once, for a capture's own collectives (budget.c) and for the
 * samples `report --windows` gathers over a whole capture.
 *
 *   clean samples (items under a tenth of the group's median transfer: a
 *   transfer a stalled host drew out is not clean for being long), at least 5:
 *       expected = their 10th percentile, typical = their median
 *   1 to 4 clean: expected = the least, typical = their median
 *   none clean (congested all along): the residuals, transfer less items:
 *       expected = typical = their median (the items' estimates err both
 *       ways); budget.c raises it to the line rate's time where that is more
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/util.h"
#include "userspace/correlate/corr_internal.h"

/* Clean: the items' estimates under a tenth of the group's median transfer. */
#define CLEAN_DIV 10

/* Does IN take part in the group's baseline?  Not when a rank is missing (a
 * window cut it, or its probes attached late): its transfer is not the group's. */
bool corr_budget_judged(const struct corr_instance *in)
{
	return in->nmembers >= 2 && !in->open && !in->partial;
}

#define GROUP_MIN 5
#define GROUP_PCT 10

static int cmp_key(const uint32_t op1, uint64_t sz1, uint32_t nr1, uint8_t eq1, uint32_t op2, uint64_t sz2,
		   uint32_t nr2, uint8_t eq2)
{
	int c = cmp_u32(op1, op2);

	if (!c)
		c = cmp_u64(sz1, sz2);
	if (!c)
		c = cmp_u32(nr1, nr2);
	return c ? c : cmp_u32(eq1, eq2);
}

static int cmp_sample(const void *a, const void *b)
{
	const struct corr_sample *x = a, *y = b;

	return cmp_key(x->op, x->size_bytes, x->nranks, x->enqueue_only, y->op, y->size_bytes, y->nranks,
		       y->enqueue_only);
}

int corr__samples(const struct corr *c, uint64_t from, uint64_t to, struct corr_sample **v, size_t *n,
		  size_t *cap)
{
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		struct corr_sample *s;

		if (in->first_entry < from || in->first_entry >= to || !corr_budget_judged(in))
			continue;
		if (grow_array((void **)v, cap, *n + 1, sizeof(**v)))
			return -ENOMEM;
		s = &(*v)[(*n)++];
		s->op = in->op;
		s->nranks = in->nranks;
		s->size_bytes = in->size_bytes;
		s->enqueue_only = in->enqueue_only;
		s->transfer_ns = in->all_arrived_ns;
		s->items_ns = in->budget.items_ns;
	}
	return 0;
}

static int cmp_u64p(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* One group's baseline from its samples V[0..N). */
static void group(const struct corr_sample *v, size_t n, uint64_t *r, struct corr_baseline *b)
{
	size_t nc = 0, k;
	uint64_t median;

	for (size_t i = 0; i < n; i++)
		r[i] = v[i].transfer_ns;
	qsort(r, n, sizeof(*r), cmp_u64p);
	median = r[(n - 1) / 2];
	for (size_t i = 0; i < n; i++)
		if (v[i].items_ns * CLEAN_DIV < median)
			r[nc++] = v[i].transfer_ns;
	k = nc;
	if (!nc) /* none clean: the residuals */
		for (size_t i = 0; i < n; i++)
			r[k++] = v[i].transfer_ns > v[i].items_ns ? v[i].transfer_ns - v[i].items_ns : 0;
	qsort(r, k, sizeof(*r), cmp_u64p);
	b->typical_ns = r[(k - 1) / 2];
	if (!nc) {
		b->expected_ns = b->typical_ns;
		b->from = CORR_EXPECTED_RESIDUAL;
	} else if (nc >= GROUP_MIN) {
		size_t p = (nc * GROUP_PCT + 99) / 100;

		b->expected_ns = r[p ? p - 1 : 0];
		b->from = CORR_EXPECTED_GROUP;
	} else {
		b->expected_ns = r[0];
		b->from = CORR_EXPECTED_GROUP_MIN;
	}
}

int corr__baselines(struct corr_sample *v, size_t n, struct corr_baseline **out, size_t *nout)
{
	uint64_t *r;
	size_t ng = 0;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_sample);
	for (size_t i = 0; i < n; i++)
		ng += !i || cmp_sample(&v[i - 1], &v[i]);
	r = malloc(n * sizeof(*r));
	*out = calloc(ng, sizeof(**out));
	if (!r || !*out) {
		free(r);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		struct corr_baseline *b = &(*out)[(*nout)++];
		size_t j = i + 1;

		while (j < n && !cmp_sample(&v[i], &v[j]))
			j++;
		b->op = v[i].op;
		b->nranks = v[i].nranks;
		b->size_bytes = v[i].size_bytes;
		b->enqueue_only = v[i].enqueue_only;
		group(&v[i], j - i, r, b);
		i = j;
	}
	free(r);
	return 0;
}

const struct corr_baseline *corr__baseline_of(const struct corr_baseline *base, size_t n, uint32_t op,
					      uint64_t size_bytes, uint32_t nranks, bool enqueue_only)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(base[mid].op, base[mid].size_bytes, base[mid].nranks, base[mid].enqueue_only, op,
				size_bytes, nranks, enqueue_only);

		if (!c)
			return &base[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
