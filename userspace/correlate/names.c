// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names and nccl-tests formulas of the correlator (see correlate.h):
 * option defaults, op / library / verdict / mode names, collective ops, the
 * nccl-tests size and bus-bandwidth factor, congestion drop reasons.  Pure
 * functions without state, apart from the stages that use them.
 */
#include <string.h>

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
	switch (v) {
	case CORR_OK: return "ok";
	case CORR_NETWORK: return "network";
	case CORR_RANK: return "rank";
	default: return "unknown";
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
