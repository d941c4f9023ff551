// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Perfetto trace's slices (viz/perfetto.h): each rank's thread (steps,
 * named phases, calls and their sub-phases as complete events where they
 * nest, async slices where they overlap, flow arrows across the members of
 * a collective), and the collectives process's matched collectives and
 * lost-event gaps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "viz/perfetto.h"

/* ---- rank threads ---- */

/* One lane of async slices: its thread and id. */
struct lane_emit {
	struct pf *p;
	uint32_t pid, tid;
	uint64_t id;                /* async id of the lane */
};

static void item_args(struct pf *p, const struct viz_item *it)
{
	const struct corr *c = p->c;
	struct json *j = &p->j;
	char buf[128];

	/* steps and named phases: the name says it all */
	if (it->kind == VIZ_STEP || (it->kind == VIZ_MARK && !c->spans[it->ref].open))
		return;
	json_kv_object_begin(j, "args");
	switch (it->kind) {
	case VIZ_MARK:
		json_kv_bool(j, "open", true);
		break;
	case VIZ_CALL: {
		const struct corr_call *k = &c->calls[it->ref];

		json_kv_u64(j, "bytes", k->bytes);
		snprintf(buf, sizeof(buf), "0x%" PRIx64, k->comm);
		json_kv_string(j, "comm", buf);
		if (k->instance != CORR_NONE) {
			const struct corr_instance *in = &c->instances[k->instance];

			json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
			if (!p->subphases) {
				/* sub-phases left out (a long window): their split in numbers */
				uint64_t last = in->last_entry, w_end = last < k->end_ns ? last : k->end_ns;

				json_kv_u64(j, "wait_ns", w_end > k->start_ns ? w_end - k->start_ns : 0);
				json_kv_string(j, "wait_cause", viz__cause(c, k, VIZ_WAIT, buf, sizeof(buf)));
				json_kv_string(j, "transfer_cause", viz__cause(c, k, VIZ_XFER, buf, sizeof(buf)));
			}
		}
		if (k->flags & CORR_CALL_OPEN)
			json_kv_bool(j, "open", true);
		break;
	}
	default:
		json_kv_string(j, "cause", viz__cause(c, &c->calls[it->ref], it->kind, buf, sizeof(buf)));
		break;
	}
	json_object_end(j);
}

static const char *item_cat(const struct viz_item *it, const struct corr *c)
{
	switch (it->kind) {
	case VIZ_STEP: return "step";
	case VIZ_MARK: return "phase";
	case VIZ_CALL: return c->calls[it->ref].instance != CORR_NONE ? "collective" : "call";
	case VIZ_WAIT: return "wait";
	default: return "transfer";
	}
}

/* Slice name: collectives carry their sequence number ("allreduce #3"). */
static const char *item_title(const struct corr *c, const struct viz_item *it, char *buf, size_t len)
{
	if (it->kind == VIZ_CALL && c->calls[it->ref].instance != CORR_NONE)
		snprintf(buf, len, "%s #%" PRIu64, viz__call_op(c, &c->calls[it->ref]), c->calls[it->ref].seq);
	else
		viz__item_name(c, it, buf, len);
	return buf;
}

static void flow_fields(struct pf *p, const struct viz_item *it)
{
	uint8_t role;

	if (it->kind != VIZ_CALL || !p->flow_role || !(role = p->flow_role[it->ref]))
		return;
	json_kv_u64(&p->j, "bind_id", p->c->calls[it->ref].instance + 1);
	if (role >= 2)
		json_kv_bool(&p->j, "flow_in", true);
	if (role <= 2)
		json_kv_bool(&p->j, "flow_out", true);
}

static void emit_x(struct pf *p, uint32_t pid, uint32_t tid, const struct viz_item *it)
{
	char name[128];

	pf_ev_begin(p, 'X', NULL, pid, tid);
	pf_ts(p, "ts", it->start);
	json_kv_fixed(&p->j, "dur", (int64_t)(it->end - it->start), 3);
	json_kv_string(&p->j, "cat", item_cat(it, p->c));
	json_kv_string(&p->j, "name", item_title(p->c, it, name, sizeof(name)));
	flow_fields(p, it);
	item_args(p, it);
	json_object_end(&p->j);
}

/* The start of an async slice's begin or end event: its time, category, id and name. */
static void async_begin(struct pf *p, char ph, uint32_t pid, uint32_t tid, const struct viz_item *it,
			const char *cat, uint64_t id, const char *name)
{
	char ids[24];

	pf_ev_begin(p, ph, NULL, pid, tid);
	pf_ts(p, "ts", ph == 'b' ? it->start : it->end);
	json_kv_string(&p->j, "cat", cat);
	snprintf(ids, sizeof(ids), "0x%" PRIx64, id);
	json_kv_string(&p->j, "id", ids);
	json_kv_string(&p->j, "name", name);
}

static void async_ev(struct lane_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	char name[128];

	async_begin(p, ph, e->pid, e->tid, it, "rank-async", e->id, item_title(p->c, it, name, sizeof(name)));
	if (ph == 'b') {
		flow_fields(p, it);
		item_args(p, it);
	}
	json_object_end(&p->j);
}

static void async_open(void *arg, const struct viz_item *it)
{
	async_ev(arg, 'b', it);
}

static void async_close(void *arg, const struct viz_item *it)
{
	async_ev(arg, 'e', it);
}

/* Lanes FIRST..LANES-1 of the items as async slices on PID/TID, one id per lane. */
static void walk_async(struct pf *p, const struct viz_item *it, size_t n, int first, int lanes, uint32_t pid,
		       uint32_t tid, void (*open)(void *arg, const struct viz_item *it),
		       void (*close)(void *arg, const struct viz_item *it))
{
	for (int l = first; l < lanes; l++) {
		struct lane_emit e = { .p = p, .pid = pid, .tid = tid, .id = (uint64_t)tid * 65536u + (uint64_t)l };

		viz__walk_lane(it, n, (uint32_t)l, open, close, &e);
	}
}

int pf_rank(struct pf *p, uint32_t r)
{
	struct viz_item *it;
	size_t n;
	int lanes = viz__rank_lanes(p->c, r, p->from, p->to, &it, &n);

	if (lanes < 0)
		return lanes;
	if (!p->subphases) {
		/* dropping leaves keeps every lane properly nested */
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (it[i].kind != VIZ_WAIT && it[i].kind != VIZ_XFER)
				it[k++] = it[i];
		n = k;
	}
	/* lane 0 nests on the thread, in order: complete events in pre-order */
	for (size_t i = 0; i < n; i++)
		if (it[i].lane == 0)
			emit_x(p, p->rank_pid[r], p->rank_tid[r], &it[i]);
	walk_async(p, it, n, 1, lanes, p->rank_pid[r], p->rank_tid[r], async_open, async_close);
	free(it);
	return 0;
}

/* Flow roles: the visible members of each collective in entry order. */
static int cmp_call_entry(const void *a, const void *b, void *arg)
{
	const struct corr *c = arg;
	const struct corr_call *x = &c->calls[*(const uint32_t *)a], *y = &c->calls[*(const uint32_t *)b];

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int pf_flow_roles(struct pf *p)
{
	const struct corr *c = p->c;
	uint32_t *tmp = NULL;
	size_t cap = 0;

	if (!c->ncalls)
		return 0;
	p->flow_role = calloc(c->ncalls, 1);
	if (!p->flow_role)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		size_t k = 0;

		if (!viz__visible(in->first_entry, in->last_exit, p->from, p->to))
			continue;
		if (grow_array((void **)&tmp, &cap, in->nmembers + 1, sizeof(*tmp))) {
			free(tmp);
			return -ENOMEM;
		}
		for (size_t j = 0; j < in->nmembers; j++) {
			uint32_t ci = c->members[in->first_member + j];

			if (viz__visible(c->calls[ci].start_ns, c->calls[ci].end_ns, p->from, p->to) &&
			    c->calls[ci].rank < c->nranks)
				tmp[k++] = ci;
		}
		if (k < 2)
			continue;
		qsort_r(tmp, k, sizeof(*tmp), cmp_call_entry, (void *)c);
		for (size_t j = 0; j < k; j++)
			p->flow_role[tmp[j]] = j == 0 ? 1 : j + 1 == k ? 3 : 2;
	}
	free(tmp);
	return 0;
}

/* ---- collectives ---- */

static int cmp_vitem(const void *a, const void *b)
{
	const struct viz_item *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->ref < y->ref ? -1 : x->ref > y->ref;
}

static void coll_ev(struct lane_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	struct json *j = &p->j;
	const struct corr *c = p->c;
	const struct corr_instance *in = &c->instances[it->ref];
	char name[96];

	snprintf(name, sizeof(name), "%s #%" PRIu64 " %s", corr__op_name(in->op), in->seq,
		 corr__verdict_name(in->verdict));
	async_begin(p, ph, e->pid, e->tid, it, "collective", e->id, name);
	if (ph == 'b') {
		json_kv_object_begin(j, "args");
		json_kv_string(j, "op", corr__op_name(in->op));
		json_kv_u64(j, "seq", in->seq);
		json_kv_u64(j, "size_bytes", in->size_bytes);
		json_kv_u64(j, "ranks", in->nranks);
		json_kv_u64(j, "span_ns", in->span_ns);
		json_kv_u64(j, "skew_ns", in->skew_ns);
		json_kv_bool(j, "slow", in->slow);
		json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
		corr__why_json(j, "why", in->why);
		if (in->straggler != CORR_NONE) {
			char r[96];

			json_kv_string(j, "straggler", viz__rank_label(c, in->straggler, r, sizeof(r)));
		} else {
			json_key(j, "straggler");
			json_null(j);
		}
		if (in->verdict != CORR_OK || in->slow) {
			char desc[1024];

			json_kv_string(j, "summary", corr__describe(c, it->ref, desc, sizeof(desc)));
		}
		/* where its time went, as the report's budget says (docs/verdicts.md) */
		json_kv_u64(j, "budget_waiting_ns", in->budget.waiting_ns);
		json_kv_u64(j, "budget_network_ns", in->budget.network_ns);
		json_kv_u64(j, "budget_unexplained_ns", in->budget.unexplained_ns);
		json_kv_u64(j, "budget_usual_ns", in->budget.usual_ns);
		json_kv_string(j, "budget_leader", corr__share_name(in->budget.leader));
		json_object_end(j);
	}
	json_object_end(j);
}

static void coll_open(void *arg, const struct viz_item *it)
{
	coll_ev(arg, 'b', it);
}

static void coll_close(void *arg, const struct viz_item *it)
{
	coll_ev(arg, 'e', it);
}

/* Intervals of the collectives process's tracks, gathered. */
struct intervals {
	struct viz_item *it;
	size_t n, cap;
	int err;                    /* -ENOMEM once an interval could not be added */
};

/* [START, END) as an item of KIND for REF when it shows in the window, clipped to it. */
static void push_visible(const struct pf *p, struct intervals *v, uint64_t start, uint64_t end, uint32_t kind,
			 size_t ref)
{
	struct viz_item *x;

	if (v->err || !viz__visible(start, end, p->from, p->to))
		return;
	if (grow_array((void **)&v->it, &v->cap, v->n + 1, sizeof(*v->it))) {
		v->err = -ENOMEM;
		return;
	}
	x = &v->it[v->n++];
	memset(x, 0, sizeof(*x));
	x->start = start > p->from ? start : p->from;
	x->end = end < p->to ? end : p->to;
	if (x->end < x->start)
		x->end = x->start;
	x->kind = kind;
	x->ref = (uint32_t)ref;
	x->parent = UINT32_MAX;
}

/* The intervals, which may overlap, as async slices on a thread of the collectives process; frees them. */
static int emit_intervals(struct pf *p, struct intervals *v, uint32_t tid,
			  void (*open)(void *arg, const struct viz_item *it),
			  void (*close)(void *arg, const struct viz_item *it))
{
	int lanes = 0;

	if (!v->err && v->n) {
		qsort(v->it, v->n, sizeof(*v->it), cmp_vitem);
		lanes = viz__lanes(v->it, v->n);
		walk_async(p, v->it, v->n, 0, lanes, p->coll_pid, tid, open, close);
	}
	free(v->it);
	return v->err ? v->err : lanes < 0 ? lanes : 0;
}

int pf_collectives(struct pf *p)
{
	const struct corr *c = p->c;
	struct intervals v = { 0 };

	for (size_t i = 0; i < c->ninstances; i++)
		push_visible(p, &v, c->instances[i].first_entry, c->instances[i].last_exit, VIZ_CALL, i);
	return emit_intervals(p, &v, p->coll_pid * PF_TID_MUL + 1, coll_open, coll_close);
}

/* ---- lost-event gaps: async slices (gaps of several CPUs may overlap) ---- */

static void gap_ev(struct lane_emit *e, char ph, const struct viz_item *it)
{
	struct pf *p = e->p;
	const struct model_lost_ev *g = &p->m->lost_evs[it->ref];
	char name[64];

	snprintf(name, sizeof(name), "events lost (%s, cpu %u)", model__source_name(g->source), g->cpu);
	async_begin(p, ph, e->pid, e->tid, it, "lost", e->id, name);
	if (ph == 'b') {
		json_kv_object_begin(&p->j, "args");
		json_kv_u64(&p->j, "lost", g->lost);
		json_kv_string(&p->j, "note", "ring buffer full: data missing in this interval, counts are lower bounds");
		json_object_end(&p->j);
	}
	json_object_end(&p->j);
}

static void gap_open(void *arg, const struct viz_item *it)
{
	gap_ev(arg, 'b', it);
}

static void gap_close(void *arg, const struct viz_item *it)
{
	gap_ev(arg, 'e', it);
}

int pf_lost(struct pf *p)
{
	const struct model *m = p->m;
	struct intervals v = { 0 };
	uint32_t tid = p->coll_pid * PF_TID_MUL + 2;

	for (size_t i = 0; i < m->nlost_evs; i++)
		push_visible(p, &v, m->lost_evs[i].from_ns, m->lost_evs[i].ts_ns, VIZ_STEP, i);
	if (v.n && !v.err)
		pf_meta(p, p->coll_pid, tid, "thread_name", "lost events", 0);
	return emit_intervals(p, &v, tid, gap_open, gap_close);
}
