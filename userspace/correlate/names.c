// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names and nccl-tests formulas of the correlator (see correlate.h):
 * option defaults, op / library / verdict / mode names, collective ops, the
 * nccl-tests size and bus-bandwidth factor, congestion drop reasons.  Pure
 * functions without state, apart from the stages that use them.
 */
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "probes/drop_reasons.h"
#include "userspace/correlate/corr_internal.h"

void corr_opts__init(struct corr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->phases = CORR_PHASES_AUTO;
	o->th.queue_delay_ns = CORR_DEF_QUEUE_DELAY_NS;
	o->th.util = CORR_DEF_UTIL;
	o->th.skew_frac = CORR_DEF_SKEW_FRAC;
	o->th.skew_min_ns = CORR_DEF_SKEW_MIN_NS;
	o->th.slow_factor = CORR_DEF_SLOW_FACTOR;
	o->th.margin = CORR_DEF_MARGIN;
	o->th.rto_min_ns = CORR_DEF_RTO_MIN_NS;
	o->th.explains = CORR_DEF_EXPLAINS;
	o->infer_gap_ns = 0;
	o->infer_min_hosts = 2;
	o->infer_min_bytes = 0;
}

const char *corr__op_name(unsigned op)
{
	static const char *const n[FT_OP_MAX] = {
		[FT_OP_NONE] = "unknown",
		[FT_OP_ALLREDUCE] = "allreduce",
		[FT_OP_REDUCE_SCATTER] = "reduce_scatter",
		[FT_OP_ALLGATHER] = "allgather",
		[FT_OP_BCAST] = "bcast",
		[FT_OP_REDUCE] = "reduce",
		[FT_OP_ALLTOALL] = "alltoall",
		[FT_OP_BARRIER] = "barrier",
		[FT_OP_GATHER] = "gather",
		[FT_OP_SCATTER] = "scatter",
		[FT_OP_SEND] = "send",
		[FT_OP_RECV] = "recv",
		[FT_OP_SENDRECV] = "sendrecv",
		[FT_OP_GROUP_START] = "group_start",
		[FT_OP_GROUP_END] = "group_end",
		[FT_OP_COMM_INIT] = "comm_init",
		[FT_OP_COMPLETION] = "completion",
		[FT_OP_STEP] = "step",
		[FT_OP_MARK] = "mark",
		[FT_OP_CUSTOM] = "custom",
	};

	return op < FT_OP_MAX && n[op] ? n[op] : "unknown";
}

const char *corr__lib_name(unsigned lib_kind)
{
	static const char *const n[] = { "none", "mpi", "nccl", "gloo", "marker", "generic" };

	return lib_kind < sizeof(n) / sizeof(n[0]) ? n[lib_kind] : "unknown";
}

const char *corr__verdict_name(enum corr_verdict v)
{
	static const char *const n[CORR_NVERDICTS] = {
		[CORR_OK] = "ok", [CORR_NETWORK] = "network", [CORR_RANK] = "rank", [CORR_UNKNOWN] = "unknown",
	};

	return (unsigned)v < CORR_NVERDICTS ? n[v] : "unknown";
}

/*
 * The evidence, one row a kind.  Precedence: the cause a timeline names
 * when several hold -- a measured queue first, then loss (drops, the
 * retransmits they cause), marks, then the adapters' counters.
 */
static const struct corr_why_info why_table[CORR_NWHY] = {
	{ CORR_WHY_QUEUE, "queue", "queueing >= threshold", "queue", true, 0 },
	{ CORR_WHY_DROPS, "drops", "congestion drops", "drops", true, 1 },
	{ CORR_WHY_RETRANS, "retransmits", "retransmits", "retrans", true, 2 },
	{ CORR_WHY_CE, "ce", "ECN CE marks", "ce", true, 3 },
	{ CORR_WHY_UTIL, "saturated", "link near capacity (supporting)", NULL, false, 0 },
	{ CORR_WHY_STRAGGLER, "straggler", "a rank entered late", NULL, false, 0 },
	{ CORR_WHY_SLOW, "slow", "slow: its budget's shares", NULL, false, 0 },
	{ CORR_WHY_UNOBSERVED, "network_not_traced", "network not traced there", NULL, false, 0 },
	{ CORR_WHY_CNP, "counter_congestion", "congestion-counter spike (CNP, ECN, xmit wait)", "cnp", true, 4 },
	{ CORR_WHY_PAUSE, "counter_pause", "pause/PFC counter spike", "pause", true, 5 },
	{ CORR_WHY_RDMA_LOSS, "counter_loss", "RDMA retransmission or discard counter spike", "rdma-loss", true, 6 },
	{ CORR_WHY_NO_CPU, "no_cpu", "a rank runnable without a CPU", NULL, false, 0 },
};

const struct corr_why_info *corr__why_table(size_t *n)
{
	if (n)
		*n = CORR_NWHY;
	return why_table;
}

void corr__why_json(struct json *j, const char *key, unsigned why)
{
	json_kv_array_begin(j, key);
	for (size_t i = 0; i < CORR_NWHY; i++)
		if (why & why_table[i].bit)
			json_kv_string(j, NULL, why_table[i].name);
	json_array_end(j);
}

const char *corr__why_names(unsigned why, char *buf, size_t len)
{
	size_t k = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < CORR_NWHY; i++)
		if (why & why_table[i].bit)
			str_appendf(buf, len, &k, "%s%s", k ? "," : "", why_table[i].name);
	return buf;
}

unsigned corr__why_congestion(void)
{
	unsigned m = 0;

	for (size_t i = 0; i < CORR_NWHY; i++)
		if (why_table[i].congestion)
			m |= why_table[i].bit;
	return m;
}

/* The budget's item kinds: JSON name, text label, the cause's word in a
 * timeline, whether `count` is of events (worth printing before the label),
 * and whether the item's flow says where its loss was going (a retransmit
 * repairs a loss anywhere on the path; a local drop's place is its own). */
static const struct {
	const char *name, *label, *cause;
	bool events, toward;
} cost_kinds[CORR_NCOSTS] = {
	[CORR_COST_QUEUE] = { "queue", "queueing", "queue", false, false },
	[CORR_COST_SHAPER] = { "shaper", "shaper", "shaper", false, false },
	[CORR_COST_RTO] = { "rto", "RTO retransmits", "retrans", true, true },
	[CORR_COST_FAST] = { "fast_retransmit", "fast retransmits", "retrans", true, true },
	[CORR_COST_TLP] = { "tail_loss_probe", "tail-loss probes", "retrans", true, true },
	[CORR_COST_LOCAL_DROP] = { "local_drop_stall", "stalls after a local drop", "local-drop", true, false },
	[CORR_COST_DROP] = { "drop", "congestion drops", "drops", true, false },
	[CORR_COST_PAUSE] = { "pause", "pause", "pause", false, false },
	[CORR_COST_CNP] = { "cnp", "congestion counters", "cnp", false, false },
	[CORR_COST_RDMA_LOSS] = { "rdma_loss", "RDMA loss counters", "rdma-loss", false, false },
	[CORR_COST_CARRIED] = { "carried", "late from the previous collective", "carried", false, false },
};

const char *corr__cost_name(unsigned kind)
{
	return kind < CORR_NCOSTS ? cost_kinds[kind].name : "unknown";
}

const char *corr__cost_label(unsigned kind)
{
	return kind < CORR_NCOSTS ? cost_kinds[kind].label : "unknown";
}

const char *corr__cost_cause(unsigned kind)
{
	return kind < CORR_NCOSTS ? cost_kinds[kind].cause : "network";
}

bool corr__cost_counts_events(unsigned kind)
{
	return kind < CORR_NCOSTS && cost_kinds[kind].events;
}

bool corr__cost_names_path(unsigned kind)
{
	return kind < CORR_NCOSTS && cost_kinds[kind].toward;
}

const char *corr__share_name(unsigned share)
{
	static const char *const n[CORR_NSHARES] = {
		[CORR_SHARE_NONE] = NULL, [CORR_SHARE_WAITING] = "waiting", [CORR_SHARE_NETWORK] = "network",
		[CORR_SHARE_UNEXPLAINED] = "unexplained", [CORR_SHARE_TIE] = "tie",
	};

	return share < CORR_NSHARES ? n[share] : NULL;
}

const char *corr__expected_from_name(unsigned from)
{
	switch (from) {
	case CORR_EXPECTED_GROUP: return "group";
	case CORR_EXPECTED_BANDWIDTH: return "bandwidth";
	case CORR_EXPECTED_GROUP_MIN: return "group_min";
	case CORR_EXPECTED_RESIDUAL: return "residual";
	default: return "none";
	}
}

const char *corr__mode_name(enum corr_phases_mode m)
{
	switch (m) {
	case CORR_PHASES_PROBES: return "probes";
	case CORR_PHASES_INFERRED: return "inferred";
	default: return "auto";
	}
}

bool corr__op_waits_for_all(unsigned op)
{
	return op == FT_OP_ALLREDUCE || op == FT_OP_ALLGATHER || op == FT_OP_REDUCE_SCATTER ||
	       op == FT_OP_ALLTOALL || op == FT_OP_BARRIER;
}

bool corr__op_is_collective(unsigned op)
{
	return op >= FT_OP_ALLREDUCE && op <= FT_OP_SCATTER;
}

/* Ops whose nccl-tests size is the per-rank count times the ranks. */
static bool op_per_rank_count(unsigned op)
{
	return op == FT_OP_ALLGATHER || op == FT_OP_REDUCE_SCATTER || op == FT_OP_ALLTOALL ||
	       op == FT_OP_GATHER || op == FT_OP_SCATTER;
}

uint64_t corr__size_bytes(unsigned op, uint64_t bytes, uint32_t nranks, bool count_total)
{
	if (op == FT_OP_BARRIER)
		return 0;
	if (!op_per_rank_count(op) || count_total || !nranks)
		return bytes;
	if (bytes > UINT64_MAX / nranks)
		return UINT64_MAX;
	return bytes * nranks;
}

double corr__busbw_factor(unsigned op, uint32_t nranks)
{
	double n = nranks;

	if (nranks < 1)
		return 1.0;
	if (op == FT_OP_ALLREDUCE)
		return 2.0 * (n - 1.0) / n;
	if (op_per_rank_count(op))
		return (n - 1.0) / n;
	return 1.0;
}

bool corr__congestion_drop(const char *reason)
{
	return drop_reason__congestion(reason);
}
