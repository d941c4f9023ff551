// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap's scenario (synthcap.h): the capture from its header to its end
 * record, one period per collective: each rank's compute, marker steps and
 * allreduce, every host's ring traffic in bins, and what is injected (a
 * congested link with its evidence, a straggler, a lost-event gap).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "tools/synthcap/synthcap.h"

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

int generate(struct gen *g)
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
