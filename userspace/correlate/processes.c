// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 1 of corr__build(): processes and ranks.  Every pid the
 * capture names (process records, phase records, communicators) becomes a
 * corr_proc; every process that made traced calls becomes a corr_rank, with
 * its world rank from its largest communicator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

static int cmp_pid(const void *a, const void *b)
{
	return cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct corr_rank *x = a, *y = b;
	int c;

	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	c = cmp_i64(x->rank, y->rank);
	if (!c)
		c = strcmp(x->host, y->host);
	return c ? c : cmp_u32(x->pid, y->pid);
}

int corr_build_procs(struct corr *c)
{
	const struct model *m = c->m;
	size_t n = m->nprocs + m->nphases + m->ncomms, k = 0, nr = 0;
	uint32_t *pids;

	pids = malloc((n ? n : 1) * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < m->nprocs; i++)
		pids[k++] = m->procs[i].pid;
	for (size_t i = 0; i < m->nphases; i++)
		if (!i || m->phases[i].pid != m->phases[i - 1].pid)
			pids[k++] = m->phases[i].pid;
	for (size_t i = 0; i < m->ncomms; i++)
		pids[k++] = m->comms[i].pid;
	if (k)
		qsort(pids, k, sizeof(*pids), cmp_pid);
	n = 0;
	for (size_t i = 0; i < k; i++)
		if (!n || pids[n - 1] != pids[i])
			pids[n++] = pids[i];

	c->procs = calloc(n ? n : 1, sizeof(*c->procs));
	if (!c->procs) {
		free(pids);
		return -ENOMEM;
	}
	c->nprocs = n;
	for (size_t i = 0; i < n; i++) {
		struct corr_proc *p = &c->procs[i];
		const struct model_proc *mp = model__proc(m, pids[i]);
		const struct model_phase *ph = corr_first_phase_of(m, pids[i]);

		p->pid = pids[i];
		p->rank = CORR_NONE;
		if (mp) {
			p->have_proc = true;
			p->ppid = mp->ppid;
			p->netns = mp->netns;
			p->events = mp->events;
			p->first_ns = mp->first_ns;
			p->exec_ns = mp->exec_ns;
			p->exit_ns = mp->exit_ns;
			p->nexec = mp->nexec;
			p->exit_code = mp->exit_code;
			memcpy(p->comm, mp->comm, sizeof(p->comm));
		}
		if (ph) {
			if (!p->netns)
				p->netns = ph->netns;
			if (!p->first_ns || ph->start_ns < p->first_ns)
				p->first_ns = ph->start_ns;
			nr++;
		}
		if (!p->comm[0]) {
			for (size_t j = 0; j < m->nowners; j++)
				if (m->owners[j].pid == p->pid && m->owners[j].comm[0]) {
					memcpy(p->comm, m->owners[j].comm, sizeof(p->comm));
					break;
				}
		}
		model__host_name(m, p->netns, p->host, sizeof(p->host));
	}
	free(pids);

	/* ranks: processes that made traced calls */
	c->ranks = calloc(nr ? nr : 1, sizeof(*c->ranks));
	if (!c->ranks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct corr_proc *p = &c->procs[i];
		struct corr_rank *r;
		const struct model_comm *cm, *best = NULL;
		size_t ncm;

		if (!corr_first_phase_of(m, p->pid))
			continue;
		r = &c->ranks[c->nranks++];
		r->pid = p->pid;
		r->netns = p->netns;
		r->proc = (uint32_t)i;
		r->rank = r->world_size = -1;
		memcpy(r->host, p->host, sizeof(r->host));
		memcpy(r->comm, p->comm, sizeof(r->comm));
		/*
		 * world rank: the rank in the largest communicator it told us
		 * about; the launcher's environment (FT_COMM_ENV, read when we
		 * attached to a running job) only when the library said nothing
		 */
		cm = corr_comms_of(m, p->pid, &ncm);
		for (size_t j = 0; j < ncm; j++) {
			bool env = cm[j].comm == FT_COMM_ENV, best_env = best && best->comm == FT_COMM_ENV;

			if (cm[j].rank < 0)
				continue;
			if (!best || (best_env && !env) ||
			    (env == best_env && (cm[j].size > best->size ||
						 (cm[j].size == best->size && cm[j].first_ns < best->first_ns))))
				best = &cm[j];
		}
		if (best) {
			r->rank = best->rank;
			r->world_size = best->size;
			r->world_comm = best->comm;
		}
	}
	if (c->nranks)
		qsort(c->ranks, c->nranks, sizeof(*c->ranks), cmp_rank);
	for (size_t i = 0; i < c->nranks; i++)
		c->procs[c->ranks[i].proc].rank = (uint32_t)i;
	return 0;
}

