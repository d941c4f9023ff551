// SPDX-License-Identifier: GPL-2.0-or-later
/* The NCCL profiler plugin's records in the correlator (see corr_plugin.h). */
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_plugin.h"

bool corr_plugin__is_plugin(const struct model_slot *s)
{
	return s && (s->flags & FT_SLOT_PLUGIN);
}

bool corr_plugin__is_child(const struct model_slot *s)
{
	return corr_plugin__is_plugin(s) && !(s->flags & FT_SLOT_COLLECTIVE) && s->op == FT_OP_CUSTOM;
}

static int cmp_u32p(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void corr_plugin__drop_enqueue(struct corr *c)
{
	uint32_t *pids;
	size_t np = 0, w = 0;

	for (size_t i = 0; i < c->ncalls; i++)
		np += (c->calls[i].flags & CORR_CALL_PLUGIN) != 0;
	if (!np)
		return;
	pids = malloc(np * sizeof(*pids));
	if (!pids)
		return; /* keep them all: counted twice, never lost */
	np = 0;
	for (size_t i = 0; i < c->ncalls; i++)
		if (c->calls[i].flags & CORR_CALL_PLUGIN)
			pids[np++] = c->calls[i].pid;
	qsort(pids, np, sizeof(*pids), cmp_u32p);
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];

		if ((k->flags & CORR_CALL_ENQUEUE_ONLY) &&
		    bsearch(&k->pid, pids, np, sizeof(*pids), cmp_u32p)) {
			c->plugin.dropped_enqueue++;
			continue;
		}
		if (w != i)
			c->calls[w] = *k;
		w++;
	}
	c->ncalls = w;
	free(pids);
}

void corr_plugin__summary(const struct model *m, const struct corr *c, struct corr_plugin_sum *out)
{
	uint64_t dropped = out->dropped_enqueue;

	(void)c;
	memset(out, 0, sizeof(*out));
	out->dropped_enqueue = dropped;
	for (size_t i = 0; i < m->nphases; i++) {
		const struct model_phase *p = &m->phases[i];
		const struct model_slot *s = model__slot(m, p->slot);

		if (!corr_plugin__is_plugin(s))
			continue;
		if (corr_plugin__is_child(s)) {
			out->proxy_ops++;
			out->proxy_bytes += p->count;
			continue;
		}
		out->calls++;
		if (p->flags & FT_PHASE_GPU_TIMER)
			out->gpu_timed++;
		else if (p->flags & FT_PHASE_PROXY)
			out->proxy_timed++;
		else
			out->host_timed++;
	}
}

bool corr_plugin__enqueue_uncovered(const struct model *m)
{
	uint32_t *pids = NULL;
	size_t np = 0;
	bool found = false;

	for (size_t i = 0; i < m->nphases; i++)
		np += corr_plugin__is_plugin(model__slot(m, m->phases[i].slot));
	if (np) {
		pids = malloc(np * sizeof(*pids));
		if (!pids)
			return true;
		np = 0;
		for (size_t i = 0; i < m->nphases; i++)
			if (corr_plugin__is_plugin(model__slot(m, m->phases[i].slot)))
				pids[np++] = m->phases[i].pid;
		qsort(pids, np, sizeof(*pids), cmp_u32p);
	}
	for (size_t i = 0; i < m->nphases && !found; i++) {
		const struct model_slot *s = model__slot(m, m->phases[i].slot);

		if (s && (s->flags & FT_SLOT_ENQUEUE_ONLY))
			found = !np || !bsearch(&m->phases[i].pid, pids, np, sizeof(*pids), cmp_u32p);
	}
	free(pids);
	return found;
}
