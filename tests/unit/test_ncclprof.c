// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the NCCL profiler plugin (probes/nccl_profiler): the ABI
 * layout (descriptors written byte by byte at the offsets NCCL's headers
 * give, then read through the plugin's own definitions), and the event
 * bookkeeping (children after the parent's stop, completion rules, GPU
 * timer conversion, detached proxy ops, finalize).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* the plugin is not part of libfabtrace: test its files whole, as one */
#include "probes/nccl_profiler/ncclprof.c"
#include "probes/nccl_profiler/ncclprof_abi.c"
#include "probes/nccl_profiler/ncclprof_emit.c"
#include "probes/nccl_profiler/ncclprof_names.c"

#define MAXEV 256
static struct rec {
	unsigned op;
	bool proxy, comm;
	struct ph_plugin_ev ev;
} recs[MAXEV];
static size_t nrecs;

static void hook(unsigned op, bool proxy, bool comm, const struct ph_plugin_ev *ev)
{
	if (nrecs < MAXEV)
		recs[nrecs++] = (struct rec){ op, proxy, comm, *ev };
}

static int setup(void **state)
{
	(void)state;
	nrecs = 0;
	np_reset();
	np_set_emit(hook);
	return 0;
}

static size_t count(bool proxy, bool comm)
{
	size_t n = 0;

	for (size_t i = 0; i < nrecs; i++)
		n += recs[i].proxy == proxy && recs[i].comm == comm;
	return n;
}

static const struct rec *nth_coll(size_t k)
{
	for (size_t i = 0; i < nrecs; i++)
		if (!recs[i].proxy && !recs[i].comm && k-- == 0)
			return &recs[i];
	return NULL;
}

static void put(void *buf, size_t off, const void *v, size_t n)
{
	memcpy((char *)buf + off, v, n);
}

#define PUT(buf, off, val) do { __typeof__(val) v_ = (val); put(buf, off, &v_, sizeof(v_)); } while (0)

/* ---- the ABI layout ---- */

static void test_abi_v5_coll(void **state)
{
	unsigned char d[sizeof(struct np_descr_v6)] = { 0 };
	struct np_ev e;

	(void)state;
	PUT(d, 0, (uint64_t)NP_COLL);
	PUT(d, 16, (int)3);                   /* rank */
	PUT(d, 24, (uint64_t)41);             /* seqNumber */
	PUT(d, 32, (const char *)"AllGather");
	PUT(d, 56, (size_t)1000);             /* count */
	PUT(d, 64, (int)2);                   /* root */
	PUT(d, 72, (const char *)"ncclBfloat16");
	PUT(d, 80, (uint8_t)8);               /* nChannels */
	PUT(d, 88, (const char *)"Ring");
	PUT(d, 96, (const char *)"LL128");
	for (int v = 5; v <= 6; v++) {
		assert_int_equal(np_norm(v, d, &e), 0);
		assert_int_equal(e.type, NP_COLL);
		assert_int_equal(e.rank, 3);
		assert_true(e.has_seq);
		assert_int_equal(e.seq, 41);
		assert_string_equal(e.func, "AllGather");
		assert_int_equal(e.count, 1000);
		assert_int_equal(e.dtype_size, 2);
		assert_int_equal(e.nchannels, 8);
		assert_string_equal(e.algo, "Ring");
		assert_string_equal(e.proto, "LL128");
	}
	/* v4: the same union, a one-byte type */
	memset(d, 0, 8);
	PUT(d, 0, (uint8_t)NP_COLL);
	assert_int_equal(np_norm(4, d, &e), 0);
	assert_int_equal(e.type, NP_COLL);
	assert_int_equal(e.seq, 41);
	assert_int_equal(e.nchannels, 8);
}

static void test_abi_v4_children(void **state)
{
	unsigned char d[sizeof(struct np_descr_v5)] = { 0 };
	struct np_ev e;
	void *parent = (void *)0x1234;

	(void)state;
	PUT(d, 0, (uint8_t)NP_KERNEL_CH);
	PUT(d, 8, parent);
	PUT(d, 24, (uint8_t)5);               /* channelId */
	PUT(d, 32, (uint64_t)777777);         /* pTimer */
	assert_int_equal(np_norm(4, d, &e), 0);
	assert_ptr_equal(e.parent, parent);
	assert_int_equal(e.channel, 5);
	assert_int_equal(e.ptimer, 777777);
	memset(d, 0, sizeof(d));
	PUT(d, 0, (uint64_t)NP_PROXY_OP);
	PUT(d, 24, (pid_t)99);
	PUT(d, 28, (uint8_t)3);
	PUT(d, 32, (int)7);                   /* peer */
	PUT(d, 36, (int)12);                  /* nSteps */
	PUT(d, 44, (int)1);                   /* isSend */
	assert_int_equal(np_norm(5, d, &e), 0);
	assert_int_equal(e.type, NP_PROXY_OP);
	assert_int_equal(e.pid, 99);
	assert_int_equal(e.channel, 3);
	assert_int_equal(e.root_peer, 7);
	assert_int_equal(e.nsteps, 12);
	assert_int_equal(e.is_send, 1);
	/* P2P: peer at 56, nChannels at 60 */
	memset(d, 0, sizeof(d));
	PUT(d, 0, (uint64_t)NP_P2P);
	PUT(d, 24, (const char *)"Send");
	PUT(d, 40, (const char *)"ncclFloat64");
	PUT(d, 48, (size_t)64);
	PUT(d, 56, (int)1);
	PUT(d, 60, (uint8_t)2);
	assert_int_equal(np_norm(6, d, &e), 0);
	assert_string_equal(e.func, "Send");
	assert_int_equal(e.dtype_size, 8);
	assert_int_equal(e.count, 64);
	assert_int_equal(e.root_peer, 1);
	assert_int_equal(e.nchannels, 2);
}

static void test_abi_v1_v2_v3(void **state)
{
	unsigned char d[sizeof(struct np_descr_v2)] = { 0 };
	struct np_ev e;

	(void)state;
	/* v1: enums */
	PUT(d, 0, (uint8_t)NP_COLL);
	PUT(d, 32, (uint64_t)0xabcdef);       /* commHash */
	PUT(d, 40, (uint64_t)9);              /* seqNumber */
	PUT(d, 48, (uint8_t)4);               /* ncclFuncAllReduce */
	PUT(d, 72, (size_t)256);
	PUT(d, 84, (uint8_t)7);               /* ncclFloat32 */
	PUT(d, 104, (uint8_t)4);              /* nMaxChannels */
	PUT(d, 106, (uint8_t)1);              /* Ring */
	PUT(d, 107, (uint8_t)2);              /* Simple */
	assert_int_equal(np_norm(1, d, &e), 0);
	assert_int_equal(e.comm_hash, 0xabcdef);
	assert_int_equal(e.seq, 9);
	assert_string_equal(e.func, "AllReduce");
	assert_int_equal(e.dtype_size, 4);
	assert_int_equal(e.count, 256);
	assert_int_equal(e.nchannels, 4);
	assert_string_equal(e.algo, "Ring");
	assert_string_equal(e.proto, "Simple");
	/* v2: strings, trafficBytes before nMaxChannels */
	memset(d, 0, sizeof(d));
	PUT(d, 0, (uint8_t)NP_COLL);
	PUT(d, 32, (uint64_t)0x55);
	PUT(d, 48, (const char *)"ReduceScatter");
	PUT(d, 88, (const char *)"ncclInt8");
	PUT(d, 96, (size_t)12345);            /* trafficBytes */
	PUT(d, 104, (uint8_t)6);
	PUT(d, 112, (const char *)"Tree");
	PUT(d, 120, (const char *)"LL");
	assert_int_equal(np_norm(2, d, &e), 0);
	assert_string_equal(e.func, "ReduceScatter");
	assert_int_equal(e.dtype_size, 1);
	assert_int_equal(e.nchannels, 6);
	assert_string_equal(e.algo, "Tree");
	assert_string_equal(e.proto, "LL");
	/* v3: no trafficBytes: nMaxChannels at 96, algo 104, proto 112 */
	memset(d + 96, 0, sizeof(d) - 96);
	PUT(d, 96, (uint8_t)3);
	PUT(d, 104, (const char *)"PAT");
	PUT(d, 112, (const char *)"Simple");
	assert_int_equal(np_norm(3, d, &e), 0);
	assert_int_equal(e.nchannels, 3);
	assert_string_equal(e.algo, "PAT");
	assert_string_equal(e.proto, "Simple");
	assert_int_equal(np_norm(7, d, &e), -EINVAL);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(np_func_op("AllReduce"), FT_OP_ALLREDUCE);
	assert_int_equal(np_func_op("AlltoAll"), FT_OP_ALLTOALL);
	assert_int_equal(np_func_op("Recv"), FT_OP_RECV);
	assert_int_equal(np_func_op("SendRecv"), FT_OP_CUSTOM);
	assert_int_equal(np_func_op(NULL), FT_OP_CUSTOM);
	assert_int_equal(np_func_op_v1(0), FT_OP_BCAST);
	assert_int_equal(np_func_op_v1(200), FT_OP_CUSTOM);
	assert_int_equal(np_dtype_size("ncclFloat8e5m2"), 1);
	assert_int_equal(np_dtype_size("ncclUint64"), 8);
	assert_int_equal(np_dtype_size("nope"), 0);
	assert_int_equal(np_dtype_size(NULL), 0);
}

/* ---- bookkeeping, through the function tables as NCCL calls them ---- */

static struct np_descr_v5 coll5(uint64_t seq, int nch)
{
	struct np_descr_v5 d;

	memset(&d, 0, sizeof(d));
	d.type = NP_COLL;
	d.rank = 1;
	d.coll.seqNumber = seq;
	d.coll.func = "AllReduce";
	d.coll.count = 1024;
	d.coll.datatype = "ncclFloat32";
	d.coll.nChannels = (uint8_t)nch;
	d.coll.algo = "Ring";
	d.coll.proto = "Simple";
	return d;
}

static struct np_descr_v5 child5(int type, void *parent)
{
	struct np_descr_v5 d;

	memset(&d, 0, sizeof(d));
	d.type = (uint64_t)type;
	d.parentObj = parent;
	d.rank = 1;
	if (type == NP_PROXY_OP) {
		d.proxyOp.pid = getpid();
		d.proxyOp.peer = 2;
		d.proxyOp.isSend = 1;
	}
	return d;
}

static void test_gpu_children_after_stop(void **state)
{
	const struct np_table_v5 *t = &ncclProfiler_v6;
	void *ctx, *c, *k[2];
	struct np_descr_v5 d = coll5(0, 2);
	union np_state_v4 st;
	const struct rec *r;
	uint64_t now;

	(void)state;
	assert_int_equal(t->init(&ctx, 0xfeedull, &(int){ 0 }, "c", 1, 4, 1, NULL), 0);
	assert_int_equal(count(false, true), 1);          /* init announces (hash, rank, size) */
	assert_int_equal(recs[0].ev.comm_hash, 0xfeed);
	assert_int_equal(recs[0].ev.rank, 1);
	assert_int_equal(recs[0].ev.nranks, 4);
	t->startEvent(ctx, &c, &d);
	assert_non_null(c);
	t->stopEvent(c);                                  /* enqueued only */
	assert_null(nth_coll(0));
	/* the GPU timer: a different clock, 1e12 ns ahead of the host's; the
	 * channels ran 10 ms .. 5 ms ago, and the proxy sees it only now */
	now = np_now_ns() - 10000000ull;
	for (int i = 0; i < 2; i++) {
		struct np_descr_v5 kd = child5(NP_KERNEL_CH, c);

		kd.kernelCh.channelId = (uint8_t)i;
		kd.kernelCh.pTimer = now + 1000000000000ull + 1000ull * (uint64_t)i;
		t->startEvent(ctx, &k[i], &kd);
		assert_non_null(k[i]);
	}
	for (int i = 0; i < 2; i++) {
		st.kernelCh.pTimer = now + 1000000000000ull + 5000000ull + 1000ull * (uint64_t)i;
		t->recordEventState(k[i], NP_ST_KERNEL_CH_STOP, &st);
		t->stopEvent(k[i]);
		/* complete only when both channels stopped */
		assert_true((nth_coll(0) != NULL) == (i == 1));
	}
	r = nth_coll(0);
	assert_int_equal(r->op, FT_OP_ALLREDUCE);
	assert_int_equal(r->ev.flags, PH_PEV_GPU_TIMER);
	assert_int_equal(r->ev.seq, 1);
	assert_int_equal(r->ev.comm_hash, 0xfeed);
	assert_int_equal(r->ev.count, 1024);
	assert_int_equal(r->ev.dtype_size, 4);
	assert_int_equal(r->ev.nchannels, 2);
	assert_string_equal(r->ev.name, "Ring/Simple/2ch");
	/* 5 ms + 1 us of GPU time, on the host clock near when it was seen */
	assert_int_equal(r->ev.end_ns - r->ev.start_ns, 5001000);
	assert_true(r->ev.start_ns >= now && r->ev.start_ns < now + 1000000000ull);
	assert_true(r->ev.end_ns <= np_now_ns());
	assert_int_equal(t->finalize(ctx), 0);
	assert_int_equal(count(false, false), 1);
}

static void test_proxy_superseded(void **state)
{
	const struct np_table_v1 *t = &ncclProfiler_v3;
	struct np_descr_v3 d;
	void *ctx, *c[2], *op[2], *step;
	union np_state_v1 st = { .proxyOp = { 4096, 2 } };
	struct np_stats s;

	(void)state;
	assert_int_equal(t->init(&ctx, &(int){ 0 }), 0);
	assert_int_equal(count(false, true), 0);          /* v3: no hash at init */
	for (int i = 0; i < 2; i++) {
		memset(&d, 0, sizeof(d));
		d.type = NP_COLL;
		d.rank = 2;
		d.coll.commHash = 0x77;
		d.coll.seqNumber = (uint64_t)i;
		d.coll.func = "Broadcast";
		d.coll.datatype = "ncclInt32";
		d.coll.count = 10;
		d.coll.root = 0;
		d.coll.nMaxChannels = 1;
		t->startEvent(ctx, &c[i], &d);
		t->stopEvent(c[i]);
	}
	assert_int_equal(count(false, true), 1);          /* announced with the first Coll */
	assert_int_equal(recs[0].ev.comm_hash, 0x77);
	assert_int_equal(recs[0].ev.rank, 2);
	for (int i = 0; i < 2; i++) {
		memset(&d, 0, sizeof(d));
		d.type = NP_PROXY_OP;
		d.parentObj = c[i];
		d.proxyOp.pid = getpid();
		d.proxyOp.peer = 1;
		t->startEvent(ctx, &op[i], &d);
		memset(&d, 0, sizeof(d));
		d.type = NP_PROXY_STEP;
		d.parentObj = op[i];
		t->startEvent(ctx, &step, &d);
		t->recordEventState(op[i], NP_ST_PROXY_OP_SEND_TRANSMITTED, &st);
		t->stopEvent(op[i]);                      /* the op stops before its step */
		assert_int_equal(count(true, false), (size_t)i);
		t->stopEvent(step);
		assert_int_equal(count(true, false), (size_t)i + 1);
		/* call 0 completes when call 1's child starts, call 1 only at finalize */
		assert_int_equal(count(false, false), (size_t)i);
	}
	assert_int_equal(nth_coll(0)->ev.flags, PH_PEV_PROXY);
	assert_int_equal(nth_coll(0)->op, FT_OP_BCAST);
	assert_int_equal(nth_coll(0)->ev.seq, 1);
	assert_int_equal(nth_coll(0)->ev.peer, 0);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].proxy) {
			assert_int_equal(recs[i].ev.count, 4096);  /* bytes from the op's state args */
			assert_int_equal(recs[i].ev.peer, 1);
			assert_int_equal(recs[i].ev.comm_hash, 0x77);
		}
	t->finalize(ctx);
	assert_int_equal(count(false, false), 2);
	assert_int_equal(nth_coll(1)->ev.seq, 2);
	assert_int_equal(nth_coll(1)->ev.flags, PH_PEV_PROXY);
	np_get_stats(&s);
	assert_int_equal(s.proxy_timed, 2);
	assert_int_equal(s.emitted_proxy, 2);
}

static void test_host_only_and_detached(void **state)
{
	const struct np_table_v5 *t = &ncclProfiler_v5;
	void *ctx, *c, *op;
	struct np_descr_v5 d = coll5(3, 0), od;
	struct np_stats s;

	(void)state;
	t->init(&ctx, 0x99, &(int){ 0 }, "c", 1, 2, 0, NULL);
	t->startEvent(ctx, &c, &d);
	t->stopEvent(c);
	/* a proxy op of another process: its parent pointer is not ours to read */
	od = child5(NP_PROXY_OP, (void *)0x1);
	od.proxyOp.pid = getpid() + 1;
	t->startEvent(ctx, &op, &od);
	t->stopEvent(op);
	assert_int_equal(count(true, false), 1);
	assert_int_equal(recs[nrecs - 1].ev.seq, 0);
	/* stopping twice counts once */
	t->stopEvent(op == c ? NULL : c);
	assert_int_equal(count(false, false), 0);
	t->finalize(ctx);
	assert_int_equal(count(false, false), 1);
	assert_int_equal(nth_coll(0)->ev.flags, PH_PEV_HOST);
	assert_int_equal(nth_coll(0)->ev.seq, 4);
	np_get_stats(&s);
	assert_int_equal(s.detached, 1);
	assert_int_equal(s.host_timed, 1);
	/* unknown event types get no handle */
	d.type = NP_GROUP;
	t->init(&ctx, 0x99, &(int){ 0 }, "c", 1, 2, 0, NULL);
	op = (void *)1;
	t->startEvent(ctx, &op, &d);
	assert_null(op);
	t->finalize(ctx);
}

static void test_p2p_not_collective(void **state)
{
	const struct np_table_v5 *t = &ncclProfiler_v6;
	void *ctx, *c, *op;
	struct np_descr_v5 d, od;

	(void)state;
	t->init(&ctx, 0x5, &(int){ 0 }, "c", 1, 2, 0, NULL);
	memset(&d, 0, sizeof(d));
	d.type = NP_P2P;
	d.p2p.func = "Recv";
	d.p2p.datatype = "ncclUint8";
	d.p2p.count = 100;
	d.p2p.peer = 1;
	d.p2p.nChannels = 2;
	t->startEvent(ctx, &c, &d);
	t->stopEvent(c);
	od = child5(NP_PROXY_OP, c);
	t->startEvent(ctx, &op, &od);
	t->stopEvent(op);
	t->finalize(ctx);
	assert_int_equal(count(false, false), 1);
	assert_int_equal(nth_coll(0)->op, FT_OP_RECV);
	assert_int_equal(nth_coll(0)->ev.seq, 0);     /* P2P: no seqNumber, not a collective */
	assert_int_equal(nth_coll(0)->ev.peer, 1);
	assert_int_equal(nth_coll(0)->ev.flags, PH_PEV_PROXY);
	/* no algorithm or protocol: "2ch", not "/2ch" (as real NCCL 2.28.9 showed) */
	assert_string_equal(nth_coll(0)->ev.name, "2ch");
}

/* A child that starts after its call was reported (one more channel than
 * nChannels said), even after the call left the kept window: no second
 * report, no use of freed memory (run under SANITIZE=1 to see). */
static void test_late_child(void **state)
{
	const struct np_table_v5 *t = &ncclProfiler_v6;
	void *ctx, *c, *k, *late, *other;
	struct np_descr_v5 d = coll5(0, 1), kd;
	union np_state_v4 st;
	uint64_t now = np_now_ns();

	(void)state;
	t->init(&ctx, 0x42, &(int){ 0 }, "c", 1, 2, 0, NULL);
	t->startEvent(ctx, &c, &d);
	t->stopEvent(c);
	kd = child5(NP_KERNEL_CH, c);
	kd.kernelCh.pTimer = now - 2000;
	t->startEvent(ctx, &k, &kd);
	st.kernelCh.pTimer = now - 1000;
	t->recordEventState(k, NP_ST_KERNEL_CH_STOP, &st);
	t->stopEvent(k);
	assert_int_equal(count(false, false), 1);
	t->startEvent(ctx, &late, &kd);      /* the late channel holds the reported call */
	assert_non_null(late);
	/* more calls than the kept window: the held one is not freed under the child */
	for (int i = 1; i <= NP_DONE_KEEP + 2; i++) {
		struct np_descr_v5 di = coll5((uint64_t)i, 1), ki;

		t->startEvent(ctx, &other, &di);
		t->stopEvent(other);
		ki = child5(NP_KERNEL_CH, other);
		ki.kernelCh.pTimer = now;
		t->startEvent(ctx, &k, &ki);
		st.kernelCh.pTimer = now + 10;
		t->recordEventState(k, NP_ST_KERNEL_CH_STOP, &st);
		t->stopEvent(k);
	}
	assert_int_equal(count(false, false), NP_DONE_KEEP + 3);
	t->recordEventState(late, NP_ST_KERNEL_CH_STOP, &st);
	t->stopEvent(late);                  /* frees the call it held */
	assert_int_equal(count(false, false), NP_DONE_KEEP + 3);
	t->finalize(ctx);
	assert_int_equal(count(false, false), NP_DONE_KEEP + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_abi_v5_coll, setup),
		cmocka_unit_test_setup(test_abi_v4_children, setup),
		cmocka_unit_test_setup(test_abi_v1_v2_v3, setup),
		cmocka_unit_test_setup(test_names, setup),
		cmocka_unit_test_setup(test_gpu_children_after_stop, setup),
		cmocka_unit_test_setup(test_proxy_superseded, setup),
		cmocka_unit_test_setup(test_host_only_and_detached, setup),
		cmocka_unit_test_setup(test_p2p_not_collective, setup),
		cmocka_unit_test_setup(test_late_child, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
