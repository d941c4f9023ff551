// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Build-time checks of the ABI in bpf/fabtrace.h.  The kernel writes these
 * structs into the ring buffer and the recorder copies them into capture
 * files byte for byte, so any change of size or layout must be deliberate:
 * it changes the capture format (docs/capture-format.md) and needs a version
 * bump or a new record type.  If one of these asserts fires, you changed the
 * ABI; update the format document and these numbers together.
 */
#include <stddef.h>

#include "bpf/fabtrace.h"

#define ABI_SIZE(type, bytes)                                                   \
	_Static_assert(sizeof(struct type) == (bytes), #type " size changed");    \
	_Static_assert(sizeof(struct type) % 8 == 0, #type " not a multiple of 8")
#define ABI_OFF(type, field, off)                                               \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " moved")

/* every record starts with the common header */
ABI_SIZE(ft_rec_hdr, 8);
ABI_OFF(ft_rec_hdr, type, 0);
ABI_OFF(ft_rec_hdr, size, 2);
ABI_OFF(ft_rec_hdr, cpu, 4);

ABI_SIZE(ft_iface_bin, 48);
ABI_OFF(ft_iface_bin, start_ns, 8);
ABI_OFF(ft_iface_bin, bytes, 16);
ABI_OFF(ft_iface_bin, pkts, 24);
ABI_OFF(ft_iface_bin, ce_pkts, 28);
ABI_OFF(ft_iface_bin, netns, 32);
ABI_OFF(ft_iface_bin, ifindex, 36);
ABI_OFF(ft_iface_bin, dir, 40);

ABI_SIZE(ft_qdisc_bin, 96);
ABI_OFF(ft_qdisc_bin, start_ns, 8);
ABI_OFF(ft_qdisc_bin, max_backlog, 16);
ABI_OFF(ft_qdisc_bin, sojourn_max_ns, 40);
ABI_OFF(ft_qdisc_bin, sojourn_cnt, 48);
ABI_OFF(ft_qdisc_bin, drops, 60);
ABI_OFF(ft_qdisc_bin, netns, 64);
ABI_OFF(ft_qdisc_bin, ifindex, 68);
ABI_OFF(ft_qdisc_bin, handle, 72);
ABI_OFF(ft_qdisc_bin, parent, 76);
ABI_OFF(ft_qdisc_bin, kind, 80);

ABI_SIZE(ft_drop, 40);
ABI_OFF(ft_drop, ts_ns, 8);
ABI_OFF(ft_drop, location, 16);
ABI_OFF(ft_drop, netns, 24);
ABI_OFF(ft_drop, ifindex, 28);
ABI_OFF(ft_drop, reason, 32);
ABI_OFF(ft_drop, protocol, 36);

/* ft_flow is embedded, not a record: 48 bytes, 4-byte aligned */
_Static_assert(sizeof(struct ft_flow) == 48, "ft_flow size changed");
ABI_OFF(ft_flow, saddr, 0);
ABI_OFF(ft_flow, daddr, 16);
ABI_OFF(ft_flow, sport, 32);
ABI_OFF(ft_flow, dport, 34);
ABI_OFF(ft_flow, family, 36);
ABI_OFF(ft_flow, proto, 37);
ABI_OFF(ft_flow, netns, 40);
ABI_OFF(ft_flow, ifindex, 44);

ABI_SIZE(ft_retrans, 88);
ABI_OFF(ft_retrans, ts_ns, 8);
ABI_OFF(ft_retrans, flow, 16);
ABI_OFF(ft_retrans, snd_cwnd, 64);
ABI_OFF(ft_retrans, srtt_us, 68);
ABI_OFF(ft_retrans, ca_state, 72);
ABI_OFF(ft_retrans, trigger, 73);
ABI_OFF(ft_retrans, err, 76);
ABI_OFF(ft_retrans, segs, 80);

ABI_SIZE(ft_cong_state, 72);
ABI_OFF(ft_cong_state, ts_ns, 8);
ABI_OFF(ft_cong_state, flow, 16);
ABI_OFF(ft_cong_state, old_state, 64);
ABI_OFF(ft_cong_state, new_state, 65);

ABI_SIZE(ft_tcp_sample, 96);
ABI_OFF(ft_tcp_sample, ts_ns, 8);
ABI_OFF(ft_tcp_sample, flow, 16);
ABI_OFF(ft_tcp_sample, srtt_us, 64);
ABI_OFF(ft_tcp_sample, total_retrans, 88);

ABI_SIZE(ft_iface_info, 96);
ABI_OFF(ft_iface_info, netns, 8);
ABI_OFF(ft_iface_info, ifindex, 12);
ABI_OFF(ft_iface_info, mtu, 16);
ABI_OFF(ft_iface_info, speed_mbps, 20);
ABI_OFF(ft_iface_info, flags, 24);
ABI_OFF(ft_iface_info, tx_rate_kbps, 28);
ABI_OFF(ft_iface_info, name, 32);
ABI_OFF(ft_iface_info, netns_name, 48);
ABI_OFF(ft_iface_info, kind, 80);

ABI_SIZE(ft_iface_stats, 80);
ABI_OFF(ft_iface_stats, ts_ns, 8);
ABI_OFF(ft_iface_stats, netns, 16);
ABI_OFF(ft_iface_stats, ifindex, 20);
ABI_OFF(ft_iface_stats, phase, 24);
ABI_OFF(ft_iface_stats, read_ns, 28);
ABI_OFF(ft_iface_stats, rx_bytes, 32);
ABI_OFF(ft_iface_stats, tx_dropped, 72);

ABI_SIZE(ft_ce_flow, 80);
ABI_OFF(ft_ce_flow, flow, 8);
ABI_OFF(ft_ce_flow, ce_pkts, 56);
ABI_OFF(ft_ce_flow, first_ns, 64);
ABI_OFF(ft_ce_flow, last_ns, 72);

ABI_SIZE(ft_lost, 32);
ABI_OFF(ft_lost, ts_ns, 8);
ABI_OFF(ft_lost, lost, 16);
ABI_OFF(ft_lost, source, 24);
ABI_OFF(ft_lost, cpu, 28);

ABI_SIZE(ft_drop_reason, 72);
ABI_OFF(ft_drop_reason, reason, 8);
ABI_OFF(ft_drop_reason, name, 16);

ABI_SIZE(ft_probe_info, 160);
ABI_OFF(ft_probe_info, id, 8);
ABI_OFF(ft_probe_info, attached, 12);
ABI_OFF(ft_probe_info, name, 16);
ABI_OFF(ft_probe_info, hook, 48);
ABI_OFF(ft_probe_info, why, 96);

ABI_SIZE(ft_coverage, 32);
ABI_OFF(ft_coverage, probe, 8);
ABI_OFF(ft_coverage, known, 12);
ABI_OFF(ft_coverage, hits, 16);
ABI_OFF(ft_coverage, runs, 24);

/* collective phases */
ABI_SIZE(ft_phase, 120);
ABI_OFF(ft_phase, start_ns, 8);
ABI_OFF(ft_phase, end_ns, 16);
ABI_OFF(ft_phase, count, 24);
ABI_OFF(ft_phase, comm, 32);
ABI_OFF(ft_phase, req, 40);
ABI_OFF(ft_phase, seq, 48);
ABI_OFF(ft_phase, pid, 56);
ABI_OFF(ft_phase, netns, 64);
ABI_OFF(ft_phase, slot, 68);
ABI_OFF(ft_phase, dtype_size, 72);
ABI_OFF(ft_phase, peer, 76);
ABI_OFF(ft_phase, flags, 80);
ABI_OFF(ft_phase, ret, 84);
ABI_OFF(ft_phase, name, 88);

ABI_SIZE(ft_req_done, 40);
ABI_OFF(ft_req_done, ts_ns, 8);
ABI_OFF(ft_req_done, req, 16);
ABI_OFF(ft_req_done, pid, 24);
ABI_OFF(ft_req_done, slot, 32);

ABI_SIZE(ft_comm_info, 40);
ABI_OFF(ft_comm_info, ts_ns, 8);
ABI_OFF(ft_comm_info, comm, 16);
ABI_OFF(ft_comm_info, pid, 24);
ABI_OFF(ft_comm_info, rank, 28);
ABI_OFF(ft_comm_info, size, 32);
ABI_OFF(ft_comm_info, slot, 36);

ABI_SIZE(ft_proc, 56);
ABI_OFF(ft_proc, ts_ns, 8);
ABI_OFF(ft_proc, pid, 16);
ABI_OFF(ft_proc, ppid, 20);
ABI_OFF(ft_proc, netns, 24);
ABI_OFF(ft_proc, event, 28);
ABI_OFF(ft_proc, exit_code, 32);
ABI_OFF(ft_proc, comm, 40);

ABI_SIZE(ft_sock_owner, 88);
ABI_OFF(ft_sock_owner, ts_ns, 8);
ABI_OFF(ft_sock_owner, flow, 16);
ABI_OFF(ft_sock_owner, pid, 64);
ABI_OFF(ft_sock_owner, tid, 68);
ABI_OFF(ft_sock_owner, comm, 72);

ABI_SIZE(ft_phase_slot, 288);
ABI_OFF(ft_phase_slot, slot, 8);
ABI_OFF(ft_phase_slot, lib_kind, 12);
ABI_OFF(ft_phase_slot, op, 14);
ABI_OFF(ft_phase_slot, flags, 16);
ABI_OFF(ft_phase_slot, offset, 24);
ABI_OFF(ft_phase_slot, lib, 32);
ABI_OFF(ft_phase_slot, symbol, 160);
ABI_OFF(ft_phase_slot, name, 256);

/* counter sampler (rdma/) */
ABI_SIZE(ft_rdma_port, 184);
ABI_OFF(ft_rdma_port, port_id, 8);
ABI_OFF(ft_rdma_port, dev, 16);
ABI_OFF(ft_rdma_port, netdev, 48);
ABI_OFF(ft_rdma_port, netdev_netns, 64);
ABI_OFF(ft_rdma_port, state, 72);
ABI_OFF(ft_rdma_port, rate_mbps, 76);
ABI_OFF(ft_rdma_port, lifespan_set_ms, 92);
ABI_OFF(ft_rdma_port, node_guid, 96);
ABI_OFF(ft_rdma_port, rate, 104);
ABI_OFF(ft_rdma_port, fw_ver, 136);
ABI_OFF(ft_rdma_port, hca_type, 168);

ABI_SIZE(ft_ctr_group, 88);
ABI_OFF(ft_ctr_group, group, 8);
ABI_OFF(ft_ctr_group, ncounters, 28);
ABI_OFF(ft_ctr_group, period_ns, 32);
ABI_OFF(ft_ctr_group, label, 40);

ABI_SIZE(ft_ctr_name, 80);
ABI_OFF(ft_ctr_name, index, 12);
ABI_OFF(ft_ctr_name, cls, 16);
ABI_OFF(ft_ctr_name, flags, 18);
ABI_OFF(ft_ctr_name, name, 24);

/* followed by n __u64 values, so the values stay 8-byte aligned */
ABI_SIZE(ft_ctr_sample, 32);
ABI_OFF(ft_ctr_sample, ts_ns, 8);
ABI_OFF(ft_ctr_sample, group, 16);
ABI_OFF(ft_ctr_sample, n, 20);
ABI_OFF(ft_ctr_sample, read_ns, 24);

ABI_SIZE(ft_sampler_event, 96);
ABI_OFF(ft_sampler_event, value, 16);
ABI_OFF(ft_sampler_event, kind, 24);
ABI_OFF(ft_sampler_event, msg, 32);

ABI_SIZE(ft_config, 120);
ABI_OFF(ft_config, ts_ns, 8);
ABI_OFF(ft_config, scope, 16);
ABI_OFF(ft_config, key_len, 18);
ABI_OFF(ft_config, value_len, 20);
ABI_OFF(ft_config, netns, 24);
ABI_OFF(ft_config, id, 28);
ABI_OFF(ft_config, handle, 32);
ABI_OFF(ft_config, parent, 36);
ABI_OFF(ft_config, flow, 40);
ABI_OFF(ft_config, object, 88);

ABI_SIZE(ft_host_id, 200);
ABI_OFF(ft_host_id, machine_id, 72);
ABI_OFF(ft_host_id, netns, 184);
ABI_OFF(ft_host_id, start_realtime_ns, 192);

ABI_SIZE(ft_clock, 88);
ABI_OFF(ft_clock, mono_ns, 8);
ABI_OFF(ft_clock, realtime_ns, 16);
ABI_OFF(ft_clock, gap_ns, 32);
ABI_OFF(ft_clock, maxerror_us, 40);
ABI_OFF(ft_clock, status, 72);
ABI_OFF(ft_clock, kind, 84);

ABI_SIZE(ft_host, 256);
ABI_OFF(ft_host, offset_ns, 16);
ABI_OFF(ft_host, uncertainty_ns, 40);
ABI_OFF(ft_host, pid_base, 56);
ABI_OFF(ft_host, hostname, 64);

ABI_SIZE(ft_host_netns, 16);
ABI_OFF(ft_host_netns, netns, 12);

ABI_SIZE(ft_trigger, 360);
ABI_OFF(ft_trigger, mono_ns, 8);
ABI_OFF(ft_trigger, realtime_ns, 16);
ABI_OFF(ft_trigger, received_ns, 24);
ABI_OFF(ft_trigger, from_ns, 32);
ABI_OFF(ft_trigger, to_ns, 40);
ABI_OFF(ft_trigger, value, 48);
ABI_OFF(ft_trigger, threshold, 56);
ABI_OFF(ft_trigger, kind, 64);
ABI_OFF(ft_trigger, action, 68);
ABI_OFF(ft_trigger, snapshot, 72);
ABI_OFF(ft_trigger, fired, 76);
ABI_OFF(ft_trigger, sender_pid, 80);
ABI_OFF(ft_trigger, sender_uid, 84);
ABI_OFF(ft_trigger, unit, 88);
ABI_OFF(ft_trigger, rule, 104);
ABI_OFF(ft_trigger, reason, 168);
ABI_OFF(ft_trigger, hostname, 296);
ABI_SIZE(ft_probe_span, 40);
ABI_OFF(ft_probe_span, ts_ns, 8);
ABI_OFF(ft_probe_span, probes, 16);
ABI_OFF(ft_probe_span, on, 24);
ABI_OFF(ft_probe_span, snapshot, 28);
ABI_OFF(ft_probe_span, owners, 32);

ABI_SIZE(ft_sched_wait, 64);
ABI_OFF(ft_sched_wait, start_ns, 8);
ABI_OFF(ft_sched_wait, end_ns, 16);
ABI_OFF(ft_sched_wait, wait_ns, 24);
ABI_OFF(ft_sched_wait, cpu_ns, 32);
ABI_OFF(ft_sched_wait, max_wait_ns, 40);
ABI_OFF(ft_sched_wait, pid, 48);
ABI_OFF(ft_sched_wait, netns, 52);
ABI_OFF(ft_sched_wait, threads, 56);

ABI_SIZE(ft_end, 32);
ABI_OFF(ft_end, ts_ns, 8);
ABI_OFF(ft_end, records, 16);
ABI_OFF(ft_end, stop_reason, 24);
ABI_OFF(ft_end, stop_ago_ns, 28);

/* file framing */
ABI_SIZE(ft_file_header, 488);
ABI_OFF(ft_file_header, magic, 0);
ABI_OFF(ft_file_header, version, 8);
ABI_OFF(ft_file_header, header_size, 12);
ABI_OFF(ft_file_header, start_mono_ns, 16);
ABI_OFF(ft_file_header, realtime_offset_ns, 24);
ABI_OFF(ft_file_header, boottime_offset_ns, 32);
ABI_OFF(ft_file_header, bin_ns, 40);
ABI_OFF(ft_file_header, probes, 48);
ABI_OFF(ft_file_header, ncpus, 56);
ABI_OFF(ft_file_header, flags, 60);
ABI_OFF(ft_file_header, hostname, 64);
ABI_OFF(ft_file_header, kernel, 128);
ABI_OFF(ft_file_header, tool_version, 192);
ABI_OFF(ft_file_header, command, 224);
ABI_OFF(ft_file_header, crc, 484);
_Static_assert(sizeof(FT_MAGIC) - 1 == sizeof(((struct ft_file_header *)0)->magic),
	       "FT_MAGIC must fill the magic field exactly");

ABI_SIZE(ft_block_header, 24);
ABI_OFF(ft_block_header, magic, 0);
ABI_OFF(ft_block_header, clen, 4);
ABI_OFF(ft_block_header, ulen, 8);
ABI_OFF(ft_block_header, nrec, 12);
ABI_OFF(ft_block_header, crc, 16);
ABI_OFF(ft_block_header, codec, 20);

_Static_assert(FT_PROBE_MAX <= 64, "the header's probe bitmap holds 64 probes");
_Static_assert(FT_REC_END < 65536, "record types are 16 bit");

/*
 * Records are written as they sit in memory, little endian on every host
 * fabtrace supports today; a big-endian port needs byte swapping in
 * capture_read.c and capture_write.c (docs/capture-format.md, "Byte order").
 */

/* so the object is not empty */
const int fabtrace_abi_version = FT_FORMAT_VERSION;
