// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where each record type keeps its CLOCK_MONOTONIC times and the ids a
 * merge renumbers (records.h, struct capture_rec_fields): what retime.c
 * moves to another clock and id space, and what `info` takes a capture's
 * span from.  A type with neither has no row.
 */
#include <stddef.h>

#include "userspace/capture/records.h"

#define AT(rec, field) ((uint16_t)offsetof(struct rec, field))

static const struct capture_rec_fields fields[CAPTURE_REC_TYPES] = {
	[FT_REC_IFACE_BIN] = { .time = { AT(ft_iface_bin, start_ns) }, .bin = true,
			       .netns = AT(ft_iface_bin, netns) },
	[FT_REC_QDISC_BIN] = { .time = { AT(ft_qdisc_bin, start_ns) }, .bin = true,
			       .netns = AT(ft_qdisc_bin, netns) },
	[FT_REC_DROP] = { .time = { AT(ft_drop, ts_ns) }, .netns = AT(ft_drop, netns) },
	[FT_REC_RETRANS] = { .time = { AT(ft_retrans, ts_ns) }, .netns = AT(ft_retrans, flow.netns) },
	[FT_REC_CONG_STATE] = { .time = { AT(ft_cong_state, ts_ns) }, .netns = AT(ft_cong_state, flow.netns) },
	[FT_REC_TCP_SAMPLE] = { .time = { AT(ft_tcp_sample, ts_ns) }, .netns = AT(ft_tcp_sample, flow.netns) },
	[FT_REC_PHASE] = { .time = { AT(ft_phase, start_ns), AT(ft_phase, end_ns) },
			   .netns = AT(ft_phase, netns), .pid = { AT(ft_phase, pid), AT(ft_phase, tid) },
			   .slot = AT(ft_phase, slot) },
	[FT_REC_REQ_DONE] = { .time = { AT(ft_req_done, ts_ns) },
			      .pid = { AT(ft_req_done, pid), AT(ft_req_done, tid) },
			      .slot = AT(ft_req_done, slot) },
	[FT_REC_COMM_INFO] = { .time = { AT(ft_comm_info, ts_ns) }, .pid = { AT(ft_comm_info, pid) },
			       .slot = AT(ft_comm_info, slot) },
	[FT_REC_PROC] = { .time = { AT(ft_proc, ts_ns) }, .netns = AT(ft_proc, netns),
			  .pid = { AT(ft_proc, pid), AT(ft_proc, ppid) } },
	[FT_REC_SOCK_OWNER] = { .time = { AT(ft_sock_owner, ts_ns) }, .netns = AT(ft_sock_owner, flow.netns),
				.pid = { AT(ft_sock_owner, pid), AT(ft_sock_owner, tid) } },
	[FT_REC_IFACE] = { .netns = AT(ft_iface_info, netns) },
	[FT_REC_IFACE_STATS] = { .time = { AT(ft_iface_stats, ts_ns) }, .netns = AT(ft_iface_stats, netns) },
	[FT_REC_CE_FLOW] = { .time = { AT(ft_ce_flow, first_ns), AT(ft_ce_flow, last_ns) },
			     .netns = AT(ft_ce_flow, flow.netns) },
	[FT_REC_LOST] = { .time = { AT(ft_lost, ts_ns) } },
	[FT_REC_PHASE_SLOT] = { .slot = AT(ft_phase_slot, slot) },
	[FT_REC_RDMA_PORT] = { .netns = AT(ft_rdma_port, netdev_netns), .port = AT(ft_rdma_port, port_id) },
	[FT_REC_CTR_GROUP] = { .netns = AT(ft_ctr_group, netns), .group = AT(ft_ctr_group, group),
			       .port = AT(ft_ctr_group, port_id) },
	[FT_REC_CTR_NAME] = { .group = AT(ft_ctr_name, group) },
	[FT_REC_CTR_SAMPLE] = { .time = { AT(ft_ctr_sample, ts_ns) }, .group = AT(ft_ctr_sample, group) },
	[FT_REC_SAMPLER] = { .time = { AT(ft_sampler_event, ts_ns) }, .group = AT(ft_sampler_event, group) },
	/* and its flow's namespace, and a rank's pid in id (retime.c) */
	[FT_REC_CONFIG] = { .time = { AT(ft_config, ts_ns) }, .netns = AT(ft_config, netns) },
	/* and the snapshot's window, from_ns and to_ns (retime.c) */
	[FT_REC_TRIGGER] = { .time = { AT(ft_trigger, mono_ns), AT(ft_trigger, received_ns) },
			     .pid = { AT(ft_trigger, sender_pid) } },
	[FT_REC_PROBE_SPAN] = { .time = { AT(ft_probe_span, ts_ns) } },
	[FT_REC_SCHED_WAIT] = { .time = { AT(ft_sched_wait, start_ns), AT(ft_sched_wait, end_ns) },
				.netns = AT(ft_sched_wait, netns), .pid = { AT(ft_sched_wait, pid) } },
	[FT_REC_HOST_ID] = { .netns = AT(ft_host_id, netns) },
	[FT_REC_CLOCK] = { .time = { AT(ft_clock, mono_ns) } },
	[FT_REC_HOST_NETNS] = { .netns = AT(ft_host_netns, netns) },
	[FT_REC_END] = { .time = { AT(ft_end, ts_ns) } },
};

const struct capture_rec_fields *capture__rec_fields(uint16_t type)
{
	static const struct capture_rec_fields none;

	return type < CAPTURE_REC_TYPES ? &fields[type] : &none;
}

int capture__rec_times(const struct ft_rec_hdr *rec, uint64_t t[2])
{
	const struct capture_rec_fields *f = capture__rec_fields(rec->type);
	int n = 0;

	t[0] = t[1] = 0;
	for (int i = 0; i < 2; i++)
		if (f->time[i])
			t[n++] = *(const uint64_t *)(const void *)((const uint8_t *)rec + f->time[i]);
	return n;
}
