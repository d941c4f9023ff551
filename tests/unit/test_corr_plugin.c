// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for userspace/correlate/corr_plugin.c: the NCCL profiler plugin's records
 * in the correlator.  Matching by (commHash, function, seq) across ranks,
 * the enqueue-only twins of plugin-timed processes dropped (and the caveat
 * with them), proxy-op records kept out of the calls, and the caveat kept
 * for a process the plugin does not time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_plugin.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "records.h"

#define US 1000ull
#define MS 1000000ull
#define S0 (1000ull * MS)
#define BIN (100 * US)
#define NS1 4026532101u
#define NS2 4026532102u
#define NS3 4026532103u
#define HASH 0x9e3779b97f4a7c15ull

enum { SL_ENQ_AR = 1, SL_P_AR, SL_P_AG, SL_P_PROXY };

static struct model *mk(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	rec_slot(m, SL_ENQ_AR, FT_LIB_NCCL, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_ENQUEUE_ONLY,
		 "allreduce");
	rec_slot(m, SL_P_AR, FT_LIB_NCCL, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_PLUGIN, "allreduce");
	rec_slot(m, SL_P_AG, FT_LIB_NCCL, FT_OP_ALLGATHER, FT_SLOT_COLLECTIVE | FT_SLOT_PLUGIN, "allgather");
	rec_slot(m, SL_P_PROXY, FT_LIB_NCCL, FT_OP_CUSTOM, FT_SLOT_PLUGIN, "proxy_op");
	return m;
}

static void plugin_call(struct model *m, uint32_t slot, uint32_t pid, uint32_t ns, uint64_t a, uint64_t b,
			uint64_t seq, uint32_t flags)
{
	struct ft_phase r = rec_phase_init(slot, pid, ns, a, b);

	r.count = 1 << 18;
	r.dtype_size = 4;
	r.comm = HASH;
	r.seq = seq;
	r.flags = flags;
	r.ret = 2;
	rec_add(m, r);
}

static void proxy(struct model *m, uint32_t pid, uint32_t ns, uint64_t a, uint64_t b, uint64_t bytes)
{
	struct ft_phase r = rec_phase_init(SL_P_PROXY, pid, ns, a, b);

	r.count = bytes;
	r.dtype_size = 1;
	r.comm = HASH;
	r.seq = 1;
	r.flags = FT_PHASE_PROXY;
	rec_add(m, r);
}

static struct corr *build(struct model *m)
{
	struct corr *c = NULL;

	assert_int_equal(model__finish(m), 0);
	assert_int_equal(corr__build(m, NULL, &c), 0);
	return c;
}

/* Two ranks timed by the plugin (hash, per-function seq), with their host-side twins. */
static void two_ranks(struct model *m)
{
	for (uint32_t r = 0; r < 2; r++) {
		uint32_t pid = 2001 + r, ns = NS1 + r;
		uint64_t ptr = 0x7f0000aa0000ull + r * 0x10000ull, d = r * 3 * MS;

		rec_comm_info(m, pid, ptr, (int32_t)r, 2, S0);
		rec_comm_info(m, pid, HASH, (int32_t)r, 2, S0);
		for (uint64_t s = 1; s <= 2; s++) {
			uint64_t t = S0 + s * 100 * MS;

			/* the enqueue returns in 20 us; the GPU runs it 50 ms later for 40 ms */
			rec_call(m, SL_ENQ_AR, pid, ns, t, t + 20 * US, 1 << 18, 4, ptr, s);
			plugin_call(m, SL_P_AR, pid, ns, t + 50 * MS + d, t + 90 * MS, s - 1 + 1,
				    FT_PHASE_GPU_TIMER);
		}
		/* an all-gather with the same seq number 1: another function, another instance */
		plugin_call(m, SL_P_AG, pid, ns, S0 + 400 * MS, S0 + 410 * MS, 1, FT_PHASE_PROXY);
		proxy(m, pid, ns, S0 + 150 * MS, S0 + 190 * MS, 1 << 20);
	}
}

static const struct corr_instance *find(const struct corr *c, unsigned op, uint64_t seq)
{
	for (size_t i = 0; i < c->ninstances; i++)
		if (c->instances[i].op == op && c->instances[i].seq == seq)
			return &c->instances[i];
	fail_msg("no instance op %u seq %llu", op, (unsigned long long)seq);
	return NULL;
}

static void test_match_and_drop(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const struct corr_instance *in;

	(void)state;
	two_ranks(m);
	rec_end(m, S0 + 1000 * MS);
	c = build(m);
	assert_false(c->enqueue_only);
	assert_false(corr_plugin__enqueue_uncovered(m));
	assert_int_equal(c->plugin.dropped_enqueue, 4);
	assert_int_equal(c->plugin.calls, 6);
	assert_int_equal(c->plugin.gpu_timed, 4);
	assert_int_equal(c->plugin.proxy_timed, 2);
	assert_int_equal(c->plugin.proxy_ops, 2);
	assert_int_equal(c->plugin.proxy_bytes, 2 << 20);
	assert_int_equal(c->ncalls, 6);  /* proxy ops are not calls; the twins are gone */
	for (size_t i = 0; i < c->ncalls; i++) {
		assert_true(c->calls[i].flags & CORR_CALL_PLUGIN);
		assert_false(c->calls[i].flags & CORR_CALL_ENQUEUE_ONLY);
	}
	assert_int_equal(c->ninstances, 3);
	for (uint64_t s = 1; s <= 2; s++) {
		in = find(c, FT_OP_ALLREDUCE, s);
		assert_int_equal(in->nmembers, 2);
		assert_int_equal(in->comm_kind, CORR_COMM_HANDLE);
		assert_int_equal(in->comm, HASH);
		assert_false(in->enqueue_only);
		/* the GPU's times: rank 1 started 3 ms late and both ended together */
		assert_int_equal(in->span_ns, 40 * MS);
		assert_int_equal(in->skew_ns, 3 * MS);
		assert_int_equal(in->nranks, 2);
	}
	in = find(c, FT_OP_ALLGATHER, 1);
	assert_int_equal(in->nmembers, 2);
	corr__free(c);
	model__free(m);
}

/* A third process the plugin does not time keeps its enqueue-only call and the caveat. */
static void test_uncovered_keeps_caveat(void **state)
{
	struct model *m = mk();
	struct corr *c;

	(void)state;
	two_ranks(m);
	rec_comm_info(m, 3001, 0x7f0000cc0000ull, 0, 1, S0);
	rec_call(m, SL_ENQ_AR, 3001, NS3, S0 + 5 * MS, S0 + 5 * MS + 20 * US, 16, 4, 0x7f0000cc0000ull, 1);
	rec_end(m, S0 + 1000 * MS);
	c = build(m);
	assert_true(c->enqueue_only);
	assert_true(corr_plugin__enqueue_uncovered(m));
	assert_int_equal(c->plugin.dropped_enqueue, 4);
	assert_int_equal(c->ncalls, 7);
	corr__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_and_drop),
		cmocka_unit_test(test_uncovered_keeps_caveat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
