/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the BPF objects: ring buffer with counted loss, netns, filters. */
#ifndef FABTRACE_COMMON_BPF_H
#define FABTRACE_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "fabtrace.h"
#include "net.h"

#define AF_INET  2
#define AF_INET6 10
#define ETH_P_IP   0x0800
#define ETH_P_IPV6 0x86DD

/* Filters, set by userspace before load (bcc's targ_* convention). */
const volatile __u32 targ_netns = 0;         /* only this netns inode; 0 = all */
const volatile bool  targ_filter_ifaces = 0; /* only (netns, ifindex) in targ_iftab */
/* Wake the recorder each time this many more bytes wait in the ring; 0 = the
 * kernel's default (a wake-up whenever it had caught up: nearly every record). */
const volatile __u32 targ_wake_bytes = 0;

/* The chosen interfaces and their slots (struct if_bucket in net.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FT_IF_BUCKETS);
	__type(key, __u32);
	__type(value, struct if_bucket);
} targ_iftab SEC(".maps");

/* Every event goes through this ring buffer; userspace sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Ring-buffer reserve failures (and other lost data) per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Add one to a per-CPU array slot: no atomic needed. */
static __always_inline void percpu_inc(void *map, __u32 key)
{
	__u64 *n = bpf_map_lookup_elem(map, &key);

	if (n)
		*n += 1;
}

static __always_inline void count_lost(void)
{
	percpu_inc(&lost, 0);
}

/*
 * Program invocations per hook (enum ft_probe_id) per CPU.  Every program
 * counts itself first, before any filter, so userspace can compare the runs
 * with the tracepoint's hit count (a perf counter) and report the hits the
 * kernel did not run the program for (recursion, NMI, patched kernels).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_PROBE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} runs SEC(".maps");

static __always_inline void count_run(enum ft_probe_id id)
{
	percpu_inc(&runs, id);
}

/* Reserve a record of `size` bytes of `type`, or count it lost. */
static __always_inline void *rec_reserve(__u16 type, __u32 size)
{
	struct ft_rec_hdr *h = bpf_ringbuf_reserve(&events, size, 0);

	if (!h) {
		count_lost();
		return NULL;
	}
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	return h;
}

/*
 * Commit a record from rec_reserve().  A wake-up per record (irq_work, then
 * the recorder's epoll) was most of a probe's cost (docs/performance.md), so
 * with targ_wake_bytes set only the record that takes the backlog past a
 * multiple of it wakes the recorder, which otherwise drains on its own short
 * timer.  Past a multiple, not above a level: a recorder that lags (or is
 * stopped) must not be woken by every record, which costs more than before.
 * Two CPUs committing at once may both miss a crossing; the timer drains it.
 */
static __always_inline void rec_submit(void *r)
{
	__u64 flags = 0;

	if (targ_wake_bytes) {
		/* this record's room in the ring: 8-byte ring header, 8-byte aligned */
		__u64 len = (((struct ft_rec_hdr *)r)->size + 8 + 7) & ~7ULL;
		__u64 after = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		__u64 before = after > len ? after - len : 0;

		flags = before / targ_wake_bytes != after / targ_wake_bytes ? BPF_RB_FORCE_WAKEUP
									   : BPF_RB_NO_WAKEUP;
	}
	bpf_ringbuf_submit(r, flags);
}

/* Copy a record of `size` bytes (<= max) from `buf` into the ring, with the
 * wake-up rule of rec_submit(); false when the ring is full. */
static __always_inline bool rec_output(void *buf, __u64 size)
{
	__u64 flags = 0;

	if (targ_wake_bytes) {
		__u64 after = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + ((size + 8 + 7) & ~7ULL);

		flags = (after - ((size + 8 + 7) & ~7ULL)) / targ_wake_bytes != after / targ_wake_bytes
				? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	}
	return bpf_ringbuf_output(&events, buf, size, flags) == 0;
}

/* Add n to this CPU's lost count. */
static __always_inline void count_lost_n(__u64 n)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&lost, &k);

	if (v)
		*v += n;
}

/* Commit a record the recorder must act on at once (an exec: it attaches the
 * new program's libraries before that gets far); rare, so always woken. */
static __always_inline void rec_submit_now(void *r)
{
	bpf_ringbuf_submit(r, targ_wake_bytes ? BPF_RB_FORCE_WAKEUP : 0);
}

/*
 * Kernel reads.  A tp_btf program may load a field through its arguments'
 * typed pointers directly (a plain load the JIT guards against faults); a
 * raw_tp program must call bpf_probe_read_kernel (BPF_CORE_READ), a helper
 * call each, several times the cost.  Every handler takes `btf`, a constant
 * in each program, so only one of the two is compiled into it.
 */
#define KREAD(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))

static __always_inline __u32 dev_netns_x(bool btf, const struct net_device *dev)
{
	if (btf)
		return dev->nd_net.net->ns.inum;
	return BPF_CORE_READ(dev, nd_net.net, ns.inum);
}

static __always_inline __u32 dev_netns(const struct net_device *dev)
{
	return dev_netns_x(false, dev);
}

static __always_inline __u32 sk_netns_x(bool btf, const struct sock *sk)
{
	if (btf)
		return sk->__sk_common.skc_net.net->ns.inum;
	return BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
}

static __always_inline __u32 sk_netns(const struct sock *sk)
{
	return sk_netns_x(false, sk);
}

static __always_inline bool netns_wanted(__u32 netns)
{
	return !targ_netns || netns == targ_netns;
}

/* The slot of a chosen interface + 1; 0 when it is not chosen. */
static __always_inline __u32 iface_slot1(__u32 netns, __u32 ifindex)
{
	__u32 b = ft_if_bucket(netns, ifindex);
	struct if_bucket *e = bpf_map_lookup_elem(&targ_iftab, &b);

	if (!e)
		return 0;
#pragma unroll
	for (int i = 0; i < FT_IF_WAYS; i++)
		if (e->w[i].netns == netns && e->w[i].ifindex == ifindex && netns)
			return e->w[i].slot + 1;
	return 0;
}

#define FT_SLOT_ALL ((__u32)~0U) /* every interface is traced (no -i): no slot */

/* 0: not traced; FT_SLOT_ALL: traced, no -i; else the chosen interface's slot + 1 */
static __always_inline __u32 iface_pick(__u32 netns, __u32 ifindex)
{
	if (!netns_wanted(netns))
		return 0;
	if (!targ_filter_ifaces)
		return FT_SLOT_ALL;
	return iface_slot1(netns, ifindex);
}

static __always_inline bool iface_wanted(__u32 netns, __u32 ifindex)
{
	return iface_pick(netns, ifindex) != 0;
}

/*
 * A record that names no device (a drop of a socket's, a flow with no route
 * yet): its namespace is traced: --netns's, and with -i one of the chosen
 * interfaces' (an entry (netns, 0) in targ_iftab: netprobe__fill_iftab()),
 * so that a TCP socket's drops in another namespace stay out.
 */
static __always_inline bool netns_traced(__u32 netns)
{
	if (!netns_wanted(netns))
		return false;
	return !targ_filter_ifaces || iface_slot1(netns, 0) != 0;
}

/* Fill the flow of a TCP socket; false when it is filtered out. */
static __always_inline bool sk_flow_x(bool btf, const struct sock *sk, struct ft_flow *f)
{
	__u16 family = KREAD(btf, sk, __sk_common.skc_family);
	const struct net_device *dev;

	f->netns = sk_netns_x(btf, sk);
	if (btf) {
		const struct dst_entry *dst = sk->sk_dst_cache;

		dev = dst ? dst->dev : NULL;
	} else {
		dev = BPF_CORE_READ(sk, sk_dst_cache, dev);
	}
	f->ifindex = dev ? KREAD(btf, dev, ifindex) : 0;
	if (f->ifindex ? !iface_wanted(f->netns, f->ifindex) : !netns_traced(f->netns))
		return false;
	f->proto = 6;
	f->sport = KREAD(btf, sk, __sk_common.skc_num);
	f->dport = bpf_ntohs(KREAD(btf, sk, __sk_common.skc_dport));
	if (family == AF_INET) {
		__be32 s = KREAD(btf, sk, __sk_common.skc_rcv_saddr);
		__be32 d = KREAD(btf, sk, __sk_common.skc_daddr);

		f->family = 4;
		__builtin_memcpy(f->saddr, &s, 4);
		__builtin_memcpy(f->daddr, &d, 4);
	} else if (family == AF_INET6) {
		f->family = 6;
		BPF_CORE_READ_INTO(&f->saddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&f->daddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	} else {
		return false;
	}
	return true;
}

static __always_inline bool sk_flow(const struct sock *sk, struct ft_flow *f)
{
	return sk_flow_x(false, sk, f);
}

/* Start of the bin that holds `now`. */
static __always_inline __u64 bin_start(__u64 now, __u64 bin_ns)
{
	return now - (now % bin_ns);
}

/* Whether `now` lies past the open bin that starts at START: a subtraction
 * per packet, where comparing bin_start(now) cost a 64-bit division; the
 * division is left to the packet that closes the bin. */
static __always_inline bool bin_over(__u64 start, __u64 now, __u64 bin_ns)
{
	return now - start >= bin_ns;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#endif
