// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A windowed load that passes over blocks by the capture's block index
 * (model_opts.blocks, report --windows) gives the model a load that reads
 * every block gives: captures of one to five records per block, windows at
 * the start, in the middle and to the end.  And the index is used: a block
 * whose summary says "outside the window" is not read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "userspace/capture/capture.h"
#include "userspace/model/model.h"

/* the records.h helpers write into this capture, a block every FLUSH_EVERY records */
static struct capture_writer *writer;
static unsigned flush_every, in_block;

static int feed_writer(const struct ft_rec_hdr *h)
{
	int ret = capture__append(writer, h);

	if (!ret && ++in_block >= flush_every) {
		in_block = 0;
		ret = capture__flush(writer);
	}
	return ret;
}
#define REC_FEED(m, h) ((void)(m), feed_writer(h))
#include "records.h"

#define S0  1000000000ull
#define MS  1000000ull
#define NS1 4026531840u

static char dir[64];

/*
 * 60 ms of a job: bins every ms, a drop every 7 ms, an all-reduce every
 * 5 ms, steps of 10 ms (markers), two counter groups (the second stops
 * at 30 ms: its last sample is far before a later window), lost events,
 * and a process that appears at 33 ms (a thing in the middle of the file).
 * Without END, it ends as a killed recorder's capture.
 */
static void write_job(const char *path, unsigned every, bool end)
{
	struct ft_file_header h = rec_file_header(S0, 100000);
	char err[256];

	writer = NULL;
	flush_every = every;
	in_block = 0;
	assert_int_equal(capture__create(&writer, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	rec_iface(NULL, NS1, 2, "eth0", "h1", 1000, 0);
	rec_stats(NULL, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
	rec_slot(NULL, 1, FT_LIB_MARKER, FT_OP_STEP, 0, "step");
	rec_slot(NULL, 2, FT_LIB_MPI, FT_OP_ALLREDUCE, 0, "Allreduce");
	rec_ctr_group(NULL, 0, FT_CTR_ETHTOOL, ~0u, NS1, 2, 1, 5 * MS, "eth0@h1");
	rec_ctr_name(NULL, 0, 0, FT_CLS_PAUSE, 0, "rx_pause_ctrl_phy");
	rec_ctr_group(NULL, 1, FT_CTR_ETHTOOL, ~0u, NS1, 2, 1, 5 * MS, "eth0@h1");
	rec_ctr_name(NULL, 1, 0, FT_CLS_CONGESTION, 0, "rx_ecn_mark");
	for (uint64_t t = 0; t < 60; t++) {
		uint64_t v = 100 + t * t;

		rec_bin(NULL, (uint32_t)(t % 2), NS1, 2, FT_DIR_TX, S0 + t * MS, 1000 + t, 1, 0);
		if (t % 7 == 3)
			rec_drop(NULL, S0 + t * MS + 10, NS1, 2, 2);
		if (t % 10 == 8) /* step k/10 from 8 ms before to 4 ms after its decade */
			rec_marker(NULL, 1, 100, S0 + t * MS, 1, t / 10, NULL);
		if (t % 10 == 4 && t > 10)
			rec_marker(NULL, 1, 100, S0 + t * MS, 0, t / 10 - 1, NULL);
		if (t % 5 == 2) /* an all-reduce that ended: written at its end */
			rec_call(NULL, 2, 100, NS1, S0 + (t - 2) * MS, S0 + t * MS, 10, 4, 7, t / 5);
		if (t % 5 == 0) {
			rec_ctr_sample(NULL, 0, S0 + t * MS, 1000, 1, &v);
			if (t < 30)
				rec_ctr_sample(NULL, 1, S0 + t * MS, 1000, 1, &v);
		}
		if (t % 20 == 5)
			rec_lost(NULL, FT_SRC_NET, 0, t, S0 + t * MS);
		if (t == 33)
			rec_proc(NULL, 200, 1, NS1, FT_PROC_EXEC, S0 + t * MS, "late");
	}
	if (end) { /* else as a recorder killed: its span is the latest time read */
		rec_stats(NULL, NS1, 2, FT_STATS_STOP, 0, 0, 100000, 60);
		rec_end(NULL, S0 + 60 * MS);
	}
	assert_int_equal(capture__close(writer), 0);
}

/* What a report reads of a model, folded into a few numbers to compare. */
struct digest {
	uint64_t cap_start, cap_end, start, end, records, lost;
	uint64_t nbins, bytes, nphases, phases, npoints, points, nprocs, ndrops;
};

static struct digest digest(const struct model *m)
{
	struct digest d = {
		.cap_start = m->capture_start_ns, .cap_end = m->capture_end_ns, .start = m->start_ns,
		.end = m->end_ns, .records = m->records, .lost = m->lost_total, .nbins = m->nbins,
		.nphases = m->nphases, .npoints = m->nctr_points, .nprocs = m->nprocs,
		.ndrops = m->ndrop_events,
	};

	for (size_t i = 0; i < m->nbins; i++)
		d.bytes += m->bins[i].bytes;
	for (size_t i = 0; i < m->nphases; i++)
		d.phases += m->phases[i].start_ns * 3 + m->phases[i].end_ns + m->phases[i].count * 7 +
			    m->phases[i].flags;
	for (size_t i = 0; i < m->nctr_points; i++)
		d.points += m->ctr_points[i].start_ns + m->ctr_points[i].end_ns * 3 + m->ctr_points[i].delta;
	return d;
}

/* A and B, read with and without the index in case CASE, window W, the same */
static void same(const struct digest *a, const struct digest *b, unsigned c, size_t w)
{
#define SAME(f)                                                                                            \
	do {                                                                                               \
		if (a->f != b->f)                                                                          \
			fail_msg("case %u, window %zu: %s %llu, read by the index %llu", c, w, #f,          \
				 (unsigned long long)a->f, (unsigned long long)b->f);                      \
	} while (0)
	SAME(cap_start);
	SAME(cap_end);
	SAME(start);
	SAME(end);
	SAME(records);
	SAME(lost);
	SAME(nbins);
	SAME(bytes);
	SAME(nphases);
	SAME(phases);
	SAME(npoints);
	SAME(points);
	SAME(nprocs);
	SAME(ndrops);
#undef SAME
}

static struct digest load(const char *path, uint64_t from, uint64_t to, struct capture_block_index *idx)
{
	struct model_opts o;
	struct model *m = NULL;
	struct digest d;
	char err[512];

	model_opts__init(&o);
	o.window = true;
	o.window_from_ns = from;
	o.window_to_ns = to;
	o.blocks = idx;
	assert_int_equal(model__load(path, &o, &m, err, sizeof(err)), 0);
	d = digest(m);
	model__free(m);
	return d;
}

static void test_same_model(void **state)
{
	static const uint64_t win[][2] = {
		{ 0, 5 * MS }, { 10 * MS, 20 * MS }, { 12 * MS, 13 * MS }, { 31 * MS, 42 * MS },
		{ 45 * MS, 0 }, { 55 * MS, 70 * MS },
	};
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/job.ftr", dir);
	for (unsigned every = 1; every <= 15; every++) {
		/* the last five: room for a few markers only, the blocks of the others read whole */
		struct capture_block_index idx = { .kept_max = every > 10 ? 200 : 0 };

		write_job(path, (every - 1) % 5 + 1, every <= 5 || every > 10);
		size_t nkept = 0, nshort = 0;

		load(path, 20 * MS, 30 * MS, &idx); /* the first window's read sums up the blocks */
		assert_true(idx.n > 20);
		for (size_t i = 0; i < idx.n; i++) {
			nkept += idx.b[i].nkept > 0;
			nshort += !idx.b[i].kept_all;
		}
		assert_true(nkept > 0); /* the markers, kept for the windows after them */
		assert_true(every > 10 ? nshort > 0 : nshort == 0);
		for (size_t w = 0; w < sizeof(win) / sizeof(win[0]); w++) {
			struct digest a = load(path, win[w][0], win[w][1], NULL);
			struct digest b = load(path, win[w][0], win[w][1], &idx);

			same(&a, &b, every, w);
			assert_true(a.nbins > 0 || win[w][0] >= 60 * MS);
		}
		capture_block_index__free(&idx);
	}
	unlink(path);
}

/* A block the index says lies outside the window is passed over unread. */
static void test_passed_over(void **state)
{
	struct capture_block_index idx = { 0 };
	struct digest a, b;
	char path[128];
	size_t lied = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/lie.ftr", dir);
	write_job(path, 1, true);
	load(path, 0, 0, &idx);
	a = load(path, 10 * MS, 20 * MS, &idx);
	/* the bin of 15 ms, said to be at 50 ms: a load by the index never sees it */
	for (size_t i = 0; i < idx.n; i++)
		if (idx.b[i].types == 1ull << FT_REC_IFACE_BIN && idx.b[i].min_ns == S0 + 15 * MS) {
			idx.b[i].min_ns = idx.b[i].max_ns = S0 + 50 * MS;
			lied++;
		}
	assert_int_equal(lied, 1);
	b = load(path, 10 * MS, 20 * MS, &idx);
	assert_int_equal(b.nbins + 1, a.nbins);
	assert_int_equal(b.bytes + 1015, a.bytes);
	assert_int_equal(b.records, a.records); /* still counted as read */
	capture_block_index__free(&idx);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_model),
		cmocka_unit_test(test_passed_over),
	};
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/ft_test_winblk.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
