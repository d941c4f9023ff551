// SPDX-License-Identifier: GPL-2.0-or-later
/* NCCL's names of collectives and data types, as fabtrace's (ncclprof.h). */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "probes/nccl_profiler/ncclprof.h"

unsigned np_func_op(const char *f)
{
	static const struct { const char *n; unsigned op; } t[] = {
		{ "AllReduce", FT_OP_ALLREDUCE }, { "ReduceScatter", FT_OP_REDUCE_SCATTER },
		{ "AllGather", FT_OP_ALLGATHER }, { "Broadcast", FT_OP_BCAST },
		{ "Reduce", FT_OP_REDUCE }, { "AlltoAll", FT_OP_ALLTOALL },
		{ "AllToAll", FT_OP_ALLTOALL }, { "Gather", FT_OP_GATHER },
		{ "Scatter", FT_OP_SCATTER }, { "Send", FT_OP_SEND }, { "Recv", FT_OP_RECV },
	};

	for (size_t i = 0; f && i < sizeof(t) / sizeof(t[0]); i++)
		if (strcasecmp(f, t[i].n) == 0)
			return t[i].op;
	return FT_OP_CUSTOM;
}

/* v1: ncclFunc_t (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, SendRecv, Send, Recv) */
unsigned np_func_op_v1(uint8_t f)
{
	static const unsigned t[] = { FT_OP_BCAST, FT_OP_REDUCE, FT_OP_ALLGATHER,
				      FT_OP_REDUCE_SCATTER, FT_OP_ALLREDUCE, FT_OP_CUSTOM,
				      FT_OP_SEND, FT_OP_RECV };

	return f < sizeof(t) / sizeof(t[0]) ? t[f] : FT_OP_CUSTOM;
}

uint32_t np_dtype_size(const char *d)
{
	static const struct { const char *n; uint32_t sz; } t[] = {
		{ "ncclInt8", 1 }, { "ncclChar", 1 }, { "ncclUint8", 1 }, { "ncclInt32", 4 },
		{ "ncclInt", 4 }, { "ncclUint32", 4 }, { "ncclInt64", 8 }, { "ncclUint64", 8 },
		{ "ncclFloat16", 2 }, { "ncclHalf", 2 }, { "ncclFloat32", 4 }, { "ncclFloat", 4 },
		{ "ncclFloat64", 8 }, { "ncclDouble", 8 }, { "ncclBfloat16", 2 },
		{ "ncclFloat8e4m3", 1 }, { "ncclFloat8e5m2", 1 },
	};

	for (size_t i = 0; d && i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(d, t[i].n) == 0)
			return t[i].sz;
	return 0;
}
