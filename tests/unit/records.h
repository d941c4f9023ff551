/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builders of synthetic capture records for the unit tests (test_model.c,
 * test_report.c, test_correlate.c): a file header, and rec_*() helpers that
 * build one record and feed it to model__add(), asserting success.
 *
 * Include after <cmocka.h> (the helpers assert).
 */
#ifndef FABTRACE_TEST_RECORDS_H
#define FABTRACE_TEST_RECORDS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "userspace/model/model.h"

/* Zero record R and give it type T and its own size. */
#define REC_HDR(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)

/* A header as the recorder writes it: every probe attached, host "testhost". */
static inline struct ft_file_header rec_file_header(uint64_t start_ns, uint64_t bin_ns)
{
	struct ft_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, FT_MAGIC, 8);
	h.version = FT_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.start_mono_ns = start_ns;
	h.realtime_offset_ns = 1700000000ll * 1000000000ll;
	h.bin_ns = bin_ns;
	h.probes = (1ull << FT_PROBE_MAX) - 1;
	h.ncpus = 2;
	snprintf(h.hostname, sizeof(h.hostname), "testhost");
	snprintf(h.kernel, sizeof(h.kernel), "6.1.0-test");
	return h;
}

/* Where the helpers feed a record: the model, unless the includer says
 * otherwise (test_window_blocks.c writes them into a capture file). */
#ifndef REC_FEED
#define REC_FEED(m, h) model__add((m), (h))
#endif
/* Feed one record (the whole struct, not just its header) to the model. */
#define rec_add(m, r) assert_int_equal(REC_FEED((m), (const struct ft_rec_hdr *)(const void *)&(r)), 0)

/* ---- fabric records ---- */

static inline void rec_iface(struct model *m, uint32_t netns, uint32_t ifindex, const char *name,
			     const char *nsname, uint32_t speed_mbps, uint32_t txrate_kbps)
{
	struct ft_iface_info r;

	REC_HDR(r, FT_REC_IFACE);
	r.netns = netns;
	r.ifindex = ifindex;
	r.mtu = 1500;
	r.speed_mbps = speed_mbps;
	r.tx_rate_kbps = txrate_kbps;
	r.flags = FT_IFACE_UP | FT_IFACE_TRACED;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", nsname);
	snprintf(r.kind, sizeof(r.kind), "veth");
	rec_add(m, r);
}

static inline void rec_bin(struct model *m, uint32_t cpu, uint32_t netns, uint32_t ifindex, int dir,
			   uint64_t start, uint64_t bytes, uint32_t pkts, uint32_t ce)
{
	struct ft_iface_bin r;

	REC_HDR(r, FT_REC_IFACE_BIN);
	r.hdr.cpu = cpu;
	r.start_ns = start;
	r.bytes = bytes;
	r.pkts = pkts;
	r.ce_pkts = ce;
	r.netns = netns;
	r.ifindex = ifindex;
	r.dir = (uint8_t)dir;
	rec_add(m, r);
}

static inline void rec_end(struct model *m, uint64_t ts)
{
	struct ft_end r;

	REC_HDR(r, FT_REC_END);
	r.ts_ns = ts;
	rec_add(m, r);
}

/* An END written STOP_AGO ns after the recording was told to stop. */
static inline void rec_end_stop(struct model *m, uint64_t ts, uint32_t stop_ago)
{
	struct ft_end r;

	REC_HDR(r, FT_REC_END);
	r.ts_ns = ts;
	r.stop_ago_ns = stop_ago;
	rec_add(m, r);
}

static inline void rec_stats(struct model *m, uint32_t netns, uint32_t ifindex, int phase,
			     uint64_t rxb, uint64_t rxp, uint64_t txb, uint64_t txp)
{
	struct ft_iface_stats r;

	REC_HDR(r, FT_REC_IFACE_STATS);
	r.netns = netns;
	r.ifindex = ifindex;
	r.phase = (uint8_t)phase;
	r.rx_bytes = rxb;
	r.rx_packets = rxp;
	r.tx_bytes = txb;
	r.tx_packets = txp;
	rec_add(m, r);
}

/* Counters read by the kernel between TS - READ_NS and TS (tx only). */
static inline void rec_stats_read(struct model *m, uint32_t netns, uint32_t ifindex, int phase, uint64_t ts,
				  uint32_t read_ns, uint64_t txb, uint64_t txp)
{
	struct ft_iface_stats r;

	REC_HDR(r, FT_REC_IFACE_STATS);
	r.ts_ns = ts;
	r.read_ns = read_ns;
	r.netns = netns;
	r.ifindex = ifindex;
	r.phase = (uint8_t)phase;
	r.tx_bytes = txb;
	r.tx_packets = txp;
	rec_add(m, r);
}

/* TCP flow 10.0.0.A:SPORT -> 10.0.0.100:DPORT in NETNS. */
static inline struct ft_flow rec_flow(uint8_t a, uint16_t sport, uint16_t dport, uint32_t netns)
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

static inline void rec_retrans_rtt(struct model *m, struct ft_flow f, uint64_t ts, int trig, uint32_t srtt_us)
{
	struct ft_retrans r;

	REC_HDR(r, FT_REC_RETRANS);
	r.ts_ns = ts;
	r.flow = f;
	r.trigger = (uint8_t)trig;
	r.srtt_us = srtt_us;
	rec_add(m, r);
}

/* A retransmit with its result ERR (0: sent; -EBUSY...: tried, nothing sent) and SEGS. */
static inline void rec_retrans_res(struct model *m, struct ft_flow f, uint64_t ts, int trig, int32_t err,
				   uint32_t segs)
{
	struct ft_retrans r;

	REC_HDR(r, FT_REC_RETRANS);
	r.ts_ns = ts;
	r.flow = f;
	r.trigger = (uint8_t)trig;
	r.err = err;
	r.segs = segs;
	rec_add(m, r);
}

static inline void rec_retrans(struct model *m, struct ft_flow f, uint64_t ts, int trig)
{
	rec_retrans_res(m, f, ts, trig, 0, 0);
}

/* A retransmit the kernel tried and failed (ERR: -EBUSY...): nothing was sent. */
static inline void rec_retrans_failed(struct model *m, struct ft_flow f, uint64_t ts, int trig, int32_t err)
{
	rec_retrans_res(m, f, ts, trig, err, 3);
}

static inline void rec_cong_at(struct model *m, struct ft_flow f, uint64_t ts, uint8_t from, uint8_t to)
{
	struct ft_cong_state r;

	REC_HDR(r, FT_REC_CONG_STATE);
	r.ts_ns = ts;
	r.flow = f;
	r.old_state = from;
	r.new_state = to;
	rec_add(m, r);
}

static inline void rec_cong(struct model *m, struct ft_flow f, uint8_t from, uint8_t to)
{
	rec_cong_at(m, f, 0, from, to);
}

static inline void rec_sample(struct model *m, struct ft_flow f, uint32_t srtt, uint32_t cwnd)
{
	struct ft_tcp_sample r;

	REC_HDR(r, FT_REC_TCP_SAMPLE);
	r.flow = f;
	r.srtt_us = srtt;
	r.snd_cwnd = cwnd;
	rec_add(m, r);
}

/* An RTT sample at TS with OUT packets in flight (srtt 2 ms, cwnd 10). */
static inline void rec_sample_at(struct model *m, struct ft_flow f, uint64_t ts, uint32_t out)
{
	struct ft_tcp_sample r;

	REC_HDR(r, FT_REC_TCP_SAMPLE);
	r.ts_ns = ts;
	r.flow = f;
	r.srtt_us = 2000;
	r.snd_cwnd = 10;
	r.packets_out = out;
	rec_add(m, r);
}

static inline void rec_ce(struct model *m, struct ft_flow f, uint64_t n, uint64_t first, uint64_t last)
{
	struct ft_ce_flow r;

	REC_HDR(r, FT_REC_CE_FLOW);
	r.flow = f;
	r.ce_pkts = n;
	r.first_ns = first;
	r.last_ns = last;
	rec_add(m, r);
}

static inline void rec_drop(struct model *m, uint64_t ts, uint32_t netns, uint32_t ifindex, uint32_t reason)
{
	struct ft_drop r;

	REC_HDR(r, FT_REC_DROP);
	r.ts_ns = ts;
	r.netns = netns;
	r.ifindex = ifindex;
	r.reason = reason;
	rec_add(m, r);
}

static inline void rec_reason(struct model *m, uint32_t reason, const char *name)
{
	struct ft_drop_reason r;

	REC_HDR(r, FT_REC_DROP_REASON);
	r.reason = reason;
	snprintf(r.name, sizeof(r.name), "%s", name);
	rec_add(m, r);
}

static inline void rec_lost(struct model *m, uint32_t source, uint32_t cpu, uint64_t lost, uint64_t ts)
{
	struct ft_lost r;

	REC_HDR(r, FT_REC_LOST);
	r.source = source;
	r.cpu = cpu;
	r.lost = lost;
	r.ts_ns = ts;
	rec_add(m, r);
}

static inline void rec_qbin_kind(struct model *m, const char *kind, uint32_t netns, uint32_t ifindex,
				 uint32_t handle, uint64_t start, uint64_t backlog, uint64_t soj_sum, uint32_t soj_cnt,
				 uint64_t soj_max, uint32_t enq_pkts, uint64_t enq_bytes)
{
	struct ft_qdisc_bin r;

	REC_HDR(r, FT_REC_QDISC_BIN);
	r.start_ns = start;
	r.max_backlog = backlog;
	r.max_qlen = enq_pkts;
	r.sojourn_sum_ns = soj_sum;
	r.sojourn_cnt = soj_cnt;
	r.sojourn_max_ns = soj_max;
	r.enq_pkts = enq_pkts;
	r.enq_bytes = enq_bytes;
	r.netns = netns;
	r.ifindex = ifindex;
	r.handle = handle;
	snprintf(r.kind, sizeof(r.kind), "%s", kind);
	rec_add(m, r);
}

static inline void rec_qbin(struct model *m, uint32_t cpu, uint32_t netns, uint32_t ifindex, uint32_t handle,
			    uint64_t start, uint64_t backlog, uint32_t qlen, uint64_t soj_sum, uint32_t soj_cnt,
			    uint64_t soj_max, uint32_t enq_pkts, uint64_t enq_bytes, uint32_t drops)
{
	struct ft_qdisc_bin r;

	REC_HDR(r, FT_REC_QDISC_BIN);
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
	r.netns = netns;
	r.ifindex = ifindex;
	r.handle = handle;
	snprintf(r.kind, sizeof(r.kind), "tbf");
	rec_add(m, r);
}

static inline void rec_coverage(struct model *m, uint32_t probe, uint32_t known, uint64_t hits, uint64_t runs)
{
	struct ft_coverage r;

	REC_HDR(r, FT_REC_COVERAGE);
	r.probe = probe;
	r.known = known;
	r.hits = hits;
	r.runs = runs;
	rec_add(m, r);
}

/* A probe, its hook and whether it was attached for the whole capture, as
 * record writes it (FT_REC_PROBE). */
static inline void rec_probe(struct model *m, uint32_t id, const char *name, const char *hook, bool attached)
{
	struct ft_probe_info r;

	REC_HDR(r, FT_REC_PROBE);
	r.id = id;
	r.attached = attached;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.hook, sizeof(r.hook), "%s", hook);
	rec_add(m, r);
}

/* ---- collective phase records ---- */

static inline void rec_slot(struct model *m, uint32_t slot, unsigned lib_kind, unsigned op, uint32_t flags,
			    const char *name)
{
	struct ft_phase_slot r;

	REC_HDR(r, FT_REC_PHASE_SLOT);
	r.slot = slot;
	r.lib_kind = (uint16_t)lib_kind;
	r.op = (uint16_t)op;
	r.flags = flags;
	snprintf(r.lib, sizeof(r.lib), "/usr/lib/x86_64-linux-gnu/libtest.so.1");
	snprintf(r.symbol, sizeof(r.symbol), "PMPI_%s", name);
	snprintf(r.name, sizeof(r.name), "%s", name);
	rec_add(m, r);
}

/* A phase record with the common fields; set the rest and rec_add() it. */
static inline struct ft_phase rec_phase_init(uint32_t slot, uint32_t pid, uint32_t netns, uint64_t start,
					     uint64_t end)
{
	struct ft_phase r;

	REC_HDR(r, FT_REC_PHASE);
	r.slot = slot;
	r.pid = pid;
	r.tid = pid;
	r.netns = netns;
	r.start_ns = start;
	r.end_ns = end;
	r.peer = -1;
	return r;
}

/* A blocking call: COUNT elements of DTYPE bytes on COMM, per-comm SEQ (0 = not a collective). */
static inline void rec_call(struct model *m, uint32_t slot, uint32_t pid, uint32_t netns, uint64_t start,
			    uint64_t end, uint64_t count, uint32_t dtype, uint64_t comm, uint64_t seq)
{
	struct ft_phase r = rec_phase_init(slot, pid, netns, start, end);

	r.count = count;
	r.dtype_size = dtype;
	r.comm = comm;
	r.seq = seq;
	rec_add(m, r);
}

/* A non-blocking call that returned request REQ at END. */
static inline void rec_call_nb(struct model *m, uint32_t slot, uint32_t pid, uint32_t netns, uint64_t start,
			       uint64_t end, uint64_t count, uint32_t dtype, uint64_t comm, uint64_t seq,
			       uint64_t req)
{
	struct ft_phase r = rec_phase_init(slot, pid, netns, start, end);

	r.count = count;
	r.dtype_size = dtype;
	r.comm = comm;
	r.seq = seq;
	r.req = req;
	r.flags = FT_PHASE_NONBLOCKING;
	rec_add(m, r);
}

/* A marker call at TS: a step (NAME NULL, STEP its number) or a named phase. */
static inline void rec_marker(struct model *m, uint32_t slot, uint32_t pid, uint64_t ts, int begin,
			      uint64_t step, const char *name)
{
	struct ft_phase r = rec_phase_init(slot, pid, 0, ts, ts);

	r.flags = begin ? FT_PHASE_MARK_BEGIN : FT_PHASE_MARK_END;
	r.count = step;
	if (name)
		snprintf(r.name, sizeof(r.name), "%s", name);
	rec_add(m, r);
}

static inline void rec_req_done(struct model *m, uint32_t pid, uint64_t req, uint64_t ts)
{
	struct ft_req_done r;

	REC_HDR(r, FT_REC_REQ_DONE);
	r.pid = pid;
	r.tid = pid;
	r.req = req;
	r.ts_ns = ts;
	rec_add(m, r);
}

static inline void rec_comm_info(struct model *m, uint32_t pid, uint64_t comm, int32_t rank, int32_t size,
				 uint64_t ts)
{
	struct ft_comm_info r;

	REC_HDR(r, FT_REC_COMM_INFO);
	r.pid = pid;
	r.comm = comm;
	r.rank = rank;
	r.size = size;
	r.ts_ns = ts;
	rec_add(m, r);
}

static inline void rec_proc(struct model *m, uint32_t pid, uint32_t ppid, uint32_t netns, uint32_t event,
			    uint64_t ts, const char *comm)
{
	struct ft_proc r;

	REC_HDR(r, FT_REC_PROC);
	r.pid = pid;
	r.ppid = ppid;
	r.netns = netns;
	r.event = event;
	r.ts_ns = ts;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	rec_add(m, r);
}

static inline void rec_owner(struct model *m, struct ft_flow f, uint32_t pid, uint64_t ts, const char *comm)
{
	struct ft_sock_owner r;

	REC_HDR(r, FT_REC_SOCK_OWNER);
	r.flow = f;
	r.pid = pid;
	r.tid = pid;
	r.ts_ns = ts;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	rec_add(m, r);
}

/* One sampled interval of a process's run-queue wait (probes/schedwait.h). */
static inline void rec_sched_wait(struct model *m, uint32_t pid, uint32_t netns, uint64_t start, uint64_t end,
				  uint64_t wait_ns, uint64_t cpu_ns)
{
	struct ft_sched_wait r;

	REC_HDR(r, FT_REC_SCHED_WAIT);
	r.start_ns = start;
	r.end_ns = end;
	r.wait_ns = wait_ns;
	r.cpu_ns = cpu_ns;
	r.max_wait_ns = wait_ns;
	r.pid = pid;
	r.netns = netns;
	r.threads = 1;
	rec_add(m, r);
}

/* ---- counter sampler records ---- */

static inline void rec_rdma_port(struct model *m, uint32_t port_id, const char *dev, uint32_t port_num,
				 unsigned link_layer, const char *netdev, uint32_t netns, uint32_t ifindex,
				 uint32_t lifespan_ms)
{
	struct ft_rdma_port r;

	REC_HDR(r, FT_REC_RDMA_PORT);
	r.port_id = port_id;
	r.port_num = port_num;
	snprintf(r.dev, sizeof(r.dev), "%s", dev);
	snprintf(r.netdev, sizeof(r.netdev), "%s", netdev);
	r.netdev_netns = netns;
	r.netdev_ifindex = ifindex;
	r.state = 4;
	r.phys_state = 5;
	r.link_layer = (uint8_t)link_layer;
	r.width = 4;
	r.rate_mbps = 100000;
	r.lifespan_ms = lifespan_ms;
	r.flags = FT_PORT_COUNTERS | FT_PORT_HW_COUNTERS;
	snprintf(r.rate, sizeof(r.rate), "100 Gb/sec (4X EDR)");
	rec_add(m, r);
}

static inline void rec_ctr_group(struct model *m, uint32_t group, unsigned kind, uint32_t port_id,
				 uint32_t netns, uint32_t ifindex, uint32_t n, uint64_t period, const char *label)
{
	struct ft_ctr_group r;

	REC_HDR(r, FT_REC_CTR_GROUP);
	r.group = group;
	r.kind = kind;
	r.port_id = port_id;
	r.netns = netns;
	r.ifindex = ifindex;
	r.ncounters = n;
	r.period_ns = period;
	snprintf(r.label, sizeof(r.label), "%s", label);
	rec_add(m, r);
}

static inline void rec_ctr_name(struct model *m, uint32_t group, uint32_t index, unsigned cls,
				unsigned flags, const char *name)
{
	struct ft_ctr_name r;

	REC_HDR(r, FT_REC_CTR_NAME);
	r.group = group;
	r.index = index;
	r.cls = (uint16_t)cls;
	r.flags = (uint16_t)flags;
	snprintf(r.name, sizeof(r.name), "%s", name);
	rec_add(m, r);
}

/* One sample of N (<= 8) raw values. */
static inline void rec_ctr_sample(struct model *m, uint32_t group, uint64_t ts, uint32_t read_ns,
				  uint32_t n, const uint64_t *vals)
{
	struct {
		struct ft_ctr_sample s;
		uint64_t v[8];
	} r;

	assert_true(n <= 8);
	memset(&r, 0, sizeof(r));
	r.s.hdr.type = FT_REC_CTR_SAMPLE;
	r.s.hdr.size = (uint16_t)(sizeof(r.s) + n * sizeof(uint64_t));
	r.s.ts_ns = ts;
	r.s.group = group;
	r.s.n = n;
	r.s.read_ns = read_ns;
	memcpy(r.v, vals, n * sizeof(uint64_t));
	assert_int_equal(REC_FEED(m, &r.s.hdr), 0);
}

#endif
