// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap: write a deterministic synthetic capture (no root, no kernel) for
 * golden tests, size tests and benchmarks of `fabtrace report`.  It uses
 * the real capture writer (userspace/capture/capture.h), so what it writes is what
 * `fabtrace info` and `report` read.
 *
 * The scenario: H hosts (network namespaces "h1".."hH", eth0 each), R ranks
 * per host (MPI, one communicator), one allreduce per period with marker
 * steps ("compute" before it, "optimizer" after), every host's eth0 sending
 * and receiving the ring traffic in bins while the collective transfers.
 * Injected, on chosen collectives (sequence numbers):
 *   congestion  one host's tbf queue holds ~2.5 ms, QDISC_DROPs, fast
 *               retransmits on its rank's flow, CE marks at the next host,
 *               a CNP/ECN storm and pause frames in its RDMA/NIC counters;
 *               the transfer takes --congest-factor times longer
 *               -> verdict network
 *   straggler   one rank computes --straggler's delay longer -> verdict rank
 * plus a lost-event gap (the bins of one interval missing, LOST records)
 * and the counter sampler's records (RDMA port, three counter groups).
 *
 * Everything follows from the options and --seed: the same command writes
 * the same bytes.  Records per period are printed with --verbose; --events N
 * sizes the capture to about N records by choosing the duration.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "lib/opt.h"
#include "lib/util.h"

#define US ((uint64_t)1000)
#define MS ((uint64_t)1000000)
#define SEC ((uint64_t)1000000000)
#define START_NS (1000ull * SEC)                      /* CLOCK_MONOTONIC at "record" start */
#define EPOCH_2024 1704067200ll                        /* 2024-01-01T00:00:00Z */
#define NETNS0 4026532000u
#define WORLD 0x44000000ull                            /* MPICH's MPI_COMM_WORLD */
#define REASON_QDISC_DROP 5u
#define QDISC_HANDLE 0x10000u
#define OFFSET_NS (10 * MS)                            /* first period starts here */

enum { SL_ALLREDUCE = 1, SL_STEP, SL_PHASE, SL_COMM_RANK };

/* A set of sequence numbers: "3", "3-5", "3/10" (3, 13, 23, ...), "none". */
struct seqset {
	uint64_t a, b, every;       /* a..b, or a + k * every when every > 0; a = 0: empty */
};

struct opts {
	const char *out;
	uint64_t duration, bin, period, compute, optimizer, ctr_period, lost_len, seed;
	uint64_t size;
	unsigned hosts, rpp, link_mbit, congest_factor;
	unsigned congest_host;      /* 1-based */
	struct seqset congest;
	int straggler;              /* world rank, -1 none */
	struct seqset straggle;
	uint64_t straggle_ns;
	bool steps, rdma, lost, quiet;
	uint64_t lost_seq;          /* 0: auto */
	uint64_t events;
	unsigned only_host;         /* 1-based: write only that host's records (0: all) */
	unsigned stop_reason;       /* the END's enum ft_stop_reason */
	char cmdline[256];
};

struct gen {
	struct opts o;
	struct capture_writer *w;
	uint64_t rng;
	uint64_t end_ns;
	unsigned nranks;
	uint64_t ncoll;
	uint64_t records;
	/* per host: conservation counters and RDMA counters (raw) */
	uint64_t *tx_bytes, *tx_pkts, *rx_bytes, *rx_pkts;
	uint64_t *qdrops;
	uint64_t (*hw)[4], (*pc)[3], (*eth)[2];
	uint64_t next_ctr;          /* next counter sample time */
	uint64_t lost_from, lost_to, lost_count;
	uint64_t ce_total;
	int err;
};

static uint64_t rnd(struct gen *g)
{
	/* splitmix64: tiny, good enough for jitter, and the same everywhere */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t jitter(struct gen *g, uint64_t max)
{
	return max ? rnd(g) % max : 0;
}

static bool in_set(const struct seqset *s, uint64_t seq)
{
	if (!s->a || seq < s->a)
		return false;
	if (s->every)
		return (seq - s->a) % s->every == 0;
	return seq <= s->b;
}

static int parse_seqset(const char *s, struct seqset *out)
{
	char *end;
	unsigned long long a;

	memset(out, 0, sizeof(*out));
	if (!strcmp(s, "none"))
		return 0;
	errno = 0;
	a = strtoull(s, &end, 10);
	if (errno || end == s || !a)
		return -1;
	out->a = out->b = a;
	if (*end == '-' || *end == '/') {
		char sep = *end;
		unsigned long long b = strtoull(end + 1, &end, 10);

		if (errno || !b || (sep == '-' && b < a))
			return -1;
		if (sep == '-')
			out->b = b;
		else
			out->every = b;
	}
	return *end ? -1 : 0;
}

static int rec_host(const struct gen *g, const struct ft_rec_hdr *h);

static void emit(struct gen *g, const void *rec)
{
	int ret, rh;

	if (g->err)
		return;
	/* --only-host: as that host's own recorder would have written it */
	if (g->o.only_host && (rh = rec_host(g, rec)) >= 0 && (unsigned)rh != g->o.only_host - 1)
		return;
	ret = capture__append(g->w, rec);
	if (ret) {
		g->err = ret;
		return;
	}
	g->records++;
}

#define REC(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)

static uint32_t host_netns(unsigned h) { return NETNS0 + 1 + h; }          /* h 0-based */
static uint32_t rank_pid(unsigned r) { return 4000 + r; }
static unsigned rank_host(const struct gen *g, unsigned r) { return r / g->o.rpp; }

/* The host of counter group GROUP (group_id's inverse), -1 for none. */
static int group_host(const struct gen *g, uint32_t group)
{
	return group >= 1 && group <= g->o.hosts * 3 ? (int)((group - 1) / 3) : -1;
}

/* The host (0-based) a record belongs to, -1 for the capture as a whole. */
static int rec_host(const struct gen *g, const struct ft_rec_hdr *h)
{
	uint32_t ns = 0, pid = 0;

	switch (h->type) {
	case FT_REC_IFACE_BIN: ns = ((const struct ft_iface_bin *)(const void *)h)->netns; break;
	case FT_REC_QDISC_BIN: ns = ((const struct ft_qdisc_bin *)(const void *)h)->netns; break;
	case FT_REC_DROP: ns = ((const struct ft_drop *)(const void *)h)->netns; break;
	case FT_REC_RETRANS: ns = ((const struct ft_retrans *)(const void *)h)->flow.netns; break;
	case FT_REC_CONG_STATE: ns = ((const struct ft_cong_state *)(const void *)h)->flow.netns; break;
	case FT_REC_TCP_SAMPLE: ns = ((const struct ft_tcp_sample *)(const void *)h)->flow.netns; break;
	case FT_REC_PHASE: ns = ((const struct ft_phase *)(const void *)h)->netns; break;
	case FT_REC_REQ_DONE: pid = ((const struct ft_req_done *)(const void *)h)->pid; break;
	case FT_REC_COMM_INFO: pid = ((const struct ft_comm_info *)(const void *)h)->pid; break;
	case FT_REC_PROC: ns = ((const struct ft_proc *)(const void *)h)->netns; break;
	case FT_REC_SOCK_OWNER: ns = ((const struct ft_sock_owner *)(const void *)h)->flow.netns; break;
	case FT_REC_IFACE: ns = ((const struct ft_iface_info *)(const void *)h)->netns; break;
	case FT_REC_IFACE_STATS: ns = ((const struct ft_iface_stats *)(const void *)h)->netns; break;
	case FT_REC_CE_FLOW: ns = ((const struct ft_ce_flow *)(const void *)h)->flow.netns; break;
	case FT_REC_RDMA_PORT: ns = ((const struct ft_rdma_port *)(const void *)h)->netdev_netns; break;
	case FT_REC_CTR_GROUP: ns = ((const struct ft_ctr_group *)(const void *)h)->netns; break;
	/* counter names and samples: the host of their group (group_id) */
	case FT_REC_CTR_NAME: return group_host(g, ((const struct ft_ctr_name *)(const void *)h)->group);
	case FT_REC_CTR_SAMPLE: return group_host(g, ((const struct ft_ctr_sample *)(const void *)h)->group);
	default: return -1;
	}
	if (ns > NETNS0 && ns <= NETNS0 + g->o.hosts)
		return (int)(ns - NETNS0 - 1);
	if (pid >= 4000 && pid < 4000 + g->o.hosts * g->o.rpp)
		return (int)((pid - 4000) / g->o.rpp);
	return -1;
}

static struct ft_flow flow_of(unsigned h, unsigned nh)
{
	struct ft_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	f.proto = 6;
	f.saddr[0] = 198; f.saddr[1] = 18; f.saddr[3] = (uint8_t)(h + 1);
	f.daddr[0] = 198; f.daddr[1] = 18; f.daddr[3] = (uint8_t)((h + 1) % nh + 1);
	f.sport = (uint16_t)(40000 + h);
	f.dport = 5000;
	f.netns = host_netns(h);
	f.ifindex = 2;
	return f;
}

/* ---- records ---- */

static void setup_records(struct gen *g)
{
	const struct opts *o = &g->o;
	static const char *const probes[FT_PROBE_MAX] = {
		"iface_tx", "iface_rx", "qdisc_enq", "qdisc_deq", "drop", "retrans", "cong_state", "tcp_sample",
	};
	struct ft_drop_reason dr;
	struct ft_phase_slot sl;

	for (unsigned p = 0; p < FT_PROBE_MAX; p++) {
		struct ft_probe_info pi;

		REC(pi, FT_REC_PROBE);
		pi.id = p;
		pi.attached = 1;
		snprintf(pi.name, sizeof(pi.name), "%s", probes[p]);
		snprintf(pi.hook, sizeof(pi.hook), "synthetic");
		emit(g, &pi);
	}
	REC(dr, FT_REC_DROP_REASON);
	dr.reason = REASON_QDISC_DROP;
	snprintf(dr.name, sizeof(dr.name), "QDISC_DROP");
	emit(g, &dr);
	for (unsigned h = 0; h < o->hosts; h++) {
		struct ft_iface_info ii;
		struct ft_iface_stats st;

		REC(ii, FT_REC_IFACE);
		ii.netns = host_netns(h);
		ii.ifindex = 2;
		ii.mtu = 1500;
		ii.speed_mbps = o->link_mbit;
		ii.flags = FT_IFACE_UP | FT_IFACE_TRACED;
		snprintf(ii.name, sizeof(ii.name), "eth0");
		snprintf(ii.netns_name, sizeof(ii.netns_name), "h%u", h + 1);
		snprintf(ii.kind, sizeof(ii.kind), "veth");
		emit(g, &ii);
		REC(st, FT_REC_IFACE_STATS);
		st.ts_ns = START_NS;
		st.netns = host_netns(h);
		st.ifindex = 2;
		st.phase = FT_STATS_START;
		st.rx_bytes = g->rx_bytes[h];
		st.tx_bytes = g->tx_bytes[h];
		st.rx_packets = g->rx_pkts[h];
		st.tx_packets = g->tx_pkts[h];
		emit(g, &st);
	}
	/* the slots the phase probes would have described */
	REC(sl, FT_REC_PHASE_SLOT);
	sl.slot = SL_ALLREDUCE;
	sl.lib_kind = FT_LIB_MPI;
	sl.op = FT_OP_ALLREDUCE;
	sl.flags = FT_SLOT_COLLECTIVE;
	snprintf(sl.lib, sizeof(sl.lib), "/usr/lib/x86_64-linux-gnu/libmpich.so.12");
	snprintf(sl.symbol, sizeof(sl.symbol), "PMPI_Allreduce");
	snprintf(sl.name, sizeof(sl.name), "allreduce");
	emit(g, &sl);
	REC(sl, FT_REC_PHASE_SLOT);
	sl.slot = SL_COMM_RANK;
	sl.lib_kind = FT_LIB_MPI;
	sl.op = FT_OP_COMM_INIT;
	snprintf(sl.lib, sizeof(sl.lib), "/usr/lib/x86_64-linux-gnu/libmpich.so.12");
	snprintf(sl.symbol, sizeof(sl.symbol), "PMPI_Comm_rank");
	snprintf(sl.name, sizeof(sl.name), "comm_rank");
	emit(g, &sl);
	if (o->steps) {
		REC(sl, FT_REC_PHASE_SLOT);
		sl.slot = SL_STEP;
		sl.lib_kind = FT_LIB_MARKER;
		sl.op = FT_OP_STEP;
		sl.flags = FT_SLOT_MARKER;
		snprintf(sl.lib, sizeof(sl.lib), "/usr/local/lib/libfabtrace_marker.so.1");
		snprintf(sl.symbol, sizeof(sl.symbol), "fabtrace_step_begin");
		snprintf(sl.name, sizeof(sl.name), "step");
		emit(g, &sl);
		REC(sl, FT_REC_PHASE_SLOT);
		sl.slot = SL_PHASE;
		sl.lib_kind = FT_LIB_MARKER;
		sl.op = FT_OP_MARK;
		sl.flags = FT_SLOT_MARKER;
		snprintf(sl.lib, sizeof(sl.lib), "/usr/local/lib/libfabtrace_marker.so.1");
		snprintf(sl.symbol, sizeof(sl.symbol), "fabtrace_phase_begin");
		snprintf(sl.name, sizeof(sl.name), "phase");
		emit(g, &sl);
	}
	for (unsigned r = 0; r < g->nranks; r++) {
		unsigned h = rank_host(g, r);
		struct ft_proc pr;
		struct ft_comm_info ci;
		struct ft_sock_owner so;

		REC(pr, FT_REC_PROC);
		pr.ts_ns = START_NS;
		pr.pid = rank_pid(r);
		pr.ppid = 3999;
		pr.netns = host_netns(h);
		pr.event = FT_PROC_EXISTING;
		snprintf(pr.comm, sizeof(pr.comm), "train");
		emit(g, &pr);
		REC(ci, FT_REC_COMM_INFO);
		ci.ts_ns = START_NS + 1 * MS;
		ci.comm = WORLD;
		ci.pid = rank_pid(r);
		ci.rank = (int32_t)r;
		ci.size = (int32_t)g->nranks;
		ci.slot = SL_COMM_RANK;
		emit(g, &ci);
		if (r % o->rpp == 0) {
			/* the host's first rank owns its ring flow: retransmits land on it */
			REC(so, FT_REC_SOCK_OWNER);
			so.ts_ns = START_NS + 2 * MS;
			so.flow = flow_of(h, o->hosts);
			so.pid = so.tid = rank_pid(r);
			snprintf(so.comm, sizeof(so.comm), "train");
			emit(g, &so);
		}
	}
}

/* Counter sampler: port, groups and names once; samples every ctr_period. */
struct ctr_def {
	const char *name;
	uint16_t cls, flags;
};

static const struct ctr_def hw_ctrs[4] = {
	{ "np_cnp_sent", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "rp_cnp_handled", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "np_ecn_marked_roce_packets", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "out_of_sequence", FT_CLS_RETRANS, FT_CTRF_PACKETS },
}, pc_ctrs[3] = {
	{ "port_xmit_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "port_rcv_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "port_xmit_wait", FT_CLS_CONGESTION, FT_CTRF_TICKS },
}, eth_ctrs[2] = {
	{ "rx_pause_ctrl_phy", FT_CLS_PAUSE, FT_CTRF_PACKETS },
	{ "tx_pause_ctrl_phy", FT_CLS_PAUSE, FT_CTRF_PACKETS },
};

static uint32_t group_id(unsigned h, unsigned k) { return h * 3 + k + 1; }

static void ctr_names(struct gen *g, uint32_t group, unsigned n, const struct ctr_def *t)
{
	for (unsigned i = 0; i < n; i++) {
		struct ft_ctr_name cn;

		REC(cn, FT_REC_CTR_NAME);
		cn.group = group;
		cn.index = i;
		cn.cls = t[i].cls;
		cn.flags = t[i].flags;
		snprintf(cn.name, sizeof(cn.name), "%s", t[i].name);
		emit(g, &cn);
	}
}

static void rdma_records(struct gen *g)
{
	for (unsigned h = 0; h < g->o.hosts; h++) {
		struct ft_rdma_port rp;
		struct ft_ctr_group cg;

		REC(rp, FT_REC_RDMA_PORT);
		rp.port_id = h;
		rp.port_num = 1;
		snprintf(rp.dev, sizeof(rp.dev), "mlx5_%u", h);
		snprintf(rp.netdev, sizeof(rp.netdev), "eth0");
		rp.netdev_netns = host_netns(h);
		rp.netdev_ifindex = 2;
		rp.state = 4;
		rp.phys_state = 5;
		rp.link_layer = FT_LL_ETHERNET;
		rp.width = 4;
		rp.rate_mbps = 100000;
		rp.active_mtu = 4096;
		rp.flags = FT_PORT_COUNTERS | FT_PORT_HW_COUNTERS;
		rp.lifespan_ms = 10;
		rp.node_guid = 0xb8cef60300000000ull + h;
		snprintf(rp.rate, sizeof(rp.rate), "100 Gb/sec (4X EDR)");
		snprintf(rp.fw_ver, sizeof(rp.fw_ver), "16.35.2000");
		snprintf(rp.hca_type, sizeof(rp.hca_type), "MT4119");
		emit(g, &rp);
		for (unsigned k = 0; k < 3; k++) {
			REC(cg, FT_REC_CTR_GROUP);
			cg.group = group_id(h, k);
			cg.kind = k == 0 ? FT_CTR_PORT_HW : k == 1 ? FT_CTR_PORT_COUNTERS : FT_CTR_ETHTOOL;
			cg.port_id = k == 2 ? ~0u : h;
			cg.netns = host_netns(h);
			cg.ifindex = 2;
			cg.ncounters = k == 0 ? 4 : k == 1 ? 3 : 2;
			cg.period_ns = g->o.ctr_period;
			if (k == 2)
				snprintf(cg.label, sizeof(cg.label), "eth0@h%u", h + 1);
			else
				snprintf(cg.label, sizeof(cg.label), "mlx5_%u/1", h);
			emit(g, &cg);
			ctr_names(g, cg.group, cg.ncounters, k == 0 ? hw_ctrs : k == 1 ? pc_ctrs : eth_ctrs);
		}
	}
}

static void ctr_sample(struct gen *g, uint64_t ts)
{
	for (unsigned h = 0; h < g->o.hosts; h++) {
		for (unsigned k = 0; k < 3; k++) {
			struct {
				struct ft_ctr_sample s;
				uint64_t v[4];
			} rec;
			unsigned n = k == 0 ? 4 : k == 1 ? 3 : 2;

			memset(&rec, 0, sizeof(rec));
			rec.s.hdr.type = FT_REC_CTR_SAMPLE;
			rec.s.hdr.size = (uint16_t)(sizeof(rec.s) + n * sizeof(uint64_t));
			rec.s.ts_ns = ts;
			rec.s.group = group_id(h, k);
			rec.s.n = n;
			rec.s.read_ns = 20000 + (uint32_t)jitter(g, 5000);
			for (unsigned i = 0; i < n; i++)
				rec.v[i] = k == 0 ? g->hw[h][i] : k == 1 ? g->pc[h][i] : g->eth[h][i];
			emit(g, &rec);
		}
	}
}

/* Samples due up to T (the counters grow between them as the periods add to them). */
static void ctr_until(struct gen *g, uint64_t t)
{
	if (!g->o.rdma)
		return;
	while (g->next_ctr <= t && g->next_ctr <= g->end_ns) {
		ctr_sample(g, g->next_ctr);
		g->next_ctr += g->o.ctr_period;
	}
}

static void bin(struct gen *g, unsigned h, int dir, uint64_t start, uint64_t bytes, uint32_t ce)
{
	struct ft_iface_bin b;
	uint32_t pkts = (uint32_t)((bytes + 1499) / 1500);

	/* counted by the interface whether or not the ring buffer lost the record */
	if (dir == FT_DIR_TX) {
		g->tx_bytes[h] += bytes;
		g->tx_pkts[h] += pkts;
	} else {
		g->rx_bytes[h] += bytes;
		g->rx_pkts[h] += pkts;
	}
	if (g->o.lost && start >= g->lost_from && start < g->lost_to) {
		g->lost_count++;
		return;
	}
	REC(b, FT_REC_IFACE_BIN);
	b.hdr.cpu = h % 2;
	b.start_ns = start;
	b.bytes = bytes;
	b.pkts = pkts;
	b.ce_pkts = ce < pkts ? ce : pkts;
	b.netns = host_netns(h);
	b.ifindex = 2;
	b.dir = (uint8_t)dir;
	emit(g, &b);
	g->ce_total += b.ce_pkts;
}

static void qbin(struct gen *g, unsigned h, uint64_t start, uint64_t bytes, bool congested)
{
	struct ft_qdisc_bin q;
	uint32_t pkts = (uint32_t)((bytes + 1499) / 1500);

	if (g->o.lost && start >= g->lost_from && start < g->lost_to)
		return;
	REC(q, FT_REC_QDISC_BIN);
	q.hdr.cpu = h % 2;
	q.start_ns = start;
	q.max_backlog = congested ? 250000 + jitter(g, 20000) : 3000 + jitter(g, 3000);
	q.max_qlen = (uint32_t)(q.max_backlog / 1500 + 1);
	q.sojourn_cnt = pkts ? pkts : 1;
	q.sojourn_max_ns = congested ? 2500 * US + jitter(g, 500 * US) : 15 * US + jitter(g, 10 * US);
	q.sojourn_sum_ns = q.sojourn_cnt * (q.sojourn_max_ns / 2);
	q.enq_pkts = pkts;
	q.enq_bytes = bytes;
	if (congested)
		g->qdrops[h] += 2;
	q.drops = (uint32_t)g->qdrops[h];
	q.netns = host_netns(h);
	q.ifindex = 2;
	q.handle = QDISC_HANDLE;
	q.parent = 0xffffffffu;
	snprintf(q.kind, sizeof(q.kind), "tbf");
	emit(g, &q);
}

static void phase_rec(struct gen *g, unsigned r, uint32_t slot, uint64_t start, uint64_t end, uint32_t flags,
		      uint64_t count, uint64_t seq, const char *name)
{
	struct ft_phase p;

	REC(p, FT_REC_PHASE);
	p.hdr.cpu = r % 2;
	p.start_ns = start;
	p.end_ns = end;
	p.count = count;
	p.pid = p.tid = rank_pid(r);
	p.netns = host_netns(rank_host(g, r));
	p.slot = slot;
	p.peer = -1;
	p.flags = flags;
	if (slot == SL_ALLREDUCE) {
		p.comm = WORLD;
		p.seq = seq;
		p.dtype_size = 4;
	}
	if (name)
		snprintf(p.name, sizeof(p.name), "%s", name);
	emit(g, &p);
}

/* One period: the collective SEQ on every rank, its traffic and whatever was injected. */
static void period(struct gen *g, uint64_t seq, uint64_t *entry, uint64_t *exit_)
{
	const struct opts *o = &g->o;
	uint64_t t0 = START_NS + OFFSET_NS + (seq - 1) * o->period, last = 0;
	bool congested = in_set(&o->congest, seq);
	unsigned n = g->nranks;
	/* ring allreduce: every rank sends 2(n-1)/n of the buffer */
	uint64_t per_rank = n > 1 ? o->size * 2 * (n - 1) / n : o->size;
	uint64_t host_bytes = per_rank * o->rpp;
	uint64_t xfer = host_bytes * 8 * 1000 / o->link_mbit + 50 * US;  /* ns at the link rate, + latency */
	unsigned ch = o->congest_host - 1;

	if (congested)
		xfer *= o->congest_factor;
	for (unsigned r = 0; r < n; r++) {
		uint64_t j = jitter(g, 20 * US);
		uint64_t comp = o->compute + jitter(g, 40 * US);

		if ((int)r == o->straggler && in_set(&o->straggle, seq))
			comp += o->straggle_ns;
		entry[r] = t0 + j + comp + 1 * US;
		if (o->steps) {
			phase_rec(g, r, SL_STEP, t0 + j, t0 + j, FT_PHASE_MARK_BEGIN, seq - 1, 0, NULL);
			phase_rec(g, r, SL_PHASE, t0 + j, t0 + j, FT_PHASE_MARK_BEGIN, 0, 0, "compute");
			phase_rec(g, r, SL_PHASE, t0 + j + comp, t0 + j + comp, FT_PHASE_MARK_END, 0, 0, "compute");
		}
		if (entry[r] > last)
			last = entry[r];
	}
	/* traffic: every host sends and receives while every rank is in */
	{
		uint64_t b0 = last / o->bin * o->bin, end = last + xfer;

		for (uint64_t b = b0; b < end; b += o->bin) {
			uint64_t from = b > last ? b : last, to = b + o->bin < end ? b + o->bin : end;
			uint64_t part = host_bytes * (to - from) / xfer;

			if (!part)
				continue;
			for (unsigned h = 0; h < o->hosts; h++) {
				bool ce_here = congested && o->hosts > 1 && h == (ch + 1) % o->hosts;

				bin(g, h, FT_DIR_TX, b, part, 0);
				bin(g, h, FT_DIR_RX, b, part, ce_here ? (uint32_t)(part / 1500 / 4 + 1) : 0);
			}
			if (o->hosts)
				qbin(g, ch, b, part, congested);
		}
	}
	for (unsigned r = 0; r < n; r++) {
		exit_[r] = last + xfer + jitter(g, 10 * US);
		phase_rec(g, r, SL_ALLREDUCE, entry[r], exit_[r], 0, o->size / 4, seq, NULL);
		if (o->steps) {
			uint64_t a = exit_[r] + 1 * US, b = a + o->optimizer + jitter(g, 20 * US);

			phase_rec(g, r, SL_PHASE, a, a, FT_PHASE_MARK_BEGIN, 0, 0, "optimizer");
			phase_rec(g, r, SL_PHASE, b, b, FT_PHASE_MARK_END, 0, 0, "optimizer");
			phase_rec(g, r, SL_STEP, b + 1 * US, b + 1 * US, FT_PHASE_MARK_END, seq - 1, 0, NULL);
		}
	}
	if (congested) {
		/* the evidence: drops at the queue, retransmits on the host's flow, counter storms */
		struct ft_flow fl = flow_of(ch, o->hosts);

		for (unsigned i = 0; i < 12; i++) {
			struct ft_drop d;

			REC(d, FT_REC_DROP);
			d.ts_ns = last + 200 * US + i * (xfer / 16);
			d.location = 0xffffffff81a00000ull;
			d.netns = host_netns(ch);
			d.ifindex = 2;
			d.reason = REASON_QDISC_DROP;
			d.protocol = 0x0800;
			emit(g, &d);
		}
		for (unsigned i = 0; i < 4; i++) {
			struct ft_retrans rt;

			REC(rt, FT_REC_RETRANS);
			rt.ts_ns = last + 600 * US + i * (xfer / 6);
			rt.flow = fl;
			rt.snd_cwnd = 10;
			rt.srtt_us = 2500;
			rt.ca_state = 3;
			rt.trigger = FT_RTX_FAST;
			rt.sk_state = 1;
			rt.segs = 1;
			emit(g, &rt);
		}
		{
			struct ft_cong_state cs;

			REC(cs, FT_REC_CONG_STATE);
			cs.ts_ns = last + 600 * US;
			cs.flow = fl;
			cs.old_state = 0;
			cs.new_state = 3;
			emit(g, &cs);
			cs.ts_ns = last + xfer;
			cs.old_state = 3;
			cs.new_state = 0;
			emit(g, &cs);
		}
		ctr_until(g, last);
		g->hw[ch][0] += 40000 + jitter(g, 1000);        /* CNP storm at the congested host */
		g->hw[(ch + 1) % o->hosts][1] += 40000;
		g->hw[(ch + 1) % o->hosts][2] += 38000;
		g->pc[ch][2] += 500000;                          /* xmit wait */
		g->eth[ch][0] += 20000;                          /* pause frames */
		g->hw[ch][3] += 3000;                            /* out of sequence */
	}
	for (unsigned h = 0; h < o->hosts; h++) {
		g->pc[h][0] += host_bytes / 4;                   /* RDMA data counters count octets / 4 */
		g->pc[h][1] += host_bytes / 4;
	}
}

static void lost_rec(struct gen *g, uint64_t ts, uint32_t cpu, uint64_t lost)
{
	struct ft_lost l;

	REC(l, FT_REC_LOST);
	l.ts_ns = ts;
	l.lost = lost;
	l.source = FT_SRC_NET;
	l.cpu = cpu;
	emit(g, &l);
}

static int generate(struct gen *g)
{
	const struct opts *o = &g->o;
	uint64_t *entry = calloc(g->nranks, sizeof(*entry)), *exit_ = calloc(g->nranks, sizeof(*exit_));
	struct ft_file_header hdr;
	char err[256];
	int ret;

	if (!entry || !exit_) {
		free(entry);
		free(exit_);
		return -ENOMEM;
	}
	if (o->only_host > o->hosts) {
		fprintf(stderr, "synthcap: --only-host %u: there are %u hosts\n", o->only_host, o->hosts);
		free(entry);
		free(exit_);
		return -EINVAL;
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.start_mono_ns = START_NS;
	hdr.realtime_offset_ns = EPOCH_2024 * (int64_t)SEC - (int64_t)START_NS;
	hdr.boottime_offset_ns = 5 * (int64_t)SEC;
	hdr.bin_ns = o->bin;
	hdr.probes = (1ull << FT_PROBE_MAX) - 1;
	hdr.ncpus = 2;
	if (o->only_host)
		snprintf(hdr.hostname, sizeof(hdr.hostname), "synth-h%u", o->only_host);
	else
		snprintf(hdr.hostname, sizeof(hdr.hostname), "synth");
	snprintf(hdr.kernel, sizeof(hdr.kernel), "6.1.0-synth");
	snprintf(hdr.tool_version, sizeof(hdr.tool_version), "%s", FT_VERSION);
	snprintf(hdr.command, sizeof(hdr.command), "%s", o->cmdline);
	ret = capture__create(&g->w, o->out, &hdr, (uid_t)-1, (gid_t)-1, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "synthcap: %s\n", err);
		free(entry);
		free(exit_);
		return ret;
	}
	setup_records(g);
	if (o->rdma)
		rdma_records(g);
	for (unsigned c = 0; c < 2; c++)
		lost_rec(g, START_NS, c, 0);
	g->next_ctr = START_NS;
	for (uint64_t seq = 1; seq <= g->ncoll && !g->err; seq++) {
		ctr_until(g, START_NS + OFFSET_NS + (seq - 1) * o->period);
		if (o->lost && seq == o->lost_seq)
			lost_rec(g, g->lost_from, 1, 0);  /* a reading just before: the gap starts here */
		period(g, seq, entry, exit_);
		if (o->lost && seq == o->lost_seq)
			lost_rec(g, g->lost_to, 1, g->lost_count ? g->lost_count : 1);
	}
	ctr_until(g, g->end_ns);
	if (o->lost)
		for (unsigned c = 0; c < 2; c++)
			lost_rec(g, g->end_ns, c, c == 1 ? (g->lost_count ? g->lost_count : 1) : 0);
	for (unsigned h = 0; h < o->hosts; h++) {
		struct ft_iface_stats st;

		REC(st, FT_REC_IFACE_STATS);
		st.ts_ns = g->end_ns;
		st.netns = host_netns(h);
		st.ifindex = 2;
		st.phase = FT_STATS_STOP;
		st.rx_bytes = g->rx_bytes[h];
		st.tx_bytes = g->tx_bytes[h];
		st.rx_packets = g->rx_pkts[h];
		st.tx_packets = g->tx_pkts[h];
		emit(g, &st);
	}
	if (o->hosts > 1 && g->ce_total) {
		struct ft_ce_flow cf;
		unsigned h = o->congest_host % o->hosts;

		REC(cf, FT_REC_CE_FLOW);
		cf.flow = flow_of(h, o->hosts);
		cf.ce_pkts = g->ce_total;
		cf.first_ns = START_NS + OFFSET_NS;
		cf.last_ns = g->end_ns - 1;
		emit(g, &cf);
	}
	for (unsigned p = 0; p < FT_PROBE_MAX; p++) {
		struct ft_coverage cv;

		REC(cv, FT_REC_COVERAGE);
		cv.probe = p;
		cv.known = 1;
		cv.hits = cv.runs = 1000 + p;
		emit(g, &cv);
	}
	{
		struct ft_end e;

		REC(e, FT_REC_END);
		e.ts_ns = g->end_ns;
		e.records = g->records;
		e.stop_reason = g->o.stop_reason;
		emit(g, &e);
	}
	ret = g->err;
	if (ret)
		fprintf(stderr, "synthcap: %s: writing: %s\n", o->out, capture__last_error(g->w));
	{
		int c = capture__close(g->w);

		if (!ret && c) {
			fprintf(stderr, "synthcap: %s: closing: %s\n", o->out, strerror(-c));
			ret = c;
		}
	}
	free(entry);
	free(exit_);
	return ret;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: synthcap -o FILE [OPTIONS]\n"
		"\n"
		"Write a deterministic synthetic fabtrace capture: H hosts (netns h1..hH, eth0),\n"
		"R MPI ranks per host, one allreduce per period inside marker steps, the ring\n"
		"traffic in bins, an injected congested link (queue, QDISC_DROPs, retransmits,\n"
		"CE, a CNP/pause storm in the RDMA/NIC counters: verdict network), a straggler\n"
		"rank (verdict rank) and a lost-event gap.  Same options, same bytes.\n"
		"\n"
		"  -o, --output FILE        the capture (required)\n"
		"  -d, --duration D         capture length (default 1s; 3600s = an hour)\n"
		"      --hosts N            hosts (default 2)\n"
		"      --ranks-per-host N   ranks on each host (default 1)\n"
		"      --bin D, --bin-us N  bin width (default 100us)\n"
		"      --period D           one collective per period (default 100ms)\n"
		"      --size BYTES         allreduce buffer per rank (default 1M)\n"
		"      --compute D          compute before each collective (default 20ms)\n"
		"      --optimizer D        optimizer phase after it (default 2ms)\n"
		"      --link-mbit N        link speed of every eth0 (default 10000)\n"
		"      --congest H:SEQS     congest host H (1-based) during collectives SEQS:\n"
		"                           N, N-M, N/K (N, N+K, ...) or none (default 2:2/10)\n"
		"      --congest-factor F   the congested transfer takes F times longer (default 8)\n"
		"      --straggler R:SEQS[:D]  rank R computes D longer (default 30ms) during SEQS\n"
		"                           (default: the last rank, 5/10); none to disable\n"
		"      --no-steps           no marker steps / named phases\n"
		"      --no-rdma            no RDMA port / counter groups / samples\n"
		"      --ctr-period D       counter sampling period (default 100ms)\n"
		"      --no-lost            no lost-event gap\n"
		"      --lost-seq N         lose the bins of the first half of collective N's transfer\n"
		"                           (default: the one at 60%% of the capture)\n"
		"      --only-host H        write only host H's records (1-based), as its own\n"
"                           recorder would: per-node captures for fabtrace merge\n"
"      --stop-reason N      the END's stop reason (0 duration, 1 signal, 2 command\n"
"                           exited, 3 error, 4 mixed; default 0)\n"
"      --seed N             jitter seed (default 1)\n"
		"      --events N           size the capture to about N records (sets the duration)\n"
		"  -q, --quiet              no summary line\n"
		"  -h, --help\n"
		"\n"
		"Records per period ~ ranks x (1 + 7 with steps) + hosts x 2 x bins of the\n"
		"transfer + 1 qdisc bin per transfer bin, plus 3 x hosts counter samples per\n"
		"--ctr-period; --events does that arithmetic.\n"
		"\n"
		"Examples:\n"
		"  synthcap -o tiny.ftr --duration 400ms --congest 2:2 --straggler 1:3\n"
		"  synthcap -o hour.ftr --duration 3600 --hosts 4 --bin-us 100\n"
		"  synthcap -o bench.ftr --hosts 8 --events 1000000\n");
}

static int num(const char *s, unsigned long long min, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s[0] || s[0] == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Duration: "100ms", bare numbers in seconds. */
static int dur(const char *s, uint64_t *out)
{
	return parse_duration(s, SEC, out) ? -1 : 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	enum { O_HOSTS = 256, O_RPP, O_BIN, O_BIN_US, O_PERIOD, O_SIZE, O_COMPUTE, O_OPT, O_LINK, O_CONGEST,
	       O_CFACTOR, O_STRAG, O_NOSTEPS, O_NORDMA, O_CTRP, O_NOLOST, O_LOSTSEQ, O_SEED, O_EVENTS,
	       O_ONLY, O_STOP };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "duration", required_argument, NULL, 'd' },
		{ "hosts", required_argument, NULL, O_HOSTS }, { "ranks-per-host", required_argument, NULL, O_RPP },
		{ "bin", required_argument, NULL, O_BIN }, { "bin-us", required_argument, NULL, O_BIN_US },
		{ "period", required_argument, NULL, O_PERIOD }, { "size", required_argument, NULL, O_SIZE },
		{ "compute", required_argument, NULL, O_COMPUTE }, { "optimizer", required_argument, NULL, O_OPT },
		{ "link-mbit", required_argument, NULL, O_LINK }, { "congest", required_argument, NULL, O_CONGEST },
		{ "congest-factor", required_argument, NULL, O_CFACTOR },
		{ "straggler", required_argument, NULL, O_STRAG }, { "no-steps", no_argument, NULL, O_NOSTEPS },
		{ "no-rdma", no_argument, NULL, O_NORDMA }, { "ctr-period", required_argument, NULL, O_CTRP },
		{ "no-lost", no_argument, NULL, O_NOLOST }, { "lost-seq", required_argument, NULL, O_LOSTSEQ },
		{ "seed", required_argument, NULL, O_SEED }, { "events", required_argument, NULL, O_EVENTS },
		{ "only-host", required_argument, NULL, O_ONLY },
		{ "stop-reason", required_argument, NULL, O_STOP },
		{ "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *strag = NULL, *congest = "2:2/10";
	unsigned long long v;
	size_t k = 0;
	int c;

	*o = (struct opts){ .duration = SEC, .bin = 100 * US, .period = 100 * MS, .compute = 20 * MS,
			    .optimizer = 2 * MS, .ctr_period = 100 * MS, .seed = 1, .size = 1 << 20, .hosts = 2,
			    .rpp = 1, .link_mbit = 10000, .congest_factor = 8, .steps = true, .rdma = true,
			    .lost = true, .straggle_ns = 30 * MS };
	/* the header's command line: the options without the output path */
	k += (size_t)snprintf(o->cmdline, sizeof(o->cmdline), "synthcap");
	for (int i = 1; i < argc && k < sizeof(o->cmdline); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--output=", 9) || !strncmp(argv[i], "-o", 2))
			continue;
		k += (size_t)snprintf(o->cmdline + k, sizeof(o->cmdline) - k, " %s", argv[i]);
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:d:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'd': if (dur(optarg, &o->duration)) goto bad; break;
		case O_HOSTS: if (num(optarg, 1, 250, &v)) goto bad; o->hosts = (unsigned)v; break;
		case O_RPP: if (num(optarg, 1, 64, &v)) goto bad; o->rpp = (unsigned)v; break;
		case O_BIN: if (dur(optarg, &o->bin) || o->bin < US) goto bad; break;
		case O_BIN_US: if (num(optarg, 1, 1000000, &v)) goto bad; o->bin = v * US; break;
		case O_PERIOD: if (dur(optarg, &o->period)) goto bad; break;
		case O_SIZE: if (parse_size(optarg, &o->size) || o->size < 4) goto bad; break;
		case O_COMPUTE: if (dur(optarg, &o->compute)) goto bad; break;
		case O_OPT: if (dur(optarg, &o->optimizer)) goto bad; break;
		case O_LINK: if (num(optarg, 1, 10000000, &v)) goto bad; o->link_mbit = (unsigned)v; break;
		case O_CONGEST: congest = optarg; break;
		case O_CFACTOR: if (num(optarg, 1, 1000, &v)) goto bad; o->congest_factor = (unsigned)v; break;
		case O_STRAG: strag = optarg; break;
		case O_NOSTEPS: o->steps = false; break;
		case O_NORDMA: o->rdma = false; break;
		case O_CTRP: if (dur(optarg, &o->ctr_period) || o->ctr_period < MS) goto bad; break;
		case O_NOLOST: o->lost = false; break;
		case O_LOSTSEQ: if (num(optarg, 1, UINT32_MAX, &v)) goto bad; o->lost_seq = v; break;
		case O_SEED: if (num(optarg, 0, UINT64_MAX, &v)) goto bad; o->seed = v; break;
		case O_EVENTS: if (num(optarg, 100, 1000000000000ull, &v)) goto bad; o->events = v; break;
		case O_ONLY: if (num(optarg, 1, 250, &v)) goto bad; o->only_host = (unsigned)v; break;
		case O_STOP: if (num(optarg, 0, FT_STOP_MIXED, &v)) goto bad; o->stop_reason = (unsigned)v; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "synthcap: unknown option or missing value '%s'; see --help\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc || !o->out) {
		fprintf(stderr, "synthcap: %s; see --help\n", optind != argc ? "unexpected argument" : "give -o FILE");
		return -1;
	}
	/* --congest H:SEQS */
	if (strcmp(congest, "none") != 0) {
		const char *colon = strchr(congest, ':');

		if (!colon || colon - congest > 8) {
			fprintf(stderr, "synthcap: --congest '%s': give HOST:SEQS, e.g. 2:3 or 2:2/10\n", congest);
			return -1;
		}
		{
			char h[16];

			memcpy(h, congest, (size_t)(colon - congest));
			h[colon - congest] = '\0';
			if (num(h, 1, o->hosts, &v) || parse_seqset(colon + 1, &o->congest)) {
				fprintf(stderr, "synthcap: --congest '%s': host 1..%u and SEQS N, N-M or N/K\n", congest,
					o->hosts);
				return -1;
			}
			o->congest_host = (unsigned)v;
		}
	}
	if (!o->congest_host)
		o->congest_host = o->hosts > 1 ? 2 : 1;
	/* --straggler R:SEQS[:D] */
	o->straggler = (int)(o->hosts * o->rpp) - 1;
	parse_seqset("5/10", &o->straggle);
	if (strag && !strcmp(strag, "none")) {
		o->straggler = -1;
	} else if (strag) {
		char buf[64], *a, *b;

		snprintf(buf, sizeof(buf), "%s", strag);
		a = strchr(buf, ':');
		if (!a) {
			fprintf(stderr, "synthcap: --straggler '%s': give RANK:SEQS[:DELAY], e.g. 1:3:30ms\n", strag);
			return -1;
		}
		*a++ = '\0';
		b = strchr(a, ':');
		if (b)
			*b++ = '\0';
		if (num(buf, 0, o->hosts * o->rpp - 1, &v) || parse_seqset(a, &o->straggle) || (b && dur(b, &o->straggle_ns))) {
			fprintf(stderr, "synthcap: --straggler '%s': rank 0..%u, SEQS N, N-M or N/K, delay e.g. 30ms\n",
				strag, o->hosts * o->rpp - 1);
			return -1;
		}
		o->straggler = (int)v;
	}
	return 0;
bad:
	fprintf(stderr, "synthcap: bad value '%s' for %s; see --help\n", optarg, argv[optind - 1]);
	return -1;
}

int main(int argc, char **argv)
{
	struct gen g;
	uint64_t busy, per_period, host_bytes, xfer_max;
	int ret;

	memset(&g, 0, sizeof(g));
	if (parse(&g.o, argc, argv))
		return 2;
	g.nranks = g.o.hosts * g.o.rpp;
	host_bytes = (g.nranks > 1 ? g.o.size * 2 * (g.nranks - 1) / g.nranks : g.o.size) * g.o.rpp;
	xfer_max = (host_bytes * 8 * 1000 / g.o.link_mbit + 50 * US) * g.o.congest_factor;
	busy = g.o.compute + 40 * US + 20 * US + (g.o.straggler >= 0 ? g.o.straggle_ns : 0) + xfer_max + 10 * US +
	       (g.o.steps ? g.o.optimizer + 22 * US : 0);
	if (busy >= g.o.period) {
		fprintf(stderr, "synthcap: a period of %" PRIu64 " us is too short for compute + straggler delay + "
			"transfer + optimizer (%" PRIu64 " us); raise --period or lower the others\n",
			g.o.period / US, busy / US);
		return 2;
	}
	if (g.o.events) {
		/* records per period, as generate() writes them: phases, bins (a congested transfer
		 * takes congest_factor times the bins, on one collective in `every`), evidence, samples */
		uint64_t xfer = host_bytes * 8 * 1000 / g.o.link_mbit + 50 * US;
		/* whole bins, as the generator writes them */
		uint64_t nbins = xfer / g.o.bin + 2, ncbins = xfer * g.o.congest_factor / g.o.bin + 2;
		double bins = (double)nbins, every = g.o.congest.every ? (double)g.o.congest.every : 0;
		double per = (double)g.nranks * (g.o.steps ? 8 : 1) + bins * (2.0 * g.o.hosts + 1);

		if (every > 0)
			per += ((double)ncbins - bins) * (2.0 * g.o.hosts + 1) / every +
			       18.0 / every;
		if (g.o.rdma)
			per += 3.0 * g.o.hosts * (double)g.o.period / (double)g.o.ctr_period;
		per_period = (uint64_t)per + 1;
		g.o.duration = OFFSET_NS + (g.o.events + per_period - 1) / per_period * g.o.period;
	}
	if (g.o.duration <= OFFSET_NS + busy) {
		fprintf(stderr, "synthcap: --duration must leave room for one period (> %" PRIu64 " ms)\n",
			(OFFSET_NS + busy) / MS + 1);
		return 2;
	}
	g.end_ns = START_NS + g.o.duration;
	g.ncoll = (g.o.duration - OFFSET_NS - busy) / g.o.period + 1;
	g.rng = g.o.seed;
	if (g.o.lost) {
		uint64_t last, xfer;

		if (!g.o.lost_seq)
			g.o.lost_seq = g.ncoll * 6 / 10 ? g.ncoll * 6 / 10 : 1;
		if (g.o.lost_seq > g.ncoll) {
			fprintf(stderr, "synthcap: --lost-seq %" PRIu64 ": only %" PRIu64 " collectives\n", g.o.lost_seq,
				g.ncoll);
			return 2;
		}
		/* roughly the first half of that collective's transfer (entries vary by jitter) */
		last = START_NS + OFFSET_NS + (g.o.lost_seq - 1) * g.o.period + g.o.compute;
		xfer = host_bytes * 8 * 1000 / g.o.link_mbit;
		g.lost_from = last / g.o.bin * g.o.bin;
		g.lost_to = g.lost_from + (xfer / 2 / g.o.bin + 1) * g.o.bin;
	}
	g.tx_bytes = calloc(g.o.hosts, sizeof(uint64_t));
	g.tx_pkts = calloc(g.o.hosts, sizeof(uint64_t));
	g.rx_bytes = calloc(g.o.hosts, sizeof(uint64_t));
	g.rx_pkts = calloc(g.o.hosts, sizeof(uint64_t));
	g.qdrops = calloc(g.o.hosts, sizeof(uint64_t));
	g.hw = calloc(g.o.hosts, sizeof(*g.hw));
	g.pc = calloc(g.o.hosts, sizeof(*g.pc));
	g.eth = calloc(g.o.hosts, sizeof(*g.eth));
	if (!g.tx_bytes || !g.tx_pkts || !g.rx_bytes || !g.rx_pkts || !g.qdrops || !g.hw || !g.pc || !g.eth) {
		fprintf(stderr, "synthcap: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned h = 0; h < g.o.hosts; h++) {
		/* counters that were already running when "recording" began */
		g.tx_bytes[h] = g.rx_bytes[h] = 1000000000ull * (h + 1);
		g.tx_pkts[h] = g.rx_pkts[h] = 1000000ull * (h + 1);
		g.pc[h][0] = g.pc[h][1] = 5000000ull * (h + 1);
	}
	ret = generate(&g);
out:
	if (!ret && !g.o.quiet)
		fprintf(stderr, "synthcap: wrote %s: %" PRIu64 " records, %" PRIu64 " collectives on %u ranks (%u hosts), "
			"%.3f s%s\n", g.o.out, g.records, g.ncoll, g.nranks, g.o.hosts, (double)g.o.duration / 1e9,
			g.o.lost ? ", with a lost-event gap" : "");
	free(g.tx_bytes);
	free(g.tx_pkts);
	free(g.rx_bytes);
	free(g.rx_pkts);
	free(g.qdrops);
	free(g.hw);
	free(g.pc);
	free(g.eth);
	return ret ? 1 : 0;
}
