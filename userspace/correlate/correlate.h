/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The correlator: joins the collective side of a capture (phase probes,
 * userspace/model/model.h) with the fabric side (bins, queues, drops, retransmits)
 * and answers "which collective, on which rank, was hurt by which network
 * event, or was the slow rank slow by itself?".
 *
 * corr__build() turns a finished model into:
 *   processes  pid -> comm, ppid, netns, host, exec/exit
 *   ranks      one per process that made traced calls; world rank = its rank
 *              in the largest communicator it reported (FT_REC_COMM_INFO)
 *   calls      per rank: blocking entry..return; non-blocking start..first
 *              FT_REC_REQ_DONE of the same (pid, request) after the start
 *   spans      marker begin/end pairs (steps, named phases), nested per pid
 *   instances  one collective matched across ranks by (communicator, seq),
 *              with skew, straggler, bandwidth, network evidence, verdict
 *   op stats   per (op, size, ranks): count and duration percentiles
 *   steps      step numbers across ranks with their collectives
 *   inferred   phases inferred from the traffic bins alone, and how they
 *              compare with the real collective windows
 *
 * Times and definitions (also in docs/report-json.md):
 *   entry/exit of a rank   its call's start and end (non-blocking: completion)
 *   span                   last exit - first entry over the ranks ("duration")
 *   skew                   last entry - first entry; the straggler is the
 *                          rank that entered last
 *   wait of a rank         last entry - its own entry
 *   all-arrived time       last exit - last entry: what the collective took
 *                          once every rank was in it
 *   size (nccl-tests)      allreduce, bcast, reduce, send/recv, sendrecv:
 *                          count * dtype; allgather, reduce_scatter(_block),
 *                          alltoall, gather, scatter: count * dtype * nranks
 *                          unless the count is already a total (v-variants)
 *   algbw                  size / time;   busbw = algbw * factor with the
 *                          nccl-tests factor: allreduce 2(n-1)/n;
 *                          reduce_scatter, allgather, alltoall, gather,
 *                          scatter (n-1)/n; bcast, reduce, send/recv 1
 *                          Instance bandwidth uses the all-arrived time (the
 *                          fabric's share, without the wait for stragglers);
 *                          per-rank bandwidth uses that rank's own duration.
 *
 * Everything is sorted deterministically; the arrays are read-only.
 */
#ifndef FABTRACE_CORRELATE_H
#define FABTRACE_CORRELATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "userspace/model/model.h"
#include "userspace/model/comm_key.h"

#define CORR_NONE UINT32_MAX

struct corr;

enum corr_phases_mode {
	CORR_PHASES_AUTO = 0,   /* probe records when there are any, else inferred phases */
	CORR_PHASES_PROBES,     /* probe records only, never infer */
	CORR_PHASES_INFERRED,   /* inferred phases (compared with the probes' when both exist) */
};

/*
 * Verdict thresholds: every number the verdict rules use is here.
 * Defaults (corr_opts__init) are CORR_DEF_*.
 */
#define CORR_DEF_QUEUE_DELAY_NS 1000000ull  /* 1 ms of queueing (sojourn or backlog/rate) */
#define CORR_DEF_UTIL           0.9         /* link at >= 90 % of capacity: "saturated" */
#define CORR_DEF_SKEW_FRAC      0.5         /* skew >= half the span: a straggler */
#define CORR_DEF_SKEW_MIN_NS    1000000ull  /* ... and at least 1 ms */
#define CORR_DEF_SLOW_FACTOR    1.5         /* over its expected transfer by half of it: slow */
#define CORR_DEF_MARGIN         1.5         /* the largest share leads at >= 1.5x the next */
#define CORR_DEF_RTO_MIN_NS     200000000ull /* Linux's TCP_RTO_MIN: what an RTO costs at least */
#define CORR_DEF_EXPLAINS       0.2         /* items estimated at >= 20 % of the excess own all of it */

struct corr_thresholds {
	uint64_t queue_delay_ns;   /* evidence: a queue on a rank's link delayed packets this long */
	double util;               /* supporting evidence only (never decides alone) */
	double skew_frac;          /* evidence: a straggler's lateness >= skew_frac * (itself + transfer) ... */
	uint64_t skew_min_ns;      /* ... and >= skew_min_ns; also the least a slow collective is over its usual */
	double slow_factor;        /* slow: span >= slow_factor * its usual time (expected transfer + usual skew) */
	double margin;             /* the largest share names the verdict at >= margin * the next, else unknown */
	uint64_t rto_min_ns;       /* an RTO retransmit costs the socket's RTT + this (the kernel's floor) */
	double explains;           /* the items own the whole excess when their estimates reach this share of it */
};

/*
 * The expected transfer of one (op, size, ranks) group, computed once from
 * its samples (struct corr_sample, one per collective): see budget below.
 * `report --windows` computes them over the whole capture first and hands
 * them to every window's correlation (corr_opts.baselines), so that each
 * window weighs its collectives as the whole report does.
 */
struct corr_sample {
	uint32_t op, nranks;
	uint64_t size_bytes;
	uint8_t enqueue_only, pad[7];
	uint64_t transfer_ns, items_ns;
};

struct corr_baseline {
	uint32_t op, nranks;
	uint64_t size_bytes;
	uint8_t enqueue_only, pad[3];
	uint32_t from;              /* enum corr_expected_from */
	uint64_t expected_ns, typical_ns;
};

struct corr_opts {
	enum corr_phases_mode phases;
	struct corr_thresholds th;
	/* given: the groups' baselines (by op, size, ranks, enqueue_only; sorted), else
	 * each correlation computes its own from its collectives */
	const struct corr_baseline *baselines;
	size_t nbaselines;
	uint64_t infer_gap_ns;     /* merge activity across gaps < this; 0 = from the traffic (auto) */
	unsigned infer_min_hosts;  /* hosts active together for an inferred phase (default 2) */
	uint64_t infer_min_bytes;  /* drop inferred phases with fewer TX bytes (default 0) */
};

void corr_opts__init(struct corr_opts *o);

/*
 * A collective's verdict: the largest of the shares of its time budget that
 * made it slower than its usual (struct corr_budget, budget.c).
 */
enum corr_verdict {
	CORR_OK = 0,        /* near its usual time */
	CORR_NETWORK,       /* the network's excess is the largest share */
	CORR_RANK,          /* waiting for a late rank is the largest share */
	CORR_UNKNOWN,       /* slow and unexplained, or no share clearly leads */
	CORR_NVERDICTS,
};

/* Why a verdict was given (bits). */
enum corr_why {
	CORR_WHY_QUEUE     = 1 << 0, /* queue delay >= queue_delay_ns */
	CORR_WHY_DROPS     = 1 << 1, /* congestion drops (QDISC_*, CPU_BACKLOG, ...) */
	CORR_WHY_RETRANS   = 1 << 2, /* TCP retransmits on the ranks' flows */
	CORR_WHY_CE        = 1 << 3, /* ECN CE marks received */
	CORR_WHY_UTIL      = 1 << 4, /* a link at >= util of capacity (supporting) */
	CORR_WHY_STRAGGLER = 1 << 5, /* skew >= skew_frac * span and >= skew_min_ns */
	CORR_WHY_SLOW      = 1 << 6, /* span >= slow_factor * median */
	CORR_WHY_UNOBSERVED = 1 << 7, /* no traced interface in the ranks' namespaces */
	CORR_WHY_CNP       = 1 << 8, /* a congestion-counter spike (CNPs, ECN marks, xmit wait) */
	CORR_WHY_PAUSE     = 1 << 9, /* a pause/PFC counter spike */
	CORR_WHY_RDMA_LOSS = 1 << 10, /* a retransmission or discard counter spike */
	CORR_WHY_NO_CPU    = 1 << 11, /* a rank runnable without a CPU inside the transfer (held_ns) */
};
#define CORR_NWHY 12

/*
 * Each kind of evidence, once (names.c): what every reader prints for it --
 * the report's JSON "reasons", the timelines' cause of a collective's
 * transfer, and whether it means congestion.  When several hold, the
 * timelines name the one of lowest precedence.
 */
struct corr_why_info {
	unsigned bit;               /* CORR_WHY_* */
	const char *name;           /* JSON reason: "queue", "retransmits", ... */
	const char *label;          /* for people: "queueing >= threshold", ... */
	const char *cause;          /* the timelines' cause: "queue", "retrans", ...; NULL: none */
	bool congestion;            /* evidence of congestion on the ranks' paths */
	unsigned precedence;        /* lower first, among the causes that hold */
};
/* The table, in bit order; *N gets its length (CORR_NWHY). */
const struct corr_why_info *corr__why_table(size_t *n);
/* The bits that mean congestion (the table's congestion column). */
unsigned corr__why_congestion(void);
struct json;
/* WHY's evidence bits as KEY: an array of their names (NULL KEY: inside an array) -- the
 * one spelling of them in every JSON output */
void corr__why_json(struct json *j, const char *key, unsigned why);
/* WHY's evidence bits' names, as the JSON spells them, comma-separated into BUF. */
const char *corr__why_names(unsigned why, char *buf, size_t len);
#define CORR_WHY_CONGESTION (corr__why_congestion())

/* What the verdict rules look at (one instance). */
struct corr_verdict_in {
	uint64_t span_ns;          /* the straggler's own lateness + the transfer (not the whole skew) */
	uint64_t skew_ns;          /* the straggler's own lateness */
	bool net_observed;
	uint64_t queue_delay_ns;   /* max(sojourn max, backlog * 8 / rate) on the ranks' links */
	uint64_t cong_drops;
	uint64_t retrans;
	uint64_t ce_pkts;
	double peak_util;          /* NaN when unknown */
	/* growth of spiking counters (model.ctr_events) on the ranks' ports and NICs */
	uint64_t ctr_cong;         /* FT_CLS_CONGESTION */
	uint64_t ctr_pause;        /* FT_CLS_PAUSE */
	uint64_t ctr_loss;         /* FT_CLS_RETRANS + FT_CLS_DISCARD */
	/* the time budget's shares (struct corr_budget), and what they are weighed against */
	uint64_t total_ns;         /* the span: usual + waiting + network + unexplained */
	uint64_t carried_usual_ns; /* of the usual, lateness carried from a predecessor not the network's */
	uint64_t expected_ns;      /* the expected transfer */
	uint64_t typical_ns;       /* the group's typical (median) clean transfer, >= expected */
	uint64_t waiting_ns, network_ns, unexplained_ns;
	/* no clean transfer in its group (CORR_EXPECTED_RESIDUAL, _BANDWIDTH): its usual is congested too */
	bool congested_all_along;
	uint64_t transfer_ns;      /* the transfer once all had arrived */
	uint64_t items_ns;         /* the network's items' estimates, before they are weighed against the excess */
	uint64_t stalled_ns;       /* of waiting: a rank held by the scheduler inside the transfer */
	uint64_t held_ns;          /* how long that rank was held there, a share or not */
};

/*
 * The verdict rules, a pure function (verdict_rules.c: one small function
 * per rule, tried in the order below).  They weigh the time budget:
 *   the unexplained share is weighed beyond the group's usual spread:
 *           unexplained' = unexplained - (typical - expected), at least 0
 *   over  = waiting + network + unexplained'
 *   own   = total - the usual skew carried from its predecessor (that
 *           lateness is the predecessor's, judged there)
 *   slow  = over >= skew_min_ns and own >= slow_factor * (own - over),
 *           or, in a group with no clean transfer (its usual congested
 *           too), network >= skew_min_ns and items >= explains * transfer
 *   not slow                                      -> CORR_OK
 *   the largest share under margin * the next     -> CORR_UNKNOWN (no share leads)
 *   waiting leads                                 -> CORR_RANK
 *   the network's excess leads                    -> CORR_NETWORK
 *   unexplained leads                             -> CORR_UNKNOWN
 * The evidence bits are reported with the verdict ("why"), all of them
 * tested: queue delay >= queue_delay_ns, congestion drops, loss
 * retransmits, CE marks, counter spikes (congestion, pause, loss), a
 * saturated link (supporting), a straggler (its own lateness >= skew_min_ns
 * and >= skew_frac * itself + the transfer), slow, network not traced.
 * *why (may be NULL) gets the CORR_WHY_* bits that held.
 */
enum corr_verdict corr__verdict(const struct corr_thresholds *t, const struct corr_verdict_in *in,
				unsigned *why);
/* The leading share of IN's budget (enum corr_share): NONE when not slow, TIE under the margin. */
unsigned corr__leader(const struct corr_thresholds *t, const struct corr_verdict_in *in);

/*
 * ---- the time budget of a collective (budget.c; costs.c estimates the network's items) ----
 *
 * span = waiting + carried + transfer
 *   waiting   the straggler's own lateness (corr_instance.own_late_ns): the time
 *             the others waited for it
 *   carried   the rest of the skew: lateness the straggler carried from its
 *             previous collective (it left that one late).  The network's when
 *             that collective had a network share (a rank behind a slow link
 *             always finishes last: persistent congestion), else usual skew
 *   transfer  last exit - last entry = expected + excess
 *   expected  the usual uncongested transfer of its (op, size, ranks) group:
 *             the 10th percentile of its clean instances' transfers (items
 *             under a tenth of the group's median transfer), the least when it has
 *             fewer than 5; with none clean (congested all along), the
 *             median of the transfers less their items, and at least the
 *             time its bytes need at the ranks' slowest line rate
 *             (nccl-tests' bus factor)
 *   excess    attributed to the network's items (struct corr_cost: each an
 *             estimated cost, in the transfer window, on the ranks' paths).
 *             The estimates are lower bounds (TCP regrows a halved window for
 *             many round trips after a loss; a slow link stalls the steps of
 *             the algorithm behind it): items estimated at >= `explains` of
 *             the excess own all of it, scaled; under that they own their
 *             estimates, and what is left is unexplained
 * span = usual + waiting + network + unexplained, exactly, where
 *   usual = expected + carried usual skew, network = items + carried network.
 */
enum corr_cost_kind {
	CORR_COST_QUEUE = 0,        /* a qdisc's queueing delay (largest bounded sojourn, else backlog / rate) */
	CORR_COST_SHAPER,           /* bytes a shaper below the line rate let through: 8 B (1/shaper - 1/line) */
	CORR_COST_RTO,              /* RTO retransmits: the socket's RTT + the kernel's RTO floor */
	CORR_COST_FAST,             /* fast retransmits: about one RTT */
	CORR_COST_TLP,              /* tail-loss probes whose loss was real (a cwnd reduction followed) */
	CORR_COST_LOCAL_DROP,       /* a flow's own qdisc dropped its segment and it sat idle until its probe timer */
	CORR_COST_DROP,             /* congestion drops: cost 0, counted through the retransmits they caused */
	CORR_COST_PAUSE,            /* pause/PFC counters spiking (their duration counters where there are) */
	CORR_COST_CNP,              /* congestion counters (CNPs, ECN marks) spiking: rate cut */
	CORR_COST_RDMA_LOSS,        /* RDMA retransmission/discard counters spiking */
	CORR_COST_CARRIED,          /* lateness carried from the previous collective's network share */
	CORR_NCOSTS,
};

/* One item of the network's excess. */
struct corr_cost {
	uint32_t kind;              /* enum corr_cost_kind */
	uint32_t iface;             /* index into model.ifaces, CORR_NONE */
	uint32_t qdisc;             /* index into model.qdiscs, CORR_NONE */
	uint32_t flow;              /* retransmits: the flow that retransmitted most, CORR_NONE */
	uint64_t count;             /* events, packets or samples behind it */
	uint64_t raw_ns;            /* the estimate, physically bounded by the window */
	uint64_t cost_ns;           /* its part of the network's share (scaled when the sum passed the excess) */
};

enum corr_share {
	CORR_SHARE_NONE = 0,        /* not slow: no share named */
	CORR_SHARE_WAITING,
	CORR_SHARE_NETWORK,
	CORR_SHARE_UNEXPLAINED,
	CORR_SHARE_TIE,             /* slow, but no share leads by the margin */
	CORR_NSHARES,
};

enum corr_expected_from {
	CORR_EXPECTED_GROUP = 0,    /* the 10th percentile of the group's clean transfers (>= 5 of them) */
	CORR_EXPECTED_GROUP_MIN,    /* 1 to 4 clean: the least of them */
	CORR_EXPECTED_RESIDUAL,     /* none clean: the median of the transfers less their items */
	CORR_EXPECTED_BANDWIDTH,    /* none clean, and that under the time its bytes need at the ranks'
				     * slowest line rate: that time */
	CORR_EXPECTED_NONE,         /* no transfer (open, or one member) */
};

struct corr_budget {
	uint64_t total_ns;          /* the span */
	uint64_t waiting_ns;        /* for one rank: the straggler's own lateness, + stalled_ns */
	uint32_t waiting_rank;      /* index into corr.ranks of the rank waited for (of the larger part), CORR_NONE */
	uint32_t held_rank;         /* the rank held longest inside the transfer (held_ns), CORR_NONE */
	uint64_t held_ns;           /* how long the scheduler held it there (model__sched_held) */
	uint64_t stalled_ns;        /* held_ns as a share: at most the excess, before the network's items */
	uint32_t expected_from;     /* enum corr_expected_from */
	uint64_t carried_ns;        /* skew - waiting */
	uint64_t carried_network_ns; /* the part that is the network's (carried_from's) */
	uint32_t carried_from;      /* the instance the network lateness came from, CORR_NONE */
	uint32_t leader;            /* enum corr_share */
	uint64_t transfer_ns, expected_ns, excess_ns;
	uint64_t typical_ns;        /* the group's typical (median) clean transfer, >= expected: its usual spread */
	uint64_t line_rate_ns;      /* its bytes at the ranks' slowest line rate (bus factor), 0 unknown */
	uint64_t items_ns;          /* the items' estimates summed (before they are weighed against the excess) */
	uint64_t network_ns;        /* items (<= excess) + carried_network */
	uint64_t unexplained_ns;    /* excess - items */
	uint64_t usual_ns;          /* expected + carried - carried_network */
	uint32_t link, qdisc;       /* the network share's main link and queue, CORR_NONE */
	uint32_t toward_flow;       /* when a retransmitting flow leads: its path, CORR_NONE */
	uint32_t pad;
	size_t first_cost, ncosts;  /* slice of corr.costs, by cost desc */
};

/* A link's (and queue's) part of the job's network share. */
struct corr_budget_link {
	uint32_t iface, qdisc;      /* CORR_NONE when unknown */
	uint64_t ns;
	uint64_t count[CORR_NCOSTS]; /* events behind it, by kind */
	uint64_t cost_ns[CORR_NCOSTS];
};

/* The job's answer as a budget: every collective's budget summed. */
struct corr_job_budget {
	uint64_t total_ns, waiting_ns, expected_ns, network_ns, unexplained_ns; /* expected: the usual */
	uint64_t *wait_by_rank;     /* [corr.nranks]: time waited for each rank */
	struct corr_budget_link *links; size_t nlinks; /* by ns desc */
};

/*
 * The budget of the instances that begin in [FROM, TO) summed into OUT (zeroed
 * first): corr.budget is that of all of them; `report --windows` sums one
 * window's.  Free with corr__job_budget_free.  0 or -ENOMEM.
 */
int corr__job_budget(const struct corr *c, uint64_t from, uint64_t to, struct corr_job_budget *out);
void corr__job_budget_free(struct corr_job_budget *b);
/* The interface that names IFACE's wire (a rank host's end; corr.iface_wire), IFACE itself when none. */
uint32_t corr__wire(const struct corr *c, uint32_t iface);

/* Append the samples of the collectives of C that begin in [FROM, TO) and take part in a
 * baseline (every rank there, closed) to *V.  0 or -ENOMEM. */
int corr__samples(const struct corr *c, uint64_t from, uint64_t to, struct corr_sample **v, size_t *n,
		  size_t *cap);
/* The groups' baselines from N samples (V is reordered): *OUT sorted by group, free() it.  0 or -ENOMEM. */
int corr__baselines(struct corr_sample *v, size_t n, struct corr_baseline **out, size_t *nout);
/* The baseline of a group in BASE (N of them, sorted), NULL when absent. */
const struct corr_baseline *corr__baseline_of(const struct corr_baseline *base, size_t n, uint32_t op,
					      uint64_t size_bytes, uint32_t nranks, bool enqueue_only);

/* Names of a cost kind ("queue", "shaper", "rto", ...) and for text ("queueing", "shaper", "RTO retransmits"). */
const char *corr__cost_name(unsigned kind);
const char *corr__cost_label(unsigned kind);
/* The cause's word in a timeline ("retrans", "queue"), and whether the kind's count is of events. */
const char *corr__cost_cause(unsigned kind);
bool corr__cost_counts_events(unsigned kind);
/* Whether an item of KIND leading a budget names the path its flow's loss was on ("toward"). */
bool corr__cost_names_path(unsigned kind);
const char *corr__share_name(unsigned share);       /* "waiting", "network", "unexplained", "tie", NULL none */
const char *corr__expected_from_name(unsigned from); /* "group", "group_min", "none" */

/* The cost estimates (costs.c), exposed for tests.  Times in ns. */
uint64_t corr__cost_rto(uint32_t srtt_us, uint64_t rto_min_ns);
uint64_t corr__cost_fast(uint32_t srtt_us);
uint64_t corr__cost_tlp(uint32_t srtt_us);
uint64_t corr__cost_shaper(uint64_t bytes, double shaper_bps, double line_bps);
/* Is a tail-loss probe at TS of flow FLOW followed by a cwnd reduction (its loss was real)? */
bool corr__tlp_real(const struct model *m, uint32_t flow, uint64_t ts, uint32_t srtt_us);

/* nccl-tests "size" of a call of OP: see above.  0 when unknown. */
uint64_t corr__size_bytes(unsigned op, uint64_t bytes, uint32_t nranks, bool count_total);
/* nccl-tests bus bandwidth factor of OP on NRANKS ranks (1 when NRANKS < 1). */
double corr__busbw_factor(unsigned op, uint32_t nranks);
/* True for ops matched across ranks as collectives. */
bool corr__op_is_collective(unsigned op);
/* True for collectives that no rank leaves before every rank came (all-reduce, barrier, ...). */
bool corr__op_waits_for_all(unsigned op);
/* True for drop reasons that mean congestion (QDISC_*, CPU_BACKLOG, FULL_RING, SOCKET_RCVBUFF, ...). */
bool corr__congestion_drop(const char *reason);

const char *corr__op_name(unsigned op);           /* "allreduce", ..., "op N" is "unknown" */
const char *corr__lib_name(unsigned lib_kind);    /* "mpi", "nccl", ... */
const char *corr__verdict_name(enum corr_verdict v); /* "ok", "network", "rank", "unknown" */
const char *corr__mode_name(enum corr_phases_mode m);

struct corr_proc {
	uint32_t pid, ppid, netns;
	char comm[16];
	char host[64];              /* netns name, else the capture's hostname */
	bool have_proc;             /* FT_REC_PROC records were seen */
	uint32_t events;            /* bit (1 << enum ft_proc_event) */
	uint64_t first_ns, exec_ns, exit_ns; /* 0 = not seen */
	uint32_t nexec;
	int32_t exit_code;
	uint32_t rank;              /* index into corr.ranks, CORR_NONE */
};

struct corr_rank_op {
	uint32_t op;
	char name[32];              /* the op's name; a --phase slot's own NAME for FT_OP_CUSTOM */
	uint64_t calls;
	uint64_t bytes;             /* sum of count * dtype_size (the call's own buffer) */
	uint64_t size_bytes;        /* sum of nccl-tests sizes (collectives) */
	uint64_t time_ns;           /* sum of call durations */
	uint64_t open;              /* calls without an end (OPEN, or no completion seen) */
};

struct corr_rank {
	int32_t rank;               /* world rank, -1 unknown */
	int32_t world_size;         /* size of that communicator, -1 unknown */
	uint64_t world_comm;
	uint32_t pid, netns;
	uint32_t proc;              /* index into corr.procs */
	char host[64];
	char comm[16];
	uint64_t calls;             /* traced library calls (markers not counted) */
	uint64_t collectives;       /* calls that are part of an instance */
	uint64_t coll_time_ns;      /* time inside those calls */
	uint64_t wait_ns;           /* sum of its waits (last entry - own entry) */
	uint64_t straggler_count;   /* instances where it entered last (skew > 0) */
	uint64_t late_ns;           /* sum of (own entry - the previous latest entry) there */
	size_t first_op, nops;      /* slice of corr.rank_ops, by op */
};

enum corr_call_flags {
	CORR_CALL_OPEN         = 1 << 0, /* still running at stop (FT_PHASE_OPEN) */
	CORR_CALL_NONBLOCKING  = 1 << 1,
	CORR_CALL_COMPLETED    = 1 << 2, /* non-blocking: its request completion was seen */
	CORR_CALL_NO_COMPLETION = 1 << 3, /* non-blocking: no completion seen (end = return) */
	CORR_CALL_ENQUEUE_ONLY = 1 << 4, /* NCCL: the call returns at enqueue */
	CORR_CALL_COUNT_TOTAL  = 1 << 5,
	CORR_CALL_LIB_SEQ      = 1 << 6, /* seq is the library's own number (Gloo's tag + 1) */
	CORR_CALL_PLUGIN       = 1 << 7, /* timed by the NCCL profiler plugin (corr_plugin.h) */
};

/* What the NCCL profiler plugin contributed (corr_plugin.h). */
struct corr_plugin_sum {
	uint64_t calls;             /* plugin-timed Coll/P2p records */
	uint64_t gpu_timed;         /* by kernel-channel GPU timestamps */
	uint64_t proxy_timed;       /* by proxy progress */
	uint64_t host_timed;        /* neither (no child event seen) */
	uint64_t proxy_ops;         /* proxy-op records (one channel, one peer) */
	uint64_t proxy_bytes;
	uint64_t dropped_enqueue;   /* host-side NCCL calls replaced by plugin records */
};

struct corr_call {
	uint64_t start_ns, end_ns;  /* entry; return, or completion (non-blocking) */
	uint64_t ret_ns;            /* return of the call itself */
	uint64_t count, comm, seq, req;
	uint64_t bytes;             /* count * dtype_size, 0 unknown */
	uint64_t size_bytes;        /* nccl-tests size (set for instance members) */
	uint64_t prev_end_ns;       /* end of this process's previous collective, 0 = none */
	uint32_t prev_call;         /* that call (index into corr.calls), CORR_NONE */
	uint64_t late_self_ns;      /* as the straggler of its instance: its own lateness, else 0 */
	uint32_t pid, tid, netns, slot;
	uint32_t op;                /* enum ft_op (from the slot; FT_OP_NONE if unknown) */
	uint32_t flags;             /* enum corr_call_flags */
	int32_t peer;
	uint32_t rank;              /* index into corr.ranks */
	uint32_t instance;          /* index into corr.instances, CORR_NONE */
	uint32_t span;              /* innermost marker span around its entry, CORR_NONE */
	int64_t step;               /* step number of the innermost step around it, -1 none */
	const char *comm_name;      /* the library's name of the communicator (Open MPI), "" none; model-owned */
};

enum corr_span_kind {
	CORR_SPAN_STEP = 0,         /* fabtrace_step_begin/end (key: step number) */
	CORR_SPAN_MARK,             /* fabtrace_phase_begin/end (key: name) */
};

struct corr_span {
	uint32_t kind;              /* enum corr_span_kind */
	uint32_t pid, rank;
	uint64_t step;              /* CORR_SPAN_STEP */
	char name[32];              /* CORR_SPAN_MARK */
	uint64_t start_ns, end_ns;
	bool open;                  /* no end marker: ends at the capture end */
	uint32_t parent;            /* enclosing span of the same pid, CORR_NONE */
	uint32_t depth;
	int64_t step_of;            /* step number of the innermost step around it (itself for steps), -1 */
};

/* Network evidence of one instance window (a summary; corr__evidence() has the details). */
struct corr_evsum {
	bool observed;              /* a traced interface in a participating netns */
	double peak_util;           /* highest bin utilisation on those links, NaN unknown */
	uint32_t peak_iface, peak_dir;
	uint64_t queue_delay_ns;    /* max(sojourn max, backlog * 8 / rate) */
	uint64_t max_sojourn_ns;
	uint64_t max_backlog_bytes;
	uint32_t queue_qdisc;       /* index into model.qdiscs of the worst queue, CORR_NONE */
	uint64_t drops, cong_drops;
	uint64_t retrans;
	uint64_t retrans_tlp;       /* of which tail-loss probes: sent on a late ACK, loss or not */
	uint64_t ce_pkts;
	uint32_t bursts;
	uint32_t link;              /* index into model.ifaces named as the culprit, CORR_NONE */
	uint32_t qdisc;             /* index into model.qdiscs named as the culprit, CORR_NONE */
	/* the culprit is the retransmitting flow's path, not a queue seen: the
	 * index into model.flows of the flow that retransmitted most, CORR_NONE */
	uint32_t toward_flow;
	/* counter spikes (model.ctr_events) overlapping the window, on the ranks' ports/NICs */
	uint32_t ctr_events;
	uint64_t ctr_cong, ctr_pause, ctr_retrans, ctr_discard; /* growth inside the window */
	uint32_t ctr_series;        /* index into model.ctr_series that grew most, CORR_NONE */
};


struct corr_instance {
	uint32_t op;
	uint32_t comm_kind;         /* enum corr_comm_kind */
	uint64_t comm;              /* HANDLE: the handle; POINTER: the first member's pointer */
	uint32_t comm_size;         /* POINTER, LIBSEQ: size in the key; else from FT_REC_COMM_INFO, 0 unknown */
	uint32_t comm_order;        /* POINTER: order of first use in each process; LIBSEQ: see comm_key.c */
	const char *comm_name;      /* NAMED: the name every rank gave it (model-owned); else "" */
	uint64_t seq;
	uint32_t nranks;            /* n for sizes and factors: comm size, else members */
	size_t first_member, nmembers; /* slice of corr.members (call indices, by rank) */
	uint64_t size_bytes;        /* nccl-tests size */
	uint64_t first_entry, last_entry, first_exit, last_exit;
	uint64_t span_ns, skew_ns, all_arrived_ns;
	uint32_t straggler;         /* index into corr.ranks of the last to enter; CORR_NONE
				     * with one member or when all entered at once */
	/*
	 * The part of the skew the straggler caused itself: its time since
	 * its own previous collective minus the shortest such time of the
	 * others (capped at the skew; the skew when unknown).  A rank that
	 * enters late only because its previous collective ended late (a
	 * slow network finishes ranks at different times) has ~0 here.
	 */
	uint64_t own_late_ns;
	double busbw_factor;
	double algbw, busbw;        /* bytes/s over the all-arrived time; NaN when 0 or unknown */
	bool enqueue_only, open, partial, op_mismatch;
	int64_t step;               /* the step around its members (first member that has one), -1 */
	struct corr_evsum ev;
	bool slow;
	double slow_ratio;          /* span / median span of its op group */
	enum corr_verdict verdict;
	unsigned why;               /* CORR_WHY_* */
	uint32_t opstat;            /* index into corr.opstats */
	struct corr_budget budget;
};

struct corr_opstat {
	uint32_t op, nranks;
	uint64_t size_bytes;
	bool enqueue_only;
	uint64_t count;
	uint64_t span_mean_ns, span_p50_ns, span_p99_ns, span_max_ns;
	uint64_t all_arrived_mean_ns;
	uint64_t expected_ns;       /* the usual uncongested transfer (corr_budget.expected_ns) */
	uint64_t typical_ns;        /* the median of its clean transfers (the expected when none) */
	uint32_t expected_from;     /* enum corr_expected_from */
	double algbw_mean, busbw_mean; /* mean over instances with a bandwidth; NaN if none */
	double busbw_factor;
	uint64_t verdicts[CORR_NVERDICTS];
};

struct corr_step_phase {
	char name[32];
	uint64_t count, total_ns, max_ns;
};

struct corr_step {
	uint64_t step;
	uint64_t start_ns, end_ns;  /* first begin, last end over the ranks */
	uint32_t nranks;            /* spans with this number */
	bool open;
	uint64_t dur_mean_ns, dur_max_ns; /* per-rank span durations */
	size_t first_child, nchildren; /* slice of corr.step_children (instance indices, by entry) */
	size_t first_phase, nphases;   /* slice of corr.step_phases (by name) */
};

struct corr_mark {
	char name[32];
	uint64_t count, total_ns, max_ns;
	uint32_t nranks;
	uint64_t open;
};

struct corr_interval {
	uint64_t start_ns, end_ns;
};

struct corr_host {
	uint32_t netns;
	char name[64];              /* netns name, or "netns N" */
	size_t first_act, nact;     /* slice of corr.activity */
};

struct corr_inferred {
	uint64_t start_ns, end_ns;
	uint32_t max_hosts;         /* hosts active together at most */
	uint64_t tx_bytes;          /* TX bytes of the hosts' interfaces inside it */
	/* against the probes' collective windows (when both exist) */
	uint32_t matched;           /* real windows overlapping it */
	int64_t start_err_ns, end_err_ns; /* minus the union of those windows' start/end */
};

struct corr_compare {
	bool valid;                 /* both inferred phases and real windows exist */
	size_t nreal;               /* instances whose ranks span >= 2 namespaces */
	size_t ninferred;
	size_t inferred_matched;    /* inferred phases overlapping a real window */
	size_t real_covered;        /* real windows overlapping an inferred phase */
	size_t one_to_one;          /* pairs that overlap only each other */
	uint64_t max_abs_start_err_ns, max_abs_end_err_ns;  /* over matched inferred phases */
	double mean_abs_start_err_ns, mean_abs_end_err_ns;
};

struct corr {
	const struct model *m;
	struct corr_opts opts;
	bool have_probes;           /* the capture has phase records */
	bool show_probes;           /* probe sections apply (mode != inferred, records exist) */
	bool inferred_on;           /* inferred phases were computed */
	bool enqueue_only;          /* some traced call is ENQUEUE_ONLY (NCCL) */
	struct corr_plugin_sum plugin; /* the NCCL profiler plugin's records */
	size_t seq_shifted;         /* (communicator, process) pairs whose seq was shifted into step
				     * with the others' (a job attached mid-run; seq_align.h) */
	uint64_t infer_gap_ns;      /* the gap actually used */
	bool infer_gap_auto;        /* chosen from the traffic's idle gaps */

	struct corr_proc *procs; size_t nprocs;          /* by pid */
	struct corr_rank *ranks; size_t nranks;          /* by world rank (unknown last), host, pid */
	struct corr_rank_op *rank_ops; size_t nrank_ops;
	struct corr_call *calls; size_t ncalls;          /* by (pid, entry) */
	struct corr_span *spans; size_t nspans;          /* by (pid, start) */
	uint64_t unmatched_ends;    /* marker ends without a begin */
	struct corr_instance *instances; size_t ninstances; /* by first entry */
	uint32_t *members; size_t nmembers;               /* call indices */
	uint32_t *by_span; size_t nby_span;               /* instance indices, slowest first */
	struct corr_opstat *opstats; size_t nopstats;     /* by op, size, ranks */
	uint64_t verdicts[CORR_NVERDICTS];
	struct corr_cost *costs; size_t ncosts;           /* the instances' budget items (their slices) */
	/* [model.nifaces]: the interface at the other end of each one's wire, as the
	 * traffic shows it (a switch port and its host's NIC), CORR_NONE; and the
	 * one that names the wire: a rank host's end, else itself */
	uint32_t *iface_peer, *iface_wire;
	struct corr_job_budget budget;
	struct corr_step *steps; size_t nsteps;           /* by step number */
	uint32_t *step_children; size_t nstep_children;
	struct corr_step_phase *step_phases; size_t nstep_phases;
	struct corr_mark *marks; size_t nmarks;           /* by name */
	struct corr_host *hosts; size_t nhosts;           /* inference hosts, by name */
	struct corr_interval *activity; size_t nactivity;
	struct corr_inferred *inferred; size_t ninferred; /* by start */
	struct corr_compare compare;
};

/* Build from a finished model (kept referenced: free the corr first).  0 or -errno. */
int corr__build(const struct model *m, const struct corr_opts *o, struct corr **out);
void corr__free(struct corr *c);
/* The rank of process PID (its rank in its largest communicator), -1 if none. */
int64_t corr__rank_of_pid(const struct corr *c, uint32_t pid);

/* Details of an instance's network evidence, for display. */
struct corr_link_ev {
	uint32_t iface;             /* index into model.ifaces */
	uint64_t bytes[2];          /* [FT_DIR_RX], [FT_DIR_TX] in the window */
	double peak_util[2];        /* NaN when the capacity is unknown */
	uint32_t bursts;
	uint64_t ce_pkts;
	uint32_t qdisc;             /* worst qdisc on it, CORR_NONE */
	uint64_t max_backlog_bytes, max_sojourn_ns, queue_delay_ns;
	uint64_t qdisc_drops;       /* qdisc drop counter growth in the window */
	uint64_t drops, cong_drops; /* drop records on it */
};

struct corr_drop_ev {
	uint32_t reason;
	uint32_t iface;
	uint64_t count;
	bool congestion;
};

struct corr_flow_ev {
	uint32_t flow;              /* index into model.flows */
	uint64_t retrans;
	bool owned;                 /* attributed by FT_REC_SOCK_OWNER (else by netns) */
};

/* A counter that spiked during the window. */
struct corr_ctr_ev {
	uint32_t series;            /* index into model.ctr_series */
	uint32_t pad;
	uint64_t growth;            /* inside the window (prorated over sample intervals) */
	double peak_rate;           /* of the spike(s), per second */
};

struct corr_evidence {
	uint64_t start_ns, end_ns;  /* the window: first entry .. last exit */
	struct corr_evsum sum;
	struct corr_ctr_ev *ctrs; size_t nctrs;     /* by growth desc */
	struct corr_link_ev *links; size_t nlinks;  /* by interface order */
	struct corr_drop_ev *drops; size_t ndrops;  /* by count desc */
	struct corr_flow_ev *flows; size_t nflows;  /* with retransmits, by count desc */
};

/* Fill EV for instance IDX (free with corr__evidence_free).  0 or -ENOMEM. */
int corr__evidence(const struct corr *c, size_t idx, struct corr_evidence *ev);
void corr__evidence_free(struct corr_evidence *ev);

/*
 * Compare inferred phases with real windows (both sorted by start): fills
 * CMP and, per inferred phase, matched / start_err_ns / end_err_ns.  A real
 * window matches the inferred phases it overlaps; an inferred phase's error
 * is taken against the union of the real windows it overlaps.  Exposed for
 * tests; corr__build() runs it on the instances' windows.
 */
void corr__compare(struct corr_inferred *inf, size_t ninf, const struct corr_interval *real,
		   size_t nreal, struct corr_compare *cmp);

/* The items of IN's budget that cost time (at most MAX), and the lateness it
 * carried from a network-bound collective: "shaper 100 Mbit/s on eth0@h2 (about
 * 88 ms), 12 fast retransmits on eth0@h1 (about 7 ms)"; "" when none. */
const char *corr__items_str(const struct corr *c, const struct corr_instance *in, size_t max, char *buf, size_t len);
/* What IN's budget found on its main link (struct corr_budget.link), short:
 * "shaper 100 Mbit/s, queueing 2.42 ms, 12 congestion drops, 19 retransmits,
 * 74 ms late from allreduce #2, 3.1 ms on other links"; "" when nothing. */
const char *corr__link_str(const struct corr *c, const struct corr_instance *in, char *buf, size_t len);
/* IN's verdict as its budget says it: "151 ms of 267 ms (57%) waiting for rank 2 (pid
 * 812, h3); transfer 116 ms, 40 ms over its usual 76 ms: 7 fast retransmits on ..." */
const char *corr__budget_str(const struct corr *c, const struct corr_instance *in, char *buf, size_t len);
/* One-line description of an instance's verdict and evidence into BUF. */
const char *corr__describe(const struct corr *c, size_t idx, char *buf, size_t len);
/* "rank 2 (pid 812, h3)", "pid 812 (h3)"; "?" for CORR_NONE */
const char *corr__rank_label(const struct corr *c, uint32_t rank, char *buf, size_t len);
/* "rank R (pid P, HOST)" (WITH_PID), "rank R (HOST)", or "pid P (HOST)" without a rank; "?" for none */
const char *corr__rank_name(const struct corr *c, uint32_t rank, bool with_pid, char *buf, size_t len);
/* "tbf 1:", "htb 1:10" */
const char *corr__qdisc_label(const struct model *m, uint32_t qdisc, char *buf, size_t len);
/* The interface where the capture saw flow FLOW's destination address send, NULL. */
const struct model_iface *corr__flow_dest_iface(const struct model *m, uint32_t flow);
/* Where flow FLOW goes: "198.18.0.3 (eth0@h3)", the interface where the
 * capture saw that address send; the address alone when it did not. */
const char *corr__toward_label(const struct model *m, uint32_t flow, char *buf, size_t len);
/* "link eth0@h2 (tbf 1:)", "link eth0@h4 toward 198.18.0.3 (eth0@h3)": a network-bound
 * instance's culprit, "" when none is named */
const char *corr__culprit_label(const struct model *m, const struct corr_evsum *s, char *buf, size_t len);
/*
 * How late an instance's straggler entered: its entry minus the latest
 * entry of the others; 0 without a straggler (corr_rank.late_ns sums it).
 */
uint64_t corr__straggler_late_ns(const struct corr *c, const struct corr_instance *in);
/* The rank IN's verdict names: a rank-bound one's, the rank its budget waited for
 * (a straggler's, or one held without a CPU); else the straggler.  CORR_NONE: none. */
uint32_t corr__blamed_rank(const struct corr_instance *in);

#endif
