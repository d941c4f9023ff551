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

/*
 * Last sample per socket, direct-mapped by the socket's hash: an array
 * lookup the verifier inlines, where an LRU hash cost a helper call on
 * every segment (tcp_probe runs for each segment a socket receives).  Two
 * sockets that share an entry take it from each other, so each may then be
 * sampled more often than --rtt-interval, never less.
 *
 * A clock read costs as much as an empty program's whole run
 * (docs/performance.md), so most segments pass without one.  When a read
 * finds the interval not yet over, the entry plans to let pass the segments
 * expected in half the time left, at the rate seen since the last sample
 * (at most SKIP_MAX), and no longer than the kernel's tick counter
 * (jiffies: a load) says the interval lasts.  The interval itself is still
 * decided by bpf_ktime_get_ns(), so no sample comes early; at a steady rate
 * one comes at most a segment late, and when the rate falls at once, at
 * most a tick (1-4 ms) late.  Filtered-out sockets are kept in the entry
 * too, and checked again once per interval.
 */
#define SAMPLE_SLOTS 16384
#define SKIP_MAX 64
struct last_sample {
	__u64 sk;
	__u64 ts;       /* the last sample (or filter check) of this socket */
	__u64 skip_until; /* on coarse_ns(): let segments pass until then at most */
	__u32 segs;     /* segments seen since ts */
	__u32 skip;     /* segments to let pass before the next clock read */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SAMPLE_SLOTS);
	__type(key, __u32);
	__type(value, struct last_sample);
} last_sample SEC(".maps");

/* Where the kernel keeps time in ticks for BPF (5.5+), in ns; 0 otherwise,
 * which turns the skipping off.  (bpf_ktime_get_coarse_ns() is not allowed
 * in tracing programs.)  targ_tick_ns: the tick, from userspace. */
const volatile __u64 targ_tick_ns = 0;

/* Both known at load time: without them the planning below is dead code. */
static __always_inline bool have_coarse(void)
{
	return targ_tick_ns && bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_jiffies64);
}

static __always_inline __u64 coarse_ns(void)
{
	return have_coarse() ? bpf_jiffies64() * targ_tick_ns : 0;
}

/* Fields of tcp_sock and inet_connection_sock lie past struct sock, the type
 * the verifier gives the argument: they are read through the helper. */
static __always_inline __u8 ca_state(const struct sock *sk)
{
	const struct inet_connection_sock *icsk = (const void *)sk;

	return BPF_CORE_READ_BITFIELD_PROBED(icsk, icsk_ca_state);
}

static __always_inline void handle_retransmit(bool btf, const struct sock *sk, const struct sk_buff *skb,
					      int err)
{
	const struct tcp_sock *tp = (const void *)sk;
	const struct inet_connection_sock *icsk = (const void *)sk;
	struct ft_flow f = {};
	struct ft_retrans *r;
	__u8 st, ca;

	count_run(FT_PROBE_RETRANS); /* first: every invocation counts, filtered or not */
	if (!sk_flow_x(btf, sk, &f))
		return;
	r = rec_reserve(FT_REC_RETRANS, sizeof(*r));
	if (!r)
		return;
	st = KREAD(btf, sk, __sk_common.skc_state);
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

/* Kernels since 6.13 pass the retransmit's result as a third argument, and
 * run the tracepoint for attempts that failed as well (-EBUSY: the original
 * still in the host's queue); userspace picks the variant that matches this
 * kernel, and counts only the retransmits that were sent (err 0). */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(retrans_err_btf, const struct sock *sk, const struct sk_buff *skb, int err)
{
	handle_retransmit(true, sk, skb, err);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(retrans_btf, const struct sock *sk, const struct sk_buff *skb)
{
	handle_retransmit(true, sk, skb, 0);
	return 0;
}

/* The same without BTF: attaching fails where the tracepoint has two
 * arguments (a program may read no further than its tracepoint's last). */
SEC("raw_tp/tcp_retransmit_skb")
int BPF_PROG(retrans_err_raw, const struct sock *sk, const struct sk_buff *skb, int err)
{
	handle_retransmit(false, sk, skb, err);
	return 0;
}

SEC("raw_tp/tcp_retransmit_skb")
int BPF_PROG(retrans_raw, const struct sock *sk, const struct sk_buff *skb)
{
	handle_retransmit(false, sk, skb, 0);
	return 0;
}

static __always_inline void handle_cong_state(bool btf, const struct sock *sk, __u8 new_state)
{
	struct ft_flow f = {};
	struct ft_cong_state *r;
	__u8 old;

	count_run(FT_PROBE_CONG_STATE); /* first: every invocation counts, filtered or not */
	old = ca_state(sk);
	if (old == new_state || !sk_flow_x(btf, sk, &f))
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
	handle_cong_state(true, sk, ca);
	return 0;
}

SEC("raw_tp/tcp_cong_state_set")
int BPF_PROG(cong_state_raw, struct sock *sk, const __u8 ca)
{
	handle_cong_state(false, sk, ca);
	return 0;
}

/* Whether this segment of the entry's socket comes too soon for a sample
 * (planning the next clock read if so); *nowp gets the time when read. */
static __always_inline bool probe_too_soon(struct last_sample *last, __u64 *nowp)
{
	__u64 now, gap, left, n, c;
	__u32 segs;

	if (last->skip) {
		c = coarse_ns();
		if (c && c < last->skip_until) {
			last->skip--;
			last->segs++;
			return true;
		}
		last->skip = 0;
	}
	now = *nowp = bpf_ktime_get_ns();
	gap = now - last->ts;
	if (gap >= targ_sample_ns)
		return false;
	segs = ++last->segs;
	if (!have_coarse())
		return true; /* no tick to bound a plan: a clock read per segment */
	left = targ_sample_ns - gap;
	n = left * segs / (2 * gap + 1);
	last->skip = n > SKIP_MAX ? SKIP_MAX : (__u32)n;
	if (last->skip)
		last->skip_until = coarse_ns() + left;
	return true;
}

static __always_inline void handle_probe(bool btf, const struct sock *sk)
{
	const struct tcp_sock *tp = (const void *)sk;
	__u32 slot = KREAD(btf, sk, __sk_common.skc_hash) % SAMPLE_SLOTS;
	struct last_sample *last;
	struct ft_flow f = {};
	struct ft_tcp_sample *r;
	__u64 now = 0;

	count_run(FT_PROBE_TCP_SAMPLE); /* first: every invocation counts, filtered or not */
	last = bpf_map_lookup_elem(&last_sample, &slot);
	if (!last)
		return;
	if (last->sk == (__u64)sk) {
		if (probe_too_soon(last, &now))
			return;
	} else {
		now = bpf_ktime_get_ns();
	}
	last->sk = (__u64)sk;
	last->ts = now;
	last->segs = 0;
	last->skip = 0;
	if (!sk_flow_x(btf, sk, &f))
		return;
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
	handle_probe(true, sk);
	return 0;
}

SEC("raw_tp/tcp_probe")
int BPF_PROG(tcp_sample_raw, struct sock *sk, const struct sk_buff *skb)
{
	handle_probe(false, sk);
	return 0;
}

/* The tc context as the kernel's sk_buff, for typed reads (kernel 6.3+). */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

#define TCP_TIME_WAIT 6
#define TCP_NEW_SYN_RECV 12

/*
 * The samples on the chosen interfaces (-i): a tcx egress program, run for
 * each skb a socket sends through one of them, data or ACK, instead of
 * tcp_probe's run for each segment any socket receives.  The sender's
 * smoothed RTT changes when an ACK comes in, and ACK clocking sends right
 * after: a sample at the next send reads what tcp_probe read at the ACK.
 * tcx dispatches without a tracepoint's entry and exit work, and only
 * the chosen interfaces' packets pay (docs/performance.md).  A socket that
 * sends nothing through them is not sampled; tcp_probe, by the device of
 * its route, would have left it out as well.  Returns TCX_NEXT (-1).
 */
SEC("tc")
int tcp_sample_tcx(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct sock *sk = skb->sk; /* NULL for forwarded traffic */
	__u8 state;

	if (sk) {
		state = sk->__sk_common.skc_state;
		/* full TCP sockets only: not a request or time-wait socket, nor
		 * the raw control socket that answers for them (protocol TCP, type raw) */
		if (state != TCP_TIME_WAIT && state != TCP_NEW_SYN_RECV && sk->sk_protocol == IPPROTO_TCP &&
		    sk->sk_type == SOCK_STREAM) {
			handle_probe(true, sk); /* counts the run */
			return -1;
		}
	}
	count_run(FT_PROBE_TCP_SAMPLE); /* every invocation counts, sampled or not */
	return -1;
}
