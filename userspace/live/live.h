/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live aggregator behind `fabtrace top` and its OpenMetrics endpoint:
 * fed the same records a capture gets (userspace/record/session.h), it keeps
 * running totals and per-refresh-period figures in bounded memory.  Pure:
 * no I/O, no clock (times are passed in), unit-tested on synthetic records
 * (tests/unit/test_live.c).
 *
 * Two kinds of figures:
 *   totals   since the start, never decreasing (the metrics' counters);
 *   period   the last closed refresh period (live__tick() closes one):
 *            bytes, rate, the peak *bin* (per-CPU bins of one start summed,
 *            so a 100 us burst is not hidden by the 1 s average), bursts,
 *            backlog and sojourn maxima, drops, retransmits, counter growth.
 * Records are counted when they arrive: a bin when it closes, which is when
 * the next packet on the same CPU falls into a later bin, or about 20 ms
 * after its end from that CPU's timer (bpf/net.bpf.c).  So the last bin
 * before an idle spell is counted a little late; a few bins of one start
 * that arrive from different CPUs are merged in a small window.
 *
 * Microbursts follow the model (userspace/model/model.h): a merged bin at or
 * above burst_threshold of the capacity is hot; hot bins less than
 * burst_gap_ns apart are one burst, counted when it starts.  Capacity is
 * the link speed, and for TX the root tbf/htb rate limit when lower.
 *
 * Everything is bounded: interfaces (LIVE_MAX_IFACES), drop series,
 * counters, processes, instances; what does not fit is counted in
 * `overflow` so it is never silently gone.
 */
#ifndef FABTRACE_LIVE_H
#define FABTRACE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"
#include "userspace/correlate/arrivals.h"
#include "userspace/live/live_align.h"

#define LIVE_HISTORY 60          /* periods kept per interface (the sparkline) */
#define LIVE_WIN 64              /* recent bins merged per interface and direction */
#define LIVE_MAX_IFACES 1024
#define LIVE_MAX_DROPS 256       /* (interface, reason) series */
#define LIVE_MAX_REASONS 1024    /* drop-reason names */
#define LIVE_MAX_PROCS 256
#define LIVE_MAX_COMMS 8         /* communicators remembered per process */
#define LIVE_MAX_GROUPS 256      /* counter groups */
#define LIVE_MAX_COUNTERS 8192   /* counters over all groups */
#define LIVE_MAX_PORTS 64        /* RDMA ports */
#define LIVE_MAX_SLOTS 65536     /* phase slot ids */
#define LIVE_INSTANCES 256       /* collectives being matched across ranks */
#define LIVE_PENDING 256         /* non-blocking calls waiting for their completion */
#define LIVE_MAX_CPUS 1024
#define LIVE_MAX_RANKS 256       /* (rank, netns) totals, kept when processes go */

#define LIVE_NONE UINT32_MAX

struct live_opts {
	uint64_t bin_ns;             /* the session's bin width (required) */
	double burst_threshold;      /* utilisation of a hot bin; default 0.5 */
	uint64_t burst_gap_ns;       /* 0 = one bin width */
};
void live_opts__init(struct live_opts *o, uint64_t bin_ns);

/* A bin being merged (per-CPU parts of one start). */
struct live_bin {
	uint64_t start_ns;
	uint64_t bytes;
	bool hot;
};

struct live_dir {
	double capacity_bps;         /* 0 = unknown: no utilisation, no bursts */
	/* totals */
	uint64_t bytes, pkts, ce_pkts, bursts, hot_bins;
	/* the open period (a_) and the last closed one (p_) */
	uint64_t a_bytes, a_pkts, a_ce, a_bursts, a_peak_bin;
	uint64_t p_bytes, p_pkts, p_ce, p_bursts, p_peak_bin;
	uint64_t p_peak_start_ns;    /* start of that bin */
	uint64_t a_peak_start_ns;
	double rate_bps;             /* p_bytes over the period */
	double peak_bps;             /* p_peak_bin over one bin */
	double util, peak_util;      /* NaN when the capacity is unknown */
	uint64_t max_peak_bin;       /* highest bin since the start or the last reset */
	double hist[LIVE_HISTORY];   /* rate_bps per period, ring (see live__history) */
	/* merging state */
	struct live_bin win[LIVE_WIN];
	bool burst_open;
	uint64_t burst_start, burst_end;
};

struct live_iface {
	uint32_t netns, ifindex;
	bool known;                  /* described by an FT_REC_IFACE */
	bool traced;
	uint32_t mtu, speed_mbps, tx_rate_kbps, flags;
	char name[16];
	char netns_name[32];
	char kind[16];
	char label[64];              /* "eth0@ns1", "eth0", "netns N ifindex I" */
	struct live_dir dir[2];      /* [FT_DIR_RX], [FT_DIR_TX] */
	/* its qdiscs: the largest values over them */
	char qdisc[16];              /* kind of the qdisc with the largest backlog seen */
	uint64_t a_backlog, p_backlog, max_backlog;   /* bytes */
	uint32_t a_qlen, p_qlen;
	uint64_t a_sojourn, p_sojourn, max_sojourn;   /* ns */
	/* kfree_skb drops on this device, and TCP retransmits of flows routed through it */
	uint64_t drops, a_drops, p_drops;
	uint64_t rtx, a_rtx, p_rtx;  /* retransmitted segments */
	/* growth of its NIC's (ethtool) or RDMA port's counters, by enum ft_ctr_class */
	uint64_t ctr[FT_CLS_MAX], a_ctr[FT_CLS_MAX], p_ctr[FT_CLS_MAX];
	bool has_ctr;                /* some counter group belongs to it */
	uint64_t last_active_ns;     /* last record with traffic */
};

struct live_drop {
	uint32_t iface;              /* index into ifaces, LIVE_NONE: no device */
	uint32_t reason;             /* enum skb_drop_reason; LIVE_NONE: the overflow series */
	uint64_t total, a, p;
};

struct live_port {
	uint32_t port_id, port_num;
	char dev[32];
	char netdev[16];
	uint32_t iface;              /* its netdev's index into ifaces, LIVE_NONE */
	uint32_t rate_mbps;
	uint8_t link_layer;
	uint64_t ctr[FT_CLS_MAX], a_ctr[FT_CLS_MAX], p_ctr[FT_CLS_MAX];
};

struct live_counter {
	uint32_t group;              /* index into groups */
	uint16_t cls, flags;
	char name[56];
	bool have_prev;
	uint64_t prev;               /* last raw value */
	uint64_t total, a, p;        /* scaled growth */
	uint32_t wraps, resets;
};

struct live_group {
	uint32_t id, kind;           /* enum ft_ctr_kind */
	uint32_t port;               /* index into ports, LIVE_NONE */
	uint32_t iface;              /* index into ifaces, LIVE_NONE */
	uint32_t ncounters;
	uint32_t first;              /* index of its counter 0 in counters, LIVE_NONE: not tracked */
	char label[48];
};

struct live_comm {
	uint64_t comm;
	int32_t rank, size;
};

struct live_proc {
	uint32_t pid, netns;
	char comm[16];
	int32_t rank, size;          /* in its largest communicator; -1 unknown */
	struct live_comm comms[LIVE_MAX_COMMS];
	int ncomms;
	/* the latest collective */
	uint16_t last_op;            /* enum ft_op, FT_OP_NONE: none yet */
	uint64_t last_end_ns, last_dur_ns, last_size;
	double last_busbw_bps;       /* NaN when unknown */
	uint64_t step;               /* latest marker step, 0 none */
	/* totals and periods */
	uint64_t calls, colls, coll_ns;
	uint64_t a_colls, p_colls, a_coll_ns, p_coll_ns;
	uint64_t late, a_late, p_late;         /* collectives it entered last */
	uint64_t late_ns, a_late_ns, p_late_ns; /* by how much (skew) */
	bool exited;
	uint64_t last_seen_ns;
};

struct live_slot {
	uint16_t op, lib_kind;
	uint32_t flags;
	bool known;
};

/* One collective being matched across ranks: its calls' arrivals, by proc index. */
struct live_instance {
	uint64_t key, seq;
	uint16_t op;
	int32_t expected;            /* ranks of its communicator */
	struct corr_arrivals arr;
	bool used;
};

struct live_pending {
	uint32_t pid, proc;
	uint64_t req, start_ns, bytes;
	uint16_t op;
	int32_t nranks;
	bool count_total, used;
};

/* Totals of one rank (world rank in a namespace), monotonic across process restarts. */
struct live_rank {
	int32_t rank;
	uint32_t netns;
	uint64_t colls, coll_ns, late, late_ns;
};

struct live_op {
	uint64_t calls, ns, bytes;   /* collectives of this op: count, time, nccl-tests size */
};

/*
 * Who else wants to know, as it happens (the flight recorder's rules,
 * userspace/live/rules.h): a collective call that completed, and an
 * instance every rank of which arrived.  NULL members are not called.
 */
struct live;
struct live_hooks {
	/* process PROC's call of OP from START to END, SIZE bytes (nccl-tests' size, 0 unknown) */
	void (*coll)(void *ctx, const struct live *l, uint32_t proc, uint16_t op, uint64_t start,
		     uint64_t end, uint64_t size);
	/* every rank of an OP instance entered, the first at FIRST; WHO (proc, LIVE_NONE:
	 * nobody) entered last, at LAST */
	void (*matched)(void *ctx, const struct live *l, uint16_t op, uint32_t who, uint64_t first,
			uint64_t last);
	void *ctx;
};

struct live {
	struct live_opts opts;
	uint64_t start_ns;
	uint64_t period_start_ns;    /* of the open period */
	uint64_t last_period_ns;     /* length of the last closed period, 0 before the first */
	uint64_t periods;            /* closed so far */
	unsigned hist_pos;           /* next slot in live_dir.hist */

	struct live_iface *ifaces; size_t nifaces, ifaces_cap;
	uint32_t *ifhash; size_t ifhash_cap; /* open addressing on (netns, ifindex) */

	struct live_drop drops[LIVE_MAX_DROPS]; size_t ndrops;
	uint64_t drops_total, a_drops, p_drops;
	struct live_reason { uint32_t reason; char name[56]; } *reasons; /* LIVE_MAX_REASONS */
	size_t nreasons;

	uint64_t rtx_unrouted, a_rtx_unrouted, p_rtx_unrouted; /* retransmits with no device */

	/* lost events: cumulative per source and CPU as the recorder reads them */
	uint64_t lost[FT_SRC_MAX][LIVE_MAX_CPUS];
	uint64_t lost_by_source[FT_SRC_MAX];
	uint64_t lost_total, a_lost, p_lost;
	/* probe runs the kernel skipped (coverage: tracepoint hits the program did not see) */
	bool skipped_known[FT_PROBE_MAX];
	uint64_t skipped[FT_PROBE_MAX], skipped_mark[FT_PROBE_MAX], p_skipped[FT_PROBE_MAX];

	/* counters */
	struct live_port ports[LIVE_MAX_PORTS]; size_t nports;
	struct live_group groups[LIVE_MAX_GROUPS]; size_t ngroups;
	struct live_counter *counters; size_t ncounters;

	/* phases */
	struct live_slot *slots; size_t nslots;
	struct live_proc procs[LIVE_MAX_PROCS]; size_t nprocs;
	struct live_instance inst[LIVE_INSTANCES]; unsigned inst_next;
	struct live_align align;     /* collective numbers of ranks attached apart */
	struct live_pending pend[LIVE_PENDING]; unsigned pend_next;
	struct live_op ops[FT_OP_MAX];
	struct live_rank ranks[LIVE_MAX_RANKS]; size_t nranks;
	uint64_t colls_total;
	uint32_t slowest;            /* proc with the most lateness in the last period, LIVE_NONE */
	struct live_hooks hooks;     /* zeroed: none */

	/* what did not fit, by kind: never silent */
	uint64_t overflow_ifaces, overflow_drops, overflow_counters, overflow_procs;
	uint64_t records, bad_records;
};

/* NULL on ENOMEM or EINVAL (bin_ns 0).  NOW_NS opens the first period. */
struct live *live__new(const struct live_opts *o, uint64_t now_ns);
void live__free(struct live *l);
/* Feed one record.  0; -EINVAL for a record too short for its type (counted, skipped). */
int live__add(struct live *l, const struct ft_rec_hdr *rec);
/* Close the period that ends at NOW_NS: the p_ figures, rates, history; open the next. */
void live__tick(struct live *l, uint64_t now_ns);
/*
 * Start the open period at NOW_NS, dropping what it collected so far
 * (records of the probes' setup, before the first refresh period); totals stay.
 */
void live__begin_period(struct live *l, uint64_t now_ns);
/*
 * The probes' skipped runs so far (cumulative, per enum ft_probe_id), read
 * by the caller before live__tick(); a smaller reading than before is kept
 * at the larger (the figure never goes down).
 */
void live__set_skipped(struct live *l, const uint64_t skipped[FT_PROBE_MAX], const bool known[FT_PROBE_MAX]);
/* Forget the maxima since the start (peak bin, backlog, sojourn). */
void live__reset_peaks(struct live *l);

/* Index of the interface, or LIVE_NONE. */
uint32_t live__iface(const struct live *l, uint32_t netns, uint32_t ifindex);
/* The last N (<= LIVE_HISTORY) rates of DIR, oldest first, 0 before the first periods. */
void live__history(const struct live *l, const struct live_dir *d, double *out, unsigned n);
/* Name of a drop reason ("QDISC_DROP") or NULL. */
const char *live__reason_name(const struct live *l, uint32_t reason);
/* Seconds of the last closed period (1 before the first, to avoid /0). */
double live__period_s(const struct live *l);
/* Name of a namespace from the interface records ("" if unnamed or unknown). */
const char *live__netns_name(const struct live *l, uint32_t netns);
/* True when a process made collectives in the last period or is not known to have exited. */
bool live__proc_active(const struct live *l, const struct live_proc *p);

#endif
