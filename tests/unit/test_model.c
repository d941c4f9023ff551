// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for userspace/model.c: synthetic records in, aggregates out. */
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

#include "userspace/capture.h"
#include "userspace/model.h"

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
	struct ft_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, FT_MAGIC, 8);
	h.version = FT_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.start_mono_ns = S0;
	h.realtime_offset_ns = 1700000000ll * 1000000000ll;
	h.bin_ns = BIN;
	h.probes = (1ull << FT_PROBE_MAX) - 1; /* every probe attached */
	h.ncpus = 2;
	snprintf(h.hostname, sizeof(h.hostname), "testhost");
	snprintf(h.kernel, sizeof(h.kernel), "6.1.0-test");
	return h;
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

#define HDR(r, t) do { (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)

static void add_iface(struct model *m, uint32_t netns, uint32_t ifindex, const char *name,
		      const char *nsname, uint32_t speed, uint32_t txrate)
{
	struct ft_iface_info r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_IFACE);
	r.netns = netns;
	r.ifindex = ifindex;
	r.mtu = 1500;
	r.speed_mbps = speed;
	r.tx_rate_kbps = txrate;
	r.flags = FT_IFACE_UP | FT_IFACE_TRACED;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", nsname);
	snprintf(r.kind, sizeof(r.kind), "veth");
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_bin(struct model *m, uint32_t cpu, uint32_t netns, uint32_t ifindex, int dir,
		    uint64_t start, uint64_t bytes, uint32_t pkts, uint32_t ce)
{
	struct ft_iface_bin r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_IFACE_BIN);
	r.hdr.cpu = cpu;
	r.start_ns = start;
	r.bytes = bytes;
	r.pkts = pkts;
	r.ce_pkts = ce;
	r.netns = netns;
	r.ifindex = ifindex;
	r.dir = (uint8_t)dir;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_end(struct model *m, uint64_t ts)
{
	struct ft_end r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_END);
	r.ts_ns = ts;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_stats(struct model *m, uint32_t netns, uint32_t ifindex, int phase,
		      uint64_t rxb, uint64_t rxp, uint64_t txb, uint64_t txp)
{
	struct ft_iface_stats r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_IFACE_STATS);
	r.netns = netns;
	r.ifindex = ifindex;
	r.phase = (uint8_t)phase;
	r.rx_bytes = rxb;
	r.rx_packets = rxp;
	r.tx_bytes = txb;
	r.tx_packets = txp;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static struct ft_flow mkflow(uint8_t a, uint16_t sport, uint16_t dport, uint32_t netns)
{
	struct ft_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	f.proto = 6;
	f.saddr[0] = 10; f.saddr[3] = a;
	f.daddr[0] = 10; f.daddr[3] = 100;
	f.sport = sport;
	f.dport = dport;
	f.netns = netns;
	return f;
}

static void add_retrans(struct model *m, struct ft_flow f, uint64_t ts, int trig)
{
	struct ft_retrans r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_RETRANS);
	r.ts_ns = ts;
	r.flow = f;
	r.trigger = (uint8_t)trig;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_cong(struct model *m, struct ft_flow f, uint8_t from, uint8_t to)
{
	struct ft_cong_state r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_CONG_STATE);
	r.flow = f;
	r.old_state = from;
	r.new_state = to;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_sample(struct model *m, struct ft_flow f, uint32_t srtt, uint32_t cwnd)
{
	struct ft_tcp_sample r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_TCP_SAMPLE);
	r.flow = f;
	r.srtt_us = srtt;
	r.snd_cwnd = cwnd;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_ce(struct model *m, struct ft_flow f, uint64_t n, uint64_t first, uint64_t last)
{
	struct ft_ce_flow r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_CE_FLOW);
	r.flow = f;
	r.ce_pkts = n;
	r.first_ns = first;
	r.last_ns = last;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_drop(struct model *m, uint64_t ts, uint32_t netns, uint32_t ifindex, uint32_t reason)
{
	struct ft_drop r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_DROP);
	r.ts_ns = ts;
	r.netns = netns;
	r.ifindex = ifindex;
	r.reason = reason;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_reason(struct model *m, uint32_t reason, const char *name)
{
	struct ft_drop_reason r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_DROP_REASON);
	r.reason = reason;
	snprintf(r.name, sizeof(r.name), "%s", name);
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_lost(struct model *m, uint32_t source, uint32_t cpu, uint64_t lost)
{
	struct ft_lost r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_LOST);
	r.source = source;
	r.cpu = cpu;
	r.lost = lost;
	r.ts_ns = S0 + 5 * MS;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static void add_qbin(struct model *m, uint32_t cpu, uint32_t ifindex, uint32_t handle, uint64_t start,
		     uint64_t backlog, uint32_t qlen, uint64_t soj_sum, uint32_t soj_cnt, uint64_t soj_max,
		     uint32_t enq_pkts, uint64_t enq_bytes, uint32_t drops)
{
	struct ft_qdisc_bin r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_QDISC_BIN);
	r.hdr.cpu = cpu;
	r.start_ns = start;
	r.max_backlog = backlog;
	r.max_qlen = qlen;
	r.sojourn_sum_ns = soj_sum;
	r.sojourn_cnt = soj_cnt;
	r.sojourn_max_ns = soj_max;
	r.enq_pkts = enq_pkts;
	r.enq_bytes = enq_bytes;
	r.drops = drops;
	r.netns = NS1;
	r.ifindex = ifindex;
	r.handle = handle;
	snprintf(r.kind, sizeof(r.kind), "tbf");
	assert_int_equal(model__add(m, &r.hdr), 0);
}

static const struct model_dir *dir_of(const struct model *m, uint32_t netns, uint32_t ifindex, int dir)
{
	const struct model_iface *f = model__iface(m, netns, ifindex);

	assert_non_null(f);
	return &f->dir[dir];
}

/* ---- tests ---- */

static void test_bins_summed_and_sorted(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	(void)state;
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* out of order, two CPUs, same start on both */
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, 1000, 2, 1);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 0 * BIN, 500, 1, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, 300, 1, 2);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 1 * BIN, 200, 1, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 1 * BIN, 7000, 5, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 0 * BIN, 50, 1, 0);
	add_end(m, S0 + 10 * BIN);
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
	add_bin(m, 0, 77, 3, FT_DIR_TX, S0, 100, 1, 0);
	add_iface(m, NS1, 5, "eth1", "h2", 1000, 0);
	add_iface(m, NS1, 4, "eth0", "h2", 1000, 0);
	add_iface(m, 1, 9, "veth0", "", 1000, 0);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0, FULL / 2, 10, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, FULL / 4, 5, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, FULL * 3 / 4, 5, 0);
	add_end(m, S0 + 10 * BIN);
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
	add_iface(m, NS1, 1, "a", "n", 1000, 100000);   /* tbf 100 Mbit on 1G */
	add_iface(m, NS1, 2, "b", "n", 100, 1000000);   /* limit above the link */
	add_iface(m, NS1, 3, "c", "n", 0, 50000);       /* unknown speed, 50 Mbit tbf */
	add_iface(m, NS1, 4, "d", "n", 0, 0);           /* nothing known */
	add_bin(m, 0, NS1, 4, FT_DIR_TX, S0, FULL, 1, 0);
	add_end(m, S0 + 2 * BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, FULL / 2 - 1, 1, 0); /* just below */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 2 * BIN, FULL / 2, 1, 0);     /* exactly at: single-bin burst */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 4 * BIN, FULL / 2 - 1, 1, 0); /* below */
	add_end(m, S0 + 10 * BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 1 * BIN, FULL, 10, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + 2 * BIN, FULL * 3 / 4, 7, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 3 * BIN, 100, 1, 0);        /* cold */
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + 4 * BIN, FULL * 6 / 10, 6, 0);
	add_end(m, S0 + 10 * BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, FULL, 1, 0);       /* burst A */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 1 * BIN, 1000, 1, 0);       /* cold, inside A */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 3 * BIN, FULL, 1, 0);       /* gap 2 bins -> A */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 7 * BIN, FULL * 9 / 10, 1, 0); /* gap 3 bins -> B */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 8 * BIN, 10, 1, 0);         /* cold after B: not in B */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 9 * BIN, FULL, 1, 0);       /* last bin: merges into B */
	add_end(m, S0 + 10 * BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 0 * BIN, 10, 1, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 4 * BIN, FULL, 1, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + 5 * BIN, FULL, 1, 0);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 100000);
	add_reason(m, 5, "QDISC_DROP");
	/* bin 1 from two CPUs: max of max, sums of sums */
	add_qbin(m, 1, 2, 0x10000, S0 + BIN, 3000, 2, 1000, 2, 700, 4, 6000, 7);
	add_qbin(m, 0, 2, 0x10000, S0 + BIN, 9000, 6, 3000, 2, 2000, 6, 9000, 8);
	add_qbin(m, 0, 2, 0x10000, S0, 1000, 1, 500, 1, 500, 1, 1500, 5);
	add_qbin(m, 0, 2, 0x10000, S0 + 2 * BIN, 4000, 3, 1500, 1, 1500, 2, 3000, 9);
	add_drop(m, S0 + BIN, NS1, 2, 5);
	add_drop(m, S0 + BIN, NS1, 2, 5);
	add_drop(m, S0 + BIN, NS1, 3, 5);  /* another interface: not this qdisc's */
	add_end(m, S0 + 5 * BIN);
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

static void test_lost_cumulative(void **state)
{
	struct model *m = mk(0, 0);

	(void)state;
	add_lost(m, FT_SRC_NET, 0, 1);
	add_lost(m, FT_SRC_NET, 0, 3);   /* cumulative: replaces 1 */
	add_lost(m, FT_SRC_NET, 1, 2);
	add_lost(m, FT_SRC_TCP, 0, 4);
	add_lost(m, FT_SRC_TCP, 0, 5);
	add_lost(m, 9, 0, 1);            /* unknown source */
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

static void add_coverage(struct model *m, uint32_t probe, uint32_t known, uint64_t hits, uint64_t runs)
{
	struct ft_coverage r;

	memset(&r, 0, sizeof(r));
	HDR(r, FT_REC_COVERAGE);
	r.probe = probe;
	r.known = known;
	r.hits = hits;
	r.runs = runs;
	assert_int_equal(model__add(m, &r.hdr), 0);
}

/* Tracepoint hits the programs did not see: per probe, clamped, apart from lost_total. */
static void test_coverage(void **state)
{
	struct model *m = mk(0, 0);
	char nb[32];

	(void)state;
	add_lost(m, FT_SRC_NET, 0, 7);
	add_coverage(m, FT_PROBE_RETRANS, 1, 10, 10);       /* complete */
	add_coverage(m, FT_PROBE_IFACE_TX, 1, 35945, 35909); /* 36 skipped */
	add_coverage(m, FT_PROBE_IFACE_RX, 1, 100, 103);     /* edge jitter: clamped to 0 */
	add_coverage(m, FT_PROBE_DROP, 0, 999, 5);           /* unknown: hits not counted */
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
	/* no probe records: a generic name */
	assert_string_equal(model__probe_name(m, FT_PROBE_IFACE_TX, nb, sizeof(nb)), "probe 0");
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
		HDR(r, FT_REC_COVERAGE);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_stats(m, NS1, 2, FT_STATS_START, 1000000, 100, 5000, 10);
	add_bin(m, 0, NS1, 2, FT_DIR_RX, S0, 60000, 40, 0);
	add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + BIN, 40000, 20, 0);
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 20000, 9, 0);
	add_stats(m, NS1, 2, FT_STATS_STOP, 1100000, 160, 30000, 20);
	/* no stop record */
	add_iface(m, NS1, 3, "eth1", "h1", 1000, 0);
	add_stats(m, NS1, 3, FT_STATS_START, 0, 0, 0, 0);
	/* not traced, no bins */
	memset(&idle, 0, sizeof(idle));
	HDR(idle, FT_REC_IFACE);
	idle.netns = NS1;
	idle.ifindex = 4;
	snprintf(idle.name, sizeof(idle.name), "lo");
	assert_int_equal(model__add(m, &idle.hdr), 0);
	add_stats(m, NS1, 4, FT_STATS_START, 0, 0, 0, 0);
	add_stats(m, NS1, 4, FT_STATS_STOP, 900, 9, 900, 9);
	add_end(m, S0 + 2 * BIN);
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
		add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		add_stats(m, NS1, 2, FT_STATS_START, 0, 0, 5000, 10);
		add_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 20000, 9, 0);
		add_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 30000, 20);
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
		add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		add_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
		add_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 10 * 1514, 10, 0);
		add_stats(m, NS1, 2, FT_STATS_STOP, 5000, 5, 12 * 1514, 12);
		assert_int_equal(model__finish(m), 0);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_OK);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_RX)->conserve, MODEL_CONSERVE_UNTRACED);
		model__free(m);

		h = mkhdr();
		m = model__new(&h, NULL);
		assert_non_null(m);
		add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
		add_stats(m, NS1, 2, FT_STATS_START, 0, 0, 0, 0);
		add_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 10 * 1514, 10, 0);
		add_stats(m, NS1, 2, FT_STATS_STOP, 0, 0, 13 * 1514, 13);
		assert_int_equal(model__finish(m), 0);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->conserve, MODEL_CONSERVE_MISMATCH);
		assert_int_equal(dir_of(m, NS1, 2, FT_DIR_TX)->diff_pkts, -3);
		model__free(m);
	}
}

/* The sustained rate is the busiest 100 ms, not one hot bin nor the mean. */
static void test_sustained(void **state)
{
	struct model *m = mk(0, 0);
	const struct model_dir *d;

	(void)state;
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* 300 ms at 250 Mbit/s (a quarter of a 1 ms bin at 1 Gbit/s per bin) */
	for (uint64_t i = 0; i < 300; i++)
		add_bin(m, (uint32_t)(i & 1), NS1, 2, FT_DIR_TX, S0 + i * BIN, FULL / 4, 20, 0);
	/* one full bin later, alone: it sets the bin peak, not the sustained rate */
	add_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 500 * BIN, FULL, 80, 0);
	add_end(m, S0 + 1000 * BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	add_drop(m, S0 + 3, NS1, 2, 2);
	add_reason(m, 2, "NOT_SPECIFIED");   /* named after its first use */
	add_drop(m, S0 + 1, NS1, 2, 77);
	add_drop(m, S0 + 2, NS1, 2, 77);
	add_drop(m, S0 + 9, NS1, 2, 77);
	add_drop(m, S0 + 4, 0, 0, 2);        /* no device */
	add_drop(m, S0 + 5, NS1, 2, 2);
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
	struct ft_flow a = mkflow(1, 40000, 5201, NS1), b = mkflow(2, 40001, 5201, NS1);
	const struct model_flow *f;

	(void)state;
	add_retrans(m, a, S0 + 5, FT_RTX_RTO);
	add_retrans(m, a, S0 + 2, FT_RTX_FAST);
	add_retrans(m, a, S0 + 9, FT_RTX_RTO);
	a.ifindex = 7;  /* ifindex is not part of the flow key */
	add_retrans(m, a, S0 + 7, FT_RTX_RTO);
	add_retrans(m, b, S0 + 1, FT_RTX_TLP);
	add_retrans(m, b, S0 + 1, 200);      /* out of range -> unknown */

	add_cong(m, a, 0, 3);
	add_cong(m, a, 3, 0);
	add_cong(m, b, 0, 3);
	add_sample(m, b, 300, 10);
	add_sample(m, b, 100, 40);
	add_sample(m, b, 200, 20);

	add_ce(m, b, 4, S0, S0 + 10);
	add_ce(m, b, 6, S0, S0 + 20);  /* cumulative: replaces 4 */
	assert_int_equal(model__finish(m), 0);

	assert_int_equal(m->nflows, 2);
	assert_int_equal(m->retrans, 6);
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
	HDR(b, FT_REC_IFACE_BIN);
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
	add_iface(m, NS1, 2, "eth0", "h1", 1000, 0);
	/* two CPUs, second one in reverse order */
	for (uint64_t i = 0; i < n; i++)
		add_bin(m, 0, NS1, 2, FT_DIR_RX, S0 + i * BIN, 100, 1, 0);
	for (uint64_t i = n; i-- > 0;)
		add_bin(m, 1, NS1, 2, FT_DIR_RX, S0 + i * BIN, 50, 1, 0);
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
	HDR(b, FT_REC_IFACE_BIN);
	b.start_ns = S0;
	b.bytes = 1234;
	b.pkts = 3;
	b.netns = NS1;
	b.ifindex = 2;
	assert_int_equal(capture__append(w, &b), 0);
	if (with_end) {
		memset(&e, 0, sizeof(e));
		HDR(e, FT_REC_END);
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
		cmocka_unit_test(test_lost_cumulative),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_sustained),
		cmocka_unit_test(test_drop_reasons),
		cmocka_unit_test(test_retrans_and_flows),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_many_bins),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
