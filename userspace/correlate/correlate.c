// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The correlator (see correlate.h): phase records + fabric model -> ranks,
 * calls, collective instances with their network evidence and a verdict,
 * steps, and phases inferred from the traffic.
 *
 * Memory is proportional to the records: one corr_call per phase record,
 * one instance per matched collective, a few index arrays.  The network
 * evidence of a window is computed from the model's sorted bins and event
 * slices with binary searches, so a window costs O(log n + its bins).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/counters.h"
#include "probes/drop_reasons.h"
#include "userspace/correlate/correlate.h"
#include "userspace/correlate/corr_plugin.h"
#include "userspace/correlate/seq_align.h"
#include "probes/base/util.h"

/* ---- names, formulas, rules ---- */

void corr_opts__init(struct corr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->phases = CORR_PHASES_AUTO;
	o->th.queue_delay_ns = CORR_DEF_QUEUE_DELAY_NS;
	o->th.util = CORR_DEF_UTIL;
	o->th.skew_frac = CORR_DEF_SKEW_FRAC;
	o->th.skew_min_ns = CORR_DEF_SKEW_MIN_NS;
	o->th.slow_factor = CORR_DEF_SLOW_FACTOR;
	o->infer_gap_ns = 0;
	o->infer_min_hosts = 2;
	o->infer_min_bytes = 0;
}

const char *corr__op_name(unsigned op)
{
	static const char *const n[FT_OP_MAX] = {
		[FT_OP_NONE] = "unknown",
		[FT_OP_ALLREDUCE] = "allreduce",
		[FT_OP_REDUCE_SCATTER] = "reduce_scatter",
		[FT_OP_ALLGATHER] = "allgather",
		[FT_OP_BCAST] = "bcast",
		[FT_OP_REDUCE] = "reduce",
		[FT_OP_ALLTOALL] = "alltoall",
		[FT_OP_BARRIER] = "barrier",
		[FT_OP_GATHER] = "gather",
		[FT_OP_SCATTER] = "scatter",
		[FT_OP_SEND] = "send",
		[FT_OP_RECV] = "recv",
		[FT_OP_SENDRECV] = "sendrecv",
		[FT_OP_GROUP_START] = "group_start",
		[FT_OP_GROUP_END] = "group_end",
		[FT_OP_COMM_INIT] = "comm_init",
		[FT_OP_COMPLETION] = "completion",
		[FT_OP_STEP] = "step",
		[FT_OP_MARK] = "mark",
		[FT_OP_CUSTOM] = "custom",
	};

	return op < FT_OP_MAX && n[op] ? n[op] : "unknown";
}

const char *corr__lib_name(unsigned lib_kind)
{
	static const char *const n[] = { "none", "mpi", "nccl", "gloo", "marker", "generic" };

	return lib_kind < sizeof(n) / sizeof(n[0]) ? n[lib_kind] : "unknown";
}

const char *corr__verdict_name(enum corr_verdict v)
{
	switch (v) {
	case CORR_OK: return "ok";
	case CORR_NETWORK: return "network";
	case CORR_RANK: return "rank";
	default: return "unknown";
	}
}

const char *corr__mode_name(enum corr_phases_mode m)
{
	switch (m) {
	case CORR_PHASES_PROBES: return "probes";
	case CORR_PHASES_INFERRED: return "inferred";
	default: return "auto";
	}
}

bool corr__op_is_collective(unsigned op)
{
	return op >= FT_OP_ALLREDUCE && op <= FT_OP_SCATTER;
}

/* Ops whose nccl-tests size is the per-rank count times the ranks. */
static bool op_per_rank_count(unsigned op)
{
	return op == FT_OP_ALLGATHER || op == FT_OP_REDUCE_SCATTER || op == FT_OP_ALLTOALL ||
	       op == FT_OP_GATHER || op == FT_OP_SCATTER;
}

uint64_t corr__size_bytes(unsigned op, uint64_t bytes, uint32_t nranks, bool count_total)
{
	if (op == FT_OP_BARRIER)
		return 0;
	if (!op_per_rank_count(op) || count_total || !nranks)
		return bytes;
	if (bytes > UINT64_MAX / nranks)
		return UINT64_MAX;
	return bytes * nranks;
}

double corr__busbw_factor(unsigned op, uint32_t nranks)
{
	double n = nranks;

	if (nranks < 1)
		return 1.0;
	if (op == FT_OP_ALLREDUCE)
		return 2.0 * (n - 1.0) / n;
	if (op_per_rank_count(op))
		return (n - 1.0) / n;
	return 1.0;
}

bool corr__congestion_drop(const char *reason)
{
	return drop_reason__congestion(reason);
}

enum corr_verdict corr__verdict(const struct corr_thresholds *t, const struct corr_verdict_in *in,
				unsigned *why)
{
	unsigned w = 0;
	bool congested, straggler;

	if (in->queue_delay_ns >= t->queue_delay_ns && in->queue_delay_ns > 0)
		w |= CORR_WHY_QUEUE;
	if (in->cong_drops)
		w |= CORR_WHY_DROPS;
	if (in->retrans)
		w |= CORR_WHY_RETRANS;
	if (in->ce_pkts)
		w |= CORR_WHY_CE;
	if (in->peak_util >= t->util) /* false for NaN */
		w |= CORR_WHY_UTIL;
	if (in->ctr_cong)
		w |= CORR_WHY_CNP;
	if (in->ctr_pause)
		w |= CORR_WHY_PAUSE;
	if (in->ctr_loss)
		w |= CORR_WHY_RDMA_LOSS;
	if (in->skew_ns > 0 && in->skew_ns >= t->skew_min_ns &&
	    (double)in->skew_ns >= t->skew_frac * (double)in->span_ns)
		w |= CORR_WHY_STRAGGLER;
	if (in->slow)
		w |= CORR_WHY_SLOW;
	if (!in->net_observed)
		w |= CORR_WHY_UNOBSERVED;
	if (why)
		*why = w;
	congested = (w & CORR_WHY_CONGESTION) != 0;
	straggler = (w & CORR_WHY_STRAGGLER) != 0;
	if (congested && !straggler)
		return CORR_NETWORK;
	if (straggler && !congested)
		return CORR_RANK;
	if (straggler && congested)
		return CORR_UNKNOWN;
	return in->slow ? CORR_UNKNOWN : CORR_OK;
}

/* ---- small helpers ---- */

static int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }
static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static uint64_t dur(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static bool is_loopback(const struct model_iface *f)
{
	return f->known && !strcmp(f->name, "lo");
}

static bool iface_observed(const struct model_iface *f)
{
	return (f->known && (f->flags & FT_IFACE_TRACED)) || f->dir[0].nbins || f->dir[1].nbins;
}

/* First phase record of PID (phases are sorted by pid), NULL if none. */
static const struct model_phase *first_phase_of(const struct model *m, uint32_t pid)
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
static const struct model_comm *comms_of(const struct model *m, uint32_t pid, size_t *n)
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

static const struct model_comm *comm_info(const struct model *m, uint32_t pid, uint64_t comm)
{
	size_t n;
	const struct model_comm *c = comms_of(m, pid, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].comm == comm)
			return &c[i];
	return NULL;
}

static const struct corr_proc *proc_of(const struct corr *c, uint32_t pid);

/* PID's job from its launcher's environment (FT_SLOT_JOB), 0 unknown. */
static uint64_t job_of(const struct model *m, uint32_t pid)
{
	size_t n;
	const struct model_comm *c = comms_of(m, pid, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].slot == FT_SLOT_JOB)
			return c[i].comm;
	return 0;
}

int64_t corr__rank_of_pid(const struct corr *c, uint32_t pid)
{
	const struct corr_proc *p = c ? proc_of(c, pid) : NULL;

	return p && p->rank != CORR_NONE && c->ranks[p->rank].rank >= 0 ? c->ranks[p->rank].rank : -1;
}

static const struct corr_proc *proc_of(const struct corr *c, uint32_t pid)
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

static bool is_marker(const struct model_phase *p, const struct model_slot *s)
{
	if (p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END))
		return true;
	return s && ((s->flags & FT_SLOT_MARKER) || s->op == FT_OP_STEP || s->op == FT_OP_MARK);
}

/* ---- processes and ranks ---- */

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

static int build_procs(struct corr *c)
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
		const struct model_phase *ph = first_phase_of(m, pids[i]);

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

		if (!first_phase_of(m, p->pid))
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
		cm = comms_of(m, p->pid, &ncm);
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

/* ---- calls and completions ---- */

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

static int build_calls(struct corr *c)
{
	const struct model *m = c->m;
	size_t n = 0;

	for (size_t i = 0; i < m->nphases; i++)
		n += !is_marker(&m->phases[i], model__slot(m, m->phases[i].slot)) &&
		     !corr_plugin__is_child(model__slot(m, m->phases[i].slot));
	c->calls = calloc(n ? n : 1, sizeof(*c->calls));
	if (!c->calls)
		return -ENOMEM;
	for (size_t i = 0; i < m->nphases; i++) {
		const struct model_phase *p = &m->phases[i];
		const struct model_slot *s = model__slot(m, p->slot);
		const struct corr_proc *pr;
		struct corr_call *k;

		if (is_marker(p, s) || corr_plugin__is_child(s))
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
		pr = proc_of(c, p->pid);
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

/* ---- marker spans ---- */

static bool span_key_eq(const struct corr_span *s, uint32_t kind, uint64_t step, const char *name)
{
	if (s->kind != kind)
		return false;
	return kind == CORR_SPAN_STEP ? s->step == step : !strncmp(s->name, name, sizeof(s->name));
}

/*
 * Per pid, in time order: a begin opens a span inside the innermost open
 * one; an end closes the most recent open span with the same key (step
 * number or name), which need not be the innermost (overlap is allowed).
 */
static int build_spans(struct corr *c)
{
	const struct model *m = c->m;
	size_t n = 0, sp = 0, cap = 0;
	uint32_t *stack = NULL;
	uint32_t pid = 0;
	bool have_pid = false;

	for (size_t i = 0; i < m->nphases; i++)
		n += (m->phases[i].flags & FT_PHASE_MARK_BEGIN) != 0;
	c->spans = calloc(n ? n : 1, sizeof(*c->spans));
	if (!c->spans)
		return -ENOMEM;
	for (size_t i = 0; i < m->nphases; i++) {
		const struct model_phase *p = &m->phases[i];
		const struct model_slot *s = model__slot(m, p->slot);
		uint32_t kind;
		char name[32];

		if (!is_marker(p, s) || !(p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END)))
			continue;
		if (!have_pid || p->pid != pid) {
			/* a new pid: what is still open stays open to the end */
			sp = 0;
			pid = p->pid;
			have_pid = true;
		}
		kind = (s && s->op == FT_OP_STEP) || (!s && !p->name[0]) ? CORR_SPAN_STEP : CORR_SPAN_MARK;
		memcpy(name, p->name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		if (p->flags & FT_PHASE_MARK_BEGIN) {
			struct corr_span *x = &c->spans[c->nspans];
			const struct corr_proc *pr = proc_of(c, p->pid);

			memset(x, 0, sizeof(*x));
			x->kind = kind;
			x->pid = p->pid;
			x->rank = pr ? pr->rank : CORR_NONE;
			x->step = kind == CORR_SPAN_STEP ? p->count : 0;
			if (kind == CORR_SPAN_MARK)
				memcpy(x->name, name, sizeof(x->name));
			x->start_ns = p->start_ns;
			x->end_ns = m->end_ns > p->start_ns ? m->end_ns : p->start_ns;
			x->open = true;
			x->parent = sp ? stack[sp - 1] : CORR_NONE;
			x->depth = sp ? c->spans[stack[sp - 1]].depth + 1 : 0;
			x->step_of = kind == CORR_SPAN_STEP ? (int64_t)x->step :
				     sp ? c->spans[stack[sp - 1]].step_of : -1;
			if (sp == cap) {
				size_t nc = cap ? cap * 2 : 16;
				uint32_t *ns = realloc(stack, nc * sizeof(*ns));

				if (!ns) {
					free(stack);
					return -ENOMEM;
				}
				stack = ns;
				cap = nc;
			}
			stack[sp++] = (uint32_t)c->nspans++;
		} else {
			size_t k = sp;

			while (k > 0 && !span_key_eq(&c->spans[stack[k - 1]], kind, p->count, name))
				k--;
			if (!k) {
				c->unmatched_ends++;
				continue;
			}
			c->spans[stack[k - 1]].end_ns = p->start_ns;
			c->spans[stack[k - 1]].open = false;
			memmove(&stack[k - 1], &stack[k], (sp - k) * sizeof(*stack));
			sp--;
		}
	}
	free(stack);
	return 0;
}

/* The innermost span around each call's entry, and the step around it. */
static int parent_calls(struct corr *c)
{
	size_t si = 0, sp = 0, cap = 0;
	uint32_t *stack = NULL;

	for (size_t i = 0; i < c->ncalls; i++) {
		struct corr_call *k = &c->calls[i];

		if (!i || c->calls[i - 1].pid != k->pid) {
			sp = 0;
			while (si < c->nspans && c->spans[si].pid < k->pid)
				si++;
		}
		while (si < c->nspans && c->spans[si].pid == k->pid && c->spans[si].start_ns <= k->start_ns) {
			while (sp && c->spans[stack[sp - 1]].end_ns < c->spans[si].start_ns)
				sp--;
			if (sp == cap) {
				size_t nc = cap ? cap * 2 : 16;
				uint32_t *ns = realloc(stack, nc * sizeof(*ns));

				if (!ns) {
					free(stack);
					return -ENOMEM;
				}
				stack = ns;
				cap = nc;
			}
			stack[sp++] = (uint32_t)si++;
		}
		while (sp && c->spans[stack[sp - 1]].end_ns < k->start_ns)
			sp--;
		if (sp) {
			k->span = stack[sp - 1];
			k->step = c->spans[k->span].step_of;
		}
	}
	free(stack);
	return 0;
}

/* ---- collective instances ---- */

struct ikey {
	uint32_t kind, size, order, rank;
	uint64_t handle, seq, job;
	uint32_t call;
};

static int cmp_ikey_group(const struct ikey *x, const struct ikey *y)
{
	int c = cmp_u64(x->job, y->job);

	if (!c)
		c = cmp_u32(x->kind, y->kind);
	if (!c)
		c = cmp_u32(x->size, y->size);
	if (!c)
		c = cmp_u32(x->order, y->order);
	if (!c)
		c = cmp_u64(x->handle, y->handle);
	return c ? c : cmp_u64(x->seq, y->seq);
}

static int cmp_ikey(const void *a, const void *b)
{
	const struct ikey *x = a, *y = b;
	int c = cmp_ikey_group(x, y);

	if (!c)
		c = cmp_u32(x->rank, y->rank);
	return c ? c : cmp_u32(x->call, y->call);
}

static bool call_is_collective(const struct corr *c, const struct corr_call *k)
{
	const struct model_slot *s = model__slot(c->m, k->slot);

	return k->seq > 0 && (corr__op_is_collective(k->op) || (s && (s->flags & FT_SLOT_COLLECTIVE)));
}

static int cmp_instance(const void *a, const void *b)
{
	const struct corr_instance *x = a, *y = b;
	int c = cmp_u64(x->first_entry, y->first_entry);

	if (!c)
		c = cmp_u32(x->op, y->op);
	if (!c)
		c = cmp_u64(x->seq, y->seq);
	if (!c)
		c = cmp_u32(x->comm_kind, y->comm_kind);
	if (!c)
		c = cmp_u64(x->comm, y->comm);
	return c ? c : cmp_u32(x->comm_order, y->comm_order);
}

static int cmp_call_pid_start(const void *a, const void *b, void *arg)
{
	const struct corr_call *calls = arg;
	const struct corr_call *x = &calls[*(const uint32_t *)a], *y = &calls[*(const uint32_t *)b];
	int c = cmp_u32(x->pid, y->pid);

	if (!c)
		c = cmp_u64(x->start_ns, y->start_ns);
	return c ? c : cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}

/*
 * See corr_instance.own_late_ns.  The straggler L entered at
 * prev_end(L) + gap(L), the rank O with the shortest gap at prev_end(O) +
 * gap(O): its own part is gap(L) - gap(O), plus the part of
 * prev_end(L) - prev_end(O) it was itself late by in its previous
 * collective (it left that one late because it came late, e.g. to a
 * broadcast whose root did not wait for it).  Sets the straggler call's
 * late_self_ns for the next instance.  Instances of one communicator are
 * built in seq order, so the previous one is done.
 */
static uint64_t own_lateness(struct corr *c, const struct corr_instance *in, const uint32_t *mem,
			     uint64_t last_entry)
{
	uint64_t skew = last_entry - in->first_entry, own;
	struct corr_call *l = NULL;
	const struct corr_call *o = NULL;

	if (in->straggler == CORR_NONE)
		return 0;
	for (size_t i = 0; i < in->nmembers; i++) {
		struct corr_call *k = &c->calls[mem[i]];

		if (!l && k->rank == in->straggler && k->start_ns == last_entry)
			l = k;
		else if (k->prev_end_ns && k->prev_end_ns <= k->start_ns &&
			 (!o || k->start_ns - k->prev_end_ns < o->start_ns - o->prev_end_ns))
			o = k;
	}
	if (!l || !o || !l->prev_end_ns || l->prev_end_ns > l->start_ns) {
		own = skew;
	} else {
		uint64_t gl = l->start_ns - l->prev_end_ns, go = o->start_ns - o->prev_end_ns;

		own = gl > go ? gl - go : 0;
		if (l->prev_call != CORR_NONE && l->prev_end_ns > o->prev_end_ns) {
			uint64_t carried = l->prev_end_ns - o->prev_end_ns, was = c->calls[l->prev_call].late_self_ns;

			own += carried < was ? carried : was;
		}
		if (own > skew)
			own = skew;
	}
	if (l)
		l->late_self_ns = own;
	return own;
}

/* prev_end_ns / prev_call of every collective call: calls of one process in entry order. */
static int link_previous(struct corr *c)
{
	uint32_t *ix = NULL;
	size_t n = 0;
	uint64_t run = 0;   /* latest end so far of this process's collectives */
	uint32_t run_call = CORR_NONE;

	for (size_t i = 0; i < c->ncalls; i++)
		n += call_is_collective(c, &c->calls[i]);
	if (!n)
		return 0;
	ix = malloc(n * sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < c->ncalls; i++)
		if (call_is_collective(c, &c->calls[i]))
			ix[n++] = (uint32_t)i;
	qsort_r(ix, n, sizeof(*ix), cmp_call_pid_start, c->calls);
	for (size_t i = 0; i < n; i++) {
		struct corr_call *k = &c->calls[ix[i]];

		if (i && c->calls[ix[i - 1]].pid != k->pid) {
			run = 0;
			run_call = CORR_NONE;
		}
		k->prev_end_ns = run;
		k->prev_call = run_call;
		if (k->end_ns > run) {
			run = k->end_ns;
			run_call = ix[i];
		}
	}
	free(ix);
	return 0;
}

static void instance_stats(struct corr *c, struct corr_instance *in)
{
	const uint32_t *mem = &c->members[in->first_member];
	uint64_t last = 0;
	uint32_t comm_size = in->comm_size;

	in->op = c->calls[mem[0]].op;
	in->first_entry = in->first_exit = UINT64_MAX;
	in->straggler = c->calls[mem[0]].rank;
	in->step = -1;
	for (size_t i = 0; i < in->nmembers; i++) {
		const struct corr_call *k = &c->calls[mem[i]];

		if (k->op != in->op)
			in->op_mismatch = true;
		if (k->start_ns < in->first_entry)
			in->first_entry = k->start_ns;
		if (!i || k->start_ns > last) {
			last = k->start_ns;
			in->straggler = k->rank;
		}
		if (k->end_ns < in->first_exit)
			in->first_exit = k->end_ns;
		if (k->end_ns > in->last_exit)
			in->last_exit = k->end_ns;
		if (k->flags & CORR_CALL_ENQUEUE_ONLY)
			in->enqueue_only = true;
		if (k->flags & (CORR_CALL_OPEN | CORR_CALL_NO_COMPLETION))
			in->open = true;
		if (in->step < 0 && k->step >= 0)
			in->step = k->step;
		if (in->comm_kind != CORR_COMM_POINTER) {
			const struct model_comm *ci = comm_info(c->m, k->pid, k->comm);

			if (ci && ci->size > 0 && (uint32_t)ci->size > comm_size)
				comm_size = (uint32_t)ci->size;
		}
	}
	in->last_entry = last;
	if (in->nmembers < 2 || last == in->first_entry)
		in->straggler = CORR_NONE; /* nobody entered after anybody */
	in->own_late_ns = own_lateness(c, in, mem, last);
	if (in->comm_kind != CORR_COMM_POINTER)
		in->comm_size = comm_size;
	in->nranks = comm_size ? comm_size : (uint32_t)in->nmembers;
	in->partial = comm_size && in->nmembers < comm_size;
	in->span_ns = dur(in->first_entry, in->last_exit);
	in->skew_ns = dur(in->first_entry, in->last_entry);
	in->all_arrived_ns = dur(in->last_entry, in->last_exit);
	in->size_bytes = 0;
	for (size_t i = 0; i < in->nmembers; i++) {
		struct corr_call *k = &c->calls[mem[i]];

		k->size_bytes = corr__size_bytes(in->op, k->bytes, in->nranks,
						 (k->flags & CORR_CALL_COUNT_TOTAL) != 0);
		if (k->size_bytes > in->size_bytes)
			in->size_bytes = k->size_bytes;
	}
	in->busbw_factor = corr__busbw_factor(in->op, in->nranks);
	if (in->size_bytes && in->all_arrived_ns) {
		in->algbw = (double)in->size_bytes * 1e9 / (double)in->all_arrived_ns;
		in->busbw = in->algbw * in->busbw_factor;
	} else {
		in->algbw = in->busbw = NAN;
	}
}

/*
 * Jobs attached mid-run: each process's count of a communicator's calls
 * starts at the first call the probes saw, which need not be the same
 * collective on every rank; shift them into step (userspace/correlate/seq_align.h).
 */
static int align_keys(struct corr *c, struct ikey *keys, size_t n)
{
	struct seq_item *it = calloc(n ? n : 1, sizeof(*it));
	size_t m = 0;

	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct corr_call *k = &c->calls[keys[i].call];
		struct seq_item *e = &it[m];

		if (keys[i].kind == CORR_COMM_LIBSEQ || (k->flags & CORR_CALL_PLUGIN))
			continue; /* the library's own number (Gloo's tag, NCCL's seqNumber): equal already */
		m++;
		e->g0 = (uint64_t)keys[i].kind << 56 | (uint64_t)(keys[i].size & 0xffffff) << 32 | keys[i].order;
		e->g1 = keys[i].handle ^ keys[i].job * 0x9e3779b97f4a7c15ull; /* one job's */
		e->pid = k->pid;
		e->idx = (uint32_t)i;
		e->op = k->op;
		e->seq = (int64_t)keys[i].seq;
		e->start = k->start_ns;
		e->end = k->end_ns > k->start_ns ? k->end_ns : k->start_ns;
	}
	if (seq_align__run(it, m, &c->seq_shifted)) {
		free(it);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m; i++)
		keys[it[i].idx].seq = (uint64_t)it[i].seq;
	free(it);
	return 0;
}

/*
 * Collectives are matched across ranks by (communicator key, seq): see
 * comm_key.h for the kinds of key.
 */
static int fill_keys(struct corr *c, struct ikey *keys, size_t n)
{
	struct comm_key_in *in = calloc(n ? n : 1, sizeof(*in));
	struct comm_key *out = calloc(n ? n : 1, sizeof(*out));
	int err = -ENOMEM;

	if (!in || !out)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct corr_call *k = &c->calls[keys[i].call];
		const struct model_slot *s = model__slot(c->m, k->slot);
		const struct model_comm *ci = k->comm ? comm_info(c->m, k->pid, k->comm) : NULL;

		in[i] = (struct comm_key_in){
			.comm = k->comm, .seq = k->seq, .start_ns = k->start_ns, .pid = k->pid,
			.slot_flags = s ? s->flags : 0,
			.size = ci && ci->size > 0 ? (uint32_t)ci->size : 0,
			.lib_seq = (k->flags & CORR_CALL_LIB_SEQ) != 0,
			.name = k->comm_name,
			.job = job_of(c->m, k->pid),
			.plugin = (k->flags & CORR_CALL_PLUGIN) != 0,
			.op = k->op,
		};
	}
	err = comm_key__build(in, n, out);
	for (size_t i = 0; !err && i < n; i++) {
		keys[i].kind = out[i].kind;
		keys[i].size = out[i].size;
		keys[i].order = out[i].order;
		keys[i].handle = out[i].handle;
		keys[i].job = out[i].job;
		keys[i].seq = out[i].seq;
	}
out:
	free(in);
	free(out);
	return err;
}

static int build_instances(struct corr *c)
{
	struct ikey *keys;
	size_t n = 0, ni = 0;
	int err = link_previous(c);

	if (err)
		return err;
	err = -ENOMEM;
	for (size_t i = 0; i < c->ncalls; i++)
		n += call_is_collective(c, &c->calls[i]);
	if (!n)
		return 0;
	keys = calloc(n, sizeof(*keys));
	c->members = calloc(n, sizeof(*c->members));
	if (!keys || !c->members)
		goto out;
	n = 0;
	for (size_t i = 0; i < c->ncalls; i++) {
		if (!call_is_collective(c, &c->calls[i]))
			continue;
		keys[n].call = (uint32_t)i;
		keys[n++].rank = c->calls[i].rank;
	}
	if (fill_keys(c, keys, n))
		goto out;
	if (align_keys(c, keys, n))
		goto out;
	qsort(keys, n, sizeof(*keys), cmp_ikey);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && !cmp_ikey_group(&keys[i], &keys[j]))
			j++;
		ni++;
		i = j;
	}
	c->instances = calloc(ni, sizeof(*c->instances));
	if (!c->instances)
		goto out;
	for (size_t i = 0; i < n;) {
		struct corr_instance *in = &c->instances[c->ninstances++];
		size_t j = i;

		while (j < n && !cmp_ikey_group(&keys[i], &keys[j]))
			j++;
		in->comm_kind = keys[i].kind;
		in->comm = c->calls[keys[i].call].comm;
		in->comm_size = keys[i].kind == CORR_COMM_POINTER || keys[i].kind == CORR_COMM_LIBSEQ ||
				keys[i].kind == CORR_COMM_NAMED ? keys[i].size : 0;
		in->comm_order = keys[i].order;
		in->comm_name = keys[i].kind == CORR_COMM_NAMED ? c->calls[keys[i].call].comm_name : "";
		in->seq = keys[i].seq;
		in->first_member = c->nmembers;
		in->nmembers = j - i;
		for (size_t k = i; k < j; k++)
			c->members[c->nmembers++] = keys[k].call;
		instance_stats(c, in);
		i = j;
	}
	qsort(c->instances, c->ninstances, sizeof(*c->instances), cmp_instance);
	for (size_t i = 0; i < c->ninstances; i++)
		for (size_t k = 0; k < c->instances[i].nmembers; k++)
			c->calls[c->members[c->instances[i].first_member + k]].instance = (uint32_t)i;
	err = 0;
out:
	free(keys);
	return err;
}

/* ---- op statistics (before the verdicts: they need the medians) ---- */

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

static int build_opstats(struct corr *c)
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

/* ---- network evidence of a window ---- */

struct pset {
	uint32_t *netns, *pids;
	size_t nnetns, npids;
};

static bool in_set(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* First bin (of N sorted by start, stride SZ) that ends after A. */
static size_t first_bin_after(const void *bins, size_t n, size_t sz, uint64_t a, uint64_t bin)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = *(const uint64_t *)(const void *)((const unsigned char *)bins + mid * sz);

		if (s + bin <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t first_ts_at(const void *ev, size_t n, size_t sz, uint64_t a)
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

static void link_window(const struct model *m, uint32_t ii, uint64_t a, uint64_t b,
			struct corr_link_ev *l)
{
	const struct model_iface *f = &m->ifaces[ii];
	uint64_t bin = m->hdr.bin_ns;

	memset(l, 0, sizeof(*l));
	l->iface = ii;
	l->qdisc = CORR_NONE;
	for (int d = 0; d < 2; d++) {
		const struct model_dir *x = &f->dir[d];
		size_t k = first_bin_after(x->bins, x->nbins, sizeof(*x->bins), a, bin);
		double peak = 0;

		for (; k < x->nbins && x->bins[k].start_ns < b; k++) {
			l->bytes[d] += x->bins[k].bytes;
			l->ce_pkts += x->bins[k].ce_pkts;
			if (model__bin_bps(m, x->bins[k].bytes) > peak)
				peak = model__bin_bps(m, x->bins[k].bytes);
		}
		l->peak_util[d] = x->capacity_bps > 0 ? peak / x->capacity_bps : NAN;
		/* a direction's bursts are sorted and disjoint: their ends ascend too */
		const struct model_burst *bu = x->nbursts ? &m->bursts[x->first_burst] : NULL; /* bursts may be NULL */
		size_t lo = 0, hi = x->nbursts;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (bu[mid].start_ns + bu[mid].duration_ns <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < x->nbursts && bu[lo].start_ns < b; lo++)
			l->bursts++;
	}
	for (size_t q = 0; q < m->nqdiscs; q++) {
		const struct model_qdisc *qd = &m->qdiscs[q];
		uint64_t backlog = 0, soj = 0, base, maxd = 0, delay;
		size_t k;
		double cap = f->dir[FT_DIR_TX].capacity_bps;

		if (qd->iface != ii || !qd->nbins)
			continue;
		k = first_bin_after(qd->bins, qd->nbins, sizeof(*qd->bins), a, bin);
		base = k ? qd->bins[k - 1].drops : k < qd->nbins ? qd->bins[k].drops : 0;
		for (; k < qd->nbins && qd->bins[k].start_ns < b; k++) {
			if (qd->bins[k].max_backlog > backlog)
				backlog = qd->bins[k].max_backlog;
			if (qd->bins[k].sojourn_max_ns > soj)
				soj = qd->bins[k].sojourn_max_ns;
			if (qd->bins[k].drops > maxd)
				maxd = qd->bins[k].drops;
		}
		delay = soj;
		if (cap > 0 && (double)backlog * 8e9 / cap > (double)delay) {
			double d = (double)backlog * 8e9 / cap;

			delay = d < 0x1p64 ? (uint64_t)d : UINT64_MAX;   /* beyond u64: no UB, saturate */
		}
		if (l->qdisc == CORR_NONE || delay > l->queue_delay_ns ||
		    (delay == l->queue_delay_ns && backlog > l->max_backlog_bytes)) {
			l->qdisc = (uint32_t)q;
			l->queue_delay_ns = delay;
			l->max_backlog_bytes = backlog;
			l->max_sojourn_ns = soj;
		}
		l->qdisc_drops += maxd > base ? maxd - base : 0;
	}
}

static int cmp_drop_ev(const void *a, const void *b)
{
	const struct corr_drop_ev *x = a, *y = b;
	int c = cmp_u64(y->count, x->count);

	if (!c)
		c = cmp_u32(x->reason, y->reason);
	return c ? c : cmp_u32(x->iface, y->iface);
}

static int cmp_flow_ev(const void *a, const void *b)
{
	const struct corr_flow_ev *x = a, *y = b;
	int c = cmp_u64(y->retrans, x->retrans);

	return c ? c : cmp_u32(x->flow, y->flow);
}

static int cmp_ctr_ev(const void *a, const void *b)
{
	const struct corr_ctr_ev *x = a, *y = b;
	int c = cmp_u64(y->growth, x->growth);

	return c ? c : cmp_u32(x->series, y->series);
}

/*
 * Does a counter group speak for these ranks?  A port or NIC whose netdev
 * is in a participant's namespace does; so does one with no netdev (an
 * InfiniBand port, or a RoCE netdev not found): a capture is one node's,
 * and its ranks share the node's adapters.
 */
static bool group_relevant(const struct model *m, const struct pset *ps, uint32_t gi)
{
	const struct model_ctr_group *g = &m->ctr_groups[gi];

	if (!g->netns)
		return g->kind != FT_CTR_ETHTOOL;
	return in_set(ps->netns, ps->nnetns, g->netns);
}

/* Counter spikes overlapping [A, B) on the ranks' ports and NICs. */
static int counter_evidence(const struct model *m, const struct pset *ps, uint64_t a, uint64_t b,
			    struct corr_evidence *ev)
{
	struct corr_evsum *s = &ev->sum;
	uint64_t longest = 0;
	size_t lo = 0, hi = m->nctr_events;

	for (size_t g = 0; g < m->nctr_groups; g++)
		if (m->ctr_groups[g].nsamples > 1 && group_relevant(m, ps, (uint32_t)g))
			s->observed = true;
	for (size_t i = 0; i < m->nctr_events; i++)
		if (m->ctr_events[i].end_ns - m->ctr_events[i].start_ns > longest)
			longest = m->ctr_events[i].end_ns - m->ctr_events[i].start_ns;
	/* events are sorted by start: those overlapping start after a - longest */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ctr_events[mid].start_ns + longest < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->nctr_events && m->ctr_events[i].start_ns < b; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];
		const struct model_ctr_series *se = &m->ctr_series[e->series];
		uint64_t x = e->start_ns > a ? e->start_ns : a, y = e->end_ns < b ? e->end_ns : b;
		double grown;
		uint64_t g;
		size_t k;

		if (e->end_ns <= a || !group_relevant(m, ps, se->group))
			continue;
		grown = model__ctr_growth(m, e->series, x, y);
		/* a collective shorter than one sample interval still saw the spike */
		g = grown > 0 ? (uint64_t)ceil(grown) : 0;
		s->ctr_events++;
		switch (se->cls) {
		case FT_CLS_CONGESTION: s->ctr_cong += g; break;
		case FT_CLS_PAUSE: s->ctr_pause += g; break;
		case FT_CLS_RETRANS: s->ctr_retrans += g; break;
		default: s->ctr_discard += g; break;
		}
		for (k = 0; k < ev->nctrs; k++)
			if (ev->ctrs[k].series == e->series)
				break;
		if (k == ev->nctrs) {
			struct corr_ctr_ev *n = realloc(ev->ctrs, (ev->nctrs + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ev->ctrs = n;
			memset(&ev->ctrs[k], 0, sizeof(ev->ctrs[k]));
			ev->ctrs[k].series = e->series;
			ev->nctrs++;
		}
		ev->ctrs[k].growth += g;
		if (e->peak_rate > ev->ctrs[k].peak_rate)
			ev->ctrs[k].peak_rate = e->peak_rate;
	}
	if (ev->nctrs) {
		qsort(ev->ctrs, ev->nctrs, sizeof(*ev->ctrs), cmp_ctr_ev);
		s->ctr_series = ev->ctrs[0].series;
	}
	return 0;
}

static int window_evidence(const struct corr *c, const struct pset *ps, uint64_t a, uint64_t b,
			   struct corr_evidence *ev)
{
	const struct model *m = c->m;
	const struct corr_thresholds *t = &c->opts.th;
	struct corr_evsum *s = &ev->sum;
	size_t cap_drops = 0;
	uint64_t best_drops = 0, best_ce = 0;

	memset(ev, 0, sizeof(*ev));
	ev->start_ns = a;
	ev->end_ns = b;
	s->peak_util = NAN;
	s->peak_iface = s->queue_qdisc = s->link = s->qdisc = s->ctr_series = CORR_NONE;
	for (size_t i = 0; i < m->nifaces; i++)
		ev->nlinks += in_set(ps->netns, ps->nnetns, m->ifaces[i].netns) && !is_loopback(&m->ifaces[i]);
	if (ev->nlinks) {
		ev->links = calloc(ev->nlinks, sizeof(*ev->links));
		if (!ev->links)
			return -ENOMEM;
	}
	ev->nlinks = 0;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];
		struct corr_link_ev *l;

		if (!in_set(ps->netns, ps->nnetns, f->netns) || is_loopback(f))
			continue;
		l = &ev->links[ev->nlinks++];
		link_window(m, (uint32_t)i, a, b, l);
		s->observed |= iface_observed(f);
		for (int d = 0; d < 2; d++)
			if (l->peak_util[d] == l->peak_util[d] &&
			    !(s->peak_util >= l->peak_util[d])) { /* also when NaN so far */
				s->peak_util = l->peak_util[d];
				s->peak_iface = (uint32_t)i;
				s->peak_dir = (uint32_t)d;
			}
		if (l->qdisc != CORR_NONE && (s->queue_qdisc == CORR_NONE || l->queue_delay_ns > s->queue_delay_ns)) {
			s->queue_qdisc = l->qdisc;
			s->queue_delay_ns = l->queue_delay_ns;
		}
		if (l->max_sojourn_ns > s->max_sojourn_ns)
			s->max_sojourn_ns = l->max_sojourn_ns;
		if (l->max_backlog_bytes > s->max_backlog_bytes)
			s->max_backlog_bytes = l->max_backlog_bytes;
		s->ce_pkts += l->ce_pkts;
		s->bursts += l->bursts;

		/* drop records on this interface in the window */
		if (!f->ndrops)
			continue;
		const struct model_drop_ev *de = &m->drop_events[f->first_drop];

		for (size_t k = first_ts_at(de, f->ndrops, sizeof(*de), a); k < f->ndrops && de[k].ts_ns < b; k++) {
			const char *nm = model__drop_reason_name(m, de[k].reason);
			size_t d;

			for (d = 0; d < ev->ndrops; d++)
				if (ev->drops[d].reason == de[k].reason && ev->drops[d].iface == i)
					break;
			if (d == ev->ndrops) {
				if (ev->ndrops == cap_drops) {
					size_t nc = cap_drops ? cap_drops * 2 : 8;
					struct corr_drop_ev *nd = realloc(ev->drops, nc * sizeof(*nd));

					if (!nd)
						return -ENOMEM;
					ev->drops = nd;
					cap_drops = nc;
				}
				memset(&ev->drops[d], 0, sizeof(ev->drops[d]));
				ev->drops[d].reason = de[k].reason;
				ev->drops[d].iface = (uint32_t)i;
				ev->drops[d].congestion = corr__congestion_drop(nm);
				ev->ndrops++;
			}
			ev->drops[d].count++;
			l->drops++;
			s->drops++;
			if (ev->drops[d].congestion) {
				l->cong_drops++;
				s->cong_drops++;
			}
		}
	}
	if (ev->ndrops)
		qsort(ev->drops, ev->ndrops, sizeof(*ev->drops), cmp_drop_ev);

	/* retransmits on the ranks' flows: owned by a participant, else in a participant's netns */
	for (size_t fi = 0; fi < m->nflows; fi++) {
		const struct model_flow *w = &m->flows[fi];
		const struct model_rtx *re;
		bool mine = false;
		uint64_t cnt = 0;

		if (!w->nrtx)
			continue;
		re = &m->rtx_events[w->first_rtx];
		if (w->nowners) {
			for (size_t o = 0; o < w->nowners && !mine; o++)
				mine = in_set(ps->pids, ps->npids, m->owners[w->first_owner + o].pid);
		} else {
			mine = in_set(ps->netns, ps->nnetns, w->key.netns);
		}
		if (!mine)
			continue;
		for (size_t k = first_ts_at(re, w->nrtx, sizeof(*re), a); k < w->nrtx && re[k].ts_ns < b; k++) {
			cnt++;
			s->retrans_tlp += re[k].trigger == FT_RTX_TLP;
		}
		if (!cnt)
			continue;
		struct corr_flow_ev *nf = realloc(ev->flows, (ev->nflows + 1) * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		ev->flows = nf;
		ev->flows[ev->nflows].flow = (uint32_t)fi;
		ev->flows[ev->nflows].retrans = cnt;
		ev->flows[ev->nflows].owned = w->nowners > 0;
		ev->nflows++;
		s->retrans += cnt;
	}
	if (ev->nflows)
		qsort(ev->flows, ev->nflows, sizeof(*ev->flows), cmp_flow_ev);
	if (counter_evidence(m, ps, a, b, ev))
		return -ENOMEM;

	/*
	 * The culprit: the worst queue, else drops, retransmits, CE, the
	 * interface of a spiking counter, a saturated link.
	 */
	if (s->queue_qdisc != CORR_NONE && s->queue_delay_ns >= t->queue_delay_ns && s->queue_delay_ns) {
		s->qdisc = s->queue_qdisc;
		s->link = m->qdiscs[s->qdisc].iface;
	} else if (s->cong_drops) {
		for (size_t i = 0; i < ev->nlinks; i++)
			if (ev->links[i].cong_drops > best_drops) {
				best_drops = ev->links[i].cong_drops;
				s->link = ev->links[i].iface;
				s->qdisc = ev->links[i].qdisc;
			}
	} else if (s->retrans > s->retrans_tlp) {
		const struct model_flow *w = &m->flows[ev->flows[0].flow];
		const struct model_iface *f = w->ifindex ? model__iface(m, w->key.netns, w->ifindex) : NULL;

		if (f)
			s->link = (uint32_t)(f - m->ifaces);
	} else if (s->ce_pkts) {
		for (size_t i = 0; i < ev->nlinks; i++)
			if (ev->links[i].ce_pkts > best_ce) {
				best_ce = ev->links[i].ce_pkts;
				s->link = ev->links[i].iface;
			}
	} else if (s->ctr_series != CORR_NONE &&
		   m->ctr_groups[m->ctr_series[s->ctr_series].group].iface != UINT32_MAX) {
		s->link = m->ctr_groups[m->ctr_series[s->ctr_series].group].iface;
	} else if (s->peak_util >= t->util) {
		s->link = s->peak_iface;
	}
	if (s->link != CORR_NONE && s->link >= m->nifaces)
		s->link = CORR_NONE;
	return 0;
}

static int instance_pset(const struct corr *c, const struct corr_instance *in, struct pset *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->netns = calloc(in->nmembers, sizeof(*ps->netns));
	ps->pids = calloc(in->nmembers, sizeof(*ps->pids));
	if (!ps->netns || !ps->pids) {
		free(ps->netns);
		free(ps->pids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < in->nmembers; i++) {
		const struct corr_call *k = &c->calls[c->members[in->first_member + i]];
		uint32_t ns = k->netns;

		if (!ns && k->rank != CORR_NONE)
			ns = c->ranks[k->rank].netns;
		if (!in_set(ps->netns, ps->nnetns, ns))
			ps->netns[ps->nnetns++] = ns;
		if (!in_set(ps->pids, ps->npids, k->pid))
			ps->pids[ps->npids++] = k->pid;
	}
	return 0;
}

int corr__evidence(const struct corr *c, size_t idx, struct corr_evidence *ev)
{
	const struct corr_instance *in;
	struct pset ps;
	int err;

	memset(ev, 0, sizeof(*ev));
	if (!c || idx >= c->ninstances)
		return -EINVAL;
	in = &c->instances[idx];
	err = instance_pset(c, in, &ps);
	if (err)
		return err;
	err = window_evidence(c, &ps, in->first_entry, in->last_exit > in->first_entry ?
			      in->last_exit : in->first_entry + 1, ev);
	free(ps.netns);
	free(ps.pids);
	if (err)
		corr__evidence_free(ev);
	return err;
}

void corr__evidence_free(struct corr_evidence *ev)
{
	if (!ev)
		return;
	free(ev->links);
	free(ev->drops);
	free(ev->flows);
	free(ev->ctrs);
	ev->links = NULL;
	ev->drops = NULL;
	ev->flows = NULL;
	ev->ctrs = NULL;
	ev->nlinks = ev->ndrops = ev->nflows = ev->nctrs = 0;
}

static int verdicts(struct corr *c)
{
	for (size_t i = 0; i < c->ninstances; i++) {
		struct corr_instance *in = &c->instances[i];
		const struct corr_opstat *g = &c->opstats[in->opstat];
		struct corr_evidence ev;
		struct corr_verdict_in vi;
		int err = corr__evidence(c, i, &ev);

		if (err)
			return err;
		in->ev = ev.sum;
		corr__evidence_free(&ev);
		in->slow_ratio = g->span_p50_ns ? (double)in->span_ns / (double)g->span_p50_ns : NAN;
		in->slow = g->span_p50_ns && (double)in->span_ns >= c->opts.th.slow_factor * (double)g->span_p50_ns;
		memset(&vi, 0, sizeof(vi));
		/*
		 * The straggler's lateness is weighed against itself plus the
		 * time the collective took once everybody was there, not the
		 * whole span: a rank that left the previous collective early
		 * (a broadcast leaf) enters early and stretches the span
		 * without anybody being late.
		 */
		vi.span_ns = in->own_late_ns + in->all_arrived_ns < in->span_ns ?
			     in->own_late_ns + in->all_arrived_ns : in->span_ns;
		vi.skew_ns = in->nmembers > 1 ? in->own_late_ns : 0;
		vi.slow = in->slow;
		vi.net_observed = in->ev.observed;
		vi.queue_delay_ns = in->ev.queue_delay_ns;
		vi.cong_drops = in->ev.cong_drops;
		/*
		 * A tail-loss probe alone is no evidence of loss: TCP sends one
		 * whenever the ACK for the tail is late, e.g. when the receiving
		 * rank is descheduled.  Only RTO / fast retransmits count.
		 */
		vi.retrans = in->ev.retrans - in->ev.retrans_tlp;
		vi.ce_pkts = in->ev.ce_pkts;
		vi.peak_util = in->ev.peak_util;
		vi.ctr_cong = in->ev.ctr_cong;
		vi.ctr_pause = in->ev.ctr_pause;
		vi.ctr_loss = in->ev.ctr_retrans + in->ev.ctr_discard;
		in->verdict = corr__verdict(&c->opts.th, &vi, &in->why);
		c->verdicts[in->verdict]++;
		c->opstats[in->opstat].verdicts[in->verdict]++;
	}
	return 0;
}

static int cmp_by_span(const void *a, const void *b, void *arg)
{
	const struct corr_instance *in = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_u64(in[ib].span_ns, in[ia].span_ns);

	return c ? c : cmp_u32(ia, ib);
}

/* ---- per-rank statistics ---- */

static int rank_stats(struct corr *c)
{
	uint64_t (*acc)[5];
	size_t nslot = (size_t)FT_OP_MAX;

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
		a = acc[(size_t)k->rank * nslot + (k->op < FT_OP_MAX ? k->op : FT_OP_NONE)];
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
		uint64_t prev = in->first_entry;
		bool seen_last = false;

		if (in->nmembers < 2 || !in->skew_ns || in->straggler == CORR_NONE)
			continue;
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
		c->ranks[in->straggler].straggler_count++;
		c->ranks[in->straggler].late_ns += dur(prev, in->last_entry);
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
			o->op = (uint32_t)op;
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

/* ---- steps and named phases ---- */

static int cmp_span_step(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_u64(s[ia].step, s[ib].step);

	if (!c)
		c = cmp_u64(s[ia].start_ns, s[ib].start_ns);
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_span_name(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = strncmp(s[ia].name, s[ib].name, sizeof(s[ia].name));

	if (!c)
		c = cmp_u32(s[ia].pid, s[ib].pid);
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_span_step_name(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_i64(s[ia].step_of, s[ib].step_of);

	if (!c)
		c = strncmp(s[ia].name, s[ib].name, sizeof(s[ia].name));
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_inst_step(const void *a, const void *b, void *arg)
{
	const struct corr_instance *in = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_i64(in[ia].step, in[ib].step);

	return c ? c : cmp_u32(ia, ib); /* instances are sorted by entry */
}

static int build_steps(struct corr *c)
{
	uint32_t *ix = NULL;
	size_t n = 0, k;
	int err = -ENOMEM;

	if (!c->nspans && !c->ninstances)
		return 0;
	ix = malloc((c->nspans > c->ninstances ? c->nspans : c->ninstances) * sizeof(*ix) + sizeof(*ix));
	if (!ix)
		return -ENOMEM;

	/* steps */
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_STEP)
			ix[n++] = (uint32_t)i;
	if (n) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_step, c->spans);
		size_t ns = 0;

		for (size_t i = 0; i < n; i++)
			ns += !i || c->spans[ix[i]].step != c->spans[ix[i - 1]].step;
		c->steps = calloc(ns, sizeof(*c->steps));
		if (!c->steps)
			goto out;
		for (size_t i = 0; i < n;) {
			struct corr_step *st = &c->steps[c->nsteps++];
			size_t j = i;
			uint64_t sum = 0;

			st->step = c->spans[ix[i]].step;
			st->start_ns = UINT64_MAX;
			while (j < n && c->spans[ix[j]].step == st->step) {
				const struct corr_span *s = &c->spans[ix[j]];
				uint64_t d = dur(s->start_ns, s->end_ns);

				if (s->start_ns < st->start_ns)
					st->start_ns = s->start_ns;
				if (s->end_ns > st->end_ns)
					st->end_ns = s->end_ns;
				st->open |= s->open;
				sum += d;
				if (d > st->dur_max_ns)
					st->dur_max_ns = d;
				j++;
			}
			st->nranks = (uint32_t)(j - i);
			st->dur_mean_ns = sum / (j - i);
			i = j;
		}
	}

	/* collectives of each step, by entry */
	n = 0;
	for (size_t i = 0; i < c->ninstances; i++)
		if (c->instances[i].step >= 0)
			ix[n++] = (uint32_t)i;
	if (n && c->nsteps) {
		qsort_r(ix, n, sizeof(*ix), cmp_inst_step, c->instances);
		c->step_children = malloc(n * sizeof(*c->step_children));
		if (!c->step_children)
			goto out;
		k = 0;
		for (size_t s = 0; s < c->nsteps; s++) {
			struct corr_step *st = &c->steps[s];

			while (k < n && c->instances[ix[k]].step < (int64_t)st->step)
				k++;
			st->first_child = c->nstep_children;
			while (k < n && c->instances[ix[k]].step == (int64_t)st->step)
				c->step_children[c->nstep_children++] = ix[k++];
			st->nchildren = c->nstep_children - st->first_child;
		}
	}

	/* named phases inside each step */
	n = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_MARK && c->spans[i].step_of >= 0)
			ix[n++] = (uint32_t)i;
	if (n && c->nsteps) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_step_name, c->spans);
		c->step_phases = calloc(n, sizeof(*c->step_phases));
		if (!c->step_phases)
			goto out;
		k = 0;
		for (size_t s = 0; s < c->nsteps; s++) {
			struct corr_step *st = &c->steps[s];

			while (k < n && c->spans[ix[k]].step_of < (int64_t)st->step)
				k++;
			st->first_phase = c->nstep_phases;
			while (k < n && c->spans[ix[k]].step_of == (int64_t)st->step) {
				const struct corr_span *sp = &c->spans[ix[k]];
				struct corr_step_phase *ph;
				uint64_t d = dur(sp->start_ns, sp->end_ns);

				if (c->nstep_phases == st->first_phase ||
				    strncmp(c->step_phases[c->nstep_phases - 1].name, sp->name, sizeof(sp->name)) != 0) {
					ph = &c->step_phases[c->nstep_phases++];
					memcpy(ph->name, sp->name, sizeof(ph->name));
				}
				ph = &c->step_phases[c->nstep_phases - 1];
				ph->count++;
				ph->total_ns += d;
				if (d > ph->max_ns)
					ph->max_ns = d;
				k++;
			}
			st->nphases = c->nstep_phases - st->first_phase;
		}
	}

	/* named phases overall */
	n = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_MARK)
			ix[n++] = (uint32_t)i;
	if (n) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_name, c->spans);
		c->marks = calloc(n, sizeof(*c->marks));
		if (!c->marks)
			goto out;
		for (size_t i = 0; i < n; i++) {
			const struct corr_span *sp = &c->spans[ix[i]];
			struct corr_mark *mk;
			uint64_t d = dur(sp->start_ns, sp->end_ns);

			if (!i || strncmp(c->spans[ix[i - 1]].name, sp->name, sizeof(sp->name)) != 0) {
				mk = &c->marks[c->nmarks++];
				memcpy(mk->name, sp->name, sizeof(mk->name));
			}
			mk = &c->marks[c->nmarks - 1];
			mk->count++;
			mk->total_ns += d;
			if (d > mk->max_ns)
				mk->max_ns = d;
			mk->open += sp->open;
			if (!i || strncmp(c->spans[ix[i - 1]].name, sp->name, sizeof(sp->name)) != 0 ||
			    c->spans[ix[i - 1]].pid != sp->pid)
				mk->nranks++;
		}
	}
	err = 0;
out:
	free(ix);
	return err;
}

/* ---- inferred phases ---- */

struct nsent {
	uint32_t netns, iface;
};

static int cmp_nsent(const void *a, const void *b)
{
	const struct nsent *x = a, *y = b;
	int c = cmp_u32(x->netns, y->netns);

	return c ? c : cmp_u32(x->iface, y->iface);
}

static int cmp_u64p(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

struct sweep {
	uint64_t t;
	int d;          /* +1 start, -1 end */
	int pad;
};

static int cmp_sweep(const void *a, const void *b)
{
	const struct sweep *x = a, *y = b;
	int c = cmp_u64(x->t, y->t);

	return c ? c : (x->d > y->d) - (x->d < y->d); /* ends first */
}

static int cmp_host(const void *a, const void *b)
{
	const struct corr_host *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_u32(x->netns, y->netns);
}

/* Forwarding or management namespaces (see infer()) are no hosts: ne[i..j) is one netns. */
static bool not_a_host(const struct model *m, const struct nsent *ne, size_t i, size_t j, size_t nns,
		       size_t nnamed)
{
	bool bridge = false;

	for (size_t q = i; q < j; q++) {
		const struct model_iface *f = &m->ifaces[ne[q].iface];

		bridge |= !strcmp(f->kind, "bridge") || !strcmp(f->kind, "openvswitch");
	}
	return bridge || (j - i >= 2 && nns >= 3) || (nnamed >= 2 && !model__netns_name(m, ne[i].netns)[0]);
}

struct hbin {
	uint64_t t, bytes, pkts;
};

static int cmp_hbin(const void *a, const void *b)
{
	return cmp_u64(((const struct hbin *)a)->t, ((const struct hbin *)b)->t);
}

/* Bytes per packet at or below which an island of traffic is only ACKs and keepalives. */
#define INFER_NOISE_PKT_BYTES 100
#define INFER_NOISE_MAX_BYTES 1500
/* Small packets end a phase only this soon after it: Linux delays an ACK by >= 40 ms. */
#define INFER_TAIL_MAX_NS 20000000ull

/*
 * The starts of the non-empty bins of one host (ne[i..j), every interface
 * and direction), sorted, into OUT (room for all its bins), without noise:
 * an island of bins (split at gaps >= FLOOR) of small packets only (mean
 * <= INFER_NOISE_PKT_BYTES, < INFER_NOISE_MAX_BYTES in all) starts no
 * phase — e.g. the delayed ACK of the previous collective's last segment,
 * 40 ms later, just before the next one — but it ends one: such an island
 * is kept when it starts less than TAIL after a kept bin (a collective's
 * last small messages; never the delayed ACK 40 ms later: see
 * INFER_TAIL_MAX_NS).  TAIL 0 keeps bulk traffic only.
 */
static int host_bins(const struct model *m, const struct nsent *ne, size_t i, size_t j, uint64_t floor,
		     uint64_t tail, uint64_t *out, size_t *nout)
{
	size_t n = 0, k = 0;
	uint64_t last = 0;
	bool have = false;
	struct hbin *hb;

	for (size_t q = i; q < j; q++)
		n += m->ifaces[ne[q].iface].dir[0].nbins + m->ifaces[ne[q].iface].dir[1].nbins;
	*nout = 0;
	hb = malloc((n ? n : 1) * sizeof(*hb));
	if (!hb)
		return -ENOMEM;
	for (size_t q = i; q < j; q++)
		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &m->ifaces[ne[q].iface].dir[d];

			for (size_t b = 0; b < x->nbins; b++)
				if (x->bins[b].bytes)
					hb[k++] = (struct hbin){ x->bins[b].start_ns, x->bins[b].bytes, x->bins[b].pkts };
		}
	if (k)
		qsort(hb, k, sizeof(*hb), cmp_hbin);
	for (size_t a = 0; a < k;) {
		size_t b = a + 1;
		uint64_t bytes = hb[a].bytes, pkts = hb[a].pkts;

		while (b < k && hb[b].t - hb[b - 1].t < floor) {
			bytes += hb[b].bytes;
			pkts += hb[b].pkts;
			b++;
		}
		if (!(bytes < INFER_NOISE_MAX_BYTES && bytes <= INFER_NOISE_PKT_BYTES * (pkts ? pkts : 1)) ||
		    (have && hb[a].t - last < tail)) {
			for (size_t q = a; q < b; q++)
				out[(*nout)++] = hb[q].t;
			last = hb[b - 1].t;
			have = true;
		}
		a = b;
	}
	free(hb);
	return 0;
}

/*
 * The gap that separates phases, from the traffic itself: the idle gaps
 * between the hosts' bulk bins are bimodal when the workload alternates
 * communication and compute (short stalls inside a collective, the compute
 * time between them).  Split the gaps of at least FLOOR in two classes by
 * Otsu's method on their logarithms (the split with the largest
 * between-class variance; the upper class holds at least two gaps), taking
 * only clear breaks: splits at least half as wide, in log space, as the
 * widest one (a spread of stalls otherwise draws the split into them).
 * The threshold is the geometric middle of the split.  If the classes are
 * not clearly apart (means less than 3x apart, or less than 1.5x across the
 * split), the gaps are one kind -- taken to be the pauses between phases --
 * and the threshold is the geometric middle of FLOOR and the smallest gap.
 * T (sorted bin starts) is scratch.
 */
static uint64_t auto_gap(uint64_t *t, size_t n, uint64_t bin, uint64_t floor)
{
	size_t ng = 0, best = 0;
	double total = 0, below = 0, score = -1, mu0 = 0, mu1 = 0, widest = 1;

	for (size_t i = 1; i < n; i++)
		if (t[i] - t[i - 1] > bin && t[i] - t[i - 1] >= floor)
			t[ng++] = t[i] - t[i - 1];  /* ng < i: overwrites only what was read */
	if (ng < 3)
		return floor;
	qsort(t, ng, sizeof(*t), cmp_u64p);
	for (size_t i = 0; i < ng; i++)
		total += log((double)t[i]);
	for (size_t i = 1; i + 2 <= ng; i++)
		if ((double)t[i] / (double)t[i - 1] > widest)
			widest = (double)t[i] / (double)t[i - 1];
	for (size_t i = 1; i + 2 <= ng; i++) {   /* classes [0, i) and [i, ng) */
		double w0 = (double)i / (double)ng, m0, m1, sc;

		below += log((double)t[i - 1]);
		if ((double)t[i] / (double)t[i - 1] < sqrt(widest))
			continue;
		m0 = below / (double)i;
		m1 = (total - below) / (double)(ng - i);
		sc = w0 * (1 - w0) * (m1 - m0) * (m1 - m0);
		if (sc > score) {
			score = sc;
			best = i;
			mu0 = m0;
			mu1 = m1;
		}
	}
	if (best && mu1 - mu0 >= log(3.0) && (double)t[best] >= 1.5 * (double)t[best - 1])
		return (uint64_t)sqrt((double)t[best - 1] * (double)t[best]);
	return (uint64_t)sqrt((double)floor * (double)t[0]);
}

/*
 * Hosts are network namespaces with traced interfaces (loopback aside),
 * except forwarding ones: a namespace with a bridge, or with two or more
 * interfaces while at least two other namespaces have interfaces (the
 * lab's switch; its ports mirror the hosts' traffic); and when two or more
 * namespaces have names (`ip netns`), the unnamed ones (the initial
 * namespace: management traffic, not the fabric).  A host is active in
 * its non-empty bins (any interface, either direction), merged across gaps
 * shorter than the gap; an inferred phase is a time when at least
 * infer_min_hosts hosts are active together, merged across the same gap.
 * The gap is infer_gap_ns if set, else auto_gap() over all hosts' bins,
 * never below max(1 ms, 10 bins).
 */
static int infer(struct corr *c)
{
	const struct model *m = c->m;
	uint64_t bin = m->hdr.bin_ns, gap = c->opts.infer_gap_ns;
	struct nsent *ne = NULL;
	size_t nne = 0, nns = 0, nnamed = 0, nhost = 0, cap_act = 0, nsw = 0;
	uint64_t *starts = NULL;
	struct sweep *sw = NULL;
	int err = -ENOMEM;
	unsigned k = c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2;

	uint64_t floor = 10 * bin > 1000000 ? 10 * bin : 1000000;

	c->nactivity = c->ninferred = c->nhosts = 0;
	ne = malloc((m->nifaces ? m->nifaces : 1) * sizeof(*ne));
	if (!ne)
		goto out;
	for (size_t i = 0; i < m->nifaces; i++)
		if (!is_loopback(&m->ifaces[i]))
			ne[nne++] = (struct nsent){ m->ifaces[i].netns, (uint32_t)i };
	if (nne)
		qsort(ne, nne, sizeof(*ne), cmp_nsent);
	for (size_t i = 0; i < nne; i++)
		nns += !i || ne[i].netns != ne[i - 1].netns;
	for (size_t i = 0; i < nne; i++)
		nnamed += (!i || ne[i].netns != ne[i - 1].netns) && model__netns_name(m, ne[i].netns)[0];
	c->hosts = calloc(nns ? nns : 1, sizeof(*c->hosts));
	if (!c->hosts)
		goto out;

	if (!gap) {
		size_t nall = 0, na = 0, k2 = 0;

		for (size_t q = 0; q < nne; q++)
			nall += m->ifaces[ne[q].iface].dir[0].nbins + m->ifaces[ne[q].iface].dir[1].nbins;
		starts = malloc((nall ? nall : 1) * sizeof(*starts));
		if (!starts)
			goto out;
		for (size_t i = 0; i < nne;) {
			size_t j = i;

			while (j < nne && ne[j].netns == ne[i].netns)
				j++;
			if (!not_a_host(m, ne, i, j, nns, nnamed)) {
				err = host_bins(m, ne, i, j, floor, 0, starts + na, &k2);
				if (err)
					goto out;
				na += k2;
				err = -ENOMEM;
			}
			i = j;
		}
		if (na)
			qsort(starts, na, sizeof(*starts), cmp_u64p);
		gap = auto_gap(starts, na, bin, floor);
		c->infer_gap_auto = true;
	}
	if (gap < floor && !c->opts.infer_gap_ns)
		gap = floor;
	c->infer_gap_ns = gap;

	for (size_t i = 0; i < nne;) {
		size_t j = i, nb = 0, ns = 0;
		struct corr_host *h;

		while (j < nne && ne[j].netns == ne[i].netns) {
			const struct model_iface *f = &m->ifaces[ne[j].iface];

			nb += f->dir[0].nbins + f->dir[1].nbins;
			j++;
		}
		if (not_a_host(m, ne, i, j, nns, nnamed)) {
			i = j;
			continue;
		}
		h = &c->hosts[nhost++];
		h->netns = ne[i].netns;
		{
			const char *nm = model__netns_name(m, h->netns);

			if (nm[0])
				snprintf(h->name, sizeof(h->name), "%s", nm);
			else
				snprintf(h->name, sizeof(h->name), "netns %u", h->netns);
		}
		h->first_act = c->nactivity;
		free(starts);
		starts = malloc((nb ? nb : 1) * sizeof(*starts));
		if (!starts)
			goto out;
		err = host_bins(m, ne, i, j, floor, gap < INFER_TAIL_MAX_NS ? gap : INFER_TAIL_MAX_NS, starts, &ns);
		if (err)
			goto out;
		err = -ENOMEM;
		for (size_t q = 0; q < ns; q++) {
			struct corr_interval *cur = h->nact ? &c->activity[c->nactivity - 1] : NULL;

			if (cur && starts[q] < cur->end_ns + gap) {
				if (starts[q] + bin > cur->end_ns)
					cur->end_ns = starts[q] + bin;
				continue;
			}
			if (c->nactivity == cap_act) {
				size_t nc = cap_act ? cap_act * 2 : 64;
				struct corr_interval *na = realloc(c->activity, nc * sizeof(*na));

				if (!na)
					goto out;
				c->activity = na;
				cap_act = nc;
			}
			c->activity[c->nactivity].start_ns = starts[q];
			c->activity[c->nactivity].end_ns = starts[q] + bin;
			c->nactivity++;
			h->nact++;
		}
		i = j;
	}
	c->nhosts = nhost;
	if (nhost)
		qsort(c->hosts, nhost, sizeof(*c->hosts), cmp_host);

	/* sweep: times with >= k hosts active */
	sw = malloc((c->nactivity ? c->nactivity : 1) * 2 * sizeof(*sw));
	if (!sw)
		goto out;
	for (size_t i = 0; i < c->nactivity; i++) {
		sw[nsw++] = (struct sweep){ c->activity[i].start_ns, 1, 0 };
		sw[nsw++] = (struct sweep){ c->activity[i].end_ns, -1, 0 };
	}
	if (nsw)
		qsort(sw, nsw, sizeof(*sw), cmp_sweep);
	{
		int cnt = 0, maxc = 0;
		uint64_t st = 0;
		size_t capi = 0;

		for (size_t i = 0; i < nsw; i++) {
			int before = cnt;

			cnt += sw[i].d;
			if (cnt > maxc)
				maxc = cnt;
			if (before < (int)k && cnt >= (int)k) {
				st = sw[i].t;
				maxc = cnt;
			} else if (before >= (int)k && cnt < (int)k && sw[i].t > st) {
				struct corr_inferred *p = c->ninferred ? &c->inferred[c->ninferred - 1] : NULL;

				if (p && st < p->end_ns + gap) {
					p->end_ns = sw[i].t;
					if ((uint32_t)maxc > p->max_hosts)
						p->max_hosts = (uint32_t)maxc;
					continue;
				}
				if (c->ninferred == capi) {
					size_t nc = capi ? capi * 2 : 64;
					struct corr_inferred *na = realloc(c->inferred, nc * sizeof(*na));

					if (!na)
						goto out;
					c->inferred = na;
					capi = nc;
				}
				p = &c->inferred[c->ninferred++];
				memset(p, 0, sizeof(*p));
				p->start_ns = st;
				p->end_ns = sw[i].t;
				p->max_hosts = (uint32_t)maxc;
			}
		}
	}

	/* TX bytes of the hosts' interfaces inside each phase; drop the small ones */
	for (size_t i = 0; i < c->ninferred; i++) {
		struct corr_inferred *p = &c->inferred[i];

		for (size_t q = 0; q < nne; q++) {
			const struct model_dir *x = &m->ifaces[ne[q].iface].dir[FT_DIR_TX];
			bool host = false;

			for (size_t h = 0; h < c->nhosts && !host; h++)
				host = c->hosts[h].netns == ne[q].netns;
			if (!host)
				continue;
			for (size_t b = first_ts_at(x->bins, x->nbins, sizeof(*x->bins), p->start_ns);
			     b < x->nbins && x->bins[b].start_ns < p->end_ns; b++)
				p->tx_bytes += x->bins[b].bytes;
		}
	}
	if (c->opts.infer_min_bytes) {
		size_t n = 0;

		for (size_t i = 0; i < c->ninferred; i++)
			if (c->inferred[i].tx_bytes >= c->opts.infer_min_bytes)
				c->inferred[n++] = c->inferred[i];
		c->ninferred = n;
	}
	err = 0;
out:
	free(ne);
	free(starts);
	free(sw);
	return err;
}

void corr__compare(struct corr_inferred *inf, size_t ninf, const struct corr_interval *real,
		   size_t nreal, struct corr_compare *cmp)
{
	uint64_t *pmax = NULL;
	uint32_t *rcount = NULL;
	uint32_t *rfirst = NULL;
	size_t nmatched = 0;
	double ssum = 0, esum = 0;

	memset(cmp, 0, sizeof(*cmp));
	cmp->nreal = nreal;
	cmp->ninferred = ninf;
	for (size_t i = 0; i < ninf; i++) {
		inf[i].matched = 0;
		inf[i].start_err_ns = inf[i].end_err_ns = 0;
	}
	if (!ninf || !nreal)
		return;
	pmax = malloc(nreal * sizeof(*pmax));
	rcount = calloc(nreal, sizeof(*rcount));
	rfirst = malloc(nreal * sizeof(*rfirst));
	if (!pmax || !rcount || !rfirst)
		goto out;
	for (size_t r = 0; r < nreal; r++)
		pmax[r] = r && pmax[r - 1] > real[r].end_ns ? pmax[r - 1] : real[r].end_ns;
	cmp->valid = true;
	for (size_t i = 0; i < ninf; i++) {
		struct corr_inferred *p = &inf[i];
		size_t lo = 0, hi = nreal;
		uint64_t us = UINT64_MAX, ue = 0;

		/* the first real window whose running max end passes the phase start */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (pmax[mid] <= p->start_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t r = lo; r < nreal && real[r].start_ns < p->end_ns; r++) {
			if (real[r].end_ns <= p->start_ns && !(real[r].start_ns == real[r].end_ns &&
							       real[r].start_ns == p->start_ns))
				continue;
			if (!rcount[r])
				rfirst[r] = (uint32_t)i;
			rcount[r]++;
			p->matched++;
			if (real[r].start_ns < us)
				us = real[r].start_ns;
			if (real[r].end_ns > ue)
				ue = real[r].end_ns;
		}
		if (!p->matched)
			continue;
		p->start_err_ns = (int64_t)(p->start_ns - us);
		p->end_err_ns = (int64_t)(p->end_ns - ue);
		nmatched++;
		uint64_t as = p->start_err_ns < 0 ? (uint64_t)(-p->start_err_ns) : (uint64_t)p->start_err_ns;
		uint64_t ae = p->end_err_ns < 0 ? (uint64_t)(-p->end_err_ns) : (uint64_t)p->end_err_ns;

		if (as > cmp->max_abs_start_err_ns)
			cmp->max_abs_start_err_ns = as;
		if (ae > cmp->max_abs_end_err_ns)
			cmp->max_abs_end_err_ns = ae;
		ssum += (double)as;
		esum += (double)ae;
	}
	cmp->inferred_matched = nmatched;
	for (size_t r = 0; r < nreal; r++) {
		cmp->real_covered += rcount[r] > 0;
		if (rcount[r] == 1 && inf[rfirst[r]].matched == 1)
			cmp->one_to_one++;
	}
	cmp->mean_abs_start_err_ns = nmatched ? ssum / (double)nmatched : 0;
	cmp->mean_abs_end_err_ns = nmatched ? esum / (double)nmatched : 0;
out:
	free(pmax);
	free(rcount);
	free(rfirst);
}

/* Instances whose ranks live in two or more namespaces: their windows, by start. */
static int compare_real(struct corr *c)
{
	struct corr_interval *real;
	size_t n = 0;

	real = malloc((c->ninstances ? c->ninstances : 1) * sizeof(*real));
	if (!real)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		uint32_t ns0 = c->calls[c->members[in->first_member]].netns;
		bool multi = false;

		for (size_t k = 1; k < in->nmembers && !multi; k++)
			multi = c->calls[c->members[in->first_member + k]].netns != ns0;
		if (!multi)
			continue;
		real[n].start_ns = in->first_entry;
		real[n].end_ns = in->last_exit;
		n++;
	}
	corr__compare(c->inferred, c->ninferred, real, n, &c->compare);
	free(real);
	return 0;
}

/* ---- build ---- */

void corr__free(struct corr *c)
{
	if (!c)
		return;
	free(c->procs);
	free(c->ranks);
	free(c->rank_ops);
	free(c->calls);
	free(c->spans);
	free(c->instances);
	free(c->members);
	free(c->by_span);
	free(c->opstats);
	free(c->steps);
	free(c->step_children);
	free(c->step_phases);
	free(c->marks);
	free(c->hosts);
	free(c->activity);
	free(c->inferred);
	free(c);
}

int corr__build(const struct model *m, const struct corr_opts *o, struct corr **out)
{
	struct corr *c;
	int err;

	*out = NULL;
	if (!m || !m->finished)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->m = m;
	if (o)
		c->opts = *o;
	else
		corr_opts__init(&c->opts);
	if (!(c->opts.th.skew_frac >= 0))
		c->opts.th.skew_frac = CORR_DEF_SKEW_FRAC;
	if (!(c->opts.th.slow_factor > 0))
		c->opts.th.slow_factor = CORR_DEF_SLOW_FACTOR;
	if (!(c->opts.th.util > 0))
		c->opts.th.util = CORR_DEF_UTIL;
	c->have_probes = m->nphases > 0;
	c->show_probes = c->have_probes && c->opts.phases != CORR_PHASES_INFERRED;
	c->inferred_on = c->opts.phases == CORR_PHASES_INFERRED ||
			 (c->opts.phases == CORR_PHASES_AUTO && !c->have_probes);
	err = build_procs(c);
	if (!err)
		err = build_calls(c);
	/* the enqueue caveat applies when NCCL calls were traced, not merely attached */
	for (size_t i = 0; !err && i < c->ncalls; i++)
		c->enqueue_only |= (c->calls[i].flags & CORR_CALL_ENQUEUE_ONLY) != 0;
	if (!err)
		err = build_spans(c);
	if (!err)
		err = parent_calls(c);
	if (!err)
		err = build_instances(c);
	if (!err)
		err = build_opstats(c);
	if (!err)
		err = verdicts(c);
	if (!err)
		err = rank_stats(c);
	if (!err)
		err = build_steps(c);
	if (!err && c->ninstances) {
		c->by_span = malloc(c->ninstances * sizeof(*c->by_span));
		if (!c->by_span) {
			err = -ENOMEM;
		} else {
			for (size_t i = 0; i < c->ninstances; i++)
				c->by_span[i] = (uint32_t)i;
			qsort_r(c->by_span, c->ninstances, sizeof(*c->by_span), cmp_by_span, c->instances);
			c->nby_span = c->ninstances;
		}
	}
	if (!err && c->inferred_on) {
		err = infer(c);
		if (!err)
			err = compare_real(c);
	}
	if (err) {
		corr__free(c);
		return err;
	}
	*out = c;
	return 0;
}

/* ---- description ---- */

static const char *qdisc_str(const struct model *m, uint32_t q, char *buf, size_t len)
{
	const struct model_qdisc *qd = &m->qdiscs[q];
	uint32_t h = qd->handle;

	if (h & 0xffff)
		snprintf(buf, len, "%s %x:%x", qd->kind[0] ? qd->kind : "qdisc", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%s %x:", qd->kind[0] ? qd->kind : "qdisc", h >> 16);
	return buf;
}

static const char *rank_str(const struct corr *c, uint32_t r, char *buf, size_t len)
{
	const struct corr_rank *rk;

	if (r == CORR_NONE || r >= c->nranks) {
		snprintf(buf, len, "?");
		return buf;
	}
	rk = &c->ranks[r];
	if (rk->rank >= 0)
		snprintf(buf, len, "rank %d (pid %u, %s)", rk->rank, rk->pid, rk->host);
	else
		snprintf(buf, len, "pid %u (%s)", rk->pid, rk->host);
	return buf;
}

const char *corr__rank_label(const struct corr *c, uint32_t rank, char *buf, size_t len)
{
	return rank_str(c, rank, buf, len);
}

const char *corr__qdisc_label(const struct model *m, uint32_t qdisc, char *buf, size_t len)
{
	if (qdisc >= m->nqdiscs) {
		snprintf(buf, len, "?");
		return buf;
	}
	return qdisc_str(m, qdisc, buf, len);
}

/* Append to BUF at *k (bounded). */
static void app(char *buf, size_t len, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void app(char *buf, size_t len, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*k >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *k, len - *k, fmt, ap);
	va_end(ap);
	if (n > 0)
		*k = *k + (size_t)n < len ? *k + (size_t)n : len;
}

/* Drop reasons of EV summed over interfaces, the congestion ones first: "QDISC_DROP 12" */
static size_t drops_by_reason(const struct corr_evidence *ev, struct corr_drop_ev *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->ndrops; i++) {
		size_t r;

		for (r = 0; r < n; r++)
			if (out[r].reason == ev->drops[i].reason)
				break;
		if (r == n) {
			if (n == cap)
				continue;
			out[n] = ev->drops[i];
			out[n++].count = 0;
		}
		out[r].count += ev->drops[i].count;
	}
	return n;
}

/*
 * ", 24 congestion drops (QDISC_DROP 24)" and, for drops whose reason is no
 * congestion (NOT_SPECIFIED, TCP_OLD_SEQUENCE...), "; 4 other drops, not
 * counted (NOT_SPECIFIED 4)": shown, never weighed.
 */
static void drops_str(const struct model *m, const struct corr_evidence *ev, char *buf, size_t len, size_t *k,
		      bool first)
{
	struct corr_drop_ev by[16];
	size_t n = drops_by_reason(ev, by, sizeof(by) / sizeof(by[0]));

	for (int cong = 1; cong >= 0; cong--) {
		uint64_t total = 0;
		size_t shown = 0;

		for (size_t i = 0; i < n; i++)
			if (by[i].congestion == cong)
				total += by[i].count;
		if (!total)
			continue;
		if (cong)
			app(buf, len, k, "%s %" PRIu64 " congestion drops (", first ? "" : ",", total);
		else
			app(buf, len, k, "%s %" PRIu64 " other drops, not counted (", first ? "" : ";", total);
		for (size_t i = 0; i < n; i++) {
			const char *nm;

			if (by[i].congestion != cong)
				continue;
			if (shown++ == 3) {
				app(buf, len, k, ", ...");
				break;
			}
			nm = model__drop_reason_name(m, by[i].reason);
			if (nm && nm[0])
				app(buf, len, k, "%s%s %" PRIu64, shown > 1 ? ", " : "", nm, by[i].count);
			else
				app(buf, len, k, "%sreason %u %" PRIu64, shown > 1 ? ", " : "", by[i].reason, by[i].count);
		}
		app(buf, len, k, ")");
		first = false;
	}
}

/* "eth0@h2 tbf 1: queue 2.40 ms (backlog 30.0 kB), 12 drops (QDISC_DROP 12), ..." */
static void evidence_str(const struct corr *c, const struct corr_evidence *ev, char *buf, size_t len,
			 size_t *k)
{
	const struct model *m = c->m;
	const struct corr_evsum *s = &ev->sum;
	char q[48];
	bool first = true;

	if (s->link != CORR_NONE)
		app(buf, len, k, "link %s", m->ifaces[s->link].label);
	if (s->qdisc != CORR_NONE)
		app(buf, len, k, " (%s)", qdisc_str(m, s->qdisc, q, sizeof(q)));
	if (s->link != CORR_NONE || s->qdisc != CORR_NONE)
		app(buf, len, k, ":");
	if (s->queue_qdisc != CORR_NONE && s->queue_delay_ns) {
		char a[32], b[32];

		app(buf, len, k, " queueing %s (backlog %s, sojourn max %s)", fmt_ns(s->queue_delay_ns, a, sizeof(a)),
		    fmt_bytes((double)s->max_backlog_bytes, b, sizeof(b)), fmt_ns(s->max_sojourn_ns, q, sizeof(q)));
		first = false;
	}
	if (s->drops) {
		drops_str(m, ev, buf, len, k, first);
		first = false;
	}
	if (s->retrans) {
		app(buf, len, k, "%s %" PRIu64 " retransmits", first ? "" : ",", s->retrans);
		if (s->retrans_tlp)
			app(buf, len, k, " (%" PRIu64 " tail-loss probes)", s->retrans_tlp);
		first = false;
	}
	if (s->ce_pkts) {
		app(buf, len, k, "%s %" PRIu64 " CE", first ? "" : ",", s->ce_pkts);
		first = false;
	}
	for (size_t i = 0; i < ev->nctrs && i < 3; i++) {
		const struct model_ctr_series *se = &m->ctr_series[ev->ctrs[i].series];

		app(buf, len, k, "%s %s %s +%" PRIu64 " (%s)", first ? "" : ",", m->ctr_groups[se->group].label,
		    se->name, ev->ctrs[i].growth, ctr__class_name(se->cls));
		first = false;
	}
	if (s->peak_util == s->peak_util && s->peak_iface != CORR_NONE) {
		/* the busiest bin in bits/s and against the wire: a shaped link's bins
		 * run at the line rate, so a % of the shaper would read 3000 % */
		const struct model_dir *pd = &m->ifaces[s->peak_iface].dir[s->peak_dir & 1];
		double bps = s->peak_util * pd->capacity_bps;

		app(buf, len, k, "%s peak %s", first ? "" : ",", fmt_rate_bps(bps, q, sizeof(q)));
		if (pd->line_bps > 0)
			app(buf, len, k, " (%.1f%% of the line rate)", 100.0 * bps / pd->line_bps);
		app(buf, len, k, " on %s %s", m->ifaces[s->peak_iface].label, s->peak_dir == FT_DIR_TX ? "tx" : "rx");
		first = false;
	}
	if (first)
		app(buf, len, k, " nothing");
}

const char *corr__describe(const struct corr *c, size_t idx, char *buf, size_t len)
{
	const struct corr_instance *in;
	struct corr_evidence ev;
	char r[128], a[32];
	size_t k = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!c || idx >= c->ninstances)
		return buf;
	in = &c->instances[idx];
	if (corr__evidence(c, idx, &ev)) {
		snprintf(buf, len, "%s", corr__verdict_name(in->verdict));
		return buf;
	}
	switch (in->verdict) {
	case CORR_NETWORK:
		app(buf, len, &k, "network-bound: ");
		evidence_str(c, &ev, buf, len, &k);
		if (in->skew_ns)
			app(buf, len, &k, "; entry skew %s", fmt_ns(in->skew_ns, a, sizeof(a)));
		break;
	case CORR_RANK:
		app(buf, len, &k, "rank-bound: %s entered %s after the first (%.0f%% of the span)",
		    rank_str(c, in->straggler, r, sizeof(r)), fmt_ns(in->skew_ns, a, sizeof(a)),
		    in->span_ns ? 100.0 * (double)in->skew_ns / (double)in->span_ns : 0.0);
		if (in->why & CORR_WHY_UNOBSERVED) {
			app(buf, len, &k, "; network not traced in the ranks' namespaces");
		} else {
			char b[32];

			app(buf, len, &k, "; network clean (no queueing >= %s, drops, loss retransmits, CE or counter spikes)",
			    fmt_ns(c->opts.th.queue_delay_ns, b, sizeof(b)));
		}
		break;
	case CORR_UNKNOWN:
		if ((in->why & CORR_WHY_STRAGGLER) && (in->why & CORR_WHY_CONGESTION)) {
			app(buf, len, &k, "unknown: %s entered %s late and the network was congested: ",
			    rank_str(c, in->straggler, r, sizeof(r)), fmt_ns(in->skew_ns, a, sizeof(a)));
			evidence_str(c, &ev, buf, len, &k);
		} else {
			app(buf, len, &k, "unknown: %.1fx the median of its kind, no straggler and no congestion seen",
			    in->slow_ratio == in->slow_ratio ? in->slow_ratio : 0.0);
			if (in->why & CORR_WHY_UNOBSERVED)
				app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		}
		break;
	default:
		app(buf, len, &k, "ok");
		if (in->why & CORR_WHY_UNOBSERVED)
			app(buf, len, &k, " (network not traced in the ranks' namespaces)");
		break;
	}
	if (in->enqueue_only)
		app(buf, len, &k, " [NCCL: enqueue times, not completion]");
	corr__evidence_free(&ev);
	return buf;
}
