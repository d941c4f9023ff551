// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cross-rank communicator keys (userspace/model/comm_key.c): the kind decided by
 * the library's slot, never by magnitude; Gloo's tag as the shared number
 * whichever context or thread ran the call; unnumbered calls counted; and
 * through the correlator, PyTorch-shaped Gloo calls matched across ranks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/model/comm_key.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)
#define NS1 4026532101u
#define PTR FT_SLOT_COMM_POINTER
#define HDL FT_SLOT_COMM_HANDLE

static void test_kind_by_library(void **state)
{
	(void)state;
	/* a non-PIE heap pointer fits in 32 bits: still a pointer when the slot says so */
	assert_int_equal(comm_key__kind(PTR, 0x239d9c80, false), CORR_COMM_POINTER);
	assert_int_equal(comm_key__kind(PTR, 0x239d9c80, true), CORR_COMM_LIBSEQ);
	assert_int_equal(comm_key__kind(HDL, 0x44000000, false), CORR_COMM_HANDLE);
	assert_int_equal(comm_key__kind(PTR, 0, true), CORR_COMM_NONE);
	/* captures from before the slot bits: by magnitude, as they were read then */
	assert_int_equal(comm_key__kind(0, 0x44000000, false), CORR_COMM_HANDLE);
	assert_int_equal(comm_key__kind(0, 0x7f0012345678ull, false), CORR_COMM_POINTER);
}

static void test_build(void **state)
{
	/*
	 * pid 1: two Gloo contexts of one group (tags alternate between them),
	 * a second group of the same size reusing tag 1, and an Open MPI
	 * pointer comm; pid 2: a context whose calls all carry tag 0 (unnumbered).
	 */
	const struct comm_key_in in[] = {
		{ .comm = 0xa0, .seq = 1, .start_ns = 10, .pid = 1, .slot_flags = PTR, .size = 4, .lib_seq = true },
		{ .comm = 0xb0, .seq = 2, .start_ns = 20, .pid = 1, .slot_flags = PTR, .size = 4, .lib_seq = true },
		{ .comm = 0xa0, .seq = 3, .start_ns = 30, .pid = 1, .slot_flags = PTR, .size = 4, .lib_seq = true },
		{ .comm = 0xc0, .seq = 1, .start_ns = 40, .pid = 1, .slot_flags = PTR, .size = 4, .lib_seq = true },
		{ .comm = 0x7f01, .seq = 1, .start_ns = 50, .pid = 1, .slot_flags = PTR, .size = 2 },
		{ .comm = 0x7f00, .seq = 1, .start_ns = 60, .pid = 1, .slot_flags = PTR, .size = 2 },
		{ .comm = 0xd0, .seq = 1, .start_ns = 70, .pid = 2, .slot_flags = PTR, .size = 2, .lib_seq = true },
		{ .comm = 0xd0, .seq = 1, .start_ns = 80, .pid = 2, .slot_flags = PTR, .size = 2, .lib_seq = true },
		{ .comm = 0xd0, .seq = 1, .start_ns = 90, .pid = 2, .slot_flags = PTR, .size = 2, .lib_seq = true },
		{ .comm = 0x44000000, .seq = 7, .start_ns = 5, .pid = 2, .slot_flags = HDL },
	};
	struct comm_key out[sizeof(in) / sizeof(in[0])];

	(void)state;
	assert_int_equal(comm_key__build(in, sizeof(in) / sizeof(in[0]), out), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(out[i].kind, CORR_COMM_LIBSEQ);
		assert_int_equal(out[i].size, 4);
		assert_int_equal(out[i].seq, in[i].seq); /* the tag, whichever context */
	}
	assert_int_equal(out[0].order, 0);
	assert_int_equal(out[2].order, 0);
	assert_int_equal(out[3].order, 1); /* the second group's tag 1 comes later */
	/* pointers: order of first use, not of value */
	assert_int_equal(out[4].kind, CORR_COMM_POINTER);
	assert_int_equal(out[4].order, 0);
	assert_int_equal(out[5].order, 1);
	/* unnumbered: counted per (process, context) */
	for (int i = 6; i < 9; i++) {
		assert_int_equal(out[i].kind, CORR_COMM_POINTER);
		assert_int_equal(out[i].seq, (uint64_t)(i - 5));
		assert_int_equal(out[i].order, 0);
	}
	assert_int_equal(out[9].kind, CORR_COMM_HANDLE);
	assert_int_equal(out[9].handle, 0x44000000);
	assert_int_equal(out[9].seq, 7);
}

/* Open MPI's names: trusted where a process shows Open MPI's own form, else pointers. */
static void test_names(void **state)
{
	const struct comm_key_in in[] = {
		/* pid 1 first used its dup, pid 2 its world: names pair them all the same */
		{ .comm = 0x7f10, .seq = 1, .start_ns = 10, .pid = 1, .slot_flags = PTR, .size = 4,
		  .name = "MPI COMMUNICATOR 3 DUP FROM 0" },
		{ .comm = 0x7f00, .seq = 1, .start_ns = 20, .pid = 1, .slot_flags = PTR, .size = 4,
		  .name = "MPI_COMM_WORLD" },
		{ .comm = 0x5500, .seq = 1, .start_ns = 15, .pid = 2, .slot_flags = PTR, .size = 4,
		  .name = "MPI_COMM_WORLD" },
		{ .comm = 0x5510, .seq = 1, .start_ns = 25, .pid = 2, .slot_flags = PTR, .size = 4,
		  .name = "MPI COMMUNICATOR 3 DUP FROM 0" },
		/* pid 3: bytes that are no Open MPI name (another layout): not trusted */
		{ .comm = 0x6600, .seq = 1, .start_ns = 30, .pid = 3, .slot_flags = PTR, .size = 4, .name = "\x01" "ab" },
		{ .comm = 0x6610, .seq = 1, .start_ns = 40, .pid = 3, .slot_flags = PTR, .size = 4, .name = "" },
	};
	struct comm_key out[sizeof(in) / sizeof(in[0])];

	(void)state;
	assert_int_equal(comm_key__build(in, sizeof(in) / sizeof(in[0]), out), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i].kind, CORR_COMM_NAMED);
	assert_true(out[0].handle == out[3].handle);  /* the dup, on both */
	assert_true(out[1].handle == out[2].handle);  /* the world, on both */
	assert_true(out[0].handle != out[1].handle);
	assert_int_equal(out[4].kind, CORR_COMM_POINTER);
	assert_int_equal(out[5].kind, CORR_COMM_POINTER);
	assert_int_equal(out[4].order, 0);
	assert_int_equal(out[5].order, 1);
}

/*
 * PyTorch-shaped: 4 ranks, each with its own context pointers below 4 GiB
 * (non-PIE python3), two contexts per group chosen by tag, calls on two
 * worker threads; rank 2 late by 120 ms before each all-reduce.  Attached
 * mid-run: ranks 0 and 1 saw tag 0, ranks 2 and 3 did not.
 */
static void test_torch_gloo(void **state)
{
	struct ft_file_header h = rec_file_header(S0, 100000);
	struct model *m = model__new(&h, NULL);
	struct corr_opts o;
	struct corr *c = NULL;
	size_t full = 0, rank_bound = 0;

	(void)state;
	assert_non_null(m);
	rec_slot(m, 1, FT_LIB_GLOO, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | PTR, "allreduce");
	for (uint32_t r = 0; r < 4; r++) {
		char ns[8];
		uint64_t ctx[2] = { 0x239d9c80u + r * 0x1000u, 0x239e0000u + r * 0x3000u };

		snprintf(ns, sizeof(ns), "h%u", r + 1);
		rec_iface(m, NS1 + r, 2, "eth0", ns, 10000, 0);
		rec_proc(m, 100 + r, 99, NS1 + r, FT_PROC_EXISTING, S0, "python3");
		rec_comm_info(m, 100 + r, ctx[0], (int32_t)r, 4, S0);
		rec_comm_info(m, 100 + r, ctx[1], (int32_t)r, 4, S0);
		for (uint32_t tag = r < 2 ? 0 : 1; tag < 12; tag++) {
			uint64_t t = S0 + (uint64_t)tag * 200 * MS;
			struct ft_phase p = rec_phase_init(1, 100 + r, NS1 + r, t + (r == 2 ? 120 * MS : r * MS),
							   t + 125 * MS);

			p.tid = 1000 + r * 10 + tag % 2; /* two worker threads */
			p.count = 65536;
			p.dtype_size = 4;
			p.comm = ctx[tag % 2];
			p.seq = tag + 1;
			p.flags = FT_PHASE_LIB_SEQ;
			rec_add(m, p);
		}
	}
	rec_end(m, S0 + 2600 * MS);
	assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	assert_int_equal(corr__build(m, &o, &c), 0);
	assert_int_equal(c->seq_shifted, 0); /* the library's numbers need no shifting */
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		assert_int_equal(in->comm_kind, CORR_COMM_LIBSEQ);
		full += in->nmembers == 4;
		if (in->nmembers == 4 && in->verdict == CORR_RANK) {
			rank_bound++;
			assert_int_equal(c->ranks[in->straggler].rank, 2);
		}
	}
	assert_int_equal(c->ninstances, 12); /* tag 0 with two members, 1..11 with four */
	assert_int_equal(full, 11);
	assert_true(rank_bound >= 10);
	corr__free(c);
	model__free(m);
}

/* Two jobs on one machine, traced system-wide: the same handles, the same counts, never one instance. */
static void test_two_jobs(void **state)
{
	struct ft_file_header h = rec_file_header(S0, 100000);
	struct model *m = model__new(&h, NULL);
	struct corr_opts o;
	struct corr *c = NULL;

	(void)state;
	assert_non_null(m);
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | HDL, "allreduce");
	for (uint32_t p = 0; p < 4; p++) {
		struct ft_comm_info job;

		rec_iface(m, NS1 + p, 2, "eth0", p < 2 ? "a" : "b", 10000, 0);
		rec_comm_info(m, 100 + p, 0x44000000, (int32_t)(p % 2), 2, S0);
		REC_HDR(job, FT_REC_COMM_INFO);
		job.pid = 100 + p;
		job.comm = p < 2 ? 0x1111 : 0x2222; /* jobs a and b */
		job.rank = job.size = -1;
		job.slot = FT_SLOT_JOB;
		job.ts_ns = S0;
		rec_add(m, job);
		for (uint64_t k = 1; k <= 5; k++)
			rec_call(m, 1, 100 + p, NS1 + p, S0 + k * 100 * MS + p * MS, S0 + k * 100 * MS + 20 * MS,
				 1024, 4, 0x44000000, k);
	}
	rec_end(m, S0 + 700 * MS);
	assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	assert_int_equal(corr__build(m, &o, &c), 0);
	assert_int_equal(c->ninstances, 10);
	for (size_t i = 0; i < c->ninstances; i++)
		assert_int_equal(c->instances[i].nmembers, 2);
	corr__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_by_library),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_torch_gloo),
		cmocka_unit_test(test_two_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
