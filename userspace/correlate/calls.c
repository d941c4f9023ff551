// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 2 of corr__build(): calls.  One corr_call per traced library
 * call (markers excluded), blocking from entry to return, non-blocking from
 * start to the first completion of the same (pid, request); the NCCL
 * profiler plugin's records replace host-side enqueue-only calls.
 */
#include <errno.h>
#include <stdlib.h>

#include "userspace/correlate/corr_internal.h"
#include "userspace/correlate/corr_plugin.h"

static int cmp_nb(const void *a, const void *b, void *arg)
{
	const struct corr_call *calls = arg;
	const struct corr_call *x = &calls[*(const uint32_t *)a], *y = &calls[*(const uint32_t *)b];
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->req, y->req);
	if (!c)
		c = cmp_u64(x->start_ns, y->start_ns);
	return c ? c : cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* -1, 0, 1: (pid, req) of a completion against a call's */
static int cmp_done_call(const struct model_req_done *d, const struct corr_call *k)
{
	int c = cmp_u32(d->pid, k->pid);

	return c ? c : cmp_u64(d->req, k->req);
}

/*
 * A non-blocking call ends at the first completion of its (pid, request)
 * at or after its start that no earlier call of the same handle took:
 * handles are reused once completed, so calls and completions of one
 * handle pair up in time order.
 */
static int match_completions(struct corr *c)
{
	const struct model *m = c->m;
	uint32_t *nb;
	size_t n = 0, j = 0;

	for (size_t i = 0; i < c->ncalls; i++)
		n += (c->calls[i].flags & CORR_CALL_NONBLOCKING) && !(c->calls[i].flags & CORR_CALL_OPEN);
	if (!n)
		return 0;
	nb = malloc(n * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < c->ncalls; i++)
		if ((c->calls[i].flags & CORR_CALL_NONBLOCKING) && !(c->calls[i].flags & CORR_CALL_OPEN))
			nb[n++] = (uint32_t)i;
	qsort_r(nb, n, sizeof(*nb), cmp_nb, c->calls);
	for (size_t i = 0; i < n; i++) {
		struct corr_call *k = &c->calls[nb[i]];

		while (j < m->nreq_dones && cmp_done_call(&m->req_dones[j], k) < 0)
			j++;
		while (j < m->nreq_dones && cmp_done_call(&m->req_dones[j], k) == 0 &&
		       m->req_dones[j].ts_ns < k->start_ns)
			j++;
		if (j < m->nreq_dones && cmp_done_call(&m->req_dones[j], k) == 0) {
			k->end_ns = m->req_dones[j].ts_ns > k->start_ns ? m->req_dones[j].ts_ns : k->start_ns;
			k->flags |= CORR_CALL_COMPLETED;
			j++;
		} else {
			k->flags |= CORR_CALL_NO_COMPLETION;
		}
	}
	free(nb);
	return 0;
}

int corr_build_calls(struct corr *c)
{
	const struct model *m = c->m;
	size_t n = 0;

	for (size_t i = 0; i < m->nphases; i++)
		n += !corr_is_marker(&m->phases[i], model__slot(m, m->phases[i].slot)) &&
		     !corr_plugin__is_child(model__slot(m, m->phases[i].slot));
	c->calls = calloc(n ? n : 1, sizeof(*c->calls));
	if (!c->calls)
		return -ENOMEM;
	for (size_t i = 0; i < m->nphases; i++) {
		const struct model_phase *p = &m->phases[i];
		const struct model_slot *s = model__slot(m, p->slot);
		const struct corr_proc *pr;
		struct corr_call *k;

		if (corr_is_marker(p, s) || corr_plugin__is_child(s))
			continue;
		k = &c->calls[c->ncalls++];
		k->start_ns = p->start_ns;
		k->end_ns = k->ret_ns = p->end_ns;
		k->count = p->count;
		k->comm = p->comm;
		k->seq = p->seq;
		k->req = p->req;
		k->bytes = p->dtype_size && p->count <= UINT64_MAX / p->dtype_size ?
			   p->count * p->dtype_size : 0;
		k->pid = p->pid;
		k->tid = p->tid;
		k->netns = p->netns;
		k->slot = p->slot;
		k->op = s && s->op < FT_OP_MAX ? s->op : FT_OP_NONE;
		k->peer = p->peer;
		k->comm_name = p->name;
		if (p->flags & FT_PHASE_OPEN)
			k->flags |= CORR_CALL_OPEN;
		if ((p->flags & FT_PHASE_NONBLOCKING) || (s && (s->flags & FT_SLOT_NONBLOCKING) && p->req))
			k->flags |= CORR_CALL_NONBLOCKING;
		if (s && (s->flags & FT_SLOT_ENQUEUE_ONLY))
			k->flags |= CORR_CALL_ENQUEUE_ONLY;
		if (corr_plugin__is_plugin(s))
			k->flags |= CORR_CALL_PLUGIN;
		if (p->flags & FT_PHASE_COUNT_TOTAL)
			k->flags |= CORR_CALL_COUNT_TOTAL;
		if (p->flags & FT_PHASE_LIB_SEQ)
			k->flags |= CORR_CALL_LIB_SEQ;
		pr = corr_proc_of(c, p->pid);
		k->rank = pr ? pr->rank : CORR_NONE;
		k->instance = CORR_NONE;
		k->prev_call = CORR_NONE;
		k->span = CORR_NONE;
		k->step = -1;
	}
	/* the NCCL profiler plugin times these collectives for real: no enqueue-only twins */
	corr_plugin__drop_enqueue(c);
	corr_plugin__summary(m, c, &c->plugin);
	return match_completions(c);
}

