// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The phases of top's live aggregator (live.h): slots, processes and their
 * communicators, collectives as they complete, matched across ranks as the
 * report matches them (correlate/arrivals.h), with seq numbers aligned for
 * ranks attached apart (live_align.h).  live.c feeds the records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/arrivals.h"
#include "userspace/correlate/correlate.h"
#include "userspace/live/live.h"
#include "userspace/live/live_priv.h"

static struct live_slot *slot_of(struct live *l, uint32_t slot)
{
	if (slot >= l->nslots || !l->slots[slot].known)
		return NULL;
	return &l->slots[slot];
}

int lp_on_slot(void *ctx, const struct ft_phase_slot *r)
{
	struct live *l = ctx;

	if (r->slot >= LIVE_MAX_SLOTS)
		return 0;
	if (r->slot >= l->nslots) {
		size_t n = r->slot + 64 < LIVE_MAX_SLOTS ? r->slot + 64 : LIVE_MAX_SLOTS;
		void *p = realloc(l->slots, n * sizeof(*l->slots));

		if (!p)
			return 0;
		l->slots = p;
		memset(&l->slots[l->nslots], 0, (n - l->nslots) * sizeof(*l->slots));
		l->nslots = n;
	}
	l->slots[r->slot] = (struct live_slot){ .op = r->op, .lib_kind = r->lib_kind,
						.flags = r->flags, .known = true };
	return 0;
}

static uint32_t get_proc(struct live *l, uint32_t pid)
{
	struct live_proc *p;

	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i].pid == pid)
			return (uint32_t)i;
	if (l->nprocs >= LIVE_MAX_PROCS) {
		/* reuse the slot of a process that exited, else give up */
		size_t victim = LIVE_MAX_PROCS;

		for (size_t i = 0; i < l->nprocs; i++)
			if (l->procs[i].exited && (victim == LIVE_MAX_PROCS ||
			    l->procs[i].last_seen_ns < l->procs[victim].last_seen_ns))
				victim = i;
		if (victim == LIVE_MAX_PROCS) {
			l->overflow_procs++;
			return LIVE_NONE;
		}
		if (l->slowest == victim)
			l->slowest = LIVE_NONE;
		live_align__forget(&l->align, (uint32_t)victim);
		p = &l->procs[victim];
	} else {
		p = &l->procs[l->nprocs++];
	}
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->rank = p->size = -1;
	p->last_busbw_bps = NAN;
	return (uint32_t)(p - l->procs);
}

int lp_on_proc(void *ctx, const struct ft_proc *r)
{
	struct live *l = ctx;
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;

	if (k == LIVE_NONE)
		return 0;
	p = &l->procs[k];
	memcpy(p->comm, r->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->netns = r->netns;
	p->exited = r->event == FT_PROC_EXIT;
	p->last_seen_ns = r->ts_ns;
	return 0;
}

int lp_on_comm_info(void *ctx, const struct ft_comm_info *r)
{
	struct live *l = ctx;
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;
	struct live_comm *c = NULL;

	if (k == LIVE_NONE)
		return 0;
	p = &l->procs[k];
	for (int i = 0; i < p->ncomms && !c; i++)
		if (p->comms[i].comm == r->comm)
			c = &p->comms[i];
	if (!c) {
		if (p->ncomms == LIVE_MAX_COMMS)
			return 0;
		c = &p->comms[p->ncomms++];
		*c = (struct live_comm){ .comm = r->comm, .rank = -1, .size = -1 };
	}
	if (r->rank >= 0)
		c->rank = r->rank;
	if (r->size > 0)
		c->size = r->size;
	/* the world is the largest communicator it told us about */
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].size > p->size || (p->comms[i].size == p->size && p->comms[i].rank >= 0)) {
			p->size = p->comms[i].size;
			p->rank = p->comms[i].rank;
		}
	return 0;
}

static int32_t comm_size(const struct live_proc *p, uint64_t comm)
{
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].comm == comm)
			return p->comms[i].size;
	return -1;
}

static struct live_rank *rank_of(struct live *l, const struct live_proc *p)
{
	if (p->rank < 0)
		return NULL;
	for (size_t i = 0; i < l->nranks; i++)
		if (l->ranks[i].rank == p->rank && l->ranks[i].netns == p->netns)
			return &l->ranks[i];
	if (l->nranks == LIVE_MAX_RANKS)
		return NULL;
	l->ranks[l->nranks] = (struct live_rank){ .rank = p->rank, .netns = p->netns };
	return &l->ranks[l->nranks++];
}

/*
 * Match one collective across ranks by (communicator, seq): an integer
 * handle (MPICH) is the same in every process; a pointer (Open MPI, NCCL)
 * is not, so it is keyed by the communicator's size only, and apart from
 * collectives the library numbered itself (Gloo's tag).  The kind comes
 * from the slot (comm_key.h).  Once every rank was seen, who the others
 * waited for is decided as the report decides it (correlate/arrivals.h).
 */
static uint64_t instance_key(uint64_t comm, uint32_t kind, int32_t size)
{
	return kind == CORR_COMM_HANDLE ? comm : (uint64_t)(kind == CORR_COMM_LIBSEQ ? 2 : 1) << 62 | (uint32_t)size;
}

static void match_instance(struct live *l, uint32_t proc, uint64_t key, int32_t size, uint64_t seq, uint16_t op,
			   uint64_t entry)
{
	struct live_instance *in = NULL;
	uint32_t who;

	if (size < 2 || !seq)
		return;
	for (unsigned i = 0; i < LIVE_INSTANCES && !in; i++)
		if (l->inst[i].used && l->inst[i].key == key && l->inst[i].seq == seq &&
		    l->inst[i].op == op)
			in = &l->inst[i];
	if (!in) {
		in = &l->inst[l->inst_next];  /* the oldest goes: never completed */
		l->inst_next = (l->inst_next + 1) % LIVE_INSTANCES;
		*in = (struct live_instance){ .key = key, .seq = seq, .op = op, .expected = size, .used = true };
	}
	corr__arrive(&in->arr, entry, proc);
	if (in->arr.n < (uint32_t)in->expected)
		return;
	/* every rank came: the one that entered last is the one the others waited for */
	who = corr__straggler(&in->arr);
	if (l->hooks.matched)
		l->hooks.matched(l->hooks.ctx, l, op, who == CORR_NONE ? LIVE_NONE : who, in->arr.first,
				 in->arr.last);
	if (who != CORR_NONE && who < l->nprocs) {
		struct live_proc *p = &l->procs[who];
		uint64_t skew = in->arr.last - in->arr.first;
		struct live_rank *rk = rank_of(l, p);

		p->late++;
		p->a_late++;
		p->late_ns += skew;
		p->a_late_ns += skew;
		if (rk) {
			rk->late++;
			rk->late_ns += skew;
		}
	}
	in->used = false;
}

static void match_call(void *ctx, const struct live_call *c)
{
	match_instance(ctx, c->proc, c->key, c->size, c->seq, c->op, c->start);
}

static void coll_done(struct live *l, uint32_t k, uint16_t op, uint64_t start, uint64_t end,
		      uint64_t bytes, int32_t nranks, bool count_total)
{
	struct live_proc *p = &l->procs[k];
	struct live_rank *rk = rank_of(l, p);
	uint64_t dur = end > start ? end - start : 0;
	uint32_t n = nranks > 0 ? (uint32_t)nranks : 0;
	uint64_t size = corr__size_bytes(op, bytes, n, count_total);

	p->colls++;
	p->a_colls++;
	p->coll_ns += dur;
	p->a_coll_ns += dur;
	p->last_op = op;
	p->last_end_ns = end;
	p->last_dur_ns = dur;
	p->last_size = size;
	/* bus bandwidth needs the ranks (the factor depends on them) */
	p->last_busbw_bps = size && dur && n ? (double)size * 8e9 / (double)dur * corr__busbw_factor(op, n)
					     : NAN;
	if (op < FT_OP_MAX) {
		l->ops[op].calls++;
		l->ops[op].ns += dur;
		l->ops[op].bytes += size;
	}
	l->colls_total++;
	if (l->hooks.coll)
		l->hooks.coll(l->hooks.ctx, l, k, op, start, end, size);
	if (rk) {
		rk->colls++;
		rk->coll_ns += dur;
	}
}

int lp_on_phase(void *ctx, const struct ft_phase *r)
{
	struct live *l = ctx;
	const struct live_slot *s = slot_of(l, r->slot);
	uint32_t k = get_proc(l, r->pid);
	struct live_proc *p;
	bool coll;
	int32_t n;
	uint64_t bytes;

	if (k == LIVE_NONE)
		return 0;
	p = &l->procs[k];
	p->netns = r->netns;
	p->last_seen_ns = r->end_ns;
	if (!s)
		return 0;
	if (s->op == FT_OP_STEP && (r->flags & FT_PHASE_MARK_BEGIN)) {
		p->step = r->count;
		return 0;
	}
	if (s->flags & FT_SLOT_MARKER)
		return 0;
	p->calls++;
	coll = corr__call_is_collective(s->op, s->flags, r->seq);
	if (!coll)
		return 0;
	n = comm_size(p, r->comm);
	if (n <= 0)
		n = p->size;
	bytes = r->dtype_size ? r->count * r->dtype_size : 0;
	{
		uint32_t kind = comm_key__kind(s->flags, r->comm, (r->flags & FT_PHASE_LIB_SEQ) != 0);
		struct live_call c = { .key = instance_key(r->comm, kind, n), .seq = r->seq, .start = r->start_ns,
				       .end = r->end_ns, .proc = k, .size = n, .op = s->op };

		if (kind == CORR_COMM_LIBSEQ || n < 2)
			match_call(l, &c); /* the library's own numbers: equal on every rank */
		else
			live_align__feed(&l->align, &c, match_call, l);
	}
	if ((r->flags & FT_PHASE_NONBLOCKING) && !(r->flags & FT_PHASE_OPEN)) {
		struct live_pending *q = &l->pend[l->pend_next];

		l->pend_next = (l->pend_next + 1) % LIVE_PENDING;
		*q = (struct live_pending){ .pid = r->pid, .proc = k, .req = r->req,
					    .start_ns = r->start_ns, .bytes = bytes, .op = s->op,
					    .nranks = n, .count_total = !!(r->flags & FT_PHASE_COUNT_TOTAL),
					    .used = true };
		return 0;
	}
	coll_done(l, k, s->op, r->start_ns, r->end_ns, bytes, n, !!(r->flags & FT_PHASE_COUNT_TOTAL));
	return 0;
}

int lp_on_req_done(void *ctx, const struct ft_req_done *r)
{
	struct live *l = ctx;

	for (unsigned i = 0; i < LIVE_PENDING; i++) {
		struct live_pending *q = &l->pend[i];

		if (!q->used || q->pid != r->pid || q->req != r->req || r->ts_ns < q->start_ns)
			continue;
		q->used = false;
		if (q->proc < l->nprocs && l->procs[q->proc].pid == q->pid)
			coll_done(l, q->proc, q->op, q->start_ns, r->ts_ns, q->bytes, q->nranks,
				  q->count_total);
		return 0;
	}
	return 0;
}

int lp_on_sock_owner(void *ctx, const struct ft_sock_owner *r)
{
	struct live *l = ctx;

	/* only names processes the phase probes already know */
	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i].pid == r->pid && !l->procs[i].comm[0]) {
			memcpy(l->procs[i].comm, r->comm, sizeof(l->procs[i].comm));
			l->procs[i].comm[sizeof(l->procs[i].comm) - 1] = '\0';
		}
	return 0;
}

void lp_tick(struct live *l, uint64_t now_ns)
{
	uint64_t best = 0;

	live_align__flush(&l->align, now_ns, match_call, l); /* ranks that stay missing: no longer wait */
	l->slowest = LIVE_NONE;
	for (size_t i = 0; i < l->nprocs; i++) {
		struct live_proc *p = &l->procs[i];

		p->p_colls = p->a_colls;
		p->p_coll_ns = p->a_coll_ns;
		p->p_late = p->a_late;
		p->p_late_ns = p->a_late_ns;
		p->a_colls = p->a_coll_ns = p->a_late = p->a_late_ns = 0;
		if (p->p_late_ns > best) {
			best = p->p_late_ns;
			l->slowest = (uint32_t)i;
		}
	}
}

void lp_begin_period(struct live *l)
{
	for (size_t i = 0; i < l->nprocs; i++) {
		struct live_proc *p = &l->procs[i];

		p->a_colls = p->a_coll_ns = p->a_late = p->a_late_ns = 0;
	}
}

bool live__proc_active(const struct live *l, const struct live_proc *p)
{
	(void)l;
	return p->p_colls || !p->exited;
}
