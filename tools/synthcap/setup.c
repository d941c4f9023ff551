// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap: the records that describe the run, written once at the start
 * (synthcap.h): the probes, each host's interface and its counters at the
 * start, the phase slots, the ranks' processes, communicators and sockets.
 */
#include <stdio.h>

#include "probes/probe_names.h"
#include "tools/synthcap/synthcap.h"

void setup_records(struct gen *g)
{
	const struct opts *o = &g->o;
	struct ft_drop_reason dr;
	struct ft_phase_slot sl;

	for (unsigned p = 0; p < FT_PROBE_MAX; p++) {
		struct ft_probe_info pi;

		REC(pi, FT_REC_PROBE);
		pi.id = p;
		pi.attached = 1;
		snprintf(pi.name, sizeof(pi.name), "%s", probe__name(p));
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
