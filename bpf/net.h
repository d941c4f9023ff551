/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Map layouts of bpf/net.bpf.c that userspace reads (probes/netprobe.c). */
#ifndef FABTRACE_NET_H
#define FABTRACE_NET_H

#include "fabtrace.h"

/* Open microburst bin of one interface and direction, per CPU. */
struct bin_key {
	__u32 netns;
	__u32 ifindex;
	__u32 dir;
	__u32 pad;
};

struct bin_acc {
	__u64 start_ns;
	__u64 bytes;
	__u32 pkts;
	__u32 ce_pkts;
};

/* Open queue bin of one qdisc, per CPU. */
struct qdisc_key {
	__u32 netns;
	__u32 ifindex;
	__u32 handle;
	__u32 pad;
};

struct qdisc_acc {
	__u64 start_ns;
	__u64 max_backlog;
	__u64 enq_bytes;
	__u64 sojourn_sum_ns;
	__u64 sojourn_max_ns;
	__u32 sojourn_cnt;
	__u32 max_qlen;
	__u32 enq_pkts;
	__u32 drops;
	__u32 parent;
	__u32 pad;
	char  kind[16];
};

/* CE-marked packets of one flow (key: struct ft_flow as in the packet), per CPU. */
struct ce_val {
	__u64 pkts;
	__u64 first_ns;
	__u64 last_ns;
};

#endif
