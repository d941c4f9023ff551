// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 5 of corr__build(): per (op, size, ranks) statistics of the
 * instances (count, span percentiles, bandwidth means).  It runs before the
 * verdicts, which need the median span of each group to call one slow.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "userspace/correlate/corr_internal.h"

static int cmp_opgroup(const struct corr_instance *x, const struct corr_instance *y)
{
	int c = cmp_u32(x->op, y->op);

	if (!c)
		c = cmp_u64(x->size_bytes, y->size_bytes);
	if (!c)
		c = cmp_u32(x->nranks, y->nranks);
	return c ? c : cmp_u32(x->enqueue_only, y->enqueue_only);
}

static int cmp_by_group_span(const void *a, const void *b, void *arg)
{
	const struct corr_instance *in = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_opgroup(&in[ia], &in[ib]);

	if (!c)
		c = cmp_u64(in[ia].span_ns, in[ib].span_ns);
	return c ? c : cmp_u32(ia, ib);
}

/* Nearest-rank percentile of N sorted values: the ceil(p/100 * n)-th. */
static size_t pct_index(size_t n, unsigned p)
{
	size_t r = (n * p + 99) / 100;

	return r ? r - 1 : 0;
}

int corr_build_opstats(struct corr *c)
{
	uint32_t *ix;
	size_t ng = 0;

	if (!c->ninstances)
		return 0;
	ix = malloc(c->ninstances * sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, c->ninstances, sizeof(*ix), cmp_by_group_span, c->instances);
	for (size_t i = 0; i < c->ninstances; i++)
		ng += !i || cmp_opgroup(&c->instances[ix[i - 1]], &c->instances[ix[i]]);
	c->opstats = calloc(ng, sizeof(*c->opstats));
	if (!c->opstats) {
		free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->ninstances;) {
		struct corr_opstat *g = &c->opstats[c->nopstats];
		const struct corr_instance *f = &c->instances[ix[i]];
		size_t j = i + 1, nbw = 0; /* a group holds at least f itself */
		double sum = 0, algsum = 0, bussum = 0;
		uint64_t aa = 0;

		while (j < c->ninstances && !cmp_opgroup(f, &c->instances[ix[j]]))
			j++;
		g->op = f->op;
		g->nranks = f->nranks;
		g->size_bytes = f->size_bytes;
		g->enqueue_only = f->enqueue_only;
		g->count = j - i;
		g->busbw_factor = f->busbw_factor;
		for (size_t k = i; k < j; k++) {
			struct corr_instance *in = &c->instances[ix[k]];

			in->opstat = (uint32_t)c->nopstats;
			sum += (double)in->span_ns;
			aa += in->all_arrived_ns;
			if (in->algbw == in->algbw) {
				algsum += in->algbw;
				bussum += in->busbw;
				nbw++;
			}
		}
		g->span_mean_ns = (uint64_t)(sum / (double)g->count + 0.5);
		g->all_arrived_mean_ns = aa / g->count;
		g->span_p50_ns = c->instances[ix[i + pct_index(g->count, 50)]].span_ns;
		g->span_p99_ns = c->instances[ix[i + pct_index(g->count, 99)]].span_ns;
		g->span_max_ns = c->instances[ix[j - 1]].span_ns;
		g->algbw_mean = nbw ? algsum / (double)nbw : NAN;
		g->busbw_mean = nbw ? bussum / (double)nbw : NAN;
		c->nopstats++;
		i = j;
	}
	free(ix);
	return 0;
}

