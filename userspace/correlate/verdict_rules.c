// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict rules (corr__verdict, see correlate.h), as two tables of small
 * pure functions.  They are apart from everything else so that a reader can
 * see every rule at once and a new rule is one function and one table row.
 *
 *   why_tests  each test looks at the evidence of one instance
 *              (struct corr_verdict_in) and the thresholds, and says whether
 *              its CORR_WHY_* bit holds.  All of them run, in any order: the
 *              bits are reported with the verdict.
 *   rules      each rule looks at those bits (and the evidence) and gives a
 *              verdict, or NO_OPINION.  They run in table order and the
 *              first opinion wins: the order IS the precedence.  The last
 *              rule always has an opinion.
 *
 * A new rule goes into `rules` at the place of its precedence; a new kind of
 * evidence is a field of corr_verdict_in (filled in verdicts.c), a
 * CORR_WHY_* bit (correlate.h, and in CORR_WHY_CONGESTION when it means
 * congestion) and a row of `why_tests`.
 */
#include "userspace/correlate/corr_internal.h"

/* ---- evidence tests: does CORR_WHY_<bit> hold? ---- */

static bool why_queue(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	return in->queue_delay_ns >= t->queue_delay_ns && in->queue_delay_ns > 0;
}

static bool why_drops(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->cong_drops != 0;
}

static bool why_retrans(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->retrans != 0;
}

static bool why_ce(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->ce_pkts != 0;
}

/* Supporting evidence only: a link may run at its rate without queueing. */
static bool why_util(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	return in->peak_util >= t->util; /* false for NaN */
}

static bool why_cnp(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->ctr_cong != 0;
}

static bool why_pause(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->ctr_pause != 0;
}

static bool why_rdma_loss(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->ctr_loss != 0;
}

static bool why_straggler(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	return in->skew_ns > 0 && in->skew_ns >= t->skew_min_ns &&
	       (double)in->skew_ns >= t->skew_frac * (double)in->span_ns;
}

static bool why_slow(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return in->slow;
}

static bool why_unobserved(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	(void)t;
	return !in->net_observed;
}

static const struct {
	unsigned bit;
	bool (*holds)(const struct corr_thresholds *t, const struct corr_verdict_in *in);
} why_tests[] = {
	{ CORR_WHY_QUEUE,      why_queue },
	{ CORR_WHY_DROPS,      why_drops },
	{ CORR_WHY_RETRANS,    why_retrans },
	{ CORR_WHY_CE,         why_ce },
	{ CORR_WHY_UTIL,       why_util },
	{ CORR_WHY_CNP,        why_cnp },
	{ CORR_WHY_PAUSE,      why_pause },
	{ CORR_WHY_RDMA_LOSS,  why_rdma_loss },
	{ CORR_WHY_STRAGGLER,  why_straggler },
	{ CORR_WHY_SLOW,       why_slow },
	{ CORR_WHY_UNOBSERVED, why_unobserved },
};

/* ---- rules: a verdict from the bits, or no opinion ---- */

#define NO_OPINION CORR_NVERDICTS

static bool congested(unsigned why) { return (why & CORR_WHY_CONGESTION) != 0; }
static bool straggler(unsigned why) { return (why & CORR_WHY_STRAGGLER) != 0; }

/* Congestion on the ranks' links or flows, and nobody entered late. */
static enum corr_verdict rule_network(unsigned why, const struct corr_verdict_in *in)
{
	(void)in;
	return congested(why) && !straggler(why) ? CORR_NETWORK : NO_OPINION;
}

/* A rank entered late and the network was clean (or not traced: UNOBSERVED says so). */
static enum corr_verdict rule_rank(unsigned why, const struct corr_verdict_in *in)
{
	(void)in;
	return straggler(why) && !congested(why) ? CORR_RANK : NO_OPINION;
}

/* Both at once: the data cannot tell which caused the other. */
static enum corr_verdict rule_both(unsigned why, const struct corr_verdict_in *in)
{
	(void)in;
	return straggler(why) && congested(why) ? CORR_UNKNOWN : NO_OPINION;
}

/* Slow without either. */
static enum corr_verdict rule_slow(unsigned why, const struct corr_verdict_in *in)
{
	(void)why;
	return in->slow ? CORR_UNKNOWN : NO_OPINION;
}

/* Nothing held: fine. */
static enum corr_verdict rule_ok(unsigned why, const struct corr_verdict_in *in)
{
	(void)why;
	(void)in;
	return CORR_OK;
}

/* In order of precedence: the first rule with an opinion gives the verdict. */
static enum corr_verdict (*const rules[])(unsigned why, const struct corr_verdict_in *in) = {
	rule_network,   /* congestion, no straggler   -> network */
	rule_rank,      /* straggler, no congestion   -> rank */
	rule_both,      /* straggler and congestion   -> unknown */
	rule_slow,      /* slow without either        -> unknown */
	rule_ok,        /* always last: always has an opinion -> ok */
};

enum corr_verdict corr__verdict(const struct corr_thresholds *t, const struct corr_verdict_in *in,
				unsigned *why)
{
	unsigned w = 0;

	for (size_t i = 0; i < sizeof(why_tests) / sizeof(why_tests[0]); i++)
		if (why_tests[i].holds(t, in))
			w |= why_tests[i].bit;
	if (why)
		*why = w;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		enum corr_verdict v = rules[i](w, in);

		if (v != NO_OPINION)
			return v;
	}
	return CORR_OK; /* not reached: rule_ok always answers */
}
