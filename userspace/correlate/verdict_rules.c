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
 *   rules      each rule looks at the leading share of the instance's time
 *              budget (corr__leader: waiting, the network's excess or
 *              unexplained, the largest by the margin; none when the
 *              collective is near its usual time) and gives a verdict, or
 *              NO_OPINION.  They run in table order and the first opinion
 *              wins: the order IS the precedence.  The last rule always has
 *              an opinion.
 *
 * A new rule goes into `rules` at the place of its precedence.  A new kind
 * of evidence that costs time is an item kind of the budget (costs.c,
 * CORR_COST_* in correlate.h); one that only informs is a field of
 * corr_verdict_in (filled in verdicts.c), a CORR_WHY_* bit and its row in
 * corr__why_table (names.c: name, cause, congestion, precedence) and a row
 * of `why_tests`.
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

/* A rank the scheduler held inside the transfer for a material time (a share of waiting, or
 * beside the network's material items). */
static bool why_no_cpu(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	return in->held_ns > 0 && in->held_ns >= t->skew_min_ns;
}

/* The unexplained share beyond the group's usual spread (the typical transfer over the expected). */
static uint64_t unexplained_beyond(const struct corr_verdict_in *in)
{
	uint64_t spread = in->typical_ns > in->expected_ns ? in->typical_ns - in->expected_ns : 0;

	return in->unexplained_ns > spread ? in->unexplained_ns - spread : 0;
}

/*
 * The shares over its usual time are at least skew_min_ns and make its own
 * time slow_factor x as long.  A group with no clean transfer has no usual time
 * the network left alone: there, a collective whose network items are a
 * material share of its transfer is slow (against a clean network) too.
 */
static bool why_slow(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	uint64_t over = in->waiting_ns + in->network_ns + unexplained_beyond(in);
	/* its own time: lateness carried from a predecessor that was not the
	 * network's is that one's, and judged there */
	uint64_t own = in->total_ns > in->carried_usual_ns ? in->total_ns - in->carried_usual_ns : 0;

	if (!over || over < t->skew_min_ns || over > own)
		return false;
	if (in->congested_all_along && in->network_ns >= t->skew_min_ns && in->transfer_ns &&
	    (double)in->items_ns >= t->explains * (double)in->transfer_ns)
		return true;
	return (double)own >= t->slow_factor * (double)(own - over);
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
	{ CORR_WHY_NO_CPU,     why_no_cpu },
};

/* ---- the leading share of the time budget ---- */

unsigned corr__leader(const struct corr_thresholds *t, const struct corr_verdict_in *in)
{
	const uint64_t share[] = { [CORR_SHARE_WAITING] = in->waiting_ns, [CORR_SHARE_NETWORK] = in->network_ns,
				   [CORR_SHARE_UNEXPLAINED] = unexplained_beyond(in) };
	unsigned best = CORR_SHARE_WAITING;
	uint64_t second = 0;

	if (!why_slow(t, in))
		return CORR_SHARE_NONE;
	for (unsigned s = CORR_SHARE_WAITING + 1; s <= CORR_SHARE_UNEXPLAINED; s++)
		if (share[s] > share[best])
			best = s;
	for (unsigned s = CORR_SHARE_WAITING; s <= CORR_SHARE_UNEXPLAINED; s++)
		if (s != best && share[s] > second)
			second = share[s];
	return (double)share[best] >= t->margin * (double)second ? best : CORR_SHARE_TIE;
}

/* ---- rules: a verdict from the leading share, or no opinion ---- */

#define NO_OPINION CORR_NVERDICTS

/* Near its usual time: nothing to explain. */
static enum corr_verdict rule_ok(unsigned lead)
{
	return lead == CORR_SHARE_NONE ? CORR_OK : NO_OPINION;
}

/* Slow, and no share is clearly the largest: the data cannot tell. */
static enum corr_verdict rule_tie(unsigned lead)
{
	return lead == CORR_SHARE_TIE ? CORR_UNKNOWN : NO_OPINION;
}

/* The others waiting for a late rank is the largest share. */
static enum corr_verdict rule_rank(unsigned lead)
{
	return lead == CORR_SHARE_WAITING ? CORR_RANK : NO_OPINION;
}

/* The network's excess (its items, and lateness carried from a network-bound
 * collective) is the largest share. */
static enum corr_verdict rule_network(unsigned lead)
{
	return lead == CORR_SHARE_NETWORK ? CORR_NETWORK : NO_OPINION;
}

/* Slow for a reason nothing in the capture explains: always last, always has an opinion. */
static enum corr_verdict rule_unexplained(unsigned lead)
{
	(void)lead;
	return CORR_UNKNOWN;
}

/* In order of precedence: the first rule with an opinion gives the verdict. */
static enum corr_verdict (*const rules[])(unsigned lead) = {
	rule_ok,           /* not slow                          -> ok */
	rule_tie,          /* no share leads by the margin      -> unknown */
	rule_rank,         /* waiting leads                     -> rank */
	rule_network,      /* the network's excess leads        -> network */
	rule_unexplained,  /* unexplained leads                 -> unknown */
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
		enum corr_verdict v = rules[i](corr__leader(t, in));

		if (v != NO_OPINION)
			return v;
	}
	return CORR_UNKNOWN; /* not reached: rule_unexplained always answers */
}
