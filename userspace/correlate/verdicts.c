// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 6 of corr__build(): each instance's evidence (evidence.c) and
 * time budget (budget.c over costs.c) are turned into the inputs of the
 * verdict rules (verdict_rules.c), whose verdict is stored and counted; then
 * the job's budget is summed.  Apart from the rules so that those stay pure.
 */
#include <math.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

static void verdict_in(const struct corr_instance *in, struct corr_verdict_in *vi)
{
	const struct corr_budget *b = &in->budget;

	memset(vi, 0, sizeof(*vi));
	/*
	 * The straggler's lateness is weighed against itself plus the
	 * time the collective took once everybody was there, not the
	 * whole span: a rank that left the previous collective early
	 * (a broadcast leaf) enters early and stretches the span
	 * without anybody being late.
	 */
	vi->span_ns = in->own_late_ns + in->all_arrived_ns < in->span_ns ?
		      in->own_late_ns + in->all_arrived_ns : in->span_ns;
	vi->skew_ns = in->nmembers > 1 ? in->own_late_ns : 0;
	vi->net_observed = in->ev.observed;
	vi->queue_delay_ns = in->ev.queue_delay_ns;
	vi->cong_drops = in->ev.cong_drops;
	/*
	 * A tail-loss probe alone is no evidence of loss: TCP sends one
	 * whenever the ACK for the tail is late, e.g. when the receiving
	 * rank is descheduled.  Only RTO / fast retransmits count.
	 */
	vi->retrans = in->ev.retrans - in->ev.retrans_tlp;
	vi->ce_pkts = in->ev.ce_pkts;
	vi->peak_util = in->ev.peak_util;
	vi->ctr_cong = in->ev.ctr_cong;
	vi->ctr_pause = in->ev.ctr_pause;
	vi->ctr_loss = in->ev.ctr_retrans + in->ev.ctr_discard;
	vi->total_ns = b->total_ns;
	vi->carried_usual_ns = b->carried_ns - b->carried_network_ns;
	vi->expected_ns = b->expected_ns;
	vi->typical_ns = b->typical_ns;
	vi->congested_all_along = b->expected_from == CORR_EXPECTED_RESIDUAL ||
				  b->expected_from == CORR_EXPECTED_BANDWIDTH;
	vi->transfer_ns = b->transfer_ns;
	vi->items_ns = b->items_ns;
	vi->waiting_ns = b->waiting_ns;
	vi->stalled_ns = b->stalled_ns;
	vi->held_ns = b->held_ns;
	vi->network_ns = b->network_ns;
	vi->unexplained_ns = b->unexplained_ns;
}

int corr_verdicts(struct corr *c)
{
	int err = corr_budget_prepare(c);

	for (size_t i = 0; !err && i < c->ninstances; i++) {
		struct corr_instance *in = &c->instances[i];
		struct corr_budget *b = &in->budget;
		struct corr_evidence ev;
		struct corr_verdict_in vi;

		err = corr__evidence(c, i, &ev);
		if (err)
			break;
		in->ev = ev.sum;
		corr__evidence_free(&ev);
		corr_budget_shares(c, i);
		verdict_in(in, &vi);
		in->verdict = corr__verdict(&c->opts.th, &vi, &in->why);
		b->leader = corr__leader(&c->opts.th, &vi);
		in->slow = (in->why & CORR_WHY_SLOW) != 0;
		in->slow_ratio = b->expected_ns ? (double)in->span_ns / (double)b->expected_ns : NAN;
		/* a network verdict names the link its budget blames most */
		if (in->verdict == CORR_NETWORK && b->link != CORR_NONE) {
			in->ev.link = b->link;
			in->ev.qdisc = b->qdisc;
			in->ev.toward_flow = b->qdisc == CORR_NONE ? b->toward_flow : CORR_NONE;
		}
		c->verdicts[in->verdict]++;
		c->opstats[in->opstat].verdicts[in->verdict]++;
	}
	return err ? err : corr_budget_job(c);
}
