// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * TCP probes: every retransmitted segment with its flow, congestion state
 * and trigger; congestion-state transitions; RTT/cwnd samples rate-limited
 * per socket.  All are rare next to packets, so each is one ring-buffer
 * record.  tcp_retransmit_skb gives skb->dev == NULL: flows are attributed
 * by the socket (its netns, and the device of its cached route).
 */
#include "common.bpf.h"

#define TCP_SYN_SENT 2
#define TCP_SYN_RECV 3
#define TCP_CA_Recovery 3
#define TCP_CA_Loss 4
#define ICSK_TIME_LOSS_PROBE 5

const volatile __u64 targ_sample_ns = 10000000; /* min gap between samples of one socket */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);   /* socket address */
	__type(value, __u64); /* last sample time */
} last_sample SEC(".maps");

static __always_inline __u8 ca_state(const struct sock *sk)
{
	const struct inet_connection_sock *icsk = (const void *)sk;

	return BPF_CORE_READ_BITFIELD_PROBED(icsk, icsk_ca_state);
}

static __always_inline void handle_retransmit(const struct sock *sk, const struct sk_buff *skb, int err)
{
	const struct tcp_sock *tp = (const void *)sk;
	const struct inet_connection_sock *icsk = (const void *)sk;
	struct ft_flow f = {};
	struct ft_retrans *r;
	__u8 st, ca;

	count_run(FT_PROBE_RETRANS); /* first: every invocation counts, filtered or not */
	if (!sk_flow(sk, &f))
		return;
	r = rec_reserve(FT_REC_RETRANS, sizeof(*r));
	if (!r)
		return;
	st = BPF_CORE_READ(sk, __sk_common.skc_state);
	ca = ca_state(sk);
	r->ts_ns = bpf_ktime_get_ns();
	r->flow = f;
	r->snd_cwnd = BPF_CORE_READ(tp, snd_cwnd);
	r->srtt_us = BPF_CORE_READ(tp, srtt_us) >> 3;
	r->ca_state = ca;
	r->sk_state = st;
	r->pad = 0;
	r->err = err;
	r->pad2 = 0;
	/* tcp_skb_pcount(): a GSO skb retransmits several segments at once */
	r->segs = BPF_CORE_READ((struct tcp_skb_cb *)&skb->cb[0], tcp_gso_segs);
	if (!r->segs)
		r->segs = 1;
	/* What made TCP retransmit, from the state the kernel leaves behind:
	 * the RTO handler enters CA_Loss first; the TLP timer handler runs
	 * with icsk_pending still set to the loss-probe timer. */
	if (st == TCP_SYN_SENT || st == TCP_SYN_RECV)
		r->trigger = FT_RTX_SYN;
	else if (ca == TCP_CA_Loss)
		r->trigger = FT_RTX_RTO;
	else if (BPF_CORE_READ(icsk, icsk_pending) == ICSK_TIME_LOSS_PROBE)
		r->trigger = FT_RTX_TLP;
	else if (ca == TCP_CA_Recovery)
		r->trigger = FT_RTX_FAST;
	else
		r->trigger = FT_RTX_UNKNOWN;
	rec_submit(r);
}

/* Kernels since 6.13 pass the retransmit's result as a third argument;
 * userspace picks the variant that matches this kernel's BTF. */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(retrans_err_btf, const struct sock *sk, const struct sk_buff *skb, int err)
{
	handle_retransmit(sk, skb, err);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(retrans_btf, const struct sock *sk, const struct sk_buff *skb)
{
	handle_retransmit(sk, skb, 0);
	return 0;
}

SEC("raw_tp/tcp_retransmit_skb")
int BPF_PROG(retrans_raw, const struct sock *sk, const struct sk_buff *skb)
{
	handle_retransmit(sk, skb, 0);
	return 0;
}

static __always_inline void handle_cong_state(const struct sock *sk, __u8 new_state)
{
	struct ft_flow f = {};
	struct ft_cong_state *r;
	__u8 old = ca_state(sk);

	count_run(FT_PROBE_CONG_STATE); /* first: every invocation counts, filtered or not */
	if (old == new_state || !sk_flow(sk, &f))
		return;
	r = rec_reserve(FT_REC_CONG_STATE, sizeof(*r));
	if (!r)
		return;
	r->ts_ns = bpf_ktime_get_ns();
	r->flow = f;
	r->old_state = old;
	r->new_state = new_state;
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	rec_submit(r);
}

SEC("tp_btf/tcp_cong_state_set")
int BPF_PROG(cong_state_btf, struct sock *sk, const __u8 ca)
{
	handle_cong_state(sk, ca);
	return 0;
}

SEC("raw_tp/tcp_cong_state_set")
int BPF_PROG(cong_state_raw, struct sock *sk, const __u8 ca)
{
	handle_cong_state(sk, ca);
	return 0;
}

static __always_inline void handle_probe(const struct sock *sk)
{
	const struct tcp_sock *tp = (const void *)sk;
	__u64 key = (__u64)sk, now = bpf_ktime_get_ns();
	__u64 *last = bpf_map_lookup_elem(&last_sample, &key);
	struct ft_flow f = {};
	struct ft_tcp_sample *r;

	count_run(FT_PROBE_TCP_SAMPLE); /* first: every invocation counts, filtered or not */
	if (last && now - *last < targ_sample_ns)
		return;
	if (!sk_flow(sk, &f))
		return;
	bpf_map_update_elem(&last_sample, &key, &now, BPF_ANY);
	r = rec_reserve(FT_REC_TCP_SAMPLE, sizeof(*r));
	if (!r)
		return;
	r->ts_ns = now;
	r->flow = f;
	r->srtt_us = BPF_CORE_READ(tp, srtt_us) >> 3;
	r->rttvar_us = BPF_CORE_READ(tp, mdev_us) >> 2;
	r->snd_cwnd = BPF_CORE_READ(tp, snd_cwnd);
	r->ssthresh = BPF_CORE_READ(tp, snd_ssthresh);
	r->packets_out = BPF_CORE_READ(tp, packets_out);
	r->retrans_out = BPF_CORE_READ(tp, retrans_out);
	r->total_retrans = BPF_CORE_READ(tp, total_retrans);
	r->pad = 0;
	rec_submit(r);
}

SEC("tp_btf/tcp_probe")
int BPF_PROG(tcp_sample_btf, struct sock *sk, const struct sk_buff *skb)
{
	handle_probe(sk);
	return 0;
}

SEC("raw_tp/tcp_probe")
int BPF_PROG(tcp_sample_raw, struct sock *sk, const struct sk_buff *skb)
{
	handle_probe(sk);
	return 0;
}
