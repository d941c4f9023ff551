// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 4 of corr__build(): matching.  Calls of the same collective
 * on different ranks are joined into one corr_instance by (communicator key,
 * seq), with entry/exit times, skew, the straggler and its own lateness, and
 * bandwidth.  The communicator keys are in userspace/model/comm_key.c, the
 * seq alignment of late-attached jobs in seq_align.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "userspace/correlate/arrivals.h"
#include "userspace/correlate/corr_internal.h"
#include "userspace/correlate/seq_align.h"

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

	return corr__call_is_collective(k->op, s ? s->flags : 0, k->seq);
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
	struct corr_arrivals arr = { 0 };
	uint32_t comm_size = in->comm_size;

	in->op = c->calls[mem[0]].op;
	in->first_exit = UINT64_MAX;
	in->step = -1;
	for (size_t i = 0; i < in->nmembers; i++) {
		const struct corr_call *k = &c->calls[mem[i]];

		if (k->op != in->op)
			in->op_mismatch = true;
		corr__arrive(&arr, k->start_ns, k->rank);
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
			const struct model_comm *ci = corr_comm_info(c->m, k->pid, k->comm);

			if (ci && ci->size > 0 && (uint32_t)ci->size > comm_size)
				comm_size = (uint32_t)ci->size;
		}
	}
	in->first_entry = arr.first;
	in->last_entry = arr.last;
	in->straggler = corr__straggler(&arr);
	in->own_late_ns = own_lateness(c, in, mem, arr.last);
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
		const struct model_comm *ci = k->comm ? corr_comm_info(c->m, k->pid, k->comm) : NULL;

		in[i] = (struct comm_key_in){
			.comm = k->comm, .seq = k->seq, .start_ns = k->start_ns, .pid = k->pid,
			.slot_flags = s ? s->flags : 0,
			.size = ci && ci->size > 0 ? (uint32_t)ci->size : 0,
			.lib_seq = (k->flags & CORR_CALL_LIB_SEQ) != 0,
			.name = k->comm_name,
			.job = corr_job_of(c->m, k->pid),
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

int corr_build_instances(struct corr *c)
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
	c->instances = calloc(ni ? ni : 1, sizeof(*c->instances)); /* ni >= 1 when n >= 1 */
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

