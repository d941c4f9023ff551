/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ECN on receive (bpf/net.bpf.c's receive bins): whether a packet's IP
 * header is marked CE, and the flow it belongs to when it is.
 */
#ifndef FABTRACE_ECN_BPF_H
#define FABTRACE_ECN_BPF_H

#include "common.bpf.h"

/*
 * Whether the packet whose network header is at NH (protocol PROTO) is
 * marked CE, from its first two bytes, read directly when the caller has
 * them (P: a tc program's packet data, checked against its end), else
 * through the helper; false when they cannot be read.  Most packets are not
 * marked, so the whole header is parsed (parse_ce) only for those that are.
 */
static __always_inline bool ce_marked(const unsigned char *nh, const __u8 *p, __u16 proto)
{
	__u8 b[2];

	if (proto != ETH_P_IP && proto != ETH_P_IPV6)
		return false;
	if (p) {
		b[0] = p[0];
		b[1] = p[1];
	} else if (bpf_probe_read_kernel(b, sizeof(b), nh)) {
		return false;
	}
	if (proto == ETH_P_IP)
		return (b[1] & 3) == 3;       /* the TOS byte's ECN field */
	return ((b[1] >> 4) & 3) == 3;    /* the traffic class's low bits, in the 2nd byte's high nibble */
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

#endif
