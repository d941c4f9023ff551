/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Map layouts of bpf/net.bpf.c that userspace reads (probes/netprobe_*.c). */
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
	__u32 handle;   /* the qdisc of a slot_qdisc entry (0: entry unused) */
	char  kind[16];
};

/*
 * The chosen interfaces (-i), found without a hash-map helper call: an
 * array of buckets, FT_IF_WAYS entries each, indexed by ft_if_bucket().
 * An entry's slot indexes the per-CPU arrays slot_bins (slot * 2 + dir) and
 * slot_qdisc (slot * FT_QDISC_WAYS + way), so a chosen interface's packets
 * touch array maps only, whose lookups the verifier inlines.
 */
#define FT_IF_BUCKETS 256
#define FT_IF_WAYS    4
#define FT_IF_SLOTS   256   /* chosen interfaces at most */
#define FT_QDISC_WAYS 4     /* root qdiscs per chosen interface in slot_qdisc */

struct if_way {
	__u32 netns;        /* 0: unused */
	__u32 ifindex;
	__u32 slot;
	__u32 pad;
};

struct if_bucket {
	struct if_way w[FT_IF_WAYS];
};

static inline __u32 ft_if_bucket(__u32 netns, __u32 ifindex)
{
	return ((netns * 2654435761u) ^ (ifindex * 40503u)) % FT_IF_BUCKETS;
}

/*
 * Closed bins leave in batches: a ring-buffer record costs a lock and two
 * helper calls, so each producer (program) stages up to FT_BATCH closed
 * bins per CPU and writes them as one FT_REC_BATCH record (a header, then
 * the bins, each a whole record with its own header), which the recorder
 * unpacks (probes/netprobe_lifecycle.c): the capture holds the bins alone.  A stage is
 * also written out when its first bin closed more than FT_STAGE_MAX_NS
 * before, by its CPU's timer (stage_timers in net.bpf.c: what a CPU holds
 * once its traffic stops), and by the recorder at the stop; only its
 * staged bins are copied.  A program never interrupts itself on a CPU, nor
 * the timer a program, so each stage has one writer at a time.
 * 32 rather than 8: on a path where most packets close a bin, the ring
 * operations were about 30 ns per closed bin (docs/performance.md).
 */
#define FT_REC_BATCH    31     /* kernel -> recorder only; never in a capture */
#define FT_BATCH        32
#define FT_STAGE_MAX_NS 20000000ULL
enum { FT_STAGE_TX, FT_STAGE_RX, FT_STAGE_ENQ, FT_STAGE_DEQ, FT_STAGE_MAX };

struct iface_stage {
	struct ft_rec_hdr hdr;              /* FT_REC_BATCH, size: up to b[n] */
	struct ft_iface_bin b[FT_BATCH];
	__u32 n;
	__u32 pad;
	__u64 first_ns;                     /* when b[0] was staged */
};

struct qdisc_stage {
	struct ft_rec_hdr hdr;
	struct ft_qdisc_bin b[FT_BATCH];
	__u32 n;
	__u32 pad;
	__u64 first_ns;
};

/* One skb per qdisc whose sojourn is being measured (sampled sojourn). */
#define FT_SOJ_TRACK 1024
struct soj_track {
	__u64 q;            /* the qdisc */
	__u64 skb;          /* 0: none in flight */
	__u64 ts;           /* its enqueue time */
	__u32 len;
	__u32 pad;
};

/* CE-marked packets of one flow (key: struct ft_flow as in the packet), per CPU. */
struct ce_val {
	__u64 pkts;
	__u64 first_ns;
	__u64 last_ns;
};

#endif
