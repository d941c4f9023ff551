/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's triggers by rule and by the job (`record --trigger
 * RULE`, docs/flight-recorder.md): a second sink of the session, beside the
 * flight recorder's, that reads the records as they pass and fires a trigger
 * when a rule holds.  Pure: no I/O, no clock (every moment is a record's
 * CLOCK_MONOTONIC time), bounded memory; tests/unit/test_rules.c.
 *
 *   RULE := METRIC [OP THRESHOLD] [over DUR] [usual DUR] [on NETNS/IFACE | on rank:N]
 *           [policy every:N|once-after:N]
 *
 * rules_parse.c is the syntax and the metrics' table; rules.c the evaluator:
 * per-interface event counts in buckets of a tenth of the window (link.*;
 * link.pause and link.cnp from the counter sampler's growth on the port's
 * netdev: pause frames, and CNPs and ECN-marked RoCE packets),
 * the qdisc bins' longest sojourn, the lost counters' sum, the proc exits,
 * the NCCL calls' return values, PyTorch ProcessGroupGloo's failed work,
 * and top's aggregator (live.h) for the
 * collectives (coll.slow, rank.late), fed the phase records only.
 *
 * A rule fires once per episode: when it holds at an event and did not hold
 * at any event of the same rule and place in the window before (`over`,
 * 1 s by default).  Each firing is handed to the FIRE callback as a flight
 * trigger (kind rule or job, the rule's text, the value and the threshold
 * with their unit, the event's moment); the recorder's rate policy and
 * cool-down then apply per rule.
 */
#ifndef FABTRACE_LIVE_RULES_H
#define FABTRACE_LIVE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"
#include "userspace/record/flight.h"

#define RULES_MAX 16            /* --trigger options */
#define RULES_MAX_PLACES 64     /* interfaces (or groups) followed per rule */
#define RULES_BUCKETS 10        /* a rate's window in tenths */
#define RULES_SAMPLES 32        /* coll.slow: the latest durations of a group */
#define RULES_MIN_SAMPLES 5     /* coll.slow: a group's usual needs this many */
#define RULES_MIN_USUAL_NS 1000000000ull /* coll.slow's `usual DUR`: at least 1 s */

enum rule_metric {
	RM_LINK_DROPS, RM_LINK_RETRANS, RM_LINK_CE, RM_LINK_PAUSE, RM_LINK_CNP, RM_QUEUE_SOJOURN, RM_LOST,
	RM_COLL_SLOW, RM_RANK_LATE, RM_JOB_EXIT, RM_JOB_TIMEOUT,
	RM_MAX,
};

enum rule_unit { RU_NONE, RU_RATE, RU_FACTOR, RU_DURATION, RU_COUNT };

enum rule_op { ROP_GT, ROP_GE, ROP_NE };

struct rule {
	char text[64];              /* as given, spaces folded: names the rule in the trigger */
	enum rule_metric metric;
	enum rule_op op;
	int64_t threshold;          /* in the metric's unit: 1/s, x1000, ns, a count */
	uint64_t over_ns;           /* the rate's window and the episode's gap (default 1 s) */
	uint64_t usual_ns;          /* coll.slow: the usual is the median of the group's calls that ended
				     * in the last DUR (`usual DUR`); 0: of its latest RULES_SAMPLES calls */
	bool on;                    /* on NETNS/IFACE given */
	char on_netns[32], on_iface[16];
	bool on_rank;               /* on rank:N given (coll.slow, rank.late): that rank's calls only */
	int32_t rank;
	bool has_rate;              /* policy given: this rule's rate policy, over --snapshot-policy */
	struct flight_rate rate;
};

/* The metric's name ("link.drops"), its trigger unit ("1/s", "x1000", "ns", "events", "status", "ret"). */
const char *rules__metric_name(enum rule_metric m);
const char *rules__unit_name(enum rule_metric m);
/* The network probes whose records M reads, any of them (bits 1 << ft_probe_id; 0: none
 * needed), in *PHASES whether it reads the phase probes' instead, and in *COUNTERS
 * whether the counter sampler's (RDMA or NIC counters). */
uint64_t rules__metric_probes(enum rule_metric m, bool *phases, bool *counters);

/* Parse TEXT into R: 0, or -1 with ERR ("link.drops > x: not a rate; give N/s, e.g. 100/s"). */
int rules__parse(struct rule *r, const char *text, char *err, size_t errlen);

/* A firing: T's strings live until the callback returns. */
typedef void (*rules_fire_fn)(void *ctx, const struct flight_trigger *t);

struct rules;

/* NULL on ENOMEM.  BIN_NS: the session's bin width (top's aggregator needs it). */
struct rules *rules__new(const struct rule *r, int n, uint64_t bin_ns, rules_fire_fn fire, void *ctx);
void rules__free(struct rules *rs);
/* The session's sink (session_sink_fn): every record, in order.  0. */
int rules__sink(void *ctx, const struct ft_rec_hdr *rec);
/* Once a second: collectives whose missing ranks no longer come are decided. */
void rules__tick(struct rules *rs, uint64_t now_ns);
/* The session is stopping: a process ended by SIGTERM or SIGKILL now is the recorder's doing, not job.exit. */
void rules__stopping(struct rules *rs);
/*
 * No job was given (no -- COMMAND, no -p): the probes follow every process,
 * so job.exit watches only those that made a collective call (a phase
 * record), not every grep that fails on the node.
 */
void rules__job_from_calls(struct rules *rs);
/* Times rule I fired, and events it could not follow (places beyond RULES_MAX_PLACES). */
uint64_t rules__fired(const struct rules *rs, int i);
uint64_t rules__overflow(const struct rules *rs);

#endif
