// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict rules (corr__verdict, see correlate.h): a pure function of one
 * instance's evidence and the thresholds, apart from everything else so that
 * a reader finds every rule in one place.
 */
#include "userspace/correlate/corr_internal.h"

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
