// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NCCL profiler plugin's entry points (ncclprof.h): the exported
 * ncclProfiler_v1 .. _v6 tables NCCL looks for (ABI in ncclprof_abi.h),
 * whose functions normalise each version's descriptors and state arguments
 * (np_norm) and hand them to the version-independent bookkeeping
 * (ncclprof.c); and the hooks for the unit tests and the driver's bench.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/nccl_profiler/ncclprof.h"

static int activation_mask(void)
{
	const char *m = getenv("FABTRACE_NCCL_MASK");

	if (m && *m)
		return (int)strtol(m, NULL, 0);
	return NP_COLL | NP_P2P | NP_PROXY_OP | NP_PROXY_STEP | NP_KERNEL_CH | NP_NET_PLUGIN;
}

static nccl_result_t init_v1(void **ctx, int *mask)
{
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 1, 0, -1, -1);
}

static nccl_result_t init_v2(void **ctx, int *mask)
{
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 2, 0, -1, -1);
}

static nccl_result_t init_v3(void **ctx, int *mask)
{
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 3, 0, -1, -1);
}

static nccl_result_t init_v4(void **ctx, int *mask, const char *name, uint64_t hash, int nnodes,
			     int nranks, int rank, nccl_logger_t log)
{
	(void)name, (void)nnodes, (void)log;
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 4, hash, nranks, rank);
}

static nccl_result_t init_v5(void **ctx, uint64_t hash, int *mask, const char *name, int nnodes,
			     int nranks, int rank, nccl_logger_t log)
{
	(void)name, (void)nnodes, (void)log;
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 5, hash, nranks, rank);
}

static nccl_result_t init_v6(void **ctx, uint64_t hash, int *mask, const char *name, int nnodes,
			     int nranks, int rank, nccl_logger_t log)
{
	(void)name, (void)nnodes, (void)log;
	*mask = activation_mask();
	return np_init((struct np_ctx **)ctx, 6, hash, nranks, rank);
}

static const char *v1_algo(uint8_t a)
{
	static const char *const n[] = { "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS",
					 "NVLSTree", "PAT" };

	return a < sizeof(n) / sizeof(n[0]) ? n[a] : "?";
}

static const char *v1_proto(uint8_t p)
{
	static const char *const n[] = { "LL", "LL128", "Simple" };

	return p < sizeof(n) / sizeof(n[0]) ? n[p] : "?";
}

/* the common part of every descriptor: proxy ops, steps, kernel channels */
#define NORM_CHILDREN(d, e)                                             \
	do {                                                            \
		(e)->pid = (d)->proxyOp.pid;                            \
		(e)->channel = (d)->proxyOp.channelId;                  \
		(e)->root_peer = (d)->proxyOp.peer;                     \
		(e)->nsteps = (d)->proxyOp.nSteps;                      \
		(e)->is_send = (d)->proxyOp.isSend;                     \
	} while (0)

/* Normalise a descriptor of ABI version `v` (also used by the unit tests). */
int np_norm(int v, const void *descr, struct np_ev *e)
{
	memset(e, 0, sizeof(*e));
	e->root_peer = -1;
	if (v == 1) {
		const struct np_descr_v1 *d = descr;

		e->type = d->type;
		e->parent = d->parentObj;
		e->rank = d->rank;
		if (e->type == NP_COLL) {
			static const char *const fn[] = { "Broadcast", "Reduce", "AllGather",
							  "ReduceScatter", "AllReduce", "SendRecv",
							  "Send", "Recv" };

			e->comm_hash = d->coll.commHash;
			e->seq = d->coll.seqNumber;
			e->has_seq = true;
			e->func = d->coll.func < 8 ? fn[d->coll.func] : "?";
			e->count = d->coll.count;
			e->root_peer = d->coll.root;
			e->dtype_size = ph_nccl_dtype_size(d->coll.datatype);
			e->nchannels = d->coll.nMaxChannels;
			e->algo = v1_algo(d->coll.algo);
			e->proto = v1_proto(d->coll.proto);
		} else if (e->type == NP_P2P) {
			e->comm_hash = d->p2p.commHash;
			e->func = np_func_op_v1(d->p2p.func) == FT_OP_SEND ? "Send" : "Recv";
			e->count = d->p2p.count;
			e->root_peer = d->p2p.peer;
			e->dtype_size = ph_nccl_dtype_size(d->p2p.datatype);
		} else if (e->type == NP_PROXY_OP) {
			NORM_CHILDREN(d, e);
		}
		return 0;
	}
	if (v == 2 || v == 3) {
		const struct np_descr_v2 *d2 = descr;
		const struct np_descr_v3 *d3 = descr;

		/* type, parent, rank, and p2p/proxyOp are where v2 and v3 agree */
		e->type = d2->type;
		e->parent = d2->parentObj;
		e->rank = d2->rank;
		if (e->type == NP_COLL) {
			e->comm_hash = d2->coll.commHash;
			e->seq = d2->coll.seqNumber;
			e->has_seq = true;
			e->func = d2->coll.func;
			e->count = d2->coll.count;
			e->root_peer = d2->coll.root;
			e->dtype_size = np_dtype_size(d2->coll.datatype);
			e->nchannels = v == 2 ? d2->coll.nMaxChannels : d3->coll.nMaxChannels;
			e->algo = v == 2 ? d2->coll.algo : d3->coll.algo;
			e->proto = v == 2 ? d2->coll.proto : d3->coll.proto;
		} else if (e->type == NP_P2P) {
			e->comm_hash = d2->p2p.commHash;
			e->func = d2->p2p.func;
			e->count = d2->p2p.count;
			e->root_peer = d2->p2p.peer;
			e->dtype_size = np_dtype_size(d2->p2p.datatype);
		} else if (e->type == NP_PROXY_OP) {
			NORM_CHILDREN(d2, e);
		} else if (e->type == NP_KERNEL_CH && v == 3) {
			e->channel = d3->kernelCh.channelId;
		}
		return 0;
	}
	if (v >= 4 && v <= 6) {
		const struct np_descr_v4 *d4 = descr;
		const struct np_descr_v5 *d5 = descr;

		/* v5/v6 widen `type` to 64 bits at the same offset: the union is where v4 has it */
		e->type = v == 4 ? d4->type : (int)d5->type;
		e->parent = d4->parentObj;
		e->rank = d4->rank;
		if (e->type == NP_COLL) {
			e->seq = d4->coll.seqNumber;
			e->has_seq = true;
			e->func = d4->coll.func;
			e->count = d4->coll.count;
			e->root_peer = d4->coll.root;
			e->dtype_size = np_dtype_size(d4->coll.datatype);
			e->nchannels = d4->coll.nChannels;
			e->algo = d4->coll.algo;
			e->proto = d4->coll.proto;
		} else if (e->type == NP_P2P) {
			e->func = d4->p2p.func;
			e->count = d4->p2p.count;
			e->root_peer = d4->p2p.peer;
			e->dtype_size = np_dtype_size(d4->p2p.datatype);
			e->nchannels = d4->p2p.nChannels;
		} else if (e->type == NP_PROXY_OP) {
			NORM_CHILDREN(d4, e);
		} else if (e->type == NP_KERNEL_CH) {
			e->channel = d4->kernelCh.channelId;
			e->ptimer = d4->kernelCh.pTimer;
		}
		return 0;
	}
	return -EINVAL;
}

#define START_FN(V)                                                                        \
	static nccl_result_t start_v##V(void *ctx, void **h, void *descr)                  \
	{                                                                                  \
		struct np_ev e;                                                            \
		*h = NULL;                                                                 \
		if (!descr || np_norm(V, descr, &e))                                       \
			return NP_SUCCESS;                                                 \
		return np_start(ctx, h, &e);                                               \
	}
START_FN(1)
START_FN(2)
START_FN(3)
START_FN(4)
START_FN(5)
START_FN(6)

static nccl_result_t state_v1(void *h, int st, void *args)
{
	const union np_state_v1 *a = args;

	return np_state(h, st, 0, a ? a->proxyOp.transSize : 0, a ? a->proxyOp.steps : 0);
}

static nccl_result_t state_v4(void *h, int st, void *args)
{
	const union np_state_v4 *a = args;
	const struct np_obj *o = h;
	uint64_t pt = 0, ts = 0;

	if (a && o && o->kind == NPO_KERNEL_CH)
		pt = a->kernelCh.pTimer;
	else if (a && o && o->kind == NPO_PROXY_STEP)
		ts = a->proxyStep.transSize;
	return np_state(h, st, pt, ts, 0);
}

static nccl_result_t stop_any(void *h)
{
	return np_stop(h);
}

static nccl_result_t fin_any(void *ctx)
{
	return np_finalize(ctx);
}

NP_API const struct np_table_v1 ncclProfiler_v1 = { "fabtrace", init_v1, start_v1, stop_any,
						    state_v1, fin_any };
NP_API const struct np_table_v1 ncclProfiler_v2 = { "fabtrace", init_v2, start_v2, stop_any,
						    state_v1, fin_any };
NP_API const struct np_table_v1 ncclProfiler_v3 = { "fabtrace", init_v3, start_v3, stop_any,
						    state_v1, fin_any };
NP_API const struct np_table_v4 ncclProfiler_v4 = { "fabtrace", init_v4, start_v4, stop_any,
						    state_v4, fin_any };
NP_API const struct np_table_v5 ncclProfiler_v5 = { "fabtrace", init_v5, start_v5, stop_any,
						    state_v4, fin_any };
NP_API const struct np_table_v5 ncclProfiler_v6 = { "fabtrace", init_v6, start_v6, stop_any,
						    state_v4, fin_any };

/* hooks for the unit tests and the driver's bench (not part of NCCL's ABI) */
NP_API void fabtrace_ncclprof_set_emit(np_emit_fn fn);
NP_API void fabtrace_ncclprof_stats(struct np_stats *out);

void fabtrace_ncclprof_set_emit(np_emit_fn fn)
{
	np_set_emit(fn);
}

void fabtrace_ncclprof_stats(struct np_stats *out)
{
	np_get_stats(out);
}
