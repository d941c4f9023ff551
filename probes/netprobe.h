/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel network probe family (bpf/net.bpf.c, bpf/tcp.bpf.c): choose a
 * working variant of every hook by trying them on this kernel, configure
 * filters, load, attach through bpf_links, and drain what they produce.
 */
#ifndef FABTRACE_NETPROBE_H
#define FABTRACE_NETPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

struct ring_buffer;

struct netprobe_opts {
	uint64_t bin_ns;           /* microburst bin width */
	uint64_t sample_ns;        /* min gap between RTT/cwnd samples per socket */
	uint32_t netns;            /* only this netns inode, 0 = all */
	const uint32_t (*ifaces)[2]; /* (netns, ifindex) pairs to trace; NULL = all */
	const char *const *iface_ns; /* [n_ifaces] how to enter each one's netns (/run/netns/X,
				      * /proc/PID/ns/net); NULL or NULL entry: fabtrace's own;
				      * kept (not copied) for netprobe__set_deferred() */
	int n_ifaces;
	size_t ringbuf_bytes;      /* the net object's ring; the tcp object's is a quarter (>= 64k); power of two */
	size_t wake_bytes;         /* wake the consumer at this backlog; 0 = every record */
	bool verbose;              /* print libbpf/verifier output */
	uint64_t skip;             /* bit (1 << ft_probe_id): leave this probe out */
	int coverage;              /* enum netprobe_coverage */
	unsigned batch_bins;       /* closed bins per ring-buffer record, 1..FT_BATCH (0: FT_BATCH) */
	int profile;               /* enum netprobe_profile: which probes and variants */
	uint64_t deferred;         /* bits (1 << ft_probe_id) of probes the profile leaves out
				    * that are loaded but attached only by netprobe__set_deferred()
				    * (record --post-probes) */
};

/*
 * The probe profile (record --profile): which probes a recording loads.
 * full: every probe (today's default).  always: what an operator leaves on
 * permanently (docs/performance.md): the interface bins (with -i as tcx
 * programs on those interfaces, egress and ingress: one clock read and one
 * add per packet), drops with reasons, retransmits, CE marks; it leaves out
 * the per-packet qdisc probes (sojourn, depth), the RTT samples and the
 * congestion-state changes (and the phase probes' socket owners).
 */
enum netprobe_profile {
	NP_PROFILE_FULL,
	NP_PROFILE_ALWAYS,
	NP_PROFILE_N
};
/* "full", "always"; NULL for another value. */
const char *netprobe__profile_name(int profile);
/* The profile a --profile name stands for, or -1. */
int netprobe__profile_parse(const char *name);
/* Bits (1 << ft_probe_id) of the probes PROFILE leaves out (0 for full or an unknown one). */
uint64_t netprobe__profile_skip(int profile);
/* Whether PROFILE records the phase probes' socket owners (sock_send, sock_recv). */
bool netprobe__profile_owners(int profile);
/* The counter sampler's period under PROFILE when --counter-period does not say (ns). */
uint64_t netprobe__profile_counter_period_ns(int profile);
/* How often the recorder drains the rings under PROFILE without a wake-up (ms). */
unsigned netprobe__profile_drain_ms(int profile);

/* How the coverage check counts tracepoint hits (record --coverage). */
enum netprobe_coverage {
	NP_COV_AUTO,               /* netprobe__coverage_auto() */
	NP_COV_COUNTERS,           /* a counting perf event per CPU per tracepoint */
	NP_COV_KERNEL,             /* runs + the programs' recursion_misses */
	NP_COV_PID1,               /* ... + a counting perf event per thread of PID 1 per tracepoint */
	NP_COV_N
};

/*
 * The mode --coverage auto takes on this kernel (tried once:
 * recursion_misses.h): NP_COV_KERNEL, NP_COV_PID1 or NP_COV_COUNTERS, with
 * WHY (may be NULL) saying why it is not NP_COV_KERNEL.
 */
int netprobe__coverage_auto(char *why, size_t whylen);
/* "auto", "kernel", "pid1" or "counters" (the --coverage names). */
const char *netprobe__coverage_name(int mode);
/* The mode a --coverage name stands for, or -1. */
int netprobe__coverage_parse(const char *name);

/*
 * The probe families an operator may leave out (--no-probes), with what
 * each costs per packet as measured (docs/performance.md, section 0).
 */
struct probe_family {
	const char *name;          /* "bins" */
	uint64_t mask;             /* bits (1 << ft_probe_id) */
	const char *what;          /* "bytes/packets per interface and bin" */
	const char *cost;          /* "~100 ns per packet (2 runs of ~50 ns)" */
};
extern const struct probe_family netprobe_families[];
extern const int netprobe_n_families;
/* "bins,tcp" or probe names -> mask; 0 or -EINVAL. */
int netprobe__parse_families(const char *list, uint64_t *mask);
const char *netprobe__families_help(void);

/* One hook and how it fared on this kernel. */
struct probe_status {
	enum ft_probe_id id;
	const char *name;          /* "iface_tx" */
	const char *tracepoint;    /* "net_dev_start_xmit"; recording with tcx: "ingress" */
	const char *variant;       /* program chosen ("tp_btf", "raw_tp"), NULL if none */
	char why[160];             /* why no variant works, "" if one does */
	char note[96];             /* features: when the variant applies, "" if always */
	char cov_why[96];          /* recording: why its hits cannot be counted, "" if they are */
};

/*
 * Try every variant of every hook (load + attach, then detach) and fill
 * st[FT_PROBE_MAX].  Needs the same privileges as recording.
 */
int netprobe__probe_features(struct probe_status st[FT_PROBE_MAX], bool verbose);

struct netprobe;

typedef int (*netprobe_sample_fn)(void *ctx, const struct ft_rec_hdr *rec);

/* The ring of a family that gets 1/div of --ringbuf (at least 64k), and the
 * wake-up step for it: wake_bytes, but at most an eighth of that ring. */
size_t netprobe__ring_share(size_t ringbuf_bytes, unsigned div);
size_t netprobe__wake_for(size_t wake_bytes, size_t ring_bytes);

/*
 * Fill a loaded object's targ_iftab (bpf/net.h) with the chosen interfaces,
 * interface i in slot i, and their namespaces as interface 0 (records that
 * name no device).  0, or -E2BIG when more interfaces share a bucket
 * than it has ways (or more than FT_IF_SLOTS), with err set; -errno.
 */
int netprobe__fill_iftab(int fd, const uint32_t (*ifaces)[2], int n, char *err, size_t errlen);

/* Probe features, load the chosen variants and attach them.  0 or -errno with err set. */
int netprobe__open(struct netprobe **p, const struct netprobe_opts *o,
		   netprobe_sample_fn fn, void *ctx, char *err, size_t errlen);
const struct probe_status *netprobe__status(const struct netprobe *p);
/* Bit (1 << ft_probe_id) per attached hook. */
uint64_t netprobe__mask(const struct netprobe *p);
/* The deferred probes that loaded (netprobe_opts.deferred less those no variant of works). */
uint64_t netprobe__deferred(const struct netprobe *p);
/* The timers that write out a CPU's bins once its traffic stops
 * (bpf/net.bpf.c, stage_timers; where one cannot run, those bins wait for
 * that CPU's next packet). */
struct netprobe_timers {
	int err;            /* -errno: the kernel refused the first one; 0: none refused */
	bool unpinned;      /* started unpinned (a kernel before 6.7, or FABTRACE_TIMER_NOPIN) */
	uint64_t strays;    /* unpinned ones that fired on another CPU than theirs */
};
void netprobe__timers(const struct netprobe *p, struct netprobe_timers *out);
/*
 * Attach (ON) or detach the deferred probes.  Detaching hands on, through
 * the sample fn, what they left: the records in the rings, then the qdisc
 * bins still open or staged, which it clears for the next attach.  Their
 * runs go uncounted by the coverage check (probe_status.cov_why says so).
 * A chosen interface whose namespace or device is gone by then is left
 * out.  0 (also when already so), or -errno with err set (a failed attach
 * detaches what it attached).
 */
int netprobe__set_deferred(struct netprobe *p, bool on, char *err, size_t errlen);
/* How the coverage check counts hits (enum netprobe_coverage, never NP_COV_AUTO). */
int netprobe__coverage_mode(const struct netprobe *p);
/* Poll the ring buffers (ms timeout, 0 = no wait): sample fn per record; count or -errno. */
int netprobe__poll(struct netprobe *p, int timeout_ms);
int netprobe__epoll_fd(const struct netprobe *p);
/*
 * Detach every link (the probes stop firing); maps stay readable.  Reads the
 * coverage counters (tracepoint hits, program runs) just before.
 */
void netprobe__detach(struct netprobe *p);
/*
 * After detach: fn is called with a FT_REC_COVERAGE record per attached hook
 * (hits counted since attach, or known = 0 with probe_status.cov_why set).
 */
int netprobe__coverage(struct netprobe *p, netprobe_sample_fn fn, void *ctx);
/*
 * While attached: tracepoint hits each hook's program did not see so far
 * (hits - runs, clamped), for live views; known[i] false when they cannot be
 * counted.  Reading hits before runs leaves in-flight runs on the "more
 * runs" side, so a skip is never invented.  0 or -errno.
 */
int netprobe__skipped_now(struct netprobe *p, uint64_t skipped[FT_PROBE_MAX], bool known[FT_PROBE_MAX]);
/* After detach: emit bins still open in the per-CPU maps as records. */
int netprobe__flush_bins(struct netprobe *p);
/* Current cumulative lost count per (source, cpu): fills out[src][cpu]. */
int netprobe__lost(struct netprobe *p, enum ft_source src, uint64_t *per_cpu, int ncpus);
/* CE flows: fn is called with a FT_REC_CE_FLOW record per flow (cumulative). */
int netprobe__ce_flows(struct netprobe *p, netprobe_sample_fn fn, void *ctx);
void netprobe__close(struct netprobe *p);

#endif
