// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 6 of corr__build(): each instance's evidence (evidence.c)
 * and slowness against its op group (op_stats.c) are turned into the inputs
 * of the verdict rules (verdict_rules.c), whose verdict is stored and
 * counted.  Apart from the rules so that those stay pure.
 */
#include <math.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

int corr_verdicts(struct corr *c)
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

