// SPDX-License-Identifier: GPL-2.0
/*
 * fake_nccl.c — a STAND-IN for NVIDIA's libnccl.so.2, for fabtrace's tests.
 *
 * Real NCCL needs a CUDA GPU; this machine has none, so the real library
 * cannot run here.  This library has the same soname (libnccl.so.2) and
 * exports the same C entry points with NCCL's signatures (fake_nccl.h),
 * each both as `ncclX` (weak) and as its profiling alias `pncclX` at the
 * same address — the layout of a real NCCL build with PROFAPI — so that a
 * tracer resolving symbols in the library a process loaded meets what it
 * would meet with the real one.
 *
 * What it does: no communication at all.  ncclGetUniqueId fills the id with
 * random bytes; ncclCommInitRank checks its arguments and allocates an
 * opaque communicator (rank, nranks, a hash of the id); every collective or
 * point-to-point call checks its arguments and then sleeps for
 * FAKE_NCCL_USEC microseconds (default 200) so that its duration is visible
 * in a trace, and returns ncclSuccess.  Inside ncclGroupStart/ncclGroupEnd
 * the calls only queue (as real NCCL only enqueues there) and ncclGroupEnd
 * sleeps once per queued call.  Buffers are never touched.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "fake_nccl.h"

#define FAKE_COMM_MAGIC 0x66616b656e63636cULL /* "fakenccl" */

struct ncclComm {
	uint64_t magic;
	int rank;
	int nranks;
	uint64_t id_hash; /* FNV-1a of the ncclUniqueId: equal on all ranks of a comm */
	unsigned long ops;
};

static __thread int group_depth;
static __thread unsigned long group_queued;

/*
 * Like NCCL_API in NCCL's src/include/core.h (PROFAPI build): the public
 * name is a weak definition and pncclX is a strong alias of it.
 */
#define FAKE_API(ret, fn, ...)                                                                   \
	extern __attribute__((visibility("default"), alias(#fn))) ret p##fn(__VA_ARGS__);         \
	__attribute__((visibility("default"), weak)) ret fn(__VA_ARGS__)

static long call_usec(void)
{
	static long usec = -1;

	if (usec < 0) {
		char *end;
		long v = 200;
		const char *e = getenv("FAKE_NCCL_USEC");

		if (e && *e) {
			v = strtol(e, &end, 10);
			if (*end || v < 0 || v > 10000000)
				v = 200;
		}
		usec = v;
	}
	return usec;
}

static void pause_us(unsigned long n)
{
	unsigned long long total = (unsigned long long)call_usec() * n;
	struct timespec ts = { .tv_sec = (time_t)(total / 1000000), .tv_nsec = (long)(total % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int comm_ok(const struct ncclComm *c)
{
	return c && c->magic == FAKE_COMM_MAGIC;
}

/* Argument checks shared by the data calls, then "launch" (or queue). */
static ncclResult_t launch(ncclComm_t comm, const void *sbuf, const void *rbuf, size_t count,
			   ncclDataType_t dt, int peer)
{
	if (!comm_ok(comm) || (unsigned)dt >= ncclNumTypes)
		return ncclInvalidArgument;
	if (count && (!sbuf || !rbuf))
		return ncclInvalidArgument;
	if (peer != -1 && (peer < 0 || peer >= comm->nranks))
		return ncclInvalidArgument;
	comm->ops++;
	if (group_depth > 0)
		group_queued++;
	else
		pause_us(1);
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclGetVersion, int *version)
{
	if (!version)
		return ncclInvalidArgument;
	*version = NCCL_VERSION_CODE;
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclGetUniqueId, ncclUniqueId *uniqueId)
{
	size_t got = 0;

	if (!uniqueId)
		return ncclInvalidArgument;
	while (got < sizeof(uniqueId->internal)) {
		ssize_t n = getrandom(uniqueId->internal + got, sizeof(uniqueId->internal) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ncclSystemError;
		}
		got += (size_t)n;
	}
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommInitRank, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
	struct ncclComm *c;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
		return ncclInvalidArgument;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ncclSystemError;
	for (size_t i = 0; i < sizeof(commId.internal); i++)
		h = (h ^ (unsigned char)commId.internal[i]) * 0x100000001b3ULL;
	c->magic = FAKE_COMM_MAGIC;
	c->rank = rank;
	c->nranks = nranks;
	c->id_hash = h;
	pause_us(1); /* the bootstrap of a real init takes far longer */
	*comm = c;
	return ncclSuccess;
}

/* the config is not looked at (PyTorch passes one) */
FAKE_API(ncclResult_t, ncclCommInitRankConfig, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
	 ncclConfig_t *config)
{
	(void)config;
	return ncclCommInitRank(comm, nranks, commId, rank);
}

FAKE_API(ncclResult_t, ncclCommFinalize, ncclComm_t comm)
{
	return comm_ok(comm) ? ncclSuccess : ncclInvalidArgument;
}

FAKE_API(ncclResult_t, ncclCommAbort, ncclComm_t comm)
{
	return ncclCommDestroy(comm);
}

FAKE_API(ncclResult_t, ncclCommDestroy, ncclComm_t comm)
{
	if (!comm)
		return ncclSuccess;
	if (!comm_ok(comm))
		return ncclInvalidArgument;
	comm->magic = 0;
	free(comm);
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommCount, const ncclComm_t comm, int *count)
{
	if (!comm_ok(comm) || !count)
		return ncclInvalidArgument;
	*count = comm->nranks;
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclCommUserRank, const ncclComm_t comm, int *rank)
{
	if (!comm_ok(comm) || !rank)
		return ncclInvalidArgument;
	*rank = comm->rank;
	return ncclSuccess;
}

FAKE_API(const char *, ncclGetErrorString, ncclResult_t result)
{
	switch (result) {
	case ncclSuccess: return "no error";
	case ncclUnhandledCudaError: return "unhandled cuda error";
	case ncclSystemError: return "unhandled system error";
	case ncclInternalError: return "internal error";
	case ncclInvalidArgument: return "invalid argument";
	case ncclInvalidUsage: return "invalid usage";
	case ncclRemoteError: return "remote process exited or there was a network error";
	case ncclInProgress: return "NCCL operation in progress";
	default: return "unknown result code";
	}
}

FAKE_API(ncclResult_t, ncclAllReduce, const void *sendbuff, void *recvbuff, size_t count,
	 ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if ((unsigned)op > ncclAvg)
		return ncclInvalidArgument;
	return launch(comm, sendbuff, recvbuff, count, datatype, -1);
}

FAKE_API(ncclResult_t, ncclBroadcast, const void *sendbuff, void *recvbuff, size_t count,
	 ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if (comm_ok(comm) && comm->rank != root) /* sendbuff only matters on the root */
		sendbuff = recvbuff;
	return launch(comm, sendbuff, recvbuff, count, datatype, root);
}

FAKE_API(ncclResult_t, ncclReduce, const void *sendbuff, void *recvbuff, size_t count,
	 ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if ((unsigned)op > ncclAvg)
		return ncclInvalidArgument;
	if (comm_ok(comm) && comm->rank != root) /* recvbuff only matters on the root */
		recvbuff = (void *)(uintptr_t)sendbuff;
	return launch(comm, sendbuff, recvbuff, count, datatype, root);
}

FAKE_API(ncclResult_t, ncclAllGather, const void *sendbuff, void *recvbuff, size_t sendcount,
	 ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, sendbuff, recvbuff, sendcount, datatype, -1);
}

FAKE_API(ncclResult_t, ncclReduceScatter, const void *sendbuff, void *recvbuff, size_t recvcount,
	 ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if ((unsigned)op > ncclAvg)
		return ncclInvalidArgument;
	return launch(comm, sendbuff, recvbuff, recvcount, datatype, -1);
}

FAKE_API(ncclResult_t, ncclAlltoAll, const void *sendbuff, void *recvbuff, size_t count,
	 ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, sendbuff, recvbuff, count, datatype, -1);
}

FAKE_API(ncclResult_t, ncclGather, const void *sendbuff, void *recvbuff, size_t sendcount,
	 ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, sendbuff, recvbuff ? recvbuff : sendbuff, sendcount, datatype, root);
}

FAKE_API(ncclResult_t, ncclScatter, const void *sendbuff, void *recvbuff, size_t recvcount,
	 ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, sendbuff ? sendbuff : recvbuff, recvbuff, recvcount, datatype, root);
}

FAKE_API(ncclResult_t, ncclSend, const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
	 ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, sendbuff, sendbuff, count, datatype, peer);
}

FAKE_API(ncclResult_t, ncclRecv, void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
	 ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return launch(comm, recvbuff, recvbuff, count, datatype, peer);
}

FAKE_API(ncclResult_t, ncclGroupStart, void)
{
	group_depth++;
	return ncclSuccess;
}

FAKE_API(ncclResult_t, ncclGroupEnd, void)
{
	if (group_depth <= 0)
		return ncclInvalidUsage;
	if (--group_depth == 0 && group_queued) {
		pause_us(group_queued);
		group_queued = 0;
	}
	return ncclSuccess;
}
