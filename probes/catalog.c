// SPDX-License-Identifier: GPL-2.0-or-later
/* The phase probes' function catalog and --phase parsing (see catalog.h). */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/catalog.h"
#include "probes/elfsyms.h"
#include "lib/util.h"

/* Argument descriptions: position i (0-based integer slot). */
#define AU(i)    { (i) + 1, 0, 0 }                          /* unsigned int / int handle */
#define AI(i)    { (i) + 1, PH_F_SIGNED, 0 }                /* int */
#define AP(i)    { (i) + 1, PH_F_64, 0 }                    /* pointer, size_t, uint64_t */
/*
 * Fields of the struct argument 0 points to (Gloo's options, `this`), spelt
 * out as { 1 (= argument 0 + 1), flags, offset }: D32 an int, D64 64 bits.
 */
#define D32 (PH_F_DEREF | PH_F_SIGNED)
#define D64 (PH_F_DEREF | PH_F_64)
#define DU32 PH_F_DEREF /* an unsigned 32-bit field (Gloo's uint32_t tag) */

#define COLL  FT_SLOT_COLLECTIVE
#define NBC   (FT_SLOT_COLLECTIVE | FT_SLOT_NONBLOCKING)
#define ENQ   FT_SLOT_ENQUEUE_ONLY

/* MPI: comm and dtype get their width/meaning from the library's flavor. */
#define MPI_FN(sym, nm, o, fl, ...) \
	{ .symbol = sym, .lib = FT_LIB_MPI, .op = o, .kind = PH_K_CALL, .slot_flags = fl, \
	  .name = nm, __VA_ARGS__ }
#define MPI_WAIT(sym, nm, c, test, ...) \
	{ .symbol = sym, .lib = FT_LIB_MPI, .op = FT_OP_COMPLETION, .kind = PH_K_COMPLETION, \
	  .comp = c, .slot_flags = FT_SLOT_COMPLETION, \
	  .cfg = (test) ? (PH_CFG_TEST | PH_CFG_NO_PHASE) : 0, .name = nm, __VA_ARGS__ }

/* NCCL: size_t counts, ncclDataType_t, ncclComm_t pointers; returns at enqueue. */
#define NCCL_FN(sym, nm, o, fl, ...) \
	{ .symbol = sym, .lib = FT_LIB_NCCL, .op = o, .kind = PH_K_CALL, .slot_flags = (fl) | ENQ, \
	  .dtype_kind = PH_DT_NCCL, .name = nm, __VA_ARGS__ }

/*
 * ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank):
 * the 128-byte id is passed in memory on x86-64 (no register), by reference
 * (one register) on arm64.
 */
#if defined(__aarch64__)
#define NCCL_INIT_RANK_ARG 3
#else
#define NCCL_INIT_RANK_ARG 2
#endif

/*
 * Gloo (Debian libgloo 0.0~git20220518; offsets checked with offsetof):
 * options structs start with std::shared_ptr<Context> (the Context * at 0);
 * AllreduceOptions: elements at 80, elementSize at 88; Broadcast/Reduce
 * options: elements 32, elementSize 40, root 48.  Algorithms (this = arg 0):
 * vtable, shared_ptr<Context> context_ at 8; AllreduceRing* and
 * HalvingDoubling: int count_ at 56, int bytes_ at 60; AllgatherRing: 64/68;
 * BroadcastOneToAll: size_t count_ 56, bytes_ 64, int rootRank_ 72.
 * gloo::Context: int rank at 8, int size at 12 (after the vtable).
 * Each options struct's uint32_t tag (its offset below, per struct): the
 * caller's number for the collective, equal on every rank.  PyTorch's
 * ProcessGroupGloo numbers each process group's collectives with it
 * (collectiveCounter_), whichever of the group's contexts and worker
 * threads runs them, so it is the cross-rank sequence (see userspace/correlate/matching.c).
 */
#define GLOO_FN(sym, nm, o, ...) \
	{ .symbol = sym, .prefix = true, .lib = FT_LIB_GLOO, .op = o, .kind = PH_K_CALL, \
	  .slot_flags = COLL, .cfg = PH_CFG_CTX_INFO, .ctx_off = 8, .name = nm, \
	  .comm = { 1, D64, 0 }, __VA_ARGS__ }
#define GLOO_ALGO(sym, nm, o, ...) \
	{ .symbol = sym, .suffix = "::run()", .prefix = true, .lib = FT_LIB_GLOO, .op = o, \
	  .kind = PH_K_CALL, .slot_flags = COLL, .cfg = PH_CFG_CTX_INFO, .ctx_off = 8, \
	  .name = nm, .comm = { 1, D64, 8 }, __VA_ARGS__ }

/*
 * fabtrace's NCCL profiler plugin (probes/nccl_profiler): empty functions
 * whose argument 0 points to a struct ph_plugin_ev with the collective's own
 * times (bpf/phase.h).  One function per operation: the slot gives the op.
 */
#define PLUG_FN(sym, nm, o, fl) \
	{ .symbol = (sym), .lib = FT_LIB_NCCL, .op = (o), .kind = PH_K_PLUGIN, \
	  .slot_flags = (fl) | FT_SLOT_PLUGIN, .name = (nm) }

#define MARK_FN(sym, nm, o, extra, ...) \
	{ .symbol = sym, .lib = FT_LIB_MARKER, .op = o, .kind = PH_K_MARK, \
	  .slot_flags = FT_SLOT_MARKER, .cfg = extra, .name = nm, __VA_ARGS__ }

static const struct cat_func catalog[] = {
	/* ---- MPI collectives (MPI-3 C bindings) ---- */
	MPI_FN("MPI_Allreduce", "allreduce", FT_OP_ALLREDUCE, COLL,
	       .count = AI(2), .dtype = AU(3), .comm = AU(5)),
	MPI_FN("MPI_Reduce_scatter", "reduce_scatter", FT_OP_REDUCE_SCATTER, COLL,
	       .vcounts = AP(2), .dtype = AU(3), .comm = AU(5)),
	MPI_FN("MPI_Reduce_scatter_block", "reduce_scatter_block", FT_OP_REDUCE_SCATTER, COLL,
	       .count = AI(2), .dtype = AU(3), .comm = AU(5)),
	MPI_FN("MPI_Allgather", "allgather", FT_OP_ALLGATHER, COLL,
	       .count = AI(1), .dtype = AU(2), .comm = AU(6)),
	MPI_FN("MPI_Allgatherv", "allgatherv", FT_OP_ALLGATHER, COLL,
	       .count = AI(1), .vcounts = AP(4), .dtype = AU(2), .comm = AU(7),
	       .cfg = PH_CFG_VFALLBACK),
	MPI_FN("MPI_Bcast", "bcast", FT_OP_BCAST, COLL,
	       .count = AI(1), .dtype = AU(2), .peer = AI(3), .comm = AU(4)),
	MPI_FN("MPI_Reduce", "reduce", FT_OP_REDUCE, COLL,
	       .count = AI(2), .dtype = AU(3), .peer = AI(5), .comm = AU(6)),
	MPI_FN("MPI_Alltoall", "alltoall", FT_OP_ALLTOALL, COLL,
	       .count = AI(1), .dtype = AU(2), .comm = AU(6)),
	MPI_FN("MPI_Alltoallv", "alltoallv", FT_OP_ALLTOALL, COLL,
	       .vcounts = AP(1), .dtype = AU(3), .comm = AU(8)),
	MPI_FN("MPI_Barrier", "barrier", FT_OP_BARRIER, COLL, .comm = AU(0)),
	MPI_FN("MPI_Gather", "gather", FT_OP_GATHER, COLL,
	       .count = AI(1), .dtype = AU(2), .peer = AI(6), .comm = AU(7)),
	MPI_FN("MPI_Scatter", "scatter", FT_OP_SCATTER, COLL,
	       .count = AI(4), .dtype = AU(5), .peer = AI(6), .comm = AU(7)),
	/* ---- point to point (pipeline traffic) ---- */
	MPI_FN("MPI_Send", "send", FT_OP_SEND, 0,
	       .count = AI(1), .dtype = AU(2), .peer = AI(3), .comm = AU(5)),
	MPI_FN("MPI_Recv", "recv", FT_OP_RECV, 0,
	       .count = AI(1), .dtype = AU(2), .peer = AI(3), .comm = AU(5)),
	MPI_FN("MPI_Sendrecv", "sendrecv", FT_OP_SENDRECV, 0,
	       .count = AI(1), .dtype = AU(2), .peer = AI(3), .comm = AU(10)),
	/* ---- non-blocking collectives: end at their request's completion ---- */
	MPI_FN("MPI_Iallreduce", "iallreduce", FT_OP_ALLREDUCE, NBC,
	       .count = AI(2), .dtype = AU(3), .comm = AU(5), .req = AP(6)),
	MPI_FN("MPI_Ireduce_scatter", "ireduce_scatter", FT_OP_REDUCE_SCATTER, NBC,
	       .vcounts = AP(2), .dtype = AU(3), .comm = AU(5), .req = AP(6)),
	MPI_FN("MPI_Ireduce_scatter_block", "ireduce_scatter_block", FT_OP_REDUCE_SCATTER, NBC,
	       .count = AI(2), .dtype = AU(3), .comm = AU(5), .req = AP(6)),
	MPI_FN("MPI_Iallgather", "iallgather", FT_OP_ALLGATHER, NBC,
	       .count = AI(1), .dtype = AU(2), .comm = AU(6), .req = AP(7)),
	MPI_FN("MPI_Ibcast", "ibcast", FT_OP_BCAST, NBC,
	       .count = AI(1), .dtype = AU(2), .peer = AI(3), .comm = AU(4), .req = AP(5)),
	MPI_FN("MPI_Ireduce", "ireduce", FT_OP_REDUCE, NBC,
	       .count = AI(2), .dtype = AU(3), .peer = AI(5), .comm = AU(6), .req = AP(7)),
	MPI_FN("MPI_Ialltoall", "ialltoall", FT_OP_ALLTOALL, NBC,
	       .count = AI(1), .dtype = AU(2), .comm = AU(6), .req = AP(7)),
	MPI_FN("MPI_Ibarrier", "ibarrier", FT_OP_BARRIER, NBC, .comm = AU(0), .req = AP(1)),
	/* ---- completion: which requests finished ---- */
	MPI_WAIT("MPI_Wait", "wait", PH_COMP_ONE, 0, .reqs = AP(0)),
	MPI_WAIT("MPI_Waitall", "waitall", PH_COMP_ALL, 0, .nreqs = AI(0), .reqs = AP(1)),
	MPI_WAIT("MPI_Waitany", "waitany", PH_COMP_ANY, 0,
		 .nreqs = AI(0), .reqs = AP(1), .index = AP(2)),
	MPI_WAIT("MPI_Waitsome", "waitsome", PH_COMP_SOME, 0,
		 .nreqs = AI(0), .reqs = AP(1), .index = AP(2), .indices = AP(3)),
	MPI_WAIT("MPI_Test", "test", PH_COMP_ONE, 1, .reqs = AP(0), .flag = AP(1)),
	MPI_WAIT("MPI_Testall", "testall", PH_COMP_ALL, 1,
		 .nreqs = AI(0), .reqs = AP(1), .flag = AP(2)),
	/* Testany: the index is MPI_UNDEFINED unless a request completed */
	MPI_WAIT("MPI_Testany", "testany", PH_COMP_ANY, 1,
		 .nreqs = AI(0), .reqs = AP(1), .index = AP(2)),
	MPI_WAIT("MPI_Testsome", "testsome", PH_COMP_SOME, 1,
		 .nreqs = AI(0), .reqs = AP(1), .index = AP(2), .indices = AP(3)),
	/* ---- who is who ---- */
	{ .symbol = "MPI_Comm_rank", .lib = FT_LIB_MPI, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_COMM_RANK, .cfg = PH_CFG_NO_PHASE, .name = "comm_rank",
	  .comm = AU(0), .out = AP(1) },
	{ .symbol = "MPI_Comm_size", .lib = FT_LIB_MPI, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_COMM_SIZE, .cfg = PH_CFG_NO_PHASE, .name = "comm_size",
	  .comm = AU(0), .out = AP(1) },

	/* ---- NCCL (host-side enqueue) ---- */
	NCCL_FN("ncclAllReduce", "allreduce", FT_OP_ALLREDUCE, COLL,
		.count = AP(2), .dtype = AU(3), .comm = AP(5)),
	NCCL_FN("ncclReduceScatter", "reduce_scatter", FT_OP_REDUCE_SCATTER, COLL,
		.count = AP(2), .dtype = AU(3), .comm = AP(5)),
	NCCL_FN("ncclAllGather", "allgather", FT_OP_ALLGATHER, COLL,
		.count = AP(2), .dtype = AU(3), .comm = AP(4)),
	NCCL_FN("ncclBroadcast", "broadcast", FT_OP_BCAST, COLL,
		.count = AP(2), .dtype = AU(3), .peer = AI(4), .comm = AP(5)),
	NCCL_FN("ncclBcast", "bcast", FT_OP_BCAST, COLL,
		.count = AP(1), .dtype = AU(2), .peer = AI(3), .comm = AP(4)),
	NCCL_FN("ncclReduce", "reduce", FT_OP_REDUCE, COLL,
		.count = AP(2), .dtype = AU(3), .peer = AI(5), .comm = AP(6)),
	NCCL_FN("ncclSend", "send", FT_OP_SEND, 0,
		.count = AP(1), .dtype = AU(2), .peer = AI(3), .comm = AP(4)),
	NCCL_FN("ncclRecv", "recv", FT_OP_RECV, 0,
		.count = AP(1), .dtype = AU(2), .peer = AI(3), .comm = AP(4)),
	NCCL_FN("ncclGroupStart", "group_start", FT_OP_GROUP_START, 0),
	NCCL_FN("ncclGroupEnd", "group_end", FT_OP_GROUP_END, 0),
	NCCL_FN("ncclAlltoAll", "alltoall", FT_OP_ALLTOALL, COLL,
		.count = AP(2), .dtype = AU(3), .comm = AP(4)),
	NCCL_FN("ncclGather", "gather", FT_OP_GATHER, COLL,
		.count = AP(2), .dtype = AU(3), .peer = AI(4), .comm = AP(5)),
	NCCL_FN("ncclScatter", "scatter", FT_OP_SCATTER, COLL,
		.count = AP(2), .dtype = AU(3), .peer = AI(4), .comm = AP(5)),
	{ .symbol = "ncclCommInitRank", .lib = FT_LIB_NCCL, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_COMM_INIT, .slot_flags = ENQ, .name = "comm_init_rank",
	  .out = AP(0), .nranks = AI(1), .rank = AI(NCCL_INIT_RANK_ARG) },
	/* ncclCommInitRankConfig(comm *, nranks, ncclUniqueId, rank, config *): as InitRank */
	{ .symbol = "ncclCommInitRankConfig", .lib = FT_LIB_NCCL, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_COMM_INIT, .slot_flags = ENQ, .name = "comm_init_rank_config",
	  .out = AP(0), .nranks = AI(1), .rank = AI(NCCL_INIT_RANK_ARG) },
	/* ncclCommInitRankScalable(comm *, nranks, myrank, nId, ncclUniqueId *ids, config *) */
	{ .symbol = "ncclCommInitRankScalable", .lib = FT_LIB_NCCL, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_COMM_INIT, .slot_flags = ENQ, .name = "comm_init_rank_scalable",
	  .out = AP(0), .nranks = AI(1), .rank = AI(2) },
	/* new communicators whose rank NCCL computes: entry and return only */
	NCCL_FN("ncclCommSplit", "comm_split", FT_OP_COMM_INIT, 0, .comm = AP(0)),
	NCCL_FN("ncclCommShrink", "comm_shrink", FT_OP_COMM_INIT, 0, .comm = AP(0)),
	NCCL_FN("ncclCommInitAll", "comm_init_all", FT_OP_COMM_INIT, 0, .count = AI(1)),
	NCCL_FN("ncclCommFinalize", "comm_finalize", FT_OP_CUSTOM, 0, .comm = AP(0)),
	NCCL_FN("ncclCommDestroy", "comm_destroy", FT_OP_CUSTOM, 0, .comm = AP(0)),
	NCCL_FN("ncclCommAbort", "comm_abort", FT_OP_CUSTOM, 0, .comm = AP(0)),

	/* ---- NCCL as the GPU ran it: fabtrace's profiler plugin ---- */
	{ .symbol = "fabtrace_nccl_comm", .lib = FT_LIB_NCCL, .op = FT_OP_COMM_INIT,
	  .kind = PH_K_PLUGIN, .slot_flags = FT_SLOT_PLUGIN, .cfg = PH_CFG_PLUGIN_COMM | PH_CFG_NO_PHASE,
	  .name = "plugin_comm" },
	PLUG_FN("fabtrace_nccl_allreduce", "allreduce", FT_OP_ALLREDUCE, COLL),
	PLUG_FN("fabtrace_nccl_reduce_scatter", "reduce_scatter", FT_OP_REDUCE_SCATTER, COLL),
	PLUG_FN("fabtrace_nccl_allgather", "allgather", FT_OP_ALLGATHER, COLL),
	PLUG_FN("fabtrace_nccl_broadcast", "broadcast", FT_OP_BCAST, COLL),
	PLUG_FN("fabtrace_nccl_reduce", "reduce", FT_OP_REDUCE, COLL),
	PLUG_FN("fabtrace_nccl_alltoall", "alltoall", FT_OP_ALLTOALL, COLL),
	PLUG_FN("fabtrace_nccl_gather", "gather", FT_OP_GATHER, COLL),
	PLUG_FN("fabtrace_nccl_scatter", "scatter", FT_OP_SCATTER, COLL),
	PLUG_FN("fabtrace_nccl_coll_other", "coll_other", FT_OP_CUSTOM, COLL),
	PLUG_FN("fabtrace_nccl_send", "send", FT_OP_SEND, 0),
	PLUG_FN("fabtrace_nccl_recv", "recv", FT_OP_RECV, 0),
	/* a proxy operation: one channel's transfers with one peer (network) */
	PLUG_FN("fabtrace_nccl_proxy_op", "proxy_op", FT_OP_CUSTOM, 0),

	/* ---- Gloo: the function API (bytes where the options layout is known) ---- */
	GLOO_FN("gloo::allreduce(", "allreduce", FT_OP_ALLREDUCE, .libseq = { 1, DU32, 128 },
		.count = { 1, D64, 80 }, .dtype = { 1, D64, 88 }, .dtype_kind = PH_DT_SIZE),
	GLOO_FN("gloo::broadcast(", "broadcast", FT_OP_BCAST, .libseq = { 1, DU32, 52 },
		.count = { 1, D64, 32 }, .dtype = { 1, D64, 40 }, .dtype_kind = PH_DT_SIZE, .peer = { 1, D32, 48 }),
	GLOO_FN("gloo::reduce(", "reduce", FT_OP_REDUCE, .libseq = { 1, DU32, 88 },
		.count = { 1, D64, 32 }, .dtype = { 1, D64, 40 }, .dtype_kind = PH_DT_SIZE, .peer = { 1, D32, 48 }),
	GLOO_FN("gloo::allgather(", "allgather", FT_OP_ALLGATHER, .libseq = { 1, DU32, 40 }),
	GLOO_FN("gloo::allgatherv(", "allgatherv", FT_OP_ALLGATHER, .libseq = { 1, DU32, 64 }),
	GLOO_FN("gloo::reduce_scatter", "reduce_scatter", FT_OP_REDUCE_SCATTER),
	GLOO_FN("gloo::alltoall(", "alltoall", FT_OP_ALLTOALL, .libseq = { 1, DU32, 40 }),
	GLOO_FN("gloo::alltoallv(", "alltoallv", FT_OP_ALLTOALL, .libseq = { 1, DU32, 136 }),
	GLOO_FN("gloo::barrier(", "barrier", FT_OP_BARRIER, .libseq = { 1, DU32, 24 }),
	GLOO_FN("gloo::gather(", "gather", FT_OP_GATHER, .libseq = { 1, DU32, 44 }),
	GLOO_FN("gloo::scatter(", "scatter", FT_OP_SCATTER, .libseq = { 1, DU32, 60 }),
	/* ---- Gloo: algorithm classes (templates, compiled into the application) ---- */
	GLOO_ALGO("gloo::AllreduceRing<", "allreduce_ring", FT_OP_ALLREDUCE,
		  .count = { 1, D32, 56 }, .dtype = { 1, D32, 60 }, .dtype_kind = PH_DT_RATIO),
	GLOO_ALGO("gloo::AllreduceRingChunked<", "allreduce_ring_chunked", FT_OP_ALLREDUCE,
		  .count = { 1, D32, 56 }, .dtype = { 1, D32, 60 }, .dtype_kind = PH_DT_RATIO),
	GLOO_ALGO("gloo::AllreduceHalvingDoubling<", "allreduce_hd", FT_OP_ALLREDUCE,
		  .count = { 1, D32, 56 }, .dtype = { 1, D32, 60 }, .dtype_kind = PH_DT_RATIO),
	GLOO_ALGO("gloo::AllreduceBcube<", "allreduce_bcube", FT_OP_ALLREDUCE),
	GLOO_ALGO("gloo::AllgatherRing<", "allgather_ring", FT_OP_ALLGATHER,
		  .count = { 1, D32, 64 }, .dtype = { 1, D32, 68 }, .dtype_kind = PH_DT_RATIO),
	GLOO_ALGO("gloo::BroadcastOneToAll<", "broadcast_one_to_all", FT_OP_BCAST,
		  .count = { 1, D64, 56 }, .dtype = { 1, D64, 64 }, .dtype_kind = PH_DT_RATIO,
		  .peer = { 1, D32, 72 }),
	GLOO_ALGO("gloo::ReduceScatterHalvingDoubling<", "reduce_scatter_hd", FT_OP_REDUCE_SCATTER),
	GLOO_ALGO("gloo::BarrierAllToAll::run(", "barrier_all_to_all", FT_OP_BARRIER),
	GLOO_ALGO("gloo::BarrierAllToOne::run(", "barrier_all_to_one", FT_OP_BARRIER),
	/*
	 * A Gloo operation timed out: its unbound buffer's wait (waitRecv,
	 * waitSend) signals the context, which closes every pair ("Application
	 * timeout caused pair closure"), then throws.  The throw may end the
	 * process (std::terminate on a worker thread: PyTorch 1.13's DDP), so
	 * this call, which returns, is the moment to see.
	 */
	{ .symbol = "gloo::transport::tcp::Context::signalException(", .prefix = true,
	  .lib = FT_LIB_GLOO, .op = FT_OP_CUSTOM, .kind = PH_K_CALL, .name = CATALOG_GLOO_TIMEOUT },
	/*
	 * PyTorch's ProcessGroupGloo (libtorch_cpu): a collective's work failed
	 * on its worker thread (a Gloo timeout, a lost peer), where it catches
	 * the exception Gloo threw.  Gloo's own calls never return then (the
	 * exception unwinds past their return probes): this is the moment the
	 * rules' job.timeout sees.
	 */
	{ .symbol = "c10d::ProcessGroupGloo::AsyncWork::finishWorkGlooError(", .prefix = true,
	  .lib = FT_LIB_GLOO, .op = FT_OP_CUSTOM, .kind = PH_K_CALL, .name = CATALOG_GLOO_ERROR },

	/* ---- the marker library (probes/marker) ---- */
	MARK_FN("fabtrace_step_begin", "step_begin", FT_OP_STEP, 0, .count = AP(0)),
	MARK_FN("fabtrace_step_end", "step_end", FT_OP_STEP, PH_CFG_MARK_END, .count = AP(0)),
	MARK_FN("fabtrace_phase_begin", "phase_begin", FT_OP_MARK, PH_CFG_MARK_STR, .mark = AP(0)),
	MARK_FN("fabtrace_phase_end", "phase_end", FT_OP_MARK, PH_CFG_MARK_STR | PH_CFG_MARK_END,
		.mark = AP(0)),
};

size_t catalog__count(void)
{
	return sizeof(catalog) / sizeof(catalog[0]);
}

const struct cat_func *catalog__get(size_t i)
{
	return i < catalog__count() ? &catalog[i] : NULL;
}

const struct cat_func *catalog__find(const char *symbol)
{
	for (size_t i = 0; i < catalog__count(); i++)
		if (strcmp(catalog[i].symbol, symbol) == 0)
			return &catalog[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool catalog__matches(const struct cat_func *f, const char *name, const char *demangled)
{
	if (!f->prefix) {
		/* the profiling alias PMPI_X is the same function as MPI_X */
		if (strcmp(name, f->symbol) == 0)
			return true;
		return strncmp(name, "PMPI_", 5) == 0 && strncmp(f->symbol, "MPI_", 4) == 0 &&
		       strcmp(name + 1, f->symbol) == 0;
	}
	if (!demangled || strncmp(demangled, f->symbol, strlen(f->symbol)) != 0)
		return false;
	return !f->suffix || ends_with(demangled, f->suffix);
}

uint32_t catalog__dtype_size(enum ph_dtype kind, uint64_t v)
{
	switch (kind) {
	case PH_DT_MPICH:
		return ph_mpich_dtype_size((uint32_t)v);
	case PH_DT_NCCL:
		return ph_nccl_dtype_size((uint32_t)v);
	case PH_DT_SIZE:
		return v < 65536 ? (uint32_t)v : 0;
	default:
		return 0;
	}
}

static struct ph_field field(struct cat_arg a)
{
	struct ph_field f = { PH_NOARG, 0, 0 };

	if (a.pos1) {
		f.arg = (uint8_t)(a.pos1 - 1);
		f.flags = a.flags;
		f.off = a.off;
	}
	return f;
}

/* Open MPI: MPI_Datatype -> ompi_datatype_t whose opal_datatype_t size_t size is at 24. */
#define OMPI_DTYPE_SIZE_OFF 24
/*
 * Open MPI: MPI_Comm -> ompi_communicator_t, char c_name[MPI_MAX_OBJECT_NAME]
 * at 160 (after opal_infosubscriber_t and opal_mutex_t; Open MPI 4.1, read
 * off Debian 12's 4.1.4 by finding "MPI_COMM_WORLD" in the object).  The
 * correlator trusts the names only where a process's show Open MPI's own
 * pattern, so a build with another layout falls back to pointers.
 */
#define OMPI_COMM_NAME_OFF 160
/* MPICH: MPI_REQUEST_NULL (completion calls skip it). */
#define MPICH_REQUEST_NULL 0x2c000000u

void catalog__cfg(const struct cat_func *f, enum cat_mpi_flavor flavor, struct ph_slot_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->slot_flags = f->slot_flags;
	c->cfg = f->cfg;
	c->kind = f->kind;
	c->dtype_kind = f->dtype_kind;
	c->comp = f->comp;
	c->op = f->op;
	c->ctx_off = f->ctx_off;
	c->count = field(f->count);
	c->vcounts = field(f->vcounts);
	c->dtype = field(f->dtype);
	c->comm = field(f->comm);
	c->peer = field(f->peer);
	c->req = field(f->req);
	c->out = field(f->out);
	c->rank = field(f->rank);
	c->nranks = field(f->nranks);
	c->reqs = field(f->reqs);
	c->nreqs = field(f->nreqs);
	c->flag = field(f->flag);
	c->index = field(f->index);
	c->indices = field(f->indices);
	c->name = field(f->mark);
	c->libseq = field(f->libseq);
	if (f->lib != FT_LIB_MPI) {
		if (c->comm.arg != PH_NOARG)
			c->slot_flags |= FT_SLOT_COMM_POINTER; /* NCCL, Gloo: objects */
		return;
	}
	if (flavor == CAT_MPI_OMPI) {
		/* handles are pointers */
		if (c->comm.arg != PH_NOARG) {
			c->comm.flags = PH_F_64;
			c->slot_flags |= FT_SLOT_COMM_POINTER;
			c->cfg |= PH_CFG_COMM_NAME;
			c->name_off = OMPI_COMM_NAME_OFF;
		}
		if (c->dtype.arg != PH_NOARG) {
			c->dtype.flags = PH_F_64 | PH_F_DEREF;
			c->dtype.off = OMPI_DTYPE_SIZE_OFF;
			c->dtype_kind = PH_DT_SIZE;
		}
		c->cfg |= PH_CFG_REQ64;
	} else {
		if (c->comm.arg != PH_NOARG)
			c->slot_flags |= FT_SLOT_COMM_HANDLE;
		if (c->dtype.arg != PH_NOARG)
			c->dtype_kind = PH_DT_MPICH;
		c->req_null = MPICH_REQUEST_NULL;
	}
}

void catalog__generic_cfg(struct ph_slot_cfg *c)
{
	struct cat_func g = { .symbol = "", .lib = FT_LIB_GENERIC, .op = FT_OP_CUSTOM,
			      .kind = PH_K_CALL };

	catalog__cfg(&g, CAT_MPI_MPICH, c);
}

/* ---- plans ---- */

void cat_plan__free(struct cat_plan *p)
{
	free(p->pts);
	p->pts = NULL;
	p->n = p->cap = 0;
}

static bool plan_has(const struct cat_plan *p, uint64_t off)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->pts[i].offset == off)
			return true;
	return false;
}

static struct cat_point *plan_add(struct cat_plan *p, uint64_t off)
{
	struct cat_point *pt;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct cat_point *n = realloc(p->pts, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->pts = n;
		p->cap = cap;
	}
	pt = &p->pts[p->n++];
	memset(pt, 0, sizeof(*pt));
	pt->offset = off;
	return pt;
}

static int add_point(struct cat_plan *p, const struct cat_func *f, const struct elf_sym *s)
{
	struct cat_point *pt;

	if (plan_has(p, s->offset))
		return 0; /* an alias (PMPI_X) or a folded twin: attach once */
	pt = plan_add(p, s->offset);
	if (!pt)
		return -ENOMEM;
	pt->lib = f->lib;
	pt->op = f->op;
	str_copy(pt->symbol, f->prefix ? s->demangled : f->symbol, sizeof(pt->symbol));
	str_copy(pt->name, f->name, sizeof(pt->name));
	catalog__cfg(f, p->flavor, &pt->cfg);
	pt->slot_flags = pt->cfg.slot_flags; /* with the flavor's communicator kind */
	return 1;
}

static enum cat_mpi_flavor mpi_flavor(const struct elf_syms *s)
{
	size_t it = 0;

	/* Open MPI's library defines its ompi_* internals; MPICH-ABI ones MPIR_* */
	return elf_syms__next_prefix(s, "ompi_", &it) ? CAT_MPI_OMPI : CAT_MPI_MPICH;
}

int catalog__plan(const struct elf_syms *s, struct cat_plan *p)
{
	bool mpi_checked = false;

	p->flavor = CAT_MPI_MPICH;
	for (size_t i = 0; i < catalog__count(); i++) {
		const struct cat_func *f = &catalog[i];
		const struct elf_sym *e;

		if (!f->prefix) {
			e = elf_syms__find(s, f->symbol);
			if (!e && strncmp(f->symbol, "MPI_", 4) == 0) {
				char alias[128];

				snprintf(alias, sizeof(alias), "P%s", f->symbol);
				e = elf_syms__find(s, alias);
			}
			if (!e)
				continue;
			if (f->lib == FT_LIB_MPI && !mpi_checked) {
				p->flavor = mpi_flavor(s);
				mpi_checked = true;
			}
			if (add_point(p, f, e) < 0)
				return -ENOMEM;
			continue;
		}
		for (size_t it = 0; (e = elf_syms__next_prefix(s, f->symbol, &it)) != NULL;)
			if (catalog__matches(f, e->name, e->demangled) && add_point(p, f, e) < 0)
				return -ENOMEM;
	}
	return 0;
}

/*
 * A C++ catalog entry's mark in a mangled name: its last identifier
 * ("gloo::allreduce(" -> "allreduce") as the Itanium ABI writes a source
 * name, with its length first ("9allreduce"), or bare when the prefix ends
 * inside the identifier ("gloo::reduce_scatter").  Every symbol whose
 * demangled name starts with the prefix contains it, so it is a safe test
 * before the demangling.
 */
static void cxx_mark(const char *prefix, char *out, size_t len)
{
	size_t n = strlen(prefix), e = n, b;
	bool whole = n && (prefix[n - 1] == '(' || prefix[n - 1] == '<');

	if (whole)
		e--;
	b = e;
	while (b > 0 && prefix[b - 1] != ':')
		b--;
	if (whole)
		snprintf(out, len, "%zu%.*s", e - b, (int)(e - b), prefix + b);
	else
		snprintf(out, len, "%.*s", (int)(e - b), prefix + b);
}

#define NCATALOG (sizeof(catalog) / sizeof(catalog[0]))

/* Each entry's key length, and a C++ entry's mark (cxx_mark), computed once. */
static struct {
	size_t len;
	size_t mark_len;
	char mark[64];
} keys[NCATALOG];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void keys_init(void)
{
	for (size_t i = 0; i < NCATALOG; i++) {
		keys[i].len = strlen(catalog[i].symbol);
		if (catalog[i].prefix) {
			cxx_mark(catalog[i].symbol, keys[i].mark, sizeof(keys[i].mark));
			keys[i].mark_len = strlen(keys[i].mark);
		}
	}
}

bool catalog__may_match(const char *name, size_t len, void *ctx)
{
	bool mangled = len > 2 && name[0] == '_' && name[1] == 'Z';

	(void)ctx;
	pthread_once(&keys_once, keys_init);
	/* mpi_flavor() looks for Open MPI's internals */
	if (len > 5 && !strncmp(name, "ompi_", 5))
		return true;
	for (size_t i = 0; i < NCATALOG; i++) {
		const struct cat_func *f = &catalog[i];
		size_t kl = keys[i].len;

		if (f->prefix) {
			/* an unmangled name is its own demangled name */
			if (mangled ? memmem(name, len, keys[i].mark, keys[i].mark_len) != NULL
				    : len >= kl && !memcmp(name, f->symbol, kl))
				return true;
		} else if ((len == kl && !memcmp(name, f->symbol, kl)) ||
			   (len == kl + 1 && !strncmp(f->symbol, "MPI_", 4) && !memcmp(name, "PMPI_", 5) &&
			    !memcmp(name + 1, f->symbol, kl))) {
			return true;
		}
	}
	return false;
}

#define SPEC_MAX_MATCHES 64

/* The symbol named exactly: by its name in the file, else by its full demangled name. */
static const struct elf_sym *find_exact(const struct elf_syms *s, const char *symbol)
{
	const struct elf_sym *e = elf_syms__find(s, symbol);

	for (size_t it = 0; !e && (e = elf_syms__next_prefix(s, symbol, &it)) != NULL;)
		if (strcmp(e->demangled, symbol) != 0)
			e = NULL;
	return e;
}

static int add_generic(struct cat_plan *p, const struct elf_sym *e, const struct phase_spec *spec)
{
	struct cat_func g = { .symbol = spec->symbol, .lib = FT_LIB_GENERIC, .op = FT_OP_CUSTOM,
			      .kind = PH_K_CALL };
	struct cat_point *pt;

	if (plan_has(p, e->offset))
		return 0; /* traced already (e.g. as a catalog function) */
	pt = plan_add(p, e->offset);
	if (!pt)
		return -ENOMEM;
	pt->lib = FT_LIB_GENERIC;
	pt->op = FT_OP_CUSTOM;
	str_copy(pt->symbol, e->demangled ? e->demangled : e->name, sizeof(pt->symbol));
	if (spec->name[0])
		str_copy(pt->name, spec->name, sizeof(pt->name));
	else
		catalog__short_name(spec->symbol, pt->name, sizeof(pt->name));
	catalog__cfg(&g, CAT_MPI_MPICH, &pt->cfg);
	return 1;
}

int catalog__plan_spec(const struct elf_syms *s, const struct phase_spec *spec, struct cat_plan *p)
{
	const struct elf_sym *e = find_exact(s, spec->symbol);
	int found = 0;

	if (e)
		return add_generic(p, e, spec) < 0 ? -ENOMEM : 1;
	if (!strstr(spec->symbol, "::") && !strchr(spec->symbol, '('))
		return 0; /* a C name is matched exactly only */
	for (size_t it = 0; found < SPEC_MAX_MATCHES &&
	     (e = elf_syms__next_prefix(s, spec->symbol, &it)) != NULL; found++)
		if (add_generic(p, e, spec) < 0)
			return -ENOMEM;
	return found;
}

/* ---- --phase LIB:SYMBOL[=NAME] ---- */

void catalog__short_name(const char *symbol, char *out, size_t len)
{
	size_t n = strcspn(symbol, "(");
	const char *s = symbol;

	/* drop leading scopes ("a::b::") until the rest fits */
	while (n - (size_t)(s - symbol) >= len) {
		const char *next = strstr(s, "::");

		if (!next || (size_t)(next - symbol) >= n)
			break;
		s = next + 2;
	}
	n -= (size_t)(s - symbol);
	if (n >= len) { /* still too long: keep the end */
		s += n - (len - 1);
		n = len - 1;
	}
	memcpy(out, s, n);
	out[n] = 0;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

int phase_spec__parse(const char *s, struct phase_spec *out, char *err, size_t errlen)
{
	const char *colon, *sym, *eq, *nm = NULL;
	size_t liblen, symlen;

	memset(out, 0, sizeof(*out));
	if (!s || !*s) {
		snprintf(err, errlen, "empty; use LIB:SYMBOL[=NAME]");
		return -EINVAL;
	}
	colon = strchr(s, ':');
	if (!colon) {
		snprintf(err, errlen, "no ':' between library and symbol; use LIB:SYMBOL[=NAME]");
		return -EINVAL;
	}
	liblen = (size_t)(colon - s);
	sym = colon + 1;
	if (!liblen) {
		snprintf(err, errlen, "no library before ':'; use LIB:SYMBOL[=NAME]");
		return -EINVAL;
	}
	/* NAME follows the last '=' when what follows is a plain name (C++ operator= stays) */
	eq = strrchr(sym, '=');
	if (eq) {
		const char *bad = eq + 1; /* the first character a NAME may not have */

		while (*bad && name_char(*bad))
			bad++;
		if (!eq[1]) {
			snprintf(err, errlen, "empty NAME after '='; use LIB:SYMBOL=NAME or drop the '='");
			return -EINVAL;
		}
		if (!*bad) {
			nm = eq + 1;
		} else if (!strchr(sym, '(')) { /* not a C++ operator=: a NAME that is not a plain name */
			snprintf(err, errlen, "NAME '%s' has '%c'; use letters, digits, '_', '.' or '-'", eq + 1, *bad);
			return -EINVAL;
		}
	}
	symlen = nm ? (size_t)(nm - 1 - sym) : strlen(sym);
	if (!symlen) {
		snprintf(err, errlen, "no symbol after ':'; use LIB:SYMBOL[=NAME]");
		return -EINVAL;
	}
	if (liblen >= sizeof(out->lib)) {
		snprintf(err, errlen, "library is too long (max %zu characters)", sizeof(out->lib) - 1);
		return -EINVAL;
	}
	if (symlen >= sizeof(out->symbol)) {
		snprintf(err, errlen, "symbol is too long (max %zu characters)", sizeof(out->symbol) - 1);
		return -EINVAL;
	}
	if (nm && strlen(nm) >= sizeof(out->name)) {
		snprintf(err, errlen, "NAME '%s' is too long (max %zu characters)", nm,
			 sizeof(out->name) - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < symlen; i++) {
		if (isspace((unsigned char)sym[i]) && !strchr(sym, '(')) {
			snprintf(err, errlen, "symbol contains white space; quote a C++ name with "
				 "its parameters, e.g. 'lib:ns::f(int)'");
			return -EINVAL;
		}
	}
	memcpy(out->lib, s, liblen);
	memcpy(out->symbol, sym, symlen);
	if (nm)
		str_copy(out->name, nm, sizeof(out->name));
	return 0;
}

/* ---- names ---- */

const char *catalog__op_name(unsigned op)
{
	static const char *const names[FT_OP_MAX] = {
		[FT_OP_NONE] = "none", [FT_OP_ALLREDUCE] = "allreduce",
		[FT_OP_REDUCE_SCATTER] = "reduce_scatter", [FT_OP_ALLGATHER] = "allgather",
		[FT_OP_BCAST] = "bcast", [FT_OP_REDUCE] = "reduce", [FT_OP_ALLTOALL] = "alltoall",
		[FT_OP_BARRIER] = "barrier", [FT_OP_GATHER] = "gather", [FT_OP_SCATTER] = "scatter",
		[FT_OP_SEND] = "send", [FT_OP_RECV] = "recv", [FT_OP_SENDRECV] = "sendrecv",
		[FT_OP_GROUP_START] = "group_start", [FT_OP_GROUP_END] = "group_end",
		[FT_OP_COMM_INIT] = "comm_init", [FT_OP_COMPLETION] = "completion",
		[FT_OP_STEP] = "step", [FT_OP_MARK] = "mark", [FT_OP_CUSTOM] = "custom",
	};

	return op < FT_OP_MAX && names[op] ? names[op] : "?";
}

const char *catalog__lib_name(unsigned lib)
{
	static const char *const names[] = { "none", "MPI", "NCCL", "Gloo", "marker", "generic" };

	return lib < sizeof(names) / sizeof(names[0]) ? names[lib] : "?";
}
