// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor of each hook fabtrace uses: an empty program on the same hook
 * and with the same attach kind (tp_btf; uprobe/uretprobe for the phase
 * probes).  bench_hooks.sh runs it beside `fabtrace record` and compares
 * ns per run (bpf_stats) of each pair.  The list follows bpf/net.bpf.c,
 * bpf/tcp.bpf.c and bpf/phase.bpf.c; keep it in step with them.
 *
 * Program names are "fl_" + the hook, so the bench can tell them apart
 * from fabtrace's own programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* net.bpf.c */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(fl_net_dev_start_xmit) { return 0; }

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(fl_netif_receive_skb) { return 0; }

/* iface_rx, iface_tx and tcp_sample with -i on kernels with tcx (floor --tcx
 * IFACE): TCX_NEXT */
SEC("tc")
int fl_tcx_ingress(struct __sk_buff *skb) { return -1; }

SEC("tc")
int fl_tcx_egress_tx(struct __sk_buff *skb) { return -1; }

SEC("tc")
int fl_tcx_egress_rtt(struct __sk_buff *skb) { return -1; }

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(fl_qdisc_enqueue) { return 0; }

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(fl_qdisc_dequeue) { return 0; }

SEC("tp_btf/kfree_skb")
int BPF_PROG(fl_kfree_skb) { return 0; }

/* tcp.bpf.c */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(fl_tcp_retransmit_skb) { return 0; }

SEC("tp_btf/tcp_cong_state_set")
int BPF_PROG(fl_tcp_cong_state_set) { return 0; }

SEC("tp_btf/tcp_probe")
int BPF_PROG(fl_tcp_probe) { return 0; }

/* phase.bpf.c: process tree and flow ownership */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fl_sched_process_fork) { return 0; }

SEC("tp_btf/sched_process_exec")
int BPF_PROG(fl_sched_process_exec) { return 0; }

SEC("tp_btf/sched_process_exit")
int BPF_PROG(fl_sched_process_exit) { return 0; }

SEC("tp_btf/sock_send_length")
int BPF_PROG(fl_sock_send_length) { return 0; }

SEC("tp_btf/sock_recv_length")
int BPF_PROG(fl_sock_recv_length) { return 0; }

/* phase.bpf.c: collective and marker calls (attached by the loader to the
 * functions it is given, like phase_entry/phase_exit) */
SEC("uprobe")
int fl_uprobe(struct pt_regs *ctx) { return 0; }

SEC("uretprobe")
int fl_uretprobe(struct pt_regs *ctx) { return 0; }

/*
 * floor --minimal IFACE: the cheapest program that bins a direction's
 * packets by time at all, in Millisampler's shape: a tcx program on that one
 * interface (egress and ingress), so no other device runs it, with one clock
 * read and one add into a per-CPU ring of 10 us bins indexed by the time
 * (which a reader would drain; none does here).  Its cost is the floor of
 * any per-packet binner, whatever else it records.
 */
#define MIN_BIN_NS 10000
#define MIN_BINS 1024

struct min_bin {
	__u64 bytes, pkts;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * MIN_BINS);
	__type(key, __u32);
	__type(value, struct min_bin);
} min_bins SEC(".maps");

static __always_inline int min_count(struct __sk_buff *skb, __u32 dir)
{
	__u32 k = dir * MIN_BINS + (__u32)((bpf_ktime_get_ns() / MIN_BIN_NS) % MIN_BINS);
	struct min_bin *b = bpf_map_lookup_elem(&min_bins, &k);

	if (b) {
		b->bytes += skb->len;
		b->pkts++;
	}
	return -1; /* TCX_NEXT */
}

SEC("tc")
int fl_min_egress(struct __sk_buff *skb) { return min_count(skb, 0); }

SEC("tc")
int fl_min_ingress(struct __sk_buff *skb) { return min_count(skb, 1); }

/*
 * floor --clock-cost: run by BPF_PROG_TEST_RUN, never attached (loaded only
 * then): what one read of the clock (bpf_ktime_get_ns, which every program
 * that bins by time needs per packet) costs on this machine, beside a
 * program that stores a constant instead.
 */
__u64 ck_sink;

SEC("tc")
int ck_empty(struct __sk_buff *skb)
{
	ck_sink = 0;
	return 0;
}

SEC("tc")
int ck_clock(struct __sk_buff *skb)
{
	ck_sink = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
