// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the correlator (userspace/correlate/) on synthetic models: matching of
 * collectives across ranks (integer handles and pointers), non-blocking
 * completion (handle reuse), the bandwidth formulas, the verdict rules,
 * marker steps as parents of collectives, and inferred phases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "records.h"

#define US 1000ull
#define MS 1000000ull
#define S0 (1000ull * MS)    /* capture start */
#define BIN (100 * US)       /* 100 us bins */
#define NS1 4026532101u
#define NS2 4026532102u
#define NS3 4026532103u
#define NS4 4026532104u
#define NSW 4026532199u
#define WORLD 0x44000000ull  /* MPICH's MPI_COMM_WORLD handle */

/* slots */
enum { SL_ALLREDUCE = 1, SL_ALLGATHER, SL_REDSCAT, SL_IALLREDUCE, SL_WAIT, SL_STEP, SL_MARK, SL_BARRIER,
       SL_NCCL_AR, SL_SEND, SL_BCAST, SL_REDUCE };

static struct model *mk(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	return m;
}

static void mpi_slots(struct model *m)
{
	rec_slot(m, SL_ALLREDUCE, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	rec_slot(m, SL_ALLGATHER, FT_LIB_MPI, FT_OP_ALLGATHER, FT_SLOT_COLLECTIVE, "allgather");
	rec_slot(m, SL_REDSCAT, FT_LIB_MPI, FT_OP_REDUCE_SCATTER, FT_SLOT_COLLECTIVE, "reduce_scatter");
	rec_slot(m, SL_IALLREDUCE, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_NONBLOCKING,
		 "iallreduce");
	rec_slot(m, SL_WAIT, FT_LIB_MPI, FT_OP_COMPLETION, FT_SLOT_COMPLETION, "wait");
	rec_slot(m, SL_STEP, FT_LIB_MARKER, FT_OP_STEP, FT_SLOT_MARKER, "step");
	rec_slot(m, SL_MARK, FT_LIB_MARKER, FT_OP_MARK, FT_SLOT_MARKER, "phase");
	rec_slot(m, SL_BARRIER, FT_LIB_MPI, FT_OP_BARRIER, FT_SLOT_COLLECTIVE, "barrier");
	rec_slot(m, SL_SEND, FT_LIB_MPI, FT_OP_SEND, 0, "send");
	rec_slot(m, SL_BCAST, FT_LIB_MPI, FT_OP_BCAST, FT_SLOT_COLLECTIVE, "bcast");
	rec_slot(m, SL_REDUCE, FT_LIB_MPI, FT_OP_REDUCE, FT_SLOT_COLLECTIVE, "reduce");
}

/*
 * Three MPI ranks: rank r is pid PID0 + r on eth0 of host h(r+1) (netns
 * NS1 + r); the host of rank SHAPED (-1: none) has a 100 Mbit/s limit.
 */
static void three_ranks(struct model *m, uint32_t pid0, int shaped)
{
	for (uint32_t r = 0; r < 3; r++) {
		char ns[8];

		snprintf(ns, sizeof(ns), "h%u", r + 1);
		rec_iface(m, NS1 + r, 2, "eth0", ns, 10000, (int)r == shaped ? 100000 : 0);
		rec_comm_info(m, pid0 + r, WORLD, (int32_t)r, 3, S0);
	}
}

static struct corr *build(struct model *m, enum corr_phases_mode mode)
{
	struct corr_opts o;
	struct corr *c = NULL;

	if (!m->finished)
		assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	o.phases = mode;
	assert_int_equal(corr__build(m, &o, &c), 0);
	assert_non_null(c);
	return c;
}

/* The instance with this op and seq (exactly one). */
static const struct corr_instance *inst(const struct corr *c, unsigned op, uint64_t seq, uint32_t kind)
{
	const struct corr_instance *found = NULL;

	for (size_t i = 0; i < c->ninstances; i++)
		if (c->instances[i].op == op && c->instances[i].seq == seq && c->instances[i].comm_kind == kind) {
			if (found)
				fail_msg("two instances of op %u seq %llu", op, (unsigned long long)seq);
			found = &c->instances[i];
		}
	if (!found)
		fail_msg("no instance of op %u seq %llu", op, (unsigned long long)seq);
	return found;
}

static const struct corr_rank *rank_of(const struct corr *c, int32_t rank)
{
	for (size_t i = 0; i < c->nranks; i++)
		if (c->ranks[i].rank == rank)
			return &c->ranks[i];
	fail_msg("no rank %d", rank);
	return NULL;
}

static uint32_t rank_index(const struct corr *c, int32_t rank)
{
	return (uint32_t)(rank_of(c, rank) - c->ranks);
}

static const struct corr_call *member(const struct corr *c, const struct corr_instance *in, size_t k)
{
	assert_true(k < in->nmembers);
	return &c->calls[c->members[in->first_member + k]];
}

/* ---- formulas ---- */

static void test_size_and_factors(void **state)
{
	(void)state;
	/* nccl-tests size */
	assert_int_equal(corr__size_bytes(FT_OP_ALLREDUCE, 4096, 8, false), 4096);
	assert_int_equal(corr__size_bytes(FT_OP_BCAST, 4096, 8, false), 4096);
	assert_int_equal(corr__size_bytes(FT_OP_REDUCE, 4096, 8, false), 4096);
	assert_int_equal(corr__size_bytes(FT_OP_SEND, 4096, 8, false), 4096);
	assert_int_equal(corr__size_bytes(FT_OP_ALLGATHER, 4096, 8, false), 32768);
	assert_int_equal(corr__size_bytes(FT_OP_REDUCE_SCATTER, 4096, 8, false), 32768);
	assert_int_equal(corr__size_bytes(FT_OP_ALLTOALL, 4096, 8, false), 32768);
	assert_int_equal(corr__size_bytes(FT_OP_ALLGATHER, 4096, 8, true), 4096);  /* v-variant: a total */
	assert_int_equal(corr__size_bytes(FT_OP_BARRIER, 4096, 8, false), 0);
	assert_int_equal(corr__size_bytes(FT_OP_ALLGATHER, UINT64_MAX / 2, 8, false), UINT64_MAX);
	/* busbw factors */
	assert_true(corr__busbw_factor(FT_OP_ALLREDUCE, 4) == 1.5);
	assert_true(corr__busbw_factor(FT_OP_ALLREDUCE, 8) == 1.75);
	assert_true(corr__busbw_factor(FT_OP_ALLREDUCE, 1) == 0.0);
	assert_true(corr__busbw_factor(FT_OP_ALLGATHER, 4) == 0.75);
	assert_true(corr__busbw_factor(FT_OP_REDUCE_SCATTER, 4) == 0.75);
	assert_true(corr__busbw_factor(FT_OP_ALLTOALL, 2) == 0.5);
	assert_true(corr__busbw_factor(FT_OP_BCAST, 4) == 1.0);
	assert_true(corr__busbw_factor(FT_OP_REDUCE, 4) == 1.0);
	assert_true(corr__busbw_factor(FT_OP_SEND, 2) == 1.0);
	assert_true(corr__busbw_factor(FT_OP_ALLREDUCE, 0) == 1.0);
	/* congestion drop reasons */
	assert_true(corr__congestion_drop("QDISC_DROP"));
	assert_true(corr__congestion_drop("QDISC_OVERLIMIT"));
	assert_true(corr__congestion_drop("CPU_BACKLOG"));
	assert_false(corr__congestion_drop("NO_SOCKET"));
	assert_false(corr__congestion_drop("NOT_SPECIFIED"));
	assert_false(corr__congestion_drop(NULL));
}

/*
 * Four ranks, one allreduce of 1 MiB (262144 int32): entries 1 ms apart,
 * every exit at +5 ms.  all-arrived = 5 - 3 = 2 ms, so algbw = 1048576 B /
 * 2 ms = 524288000 B/s and busbw = 1.5 x that = 786432000 B/s.  Plus an
 * allgather (1000 x 8 B per rank on 4 ranks: size 32000, factor 0.75) and
 * a reduce_scatter whose count is already the total.
 */
static void test_bandwidth_instance(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const struct corr_instance *in;
	uint64_t t = S0 + 10 * MS;

	(void)state;
	mpi_slots(m);
	for (uint32_t r = 0; r < 4; r++) {
		uint32_t pid = 100 + r;

		rec_comm_info(m, pid, WORLD, (int32_t)r, 4, S0);
		rec_call(m, SL_ALLREDUCE, pid, NS1 + r, t + r * MS, t + 5 * MS, 262144, 4, WORLD, 1);
		rec_call(m, SL_ALLGATHER, pid, NS1 + r, t + 10 * MS, t + 10 * MS + 400 * US, 1000, 8, WORLD, 2);
		{
			struct ft_phase p = rec_phase_init(SL_REDSCAT, pid, NS1 + r, t + 20 * MS, t + 21 * MS);

			p.count = 4000;
			p.dtype_size = 4;
			p.comm = WORLD;
			p.seq = 3;
			p.flags = FT_PHASE_COUNT_TOTAL;
			rec_add(m, p);
		}
	}
	rec_end(m, S0 + 100 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_int_equal(c->ninstances, 3);
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_equal(in->nmembers, 4);
	assert_int_equal(in->nranks, 4);
	assert_int_equal(in->size_bytes, 1048576);
	assert_int_equal(in->span_ns, 5 * MS);
	assert_int_equal(in->skew_ns, 3 * MS);
	assert_int_equal(in->all_arrived_ns, 2 * MS);
	assert_true(in->busbw_factor == 1.5);
	assert_true(in->algbw == 524288000.0);
	assert_true(in->busbw == 786432000.0);
	assert_int_equal(in->straggler, rank_index(c, 3));
	/* waits: last entry - own entry = 3, 2, 1, 0 ms */
	assert_int_equal(rank_of(c, 0)->wait_ns, 3 * MS);
	assert_int_equal(rank_of(c, 1)->wait_ns, 2 * MS);
	assert_int_equal(rank_of(c, 3)->wait_ns, 0);
	assert_int_equal(rank_of(c, 3)->straggler_count, 1);
	assert_int_equal(rank_of(c, 3)->late_ns, 1 * MS); /* after rank 2's entry */

	in = inst(c, FT_OP_ALLGATHER, 2, CORR_COMM_HANDLE);
	assert_int_equal(in->size_bytes, 32000);
	assert_true(in->busbw_factor == 0.75);
	assert_true(in->algbw == 32000.0 * 1e9 / 400000.0);     /* 80000000 B/s */
	assert_true(in->busbw == 60000000.0);
	in = inst(c, FT_OP_REDUCE_SCATTER, 3, CORR_COMM_HANDLE);
	assert_int_equal(in->size_bytes, 16000);                 /* count is the total: no x 4 */
	assert_true(in->busbw == 16000.0 * 1e9 / 1e6 * 0.75);

	/* per-rank counts and bytes per op (raw count x dtype; size = nccl-tests size) */
	const struct corr_rank *r0 = rank_of(c, 0);

	assert_int_equal(r0->calls, 3);
	assert_int_equal(r0->collectives, 3);
	assert_int_equal(r0->nops, 3);
	for (size_t k = 0; k < r0->nops; k++) {
		const struct corr_rank_op *op = &c->rank_ops[r0->first_op + k];

		assert_int_equal(op->calls, 1);
		if (op->op == FT_OP_ALLREDUCE) {
			assert_int_equal(op->bytes, 1048576);
			assert_int_equal(op->time_ns, 5 * MS);
		} else if (op->op == FT_OP_ALLGATHER) {
			assert_int_equal(op->bytes, 8000);
			assert_int_equal(op->size_bytes, 32000);
		} else {
			assert_int_equal(op->op, FT_OP_REDUCE_SCATTER);
			assert_int_equal(op->bytes, 16000);
		}
	}
	/* op stats: one group per op */
	assert_int_equal(c->nopstats, 3);
	assert_int_equal(c->opstats[0].op, FT_OP_ALLREDUCE);
	assert_int_equal(c->opstats[0].count, 1);
	assert_true(c->opstats[0].busbw_mean == 786432000.0);
	corr__free(c);
	model__free(m);
}

/* ---- matching ---- */

/*
 * Three ranks on MPICH (integer handles): three allreduces on WORLD and two
 * on a sub-communicator of ranks 0 and 1, records arriving out of order.
 * World ranks come from the largest communicator each pid reported.
 */
static void test_match_handles(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const uint64_t sub = 0x84000002ull;

	(void)state;
	mpi_slots(m);
	/* rank 2 first, and its seq 3 before seq 1: order must not matter */
	for (int pass = 2; pass >= 0; pass--) {
		uint32_t pid = 300 + (uint32_t)pass;

		for (uint64_t s = 3; s >= 1; s--) {
			uint64_t t = S0 + s * 10 * MS;

			rec_call(m, SL_ALLREDUCE, pid, NS1 + (uint32_t)pass, t + (uint64_t)pass * 100 * US,
				 t + 2 * MS, 1024, 4, WORLD, s);
		}
		rec_comm_info(m, pid, WORLD, -1, 3, S0);       /* size first ... */
		rec_comm_info(m, pid, WORLD, pass, -1, S0 + 1); /* ... rank later */
	}
	/* the sub-communicator: pid 300 is rank 1 there, pid 301 rank 0 */
	rec_comm_info(m, 300, sub, 1, 2, S0);
	rec_comm_info(m, 301, sub, 0, 2, S0);
	for (uint64_t s = 1; s <= 2; s++) {
		rec_call(m, SL_ALLREDUCE, 300, NS1, S0 + 50 * MS + s * MS, S0 + 50 * MS + s * MS + 300 * US, 8, 4, sub, s);
		rec_call(m, SL_ALLREDUCE, 301, NS2, S0 + 50 * MS + s * MS + 100 * US, S0 + 50 * MS + s * MS + 300 * US,
			 8, 4, sub, s);
	}
	rec_end(m, S0 + 100 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->nranks, 3);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(c->ranks[r].rank, r);              /* sorted by world rank */
		assert_int_equal(c->ranks[r].pid, 300 + (uint32_t)r);
		assert_int_equal(c->ranks[r].world_size, 3);
	}
	assert_int_equal(c->ninstances, 5);
	for (uint64_t s = 1; s <= 3; s++) {
		const struct corr_instance *in = NULL;

		for (size_t i = 0; i < c->ninstances; i++)
			if (c->instances[i].comm == WORLD && c->instances[i].seq == s)
				in = &c->instances[i];
		assert_non_null(in);
		assert_int_equal(in->nmembers, 3);
		assert_int_equal(in->comm_size, 3);
		assert_false(in->partial);
		/* members by rank; entry of rank r = t + r x 100 us */
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(member(c, in, k)->pid, 300 + k);
		assert_int_equal(in->first_entry, S0 + s * 10 * MS);
		assert_int_equal(in->skew_ns, 200 * US);
		assert_int_equal(in->straggler, rank_index(c, 2));
	}
	for (size_t i = 0; i < c->ninstances; i++) {
		if (c->instances[i].comm != sub)
			continue;
		assert_int_equal(c->instances[i].nmembers, 2);
		assert_int_equal(c->instances[i].nranks, 2);
		assert_int_equal(c->instances[i].straggler, rank_index(c, 1)); /* pid 301 entered last */
	}
	/* instances sorted by first entry */
	for (size_t i = 1; i < c->ninstances; i++)
		assert_true(c->instances[i - 1].first_entry <= c->instances[i].first_entry);
	/* every collective call belongs to the instance that lists it */
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_instance *in = &c->instances[c->calls[i].instance];
		bool found = false;

		for (size_t k = 0; k < in->nmembers; k++)
			found |= c->members[in->first_member + k] == i;
		assert_true(found);
	}
	corr__free(c);
	model__free(m);
}

/*
 * Open MPI / NCCL: communicators are pointers that differ per process.
 * Two ranks use WORLD (size 2) first, then SUB (size 2) with seq 1 and 2 on
 * each; a third rank uses only a size-3 communicator.  Matching by raw
 * pointer would give one-member instances.
 */
static void test_match_pointers(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const uint64_t wa = 0x7f0000001000ull, sa = 0x7f0000002000ull;  /* pid 401 */
	const uint64_t wb = 0x555500000a00ull, sb = 0x555500000b00ull;  /* pid 402 */

	(void)state;
	mpi_slots(m);
	rec_comm_info(m, 401, wa, 0, 2, S0);
	rec_comm_info(m, 401, sa, 0, 2, S0);
	rec_comm_info(m, 402, wb, 1, 2, S0);
	rec_comm_info(m, 402, sb, 1, 2, S0);
	for (uint64_t s = 1; s <= 2; s++) {
		uint64_t t = S0 + s * 10 * MS;

		rec_call(m, SL_ALLREDUCE, 401, NS1, t, t + MS, 16, 4, wa, s);
		rec_call(m, SL_ALLREDUCE, 402, NS2, t + 10 * US, t + MS, 16, 4, wb, s);
		rec_call(m, SL_ALLREDUCE, 401, NS1, t + 5 * MS, t + 6 * MS, 32, 4, sa, s);
		rec_call(m, SL_ALLREDUCE, 402, NS2, t + 5 * MS + 20 * US, t + 6 * MS, 32, 4, sb, s);
	}
	rec_comm_info(m, 403, 0x7f00000f0000ull, 0, 3, S0);
	rec_call(m, SL_ALLREDUCE, 403, NS3, S0 + 60 * MS, S0 + 61 * MS, 16, 4, 0x7f00000f0000ull, 1);
	rec_end(m, S0 + 100 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->ninstances, 5);
	size_t two = 0;

	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		assert_int_equal(in->comm_kind, CORR_COMM_POINTER);
		if (in->comm_size == 2) {
			two++;
			assert_int_equal(in->nmembers, 2);
			assert_int_equal(member(c, in, 0)->pid, 401);
			assert_int_equal(member(c, in, 1)->pid, 402);
			/* WORLD was used first in both processes: order 0, 16 x 4 B */
			assert_int_equal(in->size_bytes, in->comm_order == 0 ? 64 : 128);
			assert_int_equal(member(c, in, 0)->comm, in->comm_order == 0 ? wa : sa);
			assert_int_equal(member(c, in, 1)->comm, in->comm_order == 0 ? wb : sb);
		} else {
			assert_int_equal(in->comm_size, 3);
			assert_int_equal(in->nmembers, 1);
			assert_true(in->partial);
		}
	}
	assert_int_equal(two, 4);
	corr__free(c);
	model__free(m);
}

/*
 * Non-blocking: an Iallreduce ends at the first completion of its (pid,
 * request) after its start.  Handle 0xAA is reused: two calls, two
 * completions; a stale completion before the first call is ignored; a call
 * whose request never completes ends at its return and is flagged.
 */
static void test_nonblocking(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const struct corr_instance *in;

	(void)state;
	mpi_slots(m);
	rec_req_done(m, 501, 0xAA, S0 + 5 * MS);                 /* stale: before any call */
	rec_call_nb(m, SL_IALLREDUCE, 501, NS1, S0 + 10 * MS, S0 + 10 * MS + 50 * US, 256, 4, WORLD, 1, 0xAA);
	rec_call(m, SL_WAIT, 501, NS1, S0 + 12 * MS, S0 + 15 * MS, 0, 0, 0, 0);
	rec_req_done(m, 501, 0xAA, S0 + 15 * MS);
	rec_call_nb(m, SL_IALLREDUCE, 501, NS1, S0 + 20 * MS, S0 + 20 * MS + 50 * US, 256, 4, WORLD, 2, 0xAA);
	rec_req_done(m, 501, 0xAA, S0 + 31 * MS);
	rec_req_done(m, 501, 0xBB, S0 + 32 * MS);                /* another handle */
	rec_call_nb(m, SL_IALLREDUCE, 501, NS1, S0 + 40 * MS, S0 + 40 * MS + 50 * US, 256, 4, WORLD, 3, 0xCC);
	/* the peer, blocking-style numbers, so the instance spans both */
	rec_call_nb(m, SL_IALLREDUCE, 502, NS2, S0 + 10 * MS, S0 + 11 * MS, 256, 4, WORLD, 1, 0xAA);
	rec_req_done(m, 502, 0xAA, S0 + 14 * MS);                /* same handle value, other pid */
	rec_end(m, S0 + 100 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->ncalls, 5);
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];

		if (k->pid != 501 || k->op != FT_OP_ALLREDUCE)
			continue;
		assert_true(k->flags & CORR_CALL_NONBLOCKING);
		if (k->seq == 1) {
			assert_int_equal(k->end_ns, S0 + 15 * MS);
			assert_int_equal(k->ret_ns, S0 + 10 * MS + 50 * US);
			assert_true(k->flags & CORR_CALL_COMPLETED);
		} else if (k->seq == 2) {
			assert_int_equal(k->end_ns, S0 + 31 * MS);
			assert_true(k->flags & CORR_CALL_COMPLETED);
		} else {
			assert_int_equal(k->end_ns, S0 + 40 * MS + 50 * US);
			assert_true(k->flags & CORR_CALL_NO_COMPLETION);
			assert_false(k->flags & CORR_CALL_COMPLETED);
		}
	}
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_equal(in->nmembers, 2);
	assert_int_equal(in->last_exit, S0 + 15 * MS);
	assert_int_equal(member(c, in, 1)->end_ns, S0 + 14 * MS);
	assert_false(in->open);
	assert_true(inst(c, FT_OP_ALLREDUCE, 3, CORR_COMM_HANDLE)->open);
	/* the Wait itself is a call, not a collective */
	assert_int_equal(c->ninstances, 3);
	corr__free(c);
	model__free(m);
}

/* Every instance's budget sums to its span, and its items to its network share less the carried part. */
static void assert_budgets_sum(const struct corr *c)
{
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_budget *b = &c->instances[i].budget;
		uint64_t items = 0;

		assert_int_equal(b->total_ns, c->instances[i].span_ns);
		assert_int_equal(b->total_ns, b->waiting_ns + b->usual_ns + b->network_ns + b->unexplained_ns);
		/* a held rank's time is waited for inside the transfer */
		assert_true(b->stalled_ns <= b->waiting_ns && b->stalled_ns <= b->excess_ns);
		assert_int_equal(b->total_ns, b->waiting_ns - b->stalled_ns + b->carried_ns + b->transfer_ns);
		assert_int_equal(b->transfer_ns, b->expected_ns + b->excess_ns);
		for (size_t k = 0; k < b->ncosts; k++)
			items += c->costs[b->first_cost + k].cost_ns;
		assert_int_equal(items + b->carried_network_ns, b->network_ns);
		assert_true(items <= b->excess_ns - b->stalled_ns);
	}
}

/* ---- verdict rules (pure) ---- */

/* A collective whose budget is EXPECTED + WAITING + NETWORK + UNEXPLAINED. */
static struct corr_verdict_in shares_in(uint64_t expected, uint64_t waiting, uint64_t network, uint64_t unexplained)
{
	struct corr_verdict_in in;

	memset(&in, 0, sizeof(in));
	in.expected_ns = expected;
	in.waiting_ns = waiting;
	in.network_ns = network;
	in.unexplained_ns = unexplained;
	in.span_ns = waiting + expected + network + unexplained;
	in.total_ns = in.span_ns;
	in.typical_ns = expected;
	in.skew_ns = waiting;
	in.net_observed = true;
	in.peak_util = 0.3;
	return in;
}

static void test_verdict_rules(void **state)
{
	struct corr_opts o;
	struct corr_verdict_in in;
	unsigned why;

	(void)state;
	corr_opts__init(&o);
	/* near its usual time: ok, whatever leads */
	in = shares_in(100 * MS, 40 * MS, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_OK);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_NONE);
	assert_false(why & CORR_WHY_SLOW);
	/* slow at slow_factor (1.5) x its time without the shares, exactly */
	in = shares_in(100 * MS, 50 * MS, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_RANK);
	assert_true(why & CORR_WHY_SLOW);
	in = shares_in(100 * MS, 50 * MS - 1, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_OK);
	/* the group's usual spread is no cause: a transfer 40 ms over the expected
	 * where the typical one is 30 ms over is 10 ms unexplained, not 40 */
	in = shares_in(100 * MS, 0, 0, 40 * MS);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_NONE);
	in = shares_in(60 * MS, 0, 0, 40 * MS);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_UNEXPLAINED);
	in.typical_ns = 90 * MS;
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_NONE);
	in = shares_in(60 * MS, 50 * MS, 0, 40 * MS);           /* 50 ms waiting against 40 ms unexplained: a tie */
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_TIE);
	in.typical_ns = 90 * MS;                                  /* but only 10 ms beyond the spread */
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);
	/* ... and at least skew_min_ns over it: a 50 us collective 700 us late is ok */
	in = shares_in(50 * US, 700 * US, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);
	in = shares_in(50 * US, 1 * MS, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);

	/* the MPICH collective: 151 ms waiting weighs more than 7 retransmits */
	in = shares_in(76 * MS, 151 * MS, 12 * MS, 28 * MS);
	in.retrans = 7;
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_RANK);
	assert_true(why & CORR_WHY_RETRANS);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_WAITING);
	/* the network's excess leads */
	in = shares_in(10 * MS, 2 * MS, 250 * MS, 5 * MS);
	in.queue_delay_ns = 2400 * US;
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_NETWORK);
	assert_true(why & CORR_WHY_QUEUE);
	/* unexplained leads: slow and unexplained */
	in = shares_in(10 * MS, 2 * MS, 1 * MS, 50 * MS);
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_UNKNOWN);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_UNEXPLAINED);

	/* congested all along (no clean transfer in the group): the usual is congested too, so a
	 * collective whose items are explains (0.2) of its transfer is slow against a clean network */
	in = shares_in(210 * MS, 10 * MS, 90 * MS, 0);           /* 310 ms against 210 ms: 1.48x, not slow */
	in.transfer_ns = 300 * MS;
	in.items_ns = 90 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);
	in.congested_all_along = true;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_NETWORK);
	in.items_ns = 60 * MS - 1;                               /* just under 0.2 x 300 ms */
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);
	in = shares_in(250 * MS, 60 * MS, 50 * MS, 0);           /* still weighed: 60 ms waiting, 50 network */
	in.congested_all_along = true;
	in.transfer_ns = 300 * MS;
	in.items_ns = 60 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_UNKNOWN);
	in.waiting_ns = in.skew_ns = 80 * MS;                    /* 80 against 50: waiting leads */
	in.span_ns = in.total_ns = 380 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);

	/* lateness carried from a predecessor that was not the network's is judged there, not
	 * here: a busy run's all-reduce, 150 ms waiting for its straggler, 74.8 ms usual
	 * transfer, 24 ms unexplained, 430 ms carried from a stalled predecessor */
	in = shares_in(75 * MS, 150 * MS, 0, 24 * MS);
	in.total_ns = in.span_ns + 430 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);   /* against 505 ms "usual": not slow */
	in.carried_usual_ns = 430 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);
	in = shares_in(100 * MS, 40 * MS, 0, 0);                 /* and still ok near its own usual */
	in.total_ns = in.span_ns + 430 * MS;
	in.carried_usual_ns = 430 * MS;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);

	/* the margin: the leader needs margin x the next */
	in = shares_in(10 * MS, 150 * MS, 100 * MS, 0);          /* exactly 1.5x */
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);
	in = shares_in(10 * MS, 150 * MS - 1, 100 * MS, 0);      /* just under */
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_UNKNOWN);
	assert_int_equal(corr__leader(&o.th, &in), CORR_SHARE_TIE);
	in = shares_in(10 * MS, 100 * MS, 150 * MS, 0);
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_NETWORK);
	o.th.margin = 2.0;                                       /* thresholds are options */
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_UNKNOWN);
	corr_opts__init(&o);
	o.th.slow_factor = 4.0;
	in = shares_in(100 * MS, 200 * MS, 0, 0);
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_OK);
	o.th.slow_factor = 3.0;
	assert_int_equal(corr__verdict(&o.th, &in, NULL), CORR_RANK);
	corr_opts__init(&o);

	/* the evidence bits are reported, not weighed: each alone on a collective near its usual */
	in = shares_in(100 * MS, 0, 0, 0);
	in.queue_delay_ns = 1 * MS;                              /* exactly the threshold */
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_OK);
	assert_int_equal(why, CORR_WHY_QUEUE);
	in.queue_delay_ns = 1 * MS - 1;
	corr__verdict(&o.th, &in, &why);
	assert_int_equal(why, 0);
	in = shares_in(100 * MS, 0, 0, 0);
	in.peak_util = 1.2;
	corr__verdict(&o.th, &in, &why);
	assert_int_equal(why, CORR_WHY_UTIL);
	/* straggler bit: its lateness >= 50 % of itself + the transfer, and >= 1 ms */
	in = shares_in(50 * MS, 50 * MS, 0, 0);
	in.span_ns = 100 * MS;
	corr__verdict(&o.th, &in, &why);
	assert_true(why & CORR_WHY_STRAGGLER);
	in.skew_ns = 50 * MS - 1;
	corr__verdict(&o.th, &in, &why);
	assert_false(why & CORR_WHY_STRAGGLER);
	/* an untraced network: said, and a late rank still leads */
	in = shares_in(20 * MS, 80 * MS, 0, 0);
	in.net_observed = false;
	assert_int_equal(corr__verdict(&o.th, &in, &why), CORR_RANK);
	assert_true(why & CORR_WHY_UNOBSERVED);
}

/*
 * The rule table's order is the precedence (verdict_rules.c): over a grid of
 * budgets, the verdict is the one correlate.h documents -- ok when not slow,
 * unknown when no share leads by the margin, else the leading share's --
 * whatever evidence bits hold, and every bit that held is reported.
 */
static void test_verdict_precedence(void **state)
{
	static const uint64_t v[] = { 0, 1 * MS, 20 * MS, 60 * MS, 200 * MS };
	struct corr_opts o;

	(void)state;
	corr_opts__init(&o);
	for (size_t u = 0; u < 5; u++)
		for (size_t w = 0; w < 5; w++)
			for (size_t n = 0; n < 5; n++)
				for (size_t x = 0; x < 5; x++)
					for (unsigned bits = 0; bits < 1u << 4; bits++) {
		struct corr_verdict_in in = shares_in(v[u], v[w], v[n], v[x]);
		uint64_t over = v[w] + v[n] + v[x], s[3] = { v[w], v[n], v[x] }, top = 0, next = 0;
		int lead = 0;
		enum corr_verdict want;
		unsigned why;

		in.cong_drops = bits & 1;
		in.retrans = !!(bits & 2);
		in.ce_pkts = !!(bits & 4);
		in.net_observed = !(bits & 8);
		for (int k = 0; k < 3; k++)
			if (s[k] > s[lead])
				lead = k;
		top = s[lead];
		for (int k = 0; k < 3; k++)
			if (k != lead && s[k] > next)
				next = s[k];
		if (!over || over < o.th.skew_min_ns || (double)(over + v[u]) < o.th.slow_factor * (double)v[u])
			want = CORR_OK;
		else if ((double)top < o.th.margin * (double)next)
			want = CORR_UNKNOWN;
		else
			want = lead == 0 ? CORR_RANK : lead == 1 ? CORR_NETWORK : CORR_UNKNOWN;
		assert_int_equal(corr__verdict(&o.th, &in, &why), want);
		assert_int_equal(!!(why & CORR_WHY_DROPS), bits & 1);
		assert_int_equal(!!(why & CORR_WHY_RETRANS), !!(bits & 2));
		assert_int_equal(!!(why & CORR_WHY_CE), !!(bits & 4));
		assert_int_equal(!!(why & CORR_WHY_UNOBSERVED), !!(bits & 8));
		assert_int_equal(!!(why & CORR_WHY_SLOW), want != CORR_OK);
	}
}

/* ---- verdicts on whole scenarios ---- */

static uint32_t iface_index(const struct model *m, uint32_t netns, uint32_t ifindex)
{
	const struct model_iface *f = model__iface(m, netns, ifindex);

	assert_non_null(f);
	return (uint32_t)(f - m->ifaces);
}

/*
 * Retransmits on rank 0's flow name its link, h1's eth0, and where the flow
 * goes (10.0.0.100, which h2's eth0 sends from): the congestion may be
 * anywhere on that path.  A queue below the threshold on another link (h2's
 * tbf) is still shown, but with its own link's name and figures, never as
 * the named link's.
 */
static struct model *queue_elsewhere_model(unsigned duplicates);

/* test_network_queue_elsewhere's job; DUPLICATES segments dropped by the receiver as old data */
static struct model *queue_elsewhere_model(unsigned duplicates)
{
	struct model *m = mk();
	struct ft_flow f = rec_flow(1, 40000, 5000, NS1), back;
	uint64_t t = S0 + 100 * MS;

	f.ifindex = 2;
	mpi_slots(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 100000);
	rec_comm_info(m, 601, WORLD, 0, 2, S0);
	rec_comm_info(m, 602, WORLD, 1, 2, S0);
	rec_proc(m, 601, 600, NS1, FT_PROC_EXISTING, S0, "allreduce");
	rec_proc(m, 602, 600, NS2, FT_PROC_EXISTING, S0, "allreduce");
	rec_owner(m, f, 601, S0, "allreduce");
	rec_call(m, SL_ALLREDUCE, 601, NS1, t, t + 240 * MS, 262144, 4, WORLD, 1);
	rec_call(m, SL_ALLREDUCE, 602, NS2, t + 200 * US, t + 240 * MS, 262144, 4, WORLD, 1);
	/* 114 B queued on h2's tbf for 3.8 us: far below the queue threshold */
	rec_qbin(m, 0, NS2, 2, 0x10000, t + 2 * MS, 114, 1, 3810, 1, 3810, 1, 114, 0);
	/* a segment lost and resent on its retransmission timeout: the transfer stalled 200 ms */
	for (uint64_t r = 0; r < 3; r++)
		rec_retrans(m, f, t + 225 * MS + r * MS, FT_RTX_RTO);
	/* the receiver's side of the flow, seen on h2's eth0 */
	back = f;
	memcpy(back.saddr, f.daddr, 4);
	memcpy(back.daddr, f.saddr, 4);
	back.sport = f.dport;
	back.dport = f.sport;
	back.netns = NS2;
	back.ifindex = 2;
	rec_sample(m, back, 100, 10);
	rec_reason(m, 33, "TCP_OLD_DATA");
	for (unsigned d = 0; d < duplicates; d++)
		rec_drop(m, t + 226 * MS + d, 0, 0, 33); /* TCP's own: no device */
	rec_end(m, S0 + 500 * MS);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_network_queue_elsewhere(void **state)
{
	struct model *m = queue_elsewhere_model(0);
	struct corr *c;
	const struct corr_instance *in;
	char buf[1024];

	(void)state;
	c = build(m, CORR_PHASES_AUTO);
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_equal(in->verdict, CORR_NETWORK);
	assert_int_equal(in->ev.link, iface_index(m, NS1, 2));
	/* three segments resent on one timeout: one stall of the RTO floor (and their 2 ms), not three */
	assert_int_equal(in->budget.ncosts >= 1, 1);
	assert_int_equal(c->costs[in->budget.first_cost].kind, CORR_COST_RTO);
	assert_int_equal(c->costs[in->budget.first_cost].count, 3);
	assert_int_equal(c->costs[in->budget.first_cost].raw_ns, 202 * MS);
	assert_int_equal(c->costs[in->budget.first_cost].iface, iface_index(m, NS1, 2));
	assert_int_equal(in->budget.toward_flow, c->costs[in->budget.first_cost].flow);
	corr__describe(c, (size_t)(in - c->instances), buf, sizeof(buf));
	if (!strstr(buf, "network-bound: link eth0@h1 toward 10.0.0.100 (eth0@h2): queueing ") ||
	    !strstr(buf, " on eth0@h2 (tbf 1:) (backlog 114 B, sojourn max 3.81 us), 3 retransmits"))
		fail_msg("description: %s", buf);
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * The same timeout where the receiver dropped, as old data, segments it
 * already had: 2 of them against 3 retransmits.  Nothing was lost in the
 * network (a host late to acknowledge, its sender's timer fired): the
 * retransmits are no item of the network's.
 */
static void test_spurious_retransmits(void **state)
{
	struct model *m = queue_elsewhere_model(2);
	struct corr *c;
	const struct corr_instance *in;

	(void)state;
	c = build(m, CORR_PHASES_AUTO);
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_not_equal(in->verdict, CORR_NETWORK);
	for (size_t k = 0; k < in->budget.ncosts; k++)
		assert_int_not_equal(c->costs[in->budget.first_cost + k].kind, CORR_COST_RTO);
	assert_int_equal(in->budget.network_ns, 0);   /* a lone instance: its own usual, the rest 0 */
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
	/* one duplicate against three retransmits: a loss after all */
	m = queue_elsewhere_model(1);
	c = build(m, CORR_PHASES_AUTO);
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_equal(in->verdict, CORR_NETWORK);
	corr__free(c);
	model__free(m);
}

/*
 * Scenario (a): two ranks, h2's uplink shaped to 100 Mbit/s with a tbf
 * queue.  Allreduces 1 and 2 take 40 ms: their data leaves h2 at the shaped
 * rate for 38 ms while its queue holds 30 kB (2.4 ms at 100 Mbit/s; sojourn
 * max 2.5 ms), with QDISC_DROPs on it and retransmits on rank 1's flow: the
 * network's share leads, naming eth0@h2 and tbf 1:.  Allreduce 3 takes 5 ms
 * on a clean network but for a tail-loss probe (its loss not real: no
 * window reduction followed): ok, and the baseline of the other two.  A
 * retransmit on a flow in h2 owned by another process, and one outside every
 * window, are not evidence.
 */
static void test_network_bound(void **state)
{
	struct model *m = mk();
	struct corr *c;
	struct ft_flow mine = rec_flow(2, 40000, 5000, NS2), other = rec_flow(2, 40001, 6000, NS2);
	char buf[1024];

	(void)state;
	mpi_slots(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 100000);
	rec_reason(m, 5, "QDISC_DROP");
	rec_reason(m, 2, "NO_SOCKET");
	rec_comm_info(m, 601, WORLD, 0, 2, S0);
	rec_comm_info(m, 602, WORLD, 1, 2, S0);
	rec_proc(m, 601, 600, NS1, FT_PROC_EXISTING, S0, "allreduce");
	rec_proc(m, 602, 600, NS2, FT_PROC_EXISTING, S0, "allreduce");
	rec_owner(m, mine, 602, S0, "allreduce");
	rec_owner(m, other, 999, S0, "iperf");
	for (uint64_t s = 1; s <= 3; s++) {
		uint64_t t = S0 + s * 100 * MS;

		uint64_t d = s == 3 ? 5 * MS : 40 * MS;

		rec_call(m, SL_ALLREDUCE, 601, NS1, t, t + d, 262144, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 602, NS2, t + 200 * US, t + d, 262144, 4, WORLD, s);
		/* the transfer: h2 TX at the shaped rate (1250 B per 100 us bin), 38 ms of it (#3: one bin) */
		for (uint64_t b = 0; b < (s == 3 ? 1 : 380); b++)
			rec_bin(m, 0, NS2, 2, FT_DIR_TX, t + MS + b * BIN, 1250, 1, 0);
		rec_bin(m, 0, NS1, 2, FT_DIR_RX, t + MS, 1250, 1, 0);
		if (s == 3) {
			/* a tail-loss probe (late ACK) is shown but is no evidence of loss */
			rec_retrans(m, mine, t + 4 * MS, FT_RTX_TLP);
			continue;
		}
		rec_qbin(m, 0, NS2, 2, 0x10000, t + 2 * MS, 30000, 20, 2000000, 20, 2500000, 20, 30000, 10 * (uint32_t)s);
		rec_qbin(m, 1, NS2, 2, 0x10000, t + 3 * MS, 12000, 8, 800000, 8, 900000, 8, 12000, 10 * (uint32_t)s + 4);
		rec_drop(m, t + 2 * MS + 10, NS2, 2, 5);
		rec_drop(m, t + 2 * MS + 20, NS2, 2, 5);
		rec_drop(m, t + 2 * MS + 30, NS2, 2, 2);  /* not a congestion drop */
		rec_retrans(m, mine, t + 5 * MS, FT_RTX_FAST);
		rec_retrans(m, other, t + 5 * MS, FT_RTX_RTO);
	}
	rec_retrans(m, mine, S0 + 50 * MS, FT_RTX_RTO);  /* outside every window */
	rec_end(m, S0 + 500 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->ninstances, 3);
	uint32_t h2 = iface_index(m, NS2, 2);

	for (uint64_t s = 1; s <= 2; s++) {
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, s, CORR_COMM_HANDLE);

		assert_int_equal(in->verdict, CORR_NETWORK);
		assert_true(in->why & CORR_WHY_QUEUE);
		assert_true(in->why & CORR_WHY_DROPS);
		assert_true(in->why & CORR_WHY_RETRANS);
		assert_true(in->why & CORR_WHY_UTIL);
		assert_false(in->why & CORR_WHY_STRAGGLER);
		assert_int_equal(in->ev.link, h2);
		assert_int_not_equal(in->ev.qdisc, CORR_NONE);
		assert_int_equal(m->qdiscs[in->ev.qdisc].handle, 0x10000);
		assert_int_equal(in->ev.max_sojourn_ns, 2500000);
		assert_int_equal(in->ev.max_backlog_bytes, 30000);
		assert_int_equal(in->ev.queue_delay_ns, 2500000);   /* max(sojourn, 30 kB at 100 Mbit/s = 2.4 ms) */
		assert_int_equal(in->ev.drops, 3);
		assert_int_equal(in->ev.cong_drops, 2);
		assert_int_equal(in->ev.retrans, 1);                /* only rank 1's own flow, only inside */
		assert_true(in->ev.peak_util > 0.99 && in->ev.peak_util < 1.01);
		assert_int_equal(in->ev.peak_iface, h2);
		/* the budget: 39.8 ms of transfer against allreduce 3's 4.8 ms, the excess the network's */
		assert_int_equal(in->budget.transfer_ns, 39800 * US);
		assert_int_equal(in->budget.expected_ns, 4800 * US);
		assert_int_equal(in->budget.expected_from, CORR_EXPECTED_GROUP_MIN);
		assert_int_equal(in->budget.network_ns, 35 * MS);
		assert_int_equal(in->budget.unexplained_ns, 0);
		assert_int_equal(in->budget.leader, CORR_SHARE_NETWORK);
		assert_int_equal(in->budget.link, h2);
		corr__describe(c, (size_t)(in - c->instances), buf, sizeof(buf));
		if (!strstr(buf, "network-bound: link eth0@h2 (tbf 1:):") || !strstr(buf, "QDISC_DROP 2") ||
		    !strstr(buf, "1 retransmits") || !strstr(buf, "35.0 ms of 40.0 ms (88%) the network's: shaper 100 Mbit/s"))
			fail_msg("description: %s", buf);
	}
	{
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, 3, CORR_COMM_HANDLE);
		struct corr_evidence ev;

		assert_int_equal(in->verdict, CORR_OK);
		corr__describe(c, (size_t)(in - c->instances), buf, sizeof(buf));
		if (strcmp(buf, "ok: 5.00 ms, near its usual 4.80 ms"))
			fail_msg("description: %s", buf);
		assert_int_equal(in->ev.drops, 0);
		assert_int_equal(in->ev.retrans, 1);
		assert_int_equal(in->ev.retrans_tlp, 1);
		assert_false(in->why & CORR_WHY_RETRANS);
		assert_int_equal(in->ev.queue_delay_ns, 0);
		/* the details: one link per participating netns interface */
		assert_int_equal(corr__evidence(c, (size_t)(in - c->instances), &ev), 0);
		assert_int_equal(ev.nlinks, 2);
		assert_int_equal(ev.links[0].bytes[FT_DIR_RX] + ev.links[1].bytes[FT_DIR_RX], 1250);
		assert_int_equal(ev.links[0].bytes[FT_DIR_TX] + ev.links[1].bytes[FT_DIR_TX], 1250);
		/* its tail-loss probe was no loss: no item, and the shaper's 0.1 ms stays under a tenth */
		for (size_t k = 0; k < in->budget.ncosts; k++)
			assert_int_not_equal(c->costs[in->budget.first_cost + k].kind, CORR_COST_TLP);
		corr__evidence_free(&ev);
	}
	assert_int_equal(c->verdicts[CORR_NETWORK], 2);
	assert_int_equal(c->verdicts[CORR_OK], 1);
	/* processes: comm and host from the proc records and the interfaces */
	assert_int_equal(c->nprocs, 2);
	assert_string_equal(c->procs[1].comm, "allreduce");
	assert_string_equal(c->procs[1].host, "h2");
	assert_int_equal(c->procs[1].ppid, 600);
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * Scenario (a'): an RDMA fabric, where the collective's data bypasses the
 * kernel and only the adapters' counters see congestion.  Three ranks, one
 * allreduce every 100 ms (20 ms each), a clean TCP side.  A CNP storm on
 * the RoCE port behind h2's eth0 stretches allreduce 2 to 60 ms, a pause
 * storm on an InfiniBand port (no netdev: the whole node's) allreduce 3,
 * and a discard storm on a NIC in a namespace without ranks runs during
 * allreduce 4 (20 ms): 2 and 3 are network-bound on the counters, 1 and 4
 * are ok.
 */
static void test_counter_evidence(void **state)
{
	struct model *m = mk();
	struct corr *c;
	char buf[1024];
	uint64_t v;

	(void)state;
	mpi_slots(m);
	three_ranks(m, 500, -1);
	rec_iface(m, NSW, 7, "p9", "sw", 10000, 0);
	rec_rdma_port(m, 0, "mlx5_0", 1, FT_LL_ETHERNET, "eth0", NS2, 2, 10);
	rec_rdma_port(m, 1, "mlx5_1", 1, FT_LL_IB, "", 0, 0, 10);
	rec_ctr_group(m, 0, FT_CTR_PORT_HW, 0, 0, 0, 1, 10 * MS, "mlx5_0/1");
	rec_ctr_name(m, 0, 0, FT_CLS_CONGESTION, 0, "np_cnp_sent");
	rec_ctr_group(m, 1, FT_CTR_PORT_COUNTERS, 1, 0, 0, 1, 10 * MS, "mlx5_1/1");
	rec_ctr_name(m, 1, 0, FT_CLS_PAUSE, FT_CTRF_PACKETS, "rx_pause");
	rec_ctr_group(m, 2, FT_CTR_ETHTOOL, UINT32_MAX, NSW, 7, 1, 10 * MS, "p9@sw");
	rec_ctr_name(m, 2, 0, FT_CLS_DISCARD, FT_CTRF_PACKETS, "rx_discards_phy");
	for (uint64_t k = 0; k <= 50; k++) {
		uint64_t t = S0 + k * 10 * MS;

		/* allreduce s runs from S0 + s*100ms, for 60 ms during the storms of 2 and 3 */
		v = t > S0 + 200 * MS && t <= S0 + 260 * MS ? (k - 20) * 1000 : t > S0 + 260 * MS ? 6000 : 0;
		rec_ctr_sample(m, 0, t, 100, 1, &v);
		v = t > S0 + 300 * MS && t <= S0 + 360 * MS ? (k - 30) * 1000 : t > S0 + 360 * MS ? 6000 : 0;
		rec_ctr_sample(m, 1, t, 100, 1, &v);
		v = t > S0 + 400 * MS && t <= S0 + 420 * MS ? (k - 40) * 1000 : t > S0 + 420 * MS ? 2000 : 0;
		rec_ctr_sample(m, 2, t, 100, 1, &v);
	}
	for (uint64_t s = 1; s <= 4; s++) {
		uint64_t t = S0 + s * 100 * MS;

		for (uint32_t r = 0; r < 3; r++)
			rec_call(m, SL_ALLREDUCE, 500 + r, NS1 + r, t + r * 10000, t + (s == 2 || s == 3 ? 60 : 20) * MS,
				 1024, 4, WORLD, s);
	}
	rec_end(m, S0 + 600 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_int_equal(c->ninstances, 4);
	assert_int_equal(m->nctr_events, 3);
	{
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, 2, CORR_COMM_HANDLE);

		assert_int_equal(in->verdict, CORR_NETWORK);
		assert_true(in->why & CORR_WHY_CNP);
		assert_false(in->why & (CORR_WHY_PAUSE | CORR_WHY_RDMA_LOSS | CORR_WHY_QUEUE | CORR_WHY_RETRANS));
		assert_int_equal(in->ev.ctr_cong, 6000);
		assert_int_equal(in->ev.ctr_events, 1);
		assert_int_equal(in->budget.network_ns, 40 * MS);          /* 60 ms against allreduce 1's 20 */
		assert_int_equal(c->costs[in->budget.first_cost].kind, CORR_COST_CNP);
		assert_int_equal(in->ev.link, iface_index(m, NS2, 2));  /* the port's netdev */
		assert_string_equal(m->ctr_series[in->ev.ctr_series].name, "np_cnp_sent");
		corr__describe(c, (size_t)(in - c->instances), buf, sizeof(buf));
		if (!strstr(buf, "network-bound: link eth0@h2:") || !strstr(buf, "mlx5_0/1 np_cnp_sent +6000 (congestion)"))
			fail_msg("description: %s", buf);
	}
	{
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, 3, CORR_COMM_HANDLE);

		assert_int_equal(in->verdict, CORR_NETWORK);
		assert_true(in->why & CORR_WHY_PAUSE);
		assert_false(in->why & CORR_WHY_CNP);
		assert_int_equal(in->ev.ctr_pause, 6000);
		assert_int_equal(in->ev.link, CORR_NONE);               /* IB: no interface to name */
	}
	for (uint64_t s = 1; s <= 4; s += 3) {
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, s, CORR_COMM_HANDLE);

		assert_int_equal(in->verdict, CORR_OK);
		assert_int_equal(in->ev.ctr_events, 0);
		assert_int_equal(in->ev.ctr_discard, 0);               /* p9@sw carries no rank */
		assert_true(in->ev.observed);                          /* the IB port is the node's */
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * Scenario (b): three ranks on an unshaped fabric, rank 2 sleeps 50 ms
 * before every allreduce: the others wait, the skew is the delay, the
 * network is clean (traffic, no queue): rank-bound, straggler rank 2.  A
 * queue in a namespace without ranks and a retransmit on a flow owned by
 * another process in rank 0's namespace do not count.
 */
static void test_rank_bound(void **state)
{
	struct model *m = mk();
	struct corr *c;
	struct ft_flow f = rec_flow(1, 41000, 7000, NS1);
	char buf[1024];

	(void)state;
	mpi_slots(m);
	three_ranks(m, 700, -1);
	rec_iface(m, NS4, 2, "eth0", "h4", 10000, 100000);
	rec_owner(m, f, 9999, S0, "other");
	for (uint64_t s = 1; s <= 4; s++) {
		uint64_t t = S0 + s * 100 * MS;

		rec_call(m, SL_ALLREDUCE, 700, NS1, t, t + 52 * MS, 1024, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 701, NS2, t + 100 * US, t + 52 * MS, 1024, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 702, NS3, t + 50 * MS, t + 52 * MS, 1024, 4, WORLD, s);
		for (uint32_t r = 0; r < 3; r++)
			rec_bin(m, 0, NS1 + r, 2, FT_DIR_TX, t + 50 * MS + BIN, 4096, 3, 0);
		rec_qbin(m, 0, NS4, 2, 0x10000, t + 10 * MS, 30000, 20, 2000000, 20, 5000000, 20, 30000, 0);
		rec_retrans(m, f, t + 51 * MS, FT_RTX_RTO);
	}
	rec_end(m, S0 + 600 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->ninstances, 4);
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		assert_int_equal(in->verdict, CORR_RANK);
		assert_int_equal(in->straggler, rank_index(c, 2));
		assert_int_equal(in->skew_ns, 50 * MS);
		assert_int_equal(in->own_late_ns, 50 * MS);  /* rank 2 computed 50 ms longer than the others */
		assert_int_equal(in->all_arrived_ns, 2 * MS);
		assert_true(in->ev.observed);
		assert_int_equal(in->ev.queue_delay_ns, 0);
		assert_int_equal(in->ev.retrans, 0);
		corr__describe(c, i, buf, sizeof(buf));
		if (!strstr(buf, "rank-bound: rank 2 (pid 702, h3): 50.0 ms of 52.0 ms (96%) waiting for it; transfer 2.00 ms, "
				 "at its usual; network clean"))
			fail_msg("description: %s", buf);
	}
	assert_int_equal(rank_of(c, 2)->straggler_count, 4);
	assert_int_equal(rank_of(c, 2)->late_ns, 4 * (50 * MS - 100 * US));
	assert_int_equal(rank_of(c, 0)->wait_ns, 4 * 50 * MS);
	assert_int_equal(rank_of(c, 1)->wait_ns, 4 * (50 * MS - 100 * US));
	assert_int_equal(rank_of(c, 0)->straggler_count, 0);
	/* the slowest list is sorted by span: all equal here, then by entry */
	assert_int_equal(c->nby_span, 4);
	assert_int_equal(c->by_span[0], 0);
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * Every rank enters on time, and in allreduce 4 rank 1 gets no CPU for 300
 * ms after it entered (runnable, waiting in a run queue: the sampled
 * schedstat intervals of FT_REC_SCHED_WAIT), while two fast retransmits of
 * another rank's flow fall in that transfer.  The held time is rank 1's,
 * measured, before the retransmits' estimates are weighed: rank-bound on
 * rank 1, with `no_cpu`, not unknown (the collective is 300 ms over a usual
 * of 2 ms).  With an RTO as well (RTO: its estimate a material share of the
 * excess) the hold overlapped a transfer the network drew out: the network
 * keeps the excess, the hold stays evidence (no_cpu, held_ns).  Intervals with half of each waited (a CPU shared fairly,
 * FAIR) hold nothing: the verdict is what the rest says (not rank).
 */
static void held_case(bool fair, bool rto, struct corr **cp, struct model **mp)
{
	struct model *m = mk();
	struct ft_flow f = rec_flow(1, 41000, 7000, NS1);

	mpi_slots(m);
	three_ranks(m, 700, -1);
	rec_owner(m, f, 700, S0, "allreduce");
	for (uint64_t s = 1; s <= 6; s++) {
		uint64_t t = S0 + s * 400 * MS, took = s == 4 ? 302 * MS : 2 * MS;

		rec_call(m, SL_ALLREDUCE, 700, NS1, t, t + took, 1024, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 701, NS2, t + 100 * US, t + took, 1024, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 702, NS3, t + 200 * US, t + took, 1024, 4, WORLD, s);
		for (uint32_t r = 0; r < 3; r++)
			rec_bin(m, 0, NS1 + r, 2, FT_DIR_TX, t + took - BIN, 4096, 3, 0);
		if (s != 4)
			continue;
		if (fair) /* a CPU shared: half of every 20 ms interval waited */
			for (uint64_t k = 0; k < 15; k++)
				rec_sched_wait(m, 701, NS2, t + MS + k * 20 * MS, t + MS + (k + 1) * 20 * MS, 10 * MS,
					       10 * MS);
		else /* held 1 ms .. 301 ms after its entry: credited when it ran again */
			rec_sched_wait(m, 701, NS2, t + 290 * MS, t + 301 * MS, 300 * MS, 0);
		rec_retrans(m, f, t + 150 * MS, FT_RTX_FAST);
		rec_retrans(m, f, t + 200 * MS, FT_RTX_FAST);
		if (rto) /* material network evidence: the network keeps the excess */
			rec_retrans(m, f, t + 250 * MS, FT_RTX_RTO);
	}
	rec_end(m, S0 + 3000 * MS);
	*mp = m;
	*cp = build(m, CORR_PHASES_AUTO);
}

static void test_held_rank(void **state)
{
	struct model *m;
	struct corr *c;
	char buf[1024];

	(void)state;
	held_case(false, false, &c, &m);
	assert_int_equal(c->ninstances, 6);
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		const struct corr_budget *b = &in->budget;

		if (in->seq != 4) {
			assert_int_equal(in->verdict, CORR_OK);
			assert_int_equal(b->stalled_ns, 0);
			continue;
		}
		assert_int_equal(in->verdict, CORR_RANK);
		assert_true(in->why & CORR_WHY_NO_CPU);
		assert_int_equal(b->held_rank, rank_index(c, 1));
		assert_int_equal(b->waiting_rank, rank_index(c, 1));
		assert_int_equal(corr__blamed_rank(in), rank_index(c, 1));
		/* held from 1 ms to 301 ms after rank 0's entry; the transfer from 200 us to 302 ms */
		assert_int_equal(b->held_ns, 300 * MS);
		assert_int_equal(b->stalled_ns, b->excess_ns < 300 * MS ? b->excess_ns : 300 * MS);
		assert_true(b->stalled_ns >= 290 * MS);
		assert_int_equal(b->waiting_ns, b->stalled_ns + in->own_late_ns);
		corr__describe(c, i, buf, sizeof(buf));
		if (!strstr(buf, "rank-bound: rank 1 (pid 701, h2): ") || !strstr(buf, "runnable without a CPU"))
			fail_msg("description: %s", buf);
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);

	/* material network items beside the hold: the network's, the hold shown */
	held_case(false, true, &c, &m);
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		if (in->seq != 4)
			continue;
		assert_int_equal(in->budget.held_ns, 300 * MS);
		assert_int_equal(in->budget.stalled_ns, 0);
		assert_true(in->why & CORR_WHY_NO_CPU);
		assert_int_not_equal(in->verdict, CORR_RANK);
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);

	/* a fairly shared CPU holds nothing: the verdict is the rest's */
	held_case(true, false, &c, &m);
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		assert_int_equal(in->budget.held_ns, 0);
		assert_int_equal(in->budget.stalled_ns, 0);
		assert_false(in->why & CORR_WHY_NO_CPU);
		if (in->seq == 4)
			assert_int_not_equal(in->verdict, CORR_RANK);
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * A congested link finishes ranks at different times: in allreduce 1 rank 2
 * leaves 30 ms after the others (its last segments queued on h3's tbf,
 * which let them out at 100 Mbit/s), and so enters allreduce 2 30 ms late
 * although every rank computed 5 ms in between.  That skew is not rank 2's
 * doing: it is carried from allreduce 1's network share (persistent
 * congestion), so allreduce 2 is network-bound on h3 (not rank-bound, not
 * unknown), and rank 2 is not its straggler by its own time.
 */
static void test_late_from_previous(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const uint64_t t1 = S0 + 100 * MS, t2 = t1 + 45 * MS;

	(void)state;
	mpi_slots(m);
	three_ranks(m, 800, 2);
	for (uint32_t r = 0; r < 3; r++) {
		rec_call(m, SL_ALLREDUCE, 800 + r, NS1 + r, t1, t1 + (r == 2 ? 70 : 40) * MS, 65536, 4, WORLD, 1);
		rec_call(m, SL_ALLREDUCE, 800 + r, NS1 + r, t2 + (r == 2 ? 30 : 0) * MS, t2 + 50 * MS, 65536, 4,
			 WORLD, 2);
	}
	/* h3's queue holds 3 ms of data during both, and its shaper lets its data out
	 * at 100 Mbit/s: for 60 ms in allreduce 1 */
	rec_qbin(m, 0, NS3, 2, 0x10000, t1 + 60 * MS, 30000, 20, 2000000, 20, 3000000, 20, 30000, 0);
	rec_qbin(m, 0, NS3, 2, 0x10000, t2 + 40 * MS, 30000, 20, 2000000, 20, 3000000, 20, 30000, 0);
	for (uint64_t b = 0; b < 600; b++)
		rec_bin(m, 0, NS3, 2, FT_DIR_TX, t1 + 5 * MS + b * BIN, 1250, 1, 0);
	rec_end(m, S0 + 400 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->ninstances, 2);
	{
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, 2, CORR_COMM_HANDLE);

		assert_int_equal(in->skew_ns, 30 * MS);
		assert_int_equal(in->span_ns, 50 * MS);
		assert_int_equal(in->straggler, rank_index(c, 2));
		assert_int_equal(in->own_late_ns, 0);   /* 5 ms of compute, like the others */
		assert_false(in->why & CORR_WHY_STRAGGLER);
		assert_int_equal(in->verdict, CORR_NETWORK);
		assert_int_equal(in->ev.link, iface_index(m, NS3, 2));
		/* the chain: the 30 ms came from allreduce 1, whose excess was the network's */
		assert_int_equal(in->budget.waiting_ns, 0);
		assert_int_equal(in->budget.carried_ns, 30 * MS);
		assert_int_equal(in->budget.carried_network_ns, 30 * MS);
		assert_int_equal(in->budget.carried_from, (uint32_t)(inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE) - c->instances));
		assert_int_equal(in->budget.total_ns, in->budget.waiting_ns + in->budget.usual_ns + in->budget.network_ns +
							  in->budget.unexplained_ns);
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/*
 * Lateness carried over a collective that did not wait: rank 1 comes to a
 * broadcast 100 ms late, but the root and rank 2 leave it at once; then
 * every rank but rank 1 computes 1 ms and enters a reduce, rank 1 computes
 * 100 ms.  Rank 1 is 199 ms late to the reduce, all of it its own doing:
 * 99 ms more compute, plus the 100 ms it was late to the broadcast.
 */
static void test_late_carried_over(void **state)
{
	struct model *m = mk();
	struct corr *c;
	const uint64_t t = S0 + 10 * MS;

	(void)state;
	mpi_slots(m);
	three_ranks(m, 900, -1);
	rec_call(m, SL_BCAST, 900, NS1, t, t + 1 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_BCAST, 902, NS3, t, t + 2 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_BCAST, 901, NS2, t + 100 * MS, t + 101 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_REDUCE, 900, NS1, t + 2 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_call(m, SL_REDUCE, 902, NS3, t + 3 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_call(m, SL_REDUCE, 901, NS2, t + 201 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_end(m, S0 + 400 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_int_equal(c->ninstances, 2);
	{
		const struct corr_instance *in = inst(c, FT_OP_REDUCE, 2, CORR_COMM_HANDLE);

		assert_int_equal(in->skew_ns, 199 * MS);
		assert_int_equal(in->straggler, rank_index(c, 1));
		assert_int_equal(in->own_late_ns, 199 * MS);  /* 99 ms (gap) + 100 ms (carried) */
		assert_int_equal(in->verdict, CORR_RANK);
	}
	corr__free(c);
	model__free(m);

	/*
	 * Now the root waits for rank 1 and only rank 2 (a leaf) leaves at
	 * once, and enters the reduce early: the span (201 ms) is stretched by
	 * rank 2, not by rank 1, whose own 99 ms are weighed against the 4 ms
	 * the reduce took once all were there.
	 */
	m = mk();
	mpi_slots(m);
	three_ranks(m, 900, -1);
	rec_call(m, SL_BCAST, 900, NS1, t, t + 101 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_BCAST, 902, NS3, t, t + 2 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_BCAST, 901, NS2, t + 100 * MS, t + 101 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_REDUCE, 900, NS1, t + 102 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_call(m, SL_REDUCE, 902, NS3, t + 4 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_call(m, SL_REDUCE, 901, NS2, t + 201 * MS, t + 205 * MS, 1024, 4, WORLD, 2);
	rec_end(m, S0 + 400 * MS);
	c = build(m, CORR_PHASES_AUTO);
	{
		const struct corr_instance *in = inst(c, FT_OP_REDUCE, 2, CORR_COMM_HANDLE);

		assert_int_equal(in->span_ns, 201 * MS);
		assert_int_equal(in->own_late_ns, 99 * MS);   /* 100 ms gap - rank 0's 1 ms; nothing carried */
		assert_int_equal(in->all_arrived_ns, 4 * MS);
		assert_int_equal(in->verdict, CORR_RANK);     /* 99 / (99 + 4), not 99 / 201 */
	}
	corr__free(c);
	model__free(m);
}

/* ---- steps ---- */

/*
 * Two ranks mark steps 7 and 8 with "compute" and "optimizer" phases; each
 * step holds one allreduce (between compute and optimizer) and step 8 also a
 * barrier inside "optimizer".  A final allreduce is outside any step.  The
 * second pid's first phase record is a call, not a marker (its markers must
 * not nest into the first pid's open spans).  One end marker has no begin.
 */
static void test_steps(void **state)
{
	struct model *m = mk();
	struct corr *c;

	(void)state;
	mpi_slots(m);
	for (uint32_t r = 0; r < 2; r++) {
		uint32_t pid = 800 + r;

		rec_comm_info(m, pid, WORLD, (int32_t)r, 2, S0);
		if (r == 1)
			rec_call(m, SL_SEND, pid, NS2, S0 + 1 * MS, S0 + 2 * MS, 4, 4, WORLD, 0);
		for (uint64_t st = 7; st <= 8; st++) {
			uint64_t t = S0 + (st - 6) * 100 * MS + r * 10 * US;

			rec_marker(m, SL_STEP, pid, t, 1, st, NULL);
			rec_marker(m, SL_MARK, pid, t + 1 * MS, 1, 0, "compute");
			rec_marker(m, SL_MARK, pid, t + 20 * MS, 0, 0, "compute");
			rec_call(m, SL_ALLREDUCE, pid, NS1 + r, t + 21 * MS, t + 30 * MS, 100, 4, WORLD, st - 6);
			rec_marker(m, SL_MARK, pid, t + 31 * MS, 1, 0, "optimizer");
			if (st == 8)
				rec_call(m, SL_BARRIER, pid, NS1 + r, t + 32 * MS, t + 33 * MS, 0, 0, WORLD, 3);
			rec_marker(m, SL_MARK, pid, t + 40 * MS, 0, 0, "optimizer");
			rec_marker(m, SL_STEP, pid, t + 50 * MS, 0, st, NULL);
		}
		/* rank 0 leaves step 9 open (begin, no end) */
		if (r == 0)
			rec_marker(m, SL_STEP, pid, S0 + 350 * MS, 1, 9, NULL);
		rec_call(m, SL_ALLREDUCE, pid, NS1 + r, S0 + 300 * MS, S0 + 301 * MS, 100, 4, WORLD, 4);
	}
	rec_marker(m, SL_MARK, 800, S0 + 400 * MS, 0, 0, "never-begun");
	/* told to stop at 450 ms; the shutdown took until 500 */
	rec_end_stop(m, S0 + 500 * MS, 50 * MS);
	c = build(m, CORR_PHASES_AUTO);

	assert_int_equal(c->unmatched_ends, 1);
	assert_int_equal(c->nsteps, 3);
	assert_int_equal(c->steps[0].step, 7);
	assert_int_equal(c->steps[0].nranks, 2);
	assert_int_equal(c->steps[0].start_ns, S0 + 100 * MS);
	assert_int_equal(c->steps[0].end_ns, S0 + 150 * MS + 10 * US);
	assert_false(c->steps[0].open);
	assert_int_equal(c->steps[0].nchildren, 1);
	assert_int_equal(c->instances[c->step_children[c->steps[0].first_child]].seq, 1);
	assert_int_equal(c->steps[1].step, 8);
	assert_int_equal(c->steps[1].nchildren, 2);
	assert_int_equal(c->instances[c->step_children[c->steps[1].first_child]].op, FT_OP_ALLREDUCE);
	assert_int_equal(c->instances[c->step_children[c->steps[1].first_child + 1]].op, FT_OP_BARRIER);
	assert_int_equal(c->steps[2].step, 9);
	assert_true(c->steps[2].open);
	assert_int_equal(c->steps[2].end_ns, S0 + 450 * MS); /* open to the stop, not past the shutdown */
	assert_int_equal(c->steps[2].nchildren, 0);
	/* phases inside step 8: compute and optimizer, 2 ranks each, by name */
	assert_int_equal(c->steps[1].nphases, 2);
	assert_string_equal(c->step_phases[c->steps[1].first_phase].name, "compute");
	assert_int_equal(c->step_phases[c->steps[1].first_phase].count, 2);
	assert_int_equal(c->step_phases[c->steps[1].first_phase].max_ns, 19 * MS);
	assert_string_equal(c->step_phases[c->steps[1].first_phase + 1].name, "optimizer");
	/* named phases overall */
	assert_int_equal(c->nmarks, 2);
	assert_string_equal(c->marks[0].name, "compute");
	assert_int_equal(c->marks[0].count, 4);
	assert_int_equal(c->marks[0].nranks, 2);
	/* calls: the barrier's innermost span is "optimizer", its step 8; the last allreduce has none */
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];

		if (k->op == FT_OP_BARRIER) {
			assert_int_not_equal(k->span, CORR_NONE);
			assert_string_equal(c->spans[k->span].name, "optimizer");
			assert_int_equal(c->spans[k->span].depth, 1);
			assert_int_equal(k->step, 8);
		} else if (k->op == FT_OP_ALLREDUCE && k->seq == 4) {
			assert_int_equal(k->step, -1);
		} else if (k->op == FT_OP_ALLREDUCE) {
			assert_int_equal(k->step, (int64_t)k->seq + 6);
			assert_int_equal(c->spans[k->span].kind, CORR_SPAN_STEP);
		} else {
			assert_int_equal(k->op, FT_OP_SEND);
			assert_int_equal(k->step, -1);
		}
	}
	assert_int_equal(inst(c, FT_OP_ALLREDUCE, 4, CORR_COMM_HANDLE)->step, -1);
	/* pid 801's spans never nest into pid 800's */
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].parent != CORR_NONE)
			assert_int_equal(c->spans[c->spans[i].parent].pid, c->spans[i].pid);
	corr__free(c);
	model__free(m);
}

/* ---- inferred phases ---- */

static void host_bins(struct model *m, uint32_t netns, uint64_t from, uint64_t to, uint64_t bytes)
{
	for (uint64_t t = from; t < to; t += BIN)
		rec_bin(m, 0, netns, 2, FT_DIR_TX, t, bytes, 1, 0);
}

/*
 * Hosts h1..h3 (one interface each) and a switch namespace with three
 * ports (excluded: it mirrors the hosts), and the initial namespace with
 * management traffic (excluded: unnamed while others are named).  h1+h2 active 10.0-12.0 ms with a
 * 0.5 ms gap (merged: < 1 ms), h2+h3 30.0-31.0 ms, h1 alone at 50 ms while
 * the switch is busy (no phase: one host).  With the default gap (max(1 ms,
 * 10 bins) = 1 ms): two inferred phases.
 */
static struct model *inferred_model(bool with_probes)
{
	struct model *m = mk();

	for (uint32_t i = 0; i < 3; i++) {
		char ns[8], port[8];

		snprintf(ns, sizeof(ns), "h%u", i + 1);
		snprintf(port, sizeof(port), "p%u", i + 1);
		rec_iface(m, NS1 + i, 2, "eth0", ns, 10000, 0);
		rec_iface(m, NSW, 10 + i, port, "sw", 10000, 0);
	}
	host_bins(m, NS1, S0 + 10 * MS, S0 + 11 * MS, 1000);
	host_bins(m, NS1, S0 + 11 * MS + 500 * US, S0 + 12 * MS, 1000);
	host_bins(m, NS2, S0 + 10 * MS + 200 * US, S0 + 12 * MS, 1000);
	host_bins(m, NS2, S0 + 30 * MS, S0 + 31 * MS, 500);
	host_bins(m, NS3, S0 + 30 * MS, S0 + 31 * MS, 500);
	host_bins(m, NS1, S0 + 50 * MS, S0 + 51 * MS, 800);
	for (uint64_t t = S0; t < S0 + 60 * MS; t += BIN)
		rec_bin(m, 0, NSW, 10, FT_DIR_TX, t, 100, 1, 0);
	/* the initial namespace (unnamed): ssh traffic all along, left out */
	rec_iface(m, NS4, 2, "eth0", "", 1000, 0);
	for (uint64_t t = S0; t < S0 + 60 * MS; t += 5 * BIN)
		rec_bin(m, 0, NS4, 2, FT_DIR_RX, t, 90, 1, 0);
	rec_bin(m, 0, NSW, 11, FT_DIR_RX, S0 + 50 * MS, 100, 1, 0);
	if (with_probes) {
		mpi_slots(m);
		/* allreduce 1 between h1 and h2: 10.3 .. 11.9 ms; 2 between h2 and h3: 30.1 .. 31.2 ms */
		rec_call(m, SL_ALLREDUCE, 901, NS1, S0 + 10 * MS + 300 * US, S0 + 11 * MS + 900 * US, 8, 4, WORLD, 1);
		rec_call(m, SL_ALLREDUCE, 902, NS2, S0 + 10 * MS + 400 * US, S0 + 11 * MS + 900 * US, 8, 4, WORLD, 1);
		rec_call(m, SL_ALLREDUCE, 902, NS2, S0 + 30 * MS + 100 * US, S0 + 31 * MS + 200 * US, 8, 4, 0x84000001, 1);
		rec_call(m, SL_ALLREDUCE, 903, NS3, S0 + 30 * MS + 100 * US, S0 + 31 * MS + 200 * US, 8, 4, 0x84000001, 1);
		/* one on a single host: not a network window */
		rec_call(m, SL_ALLREDUCE, 901, NS1, S0 + 80 * MS, S0 + 81 * MS, 8, 4, 0x84000009, 1);
	}
	rec_end(m, S0 + 100 * MS);
	return m;
}

static void test_inferred_phases(void **state)
{
	struct model *m = inferred_model(false);
	struct corr *c;

	(void)state;
	c = build(m, CORR_PHASES_AUTO);            /* no phase records: inferred */
	assert_true(c->inferred_on);
	assert_false(c->have_probes);
	assert_int_equal(c->infer_gap_ns, 1 * MS);
	assert_int_equal(c->nhosts, 3);
	assert_string_equal(c->hosts[0].name, "h1");
	assert_int_equal(c->hosts[0].nact, 2);  /* 10.0-12.0 (gap merged), 50.0-51.0 */
	assert_int_equal(c->ninferred, 2);
	assert_int_equal(c->inferred[0].start_ns, S0 + 10 * MS + 200 * US);
	assert_int_equal(c->inferred[0].end_ns, S0 + 12 * MS);
	assert_int_equal(c->inferred[0].max_hosts, 2);
	/* h1: 10 + 5 bins x 1000, h2: 18 bins x 1000 inside [10.2, 12.0) */
	assert_int_equal(c->inferred[0].tx_bytes, 8000 + 5000 + 18000);
	assert_int_equal(c->inferred[1].start_ns, S0 + 30 * MS);
	assert_int_equal(c->inferred[1].end_ns, S0 + 31 * MS);
	assert_false(c->compare.valid);
	corr__free(c);

	/* probes mode: never inferred */
	c = build(m, CORR_PHASES_PROBES);
	assert_false(c->inferred_on);
	assert_int_equal(c->ninferred, 0);
	corr__free(c);
	model__free(m);

	/* with probes, auto does not infer; inferred mode compares with the real windows */
	m = inferred_model(true);
	c = build(m, CORR_PHASES_AUTO);
	assert_false(c->inferred_on);
	assert_true(c->show_probes);
	corr__free(c);
	c = build(m, CORR_PHASES_INFERRED);
	assert_true(c->inferred_on);
	assert_false(c->show_probes);
	assert_int_equal(c->ninstances, 3);
	assert_true(c->compare.valid);
	assert_int_equal(c->compare.nreal, 2);          /* the single-host one is left out */
	assert_int_equal(c->compare.ninferred, 2);
	assert_int_equal(c->compare.real_covered, 2);
	assert_int_equal(c->compare.one_to_one, 2);
	assert_int_equal(c->inferred[0].matched, 1);
	assert_int_equal(c->inferred[0].start_err_ns, -100 * (int64_t)US);  /* 10.2 - 10.3 ms */
	assert_int_equal(c->inferred[0].end_err_ns, 100 * (int64_t)US);     /* 12.0 - 11.9 ms */
	assert_int_equal(c->inferred[1].start_err_ns, -100 * (int64_t)US);  /* 30.0 - 30.1 ms */
	assert_int_equal(c->inferred[1].end_err_ns, -200 * (int64_t)US);    /* 31.0 - 31.2 ms */
	assert_int_equal(c->compare.max_abs_start_err_ns, 100 * US);
	assert_int_equal(c->compare.max_abs_end_err_ns, 200 * US);
	assert_true(c->compare.mean_abs_end_err_ns == 150000.0);
	corr__free(c);
	model__free(m);
}

/*
 * The gap chosen from the traffic, and small-packet noise: two hosts, five
 * phases 50 ms apart, each with bulk bins at +0, +3, +9 and +15 ms (stalls
 * of 3 and 6 ms inside) and a last small message at +19 ms; a delayed ACK
 * 7 ms before every phase but the first.  The gap lands between the 6 ms
 * stalls and the 35 ms compute gaps (their geometric middle, 14.49 ms); the
 * ACKs start no phase, the small tail message still ends its phase.
 */
static void test_inferred_auto_gap(void **state)
{
	struct model *m = mk();
	struct corr *c;
	static const uint64_t off[] = { 0, 3, 9, 15 };

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	for (uint64_t k = 0; k < 5; k++) {
		uint64_t t = S0 + 10 * MS + k * 50 * MS;

		for (uint32_t h = 0; h < 2; h++) {
			for (size_t o = 0; o < 4; o++)
				rec_bin(m, 0, NS1 + h, 2, h ? FT_DIR_RX : FT_DIR_TX, t + off[o] * MS, 1000, 1, 0);
			rec_bin(m, 0, NS1 + h, 2, h ? FT_DIR_RX : FT_DIR_TX, t + 19 * MS, 80, 1, 0);
			if (k)
				rec_bin(m, 0, NS1 + h, 2, h ? FT_DIR_TX : FT_DIR_RX, t - 7 * MS, 66, 1, 0);
		}
	}
	rec_end(m, S0 + 400 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_true(c->infer_gap_auto);
	assert_int_equal(c->infer_gap_ns, 14491376);  /* sqrt(6 ms * 35 ms) */
	assert_int_equal(c->ninferred, 5);
	for (size_t k = 0; k < 5; k++) {
		assert_int_equal(c->inferred[k].start_ns, S0 + 10 * MS + k * 50 * MS);
		assert_int_equal(c->inferred[k].end_ns, S0 + 10 * MS + k * 50 * MS + 19 * MS + BIN);
	}
	corr__free(c);
	model__free(m);

	/* one kind of gap only (40 ms pauses, no stalls): they separate the phases */
	m = mk();
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	for (uint64_t k = 0; k < 5; k++)
		for (uint32_t h = 0; h < 2; h++)
			rec_bin(m, 0, NS1 + h, 2, h ? FT_DIR_RX : FT_DIR_TX, S0 + 10 * MS + k * 40 * MS, 1000, 1, 0);
	rec_end(m, S0 + 400 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_int_equal(c->infer_gap_ns, 6324555);   /* sqrt(1 ms floor * 40 ms) */
	assert_int_equal(c->ninferred, 5);
	corr__free(c);
	model__free(m);
}

/* corr__compare on its own: merged windows, misses, spurious phases. */
static void test_compare(void **state)
{
	struct corr_inferred inf[3];
	struct corr_interval real[4] = {
		{ 100, 200 }, { 250, 300 },  /* both inside inferred 0 */
		{ 500, 600 },                /* inferred 1 */
		{ 900, 950 },                /* missed */
	};
	struct corr_compare cmp;

	(void)state;
	memset(inf, 0, sizeof(inf));
	inf[0].start_ns = 90; inf[0].end_ns = 310;
	inf[1].start_ns = 510; inf[1].end_ns = 640;
	inf[2].start_ns = 700; inf[2].end_ns = 800;       /* spurious */
	corr__compare(inf, 3, real, 4, &cmp);
	assert_true(cmp.valid);
	assert_int_equal(cmp.nreal, 4);
	assert_int_equal(cmp.ninferred, 3);
	assert_int_equal(cmp.inferred_matched, 2);
	assert_int_equal(cmp.real_covered, 3);
	assert_int_equal(cmp.one_to_one, 1);
	assert_int_equal(inf[0].matched, 2);
	assert_int_equal(inf[0].start_err_ns, -10);
	assert_int_equal(inf[0].end_err_ns, 10);
	assert_int_equal(inf[1].start_err_ns, 10);
	assert_int_equal(inf[1].end_err_ns, 40);
	assert_int_equal(inf[2].matched, 0);
	assert_int_equal(cmp.max_abs_start_err_ns, 10);
	assert_int_equal(cmp.max_abs_end_err_ns, 40);
	assert_true(cmp.mean_abs_end_err_ns == 25.0);
	/* nothing real: not valid */
	corr__compare(inf, 3, real, 0, &cmp);
	assert_false(cmp.valid);
}

/* NCCL slots: every instance is flagged enqueue-only. */
/* ---- the time budget ---- */

/* The cost of each kind of item, as costs.c estimates it. */
static void test_cost_estimates(void **state)
{
	(void)state;
	/* an RTO: the socket's RTT plus the kernel's floor */
	assert_int_equal(corr__cost_rto(100, 200 * MS), 200 * MS + 100 * US);
	assert_int_equal(corr__cost_rto(0, 5 * MS), 5 * MS);
	/* a fast retransmit: one RTT (1 ms when it is not known) */
	assert_int_equal(corr__cost_fast(250), 250 * US);
	assert_int_equal(corr__cost_fast(0), 1 * MS);
	/* a tail-loss probe: its timeout, 2 RTT + the timer's floor */
	assert_int_equal(corr__cost_tlp(100), 2200 * US);
	/* a shaper: the bytes at its rate less at the line's: 125 kB at 100 Mbit/s of 10 Gbit/s */
	assert_int_equal(corr__cost_shaper(125000, 100e6, 10e9), 9900 * US);
	assert_int_equal(corr__cost_shaper(125000, 100e6, 0), 0);        /* line rate unknown */
	assert_int_equal(corr__cost_shaper(125000, 10e9, 10e9), 0);      /* no slower than the line */
	assert_int_equal(corr__cost_shaper(125000, NAN, 10e9), 0);
}

/*
 * A tail-loss probe costs only when its loss was real: the ACK of a probe
 * that repaired a loss shrinks the window (CWR), one that finds more loss
 * enters recovery; a spurious probe changes nothing.  And an estimate never
 * leaves the collective's transfer window: a 200 ms RTO that fires 5 ms
 * into a 20 ms transfer cost that transfer 5 ms.
 */
static void test_cost_window_and_tlp(void **state)
{
	struct model *m = mk();
	struct corr *c;
	struct ft_flow a = rec_flow(1, 40000, 5000, NS1), b = rec_flow(1, 40001, 5001, NS1);
	uint64_t t = S0 + 100 * MS;

	(void)state;
	mpi_slots(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	rec_comm_info(m, 601, WORLD, 0, 2, S0);
	rec_comm_info(m, 602, WORLD, 1, 2, S0);
	rec_proc(m, 601, 600, NS1, FT_PROC_EXISTING, S0, "allreduce");
	rec_proc(m, 602, 600, NS2, FT_PROC_EXISTING, S0, "allreduce");
	rec_owner(m, a, 601, S0, "allreduce");
	rec_owner(m, b, 601, S0, "allreduce");
	rec_call(m, SL_ALLREDUCE, 601, NS1, t, t + 20 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_ALLREDUCE, 602, NS2, t, t + 20 * MS, 1024, 4, WORLD, 1);
	/* flow a: a probe 2 ms in whose loss was real (CWR 300 us later), and an RTO 5 ms in */
	rec_retrans_rtt(m, a, t + 2 * MS, FT_RTX_TLP, 100);
	rec_cong_at(m, a, t + 2 * MS + 300 * US, 0, 2);
	rec_retrans_rtt(m, a, t + 5 * MS, FT_RTX_RTO, 100);
	/* flow b: a spurious probe, and a window cut long after it */
	rec_retrans_rtt(m, b, t + 3 * MS, FT_RTX_TLP, 100);
	rec_cong_at(m, b, t + 15 * MS, 0, 2);
	rec_end(m, S0 + 500 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_true(corr__tlp_real(m, (uint32_t)(model__flow(m, &a) - m->flows), t + 2 * MS, 100));
	assert_false(corr__tlp_real(m, (uint32_t)(model__flow(m, &b) - m->flows), t + 3 * MS, 100));
	{
		const struct corr_instance *in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
		uint64_t rto = 0, tlp = 0, ntlp = 0;

		for (size_t k = 0; k < in->budget.ncosts; k++) {
			const struct corr_cost *x = &c->costs[in->budget.first_cost + k];

			if (x->kind == CORR_COST_RTO)
				rto = x->raw_ns;
			if (x->kind == CORR_COST_TLP) {
				tlp = x->raw_ns;
				ntlp += x->count;
			}
		}
		assert_int_equal(rto, 5 * MS);              /* clipped at the window's start */
		assert_int_equal(ntlp, 1);                  /* the spurious probe is no item */
		assert_int_equal(tlp, 2 * MS);              /* its 2.2 ms timeout, clipped too */
		assert_int_equal(in->budget.items_ns, 7 * MS);
	}
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

/* Two ranks (h1, h2) in one all-reduce of 300 ms from T; rank 0 owns flow A,
 * sent on h1's eth0; drop reason 5 is QDISC_DROP. */
static void one_slow_allreduce(struct model *m, struct ft_flow a, uint64_t t)
{
	mpi_slots(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	rec_reason(m, 5, "QDISC_DROP");
	rec_comm_info(m, 601, WORLD, 0, 2, S0);
	rec_comm_info(m, 602, WORLD, 1, 2, S0);
	rec_proc(m, 601, 600, NS1, FT_PROC_EXISTING, S0, "allreduce");
	rec_proc(m, 602, 600, NS2, FT_PROC_EXISTING, S0, "allreduce");
	rec_owner(m, a, 601, S0, "allreduce");
	rec_call(m, SL_ALLREDUCE, 601, NS1, t, t + 300 * MS, 1024, 4, WORLD, 1);
	rec_call(m, SL_ALLREDUCE, 602, NS2, t, t + 300 * MS, 1024, 4, WORLD, 1);
}

/*
 * A real loss probe with one segment in flight waits the minimum RTO on top
 * of 2 RTT (tcp_schedule_loss_probe): when a congestion drop on its path
 * precedes it within 2 RTT + rto_min (+ a timer's slack), it costs the time
 * since that drop; a drop longer before is another loss, and the probe
 * costs its formula.
 */
static void test_cost_tlp_after_drop(void **state)
{
	uint64_t t = S0 + 100 * MS;

	(void)state;
	for (int far = 0; far <= 1; far++) {
		struct model *m = mk();
		struct corr *c;
		struct ft_flow a = rec_flow(1, 40000, 5000, NS1);
		const struct corr_instance *in;
		uint64_t tlp = 0;

		a.ifindex = 2;          /* sent on h1's eth0 */
		one_slow_allreduce(m, a, t);
		/* the tail dropped on h1's queue, the probe 214 ms later (srtt 4 ms: 2 RTT + 200 ms
		 * + 6 ms of timer); or the drop 230 ms before it, past the longest timeout */
		rec_drop(m, t + (far ? 10 : 26) * MS, NS1, 2, 5);
		rec_retrans_rtt(m, a, t + 240 * MS, FT_RTX_TLP, 4000);
		rec_cong_at(m, a, t + 241 * MS, 0, 2);
		rec_end(m, S0 + 900 * MS);
		c = build(m, CORR_PHASES_AUTO);
		in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
		for (size_t k = 0; k < in->budget.ncosts; k++)
			if (c->costs[in->budget.first_cost + k].kind == CORR_COST_TLP)
				tlp = c->costs[in->budget.first_cost + k].raw_ns;
		assert_int_equal(tlp, far ? corr__cost_tlp(4000) : 214 * MS);
		assert_budgets_sum(c);
		corr__free(c);
		model__free(m);
	}
}

/*
 * A segment its own host's qdisc dropped was never sent: the flow enters
 * CWR and, with nothing in flight, sits idle until its probe timer (about
 * 208 ms here).  That silence, from the CWR to the send that ended it (the
 * first RTT sample after it, nothing in flight), is the network's: an item
 * on the sender's link.  Not when the CWR came from no local drop (ECN), the
 * flow still had data in flight (the ACK clock resends it), or the silence
 * was shorter than a probe timer can be.  Without RTT samples (--no-probes
 * rtt), or with tcp_probe's (taken when an ACK comes, so the first after
 * the silence has the resent segment in flight), the CWR's own length stands
 * for the silence, at most one probe timer (RTT + the RTO floor + 10 ms): not
 * when it ended within 100 ms, nor when it ended in another state (an RTO's
 * Loss: a retransmit's item).
 */
static void test_cost_local_drop_stall(void **state)
{
	uint64_t t = S0 + 100 * MS;
	/* the item's length per variant: with samples at tc egress 0-3, without 4-6,
	 * with samples taken when ACKs come (tcp_probe: one in flight) 7 */
	static const uint64_t want[] = { 208 * MS, 0, 0, 0, 210 * MS, 0, 0, 212 * MS };

	(void)state;
	for (int variant = 0; variant < 8; variant++) {
		struct model *m = mk();
		struct corr *c;
		struct ft_flow a = rec_flow(1, 40000, 5000, NS1);
		const struct corr_instance *in;
		uint64_t stall = 0, n = 0;
		uint64_t resume = t + (variant == 3 ? 60 : 218) * MS;
		bool sampled = variant < 4 || variant == 7;

		a.ifindex = 2;          /* sent on h1's eth0 */
		one_slow_allreduce(m, a, t);
		if (sampled)
			rec_sample_at(m, a, t + 5 * MS, 0);
		if (variant != 1)       /* variant 1: a CWR of ECN, no drop before it */
			rec_drop(m, t + 10 * MS - 20 * US, NS1, 2, 5);
		rec_cong_at(m, a, t + 10 * MS, 0, 2);
		if (variant == 2)       /* data still in flight: it kept sending */
			rec_sample_at(m, a, t + 12 * MS, 7);
		if (sampled) {
			rec_sample_at(m, a, resume, variant == 7 ? 1 : 0);
			rec_sample_at(m, a, resume + 10 * MS, 9);
		}
		/* the CWR ends when the resent segment is acknowledged (a delayed ACK:
		 * 40 ms after the send); variant 5 after 5 ms, variant 6 in an RTO's Loss */
		rec_cong_at(m, a, variant == 5 ? t + 15 * MS : resume + 40 * MS, 2, variant == 6 ? 4 : 0);
		rec_end(m, S0 + 900 * MS);
		c = build(m, CORR_PHASES_AUTO);
		in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
		for (size_t k = 0; k < in->budget.ncosts; k++) {
			const struct corr_cost *x = &c->costs[in->budget.first_cost + k];

			if (x->kind == CORR_COST_LOCAL_DROP) {
				stall = x->raw_ns;
				n += x->count;
				assert_int_equal(x->iface, model__iface(m, NS1, 2) - m->ifaces);
			}
		}
		assert_int_equal(n, want[variant] ? 1 : 0);
		assert_int_equal(stall, want[variant]);
		assert_budgets_sum(c);
		corr__free(c);
		model__free(m);
	}
	assert_string_equal(corr__cost_name(CORR_COST_LOCAL_DROP), "local_drop_stall");
}

static void test_enqueue_only(void **state)
{
	struct model *m = mk();
	struct corr *c;

	(void)state;
	rec_slot(m, SL_NCCL_AR, FT_LIB_NCCL, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_ENQUEUE_ONLY,
		 "allreduce");
	rec_comm_info(m, 1001, 0x7f0000aa0000ull, 0, 2, S0);
	rec_comm_info(m, 1002, 0x7f0000bb0000ull, 1, 2, S0);
	rec_call(m, SL_NCCL_AR, 1001, NS1, S0 + MS, S0 + MS + 20 * US, 1 << 20, 4, 0x7f0000aa0000ull, 1);
	rec_call(m, SL_NCCL_AR, 1002, NS2, S0 + MS, S0 + MS + 30 * US, 1 << 20, 4, 0x7f0000bb0000ull, 1);
	rec_end(m, S0 + 10 * MS);
	c = build(m, CORR_PHASES_AUTO);
	assert_true(c->enqueue_only);
	assert_int_equal(c->ninstances, 1);
	assert_true(c->instances[0].enqueue_only);
	assert_int_equal(c->instances[0].straggler, CORR_NONE);  /* both entered at once */
	assert_true(c->opstats[0].enqueue_only);
	assert_true(c->calls[0].flags & CORR_CALL_ENQUEUE_ONLY);
	corr__free(c);
	model__free(m);
}


/*
 * Drops as evidence: only congestion reasons count; a reason seen on two
 * links is one item.  A drop costs through the retransmit it caused: #2's
 * QDISC_DROPs are repaired by an RTO 200 ms later, which makes it slow.
 */
static void test_drop_reasons_evidence(void **state)
{
	struct model *m = mk();
	struct corr *c;
	char buf[1024];
	const struct corr_instance *in;
	struct ft_flow f = rec_flow(2, 40000, 5000, NS2);

	(void)state;
	f.ifindex = 2;
	assert_true(corr__congestion_drop("QDISC_DROP"));
	assert_true(corr__congestion_drop("QDISC_SOMETHING_NEWER"));
	assert_true(corr__congestion_drop("CPU_BACKLOG"));
	assert_false(corr__congestion_drop("QDISC_INGRESS"));
	assert_false(corr__congestion_drop("NOT_SPECIFIED"));
	assert_false(corr__congestion_drop("TCP_OLD_SEQUENCE"));
	assert_false(corr__congestion_drop(NULL));

	mpi_slots(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	rec_reason(m, 5, "QDISC_DROP");
	rec_reason(m, 2, "NOT_SPECIFIED");
	rec_comm_info(m, 601, WORLD, 0, 2, S0);
	rec_comm_info(m, 602, WORLD, 1, 2, S0);
	rec_proc(m, 601, 600, NS1, FT_PROC_EXISTING, S0, "allreduce");
	rec_proc(m, 602, 600, NS2, FT_PROC_EXISTING, S0, "allreduce");
	for (uint64_t s = 1; s <= 2; s++) {
		uint64_t t = S0 + s * 100 * MS;

		uint64_t d = s == 2 ? 240 * MS : 40 * MS;

		rec_call(m, SL_ALLREDUCE, 601, NS1, t, t + d, 262144, 4, WORLD, s);
		rec_call(m, SL_ALLREDUCE, 602, NS2, t + 200 * US, t + d, 262144, 4, WORLD, s);
		rec_bin(m, 0, NS2, 2, FT_DIR_TX, t + MS, 1250, 1, 0);
		/* NOT_SPECIFIED on both links in both; QDISC_DROP on both links in #2 only */
		rec_drop(m, t + 2 * MS, NS1, 2, 2);
		rec_drop(m, t + 2 * MS + 10, NS2, 2, 2);
		if (s == 2) {
			rec_drop(m, t + 3 * MS, NS1, 2, 5);
			rec_drop(m, t + 3 * MS + 10, NS2, 2, 5);
			rec_retrans(m, f, t + 205 * MS, FT_RTX_RTO);
		}
	}
	rec_end(m, S0 + 500 * MS);
	c = build(m, CORR_PHASES_AUTO);

	/* #1: only NOT_SPECIFIED: shown, not counted, so not network-bound */
	in = inst(c, FT_OP_ALLREDUCE, 1, CORR_COMM_HANDLE);
	assert_int_equal(in->ev.drops, 2);
	assert_int_equal(in->ev.cong_drops, 0);
	assert_false(in->why & CORR_WHY_DROPS);
	assert_int_not_equal(in->verdict, CORR_NETWORK);
	assert_int_equal(in->verdict, CORR_OK);
	/* #2: QDISC_DROP counts; each reason once, summed over the two links */
	in = inst(c, FT_OP_ALLREDUCE, 2, CORR_COMM_HANDLE);
	assert_int_equal(in->ev.cong_drops, 2);
	assert_true(in->why & CORR_WHY_DROPS);
	assert_int_equal(in->verdict, CORR_NETWORK);
	/* the drops are items of cost 0, the RTO they caused carries it */
	for (size_t k = 0; k < in->budget.ncosts; k++) {
		const struct corr_cost *x = &c->costs[in->budget.first_cost + k];

		if (x->kind == CORR_COST_DROP)
			assert_int_equal(x->raw_ns, 0);
		else
			assert_int_equal(x->kind, CORR_COST_RTO);
	}
	corr__describe(c, (size_t)(in - c->instances), buf, sizeof(buf));
	if (!strstr(buf, "2 congestion drops (QDISC_DROP 2); 2 other drops, not counted (NOT_SPECIFIED 2)") ||
	    strstr(buf, "QDISC_DROP 1") || strstr(buf, "NOT_SPECIFIED 1"))
		fail_msg("description: %s", buf);
	assert_budgets_sum(c);
	corr__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_and_factors),
		cmocka_unit_test(test_bandwidth_instance),
		cmocka_unit_test(test_match_handles),
		cmocka_unit_test(test_match_pointers),
		cmocka_unit_test(test_nonblocking),
		cmocka_unit_test(test_verdict_rules),
		cmocka_unit_test(test_verdict_precedence),
		cmocka_unit_test(test_network_bound),
		cmocka_unit_test(test_network_queue_elsewhere),
		cmocka_unit_test(test_spurious_retransmits),
		cmocka_unit_test(test_drop_reasons_evidence),
		cmocka_unit_test(test_counter_evidence),
		cmocka_unit_test(test_rank_bound),
		cmocka_unit_test(test_held_rank),
		cmocka_unit_test(test_late_from_previous),
		cmocka_unit_test(test_late_carried_over),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_inferred_phases),
		cmocka_unit_test(test_inferred_auto_gap),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_cost_estimates),
		cmocka_unit_test(test_cost_window_and_tlp),
		cmocka_unit_test(test_cost_tlp_after_drop),
		cmocka_unit_test(test_cost_local_drop_stall),
		cmocka_unit_test(test_enqueue_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
