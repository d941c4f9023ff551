/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NCCL's profiler plugin ABI, versions 1 to 6, as fabtrace's plugin needs it.
 *
 * Written for fabtrace from the layout NCCL documents in its public
 * ext-profiler headers (profiler_v1.h .. profiler_v6.h, profiler.h): only the
 * members this plugin reads, at the offsets NCCL's structs put them, checked
 * below by static asserts (x86-64 and arm64: LP64, natural alignment).
 *
 * What changes between versions:
 *  - v1..v4: `type` is a uint8_t; v5, v6: a uint64_t (same offset 0).
 *  - v1: func, datatype, algo and proto are small enums; v2 on: strings.
 *  - v1..v3: the Coll and P2p descriptors carry the comm hash; v4 on: init
 *    gets it (and rank, nranks), and the descriptors lost it.
 *  - v3 adds KernelCh (channel only); v4 adds the GPU timer (pTimer) at its
 *    start and at ncclProfilerKernelChStop.
 *  - v1..v3 proxy-op state args carry transSize and steps; v4 on, a
 *    ProxyStep's transSize.
 *  - v5 adds API-level events (GroupApi, CollApi, P2pApi, KernelLaunch) and
 *    parentGroup; v6 adds copy-engine collectives (not used here).
 */
#ifndef FABTRACE_NCCLPROF_ABI_H
#define FABTRACE_NCCLPROF_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef int nccl_result_t;       /* ncclResult_t: ncclSuccess = 0 */
#define NP_SUCCESS 0
typedef void (*nccl_logger_t)(int level, unsigned long flags, const char *file, int line,
			      const char *fmt, ...);

/* event types (eActivationMask bits) */
enum {
	NP_GROUP      = 1 << 0,
	NP_COLL       = 1 << 1,
	NP_P2P        = 1 << 2,
	NP_PROXY_OP   = 1 << 3,
	NP_PROXY_STEP = 1 << 4,
	NP_PROXY_CTRL = 1 << 5,
	NP_KERNEL_CH  = 1 << 6,
	NP_NET_PLUGIN = 1 << 7,
	NP_GROUP_API  = 1 << 8,  /* v5 */
	NP_COLL_API   = 1 << 9,
	NP_P2P_API    = 1 << 10,
	NP_KERNEL_LAUNCH = 1 << 11,
};

/* event states (ncclProfilerEventState_t) this plugin looks at */
enum {
	NP_ST_PROXY_OP_SEND_POSTED = 0,
	NP_ST_PROXY_OP_SEND_REM_FIFO_WAIT = 1,
	NP_ST_PROXY_OP_SEND_TRANSMITTED = 2,
	NP_ST_PROXY_OP_SEND_DONE = 3,
	NP_ST_PROXY_OP_RECV_POSTED = 4,
	NP_ST_PROXY_OP_RECV_RECEIVED = 5,
	NP_ST_PROXY_OP_RECV_TRANSMITTED = 6,
	NP_ST_PROXY_OP_RECV_DONE = 7,
	NP_ST_STEP_SEND_GPU_WAIT = 8,
	NP_ST_STEP_SEND_WAIT = 9,
	NP_ST_STEP_RECV_WAIT = 10,
	NP_ST_STEP_RECV_FLUSH_WAIT = 11,
	NP_ST_STEP_RECV_GPU_WAIT = 12,
	NP_ST_PROXY_OP_IN_PROGRESS_V4 = 19,
	NP_ST_STEP_SEND_PEER_WAIT_V4 = 20,
	NP_ST_KERNEL_CH_STOP = 22,
};

/* ---- v1 ---- */
struct np_descr_v1 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			uint8_t func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			uint8_t datatype;
			uint32_t op;
			size_t trafficBytes;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			uint8_t algo;
			uint8_t proto;
			int isCollnet;
			int isNvls;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			uint8_t func;
			void *buff;
			uint8_t datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer;
			int nSteps;
			int chunkSize;
			int isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
	};
};

/* v1..v3 state args */
union np_state_v1 {
	struct {
		size_t transSize;
		int steps;
	} proxyOp;
	struct {
		int appendedProxyOps;
	} proxyCtrl;
};

/* ---- v2 (strings) ---- */
struct np_descr_v2 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			size_t trafficBytes;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer;
			int nSteps;
			int chunkSize;
			int isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
	};
};

/* ---- v3 (no trafficBytes; KernelCh, NetPlugin) ---- */
struct np_descr_v3 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer;
			int nSteps;
			int chunkSize;
			int isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
		struct {
			uint8_t channelId;
		} kernelCh;
		struct {
			int64_t id;
			void *data;
		} netPlugin;
	};
};

/* ---- v4 (comm hash at init; GPU timer), v5 (uint64 type, API events), v6 ---- */
#define NP_DESCR_V4_BODY(TYPE_T, PARENT_GROUP)                                          \
	TYPE_T type;                                                                    \
	void *parentObj;                                                                \
	int rank;                                                                       \
	union {                                                                         \
		struct {                                                                \
			int graphCaptured; /* v5: bool graphCaptured at 0 (v6) */       \
			int groupDepth;                                                 \
		} groupApi;                                                             \
		struct {                                                                \
			uint64_t seqNumber;                                             \
			const char *func;                                               \
			const void *sendBuff;                                           \
			void *recvBuff;                                                 \
			size_t count;                                                   \
			int root;                                                       \
			const char *datatype;                                           \
			uint8_t nChannels;                                              \
			uint8_t nWarps;                                                 \
			const char *algo;                                               \
			const char *proto;                                              \
			PARENT_GROUP                                                    \
		} coll;                                                                 \
		struct {                                                                \
			const char *func;                                               \
			void *buff;                                                     \
			const char *datatype;                                           \
			size_t count;                                                   \
			int peer;                                                       \
			uint8_t nChannels;                                              \
			PARENT_GROUP                                                    \
		} p2p;                                                                  \
		struct {                                                                \
			pid_t pid;                                                      \
			uint8_t channelId;                                              \
			int peer;                                                       \
			int nSteps;                                                     \
			int chunkSize;                                                  \
			int isSend;                                                     \
		} proxyOp;                                                              \
		struct {                                                                \
			int step;                                                       \
		} proxyStep;                                                            \
		struct {                                                                \
			uint8_t channelId;                                              \
			uint64_t pTimer;                                                \
		} kernelCh;                                                             \
		struct {                                                                \
			int64_t id;                                                     \
			void *data;                                                     \
		} netPlugin;                                                            \
	}

struct np_descr_v4 {
	NP_DESCR_V4_BODY(uint8_t, );
};

struct np_descr_v5 {
	NP_DESCR_V4_BODY(uint64_t, void *parentGroup;);
};

/*
 * v6 extends v5's union with copy-engine descriptors (ceColl: 88 bytes, as
 * large as coll); every member this plugin reads is where v5 has it.
 */
struct np_descr_v6 {
	NP_DESCR_V4_BODY(uint64_t, void *parentGroup;);
};

/* v4..v6 state args */
union np_state_v4 {
	struct {
		size_t transSize;
	} proxyStep;
	struct {
		int appendedProxyOps;
	} proxyCtrl;
	struct {
		void *data;
	} netPlugin;
	struct {
		uint64_t pTimer;
	} kernelCh;
};

/* the function tables: name, init, startEvent, stopEvent, recordEventState, finalize */
struct np_table_v1 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask);
	nccl_result_t (*startEvent)(void *context, void **eHandle, void *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

struct np_table_v4 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask, const char *commName,
			      uint64_t commHash, int nNodes, int nranks, int rank, nccl_logger_t logfn);
	nccl_result_t (*startEvent)(void *context, void **eHandle, void *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

struct np_table_v5 {
	const char *name;
	nccl_result_t (*init)(void **context, uint64_t commId, int *eActivationMask,
			      const char *commName, int nNodes, int nranks, int rank, nccl_logger_t logfn);
	nccl_result_t (*startEvent)(void *context, void **eHandle, void *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- the layout, as NCCL's headers give it (LP64) ---- */
#define NP_OFF(T, m, v) _Static_assert(offsetof(struct T, m) == (v), #T "." #m)
NP_OFF(np_descr_v1, parentObj, 8);
NP_OFF(np_descr_v1, rank, 16);
NP_OFF(np_descr_v1, coll.commHash, 32);
NP_OFF(np_descr_v1, coll.seqNumber, 40);
NP_OFF(np_descr_v1, coll.func, 48);
NP_OFF(np_descr_v1, coll.count, 72);
NP_OFF(np_descr_v1, coll.root, 80);
NP_OFF(np_descr_v1, coll.datatype, 84);
NP_OFF(np_descr_v1, coll.trafficBytes, 96);
NP_OFF(np_descr_v1, coll.nMaxChannels, 104);
NP_OFF(np_descr_v1, coll.algo, 106);
NP_OFF(np_descr_v1, coll.proto, 107);
NP_OFF(np_descr_v1, p2p.func, 40);
NP_OFF(np_descr_v1, p2p.datatype, 56);
NP_OFF(np_descr_v1, p2p.count, 64);
NP_OFF(np_descr_v1, p2p.peer, 72);
NP_OFF(np_descr_v1, proxyOp.pid, 24);
NP_OFF(np_descr_v1, proxyOp.channelId, 28);
NP_OFF(np_descr_v1, proxyOp.peer, 32);
NP_OFF(np_descr_v1, proxyOp.isSend, 44);
_Static_assert(sizeof(struct np_descr_v1) == 24 + 96, "np_descr_v1 size");
NP_OFF(np_descr_v2, coll.func, 48);
NP_OFF(np_descr_v2, coll.datatype, 88);
NP_OFF(np_descr_v2, coll.trafficBytes, 96);
NP_OFF(np_descr_v2, coll.nMaxChannels, 104);
NP_OFF(np_descr_v2, coll.algo, 112);
NP_OFF(np_descr_v2, coll.proto, 120);
NP_OFF(np_descr_v2, p2p.peer, 72);
_Static_assert(sizeof(struct np_descr_v2) == 24 + 104, "np_descr_v2 size");
NP_OFF(np_descr_v3, coll.datatype, 88);
NP_OFF(np_descr_v3, coll.nMaxChannels, 96);
NP_OFF(np_descr_v3, coll.algo, 104);
NP_OFF(np_descr_v3, coll.proto, 112);
NP_OFF(np_descr_v3, kernelCh.channelId, 24);
NP_OFF(np_descr_v3, netPlugin.data, 32);
_Static_assert(sizeof(struct np_descr_v3) == 24 + 96, "np_descr_v3 size");
_Static_assert(sizeof(union np_state_v1) == 16, "np_state_v1 size");
NP_OFF(np_descr_v4, coll.seqNumber, 24);
NP_OFF(np_descr_v4, coll.func, 32);
NP_OFF(np_descr_v4, coll.count, 56);
NP_OFF(np_descr_v4, coll.root, 64);
NP_OFF(np_descr_v4, coll.datatype, 72);
NP_OFF(np_descr_v4, coll.nChannels, 80);
NP_OFF(np_descr_v4, coll.algo, 88);
NP_OFF(np_descr_v4, coll.proto, 96);
NP_OFF(np_descr_v4, p2p.count, 48);
NP_OFF(np_descr_v4, p2p.peer, 56);
NP_OFF(np_descr_v4, p2p.nChannels, 60);
NP_OFF(np_descr_v4, kernelCh.pTimer, 32);
_Static_assert(sizeof(struct np_descr_v4) == 24 + 80, "np_descr_v4 size");
NP_OFF(np_descr_v5, coll.proto, 96);
NP_OFF(np_descr_v5, coll.parentGroup, 104);
NP_OFF(np_descr_v5, p2p.parentGroup, 64);
NP_OFF(np_descr_v5, kernelCh.pTimer, 32);
_Static_assert(sizeof(struct np_descr_v5) == 24 + 88, "np_descr_v5 size");
_Static_assert(sizeof(struct np_descr_v6) == 24 + 88, "np_descr_v6 size");
_Static_assert(sizeof(union np_state_v4) == 8, "np_state_v4 size");
NP_OFF(np_table_v5, finalize, 40);
#undef NP_OFF

#endif
