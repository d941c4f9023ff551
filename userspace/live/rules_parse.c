// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The syntax of `record --trigger RULE` (rules.h): one table of the metrics
 * and one parser.
 *
 *   RULE      := METRIC [OP THRESHOLD] [over DUR] [usual DUR] [on PLACE] [policy RATE]
 *   usual DUR := coll.slow only: the usual of the calls of the last DUR
 *   PLACE     := [NETNS/]IFACE (link.*, queue.sojourn) | rank:N (coll.slow, rank.late)
 *   RATE      := every:N | once-after:N  (this rule's, over --snapshot-policy)
 *   OP        := > | >= | !=  (!= for job.exit only)
 */
#include <stdio.h>
#include <string.h>

#include "lib/opt.h"
#include "userspace/live/rules.h"

static const struct metric_def {
	const char *name;
	enum rule_unit unit;
	const char *trig_unit;      /* the trigger record's unit */
	enum { ON_NONE, ON_IFACE, ON_RANK } place; /* what `on` takes */
	bool threshold;             /* takes OP THRESHOLD (else: none, or job.exit's default) */
	uint64_t probes;            /* the network probes its records come from, any of them (1 << id) */
	bool phases;                /* ... or the phase probes' */
	bool counters;              /* ... or the counter sampler's (RDMA or NIC) */
} METRICS[RM_MAX] = {
#define P(id) (1ull << FT_PROBE_##id)
	/* CE marks are counted on receive only: the transmit bins carry none */
	[RM_LINK_DROPS]    = { "link.drops",    RU_RATE,     "1/s",    ON_IFACE, true, P(DROP), false, false },
	[RM_LINK_RETRANS]  = { "link.retrans",  RU_RATE,     "1/s",    ON_IFACE, true, P(RETRANS), false, false },
	[RM_LINK_CE]       = { "link.ce",       RU_RATE,     "1/s",    ON_IFACE, true, P(IFACE_RX), false, false },
	[RM_LINK_PAUSE]    = { "link.pause",    RU_RATE,     "1/s",    ON_IFACE, true, 0, false, true },
	[RM_LINK_CNP]      = { "link.cnp",      RU_RATE,     "1/s",    ON_IFACE, true, 0, false, true },
	[RM_QUEUE_SOJOURN] = { "queue.sojourn", RU_DURATION, "ns",     ON_IFACE, true, P(QDISC_DEQ), false, false },
	[RM_LOST]          = { "lost",          RU_COUNT,    "events", ON_NONE,  true, 0, false, false },
	[RM_COLL_SLOW]     = { "coll.slow",     RU_FACTOR,   "x1000",  ON_RANK,  true, 0, true, false },
	[RM_RANK_LATE]     = { "rank.late",     RU_DURATION, "ns",     ON_RANK,  true, 0, true, false },
	[RM_JOB_EXIT]      = { "job.exit",      RU_COUNT,    "status", ON_NONE,  true, 0, true, false },
	[RM_JOB_TIMEOUT]   = { "job.timeout",   RU_NONE,     "ret",    ON_NONE,  false, 0, true, false },
#undef P
};

/* What a threshold of each unit looks like, for the error. */
static const char *const UNIT_HINT[] = {
	[RU_NONE] = "nothing", [RU_RATE] = "a rate; give N/s, e.g. 100/s",
	[RU_FACTOR] = "a factor; give Nx, e.g. 3x", [RU_DURATION] = "a duration; give e.g. 2ms",
	[RU_COUNT] = "a count; give a whole number, e.g. 0",
};

const char *rules__metric_name(enum rule_metric m)
{
	return m < RM_MAX ? METRICS[m].name : "?";
}

const char *rules__unit_name(enum rule_metric m)
{
	return m < RM_MAX ? METRICS[m].trig_unit : "";
}

uint64_t rules__metric_probes(enum rule_metric m, bool *phases, bool *counters)
{
	*phases = m < RM_MAX && METRICS[m].phases;
	*counters = m < RM_MAX && METRICS[m].counters;
	return m < RM_MAX ? METRICS[m].probes : 0;
}

/* The next word of *P (up to a space, or an operator's first character when OPS), into W. */
static bool next_word(const char **p, char *w, size_t n, bool ops)
{
	size_t k = 0;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!**p)
		return false;
	if (ops && strchr("<>=!", **p)) { /* an operator is a word of its own */
		while (**p && strchr("<>=!", **p) && k + 1 < n)
			w[k++] = *(*p)++;
	} else {
		while (**p && **p != ' ' && **p != '\t' && !(ops && strchr("<>=!", **p)) && k + 1 < n)
			w[k++] = *(*p)++;
	}
	w[k] = '\0';
	return true;
}

static int threshold(struct rule *r, const char *s)
{
	size_t n = strlen(s);
	double d;
	long v;
	uint64_t ns;
	char num[64];

	switch (METRICS[r->metric].unit) {
	case RU_RATE:
		if (n < 3 || n >= sizeof(num) || strcmp(s + n - 2, "/s") != 0)
			return -1;
		memcpy(num, s, n - 2);
		num[n - 2] = '\0';
		if (parse_long(num, 0, 1000000000L, &v))
			return -1;
		r->threshold = v;
		return 0;
	case RU_FACTOR:
		if (n < 2 || n >= sizeof(num) || s[n - 1] != 'x')
			return -1;
		memcpy(num, s, n - 1);
		num[n - 1] = '\0';
		if (parse_double(num, 0, 1e6, &d))
			return -1;
		r->threshold = (int64_t)(d * 1000 + 0.5);
		return 0;
	case RU_DURATION:
		if (parse_offset(s, 0, &ns) || ns > INT64_MAX)
			return -1;
		r->threshold = (int64_t)ns;
		return 0;
	case RU_COUNT:
		if (parse_long(s, 0, 1000000000000L, &v))
			return -1;
		r->threshold = v;
		return 0;
	default:
		return -1;
	}
}

int rules__parse(struct rule *r, const char *text, char *err, size_t errlen)
{
	const char *p = text;
	char w[128], folded[256] = "";
	bool have_thr = false;
	int m;

	memset(r, 0, sizeof(*r));
	r->over_ns = 1000000000ull;
	if (!next_word(&p, w, sizeof(w), true)) {
		snprintf(err, errlen, "an empty rule; give e.g. 'link.drops > 100/s'");
		return -1;
	}
	for (m = 0; m < RM_MAX && strcmp(w, METRICS[m].name) != 0; m++)
		;
	if (m == RM_MAX) {
		snprintf(err, errlen, "'%s': not a metric; give one of link.drops, link.retrans, link.ce, link.pause, link.cnp, "
			 "queue.sojourn, lost, coll.slow, rank.late, job.exit, job.timeout", w);
		return -1;
	}
	r->metric = (enum rule_metric)m;
	snprintf(folded, sizeof(folded), "%s", w);
	if (m == RM_JOB_EXIT) { /* alone it means != 0 */
		r->op = ROP_NE;
		r->threshold = 0;
	}
	while (next_word(&p, w, sizeof(w), true)) {
		size_t len = strlen(folded);

		if (!strcmp(w, ">") || !strcmp(w, ">=") || !strcmp(w, "!=")) {
			char t[128] = "";

			if (!METRICS[m].threshold || have_thr || len > strlen(METRICS[m].name)) {
				snprintf(err, errlen, "%s takes no '%s' here", METRICS[m].name, w);
				return -1;
			}
			if (!strcmp(w, "!=") && m != RM_JOB_EXIT) {
				snprintf(err, errlen, "%s: '!=' is for job.exit only; give > or >=", METRICS[m].name);
				return -1;
			}
			r->op = w[0] == '!' ? ROP_NE : w[1] ? ROP_GE : ROP_GT;
			if (!next_word(&p, t, sizeof(t), false) || threshold(r, t)) {
				snprintf(err, errlen, "%s %s '%s': not %s", METRICS[m].name, w, t,
					 UNIT_HINT[METRICS[m].unit]);
				return -1;
			}
			have_thr = true;
			snprintf(folded + len, sizeof(folded) - len, " %s %s", w, t);
		} else if (!strcmp(w, "over") || !strcmp(w, "usual") || !strcmp(w, "on") || !strcmp(w, "policy")) {
			char t[128] = "";

			if (!next_word(&p, t, sizeof(t), false)) {
				snprintf(err, errlen, "'%s' needs a value", w);
				return -1;
			}
			if (w[0] == 'p') {
				if (flight_rate__parse(t, &r->rate)) {
					snprintf(err, errlen, "policy '%s': not a rate policy; give every:N or "
						 "once-after:N, e.g. every:3", t);
					return -1;
				}
				r->has_rate = true;
			} else if (w[0] == 'u') {
				if (m != RM_COLL_SLOW) {
					snprintf(err, errlen, "%s takes no 'usual': it is coll.slow's window of the "
						 "usual duration", METRICS[m].name);
					return -1;
				}
				if (parse_duration(t, 0, &r->usual_ns) || r->usual_ns < RULES_MIN_USUAL_NS) {
					snprintf(err, errlen, "usual '%s': not a window; give a duration of at least 1s, "
						 "e.g. 10m", t);
					return -1;
				}
			} else if (w[1] == 'v') {
				if (parse_duration(t, 0, &r->over_ns) || r->over_ns < RULES_BUCKETS * 1000000ull) {
					snprintf(err, errlen, "over '%s': not a window; give a duration of at least 10ms, "
						 "e.g. 1s", t);
					return -1;
				}
			} else if (METRICS[m].place == ON_NONE) {
				snprintf(err, errlen, "%s takes no 'on': it is not per interface or rank", METRICS[m].name);
				return -1;
			} else if (METRICS[m].place == ON_RANK) {
				long v;

				if (strncmp(t, "rank:", 5) != 0 || parse_long(t + 5, 0, INT32_MAX, &v)) {
					snprintf(err, errlen, "%s on '%s': not a rank; give rank:N, e.g. rank:3",
						 METRICS[m].name, t);
					return -1;
				}
				r->on_rank = true;
				r->rank = (int32_t)v;
			} else if (parse_iface_spec(t, r->on_netns, sizeof(r->on_netns), r->on_iface,
						    sizeof(r->on_iface))) {
				snprintf(err, errlen, "on '%s': not an interface; give [NETNS/]IFACE, e.g. h2/eth0", t);
				return -1;
			} else {
				r->on = true;
			}
			snprintf(folded + len, sizeof(folded) - len, " %s %s", w, t);
		} else {
			snprintf(err, errlen, "'%s': unexpected; give METRIC OP THRESHOLD [over DUR] [usual DUR] "
				 "[on IFACE|rank:N] [policy every:N]", w);
			return -1;
		}
	}
	if (METRICS[m].threshold && m != RM_JOB_EXIT && !have_thr) {
		snprintf(err, errlen, "%s needs a threshold, e.g. '%s > %s'", METRICS[m].name, METRICS[m].name,
			 METRICS[m].unit == RU_RATE ? "100/s" : METRICS[m].unit == RU_FACTOR ? "3x" :
			 METRICS[m].unit == RU_DURATION ? "2ms" : "0");
		return -1;
	}
	if (strlen(folded) >= sizeof(r->text)) {
		snprintf(err, errlen, "longer than %zu characters", sizeof(r->text) - 1);
		return -1;
	}
	snprintf(r->text, sizeof(r->text), "%s", folded);
	return 0;
}
