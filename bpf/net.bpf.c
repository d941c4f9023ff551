// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Network probes: microburst bins per interface and direction, qdisc depth
 * and sojourn time, kfree_skb drops, ECN CE on receive (ecn.bpf.h).
 *
 * Traffic is aggregated in per-CPU maps and a bin goes to the ring buffer
 * when the next packet on the same CPU falls into a later bin, or from that
 * CPU's timer once its traffic stopped (stage_timers), so the event rate is
 * bounded by min(packet rate, 1/bin) per CPU and interface.  Bins still
 * open when recording stops are flushed by userspace after the links are
 * detached (probes/netprobe_flush.c).
 *
 * Each hook exists as tp_btf (preferred) and raw_tp (fallback); userspace
 * disables the variant it does not use before load.  The interface bins
 * also exist as tcx programs on the chosen interfaces: iface_rx_tcx, and
 * iface_tx_tcx for the always profile (record --profile always).
 */
#include "common.bpf.h"
#include "net.h"
#include "ecn.bpf.h"

const volatile __u64 targ_bin_ns = 100000;
/*
 * The full profile's transmit bins with -i (userspace sets it when it
 * attaches iface_tx_tcx for that profile): each packet in the bin in which
 * it leaves, without net_dev_start_xmit.  tcx egress counts a packet whose
 * device sends at once (noqueue), or whose qdisc may let it bypass;
 * qdisc_dequeue counts the rest as the qdisc hands them to the driver.
 */
const volatile bool targ_tx_leave = false;

/* Closed bins per batch record (1 for a live view, which wants each bin at once). */
const volatile __u32 targ_batch = FT_BATCH;

/* Open bins of interfaces without a slot (no -i: every interface). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct bin_key);
	__type(value, struct bin_acc);
} iface_bins SEC(".maps");

/* Open bins of the chosen interfaces: slot * 2 + dir. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_IF_SLOTS * 2);
	__type(key, __u32);
	__type(value, struct bin_acc);
} slot_bins SEC(".maps");

/* Open queue bins of qdiscs without a slot (or past FT_QDISC_WAYS on one). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct qdisc_key);
	__type(value, struct qdisc_acc);
} qdisc_bins SEC(".maps");

/* Open queue bins of the chosen interfaces' qdiscs: slot * FT_QDISC_WAYS + way,
 * the way found by the qdisc's handle (qdisc_acc.handle). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_IF_SLOTS * FT_QDISC_WAYS);
	__type(key, __u32);
	__type(value, struct qdisc_acc);
} slot_qdisc SEC(".maps");

/*
 * Sampled sojourn: per qdisc (by identity, FT_SOJ_TRACK entries) one skb at
 * a time is followed from enqueue to dequeue; a new one is picked once it
 * left (or after a second, if it never did: a qdisc that segments a GSO skb
 * frees it).  Shared by the CPUs: a race costs a sample, never a wrong one,
 * since dequeue matches the qdisc, the skb's address and its length.
 * Dequeued skbs that carry TCP's CLOCK_MONOTONIC departure time (EDT) are
 * measured from that stamp as well.  This replaced an LRU-hash update per
 * enqueued skb, the dearest work of the packet programs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FT_SOJ_TRACK);
	__type(key, __u32);
	__type(value, struct soj_track);
} soj_track SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ft_flow);
	__type(value, struct ce_val);
} ce_flows SEC(".maps");

/* A stage of N records, the first staged at FIRST_NS, is written out when full or old. */
static __always_inline bool stage_due(__u32 n, __u64 first_ns, __u64 now)
{
	return n >= targ_batch || now - first_ns > FT_STAGE_MAX_NS;
}

/*
 * Write out a stage: its header HDR, then its N records of REC_SIZE bytes
 * (at most STAGE_BYTES in all: the bound the verifier checks the copy
 * against).  Returns the stage's new count, 0.
 */
static __always_inline __u32 stage_flush(struct ft_rec_hdr *hdr, __u32 n, __u32 rec_size, __u32 stage_bytes,
					  __u32 cpu)
{
	__u64 size;

	if (n > FT_BATCH)
		n = FT_BATCH;
	size = sizeof(*hdr) + (__u64)n * rec_size;
	barrier_var(size); /* keep the clamp below: the verifier's bound of n * rec_size is looser than the compiler's */
	if (size > stage_bytes)
		size = stage_bytes;
	hdr->type = FT_REC_BATCH;
	hdr->size = (__u16)size;
	hdr->cpu = cpu;
	if (!rec_output(hdr, size))
		count_lost_n(n);
	return 0;
}
/* Closed bins waiting to leave in a batch (struct iface_stage in net.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* FT_STAGE_TX, FT_STAGE_RX */
	__type(key, __u32);
	__type(value, struct iface_stage);
} iface_stage SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* FT_STAGE_ENQ - 2, FT_STAGE_DEQ - 2 */
	__type(key, __u32);
	__type(value, struct qdisc_stage);
} qdisc_stage SEC(".maps");

/*
 * Per-CPU timers that write out what a CPU still holds once its traffic
 * stops: without them a closed bin waited in its stage, and the open bin
 * in its accumulator, for that CPU's next packet or for the stop (a flight
 * recorder's later segment then reached back to them).  A timer is armed
 * when its CPU starts to hold something (a bin opened after an idle
 * spell, a stage's first bin) and fires there FT_STAGE_MAX_NS later
 * (stage_timer_fire()); it closes the open bins whose time is over, writes
 * out every stage and is armed again while a bin is still open.  So while
 * a CPU holds anything, its timer is armed, and the packet path looks at
 * it only at those two moments (under load, once per FT_BATCH closed bins).
 * It runs in softirq context on that CPU, where the packet programs that
 * write the bins and stages run with bottom halves disabled: neither
 * interrupts the other.  The recorder holds the timers (stage_hold) before
 * it reads the stages itself.  tp_btf and tcx programs arm them; raw_tp
 * programs may not use a timer, and leave the bins as before.
 */
const volatile __u32 targ_n_slots = 0;
const volatile __u32 targ_slot_ifs[FT_IF_SLOTS * 2]; /* slot s: netns, ifindex */

/* false: start the timers unpinned, as on a kernel before 6.7 (FABTRACE_TIMER_NOPIN, for tests) */
const volatile bool targ_timer_pin = true;

enum { STAGE_RUN, STAGE_PAUSE, STAGE_STOP };
volatile __u32 stage_hold = STAGE_RUN; /* written by the recorder */
volatile __s32 stage_timer_err;         /* the first error arming a timer (0: none) */
volatile __u32 stage_timer_unpinned;    /* timers started unpinned (refused, or targ_timer_pin) */
volatile __u64 stage_timer_strays;      /* unpinned timers that fired on another CPU than theirs */

enum { TIMER_NONE, TIMER_IDLE, TIMER_ARMED, TIMER_BROKEN };
struct stage_timer {
	struct bpf_timer t;
	__u32 state;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* one per possible CPU: set by the recorder */
	__type(key, __u32);
	__type(value, struct stage_timer);
} stage_timers SEC(".maps");

#define BPF_F_TIMER_CPU_PIN_ (1ULL << 1) /* kernel 6.7+; the uapi enum may be older here */
#define CLOCK_MONOTONIC_ 1
#define EBUSY_ 16
#define EINVAL_ 22

static int stage_timer_fire(void *map, __u32 *key, struct stage_timer *t);

/* The kernel refused T with ERR: its CPU's bins wait as before for its next
 * packet; the first error is kept for the recorder. */
static __always_inline void stage_timer_broken(struct stage_timer *t, long err)
{
	if (!stage_timer_err)
		stage_timer_err = (__s32)err;
	t->state = TIMER_BROKEN;
}

/*
 * (Re)start T, pinned to its CPU; false (and T broken, the error kept) when
 * the kernel refuses.  A kernel before 6.7 cannot pin one: started unpinned,
 * a timer fires on the CPU that started it unless that CPU was idle then
 * (the kernel may move it), and one that fires elsewhere leaves its CPU's
 * bins as they were (stage_timer_fire()).
 */
static __always_inline bool stage_timer_start(struct stage_timer *t)
{
	__u64 flags = targ_timer_pin && !stage_timer_unpinned ? BPF_F_TIMER_CPU_PIN_ : 0;
	long err = bpf_timer_start(&t->t, FT_STAGE_MAX_NS, flags);

	if (err == -EINVAL_ && flags) {
		flags = 0;
		err = bpf_timer_start(&t->t, FT_STAGE_MAX_NS, 0);
	}
	if (!flags)
		stage_timer_unpinned = 1;
	if (!err) {
		t->state = TIMER_ARMED;
		return true;
	}
	stage_timer_broken(t, err);
	return false;
}

/* A bin opened on this CPU: its timer armed, unless it is already. */
static __always_inline void stage_timer_arm(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct stage_timer *t = bpf_map_lookup_elem(&stage_timers, &cpu);

	if (!t || t->state >= TIMER_ARMED)
		return;
	if (t->state == TIMER_NONE) {
		long err = bpf_timer_init(&t->t, &stage_timers, CLOCK_MONOTONIC_);

		if (!err || err == -EBUSY_)
			err = bpf_timer_set_callback(&t->t, stage_timer_fire);
		if (err) {
			stage_timer_broken(t, err);
			return;
		}
	}
	stage_timer_start(t);
}

/* Stage the closed bin A; whether it is its stage's first (the stage was empty). */
static __always_inline bool emit_iface_bin(__u32 netns, __u32 ifindex, __u32 dir,
					   const struct bin_acc *a, __u64 now)
{
	__u32 k = dir;
	struct iface_stage *st = bpf_map_lookup_elem(&iface_stage, &k);
	struct ft_iface_bin *r;
	__u32 n;

	if (!st)
		return false;
	n = st->n;
	if (n >= FT_BATCH) /* cannot happen: written out when full */
		n = st->n = 0;
	if (!n)
		st->first_ns = now;
	r = &st->b[n];
	r->hdr.type = FT_REC_IFACE_BIN;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->start_ns = a->start_ns;
	r->bytes = a->bytes;
	r->pkts = a->pkts;
	r->ce_pkts = a->ce_pkts;
	r->netns = netns;
	r->ifindex = ifindex;
	r->dir = dir;
	__builtin_memset(r->pad, 0, sizeof(r->pad));
	st->n = ++n;
	if (stage_due(n, st->first_ns, now))
		st->n = stage_flush(&st->hdr, n, sizeof(*r), sizeof(st->hdr) + sizeof(st->b), r->hdr.cpu);
	return n == 1;
}

/* The open bin of (interface, direction) on this CPU; NULL when the map is full.
 * A new one starts at 0, so the caller's bin_over() rolls it to the packet's bin. */
static __always_inline struct bin_acc *bin_get(__u32 slot1, __u32 netns, __u32 ifindex, __u32 dir)
{
	struct bin_key k = { .netns = netns, .ifindex = ifindex, .dir = dir };
	struct bin_acc *a;

	if (slot1 != FT_SLOT_ALL) {
		__u32 idx = (slot1 - 1) * 2 + dir;

		return bpf_map_lookup_elem(&slot_bins, &idx);
	}
	a = bpf_map_lookup_elem(&iface_bins, &k);
	if (!a) {
		struct bin_acc z = {};

		bpf_map_update_elem(&iface_bins, &k, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&iface_bins, &k);
	}
	return a;
}

/* An interface bin's counts emptied: the next packet opens the bin it falls in. */
static __always_inline void bin_acc_clear(struct bin_acc *a)
{
	a->bytes = 0;
	a->pkts = 0;
	a->ce_pkts = 0;
}

/* BTF: from a program that may arm a timer (tp_btf, tcx; not raw_tp). */
static __always_inline void bin_add(bool btf, __u32 slot1, __u32 netns, __u32 ifindex, __u32 dir,
				    __u64 now, __u64 bytes, __u32 pkts, __u32 ce)
{
	struct bin_acc *a = bin_get(slot1, netns, ifindex, dir);

	if (!a) {
		count_lost(); /* map full: this packet is not binned */
		return;
	}
	if (bin_over(a->start_ns, now, targ_bin_ns)) {
		/* the CPU starts to hold something (a bin after an idle spell, a
		 * stage's first bin): its timer armed; otherwise it already is */
		bool first = a->pkts ? emit_iface_bin(netns, ifindex, dir, a, now) : true;

		if (btf && first)
			stage_timer_arm();
		a->start_ns = bin_start(now, targ_bin_ns);
		bin_acc_clear(a);
	}
	a->bytes += bytes;
	a->pkts += pkts;
	a->ce_pkts += ce;
}

static __always_inline void handle_xmit(bool btf, const struct sk_buff *skb,
					const struct net_device *dev)
{
	__u32 netns, ifindex, slot1;

	count_run(FT_PROBE_IFACE_TX); /* first: every invocation counts, filtered or not */
	netns = dev_netns_x(btf, dev);
	ifindex = KREAD(btf, dev, ifindex);
	slot1 = iface_pick(netns, ifindex);
	if (!slot1)
		return;
	bin_add(btf, slot1, netns, ifindex, FT_DIR_TX, bpf_ktime_get_ns(), KREAD(btf, skb, len), 1, 0);
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(iface_tx_btf, const struct sk_buff *skb, const struct net_device *dev)
{
	handle_xmit(true, skb, dev);
	return 0;
}

SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(iface_tx_raw, const struct sk_buff *skb, const struct net_device *dev)
{
	handle_xmit(false, skb, dev);
	return 0;
}

/* The tc context as the kernel's sk_buff, for typed reads (kernel 6.3+). */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

#define TCQ_F_CAN_BYPASS 4 /* include/net/sch_generic.h */

/* Whether a qdisc may send a packet that finds it empty at once, past its
 * enqueue and dequeue (pfifo_fast, pfifo, bfifo). */
static __always_inline bool qdisc_bypasses(bool btf, const struct Qdisc *q)
{
	return KREAD(btf, q, flags) & TCQ_F_CAN_BYPASS;
}

#define SH_GSO_SPAN 32 /* bytes of skb_shared_info read at once, from gso_size to gso_type */
#define NETIF_F_GSO_SHIFT 16 /* NETIF_F_TSO_BIT: gso_type bits, shifted, are the device's GSO features */

/*
 * An skb of LEN bytes as the driver of a device with FEATURES gets it, so
 * as net_dev_start_xmit counted it and as the device's counters count it:
 * a GSO skb the device takes whole is one packet of LEN bytes; one whose
 * GSO type the device lacks is cut into its segments first
 * (validate_xmit_skb()): gso_segs packets of the length the qdisc charged
 * for them (qdisc_pkt_len(): every segment's headers, set before tc egress).
 */
static __always_inline void skb_as_sent(bool btf, __u64 features, struct sk_buff *skb, __u32 len, __u32 *bytes,
					__u32 *pkts)
{
	const __u32 o_size = bpf_core_field_offset(struct skb_shared_info, gso_size),
		    o_segs = bpf_core_field_offset(struct skb_shared_info, gso_segs),
		    o_type = bpf_core_field_offset(struct skb_shared_info, gso_type);
	const struct skb_shared_info *sh;
	__u32 span[SH_GSO_SPAN / 4] = {}, type;
	__u16 size, segs;

	*bytes = len;
	*pkts = 1;
	/* skb_shinfo(): past skb->head, a plain address, so each field costs a
	 * helper call (three of them were most of a dequeue's run): the three,
	 * close together in every kernel, in one call where the layout allows */
	sh = (const void *)(KREAD(btf, skb, head) + KREAD(btf, skb, end));
	if (o_segs == o_size + 2 && o_type > o_segs && !((o_type - o_size) & 3) && o_type + 4 - o_size <= SH_GSO_SPAN) {
		if (bpf_probe_read_kernel(span, o_type + 4 - o_size, (const void *)sh + o_size))
			return;
		segs = ((__u16 *)span)[1];
		size = ((__u16 *)span)[0];
		type = span[((o_type - o_size) / 4) & (SH_GSO_SPAN / 4 - 1)];
	} else {
		size = BPF_CORE_READ(sh, gso_size);
		segs = size ? BPF_CORE_READ(sh, gso_segs) : 0;
		type = segs > 1 ? BPF_CORE_READ(sh, gso_type) : 0;
	}
	if (!size || segs <= 1)
		return;
	if ((features & ((__u64)type << NETIF_F_GSO_SHIFT)) != (__u64)type << NETIF_F_GSO_SHIFT) {
		*bytes = BPF_CORE_READ((struct qdisc_skb_cb *)&skb->cb[0], pkt_len);
		*pkts = segs;
	}
}

/*
 * Whether DEV's packets leave through a qdisc's dequeue, as
 * __dev_queue_xmit() decides after tc egress: its transmit queue's qdisc
 * has an enqueue (noqueue has none) and never lets a packet bypass it.
 * The queue is not picked yet at tc egress; the first one's qdisc stands
 * for all (a multiqueue device's children are alike unless configured
 * otherwise).
 */
static __always_inline bool tx_at_dequeue(const struct net_device *dev)
{
	const struct Qdisc *q = dev->_tx->qdisc;

	return q && q->enqueue && !qdisc_bypasses(true, q);
}

/*
 * The transmit bins of the always profile (record --profile always): a tcx
 * egress program on each chosen interface (-i), Millisampler's shape: the
 * interface filter, one clock read, one add into the open bin.  It runs
 * once per skb the stack hands that interface (the tracepoint above runs on
 * every device a packet crosses), before the qdisc: a bin holds what was
 * offered to the qdisc in it, whether the qdisc sent it then, later or
 * dropped it (the qdisc's own counters say what left: docs/performance.md).
 * A GSO skb counts as the segments it becomes on the wire, as the qdisc
 * itself charges it (wire_len: the kernel's qdisc_pkt_len(), set before tc
 * egress runs; gso_segs), so a bin compares with the device's counters when
 * the stack or the NIC segments.  Returns TCX_NEXT (-1).
 */
SEC("tc")
int iface_tx_tcx(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	__u32 netns, slot1, segs;

	count_run(FT_PROBE_IFACE_TX); /* first: every invocation counts, filtered or not */
	if (targ_tx_leave && tx_at_dequeue(skb->dev))
		return -1; /* counted when its qdisc hands it on */
	netns = dev_netns_x(true, skb->dev);
	slot1 = iface_pick(netns, ctx->ifindex);
	if (!slot1)
		return -1;
	if (targ_tx_leave) { /* as it leaves: as net_dev_start_xmit counted it */
		__u32 bytes = ctx->len, pkts = 1;

		if (ctx->gso_size)
			skb_as_sent(true, skb->dev->features, skb, ctx->len, &bytes, &pkts);
		bin_add(true, slot1, netns, ctx->ifindex, FT_DIR_TX, bpf_ktime_get_ns(), bytes, pkts, 0);
		return -1;
	}
	segs = ctx->gso_size && ctx->gso_segs ? ctx->gso_segs : 1;
	bin_add(true, slot1, netns, ctx->ifindex, FT_DIR_TX, bpf_ktime_get_ns(), ctx->wire_len, segs, 0);
	return -1;
}

static __always_inline void ce_flow_add(struct ft_flow *f, __u64 now)
{
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

/*
 * CTX: set when run from tc ingress (tcx), where the kernel has pushed the
 * link-layer header back for the program (data at the MAC header, len
 * counting it) and the network header is set; at the tracepoint data is the
 * network header.  At tc the ECN bits are read from the packet directly.
 */
static __always_inline void handle_receive(bool btf, const struct sk_buff *skb, struct __sk_buff *ctx)
{
	const struct net_device *dev;
	__u32 netns, ifindex, len, ce = 0, slot1;
	unsigned char *head, *data;
	const __u8 *p = NULL;
	__u64 now;
	__u16 mac, proto;

	count_run(FT_PROBE_IFACE_RX); /* first: every invocation counts, filtered or not */
	dev = KREAD(btf, skb, dev);
	if (!dev)
		return;
	netns = dev_netns_x(btf, dev);
	ifindex = KREAD(btf, dev, ifindex);
	slot1 = iface_pick(netns, ifindex);
	if (!slot1)
		return;
	len = KREAD(btf, skb, len);
	head = KREAD(btf, skb, head);
	data = KREAD(btf, skb, data);
	mac = KREAD(btf, skb, mac_header);
	/* eth_type_trans() already pulled the link-layer header; the device's
	 * rx_bytes counted it, so add it back (at tc, len counts it already). */
	if (ctx) {
		__u16 nh = KREAD(btf, skb, network_header);
		const __u8 *pkt = (const __u8 *)(long)ctx->data, *end = (const __u8 *)(long)ctx->data_end;
		__u32 off = (__u16)(nh - mac) & 0xff;

		data = head + nh;
		if (mac != (__u16)~0U && pkt + off + 2 <= end)
			p = pkt + off;
	} else if (mac != (__u16)~0U && data >= head + mac) {
		len += data - (head + mac);
	}
	now = bpf_ktime_get_ns();
	proto = bpf_ntohs(KREAD(btf, skb, protocol));
	if (ce_marked(data, p, proto)) {
		struct ft_flow f = {};

		ce = 1;
		if (parse_ce(data, proto, &f)) {
			f.netns = netns;
			f.ifindex = ifindex;
			ce_flow_add(&f, now);
		}
	}
	bin_add(btf, slot1, netns, ifindex, FT_DIR_RX, now, len, 1, ce);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(iface_rx_btf, struct sk_buff *skb)
{
	handle_receive(true, skb, NULL);
	return 0;
}

SEC("raw_tp/netif_receive_skb")
int BPF_PROG(iface_rx_raw, struct sk_buff *skb)
{
	handle_receive(false, skb, NULL);
	return 0;
}

/*
 * The same receive path as a tcx ingress program on each chosen interface
 * (-i): it runs once per packet of those interfaces and never for the others,
 * where the tracepoint runs for every device a packet crosses.  Nothing skips
 * it (no recursion guard, no PID 1 check: docs/known-issues.md), so its runs
 * are its hits.  Returns TCX_NEXT (-1): the packet goes on untouched.
 */
SEC("tc")
int iface_rx_tcx(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	handle_receive(true, skb, ctx);
	return -1;
}

/* ---- qdiscs ---- */

/* As emit_iface_bin(), for the queue bin A. */
static __always_inline bool emit_qdisc_bin(__u32 stage, __u32 netns, __u32 ifindex, __u32 handle,
					   const struct qdisc_acc *a, __u64 now)
{
	struct qdisc_stage *st = bpf_map_lookup_elem(&qdisc_stage, &stage);
	struct ft_qdisc_bin *r;
	__u32 n;

	if (!st)
		return false;
	n = st->n;
	if (n >= FT_BATCH)
		n = st->n = 0;
	if (!n)
		st->first_ns = now;
	r = &st->b[n];
	r->hdr.type = FT_REC_QDISC_BIN;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = bpf_get_smp_processor_id();
	r->start_ns = a->start_ns;
	r->max_backlog = a->max_backlog;
	r->enq_bytes = a->enq_bytes;
	r->sojourn_sum_ns = a->sojourn_sum_ns;
	r->sojourn_max_ns = a->sojourn_max_ns;
	r->sojourn_cnt = a->sojourn_cnt;
	r->max_qlen = a->max_qlen;
	r->enq_pkts = a->enq_pkts;
	r->drops = a->drops;
	r->netns = netns;
	r->ifindex = ifindex;
	r->handle = handle;
	r->parent = a->parent;
	__builtin_memcpy(r->kind, a->kind, sizeof(r->kind));
	st->n = ++n;
	if (stage_due(n, st->first_ns, now))
		st->n = stage_flush(&st->hdr, n, sizeof(*r), sizeof(st->hdr) + sizeof(st->b), r->hdr.cpu);
	return n == 1;
}

/* A queue bin's counts emptied (its qdisc's identity kept): the next packet opens a bin. */
static __always_inline void qdisc_acc_clear(struct qdisc_acc *a)
{
	a->max_backlog = 0;
	a->enq_bytes = 0;
	a->sojourn_sum_ns = 0;
	a->sojourn_max_ns = 0;
	a->sojourn_cnt = 0;
	a->max_qlen = 0;
	a->enq_pkts = 0;
}

/* The qdisc's open bin on this CPU: a way of the interface's slot, else the
 * hash.  A new one starts at 0, so qdisc_bin() rolls it to the packet's bin. */
static __always_inline struct qdisc_acc *qdisc_get(__u32 slot1, __u32 netns, __u32 ifindex,
						   __u32 handle)
{
	struct qdisc_key k = { .netns = netns, .ifindex = ifindex, .handle = handle };
	struct qdisc_acc *a;

	if (slot1 != FT_SLOT_ALL) {
		__u32 base = (slot1 - 1) * FT_QDISC_WAYS;

#pragma unroll
		for (__u32 w = 0; w < FT_QDISC_WAYS; w++) {
			__u32 idx = base + w;

			a = bpf_map_lookup_elem(&slot_qdisc, &idx);
			if (!a)
				return NULL;
			if (a->handle == handle && a->kind[0])
				return a;
			if (!a->kind[0]) { /* unused: this qdisc's from now on (this CPU) */
				__builtin_memset(a, 0, sizeof(*a));
				a->handle = handle;
				return a;
			}
		}
	}
	a = bpf_map_lookup_elem(&qdisc_bins, &k);
	if (!a) {
		struct qdisc_acc z = { .handle = handle };

		bpf_map_update_elem(&qdisc_bins, &k, &z, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&qdisc_bins, &k);
	}
	return a;
}

/* The soj_track entry of a qdisc, from its identity. */
static __always_inline __u32 soj_index(__u32 netns, __u32 ifindex, __u32 handle)
{
	return (ft_if_bucket(netns, ifindex) ^ (handle >> 16) ^ (handle * 40503u)) % FT_SOJ_TRACK;
}

/* The interface of a qdisc's bin (iface_pick()'s slot), and its device. */
struct qdisc_where {
	const struct net_device *dev;
	__u32 slot1, netns, ifindex;
};

/* The qdisc's bin for now (*nowp: read here, once the qdisc is known to be
 * traced: a clock read costs about an empty program's run), rolling the
 * previous one out if it closed; *tidx: the qdisc's soj_track entry (from its
 * identity: the verifier allows no arithmetic on a typed pointer, so not from
 * its address). */
static __always_inline struct qdisc_acc *qdisc_bin(bool btf, __u32 stage, struct Qdisc *q,
						   const struct netdev_queue *txq, __u64 *nowp,
						   __u32 *tidx, struct qdisc_where *w)
{
	const struct net_device *dev = KREAD(btf, txq, dev);
	struct qdisc_acc *a;
	__u32 netns, ifindex, handle, slot1;
	__u64 now;

	if (!dev)
		return NULL;
	w->dev = dev;
	netns = w->netns = dev_netns_x(btf, dev);
	ifindex = w->ifindex = KREAD(btf, dev, ifindex);
	slot1 = w->slot1 = iface_pick(netns, ifindex);
	if (!slot1)
		return NULL;
	handle = KREAD(btf, q, handle);
	now = *nowp = bpf_ktime_get_ns();
	*tidx = soj_index(netns, ifindex, handle);
	a = qdisc_get(slot1, netns, ifindex, handle);
	if (!a) {
		count_lost();
		return NULL;
	}
	if (bin_over(a->start_ns, now, targ_bin_ns)) {
		bool first = a->enq_pkts || a->sojourn_cnt ? emit_qdisc_bin(stage, netns, ifindex, handle, a, now)
							   : true; /* as in bin_add() */

		if (btf && first)
			stage_timer_arm();
		a->start_ns = bin_start(now, targ_bin_ns);
		qdisc_acc_clear(a);
	}
	if (!a->kind[0]) {
		if (btf)
			bpf_probe_read_kernel_str(a->kind, sizeof(a->kind), q->ops->id);
		else
			bpf_probe_read_kernel_str(a->kind, sizeof(a->kind), BPF_CORE_READ(q, ops, id));
		a->parent = KREAD(btf, q, parent);
		if (!a->kind[0])
			a->kind[0] = '?'; /* marks the entry used */
	}
	a->drops = KREAD(btf, q, qstats.drops);
	return a;
}

static __always_inline void handle_enqueue(bool btf, struct Qdisc *q, const struct netdev_queue *txq,
					   struct sk_buff *skb)
{
	struct qdisc_acc *a;
	struct soj_track *t;
	struct qdisc_where w;
	__u32 qlen, backlog, len, tidx = 0;
	__u64 now;

	count_run(FT_PROBE_QDISC_ENQ); /* first: every invocation counts, filtered or not */
	a = qdisc_bin(btf, FT_STAGE_ENQ - 2, q, txq, &now, &tidx, &w);
	if (!a)
		return;
	qlen = KREAD(btf, q, q.qlen);
	backlog = KREAD(btf, q, qstats.backlog);
	if (qlen > a->max_qlen)
		a->max_qlen = qlen;
	if (backlog > a->max_backlog)
		a->max_backlog = backlog;
	len = KREAD(btf, skb, len);
	a->enq_pkts += 1;
	a->enq_bytes += len;
	t = bpf_map_lookup_elem(&soj_track, &tidx);
	/* the followed skb's address enqueued again: it left unseen (a head
	 * drop, a skipped dequeue) and was freed; measured from its old stamp,
	 * this new skb would read up to a second of queueing */
	if (t && (!t->skb || t->q != (__u64)q || t->skb == (__u64)skb || now - t->ts > 1000000000ULL)) {
		t->q = (__u64)q;
		t->ts = now;
		t->len = len;
		t->skb = (__u64)skb;
	}
}

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(qdisc_enq_btf, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	handle_enqueue(true, q, txq, skb);
	return 0;
}

SEC("raw_tp/qdisc_enqueue")
int BPF_PROG(qdisc_enq_raw, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	handle_enqueue(false, q, txq, skb);
	return 0;
}

/*
 * Sojourn time of one dequeued skb: from its enqueue time when it is the
 * qdisc's followed skb, else from the CLOCK_MONOTONIC departure time that
 * TCP stamps (EDT), when present (also what measures the segments a qdisc
 * made of a GSO skb: tbf does).
 */
static __always_inline bool skb_sojourn(bool btf, struct soj_track *t, const struct Qdisc *q,
					struct sk_buff *skb, __u64 now, __u64 *out)
{
	if (t && t->skb == (__u64)skb && t->q == (__u64)q) {
		bool same = t->len == KREAD(btf, skb, len);
		__u64 ts = t->ts;

		t->skb = 0;
		if (same) {
			*out = now > ts ? now - ts : 0;
			return true;
		}
	}
	if (bpf_core_field_exists(skb->tstamp_type)) {
		__u64 ts = KREAD(btf, skb, tstamp);
		__u8 type;

		if (btf)
			type = BPF_CORE_READ_BITFIELD(skb, tstamp_type);
		else
			type = BPF_CORE_READ_BITFIELD_PROBED(skb, tstamp_type);
		if (type == 1 /* SKB_CLOCK_MONOTONIC */ && ts && ts <= now && now - ts < 10000000000ULL) {
			*out = now - ts;
			return true;
		}
	}
	return false;
}

/* The skbs a bulk dequeue hands on that tx_leave() reads one by one; the
 * rest count at the mean length of those. */
#define TX_BULK_READ 32

/*
 * The transmit bin of what a dequeue hands to the driver (targ_tx_leave):
 * PACKETS skbs from SKB on, each as skb_as_sent() counts it.  A packet the
 * driver hands back (a requeue) counts again when it leaves again.
 */
static __always_inline void tx_leave(bool btf, const struct qdisc_where *w, int packets, struct sk_buff *skb,
				     __u64 now)
{
	const struct net_device *dev = w->dev; /* a local: CO-RE relocates kernel types only */
	__u64 features = KREAD(btf, dev, features), bytes = 0;
	__u32 segs = 0, n = 0;

	for (int i = 0; i < TX_BULK_READ && i < packets && skb; i++) {
		__u32 b, p;

		skb_as_sent(btf, features, skb, KREAD(btf, skb, len), &b, &p);
		bytes += b;
		segs += p;
		n++;
		skb = KREAD(btf, skb, next);
	}
	if (!n)
		return;
	if ((__u32)packets > n) {
		bytes += bytes / n * ((__u32)packets - n);
		segs += (__u32)packets - n;
	}
	bin_add(btf, w->slot1, w->netns, w->ifindex, FT_DIR_TX, now, bytes, segs, 0);
}

static __always_inline void handle_dequeue(bool btf, struct Qdisc *q, const struct netdev_queue *txq,
					   int packets, struct sk_buff *skb)
{
	struct qdisc_where w;
	struct qdisc_acc *a;
	struct soj_track *t;
	__u32 tidx = 0;
	__u64 now, soj;

	count_run(FT_PROBE_QDISC_DEQ); /* first: every invocation counts, filtered or not */
	if (!skb)
		return;
	a = qdisc_bin(btf, FT_STAGE_DEQ - 2, q, txq, &now, &tidx, &w);
	if (!a)
		return;
	if (targ_tx_leave && !qdisc_bypasses(btf, q))
		tx_leave(btf, &w, packets, skb, now);
	t = bpf_map_lookup_elem(&soj_track, &tidx);
	/* A bulk dequeue hands a list; look at its first few skbs. */
	for (int i = 0; i < 8 && i < packets && skb; i++) {
		if (skb_sojourn(btf, t, q, skb, now, &soj)) {
			a->sojourn_sum_ns += soj;
			a->sojourn_cnt += 1;
			if (soj > a->sojourn_max_ns)
				a->sojourn_max_ns = soj;
		}
		skb = KREAD(btf, skb, next);
	}
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(qdisc_deq_btf, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	handle_dequeue(true, q, txq, packets, skb);
	return 0;
}

SEC("raw_tp/qdisc_dequeue")
int BPF_PROG(qdisc_deq_raw, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	handle_dequeue(false, q, txq, packets, skb);
	return 0;
}

/* ---- what a CPU holds when its traffic stops (stage_timers) ---- */

/* The open interface bin A: closed if its time is over; whether it is still open. */
static __always_inline bool close_iface_bin(struct bin_acc *a, __u32 netns, __u32 ifindex, __u32 dir,
					    __u64 now)
{
	if (!a->pkts)
		return false;
	if (!bin_over(a->start_ns, now, targ_bin_ns))
		return true;
	emit_iface_bin(netns, ifindex, dir, a, now);
	bin_acc_clear(a); /* as bin_add() leaves it */
	return false;
}

/* The open queue bin A, as close_iface_bin(). */
static __always_inline bool close_qdisc_bin(struct qdisc_acc *a, __u32 netns, __u32 ifindex, __u64 now)
{
	if (!a->kind[0] || !(a->enq_pkts || a->sojourn_cnt))
		return false;
	if (!bin_over(a->start_ns, now, targ_bin_ns))
		return true;
	emit_qdisc_bin(FT_STAGE_ENQ - 2, netns, ifindex, a->handle, a, now);
	qdisc_acc_clear(a); /* as qdisc_bin() leaves it */
	return false;
}

struct close_ctx {
	__u64 now;
	bool open; /* a bin still open: the timer fires again */
};

/* bpf_loop() over the chosen interfaces: slot S's open bins on this CPU. */
static long close_slot(__u32 s, struct close_ctx *c)
{
	__u32 netns, ifindex, idx;

	if (s >= FT_IF_SLOTS)
		return 1;
	barrier_var(s);
	s &= FT_IF_SLOTS - 1; /* a bound the verifier sees (FT_IF_SLOTS: a power of two) */
	netns = targ_slot_ifs[s * 2];
	ifindex = targ_slot_ifs[s * 2 + 1];
	for (__u32 dir = 0; dir < 2; dir++) {
		struct bin_acc *a;

		idx = s * 2 + dir;
		a = bpf_map_lookup_elem(&slot_bins, &idx);
		if (a && close_iface_bin(a, netns, ifindex, dir, c->now))
			c->open = true;
	}
	for (__u32 w = 0; w < FT_QDISC_WAYS; w++) {
		struct qdisc_acc *q;

		idx = s * FT_QDISC_WAYS + w;
		q = bpf_map_lookup_elem(&slot_qdisc, &idx);
		if (q && close_qdisc_bin(q, netns, ifindex, c->now))
			c->open = true;
	}
	return 0;
}

static long close_hashed_iface(struct bpf_map *map, struct bin_key *k, struct bin_acc *a, struct close_ctx *c)
{
	if (close_iface_bin(a, k->netns, k->ifindex, k->dir, c->now))
		c->open = true;
	return 0;
}

static long close_hashed_qdisc(struct bpf_map *map, struct qdisc_key *k, struct qdisc_acc *a,
			       struct close_ctx *c)
{
	if (close_qdisc_bin(a, k->netns, k->ifindex, c->now))
		c->open = true;
	return 0;
}

/* This CPU's stages K written out, whatever their age. */
static __always_inline void flush_stages_here(__u32 k, __u32 cpu)
{
	struct iface_stage *is = bpf_map_lookup_elem(&iface_stage, &k);
	struct qdisc_stage *qs = bpf_map_lookup_elem(&qdisc_stage, &k);

	if (is && is->n)
		is->n = stage_flush(&is->hdr, is->n, sizeof(is->b[0]), sizeof(is->hdr) + sizeof(is->b), cpu);
	if (qs && qs->n)
		qs->n = stage_flush(&qs->hdr, qs->n, sizeof(qs->b[0]), sizeof(qs->hdr) + sizeof(qs->b), cpu);
}

static int stage_timer_fire(void *map, __u32 *key, struct stage_timer *t)
{
	struct close_ctx c = { .now = bpf_ktime_get_ns() };
	__u32 cpu = bpf_get_smp_processor_id();

	if (*key != cpu) { /* unpinned, and moved: its CPU's bins wait for its next bin */
		__sync_fetch_and_add(&stage_timer_strays, 1);
		t->state = TIMER_IDLE;
		return 0;
	}
	if (stage_hold == STAGE_STOP) {
		t->state = TIMER_IDLE;
		return 0;
	}
	if (stage_hold == STAGE_PAUSE) { /* the recorder reads the stages: later */
		stage_timer_start(t);
		return 0;
	}
	bpf_loop(targ_n_slots, close_slot, &c, 0);
	bpf_for_each_map_elem(&iface_bins, close_hashed_iface, &c, 0);
	bpf_for_each_map_elem(&qdisc_bins, close_hashed_qdisc, &c, 0);
	flush_stages_here(0, cpu); /* unrolled: the verifier took a loop over the two for an endless one */
	flush_stages_here(1, cpu);
	if (c.open)
		stage_timer_start(t);
	else
		t->state = TIMER_IDLE;
	return 0;
}

/* ---- drops ---- */

/*
 * A dropped skb that its device's root qdisc was following for its sojourn
 * (a head drop: pfifo_head_drop, codel's): stop following it.  Its memory
 * comes back as the next skb, whose enqueue the tracepoint does not report
 * when the qdisc answers NET_XMIT_CN, and which would be measured from the
 * dropped one's enqueue.  Roots only (an mq child's followed skb, dropped,
 * still waits for the address's next enqueue or the second's expiry).
 */
static __always_inline void forget_followed(bool btf, const struct net_device *dev, __u32 netns, __u32 ifindex,
					    const struct sk_buff *skb)
{
	const struct Qdisc *q = KREAD(btf, dev, qdisc);
	struct soj_track *t;
	__u32 handle, tidx;

	if (!q)
		return;
	handle = KREAD(btf, q, handle);
	tidx = soj_index(netns, ifindex, handle);
	t = bpf_map_lookup_elem(&soj_track, &tidx);
	if (t && t->skb == (__u64)skb)
		t->skb = 0;
}

/*
 * RX_SK: the receiving socket, where the tracepoint passes it (kernels since
 * 6.12; NULL elsewhere).  A drop of no device is placed in a namespace by
 * its socket: TCP's own drops of received segments (TCP_OLD_DATA, a
 * receiver's duplicate after a spurious retransmit) have no skb->sk, and
 * without RX_SK they fall outside every --netns recording.
 */
static __always_inline void handle_drop(bool btf, struct sk_buff *skb, void *location, __u32 reason,
					const struct sock *rx_sk)
{
	const struct net_device *dev;
	struct ft_drop *r;
	__u32 netns = 0, ifindex = 0;

	count_run(FT_PROBE_DROP); /* first: every invocation counts, filtered or not */
	if (reason == SKB_CONSUMED)
		return;
	dev = KREAD(btf, skb, dev);
	if (dev) {
		netns = dev_netns_x(btf, dev);
		ifindex = KREAD(btf, dev, ifindex);
		if (!iface_wanted(netns, ifindex))
			return;
		forget_followed(btf, dev, netns, ifindex, skb);
	} else {
		const struct sock *sk = rx_sk ? rx_sk : KREAD(btf, skb, sk);

		if (sk)
			netns = sk_netns_x(btf, sk);
		if (!netns_traced(netns))
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
	r->protocol = bpf_ntohs(KREAD(btf, skb, protocol));
	r->pad[0] = r->pad[1] = 0;
	rec_submit(r);
}

/* Kernels since 6.12 pass the receiving socket as a fourth argument;
 * userspace picks the variant that loads on this kernel. */
SEC("tp_btf/kfree_skb")
int BPF_PROG(drop_sk_btf, struct sk_buff *skb, void *location, enum skb_drop_reason reason,
	     const struct sock *rx_sk)
{
	handle_drop(true, skb, location, reason, rx_sk);
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(drop_btf, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	handle_drop(true, skb, location, reason, NULL);
	return 0;
}

SEC("raw_tp/kfree_skb")
int BPF_PROG(drop_raw, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	handle_drop(false, skb, location, reason, NULL);
	return 0;
}
