// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lookups shared by the correlator's stages (corr_internal.h): binary
 * searches in the model's sorted arrays (phases, communicators, events) and
 * in the correlator's processes.  Apart so each stage file holds only its
 * own stage.
 */
#include "userspace/correlate/corr_internal.h"

/* First phase record of PID (phases are sorted by pid), NULL if none. */
const struct model_phase *corr_first_phase_of(const struct model *m, uint32_t pid)
{
	size_t lo = 0, hi = m->nphases;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->phases[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nphases && m->phases[lo].pid == pid ? &m->phases[lo] : NULL;
}

/* Communicators of PID: a slice of m->comms. */
const struct model_comm *corr_comms_of(const struct model *m, uint32_t pid, size_t *n)
{
	size_t lo = 0, hi = m->ncomms, e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < m->ncomms && m->comms[e].pid == pid; e++)
		;
	*n = e - lo;
	return *n ? &m->comms[lo] : NULL; /* m->comms is NULL without communicators */
}

const struct model_comm *corr_comm_info(const struct model *m, uint32_t pid, uint64_t comm)
{
	size_t n;
	const struct model_comm *c = corr_comms_of(m, pid, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].comm == comm)
			return &c[i];
	return NULL;
}



/* PID's job from its launcher's environment (FT_SLOT_JOB), 0 unknown. */
uint64_t corr_job_of(const struct model *m, uint32_t pid)
{
	size_t n;
	const struct model_comm *c = corr_comms_of(m, pid, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].slot == FT_SLOT_JOB)
			return c[i].comm;
	return 0;
}

int64_t corr__rank_of_pid(const struct corr *c, uint32_t pid)
{
	const struct corr_proc *p = c ? corr_proc_of(c, pid) : NULL;

	return p && p->rank != CORR_NONE && c->ranks[p->rank].rank >= 0 ? c->ranks[p->rank].rank : -1;
}

const struct corr_proc *corr_proc_of(const struct corr *c, uint32_t pid)
{
	size_t lo = 0, hi = c->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->procs[mid].pid == pid)
			return &c->procs[mid];
		if (c->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool corr_is_marker(const struct model_phase *p, const struct model_slot *s)
{
	if (p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END))
		return true;
	return s && ((s->flags & FT_SLOT_MARKER) || s->op == FT_OP_STEP || s->op == FT_OP_MARK);
}

/* First event (of N sorted by time, stride SZ, time first) at or after A. */
size_t corr_first_ts_at(const void *ev, size_t n, size_t sz, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = *(const uint64_t *)(const void *)((const unsigned char *)ev + mid * sz);

		if (s < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
