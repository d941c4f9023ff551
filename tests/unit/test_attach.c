// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jobs attached mid-run (issue 15): ranks from the launcher's environment
 * (probes/procenv.c) and collective sequences shifted into step across ranks
 * (userspace/correlate/seq_align.c), alone and through the correlator.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/procenv.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "userspace/correlate/seq_align.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)
#define NS1 4026532101u
#define WORLD 0x44000000ull

static int parse(const char *env, size_t len, int32_t *r, int32_t *s)
{
	return procenv__parse_rank(env, len, r, s);
}

static void test_env_rank(void **state)
{
	static const char mpich[] = "PATH=/bin\0PMI_FD=5\0PMI_RANK=2\0PMI_SIZE=4\0";
	static const char ompi[] = "RANK=7\0OMPI_COMM_WORLD_SIZE=4\0OMPI_COMM_WORLD_RANK=3\0";
	static const char torch[] = "MASTER_ADDR=10.0.0.1\0WORLD_SIZE=8\0RANK=5\0LOCAL_RANK=1\0";
	static const char bad[] = "PMI_RANK=x\0RANK=-1\0SLURM_PROCID=99999999999\0";
	static const char beyond[] = "PMI_RANK=4\0PMI_SIZE=4\0";
	static const char cut[] = { 'P', 'M', 'I', '_', 'R', 'A', 'N', 'K', '=', '1' }; /* no NUL at the end */
	int32_t r, s;

	(void)state;
	assert_int_equal(parse(mpich, sizeof(mpich), &r, &s), 0);
	assert_int_equal(r, 2);
	assert_int_equal(s, 4);
	/* Open MPI's own variables win over a generic RANK */
	assert_int_equal(parse(ompi, sizeof(ompi), &r, &s), 0);
	assert_int_equal(r, 3);
	assert_int_equal(s, 4);
	assert_int_equal(parse(torch, sizeof(torch), &r, &s), 0);
	assert_int_equal(r, 5);
	assert_int_equal(s, 8);
	assert_int_equal(parse(bad, sizeof(bad), &r, &s), -ENOENT);
	assert_int_equal(r, -1);
	assert_int_equal(parse(beyond, sizeof(beyond), &r, &s), -ENOENT);
	assert_int_equal(parse(cut, sizeof(cut), &r, &s), 0);
	assert_int_equal(r, 1);
	assert_int_equal(s, -1);
	assert_int_equal(parse("", 0, &r, &s), -ENOENT);
	/* the job: one number for every process of it, on every node; none from MPICH's Hydra */
	{
		static const char r0[] = "PMIX_RANK=0\0PMIX_NAMESPACE=27787265\0";
		static const char r1[] = "PMIX_NAMESPACE=27787265\0PMIX_RANK=1\0";
		static const char other[] = "PMIX_NAMESPACE=27787266\0PMIX_RANK=1\0";
		static const char t0[] = "MASTER_ADDR=10.0.0.1\0MASTER_PORT=29500\0RANK=0\0";
		static const char t1[] = "RANK=1\0MASTER_PORT=29500\0MASTER_ADDR=10.0.0.1\0";
		static const char t2[] = "MASTER_ADDR=10.0.0.1\0MASTER_PORT=29501\0RANK=0\0";

		assert_true(procenv__parse_job(r0, sizeof(r0)) != 0);
		assert_true(procenv__parse_job(r0, sizeof(r0)) == procenv__parse_job(r1, sizeof(r1)));
		assert_true(procenv__parse_job(r0, sizeof(r0)) != procenv__parse_job(other, sizeof(other)));
		assert_true(procenv__parse_job(t0, sizeof(t0)) == procenv__parse_job(t1, sizeof(t1)));
		assert_true(procenv__parse_job(t0, sizeof(t0)) != procenv__parse_job(t2, sizeof(t2)));
		assert_int_equal(procenv__parse_job(mpich, sizeof(mpich)), 0);
	}
	/* a process that is not there */
	{
		uint64_t job;

		assert_int_equal(procenv__read(0x7ffffff0, &r, &s, &job), -ENOENT);
	}
}

/*
 * Four ranks, 10 all-reduces every 100 ms; rank 3 enters each 50 ms late
 * (the others wait).  Attached while ranks 0-2 sat in all-reduce 0 and rank 3
 * was still computing: rank 3 saw all-reduce 0 as its seq 1, the others saw
 * all-reduce 1 as theirs.
 */
static size_t straggler_items(struct seq_item *it, int offset_others)
{
	size_t n = 0;

	for (uint32_t r = 0; r < 4; r++)
		for (int k = 0; k < 10; k++) {
			struct seq_item *x = &it[n];
			uint64_t t = S0 + (uint64_t)k * 100 * MS;

			if (r < 3 && k < offset_others)
				continue; /* entry missed */
			x->g0 = 1;
			x->g1 = WORLD;
			x->pid = 100 + r;
			x->idx = (uint32_t)n;
			x->op = 1;
			x->seq = r < 3 ? k - offset_others + 1 : k + 1;
			x->start = t + (r == 3 ? 50 * MS : r * MS);
			x->end = t + 51 * MS + r * 10000;
			n++;
		}
	return n;
}

static void test_seq_align(void **state)
{
	struct seq_item it[64];
	size_t n, shifted;

	(void)state;
	/* traced from the start: nothing moves */
	n = straggler_items(it, 0);
	assert_int_equal(seq_align__run(it, n, &shifted), 0);
	assert_int_equal(shifted, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(it[i].seq, (int64_t)((it[i].start - S0) / (100 * MS)) + 1);

	/* attached mid-run: afterwards the same all-reduce has the same seq everywhere */
	n = straggler_items(it, 1);
	assert_int_equal(seq_align__run(it, n, &shifted), 0);
	assert_true(shifted >= 1);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (it[i].seq == it[j].seq)
				assert_int_equal((it[i].start - S0) / (100 * MS), (it[j].start - S0) / (100 * MS));
	for (size_t i = 0; i < n; i++)
		assert_true(it[i].seq >= 1);

	/* two collectives behind: the same */
	n = straggler_items(it, 2);
	assert_int_equal(seq_align__run(it, n, &shifted), 0);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (it[i].seq == it[j].seq)
				assert_int_equal((it[i].start - S0) / (100 * MS), (it[j].start - S0) / (100 * MS));

	/* different ops never pair: a bcast leaf that enters after the root left stays put */
	{
		struct seq_item b[4] = {
			{ .g0 = 1, .pid = 1, .op = 2, .seq = 1, .start = S0, .end = S0 + MS },
			{ .g0 = 1, .pid = 1, .op = 3, .seq = 2, .start = S0 + 2 * MS, .end = S0 + 205 * MS },
			{ .g0 = 1, .pid = 2, .op = 2, .seq = 1, .start = S0 + 100 * MS, .end = S0 + 101 * MS },
			{ .g0 = 1, .pid = 2, .op = 3, .seq = 2, .start = S0 + 201 * MS, .end = S0 + 205 * MS },
		};

		assert_int_equal(seq_align__run(b, 4, &shifted), 0);
		assert_int_equal(shifted, 0);
		assert_int_equal(b[2].seq, 1);
	}

	/*
	 * Seen in the lab (MPICH, rank 2 sleeping 150 ms): the late rank (the
	 * reference, one call more) leaves each all-reduce a few ms after the
	 * others went straight into the next, so a process's call also touches
	 * the reference's previous one.  Touching is no pairing: only the shift
	 * under which the calls share most of their time is.
	 */
	{
		static const uint64_t late[][2] = { { 451, 513 }, { 663, 729 }, { 880, 937 }, { 1088, 1165 },
						    { 1316, 1394 }, { 1544, 1609 } };
		static const uint64_t early[][2] = { { 508, 725 }, { 725, 933 }, { 934, 1149 }, { 1149, 1389 },
						     { 1390, 1598 } };
		struct seq_item c[11];
		size_t k = 0;

		for (size_t i = 0; i < 6; i++)
			c[k++] = (struct seq_item){ .g0 = 1, .pid = 2, .op = 1, .seq = (int64_t)i + 1,
						    .start = S0 + late[i][0] * MS, .end = S0 + late[i][1] * MS };
		for (size_t i = 0; i < 5; i++)
			c[k++] = (struct seq_item){ .g0 = 1, .pid = 1, .op = 1, .seq = (int64_t)i + 1,
						    .start = S0 + early[i][0] * MS, .end = S0 + early[i][1] * MS };
		assert_int_equal(seq_align__run(c, k, &shifted), 0);
		assert_int_equal(shifted, 1);
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				if (c[i].pid != c[j].pid && c[i].seq == c[j].seq) /* the same all-reduce: they leave together */
					assert_true(c[i].end - c[j].end < 20 * MS || c[j].end - c[i].end < 20 * MS);
	}
}

/* Through the correlator: the off-by-one ranks match again, and the environment names them. */
static void test_attached_job(void **state)
{
	struct ft_file_header h = rec_file_header(S0, 100000);
	struct model *m = model__new(&h, NULL);
	struct corr_opts o;
	struct corr *c = NULL;
	size_t full = 0, rank_bound = 0;

	(void)state;
	assert_non_null(m);
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	for (uint32_t r = 0; r < 4; r++) {
		char ns[8];

		snprintf(ns, sizeof(ns), "h%u", r + 1);
		rec_iface(m, NS1 + r, 2, "eth0", ns, 10000, 0);
		rec_proc(m, 100 + r, 99, NS1 + r, FT_PROC_EXISTING, S0, "allreduce");
		/* no MPI_Comm_rank seen: the launcher's environment only */
		rec_comm_info(m, 100 + r, FT_COMM_ENV, (int32_t)r, 4, S0);
	}
	/* rank 1 also told us through MPI_Comm_rank: that wins over its environment */
	rec_comm_info(m, 101, WORLD, 1, 4, S0);
	rec_comm_info(m, 101, FT_COMM_ENV, 3, 4, S0);
	for (uint32_t r = 0; r < 4; r++)
		for (int k = 0; k < 10; k++) {
			uint64_t t = S0 + (uint64_t)k * 100 * MS;

			if (r < 3 && k < 1)
				continue;
			rec_call(m, 1, 100 + r, NS1 + r, t + (r == 3 ? 50 * MS : r * MS), t + 51 * MS, 262144, 4, WORLD,
				 (uint64_t)(r < 3 ? k : k + 1));
		}
	rec_end(m, S0 + 1100 * MS);
	assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	assert_int_equal(corr__build(m, &o, &c), 0);
	assert_true(c->seq_shifted >= 1);
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		full += in->nmembers == 4;
		if (in->nmembers == 4 && in->verdict == CORR_RANK) {
			rank_bound++;
			assert_int_equal(c->ranks[in->straggler].rank, 3);
		}
	}
	assert_int_equal(full, 9);        /* all-reduces 1..9 with all four ranks */
	assert_true(rank_bound >= 8);
	for (size_t i = 0; i < c->nranks; i++)
		assert_int_equal(c->ranks[i].rank, (int32_t)(c->ranks[i].pid - 100));
	corr__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_rank),
		cmocka_unit_test(test_seq_align),
		cmocka_unit_test(test_attached_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
