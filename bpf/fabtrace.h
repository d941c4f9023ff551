/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fabtrace ABI: the single definition of every record.
 *
 * The same structs are written by the BPF programs into the ring buffer and
 * by the recorder into the capture file, so a kernel event is copied into a
 * capture block byte for byte.  Every record starts with struct ft_rec_hdr;
 * `size` is the whole record including the header, so readers skip types
 * they do not know.  All fields are fixed width with explicit padding;
 * userspace checks the sizes with _Static_assert (userspace/capture/abi_check.c).
 * Integers are little endian (the file is written on the host that traced).
 */
#ifndef FABTRACE_ABI_H
#define FABTRACE_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum ft_rec_type {
	/* emitted by the kernel (bpf/) */
	FT_REC_IFACE_BIN  = 1,  /* struct ft_iface_bin */
	FT_REC_QDISC_BIN  = 2,  /* struct ft_qdisc_bin */
	FT_REC_DROP       = 3,  /* struct ft_drop */
	FT_REC_RETRANS    = 4,  /* struct ft_retrans */
	FT_REC_CONG_STATE = 5,  /* struct ft_cong_state */
	FT_REC_TCP_SAMPLE = 6,  /* struct ft_tcp_sample */
	FT_REC_PHASE      = 7,  /* struct ft_phase: one traced library call or marker */
	FT_REC_REQ_DONE   = 8,  /* struct ft_req_done: a non-blocking request completed */
	FT_REC_COMM_INFO  = 9,  /* struct ft_comm_info: rank/size of a communicator */
	FT_REC_PROC       = 10, /* struct ft_proc: a followed process forked/exec'd/exited */
	FT_REC_SOCK_OWNER = 11, /* struct ft_sock_owner: the process using a flow's socket */
	/* written by the recorder (userspace/) */
	FT_REC_IFACE       = 32, /* struct ft_iface_info: an interface's identity */
	FT_REC_IFACE_STATS = 33, /* struct ft_iface_stats: kernel counters at start/stop */
	FT_REC_CE_FLOW     = 34, /* struct ft_ce_flow: cumulative CE count per flow */
	FT_REC_LOST        = 35, /* struct ft_lost: cumulative ring-buffer loss per CPU */
	FT_REC_DROP_REASON = 36, /* struct ft_drop_reason: name of a drop reason (from BTF) */
	FT_REC_PROBE       = 37, /* struct ft_probe_info: one probe and whether it ran */
	FT_REC_COVERAGE    = 38, /* struct ft_coverage: tracepoint hits vs program runs of a probe */
	FT_REC_PHASE_SLOT  = 39, /* struct ft_phase_slot: what a phase record's slot names */
	FT_REC_RDMA_PORT   = 40, /* struct ft_rdma_port: one port of an RDMA device */
	FT_REC_CTR_GROUP   = 41, /* struct ft_ctr_group: counters sampled together (rdma/) */
	FT_REC_CTR_NAME    = 42, /* struct ft_ctr_name: one counter of a group */
	FT_REC_CTR_SAMPLE  = 43, /* struct ft_ctr_sample + __u64 values[n]: one read of a group */
	FT_REC_SAMPLER     = 44, /* struct ft_sampler_event: back-off, lifespan, read errors */
	FT_REC_CONFIG      = 45, /* struct ft_config + key + value: one setting the capture ran under */
	FT_REC_TRIGGER     = 46, /* struct ft_trigger: a flight recorder's trigger (docs/flight-recorder.md) */
	FT_REC_PROBE_SPAN  = 47, /* struct ft_probe_span: probes attached or detached mid-recording */
	FT_REC_SCHED_WAIT  = 48, /* struct ft_sched_wait: a rank's threads waited for a CPU */
	FT_REC_HOST_ID     = 56, /* struct ft_host_id: which machine (and namespace) recorded */
	FT_REC_CLOCK       = 57, /* struct ft_clock: REALTIME/TAI <-> MONOTONIC pair + sync state */
	FT_REC_HOST        = 58, /* struct ft_host: one host of a merged capture, its clock fit */
	FT_REC_HOST_NETNS  = 59, /* struct ft_host_netns: a namespace of a merged capture's host */
	FT_REC_END         = 63, /* struct ft_end: clean end of capture */
};

struct ft_rec_hdr {
	__u16 type;   /* enum ft_rec_type */
	__u16 size;   /* bytes, header included */
	__u32 cpu;    /* CPU that produced it (kernel records), else 0 */
};

enum ft_dir {
	FT_DIR_RX = 0,
	FT_DIR_TX = 1,
};

/*
 * One closed bin of traffic on one interface in one direction, from one CPU.
 * Bins of the same (netns, ifindex, dir, start_ns) from different CPUs must
 * be summed by the reader.  TX bytes are skb->len at the driver (as the
 * device's tx_bytes counts them); RX bytes include the link-layer header
 * that eth_type_trans() pulled, so both match /sys/class/net statistics.
 */
struct ft_iface_bin {
	struct ft_rec_hdr hdr;
	__u64 start_ns;     /* bin start, CLOCK_MONOTONIC */
	__u64 bytes;
	__u32 pkts;         /* skbs (a GSO/GRO skb counts once, as veth counts it) */
	__u32 ce_pkts;      /* RX: IPv4/IPv6 packets with ECN = CE */
	__u32 netns;        /* network namespace inode number */
	__u32 ifindex;
	__u8  dir;          /* enum ft_dir */
	__u8  pad[7];
};

/* Queue state of one qdisc during one bin, from one CPU (take max / sum). */
struct ft_qdisc_bin {
	struct ft_rec_hdr hdr;
	__u64 start_ns;
	__u64 max_backlog;      /* bytes queued, max seen after an enqueue */
	__u64 enq_bytes;
	__u64 sojourn_sum_ns;   /* enqueue -> dequeue, summed over sojourn_cnt packets */
	__u64 sojourn_max_ns;
	__u32 sojourn_cnt;
	__u32 max_qlen;         /* packets queued, max */
	__u32 enq_pkts;
	__u32 drops;            /* qstats.drops as last seen (qdisc lifetime counter) */
	__u32 netns;
	__u32 ifindex;
	__u32 handle;           /* e.g. 0x10000 for "1:" */
	__u32 parent;
	char  kind[16];         /* qdisc ops id: "tbf", "htb", ... */
};

/* One kfree_skb() drop. */
struct ft_drop {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u64 location;     /* kernel text address that dropped it */
	__u32 netns;        /* 0 when the skb had no device */
	__u32 ifindex;
	__u32 reason;       /* enum skb_drop_reason value; names come as FT_REC_DROP_REASON */
	__u16 protocol;     /* ETH_P_* in host order */
	__u8  pad[2];
};

/* A transport flow as seen from the local socket. */
struct ft_flow {
	__u8  saddr[16];    /* IPv4 uses the first 4 bytes */
	__u8  daddr[16];
	__u16 sport;        /* host order */
	__u16 dport;
	__u8  family;       /* 4 or 6 */
	__u8  proto;        /* IPPROTO_* */
	__u8  pad[2];
	__u32 netns;
	__u32 ifindex;      /* 0 when unknown */
};

enum ft_rtx_trigger {
	FT_RTX_UNKNOWN = 0,
	FT_RTX_RTO     = 1, /* retransmission timeout (CA_Loss) */
	FT_RTX_FAST    = 2, /* fast retransmit / recovery (CA_Recovery) */
	FT_RTX_TLP     = 3, /* tail loss probe */
	FT_RTX_SYN     = 4, /* SYN or SYN-ACK retransmit */
};

/* One TCP retransmitted segment. */
struct ft_retrans {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	struct ft_flow flow;
	__u32 snd_cwnd;
	__u32 srtt_us;
	__u8  ca_state;     /* TCP_CA_* of the socket when it retransmitted */
	__u8  trigger;      /* enum ft_rtx_trigger */
	__u8  sk_state;     /* TCP_ESTABLISHED, ... */
	__u8  pad;
	__s32 err;          /* result of the retransmit (0 = sent) */
	__u32 segs;         /* segments in the skb (nstat's TcpRetransSegs counts these) */
	__u32 pad2;
};

/* A TCP congestion-avoidance state transition. */
struct ft_cong_state {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	struct ft_flow flow;
	__u8  old_state;    /* TCP_CA_Open=0, Disorder, CWR, Recovery, Loss=4 */
	__u8  new_state;
	__u8  pad[6];
};

/* RTT/cwnd sample of one flow (rate-limited per socket). */
struct ft_tcp_sample {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	struct ft_flow flow;
	__u32 srtt_us;
	__u32 rttvar_us;
	__u32 snd_cwnd;
	__u32 ssthresh;
	__u32 packets_out;
	__u32 retrans_out;
	__u32 total_retrans;
	__u32 pad;
};

/* ---- collective phases (bpf/phase.bpf.c) ---- */

/* The library family a phase probe belongs to. */
enum ft_lib_kind {
	FT_LIB_NONE    = 0,
	FT_LIB_MPI     = 1,
	FT_LIB_NCCL    = 2,
	FT_LIB_GLOO    = 3,
	FT_LIB_MARKER  = 4,  /* probes/marker: libfabtrace_marker.so */
	FT_LIB_GENERIC = 5,  /* --phase LIB:SYMBOL[=NAME] */
};

/* The operation a slot performs (what the correlator groups by). */
enum ft_op {
	FT_OP_NONE = 0,
	FT_OP_ALLREDUCE,
	FT_OP_REDUCE_SCATTER,
	FT_OP_ALLGATHER,
	FT_OP_BCAST,
	FT_OP_REDUCE,
	FT_OP_ALLTOALL,
	FT_OP_BARRIER,
	FT_OP_GATHER,
	FT_OP_SCATTER,
	FT_OP_SEND,
	FT_OP_RECV,
	FT_OP_SENDRECV,
	FT_OP_GROUP_START,   /* ncclGroupStart */
	FT_OP_GROUP_END,     /* ncclGroupEnd */
	FT_OP_COMM_INIT,     /* ncclCommInitRank, MPI_Comm_rank/size */
	FT_OP_COMPLETION,    /* MPI_Wait/Test family: ends non-blocking calls */
	FT_OP_STEP,          /* marker: training step (count = step number) */
	FT_OP_MARK,          /* marker: custom named phase (name) */
	FT_OP_CUSTOM,        /* generic --phase */
	FT_OP_MAX,
};

enum ft_phase_flags {
	FT_PHASE_OPEN        = 1 << 0, /* no return seen: still running at stop (end_ns = stop) */
	FT_PHASE_NONBLOCKING = 1 << 1, /* returned a request (req); ends at its FT_REC_REQ_DONE */
	FT_PHASE_MARK_BEGIN  = 1 << 2, /* marker begin: start_ns = end_ns = the call */
	FT_PHASE_MARK_END    = 1 << 3, /* marker end */
	FT_PHASE_COUNT_TOTAL = 1 << 4, /* count is already the sum over ranks (v-variants) */
	/* FT_SLOT_PLUGIN records: where start/end come from; ret is the channel count */
	FT_PHASE_GPU_TIMER   = 1 << 5, /* kernel-channel GPU timestamps */
	FT_PHASE_PROXY       = 1 << 6, /* NCCL proxy progress (no GPU timer in this ABI) */
	FT_PHASE_LIB_SEQ     = 1 << 7, /* seq is the library's own (Gloo's tag), equal on every rank */
};

/*
 * One call of a traced library function, emitted at its return (or at the
 * stop for calls still running, flagged OPEN).  What the function is comes
 * from the FT_REC_PHASE_SLOT with the same slot.  count/dtype_size/comm/peer
 * are the call's arguments as far as the slot's layout knows them; bytes =
 * count * dtype_size (0 = unknown).  seq numbers the collectives of one
 * process on one communicator from 1, so the same collective can be matched
 * across ranks; 0 for non-collectives.
 */
struct ft_phase {
	struct ft_rec_hdr hdr;
	__u64 start_ns;     /* entry, CLOCK_MONOTONIC */
	__u64 end_ns;       /* return */
	__u64 count;        /* elements; the step number for FT_OP_STEP markers */
	__u64 comm;         /* communicator handle or pointer in that process; 0 none */
	__u64 req;          /* request handle returned by a non-blocking call */
	__u64 seq;
	__u32 pid, tid;
	__u32 netns;        /* network namespace of the calling task */
	__u32 slot;         /* FT_REC_PHASE_SLOT index */
	__u32 dtype_size;   /* bytes per element, 0 = unknown */
	__s32 peer;         /* root of rooted collectives, peer of send/recv; -1 = none */
	__u32 flags;        /* enum ft_phase_flags */
	__s32 ret;          /* return value (low 32 bits) */
	char  name[32];     /* marker name; Open MPI collectives: the communicator's name; else "" */
};

/* A request passed to a completion call (MPI_Wait/Test family) completed. */
struct ft_req_done {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;        /* return of the completion call */
	__u64 req;          /* request handle as the process saw it before completion */
	__u32 pid, tid;
	__u32 slot;         /* the completion function */
	__u32 pad;
};

/* Rank and/or size of a communicator in one process (-1 = not in this record). */
struct ft_comm_info {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u64 comm;
	__u32 pid;
	__s32 rank;
	__s32 size;
	__u32 slot;         /* function that told us (MPI_Comm_rank, ncclCommInitRank, ...) */
};
/*
 * comm of an ft_comm_info read from the process's environment (PMI_RANK,
 * OMPI_COMM_WORLD_RANK, RANK...) when fabtrace attached to it: its world
 * rank and size as the launcher set them; slot is FT_SLOT_ENV.
 */
#define FT_COMM_ENV (~0ull)
#define FT_SLOT_ENV (~0u)
/*
 * A comm_info with slot FT_SLOT_JOB names the process's job instead: comm is
 * a hash of the job's id from the launcher's environment (probes/procenv.h),
 * equal in every process of the job; rank and size are -1.
 */
#define FT_SLOT_JOB (~1u)

enum ft_proc_event {
	FT_PROC_EXISTING = 0, /* already running when recording began (-p, or found at start) */
	FT_PROC_FORK     = 1,
	FT_PROC_EXEC     = 2,
	FT_PROC_EXIT     = 3,
};

/* A process the phase probes follow (the -- COMMAND tree, or -p PIDs). */
struct ft_proc {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 ppid;
	__u32 netns;
	__u32 event;        /* enum ft_proc_event */
	__s32 exit_code;    /* FT_PROC_EXIT: wait status as the kernel reports it */
	__u32 pad;
	char  comm[16];
};

/*
 * The process that sends or receives on a flow, seen once per socket and
 * process (process context: sock_send_length / sock_recv_length).  Lets the
 * correlator put retransmits, CE marks and samples of that flow on a rank.
 */
struct ft_sock_owner {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	struct ft_flow flow;
	__u32 pid, tid;
	char  comm[16];
};

/* ---- records written by the recorder ---- */

enum ft_iface_flags {
	FT_IFACE_UP      = 1 << 0,
	FT_IFACE_TRACED  = 1 << 1, /* selected by the filters */
};

struct ft_iface_info {
	struct ft_rec_hdr hdr;
	__u32 netns;
	__u32 ifindex;
	__u32 mtu;
	__u32 speed_mbps;   /* 0 = unknown */
	__u32 flags;        /* enum ft_iface_flags */
	__u32 tx_rate_kbps; /* egress rate limit of the root tbf/htb qdisc, 0 = none */
	char  name[16];
	char  netns_name[32]; /* "" for the initial namespace or an unnamed one */
	char  kind[16];       /* "veth", "bridge", "" for hardware */
};

enum ft_stats_phase {
	FT_STATS_START = 0,
	FT_STATS_STOP  = 1,
};

/* Kernel interface counters (rtnl IFLA_STATS64), for the conservation check. */
struct ft_iface_stats {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u32 netns;
	__u32 ifindex;
	__u8  phase;        /* enum ft_stats_phase */
	__u8  pad[3];
	__u32 read_ns;      /* ts_ns minus the moment the counters were asked for
			     * (saturated): the kernel read them in between;
			     * 0 unknown (recorded before 2026-11-28) */
	__u64 rx_bytes;
	__u64 rx_packets;
	__u64 tx_bytes;
	__u64 tx_packets;
	__u64 rx_dropped;
	__u64 tx_dropped;
};

/* CE-marked packets received on one flow since the recording began. */
struct ft_ce_flow {
	struct ft_rec_hdr hdr;
	struct ft_flow flow;
	__u64 ce_pkts;
	__u64 first_ns;
	__u64 last_ns;
};

enum ft_source {
	FT_SRC_NET = 0,     /* bpf/net.bpf.c ring buffer */
	FT_SRC_TCP = 1,     /* bpf/tcp.bpf.c ring buffer */
	FT_SRC_USER = 2,    /* recorder-side loss (e.g. a capture write failed) */
	FT_SRC_PHASE = 3,   /* bpf/phase.bpf.c ring buffer */
	FT_SRC_MAX,
};

/* Ring-buffer reserve failures on one CPU, cumulative since the start. */
struct ft_lost {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u64 lost;
	__u32 source;       /* enum ft_source */
	__u32 cpu;
};

struct ft_drop_reason {
	struct ft_rec_hdr hdr;
	__u32 reason;
	__u32 pad;
	char  name[56];     /* e.g. "QDISC_DROP" (SKB_DROP_REASON_ prefix removed) */
};

/* The network probes; their names are one table, probes/probe_names.c. */
enum ft_probe_id {
	FT_PROBE_IFACE_TX = 0,
	FT_PROBE_IFACE_RX,
	FT_PROBE_QDISC_ENQ,
	FT_PROBE_QDISC_DEQ,
	FT_PROBE_DROP,
	FT_PROBE_RETRANS,
	FT_PROBE_CONG_STATE,
	FT_PROBE_TCP_SAMPLE,
	FT_PROBE_MAX,
};

struct ft_probe_info {
	struct ft_rec_hdr hdr;
	__u32 id;           /* enum ft_probe_id */
	__u32 attached;     /* 1 = attached for this capture */
	char  name[32];     /* e.g. "iface_tx" */
	char  hook[48];     /* e.g. "tp_btf/net_dev_start_xmit" */
	char  why[64];      /* why not attached, or "" */
};

/*
 * Coverage of one attached probe over the capture, written once at stop:
 * how often its tracepoint fired (a per-CPU perf counter on the same
 * tracepoint) and how often the program ran (the BPF `runs` map).  Hits the
 * program did not see (hits - runs, clamped at 0) are data the kernel lost
 * without telling the ring buffer: recursion protection, NMI context, or a
 * kernel that skips BPF for some tasks.  known = 0: the hits could not be
 * counted (no tracefs or perf counter), so the loss is unknown, not 0.
 */
struct ft_coverage {
	struct ft_rec_hdr hdr;
	__u32 probe;        /* enum ft_probe_id */
	__u32 known;        /* 1 = hits counted */
	__u64 hits;         /* tracepoint hits (perf counter), 0 when unknown */
	__u64 runs;         /* program runs */
};

enum ft_slot_flags {
	FT_SLOT_COLLECTIVE   = 1 << 0, /* counts in the per-communicator seq */
	FT_SLOT_NONBLOCKING  = 1 << 1, /* returns a request; completion ends it */
	FT_SLOT_ENQUEUE_ONLY = 1 << 2, /* returns at host-side enqueue, not at completion (NCCL) */
	FT_SLOT_COMPLETION   = 1 << 3, /* Wait/Test family */
	FT_SLOT_MARKER       = 1 << 4,
	/* an event of fabtrace's NCCL profiler plugin (probes/nccl_profiler): start and
	 * end are the collective's own, as the GPU or NCCL's proxy ran it, not a call's */
	FT_SLOT_PLUGIN       = 1 << 5,
	/*
	 * How the library represents its communicator, decided by the library
	 * (never by the value's magnitude): an integer handle equal in every
	 * process (MPICH), or a per-process object pointer (Open MPI, NCCL,
	 * Gloo).  Captures from before these bits have neither.
	 */
	FT_SLOT_COMM_POINTER = 1 << 7,
	FT_SLOT_COMM_HANDLE  = 1 << 8,
};

/* What phase records with this slot are: the library, symbol and operation. */
struct ft_phase_slot {
	struct ft_rec_hdr hdr;
	__u32 slot;
	__u16 lib_kind;     /* enum ft_lib_kind */
	__u16 op;           /* enum ft_op */
	__u32 flags;        /* enum ft_slot_flags */
	__u32 pad;
	__u64 offset;       /* file offset the uprobe is attached at */
	char  lib[128];     /* library path (truncated from the left if longer) */
	char  symbol[96];   /* symbol, demangled for C++ (truncated) */
	char  name[32];     /* display name: "allreduce", or NAME of --phase LIB:SYM=NAME */
};

enum ft_stop_reason {
	FT_STOP_DURATION = 0,
	FT_STOP_SIGNAL   = 1,
	FT_STOP_COMMAND  = 2,  /* the traced command exited */
	FT_STOP_ERROR    = 3,  /* e.g. disk full; data up to here is valid */
	FT_STOP_MIXED    = 4,  /* merged: the hosts' recordings stopped for different reasons */
	FT_STOP_ROTATED  = 5,  /* a flight recorder's segment or snapshot closed; the recording went on */
	FT_STOP_PROCS    = 6,  /* every process given with -p exited */
};

struct ft_end {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u64 records;      /* records written before this one */
	__u32 stop_reason;  /* enum ft_stop_reason */
	__u32 stop_ago_ns;  /* ts_ns minus the moment the recording was told to
			     * stop, where the phases end (saturated); 0 unknown
			     * (before 2026-11-28, and merged captures) */
};

/* ---- counter sampler (rdma/): RDMA ports, their counters, NIC ethtool stats ---- */

enum ft_link_layer {
	FT_LL_UNKNOWN = 0,
	FT_LL_IB = 1,
	FT_LL_ETHERNET = 2,         /* RoCE */
};

enum ft_rdma_port_flags {
	FT_PORT_COUNTERS    = 1 << 0, /* ports/N/counters/ exists */
	FT_PORT_HW_COUNTERS = 1 << 1, /* ports/N/hw_counters/ exists */
	FT_PORT_VERBS       = 1 << 2, /* attributes from libibverbs (else from sysfs only) */
	FT_PORT_LIFESPAN_SET = 1 << 3, /* hw_counters/lifespan was changed for the recording */
};

/* One port of an RDMA device, written once at the start of a recording. */
struct ft_rdma_port {
	struct ft_rec_hdr hdr;
	__u32 port_id;      /* capture-wide id, referenced by ft_ctr_group.port_id */
	__u32 port_num;     /* 1-based port number on the device */
	char  dev[32];      /* "mlx5_0" */
	char  netdev[16];   /* RoCE: the netdev behind the port ("" for IB or unknown) */
	__u32 netdev_netns; /* netns inode of that netdev, 0 when not found */
	__u32 netdev_ifindex;
	__u8  state;        /* IB port state: 1 down, 2 init, 3 armed, 4 active, 5 active_defer */
	__u8  phys_state;   /* 5 = LinkUp, 3 = Disabled, ... */
	__u8  link_layer;   /* enum ft_link_layer */
	__u8  width;        /* lanes: 1, 2, 4, 8, 12; 0 unknown */
	__u32 rate_mbps;    /* width x lane speed, 0 unknown */
	__u32 active_mtu;   /* bytes, 0 unknown */
	__u32 flags;        /* enum ft_rdma_port_flags */
	__u32 lifespan_ms;  /* hw_counters/lifespan as found (0 unknown) */
	__u32 lifespan_set_ms; /* value set for the recording (0 = left alone) */
	__u64 node_guid;
	char  rate[32];     /* sysfs "rate" text, e.g. "200 Gb/sec (4X HDR)" */
	char  fw_ver[32];
	char  hca_type[16]; /* "MT4123" */
};

enum ft_ctr_kind {
	FT_CTR_PORT_COUNTERS = 0,   /* ports/N/counters/ (PMA, legacy widths) */
	FT_CTR_PORT_HW       = 1,   /* ports/N/hw_counters/ (driver, cached for lifespan ms) */
	FT_CTR_ETHTOOL       = 2,   /* ETHTOOL_GSTATS of a netdev */
	FT_CTR_QDISC         = 3,   /* a netdev's root qdisc's own counters (rtnetlink; --profile always) */
};

/* A set of counters read together; every FT_REC_CTR_SAMPLE names its group. */
struct ft_ctr_group {
	struct ft_rec_hdr hdr;
	__u32 group;        /* capture-wide id */
	__u32 kind;         /* enum ft_ctr_kind */
	__u32 port_id;      /* RDMA kinds: ft_rdma_port.port_id, else ~0 */
	__u32 netns;        /* ETHTOOL: the netdev; RDMA: the port's netdev (0 none) */
	__u32 ifindex;
	__u32 ncounters;    /* values per sample */
	__u64 period_ns;    /* sampling period asked for */
	char  label[48];    /* "mlx5_0/1", "eth0@h1" */
};

enum ft_ctr_class {
	FT_CLS_OTHER = 0,       /* recorded, not interpreted */
	FT_CLS_DATA,            /* bytes/packets moved */
	FT_CLS_CONGESTION,      /* CNPs, ECN marks, xmit wait */
	FT_CLS_RETRANS,         /* retransmission and loss (out of sequence, timeouts, ...) */
	FT_CLS_DISCARD,         /* discards, out of buffer, drops */
	FT_CLS_LINK_ERR,        /* symbol errors, link downed/recovery, rcv errors */
	FT_CLS_PAUSE,           /* pause/PFC frames, durations, transitions, storms */
	FT_CLS_BUFFER,          /* buffer thresholds passed */
	FT_CLS_MAX,
};

enum ft_ctr_flags {
	FT_CTRF_BYTES     = 1 << 0, /* counts bytes (after scaling) */
	FT_CTRF_PACKETS   = 1 << 1, /* counts packets/frames */
	FT_CTRF_DIV4      = 1 << 2, /* sysfs value is octets / 4 (port_xmit_data, port_rcv_data) */
	FT_CTRF_WIDTH32   = 1 << 3, /* known 32-bit counter: wraps at 2^32 */
	FT_CTRF_USEC      = 1 << 4, /* counts microseconds (pause duration) */
	FT_CTRF_TICKS     = 1 << 5, /* counts time ticks (port_xmit_wait) */
};

struct ft_ctr_name {
	struct ft_rec_hdr hdr;
	__u32 group;
	__u32 index;        /* position in the group's samples */
	__u16 cls;          /* enum ft_ctr_class */
	__u16 flags;        /* enum ft_ctr_flags */
	__u32 pad;
	char  name[56];     /* file or ethtool string name */
};

#define FT_CTR_NA (~0ull)   /* value not available (N/A, unreadable, vanished) */

/* One read of a group: raw values as the source gave them (before x4 scaling). */
struct ft_ctr_sample {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;        /* CLOCK_MONOTONIC when the read began */
	__u32 group;
	__u32 n;            /* values that follow */
	__u32 read_ns;      /* how long the read took (sampler cost) */
	__u32 pad;
	/* __u64 values[n]; FT_CTR_NA where unavailable */
};

enum ft_sampler_event_kind {
	FT_SAMPLER_BACKOFF = 0,     /* period raised: value = new period ns */
	FT_SAMPLER_LIFESPAN_SET,    /* value = lifespan ms set on the port of `group` */
	FT_SAMPLER_LIFESPAN_RESTORED, /* value = lifespan ms restored */
	FT_SAMPLER_READ_ERROR,      /* a group could not be read: value = errno */
	FT_SAMPLER_COST,            /* value = total ns spent sampling so far (at stop) */
};

struct ft_sampler_event {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;
	__u64 value;
	__u32 kind;         /* enum ft_sampler_event_kind */
	__u32 group;        /* ~0 when about the whole sampler */
	char  msg[64];
};

/* ---- configuration (docs/configuration.md) ---- */

/* What a configuration record describes: its object is named by these fields. */
enum ft_config_scope {
	FT_CFG_NETNS = 1,   /* a sysctl of namespace `netns` (the host's: FT_CFGF_HOST) */
	FT_CFG_IFACE = 2,   /* an interface (`netns`, `id` = ifindex, `object` = name) */
	FT_CFG_QDISC = 3,   /* a qdisc or class of an interface (`handle`, `parent`, `object` = kind) */
	FT_CFG_FLOW  = 4,   /* a TCP socket (`flow`, as the TCP records name it) */
	FT_CFG_NIC   = 5,   /* NIC/RDMA settings in sysfs of netdev `object` (`netns`, `id` when found) */
	FT_CFG_RANK  = 6,   /* a process's environment (`id` = pid, `object` = comm) */
	FT_CFG_SCOPE_MAX,
};

enum ft_config_flags {
	FT_CFGF_UNKNOWN = 1 << 0, /* could not be read: the value says why */
	FT_CFGF_HOST    = 1 << 1, /* FT_CFG_NETNS: the recorder's own namespace (the host's values) */
	FT_CFGF_CLASS   = 1 << 2, /* FT_CFG_QDISC: a class (htb), not a qdisc */
};

/*
 * One setting the capture was taken under: KEY = VALUE of one object.  The
 * key and the value follow the struct as NUL-terminated strings (key_len
 * and value_len bytes before their NULs), zero-padded so that hdr.size is a
 * multiple of 8.  Written at the start (and for flows and processes when
 * they are first seen); a value that differs at the stop is written again.
 */
struct ft_config {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;        /* when it was read */
	__u8  scope;        /* enum ft_config_scope */
	__u8  flags;        /* enum ft_config_flags */
	__u16 key_len;
	__u16 value_len;
	__u16 pad;
	__u32 netns;        /* namespace inode (NETNS, IFACE, QDISC, NIC), 0 unknown */
	__u32 id;           /* IFACE, QDISC, NIC: ifindex (0 unknown); RANK: pid */
	__u32 handle;       /* QDISC: the qdisc's or class's handle */
	__u32 parent;       /* QDISC: its parent (TC_H_ROOT = 0xffffffff) */
	struct ft_flow flow; /* FLOW: the socket; zero otherwise */
	char  object[32];   /* IFACE, NIC: interface; QDISC: kind; NETNS: netns name; RANK: comm */
	/* char key[key_len + 1]; char value[value_len + 1]; zero padding */
};

#define FT_CFG_KEY_MAX   127    /* longest key a writer writes */
#define FT_CFG_VALUE_MAX 2047   /* longest value (longer ones are cut) */

/* ---- hosts and clocks (docs/multihost.md) ---- */

/* Who recorded: written once, at the start. */
struct ft_host_id {
	struct ft_rec_hdr hdr;
	char  hostname[64];     /* uname -n */
	char  machine_id[40];   /* /etc/machine-id, "" when unreadable */
	char  boot_id[40];      /* /proc/sys/kernel/random/boot_id */
	char  netns_name[32];   /* --netns NAME, "" when not restricted */
	__u32 netns;            /* that namespace's inode, 0 when not restricted */
	__u32 pid;              /* the recorder's pid */
	__s64 start_realtime_ns;/* CLOCK_REALTIME at the start */
};

enum ft_clock_kind {
	FT_CLOCK_START    = 0,
	FT_CLOCK_PERIODIC = 1,
	FT_CLOCK_STOP     = 2,
};

enum ft_clock_sync {
	FT_SYNC_UNKNOWN  = 0,   /* adjtimex() failed */
	FT_SYNC_OK       = 1,   /* STA_UNSYNC clear */
	FT_SYNC_UNSYNCED = 2,   /* STA_UNSYNC set: maxerror means nothing */
};

/* Clock daemons seen running at the start (bits of ft_clock.daemons). */
enum ft_clock_daemon {
	FT_CLKD_CHRONY    = 1 << 0,
	FT_CLKD_NTPD      = 1 << 1,
	FT_CLKD_TIMESYNCD = 1 << 2,
	FT_CLKD_PTP4L     = 1 << 3,
	FT_CLKD_PHC2SYS   = 1 << 4,
};

/*
 * One CLOCK_REALTIME (and CLOCK_TAI) reading bracketed by two CLOCK_MONOTONIC
 * reads, the tightest of a few tries, with the kernel's sync state from
 * adjtimex().  At the start, every second, and at the stop.
 */
struct ft_clock {
	struct ft_rec_hdr hdr;
	__u64 mono_ns;          /* middle of the bracket */
	__s64 realtime_ns;
	__s64 tai_ns;           /* CLOCK_TAI (= realtime + tai_offset) */
	__u64 gap_ns;           /* bracket width: the pair's reading uncertainty */
	__s64 maxerror_us;      /* adjtimex maxerror, -1 unknown */
	__s64 esterror_us;      /* adjtimex esterror, -1 unknown */
	__s64 freq;             /* adjtimex freq (ppm << 16) */
	__s64 offset_ns;        /* adjtimex offset (PLL's remaining correction) */
	__u32 status;           /* adjtimex status bits (STA_*) */
	__s32 tai_offset;       /* adjtimex tai: TAI - UTC seconds, 0 unset */
	__s32 state;            /* adjtimex return: TIME_OK 0 ... TIME_ERROR 5 */
	__u8  kind;             /* enum ft_clock_kind */
	__u8  sync;             /* enum ft_clock_sync */
	__u16 daemons;          /* enum ft_clock_daemon bits */
};

enum ft_host_flags {
	FT_HOST_REFERENCE = 1 << 0, /* the merged timeline is this host's clock */
	FT_HOST_TRAFFIC   = 1 << 1, /* offset refined from matched traffic */
	FT_HOST_UNSYNCED  = 1 << 2, /* its clock said it was not synchronised */
	FT_HOST_COARSE    = 1 << 3, /* only the realtime anchors placed it */
	FT_HOST_DAMAGED   = 1 << 4, /* its capture was damaged or cut short: merged as far as readable */
	FT_HOST_SAME_KERNEL = 1 << 5, /* an earlier host's boot id: one CLOCK_MONOTONIC, placed with it exactly */
};

/*
 * One host of a merged capture (fabtrace merge): every timestamp of its
 * records was mapped t' = t + offset_ns + (t - t0_ns) * drift_ppb / 1e9.
 */
struct ft_host {
	struct ft_rec_hdr hdr;
	__u32 index;            /* 0 .. hosts-1 */
	__u32 flags;            /* enum ft_host_flags */
	__s64 offset_ns;
	__s64 drift_ppb;
	__u64 t0_ns;            /* host clock where offset_ns holds */
	__u64 uncertainty_ns;   /* bound on the offset's error (0 for the reference) */
	__s64 coarse_offset_ns; /* what the realtime anchors alone gave */
	__u32 pid_base;         /* added to this host's pids (0 when they were unique) */
	__u32 pairs;            /* traffic pairs (windows x peers) that placed it */
	char  hostname[64];
	char  label[64];        /* the name a report uses for it */
	char  source[64];       /* the capture file it came from (basename) */
};

/* A network namespace of a merged capture's host. */
struct ft_host_netns {
	struct ft_rec_hdr hdr;
	__u32 host;             /* ft_host.index */
	__u32 netns;            /* as written in the merged capture */
};

/* ---- the flight recorder (docs/flight-recorder.md) ---- */

enum ft_trigger_kind {
	FT_TRIG_SIGNAL  = 1,    /* SIGUSR1 */
	FT_TRIG_COMMAND = 2,    /* `fabtrace trigger` over the control socket */
	FT_TRIG_RULE    = 3,    /* a rule on what was recorded (a slow collective, a link's rate...) */
	FT_TRIG_JOB     = 4,    /* the job: a rank exiting non-zero, a Gloo/NCCL timeout */
};

/* What the recorder did with a trigger. */
enum ft_trigger_action {
	FT_TRIGA_SNAPSHOT = 1,  /* opened snapshot `snapshot` */
	FT_TRIGA_EXTENDED = 2,  /* came inside its post-window: extended it, no second copy */
	FT_TRIGA_RATE     = 3,  /* held back by the rate policy (every:N, once-after:N) */
	FT_TRIGA_COOLDOWN = 4,  /* held back: inside the cool-down after a snapshot */
	FT_TRIGA_FULL     = 5,  /* inside a snapshot already as long as it may grow */
	FT_TRIGA_COVERED  = 6,  /* its window lies inside what a saved snapshot holds */
	FT_TRIGA_JOINED   = 7,  /* inside the snapshot being taken, whose end is already later */
};

/*
 * One trigger, written into the recording when it fires (so a snapshot,
 * a copy of the segments of its window, holds the trigger that opened it,
 * the ones that extended it, and those held back).
 */
struct ft_trigger {
	struct ft_rec_hdr hdr;
	__u64 mono_ns;          /* the trigger's moment, CLOCK_MONOTONIC */
	__s64 realtime_ns;      /* the same moment, CLOCK_REALTIME */
	__u64 received_ns;      /* when the recorder got it (CLOCK_MONOTONIC) */
	__u64 from_ns, to_ns;   /* the snapshot's window after this trigger (MONOTONIC); 0 none */
	__s64 value;            /* the value that fired (rules), in `unit` */
	__s64 threshold;        /* the rule's threshold, in `unit` */
	__u32 kind;             /* enum ft_trigger_kind */
	__u32 action;           /* enum ft_trigger_action */
	__u32 snapshot;         /* the recorder's snapshot number (from 1); 0 none */
	__u32 fired;            /* times this rule fired so far, this one included */
	__u32 sender_pid;       /* who asked (signal sender, trigger command); 0 unknown */
	__u32 sender_uid;
	char  unit[16];         /* "ns", "1/s", "x1000", "" for none */
	char  rule[64];         /* "SIGUSR1", "fabtrace trigger", a rule's text */
	char  reason[128];      /* free text (--reason) */
	char  hostname[64];     /* uname -n of the recorder */
};

/*
 * Probes attached (on = 1) or detached (on = 0) while recording, at ts_ns:
 * the flight recorder's --post-probes, attached for each snapshot's
 * post-window only.  Their records exist between an `on` and the next
 * `off` (or the end of the capture); outside, the probes did not run, so
 * what they measure is unknown there, not 0.  A segment that begins inside
 * a span repeats its `on` record first.
 */
struct ft_probe_span {
	struct ft_rec_hdr hdr;
	__u64 ts_ns;            /* CLOCK_MONOTONIC */
	__u64 probes;           /* bit (1 << enum ft_probe_id) per probe */
	__u32 on;               /* 1 attached, 0 detached */
	__u32 snapshot;         /* the snapshot whose post-window it serves (from 1); 0 none */
	__u32 owners;           /* 1: the phase probes' socket owners (sock_send, sock_recv) too */
	__u32 pad;
};

/*
 * One sampling interval (FT_SCHED_PERIOD_MS) of a process that makes
 * collective calls, in which its followed threads (those that made a
 * collective call or moved a flow's data: the phase and socket-owner
 * records' tids) waited in a run queue: runnable, not running.  From the
 * kernel's schedstat of each thread (/proc/PID/task/TID/schedstat: CPU
 * time and run-queue wait, summed over the threads).  Written only for an
 * interval with at least FT_SCHED_MIN_WAIT_NS of wait; the others had none
 * worth keeping.  The kernel credits a wait when the thread gets a CPU
 * again (sched_info_arrive), so a wait is in the interval in which it
 * ended, however long before it began: one thread's wait longer than its
 * interval held that thread, runnable and not running, from end_ns -
 * max_wait_ns on, whatever its network did (docs/verdicts.md, "No CPU").
 */
struct ft_sched_wait {
	struct ft_rec_hdr hdr;
	__u64 start_ns;         /* CLOCK_MONOTONIC: the interval's previous read */
	__u64 end_ns;           /* this read */
	__u64 wait_ns;          /* run-queue wait of its threads in the interval, summed */
	__u64 cpu_ns;           /* CPU time of its threads in the interval, summed */
	__u64 max_wait_ns;      /* the most one of its threads waited (ended in the interval) */
	__u32 pid;
	__u32 netns;            /* the process's network namespace */
	__u32 threads;          /* threads read */
	__u32 pad;
};

#define FT_SCHED_PERIOD_MS  20
#define FT_SCHED_MIN_WAIT_NS 1000000ull

/* ---- file framing ---- */

#define FT_MAGIC         "FABTRACE"
#define FT_FORMAT_VERSION 2 /* 2: blocks name their codec (zstd); 1: zlib only */
#define FT_BLOCK_MAGIC   0x4b425446u /* "FTBK" little endian */

enum ft_file_flags {
	FT_FILE_MERGED = 1 << 0,  /* written by fabtrace merge: several hosts, FT_REC_HOST records */
	FT_FILE_SEGMENT = 1 << 1, /* a flight recorder's rotating segment (docs/flight-recorder.md) */
	FT_FILE_SNAPSHOT = 1 << 2, /* a flight recorder's snapshot: FT_REC_TRIGGER says why */
	FT_FILE_PROFILE_ALWAYS = 1 << 3, /* recorded with --profile always: no qdisc or RTT probes,
					  * no socket owners (probes/netprobe_profile.c) */
};

struct ft_file_header {
	char  magic[8];           /* FT_MAGIC, not NUL terminated */
	__u32 version;            /* FT_FORMAT_VERSION */
	__u32 header_size;        /* sizeof(struct ft_file_header) */
	__u64 start_mono_ns;      /* CLOCK_MONOTONIC when recording began */
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__s64 boottime_offset_ns; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	__u64 bin_ns;             /* microburst bin width */
	__u64 probes;             /* bit (1 << enum ft_probe_id) per attached probe */
	__u32 ncpus;
	__u32 flags;              /* enum ft_file_flags */
	char  hostname[64];
	char  kernel[64];         /* uname -r */
	char  tool_version[32];
	char  command[256];       /* the fabtrace command line, truncated */
	__u32 pad;
	__u32 crc;                /* CRC32 (zlib) of this header with crc = 0 */
};

struct ft_block_header {
	__u32 magic;        /* FT_BLOCK_MAGIC */
	__u32 clen;         /* compressed payload bytes that follow */
	__u32 ulen;         /* payload bytes after inflate */
	__u32 nrec;         /* records in the payload */
	__u32 crc;          /* CRC32 of this header (crc = 0) then of the payload */
	__u32 codec;        /* enum ft_block_codec (0 in every version 1 block) */
};

enum ft_block_codec {
	FT_CODEC_ZLIB = 0,  /* a zlib stream (RFC 1950); version 1 knows no other */
	FT_CODEC_ZSTD = 1,  /* one zstd frame (RFC 8878) with its content size */
};

#define FT_BLOCK_MAX_ULEN (1u << 20) /* readers reject larger blocks as corrupt */

#endif /* FABTRACE_ABI_H */
