/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric model: everything a capture says, aggregated for the summaries
 * and renderers.  Renderers (report, viz/) read the model, never the capture.
 *
 * Build it by feeding every record in file order to model__add() and then
 * calling model__finish() once; or let model__load() do both for a file.
 * After model__finish() every array below is sorted deterministically and
 * must be treated as read-only.
 *
 * Times are CLOCK_MONOTONIC ns as in the capture; model__rel_ns() makes them
 * relative to the capture start and model__wall_ns() turns them into
 * CLOCK_REALTIME ns (header realtime_offset_ns).
 *
 * Memory: bins are kept in one flat array (32 bytes per merged bin plus the
 * same for the raw per-CPU bins while loading), so millions of bins are fine.
 * Phase records, request completions, retransmits and drops are kept one
 * entry per record (the correlator, userspace/correlate/correlate.h, needs their
 * times); everything else is aggregated while loading.
 *
 * The code (userspace/model/): model_load.c (model__load: a capture in,
 * a finished model out) over model_store.c (loading state, new/free,
 * sort orders), model_add.c (records in), model_finish.c with
 * model_links.c (bins, bursts, conservation, queues) and model_phases.c
 * (phases, single events), model_window.c (what a window keeps), and
 * model_lookup.c (lookups, names).  The counter
 * sampler's part is model_counters.c, a lower piece that does not know
 * struct model: model_add.c feeds it, model_finish.c takes its arrays.
 */
#ifndef FABTRACE_MODEL_H
#define FABTRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"
#include "userspace/capture/probe_coverage.h"
#include "userspace/model/model_counters.h"

struct capture_block_index;

struct model_opts {
	double burst_threshold;     /* utilisation 0..1 at or above which a bin is hot; default 0.5 */
	uint64_t burst_gap_ns;      /* merge bursts separated by < this; 0 = one bin width */
	/* conservation check: |binned - counters| <= max(tol_bytes, tol_frac * counters) is OK */
	uint64_t conserve_tol_bytes;  /* default 0 */
	double conserve_tol_frac;     /* default 0.001 (0.1 %) */
	double spike_rate;            /* counter events/s that make a spike; default 1000 */
	/*
	 * A time window, relative to the capture start: keep only the records
	 * in it (phases that overlap it), so that memory follows the window and
	 * not the capture.  The finished model then spans the window:
	 * start_ns/end_ns are its ends, capture_start_ns/capture_end_ns the
	 * capture's (model__rel_ns() stays relative to the capture start), and the
	 * conservation check is MODEL_CONSERVE_UNKNOWN (the interface counters
	 * are read at the capture's start and stop only).
	 */
	bool window;
	uint64_t window_from_ns, window_to_ns; /* to <= from: to the end of the capture */
	/*
	 * With a window, the capture's blocks (capture.h), for reading one
	 * capture window by window: a load given an empty index fills it (and
	 * copies the step markers into it); a load given a filled one passes
	 * over the blocks whose every record it would have left out (events
	 * and phases outside the window, counter samples a nearer block
	 * replaces), taking a passed block's markers from the copy
	 * (mdl_window_plan()).  NULL: every block is read.
	 */
	struct capture_block_index *blocks;
};

/* Fill O with the defaults above. */
void model_opts__init(struct model_opts *o);

/* One merged bin: per-CPU bins of the same (iface, dir, start) summed. */
struct model_bin {
	uint64_t start_ns;
	uint64_t bytes;
	uint32_t pkts;
	uint32_t ce_pkts;
	uint32_t iface;     /* index into model.ifaces */
	uint32_t dir;       /* enum ft_dir */
};

struct model_burst {
	uint32_t iface;     /* index into model.ifaces */
	uint32_t dir;
	uint64_t start_ns;  /* start of its first hot bin */
	uint64_t duration_ns; /* end of the last hot bin - start */
	uint64_t bytes;     /* bytes of its hot bins */
	uint64_t pkts;
	uint32_t nbins;     /* hot bins in it */
	double peak_bps;    /* highest bin rate, bits/s */
	double peak_util;   /* peak_bps / capacity */
};

enum model_conserve {
	MODEL_CONSERVE_UNKNOWN = 0,  /* no start or no stop counters */
	MODEL_CONSERVE_UNTRACED,     /* interface not selected: no bins expected */
	MODEL_CONSERVE_OK,
	MODEL_CONSERVE_MISMATCH,
	/*
	 * Short of the counters by no more packets than the kernel skipped
	 * runs of this direction's probe (coverage), summed over every
	 * interface of that direction: explained, not a probe defect.
	 */
	MODEL_CONSERVE_OK_SKIPPED,
};

/* Window of the sustained rate: long enough to smooth a shaper's bucket. */
#define MODEL_SUSTAIN_NS 100000000ull

struct model_dir {
	const struct model_bin *bins; /* merged bins, sorted by start */
	size_t nbins;
	uint64_t bytes, pkts, ce_pkts;
	uint64_t active_ns;         /* non-empty bins * bin width */
	double capacity_bps;        /* 0 = unknown (then no utilisation, no bursts): the shaper
				     * where one is slower than the line, else the line rate */
	double line_bps;            /* link speed, 0 = unknown */
	double shaper_bps;          /* TX shaper (tbf/htb rate), 0 = none */
	double mean_bps;            /* over the capture duration */
	double busy_mean_bps;       /* over the active bins */
	double peak_bps;            /* highest bin */
	uint64_t peak_start_ns;     /* start of that bin */
	double sustained_bps;       /* highest rate over any MODEL_SUSTAIN_NS window */
	double mean_util, busy_util, peak_util; /* NaN when capacity is unknown */
	/*
	 * Honest utilisation for display: a bin's peak against the line rate
	 * (what the wire can carry in a bin), the sustained rate against the
	 * capacity (what the shaper lets through over 100 ms).  NaN when unknown.
	 */
	double peak_line_util, busy_line_util, sustained_util;
	size_t first_burst, nbursts; /* slice of model.bursts */
	/* conservation */
	enum model_conserve conserve;
	uint64_t counter_bytes, counter_pkts; /* stop - start */
	/* binned between the two counter reads (every bin when the capture does
	 * not say when they were read); edge: in bins a read fell into or near,
	 * which may belong on either side of it */
	uint64_t between_bytes, between_pkts, edge_bytes, edge_pkts;
	int64_t diff_bytes, diff_pkts;        /* between - counters */
	uint64_t tol_bytes;                   /* allowed |diff_bytes| */
	uint64_t skipped_pkts;                /* OK_SKIPPED: packets explained by skipped runs */
};

/* UTIL, a bin's rate against D's capacity (the shaper where there is one),
 * as a share of D's line rate, as peak_line_util is: a shaped link's bins run
 * at the line rate, so against the shaper they would read 3000 %.  UTIL
 * itself when the line rate is unknown. */
static inline double model_dir__line_util(const struct model_dir *d, double util)
{
	return d->line_bps > 0 && d->capacity_bps > 0 ? util * d->capacity_bps / d->line_bps : util;
}

struct model_iface {
	uint32_t netns, ifindex;
	bool known;                 /* an FT_REC_IFACE record was seen */
	uint32_t mtu, speed_mbps, tx_rate_kbps, flags;
	char name[16];
	char netns_name[32];
	char kind[16];
	char label[64];             /* "eth0@ns1", "eth0" (initial ns), "netns N ifindex I" */
	bool have_start, have_stop;
	struct ft_iface_stats start, stop; /* first START, last STOP */
	uint64_t qdisc_drop_recs;   /* FT_REC_DROP records with a QDISC_* reason here */
	struct model_dir dir[2];    /* [FT_DIR_RX], [FT_DIR_TX] */
	size_t first_drop, ndrops;  /* slice of model.drop_events (by time) */
};

struct model_qbin {
	uint64_t start_ns;
	uint64_t max_backlog;
	uint64_t enq_bytes;
	uint64_t sojourn_sum_ns;
	uint64_t sojourn_max_ns;
	uint32_t sojourn_cnt;
	uint32_t max_qlen;
	uint32_t enq_pkts;
	uint32_t drops;             /* max over CPUs of the lifetime counter */
	uint32_t qdisc;             /* index into model.qdiscs */
	uint32_t pad;
};

struct model_qdisc {
	uint32_t netns, ifindex, handle, parent;
	char kind[16];
	uint32_t iface;             /* index into model.ifaces */
	const struct model_qbin *bins; /* merged, sorted by start */
	size_t nbins;
	uint64_t max_backlog_bytes;
	uint64_t max_backlog_ns;    /* start of the bin where it was seen */
	uint32_t max_qlen_pkts;
	uint64_t enq_pkts, enq_bytes;
	uint64_t sojourn_cnt, sojourn_sum_ns, sojourn_max_ns;
	double sojourn_mean_ns;     /* NaN when no sample */
	uint32_t drops_first, drops_last; /* counter in the first and last bin */
	uint64_t drops_counter;     /* last - first (0 if it went backwards) */
	uint64_t drop_recs;         /* = iface qdisc_drop_recs */
	uint64_t sojourn_dropped;   /* sojourn samples of a broken chain, taken out (model_links.c) */
};

#define MODEL_NTRIGGER 5        /* enum ft_rtx_trigger */

struct model_flow {
	struct ft_flow key;         /* ifindex and pad zeroed */
	uint64_t rtx[MODEL_NTRIGGER];
	uint64_t rtx_total;
	uint64_t rtx_segs;          /* segments (a GSO skb retransmits several) */
	uint64_t rtx_unsent;        /* attempts that sent nothing (capture__retrans_sent): not in the counts above */
	uint64_t rtx_first_ns[MODEL_NTRIGGER], rtx_last_ns[MODEL_NTRIGGER];
	uint64_t cong_changes;
	uint64_t samples;
	uint32_t srtt_min_us, srtt_max_us, srtt_last_us;
	uint32_t cwnd_min, cwnd_max, cwnd_last;
	bool have_ce;
	uint64_t ce_pkts, ce_first_ns, ce_last_ns; /* last FT_REC_CE_FLOW */
	uint32_t ifindex;           /* last non-zero ifindex seen */
	size_t first_rtx, nrtx;     /* slice of model.rtx_events (by time) */
	size_t first_cong, ncong;   /* slice of model.cong_events (by time) */
	size_t first_resume, nresume; /* slice of model.resume_events (by time) */
	uint64_t sample_last_ns;    /* loading: its latest RTT sample */
	size_t first_owner, nowners; /* slice of model.owners (by pid) */
};

struct model_cong_pair {
	uint8_t old_state, new_state;
	uint64_t count;
};

struct model_drop {
	uint32_t reason, netns, ifindex;
	uint32_t iface;             /* index into model.ifaces, UINT32_MAX if none */
	uint64_t count;
	uint64_t first_ns, last_ns;
	char name[56];              /* reason name or "reason N" */
};

struct model_lost {
	uint32_t source, cpu;
	uint64_t lost;              /* last cumulative value; with a window, its growth in the window */
	uint64_t ts_ns;
	uint64_t base;              /* with a window: the value before it */
};

/*
 * One growth of a lost counter (an FT_REC_LOST record whose value grew):
 * LOST events of SOURCE on CPU were lost in (from_ns, ts_ns].  The recorder
 * reads the counters once a second (MODEL_LOST_TICK_NS) and writes a record
 * only when one changed, so from_ns = max(previous reading, ts - one tick,
 * capture start).  Renderers show these windows as gaps, never as idle time.
 */
#define MODEL_LOST_TICK_NS 1000000000ull

struct model_lost_ev {
	uint64_t from_ns, ts_ns;
	uint64_t lost;              /* the growth */
	uint32_t source, cpu;
};

struct model_probe {
	uint32_t id, attached;
	char name[32];
	char hook[48];
	char why[64];
};

/* ---- collective phases (bpf/phase.bpf.c, userspace/cli/record.c), for the correlator ---- */

/* What the phase records of one slot are (FT_REC_PHASE_SLOT); sorted by slot. */
struct model_slot {
	uint32_t slot;
	uint16_t lib_kind;          /* enum ft_lib_kind */
	uint16_t op;                /* enum ft_op */
	uint32_t flags;             /* enum ft_slot_flags */
	uint32_t custom;            /* a named --phase slot: its index among them; UINT32_MAX other slots */
	uint64_t offset;
	char lib[128];
	char symbol[96];
	char name[32];
};

/* One FT_REC_PHASE record (a library call or a marker); sorted by (pid, start, end, tid, slot). */
struct model_phase {
	uint64_t start_ns, end_ns;
	uint64_t count, comm, req, seq;
	uint32_t pid, tid, netns, slot;
	uint32_t dtype_size;
	int32_t peer;
	uint32_t flags;             /* enum ft_phase_flags */
	int32_t ret;
	char name[32];
};

/* One FT_REC_REQ_DONE record; sorted by (pid, req, ts). */
struct model_req_done {
	uint64_t ts_ns;
	uint64_t req;
	uint32_t pid, tid, slot, pad;
};

/*
 * Rank and size of one communicator in one process: the latest non-negative
 * values of its FT_REC_COMM_INFO records (-1 = never told); sorted by (pid, comm).
 */
struct model_comm {
	uint32_t pid, pad;
	uint64_t comm;
	int32_t rank, size;
	uint64_t first_ns;
	uint32_t slot;              /* the record that gave the size (else the rank) */
	uint32_t pad2;
};

/* A followed process (FT_REC_PROC records of one pid); sorted by pid. */
struct model_proc {
	uint32_t pid, ppid, netns;
	uint32_t events;            /* bit (1 << enum ft_proc_event) per event seen */
	uint64_t first_ns, last_ns; /* first and last record */
	uint64_t fork_ns, exec_ns, exit_ns; /* the last of each, 0 = not seen */
	uint32_t nexec;
	int32_t exit_code;          /* FT_PROC_EXIT: wait status */
	char comm[16];              /* the latest (after exec: the new program) */
};

/* A process seen using a flow's socket (FT_REC_SOCK_OWNER), one per (flow, pid). */
struct model_owner {
	struct ft_flow key;         /* normalised like model_flow.key */
	uint32_t pid, tid;
	uint64_t first_ns;
	uint32_t flow;              /* index into model.flows, UINT32_MAX: no TCP event on it */
	char comm[16];
};

/* One retransmit, for counts inside a time window; sorted by (flow, ts). */
struct model_rtx {
	uint64_t ts_ns;
	uint32_t flow;              /* index into model.flows */
	uint32_t segs;
	uint32_t trigger;           /* enum ft_rtx_trigger */
	uint32_t srtt_us;           /* the socket's smoothed RTT when it retransmitted, 0 unknown */
};

/*
 * A flow's first RTT sample after at least MODEL_RESUME_GAP_NS without one:
 * the end of a silence (the samples at tc egress come from the skbs a socket
 * sends, rate-limited, so the first after a silence is the send that ended
 * it; tcp_probe's, from the segments it receives).  The budget's test of a
 * stall behind a segment its own qdisc dropped.  Sorted by (flow, ts).
 */
#define MODEL_RESUME_GAP_NS 100000000ull
struct model_resume {
	uint64_t ts_ns;             /* the sample that ended the silence (first: corr_first_ts_at) */
	uint64_t from_ns;           /* the flow's previous sample */
	uint32_t flow;              /* index into model.flows */
	uint32_t packets_out;       /* in flight at that sample */
};

/* One congestion-state change of a flow (FT_REC_CONG_STATE); sorted by (flow, ts). */
struct model_cong_ev {
	uint64_t ts_ns;
	uint32_t flow;              /* index into model.flows */
	uint8_t old_state, new_state; /* TCP_CA_*: Open 0, Disorder 1, CWR 2, Recovery 3, Loss 4 */
	uint8_t pad[2];
};

/* One drop, for counts inside a time window; sorted by (iface, ts), no device last. */
struct model_drop_ev {
	uint64_t ts_ns;
	uint32_t reason;
	uint32_t iface;             /* index into model.ifaces, UINT32_MAX if none */
};

struct model_config;

struct model {
	struct ft_file_header hdr;
	struct model_opts opts;
	bool finished;
	bool truncated;             /* model__load: the capture had no END / a partial block */
	char truncated_why[256];    /* the reader's explanation, "" if none */
	bool have_end;
	struct ft_end end;
	size_t nhosts, damaged_hosts; /* merged captures: hosts, and those merged from a damaged capture */
	uint64_t start_ns, end_ns;  /* capture start (header) and end (END or last event); the window's with opts.window */
	uint64_t duration_ns;
	uint64_t capture_start_ns, capture_end_ns; /* the whole capture's, window or not */
	uint64_t records, unknown_records;

	struct model_iface *ifaces; size_t nifaces; /* sorted (see model_finish.c) */
	struct model_bin *bins; size_t nbins;        /* merged, by (iface, dir, start) */
	struct model_burst *bursts; size_t nbursts;  /* by (iface, dir, start) */
	struct model_qdisc *qdiscs; size_t nqdiscs;
	struct model_qbin *qbins; size_t nqbins;
	struct model_flow *flows; size_t nflows;     /* by netns, family, addresses, ports */
	struct model_cong_pair *cong_pairs; size_t ncong_pairs; /* by (old, new) */
	uint64_t cong_changes, retrans;
	uint64_t retrans_segs;      /* what nstat's TcpRetransSegs counts */
	uint64_t retrans_unsent;    /* retransmits that failed (-EBUSY...), not counted above */
	uint64_t retrans_by_trigger[MODEL_NTRIGGER];
	struct model_drop *drops; size_t ndrops;     /* by count desc, name, iface */
	uint64_t drops_total;
	struct model_lost *lost; size_t nlost;       /* by (source, cpu) */
	struct model_lost_ev *lost_evs; size_t nlost_evs; /* by (ts, source, cpu) */
	uint64_t lost_by_source[FT_SRC_MAX + 1];     /* [FT_SRC_MAX] = unknown sources */
	uint64_t lost_total;
	struct model_probe *probes; size_t nprobes;  /* by id */
	/* coverage of each probe (tracepoint hits its program did not see), by probe id */
	struct capture_cov *coverage; size_t ncoverage;
	enum capture_cov_state coverage_state;
	uint64_t skipped_runs;      /* sum of coverage[].skipped (not in lost_total) */
	uint64_t sojourn_dropped;   /* sum of qdiscs[].sojourn_dropped */
	size_t coverage_unknown;    /* probes whose hits were not counted */

	/* collective phases (empty without phase probes) */
	struct model_slot *slots; size_t nslots;           /* by slot */
	size_t ncustom;             /* named --phase slots (model_slot.custom) */
	struct model_phase *phases; size_t nphases;        /* by (pid, start) */
	struct model_req_done *req_dones; size_t nreq_dones; /* by (pid, req, ts) */
	struct model_comm *comms; size_t ncomms;           /* by (pid, comm) */
	struct model_proc *procs; size_t nprocs;           /* by pid */
	struct model_owner *owners; size_t nowners;        /* by (flow, pid); flow UINT32_MAX last */
	/* single events, for windows (the aggregates above stay the totals) */
	struct model_rtx *rtx_events; size_t nrtx_events;  /* by (flow, ts) */
	struct model_cong_ev *cong_events; size_t ncong_events; /* by (flow, ts) */
	struct model_resume *resume_events; size_t nresume_events; /* by (flow, ts) */
	struct model_drop_ev *drop_events; size_t ndrop_events; /* by (iface, ts) */

	/* counter sampler (empty without it) */
	struct model_rdma_port *rdma_ports; size_t nrdma_ports; /* by port_id */
	struct model_ctr_group *ctr_groups; size_t nctr_groups; /* by group id */
	struct model_ctr_series *ctr_series; size_t nctr_series; /* by (group, index) */
	struct model_ctr_point *ctr_points; size_t nctr_points;  /* by (series, start) */
	struct model_ctr_event *ctr_events; size_t nctr_events;  /* by (start, series) */
	struct model_sampler_ev *sampler_evs; size_t nsampler_evs; /* by time */

	struct model_config *config; /* the configuration it ran under (model_config.h: its lookups); NULL: none */
	/* a flight recorder's triggers (FT_REC_TRIGGER), in file order */
	struct ft_trigger *triggers; size_t ntriggers, captriggers;
	/* its post-window probes attached and detached (FT_REC_PROBE_SPAN), in file order:
	 * model__probe_span() pairs them */
	struct ft_probe_span *spans; size_t nspans, capspans;
	/* the ranks' run-queue wait (FT_REC_SCHED_WAIT), by (netns, pid, start): model__sched_held() */
	struct ft_sched_wait *sched_waits; size_t nsched_waits, capsched_waits;

	struct model_priv *priv;    /* loading state (hash tables, raw bins) */
};

/* NULL with errno set (EINVAL: no header or bin width 0, ENOMEM). */
struct model *model__new(const struct ft_file_header *hdr, const struct model_opts *o);
/*
 * Feed one record (every record in file order).  Unknown types are counted
 * and ignored.  -EINVAL if rec->size is smaller than its type's struct (or
 * than the header), -ENOMEM, -EBUSY after model__finish().
 */
int model__add(struct model *m, const struct ft_rec_hdr *rec);
/* Merge per-CPU bins, compute the statistics, bursts, conservation.  0 or -errno. */
int model__finish(struct model *m);
/*
 * Open PATH, feed every record, finish.  A truncated capture loads what is
 * readable and sets m->truncated; a corrupt one fails with -EIO and the
 * reader's reason (naming the offset) in ERR.  0 or -errno.
 */
int model__load(const char *path, const struct model_opts *o, struct model **out,
		char *err, size_t errlen);
void model__free(struct model *m);

/* Lookups (after finish).  NULL when absent. */
const struct model_iface *model__iface(const struct model *m, uint32_t netns, uint32_t ifindex);
/* Name of a namespace from the interface records, "" if unknown. */
const char *model__netns_name(const struct model *m, uint32_t netns);
/* A host's name for a namespace: its netns name, else the capture's hostname, else "netns N". */
const char *model__host_name(const struct model *m, uint32_t netns, char *buf, size_t len);
const char *model__drop_reason_name(const struct model *m, uint32_t reason); /* NULL if unnamed */
/* "10.0.0.1:40000 -> 10.0.0.2:5201", "[::1]:1 -> [::1]:2" */
const char *model__flow_str(const struct ft_flow *f, char *buf, size_t len);
/* The flow with F's key (ifindex ignored), the slot, the process; NULL when absent. */
const struct model_flow *model__flow(const struct model *m, const struct ft_flow *f);
const struct model_slot *model__slot(const struct model *m, uint32_t slot);
const struct model_proc *model__proc(const struct model *m, uint32_t pid);
/* Name of a probe ("iface_tx"): capture__probe_name() with the capture's probe record. */
const char *model__probe_name(const struct model *m, uint32_t id, char *buf, size_t len);

/* A span of the post-window probes (record --post-probes). */
struct model_span {
	uint64_t from_ns, to_ns;    /* attached, detached (or the capture's end) */
	uint64_t probes;            /* bit (1 << ft_probe_id) per probe */
	uint32_t snapshot;          /* the snapshot it served, 0 unknown */
	bool owners;                /* the socket owners too */
};
/*
 * The K-th span (from 0): from an `on` record to the `off` that closes it.
 * Spans nest (a merged capture's hosts overlap): one lasts from the first
 * `on` until as many `off`s came; one never closed ends with the capture.
 * False when there is no K-th.
 */
bool model__probe_span(const struct model *m, size_t k, struct model_span *out);
/* The packets the kernel's skipped probe runs may have kept out of direction
 * DIR's bins (FT_DIR_RX, FT_DIR_TX): what conservation's OK_SKIPPED spends. */
uint64_t model__skipped_binning_pkts(const struct model *m, int dir);

/*
 * When a sampled interval says a process was held by the scheduler: one of
 * its followed threads waited, in one interval's credit, longer than the
 * interval and at least MODEL_HELD_MIN_NS (the kernel credits a wait when
 * it ends), so it was runnable and not running for max_wait_ns up to
 * end_ns less the interval's CPU time (it ran after the wait ended).  A rank that shares its CPUs fairly runs a part of
 * every few milliseconds (4 busy-polling ranks and a recorder on 2 CPUs
 * waited up to about 35 ms at a time); one that the scheduler keeps off
 * them does not, and nothing it sends moves meanwhile.  False: no such
 * wait (*FROM, *TO unset).
 */
#define MODEL_HELD_MIN_NS 50000000ull
bool model__sched_interval_held(const struct ft_sched_wait *r, uint64_t *from, uint64_t *to);
/* How far before a span an interval whose end lies in it may begin (model__sched_held). */
#define MODEL_SCHED_REACH_NS 2000000000ull
/*
 * How long process PID of namespace NETNS was held (model__sched_interval_held)
 * in [FROM, TO): the union of its held spans inside it.  0 without samples.
 */
uint64_t model__sched_held(const struct model *m, uint32_t netns, uint32_t pid, uint64_t from, uint64_t to);
/* The probes some span attached: bits (1 << ft_probe_id), 0 none. */
uint64_t model__span_probes(const struct model *m);
/* Why the capture has no queue records (capture__queues_missing()), NULL when the
 * qdisc probes ran, all along or in post-windows (model__span_probes()). */
const char *model__queues_missing(const struct model *m);

/* Relative to the capture start, window or not (report --from/--to). */
static inline int64_t model__rel_ns(const struct model *m, uint64_t ts)
{
	return (int64_t)(ts - m->capture_start_ns);
}

static inline int64_t model__wall_ns(const struct model *m, uint64_t ts)
{
	/* modulo 2^64: a damaged header's offset must not overflow (UB) */
	return (int64_t)(ts + (uint64_t)m->hdr.realtime_offset_ns);
}

/* Bits per second of BYTES in one bin. */
double model__bin_bps(const struct model *m, uint64_t bytes);

const char *model__trigger_name(unsigned trigger);  /* "rto", ..., "unknown" */
/* "open", "disorder", "cwr", "recovery", "loss", else "state N" written into BUF. */
const char *model__ca_state_name(unsigned state, char *buf, size_t len);
const char *model__source_name(unsigned source);    /* "net", "tcp", "user", "phase", "unknown" */
const char *model__conserve_name(enum model_conserve c); /* "ok", "mismatch", ... */

/* ---- counters (the arithmetic is in userspace/model/model_counters.c) ---- */
/* Growth per second of one point (over at least the hw_counters lifespan). */
double model__ctr_point_rate(const struct model *m, const struct model_ctr_point *pt);
/* Growth of series SI inside [FROM, TO), points prorated by their overlap. */
double model__ctr_growth(const struct model *m, size_t si, uint64_t from, uint64_t to);
/* model__ctr_spike_class, model__ctr_kind_name, model__link_layer_name: model_counters.h */

#endif
