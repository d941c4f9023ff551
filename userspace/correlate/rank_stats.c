// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 7 of corr__build(): per-rank analysis.  For each rank: the
 * collectives it took part in, its waits for the others, how often and by
 * how much it was the straggler, and its calls per op (corr.rank_ops).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/correlate/corr_internal.h"

uint32_t corr__blamed_rank(const struct corr_instance *in)
{
	if (in->verdict == CORR_RANK && in->budget.waiting_rank != CORR_NONE)
		return in->budget.waiting_rank;
	return in->straggler;
}

uint64_t corr__straggler_late_ns(const struct corr *c, const struct corr_instance *in)
{
	uint64_t prev = in->first_entry;
	bool seen_last = false;

	if (in->nmembers < 2 || !in->skew_ns || in->straggler == CORR_NONE)
		return 0;
	/* the latest entry of the others */
	for (size_t k = 0; k < in->nmembers; k++) {
		const struct corr_call *m = &c->calls[c->members[in->first_member + k]];

		if (m->rank == in->straggler && m->start_ns == in->last_entry && !seen_last) {
			seen_last = true;
			continue;
		}
		if (m->start_ns > prev)
			prev = m->start_ns;
	}
	return dur(prev, in->last_entry);
}

/* BUF gets the NAME of the named --phase slot with model_slot.custom == I
 * (report --windows builds models in threads: no static buffer). */
static void custom_name(const struct model *m, uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "custom");
	for (size_t k = 0; k < m->nslots; k++)
		if (m->slots[k].custom == i) {
			snprintf(buf, len, "%.*s", (int)sizeof(m->slots[k].name), m->slots[k].name);
			return;
		}
}

/* K's accumulator: its op, or FT_OP_MAX + the index of its named --phase slot. */
static size_t op_slot(const struct model *m, const struct corr_call *k)
{
	const struct model_slot *s;

	if (k->op == FT_OP_CUSTOM && (s = model__slot(m, k->slot)) && s->custom != UINT32_MAX)
		return (size_t)FT_OP_MAX + s->custom;
	return k->op < FT_OP_MAX ? k->op : FT_OP_NONE;
}

int corr_rank_stats(struct corr *c)
{
	uint64_t (*acc)[5];
	/* by op, and each named --phase slot apart (FT_OP_MAX + model_slot.custom) */
	size_t nslot = (size_t)FT_OP_MAX + c->m->ncustom;

	if (!c->nranks)
		return 0;
	acc = calloc(c->nranks * nslot, sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];
		uint64_t *a;

		if (k->rank == CORR_NONE)
			continue;
		a = acc[(size_t)k->rank * nslot + op_slot(c->m, k)];
		a[0]++;
		a[1] += k->bytes;
		a[2] += k->size_bytes;
		a[3] += dur(k->start_ns, k->end_ns);
		a[4] += (k->flags & (CORR_CALL_OPEN | CORR_CALL_NO_COMPLETION)) != 0;
		c->ranks[k->rank].calls++;
		if (k->instance != CORR_NONE) {
			const struct corr_instance *in = &c->instances[k->instance];

			c->ranks[k->rank].collectives++;
			c->ranks[k->rank].coll_time_ns += dur(k->start_ns, k->end_ns);
			c->ranks[k->rank].wait_ns += dur(k->start_ns, in->last_entry);
		}
	}
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		if (in->nmembers < 2 || !in->skew_ns || in->straggler == CORR_NONE)
			continue;
		c->ranks[in->straggler].straggler_count++;
		c->ranks[in->straggler].late_ns += corr__straggler_late_ns(c, in);
	}
	for (size_t i = 0; i < c->nranks * nslot; i++)
		c->nrank_ops += acc[i][0] != 0;
	c->rank_ops = calloc(c->nrank_ops ? c->nrank_ops : 1, sizeof(*c->rank_ops));
	if (!c->rank_ops) {
		free(acc);
		return -ENOMEM;
	}
	c->nrank_ops = 0;
	for (size_t r = 0; r < c->nranks; r++) {
		c->ranks[r].first_op = c->nrank_ops;
		for (size_t op = 0; op < nslot; op++) {
			const uint64_t *a = acc[r * nslot + op];
			struct corr_rank_op *o;

			if (!a[0])
				continue;
			o = &c->rank_ops[c->nrank_ops++];
			o->op = op < FT_OP_MAX ? (uint32_t)op : FT_OP_CUSTOM;
			if (op < FT_OP_MAX)
				snprintf(o->name, sizeof(o->name), "%s", corr__op_name((unsigned)op));
			else
				custom_name(c->m, (uint32_t)(op - FT_OP_MAX), o->name, sizeof(o->name));
			o->calls = a[0];
			o->bytes = a[1];
			o->size_bytes = a[2];
			o->time_ns = a[3];
			o->open = a[4];
		}
		c->ranks[r].nops = c->nrank_ops - c->ranks[r].first_op;
	}
	free(acc);
	return 0;
}

