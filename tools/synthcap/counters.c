// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap: the counter sampler's records (synthcap.h): per host an RDMA
 * port and three counter groups (hw counters, port counters, ethtool),
 * their names once, then samples every --ctr-period of counters that the
 * periods make grow (a CNP and pause storm where a link is congested).
 */
#include <stdio.h>

#include "tools/synthcap/synthcap.h"

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

void rdma_records(struct gen *g)
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
void ctr_until(struct gen *g, uint64_t t)
{
	if (!g->o.rdma)
		return;
	while (g->next_ctr <= t && g->next_ctr <= g->end_ns) {
		ctr_sample(g, g->next_ctr);
		g->next_ctr += g->o.ctr_period;
	}
}
