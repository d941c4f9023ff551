// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The time budget of every collective and of the job (correlate.h, struct
 * corr_budget): where each collective's time went -- waiting for a late
 * rank, its usual transfer, the network's excess item by item, or
 * unexplained -- computed once here and read by every renderer.
 *
 *   1. each instance's network items in its transfer window (costs.c), and
 *      the rank the scheduler held longest there (model__sched_held)
 *   2. each (op, size, ranks) group's expected transfer: the 10th percentile
 *      of its clean transfers, else its bytes at the line rate
 *   3. in time order, each instance's shares: a held rank's time first
 *      (measured, where the items are estimates), then the items; the lateness a straggler
 *      carried from a previous collective is that collective's network's
 *      when it had a network share (persistent congestion), else usual skew
 *   4. the verdict (verdict_rules.c) from the shares, and the job's sums
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/correlate/corr_internal.h"

static int cmp_cost_desc(const void *a, const void *b)
{
	const struct corr_cost *x = a, *y = b;
	int c = cmp_u64(y->cost_ns, x->cost_ns);

	if (!c)
		c = cmp_u64(y->raw_ns, x->raw_ns);
	if (!c)
		c = cmp_u32(x->kind, y->kind);
	return c ? c : cmp_u32(x->iface, y->iface);
}

/* The time IN's bytes need at the slowest line rate of the ranks' links (nccl-tests' bus
 * factor: an all-reduce moves 2(n-1)/n of its size over each rank's link); 0 unknown. */
static uint64_t line_rate_time(const struct corr *c, const struct corr_instance *in, const struct corr_pset *ps)
{
	double slowest = 0, t;

	for (size_t i = 0; i < c->m->nifaces; i++) {
		const struct model_iface *f = &c->m->ifaces[i];
		double l = f->dir[FT_DIR_TX].line_bps;

		if (corr_pset_netns(ps, f->netns) && !is_loopback(f) && l > 0 && (!(slowest > 0) || l < slowest))
			slowest = l;
	}
	if (!(slowest > 0) || !in->size_bytes)
		return 0;
	t = (double)in->size_bytes * in->busbw_factor * 8e9 / slowest;
	return t < 9.2e18 ? (uint64_t)t : UINT64_MAX;
}

/*
 * The rank held longest by the scheduler in IN's transfer window, into B's
 * held_*: more than a sampling interval of it (a hold's end is placed within
 * one interval, so less can be a hold of the collective before or after).
 */
static void instance_held(const struct corr *c, const struct corr_instance *in, struct corr_budget *b)
{
	b->held_rank = CORR_NONE;
	b->held_ns = 0;
	if (!c->m->nsched_waits || in->last_exit <= in->last_entry || in->nmembers < 2)
		return;
	for (size_t k = 0; k < in->nmembers; k++) {
		const struct corr_call *call = &c->calls[c->members[in->first_member + k]];
		uint64_t held = model__sched_held(c->m, call->netns, call->pid, in->last_entry, in->last_exit);

		if (held > (uint64_t)FT_SCHED_PERIOD_MS * 1000000 && held > b->held_ns) {
			b->held_ns = held;
			b->held_rank = call->rank;
		}
	}
}

/* Step 1: every instance's items, in its transfer window (last entry .. last exit), and its held rank. */
static int instance_items(struct corr *c)
{
	size_t cap = 0;

	for (size_t i = 0; i < c->ninstances; i++) {
		struct corr_instance *in = &c->instances[i];
		struct corr_budget *b = &in->budget;
		struct corr_pset ps;
		int err;

		b->first_cost = c->ncosts;
		err = corr_instance_pset(c, in, &ps);
		if (!err) {
			b->line_rate_ns = line_rate_time(c, in, &ps);
			if (in->last_exit > in->last_entry)
				err = corr_costs(c, &ps, in->last_entry, in->last_exit, &c->costs, &c->ncosts, &cap);
		}
		corr_pset_free(&ps);
		if (err)
			return err;
		b->ncosts = c->ncosts - b->first_cost;
		for (size_t k = 0; k < b->ncosts; k++)
			b->items_ns += c->costs[b->first_cost + k].raw_ns;
		instance_held(c, in, b);
	}
	return 0;
}

/*
 * Step 2: each group's expected transfer (baseline.c has the rule): from
 * the baselines the caller gave (`report --windows`: the whole capture's),
 * else from this capture's own collectives.
 */
static int expected_transfers(struct corr *c)
{
	struct corr_sample *v = NULL;
	struct corr_baseline *own = NULL;
	size_t n = 0, cap = 0, nown = 0;
	int err = 0;

	if (!c->opts.baselines) {
		err = corr__samples(c, 0, UINT64_MAX, &v, &n, &cap);
		if (!err)
			err = corr__baselines(v, n, &own, &nown);
	}
	for (size_t g = 0; !err && g < c->nopstats; g++) {
		struct corr_opstat *st = &c->opstats[g];
		const struct corr_baseline *b = c->opts.baselines ?
			corr__baseline_of(c->opts.baselines, c->opts.nbaselines, st->op, st->size_bytes, st->nranks,
					  st->enqueue_only) :
			corr__baseline_of(own, nown, st->op, st->size_bytes, st->nranks, st->enqueue_only);

		st->expected_from = b ? b->from : CORR_EXPECTED_NONE;
		st->expected_ns = b ? b->expected_ns : 0;
		st->typical_ns = b ? b->typical_ns : 0;
	}
	free(v);
	free(own);
	return err;
}

/* The instance of the straggler's previous collective, CORR_NONE. */
static uint32_t straggler_previous(const struct corr *c, const struct corr_instance *in)
{
	for (size_t k = 0; k < in->nmembers && in->straggler != CORR_NONE; k++) {
		const struct corr_call *call = &c->calls[c->members[in->first_member + k]];

		if (call->rank == in->straggler && call->start_ns == in->last_entry)
			return call->prev_call != CORR_NONE ? c->calls[call->prev_call].instance : CORR_NONE;
	}
	return CORR_NONE;
}

/* The link (and queue) with the largest part of B's items (both ends of a wire as
 * one, named by its host's end); for a retransmit lead, its flow. */
static void main_link(const struct corr *c, struct corr_budget *b)
{
	uint64_t best = 0;

	b->link = b->qdisc = b->toward_flow = CORR_NONE;
	for (size_t k = 0; k < b->ncosts; k++) {
		const struct corr_cost *x = &c->costs[b->first_cost + k];
		uint64_t on = 0;

		if (x->iface == CORR_NONE)
			continue;
		for (size_t j = 0; j < b->ncosts; j++)
			if (corr__wire(c, c->costs[b->first_cost + j].iface) == corr__wire(c, x->iface))
				on += c->costs[b->first_cost + j].cost_ns;
		if (on > best) {
			best = on;
			b->link = corr__wire(c, x->iface);
		}
	}
	/* the link's queue (its worst, or its shaper's root), and the path of its retransmits */
	for (size_t k = 0; k < b->ncosts && b->link != CORR_NONE; k++) {
		const struct corr_cost *x = &c->costs[b->first_cost + k];

		if (x->iface != b->link)
			continue;
		if (b->qdisc == CORR_NONE && x->qdisc != CORR_NONE)
			b->qdisc = x->qdisc;
		if (b->toward_flow == CORR_NONE && x->flow != CORR_NONE && k == 0 && corr__cost_names_path(x->kind))
			b->toward_flow = x->flow;
	}
}

/* Step 3: one instance's shares (the instances before it have their verdicts). */
void corr_budget_shares(struct corr *c, size_t i)
{
	struct corr_instance *in = &c->instances[i];
	struct corr_budget *b = &in->budget;
	const struct corr_opstat *st = &c->opstats[in->opstat];
	uint64_t items, rest;
	uint32_t prev;

	b->total_ns = in->span_ns;
	b->waiting_ns = in->nmembers > 1 ? in->own_late_ns : 0;
	b->waiting_rank = b->waiting_ns ? in->straggler : CORR_NONE;
	b->carried_ns = in->skew_ns > b->waiting_ns ? in->skew_ns - b->waiting_ns : 0;
	b->transfer_ns = in->all_arrived_ns;
	b->expected_from = corr_budget_judged(in) ? st->expected_from : CORR_EXPECTED_NONE;
	b->expected_ns = b->expected_from == CORR_EXPECTED_NONE ? b->transfer_ns : st->expected_ns;
	/* what is left of congested transfers without their items is no less than the line rate allows */
	if (b->expected_from == CORR_EXPECTED_RESIDUAL && b->line_rate_ns > b->expected_ns) {
		b->expected_ns = b->line_rate_ns;
		b->expected_from = CORR_EXPECTED_BANDWIDTH;
	}
	if (b->expected_ns > b->transfer_ns)
		b->expected_ns = b->transfer_ns;
	b->excess_ns = b->transfer_ns - b->expected_ns;
	/* the group's usual spread (of its clean transfers, or of its residuals) */
	b->typical_ns = b->expected_from == CORR_EXPECTED_BANDWIDTH ? b->expected_ns : st->typical_ns;
	if (b->typical_ns < b->expected_ns)
		b->typical_ns = b->expected_ns;
	/*
	 * A rank the scheduler held (runnable, no CPU) sent nothing meanwhile:
	 * where the network's items are not a material share of the excess,
	 * that time is its, measured, and comes before the items, which are
	 * estimates.  Where they are, the hold overlapped a congested transfer
	 * that would have taken that time anyway: the network keeps the excess
	 * (the hold stays evidence: held_ns, no_cpu).  The rest of the excess
	 * is the items' to weigh: lower bounds, at a material share of it they
	 * own it all.
	 */
	b->stalled_ns = 0;
	if (b->held_ns && !(b->items_ns && (double)b->items_ns >= c->opts.th.explains * (double)b->excess_ns))
		b->stalled_ns = b->held_ns < b->excess_ns ? b->held_ns : b->excess_ns;
	rest = b->excess_ns - b->stalled_ns;
	items = b->items_ns < rest ? b->items_ns : rest;
	if (b->items_ns && (double)b->items_ns >= c->opts.th.explains * (double)rest)
		items = rest;
	for (size_t k = 0; k < b->ncosts; k++) {
		struct corr_cost *x = &c->costs[b->first_cost + k];

		x->cost_ns = b->items_ns ? (uint64_t)((double)x->raw_ns * (double)items / (double)b->items_ns) : 0;
	}
	/* rounding down: the rest of the items' share goes to the first, so they sum exactly */
	if (b->ncosts) {
		uint64_t s = 0;

		qsort(&c->costs[b->first_cost], b->ncosts, sizeof(*c->costs), cmp_cost_desc);
		for (size_t k = 0; k < b->ncosts; k++)
			s += c->costs[b->first_cost + k].cost_ns;
		c->costs[b->first_cost].cost_ns += items - s;
	}
	b->unexplained_ns = rest - items;
	if (b->stalled_ns) { /* waited for: the rank of the larger part */
		if (b->stalled_ns > b->waiting_ns)
			b->waiting_rank = b->held_rank;
		b->waiting_ns += b->stalled_ns;
	}
	/*
	 * The carried lateness: the straggler left the collective it came from
	 * late.  The part of that collective's excess that was the network's
	 * is the network's here too (a rank behind a slow link always
	 * finishes last), up to the network time that collective had: its
	 * microseconds of network cannot have made milliseconds of lateness
	 * (a share of 100 % of a tiny excess would pass all of it on); the
	 * rest is usual skew.
	 */
	b->carried_from = CORR_NONE;
	b->carried_network_ns = 0;
	prev = b->carried_ns ? straggler_previous(c, in) : CORR_NONE;
	if (prev != CORR_NONE && prev < i) {
		const struct corr_budget *pb = &c->instances[prev].budget;
		uint64_t ex = pb->network_ns + pb->unexplained_ns;

		if (pb->network_ns && pb->link != CORR_NONE && ex) {
			b->carried_network_ns = (uint64_t)((double)b->carried_ns * (double)pb->network_ns / (double)ex);
			if (b->carried_network_ns > pb->network_ns)
				b->carried_network_ns = pb->network_ns;
			b->carried_from = prev;
		}
	}
	b->network_ns = items + b->carried_network_ns;
	b->usual_ns = b->expected_ns + (b->carried_ns - b->carried_network_ns);
	main_link(c, b);
	if (b->carried_network_ns > items) { /* the carried lateness leads: its source's link names it */
		const struct corr_budget *pb = &c->instances[prev].budget;

		b->link = pb->link;
		b->qdisc = pb->qdisc;
		b->toward_flow = pb->toward_flow;
	}
}

/* Add NS (COUNT events of KIND) to the job's part of link IFACE, queue QDISC: an item
 * without a queue (retransmits, drops) folds into its link's. */
static int link_add(struct corr_job_budget *j, size_t *cap, uint32_t iface, uint32_t qdisc, unsigned kind,
		    uint64_t ns, uint64_t count)
{
	size_t l;

	for (l = 0; l < j->nlinks; l++)
		if (j->links[l].iface == iface &&
		    (j->links[l].qdisc == qdisc || qdisc == CORR_NONE || j->links[l].qdisc == CORR_NONE))
			break;
	if (l == j->nlinks) {
		if (grow_array((void **)&j->links, cap, j->nlinks + 1, sizeof(*j->links)))
			return -ENOMEM;
		memset(&j->links[l], 0, sizeof(j->links[l]));
		j->links[l].iface = iface;
		j->links[l].qdisc = qdisc;
		j->nlinks++;
	}
	if (j->links[l].qdisc == CORR_NONE)
		j->links[l].qdisc = qdisc;
	j->links[l].ns += ns;
	j->links[l].count[kind] += count;
	j->links[l].cost_ns[kind] += ns;
	return 0;
}

static int cmp_link_desc(const void *a, const void *b)
{
	const struct corr_budget_link *x = a, *y = b;
	int c = cmp_u64(y->ns, x->ns);

	if (!c)
		c = cmp_u32(x->iface, y->iface);
	return c ? c : cmp_u32(x->qdisc, y->qdisc);
}

int corr__job_budget(const struct corr *c, uint64_t from, uint64_t to, struct corr_job_budget *j)
{
	size_t cap = 0;

	memset(j, 0, sizeof(*j));
	j->wait_by_rank = calloc(c->nranks ? c->nranks : 1, sizeof(*j->wait_by_rank));
	if (!j->wait_by_rank)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_budget *b = &c->instances[i].budget;

		if (c->instances[i].first_entry < from || c->instances[i].first_entry >= to)
			continue;

		j->total_ns += b->total_ns;
		j->waiting_ns += b->waiting_ns;
		j->expected_ns += b->usual_ns;
		j->network_ns += b->network_ns;
		j->unexplained_ns += b->unexplained_ns;
		/* the straggler's lateness and a held rank's time, each on its rank */
		if (b->waiting_ns > b->stalled_ns && c->instances[i].straggler < c->nranks)
			j->wait_by_rank[c->instances[i].straggler] += b->waiting_ns - b->stalled_ns;
		if (b->stalled_ns && b->held_rank < c->nranks)
			j->wait_by_rank[b->held_rank] += b->stalled_ns;
		for (size_t k = 0; k < b->ncosts; k++) {
			const struct corr_cost *x = &c->costs[b->first_cost + k];

			uint32_t w = corr__wire(c, x->iface);

			/* a wire's far end (a switch port) counts on its host's end */
			if ((x->cost_ns || x->count) &&
			    link_add(j, &cap, w, w == x->iface ? x->qdisc : CORR_NONE, x->kind, x->cost_ns, x->count))
				goto nomem;
		}
		if (b->carried_network_ns) { /* on the link of the collective it came from */
			const struct corr_budget *pb = &c->instances[b->carried_from].budget;

			if (link_add(j, &cap, pb->link, pb->qdisc, CORR_COST_CARRIED, b->carried_network_ns, 1))
				goto nomem;
		}
	}
	if (j->nlinks)
		qsort(j->links, j->nlinks, sizeof(*j->links), cmp_link_desc);
	return 0;
nomem:
	corr__job_budget_free(j);
	return -ENOMEM;
}

void corr__job_budget_free(struct corr_job_budget *b)
{
	free(b->wait_by_rank);
	free(b->links);
	b->wait_by_rank = NULL;
	b->links = NULL;
	b->nlinks = 0;
}

int corr_budget_job(struct corr *c)
{
	return corr__job_budget(c, 0, UINT64_MAX, &c->budget);
}

int corr_budget_prepare(struct corr *c)
{
	int err = corr_find_peers(c);

	if (!err)
		err = instance_items(c);
	return err ? err : expected_transfers(c);
}
