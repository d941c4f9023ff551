// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Network probes: microburst bins per interface and direction, qdisc depth
 * and sojourn time, kfree_skb drops, ECN CE on receive.
 *
 * Traffic is aggregated in per-CPU maps and a bin goes to the ring buffer
 * only when the next packet on the same CPU falls into a later bin, so the
 * event rate is bounded by min(packet rate, 1/bin) per CPU and interface.
 * Bins still open when recording stops are flushed by userspace after the
 * links are detached (probes/netprobe.c).
 *
 * Each hook exists as tp_btf (preferred) and raw_tp (fallback); userspace
 * disables the variant it does not use before load.
 */
#include "common.bpf.h"
#include "net.h"

const volatile __u64 targ_bin_ns = 100000;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct bin_key);
	__type(value, struct bin_acc);
} iface_bins SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct qdisc_key);
	__type(value, struct qdisc_acc);
} qdisc_bins SEC(".maps");

/*
 * Enqueue time per skb, for the sojourn time at dequeue.  The length guards
 * against a stale entry: a qdisc that segments a GSO skb frees it, and a
 * segment may later be allocated at the same address.
 */
struct enq_mark {
	__u64 ts;
	__u32 len;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct enq_mark);
} skb_enq_ts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ft_flow);
	__type(value, struct ce_val);
} ce_flows SEC(".maps");

static __always_inline void emit_iface_bin(const struct bin_key *k, const struct bin_acc *a)
{
	struct ft_iface_bin *r = rec_reserve(FT_REC_IFACE_BIN, sizeof(*r));

	if (!r)
		return;
	r->start_ns = a->start_ns;
	r->bytes = a->bytes;
	r->pkts = a->pkts;
	r->ce_pkts = a->ce_pkts;
	r->netns = k->netns;
	r->ifindex = k->ifindex;
	r->dir = k->dir;
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	rec_submit(r);
}

static __always_inline void bin_add(__u32 netns, __u32 ifindex, __u32 dir,
				    __u64 bytes, __u32 ce)
{
	struct bin_key k = { .netns = netns, .ifindex = ifindex, .dir = dir };
	__u64 start = bin_start(bpf_ktime_get_ns(), targ_bin_ns);
	struct bin_acc *a = bpf_map_lookup_elem(&iface_bins, &k);

	if (!a) {
		struct bin_acc z = { .start_ns = start };

		bpf_map_update_elem(&iface_bins, &k, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&iface_bins, &k);
		if (!a) {
			count_lost(); /* map full: this packet is not binned */
			return;
		}
	}
	if (a->start_ns != start) {
		if (a->pkts)
			emit_iface_bin(&k, a);
		a->start_ns = start;
		a->bytes = 0;
		a->pkts = 0;
		a->ce_pkts = 0;
	}
	a->bytes += bytes;
	a->pkts += 1;
	a->ce_pkts += ce;
}

static __always_inline void handle_xmit(const struct sk_buff *skb, const struct net_device *dev)
{
	__u32 netns = dev_netns(dev);
	__u32 ifindex = BPF_CORE_READ(dev, ifindex);

	count_run(FT_PROBE_IFACE_TX); /* first: every invocation counts, filtered or not */
	if (!iface_wanted(netns, ifindex))
		return;
	bin_add(netns, ifindex, FT_DIR_TX, BPF_CORE_READ(skb, len), 0);
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(iface_tx_btf, const struct sk_buff *skb, const struct net_device *dev)
{
	handle_xmit(skb, dev);
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(iface_tx_raw, const struct sk_buff *skb, const struct net_device *dev)
{
	handle_xmit(skb, dev);
	return 0;
}

/* Parse the IP header at `nh` for ECN CE; fill the flow key when CE. */
static __always_inline bool parse_ce(const unsigned char *nh, __u16 proto, struct ft_flow *f)
{
	__u8 l4 = 0;
	__u32 l4off = 0;

	if (proto == ETH_P_IP) {
		struct iphdr ip;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), nh))
			return false;
		if ((ip.tos & 3) != 3)
			return false;
		f->family = 4;
		__builtin_memcpy(f->saddr, &ip.saddr, 4);
		__builtin_memcpy(f->daddr, &ip.daddr, 4);
		l4 = ip.protocol;
		l4off = ip.ihl * 4;
	} else if (proto == ETH_P_IPV6) {
		struct ipv6hdr ip6;
		__u8 tc;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), nh))
			return false;
		tc = (ip6.priority << 4) | (ip6.flow_lbl[0] >> 4);
		if ((tc & 3) != 3)
			return false;
		f->family = 6;
		__builtin_memcpy(f->saddr, &ip6.saddr, 16);
		__builtin_memcpy(f->daddr, &ip6.daddr, 16);
		l4 = ip6.nexthdr;
		l4off = sizeof(ip6);
	} else {
		return false;
	}
	f->proto = l4;
	if (l4 == 6 /* TCP */ || l4 == 17 /* UDP */) {
		__be16 ports[2];

		if (!bpf_probe_read_kernel(ports, sizeof(ports), nh + (l4off & 0x3ff))) {
			f->sport = bpf_ntohs(ports[0]);
			f->dport = bpf_ntohs(ports[1]);
		}
	}
	return true;
}

static __always_inline void ce_flow_add(struct ft_flow *f)
{
	__u64 now = bpf_ktime_get_ns();
	struct ce_val *v = bpf_map_lookup_elem(&ce_flows, f);

	if (!v) {
		struct ce_val z = { .first_ns = now };

		bpf_map_update_elem(&ce_flows, f, &z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&ce_flows, f);
		if (!v) {
			count_lost(); /* flow table full */
			return;
		}
	}
	if (!v->first_ns)
		v->first_ns = now;
	v->pkts += 1;
	v->last_ns = now;
}

static __always_inline void handle_receive(const struct sk_buff *skb)
{
	const struct net_device *dev = BPF_CORE_READ(skb, dev);
	__u32 netns, ifindex, len, ce = 0;
	unsigned char *head, *data;
	__u16 mac;
	struct ft_flow f = {};

	count_run(FT_PROBE_IFACE_RX); /* first: every invocation counts, filtered or not */
	if (!dev)
		return;
	netns = dev_netns(dev);
	ifindex = BPF_CORE_READ(dev, ifindex);
	if (!iface_wanted(netns, ifindex))
		return;
	len = BPF_CORE_READ(skb, len);
	head = BPF_CORE_READ(skb, head);
	data = BPF_CORE_READ(skb, data);
	mac = BPF_CORE_READ(skb, mac_header);
	/* eth_type_trans() already pulled the link-layer header; the device's
	 * rx_bytes counted it, so add it back. */
	if (mac != (__u16)~0U && data >= head + mac)
		len += data - (head + mac);
	if (parse_ce(data, bpf_ntohs(BPF_CORE_READ(skb, protocol)), &f)) {
		ce = 1;
		f.netns = netns;
		f.ifindex = ifindex;
		ce_flow_add(&f);
	}
	bin_add(netns, ifindex, FT_DIR_RX, len, ce);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(iface_rx_btf, struct sk_buff *skb)
{
	handle_receive(skb);
	return 0;
}

SEC("raw_tp/netif_receive_skb")
int BPF_PROG(iface_rx_raw, struct sk_buff *skb)
{
	handle_receive(skb);
	return 0;
}

/* ---- qdiscs ---- */

static __always_inline void emit_qdisc_bin(const struct qdisc_key *k, const struct qdisc_acc *a)
{
	struct ft_qdisc_bin *r = rec_reserve(FT_REC_QDISC_BIN, sizeof(*r));

	if (!r)
		return;
	r->start_ns = a->start_ns;
	r->max_backlog = a->max_backlog;
	r->enq_bytes = a->enq_bytes;
	r->sojourn_sum_ns = a->sojourn_sum_ns;
	r->sojourn_max_ns = a->sojourn_max_ns;
	r->sojourn_cnt = a->sojourn_cnt;
	r->max_qlen = a->max_qlen;
	r->enq_pkts = a->enq_pkts;
	r->drops = a->drops;
	r->netns = k->netns;
	r->ifindex = k->ifindex;
	r->handle = k->handle;
	r->parent = a->parent;
	__builtin_memcpy(r->kind, a->kind, sizeof(r->kind));
	rec_submit(r);
}

/* The qdisc's bin for now, rolling the previous one out if it closed. */
static __always_inline struct qdisc_acc *qdisc_bin(struct Qdisc *q, const struct netdev_queue *txq)
{
	const struct net_device *dev = BPF_CORE_READ(txq, dev);
	struct qdisc_key k = {};
	struct qdisc_acc *a;
	__u64 start;

	if (!dev)
		return NULL;
	k.netns = dev_netns(dev);
	k.ifindex = BPF_CORE_READ(dev, ifindex);
	if (!iface_wanted(k.netns, k.ifindex))
		return NULL;
	k.handle = BPF_CORE_READ(q, handle);
	start = bin_start(bpf_ktime_get_ns(), targ_bin_ns);
	a = bpf_map_lookup_elem(&qdisc_bins, &k);
	if (!a) {
		struct qdisc_acc z = { .start_ns = start };

		bpf_map_update_elem(&qdisc_bins, &k, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&qdisc_bins, &k);
		if (!a) {
			count_lost();
			return NULL;
		}
	}
	if (a->start_ns != start) {
		if (a->enq_pkts || a->sojourn_cnt)
			emit_qdisc_bin(&k, a);
		a->start_ns = start;
		a->max_backlog = 0;
		a->enq_bytes = 0;
		a->sojourn_sum_ns = 0;
		a->sojourn_max_ns = 0;
		a->sojourn_cnt = 0;
		a->max_qlen = 0;
		a->enq_pkts = 0;
	}
	if (!a->kind[0]) {
		bpf_probe_read_kernel_str(a->kind, sizeof(a->kind), BPF_CORE_READ(q, ops, id));
		a->parent = BPF_CORE_READ(q, parent);
	}
	a->drops = BPF_CORE_READ(q, qstats.drops);
	return a;
}

static __always_inline void handle_enqueue(struct Qdisc *q, const struct netdev_queue *txq,
					   struct sk_buff *skb)
{
	struct qdisc_acc *a = qdisc_bin(q, txq);
	__u64 key = (__u64)skb;
	struct enq_mark m = {};
	__u32 qlen, backlog;

	count_run(FT_PROBE_QDISC_ENQ); /* first: every invocation counts, filtered or not */
	if (!a)
		return;
	qlen = BPF_CORE_READ(q, q.qlen);
	backlog = BPF_CORE_READ(q, qstats.backlog);
	if (qlen > a->max_qlen)
		a->max_qlen = qlen;
	if (backlog > a->max_backlog)
		a->max_backlog = backlog;
	m.len = BPF_CORE_READ(skb, len);
	m.ts = bpf_ktime_get_ns();
	a->enq_pkts += 1;
	a->enq_bytes += m.len;
	bpf_map_update_elem(&skb_enq_ts, &key, &m, BPF_ANY);
}

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(qdisc_enq_btf, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	handle_enqueue(q, txq, skb);
	return 0;
}

SEC("raw_tp/qdisc_enqueue")
int BPF_PROG(qdisc_enq_raw, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	handle_enqueue(q, txq, skb);
	return 0;
}

/*
 * Sojourn time of one dequeued skb: from our enqueue timestamp, or, for
 * segments a qdisc made of a GSO skb (tbf does), from the skb's
 * CLOCK_MONOTONIC departure time that TCP stamps (EDT), when present.
 */
static __always_inline bool skb_sojourn(struct sk_buff *skb, __u64 now, __u64 *out)
{
	__u64 key = (__u64)skb;
	struct enq_mark *m = bpf_map_lookup_elem(&skb_enq_ts, &key);

	if (m) {
		bool same = m->len == BPF_CORE_READ(skb, len);
		__u64 ts = m->ts;

		bpf_map_delete_elem(&skb_enq_ts, &key);
		if (same) {
			*out = now > ts ? now - ts : 0;
			return true;
		}
	}
	if (bpf_core_field_exists(skb->tstamp_type)) {
		__u64 t = BPF_CORE_READ(skb, tstamp);

		if (BPF_CORE_READ_BITFIELD_PROBED(skb, tstamp_type) == 1 /* SKB_CLOCK_MONOTONIC */ &&
		    t && t <= now && now - t < 10000000000ULL) {
			*out = now - t;
			return true;
		}
	}
	return false;
}

static __always_inline void handle_dequeue(struct Qdisc *q, const struct netdev_queue *txq,
					   int packets, struct sk_buff *skb)
{
	struct qdisc_acc *a;
	__u64 now, soj;

	count_run(FT_PROBE_QDISC_DEQ); /* first: every invocation counts, filtered or not */
	if (!skb)
		return;
	a = qdisc_bin(q, txq);
	if (!a)
		return;
	now = bpf_ktime_get_ns();
	/* A bulk dequeue hands a list; look at its first few skbs. */
	for (int i = 0; i < 8 && i < packets && skb; i++) {
		if (skb_sojourn(skb, now, &soj)) {
			a->sojourn_sum_ns += soj;
			a->sojourn_cnt += 1;
			if (soj > a->sojourn_max_ns)
				a->sojourn_max_ns = soj;
		}
		skb = BPF_CORE_READ(skb, next);
	}
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(qdisc_deq_btf, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	handle_dequeue(q, txq, packets, skb);
	return 0;
}

SEC("raw_tp/qdisc_dequeue")
int BPF_PROG(qdisc_deq_raw, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	handle_dequeue(q, txq, packets, skb);
	return 0;
}

/* ---- drops ---- */

static __always_inline void handle_drop(struct sk_buff *skb, void *location, __u32 reason)
{
	const struct net_device *dev;
	struct ft_drop *r;
	__u32 netns = 0, ifindex = 0;

	count_run(FT_PROBE_DROP); /* first: every invocation counts, filtered or not */
	if (reason == SKB_CONSUMED)
		return;
	dev = BPF_CORE_READ(skb, dev);
	if (dev) {
		netns = dev_netns(dev);
		ifindex = BPF_CORE_READ(dev, ifindex);
		if (!iface_wanted(netns, ifindex))
			return;
	} else {
		const struct sock *sk = BPF_CORE_READ(skb, sk);

		if (sk)
			netns = sk_netns(sk);
		if (!netns_wanted(netns))
			return;
	}
	r = rec_reserve(FT_REC_DROP, sizeof(*r));
	if (!r)
		return;
	r->ts_ns = bpf_ktime_get_ns();
	r->location = (__u64)location;
	r->netns = netns;
	r->ifindex = ifindex;
	r->reason = reason;
	r->protocol = bpf_ntohs(BPF_CORE_READ(skb, protocol));
	r->pad[0] = r->pad[1] = 0;
	rec_submit(r);
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(drop_btf, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	handle_drop(skb, location, reason);
	return 0;
}

SEC("raw_tp/kfree_skb")
int BPF_PROG(drop_raw, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	handle_drop(skb, location, reason);
	return 0;
}
