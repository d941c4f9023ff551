// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the timeline renderers (viz/) on models built in memory:
 * lane packing of overlapping intervals, the per-rank items and their
 * causes, exact folded stacks (time and bytes), the window, structural
 * properties of the Perfetto, speedscope and SVG outputs (overlapping calls
 * as async slices / extra profiles, counters with pid and tid, lost gaps),
 * an empty model, and the all-or-nothing output files (lib/util.h).
 * Byte-exact outputs of whole captures are the goldens of
 * tests/integration/test_viz_outputs.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "lib/util.h"
#include "viz/common.h"
#include "viz/viz.h"
#include "records.h"

#define TMPDIR_NAME "viz"
#include "tmpdir.h"

#define US 1000ull
#define MS 1000000ull
#define S0 (1000ull * MS)
#define BIN (100 * US)
#define NS1 4026532101u
#define NS2 4026532102u
#define WORLD 0x44000000ull

enum { SL_AR = 1, SL_STEP, SL_MARK, SL_IAR };

static struct model *mk(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	rec_slot(m, SL_AR, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	rec_slot(m, SL_STEP, FT_LIB_MARKER, FT_OP_STEP, FT_SLOT_MARKER, "step");
	rec_slot(m, SL_MARK, FT_LIB_MARKER, FT_OP_MARK, FT_SLOT_MARKER, "phase");
	rec_slot(m, SL_IAR, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_NONBLOCKING, "iallreduce");
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	return m;
}

static struct corr *build(struct model *m)
{
	struct corr_opts o;
	struct corr *c = NULL;

	assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	assert_int_equal(corr__build(m, &o, &c), 0);
	return c;
}

/*
 * Two ranks (rank 0 = pid 101 on h1, rank 1 = pid 102 on h2), three
 * allreduces of 1024 x 4 B inside marker steps:
 *   #1 at +10 ms: rank 1 enters 100 us late, h2's queue holds 3 ms, drops,
 *      a retransmit, a CNP spike on h2's RDMA port: network-bound
 *   #2 at +50 ms: rank 1 computes 30 ms longer, the network is clean: rank-bound
 *   #3 at +100 ms: rank 1 50 us late, clean, its transfer the usual 1 ms: ok
 * plus 5 events lost between +120 and +130 ms.
 */
static struct model *scenario(void)
{
	struct model *m = mk();
	struct ft_flow f = rec_flow(2, 40000, 5000, NS2);
	static const uint64_t ent[3][2] = { { 10 * MS, 10 * MS + 100 * US }, { 50 * MS, 80 * MS },
					    { 100 * MS, 100 * MS + 50 * US } };
	static const uint64_t ex[3] = { 15 * MS, 81 * MS, 101 * MS + 50 * US };

	rec_reason(m, 5, "QDISC_DROP");
	for (uint32_t r = 0; r < 2; r++) {
		rec_comm_info(m, 101 + r, WORLD, (int32_t)r, 2, S0);
		rec_proc(m, 101 + r, 100, NS1 + r, FT_PROC_EXISTING, S0, "train");
	}
	rec_owner(m, f, 102, S0, "train");
	for (int k = 0; k < 3; k++) {
		for (uint32_t r = 0; r < 2; r++) {
			rec_marker(m, SL_STEP, 101 + r, S0 + ent[k][0] - MS, 1, (uint64_t)k, NULL);
			rec_call(m, SL_AR, 101 + r, NS1 + r, S0 + ent[k][r], S0 + ex[k], 1024, 4, WORLD, (uint64_t)k + 1);
			rec_marker(m, SL_STEP, 101 + r, S0 + ex[k] + MS, 0, (uint64_t)k, NULL);
			for (uint64_t t = ent[k][1]; t < ex[k]; t += BIN) {
				rec_bin(m, 0, NS1 + r, 2, FT_DIR_TX, S0 + t / BIN * BIN, 4000, 3, 0);
				rec_bin(m, 0, NS1 + r, 2, FT_DIR_RX, S0 + t / BIN * BIN, 4000, 3, 0);
			}
		}
	}
	/* #1: the congestion on h2 */
	rec_qbin(m, 0, NS2, 2, 0x10000, S0 + 11 * MS, 30000, 20, 2000000, 20, 3000000, 20, 30000, 3);
	rec_drop(m, S0 + 11 * MS, NS2, 2, 5);
	rec_drop(m, S0 + 12 * MS, NS2, 2, 5);
	rec_retrans(m, f, S0 + 13 * MS, FT_RTX_FAST);
	/* RDMA counters of h2's port: np_cnp_sent grows 5000 between +10 and +20 ms */
	rec_rdma_port(m, 0, "mlx5_1", 1, FT_LL_ETHERNET, "eth0", NS2, 2, 10);
	rec_ctr_group(m, 1, FT_CTR_PORT_HW, 0, NS2, 2, 1, 10 * MS, "mlx5_1/1");
	rec_ctr_name(m, 1, 0, FT_CLS_CONGESTION, FT_CTRF_PACKETS, "np_cnp_sent");
	for (uint64_t t = 0; t <= 190 * MS; t += 10 * MS) {
		uint64_t v = t >= 20 * MS ? 5000 : 0;

		rec_ctr_sample(m, 1, S0 + t, 1000, 1, &v);
	}
	rec_lost(m, FT_SRC_NET, 0, 0, S0 + 120 * MS);
	rec_lost(m, FT_SRC_NET, 0, 5, S0 + 130 * MS);
	rec_end(m, S0 + 200 * MS);
	return m;
}

static char *render(int (*fn)(const struct viz_ctx *, FILE *), const struct viz_ctx *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(v, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- lanes ---- */

static void test_lanes(void **state)
{
	/* A contains B; C overlaps B without nesting; D overlaps A's end; E after everything */
	struct viz_item it[] = {
		{ .start = 0, .end = 10, .parent = UINT32_MAX },   /* A */
		{ .start = 2, .end = 5, .parent = 0 },             /* B */
		{ .start = 4, .end = 8, .parent = 0 },             /* C */
		{ .start = 9, .end = 12, .parent = UINT32_MAX },   /* D */
		{ .start = 12, .end = 12, .parent = UINT32_MAX },  /* E, zero length */
	};

	(void)state;
	assert_int_equal(viz__lanes(it, 5), 2);
	assert_int_equal(it[0].lane, 0);
	assert_int_equal(it[1].lane, 0);
	assert_int_equal(it[2].lane, 1);   /* cannot nest next to B in A */
	assert_int_equal(it[3].lane, 1);   /* C has ended by 9; A has not */
	assert_int_equal(it[4].lane, 0);
	/* every lane is properly nested: check with a stack */
	for (uint32_t l = 0; l < 2; l++) {
		uint64_t stack[8] = { 0 };
		int sp = 0;

		for (size_t i = 0; i < 5; i++) {
			if (it[i].lane != l)
				continue;
			while (sp && stack[sp - 1] <= it[i].start)
				sp--;
			assert_true(!sp || stack[sp - 1] >= it[i].end);
			stack[sp++] = it[i].end;
		}
	}
}

/* ---- items, causes, window ---- */

static void test_items_and_causes(void **state)
{
	struct model *m = scenario();
	struct corr *c = build(m);
	struct viz_item *it;
	size_t n, calls = 0, waits = 0, xfers = 0, steps = 0;
	char buf[96];

	(void)state;
	assert_int_equal(c->ninstances, 3);
	assert_int_equal(c->instances[0].verdict, CORR_NETWORK);
	assert_int_equal(c->instances[1].verdict, CORR_RANK);
	assert_int_equal(c->instances[2].verdict, CORR_OK);
	assert_int_equal(viz__rank_items(c, 0, m->start_ns, m->end_ns, &it, &n), 0);
	for (size_t i = 0; i < n; i++) {
		calls += it[i].kind == VIZ_CALL;
		waits += it[i].kind == VIZ_WAIT;
		xfers += it[i].kind == VIZ_XFER;
		steps += it[i].kind == VIZ_STEP;
		if (i)
			assert_true(it[i - 1].start <= it[i].start);
		if (it[i].parent != UINT32_MAX) {
			assert_true(it[i].parent < i);
			assert_true(it[it[i].parent].start <= it[i].start && it[it[i].parent].end >= it[i].end);
		}
	}
	assert_int_equal(calls, 3);
	assert_int_equal(waits, 3);       /* rank 0 entered first every time */
	assert_int_equal(xfers, 3);
	assert_int_equal(steps, 3);
	assert_int_equal(viz__lanes(it, n), 1);
	free(it);
	/* causes of rank 0's calls */
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];

		if (k->rank != 0)
			continue;
		if (k->instance == 0) {
			/* the budget's largest item: the CNP spike over the whole transfer, then the queue */
			assert_string_equal(viz__cause(c, k, VIZ_XFER, buf, sizeof(buf)), "cnp eth0@h2");
		} else {
			assert_string_equal(viz__cause(c, k, VIZ_XFER, buf, sizeof(buf)), "clean");
			assert_string_equal(viz__cause(c, k, VIZ_WAIT, buf, sizeof(buf)), "rank-late");
		}
		assert_string_equal(viz__coll_name(c, k, buf, sizeof(buf)), "allreduce 4.10 kB");
	}
	/* a window clips the items */
	assert_int_equal(viz__rank_items(c, 1, S0 + 60 * MS, S0 + 90 * MS, &it, &n), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(it[i].start >= S0 + 60 * MS && it[i].end <= S0 + 90 * MS);
	assert_true(n >= 2);   /* step 1 and the late allreduce #2 */
	free(it);
	{
		struct viz_ctx v = { .m = m, .c = c };
		uint64_t a, b;

		viz__window(&v, true, &a, &b);   /* the slowest: #2, 31 ms, with 31 ms each side */
		assert_int_equal(a, S0 + 50 * MS - 31 * MS);
		assert_int_equal(b, S0 + 81 * MS + 31 * MS);
		viz__window(&v, false, &a, &b);
		assert_int_equal(a, m->start_ns);
		assert_int_equal(b, m->end_ns);
		v.from_ns = S0 + 5;
		v.to_ns = S0 + 9;
		viz__window(&v, true, &a, &b);
		assert_int_equal(a, S0 + 5);
		assert_int_equal(b, S0 + 9);
	}
	corr__free(c);
	model__free(m);
}

/* ---- folded ---- */

static void test_folded(void **state)
{
	struct model *m = scenario();
	struct corr *c = build(m);
	struct viz_ctx v = { .m = m, .c = c };
	char *out;

	(void)state;
	out = render(viz__folded, &v);
	/*
	 * Each rank's phases split as the collectives' budgets split them: #1's
	 * 4.9 ms transfer into its expected 1 ms and the network's 3.9 ms, item
	 * by item (the CNP spike, the queue, the retransmit, as their estimates
	 * 4.9 : 3.0 : 1.0 ms scale into 3.9 ms); #2's and #3's transfers are
	 * their expected 1 ms each; #2's wait is rank 1's lateness.
	 */
	assert_string_equal(out,
		"rank 0 (h1);allreduce 4.10 kB;transfer;cnp eth0@h2 2147192\n"
		"rank 0 (h1);allreduce 4.10 kB;transfer;expected 3000000\n"
		"rank 0 (h1);allreduce 4.10 kB;transfer;queue eth0@h2 1314606\n"
		"rank 0 (h1);allreduce 4.10 kB;transfer;retrans 438202\n"
		"rank 0 (h1);allreduce 4.10 kB;wait;rank-late 30150000\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;cnp eth0@h2 2147192\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;expected 3000000\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;queue eth0@h2 1314606\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;retrans 438202\n");
	free(out);
	v.weight = VIZ_WEIGHT_BYTES;
	out = render(viz__folded, &v);
	assert_string_equal(out,
		"rank 0 (h1);allreduce 4.10 kB;transfer;clean 8192\n"
		"rank 0 (h1);allreduce 4.10 kB;transfer;cnp eth0@h2 4096\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;clean 8192\n"
		"rank 1 (h2);allreduce 4.10 kB;transfer;cnp eth0@h2 4096\n");
	free(out);
	/* a window cuts phases: rank 0's wait for #2 from +60 to +70 ms only */
	v.weight = VIZ_WEIGHT_TIME;
	v.from_ns = S0 + 60 * MS;
	v.to_ns = S0 + 70 * MS;
	out = render(viz__folded, &v);
	assert_string_equal(out, "rank 0 (h1);allreduce 4.10 kB;wait;rank-late 10000000\n");
	free(out);
	corr__free(c);
	model__free(m);
}

/* ---- perfetto, speedscope, svg ---- */

static void test_perfetto(void **state)
{
	struct model *m = scenario();
	struct corr *c = build(m);
	struct viz_ctx v = { .m = m, .c = c };
	char *out;

	(void)state;
	out = render(viz__perfetto, &v);
	assert_non_null(strstr(out, "\"traceEvents\":["));
	/* names: a process per host, a thread per rank */
	assert_non_null(strstr(out, "\"name\":\"process_name\",\"args\":{\"name\":\"h1\"}"));
	assert_non_null(strstr(out, "\"name\":\"thread_name\",\"args\":{\"name\":\"rank 1 (h2) pid 102\"}"));
	/* 3 calls + 3 waits + 3 transfers + 3 steps on rank 0; rank 1 has no wait */
	assert_int_equal(count(out, "\"ph\":\"X\""), 12 + 9);
	/* the collectives: async slices with verdicts, balanced */
	assert_non_null(strstr(out, "\"name\":\"allreduce #1 network\""));
	assert_non_null(strstr(out, "\"name\":\"allreduce #2 rank\""));
	assert_int_equal(count(out, "\"ph\":\"b\""), count(out, "\"ph\":\"e\""));
	/* each collective's two calls linked by a flow */
	assert_int_equal(count(out, "\"flow_out\":true"), 3);
	assert_int_equal(count(out, "\"flow_in\":true"), 3);
	/* counters carry pid and tid */
	assert_true(count(out, "\"ph\":\"C\"") > 0);
	assert_int_equal(count(out, "{\"ph\":\"C\",\"pid\":"), count(out, "\"ph\":\"C\""));
	assert_int_equal(count(out, "\"ph\":\"C\""), count(out, "\"ph\":\"C\",\"pid\":1,\"tid\":190001") +
			 count(out, "\"ph\":\"C\",\"pid\":2,\"tid\":290001"));
	assert_non_null(strstr(out, "\"name\":\"mlx5_1/1 np_cnp_sent\",\"args\":{\"per s\":"));
	assert_non_null(strstr(out, "\"name\":\"eth0@h2 tbf 1: backlog\""));
	/* instants and the lost gap */
	assert_non_null(strstr(out, "\"name\":\"drop QDISC_DROP\""));
	assert_non_null(strstr(out, "\"name\":\"retransmit fast\""));
	assert_non_null(strstr(out, "\"cat\":\"lost\""));
	assert_null(strstr(out, "nan"));
	free(out);
	corr__free(c);
	model__free(m);
}

/*
 * Overlapping non-blocking calls on one rank: iallreduce #1 runs +10..+20 ms,
 * #2 +10.2..+25 ms (both complete at a Wait later): they cannot nest, so the
 * second goes to an async slice / a second speedscope profile.
 */
static void test_overlap(void **state)
{
	struct model *m = mk();
	struct corr *c;
	struct viz_ctx v;
	char *out;

	(void)state;
	for (uint32_t r = 0; r < 2; r++) {
		rec_comm_info(m, 201 + r, WORLD, (int32_t)r, 2, S0);
		rec_call_nb(m, SL_IAR, 201 + r, NS1 + r, S0 + 10 * MS, S0 + 10 * MS + 100 * US, 256, 4, WORLD, 1, 7);
		rec_call_nb(m, SL_IAR, 201 + r, NS1 + r, S0 + 10 * MS + 200 * US, S0 + 10 * MS + 300 * US, 256, 4,
			    WORLD, 2, 8);
		rec_req_done(m, 201 + r, 7, S0 + 20 * MS);
		rec_req_done(m, 201 + r, 8, S0 + 25 * MS);
	}
	rec_end(m, S0 + 50 * MS);
	c = build(m);
	v = (struct viz_ctx){ .m = m, .c = c };
	assert_int_equal(c->ncalls, 4);
	out = render(viz__perfetto, &v);
	assert_true(count(out, "\"cat\":\"rank-async\"") >= 2);
	assert_int_equal(count(out, "\"ph\":\"b\",\"pid\":1"), count(out, "\"ph\":\"e\",\"pid\":1"));
	free(out);
	out = render(viz__speedscope, &v);
	assert_non_null(strstr(out, "\"name\":\"rank 0 (h1) overlapping 1\""));
	assert_int_equal(count(out, "\"type\":\"O\""), count(out, "\"type\":\"C\""));
	free(out);
	corr__free(c);
	model__free(m);
}

static void test_speedscope(void **state)
{
	struct model *m = scenario();
	struct corr *c = build(m);
	struct viz_ctx v = { .m = m, .c = c };
	char *out;

	(void)state;
	out = render(viz__speedscope, &v);
	assert_non_null(strstr(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	assert_int_equal(count(out, "\"type\":\"evented\""), 2);
	assert_int_equal(count(out, "\"unit\":\"nanoseconds\""), 2);
	assert_non_null(strstr(out, "\"startValue\":0,\"endValue\":200000000"));
	/* times since the capture start: rank 0's step 0 opens at +9 ms */
	assert_non_null(strstr(out, "\"events\":[\n{\"type\":\"O\",\"frame\":0,\"at\":9000000}"));
	assert_non_null(strstr(out, "{\"name\":\"transfer (cnp eth0@h2)\"}"));
	assert_non_null(strstr(out, "{\"name\":\"wait (rank-late)\"}"));
	assert_non_null(strstr(out, "{\"name\":\"step 2\"}"));
	/* rank 0: 3 steps, calls, transfers, 3 waits = 12 frames opened and closed */
	assert_int_equal(count(out, "\"type\":\"O\""), 12 + 9);
	assert_int_equal(count(out, "\"type\":\"C\""), 12 + 9);
	free(out);
	corr__free(c);
	model__free(m);
}

static void test_svg(void **state)
{
	struct model *m = scenario();
	struct corr *c = build(m);
	struct viz_ctx v = { .m = m, .c = c, .from_ns = S0, .to_ns = S0 + 200 * MS };
	char *out;

	(void)state;
	out = render(viz__svg, &v);
	assert_true(!strncmp(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44));
	assert_non_null(strstr(out, "</svg>\n"));
	assert_int_equal(count(out, "<g class=\"rank\""), 2);
	assert_int_equal(count(out, "<rect class=\"coll\""), 3);
	assert_non_null(strstr(out, "data-verdict=\"network\""));
	assert_non_null(strstr(out, "data-verdict=\"rank\""));
	assert_int_equal(count(out, "<rect class=\"late\""), 1);        /* rank 1's 30 ms */
	assert_int_equal(count(out, "<rect class=\"gap\""), 1);         /* the lost events */
	assert_non_null(strstr(out, "<g class=\"track counter\">"));
	assert_non_null(strstr(out, "np_cnp_sent"));
	assert_non_null(strstr(out, "eth0@h2 tbf 1: queue"));
	assert_non_null(strstr(out, "1 retransmit"));
	assert_non_null(strstr(out, "1 drop: QDISC_DROP"));
	assert_null(strstr(out, "nan"));
	free(out);
	/* the default window is the slowest collective, #2, with 31 ms each side: +19..+112 ms holds #3 too */
	v.from_ns = v.to_ns = 0;
	out = render(viz__svg, &v);
	assert_int_equal(count(out, "<rect class=\"coll\""), 2);
	assert_null(strstr(out, "data-seq=\"1\""));
	assert_non_null(strstr(out, "slowest collective: allreduce #2"));
	free(out);
	corr__free(c);
	model__free(m);
}

/* Nothing to draw: every renderer still writes a valid, explanatory document. */
static void test_empty(void **state)
{
	struct model *m = mk();
	struct corr *c;
	struct viz_ctx v;
	char *out;

	(void)state;
	rec_end(m, S0 + 10 * MS);
	c = build(m);
	v = (struct viz_ctx){ .m = m, .c = c };
	out = render(viz__folded, &v);
	assert_string_equal(out, "");
	free(out);
	out = render(viz__speedscope, &v);
	assert_non_null(strstr(out, "\"name\":\"no collective phases in this capture\""));
	free(out);
	out = render(viz__svg, &v);
	assert_non_null(strstr(out, "no collective phases in this capture"));
	free(out);
	out = render(viz__perfetto, &v);
	assert_non_null(strstr(out, "\"traceEvents\":["));
	free(out);
	corr__free(c);
	model__free(m);
}

/* ---- output files: whole or nothing ---- */

static void test_outfile(void **state)
{
	struct outfile o;
	struct stat st;
	char err[256], buf[16] = { 0 };
	FILE *f;

	(void)state;
	assert_int_equal(outfile_open(&o, tpath("a.svg"), err, sizeof(err)), 0);
	fputs("hello", o.f);
	assert_int_equal(stat(tpath("a.svg"), &st), -1);        /* not there before the commit */
	assert_int_equal(outfile_commit(&o, err, sizeof(err)), 0);
	assert_int_equal(stat(tpath("a.svg"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(tpath("a.svg"), "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "hello");
	/* abort: the old file stays, no temporary is left */
	assert_int_equal(outfile_open(&o, tpath("a.svg"), err, sizeof(err)), 0);
	fputs("half", o.f);
	outfile_abort(&o);
	f = fopen(tpath("a.svg"), "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "hello");
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep -v '^a.svg$')\"", tmpdir);
		assert_int_equal(system(cmd), 0);
	}
	/* refused: a symlink, a directory, a missing directory */
	assert_int_equal(symlink("a.svg", tpath("l.svg")), 0);
	assert_int_equal(outfile_open(&o, tpath("l.svg"), err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(outfile_open(&o, tmpdir, err, sizeof(err)), -EEXIST);
	assert_int_equal(outfile_open(&o, tpath("no/such/dir.svg"), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot create"));
}

/* Names from a capture in SVG text: escaped, and UTF-8 or U+FFFD (found by tests/fuzz/fuzz_capture) */
static void test_xml_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	/* an overlong E0 98 B9 is not UTF-8: an XML parser refuses the whole document */
	viz__xml(f, "a<b&\"'\x01 \xe0\x98\xb9 \xed\xa0\x80 \xc3\xa9");
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "a&lt;b&amp;&quot;&apos;  &#xFFFD;&#xFFFD;&#xFFFD; &#xFFFD;&#xFFFD;&#xFFFD; \xc3\xa9");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_items_and_causes),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_perfetto),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_outfile),
		cmocka_unit_test(test_xml_text),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
