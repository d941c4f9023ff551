// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Collective phases and single events at finish: slots, phases, request
 * completions, communicators, processes, socket owners, retransmits and
 * drops sorted, and flows and interfaces given their slices.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

static int cmp_slot(const void *a, const void *b)
{
	return cmp_u32(((const struct model_slot *)a)->slot, ((const struct model_slot *)b)->slot);
}

static int cmp_phase(const void *a, const void *b)
{
	const struct model_phase *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->start_ns, y->start_ns);
	if (!c)
		c = cmp_u64(x->end_ns, y->end_ns);
	if (!c)
		c = cmp_u32(x->tid, y->tid);
	if (!c)
		c = cmp_u32(x->slot, y->slot);
	if (!c)
		c = cmp_u64(x->seq, y->seq);
	return c ? c : cmp_u32(x->flags, y->flags);
}

static int cmp_req_done(const void *a, const void *b)
{
	const struct model_req_done *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->req, y->req);
	if (!c)
		c = cmp_u64(x->ts_ns, y->ts_ns);
	return c ? c : cmp_u32(x->tid, y->tid);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct model_comm *x = a, *y = b;
	int c = cmp_u32(x->pid, y->pid);

	return c ? c : cmp_u64(x->comm, y->comm);
}

static int cmp_proc(const void *a, const void *b)
{
	return cmp_u32(((const struct model_proc *)a)->pid, ((const struct model_proc *)b)->pid);
}

/*
 * Each flow's slice of EV[0..N) (SZ bytes each, sorted by their u32 flow at
 * FLOW_OFF; UINT32_MAX: none), stored in its struct model_flow's size_t
 * members at FIRST_OFF and N_OFF (FLOW_SLICES names them).
 */
static uint32_t flow_at(const unsigned char *ev, size_t sz, size_t flow_off, size_t i)
{
	uint32_t f;

	memcpy(&f, ev + i * sz + flow_off, sizeof(f));
	return f;
}

static void flow_slices(struct model *m, const void *ev, size_t n, size_t sz, size_t flow_off, size_t first_off,
			size_t n_off)
{
	for (size_t i = 0; i < n;) {
		uint32_t f = flow_at(ev, sz, flow_off, i);
		size_t j = i + 1;

		while (j < n && flow_at(ev, sz, flow_off, j) == f)
			j++;
		if (f != UINT32_MAX && f < m->nflows) {
			unsigned char *w = (unsigned char *)&m->flows[f];
			size_t cnt = j - i;

			memcpy(w + first_off, &i, sizeof(i));
			memcpy(w + n_off, &cnt, sizeof(cnt));
		}
		i = j;
	}
}

#define FLOW_SLICES(m, ev, n, first, count)                                                                   \
	flow_slices((m), (ev), (n), sizeof(*(ev)), offsetof(__typeof__(*(ev)), flow),                          \
		    offsetof(struct model_flow, first), offsetof(struct model_flow, count))

static int cmp_owner(const void *a, const void *b)
{
	const struct model_owner *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	if (!c && x->flow == UINT32_MAX)
		c = mdl_cmp_flow_key(&x->key, &y->key);
	return c ? c : cmp_u32(x->pid, y->pid);
}

static int cmp_rtx(const void *a, const void *b)
{
	const struct model_rtx *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	return c ? c : cmp_u64(x->ts_ns, y->ts_ns);
}

static int cmp_cong_ev(const void *a, const void *b)
{
	const struct model_cong_ev *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	if (!c)
		c = cmp_u64(x->ts_ns, y->ts_ns);
	if (!c)
		c = cmp_u32(x->old_state, y->old_state);
	return c ? c : cmp_u32(x->new_state, y->new_state);
}

/* Congestion-state changes: flow index by key, each flow's slice (the budget's
 * test of a tail-loss probe: was a loss repaired, did the window shrink). */
static int finish_cong_events(struct model *m)
{
	struct model_priv *p = m->priv;
	const struct cong_raw *raw = p->congev.items;

	if (!p->congev.n)
		return 0;
	m->cong_events = calloc(p->congev.n, sizeof(*m->cong_events));
	if (!m->cong_events)
		return -ENOMEM;
	for (size_t i = 0; i < p->congev.n; i++) {
		long f = mdl_kvec_find(&p->flows, &raw[i].key);
		struct model_cong_ev *e = &m->cong_events[m->ncong_events];

		if (f < 0)
			continue; /* cannot happen: the record created its flow */
		e->ts_ns = raw[i].ts_ns;
		e->flow = (uint32_t)f;
		e->old_state = raw[i].old_state;
		e->new_state = raw[i].new_state;
		m->ncong_events++;
	}
	mdl_vec_free(&p->congev);
	qsort(m->cong_events, m->ncong_events, sizeof(*m->cong_events), cmp_cong_ev);
	FLOW_SLICES(m, m->cong_events, m->ncong_events, first_cong, ncong);
	return 0;
}

static int cmp_resume(const void *a, const void *b)
{
	const struct model_resume *x = a, *y = b;
	int c = cmp_u32(x->flow, y->flow);

	return c ? c : cmp_u64(x->ts_ns, y->ts_ns);
}

/* The ends of the flows' silences (model_resume): flow index by key, each flow's slice. */
static int finish_resume_events(struct model *m)
{
	struct model_priv *p = m->priv;
	const struct resume_raw *raw = p->resumeev.items;

	if (!p->resumeev.n)
		return 0;
	m->resume_events = calloc(p->resumeev.n, sizeof(*m->resume_events));
	if (!m->resume_events)
		return -ENOMEM;
	for (size_t i = 0; i < p->resumeev.n; i++) {
		long f = mdl_kvec_find(&p->flows, &raw[i].key);
		struct model_resume *e = &m->resume_events[m->nresume_events];

		if (f < 0)
			continue; /* cannot happen: the sample created its flow */
		e->from_ns = raw[i].from_ns;
		e->ts_ns = raw[i].ts_ns;
		e->flow = (uint32_t)f;
		e->packets_out = raw[i].packets_out;
		m->nresume_events++;
	}
	mdl_vec_free(&p->resumeev);
	qsort(m->resume_events, m->nresume_events, sizeof(*m->resume_events), cmp_resume);
	FLOW_SLICES(m, m->resume_events, m->nresume_events, first_resume, nresume);
	return 0;
}

static int cmp_drop_ev(const void *a, const void *b)
{
	const struct model_drop_ev *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u64(x->ts_ns, y->ts_ns);
	return c ? c : cmp_u32(x->reason, y->reason);
}


/*
 * Phase records and single events (after interfaces and flows have their
 * final order): sort, and give flows and interfaces their slices.
 */
int mdl_finish_phases(struct model *m)
{
	struct model_priv *p = m->priv;

	m->slots = (struct model_slot *)p->slots.items;
	m->nslots = p->slots.n;
	if (m->nslots)
		qsort(m->slots, m->nslots, sizeof(*m->slots), cmp_slot);
	/* a --phase NAME is an op of its own in the views (report, HTML) */
	m->ncustom = 0;
	for (size_t i = 0; i < m->nslots; i++)
		m->slots[i].custom = m->slots[i].op == FT_OP_CUSTOM && m->slots[i].name[0] ? (uint32_t)m->ncustom++
											      : UINT32_MAX;
	m->phases = p->phases.items;
	m->nphases = p->phases.n;
	if (m->nphases)
		qsort(m->phases, m->nphases, sizeof(*m->phases), cmp_phase);
	m->req_dones = p->req_dones.items;
	m->nreq_dones = p->req_dones.n;
	if (m->nreq_dones)
		qsort(m->req_dones, m->nreq_dones, sizeof(*m->req_dones), cmp_req_done);
	m->comms = (struct model_comm *)p->comms.items;
	m->ncomms = p->comms.n;
	if (m->ncomms)
		qsort(m->comms, m->ncomms, sizeof(*m->comms), cmp_comm);
	m->procs = (struct model_proc *)p->procs.items;
	m->nprocs = p->procs.n;
	if (m->nprocs)
		qsort(m->procs, m->nprocs, sizeof(*m->procs), cmp_proc);

	/* owners: on their flow (its key is the owner's key without the pid) */
	m->owners = (struct model_owner *)p->owners.items;
	m->nowners = p->owners.n;
	for (size_t i = 0; i < m->nowners; i++) {
		long f = mdl_kvec_find(&p->flows, &m->owners[i].key);

		m->owners[i].flow = f < 0 ? UINT32_MAX : (uint32_t)f;
	}
	if (m->nowners)
		qsort(m->owners, m->nowners, sizeof(*m->owners), cmp_owner);
	FLOW_SLICES(m, m->owners, m->nowners, first_owner, nowners);

	/* retransmits: flow index by key */
	if (p->rtx.n) {
		const struct rtx_raw *raw = p->rtx.items;

		m->rtx_events = calloc(p->rtx.n, sizeof(*m->rtx_events));
		if (!m->rtx_events)
			return -ENOMEM;
		for (size_t i = 0; i < p->rtx.n; i++) {
			long f = mdl_kvec_find(&p->flows, &raw[i].key);

			if (f < 0)
				continue; /* cannot happen: the record created its flow */
			m->rtx_events[m->nrtx_events].ts_ns = raw[i].ts_ns;
			m->rtx_events[m->nrtx_events].flow = (uint32_t)f;
			m->rtx_events[m->nrtx_events].segs = raw[i].segs;
			m->rtx_events[m->nrtx_events].trigger = raw[i].trigger;
			m->rtx_events[m->nrtx_events].srtt_us = raw[i].srtt_us;
			m->nrtx_events++;
		}
		mdl_vec_free(&p->rtx);
		qsort(m->rtx_events, m->nrtx_events, sizeof(*m->rtx_events), cmp_rtx);
		FLOW_SLICES(m, m->rtx_events, m->nrtx_events, first_rtx, nrtx);
	}

	if (finish_cong_events(m) || finish_resume_events(m))
		return -ENOMEM;

	/* drops: interface index */
	if (p->dropev.n) {
		const struct drop_raw *raw = p->dropev.items;

		m->drop_events = calloc(p->dropev.n, sizeof(*m->drop_events));
		if (!m->drop_events)
			return -ENOMEM;
		for (size_t i = 0; i < p->dropev.n; i++) {
			const struct model_iface *f = raw[i].ifindex || raw[i].netns ?
				model__iface(m, raw[i].netns, raw[i].ifindex) : NULL;

			m->drop_events[i].ts_ns = raw[i].ts_ns;
			m->drop_events[i].reason = raw[i].reason;
			m->drop_events[i].iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		}
		m->ndrop_events = p->dropev.n;
		mdl_vec_free(&p->dropev);
		qsort(m->drop_events, m->ndrop_events, sizeof(*m->drop_events), cmp_drop_ev);
		for (size_t i = 0; i < m->ndrop_events;) {
			size_t j = i;

			while (j < m->ndrop_events && m->drop_events[j].iface == m->drop_events[i].iface)
				j++;
			if (m->drop_events[i].iface != UINT32_MAX) {
				m->ifaces[m->drop_events[i].iface].first_drop = i;
				m->ifaces[m->drop_events[i].iface].ndrops = j - i;
			}
			i = j;
		}
	}

	/* lookups use binary search from here on */
	free(p->slots.slots); p->slots.slots = NULL; p->slots.nslots = 0;
	free(p->comms.slots); p->comms.slots = NULL; p->comms.nslots = 0;
	free(p->procs.slots); p->procs.slots = NULL; p->procs.nslots = 0;
	free(p->owners.slots); p->owners.slots = NULL; p->owners.nslots = 0;
	return 0;
}

