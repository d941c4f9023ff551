// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libnccl-profiler-fabtrace.so: an NCCL profiler plugin that hands each
 * collective and P2P call, as the GPU (or NCCL's proxy) ran it, to fabtrace.
 *
 * NCCL loads the plugin named by NCCL_PROFILER_PLUGIN and looks for
 * ncclProfiler_v6 down to ncclProfiler_v1; ncclprof_abi.c exports all six
 * tables (ABI in ncclprof_abi.h).  NCCL calls:
 *   init            once per communicator (v4 on: comm hash, rank, nranks);
 *   startEvent      Coll/P2p on the application thread, when the call is
 *                   enqueued; ProxyOp, ProxyStep, KernelCh and NetPlugin
 *                   children on NCCL's proxy thread, possibly after the
 *                   parent's stopEvent (which only means "enqueued");
 *   recordEventState state changes (KernelChStop carries the GPU timer);
 *   stopEvent, finalize.
 *
 * A Coll/P2p is complete when its own stop and every started child's stop
 * have been seen, and either all its nChannels kernel channels stopped
 * (v4+), or a child of a later call of the same communicator started (the
 * stream runs them in order), or the communicator is finalized.  Then one
 * struct ph_plugin_ev (bpf/phase.h) goes to fabtrace_nccl_<op>(): an empty
 * exported function that `fabtrace record` uprobes, like the marker API.
 * Its times:
 *   - kernel-channel GPU timestamps (v4+), first start .. last stop, moved
 *     onto the host's CLOCK_MONOTONIC by the smallest (host now - GPU timer)
 *     seen: the proxy reads the GPU timer after the GPU wrote it, so the
 *     smallest difference is the closest to the clocks' true offset;
 *   - else the proxy operations' first start .. last stop (host clock);
 *   - else (no child at all) the host's start .. stop, flagged as such.
 * Each ProxyOp (one channel, one peer: the network transfer) goes to
 * fabtrace_nccl_proxy_op() with its bytes, steps, time spent waiting on the
 * network and the net-plugin events under it.
 * When nothing traces the process, an event costs the bookkeeping below
 * (docs/phases.md gives the measured cost) and one empty call.
 *
 * This file is that bookkeeping: communicators, calls and their children,
 * completion, the GPU timer's offset, the counters.  NCCL calls it through
 * ncclprof_abi.c (one table per ABI version); it hands events out through
 * ncclprof_emit.c and reads NCCL's names with ncclprof_names.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/nccl_profiler/ncclprof.h"

static struct np_stats stats;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t gpu_off = INT64_MAX; /* host CLOCK_MONOTONIC - GPU timer, smallest seen */

#define STAT(f) __atomic_fetch_add(&stats.f, 1, __ATOMIC_RELAXED)

void np_get_stats(struct np_stats *out)
{
	pthread_mutex_lock(&stats_lock);
	*out = stats;
	pthread_mutex_unlock(&stats_lock);
}

void np_reset(void)
{
	pthread_mutex_lock(&stats_lock);
	memset(&stats, 0, sizeof(stats));
	pthread_mutex_unlock(&stats_lock);
	__atomic_store_n(&gpu_off, INT64_MAX, __ATOMIC_RELAXED);
}

/* ---- GPU timer -> host clock ---- */

static void gpu_seen(uint64_t ptimer, uint64_t host)
{
	int64_t d = (int64_t)(host - ptimer), cur = __atomic_load_n(&gpu_off, __ATOMIC_RELAXED);

	while (d < cur && !__atomic_compare_exchange_n(&gpu_off, &cur, d, false, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

uint64_t np_gpu_to_host(uint64_t ptimer)
{
	int64_t off = __atomic_load_n(&gpu_off, __ATOMIC_RELAXED);

	return off == INT64_MAX ? 0 : ptimer + (uint64_t)off;
}

/* ---- communicators ---- */

nccl_result_t np_init(struct np_ctx **out, int version, uint64_t comm_hash, int nranks, int rank)
{
	struct np_ctx *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return 1; /* ncclSystemError */
	c->version = version;
	c->comm_hash = comm_hash;
	c->nranks = nranks;
	c->rank = rank;
	pthread_mutex_init(&c->lock, NULL);
	if (version >= 4) {
		struct ph_plugin_ev ev = { .comm_hash = comm_hash, .rank = rank, .nranks = nranks,
					   .peer = -1 };

		c->announced = true;
		np_emit(FT_OP_COMM_INIT, false, true, &ev);
	}
	*out = c;
	return NP_SUCCESS;
}

/* v1..v3: the comm hash and rank come with the first Coll/P2p (under c->lock) */
static void announce(struct np_ctx *c, uint64_t hash, int rank)
{
	struct ph_plugin_ev ev = { .rank = rank, .nranks = -1, .peer = -1 };

	if (c->announced || !hash)
		return;
	c->comm_hash = hash;
	c->rank = rank;
	c->announced = true;
	ev.comm_hash = hash;
	np_emit(FT_OP_COMM_INIT, false, true, &ev);
}

/* ---- completion ---- */

static void unlink_pending(struct np_ctx *c, struct np_obj *o)
{
	for (struct np_obj **pp = &c->pending; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			return;
		}
}

__attribute__((format(printf, 2, 3)))
static void set_name(struct ph_plugin_ev *ev, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(ev->name, buf, sizeof(ev->name) - 1);
	ev->name[sizeof(ev->name) - 1] = 0;
}

static void emit_parent(struct np_obj *o)
{
	struct ph_plugin_ev ev = { 0 };
	struct np_ctx *c = o->ctx;
	uint64_t a = o->first_ns, b = o->last_ns;

	if (!c->reannounced) {
		/* again with the first call: a recorder that attached after init sees it */
		struct ph_plugin_ev ce = { .comm_hash = c->comm_hash, .rank = c->rank,
					   .nranks = c->nranks, .peer = -1 };

		c->reannounced = true;
		np_emit(FT_OP_COMM_INIT, false, true, &ce);
	}
	ev.comm_hash = c->comm_hash;
	ev.seq = o->seq;
	ev.count = o->count;
	ev.rank = c->rank;
	ev.nranks = c->nranks;
	ev.peer = o->peer;
	ev.dtype_size = o->dtype_size;
	ev.nchannels = (uint32_t)(o->nchannels > 0 ? o->nchannels : 0);
	if (o->gpu && o->ptimer_start && o->ptimer_stop >= o->ptimer_start && np_gpu_to_host(1)) {
		ev.start_ns = np_gpu_to_host(o->ptimer_start);
		ev.end_ns = np_gpu_to_host(o->ptimer_stop);
		ev.flags = PH_PEV_GPU_TIMER;
		STAT(gpu_timed);
	} else if (o->children && a && b >= a) {
		ev.start_ns = a;
		ev.end_ns = b;
		ev.flags = PH_PEV_PROXY;
		STAT(proxy_timed);
	} else {
		ev.start_ns = o->host_start;
		ev.end_ns = o->host_stop > o->host_start ? o->host_stop : o->host_start;
		ev.flags = PH_PEV_HOST;
		STAT(host_timed);
	}
	if (o->algo_proto[0])
		set_name(&ev, "%s/%dch", o->algo_proto, o->nchannels);
	else
		set_name(&ev, "%dch", o->nchannels);
	np_emit(o->op, false, false, &ev);
	STAT(emitted_coll);
}

static bool complete(const struct np_obj *o)
{
	if (o->refs > 0 || !o->stopped)
		return false;
	if (o->ctx->version >= 4 && o->nchannels > 0 && o->kch_stopped >= o->nchannels)
		return true;
	return o->superseded;
}

/*
 * Report a complete call and keep it among the last NP_DONE_KEEP reported:
 * NCCL may still start a child of it (one more channel than nChannels said),
 * whose parent pointer must stay valid.  The oldest is freed, unless a child
 * still holds it: then that child's stop frees it.  (under ctx lock)
 */
static void retire(struct np_ctx *c, struct np_obj *o)
{
	struct np_obj *old = c->done[c->done_pos];

	unlink_pending(c, o);
	emit_parent(o);
	o->emitted = true;
	if (old) {
		if (old->refs > 0)
			old->orphan = true;
		else
			free(old);
	}
	c->done[c->done_pos] = o;
	c->done_pos = (c->done_pos + 1) % NP_DONE_KEEP;
}

/* o's references all gone (under ctx lock) */
static void finish(struct np_obj *o);

static void release(struct np_obj *o)
{
	if (o && --o->refs <= 0)
		finish(o);
}

/* FABTRACE_NCCL_PROXY_OPS=0: no record per proxy op (one per call only) */
static int proxy_ops_on = -1;

static void emit_proxy(struct np_obj *o)
{
	struct ph_plugin_ev ev = { 0 };
	const struct np_obj *p = o->parent;

	if (proxy_ops_on < 0) {
		const char *e = getenv("FABTRACE_NCCL_PROXY_OPS");

		proxy_ops_on = !(e && strcmp(e, "0") == 0);
	}
	if (!proxy_ops_on)
		return;

	ev.comm_hash = o->ctx->comm_hash;
	ev.seq = p ? p->seq : 0;
	ev.count = o->bytes;
	ev.rank = o->ctx->rank;
	ev.nranks = o->ctx->nranks;
	ev.peer = o->peer;
	ev.dtype_size = 1;
	ev.nchannels = 1;
	ev.start_ns = o->host_start;
	ev.end_ns = o->host_stop;
	ev.flags = PH_PEV_PROXY;
	set_name(&ev, "%s ch%d %dst %lluus net%d", o->is_send ? "send" : "recv", o->channel,
		 o->steps_seen, (unsigned long long)(o->net_wait_ns / 1000), o->net_events);
	np_emit(FT_OP_CUSTOM, true, false, &ev);
	STAT(emitted_proxy);
}

static void finish(struct np_obj *o)
{
	struct np_obj *p = o->parent;

	switch (o->kind) {
	case NPO_COLL:
		if (o->emitted) {
			/* a late child let go of a call already reported */
			if (o->orphan)
				free(o);
			return;
		}
		if (complete(o))
			retire(o->ctx, o);
		return;
	case NPO_PROXY_OP:
		emit_proxy(o);
		if (p) {
			if (!p->first_ns || o->host_start < p->first_ns)
				p->first_ns = o->host_start;
			if (o->host_stop > p->last_ns)
				p->last_ns = o->host_stop;
		}
		break;
	case NPO_KERNEL_CH:
		if (p) {
			p->kch_stopped++;
			if (o->ptimer_start && o->ptimer_stop) {
				p->gpu = true;
				if (!p->ptimer_start || o->ptimer_start < p->ptimer_start)
					p->ptimer_start = o->ptimer_start;
				if (o->ptimer_stop > p->ptimer_stop)
					p->ptimer_stop = o->ptimer_stop;
			} else {
				/* v3: no GPU timer, the proxy's view of the channel */
				if (!p->first_ns || o->host_start < p->first_ns)
					p->first_ns = o->host_start;
				if (o->host_stop > p->last_ns)
					p->last_ns = o->host_stop;
			}
		}
		break;
	case NPO_PROXY_STEP:
		if (p) {
			p->steps_seen++;
			p->bytes += o->bytes;
			p->net_wait_ns += o->net_wait_ns;
			p->net_events += o->net_events;
		}
		break;
	case NPO_NET:
		if (p)
			p->net_events++;
		break;
	default:
		break;
	}
	free(o);
	release(p);
}

/* a child of `p` started: earlier calls of the communicator have run (under lock) */
static void supersede(struct np_ctx *c, const struct np_obj *p)
{
	struct np_obj *o = c->pending, *next;

	for (; o; o = next) {
		next = o->next;
		if (o == p || o->order >= p->order || o->superseded)
			continue;
		/* a call without children yet may run beside p (a group): wait longer */
		if (!o->children && p->order - o->order < 64)
			continue;
		o->superseded = true;
		if (complete(o))
			retire(c, o);
	}
}

/* ---- events ---- */

static uint64_t order_next;

nccl_result_t np_start(struct np_ctx *c, void **handle, const struct np_ev *e)
{
	struct np_obj *o, *p = NULL;

	*handle = NULL;
	if (!c)
		return NP_SUCCESS;
	o = calloc(1, sizeof(*o));
	if (!o) {
		STAT(dropped);
		return NP_SUCCESS;
	}
	o->ctx = c;
	o->refs = 1;
	o->host_start = np_now_ns();
	o->peer = -1;
	pthread_mutex_lock(&c->lock);
	switch (e->type) {
	case NP_COLL:
	case NP_P2P:
		o->kind = NPO_COLL;
		announce(c, e->comm_hash, e->rank);
		o->op = np_func_op(e->func);
		o->seq = e->type == NP_COLL && e->has_seq ? e->seq + 1 : 0;
		o->count = e->count;
		o->dtype_size = e->dtype_size;
		o->peer = e->root_peer;
		o->nchannels = e->nchannels;
		/* P2P descriptors carry no algorithm or protocol (NULL from NCCL 2.28) */
		snprintf(o->algo_proto, sizeof(o->algo_proto), "%s%s%s", e->algo ? e->algo : "",
			 e->algo && *e->algo && e->proto && *e->proto ? "/" : "",
			 e->proto ? e->proto : "");
		o->order = __atomic_add_fetch(&order_next, 1, __ATOMIC_RELAXED);
		o->next = c->pending;
		c->pending = o;
		break;
	case NP_PROXY_OP:
		o->kind = NPO_PROXY_OP;
		o->channel = e->channel;
		o->peer = e->root_peer;
		o->nsteps = e->nsteps;
		o->is_send = e->is_send;
		/* the parent lives in this process only: a detached op has none */
		if (e->pid == getpid())
			p = e->parent;
		else
			STAT(detached);
		break;
	case NP_PROXY_STEP:
		o->kind = NPO_PROXY_STEP;
		p = e->parent;
		break;
	case NP_KERNEL_CH:
		o->kind = NPO_KERNEL_CH;
		o->channel = e->channel;
		o->ptimer_start = e->ptimer;
		if (e->ptimer)
			gpu_seen(e->ptimer, o->host_start);
		p = e->parent;
		break;
	case NP_NET_PLUGIN:
		o->kind = NPO_NET;
		p = e->parent;
		break;
	default:
		pthread_mutex_unlock(&c->lock);
		free(o);
		return NP_SUCCESS;
	}
	/* the parent must be one of ours: its first field says what it is */
	if (p && (p->kind < NPO_COLL || p->kind > NPO_NET))
		p = NULL;
	if (p) {
		o->parent = p;
		p->refs++;
		if (p->kind == NPO_COLL) {
			p->children++;
			supersede(c, p);
		}
	}
	pthread_mutex_unlock(&c->lock);
	STAT(started);
	*handle = o;
	return NP_SUCCESS;
}

nccl_result_t np_state(void *h, int state, uint64_t ptimer, uint64_t trans_size, int steps)
{
	struct np_obj *o = h;
	uint64_t now;

	if (!o)
		return NP_SUCCESS;
	now = np_now_ns();
	pthread_mutex_lock(&o->ctx->lock);
	switch (o->kind) {
	case NPO_KERNEL_CH:
		if (state == NP_ST_KERNEL_CH_STOP && ptimer) {
			o->ptimer_stop = ptimer;
			gpu_seen(ptimer, now);
		}
		break;
	case NPO_PROXY_STEP:
		/* time waiting on the network: from SendWait/RecvWait to the next state or stop */
		if (o->state_ns) {
			o->net_wait_ns += now - o->state_ns;
			o->state_ns = 0;
		}
		if (state == NP_ST_STEP_SEND_WAIT || state == NP_ST_STEP_RECV_WAIT)
			o->state_ns = now;
		if (trans_size)
			o->bytes = trans_size;
		break;
	case NPO_PROXY_OP:
		/* v1..v3 carry the op's bytes and steps in its state args */
		if (trans_size > o->bytes)
			o->bytes = trans_size;
		if (steps > o->steps_seen)
			o->steps_seen = steps;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&o->ctx->lock);
	return NP_SUCCESS;
}

nccl_result_t np_stop(void *h)
{
	struct np_obj *o = h;
	struct np_ctx *c;

	if (!o)
		return NP_SUCCESS;
	c = o->ctx;
	pthread_mutex_lock(&c->lock);
	if (!o->stopped) {
		o->stopped = true;
		o->host_stop = np_now_ns();
		if (o->kind == NPO_PROXY_STEP && o->state_ns) {
			o->net_wait_ns += o->host_stop - o->state_ns;
			o->state_ns = 0;
		}
		STAT(stopped);
		release(o);
	}
	pthread_mutex_unlock(&c->lock);
	return NP_SUCCESS;
}

nccl_result_t np_finalize(struct np_ctx *c)
{
	struct np_obj *o;

	if (!c)
		return NP_SUCCESS;
	pthread_mutex_lock(&c->lock);
	while ((o = c->pending)) {
		c->pending = o->next;
		if (o->stopped) {
			emit_parent(o);
			free(o);
		} else {
			/* still referenced by a child NCCL never stopped: let it leak */
			STAT(dropped);
		}
	}
	for (unsigned i = 0; i < NP_DONE_KEEP; i++) {
		o = c->done[i];
		if (o && o->refs > 0)
			STAT(dropped); /* a child NCCL never stopped still holds it: let it leak */
		else
			free(o);
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return NP_SUCCESS;
}
