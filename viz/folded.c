// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks (Brendan Gregg's FlameGraph input: "a;b;c weight" per line)
 * answering "where did the collective time go":
 *
 *   rank;collective;phase;cause weight
 *
 *   rank        "rank 1 (h2)"
 *   collective  op and nccl-tests size, "allreduce 1.05 MB"
 *   phase       wait (in the call before the last rank entered), transfer
 *               (every rank in, until this rank's exit), or call (not part
 *               of a matched collective)
 *   cause       the collective's time budget (docs/verdicts.md), split over
 *               each rank's phase as it splits the collective: for transfer
 *               "expected", the network's items by kind and link ("shaper
 *               eth0@h2", "queue eth0@h2", "retrans eth0@h1", "drops ...",
 *               "cnp", "pause", "rdma-loss") and "unexplained"; for wait
 *               "rank-late" (the waiting share), "carried LINK" (lateness
 *               carried from a network-bound collective), "usual-skew";
 *               "unmatched" for calls outside collectives
 *   weight      ns inside the window, split as the budget splits the phase;
 *               or bytes (--weight bytes: a call's bytes on its transfer
 *               phase, else on its wait, prorated when the window cuts the
 *               phase), all on the phase's leading cause (viz__cause)
 *
 * Identical stacks are summed; lines are sorted, so the output is stable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "viz/common.h"

struct stack_w {
	char *s;
	uint64_t w;
};

struct folded {
	struct stack_w *v;
	size_t n, cap;
};

/* Frames must not contain the separators flamegraph.pl splits on. */
static void frame(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = src[i] == ';' ? ',' : (src[i] == '\n' || src[i] == '\r') ? ' ' : src[i];
	dst[i] = '\0';
}

static int add(struct folded *fo, const char *rank, const char *coll, const char *phase, const char *cause,
	       uint64_t w)
{
	char a[96], b[96], c[32], d[96], line[320];

	if (!w)
		return 0;
	frame(a, sizeof(a), rank);
	frame(b, sizeof(b), coll);
	frame(c, sizeof(c), phase);
	frame(d, sizeof(d), cause);
	snprintf(line, sizeof(line), "%s;%s;%s;%s", a, b, c, d);
	if (grow_array((void **)&fo->v, &fo->cap, fo->n + 1, sizeof(*fo->v)))
		return -ENOMEM;
	fo->v[fo->n].s = strdup(line);
	if (!fo->v[fo->n].s)
		return -ENOMEM;
	fo->v[fo->n++].w = w;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stack_w *)a)->s, ((const struct stack_w *)b)->s);
}

/* Part of [a, b) inside [from, to). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t from, uint64_t to)
{
	uint64_t x = a > from ? a : from, y = b < to ? b : to;

	return y > x ? y - x : 0;
}

/* BYTES prorated by the part of [a, b) inside the window (all of them for an instant phase inside). */
static uint64_t prorate(uint64_t bytes, uint64_t a, uint64_t b, uint64_t from, uint64_t to)
{
	if (b <= a)
		return a >= from && a < to ? bytes : 0;
	return (uint64_t)((unsigned __int128)bytes * overlap(a, b, from, to) / (b - a));
}

struct frames {
	struct folded *fo;
	const char *rank, *coll, *phase;
};

static int add_part(void *ctx, const char *cause, uint64_t part)
{
	const struct frames *x = ctx;

	return add(x->fo, x->rank, x->coll, x->phase, cause, part);
}

int viz__folded(const struct viz_ctx *v, FILE *f)
{
	const struct corr *c;
	struct folded fo = { 0 };
	uint64_t from, to;
	int err = 0;

	if (!v || !v->m || !f)
		return -EINVAL;
	c = v->c;
	viz__window(v, false, &from, &to);
	for (size_t i = 0; c && i < c->ncalls && !err; i++) {
		const struct corr_call *k = &c->calls[i];
		char rank[96], coll[96], cause[96];
		bool bytes = v->weight == VIZ_WEIGHT_BYTES;

		if (k->rank == CORR_NONE || k->rank >= c->nranks)
			continue;
		viz__rank_label(c, k->rank, rank, sizeof(rank));
		viz__coll_name(c, k, coll, sizeof(coll));
		if (k->instance == CORR_NONE) {
			uint64_t w = bytes ? prorate(k->bytes, k->start_ns, k->end_ns, from, to)
					   : overlap(k->start_ns, k->end_ns, from, to);

			err = add(&fo, rank, coll, "call", viz__cause(c, k, VIZ_CALL, cause, sizeof(cause)), w);
			continue;
		}
		{
			uint64_t last = c->instances[k->instance].last_entry;
			uint64_t w_end = last < k->end_ns ? last : k->end_ns;
			uint64_t x_start = last > k->start_ns ? last : k->start_ns;
			bool has_x = k->end_ns > x_start;
			uint64_t ww, wx;

			if (bytes) {
				ww = has_x ? 0 : prorate(k->bytes, k->start_ns, w_end, from, to);
				wx = has_x ? prorate(k->bytes, x_start, k->end_ns, from, to) : 0;
			} else {
				ww = w_end > k->start_ns ? overlap(k->start_ns, w_end, from, to) : 0;
				wx = has_x ? overlap(x_start, k->end_ns, from, to) : 0;
			}
			struct frames fw = { &fo, rank, coll, "wait" }, fx = { &fo, rank, coll, "transfer" };

			if (bytes) { /* bytes are not split by time: all on the phase's leading cause */
				err = add(&fo, rank, coll, "wait", viz__cause(c, k, VIZ_WAIT, cause, sizeof(cause)), ww);
				if (!err)
					err = add(&fo, rank, coll, "transfer",
						  viz__cause(c, k, VIZ_XFER, cause, sizeof(cause)), wx);
			} else {
				err = viz__budget_split(c, k, VIZ_WAIT, ww, add_part, &fw);
				if (!err)
					err = viz__budget_split(c, k, VIZ_XFER, wx, add_part, &fx);
			}
		}
	}
	if (!err && fo.n) {
		size_t k = 0;

		qsort(fo.v, fo.n, sizeof(*fo.v), cmp_stack);
		for (size_t i = 0; i < fo.n; i++) {
			if (k && !strcmp(fo.v[k - 1].s, fo.v[i].s)) {
				fo.v[k - 1].w += fo.v[i].w;
				free(fo.v[i].s);
			} else {
				fo.v[k++] = fo.v[i];
			}
		}
		fo.n = k;
		for (size_t i = 0; i < fo.n; i++)
			fprintf(f, "%s %" PRIu64 "\n", fo.v[i].s, fo.v[i].w);
	}
	for (size_t i = 0; i < fo.n; i++)
		free(fo.v[i].s);
	free(fo.v);
	if (err)
		return err;
	return fflush(f) || ferror(f) ? -EIO : 0;
}
