/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabtrace's NCCL profiler plugin, shared by its files (ncclprof.c has the
 * overview): ncclprof_abi.c, NCCL's entry points of each ABI version, over
 * ncclprof.c, the version-independent bookkeeping, over ncclprof_emit.c,
 * what is handed to fabtrace, and ncclprof_names.c, NCCL's names.
 * tests/unit/test_ncclprof.c.
 */
#ifndef FABTRACE_NCCLPROF_H
#define FABTRACE_NCCLPROF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bpf/phase.h"
#include "probes/nccl_profiler/ncclprof_abi.h"

#define NP_API __attribute__((visibility("default")))
#define NP_EMIT __attribute__((visibility("default"), noinline, used))

/* An event descriptor of any ABI version, normalised. */
struct np_ev {
	int type;            /* NP_COLL, NP_P2P, ... */
	void *parent;
	int rank;
	uint64_t comm_hash;  /* v1..v3 Coll/P2p; 0 = from init */
	uint64_t seq;        /* seqNumber */
	bool has_seq;
	const char *func;
	size_t count;
	int root_peer;
	uint32_t dtype_size;
	int nchannels;
	const char *algo, *proto;
	pid_t pid;           /* ProxyOp */
	int channel, nsteps, is_send;
	uint64_t ptimer;     /* KernelCh start (v4+), 0 = none */
};

#define NP_DONE_KEEP 64 /* reported calls kept for late children, per communicator */

/* One communicator (init). */
struct np_ctx {
	int version;
	uint64_t comm_hash;
	int rank, nranks;
	bool announced, reannounced;
	pthread_mutex_t lock;
	struct np_obj *pending; /* stopped parents waiting for their children */
	struct np_obj *done[NP_DONE_KEEP]; /* the last reported calls (retire()) */
	unsigned done_pos;
};

enum np_obj_kind { NPO_COLL = 1, NPO_PROXY_OP, NPO_PROXY_STEP, NPO_KERNEL_CH, NPO_NET };

/* A Coll or P2p (parent), or a child: what every handle points to. */
struct np_obj {
	int kind;              /* enum np_obj_kind; first: handles are typed by it */
	struct np_ctx *ctx;
	struct np_obj *parent; /* child: its Coll/P2p or ProxyOp; NULL if detached */
	struct np_obj *next;   /* ctx->pending */
	int refs;              /* parent: 1 (its own stop) + started children not stopped */
	/* parent */
	unsigned op;           /* enum ft_op */
	uint64_t seq;
	uint64_t count;
	uint32_t dtype_size;
	int peer, nchannels;
	char algo_proto[24];
	uint64_t host_start, host_stop;
	uint64_t first_ns, last_ns; /* children's span, host clock */
	int kch_started, kch_stopped, children;
	bool stopped, gpu, superseded;
	bool emitted, orphan;  /* reported; freed by its last child's stop */
	uint64_t order;        /* start order in the ctx */
	/* ProxyOp */
	int channel, nsteps, is_send, steps_seen, net_events;
	uint64_t bytes, net_wait_ns, state_ns;
	/* KernelCh */
	uint64_t ptimer_start, ptimer_stop;
};

/* counters, for tests and the bench */
struct np_stats {
	uint64_t started, stopped, emitted_coll, emitted_proxy, gpu_timed, proxy_timed, host_timed,
		 detached, dropped;
};

/* the emit hook for tests (the plugin calls the uprobed functions) */
typedef void (*np_emit_fn)(unsigned op, bool proxy, bool comm, const struct ph_plugin_ev *ev);

/* ncclprof_abi.c: a descriptor of ABI version V normalised into E; 0 or -EINVAL. */
int np_norm(int v, const void *descr, struct np_ev *e);

/* ncclprof.c: the bookkeeping */
nccl_result_t np_init(struct np_ctx **out, int version, uint64_t comm_hash, int nranks, int rank);
nccl_result_t np_start(struct np_ctx *c, void **handle, const struct np_ev *e);
nccl_result_t np_stop(void *handle);
nccl_result_t np_state(void *handle, int state, uint64_t ptimer, uint64_t trans_size, int steps);
nccl_result_t np_finalize(struct np_ctx *c);

/* ncclprof_names.c: NCCL's names of collectives and data types */
unsigned np_func_op(const char *func);
unsigned np_func_op_v1(uint8_t func);
uint32_t np_dtype_size(const char *name);
uint64_t np_gpu_to_host(uint64_t ptimer);
void np_get_stats(struct np_stats *out);
void np_reset(void);

/* ncclprof_emit.c: one event to the function fabtrace uprobes for OP (the
 * communicator's for COMM, the proxy op's for PROXY), and to the test hook */
void np_emit(unsigned op, bool proxy, bool comm, struct ph_plugin_ev *ev);
void np_set_emit(np_emit_fn fn);

/* CLOCK_MONOTONIC in ns: the host clock of every event */
static inline uint64_t np_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
