// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the NCCL profiler plugin hands fabtrace (ncclprof.h): one empty
 * exported function per kind of event, which `fabtrace record` uprobes
 * like the marker API, and the hook the unit tests and the driver's bench
 * see the events through.
 */
#include <stdbool.h>
#include <stdint.h>

#include "probes/nccl_profiler/ncclprof.h"

/* the functions fabtrace uprobes (catalog: fabtrace_nccl_*) */

/* the time of each function's last event: each body differs, so none are folded together */
static volatile uint64_t np_last[16] __attribute__((used));

#define EMIT_FN(fn, idx)                                        \
	NP_EMIT void fn(const struct ph_plugin_ev *ev)          \
	{                                                       \
		np_last[idx] = ev->now_ns;                      \
		__asm__ volatile("" : : "r"(ev) : "memory");    \
	}

/* prototypes: exported for the uprobes only */
void fabtrace_nccl_comm(const struct ph_plugin_ev *ev);
void fabtrace_nccl_allreduce(const struct ph_plugin_ev *ev);
void fabtrace_nccl_reduce_scatter(const struct ph_plugin_ev *ev);
void fabtrace_nccl_allgather(const struct ph_plugin_ev *ev);
void fabtrace_nccl_broadcast(const struct ph_plugin_ev *ev);
void fabtrace_nccl_reduce(const struct ph_plugin_ev *ev);
void fabtrace_nccl_alltoall(const struct ph_plugin_ev *ev);
void fabtrace_nccl_gather(const struct ph_plugin_ev *ev);
void fabtrace_nccl_scatter(const struct ph_plugin_ev *ev);
void fabtrace_nccl_coll_other(const struct ph_plugin_ev *ev);
void fabtrace_nccl_send(const struct ph_plugin_ev *ev);
void fabtrace_nccl_recv(const struct ph_plugin_ev *ev);
void fabtrace_nccl_proxy_op(const struct ph_plugin_ev *ev);

EMIT_FN(fabtrace_nccl_comm, 0)
EMIT_FN(fabtrace_nccl_allreduce, 1)
EMIT_FN(fabtrace_nccl_reduce_scatter, 2)
EMIT_FN(fabtrace_nccl_allgather, 3)
EMIT_FN(fabtrace_nccl_broadcast, 4)
EMIT_FN(fabtrace_nccl_reduce, 5)
EMIT_FN(fabtrace_nccl_alltoall, 6)
EMIT_FN(fabtrace_nccl_gather, 7)
EMIT_FN(fabtrace_nccl_scatter, 8)
EMIT_FN(fabtrace_nccl_coll_other, 9)
EMIT_FN(fabtrace_nccl_send, 10)
EMIT_FN(fabtrace_nccl_recv, 11)
EMIT_FN(fabtrace_nccl_proxy_op, 12)

static np_emit_fn emit_hook;

void np_set_emit(np_emit_fn fn)
{
	emit_hook = fn;
}

void np_emit(unsigned op, bool proxy, bool comm, struct ph_plugin_ev *ev)
{
	ev->now_ns = np_now_ns();
	if (comm)
		fabtrace_nccl_comm(ev);
	else if (proxy)
		fabtrace_nccl_proxy_op(ev);
	else
		switch (op) {
		case FT_OP_ALLREDUCE: fabtrace_nccl_allreduce(ev); break;
		case FT_OP_REDUCE_SCATTER: fabtrace_nccl_reduce_scatter(ev); break;
		case FT_OP_ALLGATHER: fabtrace_nccl_allgather(ev); break;
		case FT_OP_BCAST: fabtrace_nccl_broadcast(ev); break;
		case FT_OP_REDUCE: fabtrace_nccl_reduce(ev); break;
		case FT_OP_ALLTOALL: fabtrace_nccl_alltoall(ev); break;
		case FT_OP_GATHER: fabtrace_nccl_gather(ev); break;
		case FT_OP_SCATTER: fabtrace_nccl_scatter(ev); break;
		case FT_OP_SEND: fabtrace_nccl_send(ev); break;
		case FT_OP_RECV: fabtrace_nccl_recv(ev); break;
		default: fabtrace_nccl_coll_other(ev); break;
		}
	if (emit_hook)
		emit_hook(op, proxy, comm, ev);
}
