// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for userspace/live/live.c, the aggregator behind `fabtrace top`:
 * synthetic records in, period figures and totals out.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/live/live.h"

#define BIN 100000ull           /* 100 us */
#define T0 1000000000000ull     /* the aggregator starts here */
#define SEC 1000000000ull
#define NS1 4026531840u         /* netns inode */
#define CAP_KBPS 100000u        /* a 100 Mbit/s shaped link: a full bin is 1250 bytes */

/* |A - B| <= EPS, with both values in the message */
#define assert_near(a, b, eps) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (eps))) \
		fail_msg("%s = %.17g, want %.17g", #a, a_, b_); \
} while (0)
#define REC(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)
#define ADD(l, r) assert_int_equal(live__add((l), (const struct ft_rec_hdr *)(const void *)&(r)), 0)

static struct live *new_live(void)
{
	struct live_opts o;
	struct live *l;

	live_opts__init(&o, BIN);
	l = live__new(&o, T0);
	assert_non_null(l);
	return l;
}

static void iface(struct live *l, uint32_t ifindex, const char *name, const char *ns,
		  uint32_t speed_mbps, uint32_t tx_kbps)
{
	struct ft_iface_info r;

	REC(r, FT_REC_IFACE);
	r.netns = NS1;
	r.ifindex = ifindex;
	r.speed_mbps = speed_mbps;
	r.tx_rate_kbps = tx_kbps;
	r.flags = FT_IFACE_UP | FT_IFACE_TRACED;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", ns);
	ADD(l, r);
}

static void bin(struct live *l, uint32_t cpu, uint32_t ifindex, int dir, uint64_t start,
		uint64_t bytes, uint32_t ce)
{
	struct ft_iface_bin r;

	REC(r, FT_REC_IFACE_BIN);
	r.hdr.cpu = cpu;
	r.start_ns = start;
	r.bytes = bytes;
	r.pkts = (uint32_t)(bytes / 1000 + 1);
	r.ce_pkts = ce;
	r.netns = NS1;
	r.ifindex = ifindex;
	r.dir = (uint8_t)dir;
	ADD(l, r);
}

static const struct live_dir *dir_of(struct live *l, uint32_t ifindex, int dir)
{
	uint32_t k = live__iface(l, NS1, ifindex);

	assert_int_not_equal(k, LIVE_NONE);
	return &l->ifaces[k].dir[dir];
}

/* A 100 us burst at the link rate inside a quiet second: the peak is the bin, not the average. */
static void test_peak_bin_vs_average(void **state)
{
	struct live *l = new_live();
	const struct live_dir *d;

	(void)state;
	iface(l, 2, "eth0", "h2", 10000, CAP_KBPS);
	bin(l, 0, 2, FT_DIR_TX, T0 + 100 * BIN, 1250, 0);   /* 100 Mbit/s for one bin */
	for (int i = 0; i < 10; i++)
		bin(l, 0, 2, FT_DIR_TX, T0 + (200 + i * 100) * BIN, 125, 0); /* 10 % */
	live__tick(l, T0 + SEC);
	d = dir_of(l, 2, FT_DIR_TX);
	assert_int_equal(d->p_bytes, 1250 + 10 * 125);
	assert_int_equal(d->p_peak_bin, 1250);
	assert_int_equal(d->p_peak_start_ns, T0 + 100 * BIN);
	assert_near(d->rate_bps, 2500 * 8.0, 1e-6);            /* the 1 s average */
	assert_near(d->peak_bps, 100e6, 1e-3);                  /* the bin */
	assert_near(d->peak_util, 1.0, 1e-9);
	assert_near(d->util, 2500 * 8.0 / 100e6, 1e-12);
	assert_near(d->capacity_bps, 100e6, 1e-6);
	assert_int_equal(d->p_bursts, 1);                               /* only the full bin is hot */
	assert_near(dir_of(l, 2, FT_DIR_RX)->capacity_bps, 10e9, 1e-3); /* rx: link speed */
	/* the next period starts empty; the maximum since the start stays until reset */
	live__tick(l, T0 + 2 * SEC);
	d = dir_of(l, 2, FT_DIR_TX);
	assert_int_equal(d->p_bytes, 0);
	assert_int_equal(d->p_peak_bin, 0);
	assert_int_equal(d->max_peak_bin, 1250);
	assert_int_equal(d->bytes, 2500);
	live__reset_peaks(l);
	assert_int_equal(dir_of(l, 2, FT_DIR_TX)->max_peak_bin, 0);
	assert_int_equal(dir_of(l, 2, FT_DIR_TX)->bytes, 2500); /* totals are never reset */
	live__free(l);
}

/* Per-CPU parts of one bin are summed before the peak and the burst test. */
static void test_percpu_merge(void **state)
{
	struct live *l = new_live();
	const struct live_dir *d;

	(void)state;
	iface(l, 2, "eth0", "h2", 10000, CAP_KBPS);
	bin(l, 0, 2, FT_DIR_TX, T0 + 10 * BIN, 400, 0);  /* 32 %: cold alone */
	bin(l, 0, 2, FT_DIR_TX, T0 + 11 * BIN, 100, 0);
	bin(l, 1, 2, FT_DIR_TX, T0 + 10 * BIN, 400, 0);  /* the other CPU, arriving later */
	live__tick(l, T0 + SEC);
	d = dir_of(l, 2, FT_DIR_TX);
	assert_int_equal(d->p_peak_bin, 800);
	assert_int_equal(d->p_bursts, 1);
	assert_int_equal(d->hot_bins, 1);
	/* a third part of the same bin: still one hot bin, one burst */
	bin(l, 0, 2, FT_DIR_TX, T0 + 10 * BIN, 100, 0);
	live__tick(l, T0 + 2 * SEC);
	d = dir_of(l, 2, FT_DIR_TX);
	assert_int_equal(d->hot_bins, 1);
	assert_int_equal(d->bursts, 1);
	assert_int_equal(d->p_peak_bin, 900);
	live__free(l);
}

/* Bursts merge like the model's: adjacent hot bins are one, a cold bin between splits them. */
static void test_bursts_per_second(void **state)
{
	struct live *l = new_live();
	const struct live_dir *d;
	uint64_t t = T0;

	(void)state;
	iface(l, 3, "p2", "sw", 10000, CAP_KBPS);
	/* burst 1: three adjacent hot bins */
	for (int i = 0; i < 3; i++)
		bin(l, 0, 3, FT_DIR_TX, t + (uint64_t)(100 + i) * BIN, 1000, 0);
	/* burst 2: after one cold bin (not merged: the gap is one bin width) */
	bin(l, 0, 3, FT_DIR_TX, t + 104 * BIN, 1000, 0);
	/* burst 2 continues with a bin from another CPU that arrives out of order */
	bin(l, 1, 3, FT_DIR_TX, t + 105 * BIN, 700, 0);
	bin(l, 0, 3, FT_DIR_TX, t + 103 * BIN, 10, 0);   /* the cold bin, late: stays cold */
	/* bursts 3 and 4, far apart */
	bin(l, 0, 3, FT_DIR_TX, t + 500 * BIN, 1250, 0);
	bin(l, 0, 3, FT_DIR_TX, t + 900 * BIN, 1250, 0);
	live__tick(l, T0 + 2 * SEC);                      /* a 2 s period */
	d = dir_of(l, 3, FT_DIR_TX);
	assert_int_equal(d->p_bursts, 4);
	assert_int_equal(d->bursts, 4);
	assert_int_equal(d->hot_bins, 7);
	assert_near((double)d->p_bursts / live__period_s(l), 2.0, 1e-9);
	/* no capacity known: no utilisation and no bursts, but the peak still */
	iface(l, 9, "x0", "h9", 0, 0);
	bin(l, 0, 9, FT_DIR_TX, T0 + 2 * SEC + 5 * BIN, 100000, 0);
	live__tick(l, T0 + 3 * SEC);
	d = dir_of(l, 9, FT_DIR_TX);
	assert_int_equal(d->p_bursts, 0);
	assert_true(isnan(d->util));
	assert_true(isnan(d->peak_util));
	assert_int_equal(d->p_peak_bin, 100000);
	live__free(l);
}

static void ctr_group(struct live *l, uint32_t group, uint32_t kind, uint32_t port_id,
		      uint32_t ifindex, uint32_t n)
{
	struct ft_ctr_group r;

	REC(r, FT_REC_CTR_GROUP);
	r.group = group;
	r.kind = kind;
	r.port_id = port_id;
	r.netns = ifindex ? NS1 : 0;
	r.ifindex = ifindex;
	r.ncounters = n;
	snprintf(r.label, sizeof(r.label), "group%u", group);
	ADD(l, r);
}

static void ctr_name(struct live *l, uint32_t group, uint32_t index, uint16_t cls, uint16_t flags,
		     const char *name)
{
	struct ft_ctr_name r;

	REC(r, FT_REC_CTR_NAME);
	r.group = group;
	r.index = index;
	r.cls = cls;
	r.flags = flags;
	snprintf(r.name, sizeof(r.name), "%s", name);
	ADD(l, r);
}

static void ctr_sample(struct live *l, uint32_t group, uint64_t ts, uint64_t a, uint64_t b)
{
	struct {
		struct ft_ctr_sample s;
		uint64_t v[2];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = FT_REC_CTR_SAMPLE;
	r.s.hdr.size = sizeof(r);
	r.s.ts_ns = ts;
	r.s.group = group;
	r.s.n = 2;
	r.v[0] = a;
	r.v[1] = b;
	assert_int_equal(live__add(l, &r.s.hdr), 0);
}

/* Counter samples become scaled deltas: 32-bit wraps, x4 data counters, per interface and port. */
static void test_counter_deltas(void **state)
{
	struct live *l = new_live();
	struct ft_rdma_port p;
	const struct live_counter *c;
	uint32_t k;

	(void)state;
	iface(l, 5, "eth5", "h5", 100000, 0);
	REC(p, FT_REC_RDMA_PORT);
	p.port_id = 7;
	p.port_num = 1;
	snprintf(p.dev, sizeof(p.dev), "mlx5_0");
	snprintf(p.netdev, sizeof(p.netdev), "eth5");
	p.netdev_netns = NS1;
	p.netdev_ifindex = 5;
	ADD(l, p);
	ctr_group(l, 0, FT_CTR_PORT_COUNTERS, 7, 5, 2);
	ctr_name(l, 0, 0, FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4, "port_xmit_data");
	ctr_name(l, 0, 1, FT_CLS_CONGESTION, FT_CTRF_WIDTH32, "np_cnp_sent");
	ctr_group(l, 1, FT_CTR_ETHTOOL, ~0u, 5, 2);
	ctr_name(l, 1, 0, FT_CLS_PAUSE, FT_CTRF_PACKETS, "rx_prio3_pause");
	ctr_name(l, 1, 1, FT_CLS_OTHER, 0, "rx_queue_0_packets");

	ctr_sample(l, 0, T0, 1000, 0xfffffff0ull);          /* the first read: a baseline */
	ctr_sample(l, 0, T0 + 10000000, 1100, 0x10);        /* +100 x4, and a 32-bit wrap: +0x20 */
	ctr_sample(l, 1, T0, 5, 0);
	ctr_sample(l, 1, T0 + 10000000, 8, FT_CTR_NA);      /* N/A: skipped, not a reset */
	ctr_sample(l, 1, T0 + 20000000, 10, 77);
	/* the data class sums bytes: a packet counter of that class stays out of it */
	ctr_group(l, 2, FT_CTR_PORT_COUNTERS, 7, 5, 2);
	ctr_name(l, 2, 0, FT_CLS_DATA, FT_CTRF_PACKETS, "port_xmit_packets");
	ctr_name(l, 2, 1, FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4, "port_rcv_data");
	ctr_sample(l, 2, T0, 0, 0);
	ctr_sample(l, 2, T0 + 10000000, 50, 10);            /* +50 packets, +10 x4 bytes */
	live__tick(l, T0 + SEC);
	assert_int_equal(l->ports[0].p_ctr[FT_CLS_DATA], 400 + 40);

	c = &l->counters[l->groups[0].first];
	assert_string_equal(c[0].name, "port_xmit_data");
	assert_int_equal(c[0].total, 400);
	assert_int_equal(c[1].total, 0x20);
	assert_int_equal(c[1].wraps, 1);
	assert_int_equal(c[1].p, 0x20);
	k = live__iface(l, NS1, 5);
	assert_int_equal(l->ifaces[k].p_ctr[FT_CLS_CONGESTION], 0x20);
	assert_int_equal(l->ifaces[k].p_ctr[FT_CLS_DATA], 400 + 40);
	assert_int_equal(l->ifaces[k].p_ctr[FT_CLS_PAUSE], 5);
	assert_true(l->ifaces[k].has_ctr);
	assert_int_equal(l->nports, 1);
	assert_int_equal(l->ports[0].p_ctr[FT_CLS_CONGESTION], 0x20);
	assert_int_equal(l->ports[0].iface, k);
	/* a reset (backwards, not near 2^32): the growth is the new value */
	ctr_sample(l, 0, T0 + SEC + 10000000, 1100, 5);
	live__tick(l, T0 + 2 * SEC);
	assert_int_equal(l->counters[l->groups[0].first + 1].resets, 1);
	assert_int_equal(l->counters[l->groups[0].first + 1].total, 0x20 + 5);
	assert_int_equal(l->ifaces[k].p_ctr[FT_CLS_CONGESTION], 5);
	/* a sample claiming more values than it carries is rejected */
	{
		struct ft_ctr_sample bad;

		REC(bad, FT_REC_CTR_SAMPLE);
		bad.group = 0;
		bad.n = 3;
		assert_int_equal(live__add(l, &bad.hdr), -EINVAL);
		assert_int_equal(l->bad_records, 1);
	}
	live__free(l);
}

static void lost(struct live *l, uint32_t src, uint32_t cpu, uint64_t v)
{
	struct ft_lost r;

	REC(r, FT_REC_LOST);
	r.source = src;
	r.cpu = cpu;
	r.lost = v;
	ADD(l, r);
}

/* Lost counters are cumulative per source and CPU: shown as growth, never hidden or doubled. */
static void test_lost(void **state)
{
	struct live *l = new_live();

	(void)state;
	lost(l, FT_SRC_NET, 0, 0);
	lost(l, FT_SRC_NET, 0, 5);
	lost(l, FT_SRC_NET, 1, 3);
	live__tick(l, T0 + SEC);
	assert_int_equal(l->lost_total, 8);
	assert_int_equal(l->p_lost, 8);
	lost(l, FT_SRC_NET, 0, 5);   /* unchanged: no growth */
	lost(l, FT_SRC_NET, 0, 7);
	lost(l, FT_SRC_PHASE, 1, 4);
	live__tick(l, T0 + 2 * SEC);
	assert_int_equal(l->lost_total, 14);
	assert_int_equal(l->p_lost, 6);
	assert_int_equal(l->lost_by_source[FT_SRC_NET], 10);
	assert_int_equal(l->lost_by_source[FT_SRC_PHASE], 4);
	lost(l, FT_SRC_NET, 0, 2);   /* backwards (cannot happen): ignored, never a negative growth */
	assert_int_equal(l->lost_total, 14);
	lost(l, FT_SRC_MAX, 0, 9);   /* unknown source: ignored */
	assert_int_equal(l->lost_total, 14);
	/* runs the kernel skipped: cumulative readings, a period's growth, never down */
	{
		uint64_t sk[FT_PROBE_MAX] = {0};
		bool known[FT_PROBE_MAX] = {0};

		known[FT_PROBE_IFACE_RX] = true;
		sk[FT_PROBE_IFACE_RX] = 10;
		sk[FT_PROBE_IFACE_TX] = 99;             /* not known: ignored */
		live__set_skipped(l, sk, known);
		live__tick(l, T0 + 3 * SEC);
		assert_int_equal(l->p_skipped[FT_PROBE_IFACE_RX], 10);
		assert_int_equal(l->skipped[FT_PROBE_IFACE_TX], 0);
		assert_false(l->skipped_known[FT_PROBE_IFACE_TX]);
		sk[FT_PROBE_IFACE_RX] = 8;              /* in-flight runs: a lower reading */
		live__set_skipped(l, sk, known);
		live__tick(l, T0 + 4 * SEC);
		assert_int_equal(l->skipped[FT_PROBE_IFACE_RX], 10);
		assert_int_equal(l->p_skipped[FT_PROBE_IFACE_RX], 0);
		sk[FT_PROBE_IFACE_RX] = 15;
		live__set_skipped(l, sk, known);
		live__tick(l, T0 + 5 * SEC);
		assert_int_equal(l->p_skipped[FT_PROBE_IFACE_RX], 5);
	}
	live__free(l);
}

static void drop(struct live *l, uint32_t ifindex, uint32_t reason)
{
	struct ft_drop r;

	REC(r, FT_REC_DROP);
	r.netns = ifindex ? NS1 : 0;
	r.ifindex = ifindex;
	r.reason = reason;
	ADD(l, r);
}

/* Drops by interface and reason, named from FT_REC_DROP_REASON; the series are capped. */
static void test_drops_and_retransmits(void **state)
{
	struct live *l = new_live();
	struct ft_drop_reason dr;
	struct ft_retrans rt;
	uint32_t k;

	(void)state;
	iface(l, 2, "eth0", "h2", 10000, CAP_KBPS);
	REC(dr, FT_REC_DROP_REASON);
	dr.reason = 77;
	snprintf(dr.name, sizeof(dr.name), "QDISC_DROP");
	ADD(l, dr);
	drop(l, 2, 77);
	drop(l, 2, 77);
	drop(l, 0, 2);
	REC(rt, FT_REC_RETRANS);
	rt.flow.netns = NS1;
	rt.flow.ifindex = 2;
	rt.segs = 3;
	ADD(l, rt);
	rt.err = -16;                      /* -EBUSY: tried, nothing sent */
	ADD(l, rt);
	rt.err = 0;
	rt.flow.ifindex = 0;
	rt.segs = 0;                       /* unknown: one */
	ADD(l, rt);
	live__tick(l, T0 + SEC);
	k = live__iface(l, NS1, 2);
	assert_int_equal(l->ifaces[k].p_drops, 2);
	assert_int_equal(l->ifaces[k].p_rtx, 3);
	assert_int_equal(l->p_rtx_unrouted, 1);
	assert_int_equal(l->p_drops, 3);
	assert_int_equal(l->ndrops, 2);
	assert_int_equal(l->drops[0].iface, k);
	assert_int_equal(l->drops[0].p, 2);
	assert_string_equal(live__reason_name(l, 77), "QDISC_DROP");
	assert_null(live__reason_name(l, 2));
	assert_int_equal(l->drops[1].iface, LIVE_NONE);
	/* more (interface, reason) pairs than the cap: the rest go to the overflow series */
	for (uint32_t r = 100; r < 100 + LIVE_MAX_DROPS + 10; r++)
		drop(l, 2, r);
	assert_int_equal(l->ndrops, LIVE_MAX_DROPS);
	assert_int_equal(l->drops[LIVE_MAX_DROPS - 1].reason, LIVE_NONE);
	assert_true(l->overflow_drops > 0);
	assert_int_equal(l->drops_total, 3 + LIVE_MAX_DROPS + 10);
	{
		uint64_t sum = 0;

		for (size_t i = 0; i < l->ndrops; i++)
			sum += l->drops[i].total;
		assert_int_equal(sum, l->drops_total); /* nothing vanishes */
	}
	live__free(l);
}

static void slot(struct live *l, uint32_t id, uint16_t op, uint32_t flags)
{
	struct ft_phase_slot r;

	REC(r, FT_REC_PHASE_SLOT);
	r.slot = id;
	r.op = op;
	r.flags = flags;
	r.lib_kind = FT_LIB_MPI;
	ADD(l, r);
}

static void comm_info(struct live *l, uint32_t pid, int32_t rank, int32_t size)
{
	struct ft_comm_info r;

	REC(r, FT_REC_COMM_INFO);
	r.pid = pid;
	r.comm = 0x44000000;
	r.rank = rank;
	r.size = size;
	ADD(l, r);
}

static void phase(struct live *l, uint32_t pid, uint32_t slot_id, uint64_t seq, uint64_t start,
		  uint64_t end, uint64_t count, uint32_t flags, uint64_t req)
{
	struct ft_phase r;

	REC(r, FT_REC_PHASE);
	r.pid = r.tid = pid;
	r.slot = slot_id;
	r.seq = seq;
	r.start_ns = start;
	r.end_ns = end;
	r.count = count;
	r.dtype_size = 4;
	r.comm = 0x44000000;
	r.flags = flags;
	r.req = req;
	r.netns = NS1;
	r.peer = -1;
	ADD(l, r);
}

/*
 * Who the others waited for is decided as the report decides it
 * (correlate/arrivals.h): of two ranks that entered last at the same
 * moment, the first fed (live took the last one, report the first).
 */
static void test_phases_tie(void **state)
{
	struct live *l = new_live();

	(void)state;
	/* the library's own numbers (Gloo's tags): matched as they come, in this order */
	slot(l, 1, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_COMM_POINTER);
	for (uint32_t r = 0; r < 3; r++)
		comm_info(l, 100 + r, (int32_t)r, 3);
	phase(l, 100, 1, 1, T0 + 1000000, T0 + 5000000, 256, FT_PHASE_LIB_SEQ, 0);
	phase(l, 101, 1, 1, T0 + 3000000, T0 + 5000000, 256, FT_PHASE_LIB_SEQ, 0);
	phase(l, 102, 1, 1, T0 + 3000000, T0 + 5000000, 256, FT_PHASE_LIB_SEQ, 0);
	assert_int_equal(l->nprocs, 3);
	assert_int_equal(l->procs[1].late, 1);
	assert_int_equal(l->procs[1].late_ns, 2000000);
	assert_int_equal(l->procs[2].late, 0);
	assert_int_equal(l->procs[0].late, 0);
	live__free(l);
}

/* Collectives per process, bus bandwidth, and the rank the others waited for. */
static void test_phases(void **state)
{
	struct live *l = new_live();
	const struct live_proc *p0, *p1;
	struct ft_req_done rd;

	(void)state;
	slot(l, 1, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE);
	slot(l, 2, FT_OP_ALLGATHER, FT_SLOT_COLLECTIVE | FT_SLOT_NONBLOCKING);
	comm_info(l, 100, 0, -1);
	comm_info(l, 100, -1, 2);
	comm_info(l, 101, 1, 2);
	/* seq 1: pid 101 enters 3 ms after pid 100; 1 MB in 4 ms for pid 101 */
	phase(l, 100, 1, 1, T0 + 1000000, T0 + 5000000, 262144, 0, 0);
	phase(l, 101, 1, 1, T0 + 4000000, T0 + 8000000, 262144, 0, 0);
	/* seq 2: pid 100 is late by 1 ms */
	phase(l, 101, 1, 2, T0 + 10000000, T0 + 12000000, 262144, 0, 0);
	phase(l, 100, 1, 2, T0 + 11000000, T0 + 12000000, 262144, 0, 0);
	/* a non-blocking allgather ends at its completion */
	phase(l, 100, 2, 3, T0 + 20000000, T0 + 20001000, 1024, FT_PHASE_NONBLOCKING, 0xabc);
	REC(rd, FT_REC_REQ_DONE);
	rd.pid = 100;
	rd.req = 0xabc;
	rd.ts_ns = T0 + 22000000;
	ADD(l, rd);
	live__tick(l, T0 + SEC);

	assert_int_equal(l->nprocs, 2);
	p0 = &l->procs[0];
	p1 = &l->procs[1];
	assert_int_equal(p0->pid, 100);
	assert_int_equal(p0->rank, 0);
	assert_int_equal(p0->size, 2);
	assert_int_equal(p1->rank, 1);
	assert_int_equal(p0->p_colls, 3);
	assert_int_equal(p1->p_colls, 2);
	/* pid 101: 1 MB all-reduce in 4 ms on 2 ranks: factor 2(n-1)/n = 1 -> 2.097 Gbit/s */
	assert_int_equal(p1->last_op, FT_OP_ALLREDUCE);
	assert_int_equal(p1->last_dur_ns, 2000000);
	assert_int_equal(p1->last_size, 1048576);
	assert_near(p1->last_busbw_bps, 1048576 * 8.0 / 2e-3, 1.0);
	/* the allgather: size is count x dtype x ranks; it took 2 ms to its completion */
	assert_int_equal(p0->last_op, FT_OP_ALLGATHER);
	assert_int_equal(p0->last_dur_ns, 2000000);
	assert_int_equal(p0->last_size, 8192);
	assert_near(p0->last_busbw_bps, 8192 * 8.0 / 2e-3 * 0.5, 1.0);
	/* lateness: 101 entered last once by 3 ms, 100 once by 1 ms -> 101 is the slowest */
	assert_int_equal(p1->p_late, 1);
	assert_int_equal(p1->p_late_ns, 3000000);
	assert_int_equal(p0->p_late, 1);
	assert_int_equal(p0->p_late_ns, 1000000);
	assert_int_equal(l->slowest, 1);
	assert_int_equal(l->ops[FT_OP_ALLREDUCE].calls, 4);
	assert_int_equal(l->ops[FT_OP_ALLGATHER].calls, 1);
	assert_int_equal(l->nranks, 2);
	assert_int_equal(l->ranks[1].late, 1);
	/* without the communicator size, no bus bandwidth (its factor depends on the ranks) */
	phase(l, 300, 1, 1, T0 + SEC, T0 + SEC + 1000, 100, 0, 0);
	assert_true(isnan(l->procs[2].last_busbw_bps));
	live__free(l);
}

/*
 * A job attached mid-run: pid 102's probes saw collective 1, pids 100 and
 * 101 were attached during it and count collective 2 as their first.  Pid
 * 102 enters every collective 30 ms after the others.  Matched by the
 * numbers as counted, 100 and 101 looked late every time (their seq k is
 * collective k+1); aligned, 102 is the one they wait for.
 */
static void test_phases_attached_apart(void **state)
{
	struct live *l = new_live();
	const uint64_t ms = 1000000;

	(void)state;
	slot(l, 1, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE);
	for (uint32_t pid = 100; pid <= 102; pid++)
		comm_info(l, pid, (int32_t)(pid - 100), 3);
	for (uint64_t j = 1; j <= 6; j++) {
		uint64_t t = T0 + j * 100 * ms;

		for (uint32_t pid = 100; pid <= 101; pid++)
			if (j >= 2)
				phase(l, pid, 1, j - 1, t + (pid - 100) * ms, t + 40 * ms, 1024, 0, 0);
		phase(l, 102, 1, j, t + 30 * ms, t + 40 * ms, 1024, 0, 0);
		/* a refresh before the others' first call must not settle the shifts */
		if (j == 1)
			live__tick(l, t + 41 * ms);
	}
	live__tick(l, T0 + SEC);
	assert_int_equal(l->nprocs, 3);
	assert_int_equal(l->procs[2].pid, 102);
	assert_int_equal(l->procs[2].p_late, 5);          /* collectives 2..6 (1 had one rank) */
	assert_int_equal(l->procs[2].p_late_ns, 5 * 30 * ms);
	assert_int_equal(l->procs[0].p_late + l->procs[1].p_late, 0);
	assert_int_equal(l->slowest, 2);
	/* later calls are matched at once, shifted: collective 7 */
	phase(l, 100, 1, 6, T0 + 700 * ms, T0 + 740 * ms, 1024, 0, 0);
	phase(l, 101, 1, 6, T0 + 701 * ms, T0 + 740 * ms, 1024, 0, 0);
	phase(l, 102, 1, 7, T0 + 730 * ms, T0 + 740 * ms, 1024, 0, 0);
	assert_int_equal(l->procs[2].late, 6);
	live__free(l);
}

/*
 * A rank whose calls come after the others were aligned without it (its
 * probes attached later, or a refresh came first): it opens the alignment
 * again, and is matched shifted from then on.
 */
static void test_phases_rank_joins_later(void **state)
{
	struct live *l = new_live();
	const uint64_t ms = 1000000;

	(void)state;
	slot(l, 1, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE);
	for (uint32_t pid = 100; pid <= 102; pid++)
		comm_info(l, pid, (int32_t)(pid - 100), 3);
	for (uint64_t j = 2; j <= 6; j++)
		for (uint32_t pid = 100; pid <= 101; pid++)
			phase(l, pid, 1, j - 1, T0 + j * 100 * ms + (pid - 100) * ms, T0 + j * 100 * ms + 40 * ms,
			      1024, 0, 0);
	live__tick(l, T0 + 800 * ms); /* half a second on: aligned without pid 102 */
	for (uint64_t j = 7; j <= 10; j++) {
		uint64_t t = T0 + j * 100 * ms;

		for (uint32_t pid = 100; pid <= 101; pid++)
			phase(l, pid, 1, j - 1, t + (pid - 100) * ms, t + 40 * ms, 1024, 0, 0);
		phase(l, 102, 1, j, t + 30 * ms, t + 40 * ms, 1024, 0, 0);
	}
	live__tick(l, T0 + 2 * SEC);
	assert_int_equal(l->procs[2].pid, 102);
	assert_int_equal(l->procs[2].late, 4); /* collectives 7..10: the others had one rank short */
	assert_int_equal(l->procs[0].late + l->procs[1].late, 0);
	live__free(l);
}

/* The history ring: the last N periods, oldest first. */
static void test_history(void **state)
{
	struct live *l = new_live();
	const struct live_dir *d;
	double h[LIVE_HISTORY];

	(void)state;
	iface(l, 2, "eth0", "h2", 10000, 0);
	for (uint64_t p = 0; p < LIVE_HISTORY + 5; p++) {
		bin(l, 0, 2, FT_DIR_RX, T0 + p * SEC + BIN, (p + 1) * 1000, 0);
		live__tick(l, T0 + (p + 1) * SEC);
	}
	d = dir_of(l, 2, FT_DIR_RX);
	live__history(l, d, h, 3);
	assert_near(h[2], (LIVE_HISTORY + 5) * 8000.0, 1e-6);  /* newest last */
	assert_near(h[1], (LIVE_HISTORY + 4) * 8000.0, 1e-6);
	assert_near(h[0], (LIVE_HISTORY + 3) * 8000.0, 1e-6);
	live__history(l, d, h, LIVE_HISTORY);
	assert_near(h[0], 6 * 8000.0, 1e-6);                     /* the oldest kept */
	live__free(l);
	/* before the ring fills: zeros first */
	l = new_live();
	iface(l, 2, "eth0", "h2", 10000, 0);
	bin(l, 0, 2, FT_DIR_RX, T0 + BIN, 1000, 0);
	live__tick(l, T0 + SEC);
	live__history(l, dir_of(l, 2, FT_DIR_RX), h, 4);
	assert_near(h[0], 0, 0);
	assert_near(h[3], 8000.0, 1e-6);
	live__free(l);
}

/* Bad input: short records are counted and skipped; interfaces seen before described get a label. */
static void test_bad_and_undescribed(void **state)
{
	struct live *l = new_live();
	struct ft_iface_bin b;
	uint32_t k;

	(void)state;
	REC(b, FT_REC_IFACE_BIN);
	b.hdr.size = sizeof(b) - 8;
	assert_int_equal(live__add(l, &b.hdr), -EINVAL);
	assert_int_equal(l->bad_records, 1);
	bin(l, 0, 42, FT_DIR_RX, T0 + BIN, 500, 1);
	k = live__iface(l, NS1, 42);
	assert_int_not_equal(k, LIVE_NONE);
	assert_string_equal(l->ifaces[k].label, "netns 4026531840 ifindex 42");
	iface(l, 42, "eth9", "", 1000, 0);
	assert_string_equal(l->ifaces[k].label, "eth9");
	assert_int_equal(l->ifaces[k].dir[FT_DIR_RX].ce_pkts, 1);
	assert_int_equal(live__iface(l, NS1, 43), LIVE_NONE);
	live__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_bin_vs_average),
		cmocka_unit_test(test_percpu_merge),
		cmocka_unit_test(test_bursts_per_second),
		cmocka_unit_test(test_counter_deltas),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_drops_and_retransmits),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_phases_attached_apart),
		cmocka_unit_test(test_phases_rank_joins_later),
		cmocka_unit_test(test_phases_tie),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_bad_and_undescribed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
