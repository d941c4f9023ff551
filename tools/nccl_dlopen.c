// SPDX-License-Identifier: GPL-2.0
/*
 * nccl_dlopen — load an NCCL library by path at run time, as PyTorch loads
 * the libnccl.so.2 of its pip wheel (site-packages/nvidia/nccl/lib), and
 * call it: for tests/integration/test_nccl_libpath.sh.
 *
 *   nccl_dlopen [--delay-ms MS] [--settle-ms MS] [--iters N] LIB
 *
 * Sleeps MS (default 300) so the library is mapped well after the start,
 * dlopen()s LIB (a path), waits --settle-ms (default 0: a framework's first
 * collective comes long after it loads NCCL, and a tracer that learns of
 * the library from the process's maps needs that time), resolves NCCL's
 * functions with dlsym, and calls
 * ncclGetUniqueId, ncclCommInitRankConfig (1 rank), N x (ncclAllReduce,
 * ncclAlltoAll, ncclGather, ncclScatter), ncclCommFinalize and
 * ncclCommDestroy.  Built against the stand-in's header (no GPU, no real
 * NCCL here): the host buffers it passes are what the stand-in accepts.
 * Prints one JSON line: the library, its resolved path, the calls made.
 * Exit 0 ok, 1 failure, 2 bad arguments.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/lib/fake_nccl.h"
#include "toolargs.h"

#define SYM(var, name)                                                            \
	do {                                                                      \
		*(void **)&(var) = dlsym(lib, name);                              \
		if (!(var)) {                                                     \
			fprintf(stderr, "nccl_dlopen: %s: no %s\n", path, name);  \
			return 1;                                                 \
		}                                                                 \
	} while (0)

static void sleep_ms(long long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long long delay = 300, settle = 0, iters = 10;
	const char *path = NULL;
	char real[4096] = "";
	struct link_map *lm = NULL;
	void *lib;
	ncclResult_t (*get_id)(ncclUniqueId *), (*init)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *),
		(*allreduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t),
		(*alltoall)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t),
		(*gather)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t),
		(*scatter)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t),
		(*finalize)(ncclComm_t), (*destroy)(ncclComm_t);
	ncclUniqueId id;
	ncclComm_t comm;
	float buf[256] = { 0 };

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc) {
			if (toolargs_num(argv[++i], 0, 600000, &delay, 0))
				goto usage;
		} else if (!strcmp(argv[i], "--settle-ms") && i + 1 < argc) {
			if (toolargs_num(argv[++i], 0, 600000, &settle, 0))
				goto usage;
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			if (toolargs_num(argv[++i], 1, 1000000, &iters, 0))
				goto usage;
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			goto usage;
		}
	}
	if (!path)
		goto usage;
	sleep_ms(delay);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nccl_dlopen: %s\n", dlerror());
		return 1;
	}
	sleep_ms(settle);
	if (!dlinfo(lib, RTLD_DI_LINKMAP, &lm) && lm && lm->l_name)
		snprintf(real, sizeof(real), "%s", lm->l_name);
	SYM(get_id, "ncclGetUniqueId");
	SYM(init, "ncclCommInitRankConfig");
	SYM(allreduce, "ncclAllReduce");
	SYM(alltoall, "ncclAlltoAll");
	SYM(gather, "ncclGather");
	SYM(scatter, "ncclScatter");
	SYM(finalize, "ncclCommFinalize");
	SYM(destroy, "ncclCommDestroy");
	if (get_id(&id) || init(&comm, 1, id, 0, NULL))
		return 1;
	for (long long i = 0; i < iters; i++)
		if (allreduce(buf, buf, 256, ncclFloat32, ncclSum, comm, NULL) ||
		    alltoall(buf, buf, 256, ncclFloat32, comm, NULL) ||
		    gather(buf, buf, 64, ncclFloat32, 0, comm, NULL) ||
		    scatter(buf, buf, 64, ncclFloat32, 0, comm, NULL))
			return 1;
	if (finalize(comm) || destroy(comm))
		return 1;
	printf("{\"lib\":\"%s\",\"loaded\":\"%s\",\"iters\":%lld,\"calls\":{\"ncclCommInitRankConfig\":1,"
	       "\"ncclAllReduce\":%lld,\"ncclAlltoAll\":%lld,\"ncclGather\":%lld,\"ncclScatter\":%lld}}\n",
	       path, real, iters, iters, iters, iters, iters);
	return 0;
usage:
	fprintf(stderr, "usage: nccl_dlopen [--delay-ms MS] [--settle-ms MS] [--iters N] LIB\n");
	return 2;
}
