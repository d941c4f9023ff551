// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the model (userspace/model/model_*.c): synthetic records in, aggregates out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/capture/capture.h"
#include "userspace/model/model.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)   /* capture start, CLOCK_MONOTONIC */
#define BIN MS              /* 1 ms bins */
#define FULL 125000ull      /* bytes in one 1 ms bin at 1 Gbit/s */
#define NS1 4026531840u     /* a netns inode */

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static struct ft_file_header mkhdr(void)
{
	return rec_file_header(S0, BIN);
}

static struct model *mk(double thr, uint64_t gap)
{
	struct ft_file_header h = mkhdr();
	struct model_opts o;
	struct model *m;

	model_opts__init(&o);
	if (thr > 0)
		o.burst_threshold = thr;
	o.burst_gap_ns = gap;
	m = model__new(&h, &o);
	assert_non_null(m);
	return m;
}

static const struct model_dir *dir_of(const struct model *m, uint32_t netns, uint32_t ifindex, int dir)
{
	const struct model_iface *f = model__iface(m, netns, ifindex);

	assert_non_null(f);
	return &f->dir[dir];
}

/* ---- tests ---- */

/* Conservation's third state: a shortfall within the skipped probe runs is explained. */
static struct model *skipped_case(uint64_t tx_hits, uint64_t tx_runs, uint64_t short2, uint64_t short3)
{
	struct model *m = mk(0, 0);

	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_iface(m, NS1, 3, "eth1", "h1", 1000, 0);
	rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
	rec_stats(m, NS1, 3, FT_STATS_START, 0, 0, 0, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 100000, 100, 0);
	rec_bin(m, 0, NS1, 3, FT_DIR_TX, S0, 100000, 100, 0);
	/* the counters saw SHORT more packets of 1000 bytes each than the bins */
	rec_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 100000 + 1000 * short2, 100 + short2);
	rec_stats(m, NS1, 3, FT_STATS_STOP, 0, 0, 100000 + 1000 * short3, 100 + short3);
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, tx_hits, tx_runs);
	rec_end(m, S0 + 2 * BIN);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_conservation_skipped(void **state)
{
	struct model *m;
	const struct model_dir *a, *b;

	(void)state;
	/* 10 + 5 short, 15 runs skipped: both explained */
	m = skipped_case(1015, 1000, 10, 5);
	a = dir_of(m, NS1, 2, FT_DIR_TX);
	b = dir_of(m, NS1, 3, FT_DIR_TX);
	assert_int_equal(a->conserve, MODEL_CONSERVE_OK_SKIPPED);
	assert_int_equal(a->skipped_pkts, 10);
	assert_int_equal(b->conserve, MODEL_CONSERVE_OK_SKIPPED);
	assert_int_equal(b->skipped_pkts, 5);
	assert_string_equal(model__conserve_name(a->conserve), "ok_skipped");
	/* rx had no skips and nothing missing */
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_RX)->conserve, MODEL_CONSERVE_OK);
	model__free(m);

	/* 10 + 5 short but only 14 skipped: the sum does not fit, both stay mismatches */
	m = skipped_case(1014, 1000, 10, 5);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
	assert_int_equal(dir_of(m, NS1, 3, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->skipped_pkts, 0);
	model__free(m);

	/* 10 short on eth0, 1 on eth1 (a frame in flight: OK), 10 skipped: the OK interface spends
	 * none of the skips, so eth0's 10 are explained */
	m = skipped_case(1010, 1000, 10, 1);
	assert_int_equal(dir_of(m, NS1, 3, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK_SKIPPED);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->skipped_pkts, 10);
	model__free(m);

	/* no coverage known: no explanation */
	m = skipped_case(1000, 1000, 10, 0);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
	assert_int_equal(dir_of(m, NS1, 3, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK);
	model__free(m);
}

/*
 * The full profile's transmit bins at tcx egress and qdisc_dequeue: a skipped
 * dequeue hides a bulk of skbs, each as many packets as the stack cuts it
 * into (offloads off).  Here the qdisc took 10 skbs for 200 packets, so each
 * of the 2 skipped dequeues may hide 9 skbs of 20 packets.
 */
static struct model *skipped_dequeue_case(uint64_t short_pkts, bool deq_attached)
{
	struct model *m = mk(0, 0);

	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_probe(m, FT_PROBE_IFACE_TX, "iface_tx", "tcx/egress", true);
	rec_probe(m, FT_PROBE_QDISC_DEQ, "qdisc_dequeue", "tp_btf/qdisc_dequeue", deq_attached);
	rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 200000, 200, 0);
	rec_qbin_kind(m, "htb", NS1, 2, 0x10000, S0, 30000, 0, 0, 0, 10, 200000);
	rec_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 200000 + 1000 * short_pkts, 200 + short_pkts);
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, 1000, 1000);
	rec_coverage(m, FT_PROBE_QDISC_DEQ, 1, 102, 100);
	rec_end(m, S0 + 2 * BIN);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_conservation_skipped_dequeue(void **state)
{
	struct model *m;

	(void)state;
	/* 144 short: more than a bulk of 9 packets per skip, within 9 skbs of 20 */
	m = skipped_dequeue_case(144, true);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK_SKIPPED);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->skipped_pkts, 144);
	model__free(m);
	/* 2 * 9 * 20 = 360 is the most the skips explain */
	m = skipped_dequeue_case(360, true);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK_SKIPPED);
	model__free(m);
	m = skipped_dequeue_case(361, true);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
	model__free(m);
	/* the always profile's dequeue, in post-windows only, bins nothing: its skips explain none */
	m = skipped_dequeue_case(144, false);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
	model__free(m);
}

static void test_bins_summed_and_sorted(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* out of order, two CPUs, same start on both */
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, 1000, 2, 1);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 0 * BIN, 500, 1, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, 300, 1, 2);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 1 * BIN, 200, 1, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 1 * BIN, 7000, 5, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 0 * BIN, 50, 1, 0);
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);

	d = dir_of(m, NS1, 2, FT_DIR_RX);
	assert_int_equal(d->nbins, 3);
	assert_int_equal(d->bins[0].start_ns, S0);
	assert_int_equal(d->bins[0].bytes, 550);
	assert_int_equal(d->bins[0].pkts, 2);
	assert_int_equal(d->bins[1].start_ns, S0 + BIN);
	assert_int_equal(d->bins[1].bytes, 200);
	assert_int_equal(d->bins[2].start_ns, S0 + 2 * BIN);
	assert_int_equal(d->bins[2].bytes, 1300);
	assert_int_equal(d->bins[2].ce_pkts, 3);
	assert_int_equal(d->bytes, 2050);
	assert_int_equal(d->pkts, 6);
	assert_int_equal(d->ce_pkts, 3);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_int_equal(d->nbins, 1);
	assert_int_equal(d->bytes, 7000);
	assert_int_equal(m->nbins, 4);
	assert_int_equal(m->duration_ns, 10 * BIN);
	model__free(m);
}

static void test_unknown_iface_and_order(void **state)
{
	struct model *m = mk(0, 0);

	(void)state;
	rec_bin(m, 0, 77, 3, FT_DIR_TX, S0, 100, 1, 0);
	rec_iface(m, NS1, 5, "eth1", "h2", 1000, 0);
	rec_iface(m, NS1, 4, "eth0", "h2", 1000, 0);
	rec_iface(m, 1, 9, "veth0", "", 1000, 0);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->nifaces, 4);
	/* initial-namespace ("") first, then h2 by name, unnamed last */
	assert_string_equal(m->ifaces[0].label, "veth0");
	assert_string_equal(m->ifaces[1].label, "eth0@h2");
	assert_string_equal(m->ifaces[2].label, "eth1@h2");
	assert_string_equal(m->ifaces[3].label, "netns 77 ifindex 3");
	assert_false(m->ifaces[3].known);
	assert_int_equal(m->ifaces[3].dir[FT_DIR_TX].bytes, 100);
	assert_ptr_equal(model__iface(m, 77, 3), &m->ifaces[3]);
	assert_null(model__iface(m, 77, 4));
	assert_string_equal(model__netns_name(m, NS1), "h2");
	model__free(m);
}

static void test_rates(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0, FULL / 2, 10, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, FULL / 4, 5, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, FULL * 3 / 4, 5, 0);
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_RX);
	/* 187500 B over 10 ms = 150 Mbit/s; over 2 busy bins = 750 Mbit/s; peak 1 Gbit/s */
	assert_int_equal(d->bytes, 187500);
	assert_int_equal(d->active_ns, 2 * BIN);
	assert_true(dabs(d->mean_bps - 150e6) < 1e-3);
	assert_true(dabs(d->busy_mean_bps - 750e6) < 1e-3);
	assert_true(dabs(d->peak_bps - 1e9) < 1e-3);
	assert_int_equal(d->peak_start_ns, S0 + 3 * BIN);
	assert_true(dabs(d->capacity_bps - 1e9) < 1e-3);
	assert_true(dabs(d->mean_util - 0.15) < 1e-9);
	assert_true(dabs(d->busy_util - 0.75) < 1e-9);
	assert_true(dabs(d->peak_util - 1.0) < 1e-9);
	assert_true(dabs(model__bin_bps(m, 1000) - 8e6) < 1e-6);
	model__free(m);
}

static void test_capacity(void **state)
{
	struct model *m = mk(0, 0);

	(void)state;
	rec_iface(m, NS1, 1, "a", "n", 1000, 100000);   /* tbf 100 Mbit on 1G */
	rec_iface(m, NS1, 2, "b", "n", 100, 1000000);   /* limit above the link */
	rec_iface(m, NS1, 3, "c", "n", 0, 50000);       /* unknown speed, 50 Mbit tbf */
	rec_iface(m, NS1, 4, "d", "n", 0, 0);           /* nothing known */
	rec_bin(m, 0, NS1, 4, FT_DIR_TX, S0, FULL, 1, 0);
	rec_end(m, S0 + 2 * BIN);
	assert_int_equal(model__finish(m), 0);
	assert_true(dabs(dir_of(m, NS1, 1, FT_DIR_TX)->capacity_bps - 100e6) < 1);
	assert_true(dabs(dir_of(m, NS1, 1, FT_DIR_RX)->capacity_bps - 1e9) < 1);
	assert_true(dabs(dir_of(m, NS1, 2, FT_DIR_TX)->capacity_bps - 100e6) < 1);
	assert_true(dabs(dir_of(m, NS1, 2, FT_DIR_RX)->capacity_bps - 100e6) < 1);
	assert_true(dabs(dir_of(m, NS1, 3, FT_DIR_TX)->capacity_bps - 50e6) < 1);
	assert_true(dir_of(m, NS1, 3, FT_DIR_RX)->capacity_bps == 0);
	assert_true(dir_of(m, NS1, 4, FT_DIR_TX)->capacity_bps == 0);
	assert_true(isnan(dir_of(m, NS1, 4, FT_DIR_TX)->peak_util));
	assert_int_equal(dir_of(m, NS1, 4, FT_DIR_TX)->nbursts, 0);
	model__free(m);
}

/* Threshold edges: exactly at the threshold is hot, one byte under is not. */
static void test_burst_threshold_edges(void **state)
{
	struct model *m = mk(0.5, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, FULL / 2 - 1, 1, 0); /* just below */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 2 * BIN, FULL / 2, 1, 0);     /* exactly at: single-bin burst */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 4 * BIN, FULL / 2 - 1, 1, 0); /* below */
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_int_equal(d->nbursts, 1);
	const struct model_burst *b = &m->bursts[d->first_burst];

	assert_int_equal(b->start_ns, S0 + 2 * BIN);
	assert_int_equal(b->duration_ns, BIN);
	assert_int_equal(b->bytes, FULL / 2);
	assert_int_equal(b->nbins, 1);
	assert_true(dabs(b->peak_bps - 500e6) < 1e-3);
	assert_true(dabs(b->peak_util - 0.5) < 1e-9);
	model__free(m);
}

/* Consecutive hot bins form one burst; default gap (one bin) does not bridge a cold bin. */
static void test_burst_default_gap(void **state)
{
	struct model *m = mk(0.5, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 1 * BIN, FULL, 10, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, FULL * 3 / 4, 7, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, 100, 1, 0);        /* cold */
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 4 * BIN, FULL * 6 / 10, 6, 0);
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_RX);
	assert_int_equal(d->nbursts, 2);
	const struct model_burst *b = &m->bursts[d->first_burst];

	assert_int_equal(b[0].start_ns, S0 + BIN);
	assert_int_equal(b[0].duration_ns, 2 * BIN);
	assert_int_equal(b[0].bytes, FULL + FULL * 3 / 4);
	assert_int_equal(b[0].pkts, 17);
	assert_int_equal(b[0].nbins, 2);
	assert_true(dabs(b[0].peak_bps - 1e9) < 1e-3);
	assert_int_equal(b[1].start_ns, S0 + 4 * BIN);
	assert_int_equal(b[1].duration_ns, BIN);
	assert_int_equal(b[1].bytes, FULL * 6 / 10);
	model__free(m);
}

/*
 * burst_gap_ns = 2.5 bins: a 2-bin gap (2 ms < 2.5 ms) merges, including the
 * cold bin's bytes; a 3-bin gap (3 ms) does not.  The last burst ends the capture.
 */
static void test_burst_gap_merge(void **state)
{
	struct model *m = mk(0.5, 2 * BIN + BIN / 2);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, FULL, 1, 0);       /* burst A */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 1 * BIN, 1000, 1, 0);       /* cold, inside A */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 3 * BIN, FULL, 1, 0);       /* gap 2 bins -> A */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 7 * BIN, FULL * 9 / 10, 1, 0); /* gap 3 bins -> B */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 8 * BIN, 10, 1, 0);         /* cold after B: not in B */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 9 * BIN, FULL, 1, 0);       /* last bin: merges into B */
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_int_equal(d->nbursts, 2);
	const struct model_burst *b = &m->bursts[d->first_burst];

	assert_int_equal(b[0].start_ns, S0);
	assert_int_equal(b[0].duration_ns, 4 * BIN);
	assert_int_equal(b[0].bytes, 2 * FULL + 1000);
	assert_int_equal(b[0].nbins, 2);
	assert_int_equal(b[1].start_ns, S0 + 7 * BIN);
	assert_int_equal(b[1].duration_ns, 3 * BIN);
	assert_int_equal(b[1].bytes, FULL * 9 / 10 + 10 + FULL);
	assert_int_equal(b[1].nbins, 2);
	/* ends exactly at the end of the capture */
	assert_int_equal(b[1].start_ns + b[1].duration_ns, m->end_ns);
	model__free(m);
}

/* A burst at the very end with no END record: the capture end is the last bin's end. */
static void test_burst_at_end_no_end_record(void **state)
{
	struct model *m = mk(0.5, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, 10, 1, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 4 * BIN, FULL, 1, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + 5 * BIN, FULL, 1, 0);
	assert_int_equal(model__finish(m), 0);
	assert_false(m->have_end);
	assert_int_equal(m->end_ns, S0 + 6 * BIN);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_int_equal(d->nbursts, 1);
	assert_int_equal(m->bursts[d->first_burst].start_ns, S0 + 4 * BIN);
	assert_int_equal(m->bursts[d->first_burst].duration_ns, 2 * BIN);
	assert_int_equal(m->bursts[d->first_burst].bytes, 2 * FULL);
	model__free(m);
}

static void test_qdisc(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_qdisc *q;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 100000);
	rec_reason(m, 5, "QDISC_DROP");
	/* bin 1 from two CPUs: max of max, sums of sums */
	rec_qbin(m, 1, NS1, 2, 0x10000, S0 + BIN, 3000, 2, 1000, 2, 700, 4, 6000, 7);
	rec_qbin(m, 0, NS1, 2, 0x10000, S0 + BIN, 9000, 6, 3000, 2, 2000, 6, 9000, 8);
	rec_qbin(m, 0, NS1, 2, 0x10000, S0, 1000, 1, 500, 1, 500, 1, 1500, 5);
	rec_qbin(m, 0, NS1, 2, 0x10000, S0 + 2 * BIN, 4000, 3, 1500, 1, 1500, 2, 3000, 9);
	rec_drop(m, S0 + BIN, NS1, 2, 5);
	rec_drop(m, S0 + BIN, NS1, 2, 5);
	rec_drop(m, S0 + BIN, NS1, 3, 5);  /* another interface: not this qdisc's */
	rec_end(m, S0 + 5 * BIN);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->nqdiscs, 1);
	q = &m->qdiscs[0];
	assert_string_equal(q->kind, "tbf");
	assert_int_equal(q->handle, 0x10000);
	assert_int_equal(q->nbins, 3);
	assert_int_equal(q->bins[1].max_backlog, 9000);
	assert_int_equal(q->bins[1].enq_pkts, 10);
	assert_int_equal(q->max_backlog_bytes, 9000);
	assert_int_equal(q->max_backlog_ns, S0 + BIN);
	assert_int_equal(q->max_qlen_pkts, 6);
	assert_int_equal(q->enq_pkts, 13);
	assert_int_equal(q->enq_bytes, 19500);
	assert_int_equal(q->sojourn_cnt, 6);
	assert_int_equal(q->sojourn_sum_ns, 6000);
	assert_true(dabs(q->sojourn_mean_ns - 1000.0) < 1e-9);
	assert_int_equal(q->sojourn_max_ns, 2000);
	assert_int_equal(q->drops_first, 5);
	assert_int_equal(q->drops_last, 9);
	assert_int_equal(q->drops_counter, 4);
	assert_int_equal(q->drop_recs, 2);
	assert_ptr_equal(&m->ifaces[q->iface], model__iface(m, NS1, 2));
	model__free(m);
}

/*
 * Sojourn samples a FIFO cannot have: a tbf draining 12.5 kB a bin (100
 * Mbit/s in 1 ms bins) behind a 30 kB queue.  A 2.4 ms sample, with one
 * bin (12.5 kB) queued after its enqueue, is kept.  An 8.5 ms sample, with
 * 87.5 kB queued after it, cannot be (the followed packet had left: a
 * broken chain) and is taken out of its bin, leaving that bin's other
 * sample.  A queue that stalls (no dequeue, backlog growing to 62.5 kB)
 * keeps its 5 ms sample: no rate is assumed.  An htb serves several queues
 * and is left as measured.
 */
static void test_sojourn_bound(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_qdisc *tbf = NULL, *htb = NULL;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 100000);
	rec_iface(m, NS1 + 1, 2, "eth0", "h2", 1000, 100000);
	for (uint64_t b = 0; b < 30; b++) {
		uint64_t soj_max = b == 10 ? 2400000 : b == 20 ? 8500000 : 0, soj_sum = b == 20 ? 9500000 : soj_max;
		uint32_t cnt = b == 10 ? 1 : b == 20 ? 2 : 0;

		rec_qbin_kind(m, "tbf", NS1, 2, 0x10000, S0 + b * BIN, 30000, soj_sum, cnt, soj_max, 9, 12500);
		rec_qbin_kind(m, "htb", NS1 + 1, 2, 0x10000, S0 + b * BIN, 30000, soj_sum, cnt, soj_max, 9, 12500);
	}
	for (uint64_t b = 30; b < 35; b++) /* stalled: enqueued, nothing leaves */
		rec_qbin_kind(m, "tbf", NS1, 2, 0x10000, S0 + b * BIN, (b - 29) * 12500, 0, 0, 0, 9, 12500);
	rec_qbin_kind(m, "tbf", NS1, 2, 0x10000, S0 + 35 * BIN, 62500, 5000000, 1, 5000000, 0, 0);
	rec_end(m, S0 + 40 * BIN);
	assert_int_equal(model__finish(m), 0);
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (!strcmp(m->qdiscs[i].kind, "tbf"))
			tbf = &m->qdiscs[i];
		else
			htb = &m->qdiscs[i];
	assert_non_null(tbf);
	assert_non_null(htb);
	assert_int_equal(tbf->bins[10].sojourn_max_ns, 2400000);        /* kept */
	assert_int_equal(tbf->bins[20].sojourn_cnt, 1);                 /* 8.5 ms taken out */
	assert_int_equal(tbf->bins[20].sojourn_sum_ns, 1000000);
	assert_int_equal(tbf->bins[20].sojourn_max_ns, 1000000);        /* what the rest allows */
	assert_int_equal(tbf->bins[35].sojourn_max_ns, 5000000);        /* the stall's, kept */
	assert_int_equal(tbf->sojourn_max_ns, 5000000);
	assert_int_equal(tbf->sojourn_dropped, 1);
	assert_int_equal(htb->sojourn_max_ns, 8500000);                 /* not a FIFO: as measured */
	assert_int_equal(htb->sojourn_dropped, 0);
	assert_int_equal(m->sojourn_dropped, 1);
	model__free(m);
}

static void test_lost_cumulative(void **state)
{
	struct model *m = mk(0, 0);

	(void)state;
	rec_lost(m, FT_SRC_NET, 0, 1, S0 + 5 * MS);
	rec_lost(m, FT_SRC_NET, 0, 3, S0 + 5 * MS);   /* cumulative: replaces 1 */
	rec_lost(m, FT_SRC_NET, 1, 2, S0 + 5 * MS);
	rec_lost(m, FT_SRC_TCP, 0, 4, S0 + 5 * MS);
	rec_lost(m, FT_SRC_TCP, 0, 5, S0 + 5 * MS);
	rec_lost(m, 9, 0, 1, S0 + 5 * MS);            /* unknown source */
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->nlost, 4);
	assert_int_equal(m->lost_by_source[FT_SRC_NET], 5);
	assert_int_equal(m->lost_by_source[FT_SRC_TCP], 5);
	assert_int_equal(m->lost_by_source[FT_SRC_USER], 0);
	assert_int_equal(m->lost_by_source[FT_SRC_MAX], 1);
	assert_int_equal(m->lost_total, 11);
	assert_int_equal(m->lost[0].source, FT_SRC_NET);
	assert_int_equal(m->lost[0].cpu, 0);
	assert_int_equal(m->lost[0].lost, 3);
	model__free(m);
}

/*
 * A window (report --from/--to): only its records are kept, with what came
 * just before it where the window needs it -- a step begun before it, each
 * counter group's last sample before it and first at its end, the lost
 * count as a baseline -- and the model spans the window.
 */
static void test_window(void **state)
{
	struct ft_file_header h = mkhdr();
	struct model_opts o;
	struct model *m;
	uint64_t v0 = 100, v;
	size_t nmarks = 0, ncalls = 0;

	(void)state;
	model_opts__init(&o);
	o.window = true;
	o.window_from_ns = 10 * MS;
	o.window_to_ns = 20 * MS;
	m = model__new(&h, &o);
	assert_non_null(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
	for (uint64_t t = 5; t <= 25; t += 5) /* 5 10 15 20 25 ms: 10 and 15 are in [10, 20) */
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + t * MS, 1000 * t, 1, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + 19 * MS, 7, 1, 0);
	rec_slot(m, 1, FT_LIB_MARKER, FT_OP_STEP, 0, "step");
	rec_slot(m, 2, FT_LIB_MPI, FT_OP_ALLREDUCE, 0, "Allreduce");
	rec_marker(m, 1, 100, S0 + 0 * MS, 1, 0, NULL);   /* step 0: all before the window */
	rec_marker(m, 1, 100, S0 + 1 * MS, 0, 0, NULL);
	rec_marker(m, 1, 100, S0 + 2 * MS, 1, 1, NULL);   /* step 1: begun before, ends inside */
	rec_marker(m, 1, 100, S0 + 3 * MS, 1, 0, "fwd");  /* a named phase before it */
	rec_marker(m, 1, 100, S0 + 4 * MS, 0, 0, "fwd");
	/* the marker library's begins and ends are probes of their own: step 2
	 * begins on slot 1 and ends on slot 3, both before the window (held
	 * open to the window's end when only its slot's end could close it) */
	rec_slot(m, 3, FT_LIB_MARKER, FT_OP_STEP, 0, "step_end");
	rec_marker(m, 1, 100, S0 + 5 * MS, 1, 2, NULL);
	rec_marker(m, 3, 100, S0 + 6 * MS, 0, 2, NULL);
	rec_call(m, 2, 100, NS1, S0 + 1 * MS, S0 + 2 * MS, 10, 4, 7, 1);   /* before */
	rec_call(m, 2, 100, NS1, S0 + 8 * MS, S0 + 11 * MS, 10, 4, 7, 2);  /* overlaps the start */
	rec_marker(m, 1, 100, S0 + 12 * MS, 0, 1, NULL);
	rec_call(m, 2, 100, NS1, S0 + 21 * MS, S0 + 22 * MS, 10, 4, 7, 3); /* after */
	rec_ctr_group(m, 0, FT_CTR_ETHTOOL, ~0u, NS1, 2, 1, 5 * MS, "eth0@h1");
	rec_ctr_name(m, 0, 0, FT_CLS_PAUSE, 0, "rx_pause_ctrl_phy");
	/* every 5 ms: 0 is replaced by 5, held until 10 arrives; 20 closes the window's last interval */
	for (uint64_t t = 0; t <= 35; t += 5) {
		v = v0 + t;
		rec_ctr_sample(m, 0, S0 + t * MS, 1000, 1, &v);
	}
	rec_lost(m, FT_SRC_NET, 0, 3, S0 + 5 * MS);  /* before the window: the baseline */
	rec_lost(m, FT_SRC_NET, 0, 7, S0 + 15 * MS);
	rec_lost(m, FT_SRC_NET, 0, 9, S0 + 25 * MS); /* after it */
	rec_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 100000, 6);
	rec_end(m, S0 + 40 * MS);
	assert_int_equal(model__finish(m), 0);

	assert_int_equal(m->capture_start_ns, S0);
	assert_int_equal(m->capture_end_ns, S0 + 40 * MS);
	assert_int_equal(m->start_ns, S0 + 10 * MS);
	assert_int_equal(m->end_ns, S0 + 20 * MS);
	assert_int_equal(m->duration_ns, 10 * MS);
	assert_int_equal(model__rel_ns(m, S0 + 12 * MS), 12 * MS); /* times stay relative to the capture */
	assert_int_equal(m->nbins, 3);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->bytes, 10000 + 15000 + 7);
	assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_UNKNOWN);
	for (size_t i = 0; i < m->nphases; i++) {
		if (m->phases[i].flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END)) {
			nmarks++;
			assert_int_equal(m->phases[i].count, 1);
		} else {
			ncalls++;
			assert_int_equal(m->phases[i].seq, 2);
		}
	}
	assert_int_equal(nmarks, 2); /* step 1's begin at 2 ms, held back, and its end */
	assert_int_equal(ncalls, 1);
	assert_int_equal(m->nctr_points, 3); /* 5-10, 10-15, 15-20 ms */
	assert_int_equal(m->ctr_points[0].start_ns, S0 + 5 * MS);
	assert_int_equal(m->ctr_points[2].end_ns, S0 + 20 * MS);
	assert_int_equal(m->lost_total, 4);
	model__free(m);
}

/* Tracepoint hits the programs did not see: per probe, clamped, apart from lost_total. */
static void test_coverage(void **state)
{
	struct model *m = mk(0, 0);
	char nb[32];

	(void)state;
	rec_lost(m, FT_SRC_NET, 0, 7, S0 + 5 * MS);
	rec_coverage(m, FT_PROBE_RETRANS, 1, 10, 10);       /* complete */
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, 35945, 35909); /* 36 skipped */
	rec_coverage(m, FT_PROBE_IFACE_RX, 1, 100, 103);     /* edge jitter: clamped to 0 */
	rec_coverage(m, FT_PROBE_DROP, 0, 999, 5);           /* unknown: hits not counted */
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ncoverage, 4);
	/* sorted by probe id */
	assert_int_equal(m->coverage[0].probe, FT_PROBE_IFACE_TX);
	assert_int_equal(m->coverage[0].skipped, 36);
	assert_int_equal(m->coverage[0].hits, 35945);
	assert_int_equal(m->coverage[0].runs, 35909);
	assert_int_equal(m->coverage[1].probe, FT_PROBE_IFACE_RX);
	assert_int_equal(m->coverage[1].skipped, 0);
	assert_int_equal(m->coverage[2].probe, FT_PROBE_DROP);
	assert_int_equal(m->coverage[2].known, 0);
	assert_int_equal(m->coverage[2].hits, 0);
	assert_int_equal(m->coverage[2].skipped, 0);
	assert_int_equal(m->coverage[3].probe, FT_PROBE_RETRANS);
	assert_int_equal(m->coverage[3].skipped, 0);
	assert_int_equal(m->skipped_runs, 36);
	assert_int_equal(m->coverage_unknown, 1);
	assert_int_equal(m->lost_total, 7); /* skipped runs are not ring-buffer loss */
	/* no probe records: the table's name, a generic one for an id past it */
	assert_string_equal(model__probe_name(m, FT_PROBE_IFACE_TX, nb, sizeof(nb)), "iface_tx");
	assert_string_equal(model__probe_name(m, 40, nb, sizeof(nb)), "probe 40");
	model__free(m);

	/* a merged capture: one record per host and probe, summed */
	m = mk(0, 0);
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, 1000, 990);  /* host 1: 10 skipped */
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, 2000, 1995); /* host 2: 5 */
	rec_coverage(m, FT_PROBE_IFACE_TX, 1, 500, 503);   /* host 3: edge jitter, hides no other's */
	rec_coverage(m, FT_PROBE_DROP, 1, 4, 4);
	rec_coverage(m, FT_PROBE_DROP, 0, 0, 7);           /* a host whose hits were not counted */
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ncoverage, 2);
	assert_int_equal(m->coverage[0].hits, 3500);
	assert_int_equal(m->coverage[0].runs, 3488);
	assert_int_equal(m->coverage[0].skipped, 15);
	assert_int_equal(m->coverage[1].known, 0);
	assert_int_equal(m->coverage[1].runs, 11);
	assert_int_equal(m->skipped_runs, 15);
	model__free(m);

	/* no coverage records (an older recorder): nothing known, nothing skipped */
	m = mk(0, 0);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ncoverage, 0);
	assert_int_equal(m->skipped_runs, 0);
	model__free(m);

	/* a short coverage record is malformed */
	m = mk(0, 0);
	{
		struct ft_coverage r;

		memset(&r, 0, sizeof(r));
		REC_HDR(r, FT_REC_COVERAGE);
		r.hdr.size = sizeof(r) - 8;
		assert_int_equal(model__add(m, &r.hdr), -EINVAL);
	}
	model__free(m);
}

static void test_conservation(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;
	struct ft_iface_info idle;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_stats(m, NS1, 2, FT_STATS_START, 1000000, 100, 5000, 10);
	rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0, 60000, 40, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + BIN, 40000, 20, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 20000, 9, 0);
	rec_stats(m, NS1, 2, FT_STATS_STOP, 1100000, 160, 30000, 20);
	/* no stop record */
	rec_iface(m, NS1, 3, "eth1", "h1", 1000, 0);
	rec_stats(m, NS1, 3, FT_STATS_START, 0, 0, 0, 0);
	/* not traced, no bins */
	memset(&idle, 0, sizeof(idle));
	REC_HDR(idle, FT_REC_IFACE);
	idle.netns = NS1;
	idle.ifindex = 4;
	snprintf(idle.name, sizeof(idle.name), "lo");
	assert_int_equal(model__add(m, &idle.hdr), 0);
	rec_stats(m, NS1, 4, FT_STATS_START, 0, 0, 0, 0);
	rec_stats(m, NS1, 4, FT_STATS_STOP, 900, 9, 900, 9);
	rec_end(m, S0 + 2 * BIN);
	assert_int_equal(model__finish(m), 0);

	d = dir_of(m, NS1, 2, FT_DIR_RX);
	assert_int_equal(d->conserve, MODEL_CONSERVE_OK);
	assert_int_equal(d->counter_bytes, 100000);
	assert_int_equal(d->diff_bytes, 0);
	assert_int_equal(d->diff_pkts, 0);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	/* binned 20000, counters 25000: 5000 short; in flight allows 2 x (1500 + 14) */
	assert_int_equal(d->conserve, MODEL_CONSERVE_MISMATCH);
	assert_int_equal(d->counter_bytes, 25000);
	assert_int_equal(d->diff_bytes, -5000);
	assert_int_equal(d->diff_pkts, -1);
	assert_int_equal(d->tol_bytes, 3028);
	assert_string_equal(model__conserve_name(d->conserve), "mismatch");
	assert_int_equal(dir_of(m, NS1, 3, FT_DIR_RX)->conserve, MODEL_CONSERVE_UNKNOWN);
	assert_int_equal(dir_of(m, NS1, 4, FT_DIR_TX)->conserve, MODEL_CONSERVE_UNTRACED);
	model__free(m);

	/* a tolerance in bytes turns the same mismatch into OK */
	{
		struct ft_file_header h = mkhdr();
		struct model_opts o;

		model_opts__init(&o);
		o.conserve_tol_bytes = 5000;
		m = model__new(&h, &o);
		assert_non_null(m);
		rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 5000, 10);
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 20000, 9, 0);
		rec_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 30000, 20);
		assert_int_equal(model__finish(m), 0);
		d = dir_of(m, NS1, 2, FT_DIR_TX);
		assert_int_equal(d->conserve, MODEL_CONSERVE_OK);
		assert_int_equal(d->diff_bytes, -5000);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_RX)->conserve, MODEL_CONSERVE_OK);
		model__free(m);
	}
	/* in flight: 2 frames short is OK, 3 are a mismatch; a direction
	 * whose probe was not attached is untraced, not a mismatch */
	{
		struct ft_file_header h = mkhdr();

		h.probes &= ~(1ull << FT_PROBE_IFACE_RX);
		m = model__new(&h, NULL);
		assert_non_null(m);
		rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 10 * 1514, 10, 0);
		rec_stats(m, NS1, 2, FT_STATS_STOP, 5000, 5, 12 * 1514, 12);
		assert_int_equal(model__finish(m), 0);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_RX)->conserve, MODEL_CONSERVE_UNTRACED);
		model__free(m);

		h = mkhdr();
		m = model__new(&h, NULL);
		assert_non_null(m);
		rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		rec_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 10 * 1514, 10, 0);
		rec_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 13 * 1514, 13);
		assert_int_equal(model__finish(m), 0);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->diff_pkts, -3);
		model__free(m);
	}
}

/*
 * Traffic that flows when the counters are read: only the bins between the
 * two reads are compared, and the bins at a read widen the tolerance by
 * their bytes (a packet in them may be counted on either side).
 */
static void conserve_reads_case(uint64_t counted, uint64_t edge_at_start, enum model_conserve want,
				int64_t want_diff, uint64_t want_edge)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* read 100 us long, ending 10 ms and 100 ms after the start */
	rec_stats_read(m, NS1, 2, FT_STATS_START, S0 + 10 * BIN, 100000, 1000000, 1000);
	for (uint64_t i = 0; i < 5; i++) /* before the first read: not compared */
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + i * BIN, 10000, 10, 0);
	for (uint64_t i = 20; i < 80; i++)
		rec_bin(m, (uint32_t)(i & 1), NS1, 2, FT_DIR_TX, S0 + i * BIN, 10000, 10, 0);
	for (uint64_t i = 105; i < 110; i++) /* after the second read: not compared */
		rec_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + i * BIN, 10000, 10, 0);
	if (edge_at_start) {
		/* the bin the read ended in, and the one before it */
		rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 9 * BIN, edge_at_start / 2, 3, 0);
		rec_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + 10 * BIN, edge_at_start / 2, 3, 0);
	}
	rec_stats_read(m, NS1, 2, FT_STATS_STOP, S0 + 100 * BIN, 100000, 1000000 + counted, 1000 + counted / 1000);
	rec_end(m, S0 + 120 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_int_equal(d->bytes, 700000 + edge_at_start);
	assert_int_equal(d->edge_bytes, want_edge);
	assert_int_equal(d->diff_bytes, want_diff);
	assert_int_equal(d->tol_bytes, 2 * 1514 + want_edge);
	assert_int_equal(d->conserve, want);
	model__free(m);
}

static void test_conservation_reads(void **state)
{
	(void)state;
	/* idle at both reads: exact, though 100 kB flowed outside them */
	conserve_reads_case(600000, 0, MODEL_CONSERVE_OK, 0, 0);
	conserve_reads_case(610000, 0, MODEL_CONSERVE_MISMATCH, -10000, 0);
	/* 8 kB in the bins at the first read, 3 kB of it counted before it */
	conserve_reads_case(605000, 8000, MODEL_CONSERVE_OK, -1000, 8000);
	/* the edge does not hide 20 kB the probes missed between the reads */
	conserve_reads_case(625000, 8000, MODEL_CONSERVE_MISMATCH, -21000, 8000);
}

/* The sustained rate is the busiest 100 ms, not one hot bin nor the mean. */
static void test_sustained(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* 300 ms at 250 Mbit/s (a quarter of a 1 ms bin at 1 Gbit/s per bin) */
	for (uint64_t i = 0; i < 300; i++)
		rec_bin(m, (uint32_t)(i & 1), NS1, 2, FT_DIR_TX, S0 + i * BIN, FULL / 4, 20, 0);
	/* one full bin later, alone: it sets the bin peak, not the sustained rate */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 500 * BIN, FULL, 80, 0);
	rec_end(m, S0 + 1000 * BIN);
	assert_int_equal(model__finish(m), 0);
	d = dir_of(m, NS1, 2, FT_DIR_TX);
	assert_true(d->peak_bps > 999e6 && d->peak_bps < 1001e6);
	assert_true(d->sustained_bps > 249e6 && d->sustained_bps < 251e6);
	model__free(m);
}

static void test_drop_reasons(void **state)
{
	struct model *m = mk(0, 0);

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_drop(m, S0 + 3, NS1, 2, 2);
	rec_reason(m, 2, "NOT_SPECIFIED");   /* named after its first use */
	rec_drop(m, S0 + 1, NS1, 2, 77);
	rec_drop(m, S0 + 2, NS1, 2, 77);
	rec_drop(m, S0 + 9, NS1, 2, 77);
	rec_drop(m, S0 + 4, 0, 0, 2);        /* no device */
	rec_drop(m, S0 + 5, NS1, 2, 2);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ndrops, 3);
	assert_int_equal(m->drops_total, 6);
	/* by count, then name */
	assert_string_equal(m->drops[0].name, "reason 77");
	assert_int_equal(m->drops[0].count, 3);
	assert_int_equal(m->drops[0].first_ns, S0 + 1);
	assert_int_equal(m->drops[0].last_ns, S0 + 9);
	assert_string_equal(m->drops[1].name, "NOT_SPECIFIED");
	assert_int_equal(m->drops[1].count, 2);
	assert_ptr_equal(&m->ifaces[m->drops[1].iface], model__iface(m, NS1, 2));
	assert_string_equal(m->drops[2].name, "NOT_SPECIFIED");
	assert_int_equal(m->drops[2].count, 1);
	assert_int_equal(m->drops[2].iface, UINT32_MAX);
	assert_null(model__drop_reason_name(m, 77));
	assert_int_equal(model__iface(m, NS1, 2)->qdisc_drop_recs, 0);
	model__free(m);
}

static void test_retrans_and_flows(void **state)
{
	struct model *m = mk(0, 0);
	struct ft_flow a = rec_flow(1, 40000, 5201, NS1), b = rec_flow(2, 40001, 5201, NS1);
	const struct model_flow *f;

	(void)state;
	rec_retrans(m, a, S0 + 5, FT_RTX_RTO);
	rec_retrans(m, a, S0 + 2, FT_RTX_FAST);
	rec_retrans(m, a, S0 + 9, FT_RTX_RTO);
	a.ifindex = 7;  /* ifindex is not part of the flow key */
	rec_retrans(m, a, S0 + 7, FT_RTX_RTO);
	rec_retrans(m, b, S0 + 1, FT_RTX_TLP);
	rec_retrans(m, b, S0 + 1, 200);      /* out of range -> unknown */
	rec_retrans_failed(m, a, S0 + 3, FT_RTX_RTO, -16); /* -EBUSY: not a retransmit */
	rec_retrans_failed(m, b, S0 + 4, FT_RTX_FAST, -12);

	rec_cong(m, a, 0, 3);
	rec_cong(m, a, 3, 0);
	rec_cong(m, b, 0, 3);
	rec_sample(m, b, 300, 10);
	rec_sample(m, b, 100, 40);
	rec_sample(m, b, 200, 20);

	rec_ce(m, b, 4, S0, S0 + 10);
	rec_ce(m, b, 6, S0, S0 + 20);  /* cumulative: replaces 4 */
	assert_int_equal(model__finish(m), 0);

	assert_int_equal(m->nflows, 2);
	assert_int_equal(m->retrans, 6);
	assert_int_equal(m->retrans_segs, 6);
	assert_int_equal(m->retrans_unsent, 2);
	assert_int_equal(m->nrtx_events, 6); /* no evidence from what was not sent */
	assert_int_equal(m->retrans_by_trigger[FT_RTX_RTO], 3);
	assert_int_equal(m->retrans_by_trigger[FT_RTX_FAST], 1);
	assert_int_equal(m->retrans_by_trigger[FT_RTX_TLP], 1);
	assert_int_equal(m->retrans_by_trigger[FT_RTX_UNKNOWN], 1);
	f = &m->flows[0];  /* 10.0.0.1 sorts first */
	assert_int_equal(f->key.saddr[3], 1);
	assert_int_equal(f->rtx[FT_RTX_RTO], 3);
	assert_int_equal(f->rtx_first_ns[FT_RTX_RTO], S0 + 5);
	assert_int_equal(f->rtx_last_ns[FT_RTX_RTO], S0 + 9);
	assert_int_equal(f->rtx[FT_RTX_FAST], 1);
	assert_int_equal(f->rtx_total, 4);
	assert_int_equal(f->rtx_unsent, 1);
	assert_int_equal(f->ifindex, 7);
	assert_int_equal(f->cong_changes, 2);
	assert_false(f->have_ce);
	f = &m->flows[1];
	assert_int_equal(f->rtx[FT_RTX_TLP], 1);
	assert_int_equal(f->rtx[FT_RTX_UNKNOWN], 1);
	assert_int_equal(f->samples, 3);
	assert_int_equal(f->srtt_min_us, 100);
	assert_int_equal(f->srtt_max_us, 300);
	assert_int_equal(f->srtt_last_us, 200);
	assert_int_equal(f->cwnd_min, 10);
	assert_int_equal(f->cwnd_max, 40);
	assert_int_equal(f->cwnd_last, 20);
	assert_true(f->have_ce);
	assert_int_equal(f->ce_pkts, 6);
	assert_int_equal(f->ce_last_ns, S0 + 20);

	assert_int_equal(m->cong_changes, 3);
	assert_int_equal(m->ncong_pairs, 2);
	assert_int_equal(m->cong_pairs[0].old_state, 0);
	assert_int_equal(m->cong_pairs[0].new_state, 3);
	assert_int_equal(m->cong_pairs[0].count, 2);
	assert_int_equal(m->cong_pairs[1].old_state, 3);
	assert_int_equal(m->cong_pairs[1].count, 1);
	assert_string_equal(model__trigger_name(FT_RTX_RTO), "rto");
	model__free(m);
}

static void test_malformed(void **state)
{
	struct model *m = mk(0, 0);
	struct ft_iface_bin b;
	struct ft_file_header h = mkhdr();
	unsigned char big[64];
	struct ft_rec_hdr *u = (struct ft_rec_hdr *)big;

	(void)state;
	memset(&b, 0, sizeof(b));
	REC_HDR(b, FT_REC_IFACE_BIN);
	b.hdr.size = sizeof(b) - 1;
	assert_int_equal(model__add(m, &b.hdr), -EINVAL);
	b.hdr.size = 4;
	assert_int_equal(model__add(m, &b.hdr), -EINVAL);
	memset(big, 0, sizeof(big));
	u->type = 50;
	u->size = sizeof(big);
	assert_int_equal(model__add(m, u), 0);  /* unknown type: skipped */
	assert_int_equal(m->unknown_records, 1);
	assert_int_equal(model__finish(m), 0);
	b.hdr.size = sizeof(b);
	assert_int_equal(model__add(m, &b.hdr), -EBUSY);
	model__free(m);

	h.bin_ns = 0;
	assert_null(model__new(&h, NULL));
	assert_null(model__new(NULL, NULL));
}

static void test_many_bins(void **state)
{
	struct model *m = mk(0, 0);
	const uint64_t n = 200000;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* two CPUs, second one in reverse order */
	for (uint64_t i = 0; i < n; i++)
		rec_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + i * BIN, 100, 1, 0);
	for (uint64_t i = n; i-- > 0;)
		rec_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + i * BIN, 50, 1, 0);
	assert_int_equal(model__finish(m), 0);
	const struct model_dir *d = dir_of(m, NS1, 2, FT_DIR_RX);

	assert_int_equal(d->nbins, n);
	assert_int_equal(d->bytes, n * 150);
	for (uint64_t i = 0; i < n; i++) {
		if (d->bins[i].start_ns != S0 + i * BIN || d->bins[i].bytes != 150)
			fail_msg("bin %llu wrong", (unsigned long long)i);
	}
	model__free(m);
}

/* End to end through the capture writer and reader. */
static char tmpdir[64];

static void write_capture(const char *path, bool with_end, struct ft_file_header *h)
{
	struct capture_writer *w = NULL;
	char err[256];
	struct ft_iface_bin b;
	struct ft_end e;

	assert_int_equal(capture__create(&w, path, h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	memset(&b, 0, sizeof(b));
	REC_HDR(b, FT_REC_IFACE_BIN);
	b.start_ns = S0;
	b.bytes = 1234;
	b.pkts = 3;
	b.netns = NS1;
	b.ifindex = 2;
	assert_int_equal(capture__append(w, &b), 0);
	if (with_end) {
		memset(&e, 0, sizeof(e));
		REC_HDR(e, FT_REC_END);
		e.ts_ns = S0 + 4 * BIN;
		assert_int_equal(capture__append(w, &e), 0);
	}
	assert_int_equal(capture__close(w), 0);
}

static void test_load(void **state)
{
	struct ft_file_header h = mkhdr();
	char path[128], err[512];
	struct model *m = NULL;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ft_test_model.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));

	snprintf(path, sizeof(path), "%s/ok.ftc", tmpdir);
	write_capture(path, true, &h);
	assert_int_equal(model__load(path, NULL, &m, err, sizeof(err)), 0);
	assert_false(m->truncated);
	assert_int_equal(m->duration_ns, 4 * BIN);
	assert_int_equal(model__iface(m, NS1, 2)->dir[FT_DIR_RX].bytes, 1234);
	model__free(m);
	unlink(path);

	snprintf(path, sizeof(path), "%s/trunc.ftc", tmpdir);
	write_capture(path, false, &h);
	assert_int_equal(model__load(path, NULL, &m, err, sizeof(err)), 0);
	assert_true(m->truncated);
	assert_true(m->truncated_why[0] != '\0');
	model__free(m);

	/* flip a byte in the block payload: corrupt, the error names an offset */
	{
		FILE *f = fopen(path, "r+b");
		long sz;
		int c;

		assert_non_null(f);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		sz = ftell(f);
		assert_int_equal(fseek(f, sz - 2, SEEK_SET), 0);
		c = fgetc(f);
		assert_int_equal(fseek(f, sz - 2, SEEK_SET), 0);
		fputc(c ^ 0xff, f);
		fclose(f);
	}
	m = (struct model *)1;
	assert_true(model__load(path, NULL, &m, err, sizeof(err)) < 0);
	assert_null(m);
	assert_non_null(strstr(err, "offset"));
	unlink(path);

	snprintf(path, sizeof(path), "%s/missing.ftc", tmpdir);
	assert_true(model__load(path, NULL, &m, err, sizeof(err)) < 0);
	assert_true(err[0] != '\0');
	rmdir(tmpdir);
}

/* Phase probe records: kept one per record, sorted, with their lookups. */
static void test_phase_records(void **state)
{
	struct model *m = mk(0, 0);
	struct ft_flow f1 = rec_flow(1, 40000, 5000, NS1), f2 = rec_flow(2, 40001, 5000, NS1);
	struct ft_flow f3 = rec_flow(3, 40002, 5000, NS1);
	struct ft_phase p;
	struct ft_phase_slot sl;
	const struct model_proc *pr;

	(void)state;
	rec_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	rec_reason(m, 5, "QDISC_DROP");
	rec_slot(m, 9, FT_LIB_NCCL, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_ENQUEUE_ONLY, "allreduce");
	rec_slot(m, 2, FT_LIB_MPI, FT_OP_BCAST, FT_SLOT_COLLECTIVE, "bcast");
	/* out of order, two pids; an end before the start is clamped */
	rec_call(m, 2, 20, NS1, S0 + 5 * MS, S0 + 6 * MS, 10, 4, 0x44000000, 2);
	rec_call(m, 2, 10, NS1, S0 + 3 * MS, S0 + 4 * MS, 10, 4, 0x44000000, 1);
	p = rec_phase_init(2, 20, NS1, S0 + 1 * MS, S0);
	memset(p.name, 'x', sizeof(p.name));  /* not terminated */
	rec_add(m, p);
	rec_req_done(m, 20, 0xBB, S0 + 9 * MS);
	rec_req_done(m, 20, 0xAA, S0 + 8 * MS);
	rec_req_done(m, 10, 0xCC, S0 + 7 * MS);
	rec_comm_info(m, 10, 0x44000000, -1, 4, S0);
	rec_comm_info(m, 10, 0x44000000, 3, -1, S0 + 1);
	rec_proc(m, 10, 1, NS1, FT_PROC_FORK, S0 + 1, "mpiexec");
	rec_proc(m, 10, 0, 0, FT_PROC_EXEC, S0 + 2, "allreduce");
	rec_proc(m, 10, 0, 0, FT_PROC_EXIT, S0 + 9 * MS, "allreduce");
	/* f1: retransmits and an owner; f3: an owner, no TCP event */
	rec_retrans(m, f1, S0 + 3 * MS, FT_RTX_RTO);
	rec_retrans(m, f2, S0 + 1 * MS, FT_RTX_FAST);
	rec_retrans(m, f1, S0 + 2 * MS, FT_RTX_FAST);
	rec_owner(m, f1, 20, S0 + 2 * MS, "late");
	rec_owner(m, f1, 20, S0 + 1 * MS, "early");
	rec_owner(m, f1, 10, S0, "other");
	rec_owner(m, f3, 10, S0, "x");
	rec_drop(m, S0 + 4 * MS, NS1, 2, 5);
	rec_drop(m, S0 + 2 * MS, NS1, 2, 5);
	rec_drop(m, S0 + 3 * MS, 0, 0, 7);
	rec_lost(m, FT_SRC_PHASE, 0, 3, S0 + 5 * MS);
	/* sizes are checked */
	REC_HDR(p, FT_REC_PHASE);
	p.hdr.size = sizeof(p) - 8;
	assert_int_equal(model__add(m, &p.hdr), -EINVAL);
	REC_HDR(sl, FT_REC_PHASE_SLOT);
	sl.hdr.size = 64;
	assert_int_equal(model__add(m, &sl.hdr), -EINVAL);
	assert_int_equal(model__finish(m), 0);

	assert_int_equal(m->nslots, 2);
	assert_int_equal(m->slots[0].slot, 2);
	assert_ptr_equal(model__slot(m, 9), &m->slots[1]);
	assert_int_equal(model__slot(m, 9)->flags, FT_SLOT_COLLECTIVE | FT_SLOT_ENQUEUE_ONLY);
	assert_string_equal(model__slot(m, 9)->name, "allreduce");
	assert_null(model__slot(m, 3));
	assert_int_equal(m->nphases, 3);
	assert_int_equal(m->phases[0].pid, 10);
	assert_int_equal(m->phases[1].pid, 20);
	assert_int_equal(m->phases[1].start_ns, S0 + 1 * MS);
	assert_int_equal(m->phases[1].end_ns, S0 + 1 * MS);
	assert_int_equal(strlen(m->phases[1].name), sizeof(m->phases[1].name) - 1);
	assert_int_equal(m->phases[2].seq, 2);
	assert_int_equal(m->nreq_dones, 3);
	assert_int_equal(m->req_dones[0].pid, 10);
	assert_int_equal(m->req_dones[1].req, 0xAA);
	assert_int_equal(m->req_dones[2].req, 0xBB);
	assert_int_equal(m->ncomms, 1);
	assert_int_equal(m->comms[0].rank, 3);
	assert_int_equal(m->comms[0].size, 4);
	pr = model__proc(m, 10);
	assert_non_null(pr);
	assert_string_equal(pr->comm, "allreduce");
	assert_int_equal(pr->ppid, 1);
	assert_int_equal(pr->netns, NS1);
	assert_int_equal(pr->nexec, 1);
	assert_int_equal(pr->events, (1u << FT_PROC_FORK) | (1u << FT_PROC_EXEC) | (1u << FT_PROC_EXIT));
	assert_int_equal(pr->exit_ns, S0 + 9 * MS);
	assert_null(model__proc(m, 20));
	/* owners on their flow, by pid; the earliest record's comm */
	const struct model_flow *w1 = model__flow(m, &f1);

	assert_non_null(w1);
	assert_int_equal(w1->nowners, 2);
	assert_int_equal(m->owners[w1->first_owner].pid, 10);
	assert_int_equal(m->owners[w1->first_owner + 1].pid, 20);
	assert_string_equal(m->owners[w1->first_owner + 1].comm, "early");
	assert_int_equal(m->nowners, 3);
	assert_int_equal(m->owners[2].flow, UINT32_MAX);        /* f3: no TCP event */
	assert_null(model__flow(m, &f3));
	/* retransmits per flow, by time */
	assert_int_equal(m->nrtx_events, 3);
	assert_int_equal(w1->nrtx, 2);
	assert_int_equal(m->rtx_events[w1->first_rtx].ts_ns, S0 + 2 * MS);
	assert_int_equal(m->rtx_events[w1->first_rtx + 1].ts_ns, S0 + 3 * MS);
	assert_int_equal(model__flow(m, &f2)->nrtx, 1);
	/* drops per interface, by time; no device last */
	const struct model_iface *it = model__iface(m, NS1, 2);

	assert_int_equal(m->ndrop_events, 3);
	assert_int_equal(it->ndrops, 2);
	assert_int_equal(m->drop_events[it->first_drop].ts_ns, S0 + 2 * MS);
	assert_int_equal(m->drop_events[2].iface, UINT32_MAX);
	/* the aggregates are unchanged by the event lists */
	assert_int_equal(m->retrans, 3);
	assert_int_equal(m->drops_total, 3);
	assert_int_equal(m->lost_by_source[FT_SRC_PHASE], 3);
	assert_string_equal(model__source_name(FT_SRC_PHASE), "phase");
	assert_string_equal(model__source_name(FT_SRC_MAX), "unknown");
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bins_summed_and_sorted),
		cmocka_unit_test(test_unknown_iface_and_order),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_burst_threshold_edges),
		cmocka_unit_test(test_burst_default_gap),
		cmocka_unit_test(test_burst_gap_merge),
		cmocka_unit_test(test_burst_at_end_no_end_record),
		cmocka_unit_test(test_qdisc),
		cmocka_unit_test(test_sojourn_bound),
		cmocka_unit_test(test_lost_cumulative),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_conservation_reads),
		cmocka_unit_test(test_sustained),
		cmocka_unit_test(test_drop_reasons),
		cmocka_unit_test(test_retrans_and_flows),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_many_bins),
		cmocka_unit_test(test_phase_records),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_conservation_skipped),
		cmocka_unit_test(test_conservation_skipped_dequeue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
